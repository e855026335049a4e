//! The live capability set through a real MCP client (the official Python SDK) holding a
//! session open, over stdio and over Streamable HTTP, under a trust policy made with the CLI
//! (`camber capabilities keygen`, `sign`, `lock`, `verify`): a component copied in is announced
//! and callable; replaced, a call in flight finishes on the old one; a tampered copy and an
//! unlisted one are refused and the set is unharmed; removed, it is announced gone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use camber_tests::{cache_dir, camber_bin, python, reload_components_dir, serving_addr};
use serde_json::Value;

fn variant(letter: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(reload_components_dir().join("_cap_reload.wasm")).unwrap();
    let marker = b"reload-variant-A";
    let at = bytes.windows(marker.len()).position(|w| w == marker).expect("the build marker");
    bytes[at + marker.len() - 1] = letter;
    bytes
}

fn camber(args: &[&str], dir: &Path) -> (bool, String) {
    let out =
        Command::new(camber_bin()).args(args).current_dir(dir).env("CAMBER_CACHE_DIR", cache_dir()).output().unwrap();
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// A capability directory, a staging directory of signed, tampered and unlisted files, and a
/// policy pinning what the server starts with and trusting the vendor's key.
struct Setup {
    _dir: tempfile::TempDir,
    caps: PathBuf,
    staging: PathBuf,
    policy: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (caps, staging) = (dir.path().join("caps"), dir.path().join("staging"));
    std::fs::create_dir_all(&caps).unwrap();
    std::fs::create_dir_all(&staging).unwrap();
    let d = dir.path();
    let (ok, out) = camber(&["capabilities", "keygen", "vendor"], d);
    assert!(ok && d.join("vendor.key").is_file() && d.join("vendor.pub").is_file(), "{out}");
    for (name, letter) in [("reload_A.wasm", b'A'), ("reload_B.wasm", b'B')] {
        std::fs::write(staging.join(name), variant(letter)).unwrap();
        let (ok, out) =
            camber(&["capabilities", "sign", "--key", "vendor.key", staging.join(name).to_str().unwrap()], d);
        assert!(ok, "{out}");
    }
    // B with one byte changed after signing; and a file nobody signed or pinned
    std::fs::write(staging.join("tampered.wasm"), variant(b'D')).unwrap();
    std::fs::write(staging.join("unlisted.wasm"), variant(b'C')).unwrap();
    let (ok, out) =
        camber(&["capabilities", "lock", "--capabilities", caps.to_str().unwrap(), "--out", "camber.lock"], d);
    assert!(ok && out.contains("pinned"), "{out}");
    let policy = d.join("camber.policy.toml");
    std::fs::write(&policy, "[trust]\nlock = \"camber.lock\"\nkeys = [\"vendor.pub\"]\n").unwrap();
    // verify says, per file, what the policy decides
    let probe = d.join("probe");
    std::fs::create_dir_all(&probe).unwrap();
    std::fs::copy(staging.join("reload_A.wasm"), probe.join("_cap_reload.wasm")).unwrap();
    std::fs::copy(staging.join("reload_A.wasm.sig"), probe.join("_cap_reload.wasm.sig")).unwrap();
    std::fs::copy(staging.join("unlisted.wasm"), probe.join("_cap_unlisted.wasm")).unwrap();
    let (ok, out) = camber(
        &["capabilities", "verify", "--capabilities", probe.to_str().unwrap(), "--policy", policy.to_str().unwrap()],
        d,
    );
    assert!(!ok, "a refused file makes verify fail: {out}");
    assert!(
        out.lines().any(|l| l.starts_with("_cap_reload.wasm") && l.contains("loads: signed by vendor.pub")),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("_cap_unlisted.wasm") && l.contains("REFUSED")), "{out}");
    assert!(
        out.contains("memory 256 MiB") && out.contains("imports progress, store"),
        "the third-party default: {out}"
    );
    Setup { _dir: dir, caps, staging, policy }
}

fn check(v: &Value) {
    eprintln!("the client saw: {v}");
    let names = |k: &str| -> Vec<String> {
        v[k].as_array().unwrap_or_else(|| panic!("{k}: {v}")).iter().map(|n| n.as_str().unwrap().to_string()).collect()
    };
    assert_eq!(v["list_changed_declared"], true, "{v}");
    assert!(!names("before").contains(&"reload_probe".to_string()), "{v}");
    assert!(v["added_notice_s"].is_number(), "the client heard of the new component: {v}");
    assert!(names("added_tools").contains(&"reload_probe".to_string()), "{v}");
    assert_eq!(v["added_probe"], "reload-variant-A", "{v}");
    assert!(v["replaced_notice_s"].is_number(), "{v}");
    assert_eq!(v["replaced_probe"], "reload-variant-B", "new calls get the new version: {v}");
    assert_eq!(v["in_flight_probe"], "reload-variant-A", "the call in flight finished on its version: {v}");
    assert_eq!(v["refused_notices"], 0, "a refused file changes nothing: {v}");
    assert_eq!(names("refused_tools"), names("added_tools"), "{v}");
    assert_eq!(v["refused_probe"], "reload-variant-B", "{v}");
    assert!(v["removed_notice_s"].is_number(), "{v}");
    assert!(!names("removed_tools").contains(&"reload_probe".to_string()), "{v}");
    let removed = v["removed_probe"].as_str().unwrap();
    assert!(removed.contains("reload_probe") && (removed.starts_with("raised") || removed.starts_with("error")), "{v}");
}

fn client(args: &[&str]) -> (Value, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients").join("mcp_reload_client.py");
    let out = Command::new(python()).arg(script).args(args).env("CAMBER_CACHE_DIR", cache_dir()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}")), err)
}

/// Whether the agent card comes to satisfy `ok` within 30 s (the whole suite runs at once).
fn card_within(addr: &str, ok: impl Fn(&str) -> bool) -> bool {
    use std::io::{Read, Write};
    let t0 = std::time::Instant::now();
    while t0.elapsed() < std::time::Duration::from_secs(30) {
        let mut c = std::net::TcpStream::connect(addr).unwrap();
        write!(c, "GET /.well-known/agent-card.json HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
        let mut raw = String::new();
        let _ = c.read_to_string(&mut raw);
        if ok(&raw) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn a_stdio_session_hears_of_drop_ins_and_the_policy_refuses_tampered_and_unlisted_files() {
    let s = setup();
    let (v, log) = client(&[
        "stdio",
        camber_bin().to_str().unwrap(),
        s.caps.to_str().unwrap(),
        s.staging.to_str().unwrap(),
        "--policy",
        s.policy.to_str().unwrap(),
    ]);
    check(&v);
    // the server's log says why each refused file was refused, in one line, with no path
    let line = |needle: &str| log.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle}: {log}"));
    let unlisted = line("_cap_unlisted.wasm: refused by policy");
    assert!(unlisted.contains("not in the lock") && unlisted.contains("not signed"), "{unlisted}");
    let tampered = line("verifies with no trusted key");
    assert!(tampered.contains("_cap_reload.wasm") && tampered.ends_with("the loaded version stays"), "{tampered}");
    assert!(!log.contains(&*s.caps.to_string_lossy()), "no path in the log lines: {log}");
}

#[test]
fn an_http_session_hears_of_drop_ins_on_its_event_stream() {
    let s = setup();
    let mut child = Command::new(camber_bin())
        .args(["serve", "--http", "127.0.0.1:0", "--no-auth", "--capabilities"])
        .arg(&s.caps)
        .arg("--policy")
        .arg(&s.policy)
        .env("CAMBER_CACHE_DIR", cache_dir())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (addr, log) = serving_addr(child.stderr.take().unwrap());
    // the A2A agent card lists a dropped-in component's skills, and stops when it goes
    let comp = s.caps.join("_cap_reload.wasm");
    std::fs::copy(s.staging.join("reload_A.wasm.sig"), s.caps.join("_cap_reload.wasm.sig")).unwrap();
    std::fs::copy(s.staging.join("reload_A.wasm"), &comp).unwrap();
    let server_log = || log.lock().unwrap().join("\n");
    assert!(card_within(&addr, |c| c.contains("\"reload_probe\"")), "the card lists the new skill: {}", server_log());
    std::fs::remove_file(&comp).unwrap();
    std::fs::remove_file(s.caps.join("_cap_reload.wasm.sig")).unwrap();
    assert!(
        card_within(&addr, |c| c.contains("\"points\"") && !c.contains("\"reload_probe\"")),
        "and drops it: {}",
        server_log()
    );
    let url = format!("http://{addr}/mcp");
    let (v, _) = client(&["http", &url, s.caps.to_str().unwrap(), s.staging.to_str().unwrap()]);
    let _ = child.kill();
    let _ = child.wait();
    check(&v);
    let log = log.lock().unwrap().join("\n");
    assert!(log.contains("camber: reload: _cap_reload.wasm: added"), "{log}");
    assert!(log.contains("tools/list_changed sent"), "{log}");
}
