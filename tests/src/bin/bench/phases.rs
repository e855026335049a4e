//! `camber-bench phases` (`cargo xtask bench phases`): where each capability's call spends its
//! time, step by step, in process: the policy pipeline's steps, the sandbox (a fresh store, the
//! instance), the guest (and within it the host functions it calls), and what is left outside
//! every step (the registry's look-up, panic containment, the echo guard). What the transport
//! adds (MCP framing, the client's round trip) is measured by the serve benchmarks.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use camber_registry::runconfig::RunConfigs;
use camber_registry::CallContext;
use camber_runtime::profile;
use camber_tests::{components_dir, registry_from};
use serde_json::{json, Value};

/// The facility of the hourly meter `mv_summary` reads.
const METER: &str = "meter";

/// Two years of an hourly chilled-water meter with a 10 % cut in the second, and its M&V config.
fn meter(store: &std::path::Path, configs: &std::path::Path) -> std::path::PathBuf {
    let mut rows = Vec::new();
    let start = 1_640_995_200_000_000_000i64; // 2022-01-01T00:00Z
    let hour = 3_600_000_000_000i64;
    for h in 0..(2 * 365 * 24) {
        let t = start + h * hour;
        let day = h as f64 / 24.0;
        let oat = 55.0 - 25.0 * (2.0 * std::f64::consts::PI * (day + 10.0) / 365.0).cos()
            + 8.0 * (2.0 * std::f64::consts::PI * (h % 24) as f64 / 24.0 - 2.0).sin();
        let cut = if h >= 365 * 24 { 0.9 } else { 1.0 };
        let rate = cut * (40.0 + 3.0 * (oat - 55.0).max(0.0)) + ((h * 7919) % 13) as f64 * 0.3;
        for (role, v) in [("energy_rate", rate), ("oat", oat)] {
            rows.push((t, "CHW-METER-1".to_string(), "CHILLEDWATER_METER".to_string(), role.to_string(), v));
        }
    }
    camber_store::fixture::write_facility(store, METER, &rows, json!({"state": "active"})).unwrap();
    let path = configs.join("meter.json");
    let cfg = json!({"source": {"facility_id": METER}, "equipment": [{"class": "CHILLEDWATER_METER"}], "rules": [],
        "resample": "1h", "mv": [{"class": "CHILLEDWATER_METER", "period": ["2022-01-01", "2022-12-31"],
        "reporting_period": ["2023-01-01", "2023-12-31"], "method": "forecast"}]});
    std::fs::write(&path, cfg.to_string()).unwrap();
    path
}

/// Medians of each step over `n` recorded calls (a step run several times in a call counts
/// once, summed), the call's own median, and the median of what no step covers.
struct Profile {
    total: Duration,
    steps: Vec<(&'static str, Duration)>,
    outside: Duration,
}

fn profile_calls(n: usize, mut call: impl FnMut() -> bool) -> Option<Profile> {
    for _ in 0..(n / 5).max(3) {
        if !call() {
            return None;
        }
    }
    let mut totals = Vec::new();
    let mut outside = Vec::new();
    let mut by_step: BTreeMap<&'static str, Vec<Duration>> = BTreeMap::new();
    let mut order: Vec<&'static str> = Vec::new();
    for _ in 0..n {
        let (took, steps) = profile::record(|| {
            let t = Instant::now();
            call();
            t.elapsed()
        });
        let mut sums: BTreeMap<&'static str, Duration> = BTreeMap::new();
        for (name, d) in &steps {
            *sums.entry(name).or_default() += *d;
            if !order.contains(name) {
                order.push(name);
            }
        }
        // host functions run inside the guest's step: only the rest are disjoint
        let covered: Duration = sums.iter().filter(|(k, _)| !k.starts_with("host fn")).map(|(_, d)| *d).sum();
        outside.push(took.saturating_sub(covered));
        totals.push(took);
        for name in &order {
            by_step.entry(name).or_default().push(sums.get(name).copied().unwrap_or_default());
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    Some(Profile {
        total: median(totals),
        steps: order.iter().map(|s| (*s, median(by_step.remove(s).unwrap_or_default()))).collect(),
        outside: median(outside),
    })
}

fn us(d: Duration) -> String {
    let u = d.as_secs_f64() * 1e6;
    if u >= 10_000.0 {
        format!("{:.1} ms", u / 1000.0)
    } else {
        format!("{u:.0} µs")
    }
}

/// The breakdown of every capability's call, printed as a table and a line of steps each.
pub fn phases() {
    let dir = tempfile::tempdir().unwrap();
    let (g36, chw) = ("ds-synthetic-g36-vav", "ds-synthetic-chw-plant");
    for ds in ["synthetic-g36-vav", "synthetic-chw-plant"] {
        camber_store::synthetic::ingest(dir.path(), ds, None, false, Duration::from_secs(30)).unwrap();
    }
    let cfg_dir = tempfile::tempdir().unwrap();
    let configs = Arc::new(RunConfigs::load(&[meter(dir.path(), cfg_dir.path())]).unwrap());
    let mut ctx = CallContext::new(dir.path(), [g36.to_string(), chw.to_string(), METER.to_string()]);
    ctx.config_digest = configs.digest.clone();
    ctx.run_configs = configs;
    let reg = registry_from(&[components_dir()]).unwrap();
    let run = reg.call("rule_run", &json!({"facility_id": g36, "min_severity": "warn"}), &ctx).unwrap();
    let finding = run.data["findings"][0]["finding_id"].as_str().unwrap_or_default().to_string();
    let facts: Value = run.facts.iter().take(3).cloned().collect::<Vec<_>>().into();
    let cited = facts
        .as_array()
        .and_then(|f| f.first())
        .and_then(|f| f["id"].as_str())
        .map_or(String::new(), |id| format!("The unit needs attention [{id}]."));
    let dataset = reg.call("dataset_search", &json!({"query": "office"}), &ctx).ok().and_then(|r| {
        r.data["datasets"].as_array().and_then(|d| d.first()).and_then(|d| d["id"].as_str()).map(String::from)
    });
    let calls: Vec<(&str, Value, usize)> = vec![
        ("dataset_search", json!({"query": "office"}), 300),
        ("dataset_entry", json!({"dataset_id": dataset.unwrap_or_default()}), 300),
        ("rule_params", json!({}), 300),
        ("check_citations", json!({"text": cited, "facts": facts}), 300),
        ("facilities", json!({}), 300),
        ("points", json!({"facility_id": g36}), 300),
        ("coverage", json!({"facility_id": g36}), 100),
        ("sensor_trust", json!({"facility_id": g36}), 50),
        ("rule_run", json!({"facility_id": g36}), 50),
        ("finding_detail", json!({"facility_id": g36, "finding_id": finding}), 50),
        ("rcx_report", json!({"facility_id": g36}), 30),
        ("drift", json!({"facility_id": chw, "baseline": ["2025-07-07", "2025-07-13"]}), 30),
        ("mv_summary", json!({"facility_id": METER}), 30),
    ];
    let memo = if reg.capabilities().next().is_some_and(|c| c.memo_enabled()) {
        "the memo of guest results on: each call after the first reuses its guest's result; CAMBER_MEMO_MB=0 runs every guest"
    } else {
        "the memo of guest results off (CAMBER_MEMO_MB=0): every call runs its guest"
    };
    println!("Each capability's call in process (release host, the demo's synthetic-g36-vav and synthetic-chw-plant, a two-year hourly meter, {memo}), medians; a step's time includes the steps inside it:\n");
    println!("| call | total | admission (schema, allowlist, licence, fences) and the call token (after the guest) | arguments out, fences after | memo (look-up, keep) | sandbox (store, instance) | guest | of which host functions | finish (parse, caps, schema, facts, citations, text, paths, bytes) | outside the steps |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut details = Vec::new();
    // `CAMBER_BENCH_ONLY=rule_params,points`: those calls only, for a profiler
    let only = std::env::var("CAMBER_BENCH_ONLY").ok();
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o.split(',').any(|w| w.trim() == name));
    for (name, args, n) in calls.into_iter().filter(|c| wanted(c.0)) {
        let p = profile_calls(n, || match reg.call(name, &args, &ctx) {
            Ok(_) => true,
            Err(e) => {
                println!("| {name} | refused: {} | | | | | | | | |", e.message);
                false
            }
        });
        let Some(p) = p else { continue };
        let sum = |pick: &dyn Fn(&str) -> bool| -> Duration {
            p.steps.iter().filter(|(s, _)| pick(s)).map(|(_, d)| *d).sum()
        };
        let admission =
            sum(&|s| ["1 input schema", "2 allowlist", "3 licence", "9 fences before", "call token"].contains(&s));
        let sandbox = sum(&|s| s.starts_with("sandbox"));
        let guest = sum(&|s| s.starts_with("guest"));
        let host = sum(&|s| s.starts_with("host fn"));
        let around = sum(&|s| ["arguments to JSON text", "9 fences after"].contains(&s));
        let memo = sum(&|s| s == "memo");
        let finish = sum(&|s| {
            !s.starts_with("sandbox")
                && !s.starts_with("guest")
                && !s.starts_with("host fn")
                && ![
                    "1 input schema",
                    "2 allowlist",
                    "3 licence",
                    "9 fences before",
                    "call token",
                    "arguments to JSON text",
                    "9 fences after",
                    "memo",
                ]
                .contains(&s)
        });
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            us(p.total),
            us(admission),
            us(around),
            us(memo),
            us(sandbox),
            us(guest),
            us(host),
            us(finish),
            us(p.outside)
        );
        let steps: Vec<String> = p.steps.iter().map(|(s, d)| format!("{s} {}", us(*d))).collect();
        details.push(format!("* {name}: {}", steps.join(", ")));
    }
    println!("\nEvery step, in the order it ends (medians):\n");
    for d in details {
        println!("{d}");
    }
}
