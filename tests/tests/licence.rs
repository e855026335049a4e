//! The licence wall, failing closed: research-only data is refused through every path, and a
//! facility whose licence cannot be established is refused too.

use std::path::Path;

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::full_registry;
use serde_json::{json, Value};

fn rows() -> Vec<camber_store::fixture::Row> {
    (0..48)
        .map(|h| {
            (
                camber_common::time::ns_from_iso("2024-03-01T00:00").unwrap() + h * 3_600_000_000_000,
                "AHU-1".to_string(),
                "AHU".to_string(),
                "oat".to_string(),
                50.0 + h as f64,
            )
        })
        .collect()
}

/// A store with an open facility, facilities ingested from research-only datasets (one by its
/// recorded block, one by its catalog name with a block that claims an open licence) and an
/// open catalog dataset.
fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let w = |fid: &str, entry: Value| camber_store::fixture::write_facility(dir.path(), fid, &rows(), entry).unwrap();
    w("hq", json!({"name": "HQ"}));
    w(
        "lab",
        json!({"name": "Lab", "dataset": {"dataset_id": "x", "licence": "CC-BY-NC-4.0", "access": "research_only"}}),
    );
    w(
        "ds-at-30bldg-sensors",
        json!({"dataset": {"dataset_id": "at-30bldg-sensors", "licence": "CC-BY-4.0", "access": "open"}}),
    );
    w("ds-rbc-g36-ahu-site2", json!({}));
    w("ds-lbnl-sdahu", json!({"dataset": {"dataset_id": "lbnl-sdahu", "licence": "CC-BY-4.0", "access": "open"}}));
    dir
}

const ALL: [&str; 5] = ["hq", "lab", "ds-at-30bldg-sensors", "ds-rbc-g36-ahu-site2", "ds-lbnl-sdahu"];

fn ctx(root: &Path) -> CallContext {
    CallContext::new(root, ALL.iter().map(|s| s.to_string()))
}

fn call(root: &Path, name: &str, args: Value) -> Result<camber_common::CapabilityResult, camber_common::CapError> {
    full_registry().call(name, &args, &ctx(root))
}

#[test]
fn research_only_facilities_are_refused_by_every_capability_that_names_them() {
    let s = store();
    for fid in ["lab", "ds-at-30bldg-sensors", "ds-rbc-g36-ahu-site2"] {
        for (cap, args) in [("points", json!({"facility_id": fid})), ("coverage", json!({"facility_id": fid}))] {
            let e = call(s.path(), cap, args).unwrap_err();
            assert_eq!(e.code, ErrorCode::RefusedLicence, "{cap} {fid}: {e}");
            assert_eq!(e.data.as_ref().unwrap()["facility_id"], fid);
            assert!(e.message.contains("research-only"), "{}", e.message);
        }
    }
    assert!(call(s.path(), "points", json!({"facility_id": "hq"})).is_ok());
    assert!(call(s.path(), "points", json!({"facility_id": "ds-lbnl-sdahu"})).is_ok());
}

#[test]
fn a_components_resource_read_meets_the_wall_and_the_allowlist_as_a_call_does() {
    let s = store();
    let read = |uri: &str, c: &CallContext| full_registry().read_resource(uri, c).expect("the hostile guest serves it");
    let text = read("hostile://points/hq", &ctx(s.path())).unwrap();
    assert!(
        matches!(&text[..], [camber_common::ContentBlock::Resource { text: Some(t), .. }] if t == "1 points"),
        "{text:?}"
    );
    let e = read("hostile://points/lab", &ctx(s.path())).unwrap_err();
    assert_eq!(e.code, ErrorCode::RefusedLicence, "{e}");
    let only_hq = CallContext::new(s.path(), ["hq".to_string()]);
    let e = read("hostile://points/ds-lbnl-sdahu", &only_hq).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal, "{e}");
    assert!(e.message.contains("outside this call"), "{e}");
    // and the fences: a rewrite in progress (this live process's) is waited for, then refused
    // as retryable; once it is done the read goes through
    camber_store::fence::write(s.path(), "hq", true, "tok").unwrap();
    let e = read("hostile://points/hq", &only_hq).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
    assert_eq!(e.data.as_ref().unwrap()["retryable"], true);
    camber_store::fence::write(s.path(), "hq", false, "tok2").unwrap();
    assert!(read("hostile://points/hq", &only_hq).is_ok());
}

#[test]
fn the_listing_withholds_and_counts_them() {
    let s = store();
    let r = call(s.path(), "facilities", json!({})).unwrap();
    let ids: Vec<&str> =
        r.data["facilities"].as_array().unwrap().iter().map(|f| f["facility_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ds-lbnl-sdahu", "hq"]);
    assert_eq!(r.data["withheld_research_only"], 3);
    assert_eq!(r.data["withheld_unverified"], 0);
    assert!(r.banners.iter().any(|b| b.starts_with("3 allowed facility(ies) hold research-only")), "{:?}", r.banners);
}

#[test]
fn a_damaged_registry_refuses_everything_it_cannot_vouch_for() {
    let s = store();
    std::fs::write(s.path().join("_facilities.json"), "{not json").unwrap();
    for fid in ["hq", "ds-lbnl-sdahu"] {
        let e = call(s.path(), "points", json!({"facility_id": fid})).unwrap_err();
        assert_eq!(e.code, ErrorCode::RefusedLicence, "{fid}");
        assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
    }
    // research-only by name stays research-only
    let e = call(s.path(), "points", json!({"facility_id": "ds-at-30bldg-sensors"})).unwrap_err();
    assert!(e.message.contains("research-only"));
    let r = call(s.path(), "facilities", json!({})).unwrap();
    assert_eq!(r.data["count"], 0);
    assert_eq!(r.data["withheld_unverified"], 3);
    assert_eq!(r.data["withheld_research_only"], 2);
    assert!(r.banners[0].contains("facility registry cannot be read"), "{:?}", r.banners);
    // one malformed entry makes the registry untrustworthy
    let mut reg: Value = json!({"hq": {"name": "HQ", "state": "active"}, "lab": "corrupt"});
    std::fs::write(s.path().join("_facilities.json"), reg.to_string()).unwrap();
    let e = call(s.path(), "points", json!({"facility_id": "hq"})).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
    reg["lab"] = json!({"state": 3});
    std::fs::write(s.path().join("_facilities.json"), reg.to_string()).unwrap();
    let e = call(s.path(), "points", json!({"facility_id": "hq"})).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
    // an empty registry is no better
    std::fs::write(s.path().join("_facilities.json"), "{}").unwrap();
    let e = call(s.path(), "points", json!({"facility_id": "hq"})).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
}

#[test]
fn a_missing_registry_refuses_only_in_a_store_with_dataset_facilities() {
    let s = store();
    std::fs::remove_file(s.path().join("_facilities.json")).unwrap();
    let e = call(s.path(), "points", json!({"facility_id": "hq"})).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
    // a store of one's own data without a registry is not damaged
    let own = tempfile::tempdir().unwrap();
    camber_store::fixture::write_facility(own.path(), "hq", &rows(), json!({})).unwrap();
    std::fs::remove_file(own.path().join("_facilities.json")).unwrap();
    let r = full_registry()
        .call("points", &json!({"facility_id": "hq"}), &CallContext::new(own.path(), ["hq".to_string()]))
        .unwrap();
    assert_eq!(r.data["count"], 1);
    assert!(r.banners.is_empty());
}

#[test]
fn a_dataset_facility_nobody_vouches_for_is_refused() {
    let s = store();
    // a ds- facility with no registry entry
    camber_store::fixture::write_facility(s.path(), "ds-mystery", &rows(), json!({})).unwrap();
    let reg_path = s.path().join("_facilities.json");
    let mut reg: Value = serde_json::from_str(&std::fs::read_to_string(&reg_path).unwrap()).unwrap();
    let c = CallContext::new(s.path(), ["ds-mystery".to_string()]);
    // an entry without any licence record, for a name the catalog does not know
    let e = full_registry().call("points", &json!({"facility_id": "ds-mystery"}), &c).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["reason"], "licence_unverified");
    reg.as_object_mut().unwrap().remove("ds-mystery");
    std::fs::write(&reg_path, reg.to_string()).unwrap();
    let e = full_registry().call("points", &json!({"facility_id": "ds-mystery"}), &c).unwrap_err();
    assert_eq!(e.data.as_ref().unwrap()["detail"], "no_registry_entry");
}
