//! `camber portfolio run`: the same synthetic portfolio run as one shard and as four gives the
//! same rollup, read back with DuckDB from the Parquet files the shards wrote; every facility is
//! in exactly one shard's manifest; the scheduler's index picks the shard; a bucket takes the
//! output as a directory does.

use std::path::Path;
use std::process::Command;

use camber_tests::s3::S3Server;
use camber_tests::{cache_dir, camber_bin, python};
use serde_json::Value;

fn camber() -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    for k in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "SLURM_ARRAY_TASK_ID", "CAMBER_RUN_ID"] {
        c.env_remove(k);
    }
    c
}

/// A store of `copies` of each synthetic dataset, each copy its own facility and seed.
fn portfolio_store(dir: &Path, copies: u64) -> Vec<String> {
    use camber_store::writer::{Mode, StoreWriter, Writer};
    let mut fids = Vec::new();
    let mut w = Writer::open(dir, std::time::Duration::from_secs(5)).unwrap();
    for id in ["synthetic-ahu-economizer", "synthetic-chw-plant", "synthetic-g36-vav", "synthetic-hw-plant"] {
        for k in 0..copies {
            let (rows, entry) = camber_store::synthetic::synthesize(id, Some(100 + k)).unwrap();
            let fid = format!("{}-{k}", id.trim_start_matches("synthetic-"));
            w.write_facility(&fid, &rows, Mode::Create, entry).unwrap();
            fids.push(fid);
        }
    }
    fids
}

fn run(store: &Path, out: &str, shard: &str, run: &str) -> String {
    let o = camber()
        .args(["portfolio", "run", "--shard", shard, "--out", out, "--run", run, "--store"])
        .arg(store)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The rows of a DuckDB query, as JSON arrays.
fn duckdb(sql: &str) -> Value {
    let script = format!(
        "import duckdb, json\nrows = duckdb.sql({sql:?}).fetchall()\nprint(json.dumps([list(r) for r in rows]))"
    );
    let o = Command::new(python()).args(["-c", &script]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Per facility: issues and their cost, as DuckDB rolls them up from a run's files.
fn rollup(out: &Path, run: &str) -> Value {
    duckdb(&format!(
        "select facility_id, count(*) as issues, round(sum(coalesce(annual_cost_usd, 0)), 2) as cost, \
         string_agg(key, ',' order by rank) as keys \
         from read_parquet('{}/issues/*/*.parquet', hive_partitioning = true) where run = '{run}' \
         group by facility_id order by facility_id",
        out.display()
    ))
}

/// Per facility and source: the findings and their severities, as DuckDB reads them from a run's files.
fn findings(out: &Path, run: &str) -> Value {
    duckdb(&format!(
        "select facility_id, source, count(*) as n, string_agg(finding_id || '=' || severity, ',' order by finding_id) \
         from read_parquet('{}/findings/*/*.parquet', hive_partitioning = true) where run = '{run}' \
         group by facility_id, source order by facility_id, source",
        out.display()
    ))
}

#[test]
fn four_shards_roll_up_as_one_and_each_facility_runs_once() {
    let store = tempfile::tempdir().unwrap();
    // 200 facilities, as a portfolio's nightly run would have thousands
    let fids = portfolio_store(store.path(), 50);
    assert_eq!(fids.len(), 200);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_string_lossy().into_owned();
    let line = run(store.path(), &o, "0/1", "one");
    assert!(line.contains(&format!("{} facilities (0 refused)", fids.len())), "{line}");
    for i in 0..4 {
        run(store.path(), &o, &format!("{i}/4"), "four");
    }
    let (one, four) = (rollup(out.path(), "one"), rollup(out.path(), "four"));
    assert_eq!(one, four);
    // the findings too: every one of rule_run, none of drift (no run config has a drift section)
    let (found_one, found_four) = (findings(out.path(), "one"), findings(out.path(), "four"));
    assert_eq!(found_one, found_four);
    let found = found_one.as_array().unwrap();
    assert!(found.len() >= fids.len() / 2 && found.iter().all(|r| r[1] == "rule_run"), "{found_one}");
    assert!(found.iter().all(|r| !r[3].as_str().unwrap().contains("=ok") && !r[3].as_str().unwrap().contains("=info")));
    let rows = one.as_array().unwrap();
    assert_eq!(rows.len(), fids.len(), "every facility has issues: {one}");
    assert!(rows.iter().any(|r| r[2].as_f64().unwrap_or(0.0) > 0.0), "some issue is costed: {one}");
    // each facility is in exactly one shard's manifest, and every manifest says it is complete
    let mut seen: Vec<String> = Vec::new();
    for i in 0..4 {
        let m: Value = serde_json::from_slice(
            &std::fs::read(out.path().join(format!("manifests/four/shard-{i}-of-4.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(m["complete"], true);
        for f in m["facilities"].as_array().unwrap() {
            assert_eq!(f["status"], "ok", "{f}");
            assert_eq!(f["drift"], "not configured", "{f}");
            let n = found.iter().find(|r| r[0] == f["facility_id"]).map_or(0, |r| r[2].as_u64().unwrap());
            assert_eq!(f["findings"], n, "the manifest counts the file's rows: {f}");
            seen.push(f["facility_id"].as_str().unwrap().to_string());
        }
    }
    seen.sort();
    let mut all = fids.clone();
    all.sort();
    assert_eq!(seen, all);
}

#[test]
fn the_scheduler_index_picks_the_shard_and_a_bucket_takes_the_output() {
    let store = tempfile::tempdir().unwrap();
    portfolio_store(store.path(), 1);
    let s3 = S3Server::start(&["camber-runs"]);
    let o = camber()
        .args(["portfolio", "run", "--shards", "2", "--out", "s3://camber-runs/out", "--run", "r1", "--store"])
        .arg(store.path())
        .env("JOB_COMPLETION_INDEX", "1")
        .envs(s3.env())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("shard 1 of 2"));
    let keys = s3.keys("camber-runs", "out");
    assert!(keys.contains(&"manifests/r1/shard-1-of-2.json".to_string()), "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with("issues/facility_id=") && k.ends_with("/run-r1.parquet")), "{keys:?}");
    // no index and no --shard: a one-line refusal
    let o = camber()
        .args(["portfolio", "run", "--shards", "2", "--out", "x", "--run", "r", "--store"])
        .arg(store.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("JOB_COMPLETION_INDEX") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn a_facility_whose_run_config_has_a_drift_section_gets_its_drift_findings_too() {
    let store = tempfile::tempdir().unwrap();
    portfolio_store(store.path(), 1);
    // the hot-water plant judged against its healthy twin pump
    let config = store.path().join("hw-plant-0.json");
    let cfg = serde_json::json!({"source": {"facility_id": "hw-plant-0"}, "drift": {"current": ["2025-04-21", null],
        "families": [{"class": "HW_PLANT", "family": "hw_pump", "reference": {"equip": "PLANT__healthy"}}]}});
    std::fs::write(&config, cfg.to_string()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = camber()
        .args(["portfolio", "run", "--shard", "0/1", "--run", "d", "--out"])
        .arg(out.path())
        .arg("--store")
        .arg(store.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let found = findings(out.path(), "d");
    let drift: Vec<&Value> = found.as_array().unwrap().iter().filter(|r| r[1] == "drift").collect();
    assert_eq!(drift.len(), 1, "{found}");
    assert_eq!(drift[0][0], "hw-plant-0");
    assert!(drift[0][3].as_str().unwrap().contains("hw_pump:hw_loop_deltat_drift@PLANT__low_delta_t=fault"), "{found}");
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.path().join("manifests/d/shard-0-of-1.json")).unwrap()).unwrap();
    for f in m["facilities"].as_array().unwrap() {
        let want = if f["facility_id"] == "hw-plant-0" { "run" } else { "not configured" };
        assert_eq!(f["drift"], want, "{f}");
    }
}

/// `camber call portfolio` on a run's output, allowing `allow`: its JSON and whether it
/// succeeded.
fn call_portfolio(store: &Path, out: &Path, args: &str, allow: &[&str]) -> (bool, Value) {
    let mut c = camber();
    c.args(["call", "portfolio", args, "--store"]).arg(store).arg("--portfolio").arg(out);
    for a in allow {
        c.args(["--allow", a]);
    }
    let o = c.output().unwrap();
    let v = serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    (o.status.success(), v)
}

#[test]
fn the_portfolio_capability_ranks_the_callers_buildings_from_the_latest_complete_run() {
    let store = tempfile::tempdir().unwrap();
    let fids = portfolio_store(store.path(), 2);
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_string_lossy().into_owned();
    let mine = ["ahu-economizer-0", "g36-vav-1", "hw-plant-0"];
    assert!(mine.iter().all(|f| fids.contains(&f.to_string())));

    // no run yet: a one-line refusal that says what to do
    let (ok, v) = call_portfolio(store.path(), out.path(), "{}", &mine);
    assert!(!ok, "{v}");
    assert_eq!(v["error"]["code"], "not_found", "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("camber portfolio run"), "{v}");

    run(store.path(), &o, "0/1", "r1");
    // a later run with one of its two shards written is not complete: r1 is still the latest
    run(store.path(), &o, "0/2", "r2");
    let (ok, v) = call_portfolio(store.path(), out.path(), r#"{"top_issues": 2}"#, &mine);
    assert!(ok, "{v}");
    let data = &v["data"];
    assert_eq!(data["run"], "r1", "{data}");
    assert_eq!(data["count"], 3, "only the caller's facilities: {data}");
    let rows = data["facilities"].as_array().unwrap();
    let listed: Vec<&str> = rows.iter().map(|r| r["facility_id"].as_str().unwrap()).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, mine, "{data}");
    // the costs are the run's files' (DuckDB's rollup), the ranking by cost, highest first
    let rolled = rollup(out.path(), "r1");
    for r in rows {
        let fid = r["facility_id"].as_str().unwrap();
        let want = rolled.as_array().unwrap().iter().find(|x| x[0] == fid).unwrap();
        assert!((r["annual_cost_usd"].as_f64().unwrap() - want[2].as_f64().unwrap()).abs() < 0.01, "{r} {want}");
        assert_eq!(r["n_issues"], want[1], "{r}");
        assert!(r["top_issues"].as_array().unwrap().len() <= 2);
    }
    let costs: Vec<f64> = rows.iter().map(|r| r["annual_cost_usd"].as_f64().unwrap()).collect();
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
    let total: f64 = costs.iter().sum();
    assert!((data["annual_cost_usd"].as_f64().unwrap() - total).abs() < 0.01);
    // every facility named in the answer is cited
    let text = v["text"].as_str().unwrap();
    for f in &mine {
        assert!(text.contains(f), "{text}");
    }
    assert!(text.contains("[P1@portfolio") && text.contains("[P3@portfolio"), "{text}");

    // ranked by faults instead, a page of one
    let (ok, v) = call_portfolio(store.path(), out.path(), r#"{"order": "faults", "limit": 1}"#, &mine);
    assert!(ok, "{v}");
    let most = rows.iter().map(|r| r["n_faults"].as_u64().unwrap()).max().unwrap();
    assert_eq!(v["data"]["facilities"][0]["n_faults"], most, "{v}");
    assert_eq!(v["truncated"], true, "{v}");

    // the second shard of r2 completes it: the next answer is r2's
    run(store.path(), &o, "1/2", "r2");
    let (ok, v) = call_portfolio(store.path(), out.path(), "{}", &mine[..1]);
    assert!(ok, "{v}");
    assert_eq!((v["data"]["run"].as_str(), v["data"]["count"].as_u64()), (Some("r2"), Some(1)), "{v}");
}
