//! `mv_summary`: did the fix save anything? The M&V entries of the caller's run config (its
//! `mv` section) measured on the facility's meters with [`camber_analytics::mv::run`]: each
//! meter's baseline model and its Guideline 14 verdict, the avoided energy with its 90 %
//! uncertainty, triggers and method proposals. Nothing is saved.

use std::collections::{BTreeMap, BTreeSet};

use camber_analytics::config::RunConfig;
use camber_analytics::mv::{self, Meter, MvResult};
use camber_analytics::run::with_shared;
use camber_analytics::Severity;
use camber_sdk::{name, page, store, unknown_selection, CapError, Context, Output};
use serde_json::{json, Value};

use crate::prepare::{strings, to_frame};
use crate::run::{one, severity_str};

/// A finding row with the keys every capability's findings carry (`finding_id`, `rule`,
/// `equip`, `equip_class`, `severity`, `summary`), plus the meter's own.
fn row(r: &MvResult, class: &str) -> Value {
    let mut v = json!({
        "finding_id": format!("{}@{}", r.kind, r.meter), "rule": r.kind, "equip": r.meter, "equip_class": class,
        "kind": r.kind, "meter": r.meter, "entry": r.entry,
        "severity": severity_str(r.finding.severity), "summary": r.finding.summary, "caveats": r.finding.caveats,
        "metrics": Value::Object(r.metrics.clone()), "judged_days": r.finding.judged,
    });
    if let Some(d) = &r.declined {
        v["declined"] = json!(d);
    }
    v
}

/// The `mv_summary` capability.
pub fn mv_summary(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let fid = args["facility_id"].as_str().unwrap_or_default().to_string();
    let rc = store::run_config(&fid)?;
    let config = RunConfig::from_value(&rc["config"])
        .map_err(|e| CapError::internal(format!("the run config for this facility does not check: {e}")))?;
    let Some(section) = &config.mv else {
        return Err(CapError::invalid(format!(
            "mv_summary needs a run config naming '{fid}' with an mv section (a meter class, its baseline period and reporting period; see the README's M&V part)"
        )));
    };
    let points = store::points(&fid)?;
    if points.is_empty() {
        return Err(CapError::not_found(format!("facility '{fid}' has no stored data"), json!({"facility_id": fid})));
    }
    let stored: BTreeSet<String> = points.iter().map(|p| p.equip.clone()).collect();
    let wanted = strings(args, "equips");
    let unknown: Vec<String> = wanted.iter().filter(|e| !stored.contains(*e)).cloned().collect();
    if !unknown.is_empty() {
        return Err(unknown_selection(&fid, "equips", "equipment", &unknown, stored));
    }
    // each entry's class and role must be stored: a meter that is not there is not_found
    let classes: BTreeSet<&str> = points.iter().map(|p| p.equip_class.as_str()).collect();
    let mut meters: BTreeMap<String, String> = BTreeMap::new();
    for (i, e) in section.entries.iter().enumerate() {
        if !classes.contains(e.class.as_str()) {
            return Err(CapError::not_found(
                format!("mv[{i}] names the class {}, which facility '{fid}' does not store", name(&e.class)),
                json!({"argument": "mv.class", "unknown": [e.class], "available": classes.iter().take(50).collect::<Vec<_>>()}),
            ));
        }
        let with_role: Vec<&str> = points
            .iter()
            .filter(|p| p.equip_class == e.class && p.role == e.role)
            .map(|p| p.equip.as_str())
            .filter(|m| wanted.is_empty() || wanted.iter().any(|w| w == m))
            .collect();
        if with_role.is_empty() && wanted.is_empty() {
            return Err(CapError::not_found(
                format!(
                    "mv[{i}]: no {} equipment of facility '{fid}' stores the role {}",
                    name(&e.class),
                    name(&e.role)
                ),
                json!({"argument": "mv.role", "unknown": [e.role]}),
            ));
        }
        for m in with_role {
            meters.insert(m.to_string(), e.class.clone());
        }
    }
    let outside: Vec<String> = wanted.iter().filter(|w| !meters.contains_key(*w)).cloned().collect();
    if !outside.is_empty() {
        return Err(CapError::not_found(
            format!(
                "no mv entry measures equipment {}",
                outside.iter().map(|e| name(e)).collect::<Vec<_>>().join(", ")
            ),
            json!({"argument": "equips", "unknown": outside}),
        ));
    }
    let mut read: Vec<String> = meters.keys().cloned().collect();
    if let Some((e, _)) = &config.shared_oat {
        if stored.contains(e) && !read.contains(e) {
            read.push(e.clone());
        }
    }
    let grid = store::read_grid(&fid, &read, None, None, config.resample_ns)?;
    // the weather point's column, read as the outdoor air whatever its role
    let shared = crate::prepare::shared_oat(&grid, &config).map(|(_, ts, v)| ("oat".to_string(), ts, v));
    let frames: Vec<(String, String, camber_analytics::Frame)> = grid
        .into_iter()
        .filter(|g| meters.contains_key(&g.equip))
        .map(|g| {
            let mut frame = to_frame(g.frame);
            if let (Some((role, ts, v)), None) = (&shared, frame.col("oat")) {
                frame = with_shared(frame, role, ts, v);
            }
            (g.equip, g.equip_class, frame)
        })
        .collect();
    let list: Vec<Meter> = frames.iter().map(|(n, c, f)| Meter { name: n, class: c, frame: f }).collect();
    let out = mv::run(section, &list, config.units_system);

    let mut results: Vec<&MvResult> = out.results.iter().collect();
    results.sort_by(|a, b| {
        b.finding.severity.cmp(&a.finding.severity).then_with(|| (&a.meter, a.kind).cmp(&(&b.meter, b.kind)))
    });
    let mut kinds: BTreeMap<&str, usize> = mv::run::KINDS.iter().map(|k| (*k, 0)).collect();
    kinds.insert("other", 0);
    let mut counts = BTreeMap::from([("fault", 0usize), ("warn", 0), ("info", 0), ("ok", 0)]);
    for r in &results {
        *kinds.entry(if mv::run::KINDS.contains(&r.kind) { r.kind } else { "other" }).or_default() += 1;
        *counts.entry(severity_str(r.finding.severity)).or_default() += 1;
    }
    let declined = out.declined.len();
    let limit = camber_sdk::count_arg(args, "limit", 25);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let (shown, notice) = page(results.clone(), "findings", offset, limit, "worst first");
    let mut facts = vec![json!({
        "id": "F1@mv_summary", "kind": "mv_counts", "facility_id": fid, "value": results.len(),
        "entries": section.entries.len(), "meters": out.meters, "declined": declined,
        "text": format!("M&V on {fid}: {} entr(ies) on {} meter(s): {} result(s) ({} baseline, {} savings, {} trigger, {} method proposal), {declined} declined",
            section.entries.len(), out.meters.len(), results.len(), kinds["mv_baseline"], kinds["mv_savings"], kinds["mv_trigger"], kinds["mv_method_proposal"]),
    })];
    let mut text = vec![format!(
        "M&V on {}: {} result(s) on {} meter(s), {declined} declined [F1@mv_summary].",
        name(&fid),
        results.len(),
        out.meters.len()
    )];
    for (k, r) in shown.iter().enumerate() {
        let id = format!("F{}@mv_summary", k + 2);
        let t = format!(
            "{}@{} is {}: {}",
            r.kind,
            name(&r.meter),
            severity_str(r.finding.severity),
            one(&r.finding.summary)
        );
        facts.push(json!({"id": id, "kind": r.kind, "meter": r.meter, "equip": r.meter, "value": severity_str(r.finding.severity), "metrics": Value::Object(r.metrics.clone()), "text": t}));
        if k < 6 && (r.kind == "mv_savings" || r.kind == "mv_baseline" || r.finding.severity >= Severity::Warn) {
            text.push(format!("{t} [{id}]."));
        }
    }
    let mut banners: Vec<String> = rc["banners"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    if results.iter().any(|r| r.kind == "mv_baseline" && r.metrics.get("accept") == Some(&json!(false))) {
        banners.push("A baseline fails ASHRAE Guideline 14's acceptance: its savings are for information only.".into());
    }
    let data = json!({
        "facility_id": fid,
        "entries": section.entries.len(),
        "meters": out.meters,
        "kinds": kinds,
        "counts": counts,
        "declined": declined,
        "declined_meters": out.declined.iter().map(|(m, why)| json!({"meter": m, "reason": why})).collect::<Vec<_>>(),
        "n_findings": results.len(),
        "findings": shown.iter().map(|r| row(r, meters.get(&r.meter).map_or("", String::as_str))).collect::<Vec<_>>(),
    });
    let mut o = Output::new(data, text.join(" "), facts);
    o.banners = banners;
    o.pages.extend(notice);
    Ok(o)
}
