//! `night_weekend_setback`: the supply fan runs through unoccupied hours, so the building is
//! conditioned overnight and at weekends. Occupied hours come from the trended occupancy, else
//! the schedule parameters. A setback is effective when the fan runs in under half as large a
//! share of unoccupied time as of occupied time, or in less than `min_unoccupied_run_pct` of it;
//! failing that, a fan that only cycles to hold the zone at its unoccupied setpoint (or well
//! beyond its occupied temperature) is holding the setback, not missing it. A missing setback is
//! a fault when the fan runs half the unoccupied time or more, else a warning.

use std::collections::BTreeMap;

use crate::engine::{on, round2, weekday, NS_PER_HOUR, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, RuleSpec, Severity};

/// How close (°F) to an unoccupied setpoint a zone is "held at" it.
const HOLD_BAND_F: f64 = 1.0;
/// Share of fan-on unoccupied samples that must be holding.
const HOLD_SHARE: f64 = 0.8;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "night_weekend_setback",
        families: &["air_handler", "fan_coil", "heat_pump"],
        inputs: Inputs {
            required: &[],
            optional: &["supply_fan_status", "supply_fan_speed", "occupancy", "space_temp", "return_air_temp", "heat_sp", "cool_sp"],
            gating: &["supply_fan_status", "supply_fan_speed"],
            one_of: &[],
        },
        params: vec![
            ParamSpec::number("start_hour", 7.0, "hour of day (0-23)", (0.0, 23.0),
                "a common start of the occupied day, used only without an occupancy point",
                "Use the building's scheduled occupied start."),
            ParamSpec::number("end_hour", 18.0, "hour of day (1-24)", (1.0, 24.0),
                "a common end of the occupied day, used only without an occupancy point",
                "Use the building's scheduled occupied end."),
            ParamSpec {
                name: "occupied_days",
                default: ParamValue::List(vec![0.0, 1.0, 2.0, 3.0, 4.0]),
                unit: "weekday numbers (Mon=0 ... Sun=6)",
                range: Some((0.0, 6.0)),
                choices: &[],
                basis: "an office week, used only without an occupancy point",
                calibrate: "List the days the building is occupied.",
            },
            ParamSpec::number("min_unoccupied_run_pct", 5.0, "% of unoccupied time", (0.0, 20.0),
                "a few scattered unoccupied hours (a morning warm-up, a late meeting) are not a missing setback",
                "Raise it for buildings with frequent after-hours use."),
            ParamSpec::number("unoccupied_heat_sp_f", f64::NAN, "°F (unset: the heat_sp point in unoccupied hours)", (45.0, 68.0),
                "the setback heating setpoint the fan may cycle to hold",
                "Take it from the sequence's unoccupied heating setpoint."),
            ParamSpec::number("unoccupied_cool_sp_f", f64::NAN, "°F (unset: the cool_sp point in unoccupied hours)", (78.0, 95.0),
                "the setup cooling setpoint the fan may cycle to hold",
                "Take it from the sequence's unoccupied cooling setpoint."),
            ParamSpec::number("min_setback_depth_f", 3.0, "°F", (1.0, 10.0),
                "without a setpoint, a zone held this far beyond its occupied temperature is set back",
                "Use the smallest setback the sequence would apply."),
            ParamSpec::number("max_hold_duty_pct", 90.0, "% of the unoccupied hours the fan runs", (50.0, 100.0),
                "a fan that runs nearly all night is not cycling to hold a setback",
                "Lower it for well-insulated buildings that should rarely need to cycle."),
        ],
        judged_basis: "unoccupied samples (running share), fan-on unoccupied samples (held setback)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    if frame.col("supply_fan_status").is_none() && frame.col("supply_fan_speed").is_none() {
        return Outcome::Skipped { missing: vec!["supply_fan_status or supply_fan_speed".into()] };
    }
    // status, else speed (an airflow proxy is not enough to call night running)
    let fan = crate::engine::fan_on(frame).map(|(v, _)| v).unwrap_or_default();
    let running = |i: usize| fan[i] == Some(true);
    let known = |i: usize| fan[i].is_some();
    let occ_col = frame.col("occupancy");
    let days: Vec<i64> = params.list(spec, "occupied_days").iter().map(|d| *d as i64).collect();
    let (start_h, end_h) = (params.number(spec, "start_hour"), params.number(spec, "end_hour"));
    let occupied = |i: usize| -> bool {
        match occ_col {
            Some(o) if !o[i].is_nan() => on(o[i]),
            _ => {
                let t = frame.ts[i];
                let hour = t.rem_euclid(24 * NS_PER_HOUR) as f64 / NS_PER_HOUR as f64;
                days.contains(&weekday(t)) && hour >= start_h && hour < end_h
            }
        }
    };
    let w = frame.weights_hours();
    let (mut occ_h, mut occ_run_h, mut un_h, mut un_run_h) = (0.0, 0.0, 0.0, 0.0);
    let mut flagged = Vec::new();
    for i in 0..frame.len() {
        if !known(i) {
            continue;
        }
        if occupied(i) {
            occ_h += w[i];
            if running(i) {
                occ_run_h += w[i];
            }
        } else {
            un_h += w[i];
            if running(i) {
                un_run_h += w[i];
                flagged.push(i as u32);
            }
        }
    }
    if un_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no unoccupied time with a known fan state")]);
    }
    let un_pct = 100.0 * un_run_h / un_h;
    let occ_pct = if occ_h > 0.0 { 100.0 * occ_run_h / occ_h } else { 100.0 };
    let min_run = params.number(spec, "min_unoccupied_run_pct");
    let by_runtime = un_pct < min_run || un_pct < occ_pct / 2.0;
    // the held-setback test
    let zone = frame.col("space_temp").or(frame.col("return_air_temp"));
    let mut held = false;
    if !by_runtime && un_pct <= params.number(spec, "max_hold_duty_pct") {
        if let Some(z) = zone {
            let heat_sp_col = frame.col("heat_sp");
            let cool_sp_col = frame.col("cool_sp");
            let heat_p = params.number(spec, "unoccupied_heat_sp_f");
            let cool_p = params.number(spec, "unoccupied_cool_sp_f");
            let occ_zone: Vec<f64> = (0..frame.len()).filter(|&i| occupied(i) && !z[i].is_nan()).map(|i| z[i]).collect();
            let occ_mean = if occ_zone.is_empty() { f64::NAN } else { occ_zone.iter().sum::<f64>() / occ_zone.len() as f64 };
            let depth = params.number(spec, "min_setback_depth_f");
            let holding: Vec<bool> = flagged
                .iter()
                .map(|&i| {
                    let i = i as usize;
                    if z[i].is_nan() {
                        return false;
                    }
                    let heat = if heat_p.is_nan() { heat_sp_col.map_or(f64::NAN, |c| c[i]) } else { heat_p };
                    let cool = if cool_p.is_nan() { cool_sp_col.map_or(f64::NAN, |c| c[i]) } else { cool_p };
                    let at_heat = !heat.is_nan() && z[i] <= heat + HOLD_BAND_F;
                    let at_cool = !cool.is_nan() && z[i] >= cool - HOLD_BAND_F;
                    let beyond = heat.is_nan() && cool.is_nan() && !occ_mean.is_nan() && (z[i] - occ_mean).abs() >= depth;
                    at_heat || at_cool || beyond
                })
                .collect();
            held = !holding.is_empty() && holding.iter().filter(|h| **h).count() as f64 >= HOLD_SHARE * holding.len() as f64;
        }
    }
    let effective = by_runtime || held;
    let severity = if effective {
        Severity::Ok
    } else if un_pct >= 50.0 {
        Severity::Fault
    } else {
        Severity::Warn
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("unoccupied_run_pct".into(), round2(un_pct));
    metrics.insert("occupied_run_pct".into(), round2(occ_pct));
    metrics.insert("unoccupied_hours".into(), round2(un_h));
    let mut caveats = Vec::new();
    if occ_col.is_none() {
        caveats.push("no occupancy point: occupied hours come from the schedule parameters".into());
    }
    let summary = if held {
        format!("the fan runs {un_pct:.1}% of unoccupied time, cycling to hold the setback")
    } else if effective {
        format!("the fan runs {un_pct:.1}% of unoccupied time against {occ_pct:.1}% of occupied time: the setback works")
    } else {
        format!("the fan runs {un_pct:.1}% of unoccupied time against {occ_pct:.1}% of occupied time: no effective night and weekend setback")
    };
    Outcome::Findings(vec![Finding {
        rule: spec.id,
        severity,
        summary,
        caveats,
        metrics,
        flagged: if effective { Vec::new() } else { flagged },
        judged: frame.len(),
        judged_basis: spec.judged_basis,
        conditions: Vec::new(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = NS_PER_HOUR;
    /// 2024-01-01 was a Monday.
    const MONDAY: i64 = 19_723 * 24 * H;

    fn frame(fan: impl Fn(i64, i64) -> f64) -> Frame {
        let n = 14 * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| MONDAY + i * H).collect();
        let f: Vec<f64> = (0..n as i64).map(|i| fan(i / 24 % 7, i % 24)).collect();
        Frame::from_rows(&ts, &[("supply_fan_status", f)])
    }

    fn run(f: &Frame) -> Finding {
        match evaluate(&spec(), f, &Params::default()) {
            Outcome::Findings(mut v) => v.remove(0),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn a_scheduled_unit_is_ok_and_an_always_on_one_is_a_fault() {
        assert_eq!(weekday(MONDAY), 0);
        let r = run(&frame(|d, h| if d < 5 && (7..18).contains(&h) { 1.0 } else { 0.0 }));
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        let r = run(&frame(|_, _| 1.0));
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["unoccupied_run_pct"], 100.0);
    }

    #[test]
    fn weekend_running_is_a_warning() {
        // runs weekday mornings (7-13, about half the occupied time) and all weekend: about
        // 42 % of unoccupied time, more than half the occupied share and under 50 %
        let r = run(&frame(|d, h| if (d < 5 && (7..13).contains(&h)) || d >= 5 { 1.0 } else { 0.0 }));
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        // running all of Saturday on top of full weekdays is under half the occupied share: ok
        let r = run(&frame(|d, h| if (d < 5 && (7..18).contains(&h)) || d == 5 { 1.0 } else { 0.0 }));
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn the_materiality_floor() {
        // a one-hour warm-up before each weekday: under 5 % of unoccupied time
        let r = run(&frame(|d, h| if d < 5 && (6..18).contains(&h) { 1.0 } else { 0.0 }));
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn a_fan_cycling_to_hold_the_setback_is_ok() {
        let n = 14 * 24;
        let ts: Vec<i64> = (0..n as i64).map(|i| MONDAY + i * H).collect();
        // unoccupied: the zone sits at 55 °F and the fan runs every other hour to hold it
        let occ = |i: i64| (i / 24 % 7) < 5 && (7..18).contains(&(i % 24));
        let fan: Vec<f64> = (0..n as i64).map(|i| if occ(i) || i % 2 == 0 { 1.0 } else { 0.0 }).collect();
        let zone: Vec<f64> = (0..n as i64).map(|i| if occ(i) { 70.0 } else { 55.5 }).collect();
        let f = Frame::from_rows(&ts, &[("supply_fan_status", fan), ("space_temp", zone)]);
        let mut p = Params::default();
        p.values.insert("unoccupied_heat_sp_f".into(), ParamValue::Number(55.0));
        match evaluate(&spec(), &f, &p) {
            Outcome::Findings(v) => assert_eq!(v[0].severity, Severity::Ok, "{}", v[0].summary),
            o => panic!("{o:?}"),
        }
    }

    #[test]
    fn occupancy_point_lists_and_missing_inputs() {
        let ts: Vec<i64> = (0..48).map(|i| MONDAY + i * H).collect();
        let f = Frame::from_rows(&ts, &[("supply_fan_status", vec![1.0; 48]), ("occupancy", vec![1.0; 48])]);
        assert_eq!(run(&f).severity, Severity::Info, "all occupied: nothing unoccupied to judge");
        let mut p = Params::default();
        p.values.insert("occupied_days".into(), ParamValue::List(vec![0.0, 9.0]));
        assert!(p.check(&spec()).is_ok() && p.outside_range(&spec())[0].contains("occupied_days = 9 is outside"));
        let g = Frame::from_rows(&[0, H], &[("space_temp", vec![70.0, 70.0])]);
        assert!(matches!(evaluate(&spec(), &g, &Params::default()), Outcome::Skipped { .. }));
    }
}
