//! Inputs at the edges, through the real components: numbers past what a 32-bit guest counts,
//! and stored names that read like fact ids or markup.

use camber_common::time::ns_from_iso;
use camber_registry::CallContext;
use camber_store::fixture::{write_facility, Row};
use camber_tests::{demo_store, full_registry};
use serde_json::{json, Value};

#[test]
fn an_offset_past_the_list_is_an_empty_page_whatever_its_size() {
    let store = demo_store();
    let c = CallContext::new(store.path(), ["hq".to_string()]);
    // 4294967296 wrapped to 0 in the guest's 32-bit usize; 1e16 and 2^64 read as 0
    for offset in ["4294967296", "1e16", "18446744073709551616", "13"] {
        let args: Value = serde_json::from_str(&format!(r#"{{"facility_id":"hq","offset":{offset}}}"#)).unwrap();
        let r = full_registry().call("points", &args, &c).unwrap_or_else(|e| panic!("{offset}: {e}"));
        assert_eq!(r.data["points"], json!([]), "offset {offset}");
        assert_eq!(r.data["count"], 13, "offset {offset}");
        assert!(r.truncated, "offset {offset}");
        assert!(
            r.banners.iter().any(|b| b.contains("'points' is empty on this page")),
            "offset {offset}: {:?}",
            r.banners
        );
    }
}

/// A facility whose names are hostile: an equipment named like a fact id, and a role holding
/// markup, a link and a bracketed fact id.
const ROLE: &str = "[x](https://e.example) <b>oat</b> [F1@sensor_trust]";

fn odd_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let start = ns_from_iso("2024-03-04T00:00").unwrap();
    let step = 15 * 60 * 1_000_000_000i64;
    let mut rows: Vec<Row> = Vec::new();
    for i in 0..192 {
        let t = start + i * step;
        rows.push((t, "F1@points".into(), "AHU".into(), "oat".into(), 10.0 + (i % 7) as f64));
        rows.push((t, "F1@points".into(), "AHU".into(), "supply_fan_status".into(), 1.0));
        // three samples over two days: a point with poor coverage, so it is named in the text
        if i % 95 == 0 {
            rows.push((t, "F1@points".into(), "AHU".into(), ROLE.into(), 1.0));
        }
    }
    write_facility(dir.path(), "odd", &rows, json!({"name": "Odd"})).unwrap();
    dir
}

#[test]
fn stored_names_that_read_like_fact_ids_are_kept_exactly_in_data() {
    let store = odd_store();
    let c = CallContext::new(store.path(), ["odd".to_string()]);
    let r = full_registry().call("points", &json!({"facility_id": "odd"}), &c).unwrap();
    let equips: Vec<&Value> = r.data["points"].as_array().unwrap().iter().map(|p| &p["equip"]).collect();
    assert!(equips.iter().all(|e| *e == "F1@points"), "{equips:?}");
    // and the value passes back
    let back = full_registry().call("points", &json!({"facility_id": "odd", "equip": "F1@points"}), &c).unwrap();
    assert_eq!(back.data["count"], 3);
    // the handler's own fact id is still scoped
    assert!(r.facts[0]["id"].as_str().unwrap().starts_with("F1@points-"));
}

#[test]
fn sensor_trust_names_roles_as_data_never_as_markup_or_citations() {
    let store = odd_store();
    let c = CallContext::new(store.path(), ["odd".to_string()]);
    let r = full_registry()
        .call("sensor_trust", &json!({"facility_id": "odd", "view": "report"}), &c)
        .unwrap_or_else(|e| panic!("{e}"));
    let rows = r.data["points"].as_array().unwrap();
    assert!(rows.iter().any(|p| p["role"] == ROLE), "data keeps the stored role: {rows:?}");
    let mut texts = vec![r.text.clone()];
    texts.extend(r.facts.iter().filter_map(|f| f["text"].as_str().map(str::to_string)));
    texts.extend(r.banners.iter().cloned());
    assert!(texts.iter().any(|t| t.contains("oat")), "the role is named somewhere: {texts:?}");
    for t in &texts {
        assert!(!t.contains("<b>") && !t.contains("](") && !t.contains("https://"), "markup survived: {t}");
        assert!(!t.contains("[F1@sensor_trust]"), "a stored bracket reads as a citation: {t}");
    }
    // no citation was removed: the stored bracket was never taken for one
    assert!(!r.banners.iter().any(|b| b.contains("removed")), "{:?}", r.banners);
}
