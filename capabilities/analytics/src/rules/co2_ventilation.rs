//! `co2_ventilation`: whether a zone (or the unit whose CO2 it is) gets the outdoor air its
//! occupants need, read from how far its CO2 rises above outdoor air. In steady state that rise
//! is inversely proportional to the outdoor air per person: about 700 ppm corresponds to the
//! 7.5 L/s a person an office needs, so a rise of more than 700 ppm is under-ventilation, and a
//! rise of less than 150 ppm while occupied is more outdoor air than the people need (an energy
//! cost, not a health one).
//!
//! Judged on occupied samples (the trended occupancy, else weekdays 07:00 to 18:00) with a
//! plausible CO2 reading (250 to 5000 ppm), each weighed by the time it stands for, once they
//! stand for ten hours. Outdoor CO2 is the median of the trended outdoor point's plausible
//! readings (300 to 700 ppm), else 420 ppm. Under-ventilated for 20 % of that time or more is a
//! fault, for 5 % or more a warning; otherwise over-ventilated for 60 % or more is a warning.
//! These levels are fixed, as the reference fixes them.
//!
//! An economizer brings in outdoor air for free cooling, which lowers CO2 without being
//! over-ventilation, so with `exclude_economizer` on, economizer samples are left out of the
//! over-ventilation share (and reported apart): those where the economizer command is on, else
//! those with outdoor air below `econ_high_limit_f` and the unit taking more than its minimum
//! outdoor air (its damper more than 5 points above `oa_damper_min_pct`, or above its own 5th
//! percentile while open with the fan on, leaving out each start's first sample; or the unit on
//! all outdoor air by the mixing-box
//! balance). With fewer than ten hours left outside economizer mode, over-ventilation is not
//! judged. Under-ventilation is judged on every occupied sample: an economizer only adds air.

use std::collections::BTreeMap;

use crate::economizer::{on_full_outdoor_air, percent_scale};
use crate::engine::{
    assumed_occupied, on, round2, weighted_quantile, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params,
    Rule, RuleSpec, Severity,
};

/// CO2 readings (ppm) outside this window are a sensor fault or a dropout, not air.
pub const CO2_PLAUSIBLE_PPM: (f64, f64) = (250.0, 5000.0);
/// Outdoor CO2 readings (ppm) outside this window are not outdoor air.
pub const OUTDOOR_PLAUSIBLE_PPM: (f64, f64) = (300.0, 700.0);
/// Outdoor CO2 (ppm) assumed when none is trended.
pub const ASSUMED_OUTDOOR_PPM: f64 = 420.0;
/// A rise above outdoor (ppm) beyond which a space is under-ventilated, and under which an
/// occupied one is over-ventilated.
pub const UNDER_RISE_PPM: f64 = 700.0;
pub const OVER_RISE_PPM: f64 = 150.0;
/// Under-ventilated shares (% of occupied time) that fault and warn, and the over-ventilated
/// share that warns.
pub const UNDER_FAULT_PCT: f64 = 20.0;
pub const UNDER_WARN_PCT: f64 = 5.0;
pub const OVER_WARN_PCT: f64 = 60.0;
/// The fewest hours a verdict rests on: occupied CO2, and for over-ventilation those outside
/// economizer mode.
pub const MIN_HOURS: f64 = 10.0;
/// A damper more than this many points above its minimum is taking economizer air.
pub const ABOVE_MIN_POINTS: f64 = 5.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "co2_ventilation",
        families: &[],
        inputs: Inputs {
            required: &["co2"],
            optional: &[
                "outdoor_co2",
                "occupancy",
                "econ_cmd",
                "oat",
                "oa_damper",
                "mixed_air_temp",
                "return_air_temp",
                "supply_fan_status",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::flag(
                "exclude_economizer",
                true,
                "outdoor air an economizer brings in to cool for free is not over-ventilation",
                "Keep it on for any unit that economizes; off, every occupied sample counts toward over-ventilation (that share is reported as over_vent_all_pct either way).",
            ),
            ParamSpec::number(
                "oa_damper_min_pct",
                f64::NAN,
                "% open (OA damper position)",
                (0.0, 60.0),
                "unset, the damper's minimum is read from its own trend",
                "Use the minimum outdoor-air damper position of the sequence or the balancing report; from trends, the damper's 5th percentile while open with the fan on, in a period with no economizing. Read only without econ_cmd.",
            ),
            ParamSpec::number(
                "econ_high_limit_f",
                75.0,
                "°F (outdoor air temperature)",
                (55.0, 80.0),
                "the top of ASHRAE 90.1's fixed dry-bulb high limits, so that when unsure more samples count as economizing",
                "Use the high limit set in the economizer sequence, or the warmest outdoor air at which the damper still opens beyond its minimum in a summer of good operation. Read only without econ_cmd.",
            ),
        ],
        judged_basis: "occupied samples",
    }
}

/// How economizer mode was told.
pub(crate) enum Econ {
    /// Not looked for (`exclude_economizer` off).
    Off,
    /// Nothing on the frame tells it.
    Unknown,
    /// Per sample, from the command, or from outdoor air with the damper or mixing box.
    From(Vec<bool>, &'static str),
}

/// Per sample, whether the economizer brings in more than the minimum outdoor air.
pub(crate) fn economizer(spec: &RuleSpec, frame: &Frame, params: &Params, w: &[f64]) -> Econ {
    if params.flag(spec, "exclude_economizer") == Some(false) {
        return Econ::Off;
    }
    if let Some(cmd) = frame.col("econ_cmd") {
        return Econ::From(cmd.iter().map(|&c| c > 0.0).collect(), "the economizer command");
    }
    let Some(oat) = frame.col("oat") else {
        return Econ::Unknown;
    };
    let Some(full) = on_full_outdoor_air(frame, oat) else {
        return Econ::Unknown;
    };
    let high_limit = params.number(spec, "econ_high_limit_f");
    let above: Vec<bool> = match frame.col("oa_damper") {
        Some(d) => {
            let scale = percent_scale(d);
            let fan = frame.col("supply_fan_status");
            let mut min = params.number(spec, "oa_damper_min_pct");
            if min.is_nan() {
                // a sample counts once the unit was already running open at the one before: the
                // damper stroking open at a fan start is not its minimum (an hourly trend whose
                // schedule starts on the hour catches it mid-stroke every morning)
                let open = |i: usize| d[i] * scale > 0.5 && fan.is_none_or(|f| f[i] > 0.5);
                let mut open: Vec<(f64, f64)> =
                    (1..frame.len()).filter(|&i| open(i) && open(i - 1)).map(|i| (d[i] * scale, w[i])).collect();
                min = weighted_quantile(&mut open, 0.05);
            }
            (0..frame.len()).map(|i| !min.is_nan() && d[i] * scale > min + ABOVE_MIN_POINTS).collect()
        }
        None => vec![false; frame.len()],
    };
    let econ = (0..frame.len()).map(|i| oat[i] < high_limit && (above[i] || full[i])).collect();
    Econ::From(econ, "outdoor air below econ_high_limit_f with the unit taking more than its minimum outdoor air")
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let co2 = frame.required("co2");
    let n = frame.len();
    let w = frame.weights_hours();
    let occ = frame.col("occupancy");
    let occupied = |i: usize| match occ {
        Some(o) => on(o[i]),
        None => assumed_occupied(frame.ts[i]),
    };
    let rows: Vec<usize> =
        (0..n).filter(|&i| occupied(i) && co2[i] >= CO2_PLAUSIBLE_PPM.0 && co2[i] <= CO2_PLAUSIBLE_PPM.1).collect();
    let hours = |idx: &mut dyn Iterator<Item = usize>| idx.map(|i| w[i]).sum::<f64>() + 0.0;
    let rows_h = hours(&mut rows.iter().copied());
    let mut caveats = Vec::new();
    if occ.is_none() {
        caveats.push("no occupancy point trended: occupied hours are assumed to be weekdays 07:00 to 18:00; map occupancy so an empty room's hours are not judged as occupied".to_string());
    }
    if rows_h < MIN_HOURS - 1e-9 {
        let mut f = Finding::not_judged(
            spec,
            &format!(
                "{rows_h:.1} occupied hours with a plausible CO2 reading, fewer than the {MIN_HOURS} a verdict needs"
            ),
        );
        f.caveats.extend(caveats);
        return Outcome::Findings(vec![f]);
    }

    // outdoor air's CO2: the trended point's plausible readings on the judged samples, else assumed
    let measured = frame.col("outdoor_co2").map(|o| {
        let mut v: Vec<(f64, f64)> = rows
            .iter()
            .filter(|&&i| o[i] >= OUTDOOR_PLAUSIBLE_PPM.0 && o[i] <= OUTDOOR_PLAUSIBLE_PPM.1)
            .map(|&i| (o[i], w[i]))
            .collect();
        weighted_quantile(&mut v, 0.5)
    });
    let outdoor = match measured {
        Some(m) if !m.is_nan() => m,
        _ => {
            caveats.push(format!(
                "{}: {ASSUMED_OUTDOOR_PPM} ppm assumed",
                if measured.is_some() {
                    "no outdoor CO2 reading between 300 and 700 ppm while occupied"
                } else {
                    "no outdoor CO2 trended"
                }
            ));
            ASSUMED_OUTDOOR_PPM
        }
    };
    let under: Vec<u32> =
        rows.iter().copied().filter(|&i| co2[i] - outdoor > UNDER_RISE_PPM).map(|i| i as u32).collect();
    let near = |i: usize| co2[i] - outdoor < OVER_RISE_PPM;
    let pct = |part: f64, whole: f64| if whole > 0.0 { 100.0 * part / whole } else { 0.0 };
    let under_h = hours(&mut under.iter().map(|&i| i as usize));
    let under_pct = pct(under_h, rows_h);
    let near_all_h = hours(&mut rows.iter().copied().filter(|&i| near(i)));

    let econ = economizer(spec, frame, params, &w);
    let in_econ = |i: usize| matches!(&econ, Econ::From(m, _) if m[i]);
    let rest: Vec<usize> = rows.iter().copied().filter(|&i| !in_econ(i)).collect();
    let rest_h = hours(&mut rest.iter().copied());
    let over: Vec<u32> = rest.iter().copied().filter(|&i| near(i)).map(|i| i as u32).collect();
    let over_h = hours(&mut over.iter().map(|&i| i as usize));
    let over_pct = (rest_h >= MIN_HOURS - 1e-9).then(|| pct(over_h, rest_h));

    let mut metrics = BTreeMap::new();
    let mut values: Vec<(f64, f64)> = rows.iter().map(|&i| (co2[i], w[i])).collect();
    let median = weighted_quantile(&mut values.clone(), 0.5);
    let p95 = weighted_quantile(&mut values, 0.95);
    metrics.insert("co2_median_ppm".into(), median.round());
    metrics.insert("co2_p95_ppm".into(), p95.round());
    metrics.insert("outdoor_co2_ppm".into(), outdoor.round());
    metrics.insert("under_vent_pct".into(), round2(under_pct));
    if let Some(o) = over_pct {
        metrics.insert("over_vent_pct".into(), round2(o));
    }
    metrics.insert("n_occupied".into(), rows.len() as f64);
    metrics.insert("judged_hours".into(), round2(rows_h));
    if let Econ::From(_, basis) = &econ {
        let econ_h = rows_h - rest_h;
        let econ_near_h = near_all_h - over_h;
        metrics.insert("econ_hours_pct".into(), round2(pct(econ_h, rows_h)));
        metrics.insert("over_vent_all_pct".into(), round2(pct(near_all_h, rows_h)));
        if econ_h > 0.0 {
            metrics.insert("over_vent_econ_pct".into(), round2(pct(econ_near_h, econ_h)));
        }
        caveats.push(format!(
            "economizer samples ({:.0}% of occupied hours, from {basis}) are left out of the over-ventilation share: CO2 near outdoor then is free cooling{}",
            pct(econ_h, rows_h),
            if econ_h > 0.0 { format!("; CO2 was near outdoor for {:.0}% of them", pct(econ_near_h, econ_h)) } else { String::new() }
        ));
    }

    let over_warn = over_pct.is_some_and(|o| o >= OVER_WARN_PCT);
    let severity = if under_pct >= UNDER_FAULT_PCT {
        Severity::Fault
    } else if under_pct >= UNDER_WARN_PCT || over_warn {
        Severity::Warn
    } else {
        Severity::Ok
    };
    if matches!(econ, Econ::Unknown) && over_warn && under_pct < UNDER_WARN_PCT {
        caveats.push("no economizer command, and no outdoor air with an outdoor-air damper or mixed and return air, on this equipment: if the unit serving it economizes, part of this outdoor air is free cooling, not over-ventilation".to_string());
    }
    let high = outdoor + UNDER_RISE_PPM;
    let non_econ = if matches!(econ, Econ::From(..)) { "non-economizer " } else { "" };
    let summary = if under_pct >= UNDER_WARN_PCT {
        format!(
            "under-ventilated for {under_pct:.0}% of occupied hours: CO2 above {high:.0} ppm ({UNDER_RISE_PPM:.0} over outdoor), p95 {p95:.0} ppm"
        )
    } else if let (true, Some(o)) = (over_warn, over_pct) {
        format!(
            "over-ventilated: CO2 within {OVER_RISE_PPM:.0} ppm of outdoor for {o:.0}% of {non_econ}occupied hours, more outdoor air than the occupants need (an energy cost)"
        )
    } else if let Some(o) = over_pct {
        format!(
            "ventilation adequate: CO2 median {median:.0} ppm, above {high:.0} ppm for {under_pct:.1}% and near outdoor for {o:.0}% of {non_econ}occupied hours"
        )
    } else {
        format!(
            "CO2 median {median:.0} ppm, above {high:.0} ppm for {under_pct:.1}% of occupied hours; over-ventilation not judged: the economizer ran for {:.0}% of them",
            pct(rows_h - rest_h, rows_h)
        )
    };
    let under_cond = Condition {
        name: "under_ventilated".into(),
        flagged_hours: under_h,
        flagged: under.clone(),
        judged: rows.len(),
        judged_hours: rows_h,
    };
    let over_cond = Condition {
        name: "over_ventilated".into(),
        flagged_hours: over_h,
        flagged: over.clone(),
        judged: rest.len(),
        judged_hours: rest_h,
    };
    // the samples behind the verdict: over-ventilation's when it alone warns, else the high CO2
    let flagged = if over_warn && under_pct < UNDER_WARN_PCT { over } else { under };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(rows.len())
        .with_conditions(vec![under_cond, over_cond])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};
    use crate::engine::ParamValue;

    /// One week every `step` minutes from a Monday, occupied on weekdays 07:00-18:00, the zone's
    /// CO2 `co2(day, hour)` (day 0 = Monday, hour a fraction); 55 occupied hours.
    fn zone(step: i64, co2: impl Fn(i64, f64) -> f64) -> Frame {
        let ts = every(MONDAY, step * MINUTE, (7 * 24 * 60 / step) as usize);
        let when = |t: i64| ((t - MONDAY) / (24 * H), ((t - MONDAY) % (24 * H)) as f64 / H as f64);
        let occ = ts.iter().map(|&t| assumed_occupied(t) as u8 as f64).collect();
        let c = ts.iter().map(|&t| co2(when(t).0, when(t).1)).collect();
        Frame::from_rows(&ts, &[("co2", c), ("occupancy", occ)])
    }

    /// A well-ventilated office: CO2 climbing from 450 to 950 ppm over the morning, then level.
    fn office(_: i64, h: f64) -> f64 {
        if (7.0..18.0).contains(&h) {
            450.0 + 500.0 * ((h - 7.0) / 4.0).min(1.0)
        } else {
            430.0
        }
    }

    /// CO2 above 1120 ppm (700 over the assumed 420) for the first `k` occupied hours of the week.
    fn stuffy(k: i64) -> impl Fn(i64, f64) -> f64 {
        move |d, h| if d == 0 && h >= 7.0 && h < 7.0 + k as f64 { 1300.0 } else { office(d, h) }
    }

    #[test]
    fn a_well_ventilated_zone_is_ok() {
        let r = run(&RULE, &zone(60, office), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.judged, r.metrics["judged_hours"], r.metrics["under_vent_pct"]), (55, 55.0, 0.0));
        assert_eq!((r.metrics["outdoor_co2_ppm"], r.metrics["co2_median_ppm"]), (420.0, 950.0));
        assert!(r.summary.starts_with("ventilation adequate"), "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("420 ppm assumed")), "{:?}", r.caveats);
    }

    #[test]
    fn under_and_over_ventilation_are_found() {
        // 11 of 55 occupied hours above the threshold: 20 %, a fault
        let r = run(&RULE, &zone(60, stuffy(11)), &Params::default());
        assert_eq!((r.severity, r.flagged.len(), r.metrics["under_vent_pct"]), (Severity::Fault, 11, 20.0));
        assert!(r.summary.starts_with("under-ventilated for 20%"), "{}", r.summary);
        assert_eq!(run(&RULE, &zone(60, stuffy(4)), &Params::default()).severity, Severity::Warn);
        // CO2 within 150 ppm of outdoor all day: more air than the people need
        let r = run(&RULE, &zone(60, |_, _| 480.0), &Params::default());
        assert_eq!((r.severity, r.metrics["over_vent_pct"], r.flagged.len()), (Severity::Warn, 100.0, 55));
        assert!(r.summary.starts_with("over-ventilated"), "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("part of this outdoor air is free cooling")), "{:?}", r.caveats);
    }

    #[test]
    fn the_thresholds_at_their_boundaries() {
        // a rise of exactly 700 ppm is not under-ventilated, just past it is
        let at = |v: f64| {
            run(
                &RULE,
                &zone(60, move |d, h| if d == 0 && (7.0..18.0).contains(&h) { v } else { 900.0 }),
                &Params::default(),
            )
        };
        assert_eq!(at(1120.0).metrics["under_vent_pct"], 0.0);
        assert_eq!(at(1120.01).metrics["under_vent_pct"], 20.0);
        // the shares: 2 of 55 hours (3.6 %) ok, 3 (5.5 %) warn; 10 (18.2 %) warn, 11 (20 %) fault
        let sev = |k| run(&RULE, &zone(60, stuffy(k)), &Params::default()).severity;
        assert_eq!((sev(2), sev(3), sev(10), sev(11)), (Severity::Ok, Severity::Warn, Severity::Warn, Severity::Fault));
        // a rise of exactly 150 ppm is not near outdoor; 60 % of the hours near it warns, under does not
        let near = |k: i64, v: f64| {
            run(
                &RULE,
                &zone(
                    60,
                    move |d, h| {
                        if d < 3 && (7.0..18.0).contains(&h) && d * 11 + (h as i64 - 7) < k {
                            v
                        } else {
                            900.0
                        }
                    },
                ),
                &Params::default(),
            )
        };
        assert_eq!(near(33, 570.0).metrics["over_vent_pct"], 0.0);
        assert_eq!((near(33, 569.0).metrics["over_vent_pct"], near(33, 569.0).severity), (60.0, Severity::Warn));
        assert_eq!(near(32, 569.0).severity, Severity::Ok);
        // a measured outdoor CO2 moves every threshold
        let mut f = zone(60, stuffy(11));
        f.cols.insert("outdoor_co2".into(), vec![620.0; f.len()]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.metrics["outdoor_co2_ppm"], r.severity), (620.0, Severity::Ok));
        assert!(!r.caveats.iter().any(|c| c.contains("assumed")), "{:?}", r.caveats);
        // implausible outdoor readings are not outdoor air
        f.cols.insert("outdoor_co2".into(), vec![900.0; f.len()]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.metrics["outdoor_co2_ppm"], 420.0);
        assert!(r.caveats.iter().any(|c| c.contains("no outdoor CO2 reading between")), "{:?}", r.caveats);
    }

    /// The over-ventilated zone on a unit whose damper is at its 20 % minimum in the morning and
    /// opens to economize from noon, the outdoor air at `oat`.
    fn economizing(oat: f64) -> Frame {
        let mut f = zone(60, |_, _| 480.0);
        let damper: Vec<f64> =
            f.ts.iter().map(|t| if ((t - MONDAY) % (24 * H)) / H >= 12 { 80.0 } else { 20.0 }).collect();
        f.cols.insert("oa_damper".into(), damper);
        f.cols.insert("oat".into(), vec![oat; f.len()]);
        f
    }

    #[test]
    fn economizer_hours_are_left_out_of_over_ventilation() {
        // 30 of 55 occupied hours economizing: the 25 left are near outdoor, still a warning
        let r = run(&RULE, &economizing(65.0), &Params::default());
        assert_eq!((r.metrics["econ_hours_pct"], r.metrics["over_vent_pct"]), (54.55, 100.0));
        assert_eq!((r.metrics["over_vent_all_pct"], r.metrics["over_vent_econ_pct"]), (100.0, 100.0));
        assert_eq!(r.conditions[1].judged, 25);
        assert!(r.summary.contains("non-economizer occupied hours"), "{}", r.summary);
        // at the high limit the economizer is locked out: every hour counts
        let r = run(&RULE, &economizing(75.0), &Params::default());
        assert_eq!((r.metrics["econ_hours_pct"], r.conditions[1].judged), (0.0, 55));
        assert_eq!(
            run(&RULE, &economizing(80.0), &numbers(&[("econ_high_limit_f", 81.0)])).metrics["econ_hours_pct"],
            54.55
        );
        // a minimum at 75 %: the open damper is 5 points above it, not more
        assert_eq!(
            run(&RULE, &economizing(65.0), &numbers(&[("oa_damper_min_pct", 75.0)])).metrics["econ_hours_pct"],
            0.0
        );
        assert_eq!(
            run(&RULE, &economizing(65.0), &numbers(&[("oa_damper_min_pct", 74.9)])).metrics["econ_hours_pct"],
            54.55
        );
        // a command decides where it is trended
        let mut f = economizing(65.0);
        f.cols.insert(
            "econ_cmd".into(),
            f.ts.iter().map(|t| (((t - MONDAY) % (24 * H)) / H >= 8) as u8 as f64).collect(),
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.metrics["econ_hours_pct"], 90.91);
        // under ten hours left outside it: over-ventilation not judged, and not a warning
        assert!(!r.metrics.contains_key("over_vent_pct") && r.severity == Severity::Ok, "{:?}", r.metrics);
        assert!(r.summary.contains("over-ventilation not judged"), "{}", r.summary);
        // the mixing box tells all outdoor air without a damper
        let mut g = zone(60, |_, _| 480.0);
        g.cols.insert("oat".into(), vec![60.0; g.len()]);
        g.cols.insert("return_air_temp".into(), vec![74.0; g.len()]);
        g.cols.insert(
            "mixed_air_temp".into(),
            g.ts.iter().map(|t| if ((t - MONDAY) % (24 * H)) / H >= 12 { 61.0 } else { 70.0 }).collect(),
        );
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["econ_hours_pct"], 54.55);
        // turned off, every occupied hour counts
        let r = run(&RULE, &economizing(65.0), &with(&[("exclude_economizer", ParamValue::Flag(Some(false)))]));
        assert!(!r.metrics.contains_key("econ_hours_pct") && r.metrics["over_vent_pct"] == 100.0, "{:?}", r.metrics);
    }

    #[test]
    fn a_damper_stroking_open_at_fan_start_is_not_its_minimum() {
        // hourly, the fan on 06:00-19:00 with the damper at its 20 % minimum all day but caught
        // at 5 % each morning at 06:00 as it strokes open; mild outdoor air, CO2 near outdoor
        let mut f = zone(60, |_, _| 480.0);
        let hour = |t: i64| ((t - MONDAY) % (24 * H)) / H;
        let fan: Vec<f64> = f.ts.iter().map(|&t| (6..19).contains(&hour(t)) as u8 as f64).collect();
        let damper: Vec<f64> =
            f.ts.iter()
                .zip(&fan)
                .map(|(&t, &on)| {
                    if on == 0.0 {
                        0.0
                    } else if hour(t) == 6 {
                        5.0
                    } else {
                        20.0
                    }
                })
                .collect();
        f.cols.insert("supply_fan_status".into(), fan);
        f.cols.insert("oa_damper".into(), damper);
        f.cols.insert("oat".into(), vec![50.0; f.len()]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.metrics["econ_hours_pct"], r.severity), (0.0, Severity::Warn), "{}", r.summary);
    }

    #[test]
    fn uneven_sampling_is_weighed_by_time_and_gaps_are_not_judged() {
        // Monday 07:00-09:00 logged every 5 minutes and stuffy; the rest of the week hourly. By
        // count 24 of 77 samples (31 %) are stuffy; by time 2 of 53 hours, not a warning.
        let mut ts: Vec<i64> = every(MONDAY + 7 * H, 5 * MINUTE, 24);
        ts.extend(every(MONDAY + 9 * H, H, 7 * 24 - 9));
        let occ: Vec<f64> = ts.iter().map(|&t| assumed_occupied(t) as u8 as f64).collect();
        let co2: Vec<f64> = ts.iter().map(|&t| if t < MONDAY + 9 * H { 1300.0 } else { 900.0 }).collect();
        let f = Frame::from_rows(&ts, &[("co2", co2), ("occupancy", occ.clone())]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.judged, r.flagged.len()), (24 + 53, 24));
        // each 5-minute sample stands for 5 minutes; the hourly ones are capped at 1.5 typical steps
        let w = f.weights_hours();
        let judged: f64 = (0..f.len()).filter(|&i| occ[i] > 0.0).map(|i| w[i]).sum();
        assert!((r.metrics["under_vent_pct"] - round2(100.0 * 2.0 / judged)).abs() < 0.01, "{:?}", r.metrics);
        // a missing day is not judged
        let g = zone(60, office);
        let keep: Vec<usize> = (0..g.len()).filter(|&i| (g.ts[i] - MONDAY) / (24 * H) != 2).collect();
        let cols: Vec<(&str, Vec<f64>)> =
            g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect();
        let r = run(
            &RULE,
            &Frame::from_rows(&keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(), &cols),
            &Params::default(),
        );
        assert_eq!((r.judged, r.metrics["judged_hours"]), (44, 44.0));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [zone(60, office), zone(60, stuffy(11)), economizing(65.0)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn unoccupied_hours_are_not_judged() {
        // stuffy every night and weekend, fine while occupied
        let f = zone(60, |d, h| if d < 5 && (7.0..18.0).contains(&h) { 800.0 } else { 1500.0 });
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // without an occupancy point the weekday schedule stands in, with a caveat
        let mut g = f.clone();
        g.cols.remove("occupancy");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 55));
        assert!(r.caveats[0].starts_with("no occupancy point"), "{:?}", r.caveats);
        // a trended occupancy replaces the schedule: a Saturday in use is judged
        let mut sat = f.clone();
        let occ: Vec<f64> =
            sat.ts.iter().map(|&t| (assumed_occupied(t) || (t - MONDAY) / (24 * H) == 5) as u8 as f64).collect();
        sat.cols.insert("occupancy".into(), occ);
        let r = run(&RULE, &sat, &Params::default());
        assert_eq!((r.judged, r.severity), (55 + 24, Severity::Fault));
        // never occupied: nothing judged, not a pass
        let mut empty = f.clone();
        empty.cols.insert("occupancy".into(), vec![0.0; f.len()]);
        let r = run(&RULE, &empty, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let mut f = zone(60, office);
        f.cols.remove("co2");
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["co2".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY + 9 * H], &[("co2", vec![1500.0])]);
        let r = run(&RULE, &one, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        // readings a sensor cannot make are not judged
        let r = run(&RULE, &zone(60, |_, _| 8000.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        assert!(r.summary.contains("fewer than the 10"), "{}", r.summary);
        // an economizer with no damper reading while open has no minimum: nothing economizes
        let mut g = economizing(65.0);
        g.cols.insert("oa_damper".into(), vec![0.0; g.len()]);
        assert_eq!(run(&RULE, &g, &Params::default()).metrics["econ_hours_pct"], 0.0);
    }
}
