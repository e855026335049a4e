//! `supply_air_control`: the supply-air temperature does not follow its setpoint. Judged on
//! running samples (fan on; with `occupancy_gate` = trended, also occupied where an occupancy
//! signal is trended); a sample misses when it is more than `tol_F` from the setpoint.

use std::collections::BTreeMap;

use crate::engine::{
    on, round2, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "supply_air_control",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["supply_air_temp", "supply_air_temp_sp"],
            optional: &["supply_fan_status", "occupancy"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "tol_F",
                default: ParamValue::Number(2.0),
                unit: "°F",
                range: Some((0.5, 5.0)),
                choices: &[],
                basis: "a loop that holds supply air within a couple of degrees of its setpoint is in control; a wider band is hunting or out of capacity",
                calibrate: "Watch a period the unit is known to control well and set this just above the spread of supply air around its setpoint.",
            },
            ParamSpec {
                name: "warn_pct",
                default: ParamValue::Number(10.0),
                unit: "% of fan-on running samples",
                range: Some((2.0, 30.0)),
                choices: &[],
                basis: "start-ups and setpoint steps take a little time to settle; more misses than that are worth a look",
                calibrate: "Read the miss share on healthy units after start-up and set this above it.",
            },
            ParamSpec {
                name: "fault_pct",
                default: ParamValue::Number(25.0),
                unit: "% of fan-on running samples",
                range: Some((10.0, 60.0)),
                choices: &[],
                basis: "a quarter of running time off setpoint is a control problem, not transients",
                calibrate: "Keep it at or above warn_pct; lower it for units whose zones are sensitive to supply temperature.",
            },
            ParamSpec {
                name: "occupancy_gate",
                default: ParamValue::Choice("trended".into()),
                unit: "choice",
                range: None,
                choices: &["trended", "schedule", "off"],
                basis: "out of occupied hours a unit may legitimately float its supply air",
                calibrate: "trended judges only occupied samples where occupancy is trended (all fan-on samples otherwise, so planned evening running counts); schedule also falls back to weekdays 07:00-18:00 when none is trended; off judges every fan-on sample. Use off when the occupancy point is unreliable.",
            },
        ],
        judged_basis: "fan-on running samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (sat, sp) = (frame.required("supply_air_temp"), frame.required("supply_air_temp_sp"));
    let fan = frame.col("supply_fan_status");
    let gate = params.choice(spec, "occupancy_gate");
    let occ = if gate == "off" { None } else { frame.col("occupancy") };
    let scheduled = gate == "schedule" && occ.is_none();
    let tol = params.number(spec, "tol_F");
    let w = frame.weights_hours();
    let (mut judged, mut judged_h, mut miss_h) = (0usize, 0.0, 0.0);
    let mut flagged = Vec::new();
    let (mut high, mut low) = (Vec::new(), Vec::new());
    for i in 0..frame.len() {
        if sat[i].is_nan()
            || sp[i].is_nan()
            || fan.is_some_and(|f| !on(f[i]))
            || occ.is_some_and(|o| !on(o[i]))
            || (scheduled && !crate::engine::assumed_occupied(frame.ts[i]))
        {
            continue;
        }
        judged += 1;
        judged_h += w[i];
        let err = sat[i] - sp[i];
        if err.abs() > tol {
            flagged.push(i as u32);
            miss_h += w[i];
            if err > 0.0 { &mut high } else { &mut low }.push(i as u32);
        }
    }
    if judged == 0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no running sample with both supply air and its setpoint",
        )]);
    }
    let pct = 100.0 * miss_h / judged_h;
    let severity = severity_of(pct, params.number(spec, "warn_pct"), params.number(spec, "fault_pct"));
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx);
    let mut metrics = BTreeMap::new();
    metrics.insert("off_setpoint_pct".into(), round2(pct));
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("too_warm_hours".into(), round2(hours(&high)));
    metrics.insert("too_cold_hours".into(), round2(hours(&low)));
    let mut caveats = Vec::new();
    if fan.is_none() {
        caveats.push("no fan status: every sample with supply air and setpoint was judged".into());
    }
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!(
            "supply air is more than {tol} °F from its setpoint on {pct:.1}% of {} ({miss_h:.1} of {judged_h:.1} h)",
            spec.judged_basis
        ),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(flagged)
    .with_judged(judged)
    .with_conditions(vec![
        Condition {
            name: "too_warm".into(),
            flagged: high.clone(),
            judged,
            judged_hours: judged_h,
            flagged_hours: hours(&high),
        },
        Condition {
            name: "too_cold".into(),
            flagged: low.clone(),
            judged,
            judged_hours: judged_h,
            flagged_hours: hours(&low),
        },
    ])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H};
    use crate::engine::Severity;

    fn frame(sat: &[f64], fan: &[f64]) -> Frame {
        let ts: Vec<i64> = (0..sat.len() as i64).map(|i| i * H).collect();
        Frame::from_rows(
            &ts,
            &[
                ("supply_air_temp", sat.to_vec()),
                ("supply_air_temp_sp", vec![55.0; sat.len()]),
                ("supply_fan_status", fan.to_vec()),
            ],
        )
    }

    #[test]
    fn normal_operation_is_ok() {
        let sat: Vec<f64> = (0..100).map(|i| 55.0 + ((i % 5) as f64 - 2.0) * 0.5).collect();
        assert_eq!(run(&RULE, &frame(&sat, &[1.0; 100]), &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn a_loop_out_of_control_is_a_fault_with_its_direction() {
        let sat: Vec<f64> = (0..100).map(|i| if i % 2 == 0 { 61.0 } else { 55.0 }).collect();
        let r = run(&RULE, &frame(&sat, &[1.0; 100]), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["off_setpoint_pct"], 50.0);
        assert_eq!(r.conditions[0].flagged.len(), 50);
        assert!(r.conditions[1].flagged.is_empty());
    }

    #[test]
    fn the_threshold_boundary() {
        // exactly tol_F off is within tolerance; 10 % of samples off is a warning
        let mut sat = vec![57.0; 100];
        assert_eq!(run(&RULE, &frame(&sat, &[1.0; 100]), &Params::default()).severity, Severity::Ok);
        for s in sat.iter_mut().take(10) {
            *s = 57.5;
        }
        assert_eq!(run(&RULE, &frame(&sat, &[1.0; 100]), &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn equipment_off_and_the_occupancy_gate() {
        let r = run(&RULE, &frame(&[70.0; 20], &[0.0; 20]), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        let ts: Vec<i64> = (0..10).map(|i| i * H).collect();
        let f = Frame::from_rows(
            &ts,
            &[
                ("supply_air_temp", vec![70.0; 10]),
                ("supply_air_temp_sp", vec![55.0; 10]),
                ("occupancy", vec![0.0; 10]),
            ],
        );
        assert_eq!(run(&RULE, &f, &Params::default()).judged, 0);
        let mut p = Params::default();
        p.values.insert("occupancy_gate".into(), ParamValue::Choice("off".into()));
        assert!(p.check(&spec()).is_ok());
        match outcome(&RULE, &f, &p) {
            Outcome::Findings(v) => assert_eq!(v[0].judged, 10),
            o => panic!("{o:?}"),
        }
        p.values.insert("occupancy_gate".into(), ParamValue::Choice("sometimes".into()));
        assert!(p.check(&spec()).is_err());
        // schedule: with no occupancy trended, weekdays 07:00-18:00 only (1970-01-01 was a
        // Thursday: hours 7 to 17 of the first day)
        let day: Vec<i64> = (0..24).map(|i| i * H).collect();
        let g = Frame::from_rows(&day, &[("supply_air_temp", vec![70.0; 24]), ("supply_air_temp_sp", vec![55.0; 24])]);
        let judged = |gate: &str| {
            let mut p = Params::default();
            p.values.insert("occupancy_gate".into(), ParamValue::Choice(gate.into()));
            match outcome(&RULE, &g, &p) {
                Outcome::Findings(v) => v[0].judged,
                o => panic!("{o:?}"),
            }
        };
        assert_eq!((judged("trended"), judged("schedule"), judged("off")), (24, 11, 24));
        // with occupancy trended, schedule reads it as trended does
        let mut p = Params::default();
        p.values.insert("occupancy_gate".into(), ParamValue::Choice("schedule".into()));
        match outcome(&RULE, &f, &p) {
            Outcome::Findings(v) => assert_eq!(v[0].judged, 0),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn gaps_duplicates_and_irregular_samples() {
        let ts = vec![3 * H, 0, H, H, 2 * H, 40 * H];
        let sat = vec![55.0, 55.0, 70.0, 55.0, 55.0, 55.0]; // the later reading at H wins
        let f = Frame::from_rows(
            &ts,
            &[("supply_air_temp", sat), ("supply_air_temp_sp", vec![55.0; 6]), ("supply_fan_status", vec![1.0; 6])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.judged, 5);
        assert!(r.flagged.is_empty());
        // the hour before the 37-hour hole counts 1.5 h, not 37
        assert!((r.metrics["judged_hours"] - 5.5).abs() < 1e-9, "{:?}", r.metrics);
    }

    #[test]
    fn a_missing_setpoint_skips() {
        let ts = vec![0, H];
        let f = Frame::from_rows(&ts, &[("supply_air_temp", vec![55.0, 56.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["supply_air_temp_sp".into()] }
        );
    }
}
