//! `supply_air_reset_compliance`: supply air held colder than Guideline 36's outdoor-air reset
//! (§5.16.2.2) would run it. The map asks for T-max (`t_max`) with outdoor air at or below
//! `oat_min` and `min_clg_sat` at or above `oat_max`, linear between; supply air below that
//! target by more than `tol_f` on `warn_pct` % of the judged samples, with a mean gap of at least
//! `warn_gap_f`, is reheat the sequence does not need. Supply air well above the target in warm
//! weather (`track_gap_f`) is a cooling shortfall instead. Judged on fan-on, occupied samples.
//! With the zones' requests trended, that excess is measured above the T-max the requests
//! allow: warm supply air the zones do not ask to be colder is what they want, not a shortfall.
//!
//! G36 lowers T-max itself by trim-and-respond when zones send SAT reset requests. With the
//! requests trended, T-max is rebuilt from them ([`crate::trim_respond`]), so supply air that
//! is cold because zones ask for it is not charged to the air handler; it is reported for a
//! look at those zones. Without the requests, T-max is unknown: the zones may have pulled it
//! down, so supply air colder than the map with T-max at its ceiling is reported, not warned,
//! whether the map is configured (the unit's own, unlike the reference, which warns) or G36's
//! default; only supply air below the map's coolest setpoint (`min_clg_sat`), which no T-max
//! explains, warns without them.

use std::collections::BTreeMap;

use crate::engine::{
    assumed_occupied, fan_on, median, on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec, Severity,
};
use crate::trim_respond::{self, TrimRespond, SAT_T_MAX};

/// Fewest judged samples.
const MIN_SAMPLES: usize = 10;
/// Supply air outside this (°F, exclusive) is not a plausible reading of a running unit.
const SAT_PLAUSIBLE_F: (f64, f64) = (40.0, 90.0);
/// G36's map: Min_ClgSAT, T-max, and the outdoor-air band (°F).
const G36_MAP: [f64; 4] = [55.0, 65.0, trim_respond::MAP_OAT_MIN_F, trim_respond::MAP_OAT_MAX_F];
/// Decimals stored in binary: a share or gap of exactly a threshold counts.
const EPS: f64 = 1e-9;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "supply_air_reset_compliance",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["supply_air_temp"],
            optional: &["oat", "supply_fan_status", "supply_fan_speed", "airflow", "occupancy", "sat_reset_requests"],
            gating: &["oat"],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number("min_clg_sat", 55.0, "°F", (45.0, 60.0),
                "G36 §5.16.2.2: the coldest cooling supply air (Min_ClgSAT), asked for once outdoor air reaches oat_max",
                "Use the unit's minimum cooling supply-air setpoint from its sequence; any value but G36's makes the target a configured one."),
            ParamSpec::number("t_max", 65.0, "°F", (55.0, 70.0),
                "G36 §5.16.2.2: the warm end of the map (T-max), asked for in mild weather; at least min_clg_sat",
                "Use the warmest cooling supply-air setpoint the sequence allows. With SAT reset requests trended the rule lowers it by trim-and-respond as G36 does, so give the ceiling rather than a typical value."),
            ParamSpec::number("oat_min", 60.0, "°F", (40.0, 70.0),
                "G36 §5.16.2.2: at or below this outdoor temperature the map asks for T-max; from here up the samples count as warm weather",
                "Use the outdoor temperature below which the sequence holds its warmest supply air; keep it under oat_max."),
            ParamSpec::number("oat_max", 70.0, "°F", (55.0, 85.0),
                "G36 §5.16.2.2: at or above this outdoor temperature the map asks for min_clg_sat",
                "Use the outdoor temperature above which the sequence holds its coldest supply air."),
            ParamSpec::number("tol_f", 1.0, "°F", (0.5, 3.0),
                "a sensor's tolerance plus a tuned loop's deadband: a degree off the target is not yet a deviation",
                "Read mean_abs_error_f on a unit known to follow its reset: it shows the floor this should sit above."),
            ParamSpec::number("warn_pct", 40.0, "% of gated samples", (10.0, 80.0),
                "below the target on two judged samples in five is a habit, not an excursion; the same share of warm samples far above it is a tracking failure",
                "Read pct_below_target on units known to follow the reset and set it above their spread, on other units than the one judged."),
            ParamSpec::number("warn_gap_f", 2.0, "°F", (0.5, 5.0),
                "a persistent but tiny gap is not worth a sequence change",
                "Use the smallest mean gap (mean_gap_f) whose reheat would be worth the fix at the site."),
            ParamSpec::number("track_gap_f", 5.0, "°F", (2.0, 10.0),
                "in warm weather supply air this far above the target is the coil or the plant falling short, not a reset",
                "Read mean_above_gap_f on units known to hold their reset in warm weather and set it well above that."),
            ParamSpec::flag("fan_gate", true,
                "with the fan stopped the supply sensor reads still air, not the unit's supply",
                "Keep it on; turn it off only when the fan signal is known wrong and every trended sample is a running one."),
            ParamSpec::flag("occupied_only", true,
                "the reset governs occupied operation; warm-up and setback run their own supply air",
                "Keep it on. Without trended occupancy weekdays 07:00-18:00 are assumed; map occupancy, or turn it off for a unit occupied around the clock."),
        ],
        judged_basis: "fan-on occupied samples with supply and outdoor air",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let sat = frame.required("supply_air_temp");
    let Some(oat) = frame.col("oat") else {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no outdoor air temperature (oat), which the reset target is a function of",
        )]);
    };
    let p = |name: &str| params.number(spec, name);
    let map = [p("min_clg_sat"), p("t_max"), p("oat_min"), p("oat_max")];
    let [min_sat, t_max, oat_min, oat_max] = map;
    let (tol, warn_pct, warn_gap, track_gap) = (p("tol_f"), p("warn_pct"), p("warn_gap_f"), p("track_gap_f"));
    let ordered = oat_min < oat_max && min_sat <= t_max;
    if !ordered {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "the map needs oat_min below oat_max and t_max at or above min_clg_sat",
        )]);
    }
    let configured = map.iter().zip(G36_MAP).any(|(a, b)| (a - b).abs() > EPS);
    let n = frame.len();
    let fan = fan_on(frame);
    let fan_gate = params.flag(spec, "fan_gate") != Some(false);
    let occupied_only = params.flag(spec, "occupied_only") != Some(false);
    let occ = frame.col("occupancy");
    let gate = |i: usize| {
        let running = !fan_gate || fan.as_ref().is_none_or(|(f, _)| f[i] == Some(true));
        let occupied = !occupied_only || occ.map_or_else(|| assumed_occupied(frame.ts[i]), |o| on(o[i]));
        running && occupied
    };
    // T-max: rebuilt from the zones' requests when they are trended, else its ceiling
    let requests = frame.col("sat_reset_requests");
    let t_max_at: Vec<f64> = match requests {
        Some(req) => {
            let tr = TrimRespond { initial: t_max, min: min_sat, max: t_max, ..SAT_T_MAX };
            let running: Vec<Option<bool>> = fan.as_ref().map_or_else(|| vec![Some(true); n], |(f, _)| f.clone());
            tr.replay(&frame.ts, req, &running)
        }
        None => vec![t_max; n],
    };
    let judged: Vec<usize> = crate::engine::rows_where(n.min(t_max_at.len()), |i| {
        !oat[i].is_nan() && sat[i] > SAT_PLAUSIBLE_F.0 && sat[i] < SAT_PLAUSIBLE_F.1 && gate(i)
    });
    if judged.len() < MIN_SAMPLES {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            &format!("{} fan-on occupied samples with supply and outdoor air ({MIN_SAMPLES} needed)", judged.len()),
        )]);
    }
    let target = |i: usize, top: f64| trim_respond::oat_sat_map(top, oat[i], min_sat, oat_min, oat_max);
    // positive: supply air colder than the target
    let gap: Vec<f64> = judged.iter().map(|&i| target(i, t_max_at[i]) - sat[i]).collect();
    let k = judged.len() as f64;
    let below: Vec<u32> = judged.iter().zip(&gap).filter(|(_, g)| **g > tol).map(|(&i, _)| i as u32).collect();
    let pct_below = 100.0 * below.len() as f64 / k;
    let mean_gap = gap.iter().sum::<f64>() / k;
    let mae = gap.iter().map(|g| g.abs()).sum::<f64>() / k;
    // warm-weather excess: with requests trended, above the warmest air the zones' requests
    // accept (T-max); supply air above the map but within it is what the zones asked for
    let warm: Vec<(usize, f64)> = judged
        .iter()
        .zip(&gap)
        .filter(|(&i, _)| oat[i] >= oat_min)
        .map(|(&i, g)| (i, if requests.is_some() { sat[i] - t_max_at[i] } else { -g }))
        .collect();
    let above: Vec<u32> = warm.iter().filter(|(_, over)| *over > tol).map(|(i, _)| *i as u32).collect();
    let (pct_above, mean_above) = if warm.is_empty() {
        (None, None)
    } else {
        (
            Some(100.0 * above.len() as f64 / warm.len() as f64),
            Some(warm.iter().map(|w| w.1).sum::<f64>() / warm.len() as f64),
        )
    };
    let opportunity = pct_below + EPS >= warn_pct && mean_gap + EPS >= warn_gap;
    let not_tracking = !opportunity
        && pct_above.is_some_and(|a| a + EPS >= warn_pct)
        && mean_above.is_some_and(|g| g + EPS >= track_gap);
    // the same test against the map with T-max at its ceiling: what the requests explain
    let fixed_gap: Vec<f64> = judged.iter().map(|&i| target(i, t_max) - sat[i]).collect();
    let fixed_pct = 100.0 * fixed_gap.iter().filter(|g| **g > tol).count() as f64 / k;
    let fixed_mean = fixed_gap.iter().sum::<f64>() / k;
    let explained = requests.is_some() && !opportunity && fixed_pct + EPS >= warn_pct && fixed_mean + EPS >= warn_gap;
    // the target is the unit's own only with its T-max known: from the zones' requests
    let own_sequence = requests.is_some();
    // below the coolest air any reset of the map asks for (its min_clg_sat), whatever T-max
    // the unit's own sequence or its zones set: no schedule explains it, requests or not
    let under_floor: Vec<u32> = judged.iter().filter(|&&i| sat[i] < min_sat - tol).map(|&i| i as u32).collect();
    let floor_pct = 100.0 * under_floor.len() as f64 / k;
    let under_any = opportunity && !own_sequence && floor_pct + EPS >= warn_pct;

    let severity = if not_tracking || (opportunity && own_sequence) || under_any {
        Severity::Warn
    } else if opportunity || explained {
        Severity::Info
    } else {
        Severity::Ok
    };
    let label = match (configured, requests.is_some()) {
        (true, _) => "configured",
        (false, true) => "G36 (T-max from the requests)",
        (false, false) => "G36",
    };
    let sat_median = median(&mut judged.iter().map(|&i| sat[i]).collect::<Vec<_>>());
    let target_median = median(&mut judged.iter().map(|&i| target(i, t_max_at[i])).collect::<Vec<_>>());
    let tail = if opportunity && own_sequence {
        "colder than its reset asks for: reheat the sequence does not need".to_string()
    } else if under_any {
        format!("colder than any reset asks for: {floor_pct:.0}% of judged samples below the map's coolest setpoint of {min_sat} °F (less {tol} °F), where no requests or sequence can explain it")
    } else if opportunity {
        "colder than G36's map would run it; whether the unit's own sequence asks for more is not known".to_string()
    } else if not_tracking {
        format!(
            "not tracking: {:.0}% of warm-weather samples run {:+.1} °F above {}, a cooling shortfall or a setpoint held high",
            pct_above.unwrap_or(0.0),
            mean_above.unwrap_or(0.0),
            if requests.is_some() { "the T-max the zones' requests allow" } else { "the target" }
        )
    } else if explained {
        format!("colder than the map with T-max at {t_max} °F ({fixed_pct:.0}% of samples), but the zones' SAT reset requests hold T-max down: the air handler follows its reset and the cold air is the zones' demand")
    } else if mae + EPS < track_gap {
        "tracks the target".to_string()
    } else {
        format!("no reheat opportunity, but the mean tracking error is {mae:.1} °F")
    };
    let summary = format!(
        "supply air median {sat_median:.1} °F against a {label} target median {target_median:.1} °F; below it on {pct_below:.0}% of judged samples (mean gap {mean_gap:+.1} °F): {tail}"
    );

    let mut caveats = Vec::new();
    if fan_gate && fan.is_none() {
        caveats.push("no fan signal: samples were not fan-gated".to_string());
    }
    if occupied_only && occ.is_none() {
        caveats.push("no occupancy trended: occupied hours assumed to be weekdays 07:00-18:00".to_string());
    }
    if requests.is_none() {
        caveats.push(format!("no SAT reset requests trended: T-max is taken at its ceiling of {t_max} °F, so supply air cooled for zones that ask for it reads as below target"));
    }
    if opportunity && !own_sequence && !under_any {
        caveats.push("the target is G36's default map, not known to be this unit's sequence: set the map parameters to the sequence, or trend the SAT reset requests, for a verdict".to_string());
    }
    if explained {
        caveats.push("look for zones that keep asking for colder air (a rogue zone or a starved box): they, not the air handler, cause the reheat".to_string());
    }

    let mut metrics = BTreeMap::new();
    metrics.insert("pct_below_target".into(), round2(pct_below));
    metrics.insert("pct_below_min_clg_sat".into(), round2(floor_pct));
    metrics.insert("target_median".into(), round2(target_median));
    metrics.insert("mean_gap_f".into(), round2(mean_gap));
    metrics.insert("actual_sat_median".into(), round2(sat_median));
    metrics.insert("mean_abs_error_f".into(), round2(mae));
    metrics.insert("tracks_target".into(), if mae + EPS < track_gap { 1.0 } else { 0.0 });
    metrics.insert("n".into(), k);
    metrics.insert("n_warm".into(), warm.len() as f64);
    if let (Some(a), Some(g)) = (pct_above, mean_above) {
        metrics.insert("pct_above_target".into(), round2(a));
        metrics.insert("mean_above_gap_f".into(), round2(g));
    }
    if requests.is_some() {
        metrics.insert(
            "t_max_median".into(),
            round2(median(&mut judged.iter().map(|&i| t_max_at[i]).collect::<Vec<_>>())),
        );
        metrics.insert("pct_below_fixed_t_max".into(), round2(fixed_pct));
    }
    let w = frame.weights_hours();
    let hours = |idx: &mut dyn Iterator<Item = usize>| idx.map(|i| w[i]).sum::<f64>() + 0.0;
    let judged_h = hours(&mut judged.iter().copied());
    let mut flagged = Vec::new();
    if opportunity {
        flagged.extend(&below);
    }
    if not_tracking {
        flagged.extend(&above);
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged.len())
        .with_conditions(vec![
            Condition {
                name: "below_target".into(),
                flagged_hours: hours(&mut below.iter().map(|&i| i as usize)),
                flagged: below,
                judged: judged.len(),
                judged_hours: judged_h,
            },
            Condition {
                name: "above_target_warm".into(),
                flagged_hours: hours(&mut above.iter().map(|&i| i as usize)),
                flagged: above,
                judged: warm.len(),
                judged_hours: hours(&mut warm.iter().map(|w| w.0)),
            },
        ])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, MONDAY};
    use crate::engine::{ParamValue, NS_PER_HOUR};

    /// Hourly over `days` days, fan on and occupied 06:00-18:00 (trended): outdoor air swinging
    /// 52-72 °F through the day, supply air `sat(oat, i)`.
    fn frame(days: i64, sat: impl Fn(f64, usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..days * 24).map(|h| MONDAY + h * NS_PER_HOUR).collect();
        let n = ts.len();
        let oat: Vec<f64> =
            (0..n).map(|i| 62.0 + 10.0 * (((i % 24) as f64 - 15.0) / 24.0 * std::f64::consts::TAU).cos()).collect();
        let s: Vec<f64> = (0..n).map(|i| sat(oat[i], i)).collect();
        let running: Vec<f64> = (0..n).map(|i| if (6..18).contains(&(i % 24)) { 1.0 } else { 0.0 }).collect();
        Frame::from_rows(
            &ts,
            &[("oat", oat), ("supply_air_temp", s), ("supply_fan_status", running.clone()), ("occupancy", running)],
        )
    }

    fn with(mut f: Frame, role: &str, v: Vec<f64>) -> Frame {
        f.cols.insert(role.into(), v);
        f
    }

    fn g36(oat: f64) -> f64 {
        trim_respond::oat_sat_map(65.0, oat, 55.0, 60.0, 70.0)
    }

    fn set(p: &mut Params, name: &str, v: f64) {
        p.values.insert(name.into(), ParamValue::Number(v));
    }

    #[test]
    fn supply_air_on_the_map_is_ok() {
        let f = run(&RULE, &frame(10, |o, _| g36(o)), &Params::default());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert!(f.summary.contains("tracks the target"), "{}", f.summary);
        assert_eq!((f.metrics["pct_below_target"], f.metrics["mean_abs_error_f"], f.judged), (0.0, 0.0, 120));
        assert!(f.metrics["n_warm"] > 0.0 && f.metrics["n_warm"] < 120.0);
    }

    #[test]
    fn cold_supply_air_warns_against_the_units_own_sequence_only() {
        // G36's default map, no requests: 55 °F (its floor) is colder than G36 runs it, but the unit's sequence
        // is not known
        let cool = frame(10, |_, _| 55.0);
        let f = run(&RULE, &cool, &Params::default());
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert!(f.caveats.iter().any(|c| c.contains("not known to be this unit's sequence")));
        // 50 °F is below the coolest setpoint any reset of the map asks for: a warning, requests
        // or not
        let cold = frame(10, |_, _| 50.0);
        let n = cold.len();
        let f = run(&RULE, &cold, &Params::default());
        assert_eq!((f.severity, f.metrics["pct_below_min_clg_sat"]), (Severity::Warn, 100.0), "{}", f.summary);
        assert!(f.summary.contains("colder than any reset asks for"), "{}", f.summary);
        // with the requests trended (none sent), G36 would sit at T-max: a warning
        let f = run(&RULE, &with(cold.clone(), "sat_reset_requests", vec![0.0; n]), &Params::default());
        assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
        assert_eq!(f.metrics["pct_below_target"], 100.0);
        assert_eq!(f.flagged.len(), 120);
        // a configured map without the requests: below its floor warns, above it (the zones
        // may have pulled T-max down) is reported
        let mut p = Params::default();
        set(&mut p, "t_max", 62.0);
        assert_eq!(run(&RULE, &cold, &p).severity, Severity::Warn);
        let f = run(&RULE, &cool, &p);
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert!(f.metrics["pct_below_target"] > 40.0, "{:?}", f.metrics);
    }

    #[test]
    fn cold_air_the_zones_ask_for_is_not_the_air_handlers() {
        // four requests on every sample keep T-max at its floor: 55 °F is what G36 asks for
        let base = frame(10, |_, _| 55.0);
        let n = base.len();
        let f = run(&RULE, &with(base.clone(), "sat_reset_requests", vec![4.0; n]), &Params::default());
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert!(f.metrics["pct_below_target"] < 10.0 && f.metrics["pct_below_fixed_t_max"] > 40.0, "{:?}", f.metrics);
        assert!(f.caveats.iter().any(|c| c.contains("rogue zone")));
        assert!(f.flagged.is_empty());
    }

    #[test]
    fn warm_supply_air_in_warm_weather_is_not_tracking() {
        let f = run(&RULE, &frame(10, |o, _| if o >= 60.0 { g36(o) + 6.0 } else { g36(o) }), &Params::default());
        assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
        assert!(f.summary.contains("not tracking"), "{}", f.summary);
        assert_eq!(f.metrics["pct_above_target"], 100.0);
    }

    #[test]
    fn warm_supply_air_the_zones_accept_is_tracking_and_refused_air_is_not() {
        // supply air 6 °F above G36's map, capped at the 65 °F ceiling, requests trended
        let base = frame(10, |o, _| (g36(o) + 6.0).min(65.0));
        let n = base.len();
        let idle = run(&RULE, &with(base.clone(), "sat_reset_requests", vec![0.0; n]), &Params::default());
        assert_ne!(idle.severity, Severity::Warn, "no zone asks for colder air: {}", idle.summary);
        let calling = run(&RULE, &with(base, "sat_reset_requests", vec![4.0; n]), &Params::default());
        assert_eq!(calling.severity, Severity::Warn, "{}", calling.summary);
        assert!(calling.summary.contains("requests allow"), "{}", calling.summary);
    }

    #[test]
    fn the_share_and_gap_boundaries() {
        // 20 warm samples (target 55 °F) with requests trended: k of them 5 °F cold
        let case = |k: usize, cold: f64| {
            let ts: Vec<i64> =
                (0..20).map(|h| MONDAY + (8 + h % 10) * NS_PER_HOUR + (h / 10) * 24 * NS_PER_HOUR).collect();
            let sat: Vec<f64> = (0..20).map(|i| if i < k { cold } else { 55.0 }).collect();
            let f = Frame::from_rows(
                &ts,
                &[("oat", vec![75.0; 20]), ("supply_air_temp", sat), ("sat_reset_requests", vec![0.0; 20])],
            );
            run(&RULE, &f, &Params::default())
        };
        let at = case(8, 50.0); // 40 % below, mean gap 2.0 °F
        assert_eq!(
            (at.severity, at.metrics["pct_below_target"], at.metrics["mean_gap_f"]),
            (Severity::Warn, 40.0, 2.0),
            "{}",
            at.summary
        );
        assert_eq!(case(7, 50.0).severity, Severity::Ok); // 35 %
        assert_eq!(case(10, 51.0).severity, Severity::Warn); // 50 %, gap 2.0 °F
        assert_eq!(case(10, 51.2).severity, Severity::Ok); // 50 %, gap 1.9 °F
        assert_eq!(case(20, 54.0).severity, Severity::Ok, "a gap within tol_f is not below target");
    }

    #[test]
    fn fan_off_and_unoccupied_samples_are_not_judged() {
        let base = frame(10, |_, _| 50.0);
        let n = base.len();
        let off = run(&RULE, &with(base.clone(), "supply_fan_status", vec![0.0; n]), &Params::default());
        assert_eq!((off.severity, off.judged), (Severity::Info, 0));
        let empty = run(&RULE, &with(base.clone(), "occupancy", vec![0.0; n]), &Params::default());
        assert_eq!(empty.judged, 0);
        let mut p = Params::default();
        p.values.insert("fan_gate".into(), ParamValue::Flag(Some(false)));
        p.values.insert("occupied_only".into(), ParamValue::Flag(Some(false)));
        assert_eq!(run(&RULE, &with(base.clone(), "supply_fan_status", vec![0.0; n]), &p).judged, 240);
        // no occupancy trended: weekdays 07:00-18:00, eight weekdays of ten days
        let mut assumed = base;
        assumed.cols.remove("occupancy");
        let a = run(&RULE, &assumed, &Params::default());
        assert_eq!(a.judged, 88);
        assert!(a.caveats.iter().any(|c| c.contains("assumed")));
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let base = frame(10, |o, _| g36(o) - 4.0);
        let n = base.len();
        let base = with(base, "sat_reset_requests", vec![0.0; n]);
        let clean = run(&RULE, &base, &Params::default());
        assert_eq!(clean.severity, Severity::Warn, "{}", clean.summary);
        // every row twice, newest first
        let mut ts: Vec<i64> = base.ts.iter().chain(&base.ts).copied().collect();
        ts.reverse();
        let cols: Vec<(&str, Vec<f64>)> = base
            .cols
            .iter()
            .map(|(k, v)| {
                let mut c: Vec<f64> = v.iter().chain(v).copied().collect();
                c.reverse();
                (k.as_str(), c)
            })
            .collect();
        assert_eq!(run(&RULE, &Frame::from_rows(&ts, &cols), &Params::default()), clean);
        // a two-day outage of supply air
        let mut gappy = base.clone();
        for v in &mut gappy.cols.get_mut("supply_air_temp").unwrap()[48..96] {
            *v = f64::NAN;
        }
        let g = run(&RULE, &gappy, &Params::default());
        assert_eq!((g.severity, g.judged), (Severity::Warn, 96));
        // irregular spacing: every third hour dropped, every fifth sample moved by 20 minutes
        let keep: Vec<usize> = (0..n).filter(|i| i % 3 != 0).collect();
        let ts: Vec<i64> =
            keep.iter().map(|&i| base.ts[i] + if i % 5 == 0 { 20 * 60_000_000_000 } else { 0 }).collect();
        let cols: Vec<(&str, Vec<f64>)> =
            base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect();
        let irregular = run(&RULE, &Frame::from_rows(&ts, &cols), &Params::default());
        assert_eq!(irregular.severity, Severity::Warn, "{}", irregular.summary);
        assert_eq!(irregular.judged, 80);
    }

    #[test]
    fn missing_inputs_and_a_bad_map() {
        let base = frame(3, |o, _| g36(o));
        let mut no_oat = base.clone();
        no_oat.cols.remove("oat");
        let f = run(&RULE, &no_oat, &Params::default());
        assert_eq!((f.severity, f.judged), (Severity::Info, 0));
        assert!(f.summary.contains("oat"));
        let mut bare = base.clone();
        bare.cols.remove("supply_air_temp");
        assert_eq!(
            outcome(&RULE, &bare, &Params::default()),
            Outcome::Skipped { missing: vec!["supply_air_temp".into()] }
        );
        let mut p = Params::default();
        set(&mut p, "oat_min", 65.0);
        set(&mut p, "oat_max", 65.0);
        assert!(run(&RULE, &base, &p).summary.contains("oat_min below oat_max"));
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
    }
}
