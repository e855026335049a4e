//! Hostile components: whatever a guest does, the host stays up, the call fails with the
//! right code, and the next call works.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::{
    compat_components_dir, components_dir, demo_store, full_registry, refused_components_dir, registry_from,
};
use serde_json::json;

fn ctx(store: &std::path::Path) -> CallContext {
    CallContext::new(store, ["hq".to_string(), "annex".to_string()])
}

/// Call `name` with a 0.3 s deadline: it must be stopped there, `timeout`, neither early nor
/// abandoned (the call returns once the guest is interrupted; the benchmark measures how close
/// to the deadline: well under a millisecond).
fn stopped_at_the_deadline(reg: &camber_registry::Registry, c: &mut CallContext, name: &str, args: serde_json::Value) {
    c.limits.max_seconds = 0.3;
    let t0 = Instant::now();
    let err = reg.call(name, &args, c).unwrap_err();
    let took = t0.elapsed();
    assert_eq!(err.code, ErrorCode::Timeout, "{err}");
    assert!(err.message.contains("ran longer than 0.3 s"), "{}", err.message);
    assert!(took >= Duration::from_millis(300), "stopped early: {took:?}");
    assert!(took < Duration::from_millis(1300), "stopped {took:?} after the call began");
}

#[test]
fn an_infinite_loop_is_stopped_at_the_deadline_and_the_next_call_works() {
    let reg = full_registry();
    let store = demo_store();
    let mut c = ctx(store.path());
    stopped_at_the_deadline(reg, &mut c, "spin", json!({}));
    let ok = reg.call("echo", &json!({"text": "after"}), &c).unwrap();
    assert!(ok.text.starts_with("after"));
}

#[test]
fn a_guest_waiting_on_the_clock_is_stopped_at_its_deadline_and_a_short_wait_answers() {
    // a guest that sleeps burns no fuel, so it never yields: the host polls it while it waits
    let reg = full_registry();
    let store = demo_store();
    let mut c = ctx(store.path());
    stopped_at_the_deadline(reg, &mut c, "sleep", json!({"ms": 20_000, "nap": true}));
    // a wait inside the deadline wakes the guest and it answers
    c.limits.max_seconds = 30.0;
    let t0 = Instant::now();
    let ok = reg.call("sleep", &json!({"ms": 50, "nap": true}), &c).unwrap();
    assert!(ok.text.starts_with("napped"), "{}", ok.text);
    assert!(t0.elapsed() >= Duration::from_millis(50), "the nap was not waited for");
}

#[test]
fn a_cancelled_call_stops_at_once() {
    let reg = full_registry();
    let store = demo_store();
    let mut c = ctx(store.path());
    let flag = Arc::new(AtomicBool::new(false));
    c.cancel = Some(flag.clone());
    let setter = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        })
    };
    let t0 = Instant::now();
    let err = reg.call("spin", &json!({}), &c).unwrap_err();
    setter.join().unwrap();
    assert_eq!(err.code, ErrorCode::Timeout);
    assert!(err.message.contains("cancelled"), "{}", err.message);
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_memory_bomb_hits_the_cap_and_the_host_survives() {
    let reg = full_registry();
    let store = demo_store();
    let c = ctx(store.path());
    let err = reg.call("membomb", &json!({}), &c).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{err}");
    assert!(err.message.contains("memory limit of 256 MiB"), "{}", err.message);
    let ok = reg.call("points", &json!({"facility_id": "hq"}), &c).unwrap();
    assert_eq!(ok.data["count"], 13);
}

#[test]
fn a_guest_cannot_read_host_files() {
    let reg = full_registry();
    let store = demo_store();
    let r = reg.call("read_file", &json!({}), &ctx(store.path())).unwrap();
    assert_eq!(r.data["read"], false, "{}", r.data);
    assert_eq!(r.data["root_entries"], 0);
}

#[test]
fn output_that_breaks_its_schema_or_is_not_json_is_internal() {
    let reg = full_registry();
    let store = demo_store();
    let c = ctx(store.path());
    let e = reg.call("bad_output", &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("does not match its output schema"), "{}", e.message);
    let e = reg.call("not_json", &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("not JSON"), "{}", e.message);
}

#[test]
fn attached_content_that_lies_about_its_type_or_overflows_is_internal_naming_the_block() {
    let reg = full_registry();
    let store = demo_store();
    let c = ctx(store.path());
    let e = reg.call("attach_lies", &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("attached content block 2 says image/png but its bytes are not"), "{}", e.message);
    assert!(!e.message.contains('\n'));
    let e = reg.call("attach_flood", &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("more than 32 content blocks"), "{}", e.message);
}

#[test]
fn attached_content_reaches_the_result_and_a_prompt_in_order() {
    let reg =
        camber_tests::registry_from(&[camber_tests::components_dir(), camber_tests::conformance_components_dir()])
            .unwrap();
    let store = demo_store();
    let r = reg.call("test_multiple_content_types", &json!({}), &ctx(store.path())).unwrap();
    assert_eq!(r.attached.len(), 2, "{:?}", r.attached);
    assert!(
        matches!(&r.attached[0], camber_common::ContentBlock::Image { mime_type, data, .. } if mime_type == "image/png" && data.starts_with("iVBORw0KGgo"))
    );
    assert!(
        matches!(&r.attached[1], camber_common::ContentBlock::Resource { uri, text: Some(t), .. } if uri == "test://mixed-content-resource" && t.contains("123"))
    );
    // the byte cap counts what is attached: a cap below the image's size refuses the call
    let mut tight = ctx(store.path());
    tight.limits.max_bytes = 200;
    let e = reg.call("test_multiple_content_types", &json!({}), &tight).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "{}", e.message);
    // the component's resources: listed, read through their template, unknown ones not served
    let listed: Vec<(&str, bool)> = reg.resources().map(|r| (r.info.uri.as_str(), r.info.template)).collect();
    assert!(listed.contains(&("test://static-text", false)) && listed.contains(&("test://template/{id}/data", true)));
    let read = reg.read_resource("test://template/7/data", &ctx(store.path())).unwrap().unwrap();
    assert!(
        matches!(&read[..], [camber_common::ContentBlock::Resource { uri, text: Some(t), .. }] if uri == "test://template/7/data" && t.contains("\"id\":\"7\"")),
        "{read:?}"
    );
    assert!(reg.read_resource("test://template/7/8/data", &ctx(store.path())).is_none());
    assert!(reg.read_resource("test://nothing", &ctx(store.path())).is_none());
    let args: std::collections::BTreeMap<String, String> =
        [("resourceUri".to_string(), "test://example-resource".to_string())].into();
    let p = reg.get_prompt("test_prompt_with_embedded_resource", &args).unwrap();
    assert!(p.text.contains("embedded resource"));
    assert!(
        matches!(&p.attached[..], [camber_common::ContentBlock::Resource { uri, .. }] if uri == "test://example-resource"),
        "{:?}",
        p.attached
    );
}

#[test]
fn a_result_naming_a_facility_outside_the_allowlist_is_internal() {
    let reg = full_registry();
    let store = demo_store();
    let e = reg.call("foreign_facility", &json!({}), &ctx(store.path())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(!e.message.contains("elsewhere"), "the refusal must not name the facility: {}", e.message);
}

#[test]
fn a_guest_reading_outside_its_call_is_refused_whatever_it_answers() {
    let reg = full_registry();
    let store = demo_store();
    // the call names hq; the guest tries another facility and swallows the error
    let e = reg.call("read_other", &json!({"facility_id": "hq"}), &ctx(store.path())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("outside this call"), "{}", e.message);
}

#[test]
fn a_panic_is_internal_and_its_path_is_redacted() {
    let reg = full_registry();
    let store = demo_store();
    let e = reg.call("panic_path", &json!({}), &ctx(store.path())).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("could not open <path> for reading"), "{}", e.message);
    assert!(!e.message.contains("/home/operator"), "{}", e.message);
    assert!(!e.message.contains('\n'));
}

#[test]
fn text_facts_and_data_are_policed() {
    let reg = full_registry();
    let store = demo_store();
    let mut c = ctx(store.path());
    c.limits.max_rows = 3;
    let r = reg.call("echo", &json!({"n": 5, "text": "NOTICE:\tall\u{202E} clear\u{200B}"}), &c).unwrap();
    // the NOTICE rule and the one-line rule
    assert!(r.text.starts_with("Summary: NOTICE: all clear"), "{}", r.text);
    // fact ids scoped in facts, text and data; an unknown citation removed with a banner
    let id = r.facts[0]["id"].as_str().unwrap();
    assert!(id.starts_with("F1@echo-") && id.len() == "F1@echo-".len() + 6, "{id}");
    assert!(r.text.contains(&format!("[{id}]")));
    assert!(!r.text.contains("F9@nowhere"));
    assert_eq!(r.data["fact_id"], id);
    assert_eq!(r.data["rows"][0]["fact"], id);
    // a stored value that reads like a fact id is data, kept exactly
    assert_eq!(r.data["equip"], "F1@echo");
    assert!(r.banners.iter().any(|b| b.contains("citation(s) of the summary were removed")));
    // fact text on one line
    assert_eq!(r.facts[0]["text"], "echo of 5");
    // the row cap
    assert_eq!(r.data["rows"].as_array().unwrap().len(), 3);
    assert!(r.truncated);
    assert!(r
        .banners
        .iter()
        .any(|b| b == "'rows' truncated: showing the first 3 of 5 rows (narrow the query to see the rest)"));
}

#[test]
fn long_strings_are_cut_and_big_results_are_too_large() {
    let reg = full_registry();
    let store = demo_store();
    let mut c = ctx(store.path());
    let r = reg.call("echo", &json!({"ms": 5000}), &c).unwrap();
    assert_eq!(r.data["long"].as_str().unwrap().chars().count(), 2000);
    assert!(r.truncated);
    c.limits.max_bytes = 50_000;
    let e = reg.call("echo", &json!({"n": 5000}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    assert!(e.message.contains("over this caller's limit of 50,000"), "{}", e.message);
    assert_eq!(e.data.as_ref().unwrap()["max_bytes"], 50_000);
}

#[test]
fn the_same_call_gives_the_same_ids_and_a_different_caller_different_ones() {
    let reg = full_registry();
    let store = demo_store();
    let a = reg.call("points", &json!({"facility_id": "hq"}), &ctx(store.path())).unwrap();
    let b = reg.call("points", &json!({"facility_id": "hq"}), &ctx(store.path())).unwrap();
    assert_eq!(a.facts, b.facts);
    let mut other = ctx(store.path());
    other.allowed.remove("annex");
    let c = reg.call("points", &json!({"facility_id": "hq"}), &other).unwrap();
    assert_ne!(a.facts[0]["id"], c.facts[0]["id"]);
    let mut trust = ctx(store.path());
    trust.min_trust = 0.7;
    let d = reg.call("points", &json!({"facility_id": "hq"}), &trust).unwrap();
    assert_ne!(a.facts[0]["id"], d.facts[0]["id"]);
}

#[test]
fn a_schema_keyword_outside_the_subset_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(refused_components_dir().join("_cap_badschema.wasm"), dir.path().join("_cap_badschema.wasm"))
        .unwrap();
    let err = registry_from(&[dir.path().to_path_buf()]).err().expect("refused");
    assert!(err.starts_with("_cap_badschema.wasm: "), "{err}");
    assert!(err.contains("'oneOf'"), "{err}");
    assert!(!err.contains('\n'));
}

#[test]
fn a_component_built_against_another_version_of_the_contract_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(refused_components_dir().join("_cap_oldwit.wasm"), dir.path().join("_cap_oldwit.wasm")).unwrap();
    let err = registry_from(&[dir.path().to_path_buf()]).err().expect("refused");
    assert_eq!(
        err,
        "_cap_oldwit.wasm: built against camber:capability@0.1.0, but this host loads camber:capability@0.2.3: rebuild it with the current camber-sdk"
    );
}

#[test]
fn a_component_built_against_the_additive_0_2_0_loads_and_answers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(compat_components_dir().join("_cap_wit020.wasm"), dir.path().join("_cap_wit020.wasm")).unwrap();
    let reg = registry_from(&[dir.path().to_path_buf()]).expect("a 0.2.0 component loads on a 0.2.3 host");
    let store = demo_store();
    let r = reg.call("wit020", &json!({}), &ctx(store.path())).expect("and is called, its store reads too");
    assert_eq!(r.data["facilities"], 2, "hq and annex");
}

#[test]
fn a_file_that_is_not_a_component_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("_cap_garbage.wasm"), b"\0asm\x01\0\0\0garbage").unwrap();
    let err = registry_from(&[dir.path().to_path_buf()]).err().expect("refused");
    assert!(err.starts_with("_cap_garbage.wasm: "), "{err}");
    // a core module is not a component either
    std::fs::write(dir.path().join("_cap_garbage.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let err = registry_from(&[dir.path().to_path_buf()]).err().expect("refused");
    assert!(err.starts_with("_cap_garbage.wasm: "), "{err}");
}

#[test]
fn two_capabilities_with_one_name_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(components_dir().join("_cap_points.wasm"), dir.path().join("_cap_points_again.wasm")).unwrap();
    let err = registry_from(&[components_dir(), dir.path().to_path_buf()]).err().expect("refused");
    assert!(err.contains("_cap_points_again.wasm") && err.contains("already offered by _cap_points.wasm"), "{err}");
}

#[test]
fn components_load_in_name_order_across_directories() {
    let reg = registry_from(&[components_dir()]).unwrap();
    let names: Vec<&str> = reg.capabilities().map(|c| c.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(names.contains(&"facilities") && names.contains(&"points") && names.contains(&"coverage"));
    assert_eq!(reg.get("points").unwrap().file, "_cap_points.wasm");
}

#[test]
fn a_guest_reads_aligned_frames_as_a_grid_when_they_are_regular() {
    let reg = full_registry();
    let store = demo_store();
    let c = ctx(store.path());
    let r = reg
        .call(
            "frame",
            &json!({"facility_id": "hq", "equip": "AHU-1", "roles": ["oat", "supply_fan_status", "nope"]}),
            &c,
        )
        .unwrap();
    assert_eq!(r.data["len"], 7 * 96);
    assert_eq!(r.data["step"], 15 * 60 * 1_000_000_000i64);
    assert_eq!(r.data["listed"], 0, "a regular frame travels as start and step");
    assert_eq!(r.data["present"], json!([672, 672, 0]));
    // a guest reads only the facility its call names
    let e = reg
        .call(
            "frame",
            &json!({"facility_id": "annex", "equip": "RTU-1", "roles": ["oat"]}),
            &CallContext::new(store.path(), ["hq".to_string()]),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotAllowed);
}

/// The shipped capabilities plus a language's hostile components (`dir`).
fn with_guests(dir: std::path::PathBuf) -> camber_registry::Registry {
    registry_from(&[components_dir(), dir]).expect("registry loads")
}

/// A hostile guest of another language (its capabilities named `{lang}_...`, its exception
/// class `raised`) is contained as a Rust one is: stopped at the deadline, at the memory cap,
/// an exception answered `internal` on one line with its path redacted, a read outside its
/// call refused whatever it answers, and the next call served.
fn contained(reg: &camber_registry::Registry, lang: &str, raised: &str) {
    let cap = |what: &str| format!("{lang}_{what}");
    let store = demo_store();
    let mut c = ctx(store.path());
    // its declaration reaches callers as any component's does
    let entry = reg.capabilities().find(|e| e.name == cap("points")).expect("loaded");
    assert_eq!(entry.description, "Counts a facility's stored points.");
    let ok = reg.call(&cap("points"), &json!({"facility_id": "hq"}), &c).unwrap();
    assert_eq!(ok.data["count"], 13);
    assert!(ok.text.contains(&format!("[F1@{}-", cap("points"))), "{}", ok.text);

    stopped_at_the_deadline(reg, &mut c, &cap("spin"), json!({}));
    c.limits.max_seconds = 30.0;

    let err = reg.call(&cap("membomb"), &json!({}), &c).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge, "{err}");
    assert!(err.message.contains("memory limit of 256 MiB"), "{}", err.message);

    let e = reg.call(&cap("raise"), &json!({}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains(&format!("{raised}: could not open <path> for reading")), "{}", e.message);
    assert!(!e.message.contains("/home/operator") && !e.message.contains('\n'), "{}", e.message);

    let e = reg.call(&cap("read_other"), &json!({"facility_id": "hq"}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Internal);
    assert!(e.message.contains("outside this call"), "{}", e.message);

    let ok = reg.call(&cap("points"), &json!({"facility_id": "annex"}), &c).unwrap();
    assert!(ok.data["count"].as_u64().unwrap() > 0);
    let args = std::collections::BTreeMap::from([("facility_id".to_string(), "hq".to_string())]);
    assert_eq!(reg.get_prompt(&cap("ask"), &args).unwrap().text, "Tell me about hq.");
}

#[test]
fn a_python_guest_is_contained_as_a_rust_one_is() {
    contained(&with_guests(camber_tests::python_components_dir()), "py", "ValueError");
}

#[test]
fn a_javascript_guest_is_contained_as_a_rust_one_is() {
    contained(&with_guests(camber_tests::js_components_dir()), "js", "TypeError");
}
