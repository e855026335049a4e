//! The DX and heat-pump refrigerant-side detectors (family `dx`): a unit compared with its own
//! fault-free period at matched conditions, on its cooling samples ([`crate::dx::cooling`]:
//! compressor running, reversing valve in cooling, fan on, supply air below return air, as
//! trended). An air-cooled unit has no load to match on; what moves its refrigerant readings is
//! the weather at its condenser and the air entering its coil, so its baseline is the reading
//! against the outdoor air with the return air as a second regressor (when it moved 2 °F or more;
//! an outdoor range under 5 °F is a flat level). A water-cooled unit (chilled-water flow and
//! temperatures trended) is matched on its tons with the entering condenser water, as a chiller.
//! An air-cooled unit with neither a compressor status nor a return and supply air is not judged:
//! its off cycles would be judged too.
//!
//! - `dx_refrigerant_charge_drift`: the liquid subcooling (or, `metric` superheat, a fixed
//!   orifice's suction superheat), either way: a fall is refrigerant missing from the condenser
//!   (a low charge), a rise liquid backed up in it. A low-charge reading is cross-checked with the
//!   superheat's own drift (`superheat_corroborates`). The rule `dx_refrigerant_charge` judges
//!   the same reading against the nameplate target instead.
//! - `dx_indoor_airflow_drift`: the coil's temperature split (return minus supply air) against the
//!   return air and its dew point (else the outdoor air), either way: a wider split is less air, a
//!   narrower one more air, or lost capacity: when the subcooling fell 3 °F or more as well, the
//!   narrowing is read as the charge's (info, `capacity_low` 1), not the air's.
//! - `discharge_superheat_drift`: the compressor's discharge superheat, either way: a rise is a
//!   compressor fed too little or too-hot gas (a low charge, a restriction, a starved
//!   evaporator), a fall liquid reaching it (an overcharge, an overfeeding valve).
//!
//! A drift must clear both its °F floor and its sigma floor. A baseline needs at least 30
//! samples and a score 10, whatever `min_baseline_samples` and `min_samples` say below them (the
//! shared fit's floors). Unlike the reference, every one of them runs the sustained-shift check. The floors are screening levels characterized by the
//! reference on laboratory heat pumps, not on field units.

use std::collections::BTreeMap;

use super::families::{by_locus, Diagnosis, DriftFamily};
use super::loadfit::{self, LoadFit, Score, Side};
use super::{
    col, cusum_param_specs, cusum_params, fitted, flagged, grade, not_judged, score_caveats, score_metrics,
    size_relative_gates, why_unscored, why_unusable, Baseline, DetectorSpec, FitError, Floors, Kind, Part, Wording,
};
use crate::dx::{self, CHARGE_LOW_F, CORROBORATE_SH_F, SPLIT_BOUNDS};
use crate::engine::{Finding, Frame, Inputs, Needs, Outcome, Params, Severity};

/// Which of the three DX detectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Charge,
    Airflow,
    DischargeSuperheat,
}

/// An air-cooled unit's outdoor air is a condition, not a load: no sample is too lightly loaded.
const NO_LOAD_GATE: f64 = -200.0;
/// An outdoor-air range (°F) under this is a flat level; a covariate must spread this much.
const MIN_OAT_SPAN_F: f64 = 5.0;
const COVARIATE_MIN_SPREAD_F: f64 = 2.0;
/// Minutes after a compressor start during which the unit is still pulling down (the supply air,
/// the split and the refrigerant readings settle over a few minutes): not steady cooling.
const SETTLE_MINUTES: i64 = 5;
/// A water-cooled unit's full-size tons gates.
const TON_GATES: (f64, f64) = (5.0, 10.0);
const DSH: &str = "discharge_superheat_temp";
const DEW: &str = "return_air_dewpoint_temp";

/// A DX detector's declaration.
fn spec(w: Which) -> DetectorSpec {
    let (id, families, inputs, floors) = match w {
        Which::Charge => (
            "dx_refrigerant_charge_drift",
            &["air_handler", "dx", "heat_pump"][..],
            Inputs {
                required: &[],
                optional: &[
                    "subcooling_temp",
                    "superheat_temp",
                    "oat",
                    "return_air_temp",
                    "supply_air_temp",
                    "compressor_status",
                    "reversing_valve_cmd",
                    "chw_flow",
                    "chw_supply_temp",
                    "chw_return_temp",
                    "cw_supply_temp",
                ],
                gating: &[],
                one_of: &[&["subcooling_temp", "superheat_temp"]],
                needs_gating: false,
            },
            dx::baseline_params("charge", (3.0, (1.5, 6.0)), (5.0, (3.0, 10.0)), (1.5, (1.0, 4.0)), (3.0, (2.0, 6.0))),
        ),
        Which::Airflow => (
            "dx_indoor_airflow_drift",
            &["dx", "heat_pump"][..],
            Inputs {
                required: &["return_air_temp", "supply_air_temp"],
                optional: &[
                    "return_air_dewpoint_temp",
                    "return_air_humidity",
                    "oat",
                    "subcooling_temp",
                    "compressor_status",
                    "reversing_valve_cmd",
                    "supply_fan_status",
                ],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
            dx::baseline_params("split", (1.5, (1.0, 4.0)), (3.0, (2.0, 8.0)), (2.0, (1.0, 4.0)), (4.0, (2.0, 8.0))),
        ),
        Which::DischargeSuperheat => (
            "discharge_superheat_drift",
            &["air_handler", "dx", "heat_pump"][..],
            Inputs {
                required: &[DSH],
                optional: &[
                    "oat",
                    "return_air_temp",
                    "supply_air_temp",
                    "compressor_status",
                    "reversing_valve_cmd",
                    "chw_flow",
                    "chw_supply_temp",
                    "chw_return_temp",
                    "cw_supply_temp",
                ],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
            // discharge superheat scatters more than subcooling (tens of °F, moving with lift)
            dx::baseline_params(
                "superheat",
                (5.0, (2.0, 15.0)),
                (10.0, (4.0, 30.0)),
                (2.0, (1.0, 5.0)),
                (4.0, (2.0, 8.0)),
            ),
        ),
    };
    let mut params = Vec::new();
    if w == Which::Charge {
        params.push(dx::metric_param());
    }
    params.extend(floors);
    params.push(dx::min_samples_param());
    params.push(dx::min_baseline_samples_param());
    params.extend(cusum_param_specs());
    let (description, judged_basis) = match w {
        Which::Charge => ("A DX unit's or heat pump's liquid subcooling (a fixed orifice's superheat) against its own fault-free baseline at matched outdoor and return air, either way: a fall is a low charge, a rise an overcharge or a condenser-side problem.", "cooling-mode samples (compressor running, supply air below return air)"),
        Which::Airflow => ("A DX unit's or heat pump's coil temperature split against its own fault-free baseline at matched return air and dew point (else outdoor air), either way: a wider split is less indoor air, a narrower one more air or lost capacity.", "cooling-mode samples with a coil's split (compressor running, fan on, 0-45 °F)"),
        Which::DischargeSuperheat => ("A compressor's discharge superheat against its own fault-free baseline at matched outdoor and return air (a water-cooled unit: load and condenser water), either way: a rise is a starved compressor, a fall liquid reaching it.", "cooling-mode samples (compressor running, supply air below return air)"),
    };
    DetectorSpec {
        id,
        drift_family: "dx",
        families,
        inputs,
        params,
        unit: "°F",
        side: Side::Both,
        description,
        judged_basis,
        kind: Kind { fit: fit_spec, evaluate: evaluate_spec },
    }
}

/// The three detectors, for [`super::all`].
pub(super) fn specs() -> [DetectorSpec; 3] {
    [spec(Which::Charge), spec(Which::Airflow), spec(Which::DischargeSuperheat)]
}

/// The detector a spec names.
fn which(spec: &DetectorSpec) -> Which {
    match spec.id {
        "dx_indoor_airflow_drift" => Which::Airflow,
        "discharge_superheat_drift" => Which::DischargeSuperheat,
        _ => Which::Charge,
    }
}

/// Why a window cannot be read: it lacks inputs (a skip), or it cannot be judged (a finding).
enum Unread {
    Missing(Vec<String>),
    Declined(String),
}

/// The conditions a reading is matched on: the load column (the outdoor air, a water-cooled
/// unit's tons, the return air for the split) and its name, the second regressor offered, and the
/// cooling samples.
struct Conditions {
    load: Vec<f64>,
    load_name: &'static str,
    cov: Option<(Vec<f64>, &'static str)>,
    rows: Vec<bool>,
    water: bool,
}

/// The cooling samples ([`dx::cooling`]) less those taken within [`SETTLE_MINUTES`] of a sample
/// with the compressor off: on minute data a start's pull-down is otherwise judged as if it were
/// the unit's steady state, and its low split and unsettled refrigerant readings swamp the
/// baseline's scatter. Sampled coarser than the settling time, no start is seen and nothing is
/// left out; without a compressor status nothing is either.
fn steady_cooling(frame: &Frame) -> Vec<bool> {
    let mut rows = dx::cooling(frame);
    let Some(comp) = col(frame, "compressor_status") else { return rows };
    let settle = SETTLE_MINUTES * 60_000_000_000;
    let mut last_off: Option<i64> = None;
    for (i, row) in rows.iter_mut().enumerate() {
        if comp[i] <= 0.5 {
            last_off = Some(frame.ts[i]);
        } else if last_off.is_some_and(|t| frame.ts[i] - t <= settle) {
            *row = false;
        }
    }
    rows
}

/// The charge and discharge-superheat conditions: tons and condenser water for a water-cooled
/// unit, else the outdoor and return air.
fn unit_conditions(frame: &Frame) -> Result<Conditions, Unread> {
    let mut rows = steady_cooling(frame);
    if dx::is_water_cooled(frame) {
        let (f, r, s) = (col(frame, "chw_flow"), col(frame, "chw_return_temp"), col(frame, "chw_supply_temp"));
        let (Some(f), Some(r), Some(s)) = (f, r, s) else {
            return Err(Unread::Missing(vec!["chw_flow, chw_supply_temp and chw_return_temp".into()]));
        };
        let load = (0..frame.len()).map(|i| f[i] * (r[i] - s[i]) / 24.0).collect();
        let cov = col(frame, "cw_supply_temp").map(|c| (c.to_vec(), "cw_supply_temp"));
        return Ok(Conditions { load, load_name: "chw_tons", cov, rows, water: true });
    }
    if !dx::has_run_gate(frame) {
        return Err(Unread::Declined(dx::NO_RUN_GATE.into()));
    }
    let oat = col(frame, "oat").ok_or_else(|| Unread::Missing(vec!["oat".into()]))?;
    // only rows with a reading of the weather are conditions at all
    rows.iter_mut().zip(oat).for_each(|(k, o)| *k &= !o.is_nan());
    let cov = col(frame, "return_air_temp").map(|c| (c.to_vec(), "return_air_temp"));
    Ok(Conditions { load: oat.to_vec(), load_name: "oat", cov, rows, water: false })
}

/// The split's conditions: the return air, with the covariate named (the dew point or the
/// outdoor air), or the first of them the window has.
fn split_conditions(frame: &Frame, cov: Option<&str>) -> Result<Conditions, Unread> {
    let rat = col(frame, "return_air_temp").ok_or_else(|| Unread::Missing(vec!["return_air_temp".into()]))?;
    let dew = || dx::return_dew_point(frame).map(|d| (d, DEW));
    let oat = || col(frame, "oat").map(|o| (o.to_vec(), "oat"));
    let cov = match cov {
        Some(DEW) => Some(dew().ok_or_else(|| {
            Unread::Declined("the baseline is matched on the return air's dew point, which this window lacks (return_air_dewpoint_temp, or return_air_humidity)".into())
        })?),
        Some(_) => Some(oat().ok_or_else(|| Unread::Missing(vec!["oat".into()]))?),
        None => dew().or_else(oat),
    };
    Ok(Conditions { load: rat.to_vec(), load_name: "return_air_temp", cov, rows: steady_cooling(frame), water: false })
}

/// A reading of the window: the charging metric's, the split, the discharge superheat.
fn reading(w: Which, frame: &Frame, metric: &str) -> Option<(Vec<f64>, (f64, f64), &'static str)> {
    match w {
        Which::Charge => {
            let role = dx::metric_role(metric);
            col(frame, role).map(|c| (c.to_vec(), dx::bounds(role), role))
        }
        Which::Airflow => {
            let (r, s) = (col(frame, "return_air_temp")?, col(frame, "supply_air_temp")?);
            Some((dx::split(r, s), SPLIT_BOUNDS, "temp_split"))
        }
        Which::DischargeSuperheat => col(frame, DSH).map(|c| (c.to_vec(), dx::bounds(DSH), DSH)),
    }
}

/// Fit one reading `y` on its conditions.
fn fit_part(
    name: &str,
    frame: &Frame,
    y: &[f64],
    range: (f64, f64),
    c: &Conditions,
    min_samples: usize,
    basis: &'static str,
) -> Part {
    let mut part = Part::named(name);
    part.basis = Some(c.load_name.to_string());
    let (min_load, min_span, source) = if c.water {
        let g = size_relative_gates(&c.load, &c.rows, TON_GATES);
        (g.0, g.1, "size_relative")
    } else {
        (NO_LOAD_GATE, MIN_OAT_SPAN_F, "fixed")
    };
    (part.min_load, part.min_span, part.gate_source) = (min_load, min_span, source.into());
    part.signal_range = Some(range);
    let idx = loadfit::usable(&c.load, y, &c.rows, min_load, range);
    if idx.len() < min_samples.max(3) {
        part.declined = Some(if idx.is_empty() {
            why_unusable(&c.load, y, &c.rows, min_load, Some(range), (c.load_name, name), basis)
        } else {
            format!("only {} usable cooling rows in the fault-free period (need {})", idx.len(), min_samples.max(3))
        });
        return part;
    }
    let plain = || LoadFit::fit(&frame.ts, &c.load, y, &idx, min_span, true);
    let fitted = match &c.cov {
        None => plain(),
        Some((v, role)) => {
            let with: Vec<u32> = idx.iter().copied().filter(|&i| v[i as usize].is_finite()).collect();
            LoadFit::fit_with_covariate(&frame.ts, &c.load, y, (role, v), &with, min_span, true, COVARIATE_MIN_SPREAD_F)
                .or_else(|why| {
                    part.notes.push(format!("{role}'s effect on the {name} could not be identified over the baseline ({why}), so it is matched on {} alone", c.load_name));
                    plain()
                })
        }
    };
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    part
}

/// Fit the detector's reading on its conditions, with the readings that corroborate it.
fn fit_spec(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let w = which(spec);
    let missing = Needs::of(&spec.inputs).missing(frame);
    if !missing.is_empty() {
        return Err(FitError::Missing(missing));
    }
    let metric = if w == Which::Charge { params.choice(spec, "metric") } else { String::new() };
    let Some((y, range, name)) = reading(w, frame, &metric) else {
        return Err(FitError::Missing(vec![dx::metric_role(&metric).to_string()]));
    };
    let min_samples = params.number(spec, "min_baseline_samples").max(0.0) as usize;
    let basis = spec.judged_basis;
    let unread = |u: Unread| match u {
        Unread::Missing(m) => FitError::Missing(m),
        Unread::Declined(why) => FitError::Declined(why),
    };
    let mut parts = Vec::new();
    match w {
        Which::Charge | Which::DischargeSuperheat => {
            let c = unit_conditions(frame).map_err(unread)?;
            let label = if w == Which::Charge { metric.as_str() } else { "discharge_superheat" };
            parts.push(fit_part(label, frame, &y, range, &c, min_samples, basis));
            if w == Which::Charge && metric == "subcooling" {
                if let Some(sh) = col(frame, "superheat_temp") {
                    parts.push(fit_part("superheat", frame, sh, dx::bounds("superheat_temp"), &c, min_samples, basis));
                }
            }
        }
        Which::Airflow => {
            let c = split_conditions(frame, None).map_err(unread)?;
            let mut rows = c.rows.clone();
            rows.iter_mut().zip(&y).for_each(|(k, s)| *k &= *s > SPLIT_BOUNDS.0 && *s <= SPLIT_BOUNDS.1);
            let c = Conditions { rows, ..c };
            let by_dew = c.cov.as_ref().is_some_and(|k| k.1 == DEW);
            parts.push(fit_part(name, frame, &y, range, &c, min_samples, basis));
            // a window without the dew point is matched on the outdoor air instead
            if by_dew {
                if let Ok(o) = split_conditions(frame, Some("oat")) {
                    let o = Conditions { rows: c.rows.clone(), ..o };
                    parts.push(fit_part("temp_split_by_oat", frame, &y, range, &o, min_samples, basis));
                }
            }
            if let (Some(sc), Ok(u)) = (col(frame, "subcooling_temp"), unit_conditions(frame)) {
                parts.push(fit_part("subcooling", frame, sc, dx::bounds("subcooling_temp"), &u, min_samples, basis));
            }
        }
    }
    Ok(parts)
}

/// A reading scored against its part: the score and the fit, or why not.
fn score_part<'a>(
    spec: &DetectorSpec,
    part: &'a Part,
    fit: &'a LoadFit,
    frame: &Frame,
    y: &[f64],
    c: &Conditions,
    min_samples: usize,
) -> Result<(Score, bool), String> {
    if part.basis.as_deref() != Some(c.load_name) {
        return Err(format!(
            "the baseline is matched on {} and this window on {}; fit the baseline again",
            part.basis.as_deref().unwrap_or("nothing"),
            c.load_name
        ));
    }
    let cov = match (&fit.covariate, &c.cov) {
        (None, _) => None,
        (Some(k), Some((v, n))) if k.role == *n => Some(v.as_slice()),
        (Some(k), _) => return Err(format!("the baseline is matched on {} too, which this window lacks", k.role)),
    };
    let range = part.signal_range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let mut idx = loadfit::usable(&c.load, y, &c.rows, part.min_load, range);
    if let Some(v) = cov {
        idx.retain(|&i| v[i as usize].is_finite());
    }
    let adjusted = loadfit::adjusted(fit, y, cov);
    let scored = loadfit::score(fit, &frame.ts, &c.load, &adjusted, &idx).filter(|s| s.idx.len() >= min_samples);
    scored
        .map(|s| (cov.is_some_and(|v| loadfit::covariate_extrapolated(fit, v, &s)), s))
        .map(|(e, s)| (s, e))
        .ok_or_else(|| {
            why_unscored(fit, &c.load, &idx, min_samples, || {
                why_unusable(
                    &c.load,
                    y,
                    &c.rows,
                    part.min_load,
                    Some(range),
                    (c.load_name, &part.name),
                    spec.judged_basis,
                )
            })
        })
}

/// What a finding says the reading is matched on.
fn matched(load: &str, cov: Option<&str>) -> &'static str {
    match (load, cov) {
        ("chw_tons", Some(_)) => "matched load and condenser water",
        ("chw_tons", None) => "matched load",
        ("oat", Some(_)) => "matched outdoor and return air",
        ("oat", None) => "matched outdoor air",
        (_, Some(DEW)) => "matched return air and dew point",
        (_, Some(_)) => "matched return and outdoor air",
        _ => "matched return air",
    }
}

fn wording(w: Which, metric: &str, load: &str, cov: Option<&str>) -> Wording {
    let m = matched(load, cov);
    match (w, metric) {
        (Which::Charge, "superheat") => Wording { label: "suction superheat", unit: "°F", decimals: 1, matched: m, cause_up: "a fixed-orifice unit starved of refrigerant: a low charge? check the charge and the condenser coil", cause_down: "liquid floods the evaporator: an overcharge? check the charge and the condenser coil" },
        (Which::Charge, _) => Wording { label: "liquid subcooling", unit: "°F", decimals: 1, matched: m, cause_up: "liquid backs up in the condenser: an overcharge, or a condenser-side problem? check the charge and the condenser coil", cause_down: "refrigerant is missing from the condenser: a low charge or a leak, or a liquid-line restriction? check the charge and the condenser coil" },
        (Which::Airflow, _) => Wording { label: "temperature split", unit: "°F", decimals: 1, matched: m, cause_up: "less air crosses the coil: low indoor airflow? check the filter, the blower speed and the registers", cause_down: "more air crosses the coil, or it lost capacity: high indoor airflow? check the blower speed" },
        (Which::DischargeSuperheat, _) => Wording { label: "discharge superheat", unit: "°F", decimals: 1, matched: m, cause_up: "the compressor is fed too little or too-hot gas (a low charge, a restriction, a starved evaporator)", cause_down: "liquid is reaching the compressor (an overcharge, an overfeeding expansion valve, floodback)" },
    }
}

/// Judge a current window on the conditions its baseline was fitted on.
fn evaluate_spec(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let w = which(spec);
    let missing = Needs::of(&spec.inputs).missing(frame);
    if !missing.is_empty() {
        return Outcome::Skipped { missing };
    }
    let metric = if w == Which::Charge { params.choice(spec, "metric") } else { String::new() };
    let Some((y, _, _)) = reading(w, frame, &metric) else {
        return Outcome::Skipped { missing: vec![dx::metric_role(&metric).to_string()] };
    };
    let main = match w {
        Which::Charge => metric.as_str(),
        Which::Airflow => "temp_split",
        Which::DischargeSuperheat => "discharge_superheat",
    };
    let (mut part, mut fit) = match fitted(spec, baseline, main) {
        Ok(pf) => pf,
        Err(o) => return o,
    };
    let min_samples = params.number(spec, "min_samples").max(1.0) as usize;
    let not = |why: String| Outcome::Findings(vec![not_judged(spec, &why)]);
    // the conditions the baseline was fitted on, read from this window
    let conditions = |fit: &LoadFit| -> Result<Conditions, Unread> {
        match w {
            Which::Airflow => {
                let c = split_conditions(frame, fit.covariate.as_ref().map(|k| k.role.as_str()))?;
                let mut rows = c.rows;
                rows.iter_mut().zip(&y).for_each(|(k, s)| *k &= *s > SPLIT_BOUNDS.0 && *s <= SPLIT_BOUNDS.1);
                Ok(Conditions { rows, ..c })
            }
            _ => unit_conditions(frame),
        }
    };
    let mut c = conditions(fit);
    let mut caveats: Vec<String> = Vec::new();
    // the split's dew-point baseline cannot judge a window without one: its outdoor-air twin can
    if w == Which::Airflow && matches!(c, Err(Unread::Declined(_))) {
        if let Some(q) = baseline.parts.iter().find(|q| q.name == "temp_split_by_oat" && q.fit.is_some()) {
            (part, fit) = (q, q.fit.as_ref().unwrap_or(fit));
            c = conditions(fit);
        }
    }
    let c = match c {
        Ok(c) => c,
        Err(Unread::Missing(m)) => return Outcome::Skipped { missing: m },
        Err(Unread::Declined(why)) => return not(why),
    };
    let (score, cov_extrapolated) = match score_part(spec, part, fit, frame, &y, &c, min_samples) {
        Ok(s) => s,
        Err(why) => return not(why),
    };
    let floors = Floors {
        warn: params.number(spec, "warn_f"),
        fault: params.number(spec, "fault_f"),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    };
    let mut severity = grade(Side::Both, score.drift, score.drift_sigma, &floors);
    let alarm = loadfit::cusum(fit, &frame.ts, &score, Side::Both, &cusum_params(spec, params));
    let prefix = match w {
        Which::Charge => metric.as_str(),
        Which::Airflow => "temp_split",
        Which::DischargeSuperheat => "discharge_superheat",
    };
    let mut metrics = BTreeMap::new();
    score_metrics(&mut metrics, prefix, "f", fit, &score, alarm.as_ref());
    metrics.insert("water_cooled".into(), if c.water { 1.0 } else { 0.0 });
    metrics.insert("thresholds_provisional".into(), 1.0);
    caveats.extend(part.notes.iter().cloned());
    let cov_name = fit.covariate.as_ref().map(|k| k.role.as_str());
    let wd = wording(w, &metric, c.load_name, cov_name);
    let mut summary =
        wd.summary(Side::Both, severity, score.drift, score.drift_sigma, &floors, (score.idx.len(), spec.judged_basis));
    // a second reading scored on its own part: its drift, or None
    let other = |name: &str, role: &str| -> Option<f64> {
        let q = baseline.parts.iter().find(|q| q.name == name)?;
        let f = q.fit.as_ref()?;
        let v = col(frame, role)?;
        let u = unit_conditions(frame).ok()?;
        score_part(spec, q, f, frame, v, &u, min_samples).ok().map(|s| s.0.drift)
    };
    match w {
        Which::Charge => {
            let low = severity >= Severity::Warn && dx::low_charge(&metric, score.drift);
            metrics.insert("low_charge".into(), if low { 1.0 } else { 0.0 });
            if metric == "subcooling" {
                match other("superheat", "superheat_temp") {
                    Some(sh) => {
                        metrics.insert("superheat_drift_f".into(), sh);
                        if low {
                            metrics.insert(
                                "superheat_corroborates".into(),
                                if sh >= CORROBORATE_SH_F { 1.0 } else { 0.0 },
                            );
                        }
                    }
                    None => {
                        caveats.push("no superheat in both windows: a low-charge reading is not cross-checked".into())
                    }
                }
            }
        }
        Which::Airflow => {
            if cov_name == Some("oat") {
                caveats.push("no return-air dew point or humidity: the split is matched on the return and outdoor air only, so latent-load swings stay in the scatter".into());
            }
            let sc = other("subcooling", "subcooling_temp");
            match sc {
                Some(d) => {
                    metrics.insert("subcooling_drift_f".into(), d);
                }
                None => caveats.push(
                    "no subcooling in both windows: a narrowed split is not checked against a lost charge".into(),
                ),
            }
            let high = severity >= Severity::Warn && score.drift < 0.0;
            let capacity = high && sc.is_some_and(|d| d <= -CHARGE_LOW_F);
            if capacity {
                severity = Severity::Info;
                let d = sc.unwrap_or(f64::NAN);
                caveats.push(format!("the split narrowed while the subcooling fell {d:+.1} °F: read as lost capacity (the charge; see dx_refrigerant_charge_drift), not more air"));
                summary = format!(
                    "temperature split is {:.1} °F below its baseline at {}, with the subcooling {d:+.1} °F: lost capacity (a charge symptom), not high indoor airflow",
                    -score.drift,
                    wd.matched
                );
            }
            metrics
                .insert("airflow_low".into(), if severity >= Severity::Warn && score.drift > 0.0 { 1.0 } else { 0.0 });
            metrics.insert("airflow_high".into(), if high && !capacity { 1.0 } else { 0.0 });
            metrics.insert("capacity_low".into(), if capacity { 1.0 } else { 0.0 });
        }
        Which::DischargeSuperheat => {}
    }
    if fit.model == loadfit::Model::Level {
        caveats.push(format!("the {} barely moved over the baseline, so the baseline is a flat level valid for {:.4} to {:.4}; samples outside that band are not judged", c.load_name, fit.load_min - fit.load_band, fit.load_max + fit.load_band));
    }
    score_caveats(&mut caveats, fit, &score, alarm.as_ref(), c.load_name);
    if cov_extrapolated {
        caveats.push(format!("more than a tenth of the judged samples ran at a {} outside the baseline's range, so part of the drift is extrapolated", cov_name.unwrap_or("covariate")));
    }
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into());
    }
    caveats.push(super::matched::PROVISIONAL.into());
    let flagged = flagged(&score, fit.sigma, Side::Both, floors.warn);
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(score.idx.len())])
}

/// The dx family's roll-up: [`by_locus`], with the refrigerant circuit named when the charge and
/// the discharge superheat drift together (a low charge starves the compressor, so the two are
/// one fault read twice), and a narrowed split the airflow detector read as lost capacity noted
/// beside the charge's verdict.
pub(super) fn diagnose(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let mut d = by_locus(family, equip, findings);
    let mut loci = d.loci.clone();
    loci.sort();
    if loci == ["compressor", "refrigerant_charge"] {
        d.locus = "refrigerant_circuit".into();
    }
    for (id, f) in findings {
        if f.judged > 0 && f.metrics.get("capacity_low") == Some(&1.0) {
            d.caveats.push(format!("{id} reads a narrowed split as lost capacity, a charge symptom: {}", f.summary));
        }
    }
    d
}

#[cfg(test)]
mod tests;
