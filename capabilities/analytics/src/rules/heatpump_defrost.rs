//! `heatpump_defrost`: an air-source heat pump that defrosts far too often. In heating, frost
//! builds on the outdoor coil and the unit clears it by reversing into cooling for a few
//! minutes; each defrost is two reversing-valve changes (into cooling and back). A unit that
//! reverses much more than frosty weather needs (a defrost sensor reading too cold, a
//! termination that never ends a defrost, a valve hunting) throws away the heat it just made.
//!
//! Counted over the whole trend (a unit defrosts at any hour): the reversing-valve changes per
//! observed day (`crate::cycles::binary_changes`: a 0/1 command's level changes; on a resampled
//! command, the fewest changes its shares allow), a warning from `max_reversals_per_day` and a
//! fault from twice it. A defrost is shorter than a 15-minute interval, so on a trend coarser
//! than `max_interval_min` the count is a floor: a warning or fault stands with a caveat, and an
//! ok declines to info when samples sit part-way between heating and cooling (the interval hid
//! changes). A trend shorter than a day is read per day over one day. With the outdoor air
//! trended, its median at the reversals is reported: defrosts well above freezing are not frost.
//! The flagged samples are the reversals on days with at least `max_reversals_per_day` of them.
//!
//! Unlike the reference, the rate is per observed day (a logger outage is not days without a
//! defrost) rather than per day of the span.

use std::collections::BTreeMap;

use crate::cycles;
use crate::engine::{
    median, round2, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity, EVENTS_METRIC,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "heatpump_defrost",
        families: &[],
        inputs: Inputs { required: &["reversing_valve_cmd"], optional: &["oat"], gating: &[], one_of: &[], needs_gating: false },
        params: vec![
            ParamSpec::number(
                "max_reversals_per_day",
                24.0,
                "reversing-valve transitions per day",
                (12.0, 96.0),
                "about a dozen defrosts a day, one every two hours of frosty heating, each two changes of the valve: a screening ceiling that leaves a demand defrost room in damp freezing weather",
                "Read reversals_per_day on the same units in a known-good cold week (or the defrost board's minimum interval: a 30-minute timer allows up to 96 changes a day) and set the ceiling a little above the highest. Warn at it, fault at twice it.",
            ),
            ParamSpec::number(
                "max_interval_min",
                5.0,
                "minutes",
                (1.0, 15.0),
                "a defrost lasts a few minutes: a coarser interval averages it into the heating around it",
                "Keep it at or below the shortest defrost the unit runs. Rather than raise it, run the rule on the trend's own interval (resample no coarser than this), so every defrost is seen.",
            ),
        ],
        judged_basis: "reversing-valve samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let valve = frame.required("reversing_valve_cmd");
    let Some(c) = cycles::binary_changes(&frame.ts, valve) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "fewer than two reversing-valve samples")]);
    };
    let (limit, max_interval) = (params.number(spec, "max_reversals_per_day"), params.number(spec, "max_interval_min"));
    let per_day = c.per_day();
    let severity = if per_day >= 2.0 * limit {
        Severity::Fault
    } else if per_day >= limit {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let (severity, coarse, declined) = cycles::resolution_check(
        severity,
        c.interval_min,
        max_interval,
        c.n_partial,
        "reversing-valve changes",
        "a defrost shorter than the interval",
        ("max_reversals_per_day", limit),
    );
    let mut caveats: Vec<String> = coarse.into_iter().collect();
    caveats.extend(cycles::short_trend_caveat(c.span_days, "reversing-valve changes"));
    let oat = frame
        .col("oat")
        .map_or(f64::NAN, |o| median(&mut c.at.iter().map(|&(i, _)| o[i]).filter(|v| !v.is_nan()).collect::<Vec<_>>()));
    let flagged = cycles::on_busy_days(&frame.ts, &c.at, limit);
    let mut metrics = BTreeMap::new();
    metrics.insert("reversals_per_day".into(), round2(per_day));
    metrics.insert("max_reversals_per_day".into(), limit);
    metrics.insert("n_reversals".into(), c.count() as f64);
    metrics.insert("n_days".into(), round2(c.observed_days));
    metrics.insert("span_days".into(), round2(c.span_days));
    metrics.insert("n_partial".into(), c.n_partial as f64);
    metrics.insert(EVENTS_METRIC.into(), flagged.len() as f64);
    if let Some(m) = c.interval_min {
        metrics.insert("interval_min".into(), round2(m));
    }
    if !oat.is_nan() {
        metrics.insert("oat_median_at_reversals_f".into(), round2(oat));
    }
    let mut summary = format!("{per_day:.1} reversing-valve changes a day (limit {limit})");
    if severity >= Severity::Warn {
        if !oat.is_nan() {
            summary.push_str(&format!(", the outdoor air at {oat:.0} °F at the median one"));
        }
        summary.push_str(" -- check the defrost termination (its coil sensor, its timer) and the valve");
    }
    if declined {
        summary.push_str(&format!("; not confirmed on a {}-minute trend", c.interval_min.unwrap_or(f64::NAN)));
    }
    let judged = valve.iter().filter(|v| !v.is_nan()).count();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// `days` whole days at 5 minutes (a last sample closing the span), heating, with a
    /// 10-minute defrost in the middle of every `every_min` minutes (none when 0), the outdoor
    /// air at 30 °F.
    fn unit(days: usize, every_min: usize) -> Frame {
        let n = days * 288 + 1;
        let period = every_min / 5;
        let valve: Vec<f64> = (0..n)
            .map(|i| if period > 0 && [period / 2, period / 2 + 1].contains(&(i % period)) { 0.0 } else { 1.0 })
            .collect();
        Frame::from_rows(&every(MONDAY, 5 * MINUTE, n), &[("reversing_valve_cmd", valve), ("oat", vec![30.0; n])])
    }

    /// The frame on a coarser grid: each sample the mean of (up to) `k` of the original.
    fn resampled(f: &Frame, k: usize) -> Frame {
        let n = f.len().div_ceil(k);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let cols: Vec<(&str, Vec<f64>)> = f
            .cols
            .iter()
            .map(|(r, v)| (r.as_str(), (0..n).map(|j| mean(&v[j * k..((j + 1) * k).min(v.len())])).collect()))
            .collect();
        Frame::from_rows(&(0..n).map(|j| f.ts[j * k]).collect::<Vec<_>>(), &cols)
    }

    #[test]
    fn a_unit_defrosting_now_and_then_is_ok() {
        // a defrost every two hours: 12 a day, 24 changes, at the limit; every three hours: ok
        let r = run(&RULE, &unit(7, 180), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["reversals_per_day"], 16.0);
        assert!(r.flagged.is_empty() && r.caveats.is_empty(), "{:?}", r.caveats);
        assert!(!r.summary.contains("check"), "an ok names no cause: {}", r.summary);
        let steady = run(&RULE, &unit(7, 0), &Params::default());
        assert_eq!((steady.severity, steady.metrics["n_reversals"]), (Severity::Ok, 0.0));
    }

    #[test]
    fn excess_defrost_is_found_at_its_severity() {
        // every 30 minutes: 48 defrosts, 96 changes a day (a fault); every hour: 48 (a fault at
        // twice 24); every 90 minutes: 32 (a warning)
        let r = run(&RULE, &unit(7, 30), &Params::default());
        assert_eq!((r.severity, r.metrics["reversals_per_day"]), (Severity::Fault, 96.0));
        assert!(r.summary.contains("30 °F") && r.summary.contains("defrost termination"), "{}", r.summary);
        assert_eq!(r.metrics["oat_median_at_reversals_f"], 30.0);
        assert_eq!(r.flagged.len() as f64, r.metrics["n_reversals"]);
        assert_eq!(r.metrics[EVENTS_METRIC], r.metrics["n_reversals"]);
        assert_eq!(run(&RULE, &unit(7, 60), &Params::default()).severity, Severity::Fault);
        let r = run(&RULE, &unit(7, 90), &Params::default());
        assert_eq!((r.severity, r.metrics["reversals_per_day"]), (Severity::Warn, 32.0));
    }

    #[test]
    fn the_limit_at_its_boundary_with_defaults_and_overrides() {
        // every two hours: 24 changes a day, exactly the limit (a warning); 48 is a fault
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        assert_eq!(sev(&unit(7, 120), &Params::default()), Severity::Warn);
        assert_eq!(sev(&unit(7, 120), &numbers(&[("max_reversals_per_day", 24.1)])), Severity::Ok);
        assert_eq!(sev(&unit(7, 120), &numbers(&[("max_reversals_per_day", 12.0)])), Severity::Fault);
        assert_eq!(sev(&unit(7, 60), &numbers(&[("max_reversals_per_day", 24.01)])), Severity::Warn);
        // the flagged reversals are those of the days at or over the limit
        let mut f = unit(2, 120);
        let v = f.cols.get_mut("reversing_valve_cmd").unwrap();
        for x in v.iter_mut().skip(288) {
            *x = 1.0;
        }
        let r = run(&RULE, &f, &numbers(&[("max_reversals_per_day", 12.0)]));
        assert_eq!((r.flagged.len(), r.metrics["n_reversals"]), (24, 24.0));
        assert!(r.flagged.iter().all(|&i| i < 288));
    }

    #[test]
    fn a_coarse_trend_is_a_floor_and_cannot_vouch_for_an_ok() {
        // a defrost every two hours at 5 minutes, read at 15: each 10-minute defrost leaves a
        // part-way sample, still counted out and back
        let fine = unit(7, 120);
        let r = run(&RULE, &resampled(&fine, 3), &Params::default());
        assert_eq!((r.severity, r.metrics["reversals_per_day"]), (Severity::Warn, 24.0));
        assert!(r.caveats.iter().any(|c| c.contains("15-minute trend")), "{:?}", r.caveats);
        // below the limit with part-way samples: not confirmed
        let r = run(&RULE, &resampled(&unit(7, 180), 3), &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!(r.summary.contains("not confirmed on a 15-minute trend"), "{}", r.summary);
        // a coarser ceiling accepts it
        let r = run(&RULE, &resampled(&unit(7, 180), 3), &numbers(&[("max_interval_min", 15.0)]));
        assert_eq!((r.severity, r.caveats.len()), (Severity::Ok, 0));
        // no part-way sample: ok stands, with the caveat
        let r = run(&RULE, &resampled(&unit(7, 0), 3), &Params::default());
        assert_eq!((r.severity, r.caveats.len()), (Severity::Ok, 1));
    }

    #[test]
    fn gaps_are_not_observed_days_and_uneven_samples_count_the_same() {
        // a week at 5 minutes with three days missing: the rate is over the four days trended
        let f = unit(7, 60);
        let keep: Vec<usize> = (0..f.len()).filter(|i| !(288..4 * 288).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
            &f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &g, &Params::default());
        assert!((r.metrics["n_days"] - 4.0).abs() < 0.01, "{:?}", r.metrics);
        assert!((r.metrics["reversals_per_day"] - 48.0).abs() < 0.1, "{:?}", r.metrics);
        // the same changes logged on change of value only (uneven samples): the same count
        let idx: Vec<usize> = (0..f.len())
            .filter(|&i| {
                i == 0 || f.cols["reversing_valve_cmd"][i] != f.cols["reversing_valve_cmd"][i - 1] || i % 12 == 0
            })
            .collect();
        let cov = Frame::from_rows(
            &idx.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
            &[("reversing_valve_cmd", idx.iter().map(|&i| f.cols["reversing_valve_cmd"][i]).collect())],
        );
        assert_eq!(
            run(&RULE, &cov, &Params::default()).metrics["n_reversals"],
            run(&RULE, &f, &Params::default()).metrics["n_reversals"]
        );
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [unit(3, 60), unit(2, 0), resampled(&unit(3, 120), 3)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn a_short_trend_is_read_over_one_day() {
        // two hours with one defrost: two changes in a day, not 24
        let f = Frame::from_rows(
            &every(MONDAY, 5 * MINUTE, 24),
            &[("reversing_valve_cmd", (0..24).map(|i| if (10..12).contains(&i) { 0.0 } else { 1.0 }).collect())],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["reversals_per_day"]), (Severity::Ok, 2.0));
        assert!(r.caveats.iter().any(|c| c.contains("spans only 1.9 h")), "{:?}", r.caveats);
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("oat", vec![30.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["reversing_valve_cmd".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY], &[("reversing_valve_cmd", vec![1.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Info);
        let nan = Frame::from_rows(
            &every(MONDAY, H, 3),
            &[("reversing_valve_cmd", vec![1.0, f64::NAN, 0.0]), ("oat", vec![f64::NAN; 3])],
        );
        let r = run(&RULE, &nan, &Params::default());
        assert_eq!((r.severity, r.metrics["n_reversals"]), (Severity::Ok, 1.0));
        assert!(!r.metrics.contains_key("oat_median_at_reversals_f"));
    }
}
