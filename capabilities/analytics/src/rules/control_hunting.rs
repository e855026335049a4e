//! `control_hunting`: a modulating output (a valve, a damper, a fan speed) that keeps reversing
//! direction instead of settling. Counted as direction reversals per hour beyond a deadband, per
//! signal, over observed running time only: a step longer than `gap_factor` typical intervals is
//! a gap, not calm time, and fan-off time is not control time. A trend too coarse to show the
//! warning rate cannot tell hunting from stability, so that signal is declined, not passed.

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
            optional: &["supply_fan_status", "airflow"],
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

/// What one signal showed.
struct SignalRate {
    role: &'static str,
    reversals: usize,
    hours: f64,
    /// The most reversals per hour the trend can show.
    ceiling: f64,
    flagged: Vec<u32>,
    judged: usize,
}

fn rate_of(
    role: &'static str,
    frame: &Frame,
    col: &[f64],
    running: &dyn Fn(usize) -> bool,
    deadband: f64,
    gap_factor: f64,
) -> Option<SignalRate> {
    let idx: Vec<usize> = (0..frame.len()).filter(|&i| !col[i].is_nan()).collect();
    if idx.len() < 3 {
        return None;
    }
    let mut steps: Vec<i64> = idx.windows(2).map(|w| frame.ts[w[1]] - frame.ts[w[0]]).collect();
    steps.sort_unstable();
    let dt = steps[steps.len() / 2].max(1);
    let max_step = (dt as f64 * gap_factor) as i64;
    // a 0-1 fraction is read as percent
    let scale = if idx.iter().all(|&i| col[i].abs() <= 1.5) { 100.0 } else { 1.0 };
    let (mut reversals, mut ns, mut judged) = (0usize, 0i64, 0usize);
    let mut flagged = Vec::new();
    // hysteresis: the direction of travel and the extreme reached in it
    let mut state: Option<(i8, f64)> = None;
    for w in idx.windows(2) {
        let (a, b) = (w[0], w[1]);
        let step = frame.ts[b] - frame.ts[a];
        if step > max_step || !running(a) || !running(b) {
            state = None;
            continue;
        }
        ns += step;
        judged += 1;
        let v = col[b] * scale;
        let prev = col[a] * scale;
        state = match state {
            None => {
                if (v - prev).abs() > deadband {
                    Some((if v > prev { 1 } else { -1 }, v))
                } else {
                    Some((0, prev))
                }
            }
            Some((dir, ext)) => {
                let moved = v - ext;
                if dir == 0 {
                    if moved.abs() > deadband {
                        Some((moved.signum() as i8, v))
                    } else {
                        Some((0, ext))
                    }
                } else if (dir > 0 && v > ext) || (dir < 0 && v < ext) {
                    Some((dir, v))
                } else if moved.abs() > deadband {
                    reversals += 1;
                    flagged.push(b as u32);
                    Some((-dir, v))
                } else {
                    Some((dir, ext))
                }
            }
        };
    }
    Some(SignalRate { role, reversals, hours: ns as f64 / 3.6e12, ceiling: 3.6e12 / dt as f64, flagged, judged })
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let present: Vec<&'static str> = SIGNALS.iter().copied().filter(|s| frame.col(s).is_some()).collect();
    let gate = params.flag(spec, "fan_gate").unwrap_or(true);
    let (status, speed, flow) = (frame.col("supply_fan_status"), frame.col("supply_fan_speed"), frame.col("airflow"));
    let ungated = gate && status.is_none() && speed.is_none() && flow.is_none();
    let running = |i: usize| -> bool {
        if !gate {
            return true;
        }
        match (status, speed, flow) {
            (Some(s), _, _) => on(s[i]),
            (None, Some(s), _) => !s[i].is_nan() && s[i] > 0.0,
            (None, None, Some(f)) => !f[i].is_nan() && f[i] > 0.0,
            _ => true,
        }
    };
    let (warn, fault) = (params.number(spec, "warn_per_hr"), params.number(spec, "fault_per_hr"));
    let margin = params.number(spec, "resolution_margin");
    let rates: Vec<SignalRate> = present
        .iter()
        .filter_map(|s| {
            rate_of(
                s,
                frame,
                frame.col(s).unwrap_or_default(),
                &running,
                params.number(spec, "deadband"),
                params.number(spec, "gap_factor"),
            )
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

    #[test]
    fn no_modulating_signal_skips() {
        let f = Frame::from_rows(&[0, MIN], &[("supply_fan_status", vec![1.0, 1.0])]);
        assert!(matches!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { .. }));
    }
}
