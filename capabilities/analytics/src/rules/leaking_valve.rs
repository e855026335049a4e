//! `leaking_valve`: a coil whose valve is commanded shut still heats or cools the air. Judged
//! on running samples with both coil valves shut (at or below `valve_closed_thr`, 1 %: the
//! reference's 5 % counts a valve modulating at 2-5 % as shut, and on an EnergyPlus large office
//! the coil at that flow cools the air 3-7 °F, which faulted every healthy air handler): a heating
//! leak lifts the air across the unit beyond the fan's own heat plus `delta_thr_f`; a cooling
//! leak pulls it below the mixed air by `cool_delta_thr_f` (or, with a measured fan heat, below
//! that rise less the margin). A coil with its own leaving-air sensor is judged on it. Warning
//! at 10 % and fault at 30 % of the judged time (each sample weighted by the time it stands
//! for) for the worse coil.

use std::collections::BTreeMap;

use crate::engine::{
    on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity,
};

/// Leak shares (percent of judged time) that warn and that fault.
const WARN_PCT: f64 = 10.0;
const FAULT_PCT: f64 = 30.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "leaking_valve",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["mixed_air_temp", "supply_air_temp"],
            optional: &["cool_valve", "heat_valve", "cool_coil_leaving_temp", "heat_coil_leaving_temp", "supply_fan_status", "occupancy"],
            gating: &[],
            one_of: &[&["cool_valve", "heat_valve"]],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number("fan_heat_f", 2.0, "°F", (0.5, 4.0),
              "the supply fan warms the air it moves by a degree or two: that rise is not a heating leak",
              "Read supply minus mixed air with both valves shut on a unit known to be tight."),
            ParamSpec::number("delta_thr_f", 3.0, "°F", (1.0, 6.0),
              "beyond sensor error of the two temperatures that are compared",
              "Raise it for units whose mixed-air sensor reads poorly (stratified mixing boxes)."),
            ParamSpec::number("valve_closed_thr", 1.0, "% of valve stroke", (0.0, 15.0),
              "a command at or below 1 % is a shut valve; above it the valve is modulating at low load, and a water coil gives a large share of its capacity at a small flow, so the air it cools or heats is the coil working, not a leak",
              "Use the position below which the valve's actuator is fully seated (the reference's default is 5 %; raise it only for an actuator known to seat above 1 %)."),
            ParamSpec::flag("coil_sensor_fan_heat", false,
                 "a coil-leaving sensor upstream of the fan sees no fan heat",
                 "Set true when the coil sensor sits downstream of the fan."),
            ParamSpec::number("measured_fan_heat_f", f64::NAN, "°F (unset: no fan heat credited to the cooling test)", (0.0, 4.0),
              "the unit's own measured fan rise, when known, sharpens the cooling-leak test",
              "Measure supply minus mixed air with both valves shut on the unit when known to be tight; leave unset otherwise."),
            ParamSpec::number("cool_delta_thr_f", f64::NAN, "°F (unset: delta_thr_f)", (0.5, 6.0),
              "the cooling test's margin, when it should differ from the heating one",
              "Leave unset to use delta_thr_f."),
            ParamSpec::flag("occupied_only", false,
                 "out of occupied hours a unit may run a different sequence",
                 "Set true to judge occupied samples only (from the trended occupancy)."),
            ParamSpec::flag("judge_heating_on_supply_air", true,
                 "without a heating-coil sensor the supply air is the only place a heating leak shows",
                 "Set false for a dual-duct unit whose mapped supply air is the cold deck."),
        ],
        judged_basis: "fan-on samples with both valves shut",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (mat, sat) = (frame.required("mixed_air_temp"), frame.required("supply_air_temp"));
    let (cv, hv) = (frame.col("cool_valve"), frame.col("heat_valve"));
    let (cclt, hclt) = (frame.col("cool_coil_leaving_temp"), frame.col("heat_coil_leaving_temp"));
    let fan = frame.col("supply_fan_status");
    let occ = if params.flag(spec, "occupied_only") == Some(true) { frame.col("occupancy") } else { None };
    let closed = params.number(spec, "valve_closed_thr");
    let fan_heat = params.number(spec, "fan_heat_f");
    let delta = params.number(spec, "delta_thr_f");
    let cool_delta = Some(params.number(spec, "cool_delta_thr_f")).filter(|x| !x.is_nan()).unwrap_or(delta);
    let measured_fan = params.number(spec, "measured_fan_heat_f");
    let coil_fan = params.flag(spec, "coil_sensor_fan_heat") == Some(true);
    let heat_on_sat = params.flag(spec, "judge_heating_on_supply_air") != Some(false);
    let shut = |c: Option<&[f64]>, i: usize| c.is_none_or(|v| !v[i].is_nan() && v[i] <= closed);
    let w = frame.weights_hours();
    let (mut judged, mut heat_judged, mut cool_judged) = (Vec::new(), 0usize, 0usize);
    let (mut heat_judged_h, mut cool_judged_h) = (0.0f64, 0.0f64);
    let (mut heat_leaks, mut cool_leaks) = (Vec::new(), Vec::new());
    // what the leak does to the air, for the RCx report's cost model: °F-hours on the leaking
    // samples (per cfm), and Btu on the trended airflow where it has one
    let flow = frame.col("airflow").filter(|f| f.iter().any(|v| *v > crate::oa_cost::MIN_PLAUSIBLE_CFM));
    let (mut heat_dfh, mut cool_dfh, mut heat_btu, mut cool_btu, mut btu_known) = (0.0, 0.0, 0.0, 0.0, true);
    for i in 0..frame.len() {
        if mat[i].is_nan()
            || fan.is_some_and(|f| !on(f[i]))
            || occ.is_some_and(|o| !on(o[i]))
            || !shut(cv, i)
            || !shut(hv, i)
        {
            continue;
        }
        judged.push(i as u32);
        // heating: on the coil's own sensor, else on the supply air (past the fan)
        let heat_rise = match hclt {
            Some(h) if !h[i].is_nan() => Some(h[i] - mat[i] - if coil_fan { fan_heat } else { 0.0 }),
            _ if heat_on_sat && !sat[i].is_nan() => Some(sat[i] - mat[i] - fan_heat),
            _ => None,
        };
        let cfm = flow.map(|f| f[i]).filter(|v| *v > 0.0);
        if let Some(r) = heat_rise {
            heat_judged += 1;
            heat_judged_h += w[i];
            if r > delta {
                heat_leaks.push(i as u32);
                heat_dfh += r * w[i];
                match cfm {
                    Some(c) => heat_btu += crate::oa_cost::SENSIBLE_BTUH_PER_CFM_F * c * r * w[i],
                    None => btu_known = false,
                }
            }
        }
        let (cool_rise, fan_credit) = match cclt {
            Some(c) if !c[i].is_nan() => {
                (Some(c[i] - mat[i]), if coil_fan && !measured_fan.is_nan() { measured_fan } else { 0.0 })
            }
            _ if !sat[i].is_nan() => (Some(sat[i] - mat[i]), if measured_fan.is_nan() { 0.0 } else { measured_fan }),
            _ => (None, 0.0),
        };
        if let Some(r) = cool_rise {
            cool_judged += 1;
            cool_judged_h += w[i];
            if r < fan_credit - cool_delta {
                cool_leaks.push(i as u32);
                let drop = fan_credit - r;
                cool_dfh += drop * w[i];
                match cfm {
                    Some(c) => cool_btu += crate::oa_cost::SENSIBLE_BTUH_PER_CFM_F * c * drop * w[i],
                    None => btu_known = false,
                }
            }
        }
    }
    if judged.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no running sample with both valves shut")]);
    }
    // `+ 0.0` turns the empty sum's -0.0 into 0.0
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let (heat_h, cool_h) = (hours(&heat_leaks), hours(&cool_leaks));
    // shares of time, not of samples: an unevenly logged trend is not judged by its density
    let pct = |h: f64, of: f64| if of > 0.0 { 100.0 * h / of } else { 0.0 };
    let (heat_pct, cool_pct) = (pct(heat_h, heat_judged_h), pct(cool_h, cool_judged_h));
    let worst = heat_pct.max(cool_pct);
    let severity = if worst >= FAULT_PCT {
        Severity::Fault
    } else if worst >= WARN_PCT {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let which = if heat_pct >= cool_pct { "heating" } else { "cooling" };
    let mut metrics = BTreeMap::new();
    metrics.insert("heating_leak_pct".into(), round2(heat_pct));
    metrics.insert("cooling_leak_pct".into(), round2(cool_pct));
    metrics.insert("leak_heat_degf_h".into(), round2(heat_dfh));
    metrics.insert("leak_cool_degf_h".into(), round2(cool_dfh));
    let observed: f64 = (0..frame.len()).filter(|&i| !mat[i].is_nan()).map(|i| w[i]).sum();
    metrics.insert("observed_hours".into(), round2(observed));
    if flow.is_some() && btu_known {
        metrics.insert("leak_heat_kbtu".into(), round2(heat_btu / 1e3));
        metrics.insert("leak_cool_kbtu".into(), round2(cool_btu / 1e3));
    }
    let mut flagged: Vec<u32> = heat_leaks.iter().chain(&cool_leaks).copied().collect();
    flagged.sort_unstable();
    flagged.dedup();
    let mut caveats = Vec::new();
    if fan.is_none() {
        caveats.push("no fan status: samples with the fan off may have been judged".into());
    }
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!(
            "with both valves shut the {which} coil still changes the air on {worst:.1}% of the judged time ({})",
            spec.judged_basis
        ),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(flagged)
    .with_judged(judged.len())
    .with_conditions(vec![
        Condition {
            name: "heating_leak".into(),
            flagged: heat_leaks,
            judged: heat_judged,
            judged_hours: heat_judged_h,
            flagged_hours: heat_h,
        },
        Condition {
            name: "cooling_leak".into(),
            flagged: cool_leaks,
            judged: cool_judged,
            judged_hours: cool_judged_h,
            flagged_hours: cool_h,
        },
    ])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{numbers, outcome, run, H, MINUTE};

    fn frame(sat_minus_mat: impl Fn(usize) -> f64, valve: f64, fan: f64) -> Frame {
        let n = 100;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let mat = vec![60.0; n];
        let sat: Vec<f64> = (0..n).map(|i| 60.0 + sat_minus_mat(i)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("mixed_air_temp", mat),
                ("supply_air_temp", sat),
                ("cool_valve", vec![valve; n]),
                ("heat_valve", vec![0.0; n]),
                ("supply_fan_status", vec![fan; n]),
            ],
        )
    }

    #[test]
    fn a_tight_unit_is_ok_and_leaks_are_found() {
        assert_eq!(run(&RULE, &frame(|_| 1.5, 0.0, 1.0), &Params::default()).severity, Severity::Ok); // fan heat only
        let r = run(&RULE, &frame(|_| -6.0, 0.0, 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.conditions[1].flagged.len(), 100);
        let r = run(&RULE, &frame(|i| if i % 5 == 0 { 8.0 } else { 1.0 }, 0.0, 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert_eq!(r.metrics["heating_leak_pct"], 20.0);
    }

    #[test]
    fn what_a_leak_does_to_the_air_is_measured_for_its_cost() {
        // 100 h of a 6 °F drop with both valves shut: 600 °F-h of cooling
        let r = run(&RULE, &frame(|_| -6.0, 0.0, 1.0), &Params::default());
        assert_eq!((r.metrics["leak_cool_degf_h"], r.metrics["leak_heat_degf_h"]), (600.0, 0.0));
        assert_eq!(r.metrics["observed_hours"], 100.0);
        assert!(!r.metrics.contains_key("leak_cool_kbtu"), "no airflow trended");
        // with 2,000 cfm trended: 1.08 x 2,000 x 600 Btu
        let mut f = frame(|_| -6.0, 0.0, 1.0);
        f.cols.insert("airflow".into(), vec![2000.0; 100]);
        let r = run(&RULE, &f, &Params::default());
        assert!((r.metrics["leak_cool_kbtu"] - 1.08 * 2000.0 * 600.0 / 1e3).abs() < 0.01, "{:?}", r.metrics);
    }

    #[test]
    fn the_share_and_margin_boundaries() {
        // a drop of exactly the margin is not a leak; beyond it is
        assert_eq!(run(&RULE, &frame(|_| -3.0, 0.0, 1.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(|_| -3.1, 0.0, 1.0), &Params::default()).severity, Severity::Fault);
        // 10 % of samples is a warning, 9 % is not
        assert_eq!(
            run(&RULE, &frame(|i| if i < 10 { -5.0 } else { 0.0 }, 0.0, 1.0), &Params::default()).severity,
            Severity::Warn
        );
        assert_eq!(
            run(&RULE, &frame(|i| if i < 9 { -5.0 } else { 0.0 }, 0.0, 1.0), &Params::default()).severity,
            Severity::Ok
        );
    }

    #[test]
    fn the_threshold_boundaries() {
        // heating: a rise of exactly fan_heat_f + delta_thr_f (2 + 3 °F) is not a leak; beyond it is
        assert_eq!(run(&RULE, &frame(|_| 5.0, 0.0, 1.0), &Params::default()).severity, Severity::Ok);
        let over = run(&RULE, &frame(|_| 5.1, 0.0, 1.0), &Params::default());
        assert_eq!((over.severity, over.metrics["heating_leak_pct"]), (Severity::Fault, 100.0));
        assert_eq!(run(&RULE, &frame(|_| 3.0, 0.0, 1.0), &numbers(&[("delta_thr_f", 1.0)])).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(|_| 3.1, 0.0, 1.0), &numbers(&[("delta_thr_f", 1.0)])).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(|_| 4.0, 0.0, 1.0), &numbers(&[("fan_heat_f", 1.0)])).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(|_| 4.1, 0.0, 1.0), &numbers(&[("fan_heat_f", 1.0)])).severity, Severity::Fault);
        // cooling: cool_delta_thr_f replaces delta_thr_f when set
        assert_eq!(
            run(&RULE, &frame(|_| -1.0, 0.0, 1.0), &numbers(&[("cool_delta_thr_f", 1.0)])).severity,
            Severity::Ok
        );
        let cool = run(&RULE, &frame(|_| -1.1, 0.0, 1.0), &numbers(&[("cool_delta_thr_f", 1.0)]));
        assert_eq!((cool.severity, cool.metrics["cooling_leak_pct"]), (Severity::Fault, 100.0));
        // valve_closed_thr (1 %): a valve at it is shut and judged, just above it is not; a valve
        // modulating at 2.5 % is a coil at work, never a leak
        assert_eq!(run(&RULE, &frame(|_| -6.0, 1.0, 1.0), &Params::default()).judged, 100);
        assert_eq!(run(&RULE, &frame(|_| -6.0, 1.1, 1.0), &Params::default()).judged, 0);
        assert_eq!(run(&RULE, &frame(|_| -6.0, 2.5, 1.0), &Params::default()).severity, Severity::Info);
        assert_eq!(
            run(&RULE, &frame(|_| -6.0, 10.0, 1.0), &numbers(&[("valve_closed_thr", 10.0)])).severity,
            Severity::Fault
        );
        assert_eq!(
            run(&RULE, &frame(|_| -6.0, 10.1, 1.0), &numbers(&[("valve_closed_thr", 10.0)])).severity,
            Severity::Info
        );
        // the fault share: 30 % of judged samples is a fault, 29 % a warning
        assert_eq!(
            run(&RULE, &frame(|i| if i < 29 { -5.0 } else { 0.0 }, 0.0, 1.0), &Params::default()).severity,
            Severity::Warn
        );
        assert_eq!(
            run(&RULE, &frame(|i| if i < 30 { -5.0 } else { 0.0 }, 0.0, 1.0), &Params::default()).severity,
            Severity::Fault
        );
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between, so the typical step is 17 minutes and none is capped.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// 200 samples at uneven steps (40 whole cycles of 57 minutes), as `frame` otherwise.
    fn uneven(sat_minus_mat: impl Fn(usize) -> f64) -> Frame {
        let n = 200;
        let mut ts = vec![0i64];
        for k in 0..n - 1 {
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let sat: Vec<f64> = (0..n).map(|i| 60.0 + sat_minus_mat(i)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("mixed_air_temp", vec![60.0; n]),
                ("supply_air_temp", sat),
                ("cool_valve", vec![0.0; n]),
                ("heat_valve", vec![0.0; n]),
                ("supply_fan_status", vec![1.0; n]),
            ],
        )
    }

    #[test]
    fn irregular_sampling_is_weighted_by_time() {
        // a tight unit and a leaking one keep their verdicts at uneven steps
        assert_eq!(run(&RULE, &uneven(|_| 1.5), &Params::default()).severity, Severity::Ok);
        let all = run(&RULE, &uneven(|_| -6.0), &Params::default());
        assert_eq!((all.severity, all.judged), (Severity::Fault, 200));
        // 40 cycles of 57 minutes: the judged time is 38 h, not 200 samples' worth
        assert!((all.conditions[1].judged_hours - 38.0).abs() < 1e-9, "{}", all.conditions[1].judged_hours);
        // the leak shows only on the densely logged samples (those followed by a 1- or 5-minute
        // step): 2 of every 5 samples (40 %, a fault by count) but 6 of every 57 minutes
        let r = run(&RULE, &uneven(|k| if STEPS[k % 5] < 17 { -6.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.conditions[1].flagged.len(), 80);
        assert!((r.conditions[1].flagged_hours - 4.0).abs() < 1e-9, "{}", r.conditions[1].flagged_hours);
        assert_eq!(r.metrics["cooling_leak_pct"], 10.53, "the share of judged time, 6/57");
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
    }

    #[test]
    fn a_data_gap_is_not_judged_time() {
        // hours 40-79 missing; the leak on the last 20 hours
        let base = frame(|i| if i >= 80 { -6.0 } else { 0.0 }, 0.0, 1.0);
        let keep: Vec<usize> = (0..100).filter(|i| !(40..80).contains(i)).collect();
        let f = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &f, &Params::default());
        // the sample before the gap stands for 1.5 h, not 41
        assert_eq!((r.judged, r.conditions[1].judged_hours, r.conditions[1].flagged_hours), (60, 60.5, 20.0));
        assert_eq!(r.severity, Severity::Fault);
    }

    #[test]
    fn open_valves_and_fan_off_are_not_judged() {
        assert_eq!(run(&RULE, &frame(|_| -10.0, 50.0, 1.0), &Params::default()).severity, Severity::Info);
        assert_eq!(run(&RULE, &frame(|_| -10.0, 0.0, 0.0), &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn duplicates_gaps_and_missing_inputs() {
        let f = Frame::from_rows(
            &[2 * H, 0, H, H, 90 * H],
            &[
                ("mixed_air_temp", vec![60.0; 5]),
                ("supply_air_temp", vec![61.0, 61.0, 50.0, 61.0, 61.0]),
                ("cool_valve", vec![0.0; 5]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.severity), (4, Severity::Ok));
        let g =
            Frame::from_rows(&[0, H], &[("mixed_air_temp", vec![60.0, 60.0]), ("supply_air_temp", vec![60.0, 60.0])]);
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["cool_valve or heat_valve".into()] }
        );
    }
}
