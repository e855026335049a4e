//! The report a person opens, rendered in a real headless browser: not blank, the issue titles
//! and the evidence charts in the page, nothing fetched.

use std::collections::BTreeMap;

use camber_registry::CallContext;
use camber_report::{page, Chart, Series};
use camber_tests::{camber_bin, distinct_colours, full_registry, render};
use serde_json::json;

#[test]
fn a_report_page_renders_with_its_issues_and_charts() {
    let report = json!({
        "title": "RCx report: test building", "site": "Test", "period": ["2025-04-28", "2025-05-18"], "from_config": false,
        "kpis": {"annual_cost_usd": 1500.0, "issues": 1},
        "issues": [{"key": "k1", "rank": 1, "title": "Cooling valve passes water while shut", "cause": "valve seat", "equip": "AHU-1",
                    "severity": "fault", "rules": ["leaking_valve"], "finding_ids": ["leaking_valve@AHU-1"], "annual_cost_usd": 1500.0,
                    "cost_basis_note": "", "hours": 40.0, "pct_runtime": 12.0, "confidence": "high", "why": ["inputs trusted"], "conditional_on": []}]
    });
    let ts: Vec<i64> = (0..200).map(|i| i * 3_600_000_000_000).collect();
    let mut charts = BTreeMap::new();
    charts.insert(
        "k1".to_string(),
        Chart {
            title: "leaking_valve@AHU-1".into(),
            series: vec![Series {
                role: "supply_air_temp".into(),
                ts: ts.clone(),
                values: ts.iter().map(|t| 55.0 + ((t / 3_600_000_000_000) % 24) as f64 / 4.0).collect(),
            }],
            spans: vec![(20 * 3_600_000_000_000, 30 * 3_600_000_000_000)],
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, page(&report, &[], &charts)).unwrap();
    let (png, dom) = render(&file, 1200, 1400);
    assert!(distinct_colours(&png) > 20, "the screenshot is blank");
    assert!(dom.contains("Cooling valve passes water while shut"), "{dom}");
    assert!(dom.contains("<svg") && dom.contains("polyline"), "the chart is in the page");
}

#[test]
fn camber_report_writes_the_rcx_report_a_browser_shows() {
    let dir = tempfile::tempdir().unwrap();
    let store = economizer_store(dir.path());
    let fid = "ds-synthetic-ahu-economizer";
    let page = dir.path().join("report.html");
    let out = std::process::Command::new(camber_bin())
        .args(["report", fid, "--allow", fid, "--store"])
        .arg(&store)
        .arg("--out")
        .arg(&page)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said} {}", String::from_utf8_lossy(&out.stderr));
    // the allowlist options are those of `camber call`: a facility outside it is not reported
    let other = dir.path().join("other.html");
    let refused = std::process::Command::new(camber_bin())
        .args(["report", fid, "--allow", "ds-someone-else", "--store"])
        .arg(&store)
        .arg("--out")
        .arg(&other)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && err.contains("rcx_report") && !other.exists(), "{err}");
    assert!(said.contains("wrote") && said.contains("issue(s)"), "{said}");
    // the page holds what rcx_report returns, drawn: every ranked issue's title, and charts
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let r = full_registry().call("rcx_report", &json!({"facility_id": fid}), &ctx).unwrap();
    let issues = r.data["issues"].as_array().unwrap();
    assert!(!issues.is_empty(), "the economizer building has faults");
    let (png, dom) = render(&page, 1200, 1600);
    assert!(distinct_colours(&png) > 50, "the screenshot is blank");
    for i in issues {
        let title = i["title"].as_str().unwrap();
        assert!(dom.contains(&camber_report::escape(title)), "{title} is not in the page");
    }
    assert!(dom.matches("<svg").count() >= 1, "no evidence chart");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script") && !html.contains("https://"), "the page fetches or runs nothing");
}

fn economizer_store(dir: &std::path::Path) -> std::path::PathBuf {
    let store = dir.join("store");
    camber_store::synthetic::ingest(
        &store,
        "synthetic-ahu-economizer",
        None,
        false,
        std::time::Duration::from_secs(30),
    )
    .unwrap();
    store
}

#[test]
fn finding_detail_attaches_its_evidence_chart_as_a_png_the_byte_cap_counts() {
    use base64::Engine;
    let dir = tempfile::tempdir().unwrap();
    let store = economizer_store(dir.path());
    let fid = "ds-synthetic-ahu-economizer";
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let reg = full_registry();
    let run = reg.call("rule_run", &json!({"facility_id": fid, "rules": ["leaking_valve"]}), &ctx).unwrap();
    let finding = run.data["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["severity"] == "fault")
        .and_then(|f| f["finding_id"].as_str())
        .expect("the economizer building has a leaking valve")
        .to_string();
    let args = json!({"facility_id": fid, "rules": ["leaking_valve"], "finding_id": finding});
    let a = reg.call("finding_detail", &args, &ctx).unwrap();
    assert_eq!(a.images.len(), 1, "{:?}", a.data["chart"]);
    let img = &a.images[0];
    assert_eq!(img.mime_type, "image/png");
    let png = base64::engine::general_purpose::STANDARD.decode(&img.data).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1000, "1000 pixels wide");
    assert!(camber_tests::distinct_colours(&png) > 20, "the chart is drawn");
    // the alt text says what it shows and cites the finding's fact, scoped to the call
    let fact = a.facts.iter().find(|f| f["kind"] == "finding").unwrap()["id"].as_str().unwrap();
    assert!(img.alt.contains(&finding) && img.alt.contains(&format!("[{fact}]")), "{}", img.alt);
    for role in a.data["chart"]["roles"].as_array().unwrap() {
        assert!(img.alt.contains(role.as_str().unwrap()), "{}", img.alt);
    }
    // every flagged span is in the chart's data, and the same call draws the same bytes
    assert!(!a.data["chart"]["spans"].as_array().unwrap().is_empty());
    assert_eq!(reg.call("finding_detail", &args, &ctx).unwrap().images, a.images);
    // drawn once while the facility's files are unchanged (the memo keeps it); a rewrite of
    // them draws it again
    let drawn = |args: &serde_json::Value| {
        let (r, steps) = camber_runtime::profile::record(|| reg.call("finding_detail", args, &ctx));
        (r.unwrap().images, steps.iter().any(|(s, _)| *s == "evidence image: drawn"))
    };
    let (again, was_drawn) = drawn(&args);
    assert!(!was_drawn, "the same chart on unchanged files is not drawn again");
    assert_eq!(again, a.images);
    std::thread::sleep(std::time::Duration::from_millis(20));
    for p in camber_tests::facility_parts(&store, fid) {
        std::fs::write(&p, std::fs::read(&p).unwrap()).unwrap();
    }
    let (redrawn, was_drawn) = drawn(&args);
    assert!(was_drawn, "a rewritten facility's chart is drawn again");
    assert_eq!(redrawn[0].data, a.images[0].data, "from the same values, the same bytes");
    // a caller that does not want it
    let mut no = args.clone();
    no["image"] = json!(false);
    let plain = reg.call("finding_detail", &no, &ctx).unwrap();
    assert!(plain.images.is_empty());
    // the byte cap counts the image: room for the text and data alone, not the image
    let size = camber_registry::policy::result_bytes(&plain.data, None, &plain.text, &plain.facts, &plain.banners);
    let mut tight = CallContext::new(&store, [fid.to_string()]);
    tight.limits.max_bytes = size + img.data.len() / 2;
    assert!(reg.call("finding_detail", &no, &tight).is_ok());
    let e = reg.call("finding_detail", &args, &tight).unwrap_err();
    assert_eq!(e.code.as_str(), "too_large", "{}", e.message);
}

#[test]
fn rcx_report_attaches_each_ranked_issues_chart_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let store = economizer_store(dir.path());
    let fid = "ds-synthetic-ahu-economizer";
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let plain = full_registry().call("rcx_report", &json!({"facility_id": fid}), &ctx).unwrap();
    assert!(plain.images.is_empty(), "images only on request");
    let r = full_registry().call("rcx_report", &json!({"facility_id": fid, "images": true}), &ctx).unwrap();
    let issues = r.data["issues"].as_array().unwrap();
    let charted: Vec<&serde_json::Value> = issues.iter().filter(|i| i["chart"]["image"] == true).collect();
    assert!(!charted.is_empty(), "the economizer building's issues have charts");
    assert_eq!(r.images.len(), charted.len(), "one image per charted issue");
    for (image, issue) in r.images.iter().zip(&charted) {
        let fact = issue["fact"].as_str().unwrap();
        assert!(fact.contains('-'), "the issue's fact is scoped to the call: {fact}");
        assert!(image.alt.contains(&format!("[{fact}]")), "{} cites {fact}", image.alt);
        assert!(image.alt.contains(issue["chart"]["finding_id"].as_str().unwrap()), "{}", image.alt);
        assert!(image.data.starts_with("iVBORw0KGgo"));
    }
    // the same issues, ranked the same, with or without
    let keys =
        |v: &serde_json::Value| v["issues"].as_array().unwrap().iter().map(|i| i["key"].clone()).collect::<Vec<_>>();
    assert_eq!(keys(&plain.data), keys(&r.data));
}

/// JSON to embed in a page's script: `</` cannot end the script early.
fn script_json(v: &serde_json::Value) -> String {
    v.to_string().replace("</", "<\\/")
}

#[test]
fn the_report_app_draws_rcx_reports_result_and_opens_a_finding_in_a_sandboxed_frame() {
    let dir = tempfile::tempdir().unwrap();
    let store = economizer_store(dir.path());
    let fid = "ds-synthetic-ahu-economizer";
    let ctx = CallContext::new(&store, [fid.to_string()]);
    let reg = full_registry();
    let r = reg.call("rcx_report", &json!({"facility_id": fid}), &ctx).unwrap();
    let first = r.data["issues"][0]["finding_ids"][0].as_str().unwrap().to_string();
    let title = r.data["issues"][0]["title"].as_str().unwrap().to_string();
    let d = reg.call("finding_detail", &json!({"facility_id": fid, "finding_id": first}), &ctx).unwrap();
    assert_eq!(d.images.len(), 1);
    // the results as an MCP client receives them
    let rev = camber_serve::mcp::negotiate(Some("2025-11-25"));
    let report = camber_serve::mcp::call_result(Ok(r), rev);
    let detail = camber_serve::mcp::call_result(Ok(d), rev);
    // a host page as an apps-capable client hosts an app: a sandboxed frame with scripts only,
    // the app's HTML as its document, the protocol spoken over postMessage; what the app asks
    // is written into the host page
    let host = format!(
        r#"<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="app" sandbox="allow-scripts" style="width:1000px;height:1500px;border:0"></iframe>
<pre id="log"></pre>
<script>
const report = {report}; const detail = {detail}; const appHtml = {app};
const frame = document.getElementById("app"); const log = document.getElementById("log");
const say = (m) => {{ log.textContent += JSON.stringify(m) + "\n"; }};
const post = (m) => frame.contentWindow.postMessage(Object.assign({{jsonrpc: "2.0"}}, m), "*");
window.addEventListener("message", (e) => {{
  if (e.source !== frame.contentWindow) return;
  const m = e.data;
  if (m.method === "ui/initialize") {{
    say({{got: "initialize", app: m.params.appInfo.name}});
    post({{id: m.id, result: {{protocolVersion: m.params.protocolVersion, hostInfo: {{name: "test-host", version: "1"}}, hostCapabilities: {{serverTools: {{}}}}, hostContext: {{}}}}}});
  }} else if (m.method === "ui/notifications/initialized") {{
    say({{got: "initialized"}});
    post({{method: "ui/notifications/tool-input", params: {{arguments: {{facility_id: "{fid}"}}}}}});
    post({{method: "ui/notifications/tool-result", params: report}});
  }} else if (m.method === "tools/call") {{
    say({{got: "tools/call", name: m.params.name, finding: m.params.arguments.finding_id}});
    post({{id: m.id, result: detail}});
  }} else if (m.method === "ui/notifications/size-changed") {{
    say({{got: "size", height: m.params.height}});
  }}
}});
frame.srcdoc = appHtml;
</script></body></html>"#,
        report = script_json(&report),
        detail = script_json(&detail),
        app = script_json(&json!(camber_serve::resources::APP_HTML)),
    );
    let file = dir.path().join("host.html");
    std::fs::write(&file, host).unwrap();
    let (png, dom) = render(&file, 1000, 1500);
    let log = dom.split("<pre id=\"log\">").nth(1).and_then(|l| l.split("</pre>").next()).unwrap_or("");
    let said: Vec<serde_json::Value> = log.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let got = |what: &str| said.iter().filter(|m| m["got"] == what).collect::<Vec<_>>();
    assert_eq!(got("initialize").first().map(|m| m["app"].clone()), Some(json!("camber-rcx-report")), "{log}");
    assert_eq!(got("initialized").len(), 1, "{log}");
    // the top issue opens at once: the app asks the host for its finding's detail
    let calls = got("tools/call");
    assert_eq!(
        calls.first().map(|m| (m["name"].clone(), m["finding"].clone())),
        Some((json!("finding_detail"), json!(first))),
        "{log}"
    );
    // it drew: the size it reports grows past the header, and the frame shows the chart
    let tallest = got("size").iter().filter_map(|m| m["height"].as_f64()).fold(0.0, f64::max);
    assert!(tallest > 800.0, "the issues and the opened finding's chart make the page tall: {tallest} {log}");
    assert!(camber_tests::distinct_colours(&png) > 100, "the app's frame is drawn");
    assert!(!title.is_empty());
}
