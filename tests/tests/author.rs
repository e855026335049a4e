//! A third-party author's first hour: `cargo xtask new-capability` writes a crate that builds
//! for wasm32-wasip2 as it is, the host loads it beside the shipped components and serves it
//! through the same pipeline, and a capability without a description is refused at load.

use std::path::{Path, PathBuf};
use std::process::Command;

use camber_registry::CallContext;
use camber_tests::{components_dir, registry_from, target_dir};
use serde_json::json;

/// Build the crate in `dir` as its README says, into a target directory of its own (the tests'
/// is locked by the running `cargo test`); the component's path.
fn build(dir: &Path, name: &str) -> PathBuf {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--target", "wasm32-wasip2"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir().join("camber-author-target"))
        .output()
        .unwrap();
    assert!(out.status.success(), "the template does not build: {}", String::from_utf8_lossy(&out.stderr));
    target_dir().join("camber-author-target/wasm32-wasip2/release").join(format!("cap_{name}.wasm"))
}

#[test]
fn a_new_capability_builds_loads_and_answers_and_one_without_a_description_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("cap");
    let xtask = target_dir().join("debug").join("xtask");
    let out = Command::new(&xtask).args(["new-capability", "author_check", "--dir"]).arg(&krate).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // an existing directory is not overwritten
    let again = Command::new(&xtask).args(["new-capability", "author_check", "--dir"]).arg(&krate).output().unwrap();
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("exists"));
    let wasm = build(&krate, "author_check");
    let caps = dir.path().join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    std::fs::copy(&wasm, caps.join("_cap_author_check.wasm")).unwrap();

    let store = dir.path().join("store");
    camber_store::synthetic::ingest(&store, "synthetic-hw-plant", None, false, std::time::Duration::from_secs(30))
        .unwrap();
    let reg = registry_from(&[components_dir(), caps.clone()]).unwrap();
    let entry = reg.capabilities().find(|c| c.name == "author_check").expect("loaded");
    assert!(!entry.description.is_empty());
    let fid = "ds-synthetic-hw-plant";
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let r = reg.call("author_check", &json!({"facility_id": fid}), &ctx).unwrap();
    let equipment = reg.call("points", &json!({"facility_id": fid, "limit": 1000}), &ctx).unwrap().data["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["equip"].as_str().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    assert_eq!(r.data["n_equipment"], equipment);
    assert!(r.text.contains("[F1@author_check-"), "its fact is scoped by the host: {}", r.text);
    // the host's policy applies to it as to any: a facility the caller may not see is refused
    assert!(reg.call("author_check", &json!({"facility_id": "elsewhere"}), &ctx).is_err());

    // the same crate with its description taken away does not load
    let lib = krate.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let cut = text.replace(
        ".description(\"How many pieces of equipment a facility stores points for. Needs facility_id.\")",
        ".description(\"\")",
    );
    assert_ne!(cut, text);
    std::fs::write(&lib, cut).unwrap();
    let wasm = build(&krate, "author_check");
    std::fs::copy(&wasm, caps.join("_cap_author_check.wasm")).unwrap();
    let e = registry_from(&[caps]).err().expect("refused");
    assert!(e.contains("has no description"), "{e}");
}
