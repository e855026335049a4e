//! `night_weekend_setback`: the supply fan runs through unoccupied hours, so the building is
//! conditioned overnight and at weekends. Occupied hours come from the trended occupancy, else
//! the schedule parameters. A setback is effective when the fan runs in under half as large a
//! share of unoccupied time as of occupied time, or in less than `min_unoccupied_run_pct` of it;
//! failing that, a fan that only cycles to hold the zone at its unoccupied setpoint (or well
//! beyond its occupied temperature) is holding the setback, not missing it. A missing setback is
//! a fault when the fan runs half the unoccupied time or more, else a warning.

use std::collections::BTreeMap;

use crate::engine::{on, round2, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity};

/// How close (°F) to an unoccupied setpoint a zone is "held at" it.
const HOLD_BAND_F: f64 = 1.0;
/// Share of fan-on unoccupied samples that must be holding.
const HOLD_SHARE: f64 = 0.8;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "night_weekend_setback",
        families: &["air_handler", "fan_coil", "heat_pump"],
        inputs: Inputs {
            required: &[],
            optional: &[
                "supply_fan_status",
                "supply_fan_speed",
                "occupancy",
                "space_temp",
                "return_air_temp",
                "heat_sp",
                "cool_sp",
            ],
            gating: &["supply_fan_status", "supply_fan_speed"],
            one_of: &[],
            needs_gating: true,
        },
        params: [
            crate::engine::schedule_params().to_vec(),
            vec![
                ParamSpec::number(
                    "min_unoccupied_run_pct",
                    5.0,
                    "% of unoccupied time",
                    (0.0, 20.0),
                    "a few scattered unoccupied hours (a morning warm-up, a late meeting) are not a missing setback",
                    "Raise it for buildings with frequent after-hours use.",
                ),
                ParamSpec::number(
                    "unoccupied_heat_sp_f",
                    f64::NAN,
                    "°F (unset: the heat_sp point in unoccupied hours)",
                    (45.0, 68.0),
                    "the setback heating setpoint the fan may cycle to hold",
                    "Take it from the sequence's unoccupied heating setpoint.",
                ),
                ParamSpec::number(
                    "unoccupied_cool_sp_f",
                    f64::NAN,
                    "°F (unset: the cool_sp point in unoccupied hours)",
                    (78.0, 95.0),
                    "the setup cooling setpoint the fan may cycle to hold",
                    "Take it from the sequence's unoccupied cooling setpoint.",
                ),
                ParamSpec::number(
                    "min_setback_depth_f",
                    3.0,
                    "°F",
                    (1.0, 10.0),
                    "without a setpoint, a zone held this far beyond its occupied temperature is set back",
                    "Use the smallest setback the sequence would apply.",
                ),
                ParamSpec::number(
                    "max_hold_duty_pct",
                    90.0,
                    "% of the unoccupied hours the fan runs",
                    (50.0, 100.0),
                    "a fan that runs nearly all night is not cycling to hold a setback",
                    "Lower it for well-insulated buildings that should rarely need to cycle.",
                ),
            ],
        ]
        .concat(),
        judged_basis: "unoccupied samples (running share), fan-on unoccupied samples (held setback)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    // status, else speed (an airflow proxy is not enough to call night running)
    let fan = crate::engine::fan_on(frame).map(|(v, _)| v).unwrap_or_default();
    let running = |i: usize| fan[i] == Some(true);
    let known = |i: usize| fan[i].is_some();
    let occ_col = frame.col("occupancy");
    let in_schedule = crate::engine::scheduled(spec, params);
    // each sample's occupancy worked out once, in one loop: both passes below read it (a test
    // called from two loops is a call per sample in the sandbox)
    let occupied: Vec<bool> = match occ_col {
        Some(o) => o.iter().zip(&frame.ts).map(|(&x, &t)| if x.is_nan() { in_schedule(t) } else { on(x) }).collect(),
        None => frame.ts.iter().map(|&t| in_schedule(t)).collect(),
    };
    let w = frame.weights_hours();
    let (mut occ_h, mut occ_run_h, mut un_h, mut un_run_h) = (0.0, 0.0, 0.0, 0.0);
    let mut un_n = 0usize;
    let mut flagged = Vec::new();
    for (i, wi) in w.iter().enumerate() {
        if !known(i) {
            continue;
        }
        if occupied[i] {
            occ_h += wi;
            if running(i) {
                occ_run_h += wi;
            }
        } else {
            un_h += wi;
            un_n += 1;
            if running(i) {
                un_run_h += wi;
                flagged.push(i as u32);
            }
        }
    }
    if un_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no unoccupied time with a known fan state")]);
    }
    let un_pct = 100.0 * un_run_h / un_h;
    let occ_pct = if occ_h > 0.0 { 100.0 * occ_run_h / occ_h } else { 100.0 };
    let min_run = params.number(spec, "min_unoccupied_run_pct");
    let by_runtime = un_pct < min_run || un_pct < occ_pct / 2.0;
    // the held-setback test
    let zone = frame.col("space_temp").or(frame.col("return_air_temp"));
    let mut held = false;
    if !by_runtime && un_pct <= params.number(spec, "max_hold_duty_pct") {
        if let Some(z) = zone {
            let heat_sp_col = frame.col("heat_sp");
            let cool_sp_col = frame.col("cool_sp");
            let heat_p = params.number(spec, "unoccupied_heat_sp_f");
            let cool_p = params.number(spec, "unoccupied_cool_sp_f");
            let occ_zone: Vec<f64> =
                z.iter().zip(&occupied).filter(|(x, &occ)| occ && !x.is_nan()).map(|(&x, _)| x).collect();
            let occ_mean =
                if occ_zone.is_empty() { f64::NAN } else { occ_zone.iter().sum::<f64>() / occ_zone.len() as f64 };
            let depth = params.number(spec, "min_setback_depth_f");
            let holding: Vec<bool> = flagged
                .iter()
                .map(|&i| {
                    let i = i as usize;
                    if z[i].is_nan() {
                        return false;
                    }
                    let heat = if heat_p.is_nan() { heat_sp_col.map_or(f64::NAN, |c| c[i]) } else { heat_p };
                    let cool = if cool_p.is_nan() { cool_sp_col.map_or(f64::NAN, |c| c[i]) } else { cool_p };
                    let at_heat = !heat.is_nan() && z[i] <= heat + HOLD_BAND_F;
                    let at_cool = !cool.is_nan() && z[i] >= cool - HOLD_BAND_F;
                    let beyond =
                        heat.is_nan() && cool.is_nan() && !occ_mean.is_nan() && (z[i] - occ_mean).abs() >= depth;
                    at_heat || at_cool || beyond
                })
                .collect();
            held = !holding.is_empty()
                && holding.iter().filter(|h| **h).count() as f64 >= HOLD_SHARE * holding.len() as f64;
        }
    }
    let effective = by_runtime || held;
    let severity = if effective {
        Severity::Ok
    } else if un_pct >= 50.0 {
        Severity::Fault
    } else {
        Severity::Warn
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("unoccupied_run_pct".into(), round2(un_pct));
    metrics.insert("occupied_run_pct".into(), round2(occ_pct));
    metrics.insert("unoccupied_hours".into(), round2(un_h));
    // what the RCx report's cost model annualises: the fan's running hours out of occupancy
    // against the hours the record covers
    metrics.insert("unoccupied_run_hours".into(), round2(un_run_h));
    metrics.insert("observed_hours".into(), round2(occ_h + un_h));
    let mut caveats = Vec::new();
    if occ_col.is_none() {
        caveats.push("no occupancy point: occupied hours come from the schedule parameters".into());
    }
    let summary = if held {
        format!("the fan runs {un_pct:.1}% of unoccupied time, cycling to hold the setback")
    } else if effective {
        format!(
            "the fan runs {un_pct:.1}% of unoccupied time against {occ_pct:.1}% of occupied time: the setback works"
        )
    } else {
        format!("the fan runs {un_pct:.1}% of unoccupied time against {occ_pct:.1}% of occupied time: no effective night and weekend setback")
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(if effective { Vec::new() } else { flagged })
        .with_judged(un_n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::engine::{weekday, ParamValue};

    fn frame(fan: impl Fn(i64, i64) -> f64) -> Frame {
        let n = 14 * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| MONDAY + i * H).collect();
        let f: Vec<f64> = (0..n as i64).map(|i| fan(i / 24 % 7, i % 24)).collect();
        Frame::from_rows(&ts, &[("supply_fan_status", f)])
    }

    #[test]
    fn a_scheduled_unit_is_ok_and_an_always_on_one_is_a_fault() {
        assert_eq!(weekday(MONDAY), 0);
        let r = run(&RULE, &frame(|d, h| if d < 5 && (7..18).contains(&h) { 1.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        let r = run(&RULE, &frame(|_, _| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["unoccupied_run_pct"], 100.0);
    }

    #[test]
    fn weekend_running_is_a_warning() {
        // runs weekday mornings (7-13, about half the occupied time) and all weekend: about
        // 42 % of unoccupied time, more than half the occupied share and under 50 %
        let r = run(&RULE, &frame(|d, h| if d >= 5 || (7..13).contains(&h) { 1.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        // running all of Saturday on top of full weekdays is under half the occupied share: ok
        let r = run(
            &RULE,
            &frame(|d, h| if (d < 5 && (7..18).contains(&h)) || d == 5 { 1.0 } else { 0.0 }),
            &Params::default(),
        );
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn the_materiality_floor() {
        // a one-hour warm-up before each weekday: under 5 % of unoccupied time
        let r = run(&RULE, &frame(|d, h| if d < 5 && (6..18).contains(&h) { 1.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn a_fan_cycling_to_hold_the_setback_is_ok() {
        let n = 14 * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| MONDAY + i * H).collect();
        // unoccupied: the zone sits at 55 °F and the fan runs every other hour to hold it
        let occ = |i: i64| (i / 24 % 7) < 5 && (7..18).contains(&(i % 24));
        let fan: Vec<f64> = (0..n as i64).map(|i| if occ(i) || i % 2 == 0 { 1.0 } else { 0.0 }).collect();
        let zone: Vec<f64> = (0..n as i64).map(|i| if occ(i) { 70.0 } else { 55.5 }).collect();
        let f = Frame::from_rows(&ts, &[("supply_fan_status", fan), ("space_temp", zone)]);
        let mut p = Params::default();
        p.values.insert("unoccupied_heat_sp_f".into(), ParamValue::Number(55.0));
        match outcome(&RULE, &f, &p) {
            Outcome::Findings(v) => assert_eq!(v[0].severity, Severity::Ok, "{}", v[0].summary),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn duplicates_and_disorder_give_the_same_finding() {
        for fan in [
            &(|d: i64, h: i64| if d >= 5 || (7..13).contains(&h) { 1.0 } else { 0.0 }) as &dyn Fn(i64, i64) -> f64,
            &|_, _| 1.0,
            &|d, h| if d < 5 && (7..18).contains(&h) { 1.0 } else { 0.0 },
        ] {
            let base = frame(fan);
            let messy = shuffled_with_duplicates(&base);
            assert_eq!(messy.ts, base.ts, "the frame sorts and merges the rows");
            let (a, b) = (run(&RULE, &messy, &Params::default()), run(&RULE, &base, &Params::default()));
            assert_eq!(
                (a.severity, &a.metrics, &a.flagged, &a.summary),
                (b.severity, &b.metrics, &b.flagged, &b.summary)
            );
        }
        // the weekend-running warning survives the shuffle with its figures
        let w = run(
            &RULE,
            &shuffled_with_duplicates(&frame(|d, h| if d >= 5 || (7..13).contains(&h) { 1.0 } else { 0.0 })),
            &Params::default(),
        );
        assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
        assert_eq!(w.metrics["unoccupied_hours"], 226.0, "14 x 24 h less ten weekdays of 11 occupied hours");
        assert_eq!(w.flagged.len(), 96, "the four weekend days");
    }

    #[test]
    fn a_data_gap_is_not_judged_time() {
        // always on; the first weekend (Saturday and Sunday, 48 h) missing
        let base = frame(|_, _| 1.0);
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(120..168).contains(i)).collect();
        let gapped = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (b, g) = (run(&RULE, &base, &Params::default()), run(&RULE, &gapped, &Params::default()));
        assert_eq!(b.metrics["unoccupied_hours"], 226.0);
        // the sample before the gap stands for 1.5 typical steps, not for the 49 h to the next one
        assert_eq!(g.metrics["unoccupied_hours"], 226.0 - 48.0 + 0.5);
        assert_eq!((g.severity, g.metrics["unoccupied_run_pct"]), (Severity::Fault, 100.0));
        // the same weekend present but with no fan reading: not judged either
        let mut unknown = base.clone();
        let fan = unknown.cols.get_mut("supply_fan_status").unwrap();
        fan[120..168].iter_mut().for_each(|v| *v = f64::NAN);
        assert_eq!(run(&RULE, &unknown, &Params::default()).metrics["unoccupied_hours"], 226.0 - 48.0);
        // judged: the unoccupied samples with a known fan state, not the whole frame
        assert_eq!((b.judged, run(&RULE, &unknown, &Params::default()).judged), (226, 226 - 48));
        // a scheduled unit with a gap in its nights stays ok
        let sched = frame(|d, h| if d < 5 && (7..18).contains(&h) { 1.0 } else { 0.0 });
        // Monday 19:00 to Tuesday 06:00 (12 h) missing, after the unoccupied 18:00 sample
        let keep: Vec<usize> = (0..sched.len()).filter(|i| !(19..31).contains(i)).collect();
        let gapped = Frame::from_rows(
            &keep.iter().map(|&i| sched.ts[i]).collect::<Vec<_>>(),
            &sched.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &gapped, &Params::default());
        assert_eq!((r.severity, r.metrics["unoccupied_hours"]), (Severity::Ok, 226.0 - 12.0 + 0.5), "{}", r.summary);
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between, so the typical step is 17 minutes and none is capped.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// Uneven timestamps over `days` days from Monday 00:00.
    fn uneven(days: i64) -> Vec<i64> {
        let mut ts = vec![MONDAY];
        while *ts.last().unwrap() < MONDAY + days * 24 * H - 17 * MINUTE {
            let k = ts.len() - 1;
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        ts
    }

    fn uneven_frame(fan: impl Fn(usize, i64, f64) -> f64) -> Frame {
        let ts = uneven(14);
        // (sample index, weekday, hour of day as a fraction)
        let f: Vec<f64> = ts
            .iter()
            .enumerate()
            .map(|(k, &t)| fan(k, weekday(t), (t - MONDAY).rem_euclid(24 * H) as f64 / H as f64))
            .collect();
        Frame::from_rows(&ts, &[("supply_fan_status", f)])
    }

    #[test]
    fn irregular_sampling_is_weighted_by_time() {
        let f = uneven_frame(|_, _, _| 0.0);
        assert_eq!(f.typical_step(), Some(17 * MINUTE));
        assert!(f.weights_hours().iter().all(|&w| w <= 17.0 / 60.0 + 1e-12), "no step is capped");
        // a scheduled unit is ok, an always-on one a fault, at uneven steps too
        let sched = run(
            &RULE,
            &uneven_frame(|_, d, h| if d < 5 && (7.0..18.0).contains(&h) { 1.0 } else { 0.0 }),
            &Params::default(),
        );
        assert_eq!((sched.severity, sched.metrics["unoccupied_run_pct"]), (Severity::Ok, 0.0), "{}", sched.summary);
        let on = run(&RULE, &uneven_frame(|_, _, _| 1.0), &Params::default());
        assert_eq!((on.severity, on.metrics["unoccupied_run_pct"]), (Severity::Fault, 100.0));
        // unoccupied hours are time, not samples: 14 x 24 h less 110 occupied hours
        // (within the 17 minutes a sample can straddle each of the twenty schedule edges)
        assert!((on.metrics["unoccupied_hours"] - 226.0).abs() < 1.0, "{}", on.metrics["unoccupied_hours"]);
        // the fan logged on at night only on the densely logged samples (those followed by a
        // 1- or 5-minute step): 2 of 5 unoccupied samples, but 6 of 57 minutes
        let dense = |k: usize| STEPS[k % 5] < 17;
        let r = run(
            &RULE,
            &uneven_frame(|k, d, h| {
                let occupied = d < 5 && (7.0..18.0).contains(&h);
                if (occupied && h < 13.0) || (!occupied && dense(k)) {
                    1.0
                } else {
                    0.0
                }
            }),
            &Params::default(),
        );
        let un = r.metrics["unoccupied_run_pct"];
        assert!((9.5..11.5).contains(&un), "time share 6/57 = 10.5 %, not the 40 % sample share: {un}");
        // under half the occupied share (mornings, about 55 %): the setback works
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        let occ = r.metrics["occupied_run_pct"];
        assert!((52.0..57.0).contains(&occ), "6 of 11 occupied hours: {occ}");
    }

    /// 100 occupied hours then 100 unoccupied ones (from the occupancy point), the fan on for
    /// the first `occ_on` of the first and the first `un_on` of the second; no zone temperature.
    fn split(occ_on: usize, un_on: usize) -> Frame {
        let mut f = zoned(occ_on, un_on);
        f.cols.remove("space_temp");
        f
    }

    /// As [`split`], with the zone at 70 °F occupied and 55.5 °F unoccupied.
    fn zoned(occ_on: usize, un_on: usize) -> Frame {
        let ts: Vec<i64> = (0..200).map(|i| MONDAY + i * H).collect();
        let fan: Vec<f64> = (0..200)
            .map(|i| if (i < 100 && i < occ_on) || (i >= 100 && i - 100 < un_on) { 1.0 } else { 0.0 })
            .collect();
        let occ: Vec<f64> = (0..200).map(|i| if i < 100 { 1.0 } else { 0.0 }).collect();
        let zone: Vec<f64> = (0..200).map(|i| if i < 100 { 70.0 } else { 55.5 }).collect();
        Frame::from_rows(&ts, &[("supply_fan_status", fan), ("occupancy", occ), ("space_temp", zone)])
    }

    #[test]
    fn the_threshold_boundaries() {
        // min_unoccupied_run_pct (5 %): the fan off all occupied time, so only this test can pass
        let below = run(&RULE, &split(0, 4), &numbers(&[]));
        assert_eq!((below.severity, below.metrics["unoccupied_run_pct"]), (Severity::Ok, 4.0));
        assert_eq!(
            run(&RULE, &split(0, 5), &numbers(&[])).severity,
            Severity::Warn,
            "exactly min_unoccupied_run_pct is not under it"
        );
        assert_eq!(run(&RULE, &split(0, 9), &numbers(&[("min_unoccupied_run_pct", 10.0)])).severity, Severity::Ok);
        assert_eq!(run(&RULE, &split(0, 10), &numbers(&[("min_unoccupied_run_pct", 10.0)])).severity, Severity::Warn);
        // half the occupied share: 60 % occupied, so under 30 % unoccupied is a setback
        assert_eq!(run(&RULE, &split(60, 29), &numbers(&[])).severity, Severity::Ok);
        assert_eq!(run(&RULE, &split(60, 30), &numbers(&[])).severity, Severity::Warn);
        // a fault from half the unoccupied time
        assert_eq!(run(&RULE, &split(0, 49), &numbers(&[])).severity, Severity::Warn);
        let half = run(&RULE, &split(0, 50), &numbers(&[]));
        assert_eq!((half.severity, half.flagged.len()), (Severity::Fault, 50));
        // max_hold_duty_pct (90 %): a fan cycling to hold a 55 °F setback is judged held up to it
        let heat = ("unoccupied_heat_sp_f", 55.0);
        let held = run(&RULE, &zoned(100, 90), &numbers(&[heat]));
        assert_eq!(held.severity, Severity::Ok, "{}", held.summary);
        assert!(held.summary.contains("cycling to hold"), "{}", held.summary);
        assert_eq!(run(&RULE, &zoned(100, 91), &numbers(&[heat])).severity, Severity::Fault);
        assert_eq!(run(&RULE, &zoned(100, 80), &numbers(&[heat, ("max_hold_duty_pct", 80.0)])).severity, Severity::Ok);
        assert_eq!(
            run(&RULE, &zoned(100, 81), &numbers(&[heat, ("max_hold_duty_pct", 80.0)])).severity,
            Severity::Fault
        );
        // and held only within HOLD_BAND_F of the setback setpoint
        assert_eq!(
            run(&RULE, &zoned(100, 90), &numbers(&[("unoccupied_heat_sp_f", 54.5)])).severity,
            Severity::Ok,
            "55.5 is 1.0 °F off"
        );
        assert_eq!(
            run(&RULE, &zoned(100, 90), &numbers(&[("unoccupied_heat_sp_f", 54.4)])).severity,
            Severity::Fault,
            "55.5 is 1.1 °F off"
        );
    }

    #[test]
    fn occupancy_point_lists_and_missing_inputs() {
        let ts: Vec<i64> = (0..48).map(|i| MONDAY + i * H).collect();
        let f = Frame::from_rows(&ts, &[("supply_fan_status", vec![1.0; 48]), ("occupancy", vec![1.0; 48])]);
        assert_eq!(
            run(&RULE, &f, &Params::default()).severity,
            Severity::Info,
            "all occupied: nothing unoccupied to judge"
        );
        let mut p = Params::default();
        p.values.insert("occupied_days".into(), ParamValue::List(vec![0.0, 9.0]));
        assert!(p.check(&spec()).is_ok() && p.outside_range(&spec())[0].contains("occupied_days = 9 is outside"));
        let g = Frame::from_rows(&[0, H], &[("space_temp", vec![70.0, 70.0])]);
        assert!(matches!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { .. }));
    }
}
