//! What an issue is called, what it says the cause is, and the fix it points at: a fixed table
//! per root rule (templated, no generated prose). A rule not in the table is titled by its id in
//! words and has no packaged action, which the report says (the engineer specifies the fix).

use crate::engine::Finding;

/// (rule, title, cause, action).
const TABLE: &[(&str, &str, &str, &str)] = &[
    (
        "actuator_stuck",
        "Free the stuck actuator",
        "An actuator does not follow its command",
        "Check the actuator, its linkage and its control signal; repair or replace it.",
    ),
    (
        "airflow_tracking",
        "Restore the box's airflow control",
        "Box airflow off its setpoint",
        "Check the box's damper, actuator and flow sensor, and its airflow setpoints.",
    ),
    (
        "boiler_short_cycle",
        "Stop the boiler short-cycling",
        "The boiler starts too often",
        "Widen the firing differential or the staging delay, and check the boiler's sizing against the load.",
    ),
    (
        "boiler_summer_lockout",
        "Lock the boiler out in warm weather",
        "The boiler is enabled above its warm-weather lockout",
        "Enable the heating plant only below the lockout outdoor temperature.",
    ),
    (
        "chiller_efficiency",
        "Recover chiller efficiency",
        "The chiller runs above its kW/ton target",
        "Check the chiller's condenser and evaporator approaches, its refrigerant charge and its staging.",
    ),
    (
        "chw_pump_dp_reset",
        "Reset the chilled-water loop's pressure setpoint",
        "The loop pump rides near full speed with no pressure reset",
        "Reset the loop differential-pressure setpoint from valve demand.",
    ),
    (
        "chw_supply_tracking",
        "Restore the chilled-water supply temperature",
        "The plant does not make its supply setpoint",
        "Check the plant's capacity, staging and setpoint.",
    ),
    (
        "cooling_tower_approach",
        "Restore the cooling tower's approach",
        "The tower's approach is above design",
        "Check the tower's fill, nozzles, fans and water treatment.",
    ),
    (
        "damper_census",
        "Lower the duct static pressure",
        "Boxes throttle against excess duct static",
        "Reset the duct static setpoint down from the zones' damper positions.",
    ),
    (
        "economizer_high_limit",
        "Lock the economizer out above its high limit",
        "The economizer stays open above its high limit",
        "Check the high-limit setting and the economizer's lockout logic.",
    ),
    (
        "free_cooling_missed",
        "Use the free cooling on offer",
        "Free cooling missed while outdoor air was cool enough",
        "Check the economizer's enable and the damper's travel.",
    ),
    ("g36_afdd", "Clear the G36 fault conditions", "G36 fault conditions", ""),
    (
        "hw_pump_dp_reset",
        "Reset the hot-water loop's pressure setpoint",
        "The loop pump rides near full speed with no pressure reset",
        "Reset the loop differential-pressure setpoint from valve demand.",
    ),
    (
        "hw_pump_summer_lockout",
        "Lock the hot-water pump out in warm weather",
        "The hot-water pump runs above the warm-weather lockout",
        "Stop the pump with the heating plant above the lockout outdoor temperature.",
    ),
    (
        "leaking_valve",
        "Repair the leaking valve",
        "A valve passes flow when commanded closed",
        "Inspect the valve and actuator and repair or replace them: a maintenance fix, not a setpoint change.",
    ),
    (
        "outdoor_air_fraction",
        "Bring outdoor air back to its minimum",
        "The outdoor-air fraction is off its minimum",
        "Check the minimum damper position against the design outdoor airflow.",
    ),
    (
        "overcooling_min_flow",
        "Reduce overcooling at minimum airflow",
        "Zones overcool at their minimum airflow",
        "Lower the box minimums where ventilation allows, or raise the supply air.",
    ),
    (
        "overcooling_severity",
        "Reduce zone overcooling",
        "Zones run below their cooling setpoint",
        "Raise the supply air or lower the box minimums.",
    ),
    (
        "reheat_minimization_g36",
        "Hold boxes at minimum airflow while they reheat",
        "Boxes reheat above their minimum airflow",
        "Hold the box at minimum flow until deep heating demand, as a dual-maximum sequence does.",
    ),
    (
        "reheat_penalty",
        "Cut avoidable reheat",
        "Reheat runs above minimum airflow or into cold supply air",
        "Check the box's heating sequence and the supply-air reset.",
    ),
    (
        "sat_cohort_starvation",
        "Give the starved boxes their air",
        "The air handler's boxes ask for colder air at once",
        "Check the air handler's cooling capacity and its supply-air reset.",
    ),
    (
        "sat_reset_effectiveness",
        "Repair the supply-air reset",
        "The supply-air reset does not follow the zones' requests",
        "Check the trim-and-respond settings and the requests the zones send.",
    ),
    (
        "sat_rogue_zone_census",
        "Deal with the rogue zone",
        "One zone's requests hold the supply air cold",
        "Check the rogue zone's sensor, setpoint and box, or ignore its requests.",
    ),
    (
        "simultaneous_heat_cool",
        "Stop heating and cooling at once",
        "Heating and cooling run at the same time",
        "Check the valve sequences and their deadband.",
    ),
    (
        "static_cohort_starvation",
        "Give the starved boxes their air",
        "The air handler's boxes are short of air at once",
        "Check the duct static setpoint and the fan's capacity.",
    ),
    (
        "static_pressure_reset",
        "Reset the duct static setpoint",
        "The duct static setpoint is held fixed",
        "Reset the duct static setpoint from the zones' damper positions.",
    ),
    (
        "static_reset_effectiveness",
        "Repair the duct-static reset",
        "The duct-static reset does not follow the zones' requests",
        "Check the trim-and-respond settings and the requests the zones send.",
    ),
    (
        "static_rogue_zone_census",
        "Deal with the rogue zone",
        "One zone's requests hold the duct static up",
        "Check the rogue zone's box and airflow setpoint, or ignore its requests.",
    ),
    (
        "supply_air_control",
        "Restore supply-air temperature control",
        "Supply air off its setpoint",
        "Check the coil valves, their actuators and the control loop's tuning.",
    ),
    (
        "supply_air_reset",
        "Reset the supply-air temperature",
        "Supply air held cold with no reset",
        "Put the supply-air setpoint on a reset from outdoor air or the zones' requests.",
    ),
    (
        "supply_air_reset_compliance",
        "Bring supply air up to its reset target",
        "Supply air colder than its reset target",
        "Raise the supply-air setpoint to the reset's target.",
    ),
    (
        "unmet_setpoint_hours",
        "Restore zone temperature control",
        "Zone temperature off its setpoint",
        "Check the zone's airflow, its reheat and its setpoints.",
    ),
];

/// A rule id in words: `supply_air_reset` -> "Supply air reset".
pub fn humanize(rule: &str) -> String {
    let r =
        rule.replace("sensor_drift:", "sensor drift: ").replace("sensor_trust:", "sensor trust: ").replace('_', " ");
    let r = r.trim();
    let mut c = r.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Whether a role reads as a word of the role vocabulary (lower-case letters, digits and `_`), so
/// it may be spoken as the tool's own words; any other stored role is named as data.
pub(crate) fn plain_role(role: &str) -> bool {
    !role.is_empty() && role.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// A role inside a sentence: `supply air temp`, or the stored value quoted by `name()`.
fn spoken(role: &str) -> String {
    if plain_role(role) {
        role.replace('_', " ")
    } else {
        camber_common::text::name(role)
    }
}

/// A role that starts a sentence: `Supply air temp`, or the stored value quoted by `name()`.
fn role_subject(role: &str) -> String {
    if plain_role(role) {
        humanize(role)
    } else {
        camber_common::text::name(role)
    }
}

/// An issue's (title, cause, action) from its root finding; the action is empty when no fix is
/// packaged for the rule.
pub fn advice(rule: &str, root: &Finding) -> (String, String, String) {
    if let Some(role) = rule.strip_prefix("sensor_drift:") {
        return (
            format!("Check the {} sensor", spoken(role)),
            format!("{} disagrees with its reference", role_subject(role)),
            "Calibrate or replace the sensor against the reference, then run again: the findings that read it are conditional until then.".into(),
        );
    }
    if let Some(role) = rule.strip_prefix("sensor_trust:") {
        return (
            format!("Check the {} sensor", spoken(role)),
            format!("{} is not trusted", role_subject(role)),
            "Check the point's sensor, wiring and mapping: the findings that read it are conditional until it is trusted.".into(),
        );
    }
    // a drift finding (`<family>:<detector>`): the equipment against its own known-good behaviour
    if let Some((family, detector)) = rule.split_once(':').filter(|(f, _)| crate::drift::families::family(f).is_some())
    {
        let what = detector.trim_end_matches("_drift").replace('_', " ");
        return (
            format!("{} drifting from its known-good baseline", humanize(&what)),
            format!("{family} drift: {}", root.summary.split(':').next().unwrap_or(&root.summary).trim()),
            "Inspect what the drift points at (the finding's cause) before the next season, then refit or refreeze the baseline once it is put right.".into(),
        );
    }
    let Some((_, title, cause, action)) = TABLE.iter().find(|(r, ..)| *r == rule) else {
        return (humanize(rule), String::new(), String::new());
    };
    let m = |k: &str| root.metrics.get(k).copied().unwrap_or(0.0);
    let cause = match rule {
        "unmet_setpoint_hours" if m("too_hot_pct") >= m("too_cold_pct") && m("too_hot_pct") > 0.0 => {
            "Zone too warm (setpoint unmet)".to_string()
        }
        "unmet_setpoint_hours" if m("too_cold_pct") > 0.0 => "Zone too cold (setpoint unmet)".to_string(),
        "airflow_tracking" if m("undershoot_pct") >= m("overshoot_pct") && m("undershoot_pct") > 0.0 => {
            "Box airflow below its setpoint".to_string()
        }
        "airflow_tracking" if m("overshoot_pct") > 0.0 => "Box airflow above its setpoint".to_string(),
        "supply_air_control" if m("too_warm_hours") > m("too_cold_hours") => {
            "Supply air warmer than its setpoint".to_string()
        }
        "supply_air_control" if m("too_cold_hours") > 0.0 => "Supply air colder than its setpoint".to_string(),
        "g36_afdd" if m("worst_fc") > 0.0 => format!("G36 fault condition FC{:.0}", m("worst_fc")),
        _ => cause.to_string(),
    };
    (title.to_string(), cause, action.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Severity;

    #[test]
    fn a_drift_finding_is_titled_by_its_detector() {
        let f = Finding::of(
            "x",
            "",
            crate::engine::Severity::Fault,
            "fan effort is 37.8 pts (10.4σ) above its baseline at matched load: fouled fill",
        );
        let (title, cause, action) = advice("tower:cooling_tower_fan_effort_drift", &f);
        assert_eq!(title, "Cooling tower fan effort drifting from its known-good baseline");
        assert!(cause.starts_with("tower drift: fan effort is 37.8 pts"), "{cause}");
        assert!(!action.is_empty());
        // not a drift family: the table or the id in words
        assert_eq!(advice("nofamily:thing", &f).0, "Nofamily:thing");
    }

    #[test]
    fn titles_causes_and_actions() {
        let mut f = Finding::of("unmet_setpoint_hours", "", Severity::Fault, "");
        f.metrics.insert("too_hot_pct".into(), 30.0);
        let (t, c, a) = advice("unmet_setpoint_hours", &f);
        assert_eq!((t.as_str(), c.as_str()), ("Restore zone temperature control", "Zone too warm (setpoint unmet)"));
        assert!(!a.is_empty());
        let (t, c, a) = advice("night_weekend_setback", &f);
        assert_eq!((t.as_str(), c.as_str(), a.as_str()), ("Night weekend setback", "", ""));
        assert_eq!(advice("sensor_drift:supply_air_temp", &f).0, "Check the supply air temp sensor");
        assert_eq!(humanize("sensor_drift:oat"), "Sensor drift: oat");
        assert_eq!(humanize(""), "");
        // every table entry names a rule of this engine
        for (r, ..) in TABLE {
            assert!(crate::config::rule_spec(r).is_ok(), "{r}");
        }
    }
}
