//! `facilities` and `points` through the whole pipeline: the spec's semantics, its refusals,
//! and the same data as the reference on a store the reference wrote.

use std::path::{Path, PathBuf};

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::{demo_store, full_registry};
use serde_json::{json, Value};

fn ctx(store: &Path, allowed: &[&str]) -> CallContext {
    CallContext::new(store, allowed.iter().map(|s| s.to_string()))
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

#[test]
fn points_lists_sorted_rows_with_a_cited_count() {
    let store = demo_store();
    let r = full_registry().call("points", &json!({"facility_id": "hq"}), &ctx(store.path(), &["hq"])).unwrap();
    assert_eq!(r.data["count"], 13);
    assert_eq!(r.data["n_equipment"], 5);
    let rows = r.data["points"].as_array().unwrap();
    let keys: Vec<(String, String)> = rows
        .iter()
        .map(|p| (p["equip"].as_str().unwrap().to_string(), p["role"].as_str().unwrap().to_string()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let id = r.facts[0]["id"].as_str().unwrap();
    assert_eq!(r.text, format!("hq stores 13 matching points on 5 equipment [{id}]."));
    assert_eq!(r.facts[0]["value"], 13);
    assert!(!r.truncated && r.banners.is_empty());
}

#[test]
fn points_filters_and_names_them_in_the_fact() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let r = full_registry()
        .call("points", &json!({"facility_id": "hq", "equip_class": "VAV", "role": "airflow"}), &c)
        .unwrap();
    assert_eq!(r.data["count"], 4);
    assert!(r.data["points"].as_array().unwrap().iter().all(|p| p["role"] == "airflow" && p["equip_class"] == "VAV"));
    assert_eq!(r.facts[0]["text"], "hq stores 4 points on 4 equipment matching role \"airflow\", class \"VAV\"");
}

#[test]
fn points_pages_with_a_banner_and_counts_the_whole_list() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let reg = full_registry();
    let first = reg.call("points", &json!({"facility_id": "hq", "limit": 5}), &c).unwrap();
    assert_eq!(first.data["points"].as_array().unwrap().len(), 5);
    assert_eq!(first.data["count"], 13);
    assert!(first.truncated);
    assert_eq!(
        first.banners,
        vec!["'points' shows rows 1-5 of 13 (by equipment, then role): call again with offset=5 for the next page, or a larger limit (up to 1000)"]
    );
    let all = reg.call("points", &json!({"facility_id": "hq"}), &c).unwrap();
    let second = reg.call("points", &json!({"facility_id": "hq", "limit": 5, "offset": 5}), &c).unwrap();
    assert_eq!(second.data["points"][0], all.data["points"][5]);
    let past = reg.call("points", &json!({"facility_id": "hq", "offset": 500}), &c).unwrap();
    assert!(past.data["points"].as_array().unwrap().is_empty());
    assert!(past.truncated);
}

#[test]
fn a_whole_float_passes_as_an_integer() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let r = full_registry().call("points", &json!({"facility_id": "hq", "limit": 5.0}), &c).unwrap();
    assert_eq!(r.data["points"].as_array().unwrap().len(), 5);
    let e = full_registry().call("points", &json!({"facility_id": "hq", "limit": 5.5}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
}

#[test]
fn unknown_filter_values_are_not_found_and_list_what_is_stored() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let reg = full_registry();
    let e = reg.call("points", &json!({"facility_id": "hq", "equip": "AHU-9"}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(e.message, "facility 'hq' stores no equipment \"AHU-9\"; it stores \"AHU-1\", \"VAV-101\", \"VAV-202\", \"VAV-303\", \"VAV-404\"");
    let d = e.data.unwrap();
    assert_eq!(d["argument"], "equip");
    assert_eq!(d["unknown"], json!(["AHU-9"]));
    assert_eq!(d["available"].as_array().unwrap().len(), 5);
    for (arg, val) in [("role", "nope"), ("equip_class", "Chiller")] {
        let e = reg.call("points", &json!({"facility_id": "hq", arg: val}), &c).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound, "{arg}");
        assert_eq!(e.data.unwrap()["argument"], arg);
    }
}

#[test]
fn an_allowed_facility_with_no_data_is_not_found() {
    let store = demo_store();
    let e = full_registry()
        .call("points", &json!({"facility_id": "ghost"}), &ctx(store.path(), &["hq", "ghost"]))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert_eq!(e.message, "facility 'ghost' has no stored data");
}

#[test]
fn a_facility_outside_the_allowlist_is_not_allowed_whether_it_exists_or_not() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    for fid in ["annex", "no-such-site"] {
        let e = full_registry().call("points", &json!({"facility_id": fid}), &c).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotAllowed);
        assert_eq!(e.message, format!("facility '{fid}' is not among the facilities this caller may read"));
    }
    let nobody = ctx(store.path(), &[]);
    let e = full_registry().call("points", &json!({"facility_id": "hq"}), &nobody).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotAllowed);
}

#[test]
fn bad_arguments_are_invalid_params_with_pointers() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let reg = full_registry();
    for (args, ptr) in [
        (json!({}), "/"),
        (json!({"facility_id": 5}), "/facility_id"),
        (json!({"facility_id": ""}), "/facility_id"),
        (json!({"facility_id": "hq", "limit": 0}), "/limit"),
        (json!({"facility_id": "hq", "bogus": 1}), "/"),
    ] {
        let e = reg.call("points", &args, &c).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParams, "{args}");
        let errors = e.data.as_ref().unwrap()["errors"].as_array().unwrap().clone();
        assert!(errors[0].as_str().unwrap().starts_with(&format!("{ptr}: ")), "{args}: {errors:?}");
        assert!(!e.message.contains('\n'));
    }
    let e = reg.call("points", &json!([1]), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    let e = reg.call("nope", &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownCapability);
    assert_eq!(e.message, "no capability named 'nope'");
}

#[test]
fn facilities_lists_only_allowed_ones_with_spans_and_counts() {
    let store = demo_store();
    let reg = full_registry();
    let r = reg.call("facilities", &json!({}), &ctx(store.path(), &["hq", "elsewhere"])).unwrap();
    assert_eq!(r.data["count"], 1);
    let row = &r.data["facilities"][0];
    assert_eq!(row["facility_id"], "hq");
    assert_eq!(row["name"], "Headquarters");
    assert_eq!(row["timezone"], "America/Chicago");
    assert_eq!(row["start"], "2024-03-04T00:00:00");
    assert_eq!(row["end"], "2024-03-10T23:45:00");
    assert_eq!(row["n_points"], 13);
    assert_eq!(row["n_equipment"], 5);
    assert!(r.text.starts_with("1 facility is visible [F1@facilities-"), "{}", r.text);
    let none = reg.call("facilities", &json!({}), &ctx(store.path(), &[])).unwrap();
    assert_eq!(none.data["count"], 0);
    let paged = reg.call("facilities", &json!({"limit": 1}), &ctx(store.path(), &["hq", "annex"])).unwrap();
    assert_eq!(paged.data["facilities"].as_array().unwrap().len(), 1);
    assert_eq!(paged.data["count"], 2);
    assert!(paged.truncated);
}

fn first_part(store: &Path, fid: &str) -> PathBuf {
    let mut dir = store.join(format!("facility_id={fid}"));
    loop {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('_'))
            .collect();
        entries.sort();
        let first = entries.remove(0);
        if first.is_file() {
            return first;
        }
        dir = first;
    }
}

#[test]
fn a_damaged_part_is_unavailable_for_its_facility_only() {
    let store = demo_store();
    let part = first_part(store.path(), "hq");
    std::fs::write(&part, b"PAR1 this is not parquet").unwrap();
    let c = ctx(store.path(), &["hq", "annex"]);
    let reg = full_registry();
    let e = reg.call("points", &json!({"facility_id": "hq"}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
    assert_eq!(e.data.as_ref().unwrap()["retryable"], false);
    assert_eq!(e.data.as_ref().unwrap()["facility_id"], "hq");
    assert!(!e.message.contains(&*store.path().to_string_lossy()), "{}", e.message);
    assert!(reg.call("points", &json!({"facility_id": "annex"}), &c).is_ok());
    // a guest that panics after the failed read: the read's error decides, not the panic
    let e = reg.call("read_then_panic", &json!({"facility_id": "hq"}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
    let list = reg.call("facilities", &json!({}), &c).unwrap();
    let hq = list.data["facilities"].as_array().unwrap().iter().find(|f| f["facility_id"] == "hq").unwrap().clone();
    assert_eq!(hq["unavailable"], json!({"retryable": false}));
    assert_eq!(hq["start"], Value::Null);
}

#[test]
fn rewriting_a_part_in_place_changes_the_fact_ids() {
    let store = demo_store();
    let c = ctx(store.path(), &["hq"]);
    let reg = full_registry();
    let before = reg.call("points", &json!({"facility_id": "hq"}), &c).unwrap();
    let part = first_part(store.path(), "hq");
    let bytes = std::fs::read(&part).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&part, &bytes).unwrap();
    let after = reg.call("points", &json!({"facility_id": "hq"}), &c).unwrap();
    assert_eq!(before.data, after.data);
    assert_ne!(before.facts[0]["id"], after.facts[0]["id"]);
}

#[test]
fn a_store_written_by_the_reference_gives_the_reference_data() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("reference-outputs.json")).unwrap()).unwrap();
    let store = fixtures().join("reference-store");
    let reg = full_registry();
    for call in expected["calls"].as_array().unwrap() {
        let allowed: Vec<&str> = call["allowed"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let name = call["capability"].as_str().unwrap();
        let r = reg.call(name, &call["arguments"], &ctx(&store, &allowed)).unwrap();
        let mut data = (*r.data).clone();
        if name == "facilities" {
            // the spec adds this count after the reference's release
            assert_eq!(data.as_object_mut().unwrap().remove("withheld_unverified"), Some(json!(0)));
        }
        assert_eq!(data, call["data"], "{name} {}", call["arguments"]);
        if name == "points" {
            // same sentence, our own token
            let theirs = call["text"].as_str().unwrap();
            let cut = |s: &str| s.split("[F1@points-").next().unwrap().to_string();
            assert_eq!(cut(&r.text), cut(theirs));
        }
    }
}
