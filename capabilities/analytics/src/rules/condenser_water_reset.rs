//! `condenser_water_reset`: the condenser-water supply temperature is held at a fixed setpoint
//! instead of following the wet bulb down, so the chillers keep a higher lift than the weather
//! allows. The slope of condenser-water supply against wet bulb (least squares, over samples
//! with both known and the tower running where its fan speed is trended) is the reset: a good
//! reset tracks the wet bulb nearly one for one; below `reset_slope_flat` it is flat.

use std::collections::BTreeMap;

use crate::engine::{round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity};
use crate::psychro::{site_params, site_wet_bulb};

/// Fewest samples, and the least wet-bulb spread (°F), a slope is fitted on.
const MIN_SAMPLES: usize = 24;
const MIN_WB_SPREAD_F: f64 = 5.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [elevation, pressure] = site_params();
    RuleSpec {
        id: "condenser_water_reset",
        families: &["chw_plant", "cooling_tower"],
        inputs: Inputs {
            required: &["cw_supply_temp"],
            optional: &["wetbulb_temp", "oat", "outdoor_rh", "cw_return_temp", "tower_fan_speed"],
            gating: &["wetbulb_temp", "oat+outdoor_rh"],
            one_of: &[],
            needs_gating: true,
        },
        params: vec![
            ParamSpec {
                name: "reset_slope_flat",
                default: ParamValue::Number(0.3),
                unit: "°F of condenser water per °F of wet bulb",
                range: Some((0.05, 0.8)),
                choices: &[],
                basis: "a reset that follows the wet bulb moves close to one for one; a third of that is a setpoint that barely moves",
                calibrate: "Fit the slope on a plant known to reset (or on its design reset schedule) and set this well below it.",
            },
            elevation,
            pressure,
            ParamSpec {
                name: "design_approach_f",
                default: ParamValue::Number(7.0),
                unit: "°F",
                range: Some((2.0, 15.0)),
                choices: &[],
                basis: "what the tower can reach above the wet bulb: the lowest condenser water a reset could ask for",
                calibrate: "Take it from the tower's selection; it sets the excess_over_reachable metric, not the verdict.",
            },
        ],
        judged_basis: "samples with condenser water and wet bulb known (tower running, where its fan speed is trended)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let cws = frame.required("cw_supply_temp");
    let (wb, derived, p_kpa) = site_wet_bulb(spec, frame, params);
    let fan = frame.col("tower_fan_speed");
    let pairs: Vec<(f64, f64)> = (0..frame.len())
        .filter(|&i| !cws[i].is_nan() && !wb[i].is_nan() && fan.is_none_or(|f| !f[i].is_nan() && f[i] > 0.0))
        .map(|i| (wb[i], cws[i]))
        .collect();
    let n = pairs.len();
    let wb_lo = pairs.iter().map(|p| p.0).fold(f64::INFINITY, crate::engine::min_of);
    let wb_hi = pairs.iter().map(|p| p.0).fold(f64::NEG_INFINITY, crate::engine::max_of);
    if n < MIN_SAMPLES || wb_hi - wb_lo < MIN_WB_SPREAD_F {
        let mut f = Finding::not_judged(spec, "too few samples, or too little wet-bulb change, to fit a reset");
        f.judged = n;
        return Outcome::Findings(vec![f]);
    }
    // the wet bulb spans at least MIN_WB_SPREAD_F here, so the fit exists
    let slope = crate::engine::least_squares(&pairs).map_or(f64::NAN, |l| l.0);
    let design = params.number(spec, "design_approach_f");
    let excess = pairs.iter().map(|p| (p.1 - (p.0 + design)).max(0.0)).sum::<f64>() / n as f64;
    // a hair of tolerance: a fitted slope of exactly the threshold is not flat
    let flat = slope + 1e-9 < params.number(spec, "reset_slope_flat");
    let mut metrics = BTreeMap::new();
    metrics.insert("reset_slope".into(), round2(slope));
    metrics.insert("excess_over_reachable_f".into(), round2(excess));
    metrics.insert("wet_bulb_span_f".into(), round2(wb_hi - wb_lo));
    let mut caveats = Vec::new();
    if derived {
        caveats.push(format!("the wet bulb is derived from outdoor temperature and humidity at {p_kpa:.1} kPa"));
    }
    Outcome::Findings(vec![Finding::new(spec, if flat { Severity::Warn } else { Severity::Ok }, if flat {
            format!("condenser water does not follow the wet bulb (slope {slope:.2}): no condenser-water reset; it averages {excess:.1} °F above what the tower could reach")
        } else {
            format!("condenser water follows the wet bulb (slope {slope:.2})")
        })
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_judged(n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H, MINUTE};

    fn frame(cws: impl Fn(f64) -> f64, fan: f64) -> Frame {
        let n = 96;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let wb: Vec<f64> = (0..n).map(|i| 60.0 + 15.0 * ((i % 24) as f64 / 23.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("cw_supply_temp", wb.iter().map(|w| cws(*w)).collect()),
                ("wetbulb_temp", wb),
                ("tower_fan_speed", vec![fan; n]),
            ],
        )
    }

    use crate::engine::Severity;

    #[test]
    fn a_reset_is_ok_and_a_fixed_setpoint_warns() {
        let r = run(&RULE, &frame(|w| w + 7.0, 60.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert_eq!(r.metrics["reset_slope"], 1.0);
        let r = run(&RULE, &frame(|_| 85.0, 60.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.metrics["excess_over_reachable_f"] > 5.0);
    }

    #[test]
    fn the_slope_boundary() {
        assert_eq!(run(&RULE, &frame(|w| 70.0 + 0.3 * w, 60.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(|w| 70.0 + 0.29 * w, 60.0), &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn tower_off_and_too_little_weather_are_not_judged() {
        assert_eq!(run(&RULE, &frame(|_| 85.0, 0.0), &Params::default()).severity, Severity::Info);
        let ts: Vec<i64> = (0..48).map(|i| i * H).collect();
        let f = Frame::from_rows(&ts, &[("cw_supply_temp", vec![85.0; 48]), ("wetbulb_temp", vec![70.0; 48])]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Info);
    }

    /// `base`'s rows with `keep` selecting them, in the order given (repeats allowed).
    fn rows(base: &Frame, keep: &[usize]) -> Frame {
        Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn duplicates_disorder_and_a_gap_give_the_same_fit() {
        for cws in [&(|w: f64| w + 7.0) as &dyn Fn(f64) -> f64, &|_| 85.0, &|w| 70.0 + 0.2 * w] {
            let base = frame(cws, 60.0);
            // every row twice, newest first, then interleaved (97 is coprime with 192)
            let order: Vec<usize> =
                (0..192).map(|i| (i * 97) % 192).map(|j| if j < 96 { 95 - j } else { j - 96 }).collect();
            let messy = rows(&base, &order);
            assert_eq!(messy.ts, base.ts);
            let (a, b) = (run(&RULE, &messy, &Params::default()), run(&RULE, &base, &Params::default()));
            assert_eq!((a.severity, &a.metrics, a.judged), (b.severity, &b.metrics, b.judged));
            assert_eq!(b.judged, 96);
        }
        // a day and a half missing from the middle: the same slope on what is left
        let keep: Vec<usize> = (0..96).filter(|i| !(30..66).contains(i)).collect();
        let ok = run(&RULE, &rows(&frame(|w| w + 7.0, 60.0), &keep), &Params::default());
        assert_eq!((ok.severity, ok.judged, ok.metrics["reset_slope"]), (Severity::Ok, 60, 1.0));
        let flat = run(&RULE, &rows(&frame(|_| 85.0, 60.0), &keep), &Params::default());
        assert_eq!((flat.severity, flat.judged), (Severity::Warn, 60));
    }
    /// The step (minutes) after the k-th sample of an uneven trend: 17 minutes mostly, with
    /// 1- and 5-minute steps between.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// Four days at uneven steps, the wet bulb climbing from 60 to 75 °F each day.
    fn uneven(cws: impl Fn(f64) -> f64, fan: impl Fn(usize) -> f64) -> Frame {
        let mut ts = vec![0i64];
        while *ts.last().unwrap() < 4 * 24 * H {
            let k = ts.len() - 1;
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let n = ts.len();
        let wb: Vec<f64> = ts.iter().map(|&t| 60.0 + 15.0 * (t % (24 * H)) as f64 / (24 * H) as f64).collect();
        Frame::from_rows(
            &ts,
            &[
                ("cw_supply_temp", wb.iter().map(|w| cws(*w)).collect()),
                ("wetbulb_temp", wb),
                ("tower_fan_speed", (0..n).map(fan).collect()),
            ],
        )
    }

    #[test]
    fn irregular_sampling() {
        let r = run(&RULE, &uneven(|w| w + 7.0, |_| 60.0), &Params::default());
        assert_eq!((r.severity, r.metrics["reset_slope"]), (Severity::Ok, 1.0), "{}", r.summary);
        let n = r.judged;
        assert!(n > 500, "{n}");
        let r = run(&RULE, &uneven(|_| 85.0, |_| 60.0), &Params::default());
        assert_eq!((r.severity, r.metrics["reset_slope"]), (Severity::Warn, 0.0));
        // the tower off on the densely logged samples: those are not judged, the fit is unchanged
        let r = run(&RULE, &uneven(|w| w + 7.0, |k| if STEPS[k % 5] < 17 { 0.0 } else { 60.0 }), &Params::default());
        assert_eq!((r.severity, r.metrics["reset_slope"]), (Severity::Ok, 1.0));
        assert!(r.judged < n * 2 / 3, "{} of {n}", r.judged);
        // just either side of reset_slope_flat at uneven steps
        assert_eq!(run(&RULE, &uneven(|w| 70.0 + 0.3 * w, |_| 60.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &uneven(|w| 70.0 + 0.29 * w, |_| 60.0), &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn gaps_duplicates_and_missing_inputs() {
        let mut f = frame(|w| w + 7.0, 60.0);
        // a duplicate timestamp and a gap leave the fit intact
        f.ts.truncate(48);
        for c in f.cols.values_mut() {
            c.truncate(48);
        }
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        let g = Frame::from_rows(&[0, H], &[("cw_supply_temp", vec![80.0, 81.0])]);
        assert!(matches!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { .. }));
    }
}
