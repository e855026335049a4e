//! `boiler_efficiency_drift` (family `boiler`): a boiler that burns more gas for the same heat.
//! A sooted fire side or a scaled water side lowers the efficiency, so the gas input per unit of
//! heat delivered (the reciprocal of the efficiency) creeps up, while the water side, which the
//! other hot-water rules watch, stays in spec because the boiler fires harder.
//!
//! On the firing samples (gas burning, the boiler's status on where trended, the loop ΔT above
//! half a degree and heat delivered), the ratio `gas / heat` is fitted against the heat
//! delivered (part-load efficiency varies) and, where it moved at least 2 °F over the baseline,
//! the return-water temperature (a condensing boiler loses efficiency as its return warms; a
//! fit that gives it the wrong sign is not used). The heat is `500 x gpm x ΔT / 3412.14` kW from
//! the loop flow, else the pump speed times the ΔT (a flow index; the drift is judged relative,
//! so the units cancel, but a re-set balancing valve reads as efficiency and the finding says
//! so). The drift is the median residual over the ratio the baseline expects at the current
//! window's median heat, and it is judged one way: a rise of `warn_rel` (and `warn_sigma`) warns,
//! `fault_rel` (and `fault_sigma`) faults.
//!
//! A biased supply or return sensor moves the computed heat, and the ratio with it, without a
//! therm more gas. With the outdoor temperature trended, a second baseline, the gas burned against
//! the outdoor air (the building's heating signature), tells the two apart: fouling raises the
//! gas at matched weather, a sensor bias does not. A ratio rise the gas does not share (less than
//! `corroboration_share` of it, and less than 2 %) is a heat-metering problem (info, metric
//! `attribution_sensor` 1), and without the signature a fault is capped at a warning
//! (`attribution_unconfirmed` 1). A signature the outdoor air barely explains (r² under 0.2: in a
//! scheduled building the occupied hours are also the warm ones and carry the ventilation load)
//! or one of the wrong sign (gas rising with the weather) is not fitted: it cannot tell the two
//! apart, so the finding stays an unconfirmed warning rather than an info blaming the sensors.
//! Unlike the reference, the detector also runs the sustained-shift check. The floors are
//! screening levels, not ones proven on these boilers.

use std::collections::BTreeMap;

use super::loadfit::{self, LoadFit, Model, Side};
use super::{
    col, cusum_param_specs, cusum_params, fitted, flagged, grade, median_kept, not_judged, p95_positive, score_caveats,
    score_metrics, values, why_unscored, why_unusable, Baseline, DetectorSpec, FitError, Floors, Kind, Part,
};
use crate::engine::{as_percent, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, Params, Severity};

const BTU_PER_KWH: f64 = 3412.14;
const RETURN: &str = "hw_return_temp";
/// A loop ΔT (°F) at or under this carries no heat.
const MIN_DT_F: f64 = 0.5;
/// The fewest firing samples a fit, a score or the gas-signature check rests on.
const MIN_SAMPLES: usize = 30;
/// The return water must spread this much (°F) to be a regressor; the outdoor air this much to
/// fit the heating signature.
const RETURN_MIN_SPREAD_F: f64 = 2.0;
const OAT_MIN_SPAN_F: f64 = 10.0;
/// The share of the gas's variance over the baseline the outdoor air must explain for the
/// signature to corroborate anything: below it the gas follows the occupancy schedule, the
/// building's thermal lag or a process load more than the weather, and the gas "at matched
/// outdoor air" moves with whatever else differs between the windows.
const SIGNATURE_MIN_R2: f64 = 0.2;
/// The smallest gas rise at matched weather that backs a ratio rise, whatever its share.
const CORROBORATION_MIN_REL: f64 = 0.02;
/// The load gates: shares of the baseline's 95th-percentile heat.
const LOAD_GATE_FRAC: f64 = 0.05;
const LOAD_SPAN_FRAC: f64 = 0.10;

/// The detector's declaration.
pub(super) fn spec() -> DetectorSpec {
    let mut params = vec![
        ParamSpec::number("warn_rel", 0.05, "fraction of the baseline ratio", (0.01, 0.5),
            "a 5 % rise of gas per heat is about four efficiency points on an 80 % boiler, the size of change a combustion tune-up or a tube cleaning is justified on",
            "Judge one known-good heating season against a baseline fitted on another and set it above the rise that shows; a warning needs both this and warn_sigma."),
        ParamSpec::number("fault_rel", 0.15, "fraction of the baseline ratio", (0.02, 1.0),
            "a boiler burning about a sixth more gas than it did for the same heat",
            "Keep it well above warn_rel."),
        ParamSpec::number("warn_sigma", 1.5, "σ", (1.0, 6.0),
            "a plant's gas-per-heat ratio scatters with its cycling, so the rise must also stand clear of the baseline's own scatter",
            "Raise it if a known-good window judged against another warns."),
        ParamSpec::number("fault_sigma", 3.0, "σ", (2.0, 10.0),
            "a screening level well outside the scatter a healthy boiler shows",
            "Keep it about twice warn_sigma."),
        ParamSpec::number("corroboration_share", 1.0 / 3.0, "fraction of the ratio rise", (0.1, 1.0),
            "fouling raises the gas burned at matched weather by about as much as the ratio; a biased water-side sensor raises only the ratio, so a gas rise under a third of it reads as the sensors'",
            "Lower it where the building's heat demand varies with more than the weather (occupancy, process loads), which blurs the gas signature."),
    ];
    params.extend(cusum_param_specs());
    DetectorSpec {
        id: "boiler_efficiency_drift",
        drift_family: "boiler",
        families: &["hw_plant"],
        inputs: Inputs {
            required: &["gas_input_rate", "hw_supply_temp", "hw_return_temp"],
            optional: &["hw_flow", "hw_pump_speed", "oat", "boiler_status"],
            gating: &[],
            one_of: &[&["hw_flow", "hw_pump_speed"]],
            needs_gating: false,
        },
        params,
        unit: "fraction of the baseline gas-in / heat-out ratio",
        side: Side::Up,
        description: "A boiler's gas input per unit of heat delivered against its own baseline at matched load and return-water temperature, corroborated by the gas burned at matched outdoor air: a rise is a fouled boiler, or, when the gas did not rise, a heat-metering sensor.",
        judged_basis: "firing samples at or above the load gate",
        kind: Kind { fit, evaluate },
    }
}

/// A window's firing samples: the heat delivered, the gas-per-heat ratio, the gas, and which
/// samples fired.
struct Prepared {
    heat: Vec<f64>,
    ratio: Vec<f64>,
    gas: Vec<f64>,
    keep: Vec<bool>,
}

/// Read a window, its heat from `source` (`hw_flow` or `hw_pump_speed`).
fn prepare(frame: &Frame, source: &str) -> Option<Prepared> {
    let (gas, sup, ret) = (col(frame, "gas_input_rate")?, col(frame, "hw_supply_temp")?, col(frame, "hw_return_temp")?);
    let by = col(frame, source)?;
    let speed = (source == "hw_pump_speed").then(|| as_percent(by));
    let status = col(frame, "boiler_status").map(crate::cycles::duty);
    let mut keep = vec![false; frame.len()];
    let mut heat = crate::engine::nans(frame.len());
    for i in 0..frame.len() {
        let dt = sup[i] - ret[i];
        heat[i] = match &speed {
            Some(s) => s[i] * dt,
            None => 500.0 * by[i] * dt / BTU_PER_KWH,
        };
        keep[i] = gas[i] > 0.0 && status.as_ref().is_none_or(|s| s[i] > 0.5) && dt > MIN_DT_F && heat[i] > 0.0;
    }
    let ratio = gas.iter().zip(&heat).map(|(g, h)| g / h).collect();
    Some(Prepared { heat, ratio, gas: gas.to_vec(), keep })
}

/// Where the heat is read from: the flow, else the pump speed.
fn heat_source(frame: &Frame) -> Option<&'static str> {
    ["hw_flow", "hw_pump_speed"].into_iter().find(|r| col(frame, r).is_some())
}

/// Fit the ratio on the heat (and return water) and the gas signature on the outdoor air.
fn fit(spec: &DetectorSpec, frame: &Frame, _params: &Params) -> Result<Vec<Part>, FitError> {
    let missing = Needs::of(&spec.inputs).missing(frame);
    if !missing.is_empty() {
        return Err(FitError::Missing(missing));
    }
    let source = heat_source(frame).ok_or_else(|| FitError::Missing(vec!["hw_flow or hw_pump_speed".into()]))?;
    let p = prepare(frame, source).ok_or_else(|| FitError::Missing(vec![source.to_string()]))?;
    let mut part = Part::named("ratio");
    part.basis = Some(source.to_string());
    let top = p95_positive(&p.heat, &p.keep);
    (part.min_load, part.min_span) = top.map_or((0.0, 0.0), |t| (LOAD_GATE_FRAC * t, LOAD_SPAN_FRAC * t));
    part.gate_source = "size_relative".into();
    part.scale_p95 = top;
    let range = match median_kept(&p.ratio, &p.keep).filter(|m| *m > 0.0) {
        Some(m) => (m / 3.0, 3.0 * m),
        None => (0.0, f64::MAX),
    };
    part.signal_range = Some(range);
    let idx = loadfit::usable(&p.heat, &p.ratio, &p.keep, part.min_load, range);
    let ret = col(frame, RETURN).unwrap_or(&[]);
    let with_ret: Vec<u32> =
        idx.iter().copied().filter(|&i| ret.get(i as usize).is_some_and(|v| v.is_finite())).collect();
    let names = ("heat delivered", "gas-in / heat-out ratio");
    let span = part.min_span;
    let fitted = if idx.len() < MIN_SAMPLES {
        Err(why_unusable(&p.heat, &p.ratio, &p.keep, part.min_load, Some(range), names, spec.judged_basis))
    } else {
        let with = LoadFit::fit_with_covariate(
            &frame.ts,
            &p.heat,
            &p.ratio,
            (RETURN, ret),
            &with_ret,
            span,
            true,
            RETURN_MIN_SPREAD_F,
        );
        match with {
            Ok(f) if f.covariate.as_ref().is_some_and(|k| k.slope > 0.0) => Ok(f),
            with => {
                part.notes.push(match with {
                    Ok(_) => "the baseline gave the return-water temperature the wrong sign (efficiency falls as the return warms), so the ratio is matched on the load alone".into(),
                    Err(why) => format!("the return-water temperature's effect could not be identified over the baseline ({why}), so the ratio is matched on the load alone"),
                });
                LoadFit::fit(&frame.ts, &p.heat, &p.ratio, &idx, span, true)
            }
        }
    };
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    // the corroborating model: the gas burned against the outdoor air
    let mut sig = Part::named("gas_signature");
    sig.gate_source = "fixed".into();
    sig.min_span = OAT_MIN_SPAN_F;
    sig.basis = Some("oat".into());
    match col(frame, "oat") {
        None => sig.declined = Some("no outdoor-air temperature".into()),
        Some(oat) => {
            let idx = loadfit::usable(oat, &p.gas, &p.keep, f64::NEG_INFINITY, (0.0, f64::MAX));
            let fitted = if idx.len() < MIN_SAMPLES {
                Err(format!("only {} firing sample(s) with the outdoor air (need {MIN_SAMPLES})", idx.len()))
            } else {
                LoadFit::fit(&frame.ts, oat, &p.gas, &idx, OAT_MIN_SPAN_F, false)
            };
            match fitted {
                Ok(f) if f.model == Model::Linear && f.slope >= 0.0 => sig.declined = Some(format!(
                    "the gas rose with the outdoor air over the baseline ({:+.3} per °F), the wrong sign for a heating load",
                    f.slope
                )),
                Ok(f) if f.r2.is_some_and(|r| r < SIGNATURE_MIN_R2) => sig.declined = Some(format!(
                    "the outdoor air explains only {:.0} % of the gas burned over the baseline: the schedule, the building's thermal lag or a process load drives it more",
                    100.0 * f.r2.unwrap_or(0.0)
                )),
                Ok(f) => sig.fit = Some(f),
                Err(why) => sig.declined = Some(why),
            }
        }
    }
    Ok(vec![part, sig])
}

/// The mean gas rise at matched outdoor air, relative to what the signature expects; `None`
/// without the signature, the outdoor air or enough firing samples with it.
fn gas_rise(sig: Option<&LoadFit>, frame: &Frame, p: &Prepared) -> Option<f64> {
    let (sig, oat) = (sig?, col(frame, "oat")?);
    let (mut n, mut actual, mut expected) = (0usize, 0.0, 0.0);
    for i in (0..frame.len()).filter(|&i| p.keep[i] && oat[i].is_finite() && p.gas[i].is_finite()) {
        n += 1;
        actual += p.gas[i];
        expected += sig.predict(oat[i]);
    }
    (n >= MIN_SAMPLES && expected > 0.0).then(|| (actual - expected) / expected)
}

/// Judge a current window's ratio, then read its gas at matched weather to attribute a rise.
fn evaluate(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let (part, fit) = match fitted(spec, baseline, "ratio") {
        Ok(pf) => pf,
        Err(o) => return o,
    };
    let missing = Needs::of(&spec.inputs).missing(frame);
    if !missing.is_empty() {
        return Outcome::Skipped { missing };
    }
    let source = part.basis.as_deref().unwrap_or("hw_flow");
    let Some(p) = prepare(frame, source) else {
        return Outcome::Findings(vec![not_judged(
            spec,
            &format!("the baseline's heat was read from {source}, which this window lacks; fit the baseline again on what it trends"),
        )]);
    };
    let cov = fit.covariate.as_ref().map(|_| col(frame, RETURN).unwrap_or(&[]));
    let range = part.signal_range.unwrap_or((0.0, f64::MAX));
    let mut idx = loadfit::usable(&p.heat, &p.ratio, &p.keep, part.min_load, range);
    if let Some(c) = cov {
        idx.retain(|&i| c.get(i as usize).is_some_and(|v| v.is_finite()));
    }
    let y = loadfit::adjusted(fit, &p.ratio, cov);
    let Some(score) = loadfit::score(fit, &frame.ts, &p.heat, &y, &idx).filter(|s| s.idx.len() >= MIN_SAMPLES) else {
        let why = why_unscored(fit, &p.heat, &idx, MIN_SAMPLES, || {
            why_unusable(
                &p.heat,
                &p.ratio,
                &p.keep,
                part.min_load,
                Some(range),
                ("heat delivered", "gas-in / heat-out ratio"),
                spec.judged_basis,
            )
        });
        return Outcome::Findings(vec![not_judged(spec, &why)]);
    };
    let mut heat = values(&p.heat, &p.keep, false);
    let level = fit.predict(loadfit::median_in_place(&mut heat));
    // rounded as the metric is, so the verdict and the number it prints agree at a floor
    let rel = if level > 0.0 { loadfit::round4(score.drift / level) } else { f64::NAN };
    let floors = Floors {
        warn: params.number(spec, "warn_rel"),
        fault: params.number(spec, "fault_rel"),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    };
    let mut severity = grade(Side::Up, rel, score.drift_sigma, &floors);
    let alarm = loadfit::cusum(fit, &frame.ts, &score, Side::Up, &cusum_params(spec, params));
    let sig = baseline.parts.iter().find(|q| q.name == "gas_signature").and_then(|q| q.fit.as_ref());
    let rise = gas_rise(sig, frame, &p);
    let mut caveats: Vec<String> = part.notes.clone();
    let (mut sensor, mut unconfirmed) = (false, false);
    if severity >= Severity::Warn {
        let need = CORROBORATION_MIN_REL.max(params.number(spec, "corroboration_share") * rel);
        match rise {
            None => {
                unconfirmed = true;
                severity = severity.min(Severity::Warn);
                caveats.push("capped at a warning: without the gas burned against the outdoor air in both windows, a fouled boiler cannot be told from a biased supply or return sensor".into());
            }
            Some(g) if g < need => {
                sensor = true;
                severity = Severity::Info;
                caveats.push(format!("the ratio rose {:+.0} % but the gas burned at matched outdoor air moved only {:+.1} %: the heat measurement moved, not the boiler; check the hot-water supply and return sensors and the flow meter", 100.0 * rel, 100.0 * g));
            }
            Some(_) => {}
        }
    }
    let mut metrics = BTreeMap::new();
    score_metrics(&mut metrics, "ratio", "", fit, &score, alarm.as_ref());
    if rel.is_finite() {
        metrics.insert("ratio_drift_rel".into(), rel);
    }
    metrics.insert("ratio_baseline_level".into(), loadfit::round4(level));
    metrics.insert("ratio_load_gate".into(), loadfit::round4(part.min_load));
    if let Some(g) = rise {
        metrics.insert("gas_rise_at_matched_oat".into(), loadfit::round4(g));
    }
    metrics.insert("heat_from_flow".into(), if source == "hw_flow" { 1.0 } else { 0.0 });
    metrics.insert("attribution_sensor".into(), if sensor { 1.0 } else { 0.0 });
    metrics.insert("attribution_unconfirmed".into(), if unconfirmed { 1.0 } else { 0.0 });
    metrics.insert("thresholds_provisional".into(), 1.0);
    if source == "hw_pump_speed" {
        caveats.push("no hot-water flow meter: the heat is indexed by the pump speed times the loop ΔT (flow follows speed), so the ratio is relative only and a changed pump curve or valve line-up reads as efficiency".into());
    }
    if fit.model == loadfit::Model::Level {
        caveats.push(format!("the heat delivered barely moved over the baseline, so the baseline is a flat level valid for {:.4} to {:.4}; samples outside that band are not judged", fit.load_min - fit.load_band, fit.load_max + fit.load_band));
    }
    score_caveats(&mut caveats, fit, &score, alarm.as_ref(), "heat delivered");
    if cov.is_some_and(|c| loadfit::covariate_extrapolated(fit, c, &score)) {
        caveats.push("more than a tenth of the judged samples ran at a return-water temperature outside the baseline's range, so part of the drift is extrapolated".into());
    }
    if let Some(q) = baseline.parts.iter().find(|q| q.name == "gas_signature" && q.fit.is_none()) {
        caveats.push(format!(
            "the gas-against-outdoor-air signature was not fitted ({}), so a ratio rise cannot be corroborated",
            q.declined.as_deref().unwrap_or("no baseline")
        ));
    }
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into());
    }
    let matched = if fit.covariate.is_some() { "matched load and return-water temperature" } else { "matched load" };
    let sig_words = score.drift_sigma.map_or("no baseline scatter".to_string(), |s| format!("{:.1}σ", s.abs()));
    let pct = |v: f64| format!("{:+.1} %", 100.0 * v);
    let gas = rise.map_or(String::new(), |g| format!("; the gas at matched outdoor air {}", pct(g)));
    let n = score.idx.len();
    let summary = if sensor {
        format!("the gas-in / heat-out ratio is {} against its baseline at {matched}, but the gas burned at matched outdoor air did not rise{gas}: a heat-metering problem (the hot-water temperature sensors or the flow meter), not a fouled boiler", pct(rel))
    } else if severity >= Severity::Warn {
        format!("gas input per unit of heat delivered is {} ({sig_words}) above its baseline at {matched} on {n} {}{gas}: the boiler burns more gas for the same heat (a sooted fire side, a scaled water side, a combustion setting drifted)", pct(rel), spec.judged_basis)
    } else if rel.is_finite() && rel < 0.0 && grade(Side::Both, rel, score.drift_sigma, &floors) > Severity::Ok {
        format!("gas input per unit of heat delivered is {} below its baseline at {matched} on {n} {}{gas}; only a rise is judged a fault", pct(rel), spec.judged_basis)
    } else {
        format!("gas input per unit of heat delivered holds near its baseline at {matched} ({}, {sig_words}) on {n} {}{gas}", if rel.is_finite() { pct(rel) } else { "no level".into() }, spec.judged_basis)
    };
    caveats.push(super::matched::PROVISIONAL.into());
    let flagged = flagged(&score, fit.sigma, Side::Up, floors.warn * level.max(0.0));
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(n)])
}

#[cfg(test)]
mod tests;
