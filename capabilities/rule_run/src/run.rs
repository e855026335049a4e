//! `rule_run`: the findings of one run, worst first, with counts, declines and skips.

use std::collections::BTreeMap;

use camber_analytics::config::{params_from_json, rule_spec};
use camber_analytics::engine::EngineError;
use camber_analytics::run::{run_watched, RefResult, RunFinding, RunRequest, RunResult};
use camber_analytics::Severity;
use camber_sdk::{name, page, CapError, Context, Output};
use serde_json::{json, Value};

use crate::prepare::{prepare, run_block, strings, Prepared};
use crate::progress::Phase;

/// The request the arguments make: rules, parameter overrides, the floor.
pub fn request(args: &Value, p: &Prepared) -> Result<RunRequest, CapError> {
    let rules = args.get("rules").map(|_| strings(args, "rules"));
    let mut params = BTreeMap::new();
    if let Some(obj) = args.get("params").and_then(Value::as_object) {
        for (rule, overrides) in obj {
            let spec = rule_spec(rule).map_err(|e| CapError::invalid(format!("params: {e}")))?;
            let Some(o) = overrides.as_object() else {
                return Err(CapError::invalid(format!("params.{rule} must be an object of parameter values")));
            };
            params.insert(
                rule.clone(),
                params_from_json(&spec, o).map_err(|e| CapError::invalid(format!("params: {e}")))?,
            );
        }
    }
    if let Some(r) = &rules {
        for id in r {
            rule_spec(id).map_err(|e| CapError::invalid(format!("rules: {e}")))?;
        }
    }
    Ok(RunRequest { rules, params, min_trust: p.min_trust })
}

/// Run the rules the arguments ask for, reporting each equipment as `phase` of the call.
pub fn execute(args: &Value, p: &Prepared, phase: Phase) -> Result<RunResult, CapError> {
    let req = request(args, p)?;
    run_watched(&p.config, &req, &p.frames, &p.others, &mut |done, total, what| phase.report(done, total, what))
        .map_err(engine_error)
}

/// The caller's error for an engine error: a rule the config does not run is `not_found` on
/// `rules`, parameters that do not check are `invalid_params`, an engine defect is `internal`.
pub fn engine_error(e: EngineError) -> CapError {
    match e {
        EngineError::UnknownRules { .. } => CapError::not_found(e.to_string(), json!({"argument": "rules"})),
        EngineError::BadParams(m) => CapError::invalid(format!("params: {m}")),
        EngineError::Defect(m) => CapError::internal(m),
    }
}

pub fn severity_str(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "ok",
        Severity::Info => "info",
        Severity::Warn => "warn",
        Severity::Fault => "fault",
    }
}

fn parse_severity(s: &str) -> Severity {
    match s {
        "fault" => Severity::Fault,
        "warn" => Severity::Warn,
        "info" => Severity::Info,
        _ => Severity::Ok,
    }
}

/// A reference comparison as data.
pub fn reference_json(r: &RefResult) -> Value {
    json!({
        "equip": r.equip, "role": r.role, "reference": r.reference, "reference_role": r.reference_role, "label": r.label,
        "comparison": r.comparison.as_ref().map(|c| json!({
            "bias": c.bias, "sign": c.sign, "rmse": c.rmse, "correlation": if c.correlation.is_nan() { Value::Null } else { json!(c.correlation) },
            "samples": c.samples, "overlap_hours": c.overlap_hours, "verdict": severity_str(c.severity)
        })),
    })
}

/// Metrics as JSON (a NaN is null).
pub fn metrics_json(m: &BTreeMap<String, f64>) -> Value {
    Value::Object(
        m.iter().map(|(k, v)| (k.clone(), if v.is_finite() { json!(v + 0.0) } else { Value::Null })).collect(),
    )
}

/// The share (percent) of the judged samples a finding flagged, when it judged any.
pub fn share(f: &RunFinding) -> Option<f64> {
    (f.finding.judged > 0)
        .then(|| (10_000.0 * f.finding.flagged.len() as f64 / f.finding.judged as f64).round() / 100.0)
}

/// The grid (minutes) a finding was judged on: its equipment's, or a fleet finding's finest
/// member's.
fn grid_minutes(f: &RunFinding, p: &Prepared) -> f64 {
    let step = |e: &String| p.steps.get(e).copied().unwrap_or(p.config.resample_ns);
    let ns =
        if f.is_fleet() { f.members.iter().map(step).min().unwrap_or(p.config.resample_ns) } else { step(&f.equip) };
    camber_analytics::grid::minutes(ns)
}

fn row(f: &RunFinding, p: &Prepared) -> Value {
    let mut r = json!({
        "finding_id": f.id, "rule": f.finding.rule, "equip": f.equip, "equip_class": f.class, "grid_minutes": grid_minutes(f, p),
        "severity": severity_str(f.finding.severity), "summary": f.finding.summary, "caveats": f.finding.caveats,
        "metrics": metrics_json(&f.finding.metrics), "judged_samples": f.finding.judged, "judged_basis": f.finding.judged_basis,
        "flagged_samples": f.finding.flagged.len(), "share": share(f),
    });
    if !f.declined.is_empty() {
        r["declined"] = json!(f.declined.iter().map(|(role, s)| json!({"role": role, "trust": s})).collect::<Vec<_>>());
    }
    if f.is_fleet() {
        r["group"] = json!(f.group);
        r["members"] = json!(f.members.len());
        r["equips"] = json!(f.equips);
    }
    if !f.conditional_on.is_empty() {
        r["conditional_on"] = json!(f.conditional_on.iter().map(reference_json).collect::<Vec<_>>());
    }
    r
}

/// The conditional-on words of a fact: "conditional on sensor_drift:supply_air_temp warn ...".
pub fn conditional_words(f: &RunFinding) -> String {
    f.conditional_on
        .iter()
        .filter_map(|r| {
            r.comparison.as_ref().map(|c| {
                format!(
                    "conditional on sensor_drift:{} {} (bias {:+.2} against {})",
                    name(&r.role),
                    severity_str(c.severity),
                    c.bias,
                    name(&r.label)
                )
            })
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The declined-check banner every run capability shows.
pub fn declined_banner(r: &RunResult, floor: f64) -> Option<String> {
    let declined: Vec<&RunFinding> = r.findings.iter().filter(|f| !f.declined.is_empty()).collect();
    if declined.is_empty() {
        return None;
    }
    let mut rules: Vec<&str> = declined.iter().map(|f| f.finding.rule).collect();
    rules.sort();
    rules.dedup();
    let mut inputs: Vec<String> = declined.iter().flat_map(|f| f.declined.iter().map(|(r, _)| r.clone())).collect();
    inputs.sort();
    inputs.dedup();
    Some(format!(
        "{} check(s) declined: an input scored below the trust floor {floor:.2} (rules {}; untrusted inputs {}); a declined check is not a pass",
        declined.len(),
        rules.join(", "),
        inputs.join(", ")
    ))
}

/// Notices about references: findings conditional on one, and references that could not be compared.
pub fn reference_banners(r: &RunResult, listed: &[&RunFinding]) -> Vec<String> {
    let mut out = Vec::new();
    let conditional: Vec<&RunFinding> = r.findings.iter().filter(|f| !f.conditional_on.is_empty()).collect();
    if !conditional.is_empty() {
        let here = listed.iter().filter(|f| !f.conditional_on.is_empty()).count();
        let elsewhere: Vec<String> =
            conditional.iter().filter(|f| !listed.iter().any(|l| l.id == f.id)).map(|f| name(&f.id)).collect();
        let mut s = format!(
            "{here} listed finding(s) read a sensor whose reference disagrees: treat each as a sensor problem first"
        );
        if !elsewhere.is_empty() {
            s.push_str(&format!("; also conditional, not listed here: {}", elsewhere.join(", ")));
        }
        out.push(s);
    }
    for x in r.references.iter().filter(|x| x.comparison.is_none()) {
        out.push(format!("the reference {} for {} {} could not be compared (no paired sample): findings on that point were not checked against it", name(&x.reference), name(&x.equip), x.role));
    }
    out
}

pub fn rule_run(args: &Value, ctx: &Context) -> Result<Output, CapError> {
    let p = prepare(args, ctx, None)?;
    let result = execute(args, &p, Phase::only("rules"))?;
    let min = parse_severity(args.get("min_severity").and_then(Value::as_str).unwrap_or("ok"));
    let limit = camber_sdk::count_arg(args, "limit", 25);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let mut counts = BTreeMap::from([("fault", 0usize), ("warn", 0), ("info", 0), ("ok", 0)]);
    for f in &result.findings {
        *counts.entry(severity_str(f.finding.severity)).or_default() += 1;
    }
    let shown: Vec<&RunFinding> = result.findings.iter().filter(|f| f.finding.severity >= min).collect();
    let n_findings = shown.len();
    let (page_rows, n1) = page(shown, "findings", offset, limit, "worst first");
    let n_skipped = result.skipped.len();
    let (skipped_page, n2) = page(result.skipped.iter().collect(), "skipped", offset, limit, "");
    let skipped_page: Vec<Value> =
        skipped_page.into_iter().map(|s| json!({"rule": s.rule, "equip": s.equip, "missing": s.missing})).collect();
    let declined = result.declined();

    let fid = &p.fid;
    let total = result.findings.len();
    let mut facts = vec![json!({
        "id": "F1@rule_run", "kind": "rule_run_counts", "facility_id": fid, "value": total,
        "counts": counts, "declined": declined, "skipped": n_skipped, "equipment": p.frames.len(),
        "text": format!("{fid}: {total} finding(s) on {} equipment: {} fault, {} warn, {} info, {} ok; {declined} check(s) declined by the trust floor; {n_skipped} rule run(s) skipped for missing inputs",
            p.frames.len(), counts["fault"], counts["warn"], counts["info"], counts["ok"]),
    })];
    let mut text = vec![format!(
        "{} finding(s) on {} equipment of {}: {} fault, {} warn, {} info, {} ok; {declined} check(s) declined by the trust floor and {n_skipped} rule run(s) skipped for missing inputs [F1@rule_run].",
        total, p.frames.len(), name(fid), counts["fault"], counts["warn"], counts["info"], counts["ok"]
    )];
    for (k, f) in page_rows.iter().enumerate() {
        let id = format!("F{}@rule_run", k + 2);
        let cond = conditional_words(f);
        let fact_text = format!(
            "{} is {}: {}{}",
            name(&f.id),
            severity_str(f.finding.severity),
            one(&f.finding.summary),
            if cond.is_empty() { String::new() } else { format!(" ({cond})") }
        );
        facts.push(json!({"id": id, "kind": "finding", "finding_id": f.id, "rule": f.finding.rule, "equip": f.equip, "value": severity_str(f.finding.severity), "share": share(f), "text": fact_text}));
        if k < 5 && f.finding.severity >= Severity::Warn {
            text.push(format!("{} [{id}].", fact_text));
        }
    }
    let conditional: Vec<&RunFinding> = result.findings.iter().filter(|f| !f.conditional_on.is_empty()).collect();
    if !conditional.is_empty() {
        facts.push(json!({"id": "C1@rule_run", "kind": "conditional_findings", "value": conditional.len(),
            "finding_ids": conditional.iter().map(|f| f.id.clone()).collect::<Vec<_>>(),
            "text": format!("{} finding(s) are conditional on a sensor reference that disagrees: {}", conditional.len(), conditional.iter().map(|f| name(&f.id)).collect::<Vec<_>>().join(", "))}));
    }
    let mut banners = p.banners.clone();
    banners.extend(declined_banner(&result, p.min_trust));
    banners.extend(reference_banners(&result, &page_rows));
    let data = json!({
        "facility_id": fid,
        "run": run_block(&p),
        "counts": counts,
        "n_findings": n_findings,
        "declined": declined,
        "findings": page_rows.iter().map(|f| row(f, &p)).collect::<Vec<_>>(),
        "n_skipped": n_skipped,
        "skipped": skipped_page,
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages.extend([n1, n2].into_iter().flatten());
    Ok(out)
}

/// A rule's summary as one sentence for text and facts: no trailing period, and no
/// abbreviation whose period would read as a sentence break ("in. w.c.").
pub fn one(s: &str) -> String {
    s.trim_end_matches('.').replace(" in. w.c.", " inches w.c.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use camber_common::ErrorCode;

    #[test]
    fn each_engine_error_has_its_own_code() {
        let unknown = engine_error(EngineError::UnknownRules {
            unknown: vec!["g36_nope".into()],
            known: vec!["leaking_valve".into()],
        });
        assert_eq!(
            (unknown.code, unknown.data.as_ref().unwrap()["argument"].clone()),
            (ErrorCode::NotFound, json!("rules"))
        );
        assert!(
            unknown.message.contains("'g36_nope'") && unknown.message.contains("leaking_valve"),
            "{}",
            unknown.message
        );
        let bad = engine_error(EngineError::BadParams("rule leaking_valve has no parameter 'fan_heatf'".into()));
        assert_eq!(bad.code, ErrorCode::InvalidParams);
        assert!(bad.message.contains("no parameter 'fan_heatf'"), "{}", bad.message);
        assert_eq!(engine_error(EngineError::Defect("a defect".into())).code, ErrorCode::Internal);
    }
}
