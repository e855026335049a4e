//! One hostile store fed to every capability: a Guideline 36 building whose
//! equipment is named as markup, markdown links and bare domains, with a reference logger, a
//! topology and a drift section, so the rule run, the fleet rules, the sensor causes, the
//! cause chains and the RCx report all have to name them. Every text, fact text, banner and
//! error message must carry the names defanged, as `name()` writes them; `data` keeps them as
//! stored, so an id can be passed back.

use std::collections::BTreeMap;
use std::sync::Arc;

use camber_common::{CapError, CapabilityResult};
use camber_registry::runconfig::RunConfigs;
use camber_registry::CallContext;
use camber_store::fixture::{write_facility, Row};
use camber_tests::full_registry;
use serde_json::{json, Value};

const FID: &str = "evil";

/// The spellings a markdown or HTML client would render: none may reach text as written.
const HOSTILE: [&str; 3] = ["<script>alert(1)</script>", "[x](http://evil.example)", "www.evil.example"];

/// What must never appear in a text, fact text, banner or message.
const RENDERED: [&str; 5] = ["<script", "](http", "http://", "www.evil", "</script>"];

/// The hostile name of the `i`-th equipment.
fn hostile(i: usize) -> String {
    format!("{} {i}", HOSTILE[i % HOSTILE.len()])
}

/// The store and the run config's text: every equipment of synthetic-g36-vav renamed, a duct
/// logger reading one air handler's supply air 4 °F warm, each box's air handler named.
fn hostile_store() -> (tempfile::TempDir, Value) {
    let g = camber_synth::generate("synthetic-g36-vav", None).expect("dataset");
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for (i, e) in g.equipment.iter().enumerate() {
        names.insert(e.equip.clone(), hostile(i));
    }
    let logger = hostile(names.len());
    let mut rows: Vec<Row> = Vec::new();
    let mut ahu_with_logger: Option<String> = None;
    for s in &g.series {
        let equip = &names[&s.equip];
        for (k, v) in s.values.iter().enumerate() {
            if v.is_nan() {
                continue;
            }
            let t = s.start_ns + k as i64 * s.step_ns;
            rows.push((t, equip.clone(), s.equip_class.clone(), s.role.clone(), *v));
            if s.equip_class == "AHU"
                && s.role == "supply_air_temp"
                && ahu_with_logger.get_or_insert_with(|| s.equip.clone()) == &s.equip
            {
                rows.push((t, logger.clone(), "LOGGER".into(), "supply_air_temp".into(), v - 4.0));
            }
        }
        // a point whose role is markup too: the points, coverage and trust listings name it
        if s.equip_class == "AHU" && s.role == "oat" {
            let t = s.start_ns;
            rows.push((t, equip.clone(), "AHU".into(), HOSTILE[0].into(), 1.0));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    write_facility(dir.path(), FID, &rows, json!({"name": "Evil HQ", "timezone": "America/Chicago"})).unwrap();
    // each box's air handler: the box and its unit share the scenario suffix
    let scenario = |e: &str| e.split_once("__").map(|(_, s)| s.to_string()).unwrap_or_default();
    let ahus: BTreeMap<String, String> = g
        .equipment
        .iter()
        .filter(|e| e.equip.starts_with("AHU"))
        .map(|e| (scenario(&e.equip), names[&e.equip].clone()))
        .collect();
    let parents: serde_json::Map<String, Value> = g
        .equipment
        .iter()
        .filter(|e| e.equip.starts_with("VAV"))
        .filter_map(|e| ahus.get(&scenario(&e.equip)).map(|a| (names[&e.equip].clone(), json!(a))))
        .collect();
    let sat_of = names[ahu_with_logger.as_ref().unwrap()].clone();
    let rules: Vec<&str> = camber_analytics::rules::all().iter().map(|r| (r.spec)().id).collect();
    let config = json!({
        "source": {"facility_id": FID},
        "resample": "1h",
        "rules": rules,
        "equipment": [{"class": "AHU"}, {"class": "VAV"}],
        "topology": {"parents": parents},
        "report": {"rcx": {"references": {sat_of: {"supply_air_temp": {"equip": logger, "label": HOSTILE[1]}}}}},
        "drift": {"baseline": ["2025-04-28", "2025-05-04"], "current": ["2025-05-05", null],
                  "families": [{"class": "AHU", "family": "ahu"}]},
    });
    (dir, config)
}

fn context(store: &std::path::Path, config: &Value) -> CallContext {
    let path = store.parent().unwrap().join(format!("{}.json", store.file_name().unwrap().to_string_lossy()));
    std::fs::write(&path, config.to_string()).unwrap();
    let configs = RunConfigs::load(&[path]).expect("the run config loads");
    let mut c = CallContext::new(store, [FID.to_string()]);
    c.config_digest = configs.digest.clone();
    c.run_configs = Arc::new(configs);
    c
}

/// Every string a reader is shown: the text, each fact's text, each banner.
fn shown(r: &CapabilityResult) -> Vec<(String, String)> {
    let mut out = vec![("text".to_string(), r.text.clone())];
    for f in &r.facts {
        if let Some(t) = f["text"].as_str() {
            out.push((format!("fact {}", f["id"]), t.to_string()));
        }
    }
    for b in &r.banners {
        out.push(("banner".into(), b.clone()));
    }
    out
}

fn assert_defanged(what: &str, place: &str, s: &str) {
    for bad in RENDERED {
        assert!(!s.contains(bad), "{what}: {place} writes {bad:?} as it is: {s}");
    }
}

#[test]
fn every_capability_names_hostile_equipment_defanged() {
    let (store, config) = hostile_store();
    let c = context(store.path(), &config);
    let reg = full_registry();
    let call = |name: &str, args: Value| -> Result<CapabilityResult, CapError> { reg.call(name, &args, &c) };

    // a finding to ask about, named by the rule run itself
    let run = call("rule_run", json!({"facility_id": FID, "min_severity": "warn", "limit": 200})).expect("rule_run");
    let findings = run.data["findings"].as_array().expect("findings");
    let hostile_finding = findings
        .iter()
        .filter_map(|f| f["finding_id"].as_str())
        .find(|id| HOSTILE.iter().any(|h| id.contains(h)))
        .unwrap_or_else(|| panic!("no finding names a hostile unit: {}", run.data))
        .to_string();

    let calls: Vec<(&str, Value)> = vec![
        ("facilities", json!({})),
        ("points", json!({"facility_id": FID, "limit": 500})),
        ("coverage", json!({"facility_id": FID})),
        ("sensor_trust", json!({"facility_id": FID})),
        ("rule_run", json!({"facility_id": FID})),
        ("finding_detail", json!({"facility_id": FID, "finding_id": hostile_finding})),
        ("finding_detail", json!({"facility_id": FID, "finding_id": format!("leaking_valve@{}", HOSTILE[1])})),
        ("rcx_report", json!({"facility_id": FID, "top_n": 50})),
        ("mv_summary", json!({"facility_id": FID})),
        ("drift", json!({"facility_id": FID})),
        ("dataset_search", json!({"query": HOSTILE[0]})),
        ("dataset_entry", json!({"dataset_id": "synthetic-g36-vav"})),
        ("rule_params", json!({"rules": ["leaking_valve"], "detail": true})),
        ("check_citations", json!({"text": format!("{} is fine [F1@rule_run].", HOSTILE[1]), "facts": []})),
    ];
    let mut answered = 0;
    let mut named_hostile = 0;
    for (name, args) in &calls {
        match call(name, args.clone()) {
            Ok(r) => {
                answered += 1;
                let strings = shown(&r);
                if strings.iter().any(|(_, s)| s.contains('\u{2039}') || s.contains("[.]") || s.contains("] (")) {
                    named_hostile += 1;
                }
                for (place, s) in strings {
                    assert_defanged(name, &place, &s);
                }
            }
            Err(e) => assert_defanged(name, "the refusal", &e.message),
        }
    }
    // the listings and the analytics did answer and did name the units
    assert!(answered >= 10, "only {answered} of {} calls answered", calls.len());
    assert!(named_hostile >= 6, "only {named_hostile} answers named a hostile unit (defanged)");

    // the report: a sensor issue, a chain, and findings on the hostile units
    let rcx = call("rcx_report", json!({"facility_id": FID, "top_n": 50})).unwrap();
    let texts: Vec<String> = shown(&rcx).into_iter().map(|(_, s)| s).collect();
    assert!(texts.iter().any(|t| t.contains("\u{2039}script\u{203A}")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("www[.]evil[.]example") || t.contains("www[.]evil.example")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("[x] (http[:]//evil.example)")), "{texts:?}");
    // data keeps the names as stored
    assert!(rcx.data.to_string().contains("<script>alert(1)</script>"), "data lost the stored name");
}
