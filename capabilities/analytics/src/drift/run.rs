//! A drift run: each configured family's detectors on its equipment, a current window judged
//! against a baseline, rolled up per equipment. The baseline is one of three things, all read,
//! none kept: a known-good window of the same equipment (fitted for the run), a known-good twin
//! (the family's `reference` equipment, compared and never judged itself), or baselines a person
//! froze earlier with `camber drift fit` (the run config's `drift.store`). The trust floor gates
//! every input a detector reads, on the current window and on whatever the baseline is fitted
//! from, so a check fitted on an untrusted twin declines and names it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::families::{Diagnosis, DriftFamily};
use super::{Baseline, DetectorSpec, FitError};
use crate::engine::{Finding, Frame, Outcome, Params};
use crate::run::EquipFrame;
use crate::trust::Trust;

/// A window `[start, end]` in stored ns; either end open.
pub type Window = (Option<i64>, Option<i64>);

/// What a family's baselines are fitted from.
#[derive(Clone, Debug)]
pub enum Source<'a> {
    /// Each equipment's own samples in this window.
    Period(Window),
    /// A known-good twin's samples in this window: it is compared against, never judged.
    Twin { equip: &'a str, frame: &'a Frame, window: Window },
    /// Baselines frozen earlier.
    Frozen(&'a FrozenBaselines),
}

impl Source<'_> {
    /// How a finding names what it was compared with: `period:<start>..<end>`,
    /// `reference:<equip>` or `frozen`.
    fn label(&self, iso: &dyn Fn(Option<i64>) -> String) -> String {
        match self {
            Source::Period(w) => format!("period:{}..{}", iso(w.0), iso(w.1)),
            Source::Twin { equip, .. } => format!("reference:{equip}"),
            Source::Frozen(_) => "frozen".into(),
        }
    }
}

/// One family's run over its equipment.
pub struct FamilyRun<'a> {
    pub family: &'static DriftFamily,
    /// The stored class the family judges (as configured).
    pub class: &'a str,
    /// The equipment of that class the run judges (the twin, if any, left out by the caller or
    /// here), each with its frame over the run's whole span.
    pub members: &'a [&'a EquipFrame],
    pub source: Source<'a>,
    /// The window judged.
    pub current: Window,
    /// Per-detector parameter overrides (detector id -> values); defaults elsewhere.
    pub params: &'a BTreeMap<String, Params>,
    pub min_trust: f64,
    /// The run's grid step, for the trust scores.
    pub step_ns: i64,
}

/// A drift finding of one detector on one equipment.
#[derive(Clone, Debug, Serialize)]
pub struct DriftFinding {
    /// `<family>:<detector>@<equip>`.
    pub id: String,
    pub family: String,
    pub detector: String,
    pub equip: String,
    pub class: String,
    pub finding: Finding,
    /// Declined by the trust floor: the untrusted inputs (`<role>` on the judged unit,
    /// `<role> (reference <equip>)` on the twin) and their scores.
    pub declined: Vec<(String, f64)>,
    /// What it was compared with (see [`Source`]).
    pub baseline_source: String,
}

/// An equipment a family could not judge, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unevaluated {
    pub family: String,
    pub equip: String,
    pub reason: String,
    /// The roles the family's detectors need (any one detector's).
    pub roles_required: Vec<String>,
}

/// What a family's run found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FamilyResult {
    pub findings: Vec<DriftFinding>,
    pub diagnoses: Vec<Diagnosis>,
    pub unevaluated: Vec<Unevaluated>,
}

/// One frozen baseline: a detector's fit for one equipment, and the roles it was fitted on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrozenEntry {
    pub family: String,
    pub equip: String,
    pub class: String,
    pub roles: Vec<String>,
    pub baseline: Baseline,
}

/// A file of frozen baselines (`camber drift fit` writes it; the `drift` capability reads it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrozenBaselines {
    /// Always [`FROZEN_KIND`], so another JSON file is not taken for one.
    pub kind: String,
    /// The layout version ([`super::BASELINE_FORMAT`]).
    pub format: u32,
    pub facility_id: String,
    /// The fitted window as ISO dates (start, end).
    pub window: (Option<String>, Option<String>),
    /// The grid the fit read, in minutes.
    pub resample_minutes: f64,
    pub entries: Vec<FrozenEntry>,
}

/// The `kind` a frozen-baselines file carries.
pub const FROZEN_KIND: &str = "camber-drift-baselines";

impl FrozenBaselines {
    /// Whether this file can serve a run of `facility` on a `resample_minutes` grid: `Err`
    /// with a one-line reason when it is another facility's, another layout's or another grid's.
    pub fn check(&self, facility: &str, resample_minutes: f64) -> Result<(), String> {
        if self.kind != FROZEN_KIND {
            return Err(format!("it is not a frozen-baselines file (kind '{}')", self.kind));
        }
        if self.format != super::BASELINE_FORMAT {
            return Err(format!(
                "its layout {} is not the one this build reads ({}): refit it with camber drift fit",
                self.format,
                super::BASELINE_FORMAT
            ));
        }
        if self.facility_id != facility {
            return Err(format!("it was fitted for facility '{}', not '{facility}'", self.facility_id));
        }
        if (self.resample_minutes - resample_minutes).abs() > 1e-9 {
            return Err(format!(
                "it was fitted on a {}-minute grid and the run reads a {}-minute one: refit it",
                self.resample_minutes, resample_minutes
            ));
        }
        Ok(())
    }

    fn get(&self, family: &str, equip: &str, detector: &str) -> Option<&FrozenEntry> {
        self.entries.iter().find(|e| e.family == family && e.equip == equip && e.baseline.detector == detector)
    }
}

/// The samples of `frame` inside `w`.
pub fn slice(frame: &Frame, w: Window) -> Frame {
    let keep: Vec<usize> = (0..frame.len())
        .filter(|&i| w.0.is_none_or(|a| frame.ts[i] >= a) && w.1.is_none_or(|b| frame.ts[i] <= b))
        .collect();
    Frame {
        ts: keep.iter().map(|&i| frame.ts[i]).collect(),
        cols: frame.cols.iter().map(|(r, v)| (r.clone(), keep.iter().map(|&i| v[i]).collect())).collect(),
    }
}

/// The trust of every role a family's detectors read on `frame`, scored once for all of them
/// (a role's score does not depend on which others are scored).
fn family_scores(detectors: &[DetectorSpec], frame: &Frame, step_ns: i64) -> BTreeMap<String, Trust> {
    let reads: Vec<&str> = detectors.iter().flat_map(|d| d.inputs.roles()).collect();
    crate::trust::assess_roles(frame, step_ns, |r| reads.contains(&r))
}

/// The inputs of `spec` present in `frame` that score below `floor` and gate its check (a
/// required input, or a present member of a group it needs one of), with their scores
/// (`scores`: the frame's, from [`family_scores`]).
fn untrusted(spec: &DetectorSpec, frame: &Frame, scores: &BTreeMap<String, Trust>, floor: f64) -> Vec<(String, f64)> {
    let gates = spec.inputs.gated(|r| frame.col(r).is_some());
    let mut below: Vec<(String, f64)> = gates
        .iter()
        .filter_map(|r| scores.get(*r).map(|t| (r.to_string(), t.score)))
        .filter(|(_, s)| *s < floor)
        .collect();
    below.sort_by(|a, b| a.0.cmp(&b.0));
    below
}

/// What `frame` lacks of the inputs `spec` cannot run without: its required roles, and each
/// group it needs one of ("a or b"); empty when it has them.
fn lacks(spec: &DetectorSpec, frame: &Frame) -> Vec<String> {
    let mut out: Vec<String> =
        spec.inputs.required.iter().filter(|r| frame.col(r).is_none()).map(|r| r.to_string()).collect();
    for g in spec.inputs.one_of.iter().filter(|g| g.iter().all(|r| frame.col(r).is_none())) {
        out.push(g.join(" or "));
    }
    out
}

/// The roles a detector read on a frame (every one of its inputs the frame has).
fn roles_read(spec: &DetectorSpec, frame: &Frame) -> Vec<String> {
    spec.inputs.roles().into_iter().filter(|r| frame.col(r).is_some()).map(str::to_string).collect()
}

/// A declined finding: an input below the trust floor, named with its score.
fn declined_finding(spec: &DetectorSpec, below: &[(String, f64)], floor: f64) -> Finding {
    let names: Vec<String> = below.iter().map(|(r, s)| format!("{r} (trust {s:.2})")).collect();
    let mut f = super::not_judged(spec, "");
    f.summary = format!("declined -- untrusted input(s): {}", names.join(", "));
    f.caveats = vec![format!(
        "an input scored below the trust floor {floor:.2}: a declined check is not a pass; see sensor_trust"
    )];
    f
}

/// A detector's fit on the twin, or why there is none (with the twin's untrusted inputs).
type TwinFit = Result<Baseline, (FitError, Vec<(String, f64)>)>;

/// Run one family. `iso` writes a stored time as the caller shows it (for the baseline source).
pub fn run_family(run: &FamilyRun, iso: &dyn Fn(Option<i64>) -> String) -> FamilyResult {
    run_family_watched(run, iso, &mut |_, _| {})
}

/// [`run_family`], telling `watch` each member as its turn comes (its index among the
/// members, and its id), so a caller can show progress.
pub fn run_family_watched(
    run: &FamilyRun,
    iso: &dyn Fn(Option<i64>) -> String,
    watch: &mut dyn FnMut(usize, &str),
) -> FamilyResult {
    let fam = run.family;
    let detectors = fam.built();
    let source_label = run.source.label(iso);
    let mut out = FamilyResult::default();
    let defaults = Params::default();
    // a twin's baseline is fitted once per detector and serves every member
    let twin_fits: BTreeMap<&str, TwinFit> = match &run.source {
        Source::Twin { frame, window, .. } => {
            let window_frame = slice(frame, *window);
            let scores = family_scores(&detectors, &window_frame, run.step_ns);
            detectors
                .iter()
                .map(|d| {
                    let below = untrusted(d, &window_frame, &scores, run.min_trust);
                    let params = run.params.get(d.id).unwrap_or(&defaults);
                    let fit = if below.is_empty() {
                        super::fit(d, &window_frame, params).map_err(|e| (e, Vec::new()))
                    } else {
                        Err((FitError::Declined("the reference's inputs are untrusted".into()), below))
                    };
                    (d.id, fit)
                })
                .collect()
        }
        _ => BTreeMap::new(),
    };
    let required: Vec<String> = {
        let mut r: Vec<String> =
            detectors.iter().flat_map(|d| d.inputs.required.iter().map(|s| s.to_string())).collect();
        r.sort();
        r.dedup();
        r
    };
    for (i, m) in run.members.iter().enumerate() {
        watch(i, &m.equip);
        if let Source::Twin { equip, .. } = &run.source {
            if m.equip == *equip {
                out.unevaluated.push(Unevaluated {
                    family: fam.name.into(),
                    equip: m.equip.clone(),
                    reason: "is the declared reference (compared against, not judged)".into(),
                    roles_required: required.clone(),
                });
                continue;
            }
        }
        let current = slice(&m.frame, run.current);
        let scores = family_scores(&detectors, &current, run.step_ns);
        // a period's baseline window, sliced and scored once for every detector
        let period = match &run.source {
            Source::Period(w) => {
                let base = slice(&m.frame, *w);
                let scores = family_scores(&detectors, &base, run.step_ns);
                Some((base, scores))
            }
            _ => None,
        };
        let mut mine: Vec<DriftFinding> = Vec::new();
        for d in &detectors {
            let params = &run.params.get(d.id).unwrap_or(&defaults).for_equip(&m.equip);
            let push = |mine: &mut Vec<DriftFinding>, finding: Finding, declined: Vec<(String, f64)>| {
                mine.push(DriftFinding {
                    id: format!("{}:{}@{}", fam.name, d.id, m.equip),
                    family: fam.name.into(),
                    detector: d.id.into(),
                    equip: m.equip.clone(),
                    class: m.class.clone(),
                    finding,
                    declined,
                    baseline_source: source_label.clone(),
                })
            };
            let below = untrusted(d, &current, &scores, run.min_trust);
            if !below.is_empty() {
                push(&mut mine, declined_finding(d, &below, run.min_trust), below);
                continue;
            }
            let baseline: Result<Baseline, Outcome> = match &run.source {
                Source::Period(_) => {
                    let Some((base, base_scores)) = &period else { continue };
                    let below = untrusted(d, base, base_scores, run.min_trust);
                    if !below.is_empty() {
                        let mut f = declined_finding(d, &below, run.min_trust);
                        f.summary = format!("{} in the baseline window", f.summary);
                        push(&mut mine, f, below);
                        continue;
                    }
                    super::fit(d, base, params).map_err(|e| e.into_outcome(d))
                }
                Source::Twin { equip, .. } => match twin_fits.get(d.id) {
                    Some(Ok(b)) => Ok(b.clone()),
                    Some(Err((_, below))) if !below.is_empty() => {
                        let named: Vec<(String, f64)> =
                            below.iter().map(|(r, s)| (format!("{r} (reference {equip})"), *s)).collect();
                        push(&mut mine, declined_finding(d, &named, run.min_trust), named);
                        continue;
                    }
                    Some(Err((FitError::Missing(missing), _))) => {
                        // the twin lacks what this detector reads: say so when the unit has it
                        let own = lacks(d, &current);
                        if !own.is_empty() {
                            Err(Outcome::Skipped { missing: own })
                        } else {
                            Err(Outcome::Findings(vec![super::not_judged(
                                d,
                                &format!("no baseline: the reference {equip} lacks {}", missing.join(", ")),
                            )]))
                        }
                    }
                    Some(Err((FitError::Declined(why), _))) => Err(Outcome::Findings(vec![super::not_judged(
                        d,
                        &format!("no baseline: on the reference {equip}, {why}"),
                    )])),
                    None => continue,
                },
                Source::Frozen(frozen) => match frozen.get(fam.name, &m.equip, d.id) {
                    None => {
                        let own = lacks(d, &current);
                        if !own.is_empty() {
                            Err(Outcome::Skipped { missing: own })
                        } else {
                            Err(Outcome::Findings(vec![super::not_judged(
                                d,
                                "no frozen baseline for this equipment and detector: fit one with camber drift fit",
                            )]))
                        }
                    }
                    Some(e) => {
                        let gone: Vec<&str> =
                            e.roles.iter().map(String::as_str).filter(|r| current.col(r).is_none()).collect();
                        if gone.is_empty() {
                            Ok(e.baseline.clone())
                        } else {
                            Err(Outcome::Findings(vec![super::not_judged(
                                d,
                                &format!(
                                    "the frozen baseline is stale: it was fitted on {}, which the current window lacks; refit it",
                                    gone.join(", ")
                                ),
                            )]))
                        }
                    }
                },
            };
            let outcome = match baseline {
                Ok(b) => super::evaluate(d, &b, &current, params),
                Err(o) => o,
            };
            if let Outcome::Findings(list) = outcome {
                for mut f in list {
                    if let Source::Twin { equip, .. } = &run.source {
                        f.caveats.push(format!(
                            "compared with the reference {equip} at matched conditions: a drift is a difference from that unit, which is taken as known-good"
                        ));
                    }
                    push(&mut mine, f, Vec::new());
                }
            }
        }
        if mine.is_empty() {
            out.unevaluated.push(Unevaluated {
                family: fam.name.into(),
                equip: m.equip.clone(),
                reason: "no detector of the family has its inputs here".into(),
                roles_required: required.clone(),
            });
            continue;
        }
        if mine.iter().all(|f| f.finding.judged == 0) {
            out.unevaluated.push(Unevaluated {
                family: fam.name.into(),
                equip: m.equip.clone(),
                reason: "every detector declined or had no baseline".into(),
                roles_required: required.clone(),
            });
        } else {
            let pairs: Vec<(&str, &Finding)> = mine.iter().map(|f| (f.detector.as_str(), &f.finding)).collect();
            out.diagnoses.push((fam.diagnose)(fam, &m.equip, &pairs));
        }
        out.findings.extend(mine);
    }
    out.findings.sort_by(|a, b| b.finding.severity.cmp(&a.finding.severity).then_with(|| a.id.cmp(&b.id)));
    out.diagnoses.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.equip.cmp(&b.equip)));
    out
}

/// Fit a family's detectors on each member's window, for freezing: the entries fitted, and
/// per equipment the detectors that could not be (and why).
pub fn fit_family(
    family: &'static DriftFamily,
    members: &[&EquipFrame],
    window: Window,
    params: &BTreeMap<String, Params>,
    min_trust: f64,
    step_ns: i64,
) -> (Vec<FrozenEntry>, Vec<(String, String, String)>) {
    let defaults = Params::default();
    let (mut entries, mut left) = (Vec::new(), Vec::new());
    let detectors = family.built();
    for m in members {
        let base = slice(&m.frame, window);
        let scores = family_scores(&detectors, &base, step_ns);
        for d in &detectors {
            let params = &params.get(d.id).unwrap_or(&defaults).for_equip(&m.equip);
            let below = untrusted(d, &base, &scores, min_trust);
            if !below.is_empty() {
                let names: Vec<String> = below.iter().map(|(r, s)| format!("{r} (trust {s:.2})")).collect();
                left.push((m.equip.clone(), d.id.to_string(), format!("untrusted input(s): {}", names.join(", "))));
                continue;
            }
            match super::fit(d, &base, params) {
                Ok(baseline) => entries.push(FrozenEntry {
                    family: family.name.into(),
                    equip: m.equip.clone(),
                    class: m.class.clone(),
                    roles: roles_read(d, &base),
                    baseline,
                }),
                Err(FitError::Missing(_)) => {}
                Err(FitError::Declined(why)) => left.push((m.equip.clone(), d.id.to_string(), why)),
            }
        }
    }
    (entries, left)
}

#[cfg(test)]
mod tests {
    use super::super::families::family;
    use super::super::tests::{frame, noise, H, T0};
    use super::*;
    use crate::engine::Severity;

    /// A chilled-water pump over `n` hours from hour `start`: flow ten times its speed, less
    /// `deficit(i)` gpm.
    fn pump(equip: &str, n: usize, start: usize, deficit: &dyn Fn(usize) -> f64) -> EquipFrame {
        let speed = |i: usize| 30.0 + 60.0 * ((i * 53) % 97) as f64 / 97.0;
        let f = frame(
            n,
            start,
            &[
                ("chw_flow", &|i| 10.0 * speed(i) - deficit(i) + 20.0 * noise(i)),
                ("chw_pump_speed", &speed),
                ("pump_status", &|_| 1.0),
            ],
        );
        EquipFrame { equip: equip.into(), class: "PUMP".into(), frame: f }
    }

    fn iso(t: Option<i64>) -> String {
        t.map_or("-".into(), |v| ((v - T0) / H).to_string())
    }

    const DAYS: usize = 28;

    fn fleet() -> Vec<EquipFrame> {
        let n = DAYS * 24;
        vec![
            pump("P-REF", n, 0, &|_| 0.0),
            // wearing from the third week: 90 gpm short of its own first fortnight
            pump("P-WORN", n, 0, &|i| if i >= 14 * 24 { 90.0 } else { 0.0 }),
            pump("P-OK", n, 0, &|_| 0.0),
            EquipFrame {
                equip: "P-BARE".into(),
                class: "PUMP".into(),
                frame: frame(n, 0, &[("pump_status", &|_| 1.0)]),
            },
        ]
    }

    fn run_with(source: Source, members: &[EquipFrame]) -> FamilyResult {
        let refs: Vec<&EquipFrame> = members.iter().collect();
        let params = BTreeMap::new();
        let split = T0 + 14 * 24 * H;
        let current = (Some(split), None);
        let run = FamilyRun {
            family: family("pump").unwrap(),
            class: "PUMP",
            members: &refs,
            source,
            current,
            params: &params,
            min_trust: 0.5,
            step_ns: H,
        };
        run_family(&run, &iso)
    }

    #[test]
    fn a_baseline_period_finds_the_pump_that_wore_and_lists_the_one_it_cannot_judge() {
        let members = fleet();
        let r = run_with(Source::Period((Some(T0), Some(T0 + 14 * 24 * H - 1))), &members);
        let worn = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-WORN").expect("a flow finding");
        assert!(worn.finding.severity >= Severity::Warn, "{}", worn.finding.summary);
        assert!(worn.finding.metrics["pump_flow_drift_gpm"] < -80.0, "{:?}", worn.finding.metrics);
        assert_eq!(worn.baseline_source, "period:0..335");
        let ok = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-OK").unwrap();
        assert_eq!(ok.finding.severity, Severity::Ok, "{}", ok.finding.summary);
        // worst first, the roll-up names the pump, and the bare one is unevaluated, not steady
        assert_eq!(r.findings[0].equip, "P-WORN");
        let d = r.diagnoses.iter().find(|d| d.equip == "P-WORN").unwrap();
        assert_eq!((d.severity >= Severity::Warn, d.locus.as_str()), (true, "pump"));
        assert!(r.diagnoses.iter().any(|d| d.equip == "P-OK" && d.locus == "steady"));
        assert_eq!(r.unevaluated.len(), 1);
        assert_eq!(r.unevaluated[0].equip, "P-BARE");
        assert!(r.unevaluated[0].roles_required.contains(&"chw_flow".to_string()));
    }

    #[test]
    fn a_twin_is_compared_against_and_never_judged() {
        let members = fleet();
        let twin = members[0].frame.clone();
        let r = run_with(Source::Twin { equip: "P-REF", frame: &twin, window: (None, None) }, &members);
        assert!(r.findings.iter().all(|f| f.equip != "P-REF"));
        let u = r.unevaluated.iter().find(|u| u.equip == "P-REF").unwrap();
        assert!(u.reason.contains("declared reference"), "{}", u.reason);
        let worn = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-WORN").unwrap();
        assert!(worn.finding.severity >= Severity::Warn, "{}", worn.finding.summary);
        assert_eq!(worn.baseline_source, "reference:P-REF");
        assert!(worn.finding.caveats.iter().any(|c| c.contains("reference P-REF")), "{:?}", worn.finding.caveats);
        // an untrusted twin declines every check it would serve, naming the twin's input
        let mut bad = twin.clone();
        for (r, v) in bad.cols.iter_mut() {
            if r == "chw_flow" {
                v.iter_mut().enumerate().for_each(|(i, x)| *x = if i % 3 == 0 { *x } else { f64::NAN });
            }
        }
        let r = run_with(Source::Twin { equip: "P-REF", frame: &bad, window: (None, None) }, &members);
        let f = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-OK").unwrap();
        assert!(f.finding.summary.contains("chw_flow (reference P-REF)"), "{}", f.finding.summary);
        assert!(!f.declined.is_empty());
    }

    #[test]
    fn frozen_baselines_round_trip_and_a_stale_one_says_so() {
        let members = fleet();
        let refs: Vec<&EquipFrame> = members.iter().collect();
        let (entries, left) = fit_family(
            family("pump").unwrap(),
            &refs,
            (Some(T0), Some(T0 + 14 * 24 * H - 1)),
            &BTreeMap::new(),
            0.5,
            H,
        );
        assert!(entries.iter().any(|e| e.equip == "P-WORN" && e.baseline.detector == "pump_flow_drift"));
        assert!(entries.iter().all(|e| e.equip != "P-BARE"));
        assert!(left.iter().all(|(e, ..)| e != "P-BARE"), "{left:?}");
        let file = FrozenBaselines {
            kind: FROZEN_KIND.into(),
            format: super::super::BASELINE_FORMAT,
            facility_id: "F".into(),
            window: (Some("a".into()), Some("b".into())),
            resample_minutes: 60.0,
            entries,
        };
        let back: FrozenBaselines = serde_json::from_str(&serde_json::to_string(&file).unwrap()).unwrap();
        assert_eq!(back, file);
        assert!(back.check("F", 60.0).is_ok());
        assert!(back.check("G", 60.0).unwrap_err().contains("facility 'F'"));
        assert!(back.check("F", 15.0).unwrap_err().contains("60-minute grid"));
        let r = run_with(Source::Frozen(&back), &members);
        let worn = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-WORN").unwrap();
        assert!(worn.finding.severity >= Severity::Warn, "{}", worn.finding.summary);
        assert_eq!(worn.baseline_source, "frozen");
        // the pump now stores no speed: its frozen flow baseline, fitted on the speed, is stale
        let mut changed = fleet();
        changed[2].frame.cols.remove("chw_pump_speed");
        let r = run_with(Source::Frozen(&back), &changed);
        let f = r.findings.iter().find(|f| f.id == "pump:pump_flow_drift@P-OK").unwrap();
        assert!(f.finding.summary.contains("stale"), "{}", f.finding.summary);
        assert!(r.unevaluated.iter().any(|u| u.equip == "P-OK"));
    }
}
