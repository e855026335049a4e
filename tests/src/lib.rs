//! Helpers for the end-to-end tests: where `cargo xtask` put the built components and the
//! host binary, a registry over them, and throwaway stores.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use camber_registry::component_files;
use camber_registry::Registry;
use camber_runtime::{Runtime, RuntimeConfig};

/// The cargo target directory these tests were built in.
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    profile_dir().parent().expect("target directory").to_path_buf()
}

/// `<target>/<profile>`: where cargo put this executable (tests live one level down, in
/// `deps/`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("executable path");
    let dir = exe.parent().expect("executable directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("profile directory").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

fn built(dir: PathBuf) -> PathBuf {
    assert!(
        dir.is_dir() && !component_files(std::slice::from_ref(&dir)).is_empty(),
        "no components in {}: run the tests with `cargo xtask test`",
        dir.display()
    );
    dir
}

/// The shipped capability components (`_cap_*.wasm`).
pub fn components_dir() -> PathBuf {
    built(target_dir().join("camber-components"))
}

/// The hostile test components.
pub fn test_components_dir() -> PathBuf {
    built(target_dir().join("camber-test-components"))
}

/// Components built against an older, compatible version of the contract (they must load).
pub fn compat_components_dir() -> PathBuf {
    built(target_dir().join("camber-compat-components"))
}

/// The fixtures the MCP conformance suite calls by name.
pub fn conformance_components_dir() -> PathBuf {
    built(target_dir().join("camber-conformance-components"))
}

/// The component the hot-reload tests drop into a running server.
pub fn reload_components_dir() -> PathBuf {
    built(target_dir().join("camber-reload-components"))
}

/// The Python test components (componentize-py and the Python SDK).
pub fn python_components_dir() -> PathBuf {
    built(target_dir().join("camber-python-components"))
}

/// The JavaScript test components (componentize-js and the JavaScript SDK).
pub fn js_components_dir() -> PathBuf {
    built(target_dir().join("camber-js-components"))
}

/// A `camber mcp` over stdio started from `cmd` with the shared component cache: the child,
/// its input, and its output to read line by line.
pub fn mcp_stdio(
    mut cmd: std::process::Command,
) -> (std::process::Child, std::process::ChildStdin, std::io::BufReader<std::process::ChildStdout>) {
    use std::process::Stdio;
    let mut child = cmd
        .env("CAMBER_CACHE_DIR", cache_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("camber mcp starts");
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
    (child, stdin, stdout)
}

/// Components the host must refuse at load.
pub fn refused_components_dir() -> PathBuf {
    built(target_dir().join("camber-refused-components"))
}

/// The compiled-component cache shared by every test of a run (and across runs):
/// `CAMBER_CACHE_DIR` when set (the release benchmarks keep their own), else the target's.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("CAMBER_CACHE_DIR").map_or_else(|| target_dir().join("camber-cwasm-cache"), PathBuf::from)
}

/// The `camber` binary built next to the tests.
pub fn camber_bin() -> PathBuf {
    profile_dir().join("camber")
}

/// A runtime config for tests: the shared cache, a 256 MiB memory cap.
pub fn runtime_config() -> RuntimeConfig {
    RuntimeConfig { cache_dir: Some(cache_dir()), max_memory_bytes: 256 << 20, ..RuntimeConfig::default() }
}

/// A registry over the given component directories.
pub fn registry_from(dirs: &[PathBuf]) -> Result<Registry, String> {
    let runtime = Runtime::new(runtime_config())?;
    Registry::load(runtime, &component_files(dirs))
}

/// The shipped capabilities plus the hostile ones, loaded once per test binary.
pub fn full_registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(|| registry_from(&[components_dir(), test_components_dir()]).expect("registry loads"))
}

/// A fresh demo store in a temporary directory.
pub fn demo_store() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    camber_store::fixture::demo_store(dir.path()).expect("demo store");
    dir
}

/// A long-format CSV of hourly rows for three points (`AHU-1` `oat` and `supply_air_temp`,
/// `AHU-2` `oat`) from 2024-01-31, each `value + hour`: the store suites' input.
pub fn long_csv(dir: &Path, name: &str, hours: usize, value: f64) -> PathBuf {
    let mut s = String::from("ts,equip,equip_class,role,value\n");
    let start = camber_common::time::ns_from_iso("2024-01-31T00:00").expect("a time");
    for h in 0..hours {
        let t = camber_common::time::iso_from_ns(start + h as i64 * 3_600_000_000_000);
        for (e, r) in [("AHU-1", "oat"), ("AHU-1", "supply_air_temp"), ("AHU-2", "oat")] {
            s.push_str(&format!("{t},{e},AHU,{r},{}\n", value + h as f64));
        }
    }
    let p = dir.join(name);
    std::fs::write(&p, s).expect("write the CSV");
    p
}

/// A Parquet part with the store's column names and the wrong types (value as text, equip a
/// number): damage the store must refuse, not read as rows cast to nulls.
pub fn wrong_types_part() -> Vec<u8> {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampNanosecondArray};
    use std::sync::Arc;
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("ts", Arc::new(TimestampNanosecondArray::from(vec![1_709_510_400_000_000_000i64]))),
        ("equip", Arc::new(Int64Array::from(vec![7i64]))),
        ("equip_class", Arc::new(StringArray::from(vec!["AHU"]))),
        ("role", Arc::new(StringArray::from(vec!["oat"]))),
        ("value", Arc::new(StringArray::from(vec!["12.5"]))),
    ];
    let batch = RecordBatch::try_from_iter(cols).expect("a batch");
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).expect("a writer");
    w.write(&batch).expect("write the batch");
    w.close().expect("close the part");
    out
}

/// A call refused for damage to `facility`'s data: `unavailable`, not retryable, naming the
/// facility, in one line (the store suites on disk and on a bucket both ask this of each call).
pub fn assert_damage_refusal(e: &camber_common::CapError, facility: &str, what: &str) {
    assert_eq!(e.code, camber_common::ErrorCode::Unavailable, "{what}: {e}");
    let data = e.data.clone().unwrap_or(serde_json::Value::Null);
    assert_eq!(data["retryable"], false, "{what}: {e}");
    assert_eq!(data["facility_id"], facility, "{what}: {e}");
    assert_eq!(e.message.lines().count(), 1, "{what}: {e}");
}

/// The Parquet parts of one facility under a store directory (to rewrite them in a test).
pub fn facility_parts(dir: &Path, facility: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().contains(&format!("facility_id={facility}/"))
                && p.extension().is_some_and(|x| x == "parquet")
            {
                out.push(p);
            }
        }
    }
    out
}

/// Whether `s` holds an absolute path under `root`.
pub fn leaks(s: &str, root: &Path) -> bool {
    s.contains(&*root.to_string_lossy())
}

/// The Python of the test environment `cargo xtask test` prepares (pyarrow and the reference
/// implementation).
pub fn python() -> PathBuf {
    let p = std::env::var_os("CAMBER_TEST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("camber-pyenv/bin/python"));
    assert!(p.is_file(), "no Python test environment at {}: run the tests with `cargo xtask test`", p.display());
    p
}

/// Debian's haproxy, which `cargo xtask test` installs (the load balancer of the replica tests).
pub fn haproxy() -> PathBuf {
    let p = std::env::var_os("CAMBER_TEST_HAPROXY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/sbin/haproxy"));
    assert!(p.is_file(), "no haproxy at {}: run the tests with `cargo xtask test`", p.display());
    p
}

/// The executables of the Node test tools (the MCP conformance suite, the Inspector CLI, and
/// the Node 22 they run on) that `cargo xtask test` installs.
pub fn node_bin() -> PathBuf {
    let p = std::env::var_os("CAMBER_TEST_NODE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("camber-node/node_modules/.bin"));
    assert!(
        p.join("conformance").exists(),
        "no Node test tools at {}: run the tests with `cargo xtask test`",
        p.display()
    );
    p
}

/// Run `tests/interop/ref.py` with these arguments and parse its JSON.
pub fn reference(args: &[&str]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("interop").join("ref.py");
    let out = std::process::Command::new(python()).arg(script).args(args).output().expect("python runs");
    assert!(out.status.success(), "ref.py {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("ref.py prints JSON")
}

/// One HTTP/1.1 request on a fresh connection: (status, headers lower-cased, body).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    let mut req =
        format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    use std::io::{Read, Write};
    s.write_all(req.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status: u16 = lines.next().unwrap_or("").split_whitespace().nth(1).unwrap_or("0").parse().unwrap_or(0);
    let hs = lines.filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect();
    (status, hs, rest.as_bytes().to_vec())
}

pub mod fuzz;
pub mod lb;
pub mod s3;

/// The headless browser `cargo xtask test` provides (`CAMBER_TEST_BROWSER`, else `chromium`).
pub fn browser() -> PathBuf {
    let b = std::env::var_os("CAMBER_TEST_BROWSER").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("chromium"));
    assert!(
        b.is_file() || std::process::Command::new(&b).arg("--version").output().is_ok(),
        "no headless browser at {}: run the tests with `cargo xtask test`",
        b.display()
    );
    b
}

/// Open a local HTML file in the headless browser, as a person's browser would: a screenshot
/// (PNG bytes) at `width` x `height` and the page's DOM after it loaded.
pub fn render(html: &Path, width: u32, height: u32) -> (Vec<u8>, String) {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("page.png");
    let url = format!("file://{}", html.display());
    let common = |c: &mut std::process::Command| {
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            // scripts and the messages they post run before the shot and the dump; a sandboxed
            // frame stays in the page's process, so its messages run in the page's virtual time
            "--virtual-time-budget=5000",
            "--disable-features=IsolateSandboxedIframes",
        ])
        .arg(format!("--user-data-dir={}", dir.path().join("profile").display()));
    };
    let mut c = std::process::Command::new(browser());
    common(&mut c);
    c.arg(format!("--screenshot={}", shot.display())).arg(format!("--window-size={width},{height}")).arg(&url);
    let out = c.output().expect("the browser runs");
    assert!(shot.is_file(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    let mut c = std::process::Command::new(browser());
    common(&mut c);
    c.arg("--dump-dom").arg(&url);
    let dom = c.output().expect("the browser runs");
    (std::fs::read(&shot).unwrap(), String::from_utf8_lossy(&dom.stdout).into_owned())
}

/// How many distinct colours a PNG screenshot holds (a blank page has one or two).
pub fn distinct_colours(png_bytes: &[u8]) -> usize {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let px = info.color_type.samples();
    let mut seen = std::collections::HashSet::new();
    for p in buf[..info.buffer_size()].chunks(px) {
        seen.insert(p.to_vec());
        if seen.len() > 1000 {
            break;
        }
    }
    seen.len()
}

/// What the official Python client pinned to the stateless revision saw (its script's JSON),
/// checked the same way over either transport.
pub fn check_modern_client(v: &serde_json::Value) {
    assert_eq!(v["protocol"], "2026-07-28");
    assert_eq!(v["initialize_sent"], false, "no handshake");
    assert_eq!(v["discover"]["supportedVersions"][0], "2026-07-28", "{v}");
    assert_eq!(v["discover"]["has_instructions"], true);
    assert_eq!(v["server_name"], "camber");
    assert_eq!(v["server_info_on_every_result"], true);
    for list in ["tools/list", "prompts/list"] {
        assert_eq!(v["lists"][list]["cacheScope"], "public", "{list}");
        assert!(v["lists"][list]["ttlMs"].as_u64().is_some_and(|t| t > 0), "{list}");
    }
    for (method, types) in v["result_types"].as_object().unwrap() {
        assert_eq!(types, &serde_json::json!(["complete"]), "{method}");
    }
    for name in ["facilities", "points", "coverage", "dataset_search", "dataset_entry", "check_citations", "rule_run"] {
        assert_eq!(v["tools"][name]["is_error"], false, "{name}: {}", v["tools"][name]);
        assert_eq!(v["tools"][name]["valid"], true, "{name}");
    }
    assert!(v["refusal"]["text"].as_str().unwrap().starts_with("not_allowed: "));
    assert_eq!(v["prompts"].as_object().unwrap().len(), 8);
    let unsupported = &v["raw"]["unsupported_version"];
    assert_eq!(unsupported["code"], -32022, "{unsupported}");
    assert_eq!(unsupported["data"]["requested"], "1999-01-01");
    assert_eq!(unsupported["data"]["supported"][0], "2026-07-28");
}

/// The address `camber serve` listens on, read from its stderr up to the "serving MCP at"
/// line (panics when the server ends or says nothing of it within 50 lines).
pub fn read_addr(err: &mut impl std::io::BufRead) -> String {
    for _ in 0..50 {
        let mut line = String::new();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Some(rest) = line.split("serving MCP at http://").nth(1) {
            return rest.split('/').next().unwrap_or_default().to_string();
        }
    }
    panic!("camber serve did not start");
}

/// [`read_addr`] of a server's stderr, and the lines it logs after that, gathered as they
/// come.
pub fn serving_addr(stderr: std::process::ChildStderr) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::BufRead;
    let mut err = std::io::BufReader::new(stderr);
    let addr = read_addr(&mut err);
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = log.clone();
    std::thread::spawn(move || {
        for l in err.lines().map_while(Result::ok) {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(l);
        }
    });
    (addr, log)
}
