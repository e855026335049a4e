//! Replicas of `camber serve` over one bucket (moto's S3 server): an MCP task created on one
//! replica is seen, waited for, listed and cancelled on another, and a cancel taken by another
//! replica stops the call where it runs.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use camber_tests::s3::S3Server;
use camber_tests::{cache_dir, camber_bin, http};
use serde_json::{json, Value};

struct Replica {
    child: Child,
    addr: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn replica(s3: &S3Server, url: &str) -> Replica {
    let mut child = Command::new(camber_bin())
        .args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--no-auth", "--store", url])
        .env("CAMBER_CACHE_DIR", cache_dir())
        .env("CAMBER_CAPABILITIES", camber_tests::test_components_dir())
        .envs(s3.env())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (addr, _log) = camber_tests::serving_addr(child.stderr.take().unwrap());
    Replica { child, addr }
}

fn initialize(r: &Replica) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (st, hs, _) =
        http(&r.addr, "POST", "/mcp", &[("Content-Type", "application/json")], body.to_string().as_bytes());
    assert_eq!(st, 200);
    hs.iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v.clone()).expect("a session")
}

fn rpc(r: &Replica, sid: &str, msg: Value) -> Value {
    let h = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Session-Id", sid),
    ];
    let (st, _, body) = http(&r.addr, "POST", "/mcp", &h, msg.to_string().as_bytes());
    assert_eq!(st, 200, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

fn task_call(r: &Replica, sid: &str, ms: u64) -> String {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": ms}, "task": {}}});
    let v = rpc(r, sid, call);
    v["result"]["task"]["taskId"].as_str().unwrap_or_else(|| panic!("no task: {v}")).to_string()
}

fn tasks(r: &Replica, sid: &str, method: &str, task: &str) -> Value {
    rpc(r, sid, json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": {"taskId": task}}))
}

#[test]
fn a_task_made_on_one_replica_is_answered_and_cancelled_on_another() {
    let s3 = S3Server::start(&["camber-rep"]);
    let url = "s3://camber-rep/store";
    let out = Command::new(camber_bin())
        .args(["datasets", "ingest", "synthetic-chw-plant", "--store", url])
        .envs(s3.env())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (a, b) = (replica(&s3, url), replica(&s3, url));
    let (sa, sb) = (initialize(&a), initialize(&b));

    let task = task_call(&a, &sa, 1500);
    let got = tasks(&b, &sb, "tasks/get", &task);
    assert_eq!(got["result"]["taskId"], task.as_str(), "{got}");
    assert_eq!(got["result"]["status"], "working", "{got}");
    // tasks/result on the other replica waits for the end, then answers the call's result
    let r = tasks(&b, &sb, "tasks/result", &task);
    assert_eq!(r["result"]["structuredContent"]["slept_ms"], 1500, "{r}");
    assert_eq!(r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task.as_str());
    let listed = rpc(&b, &sb, json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/list"}));
    assert!(listed["result"]["tasks"].as_array().unwrap().iter().any(|t| t["taskId"] == task.as_str()), "{listed}");

    // a cancel taken by B stops the call A runs
    let long = task_call(&a, &sa, 30_000);
    let c = tasks(&b, &sb, "tasks/cancel", &long);
    assert_eq!(c["result"]["status"], "cancelled", "{c}");
    let t0 = Instant::now();
    loop {
        let g = tasks(&a, &sa, "tasks/get", &long);
        if g["result"]["status"] == "cancelled" {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "A never saw the cancel: {g}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = tasks(&a, &sa, "tasks/result", &long);
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(t0.elapsed() < Duration::from_secs(10), "the cancelled call stopped well before its 30 s");
    // an unknown task is not found on either
    let nf = tasks(&b, &sb, "tasks/get", "00ff");
    assert_eq!(nf["error"]["code"], -32602, "{nf}");
}
