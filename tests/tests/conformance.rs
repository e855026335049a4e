//! Clients no one here wrote, from Node: the official MCP conformance suite
//! (`@modelcontextprotocol/conformance` 0.1.16) against `camber serve` with bearer tokens, and
//! the MCP Inspector CLI (2.12) in its modern protocol era (2026-07-28) over stdio and HTTP.
//! `cargo xtask test` installs both, with the Node 22 they need, from
//! `tests/conformance/package-lock.json`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use camber_tests::{cache_dir, camber_bin, conformance_components_dir, node_bin};
use serde_json::Value;

struct Server {
    child: Child,
    addr: String,
    token: String,
    store: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `camber serve` on a free loopback port with one token, the shipped capabilities and the
/// suite's fixtures.
fn serve() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let ok = Command::new(camber_bin())
        .args(["datasets", "ingest", "synthetic-chw-plant", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(ok.status.success());
    let tokens = dir.path().join("tokens.json");
    let out = Command::new(camber_bin())
        .args(["tokens", "add", "conformance", "--allow", "ds-synthetic-chw-plant", "--file"])
        .arg(&tokens)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let token = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let mut child = Command::new(camber_bin())
        .args(["serve", "--allow-all-active", "--http", "127.0.0.1:0", "--store"])
        .arg(&store)
        .arg("--tokens")
        .arg(&tokens)
        .env("CAMBER_CACHE_DIR", cache_dir())
        .env("CAMBER_CAPABILITIES", conformance_components_dir())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let (addr, _log) = camber_tests::serving_addr(child.stderr.take().unwrap());
    Server { child, addr, token, store, _dir: dir }
}

/// A Node tool of the test setup, with its Node first on the PATH.
fn node_tool(name: &str) -> Command {
    let bin = node_bin();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.clone()];
    paths.extend(std::env::split_paths(&path));
    let mut c = Command::new(bin.join(name));
    c.env("PATH", std::env::join_paths(paths).unwrap());
    c
}

fn text(o: &Output) -> String {
    format!("{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Every check of every scenario the suite wrote under `dir`, by scenario.
fn checks(dir: &Path) -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix("server-") else { continue };
        // server-<scenario>-<YYYY-MM-DDTHH-MM-SS-mmmZ>: the time is the last six dashed parts
        let parts: Vec<&str> = rest.split('-').collect();
        let scenario = parts[..parts.len().saturating_sub(6)].join("-");
        let v: Value = serde_json::from_slice(&std::fs::read(e.path().join("checks.json")).unwrap()).unwrap();
        out.push((scenario, v.as_array().unwrap().clone()));
    }
    out
}

#[test]
fn the_official_conformance_suite_passes_every_scenario_that_applies() {
    let srv = serve();
    let results = tempfile::tempdir().unwrap();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let preload = node_bin().join("../../auth-preload.mjs");
    let out = node_tool("conformance")
        .args(["server", "--url", &format!("http://{}/mcp", srv.addr), "--suite", "all", "--expected-failures"])
        .arg(suite.join("expected-failures.yml"))
        .arg("-o")
        .arg(results.path())
        // the suite has no header option: the preload gives each of its requests the token
        .env("MCP_BEARER_TOKEN", &srv.token)
        .env("NODE_OPTIONS", format!("--import {}", preload.canonicalize().unwrap().display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "the suite failed:\n{}", text(&out));
    let expected = std::fs::read_to_string(suite.join("expected-failures.yml")).unwrap();
    let listed: Vec<&str> = expected.lines().filter_map(|l| l.trim().strip_prefix("- ")).collect();
    let all = checks(results.path());
    assert!(all.len() >= 30, "{} scenarios ran", all.len());
    let status = |c: &Value| c["status"].as_str().unwrap_or("").to_string();
    let mut passed = Vec::new();
    for (scenario, cs) in &all {
        if listed.contains(&scenario.as_str()) {
            continue;
        }
        let failed: Vec<&Value> = cs.iter().filter(|c| status(c) == "FAILURE").collect();
        assert!(failed.is_empty(), "{scenario}: {failed:?}");
        passed.push(scenario.as_str());
    }
    // the scenarios that apply to this server, each with checks that succeeded (none passed
    // vacuously, as one that found no session would)
    for must in [
        "server-initialize",
        "ping",
        "tools-list",
        "prompts-list",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
        "logging-set-level",
        "tools-call-simple-text",
        "tools-call-error",
        "tools-call-with-progress",
        "tools-call-with-logging",
        "prompts-get-simple",
        "prompts-get-with-args",
        "completion-complete",
        "resources-list",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "prompts-get-with-image",
        "prompts-get-embedded-resource",
        "resources-read-text",
        "resources-read-binary",
        "resources-templates-read",
        "resources-subscribe",
        "resources-unsubscribe",
    ] {
        let cs = &all.iter().find(|(s, _)| s == must).unwrap_or_else(|| panic!("{must} did not run")).1;
        assert!(cs.iter().any(|c| status(c) == "SUCCESS"), "{must}: {cs:?}");
        assert!(passed.contains(&must), "{must}");
    }
}

#[test]
fn the_inspector_in_its_modern_era_lists_and_calls_over_stdio_and_http() {
    let srv = serve();
    let stdio_target = |c: &mut Command| {
        c.arg("--").arg(camber_bin()).args(["mcp", "--allow-all-active", "--store"]).arg(&srv.store);
        c.env("CAMBER_CACHE_DIR", cache_dir());
    };
    let url = format!("http://{}/mcp", srv.addr);
    let auth = format!("Authorization: Bearer {}", srv.token);
    for transport in ["stdio", "http"] {
        let inspector = |method: &[&str]| {
            let mut c = node_tool("inspector");
            c.args(["--cli", "--protocol-era", "modern", "--format", "json"]);
            if transport == "http" {
                c.args([url.as_str(), "--header", auth.as_str()]);
            }
            c.args(method);
            if transport == "stdio" {
                stdio_target(&mut c);
            }
            let out = c.output().unwrap();
            assert!(out.status.success(), "{transport} {method:?}:\n{}", text(&out));
            let v = serde_json::from_slice::<Value>(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
            v["result"].clone()
        };
        let tools = inspector(&["--method", "tools/list"]);
        let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"rule_run") && names.contains(&"points"), "{transport}: {names:?}");
        let call = inspector(&[
            "--method",
            "tools/call",
            "--tool-name",
            "points",
            "--tool-args-json",
            r#"{"facility_id": "ds-synthetic-chw-plant"}"#,
        ]);
        assert_eq!(call["isError"], false, "{transport}: {call}");
        assert_eq!(call["structuredContent"]["facility_id"], "ds-synthetic-chw-plant", "{transport}");
        let prompts = inspector(&["--method", "prompts/list"]);
        assert!(prompts["prompts"].as_array().unwrap().len() >= 8, "{transport}: {prompts}");
    }
}
