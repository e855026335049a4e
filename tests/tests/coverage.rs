//! `coverage` through the pipeline on real stores.

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::full_registry;
use serde_json::json;

fn ns(s: &str) -> i64 {
    camber_common::time::ns_from_iso(s).unwrap()
}

/// hq: AHU-1 oat hourly for two days with a 6-hour hole; AHU-1 sat hourly, whole; VAV-1 temp
/// every 15 minutes on day one only.
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    let h = 3_600_000_000_000i64;
    let t0 = ns("2024-03-01T00:00");
    for i in 0..48 {
        if !(10..16).contains(&i) {
            rows.push((t0 + i * h, "AHU-1".to_string(), "AHU".to_string(), "oat".to_string(), 50.0));
        }
        rows.push((t0 + i * h, "AHU-1".to_string(), "AHU".to_string(), "supply_air_temp".to_string(), 55.0));
    }
    for i in 0..96 {
        rows.push((t0 + i * h / 4, "VAV-1".to_string(), "VAV".to_string(), "space_temp".to_string(), 70.0));
    }
    camber_store::fixture::write_facility(dir.path(), "hq", &rows, json!({"name": "HQ"})).unwrap();
    dir
}

fn ctx(root: &std::path::Path) -> CallContext {
    CallContext::new(root, ["hq".to_string()])
}

#[test]
fn per_point_equipment_and_gaps() {
    let s = store();
    let r = full_registry().call("coverage", &json!({"facility_id": "hq"}), &ctx(s.path())).unwrap();
    let d = &r.data;
    assert_eq!(d["n_points"], 3);
    assert_eq!(d["window"], json!({"start": "2024-03-01T00:00:00", "end": "2024-03-02T23:00:00"}));
    let points = d["points"].as_array().unwrap();
    // worst first: VAV-1 covers its first day of a two-day window
    assert_eq!(points[0]["equip"], "VAV-1");
    assert_eq!(points[0]["interval_minutes"], 15.0);
    assert_eq!(points[0]["n_samples"], 96);
    let sat = points.iter().find(|p| p["role"] == "supply_air_temp").unwrap();
    assert_eq!(sat["coverage"], 1.0);
    assert_eq!(sat["n_gaps"], 0);
    let oat = points.iter().find(|p| p["role"] == "oat").unwrap();
    assert_eq!(oat["coverage"], 0.875);
    assert_eq!(oat["n_gaps"], 1);
    assert_eq!(oat["longest_gap_hours"], 6.0);
    let gaps = d["gaps"].as_array().unwrap();
    assert_eq!(gaps[0]["equip"], "VAV-1"); // the longest: the whole second day
    assert!(gaps.iter().any(|g| g["role"] == "oat"
        && g["start"] == "2024-03-01T09:00:00"
        && g["end"] == "2024-03-01T16:00:00"
        && g["hours"] == 6.0));
    let eq = d["equipment"].as_array().unwrap();
    assert_eq!(eq[0]["equip"], "VAV-1");
    assert_eq!(eq[1]["worst_role"], "oat");
    // every figure of the text is in a fact it cites
    assert!(r.banners.iter().all(|b| !b.contains("removed")), "{:?}", r.banners);
    assert!(r.text.contains("over 3 points"), "{}", r.text);
    // only equipment rows
    let r =
        full_registry().call("coverage", &json!({"facility_id": "hq", "group_by": "equip"}), &ctx(s.path())).unwrap();
    assert!(r.data["points"].as_array().unwrap().is_empty());
    // only long gaps
    let r =
        full_registry().call("coverage", &json!({"facility_id": "hq", "min_gap_hours": 7}), &ctx(s.path())).unwrap();
    assert!(r.data["gaps"].as_array().unwrap().iter().all(|g| g["hours"].as_f64().unwrap() >= 7.0));
}

#[test]
fn a_window_and_filters() {
    let s = store();
    let r = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "equips": ["AHU-1"], "roles": ["oat"], "start": "2024-03-01", "end": "2024-03-01T09:00"}), &ctx(s.path()))
        .unwrap();
    assert_eq!(r.data["n_points"], 1);
    assert_eq!(r.data["points"][0]["coverage"], 1.0);
    assert_eq!(r.data["points"][0]["n_samples"], 10);
}

#[test]
fn a_window_with_no_sample_is_zero_with_a_notice() {
    let s = store();
    let r = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "start": "2025-01-01", "end": "2025-01-02"}), &ctx(s.path()))
        .unwrap();
    assert_eq!(r.data["coverage"], 0.0);
    assert!(r.banners.iter().any(|b| b.contains("no stored sample")), "{:?}", r.banners);
}

#[test]
fn unknown_selections_and_bad_windows() {
    let s = store();
    let e = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "equips": ["AHU-1", "AHU-9"]}), &ctx(s.path()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(e.data.as_ref().unwrap()["unknown"], json!(["AHU-9"]));
    assert_eq!(e.data.as_ref().unwrap()["available"], json!(["AHU-1", "VAV-1"]));
    // both exist, not together: an answer
    let r = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "equips": ["VAV-1"], "roles": ["oat"]}), &ctx(s.path()))
        .unwrap();
    assert_eq!(r.data["n_points"], 0);
    assert!(!r.banners.is_empty());
    let e =
        full_registry().call("coverage", &json!({"facility_id": "hq", "roles": ["co2"]}), &ctx(s.path())).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["argument"], "roles");
    let e = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "start": "2024-03-02", "end": "2024-03-01"}), &ctx(s.path()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    let e = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "start": "March 1"}), &ctx(s.path()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    let e = full_registry()
        .call("coverage", &json!({"facility_id": "hq", "start": "2024-03-01\n"}), &ctx(s.path()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams, "ECMA-262 $: a final newline does not match");
}

#[test]
fn pages_of_each_list() {
    let s = store();
    let r = full_registry().call("coverage", &json!({"facility_id": "hq", "limit": 1}), &ctx(s.path())).unwrap();
    assert_eq!(r.data["points"].as_array().unwrap().len(), 1);
    assert_eq!(r.data["n_points"], 3);
    assert!(r.truncated);
    assert!(r.banners.iter().any(|b| b.starts_with("'points' shows rows 1-1 of 3")), "{:?}", r.banners);
}

#[test]
fn the_writers_times_index_gives_the_same_answer_as_a_scan() {
    let s = store();
    let index = s.path().join("facility_id=hq").join(camber_store::TIMES_INDEX);
    assert!(index.is_file(), "the writer records the sample times");
    let with = full_registry().call("coverage", &json!({"facility_id": "hq"}), &ctx(s.path())).unwrap();
    std::fs::remove_file(&index).unwrap();
    let without = full_registry().call("coverage", &json!({"facility_id": "hq"}), &ctx(s.path())).unwrap();
    assert_eq!(with.data, without.data);
    // an index that no longer describes the parts is ignored
    std::fs::write(&index, r#"{"parts": [], "points": []}"#).unwrap();
    let stale = full_registry().call("coverage", &json!({"facility_id": "hq"}), &ctx(s.path())).unwrap();
    assert_eq!(stale.data, without.data);
}
