//! `camber mcp` over stdio: the official MCP Python SDK as a client, and the bad input a
//! careless or hostile client sends.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command};
use std::time::{Duration, Instant};

use camber_tests::{cache_dir, camber_bin, python};
use serde_json::{json, Value};

fn store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let st = Command::new(camber_bin())
        .args(["datasets", "ingest", "synthetic-chw-plant", "--store"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(st.status.success());
    dir
}

/// Run one of the official-SDK client scripts (`tests/clients/`) against `camber mcp` over stdio
/// on `store`; what it saw.
fn stdio_client(script: &str, store: &std::path::Path) -> Value {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("clients").join(script);
    let out = Command::new(python())
        .arg(script)
        .args(["stdio", camber_bin().to_str().unwrap(), store.to_str().unwrap(), "ds-synthetic-chw-plant"])
        .env("CAMBER_CACHE_DIR", cache_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_official_python_client_lists_calls_and_gets_everything() {
    let s = store();
    let v = stdio_client("mcp_client.py", s.path());
    let tools = v["tools"].as_object().unwrap();
    for name in ["facilities", "points", "coverage", "dataset_search", "dataset_entry", "check_citations"] {
        let t = &tools[name];
        assert_eq!(t["is_error"], false, "{name}: {t}");
        assert_eq!(t["valid"], true, "{name}");
        assert_eq!(t["meta_keys"], json!(["camber/banners", "camber/facts", "camber/truncated"]));
    }
    assert_eq!(v["refusal"]["is_error"], true);
    assert!(v["refusal"]["text"].as_str().unwrap().starts_with("not_allowed: "));
    assert_eq!(v["prompts"].as_object().unwrap().len(), 8);
    assert_eq!(v["protocol"], "2025-11-25");
}

#[test]
fn the_official_python_client_pinned_to_2026_07_28_works_without_a_handshake() {
    let s = store();
    camber_tests::check_modern_client(&stdio_client("mcp_modern_client.py", s.path()));
}

#[test]
fn a_stateless_request_with_a_bad_envelope_or_a_removed_method_gets_the_revisions_error() {
    let s = store();
    let mut srv = Server::start(s.path());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    // no capabilities in the envelope
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    let r = srv.recv();
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("clientCapabilities"), "{r}");
    // a "version" that is a path is not echoed as one
    srv.send(json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "/etc/camber/2026", "io.modelcontextprotocol/clientCapabilities": {}}}}));
    let r = srv.recv();
    assert_eq!(r["error"]["code"], -32022, "{r}");
    assert!(!r.to_string().contains("/etc/camber"), "{r}");
    // ping and logging/setLevel are not of this revision
    for (id, m) in [(2, "ping"), (3, "logging/setLevel")] {
        srv.send(json!({"jsonrpc": "2.0", "id": id, "method": m, "params": {"_meta": meta, "level": "info"}}));
        assert_eq!(srv.recv()["error"]["code"], -32601, "{m}");
    }
    // a log level asked for in the request's own envelope gets that call's log line
    let mut logged = meta.clone();
    logged["io.modelcontextprotocol/logLevel"] = json!("info");
    logged["io.modelcontextprotocol/clientInfo"] = json!({"name": "watcher", "version": "1"});
    srv.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hidden"}, "_meta": logged}}));
    let m = srv.recv();
    assert_eq!(m["method"], "notifications/message", "{m}");
    let line = m["params"]["data"].as_str().unwrap();
    assert!(line.contains("caller=mcp:stdio/watcher") && !line.contains("hidden"), "{line}");
    let r = srv.recv();
    assert_eq!((r["id"].clone(), r["result"]["resultType"].clone()), (json!(4), json!("complete")), "{r}");
    // and the handshake revisions still work on the same connection
    srv.send(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    assert_eq!(srv.recv()["result"], json!({}));
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(store: &std::path::Path) -> Server {
        let mut cmd = Command::new(camber_bin());
        cmd.args(["mcp", "--store"])
            .arg(store)
            .arg("--allow-all-active")
            .env("CAMBER_CAPABILITIES", camber_tests::test_components_dir());
        Server::spawn(cmd)
    }

    /// `cmd` (a `camber mcp`) started with its stdio piped to the test.
    fn spawn(cmd: Command) -> Server {
        let (child, stdin, stdout) = camber_tests::mcp_stdio(cmd);
        Server { child, stdin, stdout }
    }

    fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn send(&mut self, v: Value) {
        self.send_raw(v.to_string().as_bytes());
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn bad_input_gets_the_spec_answer_and_the_server_keeps_serving() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert_eq!(srv.recv()["result"]["protocolVersion"], "2025-06-18");
    srv.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let cases: Vec<(Vec<u8>, i64)> = vec![
        (b"{not json".to_vec(), -32700),
        (br#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#.to_vec(), -32600),
        (br#"{"jsonrpc":"2.0","method":"tools/list"}"#.to_vec(), 0), // no id: a notification, no answer
        (br#"{"jsonrpc":"2.0","id":3,"method":"no/such"}"#.to_vec(), -32601),
        (br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#.to_vec(), -32602),
        (
            format!(r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(10 << 20))
                .into_bytes(),
            -32600,
        ),
    ];
    for (raw, code) in cases {
        srv.send_raw(&raw);
        if code != 0 {
            let r = srv.recv();
            assert_eq!(r["error"]["code"], code, "{}", String::from_utf8_lossy(&raw[..raw.len().min(80)]));
        }
    }
    // a huge unknown method, tool and prompt come back cut, as other echoed values are
    let huge = format!("no/{}", "m".repeat(100_000));
    srv.send(json!({"jsonrpc": "2.0", "id": 8, "method": huge}));
    srv.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": huge, "arguments": {}}}));
    srv.send(json!({"jsonrpc": "2.0", "id": 10, "method": "prompts/get", "params": {"name": huge}}));
    for id in [8, 9, 10] {
        let r = srv.recv();
        assert_eq!(r["id"], id, "{}", &r.to_string()[..200.min(r.to_string().len())]);
        let m = r["error"]["message"].as_str().unwrap_or_else(|| panic!("{id}: no error"));
        assert!(m.chars().count() < 200 && m.contains('\u{2026}'), "{id}: {} chars", m.chars().count());
    }
    // arguments of the wrong type: a tool result with isError, not a protocol error
    srv.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": 7}}}));
    let r = srv.recv();
    assert_eq!(r["id"], 6);
    assert_eq!(r["result"]["isError"], true);
    assert_eq!(r["result"]["_meta"]["camber/error"]["code"], "invalid_params");
    // still serving
    srv.send(json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
    assert_eq!(srv.recv(), json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
}

#[test]
fn a_cancel_stops_the_running_guest_and_other_requests_are_answered_meanwhile() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    srv.send(json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "spin", "arguments": {}, "_meta": {"progressToken": "tok"}}}));
    let progress = srv.recv();
    assert_eq!(progress["method"], "notifications/progress");
    assert_eq!(progress["params"]["progressToken"], "tok");
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(srv.recv()["id"], 2, "ping is answered while a call runs");
    let t0 = Instant::now();
    srv.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow", "reason": "user"}}));
    // the cancelled request gets no response; the next one does, promptly
    srv.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "after"}}}));
    let r = srv.recv();
    assert_eq!(r["id"], 3, "{r}");
    assert!(t0.elapsed() < Duration::from_secs(10));
}

#[test]
fn no_value_the_caller_sent_is_echoed_with_its_path_and_every_valid_frame_gets_its_id() {
    let s = store();
    let root = s.path().to_string_lossy().to_string();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    let secret = "/usr/lib/secret";
    let in_store = format!("{root}/facility_id=x");
    let leaks = |v: &Value| {
        let t = v.to_string();
        t.contains(secret) || t.contains(&root) || t.contains("usr/lib")
    };
    let requests = [
        // a schema refusal quotes the value
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": "ds-synthetic-chw-plant", "limit": secret}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": [format!("\"{secret}\"")]}}}),
        // an unknown tool or method named by a path (the store's too)
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": secret, "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": format!("\"{in_store}\""), "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": in_store}),
        json!({"jsonrpc": "2.0", "id": 7, "method": format!("\"{secret}\"")}),
        json!({"jsonrpc": "2.0", "id": 8, "method": "prompts/get", "params": {"name": secret}}),
        // a refusal naming the value
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "points", "arguments": {"facility_id": format!("\"{secret}\"")}}}),
    ];
    for req in requests {
        srv.send(req.clone());
        let r = srv.recv();
        assert_eq!(r["id"], req["id"], "{r}");
        assert!(!leaks(&r), "{req} -> {r}");
        assert!(r["error"].is_object() || r["result"]["isError"] == true, "{r}");
    }
    // a result's summary and fact texts that quote the caller's query
    for (id, query) in [(10, secret.to_string()), (11, in_store.clone())] {
        srv.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "dataset_search", "arguments": {"query": query}}}));
        let r = srv.recv();
        assert_eq!(r["result"]["isError"], false, "{r}");
        assert!(!leaks(&r), "{r}");
        let facts = r["result"]["_meta"]["camber/facts"].as_array().unwrap();
        assert!(facts[0]["text"].as_str().unwrap().contains("query \"<path>\""), "{}", facts[0]);
    }
    // an invalid id is never echoed; a valid one always is, however deep the message
    let frames: Vec<(String, Value, i64)> = vec![
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.into(), Value::Null, -32600),
        (r#"{"jsonrpc":"1.0","id":{"a":1},"method":"ping"}"#.into(), Value::Null, -32600),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.into(), Value::Null, -32600),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x","deep":{}1{}}}}}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            ),
            json!(12),
            -32602,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":"d","method":"ping","params":{{"p":{}1{}}}}}"#,
                "{\"a\":".repeat(5000),
                "}".repeat(5000)
            ),
            json!("d"),
            -32602,
        ),
    ];
    for (raw, id, code) in frames {
        srv.send_raw(raw.as_bytes());
        let r = srv.recv();
        assert_eq!((&r["id"], &r["error"]["code"]), (&id, &json!(code)), "{}", &raw[..raw.len().min(80)]);
    }
    // deep nesting a Value holds is served as usual
    let ok = format!(
        r#"{{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x","deep":{}1{}}}}}}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    srv.send_raw(ok.as_bytes());
    let r = srv.recv();
    assert_eq!(r["id"], 13);
    assert_eq!(r["result"]["isError"], false, "{r}");
}

#[test]
fn a_large_result_crosses_the_wire_once() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    // small: the text copy is the serialized data, as the revisions ask
    srv.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": 3}}}),
    );
    let r = srv.recv();
    let res = &r["result"];
    assert_eq!(
        serde_json::from_str::<Value>(res["content"][1]["text"].as_str().unwrap()).unwrap(),
        res["structuredContent"]
    );
    // large: the data once, in structuredContent; the text says where it is
    srv.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": 5000}}}));
    let mut line = String::new();
    srv.stdout.read_line(&mut line).unwrap();
    let r: Value = serde_json::from_str(&line).unwrap();
    let res = &r["result"];
    let data = serde_json::to_string(&res["structuredContent"]).unwrap();
    assert_eq!(res["structuredContent"]["rows"].as_array().unwrap().len(), 5000);
    assert!(data.len() > camber_serve::mcp::TEXT_COPY_MAX_BYTES, "{}", data.len());
    let copy = res["content"][1]["text"].as_str().unwrap();
    assert!(copy.contains("structuredContent") && copy.len() < 200, "{copy}");
    assert!(res["content"][0]["text"].as_str().unwrap().contains("[F1@echo-"), "the summary stays");
    assert!(
        line.len() < data.len() + 64 * 1024,
        "the message is {} bytes for {} bytes of data",
        line.len(),
        data.len()
    );
}

#[test]
fn a_call_asked_again_is_written_byte_for_byte_as_its_first_answer() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    let line = |srv: &mut Server, id: u64, n: u64| {
        srv.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"n": n}}}));
        let mut l = String::new();
        srv.stdout.read_line(&mut l).unwrap();
        l
    };
    // the second answer reuses the kept result, whose data is written from its kept text
    for (n, ids) in [(3, [10, 11, 12]), (5000, [20, 21, 22])] {
        let first = line(&mut srv, ids[0], n);
        for id in &ids[1..] {
            let again = line(&mut srv, *id, n);
            assert_eq!(again.replacen(&format!("\"id\":{id},"), &format!("\"id\":{},", ids[0]), 1), first, "n = {n}");
        }
        let v: Value = serde_json::from_str(&first).unwrap();
        assert_eq!(v["result"]["structuredContent"]["rows"].as_array().map(Vec::len), Some(n as usize));
    }
}

#[test]
fn a_client_that_asks_for_log_messages_gets_the_calls_log_line_without_its_arguments() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let init = srv.recv();
    assert!(init["result"]["capabilities"]["logging"].is_object(), "{init}");
    // before setLevel: no messages, only the result
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "quiet"}}}));
    assert_eq!(srv.recv()["id"], 2);
    srv.send(json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "loud"}}));
    assert_eq!(srv.recv()["error"]["code"], -32602);
    srv.send(json!({"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "info"}}));
    assert_eq!(srv.recv()["result"], json!({}));
    srv.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "a-secret-value"}}}));
    let m = srv.recv();
    assert_eq!(m["method"], "notifications/message", "{m}");
    assert_eq!(m["params"]["level"], "info");
    let line = m["params"]["data"].as_str().unwrap();
    assert!(line.contains("call echo") && line.contains("outcome=ok"), "{line}");
    assert!(!line.contains("a-secret-value"), "no argument value is logged: {line}");
    assert_eq!(srv.recv()["id"], 5);
    // at warning, a successful call's info line is not sent
    srv.send(json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "warning"}}));
    srv.recv();
    srv.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}}));
    assert_eq!(srv.recv()["id"], 7);
    // at debug, each step a guest reports is a log message too (a client can follow a long
    // call by its log alone), then the call's line
    srv.send(json!({"jsonrpc": "2.0", "id": 8, "method": "logging/setLevel", "params": {"level": "debug"}}));
    srv.recv();
    srv.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "progress_spam", "arguments": {"n": 4, "text": "step"}}}));
    let mut lines = Vec::new();
    loop {
        let m = srv.recv();
        if m["id"] == 9 {
            break;
        }
        lines.push((m["params"]["level"].clone(), m["params"]["data"].as_str().unwrap_or("").to_string()));
    }
    let debug: Vec<&String> = lines.iter().filter(|(l, _)| l == "debug").map(|(_, d)| d).collect();
    assert!(debug.len() >= 2 && debug.iter().all(|d| d.starts_with("camber: call progress_spam at ")), "{lines:?}");
    assert_eq!(lines.last().unwrap().0, "info", "{lines:?}");
}

/// Send a `tools/call` with a progress token; the progress notifications for it (their
/// params) and the response.
fn call_watched(srv: &mut Server, id: u64, name: &str, args: Value) -> (Vec<Value>, Value) {
    srv.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args, "_meta": {"progressToken": format!("t{id}")}}}));
    let mut notes = Vec::new();
    loop {
        let m = srv.recv();
        if m["id"] == id {
            return (notes, m);
        }
        if m["method"] == "notifications/progress" {
            assert_eq!(m["params"]["progressToken"], format!("t{id}"), "{m}");
            notes.push(m["params"].clone());
        }
    }
}

/// The progress values of `notes`, checked to rise strictly from 0 to 100 of 100.
fn rising(notes: &[Value]) -> Vec<u64> {
    let values: Vec<u64> = notes.iter().map(|n| n["progress"].as_u64().unwrap()).collect();
    assert!(notes.iter().all(|n| n["total"] == 100), "{notes:?}");
    assert_eq!(values.first(), Some(&0), "{values:?}");
    assert_eq!(values.last(), Some(&100), "{values:?}");
    assert!(values.windows(2).all(|w| w[0] < w[1]), "progress must only rise: {values:?}");
    values
}

#[test]
fn progress_comes_from_the_guest_as_its_work_goes_and_only_rises() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    // rule_run reports each equipment as it goes: far more than a start and an end
    let (notes, reply) = call_watched(&mut srv, 2, "rule_run", json!({"facility_id": "ds-synthetic-chw-plant"}));
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    let values = rising(&notes);
    assert!(values.len() >= 10, "one notification per equipment of the plant: {values:?}");
    let messages: Vec<&str> = notes.iter().filter_map(|n| n["message"].as_str()).collect();
    assert!(messages.iter().any(|m| m.starts_with("rules: CH__healthy (")), "{messages:?}");
    // drift and sensor_trust report too
    for (name, prefix) in [("sensor_trust", "trust: "), ("drift", "drift: "), ("rcx_report", "rules: ")] {
        let args = json!({"facility_id": "ds-synthetic-chw-plant", "baseline": ["2025-07-01", "2025-07-10"]});
        let args = if name == "drift" { args } else { json!({"facility_id": "ds-synthetic-chw-plant"}) };
        let (notes, reply) = call_watched(&mut srv, 3, name, args);
        assert_eq!(reply["result"]["isError"], false, "{name}: {reply}");
        assert!(rising(&notes).len() > 3, "{name}: {notes:?}");
        assert!(notes.iter().filter_map(|n| n["message"].as_str()).any(|m| m.starts_with(prefix)), "{name}: {notes:?}");
    }
    // a guest that reports 100,000 times, up and down, with long multi-line text naming the
    // store's path: each whole percent once, rising, one short line, no path
    let root = s.path().to_str().unwrap();
    let (notes, reply) =
        call_watched(&mut srv, 4, "progress_spam", json!({"n": 100_000, "text": format!("reading {root}/x")}));
    assert_eq!(reply["result"]["structuredContent"]["reported"], 100_000, "{reply}");
    let values = rising(&notes);
    assert!(values.len() <= 102, "{} notifications", values.len());
    for m in notes.iter().filter_map(|n| n["message"].as_str()) {
        assert!(!m.contains('\n') && m.chars().count() <= 160, "{m:?}");
        assert!(!m.contains(root), "the store's path reached the client: {m}");
    }
    // no token: no notification at all
    srv.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "progress_spam", "arguments": {"n": 10}}}));
    assert_eq!(srv.recv()["id"], 5);
}

#[test]
fn a_long_call_runs_as_a_task_the_official_client_polls_and_a_cancel_stops_it() {
    let s = store();
    let v = stdio_client("mcp_tasks_client.py", s.path());
    assert_eq!(v["failures"], json!([]), "{v}");
    assert_eq!(v["capabilities_tasks"]["requests"]["tools"]["call"], json!({}));
    assert_eq!(v["task_support"]["rule_run"], "optional", "{}", v["task_support"]);
    assert_eq!(v["statuses"].as_array().unwrap().last().unwrap(), "completed");
    assert_eq!(v["cancel_finished"]["error"]["code"], -32602);
    assert_eq!(v["get_unknown"]["error"]["code"], -32602);
    assert_eq!(v["status_notifications"][0]["status"], "completed", "the client hears the end");

    // a slow task cancelled with tasks/cancel stops its guest at once
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    srv.recv();
    let t0 = Instant::now();
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 5000}, "task": {"ttl": 30000}}}));
    let created = srv.recv();
    let task = created["result"]["task"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(created["result"]["task"]["status"], "working", "{created}");
    assert!(t0.elapsed() < Duration::from_secs(2), "the handle comes before the call ends");
    // a cancel of the request is not how a task is stopped
    srv.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}));
    srv.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": task}}));
    assert_eq!(srv.recv()["result"]["status"], "working");
    srv.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"taskId": task}}));
    assert_eq!(srv.recv()["result"]["status"], "cancelled");
    srv.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/result", "params": {"taskId": task}}));
    let mut result = Value::Null;
    while result.is_null() {
        let m = srv.recv();
        if m["id"] == 5 {
            result = m;
        }
    }
    assert_eq!(result["result"]["isError"], true, "{result}");
    assert_eq!(result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task);
    assert!(t0.elapsed() < Duration::from_millis(4500), "the guest stopped when the task was cancelled");
    // on the older revision the parameter is not of the protocol: an ordinary call
    let mut old = Server::start(s.path());
    old.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert!(old.recv()["result"]["capabilities"].get("tasks").is_none());
    old.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {}, "task": {}}}));
    assert_eq!(old.recv()["result"]["isError"], false);
    old.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/list", "params": {}}));
    assert_eq!(old.recv()["error"]["code"], -32601);
}

#[test]
fn a_prompts_facility_id_completes_from_the_facilities_this_caller_may_see() {
    let s = store();
    let mut srv = Server::start(s.path());
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    assert_eq!(srv.recv()["result"]["capabilities"]["completions"], json!({}));
    let prompt = |id: u64, argument: &str, value: &str| json!({"jsonrpc": "2.0", "id": id, "method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "rcx_executive_summary"}, "argument": {"name": argument, "value": value}}});
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/list"}));
    let names: Vec<String> = srv.recv()["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert!(names.iter().any(|n| n == "rcx_executive_summary"), "{names:?}");
    srv.send(prompt(3, "facility_id", "DS-syn"));
    let r = srv.recv();
    assert_eq!(r["result"]["completion"]["values"], json!(["ds-synthetic-chw-plant"]), "{r}");
    assert_eq!(r["result"]["completion"]["hasMore"], false);
    srv.send(prompt(4, "facility_id", "elsewhere"));
    assert_eq!(srv.recv()["result"]["completion"]["values"], json!([]));
    srv.send(prompt(5, "claim", "sav"));
    assert_eq!(srv.recv()["result"]["completion"]["total"], 0, "no suggestions for free text");
    srv.send(json!({"jsonrpc": "2.0", "id": 6, "method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "facility_id", "value": ""}}}));
    assert_eq!(srv.recv()["error"]["code"], -32602);
}

#[test]
fn a_watched_resource_is_said_to_change_when_an_ingest_rewrites_its_facility() {
    let s = store();
    let ingest = |ds: &str, how: &[&str]| {
        let out = Command::new(camber_bin())
            .args(["datasets", "ingest", ds])
            .args(how)
            .arg("--store")
            .arg(s.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    ingest("synthetic-ahu-economizer", &[]);
    let mut cmd = Command::new(camber_bin());
    cmd.args(["mcp", "--allow", "ds-synthetic-chw-plant", "--store"])
        .arg(s.path())
        .env("CAMBER_RESOURCE_POLL_MS", "100");
    let mut srv = Server::spawn(cmd);
    srv.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
    let init = srv.recv();
    assert_eq!(init["result"]["capabilities"]["resources"]["subscribe"], true, "{init}");
    let uri = "camber://facility/ds-synthetic-chw-plant/points";
    srv.send(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}}));
    assert_eq!(srv.recv()["result"], json!({}));
    // a facility outside this server's allowlist cannot be watched
    srv.send(json!({"jsonrpc": "2.0", "id": 3, "method": "resources/subscribe", "params": {"uri": "camber://facility/ds-synthetic-ahu-economizer/points"}}));
    assert_eq!(srv.recv()["error"]["code"], -32002);
    // pings until the notification comes (each ping is answered, so no read waits forever)
    let until_note = |srv: &mut Server, rounds: u64| -> Option<Value> {
        for k in 0..rounds {
            srv.send(json!({"jsonrpc": "2.0", "id": 100 + k, "method": "ping"}));
            loop {
                let m = srv.recv();
                if m["method"] == "notifications/resources/updated" {
                    return Some(m);
                }
                if m["id"] == json!(100 + k) {
                    break;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    };
    assert!(until_note(&mut srv, 3).is_none(), "nothing changed yet");
    ingest("synthetic-chw-plant", &["--replace"]);
    let note = until_note(&mut srv, 300).expect("told of the change");
    assert_eq!(note["params"]["uri"], uri);
    // unsubscribed: told nothing more
    srv.send(json!({"jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": {"uri": uri}}));
    // (a ping's answer or another note of the same rewrite may come first)
    let answer = loop {
        let m = srv.recv();
        if m["id"] == 4 {
            break m;
        }
    };
    assert_eq!(answer["result"], json!({}));
    // a look the watcher had begun before the unsubscribe may still end in a note: let it pass
    let _ = until_note(&mut srv, 5);
    ingest("synthetic-chw-plant", &["--replace"]);
    assert!(until_note(&mut srv, 10).is_none(), "an unsubscribed resource is not watched");
}
