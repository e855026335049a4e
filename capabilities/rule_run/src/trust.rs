//! `sensor_trust`: the score of each point a run reads, on the run's frames.

use std::collections::BTreeSet;

use camber_analytics::run::{applies, selected_rules, RunRequest};
use camber_analytics::trust::Trust;
use camber_analytics::Severity;
use camber_sdk::{name, page, unknown_selection, CapError, Context, Output};
use serde_json::{json, Value};

use crate::prepare::{prepare, run_block, strings};
use crate::run::{reference_json, severity_str};

pub fn sensor_trust(args: &Value, ctx: &Context) -> Result<Output, CapError> {
    let p = prepare(args, ctx, args.get("min_trust").and_then(Value::as_f64))?;
    let view = args.get("view").and_then(Value::as_str).unwrap_or("rules");
    let roles = strings(args, "roles");
    let stored_roles: BTreeSet<String> = p.frames.iter().flat_map(|e| e.frame.cols.keys().cloned()).collect();
    let unknown: Vec<String> = roles.iter().filter(|r| !stored_roles.contains(*r)).cloned().collect();
    if !unknown.is_empty() {
        return Err(unknown_selection(&p.fid, "roles", "role on the run's equipment", &unknown, stored_roles));
    }
    let selected = selected_rules(&p.config, &RunRequest { min_trust: p.min_trust, ..Default::default() })
        .map_err(crate::run::engine_error)?;
    // scored one equipment at a time, so a caller watching sees each one go
    let phase = crate::progress::Phase::only("trust");
    let scores: std::collections::BTreeMap<String, _> = p
        .frames
        .iter()
        .enumerate()
        .map(|(i, e)| {
            phase.report(i, p.frames.len(), &e.equip);
            (
                e.equip.clone(),
                camber_analytics::run::trust_of(std::slice::from_ref(e), &p.config)
                    .remove(&e.equip)
                    .unwrap_or_default(),
            )
        })
        .collect();
    phase.report(p.frames.len(), p.frames.len(), "done");
    let references = camber_analytics::run::compare_references(&p.config, &p.frames, &p.others);
    let mut rows: Vec<(String, String, Trust, Vec<&'static str>)> = Vec::new();
    for e in &p.frames {
        let read_by_rules: BTreeSet<&str> = selected
            .iter()
            .filter(|(_, spec, _)| applies(spec, &e.class))
            .flat_map(|(_, spec, _)| spec.inputs.roles())
            .collect();
        for (role, t) in scores.get(&e.equip).into_iter().flatten() {
            if view == "rules" && !read_by_rules.contains(role.as_str()) {
                continue;
            }
            if !roles.is_empty() && !roles.contains(role) {
                continue;
            }
            let mut flags = t.flags.clone();
            let mut t = t.clone();
            if let Some(c) =
                references.iter().find(|r| r.equip == e.equip && &r.role == role).and_then(|r| r.comparison.as_ref())
            {
                match c.severity {
                    Severity::Fault => flags.push("reference_fault"),
                    Severity::Warn => flags.push("reference_warn"),
                    _ => {}
                }
                // an offset has no shape in the trend: a disagreeing reference makes the point
                // suspect whatever its score (which, and below_floor, stay as they are)
                if c.severity >= Severity::Warn && t.verdict == "trusted" {
                    t.verdict = "suspect";
                }
            }
            rows.push((e.equip.clone(), role.clone(), t, flags));
        }
    }
    let rank = |v: &str| match v {
        "untrusted" => 0,
        "suspect" => 1,
        _ => 2,
    };
    rows.sort_by(|a, b| {
        rank(a.2.verdict)
            .cmp(&rank(b.2.verdict))
            .then(a.2.score.total_cmp(&b.2.score))
            .then_with(|| (&a.0, &a.1).cmp(&(&b.0, &b.1)))
    });
    let n_points = rows.len();
    let below: Vec<&(String, String, Trust, Vec<&str>)> = rows.iter().filter(|r| r.2.score < p.min_trust).collect();
    let n_below = below.len();
    let mut facts = vec![json!({
        "id": "F1@sensor_trust", "kind": "sensor_trust_counts", "value": n_points, "below_floor": n_below, "min_trust": p.min_trust,
        "text": format!("{} point(s) scored in view {view}; {n_below} below the trust floor {:.2}", n_points, p.min_trust),
    })];
    let mut text = vec![format!(
        "{n_points} point(s) of {} scored (view {view}); {n_below} are below the trust floor {:.2} [F1@sensor_trust].",
        name(&p.fid),
        p.min_trust
    )];
    for (k, r) in below.iter().take(5).enumerate() {
        let id = format!("F{}@sensor_trust", k + 2);
        let t = format!(
            "{} {} has trust {:.2} ({}){}",
            name(&r.0),
            name(&r.1),
            r.2.score,
            r.2.verdict,
            if r.3.is_empty() { String::new() } else { format!(", flags {}", r.3.join(", ")) }
        );
        facts
            .push(json!({"id": id, "kind": "trust", "equip": r.0, "role": r.1, "value": r.2.score, "text": t.clone()}));
        text.push(format!("{t} [{id}]."));
    }
    for r in &references {
        let id = format!("F{}@sensor_trust", facts.len() + 1);
        let t = match &r.comparison {
            Some(c) => format!(
                "{} {} against {} ({}): bias {:+.2} ({} reads {}), RMSE {:.2}, {} paired samples, verdict {}",
                name(&r.equip),
                name(&r.role),
                name(&r.reference),
                name(&r.label),
                c.bias,
                name(&r.role),
                c.sign,
                c.rmse,
                c.samples,
                severity_str(c.severity)
            ),
            None => format!("{} {} could not be compared with {}", name(&r.equip), name(&r.role), name(&r.reference)),
        };
        facts.push(json!({"id": id, "kind": "reference", "equip": r.equip, "role": r.role, "value": r.comparison.as_ref().map(|c| c.bias), "text": t.clone()}));
        text.push(format!("{t} [{id}]."));
    }
    let limit = camber_sdk::count_arg(args, "limit", 100);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    // cut to the page before the rows are written out
    let (on_page, n1) = page(rows.iter().collect::<Vec<_>>(), "points", offset, limit, "least trusted first");
    let page_rows: Vec<Value> = on_page
        .into_iter()
        .map(|(equip, role, t, flags)| {
            json!({"equip": equip, "role": role, "trust": t.score, "verdict": t.verdict, "flags": flags, "coverage": t.coverage, "coverage_of": t.coverage_of,
                   "samples": t.samples, "below_floor": t.score < p.min_trust, "out_of_range_share": t.out_of_range_share,
                   "spike_share": t.spike_share, "stuck_share": t.stuck_share, "gated": t.gated})
        })
        .collect();
    let mut banners = p.banners.clone();
    for r in references.iter().filter(|r| r.comparison.is_none()) {
        banners.push(format!("the reference {} for {} {} could not be compared (no paired sample): findings on that point were not checked against it", name(&r.reference), name(&r.equip), name(&r.role)));
    }
    let data = json!({
        "facility_id": p.fid,
        "run": run_block(&p),
        "view": view,
        "min_trust": p.min_trust,
        "n_points": n_points,
        "below_floor": n_below,
        "points": page_rows,
        "references": references.iter().map(reference_json).collect::<Vec<_>>(),
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages.extend(n1);
    Ok(out)
}
