//! `camber-bench replicas`: the throughput of `camber serve` replicas behind haproxy, over one
//! store in moto's S3 server, as replicas are added. Each replica is held to a core of its own
//! (`taskset`), so one replica is one core's worth and N replicas are N cores'; the same 16
//! clients drive each setup with a data call that does its work every time (the memo off).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use camber_tests::lb::{haproxy, ingest, stateless_call, Replica};
use camber_tests::s3::S3Server;
use serde_json::{json, Value};

const DATASET: &str = "synthetic-chw-plant";
const FACILITY: &str = "ds-synthetic-chw-plant";
const CLIENTS: u64 = 16;

/// Calls answered per second through `addr` by `CLIENTS` clients over `for_how_long`, and how
/// many were answered with an error.
fn drive(addr: &str, call: &str, args: &Value, for_how_long: Duration) -> (f64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let clients: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (addr, stop, call, args) = (addr.to_string(), stop.clone(), call.to_string(), args.clone());
            std::thread::spawn(move || {
                let (mut ok, mut failed, mut i) = (0u64, 0u64, 0u64);
                while !stop.load(Ordering::SeqCst) {
                    i += 1;
                    let (st, v) = stateless_call(&addr, &call, args.clone(), c * 1_000_000 + i);
                    if st == 200 && v["result"]["isError"] == false {
                        ok += 1;
                    } else {
                        failed += 1;
                    }
                }
                (ok, failed)
            })
        })
        .collect();
    std::thread::sleep(for_how_long);
    stop.store(true, Ordering::SeqCst);
    let (mut ok, mut failed) = (0, 0);
    for c in clients {
        let (o, f) = c.join().expect("a client");
        ok += o;
        failed += f;
    }
    (ok as f64 / t0.elapsed().as_secs_f64(), failed)
}

pub fn replicas() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let seconds: u64 = std::env::var("CAMBER_BENCH_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let s3 = S3Server::start(&["camber-bench"]);
    let url = "s3://camber-bench/store";
    ingest(&s3, url, DATASET);
    let dir = tempfile::tempdir().expect("a scratch directory");
    let args = json!({"facility_id": FACILITY});
    let memo_off = [("CAMBER_MEMO_MB", "0")];
    println!(
        "camber-bench replicas: {CLIENTS} clients through haproxy, `rule_run` on {FACILITY} with the memo off, \
         {seconds} s per setup, {cores} cores"
    );
    let mut one = None;
    let setups: Vec<(String, Vec<Option<usize>>)> = std::iter::once(("1 replica, every core".to_string(), vec![None]))
        .chain((1..=cores).map(|n| (format!("{n} replica(s), one core each"), (0..n).map(Some).collect())))
        .collect();
    for (what, pins) in setups {
        let replicas: Vec<Replica> = pins.iter().map(|cpu| Replica::start(&s3, url, &memo_off, *cpu)).collect();
        let addrs: Vec<&str> = replicas.iter().map(|r| r.addr.as_str()).collect();
        let (mut lb, addr) = haproxy(dir.path(), &addrs);
        // each replica compiles and reads what the call needs once before it is timed
        for r in &replicas {
            for i in 0..3 {
                let (st, v) = stateless_call(&r.addr, "rule_run", args.clone(), i);
                assert!(st == 200 && v["result"]["isError"] == false, "{what}: the warm-up call failed: {v}");
            }
        }
        let (rate, failed) = drive(&addr, "rule_run", &args, Duration::from_secs(seconds));
        let _ = lb.kill();
        let _ = lb.wait();
        drop(replicas);
        let pinned = pins.iter().all(Option::is_some);
        let scaling = match (pinned, one) {
            (true, None) => {
                one = Some(rate);
                String::new()
            }
            (true, Some(base)) => format!(", {:.0} % of linear", 100.0 * rate / (base * pins.len() as f64)),
            _ => String::new(),
        };
        println!("{what}: {rate:.1} calls/s ({failed} failed){scaling}");
    }
}
