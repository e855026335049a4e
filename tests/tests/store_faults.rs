//! Store fault injection: each kind of damage a careless operator or a hostile user can leave
//! in a store, with the code every call on the damaged facility must get, and the other
//! facility's calls unaffected. Damage is never read as "no data here", never a panic, and
//! never a call blocked past its deadline.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_store::parts::{write_part, LongRows, PointKey};
use camber_tests::{demo_store, full_registry};
use serde_json::{json, Value};

fn ctx(store: &Path) -> CallContext {
    CallContext::new(store, ["hq".to_string(), "annex".to_string()])
}

fn facility(store: &Path, fid: &str) -> PathBuf {
    store.join(format!("facility_id={fid}"))
}

/// Every part file of a facility, sorted.
fn parts(store: &Path, fid: &str) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&facility(store, fid), &mut out);
    out.sort();
    out
}

/// The calls every damaged facility is tried with: the listing-free ones that read its data.
const CALLS: &[(&str, &str)] = &[
    ("points", r#"{"facility_id":"hq"}"#),
    ("coverage", r#"{"facility_id":"hq"}"#),
    ("rule_run", r#"{"facility_id":"hq"}"#),
    ("sensor_trust", r#"{"facility_id":"hq"}"#),
    ("finding_detail", r#"{"facility_id":"hq","finding_id":"x@AHU-1"}"#),
];

/// Run a call on another thread and wait for it (a call blocked on a FIFO would never come
/// back: the test fails instead of hanging).
fn call(store: &Path, name: &str, args: &str) -> Result<camber_common::CapabilityResult, camber_common::CapError> {
    let (tx, rx) = mpsc::channel();
    let (store, owned, args) = (store.to_path_buf(), name.to_string(), args.to_string());
    std::thread::spawn(move || {
        let name = owned;
        let mut c = ctx(&store);
        c.limits.max_seconds = 10.0;
        let _ = tx.send(full_registry().call(&name, &serde_json::from_str(&args).unwrap(), &c));
    });
    rx.recv_timeout(Duration::from_secs(120))
        .unwrap_or_else(|_| panic!("{name} did not return: blocked past its deadline"))
}

/// The damaged facility's calls are `unavailable` (not retryable, naming it, no path); the
/// other facility's are answered; the listing lists both, the damaged one flagged.
fn assert_damaged(store: &Path, what: &str, calls: &[(&str, &str)]) {
    for (name, args) in calls {
        let e = match call(store, name, args) {
            Ok(r) => panic!("{what}: {name} answered as if nothing were wrong: {}", r.text),
            Err(e) => e,
        };
        camber_tests::assert_damage_refusal(&e, "hq", &format!("{what}: {name}"));
        assert!(!e.message.contains(&*store.to_string_lossy()), "{what}: {name}: {e}");
    }
    assert_serving(store, what);
    let list = call(store, "facilities", "{}").unwrap_or_else(|e| panic!("{what}: the listing failed: {e}"));
    let rows = list.data["facilities"].as_array().unwrap();
    let hq = rows.iter().find(|f| f["facility_id"] == "hq").unwrap_or_else(|| panic!("{what}: hq is not listed"));
    assert_eq!(hq["unavailable"], json!({"retryable": false}), "{what}: {hq}");
    assert_eq!(hq["start"], Value::Null, "{what}");
}

/// The other facility is served as before.
fn assert_serving(store: &Path, what: &str) {
    let r = call(store, "points", r#"{"facility_id":"annex"}"#).unwrap_or_else(|e| panic!("{what}: annex: {e}"));
    assert_eq!(r.data["count"], 3, "{what}");
    call(store, "rule_run", r#"{"facility_id":"annex"}"#).unwrap_or_else(|e| panic!("{what}: annex rule_run: {e}"));
}

fn rows(points: &[(i64, &str, &str, &str, f64)]) -> LongRows {
    let mut long = LongRows::default();
    for &(t, e, c, r, v) in points {
        let p = long.intern(&PointKey { equip: e.into(), equip_class: c.into(), role: r.into() });
        long.push(t, p, v);
    }
    long.finish();
    long
}

#[test]
fn a_part_with_times_at_the_i64_extremes_is_unavailable_not_a_panic() {
    for (label, ts) in
        [("min", i64::MIN), ("max", i64::MAX), ("2250", camber_common::time::ns_from_iso("2250-01-01").unwrap())]
    {
        let store = demo_store();
        let part = parts(store.path(), "hq")[0].clone();
        let long = rows(&[(ts, "AHU-1", "AHU", "oat", 1.0), (1_709_510_400_000_000_000, "AHU-1", "AHU", "oat", 2.0)]);
        write_part(&part, &long, 0..long.len()).unwrap();
        // points may come from the catalog (the names are right); what reads times must refuse
        assert_damaged(store.path(), &format!("ts at {label}"), &CALLS[1..]);
    }
}

#[test]
fn a_part_of_garbage_the_same_size_and_time_is_not_answered_from_the_index() {
    let store = demo_store();
    // warm every memo first: the damage must be seen after it too
    for (name, args) in CALLS {
        let _ = call(store.path(), name, args);
    }
    let part = parts(store.path(), "hq")[0].clone();
    let meta = std::fs::metadata(&part).unwrap();
    let garbage: Vec<u8> = (0..meta.len()).map(|i| (i * 7 + 3) as u8).collect();
    std::fs::write(&part, garbage).unwrap();
    // the same size and the same modification time: only reading the part can tell
    std::fs::File::options().write(true).open(&part).unwrap().set_modified(meta.modified().unwrap()).unwrap();
    assert_damaged(store.path(), "garbage of the same size", CALLS);
}

#[test]
fn a_forged_times_index_is_not_served_as_fact() {
    let store = demo_store();
    let index = facility(store.path(), "hq").join("_camber_times.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
    // runs that reach past what nanoseconds hold: the index is ignored and the parts read
    for p in doc["points"].as_array_mut().unwrap() {
        p["runs"] = json!([[i64::MAX - 10, 3_600_000_000_000i64, 4_000_000_000u64]]);
    }
    std::fs::write(&index, doc.to_string()).unwrap();
    let r = call(store.path(), "coverage", r#"{"facility_id":"hq"}"#).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.data["window"]["start"], "2024-03-04T00:00:00", "{}", r.data);
}

/// Runs that a writer could have written (storable times, a positive step) but that the parts'
/// own footers contradict: the index is checked against the parts' row counts and time
/// statistics and scanned past.
#[test]
fn a_plausible_forged_times_index_is_checked_against_the_parts() {
    type Forge = fn(&mut Value);
    let forgeries: [(&str, Forge); 3] = [
        ("four billion samples from 1970", |p| p["runs"] = json!([[0i64, 1i64, 4_000_000_000u64]])),
        ("the right count a year early", |p| {
            let runs = p["runs"].as_array_mut().unwrap();
            for r in runs {
                r[0] = json!(r[0].as_i64().unwrap() - 365 * 86_400_000_000_000i64);
            }
        }),
        ("one sample fewer", |p| {
            let r = &mut p["runs"].as_array_mut().unwrap()[0];
            r[2] = json!(r[2].as_u64().unwrap() - 1);
        }),
    ];
    // the truth from a store of its own: no memo of it can answer for the forged one
    let truth = call(demo_store().path(), "coverage", r#"{"facility_id":"hq"}"#).unwrap();
    for (what, forge) in forgeries {
        let store = demo_store();
        let index = facility(store.path(), "hq").join("_camber_times.json");
        let meta = std::fs::metadata(&index).unwrap();
        let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&index).unwrap()).unwrap();
        for p in doc["points"].as_array_mut().unwrap() {
            forge(p);
        }
        std::fs::write(&index, doc.to_string()).unwrap();
        // the parts are as old as before: only the footers can tell
        std::fs::File::options().write(true).open(&index).unwrap().set_modified(meta.modified().unwrap()).unwrap();
        let r = call(store.path(), "coverage", r#"{"facility_id":"hq"}"#).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.data["window"], truth.data["window"], "{what}");
        assert_eq!(r.data["points"], truth.data["points"], "{what}");
    }
}

#[test]
fn entries_that_are_not_what_the_layout_says_are_damage() {
    type Damage = fn(&Path, &Path);
    let cases: &[(&str, Damage)] = &[
        ("a part that is a directory", |store, _| {
            let p = parts(store, "hq")[0].with_file_name("part-zz-directory.parquet");
            std::fs::create_dir(p).unwrap();
        }),
        ("a part that is a FIFO", |store, _| {
            let p = parts(store, "hq")[0].with_file_name("part-zz-fifo.parquet");
            assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
        }),
        ("a dangling symlink part", |store, scratch| {
            let p = parts(store, "hq")[0].with_file_name("part-zz-link.parquet");
            std::os::unix::fs::symlink(scratch.join("nowhere.parquet"), p).unwrap();
        }),
        ("a symlink part out of the store", |store, scratch| {
            let first = parts(store, "hq")[0].clone();
            let outside = scratch.join("outside.parquet");
            std::fs::rename(&first, &outside).unwrap();
            std::os::unix::fs::symlink(&outside, &first).unwrap();
        }),
        ("a month directory replaced by a file", |store, _| {
            let month = parts(store, "hq")[0].parent().unwrap().to_path_buf();
            std::fs::remove_dir_all(&month).unwrap();
            std::fs::write(&month, b"not a directory").unwrap();
        }),
        ("a year directory that is a symlink", |store, scratch| {
            let year = parts(store, "hq")[0].parent().unwrap().parent().unwrap().to_path_buf();
            let moved = scratch.join("year");
            std::fs::rename(&year, &moved).unwrap();
            std::os::unix::fs::symlink(&moved, &year).unwrap();
        }),
        ("the facility directory replaced by a file", |store, _| {
            let dir = facility(store, "hq");
            std::fs::remove_dir_all(&dir).unwrap();
            std::fs::write(&dir, b"not a directory").unwrap();
        }),
        ("a part with the right names and the wrong types", |store, _| {
            let part = parts(store, "hq")[0].clone();
            std::fs::write(&part, camber_tests::wrong_types_part()).unwrap();
        }),
    ];
    for (what, damage) in cases {
        let store = demo_store();
        let scratch = tempfile::tempdir().unwrap();
        damage(store.path(), scratch.path());
        assert_damaged(store.path(), what, CALLS);
    }
}

fn mkfifo(p: &Path) {
    let _ = std::fs::remove_file(p);
    let _ = std::fs::remove_dir_all(p);
    assert!(std::process::Command::new("mkfifo").arg(p).status().unwrap().success());
}

#[test]
fn a_fifo_in_the_store_never_blocks_a_call() {
    // the registry: cannot be vouched for, so facilities are refused (licence unverified),
    // promptly
    let store = demo_store();
    mkfifo(&store.path().join("_facilities.json"));
    for (name, args) in CALLS {
        let e = call(store.path(), name, args).map(|r| r.text).unwrap_err();
        assert!(matches!(e.code, ErrorCode::RefusedLicence | ErrorCode::Unavailable), "{name}: {e}");
    }
    call(store.path(), "facilities", "{}").unwrap();

    // the times index: only an index, so the parts are read instead
    let store = demo_store();
    mkfifo(&facility(store.path(), "hq").join("_camber_times.json"));
    let r = call(store.path(), "coverage", r#"{"facility_id":"hq"}"#).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.data["window"]["start"], "2024-03-04T00:00:00");

    // a fence: the facility's calls are unavailable, the listing lists it flagged
    let store = demo_store();
    std::fs::create_dir_all(store.path().join("_fence")).unwrap();
    mkfifo(&store.path().join("_fence").join("hq"));
    assert_damaged(store.path(), "a FIFO fence", CALLS);
}

#[test]
fn one_unreadable_fence_does_not_take_the_listing_down() {
    let store = demo_store();
    let fence = store.path().join("_fence").join("hq");
    let _ = std::fs::remove_file(&fence);
    std::fs::create_dir_all(&fence).unwrap();
    assert_damaged(store.path(), "a fence that is a directory", CALLS);
    let list = call(store.path(), "facilities", "{}").unwrap();
    assert_eq!(list.data["count"], 2, "{}", list.data);
}

/// A facility that one writer holds (a live writer's busy fence, or the marker of a swap a
/// killed writer left half done) is listed, flagged retryable, and the other facility's row and
/// calls are as before.
#[test]
fn a_held_facility_does_not_take_the_listing_down() {
    type Hold = fn(&Path);
    let holds: [(&str, Hold); 2] = [
        ("a live writer's busy fence", |root| camber_store::fence::write(root, "hq", true, "t1").unwrap()),
        ("a killed writer's swap marker", |root| {
            std::fs::write(camber_store::fence::ready_marker(root, "hq"), b"").unwrap()
        }),
    ];
    for (what, hold) in holds {
        let store = demo_store();
        hold(store.path());
        let e = call(store.path(), "points", r#"{"facility_id":"hq"}"#).expect_err(what);
        assert_eq!(e.code, ErrorCode::Unavailable, "{what}: {e}");
        assert_eq!(e.data.as_ref().unwrap()["retryable"], true, "{what}: {e}");
        let list = call(store.path(), "facilities", "{}").unwrap_or_else(|e| panic!("{what}: the listing failed: {e}"));
        assert_eq!(list.data["count"], 2, "{what}: {}", list.data);
        let rows = list.data["facilities"].as_array().unwrap();
        let hq = rows.iter().find(|f| f["facility_id"] == "hq").unwrap();
        assert_eq!(hq["unavailable"], json!({"retryable": true}), "{what}: {hq}");
        assert_eq!((&hq["start"], &hq["end"]), (&Value::Null, &Value::Null), "{what}: {hq}");
        let annex = rows.iter().find(|f| f["facility_id"] == "annex").unwrap();
        assert!(annex.get("unavailable").is_none_or(Value::is_null), "{what}: {annex}");
        assert!(annex["start"].is_string(), "{what}: {annex}");
        assert_serving(store.path(), what);
    }
}
