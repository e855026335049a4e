//! Unit spellings as exports and models write them (`°F`, `DEG_F`, `gal/min`, `inH₂O`, `[C]`,
//! QUDT local names) read into the spellings `camber ingest` converts from, and which roles a unit
//! can belong to.

use camber_common::roles::{Kind, Role};

/// What a unit measures, so that a unit and a role can be checked against each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Temperature,
    /// Air-side pressure (inH2O, Pa).
    AirPressure,
    /// Water-side pressure (psi, kPa, bar, ft of head).
    WaterPressure,
    /// Volume flow (cfm, gpm, L/s, m³/s): the role says air or water.
    VolumeFlow,
    Power,
    Percent,
    Ppm,
    /// A 0/1 or on/off signal.
    Binary,
    /// A quantity camber stores no role in (mass flow, energy, kg/s, J).
    Other,
}

/// A unit as the ingest reads it (`degF`, `degC`, `K`, `inH2O`, `Pa`, `kPa`, `psi`, `bar`, `cfm`,
/// `gpm`, `L/s`, `L/min`, `m3/s`, `m3/h`, `kW`, `W`, `Btu/h`, `%`, `%RH`, `fraction`, `ppm`), with
/// its dimension; `None` when the spelling is not a unit this knows.
pub fn normalize(raw: &str) -> Option<(&'static str, Dimension)> {
    let k: String =
        raw.trim().replace("₂", "2").replace("³", "3").replace(['°', 'º', ' ', '_', '-'], "").to_ascii_lowercase();
    use Dimension::*;
    Some(match k.as_str() {
        "f" | "degf" | "fahrenheit" | "degreefahrenheit" | "degreesfahrenheit" => ("degF", Temperature),
        "c" | "degc" | "celsius" | "degreecelsius" | "degreescelsius" => ("degC", Temperature),
        "k" | "kelvin" => ("K", Temperature),
        "inh2o" | "inwc" | "in.wc" | "iwc" | "inchesofwater" | "in.h2o" => ("inH2O", AirPressure),
        "pa" | "pascal" | "pascals" => ("Pa", AirPressure),
        "kpa" | "kilopa" | "kilopascal" | "kilopascals" => ("kPa", WaterPressure),
        "psi" | "psig" | "lbf/in2" | "lbfperin2" | "poundforcepersquareinch" => ("psi", WaterPressure),
        "bar" => ("bar", WaterPressure),
        "cfm" | "ft3/min" | "ft3permin" | "cubicfeetperminute" => ("cfm", VolumeFlow),
        "gpm" | "gal/min" | "galuspermin" | "usgpm" | "usgallonsperminute" | "gallonsperminute" => ("gpm", VolumeFlow),
        "l/s" | "lps" | "lpersec" | "literspersecond" | "litrespersecond" => ("L/s", VolumeFlow),
        "l/min" | "lpm" | "lpermin" => ("L/min", VolumeFlow),
        "m3/s" | "m3persec" | "cubicmeterspersecond" => ("m3/s", VolumeFlow),
        "m3/h" | "m3/hr" | "m3perhr" | "cmh" => ("m3/h", VolumeFlow),
        "kw" | "kilow" | "kilowatt" | "kilowatts" => ("kW", Power),
        "w" | "watt" | "watts" => ("W", Power),
        "mw" | "megaw" => ("MW", Power),
        "btu/h" | "btuh" | "btu/hr" | "btuperhr" | "btuithr" => ("Btu/h", Power),
        "%" | "percent" | "pct" | "%open" => ("%", Percent),
        "%rh" | "rh" | "percentrh" | "percentrelativehumidity" => ("%RH", Percent),
        "fraction" | "01" | "ratio" | "unitless" => ("fraction", Percent),
        "ppm" | "partspermillion" => ("ppm", Ppm),
        "onoff" | "on/off" | "bool" | "boolean" | "binary" => ("", Binary),
        "kg/s" | "kgpersec" | "j" | "kwh" | "wh" | "mwh" | "therm" | "kj" | "gj" => ("", Other),
        _ => return None,
    })
}

/// The dimension a role's readings have.
pub fn role_dimension(r: &Role) -> Option<Dimension> {
    use Dimension::*;
    if r.kind == Kind::Status {
        return Some(Binary);
    }
    if r.kind == Kind::Percent {
        return Some(Percent);
    }
    Some(match r.unit {
        "degF" => Temperature,
        "inH2O" => AirPressure,
        "psi" | "psig" => WaterPressure,
        "cfm" | "gpm" => VolumeFlow,
        "kW" => Power,
        "ppm" => Ppm,
        _ => return None,
    })
}

/// Whether readings in `unit` can be stored as `role` (unknown dimensions are let through: the
/// ingest decides). A volume flow for an air role must be an air unit and for a water role a
/// water unit where the spelling says which.
pub fn fits(unit: &str, r: &Role) -> bool {
    let Some((u, d)) = normalize(unit) else { return true };
    let Some(rd) = role_dimension(r) else { return d != Dimension::Other };
    if d == Dimension::Binary {
        return rd == Dimension::Binary;
    }
    let pressure = |x: Dimension| matches!(x, Dimension::AirPressure | Dimension::WaterPressure);
    if pressure(d) && pressure(rd) {
        // kPa serves both sides; Pa is only air-side, psi and bar only water-side
        return u == "kPa" || d == rd;
    }
    if d == Dimension::VolumeFlow && rd == Dimension::VolumeFlow {
        return !matches!((r.unit, u), ("cfm", "gpm" | "L/min") | ("gpm", "cfm" | "m3/s"));
    }
    d == rd
}

#[cfg(test)]
mod tests {
    use super::*;
    use camber_common::roles::role;

    #[test]
    fn spellings_and_fits() {
        assert_eq!(normalize("°F"), Some(("degF", Dimension::Temperature)));
        assert_eq!(normalize("DEG_C"), Some(("degC", Dimension::Temperature)));
        assert_eq!(normalize("GAL_US-PER-MIN").map(|u| u.0), Some("gpm"));
        assert_eq!(normalize("gal/min").map(|u| u.0), Some("gpm"));
        assert_eq!(normalize("inH₂O").map(|u| u.0), Some("inH2O"));
        assert_eq!(normalize("FT3-PER-MIN").map(|u| u.0), Some("cfm"));
        assert_eq!(normalize("furlongs"), None);
        let r = |n| role(n).unwrap();
        assert!(fits("°C", r("supply_air_temp")));
        assert!(!fits("cfm", r("supply_air_temp")));
        assert!(!fits("gpm", r("airflow")));
        assert!(fits("L/s", r("airflow")) && fits("L/s", r("chw_flow")));
        // a box's minimum airflow is an air flow, as its airflow is
        assert!(fits("L/s", r("airflow_min_sp")) && !fits("gpm", r("airflow_min_sp")));
        assert!(fits("kPa", r("chw_diff_press")) && !fits("inH2O", r("hw_diff_press_sp")));
        assert!(fits("Btu/h", r("gas_input_rate")) && !fits("degF", r("gas_input_rate")));
        assert!(!fits("Pa", r("pump_head")) && fits("Pa", r("duct_static")));
        assert!(fits("%", r("cool_valve")) && !fits("%", r("supply_air_temp")));
        assert!(!fits("kg/s", r("airflow")));
        assert!(fits("weird", r("airflow")));
    }
}
