//! `camber-bench reload`: the live capability set as an operator meets it. How long after a
//! component's file lands it is callable over HTTP (its first compile included: the cache starts
//! empty), for the largest shipped component and a small one; and what reloads cost the calls
//! running meanwhile (the 16-client HTTP load with and without a reload every 250 ms).

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use camber_tests::{camber_bin, components_dir, demo_store, reload_components_dir};
use serde_json::json;

use super::{http_load, ms, stats, Conn};

/// Start `camber serve` from a copy of the binary (so no install directory of its own adds
/// components) over `caps`, with an empty compile cache; its address.
fn serve(root: &Path, caps: &Path, store: &Path) -> (std::process::Child, String, Log) {
    let bin_dir = root.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let bin = bin_dir.join("camber");
    std::fs::copy(camber_bin(), &bin).unwrap();
    let mut child = Command::new(&bin)
        .args(["serve", "--allow", "hq", "--http", "127.0.0.1:0", "--no-auth", "--store"])
        .arg(store)
        .arg("--capabilities")
        .arg(caps)
        .env("CAMBER_CACHE_DIR", root.join("cache"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (addr, log) = camber_tests::serving_addr(child.stderr.take().unwrap());
    (child, addr, log)
}

/// The server's log lines, gathered as they come.
type Log = Arc<std::sync::Mutex<Vec<String>>>;

/// Wait until `n` components run their optimized code (the quick tier's background compiles
/// are over); how long that took.
fn optimized(log: &Log, n: usize) -> Duration {
    let t0 = Instant::now();
    while log.lock().unwrap().iter().filter(|l| l.contains("now runs its optimized code")).count() < n {
        assert!(t0.elapsed() < Duration::from_secs(300), "the optimized compiles never ended");
        std::thread::sleep(Duration::from_millis(50));
    }
    t0.elapsed()
}

/// A new MCP session's header (its id is in a response header, which `Conn` does not return).
fn session(addr: &str) -> String {
    use std::io::{Read, Write};
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}).to_string();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let req =
        format!("POST /mcp HTTP/1.1\r\nHost: b\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{init}", init.len());
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let sid = raw.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id: ").map(str::to_string));
    format!("MCP-Session-Id: {}\r\n", sid.unwrap())
}

/// Land `bytes` as `caps/name` (a plain copy, as `cp` makes) and call `tool` until it answers;
/// the time from the copy's start.
fn time_to_callable(addr: &str, headers: &str, caps: &Path, name: &str, bytes: &[u8], tool: &str) -> Duration {
    let mut c = Conn::open(addr);
    let args = if tool == "reload_probe" { json!({}) } else { json!({"facility_id": "hq"}) };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}})
        .to_string();
    let t0 = Instant::now();
    std::fs::write(caps.join(name), bytes).unwrap();
    loop {
        let (st, b) = c.post("/mcp", headers, &body);
        if st == 200 && b.contains("\"result\"") && !b.contains("\"isError\":true") {
            return t0.elapsed();
        }
        assert!(t0.elapsed() < Duration::from_secs(120), "{tool} never became callable: {b}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// 16 clients x 400 `points` calls; the p50 and p99 and the errors.
fn load(addr: &str, headers: &str) -> (Duration, Duration, usize) {
    let (all, errors) = http_load(addr, headers, 16, 400);
    let (p50, _, p99) = stats(all);
    (p50, p99, errors)
}

pub fn reload() {
    let store = demo_store();
    let root = tempfile::tempdir().unwrap();
    let caps = root.path().join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    let shipped = components_dir();
    for f in ["_cap_facilities.wasm", "_cap_points.wasm"] {
        std::fs::copy(shipped.join(f), caps.join(f)).unwrap();
    }
    let (mut server, addr, log) = serve(root.path(), &caps, store.path());
    let headers = session(&addr);
    let big = std::fs::read(shipped.join("_cap_rule_run.wasm")).unwrap();
    let t = time_to_callable(&addr, &headers, &caps, "_cap_rule_run.wasm", &big, "sensor_trust");
    println!(
        "a dropped-in component callable over HTTP after (first compile included): {} for _cap_rule_run.wasm ({:.1} MiB, the largest shipped)",
        ms(t),
        big.len() as f64 / (1 << 20) as f64
    );
    let small = std::fs::read(shipped.join("_cap_coverage.wasm")).unwrap();
    let t = time_to_callable(&addr, &headers, &caps, "_cap_coverage.wasm", &small, "coverage");
    println!("  and {} for _cap_coverage.wasm ({:.2} MiB)", ms(t), small.len() as f64 / (1 << 20) as f64);

    // what reloads cost the calls running meanwhile
    let reload_wasm = std::fs::read(reload_components_dir().join("_cap_reload.wasm")).unwrap();
    // its compile once, before: what follows measures reloads, not a first compile
    let t = time_to_callable(&addr, &headers, &caps, "_cap_reload.wasm", &reload_wasm, "reload_probe");
    println!("  and {} for the reload test component ({:.2} MiB)", ms(t), reload_wasm.len() as f64 / (1 << 20) as f64);
    let waited = optimized(&log, 3);
    println!("  each first on the quick tier (Winch); all three ran their optimized code {} later", ms(waited));
    std::fs::remove_file(caps.join("_cap_reload.wasm")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let (p50, p99, errors) = load(&addr, &headers);
    println!(
        "MCP Streamable HTTP, 16 clients x 400 points calls, no reload: {errors} errors, median {}, p99 {}",
        ms(p50),
        ms(p99)
    );
    let stop = Arc::new(AtomicBool::new(false));
    let toggler = {
        let (stop, caps) = (stop.clone(), caps.clone());
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let p = caps.join("_cap_reload.wasm");
                if n.is_multiple_of(2) {
                    std::fs::write(&p, &reload_wasm).unwrap();
                } else {
                    let _ = std::fs::remove_file(&p);
                }
                n += 1;
                std::thread::sleep(Duration::from_millis(250));
            }
            n
        })
    };
    let (q50, q99, errors) = load(&addr, &headers);
    stop.store(true, Ordering::Relaxed);
    let changes = toggler.join().unwrap();
    println!(
        "  the same while a component was added or removed every 250 ms ({changes} changes): {errors} errors, median {}, p99 {} ({:+.0} % p99)",
        ms(q50),
        ms(q99),
        (q99.as_secs_f64() / p99.as_secs_f64() - 1.0) * 100.0
    );
    let _ = server.kill();
    let _ = server.wait();
}
