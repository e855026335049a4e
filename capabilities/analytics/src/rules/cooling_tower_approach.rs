//! `cooling_tower_approach`: the tower's leaving water is far above the wet-bulb temperature
//! while the tower works at full effort, so its heat transfer has degraded (fouled fill, poor
//! water distribution, a fan or damper fault). Judged on samples with the tower fan at or above
//! `min_effort_pct` (every sample with both temperatures when no fan speed is trended), on the
//! median approach: warning at 1.3 and fault at 1.7 times the design approach. The wet bulb is
//! the trended point, else derived from outdoor temperature and humidity at the site's pressure.

use std::collections::BTreeMap;

use crate::engine::{round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity};
use crate::psychro::{site_params, site_wet_bulb};

/// Median approach over design that warns, and that faults.
const WARN_RATIO: f64 = 1.3;
const FAULT_RATIO: f64 = 1.7;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [elevation, pressure] = site_params();
    RuleSpec {
        id: "cooling_tower_approach",
        families: &["chw_plant", "cooling_tower"],
        inputs: Inputs {
            required: &["cw_supply_temp"],
            optional: &["wetbulb_temp", "oat", "outdoor_rh", "tower_fan_speed"],
            gating: &["wetbulb_temp", "oat+outdoor_rh"],
            one_of: &[],
            needs_gating: true,
        },
        params: vec![
            ParamSpec {
                name: "design_approach_f",
                default: ParamValue::Number(7.0),
                unit: "°F",
                range: Some((2.0, 15.0)),
                choices: &[],
                basis: "a typical selection for an open tower at design wet bulb",
                calibrate: "Take the design approach from the tower's selection sheet or schedule.",
            },
            ParamSpec {
                name: "min_effort_pct",
                default: ParamValue::Number(90.0),
                unit: "% tower fan speed",
                range: Some((50.0, 100.0)),
                choices: &[],
                basis: "only at full fan effort is a wide approach the tower's fault rather than its control choosing warmer water",
                calibrate: "Lower it when the towers rarely reach full speed; the approach at part speed reads wider than at design.",
            },
            elevation,
            pressure,
        ],
        judged_basis: "samples with the tower fan at full effort",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let cws = frame.required("cw_supply_temp");
    let (wbs, derived, p_kpa) = site_wet_bulb(spec, frame, params);
    let fan = frame.col("tower_fan_speed");
    let effort = params.number(spec, "min_effort_pct");
    let design = params.number(spec, "design_approach_f");
    let mut approaches = Vec::new();
    let mut idx = Vec::new();
    for i in 0..frame.len() {
        if cws[i].is_nan() || fan.is_some_and(|f| f[i].is_nan() || f[i] < effort) {
            continue;
        }
        let wb = wbs[i];
        if wb.is_nan() {
            continue;
        }
        approaches.push(cws[i] - wb);
        idx.push(i as u32);
    }
    if approaches.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "the tower never ran at full effort with a wet bulb known",
        )]);
    }
    let n = approaches.len();
    let median = crate::engine::median(&mut approaches.clone());
    // a hair of tolerance: temperatures are decimals stored in binary
    const EPS: f64 = 1e-9;
    let severity = if median + EPS >= FAULT_RATIO * design {
        Severity::Fault
    } else if median + EPS >= WARN_RATIO * design {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let high: Vec<u32> =
        idx.iter().zip(&approaches).filter(|(_, a)| **a + EPS >= WARN_RATIO * design).map(|(i, _)| *i).collect();
    let mut metrics = BTreeMap::new();
    metrics.insert("median_approach_f".into(), round2(median));
    metrics.insert("design_approach_f".into(), design);
    metrics.insert("judged_samples".into(), n as f64);
    let mut caveats = Vec::new();
    if derived {
        caveats.push(format!("the wet bulb is derived from outdoor temperature and humidity at {:.1} kPa", p_kpa));
    }
    if fan.is_none() {
        caveats.push("no tower fan speed: every sample was judged, whatever the tower's effort".into());
    }
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!("the tower's median approach is {median:.1} °F against a design of {design} °F"),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(high)
    .with_judged(n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{numbers, outcome, run, H, MINUTE};
    use crate::psychro::wet_bulb_f;

    fn frame(approach: impl Fn(usize) -> f64, fan: f64) -> Frame {
        let n = 100;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let wb: Vec<f64> = (0..n).map(|i| 70.0 + (i % 5) as f64).collect();
        let cws: Vec<f64> = (0..n).map(|i| wb[i] + approach(i)).collect();
        Frame::from_rows(&ts, &[("cw_supply_temp", cws), ("wetbulb_temp", wb), ("tower_fan_speed", vec![fan; n])])
    }

    #[test]
    fn a_clean_tower_is_ok_and_a_fouled_one_is_a_fault() {
        assert_eq!(run(&RULE, &frame(|_| 6.0, 100.0), &Params::default()).severity, Severity::Ok);
        let r = run(&RULE, &frame(|_| 13.0, 100.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["median_approach_f"], 13.0);
    }

    #[test]
    fn the_ratio_boundaries() {
        // 1.3 x 7 = 9.1 warns; just under does not
        assert_eq!(run(&RULE, &frame(|_| 9.1, 100.0), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &frame(|_| 9.09, 100.0), &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn part_effort_is_not_judged() {
        let r = run(&RULE, &frame(|_| 13.0, 50.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
    }

    #[test]
    fn the_threshold_boundaries() {
        // the fault at 1.7 x design_approach_f (7 °F): 11.9 °F is a fault, just under a warning
        assert_eq!(run(&RULE, &frame(|_| 11.9, 100.0), &Params::default()).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(|_| 11.89, 100.0), &Params::default()).severity, Severity::Warn);
        // both levels follow design_approach_f: 6.5 and 8.5 °F for a 5 °F design
        let design = [("design_approach_f", 5.0)];
        assert_eq!(run(&RULE, &frame(|_| 6.49, 100.0), &numbers(&design)).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(|_| 6.5, 100.0), &numbers(&design)).severity, Severity::Warn);
        assert_eq!(run(&RULE, &frame(|_| 8.49, 100.0), &numbers(&design)).severity, Severity::Warn);
        let f = run(&RULE, &frame(|_| 8.5, 100.0), &numbers(&design));
        assert_eq!((f.severity, f.metrics["design_approach_f"], f.flagged.len()), (Severity::Fault, 5.0, 100));
        // min_effort_pct (90 %): a fan at it is judged, just below it is not
        assert_eq!(run(&RULE, &frame(|_| 13.0, 90.0), &Params::default()).judged, 100);
        assert_eq!(run(&RULE, &frame(|_| 13.0, 89.9), &Params::default()).judged, 0);
        assert_eq!(run(&RULE, &frame(|_| 13.0, 70.0), &numbers(&[("min_effort_pct", 70.0)])).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(|_| 13.0, 69.9), &numbers(&[("min_effort_pct", 70.0)])).severity, Severity::Info);
    }

    #[test]
    fn a_stopped_tower_is_not_judged() {
        // the tower off on every other hour, its basin water far above the wet bulb; running at
        // full speed otherwise with a clean 6 °F approach
        let mut f = frame(|i| if i % 2 == 0 { 20.0 } else { 6.0 }, 100.0);
        f.cols.insert("tower_fan_speed".into(), (0..100).map(|i| if i % 2 == 0 { 0.0 } else { 100.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["median_approach_f"]), (Severity::Ok, 50, 6.0), "{}", r.summary);
        assert!(r.flagged.is_empty(), "no stopped sample is flagged");
        // an unknown fan speed is not judged either
        f.cols.get_mut("tower_fan_speed").unwrap()[1] = f64::NAN;
        assert_eq!(run(&RULE, &f, &Params::default()).judged, 49);
        // without the fan speed the stopped hours would be judged, and fault the tower
        f.cols.remove("tower_fan_speed");
        let ungated = run(&RULE, &f, &Params::default());
        assert_eq!((ungated.severity, ungated.judged), (Severity::Fault, 100));
        assert!(ungated.caveats.iter().any(|c| c.contains("no tower fan speed")), "{:?}", ungated.caveats);
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// `frame`'s signals on 200 samples at uneven steps.
    fn uneven(approach: impl Fn(usize) -> f64) -> Frame {
        let n = 200;
        let mut ts = vec![0i64];
        for k in 0..n - 1 {
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let wb: Vec<f64> = (0..n).map(|i| 70.0 + (i % 7) as f64).collect();
        let cws: Vec<f64> = (0..n).map(|i| wb[i] + approach(i)).collect();
        Frame::from_rows(&ts, &[("cw_supply_temp", cws), ("wetbulb_temp", wb), ("tower_fan_speed", vec![100.0; n])])
    }

    #[test]
    fn irregular_sampling() {
        let clean = run(&RULE, &uneven(|_| 6.0), &Params::default());
        assert_eq!((clean.severity, clean.judged), (Severity::Ok, 200));
        let fouled = run(&RULE, &uneven(|_| 13.0), &Params::default());
        assert_eq!((fouled.severity, fouled.metrics["median_approach_f"]), (Severity::Fault, 13.0));
        // a wide approach on the densely logged samples only (2 in 5, 6 of every 57 minutes)
        // does not decide the median; those samples are still flagged
        let r = run(&RULE, &uneven(|k| if STEPS[k % 5] < 17 { 13.0 } else { 6.0 }), &Params::default());
        assert_eq!((r.severity, r.metrics["median_approach_f"], r.flagged.len()), (Severity::Ok, 6.0, 80));
        // and a wide approach on the sparse samples (3 in 5, 51 of every 57 minutes) does
        let r = run(&RULE, &uneven(|k| if STEPS[k % 5] == 17 { 13.0 } else { 6.0 }), &Params::default());
        assert_eq!((r.severity, r.metrics["median_approach_f"]), (Severity::Fault, 13.0));
    }

    #[test]
    fn a_derived_wet_bulb() {
        let wb = wet_bulb_f(86.0, 50.0, 101.325);
        let ts: Vec<i64> = (0..10).map(|i| i * H).collect();
        let f = Frame::from_rows(
            &ts,
            &[("cw_supply_temp", vec![wb + 5.0; 10]), ("oat", vec![86.0; 10]), ("outdoor_rh", vec![50.0; 10])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert_eq!(r.caveats.len(), 2);
    }

    #[test]
    fn gaps_duplicates_and_missing_inputs() {
        let f = Frame::from_rows(
            &[2 * H, 0, H, H, 50 * H],
            &[("cw_supply_temp", vec![80.0, 80.0, 95.0, 80.0, 80.0]), ("wetbulb_temp", vec![74.0; 5])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.judged, 4);
        assert_eq!(r.metrics["median_approach_f"], 6.0);
        let f = Frame::from_rows(&[0, H], &[("cw_supply_temp", vec![80.0, 81.0]), ("oat", vec![80.0, 81.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["wetbulb_temp, or oat and outdoor_rh".into()] }
        );
    }
}
