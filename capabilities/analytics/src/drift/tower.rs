//! The cooling-tower detectors (family `tower`; the approach one runs in the `chiller` and
//! `condenser` families too). A tower rejects the condenser's heat to the wet bulb, and it can
//! show a fouled fill, plugged nozzles or lost air two ways:
//!
//! - `cooling_tower_approach_drift`: the approach (leaving condenser water minus the wet bulb)
//!   at matched load, one way: fouling only widens it. This is the signal of a tower whose fans
//!   are fixed or already flat out.
//! - `cooling_tower_fan_effort_drift`: the fan speed at matched load and wet bulb, one way. A
//!   tower whose fans run under a leaving-water controller keeps its approach as it fouls and
//!   spends fan effort instead, so only this detector sees it.
//!
//! The load is read the strongest way the window allows and recorded in the baseline: the
//! chilled-water tons (`chw_flow` times the loop ΔT over 24) or, for a tower that is its own
//! equipment, the heat it rejects (`cw_flow` times its range over 24, tons), else its range
//! alone (°F), which is right only while the condenser flow is constant (a second condenser pump
//! halves the range for the same heat; a finding on the range says so). The approach detector
//! prefers the chilled-water tons, the fan-effort one the condenser side, as the reference's do.
//! A current window is judged on the load its baseline was fitted on; unlike the reference, a
//! window that can read that load is judged on it even when it could read a stronger one.
//!
//! The approach is judged once the plant has settled: a sample within half an hour of an unloaded
//! one (the plant's start) is left out.
//!
//! The wet bulb is measured (`wetbulb_temp`) or derived from `oat` and `outdoor_rh` at the site's
//! pressure. The fan-effort baseline takes the wet bulb as a second regressor when it moved at
//! least 2 °F over the baseline, else it is fitted on the load alone and says so.
//!
//! A leaving-water sensor that reads warm drives a controlled tower's fans just as fouling does.
//! When the water entering the chillers is trended too (`cond_entering_water_temp`, the same water
//! with the tower bypass shut), the fan-effort detector compares the two sensors' offset in both
//! windows: a shift of `sensor_shift_f` or more reads the rise as the sensor's (info, metric
//! `attribution_sensor` 1), not the fill's. Unlike the reference, the fan-effort detector needs
//! its rise to clear a sigma floor as well as its %-point floor, and both detectors run the
//! sustained-shift check. The floors are screening levels, not ones proven on these towers.

use std::collections::BTreeMap;

use super::loadfit::{self, LoadFit, Side};
use super::{
    col, cusum_param_specs, cusum_params, fitted, flagged, grade, not_judged, opt_number, score_caveats, score_metrics,
    sigma_params, size_relative_gates, unset, values, why_unscored, why_unusable, Baseline, DetectorSpec, FitError,
    Floors, Kind, Part, Wording,
};
use crate::engine::{as_percent, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, Params, Severity};
use crate::psychro;

/// Which of the two tower detectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    Approach,
    FanEffort,
}

/// How a window's load is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Load {
    ChwTons,
    HeatRejected,
    Range,
}

impl Load {
    const ALL: [Load; 3] = [Load::ChwTons, Load::HeatRejected, Load::Range];

    /// Its name in a baseline and a caveat.
    fn key(self) -> &'static str {
        match self {
            Load::ChwTons => "chw_tons",
            Load::HeatRejected => "cw_heat_rejection",
            Load::Range => "cw_range",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Load::ChwTons => "the chilled-water tons",
            Load::HeatRejected => "the heat rejected (tons)",
            Load::Range => "the tower's range (°F)",
        }
    }

    /// What a finding calls the load it is matched on.
    fn noun(self) -> &'static str {
        match self {
            Load::ChwTons => "load",
            Load::HeatRejected => "heat rejected",
            Load::Range => "range",
        }
    }

    fn of_key(key: &str) -> Option<Load> {
        Load::ALL.into_iter().find(|l| l.key() == key)
    }

    /// The load column, when the window has its roles.
    fn column(self, frame: &Frame) -> Option<Vec<f64>> {
        let diff = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a - b).collect::<Vec<f64>>();
        match self {
            Load::ChwTons => {
                let (f, r, s) =
                    (col(frame, "chw_flow")?, col(frame, "chw_return_temp")?, col(frame, "chw_supply_temp")?);
                Some(diff(r, s).iter().zip(f).map(|(dt, f)| f * dt / 24.0).collect())
            }
            Load::HeatRejected => {
                let (f, r, s) = (col(frame, "cw_flow")?, col(frame, "cw_return_temp")?, col(frame, "cw_supply_temp")?);
                Some(diff(r, s).iter().zip(f).map(|(dt, f)| f * dt / 24.0).collect())
            }
            Load::Range => Some(diff(col(frame, "cw_return_temp")?, col(frame, "cw_supply_temp")?)),
        }
    }
}

/// The load a detector reads from a window, strongest first: the approach prefers the
/// chilled-water tons, the fan effort the condenser side.
fn choose_load(s: Signal, frame: &Frame) -> Option<Load> {
    let order: [Load; 3] = match s {
        Signal::Approach => [Load::ChwTons, Load::HeatRejected, Load::Range],
        Signal::FanEffort => [Load::HeatRejected, Load::Range, Load::ChwTons],
    };
    order.into_iter().find(|l| l.column(frame).is_some())
}

const NO_LOAD: &str = "cw_return_temp, or chw_flow, chw_supply_temp and chw_return_temp";
/// Plausible approaches (°F): a tower cannot beat the wet bulb, so a small negative reading is
/// sensor noise; past the ceiling a sensor has failed.
const APPROACH_RANGE: (f64, f64) = (-2.0, 40.0);
/// A fan at or below this speed (%) is off or held at its minimum; the judged fan range.
const FAN_RUNNING_PCT: f64 = 5.0;
const FAN_RANGE: (f64, f64) = (FAN_RUNNING_PCT, 101.0);
const HIGH_FAN_PCT: f64 = 90.0;
/// A tower bypass at or under this (%) is shut, so the tower's leaving water is the chillers'
/// entering water.
const BYPASS_SHUT_PCT: f64 = 2.0;
/// The wet bulb's role, which names the covariate whether it was measured or derived.
const WETBULB: &str = "wetbulb_temp";
/// The wet bulb must spread this much (°F, 5-95 %) over the baseline to be a regressor.
const WETBULB_MIN_SPREAD_F: f64 = 2.0;
/// The fewest fan-running samples a fan-effort fit, a score or a sensor offset rests on.
const FAN_MIN_SAMPLES: usize = 30;
/// Full-size load gates (tons): under 5 a tower is barely loaded, under 10 of span no slope
/// shows; a smaller tower's gates scale down with its 95th-percentile load.
const TON_GATES: (f64, f64) = (5.0, 10.0);
/// A range-matched fan effort's fixed gates (°F).
const RANGE_GATES: (f64, f64) = (0.5, 2.0);

/// The detector's declaration.
/// A tower detector's declaration.
fn spec(s: Signal) -> DetectorSpec {
    match s {
        Signal::Approach => {
            let mut params = vec![
                ParamSpec::number("warn_f", 1.5, "°F", (0.5, 5.0),
                    "a little wider than a chiller's condenser approach floor: the tower's approach is a difference against the wet bulb, which is noisy, more so derived from outdoor air and humidity",
                    "Judge one known-good window against a baseline fitted on another and set it above the widening that shows; a warning needs both this and warn_sigma."),
                ParamSpec::number("fault_f", 3.0, "°F", (1.0, 10.0),
                    "a screening level for a tower that clearly rejects heat worse",
                    "About twice warn_f."),
            ];
            params.extend(sigma_params("σ", 4.0));
            params.extend(cusum_param_specs());
            params.push(unset("min_tons", "tons (°F when the load is the tower's range)", (0.0, 100.0),
                "a barely loaded tower says little about its fill: unset, 10 % of the baseline's 95th-percentile load up to 5 tons",
                "Leave it unset, or about a tenth of the tower's design heat rejection."));
            params.push(unset("min_tons_span", "tons (°F when the load is the tower's range)", (0.0, 200.0),
                "a narrower load range does not show a slope: unset, 20 % of the baseline's 95th-percentile load up to 10 tons",
                "Leave it unset; a load that barely moves is compared as a flat level instead."));
            params.extend(psychro::site_params());
            DetectorSpec {
                id: "cooling_tower_approach_drift",
                drift_family: "tower",
                families: &["cooling_tower", "chw_plant"],
                inputs: Inputs {
                    required: &["cw_supply_temp"],
                    optional: &["cw_return_temp", "cw_flow", "chw_flow", "chw_supply_temp", "chw_return_temp", "wetbulb_temp", "oat", "outdoor_rh"],
                    gating: &["wetbulb_temp", "oat+outdoor_rh"],
                    one_of: &[&["cw_return_temp", "chw_flow"]],
                    needs_gating: true,
                },
                params,
                unit: "°F",
                side: Side::Up,
                description: "Cooling-tower approach (leaving condenser water minus the wet bulb) against the tower's own load-matched baseline: a widening is fouled or scaled fill, plugged nozzles or lost air.",
                judged_basis: "samples at or above the load gate",
                kind: Kind { fit: fit_spec, evaluate: evaluate_spec },
            }
        }
        Signal::FanEffort => {
            let mut params = vec![
                ParamSpec::number("warn_pct", 5.0, "%-points of fan speed", (1.0, 30.0),
                    "the size of a fan-speed rise at the same heat and weather a technician would act on",
                    "Judge one known-good window against a baseline fitted on another and set it above the rise that shows; a warning needs both this and warn_sigma."),
                ParamSpec::number("fault_pct", 10.0, "%-points of fan speed", (2.0, 60.0),
                    "a tower spending a tenth more of its fan's range for the same heat",
                    "About twice warn_pct."),
            ];
            params.extend(sigma_params("σ", 4.0));
            params.push(ParamSpec::number("sensor_shift_f", 1.0, "°F", (0.3, 5.0),
                "a leaving-water sensor that moved this much against the chillers' condenser-entering sensor drives the fans by itself",
                "Set it a little above the two sensors' combined accuracy; it needs cond_entering_water_temp trended."));
            params.push(psychro::site_params()[0].clone());
            params.extend(cusum_param_specs());
            DetectorSpec {
                id: "cooling_tower_fan_effort_drift",
                drift_family: "tower",
                families: &["cooling_tower"],
                inputs: Inputs {
                    required: &["tower_fan_speed", "cw_supply_temp"],
                    optional: &["cw_return_temp", "cw_flow", "chw_flow", "chw_supply_temp", "chw_return_temp", "wetbulb_temp", "oat", "outdoor_rh", "cond_entering_water_temp", "cw_bypass_valve"],
                    gating: &["wetbulb_temp", "oat+outdoor_rh"],
                    one_of: &[&["cw_return_temp", "chw_flow"]],
                    needs_gating: false,
                },
                params,
                unit: "%-points",
                side: Side::Up,
                description: "Cooling-tower fan speed against the tower's own baseline at matched load and wet bulb: a controlled tower that fouls keeps its approach and works its fans harder.",
                judged_basis: "fan-running samples at or above the load gate",
                kind: Kind { fit: fit_spec, evaluate: evaluate_spec },
            }
        }
    }
}

/// Both detectors, for [`super::all`].
pub(super) fn specs() -> [DetectorSpec; 2] {
    [spec(Signal::Approach), spec(Signal::FanEffort)]
}

/// The detector a spec names.
fn signal(spec: &DetectorSpec) -> Signal {
    if spec.id == "cooling_tower_fan_effort_drift" {
        Signal::FanEffort
    } else {
        Signal::Approach
    }
}

/// The wet-bulb column (measured where it has a value, else derived) and whether any of it was
/// derived; `None` without a source.
fn wet_bulb(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Option<(Vec<f64>, bool)> {
    let psia = if spec.params.iter().any(|p| p.name == "pressure_psia") {
        params.number(spec, "pressure_psia")
    } else {
        f64::NAN
    };
    let p = psychro::site_pressure_kpa(psia, params.number(spec, "elevation_ft"));
    let (wb, derived) = psychro::wet_bulb_column(frame, p)?;
    wb.iter().any(|v| !v.is_nan()).then_some((wb, derived))
}

/// A window read for one detector.
struct Prepared {
    load: Load,
    x: Vec<f64>,
    /// The approach, or the fan speed (%).
    y: Vec<f64>,
    keep: Vec<bool>,
    wb: Option<Vec<f64>>,
    wb_derived: bool,
}

/// Read a window with `load` (the baseline's), or the detector's own choice; `Err` names what
/// is missing.
fn prepare(
    s: Signal,
    spec: &DetectorSpec,
    frame: &Frame,
    params: &Params,
    load: Option<Load>,
) -> Result<Prepared, Vec<String>> {
    let missing = Needs::of(&spec.inputs).missing(frame);
    if !missing.is_empty() {
        return Err(missing);
    }
    let load = match load {
        Some(l) => l,
        None => choose_load(s, frame).ok_or_else(|| vec![NO_LOAD.to_string()])?,
    };
    let Some(x) = load.column(frame) else {
        return Err(vec![match load {
            Load::ChwTons => "chw_flow, chw_supply_temp and chw_return_temp".to_string(),
            Load::HeatRejected => "cw_flow and cw_return_temp".to_string(),
            Load::Range => "cw_return_temp".to_string(),
        }]);
    };
    let wb = wet_bulb(spec, frame, params);
    let wb_derived = wb.as_ref().is_some_and(|w| w.1);
    let wb = wb.map(|w| w.0);
    let cws = col(frame, "cw_supply_temp").unwrap_or(&[]);
    match s {
        Signal::Approach => {
            let wb = wb.ok_or_else(|| vec!["wetbulb_temp, or oat and outdoor_rh".to_string()])?;
            let y = cws.iter().zip(&wb).map(|(c, w)| c - w).collect();
            let keep = super::settled(&frame.ts, loaded(&x), true);
            Ok(Prepared { load, x, y, keep, wb: Some(wb), wb_derived })
        }
        Signal::FanEffort => {
            let y = as_percent(col(frame, "tower_fan_speed").unwrap_or(&[]));
            let keep = y.iter().map(|&v| v > FAN_RUNNING_PCT).collect();
            Ok(Prepared { load, x, y, keep, wb, wb_derived })
        }
    }
}

/// The samples the tower carries a load on: above a twentieth of the window's 95th-percentile
/// load. The approach of a plant that has just started is left out with them ([`super::settled`]):
/// the water that sat in the basin and pipes has not yet come round, and on an hourly trend that
/// one sample a day would widen the baseline's scatter by half.
fn loaded(x: &[f64]) -> Vec<bool> {
    let mut v: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    if v.is_empty() {
        return vec![false; x.len()];
    }
    v.sort_by(f64::total_cmp);
    let p95 = v[((v.len() - 1) as f64 * 0.95) as usize];
    x.iter().map(|&l| l.is_finite() && l > 0.05 * p95).collect()
}

/// The median offset of the tower's leaving-water sensor over the chillers' condenser-entering
/// one, fan running and tower bypass shut (when trended); `None` without the second sensor or
/// with too few such samples.
fn sensor_offset(frame: &Frame, keep: &[bool]) -> Option<f64> {
    let (leaving, entering) = (col(frame, "cw_supply_temp")?, col(frame, "cond_entering_water_temp")?);
    let bypass = col(frame, "cw_bypass_valve").map(as_percent);
    let mut d: Vec<f64> = (0..frame.len())
        .filter(|&i| keep[i] && bypass.as_ref().is_none_or(|b| b[i] <= BYPASS_SHUT_PCT))
        .map(|i| leaving[i] - entering[i])
        .filter(|v| v.is_finite())
        .collect();
    (d.len() >= FAN_MIN_SAMPLES).then(|| loadfit::median_in_place(&mut d))
}

/// The share of fan-running samples at or above [`HIGH_FAN_PCT`].
fn high_fan_share(p: &Prepared) -> Option<f64> {
    let v = values(&p.y, &p.keep, false);
    (!v.is_empty()).then(|| v.iter().filter(|&&f| f >= HIGH_FAN_PCT).count() as f64 / v.len() as f64)
}

/// Fit the detector's one comparison on a known-good window, recording the load it read.
fn fit_spec(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let s = signal(spec);
    let p = prepare(s, spec, frame, params, None).map_err(FitError::Missing)?;
    let mut part = Part::named(prefix(s));
    part.basis = Some(p.load.key().to_string());
    let (min_load, min_span, source) = match (s, p.load) {
        (Signal::FanEffort, Load::Range) => (RANGE_GATES.0, RANGE_GATES.1, "fixed"),
        (Signal::FanEffort, _) => {
            let g = size_relative_gates(&p.x, &p.keep, TON_GATES);
            (g.0, g.1, "size_relative")
        }
        (Signal::Approach, _) => {
            let g = size_relative_gates(&p.x, &p.keep, TON_GATES);
            let (gl, gs) = (opt_number(spec, params, "min_tons"), opt_number(spec, params, "min_tons_span"));
            let src = if gl.is_some() && gs.is_some() { "explicit" } else { "size_relative" };
            (gl.unwrap_or(g.0), gs.unwrap_or(g.1), src)
        }
    };
    (part.min_load, part.min_span, part.gate_source) = (min_load, min_span, source.to_string());
    let range = if s == Signal::Approach { APPROACH_RANGE } else { FAN_RANGE };
    part.signal_range = Some(range);
    let idx = loadfit::usable(&p.x, &p.y, &p.keep, min_load, range);
    let names = (p.load.noun(), if s == Signal::Approach { "tower approach" } else { "tower_fan_speed" });
    let min_samples = if s == Signal::Approach { loadfit::MIN_FIT_SAMPLES } else { FAN_MIN_SAMPLES };
    let plain = || LoadFit::fit(&frame.ts, &p.x, &p.y, &idx, min_span, true);
    let fitted = if idx.len() < min_samples {
        Err(why_unusable(&p.x, &p.y, &p.keep, min_load, Some(range), names, spec.judged_basis))
    } else if s == Signal::FanEffort {
        match &p.wb {
            Some(wb) => {
                let with_wb: Vec<u32> = idx.iter().copied().filter(|&i| wb[i as usize].is_finite()).collect();
                let f = LoadFit::fit_with_covariate(
                    &frame.ts,
                    &p.x,
                    &p.y,
                    (WETBULB, wb),
                    &with_wb,
                    min_span,
                    true,
                    WETBULB_MIN_SPREAD_F,
                );
                f.or_else(|why| {
                    part.notes.push(format!("the wet bulb's effect on the fan speed could not be identified over the baseline ({why}), so the fan is matched on the {} alone", p.load.noun()));
                    plain()
                })
            }
            None => {
                part.notes.push(format!(
                    "no wet bulb (measured, or outdoor air and humidity): the fan is matched on the {} alone",
                    p.load.noun()
                ));
                plain()
            }
        }
    } else {
        plain()
    };
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    if s == Signal::FanEffort {
        let share = high_fan_share(&p);
        part.stat("high_fan_share", share);
        part.stat("sensor_offset_f", sensor_offset(frame, &p.keep));
    }
    Ok(vec![part])
}

/// The comparison's name and metric prefix.
fn prefix(s: Signal) -> &'static str {
    match s {
        Signal::Approach => "tower_approach",
        Signal::FanEffort => "fan_effort",
    }
}

/// What a finding says the signal is matched on.
fn matched(load: Load, wet_bulb: bool) -> &'static str {
    match (load, wet_bulb) {
        (Load::ChwTons, false) => "matched load",
        (Load::HeatRejected, false) => "matched heat rejected",
        (Load::Range, false) => "matched range",
        (Load::ChwTons, true) => "matched load and wet bulb",
        (Load::HeatRejected, true) => "matched heat rejected and wet bulb",
        (Load::Range, true) => "matched range and wet bulb",
    }
}

/// Judge a current window on the load and wet bulb its baseline was fitted on.
fn evaluate_spec(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let s = signal(spec);
    let (part, fit) = match fitted(spec, baseline, prefix(s)) {
        Ok(pf) => pf,
        Err(o) => return o,
    };
    let Some(load) = part.basis.as_deref().and_then(Load::of_key) else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline does not say which load it was fitted on")]);
    };
    let p = match prepare(s, spec, frame, params, Some(load)) {
        Ok(p) => p,
        Err(missing) if choose_load(s, frame).is_some() && Needs::of(&spec.inputs).missing(frame).is_empty() => {
            return Outcome::Findings(vec![not_judged(
                spec,
                &format!(
                    "the baseline was fitted on {}, which this window cannot read (it lacks {}); fit the baseline again on the load it has",
                    load.words(),
                    missing.join(", ")
                ),
            )]);
        }
        Err(missing) => return Outcome::Skipped { missing },
    };
    let cov: Option<&[f64]> = match (&fit.covariate, &p.wb) {
        (None, _) => None,
        (Some(_), Some(wb)) => Some(wb),
        (Some(_), None) => {
            return Outcome::Findings(vec![not_judged(
                spec,
                "the baseline is matched on the wet bulb, which this window lacks (wetbulb_temp, or oat and outdoor_rh)",
            )]);
        }
    };
    let range = part.signal_range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let mut idx = loadfit::usable(&p.x, &p.y, &p.keep, part.min_load, range);
    if let Some(c) = cov {
        idx.retain(|&i| c[i as usize].is_finite());
    }
    let min_samples = if s == Signal::Approach { loadfit::MIN_SCORE_SAMPLES } else { FAN_MIN_SAMPLES };
    let names = (load.noun(), if s == Signal::Approach { "tower approach" } else { "tower_fan_speed" });
    let y = loadfit::adjusted(fit, &p.y, cov);
    let Some(score) = loadfit::score(fit, &frame.ts, &p.x, &y, &idx).filter(|s| s.idx.len() >= min_samples) else {
        let why = why_unscored(fit, &p.x, &idx, min_samples, || {
            why_unusable(&p.x, &p.y, &p.keep, part.min_load, Some(range), names, spec.judged_basis)
        });
        return Outcome::Findings(vec![not_judged(spec, &why)]);
    };
    let (unit_floor, unit_key) = match s {
        Signal::Approach => (("warn_f", "fault_f"), "f"),
        Signal::FanEffort => (("warn_pct", "fault_pct"), "pct"),
    };
    let floors = Floors {
        warn: params.number(spec, unit_floor.0),
        fault: params.number(spec, unit_floor.1),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    };
    let mut severity = grade(Side::Up, score.drift, score.drift_sigma, &floors);
    let alarm = loadfit::cusum(fit, &frame.ts, &score, Side::Up, &cusum_params(spec, params));
    let pre = prefix(s);
    let mut metrics = BTreeMap::new();
    score_metrics(&mut metrics, pre, unit_key, fit, &score, alarm.as_ref());
    let gate_key =
        if s == Signal::Approach { "tower_approach_min_tons".to_string() } else { format!("{pre}_load_gate") };
    metrics.insert(gate_key, loadfit::round4(part.min_load));
    metrics.insert(format!("{pre}_load_is_range"), if load == Load::Range { 1.0 } else { 0.0 });
    metrics.insert("thresholds_provisional".into(), 1.0);
    let mut caveats: Vec<String> = part.notes.clone();
    if fit.model == loadfit::Model::Level {
        caveats.push(format!("the {} barely moved over the baseline, so the baseline is a flat level valid for {:.4} to {:.4}; samples outside that band are not judged", load.noun(), fit.load_min - fit.load_band, fit.load_max + fit.load_band));
    }
    score_caveats(&mut caveats, fit, &score, alarm.as_ref(), load.noun());
    if cov.is_some_and(|c| loadfit::covariate_extrapolated(fit, c, &score)) {
        caveats.push("more than a tenth of the judged samples ran at a wet bulb outside the baseline's range, so part of the drift is extrapolated".into());
    }
    if p.wb_derived {
        caveats.push("the wet bulb is derived from outdoor air and humidity (at the site's pressure), which adds its own scatter".into());
    }
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into());
    }
    let wording = Wording {
        label: if s == Signal::Approach { "cooling-tower approach" } else { "tower fan speed" },
        unit: if s == Signal::Approach { "°F" } else { "%-points" },
        decimals: 1,
        matched: matched(load, cov.is_some()),
        cause_up: if s == Signal::Approach {
            "the tower rejects heat less well (fouled or scaled fill, plugged nozzles, or less air from a failed or under-driven fan)"
        } else {
            "the tower is working harder for the same heat (fouled or scaled fill, plugged nozzles, a slipping belt)"
        },
        cause_down: "",
    };
    let mut summary = wording.summary(
        Side::Up,
        severity,
        score.drift,
        score.drift_sigma,
        &floors,
        (score.idx.len(), spec.judged_basis),
    );
    if s == Signal::FanEffort {
        let now = high_fan_share(&p);
        let before = part.stats.get("high_fan_share").copied();
        if let Some(v) = before {
            metrics.insert("high_fan_share_baseline".into(), loadfit::round4(v));
        }
        if let Some(v) = now {
            metrics.insert("high_fan_share_current".into(), loadfit::round4(v));
        }
        if let (Some(b), Some(c)) = (before, now) {
            summary.push_str(&format!(
                "; hours at or above {HIGH_FAN_PCT:.0} % fan {:.0} % -> {:.0} %",
                100.0 * b,
                100.0 * c
            ));
        }
        let shift = part.stats.get("sensor_offset_f").zip(sensor_offset(frame, &p.keep)).map(|(b, c)| c - b);
        let mut sensor = false;
        if let Some(sh) = shift {
            metrics.insert("sensor_offset_shift_f".into(), crate::engine::round2(sh));
        }
        if severity >= Severity::Warn {
            match shift {
                None => caveats.push("no condenser-entering water temperature to cross-check the tower's leaving-water sensor in both windows: a sensor reading warm drives the fans the same way".into()),
                Some(sh) if sh.abs() >= params.number(spec, "sensor_shift_f") => {
                    sensor = true;
                    severity = Severity::Info;
                    caveats.push(format!("the tower's leaving-water sensor moved {sh:+.1} °F against the condenser-entering sensor since the baseline: the fans are chasing a biased reading; recalibrate the sensor before cleaning the tower"));
                    summary = format!(
                        "tower fan speed is {:.1} %-points above its baseline at {}, but the leaving-water sensor moved {sh:+.1} °F against the condenser-entering one: a sensor bias, not fouling",
                        score.drift,
                        matched(load, cov.is_some())
                    );
                }
                Some(_) => {}
            }
        }
        metrics.insert("attribution_sensor".into(), if sensor { 1.0 } else { 0.0 });
    }
    if severity >= Severity::Warn && load == Load::Range {
        caveats.push("the load is the tower's range, which assumes a constant condenser flow: with more condenser pumps on than in the baseline the range falls for the same heat; map the condenser flow (cw_flow) to match on the heat rejected".into());
    }
    caveats.push(super::matched::PROVISIONAL.into());
    let flagged = flagged(&score, fit.sigma, Side::Up, floors.warn);
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(score.idx.len())])
}

#[cfg(test)]
mod tests;
