//! `rcx_report`: the answer the product exists to give. The facility's rule run and its run
//! config's drift section, grouped into issues ranked with their cause, cost or why uncosted,
//! hours and confidence by [`camber_analytics::rcx::build`], returned as data with the report's
//! own fact index (every figure stated once, cited by id). No prose is generated and no file is
//! written: `camber report` draws the same data as a page.

use std::collections::{BTreeMap, BTreeSet};

use camber_analytics::rcx::{self, EquipTimes, RcxInput, RcxOptions};
use camber_common::time::ns_from_iso;
use camber_sdk::{name, store, CapError, Context, Output, PageNotice};
use serde_json::{json, Value};

use crate::drift::run_drift;
use crate::prepare::prepare;
use crate::progress::Phase;
use crate::run::{declined_banner, execute};

/// The `rcx_report` capability.
pub fn rcx_report(args: &Value, ctx: &Context) -> Result<Output, CapError> {
    let p = prepare(args, ctx, None)?;
    let result = execute(args, &p, Phase { k: 0, of: 2, label: "rules" })?;
    let fid = p.fid.clone();
    let rc = store::run_config(&fid)?;
    let mut banners = p.banners.clone();
    banners.extend(declined_banner(&result, p.min_trust));
    // the config's drift section runs too, as `camber report` runs it; one that cannot run is
    // said, and the report stands on the rules
    let drift = match &p.config.drift {
        Some(_) => {
            let mut dargs = json!({"facility_id": fid, "limit": 1000});
            if let Some(e) = args.get("equips") {
                dargs["equips"] = e.clone();
            }
            match run_drift(&dargs, &fid, &p.config, &rc, ctx, Phase { k: 1, of: 2, label: "drift" }) {
                Ok(d) => Some(d),
                Err(e) => {
                    banners.push(format!("the run config's drift section did not run: {}", e.message));
                    None
                }
            }
        }
        None => None,
    };
    let mut options = RcxOptions::from_config(&rc["config"])
        .map_err(|e| CapError::internal(format!("the run config's report block does not check: {e}")))?;
    if let Some(n) = args.get("top_n").and_then(Value::as_u64) {
        options.top_n = n as usize;
    }
    let times: BTreeMap<String, EquipTimes> =
        p.frames.iter().map(|e| (e.equip.clone(), EquipTimes::of(&e.frame))).collect();
    let site = store::facilities()?
        .facilities
        .into_iter()
        .find(|f| f.facility_id == fid)
        .and_then(|f| f.name)
        .unwrap_or_else(|| fid.clone());
    let mut input = RcxInput::new(&fid, &site, &result, &times, &p.config, &options);
    let no_findings = Vec::new();
    let no_unevaluated = Vec::new();
    input.drift_findings = drift.as_ref().map_or(&no_findings, |d| &d.findings);
    input.drift_unevaluated = drift.as_ref().map_or(&no_unevaluated, |d| &d.unevaluated);
    if let Some(d) = &drift {
        // the drift findings' flagged samples index their family's current window
        let at = |v: &Value| v.as_str().and_then(ns_from_iso);
        if let Some(f) = d.families.first() {
            input.drift_window = (at(&f["current"][0]), at(&f["current"][1]));
        }
    }
    let report = rcx::build(&input);

    let top_n = report.top_n.max(1);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let limit = camber_sdk::count_arg(args, "limit", 20);
    let total = report.issues.len();
    let shown: Vec<&rcx::Issue> = report.issues.iter().skip(offset).take(top_n).collect();
    let keys: BTreeSet<&str> = shown.iter().map(|i| i.key.as_str()).collect();
    let appendix_total = report.appendix.len();
    let appendix: Vec<&rcx::AppendixEntry> = report.appendix.iter().skip(offset).take(limit).collect();
    let appendix_facts: BTreeSet<&str> = appendix.iter().map(|a| a.fact.as_str()).collect();
    // the facts of what is shown: the summary and appendix B, the appendix A rows on the page,
    // and the shown issues' own
    let facts: Vec<Value> = report
        .fact_index
        .iter()
        .filter(|f| {
            let ctx = f.id.split_once('@').map_or("", |(_, c)| c);
            ctx == "summary" || ctx == "appB" || keys.contains(ctx) || appendix_facts.contains(f.id.as_str())
        })
        .map(|f| json!({"id": f.id, "kind": f.kind, "equip": f.equip, "text": f.text}))
        .collect();
    let index: Vec<Value> = facts.clone();
    let fact_text =
        |id: &str| facts.iter().find(|f| f["id"] == id).and_then(|f| f["text"].as_str()).map(str::to_string);
    let mut text = Vec::new();
    if let Some(t) = fact_text("K1@summary") {
        text.push(format!("{} [K1@summary].", t.trim_end_matches('.')));
    }
    for i in shown.iter().take(5) {
        if let Some(t) = fact_text(&i.fact) {
            text.push(format!("{} [{}].", t.trim_end_matches('.'), i.fact));
        }
    }
    if text.is_empty() {
        text.push(format!("The RCx report of {} has {total} issue(s).", name(&fid)));
    }
    let mut pages = Vec::new();
    if total > shown.len() {
        pages.push(PageNotice {
            list: "issues".into(),
            offset: offset as u32,
            limit: top_n as u32,
            total: total as u32,
            order: "ranked".into(),
        });
    }
    if appendix_total > appendix.len() {
        pages.push(PageNotice {
            list: "appendix".into(),
            offset: offset as u32,
            limit: limit as u32,
            total: appendix_total as u32,
            order: String::new(),
        });
    }
    if let Some(d) = &drift {
        if !d.missing_detectors.is_empty() {
            banners.push(format!(
                "drift detectors not built in this server, so not run: {}",
                d.missing_detectors.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let mut issues: Vec<Value> = shown.iter().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)).collect();
    // on request, each issue's evidence chart for the host to draw: its first finding's, when
    // that is a rule's finding on one unit (a drift or fleet issue has none)
    if args.get("images").and_then(Value::as_bool) == Some(true) {
        for issue in issues.iter_mut() {
            let first = issue["finding_ids"][0].as_str().unwrap_or_default();
            let Some(f) = result.findings.iter().find(|f| f.id == first && !f.is_fleet()) else { continue };
            let Some(e) = p.frames.iter().find(|e| e.equip == f.equip) else { continue };
            let mut chart = crate::detail::chart(f, &e.frame);
            crate::detail::chart_image(
                &mut chart,
                &e.frame.ts,
                &f.finding.flagged,
                p.config.step_of(&e.frame),
                &json!({}),
            );
            chart["equip"] = json!(f.equip);
            chart["finding_id"] = json!(f.id);
            issue["chart"] = chart;
        }
    }
    let data = json!({
        "facility_id": fid,
        "title": report.title,
        "site": report.site,
        "period": report.period,
        "from_config": p.from_config,
        "top_n": top_n,
        "kpis": report.kpis,
        "n_issues": total,
        "issues": issues,
        "sections": report.sections,
        "fact_index": index,
        "n_appendix": appendix_total,
        "appendix": appendix,
        "drift": drift.as_ref().map(|d| json!({"source": d.source, "findings": d.findings.len(), "unevaluated": d.unevaluated.len()})),
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages = pages;
    Ok(out)
}
