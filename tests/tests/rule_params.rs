//! `rule_params` through the sandbox: the rules the analytics engine declares.

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::full_registry;
use serde_json::{json, Value};

fn call(args: Value) -> Result<camber_common::CapabilityResult, camber_common::CapError> {
    full_registry().call("rule_params", &args, &CallContext::without_store(Vec::<String>::new()))
}

#[test]
fn lists_rules_with_parameters_and_detail_on_request() {
    let r = call(json!({})).unwrap();
    let n = r.data["count"].as_u64().unwrap();
    assert!(n >= 8, "{}", r.data);
    let rows = r.data["rules"].as_array().unwrap();
    let ids: Vec<&str> = rows.iter().map(|x| x["rule"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert!(ids.contains(&"airflow_tracking"));
    assert!(rows[0]["params"][0].get("basis").is_none());
    let built = camber_analytics::rules::all().len();
    assert!(built >= 24);
    let drifts = camber_analytics::drift::all().len();
    assert!(r.text.starts_with(&format!("{n} match ({built} rule(s), {drifts} drift detector(s)")), "{}", r.text);
    // a fleet rule says so
    let two = call(json!({"rules": ["sat_rogue_zone_census", "airflow_tracking"]})).unwrap();
    let judges: Vec<&Value> = two.data["rules"].as_array().unwrap().iter().map(|x| &x["judges"]).collect();
    assert_eq!(judges, [&Value::Null, &json!("fleet")]);
    // the drift detectors are listed with the capability that runs them
    let pumps: Vec<&Value> = rows.iter().filter(|x| x["kind"] == "drift_detector").collect();
    assert!(pumps.iter().all(|x| x["run_with"] == "drift" && x["drift_family"].is_string()), "{pumps:?}");
    let d = call(json!({"rules": ["pump_flow_drift"], "detail": true})).unwrap();
    let flow = &d.data["rules"][0];
    assert_eq!((flow["kind"].as_str(), flow["drift_family"].as_str()), (Some("drift_detector"), Some("pump")));
    assert!(flow["params"].as_array().unwrap().iter().any(|p| p["name"] == "warn_gpm" && p["basis"].is_string()));
    let d = call(json!({"detail": true})).unwrap();
    assert_eq!(d.data["rules"].as_array().unwrap().len().min(10), d.data["rules"].as_array().unwrap().len());
    assert!(d.data["rules"][0]["params"][0]["basis"].is_string());
}

#[test]
fn filters_and_refusals() {
    let r = call(json!({"rules": ["leaking_valve"]})).unwrap();
    assert_eq!(r.data["count"], 1);
    // every word must match: both tower rules have an approach parameter, and so does the tower's
    // approach drift detector
    let r = call(json!({"query": "cooling_tower approach"})).unwrap();
    let ids: Vec<&str> = r.data["rules"].as_array().unwrap().iter().map(|x| x["rule"].as_str().unwrap()).collect();
    assert_eq!(ids, ["condenser_water_reset", "cooling_tower_approach", "cooling_tower_approach_drift"]);
    let r = call(json!({"query": "min_effort"})).unwrap();
    assert_eq!(r.data["count"], 1);
    let e = call(json!({"rules": ["no_such_rule"]})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(e.data.unwrap()["unknown"], json!(["no_such_rule"]));
    let r = call(json!({"limit": 2})).unwrap();
    assert!(r.truncated);
}
