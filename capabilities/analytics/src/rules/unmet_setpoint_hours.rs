//! `unmet_setpoint_hours`: a zone is outside its comfort band while it should be comfortable.
//! A sample is too hot when the space temperature is more than `tol_F` above the cooling
//! setpoint, too cold when it is more than `tol_F` below the heating setpoint; the share of
//! occupied time that is either is warned at `warn_pct` and a fault at `fault_pct`. Occupied
//! time is the trended occupancy point when there is one, else weekdays from `start_hour` up to
//! `end_hour`. A side whose setpoint is not trended is not judged: a clean result on one side
//! only is `info`, not a pass.
//!
//! Beyond the reference: when the setpoints move (the start of occupancy lifting the heating
//! setpoint out of its night setback, say), the zone needs time to follow, and the reference
//! counts that warm-up as unmet. A healthy zone with a deep setback then fails on its own
//! schedule: a heating setpoint stepping from 60 to 70 °F at the start of an 11-hour day takes
//! an hour or two to reach on a cold morning, 9-18 % of occupied time, a warning or a fault at
//! the default levels. Here the samples after a setpoint change (either setpoint moving by more
//! than `tol_F`) are recovery, not judged, until the zone first comes into its new band, for at
//! most [`RECOVERY_H`] hours after the change; a zone still out of its band by then is judged
//! from there on, so a zone that never reaches setpoint is still found. The recovered time is
//! the `recovery_hours` metric.

use std::collections::BTreeMap;

use crate::engine::{
    in_schedule, on, round2, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec, Severity,
};

/// The longest a zone is given (hours) to reach a band its setpoints have just moved to.
pub const RECOVERY_H: f64 = 2.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "unmet_setpoint_hours",
        families: &[],
        inputs: Inputs {
            required: &["space_temp"],
            optional: &["cool_sp", "heat_sp", "occupancy"],
            gating: &[],
            one_of: &[&["cool_sp", "heat_sp"]],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "tol_F",
                1.5,
                "°F",
                (0.5, 4.0),
                "a zone loop swings a degree or so around its setpoint; past one and a half degrees an occupant notices",
                "Take the excursion past setpoint that healthy zones reach in comfortable hours (a high percentile) and set this just above it; keep it the same as reheat_capacity_shortfall's tol_f.",
            ),
            ParamSpec::number(
                "warn_pct",
                5.0,
                "% of occupied samples",
                (1.0, 20.0),
                "a comfortable zone is out of its band for a few percent of occupied time at most (design days, door openings)",
                "Read unmet_pct on zones nobody complains about and set this above the highest of them.",
            ),
            ParamSpec::number(
                "fault_pct",
                15.0,
                "% of occupied samples",
                (5.0, 50.0),
                "out of its band for one occupied hour in seven is a comfort problem, not weather",
                "Keep it well above warn_pct; raise it where a run of design days alone pushes healthy zones past it.",
            ),
            ParamSpec::number(
                "start_hour",
                7.0,
                "hour of day (0-23)",
                (0.0, 23.0),
                "an office weekday from 07:00, used only when no occupancy point is trended",
                "Use the hour occupied mode starts in the BAS schedule (or when the fan starts on a typical week); mapping the occupancy point replaces the schedule.",
            ),
            ParamSpec::number(
                "end_hour",
                18.0,
                "hour of day (1-24)",
                (1.0, 24.0),
                "an office weekday to 18:00 (exclusive), used only when no occupancy point is trended",
                "Use the hour occupied mode ends in the BAS schedule or the trends.",
            ),
        ],
        judged_basis: "occupied samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let st = frame.required("space_temp");
    let (cool, heat) = (frame.col("cool_sp"), frame.col("heat_sp"));
    let occ = frame.col("occupancy");
    let tol = params.number(spec, "tol_F");
    let (start, end) = (params.number(spec, "start_hour"), params.number(spec, "end_hour"));
    let weekdays = [0.0, 1.0, 2.0, 3.0, 4.0];
    let occupied = |i: usize| match occ {
        Some(o) => on(o[i]),
        None => in_schedule(frame.ts[i], start, end, &weekdays),
    };
    let at = |c: Option<&[f64]>, i: usize| c.map_or(f64::NAN, |c| c[i]);
    let w = frame.weights_hours();
    let (mut judged, mut judged_h) = (0usize, 0.0);
    let (mut hot, mut cold, mut flagged) = (Vec::new(), Vec::new(), Vec::new());
    let recovery_ns = (RECOVERY_H * crate::engine::NS_PER_HOUR as f64) as i64;
    let (mut recovery_h, mut moved_at) = (0.0, None::<i64>);
    let mut band = (f64::NAN, f64::NAN);
    for i in 0..frame.len() {
        let (c, h) = (at(cool, i), at(heat, i));
        // a setpoint that moves by more than the tolerance starts a recovery
        let moved = |old: f64, new: f64| !old.is_nan() && !new.is_nan() && (new - old).abs() > tol;
        if moved(band.0, c) || moved(band.1, h) {
            moved_at = Some(frame.ts[i]);
        }
        if !c.is_nan() {
            band.0 = c;
        }
        if !h.is_nan() {
            band.1 = h;
        }
        if st[i].is_nan() || (c.is_nan() && h.is_nan()) || !occupied(i) {
            continue;
        }
        let too_hot = !c.is_nan() && st[i] > c + tol;
        let too_cold = !h.is_nan() && st[i] < h - tol;
        if let Some(t0) = moved_at {
            if (too_hot || too_cold) && frame.ts[i] - t0 < recovery_ns {
                recovery_h += w[i];
                continue;
            }
            // in the new band, or out of time: judged from here on
            moved_at = None;
        }
        judged += 1;
        judged_h += w[i];
        if too_hot {
            hot.push(i as u32);
        }
        if too_cold {
            cold.push(i as u32);
        }
        if too_hot || too_cold {
            flagged.push(i as u32);
        }
    }
    if judged == 0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no occupied sample with the space temperature and a setpoint",
        )]);
    }
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx);
    let (hot_h, cold_h, unmet_h) = (hours(&hot), hours(&cold), hours(&flagged));
    let pct = |h: f64| 100.0 * h / judged_h;
    let unmet_pct = pct(unmet_h);
    let mut severity = severity_of(unmet_pct, params.number(spec, "warn_pct"), params.number(spec, "fault_pct"));
    let mut caveats = Vec::new();
    if heat.is_none() {
        caveats.push("no heating setpoint is trended: too cold was not judged".to_string());
    }
    if cool.is_none() {
        caveats.push("no cooling setpoint is trended: too hot was not judged".to_string());
    }
    if severity == Severity::Ok && !caveats.is_empty() {
        // one side clean says nothing about the other
        severity = Severity::Info;
    }
    if occ.is_none() {
        caveats
            .push(format!("no occupancy point: occupied time is assumed to be weekdays {start:02}:00 to {end:02}:00"));
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("unmet_pct".into(), round2(unmet_pct));
    if cool.is_some() {
        metrics.insert("too_hot_pct".into(), round2(pct(hot_h)));
    }
    if heat.is_some() {
        metrics.insert("too_cold_pct".into(), round2(pct(cold_h)));
    }
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("unmet_hours".into(), round2(unmet_h));
    metrics.insert("recovery_hours".into(), round2(recovery_h));
    let side = |name: &str, h: f64, present: bool| {
        if present {
            format!("{name} {:.1}%", pct(h))
        } else {
            format!("{name} not judged")
        }
    };
    let summary = format!(
        "the zone is more than {tol} °F outside its setpoints for {unmet_pct:.1}% of {} ({unmet_h:.1} of {judged_h:.1} h; {}, {})",
        spec.judged_basis,
        side("too hot", hot_h, cool.is_some()),
        side("too cold", cold_h, heat.is_some()),
    );
    let condition = |name: &str, idx: Vec<u32>| Condition {
        name: name.into(),
        flagged_hours: hours(&idx),
        flagged: idx,
        judged,
        judged_hours: judged_h,
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged)
        .with_conditions(vec![condition("too_hot", hot), condition("too_cold", cold)])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A weekday of hourly samples from Monday 00:00, occupied 07:00-18:00, with the space
    /// temperature `st(hour)` against 74 / 70 °F setpoints.
    fn day(st: impl Fn(i64) -> f64) -> Frame {
        let ts = every(MONDAY, H, 24);
        let occ = (0..24).map(|h| if (7..18).contains(&h) { 1.0 } else { 0.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("space_temp", (0..24).map(&st).collect()),
                ("cool_sp", vec![74.0; 24]),
                ("heat_sp", vec![70.0; 24]),
                ("occupancy", occ),
            ],
        )
    }

    #[test]
    fn a_comfortable_zone_is_ok() {
        let r = run(&RULE, &day(|h| 72.0 + 0.5 * ((h % 3) as f64 - 1.0)), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 11));
        assert_eq!(r.metrics["unmet_pct"], 0.0);
    }

    #[test]
    fn a_hot_zone_and_a_cold_zone_are_faults_with_their_side() {
        let hot = run(&RULE, &day(|h| if h >= 12 { 78.0 } else { 73.0 }), &Params::default());
        assert_eq!(hot.severity, Severity::Fault);
        assert_eq!((hot.conditions[0].flagged.len(), hot.conditions[1].flagged.len()), (6, 0));
        assert!((hot.metrics["too_hot_pct"] - 100.0 * 6.0 / 11.0).abs() < 0.01, "{:?}", hot.metrics);
        let cold = run(&RULE, &day(|_| 66.0), &Params::default());
        assert_eq!(
            (cold.severity, cold.metrics["too_cold_pct"], cold.metrics["too_hot_pct"]),
            (Severity::Fault, 100.0, 0.0)
        );
        assert_eq!(cold.flagged.len(), 11);
    }

    #[test]
    fn the_tolerance_and_share_boundaries() {
        // exactly tol_F past the setpoint is within the band; just past it is not
        assert_eq!(run(&RULE, &day(|_| 75.5), &Params::default()).flagged.len(), 0);
        assert_eq!(run(&RULE, &day(|_| 75.51), &Params::default()).flagged.len(), 11);
        assert_eq!(run(&RULE, &day(|_| 68.5), &Params::default()).flagged.len(), 0);
        assert_eq!(run(&RULE, &day(|_| 68.49), &Params::default()).flagged.len(), 11);
        // an override moves the band
        assert_eq!(run(&RULE, &day(|_| 75.51), &numbers(&[("tol_F", 2.0)])).flagged.len(), 0);
        // 20 occupied hours, 1 unmet = 5 % (warn_pct, at it: warn); 3 = 15 % (fault_pct, at it)
        let two_days = |unmet: i64| {
            let ts: Vec<i64> = (0..48).map(|i| MONDAY + i * H).collect();
            let occ: Vec<f64> = (0..48).map(|i| if (8..18).contains(&(i % 24)) { 1.0 } else { 0.0 }).collect();
            let mut k = 0;
            let st: Vec<f64> = occ
                .iter()
                .map(|&o| {
                    k += (o > 0.0) as i64;
                    if o > 0.0 && k <= unmet {
                        80.0
                    } else {
                        72.0
                    }
                })
                .collect();
            Frame::from_rows(
                &ts,
                &[("space_temp", st), ("cool_sp", vec![74.0; 48]), ("heat_sp", vec![70.0; 48]), ("occupancy", occ)],
            )
        };
        let sev = |unmet, p: &Params| run(&RULE, &two_days(unmet), p).severity;
        assert_eq!(sev(0, &Params::default()), Severity::Ok);
        assert_eq!(sev(1, &Params::default()), Severity::Warn);
        assert_eq!(sev(2, &Params::default()), Severity::Warn);
        assert_eq!(sev(3, &Params::default()), Severity::Fault);
        assert_eq!(sev(1, &numbers(&[("warn_pct", 5.1)])), Severity::Ok);
        assert_eq!(sev(3, &numbers(&[("fault_pct", 16.0)])), Severity::Warn);
    }

    #[test]
    fn unoccupied_hours_are_not_judged_and_the_schedule_stands_in_for_occupancy() {
        // hot all night, comfortable all day
        let f = day(|h| if (7..18).contains(&h) { 72.0 } else { 85.0 });
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // never occupied: nothing judged, not a pass
        let mut empty = f.clone();
        empty.cols.insert("occupancy".into(), vec![0.0; 24]);
        let r = run(&RULE, &empty, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // without an occupancy point, weekdays start_hour to end_hour, with a caveat
        let mut sched = f.clone();
        sched.cols.remove("occupancy");
        let r = run(&RULE, &sched, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 11));
        assert!(r.caveats.iter().any(|c| c.contains("weekdays 07:00 to 18:00")), "{:?}", r.caveats);
        let r = run(&RULE, &sched, &numbers(&[("start_hour", 6.0), ("end_hour", 20.0)]));
        assert_eq!((r.judged, r.flagged.len()), (14, 3));
        // a weekend is not in the schedule
        let sat = Frame { ts: sched.ts.iter().map(|t| t + 5 * 24 * H).collect(), ..sched.clone() };
        assert_eq!(run(&RULE, &sat, &Params::default()).judged, 0);
    }

    #[test]
    fn a_zone_recovering_from_its_setback_is_not_unmet() {
        // set back to 60-85 °F unoccupied; at 07:00 the band moves to 70-74 and the zone takes
        // two hours to warm up from 62 °F
        let ts = every(MONDAY, H, 24);
        let occupied = |h: i64| (7..18).contains(&h);
        let st = |late: i64| -> Vec<f64> { (0..24).map(|h| if h < 7 + late { 62.0 } else { 71.0 }).collect() };
        let frame = |st: Vec<f64>| {
            Frame::from_rows(
                &ts,
                &[
                    ("space_temp", st),
                    ("heat_sp", (0..24).map(|h| if occupied(h) { 70.0 } else { 60.0 }).collect()),
                    ("cool_sp", (0..24).map(|h| if occupied(h) { 74.0 } else { 85.0 }).collect()),
                    ("occupancy", (0..24).map(|h| occupied(h) as u8 as f64).collect()),
                ],
            )
        };
        let r = run(&RULE, &frame(st(2)), &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["recovery_hours"]), (Severity::Ok, 9, 2.0));
        // a zone still cold after two hours is judged from then on
        let r = run(&RULE, &frame(st(5)), &Params::default());
        assert_eq!((r.judged, r.flagged.len(), r.metrics["recovery_hours"]), (9, 3, 2.0));
        assert_eq!(r.severity, Severity::Fault);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // every 10 minutes from 08:00 to 12:00 and every hour after: the hot hourly samples
        // count an hour each, not a tenth
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + 8 * H + i * 10 * MINUTE).collect();
        ts.extend((0..4).map(|i| MONDAY + 12 * H + i * H));
        let n = ts.len();
        let st: Vec<f64> = (0..n).map(|i| if i >= 24 { 78.0 } else { 72.0 }).collect();
        let f = Frame::from_rows(&ts, &[("space_temp", st), ("cool_sp", vec![74.0; n]), ("heat_sp", vec![70.0; n])]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.flagged.len(), 4);
        // each hourly sample stands for at most 1.5 typical (10-minute) steps: 15 minutes
        let w = f.weights_hours();
        let hot: f64 = w[24..].iter().sum();
        assert!((r.metrics["unmet_hours"] - round2(hot)).abs() < 1e-9);
        assert!((r.metrics["unmet_pct"] - round2(100.0 * hot / w.iter().sum::<f64>())).abs() < 0.01);
        // a day missing in the middle of a hot week is not counted
        let mut ts: Vec<i64> = every(MONDAY, H, 24 * 5);
        ts.retain(|t| (t - MONDAY) / (24 * H) != 2);
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[("space_temp", vec![72.0; n]), ("cool_sp", vec![74.0; n]), ("heat_sp", vec![70.0; n])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["judged_hours"]), (44, 44.0));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [day(|h| if h % 2 == 0 { 77.0 } else { 72.0 }), day(|_| 72.0), day(|h| 60.0 + h as f64)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn one_setpoint_judges_one_side_and_is_not_a_pass() {
        let mut f = day(|_| 66.0);
        f.cols.remove("heat_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(!r.metrics.contains_key("too_cold_pct"));
        assert!(r.caveats[0].contains("too cold was not judged"), "{:?}", r.caveats);
        assert!(r.summary.contains("too cold not judged"), "{}", r.summary);
        let mut g = day(|_| 78.0);
        g.cols.remove("heat_sp");
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("space_temp", vec![72.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["cool_sp or heat_sp".into()] }
        );
        let g = Frame::from_rows(&ts, &[("cool_sp", vec![74.0; 3]), ("space_temp", vec![f64::NAN; 3])]);
        assert_eq!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { missing: vec!["space_temp".into()] });
        let one = Frame::from_rows(&[MONDAY + 9 * H], &[("space_temp", vec![80.0]), ("cool_sp", vec![74.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).flagged, vec![0]);
        let empty = Frame::default();
        assert!(matches!(outcome(&RULE, &empty, &Params::default()), Outcome::Skipped { .. }));
        // setpoints trended only where the zone has no reading: nothing judged
        let apart = Frame::from_rows(
            &ts,
            &[("space_temp", vec![72.0, f64::NAN, f64::NAN]), ("cool_sp", vec![f64::NAN, 74.0, 74.0])],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).judged, 0);
    }
}
