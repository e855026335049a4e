//! `camber-bench mcp` (`cargo xtask bench mcp`): camber's `camber mcp` and the reference's, side
//! by side, as an assistant's client meets them: the official MCP Python SDK over stdio, one
//! persistent session each, on the reference's synthetic-g36-rcx-chains store with the
//! reference's own run template, the same calls repeated (`tests/clients/mcp_bench.py`).

use std::path::Path;
use std::process::Command;

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

fn cell(v: &Value) -> String {
    match (v["median_ms"].as_f64(), v["error"].as_str()) {
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
    println!(
        "camber mcp and the reference's (camber-toolkit), the official MCP Python client over stdio, {facility} with the reference's template; medians (calls that read no building data 50 times, the rest 5). camber twice: with its memo off (every call runs its guest) and as it serves (a call asked again on unchanged data reuses its guest's result):\n"
    );
    println!(
        "| call | reference | camber, memo off | camber | reference / camber, memo off | reference / camber | camber: the client's own work | camber: server and pipe |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let ping_ms = ours["ping_ms"].as_f64().unwrap_or(0.0);
    let ratio = |a: &Value, b: &Value| match (a["median_ms"].as_f64(), b["median_ms"].as_f64()) {
        (Some(x), Some(y)) if y > 0.0 => format!("{:.1}x", x / y),
        _ => "-".into(),
    };
    let row = |name: &str, a: &Value, c: &Value, b: &Value| {
        // the client's share of camber's call, timed apart on its answer (mcp_bench.py), and
        // what is left past it and the client's own round trip
        let (client, rest) = match (b["median_ms"].as_f64(), b["client_ms"].as_f64()) {
            (Some(total), Some(c)) => (
                format!("{} ({} KiB)", ms_text(c), b["bytes"].as_u64().unwrap_or(0) / 1024),
                ms_text((total - c - ping_ms).max(0.0)),
            ),
            _ => ("-".into(), "-".into()),
        };
        println!(
            "| {name} | {} | {} | {} | {} | {} | {client} | {rest} |",
            cell(a),
            cell(c),
            cell(b),
            ratio(a, c),
            ratio(a, b)
        );
    };
    let ping = |v: &Value| serde_json::json!({"median_ms": v["ping_ms"]});
    row("ping (the client's round trip)", &ping(&theirs), &ping(&computed), &ping(&ours));
    if let Some(calls) = ours["calls"].as_object() {
        for name in calls.keys() {
            row(name, &theirs["calls"][name], &computed["calls"][name], &ours["calls"][name]);
        }
    }
}
