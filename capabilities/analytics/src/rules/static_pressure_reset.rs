//! `static_pressure_reset`: the duct static-pressure setpoint is not reset with demand. A fixed
//! setpoint runs the supply fan harder than the zones need; Guideline 36 trim-and-respond trims
//! it while no zone asks for more. The setpoint must move over a range, move on many days (a
//! one-time step is an edit, not a reset), and, when a demand signal is trended (the zones'
//! static-pressure requests, else supply airflow), move with it.

use std::collections::BTreeMap;

use crate::engine::{
    on, round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity,
};
use crate::setpoint::{self, Kind};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "static_pressure_reset",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["duct_static_sp"],
            optional: &["supply_fan_status", "static_pressure_requests", "airflow"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "min_range_inwc",
                default: ParamValue::Number(0.15),
                unit: "in. w.c.",
                range: Some((0.05, 0.5)),
                choices: &[],
                basis: "a reset worth the name spans a few trim-and-respond steps over a window of changing load",
                calibrate: "Take the reset's configured minimum and maximum from the sequence: a working reset spans a good part of that band; set this well below the span.",
            },
            ParamSpec {
                name: "move_min_inwc",
                default: ParamValue::Number(0.05),
                unit: "in. w.c.",
                range: Some((0.01, 0.2)),
                choices: &[],
                basis: "about one trim-and-respond step, above the rounding of a setpoint register",
                calibrate: "Set it to the sequence's response step (SPres) or a little less.",
            },
        ],
        judged_basis: "fan-on samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let sp = frame.required("duct_static_sp");
    let fan = frame.col("supply_fan_status");
    let (driver_name, driver) = match (frame.col("static_pressure_requests"), frame.col("airflow")) {
        (Some(d), _) => ("static-pressure requests", Some(d)),
        (None, Some(d)) => ("supply airflow", Some(d)),
        _ => ("", None),
    };
    let (min_range, move_min) = (params.number(spec, "min_range_inwc"), params.number(spec, "move_min_inwc"));
    let judged: Vec<usize> = (0..frame.len()).filter(|&i| !sp[i].is_nan() && fan.is_none_or(|f| on(f[i]))).collect();
    let finding = |severity, summary: String, caveats: Vec<String>, metrics: BTreeMap<String, f64>| {
        Finding::new(spec, severity, summary).with_caveats(caveats).with_metrics(metrics).with_judged(judged.len())
    };
    if judged.len() < 3 {
        return Outcome::Findings(vec![finding(
            Severity::Info,
            "not judged: too few fan-on samples of the static setpoint".into(),
            vec!["no verdict; this is not a pass".into()],
            BTreeMap::new(),
        )]);
    }
    let ts: Vec<i64> = judged.iter().map(|&i| frame.ts[i]).collect();
    let values: Vec<f64> = judged.iter().map(|&i| sp[i]).collect();
    let demand: Option<Vec<f64>> = driver.map(|d| judged.iter().map(|&i| d[i]).collect());
    let weights = frame.weights_hours();
    let w: Vec<f64> = judged.iter().map(|&i| weights[i]).collect();
    let b = setpoint::classify(
        &ts,
        &values,
        &w,
        demand.as_deref().map(|d| (driver_name, d)),
        min_range,
        move_min,
        "in. w.c.",
    );
    let mut metrics = BTreeMap::new();
    metrics.insert("sp_range_inwc".into(), round2(b.range));
    metrics.insert("moving_days".into(), b.moving_days as f64);
    metrics.insert("days_judged".into(), b.days as f64);
    if let Some(r) = b.rho {
        metrics.insert("rho_with_demand".into(), round2(r));
    }
    let mut caveats = Vec::new();
    if fan.is_none() {
        caveats.push("no fan status: every setpoint sample was judged".into());
    }
    // a hair of tolerance: setpoints are decimal values stored in binary
    const EPS: f64 = 1e-9;
    let (severity, summary) = match b.kind {
        Kind::Insufficient => {
            caveats.push(
                "too few setpoint samples to tell a reset from a one-time step: judged on the range alone".into(),
            );
            if b.range + EPS >= min_range {
                (Severity::Ok, format!("the static setpoint spans {:.2} in. w.c.", b.range))
            } else {
                (
                    Severity::Warn,
                    format!("the static setpoint spans only {:.2} in. w.c.: no trim-and-respond reset", b.range),
                )
            }
        }
        Kind::Flat => (
            Severity::Warn,
            format!(
                "the static setpoint spans only {:.2} in. w.c. over {} days: no trim-and-respond reset",
                b.range, b.days
            ),
        ),
        Kind::Step => (Severity::Warn, format!("the static setpoint is not reset: {}", b.label)),
        Kind::Reset => (Severity::Ok, format!("the static setpoint {}", b.label)),
        Kind::Varies if b.rho.is_none() => {
            caveats.push("no static-pressure requests or airflow trended with enough overlap: the setpoint moves repeatedly, but that it follows demand is not confirmed".into());
            (Severity::Ok, format!("the static setpoint {}", b.label))
        }
        Kind::Varies | Kind::Unclear => {
            (Severity::Info, format!("a static reset is not confirmed: the setpoint {}", b.label))
        }
    };
    Outcome::Findings(vec![finding(severity, summary, caveats, metrics)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H, MINUTE};

    /// `days` days of hourly samples; `sp(i)` the setpoint, `req(i)` the requests.
    fn frame(days: usize, sp: impl Fn(usize) -> f64, req: Option<&dyn Fn(usize) -> f64>, fan: f64) -> Frame {
        let n = days * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let mut cols =
            vec![("duct_static_sp", (0..n).map(&sp).collect::<Vec<_>>()), ("supply_fan_status", vec![fan; n])];
        if let Some(r) = req {
            cols.push(("static_pressure_requests", (0..n).map(r).collect()));
        }
        Frame::from_rows(&ts, &cols)
    }

    fn demand(i: usize) -> f64 {
        ((i % 24) as f64 - 12.0).abs()
    }

    #[test]
    fn a_reset_that_follows_requests_is_ok() {
        let f = frame(14, |i| 0.6 + 0.05 * demand(i), Some(&demand), 1.0);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.metrics["rho_with_demand"] > 0.9);
    }

    #[test]
    fn a_fixed_setpoint_is_a_warning() {
        let r = run(&RULE, &frame(14, |_| 1.5, Some(&demand), 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.summary.contains("no trim-and-respond reset"));
    }

    #[test]
    fn a_one_time_step_is_not_a_reset() {
        let r = run(&RULE, &frame(14, |i| if i < 24 * 7 { 1.5 } else { 1.0 }, Some(&demand), 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.summary.contains("not a reset"), "{}", r.summary);
    }

    #[test]
    fn variation_without_or_against_demand() {
        let r = run(&RULE, &frame(14, |i| 0.6 + 0.05 * demand(i), None, 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(!r.caveats.is_empty());
        // moves every day, but on its own clock: not with the requests
        let noise = |i: usize| ((i * 7919) % 13) as f64;
        let r =
            run(&RULE, &frame(14, |i| 0.6 + 0.05 * ((i * 104_729) % 11) as f64, Some(&noise), 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
    }

    #[test]
    fn the_range_boundary() {
        // a daily swing of exactly min_range moves enough; just under it is flat
        let at = run(&RULE, &frame(14, |i| if i % 24 < 12 { 1.0 } else { 1.15 }, None, 1.0), &Params::default());
        assert_eq!(at.severity, Severity::Ok, "{}", at.summary);
        let under = run(&RULE, &frame(14, |i| if i % 24 < 12 { 1.0 } else { 1.14 }, None, 1.0), &Params::default());
        assert_eq!(under.severity, Severity::Warn);
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// Fourteen days at uneven steps: `sp(k, hour)` the setpoint, the requests `|hour - 12|`
    /// (hour of day as a fraction), the fan `fan(k)`.
    fn uneven(sp: impl Fn(usize, f64) -> f64, fan: impl Fn(usize) -> f64) -> Frame {
        let mut ts = vec![0i64];
        while *ts.last().unwrap() < 14 * 24 * H {
            let k = ts.len() - 1;
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let hour: Vec<f64> = ts.iter().map(|&t| (t % (24 * H)) as f64 / H as f64).collect();
        let n = ts.len();
        Frame::from_rows(
            &ts,
            &[
                ("duct_static_sp", (0..n).map(|k| sp(k, hour[k])).collect()),
                ("static_pressure_requests", hour.iter().map(|h| (h - 12.0).abs()).collect()),
                ("supply_fan_status", (0..n).map(fan).collect()),
            ],
        )
    }

    #[test]
    fn irregular_sampling() {
        let follows = |_: usize, h: f64| 0.6 + 0.05 * (h - 12.0).abs();
        let r = run(&RULE, &uneven(follows, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.metrics["rho_with_demand"] > 0.9);
        assert_eq!((r.metrics["days_judged"], r.metrics["moving_days"]), (14.0, 14.0));
        let n = r.judged;
        let fixed = run(&RULE, &uneven(|_, _| 1.5, |_| 1.0), &Params::default());
        assert_eq!(fixed.severity, Severity::Warn, "{}", fixed.summary);
        let step = run(&RULE, &uneven(|k, _| if k < n / 2 { 1.5 } else { 1.0 }, |_| 1.0), &Params::default());
        assert_eq!(step.severity, Severity::Warn);
        assert!(step.summary.contains("not a reset"), "{}", step.summary);
        // the fan off on the densely logged samples: those are not judged, the verdict holds
        let r = run(&RULE, &uneven(follows, |k| if STEPS[k % 5] < 17 { 0.0 } else { 1.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.judged, (0..n).filter(|k| STEPS[k % 5] == 17).count());
    }

    #[test]
    fn irregular_sampling_a_held_day_is_judged_by_time() {
        // held at 1.5 in. w.c. 56 of every 57 minutes, dipping to 1.0 for the minute logged
        // densely (change-of-value logging): a fifth of the samples but under 2 % of the time
        // at the dip, so every day sits at its held value well past HELD_SHARE (90 %)
        let r = run(&RULE, &uneven(|k, _| if STEPS[k % 5] == 1 { 1.0 } else { 1.5 }, |_| 1.0), &Params::default());
        assert_eq!(r.metrics["moving_days"], 0.0, "{}", r.summary);
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
    }

    #[test]
    fn equipment_off_gaps_and_a_missing_setpoint() {
        let r = run(&RULE, &frame(3, |_| 1.5, None, 0.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // duplicates and disorder are resolved by the frame
        let f = Frame::from_rows(&[2 * H, 0, H, H], &[("duct_static_sp", vec![1.0, 1.0, 2.0, 1.0])]);
        assert_eq!(run(&RULE, &f, &Params::default()).judged, 3);
        let f = Frame::from_rows(&[0, H], &[("airflow", vec![1.0, 2.0])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["duct_static_sp".into()] });
    }
}
