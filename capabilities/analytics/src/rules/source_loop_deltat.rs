//! `source_loop_deltat`: a heat-pump source loop (water-source or ground-source) that pumps
//! water without carrying heat. The loop's temperature difference, water back from the heat
//! pumps against water sent to them, is the heat each gallon carries; a loop whose pumps run
//! hour after hour with next to no difference is overpumped (constant speed with no pressure
//! reset, a bypass stuck open, heat-pump isolation valves that stay open with the compressors
//! off), which wastes pump energy and, on a ground loop, flattens the temperature the field can
//! give. Closed-loop heat-pump design practice sizes for a loop difference of about 8-12 °F at
//! design flow, so a loop whose high difference never reaches half of `design_deltat_f` is
//! moving far more water than its heat needs.
//!
//! Judged on the samples with both loop temperatures while the loop pumps (`pump_status`, else
//! a loop pump speed above `min_pump_speed_pct`; with neither, every sample, with a caveat),
//! weighed by time, once `min_hours` of them have built up. The difference's sign follows the
//! season (heat rejected in cooling, taken in heating), so its magnitude is read: a warning when
//! at least `warn_flat_pct` of the pumping time sits under `flat_deltat_f` and the 90th
//! percentile is under half the design difference, a fault at `fault_flat_pct` with the 90th
//! percentile under a quarter of it. The flagged samples are the flat ones. A level check for a
//! loop trended with temperatures only; `loop_deltat_drift` is the drift detector for a chilled-
//! water loop with a baseline and a flow.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, on, round2, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity,
};

/// The 90th percentile's share of the design difference under which a flat loop warns ...
pub const WARN_P90_SHARE: f64 = 0.5;
/// ... and under which it is a fault.
pub const FAULT_P90_SHARE: f64 = 0.25;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "source_loop_deltat",
        families: &["source_loop"],
        inputs: Inputs {
            required: &["source_loop_supply_temp", "source_loop_return_temp"],
            optional: &["pump_status", "source_loop_pump_speed", "source_loop_diff_press"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "design_deltat_f",
                10.0,
                "°F (loop return minus supply, magnitude)",
                (6.0, 15.0),
                "closed-loop heat-pump design practice (ASHRAE, IGSHPA) sizes for roughly 8-12 °F across the loop at about 3 gpm a ton; a design habit, not a code limit",
                "Take the loop's design difference from the mechanical schedule, or the design flow against the block load. A warning needs the 90th percentile under half of it, a fault under a quarter.",
            ),
            ParamSpec::number(
                "flat_deltat_f",
                1.0,
                "°F (loop return minus supply, magnitude)",
                (0.3, 3.0),
                "under a degree across the loop it carries next to no heat, whatever its flow",
                "Set it a little above the two sensors' combined error (a side-by-side check at no load shows their offset).",
            ),
            ParamSpec::number(
                "warn_flat_pct",
                50.0,
                "% of pumping samples",
                (20.0, 80.0),
                "flat for half the pumping time is a loop overpumped through most of its load, not only at light load",
                "Read flat_pct on a loop known to run well in the same season; set this above it.",
            ),
            ParamSpec::number(
                "fault_flat_pct",
                80.0,
                "% of pumping samples",
                (50.0, 95.0),
                "flat nearly all the time: the loop pumps at full flow through every load",
                "Keep it well above warn_flat_pct.",
            ),
            ParamSpec::number(
                "min_pump_speed_pct",
                5.0,
                "% of full pump speed",
                (0.0, 30.0),
                "a pump speed at a few percent is a drive at rest, not a loop pumping",
                "Used only without a pump status. Set it just above the speed the drive reads when the pump is off.",
            ),
            ParamSpec::number(
                "min_hours",
                24.0,
                "h (pumping hours with both loop temperatures)",
                (6.0, 168.0),
                "a day of pumping covers the loop's daily swing of load",
                "Raise it to a week where the load swings by the day of the week; fewer pumping hours than this decline the check.",
            ),
        ],
        judged_basis: "pumping samples with both loop temperatures",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (sup, ret) = (frame.required("source_loop_supply_temp"), frame.required("source_loop_return_temp"));
    let p = |name: &str| params.number(spec, name);
    let (design, flat_f, min_h) = (p("design_deltat_f"), p("flat_deltat_f"), p("min_hours"));
    let mut caveats = Vec::new();
    // whether the loop pumps at each sample (None: unknown there)
    let pumping: Vec<Option<bool>> = if let Some(s) = frame.col("pump_status") {
        s.iter().map(|&v| (!v.is_nan()).then(|| on(v))).collect()
    } else if let Some(speed) = frame.col("source_loop_pump_speed") {
        let floor = p("min_pump_speed_pct");
        as_percent(speed).iter().map(|&v| (!v.is_nan()).then_some(v > floor)).collect()
    } else {
        caveats.push("no loop pump status or speed is trended: every sample is taken as pumping".to_string());
        vec![Some(true); frame.len()]
    };
    let w = frame.weights_hours();
    let judged: Vec<usize> =
        (0..frame.len()).filter(|&i| pumping[i] == Some(true) && !sup[i].is_nan() && !ret[i].is_nan()).collect();
    let judged_h: f64 = judged.iter().map(|&i| w[i]).sum::<f64>() + 0.0;
    if judged_h < min_h {
        let mut f = Finding::not_judged(
            spec,
            &format!("only {judged_h:.1} pumping hours with both loop temperatures, fewer than min_hours ({min_h})"),
        );
        f.caveats.extend(caveats);
        f.metrics.insert("pumping_hours".into(), round2(judged_h));
        return Outcome::Findings(vec![f]);
    }
    let dt = |i: usize| ret[i] - sup[i];
    let share = |keep: &dyn Fn(usize) -> bool| {
        100.0 * judged.iter().filter(|&&i| keep(i)).map(|&i| w[i]).sum::<f64>() / judged_h + 0.0
    };
    let flat: Vec<u32> = judged.iter().filter(|&&i| dt(i).abs() < flat_f).map(|&i| i as u32).collect();
    let flat_pct = share(&|i| dt(i).abs() < flat_f);
    let mut pairs: Vec<(f64, f64)> = judged.iter().map(|&i| (dt(i).abs(), w[i])).collect();
    let p90 = weighted_quantile(&mut pairs, 0.9);
    let med = weighted_quantile(&mut pairs, 0.5);
    let known_h: f64 = (0..frame.len()).filter(|&i| pumping[i].is_some()).map(|i| w[i]).sum();
    let pumped_h: f64 = (0..frame.len()).filter(|&i| pumping[i] == Some(true)).map(|i| w[i]).sum();
    let pumping_pct = if known_h > 0.0 { 100.0 * pumped_h / known_h } else { 0.0 };
    let severity = if flat_pct >= p("fault_flat_pct") && p90 < FAULT_P90_SHARE * design {
        Severity::Fault
    } else if flat_pct >= p("warn_flat_pct") && p90 < WARN_P90_SHARE * design {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("deltat_median_f".into(), round2(med));
    metrics.insert("deltat_p90_f".into(), round2(p90));
    metrics.insert("flat_pct".into(), round2(flat_pct));
    metrics.insert("pumping_pct_of_time".into(), round2(pumping_pct));
    metrics.insert("pumping_hours".into(), round2(judged_h));
    metrics.insert("design_deltat_f".into(), design);
    metrics.insert("return_warmer_pct".into(), round2(share(&|i| dt(i) > flat_f)));
    metrics.insert("return_colder_pct".into(), round2(share(&|i| dt(i) < -flat_f)));
    if let Some(dp) = frame.col("source_loop_diff_press") {
        let mut v: Vec<(f64, f64)> = judged.iter().map(|&i| (dp[i], w[i])).collect();
        let m = weighted_quantile(&mut v, 0.5);
        if !m.is_nan() {
            metrics.insert("diff_press_median".into(), round2(m));
        }
    }
    let summary = if severity == Severity::Ok {
        format!("loop delta-T {med:.1} °F at the median and {p90:.1} °F at the 90th percentile of {judged_h:.0} pumping hours")
    } else {
        format!(
            "the loop pumps {pumping_pct:.0}% of the time but carries almost no heat: its delta-T is under {flat_f} °F for {flat_pct:.0}% of {judged_h:.0} pumping hours and {p90:.1} °F at the 90th percentile, against about {design} °F by design -- overpumping (pump speed or pressure reset, a bypass, heat-pump isolation valves)"
        )
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flat)
        .with_judged(judged.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MONDAY};

    /// `n` hourly samples of a pumping loop at 63 °F supply, the return `dt(i)` away from it.
    fn lp(n: usize, dt: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("source_loop_supply_temp", vec![63.0; n]),
                ("source_loop_return_temp", (0..n).map(|i| 63.0 + dt(i)).collect()),
                ("pump_status", vec![1.0; n]),
            ],
        )
    }

    #[test]
    fn a_loop_carrying_heat_is_ok() {
        // the return 5-7 °F colder in heating
        let r = run(&RULE, &lp(72, |i| -5.0 - (i % 3) as f64), &Params::default());
        assert_eq!((r.severity, r.metrics["flat_pct"], r.metrics["return_colder_pct"]), (Severity::Ok, 0.0, 100.0));
        assert_eq!((r.metrics["deltat_median_f"], r.metrics["deltat_p90_f"]), (6.0, 7.0));
        assert!(r.caveats.is_empty() && r.flagged.is_empty());
    }

    #[test]
    fn a_flat_loop_is_found_at_its_severity() {
        // 0.4 °F almost always, 2 °F now and then: a fault (p90 under 2.5 °F)
        let r = run(&RULE, &lp(100, |i| if i % 10 == 0 { 2.0 } else { 0.4 }), &Params::default());
        assert_eq!((r.severity, r.metrics["flat_pct"]), (Severity::Fault, 90.0));
        assert!(r.summary.contains("overpumping"), "{}", r.summary);
        assert_eq!(r.flagged.len(), 90);
        // flat 60 % of the time, the rest at 4 °F: a warning (p90 under 5 °F, not under 2.5)
        let r = run(&RULE, &lp(100, |i| if i % 10 < 6 { 0.5 } else { 4.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        // the same with the rest at 6 °F: the high difference is there, ok
        let r = run(&RULE, &lp(100, |i| if i % 10 < 6 { 0.5 } else { 6.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn the_thresholds_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        // exactly flat_deltat_f is not flat
        let at = lp(48, |_| 1.0);
        assert_eq!(run(&RULE, &at, &Params::default()).metrics["flat_pct"], 0.0);
        assert_eq!(sev(&at, &numbers(&[("flat_deltat_f", 1.01)])), Severity::Fault);
        // half the time flat, the rest at 2 °F: 50 % is the warning level; 80 % the fault's
        let half = lp(100, |i| if i % 2 == 0 { 0.5 } else { 2.0 });
        assert_eq!(sev(&half, &Params::default()), Severity::Warn);
        assert_eq!(sev(&half, &numbers(&[("warn_flat_pct", 50.01)])), Severity::Ok);
        assert_eq!(sev(&half, &numbers(&[("fault_flat_pct", 50.0)])), Severity::Fault);
        // the 90th percentile exactly half the design difference does not warn
        let p90 = lp(100, |i| if i % 10 < 6 { 0.5 } else { 5.0 });
        assert_eq!(sev(&p90, &Params::default()), Severity::Ok);
        assert_eq!(sev(&p90, &numbers(&[("design_deltat_f", 10.1)])), Severity::Warn);
        // min_hours: 23 pumping hours decline, 24 judge
        assert_eq!(sev(&lp(23, |_| 0.2), &Params::default()), Severity::Info);
        assert_eq!(sev(&lp(24, |_| 0.2), &Params::default()), Severity::Fault);
        assert_eq!(sev(&lp(23, |_| 0.2), &numbers(&[("min_hours", 6.0)])), Severity::Fault);
    }

    #[test]
    fn only_pumping_time_is_judged() {
        // the pump off half the time (a flat loop then is no fault)
        let mut f = lp(96, |i| if i % 2 == 0 { 0.0 } else { 6.0 });
        f.cols.insert("pump_status".into(), (0..96).map(|i| (i % 2) as f64).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["pumping_pct_of_time"]), (Severity::Ok, 48, 50.0));
        // else the pump speed above min_pump_speed_pct (a 0-1 speed read as a fraction)
        f.cols.remove("pump_status");
        f.cols.insert("source_loop_pump_speed".into(), (0..96).map(|i| if i % 2 == 0 { 0.05 } else { 0.6 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).judged, 48);
        assert_eq!(run(&RULE, &f, &numbers(&[("min_pump_speed_pct", 4.0)])).judged, 96);
        // with neither, every sample, with a caveat
        f.cols.remove("source_loop_pump_speed");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.judged, 96);
        assert!(r.caveats[0].contains("every sample is taken as pumping"), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 40 hourly flat samples, then 240 ten-minute samples at 6 °F (40 h): half the time flat
        let mut ts = every(MONDAY, H, 40);
        ts.extend(every(MONDAY + 40 * H, H / 6, 240));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("source_loop_supply_temp", vec![63.0; n]),
                ("source_loop_return_temp", (0..n).map(|i| if i < 40 { 63.2 } else { 69.0 }).collect()),
                ("pump_status", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[..40].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["flat_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        // the hourly samples stand for at most 1.5 typical steps (15 minutes) each: 10 h flat
        // against 40 h at 6 °F, not 40 of 280 samples
        assert_eq!(r.metrics["flat_pct"], 20.0);
        // a day missing from a hourly record is not pumping time
        let g = lp(72, |_| 0.3);
        let keep: Vec<usize> = (0..72).filter(|i| i / 24 != 1).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["pumping_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [lp(60, |i| if i % 3 == 0 { 2.0 } else { 0.3 }), lp(48, |i| i as f64 / 10.0)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn the_loop_pressure_is_reported() {
        let mut f = lp(48, |_| 0.4);
        f.cols.insert("source_loop_diff_press".into(), vec![14.0; 48]);
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["diff_press_median"], 14.0);
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("source_loop_supply_temp", vec![63.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["source_loop_return_temp".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        assert_eq!(run(&RULE, &lp(1, |_| 0.2), &Params::default()).severity, Severity::Info);
        let mut off = lp(48, |_| 0.2);
        off.cols.insert("pump_status".into(), vec![0.0; 48]);
        let r = run(&RULE, &off, &Params::default());
        assert_eq!((r.severity, r.metrics["pumping_hours"]), (Severity::Info, 0.0));
        let apart = Frame::from_rows(
            &every(MONDAY, H, 3),
            &[
                ("source_loop_supply_temp", vec![63.0, f64::NAN, f64::NAN]),
                ("source_loop_return_temp", vec![f64::NAN, 60.0, 60.0]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }
}
