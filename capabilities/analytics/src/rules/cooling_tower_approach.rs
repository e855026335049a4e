//! `cooling_tower_approach`: the tower's leaving water is far above the wet-bulb temperature
//! while the tower works at full effort, so its heat transfer has degraded (fouled fill, poor
//! water distribution, a fan or damper fault). Judged on samples with the tower fan at or above
//! `min_effort_pct` (every sample with both temperatures when no fan speed is trended), on the
//! median approach: warning at 1.3 and fault at 1.7 times the design approach. The wet bulb is
//! the trended point, else derived from outdoor temperature and humidity at the site's pressure.
//!
//! The approach narrows as the range does, so a degraded tower at part load can show a normal
//! approach. Given the tower's design point (`design_range_f` and `design_wetbulb_f`, beside
//! `design_approach_f`) and its entering water, the rule also judges its capability: the
//! Merkel number each full-effort sample shows against the design point's at the same
//! water-to-air ratio (a property of the fill, the same in any weather for a healthy tower),
//! warning below 0.90 and faulting below 0.75 of it on the median.

use std::collections::BTreeMap;

use crate::engine::{round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity};
use crate::psychro::{merkel_number, site_params, site_wet_bulb};

/// Median approach over design that warns, and that faults.
const WARN_RATIO: f64 = 1.3;
const FAULT_RATIO: f64 = 1.7;

/// Median capability (Merkel number over the design point's) that warns, and that faults.
const CAPABILITY_WARN: f64 = 0.90;
const CAPABILITY_FAULT: f64 = 0.75;
/// A sample's range (°F) below which its Merkel number is mostly sensor error.
const CAPABILITY_MIN_RANGE_F: f64 = 3.0;
/// Samples the capability needs before it decides anything.
const CAPABILITY_MIN_SAMPLES: usize = 12;
/// How a fill's Merkel number falls as its water-to-air ratio rises (KaV/L ~ (L/G)^-n; CTI's
/// typical exponent).
const FILL_EXPONENT: f64 = 0.6;
/// kPa per psi.
const KPA_PER_PSI: f64 = 6.894_757;

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
            optional: &["wetbulb_temp", "oat", "outdoor_rh", "tower_fan_speed", "cw_return_temp", "cw_flow"],
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
            ParamSpec {
                name: "design_range_f",
                default: ParamValue::Number(f64::NAN),
                unit: "°F",
                range: Some((3.0, 30.0)),
                choices: &[],
                basis: "unset: the tower's design point is unknown and only its approach is judged",
                calibrate: "Take the design range (entering minus leaving water at design) from the tower's selection sheet; with design_wetbulb_f it lets the rule judge the tower's capability.",
            },
            ParamSpec {
                name: "design_wetbulb_f",
                default: ParamValue::Number(f64::NAN),
                unit: "°F",
                range: Some((50.0, 90.0)),
                choices: &[],
                basis: "unset: the tower's design point is unknown and only its approach is judged",
                calibrate: "Take the design entering wet bulb from the tower's selection sheet.",
            },
            ParamSpec {
                name: "design_lg",
                default: ParamValue::Number(1.0),
                unit: "lb water / lb air",
                range: Some((0.5, 2.0)),
                choices: &[],
                basis: "a typical selection; the capability ratio moves little with it (a few percent from 0.7 to 1.3)",
                calibrate: "Take the design L/G from the tower's selection sheet when it is given.",
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
    let by_approach = if median + EPS >= FAULT_RATIO * design {
        Severity::Fault
    } else if median + EPS >= WARN_RATIO * design {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut high: Vec<u32> =
        idx.iter().zip(&approaches).filter(|(_, a)| **a + EPS >= WARN_RATIO * design).map(|(i, _)| *i).collect();
    let mut metrics = BTreeMap::new();
    metrics.insert("median_approach_f".into(), round2(median));
    metrics.insert("design_approach_f".into(), design);
    metrics.insert("judged_samples".into(), n as f64);
    let mut caveats = Vec::new();
    let mut severity = by_approach;
    let mut summary = format!("the tower's median approach is {median:.1} °F against a design of {design} °F");
    match capability(spec, frame, params, &idx, &wbs, p_kpa / KPA_PER_PSI) {
        Capability::NotGiven => {}
        Capability::Unjudged(why) => caveats.push(format!("the tower's capability is not judged: {why}")),
        Capability::Judged { ratio, samples, low } => {
            let by_capability = if ratio < CAPABILITY_FAULT {
                Severity::Fault
            } else if ratio < CAPABILITY_WARN {
                Severity::Warn
            } else {
                Severity::Ok
            };
            metrics.insert("capability_ratio".into(), round2(ratio));
            metrics.insert("capability_samples".into(), samples as f64);
            caveats.push("the capability is the Merkel number (CTI ATC-105) of each full-effort sample over the design point's at the same water-to-air ratio, taken from design_lg, the water flow against its own peak and the fan speed".into());
            summary.push_str(&format!(
                "; its fill delivers {:.0} % of its design capability (Merkel number, median of {samples} samples)",
                100.0 * ratio
            ));
            if by_capability > severity {
                severity = by_capability;
                high = low;
            }
        }
    }
    if derived {
        caveats.push(format!("the wet bulb is derived from outdoor temperature and humidity at {:.1} kPa", p_kpa));
    }
    if fan.is_none() {
        caveats.push("no tower fan speed: every sample was judged, whatever the tower's effort".into());
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(high)
        .with_judged(n)])
}

/// What the design point says of the tower's capability.
enum Capability {
    /// No design point configured.
    NotGiven,
    /// A design point, but the trends cannot judge against it (why).
    Unjudged(String),
    /// The median Merkel number over the design point's, on `samples`; `low` the samples
    /// below the warning.
    Judged { ratio: f64, samples: usize, low: Vec<u32> },
}

/// The capability of the tower on the full-effort samples `idx` (wet bulbs `wbs`).
fn capability(spec: &RuleSpec, frame: &Frame, params: &Params, idx: &[u32], wbs: &[f64], p_psia: f64) -> Capability {
    let (range_d, wb_d) = (params.number(spec, "design_range_f"), params.number(spec, "design_wetbulb_f"));
    if range_d.is_nan() || wb_d.is_nan() {
        return Capability::NotGiven;
    }
    let Some(cwr) = frame.col("cw_return_temp") else {
        return Capability::Unjudged("no entering-water temperature (cw_return_temp) is trended".into());
    };
    let cws = frame.required("cw_supply_temp");
    let (approach_d, lg_d) = (params.number(spec, "design_approach_f"), params.number(spec, "design_lg"));
    let design = merkel_number(wb_d + approach_d + range_d, wb_d + approach_d, wb_d, lg_d, p_psia);
    if design.is_nan() {
        return Capability::Unjudged(
            "the design point is not a feasible tower (its approach is too close for its L/G)".into(),
        );
    }
    // the water flow against the tower's own peak (its design flow, near enough), when trended
    let flow = frame.col("cw_flow");
    let peak = flow.map(|f| {
        let mut running: Vec<f64> = idx.iter().map(|&i| f[i as usize]).filter(|v| v.is_finite() && *v > 0.0).collect();
        running.sort_by(f64::total_cmp);
        crate::economizer::percentile(&running, 98.0)
    });
    let fan = frame.col("tower_fan_speed");
    let mut ratios = Vec::new();
    let mut low = Vec::new();
    for &i in idx {
        let i = i as usize;
        if cwr[i].is_nan() || cwr[i] - cws[i] < CAPABILITY_MIN_RANGE_F {
            continue;
        }
        let water = match (flow, peak) {
            (Some(f), Some(p)) if p > 0.0 => f[i] / p,
            _ => 1.0,
        };
        let air = fan.map_or(1.0, |f| f[i] / 100.0);
        if !(water > 0.0 && air > 0.0) {
            continue;
        }
        let lg = lg_d * water / air;
        let k = merkel_number(cwr[i], cws[i], wbs[i], lg, p_psia);
        if k.is_nan() {
            continue;
        }
        let ratio = k / (design * (lg / lg_d).powf(-FILL_EXPONENT));
        if ratio < CAPABILITY_WARN {
            low.push(i as u32);
        }
        ratios.push(ratio);
    }
    if ratios.len() < CAPABILITY_MIN_SAMPLES {
        return Capability::Unjudged(format!(
            "{} full-effort samples with a range of {CAPABILITY_MIN_RANGE_F} °F or more, {CAPABILITY_MIN_SAMPLES} needed",
            ratios.len()
        ));
    }
    let samples = ratios.len();
    Capability::Judged { ratio: crate::engine::median(&mut ratios), samples, low }
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

    /// The leaving water of a tower whose fill gives `capability` times the design Merkel
    /// number (10 °F range and approach at 68 °F wet bulb, L/G 1) at wet bulb `wb` and range
    /// `range`, at full fan and design flow: found by bisection on the approach.
    fn leaving(capability: f64, wb: f64, range: f64) -> f64 {
        let p = crate::psychro::SEA_LEVEL_PSIA;
        let target = capability * merkel_number(88.0, 78.0, 68.0, 1.0, p);
        let (mut lo, mut hi) = (wb + 0.01, wb + 40.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let k = merkel_number(mid + range, mid, wb, 1.0, p);
            // a closer approach needs more fill: too much fill means move the water warmer
            if k.is_nan() || k > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// A month of full-fan hours at a July-like wet bulb and part-load range (6-8 °F), with
    /// a fill of `capability`.
    fn tower(capability: f64) -> Frame {
        let n = 240;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let wb: Vec<f64> = (0..n).map(|i| 57.0 + 3.0 * ((i as f64) * 0.26).sin()).collect();
        let range: Vec<f64> = (0..n).map(|i| 7.0 + ((i as f64) * 0.7).cos()).collect();
        let cws: Vec<f64> = (0..n).map(|i| leaving(capability, wb[i], range[i])).collect();
        let cwr: Vec<f64> = (0..n).map(|i| cws[i] + range[i]).collect();
        Frame::from_rows(
            &ts,
            &[
                ("cw_supply_temp", cws),
                ("cw_return_temp", cwr),
                ("wetbulb_temp", wb),
                ("tower_fan_speed", vec![100.0; n]),
            ],
        )
    }

    fn design_point() -> Params {
        numbers(&[("design_approach_f", 10.0), ("design_range_f", 10.0), ("design_wetbulb_f", 68.0)])
    }

    #[test]
    fn a_degraded_fill_at_part_load_is_found_by_its_capability() {
        // at part load the degraded tower's approach stays under 1.3 x design: only its
        // capability shows it
        let sick = tower(0.8);
        let approach_only = run(&RULE, &sick, &numbers(&[("design_approach_f", 10.0)]));
        assert_eq!(approach_only.severity, Severity::Ok, "{}", approach_only.summary);
        let r = run(&RULE, &sick, &design_point());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!((r.metrics["capability_ratio"] - 0.8).abs() < 0.02, "{:?}", r.metrics);
        assert!(!r.flagged.is_empty());
        // a fill at 70 % is a fault
        assert_eq!(run(&RULE, &tower(0.7), &design_point()).severity, Severity::Fault);
        // the healthy tower in the same weather reads its design capability
        let ok = run(&RULE, &tower(1.0), &design_point());
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert!((ok.metrics["capability_ratio"] - 1.0).abs() < 0.02, "{:?}", ok.metrics);
    }

    #[test]
    fn the_capability_needs_the_entering_water_and_enough_range() {
        let mut f = tower(0.8);
        f.cols.remove("cw_return_temp");
        let r = run(&RULE, &f, &design_point());
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats.iter().any(|c| c.contains("no entering-water temperature")), "{:?}", r.caveats);
        // a range under 3 °F is sensor error more than heat rejected
        let mut f = tower(0.8);
        let cws = f.cols["cw_supply_temp"].clone();
        f.cols.insert("cw_return_temp".into(), cws.iter().map(|c| c + 2.0).collect());
        let r = run(&RULE, &f, &design_point());
        assert!(!r.metrics.contains_key("capability_ratio"), "{:?}", r.metrics);
        assert!(r.caveats.iter().any(|c| c.contains("12 needed")), "{:?}", r.caveats);
    }
}
