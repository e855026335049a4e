//! Unit declarations at ingest: a reading declared in one unit is converted to the unit the
//! store keeps its role in (IP, as the reference does). An undeclared unit means the data is
//! already in the stored unit.

use camber_common::roles::{role, Kind};

/// Roles that are temperature differences: converted by scale only (no +32).
const DELTA_T: [&str; 5] =
    ["cond_approach_temp", "evap_approach_temp", "subcooling_temp", "superheat_temp", "discharge_superheat_temp"];

/// A conversion `stored = value * scale + offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convert {
    pub scale: f64,
    pub offset: f64,
}

impl Convert {
    pub const IDENTITY: Convert = Convert { scale: 1.0, offset: 0.0 };

    pub fn apply(&self, v: f64) -> f64 {
        v * self.scale + self.offset
    }
}

fn norm(u: &str) -> String {
    u.trim().to_ascii_lowercase().replace(['°', ' ', '_'], "").replace("³", "3").replace("₂", "2")
}

/// The conversion from `declared` to the stored unit of `role_name`, or why there is none.
pub fn conversion(role_name: &str, declared: &str) -> Result<Convert, String> {
    let d = norm(declared);
    let Some(r) = role(role_name) else {
        // an unknown role keeps its values as given; only "no unit" is accepted
        return if d.is_empty() {
            Ok(Convert::IDENTITY)
        } else {
            Err(format!("role '{role_name}' is not a known role, so its unit '{declared}' cannot be converted; declare no unit for it"))
        };
    };
    let stored = r.unit;
    let c = |scale: f64, offset: f64| Some(Convert { scale, offset });
    let conv = match (stored, d.as_str()) {
        (_, "") => c(1.0, 0.0),
        ("degF", "f" | "degf" | "fahrenheit") => c(1.0, 0.0),
        ("degF", "c" | "degc" | "celsius") if DELTA_T.contains(&role_name) => c(1.8, 0.0),
        ("degF", "c" | "degc" | "celsius") => c(1.8, 32.0),
        ("degF", "k" | "kelvin") if DELTA_T.contains(&role_name) => c(1.8, 0.0),
        ("degF", "k" | "kelvin") => c(1.8, 32.0 - 273.15 * 1.8),
        ("inH2O", "inh2o" | "inwc" | "in.wc" | "iwc" | "inchesofwater") => c(1.0, 0.0),
        ("inH2O", "pa" | "pascal") => c(1.0 / 248.84, 0.0),
        ("inH2O", "kpa") => c(1000.0 / 248.84, 0.0),
        ("cfm", "cfm" | "ft3/min") => c(1.0, 0.0),
        ("cfm", "l/s" | "lps") => c(2.118_88, 0.0),
        ("cfm", "m3/h" | "cmh" | "m3/hr") => c(0.588_578, 0.0),
        ("cfm", "m3/min") => c(35.314_7, 0.0),
        ("cfm", "m3/s") => c(2_118.88, 0.0),
        ("gpm", "gpm" | "usgpm") => c(1.0, 0.0),
        ("gpm", "l/s" | "lps") => c(15.850_3, 0.0),
        ("gpm", "l/min" | "lpm") => c(0.264_172, 0.0),
        ("gpm", "m3/h" | "m3/hr" | "cmh") => c(4.402_87, 0.0),
        ("psi" | "psig", "psi" | "psig") => c(1.0, 0.0),
        ("psi" | "psig", "kpa") => c(0.145_038, 0.0),
        ("psi" | "psig", "bar") => c(14.503_8, 0.0),
        ("kW", "kw") => c(1.0, 0.0),
        ("kW", "w") => c(0.001, 0.0),
        ("kW", "mw") => c(1000.0, 0.0),
        ("kW", "btu/h" | "btuh" | "btu/hr") => c(0.000_293_071, 0.0),
        ("%" | "%RH", "%" | "percent" | "%rh" | "pct") => c(1.0, 0.0),
        ("%" | "%RH", "fraction" | "0-1" | "ratio") => c(100.0, 0.0),
        ("", "fraction" | "0-1" | "ratio") if r.kind == Kind::Percent => c(100.0, 0.0),
        ("", "%" | "percent") if r.kind == Kind::Percent => c(1.0, 0.0),
        (s, u) if norm(s) == u => c(1.0, 0.0),
        _ => None,
    };
    conv.ok_or_else(|| {
        if stored.is_empty() {
            format!("unit '{declared}' cannot be converted for role '{role_name}', which is stored without a unit")
        } else {
            format!("unit '{declared}' cannot be converted to {stored}, the stored unit of role '{role_name}'")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperatures_pressures_flows_and_fractions() {
        let c = conversion("supply_air_temp", "degC").unwrap();
        assert!((c.apply(12.0) - 53.6).abs() < 1e-9);
        assert!((conversion("supply_air_temp", "K").unwrap().apply(273.15) - 32.0).abs() < 1e-9);
        assert!((conversion("cond_approach_temp", "°C").unwrap().apply(5.0) - 9.0).abs() < 1e-9);
        assert!((conversion("duct_static", "Pa").unwrap().apply(248.84) - 1.0).abs() < 1e-9);
        assert!((conversion("airflow", "L/s").unwrap().apply(1.0) - 2.11888).abs() < 1e-9);
        assert_eq!(conversion("oa_damper", "fraction").unwrap().apply(0.2), 20.0);
        // a box's minimum airflow is held against its airflow, so it is kept in the same unit
        assert_eq!(conversion("airflow_min_sp", "cfm").unwrap(), Convert::IDENTITY);
        assert!((conversion("airflow_min_sp", "L/s").unwrap().apply(1.0) - 2.11888).abs() < 1e-9);
        // water loops' differential pressures in psi, a boiler's gas input as power
        assert!((conversion("chw_diff_press", "kPa").unwrap().apply(100.0) - 14.5038).abs() < 1e-9);
        assert_eq!(conversion("hw_diff_press_sp", "psi").unwrap(), Convert::IDENTITY);
        assert!((conversion("gas_input_rate", "Btu/h").unwrap().apply(1e6) - 293.071).abs() < 1e-9);
        assert_eq!(conversion("oat", "").unwrap(), Convert::IDENTITY);
        assert!(conversion("oat", "furlongs").unwrap_err().contains("degF"));
        assert!(conversion("my_custom_role", "degC").is_err());
        assert!(conversion("my_custom_role", "").is_ok());
    }
}
