//! `coil_leak_drift` (family `ahu`): a coil valve that passes water while commanded shut, seen
//! against the unit's own past rather than a fixed margin. On fan-on samples with every trended
//! coil valve shut, the air rise across the coil (its own leaving-air sensor, else the supply
//! air, minus the mixed air) is fitted against the mixed air on a known-good window: the fan
//! heat, sensor placement and duct gains are all part of that baseline, so none of them has to
//! be known. In the current window a passing cooling valve pulls the rise down and a passing
//! heating valve pushes it up at the same mixed air. Each coil whose valve is trended is a
//! condition of one finding, judged one way; only current samples within the mixed-air range
//! the baseline saw are judged (a flat level: within its band). A shifted supply-air or
//! mixed-air sensor moves the rise exactly as a leak does, and a valve stuck partly open passes
//! water the same way; the finding says so.

use std::collections::BTreeMap;

use super::loadfit::{self, LoadFit, Side};
use super::{
    col, cusum_params, flagged, grade, not_judged, score_caveats, score_metrics, sigma_params, Baseline, Coil,
    DetectorSpec, FitError, Floors, Kind, Part, Wording, COILS,
};
use crate::engine::{
    as_percent, assumed_occupied, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Severity,
};

const MAT: &str = "mixed_air_temp";
const SAT: &str = "supply_air_temp";
/// Plausible temperatures (°F): the mixed air entering, the air leaving, and the rise between.
const MIXED_RANGE: (f64, f64) = (30.0, 120.0);
const LEAVING_RANGE: (f64, f64) = (30.0, 140.0);
const RISE_RANGE: (f64, f64) = (-60.0, 60.0);

impl Coil {
    fn other_valve(self) -> &'static str {
        match self {
            Coil::Cooling => "heat_valve",
            Coil::Heating => "cool_valve",
        }
    }
    fn leaving(self) -> &'static str {
        match self {
            Coil::Cooling => "cool_coil_leaving_temp",
            Coil::Heating => "heat_coil_leaving_temp",
        }
    }
    /// A leak moves the rise down (cooling) or up (heating).
    fn side(self) -> Side {
        match self {
            Coil::Cooling => Side::Down,
            Coil::Heating => Side::Up,
        }
    }
    fn wording(self) -> Wording {
        match self {
            Coil::Cooling => Wording { label: "the cooling-coil valve-shut air rise", unit: "°F", decimals: 1, matched: "matched mixed air", cause_up: "", cause_down: "uncommanded cooling: the cooling valve passes water while commanded shut (a leak, a valve stuck partly open, or a reversed signal)" },
            Coil::Heating => Wording { label: "the heating-coil valve-shut air rise", unit: "°F", decimals: 1, matched: "matched mixed air", cause_up: "uncommanded heating: the heating valve passes water while commanded shut (a leak, a valve stuck partly open, or a reversed signal)", cause_down: "" },
        }
    }
}

/// The detector's declaration.
pub(super) fn spec() -> DetectorSpec {
    let [ws, fs] = sigma_params("σ (baseline residual standard deviations)", 4.0);
    let mut params = vec![
        ParamSpec::number("warn_f", 0.5, "°F", (0.25, 3.0),
            "above the repeatability of two duct temperature sensors each read against its own past (a fixed calibration offset cancels out of a drift)",
            "Fit a baseline on one known-good window, judge a second known-good window against it, and set this above the drift that shows; a warning needs both this and warn_sigma, in the leak's direction."),
        ParamSpec::number("fault_f", 1.5, "°F", (0.5, 6.0),
            "a screening level for a leak that clearly changes the air",
            "Keep it well above warn_f."),
        ws,
        fs,
        ParamSpec::number("valve_closed_thr", 5.0, "% of valve stroke", (0.0, 15.0),
            "a command this low is a shut valve (the deadband leaking_valve uses)",
            "Set it just above what the valve commands read when the controls hold them shut, such as their 95th percentile on unoccupied hours."),
        ParamSpec::number("fan_on_min", 0.5, "fraction (mean fan status over a sample)", (0.1, 1.0),
            "a resampled interval counts as fan-on when the fan ran for at least half of it",
            "Raise it toward 1 on a unit whose fan cycles within the interval, so only intervals with air moving throughout are judged."),
        ParamSpec::number("fan_speed_thr", 5.0, "% of full fan speed", (0.0, 30.0),
            "with no fan status, any speed above a near-zero command means air is moving",
            "Set it just above the speed the drive reports when stopped. Used only when no fan status is trended."),
        ParamSpec::flag("occupied_only", false,
            "a leak shows whenever the fan runs, and the baseline already holds the unit's own unoccupied behaviour",
            "Turn it on when unoccupied fan-on hours (night cycles, warm-up) are too few or too erratic to fit; it reads the trended occupancy, else weekdays 07:00-18:00."),
        ParamSpec::flag("use_coil_leaving", true,
            "a coil's own leaving-air sensor isolates the coil from the fan and the supply-air sensor",
            "Turn it off only to compare with the supply-air path; the baseline and the current window must read the same sensor or the coil is not judged."),
        ParamSpec::flag("judge_heating_on_supply_air", true,
            "on a single-duct unit the supply air has passed the heating coil",
            "Set it false when the supply air does not leave the heating coil (a dual-duct cold deck); the heating coil is then judged only on its own leaving-air sensor."),
        ParamSpec::number("min_mat_span_f", 10.0, "°F (mixed-air range of the baseline)", (5.0, 30.0),
            "a narrower mixed-air range does not show a slope, so the baseline becomes a flat level",
            "Leave it; a flat level judges only current samples inside its mixed-air band, widened to this span."),
    ];
    params.extend(super::cusum_param_specs());
    DetectorSpec {
        id: "coil_leak_drift",
        drift_family: "ahu",
        families: &["air_handler", "fan_coil"],
        inputs: Inputs {
            required: &[MAT, SAT],
            optional: &["cool_valve", "heat_valve", "cool_coil_leaving_temp", "heat_coil_leaving_temp", "supply_fan_status", "supply_fan_speed", "occupancy"],
            gating: &[],
            one_of: &[&["cool_valve", "heat_valve"]],
            needs_gating: false,
        },
        params,
        unit: "°F",
        side: Side::Both,
        description: "A coil valve passing water while commanded shut: the valve-shut air rise across each coil against the unit's own mixed-air-matched baseline, a fall for the cooling coil and a rise for the heating coil.",
        judged_basis: "fan-on samples with the coil valves shut",
        kind: Kind { fit, evaluate },
    }
}

/// The role a coil is judged on: its own leaving-air sensor when used and trended, else the
/// supply air (not for a heating coil the supply air does not leave).
fn basis(frame: &Frame, coil: Coil, spec: &DetectorSpec, params: &Params) -> Option<&'static str> {
    if params.flag(spec, "use_coil_leaving") != Some(false) && col(frame, coil.leaving()).is_some() {
        return Some(coil.leaving());
    }
    if coil == Coil::Heating && params.flag(spec, "judge_heating_on_supply_air") == Some(false) {
        return None;
    }
    Some(SAT)
}

/// A coil's window: the rise, the mixed air, which samples qualify, and the fan signal used.
type Prepared = (Vec<f64>, Vec<f64>, Vec<bool>, Option<&'static str>);

/// The rise (leaving minus mixed air), the mixed air, and which samples qualify: fan on, every
/// trended coil valve shut, occupied when asked, both temperatures plausible. Also which fan
/// signal gated them.
fn prepare(frame: &Frame, coil: Coil, leaving: &str, spec: &DetectorSpec, params: &Params) -> Option<Prepared> {
    let (mat, leave, own) = (col(frame, MAT)?, col(frame, leaving)?, col(frame, coil.valve())?);
    let shut = params.number(spec, "valve_closed_thr");
    let other = col(frame, coil.other_valve());
    let mut keep: Vec<bool> = own.iter().map(|&v| v <= shut).collect();
    if let Some(o) = other {
        keep.iter_mut().zip(o).for_each(|(k, &v)| *k &= v <= shut);
    }
    let fan = if let Some(s) = col(frame, "supply_fan_status") {
        let min = params.number(spec, "fan_on_min");
        keep.iter_mut().zip(s).for_each(|(k, &v)| *k &= v >= min);
        Some("fan status")
    } else if let Some(s) = col(frame, "supply_fan_speed") {
        let thr = params.number(spec, "fan_speed_thr");
        keep.iter_mut().zip(as_percent(s)).for_each(|(k, v)| *k &= v > thr);
        Some("fan speed")
    } else {
        None
    };
    if params.flag(spec, "occupied_only") == Some(true) {
        match col(frame, "occupancy") {
            Some(o) => keep.iter_mut().zip(o).for_each(|(k, &v)| *k &= v > 0.5),
            None => keep.iter_mut().zip(&frame.ts).for_each(|(k, &t)| *k &= assumed_occupied(t)),
        }
    }
    let within = |v: f64, r: (f64, f64)| v >= r.0 && v <= r.1;
    keep.iter_mut()
        .zip(mat.iter().zip(leave))
        .for_each(|(k, (&m, &l))| *k &= within(m, MIXED_RANGE) && within(l, LEAVING_RANGE));
    let rise = leave.iter().zip(mat).map(|(l, m)| l - m).collect();
    Some((rise, mat.to_vec(), keep, fan))
}

fn missing_inputs(frame: &Frame) -> Vec<String> {
    let mut missing: Vec<String> =
        [MAT, SAT].iter().filter(|r| col(frame, r).is_none()).map(|r| r.to_string()).collect();
    if COILS.iter().all(|c| col(frame, c.valve()).is_none()) {
        missing.push("cool_valve or heat_valve".into());
    }
    missing
}

/// Fit each coil whose valve the window trends.
pub(super) fn fit(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let missing = missing_inputs(frame);
    if !missing.is_empty() {
        return Err(FitError::Missing(missing));
    }
    let span = params.number(spec, "min_mat_span_f");
    let mut parts = Vec::new();
    for coil in COILS.into_iter().filter(|c| col(frame, c.valve()).is_some()) {
        let mut part = Part::named(coil.name());
        part.min_load = MIXED_RANGE.0;
        part.min_span = span;
        part.gate_source = "fixed".into();
        part.signal_range = Some(RISE_RANGE);
        let Some(b) = basis(frame, coil, spec, params) else {
            part.declined = Some(
                "no air stream that leaves the heating coil is trended (judge_heating_on_supply_air is off)".into(),
            );
            parts.push(part);
            continue;
        };
        part.basis = Some(b.into());
        let Some((rise, mat, keep, _)) = prepare(frame, coil, b, spec, params) else {
            part.declined = Some(format!("{b} has no samples"));
            parts.push(part);
            continue;
        };
        let idx = loadfit::usable(&mat, &rise, &keep, MIXED_RANGE.0, RISE_RANGE);
        match LoadFit::fit(&frame.ts, &mat, &rise, &idx, span, true) {
            Ok(f) => part.fit = Some(f),
            Err(_) if idx.len() < loadfit::MIN_FIT_SAMPLES => {
                part.declined = Some(format!(
                    "only {} fan-on sample(s) with the valves shut (need {})",
                    idx.len(),
                    loadfit::MIN_FIT_SAMPLES
                ))
            }
            Err(e) => part.declined = Some(e),
        }
        parts.push(part);
    }
    Ok(parts)
}

/// One coil's verdict, or why it was not judged.
struct CoilVerdict {
    coil: Coil,
    judged: Result<Judged, String>,
}

struct Judged {
    severity: Severity,
    drift: f64,
    drift_sigma: Option<f64>,
    idx: Vec<u32>,
    flagged: Vec<u32>,
}

/// Judge each coil whose valve the current window trends.
pub(super) fn evaluate(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let missing = missing_inputs(frame);
    if !missing.is_empty() {
        return Outcome::Skipped { missing };
    }
    let floors = Floors {
        warn: params.number(spec, "warn_f"),
        fault: params.number(spec, "fault_f"),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    };
    let cp = cusum_params(spec, params);
    let (mut metrics, mut caveats, mut verdicts) = (BTreeMap::new(), Vec::new(), Vec::new());
    let mut fan_gate = Some("fan status");
    for coil in COILS.into_iter().filter(|c| col(frame, c.valve()).is_some()) {
        let judged = (|| -> Result<Judged, String> {
            let part = baseline
                .parts
                .iter()
                .find(|p| p.name == coil.name())
                .ok_or("the baseline window had no valve command for it")?;
            let fit = part
                .fit
                .as_ref()
                .ok_or_else(|| format!("no baseline: {}", part.declined.as_deref().unwrap_or("it was not fitted")))?;
            let b = basis(frame, coil, spec, params)
                .ok_or("no air stream that leaves the heating coil is trended (judge_heating_on_supply_air is off)")?;
            if part.basis.as_deref() != Some(b) {
                return Err(format!("the baseline read {} and the current window reads {b}; a rise on one sensor cannot be judged against a baseline on another", part.basis.as_deref().unwrap_or("nothing")));
            }
            let (rise, mat, keep, fan) = prepare(frame, coil, b, spec, params).ok_or("its sensors have no samples")?;
            fan_gate = fan;
            let usable = loadfit::usable(&mat, &rise, &keep, MIXED_RANGE.0, RISE_RANGE);
            // only the mixed air the baseline saw: its line says nothing outside that range
            let inside: Vec<u32> = usable
                .iter()
                .copied()
                .filter(|&i| {
                    if fit.model == loadfit::Model::Level {
                        fit.in_scope(mat[i as usize])
                    } else {
                        fit.covers(mat[i as usize])
                    }
                })
                .collect();
            let outside = usable.len() - inside.len();
            let Some(score) = loadfit::score(fit, &frame.ts, &mat, &rise, &inside) else {
                let tail = if outside > 0 {
                    format!(" inside the baseline's mixed-air range ({outside} ran outside it)")
                } else {
                    String::new()
                };
                return Err(format!(
                    "only {} fan-on sample(s) with the valves shut{tail} (need {})",
                    inside.len(),
                    loadfit::MIN_SCORE_SAMPLES
                ));
            };
            let side = coil.side();
            let severity = grade(side, score.drift, score.drift_sigma, &floors);
            let alarm = loadfit::cusum(fit, &frame.ts, &score, side, &cp);
            let prefix = format!("coil_leak_{}", coil.name());
            score_metrics(&mut metrics, &prefix, "f", fit, &score, alarm.as_ref());
            metrics.insert(format!("{prefix}_n_out_of_scope"), outside as f64);
            metrics.insert(format!("{prefix}_n_valve_shut"), usable.len() as f64);
            metrics.insert(format!("{prefix}_grade"), super::ahu::grade_rank(severity));
            let mut r: Vec<f64> = score.idx.iter().map(|&i| rise[i as usize]).collect();
            metrics.insert(format!("{prefix}_rise_median_f"), loadfit::round4(loadfit::median_in_place(&mut r)));
            let mut c = Vec::new();
            score_caveats(&mut c, fit, &score, alarm.as_ref(), "mixed air");
            caveats.extend(c.into_iter().map(|s| format!("{} coil: {s}", coil.name())));
            if outside > 0 {
                caveats.push(format!("{} coil: {outside} valve-shut sample(s) ({:.0}%) ran at a mixed air outside the baseline's range and were not judged; a baseline spanning more seasons would cover them", coil.name(), 100.0 * outside as f64 / usable.len() as f64));
            }
            if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
                caveats.push(format!(
                    "{} coil: the sustained-shift check alarmed (an untuned check; it does not change the severity)",
                    coil.name()
                ));
            }
            if severity >= Severity::Warn {
                let on = if b == SAT { "supply-air" } else { "coil leaving-air" };
                caveats.push(format!("{} coil: a shifted {on} or mixed-air sensor moves this rise exactly as a leak does; check both against a reference thermometer before pulling the valve", coil.name()));
            }
            let flagged = flagged(&score, fit.sigma, side, floors.warn);
            Ok(Judged { severity, drift: score.drift, drift_sigma: score.drift_sigma, idx: score.idx, flagged })
        })();
        verdicts.push(CoilVerdict { coil, judged });
    }
    let reasons: Vec<String> = verdicts
        .iter()
        .filter_map(|v| v.judged.as_ref().err().map(|e| format!("{} coil: {e}", v.coil.name())))
        .collect();
    let Some(worst) = verdicts.iter().filter_map(|v| v.judged.as_ref().ok().map(|j| (v.coil, j))).max_by(|a, b| {
        a.1.severity.cmp(&b.1.severity).then(a.0.side().toward(a.1.drift).total_cmp(&b.0.side().toward(b.1.drift)))
    }) else {
        return Outcome::Findings(vec![not_judged(spec, &reasons.join("; "))]);
    };
    for r in &reasons {
        caveats.push(format!("not judged: {r}"));
    }
    if fan_gate.is_none() {
        caveats.push("no fan status or speed is trended: valve-shut samples with the fan off (no air across the coil) were judged too".into());
    }
    let w = frame.weights_hours();
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx);
    let (mut all_judged, mut all_flagged) = (Vec::new(), Vec::new());
    let mut conditions = Vec::new();
    for v in &verdicts {
        let (judged, flagged): (&[u32], &[u32]) = match &v.judged {
            Ok(j) => (&j.idx, &j.flagged),
            Err(_) => (&[], &[]),
        };
        all_judged.extend_from_slice(judged);
        all_flagged.extend_from_slice(flagged);
        conditions.push(Condition {
            name: format!("{}_leak", v.coil.name()),
            flagged: flagged.to_vec(),
            judged: judged.len(),
            judged_hours: hours(judged),
            flagged_hours: hours(flagged),
        });
    }
    all_judged.sort_unstable();
    all_judged.dedup();
    all_flagged.sort_unstable();
    all_flagged.dedup();
    let (coil, j) = worst;
    let mut summary = coil.wording().summary(
        coil.side(),
        j.severity,
        j.drift,
        j.drift_sigma,
        &floors,
        (j.idx.len(), spec.judged_basis),
    );
    for v in verdicts.iter().filter(|v| v.coil != coil) {
        if let Ok(o) = &v.judged {
            summary.push_str(&format!(
                "; the {} coil: {}",
                v.coil.name(),
                match o.severity {
                    Severity::Ok | Severity::Info => "ok",
                    Severity::Warn => "warn",
                    Severity::Fault => "fault",
                }
            ));
        }
    }
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, j.severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(all_flagged)
        .with_judged(all_judged.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests;
