//! The RCx report a person opens: one self-contained HTML page drawn from `rcx_report`'s data
//! (the same report an assistant reads), with an evidence chart per issue drawn as SVG from the
//! trend. Nothing in it is fetched when it is opened: styles are inline, charts are inline SVG,
//! and there is no script, so it reads the same offline, printed or mailed.

pub mod chart;

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

pub use chart::{Chart, Series};

/// Text for HTML: `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2327;background:#f6f7f7}\
main{max-width:1100px;margin:0 auto;padding:24px}\
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:28px 0 10px;border-bottom:1px solid #ccd0d4;padding-bottom:4px}\
.sub{color:#50575e;margin:0 0 18px}\
.kpis{display:flex;flex-wrap:wrap;gap:10px}\
.kpi{background:#fff;border:1px solid #dcdcde;border-radius:6px;padding:10px 14px;min-width:140px}\
.kpi b{display:block;font-size:20px}.kpi span{color:#50575e;font-size:12px}\
.issue{background:#fff;border:1px solid #dcdcde;border-left:6px solid #8c8f94;border-radius:6px;padding:14px 16px;margin:12px 0}\
.issue.fault{border-left-color:#d63638}.issue.warn{border-left-color:#dba617}.issue.info{border-left-color:#72aee6}\
.issue h3{margin:0 0 6px;font-size:17px}.badge{display:inline-block;font-size:11px;font-weight:bold;text-transform:uppercase;padding:2px 7px;border-radius:10px;color:#fff;background:#8c8f94;margin-right:6px}\
.badge.fault{background:#d63638}.badge.warn{background:#b58105}.badge.info{background:#2271b1}\
.meta{display:grid;grid-template-columns:160px 1fr;gap:3px 12px;font-size:14px;margin:8px 0}.meta dt{color:#50575e}.meta dd{margin:0}\
ul{margin:4px 0 4px 18px;padding:0}code{font-size:12px;background:#f0f0f1;padding:1px 4px;border-radius:3px}\
.chart{margin-top:8px;overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}\
td,th{border:1px solid #dcdcde;padding:5px 8px;text-align:left;vertical-align:top}th{background:#f0f0f1}\
.banner{background:#fcf9e8;border:1px solid #dba617;border-radius:6px;padding:8px 12px;margin:6px 0;font-size:13px}\
footer{color:#50575e;font-size:12px;margin-top:30px}";

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(0.0);
            if f.fract() == 0.0 && f.abs() < 1e15 {
                format!("{}", f as i64)
            } else {
                format!("{f:.2}")
            }
        }
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(", "),
        Value::Object(_) => v.to_string(),
    }
}

/// How a KPI is labelled on the page; `None` for one the page leaves out.
fn kpi_label(name: &str) -> Option<String> {
    let label = match name {
        "annual_cost_usd" => "annual cost of the costed issues",
        "n_costed" => "costed issues",
        "at_risk_usd" => "cost at risk (conditional on a sensor)",
        "n_issues" => "issues",
        "n_uncosted" => "uncosted issues",
        "n_conditional" => "conditional issues",
        "n_cost_conditional" => return None,
        "coverage_pct" => "input coverage",
        "n_declined" => "declined checks",
        other => return Some(other.replace('_', " ")),
    };
    Some(label.to_string())
}

/// A cost as dollars a year, or the reason there is none.
fn cost(issue: &Value) -> String {
    match issue["annual_cost_usd"].as_f64() {
        Some(c) => format!("${} a year", camber_common::text::thousands(c.round() as u64)),
        None => issue["cost_basis_note"].as_str().map_or("uncosted".into(), |s| s.to_string()),
    }
}

fn list(items: &Value) -> String {
    let a: Vec<String> =
        items.as_array().into_iter().flatten().map(|i| format!("<li>{}</li>", escape(&text(i)))).collect();
    if a.is_empty() {
        "-".into()
    } else {
        format!("<ul>{}</ul>", a.join(""))
    }
}

/// The page. `report` is `rcx_report`'s data; `banners` its banners; `charts` the evidence
/// chart of each issue, by issue key.
pub fn page(report: &Value, banners: &[String], charts: &BTreeMap<String, Chart>) -> String {
    let mut h = String::new();
    let title = report["title"].as_str().unwrap_or("RCx report");
    let period: Vec<String> = report["period"].as_array().into_iter().flatten().map(text).collect();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{STYLE}</style></head><body><main>",
        escape(title)
    );
    let _ = write!(
        h,
        "<h1>{}</h1><p class=\"sub\">{} &middot; {} &middot; {}</p>",
        escape(title),
        escape(report["site"].as_str().unwrap_or("")),
        escape(&period.join(" to ")),
        if report["from_config"].as_bool() == Some(true) { "from the run config" } else { "from the defaults" }
    );
    for b in banners {
        let _ = write!(h, "<div class=\"banner\">{}</div>", escape(b));
    }
    h.push_str("<h2>At a glance</h2><div class=\"kpis\">");
    if let Some(k) = report["kpis"].as_object() {
        for (name, v) in k {
            let Some(label) = kpi_label(name) else { continue };
            let shown = if name.ends_with("_usd") && v.is_number() {
                format!("${}", camber_common::text::thousands(v.as_f64().unwrap_or(0.0).round() as u64))
            } else if name.ends_with("_pct") && v.is_number() {
                format!("{:.0} %", v.as_f64().unwrap_or(0.0))
            } else {
                text(v)
            };
            let _ = write!(h, "<div class=\"kpi\"><b>{}</b><span>{}</span></div>", escape(&shown), escape(&label));
        }
    }
    h.push_str("</div>");
    let issues: Vec<&Value> = report["issues"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    let _ = write!(h, "<h2>Issues, ranked ({})</h2>", issues.len());
    if issues.is_empty() {
        h.push_str("<p>No issue at warn or fault in this window.</p>");
    }
    for i in issues {
        let sev = i["severity"].as_str().unwrap_or("info");
        let key = i["key"].as_str().unwrap_or("");
        let _ = write!(
            h,
            "<section class=\"issue {sev}\" id=\"issue-{}\"><h3><span class=\"badge {sev}\">{}</span>{}. {}</h3>",
            escape(key),
            escape(sev),
            escape(&text(&i["rank"])),
            escape(i["title"].as_str().unwrap_or(""))
        );
        let _ = write!(
            h,
            "<dl class=\"meta\"><dt>Equipment</dt><dd>{}</dd><dt>Cause</dt><dd>{}</dd><dt>Cost</dt><dd>{}</dd><dt>Hours</dt><dd>{}{}</dd><dt>Confidence</dt><dd>{}{}</dd>",
            escape(&text(&i["equip"])),
            escape(&text(&i["cause"])),
            escape(&cost(i)),
            escape(&text(&i["hours"])),
            i["pct_runtime"].as_f64().map_or(String::new(), |p| format!(" ({p:.0} % of runtime)")),
            escape(&text(&i["confidence"])),
            list(&i["why"])
        );
        if i["conditional_on"].as_array().is_some_and(|a| !a.is_empty()) {
            let _ = write!(h, "<dt>Conditional on</dt><dd>{}</dd>", list(&i["conditional_on"]));
        }
        let ids: Vec<String> = i["finding_ids"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|f| format!("<code>{}</code>", escape(f)))
            .collect();
        let _ = write!(
            h,
            "<dt>Findings</dt><dd>{}</dd></dl>",
            if ids.is_empty() { escape(&text(&i["rules"])) } else { ids.join(" ") }
        );
        if let Some(c) = charts.get(key) {
            let _ = write!(h, "<div class=\"chart\">{}</div>", chart::svg(c, 1040.0, 320.0));
        }
        h.push_str("</section>");
    }
    let appendix: Vec<&Value> = report["appendix"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    if !appendix.is_empty() {
        h.push_str(
            "<h2>Declined checks and data gaps</h2><table><tr><th>Kind</th><th>Equipment</th><th>What</th></tr>",
        );
        for a in appendix {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&text(&a["kind"])),
                escape(&text(&a["equip"])),
                escape(&text(&a["text"]))
            );
        }
        h.push_str("</table>");
    }
    h.push_str("<footer>Written by camber from the building's own trend data; every figure comes from the rcx_report result. Nothing on this page is fetched or run when it is opened.</footer></main></body></html>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_page_holds_the_issues_their_costs_and_charts_and_escapes_what_it_is_given() {
        let report = json!({
            "title": "RCx report <hq>", "site": "HQ", "period": ["2025-04-28", "2025-05-18"], "from_config": true,
            "kpis": {"annual_cost_usd": 12345.4, "n_issues": 2, "n_costed": 1, "coverage_pct": 87.2},
            "issues": [
                {"key": "a1b2", "rank": 1, "title": "Cooling valve leaks", "cause": "valve seat", "equip": "AHU-1", "severity": "fault",
                 "rules": ["leaking_valve"], "finding_ids": ["leaking_valve@AHU-1"], "annual_cost_usd": 4200.0, "cost_basis_note": "",
                 "hours": 120.5, "pct_runtime": 33.0, "confidence": "high", "why": ["inputs trusted"], "conditional_on": []},
                {"key": "c3d4", "rank": 2, "title": "Zone starved", "cause": "static", "equip": "VAV-1", "severity": "warn",
                 "rules": ["x"], "annual_cost_usd": null, "cost_basis_note": "uncosted: needs the box's design airflow",
                 "hours": null, "pct_runtime": null, "confidence": "medium", "why": [], "conditional_on": ["sensor issue"]}
            ],
            "appendix": [{"kind": "decline", "equip": "AHU-2", "text": "declined -- untrusted input(s): oat (trust 0.20)"}]
        });
        let mut charts = BTreeMap::new();
        charts.insert(
            "a1b2".to_string(),
            Chart {
                title: "leaking_valve@AHU-1".into(),
                series: vec![Series {
                    role: "cool_valve".into(),
                    ts: vec![0, 3_600_000_000_000],
                    values: vec![0.0, 1.0],
                }],
                spans: vec![],
            },
        );
        let p = page(&report, &["a banner & more".into()], &charts);
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(p.contains("RCx report &lt;hq&gt;"), "escaped title");
        assert!(p.contains("Cooling valve leaks") && p.contains("Zone starved"));
        assert!(p.contains("$4,200 a year"), "{p}");
        assert!(p.contains("uncosted: needs the box"));
        assert!(p.contains("$12,345") && p.contains("87 %"));
        assert!(p.contains("<b>1</b><span>costed issues</span>"), "a count is not dollars: {p}");
        assert_eq!(p.matches("<svg").count(), 1, "one issue has a chart");
        assert!(p.contains("a banner &amp; more"));
        assert!(p.contains("declined -- untrusted input(s): oat (trust 0.20)"));
        // nothing runs and nothing is fetched: the only address is the SVG namespace
        assert!(!p.contains("<script"));
        assert!(!p.replace("http://www.w3.org/2000/svg", "").contains("http"), "nothing is fetched");
    }
}
