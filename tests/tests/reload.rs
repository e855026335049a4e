//! The live capability set (issue 30), in process: a reload adds, replaces and removes
//! components while calls run; a call in flight finishes on the component it started with; a
//! component that fails to load, or takes a name another has, leaves the set as it was; the
//! trust policy admits only pinned or signed files and holds each component to its grant.
//! The same through a real MCP client over stdio and HTTP is in `reload_mcp.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use camber_common::ErrorCode;
use camber_registry::live::{LiveRegistry, PolicySource};
use camber_registry::trust;
use camber_registry::CallContext;
use camber_runtime::Runtime;
use camber_tests::{components_dir, demo_store, reload_components_dir, runtime_config};
use serde_json::json;

/// The reload test component's bytes with its build marker set to `variant` (`A` as built).
pub fn variant(letter: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(reload_components_dir().join("_cap_reload.wasm")).unwrap();
    let marker = b"reload-variant-A";
    let at: Vec<usize> = bytes.windows(marker.len()).enumerate().filter(|(_, w)| w == marker).map(|(i, _)| i).collect();
    assert_eq!(at.len(), 1, "the marker is in the built component once");
    bytes[at[0] + marker.len() - 1] = letter;
    bytes
}

/// The same component with a custom section appended: other bytes, the same contract.
fn with_custom_section(mut bytes: Vec<u8>) -> Vec<u8> {
    let name = b"camber-test-note";
    let payload = b"other bytes, same contract";
    bytes.push(0);
    bytes.push((1 + name.len() + payload.len()) as u8);
    bytes.push(name.len() as u8);
    bytes.extend_from_slice(name);
    bytes.extend_from_slice(payload);
    bytes
}

/// A live registry over `dir` whose new components are compiled optimized at once (the quick
/// tier's background swap would race these tests' own reloads; it has its own test).
fn live(dir: &Path, policy: Option<PathBuf>) -> Result<LiveRegistry, String> {
    let runtime = Arc::new(Runtime::new(runtime_config())?);
    let reg = LiveRegistry::start(runtime, vec![dir.to_path_buf()], PolicySource { path: policy, own_dir: None })?;
    reg.set_quick_tier(false);
    Ok(reg)
}

fn ctx(store: &Path) -> CallContext {
    CallContext::new(store, ["hq".to_string()])
}

fn probe(reg: &LiveRegistry, c: &CallContext) -> Result<String, ErrorCode> {
    reg.current()
        .call("reload_probe", &json!({}), c)
        .map(|r| r.data["variant"].as_str().unwrap_or_default().to_string())
        .map_err(|e| e.code)
}

fn revision(reg: &LiveRegistry, name: &str) -> Option<serde_json::Value> {
    reg.current().get(name).map(|c| c.descriptor()["revision"].clone())
}

fn copy_shipped(dir: &Path, name: &str) {
    std::fs::copy(components_dir().join(name), dir.join(name)).unwrap();
}

#[test]
fn added_replaced_and_removed_components_take_effect_and_calls_in_flight_finish_on_theirs() {
    let d = tempfile::tempdir().unwrap();
    let store = demo_store();
    let c = ctx(store.path());
    copy_shipped(d.path(), "_cap_facilities.wasm");
    let reg = Arc::new(live(d.path(), None).unwrap());
    let facilities_rev = revision(&reg, "facilities").unwrap();
    assert_eq!(probe(&reg, &c), Err(ErrorCode::UnknownCapability));
    assert!(!reg.reload().changed(), "nothing changed, nothing to tell");

    // added
    std::fs::write(d.path().join("_cap_reload.wasm"), variant(b'A')).unwrap();
    let r = reg.reload();
    assert!(r.tools && !r.prompts, "{r:?}");
    assert!(r.lines.iter().any(|l| l.starts_with("_cap_reload.wasm: added")), "{r:?}");
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-A"));
    let rev_a = revision(&reg, "reload_probe").unwrap();

    // replaced while a call runs: the call finishes on A, new calls get B
    let slow = {
        let (reg, store) = (reg.clone(), store.path().to_path_buf());
        std::thread::spawn(move || {
            reg.current()
                .call("reload_probe", &json!({"sleep_ms": 1500}), &ctx(&store))
                .map(|r| r.data["variant"].as_str().unwrap_or_default().to_string())
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(d.path().join("_cap_reload.wasm"), variant(b'B')).unwrap();
    let r = reg.reload();
    assert!(r.tools && r.lines.iter().any(|l| l.starts_with("_cap_reload.wasm: replaced")), "{r:?}");
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-B"));
    assert_eq!(slow.join().unwrap().map_err(|e| e.code).as_deref(), Ok("reload-variant-A"), "in flight on A");
    let rev_b = revision(&reg, "reload_probe").unwrap();
    assert_ne!(rev_a, rev_b, "a changed contract has a new revision");
    assert_eq!(revision(&reg, "facilities").unwrap(), facilities_rev, "an untouched component keeps its revision");

    // other bytes, the same contract: reloaded, but the list is the same and so are revisions
    std::fs::write(d.path().join("_cap_reload.wasm"), with_custom_section(variant(b'B'))).unwrap();
    let r = reg.reload();
    assert!(!r.tools && r.lines.iter().any(|l| l.contains("replaced")), "{r:?}");
    assert_eq!(revision(&reg, "reload_probe").unwrap(), rev_b);

    // a broken replacement is refused in a line and B stays
    std::fs::write(d.path().join("_cap_reload.wasm"), b"\0asm not a component").unwrap();
    let r = reg.reload();
    assert!(!r.changed(), "{r:?}");
    let line = r.lines.iter().find(|l| l.starts_with("_cap_reload.wasm:")).expect("a line for the refusal");
    assert!(line.contains("not a valid component") && line.ends_with("the loaded version stays"), "{line}");
    assert!(!line.contains(&*d.path().to_string_lossy()), "no path: {line}");
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-B"));

    // a second component offering the same names is refused as at start-up
    std::fs::write(d.path().join("_cap_reload.wasm"), variant(b'B')).unwrap();
    std::fs::write(d.path().join("_cap_reload_copy.wasm"), variant(b'C')).unwrap();
    let r = reg.reload();
    assert!(
        r.lines.iter().any(|l| l
            .contains("_cap_reload_copy.wasm: capability 'reload_memory' is already offered by _cap_reload.wasm")
            || l.contains("_cap_reload_copy.wasm: capability 'reload_probe' is already offered by _cap_reload.wasm")),
        "{r:?}"
    );
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-B"));
    std::fs::remove_file(d.path().join("_cap_reload_copy.wasm")).unwrap();

    // removed: its calls are unknown_capability, the rest answer
    std::fs::remove_file(d.path().join("_cap_reload.wasm")).unwrap();
    let r = reg.reload();
    assert!(r.tools && r.lines.iter().any(|l| l == "_cap_reload.wasm: removed"), "{r:?}");
    assert_eq!(probe(&reg, &c), Err(ErrorCode::UnknownCapability));
    assert!(reg.current().call("facilities", &json!({}), &c).is_ok());
}

#[test]
fn rapid_reloads_while_eight_clients_call_answer_every_call_from_a_whole_component() {
    let d = tempfile::tempdir().unwrap();
    let store = demo_store();
    copy_shipped(d.path(), "_cap_facilities.wasm");
    std::fs::write(d.path().join("_cap_reload.wasm"), variant(b'A')).unwrap();
    let reg = Arc::new(live(d.path(), None).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let (answered, unknown) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let clients: Vec<_> = (0..8)
        .map(|i| {
            let (reg, stop, store) = (reg.clone(), stop.clone(), store.path().to_path_buf());
            let (answered, unknown) = (answered.clone(), unknown.clone());
            std::thread::spawn(move || {
                let c = ctx(&store);
                while !stop.load(Ordering::Relaxed) {
                    let name = if i % 4 == 0 { "facilities" } else { "reload_probe" };
                    let snapshot = reg.current();
                    match snapshot.call(name, &json!({}), &c) {
                        Ok(r) if name == "reload_probe" => {
                            // the answer is the build of the component this call's set held
                            let v = r.data["variant"].as_str().unwrap_or_default().to_string();
                            let listed =
                                snapshot.get("reload_probe").map(|e| e.description.clone()).unwrap_or_default();
                            assert!(listed.contains(&v), "answered by {v}, listed as {listed}");
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Ok(_) => {
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            assert_eq!(e.code, ErrorCode::UnknownCapability, "{e}");
                            assert_eq!(name, "reload_probe", "facilities never goes away: {e}");
                            unknown.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    for round in 0..40u8 {
        let path = d.path().join("_cap_reload.wasm");
        match round % 4 {
            0 => std::fs::write(&path, variant(b'B')).unwrap(),
            1 => std::fs::remove_file(&path).unwrap(),
            2 => std::fs::write(&path, variant(b'A')).unwrap(),
            // a half-written file: refused, the set unharmed
            _ => std::fs::write(&path, &variant(b'C')[..4096]).unwrap(),
        }
        let _ = reg.reload();
    }
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().expect("no client thread panicked");
    }
    assert!(answered.load(Ordering::Relaxed) > 40, "calls kept being answered");
    let _ = unknown.load(Ordering::Relaxed);
}

/// A temporary directory with a `caps/` capability directory holding the shipped
/// `facilities` component.
fn caps_with_facilities() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let caps = d.path().join("caps");
    std::fs::create_dir(&caps).unwrap();
    copy_shipped(&caps, "_cap_facilities.wasm");
    (d, caps)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn the_policy_admits_pinned_and_signed_components_only_and_holds_each_to_its_grant() {
    let (d, caps) = caps_with_facilities();
    let store = demo_store();
    let c = ctx(store.path());
    // the shipped component is pinned; the reload component is signed by a trusted key
    std::fs::write(d.path().join("camber.lock"), trust::lock_text(&[caps.join("_cap_facilities.wasm")]).unwrap())
        .unwrap();
    let (secret, public) = trust::keygen("vendor").unwrap();
    write(d.path(), "vendor.key", &secret);
    write(d.path(), "vendor.pub", &public);
    let policy = write(
        d.path(),
        "camber.policy.toml",
        "[trust]\nlock = \"camber.lock\"\nkeys = [\"vendor.pub\"]\n\n[component.\"_cap_reload.wasm\"]\nmemory_mib = 64\ndeadline_seconds = 1\n",
    );
    let reg = live(&caps, Some(policy.clone())).unwrap();
    assert!(reg.current().call("facilities", &json!({}), &c).is_ok());

    // signed: loads, within its grant (64 MiB)
    let comp = caps.join("_cap_reload.wasm");
    std::fs::write(&comp, variant(b'A')).unwrap();
    std::fs::write(trust::signature_path(&comp), trust::sign(&comp, &d.path().join("vendor.key")).unwrap()).unwrap();
    let r = reg.reload();
    assert!(r.tools, "{r:?}");
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-A"));
    assert!(reg.current().call("reload_memory", &json!({"mib": 16}), &c).is_ok());
    let e = reg.current().call("reload_memory", &json!({"mib": 128}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    assert!(e.message.contains("64 MiB"), "{e}");
    // the component's deadline holds under a caller's longer one
    let mut long = ctx(store.path());
    long.limits.max_seconds = 600.0;
    let e = reg.current().call("reload_probe", &json!({"sleep_ms": 5_000}), &long).unwrap_err();
    assert!(e.code == ErrorCode::Timeout && e.message.contains("longer than 1 s"), "{e}");

    // tampered (one byte changed after signing): refused, the signed version stays
    std::fs::write(&comp, variant(b'B')).unwrap();
    let r = reg.reload();
    assert!(!r.changed(), "{r:?}");
    let line = r.lines.iter().find(|l| l.starts_with("_cap_reload.wasm")).unwrap();
    assert!(line.contains("verifies with no trusted key") && line.ends_with("the loaded version stays"), "{line}");
    assert_eq!(probe(&reg, &c).as_deref(), Ok("reload-variant-A"));

    // unlisted and unsigned: refused
    std::fs::write(caps.join("_cap_other.wasm"), variant(b'C')).unwrap();
    let r = reg.reload();
    let line = r.lines.iter().find(|l| l.starts_with("_cap_other.wasm")).unwrap();
    assert!(line.contains("not in the lock") && line.contains("not signed") && line.ends_with("not loaded"), "{line}");
    std::fs::remove_file(caps.join("_cap_other.wasm")).unwrap();

    // an interface the grant leaves out: refused at load, naming it
    std::fs::write(&comp, variant(b'A')).unwrap();
    write(
        d.path(),
        "camber.policy.toml",
        "[trust]\nlock = \"camber.lock\"\nkeys = [\"vendor.pub\"]\n\n[component.\"_cap_reload.wasm\"]\nimports = [\"progress\"]\n",
    );
    let r = reg.reload();
    let line = r.lines.iter().find(|l| l.starts_with("_cap_reload.wasm")).unwrap();
    assert!(line.contains("imports camber:capability/store, which the trust policy does not grant it"), "{line}");
    assert!(line.ends_with("it is unloaded"), "a changed policy takes back what it no longer grants: {line}");
    assert_eq!(probe(&reg, &c), Err(ErrorCode::UnknownCapability));
    assert!(reg.current().call("facilities", &json!({}), &c).is_ok(), "the pinned component stays");

    // at start-up, a refused component fails the start in one line
    let e = live(&caps, Some(policy)).err().unwrap();
    assert!(e.starts_with("_cap_reload.wasm: imports camber:capability/store") && !e.contains('\n'), "{e}");
}

#[test]
fn a_component_that_starts_with_more_memory_than_its_grant_says_so_and_the_rest_answer() {
    // the run component declares 128 MiB of initial memory (capabilities/rule_run/build.rs);
    // held to 64 MiB it cannot start, which no narrower query helps: the refusal says whose
    // setting it is, and leaves the other components answering
    let (d, caps) = caps_with_facilities();
    let store = demo_store();
    let c = ctx(store.path());
    copy_shipped(&caps, "_cap_rule_run.wasm");
    let pinned = [caps.join("_cap_facilities.wasm"), caps.join("_cap_rule_run.wasm")];
    std::fs::write(d.path().join("camber.lock"), trust::lock_text(&pinned).unwrap()).unwrap();
    let policy = write(
        d.path(),
        "camber.policy.toml",
        "[trust]\nlock = \"camber.lock\"\n\n[component.\"_cap_rule_run.wasm\"]\nmemory_mib = 64\nimports = [\"store\", \"run-config\", \"catalog\", \"progress\", \"content\"]\n",
    );
    let reg = live(&caps, Some(policy)).unwrap();
    let e = reg.current().call("rule_run", &json!({"facility_id": "hq"}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable, "{e}");
    assert!(e.message.contains("starts with 128 MiB of memory, more than the 64 MiB its grant allows"), "{e}");
    assert_eq!(e.data.as_ref().map(|d| d["retryable"].clone()), Some(json!(false)), "{e:?}");
    assert!(reg.current().call("facilities", &json!({}), &c).is_ok());
}

#[test]
fn a_component_not_yet_compiled_answers_at_once_from_the_quick_tier_and_the_same_once_optimized() {
    let (d, caps) = caps_with_facilities();
    let store = demo_store();
    let c = ctx(store.path());
    // an empty compile cache of its own: the largest shipped component is compiled anew
    let config = camber_runtime::RuntimeConfig { cache_dir: Some(d.path().join("cache")), ..runtime_config() };
    let reg = LiveRegistry::start(
        Arc::new(Runtime::new(config).unwrap()),
        vec![caps.clone()],
        PolicySource { path: None, own_dir: None },
    )
    .unwrap();
    let lines = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = lines.clone();
    reg.set_log(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
    copy_shipped(&caps, "_cap_rule_run.wasm");
    let r = reg.reload();
    assert!(r.tools && r.lines.iter().any(|l| l.contains("running on a quick compile")), "{r:?}");
    let unit = |reg: &LiveRegistry| {
        reg.current().components().iter().find(|l| l.unit.file == "_cap_rule_run.wasm").map(|l| l.unit.quick)
    };
    assert_eq!(unit(&reg), Some(true));
    let before = revision(&reg, "sensor_trust").unwrap();
    let call = |reg: &LiveRegistry| reg.current().call("sensor_trust", &json!({"facility_id": "hq"}), &c).unwrap();
    let quick = call(&reg);
    // the optimized code swaps itself in, with the same contract, and says so (its log lines
    // are written once the swap is made, so the test waits for both)
    let t0 = std::time::Instant::now();
    let said = |l: &str| lines.lock().unwrap().iter().any(|x| x.contains(l));
    while unit(&reg) != Some(false) || !said("_cap_rule_run.wasm: now runs its optimized code") {
        assert!(t0.elapsed() < Duration::from_secs(300), "never optimized: {:?}", lines.lock().unwrap());
        std::thread::sleep(Duration::from_millis(100));
    }
    let optimized = call(&reg);
    assert_eq!(quick.data, optimized.data, "Winch and Cranelift code answer alike");
    assert_eq!(quick.text, optimized.text);
    assert_eq!(revision(&reg, "sensor_trust").unwrap(), before, "same contract, same revision");
    let log = lines.lock().unwrap().join("\n");
    assert!(log.contains("_cap_rule_run.wasm: optimized code compiled in"), "{log}");
    assert!(!reg.reload().changed(), "nothing left to change");
}
