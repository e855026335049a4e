//! What the serving adapters do when their surroundings misbehave: a client that closes or
//! stops reading stderr, a reader of `camber call` that goes away, and a panic in the host
//! while a call runs. Every call is still answered, and nothing reaches the caller but a
//! one-line error.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use camber_tests::{cache_dir, camber_bin, demo_store, test_components_dir};
use serde_json::{json, Value};

/// `camber mcp` over a store, with the hostile components, `stderr` as given.
fn mcp(
    store: &std::path::Path,
    stderr: Stdio,
    env: &[(&str, &str)],
    args: &[&str],
) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut cmd = Command::new(camber_bin());
    cmd.args(["mcp", "--allow", "hq", "--store"]).arg(store).args(args);
    cmd.env("CAMBER_CACHE_DIR", cache_dir()).env("CAMBER_CAPABILITIES", test_components_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

fn call(id: u64, name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string()
        + "\n"
}

/// Every response line until stdout closes, read on a thread so that a server that stalls
/// fails the test (after `limit`) instead of hanging it.
fn responses_until_eof(stdout: BufReader<ChildStdout>, limit: Duration) -> Vec<Value> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if tx.send(serde_json::from_str::<Value>(&line).unwrap_or(Value::Null)).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + limit;
    let mut out = Vec::new();
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
            Ok(v) => out.push(v),
            Err(mpsc::RecvTimeoutError::Disconnected) => return out,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("the server stalled after {} responses", out.len()),
        }
    }
}

#[test]
fn a_closed_stderr_costs_no_call_its_answer() {
    let store = demo_store();
    let (mut child, mut stdin, stdout) = mcp(store.path(), Stdio::piped(), &[], &[]);
    // the client closes its end of the server's stderr: every log line now fails
    drop(child.stderr.take());
    let mut batch = String::new();
    for id in 0..50 {
        batch.push_str(&call(id, "echo", json!({"text": "hi"})));
    }
    stdin.write_all(batch.as_bytes()).unwrap();
    drop(stdin);
    let got = responses_until_eof(stdout, Duration::from_secs(300));
    assert_eq!(got.len(), 50, "every call is answered: {:?}", got.first());
    assert!(
        got.iter().all(|r| r["result"]["isError"] == false),
        "{:?}",
        got.iter().find(|r| r["result"]["isError"] != false)
    );
    assert!(child.wait().unwrap().success());
}

#[test]
fn an_unread_stderr_drops_log_lines_instead_of_stalling_the_server() {
    let store = demo_store();
    let (mut child, mut stdin, stdout) = mcp(store.path(), Stdio::piped(), &[], &[]);
    let stderr = child.stderr.take().unwrap();
    // nobody reads stderr: its pipe fills after about a thousand log lines
    let n = 3000u64;
    let writer = std::thread::spawn(move || {
        for id in 0..n {
            stdin.write_all(call(id, "echo", json!({})).as_bytes()).unwrap();
        }
        stdin
    });
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut lines = stdout.lines();
        for _ in 0..n + 1 {
            let Some(Ok(l)) = lines.next() else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&l).unwrap_or(Value::Null));
        }
    });
    let mut answered = 0;
    while answered < n {
        match rx.recv_timeout(Duration::from_secs(300)) {
            Ok(v) => {
                assert_eq!(v["result"]["isError"], false, "{v}");
                answered += 1;
            }
            Err(_) => panic!("the server stalled after {answered} of {n} calls while its stderr was not read"),
        }
    }
    // now read stderr: the lines that fit are there, with a count of those dropped
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut s);
        s
    });
    let mut stdin = writer.join().unwrap();
    stdin.write_all(call(n, "echo", json!({})).as_bytes()).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(300)).unwrap()["id"], n);
    drop(stdin);
    reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    let log = log.join().unwrap();
    let dropped: u64 = log
        .lines()
        .filter_map(|l| l.strip_prefix("camber: ")?.split_once(" log line(s) dropped")?.0.parse::<u64>().ok())
        .sum();
    let written = log.lines().filter(|l| l.starts_with("camber: call echo ")).count() as u64;
    assert!(dropped > 0, "{log}");
    assert_eq!(written + dropped, n + 1, "every line is written or counted");
}

#[test]
fn camber_call_into_a_closed_pipe_ends_quietly() {
    let mut child = Command::new(camber_bin())
        .args(["call", "echo", r#"{"n": 5000}"#, "--capabilities"])
        .arg(test_components_dir())
        .env("CAMBER_CACHE_DIR", cache_dir())
        .env("RUST_BACKTRACE", "1")
        .env_remove("CAMBER_CAPABILITIES")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // read one byte of a result far larger than a pipe holds, then go away (`| head -c 1`)
    let mut stdout = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    stdout.read_exact(&mut one).unwrap();
    assert_eq!(&one, b"{");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_ne!(out.status.code(), Some(101), "a panic's status: {err}");
    assert!(!err.contains("panicked") && !err.contains("backtrace") && !err.contains('/'), "{err}");
}

#[test]
fn a_panic_in_the_host_is_that_calls_internal_error_and_the_server_goes_on() {
    let store = demo_store();
    let env = [("CAMBER_TEST_HOST_PANIC", "echo")];
    let (mut child, mut stdin, stdout) = mcp(store.path(), Stdio::piped(), &env, &["--workers", "1"]);
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut s);
        s
    });
    let mut batch = call(1, "echo", json!({})) + &call(2, "echo", json!({}));
    batch += &call(3, "points", json!({"facility_id": "hq"}));
    batch += "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n";
    stdin.write_all(batch.as_bytes()).unwrap();
    drop(stdin);
    let got = responses_until_eof(stdout, Duration::from_secs(300));
    assert_eq!(got.len(), 4, "{got:?}");
    let by_id = |id: u64| got.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no answer to {id}: {got:?}"));
    for id in [1, 2] {
        let r = &by_id(id)["result"];
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(r["_meta"]["camber/error"]["code"], "internal", "{r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("internal: ") && !text.contains('/') && !text.contains('\n'), "{text}");
    }
    assert_eq!(by_id(3)["result"]["isError"], false, "the one worker still serves");
    assert_eq!(by_id(4)["result"], json!({}));
    assert!(child.wait().unwrap().success());
    let log = log.join().unwrap();
    let panics: Vec<&str> = log.lines().filter(|l| l.contains("panic")).collect();
    assert!(panics.iter().any(|l| l.contains("test-only host panic")), "the panic is logged: {log}");
    assert!(panics.iter().all(|l| !l.contains("/srv/camber")), "without its paths: {log}");
    assert!(log.lines().any(|l| l.starts_with("camber: call echo ") && l.contains("outcome=internal")), "{log}");
}

#[test]
fn a_lost_worker_is_replaced() {
    let store = demo_store();
    let env = [("CAMBER_TEST_WORKER_PANIC", "echo")];
    let (mut child, mut stdin, stdout) = mcp(store.path(), Stdio::piped(), &env, &["--workers", "1"]);
    let stderr = child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = BufReader::new(stderr).read_to_string(&mut s);
        s
    });
    // each echo kills the only worker after it answers
    let mut batch = String::new();
    for id in 0..3 {
        batch += &call(id, "echo", json!({}));
    }
    batch += &call(3, "points", json!({"facility_id": "hq"}));
    stdin.write_all(batch.as_bytes()).unwrap();
    drop(stdin);
    let got = responses_until_eof(stdout, Duration::from_secs(300));
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got.iter().all(|r| r["result"]["isError"] == false), "{got:?}");
    assert!(child.wait().unwrap().success());
    let log = log.join().unwrap();
    assert_eq!(log.lines().filter(|l| l.contains("started another in its place")).count(), 3, "{log}");
}

#[test]
fn the_cli_answers_a_host_panic_with_an_internal_error() {
    let store = demo_store();
    let out = Command::new(camber_bin())
        .args(["call", "echo", "{}", "--capabilities"])
        .arg(test_components_dir())
        .arg("--store")
        .arg(store.path())
        .env("CAMBER_CACHE_DIR", cache_dir())
        .env("CAMBER_TEST_HOST_PANIC", "echo")
        .env("RUST_BACKTRACE", "1")
        .env_remove("CAMBER_CAPABILITIES")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "internal", "{v}");
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(!msg.contains('/'), "{msg}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().count() <= 2 && !err.contains("/srv/camber") && !err.contains("stack backtrace"), "{err}");
}
