//! `camber-bench objects`: the store on object storage against the disk store, through a local
//! S3 API server (moto, as in the tests): `points` warm, and `rule_run` on a facility-year at 1
//! minute, first call (nothing of the facility fetched yet) and warm; the snapshot's background
//! look at a store of many objects, listed and through its head object.

use std::time::{Duration, Instant};

use camber_registry::{CallContext, Registry};
use camber_store::bucket::{Bytes, Expect};
use camber_store::StoreDir;
use camber_tests::s3::S3Server;
use serde_json::{json, Value};

use super::{ms, stats, us};

fn timed(reg: &Registry, name: &str, args: &Value, ctx: &CallContext) -> Duration {
    let t = Instant::now();
    if let Err(e) = reg.call(name, args, ctx) {
        panic!("{name}: {}", e.message);
    }
    t.elapsed()
}

pub fn run(reg: &Registry) {
    let s3 = S3Server::start(&["camber-bench"]);
    // the demo store for points; one AHU-year at 1 minute for rule_run
    let demo = camber_tests::demo_store();
    s3.upload_dir(demo.path(), "camber-bench", "demo");
    let year = tempfile::tempdir().unwrap();
    camber_store::fixture::write_facility(
        year.path(),
        "year",
        &super::ahu_year_rows(&super::ahu_year_frame()),
        json!({"state": "active"}),
    )
    .unwrap();
    s3.upload_dir(year.path(), "camber-bench", "year");
    let cfg_dir = tempfile::tempdir().unwrap();
    let configs = super::year_configs(cfg_dir.path());

    let on_disk = |root: &std::path::Path, fid: &str| CallContext::new(root, [fid.to_string()]);
    let on_bucket = |prefix: &str, fid: &str| {
        let store = StoreDir::over_bucket(s3.bucket("camber-bench", prefix));
        CallContext::with_store(Some(store), std::path::Path::new("s3://camber-bench"), [fid.to_string()])
    };

    let n = std::env::var("CAMBER_BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    let points = json!({"facility_id": "hq"});
    let mut line = Vec::new();
    for (what, ctx) in [("disk", on_disk(demo.path(), "hq")), ("S3 (moto)", on_bucket("demo", "hq"))] {
        for _ in 0..50 {
            timed(reg, "points", &points, &ctx);
        }
        let (med, p90, p99) = stats((0..n).map(|_| timed(reg, "points", &points, &ctx)).collect());
        line.push(format!("{what} median {} p90 {} p99 {}", us(med), us(p90), us(p99)));
    }
    println!("points warm ({n} calls): {}", line.join("; "));

    // the background look at a store of many objects: a listing, against one HEAD of the
    // store's head object when no writer has announced a change
    let objects: usize = std::env::var("CAMBER_BENCH_OBJECTS").ok().and_then(|v| v.parse().ok()).unwrap_or(5000);
    let many = s3.bucket("camber-bench", "many");
    for i in 0..objects {
        let rel = format!("facility_id=f{}/year=2024/month={}/part-0-0.parquet", i / 60, i % 60 + 1);
        many.put(&rel, Bytes::from_static(b"x"), Expect::Any).expect("put");
    }
    many.publish().expect("the head");
    let look = |f: &dyn Fn() -> usize| {
        let t = Instant::now();
        assert!(f() >= objects, "every object is in the snapshot");
        t.elapsed()
    };
    let listing = stats((0..10).map(|_| look(&|| many.refresh().expect("list").objects.len())).collect());
    let relist = Duration::from_secs(3600);
    let head =
        stats((0..200).map(|_| look(&|| many.refresh_if_changed(relist).expect("look").objects.len())).collect());
    println!(
        "snapshot look at a store of {objects} objects: a listing median {} (p90 {}); the head unchanged median {} (p90 {})",
        ms(listing.0),
        ms(listing.1),
        us(head.0),
        us(head.1)
    );

    let run = json!({"facility_id": "year"});
    let with_cfg = |mut ctx: CallContext| {
        ctx.config_digest = configs.digest.clone();
        ctx.run_configs = configs.clone();
        ctx
    };
    let mut line = Vec::new();
    for what in ["disk", "S3 (moto)"] {
        let fresh = || with_cfg(if what == "disk" { on_disk(year.path(), "year") } else { on_bucket("year", "year") });
        let cold: Vec<Duration> = (0..3).map(|_| timed(reg, "rule_run", &run, &fresh())).collect();
        let ctx = fresh();
        timed(reg, "rule_run", &run, &ctx);
        let warm: Vec<Duration> = (0..5).map(|_| timed(reg, "rule_run", &run, &ctx)).collect();
        line.push(format!(
            "{what} first call median of 3 {}, warm median of 5 {}",
            ms(stats(cold).0),
            ms(stats(warm).0)
        ));
    }
    println!("rule_run on one AHU-year at 1 minute (every rule): {}", line.join("; "));
}

/// A portfolio run of 200 synthetic facilities (50 seeds of four datasets): one shard on one
/// core, then two shards at once (one per core of this machine).
pub fn portfolio() {
    use camber_store::writer::{Mode, StoreWriter, Writer};
    let store = tempfile::tempdir().unwrap();
    let t = Instant::now();
    {
        let mut w = Writer::open(store.path(), Duration::from_secs(5)).unwrap();
        for id in ["synthetic-ahu-economizer", "synthetic-chw-plant", "synthetic-g36-vav", "synthetic-hw-plant"] {
            for k in 0..50u64 {
                let (rows, entry) = camber_store::synthetic::synthesize(id, Some(1000 + k)).unwrap();
                let fid = format!("{}-{k}", id.trim_start_matches("synthetic-"));
                w.write_facility(&fid, &rows, Mode::Create, entry).unwrap();
            }
        }
    }
    println!("portfolio: 200 synthetic facilities written in {:.1} s", t.elapsed().as_secs_f64());
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let start = |shard: &str, run: &str| {
        std::process::Command::new(camber_tests::camber_bin())
            .args(["portfolio", "run", "--shard", shard, "--run", run, "--out"])
            .arg(out.path())
            .arg("--store")
            .arg(store.path())
            .env("CAMBER_CACHE_DIR", cache.path())
            .env_remove("CAMBER_CAPABILITIES")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let line =
        |c: std::process::Child| String::from_utf8_lossy(&c.wait_with_output().unwrap().stdout).trim().to_string();
    // the first run also compiles the components into the cache
    line(start("0/1", "warmup"));
    let t = Instant::now();
    println!("{}", line(start("0/1", "one")));
    let one = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (a, b) = (start("0/2", "two"), start("1/2", "two"));
    let (la, lb) = (line(a), line(b));
    let two = t.elapsed().as_secs_f64();
    println!("{la}\n{lb}");
    println!(
        "portfolio: 200 facilities, one shard {one:.1} s wall ({:.0} a minute); two shards at once {two:.1} s wall ({:.0} a minute)",
        200.0 / one * 60.0,
        200.0 / two * 60.0
    );
}
