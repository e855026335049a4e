//! The store's write side through `camber ingest` and `camber datasets`: what is written, what
//! a refusal leaves (nothing), what an interrupted writer leaves (a store the next writer
//! repairs), and what readers see while a facility is rewritten.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_store::fence;
use camber_store::writer::Writer;
use camber_tests::{cache_dir, camber_bin, full_registry, long_csv};
use serde_json::{json, Value};

fn camber() -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `root` with its bytes (for "nothing changed").
fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.file_name().is_some_and(|n| n != "_lock") {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    walk(root, &mut out);
    out.sort();
    out
}

fn ingest(store: &Path, csv: &Path, extra: &[&str]) -> (i32, String, String) {
    run(camber()
        .arg("ingest")
        .arg(csv)
        .arg("--store")
        .arg(store)
        .args(["--facility", "site", "--timezone", "America/Chicago", "--quiet"])
        .args(extra))
}

fn points(store: &Path, fid: &str) -> Result<Value, camber_common::CapError> {
    let ctx = CallContext::new(store, [fid.to_string()]);
    full_registry().call("points", &json!({"facility_id": fid}), &ctx).map(|r| std::sync::Arc::unwrap_or_clone(r.data))
}

#[test]
fn ingest_writes_a_facility_the_capabilities_serve() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let csv = long_csv(dir.path(), "a.csv", 48, 10.0);
    let (code, out, err) = ingest(&store, &csv, &["--name", "Site"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ingested 144 of 144 rows into facility 'site' (America/Chicago): 3 points on 2 equipment, 2024-01-31T00:00:00 to 2024-02-01T23:00:00"), "{out}");
    let data = points(&store, "site").unwrap();
    assert_eq!(data["count"], 3);
    // two months: two partitions
    assert!(store.join("facility_id=site/year=2024/month=1/part-0-0.parquet").is_file());
    assert!(store.join("facility_id=site/year=2024/month=2/part-0-0.parquet").is_file());
    let reg: Value = serde_json::from_str(&std::fs::read_to_string(store.join("_facilities.json")).unwrap()).unwrap();
    assert_eq!(reg["site"]["name"], "Site");
    assert_eq!(reg["site"]["timezone"], "America/Chicago");
    assert_eq!(reg["site"]["state"], "active");
    let s = camber_store::StoreDir::open(&store).unwrap();
    let (ts, v) = s.read_series("site", "AHU-1", "oat", None, None).unwrap();
    assert_eq!(ts.len(), 48);
    assert_eq!(v[47], 57.0);
}

#[test]
fn a_refused_ingest_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let good = long_csv(dir.path(), "a.csv", 24, 10.0);
    assert_eq!(ingest(&store, &good, &[]).0, 0);
    let before = snapshot(&store);
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "ts,equip,equip_class,role,value\n2024-01-31 00:00,AHU-1,AHU,oat,1\n2024-01-31 00:00,AHU\u{202E}-9,AHU,oat,1\n",
    )
    .unwrap();
    for extra in [vec!["--replace"], vec!["--append"]] {
        let (code, _, err) = ingest(&store, &bad, &extra);
        assert_eq!(code, 2);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("line 3: equipment id"), "{err}");
    }
    // an existing facility without --replace / --append: refused after the lock was taken,
    // and the lock file too is as it was
    let lock_before = std::fs::read(store.join("_lock")).unwrap();
    let (code, _, err) = ingest(&store, &good, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("already has data; pass --replace"), "{err}");
    assert_eq!(snapshot(&store), before);
    assert_eq!(std::fs::read(store.join("_lock")).unwrap(), lock_before);
    // a fresh directory stays empty
    let fresh = dir.path().join("fresh");
    assert_eq!(ingest(&fresh, &bad, &[]).0, 2);
    assert!(!fresh.exists() || std::fs::read_dir(&fresh).unwrap().next().is_none());
    // not a store
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let (code, _, err) = ingest(&other, &good, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("holds no camber store"), "{err}");
}

#[test]
fn replace_and_append() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 48, 10.0), &[]).0, 0);
    let s = camber_store::StoreDir::open(&store).unwrap();
    // append a later overlapping window: overlap takes the new readings, the rest stays
    let later = dir.path().join("later.csv");
    std::fs::write(
        &later,
        "ts,equip,equip_class,role,value\n2024-02-01 23:00,AHU-1,AHU,oat,-1\n2024-03-05 00:00,AHU-1,AHU,oat,-2\n",
    )
    .unwrap();
    let (code, out, err) = ingest(&store, &later, &["--append"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("the facility now holds 145 rows"), "{out}");
    let (ts, v) = s.read_series("site", "AHU-1", "oat", None, None).unwrap();
    assert_eq!(ts.len(), 49);
    assert_eq!(v[46], 56.0);
    assert_eq!(v[47], -1.0);
    assert_eq!(v[48], -2.0);
    assert!(store.join("facility_id=site/year=2024/month=3").is_dir());
    // replace: only the new rows remain
    let (code, _, err) = ingest(&store, &later, &["--replace"]);
    assert_eq!(code, 0, "{err}");
    let (ts, _) = s.read_series("site", "AHU-1", "oat", None, None).unwrap();
    assert_eq!(ts.len(), 2);
    assert!(!store.join("facility_id=site/year=2024/month=1").exists());
}

#[test]
fn a_rewrite_changes_the_fact_ids() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &[]).0, 0);
    let ctx = CallContext::new(&store, ["site".to_string()]);
    let a = full_registry().call("points", &json!({"facility_id": "site"}), &ctx).unwrap();
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &["--replace"]).0, 0);
    let b = full_registry().call("points", &json!({"facility_id": "site"}), &ctx).unwrap();
    assert_eq!(a.data, b.data);
    assert_ne!(a.facts[0]["id"], b.facts[0]["id"]);
}

#[test]
fn a_swap_interrupted_before_it_committed_is_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &[]).0, 0);
    let before = points(&store, "site").unwrap();
    // a killed writer left a filled .new (no .ready), a staging dir and a busy fence
    let new = store.join("_swap-facility_id=site.new/year=2024/month=1");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(new.join("part-0-0.parquet"), b"half written").unwrap();
    std::fs::create_dir_all(store.join("_staging/ingest-4000000001-abc")).unwrap();
    std::fs::create_dir_all(store.join("_fence")).unwrap();
    std::fs::write(fence::fence_path(&store, "site"), r#"{"state":"busy","pid":4000000001,"token":"x"}"#).unwrap();
    // readers are not blocked by the dead writer's fence and see the old data
    assert_eq!(points(&store, "site").unwrap(), before);
    let w = Writer::open(&store, Duration::from_secs(5)).unwrap();
    assert!(
        w.repaired.iter().any(|r| r.contains("rolled back an interrupted rewrite of facility 'site'")),
        "{:?}",
        w.repaired
    );
    assert!(w.repaired.iter().any(|r| r.contains("scratch files")), "{:?}", w.repaired);
    drop(w);
    assert!(!store.join("_swap-facility_id=site.new").exists());
    assert!(!store.join("_staging").exists());
    assert_eq!(points(&store, "site").unwrap(), before);
}

#[test]
fn a_repair_that_cannot_finish_a_swap_says_so_and_leaves_it_to_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &[]).0, 0);
    // a committed swap (.ready, a filled .new) whose .old cannot be cleared: a file where the
    // old partition's directory is moved
    let new = store.join("_swap-facility_id=site.new/year=2024/month=1");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(store.join("_swap-facility_id=site.ready"), b"").unwrap();
    std::fs::write(store.join("_swap-facility_id=site.old"), b"in the way").unwrap();
    let e = Writer::open(&store, Duration::from_secs(5)).err().expect("a repair that failed is no success");
    assert!(
        e.starts_with(
            "the store needs repair that could not be done: cannot finish an interrupted rewrite of facility 'site'"
        ),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1);
    // nothing claimed done: the marker stays, the facility stays unavailable (retry)
    assert!(store.join("_swap-facility_id=site.ready").exists());
    let err = points(&store, "site").unwrap_err();
    assert_eq!(err.code, ErrorCode::Unavailable);
    assert_eq!(err.data.unwrap()["retryable"], true);
    // once the obstacle is gone the next writer finishes it
    std::fs::remove_file(store.join("_swap-facility_id=site.old")).unwrap();
    let w = Writer::open(&store, Duration::from_secs(5)).unwrap();
    assert!(
        w.repaired.iter().any(|r| r.contains("finished an interrupted rewrite of facility 'site'")),
        "{:?}",
        w.repaired
    );
}

#[test]
fn a_swap_interrupted_after_it_committed_is_unavailable_until_finished() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let staging = dir.path().join("staging");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &[]).0, 0);
    // build the new partition elsewhere, then leave the store as a writer killed between the
    // two renames leaves it: .ready, .new in place, the old partition moved to .old
    assert_eq!(ingest(&staging, &long_csv(dir.path(), "b.csv", 5, 100.0), &[]).0, 0);
    std::fs::rename(staging.join("facility_id=site"), store.join("_swap-facility_id=site.new")).unwrap();
    std::fs::write(store.join("_swap-facility_id=site.ready"), b"").unwrap();
    std::fs::rename(store.join("facility_id=site"), store.join("_swap-facility_id=site.old")).unwrap();
    let e = points(&store, "site").unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable);
    assert_eq!(e.data.as_ref().unwrap()["retryable"], true);
    assert_eq!(e.data.as_ref().unwrap()["facility_id"], "site");
    assert!(!e.message.contains(&*store.to_string_lossy()), "{}", e.message);
    let w = Writer::open(&store, Duration::from_secs(5)).unwrap();
    assert!(
        w.repaired.iter().any(|r| r.contains("finished an interrupted rewrite of facility 'site'")),
        "{:?}",
        w.repaired
    );
    drop(w);
    let s = camber_store::StoreDir::open(&store).unwrap();
    let (ts, v) = s.read_series("site", "AHU-1", "oat", None, None).unwrap();
    assert_eq!((ts.len(), v[0]), (5, 100.0));
    assert!(points(&store, "site").is_ok());
}

#[test]
fn a_live_writer_fence_makes_calls_wait_then_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 24, 10.0), &[]).0, 0);
    fence::write(&store, "site", true, "tok").unwrap(); // this process: alive
    let t0 = Instant::now();
    let e = points(&store, "site").unwrap_err();
    assert_eq!(e.code, ErrorCode::Unavailable);
    assert_eq!(e.data.as_ref().unwrap()["retryable"], true);
    assert!(t0.elapsed() >= Duration::from_millis(900), "it waits for the swap before refusing");
    fence::write(&store, "site", false, "tok2").unwrap();
    assert!(points(&store, "site").is_ok());
}

#[test]
fn a_second_writer_waits_for_the_lock_then_says_who_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let w = Writer::open(&store, Duration::from_secs(1)).unwrap();
    let (code, _, err) = ingest(&store, &long_csv(dir.path(), "a.csv", 2, 1.0), &["--lock-timeout", "0.3"]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("the store is locked by {}@", std::process::id())), "{err}");
    drop(w);
    assert_eq!(ingest(&store, &long_csv(dir.path(), "a.csv", 2, 1.0), &[]).0, 0);
}

#[test]
fn a_writer_killed_at_any_moment_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let small = long_csv(dir.path(), "small.csv", 24, 10.0);
    let big = long_csv(dir.path(), "big.csv", 40_000, 500.0); // 120,000 rows over 5 months
    assert_eq!(ingest(&store, &small, &[]).0, 0);
    let old = points(&store, "site").unwrap();
    let s = camber_store::StoreDir::open(&store).unwrap();
    let mut outcomes = (0, 0);
    for i in 0..8u64 {
        let mut child = camber()
            .arg("ingest")
            .arg(&big)
            .arg("--store")
            .arg(&store)
            .args(["--facility", "site", "--timezone", "UTC", "--quiet", "--replace"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(40 + i * 45));
        let _ = child.kill();
        let _ = child.wait();
        // whatever the moment, a reader sees either the old or the new data, or is told to retry
        match points(&store, "site") {
            Ok(d) => assert_eq!(d["count"], old["count"]),
            Err(e) => assert!(e.code == ErrorCode::Unavailable && e.data.as_ref().unwrap()["retryable"] == true, "{e}"),
        }
        // the next writer repairs; the facility is whole: 24 or 40,000 hours of every point
        drop(Writer::open(&store, Duration::from_secs(5)).unwrap());
        let (ts, v) = s.read_series("site", "AHU-2", "oat", None, None).unwrap();
        match ts.len() {
            24 => {
                assert_eq!(v[0], 10.0);
                outcomes.0 += 1;
            }
            40_000 => {
                assert_eq!(v[0], 500.0);
                outcomes.1 += 1;
            }
            n => panic!("a killed writer left {n} rows"),
        }
        assert!(points(&store, "site").is_ok());
        // back to the small data for the next round
        assert_eq!(ingest(&store, &small, &["--replace"]).0, 0);
    }
    eprintln!("killed writers left the old data {} times and the new {} times", outcomes.0, outcomes.1);
    assert_eq!(outcomes.0 + outcomes.1, 8);
}

#[test]
fn synthetic_datasets_are_ingested_with_their_labels() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (code, out, err) = run(camber().args(["datasets", "ingest", "synthetic-chw-plant", "--store"]).arg(&store));
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("synthetic-chw-plant: ingested 141,061 rows into ds-synthetic-chw-plant"), "{out}");
    let reg: Value = serde_json::from_str(&std::fs::read_to_string(store.join("_facilities.json")).unwrap()).unwrap();
    let block = &reg["ds-synthetic-chw-plant"]["dataset"];
    assert_eq!(block["labels"]["TOWER__fouled_tower"], "tower_fouled");
    assert_eq!(block["labels"]["CH__healthy"], "");
    assert_eq!(block["generator"]["version"], camber_synth::GENERATOR_VERSION);
    assert_eq!(block["access"], "open");
    // deterministic: the same data again
    let first = snapshot(&store.join("facility_id=ds-synthetic-chw-plant"));
    let (code, _, err) =
        run(camber().args(["datasets", "ingest", "synthetic-chw-plant", "--replace", "--store"]).arg(&store));
    assert_eq!(code, 0, "{err}");
    let second = snapshot(&store.join("facility_id=ds-synthetic-chw-plant"));
    assert_eq!(first.iter().map(|f| &f.1).collect::<Vec<_>>(), second.iter().map(|f| &f.1).collect::<Vec<_>>());
    let (code, _, err) = run(camber().args(["datasets", "ingest", "synthetic-nope", "--store"]).arg(&store));
    assert_eq!(code, 2);
    assert!(err.contains("unknown dataset 'synthetic-nope'"), "{err}");
}

#[test]
fn frames_align_roles_on_shared_timestamps() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let csv = dir.path().join("f.csv");
    std::fs::write(&csv, "ts,equip,equip_class,role,value\n2024-10-31 23:00,A,AHU,oat,1\n2024-10-31 23:00,A,AHU,sat,2\n2024-11-01 00:00,A,AHU,oat,3\n2024-11-01 01:00,A,AHU,sat,4\n2024-11-01 01:00,B,AHU,sat,9\n").unwrap();
    assert_eq!(ingest(&store, &csv, &[]).0, 0);
    let s = camber_store::StoreDir::open(&store).unwrap();
    let f = s.read_frame("site", "A", &["oat".into(), "sat".into()], None, None).unwrap();
    assert_eq!(f.ts.len(), 3);
    assert_eq!(f.values[0][..2], [1.0, 3.0]);
    assert!(f.values[0][2].is_nan());
    assert!(f.values[1][1].is_nan());
    assert_eq!(f.values[1][2], 4.0);
    let start = camber_common::time::ns_from_iso("2024-11-01T00:00").unwrap();
    let w = s.read_frame("site", "A", &["oat".into()], Some(start), None).unwrap();
    assert_eq!((w.ts.len(), w.values[0][0]), (1, 3.0));
}
