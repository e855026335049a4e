//! `camber-bench mcp` (`cargo xtask bench mcp`): camber's `camber mcp` and the reference's, side
//! by side, as an assistant's client meets them: the official MCP Python SDK over stdio, one
//! persistent session each, on the reference's synthetic-g36-rcx-chains store with the
//! reference's own run template, the same calls repeated (`tests/clients/mcp_bench.py`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

const DATASET: &str = "synthetic-g36-rcx-chains";

/// Run the client against one server command; its JSON answer.
fn drive(python: &Path, facility: &str, server: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients").join("mcp_bench.py");
    let out = Command::new(python)
        .arg(script)
        .args([facility, "50", "5", "--"])
        .args(server)
        .output()
        .expect("the Python test environment runs");
    assert!(out.status.success(), "mcp_bench.py failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("mcp_bench.py prints JSON")
}

/// The calls that read no building data, repeated more often (as `mcp_bench.py`'s `CHEAP`).
const CHEAP: [&str; 5] = ["dataset_search", "dataset_entry", "check_citations", "rule_params", "facilities"];

/// Round trips of a bare JSON-RPC client (no SDK, nothing parsed but the answer's id): each
/// message written to the server's stdin, timed to the newline of its answer on stdout.
/// `ping` and each call of `args` (with the arguments the SDK's client used), medians in ms.
fn bare(server: &[&str], args: &serde_json::Map<String, Value>) -> BTreeMap<String, f64> {
    let mut child = Command::new(server[0])
        .args(&server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut id = 0u64;
    let mut ask = |method: &str, params: Value| -> f64 {
        id += 1;
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let want = format!("\"id\":{id},");
        let t = Instant::now();
        writeln!(stdin, "{msg}").and_then(|()| stdin.flush()).expect("the server reads");
        let mut line = String::new();
        loop {
            line.clear();
            assert!(out.read_line(&mut line).expect("the server answers") > 0, "the server closed its stdout");
            // a notification in between is not the answer
            if line.contains(&want) {
                break;
            }
        }
        t.elapsed().as_secs_f64() * 1e3
    };
    let init = serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "camber-bench", "version": "0"}});
    ask("initialize", init);
    let mut medians = BTreeMap::new();
    let mut median = |name: &str, method: &str, params: Value, rounds: usize| {
        ask(method, params.clone());
        let mut took: Vec<f64> = (0..rounds).map(|_| ask(method, params.clone())).collect();
        took.sort_by(f64::total_cmp);
        medians.insert(name.to_string(), took[rounds / 2]);
    };
    median("ping", "ping", serde_json::json!({}), 200);
    for (name, a) in args {
        let rounds = if CHEAP.contains(&name.as_str()) { 200 } else { 20 };
        median(name, "tools/call", serde_json::json!({"name": name, "arguments": a}), rounds);
    }
    drop(stdin);
    let _ = child.wait();
    medians
}

fn cell(v: &Value) -> String {
    match (v["median_ms"].as_f64(), v["error"].as_str()) {
        (Some(ms), _) if v["refused"].is_string() => format!("{} (refused)", ms_text(ms)),
        (Some(ms), _) => ms_text(ms),
        (None, Some(e)) => format!("refused: {}", e.chars().take(60).collect::<String>()),
        _ => "-".into(),
    }
}

/// Milliseconds as the table shows them.
fn ms_text(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}

/// The reference's store of its G36 cause-chain dataset (written by the reference once, then
/// kept in the target directory) and the facility's id.
pub fn reference_store() -> (std::path::PathBuf, String) {
    let store = camber_tests::target_dir().join("camber-refstore");
    let downloads = camber_tests::target_dir().join("camber-refdata");
    let facility = format!("ds-{DATASET}");
    let listed = std::fs::read_to_string(store.join("_facilities.json")).unwrap_or_default();
    if !listed.contains(&format!("\"{facility}\"")) {
        camber_tests::reference(&["write", store.to_str().unwrap(), downloads.to_str().unwrap(), DATASET]);
    }
    (store, facility)
}

/// The side-by-side table.
pub fn mcp() {
    let python = camber_tests::python();
    let (store, facility) = reference_store();
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("template.json");
    let reference_cli = python.with_file_name("camber");
    let made = Command::new(&reference_cli)
        .args(["datasets", "config", DATASET, "--store"])
        .arg(&store)
        .arg("--out")
        .arg(&template)
        .output()
        .expect("the reference's CLI runs");
    assert!(made.status.success(), "the reference's template: {}", String::from_utf8_lossy(&made.stderr));
    let (store, template) = (store.to_str().unwrap(), template.to_str().unwrap());
    let args = ["mcp", "--store", store, "--allow", &facility, "--config", template];
    let ours_bin = camber_tests::camber_bin();
    let mut ours_cmd = vec![ours_bin.to_str().unwrap()];
    ours_cmd.extend(args);
    let py = python.to_str().unwrap();
    let mut theirs_cmd = vec![py, "-c", "import sys; from camber.cli import main; sys.exit(main())"];
    theirs_cmd.extend(args);
    // the same server with its memo of guest results off: every call runs its guest
    // (host/registry/src/memo.rs); the client passes the server no environment of ours
    let mut computed_cmd = vec!["/usr/bin/env", "CAMBER_MEMO_MB=0"];
    computed_cmd.extend(&ours_cmd);
    let computed = drive(&python, &facility, &computed_cmd);
    let ours = drive(&python, &facility, &ours_cmd);
    let theirs = drive(&python, &facility, &theirs_cmd);
    let called = ours["args"].as_object().cloned().unwrap_or_default();
    let bare_ours = bare(&ours_cmd, &called);
    let bare_computed = bare(&computed_cmd, &called);
    println!(
        "camber mcp and the reference's (camber-toolkit), the official MCP Python client over stdio, {facility} with the reference's template; medians (calls that read no building data 50 times, the rest 5). camber twice: with its memo off (every call runs its guest) and as it serves (a call asked again on unchanged data reuses its guest's result). The last two columns are camber's round trips to a bare JSON-RPC client (no SDK: what the server and the pipe take), medians of 200 calls that read no building data and 20 of the rest:\n"
    );
    println!(
        "| call | reference | camber, memo off | camber | reference / camber, memo off | reference / camber | camber: the client's own work | camber, a bare client: memo off | camber, a bare client |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let ratio = |a: &Value, b: &Value| match (a["median_ms"].as_f64(), b["median_ms"].as_f64()) {
        (Some(x), Some(y)) if y > 0.0 => format!("{:.1}x", x / y),
        _ => "-".into(),
    };
    let bare_cell = |m: &BTreeMap<String, f64>, key: &str| m.get(key).map_or("-".into(), |ms| ms_text(*ms));
    let row = |name: &str, key: &str, a: &Value, c: &Value, b: &Value| {
        // the client's share of camber's call, timed apart on its answer (mcp_bench.py)
        let client = match b["client_ms"].as_f64() {
            Some(c) => format!("{} ({} KiB)", ms_text(c), b["bytes"].as_u64().unwrap_or(0) / 1024),
            None => "-".into(),
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {client} | {} | {} |",
            cell(a),
            cell(c),
            cell(b),
            ratio(a, c),
            ratio(a, b),
            bare_cell(&bare_computed, key),
            bare_cell(&bare_ours, key)
        );
    };
    let ping = |v: &Value| serde_json::json!({"median_ms": v["ping_ms"]});
    row("ping (the client's round trip)", "ping", &ping(&theirs), &ping(&computed), &ping(&ours));
    if let Some(calls) = ours["calls"].as_object() {
        for name in calls.keys() {
            row(name, name, &theirs["calls"][name], &computed["calls"][name], &ours["calls"][name]);
        }
    }
}
