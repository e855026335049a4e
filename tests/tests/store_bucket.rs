//! The store's write-side and fault suites (`store.rs`, `store_faults.rs`) run again on object
//! storage, against a real S3 API (moto's server): what `camber ingest` writes to a bucket and
//! what it leaves when it is refused or killed at any moment, and each kind of damage an
//! operator or a hostile user can leave in a bucket, with the code every call must get.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_store::bucket::{Bucket, Expect};
use camber_store::bucket_writer::BucketWriter;
use camber_store::parts::{write_part, LongRows, PointKey};
use camber_store::StoreDir;
use camber_tests::s3::S3Server;
use camber_tests::{cache_dir, camber_bin, full_registry, long_csv};
use serde_json::{json, Value};

fn camber(s3: &S3Server) -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    c.envs(s3.env());
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

fn ingest(s3: &S3Server, store: &str, csv: &Path, extra: &[&str]) -> (i32, String, String) {
    run(camber(s3)
        .arg("ingest")
        .arg(csv)
        .args(["--store", store, "--facility", "site", "--timezone", "America/Chicago", "--quiet"])
        .args(extra))
}

/// A bucket store opened in this process, listed now.
fn open(s3: &S3Server, bucket: &str, prefix: &str) -> (Arc<Bucket>, Arc<StoreDir>) {
    let b = s3.bucket(bucket, prefix);
    (b.clone(), StoreDir::over_bucket(b))
}

fn ctx(store: &Arc<StoreDir>, url: &str, allowed: &[&str]) -> CallContext {
    let mut c = CallContext::with_store(Some(store.clone()), Path::new(url), allowed.iter().map(|s| s.to_string()));
    c.limits.max_seconds = 10.0;
    c
}

fn call(c: &CallContext, name: &str, args: Value) -> Result<camber_common::CapabilityResult, camber_common::CapError> {
    full_registry().call(name, &args, c)
}

/// Every object under the prefix with its bytes, but the lease and the head (for "nothing
/// changed").
fn objects(b: &Bucket) -> Vec<(String, Bytes)> {
    let snap = b.refresh().unwrap();
    snap.objects
        .iter()
        .filter(|(k, _)| k.as_str() != "_lock")
        .map(|(k, e)| (k.clone(), b.read_all(None, k, e).unwrap()))
        .collect()
}

/// A store's registry without the times it was written at.
fn timeless(s: &StoreDir) -> Value {
    fn strip(v: &mut Value) {
        if let Value::Object(m) = v {
            m.retain(|k, _| !k.ends_with("_at") && k != "at");
            m.values_mut().for_each(strip);
        }
    }
    let mut v = serde_json::to_value(&s.registry().entries).unwrap();
    strip(&mut v);
    v
}

#[test]
fn ingest_replace_and_append_on_a_bucket_read_back_as_on_disk() {
    let s3 = S3Server::start(&["camber-w"]);
    let url = "s3://camber-w/store";
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("store");
    let disk_s = disk.to_string_lossy().into_owned();
    let a = long_csv(dir.path(), "a.csv", 48, 10.0);
    let later = dir.path().join("later.csv");
    std::fs::write(
        &later,
        "ts,equip,equip_class,role,value\n2024-02-01 23:00,AHU-1,AHU,oat,-1\n2024-03-05 00:00,AHU-1,AHU,oat,-2\n",
    )
    .unwrap();
    let disk_store = || StoreDir::open(&disk).unwrap();
    let series = |s: &StoreDir| s.read_series("site", "AHU-1", "oat", None, None).unwrap();
    // each step on disk and in the bucket: the same words and the same series back
    let steps: [(&Path, &[&str]); 3] = [(&a, &["--name", "Site"]), (&later, &["--append"]), (&later, &["--replace"])];
    let mut ids = Vec::new();
    for (csv, extra) in steps {
        let (code, on_disk, err) = ingest(&s3, &disk_s, csv, extra);
        assert_eq!(code, 0, "{err}");
        let (code, in_bucket, err) = ingest(&s3, url, csv, extra);
        assert_eq!(code, 0, "{extra:?}: {err}");
        assert_eq!(in_bucket, on_disk, "{extra:?}");
        // a file:// URL is the disk store by another name
        let (code, by_url, err) = ingest(&s3, &format!("file://{}", dir.path().join("by-url").display()), csv, extra);
        assert_eq!((code, by_url), (0, on_disk.clone()), "{extra:?}: {err}");
        let by_url = StoreDir::open(&dir.path().join("by-url")).unwrap();
        assert_eq!(series(&by_url), series(&disk_store()), "{extra:?}");
        let (b, remote) = open(&s3, "camber-w", "store");
        assert_eq!(series(&remote), series(&disk_store()), "{extra:?}");
        assert_eq!(timeless(&remote), timeless(&disk_store()), "{extra:?}");
        let c = ctx(&remote, url, &["site"]);
        let p = call(&c, "points", json!({"facility_id": "site"})).unwrap();
        let d = call(&ctx(&disk_store(), &disk_s, &["site"]), "points", json!({"facility_id": "site"})).unwrap();
        assert_eq!(p.data, d.data, "{extra:?}");
        ids.push(p.facts[0]["id"].clone());
        let months: Vec<String> =
            b.snapshot_now().objects.keys().filter(|k| k.ends_with(".parquet")).cloned().collect();
        match extra.first() {
            Some(&"--name") => assert!(months.iter().all(|k| k.contains("month=1/") || k.contains("month=2/"))),
            Some(&"--append") => {
                let (ts, v) = series(&remote);
                assert_eq!((ts.len(), v[46], v[47], v[48]), (49, 56.0, -1.0, -2.0));
                assert!(months.iter().any(|k| k.contains("month=3/")), "{months:?}");
            }
            _ => {
                // a replace leaves only the new rows and none of the old generation's parts
                assert_eq!(series(&remote).0.len(), 2);
                assert!(!months.iter().any(|k| k.contains("month=1/")), "{months:?}");
            }
        }
    }
    // every rewrite changes the facts' ids
    assert!(ids[0] != ids[1] && ids[1] != ids[2], "{ids:?}");
}

#[test]
fn a_refused_ingest_leaves_the_bucket_as_it_was() {
    let s3 = S3Server::start(&["camber-r"]);
    let url = "s3://camber-r/store";
    let dir = tempfile::tempdir().unwrap();
    let good = long_csv(dir.path(), "a.csv", 24, 10.0);
    assert_eq!(ingest(&s3, url, &good, &[]).0, 0);
    let b = s3.bucket("camber-r", "store");
    let before = objects(&b);
    assert!(before.iter().any(|(k, _)| k == "_camber_head.json"), "the writer announced its change");
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "ts,equip,equip_class,role,value\n2024-01-31 00:00,AHU-1,AHU,oat,1\n2024-01-31 00:00,AHU\u{202E}-9,AHU,oat,1\n",
    )
    .unwrap();
    for extra in [vec!["--replace"], vec!["--append"]] {
        let (code, _, err) = ingest(&s3, url, &bad, &extra);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains("line 3: equipment id"), "{err}");
    }
    // an existing facility without --replace or --append
    let (code, _, err) = ingest(&s3, url, &good, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("already has data; pass --replace"), "{err}");
    assert_eq!(objects(&b), before, "no object changed, the head included");
    // a fresh prefix stays empty
    assert_eq!(ingest(&s3, "s3://camber-r/fresh", &bad, &[]).0, 2);
    assert!(s3.keys("camber-r", "fresh").is_empty(), "{:?}", s3.keys("camber-r", "fresh"));
    // a prefix that holds something else is not a store
    let other = s3.bucket("camber-r", "other");
    assert!(other.put("notes.txt", Bytes::from("mine"), Expect::Any).is_ok());
    let (code, _, err) = ingest(&s3, "s3://camber-r/other", &good, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("holds no camber store"), "{err}");
    assert!(!err.contains("camber-r") && !err.contains("127.0.0.1"), "{err}");
    assert_eq!(s3.keys("camber-r", "other"), vec!["notes.txt".to_string()]);
}

/// A writer killed at any moment of a replace (its parts half put, its pointer swapped or not,
/// its old generation half deleted): a reader sees the old data or the new, or is told to retry,
/// and once the killed writer's lease lapses the next writer leaves one whole generation.
#[test]
fn a_writer_killed_at_any_moment_on_a_bucket_loses_nothing() {
    let s3 = S3Server::start(&["camber-k"]);
    let url = "s3://camber-k/store";
    let dir = tempfile::tempdir().unwrap();
    let small = long_csv(dir.path(), "small.csv", 24, 10.0);
    let big = long_csv(dir.path(), "big.csv", 8_000, 500.0); // 24,000 rows over 11 months
    assert_eq!(ingest(&s3, url, &small, &[]).0, 0);
    let replace = || {
        let mut c = camber(&s3);
        c.arg("ingest").arg(&big).args(["--store", url, "--facility", "site", "--timezone", "UTC", "--quiet"]);
        c.args(["--replace"]).env("CAMBER_LEASE_SECONDS", "1").stdout(Stdio::null()).stderr(Stdio::null());
        c
    };
    // how long a whole replace takes here, to kill writers through all of it
    let t0 = Instant::now();
    assert!(replace().status().unwrap().success());
    let whole = t0.elapsed();
    assert_eq!(ingest(&s3, url, &small, &["--replace"]).0, 0);
    let (b, remote) = open(&s3, "camber-k", "store");
    let c = ctx(&remote, url, &["site"]);
    let old = call(&c, "points", json!({"facility_id": "site"})).unwrap().data;
    let rounds = 10u32;
    let mut outcomes = (0, 0);
    for i in 0..rounds {
        let mut child = replace().spawn().unwrap();
        std::thread::sleep(whole.mul_f64(0.1 + 0.9 * f64::from(i) / f64::from(rounds)));
        let _ = child.kill();
        let _ = child.wait();
        b.refresh().unwrap();
        match call(&c, "points", json!({"facility_id": "site"})) {
            Ok(r) => assert_eq!(r.data["count"], old["count"], "round {i}"),
            Err(e) => {
                assert!(e.code == ErrorCode::Unavailable && e.data.as_ref().unwrap()["retryable"] == true, "{e}")
            }
        }
        // the next writer waits out the lease and repairs
        drop(BucketWriter::open(b.clone(), Duration::from_secs(20)).unwrap_or_else(|e| panic!("round {i}: {e}")));
        b.refresh().unwrap();
        let (ts, v) = remote.read_series("site", "AHU-2", "oat", None, None).unwrap();
        match ts.len() {
            24 => {
                assert_eq!(v[0], 10.0);
                outcomes.0 += 1;
            }
            8_000 => {
                assert_eq!(v[0], 500.0);
                outcomes.1 += 1;
            }
            n => panic!("round {i}: a killed writer left {n} rows"),
        }
        // no part is left that the facility's pointer does not name
        let pointer: Value = serde_json::from_slice(
            &b.read_all(
                None,
                "facility_id=site/_camber_current.json",
                &b.snapshot_now().objects["facility_id=site/_camber_current.json"],
            )
            .unwrap(),
        )
        .unwrap();
        let named: Vec<String> = pointer["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("facility_id=site/{}", p.as_str().unwrap()))
            .collect();
        let stored: Vec<String> = b
            .snapshot_now()
            .objects
            .keys()
            .filter(|k| k.starts_with("facility_id=site/") && k.ends_with(".parquet"))
            .cloned()
            .collect();
        assert_eq!(stored, named, "round {i}: parts the pointer does not name are deleted");
        assert!(call(&c, "points", json!({"facility_id": "site"})).is_ok(), "round {i}");
        assert_eq!(ingest(&s3, url, &small, &["--replace"]).0, 0);
        b.refresh().unwrap();
    }
    eprintln!(
        "a replace took {whole:?}; killed writers left the old data {} times and the new {} times",
        outcomes.0, outcomes.1
    );
    assert_eq!(outcomes.0 + outcomes.1, rounds);
}

// ---- damage ------------------------------------------------------------------------------

/// The calls a damaged facility is tried with: those that read its data.
fn data_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("points", json!({"facility_id": "hq"})),
        ("coverage", json!({"facility_id": "hq"})),
        ("rule_run", json!({"facility_id": "hq"})),
        ("sensor_trust", json!({"facility_id": "hq"})),
        ("finding_detail", json!({"facility_id": "hq", "finding_id": "x@AHU-1"})),
    ]
}

/// The demo store (facilities `hq` and `annex`) copied into the bucket under `prefix`.
fn demo_in(s3: &S3Server, bucket: &str, prefix: &str) -> (Arc<Bucket>, Arc<StoreDir>, CallContext) {
    let demo = camber_tests::demo_store();
    s3.upload_dir(demo.path(), bucket, prefix);
    let (b, store) = open(s3, bucket, prefix);
    let c = ctx(&store, &format!("s3://{bucket}/{prefix}"), &["hq", "annex"]);
    (b, store, c)
}

/// The keys of `hq`'s parts, sorted.
fn hq_parts(b: &Bucket) -> Vec<String> {
    b.snapshot_now()
        .objects
        .keys()
        .filter(|k| k.starts_with("facility_id=hq/") && k.ends_with(".parquet"))
        .cloned()
        .collect()
}

/// `hq`'s data calls are `unavailable`, not retryable, naming it and no URL; `annex` is served;
/// the listing lists both, `hq` flagged.
fn assert_damaged(c: &CallContext, what: &str, calls: &[(&str, Value)]) {
    for (name, args) in calls {
        let e = match call(c, name, args.clone()) {
            Ok(r) => panic!("{what}: {name} answered as if nothing were wrong: {}", r.text),
            Err(e) => e,
        };
        camber_tests::assert_damage_refusal(&e, "hq", &format!("{what}: {name}"));
        assert!(!e.message.contains("s3://") && !e.message.contains("127.0.0.1"), "{what}: {name}: {e}");
    }
    let r = call(c, "points", json!({"facility_id": "annex"})).unwrap_or_else(|e| panic!("{what}: annex: {e}"));
    assert_eq!(r.data["count"], 3, "{what}");
    call(c, "rule_run", json!({"facility_id": "annex"})).unwrap_or_else(|e| panic!("{what}: annex rule_run: {e}"));
    let list = call(c, "facilities", json!({})).unwrap_or_else(|e| panic!("{what}: the listing failed: {e}"));
    let rows = list.data["facilities"].as_array().unwrap();
    let hq = rows.iter().find(|f| f["facility_id"] == "hq").unwrap_or_else(|| panic!("{what}: hq is not listed"));
    assert_eq!(hq["unavailable"], json!({"retryable": false}), "{what}: {hq}");
    assert_eq!(hq["start"], Value::Null, "{what}");
}

/// A Parquet part's bytes, written by the store's own part writer.
fn part_bytes(points: &[(i64, &str, &str, &str, f64)]) -> Bytes {
    let mut long = LongRows::default();
    for &(t, e, c, r, v) in points {
        let p = long.intern(&PointKey { equip: e.into(), equip_class: c.into(), role: r.into() });
        long.push(t, p, v);
    }
    long.finish();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("part.parquet");
    write_part(&path, &long, 0..long.len()).unwrap();
    Bytes::from(std::fs::read(path).unwrap())
}

#[test]
fn damaged_objects_in_a_bucket_are_unavailable_and_never_read_as_no_data() {
    let s3 = S3Server::start(&["camber-d"]);
    type Damage = fn(&Bucket) -> Bytes;
    let cases: &[(&str, Damage)] = &[
        ("a part with a time at i64::MIN", |_| {
            part_bytes(&[
                (i64::MIN, "AHU-1", "AHU", "oat", 1.0),
                (1_709_510_400_000_000_000, "AHU-1", "AHU", "oat", 2.0),
            ])
        }),
        ("a part with a time in 2250", |_| {
            let t = camber_common::time::ns_from_iso("2250-01-01").unwrap();
            part_bytes(&[(t, "AHU-1", "AHU", "oat", 1.0), (1_709_510_400_000_000_000, "AHU-1", "AHU", "oat", 2.0)])
        }),
        ("a part with the right names and the wrong types", |_| Bytes::from(camber_tests::wrong_types_part())),
        ("a part of garbage the same size", |b| {
            let size = b.snapshot_now().objects[&hq_parts(b)[0]].size;
            Bytes::from((0..size).map(|i| (i * 7 + 3) as u8).collect::<Vec<u8>>())
        }),
        ("a part cut short", |b| {
            let key = &hq_parts(b)[0];
            let whole = b.read_all(None, key, &b.snapshot_now().objects[key]).unwrap();
            whole.slice(..whole.len() / 2)
        }),
        ("an empty part", |_| Bytes::new()),
    ];
    for (i, (what, damage)) in cases.iter().enumerate() {
        let (b, _, c) = demo_in(&s3, "camber-d", &format!("case{i}"));
        // every call answered first, so the damage must be seen past what was kept
        for (name, args) in data_calls() {
            let _ = call(&c, name, args);
        }
        let part = hq_parts(&b)[0].clone();
        let bytes = damage(&b);
        assert!(b.put(&part, bytes, Expect::Any).is_ok(), "{what}");
        b.refresh().unwrap();
        // points may come from the catalog (its names are right); what reads times must refuse
        let calls = data_calls();
        let calls = if what.contains("time") { &calls[1..] } else { &calls[..] };
        assert_damaged(&c, what, calls);
    }
}

#[test]
fn forged_or_unreadable_index_objects_are_checked_against_the_parts() {
    let s3 = S3Server::start(&["camber-f"]);
    type Forge = fn(&mut Value);
    let forgeries: [(&str, Forge); 4] = [
        ("runs past what nanoseconds hold", |p| {
            p["runs"] = json!([[i64::MAX - 10, 3_600_000_000_000i64, 4_000_000_000u64]])
        }),
        ("four billion samples from 1970", |p| p["runs"] = json!([[0i64, 1i64, 4_000_000_000u64]])),
        ("the right count a year early", |p| {
            for r in p["runs"].as_array_mut().unwrap() {
                r[0] = json!(r[0].as_i64().unwrap() - 365 * 86_400_000_000_000i64);
            }
        }),
        ("one sample fewer", |p| {
            let r = &mut p["runs"].as_array_mut().unwrap()[0];
            r[2] = json!(r[2].as_u64().unwrap() - 1);
        }),
    ];
    // the truth from the demo store on disk
    let demo = camber_tests::demo_store();
    let disk = StoreDir::open(demo.path()).unwrap();
    let truth =
        call(&ctx(&disk, &demo.path().to_string_lossy(), &["hq"]), "coverage", json!({"facility_id": "hq"})).unwrap();
    let index = "facility_id=hq/_camber_times.json";
    for (i, (what, forge)) in forgeries.iter().enumerate() {
        let (b, _, c) = demo_in(&s3, "camber-f", &format!("forged{i}"));
        let mut doc: Value =
            serde_json::from_slice(&b.read_all(None, index, &b.snapshot_now().objects[index]).unwrap())
                .unwrap_or_else(|e| panic!("{what}: the copied index: {e}"));
        for p in doc["points"].as_array_mut().unwrap() {
            forge(p);
        }
        assert!(b.put(index, Bytes::from(doc.to_string()), Expect::Any).is_ok());
        b.refresh().unwrap();
        let r = call(&c, "coverage", json!({"facility_id": "hq"})).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(r.data["window"], truth.data["window"], "{what}");
        assert_eq!(r.data["points"], truth.data["points"], "{what}");
    }
    // an index that is not JSON is only an index: the parts are read
    let (b, _, c) = demo_in(&s3, "camber-f", "garbled");
    assert!(b.put(index, Bytes::from_static(b"{not json"), Expect::Any).is_ok());
    b.refresh().unwrap();
    let r = call(&c, "coverage", json!({"facility_id": "hq"})).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.data["window"], truth.data["window"]);
    // a registry that is not JSON cannot vouch for a licence: refused, promptly; the listing
    // still answers
    let (b, _, c) = demo_in(&s3, "camber-f", "registry");
    assert!(b.put("_facilities.json", Bytes::from_static(b"\x00\x01 not json"), Expect::Any).is_ok());
    b.refresh().unwrap();
    for (name, args) in data_calls() {
        let e = call(&c, name, args).map(|r| r.text).unwrap_err();
        assert!(matches!(e.code, ErrorCode::RefusedLicence | ErrorCode::Unavailable), "{name}: {e}");
    }
    call(&c, "facilities", json!({})).unwrap();
}

/// What object storage holds that a directory cannot: a "folder" marker object (a key ending
/// in `/`, as consoles and some tools make), an object named as a partition, keys nested deeper
/// than the layout. None of them is data, none of them is damage: the facility is served as it
/// was.
#[test]
fn objects_outside_the_layout_are_neither_data_nor_damage() {
    let s3 = S3Server::start(&["camber-o"]);
    let (b, _, c) = demo_in(&s3, "camber-o", "store");
    let before: Vec<Value> = data_calls()
        .into_iter()
        .map(|(n, a)| call(&c, n, a).map(|r| (*r.data).clone()).unwrap_or(Value::Null))
        .collect();
    let first = hq_parts(&b)[0].clone();
    let month = first.rsplit_once('/').unwrap().0.to_string();
    let part = b.read_all(None, &first, &b.snapshot_now().objects[&first]).unwrap();
    for (key, bytes) in [
        (format!("{month}/"), Bytes::new()),
        ("facility_id=hq/".to_string(), Bytes::new()),
        (month.clone(), Bytes::from_static(b"an object named as the partition")),
        (format!("{month}/extra/{}", first.rsplit('/').next().unwrap()), part.clone()),
        (format!("{month}/_scratch.parquet"), part),
    ] {
        assert!(b.put(&key, bytes, Expect::Any).is_ok(), "{key}");
    }
    b.refresh().unwrap();
    let after: Vec<Value> = data_calls()
        .into_iter()
        .map(|(n, a)| call(&c, n, a).map(|r| (*r.data).clone()).unwrap_or(Value::Null))
        .collect();
    assert_eq!(after, before);
    assert!(after[0]["count"].as_u64().unwrap() > 0);
}

/// A part that the facility's generation pointer names, deleted by hand: damage (a writer puts
/// every part before its pointer, so no write in progress looks like this), until a replace
/// writes the facility anew.
#[test]
fn a_named_part_that_is_gone_is_damage_until_a_replace() {
    let s3 = S3Server::start(&["camber-g"]);
    let url = "s3://camber-g/store";
    let dir = tempfile::tempdir().unwrap();
    let csv = long_csv(dir.path(), "a.csv", 48, 10.0);
    assert_eq!(ingest(&s3, url, &csv, &[]).0, 0);
    let (b, store) = open(&s3, "camber-g", "store");
    let c = ctx(&store, url, &["site"]);
    let part = b.snapshot_now().objects.keys().find(|k| k.ends_with(".parquet")).cloned().expect("a part");
    b.delete(&[part]).unwrap();
    b.refresh().unwrap();
    for name in ["coverage", "rule_run", "sensor_trust"] {
        let e = call(&c, name, json!({"facility_id": "site"})).expect_err(name);
        assert_eq!(e.code, ErrorCode::Unavailable, "{name}: {e}");
        assert_eq!(e.data.as_ref().unwrap()["retryable"], false, "{name}: {e}");
        assert!(e.message.contains("missing"), "{name}: {e}");
    }
    // an append cannot add to what is not whole; a replace mends it
    let (code, _, err) = ingest(&s3, url, &csv, &["--append"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let (code, _, err) = ingest(&s3, url, &csv, &["--replace"]);
    assert_eq!(code, 0, "{err}");
    b.refresh().unwrap();
    let r = call(&c, "coverage", json!({"facility_id": "site"})).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.data["window"]["start"], "2024-01-31T00:00:00", "{}", r.data);
}
