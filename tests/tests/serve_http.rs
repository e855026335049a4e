//! `camber serve` over HTTP: the official MCP and A2A Python clients, and the bad input a
//! careless or hostile caller sends.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use camber_tests::{cache_dir, camber_bin, http, python};
use serde_json::{json, Value};

struct Server {
    child: Child,
    addr: String,
    _dir: tempfile::TempDir,
    token: String,
    narrow_token: String,
    /// The server's stderr lines (one per call).
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tokens_add(file: &Path, label: &str, allow: &[&str]) -> String {
    let mut c = Command::new(camber_bin());
    c.args(["tokens", "add", label, "--file"]).arg(file);
    for a in allow {
        c.args(["--allow", a]);
    }
    let out = c.output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

impl Server {
    /// The first line the server logged that contains `needle`, waiting up to 10 s for it.
    fn log_line(&self, needle: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(l) = self.log.lock().unwrap().iter().find(|l| l.contains(needle)).cloned() {
                return l;
            }
            assert!(std::time::Instant::now() < deadline, "the server never logged {needle:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn start() -> Server {
    start_with(true)
}

/// A server over two synthetic facilities; `hostile` also loads the misbehaving test components.
fn start_with(hostile: bool) -> Server {
    start_args(hostile, &[])
}

/// [`start_with`], with more arguments for `camber serve`.
fn start_args(hostile: bool, extra: &[&str]) -> Server {
    start_env(hostile, extra, &[])
}

/// [`start_args`], with more environment variables.
fn start_env(hostile: bool, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    for ds in ["synthetic-chw-plant", "synthetic-ahu-economizer"] {
        assert!(Command::new(camber_bin())
            .args(["datasets", "ingest", ds, "--store"])
            .arg(&store)
            .output()
            .unwrap()
            .status
            .success());
    }
    let file = dir.path().join("tokens.json");
    let token = tokens_add(&file, "wide", &["ds-synthetic-chw-plant", "ds-synthetic-ahu-economizer"]);
    // the same label as the wide token: sessions and tasks belong to tokens, not labels
    let narrow_token = tokens_add(&file, "wide", &["ds-synthetic-ahu-economizer"]);
    let mut cmd = Command::new(camber_bin());
    cmd.args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--store"])
        .arg(&store)
        .arg("--tokens")
        .arg(&file)
        .args(extra);
    cmd.env("CAMBER_CACHE_DIR", cache_dir()).env_remove("CAMBER_CAPABILITIES");
    if hostile {
        cmd.env("CAMBER_CAPABILITIES", camber_tests::test_components_dir());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    let (addr, log) = camber_tests::serving_addr(child.stderr.take().unwrap());
    Server { child, addr, _dir: dir, token, narrow_token, log }
}

fn header<'a>(hs: &'a [(String, String)], k: &str) -> Option<&'a str> {
    hs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

fn rpc(srv: &Server, token: &str, session: Option<&str>, msg: Value) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let mut h = vec![
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    if let Some(s) = session {
        h.push(("MCP-Session-Id", s));
    }
    let (st, _, body) = http(&srv.addr, "POST", "/mcp", &h, msg.to_string().as_bytes());
    (st, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn initialize(srv: &Server, token: &str) -> String {
    let auth = format!("Bearer {token}");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (st, hs, _) = http(
        &srv.addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    assert_eq!(st, 200);
    header(&hs, "mcp-session-id").unwrap().to_string()
}

fn script(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients").join(name)
}

#[test]
fn the_official_clients_work_over_http() {
    let srv = start_with(false);
    let out = Command::new(python())
        .arg(script("mcp_client.py"))
        .args(["http", &format!("http://{}/mcp", srv.addr), &srv.token, "ds-synthetic-chw-plant"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for name in ["facilities", "points", "coverage", "check_citations"] {
        assert_eq!(v["tools"][name]["valid"], true, "{name}");
    }
    assert_eq!(v["prompts"].as_object().unwrap().len(), 8);
    let out = Command::new(python())
        .arg(script("a2a_client.py"))
        .args([&format!("http://{}", srv.addr), &srv.token, "ds-synthetic-chw-plant"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["skills"].as_array().unwrap().iter().any(|s| s == "points"), "{v}");
    assert_eq!(v["bearer"], "bearer");
    assert_eq!(v["points"][0]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(v["points"][0]["get_state"], "TASK_STATE_COMPLETED");
    assert_eq!(v["points"][0]["data"]["data"]["facility_id"], "ds-synthetic-chw-plant");
    assert_eq!(v["points"][1]["state"], "TASK_STATE_FAILED");
    assert!(v["points"][1]["status_text"].as_str().unwrap().starts_with("not_allowed: "));
}

#[test]
fn the_official_python_client_pinned_to_2026_07_28_works_over_http_without_a_session() {
    let srv = start_with(false);
    let out = Command::new(python())
        .arg(script("mcp_modern_client.py"))
        .args(["http", &format!("http://{}/mcp", srv.addr), &srv.token, "ds-synthetic-chw-plant"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    camber_tests::check_modern_client(&v);
    let raw = &v["raw"];
    assert_eq!(
        (raw["unsupported_version"]["status"].clone(), raw["header_mismatch"]["status"].clone()),
        (json!(400), json!(400))
    );
    assert_eq!(raw["header_mismatch"]["code"], -32020, "{raw}");
    assert_eq!(raw["discover"]["session_id"], Value::Null, "no session is opened");
    // the headers route what the body asks: each of them checked
    let auth = format!("Bearer {}", srv.token);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant"}, "_meta": meta}});
    let post = |hs: &[(&str, &str)]| {
        let mut h = vec![
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
        ];
        h.extend_from_slice(hs);
        let (st, _, body) = http(&srv.addr, "POST", "/mcp", &h, call.to_string().as_bytes());
        (st, serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null))
    };
    let v26 = ("MCP-Protocol-Version", "2026-07-28");
    let (st, r) = post(&[v26, ("Mcp-Method", "tools/call"), ("Mcp-Name", "points")]);
    assert_eq!((st, r["result"]["isError"].clone()), (200, json!(false)), "{r}");
    // a name sent base64-encoded, as a client sends one that is not plain ASCII
    let (st, _) = post(&[v26, ("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?cG9pbnRz?=")]);
    assert_eq!(st, 200);
    for hs in [
        vec![v26, ("Mcp-Method", "tools/list"), ("Mcp-Name", "points")],
        vec![v26, ("Mcp-Method", "tools/call"), ("Mcp-Name", "facilities")],
        vec![v26, ("Mcp-Method", "tools/call")],
        vec![v26, ("Mcp-Method", "tools/call"), ("Mcp-Name", "points"), ("Mcp-Name", "points")],
        vec![("MCP-Protocol-Version", "2026-07-29"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "points")],
    ] {
        let (st, r) = post(&hs);
        assert_eq!((st, r["error"]["code"].clone(), r["id"].clone()), (400, json!(-32020), json!(9)), "{hs:?}: {r}");
    }
    // a missing header is named as missing, a wrong one as not matching
    let (_, r) = post(&[v26, ("Mcp-Name", "points")]);
    assert_eq!(
        r["error"]["message"], "the mcp-method header is missing; it must name the request body's method",
        "{r}"
    );
    let (_, r) = post(&[v26, ("Mcp-Method", "tools/call")]);
    assert!(r["error"]["message"].as_str().unwrap_or("").starts_with("the mcp-name header is missing"), "{r}");
    let (_, r) = post(&[v26, ("Mcp-Method", "tools/list"), ("Mcp-Name", "points")]);
    assert_eq!(r["error"]["message"], "the mcp-method header does not match the request body's method", "{r}");
    // no session to get or end
    for m in ["GET", "DELETE"] {
        let (st, hs, _) = http(&srv.addr, m, "/mcp", &[("Authorization", &auth), v26], b"");
        assert_eq!((st, header(&hs, "allow")), (405, Some("POST")), "{m}");
    }
}

#[test]
fn http_bad_input_gets_the_spec_answer_and_the_server_keeps_serving() {
    let srv = start();
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string();
    // no token, a wrong token
    assert_eq!(http(&srv.addr, "POST", "/mcp", &[], ping.as_bytes()).0, 401);
    assert_eq!(http(&srv.addr, "POST", "/mcp", &[("Authorization", "Bearer cmb_wrong")], ping.as_bytes()).0, 401);
    assert_eq!(http(&srv.addr, "POST", "/a2a", &[], ping.as_bytes()).0, 401);
    let auth = format!("Bearer {}", srv.token);
    // a foreign Origin
    assert_eq!(
        http(
            &srv.addr,
            "POST",
            "/mcp",
            &[("Authorization", &auth), ("Origin", "https://evil.example")],
            ping.as_bytes()
        )
        .0,
        403
    );
    // no session, a wrong session, a bad protocol version: refused, answering the request's id
    let (st, body) = rpc(&srv, &srv.token, None, json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!((st, body["id"].clone()), (400, json!(2)), "{body}");
    let (st, body) = rpc(&srv, &srv.token, Some("nope"), json!({"jsonrpc": "2.0", "id": "two", "method": "ping"}));
    assert_eq!((st, body["id"].clone()), (404, json!("two")), "{body}");
    let sid = initialize(&srv, &srv.token);
    let (st, _, body) = http(
        &srv.addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("MCP-Session-Id", &sid), ("MCP-Protocol-Version", "1999-01-01")],
        ping.as_bytes(),
    );
    assert_eq!(st, 400);
    assert!(!serde_json::from_slice::<Value>(&body).unwrap()["id"].is_null());
    // an older revision named in the header of a newer session is accepted, as the reference
    // TypeScript server accepts it
    let (st, _, _) = http(
        &srv.addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("MCP-Session-Id", &sid), ("MCP-Protocol-Version", "2025-03-26")],
        ping.as_bytes(),
    );
    assert_eq!(st, 200);
    // another caller (even one with the same label) cannot use or end this session
    assert_eq!(rpc(&srv, &srv.narrow_token, Some(&sid), json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).0, 404);
    let narrow = format!("Bearer {}", srv.narrow_token);
    assert_eq!(http(&srv.addr, "DELETE", "/mcp", &[("Authorization", &narrow), ("MCP-Session-Id", &sid)], b"").0, 404);
    // 10 MB
    let big = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(10 << 20));
    let (st, _, body) =
        http(&srv.addr, "POST", "/mcp", &[("Authorization", &auth), ("MCP-Session-Id", &sid)], big.as_bytes());
    assert_eq!(st, 413);
    // still an answer a JSON-RPC client can read
    let e: Value =
        serde_json::from_slice(&body).unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&body)));
    assert_eq!(e["error"]["code"], -32600, "{e}");
    assert_eq!(e["id"], Value::Null);
    // malformed, a batch, unknown method, unknown tool, wrong argument types
    for (body, code) in [("{nope".to_string(), -32700), (format!("[{ping}]"), -32600)] {
        let (st, _, b) =
            http(&srv.addr, "POST", "/mcp", &[("Authorization", &auth), ("MCP-Session-Id", &sid)], body.as_bytes());
        assert_eq!(st, 400);
        assert_eq!(serde_json::from_slice::<Value>(&b).unwrap()["error"]["code"], code);
    }
    assert_eq!(
        rpc(&srv, &srv.token, Some(&sid), json!({"jsonrpc": "2.0", "id": 4, "method": "no/such"})).1["error"]["code"],
        -32601
    );
    let (_, r) = rpc(
        &srv,
        &srv.token,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nope"}}),
    );
    assert_eq!(r["error"]["code"], -32602);
    let (_, r) = rpc(
        &srv,
        &srv.token,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": []}}}),
    );
    assert_eq!(r["result"]["_meta"]["camber/error"]["code"], "invalid_params");
    // a token whose allowlist excludes the facility
    let nsid = initialize(&srv, &srv.narrow_token);
    let (_, r) = rpc(
        &srv,
        &srv.narrow_token,
        Some(&nsid),
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant"}}}),
    );
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["_meta"]["camber/error"]["code"], "not_allowed");
    // DELETE ends the session
    assert_eq!(http(&srv.addr, "DELETE", "/mcp", &[("Authorization", &auth), ("MCP-Session-Id", &sid)], b"").0, 204);
    assert_eq!(rpc(&srv, &srv.token, Some(&sid), json!({"jsonrpc": "2.0", "id": 8, "method": "ping"})).0, 404);
    // still serving
    let sid = initialize(&srv, &srv.token);
    assert_eq!(
        rpc(&srv, &srv.token, Some(&sid), json!({"jsonrpc": "2.0", "id": 10, "method": "ping"})).1["result"],
        json!({})
    );
}

#[test]
fn a2a_accepts_the_0_3_names_without_a_version_header() {
    let srv = start();
    let auth = format!("Bearer {}", srv.token);
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"messageId": "m1", "role": "user", "kind": "message", "parts": [{"kind": "data", "data": {"capability": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant"}}}]}}});
    let (st, _, b) = http(
        &srv.addr,
        "POST",
        "/a2a",
        &[("Authorization", &auth), ("Content-Type", "application/json")],
        msg.to_string().as_bytes(),
    );
    assert_eq!(st, 200);
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(v["result"]["status"]["state"], "completed", "{v}");
    assert_eq!(v["result"]["artifacts"][0]["parts"][0]["kind"], "data");
    let id = v["result"]["id"].as_str().unwrap().to_string();
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": id}});
    let (_, _, b) = http(&srv.addr, "POST", "/a2a", &[("Authorization", &auth)], get.to_string().as_bytes());
    assert_eq!(serde_json::from_slice::<Value>(&b).unwrap()["result"]["id"], id);
    // another caller does not see the task
    let narrow = format!("Bearer {}", srv.narrow_token);
    let (_, _, b) = http(&srv.addr, "POST", "/a2a", &[("Authorization", &narrow)], get.to_string().as_bytes());
    assert_eq!(serde_json::from_slice::<Value>(&b).unwrap()["error"]["code"], -32001);
    // with a version header the old names are not spoken
    let (_, _, b) = http(
        &srv.addr,
        "POST",
        "/a2a",
        &[("Authorization", &auth), ("A2A-Version", "1.0")],
        msg.to_string().as_bytes(),
    );
    assert_eq!(serde_json::from_slice::<Value>(&b).unwrap()["error"]["code"], -32601);
    // the card declares the bearer scheme
    let (st, _, b) = http(&srv.addr, "GET", "/.well-known/agent-card.json", &[], b"");
    assert_eq!(st, 200);
    let card: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"], "bearer");
    assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
}

#[test]
fn a_slow_call_does_not_block_cheap_ones_and_a_disconnect_frees_its_worker() {
    let srv = start();
    let auth = format!("Bearer {}", srv.token);
    let sid = initialize(&srv, &srv.token);
    // a client that starts a 2-second guest call and hangs up at once
    let slow_started = std::time::Instant::now();
    {
        let mut s = TcpStream::connect(&srv.addr).unwrap();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 2000}}}).to_string();
        let req = format!("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nMCP-Session-Id: {sid}\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    // cheap calls keep being answered meanwhile
    let t0 = std::time::Instant::now();
    for i in 0..5 {
        let (st, r) = rpc(
            &srv,
            &srv.token,
            Some(&sid),
            json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant"}}}),
        );
        assert_eq!(st, 200);
        assert_eq!(r["result"]["isError"], false);
    }
    let _ = t0;
    // all five were answered while the slow guest would still have been running
    assert!(
        slow_started.elapsed() < Duration::from_millis(2000),
        "cheap calls waited for the slow one: {:?}",
        slow_started.elapsed()
    );
    // and the hung-up call was stopped, not run to its end
    let line = srv.log_line("call sleep");
    assert!(line.contains("outcome=cancelled "), "{line}");
    let ms: f64 = line.rsplit(' ').nth(1).unwrap().parse().unwrap();
    assert!(ms < 1900.0, "the guest ran on after the client left: {line}");
}

#[test]
fn unsafe_setups_are_refused_at_startup() {
    let dir = tempfile::tempdir().unwrap();
    for args in [vec!["serve", "--http", "0.0.0.0:0", "--no-auth"], vec!["serve", "--http", "127.0.0.1:0"]] {
        let out = Command::new(camber_bin()).args(&args).arg("--store").arg(dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end().lines().count(), 1);
    }
}

#[test]
fn loopback_origins_in_any_spelling_are_accepted() {
    let srv = start_with(false);
    let auth = format!("Bearer {}", srv.token);
    let sid = initialize(&srv, &srv.token);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    for origin in ["http://[::1]", "http://[::1]:8765", "http://LOCALHOST", "HTTP://LocalHost:3000", "http://127.0.0.1"]
    {
        let (st, _, _) = http(
            &srv.addr,
            "POST",
            "/mcp",
            &[("Authorization", &auth), ("MCP-Session-Id", &sid), ("Origin", origin)],
            ping.as_bytes(),
        );
        assert_eq!(st, 200, "{origin}");
    }
    for origin in ["http://localhost.evil.example", "http://[::2]", "null"] {
        let (st, _, _) = http(
            &srv.addr,
            "POST",
            "/mcp",
            &[("Authorization", &auth), ("MCP-Session-Id", &sid), ("Origin", origin)],
            ping.as_bytes(),
        );
        assert_eq!(st, 403, "{origin}");
    }
}

#[test]
fn sessions_are_capped_per_token_and_expire_when_idle() {
    let ping = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
    // two sessions per token: a third ends the least recently used one, and only the token's
    let srv = start_args(false, &["--max-sessions", "2"]);
    let other = initialize(&srv, &srv.narrow_token);
    let a = initialize(&srv, &srv.token);
    let b = initialize(&srv, &srv.token);
    assert_eq!(rpc(&srv, &srv.token, Some(&a), ping(1)).0, 200);
    let c = initialize(&srv, &srv.token);
    let (st, body) = rpc(&srv, &srv.token, Some(&b), ping(2));
    assert_eq!(st, 404, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("initialize again"), "{body}");
    for (token, sid) in [(&srv.token, &a), (&srv.token, &c), (&srv.narrow_token, &other)] {
        assert_eq!(rpc(&srv, token, Some(sid), ping(3)).1["result"], json!({}), "{sid}");
    }
    // an idle limit of 0: a session ends as soon as it is idle, with the 404 of an unknown one
    let srv = start_args(false, &["--session-idle", "0"]);
    let sid = initialize(&srv, &srv.token);
    assert_eq!(rpc(&srv, &srv.token, Some(&sid), ping(4)).0, 404);
    // the default keeps it (30 minutes)
    let srv = start_with(false);
    let sid = initialize(&srv, &srv.token);
    assert_eq!(rpc(&srv, &srv.token, Some(&sid), ping(5)).0, 200);
}

#[test]
fn a_panic_in_the_host_is_that_calls_internal_error_over_http() {
    let srv = start_env(true, &["--workers", "1"], &[("CAMBER_TEST_HOST_PANIC", "echo")]);
    let sid = initialize(&srv, &srv.token);
    let call = |id: u64, name: &str, args: Value| {
        rpc(
            &srv,
            &srv.token,
            Some(&sid),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}),
        )
    };
    for id in [1, 2] {
        let (st, r) = call(id, "echo", json!({}));
        assert_eq!(st, 200);
        assert_eq!(r["result"]["_meta"]["camber/error"]["code"], "internal", "{r}");
        assert!(!r.to_string().contains("/srv/camber"), "{r}");
    }
    let (_, r) = call(3, "points", json!({"facility_id": "ds-synthetic-chw-plant"}));
    assert_eq!(r["result"]["isError"], false, "{r}");
    // A2A too
    let auth = format!("Bearer {}", srv.token);
    let msg = json!({"jsonrpc": "2.0", "id": 4, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"capability": "echo", "arguments": {}}}]}}});
    let (_, _, b) = http(
        &srv.addr,
        "POST",
        "/a2a",
        &[("Authorization", &auth), ("A2A-Version", "1.0")],
        msg.to_string().as_bytes(),
    );
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert_eq!(v["result"]["task"]["status"]["state"], "TASK_STATE_FAILED", "{v}");
    assert!(!v.to_string().contains("/srv/camber"), "{v}");
}

/// The JSON-RPC messages of an SSE body, in order.
fn sse_messages(body: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").or_else(|| l.strip_prefix("data:")))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect()
}

#[test]
fn a_watched_call_streams_its_progress_then_its_result_and_a_dropped_stream_cancels_it() {
    let srv = start();
    let auth = format!("Bearer {}", srv.token);
    let sid = initialize(&srv, &srv.token);
    let call = |accept: &str, id: u64, token: bool| {
        let mut params = json!({"name": "rule_run", "arguments": {"facility_id": "ds-synthetic-chw-plant"}});
        if token {
            params["_meta"] = json!({"progressToken": id});
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let h = [
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", accept),
            ("MCP-Session-Id", sid.as_str()),
        ];
        http(&srv.addr, "POST", "/mcp", &h, body.to_string().as_bytes())
    };
    let (st, hs, body) = call("application/json, text/event-stream", 7, true);
    assert_eq!(st, 200);
    assert_eq!(header(&hs, "content-type"), Some("text/event-stream"));
    let msgs = sse_messages(&body);
    let (last, notes) = msgs.split_last().unwrap();
    assert_eq!(last["id"], 7, "the response comes last: {last}");
    assert_eq!(last["result"]["isError"], false);
    let values: Vec<u64> = notes
        .iter()
        .map(|n| {
            assert_eq!(n["method"], "notifications/progress");
            assert_eq!(n["params"]["progressToken"], 7, "the token as sent, a number: {n}");
            n["params"]["progress"].as_u64().unwrap()
        })
        .collect();
    assert!(values.len() >= 10 && values[0] == 0 && values.last() == Some(&100), "{values:?}");
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    // a client that reads only JSON, or sent no token, gets one JSON response as before
    for (accept, token) in [("application/json", true), ("application/json, text/event-stream", false)] {
        let (st, hs, body) = call(accept, 8, token);
        assert_eq!((st, header(&hs, "content-type")), (200, Some("application/json")), "{accept} {token}");
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["id"], 8);
    }
    // a session that asked for log messages gets each call's log line on the call's stream
    let (st, r) = rpc(
        &srv,
        &srv.token,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 10, "method": "logging/setLevel", "params": {"level": "info"}}),
    );
    assert_eq!((st, r["result"].clone()), (200, json!({})));
    let (st, hs, body) = call("application/json, text/event-stream", 11, false);
    assert_eq!((st, header(&hs, "content-type")), (200, Some("text/event-stream")));
    let msgs = sse_messages(&body);
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert_eq!(msgs[0]["method"], "notifications/message");
    let line = msgs[0]["params"]["data"].as_str().unwrap();
    assert!(line.contains("call rule_run") && line.contains("outcome=ok"), "{line}");
    assert!(!line.contains("ds-synthetic-chw-plant"), "no argument value: {line}");
    assert_eq!(msgs[1]["id"], 11);
    // a watched slow call whose client hangs up mid-stream is stopped
    {
        let mut s = TcpStream::connect(&srv.addr).unwrap();
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 3000}, "_meta": {"progressToken": "slow"}}}).to_string();
        let req = format!("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nMCP-Session-Id: {sid}\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).unwrap();
        // the stream opens (the start notification) before the client leaves
        let mut first = [0u8; 64];
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        assert!(s.read(&mut first).unwrap() > 0);
        assert!(String::from_utf8_lossy(&first).starts_with("HTTP/1.1 200"));
    }
    let line = srv.log_line("call sleep");
    assert!(line.contains("outcome=cancelled "), "{line}");
    let ms: f64 = line.rsplit(' ').nth(1).unwrap().parse().unwrap();
    assert!(ms < 2900.0, "the guest ran on after the client left: {line}");
}

#[test]
fn the_official_a2a_client_streams_a_call_with_its_progress_and_0_3_clients_get_their_shapes() {
    let srv = start();
    let out = Command::new(python())
        .arg(script("a2a_stream_client.py"))
        .args([&format!("http://{}", srv.addr), &srv.token, "ds-synthetic-chw-plant"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["card_streaming"], true);
    let post = v["wire"].as_array().unwrap().iter().find(|w| w["method"] == "SendStreamingMessage").unwrap();
    assert_eq!(post["content_type"], "text/event-stream", "{post}");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events[0]["kind"], "task", "{events:?}");
    let working: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "status_update" && e["state"] == "TASK_STATE_WORKING")
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(working.len() >= 10, "a working update per equipment: {working:?}");
    assert!(working.iter().any(|t| t.contains("rules: CH__healthy")), "{working:?}");
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(&kinds[kinds.len() - 2..], ["artifact_update", "status_update"], "{kinds:?}");
    assert_eq!(v["final_state"], "TASK_STATE_COMPLETED");
    assert_eq!(v["get_state"], "TASK_STATE_COMPLETED", "GetTask sees the streamed task");
    assert!(v["result_keys"].as_array().unwrap().iter().any(|k| k == "findings"), "{v}");
    // a 0.3 client (its version header, its method name) gets the 0.3 shapes: kinds, final
    let auth = format!("Bearer {}", srv.token);
    let msg = json!({"jsonrpc": "2.0", "id": 5, "method": "message/stream", "params": {"message": {"messageId": "m1", "role": "user", "kind": "message", "parts": [{"kind": "data", "data": {"capability": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant"}}}]}}});
    let (st, hs, b) = http(
        &srv.addr,
        "POST",
        "/a2a",
        &[("Authorization", &auth), ("A2A-Version", "0.3"), ("Accept", "text/event-stream")],
        msg.to_string().as_bytes(),
    );
    assert_eq!((st, header(&hs, "content-type")), (200, Some("text/event-stream")));
    let events = sse_messages(&b);
    let kinds: Vec<&str> = events.iter().map(|e| e["result"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"task"), "{kinds:?}");
    assert_eq!(&kinds[kinds.len() - 2..], ["artifact-update", "status-update"], "{kinds:?}");
    let last = &events.last().unwrap()["result"];
    assert_eq!((last["final"].clone(), last["status"]["state"].clone()), (json!(true), json!("completed")), "{last}");
    assert!(events.iter().all(|e| e["id"] == 5));
    // a client that drops a stream mid-call stops the guest
    {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "SendStreamingMessage", "params": {"message": {"messageId": "m3", "role": "ROLE_USER", "parts": [{"data": {"capability": "sleep", "arguments": {"ms": 3000}}}]}}}).to_string();
        let mut s = TcpStream::connect(&srv.addr).unwrap();
        let req = format!("POST /a2a HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nA2A-Version: 1.0\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut first = [0u8; 64];
        assert!(s.read(&mut first).unwrap() > 0, "the stream opens with the task");
    }
    let line = srv.log_line("call sleep");
    assert!(line.contains("outcome=cancelled "), "{line}");
    // a message naming no capability is refused before any stream starts
    let bad = json!({"jsonrpc": "2.0", "id": 6, "method": "SendStreamingMessage", "params": {"message": {"messageId": "m2", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}});
    let (st, hs, b) = http(
        &srv.addr,
        "POST",
        "/a2a",
        &[("Authorization", &auth), ("A2A-Version", "1.0")],
        bad.to_string().as_bytes(),
    );
    assert_eq!((st, header(&hs, "content-type")), (200, Some("application/json")));
    assert_eq!(serde_json::from_slice::<Value>(&b).unwrap()["error"]["code"], -32602);
}

#[test]
fn tasks_over_http_belong_to_the_token_and_outlive_the_session() {
    let srv = start();
    let out = Command::new(python())
        .arg(script("mcp_tasks_client.py"))
        .args(["http", &format!("http://{}/mcp", srv.addr), &srv.token, "ds-synthetic-chw-plant"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failures"], json!([]), "{v}");
    assert_eq!(v["statuses"].as_array().unwrap().last().unwrap(), "completed");
    let task = v["create"]["task"]["taskId"].as_str().unwrap().to_string();
    // a new session of the same token sees the task; another token does not
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": task}});
    let sid = initialize(&srv, &srv.token);
    let (st, r) = rpc(&srv, &srv.token, Some(&sid), get.clone());
    assert_eq!((st, r["result"]["status"].clone()), (200, json!("completed")), "{r}");
    let narrow_sid = initialize(&srv, &srv.narrow_token);
    let (_, r) = rpc(&srv, &srv.narrow_token, Some(&narrow_sid), get);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let (_, r) =
        rpc(&srv, &srv.narrow_token, Some(&narrow_sid), json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/list"}));
    assert_eq!(r["result"]["tasks"], json!([]), "{r}");
    // a running task's status message says how far its call has gone (no stream needed)
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 1500}, "task": {}}});
    let (_, r) = rpc(&srv, &srv.token, Some(&sid), call);
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_string();
    let get = json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": task}});
    let mut seen = Vec::new();
    loop {
        let (_, r) = rpc(&srv, &srv.token, Some(&sid), get.clone());
        let status = r["result"]["status"].as_str().unwrap().to_string();
        if status != "working" {
            assert_eq!(status, "completed", "{r}");
            break;
        }
        if let Some(m) = r["result"]["statusMessage"].as_str() {
            seen.push(m.to_string());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(seen.iter().any(|m| m.contains(" %: ") && m.contains("ms of 1500")), "{seen:?}");
    // tasks/result on a running task waits for its end, then answers the call's own result
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 800}, "task": {}}});
    let (_, r) = rpc(&srv, &srv.token, Some(&sid), call);
    let task = r["result"]["task"]["taskId"].as_str().unwrap().to_string();
    let (st, r) = rpc(
        &srv,
        &srv.token,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/result", "params": {"taskId": task}}),
    );
    assert_eq!((st, r["id"].clone()), (200, json!(7)));
    assert_eq!(r["result"]["structuredContent"]["slept_ms"], 800, "{r}");
    assert_eq!(r["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
}

#[test]
fn a_findings_evidence_chart_reaches_mcp_as_an_image_and_a2a_as_a_file_part() {
    let srv = start_with(false);
    let sid = initialize(&srv, &srv.token);
    let fid = "ds-synthetic-ahu-economizer";
    let call = |id: u64, name: &str, args: Value| {
        rpc(
            &srv,
            &srv.token,
            Some(&sid),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}),
        )
        .1
    };
    let run = call(2, "rule_run", json!({"facility_id": fid, "rules": ["leaking_valve"]}));
    let finding = run["result"]["structuredContent"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "fault")
        .and_then(|f| f["finding_id"].as_str())
        .expect("a leaking valve")
        .to_string();
    let args = json!({"facility_id": fid, "rules": ["leaking_valve"], "finding_id": finding});
    // MCP: the summary, the data, then the chart's alt text and the image itself
    let r = call(3, "finding_detail", args.clone());
    let content = r["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 4, "{r}");
    assert_eq!(content[3]["type"], "image");
    assert_eq!(content[3]["mimeType"], "image/png");
    let png = content[3]["data"].as_str().unwrap();
    assert!(png.starts_with("iVBORw0KGgo"), "base64 of a PNG");
    let alt = content[2]["text"].as_str().unwrap();
    let fact = r["result"]["_meta"]["camber/facts"][0]["id"].as_str().unwrap();
    assert!(alt.starts_with("Evidence chart of") && alt.contains(&format!("[{fact}]")), "{alt}");
    // a client that wants no image
    let mut no = args.clone();
    no["image"] = json!(false);
    let r = call(4, "finding_detail", no);
    assert!(r["result"]["content"].as_array().unwrap().iter().all(|c| c["type"] == "text"), "{r}");
    // A2A, both dialects: a file part with the same bytes
    let auth = format!("Bearer {}", srv.token);
    let v1 = json!({"jsonrpc": "2.0", "id": 5, "method": "SendMessage", "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"data": {"capability": "finding_detail", "arguments": args}}]}}});
    let (_, _, b) =
        http(&srv.addr, "POST", "/a2a", &[("Authorization", &auth), ("A2A-Version", "1.0")], v1.to_string().as_bytes());
    let v: Value = serde_json::from_slice(&b).unwrap();
    let part = &v["result"]["task"]["artifacts"][0]["parts"][2];
    assert_eq!((part["mediaType"].as_str(), part["raw"].as_str()), (Some("image/png"), Some(png)), "{v}");
    assert!(part["metadata"]["alt"].as_str().unwrap().starts_with("Evidence chart of"));
    let v03 = json!({"jsonrpc": "2.0", "id": 6, "method": "message/send", "params": {"message": {"messageId": "m2", "role": "user", "kind": "message", "parts": [{"kind": "data", "data": {"capability": "finding_detail", "arguments": args}}]}}});
    let (_, _, b) = http(&srv.addr, "POST", "/a2a", &[("Authorization", &auth)], v03.to_string().as_bytes());
    let v: Value = serde_json::from_slice(&b).unwrap();
    let part = &v["result"]["artifacts"][0]["parts"][2];
    assert_eq!(part["kind"], "file", "{v}");
    assert_eq!((part["file"]["mimeType"].as_str(), part["file"]["bytes"].as_str()), (Some("image/png"), Some(png)));
}

#[test]
fn resources_are_listed_read_and_completed_for_what_the_caller_may_see() {
    let srv = start_with(false);
    let sid = initialize(&srv, &srv.token);
    let req = |token: &str, sid: &str, id: u64, method: &str, params: Value| {
        rpc(&srv, token, Some(sid), json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).1
    };
    let t = req(&srv.token, &sid, 2, "resources/templates/list", json!({}));
    let templates: Vec<&str> =
        t["result"]["resourceTemplates"].as_array().unwrap().iter().filter_map(|t| t["uriTemplate"].as_str()).collect();
    assert!(templates.contains(&"camber://facility/{facility_id}/finding/{finding_id}/chart.png"), "{t}");
    // the list: each facility's report and points, the catalog's entries, in pages
    let mut uris: Vec<String> = Vec::new();
    let mut cursor = Value::Null;
    for id in 3.. {
        let r = req(&srv.token, &sid, id, "resources/list", json!({"cursor": cursor}));
        uris.extend(
            r["result"]["resources"].as_array().unwrap().iter().map(|r| r["uri"].as_str().unwrap().to_string()),
        );
        cursor = r["result"]["nextCursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    for u in ["camber://facility/ds-synthetic-chw-plant/report", "camber://facility/ds-synthetic-ahu-economizer/points"]
    {
        assert!(uris.iter().any(|x| x == u), "{u} in {uris:?}");
    }
    let dataset = uris.iter().find(|u| u.starts_with("camber://dataset/")).expect("catalog entries").clone();
    assert!(uris.len() > 30, "{}", uris.len());
    // the narrow caller lists only its own facility
    let narrow_sid = initialize(&srv, &srv.narrow_token);
    let r = req(&srv.narrow_token, &narrow_sid, 20, "resources/list", json!({}));
    let listed = r["result"]["resources"].to_string();
    assert!(listed.contains("ds-synthetic-ahu-economizer") && !listed.contains("ds-synthetic-chw-plant"), "{listed}");
    // reads: text (JSON, HTML) and a blob
    let points = req(
        &srv.token,
        &sid,
        21,
        "resources/read",
        json!({"uri": "camber://facility/ds-synthetic-ahu-economizer/points"}),
    );
    let c = &points["result"]["contents"][0];
    assert_eq!(c["mimeType"], "application/json", "{points}");
    let v: Value = serde_json::from_str(c["text"].as_str().unwrap()).unwrap();
    assert!(v["data"]["points"].as_array().is_some_and(|p| !p.is_empty()), "{v}");
    let entry = req(&srv.token, &sid, 22, "resources/read", json!({"uri": dataset}));
    assert!(entry["result"]["contents"][0]["text"].as_str().unwrap().contains("licence"), "{entry}");
    let page = req(
        &srv.token,
        &sid,
        23,
        "resources/read",
        json!({"uri": "camber://facility/ds-synthetic-ahu-economizer/report"}),
    );
    let c = &page["result"]["contents"][0];
    assert_eq!(c["mimeType"], "text/html", "{page}");
    let html = c["text"].as_str().unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<svg") && !html.contains("<script"),
        "{}",
        &html[..200]
    );
    let run = rpc(&srv, &srv.token, Some(&sid), json!({"jsonrpc": "2.0", "id": 24, "method": "tools/call", "params": {"name": "rule_run", "arguments": {"facility_id": "ds-synthetic-ahu-economizer", "min_severity": "fault"}}})).1;
    let finding = run["result"]["structuredContent"]["findings"][0]["finding_id"].as_str().unwrap().to_string();
    let chart = format!("camber://facility/ds-synthetic-ahu-economizer/finding/{finding}/chart.png");
    let r = req(&srv.token, &sid, 25, "resources/read", json!({"uri": chart}));
    let c = &r["result"]["contents"][0];
    assert_eq!(c["mimeType"], "image/png", "{r}");
    assert!(c["blob"].as_str().unwrap().starts_with("iVBORw0KGgo"));
    // what the caller may not see is not found, as a tool call would refuse it; so is nonsense
    for (uri, token, sid) in [
        ("camber://facility/ds-synthetic-chw-plant/points", &srv.narrow_token, &narrow_sid),
        ("camber://facility/ds-nowhere/report", &srv.token, &sid),
        ("camber://nothing/here", &srv.token, &sid),
    ] {
        let r = req(token, sid, 26, "resources/read", json!({"uri": uri}));
        assert_eq!(r["error"]["code"], -32002, "{uri}: {r}");
        assert!(r["error"]["message"].as_str().unwrap().starts_with("Resource not found"), "{r}");
    }
    // the report as an MCP App: a ui:// resource the rcx_report tool links to
    assert!(uris.iter().any(|u| u == "ui://camber/rcx-report"), "{uris:?}");
    let app = req(&srv.token, &sid, 28, "resources/read", json!({"uri": "ui://camber/rcx-report"}));
    let c = &app["result"]["contents"][0];
    assert_eq!(c["mimeType"], "text/html;profile=mcp-app", "{app}");
    assert_eq!(c["_meta"]["ui"]["csp"]["connectDomains"], json!([]));
    assert!(c["text"].as_str().unwrap().contains("ui/initialize"));
    let tools = req(&srv.token, &sid, 29, "tools/list", json!({}));
    let rcx = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "rcx_report").unwrap().clone();
    assert_eq!(rcx["_meta"]["ui"]["resourceUri"], "ui://camber/rcx-report", "{rcx}");
    // completion of a template's argument: what the caller may see
    let complete = |token: &str, sid: &str, arg: &str, value: &str| {
        let r = req(
            token,
            sid,
            27,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "camber://facility/{facility_id}/points"}, "argument": {"name": arg, "value": value}}),
        );
        r["result"]["completion"]["values"].clone()
    };
    assert_eq!(complete(&srv.token, &sid, "facility_id", "ds-synthetic-a"), json!(["ds-synthetic-ahu-economizer"]));
    assert_eq!(complete(&srv.narrow_token, &narrow_sid, "facility_id", "ds-synthetic-c"), json!([]));
    // the server says it has resources
    let auth = format!("Bearer {}", srv.token);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (_, _, b) = http(
        &srv.addr,
        "POST",
        "/mcp",
        &[("Authorization", &auth), ("Content-Type", "application/json")],
        body.to_string().as_bytes(),
    );
    let v: Value = serde_json::from_slice(&b).unwrap();
    assert!(v["result"]["capabilities"]["resources"].is_object(), "{v}");
}

#[test]
fn an_http_session_hears_of_its_watched_resources_on_its_event_stream() {
    let srv = start_env(false, &[], &[("CAMBER_RESOURCE_POLL_MS", "200")]);
    let store = srv._dir.path().join("store");
    // the narrow token sees the economizer only
    let out = Command::new(python())
        .arg(script("mcp_subscribe_client.py"))
        .args([
            &format!("http://{}/mcp", srv.addr),
            &srv.narrow_token,
            "camber://facility/ds-synthetic-ahu-economizer/points",
            "camber://facility/ds-synthetic-chw-plant/points",
            "--",
        ])
        .arg(camber_bin())
        .args(["datasets", "ingest", "synthetic-ahu-economizer", "--replace", "--store"])
        .arg(&store)
        .env("CAMBER_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["subscribe_declared"], true, "{v}");
    // a facility the token may not see cannot be watched, as it cannot be read
    assert_eq!(v["hidden"]["code"], -32002, "{v}");
    assert!(v["before_rewrite"].is_null(), "nothing changed yet: {v}");
    assert!(v["notice_s"].is_number(), "told of the ingest: {v}");
    // (one rewrite may be seen in two steps, each told)
    let uris = v["uris"].as_array().unwrap();
    assert!(
        !uris.is_empty() && uris.iter().all(|u| u == "camber://facility/ds-synthetic-ahu-economizer/points"),
        "{v}"
    );
    assert_eq!(v["after_unsubscribe"], 0, "an unsubscribed resource is not watched: {v}");
}
