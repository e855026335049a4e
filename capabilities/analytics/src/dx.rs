//! What the DX and heat-pump refrigerant-side checks agree on, the rules (`dx_refrigerant_charge`,
//! `dx_indoor_airflow`) and their drift detectors (`dx_refrigerant_charge_drift`,
//! `dx_indoor_airflow_drift`, `discharge_superheat_drift`) alike: which samples are cooling
//! operation, whether a unit can tell them from its off cycles, the plausible readings of its
//! refrigerant points, which way a charge reading points, the coil's temperature split and the
//! return air's dew point, and the parameters of the comparison with a fault-free period.

use crate::engine::{Frame, ParamSpec, ParamValue};

/// Why an air-cooled unit is not judged without a running gate.
pub const NO_RUN_GATE: &str = "no compressor status, nor return and supply air, to tell cooling operation from off cycles (map compressor_status)";

/// The split (°F) a cooling coil can show (above the first, up to the second); outside it the
/// reading is not a coil's split.
pub const SPLIT_BOUNDS: (f64, f64) = (0.0, 45.0);

/// A subcooling (or superheat) this far (°F) above its target or its baseline backs a low-charge
/// reading; the subcooling fall (°F) at which a narrowed split reads as lost charge, not air.
pub const CORROBORATE_SH_F: f64 = 2.0;
pub const CHARGE_LOW_F: f64 = 3.0;

/// The chilled-water roles that make a unit water-cooled: its load is then its tons.
pub const CHW_ROLES: [&str; 3] = ["chw_flow", "chw_supply_temp", "chw_return_temp"];

/// Whether the frame can tell compressor-running samples from off-cycle ones: a compressor
/// status, or a return and a supply air temperature (their split). A fan status or the
/// reversing valve alone is not enough: the fan runs through the compressor's off cycles and the
/// valve gives only the mode.
pub fn has_run_gate(frame: &Frame) -> bool {
    frame.col("compressor_status").is_some()
        || (frame.col("return_air_temp").is_some() && frame.col("supply_air_temp").is_some())
}

/// Whether each sample is cooling operation, from whichever gates are trended: the compressor
/// running, the reversing valve in cooling, the supply fan on, the supply air below the return
/// air. With none trended every sample passes (callers check [`has_run_gate`] first).
pub fn cooling(frame: &Frame) -> Vec<bool> {
    let (comp, rv, fan) =
        (frame.col("compressor_status"), frame.col("reversing_valve_cmd"), frame.col("supply_fan_status"));
    let (rat, sat) = (frame.col("return_air_temp"), frame.col("supply_air_temp"));
    (0..frame.len())
        .map(|i| {
            comp.is_none_or(|c| c[i] > 0.5)
                && rv.is_none_or(|r| r[i] < 0.5)
                && fan.is_none_or(|f| f[i] > 0.5)
                && match (rat, sat) {
                    (Some(r), Some(s)) => r[i] - s[i] > 0.0,
                    _ => true,
                }
        })
        .collect()
}

/// Whether the unit is water-cooled (its chilled-water flow and temperatures are trended).
pub fn is_water_cooled(frame: &Frame) -> bool {
    CHW_ROLES.iter().all(|r| frame.col(r).is_some())
}

/// The plausible readings of a role (°F), from the role table; a sample outside them is a
/// sensor fault, not a condition.
pub fn bounds(role: &str) -> (f64, f64) {
    camber_common::roles::role(role).and_then(|r| r.min.zip(r.max)).unwrap_or((f64::NEG_INFINITY, f64::INFINITY))
}

/// The role read for a charging metric (`subcooling` or `superheat`).
pub fn metric_role(metric: &str) -> &'static str {
    if metric == "superheat" {
        "superheat_temp"
    } else {
        "subcooling_temp"
    }
}

/// Whether a deviation of the charging metric reads as a low charge: a subcooling below its
/// mark, or a fixed orifice's superheat above it.
pub fn low_charge(metric: &str, deviation: f64) -> bool {
    (deviation < 0.0) != (metric == "superheat")
}

/// The coil's temperature split, return minus supply air (°F).
pub fn split(rat: &[f64], sat: &[f64]) -> Vec<f64> {
    rat.iter().zip(sat).map(|(r, s)| r - s).collect()
}

/// The dew point (°F) of air at `t_f` °F and `rh` %: the Magnus form with Alduchov and
/// Eskridge's constants, within about 0.4 °F over HVAC conditions.
pub fn dew_point_f(t_f: f64, rh: f64) -> f64 {
    let t = (t_f - 32.0) / 1.8;
    let g = (rh.clamp(1.0, 100.0) / 100.0).ln() + 17.625 * t / (243.04 + t);
    243.04 * g / (17.625 - g) * 1.8 + 32.0
}

/// The return air's dew point: the trended point, else derived from the return air's
/// temperature and humidity; `None` without either.
pub fn return_dew_point(frame: &Frame) -> Option<Vec<f64>> {
    if let Some(d) = frame.col("return_air_dewpoint_temp") {
        return Some(d.to_vec());
    }
    let (t, h) = (frame.col("return_air_temp")?, frame.col("return_air_humidity")?);
    Some(t.iter().zip(h).map(|(&t, &h)| if t.is_nan() || h.is_nan() { f64::NAN } else { dew_point_f(t, h) }).collect())
}

/// The parameters of the comparison with a fault-free period: the warn and fault floors in °F
/// and in the baseline's standard deviations, with their defaults and ranges (`warn`, `fault`
/// as (default, range)), the fewest scoreable samples and the fewest baseline samples. The rules
/// declare them too, so a config written for the reference runs unchanged.
pub fn baseline_params(
    what: &'static str,
    warn: (f64, (f64, f64)),
    fault: (f64, (f64, f64)),
    warn_sigma: (f64, (f64, f64)),
    fault_sigma: (f64, (f64, f64)),
) -> [ParamSpec; 4] {
    let unit = match what {
        "split" => "°F (median split residual against the baseline)",
        _ => "°F (median residual against the baseline)",
    };
    [
        ParamSpec::number("warn_f", warn.0, unit, warn.1,
            "a screening floor: smaller drifts are within what a healthy unit wanders at matched conditions",
            "Judge a held-out part of a known-good period against a baseline fitted on the rest and set it above the largest drift; a warning needs both this and warn_sigma. The comparison with a fault-free period of the unit uses it (the dx drift detectors); a rule's target check does not."),
        ParamSpec::number("fault_f", fault.0, unit, fault.1,
            "a screening floor for a drift a real fault produces",
            "Keep it clear of warn_f. The comparison with a fault-free period of the unit uses it (the dx drift detectors); a rule's target check does not."),
        ParamSpec::number("warn_sigma", warn_sigma.0, "σ (standard deviations of the baseline residual)", warn_sigma.1,
            "a noisy baseline needs a larger drift before it means anything",
            "Raise it if a held-out part of the fault-free period trips the warning. The comparison with a fault-free period of the unit uses it (the dx drift detectors); a rule's target check does not."),
        ParamSpec::number("fault_sigma", fault_sigma.0, "σ (standard deviations of the baseline residual)", fault_sigma.1,
            "as warn_sigma, for a fault",
            "Keep it about twice warn_sigma. The comparison with a fault-free period of the unit uses it (the dx drift detectors); a rule's target check does not."),
    ]
}

/// The fewest cooling readings a median (or a score) is worth.
pub fn min_samples_param() -> ParamSpec {
    ParamSpec::number("min_samples", 10.0, "count (cooling-mode rows)", (5.0, 200.0),
        "the fewest cooling readings whose median is worth reporting",
        "Raise it for minute data, where ten rows are a few minutes of running; keep it low for hourly or averaged points. A target check needs this many cooling readings, a comparison with a fault-free period this many scoreable ones.")
}

/// The fewest fault-free cooling readings a baseline is fitted on.
pub fn min_baseline_samples_param() -> ParamSpec {
    ParamSpec::number(
        "min_baseline_samples",
        30.0,
        "count (cooling-mode rows)",
        (20.0, 1000.0),
        "the fewest fault-free readings for a fit on the unit's conditions",
        "Make the fault-free period span the weather the unit will be judged in; raise it if the fitted slopes look unstable. The comparison with a fault-free period of the unit uses it (the dx drift detectors); a rule's target check does not.",
    )
}

/// The charging metric a unit is judged on.
pub fn metric_param() -> ParamSpec {
    ParamSpec {
        name: "metric",
        default: ParamValue::Choice("subcooling".into()),
        unit: "choice",
        range: None,
        choices: &["subcooling", "superheat"],
        basis: "expansion-valve units are charged by subcooling, fixed-orifice (piston) units by superheat",
        calibrate:
            "Choose superheat for a piston unit whose charging chart is by superheat; otherwise keep subcooling.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cooling_the_run_gate_and_the_dew_point() {
        let f = Frame::from_rows(
            &[0, 1, 2, 3],
            &[
                ("compressor_status", vec![1.0, 0.0, 1.0, 1.0]),
                ("reversing_valve_cmd", vec![0.0, 0.0, 1.0, 0.0]),
                ("return_air_temp", vec![75.0, 75.0, 75.0, 75.0]),
                ("supply_air_temp", vec![55.0, 55.0, 55.0, 80.0]),
            ],
        );
        assert_eq!(cooling(&f), [true, false, false, false]);
        assert!(has_run_gate(&f) && !is_water_cooled(&f));
        assert!(!has_run_gate(&Frame::from_rows(&[0], &[("supply_fan_status", vec![1.0])])));
        assert_eq!(bounds("subcooling_temp"), (-20.0, 80.0));
        assert_eq!(bounds("discharge_superheat_temp"), (-20.0, 250.0));
        assert!(low_charge("subcooling", -1.0) && low_charge("superheat", 1.0) && !low_charge("subcooling", 1.0));
        // saturated air: the dew point is the dry bulb; 75 °F at 50 % is about 55 °F
        assert!((dew_point_f(70.0, 100.0) - 70.0).abs() < 0.01);
        assert!((dew_point_f(75.0, 50.0) - 55.1).abs() < 0.3, "{}", dew_point_f(75.0, 50.0));
        let h = Frame::from_rows(
            &[0, 1],
            &[("return_air_temp", vec![75.0, f64::NAN]), ("return_air_humidity", vec![50.0, 50.0])],
        );
        let d = return_dew_point(&h).unwrap();
        assert!((d[0] - 55.1).abs() < 0.3 && d[1].is_nan());
        assert!(return_dew_point(&Frame::default()).is_none());
    }
}
