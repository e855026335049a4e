//! `control_hunting`: a modulating output (a valve, a damper, a fan speed) that keeps reversing
//! direction instead of settling. Counted as direction reversals per hour beyond a deadband, per
//! signal, over observed running time only: a step longer than `gap_factor` typical intervals is
//! a gap, not calm time, and fan-off time is not control time. A trend too coarse to show the
//! warning rate cannot tell hunting from stability, so that signal is declined, not passed.
//!
//! Unlike the reference, a fan speed or a box damper that answers a static-pressure setpoint
//! (the air handler's own `duct_static_sp`, or a box's parent's, which the run attaches as
//! [`crate::engine::PARENT_STATIC_SP`] from the topology) is not charged with the setpoint's own
//! moves. Guideline 36's trim and respond holds the pressure in a deliberate limit cycle (trim
//! every 2 minutes, respond when the critical box's damper passes 95 %), and the fan and the
//! boxes follow it: on a healthy system at 1-minute resolution the boxes reverse 7-8 times an
//! hour and the fan 11. A reversal within `reset_follow_min` of a reversal of the setpoint is
//! the reset's, and that time is not judged; the rate is of the rest. A signal whose setpoint
//! reverses through nearly all of its running time is declined: its own tuning cannot be told
//! apart from the reset's cycle.

use std::collections::BTreeMap;

use crate::engine::{
    on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity,
};

/// The modulating signals the rule reads, each on its own.
const SIGNALS: [&str; 6] =
    ["cool_valve", "heat_valve", "heat_valve_position", "oa_damper", "damper", "supply_fan_speed"];

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "control_hunting",
        families: &["air_handler", "terminal", "fan_coil", "hw_plant", "chw_plant"],
        inputs: Inputs {
            required: &[],
            optional: &["supply_fan_status", "airflow", "duct_static_sp", crate::engine::PARENT_STATIC_SP],
            gating: &[],
            one_of: &[&SIGNALS],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "warn_per_hr",
                default: ParamValue::Number(6.0),
                unit: "per hour (direction reversals)",
                range: Some((2.0, 20.0)),
                choices: &[],
                basis: "a settled loop reverses a few times an hour at most; several an hour for hours on end is oscillation",
                calibrate: "Count reversals on a loop known to be well tuned and set this above its rate.",
            },
            ParamSpec {
                name: "fault_per_hr",
                default: ParamValue::Number(12.0),
                unit: "per hour (direction reversals)",
                range: Some((4.0, 40.0)),
                choices: &[],
                basis: "a reversal every five minutes wears actuators and upsets the controlled variable",
                calibrate: "Keep it at or above warn_per_hr; a trend too coarse to show it caps the severity at warn.",
            },
            ParamSpec {
                name: "deadband",
                default: ParamValue::Number(5.0),
                unit: "% of stroke",
                range: Some((1.0, 20.0)),
                choices: &[],
                basis: "moves smaller than this are noise or fine trim, not a change of direction",
                calibrate: "Set it above the jitter a steady actuator shows in its trend.",
            },
            ParamSpec {
                name: "gap_factor",
                default: ParamValue::Number(3.0),
                unit: "- (multiple of the median sample interval)",
                range: Some((1.5, 10.0)),
                choices: &[],
                basis: "a step much longer than the logging interval is missing data, not a quiet loop",
                calibrate: "Raise it for trends logged on change of value, whose steps vary widely.",
            },
            ParamSpec {
                name: "resolution_margin",
                default: ParamValue::Number(1.25),
                unit: "- (multiple of a threshold)",
                range: Some((1.0, 2.0)),
                choices: &[],
                basis: "a trend sampled every dt minutes shows at most 60/dt reversals an hour, and fewer in practice: a threshold needs headroom below that ceiling",
                calibrate: "Leave it unless a trend near the limit is known to resolve its oscillation.",
            },
            ParamSpec {
                name: "reset_follow_min",
                default: ParamValue::Number(6.0),
                unit: "minutes",
                range: Some((1.0, 30.0)),
                choices: &[],
                basis: "a fan or a box damper answers a change of its static-pressure setpoint within a few trim-and-respond intervals (2 minutes each); a reversal that soon after the setpoint reversed is the reset's",
                calibrate: "Set it to the pressure loop's settling time plus the reset's interval; only signals that answer a static-pressure setpoint (the fan speed, a box damper) use it.",
            },
            ParamSpec::flag(
                "fan_gate",
                true,
                "with the fan off the loop is not controlling",
                "Turn it off only for equipment whose loop runs with the fan stopped.",
            ),
        ],
        judged_basis: "fan-on steps within contiguous runs",
    }
}

/// A signal whose setpoint's reversal windows cover this share (%) of its running time or more
/// is declined: too little of its time is its own.
const RESET_DECLINE_PCT: f64 = 90.0;

/// Signals that answer a static-pressure setpoint, and the setpoints they answer (their own
/// frame's first, then the parent's).
const PRESSURE_FOLLOWERS: [&str; 2] = ["damper", "supply_fan_speed"];
const PRESSURE_SETPOINTS: [&str; 2] = ["duct_static_sp", crate::engine::PARENT_STATIC_SP];

/// The samples within `window` ns after a reversal of the setpoint `sp` (a change against the
/// direction of its last change; a flat stretch keeps the direction). `None` when it never
/// reverses.
fn after_setpoint_reversals(ts: &[i64], sp: &[f64], window: i64) -> Option<Vec<bool>> {
    let known: Vec<usize> = crate::engine::rows_where(sp.len(), |i| sp[i].is_finite());
    let (lo, hi) = known.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &i| {
        (crate::engine::min_of(a, sp[i]), crate::engine::max_of(b, sp[i]))
    });
    // a setpoint's own rounding is not a move
    let eps = (1e-3 * (hi - lo)).max(1e-9);
    let mut times = Vec::new();
    let mut dir = 0.0f64;
    for w in known.windows(2) {
        let d = sp[w[1]] - sp[w[0]];
        if d.abs() <= eps {
            continue;
        }
        if dir != 0.0 && d.signum() != dir {
            times.push(ts[w[1]]);
        }
        dir = d.signum();
    }
    if times.is_empty() {
        return None;
    }
    let mut k = 0;
    Some(
        ts.iter()
            .map(|&t| {
                while k + 1 < times.len() && times[k + 1] <= t {
                    k += 1;
                }
                times[k] <= t && t - times[k] < window
            })
            .collect(),
    )
}

/// What one signal showed.
struct SignalRate {
    role: &'static str,
    reversals: usize,
    /// Reversals within the reset window (a setpoint's), not counted.
    following: usize,
    /// Running hours judged (outside the reset windows), and inside them.
    hours: f64,
    reset_hours: f64,
    /// The most reversals per hour the trend can show.
    ceiling: f64,
    flagged: Vec<u32>,
    judged: usize,
}

/// The settings of one signal's pass: the rule's parameters and the reset windows.
#[derive(Clone, Copy)]
struct Pass<'a> {
    deadband: f64,
    gap_factor: f64,
    reset: Option<&'a [bool]>,
}

/// One signal's reversals. A column without gaps (a logged grid, the usual case) is walked as it
/// stands; one with gaps through the list of its samples. Both walks are the same code over
/// `pos`, the row of the k-th sample: a walk through a list of indices costs a load per sample
/// and, in the sandbox, keeps less in registers.
fn rate_of(role: &'static str, frame: &Frame, col: &[f64], running: &[bool], pass: Pass) -> Option<SignalRate> {
    if crate::engine::count_where(col, |v| v.is_nan()) == 0 {
        if col.len() < 3 {
            return None;
        }
        // a logged grid's step is read without a list of steps
        let dt = crate::engine::even_step(&frame.ts).unwrap_or_else(|| median_step(&frame.ts, col.len(), |k| k));
        let scale = fraction_scale(col.iter().copied());
        let rows = frame.ts.iter().zip(running).zip(col).enumerate().map(|(b, ((&t, &r), &v))| (b, t, r, v));
        rate_over(role, pass, (dt, scale), rows)
    } else {
        let idx: Vec<usize> = crate::engine::rows_where(frame.len(), |i| !col[i].is_nan());
        if idx.len() < 3 {
            return None;
        }
        let dt = median_step(&frame.ts, idx.len(), |k| idx[k]);
        let scale = fraction_scale(idx.iter().map(|&b| col[b]));
        rate_over(role, pass, (dt, scale), idx.iter().map(|&b| (b, frame.ts[b], running[b], col[b])))
    }
}

/// The median step between the `m` samples at rows `pos(0..m)`: a selection, not a sort.
fn median_step(ts: &[i64], m: usize, pos: impl Fn(usize) -> usize) -> i64 {
    let mut steps: Vec<i64> = (1..m).map(|k| ts[pos(k)] - ts[pos(k - 1)]).collect();
    let mid = steps.len() / 2;
    *steps.select_nth_unstable(mid).1
}

/// A 0-1 fraction is read as percent: 100 for samples all within ±1.5, else 1 (the hunting
/// walk's own test, looser than [`crate::economizer::percent_scale`]).
fn fraction_scale(mut samples: impl Iterator<Item = f64>) -> f64 {
    if samples.all(|v| v.abs() <= 1.5) {
        100.0
    } else {
        1.0
    }
}

/// One signal's reversals over its samples in order, each its row, time, whether the fan runs
/// and its value, typically `dt` ns apart. A function of its own: inlined into the rule's pass
/// over its signals, its loop kept every running value on the stack in the sandbox. Each
/// sample is read once and carried to the next step, and the hysteresis state is two scalars:
/// in the sandbox every load and branch of a year-long walk counts.
#[inline(never)]
fn rate_over(
    role: &'static str,
    pass: Pass,
    (dt, scale): (i64, f64),
    mut rows: impl Iterator<Item = (usize, i64, bool, f64)>,
) -> Option<SignalRate> {
    let Pass { deadband, gap_factor, reset } = pass;
    let dt = dt.max(1);
    let max_step = (dt as f64 * gap_factor) as i64;
    let (mut reversals, mut following, mut ns, mut reset_ns, mut judged) = (0usize, 0usize, 0i64, 0i64, 0usize);
    let mut flagged = Vec::new();
    // hysteresis: the direction of travel (-1, 0 still, 1; `NO_STATE` after a break) and the
    // extreme reached in it
    const NO_STATE: i8 = i8::MIN;
    let (mut dir, mut ext) = (NO_STATE, 0.0f64);
    let (_, mut t_prev, mut run_prev, first) = rows.next()?;
    let mut prev = first * scale;
    for (b, t, run, v) in rows {
        let v = v * scale;
        let step = t - t_prev;
        let (was_running, p) = (run_prev, prev);
        (t_prev, run_prev, prev) = (t, run, v);
        if step > max_step || !was_running || !run {
            dir = NO_STATE;
            continue;
        }
        let resetting = reset.is_some_and(|r| r[b]);
        if resetting {
            reset_ns += step;
        } else {
            ns += step;
            judged += 1;
        }
        if dir == NO_STATE {
            if (v - p).abs() > deadband {
                (dir, ext) = (if v > p { 1 } else { -1 }, v);
            } else {
                (dir, ext) = (0, p);
            }
            continue;
        }
        let moved = v - ext;
        if dir == 0 {
            if moved.abs() > deadband {
                (dir, ext) = (moved.signum() as i8, v);
            }
        } else if (dir > 0 && v > ext) || (dir < 0 && v < ext) {
            ext = v;
        } else if moved.abs() > deadband {
            if resetting {
                following += 1;
            } else {
                reversals += 1;
                flagged.push(b as u32);
            }
            (dir, ext) = (-dir, v);
        }
    }
    Some(SignalRate {
        role,
        reversals,
        following,
        hours: ns as f64 / 3.6e12,
        reset_hours: reset_ns as f64 / 3.6e12,
        ceiling: 3.6e12 / dt as f64,
        flagged,
        judged,
    })
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let present: Vec<&'static str> = SIGNALS.iter().copied().filter(|s| frame.col(s).is_some()).collect();
    let gate = params.flag(spec, "fan_gate").unwrap_or(true);
    let (status, speed, flow) = (frame.col("supply_fan_status"), frame.col("supply_fan_speed"), frame.col("airflow"));
    let ungated = gate && status.is_none() && speed.is_none() && flow.is_none();
    // whether the fan runs at each sample, worked out once for every signal's pass
    let running: Vec<bool> = match (gate, status, speed, flow) {
        (true, Some(s), _, _) => s.iter().map(|&x| on(x)).collect(),
        (true, None, Some(s), _) | (true, None, None, Some(s)) => s.iter().map(|&x| !x.is_nan() && x > 0.0).collect(),
        _ => vec![true; frame.len()],
    };
    let (warn, fault) = (params.number(spec, "warn_per_hr"), params.number(spec, "fault_per_hr"));
    let margin = params.number(spec, "resolution_margin");
    let window = (params.number(spec, "reset_follow_min") * 60e9) as i64;
    let rates: Vec<SignalRate> = present
        .iter()
        .filter_map(|s| {
            let reset = PRESSURE_FOLLOWERS
                .contains(s)
                .then(|| PRESSURE_SETPOINTS.iter().find_map(|sp| frame.col(sp)))
                .flatten()
                .and_then(|sp| after_setpoint_reversals(&frame.ts, sp, window));
            let pass = Pass {
                deadband: params.number(spec, "deadband"),
                gap_factor: params.number(spec, "gap_factor"),
                reset: reset.as_deref(),
            };
            rate_of(s, frame, frame.col(s).unwrap_or_default(), &running, pass)
        })
        .collect();
    let mut caveats = Vec::new();
    if ungated {
        caveats.push("no fan signal: every step was judged as running".into());
    }
    let mut metrics = BTreeMap::new();
    let mut conditions = Vec::new();
    let mut worst: Option<(Severity, f64, &'static str)> = None;
    let mut flagged = Vec::new();
    let mut judged = 0;
    for r in &rates {
        if r.ceiling < warn * margin {
            caveats.push(format!(
                "{} is logged too coarsely to show {warn} reversals an hour (at most {:.1}): not evaluated",
                r.role, r.ceiling
            ));
            continue;
        }
        if r.reset_hours > 0.0 {
            let share = 100.0 * r.reset_hours / (r.hours + r.reset_hours);
            metrics.insert(format!("{}_reversals_following_reset", r.role), r.following as f64);
            if share >= RESET_DECLINE_PCT {
                caveats.push(format!(
                    "{}: its static-pressure setpoint reversed (trim and respond) through {share:.0} % of the running time, so its own tuning cannot be told from the reset's cycle: not evaluated",
                    r.role
                ));
                continue;
            }
            caveats.push(format!(
                "{}: {} reversal(s) within {} min of a reversal of its static-pressure setpoint are the reset's, not counted; the rate is of the other {:.1} h",
                r.role,
                r.following,
                params.number(spec, "reset_follow_min"),
                r.hours
            ));
        }
        if r.hours <= 0.0 {
            continue;
        }
        let rate = r.reversals as f64 / r.hours;
        let mut sev = if rate >= fault {
            Severity::Fault
        } else if rate >= warn {
            Severity::Warn
        } else {
            Severity::Ok
        };
        if sev == Severity::Fault && r.ceiling < fault * margin {
            sev = Severity::Warn;
            caveats.push(format!("{}: the trend is too coarse to confirm the fault rate; capped at warn", r.role));
        }
        metrics.insert(format!("{}_reversals_per_hr", r.role), round2(rate));
        conditions.push(Condition {
            name: format!("hunting_{}", r.role),
            flagged: r.flagged.clone(),
            judged: r.judged,
            judged_hours: r.hours,
            // a reversal is an event, not a stretch of time
            flagged_hours: 0.0,
        });
        judged += r.judged;
        if worst.is_none_or(|(s, x, _)| (sev, rate) > (s, x)) {
            worst = Some((sev, rate, r.role));
            flagged = r.flagged.clone();
        }
    }
    let Some((severity, rate, role)) = worst else {
        let mut f = Finding::not_judged(spec, "no modulating signal could be evaluated");
        f.caveats.extend(caveats);
        return Outcome::Findings(vec![f]);
    };
    // each flagged sample is a reversal: an event, counted apart from hours
    metrics.insert(crate::engine::EVENTS_METRIC.into(), flagged.len() as f64);
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!("{role} reverses direction {rate:.1} times an hour over its running time"),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(flagged)
    .with_judged(judged)
    .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, MINUTE as MIN};

    /// `n` one-minute samples of a valve; `v(i)` its position.
    fn frame(n: usize, step_min: i64, v: impl Fn(usize) -> f64, fan: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * step_min * MIN).collect();
        Frame::from_rows(
            &ts,
            &[("cool_valve", (0..n).map(v).collect()), ("supply_fan_status", (0..n).map(fan).collect())],
        )
    }

    /// A square wave: `half` minutes up, `half` down.
    fn wave(half: usize) -> impl Fn(usize) -> f64 {
        move |i| if (i / half).is_multiple_of(2) { 30.0 } else { 60.0 }
    }

    #[test]
    fn a_settled_loop_is_ok() {
        let r = run(
            &RULE,
            &frame(600, 1, |i| 40.0 + (i as f64 / 600.0) * 20.0 + (i % 3) as f64, |_| 1.0),
            &Params::default(),
        );
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn a_hunting_valve_is_a_fault() {
        // reverses every 2 minutes: 30 an hour
        let r = run(&RULE, &frame(600, 1, wave(2), |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.metrics["cool_valve_reversals_per_hr"] > 25.0, "{:?}", r.metrics);
        assert!(!r.flagged.is_empty());
    }

    #[test]
    fn the_rate_boundary() {
        // every 9 minutes: about 6.6 an hour, a warning; every 12 minutes: about 4.9, ok
        assert_eq!(run(&RULE, &frame(1200, 1, wave(9), |_| 1.0), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &frame(1200, 1, wave(12), |_| 1.0), &Params::default()).severity, Severity::Ok);
        // a move of exactly the deadband is no reversal; just over it is
        let r = run(&RULE, &frame(600, 1, |i| if (i / 2) % 2 == 0 { 30.0 } else { 35.0 }, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        let r = run(&RULE, &frame(600, 1, |i| if (i / 2) % 2 == 0 { 30.0 } else { 35.1 }, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
    }

    #[test]
    fn a_coarse_trend_is_declined_not_passed() {
        // 15-minute samples can show at most 4 an hour: below the warning rate
        let r = run(&RULE, &frame(200, 15, wave(1), |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(r.caveats.iter().any(|c| c.contains("too coarsely")), "{:?}", r.caveats);
    }

    #[test]
    fn fan_off_time_and_gaps_are_not_control_time() {
        // hunting only while the fan is off: not counted
        let r = run(&RULE, &frame(600, 1, wave(2), |i| if i < 300 { 0.0 } else { 1.0 }), &Params::default());
        assert_eq!(r.judged, 299);
        // a long hole does not dilute the rate
        let mut ts: Vec<i64> = (0..300).map(|i| i * MIN).collect();
        ts.extend((10_000..10_300).map(|i| i * MIN));
        let v: Vec<f64> = (0..600).map(wave(2)).collect();
        let f = Frame::from_rows(&ts, &[("cool_valve", v), ("supply_fan_status", vec![1.0; 600])]);
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["cool_valve_reversals_per_hr"] > 25.0, "{:?}", r.metrics);
    }

    #[test]
    fn fractions_duplicates_and_irregular_samples() {
        // a 0-1 fraction signal hunting by 0.3 is 30 % of stroke
        let r = run(&RULE, &frame(600, 1, |i| wave(2)(i) / 100.0, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        let f =
            Frame::from_rows(&[2 * MIN, 0, MIN, MIN, 3 * MIN], &[("cool_valve", vec![30.0, 30.0, 60.0, 30.0, 30.0])]);
        assert_eq!(run(&RULE, &f, &Params::default()).judged, 3);
    }

    /// A box over `n` minutes: its damper, and its parent's static-pressure setpoint.
    fn boxed(n: usize, damper: impl Fn(usize) -> f64, sp: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * MIN).collect();
        Frame::from_rows(
            &ts,
            &[
                ("damper", (0..n).map(damper).collect()),
                (crate::engine::PARENT_STATIC_SP, (0..n).map(sp).collect()),
                ("airflow", vec![500.0; n]),
            ],
        )
    }

    /// A trim-and-respond sawtooth: trims 0.04 in. every 2 minutes for `period - 2` minutes,
    /// then responds by the sum.
    fn sawtooth(period: usize) -> impl Fn(usize) -> f64 {
        move |i| {
            let k = i % period;
            if k < 2 {
                0.5
            } else {
                0.5 - 0.04 * (((k - 2) / 2) as f64 + 1.0)
            }
        }
    }

    #[test]
    fn a_damper_following_its_air_handlers_reset_is_not_hunting() {
        // the setpoint reverses twice each 16 minutes (its respond, then its first trim); the
        // damper answers each a minute later
        let damper = |i: usize| if (1..3).contains(&(i % 16)) { 80.0 } else { 96.0 };
        let r = run(&RULE, &boxed(1200, damper, sawtooth(16)), &Params::default());
        assert!(
            r.metrics.get("damper_reversals_following_reset").is_some_and(|n| *n > 100.0),
            "{} {:?} {:?}",
            r.summary,
            r.metrics,
            r.caveats
        );
        assert!(r.caveats.iter().any(|c| c.contains("the reset's")), "{:?}", r.caveats);
        assert_eq!(r.severity, Severity::Ok, "{} {:?}", r.summary, r.caveats);
        // the same damper without the setpoint to read: charged with every reversal
        let ts: Vec<i64> = (0..1200).map(|i| i * MIN).collect();
        let alone =
            Frame::from_rows(&ts, &[("damper", (0..1200).map(damper).collect()), ("airflow", vec![500.0; 1200])]);
        assert_eq!(run(&RULE, &alone, &Params::default()).severity, Severity::Warn, "7.5 reversals an hour");
    }

    #[test]
    fn a_damper_hunting_between_resets_is_still_caught() {
        // the setpoint reverses once an hour; the damper every 2 minutes all the time
        let sp = |i: usize| if (i / 60).is_multiple_of(2) { 0.5 } else { 0.8 };
        let r = run(&RULE, &boxed(1200, wave(2), sp), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{} {:?}", r.summary, r.caveats);
        assert!(r.metrics["damper_reversals_per_hr"] > 25.0, "{:?}", r.metrics);
    }

    #[test]
    fn a_setpoint_that_reverses_all_the_time_leaves_the_damper_unjudged() {
        // a 3-minute reset cycle: every minute is within 6 minutes of a setpoint reversal
        let sp = |i: usize| if (i / 3).is_multiple_of(2) { 0.5 } else { 0.6 };
        let r = run(&RULE, &boxed(600, wave(2), sp), &Params::default());
        assert_eq!(r.severity, Severity::Info, "{} {:?}", r.summary, r.caveats);
        assert!(r.caveats.iter().any(|c| c.contains("cannot be told from the reset's cycle")), "{:?}", r.caveats);
    }

    #[test]
    fn no_modulating_signal_skips() {
        let f = Frame::from_rows(&[0, MIN], &[("supply_fan_status", vec![1.0, 1.0])]);
        assert!(matches!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { .. }));
    }
}
