//! `airflow_tracking`: a terminal box does not deliver the airflow its controller asks for. A
//! judged sample has an airflow setpoint above `min_sp`, the supply fan running (its status,
//! else its speed, when either is trended) and the zone occupied (when occupancy is trended).
//! It is off setpoint when the measured airflow misses the setpoint by more than `tol_frac` of
//! it and by more than `abs_tol`; short of air is a starved box, a stuck damper or a failed
//! actuator, too much is a damper that does not close or a flow sensor out of calibration. The
//! share of judged time off setpoint is warned at `warn_pct` and a fault at `fault_pct`.
//!
//! The measured airflow is never read as the fan's state, as other rules do without a fan
//! signal: a box with no air is exactly what this rule looks for. Without a fan or occupancy
//! signal every sample with a setpoint is judged, and the finding says so, since hours with the
//! air handler off then read as starvation.
//!
//! Beyond the reference, three kinds of shortfall are not counted, so a healthy box under a
//! trim-and-respond duct static reset is not flagged. The reference counts them all: its
//! judgement flags at least 9 of the 23 boxes camber-synth's synthetic-g36-vav labels healthy
//! (its own dataset notes say it flagged the healthy boxes of its version-2 G36 generator the
//! same way), where this rule flags none and still finds every starved, rogue and stuck box:
//!
//! - *Settling*: right after the setpoint jumps by more than the tolerance (a box coming out of
//!   its night shutdown, from zero to its minimum), a sample whose airflow is still between the
//!   old and the new setpoint is a damper on its way, not a miss. A box that never gets there is
//!   judged on the next sample.
//! - *A zone that holds*: with the zone temperature and cooling setpoint trended, a box that
//!   delivers at least its minimum (`airflow_min_sp`, else the lowest setpoint it runs at) while
//!   its zone is no more than [`ZONE_TOL_F`] above the cooling setpoint is short of a maximum
//!   the zone does not need: the loop asks for more than it gets and the zone holds anyway.
//! - *The critical zone*: with the damper trended, a box wide open (at or above
//!   [`WIDE_OPEN_PCT`]) that gets at least [`CRITICAL_FLOW_FRAC`] of its setpoint is where a
//!   duct static reset is meant to leave its most demanding box: Guideline 36 has it send one
//!   request, the reset's normal operating point, and two or three only below that share.
//!
//! Still counted: a box short of air with its zone warm, unless it is the critical zone (starved,
//! a rogue zone); below its minimum however comfortable its zone (a blocked inlet); short with
//! its damper not wide open (stuck, a failed actuator); over its setpoint; and any miss on a box
//! with none of those points trended. Each exemption is a metric (`settling_samples`,
//! `short_zone_holds_pct`, `critical_zone_pct`) and a caveat when it applied.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, fan_on, on, round2, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec,
};

/// How far (°F) above its cooling setpoint a zone still holds (unmet_setpoint_hours' default
/// tolerance).
pub const ZONE_TOL_F: f64 = 1.5;

/// A damper at or above this position (%) is wide open (Guideline 36's static-pressure
/// request logic).
pub const WIDE_OPEN_PCT: f64 = 95.0;
/// The share of its setpoint a wide-open box delivers at the critical zone of a reset duct
/// static: at or above it Guideline 36 sends one request (the reset's normal operating point),
/// below it two or three (starved).
pub const CRITICAL_FLOW_FRAC: f64 = 0.7;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "airflow_tracking",
        families: &["terminal"],
        inputs: Inputs {
            required: &["airflow", "airflow_sp"],
            optional: &["supply_fan_status", "supply_fan_speed", "occupancy", "airflow_min_sp", "space_temp", "cool_sp", "damper"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "tol_frac",
                0.2,
                "fraction of the airflow setpoint",
                (0.05, 0.5),
                "a box flow loop in control holds within a tenth or so of its setpoint; a fifth off is a box that cannot get there",
                "On a period the boxes are known good, take the 95th percentile of |flow - setpoint| / setpoint (mean_abs_rel_error gives the typical size) and set this just above it; flow sensors read poorly at low flow.",
            ),
            ParamSpec::number(
                "min_sp",
                1e-6,
                "cfm (the airflow setpoint's unit)",
                (0.0, 500.0),
                "only keeps a zero setpoint (a box shut off) out of the relative error",
                "Raise it to the box's minimum-flow setpoint, or a small share of design flow, to leave out samples where a tiny setpoint makes the relative error noise.",
            ),
            ParamSpec::number(
                "abs_tol",
                0.0,
                "cfm (the airflow setpoint's unit)",
                (0.0, 200.0),
                "off unless set: the relative tolerance alone decides",
                "Set it to the flow sensor's accuracy at low flow (a few percent of design flow): a sample is off setpoint only when it misses by more than both tol_frac and abs_tol, so a small miss on a small minimum is not counted.",
            ),
            ParamSpec::number(
                "warn_pct",
                10.0,
                "% of judged samples (setpoint above min_sp; fan-on and occupied when trended)",
                (2.0, 30.0),
                "a box in control misses its setpoint only briefly, after steps and at start-up",
                "Read off_setpoint_pct on boxes known to be healthy and set this above their spread.",
            ),
            ParamSpec::number(
                "fault_pct",
                25.0,
                "% of judged samples (setpoint above min_sp; fan-on and occupied when trended)",
                (10.0, 60.0),
                "a quarter of running time off its airflow is a box that is not being controlled",
                "Keep it at or above warn_pct.",
            ),
        ],
        judged_basis: "samples with an airflow setpoint (fan on and occupied when trended)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (flow, sp) = (frame.required("airflow"), frame.required("airflow_sp"));
    // the fan's own signal only: never the airflow proxy
    let fan = (frame.col("supply_fan_status").is_some() || frame.col("supply_fan_speed").is_some())
        .then(|| fan_on(frame))
        .flatten();
    let occ = frame.col("occupancy");
    let (tol, min_sp, abs_tol) =
        (params.number(spec, "tol_frac"), params.number(spec, "min_sp"), params.number(spec, "abs_tol"));
    let (zone, cool) = (frame.col("space_temp"), frame.col("cool_sp"));
    let damper = frame.col("damper").map(as_percent);
    let min_flow = minimum_flow(frame, sp, min_sp);
    let w = frame.weights_hours();
    let (mut judged, mut judged_h, mut err_h, mut settling) = (0usize, 0.0, 0.0, 0usize);
    let (mut unneeded_h, mut critical_h) = (0.0, 0.0);
    let (mut under, mut over) = (Vec::new(), Vec::new());
    let mut last_sp = f64::NAN;
    for i in 0..frame.len() {
        let before = last_sp;
        if !sp[i].is_nan() {
            last_sp = sp[i];
        }
        let running = fan.as_ref().is_none_or(|(f, _)| f[i] == Some(true));
        if flow[i].is_nan() || sp[i].is_nan() || sp[i].abs() <= min_sp || !running || occ.is_some_and(|o| !on(o[i])) {
            continue;
        }
        let miss = flow[i] - sp[i];
        let off = miss.abs() > tol * sp[i].abs() && miss.abs() > abs_tol;
        // a setpoint that has just jumped, with the flow still between the old and new values
        let jumped = !before.is_nan() && (sp[i] - before).abs() > tol * sp[i].abs();
        let (lo, hi) = (before.min(sp[i]), before.max(sp[i]));
        if off && jumped && (lo..=hi).contains(&flow[i]) {
            settling += 1;
            continue;
        }
        judged += 1;
        judged_h += w[i];
        err_h += w[i] * (miss / sp[i]).abs();
        // short of a maximum the zone does not need: the zone holds and the box ventilates
        let holds = zone.zip(cool).is_some_and(|(z, c)| z[i] <= c[i] + ZONE_TOL_F);
        if off && miss < 0.0 && holds && flow[i] >= min_flow(i) {
            unneeded_h += w[i];
            continue;
        }
        // the critical zone of a reset duct static: wide open, a little short
        let wide_open = damper.as_ref().is_some_and(|d| d[i] >= WIDE_OPEN_PCT);
        if off && miss < 0.0 && wide_open && flow[i] >= CRITICAL_FLOW_FRAC * sp[i] {
            critical_h += w[i];
            continue;
        }
        if off {
            if miss < 0.0 { &mut under } else { &mut over }.push(i as u32);
        }
    }
    if judged == 0 {
        let why = match (fan.is_some(), occ.is_some()) {
            (false, false) => "no sample with an airflow setpoint above min_sp",
            (true, false) => "no sample with an airflow setpoint above min_sp while the fan runs",
            (false, true) => "no sample with an airflow setpoint above min_sp while the zone is occupied",
            (true, true) => {
                "no sample with an airflow setpoint above min_sp while the fan runs and the zone is occupied"
            }
        };
        return Outcome::Findings(vec![Finding::not_judged(spec, why)]);
    }
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx);
    let (under_h, over_h) = (hours(&under), hours(&over));
    let pct = |h: f64| 100.0 * h / judged_h;
    let off_pct = pct(under_h + over_h);
    let severity = severity_of(off_pct, params.number(spec, "warn_pct"), params.number(spec, "fault_pct"));
    let mut caveats = Vec::new();
    if fan.is_none() && occ.is_none() {
        caveats.push(
            "no fan status, fan speed or occupancy is trended: every sample with an airflow setpoint was judged, so hours with the air handler off can read as starved (map the fan status or occupancy)"
                .to_string(),
        );
    }
    if unneeded_h > 0.0 {
        caveats.push(format!(
            "short of its setpoint on {:.1}% of judged time with its zone within {ZONE_TOL_F} °F of the cooling setpoint and at least its minimum airflow: not counted (short_zone_holds_pct)",
            pct(unneeded_h)
        ));
    }
    if critical_h > 0.0 {
        caveats.push(format!(
            "short of its setpoint by less than {:.0}% with its damper wide open on {:.1}% of judged time, the critical zone of a duct static reset: not counted (critical_zone_pct)",
            100.0 * (1.0 - CRITICAL_FLOW_FRAC),
            pct(critical_h)
        ));
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("off_setpoint_pct".into(), round2(off_pct));
    metrics.insert("critical_zone_pct".into(), round2(pct(critical_h)));
    metrics.insert("undershoot_pct".into(), round2(pct(under_h)));
    metrics.insert("overshoot_pct".into(), round2(pct(over_h)));
    metrics.insert("mean_abs_rel_error".into(), (err_h / judged_h * 1000.0).round() / 1000.0);
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("settling_samples".into(), settling as f64);
    metrics.insert("short_zone_holds_pct".into(), round2(pct(unneeded_h)));
    let mut flagged: Vec<u32> = under.iter().chain(&over).copied().collect();
    flagged.sort_unstable();
    let summary = format!(
        "airflow misses its setpoint by more than {:.0}% on {off_pct:.1}% of {} ({:.1} of {judged_h:.1} h; short {:.1}%, over {:.1}%)",
        tol * 100.0,
        spec.judged_basis,
        under_h + over_h,
        pct(under_h),
        pct(over_h),
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
        .with_conditions(vec![condition("short_of_air", under), condition("over_air", over)])])
}

/// The box's minimum airflow at each sample: its trended minimum setpoint, else the lowest
/// setpoint above `min_sp` it runs at (its 5th percentile; infinite when it has none, so no
/// shortfall passes as ventilating).
fn minimum_flow<'a>(frame: &'a Frame, sp: &[f64], min_sp: f64) -> impl Fn(usize) -> f64 + 'a {
    let mut seen: Vec<f64> = sp.iter().copied().filter(|v| !v.is_nan() && v.abs() > min_sp).collect();
    seen.sort_by(f64::total_cmp);
    let low = seen.get(seen.len() / 20).copied().unwrap_or(f64::INFINITY);
    let trended = frame.col("airflow_min_sp");
    move |i| match trended.map(|m| m[i]) {
        Some(m) if !m.is_nan() && m > 0.0 => m,
        _ => low,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::engine::Severity;

    /// Hourly samples from Monday 00:00 of a box at a steady 500 cfm setpoint with the fan on,
    /// delivering `flow(i)`.
    fn box_frame(n: usize, flow: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("airflow", (0..n).map(flow).collect()),
                ("airflow_sp", vec![500.0; n]),
                ("supply_fan_status", vec![1.0; n]),
            ],
        )
    }

    #[test]
    fn a_box_on_its_setpoint_is_ok() {
        let r = run(&RULE, &box_frame(40, |i| 500.0 + 30.0 * ((i % 3) as f64 - 1.0)), &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["off_setpoint_pct"]), (Severity::Ok, 40, 0.0));
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn a_starved_box_and_an_overflowing_one_are_faults_with_their_direction() {
        let r = run(&RULE, &box_frame(40, |_| 200.0), &Params::default());
        assert_eq!(
            (r.severity, r.metrics["undershoot_pct"], r.metrics["overshoot_pct"]),
            (Severity::Fault, 100.0, 0.0)
        );
        assert_eq!((r.conditions[0].flagged.len(), r.conditions[1].flagged.len()), (40, 0));
        assert_eq!(r.metrics["mean_abs_rel_error"], 0.6);
        let r = run(&RULE, &box_frame(40, |i| if i % 2 == 0 { 800.0 } else { 500.0 }), &Params::default());
        assert_eq!((r.severity, r.metrics["overshoot_pct"]), (Severity::Fault, 50.0));
        assert_eq!(r.conditions[1].flagged.len(), 20);
    }

    #[test]
    fn the_tolerance_and_share_boundaries() {
        // exactly tol_frac off is on setpoint; just past it is off
        assert_eq!(run(&RULE, &box_frame(10, |_| 400.0), &Params::default()).flagged.len(), 0);
        assert_eq!(run(&RULE, &box_frame(10, |_| 399.0), &Params::default()).flagged.len(), 10);
        assert_eq!(run(&RULE, &box_frame(10, |_| 600.0), &Params::default()).flagged.len(), 0);
        assert_eq!(run(&RULE, &box_frame(10, |_| 601.0), &Params::default()).flagged.len(), 10);
        assert_eq!(run(&RULE, &box_frame(10, |_| 399.0), &numbers(&[("tol_frac", 0.25)])).flagged.len(), 0);
        // abs_tol: off only past both tolerances
        assert_eq!(run(&RULE, &box_frame(10, |_| 399.0), &numbers(&[("abs_tol", 101.0)])).flagged.len(), 0);
        assert_eq!(run(&RULE, &box_frame(10, |_| 398.0), &numbers(&[("abs_tol", 101.0)])).flagged.len(), 10);
        // min_sp: a setpoint at or below it is not judged
        let r = run(&RULE, &box_frame(10, |_| 0.0), &numbers(&[("min_sp", 500.0)]));
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // 40 samples: 4 off is 10 % (warn_pct, at it); 10 off is 25 % (fault_pct, at it)
        let off = |k: usize, p: &Params| run(&RULE, &box_frame(40, |i| if i < k { 100.0 } else { 500.0 }), p).severity;
        assert_eq!(off(3, &Params::default()), Severity::Ok);
        assert_eq!(off(4, &Params::default()), Severity::Warn);
        assert_eq!(off(9, &Params::default()), Severity::Warn);
        assert_eq!(off(10, &Params::default()), Severity::Fault);
        assert_eq!(off(4, &numbers(&[("warn_pct", 11.0)])), Severity::Ok);
        assert_eq!(off(10, &numbers(&[("fault_pct", 26.0)])), Severity::Warn);
    }

    #[test]
    fn fan_off_and_unoccupied_samples_are_not_judged() {
        // starved every other hour, exactly when the fan is off
        let n = 40;
        let mut f = box_frame(n, |i| if i % 2 == 0 { 0.0 } else { 500.0 });
        f.cols.insert("supply_fan_status".into(), (0..n).map(|i| (i % 2) as f64).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 20));
        // the fan's speed stands in for its status; the airflow itself never does
        let mut g = f.clone();
        let status = g.cols.remove("supply_fan_status").unwrap();
        g.cols.insert("supply_fan_speed".into(), status.iter().map(|s| s * 60.0).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).judged, 20);
        g.cols.remove("supply_fan_speed");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Fault, 40));
        assert!(r.caveats[0].contains("can read as starved"), "{:?}", r.caveats);
        // an occupancy point gates too
        g.cols.insert("occupancy".into(), (0..n).map(|i| (i % 2) as f64).collect());
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 20));
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
        // fan never on: nothing judged, not a pass
        f.cols.insert("supply_fan_status".into(), vec![0.0; n]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        assert!(r.summary.contains("while the fan runs"), "{}", r.summary);
    }

    #[test]
    fn a_damper_on_its_way_after_a_setpoint_jump_is_settling() {
        // off overnight (setpoint 0), then 500 cfm from 06:00; the first sample reads 200 cfm
        let n = 24;
        let sp: Vec<f64> = (0..n).map(|h| if h >= 6 { 500.0 } else { 0.0 }).collect();
        let flow: Vec<f64> = (0..n).map(|h| if h == 6 { 200.0 } else { sp[h] }).collect();
        let f = Frame::from_rows(&every(MONDAY, H, n), &[("airflow", flow.clone()), ("airflow_sp", sp.clone())]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.flagged.len(), r.metrics["settling_samples"]), (17, 0, 1.0));
        // still short an hour later: judged
        let mut late = flow.clone();
        late[7] = 200.0;
        let f = Frame::from_rows(&every(MONDAY, H, n), &[("airflow", late), ("airflow_sp", sp.clone())]);
        assert_eq!(run(&RULE, &f, &Params::default()).flagged, vec![7]);
        // overshooting past the new setpoint is not settling
        let mut over = flow;
        over[6] = 900.0;
        let f = Frame::from_rows(&every(MONDAY, H, n), &[("airflow", over), ("airflow_sp", sp)]);
        assert_eq!(run(&RULE, &f, &Params::default()).flagged, vec![6]);
    }

    #[test]
    fn a_box_short_of_a_maximum_its_zone_does_not_need_is_not_counted() {
        // setpoint 300 cfm (its minimum) most hours, 1000 cfm for a 10-hour peak; the box gets
        // 700 (the first peak hour is settling: 9 of 39 judged samples short)
        let n = 40;
        let peak = |i: usize| (10..20).contains(&i);
        let short = round2(100.0 * 9.0 / 39.0);
        let sp: Vec<f64> = (0..n).map(|i| if peak(i) { 1000.0 } else { 300.0 }).collect();
        let flow: Vec<f64> = (0..n).map(|i| if peak(i) { 700.0 } else { 300.0 }).collect();
        let frame = |zone: f64, flow: Vec<f64>| {
            Frame::from_rows(
                &every(MONDAY, H, n),
                &[
                    ("airflow", flow),
                    ("airflow_sp", sp.clone()),
                    ("supply_fan_status", vec![1.0; n]),
                    ("space_temp", vec![zone; n]),
                    ("cool_sp", vec![74.0; n]),
                ],
            )
        };
        // the zone holds (exactly at the 1.5 °F margin): not counted, and said so
        let r = run(&RULE, &frame(75.5, flow.clone()), &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["short_zone_holds_pct"]), (Severity::Ok, 39, short));
        assert!(r.caveats.iter().any(|c| c.contains("not counted")), "{:?}", r.caveats);
        // the zone warm: counted
        let r = run(&RULE, &frame(75.6, flow.clone()), &Params::default());
        assert_eq!((r.severity, r.metrics["undershoot_pct"]), (Severity::Warn, short));
        // below its minimum, however comfortable the zone: counted
        let blocked: Vec<f64> = (0..n).map(|_| 120.0).collect();
        let r = run(&RULE, &frame(73.0, blocked.clone()), &Params::default());
        assert_eq!((r.severity, r.metrics["undershoot_pct"]), (Severity::Fault, 100.0));
        // a trended minimum setpoint is the box's minimum
        let mut f = frame(73.0, (0..n).map(|i| if peak(i) { 700.0 } else { 300.0 }).collect());
        f.cols.insert("airflow_min_sp".into(), vec![800.0; n]);
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["undershoot_pct"], short);
        // no zone reading: as the reference judges
        let mut f = frame(73.0, flow);
        f.cols.remove("space_temp");
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["undershoot_pct"], short);
    }

    #[test]
    fn a_wide_open_box_a_little_short_is_the_critical_zone() {
        // the zone warm throughout, the setpoint 1000 cfm, the damper wide open
        let n = 20;
        let frame = |flow: f64, damper: f64| {
            Frame::from_rows(
                &every(MONDAY, H, n),
                &[
                    ("airflow", vec![flow; n]),
                    ("airflow_sp", vec![1000.0; n]),
                    ("space_temp", vec![77.0; n]),
                    ("cool_sp", vec![74.0; n]),
                    ("damper", vec![damper; n]),
                ],
            )
        };
        // at 70 % of setpoint with the damper at 95 %: not counted, and said so
        let r = run(&RULE, &frame(700.0, 95.0), &Params::default());
        assert_eq!((r.severity, r.metrics["critical_zone_pct"]), (Severity::Ok, 100.0));
        assert!(r.caveats.iter().any(|c| c.contains("critical zone")), "{:?}", r.caveats);
        // a 0-1 damper reads the same
        assert_eq!(run(&RULE, &frame(700.0, 0.95), &Params::default()).severity, Severity::Ok);
        // just below 70 %, or the damper just short of wide open: starved, counted
        assert_eq!(run(&RULE, &frame(699.0, 95.0), &Params::default()).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(700.0, 94.0), &Params::default()).severity, Severity::Fault);
        // over its setpoint wide open is still a miss
        assert_eq!(run(&RULE, &frame(1300.0, 100.0), &Params::default()).metrics["overshoot_pct"], 100.0);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 5-minute samples on setpoint for two hours, then four hourly samples starved: each
        // hourly sample stands for 1.5 typical steps (7.5 minutes), not an hour
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + i * 5 * MINUTE).collect();
        ts.extend((0..4).map(|i| MONDAY + 2 * H + i * H));
        let n = ts.len();
        let flow: Vec<f64> = (0..n).map(|i| if i >= 24 { 100.0 } else { 500.0 }).collect();
        let f = Frame::from_rows(&ts, &[("airflow", flow), ("airflow_sp", vec![500.0; n])]);
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[24..].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["off_setpoint_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        assert_eq!(r.severity, severity_of(expect, 10.0, 25.0));
        // a missing day is not judged time: the hour before it counts 1.5 h, the day nothing
        let mut ts = every(MONDAY, H, 72);
        ts.retain(|t| (t - MONDAY) / (24 * H) != 1);
        let n = ts.len();
        let f = Frame::from_rows(&ts, &[("airflow", vec![500.0; n]), ("airflow_sp", vec![500.0; n])]);
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["judged_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [
            box_frame(30, |i| if i % 3 == 0 { 100.0 } else { 500.0 }),
            box_frame(30, |_| 500.0),
            box_frame(30, |i| 50.0 * i as f64),
        ] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("airflow", vec![500.0; 3])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["airflow_sp".into()] });
        let g = Frame::from_rows(&ts, &[("airflow", vec![f64::NAN; 3]), ("airflow_sp", vec![500.0; 3])]);
        assert_eq!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { missing: vec!["airflow".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY], &[("airflow", vec![100.0]), ("airflow_sp", vec![500.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).flagged, vec![0]);
        let apart = Frame::from_rows(
            &ts,
            &[("airflow", vec![500.0, f64::NAN, f64::NAN]), ("airflow_sp", vec![f64::NAN, 500.0, 500.0])],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).judged, 0);
    }
}
