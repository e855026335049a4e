//! `damper_census` (a fleet rule, terminals): where the box dampers of an air handler sit,
//! and what that says about its duct static pressure. In a well-set VAV system most dampers
//! ride in a middle band; most of them nearly closed means the static is higher than the boxes
//! need (they throttle it away, and the fan pays for it), several pinned open means it is too
//! low (starved boxes). Each box is summarised by the median of its damper position over its
//! occupied samples, weighed by time (its own trended occupancy point under
//! `occupancy_gate = trended`, else the assumed weekday 07:00-18:00; the schedule always under
//! `schedule`; every sample under `off`; trended warm-up and cool-down samples are never
//! judged). A box throttles when its median is below 50 % and is starved at 90 % or more.
//!
//! Levels (fixed, as the reference's): fault when 60 % or more of the boxes throttle (static
//! likely too high) or 25 % or more are starved (static likely too low; unlike the reference,
//! only when more than two are: a Guideline 36 static reset ignores its first two requests and
//! keeps that many critical boxes near wide open by design); warn when fewer than half sit in
//! the band between; ok otherwise; info when no box has a judged sample. Unlike the
//! reference, a verdict about the static stands only where the topology names the air handler
//! serving the boxes and it trends its duct static pressure (or its setpoint): elsewhere dampers
//! all low at part load, or all open on a hot afternoon, are the load, and the census is info. Beyond the
//! reference, which pools every box of the building: with a topology, each air handler's boxes
//! are one census (a static setpoint belongs to one fan), and a finding implicates the air
//! handler and the boxes outside the band, worst first; without one, the boxes are pooled by
//! class as the reference pools them. The flagged samples are the judged samples at which an
//! implicated box sits in its band (throttling or pinned).

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, assumed_occupied, median, on, weighted_quantile, Finding, Inputs, ParamSpec, ParamValue, Params, Rule,
    RuleSpec, Severity,
};
use crate::fleet::{Fleet, FleetFinding};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// A box whose median damper is below this (%) is throttling.
pub const LOW_BAND: f64 = 50.0;
/// A box whose median damper is at or above this (%) is starved.
pub const HIGH_BAND: f64 = 90.0;
/// The share of throttling boxes (%) that says the static is too high.
pub const FAULT_LOW_PCT: f64 = 60.0;
/// The share of starved boxes (%) that says the static is too low.
pub const FAULT_HIGH_PCT: f64 = 25.0;
/// Starved boxes a healthy trim-and-respond static reset keeps by design: Guideline 36 ignores
/// its first two requests, so it lowers the static until about that many critical boxes sit near
/// wide open. More than this many, as well as [`FAULT_HIGH_PCT`], say the static is too low.
pub const RESET_IGNORES: usize = 2;
/// Fewer boxes in the band than this share (%) warns.
pub const WARN_BAND_PCT: f64 = 50.0;
/// What the serving air handler must trend for the census to judge its static pressure.
pub const STATIC_ROLES: &[&str] = &["duct_static", "duct_static_sp"];

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "damper_census",
        families: &["terminal"],
        inputs: Inputs {
            required: &["damper"],
            optional: &["occupancy", "warmup", "cooldown"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![ParamSpec {
            name: "occupancy_gate",
            default: ParamValue::Choice("trended".into()),
            unit: "choice",
            range: None,
            choices: &["trended", "schedule", "off"],
            basis: "A box's median is of its occupied hours: its own trended occupancy point says which they are (a building open evenings or weekends is judged then), and an assumed weekday office window stands in only for a box that trends none.",
            calibrate: "trended suits any box with an occupancy point. If the census under schedule gives a very different median_damper_pct, the real hours differ from 07:00-18:00 weekdays: believe the trended one. off is for spaces served around the clock; elsewhere the shut-off hours drag each median down and read as throttling.",
        }],
        judged_basis: "occupied damper samples",
    }
}

/// One box's census entry.
struct BoxMedian {
    member: usize,
    median: f64,
    /// Whether its own occupancy point chose its samples.
    trended: bool,
    /// Its judged samples on the fleet's axis, with their damper (%).
    judged: Vec<(usize, f64)>,
}

/// Which samples of a record are judged: occupied under the gate (a trended point, else the
/// assumed schedule), never in warm-up or cool-down. Returns the mask and whether a trended
/// occupancy point chose it.
fn judged_mask(gate: &str, ts: &[i64], occ: Option<&[f64]>, prep: &[Option<Vec<f64>>]) -> (Vec<bool>, bool) {
    let trended = gate == "trended" && occ.is_some();
    let mask = (0..ts.len())
        .map(|i| {
            let occupied = match (gate, occ) {
                ("off", _) => true,
                ("trended", Some(o)) => on(o[i]),
                _ => assumed_occupied(ts[i]),
            };
            occupied && (gate == "off" || !prep.iter().flatten().any(|p| on(p[i])))
        })
        .collect();
    (mask, trended)
}

fn census(fleet: &Fleet, gate: &str) -> Vec<Option<BoxMedian>> {
    let prep_roles = ["warmup", "cooldown"];
    (0..fleet.members.len())
        .map(|m| {
            let f = fleet.members[m].frame;
            let damper = as_percent(f.col("damper")?);
            let prep: Vec<Option<Vec<f64>>> = prep_roles.iter().map(|r| f.col(r).map(<[f64]>::to_vec)).collect();
            let (mask, trended) = judged_mask(gate, &f.ts, f.col("occupancy"), &prep);
            let w = f.weights_hours();
            let mut pairs: Vec<(f64, f64)> =
                (0..f.len()).filter(|&i| mask[i] && !damper[i].is_nan()).map(|i| (damper[i], w[i])).collect();
            let median = Some(weighted_quantile(&mut pairs, 0.5)).filter(|m| !m.is_nan())?;
            // the same samples on the fleet's axis, for the flagged ones
            let d = as_percent(&fleet.column(m, "damper")?);
            let prep: Vec<Option<Vec<f64>>> = prep_roles.iter().map(|r| fleet.column(m, r)).collect();
            let occ = fleet.column(m, "occupancy");
            let (axis_mask, _) = judged_mask(gate, &fleet.times, occ.as_deref(), &prep);
            let judged =
                (0..fleet.times.len()).filter(|&i| axis_mask[i] && !d[i].is_nan()).map(|i| (i, d[i])).collect();
            Some(BoxMedian { member: m, median, trended, judged })
        })
        .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}

/// Judge the fleet: one census per group (an air handler's boxes, else a class pool).
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let gate = params.choice(spec, "occupancy_gate");
    let boxes = census(fleet, &gate);
    let mut out = Vec::new();
    for g in fleet.groups() {
        let name = match &g.label {
            Some(l) if g.served => format!("the boxes {} serves", camber_common::text::name(l)),
            Some(l) => format!("the {} boxes", camber_common::text::name(l)),
            None => "the boxes of the fleet".to_string(),
        };
        let entries: Vec<&BoxMedian> = g.members.iter().filter_map(|&m| boxes[m].as_ref()).collect();
        let unjudged = g.members.len() - entries.len();
        let mut caveats = Vec::new();
        if unjudged > 0 {
            caveats.push(format!("{unjudged} box(es) had no judged damper sample (none occupied) and are not counted"));
        }
        let assumed = entries.iter().filter(|b| !b.trended).count();
        match gate.as_str() {
            "off" => caveats.push("every sample was judged (occupancy_gate = off): a box shut off at night pulls its median toward throttling".into()),
            "schedule" => caveats.push("occupied hours were assumed, weekdays 07:00-18:00 (occupancy_gate = schedule)".into()),
            _ if assumed > 0 => caveats.push(format!(
                "{assumed} of {} box(es) trend no occupancy: their occupied hours were assumed, weekdays 07:00-18:00",
                entries.len()
            )),
            _ => {}
        }
        let mut judged = vec![false; fleet.times.len()];
        for b in &entries {
            for (i, _) in &b.judged {
                judged[*i] = true;
            }
        }
        let n_judged = judged.iter().filter(|j| **j).count();
        if entries.is_empty() {
            let f = Finding::new(
                spec,
                Severity::Info,
                format!("damper census: no box of {name} has a judged damper sample"),
            )
            .with_caveats(caveats);
            out.push(FleetFinding { group: g.label.clone(), finding: f, equips: Vec::new() });
            continue;
        }
        let n = entries.len() as f64;
        let low: Vec<&BoxMedian> = entries.iter().copied().filter(|b| b.median < LOW_BAND).collect();
        let high: Vec<&BoxMedian> = entries.iter().copied().filter(|b| b.median >= HIGH_BAND).collect();
        let pct_low = 100.0 * low.len() as f64 / n;
        let pct_high = 100.0 * high.len() as f64 / n;
        let pct_band = 100.0 - pct_low - pct_high;
        let fleet_median = median(&mut entries.iter().map(|b| b.median).collect::<Vec<f64>>());
        let mut metrics: BTreeMap<String, f64> = BTreeMap::new();
        metrics.insert("n_boxes".into(), n);
        metrics.insert("median_damper_pct".into(), round1(fleet_median));
        metrics.insert("pct_boxes_low".into(), round1(pct_low));
        metrics.insert("pct_boxes_high".into(), round1(pct_high));
        metrics.insert("pct_boxes_in_band".into(), round1(pct_band));
        metrics.insert("n_boxes_occupancy_trended".into(), (entries.len() - assumed) as f64);
        for b in &entries {
            metrics.insert(format!("median_damper.{}", fleet.members[b.member].equip), round1(b.median));
        }
        let eps = 1e-9;
        // the verdicts are about the duct static pressure: only where the air handler serving
        // the group trends it can the census speak for it (dampers all low are as often a light
        // load, all open a heavy one)
        let static_known = g.served && fleet.parent_has(g.label.as_deref(), STATIC_ROLES);
        metrics.insert("static_trended".into(), f64::from(u8::from(static_known)));
        let (mut severity, mut verdict, mut implicated) = if pct_low >= FAULT_LOW_PCT - eps {
            let mut v = low.clone();
            v.sort_by(|a, b| a.median.total_cmp(&b.median));
            (Severity::Fault, "duct static likely too high: most dampers throttle it away", v)
        } else if pct_high >= FAULT_HIGH_PCT - eps && high.len() > RESET_IGNORES {
            let mut v = high.clone();
            v.sort_by(|a, b| b.median.total_cmp(&a.median));
            (Severity::Fault, "duct static likely too low: boxes pinned open, starved of air", v)
        } else if pct_band < WARN_BAND_PCT - eps {
            let outside = |b: &BoxMedian| if b.median < LOW_BAND { LOW_BAND - b.median } else { b.median - HIGH_BAND };
            let mut v: Vec<&BoxMedian> = low.iter().chain(&high).copied().collect();
            v.sort_by(|a, b| outside(b).total_cmp(&outside(a)));
            (Severity::Warn, "fewer than half the dampers ride in the middle band: the static suits few boxes", v)
        } else {
            (Severity::Ok, "the damper distribution is healthy", Vec::new())
        };
        if !static_known && severity > Severity::Info {
            caveats.push(if g.served {
                "the air handler serving these boxes trends no duct static pressure (duct_static or duct_static_sp): where the dampers sit cannot be laid to the static, so the census is information, not a verdict".to_string()
            } else {
                "no topology names the air handler serving these boxes, so whether it trends duct static pressure is unknown: where the dampers sit cannot be laid to the static, so the census is information, not a verdict".to_string()
            });
            severity = Severity::Info;
            verdict = "the static pressure behind it is not trended, so no verdict";
            implicated.clear();
        }
        let summary = format!(
            "damper census of {name}: median damper {:.0} % open; {:.0} % of the {} boxes throttle below {LOW_BAND:.0} %, {:.0} % sit at {HIGH_BAND:.0} % or more -- {verdict}",
            fleet_median,
            pct_low,
            entries.len(),
            pct_high
        );
        let mut flagged = vec![false; fleet.times.len()];
        for b in &implicated {
            let throttling = b.median < LOW_BAND;
            for (i, d) in &b.judged {
                if (throttling && *d < LOW_BAND) || (!throttling && *d >= HIGH_BAND) {
                    flagged[*i] = true;
                }
            }
        }
        let mut equips: Vec<String> =
            if implicated.is_empty() { Vec::new() } else { g.label.iter().filter(|_| g.served).cloned().collect() };
        equips.extend(implicated.drain(..).map(|b| fleet.members[b.member].equip.to_string()));
        let f = Finding::new(spec, severity, summary)
            .with_metrics(metrics)
            .with_caveats(caveats)
            .with_judged(n_judged)
            .with_flagged(flagged.iter().enumerate().filter(|(_, f)| **f).map(|(i, _)| i as u32).collect());
        out.push(FleetFinding { group: g.label.clone(), finding: f, equips });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, outcome, shuffled_with_duplicates, with, H, MONDAY};
    use crate::fleet::{Fleet, Member};

    /// The census of boxes served by air handlers that trend their duct static setpoint (the
    /// census judges the static only then): a box the test gives no parent is served by AHU-1.
    fn fleet(rule: &Rule, members: &[(&str, Option<&str>, &Frame)], p: &Params) -> Vec<FleetFinding> {
        let m = members
            .iter()
            .map(|(equip, parent, frame)| Member {
                equip,
                class: "VAV",
                parent: Some(parent.unwrap_or("AHU-1")),
                frame,
            })
            .collect();
        let roles = ["AHU-1", "AHU-2"].iter().map(|a| (a.to_string(), vec!["duct_static_sp".to_string()])).collect();
        rule.evaluate_fleet(&(rule.spec)(), &Fleet::new(m).with_parent_roles(roles), p)
    }

    /// The same census without the static: where no air handler trends it (or the topology names
    /// none), the census is information.
    fn blind(members: &[(&str, Option<&str>, &Frame)]) -> Vec<FleetFinding> {
        crate::engine::testing::fleet(&RULE, members, &Params::default())
    }
    use crate::engine::{Frame, Outcome};
    use crate::run::{run, EquipFrame, RunRequest};

    /// Two weeks of hours.
    const N: usize = 14 * 24;

    fn occupied(i: usize) -> bool {
        let (day, hour) = (i / 24, i % 24);
        day % 7 < 5 && (7..18).contains(&hour)
    }

    /// A box at `level` % (wobbling a little) while occupied, shut at night, trending its
    /// occupancy.
    fn vav(level: f64) -> Frame {
        let ts = every(MONDAY, H, N);
        let d: Vec<f64> = (0..N)
            .map(|i| if occupied(i) { (level + 3.0 * (i as f64 * 0.9).sin()).clamp(0.0, 100.0) } else { 0.0 })
            .collect();
        let occ: Vec<f64> = (0..N).map(|i| if occupied(i) { 1.0 } else { 0.0 }).collect();
        Frame::from_rows(&ts, &[("damper", d), ("occupancy", occ)])
    }

    fn census_of(levels: &[f64], parent: Option<&str>, p: &Params) -> Vec<FleetFinding> {
        let frames: Vec<(String, Frame)> = levels.iter().enumerate().map(|(k, l)| (format!("V{k}"), vav(*l))).collect();
        let m: Vec<(&str, Option<&str>, &Frame)> = frames.iter().map(|(e, f)| (e.as_str(), parent, f)).collect();
        fleet(&RULE, &m, p)
    }

    fn one(levels: &[f64]) -> FleetFinding {
        census_of(levels, Some("AHU-1"), &Params::default()).remove(0)
    }

    #[test]
    fn without_the_static_trended_the_census_is_information() {
        // EnergyPlus's large office in April: every box near its minimum, no static pressure
        // anywhere; served by an air handler the run does not hold, or pooled without a topology
        let frames: Vec<Frame> = [20.0, 25.0, 18.0, 30.0, 22.0, 28.0].iter().map(|l| vav(*l)).collect();
        let names = ["V0", "V1", "V2", "V3", "V4", "V5"];
        for parent in [Some("AHU-9"), None] {
            let m: Vec<(&str, Option<&str>, &Frame)> =
                names.iter().zip(&frames).map(|(e, f)| (*e, parent, f)).collect();
            let got = blind(&m);
            let f = &got[0].finding;
            assert_eq!(f.severity, Severity::Info, "{parent:?}: {}", f.summary);
            assert!(got[0].equips.is_empty() && f.flagged.is_empty());
            assert_eq!(f.metrics["static_trended"], 0.0);
            assert!(f.caveats.iter().any(|c| c.contains("duct static")), "{:?}", f.caveats);
        }
        // the same dampers behind a trended static: too high
        let m: Vec<(&str, Option<&str>, &Frame)> = names.iter().zip(&frames).map(|(e, f)| (*e, None, f)).collect();
        assert_eq!(fleet(&RULE, &m, &Params::default())[0].finding.severity, Severity::Fault);
    }

    #[test]
    fn a_healthy_distribution_passes() {
        let f = one(&[55.0, 62.0, 70.0, 66.0, 74.0, 58.0]);
        assert_eq!(f.finding.severity, Severity::Ok, "{}", f.finding.summary);
        assert!(f.equips.is_empty() && f.finding.flagged.is_empty());
        assert_eq!(f.finding.metrics["pct_boxes_in_band"], 100.0);
        // nights shut are not judged: the medians are of the occupied hours
        assert!((f.finding.metrics["median_damper.V0"] - 55.0).abs() < 3.0, "{:?}", f.finding.metrics);
        assert_eq!(f.finding.judged, 10 * 11);
    }

    #[test]
    fn static_too_low_and_too_high_are_faults_and_a_spread_warns() {
        let low = one(&[95.0, 98.0, 92.0, 66.0, 74.0, 58.0]);
        assert_eq!(low.finding.severity, Severity::Fault, "{}", low.finding.summary);
        assert!(low.finding.summary.contains("too low"), "{}", low.finding.summary);
        assert_eq!(low.equips, ["AHU-1", "V1", "V0", "V2"], "the air handler, then the most starved");
        assert!(!low.finding.flagged.is_empty());
        let high = one(&[20.0, 30.0, 25.0, 66.0, 35.0, 58.0]);
        assert_eq!(high.finding.severity, Severity::Fault, "{}", high.finding.summary);
        assert!(high.finding.summary.contains("too high"), "{}", high.finding.summary);
        assert_eq!(high.equips, ["AHU-1", "V0", "V2", "V1", "V4"]);
        let spread = one(&[20.0, 30.0, 40.0, 95.0, 70.0, 60.0]);
        assert_eq!(spread.finding.severity, Severity::Warn, "{}", spread.finding.summary);
        assert_eq!(spread.equips, ["AHU-1", "V0", "V1", "V2", "V3"]);
    }

    #[test]
    fn the_fixed_levels_at_their_boundaries() {
        // three of five throttling is 60 %: a fault; two of five is not
        assert_eq!(one(&[20.0, 30.0, 40.0, 60.0, 70.0]).finding.severity, Severity::Fault);
        assert_eq!(one(&[20.0, 30.0, 60.0, 60.0, 70.0]).finding.severity, Severity::Ok);
        // three of twelve starved is 25 %: a fault; three of thirteen is not
        let mut twelve = vec![95.0, 92.0, 97.0];
        twelve.extend([60.0; 9]);
        assert_eq!(one(&twelve).finding.severity, Severity::Fault);
        twelve.push(70.0);
        assert_eq!(one(&twelve).finding.severity, Severity::Ok);
        // two of four, or one of four, pinned open are a reset's critical boxes, not a fault
        assert_eq!(one(&[95.0, 96.0, 60.0, 70.0]).finding.severity, Severity::Ok);
        assert_eq!(one(&[95.0, 60.0, 60.0, 70.0]).finding.severity, Severity::Ok);
        // half the boxes in the band passes; fewer warns
        assert_eq!(one(&[20.0, 30.0, 60.0, 70.0]).finding.severity, Severity::Ok);
        assert_eq!(one(&[20.0, 30.0, 60.0, 70.0, 95.0, 40.0, 85.0]).finding.severity, Severity::Warn);
        // a median of exactly 50 % is in the band, of exactly 90 % starved
        let flat = |d: f64| Frame::from_rows(&every(MONDAY, H, N), &[("damper", vec![d; N])]);
        let (a, b, c) = (flat(50.0), flat(50.0), flat(90.0));
        let got = fleet(&RULE, &[("V0", None, &a), ("V1", None, &b), ("V2", None, &c)], &Params::default());
        assert_eq!(got[0].finding.metrics["pct_boxes_low"], 0.0);
        assert_eq!(got[0].finding.metrics["pct_boxes_high"], 33.3);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let levels = [95.0, 98.0, 70.0, 66.0, 74.0, 58.0];
        let want = one(&levels);
        let frames: Vec<(String, Frame)> =
            levels.iter().enumerate().map(|(k, l)| (format!("V{k}"), shuffled_with_duplicates(&vav(*l)))).collect();
        let m: Vec<(&str, Option<&str>, &Frame)> = frames.iter().map(|(e, f)| (e.as_str(), Some("AHU-1"), f)).collect();
        let got = fleet(&RULE, &m, &Params::default());
        assert_eq!((&got[0].finding.summary, &got[0].equips), (&want.finding.summary, &want.equips));
        // a box trended every 15 minutes: its median is of time, as hourly
        let f = vav(58.0);
        let ts = every(MONDAY, H / 4, 4 * N);
        let cols: Vec<(&str, Vec<f64>)> =
            f.cols.iter().map(|(k, v)| (k.as_str(), (0..4 * N).map(|i| v[i / 4]).collect())).collect();
        let fast = Frame::from_rows(&ts, &cols);
        let mut m = m;
        m[5].2 = &fast;
        let got = fleet(&RULE, &m, &Params::default());
        assert_eq!(got[0].finding.metrics["median_damper.V5"], want.finding.metrics["median_damper.V5"]);
        assert_eq!(got[0].equips, want.equips);
        // a box whose every other occupied hour is missing keeps its median
        let mut gap = vav(98.0);
        for (i, v) in gap.cols.get_mut("damper").unwrap().iter_mut().enumerate() {
            if i % 2 == 1 {
                *v = f64::NAN;
            }
        }
        m[1].2 = &gap;
        let got = fleet(&RULE, &m, &Params::default());
        assert_eq!(got[0].equips, want.equips, "{}", got[0].finding.summary);
    }

    #[test]
    fn unoccupied_and_prep_samples_are_not_judged() {
        // shut every night: with the gate off, every box reads as throttling
        let off = census_of(&[55.0, 62.0, 70.0], None, &with(&[("occupancy_gate", ParamValue::Choice("off".into()))]));
        assert_eq!(off[0].finding.severity, Severity::Fault, "{}", off[0].finding.summary);
        // no occupancy point: the weekday office window stands in, with a caveat
        let frames: Vec<Frame> = [55.0, 62.0, 70.0]
            .iter()
            .map(|l| {
                let mut f = vav(*l);
                f.cols.remove("occupancy");
                f
            })
            .collect();
        let m: Vec<(&str, Option<&str>, &Frame)> =
            ["V0", "V1", "V2"].iter().zip(&frames).map(|(e, f)| (*e, None, f)).collect();
        let got = fleet(&RULE, &m, &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Ok, "{}", got[0].finding.summary);
        assert!(got[0].finding.caveats.iter().any(|c| c.contains("3 of 3 box(es) trend no occupancy")));
        assert_eq!(got[0].finding.metrics["n_boxes_occupancy_trended"], 0.0);
        // a warm-up hour at full open is not judged
        let mut warm = vav(60.0);
        let w: Vec<f64> = (0..N).map(|i| if occupied(i) && i % 24 < 12 { 1.0 } else { 0.0 }).collect();
        for (i, d) in warm.cols.get_mut("damper").unwrap().iter_mut().enumerate() {
            if w[i] > 0.5 {
                *d = 100.0;
            }
        }
        warm.cols.insert("warmup".into(), w);
        let got = fleet(&RULE, &[("V0", None, &warm)], &Params::default());
        assert!((got[0].finding.metrics["median_damper.V0"] - 60.0).abs() < 4.0, "{:?}", got[0].finding.metrics);
    }

    #[test]
    fn a_box_without_a_damper_is_skipped_and_the_topology_makes_one_census_per_air_handler() {
        let c = RunConfig::from_value(&serde_json::json!({
            "equipment": [{"class": "VAV"}], "rules": [{"name": "damper_census", "params": {"occupancy_gate": "trended"}}],
            "topology": {"parents": {"V0": "AHU-1", "V1": "AHU-1", "V2": "AHU-1", "W0": "AHU-2", "W1": "AHU-2", "W2": "AHU-2"}}
        }))
        .unwrap();
        let mut frames: Vec<EquipFrame> =
            [("V0", 95.0), ("V1", 92.0), ("V2", 97.0), ("W0", 60.0), ("W1", 65.0), ("W2", 70.0)]
                .iter()
                .map(|(e, l)| EquipFrame { equip: e.to_string(), class: "VAV".into(), frame: vav(*l) })
                .collect();
        frames[5].frame.cols.remove("damper");
        // the air handlers, read for their static setpoint, not judged
        let ahus: Vec<EquipFrame> = ["AHU-1", "AHU-2"]
            .iter()
            .map(|e| EquipFrame {
                equip: e.to_string(),
                class: "AHU".into(),
                frame: Frame::from_rows(&every(MONDAY, H, 3), &[("duct_static_sp", vec![1.2; 3])]),
            })
            .collect();
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &ahus).unwrap();
        assert_eq!((r.skipped[0].equip.as_str(), r.skipped[0].missing.clone()), ("W2", vec!["damper".to_string()]));
        let ids: Vec<&str> = r.findings.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["damper_census@<fleet:AHU-1>", "damper_census@<fleet:AHU-2>"]);
        assert_eq!(r.findings[0].equips, ["AHU-1", "V2", "V0", "V1"]);
        assert_eq!(r.findings[0].finding.severity, Severity::Fault);
        assert_eq!(r.findings[1].members, ["W0", "W1"]);
        // through the engine alone, a frame without a damper is a skip
        let none = Frame::from_rows(&every(MONDAY, H, 3), &[("occupancy", vec![1.0; 3])]);
        assert_eq!(outcome(&RULE, &none, &Params::default()), Outcome::Skipped { missing: vec!["damper".into()] });
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        let got = fleet(&RULE, &[("V0", None, &Frame::default())], &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Info);
        let one_sample = Frame::from_rows(&[MONDAY + 9 * H], &[("damper", vec![60.0])]);
        let got = fleet(&RULE, &[("V0", None, &one_sample)], &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Ok, "{}", got[0].finding.summary);
        let mut nan = vav(60.0);
        nan.cols.values_mut().for_each(|c| c.iter_mut().for_each(|v| *v = f64::NAN));
        let got = fleet(&RULE, &[("V0", None, &nan)], &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Info);
        // dampers trended as 0-1 fractions read as percent
        let frac = Frame::from_rows(&every(MONDAY, H, N), &[("damper", vec![0.95; N])]);
        let got = fleet(&RULE, &[("V0", None, &frac)], &Params::default());
        assert_eq!(got[0].finding.metrics["median_damper.V0"], 95.0);
    }
}
