//! `static_pressure_reset`: the duct static-pressure setpoint is not reset with demand. A fixed
//! setpoint runs the supply fan harder than the zones need; Guideline 36 trim-and-respond trims
//! it while no zone asks for more. The setpoint must move over a range, move on many days (a
//! one-time step is an edit, not a reset), and, when a demand signal is trended (the zones'
//! static-pressure requests, else supply airflow), move with it.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::{missing_inputs, on, round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, RuleSpec, Severity};

/// Days the setpoint must move on (and at least this share of the days judged).
const MIN_MOVING_DAYS: usize = 3;
const MIN_MOVING_SHARE: f64 = 0.10;
/// |Spearman rho| with the demand signal that confirms a reset.
const MIN_RHO: f64 = 0.3;
const NS_PER_DAY: i64 = 86_400_000_000_000;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "static_pressure_reset",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["duct_static_sp"],
            optional: &["supply_fan_status", "static_pressure_requests", "airflow"],
            gating: &[],
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

/// Ranks with ties averaged.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && x[idx[j + 1]] == x[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation, `None` when either side is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    if n < 3.0 {
        return None;
    }
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let missing = missing_inputs(spec, frame);
    if !missing.is_empty() {
        return Outcome::Skipped { missing };
    }
    let sp = frame.col("duct_static_sp").unwrap_or_default();
    let fan = frame.col("supply_fan_status");
    let (driver_name, driver) = match (frame.col("static_pressure_requests"), frame.col("airflow")) {
        (Some(d), _) => ("static_pressure_requests", Some(d)),
        (None, Some(d)) => ("airflow", Some(d)),
        _ => ("", None),
    };
    let (min_range, move_min) = (params.number(spec, "min_range_inwc"), params.number(spec, "move_min_inwc"));
    let judged: Vec<usize> = (0..frame.len()).filter(|&i| !sp[i].is_nan() && fan.is_none_or(|f| on(f[i]))).collect();
    let finding = |severity, summary: String, caveats: Vec<String>, metrics: BTreeMap<String, f64>| Finding {
        rule: spec.id,
        severity,
        summary,
        caveats,
        metrics,
        flagged: Vec::new(),
        judged: judged.len(),
        judged_basis: spec.judged_basis,
        conditions: Vec::new(),
    };
    if judged.len() < 3 {
        return Outcome::Findings(vec![finding(
            Severity::Info,
            "not judged: too few fan-on samples of the static setpoint".into(),
            vec!["no verdict; this is not a pass".into()],
            BTreeMap::new(),
        )]);
    }
    let values: Vec<f64> = judged.iter().map(|&i| sp[i]).collect();
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = hi - lo;
    // per day: did the setpoint move by a response step?
    let mut day_min: BTreeMap<i64, (f64, f64)> = BTreeMap::new();
    for &i in &judged {
        let d = frame.ts[i].div_euclid(NS_PER_DAY);
        let e = day_min.entry(d).or_insert((f64::INFINITY, f64::NEG_INFINITY));
        e.0 = e.0.min(sp[i]);
        e.1 = e.1.max(sp[i]);
    }
    let days = day_min.len();
    // a hair of tolerance: setpoints are decimal values stored in binary
    const EPS: f64 = 1e-9;
    let moving: BTreeSet<i64> = day_min.iter().filter(|(_, (a, b))| b - a + EPS >= move_min).map(|(d, _)| *d).collect();
    let needed = MIN_MOVING_DAYS.max((MIN_MOVING_SHARE * days as f64).ceil() as usize);
    let mut metrics = BTreeMap::new();
    metrics.insert("sp_range_inwc".into(), round2(range));
    metrics.insert("moving_days".into(), moving.len() as f64);
    metrics.insert("days_judged".into(), days as f64);
    let mut caveats = Vec::new();
    if fan.is_none() {
        caveats.push("no fan status: every setpoint sample was judged".into());
    }
    if range + EPS < min_range {
        return Outcome::Findings(vec![finding(
            Severity::Warn,
            format!("the static setpoint spans only {range:.2} in. w.c. over {days} days: no trim-and-respond reset"),
            caveats,
            metrics,
        )]);
    }
    if moving.len() < needed {
        return Outcome::Findings(vec![finding(
            Severity::Warn,
            format!("the static setpoint moved on {} of {days} days: a step or a manual change, not a reset", moving.len()),
            caveats,
            metrics,
        )]);
    }
    let Some(d) = driver else {
        caveats.push("no demand signal trended (static-pressure requests or airflow): the reset is not checked against demand".into());
        return Outcome::Findings(vec![finding(
            Severity::Ok,
            format!("the static setpoint varies over {range:.2} in. w.c. and moves on {} of {days} days", moving.len()),
            caveats,
            metrics,
        )]);
    };
    let pairs: Vec<(f64, f64)> = judged.iter().filter(|&&i| !d[i].is_nan()).map(|&i| (sp[i], d[i])).collect();
    let rho = spearman(&pairs.iter().map(|p| p.0).collect::<Vec<_>>(), &pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    if let Some(r) = rho {
        metrics.insert("rho_with_demand".into(), round2(r));
    }
    match rho {
        Some(r) if r.abs() >= MIN_RHO => Outcome::Findings(vec![finding(
            Severity::Ok,
            format!("the static setpoint resets with {driver_name} (rank correlation {r:.2})"),
            caveats,
            metrics,
        )]),
        _ => Outcome::Findings(vec![finding(
            Severity::Info,
            format!("the static setpoint varies but not with {driver_name}: a reset is not confirmed"),
            caveats,
            metrics,
        )]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000_000;

    /// `days` days of hourly samples; `sp(i)` the setpoint, `req(i)` the requests.
    fn frame(days: usize, sp: impl Fn(usize) -> f64, req: Option<&dyn Fn(usize) -> f64>, fan: f64) -> Frame {
        let n = days * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let mut cols = vec![("duct_static_sp", (0..n).map(&sp).collect::<Vec<_>>()), ("supply_fan_status", vec![fan; n])];
        if let Some(r) = req {
            cols.push(("static_pressure_requests", (0..n).map(r).collect()));
        }
        Frame::from_rows(&ts, &cols)
    }

    fn run(f: &Frame) -> Finding {
        match evaluate(&spec(), f, &Params::default()) {
            Outcome::Findings(mut v) => v.remove(0),
            o => panic!("{o:?}"),
        }
    }

    fn demand(i: usize) -> f64 {
        ((i % 24) as f64 - 12.0).abs()
    }

    #[test]
    fn a_reset_that_follows_requests_is_ok() {
        let f = frame(14, |i| 0.6 + 0.05 * demand(i), Some(&demand), 1.0);
        let r = run(&f);
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.metrics["rho_with_demand"] > 0.9);
    }

    #[test]
    fn a_fixed_setpoint_is_a_warning() {
        let r = run(&frame(14, |_| 1.5, Some(&demand), 1.0));
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.summary.contains("no trim-and-respond reset"));
    }

    #[test]
    fn a_one_time_step_is_not_a_reset() {
        let r = run(&frame(14, |i| if i < 24 * 7 { 1.5 } else { 1.0 }, Some(&demand), 1.0));
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.summary.contains("not a reset"), "{}", r.summary);
    }

    #[test]
    fn variation_without_or_against_demand() {
        let r = run(&frame(14, |i| 0.6 + 0.05 * demand(i), None, 1.0));
        assert_eq!(r.severity, Severity::Ok);
        assert!(!r.caveats.is_empty());
        // moves every day, but on its own clock: not with the requests
        let noise = |i: usize| ((i * 7919) % 13) as f64;
        let r = run(&frame(14, |i| 0.6 + 0.05 * ((i * 104_729) % 11) as f64, Some(&noise), 1.0));
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
    }

    #[test]
    fn the_range_boundary() {
        // a daily swing of exactly min_range moves enough; just under it is flat
        let at = run(&frame(14, |i| if i % 24 < 12 { 1.0 } else { 1.15 }, None, 1.0));
        assert_eq!(at.severity, Severity::Ok, "{}", at.summary);
        let under = run(&frame(14, |i| if i % 24 < 12 { 1.0 } else { 1.14 }, None, 1.0));
        assert_eq!(under.severity, Severity::Warn);
    }

    #[test]
    fn equipment_off_gaps_and_a_missing_setpoint() {
        let r = run(&frame(3, |_| 1.5, None, 0.0));
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // duplicates and disorder are resolved by the frame
        let f = Frame::from_rows(&[2 * H, 0, H, H], &[("duct_static_sp", vec![1.0, 1.0, 2.0, 1.0])]);
        assert_eq!(run(&f).judged, 3);
        let f = Frame::from_rows(&[0, H], &[("airflow", vec![1.0, 2.0])]);
        assert_eq!(evaluate(&spec(), &f, &Params::default()), Outcome::Skipped { missing: vec!["duct_static_sp".into()] });
    }

    #[test]
    fn spearman_basics() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }
}
