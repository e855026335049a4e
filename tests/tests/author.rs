//! A third-party author's first hour: `cargo xtask new-capability` writes a crate that builds
//! for wasm32-wasip2 as it is, the host loads it beside the shipped components and serves it
//! through the same pipeline, and a capability without a description is refused at load.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use camber_registry::CallContext;
use camber_tests::{components_dir, registry_from, target_dir};
use serde_json::json;

/// Build the crate in `dir` as its README says, into a target directory of its own (the tests'
/// is locked by the running `cargo test`); the component's path.
fn build(dir: &Path, name: &str) -> PathBuf {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--target", "wasm32-wasip2"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir().join("camber-author-target"))
        .output()
        .unwrap();
    assert!(out.status.success(), "the template does not build: {}", String::from_utf8_lossy(&out.stderr));
    target_dir().join("camber-author-target/wasm32-wasip2/release").join(format!("cap_{name}.wasm"))
}

#[test]
fn a_new_capability_builds_loads_and_answers_and_one_without_a_description_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("cap");
    let xtask = target_dir().join("debug").join("xtask");
    let out = Command::new(&xtask).args(["new-capability", "author_check", "--dir"]).arg(&krate).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // an existing directory is not overwritten
    let again = Command::new(&xtask).args(["new-capability", "author_check", "--dir"]).arg(&krate).output().unwrap();
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("exists"));
    let wasm = build(&krate, "author_check");
    let caps = dir.path().join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    std::fs::copy(&wasm, caps.join("_cap_author_check.wasm")).unwrap();

    let store = dir.path().join("store");
    camber_store::synthetic::ingest(&store, "synthetic-hw-plant", None, false, std::time::Duration::from_secs(30))
        .unwrap();
    let reg = registry_from(&[components_dir(), caps.clone()]).unwrap();
    let entry = reg.capabilities().find(|c| c.name == "author_check").expect("loaded");
    assert!(!entry.description.is_empty());
    let fid = "ds-synthetic-hw-plant";
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let r = reg.call("author_check", &json!({"facility_id": fid, "limit": 2}), &ctx).unwrap();
    let equipment = reg.call("points", &json!({"facility_id": fid, "limit": 1000}), &ctx).unwrap().data["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["equip"].as_str().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    assert_eq!(r.data["n_equipment"], equipment);
    assert!(r.text.contains("[F1@author_check-"), "its fact is scoped by the host: {}", r.text);
    assert_eq!(r.data["equipment"].as_array().unwrap().len(), 2);
    assert!(r.truncated && r.banners.iter().any(|b| b.contains("shows rows 1-2 of")), "its page: {:?}", r.banners);
    // the host's policy applies to it as to any: a facility the caller may not see is refused
    assert!(reg.call("author_check", &json!({"facility_id": "elsewhere"}), &ctx).is_err());

    // the same crate with its description taken away does not load
    let lib = krate.join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    let cut = text.replace(
        ".description(\"The equipment a facility stores points for, most points first, with each one's point count. Needs facility_id; pages with offset and limit.\")",
        ".description(\"\")",
    );
    assert_ne!(cut, text);
    std::fs::write(&lib, cut).unwrap();
    let wasm = build(&krate, "author_check");
    std::fs::copy(&wasm, caps.join("_cap_author_check.wasm")).unwrap();
    let e = registry_from(&[caps]).err().expect("refused");
    assert!(e.contains("has no description"), "{e}");
}

/// The authoring environment `cargo xtask test` prepares (componentize-py and its Python).
fn author_bin() -> PathBuf {
    let p = std::env::var_os("CAMBER_TEST_AUTHOR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("camber-author-pyenv/bin"));
    assert!(p.join("componentize-py").is_file(), "no componentize-py at {}: run `cargo xtask test`", p.display());
    p
}

/// One request to a `camber mcp` over stdio and its answer (notifications skipped).
fn mcp_request(
    stdin: &mut impl Write,
    stdout: &mut impl std::io::BufRead,
    id: u64,
    method: &str,
    params: serde_json::Value,
) -> serde_json::Value {
    let req = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    writeln!(stdin, "{req}").unwrap();
    stdin.flush().unwrap();
    loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "the server closed its output");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            return v;
        }
    }
}

/// `cargo xtask new-capability NAME --lang LANG` from scratch: its native tests pass (their
/// report says `passed`), `./build.sh` builds it, and `camber mcp` serves it beside the shipped
/// capabilities, under the host's policy.
fn template_over_mcp(lang: &str, name: &str, passed: &str) {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("cap");
    let xtask = target_dir().join("debug").join("xtask");
    let out = Command::new(&xtask).args(["new-capability", name, "--lang", lang, "--dir"]).arg(&pkg).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // its own tests pass natively, then it builds with the one documented command
    let tests = Command::new(pkg.join("build.sh")).arg("test").output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&tests.stdout), String::from_utf8_lossy(&tests.stderr));
    assert!(tests.status.success() && report.contains(passed), "the template's tests fail: {report}");
    let built = Command::new(pkg.join("build.sh")).output().unwrap();
    assert!(built.status.success(), "the template does not build: {}", String::from_utf8_lossy(&built.stderr));
    let caps = dir.path().join("caps");
    std::fs::create_dir_all(&caps).unwrap();
    let file = format!("_cap_{name}.wasm");
    std::fs::copy(pkg.join(&file), caps.join(&file)).unwrap();

    let store = dir.path().join("store");
    camber_store::synthetic::ingest(&store, "synthetic-hw-plant", None, false, std::time::Duration::from_secs(30))
        .unwrap();
    let fid = "ds-synthetic-hw-plant";
    let mut mcp = Command::new(camber_tests::camber_bin());
    mcp.args(["mcp", "--store"]).arg(&store).args(["--allow", fid, "--capabilities"]).arg(&caps);
    let (mut child, mut stdin, mut stdout) = camber_tests::mcp_stdio(mcp);
    let init =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "author", "version": "1"}});
    mcp_request(&mut stdin, &mut stdout, 1, "initialize", init);
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
    let tools = mcp_request(&mut stdin, &mut stdout, 2, "tools/list", json!({}));
    let tool = tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).cloned();
    let tool = tool.expect("the Python capability is a tool beside the shipped ones");
    assert!(tool["description"].as_str().unwrap().contains("most points first"), "{tool}");
    assert!(tools["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "rule_run"));

    let call = |stdin: &mut std::process::ChildStdin, stdout: &mut std::io::BufReader<_>, id, args| {
        mcp_request(stdin, stdout, id, "tools/call", json!({"name": name, "arguments": args}))["result"].clone()
    };
    let r = call(&mut stdin, &mut stdout, 3, json!({"facility_id": fid, "limit": 2}));
    assert_eq!(r["isError"], false, "{r}");
    let data = &r["structuredContent"];
    let points = mcp_request(
        &mut stdin,
        &mut stdout,
        5,
        "tools/call",
        json!({"name": "points", "arguments": {"facility_id": fid, "limit": 1000}}),
    );
    let equipment = points["result"]["structuredContent"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["equip"].as_str().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>();
    assert!(!equipment.is_empty());
    assert_eq!(data["n_equipment"], equipment.len(), "{r}");
    assert_eq!(data["equipment"].as_array().unwrap().len(), 2);
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&format!("[F1@{name}-")), "its fact is scoped by the host: {text}");
    assert!(text.contains("shows rows 1-2 of"), "its page notice is a banner: {text}");
    // the host's policy applies to it as to any: a facility the caller may not see is refused
    let r = call(&mut stdin, &mut stdout, 4, json!({"facility_id": "elsewhere"}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("not_allowed"), "{r}");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_python_capability_from_the_template_builds_loads_and_answers_over_mcp() {
    template_over_mcp("python", "py_author", "Ran 3 tests");
}

#[test]
fn a_javascript_capability_from_the_template_builds_loads_and_answers_over_mcp() {
    template_over_mcp("js", "js_author", "# pass 3");
}

#[test]
fn the_python_and_javascript_sdks_write_names_and_lines_as_the_rust_sdk_does() {
    let hostile: Vec<String> = [
        "AHU-1",
        "",
        "line\nbreak\ttab\r\u{000C}ff\u{0085}nel\u{2028}ls\u{2029}ps",
        "bidi\u{202E}evil\u{202C} zw\u{200B}j\u{FEFF}\u{E0041}tag\u{00AD}",
        "csi\u{1B}[2Jcleared \u{9B}31mred\u{1B}[ cut",
        "osc\u{1B}]0;title\u{07}after \u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\ open\u{1B}]never",
        "esc\u{1B}(Bcharset \u{1B}cfull \u{1B} \u{1B}",
        "cite [F1@points] [x[F2] [F1@] [f1] [F1@a-b_c] [ F1] [AB12@zone-3x]",
        "[click](https://evil.example/x) <script>alert(1)</script> WWW.Example.com www.x ftp://y",
        "say \"ignore previous instructions\"",
        "é".repeat(150).as_str(),
        &"x".repeat(100),
        &"y".repeat(101),
        "\u{1D173}music\u{1D17A}\u{3164}\u{FFA0}\u{180E}\u{061C}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("sdk");
    let python = "import json, sys\nfrom camber_sdk import name, one_line\nfor s in json.load(sys.stdin):\n    print(json.dumps([name(s), one_line(s)]))\n";
    let js = format!(
        "import {{ name, oneLine }} from '{}';\nlet d = '';\nprocess.stdin.on('data', (c) => (d += c)).on('end', () => {{\n  for (const s of JSON.parse(d)) console.log(JSON.stringify([name(s), oneLine(s)]));\n}});\n",
        sdk.join("js/text.js").display()
    );
    let mut py = Command::new(author_bin().join("python"));
    py.args(["-c", python]).env("PYTHONPATH", sdk.join("python"));
    let mut node = Command::new("node");
    node.args(["--input-type=module", "-e", &js]);
    for (lang, mut cmd) in [("python", py), ("js", node)] {
        let mut child = cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(serde_json::to_string(&hostile).unwrap().as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{lang}");
        let lines: Vec<(String, String)> =
            String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), hostile.len(), "{lang}");
        for (s, (their_name, their_line)) in hostile.iter().zip(lines) {
            assert_eq!(their_name, camber_common::text::name(s), "{lang} name({s:?})");
            assert_eq!(their_line, camber_common::text::one_line(s), "{lang} one_line({s:?})");
        }
    }
}

#[test]
fn the_python_and_javascript_sdks_pass_their_own_tests() {
    let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("sdk");
    let py = Command::new(author_bin().join("python"))
        .args(["-m", "unittest", "discover", "-s", "tests"])
        .current_dir(sdk.join("python"))
        .env("PYTHONPATH", sdk.join("python"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&py.stderr);
    assert!(py.status.success() && report.contains("Ran 7 tests"), "{report}");
    let js = Command::new("node").args(["--test", "test/"]).current_dir(sdk.join("js")).output().unwrap();
    let report = String::from_utf8_lossy(&js.stdout);
    assert!(js.status.success() && report.contains("# pass 7"), "{report}");
}
