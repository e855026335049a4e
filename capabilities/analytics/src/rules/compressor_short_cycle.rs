//! `compressor_short_cycle`: a DX or heat-pump compressor that starts too often (an oversized
//! stage, a thermostat differential too tight, a low charge tripping it on pressure). Each start
//! draws inrush current, returns oil late and runs the coil at its least efficient, so the
//! seasonal efficiency falls and the compressor wears out early.
//!
//! Counted over the whole trend from the compressor's run status (`crate::cycles::count`: the
//! off-to-on changes of a 0/1 status, the fewest starts a resampled duty allows), per observed
//! day (a data gap is not a day without starts; idle days trended count), a warning from
//! `max_starts_per_day` and a fault from twice it. A cycle shorter than the trend's interval
//! leaves no trace, so on a trend coarser than `max_interval_min` the count is a floor: a warning
//! or fault stands with a caveat, and an ok declines to info when samples show the compressor on
//! for only part of an interval. A status observed on under half of its span says so. The
//! flagged samples are the starts on days with at least `max_starts_per_day` of them.

use std::collections::BTreeMap;

use crate::cycles;
use crate::engine::{
    round2, severity_of, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity, EVENTS_METRIC,
};

/// Under this share of its first-to-last span observed, a start rate stands for the observed
/// days only, and says so.
pub const LOW_COVERAGE_FRAC: f64 = 0.5;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "compressor_short_cycle",
        families: &[],
        inputs: Inputs { required: &["compressor_status"], optional: &[], gating: &[], one_of: &[], needs_gating: false },
        params: vec![
            ParamSpec::number(
                "max_starts_per_day",
                12.0,
                "compressor starts per day (off-to-on transitions over the trend's span)",
                (6.0, 72.0),
                "about one start every two hours averaged over the days trended: a screening ceiling, not a minimum off-timer's limit (a 5-minute timer alone allows a dozen starts an hour)",
                "Take the manufacturer's minimum run and off times and the staging differential into account, and better, count starts per day on the unit in a known-good week of like weather and set the ceiling above its busiest day (not on the period being judged, which would hide the fault). Warn at it, fault at twice it; idle days trended lower the rate.",
            ),
            ParamSpec::number(
                "long_run_min",
                20.0,
                "minutes (median run)",
                (5.0, 60.0),
                "a compressor whose runs last twenty minutes at the median is cycling on its thermostat, not short cycling: a healthy single-stage unit at part load starts two or three times an hour",
                "Under the fault level a unit whose median run is at least this long is info, not warn, when the trend is fine enough to time the runs (an interval of at most half this). Set it to the run length under which the manufacturer calls a cycle short; 60 judges on starts alone.",
            ),
            ParamSpec::number(
                "max_interval_min",
                15.0,
                "minutes",
                (5.0, 60.0),
                "the 15-minute grid most trends are read on: a start-to-start cycle shorter than the interval cannot be counted",
                "Keep it at or below the compressor's shortest cycle (minimum run plus minimum off). Rather than raise it, run the rule on the trend's own interval so the cycles can be seen.",
            ),
        ],
        judged_basis: "compressor-status samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let status = frame.required("compressor_status");
    let Some(c) = cycles::count(&frame.ts, status) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "fewer than ten compressor-status samples")]);
    };
    let (limit, max_interval) = (params.number(spec, "max_starts_per_day"), params.number(spec, "max_interval_min"));
    let per_day = c.starts_per_day();
    let severity = severity_of(per_day, limit, 2.0 * limit);
    let (severity, coarse, declined) = cycles::resolution_check(
        severity,
        c.interval_min,
        max_interval,
        c.n_partial,
        "compressor starts",
        "a compressor cycle shorter than the interval",
        ("max_starts_per_day", limit),
    );
    let mut caveats: Vec<String> = coarse.into_iter().collect();
    if c.observed_days < LOW_COVERAGE_FRAC * c.span_days {
        caveats.push(format!(
            "the compressor status was observed on only {:.1} of the {:.1} days from its first sample to its last (the rest are data gaps): the start rate stands for the observed days alone",
            c.observed_days, c.span_days
        ));
    }
    let at: Vec<(usize, usize)> = c.starts.iter().map(|&i| (i, 1)).collect();
    let flagged = cycles::on_busy_days(&frame.ts, &at, limit);
    let mut metrics = BTreeMap::new();
    metrics.insert("starts_per_day".into(), round2(per_day));
    metrics.insert("max_starts_per_day".into(), limit);
    metrics.insert("runtime_pct".into(), round2(c.runtime_pct));
    metrics.insert("n_starts".into(), c.starts.len() as f64);
    metrics.insert("n_days".into(), round2(c.span_days));
    metrics.insert("n_days_observed".into(), round2(c.observed_days));
    metrics.insert("n_partial".into(), c.n_partial as f64);
    metrics.insert(EVENTS_METRIC.into(), flagged.len() as f64);
    if let Some(m) = c.interval_min {
        metrics.insert("interval_min".into(), round2(m));
    }
    let mut runs: Vec<f64> = c.runs.iter().map(|r| r.hours * 60.0).collect();
    let median_run = crate::engine::median(&mut runs);
    if !median_run.is_nan() {
        metrics.insert("median_run_min".into(), round2(median_run));
    }
    // frequent starts with long runs: a thermostat's cycling, when the runs can be timed
    let long_run = params.number(spec, "long_run_min");
    let timed = c.interval_min.is_some_and(|m| m <= long_run / 2.0);
    let severity = if severity == Severity::Warn && timed && median_run >= long_run {
        caveats.push(format!(
            "{per_day:.1} starts a day is above the {limit} ceiling, but the runs last {median_run:.0} minutes at the median (at least long_run_min {long_run}): a compressor cycling on its thermostat, not short cycling"
        ));
        Severity::Info
    } else {
        severity
    };
    let mut summary =
        format!("{per_day:.1} compressor starts a day (limit {limit}), running {:.0}% of the time", c.runtime_pct);
    if severity >= Severity::Warn && !median_run.is_nan() {
        summary.push_str(&format!(
            " in runs of {median_run:.0} minutes at the median -- check the stage size, the thermostat differential and the minimum run and off timers"
        ));
    }
    if declined {
        summary.push_str(&format!("; not confirmed on a {}-minute trend", c.interval_min.unwrap_or(f64::NAN)));
    }
    let judged = status.iter().filter(|v| !v.is_nan()).count();
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

    /// `days` whole days at 5 minutes (a last sample closing the span), the compressor starting
    /// `per_day` times a day for 15 minutes (288 must divide by `per_day`).
    fn unit(days: usize, per_day: usize) -> Frame {
        let n = days * 288 + 1;
        let status: Vec<f64> = (0..n)
            .map(|i| if per_day > 0 && (i % 288) % (288 / per_day) < 3 && i < days * 288 { 1.0 } else { 0.0 })
            .collect();
        Frame::from_rows(&every(MONDAY, 5 * MINUTE, n), &[("compressor_status", status)])
    }

    #[test]
    fn a_compressor_starting_a_few_times_a_day_is_ok() {
        let r = run(&RULE, &unit(7, 8), &Params::default());
        assert_eq!((r.severity, r.metrics["starts_per_day"], r.metrics["n_starts"]), (Severity::Ok, 8.0, 56.0));
        assert!((r.metrics["runtime_pct"] - 100.0 * 24.0 / 288.0).abs() < 0.1, "{:?}", r.metrics);
        assert_eq!(r.metrics["median_run_min"], 15.0);
        assert!(r.caveats.is_empty() && r.flagged.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn short_cycling_is_found_at_its_severity() {
        let r = run(&RULE, &unit(7, 16), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!(r.summary.contains("runs of 15 minutes"), "{}", r.summary);
        assert_eq!(r.flagged.len(), 7 * 16);
        assert_eq!(run(&RULE, &unit(7, 24), &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn the_limit_at_its_boundary_with_defaults_and_overrides() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        assert_eq!(sev(&unit(7, 12), &Params::default()), Severity::Warn);
        assert_eq!(sev(&unit(7, 12), &numbers(&[("max_starts_per_day", 12.01)])), Severity::Ok);
        assert_eq!(sev(&unit(7, 24), &numbers(&[("max_starts_per_day", 12.01)])), Severity::Warn);
        assert_eq!(sev(&unit(7, 12), &numbers(&[("max_starts_per_day", 6.0)])), Severity::Fault);
    }

    #[test]
    fn frequent_starts_with_long_runs_are_a_thermostat_cycling() {
        // a week at 5 minutes, 16 starts a day of 25-minute runs: info, with a caveat
        let n = 7 * 288;
        let status: Vec<f64> = (0..n).map(|i| if (i % 288) % 18 < 5 { 1.0 } else { 0.0 }).collect();
        let f = Frame::from_rows(&every(MONDAY, 5 * MINUTE, n), &[("compressor_status", status)]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["median_run_min"]), (Severity::Info, 25.0), "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("cycling on its thermostat")), "{:?}", r.caveats);
        // judged on starts alone when long_run_min is above the runs
        assert_eq!(run(&RULE, &f, &numbers(&[("long_run_min", 30.0)])).severity, Severity::Warn);
    }

    #[test]
    fn a_coarse_duty_trend_is_a_floor() {
        // hourly duties of 8 starts a day of 15 minutes: a quarter-hour on in some hours
        let f = unit(7, 8);
        let s = &f.cols["compressor_status"];
        let n = f.len().div_ceil(12);
        let duty: Vec<f64> = (0..n)
            .map(|j| {
                let v = &s[j * 12..((j + 1) * 12).min(s.len())];
                v.iter().sum::<f64>() / v.len() as f64
            })
            .collect();
        let hourly =
            Frame::from_rows(&(0..n).map(|j| f.ts[j * 12]).collect::<Vec<_>>(), &[("compressor_status", duty)]);
        let r = run(&RULE, &hourly, &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!(r.summary.contains("not confirmed on a 60-minute trend"), "{}", r.summary);
        assert_eq!(r.metrics["starts_per_day"], 8.0, "each part-on hour is one start");
        let r = run(&RULE, &hourly, &numbers(&[("max_interval_min", 60.0)]));
        assert_eq!((r.severity, r.caveats.len()), (Severity::Ok, 0));
        let r = run(&RULE, &hourly, &numbers(&[("max_starts_per_day", 8.0)]));
        assert_eq!((r.severity, r.caveats.len()), (Severity::Warn, 1));
    }

    #[test]
    fn gaps_are_not_observed_days_and_say_so() {
        // a week with four days missing: the rate is over the three days trended
        let f = unit(7, 16);
        let keep: Vec<usize> = (0..f.len()).filter(|i| !(288..5 * 288).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
            &[("compressor_status", keep.iter().map(|&i| f.cols["compressor_status"][i]).collect())],
        );
        let r = run(&RULE, &g, &Params::default());
        assert!((r.metrics["n_days_observed"] - 3.0).abs() < 0.01, "{:?}", r.metrics);
        assert_eq!(r.metrics["n_days"], 7.0);
        assert!((r.metrics["starts_per_day"] - 16.0).abs() < 0.05, "{:?}", r.metrics);
        assert!(r.caveats.iter().any(|c| c.contains("observed on only 3.0 of the 7.0 days")), "{:?}", r.caveats);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [unit(3, 16), unit(2, 0)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn an_idle_compressor_does_not_short_cycle() {
        let r = run(&RULE, &unit(3, 0), &Params::default());
        assert_eq!((r.severity, r.metrics["n_starts"], r.metrics["runtime_pct"]), (Severity::Ok, 0.0, 0.0));
        assert!(!r.metrics.contains_key("median_run_min"));
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("compressor_stage", vec![1.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["compressor_status".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let few = Frame::from_rows(&every(MONDAY, H, 5), &[("compressor_status", vec![1.0, 0.0, 1.0, 0.0, 1.0])]);
        assert_eq!(run(&RULE, &few, &Params::default()).severity, Severity::Info);
        let mut nan = vec![f64::NAN; 24];
        nan[3] = 1.0;
        assert_eq!(
            run(&RULE, &Frame::from_rows(&every(MONDAY, H, 24), &[("compressor_status", nan)]), &Params::default())
                .severity,
            Severity::Info
        );
    }
}
