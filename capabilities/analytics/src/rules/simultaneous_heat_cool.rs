//! `simultaneous_heat_cool`: the heating and cooling valves of one unit open at the same time,
//! so one coil undoes the other. Judged on the samples the unit runs (fan on, and occupied when
//! an occupancy signal exists). Reheat after the cooling coil for dehumidification is not a
//! fault: when the unit's sequence has it (or may have it), a both-open sample whose supply air
//! is warmer than the coil's leaving air by the reheat lift, with humid return air, is
//! explained and not flagged.

use std::collections::BTreeMap;

use crate::engine::{
    on, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec,
};

/// A valve reading above this (percent) counts as open: below it is seat leakage or noise.
const OPEN_PCT: f64 = 2.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "simultaneous_heat_cool",
        families: &["air_handler", "fan_coil"],
        inputs: Inputs {
            required: &["heat_valve", "cool_valve"],
            optional: &["supply_fan_status", "occupancy", "supply_air_temp", "cool_coil_leaving_temp", "return_air_humidity"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "dehumidification",
                default: ParamValue::Flag(None),
                unit: "flag",
                range: None,
                choices: &[],
                basis: "whether the sequence reheats after the cooling coil to dry the air is a fact about the unit, not the data; unset means unknown",
                calibrate: "Set true when the sequence of operation has a dehumidification mode with reheat, false when it has none; leave it unset only when nobody knows.",
            },
            ParamSpec {
                name: "reheat_lift_f",
                default: ParamValue::Number(2.0),
                unit: "°F",
                range: Some((0.5, 6.0)),
                choices: &[],
                basis: "a supply-air temperature this much above the cooling coil's leaving air is heat added after the coil, beyond fan heat and sensor noise",
                calibrate: "Compare supply air with coil-leaving air in a period of cooling only (heating valve shut): set this a little above that difference.",
            },
            ParamSpec {
                name: "dewpoint_margin_f",
                default: ParamValue::Number(2.0),
                unit: "°F",
                range: Some((0.0, 5.0)),
                choices: &[],
                basis: "room for sensor error when telling a wet coil from a dry one",
                calibrate: "Widen it when hours with condensate on the coil read as dry.",
            },
            ParamSpec {
                name: "humid_rh_pct",
                default: ParamValue::Number(55.0),
                unit: "% relative humidity (return air)",
                range: Some((40.0, 70.0)),
                choices: &[],
                basis: "the upper edge of the usual comfort humidity band: above it, drying the air is a reason to reheat",
                calibrate: "Use the unit's humidity setpoint or high-humidity limit from its sequence.",
            },
            ParamSpec {
                name: "fault_pct",
                default: ParamValue::Number(5.0),
                unit: "% of judged hours",
                range: Some((1.0, 30.0)),
                choices: &[],
                basis: "a twentieth of the running hours with both coils fighting is a steady energy loss, not a changeover blip",
                calibrate: "Read simultaneous_hc_pct on units known to be healthy and set this well above their spread; keep it at or above warn_pct.",
            },
            ParamSpec {
                name: "warn_pct",
                default: ParamValue::Number(1.0),
                unit: "% of judged hours",
                range: Some((0.1, 10.0)),
                choices: &[],
                basis: "healthy units overlap briefly while valves change over; more than that deserves a look",
                calibrate: "Set it just above the overlap healthy units show in a known-good period.",
            },
        ],
        judged_basis: "fan-on samples (occupied, where an occupancy signal exists)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (heat, cool) = (frame.required("heat_valve"), frame.required("cool_valve"));
    let fan = frame.col("supply_fan_status");
    let occ = frame.col("occupancy");
    let sat = frame.col("supply_air_temp");
    let lat = frame.col("cool_coil_leaving_temp");
    let rh = frame.col("return_air_humidity");
    let (warn, fault) = (params.number(spec, "warn_pct"), params.number(spec, "fault_pct"));
    let lift = params.number(spec, "reheat_lift_f");
    let humid = params.number(spec, "humid_rh_pct");
    let dehum = params.flag(spec, "dehumidification");
    let w = frame.weights_hours();

    let mut judged = 0usize;
    let (mut judged_h, mut both_h, mut explained_h) = (0.0, 0.0, 0.0);
    let mut flagged: Vec<u32> = Vec::new();
    let mut both: Vec<u32> = Vec::new();
    for i in 0..frame.len() {
        if heat[i].is_nan() || cool[i].is_nan() {
            continue;
        }
        if fan.is_some_and(|f| !on(f[i])) || occ.is_some_and(|o| !on(o[i])) {
            continue;
        }
        judged += 1;
        judged_h += w[i];
        if !(heat[i] > OPEN_PCT && cool[i] > OPEN_PCT) {
            continue;
        }
        both.push(i as u32);
        both_h += w[i];
        // reheat after the coil on humid air, where the sequence may dehumidify
        let reheat = match (sat, lat) {
            (Some(s), Some(l)) if !s[i].is_nan() && !l[i].is_nan() => s[i] - l[i] >= lift,
            _ => false,
        };
        let humid_air = rh.is_some_and(|r| !r[i].is_nan() && r[i] >= humid);
        let explained = match dehum {
            Some(false) => false,
            Some(true) => reheat && rh.is_none_or(|r| r[i].is_nan() || r[i] >= humid),
            None => reheat && humid_air,
        };
        if explained {
            explained_h += w[i];
        } else {
            flagged.push(i as u32);
        }
    }
    if judged == 0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "the unit never ran with both valve positions recorded",
        )]);
    }
    let flagged_h = both_h - explained_h;
    let pct = 100.0 * flagged_h / judged_h;
    let severity = severity_of(pct, warn, fault);
    let mut metrics = BTreeMap::new();
    metrics.insert("simultaneous_hc_pct".to_string(), (pct * 100.0).round() / 100.0);
    metrics.insert("judged_hours".to_string(), (judged_h * 100.0).round() / 100.0);
    metrics.insert("flagged_hours".to_string(), (flagged_h * 100.0).round() / 100.0);
    metrics.insert("explained_dehumidification_hours".to_string(), (explained_h * 100.0).round() / 100.0);
    let mut caveats = Vec::new();
    if dehum.is_none() && rh.is_none() {
        caveats.push("the sequence's dehumidification mode is unknown and there is no return humidity: every both-open hour counts".into());
    }
    if fan.is_none() {
        caveats.push("no fan status: every sample with both valve positions was judged".into());
    }
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!(
            "heating and cooling valves open together on {:.1}% of {} ({:.1} of {:.1} h)",
            pct, spec.judged_basis, flagged_h, judged_h
        ),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(flagged.clone())
    .with_judged(judged)
    .with_conditions(vec![Condition {
        name: "both_valves_open".into(),
        flagged: both,
        judged,
        judged_hours: judged_h,
        flagged_hours: both_h,
    }])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H};
    use crate::engine::Severity;

    fn frame(n: usize, both_open: impl Fn(usize) -> bool, fan: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let heat: Vec<f64> = (0..n).map(|i| if both_open(i) { 40.0 } else { 0.0 }).collect();
        let cool: Vec<f64> = (0..n).map(|_| 60.0).collect();
        let fan: Vec<f64> = (0..n).map(fan).collect();
        Frame::from_rows(&ts, &[("heat_valve", heat), ("cool_valve", cool), ("supply_fan_status", fan)])
    }

    #[test]
    fn normal_operation_is_ok() {
        let f = frame(200, |_| false, |_| 1.0);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert_eq!(r.judged, 200);
        assert!(r.flagged.is_empty());
    }

    #[test]
    fn a_fighting_unit_is_a_fault() {
        let f = frame(100, |i| i % 5 == 0, |_| 1.0);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["simultaneous_hc_pct"], 20.0);
        assert_eq!(r.flagged.len(), 20);
    }

    #[test]
    fn the_threshold_boundary() {
        // exactly warn_pct (1 %) is a warning; just under is ok
        let at = frame(100, |i| i == 3, |_| 1.0);
        assert_eq!(run(&RULE, &at, &Params::default()).severity, Severity::Warn);
        let under = frame(101, |i| i == 3, |_| 1.0);
        assert_eq!(run(&RULE, &under, &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn equipment_off_is_not_judged_and_not_a_pass() {
        let f = frame(50, |_| true, |_| 0.0);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert_eq!(r.judged, 0);
        // fan off samples are never judged
        let half = frame(100, |_| true, |i| if i < 50 { 0.0 } else { 1.0 });
        assert_eq!(run(&RULE, &half, &Params::default()).judged, 50);
    }

    #[test]
    fn a_data_gap_is_not_judged_time() {
        // 10 both-open hours, then a 50-hour hole, then 90 clean hours
        let mut ts: Vec<i64> = (0..10).map(|i| i * H).collect();
        ts.extend((60..150).map(|i| i * H));
        let heat: Vec<f64> = (0..100).map(|i| if i < 10 { 40.0 } else { 0.0 }).collect();
        let f = Frame::from_rows(
            &ts,
            &[("heat_valve", heat), ("cool_valve", vec![60.0; 100]), ("supply_fan_status", vec![1.0; 100])],
        );
        let r = run(&RULE, &f, &Params::default());
        // the sample before the hole stands for 1.5 h at most, not 51 h
        assert!((r.metrics["judged_hours"] - 100.5).abs() < 1e-9, "{:?}", r.metrics);
        assert!((r.metrics["flagged_hours"] - 10.5).abs() < 1e-9, "{:?}", r.metrics);
    }

    #[test]
    fn duplicate_and_out_of_order_timestamps() {
        let ts = vec![2 * H, 0, H, H, 3 * H];
        let heat = vec![0.0, 50.0, 0.0, 50.0, 0.0]; // the second reading at H wins: open
        let f = Frame::from_rows(
            &ts,
            &[("heat_valve", heat), ("cool_valve", vec![60.0; 5]), ("supply_fan_status", vec![1.0; 5])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.judged, 4);
        assert_eq!(r.flagged, vec![0, 1]);
    }

    #[test]
    fn irregular_sampling_weights_by_time() {
        // one both-open sample that stands for 10 minutes among hourly clean ones
        let m = H / 60;
        let ts = vec![0, 10 * m, H, 2 * H, 3 * H];
        let heat = vec![50.0, 0.0, 0.0, 0.0, 0.0];
        let f = Frame::from_rows(
            &ts,
            &[("heat_valve", heat), ("cool_valve", vec![60.0; 5]), ("supply_fan_status", vec![1.0; 5])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["flagged_hours"] < 0.2, "{:?}", r.metrics);
    }

    #[test]
    fn dehumidification_reheat_is_explained_when_declared() {
        let n = 100;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let cols = [
            ("heat_valve", vec![30.0; n]),
            ("cool_valve", vec![70.0; n]),
            ("supply_fan_status", vec![1.0; n]),
            ("supply_air_temp", vec![60.0; n]),
            ("cool_coil_leaving_temp", vec![52.0; n]),
            ("return_air_humidity", vec![62.0; n]),
        ];
        let f = Frame::from_rows(&ts, &cols);
        let mut p = Params::default();
        p.values.insert("dehumidification".into(), ParamValue::Flag(Some(true)));
        assert_eq!(run(&RULE, &f, &p).severity, Severity::Ok);
        p.values.insert("dehumidification".into(), ParamValue::Flag(Some(false)));
        assert_eq!(run(&RULE, &f, &p).severity, Severity::Fault);
    }

    #[test]
    fn a_missing_required_input_skips_with_the_reason() {
        let ts = vec![0, H];
        let f = Frame::from_rows(&ts, &[("cool_valve", vec![1.0, 2.0])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["heat_valve".into()] });
    }

    #[test]
    fn parameters_are_checked() {
        let mut p = Params::default();
        p.values.insert("warn_pct".into(), ParamValue::Number(50.0));
        assert!(p.check(&spec()).is_ok());
        assert!(
            p.outside_range(&spec())[0].contains("warn_pct = 50 is outside its sensible range"),
            "{:?}",
            p.outside_range(&spec())
        );
        let mut p = Params::default();
        p.values.insert("nope".into(), ParamValue::Number(1.0));
        assert!(p.check(&spec()).is_err());
    }
}
