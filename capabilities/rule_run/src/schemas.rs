//! The input and output schemas of the run capabilities.

use serde_json::{json, Value};

fn base_props() -> serde_json::Map<String, Value> {
    let ids = json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "minItems": 1, "maxItems": 500});
    let date = |d: &str| json!({"type": "string", "minLength": 4, "maxLength": 40, "description": d});
    let mut m = serde_json::Map::new();
    m.insert("facility_id".into(), json!({"type": "string", "minLength": 1, "maxLength": 200}));
    m.insert("equips".into(), ids.clone());
    m.insert("start".into(), date("window start: an ISO date or date-time in the site's wall clock"));
    m.insert("end".into(), date("window end (inclusive)"));
    m
}

fn run_props() -> serde_json::Map<String, Value> {
    let mut m = base_props();
    m.insert("rules".into(), json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 100}, "minItems": 1, "maxItems": 100, "description": "only these rules of the run config"}));
    m.insert("params".into(), json!({"type": "object", "description": "parameter overrides: {rule: {param: value}} (see rule_params); {rule: {\"equips\": {\"AHU-1*\": {param: value}}}} for the equipment a pattern matches"}));
    m
}

fn paged(mut m: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    m.insert("limit".into(), json!({"type": "integer", "minimum": 1, "maximum": 1000}));
    m.insert("offset".into(), json!({"type": "integer", "minimum": 0}));
    m
}

fn object(required: &[&str], props: serde_json::Map<String, Value>) -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "required": required, "properties": props})
}

const SEVERITY: &[&str] = &["ok", "info", "warn", "fault"];

pub fn rule_run_input() -> Value {
    let mut m = paged(run_props());
    m.insert("min_severity".into(), json!({"type": "string", "enum": SEVERITY, "description": "list only findings at least this bad (counts stay whole)"}));
    object(&["facility_id"], m)
}

pub fn finding_detail_input() -> Value {
    let mut m = run_props();
    m.insert("finding_id".into(), json!({"type": "string", "minLength": 3, "maxLength": 400, "description": "a finding_id from rule_run (leaking_valve@AHU-1), or from drift or rcx_report (tower:cooling_tower_fan_effort_drift@CT-1)"}));
    let pair = |d: &str| json!({"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": ["string", "null"], "maxLength": 40}, "description": d});
    m.insert(
        "baseline".into(),
        pair("a drift finding: the baseline window of the drift call (omit for the run config's drift section)"),
    );
    m.insert("current".into(), pair("a drift finding: the current window of the drift call"));
    m.insert(
        "limit".into(),
        json!({"type": "integer", "minimum": 1, "maximum": 1000, "description": "time spans per list (default 50)"}),
    );
    m.insert("offset".into(), json!({"type": "integer", "minimum": 0}));
    m.insert(
        "image".into(),
        json!({"type": "boolean", "default": true, "description": "attach the evidence chart as a PNG image beside the text (default true; false: text and data only)"}),
    );
    object(&["facility_id", "finding_id"], m)
}

pub fn sensor_trust_input() -> Value {
    let mut m = paged(base_props());
    m.insert("roles".into(), json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "minItems": 1, "maxItems": 500}));
    m.insert("view".into(), json!({"type": "string", "enum": ["rules", "report"], "description": "rules (default): the inputs the run's rules read; report: every point of the run's equipment"}));
    m.insert(
        "min_trust".into(),
        json!({"type": "number", "minimum": 0, "maximum": 1, "description": "a floor above the server's"}),
    );
    object(&["facility_id"], m)
}

fn run_block() -> Value {
    json!({"type": "object", "required": ["source", "from_config", "resample_minutes", "min_trust", "window", "equipment"]})
}

fn reference() -> Value {
    json!({"type": "object", "required": ["equip", "role", "reference", "reference_role", "label", "comparison"]})
}

pub fn rule_run_output() -> Value {
    let finding = json!({"type": "object",
    "required": ["finding_id", "rule", "equip", "equip_class", "severity", "summary", "caveats", "metrics", "judged_samples", "judged_basis", "flagged_samples", "share"],
    "properties": {
        "finding_id": {"type": "string"}, "rule": {"type": "string"}, "equip": {"type": "string"}, "equip_class": {"type": "string"},
        "severity": {"type": "string", "enum": SEVERITY}, "summary": {"type": "string"},
        "caveats": {"type": "array", "items": {"type": "string"}}, "metrics": {"type": "object"},
        "judged_samples": {"type": "integer"}, "judged_basis": {"type": "string"}, "flagged_samples": {"type": "integer"},
        "share": {"type": ["number", "null"]}, "declined": {"type": "array"}, "conditional_on": {"type": "array", "items": reference()},
        "group": {"type": ["string", "null"], "description": "a fleet finding's group: the equipment serving its units (topology), or a class pool; null for the whole fleet"},
        "members": {"type": "integer", "description": "a fleet finding: how many units it judged together"},
        "equips": {"type": "array", "items": {"type": "string"}, "description": "a fleet finding: the units it implicates, worst first"}
    }});
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "run", "counts", "n_findings", "declined", "findings", "n_skipped", "skipped"],
    "properties": {
        "facility_id": {"type": "string"}, "run": run_block(),
        "counts": {"type": "object", "required": ["fault", "warn", "info", "ok"], "properties": {
            "fault": {"type": "integer"}, "warn": {"type": "integer"}, "info": {"type": "integer"}, "ok": {"type": "integer"}}},
        "n_findings": {"type": "integer", "description": "findings listed at or above min_severity (the whole list)"},
        "declined": {"type": "integer"},
        "findings": {"type": "array", "items": finding},
        "n_skipped": {"type": "integer"},
        "skipped": {"type": "array", "items": {"type": "object", "required": ["rule", "equip", "missing"]}}
    }})
}

pub fn finding_detail_output() -> Value {
    let spans = json!({"type": "array", "items": {"type": "object", "required": ["start", "end", "hours", "samples"]}});
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "run", "finding_id", "rule", "equip", "severity", "summary", "caveats", "metrics", "params",
                 "judged_samples", "judged_basis", "judged_hours", "flagged_samples", "flagged_hours", "share", "violations",
                 "violations_note", "conditions", "conditional_on", "declined", "chart"],
    "properties": {
        "facility_id": {"type": "string"}, "run": run_block(), "finding_id": {"type": "string"}, "rule": {"type": "string"},
        "equip": {"type": "string"}, "severity": {"type": "string", "enum": SEVERITY}, "summary": {"type": "string"},
        "caveats": {"type": "array"}, "metrics": {"type": "object"},
        "params": {"type": "array", "items": {"type": "object", "required": ["name", "value", "unit", "source"]}},
        "judged_samples": {"type": "integer"}, "judged_basis": {"type": "string"}, "judged_hours": {"type": "number"},
        "flagged_samples": {"type": "integer"},
        "flagged_hours": {"type": ["number", "null"], "description": "null for an event rule, whose flagged samples are instants (see events)"},
        "events": {"type": ["integer", "null"], "description": "an event rule's flagged events (a control loop's direction reversals), counted apart from hours"},
        "share": {"type": ["number", "null"]},
        "violations": spans.clone(), "violations_note": {"type": ["string", "null"]},
        "conditions": {"type": "array", "items": {"type": "object", "required": ["name", "judged_samples", "flagged_samples", "judged_hours", "flagged_hours", "share", "violations"]}},
        "conditional_on": {"type": "array", "items": reference()}, "declined": {"type": "array"},
        "chart": {"type": "object", "required": ["kind", "roles"], "properties": {
            "spans": {"type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                      "description": "every flagged span [start, end], the closest merged down to 100: what the chart shades"},
            "image": {"type": "boolean", "description": "whether the host attaches the chart as an image"}}},
        "group": {"type": ["string", "null"]}, "members": {"type": "array", "items": {"type": "string"}},
        "family": {"type": "string", "description": "a drift finding: its drift family"},
        "baseline_source": {"type": "string", "description": "a drift finding: what it was compared with"},
        "equips": {"type": "array", "items": {"type": "string"}, "description": "a fleet finding: the units it implicates, worst first"}
    }})
}

pub fn sensor_trust_output() -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "run", "view", "min_trust", "n_points", "below_floor", "points", "references"],
    "properties": {
        "facility_id": {"type": "string"}, "run": run_block(), "view": {"type": "string"}, "min_trust": {"type": "number"},
        "n_points": {"type": "integer"}, "below_floor": {"type": "integer"},
        "points": {"type": "array", "items": {"type": "object", "required": ["equip", "role", "trust", "verdict", "flags", "coverage", "samples", "below_floor"]}},
        "references": {"type": "array", "items": reference()}
    }})
}

pub fn drift_input() -> Value {
    let pair = |d: &str| json!({"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": ["string", "null"], "maxLength": 40}, "description": d});
    let mut m = paged(serde_json::Map::new());
    m.insert("facility_id".into(), json!({"type": "string", "minLength": 1, "maxLength": 200}));
    m.insert("equips".into(), json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "minItems": 1, "maxItems": 500}));
    m.insert("baseline".into(), pair("[start, end] of a known-good period of the same equipment (site wall clock), fitted for this call and never saved; omit to use the run config's drift section"));
    m.insert("current".into(), pair("[start, end] to judge (default: everything after the baseline, or the run config's current window); either end may be null"));
    m.insert("families".into(), json!({"type": "array", "minItems": 1, "maxItems": 20,
        "description": "which drift family judges which stored equipment class (default: one per stored class: AHU -> ahu, VAV -> vav, CHILLER -> chiller, COOLING_TOWER -> tower, HW_PLANT -> boiler, PUMP -> pump, DX -> dx)",
        "items": {"type": "object", "additionalProperties": false, "required": ["equip_class", "family"], "properties": {
            "equip_class": {"type": "string", "minLength": 1, "maxLength": 100},
            "family": {"type": "string", "enum": camber_analytics::drift::families::names()}}}}));
    object(&["facility_id"], m)
}

pub fn drift_output() -> Value {
    let counts = json!({"type": "object", "required": ["fault", "warn", "info", "ok"]});
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "source", "families", "counts", "declined", "n_findings", "findings", "n_diagnoses", "diagnoses", "n_unevaluated", "unevaluated"],
    "properties": {
        "facility_id": {"type": "string"},
        "source": {"type": "string", "enum": ["baseline_period", "frozen_baselines"], "description": "a baseline window the call gave, or the run config's drift section"},
        "grid_minutes": {"type": "number", "description": "the grid every family read: the config's resample, or with none the coarsest interval the facility's equipment were logged at"},
        "families": {"type": "array", "items": {"type": "object", "required": ["equip_class", "family", "label", "baseline", "current", "reference", "equipment"]}},
        "counts": counts, "declined": {"type": "integer"}, "n_findings": {"type": "integer"},
        "findings": {"type": "array", "description": "worst first", "items": {"type": "object",
            "required": ["finding_id", "family", "detector", "equip", "equip_class", "severity", "summary", "caveats", "metrics", "judged_samples", "judged_basis", "flagged_samples", "share", "baseline_source"],
            "properties": {"finding_id": {"type": "string", "description": "<family>:<detector>@<equip>"}, "severity": {"type": "string", "enum": SEVERITY},
                "baseline_source": {"type": "string", "description": "period:<start>..<end>, reference:<equip> or frozen"}}}},
        "n_diagnoses": {"type": "integer"},
        "diagnoses": {"type": "array", "description": "per equipment and family: where the drift is (locus) and how bad", "items": {"type": "object",
            "required": ["family", "equip", "severity", "locus", "loci", "summary", "causes", "caveats", "signals"]}},
        "n_unevaluated": {"type": "integer"},
        "unevaluated": {"type": "array", "items": {"type": "object", "required": ["family", "equip", "reason", "roles_required"]}}
    }})
}

pub fn mv_summary_input() -> Value {
    let mut m = paged(serde_json::Map::new());
    m.insert("facility_id".into(), json!({"type": "string", "minLength": 1, "maxLength": 200}));
    m.insert("equips".into(), json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "minItems": 1, "maxItems": 500, "description": "only these meters"}));
    object(&["facility_id"], m)
}

pub fn mv_summary_output() -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "entries", "meters", "kinds", "counts", "declined", "declined_meters", "n_findings", "findings"],
    "properties": {
        "facility_id": {"type": "string"},
        "entries": {"type": "integer", "minimum": 0, "description": "mv entries configured"},
        "meters": {"type": "array", "items": {"type": "string"}},
        "kinds": {"type": "object", "required": ["mv_baseline", "mv_savings", "mv_trigger", "mv_method_proposal", "other"]},
        "counts": {"type": "object", "required": ["fault", "warn", "info", "ok"]},
        "declined": {"type": "integer", "minimum": 0},
        "declined_meters": {"type": "array", "items": {"type": "object", "required": ["meter", "reason"]}},
        "n_findings": {"type": "integer"},
        "findings": {"type": "array", "description": "mv_baseline (the model, its Guideline 14 statistics and verdict), mv_savings (avoided energy, savings %, the 90 % uncertainty), mv_trigger and mv_method_proposal, worst first",
            "items": {"type": "object", "required": ["finding_id", "rule", "equip", "equip_class", "kind", "meter", "severity", "summary", "caveats", "metrics", "judged_days"],
                "properties": {"finding_id": {"type": "string", "description": "<kind>@<meter>"}, "severity": {"type": "string", "enum": SEVERITY}}}}
    }})
}

pub fn rcx_report_input() -> Value {
    let mut m = base_props();
    m.insert("top_n".into(), json!({"type": "integer", "minimum": 1, "maximum": 50, "description": "issues to return (default: the config's, else 8); offset for the next ones"}));
    m.insert(
        "offset".into(),
        json!({"type": "integer", "minimum": 0, "description": "ranked issues (and appendix A rows) to skip"}),
    );
    m.insert("limit".into(), json!({"type": "integer", "minimum": 1, "maximum": 1000, "description": "appendix A rows (declines and data gaps) to return (default 20)"}));
    m.insert(
        "images".into(),
        json!({"type": "boolean", "default": false, "description": "attach each ranked issue's evidence chart as a PNG image (default false)"}),
    );
    object(&["facility_id"], m)
}

pub fn rcx_report_output() -> Value {
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false,
    "required": ["facility_id", "title", "site", "period", "from_config", "top_n", "kpis", "n_issues", "issues", "sections", "fact_index", "n_appendix", "appendix", "drift"],
    "properties": {
        "facility_id": {"type": "string"}, "title": {"type": "string"}, "site": {"type": "string"},
        "period": {"type": "array", "items": {"type": "string"}}, "from_config": {"type": "boolean"}, "top_n": {"type": "integer"},
        "kpis": {"type": "object", "required": ["annual_cost_usd", "n_costed", "at_risk_usd", "n_issues", "n_uncosted", "n_conditional", "coverage_pct", "n_declined"]},
        "n_issues": {"type": "integer"},
        "issues": {"type": "array", "description": "ranked: severity, unconditional before conditional, costed before uncosted, cost, confidence, key; a sensor issue just above the first issue conditional on it",
            "items": {"type": "object", "required": ["key", "rank", "title", "cause", "equip", "severity", "rules", "finding_ids", "annual_cost_usd", "cost_basis_note", "hours", "pct_runtime", "confidence", "why", "conditional_on", "fact"]}},
        "sections": {"type": "array", "items": {"type": "object", "required": ["id", "title"]}},
        "fact_index": {"type": "array", "items": {"type": "object", "required": ["id", "kind", "equip", "text"]}, "description": "the report's facts (K1@summary, I1@<issue key>, C1@<issue key>, ...), each also in the result's facts"},
        "n_appendix": {"type": "integer"},
        "appendix": {"type": "array", "description": "appendix A: declined checks and data gaps", "items": {"type": "object", "required": ["kind", "equip", "text", "fact"]}},
        "drift": {"type": ["object", "null"], "description": "the run config's drift section, when it has one: what it ran against and how many findings it gave"}
    }})
}
