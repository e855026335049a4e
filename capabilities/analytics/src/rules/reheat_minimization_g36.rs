//! `reheat_minimization_g36`: a VAV reheat box that reheats more air than it needs to. Under
//! ASHRAE Guideline 36's dual-maximum heating sequence (§5.6.5) a box that starts to heat first
//! raises its discharge temperature with the airflow held at its minimum; only when the heating
//! loop passes 50 % does the airflow rise toward the heating maximum. A box that reheats with its
//! airflow well above the minimum before that (a single-maximum sequence, a box cooling and
//! heating at once) heats air it did not need to move.
//!
//! Judged on the occupied samples (the occupancy point, else the schedule; less warm-up and
//! cool-down) with the valve, the airflow and the minimum read. Reheating is the valve above
//! `valve_thr`; above the minimum is the airflow above `flow_margin` times the minimum. The
//! minimum is `airflow_min_sp`, else `airflow_sp` read as one, else, when `airflow_sp` swings
//! with load and the airflow follows it (the active setpoint), its 5th percentile
//! ([`crate::terminal::min_flow`]). The high heating loop, where a rising airflow is the sequence
//! at work, is the zone heating loop above 50 % when trended (a sample without a loop reading is
//! then left out), else the valve at or above `dual_max_valve` or the discharge air at least
//! `dual_max_dat_rise` above the space. The share of reheating time above the minimum outside
//! the high loop is a warning from 15 % and a fault from 40 % (fixed, as the reference's); an
//! inferred minimum rates no worse than a warning, and less than `min_reheat_hours` of reheat,
//! or fewer than four reheat samples, is not rated (info).
//!
//! The reheat hours are of time (each sample weighs the time it stands for, so a gap is not
//! reheat) where the reference counts samples times the median step; on regular data they
//! agree, and on the reference's synthetic-g36-vav-fleet this rule's verdicts and shares are
//! the reference's (faults on VAV2__reheat, VAV4__reheat and VAV1-5__heat_cool, every other box
//! passing).
//!
//! A box that reheats *at* its minimum follows the sequence whatever that minimum is, so a
//! minimum set too high for a cold supply air is not this rule's finding: `overcooling_min_flow`
//! finds it (satisfied on cooling, held at the minimum, reheating). On camber-synth's
//! synthetic-g36-vav the four `heating_cooling_overlap` boxes reheat at their (high) minimum
//! and pass here, as they do in the reference.

use std::collections::BTreeMap;

use crate::engine::{
    round2, schedule_params, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec, Severity,
};
use crate::terminal::{self, hours, MinBasis, INFERRED_CAVEAT};

/// Fewest reheat samples whose share above the minimum is rated: on an hourly trend two hours
/// of reheat are two samples, and one of them above the minimum is not half the reheat.
const MIN_REHEAT_SAMPLES: usize = 4;

/// The share of reheating time (%) above the minimum outside the high heating loop that is a
/// warning ...
pub const WARN_PCT: f64 = 15.0;
/// ... and a fault.
pub const FAULT_PCT: f64 = 40.0;
/// A zone heating loop above this (%) is Guideline 36's high heating loop, where the airflow
/// rises toward the heating maximum by design.
pub const HIGH_LOOP_PCT: f64 = 50.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "reheat_minimization_g36",
        families: &["terminal"],
        inputs: Inputs {
            required: &["heat_valve", "airflow"],
            optional: &[
                "airflow_min_sp",
                "airflow_sp",
                "zone_heat_loop",
                "supply_air_temp",
                "space_temp",
                "occupancy",
                "warmup",
                "cooldown",
            ],
            gating: &[],
            one_of: &[&["airflow_min_sp", "airflow_sp"]],
            needs_gating: false,
        },
        params: [
            vec![
                ParamSpec::number(
                    "valve_thr",
                    5.0,
                    "% valve open",
                    (1.0, 20.0),
                    "a shut valve reads a few percent in trends (offset, leak-by); above five percent the coil is heating",
                    "Look at what the valve command reads on hours the box is known not to heat and set this just above it. The warn and fault shares (15 % and 40 % of reheating time) are fixed.",
                ),
                ParamSpec::number(
                    "flow_margin",
                    1.2,
                    "- (multiple of the airflow setpoint)",
                    (1.05, 2.0),
                    "a box holding its minimum reads within a tenth or so of it; a fifth above is airflow the box chose to add",
                    "On boxes known to sit at their minimum, take a high percentile (95th) of airflow / minimum and set the margin a little above it. The minimum is airflow_min_sp, else airflow_sp, else the 5th percentile of an airflow_sp that moves like the active setpoint.",
                ),
                ParamSpec::number(
                    "dual_max_valve",
                    90.0,
                    "% valve open",
                    (50.0, 100.0),
                    "Guideline 36's dual maximum lets the airflow rise only past half the heating loop, with the discharge air at its top and the valve close to fully open",
                    "Used only without a trended zone_heat_loop. On a box known to run dual maximum, read the valve in the hours its airflow rises above the minimum while heating and set this just below the lowest of them.",
                ),
                ParamSpec::number(
                    "dual_max_dat_rise",
                    15.0,
                    "°F (discharge minus space temperature)",
                    (5.0, 40.0),
                    "at the top of the dual-maximum heating loop the discharge air sits about 20 °F over the space; 15 °F allows for sensor offsets",
                    "Used only without zone_heat_loop and with the discharge (supply_air_temp at a box) and space temperatures trended. Read the discharge-minus-space difference while a dual-maximum box raises its airflow in heating and set this a little below it.",
                ),
                ParamSpec::number(
                    "min_reheat_hours",
                    2.0,
                    "h of occupied reheat (samples x the sample interval)",
                    (0.0, 24.0),
                    "a setpoint change or a cold morning gives a box an hour of reheat; the sequence is not rated on so little",
                    "Raise it on long records or a noisy valve so a few stray reheat samples are not rated; reheat_hours in the finding shows how much the box had.",
                ),
            ],
            schedule_params().to_vec(),
        ]
        .concat(),
        judged_basis: "occupied samples with the reheat valve open",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (valve, flow) = (frame.required("heat_valve"), frame.required("airflow"));
    let occupied = terminal::occupied(spec, frame, params, &["warmup", "cooldown"]);
    let Some(min) = terminal::min_flow(frame, &occupied) else {
        return Outcome::Skipped { missing: vec!["airflow_min_sp or airflow_sp".into()] };
    };
    let heat_loop = frame.col("zone_heat_loop");
    let rise: Option<Vec<f64>> = match (frame.col("supply_air_temp"), frame.col("space_temp")) {
        (Some(d), Some(s)) if heat_loop.is_none() => Some(d.iter().zip(s).map(|(d, s)| d - s).collect()),
        _ => None,
    };
    let p = |name: &str| params.number(spec, name);
    let (valve_thr, margin) = (p("valve_thr"), p("flow_margin"));
    let (dual_valve, dual_rise) = (p("dual_max_valve"), p("dual_max_dat_rise"));
    let w = frame.weights_hours();

    let mut loop_missing = 0usize;
    let considered: Vec<bool> = (0..frame.len())
        .map(|i| {
            if !occupied[i] || valve[i].is_nan() || flow[i].is_nan() || min.at[i].is_nan() {
                return false;
            }
            // a trended heating loop that reads nothing is not a low loop
            if heat_loop.is_some_and(|l| l[i].is_nan()) {
                loop_missing += 1;
                return false;
            }
            true
        })
        .collect();
    let occupied_h = hours(&w, |i| considered[i]);
    if occupied_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no occupied sample with the reheat valve, the airflow and its minimum",
        )]);
    }
    let reheating = |i: usize| considered[i] && valve[i] > valve_thr;
    let above = |i: usize| flow[i] > margin * min.at[i];
    let high_loop = |i: usize| match heat_loop {
        Some(l) => l[i] > HIGH_LOOP_PCT,
        None => valve[i] >= dual_valve || rise.as_ref().is_some_and(|r| r[i] >= dual_rise),
    };
    let reheat: Vec<u32> = (0..frame.len()).filter(|&i| reheating(i)).map(|i| i as u32).collect();
    let violation: Vec<u32> = reheat.iter().copied().filter(|&i| above(i as usize) && !high_loop(i as usize)).collect();
    let by_design: Vec<u32> = reheat.iter().copied().filter(|&i| above(i as usize) && high_loop(i as usize)).collect();
    // + 0.0: an empty float sum is -0.0
    let sum = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let (reheat_h, violation_h, design_h) = (sum(&reheat), sum(&violation), sum(&by_design));
    let reheat_pct = 100.0 * reheat_h / occupied_h;
    let share = |h: f64| if reheat_h > 0.0 { 100.0 * h / reheat_h } else { 0.0 };
    let above_pct = share(violation_h);

    let mut caveats = Vec::new();
    if frame.col("occupancy").is_none() {
        caveats.push(terminal::schedule_caveat(spec, params));
    }
    if loop_missing > 0 {
        caveats.push(format!(
            "{loop_missing} occupied sample(s) with no zone heating loop reading were left out (a missing loop is not a low one)"
        ));
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("occupied_hours".into(), round2(occupied_h));
    metrics.insert("reheat_hours".into(), round2(reheat_h));
    metrics.insert("reheat_pct".into(), round2(reheat_pct));
    metrics.insert("reheat_samples".into(), reheat.len() as f64);
    metrics.insert("reheat_above_min_pct".into(), round2(above_pct));
    metrics.insert("reheat_above_min_hours".into(), round2(violation_h));
    metrics.insert("reheat_high_loop_pct".into(), round2(share(design_h)));

    let basis = min.basis.describe();
    let (severity, summary) = if reheat.is_empty() {
        (Severity::Ok, format!("no reheat in {occupied_h:.1} h of occupied time (valve never above {valve_thr}%)"))
    } else {
        let mut severity = severity_of(above_pct, WARN_PCT, FAULT_PCT);
        if min.basis == MinBasis::Inferred {
            caveats.push(INFERRED_CAVEAT.to_string());
            severity = severity.min(Severity::Warn);
        }
        if heat_loop.is_none() && design_h > 0.0 {
            let dat = if rise.is_some() {
                format!(" or the discharge {dual_rise} °F or more above the space")
            } else {
                String::new()
            };
            caveats.push(format!(
                "no zone heating loop is trended: {design_h:.1} h of reheat above the minimum with the valve at {dual_valve}% or more{dat} were read as Guideline 36's high heating loop and not counted; a single-maximum box with its valve wide open looks the same"
            ));
        }
        let min_h = p("min_reheat_hours");
        if reheat_h < min_h {
            caveats.push(format!(
                "only {reheat_h:.1} h of occupied reheat, under min_reheat_hours ({min_h} h): the sequence is not rated"
            ));
            severity = Severity::Info;
        } else if reheat.len() < MIN_REHEAT_SAMPLES {
            caveats.push(format!(
                "only {} reheat sample(s) (a coarse trend): a share of so few is not a rate, and the sequence is not rated",
                reheat.len()
            ));
            severity = Severity::Info;
        }
        (
            severity,
            format!(
                "reheats on {reheat_pct:.1}% of occupied time ({reheat_h:.1} of {occupied_h:.1} h); {above_pct:.1}% of that reheat ({violation_h:.1} h) with the airflow above {margin} x its minimum ({basis}) outside the high heating loop, where Guideline 36 holds the minimum"
            ),
        )
    };
    let condition = Condition {
        name: "reheat_above_minimum".into(),
        flagged_hours: violation_h,
        flagged: violation.clone(),
        judged: reheat.len(),
        judged_hours: reheat_h,
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(violation)
        .with_judged(reheat.len())
        .with_conditions(vec![condition])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// `n` occupied hourly samples of a box with a 300 cfm minimum and its heating loop at 20 %,
    /// its valve at `valve(i)` and its airflow at `flow(i)`.
    fn box_frame(n: usize, valve: impl Fn(usize) -> f64, flow: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("heat_valve", (0..n).map(valve).collect()),
                ("airflow", (0..n).map(flow).collect()),
                ("airflow_min_sp", vec![300.0; n]),
                ("zone_heat_loop", vec![20.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// 40 samples reheating throughout, `k` of them at 500 cfm and the rest at the minimum.
    fn above(k: usize) -> Frame {
        box_frame(40, |_| 40.0, |i| if i < k { 500.0 } else { 300.0 })
    }

    #[test]
    fn a_box_that_reheats_at_its_minimum_is_ok() {
        // reheats a quarter of the time, at its minimum; cools above it otherwise
        let f = box_frame(40, |i| if i % 4 == 0 { 40.0 } else { 0.0 }, |i| if i % 4 == 0 { 310.0 } else { 700.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["reheat_pct"]), (Severity::Ok, 10, 25.0));
        assert_eq!(r.metrics["reheat_above_min_pct"], 0.0);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
        // never reheating is a box that wastes no reheat
        let r = run(&RULE, &box_frame(40, |_| 0.0, |_| 700.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 0));
        assert!(r.summary.starts_with("no reheat"), "{}", r.summary);
    }

    #[test]
    fn reheat_above_the_minimum_outside_the_high_loop_is_a_fault() {
        let r = run(&RULE, &above(40), &Params::default());
        assert_eq!((r.severity, r.metrics["reheat_above_min_pct"], r.flagged.len()), (Severity::Fault, 100.0, 40));
        assert!(r.summary.contains("100.0% of that reheat"), "{}", r.summary);
        assert_eq!(r.conditions[0].flagged.len(), 40);
    }

    #[test]
    fn the_thresholds_and_shares_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        // 6 of 40 reheating samples above the minimum is 15 % (warn), 16 is 40 % (fault)
        assert_eq!(sev(&above(5), &Params::default()), Severity::Ok);
        assert_eq!(sev(&above(6), &Params::default()), Severity::Warn);
        assert_eq!(sev(&above(15), &Params::default()), Severity::Warn);
        assert_eq!(sev(&above(16), &Params::default()), Severity::Fault);
        // airflow exactly flow_margin x the minimum is not above it; just past it is
        let at = |flow: f64, p: &Params| run(&RULE, &box_frame(10, |_| 40.0, |_| flow), p).flagged.len();
        assert_eq!(at(360.0, &Params::default()), 0);
        assert_eq!(at(360.5, &Params::default()), 10);
        assert_eq!(at(360.5, &numbers(&[("flow_margin", 1.25)])), 0);
        // a valve exactly at valve_thr is not reheating
        let valve = |v: f64, p: &Params| run(&RULE, &box_frame(10, |_| v, |_| 500.0), p).metrics["reheat_samples"];
        assert_eq!(valve(5.0, &Params::default()), 0.0);
        assert_eq!(valve(5.5, &Params::default()), 10.0);
        assert_eq!(valve(5.5, &numbers(&[("valve_thr", 6.0)])), 0.0);
        // min_reheat_hours: reheat of exactly that many hours is rated, less is not
        let reheat = |k: usize, p: &Params| {
            sev(&box_frame(10, |i| if i < k { 40.0 } else { 0.0 }, |i| if i < k { 500.0 } else { 300.0 }), p)
        };
        assert_eq!(reheat(4, &numbers(&[("min_reheat_hours", 4.0)])), Severity::Fault);
        assert_eq!(reheat(1, &Params::default()), Severity::Info);
        assert_eq!(reheat(4, &numbers(&[("min_reheat_hours", 4.5)])), Severity::Info);
    }

    #[test]
    fn the_high_heating_loop_raises_the_airflow_by_design() {
        // the loop above 50 %: not counted, however high the airflow
        let mut f = above(40);
        f.cols.insert("zone_heat_loop".into(), vec![50.5; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["reheat_high_loop_pct"]), (Severity::Ok, 100.0));
        f.cols.insert("zone_heat_loop".into(), vec![50.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
        // a trended loop that reads nothing is left out, and said so
        f.cols.insert("zone_heat_loop".into(), (0..40).map(|i| if i < 30 { f64::NAN } else { 20.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["occupied_hours"]), (10, 10.0));
        assert!(r.caveats[0].contains("30 occupied sample(s)"), "{:?}", r.caveats);
        // without a loop: the valve at dual_max_valve, or the discharge well above the space
        f.cols.remove("zone_heat_loop");
        f.cols.insert("heat_valve".into(), vec![90.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats.iter().any(|c| c.contains("single-maximum")), "{:?}", r.caveats);
        assert_eq!(run(&RULE, &f, &numbers(&[("dual_max_valve", 95.0)])).severity, Severity::Fault);
        f.cols.insert("heat_valve".into(), vec![60.0; 40]);
        f.cols.insert("space_temp".into(), vec![70.0; 40]);
        f.cols.insert("supply_air_temp".into(), vec![85.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        f.cols.insert("supply_air_temp".into(), vec![84.5; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn a_minimum_inferred_from_an_active_setpoint_rates_no_worse_than_a_warning() {
        // the setpoint swings 300-1000 cfm and the airflow follows it; the box reheats at 600
        let n = 40;
        let sp: Vec<f64> = (0..n).map(|i| 300.0 + 700.0 * ((i % 8) as f64 / 7.0)).collect();
        let f = Frame::from_rows(
            &every(MONDAY, H, n),
            &[("heat_valve", vec![30.0; n]), ("airflow", sp.clone()), ("airflow_sp", sp), ("occupancy", vec![1.0; n])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.caveats.iter().any(|c| c.contains("active airflow setpoint")), "{:?}", r.caveats);
        assert!(r.summary.contains("inferred from the active airflow_sp"), "{}", r.summary);
        // a flat airflow_sp is the minimum: no cap
        let mut g = above(40);
        let m = g.cols.remove("airflow_min_sp").unwrap();
        g.cols.insert("airflow_sp".into(), m);
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn unoccupied_warm_up_and_cool_down_samples_are_not_judged() {
        let mut f = above(40);
        f.cols.insert("occupancy".into(), (0..40).map(|i| if i < 20 { 0.0 } else { 1.0 }).collect());
        f.cols.insert("airflow".into(), (0..40).map(|i| if i < 20 { 900.0 } else { 300.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 20));
        let mut g = above(40);
        g.cols.insert("warmup".into(), (0..40).map(|i| if i < 20 { 1.0 } else { 0.0 }).collect());
        g.cols.insert("cooldown".into(), (0..40).map(|i| if i >= 30 { 1.0 } else { 0.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).judged, 10);
        // no occupancy point: the schedule (weekdays 07:00-18:00), and said so
        // (40 hours from Monday 00:00: Monday 07:00-17:00 and Tuesday 07:00-15:00)
        let mut h = above(40);
        h.cols.remove("occupancy");
        let r = run(&RULE, &h, &Params::default());
        assert_eq!(r.judged, 20);
        assert!(r.caveats[0].contains("Mon, Tue, Wed, Thu, Fri from 7:00 to 18:00"), "{:?}", r.caveats);
        // never occupied: not judged, not a pass
        h.cols.insert("occupancy".into(), vec![0.0; 40]);
        assert_eq!(run(&RULE, &h, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 10-minute samples at the minimum for four hours, then six hourly samples above it:
        // each hourly sample stands for 1.5 typical steps (15 minutes)
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..6).map(|i| MONDAY + 4 * H + i * H));
        let n = ts.len();
        let flow: Vec<f64> = (0..n).map(|i| if i >= 24 { 500.0 } else { 300.0 }).collect();
        let f = Frame::from_rows(
            &ts,
            &[
                ("heat_valve", vec![40.0; n]),
                ("airflow", flow),
                ("airflow_min_sp", vec![300.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[24..].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["reheat_above_min_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        assert_eq!(r.severity, severity_of(expect, WARN_PCT, FAULT_PCT));
        // a missing day is not judged time
        let mut ts = every(MONDAY, H, 72);
        ts.retain(|t| (t - MONDAY) / (24 * H) != 1);
        let n = ts.len();
        let g = Frame::from_rows(
            &ts,
            &[
                ("heat_valve", vec![40.0; n]),
                ("airflow", vec![300.0; n]),
                ("airflow_min_sp", vec![300.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["reheat_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [above(10), above(0), box_frame(30, |i| (i * 3) as f64, |i| 250.0 + 10.0 * i as f64)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn two_hourly_samples_of_reheat_are_not_a_rate() {
        // two hours of reheat on an hourly trend, one above the minimum: not rated
        let f = box_frame(10, |i| if i < 2 { 40.0 } else { 0.0 }, |i| if i == 0 { 500.0 } else { 300.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["reheat_above_min_pct"]), (Severity::Info, 50.0), "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("not a rate")), "{:?}", r.caveats);
        // four such samples are rated
        let g = box_frame(10, |i| if i < 4 { 40.0 } else { 0.0 }, |i| if i < 2 { 500.0 } else { 300.0 });
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("heat_valve", vec![40.0; 3]), ("airflow_min_sp", vec![300.0; 3])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["airflow".into()] });
        let g = Frame::from_rows(&ts, &[("heat_valve", vec![40.0; 3]), ("airflow", vec![300.0; 3])]);
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["airflow_min_sp or airflow_sp".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = box_frame(1, |_| 40.0, |_| 500.0);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Info);
        let apart = Frame::from_rows(
            &ts,
            &[
                ("heat_valve", vec![40.0, f64::NAN, f64::NAN]),
                ("airflow", vec![f64::NAN, 500.0, 500.0]),
                ("airflow_min_sp", vec![300.0; 3]),
                ("occupancy", vec![1.0; 3]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }
}
