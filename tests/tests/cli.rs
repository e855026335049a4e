//! The `camber` binary: `call`, `capabilities` and `demo` as a user runs them.

use std::process::Command;

use camber_tests::{cache_dir, camber_bin, components_dir};
use serde_json::Value;

fn camber() -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    c
}

#[test]
fn call_prints_the_result_as_json() {
    let store = camber_tests::demo_store();
    let out = camber()
        .args(["call", "points", r#"{"facility_id":"hq","equip":"AHU-1"}"#, "--store"])
        .arg(store.path())
        .args(["--allow", "hq"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["count"], 5);
    assert_eq!(v["truncated"], false);
    assert!(v["text"].as_str().unwrap().contains("[F1@points-"));
}

#[test]
fn a_memo_size_that_is_not_a_number_is_refused_at_start() {
    let out = camber().env("CAMBER_MEMO_MB", "lots").args(["capabilities"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CAMBER_MEMO_MB must be a whole number of MiB") && err.contains("'lots'"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let ok = camber().env("CAMBER_MEMO_MB", "0").args(["capabilities"]).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn a_refusal_is_an_error_object_and_a_failing_status() {
    let store = camber_tests::demo_store();
    let out = camber()
        .args(["call", "points", r#"{"facility_id":"annex"}"#, "--store"])
        .arg(store.path())
        .args(["--allow", "hq"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "not_allowed");
}

#[test]
fn allow_all_active_grants_the_active_facilities() {
    let store = camber_tests::demo_store();
    let out =
        camber().args(["call", "facilities", "--store"]).arg(store.path()).arg("--allow-all-active").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["count"], 2);
}

#[test]
fn capabilities_json_carries_descriptors_with_a_revision() {
    let out = camber().args(["capabilities", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let caps = v["capabilities"].as_array().unwrap();
    let names: Vec<&str> = caps.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"facilities") && names.contains(&"points"), "{names:?}");
    for c in caps {
        let d = &c["descriptor"];
        assert_eq!(d["id"], c["name"]);
        assert_eq!(d["io_mode"], "unary");
        assert_eq!(d["annotations"]["cost"], c["cost"]);
        let rev = d["revision"].as_str().unwrap();
        let mut without = d.clone();
        without.as_object_mut().unwrap().remove("revision");
        assert_eq!(rev, camber_common::canonical::digest(&without));
    }
}

#[test]
fn extra_capability_directories_come_from_the_flag_and_the_environment() {
    let hostile = camber_tests::refused_components_dir();
    let out = camber().arg("capabilities").arg("--capabilities").arg(&hostile).output().unwrap();
    assert!(!out.status.success(), "the bad-schema component must refuse the load");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("camber: _cap_badschema.wasm: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
    // a directory of good components through the environment loads
    let out = camber().arg("capabilities").env("CAMBER_CAPABILITIES", components_dir()).output();
    let out = out.unwrap();
    assert!(!out.status.success(), "the same components twice are refused");
    assert!(String::from_utf8_lossy(&out.stderr).contains("already offered by"));
}

#[test]
fn demo_writes_a_store_and_runs_calls() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("demo");
    let out = camber().args(["demo", "--store"]).arg(&store).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let n = camber_synth::datasets().len();
    assert!(text.contains(&format!("{n} facilities are visible")), "{text}");
    assert!(text.contains("refused: not_found"), "{text}");
    // it ends with the report a person opens, and says where it is and what it found
    assert!(text.contains("the RCx report of ds-synthetic-ahu-economizer is at"), "{text}");
    let page = std::fs::read_to_string(dir.path().join("camber-demo-report.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("Issues, ranked"));
    assert!(text.lines().any(|l| l.trim_start().starts_with("1. [")), "{text}");
    // a second run reuses its own store; a foreign non-empty directory is refused
    assert!(camber().args(["demo", "--store"]).arg(&store).status().unwrap().success());
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let out = camber().args(["demo", "--store"]).arg(&other).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn catalog_capabilities_need_no_store() {
    let out = camber().args(["call", "dataset_entry", r#"{"dataset_id":"lbnl-sdahu"}"#]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let out = camber().args(["call", "points", r#"{"facility_id":"hq"}"#, "--allow", "hq"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "not_found");
}
