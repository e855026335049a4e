//! The `rule_params` capability: the rules camber runs and the opt-in drift detectors (which
//! the drift capability runs, not rule_run), the equipment families each is written for, and
//! their tunable parameters (default, unit, range or choices; with `detail`, why the default is
//! what it is and how to set it for a real building). Reads no building data.

use camber_analytics::drift::{self, DetectorSpec};
use camber_analytics::engine::{Inputs, ParamSpec, RuleSpec};
use camber_analytics::rules;
use camber_sdk::{name, page, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "rules": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 100}, "minItems": 1, "maxItems": 100,
                      "description": "only these rule or drift detector ids"},
            "query": {"type": "string", "minLength": 1, "maxLength": 200,
                      "description": "words that must all appear in a rule's id, families or parameter names (case-insensitive)"},
            "detail": {"type": "boolean", "description": "also each parameter's basis and calibration advice (pages of 10)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "rules per page (default 25, 10 with detail)"},
            "offset": {"type": "integer", "minimum": 0}
        }
    })
}

fn output_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["count", "rules"],
        "additionalProperties": false,
        "properties": {
            "count": {"type": "integer", "minimum": 0, "description": "matching rules (the whole list)"},
            "rules": {"type": "array", "items": {
                "type": "object",
                "required": ["rule", "kind", "run_with", "equip_families", "inputs", "params"],
                "additionalProperties": false,
                "properties": {
                    "rule": {"type": "string"},
                    "kind": {"type": "string", "enum": ["rule", "drift_detector"]},
                    "drift_family": {"type": "string", "description": "a detector's family, the prefix of its finding ids (pump:pump_flow_drift@CHWP-1)"},
                    "run_with": {"type": "string", "enum": ["rule_run", "drift"]},
                    "equip_families": {"type": "array", "items": {"type": "string"}},
                    "judges": {"type": "string", "enum": ["fleet"], "description": "a fleet rule: it judges the units of each group together (the boxes an air handler serves, per the run config's topology, else a class), one finding per group with id <rule>@<fleet:GROUP> and the units it implicates in equips"},
                    "inputs": {"type": "object"},
                    "params": {"type": "array", "items": {"type": "object"}}
                }
            }}
        }
    })
}

/// What rule_params lists of a rule or a drift detector.
pub struct Entry<'a> {
    pub id: &'static str,
    pub kind: &'static str,
    pub run_with: &'static str,
    pub drift_family: Option<&'static str>,
    pub families: &'a [&'static str],
    pub inputs: &'a Inputs,
    pub params: &'a [ParamSpec],
    /// Whether the rule judges a fleet of units together (one finding per group).
    pub fleet: bool,
}

impl<'a> Entry<'a> {
    /// A rule's entry; `fleet` says whether it judges a fleet of units together.
    pub fn rule(s: &'a RuleSpec, fleet: bool) -> Self {
        Entry {
            id: s.id,
            kind: "rule",
            run_with: "rule_run",
            drift_family: None,
            families: s.families,
            inputs: &s.inputs,
            params: &s.params,
            fleet,
        }
    }
}

impl<'a> From<&'a DetectorSpec> for Entry<'a> {
    fn from(s: &'a DetectorSpec) -> Self {
        Entry {
            id: s.id,
            kind: "drift_detector",
            run_with: "drift",
            drift_family: Some(s.drift_family),
            families: s.families,
            inputs: &s.inputs,
            params: &s.params,
            fleet: false,
        }
    }
}

/// One entry's row.
pub fn row(s: &Entry, detail: bool) -> Value {
    let params: Vec<Value> = s
        .params
        .iter()
        .map(|p| {
            let mut r = json!({"name": p.name, "default": p.default.to_json(), "unit": p.unit});
            if let Some((lo, hi)) = p.range {
                r["range"] = json!([lo, hi]);
            }
            if !p.choices.is_empty() {
                r["choices"] = json!(p.choices);
            }
            if detail {
                r["basis"] = json!(p.basis);
                r["calibrate"] = json!(p.calibrate);
            }
            r
        })
        .collect();
    let mut r = json!({
        "rule": s.id, "kind": s.kind, "run_with": s.run_with,
        "equip_families": s.families,
        "inputs": {"required": s.inputs.required, "optional": s.inputs.optional, "gating": s.inputs.gating, "one_of": s.inputs.one_of},
        "params": params,
    });
    if let Some(f) = s.drift_family {
        r["drift_family"] = json!(f);
    }
    if s.fleet {
        r["judges"] = json!("fleet");
    }
    r
}

/// Whether every word of `query` is in the entry's id, kind, families or parameter names.
pub fn matches(s: &Entry, query: &str) -> bool {
    let hay = format!(
        "{} {} {} {}",
        s.id,
        s.kind,
        s.families.join(" "),
        s.params.iter().map(|p| p.name).collect::<Vec<_>>().join(" ")
    )
    .to_lowercase();
    query.to_lowercase().split_whitespace().all(|w| hay.contains(w))
}

fn rule_params(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let detail = args.get("detail").and_then(Value::as_bool).unwrap_or(false);
    let limit = camber_sdk::count_arg(args, "limit", if detail { 10 } else { 25 });
    let offset = camber_sdk::count_arg(args, "offset", 0);
    // each rule's spec is built once (a spec holds its parameter list)
    let rule_specs: Vec<(RuleSpec, bool)> = rules::all().iter().map(|r| ((r.spec)(), r.is_fleet())).collect();
    let detectors: Vec<DetectorSpec> = drift::all();
    let mut specs: Vec<Entry> =
        rule_specs.iter().map(|(s, fleet)| Entry::rule(s, *fleet)).chain(detectors.iter().map(Entry::from)).collect();
    specs.sort_by_key(|e| e.id);
    let wanted: Vec<String> = args
        .get("rules")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let unknown: Vec<String> = wanted.iter().filter(|w| !specs.iter().any(|s| s.id == w.as_str())).cloned().collect();
    if !unknown.is_empty() {
        let ids: Vec<&str> = specs.iter().map(|s| s.id).collect();
        return Err(CapError::not_found(
            format!(
                "no rule or drift detector {}; they are {}",
                unknown.iter().map(|u| name(u)).collect::<Vec<_>>().join(", "),
                ids.iter().take(10).map(|i| name(i)).collect::<Vec<_>>().join(", ")
            ),
            json!({"argument": "rules", "unknown": unknown, "available": ids}),
        ));
    }
    let query = args.get("query").and_then(Value::as_str);
    let selected: Vec<&Entry> = specs
        .iter()
        .filter(|s| wanted.is_empty() || wanted.iter().any(|w| w == s.id))
        .filter(|s| query.is_none_or(|q| matches(s, q)))
        .collect();
    let count = selected.len();
    let n_params: usize = selected.iter().map(|s| s.params.len()).sum();
    let n_drift = selected.iter().filter(|s| s.kind == "drift_detector").count();
    // only the page's rows are written out
    let (on_page, notice) = page(selected, "rules", offset, limit, "by rule id");
    let rows: Vec<Value> = on_page.iter().map(|s| row(s, detail)).collect();
    let what = if n_drift == 0 {
        format!("{count} rule(s) match")
    } else {
        format!(
            "{count} match ({} rule(s), {n_drift} drift detector(s), which the drift capability runs)",
            count - n_drift
        )
    };
    let facts = vec![json!({
        "id": "F1@rule_params", "kind": "rule_count", "value": count, "drift_detectors": n_drift, "params": n_params,
        "text": format!("{what}, with {n_params} tunable parameter(s) between them"),
    })];
    let text = format!("{what}, with {n_params} tunable parameter(s) between them [F1@rule_params].");
    let mut out = Output::new(json!({"count": count, "rules": rows}), text, facts);
    out.pages.extend(notice);
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("rule_params", rule_params)
            .title("Rules and their parameters")
            .description(
                "List the rules camber runs, and the opt-in drift detectors (kind drift_detector, run_with drift: \
                 the drift capability runs them, rule_run does not): each one's id, the equipment families it is written for, the \
                 inputs it reads (required, optional, and optional ones that gate its verdict) and its tunable \
                 parameters with defaults, units and ranges or choices; with detail, why each default is what it \
                 is and how to set it for a real building. Filter by rules (ids) or a query. Use it to explain a \
                 finding's thresholds or to choose params overrides for rule_run. Reads no building data.",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("cheap"),
    )
}

camber_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_queries() {
        let specs: Vec<RuleSpec> = rules::all().iter().map(|r| (r.spec)()).collect();
        let s = &Entry::rule(specs.iter().find(|s| s.id == "leaking_valve").unwrap(), false);
        let r = row(s, true);
        assert_eq!(r["run_with"], "rule_run");
        let p = r["params"].as_array().unwrap().iter().find(|p| p["name"] == "measured_fan_heat_f").unwrap();
        assert_eq!(p["default"], Value::Null);
        assert!(p["basis"].is_string());
        assert!(row(s, false)["params"][0].get("basis").is_none());
        assert!(matches(s, "LEAKING fan_heat"));
        assert!(!matches(s, "chiller"));
        assert_eq!(r["inputs"]["one_of"], json!([["cool_valve", "heat_valve"]]));
        let d = drift::spec("pump_flow_drift").unwrap();
        let r = row(&Entry::from(&d), false);
        assert_eq!(
            (r["kind"].as_str(), r["run_with"].as_str(), r["drift_family"].as_str()),
            (Some("drift_detector"), Some("drift"), Some("pump"))
        );
        assert!(matches(&Entry::from(&d), "drift_detector flow"));
    }
}
