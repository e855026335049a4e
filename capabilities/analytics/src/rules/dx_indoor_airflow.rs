//! `dx_indoor_airflow`: a DX unit's or heat pump's indoor (evaporator) airflow, read from the
//! coil's temperature split while it cools. At a given entering-air condition the coil removes
//! roughly a fixed amount of heat, so the drop across it (return air minus supply air) widens
//! when less air crosses it and narrows when more does. A starved coil (a loaded filter, a
//! slipping belt, closed registers, the wrong blower tap) runs colder and can freeze; an
//! over-blown one dries the air too little. Lost charge also narrows the split (less capacity,
//! the same air), so a narrow split is read as high airflow or lost capacity, never as a charge
//! verdict (`dx_refrigerant_charge` judges the charge).
//!
//! Judged on the cooling samples: the compressor running (where trended), the reversing valve in
//! cooling (where trended), the fan on (where trended) and the supply air below the return air,
//! with a split from 0 to 45 °F (outside it the reading is no coil's split); at least
//! `min_samples` of them, else declined. The median split, weighed by time, is compared with
//! the installer's target (`targets: {"temp_split_f": 20}`, per unit by equipment patterns,
//! with its own `tolerance_f` if given): a warning outside the tolerance, a fault outside twice
//! it, a split wider than the target reading as low airflow and a narrower one as high. With no
//! target only a wide band applies (`min_split_f` to `max_split_f`), each side a warning. A fixed
//! target ignores the return air's humidity (a humid day narrows the split at the same air),
//! and the finding says so. The verdict is in the metrics: `airflow_low`, `airflow_high` or
//! `split_low` at 1. The flagged samples are the cooling samples when the finding warns.
//!
//! The comparison with a fault-free period of the same unit, at matched return-air conditions,
//! is the drift detector `dx_indoor_airflow_drift` (family `dx`); its parameters (from
//! `freeze_if_missing` to `min_baseline_samples`) are declared here as well, so a config written
//! for the reference runs unchanged, and do not change this check.

use std::collections::BTreeMap;

use crate::dx::{self, SPLIT_BOUNDS};
use crate::engine::{
    round2, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [warn_f, fault_f, warn_sigma, fault_sigma] =
        dx::baseline_params("split", (1.5, (1.0, 4.0)), (3.0, (2.0, 8.0)), (2.0, (1.0, 4.0)), (4.0, (2.0, 8.0)));
    RuleSpec {
        id: "dx_indoor_airflow",
        families: &["dx", "heat_pump"],
        inputs: Inputs {
            required: &["return_air_temp", "supply_air_temp"],
            optional: &["compressor_status", "reversing_valve_cmd", "supply_fan_status"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::flag(
                "freeze_if_missing",
                true,
                "the reference's comparison with no stored baseline fits one from the fault-free period it is given",
                "Declared so a config written for the reference runs unchanged; the drift detector dx_indoor_airflow_drift fits its baseline on the window a drift run names, and this check does not use it.",
            ),
            ParamSpec {
                name: "targets",
                default: ParamValue::Map(BTreeMap::new()),
                unit: "°F (a per-unit mapping)",
                range: Some((15.0, 22.0)),
                choices: &["temp_split_f", "tolerance_f"],
                basis: "the installer's or manufacturer's target split for the unit's rated airflow, from its chart",
                calibrate: "Give the target temperature split at the conditions the unit mostly runs in, from the manufacturer's chart (one that takes the return wet bulb is far better than a fixed number), and its tolerance if it differs: {\"temp_split_f\": 20}. Models differ: key targets by equipment patterns ({\"RTU-1*\": {...}}). Unset: only the wide min_split_f to max_split_f band applies.",
            },
            ParamSpec::number(
                "tolerance_f",
                3.0,
                "°F (either side of the target split)",
                (1.5, 5.0),
                "a target split is read off a chart to a few degrees; about 3 °F either side is the usual allowance",
                "Use the tolerance the chart or the installation manual gives. A warning outside it, a fault outside twice it.",
            ),
            warn_f,
            fault_f,
            warn_sigma,
            fault_sigma,
            dx::min_samples_param(),
            dx::min_baseline_samples_param(),
            ParamSpec::number(
                "min_split_f",
                8.0,
                "°F (return minus supply air while cooling)",
                (5.0, 12.0),
                "a DX coil at its rated air drops the air by roughly 15-22 °F; under 8 °F it removes little heat",
                "Used only without a target. Lower it for a unit in a very humid climate, whose latent load narrows the split.",
            ),
            ParamSpec::number(
                "max_split_f",
                28.0,
                "°F (return minus supply air while cooling)",
                (24.0, 35.0),
                "over 28 °F the coil sees far less air than it was rated for",
                "Used only without a target. Raise it for a unit selected for a deep split (a dehumidifying coil).",
            ),
        ],
        judged_basis: "cooling-mode samples (compressor running, fan on, supply air below return air)",
    }
}

/// Whether each sample is cooling operation with a coil's split: the gates [`dx::cooling`]
/// reads, and a split within [`SPLIT_BOUNDS`].
fn cooling(frame: &Frame, split: &[f64]) -> Vec<bool> {
    dx::cooling(frame).into_iter().zip(split).map(|(c, &s)| c && s > SPLIT_BOUNDS.0 && s <= SPLIT_BOUNDS.1).collect()
}

/// Evaluate one equipment's frame against its target split (or, with none, the wide band).
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (rat, sat) = (frame.required("return_air_temp"), frame.required("supply_air_temp"));
    let split = dx::split(rat, sat);
    let keep = cooling(frame, &split);
    let rows: Vec<u32> = (0..frame.len()).filter(|&i| keep[i]).map(|i| i as u32).collect();
    let min_samples = params.number(spec, "min_samples");
    if (rows.len() as f64) < min_samples {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            &format!("{} cooling-mode readings of the split ({min_samples} needed)", rows.len()),
        )]);
    }
    let w = frame.weights_hours();
    let med = weighted_quantile(&mut rows.iter().map(|&i| (split[i as usize], w[i as usize])).collect(), 0.5);
    let targets = params.map(spec, "targets");
    let mut metrics = BTreeMap::new();
    metrics.insert("temp_split_median_f".into(), round2(med));
    metrics.insert("n_cooling_rows".into(), rows.len() as f64);
    let mut caveats = Vec::new();
    let (severity, verdict, summary) = match targets.get("temp_split_f").copied() {
        Some(target) => {
            let tol = targets.get("tolerance_f").copied().unwrap_or_else(|| params.number(spec, "tolerance_f"));
            let dev = med - target;
            let severity = if dev.abs() >= 2.0 * tol {
                Severity::Fault
            } else if dev.abs() >= tol {
                Severity::Warn
            } else {
                Severity::Ok
            };
            metrics.insert("target_temp_split_f".into(), target);
            metrics.insert("tolerance_f".into(), tol);
            metrics.insert("deviation_f".into(), round2(dev));
            caveats.push(
                "a fixed target split ignores the return air's humidity: a humid spell narrows the split at the same airflow"
                    .to_string(),
            );
            if severity == Severity::Ok {
                (severity, None, format!("temperature split {med:.1} °F, within {tol} °F of its {target} °F target"))
            } else {
                let low = dev > 0.0;
                (
                    severity,
                    Some(if low { "airflow_low" } else { "airflow_high" }),
                    format!(
                        "temperature split {med:.1} °F against a {target} °F target ({dev:+.1} °F): {} indoor airflow? check the filter, the blower speed and the registers",
                        if low { "low" } else { "high" }
                    ),
                )
            }
        }
        None => {
            let (lo, hi) = (params.number(spec, "min_split_f"), params.number(spec, "max_split_f"));
            caveats.push(format!(
                "no target temperature split for this unit: judged only against a wide band ({lo}-{hi} °F); set the rule's targets for an airflow verdict"
            ));
            metrics.insert("min_split_f".into(), lo);
            metrics.insert("max_split_f".into(), hi);
            if med > hi {
                (Severity::Warn, Some("airflow_low"), format!("temperature split {med:.1} °F, far more than a DX coil drops at its rated air: low indoor airflow? check the filter, the blower speed and the registers"))
            } else if med < lo {
                (Severity::Warn, Some("split_low"), format!("temperature split only {med:.1} °F while cooling: the coil removes little heat (high airflow, or lost capacity: see dx_refrigerant_charge)"))
            } else {
                (Severity::Ok, None, format!("temperature split {med:.1} °F, within the wide band"))
            }
        }
    };
    for v in ["airflow_low", "airflow_high", "split_low"] {
        metrics.insert(v.into(), if verdict == Some(v) { 1.0 } else { 0.0 });
    }
    let flagged = if severity > Severity::Ok { rows.clone() } else { Vec::new() };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(rows.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// `n` hourly samples of a unit cooling with return air at 76 °F and the split `split(i)`.
    fn unit(n: usize, split: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, H, n),
            &[
                ("return_air_temp", vec![76.0; n]),
                ("supply_air_temp", (0..n).map(|i| 76.0 - split(i)).collect()),
                ("compressor_status", vec![1.0; n]),
            ],
        )
    }

    fn target(t: f64) -> Params {
        with(&[("targets", ParamValue::Map([("temp_split_f".to_string(), t)].into()))])
    }

    #[test]
    fn a_split_on_target_is_ok() {
        let r = run(&RULE, &unit(40, |i| 19.0 + (i % 3) as f64), &target(20.0));
        assert_eq!((r.severity, r.metrics["temp_split_median_f"], r.metrics["deviation_f"]), (Severity::Ok, 20.0, 0.0));
        assert_eq!(r.caveats.len(), 1, "the humidity caveat");
        assert!(r.flagged.is_empty());
        // no target: the wide band
        let r = run(&RULE, &unit(40, |_| 18.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats[0].contains("no target temperature split"), "{:?}", r.caveats);
    }

    #[test]
    fn an_airflow_fault_is_found_with_its_direction() {
        let r = run(&RULE, &unit(40, |_| 27.0), &target(20.0));
        assert_eq!((r.severity, r.metrics["airflow_low"]), (Severity::Fault, 1.0));
        assert!(r.summary.contains("low indoor airflow"), "{}", r.summary);
        assert_eq!(r.flagged.len(), 40);
        let r = run(&RULE, &unit(40, |_| 16.0), &target(20.0));
        assert_eq!((r.severity, r.metrics["airflow_high"]), (Severity::Warn, 1.0));
        // the wide band, each side a warning
        let r = run(&RULE, &unit(40, |_| 30.0), &Params::default());
        assert_eq!((r.severity, r.metrics["airflow_low"]), (Severity::Warn, 1.0));
        let r = run(&RULE, &unit(40, |_| 6.0), &Params::default());
        assert_eq!((r.severity, r.metrics["split_low"]), (Severity::Warn, 1.0));
        assert!(r.summary.contains("dx_refrigerant_charge"), "{}", r.summary);
    }

    #[test]
    fn the_tolerances_and_bands_at_their_boundaries() {
        let sev = |s: f64, p: &Params| run(&RULE, &unit(20, move |_| s), p).severity;
        assert_eq!((sev(23.0, &target(20.0)), sev(22.99, &target(20.0))), (Severity::Warn, Severity::Ok));
        assert_eq!((sev(26.0, &target(20.0)), sev(25.99, &target(20.0))), (Severity::Fault, Severity::Warn));
        let mut p = target(20.0);
        p.values.insert("tolerance_f".into(), ParamValue::Number(4.0));
        assert_eq!(sev(23.0, &p), Severity::Ok);
        // the target's own tolerance wins over the parameter
        let own = with(&[(
            "targets",
            ParamValue::Map([("temp_split_f".to_string(), 20.0), ("tolerance_f".to_string(), 2.0)].into()),
        )]);
        assert_eq!(sev(22.0, &own), Severity::Warn);
        // the band's edges are inside it
        assert_eq!((sev(28.0, &Params::default()), sev(28.01, &Params::default())), (Severity::Ok, Severity::Warn));
        assert_eq!((sev(8.0, &Params::default()), sev(7.99, &Params::default())), (Severity::Ok, Severity::Warn));
        assert_eq!(sev(28.01, &numbers(&[("max_split_f", 30.0)])), Severity::Ok);
        assert_eq!(sev(7.99, &numbers(&[("min_split_f", 7.0)])), Severity::Ok);
    }

    #[test]
    fn only_cooling_samples_are_judged() {
        // the compressor off half the time (its split then is the fan's warming): not judged
        let mut f = unit(40, |i| if i % 2 == 0 { 20.0 } else { -2.0 });
        f.cols.insert("compressor_status".into(), (0..40).map(|i| ((i + 1) % 2) as f64).collect());
        let r = run(&RULE, &f, &target(20.0));
        assert_eq!((r.judged, r.severity), (20, Severity::Ok));
        // the valve in heating and the fan off are not cooling either
        f.cols.insert("compressor_status".into(), vec![1.0; 40]);
        f.cols.insert("reversing_valve_cmd".into(), (0..40).map(|i| if i < 10 { 1.0 } else { 0.0 }).collect());
        f.cols.insert("supply_fan_status".into(), (0..40).map(|i| if i >= 30 { 0.0 } else { 1.0 }).collect());
        assert_eq!(run(&RULE, &f, &target(20.0)).judged, 10);
        // a split outside 0-45 °F is no coil's
        assert_eq!(run(&RULE, &unit(20, |i| if i < 5 { 50.0 } else { 20.0 }), &target(20.0)).judged, 15);
    }

    #[test]
    fn uneven_samples_are_weighed_by_time() {
        // 30 ten-minute samples at a 27 °F split (5 h), then 20 hourly ones at 20 °F (each
        // standing for at most 15 minutes): the median is the wide split's, by time
        let mut ts = every(MONDAY, 10 * MINUTE, 30);
        ts.extend(every(MONDAY + 5 * H, H, 20));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("return_air_temp", vec![76.0; n]),
                ("supply_air_temp", (0..n).map(|i| if i < 30 { 49.0 } else { 56.0 }).collect()),
            ],
        );
        assert_eq!(run(&RULE, &f, &target(20.0)).metrics["temp_split_median_f"], 27.0);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [unit(30, |i| 18.0 + (i % 7) as f64), unit(12, |_| 27.0)] {
            assert_eq!(run(&RULE, &shuffled_with_duplicates(&f), &target(20.0)), run(&RULE, &f, &target(20.0)));
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&every(MONDAY, H, 3), &[("return_air_temp", vec![76.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["supply_air_temp".into()] }
        );
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let r = run(&RULE, &unit(9, |_| 20.0), &Params::default());
        assert!(r.severity == Severity::Info && r.summary.contains("9 cooling-mode readings"), "{}", r.summary);
        assert_eq!(run(&RULE, &unit(9, |_| 20.0), &numbers(&[("min_samples", 5.0)])).severity, Severity::Ok);
        let mut off = unit(20, |_| 20.0);
        off.cols.insert("compressor_status".into(), vec![0.0; 20]);
        assert_eq!(run(&RULE, &off, &Params::default()).severity, Severity::Info);
    }
}
