//! `supply_air_reset`: supply air held cold whatever the load, so the zones reheat. A cooling
//! supply-air reset (Guideline 36 §5.16.2.2) lowers the supply air as the outdoor air warms and
//! as zones ask for cooling, so the reset shows as supply air falling against outdoor air. The
//! rule fits supply air on outdoor air over occupied, fan-on cooling samples: a clear negative
//! slope is a reset; flat supply air that is mostly below 58 °F is the fault (warn); supply
//! air that rises with outdoor air is load outrunning the coil, not a reset. A trended setpoint
//! can only take a reset away: one that is flat or only stepped means no reset was programmed,
//! and one that does not move with its driver leaves the reset unconfirmed.

use std::collections::BTreeMap;

use crate::engine::{
    assumed_occupied, fan_on, least_squares, median, on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec,
    Params, Rule, RuleSpec, Severity,
};
use crate::setpoint::{self, Kind};

/// Supply air below this (°F) is cold: the precondition for reheat.
const LOW_SAT_F: f64 = 58.0;
/// |slope| of supply air on outdoor air (°F/°F) under which there is no reset.
const SLOPE_FLAT: f64 = 0.10;
/// A cooling valve above this (%) marks a cooling sample.
const VALVE_OPEN_PCT: f64 = 5.0;
/// Fewest judged samples, and fewest pairs for the fit.
const MIN_SAMPLES: usize = 10;
/// A setpoint reset spans at least this much (°F) and moves this much within a day (°F).
const SP_MIN_RANGE_F: f64 = 2.0;
const SP_MOVE_MIN_F: f64 = 0.5;
/// Supply air this far (°F, on average) off a flat setpoint deviates from it.
const SP_DEVIATION_F: f64 = 2.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "supply_air_reset",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["supply_air_temp"],
            optional: &[
                "cool_valve",
                "oat",
                "occupancy",
                "warmup",
                "cooldown",
                "supply_fan_status",
                "supply_fan_speed",
                "airflow",
                "supply_air_temp_sp",
                "sat_reset_requests",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![ParamSpec::flag(
                "fan_gate",
                true,
                "with the fan stopped the supply sensor reads still plenum air, which says nothing about a reset",
                "Keep it on; turn it off only when the fan signal is known wrong and every trended sample is a running one.",
            )],
        judged_basis: "occupied fan-on cooling samples",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let sat = frame.required("supply_air_temp");
    let gate = params.flag(spec, "fan_gate").unwrap_or(true);
    let fan: Option<Vec<Option<bool>>> = if gate { fan_on(frame).map(|(v, _)| v) } else { None };
    let running = |i: usize| fan.as_ref().is_none_or(|f| f[i] == Some(true));
    let occ = frame.col("occupancy").filter(|o| o.iter().any(|v| !v.is_nan()));
    let (warmup, cooldown) = (frame.col("warmup"), frame.col("cooldown"));
    let valve = frame.col("cool_valve");
    let oat = frame.col("oat");
    let plausible = |v: f64| v > 40.0 && v < 90.0;
    let cooling = |i: usize| valve.is_none_or(|v| v[i] > VALVE_OPEN_PCT);
    let judged: Vec<usize> = crate::engine::rows_where(frame.len(), |i| {
        let occupied = match occ {
            Some(o) => on(o[i]),
            None => assumed_occupied(frame.ts[i]),
        } && !warmup.is_some_and(|w| on(w[i]))
            && !cooldown.is_some_and(|c| on(c[i]));
        occupied && running(i) && cooling(i) && plausible(sat[i])
    });
    if judged.len() < MIN_SAMPLES {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            &format!("{} occupied fan-on cooling samples of supply air ({MIN_SAMPLES} needed)", judged.len()),
        )]);
    }
    let w = frame.weights_hours();
    let judged_h: f64 = judged.iter().map(|&i| w[i]).sum();
    let low: Vec<u32> = judged.iter().filter(|&&i| sat[i] < LOW_SAT_F).map(|&i| i as u32).collect();
    let low_h: f64 = low.iter().map(|&i| w[i as usize]).sum::<f64>() + 0.0;
    let pct_low = 100.0 * low_h / judged_h;
    let values: Vec<f64> = judged.iter().map(|&i| sat[i]).collect();
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let std = (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)).sqrt();
    let sat_median = median(&mut values.clone());
    let fit = oat.and_then(|o| {
        let pairs: Vec<(f64, f64)> = judged.iter().filter(|&&i| !o[i].is_nan()).map(|&i| (o[i], sat[i])).collect();
        if pairs.len() < MIN_SAMPLES {
            None
        } else {
            least_squares(&pairs)
        }
    });
    let slope = fit.map(|f| f.0);
    let direction = slope.map(|s| {
        if s.abs() < SLOPE_FLAT {
            "flat"
        } else if s < 0.0 {
            "reset"
        } else {
            "rising_with_load"
        }
    });

    let mut caveats = Vec::new();
    let mut metrics = BTreeMap::new();
    let mut notes = Vec::new();
    let mut resetting = direction == Some("reset");
    let mut unconfirmed = false;
    let mut sp_judged = false;
    if let Some(sp_col) = frame.col("supply_air_temp_sp") {
        let keep: Vec<usize> = (0..frame.len()).filter(|&i| running(i) && plausible(sp_col[i])).collect();
        let ts: Vec<i64> = keep.iter().map(|&i| frame.ts[i]).collect();
        let sp: Vec<f64> = keep.iter().map(|&i| sp_col[i]).collect();
        let driver = [("SAT reset requests", frame.col("sat_reset_requests")), ("outdoor air", oat)]
            .into_iter()
            .find_map(|(name, c)| {
                c.filter(|c| c.iter().any(|v| !v.is_nan()))
                    .map(|c| (name, keep.iter().map(|&i| c[i]).collect::<Vec<f64>>()))
            });
        let sp_w: Vec<f64> = keep.iter().map(|&i| w[i]).collect();
        let b = setpoint::classify(
            &ts,
            &sp,
            &sp_w,
            driver.as_ref().map(|(n, d)| (*n, d.as_slice())),
            SP_MIN_RANGE_F,
            SP_MOVE_MIN_F,
            "°F",
        );
        // the mean deviation summed in one loop, in sample order (a filtered list collected
        // first cost the sandbox a call per kept sample)
        let (mut dev_sum, mut dev_n) = (0.0f64, 0usize);
        for i in 0..frame.len() {
            if running(i) && cooling(i) && plausible(sat[i]) && plausible(sp_col[i]) {
                dev_sum += sat[i] - sp_col[i];
                dev_n += 1;
            }
        }
        let mean_dev = (dev_n > 0).then(|| dev_sum / dev_n as f64);
        metrics.insert("sp_range_f".into(), round2(b.range));
        metrics.insert("sp_moving_days".into(), b.moving_days as f64);
        metrics.insert("sp_days".into(), b.days as f64);
        if let Some(r) = b.rho {
            metrics.insert("sp_driver_rho".into(), round2(r));
        }
        if let Some(d) = mean_dev {
            metrics.insert("sat_minus_sp_mean_f".into(), round2(d));
        }
        sp_judged = b.kind != Kind::Insufficient;
        match b.kind {
            Kind::Flat | Kind::Step => {
                resetting = false;
                let mut note = format!("not reset: the setpoint is {}", b.label);
                let off = mean_dev.is_some_and(|d| d.abs() >= SP_DEVIATION_F);
                let rises = slope.is_some_and(|s| s > SLOPE_FLAT);
                if off || rises {
                    let mut how = Vec::new();
                    if let Some(d) = mean_dev.filter(|_| off) {
                        how.push(format!("{d:+.1} °F off its setpoint on average"));
                    }
                    if rises {
                        how.push("rising with outdoor air".to_string());
                    }
                    note += &format!(
                        "; supply air deviates ({}), a capacity or control shortfall rather than a reset",
                        how.join(", ")
                    );
                }
                notes.push(note);
            }
            Kind::Varies | Kind::Unclear => {
                unconfirmed = true;
                notes.push(format!("the setpoint {}", b.label));
            }
            // a cooling reset lowers the setpoint as outdoor air or requests rise
            Kind::Reset if b.rho.is_some_and(|r| r > 0.0) => {
                unconfirmed = true;
                notes.push(format!(
                    "the setpoint rises with {} (rank correlation {:+.2}), the wrong way for a cooling reset",
                    driver.as_ref().map_or("its driver", |d| d.0),
                    b.rho.unwrap_or(0.0)
                ));
            }
            // a setpoint reset the cooling way that the supply air follows is a reset, even when
            // the cooling hours judged lie where it sits at its floor (hot weather asks for the
            // coldest air)
            Kind::Reset if mean_dev.is_some_and(|d| d.abs() < SP_DEVIATION_F) && !resetting => {
                resetting = true;
                notes.push(format!(
                    "the setpoint {} and the supply air follows it ({:+.1} °F on average): a reset, at its floor in the cooling hours judged",
                    b.label,
                    mean_dev.unwrap_or(0.0)
                ));
            }
            Kind::Reset => notes.push(format!("the setpoint {}", b.label)),
            Kind::Insufficient => {}
        }
    }
    if slope.is_none() {
        caveats.push("the reset is not evaluated: no outdoor air temperature to fit supply air on".to_string());
    }
    if resetting && !sp_judged {
        caveats.push("reset read from supply air alone: mild-weather part load can look the same; map supply_air_temp_sp to confirm".to_string());
    }
    if resetting && unconfirmed {
        caveats.push("supply air falls as outdoor air rises, but the trended setpoint does not move repeatedly with its driver the reset way: not confirmed".to_string());
    }
    if direction == Some("rising_with_load") {
        caveats.push("supply air rises with outdoor air over cooling hours: load outrunning the coil or the plant, not a reset; check the chilled-water supply and whether the cooling valve is at full open".to_string());
    }
    let severity = if resetting {
        if unconfirmed {
            Severity::Info
        } else {
            Severity::Ok
        }
    } else if pct_low >= 50.0 {
        Severity::Warn
    } else {
        Severity::Info
    };
    let shape = match (direction, slope) {
        (Some("reset"), Some(s)) if resetting => format!("falls {:.2} °F per °F of outdoor air: a reset", -s),
        (Some("reset"), Some(s)) => format!("falls {:.2} °F per °F of outdoor air", -s),
        (Some("rising_with_load"), Some(s)) => {
            format!("rises {s:.2} °F per °F of outdoor air: rising with load, not a reset")
        }
        (Some(_), Some(s)) if resetting => {
            format!("is flat against outdoor air over the cooling hours judged (slope {s:+.2})")
        }
        (Some(_), Some(s)) => format!("is flat against outdoor air (slope {s:+.2}): no reset"),
        _ => "was not fitted on outdoor air".to_string(),
    };
    let mut summary = format!(
        "supply air median {sat_median:.1} °F, below {LOW_SAT_F} °F on {pct_low:.0}% of judged hours; it {shape}"
    );
    for note in &notes {
        summary += "; ";
        summary += note;
    }
    metrics.insert("sat_median".into(), round2(sat_median));
    metrics.insert("sat_std".into(), round2(std));
    metrics.insert("pct_sat_below_58".into(), round2(pct_low));
    metrics.insert("n_considered".into(), judged.len() as f64);
    if let Some((s, _, r2)) = fit {
        metrics.insert("slope_per_F".into(), (s * 1000.0).round() / 1000.0);
        if !r2.is_nan() {
            metrics.insert("r2".into(), (r2 * 1000.0).round() / 1000.0);
        }
    }
    let flagged = if severity >= Severity::Warn { low.clone() } else { Vec::new() };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged.len())
        .with_conditions(vec![Condition {
            name: "sat_below_58".into(),
            flagged: low,
            judged: judged.len(),
            judged_hours: judged_h,
            flagged_hours: low_h,
        }])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, MINUTE, MONDAY};
    use crate::engine::{ParamValue, NS_PER_HOUR};

    /// Hourly over `days` days: outdoor air swinging 60-90 °F daily, supply air `sat(oat, i)`,
    /// the cooling valve open, the fan on.
    fn frame(days: i64, sat: impl Fn(f64, usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..days * 24).map(|h| MONDAY + h * NS_PER_HOUR).collect();
        let oat: Vec<f64> = (0..ts.len())
            .map(|i| 75.0 - 15.0 * (((i % 24) as f64 - 15.0) / 24.0 * std::f64::consts::TAU).cos())
            .collect();
        let s: Vec<f64> = (0..ts.len()).map(|i| sat(oat[i], i)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", oat),
                ("supply_air_temp", s),
                ("cool_valve", vec![40.0; ts.len()]),
                ("supply_fan_status", vec![1.0; ts.len()]),
            ],
        )
    }

    fn with(mut f: Frame, role: &str, v: Vec<f64>) -> Frame {
        f.cols.insert(role.into(), v);
        f
    }

    /// A G36-like reset: 65 °F at 60 °F outdoor, down to 55 °F at 75 °F and above.
    fn reset(oat: f64) -> f64 {
        (65.0 - (oat - 60.0) * 10.0 / 15.0).clamp(55.0, 65.0)
    }

    #[test]
    fn a_reset_is_ok_with_a_caveat_until_the_setpoint_confirms_it() {
        let f = run(&RULE, &frame(10, |o, _| reset(o)), &Params::default());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert!(f.metrics["slope_per_F"] < -0.1);
        assert!(f.caveats.iter().any(|c| c.contains("supply_air_temp_sp")));
        let base = frame(10, |o, _| reset(o));
        let sp: Vec<f64> = base.cols["oat"].iter().map(|&o| reset(o)).collect();
        let confirmed = run(&RULE, &with(base, "supply_air_temp_sp", sp), &Params::default());
        assert_eq!(confirmed.severity, Severity::Ok, "{}", confirmed.summary);
        assert!(confirmed.caveats.is_empty(), "{:?}", confirmed.caveats);
        assert!(confirmed.metrics["sp_driver_rho"] < -0.9);
    }

    #[test]
    fn supply_air_pinned_cold_is_a_warning() {
        let f = run(&RULE, &frame(10, |_, i| 54.0 + 0.1 * (i % 3) as f64), &Params::default());
        assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
        assert_eq!(f.metrics["pct_sat_below_58"], 100.0);
        assert_eq!(f.flagged.len(), f.judged);
        // held flat but warm: no reset, but no overcooling either
        assert_eq!(run(&RULE, &frame(10, |_, _| 62.0), &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn a_flat_setpoint_takes_the_reset_away_and_a_rising_one_leaves_it_unconfirmed() {
        let base = frame(10, |o, _| reset(o));
        let n = base.len();
        let flat = run(&RULE, &with(base.clone(), "supply_air_temp_sp", vec![55.0; n]), &Params::default());
        assert!(flat.summary.contains("not reset"), "{}", flat.summary);
        assert_ne!(flat.severity, Severity::Ok);
        let wrong: Vec<f64> = base.cols["oat"].iter().map(|&o| 110.0 - reset(o)).collect();
        let f = run(&RULE, &with(base, "supply_air_temp_sp", wrong), &Params::default());
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert!(f.summary.contains("wrong way"), "{}", f.summary);
    }

    #[test]
    fn a_reset_setpoint_the_supply_air_follows_is_a_reset_at_its_floor_in_hot_weather() {
        // the cooling hours all lie where an outdoor-air reset sits at its 55 °F floor (the
        // day's outdoor air swings 60 to 90 °F; the setpoint reaches its floor at 75 °F), but on
        // the milder hours it moves: flat supply air over the cooling hours is that floor
        let sp = |oat: f64| 55.0 + 5.0 * ((75.0 - oat) / 15.0).clamp(0.0, 1.0);
        let base = frame(14, |oat, _| sp(oat));
        let oat = base.col("oat").unwrap().to_vec();
        let valve: Vec<f64> = oat.iter().map(|&o| if o >= 76.0 { 40.0 } else { 0.0 }).collect();
        let f = with(with(base, "supply_air_temp_sp", oat.iter().map(|&o| sp(o)).collect()), "cool_valve", valve);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.summary.contains("at its floor"), "{}", r.summary);
        // the same setpoint with the supply air pinned 3 °F below it all day is no reset
        let cold = with(f.clone(), "supply_air_temp", oat.iter().map(|&o| sp(o) - 3.0).collect());
        assert_eq!(run(&RULE, &cold, &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn rising_with_load_is_not_a_reset() {
        let f = run(&RULE, &frame(10, |o, _| 50.0 + 0.3 * (o - 60.0)), &Params::default());
        assert!(f.caveats.iter().any(|c| c.contains("not a reset")), "{:?}", f.caveats);
        assert_ne!(f.severity, Severity::Ok);
    }

    #[test]
    fn the_slope_and_share_boundaries() {
        // exactly half the hours below 58 °F (four of the eight weekdays) is a warning; the slope just inside flat is no reset
        let half = run(&RULE, &frame(10, |_, i| if (i / 24) % 2 == 0 { 55.0 } else { 60.0 }), &Params::default());
        assert_eq!(half.metrics["pct_sat_below_58"], 50.0);
        assert_eq!(half.severity, Severity::Warn);
        let shallow = run(&RULE, &frame(10, |o, _| 55.0 - 0.09 * (o - 60.0)), &Params::default());
        assert_eq!(shallow.severity, Severity::Warn, "{}", shallow.summary);
        let steeper = run(&RULE, &frame(10, |o, _| 55.0 - 0.11 * (o - 60.0)), &Params::default());
        assert_eq!(steeper.severity, Severity::Ok, "{}", steeper.summary);
    }

    #[test]
    fn the_threshold_boundaries() {
        // the cold share: exactly half the judged hours below 58 °F warns (the_slope_and_share_boundaries),
        // one hour fewer (43 of 88) does not
        let under =
            run(&RULE, &frame(10, |_, i| if (i / 24) % 2 == 0 && i != 9 { 55.0 } else { 60.0 }), &Params::default());
        assert_eq!(under.metrics["pct_sat_below_58"], 48.86);
        assert_eq!(under.severity, Severity::Info, "{}", under.summary);
        assert!(under.flagged.is_empty());
        // LOW_SAT_F: supply air at 58 °F is not cold, a hair below it is
        let at = run(&RULE, &frame(10, |_, _| 58.0), &Params::default());
        assert_eq!((at.severity, at.metrics["pct_sat_below_58"]), (Severity::Info, 0.0));
        let below = run(&RULE, &frame(10, |_, _| 57.99), &Params::default());
        assert_eq!((below.severity, below.metrics["pct_sat_below_58"]), (Severity::Warn, 100.0));
        assert_eq!(below.flagged.len(), 88);
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between, so the typical step is 17 minutes and none is capped.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// As `frame`, over ten days from Monday at uneven steps; `sat(oat, k)` at the k-th sample.
    fn uneven(sat: impl Fn(f64, usize) -> f64) -> Frame {
        let mut ts = vec![MONDAY];
        while *ts.last().unwrap() < MONDAY + 10 * 24 * NS_PER_HOUR {
            let k = ts.len() - 1;
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let hour = |t: i64| (t - MONDAY).rem_euclid(24 * NS_PER_HOUR) as f64 / NS_PER_HOUR as f64;
        let oat: Vec<f64> =
            ts.iter().map(|&t| 75.0 - 15.0 * ((hour(t) - 15.0) / 24.0 * std::f64::consts::TAU).cos()).collect();
        let s: Vec<f64> = (0..ts.len()).map(|k| sat(oat[k], k)).collect();
        let n = ts.len();
        Frame::from_rows(
            &ts,
            &[("oat", oat), ("supply_air_temp", s), ("cool_valve", vec![40.0; n]), ("supply_fan_status", vec![1.0; n])],
        )
    }

    #[test]
    fn irregular_sampling_is_weighted_by_time() {
        let f = uneven(|o, _| reset(o));
        assert_eq!(f.typical_step(), Some(17 * MINUTE));
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.metrics["slope_per_F"] < -0.1);
        // eight weekdays of 11 occupied hours, whatever the sample count
        let h = r.conditions[0].judged_hours;
        assert!((h - 88.0).abs() < 1.0, "{h}");
        let pinned = run(&RULE, &uneven(|_, _| 54.0), &Params::default());
        assert_eq!((pinned.severity, pinned.metrics["pct_sat_below_58"]), (Severity::Warn, 100.0));
        // cold on three samples of every five (those followed by 17, 1 and 5 minutes): 60 % of
        // the samples, a warning by count, but 23 of every 57 minutes (40 %)
        let r = run(&RULE, &uneven(|_, k| if k % 5 <= 1 || k % 5 == 3 { 54.0 } else { 60.0 }), &Params::default());
        let share = r.conditions[0].flagged.len() as f64 / r.judged as f64;
        assert!((share - 0.6).abs() < 0.01, "{share}");
        let pct = r.metrics["pct_sat_below_58"];
        assert!((39.0..42.0).contains(&pct), "time share 23/57 = 40.4 %, not the 60 % sample share: {pct}");
        assert!(r.metrics["slope_per_F"].abs() < 0.1, "{}", r.summary);
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
    }

    #[test]
    fn off_unoccupied_and_heating_samples_are_not_judged() {
        let base = frame(10, |_, _| 54.0);
        let n = base.len();
        assert_eq!(
            run(&RULE, &with(base.clone(), "supply_fan_status", vec![0.0; n]), &Params::default()).severity,
            Severity::Info
        );
        assert_eq!(run(&RULE, &with(base.clone(), "cool_valve", vec![0.0; n]), &Params::default()).judged, 0);
        assert_eq!(run(&RULE, &with(base.clone(), "occupancy", vec![0.0; n]), &Params::default()).judged, 0);
        // weekdays 07-18 only: 8 weekdays of 10 days x 11 hours
        assert_eq!(run(&RULE, &base, &Params::default()).judged, 88);
        let mut p = Params::default();
        p.values.insert("fan_gate".into(), ParamValue::Flag(Some(false)));
        let ungated = with(base, "supply_fan_status", vec![0.0; n]);
        assert!(matches!(outcome(&RULE, &ungated, &p), Outcome::Findings(v) if v[0].judged == 88));
    }

    #[test]
    fn gaps_duplicates_disorder_and_a_missing_input() {
        let base = frame(10, |o, _| reset(o));
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(48..120).contains(i)).collect();
        let mut ts: Vec<i64> = keep.iter().map(|&i| base.ts[i]).collect();
        let mut cols: Vec<(&str, Vec<f64>)> =
            base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect();
        // every row twice, newest first
        ts.extend(ts.clone());
        ts.reverse();
        for c in cols.iter_mut() {
            c.1.extend(c.1.clone());
            c.1.reverse();
        }
        let f = run(&RULE, &Frame::from_rows(&ts, &cols), &Params::default());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!(f.judged, 55); // three weekdays gone
        let mut no_oat = base.clone();
        no_oat.cols.remove("oat");
        let r = run(&RULE, &no_oat, &Params::default());
        assert!(r.caveats.iter().any(|c| c.contains("not evaluated")));
        assert!(!r.metrics.contains_key("slope_per_F"));
        let mut bare = base;
        bare.cols.remove("supply_air_temp");
        assert_eq!(
            outcome(&RULE, &bare, &Params::default()),
            Outcome::Skipped { missing: vec!["supply_air_temp".into()] }
        );
    }
}
