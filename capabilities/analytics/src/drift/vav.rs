//! The terminal box's drift detectors (family `vav`), each an actuator's position against the
//! demand it answers, fitted on a known-good window and judged at matched demand; only a creep
//! open is judged (needing less is a gain, not a fault):
//!
//! - `vav_airflow_drift`: the box damper at matched commanded airflow. A damper that opens
//!   further for the same command is spending its reserve authority (actuator or linkage wear,
//!   or a box starved of upstream static) while the airflow still tracks, so it shows before
//!   `airflow_tracking` does. The commanded airflow is the load axis, so a moving setpoint walks
//!   the box along its own curve rather than confounding it. A concurrent fall of the duct static,
//!   when the box's frame carries one, is reported and marks the creep as a likely plant-side
//!   starvation. Unlike the reference's drift run, a box with no airflow setpoint trended is
//!   fitted along its measured airflow (an option of the reference's detector), and says so.
//! - `vav_reheat_valve_drift`: the reheat valve at matched reheat duty, the airflow times the rise
//!   from the entering primary air (`mixed_air_temp`, the reference's convention) to the discharge
//!   (`supply_air_temp`); with `load_basis` `deltat`, at matched rise alone. A valve opening
//!   further for the same duty is a coil losing heat transfer (fouling, hot-water starvation, lost
//!   valve authority). A colder hot-water supply needs more valve with no fouling: a caveat.
//!
//! Unlike the reference, a damper or valve trended as a 0-1 fraction is read on the 0-100 %
//! scale. [`diagnose`] is the family's roll-up: it tells the box's own damper authority from a
//! plant that starves it, and the damper from the reheat coil.

use std::collections::BTreeMap;

use super::families::{Diagnosis, DriftFamily};
use super::loadfit::Side;
use super::matched::{self, Comparison, Series};
use super::{
    col, cusum_params, median_kept, not_judged, running, sigma_params, Baseline, DetectorSpec, FitError, Floors, Kind,
    Part, Wording,
};
use crate::engine::{as_percent, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Severity};

const STATUS: &str = "supply_fan_status";
const DAMPER: &str = "damper";
const AIRFLOW: &str = "airflow";
const AIRFLOW_SP: &str = "airflow_sp";
const STATIC: &str = "duct_static";
const VALVE: &str = "heat_valve";
const DISCHARGE: &str = "supply_air_temp";
const PRIMARY: &str = "mixed_air_temp";
const HW_SUPPLY: &str = "hw_supply_temp";

/// The load span a line needs (the reference's default, in the load's unit).
const MIN_SPAN: f64 = 10.0;

fn floors(spec: &DetectorSpec, params: &Params) -> Floors {
    Floors {
        warn: params.number(spec, "warn_pct"),
        fault: params.number(spec, "fault_pct"),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    }
}

fn gate_source(params: &Params, name: &str) -> &'static str {
    if params.values.contains_key(name) {
        "explicit"
    } else {
        "default"
    }
}

fn pct_params(what: &'static str) -> Vec<ParamSpec> {
    let [ws, fs] = sigma_params("σ", 4.0);
    vec![
        ParamSpec::number("warn_pct", 8.0, what, (2.0, 30.0),
            "a coarse backstop under the sigma floor, which carries the verdict since the slope against demand varies with the box's size and authority (the reference's screening level, shared with coil_valve_drift)",
            "Judge one known-good window against a baseline fitted on another and set it above the creep that shows; a warning needs both this and warn_sigma."),
        ParamSpec::number("fault_pct", 15.0, what, (4.0, 50.0),
            "a screening backstop for a clear creep",
            "About twice warn_pct."),
        ws,
        fs,
    ]
}

/// The share of a window's samples the gates leave out.
fn excluded(keep: &[bool]) -> f64 {
    if keep.is_empty() {
        0.0
    } else {
        keep.iter().filter(|k| !**k).count() as f64 / keep.len() as f64
    }
}

// ---------------------------------------------------------------- damper at commanded airflow

fn airflow_comparison(load: &'static str) -> Comparison {
    Comparison {
        prefix: "vav_airflow",
        unit_key: "pct",
        side: Side::Up,
        range: (0.0, 100.0),
        names: (load, DAMPER),
        load_word: if load == AIRFLOW_SP { "commanded airflow" } else { "airflow" },
        wording: Wording {
            label: "the box damper",
            unit: "%",
            decimals: 0,
            matched: if load == AIRFLOW_SP { "matched commanded airflow" } else { "matched airflow" },
            cause_up: "the damper opens further for the same airflow: actuator or linkage wear, or a box starved of upstream static (the airflow falls short once the stroke runs out)",
            cause_down: "",
        },
    }
}

/// The declaration of `vav_airflow_drift`.
pub(super) fn airflow_spec() -> DetectorSpec {
    let mut params = pct_params("% of damper stroke");
    params.push(ParamSpec::number("duct_static_confound", 0.1, "inH2O", (0.02, 1.0),
        "an upstream duct static that fell this much forces the damper open for the same airflow with nothing wrong at the box",
        "Set it a little above the duct static's scatter about its setpoint. It adds a caveat and the starvation flag the roll-up reads; it never changes the severity."));
    params.extend(super::cusum_param_specs());
    params.push(ParamSpec::number(
        "min_command",
        50.0,
        "cfm",
        (0.0, 2000.0),
        "below about 50 cfm a box is at its minimum or shut off and its damper says nothing about its authority",
        "Set it a little above the box's scheduled minimum airflow, so only modulating samples are judged.",
    ));
    DetectorSpec {
        id: "vav_airflow_drift",
        drift_family: "vav",
        families: &["terminal"],
        inputs: Inputs {
            required: &[DAMPER],
            optional: &[AIRFLOW_SP, AIRFLOW, STATIC, STATUS],
            gating: &[],
            one_of: &[&[AIRFLOW_SP, AIRFLOW]],
            needs_gating: false,
        },
        params,
        unit: "% of damper stroke",
        side: Side::Up,
        description: "A terminal box's damper position against its baseline at matched commanded airflow: a damper that opens further for the same airflow is losing authority (actuator or linkage wear, or upstream starvation).",
        judged_basis: "samples with the box at or above its airflow gate",
        kind: Kind { fit: fit_airflow, evaluate: evaluate_airflow },
    }
}

/// The load role a window offers: the airflow setpoint, else the measured airflow.
fn airflow_load(frame: &Frame) -> Option<&'static str> {
    [AIRFLOW_SP, AIRFLOW].into_iter().find(|r| col(frame, r).is_some())
}

fn airflow_series(spec: &DetectorSpec, frame: &Frame, params: &Params, load: &str) -> Option<Series> {
    let (d, x) = (col(frame, DAMPER)?, col(frame, load)?);
    let y = as_percent(d);
    let on = running(frame, col(frame, STATUS), 0.5);
    let min = params.number(spec, "min_command");
    let keep = (0..frame.len()).map(|i| on[i] && x[i] >= min && x[i] <= 1e5 && (0.0..=100.0).contains(&y[i])).collect();
    Some(Series { x: x.to_vec(), y, keep })
}

fn airflow_missing(frame: &Frame) -> Vec<String> {
    let mut m = Vec::new();
    if col(frame, DAMPER).is_none() {
        m.push(DAMPER.to_string());
    }
    if airflow_load(frame).is_none() {
        m.push(format!("{AIRFLOW_SP} or {AIRFLOW}"));
    }
    m
}

fn fit_airflow(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let m = airflow_missing(frame);
    let (true, Some(load)) = (m.is_empty(), airflow_load(frame)) else {
        return Err(FitError::Missing(m));
    };
    let s = airflow_series(spec, frame, params, load).ok_or_else(|| FitError::Missing(vec![DAMPER.into()]))?;
    let c = airflow_comparison(load);
    let gates = (params.number(spec, "min_command"), MIN_SPAN);
    let mut part =
        matched::fit_part(&c, c.prefix, &frame.ts, &s, gates, gate_source(params, "min_command"), spec.judged_basis);
    part.basis = Some(load.into());
    part.excluded_share = Some(excluded(&s.keep));
    part.confound_median = col(frame, STATIC).and_then(|v| median_kept(v, &vec![true; frame.len()]));
    Ok(vec![part])
}

fn evaluate_airflow(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let Some(part) = baseline.parts.iter().find(|p| p.name == "vav_airflow") else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline holds no fit for this signal")]);
    };
    let load = if part.basis.as_deref() == Some(AIRFLOW) { AIRFLOW } else { AIRFLOW_SP };
    let mut missing: Vec<String> =
        [DAMPER, load].iter().filter(|r| col(frame, r).is_none()).map(|r| r.to_string()).collect();
    missing.dedup();
    let Some(s) = airflow_series(spec, frame, params, load).filter(|_| missing.is_empty()) else {
        return Outcome::Skipped { missing };
    };
    let c = airflow_comparison(load);
    let fl = floors(spec, params);
    let mut j = match matched::judge_part(&c, part, &frame.ts, &s, &fl, &cusum_params(spec, params), spec.judged_basis)
    {
        Ok(j) => j,
        Err(why) => return Outcome::Findings(vec![not_judged(spec, &why)]),
    };
    if let Some(m) = matched::median_rounded(&s.x, &s.keep, 2) {
        j.metrics.insert("vav_command_median_cfm".into(), m);
    }
    let share = excluded(&s.keep).max(part.excluded_share.unwrap_or(0.0));
    j.metrics.insert("vav_airflow_inactive_excluded_pct".into(), crate::engine::round2(100.0 * share));
    if load == AIRFLOW {
        j.caveats.push("no airflow setpoint is trended, so the damper is read against the measured airflow: the same curve, but a box that already falls short of its setpoint is judged at the flow it made, not the one it was asked for".into());
    }
    let all = vec![true; frame.len()];
    if let Some(sh) = matched::shift(part.confound_median, col(frame, STATIC), &all, 4) {
        j.metrics.insert("vav_duct_static_shift_inwc".into(), sh);
        let starved = j.score.drift >= 0.0 && sh <= -params.number(spec, "duct_static_confound");
        j.metrics.insert("vav_upstream_starvation_suspected".into(), if starved { 1.0 } else { 0.0 });
        if starved {
            j.caveats.push(format!("the upstream duct static fell {sh:+.2} inH2O over the same windows, which alone opens the damper further for the same airflow: part of this creep may be the air handler starving the box rather than its actuator or linkage; check the air handler first"));
        }
    }
    Outcome::Findings(vec![j.finding(spec, &c, &fl, None)])
}

// ---------------------------------------------------------------- reheat valve at matched duty

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Basis {
    Duty,
    DeltaT,
}

impl Basis {
    fn word(self) -> &'static str {
        match self {
            Basis::Duty => "duty",
            Basis::DeltaT => "deltat",
        }
    }
}

fn reheat_comparison(b: Basis) -> Comparison {
    Comparison {
        prefix: "vav_reheat_valve",
        unit_key: "pct",
        side: Side::Up,
        range: (0.0, 100.0),
        names: (if b == Basis::Duty { "reheat duty" } else { "reheat ΔT" }, VALVE),
        load_word: if b == Basis::Duty { "reheat duty" } else { "reheat ΔT" },
        wording: Wording {
            label: "the reheat valve",
            unit: "%",
            decimals: 0,
            matched: if b == Basis::Duty { "matched reheat duty" } else { "matched reheat ΔT" },
            cause_up: "the reheat coil needs more valve for the same heat (fouling or scale, hot-water starvation, lost valve authority); the box misses its setpoint once the valve runs out",
            cause_down: "",
        },
    }
}

/// The declaration of `vav_reheat_valve_drift`.
pub(super) fn reheat_spec() -> DetectorSpec {
    let mut params = vec![ParamSpec {
        name: "load_basis",
        default: ParamValue::Choice("duty".into()),
        unit: "choice",
        range: None,
        choices: &["duty", "deltat"],
        basis: "a box's airflow varies, and the heat it delivers goes with airflow times the rise, so the duty is the load the valve answers; the rise alone is the fallback for a box whose airflow is not trended",
        calibrate: "Leave it at \"duty\" whenever the box's airflow is trended; \"deltat\" reads a box whose airflow swings as noisier.",
    }];
    params.extend(pct_params("% of valve stroke"));
    params.push(ParamSpec::number(
        "water_confound",
        2.0,
        "°F",
        (0.5, 10.0),
        "a hot-water supply colder by this much needs more valve for the same reheat with no fouling",
        "Set it a little above the hot-water supply's own scatter. It adds a caveat only.",
    ));
    params.extend(super::cusum_param_specs());
    params.push(ParamSpec::number(
        "min_deltat",
        3.0,
        "°F",
        (0.5, 15.0),
        "a rise under this is barely reheating and the valve says nothing about the coil",
        "Raise it when the discharge and primary-air sensors disagree by more than this with the valve shut.",
    ));
    params.push(ParamSpec::number("min_duty", 1000.0, "cfm·°F", (0.0, 100000.0),
        "under about 1000 cfm·°F (a few hundred cfm lifted a few degrees) the coil is barely working; used with the duty basis",
        "Set it near a tenth of the box's design reheat duty: its heating airflow times its design rise."));
    params.push(ParamSpec::number(
        "valve_deadband",
        5.0,
        "% of valve stroke",
        (0.0, 20.0),
        "a valve at or under this is shut: the box is not reheating",
        "Set it just above what the valve reads when the controls hold it shut.",
    ));
    DetectorSpec {
        id: "vav_reheat_valve_drift",
        drift_family: "vav",
        families: &["terminal"],
        inputs: Inputs {
            required: &[VALVE, DISCHARGE, PRIMARY],
            optional: &[AIRFLOW, HW_SUPPLY, STATUS],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params,
        unit: "% of valve stroke",
        side: Side::Up,
        description: "A terminal box's reheat valve against its baseline at matched reheat duty (airflow times the rise across the coil): a valve that opens further for the same heat is a coil losing heat transfer.",
        judged_basis: "samples with the box reheating",
        kind: Kind { fit: fit_reheat, evaluate: evaluate_reheat },
    }
}

/// The valve against the load, the kept samples, and the rise across the coil.
fn reheat_series(
    spec: &DetectorSpec,
    frame: &Frame,
    params: &Params,
    b: Basis,
) -> Result<(Series, Vec<f64>), Vec<String>> {
    let mut need = vec![VALVE, DISCHARGE, PRIMARY];
    if b == Basis::Duty {
        need.push(AIRFLOW);
    }
    let missing: Vec<String> = need.iter().filter(|r| col(frame, r).is_none()).map(|r| r.to_string()).collect();
    if !missing.is_empty() {
        return Err(missing);
    }
    let get = |r: &str| col(frame, r).unwrap_or(&[]);
    let y = as_percent(get(VALVE));
    let dt: Vec<f64> = get(DISCHARGE).iter().zip(get(PRIMARY)).map(|(d, p)| d - p).collect();
    let on = running(frame, col(frame, STATUS), 0.5);
    let (deadband, min_dt) = (params.number(spec, "valve_deadband"), params.number(spec, "min_deltat"));
    let flow = col(frame, AIRFLOW).filter(|_| b == Basis::Duty);
    let x: Vec<f64> = match flow {
        Some(f) => f.iter().zip(&dt).map(|(a, t)| a * t).collect(),
        None => dt.clone(),
    };
    let keep = (0..frame.len())
        .map(|i| {
            let base = on[i] && y[i] > deadband && (0.5..=60.0).contains(&dt[i]) && dt[i] >= min_dt;
            base && flow.is_none_or(|f| (0.0..=1e5).contains(&f[i]) && (0.0..=6e6).contains(&x[i]))
        })
        .collect();
    Ok((Series { x, y, keep }, dt))
}

fn basis_param(spec: &DetectorSpec, params: &Params) -> Basis {
    if params.choice(spec, "load_basis") == "deltat" {
        Basis::DeltaT
    } else {
        Basis::Duty
    }
}

fn fit_reheat(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let b = basis_param(spec, params);
    let (s, _) = reheat_series(spec, frame, params, b).map_err(FitError::Missing)?;
    let c = reheat_comparison(b);
    let (gate, name) = if b == Basis::Duty { ("min_duty", "min_duty") } else { ("min_deltat", "min_deltat") };
    let gates = (params.number(spec, gate), MIN_SPAN);
    let mut part = matched::fit_part(&c, c.prefix, &frame.ts, &s, gates, gate_source(params, name), spec.judged_basis);
    part.basis = Some(b.word().into());
    part.excluded_share = Some(excluded(&s.keep));
    part.confound_median = col(frame, HW_SUPPLY).and_then(|v| median_kept(v, &vec![true; frame.len()]));
    Ok(vec![part])
}

fn evaluate_reheat(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let Some(part) = baseline.parts.iter().find(|p| p.name == "vav_reheat_valve") else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline holds no fit for this signal")]);
    };
    // the baseline's own basis: a line along the duty cannot score a rise
    let b = if part.basis.as_deref() == Some("deltat") { Basis::DeltaT } else { Basis::Duty };
    let (s, dt) = match reheat_series(spec, frame, params, b) {
        Ok(v) => v,
        Err(missing) => return Outcome::Skipped { missing },
    };
    let c = reheat_comparison(b);
    let fl = floors(spec, params);
    let mut j = match matched::judge_part(&c, part, &frame.ts, &s, &fl, &cusum_params(spec, params), spec.judged_basis)
    {
        Ok(j) => j,
        Err(why) => return Outcome::Findings(vec![not_judged(spec, &why)]),
    };
    if let Some(m) = matched::median_rounded(&dt, &s.keep, 3) {
        j.metrics.insert("vav_reheat_deltat_median_f".into(), m);
    }
    if b == Basis::Duty {
        if let Some(m) = matched::median_rounded(&s.x, &s.keep, 1) {
            j.metrics.insert("vav_reheat_duty_median_cfmf".into(), m);
        }
    } else {
        j.caveats.push("the load is the reheat rise alone: the box's airflow is not modelled, so a healthy box whose airflow swings reads noisier; trend the airflow for the duty basis".into());
    }
    if basis_param(spec, params) != b {
        j.caveats.push(format!("judged on the baseline's {} basis, not the load_basis this call names", b.word()));
    }
    let share = excluded(&s.keep).max(part.excluded_share.unwrap_or(0.0));
    j.metrics.insert("vav_reheat_valve_gated_excluded_pct".into(), crate::engine::round2(100.0 * share));
    let all = vec![true; frame.len()];
    if let Some(sh) = matched::shift(part.confound_median, col(frame, HW_SUPPLY), &all, 3) {
        j.metrics.insert("water_supply_shift_f".into(), sh);
        let confounded = j.score.drift >= 0.0 && -sh >= params.number(spec, "water_confound");
        j.metrics.insert("vav_reheat_water_confounded".into(), if confounded { 1.0 } else { 0.0 });
        if confounded {
            j.caveats.push(format!("the hot-water supply ran {sh:+.1} °F (colder) over the same windows, which alone needs more valve for the same reheat: part of this creep may be a hot-water reset rather than the coil; check the plant's setpoint"));
        }
    }
    Outcome::Findings(vec![j.finding(spec, &c, &fl, None)])
}

// ---------------------------------------------------------------- the family's roll-up

/// The `vav` family's roll-up. Unlike [`super::families::by_locus`] it reads a damper creep
/// against the starvation flag its finding carries: with the upstream static falling, the creep
/// is the air handler's (locus `upstream`, which never counts as the box's own), else the box's
/// damper authority (`airflow`); a reheat-valve creep is the coil (`reheat`); both box parts at
/// once is `box_wide`. The severity is the worst judged finding's.
pub(super) fn diagnose(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let judged: Vec<(&str, &Finding)> = findings.iter().filter(|(_, f)| f.judged > 0).copied().collect();
    let mut caveats: Vec<String> = findings
        .iter()
        .filter(|(_, f)| f.judged == 0)
        .map(|(d, f)| format!("{d} did not judge: {}", f.summary))
        .collect();
    let get = |id: &str| judged.iter().find(|(d, _)| *d == id).map(|(_, f)| *f);
    let mut causes: Vec<(Severity, &'static str, &'static str)> = Vec::new();
    if let Some(f) = get("vav_airflow_drift").filter(|f| f.severity >= Severity::Warn) {
        if f.metrics.get("vav_upstream_starvation_suspected") == Some(&1.0) {
            causes.push((f.severity, "upstream", "the air handler starves the box of duct static, so its damper opens further for the same airflow: fix the plant, not the box"));
            caveats.push("the damper creep moves with a fall of the upstream duct static: put down to the air handler not holding static; check it before servicing the box".into());
        } else {
            causes.push((f.severity, "airflow", "the box damper is losing authority (actuator or linkage wear)"));
        }
    }
    if let Some(f) = get("vav_reheat_valve_drift").filter(|f| f.severity >= Severity::Warn) {
        causes.push((
            f.severity,
            "reheat",
            "the reheat coil is losing heat transfer (fouling, hot-water starvation, lost valve authority)",
        ));
        if f.metrics.get("vav_reheat_water_confounded") == Some(&1.0) {
            caveats.push("the reheat creep moves with a colder hot-water supply: part of it may be the plant's reset rather than the coil".into());
        }
    }
    causes.sort_by_key(|c| std::cmp::Reverse(c.0));
    let mut loci: Vec<String> = Vec::new();
    for (_, side, _) in &causes {
        if !loci.iter().any(|l| l == side) {
            loci.push(side.to_string());
        }
    }
    let box_sides: Vec<&String> = loci.iter().filter(|l| *l != "upstream").collect();
    let box_wide = box_sides.len() > 1;
    if causes.len() > 1 {
        caveats.push(if loci.iter().any(|l| l == "upstream") {
            "the reheat coil drifts while the damper creep looks plant-side: two problems, not one box fault; treat the plant's static and the coil apart".to_string()
        } else {
            "both of the box's signals drift together: a more specific diagnosis, still a screening one; confirm it on a walkdown".to_string()
        });
    }
    if box_wide {
        caveats.push("the damper and the reheat coil both drift: a cause common to the box, or two faults at once, is likelier than one part".into());
    }
    let locus = if causes.is_empty() {
        "steady".to_string()
    } else if box_wide {
        "box_wide".to_string()
    } else {
        box_sides.first().map_or("upstream".to_string(), |s| s.to_string())
    };
    let severity = judged.iter().map(|(_, f)| f.severity).max().unwrap_or(Severity::Info);
    let summary = if causes.is_empty() {
        format!("{equip}: no {} drift on {} check(s)", family.name, judged.len())
    } else {
        let list: Vec<&str> = causes.iter().map(|c| c.2).collect();
        format!("{equip}: box drift ({}): {}", locus.replace('_', " "), list.join("; "))
    };
    let signals: BTreeMap<String, (Severity, String)> =
        judged.iter().map(|(d, f)| (d.to_string(), (f.severity, f.summary.clone()))).collect();
    Diagnosis {
        family: family.name.into(),
        equip: equip.into(),
        severity,
        locus,
        loci,
        summary,
        signals,
        caveats,
        causes: causes.into_iter().map(|c| c.2.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests;
