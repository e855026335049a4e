//! Run configs: which equipment a run judges, with which rules and parameters, on what time
//! grid, under which trust floor, and which sensor references it compares. The format is the
//! reference toolkit's (JSON, or YAML read into the same shape): `source`, `equipment`,
//! `rules`, `resample`, `trust_gate`, `shared_oat`, `topology`, `report.rcx.references`; other sections
//! (`mapping`, `report` options) are kept as written for the capabilities that
//! read them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::engine::{EquipOverride, ParamValue, Params, RuleSpec};
use crate::rules;

/// The default time grid when a config names none (one hour, as the reference's).
pub const DEFAULT_RESAMPLE_NS: i64 = 3_600_000_000_000;

/// Which stored equipment a config runs on.
#[derive(Clone, Debug, PartialEq)]
pub struct EquipmentSel {
    /// A class or family name ("AHU", "air_handler").
    pub class: String,
    /// Only these equipment ids of the class, when given.
    pub equips: Option<Vec<String>>,
}

/// One rule a config runs and its parameter overrides.
#[derive(Clone, Debug)]
pub struct RuleSel {
    pub id: String,
    pub params: Params,
    /// Parameters the config set on another rule and this one takes from it
    /// ([`INHERITED_PARAMS`]): (parameter, where its value came from).
    pub inherited: Vec<(&'static str, &'static str)>,
}

/// Rules that take a parameter from another rule of the same config when the config sets it
/// there and not on them: (rule, parameter, the rule it comes from, the source a finding reports
/// for it). One site heating lockout judges the boiler and its hot-water pump alike.
pub const INHERITED_PARAMS: &[(&str, &str, &str, &str)] =
    &[("hw_pump_summer_lockout", "summer_lockout_oat_f", "boiler_summer_lockout", "config (boiler_summer_lockout's)")];

/// Give each rule of [`INHERITED_PARAMS`] the parameter its source rule sets (for every
/// equipment, and the source's per-equipment values after the rule's own), unless the rule sets
/// it itself anywhere.
fn inherit(rules: &mut [RuleSel]) {
    for &(rule, param, from, label) in INHERITED_PARAMS {
        let Some(src) = rules.iter().find(|r| r.id == from).map(|r| r.params.clone()) else { continue };
        let Some(sel) = rules.iter_mut().find(|r| r.id == rule) else { continue };
        let own =
            sel.params.values.contains_key(param) || sel.params.by_equip.iter().any(|(_, o)| o.contains_key(param));
        let theirs: Vec<EquipOverride> = src
            .by_equip
            .iter()
            .filter_map(|(pat, o)| o.get(param).map(|v| (pat.clone(), [(param.to_string(), v.clone())].into())))
            .collect();
        if own || (!src.values.contains_key(param) && theirs.is_empty()) {
            continue;
        }
        if let Some(v) = src.values.get(param) {
            sel.params.values.insert(param.to_string(), v.clone());
        }
        sel.params.by_equip.extend(theirs);
        sel.inherited.push((param, label));
    }
}

/// A sensor a config compares with a reference instrument (a duct logger, a weather station).
#[derive(Clone, Debug, PartialEq)]
pub struct Reference {
    pub equip: String,
    pub role: String,
    pub label: String,
}

/// A parsed, checked run config.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// The facility the config names (`source.facility_id`).
    pub facility_id: Option<String>,
    pub equipment: Vec<EquipmentSel>,
    pub rules: Vec<RuleSel>,
    /// The time grid, in nanoseconds: the config's `resample`, else the default hour (what M&V
    /// judges on under `native`; drift then reads [`crate::grid::drift_step`]).
    pub resample_ns: i64,
    /// No `resample` given (or `resample: native`): the rules judge each equipment on the
    /// interval its trends were logged at ([`crate::grid`]).
    pub native: bool,
    /// `trust_gate.min_trust`, when the config asks for one.
    pub min_trust: Option<f64>,
    /// Outdoor air shared by every equipment: (equipment, role).
    pub shared_oat: Option<(String, String)>,
    /// equipment -> role -> the reference it is compared with.
    pub references: BTreeMap<String, BTreeMap<String, Reference>>,
    /// The window the config restricts runs to (`source.start` / `source.end`, as written).
    pub start: Option<String>,
    pub end: Option<String>,
    /// Rules the config names that the reference toolkit has and this engine has not built
    /// ([`REFERENCE_ONLY_RULES`]): kept out of the run and named in its banner.
    pub not_built: Vec<String>,
    /// Which equipment serves which (`topology`), for the fleet rules' groups.
    pub topology: Option<crate::fleet::Topology>,
    /// The `drift` section: the families the drift capability runs, and their baselines.
    pub drift: Option<crate::drift::section::DriftSection>,
    /// The `mv` section: the M&V entries mv_summary measures.
    pub mv: Option<crate::mv::MvSection>,
    /// `units.system`: the unit system M&V savings are also stated in.
    pub units_system: Option<crate::mv::UnitSystem>,
}

/// The rule ids of the reference toolkit (camber-toolkit 0.110.0's rule_params) that this
/// engine has not built yet. A config written for the reference may name them: they are left
/// out of the run with a banner instead of refusing the config; any other unknown id is a
/// mistake and refused.
pub const REFERENCE_ONLY_RULES: &[&str] = &[];

/// Rules this engine has beyond the reference toolkit's: a config handed to the reference (the
/// side-by-side bench) leaves them out.
pub const CAMBER_ONLY_RULES: &[&str] = &["chiller_efficiency_peers"];

/// A duration such as "15min", "1h", "30s", "1d" (pandas' spellings "T", "H", "D" too) in ns.
pub fn parse_duration(s: &str) -> Option<i64> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let n: i64 = if split == 0 { 1 } else { t[..split].parse().ok()? };
    let unit = match t[split..].trim().to_ascii_lowercase().as_str() {
        "s" | "sec" | "second" | "seconds" => 1_000_000_000,
        "min" | "t" | "minute" | "minutes" | "m" => 60_000_000_000,
        "h" | "hour" | "hours" | "hr" => 3_600_000_000_000,
        "d" | "day" | "days" => 86_400_000_000_000,
        _ => return None,
    };
    (n > 0).then_some(n * unit)
}

/// A parameter value from JSON, typed by the parameter's declaration.
pub fn param_from_json(spec: &RuleSpec, name: &str, v: &Value) -> Result<ParamValue, String> {
    let Some(p) = spec.params.iter().find(|p| p.name == name) else {
        let known: Vec<&str> = spec.params.iter().map(|p| p.name).collect();
        return Err(format!("rule {} has no parameter '{name}' (its parameters: {})", spec.id, known.join(", ")));
    };
    let wrong = || format!("{}.{name} has the wrong type: expected {}", spec.id, kind_of(&p.default));
    Ok(match (&p.default, v) {
        (ParamValue::Number(_), Value::Number(n)) => ParamValue::Number(n.as_f64().ok_or_else(wrong)?),
        (ParamValue::Number(_), Value::Null) => ParamValue::Number(f64::NAN),
        // one of the words a number may take instead ("auto")
        (ParamValue::Number(_), Value::String(s)) if p.choices.contains(&s.as_str()) => ParamValue::Choice(s.clone()),
        (ParamValue::Flag(_), Value::Bool(b)) => ParamValue::Flag(Some(*b)),
        (ParamValue::Flag(_), Value::Null) => ParamValue::Flag(None),
        (ParamValue::Choice(_), Value::String(s)) => ParamValue::Choice(s.clone()),
        // a number whose default is one of its words ("auto"), given a number
        (ParamValue::Choice(_), Value::Number(n)) if p.range.is_some() => {
            ParamValue::Number(n.as_f64().ok_or_else(wrong)?)
        }
        // null unsets a choice whose default is unset (the check refuses it for any other)
        (ParamValue::Choice(_), Value::Null) => ParamValue::Choice(String::new()),
        (ParamValue::Names(_), Value::Array(a)) => ParamValue::Names(
            a.iter().map(|x| x.as_str().map(str::to_string).ok_or_else(wrong)).collect::<Result<_, _>>()?,
        ),
        // the comma-separated spelling: "damper,cool_valve"
        (ParamValue::Names(_), Value::String(t)) => {
            ParamValue::Names(t.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect())
        }
        (ParamValue::Map(_), Value::Null) => ParamValue::Map(BTreeMap::new()),
        (ParamValue::Map(_), Value::Object(m)) => ParamValue::Map(
            m.iter().map(|(k, x)| Ok((k.clone(), x.as_f64().ok_or_else(wrong)?))).collect::<Result<_, String>>()?,
        ),
        (ParamValue::List(_), Value::Array(a)) => {
            ParamValue::List(a.iter().map(|x| x.as_f64().ok_or_else(wrong)).collect::<Result<_, _>>()?)
        }
        // a month-by-month list may name some months only: {"6": 11.9, "7": 11.9}
        (ParamValue::List(_), Value::Object(m)) if name.ends_with("_by_month") => {
            let mut months = vec![f64::NAN; 12];
            for (k, x) in m {
                let slot = k
                    .parse::<usize>()
                    .ok()
                    .filter(|m| (1..=12).contains(m))
                    .ok_or(format!("{}.{name}: '{k}' is not a month number (1-12)", spec.id))?;
                months[slot - 1] = x.as_f64().ok_or_else(wrong)?;
            }
            ParamValue::List(months)
        }
        _ => return Err(wrong()),
    })
}

fn kind_of(v: &ParamValue) -> &'static str {
    match v {
        ParamValue::Number(_) => "a number",
        ParamValue::Flag(_) => "true or false",
        ParamValue::Choice(_) => "one of its choices",
        ParamValue::List(_) => "a list of numbers",
        ParamValue::Map(_) => "an object of named numbers (or of equipment patterns to such objects)",
        ParamValue::Names(_) => "a list of names",
    }
}

/// Overrides for one rule from a JSON object, checked against its declaration.
pub fn params_from_json(spec: &RuleSpec, obj: &Map<String, Value>) -> Result<Params, String> {
    let mut p = Params::default();
    for (k, v) in obj {
        // a call's per-equipment overrides sit beside its parameters
        if k == "equips" && !spec.params.iter().any(|s| s.name == "equips") {
            p.by_equip.extend(equip_overrides(spec, v, spec.id)?);
            continue;
        }
        // named numbers keyed by equipment patterns: {"RTU-*": {"subcooling_f": 10}}; a number
        // keyed by them: {"VAV-1": 70, "VAV-2*": 68}
        let keyed = spec.params.iter().find(|s| s.name == k).map(|s| &s.default);
        let (is_map, is_number) =
            (matches!(keyed, Some(ParamValue::Map(_))), matches!(keyed, Some(ParamValue::Number(_))));
        if let (true, Value::Object(m)) = (is_map || is_number, v) {
            if is_number || m.values().any(Value::is_object) {
                for (pattern, inner) in m {
                    let value = param_from_json(spec, k, inner)?;
                    p.by_equip.push((pattern.clone(), [(k.clone(), value)].into()));
                }
                continue;
            }
        }
        p.values.insert(k.clone(), param_from_json(spec, k, v)?);
    }
    p.check(spec)?;
    Ok(p)
}

/// A rule entry's `equips`: overrides for the equipment each pattern matches
/// (`{"AHU-2*": {"fan_heat_f": 2.5}}`), checked like the rule's own.
fn equip_overrides(spec: &RuleSpec, v: &Value, place: &str) -> Result<Vec<EquipOverride>, String> {
    let Value::Object(m) = v else {
        return Err(format!("{place}: 'equips' must map equipment patterns to parameter objects"));
    };
    let mut out = Vec::new();
    for (pattern, inner) in m {
        let Value::Object(o) = inner else {
            return Err(format!("{place}: equips.{pattern} must be an object of parameters"));
        };
        let p = params_from_json(spec, o)?;
        out.push((pattern.clone(), p.values));
        out.extend(p.by_equip);
    }
    Ok(out)
}

/// The declaration of a rule id, or an error naming the close and the known ids.
pub fn rule_spec(id: &str) -> Result<RuleSpec, String> {
    let specs = rules::specs();
    if let Some(s) = specs.iter().find(|s| s.id == id) {
        return Ok(s.clone());
    }
    if crate::drift::spec(id).is_some() {
        return Err(format!("'{id}' is a drift detector: the drift capability runs it, not rule_run (rule_params lists it with run_with drift)"));
    }
    let known: Vec<&str> = specs.iter().map(|s| s.id).collect();
    let close: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| k.contains(id) || id.contains(k) || k.split('_').any(|w| w.len() > 3 && id.contains(w)))
        .take(3)
        .collect();
    let hint = if close.is_empty() { String::new() } else { format!(" (did you mean {}?)", close.join(", ")) };
    Err(format!("unknown rule '{id}'{hint}; known rules: {}", known.join(", ")))
}

fn string_at<'a>(v: &'a Value, key: &str, place: &str) -> Result<Option<&'a str>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{place}: '{key}' must be a string")),
    }
}

impl RunConfig {
    /// Parse and check a config; the error says what is wrong and where, on one line.
    pub fn from_value(v: &Value) -> Result<RunConfig, String> {
        let Value::Object(top) = v else {
            return Err("a run config must be a JSON object / YAML mapping at the top level".into());
        };
        let source = top.get("source").cloned().unwrap_or(Value::Null);
        if !(source.is_null() || source.is_object()) {
            return Err("'source' must be an object".into());
        }
        let facility_id = string_at(&source, "facility_id", "source")?.map(str::to_string);
        let start = string_at(&source, "start", "source")?.map(str::to_string);
        let end = string_at(&source, "end", "source")?.map(str::to_string);

        let mut equipment = Vec::new();
        match top.get("equipment") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, e) in items.iter().enumerate() {
                    let Some(class) = e.get("class").and_then(Value::as_str) else {
                        return Err(format!("equipment[{i}] must be an object with a \"class\" (e.g. {{\"class\": \"AHU\"}})"));
                    };
                    let equips = match e.get("equips") {
                        None | Some(Value::Null) => None,
                        Some(Value::Array(a)) => Some(a.iter().map(|x| x.as_str().map(str::to_string).ok_or(format!("equipment[{i}].equips must list equipment ids"))).collect::<Result<Vec<_>, _>>()?),
                        Some(_) => return Err(format!("equipment[{i}].equips must be a list of equipment ids")),
                    };
                    equipment.push(EquipmentSel { class: class.to_string(), equips });
                }
            }
            Some(Value::String(s)) => return Err(format!("'equipment' must be a list of {{\"class\": ...}} objects, not a string (write [{{\"class\": \"{s}\"}}])")),
            Some(_) => return Err("'equipment' must be a list of {\"class\": ...} objects".into()),
        }

        let mut rules = Vec::new();
        let mut not_built = Vec::new();
        let top_params = top.get("parameters").and_then(Value::as_object);
        match top.get("rules") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, r) in items.iter().enumerate() {
                    let (id, obj) = match r {
                        Value::String(s) => (s.as_str(), None),
                        Value::Object(o) => match o.get("name").and_then(Value::as_str) {
                            Some(n) => match o.get("params") {
                                None | Some(Value::Null) => (n, None),
                                Some(Value::Object(p)) => (n, Some(p)),
                                Some(_) => return Err(format!("rules[{i}] ({n}): 'params' must be an object")),
                            },
                            None => return Err(format!("rules[{i}] must be a rule name or an object with a \"name\"")),
                        },
                        _ => return Err(format!("rules[{i}] must be a rule name or an object with a \"name\"")),
                    };
                    if REFERENCE_ONLY_RULES.contains(&id) {
                        not_built.push(id.to_string());
                        continue;
                    }
                    let spec = rule_spec(id).map_err(|e| format!("rules[{i}]: {e}"))?;
                    // `parameters: {rule: {...}}` at the top level, then the entry's own
                    let mut merged = Map::new();
                    if let Some(p) = top_params.and_then(|t| t.get(id)).and_then(Value::as_object) {
                        merged.extend(p.clone());
                    }
                    if let Some(p) = obj {
                        merged.extend(p.clone());
                    }
                    let mut params = params_from_json(&spec, &merged).map_err(|e| format!("rules[{i}]: {e}"))?;
                    if let Some(e) = r.get("equips").filter(|e| !e.is_null()) {
                        let place = format!("rules[{i}] ({id})");
                        let mut own = equip_overrides(&spec, e, &place).map_err(|e| {
                            if e.starts_with("rules[") {
                                e
                            } else {
                                format!("{place}: {e}")
                            }
                        })?;
                        own.append(&mut params.by_equip);
                        params.by_equip = own;
                    }
                    rules.push(RuleSel { id: id.to_string(), params, inherited: Vec::new() });
                }
            }
            Some(Value::String(s)) => {
                return Err(format!("'rules' must be a list of rule names, not a string (write [\"{s}\"])"))
            }
            Some(_) => return Err("'rules' must be a list of rule names".into()),
        }
        if let Some(p) = top_params {
            for k in p.keys() {
                if !rules.iter().any(|r| &r.id == k) && !REFERENCE_ONLY_RULES.contains(&k.as_str()) {
                    rule_spec(k).map_err(|e| format!("parameters: {e}"))?;
                }
            }
        }

        let (resample_ns, native) = match top.get("resample") {
            None | Some(Value::Null) => (DEFAULT_RESAMPLE_NS, true),
            Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("native") => (DEFAULT_RESAMPLE_NS, true),
            Some(Value::String(s)) => (
                parse_duration(s).ok_or(format!(
                    "'resample' '{s}' is not a duration (e.g. \"15min\", \"1h\") or \"native\" (each equipment at its logged interval)"
                ))?,
                false,
            ),
            Some(_) => return Err("'resample' must be a duration such as \"15min\", or \"native\"".into()),
        };
        let min_trust = match top.get("trust_gate").and_then(|t| t.get("min_trust")) {
            None | Some(Value::Null) => None,
            Some(x) => match x.as_f64() {
                Some(m) if (0.0..=1.0).contains(&m) => Some(m),
                _ => return Err("trust_gate.min_trust must be a number between 0 and 1".into()),
            },
        };
        let shared_oat = match top.get("shared_oat") {
            None | Some(Value::Null) => None,
            Some(so @ Value::Object(_)) => string_at(so, "equip", "shared_oat")?.map(|e| {
                (e.to_string(), string_at(so, "role", "shared_oat").ok().flatten().unwrap_or("oat").to_string())
            }),
            Some(_) => return Err("'shared_oat' must be an object".into()),
        };
        let mut references: BTreeMap<String, BTreeMap<String, Reference>> = BTreeMap::new();
        if let Some(refs) = top.get("report").and_then(|r| r.get("rcx")).and_then(|r| r.get("references")) {
            let Value::Object(by_equip) = refs else {
                return Err("report.rcx.references must map equipment ids to roles".into());
            };
            for (equip, roles) in by_equip {
                let Value::Object(roles) = roles else {
                    return Err(format!("report.rcx.references.{equip} must map roles to references"));
                };
                for (role, r) in roles {
                    let place = format!("report.rcx.references.{equip}.{role}");
                    let Some(req) = string_at(r, "equip", &place)? else {
                        return Err(format!("{place} needs the reference's \"equip\""));
                    };
                    let rrole = string_at(r, "role", &place)?.unwrap_or(role);
                    let label = string_at(r, "label", &place)?.unwrap_or("reference");
                    references.entry(equip.clone()).or_default().insert(
                        role.clone(),
                        Reference { equip: req.to_string(), role: rrole.to_string(), label: label.to_string() },
                    );
                }
            }
        }
        let topology = match top.get("topology") {
            None | Some(Value::Null) => None,
            Some(t) => Some(crate::fleet::Topology::from_value(t)?),
        };
        let drift = crate::drift::section::DriftSection::from_value(top.get("drift"))?;
        let mv = crate::mv::MvSection::from_value(top.get("mv"))?;
        let units_system = match top.get("units").and_then(|u| u.get("system")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(crate::mv::UnitSystem::parse(s)?),
            Some(_) => return Err("units.system must be 'ip' or 'si'".into()),
        };
        if let Some(m) = &mv {
            crate::mv::run::check_units(m, units_system)?;
        }
        inherit(&mut rules);
        Ok(RunConfig {
            drift,
            mv,
            units_system,
            topology,
            facility_id,
            equipment,
            rules,
            resample_ns,
            native,
            min_trust,
            shared_oat,
            references,
            start,
            end,
            not_built,
        })
    }

    /// The config of a store with no config of its own: every stored class, every rule at its
    /// defaults, each equipment on its logged interval (`native`); a weather equipment's outdoor air shared.
    pub fn store_backed(facility_id: &str, classes: &[String], weather_equip: Option<&str>) -> Value {
        let rules: Vec<Value> = rules::all().iter().map(|r| Value::String((r.spec)().id.to_string())).collect();
        let mut v = serde_json::json!({
            "source": {"kind": "store", "facility_id": facility_id},
            "equipment": classes.iter().map(|c| serde_json::json!({"class": c})).collect::<Vec<_>>(),
            "rules": rules,
            "resample": "native",
        });
        if let Some(w) = weather_equip {
            v["shared_oat"] = serde_json::json!({"equip": w, "role": "oat"});
        }
        v
    }

    /// The grid step (ns) a frame of this run stands on: the config's `resample`, or under
    /// `native` the frame's own spacing (the interval the run read it at).
    pub fn step_of(&self, frame: &crate::Frame) -> i64 {
        if self.native {
            frame.typical_step().filter(|s| *s > 0).unwrap_or(self.resample_ns)
        } else {
            self.resample_ns
        }
    }

    /// The rule's overrides from the config (empty when it does not run the rule).
    pub fn params_of(&self, rule: &str) -> Option<&Params> {
        self.rules.iter().find(|r| r.id == rule).map(|r| &r.params)
    }

    /// Where a parameter of `rule` came from when the config set it on another rule and not on
    /// `rule` ([`INHERITED_PARAMS`]): the source a finding reports.
    pub fn inherited_from(&self, rule: &str, param: &str) -> Option<&'static str> {
        self.rules.iter().find(|r| r.id == rule)?.inherited.iter().find(|(p, _)| *p == param).map(|(_, f)| *f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rules_only_this_engine_has_are_built() {
        for id in CAMBER_ONLY_RULES {
            assert!(rule_spec(id).is_ok(), "{id}");
            assert!(!REFERENCE_ONLY_RULES.contains(id));
        }
    }

    #[test]
    fn a_reference_style_config_parses() {
        let c = RunConfig::from_value(&json!({
            "source": {"kind": "store", "store": "x", "facility_id": "ds-a"},
            "resample": "15min",
            "equipment": [{"class": "AHU", "marker_role": "mixed_air_temp"}],
            "rules": ["supply_air_control", {"name": "leaking_valve", "params": {"fan_heat_f": 2.5, "occupied_only": true}}],
            "trust_gate": {"min_trust": 0.7},
            "report": {"rcx": {"references": {"AHU-1": {"supply_air_temp": {"equip": "LOGGER-1", "label": "duct logger"}}}}}
        }))
        .unwrap();
        assert_eq!(c.facility_id.as_deref(), Some("ds-a"));
        assert_eq!(c.resample_ns, 15 * 60_000_000_000);
        assert_eq!(c.rules.len(), 2);
        assert_eq!(c.params_of("leaking_valve").unwrap().values["fan_heat_f"], ParamValue::Number(2.5));
        assert_eq!(c.min_trust, Some(0.7));
        assert_eq!(
            c.references["AHU-1"]["supply_air_temp"],
            Reference { equip: "LOGGER-1".into(), role: "supply_air_temp".into(), label: "duct logger".into() }
        );
    }

    #[test]
    fn the_pump_lockout_takes_the_boiler_lockout_the_config_sets() {
        let lockout = |c: &RunConfig, rule: &str, equip: &str| {
            c.params_of(rule).unwrap().for_equip(equip).values.get("summer_lockout_oat_f").cloned()
        };
        let c = RunConfig::from_value(&json!({"rules": [
            {"name": "boiler_summer_lockout", "params": {"summer_lockout_oat_f": 60}, "equips": {"PLANT-2": {"summer_lockout_oat_f": 58}}},
            "hw_pump_summer_lockout"]})).unwrap();
        assert_eq!(lockout(&c, "hw_pump_summer_lockout", "PLANT-1"), Some(ParamValue::Number(60.0)));
        assert_eq!(lockout(&c, "hw_pump_summer_lockout", "PLANT-2"), Some(ParamValue::Number(58.0)));
        assert_eq!(
            c.inherited_from("hw_pump_summer_lockout", "summer_lockout_oat_f"),
            Some("config (boiler_summer_lockout's)")
        );
        assert_eq!(c.inherited_from("boiler_summer_lockout", "summer_lockout_oat_f"), None);
        // the pump's own value wins, and nothing is taken when the boiler's is not set
        let c = RunConfig::from_value(&json!({"rules": [
            {"name": "boiler_summer_lockout", "params": {"summer_lockout_oat_f": 60}},
            {"name": "hw_pump_summer_lockout", "params": {"summer_lockout_oat_f": 70}}]}))
        .unwrap();
        assert_eq!(lockout(&c, "hw_pump_summer_lockout", "P"), Some(ParamValue::Number(70.0)));
        assert_eq!(c.inherited_from("hw_pump_summer_lockout", "summer_lockout_oat_f"), None);
        let c = RunConfig::from_value(&json!({"rules": ["boiler_summer_lockout", "hw_pump_summer_lockout"]})).unwrap();
        assert_eq!(lockout(&c, "hw_pump_summer_lockout", "P"), None);
        // the top-level parameters section counts as setting it
        let c = RunConfig::from_value(&json!({"rules": ["boiler_summer_lockout", "hw_pump_summer_lockout"],
            "parameters": {"boiler_summer_lockout": {"summer_lockout_oat_f": 62}}}))
        .unwrap();
        assert_eq!(lockout(&c, "hw_pump_summer_lockout", "P"), Some(ParamValue::Number(62.0)));
    }

    #[test]
    fn mistakes_are_named() {
        let e = |v: Value| RunConfig::from_value(&v).unwrap_err();
        assert!(e(json!([])).contains("top level"));
        assert!(e(json!({"rules": "leaking_valve"})).contains("write [\"leaking_valve\"]"));
        assert!(e(json!({"rules": ["leaky_valve"]})).contains("unknown rule 'leaky_valve'"));
        assert!(e(json!({"rules": ["pump_flow_drift"]})).contains("is a drift detector"));
        // every rule of the reference is built here: a config naming one runs it
        assert!(REFERENCE_ONLY_RULES.is_empty());
        let c = RunConfig::from_value(&json!({"rules": ["leaking_valve", {"name": "chiller_staging", "params": {"max_starts_per_day": 8}}], "parameters": {"chw_plant_reset": {"design_deltaT_min_f": 9}}})).unwrap();
        assert_eq!((c.rules.len(), c.not_built.len()), (2, 0));
        assert!(e(json!({"rules": [{"name": "chiller_staging", "params": {"x": 1}}]})).contains("no parameter 'x'"));
        assert!(e(json!({"rules": [{"name": "leaking_valve", "params": {"nope": 1}}]})).contains("no parameter 'nope'"));
        assert!(e(json!({"rules": [{"name": "leaking_valve", "params": {"occupied_only": 1}}]})).contains("wrong type"));
        assert!(e(json!({"resample": "fortnightly"})).contains("not a duration"));
        assert!(e(json!({"equipment": [{"klass": "AHU"}]})).contains("equipment[0]"));
        assert!(e(json!({"trust_gate": {"min_trust": 2}})).contains("min_trust"));
        assert!(e(json!({"rules": [{"name": "outdoor_air_fraction", "params": {"min_oa_pct_by_month": {"13": 5}}}]}))
            .contains("not a month number"));
    }

    #[test]
    fn a_month_map_names_some_months_and_leaves_the_rest_to_the_year_round_value() {
        let c = RunConfig::from_value(&json!({"rules": [{"name": "outdoor_air_fraction", "params": {"min_oa_pct": 30, "min_oa_pct_by_month": {"6": 11.9, "7": 12}}}]})).unwrap();
        let ParamValue::List(l) = &c.params_of("outdoor_air_fraction").unwrap().values["min_oa_pct_by_month"] else {
            panic!()
        };
        assert_eq!(l.len(), 12);
        assert_eq!((l[5], l[6]), (11.9, 12.0));
        assert_eq!(crate::engine::by_month(l, 6, 30.0), 11.9);
        assert_eq!(crate::engine::by_month(l, 1, 30.0), 30.0);
        assert_eq!(crate::engine::by_month(&[], 1, 30.0), 30.0);
    }

    #[test]
    fn a_number_keyed_by_equipment_applies_per_box_beside_other_overrides() {
        // the reference's per-box heating setpoint: {equip: °F}
        let c = RunConfig::from_value(&json!({"rules": [{
            "name": "reheat_capacity_shortfall",
            "params": {"heat_sp_f": {"VAV-1": 70, "VAV-2*": 68}, "tol_f": 2.0},
            "equips": {"VAV-1": {"min_hours": 5}}
        }]}))
        .unwrap();
        let p = c.params_of("reheat_capacity_shortfall").unwrap();
        let spec = rules::reheat_capacity_shortfall::spec();
        let one = p.for_equip("VAV-1");
        assert_eq!((one.number(&spec, "heat_sp_f"), one.number(&spec, "min_hours")), (70.0, 5.0));
        assert_eq!(one.number(&spec, "tol_f"), 2.0);
        assert_eq!(p.for_equip("VAV-21").number(&spec, "heat_sp_f"), 68.0);
        assert!(p.for_equip("VAV-3").number(&spec, "heat_sp_f").is_nan());
        let e = RunConfig::from_value(
            &json!({"rules": [{"name": "reheat_capacity_shortfall", "params": {"heat_sp_f": {"VAV-1": "warm"}}}]}),
        );
        assert!(e.unwrap_err().contains("wrong type"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1h"), Some(3_600_000_000_000));
        assert_eq!(parse_duration("15T"), Some(900_000_000_000));
        assert_eq!(parse_duration("H"), Some(3_600_000_000_000));
        assert_eq!(parse_duration("0min"), None);
        assert_eq!(parse_duration("5 parsecs"), None);
    }

    #[test]
    fn the_store_backed_config_runs_every_rule() {
        let v = RunConfig::store_backed("hq", &["AHU".into(), "WEATHER".into()], Some("WX-1"));
        let c = RunConfig::from_value(&v).unwrap();
        assert_eq!(c.rules.len(), rules::all().len());
        assert_eq!(c.shared_oat, Some(("WX-1".into(), "oat".into())));
    }
}
