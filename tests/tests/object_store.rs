//! The store on object storage, against a real S3 API (moto's server): a store ingested into a
//! bucket and one copied there answer every call as the same store on disk does; an object
//! replaced by garbage is `unavailable` and not retryable, naming the facility and no URL; a
//! second writer waits for the first one's lease.

use std::path::Path;
use std::process::{Command, Output};

use camber_store::bucket::Expect;
use camber_tests::s3::S3Server;
use camber_tests::{cache_dir, camber_bin};
use serde_json::Value;

fn camber(s3: &S3Server) -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    c.envs(s3.env());
    c
}

fn ok(out: Output, what: &str) -> Output {
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn ingest(s3: &S3Server, store: &str, datasets: &[&str]) {
    let out = camber(s3).args(["datasets", "ingest"]).args(datasets).args(["--store", store]).output().unwrap();
    ok(out, &format!("ingest into {store}"));
}

/// A call's output with its call tokens (`@<name>-<hex>`) taken out: they digest the store's
/// generation, which is made of file times on disk and ETags in a bucket.
fn call(s3: &S3Server, store: &str, name: &str, args: &str, fid: &str) -> (Option<i32>, String) {
    let out = camber(s3).args(["call", name, args, "--store", store, "--allow", fid]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut clean = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find('@') {
        clean.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let word = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len());
        let token = &rest[..word];
        match token.rsplit_once('-') {
            Some((name, hex)) if hex.len() >= 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
                clean.push_str(name);
                clean.push_str("-TOKEN");
            }
            _ => clean.push_str(token),
        }
        rest = &rest[word..];
    }
    clean.push_str(rest);
    (out.status.code(), clean)
}

const CALLS: &[(&str, &str)] =
    &[("points", "{}"), ("coverage", "{}"), ("sensor_trust", "{}"), ("rule_run", "{}"), ("rcx_report", "{}")];

fn with_facility(args: &str, fid: &str) -> String {
    let mut v: Value = serde_json::from_str(args).unwrap();
    v["facility_id"] = Value::from(fid);
    v.to_string()
}

fn assert_same_answers(s3: &S3Server, disk: &Path, url: &str, fids: &[&str]) {
    let disk = disk.to_string_lossy();
    for fid in fids {
        for (name, args) in CALLS {
            let args = with_facility(args, fid);
            let (a, from_disk) = call(s3, &disk, name, &args, fid);
            let (b, from_bucket) = call(s3, url, name, &args, fid);
            assert_eq!(a, Some(0), "{fid} {name} on disk: {from_disk}");
            assert_eq!((a, from_disk), (b, from_bucket), "{fid} {name}: the bucket answers as the disk does");
        }
    }
    let (_, listing) = call(s3, url, "facilities", "{}", fids[0]);
    assert!(listing.contains(fids[0]), "{listing}");
}

#[test]
fn a_store_ingested_into_a_bucket_or_copied_there_answers_as_on_disk() {
    let s3 = S3Server::start(&["camber-it"]);
    let datasets = ["synthetic-ahu-economizer", "synthetic-chw-plant"];
    let fids = ["ds-synthetic-ahu-economizer", "ds-synthetic-chw-plant"];
    let disk = tempfile::tempdir().unwrap();
    let disk_store = disk.path().join("store");
    ingest(&s3, &disk_store.to_string_lossy(), &datasets);
    ingest(&s3, "s3://camber-it/ingested", &datasets);
    assert_same_answers(&s3, &disk_store, "s3://camber-it/ingested", &fids);
    // what camber wrote is the Hive layout, each facility with its pointer and one generation
    let keys = s3.keys("camber-it", "ingested");
    for fid in fids {
        let parts: Vec<&String> = keys
            .iter()
            .filter(|k| k.starts_with(&format!("facility_id={fid}/year=")) && k.ends_with(".parquet"))
            .collect();
        assert!(!parts.is_empty(), "{fid}: {keys:?}");
        assert!(keys.contains(&format!("facility_id={fid}/_camber_current.json")), "{keys:?}");
    }
    // a replace leaves only the new generation
    let out = camber(&s3)
        .args(["datasets", "ingest", datasets[1], "--replace", "--store", "s3://camber-it/ingested"])
        .output()
        .unwrap();
    ok(out, "replace");
    let after = s3.keys("camber-it", "ingested");
    let count = |ks: &[String]| ks.iter().filter(|k| k.contains(fids[1]) && k.ends_with(".parquet")).count();
    assert_eq!(count(&after), count(&keys), "the old generation's parts are gone");
    assert_ne!(after, keys, "the parts are under new keys");

    // a disk store copied as it is (no pointers): served the same
    s3.upload_dir(&disk_store, "camber-it", "copied");
    assert_same_answers(&s3, &disk_store, "s3://camber-it/copied", &fids);
}

#[test]
fn a_damaged_object_is_unavailable_and_names_no_url() {
    let s3 = S3Server::start(&["camber-dmg"]);
    let url = "s3://camber-dmg/store";
    ingest(&s3, url, &["synthetic-chw-plant"]);
    let fid = "ds-synthetic-chw-plant";
    let b = s3.bucket("camber-dmg", "store");
    let part = b.snapshot_now().objects.keys().find(|k| k.ends_with(".parquet")).cloned().expect("a part");
    assert!(b.put(&part, bytes::Bytes::from(vec![0u8; 4096]), Expect::Any).is_ok());
    let (code, out) = call(&s3, url, "coverage", &with_facility("{}", fid), fid);
    assert_eq!(code, Some(1), "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["code"], "unavailable", "{v}");
    assert_eq!(v["error"]["data"]["retryable"], false, "{v}");
    assert_eq!(v["error"]["data"]["facility_id"], fid, "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(!msg.contains("camber-dmg") && !msg.contains("s3://") && !msg.contains("127.0.0.1"), "{msg}");
}

#[test]
fn a_second_writer_waits_for_the_lease_and_a_missing_bucket_is_one_line() {
    let s3 = S3Server::start(&["camber-lease"]);
    let url = "s3://camber-lease/store";
    ingest(&s3, url, &["synthetic-chw-plant"]);
    // a lease held by a live writer elsewhere (an hour from now)
    let far = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() + 3_600_000;
    let lease = format!(r#"{{"writer":"w","host":"elsewhere","pid":7,"since":"now","expires_ms":{far}}}"#);
    let b = s3.bucket("camber-lease", "store");
    assert!(b.put("_lock", bytes::Bytes::from(lease.clone()), Expect::Any).is_ok());
    let out = camber(&s3)
        .args(["datasets", "ingest", "synthetic-hw-plant", "--store", url, "--lock-timeout", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("locked by 7@elsewhere"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // the lapsed lease is taken over
    let lapsed = lease.replace(&far.to_string(), "1");
    assert!(b.put("_lock", bytes::Bytes::from(lapsed), Expect::Any).is_ok());
    ok(camber(&s3).args(["datasets", "ingest", "synthetic-hw-plant", "--store", url]).output().unwrap(), "takeover");

    let out = camber(&s3)
        .args(["call", "facilities", "{}", "--store", "s3://no-such-bucket/x", "--allow", "a"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--store"), "{err}");
}

#[test]
fn calls_while_a_writer_replaces_the_facility_are_answered_or_retryable() {
    let s3 = S3Server::start(&["camber-race"]);
    let url = "s3://camber-race/store";
    ingest(&s3, url, &["synthetic-chw-plant"]);
    // the writer announced its change on the store's head
    assert!(s3.keys("camber-race", "store").iter().any(|k| k == "_camber_head.json"));
    let fid = "ds-synthetic-chw-plant";
    let (_, first) = call(&s3, url, "coverage", &with_facility("{}", fid), fid);
    let first: Value = serde_json::from_str(&first).unwrap();
    // the server lists the store again only when the writer's head says it changed
    let mut server = camber(&s3)
        .args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--no-auth", "--store", url])
        .env("CAMBER_STORE_RELIST_MS", "600000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (addr, _log) = camber_tests::serving_addr(server.stderr.take().unwrap());
    // three replaces, each a new generation of the same points
    let writer = {
        let env = s3.env();
        std::thread::spawn(move || {
            for seed in 1..=3 {
                let out = Command::new(camber_bin())
                    .args(["datasets", "ingest", "synthetic-chw-plant", "--replace", "--seed", &seed.to_string()])
                    .args(["--store", "s3://camber-race/store"])
                    .env("CAMBER_CACHE_DIR", cache_dir())
                    .envs(env.clone())
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            }
        })
    };
    let meta = serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let (mut answered, mut retry, mut i) = (0, 0, 0);
    let (mut since_last_write, mut last_ok) = (0, None);
    while !writer.is_finished() || since_last_write < 20 {
        if writer.is_finished() {
            since_last_write += 1;
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        i += 1;
        let body = serde_json::json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "coverage", "arguments": {"facility_id": fid}, "_meta": meta}});
        let h = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "coverage"),
        ];
        let (st, _, out) = camber_tests::http(&addr, "POST", "/mcp", &h, body.to_string().as_bytes());
        let v: Value = serde_json::from_slice(&out).unwrap_or(Value::Null);
        assert_eq!(st, 200, "{v}");
        let r = &v["result"];
        last_ok = Some(r["isError"] == false);
        if r["isError"] == false {
            // every answer is one whole generation's: the same points, a full window
            assert_eq!(r["structuredContent"]["n_points"], first["data"]["n_points"], "call {i}");
            answered += 1;
        } else {
            let e = &r["_meta"]["camber/error"];
            assert_eq!(
                (e["code"].as_str(), e["data"]["retryable"].as_bool()),
                (Some("unavailable"), Some(true)),
                "{v}"
            );
            retry += 1;
        }
    }
    writer.join().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    println!("calls during three replaces: {answered} answered, {retry} unavailable and retryable");
    assert!(answered > 0, "{answered} answered, {retry} retryable");
    // the last of the 20 calls after the writes (4 s and more after them) reads the last
    // generation: the server followed the head, not a listing of its own
    assert_eq!(last_ok, Some(true), "{answered} answered, {retry} retryable");
}
