//! `camber report`: the RCx report a person opens. It asks the registry for `rcx_report` (so
//! the report passes the same policy as an assistant's call: the allowlist, the licence wall,
//! the trust floor, no-persist), asks `finding_detail` for each ranked issue's evidence chart
//! (the roles it names, the flagged spans), reads those trends from the store, and writes one
//! self-contained HTML page with `camber_report::page`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};

use camber_common::CapError;
use camber_registry::{CallContext, Registry};
use camber_report::Chart;
use camber_store::StoreDir;

/// What a written report holds, for the command's summary.
pub struct Written {
    pub issues: Vec<Value>,
    pub kpis: Value,
    pub charts: usize,
}

/// The evidence chart of one issue: `finding_detail` on its first finding (a rule's or a drift
/// detector's) says which roles and which spans, and the registry's chart module draws them
/// from the store, as it does for an image in a tool result.
fn chart_for(
    reg: &Registry,
    ctx: &CallContext,
    store: &StoreDir,
    fid: &str,
    issue: &Value,
    window: &Value,
) -> Option<Chart> {
    let finding = issue["finding_ids"].as_array()?.iter().find_map(Value::as_str)?;
    let mut args = json!({"facility_id": fid, "finding_id": finding, "limit": 1, "image": false});
    for k in ["start", "end"] {
        if let Some(v) = window.get(k).filter(|v| v.is_string()) {
            args[k] = v.clone();
        }
    }
    let d = reg.call("finding_detail", &args, ctx).ok()?.data;
    camber_registry::charts::evidence_chart(store, &d)
}

/// The report of `fid` as one HTML page, with what the command's summary needs. A refusal of
/// `rcx_report` (the allowlist, the licence wall, the trust floor) is the page's refusal.
pub fn build(
    reg: &Registry,
    ctx: &CallContext,
    store: &StoreDir,
    fid: &str,
    window: &Value,
) -> Result<(String, Written), CapError> {
    let mut args = json!({"facility_id": fid});
    for k in ["start", "end", "top_n"] {
        if let Some(v) = window.get(k).filter(|v| !v.is_null()) {
            args[k] = v.clone();
        }
    }
    let r = reg.call("rcx_report", &args, ctx)?;
    let issues: Vec<Value> = r.data["issues"].as_array().cloned().unwrap_or_default();
    let mut charts = BTreeMap::new();
    for i in &issues {
        if let (Some(key), Some(c)) = (i["key"].as_str(), chart_for(reg, ctx, store, fid, i, window)) {
            charts.insert(key.to_string(), c);
        }
    }
    let html = camber_report::page(&r.data, &r.banners, &charts);
    Ok((html, Written { issues, kpis: r.data["kpis"].clone(), charts: charts.len() }))
}

/// Build the report of `fid` and write it to `out`.
pub fn write(
    reg: &Registry,
    ctx: &CallContext,
    store: &Path,
    fid: &str,
    window: &Value,
    out: &Path,
) -> Result<Written, String> {
    // the store the context opened (a directory or a bucket), else the directory named
    let s = match &ctx.store {
        Some(s) => s.clone(),
        None => StoreDir::open(store).ok_or("--store: no store directory there")?,
    };
    let (html, written) =
        build(reg, ctx, &s, fid, window).map_err(|e| format!("rcx_report: {}: {}", e.code, e.message))?;
    camber_store::writer::write_atomic(out, html.as_bytes())
        .map_err(|e| format!("--out cannot be written ({})", e.kind()))?;
    Ok(written)
}

/// A few readable lines about the top issues.
pub fn summary(w: &Written, top: usize) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(c) = w.kpis.get("annual_cost_usd").and_then(Value::as_f64) {
        lines.push(format!("  costed issues: ${} a year in all", camber_common::text::thousands(c.round() as u64)));
    }
    for i in w.issues.iter().take(top) {
        let cost = match i["annual_cost_usd"].as_f64() {
            Some(c) => format!("${} a year", camber_common::text::thousands(c.round() as u64)),
            None => i["cost_basis_note"].as_str().unwrap_or("uncosted").to_string(),
        };
        lines.push(format!(
            "  {}. [{}] {} on {}: {} (confidence {})",
            i["rank"],
            i["severity"].as_str().unwrap_or(""),
            i["title"].as_str().unwrap_or(""),
            i["equip"].as_str().unwrap_or(""),
            cost,
            i["confidence"].as_str().unwrap_or("-")
        ));
    }
    if w.issues.is_empty() {
        lines.push("  no issue at warn or fault".into());
    }
    lines
}
