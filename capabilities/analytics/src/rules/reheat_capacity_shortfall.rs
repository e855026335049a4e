//! `reheat_capacity_shortfall`: a terminal box that has run out of heating. Its reheat valve is
//! wide open and its zone still sits below the heating setpoint: the controller has nothing left
//! to give, so this is not tuning but capacity or air (hot water too cool or too little of it, a
//! fouled or undersized coil, a starved or stuck damper, too little primary air, or a load
//! beyond design). `unmet_setpoint_hours` counts cold hours without asking whether the box had
//! heat to spare; this rule counts the ones where it had none.
//!
//! Judged on the occupied samples (the occupancy point, else the schedule) with the zone
//! temperature, the valve and a heating setpoint, the fan running where a fan status or speed
//! is trended, less a recovery window: the `recovery_hours` after each occupied period starts
//! and after each step up of the trended heating setpoint by a degree or more, and any
//! trended warm-up sample (a morning warm-up runs the valve open below setpoint by design). A
//! sample is a saturated shortfall when the zone is more than `tol_f` below the setpoint and the
//! valve is at or above `reheat_saturated_pct`. The setpoint is the trended `heat_sp`, else
//! `heat_sp_f` from the config (one value, or one per box keyed by equipment patterns); with
//! neither the rule is skipped, naming `heat_sp`. The share of judged time in saturated
//! shortfall is a warning from `warn_pct` and a fault from `fault_pct`, each only once
//! `min_hours` of it have built up. With the airflow and its setpoint trended, the median
//! airflow-to-setpoint ratio in the shortfall tells air (below [`AIRFLOW_SHORT_RATIO`]) from
//! heating capacity; with the discharge temperature trended, its median is reported.
//!
//! Unlike the reference, shares and hours are of time (each sample weighs the time it stands
//! for), the recovery window ends one sample sooner (samples less than `recovery_hours` after
//! the start, not up to and including it), and a record that opens in an occupied period is not
//! trimmed.

use std::collections::BTreeMap;

use crate::engine::{
    median, on, round2, schedule_params, Condition, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, Params, Rule,
    RuleSpec, Severity,
};
use crate::terminal::{self, hours};

/// A median airflow below this share of its setpoint in the shortfall points at air (the
/// damper, duct static, primary air), at or above it at heating capacity.
pub const AIRFLOW_SHORT_RATIO: f64 = 0.9;
/// A trended heating setpoint stepping up by this much (°F) starts a recovery window.
pub const SETPOINT_STEP_F: f64 = 1.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate).with_needs(needs);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "reheat_capacity_shortfall",
        families: &["terminal"],
        inputs: Inputs {
            required: &["space_temp", "heat_valve"],
            optional: &[
                "heat_sp",
                "occupancy",
                "airflow",
                "airflow_sp",
                "supply_air_temp",
                "warmup",
                "supply_fan_status",
                "supply_fan_speed",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: [
            vec![
                ParamSpec::number(
                    "heat_sp_f",
                    f64::NAN,
                    "°F",
                    (60.0, 75.0),
                    "the heating setpoint is the site's, so there is none by default: it comes from the trend or the config",
                    "Used only without a trended heat_sp, which always wins. Take the zone heating setpoint from the BAS program or the sequence; give one value, or one per box keyed by equipment patterns ({\"VAV-1*\": 70, \"VAV-2*\": 68}) when boxes differ.",
                ),
                ParamSpec::number(
                    "tol_f",
                    1.5,
                    "°F",
                    (0.5, 4.0),
                    "the tolerance unmet_setpoint_hours gives a zone: a loop swings a degree or so about its setpoint",
                    "Set it above the swing healthy zones show below their heating setpoint while heating (a high percentile of setpoint minus zone temperature); keep it equal to unmet_setpoint_hours' tol_F.",
                ),
                ParamSpec::number(
                    "reheat_saturated_pct",
                    90.0,
                    "% valve open",
                    (75.0, 100.0),
                    "a valve at nine tenths or more is as open as it gets: the box is heating as hard as it can",
                    "Read how far healthy boxes' valves open in cold, fully heating hours (some controllers stop at 95-98 %) and set this just below it; keep it equal to overcooling_severity's.",
                ),
                ParamSpec::number(
                    "warn_pct",
                    5.0,
                    "% of evaluated occupied samples",
                    (1.0, 20.0),
                    "a box that is out of heat for a twentieth of its occupied time is worth a look; a screening level, not a standard's",
                    "Compare shortfall_pct on boxes known to heat their zones and set this above the highest of them. It applies once min_hours of shortfall have built up.",
                ),
                ParamSpec::number(
                    "fault_pct",
                    20.0,
                    "% of evaluated occupied samples",
                    (5.0, 60.0),
                    "out of heat for a fifth of occupied time is a box that cannot hold its zone; a screening level, not a standard's",
                    "Keep it well above warn_pct; raise it where design-day weather alone takes healthy boxes past it. It applies once min_hours of shortfall have built up.",
                ),
                ParamSpec::number(
                    "min_hours",
                    10.0,
                    "h",
                    (1.0, 100.0),
                    "a few cold mornings are weather, not a capacity fault: a verdict waits for about a working day of shortfall",
                    "Raise it on long records so a handful of cold mornings cannot rate a box; lower it for a short test window. shortfall_hours in the finding shows what built up.",
                ),
                ParamSpec::number(
                    "recovery_hours",
                    2.0,
                    "h",
                    (0.0, 4.0),
                    "a zone warming up after occupancy starts or its setpoint steps up runs its valve open below setpoint by design",
                    "Take how long healthy boxes need to reach their heating setpoint after occupancy starts on a cold morning (the median across boxes). Applied after each occupied start and each heating-setpoint step up, beside any trended warmup samples.",
                ),
            ],
            schedule_params().to_vec(),
        ]
        .concat(),
        judged_basis: "occupied samples with the zone temperature, the reheat valve and a heating setpoint (fan on where trended; recovery left out)",
    }
}

/// What a run needs: the zone and the valve, and the trended heating setpoint unless
/// `heat_sp_f` gives one.
pub fn needs(spec: &RuleSpec, params: &Params) -> Needs {
    let mut n = Needs::of(&spec.inputs);
    if params.number(spec, "heat_sp_f").is_nan() {
        n.required.push("heat_sp");
    }
    n
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (zone, valve) = (frame.required("space_temp"), frame.required("heat_valve"));
    let p = |name: &str| params.number(spec, name);
    let (trended, configured) = (frame.col("heat_sp"), p("heat_sp_f"));
    let setpoint: Vec<f64> = match trended {
        Some(s) => s.to_vec(),
        None if !configured.is_nan() => vec![configured; frame.len()],
        None => return Outcome::Skipped { missing: vec!["heat_sp".into()] },
    };
    let (tol, saturated_pct) = (p("tol_f"), p("reheat_saturated_pct"));
    let occupied = terminal::occupied(spec, frame, params, &[]);
    // a trended setpoint stepping up starts a recovery, as an occupied start does
    let mut last = f64::NAN;
    let steps: Vec<bool> = setpoint
        .iter()
        .map(|&s| {
            let up = !last.is_nan() && !s.is_nan() && s - last >= SETPOINT_STEP_F;
            if !s.is_nan() {
                last = s;
            }
            up
        })
        .collect();
    let warmup = frame.col("warmup");
    let mut recovering = terminal::recovery(&frame.ts, &occupied, Some(&steps), p("recovery_hours"));
    for (i, r) in recovering.iter_mut().enumerate() {
        *r = occupied[i] && (*r || warmup.is_some_and(|w| on(w[i])));
    }
    let fan = terminal::fan_running(frame);
    let have = |i: usize| {
        !zone[i].is_nan() && !valve[i].is_nan() && !setpoint[i].is_nan() && fan.as_ref().is_none_or(|(f, _)| f[i])
    };
    let judged: Vec<bool> = (0..frame.len()).map(|i| occupied[i] && have(i) && !recovering[i]).collect();
    let w = frame.weights_hours();
    let judged_n = judged.iter().filter(|j| **j).count();
    let judged_h = hours(&w, |i| judged[i]);
    if judged_n == 0 || judged_h <= 0.0 {
        let why = if fan.is_some() {
            "no occupied fan-on sample with the zone temperature, the reheat valve and a heating setpoint outside recovery"
        } else {
            "no occupied sample with the zone temperature, the reheat valve and a heating setpoint outside recovery"
        };
        return Outcome::Findings(vec![Finding::not_judged(spec, why)]);
    }
    let under = |i: usize| judged[i] && setpoint[i] - zone[i] > tol;
    let sat = |i: usize| valve[i] >= saturated_pct;
    let short: Vec<u32> = (0..frame.len()).filter(|&i| under(i) && sat(i)).map(|i| i as u32).collect();
    let spare: Vec<u32> = (0..frame.len()).filter(|&i| under(i) && !sat(i)).map(|i| i as u32).collect();
    let sum = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let pct = |h: f64| 100.0 * h / judged_h;
    let (short_h, spare_h) = (sum(&short), sum(&spare));
    let (short_pct, under_pct) = (pct(short_h), pct(short_h + spare_h));
    let saturated_h = hours(&w, |i| judged[i] && sat(i));
    let recovery_h = hours(&w, |i| recovering[i] && have(i));
    let at_short =
        |col: &[f64]| -> Vec<f64> { short.iter().map(|&i| col[i as usize]).filter(|v| !v.is_nan()).collect() };
    let deficit = median(&mut short.iter().map(|&i| setpoint[i as usize] - zone[i as usize]).collect::<Vec<_>>());
    let ratio = match (frame.col("airflow"), frame.col("airflow_sp")) {
        (Some(a), Some(s)) => median(
            &mut short
                .iter()
                .map(|&i| i as usize)
                .filter(|&i| s[i] > 0.0 && !a[i].is_nan())
                .map(|i| a[i] / s[i])
                .collect::<Vec<_>>(),
        ),
        _ => f64::NAN,
    };
    let discharge = frame.col("supply_air_temp").map_or(f64::NAN, |d| median(&mut at_short(d)));

    let (min_h, warn, fault) = (p("min_hours"), p("warn_pct"), p("fault_pct"));
    let severity = if short_h >= min_h && short_pct >= fault {
        Severity::Fault
    } else if short_h >= min_h && short_pct >= warn {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut caveats = Vec::new();
    if trended.is_none() {
        caveats.push(format!(
            "the heating setpoint is heat_sp_f from the config ({configured} °F), not trended: a setback or a local adjustment it does not know would move the verdict"
        ));
    }
    if frame.col("occupancy").is_none() {
        caveats.push(terminal::schedule_caveat(spec, params));
    }
    if recovery_h > 0.0 {
        caveats.push(format!(
            "{recovery_h:.1} h of warm-up (after occupancy starts or the setpoint steps up, or flagged warmup) were not judged"
        ));
    }
    let cause = if ratio.is_nan() {
        if !short.is_empty() {
            caveats.push(
                "no airflow and airflow setpoint in the shortfall: heating capacity (hot-water temperature or flow, the coil) and air (damper, duct static, primary air) are not told apart"
                    .to_string(),
            );
        }
        String::new()
    } else if ratio < AIRFLOW_SHORT_RATIO {
        format!("; the airflow {:.0}% of its setpoint: short of air", 100.0 * ratio)
    } else {
        format!("; the airflow {:.0}% of its setpoint: short of heating capacity", 100.0 * ratio)
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("shortfall_pct".into(), round2(short_pct));
    metrics.insert("shortfall_hours".into(), round2(short_h));
    metrics.insert("underheated_pct".into(), round2(under_pct));
    metrics.insert("underheated_spare_pct".into(), round2(pct(spare_h)));
    metrics.insert("valve_saturated_pct".into(), round2(pct(saturated_h)));
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("recovery_excluded_hours".into(), round2(recovery_h));
    if !deficit.is_nan() {
        metrics.insert("median_deficit_f".into(), round2(deficit));
    }
    if !ratio.is_nan() {
        metrics.insert("airflow_to_sp_ratio".into(), round2(ratio));
    }
    if !discharge.is_nan() {
        metrics.insert("discharge_temp_f".into(), (discharge * 10.0).round() / 10.0);
    }
    let deficit_text = if deficit.is_nan() { String::new() } else { format!(", median {deficit:.1} °F below") };
    let summary = format!(
        "the zone more than {tol} °F below its heating setpoint with the reheat valve at {saturated_pct}% or more on {short_pct:.1}% of {judged_h:.1} occupied h ({short_h:.1} h{deficit_text}){cause}; under-heated {under_pct:.1}% in all, {:.1}% with the valve not saturated",
        pct(spare_h)
    );
    let condition = |name: &str, idx: Vec<u32>| Condition {
        name: name.into(),
        flagged_hours: sum(&idx),
        flagged: idx,
        judged: judged_n,
        judged_hours: judged_h,
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(short.clone())
        .with_judged(judged_n)
        .with_conditions(vec![
            condition("saturated_shortfall", short),
            condition("underheated_with_valve_to_spare", spare),
        ])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// `n` occupied hourly samples of a zone with a 70 °F heating setpoint, at `zone(i)`, with
    /// the reheat valve at `valve(i)`.
    fn zone_frame(n: usize, zone: impl Fn(usize) -> f64, valve: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("space_temp", (0..n).map(zone).collect()),
                ("heat_valve", (0..n).map(valve).collect()),
                ("heat_sp", vec![70.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// `n` samples, the first `k` of them 3 °F cold with the valve wide open.
    fn short(n: usize, k: usize) -> Frame {
        zone_frame(n, |i| if i < k { 67.0 } else { 70.0 }, |i| if i < k { 100.0 } else { 40.0 })
    }

    #[test]
    fn a_zone_its_box_can_heat_is_ok() {
        let r = run(&RULE, &zone_frame(40, |i| 69.5 + 0.1 * (i % 5) as f64, |_| 60.0), &Params::default());
        assert_eq!((r.severity, r.metrics["shortfall_pct"], r.judged), (Severity::Ok, 0.0, 40));
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
        // cold with valve to spare is a control problem, not this rule's: reported, not rated
        let r = run(&RULE, &zone_frame(40, |_| 67.0, |_| 50.0), &Params::default());
        assert_eq!((r.severity, r.metrics["underheated_spare_pct"]), (Severity::Ok, 100.0));
    }

    #[test]
    fn a_zone_cold_with_the_valve_wide_open_is_a_fault() {
        let r = run(&RULE, &short(40, 40), &Params::default());
        assert_eq!(
            (r.severity, r.metrics["shortfall_pct"], r.metrics["median_deficit_f"]),
            (Severity::Fault, 100.0, 3.0)
        );
        assert_eq!(r.flagged.len(), 40);
        assert!(r.caveats.iter().any(|c| c.contains("not told apart")), "{:?}", r.caveats);
        assert!(r.summary.contains("40.0 h, median 3.0 °F below"), "{}", r.summary);
    }

    #[test]
    fn the_thresholds_shares_and_hours_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        // of 100 hours: 10 is 10 % and 10 h (warn), 20 is 20 % (fault)
        assert_eq!(sev(&short(100, 10), &Params::default()), Severity::Warn);
        assert_eq!(sev(&short(100, 19), &Params::default()), Severity::Warn);
        assert_eq!(sev(&short(100, 20), &Params::default()), Severity::Fault);
        assert_eq!(sev(&short(100, 20), &numbers(&[("fault_pct", 21.0)])), Severity::Warn);
        // 9 h is too little to rate, whatever the share
        assert_eq!(sev(&short(100, 9), &Params::default()), Severity::Ok);
        assert_eq!(sev(&short(100, 9), &numbers(&[("min_hours", 9.0)])), Severity::Warn);
        assert_eq!(sev(&short(200, 10), &Params::default()), Severity::Warn);
        assert_eq!(sev(&short(201, 10), &Params::default()), Severity::Ok, "under 5 %");
        // exactly tol_f below is not under-heated; a valve exactly at the saturated level is
        let flagged =
            |zone: f64, valve: f64, p: &Params| run(&RULE, &zone_frame(10, |_| zone, |_| valve), p).flagged.len();
        assert_eq!((flagged(68.5, 100.0, &Params::default()), flagged(68.4, 100.0, &Params::default())), (0, 10));
        assert_eq!((flagged(68.0, 90.0, &Params::default()), flagged(68.0, 89.9, &Params::default())), (10, 0));
        assert_eq!(flagged(68.0, 90.0, &numbers(&[("reheat_saturated_pct", 95.0)])), 0);
        assert_eq!(flagged(68.4, 100.0, &numbers(&[("tol_f", 2.0)])), 0);
    }

    #[test]
    fn the_airflow_tells_air_from_heating_capacity() {
        let mut f = short(40, 40);
        f.cols.insert("airflow_sp".into(), vec![500.0; 40]);
        f.cols.insert("airflow".into(), vec![445.0; 40]);
        f.cols.insert("supply_air_temp".into(), vec![88.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.metrics["airflow_to_sp_ratio"], r.metrics["discharge_temp_f"]), (0.89, 88.0));
        assert!(r.summary.contains("short of air"), "{}", r.summary);
        f.cols.insert("airflow".into(), vec![450.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert!(r.summary.contains("short of heating capacity"), "{}", r.summary);
        assert!(!r.caveats.iter().any(|c| c.contains("not told apart")), "{:?}", r.caveats);
    }

    #[test]
    fn the_setpoint_from_the_config_when_it_is_not_trended() {
        let mut f = short(40, 40);
        f.cols.remove("heat_sp");
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["heat_sp".into()] });
        let r = run(&RULE, &f, &numbers(&[("heat_sp_f", 70.0)]));
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats[0].contains("heat_sp_f from the config (70 °F)"), "{:?}", r.caveats);
        // a trended setpoint wins
        let r = run(&RULE, &short(40, 40), &numbers(&[("heat_sp_f", 60.0)]));
        assert_eq!(r.severity, Severity::Fault);
    }

    #[test]
    fn unoccupied_recovering_and_fan_off_samples_are_not_judged() {
        // unoccupied for 10 hours, then cold with the valve open: the first two occupied hours
        // are the morning warm-up
        let mut f = short(40, 40);
        f.cols.insert("occupancy".into(), (0..40).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["recovery_excluded_hours"]), (28, 2.0));
        assert_eq!(run(&RULE, &f, &numbers(&[("recovery_hours", 0.0)])).judged, 30);
        // a setpoint step up of a degree starts one too, a trended warm-up sample is one
        let mut g = short(40, 40);
        g.cols.insert("heat_sp".into(), (0..40).map(|i| if i < 20 { 69.0 } else { 70.0 }).collect());
        g.cols.insert("warmup".into(), (0..40).map(|i| if i == 30 { 1.0 } else { 0.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).judged, 37);
        g.cols.insert("heat_sp".into(), (0..40).map(|i| if i < 20 { 69.1 } else { 70.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).judged, 39);
        // the fan off (status, else speed at 5 % or less)
        let mut h = short(40, 40);
        h.cols.insert("supply_fan_status".into(), (0..40).map(|i| (i % 2) as f64).collect());
        assert_eq!(run(&RULE, &h, &Params::default()).judged, 20);
        h.cols.remove("supply_fan_status");
        h.cols.insert("supply_fan_speed".into(), (0..40).map(|i| if i % 4 == 0 { 5.0 } else { 50.0 }).collect());
        assert_eq!(run(&RULE, &h, &Params::default()).judged, 30);
        h.cols.insert("supply_fan_speed".into(), vec![0.0; 40]);
        assert!(run(&RULE, &h, &Params::default()).summary.contains("fan-on"));
        // no occupancy point: the weekday schedule (07:00-18:00 on Monday and Tuesday to 15:00)
        let mut k = short(40, 40);
        k.cols.remove("occupancy");
        let r = run(&RULE, &k, &Params::default());
        assert_eq!(r.judged, 20 - 4);
        assert!(r.caveats.iter().any(|c| c.contains("no occupancy point")), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 10-minute samples warm for 40 hours, then 20 hourly samples cold and saturated
        let mut ts: Vec<i64> = (0..240).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..20).map(|i| MONDAY + 40 * H + i * H));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("space_temp", (0..n).map(|i| if i >= 240 { 67.0 } else { 70.0 }).collect()),
                ("heat_valve", vec![100.0; n]),
                ("heat_sp", vec![70.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[240..].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["shortfall_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        // 19 samples of a quarter hour each and the last of one typical step: under min_hours
        assert_eq!((r.metrics["shortfall_hours"], r.severity), (4.92, Severity::Ok));
        let keep: Vec<usize> = (0..72).filter(|i| i / 24 != 1).collect();
        let g = short(72, 72);
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["judged_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [short(40, 12), short(40, 0), zone_frame(30, |i| 66.0 + 0.2 * i as f64, |i| 80.0 + i as f64)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("space_temp", vec![67.0; 3]), ("heat_sp", vec![70.0; 3])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["heat_valve".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        assert_eq!(run(&RULE, &short(1, 1), &Params::default()).severity, Severity::Ok);
        let apart = Frame::from_rows(
            &ts,
            &[
                ("space_temp", vec![67.0, f64::NAN, f64::NAN]),
                ("heat_valve", vec![f64::NAN, 100.0, 100.0]),
                ("heat_sp", vec![70.0; 3]),
                ("occupancy", vec![1.0; 3]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }
}
