//! Benchmarks reported in docs/PERFORMANCE.md. Run with `cargo xtask bench` (release build).
//! Prints one line per figure; nothing here is asserted.

use std::process::Command;
use std::time::{Duration, Instant};

use camber_host::registry::component_files;
use camber_host::runtime::{Runtime, RuntimeConfig};
use camber_host::{CallContext, Registry};
use camber_tests::{camber_bin, components_dir, demo_store, registry_from, test_components_dir};
use serde_json::json;

fn stats(mut v: Vec<Duration>) -> (Duration, Duration, Duration) {
    v.sort();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.9), at(0.99))
}

fn us(d: Duration) -> String {
    format!("{:.1} us", d.as_secs_f64() * 1e6)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    println!("camber-bench ({} build)", if cfg!(debug_assertions) { "debug" } else { "release" });

    // cold compile: an empty cache
    let cold_cache = tempfile::tempdir().unwrap();
    let files = component_files(&[components_dir()]);
    let t0 = Instant::now();
    let rt = Runtime::new(RuntimeConfig { cache_dir: Some(cold_cache.path().to_path_buf()), ..RuntimeConfig::default() }).unwrap();
    let reg = Registry::load(rt, &files).unwrap();
    println!("cold load of {} components (compile + cache write): {}", files.len(), ms(t0.elapsed()));
    drop(reg);
    for f in &files {
        let rt = Runtime::new(RuntimeConfig { cache_dir: None, ..RuntimeConfig::default() }).unwrap();
        let t = Instant::now();
        rt.load_component(f).unwrap();
        println!("  compile {}: {}", f.file_name().unwrap().to_string_lossy(), ms(t.elapsed()));
    }
    let t0 = Instant::now();
    let rt = Runtime::new(RuntimeConfig { cache_dir: Some(cold_cache.path().to_path_buf()), ..RuntimeConfig::default() }).unwrap();
    let _reg = Registry::load(rt, &files).unwrap();
    println!("warm load in-process (deserialize .cwasm, pre-instantiate, describe): {}", ms(t0.elapsed()));

    // warm start of the binary
    let bin = camber_bin();
    let cache = camber_tests::cache_dir();
    let _ = Command::new(&bin).arg("capabilities").env("CAMBER_CACHE_DIR", &cache).output();
    let mut runs = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        let out = Command::new(&bin).arg("capabilities").env("CAMBER_CACHE_DIR", &cache).output().unwrap();
        assert!(out.status.success());
        runs.push(t.elapsed());
    }
    let (p50, p90, _) = stats(runs);
    println!("warm start `camber capabilities` (process, 30 runs): median {}, p90 {}", ms(p50), ms(p90));

    // in-process calls
    let store = demo_store();
    let reg = registry_from(&[components_dir(), test_components_dir()]).unwrap();
    let ctx = CallContext::new(store.path(), ["hq".to_string(), "annex".to_string()]);
    for (label, name, args) in [
        ("points {facility_id: hq}", "points", json!({"facility_id": "hq"})),
        ("points {facility_id: hq, equip: AHU-1}", "points", json!({"facility_id": "hq", "equip": "AHU-1"})),
        ("facilities {}", "facilities", json!({})),
        ("echo {} (sandbox + policy, no store read)", "echo", json!({})),
    ] {
        for _ in 0..200 {
            reg.call(name, &args, &ctx).unwrap();
        }
        let mut v = Vec::with_capacity(3000);
        for _ in 0..3000 {
            let t = Instant::now();
            reg.call(name, &args, &ctx).unwrap();
            v.push(t.elapsed());
        }
        let (p50, p90, p99) = stats(v);
        println!("call {label} in-process, 3000 calls: median {}, p90 {}, p99 {}", us(p50), us(p90), us(p99));
    }

    // deadline precision
    let mut over = Vec::new();
    let mut c = ctx.clone();
    c.caps.max_seconds = 0.2;
    for _ in 0..10 {
        let t = Instant::now();
        let e = reg.call("spin", &json!({}), &c).unwrap_err();
        assert_eq!(e.code, camber_common::ErrorCode::Timeout);
        over.push(t.elapsed().saturating_sub(Duration::from_millis(200)));
    }
    let (p50, _, max) = stats(over);
    println!("spin stopped after its 200 ms deadline, 10 runs: median overshoot {}, worst {}", ms(p50), ms(max));
}
