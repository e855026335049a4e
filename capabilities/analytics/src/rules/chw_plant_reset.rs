//! `chw_plant_reset`: a chilled-water plant that holds its supply temperature low at part load
//! instead of resetting it (each °F the supply could rise saves a chiller about 1-2 %), or that
//! runs at a low loop delta-T (low-delta-T syndrome: a lot of water moved for little heat). Read
//! over the occupied weekday hours (07:00-18:00) that the plant runs
//! ([`crate::chiller::plant_running`]; only readings outside 30-80 °F dropped), or, with no run
//! signal, while the supply sits at 38-58 °F (a weaker proxy, caveated). The reset is the slope of
//! the supply on the outdoor temperature (least squares weighed by time, at least ten samples): a
//! slope under 0.05 °F/°F is flat, and one the other way from `expected_reset_sign` is no reset
//! either (a plant that cannot hold its supply in hot weather, or a reversed schedule); either
//! warns. The loop delta-T (return minus supply, -2 to 40 °F) below `design_deltaT_min_f` for a
//! fifth of the running time warns, for half of it faults; on a constant-flow plant (declared, or
//! with `flow_mode` "auto" a chilled-water flow varying by at most `constant_flow_cv` over at
//! least 24 samples) a low delta-T at part load is by design, so it is reported and not judged.
//! Without an outdoor temperature the reset is not evaluated (never a confident "no reset"),
//! without a return temperature the delta-T.
//!
//! Unlike the reference, shares, medians and the slope are of time (each sample weighs the time
//! it stands for), and a power gate reads the 95th percentile of the samples drawing power.

use std::collections::BTreeMap;

use crate::chiller::{plant_running, TEMPERATURE_GATE_CAVEAT};
use crate::engine::{
    assumed_occupied, round2, severity_of, weighted_quantile, Condition, Finding, Frame, Inputs, Outcome, ParamSpec,
    ParamValue, Params, Rule, RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// A slope of the supply on outdoor temperature under this (°F/°F) is flat.
const RESET_SLOPE_FLAT: f64 = 0.05;
/// A supply at or below this (°F) is held low.
const CHWST_LOW_F: f64 = 46.0;
/// Shares of running time at a low delta-T (%) that warn and that fault.
const LOW_DT_WARN_PCT: f64 = 20.0;
const LOW_DT_FAULT_PCT: f64 = 50.0;
/// Fewest samples a slope is fitted on, and with a flow reading that `flow_mode` "auto" reads.
const MIN_SLOPE_SAMPLES: usize = 10;
const MIN_FLOW_SAMPLES: usize = 24;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chw_plant_reset",
        families: &["chw_plant"],
        inputs: Inputs {
            required: &["chw_supply_temp"],
            optional: &[
                "chw_return_temp",
                "chw_supply_temp_sp",
                "oat",
                "compressor_status",
                "power",
                "chw_flow",
                "pump_status",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "design_deltaT_min_f",
                8.0,
                "°F",
                (3.0, 20.0),
                "the low-delta-T threshold of the PNNL re-tuning guide (about 8 °F); design loops run 10-16 °F",
                "Read the loop's design delta-T from the chiller or coil schedules and set this a little below it, or take the 10th percentile of the delta-T over a known-good loaded season. Do not tune it on the period being judged.",
            ),
            ParamSpec {
                name: "expected_reset_sign",
                default: ParamValue::Choice("negative".into()),
                unit: "choice",
                range: None,
                choices: &["negative", "positive", "any"],
                basis: "an outdoor-air reset lowers the supply as the weather warms: a negative slope on outdoor temperature",
                calibrate: "Read the reset schedule in the sequence of operations: \"positive\" for a plant that raises its supply in hot weather on purpose, \"any\" to accept either direction.",
            },
            ParamSpec {
                name: "flow_mode",
                default: ParamValue::Choice("auto".into()),
                unit: "choice",
                range: None,
                choices: &["auto", "constant", "variable"],
                basis: "a constant-primary-flow plant moves the same water at every load, so its delta-T is low at part load by design: it is judged on variable flow only",
                calibrate: "Declare \"constant\" or \"variable\" from the pumping design; \"auto\" reads the chilled-water flow (chw_flow) over the judged samples and needs at least 24 of them (without a flow the delta-T is judged).",
            },
            ParamSpec::number(
                "constant_flow_cv",
                0.05,
                "fraction (standard deviation / mean)",
                (0.01, 0.2),
                "a constant-speed primary pump's flow varies well under 5 %; a variable-flow loop's by tens of percent",
                "Compute the flow's coefficient of variation over the running hours of a known period: near zero on constant flow, well above this on variable flow. Used only with flow_mode \"auto\".",
            ),
        ],
        judged_basis: "occupied weekday samples the plant runs",
    }
}

/// The least-squares slope of y on x weighed by `w`; `None` when x does not vary.
fn weighted_slope(pts: &[(f64, f64, f64)]) -> Option<f64> {
    let sw: f64 = pts.iter().map(|p| p.2).sum();
    if pts.len() < MIN_SLOPE_SAMPLES || sw <= 0.0 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0 * p.2).sum::<f64>() / sw;
    let my = pts.iter().map(|p| p.1 * p.2).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 1e-12 * sw).then(|| sxy / sxx)
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let sup = frame.required("chw_supply_temp");
    let (ret, oat, flow) = (frame.col("chw_return_temp"), frame.col("oat"), frame.col("chw_flow"));
    let weights = frame.weights_hours();
    let mut caveats = Vec::new();
    let gate = plant_running(frame);
    if let Some(r) = &gate {
        caveats.extend(r.source.caveat().map(str::to_string));
        if !r.on.iter().any(|x| *x) {
            let mut f = Finding::not_judged(spec, &format!("the plant never ran ({} gate)", r.source.name()));
            f.caveats = caveats;
            return Outcome::Findings(vec![f]);
        }
    } else {
        caveats.push(TEMPERATURE_GATE_CAVEAT.to_string());
    }
    let idx: Vec<usize> = (0..frame.len())
        .filter(|&i| assumed_occupied(frame.ts[i]))
        .filter(|&i| match &gate {
            Some(r) => r.on[i] && (30.0..=80.0).contains(&sup[i]),
            None => (38.0..=58.0).contains(&sup[i]),
        })
        .collect();
    if idx.is_empty() {
        let mut f = Finding::not_judged(spec, "the plant never ran in occupied weekday hours (07:00-18:00)");
        f.caveats = caveats;
        return Outcome::Findings(vec![f]);
    }
    let hours: f64 = idx.iter().map(|&i| weights[i]).sum();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let share = |set: &[usize]| 100.0 * set.iter().map(|&i| weights[i]).sum::<f64>() / hours + 0.0;
    let mut sup_w: Vec<(f64, f64)> = idx.iter().map(|&i| (sup[i], weights[i])).collect();
    let chwst = weighted_quantile(&mut sup_w, 0.5);
    let held_low: Vec<usize> = idx.iter().copied().filter(|&i| sup[i] <= CHWST_LOW_F).collect();
    // the reset: the supply's slope on outdoor temperature
    let slope = oat.and_then(|o| {
        let pts: Vec<(f64, f64, f64)> =
            idx.iter().filter(|&&i| !o[i].is_nan()).map(|&i| (o[i], sup[i], weights[i])).collect();
        weighted_slope(&pts)
    });
    let sign = params.choice(spec, "expected_reset_sign");
    let (reset, direction) = match slope {
        None => (None, "not evaluated"),
        Some(s) if s.abs() < RESET_SLOPE_FLAT => (Some(false), "flat"),
        Some(s) if sign == "any" || (sign == "negative") == (s < 0.0) => (Some(true), "expected"),
        Some(_) => (Some(false), "reverse"),
    };
    match (slope, direction) {
        (None, _) => caveats.push("the reset was not evaluated: no outdoor temperature with ten or more running samples (map oat, or give the run config a shared_oat)".into()),
        (Some(s), "reverse") => caveats.push(format!("the supply moves the wrong way with outdoor temperature (slope {s:+.2} °F/°F, expected {sign}): not a reset; a plant that cannot hold its supply in hot weather, or a reversed schedule")),
        _ => {}
    }
    // the delta-T
    let dts: Vec<(usize, f64)> = match ret {
        Some(r) => idx.iter().map(|&i| (i, r[i] - sup[i])).filter(|(_, d)| (-2.0..=40.0).contains(d)).collect(),
        None => Vec::new(),
    };
    let dt_min = params.number(spec, "design_deltaT_min_f");
    let dt_evaluated = !dts.is_empty();
    // a hair of tolerance: a difference of two decimals stored in binary
    let low_dt: Vec<usize> = dts.iter().filter(|(_, d)| *d + 1e-9 < dt_min).map(|p| p.0).collect();
    let dt_hours: f64 = dts.iter().map(|&(i, _)| weights[i]).sum();
    let low_dt_pct = if dt_hours > 0.0 {
        100.0 * low_dt.iter().map(|&i| weights[i]).sum::<f64>() / dt_hours + 0.0
    } else {
        f64::NAN
    };
    let dt_median = weighted_quantile(&mut dts.iter().map(|&(i, d)| (d, weights[i])).collect(), 0.5);
    if !dt_evaluated {
        caveats.push("the loop delta-T was not evaluated: no chilled-water return temperature".into());
    }
    // the flow's shape over the judged samples
    let flows: Vec<(f64, f64)> = match flow {
        Some(q) => idx.iter().filter(|&&i| !q[i].is_nan()).map(|&i| (q[i], weights[i])).collect(),
        None => Vec::new(),
    };
    let fw: f64 = flows.iter().map(|p| p.1).sum();
    let cv = (fw > 0.0)
        .then(|| {
            let mean = flows.iter().map(|p| p.0 * p.1).sum::<f64>() / fw;
            let var = flows.iter().map(|p| p.1 * (p.0 - mean) * (p.0 - mean)).sum::<f64>() / fw;
            (mean > 0.0).then(|| var.sqrt() / mean)
        })
        .flatten();
    let declared = params.choice(spec, "flow_mode");
    let flow_mode = match declared.as_str() {
        "auto" => match cv {
            Some(c) if flows.len() >= MIN_FLOW_SAMPLES => {
                if c <= params.number(spec, "constant_flow_cv") + 1e-12 {
                    "constant"
                } else {
                    "variable"
                }
            }
            _ => "unknown",
        },
        other => {
            if other == "constant" {
                "constant"
            } else {
                "variable"
            }
        }
    };
    let constant = flow_mode == "constant";
    if constant && dt_evaluated {
        let how = match (declared.as_str(), cv) {
            ("auto", Some(c)) => format!("the chilled-water flow varies by {:.2} % over the running hours", 100.0 * c),
            _ => "declared constant flow (flow_mode)".to_string(),
        };
        caveats.push(format!(
            "constant primary flow ({how}): a low loop delta-T at part load is expected by design, so it is reported and not judged"
        ));
    }
    let judged_dt = dt_evaluated && !constant;
    let low = if judged_dt { low_dt_pct } else { 0.0 };
    const EPS: f64 = 1e-9;
    // an unreset supply temperature warns however the delta-T fares
    let unreset = if reset == Some(false) { Severity::Warn } else { Severity::Ok };
    let severity = severity_of(low + EPS, LOW_DT_WARN_PCT, LOW_DT_FAULT_PCT).max(unreset);
    let mut metrics = BTreeMap::new();
    metrics.insert("chwst_median_f".into(), round2(chwst));
    metrics.insert("pct_chwst_low".into(), round2(share(&held_low)));
    metrics.insert("design_deltaT_min_f".into(), dt_min);
    metrics.insert("n_running".into(), idx.len() as f64);
    metrics.insert("running_hours".into(), round2(hours));
    if let Some(s) = slope {
        metrics.insert("chwst_slope_per_F".into(), (s * 1000.0).round() / 1000.0 + 0.0);
    }
    if let Some(r) = reset {
        metrics.insert("chwst_reset_present".into(), f64::from(u8::from(r)));
    }
    if dt_evaluated {
        metrics.insert("deltaT_median_f".into(), round2(dt_median));
        metrics.insert("low_deltaT_pct".into(), round2(low_dt_pct));
    }
    if let Some(c) = cv {
        metrics.insert("flow_cv".into(), (c * 10_000.0).round() / 10_000.0);
    }
    let reset_note = match direction {
        "expected" => "the supply is reset".to_string(),
        "reverse" => "the supply rises with outdoor temperature (the reverse of a reset)".to_string(),
        "flat" => "the supply is flat (no reset)".to_string(),
        _ => "the reset was not evaluated (no outdoor temperature)".to_string(),
    };
    let dt_note = if dt_evaluated {
        format!(
            "loop delta-T median {dt_median:.1} °F ({low_dt_pct:.0} % of running time under {dt_min} °F{})",
            if constant { ", constant flow: not judged" } else { "" }
        )
    } else {
        "loop delta-T not evaluated (no return temperature)".to_string()
    };
    let summary = format!(
        "supply median {chwst:.1} °F over {hours:.0} occupied running hours ({} gate, {flow_mode} flow); {dt_note}; {reset_note}",
        gate.as_ref().map_or("temperature", |r| r.source.name())
    );
    let low_dt_u: Vec<u32> = low_dt.iter().map(|&i| i as u32).collect();
    let held_u: Vec<u32> = held_low.iter().map(|&i| i as u32).collect();
    let mut flagged: Vec<u32> = Vec::new();
    if judged_dt && low + EPS >= LOW_DT_WARN_PCT {
        flagged.extend(&low_dt_u);
    }
    if reset == Some(false) {
        flagged.extend(&held_u);
    }
    flagged.sort_unstable();
    flagged.dedup();
    let hours_of = |set: &[usize]| round2(set.iter().map(|&i| weights[i]).sum::<f64>());
    let mut conditions = vec![Condition {
        name: "chwst_held_low".into(),
        flagged: held_u,
        judged: idx.len(),
        judged_hours: round2(hours),
        flagged_hours: hours_of(&held_low),
    }];
    if dt_evaluated {
        conditions.push(Condition {
            name: "low_deltaT".into(),
            flagged: low_dt_u,
            judged: dts.len(),
            judged_hours: round2(dt_hours),
            flagged_hours: hours_of(&low_dt),
        });
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(idx.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// Two weeks at 15 minutes of a plant on weekdays 6:00-19:00 by its status; the outdoor
    /// temperature swings 70-95 °F through each day; the supply is `sup(oat)` while on (65 °F
    /// off), the delta-T `dt(hour of day)`, the flow `flow(hour)`.
    fn plant(sup: impl Fn(f64) -> f64, dt: impl Fn(f64) -> f64, flow: impl Fn(f64) -> f64) -> Frame {
        let n = 14 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let day: Vec<usize> = (0..n).map(|i| i / 96 % 7).collect();
        let on: Vec<bool> = (0..n).map(|i| day[i] < 5 && (6.0..19.0).contains(&hour[i])).collect();
        let oat: Vec<f64> = hour.iter().map(|h| 70.0 + 25.0 * (1.0 - ((h - 15.0) / 9.0).powi(2)).max(0.0)).collect();
        let s: Vec<f64> = (0..n).map(|i| if on[i] { sup(oat[i]) } else { 65.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("chw_return_temp", (0..n).map(|i| s[i] + if on[i] { dt(hour[i]) } else { 0.5 }).collect()),
                ("chw_supply_temp", s),
                ("oat", oat),
                ("chw_flow", (0..n).map(|i| if on[i] { flow(hour[i]) } else { 0.0 }).collect()),
                ("compressor_status", on.iter().map(|o| f64::from(u8::from(*o))).collect()),
            ],
        )
    }

    /// A reset: 50 °F on a 70 °F day down to 44 °F at 95 °F.
    fn reset(oat: f64) -> f64 {
        50.0 - 6.0 * ((oat - 70.0) / 25.0).clamp(0.0, 1.0)
    }

    /// Variable flow: 500 gpm in the morning rising to 1000 in the afternoon.
    fn variable(h: f64) -> f64 {
        500.0 + 40.0 * (h - 6.0)
    }

    #[test]
    fn a_reset_plant_with_a_good_delta_t_is_ok() {
        let r = run(&RULE, &plant(reset, |_| 12.0, variable), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.metrics["chwst_slope_per_F"] < -0.05, "{:?}", r.metrics);
        assert_eq!((r.metrics["chwst_reset_present"], r.metrics["low_deltaT_pct"]), (1.0, 0.0));
        // occupied weekday hours 7:00-18:00 only: 44 samples a day, 10 days
        assert_eq!(r.judged, 10 * 44);
        assert!(r.flagged.is_empty());
    }

    #[test]
    fn no_reset_and_low_delta_t_are_found() {
        // fixed at 42 °F: flat, a warning, its held-low hours flagged
        let r = run(&RULE, &plant(|_| 42.0, |_| 12.0, variable), &Params::default());
        assert_eq!((r.severity, r.metrics["chwst_reset_present"]), (Severity::Warn, 0.0), "{}", r.summary);
        assert_eq!((r.metrics["pct_chwst_low"], r.flagged.len()), (100.0, 440));
        // rising with the weather: reversed, a warning
        let r = run(&RULE, &plant(|o| 40.0 + 0.2 * (o - 70.0), |_| 12.0, variable), &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.caveats.iter().any(|c| c.contains("wrong way")), "{:?}", r.caveats);
        // ... unless a rising supply is what the sequence does
        let p = with(&[("expected_reset_sign", ParamValue::Choice("positive".into()))]);
        assert_eq!(run(&RULE, &plant(|o| 40.0 + 0.2 * (o - 70.0), |_| 12.0, variable), &p).severity, Severity::Ok);
        let p = with(&[("expected_reset_sign", ParamValue::Choice("any".into()))]);
        assert_eq!(run(&RULE, &plant(|o| 40.0 + 0.2 * (o - 70.0), |_| 12.0, variable), &p).severity, Severity::Ok);
        // a 5 °F delta-T all day on variable flow: a fault
        let r = run(&RULE, &plant(reset, |_| 5.0, variable), &Params::default());
        assert_eq!((r.severity, r.metrics["low_deltaT_pct"]), (Severity::Fault, 100.0));
    }

    #[test]
    fn the_delta_t_levels_and_flow_mode_at_their_boundaries() {
        // a low delta-T (6 °F) before `until` o'clock: 7:00-9:12 is a fifth of 7:00-18:00
        let low_until = |until: f64| move |h: f64| if h < until { 6.0 } else { 12.0 };
        let at = |until: f64, p: &Params| run(&RULE, &plant(reset, low_until(until), variable), p);
        // 9 of 44 samples a day (20.45 %) warns; 8 (18.2 %) does not
        assert_eq!(at(9.25, &Params::default()).severity, Severity::Warn);
        assert_eq!(at(9.0, &Params::default()).severity, Severity::Ok);
        // 22 of 44 (50 %) faults; 21 warns
        let half = at(12.5, &Params::default());
        assert_eq!((half.severity, half.metrics["low_deltaT_pct"]), (Severity::Fault, 50.0));
        assert_eq!(at(12.25, &Params::default()).severity, Severity::Warn);
        // the threshold: 6 °F is not below 6
        assert_eq!(at(12.5, &numbers(&[("design_deltaT_min_f", 6.0)])).severity, Severity::Ok);
        assert_eq!(at(12.5, &numbers(&[("design_deltaT_min_f", 6.01)])).severity, Severity::Fault);
        // constant flow (600 gpm, 1 % ripple): reported, not judged
        let ripple = |h: f64| 600.0 * (1.0 + 0.01 * (h * 7.0).sin());
        let c = run(&RULE, &plant(reset, |_| 5.0, ripple), &Params::default());
        assert_eq!(c.severity, Severity::Ok, "{}", c.summary);
        assert!(c.caveats.iter().any(|x| x.contains("constant primary flow")), "{:?}", c.caveats);
        // the cv boundary, and declaring the mode
        let cv = c.metrics["flow_cv"];
        let p = numbers(&[("constant_flow_cv", cv - 0.001)]);
        assert_eq!(run(&RULE, &plant(reset, |_| 5.0, ripple), &p).severity, Severity::Fault);
        let p = with(&[("flow_mode", ParamValue::Choice("variable".into()))]);
        assert_eq!(run(&RULE, &plant(reset, |_| 5.0, ripple), &p).severity, Severity::Fault);
        let p = with(&[("flow_mode", ParamValue::Choice("constant".into()))]);
        assert_eq!(run(&RULE, &plant(reset, |_| 5.0, variable), &p).severity, Severity::Ok);
    }

    #[test]
    fn unoccupied_and_stopped_hours_are_not_judged_and_the_gate_falls_back() {
        // the 65 °F off-hour supply and weekend samples are never judged
        let r = run(&RULE, &plant(reset, |_| 12.0, variable), &Params::default());
        assert_eq!(r.metrics["n_running"], 440.0);
        // no status: by power
        let mut f = plant(reset, |_| 12.0, variable);
        let on = f.cols.remove("compressor_status").unwrap();
        f.cols.insert("power".into(), on.iter().map(|o| if *o > 0.5 { 300.0 } else { 2.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 440));
        // no run signal: the supply at 38-58 °F is running
        f.cols.remove("power");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.judged, 440);
        assert!(r.caveats.iter().any(|c| c.contains("chilled range")), "{:?}", r.caveats);
        // never on
        let mut off = plant(reset, |_| 12.0, variable);
        off.cols.insert("compressor_status".into(), vec![0.0; off.len()]);
        assert_eq!(run(&RULE, &off, &Params::default()).severity, Severity::Info);
        // no outdoor temperature: the reset is not evaluated, never a "no reset"
        let mut f = plant(|_| 42.0, |_| 12.0, variable);
        f.cols.remove("oat");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(!r.metrics.contains_key("chwst_reset_present"));
        assert!(r.caveats.iter().any(|c| c.contains("not evaluated")));
    }

    #[test]
    fn gaps_uneven_sampling_and_disorder() {
        let base = plant(reset, |h| if h < 9.25 { 6.0 } else { 12.0 }, variable);
        // a week missing: the same shares on the other
        let keep: Vec<usize> = (0..base.len()).filter(|i| *i < 7 * 96).collect();
        let half = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (a, b) = (run(&RULE, &base, &Params::default()), run(&RULE, &half, &Params::default()));
        assert_eq!((a.severity, a.metrics["low_deltaT_pct"]), (b.severity, b.metrics["low_deltaT_pct"]));
        let m = run(&RULE, &shuffled_with_duplicates(&base), &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (m.severity, &m.metrics, &m.flagged));
        // a low delta-T logged every minute from 7:00 to 7:30, 15-minute samples the rest: by
        // count two in five, by time a twentieth
        let mut ts = Vec::new();
        for d in 0..5 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..30).map(|m| day + 7 * H + m * MINUTE));
            ts.extend((0..42).map(|k| day + 7 * H + 30 * MINUTE + k * 15 * MINUTE));
        }
        let n = ts.len();
        let low = |t: i64| (t - MONDAY) % (24 * H) < 7 * H + 30 * MINUTE;
        let f = Frame::from_rows(
            &ts,
            &[
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", ts.iter().map(|&t| if low(t) { 50.0 } else { 56.0 }).collect()),
                ("compressor_status", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["low_deltaT_pct"] < 10.0, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
    }

    #[test]
    fn missing_supply_skips_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("chw_return_temp", vec![54.0, 54.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["chw_supply_temp".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[MONDAY + 8 * H], &[("chw_supply_temp", vec![44.0])]),
            Frame::from_rows(&every(MONDAY, H, 48), &[("chw_supply_temp", vec![44.0; 48]), ("oat", vec![80.0; 48])]),
            Frame::from_rows(
                &every(MONDAY, H, 48),
                &[("chw_supply_temp", vec![90.0; 48]), ("chw_flow", vec![0.0; 48])],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        // a constant outdoor temperature fits no slope: not evaluated
        let f =
            Frame::from_rows(&every(MONDAY, H, 48), &[("chw_supply_temp", vec![44.0; 48]), ("oat", vec![80.0; 48])]);
        assert!(!run(&RULE, &f, &Params::default()).metrics.contains_key("chwst_reset_present"));
    }
}
