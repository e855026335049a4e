//! `reheat_penalty`: a terminal box reheating air that is also cooling, the penalty PNNL's
//! re-tuning guide (chapter 7) has operators look for first. A box has no cooling coil of its
//! own: it cools with the air handler's cold supply air, so reheating it in cooling weather, or
//! reheating primary air that arrives cold, heats what the plant has just cooled.
//!
//! Judged on the occupied samples (the occupancy point, else the schedule; less warm-up and
//! cool-down) with a valve reading; the valve is its measured position when trended (heat that
//! went in), else its command, open above 5 %. The rating reads the share of judged time
//! reheating with the outdoor air above [`COOLING_WEATHER_F`] (the outdoor air carried forward
//! over gaps of up to [`OAT_HOLD_H`] hours); without an outdoor air temperature, the share
//! reheating with the box's entering primary air (`mixed_air_temp` at a terminal) below
//! [`COLD_SUPPLY_F`], else with its discharge (`supply_air_temp` at a terminal) below it, a lower
//! bound since the reheat warms the discharge. A warning from 5 % and a fault from 20 % (fixed,
//! as the reference's). Reported beside it: reheat with the airflow above 1.1 x the box's
//! minimum ([`crate::terminal::min_flow`]; without one, above 1.5 x the 10th percentile of the
//! airflow) and reheat with the zone at or below its cooling setpoint.
//!
//! The valve is checked against the air (with the discharge trended, on steady samples: the
//! valve in the same state as the sample before, the airflow at least a tenth of its 95th
//! percentile). Wide open (90 % or more) with a median rise under 5 °F over the entering air
//! (else over the box's own shut-valve discharge, else a nominal 55 °F primary air), the heat is
//! not reaching the air: the penalty is not rated (info) and its shares are withheld. Shut (5 %
//! or less) with a quarter of its time 10 °F or more above the entering air (without it: above
//! 55 °F, in weather of 70 °F or more only), the valve under-reads the heat: a caveat, and an ok
//! becomes info. Each check needs [`MIN_CHECK_SAMPLES`]. A fan-powered box's own fan warms the
//! air too: `fan_heat_f` raises both bounds by that many °F, or with `"auto"` by the box's median
//! shut-valve rise over its entering air (fan running where a fan status is trended), capped by
//! `box_type`. A demand at full while the position reads shut is a caveat: a stuck valve.
//!
//! Unlike the reference: shares are of the time with a valve reading (each sample weighs the
//! time it stands for), the outdoor air is carried over hours rather than four samples, and the
//! minimum behind "above the minimum airflow" is the shared one, so an `airflow_sp` that moves
//! like the active setpoint is not read as the minimum (which would put almost no reheat above
//! it).

use std::collections::BTreeMap;

use crate::economizer::percentile;
use crate::engine::{
    median, round2, schedule_params, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue,
    Params, Rule, RuleSpec, Severity, NS_PER_HOUR,
};
use crate::terminal::{self, hours, ValveSignal, DIVERGE_SHARE, MIN_CHECK_SAMPLES, REHEAT_OPEN_PCT};

/// Outdoor air above this (°F) is cooling weather: reheat then is the penalty.
pub const COOLING_WEATHER_F: f64 = 65.0;
/// Primary (or discharge) air below this (°F) is cooling the zone.
pub const COLD_SUPPLY_F: f64 = 60.0;
/// The outdoor air is carried over a gap of up to this many hours.
pub const OAT_HOLD_H: f64 = 4.0;
/// The share of judged time (%) reheating in cooling weather (or into cold air) that is a
/// warning ...
pub const WARN_PCT: f64 = 5.0;
/// ... and a fault.
pub const FAULT_PCT: f64 = 20.0;
/// Reheat with the airflow above this multiple of the minimum is reheating cooling air.
pub const ABOVE_MIN: f64 = 1.1;
/// Without a minimum: above this multiple of the airflow's 10th percentile.
pub const ABOVE_FLOOR: f64 = 1.5;
/// A valve at or above this (%) is wide open for the discharge check ...
pub const OPEN_PCT: f64 = 90.0;
/// ... and at or below this (%) shut.
pub const CLOSED_PCT: f64 = 5.0;
/// A wide-open valve whose air rises less than this (°F) delivers no heat: a hot-water coil at
/// full valve lifts its air 15-30 °F at heating airflow and still about 10 °F at full cooling
/// airflow, against 1-3 °F of sensor error and duct and fan gains.
pub const NO_RISE_F: f64 = 5.0;
/// A shut valve whose air rises this much (°F) ...
pub const BIG_RISE_F: f64 = 10.0;
/// ... on this share of its shut time under-reads the heat.
pub const BIG_RISE_SHARE: f64 = 0.25;
/// The primary air assumed without an entering-air reading (°F): a usual design cooling supply
/// and Guideline 36's lowest supply-air setpoint.
pub const NOMINAL_PRIMARY_F: f64 = 55.0;
/// Outdoor air at or above this (°F) puts a reset supply air at its cold end: the shut-valve
/// check against the nominal primary air runs only then.
pub const CLOSED_CHECK_OAT_F: f64 = 70.0;
/// An `"auto"` fan heat is clipped to 0 and this (°F) ...
pub const FAN_HEAT_MAX_F: f64 = 8.0;

/// The caps (°F) on an `"auto"` fan heat for the wide-open check and for the shut check, by box
/// type. A single-duct box has no fan (duct gains and sensor error); a parallel box runs its fan
/// in heating only; a series box's fan always runs and mixes in plenum air, so its wide-open cap
/// is higher, while the shut check keeps 8 °F: the estimate is learned from shut-valve samples,
/// and a higher cap there would learn a passing valve's heat as fan heat.
fn fan_caps(box_type: &str) -> (f64, f64) {
    match box_type {
        "single_duct" => (3.0, 3.0),
        "series" => (10.0, FAN_HEAT_MAX_F),
        _ => (FAN_HEAT_MAX_F, FAN_HEAT_MAX_F),
    }
}

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "reheat_penalty",
        families: &["terminal"],
        inputs: Inputs {
            required: &["heat_valve"],
            optional: &[
                "heat_valve_position",
                "supply_fan_status",
                "oat",
                "space_temp",
                "supply_air_temp",
                "mixed_air_temp",
                "heat_sp",
                "cool_sp",
                "airflow",
                "airflow_sp",
                "airflow_min_sp",
                "damper",
                "warmup",
                "cooldown",
                "occupancy",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: [
            schedule_params().to_vec(),
            vec![
                ParamSpec {
                    name: "fan_heat_f",
                    default: ParamValue::Number(f64::NAN),
                    unit: "°F, or \"auto\"",
                    range: Some((0.0, 8.0)),
                    choices: &["auto"],
                    basis: "a fan-powered box's fan (and a parallel box's plenum air) lifts the discharge over the entering air with the valve shut: on the LBNL fan-powered boxes with the valve stuck shut, 6.0 °F (parallel) and 8.7 °F (series), past the 5 °F no-rise bound, so a valve that gave no heat looked as if it did",
                    calibrate: "Unset (null) for a single-duct box: nothing is added. Otherwise map the entering primary air (mixed_air_temp) and read the discharge minus entering air on hours the valve is shut and the box moves air; set that lift, or \"auto\" to take it per box (the median of at least 12 such samples, fan running where its status is trended, clipped to 0-8 °F or box_type's caps). The value used is the finding's fan_heat_f.",
                },
                ParamSpec {
                    name: "box_type",
                    default: ParamValue::Choice(String::new()),
                    unit: "choice",
                    range: None,
                    choices: &["single_duct", "parallel", "series"],
                    basis: "what lifts a shut-valve discharge depends on the box: nothing but duct gains in a single-duct box (1-3 °F), nothing in cooling in a parallel box (its fan runs in heating only: 0.0 °F on the LBNL fault-free run), plenum air through an always-on fan in a series box (13.7 °F); caps set in-sample on the labelled LBNL runs",
                    calibrate: "Declare it from the box schedule or submittals; it only matters with fan_heat_f \"auto\". Unset caps the estimate at 8 °F on both checks, single_duct at 3 °F, parallel at 8 °F, series at 10 °F on the wide-open check and 8 °F on the shut one. Run each box type of a site separately.",
                },
            ],
        ]
        .concat(),
        judged_basis: "occupied samples with a reheat valve reading",
    }
}

/// Which air temperature judged reheat into cold supply air.
#[derive(Clone, Copy, PartialEq)]
enum ColdBasis {
    /// The entering primary air (`mixed_air_temp` at a terminal).
    Primary,
    /// The discharge (`supply_air_temp` at a terminal): a lower bound.
    Discharge,
}

/// What the discharge-air check found.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Consistency {
    NotChecked,
    Consistent,
    /// Wide open, no rise: the heat does not reach the air.
    OpenNoRise,
    /// Shut, a large rise: the valve under-reads the heat.
    ClosedWithRise,
}

/// The discharge-air check's result and what it measured.
struct RiseCheck {
    consistency: Consistency,
    /// What the wide-open rise was measured over.
    reference: String,
    /// What the shut rise was measured over.
    closed_reference: String,
    entering: bool,
    open_median_rise: Option<f64>,
    closed_big_rise_share: Option<f64>,
    /// The fan heat the wide-open bound allowed for (°F), and the shut one, and the uncapped
    /// `"auto"` estimate.
    fan_open: f64,
    fan_closed: f64,
    fan_lift: Option<f64>,
    /// The fan heat the wide-open bound added: none over the box's own shut-valve discharge,
    /// which already carries it.
    open_allowance: f64,
    /// Whether a fan heat was used (a number, or an `"auto"` estimate).
    fan_used: bool,
}

/// The outdoor air carried forward over gaps of up to [`OAT_HOLD_H`] hours.
fn held_oat(frame: &Frame) -> Option<Vec<f64>> {
    let oat = frame.col("oat")?;
    let hold = (OAT_HOLD_H * NS_PER_HOUR as f64) as i64;
    let mut last: Option<(i64, f64)> = None;
    Some(
        (0..frame.len())
            .map(|i| {
                if !oat[i].is_nan() {
                    last = Some((frame.ts[i], oat[i]));
                }
                match last {
                    Some((t, v)) if frame.ts[i] - t <= hold => v,
                    _ => f64::NAN,
                }
            })
            .collect(),
    )
}

/// The check of the valve against the discharge air (see the module doc).
fn rise_check(
    spec: &RuleSpec,
    frame: &Frame,
    params: &Params,
    valve: &[f64],
    occupied: &[bool],
    oat: Option<&[f64]>,
) -> RiseCheck {
    let mut out = RiseCheck {
        consistency: Consistency::NotChecked,
        reference: String::new(),
        closed_reference: String::new(),
        entering: false,
        open_median_rise: None,
        closed_big_rise_share: None,
        fan_open: 0.0,
        fan_closed: 0.0,
        fan_lift: None,
        open_allowance: 0.0,
        fan_used: false,
    };
    let plausible = |v: f64| v > 30.0 && v < 150.0;
    let Some(dat) = frame.col("supply_air_temp") else {
        return out;
    };
    let n = frame.len();
    let w = frame.weights_hours();
    let flow_ok: Vec<bool> = match frame.col("airflow") {
        Some(a) => {
            let mut seen: Vec<f64> = a.iter().copied().filter(|v| !v.is_nan()).collect();
            seen.sort_by(f64::total_cmp);
            let p95 = percentile(&seen, 95.0);
            // with next to no air through the box its discharge sensor reads the ceiling
            let gated = p95 > 0.0;
            (0..n).map(|i| !gated || a[i] >= 0.1 * p95).collect()
        }
        None => vec![true; n],
    };
    let steady = |i: usize| occupied[i] && plausible(dat[i]) && flow_ok[i];
    let open = |i: usize| valve[i] >= OPEN_PCT;
    let shut = |i: usize| valve[i] <= CLOSED_PCT;
    // the sample after a change of state is left out: the coil and its sensor lag the valve
    let mut open_s: Vec<bool> = (0..n).map(|i| i > 0 && steady(i) && open(i) && open(i - 1)).collect();
    let mut closed_s: Vec<bool> = (0..n).map(|i| i > 0 && steady(i) && shut(i) && shut(i - 1)).collect();
    let entering =
        frame.col("mixed_air_temp").filter(|e| e.iter().filter(|v| plausible(**v)).count() >= MIN_CHECK_SAMPLES);
    let count = |m: &[bool]| m.iter().filter(|x| **x).count();
    let (rise_open, rise_closed): (Vec<f64>, Vec<f64>) = match entering {
        Some(e) => {
            out.entering = true;
            out.reference = "the entering primary air".into();
            out.closed_reference = out.reference.clone();
            for i in 0..n {
                open_s[i] &= plausible(e[i]);
                closed_s[i] &= plausible(e[i]);
            }
            let r: Vec<f64> = (0..n).map(|i| dat[i] - e[i]).collect();
            (r.clone(), r)
        }
        None => {
            let own: Vec<f64> = (0..n).filter(|&i| closed_s[i]).map(|i| dat[i]).collect();
            let base = if own.len() >= MIN_CHECK_SAMPLES {
                out.reference = "its own shut-valve discharge".into();
                median(&mut own.clone())
            } else {
                out.reference = format!("a nominal {NOMINAL_PRIMARY_F} °F primary air");
                NOMINAL_PRIMARY_F
            };
            // the shut check only in cooling weather, where the primary air sits at its cold end
            for (i, c) in closed_s.iter_mut().enumerate() {
                *c &= oat.is_some_and(|o| o[i] >= CLOSED_CHECK_OAT_F);
            }
            out.closed_reference =
                format!("a nominal {NOMINAL_PRIMARY_F} °F primary air (outdoor air {CLOSED_CHECK_OAT_F} °F or more)");
            (dat.iter().map(|d| d - base).collect(), dat.iter().map(|d| d - NOMINAL_PRIMARY_F).collect())
        }
    };
    // a fan-powered box's own fan heat
    let (fan_open, fan_closed) = match params.word(spec, "fan_heat_f") {
        Some(_) if out.entering => {
            let fan = frame.col("supply_fan_status");
            let mut lift: Vec<f64> = (0..n)
                .filter(|&i| closed_s[i] && !rise_closed[i].is_nan() && fan.is_none_or(|f| f[i] > 0.5))
                .map(|i| rise_closed[i])
                .collect();
            if lift.len() >= MIN_CHECK_SAMPLES {
                let l = median(&mut lift);
                out.fan_lift = Some(l);
                out.fan_used = true;
                let (cap_open, cap_closed) = fan_caps(&params.choice(spec, "box_type"));
                (l.clamp(0.0, cap_open), l.clamp(0.0, cap_closed))
            } else {
                (0.0, 0.0)
            }
        }
        Some(_) => (0.0, 0.0),
        None => {
            let f = params.number(spec, "fan_heat_f");
            out.fan_used = !f.is_nan();
            if f.is_nan() {
                (0.0, 0.0)
            } else {
                (f, f)
            }
        }
    };
    (out.fan_open, out.fan_closed) = (fan_open, fan_closed);
    // the box's own shut-valve discharge already carries its fan's heat
    let own_discharge = !out.entering && out.reference.starts_with("its own");
    out.open_allowance = if own_discharge { 0.0 } else { fan_open };
    let mut checked = false;
    if count(&open_s) >= MIN_CHECK_SAMPLES {
        checked = true;
        let mut r: Vec<f64> = (0..n).filter(|&i| open_s[i]).map(|i| rise_open[i]).collect();
        let m = median(&mut r);
        out.open_median_rise = Some(m);
        if m < NO_RISE_F + out.open_allowance {
            out.consistency = Consistency::OpenNoRise;
            return out;
        }
    }
    if count(&closed_s) >= MIN_CHECK_SAMPLES {
        checked = true;
        let total = hours(&w, |i| closed_s[i]);
        let big = hours(&w, |i| closed_s[i] && rise_closed[i] >= BIG_RISE_F + fan_closed);
        let share = if total > 0.0 { big / total } else { 0.0 };
        out.closed_big_rise_share = Some(share);
        if share >= BIG_RISE_SHARE {
            out.consistency = Consistency::ClosedWithRise;
            return out;
        }
    }
    if checked {
        out.consistency = Consistency::Consistent;
    }
    out
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let Some((valve, signal)) = terminal::delivered_valve(frame) else {
        return Outcome::Skipped { missing: vec!["heat_valve".into()] };
    };
    let occupied = terminal::occupied(spec, frame, params, &["warmup", "cooldown"]);
    let n = frame.len();
    let judged: Vec<bool> = (0..n).map(|i| occupied[i] && !valve[i].is_nan()).collect();
    let w = frame.weights_hours();
    let judged_n = judged.iter().filter(|j| **j).count();
    let judged_h = hours(&w, |i| judged[i]);
    if judged_n == 0 || judged_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no occupied sample with a reheat valve reading")]);
    }
    let open = |i: usize| judged[i] && valve[i] > REHEAT_OPEN_PCT;
    let oat = held_oat(frame);
    let cold = match (frame.col("mixed_air_temp"), frame.col("supply_air_temp")) {
        (Some(p), _) => Some((p, ColdBasis::Primary)),
        (None, Some(d)) => Some((d, ColdBasis::Discharge)),
        _ => None,
    };
    let pick =
        |f: &dyn Fn(usize) -> bool| -> Vec<u32> { (0..n).filter(|&i| open(i) && f(i)).map(|i| i as u32).collect() };
    let high_oat: Option<Vec<u32>> = oat.as_ref().map(|o| pick(&|i| o[i] > COOLING_WEATHER_F));
    let cold_supply: Option<Vec<u32>> = cold.map(|(t, _)| pick(&|i| t[i] < COLD_SUPPLY_F));
    let flow = frame.col("airflow");
    let above_min: Option<Vec<u32>> = flow.map(|a| match terminal::min_flow(frame, &occupied) {
        Some(m) => pick(&|i| a[i] > ABOVE_MIN * m.at[i]),
        None => {
            let mut seen: Vec<f64> = (0..n).filter(|&i| judged[i] && !a[i].is_nan()).map(|i| a[i]).collect();
            seen.sort_by(f64::total_cmp);
            let floor = percentile(&seen, 10.0);
            pick(&|i| a[i] > ABOVE_FLOOR * floor)
        }
    });
    let below_cool: Option<Vec<u32>> = match (frame.col("space_temp"), frame.col("cool_sp")) {
        (Some(z), Some(c)) => Some(pick(&|i| z[i] <= c[i])),
        _ => None,
    };
    let sum = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let pct = |h: f64| 100.0 * h / judged_h;
    let open_h = hours(&w, open);
    let open_pct = pct(open_h);
    let mean_open =
        if open_h > 0.0 { (0..n).filter(|&i| open(i)).map(|i| w[i] * valve[i]).sum::<f64>() / open_h } else { 0.0 };

    let check = rise_check(spec, frame, params, valve, &occupied, oat.as_deref());
    let divergence = terminal::valve_divergence(frame, &occupied);
    let mut metrics = BTreeMap::new();
    metrics.insert("judged_hours".into(), round2(judged_h));
    if let Some(r) = check.open_median_rise {
        metrics.insert("open_median_rise_f".into(), round2(r));
    }
    if let Some(s) = check.closed_big_rise_share {
        metrics.insert("closed_big_rise_share".into(), (s * 1000.0).round() / 1000.0);
    }
    if check.fan_used {
        metrics.insert("fan_heat_f".into(), round2(check.fan_open));
        metrics.insert("fan_heat_closed_f".into(), round2(check.fan_closed));
    }
    if let Some(l) = check.fan_lift {
        metrics.insert("fan_lift_f".into(), round2(l));
    }
    if let Some(s) = divergence {
        metrics.insert("valve_divergence_share".into(), (s * 1000.0).round() / 1000.0);
    }
    let mut caveats = Vec::new();
    if frame.col("occupancy").is_none() {
        caveats.push(terminal::schedule_caveat(spec, params));
    }
    let diverges = divergence.filter(|s| *s >= DIVERGE_SHARE);
    let valve_name = if signal == ValveSignal::Position { "reheat valve (measured position)" } else { "reheat valve" };

    if check.consistency == Consistency::OpenNoRise {
        // the valve's reading is not corroborated by the air: nothing is counted on it
        let rise = check.open_median_rise.unwrap_or(f64::NAN);
        let bound = NO_RISE_F + check.open_allowance;
        let fan = if check.open_allowance > 0.0 {
            format!(", allowing {} °F of fan heat", round2(check.open_allowance))
        } else {
            String::new()
        };
        metrics.insert("reported_valve_open_pct".into(), round2(open_pct));
        caveats.push(format!(
            "the {valve_name} reads {OPEN_PCT}% or more open while the discharge air rises a median {rise:.1} °F over {}: a working coil at full valve lifts its air well over 10 °F, so the valve is not corroborated (no hot water, a failed actuator, an inverted or mis-mapped point); check the valve before counting reheat{}",
            check.reference,
            if check.entering { "" } else { " (without the entering primary air, mapped as mixed_air_temp, the reference is less certain)" }
        ));
        if let Some(s) = diverges {
            caveats.push(terminal::divergence_caveat(s));
        }
        let summary = format!(
            "not rated: the {valve_name} reads {OPEN_PCT}% or more open but the discharge air rises only {rise:+.1} °F over {} (under {bound} °F{fan}), so its reheat is not counted",
            check.reference
        );
        return Outcome::Findings(vec![Finding::new(spec, Severity::Info, summary)
            .with_caveats(caveats)
            .with_metrics(metrics)
            .with_judged(judged_n)]);
    }

    let share = |idx: &Option<Vec<u32>>| idx.as_ref().map(|v| pct(sum(v)));
    let (high_pct, mut cold_pct) = (share(&high_oat), share(&cold_supply));
    let headline = high_pct.or(cold_pct);
    let mut severity = severity_of(headline.unwrap_or(0.0), WARN_PCT, FAULT_PCT);
    match cold.map(|(_, b)| b) {
        Some(ColdBasis::Discharge) => {
            caveats.push(
                "reheat into cold air is judged on supply_air_temp, which at a box is its discharge, after the reheat coil: the reheat warms it, so the overlap is under-counted (map the entering primary air as mixed_air_temp)"
                    .to_string(),
            );
            if oat.is_none() && severity == Severity::Ok {
                severity = Severity::Info;
                cold_pct = None;
            }
        }
        None if oat.is_none() => {
            caveats.push(
                "no outdoor air temperature and no primary or discharge air temperature: the reheat penalty was not judged".to_string(),
            );
            severity = severity.max(Severity::Info);
        }
        _ => {}
    }
    if check.consistency == Consistency::ClosedWithRise {
        caveats.push(format!(
            "the {valve_name} reads shut ({CLOSED_PCT}% or less) on {:.0}% of its shut time while the discharge air is {BIG_RISE_F} °F or more above {}: the valve under-reads the heat (a passing valve, an inverted or mis-mapped point), so reheat is likely under-counted",
            100.0 * check.closed_big_rise_share.unwrap_or(0.0),
            check.closed_reference
        ));
        if severity == Severity::Ok {
            severity = Severity::Info;
        }
    }
    if let Some(s) = diverges {
        caveats.push(terminal::divergence_caveat(s));
    }
    metrics.insert("valve_open_pct".into(), round2(open_pct));
    metrics.insert("mean_valve_open_pct".into(), (mean_open * 10.0).round() / 10.0);
    for (name, v) in [
        ("reheat_high_oat_pct", high_pct),
        ("reheat_cold_supply_pct", cold_pct),
        ("reheat_above_min_pct", share(&above_min)),
        ("reheat_below_cool_sp_pct", share(&below_cool)),
    ] {
        if let Some(v) = v {
            metrics.insert(name.into(), round2(v));
        }
    }
    let penalty = match (high_pct, cold_pct, cold.map(|(_, b)| b)) {
        (Some(h), _, _) => {
            format!("{h:.1}% of the time with the outdoor air above {COOLING_WEATHER_F} °F (reheat in cooling weather)")
        }
        (None, Some(c), Some(ColdBasis::Primary)) => {
            format!("{c:.1}% of the time into primary air below {COLD_SUPPLY_F} °F")
        }
        (None, Some(c), _) => {
            format!("{c:.1}% of the time with its discharge below {COLD_SUPPLY_F} °F (a lower bound)")
        }
        (None, None, Some(_)) => format!(
            "its discharge below {COLD_SUPPLY_F} °F on {:.1}% of the time, which says little: the reheat warms it",
            share(&cold_supply).unwrap_or(0.0)
        ),
        _ => "no outdoor or supply air temperature to judge the penalty by".to_string(),
    };
    let mut extra = Vec::new();
    if let Some(v) = share(&above_min) {
        extra.push(format!("above its minimum airflow {v:.1}%"));
    }
    if let Some(v) = share(&below_cool) {
        extra.push(format!("with the zone at or below its cooling setpoint {v:.1}%"));
    }
    let extra = if extra.is_empty() { String::new() } else { format!("; reheating {}", extra.join(", ")) };
    let summary = format!("{valve_name} open on {open_pct:.1}% of {judged_h:.1} occupied h; {penalty}{extra}");
    let flagged = match (&high_oat, &cold_supply) {
        (Some(h), _) => h.clone(),
        (None, Some(c)) if cold_pct.is_some() => c.clone(),
        _ => Vec::new(),
    };
    let conditions: Vec<Condition> = [
        ("reheat_in_cooling_weather", high_oat),
        ("reheat_into_cold_air", cold_supply),
        ("reheat_above_min_flow", above_min),
        ("reheat_below_cool_sp", below_cool),
    ]
    .into_iter()
    .filter_map(|(name, idx)| {
        idx.map(|idx| Condition {
            name: name.into(),
            flagged_hours: sum(&idx),
            flagged: idx,
            judged: judged_n,
            judged_hours: judged_h,
        })
    })
    .collect();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged_n)
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// `n` occupied hourly samples of a box with its valve at `valve(i)` and the outdoor air at
    /// `oat(i)`.
    fn box_frame(n: usize, valve: impl Fn(usize) -> f64, oat: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("heat_valve", (0..n).map(valve).collect()),
                ("oat", (0..n).map(oat).collect()),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// 40 samples in 75 °F weather, the valve open on the first `k`.
    fn warm(k: usize) -> Frame {
        box_frame(40, |i| if i < k { 40.0 } else { 0.0 }, |_| 75.0)
    }

    /// 40 samples of a box with its discharge at `dat(i)` over an entering air of 55 °F, the
    /// valve at `valve(i)`, in 60 °F weather.
    fn with_air(valve: impl Fn(usize) -> f64, dat: impl Fn(usize) -> f64) -> Frame {
        let mut f = box_frame(40, valve, |_| 60.0);
        f.cols.insert("mixed_air_temp".into(), vec![55.0; 40]);
        f.cols.insert("supply_air_temp".into(), (0..40).map(dat).collect());
        f
    }

    #[test]
    fn reheat_in_heating_weather_is_ok() {
        // open a quarter of the time, always in cool weather
        let f = box_frame(40, |i| if i % 4 == 0 { 60.0 } else { 0.0 }, |i| if i % 4 == 0 { 50.0 } else { 70.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(
            (r.severity, r.metrics["valve_open_pct"], r.metrics["reheat_high_oat_pct"]),
            (Severity::Ok, 25.0, 0.0)
        );
        assert_eq!(r.metrics["mean_valve_open_pct"], 60.0);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn reheat_in_cooling_weather_or_into_cold_air_is_a_fault() {
        let r = run(&RULE, &warm(40), &Params::default());
        assert_eq!((r.severity, r.metrics["reheat_high_oat_pct"], r.flagged.len()), (Severity::Fault, 100.0, 40));
        assert!(r.summary.contains("100.0% of the time with the outdoor air above 65 °F"), "{}", r.summary);
        // no outdoor air: the entering primary air
        let mut f = warm(40);
        f.cols.remove("oat");
        f.cols.insert("mixed_air_temp".into(), vec![55.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["reheat_cold_supply_pct"]), (Severity::Fault, 100.0));
        assert!(r.summary.contains("into primary air below 60 °F"), "{}", r.summary);
        // the discharge only: a lower bound, said so; clean on it is not a pass
        let d = f.cols.remove("mixed_air_temp").unwrap();
        f.cols.insert("supply_air_temp".into(), d);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("under-counted")), "{:?}", r.caveats);
        f.cols.insert("supply_air_temp".into(), vec![75.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(!r.metrics.contains_key("reheat_cold_supply_pct"));
        assert!(r.summary.contains("which says little"), "{}", r.summary);
        // nothing to judge the penalty by
        f.cols.remove("supply_air_temp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(r.caveats.iter().any(|c| c.contains("not judged")), "{:?}", r.caveats);
    }

    #[test]
    fn the_thresholds_and_shares_at_their_boundaries() {
        let sev = |k: usize| run(&RULE, &warm(k), &Params::default()).severity;
        // of 40 samples: 2 is 5 % (warn), 8 is 20 % (fault)
        assert_eq!((sev(1), sev(2), sev(7), sev(8)), (Severity::Ok, Severity::Warn, Severity::Warn, Severity::Fault));
        let flagged =
            |valve: f64, oat: f64| run(&RULE, &box_frame(10, |_| valve, |_| oat), &Params::default()).flagged.len();
        assert_eq!((flagged(40.0, 65.0), flagged(40.0, 65.1)), (0, 10));
        assert_eq!((flagged(5.0, 75.0), flagged(5.1, 75.0)), (0, 10));
        // cold primary air is below 60 °F
        let cold = |t: f64| {
            let mut f = box_frame(10, |_| 40.0, |_| f64::NAN);
            f.cols.remove("oat");
            f.cols.insert("mixed_air_temp".into(), vec![t; 10]);
            run(&RULE, &f, &Params::default()).flagged.len()
        };
        assert_eq!((cold(60.0), cold(59.9)), (0, 10));
        // above the minimum: 1.1 x airflow_min_sp, else 1.5 x the airflow's 10th percentile
        let mut f = warm(40);
        f.cols.insert("airflow_min_sp".into(), vec![300.0; 40]);
        f.cols.insert("airflow".into(), (0..40).map(|i| if i < 10 { 331.0 } else { 330.0 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["reheat_above_min_pct"], 25.0);
        f.cols.remove("airflow_min_sp");
        f.cols.insert("airflow".into(), (0..40).map(|i| if i < 10 { 451.0 } else { 300.0 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["reheat_above_min_pct"], 25.0);
        // the zone at or below its cooling setpoint
        f.cols.insert("space_temp".into(), (0..40).map(|i| if i < 30 { 74.0 } else { 74.1 }).collect());
        f.cols.insert("cool_sp".into(), vec![74.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["reheat_below_cool_sp_pct"], 75.0);
    }

    #[test]
    fn the_outdoor_air_is_carried_over_short_gaps() {
        // read every fifth hour: held four hours, so every sample has it
        let f = box_frame(40, |_| 40.0, |i| if i % 5 == 0 { 75.0 } else { f64::NAN });
        assert_eq!(run(&RULE, &f, &Params::default()).flagged.len(), 40);
        // read every sixth: the fifth hour after a reading has none
        let g = box_frame(42, |_| 40.0, |i| if i % 6 == 0 { 75.0 } else { f64::NAN });
        assert_eq!(run(&RULE, &g, &Params::default()).flagged.len(), 35);
    }

    #[test]
    fn a_wide_open_valve_that_does_not_warm_the_air_is_not_rated() {
        // 2 °F over the entering air at full valve: no heat goes in
        let f = with_air(|i| if i < 20 { 100.0 } else { 0.0 }, |i| if i < 20 { 57.0 } else { 55.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["open_median_rise_f"]), (Severity::Info, 2.0));
        assert!(r.summary.starts_with("not rated"), "{}", r.summary);
        assert!(!r.metrics.contains_key("valve_open_pct") && r.metrics["reported_valve_open_pct"] == 50.0);
        // 5 °F is a rise
        let f = with_air(|i| if i < 20 { 100.0 } else { 0.0 }, |i| if i < 20 { 60.0 } else { 55.0 });
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // fan heat raises the bound: 5 °F with 1 °F of fan heat is no rise
        let r = run(&RULE, &f, &numbers(&[("fan_heat_f", 1.0)]));
        assert_eq!((r.severity, r.metrics["fan_heat_f"]), (Severity::Info, 1.0));
        assert!(r.summary.contains("allowing 1 °F of fan heat"), "{}", r.summary);
        // without the entering air, against the box's own shut-valve discharge (58 °F)
        let mut g = with_air(|i| if i < 20 { 100.0 } else { 0.0 }, |i| if i < 20 { 62.0 } else { 58.0 });
        g.cols.remove("mixed_air_temp");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.metrics["open_median_rise_f"]), (Severity::Info, 4.0));
        assert!(r.caveats.iter().any(|c| c.contains("less certain")), "{:?}", r.caveats);
    }

    #[test]
    fn a_fan_powered_box_s_own_heat_is_estimated_and_capped_by_box_type() {
        // shut: 6 °F over the entering air (the fan); open: 10 °F
        let f = with_air(|i| if i < 20 { 100.0 } else { 0.0 }, |i| if i < 20 { 65.0 } else { 61.0 });
        let auto = with(&[("fan_heat_f", ParamValue::Choice("auto".into()))]);
        let r = run(&RULE, &f, &auto);
        assert_eq!((r.severity, r.metrics["fan_lift_f"], r.metrics["fan_heat_f"]), (Severity::Info, 6.0, 6.0));
        // a single-duct box has no fan: at most 3 °F, so 10 °F is a rise
        let single = with(&[
            ("fan_heat_f", ParamValue::Choice("auto".into())),
            ("box_type", ParamValue::Choice("single_duct".into())),
        ]);
        let r = run(&RULE, &f, &single);
        assert_eq!((r.severity, r.metrics["fan_heat_f"], r.metrics["fan_heat_closed_f"]), (Severity::Ok, 3.0, 3.0));
        // a series box: 10 °F on the open check, 8 on the shut one
        let mut g = with_air(|i| if i < 20 { 100.0 } else { 0.0 }, |i| if i < 20 { 70.0 } else { 64.0 });
        let series = with(&[
            ("fan_heat_f", ParamValue::Choice("auto".into())),
            ("box_type", ParamValue::Choice("series".into())),
        ]);
        let r = run(&RULE, &g, &series);
        assert_eq!((r.metrics["fan_heat_f"], r.metrics["fan_heat_closed_f"]), (9.0, 8.0));
        // no entering air: nothing estimated
        g.cols.remove("mixed_air_temp");
        assert!(!run(&RULE, &g, &auto).metrics.contains_key("fan_heat_f"));
    }

    #[test]
    fn a_shut_valve_with_warm_air_under_reads_the_heat() {
        // shut, 12 °F over the entering air on about half the time (19 of the 39 samples after
        // the first, which has no sample before it to be steady against): a passing valve
        let f = with_air(|_| 0.0, |i| if i % 2 == 0 { 67.0 } else { 55.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["closed_big_rise_share"]), (Severity::Info, 0.487));
        assert!(r.caveats.iter().any(|c| c.contains("under-reads the heat")), "{:?}", r.caveats);
        // on a quarter less one sample: consistent
        let f = with_air(|_| 0.0, |i| if i % 4 == 0 && i > 0 { 67.0 } else { 55.0 });
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // without the entering air, only in weather of 70 °F or more, against 55 °F
        let mut g = with_air(|_| 0.0, |i| if i % 2 == 0 { 67.0 } else { 55.0 });
        g.cols.remove("mixed_air_temp");
        assert!(!run(&RULE, &g, &Params::default()).metrics.contains_key("closed_big_rise_share"));
        g.cols.insert("oat".into(), vec![70.0; 40]);
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["closed_big_rise_share"], 0.487);
    }

    #[test]
    fn the_measured_position_says_whether_heat_went_in() {
        let mut f = warm(40);
        f.cols.insert("heat_valve".into(), vec![100.0; 40]);
        f.cols.insert("heat_valve_position".into(), vec![0.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["valve_divergence_share"]), (Severity::Ok, 1.0));
        assert!(r.caveats.iter().any(|c| c.contains("stuck or failed valve")), "{:?}", r.caveats);
        f.cols.insert("heat_valve_position".into(), vec![40.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.summary.starts_with("reheat valve (measured position) open"), "{}", r.summary);
    }

    #[test]
    fn unoccupied_warm_up_and_cool_down_samples_are_not_judged() {
        let mut f = warm(40);
        f.cols.insert("occupancy".into(), (0..40).map(|i| if i < 36 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.severity), (4, Severity::Fault));
        let mut g = warm(40);
        g.cols.insert("warmup".into(), (0..40).map(|i| if i < 20 { 1.0 } else { 0.0 }).collect());
        g.cols.insert("cooldown".into(), (0..40).map(|i| if i >= 30 { 1.0 } else { 0.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).judged, 10);
        let mut h = warm(40);
        h.cols.remove("occupancy");
        let r = run(&RULE, &h, &Params::default());
        assert_eq!(r.judged, 20);
        assert!(r.caveats[0].contains("no occupancy point"), "{:?}", r.caveats);
        h.cols.insert("occupancy".into(), vec![0.0; 40]);
        assert_eq!(run(&RULE, &h, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..6).map(|i| MONDAY + 4 * H + i * H));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("heat_valve", vec![40.0; n]),
                ("oat", (0..n).map(|i| if i >= 24 { 75.0 } else { 50.0 }).collect()),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[24..].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["reheat_high_oat_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        assert_eq!(r.severity, severity_of(expect, WARN_PCT, FAULT_PCT));
        let keep: Vec<usize> = (0..72).filter(|i| i / 24 != 1).collect();
        let g = box_frame(72, |_| 40.0, |_| 50.0);
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["judged_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let transitions = with_air(|i| if (i / 3) % 2 == 0 { 100.0 } else { 0.0 }, |i| 55.0 + (i % 7) as f64 * 3.0);
        for f in [warm(10), warm(0), transitions] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("oat", vec![75.0; 3]), ("heat_valve_position", vec![40.0; 3])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["heat_valve".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        assert_eq!(run(&RULE, &box_frame(1, |_| 40.0, |_| 75.0), &Params::default()).severity, Severity::Fault);
        let nan = Frame::from_rows(
            &ts,
            &[("heat_valve", vec![40.0, f64::NAN, f64::NAN]), ("occupancy", vec![0.0, 1.0, 1.0])],
        );
        assert_eq!(run(&RULE, &nan, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn a_config_written_for_the_reference_sets_auto_and_an_unset_box_type() {
        let s = spec();
        let obj = serde_json::json!({"fan_heat_f": "auto", "box_type": null});
        let p = crate::config::params_from_json(&s, obj.as_object().unwrap()).unwrap();
        assert_eq!(p.word(&s, "fan_heat_f").as_deref(), Some("auto"));
        assert_eq!(p.choice(&s, "box_type"), "");
        let p = crate::config::params_from_json(
            &s,
            serde_json::json!({"fan_heat_f": 2.5, "box_type": "series"}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!((p.word(&s, "fan_heat_f"), p.number(&s, "fan_heat_f")), (None, 2.5));
        for bad in [serde_json::json!({"fan_heat_f": "high"}), serde_json::json!({"box_type": "dual_duct"})] {
            assert!(crate::config::params_from_json(&s, bad.as_object().unwrap()).is_err(), "{bad}");
        }
        assert_eq!(ParamValue::Choice(String::new()).to_json(), serde_json::Value::Null);
    }
}
