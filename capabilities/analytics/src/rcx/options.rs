//! The report's options: the run config's `report` section, in the reference toolkit's shape.
//! `report.rcx` holds `top_n`, `title`, `sections`, `price`, `loads`, `cost_params` (and
//! `references`, which [`crate::config`] reads for the run); `report.price` and `report.loads`
//! at the top of the section are read too, as the reference reads them for its older layout.
//! Keys this engine has no use for (`week`, `paper`, `chart_format`, `dpi`, `occupancy`,
//! `sequence`, `prose`, ...) are accepted and ignored, so a config written for the reference
//! loads unchanged; a wrong type on a key read here is refused with its path.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

/// The cost model's documented default assumptions (the reference's `fault_economics.DEFAULTS`),
/// each overridable by `report.rcx.cost_params`.
pub const COST_DEFAULTS: &[(&str, f64, &str)] = &[
    ("boiler_efficiency", 0.80, "gas input = heat delivered / efficiency"),
    ("chiller_load_factor", 0.60, "mean chiller load as a fraction of full while it runs"),
    ("chiller_target_kw_per_ton", 0.65, "the efficiency target when the finding has no design value"),
    ("cool_cop", 3.5, "the cooling plant's COP for cooling that removes reheat"),
    ("ct_kw_per_approach_f", 0.015, "chiller power penalty per °F of tower approach above design"),
    ("fan_excess_frac", 0.15, "supply-fan power wasted while duct static rides high"),
    ("g36_gap_ref_f", 5.0, "the supply-air gap (°F) below target at which reheat is taken at full diversity"),
    ("per_start_loss", 0.005, "boiler standby and purge loss per excess start a day (capped at 10 %)"),
    ("pump_excess_frac", 0.15, "loop-pump power wasted riding its curve without a DP reset"),
    ("reheat_diversity", 0.30, "mean reheat output as a fraction of capacity while faulted"),
    ("reset_fan_excess_frac", 0.15, "fan power wasted while a static reset sits untrimmed"),
    (
        "unoccupied_fan_load_frac",
        0.5,
        "the supply fan's mean draw while it runs out of hours, as a fraction of fan_kw (this engine's own: the reference prices no night running)",
    ),
];

/// Optional cost parameters that have no default (set only by `cost_params`).
const COST_OPTIONAL: &[&str] = &["heat_pump_cop"];

/// Energy prices that value the waste (defaults are the reference's placeholders).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergyPrice {
    pub electricity_per_kwh: f64,
    pub gas_per_therm: f64,
    /// Whether the config set them (false: the placeholders).
    pub configured: bool,
}

impl Default for EnergyPrice {
    fn default() -> EnergyPrice {
        EnergyPrice { electricity_per_kwh: 0.15, gas_per_therm: 1.20, configured: false }
    }
}

/// One equipment's sizing, for the estimators that need it (all optional but `annual_hours`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EquipmentLoad {
    pub heating_capacity_kbtuh: Option<f64>,
    pub cooling_tons: Option<f64>,
    pub chiller_kw_per_ton: Option<f64>,
    pub fan_kw: Option<f64>,
    pub pump_kw: Option<f64>,
    /// Operating hours a year (8,760 unless given).
    pub annual_hours: f64,
    pub supply_airflow_cfm: Option<f64>,
    pub design_oa_cfm: Option<f64>,
    pub heat_pump_cop: Option<f64>,
}

impl Default for EquipmentLoad {
    fn default() -> EquipmentLoad {
        EquipmentLoad {
            heating_capacity_kbtuh: None,
            cooling_tons: None,
            chiller_kw_per_ton: None,
            fan_kw: None,
            pump_kw: None,
            annual_hours: 8760.0,
            supply_airflow_cfm: None,
            design_oa_cfm: None,
            heat_pump_cop: None,
        }
    }
}

/// What the report is built with: the `report` section of a run config, parsed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RcxOptions {
    /// How many ranked issues the executive summary lists (the report ranks them all).
    pub top_n: usize,
    /// The report's title (empty: "Retro-commissioning report — <site>").
    pub title: String,
    /// The section ids to include (`None`: all).
    pub sections: Option<Vec<String>>,
    pub price: EnergyPrice,
    /// equipment -> its sizing.
    pub loads: BTreeMap<String, EquipmentLoad>,
    /// The cost assumptions in force: the defaults with `cost_params` over them.
    pub cost_params: BTreeMap<String, f64>,
    /// The `cost_params` keys the config set.
    pub cost_configured: Vec<String>,
    /// `source.kind` of the run config ("store": roles recorded at ingest).
    pub source_kind: String,
}

impl Default for RcxOptions {
    fn default() -> RcxOptions {
        RcxOptions {
            top_n: 8,
            title: String::new(),
            sections: None,
            price: EnergyPrice::default(),
            loads: BTreeMap::new(),
            cost_params: COST_DEFAULTS.iter().map(|(k, v, _)| (k.to_string(), *v)).collect(),
            cost_configured: Vec::new(),
            source_kind: String::new(),
        }
    }
}

fn number(v: &Value, place: &str) -> Result<f64, String> {
    v.as_f64().filter(|x| x.is_finite()).ok_or(format!("{place} must be a number"))
}

fn non_negative(v: &Value, place: &str) -> Result<f64, String> {
    let x = number(v, place)?;
    if x < 0.0 {
        return Err(format!("{place} must not be negative (got {x})"));
    }
    Ok(x)
}

/// A rate in `per` units converted to dollars per `to` (kWh or therm).
fn convert_rate(rate: f64, per: &str, to: &str, place: &str) -> Result<f64, String> {
    let per_l = per.trim().to_ascii_lowercase();
    // how many of `to` one `per` unit holds
    let holds = match (to, per_l.as_str()) {
        ("kWh", "kwh") => 1.0,
        ("kWh", "mwh") => 1000.0,
        ("kWh", "wh") => 0.001,
        ("therm", "therm") | ("therm", "therms") => 1.0,
        ("therm", "dth") | ("therm", "dekatherm") | ("therm", "mmbtu") => 10.0,
        ("therm", "kbtu") => 0.01,
        ("therm", "gj") => 9.478_171_2,
        _ => {
            return Err(format!(
                "{place}.per '{per}' is not a unit read here (electricity: kWh, MWh, Wh; gas: therm, Dth, MMBtu, kBtu, GJ; a gas volume needs its heat content: give the rate per therm)"
            ))
        }
    };
    Ok(rate / holds)
}

fn parse_price(v: &Value, place: &str) -> Result<EnergyPrice, String> {
    let Value::Object(m) = v else { return Err(format!("{place} must be an object")) };
    let mut p = EnergyPrice { configured: true, ..EnergyPrice::default() };
    for (fuel, key, to) in [("electricity", "electricity_per_kwh", "kWh"), ("gas", "gas_per_therm", "therm")] {
        match (m.get(key), m.get(fuel)) {
            (Some(_), Some(_)) => return Err(format!("{place}: give {key} or {fuel}, not both")),
            (Some(x), None) => {
                let x = non_negative(x, &format!("{place}.{key}"))?;
                if key == "electricity_per_kwh" {
                    p.electricity_per_kwh = x
                } else {
                    p.gas_per_therm = x
                }
            }
            (None, Some(r)) => {
                let fp = format!("{place}.{fuel}");
                let (Some(rate), Some(per)) = (r.get("rate"), r.get("per").and_then(Value::as_str)) else {
                    return Err(format!("{fp} must be {{\"rate\": ..., \"per\": \"<unit>\"}}"));
                };
                let x = convert_rate(non_negative(rate, &format!("{fp}.rate"))?, per, to, &fp)?;
                if key == "electricity_per_kwh" {
                    p.electricity_per_kwh = x
                } else {
                    p.gas_per_therm = x
                }
            }
            (None, None) => {}
        }
    }
    Ok(p)
}

fn parse_load(v: &Value, place: &str) -> Result<EquipmentLoad, String> {
    let Value::Object(m) = v else { return Err(format!("{place} must be an object of sizing values")) };
    let mut l = EquipmentLoad::default();
    for (k, x) in m {
        let p = format!("{place}.{k}");
        if x.is_null() {
            continue;
        }
        let val = non_negative(x, &p)?;
        let slot = match k.as_str() {
            "heating_capacity_kbtuh" => &mut l.heating_capacity_kbtuh,
            "cooling_tons" => &mut l.cooling_tons,
            "chiller_kw_per_ton" => &mut l.chiller_kw_per_ton,
            "fan_kw" => &mut l.fan_kw,
            "pump_kw" => &mut l.pump_kw,
            "supply_airflow_cfm" => &mut l.supply_airflow_cfm,
            "design_oa_cfm" => &mut l.design_oa_cfm,
            "heat_pump_cop" => &mut l.heat_pump_cop,
            "annual_hours" => {
                l.annual_hours = val;
                continue;
            }
            _ => return Err(format!("{place} has an unknown sizing key '{k}' (heating_capacity_kbtuh, cooling_tons, chiller_kw_per_ton, fan_kw, pump_kw, annual_hours, supply_airflow_cfm, design_oa_cfm, heat_pump_cop)")),
        };
        *slot = Some(val);
    }
    Ok(l)
}

impl RcxOptions {
    /// The options of a whole run config (its `report` section and `source.kind`); a config
    /// without a `report` section gives the defaults. The error names the key that is wrong.
    pub fn from_config(config: &Value) -> Result<RcxOptions, String> {
        let mut o = RcxOptions::from_report(config.get("report"))?;
        o.source_kind = config.get("source").and_then(|s| s.get("kind")).and_then(Value::as_str).unwrap_or("").into();
        Ok(o)
    }

    /// The options of a `report` section (`None` or null: the defaults).
    pub fn from_report(report: Option<&Value>) -> Result<RcxOptions, String> {
        let mut o = RcxOptions::default();
        let empty = Map::new();
        let report = match report {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return Err("'report' must be an object".into()),
        };
        let rcx = match report.get("rcx") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return Err("report.rcx must be an object".into()),
        };
        if let Some(n) = rcx.get("top_n").filter(|v| !v.is_null()) {
            let x = n.as_u64().filter(|x| *x >= 1).ok_or("report.rcx.top_n must be a whole number of at least 1")?;
            o.top_n = x.min(1000) as usize;
        }
        if let Some(t) = rcx.get("title").filter(|v| !v.is_null()) {
            o.title = t.as_str().ok_or("report.rcx.title must be a string")?.to_string();
        }
        if let Some(s) = rcx.get("sections").filter(|v| !v.is_null()) {
            let list = s
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>())
                .ok_or("report.rcx.sections must be a list of section ids")?;
            if !list.is_empty() {
                o.sections = Some(list);
            }
        }
        let price = rcx.get("price").filter(|v| !v.is_null()).map(|p| (p, "report.rcx.price"));
        let price = price.or(report.get("price").filter(|v| !v.is_null()).map(|p| (p, "report.price")));
        if let Some((p, place)) = price {
            o.price = parse_price(p, place)?;
        }
        let loads = rcx.get("loads").filter(|v| !v.is_null()).map(|p| (p, "report.rcx.loads"));
        let loads = loads.or(report.get("loads").filter(|v| !v.is_null()).map(|p| (p, "report.loads")));
        if let Some((l, place)) = loads {
            let Value::Object(m) = l else { return Err(format!("{place} must map equipment ids to sizing")) };
            for (equip, v) in m {
                o.loads.insert(equip.clone(), parse_load(v, &format!("{place}.{equip}"))?);
            }
        }
        if let Some(c) = rcx.get("cost_params").filter(|v| !v.is_null()) {
            let Value::Object(m) = c else { return Err("report.rcx.cost_params must be an object".into()) };
            for (k, v) in m {
                let known = COST_DEFAULTS.iter().any(|(n, _, _)| n == k) || COST_OPTIONAL.contains(&k.as_str());
                if !known {
                    let names: Vec<&str> =
                        COST_DEFAULTS.iter().map(|(n, _, _)| *n).chain(COST_OPTIONAL.iter().copied()).collect();
                    return Err(format!(
                        "report.rcx.cost_params has an unknown assumption '{k}' (known: {})",
                        names.join(", ")
                    ));
                }
                let x = non_negative(v, &format!("report.rcx.cost_params.{k}"))?;
                if x == 0.0 && ["boiler_efficiency", "cool_cop", "g36_gap_ref_f", "heat_pump_cop"].contains(&k.as_str())
                {
                    return Err(format!("report.rcx.cost_params.{k} must be above 0 (it divides)"));
                }
                o.cost_params.insert(k.clone(), x);
                o.cost_configured.push(k.clone());
            }
        }
        Ok(o)
    }

    /// A cost assumption in force (0 for an unknown name, which the parser refuses).
    pub fn param(&self, name: &str) -> f64 {
        self.cost_params.get(name).copied().unwrap_or(0.0)
    }

    /// Whether a section id is wanted.
    pub fn wants(&self, id: &str) -> bool {
        let base = if id.starts_with("issue-") { "issues" } else { id };
        self.sections.as_ref().is_none_or(|s| s.iter().any(|x| x == base || x == id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_overrides() {
        let d = RcxOptions::from_config(&json!({})).unwrap();
        assert_eq!((d.top_n, d.price.electricity_per_kwh, d.price.gas_per_therm), (8, 0.15, 1.2));
        assert_eq!(d.param("reheat_diversity"), 0.3);
        assert_eq!(d.param("boiler_efficiency"), 0.8);
        let o = RcxOptions::from_config(&json!({
            "source": {"kind": "store"},
            "report": {"rcx": {"top_n": 3, "title": "T", "price": {"electricity": {"rate": 95, "per": "MWh"}, "gas_per_therm": 0.9},
                "cost_params": {"boiler_efficiency": 0.9, "heat_pump_cop": 3.0},
                "loads": {"AHU-1": {"heating_capacity_kbtuh": 400, "fan_kw": 7.5}}, "week": "typical"}}
        }))
        .unwrap();
        assert_eq!((o.top_n, o.title.as_str(), o.source_kind.as_str()), (3, "T", "store"));
        assert!((o.price.electricity_per_kwh - 0.095).abs() < 1e-12 && o.price.gas_per_therm == 0.9);
        assert!(o.price.configured);
        assert_eq!((o.param("boiler_efficiency"), o.param("heat_pump_cop"), o.param("cool_cop")), (0.9, 3.0, 3.5));
        assert_eq!(o.loads["AHU-1"].heating_capacity_kbtuh, Some(400.0));
        assert_eq!(o.loads["AHU-1"].annual_hours, 8760.0);
        // the older layout's top-level price and loads
        let old =
            RcxOptions::from_report(Some(&json!({"loads": {"B": {"pump_kw": 5}}, "price": {"gas_per_therm": 2}})))
                .unwrap();
        assert_eq!((old.loads["B"].pump_kw, old.price.gas_per_therm), (Some(5.0), 2.0));
    }

    #[test]
    fn mistakes_are_named() {
        let e = |v: Value| RcxOptions::from_report(Some(&v)).unwrap_err();
        assert!(e(json!({"rcx": {"top_n": 0}})).contains("top_n"));
        assert!(e(json!({"rcx": {"cost_params": {"reheat_diversty": 0.2}}})).contains("'reheat_diversty'"));
        assert!(e(json!({"rcx": {"cost_params": {"cool_cop": 0}}})).contains("above 0"));
        assert!(e(json!({"rcx": {"price": {"electricity_per_kwh": -1}}})).contains("negative"));
        assert!(e(json!({"rcx": {"price": {"gas": {"rate": 8, "per": "Mcf"}}}})).contains("heat content"));
        assert!(e(json!({"rcx": {"loads": {"A": {"fan_hp": 3}}}})).contains("'fan_hp'"));
        assert!(
            e(json!({"rcx": {"price": {"gas_per_therm": 1, "gas": {"rate": 1, "per": "therm"}}}})).contains("not both")
        );
        assert!(e(json!([])).contains("object"));
    }
}
