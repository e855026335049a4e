//! `overcooling_min_flow`: a terminal box whose minimum airflow overcools its zone. When the
//! zone needs no cooling, the box still delivers its minimum of cold primary air; a minimum set
//! too high (or a supply air held too cold for it) pushes the zone down into heating, and the
//! reheat coil then warms air the box should not have moved. This is the root cause behind much
//! of a reheat penalty (PNNL's re-tuning guide, chapter 7).
//!
//! Judged on the occupied samples (the occupancy point, else the schedule; less warm-up and
//! cool-down, and without a warm-up point the first [`RECOVERY_H`] hours of each occupied
//! period) with the zone temperature, its cooling setpoint, the airflow and the box's
//! minimum ([`crate::terminal::min_flow`]). A sample is overcooled at the minimum when the zone
//! is at or below its cooling setpoint (satisfied), the airflow is within [`FLOW_TOL`] of a
//! minimum above zero, and the box is confirmed to be held there: its active airflow setpoint
//! (`airflow_sp`, when trended beside `airflow_min_sp`) asks for no more than the minimum, else
//! its damper is at or below [`DAMPER_LOW_PCT`]. The share of judged time overcooled at the
//! minimum with the reheat valve open (its measured position when trended) is a warning from
//! 5 % and a fault from 15 % (fixed, as the reference's); without a reheat valve, the share
//! overcooled at the minimum is. A box with neither confirmation, or whose minimum had to be
//! inferred from an active `airflow_sp`, rates no worse than a warning.
//!
//! Beyond the reference: with the damper trended the reference confirms the minimum only by a
//! damper at or below 30 %, but a pressure-independent box holds its minimum airflow at whatever
//! damper position the duct static leaves it, and under a trim-and-respond static reset that is
//! often well over half open. Here the controller's own active setpoint confirms it first. The
//! reference also counts a box far below its minimum (starting up at the first sample of the
//! morning, or starved) as held at it; here the airflow must be within the tolerance on both
//! sides. And the reference judges the morning warm-up: a healthy zone coming out of its night
//! setback reheats at its minimum for an hour or two, which on the reference's own
//! synthetic-g36-vav-fleet is 9-15 % of occupied time on the boxes that need heat on cool
//! mornings, a warning or a fault once the damper no longer hides it; here those hours are
//! recovery (overcooling_severity's default window). On camber-synth's synthetic-g36-vav the
//! four `heating_cooling_overlap` boxes (a minimum of 75 % of design under 50 °F supply air,
//! their dampers mostly 80-95 % open) are faults here, reheating at their minimum on 95-99 % of
//! the judged time; the reference warns on them only from the few start-up samples whose
//! damper is still below 30 %.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, median, round2, schedule_params, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec,
    Params, Rule, RuleSpec, Severity,
};
use crate::terminal::{self, hours, MinBasis, ValveSignal, DIVERGE_SHARE, INFERRED_CAVEAT, REHEAT_OPEN_PCT};

/// An airflow within this share of the minimum (either side) is at the minimum.
pub const FLOW_TOL: f64 = 0.15;
/// A damper at or below this (%) cannot throttle the airflow further.
pub const DAMPER_LOW_PCT: f64 = 30.0;
/// Without a trended warm-up mode, the first hours of each occupied period are the zone's
/// recovery from its night setback, not judged (overcooling_severity's default recovery_hours).
pub const RECOVERY_H: f64 = 2.0;
/// The share of judged time (%) overcooled at the minimum (with reheat, when a valve is
/// trended) that is a warning ...
pub const WARN_PCT: f64 = 5.0;
/// ... and a fault.
pub const FAULT_PCT: f64 = 15.0;
/// A minimum at or below this share of the box's peak airflow is a ventilation minimum: reheating
/// at it in heating weather is the design sequence, so the finding is at most info.
pub const VENTILATION_MIN_FRACTION: f64 = 0.4;
/// Without a reheat valve, a zone within this of its heating setpoint (°F) needs heat.
const NEEDS_HEAT_F: f64 = 0.5;
/// A minimum this many times the box's scheduled minimum (`design_min_airflow`) is set above
/// its schedule ...
pub const ABOVE_SCHEDULE: f64 = 1.5;
/// ... and a warning once the box is held there, its zone satisfied, on this share (%) of the
/// judged time: cold air moved for nothing, reheated or not.
pub const ABOVE_SCHEDULE_WARN_PCT: f64 = 25.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "overcooling_min_flow",
        families: &["terminal"],
        inputs: Inputs {
            required: &["space_temp", "cool_sp"],
            optional: &[
                "airflow",
                "airflow_sp",
                "airflow_min_sp",
                "damper",
                "heat_sp",
                "heat_valve",
                "heat_valve_position",
                "warmup",
                "cooldown",
                "occupancy",
            ],
            gating: &["airflow+airflow_min_sp", "airflow+airflow_sp"],
            one_of: &[],
            needs_gating: true,
        },
        params: {
            let mut p = schedule_params().to_vec();
            p.push(ParamSpec::number(
                "design_min_airflow",
                f64::NAN,
                "cfm (unset: not known)",
                (0.0, 100_000.0),
                "unset: the box's designed minimum is unknown, and a minimum set well above it (a lobby box at 80 % where the schedule says 25 %) looks like a box designed for a dense zone",
                "Take each box's minimum from the VAV schedule of the drawings or the balancing report, per box (\"design_min_airflow\": {\"VAV-2-04\": 215}).",
            ));
            p
        },
        judged_basis: "occupied samples with the zone temperature, its cooling setpoint, the airflow and its minimum",
    }
}

/// How a sample's airflow is confirmed to be held at the minimum.
#[derive(Clone, Copy, PartialEq)]
enum Confirm {
    /// The active airflow setpoint asks for no more than the minimum.
    Controller,
    /// The damper is at or below [`DAMPER_LOW_PCT`].
    Damper,
    /// Neither is trended: the airflow alone.
    Unconfirmed,
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (zone, cool) = (frame.required("space_temp"), frame.required("cool_sp"));
    let occupied = terminal::occupied(spec, frame, params, &["warmup", "cooldown"]);
    // a zone coming out of its night setback reheats at its minimum to reach its heating
    // setpoint: warm-up, not the minimum overcooling it (a trended warm-up mode is already out)
    let recovering = if frame.col("warmup").is_some() {
        vec![false; frame.len()]
    } else {
        terminal::recovery(&frame.ts, &occupied, None, RECOVERY_H)
    };
    let (Some(flow), Some(min)) = (frame.col("airflow"), terminal::min_flow(frame, &occupied)) else {
        return Outcome::Skipped { missing: vec!["airflow and airflow_min_sp, or airflow and airflow_sp".into()] };
    };
    // the active setpoint, when airflow_sp is not the minimum itself
    let active = frame.col("airflow_sp").filter(|_| min.basis != MinBasis::SetpointAsMin);
    let damper = frame.col("damper").map(as_percent);
    let confirm = match (active, &damper) {
        (Some(_), _) => Confirm::Controller,
        (None, Some(_)) => Confirm::Damper,
        (None, None) => Confirm::Unconfirmed,
    };
    let valve = terminal::delivered_valve(frame);
    let w = frame.weights_hours();
    let judged: Vec<bool> = (0..frame.len())
        .map(|i| {
            occupied[i]
                && !recovering[i]
                && !zone[i].is_nan()
                && !cool[i].is_nan()
                && !flow[i].is_nan()
                && !min.at[i].is_nan()
        })
        .collect();
    let recovery_h = hours(&w, |i| recovering[i]);
    let judged_n = judged.iter().filter(|j| **j).count();
    let judged_h = hours(&w, |i| judged[i]);
    if judged_n == 0 || judged_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no occupied sample with the zone temperature, its cooling setpoint, the airflow and its minimum",
        )]);
    }
    // without a reheat valve to say the zone needs heat, a zone in its deadband is satisfied,
    // not overcooled: it must be down at its heating setpoint (when trended)
    let heat_sp = frame.col("heat_sp").filter(|_| valve.is_none());
    let satisfied = |i: usize| {
        judged[i] && zone[i] <= cool[i] && heat_sp.is_none_or(|h| h[i].is_nan() || zone[i] <= h[i] + NEEDS_HEAT_F)
    };
    let held = |i: usize| {
        let m = min.at[i];
        let at = m > 0.0 && flow[i] >= (1.0 - FLOW_TOL) * m && flow[i] <= (1.0 + FLOW_TOL) * m;
        at && match confirm {
            Confirm::Controller => active.is_some_and(|a| a[i] <= (1.0 + FLOW_TOL) * m),
            // a pressure-independent box holds its minimum at whatever damper position the duct
            // static leaves it; a damper at or below DAMPER_LOW_PCT is the reference's check, a
            // steady flow at the minimum is held too
            Confirm::Damper => damper.as_ref().is_some_and(|d| d[i] <= DAMPER_LOW_PCT) || at,
            Confirm::Unconfirmed => true,
        }
    };
    let overcool: Vec<u32> = (0..frame.len()).filter(|&i| satisfied(i) && held(i)).map(|i| i as u32).collect();
    let with_reheat: Vec<u32> = match valve {
        Some((v, _)) => overcool.iter().copied().filter(|&i| v[i as usize] > REHEAT_OPEN_PCT).collect(),
        None => Vec::new(),
    };
    let sum = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    let pct = |h: f64| 100.0 * h / judged_h;
    let (overcool_h, reheat_h) = (sum(&overcool), sum(&with_reheat));
    let satisfied_h = hours(&w, satisfied);
    let headline = if valve.is_some() { pct(reheat_h) } else { pct(overcool_h) };
    let mut severity = severity_of(headline, WARN_PCT, FAULT_PCT);

    let mut caveats = Vec::new();
    if frame.col("occupancy").is_none() {
        caveats.push(terminal::schedule_caveat(spec, params));
    }
    if confirm == Confirm::Unconfirmed {
        caveats.push(
            "neither an active airflow setpoint nor the damper is trended: the box is taken to be held at its minimum from its airflow alone, unconfirmed, so the rating stops at warn"
                .to_string(),
        );
        severity = severity.min(Severity::Warn);
    }
    if min.basis == MinBasis::Inferred {
        caveats.push(INFERRED_CAVEAT.to_string());
        severity = severity.min(Severity::Warn);
    }
    if recovery_h > 0.0 {
        caveats.push(format!(
            "{recovery_h:.1} h in the first {RECOVERY_H} h of each occupied period (no warm-up point is trended) were taken as recovery from the night setback and not judged"
        ));
    }
    if valve.is_none() {
        caveats.push(
            "no reheat valve is trended: rated on the time overcooled at the minimum, reheating or not".to_string(),
        );
    }
    let divergence = terminal::valve_divergence(frame, &occupied);
    if let Some(s) = divergence.filter(|s| *s >= DIVERGE_SHARE) {
        caveats.push(terminal::divergence_caveat(s));
    }

    let peak = (0..frame.len()).filter(|&i| judged[i]).map(|i| flow[i]).fold(f64::NAN, crate::engine::max_of);
    let mut fractions: Vec<f64> =
        (0..frame.len()).filter(|&i| judged[i] && peak > 0.0).map(|i| min.at[i] / peak).collect();
    let min_fraction = median(&mut fractions);
    if min_fraction <= VENTILATION_MIN_FRACTION && severity > Severity::Info {
        caveats.push(format!(
            "the minimum is about {:.0}% of the box's peak airflow, a ventilation minimum: reheating at it when the zone needs heat is the design sequence, not a minimum set too high (a supply air colder than the zones need is reheat_penalty's and the supply-air reset's lead)",
            100.0 * min_fraction
        ));
        severity = Severity::Info;
    }
    // the minimum against the box's schedule, when the schedule is given
    let mut schedule_text = String::new();
    let design_min = params.number(spec, "design_min_airflow");
    let mut above_schedule = f64::NAN;
    if design_min > 0.0 {
        let mut mins: Vec<f64> =
            (0..frame.len()).filter(|&i| judged[i] && min.at[i] > 0.0).map(|i| min.at[i]).collect();
        let held_min = median(&mut mins);
        above_schedule = held_min / design_min;
        if above_schedule >= ABOVE_SCHEDULE {
            schedule_text =
                format!("; the minimum ({held_min:.0}) is {above_schedule:.1} times the scheduled {design_min:.0}");
            if pct(overcool_h) >= ABOVE_SCHEDULE_WARN_PCT && severity < Severity::Warn {
                severity = Severity::Warn;
                caveats.push(format!(
                    "rated on the minimum set above its schedule: the box held there with its zone satisfied on {:.0}% of the judged time moves cold air the zone does not need, reheated or not",
                    pct(overcool_h)
                ));
            }
        }
    }
    let mut metrics = BTreeMap::new();
    if !above_schedule.is_nan() {
        metrics.insert("design_min_airflow".into(), design_min);
        metrics.insert("min_over_schedule".into(), round2(above_schedule));
    }
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("recovery_hours".into(), round2(recovery_h));
    metrics.insert("satisfied_pct".into(), round2(pct(satisfied_h)));
    metrics.insert("overcool_at_min_pct".into(), round2(pct(overcool_h)));
    metrics.insert("overcool_at_min_hours".into(), round2(overcool_h));
    if valve.is_some() {
        metrics.insert("overcool_with_reheat_pct".into(), round2(pct(reheat_h)));
        metrics.insert("overcool_with_reheat_hours".into(), round2(reheat_h));
    }
    if !min_fraction.is_nan() {
        metrics.insert("min_flow_fraction_of_peak".into(), (min_fraction * 1000.0).round() / 1000.0);
    }
    if let Some(s) = divergence {
        metrics.insert("valve_divergence_share".into(), (s * 1000.0).round() / 1000.0);
    }
    let reheat_text = match valve {
        Some((_, signal)) => format!(
            ", {:.1}% ({reheat_h:.1} h) with the reheat valve{} open",
            pct(reheat_h),
            if signal == ValveSignal::Position { " (measured position)" } else { "" }
        ),
        None => String::new(),
    };
    let peak_text = if min_fraction.is_nan() {
        String::new()
    } else {
        format!(
            "; the minimum ({}) is about {:.0}% of the box's peak airflow",
            min.basis.describe(),
            100.0 * min_fraction
        )
    };
    let summary = format!(
        "overcooled at its minimum airflow (zone at or below its cooling setpoint, airflow held at the minimum) on {:.1}% of {judged_h:.1} occupied h ({overcool_h:.1} h){reheat_text}{peak_text}{schedule_text}",
        pct(overcool_h),
    );
    let on_schedule = above_schedule >= ABOVE_SCHEDULE && pct(overcool_h) >= ABOVE_SCHEDULE_WARN_PCT;
    let flagged = if valve.is_some() && !on_schedule { with_reheat.clone() } else { overcool.clone() };
    let condition = |name: &str, idx: Vec<u32>| Condition {
        name: name.into(),
        flagged_hours: sum(&idx),
        flagged: idx,
        judged: judged_n,
        judged_hours: judged_h,
    };
    let mut conditions = vec![condition("overcooled_at_minimum", overcool)];
    if valve.is_some() {
        conditions.push(condition("with_reheat", with_reheat));
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged_n)
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// `n` occupied hourly samples of a box with a 300 cfm minimum its controller asks for, the
    /// cooling setpoint at 74 °F, the zone at `zone(i)`, the airflow at `flow(i)` and the
    /// reheat valve at `valve(i)`.
    fn box_frame(
        n: usize,
        zone: impl Fn(usize) -> f64,
        flow: impl Fn(usize) -> f64,
        valve: impl Fn(usize) -> f64,
    ) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("space_temp", (0..n).map(zone).collect()),
                ("cool_sp", vec![74.0; n]),
                ("airflow", (0..n).map(flow).collect()),
                ("airflow_min_sp", vec![300.0; n]),
                ("airflow_sp", vec![300.0; n]),
                ("heat_valve", (0..n).map(valve).collect()),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// 40 samples at the minimum with the zone satisfied, `k` of them reheating.
    fn reheating(k: usize) -> Frame {
        box_frame(40, |_| 71.0, |_| 300.0, |i| if i < k { 30.0 } else { 0.0 })
    }

    #[test]
    fn a_box_whose_zone_needs_its_minimum_is_ok() {
        // at its minimum and satisfied without reheat, or reheating with the zone warm
        let r = run(&RULE, &reheating(0), &Params::default());
        assert_eq!(
            (r.severity, r.metrics["overcool_at_min_pct"], r.metrics["overcool_with_reheat_pct"]),
            (Severity::Ok, 100.0, 0.0)
        );
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
        let r = run(&RULE, &box_frame(40, |_| 74.5, |_| 300.0, |_| 30.0), &Params::default());
        assert_eq!((r.severity, r.metrics["satisfied_pct"]), (Severity::Ok, 0.0));
        // cooling above its minimum
        assert_eq!(run(&RULE, &box_frame(40, |_| 73.0, |_| 800.0, |_| 30.0), &Params::default()).flagged.len(), 0);
    }

    #[test]
    fn reheat_at_a_minimum_that_overcools_is_a_fault() {
        let r = run(&RULE, &reheating(40), &Params::default());
        assert_eq!((r.severity, r.metrics["overcool_with_reheat_pct"], r.flagged.len()), (Severity::Fault, 100.0, 40));
        assert_eq!(r.metrics["min_flow_fraction_of_peak"], 1.0);
        assert!(r.summary.contains("100.0% (40.0 h) with the reheat valve open"), "{}", r.summary);
        assert_eq!((r.conditions[0].flagged.len(), r.conditions[1].flagged.len()), (40, 40));
    }

    #[test]
    fn the_thresholds_and_shares_at_their_boundaries() {
        let sev = |k: usize| run(&RULE, &reheating(k), &Params::default()).severity;
        // of 40 samples: 2 is 5 % (warn), 6 is 15 % (fault)
        assert_eq!((sev(1), sev(2), sev(5), sev(6)), (Severity::Ok, Severity::Warn, Severity::Warn, Severity::Fault));
        let flagged = |zone: f64, flow: f64, valve: f64| {
            run(&RULE, &box_frame(10, |_| zone, |_| flow, |_| valve), &Params::default()).flagged.len()
        };
        // within 15 % of the minimum either side is at it
        assert_eq!((flagged(71.0, 345.0, 30.0), flagged(71.0, 346.0, 30.0)), (10, 0));
        assert_eq!((flagged(71.0, 255.0, 30.0), flagged(71.0, 254.0, 30.0)), (10, 0));
        // at the cooling setpoint is satisfied; a valve at 5 % is shut
        assert_eq!((flagged(74.0, 300.0, 30.0), flagged(74.1, 300.0, 30.0)), (10, 0));
        assert_eq!((flagged(71.0, 300.0, 5.0), flagged(71.0, 300.0, 5.1)), (0, 10));
        // the controller asking for more than its minimum is not holding it
        let mut f = reheating(40);
        f.cols.insert("airflow_sp".into(), vec![346.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // without the active setpoint, the damper confirms: at or below 30 %
        f.cols.remove("airflow_sp");
        f.cols.insert("damper".into(), vec![30.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
        // a damper over 30 % (a 0-1 damper at 31 %) with the flow steady at the minimum is held
        // there too: a pressure-independent box holds its minimum at any damper position
        f.cols.insert("damper".into(), vec![0.31; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault, "a 0-1 damper at 31 %");
        f.cols.insert("airflow".into(), vec![600.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok, "twice the minimum is not held at it");
        f.cols.insert("airflow".into(), vec![300.0; 40]);
        // a minimum of zero delivers no air to overcool with
        f.cols.insert("airflow_min_sp".into(), vec![0.0; 40]);
        f.cols.insert("airflow".into(), vec![0.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).flagged.len(), 0);
    }

    #[test]
    fn a_zone_resting_in_its_deadband_is_not_overcooled() {
        // no reheat valve: at 72 °F between a 70 °F heating and a 74 °F cooling setpoint the zone
        // is satisfied; at 70.3 °F it needs heat
        let mut f = reheating(40);
        f.cols.remove("heat_valve");
        f.cols.insert("heat_sp".into(), vec![70.0; 40]);
        f.cols.insert("space_temp".into(), vec![72.0; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        f.cols.insert("space_temp".into(), vec![70.3; 40]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn without_a_confirmation_or_with_an_inferred_minimum_it_rates_no_worse_than_a_warning() {
        let mut f = reheating(40);
        f.cols.remove("airflow_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.caveats[0].contains("unconfirmed"), "{:?}", r.caveats);
        // airflow_sp swinging 300-1000 cfm with the airflow following it: its 5th percentile
        let n = 40;
        let sp: Vec<f64> = (0..n).map(|i| if i % 4 == 0 { 300.0 } else { 300.0 + 100.0 * (i % 8) as f64 }).collect();
        let g = Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("space_temp", vec![71.0; n]),
                ("cool_sp", vec![74.0; n]),
                ("airflow", sp.clone()),
                ("airflow_sp", sp),
                ("heat_valve", vec![30.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &g, &Params::default());
        // a minimum of 30 % of the peak is a ventilation minimum: reheating at it is the design
        assert_eq!((r.severity, r.metrics["overcool_with_reheat_pct"]), (Severity::Info, 25.0));
        assert!(r.caveats.iter().any(|c| c.contains("active airflow setpoint")), "{:?}", r.caveats);
        assert!(r.caveats.iter().any(|c| c.contains("a ventilation minimum")), "{:?}", r.caveats);
        // a flat airflow_sp is the minimum itself and confirms nothing: unconfirmed
        let mut h = reheating(40);
        h.cols.remove("airflow_min_sp");
        assert_eq!(run(&RULE, &h, &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn without_a_valve_the_time_overcooled_at_the_minimum_rates() {
        let mut f = reheating(0);
        f.cols.remove("heat_valve");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(!r.metrics.contains_key("overcool_with_reheat_pct"));
        assert!(r.caveats.iter().any(|c| c.contains("no reheat valve")), "{:?}", r.caveats);
    }

    #[test]
    fn the_measured_position_says_whether_heat_went_in() {
        // commanded full open, the position shut: no reheat, and the valve named
        let mut f = reheating(40);
        f.cols.insert("heat_valve".into(), vec![100.0; 40]);
        f.cols.insert("heat_valve_position".into(), vec![0.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["valve_divergence_share"]), (Severity::Ok, 1.0));
        assert!(r.caveats.iter().any(|c| c.contains("stuck or failed valve")), "{:?}", r.caveats);
        f.cols.insert("heat_valve_position".into(), vec![60.0; 40]);
        let r = run(&RULE, &f, &Params::default());
        assert!(r.summary.contains("(measured position)"), "{}", r.summary);
    }

    #[test]
    fn unoccupied_and_recovering_samples_are_not_judged() {
        // unoccupied for the first 20 hours: then the first two occupied hours are recovery
        let mut f = reheating(40);
        f.cols.insert("occupancy".into(), (0..40).map(|i| if i < 20 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["recovery_hours"]), (18, 2.0));
        assert!(r.caveats.iter().any(|c| c.contains("recovery from the night setback")), "{:?}", r.caveats);
        // a trended warm-up mode replaces the fixed recovery
        f.cols.insert("warmup".into(), (0..40).map(|i| if i == 20 { 1.0 } else { 0.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.metrics["recovery_hours"]), (19, 0.0));
        // no occupancy point: the weekday schedule, said so
        let mut g = reheating(40);
        g.cols.remove("occupancy");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!(r.judged, 20 - 4);
        assert!(r.caveats[0].contains("no occupancy point"), "{:?}", r.caveats);
        // never occupied: not judged, not a pass
        g.cols.insert("occupancy".into(), vec![0.0; 40]);
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 10-minute samples without reheat for four hours, then four hourly samples reheating
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..4).map(|i| MONDAY + 4 * H + i * H));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("space_temp", vec![71.0; n]),
                ("cool_sp", vec![74.0; n]),
                ("airflow", vec![300.0; n]),
                ("airflow_min_sp", vec![300.0; n]),
                ("airflow_sp", vec![300.0; n]),
                ("heat_valve", (0..n).map(|i| if i >= 24 { 30.0 } else { 0.0 }).collect()),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        let w = f.weights_hours();
        let expect = 100.0 * w[24..].iter().sum::<f64>() / w.iter().sum::<f64>();
        assert!((r.metrics["overcool_with_reheat_pct"] - round2(expect)).abs() < 1e-9, "{:?}", r.metrics);
        assert_eq!(r.severity, severity_of(expect, WARN_PCT, FAULT_PCT));
        // a missing day is not judged time: the hour before it counts 1.5 h, the day nothing
        let mut g = box_frame(72, |_| 71.0, |_| 300.0, |_| 30.0);
        let keep: Vec<usize> = (0..72).filter(|i| i / 24 != 1).collect();
        g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["judged_hours"], 48.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [
            reheating(5),
            reheating(40),
            box_frame(30, |i| 70.0 + 0.2 * i as f64, |i| 280.0 + 5.0 * i as f64, |i| (i % 7) as f64 * 10.0),
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
        let skip = "airflow and airflow_min_sp, or airflow and airflow_sp";
        let f = Frame::from_rows(
            &ts,
            &[("space_temp", vec![71.0; 3]), ("cool_sp", vec![74.0; 3]), ("airflow", vec![300.0; 3])],
        );
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec![skip.into()] });
        let g = Frame::from_rows(
            &ts,
            &[("space_temp", vec![71.0; 3]), ("cool_sp", vec![74.0; 3]), ("airflow_min_sp", vec![300.0; 3])],
        );
        assert_eq!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { missing: vec![skip.into()] });
        let h = Frame::from_rows(
            &ts,
            &[("space_temp", vec![71.0; 3]), ("airflow", vec![300.0; 3]), ("airflow_min_sp", vec![300.0; 3])],
        );
        assert_eq!(outcome(&RULE, &h, &Params::default()), Outcome::Skipped { missing: vec!["cool_sp".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = box_frame(1, |_| 71.0, |_| 300.0, |_| 30.0);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Fault);
        let apart = Frame::from_rows(
            &ts,
            &[
                ("space_temp", vec![71.0, f64::NAN, f64::NAN]),
                ("cool_sp", vec![f64::NAN, 74.0, 74.0]),
                ("airflow", vec![300.0; 3]),
                ("airflow_min_sp", vec![300.0; 3]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn a_minimum_set_well_above_its_schedule_warns_without_reheat() {
        // held at its 300 cfm minimum with the zone a degree under its cooling setpoint, never
        // reheating: on its own, nothing to say
        let f = box_frame(40, |_| 73.0, |_| 300.0, |_| 0.0);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // the schedule says 100 cfm: the minimum is three times it
        let r = run(&RULE, &f, &numbers(&[("design_min_airflow", 100.0)]));
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert_eq!(r.metrics["min_over_schedule"], 3.0);
        assert!(r.summary.contains("3.0 times the scheduled 100"), "{}", r.summary);
        assert_eq!(r.flagged.len(), 40, "the hours held at the minimum are the evidence");
        // at 1.2 times its schedule (a balancing tolerance, a rounded schedule) it is not
        let r = run(&RULE, &f, &numbers(&[("design_min_airflow", 250.0)]));
        assert_eq!((r.severity, r.metrics["min_over_schedule"]), (Severity::Ok, 1.2));
        // far above schedule, but the zone is warm and the box modulates above it: nothing
        let busy = box_frame(40, |_| 75.0, |_| 600.0, |_| 0.0);
        assert_eq!(run(&RULE, &busy, &numbers(&[("design_min_airflow", 100.0)])).severity, Severity::Ok);
    }
}
