//! Benchmarks reported in docs/PERFORMANCE.md. Run with `cargo xtask bench` (release build).
//! Prints one line per figure; nothing here is asserted.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "bench/count.rs"]
mod count;
#[path = "bench/mcp.rs"]
mod mcp;
#[path = "bench/objects.rs"]
mod objects;
#[path = "bench/phases.rs"]
mod phases;
#[path = "bench/reload.rs"]
mod reload;
#[path = "bench/replicas.rs"]
mod replicas;

use camber_registry::component_files;
use camber_registry::{CallContext, Registry};
use camber_runtime::{Runtime, RuntimeConfig};
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

/// Peak and current resident memory of this process, in bytes (Linux).
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
            * 1024
    };
    (field("VmHWM:"), field("VmRSS:"))
}

fn mib(b: u64) -> String {
    format!("{:.0} MiB", b as f64 / (1u64 << 20) as f64)
}

/// `camber-bench read-frame STORE`: read one equipment-year in a fresh process, so its peak
/// memory is the read's own.
fn read_frame_child(store: &str) {
    let s = camber_store::StoreDir::open(std::path::Path::new(store)).unwrap();
    // the roles from a one-day generation: listing the store's points would scan it first
    let roles: Vec<String> = camber_synth::ahu_year("AHU-1", 1, 60, 7).series.iter().map(|p| p.role.clone()).collect();
    let (_, before) = memory();
    let t = Instant::now();
    let f = s.read_frame("bench", "AHU-1", &roles, None, None).unwrap();
    let took = t.elapsed();
    let (peak, _) = memory();
    let samples: usize = f.values.iter().map(|c| c.iter().filter(|v| !v.is_nan()).count()).sum();
    let decoded = (f.ts.len() * 8 + f.values.iter().map(|c| c.len() * 8).sum::<usize>()) as u64;
    println!("{} {} {} {} {}", took.as_secs_f64() * 1e3, samples, decoded, peak.saturating_sub(before), f.ts.len());
}

fn store_benchmarks() {
    use camber_store::ingest::{ingest, IngestOptions};
    use camber_store::writer::Mode;
    let dir = tempfile::tempdir().unwrap();
    // one AHU-year at 1-minute resolution, 12 roles, as a long CSV
    let g = camber_synth::ahu_year("AHU-1", 365, 1, 7);
    let csv = dir.path().join("year.csv");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&csv).unwrap());
        writeln!(w, "ts,equip,equip_class,role,value").unwrap();
        let n = g.series[0].values.len();
        for i in 0..n {
            let ts = camber_common::time::iso_from_ns(g.series[0].ts(i));
            for s in &g.series {
                let v = s.values[i];
                if !v.is_nan() {
                    writeln!(w, "{ts},{},{},{},{}", s.equip, s.equip_class, s.role, v).unwrap();
                }
            }
        }
    }
    let bytes = std::fs::metadata(&csv).unwrap().len();
    let store = dir.path().join("store");
    let opts = IngestOptions {
        facility: "bench".into(),
        timezone: "UTC".into(),
        format: None,
        mapping: None,
        units: Default::default(),
        mode: Mode::Create,
        name: None,
        progress: false,
        lock_timeout: Duration::from_secs(5),
    };
    let t = Instant::now();
    let file = std::fs::File::open(&csv).unwrap();
    let (rows, _) =
        camber_store::ingest::parse(std::io::BufReader::with_capacity(1 << 20, file), bytes, &opts).unwrap();
    let parse_s = t.elapsed().as_secs_f64();
    drop(rows);
    let t = Instant::now();
    let report = ingest(&store, &csv, &opts).unwrap();
    let total_s = t.elapsed().as_secs_f64();
    println!(
        "ingest long CSV ({} rows, {}): parse + check + sort {:.2} s ({:.2} M rows/s); with the Parquet write and swap {:.2} s ({:.2} M rows/s), one thread",
        report.rows_stored,
        mib(bytes),
        parse_s,
        report.rows_stored as f64 / parse_s / 1e6,
        total_s,
        report.rows_stored as f64 / total_s / 1e6
    );

    // read it back in a fresh process (3 runs)
    let exe = std::env::current_exe().unwrap();
    for run in 0..3 {
        let out = Command::new(&exe).args(["read-frame", store.to_str().unwrap()]).output().unwrap();
        let line = String::from_utf8_lossy(&out.stdout).to_string();
        let f: Vec<f64> = line.split_whitespace().filter_map(|x| x.parse().ok()).collect();
        if f.len() == 5 {
            println!(
                "read one equipment-year ({} samples, 12 roles, {} timestamps) into aligned columns, run {}: {:.0} ms; memory growth {} for {} of decoded columns ({:.1}x)",
                f[1] as u64,
                f[4] as u64,
                run + 1,
                f[0],
                mib(f[3] as u64),
                mib(f[2] as u64),
                f[3] / f[2]
            );
        } else {
            println!("read-frame failed: {line} {}", String::from_utf8_lossy(&out.stderr));
        }
    }

    // coverage of that facility-year
    {
        let reg = registry_from(&[components_dir()]).unwrap();
        let ctx = CallContext::new(&store, ["bench".to_string()]);
        let args = json!({"facility_id": "bench"});
        let t = Instant::now();
        let r = reg.call("coverage", &args, &ctx).unwrap();
        let cold = t.elapsed();
        let mut v = Vec::new();
        for _ in 0..50 {
            let t = Instant::now();
            reg.call("coverage", &args, &ctx).unwrap();
            v.push(t.elapsed());
        }
        let (p50, p90, _) = stats(v);
        println!(
            "coverage of one facility-year at 1 minute ({} points, {} gaps): first call {} (one scan of the timestamps), then median {}, p90 {}",
            r.data["n_points"], r.data["n_gaps"], ms(cold), ms(p50), ms(p90)
        );
    }

    // a call on one facility of a 100-facility store costs what it does on a 1-facility store
    let small = camber_synth::generate("synthetic-ahu-economizer", None).unwrap();
    let mut rows = Vec::new();
    for s in small.series.iter().filter(|s| s.equip == "AHU__healthy") {
        for (t, v) in s.samples() {
            rows.push((t, "AHU-1".to_string(), "AHU".to_string(), s.role.clone(), v));
        }
    }
    let one = dir.path().join("one");
    let hundred = dir.path().join("hundred");
    camber_store::fixture::write_facility(&one, "site-000", &rows, json!({})).unwrap();
    for i in 0..100 {
        camber_store::fixture::write_facility(&hundred, &format!("site-{i:03}"), &rows, json!({})).unwrap();
    }
    let reg = registry_from(&[components_dir()]).unwrap();
    for (label, root, allowed) in [
        ("1-facility store", &one, vec!["site-000".to_string()]),
        ("100-facility store", &hundred, (0..100).map(|i| format!("site-{i:03}")).collect::<Vec<_>>()),
        ("100-facility store (only that facility allowed)", &hundred, vec!["site-000".to_string()]),
    ] {
        let ctx = CallContext::new(root, allowed);
        let args = json!({"facility_id": "site-000"});
        for _ in 0..200 {
            reg.call("points", &args, &ctx).unwrap();
        }
        let mut v = Vec::new();
        for _ in 0..2000 {
            let t = Instant::now();
            reg.call("points", &args, &ctx).unwrap();
            v.push(t.elapsed());
        }
        let (p50, p90, _) = stats(v);
        println!("points on one facility of a {label}: median {}, p90 {}", us(p50), us(p90));
    }
    for (label, root, n) in [("1-facility", &one, 1), ("100-facility", &hundred, 100)] {
        let ctx = CallContext::new(root, (0..n).map(|i| format!("site-{i:03}")));
        let args = json!({"limit": 100});
        let t = Instant::now();
        reg.call("facilities", &args, &ctx).unwrap();
        let cold = t.elapsed();
        let mut v = Vec::new();
        for _ in 0..200 {
            let t = Instant::now();
            reg.call("facilities", &args, &ctx).unwrap();
            v.push(t.elapsed());
        }
        let (p50, p90, _) = stats(v);
        println!("facilities on a {label} store: first call {}, then median {}, p90 {}", ms(cold), ms(p50), ms(p90));
    }
}

/// `clients` keep-alive connections, each making `calls` MCP `points` calls in the session
/// `headers` names: every call's latency, and how many failed.
fn http_load(addr: &str, headers: &str, clients: usize, calls: usize) -> (Vec<Duration>, usize) {
    let handles: Vec<_> = (0..clients)
        .map(|k| {
            let (addr, headers) = (addr.to_string(), headers.to_string());
            std::thread::spawn(move || {
                let mut c = Conn::open(&addr);
                let (mut lat, mut errors) = (Vec::with_capacity(calls), 0);
                for i in 0..calls {
                    let body = json!({"jsonrpc": "2.0", "id": k * 100_000 + i, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "hq"}}}).to_string();
                    let t = Instant::now();
                    let (st, b) = c.post("/mcp", &headers, &body);
                    lat.push(t.elapsed());
                    if st != 200 || b.contains("\"isError\":true") || b.contains("\"error\"") {
                        errors += 1;
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    let (mut all, mut errors) = (Vec::new(), 0);
    for h in handles {
        let (l, e) = h.join().unwrap();
        all.extend(l);
        errors += e;
    }
    (all, errors)
}

/// A keep-alive HTTP/1.1 connection for the load test.
struct Conn {
    r: std::io::BufReader<std::net::TcpStream>,
    w: std::net::TcpStream,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = std::net::TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        Conn { r: std::io::BufReader::new(s.try_clone().unwrap()), w: s }
    }

    /// POST a body; the status and the body of the answer.
    fn post(&mut self, path: &str, headers: &str, body: &str) -> (u16, String) {
        use std::io::{BufRead, Read, Write};
        let req = format!("POST {path} HTTP/1.1\r\nHost: bench\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        self.w.write_all(req.as_bytes()).unwrap();
        let mut status = 0;
        let mut len = 0usize;
        let mut chunked = false;
        let mut line = String::new();
        loop {
            line.clear();
            self.r.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let lower = l.to_ascii_lowercase();
            if l.starts_with("HTTP/1.1 ") {
                status = l[9..12].parse().unwrap_or(0);
            } else if let Some(v) = lower.strip_prefix("content-length: ") {
                len = v.parse().unwrap_or(0);
            } else if lower == "transfer-encoding: chunked" {
                chunked = true;
            }
        }
        if !chunked {
            let mut buf = vec![0; len];
            self.r.read_exact(&mut buf).unwrap();
            return (status, String::from_utf8_lossy(&buf).into_owned());
        }
        // an event stream: chunks until the empty one
        let mut body = Vec::new();
        loop {
            line.clear();
            self.r.read_line(&mut line).unwrap();
            let n = usize::from_str_radix(line.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            self.r.read_exact(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

fn serve_benchmarks() {
    use std::io::{BufRead, Write};
    let store = demo_store();
    let bin = camber_bin();
    // stdio: client-observed tools/call latency
    let mut mcp = Command::new(&bin);
    mcp.args(["mcp", "--allow", "hq", "--store"]).arg(store.path());
    let (mut child, mut stdin, mut stdout) = camber_tests::mcp_stdio(mcp);
    let mut line = String::new();
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})).unwrap();
    stdout.read_line(&mut line).unwrap();
    let mut v = Vec::new();
    for i in 1..=2200 {
        let msg = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "hq"}}});
        let t = Instant::now();
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        if i > 200 {
            v.push(t.elapsed());
        }
    }
    drop(stdin);
    let _ = child.wait();
    let (p50, p90, p99) = stats(v);
    println!(
        "MCP stdio tools/call points, client-observed, 2000 calls: median {}, p90 {}, p99 {}",
        us(p50),
        us(p90),
        us(p99)
    );

    // Streamable HTTP: 16 clients x 500 calls, with and without a 2-second guest call running
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.json");
    let token = String::from_utf8(
        Command::new(&bin)
            .args(["tokens", "add", "bench", "--allow", "hq", "--file"])
            .arg(&tokens)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string();
    let mut server = Command::new(&bin)
        .args(["serve", "--allow", "hq", "--http", "127.0.0.1:0", "--store"])
        .arg(store.path())
        .arg("--tokens")
        .arg(&tokens)
        .env("CAMBER_CACHE_DIR", camber_tests::cache_dir())
        .env("CAMBER_CAPABILITIES", test_components_dir())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(server.stderr.take().unwrap());
    let mut addr = String::new();
    while addr.is_empty() {
        let mut l = String::new();
        if err.read_line(&mut l).unwrap() == 0 {
            break;
        }
        if let Some(rest) = l.split("serving MCP at http://").nth(1) {
            addr = rest.split('/').next().unwrap().to_string();
        }
    }
    std::thread::spawn(move || for _ in err.lines() {});
    let auth = format!("Authorization: Bearer {token}\r\n");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}).to_string();
    let session = {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        let req = format!(
            "POST /mcp HTTP/1.1\r\nHost: b\r\n{auth}Connection: close\r\nContent-Length: {}\r\n\r\n{init}",
            init.len()
        );
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).unwrap();
        raw.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id: ").map(str::to_string)).unwrap()
    };
    let headers = format!("{auth}MCP-Session-Id: {session}\r\n");
    for slow in [false, true] {
        let slow_thread = slow.then(|| {
            let (addr, headers) = (addr.clone(), headers.clone());
            std::thread::spawn(move || {
                let mut c = Conn::open(&addr);
                let body = json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 2000}}}).to_string();
                let t = Instant::now();
                let (st, _) = c.post("/mcp", &headers, &body);
                (st, t.elapsed())
            })
        });
        if slow {
            std::thread::sleep(Duration::from_millis(50));
        }
        let t0 = Instant::now();
        let (all, errors) = http_load(&addr, &headers, 16, 500);
        let wall = t0.elapsed();
        let n = all.len();
        let (p50, _, p99) = stats(all);
        let slow_note = match slow_thread.map(|h| h.join().unwrap()) {
            Some((st, took)) => format!(" while a 2 s guest call ran (it answered {st} after {})", ms(took)),
            None => String::new(),
        };
        println!(
            "MCP Streamable HTTP, 16 clients x 500 points calls{slow_note}: {errors} errors, {:.0} calls/s, median {}, p99 {}",
            n as f64 / wall.as_secs_f64(),
            ms(p50),
            ms(p99)
        );
    }
    // what streaming adds to a cheap call: one client, `points` answered as JSON, then watched
    // (a progress token and an event-stream Accept: the same call as an SSE stream of its
    // progress and result), interleaved so drift in the machine's load hits both alike
    let mut c = Conn::open(&addr);
    let (mut plain, mut streamed) = (Vec::new(), Vec::new());
    let sse_headers = format!("{headers}Accept: application/json, text/event-stream\r\n");
    for i in 0..1500 {
        let watched = i % 2 == 1;
        let mut params = json!({"name": "points", "arguments": {"facility_id": "hq"}});
        if watched {
            params["_meta"] = json!({"progressToken": i});
        }
        let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}).to_string();
        let t = Instant::now();
        let (st, b) = c.post("/mcp", if watched { &sse_headers } else { &headers }, &body);
        let took = t.elapsed();
        assert_eq!(st, 200);
        assert!(!watched || b.contains("notifications/progress"), "{b}");
        if i >= 100 {
            if watched {
                streamed.push(took)
            } else {
                plain.push(took)
            }
        }
    }
    let ((p, _, _), (q, _, _)) = (stats(plain), stats(streamed));
    println!(
        "MCP Streamable HTTP, one client, points: median {} as JSON, {} as an SSE stream with progress (+{:.3} ms)",
        ms(p),
        ms(q),
        (q.as_secs_f64() - p.as_secs_f64()) * 1e3
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// The AHU-year at 1-minute resolution as an analytics frame.
fn ahu_year_frame() -> camber_analytics::run::EquipFrame {
    let g = camber_synth::ahu_year("AHU-1", 365, 1, 7);
    let n = g.series[0].values.len();
    let ts: Vec<i64> = (0..n).map(|i| g.series[0].ts(i)).collect();
    let cols = g.series.iter().map(|s| (s.role.clone(), s.values.clone())).collect();
    camber_analytics::run::EquipFrame {
        equip: "AHU-1".into(),
        class: "AHU".into(),
        frame: camber_analytics::Frame { ts, cols },
    }
}

/// `camber-bench rules-year`: every rule on one AHU-year at 1-minute resolution, in a fresh
/// process so its peak memory is the run's own. Prints ms, findings, rows, peak delta bytes.
fn rules_year_child() {
    let e = ahu_year_frame();
    let rows = e.frame.ts.len();
    let (_, before) = memory();
    let (took, findings) = engine_year(&e);
    let (peak, _) = memory();
    println!("{} {} {} {}", took.as_secs_f64() * 1e3, findings, rows, peak.saturating_sub(before));
}

/// Every rule on the AHU-year at 1 minute by the engine alone, natively: its time and how many
/// findings it made.
fn engine_year(e: &camber_analytics::run::EquipFrame) -> (Duration, usize) {
    use camber_analytics::run::{run, RunRequest};
    let cfg = year_engine_config();
    let t = Instant::now();
    let r = run(&cfg, &RunRequest { min_trust: 0.5, ..Default::default() }, std::slice::from_ref(e), &[]).unwrap();
    (t.elapsed(), r.findings.len())
}

/// The engine alone on the year, marked for callgrind (`CAMBER_BENCH_COUNT`).
#[inline(never)]
fn counted_engine(e: &camber_analytics::run::EquipFrame) {
    std::hint::black_box(engine_year(e));
}

/// The sandbox call on the year, marked for callgrind (`CAMBER_BENCH_COUNT`).
#[inline(never)]
fn counted_sandbox<T>(call: &dyn Fn(&CallContext) -> T, ctx: &CallContext) {
    std::hint::black_box(call(ctx));
}

/// The plant-side rules: hot water, chilled water, heat pumps and source loops, DX and compressors.
const PLANT_RULES: [&str; 21] = [
    "boiler_short_cycle",
    "boiler_summer_lockout",
    "hw_plant_deltat",
    "hw_pump_dp_reset",
    "hw_pump_summer_lockout",
    "chiller_approach_fouling",
    "chiller_efficiency",
    "chiller_staging",
    "chiller_staging_fleet",
    "chw_plant_reset",
    "chw_supply_tracking",
    "chw_pump_dp_reset",
    "condenser_bypass_leak",
    "heatpump_defrost",
    "hp_capacity_shortfall",
    "hp_mode_vs_need",
    "hp_room_imbalance",
    "source_loop_deltat",
    "dx_indoor_airflow",
    "compressor_short_cycle",
    "compressor_staging",
];

/// `camber-bench rules-g36-year` / `rules-plant-year`: each rule alone on one G36 air handler
/// and its six boxes (the fleet rules with the system's topology), or on one building's plants
/// ([`camber_synth::plant_year`]), over a year at 1 minute, engine only. Prints one `rule ms
/// findings` line per rule, after the run's bookkeeping alone as `(trust)`, and then every rule
/// together as `(all) ms findings warned`.
fn rules_year_of_child(plant: bool) {
    use camber_analytics::config::RunConfig;
    use camber_analytics::run::{run, EquipFrame, RunRequest};
    let g = if plant { camber_synth::plant_year(365, 1, 7) } else { camber_synth::g36_year(365, 1, 7) };
    let mut frames: Vec<EquipFrame> = Vec::new();
    for e in &g.equipment {
        let series: Vec<&camber_synth::PointSeries> = g.series.iter().filter(|s| s.equip == e.equip).collect();
        let n = series[0].values.len();
        let ts: Vec<i64> = (0..n).map(|i| series[0].ts(i)).collect();
        let cols = series.iter().map(|s| (s.role.clone(), s.values.clone())).collect();
        frames.push(EquipFrame {
            equip: e.equip.clone(),
            class: e.equip_class.clone(),
            frame: camber_analytics::Frame { ts, cols },
        });
    }
    let classes: Vec<String> =
        frames.iter().map(|f| f.class.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let mut v = RunConfig::store_backed("bench", &classes, None);
    if plant {
        // the lead and lag chillers are one plant, the lone chiller another; the chillers read
        // the tower's outdoor temperature
        let plant_of = |e: &str| if e == "CH__healthy" { "PLANT__healthy" } else { "PLANT__well_staged" };
        let parents: serde_json::Map<String, serde_json::Value> = frames
            .iter()
            .filter(|f| f.class == "CHILLER")
            .map(|f| (f.equip.clone(), json!(plant_of(&f.equip))))
            .collect();
        v["topology"] = json!({"parents": parents});
        v["shared_oat"] = json!({"equip": "TOWER__healthy", "role": "oat"});
        // what rule_run's preparation does with shared_oat (the units share one clock here)
        let oat =
            frames.iter().find(|f| f.equip == "TOWER__healthy").and_then(|f| f.frame.col("oat")).map(<[f64]>::to_vec);
        for f in frames.iter_mut().filter(|f| f.class == "CHILLER") {
            f.frame.cols.insert("oat".into(), oat.clone().unwrap_or_default());
        }
    } else {
        let parents: serde_json::Map<String, serde_json::Value> =
            frames.iter().filter(|f| f.class == "VAV").map(|f| (f.equip.clone(), json!("AHU__healthy"))).collect();
        v["topology"] = json!({"parents": parents});
    }
    let cfg = RunConfig { resample_ns: 60_000_000_000, ..RunConfig::from_value(&v).unwrap() };
    // what rule_run's preparation does with the topology: each box gets its air handler's
    // static-pressure setpoint
    camber_analytics::run::attach_parent_points(&mut frames, &[], &cfg);
    // a run scores its inputs' trust first, whatever its rules: timed alone, then each rule
    // on top of it
    let none = RunRequest { min_trust: 0.5, rules: Some(Vec::new()), ..Default::default() };
    let t = Instant::now();
    run(&cfg, &none, &frames, &[]).unwrap();
    println!("(trust) {} 0", t.elapsed().as_secs_f64() * 1e3);
    for r in camber_analytics::rules::all() {
        let spec = (r.spec)();
        if !frames.iter().any(|f| camber_analytics::run::applies(&spec, &f.class)) {
            continue;
        }
        let id = spec.id.to_string();
        let req = RunRequest { min_trust: 0.5, rules: Some(vec![id.clone()]), ..Default::default() };
        let t = Instant::now();
        let out = run(&cfg, &req, &frames, &[]).unwrap();
        println!("{id} {} {}", t.elapsed().as_secs_f64() * 1e3, out.findings.len());
    }
    // the plant rules (issue 14's 21) together, then every rule that applies, each in one run
    if plant {
        let req = RunRequest {
            min_trust: 0.5,
            rules: Some(PLANT_RULES.iter().map(|r| r.to_string()).collect()),
            ..Default::default()
        };
        let t = Instant::now();
        let out = run(&cfg, &req, &frames, &[]).unwrap();
        println!("(plant) {} {}", t.elapsed().as_secs_f64() * 1e3, out.findings.len());
    }
    let t = Instant::now();
    let out = run(&cfg, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
    let warned: Vec<&str> = out
        .findings
        .iter()
        .filter(|f| f.finding.severity >= camber_analytics::Severity::Warn && f.declined.is_empty())
        .map(|f| f.id.as_str())
        .collect();
    println!("(all) {} {} {} {}", t.elapsed().as_secs_f64() * 1e3, out.findings.len(), warned.len(), warned.join(","));
}

/// Each rule alone on a system-year (`rules-g36-year` or `rules-plant-year`), reported.
fn report_year(me: &std::path::Path, child: &str, what: &str) {
    let out = Command::new(me).arg(child).output().unwrap();
    let lines = String::from_utf8_lossy(&out.stdout).to_string();
    let mut per: Vec<(String, f64)> = lines
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect();
    let trust = per.iter().find(|p| p.0 == "(trust)").map_or(0.0, |p| p.1);
    let all = per.iter().find(|p| p.0 == "(all)").map_or(0.0, |p| p.1);
    let plant = per.iter().find(|p| p.0 == "(plant)").map(|p| p.1);
    // the together run's findings and how many of them warn or fault
    let all_counts = lines.lines().find_map(|l| l.strip_prefix("(all) ")).map_or(String::new(), |l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        format!(
            "{} findings, {} warn or fault {}",
            w.get(1).unwrap_or(&"?"),
            w.get(2).unwrap_or(&"?"),
            w.get(3).unwrap_or(&"")
        )
    });
    per.retain(|p| !p.0.starts_with('('));
    per.sort_by(|a, b| b.1.total_cmp(&a.1));
    let top: Vec<String> = per.iter().take(6).map(|(r, t)| format!("{r} {t:.0} ms")).collect();
    println!(
        "each of the {} rules for {what}, alone, a year at 1 minute (engine only, each run with its trust scoring, {trust:.0} ms alone): slowest {}; the fastest {:.0} ms",
        per.len(),
        top.join(", "),
        per.last().map_or(0.0, |p| p.1)
    );
    if let Some(ms) = plant {
        println!("  the {} plant rules together on it, one run: {ms:.0} ms", PLANT_RULES.len());
    }
    println!("  the {} rules together on it, one run: {all:.0} ms ({all_counts})", per.len());
}

/// The rule engine and the run capabilities.
fn rules_benchmarks() {
    let me = std::env::current_exe().unwrap();
    let mut runs = Vec::new();
    let mut last = String::new();
    for _ in 0..3 {
        let out = Command::new(&me).arg("rules-year").output().unwrap();
        last = String::from_utf8_lossy(&out.stdout).trim().to_string();
        runs.push(last.split_whitespace().next().unwrap().parse::<f64>().unwrap());
    }
    runs.sort_by(f64::total_cmp);
    let f: Vec<&str> = last.split_whitespace().collect();
    println!(
        "every rule on one AHU-year at 1 minute ({} rows x 12 roles, engine only): median {:.0} ms of 3 fresh processes, {} findings, peak memory {} above the frame",
        f[2], runs[1], f[1], mib(f[3].parse().unwrap())
    );

    // each rule alone on a system-year at 1 minute
    report_year(&me, "rules-g36-year", "one G36 air handler and its 6 boxes");
    report_year(
        &me,
        "rules-plant-year",
        "one building's plants (3 chillers, a tower, a boiler plant, 2 heat pumps, a source loop)",
    );
    mv_benchmark();

    // through the sandbox: the demo store's synthetic buildings
    let dir = tempfile::tempdir().unwrap();
    for ds in ["synthetic-ahu-economizer", "synthetic-g36-vav", "synthetic-chw-plant"] {
        camber_store::synthetic::ingest(dir.path(), ds, None, false, Duration::from_secs(30)).unwrap();
    }
    let reg = registry_from(&[components_dir()]).unwrap();
    let fids = ["ds-synthetic-ahu-economizer", "ds-synthetic-g36-vav", "ds-synthetic-chw-plant"];
    let ctx = CallContext::new(dir.path(), fids.map(String::from));
    for fid in fids {
        for cap in ["rule_run", "sensor_trust"] {
            let args = json!({"facility_id": fid});
            let first = Instant::now();
            let r = reg.call(cap, &args, &ctx).unwrap();
            let first = first.elapsed();
            let mut v = Vec::new();
            for _ in 0..10 {
                let t = Instant::now();
                reg.call(cap, &args, &ctx).unwrap();
                v.push(t.elapsed());
            }
            let (p50, _, _) = stats(v);
            println!(
                "{cap} {fid} ({} equipment, {} grid): first {}, median of 10 {}",
                r.data["run"]["equipment"],
                r.data["run"]["resample_minutes"],
                ms(first),
                ms(p50)
            );
        }
    }
    sandbox_year(&reg);
}

/// One AHU-year at 1 minute as the store's rows.
fn ahu_year_rows(e: &camber_analytics::run::EquipFrame) -> Vec<camber_store::fixture::Row> {
    let mut rows = Vec::new();
    for (role, c) in &e.frame.cols {
        for (i, v) in c.iter().enumerate() {
            if !v.is_nan() {
                rows.push((e.frame.ts[i], "AHU-1".to_string(), "AHU".to_string(), role.clone(), *v));
            }
        }
    }
    rows
}

/// Facility `year` in a store of its own, the frame it was written from, and its run config.
struct YearStore {
    store: tempfile::TempDir,
    year: camber_analytics::run::EquipFrame,
    configs: Arc<camber_registry::runconfig::RunConfigs>,
    /// Where the config is written, kept for as long as the store.
    _config_dir: tempfile::TempDir,
}

/// The AHU-year at 1 minute written as facility `year`, with its run config.
fn year_store() -> YearStore {
    let store = tempfile::tempdir().unwrap();
    let year = ahu_year_frame();
    camber_store::fixture::write_facility(store.path(), "year", &ahu_year_rows(&year), json!({"state": "active"}))
        .unwrap();
    let config_dir = tempfile::tempdir().unwrap();
    let configs = year_configs(config_dir.path());
    YearStore { store, year, configs, _config_dir: config_dir }
}

/// The engine's config for the year: the store-backed default, judged at 1 minute.
fn year_engine_config() -> camber_analytics::config::RunConfig {
    use camber_analytics::config::RunConfig;
    let cfg = RunConfig::from_value(&RunConfig::store_backed("bench", &["AHU".into()], None)).unwrap();
    RunConfig { resample_ns: 60_000_000_000, ..cfg }
}

/// The run config of facility `year` (its air handler judged at 1 minute), written in `dir`
/// and loaded.
fn year_configs(dir: &std::path::Path) -> Arc<camber_registry::runconfig::RunConfigs> {
    let cfg = dir.join("year.json");
    let mut text = camber_analytics::config::RunConfig::store_backed("year", &["AHU".into()], None);
    text["resample"] = json!("1min");
    std::fs::write(&cfg, text.to_string()).unwrap();
    Arc::new(camber_registry::runconfig::RunConfigs::load(&[cfg]).unwrap())
}

/// `camber-bench sandbox-year` (and the last part of `rules`): every rule on the AHU-year at 1
/// minute through the sandbox (the store read and grid, wasm, every rule), with where the time
/// goes. Alone, it is what a profiler is pointed at.
fn sandbox_year(reg: &Registry) {
    let YearStore { store, year: e, configs, .. } = year_store();
    // a fresh context opens the store afresh: nothing of the facility is kept from before
    let fresh = || {
        let mut ctx = CallContext::new(store.path(), ["year".to_string()]);
        ctx.config_digest = configs.digest.clone();
        ctx.run_configs = configs.clone();
        ctx
    };
    let call = |ctx: &CallContext| {
        let t = Instant::now();
        reg.call("rule_run", &json!({"facility_id": "year"}), ctx).map(|_| t.elapsed())
    };
    // `CAMBER_BENCH_COUNT=1`: the call once to keep the facility's grid, then the engine alone
    // once and the call again once, each in a function of its own, and nothing more: an
    // instruction count that the machine's noise cannot move, with
    // `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*counted_*'`
    if std::env::var_os("CAMBER_BENCH_COUNT").is_some() {
        let ctx = fresh();
        if let Err(e) = call(&ctx) {
            println!("rule_run on the AHU-year at 1 minute: refused: {}", e.message);
            return;
        }
        counted_engine(&e);
        counted_sandbox(&call, &ctx);
        return;
    }
    let mut cold = Vec::new();
    for _ in 0..3 {
        match call(&fresh()) {
            Ok(d) => cold.push(d),
            Err(e) => {
                println!("rule_run on the AHU-year at 1 minute: refused: {}", e.message);
                return;
            }
        }
    }
    let ctx = fresh();
    let _ = call(&ctx);
    let n = std::env::var("CAMBER_BENCH_CALLS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let warm: Vec<Duration> = (0..n).filter_map(|_| call(&ctx).ok()).collect();
    let ((cold, _, _), (warm, _, _)) = (stats(cold), stats(warm));
    println!(
        "rule_run on one AHU-year at 1 minute through the sandbox (every rule): first call on the facility (store read and grid) median of 3 {}; again on the unchanged facility (its grid kept) median of {n} {}",
        ms(cold),
        ms(warm)
    );
    // the issue's ratio, robust to a machine whose speed drifts: the engine alone in this
    // process and the call again, in turns, compared turn by turn
    let pairs: usize = std::env::var("CAMBER_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    if pairs > 0 {
        let (mut native, mut sandboxed, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..pairs {
            let (a, _) = engine_year(&e);
            let Ok(b) = call(&ctx) else { break };
            ratios.push(b.as_secs_f64() / a.as_secs_f64());
            native.push(a);
            sandboxed.push(b);
        }
        ratios.sort_by(f64::total_cmp);
        // the fastest of each: on a machine whose slow-downs only add time, the least disturbed
        let fastest = |v: &[Duration]| v.iter().min().copied().unwrap_or_default();
        let (a_min, b_min) = (fastest(&native), fastest(&sandboxed));
        let ((a, _, _), (b, _, _)) = (stats(native), stats(sandboxed));
        println!(
            "  in turns, {pairs} of each: the engine alone median {}, through the sandbox median {}; ratio per turn median {:.2} x (range {:.2}-{:.2}); fastest of each {} and {}, {:.2} x",
            ms(a),
            ms(b),
            ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN),
            ratios.first().copied().unwrap_or(f64::NAN),
            ratios.last().copied().unwrap_or(f64::NAN),
            ms(a_min),
            ms(b_min),
            b_min.as_secs_f64() / a_min.as_secs_f64()
        );
    }
    // where one call again on the facility spends its time, step by step (the pipeline's steps,
    // the sandbox, the guest with the host functions it calls inside it)
    let (_, steps) = camber_runtime::profile::record(|| call(&ctx));
    let mut by_step: Vec<(&str, Duration)> = Vec::new();
    for (name, d) in steps {
        match by_step.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => *t += d,
            None => by_step.push((name, d)),
        }
    }
    by_step.sort_by_key(|s| std::cmp::Reverse(s.1));
    let listed: Vec<String> = by_step.iter().take(8).map(|(n, d)| format!("{n} {}", ms(*d))).collect();
    println!("  one call again, its steps: {}", listed.join("; "));
    // where that time goes: the host's read and grid alone, and the answer's size
    let mut v = Vec::new();
    let mut grid_bytes = 0;
    for _ in 0..3 {
        let dir = camber_store::StoreDir::open(store.path()).unwrap();
        let t = Instant::now();
        let g = dir.read_grid("year", &[], None, None, 60_000_000_000).unwrap();
        v.push(t.elapsed());
        assert_eq!(g.len(), 1);
        grid_bytes = g.iter().map(|f| f.frame.values.iter().map(|c| c.len() * 8).sum::<usize>()).sum();
    }
    let (read, _, _) = stats(v);
    let answer = reg.call("rule_run", &json!({"facility_id": "year"}), &ctx).map(|r| r.data.to_string().len());
    // `CAMBER_BENCH_ANSWER=FILE`: every finding of the run (ok ones too) written out, so that a
    // change meant only to be faster can be shown to answer the same
    if let Some(path) = std::env::var_os("CAMBER_BENCH_ANSWER") {
        let all = json!({"facility_id": "year", "min_severity": "ok", "limit": 1000});
        match reg.call("rule_run", &all, &ctx) {
            Ok(r) => std::fs::write(&path, serde_json::to_string_pretty(&r.data).unwrap()).unwrap(),
            Err(e) => println!("CAMBER_BENCH_ANSWER: refused: {}", e.message),
        }
    }
    println!(
        "  of which the host's store read and 1-minute grid alone: median of 3 {}; the grid's values {} MiB; the answer's data {} KiB",
        ms(read),
        grid_bytes >> 20,
        answer.map_or(0, |b| b / 1024)
    );
}

/// `camber-bench sandbox-year-processes`: the issue's ratio over several processes. Within one
/// process the turns agree closely, but on this machine the engine alone moves by up to 8 %
/// from one process to the next, so one process's ratio says little about a 3 % change. Runs
/// `sandbox-year` in `CAMBER_BENCH_PROCESSES` fresh processes (7 by default; each with
/// `CAMBER_BENCH_PAIRS` turns, 12 by default, and the memo of results off) and gives each
/// one's medians and the median of their ratios.
fn sandbox_year_processes() {
    let n: usize = std::env::var("CAMBER_BENCH_PROCESSES").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let pairs = std::env::var("CAMBER_BENCH_PAIRS").unwrap_or_else(|_| "12".into());
    let Ok(exe) = std::env::current_exe() else {
        println!("sandbox-year-processes: cannot find this executable");
        return;
    };
    // the number after `label` in `line` (the medians `sandbox-year` prints)
    let after = |line: &str, label: &str| -> Option<f64> {
        let rest = &line[line.find(label)? + label.len()..];
        rest.split(|c: char| !(c.is_ascii_digit() || c == '.')).next()?.parse().ok()
    };
    println!("sandbox-year in {n} processes, {pairs} turns each:\n\n| process | engine alone | through the sandbox | ratio per turn |\n|---|---|---|---|");
    let mut rows: Vec<(f64, f64, f64)> = Vec::new();
    for k in 1..=n {
        let out = std::process::Command::new(&exe)
            .arg("sandbox-year")
            .env("CAMBER_BENCH_PAIRS", &pairs)
            .env("CAMBER_MEMO_MB", "0")
            .output();
        let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
        let Some(line) = text.lines().find(|l| l.contains("in turns")) else {
            println!("| {k} | no turns: {} | | |", text.lines().last().unwrap_or("no output"));
            continue;
        };
        let got = (
            after(line, "the engine alone median "),
            after(line, "through the sandbox median "),
            after(line, "ratio per turn median "),
        );
        if let (Some(a), Some(b), Some(r)) = got {
            println!("| {k} | {a:.2} ms | {b:.2} ms | {r:.2} x |");
            rows.push((a, b, r));
        }
    }
    if rows.is_empty() {
        return;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let m = v.len() / 2;
        if v.len() % 2 == 1 {
            v[m]
        } else {
            (v[m - 1] + v[m]) / 2.0
        }
    };
    let ratios: Vec<f64> = rows.iter().map(|r| r.2).collect();
    let under = ratios.iter().filter(|r| **r < 1.5).count();
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| (l.min(*r), h.max(*r)));
    println!(
        "\nmedians of the processes: the engine alone {:.2} ms, through the sandbox {:.2} ms, ratio {:.3} x (range {lo:.2}-{hi:.2}); under 1.5 x in {under} of {}",
        median(rows.iter().map(|r| r.0).collect()),
        median(rows.iter().map(|r| r.1).collect()),
        median(ratios),
        rows.len()
    );
}

/// `camber-bench sandbox-year-rules`: where the sandbox's year pays more than the engine's, rule
/// by rule. Each rule alone on the AHU-year at 1 minute, natively and through the sandbox, in
/// turns (`CAMBER_BENCH_PAIRS`, 5 by default), less a rule that judges nothing on an air handler
/// (what every run pays: the read, the trust scores, the answer); listed by how far each rule's
/// own time through the sandbox is past 1.5 times its engine time. `CAMBER_BENCH_BASELINE_ONLY`
/// times the rule that judges nothing and stops: what a profiler is pointed at to see the fixed
/// cost of a run.
fn sandbox_year_rules(reg: &Registry) {
    use camber_analytics::run::{run, RunRequest};
    let YearStore { store, year: e, configs, .. } = year_store();
    let mut ctx = CallContext::new(store.path(), ["year".to_string()]);
    ctx.config_digest = configs.digest.clone();
    ctx.run_configs = configs.clone();
    let cfg = year_engine_config();
    let pairs: usize = std::env::var("CAMBER_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let turns = |rule: &str| -> Option<(Duration, Duration)> {
        let req = RunRequest { rules: Some(vec![rule.to_string()]), min_trust: 0.5, ..Default::default() };
        let args = json!({"facility_id": "year", "rules": [rule]});
        let (mut native, mut sandboxed) = (Vec::new(), Vec::new());
        for _ in 0..pairs {
            let t = Instant::now();
            run(&cfg, &req, std::slice::from_ref(&e), &[]).ok()?;
            native.push(t.elapsed());
            let t = Instant::now();
            reg.call("rule_run", &args, &ctx).ok()?;
            sandboxed.push(t.elapsed());
        }
        Some((stats(native).0, stats(sandboxed).0))
    };
    let baseline = "boiler_short_cycle";
    let _ = turns(baseline); // the grid kept, the component compiled
    let Some((n0, s0)) = turns(baseline) else {
        println!("sandbox-year-rules: the baseline rule was refused");
        return;
    };
    println!("every run (the baseline, {baseline}): the engine {}, through the sandbox {}", ms(n0), ms(s0));
    if std::env::var_os("CAMBER_BENCH_BASELINE_ONLY").is_some() {
        return;
    }
    let mut rows: Vec<(f64, f64, &str)> = Vec::new();
    for rule in camber_analytics::rules::all() {
        let spec = (rule.spec)();
        if spec.id == baseline {
            continue;
        }
        if let Some((n, s)) = turns(spec.id) {
            let own = |d: Duration, base: Duration| (d.as_secs_f64() - base.as_secs_f64()) * 1e3;
            rows.push((own(n, n0), own(s, s0), spec.id));
        }
    }
    rows.sort_by(|a, b| (b.1 - 1.5 * b.0).total_cmp(&(a.1 - 1.5 * a.0)));
    println!("{:<34} {:>10} {:>10} {:>7} {:>11}", "rule (its own time)", "engine", "sandbox", "ratio", "past 1.5 x");
    for (n, s, id) in rows.iter().filter(|r| r.0.abs() > 0.2 || r.1.abs() > 0.2) {
        println!("{id:<34} {n:>8.2} ms {s:>8.2} ms {:>6.2}x {:>8.2} ms", s / n, s - 1.5 * n);
    }
    let (tn, ts): (f64, f64) = rows.iter().fold((0.0, 0.0), |(a, b), r| (a + r.0, b + r.1));
    println!("the rules' own time summed: the engine {tn:.1} ms, through the sandbox {ts:.1} ms ({:.2} x)", ts / tn);
}

/// The reference toolkit's synthetic datasets: generated on this machine, so the side by side
/// runs offline.
const REFERENCE_SYNTHETIC: &[&str] = &[
    "synthetic-g36-vav-fleet",
    "synthetic-g36-rcx-chains",
    "synthetic-ahu-excess-oa",
    "synthetic-ahu-sensor-bias",
    "synthetic-ahu-maintenance",
    "synthetic-hw-plant-lockout",
    "synthetic-hw-plant-cycling",
    "synthetic-heat-pump",
    "synthetic-chw-plant-staging",
    "synthetic-chw-plant-multi",
];

/// Detection against the labels: (true positives, false negatives, false alarms, true
/// negatives) over the labelled equipment; an equipment is flagged when a warn or fault
/// finding of `rules` (all when `None`) names it.
fn confusion(
    findings: &[(String, String, String)],
    labels: &serde_json::Map<String, serde_json::Value>,
    rules: Option<&[String]>,
) -> ([usize; 4], Vec<String>) {
    let mut c = [0; 4];
    let mut alarms = Vec::new();
    for (equip, label) in labels {
        let faulty = label.as_str().is_some_and(|l| !l.is_empty());
        let fired: Vec<&str> = findings
            .iter()
            .filter(|(r, e, sev)| {
                e == equip && (sev == "warn" || sev == "fault") && rules.is_none_or(|rs| rs.contains(r))
            })
            .map(|(r, _, _)| r.as_str())
            .collect();
        let i = match (faulty, !fired.is_empty()) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        if i == 2 {
            alarms.push(format!("{equip} ({})", fired.join(", ")));
        }
        c[i] += 1;
    }
    (c, alarms)
}

/// Side by side with the reference on its own synthetic datasets, in one store it writes:
/// its rule_run with each dataset's template against ours with the packaged template, and
/// detection against the labels.
fn reference_benchmarks() {
    let store = camber_tests::target_dir().join("camber-refstore");
    let downloads = camber_tests::target_dir().join("camber-refdata");
    let entries = |s: &std::path::Path| -> serde_json::Value {
        std::fs::read_to_string(s.join("_facilities.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(json!({}))
    };
    for id in REFERENCE_SYNTHETIC {
        if entries(&store).get(format!("ds-{id}")).is_none() {
            let t = Instant::now();
            camber_tests::reference(&["write", store.to_str().unwrap(), downloads.to_str().unwrap(), id]);
            eprintln!("the reference generated and ingested {id} in {}", ms(t.elapsed()));
        }
    }
    let reg = registry_from(&[components_dir()]).unwrap();
    let fids: Vec<String> = REFERENCE_SYNTHETIC.iter().map(|id| format!("ds-{id}")).collect();
    let ctx = CallContext::new(&store, fids.clone());
    // the rules both have (the reference refuses a config naming one it lacks)
    let built: Vec<String> = camber_analytics::rules::all()
        .iter()
        .map(|r| (r.spec)().id.to_string())
        .filter(|id| !camber_analytics::config::CAMBER_ONLY_RULES.contains(&id.as_str()))
        .collect();
    println!("| dataset | labelled (faulty / healthy) | reference: `datasets score` | reference: its template | reference, time | reference: the rules built here | camber: scored suite | camber: packaged template | camber, time |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (id, fid) in REFERENCE_SYNTHETIC.iter().zip(&fids) {
        let theirs = camber_tests::reference(&["rule_run", store.to_str().unwrap(), fid, id]);
        let labels = theirs["labels"].as_object().cloned().unwrap_or_default();
        let their_findings = triples_of(&theirs["findings"]);
        let template: Vec<String> =
            theirs["rules"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
        let shared: Vec<String> = template.iter().filter(|r| built.contains(r)).cloned().collect();
        let args = json!({"facility_id": fid, "limit": 1000});
        let mut times = Vec::new();
        let mut ours = None;
        for _ in 0..5 {
            let t = Instant::now();
            let r = reg.call("rule_run", &args, &ctx).unwrap();
            times.push(t.elapsed());
            ours = Some(r);
        }
        let ours = ours.unwrap();
        let (p50, _, _) = stats(times);
        let our_findings = triples_of(&ours.data["findings"]);
        let (all, _) = confusion(&their_findings, &labels, None);
        let (fw, fw_alarms) = confusion(&their_findings, &labels, Some(&shared));
        let (us_, our_alarms) = confusion(&our_findings, &labels, None);
        let official = camber_tests::reference(&["score", store.to_str().unwrap(), id]);
        // the scored suite: the rules the labels target, as `datasets score` counts them
        let suite: Option<Vec<String>> =
            official["suite"].as_array().map(|a| a.iter().filter_map(|r| r.as_str().map(str::to_string)).collect());
        let (scored, scored_alarms) = confusion(&our_findings, &labels, suite.as_deref());
        let faulty = labels.values().filter(|l| l.as_str().is_some_and(|l| !l.is_empty())).count();
        let cell = |c: [usize; 4]| format!("{}/{} found, {} false alarms", c[0], c[0] + c[1], c[2]);
        let o = &official["overall"];
        let n = |k: &str| o[k].as_u64().unwrap_or(0) as usize;
        println!(
            "| {id} | {faulty} / {} | {} | {} ({} rules) | {:.1} s | {} ({}) | {} | {} | {} |",
            labels.len() - faulty,
            cell([n("tp"), n("fn"), n("fp"), n("tn")]),
            cell(all),
            template.len(),
            theirs["seconds"].as_f64().unwrap_or(f64::NAN),
            cell(fw),
            if shared.is_empty() { "none".to_string() } else { shared.join(", ") },
            cell(scored),
            cell(us_),
            ms(p50)
        );
        if !fw_alarms.is_empty() || !our_alarms.is_empty() || !scored_alarms.is_empty() {
            println!(
                "|   false alarms | | | | | {} | {} | {} | |",
                fw_alarms.join("; "),
                scored_alarms.join("; "),
                our_alarms.join("; ")
            );
        }
    }

    // the same run config through both: every rule built here on the G36 fleet's 56 equipment
    let fid = "ds-synthetic-g36-vav-fleet";
    let cfg_dir = tempfile::tempdir().unwrap();
    let cfg = cfg_dir.path().join("first-wave.json");
    let config = json!({"source": {"kind": "store", "store": store, "facility_id": fid}, "resample": "1h",
        "equipment": [{"class": "AHU"}, {"class": "VAV"}], "rules": built});
    std::fs::write(&cfg, config.to_string()).unwrap();
    let theirs = camber_tests::reference(&[
        "rule_run",
        store.to_str().unwrap(),
        fid,
        "synthetic-g36-vav-fleet",
        cfg.to_str().unwrap(),
    ]);
    let mut ctx = CallContext::new(&store, [fid.to_string()]);
    let configs = camber_registry::runconfig::RunConfigs::load(&[cfg]).unwrap();
    ctx.config_digest = configs.digest.clone();
    ctx.run_configs = std::sync::Arc::new(configs);
    let args = json!({"facility_id": fid, "limit": 1000});
    let first = Instant::now();
    let ours = reg.call("rule_run", &args, &ctx).unwrap();
    let first = first.elapsed();
    let mut v = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        reg.call("rule_run", &args, &ctx).unwrap();
        v.push(t.elapsed());
    }
    let (p50, _, _) = stats(v);
    let fired = |fs: &[(String, String, String)]| -> std::collections::BTreeSet<(String, String)> {
        fs.iter().filter(|f| f.2 == "warn" || f.2 == "fault").map(|f| (f.0.clone(), f.1.clone())).collect()
    };
    let (a, b) = (fired(&triples_of(&theirs["findings"])), fired(&triples_of(&ours.data["findings"])));
    println!(
        "rule_run, the {} rules built here on {fid} ({} equipment, 1 h): reference {:.1} s; camber first {}, median of 10 {}; warn/fault findings: reference {}, camber {}, in both {}",
        built.len(),
        ours.data["run"]["equipment"],
        theirs["seconds"].as_f64().unwrap_or(f64::NAN),
        ms(first),
        ms(p50),
        a.len(),
        b.len(),
        a.intersection(&b).count()
    );
    for x in a.symmetric_difference(&b) {
        println!("  only in {}: {} on {}", if a.contains(x) { "the reference" } else { "camber" }, x.0, x.1);
    }
    drift_benchmarks(&reg, &store);
    rcx_benchmarks(&reg, &store);
}

/// `rcx_report` side by side with the reference on its cause-chain fleet and its sensor-bias
/// building, and `camber report` (the page with its charts) timed as a person runs it.
fn rcx_benchmarks(reg: &camber_registry::Registry, store: &std::path::Path) {
    for (fid, id) in [
        ("ds-synthetic-g36-rcx-chains", "synthetic-g36-rcx-chains"),
        ("ds-synthetic-ahu-sensor-bias", "synthetic-ahu-sensor-bias"),
    ] {
        let theirs = camber_tests::reference(&["rcx", store.to_str().unwrap(), fid, id]);
        let ctx = CallContext::new(store, [fid.to_string()]);
        let args = json!({"facility_id": fid});
        let first = Instant::now();
        let ours = reg.call("rcx_report", &args, &ctx).unwrap();
        let first = first.elapsed();
        let mut times = Vec::new();
        for _ in 0..10 {
            let t = Instant::now();
            reg.call("rcx_report", &args, &ctx).unwrap();
            times.push(t.elapsed());
        }
        let (p50, _, _) = stats(times);
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_array().into_iter().flatten().filter_map(|i| i["key"].as_str().map(str::to_string)).collect()
        };
        let costs = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .map(|i| i["annual_cost_usd"].as_f64().map_or("-".into(), |c| format!("{c:.2}")))
                .collect()
        };
        println!(
            "rcx_report {fid}: reference {:.1} s, issues {:?}, costs {:?}; camber first {}, median of 10 {}, issues {:?}, costs {:?}",
            theirs["seconds"].as_f64().unwrap_or(f64::NAN),
            keys(&theirs["issues"]),
            costs(&theirs["issues"]),
            ms(first),
            ms(p50),
            keys(&ours.data["issues"]),
            costs(&ours.data["issues"])
        );
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("report.html");
        let mut runs = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let out = Command::new(camber_tests::target_dir().join("release").join("camber"))
                .args(["report", fid, "--store"])
                .arg(store)
                .arg("--out")
                .arg(&page)
                .env("CAMBER_CACHE_DIR", camber_tests::target_dir().join("camber-cwasm-cache-release"))
                .output()
                .unwrap();
            runs.push(t.elapsed());
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let (p50, _, _) = stats(runs);
        let size = std::fs::metadata(&page).map_or(0, |m| m.len());
        println!(
            "  camber report {fid} (the whole command: registry load, rcx_report, each chart's finding_detail and trend, the page): median of 3 {}, {} KiB",
            ms(p50),
            size / 1024
        );
    }
}

/// An evidence chart of a year at 15 minutes (two temperatures with daily swings and noise, a
/// valve, a fan status, 100 flagged spans), 1,000 x 400: the SVG alone, and SVG to PNG.
fn chart_benchmark() {
    use camber_report::{chart, Chart, Series};
    const Q: i64 = 900_000_000_000;
    let n = 365 * 96;
    let tau = 2.0 * std::f64::consts::PI;
    let noise = |i: i64| ((i * 7919 % 1000) as f64 / 1000.0 - 0.5) * 1.5;
    let day = |i: i64| tau * (i % 96) as f64 / 96.0;
    let season = |i: i64| 6.0 * (tau * i as f64 / n as f64).sin();
    let series = |role: &str, f: &dyn Fn(i64) -> f64| Series {
        role: role.into(),
        ts: (0..n).map(|i| 1_735_689_600_000_000_000 + i * Q).collect(),
        values: (0..n).map(f).collect(),
    };
    let c = Chart {
        title: "leaking_valve@AHU-1: with both valves shut the cooling coil still changes the air".into(),
        series: vec![
            series("supply_air_temp", &|i| 58.0 + 6.0 * day(i).sin() + season(i) + noise(i)),
            series("mixed_air_temp", &|i| 66.0 + 5.0 * day(i).cos() + season(i) + noise(i + 3)),
            series("cool_valve", &|i| (40.0 * day(i).sin() + season(i) * 3.0).max(0.0)),
            series("supply_fan_status", &|i| if (24..72).contains(&(i % 96)) { 1.0 } else { 0.0 }),
        ],
        spans: (0..100)
            .map(|k| (1_735_689_600_000_000_000 + k * 350 * Q, 1_735_689_600_000_000_000 + (k * 350 + 20) * Q))
            .collect(),
    };
    let mut svg_t = Vec::new();
    let mut png_t = Vec::new();
    let (mut svg_len, mut png_len) = (0, 0);
    for _ in 0..20 {
        let t = Instant::now();
        let s = chart::svg(&c, 1000.0, 400.0);
        svg_t.push(t.elapsed());
        let p = chart::png(&s).unwrap();
        png_t.push(t.elapsed());
        (svg_len, png_len) = (s.len(), p.len());
    }
    println!(
        "evidence chart, a year at 15 minutes (4 roles, {n} samples each), 1,000 x 400: SVG median of 20 {} ({} KiB), SVG + PNG {} ({} KiB)",
        ms(stats(svg_t).0),
        svg_len / 1024,
        ms(stats(png_t).0),
        png_len / 1024
    );
    // finding_detail on the reference's G36 cause-chain store, with its chart and without
    let (store, fid) = mcp::reference_store();
    let reg = registry_from(&[components_dir()]).unwrap();
    let ctx = CallContext::new(&store, [fid.clone()]);
    let report = reg.call("rcx_report", &json!({"facility_id": fid}), &ctx).unwrap();
    for issue in report.data["issues"].as_array().into_iter().flatten().take(3) {
        let Some(finding) = issue["finding_ids"][0].as_str() else { continue };
        let mut line = format!("finding_detail {finding} on {fid}:");
        for image in [true, false] {
            let a = json!({"facility_id": fid, "finding_id": finding, "image": image});
            let r = reg.call("finding_detail", &a, &ctx).unwrap();
            let mut times = Vec::new();
            for _ in 0..10 {
                let t = Instant::now();
                reg.call("finding_detail", &a, &ctx).unwrap();
                times.push(t.elapsed());
            }
            let kib = r.images.iter().map(|i| i.data.len() * 3 / 4).sum::<usize>() / 1024;
            line.push_str(&if image {
                format!(" with its chart ({kib} KiB PNG) median of 10 {},", ms(stats(times).0))
            } else {
                format!(" without {}", ms(stats(times).0))
            });
        }
        println!("{line}");
    }
    // rcx_report with every ranked issue's chart (run with CAMBER_MEMO_MB=0, or each call after
    // the first reuses the drawn charts)
    let mut line = format!("rcx_report on {fid}:");
    for images in [true, false] {
        let a = json!({"facility_id": fid, "images": images});
        let r = reg.call("rcx_report", &a, &ctx).unwrap();
        let times: Vec<Duration> = (0..5)
            .map(|_| {
                let t = Instant::now();
                reg.call("rcx_report", &a, &ctx).unwrap();
                t.elapsed()
            })
            .collect();
        line.push_str(&if images {
            format!(" with its {} charts median of 5 {},", r.images.len(), ms(stats(times).0))
        } else {
            format!(" without {}", ms(stats(times).0))
        });
    }
    println!("{line}");
}

/// The M&V engine on two years of hourly data (one meter: a 5P signature against a seasonal
/// outdoor air, cut 12 % in the second year): baseline, savings and the 90 % band, engine only.
fn mv_benchmark() {
    use camber_analytics::mv::{self, Meter, MvSection};
    const H: i64 = 3_600_000_000_000;
    let n = 2 * 365 * 24;
    let t0 = 19_358 * 24 * H; // 2023-01-01
    let ts: Vec<i64> = (0..n as i64).map(|i| t0 + i * H).collect();
    let tau = 2.0 * std::f64::consts::PI;
    let oat: Vec<f64> = (0..n)
        .map(|i| 55.0 - 22.0 * (tau * i as f64 / 24.0 / 365.0).cos() + 8.0 * (tau * (i % 24) as f64 / 24.0).sin())
        .collect();
    let rate: Vec<f64> = oat
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let base = 100.0 + 2.0 * (47.0 - t).max(0.0) + 3.0 * (t - 66.0).max(0.0);
            let cut = if i >= 365 * 24 { 0.88 } else { 1.0 };
            base * cut * (1.0 + 0.03 * ((i * 7919 % 101) as f64 / 101.0 - 0.5))
        })
        .collect();
    let frame = camber_analytics::Frame::from_rows(&ts, &[("energy_rate", rate), ("oat", oat)]);
    let entry = json!([{"class": "METER", "period": ["2023-01-01", "2023-12-31"],
                        "reporting_period": ["2024-01-01", "2024-12-30"], "method": "forecast"}]);
    let section = MvSection::from_value(Some(&entry)).unwrap().unwrap();
    let meters = [Meter { name: "M-1", class: "METER", frame: &frame }];
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..20 {
        let t = Instant::now();
        out = Some(mv::run(&section, &meters, None));
        times.push(t.elapsed());
    }
    let (p50, _, _) = stats(times);
    let out = out.unwrap();
    let saving =
        out.results.iter().find(|r| r.kind == "mv_savings").map_or("none".to_string(), |r| r.finding.summary.clone());
    println!(
        "mv: two years of hourly data (17,520 rows) through baseline, savings and the 90 % band, engine only: median of 20 {}; {saving}",
        ms(p50)
    );
}

/// `drift` side by side with the reference: a one-week baseline window on the G36 cause-chain
/// fleet (the issue's speed target), and the chilled-water multi plant's template drift section
/// (its tower family against the known-good twin), each unit at warn or worse against the labels.
fn drift_benchmarks(reg: &camber_registry::Registry, store: &std::path::Path) {
    let cases: [(&str, &str, serde_json::Value); 2] = [
        ("ds-synthetic-g36-rcx-chains", "synthetic-g36-rcx-chains", json!({"baseline": ["2025-04-28", "2025-05-04"]})),
        ("ds-synthetic-chw-plant-multi", "synthetic-chw-plant-multi", json!({})),
    ];
    for (fid, id, args) in cases {
        let theirs = camber_tests::reference(&["drift", store.to_str().unwrap(), fid, id, &args.to_string()]);
        let ctx = CallContext::new(store, [fid.to_string()]);
        let mut call_args = args.clone();
        call_args["facility_id"] = json!(fid);
        call_args["limit"] = json!(1000);
        let mut times = Vec::new();
        let mut ours = None;
        for _ in 0..10 {
            let t = Instant::now();
            ours = Some(reg.call("drift", &call_args, &ctx));
            times.push(t.elapsed());
        }
        let (p50, _, _) = stats(times);
        let labels = theirs["labels"].as_object().cloned().unwrap_or_default();
        let flagged = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter(|f| matches!(f["severity"].as_str(), Some("warn" | "fault")))
                .filter_map(|f| f["equip"].as_str().map(str::to_string))
                .collect()
        };
        let score = |units: &std::collections::BTreeSet<String>| {
            let faulty: Vec<&String> =
                labels.iter().filter(|(_, l)| l.as_str().is_some_and(|l| !l.is_empty())).map(|(k, _)| k).collect();
            let found = faulty.iter().filter(|u| units.contains(**u)).count();
            let alarms: Vec<&String> =
                units.iter().filter(|u| labels.get(*u).and_then(|l| l.as_str()) == Some("")).collect();
            format!(
                "{found} of {} labelled units at warn or worse, {} on healthy units{}",
                faulty.len(),
                alarms.len(),
                if alarms.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", alarms.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(", "))
                }
            )
        };
        match ours {
            Some(Ok(r)) => println!(
                "drift {fid} {}: reference {:.2} s, {} finding(s), {}; camber median of 10 {}, {} finding(s), {} unevaluated, {}",
                if args.get("baseline").is_some() { "with a one-week baseline" } else { "with its template's drift section" },
                theirs["seconds"].as_f64().unwrap_or(f64::NAN),
                theirs["findings"].as_array().map_or(0, Vec::len),
                score(&flagged(&theirs["findings"])),
                ms(p50),
                r.data["n_findings"],
                r.data["n_unevaluated"],
                score(&flagged(&r.data["findings"]))
            ),
            Some(Err(e)) => println!("drift {fid}: camber refused: {}", e.message),
            None => {}
        }
    }
}

/// `(rule, equip, severity)` of a findings list; a fleet finding stands for each unit it
/// implicates (its `equips`) as well.
fn triples_of(v: &serde_json::Value) -> Vec<(String, String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            let one = |equip: &str| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    equip.to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                )
            };
            let mut out = vec![one(f["equip"].as_str().unwrap())];
            out.extend(f["equips"].as_array().into_iter().flatten().filter_map(|e| e.as_str()).map(one));
            out
        })
        .collect()
}

/// `camber-bench languages`: capabilities written in Python (componentize-py) and JavaScript
/// (componentize-js), each language's template beside the shipped Rust ones: the compile, the
/// load from the cache, a warm process start with them, the warm call through the pipeline
/// and what they cost in memory.
fn language_benchmarks(calls_only: bool) {
    println!("camber-bench languages ({} build)", if cfg!(debug_assertions) { "debug" } else { "release" });
    let dirs = [camber_tests::python_components_dir(), camber_tests::js_components_dir()];
    if calls_only {
        return language_calls(&dirs);
    }
    for (lang, wasm) in
        [("python", dirs[0].join("_cap_py_template.wasm")), ("js", dirs[1].join("_cap_js_template.wasm"))]
    {
        let size = std::fs::metadata(&wasm).map(|m| m.len()).unwrap_or(0);
        println!("{lang} template component: {} on disk", mib(size));
        let rt = Runtime::new(RuntimeConfig { cache_dir: None, ..RuntimeConfig::default() }).unwrap();
        let t = Instant::now();
        let c = rt.load_component(&wasm).unwrap();
        println!("  compile (no cache): {}", ms(t.elapsed()));
        let cwasm = c.serialize().map(|b| b.len() as u64).unwrap_or(0);
        println!("  compiled (.cwasm): {}", mib(cwasm));
        drop(rt);
        let cache = tempfile::tempdir().unwrap();
        let config = || RuntimeConfig { cache_dir: Some(cache.path().to_path_buf()), ..RuntimeConfig::default() };
        Runtime::new(config()).unwrap().load_component(&wasm).unwrap();
        let mut loads = Vec::new();
        for _ in 0..10 {
            let rt = Runtime::new(config()).unwrap();
            let t = Instant::now();
            let c = rt.load_component(&wasm).unwrap();
            let pre = rt.pre_instantiate(&c, lang).unwrap();
            rt.describe(&pre).unwrap();
            loads.push(t.elapsed());
        }
        let (p50, _, _) = stats(loads);
        println!("  warm load (deserialize .cwasm, pre-instantiate, describe), 10 runs: median {}", ms(p50));
    }

    let bin = camber_bin();
    let shared = camber_tests::cache_dir();
    let start = |with: &[std::path::PathBuf]| {
        let mut c = Command::new(&bin);
        c.arg("capabilities").env("CAMBER_CACHE_DIR", &shared);
        for d in with {
            c.arg("--capabilities").arg(d);
        }
        c
    };
    for (label, with) in [
        ("shipped components", &dirs[..0]),
        ("shipped + python components", &dirs[..1]),
        ("shipped + js components", &dirs[1..]),
    ] {
        let _ = start(with).output();
        let mut runs = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            assert!(start(with).output().unwrap().status.success());
            runs.push(t.elapsed());
        }
        let (p50, p90, _) = stats(runs);
        println!("warm start `camber capabilities` ({label}, 20 runs): median {}, p90 {}", ms(p50), ms(p90));
    }
    language_calls(&dirs);
}

/// The warm calls of `camber-bench languages` (alone: `camber-bench languages calls`, for a
/// profiler), each with where its time goes.
fn language_calls(dirs: &[std::path::PathBuf]) {
    let store = demo_store();
    let (_, rss0) = memory();
    let reg = registry_from(&[&[components_dir()], dirs].concat()).unwrap();
    let (_, rss1) = memory();
    let ctx = CallContext::new(store.path(), ["hq".to_string(), "annex".to_string()]);
    let mut rss = rss1;
    for (label, name, args) in [
        ("rust points {facility_id: hq}", "points", json!({"facility_id": "hq"})),
        ("python noop {} (the SDK, no store read)", "py_noop", json!({})),
        ("python template {facility_id: hq}", "py_template", json!({"facility_id": "hq"})),
        ("js noop {} (the SDK, no store read)", "js_noop", json!({})),
        ("js template {facility_id: hq}", "js_template", json!({"facility_id": "hq"})),
    ] {
        for _ in 0..100 {
            reg.call(name, &args, &ctx).unwrap();
        }
        let mut v = Vec::with_capacity(1000);
        for _ in 0..1000 {
            let t = Instant::now();
            reg.call(name, &args, &ctx).unwrap();
            v.push(t.elapsed());
        }
        let (p50, p90, p99) = stats(v);
        println!("call {label} in-process, 1000 calls: median {}, p90 {}, p99 {}", us(p50), us(p90), us(p99));
        rss = memory().1;
        // where it goes: the median of each step over 200 calls
        let mut steps: std::collections::BTreeMap<&str, Vec<Duration>> = Default::default();
        for _ in 0..200 {
            let (r, timed) = camber_runtime::profile::record(|| reg.call(name, &args, &ctx));
            r.unwrap();
            for (step, d) in timed {
                steps.entry(step).or_default().push(d);
            }
        }
        let keep = ["sandbox: a fresh store", "sandbox: instantiate", "guest (its store reads included)"];
        for (step, v) in steps.into_iter().filter(|(s, _)| keep.contains(s)) {
            println!("    {step}: median {}", us(stats(v).0));
        }
    }
    println!(
        "resident memory: {} before loading, {} after loading shipped + python + js, {} after the calls",
        mib(rss0),
        mib(rss1),
        mib(rss)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("reference") {
        println!("camber-bench reference ({} build)", if cfg!(debug_assertions) { "debug" } else { "release" });
        reference_benchmarks();
        return;
    }
    if args.get(1).map(String::as_str) == Some("rules-g36-year") {
        rules_year_of_child(false);
        return;
    }
    if args.get(1).map(String::as_str) == Some("rules-plant-year") {
        rules_year_of_child(true);
        return;
    }
    if args.get(1).map(String::as_str) == Some("sandbox-year-count") {
        count::sandbox_year_count();
        return;
    }
    if args.get(1).map(String::as_str) == Some("sandbox-year-processes") {
        sandbox_year_processes();
        return;
    }
    if args.get(1).map(String::as_str) == Some("sandbox-year-rules") {
        sandbox_year_rules(&registry_from(&[components_dir()]).unwrap());
        return;
    }
    if args.get(1).map(String::as_str) == Some("sandbox-year") {
        let reg = if std::env::var_os("CAMBER_BENCH_COUNT").is_some() {
            // one pool slot: valgrind cannot map the address space of sixteen
            let runtime = Runtime::new(RuntimeConfig { max_concurrent: 1, ..camber_tests::runtime_config() }).unwrap();
            Registry::load(runtime, &component_files(&[components_dir()])).unwrap()
        } else {
            registry_from(&[components_dir()]).unwrap()
        };
        sandbox_year(&reg);
        return;
    }
    if args.get(1).map(String::as_str) == Some("mcp") {
        mcp::mcp();
        return;
    }
    if args.get(1).map(String::as_str) == Some("charts") {
        chart_benchmark();
        return;
    }
    if args.get(1).map(String::as_str) == Some("languages") {
        language_benchmarks(args.get(2).map(String::as_str) == Some("calls"));
        return;
    }
    if args.get(1).map(String::as_str) == Some("objects") {
        let reg = registry_from(&[components_dir()]).unwrap();
        objects::run(&reg);
        objects::portfolio();
        return;
    }
    if args.get(1).map(String::as_str) == Some("replicas") {
        replicas::replicas();
        return;
    }
    if args.get(1).map(String::as_str) == Some("reload") {
        reload::reload();
        return;
    }
    if args.get(1).map(String::as_str) == Some("phases") {
        phases::phases();
        return;
    }
    if args.get(1).map(String::as_str) == Some("rules-year") {
        rules_year_child();
        return;
    }
    if args.get(1).map(String::as_str) == Some("rules") {
        println!("camber-bench rules ({} build)", if cfg!(debug_assertions) { "debug" } else { "release" });
        rules_benchmarks();
        return;
    }
    if args.get(1).map(String::as_str) == Some("read-frame") {
        read_frame_child(&args[2]);
        return;
    }
    println!("camber-bench ({} build)", if cfg!(debug_assertions) { "debug" } else { "release" });
    if args.get(1).map(String::as_str) == Some("store") {
        store_benchmarks();
        return;
    }
    if args.get(1).map(String::as_str) == Some("serve") {
        serve_benchmarks();
        return;
    }

    // cold compile: an empty cache
    let cold_cache = tempfile::tempdir().unwrap();
    let files = component_files(&[components_dir()]);
    let t0 = Instant::now();
    let rt =
        Runtime::new(RuntimeConfig { cache_dir: Some(cold_cache.path().to_path_buf()), ..RuntimeConfig::default() })
            .unwrap();
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
    let rt =
        Runtime::new(RuntimeConfig { cache_dir: Some(cold_cache.path().to_path_buf()), ..RuntimeConfig::default() })
            .unwrap();
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
    c.limits.max_seconds = 0.2;
    for _ in 0..10 {
        let t = Instant::now();
        let e = reg.call("spin", &json!({}), &c).unwrap_err();
        assert_eq!(e.code, camber_common::ErrorCode::Timeout);
        over.push(t.elapsed().saturating_sub(Duration::from_millis(200)));
    }
    let (p50, _, max) = stats(over);
    println!("spin stopped after its 200 ms deadline, 10 runs: median overshoot {}, worst {}", ms(p50), ms(max));
    store_benchmarks();
    serve_benchmarks();
}
