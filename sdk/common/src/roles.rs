//! The point roles the store knows (what a point measures), with the unit the store keeps
//! them in (IP, as the reference does) and the physical range a reading must fall in. Ingest
//! converts declared units to these; sensor trust checks readings against the ranges.

/// What sort of signal a role is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A measured or commanded quantity.
    Analog,
    /// On/off (0 or 1).
    Status,
    /// 0-100 %; a 0-1 fraction is rescaled at ingest.
    Percent,
}

/// One role.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Role {
    pub name: &'static str,
    /// The stored unit ("degF", "inH2O", "cfm", "%", ...), or "" when the role has none.
    pub unit: &'static str,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub kind: Kind,
}

/// Every known role, in the reference's order.
pub const ROLES: &[Role] = &[
    Role { name: "oat", unit: "degF", min: Some(-40.0), max: Some(140.0), kind: Kind::Analog },
    Role { name: "supply_air_temp", unit: "degF", min: Some(32.0), max: Some(160.0), kind: Kind::Analog },
    Role { name: "mixed_air_temp", unit: "degF", min: Some(20.0), max: Some(140.0), kind: Kind::Analog },
    Role { name: "return_air_temp", unit: "degF", min: Some(40.0), max: Some(120.0), kind: Kind::Analog },
    Role { name: "space_temp", unit: "degF", min: Some(40.0), max: Some(120.0), kind: Kind::Analog },
    Role { name: "heat_coil_leaving_temp", unit: "degF", min: Some(20.0), max: Some(160.0), kind: Kind::Analog },
    Role { name: "cool_coil_leaving_temp", unit: "degF", min: Some(20.0), max: Some(140.0), kind: Kind::Analog },
    Role { name: "cool_sp", unit: "degF", min: Some(45.0), max: Some(95.0), kind: Kind::Analog },
    Role { name: "heat_sp", unit: "degF", min: Some(45.0), max: Some(95.0), kind: Kind::Analog },
    Role { name: "supply_air_temp_sp", unit: "degF", min: Some(40.0), max: Some(120.0), kind: Kind::Analog },
    Role { name: "duct_static_sp", unit: "inH2O", min: None, max: None, kind: Kind::Analog },
    Role { name: "airflow_sp", unit: "cfm", min: None, max: None, kind: Kind::Analog },
    Role { name: "airflow_min_sp", unit: "cfm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "sat_reset_requests", unit: "requests", min: None, max: None, kind: Kind::Analog },
    Role { name: "static_pressure_requests", unit: "requests", min: None, max: None, kind: Kind::Analog },
    Role { name: "heat_valve", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "heat_valve_position", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "cool_valve", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "oa_damper", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "damper", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "zone_heat_loop", unit: "", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "zone_cool_loop", unit: "", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "airflow", unit: "cfm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "oa_airflow", unit: "cfm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "duct_static", unit: "inH2O", min: Some(-1.0), max: Some(20.0), kind: Kind::Analog },
    Role { name: "occupancy", unit: "persons", min: None, max: None, kind: Kind::Status },
    Role { name: "warmup", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "cooldown", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "econ_cmd", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "boiler_status", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "supply_fan_status", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "supply_fan_speed", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "hw_supply_temp", unit: "degF", min: Some(60.0), max: Some(250.0), kind: Kind::Analog },
    Role { name: "hw_return_temp", unit: "degF", min: Some(60.0), max: Some(230.0), kind: Kind::Analog },
    Role { name: "hw_diff_press", unit: "psi", min: None, max: None, kind: Kind::Analog },
    Role { name: "hw_diff_press_sp", unit: "psi", min: None, max: None, kind: Kind::Analog },
    Role { name: "hw_pump_speed", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "hw_flow", unit: "gpm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "gas_input_rate", unit: "kW", min: Some(-1.0), max: Some(10000000.0), kind: Kind::Analog },
    Role { name: "chw_supply_temp", unit: "degF", min: Some(30.0), max: Some(75.0), kind: Kind::Analog },
    Role { name: "chw_return_temp", unit: "degF", min: Some(35.0), max: Some(85.0), kind: Kind::Analog },
    Role { name: "chw_supply_temp_sp", unit: "degF", min: None, max: None, kind: Kind::Analog },
    Role { name: "chw_diff_press", unit: "psi", min: None, max: None, kind: Kind::Analog },
    Role { name: "chw_diff_press_sp", unit: "psi", min: None, max: None, kind: Kind::Analog },
    Role { name: "chw_pump_speed", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "chw_flow", unit: "gpm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "pump_status", unit: "", min: None, max: None, kind: Kind::Status },
    Role { name: "pump_head", unit: "psi", min: Some(-5.0), max: Some(300.0), kind: Kind::Analog },
    Role { name: "cw_supply_temp", unit: "degF", min: Some(40.0), max: Some(120.0), kind: Kind::Analog },
    Role { name: "cw_return_temp", unit: "degF", min: Some(45.0), max: Some(130.0), kind: Kind::Analog },
    Role { name: "tower_fan_speed", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "cond_entering_water_temp", unit: "degF", min: Some(40.0), max: Some(120.0), kind: Kind::Analog },
    Role { name: "cw_bypass_valve", unit: "", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "cw_flow", unit: "gpm", min: Some(-1.0), max: Some(1000000.0), kind: Kind::Analog },
    Role { name: "wetbulb_temp", unit: "degF", min: Some(-40.0), max: Some(100.0), kind: Kind::Analog },
    Role { name: "outdoor_rh", unit: "%RH", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "co2", unit: "ppm", min: Some(250.0), max: Some(10000.0), kind: Kind::Analog },
    Role { name: "outdoor_co2", unit: "ppm", min: Some(250.0), max: Some(1000.0), kind: Kind::Analog },
    Role { name: "compressor_status", unit: "", min: Some(-0.1), max: Some(1.1), kind: Kind::Status },
    Role { name: "compressor_stage", unit: "stage", min: Some(-0.1), max: Some(6.1), kind: Kind::Analog },
    Role { name: "condenser_fan_status", unit: "", min: Some(-0.1), max: Some(1.1), kind: Kind::Status },
    Role { name: "heat_stage", unit: "stage", min: Some(-0.1), max: Some(6.1), kind: Kind::Analog },
    Role { name: "reversing_valve_cmd", unit: "", min: Some(-0.1), max: Some(1.1), kind: Kind::Status },
    Role { name: "filter_diff_press", unit: "inH2O", min: Some(-0.1), max: Some(10.0), kind: Kind::Analog },
    Role { name: "supply_air_humidity", unit: "%RH", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "return_air_humidity", unit: "%RH", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "cond_approach_temp", unit: "degF", min: Some(-5.0), max: Some(60.0), kind: Kind::Analog },
    Role { name: "evap_approach_temp", unit: "degF", min: Some(-5.0), max: Some(60.0), kind: Kind::Analog },
    Role { name: "subcooling_temp", unit: "degF", min: Some(-20.0), max: Some(80.0), kind: Kind::Analog },
    Role { name: "superheat_temp", unit: "degF", min: Some(-20.0), max: Some(150.0), kind: Kind::Analog },
    Role { name: "discharge_pressure", unit: "psig", min: Some(-15.0), max: Some(2000.0), kind: Kind::Analog },
    Role { name: "suction_pressure", unit: "psig", min: Some(-15.0), max: Some(1000.0), kind: Kind::Analog },
    Role { name: "liquid_line_temp", unit: "degF", min: Some(-60.0), max: Some(200.0), kind: Kind::Analog },
    Role { name: "suction_line_temp", unit: "degF", min: Some(-80.0), max: Some(150.0), kind: Kind::Analog },
    Role { name: "discharge_line_temp", unit: "degF", min: Some(-40.0), max: Some(350.0), kind: Kind::Analog },
    Role { name: "liquid_line_pressure", unit: "psig", min: Some(-15.0), max: Some(2000.0), kind: Kind::Analog },
    Role { name: "discharge_superheat_temp", unit: "degF", min: Some(-20.0), max: Some(250.0), kind: Kind::Analog },
    Role { name: "return_air_dewpoint_temp", unit: "degF", min: Some(-40.0), max: Some(100.0), kind: Kind::Analog },
    Role { name: "source_loop_supply_temp", unit: "degF", min: Some(0.0), max: Some(140.0), kind: Kind::Analog },
    Role { name: "source_loop_return_temp", unit: "degF", min: Some(0.0), max: Some(140.0), kind: Kind::Analog },
    Role { name: "source_loop_diff_press", unit: "psi", min: Some(-5.0), max: Some(300.0), kind: Kind::Analog },
    Role { name: "source_loop_pump_speed", unit: "%", min: Some(-2.0), max: Some(102.0), kind: Kind::Percent },
    Role { name: "power", unit: "kW", min: Some(-1.0), max: Some(10000000.0), kind: Kind::Analog },
    Role { name: "energy_rate", unit: "", min: None, max: None, kind: Kind::Analog },
];

/// The role named `name`, if known.
pub fn role(name: &str) -> Option<&'static Role> {
    ROLES.iter().find(|r| r.name == name)
}

/// The points a run gives a served equipment (a box) from the equipment serving it (its air
/// handler, by the config's topology): each parent role with the name it takes on the served
/// equipment's frame. The names stay clear of every test for a running signal (`_speed`,
/// `_status`), so a box's own running is never read from its air handler's fan.
pub const FROM_PARENT: [(&str, &str); 2] =
    [("duct_static_sp", "parent_duct_static_sp"), ("supply_fan_speed", "parent_fan_speed_pct")];

/// [`role`], or for a point a run copies from the parent ([`FROM_PARENT`]) the parent's role:
/// the unit and kind a chart draws it with.
pub fn role_or_parent(name: &str) -> Option<&'static Role> {
    role(name).or_else(|| FROM_PARENT.iter().find(|(_, copy)| *copy == name).and_then(|(parent, _)| role(parent)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parents_point_reads_as_the_parents_role() {
        assert!(role("parent_fan_speed_pct").is_none(), "no point is mapped to it");
        assert_eq!(role_or_parent("parent_fan_speed_pct").unwrap().name, "supply_fan_speed");
        assert_eq!(role_or_parent("parent_duct_static_sp").unwrap().unit, "inH2O");
        assert_eq!(role_or_parent("oat").unwrap().name, "oat");
        assert!(role_or_parent("parent_oat").is_none());
        for (parent, copy) in FROM_PARENT {
            assert!(role(parent).is_some() && !copy.ends_with("_speed") && !copy.contains("status"), "{copy}");
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(role("oat").unwrap().unit, "degF");
        assert_eq!(role("supply_fan_status").unwrap().kind, Kind::Status);
        assert_eq!(role("cool_valve").unwrap().kind, Kind::Percent);
        assert!(role("nope").is_none());
        assert_eq!(ROLES.len(), 84);
    }
}
