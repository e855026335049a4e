//! Replicas of `camber serve` over one bucket (moto's S3 server): an MCP task created on one
//! replica is seen, waited for, listed and cancelled on another, and a cancel taken by another
//! replica stops the call where it runs; behind haproxy, 16 clients outlive a killed replica,
//! and a session that died with it is told so and made again.

use std::process::Command;
use std::time::{Duration, Instant};

use camber_tests::http;
use camber_tests::lb::{self, ingest, stateless_call, Replica};
use camber_tests::s3::S3Server;
use serde_json::{json, Value};

fn replica(s3: &S3Server, url: &str) -> Replica {
    Replica::start(s3, url, &[], None)
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
    ingest(&s3, url, "synthetic-chw-plant");
    let (a, b) = (replica(&s3, url), replica(&s3, url));
    let (sa, sb) = (initialize(&a), initialize(&b));

    let task = task_call(&a, &sa, 1500);
    let got = tasks(&b, &sb, "tasks/get", &task);
    assert_eq!(got["result"]["taskId"], task.as_str(), "{got}");
    assert_eq!(got["result"]["status"], "working", "{got}");
    // the call's progress reaches the other replica too (written at most once a second)
    let t0 = Instant::now();
    loop {
        let g = tasks(&b, &sb, "tasks/get", &task);
        if g["result"]["statusMessage"].as_str().is_some_and(|m| m.contains("ms of 1500")) {
            break;
        }
        assert!(g["result"]["status"] == "working" && t0.elapsed() < Duration::from_secs(5), "no progress on B: {g}");
        std::thread::sleep(Duration::from_millis(50));
    }
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

/// The HTTP status of a 2025-11-25 session's `tools/list` sent to `addr`.
fn session_status(addr: &str, sid: &str) -> u16 {
    let h = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Session-Id", sid),
    ];
    let msg = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"});
    http(addr, "POST", "/mcp", &h, msg.to_string().as_bytes()).0
}

/// A stateless `tools/call points` on the dataset's facility through `addr`.
fn stateless_points(addr: &str, id: u64) -> (u16, Value) {
    stateless_call(addr, "points", json!({"facility_id": "ds-synthetic-chw-plant"}), id)
}

#[test]
fn sixteen_clients_through_haproxy_survive_a_replica_killed_and_a_lost_session_is_made_again() {
    let s3 = S3Server::start(&["camber-lb"]);
    let url = "s3://camber-lb/store";
    ingest(&s3, url, "synthetic-chw-plant");
    let mut replicas: Vec<Option<Replica>> = (0..3).map(|_| Some(replica(&s3, url))).collect();
    let addrs: Vec<String> = replicas.iter().map(|r| r.as_ref().unwrap().addr.clone()).collect();
    let dir = tempfile::tempdir().unwrap();
    let (mut lb, addr) = lb::haproxy(dir.path(), &addrs.iter().map(String::as_str).collect::<Vec<_>>());

    // a session made through the balancer keeps answering there, on the replica that made it
    let lbr = Replica { child: Command::new("true").spawn().unwrap(), addr: addr.clone() };
    let sid = initialize(&lbr);
    for i in 0..6 {
        let v = rpc(&lbr, &sid, json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/list"}));
        assert!(v["result"]["tools"].is_array(), "request {i} of the session: {v}");
    }

    // 16 clients for about 3 s; one replica is killed after 1 s
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..16)
        .map(|c| {
            let (addr, stop) = (addr.clone(), stop.clone());
            std::thread::spawn(move || {
                let (mut ok, mut retry, mut bad) = (0, 0, Vec::new());
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    i += 1;
                    let (st, v) = stateless_points(&addr, c * 100_000 + i);
                    if st == 200 && v["result"]["isError"] == false {
                        ok += 1;
                    } else if v["result"]["_meta"]["camber/error"]["data"]["retryable"] == true {
                        retry += 1;
                    } else {
                        bad.push(format!("{st} {v}"));
                    }
                }
                (ok, retry, bad)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    // the replica killed is the one holding the session
    let holder = addrs.iter().position(|a| session_status(a, &sid) == 200).expect("one replica holds the session");
    assert_eq!(addrs.iter().filter(|a| session_status(a, &sid) == 200).count(), 1, "only its replica knows it");
    drop(replicas[holder].take());
    std::thread::sleep(Duration::from_secs(2));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let (mut ok, mut retry, mut bad) = (0, 0, Vec::new());
    for c in clients {
        let (o, r, b) = c.join().unwrap();
        ok += o;
        retry += r;
        bad.extend(b);
    }
    assert!(bad.is_empty(), "{} calls neither answered nor retryable, e.g. {:?}", bad.len(), &bad[..bad.len().min(3)]);
    println!("through haproxy, one replica killed: {ok} calls answered, {retry} unavailable and retryable");
    assert!(ok > 100, "{ok} answered, {retry} retryable");
    // the session died with its replica: the balancer sends it to another, which says 404 (as
    // MCP says a lost session is told), and the client's new session answers there
    assert_eq!(session_status(&addr, &sid), 404);
    let again = initialize(&lbr);
    for i in 0..3 {
        let v = rpc(&lbr, &again, json!({"jsonrpc": "2.0", "id": 20 + i, "method": "tools/list"}));
        assert!(v["result"]["tools"].is_array(), "request {i} of the new session: {v}");
    }
    let _ = lb.kill();
    let _ = lb.wait();
}
