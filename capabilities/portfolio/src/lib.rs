//! The `portfolio` capability: the caller's buildings ranked by what their issues cost (or by
//! how many issues and faults they have), from the latest complete portfolio run
//! (`camber portfolio run`). The host hands over only the facilities the call may read.

use camber_common::text::thousands;
use camber_sdk::{page, store, CapError, Capability, Context, ErrorCode, Output, Plugin};
use serde_json::{json, Value};

/// Facilities per page when the caller gives no `limit`.
const DEFAULT_LIMIT: usize = 10;
/// Issues shown per facility when the caller gives no `top_issues`.
const DEFAULT_TOP: usize = 3;
/// Facilities the summary names one by one; the rest are in the facts and data.
const LISTED: usize = 5;

fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "order": {"type": "string", "enum": ["cost", "issues", "faults"],
                      "description": "rank by the yearly cost of the issues (default), by how many issues, or by how many are faults"},
            "top_issues": {"type": "integer", "minimum": 0, "maximum": 10,
                           "description": "each facility's costliest issues to show (default 3)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100,
                      "description": "facilities per page (default 10)"},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "facilities to skip (for the next page)"}
        }
    })
}

fn output_schema() -> Value {
    let issue = json!({
        "type": "object",
        "required": ["rank", "key", "title", "equip", "severity", "annual_cost_usd", "finding_ids"],
        "additionalProperties": false,
        "properties": {
            "rank": {"type": ["integer", "null"]},
            "key": {"type": ["string", "null"]},
            "title": {"type": ["string", "null"]},
            "equip": {"type": ["string", "null"]},
            "severity": {"type": ["string", "null"]},
            "annual_cost_usd": {"type": ["number", "null"]},
            "finding_ids": {"type": "array", "items": {"type": "string"}}
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["run", "started", "finished", "shards", "order", "count", "n_issues", "annual_cost_usd", "not_run", "facilities"],
        "additionalProperties": false,
        "properties": {
            "run": {"type": "string", "description": "the portfolio run's id"},
            "started": {"type": "string", "description": "when its first shard started (UTC)"},
            "finished": {"type": "string", "description": "when its last shard finished (UTC)"},
            "shards": {"type": "integer", "minimum": 1},
            "order": {"type": "string"},
            "count": {"type": "integer", "minimum": 0, "description": "facilities of the run this caller may see"},
            "n_issues": {"type": "integer", "minimum": 0, "description": "their ranked issues"},
            "annual_cost_usd": {"type": "number", "description": "the yearly cost of their costed issues"},
            "not_run": {"type": "array", "items": {"type": "string"},
                        "description": "facilities the run could not report on (a call refused)"},
            "facilities": {"type": "array", "items": {
                "type": "object",
                "required": ["facility_id", "rank", "annual_cost_usd", "n_issues", "n_faults", "top_issues"],
                "additionalProperties": false,
                "properties": {
                    "facility_id": {"type": "string"},
                    "rank": {"type": "integer", "minimum": 1},
                    "annual_cost_usd": {"type": "number"},
                    "n_issues": {"type": "integer", "minimum": 0},
                    "n_faults": {"type": "integer", "minimum": 0},
                    "top_issues": {"type": "array", "items": issue}
                }
            }}
        }
    })
}

/// Dollars, whole, with thousands separators: `$5,230`.
fn usd(v: f64) -> String {
    format!("${}", thousands(v.max(0.0).round() as u64))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One facility's line of the ranking.
struct Row {
    fid: String,
    cost: f64,
    issues: Vec<Value>,
    faults: usize,
}

/// An issue as the answer shows it: what, where, how bad, what it costs, which findings.
fn shown(issue: &Value) -> Value {
    let list = |k: &str| -> Vec<String> {
        issue[k]
            .as_str()
            .map(|s| s.split(',').filter(|x| !x.is_empty()).map(str::to_string).collect())
            .unwrap_or_default()
    };
    json!({
        "rank": issue["rank"], "key": issue["key"], "title": issue["title"], "equip": issue["equip"],
        "severity": issue["severity"], "annual_cost_usd": issue["annual_cost_usd"], "finding_ids": list("finding_ids"),
    })
}

fn portfolio(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let top = camber_sdk::count_arg(args, "top_issues", DEFAULT_TOP).min(10);
    let order = args["order"].as_str().unwrap_or("cost");
    let Some(run) = store::portfolio_run()? else {
        return Err(CapError::new(
            ErrorCode::NotFound,
            "no portfolio run has completed where this server looks: run `camber portfolio run --out LOCATION` and start the server with --portfolio LOCATION",
        ));
    };
    let text_of = |k: &str| run[k].as_str().unwrap_or_default().to_string();
    let (run_id, started, finished) = (text_of("run"), text_of("started"), text_of("finished"));

    // each reported facility's issues, costliest first (the report's own rank breaks ties)
    let mut by_facility: std::collections::BTreeMap<&str, Vec<Value>> = Default::default();
    for i in run["issues"].as_array().into_iter().flatten() {
        if let Some(fid) = i["facility_id"].as_str() {
            by_facility.entry(fid).or_default().push(i.clone());
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut not_run = Vec::new();
    for f in run["facilities"].as_array().into_iter().flatten() {
        let Some(fid) = f["facility_id"].as_str() else { continue };
        if f["status"].as_str() != Some("ok") {
            not_run.push(fid.to_string());
            continue;
        }
        let mut issues = by_facility.remove(fid).unwrap_or_default();
        let cost_of = |i: &Value| i["annual_cost_usd"].as_f64().unwrap_or(0.0);
        issues.sort_by(|a, b| {
            cost_of(b)
                .total_cmp(&cost_of(a))
                .then(a["rank"].as_i64().unwrap_or(i64::MAX).cmp(&b["rank"].as_i64().unwrap_or(i64::MAX)))
        });
        let cost = issues.iter().map(cost_of).sum::<f64>() + 0.0;
        let faults = issues.iter().filter(|i| i["severity"].as_str() == Some("fault")).count();
        rows.push(Row { fid: fid.to_string(), cost, issues, faults });
    }
    let key = |r: &Row| match order {
        "issues" => r.issues.len() as f64,
        "faults" => r.faults as f64,
        _ => r.cost,
    };
    rows.sort_by(|a, b| key(b).total_cmp(&key(a)).then(b.cost.total_cmp(&a.cost)).then(a.fid.cmp(&b.fid)));
    let count = rows.len();
    let n_issues: usize = rows.iter().map(|r| r.issues.len()).sum();
    let total = rows.iter().map(|r| r.cost).sum::<f64>() + 0.0;
    let ranked: Vec<(usize, Row)> = rows.into_iter().enumerate().map(|(i, r)| (i + 1, r)).collect();
    let (ranked, notice) = page(ranked, "facilities", offset, limit, &format!("by {order}, highest first"));

    let mut facts = vec![
        json!({"id": "P1@portfolio", "kind": "portfolio_run", "value": count,
               "text": format!("portfolio run {run_id} (finished {finished}) reported on {} this caller may see",
                               plural(count, "facility", "facilities"))}),
        json!({"id": "P2@portfolio", "kind": "portfolio_cost", "value": total,
               "text": format!("their {} cost {} a year where costed", plural(n_issues, "ranked issue", "ranked issues"), usd(total))}),
    ];
    let mut text = vec![format!(
        "Portfolio run {run_id}, finished {finished}, reported on {} you may see [P1@portfolio]: {} costing {} a year where costed [P2@portfolio].",
        plural(count, "facility", "facilities"),
        plural(n_issues, "ranked issue", "ranked issues"),
        usd(total)
    )];
    let mut data_rows = Vec::with_capacity(ranked.len());
    for (i, (rank, r)) in ranked.iter().enumerate() {
        let fact_id = format!("P{}@portfolio", i + 3);
        let worst = r.issues.first().and_then(|x| x["title"].as_str()).unwrap_or("no issue");
        facts.push(json!({
            "id": fact_id, "kind": "portfolio_facility", "facility_id": r.fid, "value": r.cost,
            "text": format!("{}: rank {rank} by {order}, {} ({} faults) costing {} a year; costliest: {worst}",
                            r.fid, plural(r.issues.len(), "issue", "issues"), r.faults, usd(r.cost)),
        }));
        if i < LISTED {
            text.push(format!(
                "{} ranks {rank}: {} ({} faults), {} a year [{fact_id}].",
                r.fid,
                plural(r.issues.len(), "issue", "issues"),
                r.faults,
                usd(r.cost)
            ));
        }
        data_rows.push(json!({
            "facility_id": r.fid, "rank": rank, "annual_cost_usd": r.cost,
            "n_issues": r.issues.len(), "n_faults": r.faults,
            "top_issues": r.issues.iter().take(top).map(shown).collect::<Vec<_>>(),
        }));
    }
    if ranked.len() > LISTED {
        text.push("The other facilities of this page are in the facts and the data.".into());
    }
    let data = json!({
        "run": run_id, "started": started, "finished": finished, "shards": run["shards"].as_u64().unwrap_or(1),
        "order": order, "count": count, "n_issues": n_issues, "annual_cost_usd": total,
        "not_run": not_run, "facilities": data_rows,
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners.push(format!(
        "From the portfolio run {run_id}, finished {finished}: data stored since is not in it; rcx_report on a facility gives its issues now."
    ));
    if !not_run.is_empty() {
        out.banners.push(format!(
            "The run could not report on {} of the facilities you may see (a call refused them): {}.",
            not_run.len(),
            not_run.join(", ")
        ));
    }
    out.pages.extend(notice);
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("portfolio", portfolio)
            .title("Portfolio")
            .description(
                "Rank the facilities (buildings) this caller may read by what their ranked RCx issues cost a \
                 year (or by how many issues, or faults), from the latest complete nightly portfolio run, with \
                 each facility's costliest issues. Answers 'which of my buildings' problems cost the most'. \
                 The run is a snapshot: call rcx_report on a facility for its issues now. Pages of 10 \
                 (limit, offset).",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("cheap"),
    )
}

camber_sdk::export_plugin!(plugin);
