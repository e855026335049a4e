//! `compressor_staging`: a multi-stage compressor that hunts between stages instead of holding
//! one (a stage differential set too tight, no stage-up delay, a sensor too close to the coil).
//! Every change of stage costs efficiency and wears the compressor; it is the DX counterpart of
//! a chiller plant staging its chillers on and off.
//!
//! Counted over the whole trend: the stage changes per observed day while the compressor runs
//! (`crate::cycles::stage_changes`: a change counts with a stage above 0 on both sides of it, so
//! a start or a stop is `compressor_short_cycle`'s, not this rule's), a warning from
//! `max_changes_per_day` and a fault from twice it. A resampled stage is the interval's mean, so
//! a stage held for less than the interval averages away: on a trend coarser than
//! `max_interval_min` the count is a floor, a warning or fault stands with a caveat and an ok
//! declines to info when samples sit between two stages. A trend shorter than a day is read per
//! day over one day. The flagged samples are the stage changes on days with at least
//! `max_changes_per_day` of them.
//!
//! Unlike the reference, the rate is per observed day (a logger outage is not days without a
//! change) rather than per day of the span.

use std::collections::BTreeMap;

use crate::cycles;
use crate::engine::{
    round2, severity_of, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity, EVENTS_METRIC,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "compressor_staging",
        families: &[],
        inputs: Inputs { required: &["compressor_stage"], optional: &[], gating: &[], one_of: &[], needs_gating: false },
        params: vec![
            ParamSpec::number(
                "max_changes_per_day",
                24.0,
                "compressor-stage changes per day",
                (8.0, 96.0),
                "about one change an hour, up and back every two hours of running: more than a stage-up delay and a sound differential let through in a normal day",
                "Count stage changes per day on units of the same model in a known-good week of like weather and set the ceiling above their highest day; the controller's stage-up delay and minimum stage time bound what is possible. Warn at it, fault at twice it.",
            ),
            ParamSpec::number(
                "max_interval_min",
                5.0,
                "minutes",
                (1.0, 15.0),
                "a stage held for less than the interval averages into its neighbours in a resampled mean",
                "Keep it at or below the controller's minimum time on a stage. Rather than raise it, run the rule on the trend's own interval (resample no coarser than this).",
            ),
        ],
        judged_basis: "compressor-stage samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let stage = frame.required("compressor_stage");
    let Some(c) = cycles::stage_changes(&frame.ts, stage) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "fewer than two compressor-stage samples")]);
    };
    let (limit, max_interval) = (params.number(spec, "max_changes_per_day"), params.number(spec, "max_interval_min"));
    let per_day = c.per_day();
    let severity = severity_of(per_day, limit, 2.0 * limit);
    let (severity, coarse, declined) = cycles::resolution_check(
        severity,
        c.interval_min,
        max_interval,
        c.n_partial,
        "stage changes",
        "a stage held for less than the interval",
        ("max_changes_per_day", limit),
    );
    let mut caveats: Vec<String> = coarse.into_iter().collect();
    caveats.extend(cycles::short_trend_caveat(c.span_days, "stage changes"));
    let top = crate::engine::span(stage).1;
    let running_h: f64 = {
        let w = frame.weights_hours();
        (0..frame.len()).filter(|&i| stage[i].round_ties_even() > 0.0).map(|i| w[i]).sum::<f64>() + 0.0
    };
    let flagged = cycles::on_busy_days(&frame.ts, &c.at, limit);
    let mut metrics = BTreeMap::new();
    metrics.insert("stage_changes_per_day".into(), round2(per_day));
    metrics.insert("max_changes_per_day".into(), limit);
    metrics.insert("n_changes".into(), c.count() as f64);
    metrics.insert("max_stage".into(), top);
    metrics.insert("running_hours".into(), round2(running_h));
    metrics.insert("n_days".into(), round2(c.observed_days));
    metrics.insert("span_days".into(), round2(c.span_days));
    metrics.insert("n_partial".into(), c.n_partial as f64);
    metrics.insert(EVENTS_METRIC.into(), flagged.len() as f64);
    if let Some(m) = c.interval_min {
        metrics.insert("interval_min".into(), round2(m));
    }
    let mut summary = format!("{per_day:.1} stage changes a day while running (limit {limit}), up to stage {top}");
    if severity >= Severity::Warn {
        summary.push_str(" -- check the stage differential and the stage-up delay");
    }
    if declined {
        summary.push_str(&format!("; not confirmed on a {}-minute trend", c.interval_min.unwrap_or(f64::NAN)));
    }
    let judged = stage.iter().filter(|v| !v.is_nan()).count();
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

    /// `days` whole days at 5 minutes (a last sample closing the span): off at night, stage 1
    /// from 06:00 to 18:00, stepping up to stage 2 for 10 minutes in the middle of each of
    /// `per_day` equal parts of the day (two changes each; 144 must divide by `per_day`).
    fn unit(days: usize, per_day: usize) -> Frame {
        let n = days * 288 + 1;
        let stage: Vec<f64> = (0..n)
            .map(|i| {
                let k = i % 288;
                if !(72..216).contains(&k) {
                    0.0
                } else if per_day > 0 && [72 / per_day, 72 / per_day + 1].contains(&((k - 72) % (144 / per_day))) {
                    2.0
                } else {
                    1.0
                }
            })
            .collect();
        Frame::from_rows(&every(MONDAY, 5 * MINUTE, n), &[("compressor_stage", stage)])
    }

    #[test]
    fn a_unit_holding_its_stage_is_ok_and_starts_and_stops_do_not_count() {
        // two starts and stops a day, no stage change
        let r = run(&RULE, &unit(7, 0), &Params::default());
        assert_eq!((r.severity, r.metrics["n_changes"], r.metrics["max_stage"]), (Severity::Ok, 0.0, 1.0));
        assert!(r.caveats.is_empty() && r.flagged.is_empty());
        assert!((r.metrics["running_hours"] - 7.0 * 12.0).abs() < 1e-9, "{:?}", r.metrics);
        let r = run(&RULE, &unit(7, 6), &Params::default());
        assert_eq!((r.severity, r.metrics["stage_changes_per_day"]), (Severity::Ok, 12.0));
        assert!(!r.summary.contains("check"), "{}", r.summary);
    }

    #[test]
    fn hunting_is_found_at_its_severity() {
        // 18 excursions a day are 36 changes (a warning), 36 are 72 (a fault)
        let r = run(&RULE, &unit(7, 18), &Params::default());
        assert_eq!((r.severity, r.metrics["stage_changes_per_day"]), (Severity::Warn, 36.0), "{}", r.summary);
        assert!(r.summary.contains("stage differential"), "{}", r.summary);
        assert_eq!(r.flagged.len() as f64, r.metrics["n_changes"]);
        let r = run(&RULE, &unit(7, 36), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
    }

    #[test]
    fn the_limit_at_its_boundary_with_defaults_and_overrides() {
        let f = unit(7, 18);
        let rate = run(&RULE, &f, &Params::default()).metrics["stage_changes_per_day"];
        let sev = |p: &Params| run(&RULE, &f, p).severity;
        assert_eq!(sev(&numbers(&[("max_changes_per_day", rate)])), Severity::Warn);
        assert_eq!(sev(&numbers(&[("max_changes_per_day", rate + 0.01)])), Severity::Ok);
        assert_eq!(sev(&numbers(&[("max_changes_per_day", rate / 2.0)])), Severity::Fault);
        assert_eq!(sev(&numbers(&[("max_changes_per_day", rate / 2.0 + 0.01)])), Severity::Warn);
    }

    #[test]
    fn a_coarse_trend_is_a_floor_and_cannot_vouch_for_an_ok() {
        // 15-minute means of unit(7, 6): each 10-minute excursion to stage 2 reads 1.67 or 1.33
        let f = unit(7, 6);
        let n = f.len().div_ceil(3);
        let s = &f.cols["compressor_stage"];
        let mean: Vec<f64> = (0..n)
            .map(|j| {
                let v = &s[j * 3..((j + 1) * 3).min(s.len())];
                v.iter().sum::<f64>() / v.len() as f64
            })
            .collect();
        let coarse = Frame::from_rows(&(0..n).map(|j| f.ts[j * 3]).collect::<Vec<_>>(), &[("compressor_stage", mean)]);
        let r = run(&RULE, &coarse, &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!(r.summary.contains("not confirmed on a 15-minute trend"), "{}", r.summary);
        assert!(r.caveats[0].contains("max_changes_per_day"), "{:?}", r.caveats);
        let r = run(&RULE, &coarse, &numbers(&[("max_interval_min", 15.0)]));
        assert_eq!((r.severity, r.caveats.len()), (Severity::Ok, 0));
        // at the limit on a coarse trend: the warning stands, with the caveat
        let r = run(&RULE, &coarse, &numbers(&[("max_changes_per_day", 1.0)]));
        assert_eq!((r.severity, r.caveats.len()), (Severity::Fault, 1));
    }

    #[test]
    fn gaps_are_not_observed_days() {
        let f = unit(7, 18);
        let keep: Vec<usize> = (0..f.len()).filter(|i| !(288..4 * 288).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
            &[("compressor_stage", keep.iter().map(|&i| f.cols["compressor_stage"][i]).collect())],
        );
        let (a, b) = (run(&RULE, &g, &Params::default()), run(&RULE, &f, &Params::default()));
        assert!((a.metrics["n_days"] - 4.0).abs() < 0.01, "{:?}", a.metrics);
        // the step across the gap is not observed either: 4 days less one step
        assert!(
            (a.metrics["stage_changes_per_day"] - b.metrics["stage_changes_per_day"]).abs() < 0.05,
            "{:?}",
            a.metrics
        );
        // the running hours are of time: the gap is not running
        assert!((a.metrics["running_hours"] - 4.0 * 12.0).abs() < 0.2, "{:?}", a.metrics);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [unit(3, 18), unit(2, 0)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn an_idle_unit_is_not_judged_hunting_and_short_trends_read_over_a_day() {
        let off = Frame::from_rows(&every(MONDAY, H, 48), &[("compressor_stage", vec![0.0; 48])]);
        let r = run(&RULE, &off, &Params::default());
        assert_eq!((r.severity, r.metrics["running_hours"]), (Severity::Ok, 0.0));
        let short = Frame::from_rows(
            &every(MONDAY, 5 * MINUTE, 13),
            &[("compressor_stage", (0..13).map(|i| if i % 2 == 0 { 1.0 } else { 2.0 }).collect())],
        );
        let r = run(&RULE, &short, &Params::default());
        assert_eq!(r.metrics["stage_changes_per_day"], 12.0);
        assert!(r.caveats.iter().any(|c| c.contains("spans only 1.0 h")), "{:?}", r.caveats);
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("compressor_status", vec![1.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["compressor_stage".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY], &[("compressor_stage", vec![2.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Info);
        let nan = Frame::from_rows(&every(MONDAY, H, 3), &[("compressor_stage", vec![2.0, f64::NAN, 1.0])]);
        assert_eq!(run(&RULE, &nan, &Params::default()).metrics["n_changes"], 1.0);
    }
}
