//! `camber-bench replicas`: the throughput of `camber serve` replicas behind haproxy, over one
//! store in moto's S3 server, as replicas are added. Each replica is held to a core of its own
//! (`taskset`), so one replica is one core's worth and N replicas are N cores'; the same 16
//! clients drive each setup with a data call that does its work every time (the memo off), the
//! setups in turns.

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
    let seconds: u64 = std::env::var("CAMBER_BENCH_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let turns: usize = std::env::var("CAMBER_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(6);
    let s3 = S3Server::start(&["camber-bench"]);
    let url = "s3://camber-bench/store";
    ingest(&s3, url, DATASET);
    let args = json!({"facility_id": FACILITY});
    let memo_off = [("CAMBER_MEMO_MB", "0")];
    println!(
        "camber-bench replicas: {CLIENTS} clients through haproxy, `rule_run` on {FACILITY} with the memo off, \
         {cores} cores, {turns} turns of {seconds} s per setup"
    );
    let warm = |r: &Replica| {
        // each replica compiles and reads what the call needs before it is timed
        for i in 0..3 {
            let (st, v) = stateless_call(&r.addr, "rule_run", args.clone(), i);
            assert!(st == 200 && v["result"]["isError"] == false, "the warm-up call failed: {v}");
        }
    };
    // one replica free to use every core, for comparison
    {
        let r = Replica::start(&s3, url, &memo_off, None);
        warm(&r);
        let dir = tempfile::tempdir().expect("a scratch directory");
        let (mut lb, addr) = haproxy(dir.path(), &[r.addr.as_str()]);
        let (rate, failed) = drive(&addr, "rule_run", &args, Duration::from_secs(seconds * turns as u64 / 2));
        let _ = lb.kill();
        let _ = lb.wait();
        println!("1 replica on every core: {rate:.1} calls/s ({failed} failed)");
    }
    // a replica per core, each held to its core; a balancer in front of the first n, for each
    // n; the setups take turns, so the machine's drift falls on all of them alike
    let pinned: Vec<Replica> = (0..cores).map(|c| Replica::start(&s3, url, &memo_off, Some(c))).collect();
    pinned.iter().for_each(warm);
    let dirs: Vec<tempfile::TempDir> = (0..cores).map(|_| tempfile::tempdir().expect("a scratch directory")).collect();
    let mut lbs: Vec<(std::process::Child, String)> = (1..=cores)
        .map(|n| {
            let addrs: Vec<&str> = pinned[..n].iter().map(|r| r.addr.as_str()).collect();
            haproxy(dirs[n - 1].path(), &addrs)
        })
        .collect();
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); cores];
    let mut failures = 0;
    for _ in 0..turns {
        for (n, (_, addr)) in lbs.iter().enumerate() {
            let (rate, failed) = drive(addr, "rule_run", &args, Duration::from_secs(seconds));
            rates[n].push(rate);
            failures += failed;
        }
    }
    for (child, _) in &mut lbs {
        let _ = child.kill();
        let _ = child.wait();
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for (n, r) in rates.iter().enumerate() {
        let shown: Vec<String> = r.iter().map(|x| format!("{x:.1}")).collect();
        let mut line =
            format!("{} replica(s), a core each: median {:.1} calls/s ({})", n + 1, median(r), shown.join(", "));
        if n > 0 {
            // per turn, against the one-replica figure of the same turn
            let per_turn: Vec<f64> = r.iter().zip(&rates[0]).map(|(x, one)| x / (one * (n + 1) as f64)).collect();
            line.push_str(&format!(
                "; {:.0} % of linear (median of turns; {:.0}-{:.0} %)",
                100.0 * median(&per_turn),
                100.0 * per_turn.iter().copied().fold(f64::INFINITY, f64::min),
                100.0 * per_turn.iter().copied().fold(0.0, f64::max)
            ));
        }
        println!("{line}");
    }
    println!("{failures} calls failed");
}
