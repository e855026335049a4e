//! The roll-ups of the chiller drift families: which part of the machine the drifting signals
//! point at, read from which of them move together. Each signal alone is narrow (the condenser
//! approach is heat transfer, the condenser-water range is flow, the head pressure is the high
//! side, the tower approach is heat rejection); two moving together say more than either.
//!
//! - [`condenser`] (family `condenser`): the condenser leg of the approach (its own grade, so an
//!   evaporator-leg drift does not count here), the condenser-water range (wider: less flow;
//!   narrower: a bypass), the tower approach and the head pressure. A head-pressure rise is placed
//!   with what moves beside it: with the condenser approach it is the condenser (fouling or scale
//!   reaching the high side), with the tower approach the tower, alone the high side itself
//!   (non-condensables, or a fault the water side does not show). When the head pressure could
//!   not be matched on the entering condenser water and that water rose, a degrading tower
//!   explains the rise and a quiet one leaves it likely weather.
//! - [`evaporator`] (family `evaporator`): the evaporator leg of the approach, the superheat and
//!   the suction pressure. Superheat and suction pressure are two reads of one feed axis (overfed:
//!   superheat down, suction up; starved: superheat up, suction down): agreeing, they are a feed
//!   fault (`feed`); disagreeing, the picture is called ambiguous. A falling suction pressure with
//!   a quiet superheat, or beside a widening approach, is the evaporator's heat transfer.
//! - [`chiller`] (family `chiller`): both sides and the subcooling. One side drifting is that
//!   side; both at once is a circuit-wide cause (refrigerant charge, non-condensables, the
//!   compressor or metering: `whole_machine`); the subcooling alone is `refrigerant_charge`, and
//!   beside the sides it corroborates a charge problem.
//!
//! The loci are `steady`, `condenser`, `condenser_water`, `tower`, `high_side`, `evaporator`,
//! `feed`, `refrigerant_charge`, `whole_machine`, or `several` when the drifting reads of one side
//! point at different parts. Co-drift adds priority in the caveats, never a higher severity: the
//! severity is the worst judged signal's, and a detector that did not judge is a caveat, never a
//! pass.

use std::collections::BTreeMap;

use super::families::{Diagnosis, DriftFamily};
use crate::engine::{Finding, Severity};

const APPROACH: &str = "chiller_approach_drift";
const CW_RANGE: &str = "chiller_cw_range_drift";
const TOWER: &str = "cooling_tower_approach_drift";
const HEAD: &str = "chiller_head_pressure_drift";
const SUBCOOLING: &str = "chiller_subcooling_drift";
const SUPERHEAT: &str = "chiller_superheat_drift";
const SUCTION: &str = "chiller_suction_pressure_drift";

/// One drifting signal: how bad, where it points, and what it suggests.
#[derive(Clone, Debug)]
struct Read {
    severity: Severity,
    locus: &'static str,
    cause: String,
}

/// What one side of the machine says.
#[derive(Debug, Default)]
struct SideRead {
    /// The worst judged signal; `None` when nothing was judged.
    severity: Option<Severity>,
    /// The signals at warn or worse, worst first.
    drifting: Vec<Read>,
    signals: BTreeMap<String, (Severity, String)>,
    caveats: Vec<String>,
}

impl SideRead {
    fn judged(&mut self, detector: &str, severity: Severity, summary: &str) {
        self.severity = Some(self.severity.map_or(severity, |s| s.max(severity)));
        self.signals.insert(detector.to_string(), (severity, summary.to_string()));
    }

    fn drift(&mut self, severity: Severity, locus: &'static str, cause: String) {
        if severity >= Severity::Warn {
            self.drifting.push(Read { severity, locus, cause });
        }
    }

    fn has(&self, locus: &str) -> bool {
        self.drifting.iter().any(|r| r.locus == locus)
    }

    fn sort(&mut self) {
        self.drifting.sort_by_key(|r| std::cmp::Reverse(r.severity));
    }

    fn worst(&self) -> Option<Severity> {
        self.drifting.iter().map(|r| r.severity).max()
    }
}

fn find<'a>(findings: &'a [(&str, &Finding)], id: &str) -> Option<&'a Finding> {
    findings.iter().find(|(d, _)| *d == id).map(|(_, f)| *f)
}

/// The finding when it judged; else its reason is a caveat.
fn judged<'a>(findings: &'a [(&str, &Finding)], id: &str, caveats: &mut Vec<String>) -> Option<&'a Finding> {
    let f = find(findings, id)?;
    if f.judged == 0 {
        caveats.push(format!("{id} did not judge: {}", f.summary));
        return None;
    }
    Some(f)
}

fn metric(f: &Finding, k: &str) -> Option<f64> {
    f.metrics.get(k).copied().filter(|v| !v.is_nan())
}

/// A leg's grade from the approach finding (`<leg>_severity`: 0 ok, 1 warn, 2 fault).
fn leg_severity(f: &Finding, leg: &str) -> Option<Severity> {
    metric(f, &format!("{leg}_severity")).map(|c| match c as i64 {
        2 => Severity::Fault,
        1 => Severity::Warn,
        _ => Severity::Ok,
    })
}

fn signed(v: Option<f64>, unit: &str) -> String {
    v.map_or(String::new(), |v| format!(" ({v:+.1} {unit})"))
}

/// The condenser side: the approach's condenser leg, the range, the tower and the head pressure.
fn condenser_side(findings: &[(&str, &Finding)]) -> SideRead {
    let mut s = SideRead::default();
    if let Some(f) = judged(findings, APPROACH, &mut s.caveats) {
        match leg_severity(f, "cond") {
            Some(sev) => {
                s.judged(APPROACH, sev, &f.summary);
                let d = signed(metric(f, "cond_drift_f"), "°F");
                s.drift(sev, "condenser", format!("condenser tube fouling or scale: its approach widened{d}"));
            }
            None => s.caveats.push(format!("{APPROACH} did not judge its condenser leg: {}", f.summary)),
        }
    }
    if let Some(f) = judged(findings, CW_RANGE, &mut s.caveats) {
        s.judged(CW_RANGE, f.severity, &f.summary);
        let drift = metric(f, "cw_range_drift_f");
        let cause = if drift.unwrap_or(0.0) >= 0.0 {
            "less condenser-water flow: the range widened"
        } else {
            "condenser water bypassing or short-circuiting the bundle: the range narrowed"
        };
        s.drift(f.severity, "condenser_water", format!("{cause}{}", signed(drift, "°F")));
    }
    let tower = judged(findings, TOWER, &mut s.caveats);
    if let Some(f) = tower {
        s.judged(TOWER, f.severity, &f.summary);
        s.drift(f.severity, "tower", "the cooling tower rejects heat less well: its approach widened".into());
    }
    let tower_drifts = tower.is_some_and(|f| f.severity >= Severity::Warn);
    if let Some(f) = judged(findings, HEAD, &mut s.caveats) {
        s.judged(HEAD, f.severity, &f.summary);
        let d = signed(metric(f, "head_pressure_drift_psi"), "psi");
        let (locus, cause) = if s.has("condenser") {
            (
                "condenser",
                format!(
                    "the head pressure rose with the condenser approach{d}: fouling or scale reaching the high side"
                ),
            )
        } else if tower_drifts {
            (
                "tower",
                format!(
                    "the head pressure rose with the tower approach{d}: lost heat rejection reaching the high side"
                ),
            )
        } else {
            (
                "high_side",
                format!("the head pressure rose with the water side steady{d}: non-condensables or a high-side fault"),
            )
        };
        s.drift(f.severity, locus, cause);
        if f.severity >= Severity::Warn && metric(f, "cw_supply_confound") == Some(1.0) {
            let sh = metric(f, "cw_supply_shift_f").unwrap_or(f64::NAN);
            s.caveats.push(if tower_drifts {
                format!("the head pressure and the tower approach rose together with the entering condenser water {sh:+.1} °F warmer: lost heat rejection reaching the high side, which the tower corroborates")
            } else {
                format!("the head pressure rose with the entering condenser water {sh:+.1} °F warmer while the tower approach held: some or all of it is likely weather or load, not a fault; confirm before blaming fouling or non-condensables")
            });
        }
    }
    if s.has("condenser") && s.has("tower") && s.drifting.iter().any(|r| r.cause.starts_with("the head pressure")) {
        s.caveats.push("the condenser approach, the tower approach and the head pressure are all drifting: a plant-wide cause (scaling, water chemistry) is likelier than one bad heat exchanger".into());
    }
    s.sort();
    s
}

/// The evaporator side: the approach's evaporator leg, the superheat and the suction pressure.
fn evaporator_side(findings: &[(&str, &Finding)]) -> SideRead {
    let mut s = SideRead::default();
    let mut widening = false;
    if let Some(f) = judged(findings, APPROACH, &mut s.caveats) {
        if let Some(sev) = leg_severity(f, "evap") {
            s.judged(APPROACH, sev, &f.summary);
            let d = signed(metric(f, "evap_drift_f"), "°F");
            s.drift(sev, "evaporator", format!("evaporator tube fouling or scale: its approach widened{d}"));
            widening = sev >= Severity::Warn;
        }
    }
    // each feed read's direction when it drifts: true = overfed, false = starved
    let mut superheat_feed = None;
    if let Some(f) = judged(findings, SUPERHEAT, &mut s.caveats) {
        s.judged(SUPERHEAT, f.severity, &f.summary);
        let drift = metric(f, "superheat_drift_f");
        let overfed = drift.unwrap_or(0.0) < 0.0;
        let cause = if overfed {
            "the evaporator is overfed (liquid floodback risk): the superheat fell"
        } else {
            "the evaporator is starved (an undercharge or a restricted feed): the superheat rose"
        };
        s.drift(f.severity, "feed", format!("{cause}{}", signed(drift, "°F")));
        if f.severity >= Severity::Warn {
            superheat_feed = Some(overfed);
        }
    }
    if let Some(f) = judged(findings, SUCTION, &mut s.caveats) {
        s.judged(SUCTION, f.severity, &f.summary);
        let drift = metric(f, "suction_pressure_drift_psi");
        let overfed = drift.unwrap_or(0.0) >= 0.0;
        let d = signed(drift, "psi");
        let (locus, cause) = if overfed {
            ("feed", format!("the evaporator is overfed or flooding: the suction pressure rose{d}"))
        } else if superheat_feed == Some(false) {
            ("feed", format!("the evaporator is starved: the suction pressure fell{d}"))
        } else {
            (
                "evaporator",
                format!("the evaporator moves heat less well or runs short of charge: the suction pressure fell{d}"),
            )
        };
        s.drift(f.severity, locus, cause);
        if f.severity >= Severity::Warn {
            match superheat_feed {
                Some(sh) if sh == overfed => s.caveats.push(format!(
                    "the superheat and the suction pressure agree the evaporator is {}: a specific feed fault (still screening-grade; confirm on a walkdown)",
                    if overfed { "overfed" } else { "starved" }
                )),
                Some(_) => s.caveats.push("the superheat and the suction pressure disagree on the feed (one reads overfed, the other starved): the evaporator's feed is ambiguous; check the sensors and the expansion valve first".into()),
                None if metric(f, "chw_supply_confound") == Some(1.0) => s.caveats.push(format!(
                    "the suction pressure moved with the chilled-water supply {:+.1} °F off the baseline's and the superheat steady: likely a chilled-water reset, not an evaporator fault; check the setpoint history before acting",
                    metric(f, "chw_supply_shift_f").unwrap_or(f64::NAN)
                )),
                None if widening && !overfed => s.caveats.push("the evaporator approach widened and the suction pressure fell together with the superheat steady: the evaporator's heat transfer (fouling), not its feed".into()),
                None => {}
            }
        }
    }
    s.sort();
    s
}

/// The loci of the drifting reads, worst first, each once.
fn loci(reads: &[Read]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in reads {
        if !v.iter().any(|l| l == r.locus) {
            v.push(r.locus.to_string());
        }
    }
    v
}

/// A side's verdict as a diagnosis.
fn side_diagnosis(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)], mut s: SideRead) -> Diagnosis {
    let loci = loci(&s.drifting);
    let locus = match loci.len() {
        0 => "steady".to_string(),
        1 => loci[0].clone(),
        _ => "several".to_string(),
    };
    if s.drifting.len() >= 2 {
        s.caveats.push(format!(
            "{} {} signals drift together: a stronger, more specific read, but still screening-grade; confirm on a walkdown",
            s.drifting.len(),
            family.name
        ));
    }
    s.caveats.extend(missing_caveats(family, findings));
    let summary = if s.drifting.is_empty() {
        format!("{equip}: no {} drift on {} check(s)", family.name, s.signals.len())
    } else {
        let causes: Vec<&str> = s.drifting.iter().map(|r| r.cause.as_str()).collect();
        format!("{equip}: {} drift ({}): {}", family.name, locus.replace('_', " "), causes.join("; "))
    };
    Diagnosis {
        family: family.name.into(),
        equip: equip.into(),
        severity: s.severity.unwrap_or(Severity::Info),
        locus,
        loci,
        summary,
        causes: s.drifting.iter().map(|r| r.cause.clone()).collect(),
        signals: s.signals,
        caveats: dedup(s.caveats),
    }
}

/// A caveat for each of the family's detectors that gave no finding (not built, or skipped).
fn missing_caveats(family: &DriftFamily, findings: &[(&str, &Finding)]) -> Vec<String> {
    family
        .detectors
        .iter()
        .filter(|(d, _)| find(findings, d).is_none())
        .map(|(d, _)| format!("{d} gave no finding, so its part of the machine is unjudged"))
        .collect()
}

fn dedup(v: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in v {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The `condenser` family's roll-up: which part of the heat-rejection chain drifts.
pub fn condenser(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    side_diagnosis(family, equip, findings, condenser_side(findings))
}

/// The `evaporator` family's roll-up: the evaporator's heat transfer or its refrigerant feed.
pub fn evaporator(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    side_diagnosis(family, equip, findings, evaporator_side(findings))
}

/// The `chiller` family's roll-up: one side, both (a circuit-wide cause) or the charge.
pub fn chiller(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let cond = condenser_side(findings);
    let evap = evaporator_side(findings);
    let mut caveats: Vec<String> = cond.caveats.iter().chain(&evap.caveats).cloned().collect();
    let mut signals: BTreeMap<String, (Severity, String)> = BTreeMap::new();
    // the approach is listed at the finding's own severity (its worse leg)
    for (d, f) in findings.iter().filter(|(_, f)| f.judged > 0) {
        signals.insert(d.to_string(), (f.severity, f.summary.clone()));
    }
    let mut charge: Option<Read> = None;
    let mut charge_judged = None;
    if let Some(f) = judged(findings, SUBCOOLING, &mut caveats) {
        charge_judged = Some(f.severity);
        if f.severity >= Severity::Warn {
            let drift = metric(f, "subcooling_drift_f");
            let cause = if drift.unwrap_or(0.0) < 0.0 {
                "an undercharge or a leak: the subcooling fell"
            } else {
                "an overcharge or non-condensables: the subcooling rose"
            };
            charge = Some(Read {
                severity: f.severity,
                locus: "refrigerant_charge",
                cause: format!("{cause}{}", signed(drift, "°F")),
            });
        }
    }
    let (cw, ew) = (cond.worst(), evap.worst());
    let machine_wide = cw.is_some() && ew.is_some();
    let mut sides: Vec<(Severity, &'static str, Vec<String>)> = Vec::new();
    if let Some(s) = cw {
        sides.push((s, "condenser", cond.drifting.iter().map(|r| r.cause.clone()).collect()));
    }
    if let Some(s) = ew {
        sides.push((s, "evaporator", evap.drifting.iter().map(|r| r.cause.clone()).collect()));
    }
    if let Some(c) = &charge {
        sides.push((c.severity, "refrigerant_charge", vec![c.cause.clone()]));
    }
    sides.sort_by_key(|s| std::cmp::Reverse(s.0));
    let locus = if sides.is_empty() {
        "steady"
    } else if machine_wide {
        "whole_machine"
    } else if cw.is_some() {
        "condenser"
    } else if ew.is_some() {
        "evaporator"
    } else {
        "refrigerant_charge"
    };
    let charge_words = charge.as_ref().map(|c| c.cause.split(':').next().unwrap_or("").to_string());
    if machine_wide {
        let mut note = "the condenser and the evaporator sides drift together: a circuit-wide cause (refrigerant charge, non-condensables, the compressor or the metering device) is likelier than one fouled heat exchanger".to_string();
        if let Some(w) = &charge_words {
            note.push_str(&format!("; the subcooling drifts too ({w}), which points at the charge"));
        }
        note.push_str("; put gauges on the whole machine before working on one exchanger");
        caveats.push(note);
    } else if let (Some(w), true) = (&charge_words, cw.is_some() || ew.is_some()) {
        caveats.push(format!(
            "the subcooling drifts ({w}) beside the {} side: read the charge with that side before acting",
            if cw.is_some() { "condenser" } else { "evaporator" }
        ));
    } else if let Some(w) = &charge_words {
        caveats.push(format!("the subcooling drifts ({w}) with both heat exchangers steady: a charge signal that barely moves an approach; confirm it on a gauge"));
    }
    caveats.extend(missing_caveats(family, findings));
    let severity = [cond.severity, evap.severity, charge_judged].into_iter().flatten().max().unwrap_or(Severity::Info);
    let causes: Vec<String> = sides
        .iter()
        .flat_map(|(_, side, cs)| cs.iter().map(move |c| format!("{}: {c}", side.replace('_', " "))))
        .collect();
    let summary = if sides.is_empty() {
        format!("{equip}: no chiller drift on {} check(s)", signals.len())
    } else {
        let causes: Vec<String> = sides
            .iter()
            .flat_map(|(_, side, cs)| cs.iter().map(move |c| format!("{}: {c}", side.replace('_', " "))))
            .collect();
        let tag = if machine_wide { "; circuit-wide, gauge the whole machine" } else { "" };
        format!("{equip}: chiller drift ({}): {}{tag}", locus.replace('_', " "), causes.join("; "))
    };
    Diagnosis {
        family: family.name.into(),
        equip: equip.into(),
        severity,
        locus: locus.into(),
        loci: sides.iter().map(|(_, s, _)| s.to_string()).collect(),
        summary,
        causes,
        signals,
        caveats: dedup(caveats),
    }
}

#[cfg(test)]
mod tests;
