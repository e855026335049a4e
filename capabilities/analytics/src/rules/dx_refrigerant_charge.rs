//! `dx_refrigerant_charge`: a DX unit's or heat pump's refrigerant charge from its liquid
//! subcooling. On a unit with a thermostatic or electronic expansion valve the valve holds the
//! suction superheat, so the charge shows in the subcooling: refrigerant lost is liquid lost
//! from the condenser (subcooling falls, at the extreme the valve is fed flash gas), refrigerant
//! added backs liquid up into it (subcooling rises). A fixed-orifice unit is charged by
//! superheat instead (`metric`), which rises on a low charge. Only cooling operation is judged:
//! compressor running (when trended), reversing valve in cooling (when trended) and supply air
//! below return air (when both are trended); a unit with neither a compressor status nor that
//! air pair is declined, since its off-cycle readings would be judged too.
//!
//! Against a manufacturer's target (`targets`) the median is a warning outside `tolerance_f`
//! and a fault outside twice it; with no target only the universal subcooling limits apply,
//! each a warning. The comparison with a fault-free period of the same unit, at matched
//! outdoor and return air, is the drift detector `dx_refrigerant_charge_drift` (family `dx`);
//! its parameters (`freeze_if_missing`, `warn_f` to `fault_sigma`, `min_baseline_samples`) are
//! declared here as well, so a config written for the reference runs unchanged, and do not
//! change this check. Condenser faults move subcooling too, so a verdict is a prompt to check
//! the charge and the condenser coil, not a diagnosis.

use std::collections::BTreeMap;

use crate::dx::{self, cooling, has_run_gate, low_charge, metric_role, CORROBORATE_SH_F};
use crate::engine::{
    median, round2, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate).with_needs(needs);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [warn_f, fault_f, warn_sigma, fault_sigma] =
        dx::baseline_params("charge", (3.0, (1.5, 6.0)), (5.0, (3.0, 10.0)), (1.5, (1.0, 4.0)), (3.0, (2.0, 6.0)));
    RuleSpec {
        id: "dx_refrigerant_charge",
        families: &["air_handler", "dx", "heat_pump"],
        inputs: Inputs {
            required: &["subcooling_temp"],
            optional: &["superheat_temp", "oat", "return_air_temp", "supply_air_temp", "compressor_status", "reversing_valve_cmd"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::flag("freeze_if_missing", true,
                "the reference's comparison with no stored baseline fits one from the fault-free period it is given",
                "Declared so a config written for the reference runs unchanged; the drift detector dx_refrigerant_charge_drift fits its baseline on the window a drift run names, and this check does not use it."),
            ParamSpec {
                name: "targets",
                default: ParamValue::Map(BTreeMap::new()),
                unit: "°F, named: subcooling_f, superheat_f, tolerance_f (for every unit, or keyed by equipment patterns)",
                range: Some((5.0, 20.0)),
                choices: &["subcooling_f", "superheat_f", "tolerance_f"],
                basis: "the nameplate or installation manual gives the subcooling (or, for a fixed orifice, the superheat) the unit is charged to",
                calibrate: "Copy the charging target from the manufacturer's chart at the conditions the unit mostly runs in, with the target superheat beside it to cross-check a low charge and the manual's tolerance if it differs: {\"subcooling_f\": 10, \"superheat_f\": 8}. Different models: key the targets by equipment patterns ({\"RTU-1*\": {...}}). Taking them from the trend being judged is circular. Unset: only the universal subcooling limits apply, and metric superheat declines.",
            },
            ParamSpec::number("tolerance_f", 3.0, "°F (either side of the target)", (1.0, 5.0),
                "manufacturers' charging instructions commonly allow about 3 °F either side of the target",
                "Use the tolerance printed in the unit's charging instructions. Target mode: a warning outside it, a fault outside twice it."),
            dx::metric_param(),
            warn_f,
            fault_f,
            warn_sigma,
            fault_sigma,
            dx::min_samples_param(),
            dx::min_baseline_samples_param(),
            ParamSpec::number("min_subcooling_f", 2.0, "°F", (0.0, 5.0),
                "below about 2 °F of subcooling an expansion valve is fed flash gas",
                "Only for units with no target (set a target where the nameplate gives one); below it is a low-charge warning."),
            ParamSpec::number("max_subcooling_f", 25.0, "°F", (15.0, 35.0),
                "no charging target sits near 25 °F of subcooling",
                "Only for units with no target; a unit designed for unusually high subcooling needs a target instead."),
        ],
        judged_basis: "cooling-mode samples (compressor running, supply air below return air)",
    }
}

/// What the rule needs: the point of the charge metric it judges (`metric`).
pub fn needs(spec: &RuleSpec, params: &Params) -> Needs {
    Needs { required: vec![metric_role(&params.choice(spec, "metric"))], ..Needs::default() }
}

/// Why the unit cannot be judged, as an info finding with the reason in its caveats.
fn declined(spec: &RuleSpec, why: &str, mut caveats: Vec<String>) -> Outcome {
    let mut f = Finding::not_judged(spec, why);
    caveats.append(&mut f.caveats);
    f.caveats = caveats;
    Outcome::Findings(vec![f])
}

/// Evaluate one equipment's frame against its target (or, with none, the universal limits).
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let metric = params.choice(spec, "metric");
    let values = frame.required(metric_role(&metric));
    let targets = params.map(spec, "targets");
    let target = targets.get(if metric == "superheat" { "superheat_f" } else { "subcooling_f" }).copied();
    if target.is_none() && metric == "superheat" {
        return declined(
            spec,
            "no target superheat for this unit (set targets from the nameplate, or compare with a fault-free period)",
            Vec::new(),
        );
    }
    if !has_run_gate(frame) {
        return declined(spec, dx::NO_RUN_GATE, Vec::new());
    }
    let cooling = cooling(frame);
    let (lo, hi) = dx::bounds(metric_role(&metric));
    let rows: Vec<u32> =
        (0..frame.len()).filter(|&i| cooling[i] && values[i] >= lo && values[i] <= hi).map(|i| i as u32).collect();
    let min_samples = params.number(spec, "min_samples");
    if (rows.len() as f64) < min_samples {
        return declined(
            spec,
            &format!("{} cooling-mode {metric} readings ({min_samples} needed)", rows.len()),
            Vec::new(),
        );
    }
    let med = median(&mut rows.iter().map(|&i| values[i as usize]).collect::<Vec<_>>());
    let mut metrics = BTreeMap::new();
    let mut caveats = Vec::new();
    metrics.insert(format!("{metric}_median_f"), round2(med));
    metrics.insert("n_cooling_rows".into(), rows.len() as f64);
    let (severity, verdict, summary) = match target {
        Some(t) => {
            let tol = targets.get("tolerance_f").copied().unwrap_or_else(|| params.number(spec, "tolerance_f"));
            let dev = med - t;
            let severity = if dev.abs() >= 2.0 * tol {
                Severity::Fault
            } else if dev.abs() >= tol {
                Severity::Warn
            } else {
                Severity::Ok
            };
            metrics.insert(format!("target_{metric}_f"), t);
            metrics.insert("tolerance_f".into(), tol);
            metrics.insert("deviation_f".into(), round2(dev));
            let verdict = (severity > Severity::Ok).then(|| low_charge(&metric, dev));
            let summary = match verdict {
                None => format!("{metric} median {med:.1} °F, within {tol} °F of its {t} °F target: the charge looks right"),
                Some(low) => format!(
                    "{metric} median {med:.1} °F against a {t} °F target ({dev:+.1} °F): {}? check the charge and the condenser coil",
                    if low { "low charge" } else { "overcharge" }
                ),
            };
            (severity, verdict, summary)
        }
        None => {
            let (min, max) = (params.number(spec, "min_subcooling_f"), params.number(spec, "max_subcooling_f"));
            caveats.push(format!("no target subcooling for this unit: judged only against the universal limits ({min}-{max} °F); set targets from the nameplate for a charge verdict"));
            metrics.insert("min_subcooling_f".into(), min);
            metrics.insert("max_subcooling_f".into(), max);
            if med < min {
                (Severity::Warn, Some(true), format!("liquid subcooling median only {med:.1} °F: the liquid line is barely subcooled and the valve sees flash gas (low charge or a liquid-line restriction)"))
            } else if med > max {
                (Severity::Warn, Some(false), format!("liquid subcooling median {med:.1} °F: liquid is backing up in the condenser (overcharge or a condenser-side problem)"))
            } else {
                (Severity::Ok, None, format!("liquid subcooling median {med:.1} °F, within the universal limits"))
            }
        }
    };
    metrics.insert("low_charge".into(), if verdict == Some(true) { 1.0 } else { 0.0 });
    if metric == "subcooling" {
        match frame.col("superheat_temp") {
            None => caveats.push("no superheat trended: a low-charge reading is not cross-checked".into()),
            Some(sh) => {
                let sh_med = median(&mut rows_of(&cooling, sh));
                if !sh_med.is_nan() {
                    metrics.insert("superheat_median_f".into(), round2(sh_med));
                    if let (Some(&t_sh), Some(true)) = (targets.get("superheat_f"), verdict) {
                        metrics.insert("target_superheat_f".into(), t_sh);
                        metrics.insert(
                            "superheat_corroborates".into(),
                            if sh_med - t_sh >= CORROBORATE_SH_F { 1.0 } else { 0.0 },
                        );
                    }
                }
            }
        }
    }
    let flagged = if severity > Severity::Ok { rows.clone() } else { Vec::new() };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(rows.len())])
}

/// The known values of `c` on the cooling rows.
fn rows_of(cooling: &[bool], c: &[f64]) -> Vec<f64> {
    c.iter().zip(cooling).filter(|(v, k)| **k && !v.is_nan()).map(|(v, _)| *v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H};

    /// Hourly samples of a running unit: subcooling `sc(i)`, superheat 10 °F, outdoor air
    /// swinging 75-95 °F, return air 75 °F and supply air 57 °F, the compressor on.
    fn frame(n: usize, sc: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        Frame::from_rows(
            &ts,
            &[
                ("subcooling_temp", (0..n).map(&sc).collect()),
                ("superheat_temp", vec![10.0; n]),
                ("oat", (0..n).map(|i| 85.0 + 10.0 * ((i % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()).collect()),
                ("return_air_temp", vec![75.0; n]),
                ("supply_air_temp", vec![57.0; n]),
                ("compressor_status", vec![1.0; n]),
            ],
        )
    }

    fn targets(t: &[f64]) -> Params {
        let mut p = Params::default();
        let named = ["subcooling_f", "superheat_f"].iter().zip(t).map(|(k, v)| (k.to_string(), *v)).collect();
        p.values.insert("targets".into(), ParamValue::Map(named));
        p
    }

    #[test]
    fn on_target_is_ok_and_far_below_it_is_a_low_charge_fault() {
        let ok = run(&RULE, &frame(48, |i| 10.0 + (i % 3) as f64 * 0.5), &targets(&[10.0]));
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert_eq!(ok.judged, 48);
        let low = run(&RULE, &frame(48, |_| 3.0), &targets(&[10.0, 6.0]));
        assert_eq!(low.severity, Severity::Fault);
        assert_eq!(low.metrics["low_charge"], 1.0);
        assert_eq!(low.metrics["superheat_corroborates"], 1.0, "10 °F superheat against a 6 °F target");
        assert!(low.summary.contains("low charge"), "{}", low.summary);
        let high = run(&RULE, &frame(48, |_| 17.0), &targets(&[10.0]));
        assert_eq!((high.severity, high.metrics["low_charge"]), (Severity::Fault, 0.0));
    }

    #[test]
    fn the_tolerance_boundaries() {
        let at = |v: f64| run(&RULE, &frame(48, move |_| v), &targets(&[10.0])).severity;
        assert_eq!(at(12.9), Severity::Ok);
        assert_eq!(at(13.0), Severity::Warn, "3 °F off is outside the tolerance");
        assert_eq!(at(15.9), Severity::Warn);
        assert_eq!(at(16.0), Severity::Fault, "twice the tolerance");
        assert_eq!(at(7.0), Severity::Warn);
    }

    #[test]
    fn without_a_target_only_the_universal_limits_apply() {
        let low = run(&RULE, &frame(48, |_| 1.5), &Params::default());
        assert_eq!((low.severity, low.metrics["low_charge"]), (Severity::Warn, 1.0));
        assert!(low.caveats.iter().any(|c| c.contains("universal limits")));
        assert_eq!(run(&RULE, &frame(48, |_| 2.0), &Params::default()).severity, Severity::Ok, "at the limit");
        assert_eq!(run(&RULE, &frame(48, |_| 25.5), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &frame(48, |_| 25.0), &Params::default()).severity, Severity::Ok);
        // a fixed-orifice unit with no target is not judged
        let mut p = Params::default();
        p.values.insert("metric".into(), ParamValue::Choice("superheat".into()));
        assert_eq!(run(&RULE, &frame(48, |_| 10.0), &p).severity, Severity::Info);
        // with one, a high superheat is a low charge
        p.values.insert("targets".into(), ParamValue::Map([("superheat_f".to_string(), 5.0)].into()));
        let r = run(&RULE, &frame(48, |_| 10.0), &p);
        assert_eq!((r.severity, r.metrics["low_charge"], r.metrics["deviation_f"]), (Severity::Warn, 1.0, 5.0));
    }

    #[test]
    fn only_cooling_operation_is_judged() {
        // off-cycle readings (compressor off) would read as a dead-flat, near-zero subcooling
        let mut f = frame(48, |i| if i % 2 == 0 { 10.0 } else { 0.0 });
        f.cols.insert("compressor_status".into(), (0..48).map(|i| if i % 2 == 0 { 1.0 } else { 0.0 }).collect());
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert_eq!((r.severity, r.judged), (Severity::Ok, 24));
        // without a compressor status the air split gates instead
        f.cols.remove("compressor_status");
        f.cols.insert("supply_air_temp".into(), (0..48).map(|i| if i % 2 == 0 { 57.0 } else { 76.0 }).collect());
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).judged, 24);
        // in heating (reversing valve on) nothing is judged
        f.cols.insert("reversing_valve_cmd".into(), vec![1.0; 48]);
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).severity, Severity::Info);
        // with no gate at all the unit is declined
        f.cols.remove("supply_air_temp");
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert!(r.summary.contains("compressor_status"), "{}", r.summary);
        // the compressor off throughout: too few readings
        let mut g = frame(48, |_| 10.0);
        g.cols.insert("compressor_status".into(), vec![0.0; 48]);
        assert_eq!(run(&RULE, &g, &targets(&[10.0])).severity, Severity::Info);
    }

    #[test]
    fn gaps_duplicates_disorder_irregular_and_missing() {
        // implausible readings and gaps are dropped; nine readings are too few, ten are enough
        let f = frame(10, |i| if i == 0 { 200.0 } else { 3.0 });
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).severity, Severity::Info);
        assert_eq!(run(&RULE, &frame(10, |_| 3.0), &targets(&[10.0])).severity, Severity::Fault);
        let gappy = frame(48, |i| if (10..30).contains(&i) { f64::NAN } else { 3.0 });
        assert_eq!(run(&RULE, &gappy, &targets(&[10.0])).judged, 28);
        // reversed and repeated rows, irregular spacing: the same median
        let ts: Vec<i64> = (0..30i64)
            .map(|i| i * i * 60_000_000_000)
            .rev()
            .chain((0..30i64).map(|i| i * i * 60_000_000_000))
            .collect();
        let v: Vec<f64> = (0..60).map(|i| 8.0 + (i % 30) as f64 * 0.1).collect();
        let f = Frame::from_rows(&ts, &[("subcooling_temp", v), ("compressor_status", vec![1.0; 60])]);
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert_eq!(r.judged, 30);
        assert_eq!(r.metrics["subcooling_median_f"], 9.45);
        assert!(r.caveats.iter().any(|c| c.contains("no superheat")));
        // missing the metric's point
        let mut g = frame(48, |_| 10.0);
        g.cols.remove("subcooling_temp");
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["subcooling_temp".into()] }
        );
        let mut p = Params::default();
        p.values.insert("metric".into(), ParamValue::Choice("superheat".into()));
        g.cols.remove("superheat_temp");
        assert_eq!(outcome(&RULE, &g, &p), Outcome::Skipped { missing: vec!["superheat_temp".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
    }
}
