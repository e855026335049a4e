//! `hp_mode_vs_need`: a heat pump running the mode its room does not need, cooling a room
//! already below its heating band or heating one already above its cooling band (a reversing
//! valve or changeover stuck, a thermostat in the wrong place, a neighbour's unit fighting it,
//! setpoints crossed).
//!
//! Judged on the occupied samples (the occupancy point, else weekdays 07:00-18:00) with a mode
//! and a zone temperature, the mode as `crate::heatpump` reads it (defrosts count as heating).
//! The band is the trended heating and cooling setpoints, else `heat_sp_f` and `cool_sp_f`, and
//! the zone must be more than `band_tol_f` past one. The hours in the wrong mode, and their share
//! of the occupied running hours (heating or cooling), give a warning from `warn_hours` and
//! `warn_pct` together, a fault from `fault_hours` and `fault_pct` together. The flagged samples
//! are the hours in the wrong mode. A unit with a heating or cooling valve and no compressor or
//! reversing-valve signal is a coil unit, not a heat pump, and is declined.
//!
//! Unlike the reference, hours and shares are of time (each sample weighs the time it stands
//! for), and a trended occupancy point replaces the assumed schedule rather than narrowing it.

use std::collections::BTreeMap;

use crate::engine::{round2, Condition, Finding, Frame, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity};
use crate::heatpump::{self, hours, ModeSource, COOLING, HEATING, IDLE};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hp_mode_vs_need",
        families: &["heat_pump"],
        inputs: heatpump::INPUTS,
        params: [
            vec![
                ParamSpec::number(
                    "warn_hours",
                    2.0,
                    "h (occupied hours in the wrong mode)",
                    (0.5, 24.0),
                    "a couple of occupied hours in the wrong mode is more than a changeover's overlap",
                    "Raise it on long records so one odd morning cannot rate a unit; it applies together with warn_pct.",
                ),
                ParamSpec::number(
                    "fault_hours",
                    10.0,
                    "h (occupied hours in the wrong mode)",
                    (2.0, 100.0),
                    "about a working day in the wrong mode is a unit that cannot serve its room",
                    "Keep it well above warn_hours; it applies together with fault_pct.",
                ),
                ParamSpec::number(
                    "warn_pct",
                    2.0,
                    "% of occupied running samples (heating or cooling)",
                    (0.5, 10.0),
                    "a healthy unit spends next to none of its running time against its room",
                    "Read wrong_mode_pct_of_running on healthy units of the site and set this above the highest.",
                ),
                ParamSpec::number(
                    "fault_pct",
                    10.0,
                    "% of occupied running samples (heating or cooling)",
                    (5.0, 50.0),
                    "a tenth of its running time against the room is a changeover or sensor fault, not tuning",
                    "Keep it well above warn_pct.",
                ),
            ],
            heatpump::band_params(),
        ]
        .concat(),
        judged_basis: "occupied samples with a mode and a zone temperature",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    if let Some(why) = heatpump::coil_unit(frame) {
        return Outcome::Findings(vec![heatpump::declined(spec, &why)]);
    }
    let Some(u) = heatpump::prepare(spec, frame, params) else {
        return Outcome::Findings(vec![heatpump::declined(spec, "no mode can be read")]);
    };
    let judged = u.valid.iter().filter(|v| **v).count();
    if judged == 0 {
        let mut f = Finding::not_judged(spec, "no occupied sample with a mode and a zone temperature");
        f.caveats.extend(u.caveats);
        return Outcome::Findings(vec![f]);
    }
    let p = |name: &str| params.number(spec, name);
    let w = frame.weights_hours();
    let cool_cold: Vec<u32> =
        (0..frame.len()).filter(|&i| u.valid[i] && u.mode[i] == COOLING && u.cold[i]).map(|i| i as u32).collect();
    let heat_hot: Vec<u32> =
        (0..frame.len()).filter(|&i| u.valid[i] && u.mode[i] == HEATING && u.hot[i]).map(|i| i as u32).collect();
    let sum = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let (cool_cold_h, heat_hot_h) = (sum(&cool_cold), sum(&heat_hot));
    let wrong_h = cool_cold_h + heat_hot_h;
    let running_h = hours(&w, |i| u.valid[i] && u.mode[i] != IDLE);
    let judged_h = hours(&w, |i| u.valid[i]);
    let pct = if running_h > 0.0 { 100.0 * wrong_h / running_h } else { 0.0 };
    let severity = if wrong_h >= p("fault_hours") && pct >= p("fault_pct") {
        Severity::Fault
    } else if wrong_h >= p("warn_hours") && pct >= p("warn_pct") {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("cooling_while_cold_hours".into(), round2(cool_cold_h));
    metrics.insert("heating_while_warm_hours".into(), round2(heat_hot_h));
    metrics.insert("wrong_mode_pct_of_running".into(), round2(pct));
    metrics.insert("occupied_running_hours".into(), round2(running_h));
    metrics.insert("occupied_hours".into(), round2(judged_h));
    metrics.insert("mode_from_status".into(), if u.source == ModeSource::Status { 1.0 } else { 0.0 });
    if u.source == ModeSource::Status {
        metrics.insert("defrost_hours".into(), round2(hours(&w, |i| u.valid[i] && u.defrost[i])));
    }
    let read = match u.source {
        ModeSource::Status => "the mode read from the compressor and the reversing valve",
        ModeSource::Discharge => "the mode read from the discharge air against the zone",
    };
    let summary = if severity == Severity::Ok {
        format!("the mode matches the room's need: {wrong_h:.1} h against it of {running_h:.1} occupied running hours ({read})")
    } else {
        let which = if cool_cold_h >= heat_hot_h {
            "cooling a room already below its heating band"
        } else {
            "heating a room already above its cooling band"
        };
        format!(
            "{wrong_h:.1} occupied hours ({pct:.1}% of its running time) {which} ({read}) -- check the changeover or reversing valve, where the thermostat sits, and the setpoints"
        )
    };
    let condition = |name: &str, idx: Vec<u32>| Condition {
        name: name.into(),
        flagged_hours: sum(&idx),
        flagged: idx,
        judged,
        judged_hours: judged_h,
    };
    let mut flagged: Vec<u32> = cool_cold.iter().chain(&heat_hot).copied().collect();
    flagged.sort_unstable();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(u.caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged)
        .with_conditions(vec![condition("cooling_while_cold", cool_cold), condition("heating_while_warm", heat_hot)])])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// `n` occupied samples `step` apart of a water-source unit trended with its discharge air,
    /// zone and setpoints (heating 68, cooling 76 °F): the zone at `zone(i)`, the discharge air
    /// `rise(i)` above it.
    pub fn wshp(n: usize, step: i64, zone: impl Fn(usize) -> f64, rise: impl Fn(usize) -> f64) -> Frame {
        let z: Vec<f64> = (0..n).map(zone).collect();
        Frame::from_rows(
            &every(MONDAY, step, n),
            &[
                ("supply_air_temp", (0..n).map(|i| z[i] + rise(i)).collect()),
                ("space_temp", z),
                ("heat_sp", vec![68.0; n]),
                ("cool_sp", vec![76.0; n]),
                ("occupancy", vec![1.0; n]),
                ("supply_fan_status", vec![1.0; n]),
            ],
        )
    }

    /// 100 occupied hours of a unit heating a room at 80 °F for the first `k` and heating a
    /// 70 °F room otherwise.
    fn stuck(k: usize) -> Frame {
        wshp(100, H, |i| if i < k { 80.0 } else { 70.0 }, |_| 25.0)
    }

    #[test]
    fn a_unit_that_serves_its_room_is_ok() {
        let f = wshp(100, H, |i| 69.0 + (i % 6) as f64, |i| if i % 6 < 3 { 25.0 } else { 0.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["wrong_mode_pct_of_running"]), (Severity::Ok, 0.0));
        assert_eq!((r.metrics["occupied_running_hours"], r.metrics["mode_from_status"]), (51.0, 0.0));
        assert!(r.caveats.is_empty() && r.flagged.is_empty(), "{:?}", r.caveats);
        // cooling a warm room and heating a cool one are what it should do
        let g = wshp(48, H, |i| if i % 2 == 0 { 78.0 } else { 66.0 }, |i| if i % 2 == 0 { -15.0 } else { 25.0 });
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn the_wrong_mode_is_found_at_its_severity() {
        let r = run(&RULE, &stuck(30), &Params::default());
        assert_eq!((r.severity, r.metrics["heating_while_warm_hours"]), (Severity::Fault, 30.0));
        assert!(r.summary.contains("heating a room already above its cooling band"), "{}", r.summary);
        assert_eq!(r.flagged.len(), 30);
        assert_eq!(r.conditions[1].flagged.len(), 30);
        // cooling a cold room: 5 hours of 100 is a warning
        let f = wshp(100, H, |i| if i < 5 { 65.0 } else { 70.0 }, |_| -15.0);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["cooling_while_cold_hours"]), (Severity::Warn, 5.0));
        assert!(r.summary.contains("cooling a room already below its heating band"), "{}", r.summary);
    }

    #[test]
    fn the_hours_and_shares_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        // 10 h and 10 % of 100 running hours: a fault; 9 h a warning
        assert_eq!(sev(&stuck(10), &Params::default()), Severity::Fault);
        assert_eq!(sev(&stuck(9), &Params::default()), Severity::Warn);
        assert_eq!(sev(&stuck(10), &numbers(&[("fault_pct", 10.01)])), Severity::Warn);
        assert_eq!(sev(&stuck(10), &numbers(&[("fault_hours", 10.01)])), Severity::Warn);
        // 2 h and 2 %: a warning; under either, ok
        assert_eq!(sev(&stuck(2), &Params::default()), Severity::Warn);
        assert_eq!(sev(&stuck(1), &Params::default()), Severity::Ok);
        assert_eq!(sev(&stuck(2), &numbers(&[("warn_pct", 2.01)])), Severity::Ok);
        assert_eq!(sev(&stuck(1), &numbers(&[("warn_hours", 1.0), ("warn_pct", 1.0)])), Severity::Warn);
        // the band: exactly band_tol_f past the setpoint is in it
        let edge = |zone: f64, p: &Params| run(&RULE, &wshp(20, H, move |_| zone, |_| 25.0), p).flagged.len();
        assert_eq!((edge(77.0, &Params::default()), edge(77.01, &Params::default())), (0, 20));
        assert_eq!(edge(77.01, &numbers(&[("band_tol_f", 1.5)])), 0);
        // the mode: exactly heat_rise_f above the zone is heating
        let rise = |r: f64, p: &Params| run(&RULE, &wshp(20, H, |_| 80.0, move |_| r), p).flagged.len();
        assert_eq!((rise(15.0, &Params::default()), rise(14.99, &Params::default())), (20, 0));
        assert_eq!(rise(15.0, &numbers(&[("heat_rise_f", 16.0)])), 0);
    }

    #[test]
    fn the_band_from_the_config_when_the_setpoints_are_not_trended() {
        let mut f = stuck(30);
        f.cols.remove("heat_sp");
        f.cols.remove("cool_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats[0].contains("assumed comfort band (heating 68 °F, cooling 76 °F)"), "{:?}", r.caveats);
        // a cooling setpoint of 82 °F puts the 80 °F room in band
        assert_eq!(run(&RULE, &f, &numbers(&[("cool_sp_f", 82.0)])).severity, Severity::Ok);
    }

    /// An air-source unit over `n` five-minute samples, compressor on and heating a cold room,
    /// its valve reversed for `defrost` samples every 12.
    fn ashp(n: usize, defrost: usize) -> Frame {
        Frame::from_rows(
            &every(MONDAY + 8 * H, 5 * MINUTE, n),
            &[
                ("supply_air_temp", vec![95.0; n]),
                ("space_temp", vec![64.0; n]),
                ("occupancy", vec![1.0; n]),
                ("compressor_status", vec![1.0; n]),
                ("reversing_valve_cmd", (0..n).map(|i| if i % 12 >= 12 - defrost { 0.0 } else { 1.0 }).collect()),
            ],
        )
    }

    #[test]
    fn a_defrost_is_heating_not_cooling_a_cold_room() {
        // 10-minute defrosts every hour for 70 hours: heating, not the wrong mode (the last
        // reversal, at the end of the trend, stays cooling: 10 minutes)
        let r = run(&RULE, &ashp(840, 2), &Params::default());
        assert_eq!((r.severity, r.metrics["mode_from_status"]), (Severity::Ok, 1.0));
        assert!((r.metrics["defrost_hours"] - 69.0 * 2.0 / 12.0).abs() < 0.01, "{:?}", r.metrics);
        assert!((r.metrics["cooling_while_cold_hours"] - 2.0 / 12.0).abs() < 0.01, "{:?}", r.metrics);
        // with max_defrost_min 0 every reversal is cooling
        let r = run(&RULE, &ashp(840, 2), &numbers(&[("max_defrost_min", 0.0)]));
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        // a 20-minute reversal is no defrost
        assert_eq!(run(&RULE, &ashp(840, 4), &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn unoccupied_and_fan_off_samples_are_not_judged() {
        let mut f = stuck(30);
        f.cols.insert("occupancy".into(), (0..100).map(|i| if i < 20 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["heating_while_warm_hours"]), (80, 10.0));
        // the fan off: idle, so not the wrong mode, but still judged
        f.cols.insert("supply_fan_status".into(), (0..100).map(|i| if i < 25 { 0.0 } else { 1.0 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["heating_while_warm_hours"], 5.0);
        // no occupancy point: weekdays 07:00-18:00, with a caveat
        let mut g = stuck(100);
        g.cols.remove("occupancy");
        let r = run(&RULE, &g, &Params::default());
        // Monday 00:00 to Friday 04:00: four days of 11 hours
        assert_eq!(r.judged, 44);
        assert!(r.caveats.iter().any(|c| c.contains("no occupancy point")), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 240 ten-minute samples in the right mode, then 20 hourly ones in the wrong mode
        let mut ts: Vec<i64> = (0..240).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..20).map(|i| MONDAY + 40 * H + i * H));
        let n = ts.len();
        let z: Vec<f64> = (0..n).map(|i| if i >= 240 { 80.0 } else { 70.0 }).collect();
        let f = Frame::from_rows(
            &ts,
            &[
                ("supply_air_temp", z.iter().map(|z| z + 25.0).collect()),
                ("space_temp", z),
                ("heat_sp", vec![68.0; n]),
                ("cool_sp", vec![76.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        assert!((r.metrics["heating_while_warm_hours"] - round2(w[240..].iter().sum::<f64>())).abs() < 1e-9);
        assert_eq!(r.metrics["heating_while_warm_hours"], 4.92, "each hourly sample stands for at most 15 minutes");
        // a missing day is not occupied time
        let g = stuck(100);
        let keep: Vec<usize> = (0..100).filter(|i| !(24..48).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["occupied_hours"], 76.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [stuck(30), stuck(0), ashp(120, 2)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_coil_units_decline_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("space_temp", vec![70.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["supply_air_temp".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let mut coil = stuck(30);
        coil.cols.insert("heat_valve".into(), vec![50.0; 100]);
        let r = run(&RULE, &coil, &Params::default());
        assert!(r.severity == Severity::Info && r.summary.contains("hydronic coil unit"), "{}", r.summary);
        assert_eq!(run(&RULE, &stuck(1).clone(), &Params::default()).judged, 100);
        let one = wshp(1, H, |_| 80.0, |_| 25.0);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Ok);
        let apart = Frame::from_rows(
            &every(MONDAY, H, 3),
            &[
                ("supply_air_temp", vec![90.0, f64::NAN, f64::NAN]),
                ("space_temp", vec![f64::NAN, 80.0, 80.0]),
                ("occupancy", vec![1.0; 3]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }
}
