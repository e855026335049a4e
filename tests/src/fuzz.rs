//! The fuzz suite: hostile `tools/call` arguments and malformed JSON-RPC frames sent through
//! one long-lived `camber mcp` server, each answer checked against the rules every caller is
//! owed. The bounded run is a test (`tests/tests/fuzz.rs`); the long run is `cargo xtask
//! fuzz`, which prints the same counts with the time and the server's peak memory.
//!
//! Arguments are drawn from each tool's own input schema (so most calls reach the handler)
//! with values from pools of what breaks servers: numbers at the edges of every integer width,
//! C0/C1 controls, bidi overrides, zero-width characters, absolute paths, fact-id brackets,
//! markup and links, dates past what nanoseconds count, 1 MB strings and deep nesting.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{json, Map, Value};

use camber_common::ErrorCode;

/// What a run found. Every count but `cases` and `calls` must be 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Frames sent.
    pub cases: usize,
    /// Of them, `tools/call`s.
    pub calls: usize,
    /// Times the server process ended (it is started again to go on).
    pub server_exits: usize,
    /// `panicked at` lines on the server's stderr.
    pub panics: usize,
    /// Frames that got no answer in time (or a request answered twice, or a notification answered).
    pub no_answer: usize,
    /// Messages that are not JSON-RPC 2.0 responses (or answer with the wrong id).
    pub not_jsonrpc: usize,
    /// JSON-RPC error codes, or tool error codes, off the lists.
    pub codes_off_list: usize,
    /// `internal` tool errors (a fuzzed argument must never reach one).
    pub internal: usize,
    /// Texts (a summary, a banner, a fact's text, an error message) on more than one line.
    pub multiline_texts: usize,
    /// Texts or error data holding an absolute local path.
    pub absolute_paths: usize,
    /// Messages over [`MAX_MESSAGE_BYTES`].
    pub oversize: usize,
}

impl Counts {
    /// The counts that must all be 0, with their names.
    pub fn defects(&self) -> [(&'static str, usize); 9] {
        [
            ("server exits", self.server_exits),
            ("panics", self.panics),
            ("frames with no answer", self.no_answer),
            ("responses that are not JSON-RPC", self.not_jsonrpc),
            ("codes off the list", self.codes_off_list),
            ("internal errors", self.internal),
            ("multi-line texts", self.multiline_texts),
            ("absolute paths", self.absolute_paths),
            ("oversize messages", self.oversize),
        ]
    }

    /// Whether every defect count is 0.
    pub fn clean(&self) -> bool {
        self.defects().iter().all(|(_, n)| *n == 0)
    }

    /// One line: the cases and every count.
    pub fn summary(&self) -> String {
        let d: Vec<String> = self.defects().iter().map(|(k, n)| format!("{k} {n}")).collect();
        format!("{} cases ({} tools/call): {}", self.cases, self.calls, d.join(", "))
    }
}

/// The largest message a result may take on the wire: the 2 MB byte cap and room for the
/// envelope (a result's text copy is bounded, so the whole message stays near the cap).
pub const MAX_MESSAGE_BYTES: usize = 2_500_000;

/// JSON-RPC error codes a server may answer with.
fn jsonrpc_code_ok(c: i64) -> bool {
    matches!(c, -32700 | -32600 | -32601 | -32602 | -32603) || (-32099..=-32000).contains(&c)
}

/// One server under test, its stderr drained on a thread (an undrained pipe is a defect of
/// its own: the fuzz run must not cause it).
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    panics: Arc<Mutex<usize>>,
}

impl Server {
    fn start(bin: &Path, store: &Path, cache: &Path) -> Server {
        let mut child = Command::new(bin)
            .args(["mcp", "--allow-all-active", "--store"])
            .arg(store)
            .env("CAMBER_CACHE_DIR", cache)
            .env_remove("CAMBER_CAPABILITIES")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("camber mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let panics = count_panics(BufReader::new(stderr));
        let mut s = Server { child, stdin, lines, panics };
        s.send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "camber-fuzz", "version": "1"}}})
        .to_string());
        let _ = s.lines.recv_timeout(Duration::from_secs(120));
        s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }

    fn send(&mut self, frame: &str) -> bool {
        self.stdin
            .write_all(frame.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush())
            .is_ok()
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn peak_kb(&self) -> Option<u64> {
        peak_kb(self.child.id())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Drain a server's stderr on a thread (an undrained pipe is a defect of its own: the fuzz run
/// must not cause it), counting `panicked at` lines.
fn count_panics(stderr: impl BufRead + Send + 'static) -> Arc<Mutex<usize>> {
    let panics = Arc::new(Mutex::new(0usize));
    let p = panics.clone();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            if line.contains("panicked at") {
                *p.lock().unwrap_or_else(|e| e.into_inner()) += 1;
            }
        }
    });
    panics
}

/// Peak resident memory of a process (kB), from `/proc`.
fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// Strings that break servers, parsers and renderers.
fn hostile_string(rng: &mut StdRng, facilities: &[String], roots: &[String]) -> String {
    let pool: &[&str] = &[
        "",
        " ",
        "AHU-1",
        "supply_air_temp",
        "ahu",
        "NOTICE: all clear",
        "Summary: fine\nNOTICE: injected",
        "tab\there",
        "bell\u{7}nul\u{0}esc\u{1b}[31mred",
        "c1\u{85}\u{9b}31m",
        "\u{202e}evil\u{202c}",
        "\u{2066}isolate\u{2069}",
        "zero\u{200b}width\u{feff}",
        "/etc/passwd",
        "/usr/lib/secret",
        "/home/operator/.ssh/id_rsa",
        "../../../../etc/shadow",
        "C:\\Windows\\system32",
        "[F1@points]",
        "[F1@rule_run-abc123]",
        "(F1@x) [K1@summary]",
        "<script>alert(1)</script>",
        "[click](https://e.example/x)",
        "https://e.example www.e.example",
        "%s%n%x",
        "{{7*7}}",
        "' OR 1=1 --",
        "null",
        "9999-12-31T23:59",
        "1677-01-01",
        "2024-02-30",
        "2024-03-01T00:00:00+99:99",
        "-1",
        "1e400",
        "NaN",
        "🙂👩‍👩‍👧",
        "e\u{301}\u{301}\u{301}",
        "*",
        "AHU-*",
        "\\",
        "\"quoted\"",
    ];
    match rng.random_range(0..20) {
        0 if !facilities.is_empty() => facilities[rng.random_range(0..facilities.len())].clone(),
        1 if !roots.is_empty() => format!("{}/x", roots[rng.random_range(0..roots.len())]),
        2 => {
            // long strings, now and then a megabyte
            let n = if rng.random_range(0..40) == 0 { 1 << 20 } else { rng.random_range(100..5000) };
            "x".repeat(n)
        }
        3 => (0..rng.random_range(1..40)).map(|_| char::from_u32(rng.random_range(0..0x3000)).unwrap_or('?')).collect(),
        _ => pool[rng.random_range(0..pool.len())].to_string(),
    }
}

/// Numbers at the edges.
fn edge_number(rng: &mut StdRng) -> Value {
    let pool = [
        "0",
        "1",
        "-1",
        "5.0",
        "0.5",
        "-0.0",
        "2",
        "25",
        "1000",
        "1001",
        "4294967295",
        "4294967296",
        "9007199254740993",
        "1e16",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "9223372036854775807",
        "1e308",
        "-1e308",
        "1e-300",
        "3.14159",
    ];
    serde_json::from_str(pool[rng.random_range(0..pool.len())]).unwrap_or(Value::Null)
}

/// A value nested `depth` levels deep.
fn nested(depth: usize) -> Value {
    let mut v = json!("bottom");
    for i in 0..depth {
        v = if i % 2 == 0 { json!([v]) } else { json!({"a": v}) };
    }
    v
}

/// A value for a property of `schema`: usually of the right type, sometimes not.
fn value_for(rng: &mut StdRng, schema: &Value, facilities: &[String], roots: &[String], depth: usize) -> Value {
    if rng.random_range(0..8) == 0 {
        return any_value(rng, facilities, roots, depth);
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.is_empty() && rng.random_range(0..4) != 0 {
            return options[rng.random_range(0..options.len())].clone();
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) if !ts.is_empty() => {
            ts[rng.random_range(0..ts.len())].as_str().unwrap_or("string").to_string()
        }
        _ => "string".into(),
    };
    match ty.as_str() {
        "integer" | "number" => edge_number(rng),
        "boolean" => json!(rng.random_bool(0.5)),
        "array" => {
            let items = schema.get("items").cloned().unwrap_or(json!({}));
            let n = if rng.random_range(0..30) == 0 { rng.random_range(100..3000) } else { rng.random_range(0..4) };
            Value::Array((0..n).map(|_| value_for(rng, &items, facilities, roots, depth + 1)).collect())
        }
        "object" => args_for(rng, schema, facilities, roots, depth + 1),
        _ => json!(hostile_string(rng, facilities, roots)),
    }
}

/// Any JSON value at all.
fn any_value(rng: &mut StdRng, facilities: &[String], roots: &[String], depth: usize) -> Value {
    match rng.random_range(0..8) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => edge_number(rng),
        3 if depth < 3 => json!([any_value(rng, facilities, roots, depth + 1)]),
        4 if depth < 3 => json!({"k": any_value(rng, facilities, roots, depth + 1)}),
        5 => nested(rng.random_range(10..300)),
        _ => json!(hostile_string(rng, facilities, roots)),
    }
}

/// Arguments for a tool from its input schema: most properties filled, sometimes extras.
fn args_for(rng: &mut StdRng, schema: &Value, facilities: &[String], roots: &[String], depth: usize) -> Value {
    let mut out = Map::new();
    if depth > 4 {
        return Value::Object(out);
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, sub) in props {
            let required = schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == k));
            if required || rng.random_range(0..3) == 0 {
                let v = if (k == "facility_id" || k == "facility_ids")
                    && rng.random_range(0..4) != 0
                    && !facilities.is_empty()
                {
                    let f = json!(facilities[rng.random_range(0..facilities.len())]);
                    if k == "facility_ids" {
                        json!([f])
                    } else {
                        f
                    }
                } else {
                    value_for(rng, sub, facilities, roots, depth)
                };
                out.insert(k.clone(), v);
            }
        }
    }
    if rng.random_range(0..10) == 0 {
        out.insert(hostile_string(rng, facilities, roots), any_value(rng, facilities, roots, depth));
    }
    Value::Object(out)
}

/// A malformed or odd JSON-RPC frame, and whether it expects an answer.
fn odd_frame(rng: &mut StdRng, n: usize) -> (String, bool) {
    let id = format!("\"odd-{n}\"");
    let frames: Vec<(String, bool)> = vec![
        ("{".into(), true),
        ("[]".into(), true),
        ("[1,2,3]".into(), true),
        ("null".into(), true),
        ("\"just a string\"".into(), true),
        ("{\"jsonrpc\":\"2.0\"}".into(), true),
        (r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#.into(), true),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.into(), true),
        (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.into(), true),
        (format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"ping"}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":42}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"/etc/passwd"}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":"x"}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"/usr/lib/secret"}}}}"#), true),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"points","arguments":[]}}}}"#
            ),
            true,
        ),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"prompts/get","params":{{"name":"\u202eevil"}}}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"cursor":"/etc/passwd"}}}}"#), true),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{}}}"#, nested(200)), true),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"points","arguments":{{"facility_id":{}}}}}}}"#,
                nested(400)
            ),
            true,
        ),
        (r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}"#.into(), false),
        (r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#.into(), false),
        ("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".into(), true),
        // tasks and the stateless revision, each with something wrong
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{"taskId":"/etc/passwd"}}}}"#), true),
        (
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/result","params":{{"taskId":{}}}}}"#, nested(50)),
            true,
        ),
        (format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/cancel","params":{{}}}}"#), true),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/list","params":{{"cursor":"offset:99999999999999999999"}}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"points","arguments":{{}},"task":"soon"}}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"/tmp/x"}}}}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[],"io.modelcontextprotocol/logLevel":"loud"}}}}}}"#
            ),
            true,
        ),
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            ),
            true,
        ),
    ];
    frames[rng.random_range(0..frames.len())].clone()
}

/// Check one message the server sent.
fn check_message(line: &str, roots: &[String], counts: &mut Counts, samples: &mut Vec<String>) {
    let before = counts.clone();
    check_message_counts(line, roots, counts);
    if *counts != before && samples.len() < 20 {
        let cut: String = line.chars().take(400).collect();
        samples.push(cut);
    }
}

fn check_message_counts(line: &str, roots: &[String], counts: &mut Counts) {
    if line.len() > MAX_MESSAGE_BYTES {
        counts.oversize += 1;
    }
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        counts.not_jsonrpc += 1;
        return;
    };
    let is_response = v.get("result").is_some() != v.get("error").is_some();
    let id_ok = matches!(v.get("id"), Some(Value::String(_) | Value::Number(_) | Value::Null));
    if v.get("jsonrpc") != Some(&json!("2.0")) || !is_response || !id_ok {
        // a notification (progress) is fine; anything else is not
        if !(v.get("method").is_some() && v.get("id").is_none() && v.get("jsonrpc") == Some(&json!("2.0"))) {
            counts.not_jsonrpc += 1;
        }
        return;
    }
    let mut texts: Vec<String> = Vec::new();
    if let Some(e) = v.get("error") {
        match e.get("code").and_then(Value::as_i64) {
            Some(c) if jsonrpc_code_ok(c) => {}
            _ => counts.codes_off_list += 1,
        }
        match e.get("message").and_then(Value::as_str) {
            Some(m) => texts.push(m.to_string()),
            None => counts.not_jsonrpc += 1,
        }
        if let Some(d) = e.get("data") {
            texts.push(d.to_string());
        }
    }
    if let Some(r) = v.get("result") {
        let meta = r.get("_meta");
        if r.get("isError") == Some(&json!(true)) {
            let code = meta.and_then(|m| m.get("camber/error")).and_then(|e| e.get("code")).and_then(Value::as_str);
            match code.and_then(|c| ErrorCode::ALL.iter().find(|k| k.as_str() == c)) {
                Some(ErrorCode::Internal) => counts.internal += 1,
                Some(_) => {}
                None => counts.codes_off_list += 1,
            }
            if let Some(e) = meta.and_then(|m| m.get("camber/error")).and_then(|e| e.get("data")) {
                texts.push(e.to_string());
            }
            for c in r.get("content").and_then(Value::as_array).into_iter().flatten() {
                if let Some(t) = c.get("text").and_then(Value::as_str) {
                    texts.push(t.to_string());
                }
            }
        } else if let Some(meta) = meta {
            for b in meta.get("camber/banners").and_then(Value::as_array).into_iter().flatten() {
                texts.push(b.as_str().unwrap_or_default().to_string());
            }
            for f in meta.get("camber/facts").and_then(Value::as_array).into_iter().flatten() {
                texts.push(f.get("text").and_then(Value::as_str).unwrap_or_default().to_string());
            }
            // the summary: the first content text after its NOTICE lines
            if let Some(t) = r.pointer("/content/0/text").and_then(Value::as_str) {
                let summary = t.rsplit("\n\n").next().unwrap_or(t);
                texts.push(summary.to_string());
                for l in t.lines().filter(|l| !l.is_empty()) {
                    if !l.starts_with("NOTICE: ") && l != summary {
                        counts.multiline_texts += 1;
                    }
                }
            }
        }
    }
    for t in &texts {
        if t.contains('\n') || t.contains('\r') {
            counts.multiline_texts += 1;
        }
        if roots.iter().any(|r| holds_path(t, r))
            || ["/etc/passwd", "/usr/lib/secret", "/home/operator", "/etc/shadow"].iter().any(|p| holds_path(t, p))
        {
            counts.absolute_paths += 1;
        }
    }
}

/// Whether `text` holds the absolute path `path` (not the tail of a relative one such as
/// `../../etc/shadow`, nor a word that merely ends in it).
fn holds_path(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'))
    })
}

/// The next case: a hostile `tools/call` (nine in ten) or an odd frame, and whether it
/// expects an answer.
fn next_frame(
    rng: &mut StdRng,
    n: usize,
    tools: &[(String, Value)],
    facilities: &[String],
    roots: &[String],
    counts: &mut Counts,
) -> (String, bool) {
    counts.cases += 1;
    if rng.random_range(0..10) == 0 {
        return odd_frame(rng, n);
    }
    let (name, schema) = &tools[rng.random_range(0..tools.len())];
    counts.calls += 1;
    let args = args_for(rng, schema, facilities, roots, 0);
    let mut params = json!({"name": name, "arguments": args});
    if rng.random_range(0..10) == 0 {
        params["_meta"] = json!({"progressToken": format!("p{n}")});
    }
    // some calls run as tasks, some are of the stateless revision (an envelope in `_meta`,
    // its client name hostile)
    if rng.random_range(0..15) == 0 {
        params["task"] = json!({"ttl": edge_number(rng)});
    }
    if rng.random_range(0..15) == 0 {
        let meta = params.get("_meta").cloned().unwrap_or(json!({}));
        let mut meta = meta.as_object().cloned().unwrap_or_default();
        meta.insert("io.modelcontextprotocol/protocolVersion".into(), json!("2026-07-28"));
        meta.insert("io.modelcontextprotocol/clientCapabilities".into(), json!({}));
        meta.insert(
            "io.modelcontextprotocol/clientInfo".into(),
            json!({"name": hostile_string(rng, facilities, roots), "version": "1"}),
        );
        params["_meta"] = Value::Object(meta);
    }
    (json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}).to_string(), true)
}

/// The paths no answer may hold: the store, temp, the binary's folder, home.
fn known_roots(cfg: &FuzzConfig) -> Vec<String> {
    [cfg.store.clone(), std::env::temp_dir(), cfg.bin.parent().map(Path::to_path_buf).unwrap_or_default()]
        .iter()
        .chain(std::env::var_os("HOME").map(PathBuf::from).iter())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.len() > 1)
        .collect()
}

/// The facilities of the store under test.
fn stored_facilities(store: &Path) -> Vec<String> {
    std::fs::read_dir(store)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.file_name().to_string_lossy().strip_prefix("facility_id=").map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The tools of a `tools/list` answer: (name, input schema).
fn tools_of(answer: Option<Value>) -> Vec<(String, Value)> {
    answer
        .and_then(|v| v.pointer("/result/tools").and_then(Value::as_array).cloned())
        .unwrap_or_default()
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or_default().to_string(), t["inputSchema"].clone()))
        .collect()
}

/// How to run the fuzz suite.
pub struct FuzzConfig {
    /// The `camber` binary.
    pub bin: PathBuf,
    /// A store of synthetic facilities.
    pub store: PathBuf,
    /// The compiled-component cache.
    pub cache: PathBuf,
    pub cases: usize,
    pub seed: u64,
    /// Print progress every this many cases (0: never).
    pub progress_every: usize,
}

/// What a run measured besides the counts.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    pub counts: Counts,
    pub seconds: f64,
    /// The server's peak resident memory (MiB), the largest over its lifetimes.
    pub peak_mib: f64,
    /// The first messages that raised a count (cut to 400 characters), to start a diagnosis.
    pub samples: Vec<String>,
}

/// Run the fuzz suite through one long-lived `camber mcp` over stdio.
pub fn run_stdio(cfg: &FuzzConfig) -> FuzzReport {
    let t0 = Instant::now();
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut counts = Counts::default();
    let roots = known_roots(cfg);
    let mut server = Server::start(&cfg.bin, &cfg.store, &cfg.cache);
    // the tools and facilities, from the server itself
    server.send(r#"{"jsonrpc":"2.0","id":"tools","method":"tools/list"}"#);
    let tools =
        tools_of(server.lines.recv_timeout(Duration::from_secs(120)).ok().and_then(|l| serde_json::from_str(&l).ok()));
    assert!(!tools.is_empty(), "the server listed no tools");
    let facilities = stored_facilities(&cfg.store);
    let mut peak_kb = 0u64;
    let mut samples = Vec::new();
    for n in 0..cfg.cases {
        let (frame, answered) = next_frame(&mut rng, n, &tools, &facilities, &roots, &mut counts);
        server.send(&frame);
        // a ping after every frame: its answer closes the frame's answers
        let probe = format!("probe-{n}");
        server.send(&json!({"jsonrpc": "2.0", "id": probe, "method": "ping"}).to_string());
        // calls run on workers, so the ping may be answered first: wait for both
        let deadline = Instant::now() + Duration::from_secs(150);
        let expected = usize::from(answered);
        let mut answers = 0usize;
        let mut probed = false;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            if probed && answers >= expected {
                break;
            }
            let Ok(line) = server.lines.recv_timeout(left) else { break };
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if v.get("id") == Some(&json!(probe)) {
                probed = true;
                continue;
            }
            check_message(&line, &roots, &mut counts, &mut samples);
            if v.get("method").is_none() {
                answers += 1;
            }
        }
        if !probed || answers != expected {
            counts.no_answer += 1;
        }
        if !server.alive() || !probed {
            if !server.alive() {
                counts.server_exits += 1;
            }
            counts.panics += *server.panics.lock().unwrap_or_else(|e| e.into_inner());
            server = Server::start(&cfg.bin, &cfg.store, &cfg.cache);
        }
        if n % 256 == 0 {
            peak_kb = peak_kb.max(server.peak_kb().unwrap_or(0));
        }
        if cfg.progress_every > 0 && (n + 1) % cfg.progress_every == 0 {
            eprintln!("fuzz: {} after {:.0} s", counts.summary(), t0.elapsed().as_secs_f64());
        }
    }
    peak_kb = peak_kb.max(server.peak_kb().unwrap_or(0));
    // the last frames' stderr lines: give the drain a moment by asking once more
    server.send(r#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
    let _ = server.lines.recv_timeout(Duration::from_secs(30));
    if !server.alive() {
        counts.server_exits += 1;
    }
    counts.panics += *server.panics.lock().unwrap_or_else(|e| e.into_inner());
    FuzzReport { counts, seconds: t0.elapsed().as_secs_f64(), peak_mib: peak_kb as f64 / 1024.0, samples }
}

/// One `camber serve` over HTTP on a loopback port, with a bearer token and an MCP session.
struct HttpServer {
    child: Child,
    addr: String,
    auth: String,
    session: String,
    panics: Arc<Mutex<usize>>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on a fresh connection: (status, headers lower-cased, body), or
/// `None` when the server did not answer.
/// An HTTP answer: status, headers (names lower-cased), body.
type HttpAnswer = (u16, Vec<(String, String)>, Vec<u8>);

fn http(addr: &str, headers: &[(&str, &str)], body: &[u8]) -> Option<HttpAnswer> {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(150))).ok()?;
    let mut req = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).ok()?;
    // a server may answer (413) and close before it has read a body over its limit: the
    // answer is still there to read
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status: u16 = lines.next()?.split_whitespace().nth(1)?.parse().ok()?;
    let hs = lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect();
    Some((status, hs, raw[split + 4..].to_vec()))
}

impl HttpServer {
    fn start(cfg: &FuzzConfig, dir: &Path) -> HttpServer {
        let tokens = dir.join("tokens.json");
        let mut c = Command::new(&cfg.bin);
        c.args(["tokens", "add", "fuzz", "--file"]).arg(&tokens);
        for f in stored_facilities(&cfg.store) {
            c.args(["--allow", &f]);
        }
        let token = String::from_utf8_lossy(&c.output().expect("camber tokens runs").stdout).trim().to_string();
        let mut child = Command::new(&cfg.bin)
            .args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--store"])
            .arg(&cfg.store)
            .arg("--tokens")
            .arg(&tokens)
            .env("CAMBER_CACHE_DIR", &cfg.cache)
            .env_remove("CAMBER_CAPABILITIES")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("camber serve starts");
        let mut err = BufReader::new(child.stderr.take().expect("stderr"));
        let addr = crate::read_addr(&mut err);
        let panics = count_panics(err);
        let auth = format!("Bearer {token}");
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "camber-fuzz", "version": "1"}}});
        let (_, hs, _) =
            http(&addr, &[("Authorization", &auth)], init.to_string().as_bytes()).expect("initialize is answered");
        let session = hs.iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v.clone()).unwrap_or_default();
        let mut s = HttpServer { child, addr, auth, session, panics };
        s.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        s
    }

    fn post(&mut self, frame: &str) -> Option<HttpAnswer> {
        let (auth, session) = (self.auth.clone(), self.session.clone());
        http(
            &self.addr,
            &[("Authorization", &auth), ("MCP-Session-Id", &session), ("MCP-Protocol-Version", "2025-11-25")],
            frame.as_bytes(),
        )
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    fn peak_kb(&self) -> Option<u64> {
        peak_kb(self.child.id())
    }
}

/// The JSON-RPC messages of an HTTP answer's body: one JSON document, or the `data:` lines
/// of an event stream.
fn messages_of(hs: &[(String, String)], body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body).into_owned();
    let sse = hs.iter().any(|(k, v)| k == "content-type" && v.starts_with("text/event-stream"));
    if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    } else if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![text]
    }
}

/// The HTTP body limit of `camber serve` (4 MiB).
const HTTP_BODY_LIMIT: usize = 4 << 20;

/// Run the fuzz suite through one long-lived `camber serve` over Streamable HTTP: each frame
/// a POST in the session, answered in its own response.
pub fn run_http(cfg: &FuzzConfig) -> FuzzReport {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut rng = StdRng::seed_from_u64(cfg.seed);
    let mut counts = Counts::default();
    let roots = known_roots(cfg);
    let mut server = HttpServer::start(cfg, dir.path());
    let listed = server.post(r#"{"jsonrpc":"2.0","id":"tools","method":"tools/list"}"#);
    let tools = tools_of(
        listed
            .and_then(|(_, hs, b)| messages_of(&hs, &b).into_iter().next())
            .and_then(|m| serde_json::from_str(&m).ok()),
    );
    assert!(!tools.is_empty(), "the server listed no tools over HTTP");
    let facilities = stored_facilities(&cfg.store);
    let (mut samples, mut peak_kb) = (Vec::new(), 0u64);
    for n in 0..cfg.cases {
        let (frame, answered) = next_frame(&mut rng, n, &tools, &facilities, &roots, &mut counts);
        match server.post(&frame) {
            // a body over the server's limit may be cut off by a reset before its 413 is read:
            // that is the transport refusing it, not a frame left unanswered
            None if frame.len() > HTTP_BODY_LIMIT => {}
            None => {
                counts.no_answer += 1;
                if samples.len() < 20 {
                    samples.push(format!(
                        "no HTTP answer to a {}-byte frame: {}",
                        frame.len(),
                        frame.chars().take(200).collect::<String>()
                    ));
                }
            }
            Some((status, hs, body)) => {
                let msgs = messages_of(&hs, &body);
                let answers = msgs
                    .iter()
                    .filter(|m| serde_json::from_str::<Value>(m).is_ok_and(|v| v.get("method").is_none()))
                    .count();
                // a request is answered once; a notification is accepted with no body
                if (answered && answers != 1) || (!answered && (answers != 0 || status != 202)) {
                    counts.no_answer += 1;
                    if samples.len() < 20 {
                        samples.push(format!(
                            "HTTP {status} with {answers} answer(s) to: {}",
                            frame.chars().take(200).collect::<String>()
                        ));
                    }
                }
                for m in &msgs {
                    check_message(m, &roots, &mut counts, &mut samples);
                }
            }
        }
        if !server.alive() {
            counts.server_exits += 1;
            counts.panics += *server.panics.lock().unwrap_or_else(|e| e.into_inner());
            server = HttpServer::start(cfg, dir.path());
        }
        if n % 256 == 0 {
            peak_kb = peak_kb.max(server.peak_kb().unwrap_or(0));
        }
        if cfg.progress_every > 0 && (n + 1) % cfg.progress_every == 0 {
            eprintln!("fuzz (http): {} after {:.0} s", counts.summary(), t0.elapsed().as_secs_f64());
        }
    }
    peak_kb = peak_kb.max(server.peak_kb().unwrap_or(0));
    if !server.alive() {
        counts.server_exits += 1;
    }
    counts.panics += *server.panics.lock().unwrap_or_else(|e| e.into_inner());
    FuzzReport { counts, seconds: t0.elapsed().as_secs_f64(), peak_mib: peak_kb as f64 / 1024.0, samples }
}
