//! `finding_detail`: one finding of the same run as `rule_run`, in full.

use camber_analytics::engine::{round2, Severity, EVENTS_METRIC, NS_PER_HOUR};
use camber_analytics::run::{run_equipment, stands_alone, EquipFrame, RunFinding, RunResult};
use camber_analytics::Frame;

const NS_PER_HOUR_F: f64 = NS_PER_HOUR as f64;
use camber_common::time::iso_from_ns;
use camber_sdk::{name, page, CapError, Context, Output, PageNotice};
use serde_json::{json, Value};

use crate::prepare::{prepare, run_block};
use crate::run::{
    conditional_words, declined_banner, execute, metrics_json, one, reference_banners, reference_json, request,
    severity_str, share,
};

/// A run of flagged samples with no gap longer than one and a half grid intervals.
#[derive(Debug, PartialEq)]
pub struct Span {
    pub start: i64,
    pub end: i64,
    pub samples: usize,
}

/// The flagged samples (indices into `ts`) as contiguous spans.
pub fn spans(ts: &[i64], flagged: &[u32], step_ns: i64) -> Vec<Span> {
    let max_gap = step_ns as f64 * 1.5;
    let mut out: Vec<Span> = Vec::new();
    for &i in flagged {
        let Some(&t) = ts.get(i as usize) else { continue };
        match out.last_mut() {
            Some(s) if (t - s.end) as f64 <= max_gap => {
                s.end = t;
                s.samples += 1;
            }
            _ => out.push(Span { start: t, end: t, samples: 1 }),
        }
    }
    out
}

/// The page of the flagged spans listed as `list`, in time order, as rows (a year at a minute
/// can hold thousands of spans: only the page's are written out).
fn span_page(
    frame: &Frame,
    flagged: &[u32],
    step_ns: i64,
    list: &str,
    offset: usize,
    limit: usize,
) -> (Vec<Value>, Option<PageNotice>) {
    let (shown, notice) = page(spans(&frame.ts, flagged, step_ns), list, offset, limit, "in time order");
    let rows = shown
        .into_iter()
        .map(|s| {
            // a span of one sample stands for one grid interval
            let hours = ((s.end - s.start) as f64 / NS_PER_HOUR_F) + step_ns as f64 / NS_PER_HOUR_F;
            json!({"start": iso_from_ns(s.start), "end": iso_from_ns(s.end), "hours": round2(hours), "samples": s.samples})
        })
        .collect();
    (rows, notice)
}

/// The most flagged spans a chart shades: a chart is about a thousand pixels wide, so more
/// would touch; the closest are merged until this many remain.
pub const CHART_SPANS: usize = 100;

/// What the host needs to draw a finding's evidence chart as an image: every flagged span
/// (`[start, end]`, the end one grid interval past the last flagged sample), the closest merged
/// down to [`CHART_SPANS`], the grid and window the finding was judged on, and whether the
/// caller wants the image (`image`, default true).
pub(crate) fn chart_image(chart: &mut Value, ts: &[i64], flagged: &[u32], step_ns: i64, args: &Value) {
    let mut all: Vec<(i64, i64)> =
        spans(ts, flagged, step_ns).into_iter().map(|s| (s.start, s.end + step_ns)).collect();
    if all.len() > CHART_SPANS {
        let mut gaps: Vec<i64> = all.windows(2).map(|w| w[1].0 - w[0].1).collect();
        gaps.sort_unstable();
        let cut = gaps[all.len() - CHART_SPANS - 1];
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(CHART_SPANS);
        for (a, b) in all {
            match merged.last_mut() {
                Some(last) if a - last.1 <= cut => last.1 = b,
                _ => merged.push((a, b)),
            }
        }
        all = merged;
    }
    chart["spans"] = json!(all.iter().map(|(a, b)| [iso_from_ns(*a), iso_from_ns(*b)]).collect::<Vec<_>>());
    chart["step_minutes"] = json!(step_ns as f64 / 60e9);
    chart["window"] = json!({"start": ts.first().map(|t| iso_from_ns(*t)), "end": ts.last().map(|t| iso_from_ns(*t))});
    chart["image"] = json!(args.get("image").and_then(Value::as_bool).unwrap_or(true));
}

/// The evidence chart a rule's finding is read from: a scatter of one signal against its
/// driver for the rules that judge such a relation, else the inputs the rule read over time.
/// Every role it names is one the frame holds; a derived axis says what it is derived from.
pub(crate) fn chart(f: &RunFinding, frame: &Frame) -> Value {
    let (_, spec) = camber_analytics::rules::find(f.finding.rule).expect("a run's rule exists");
    let mut roles: Vec<&str> = Vec::new();
    for r in spec.inputs.roles().iter() {
        if frame.col(r).is_some() && !roles.contains(r) {
            roles.push(r);
        }
    }
    if f.is_fleet() {
        return json!({"kind": "fleet", "roles": spec.inputs.required, "members": f.members, "highlight": "implicated units"});
    }
    let has = |r: &str| roles.contains(&r);
    let scatter = match spec.id {
        "supply_air_reset" if has("oat") => Some(json!({"x": "oat", "y": "supply_air_temp"})),
        "condenser_water_reset" => {
            if has("wetbulb_temp") {
                Some(json!({"x": "wetbulb_temp", "y": "cw_supply_temp"}))
            } else if has("oat") {
                Some(json!({"x": "wet bulb", "x_from": ["oat", "outdoor_rh"], "y": "cw_supply_temp"}))
            } else {
                None
            }
        }
        "outdoor_air_fraction" if has("oat") => Some(
            json!({"x": "oat", "y": "outdoor-air fraction", "y_from": ["mixed_air_temp", "return_air_temp", "oat"]}),
        ),
        _ => None,
    };
    match scatter {
        Some(mut c) => {
            c["kind"] = json!("scatter");
            c["roles"] = json!(roles);
            c["highlight"] = json!("flagged samples");
            c
        }
        None => json!({"kind": "timeseries", "roles": roles, "highlight": "flagged spans"}),
    }
}

/// The time axis of a fleet finding: its members' timestamps merged, as the engine judged it.
fn fleet_axis(f: &RunFinding, frames: &[EquipFrame]) -> Frame {
    let ts = camber_analytics::fleet::union_of(
        frames.iter().filter(|e| f.members.contains(&e.equip)).map(|e| e.frame.ts.as_slice()),
    );
    Frame { ts, cols: Default::default() }
}

/// Whether an id names a drift finding: `<family>:<detector>@<equip>`.
fn is_drift_id(id: &str) -> bool {
    id.split_once('@').is_some_and(|(head, _)| head.contains(':'))
}

/// A drift finding in full: the drift run the arguments make (their baseline and current
/// windows, else the run config's drift section), the finding, and its flagged spans on its
/// family's current window.
fn drift_detail(args: &Value, ctx: &Context, want: &str) -> Result<Output, CapError> {
    use camber_analytics::config::RunConfig;
    let fid = args["facility_id"].as_str().unwrap_or_default().to_string();
    let rc = camber_sdk::store::run_config(&fid)?;
    let config = RunConfig::from_value(&rc["config"])
        .map_err(|e| CapError::internal(format!("the run config for this facility does not check: {e}")))?;
    let mut dargs = json!({"facility_id": fid, "limit": 1000});
    for k in ["baseline", "current", "equips"] {
        if let Some(v) = args.get(k) {
            dargs[k] = v.clone();
        }
    }
    let d = crate::drift::run_drift(&dargs, &fid, &config, &rc, ctx, crate::progress::Phase::only("drift"))?;
    let Some(f) = d.findings.iter().find(|f| f.id == want) else {
        let ids: Vec<String> = d.findings.iter().map(|f| f.id.clone()).collect();
        return Err(CapError::not_found(
            format!(
                "this drift run has no finding {}; pass the baseline and current windows of the drift call. Its findings include {}",
                name(want),
                if ids.is_empty() { "none".into() } else { ids.iter().take(10).map(|i| name(i)).collect::<Vec<_>>().join(", ") }
            ),
            json!({"argument": "finding_id", "unknown": [want], "available": ids.into_iter().take(50).collect::<Vec<_>>()}),
        ));
    };
    let family = d.families.iter().find(|x| x["family"] == f.family.as_str()).cloned().unwrap_or(Value::Null);
    let at = |v: &Value| v.as_str().and_then(camber_common::time::ns_from_iso);
    let (start, end) = (at(&family["current"][0]), at(&family["current"][1]));
    // the flagged samples index the family's current window of the equipment's grid
    let step = d.step_ns;
    let grid = camber_sdk::store::read_grid(&fid, std::slice::from_ref(&f.equip), start, end, step)?;
    let frame =
        grid.into_iter().find(|g| g.equip == f.equip).map(|g| crate::prepare::to_frame(g.frame)).unwrap_or_default();
    let limit = camber_sdk::count_arg(args, "limit", 50);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let (violations, n1) = span_page(&frame, &f.finding.flagged, step, "violations", offset, limit);
    let w = frame.weights_hours();
    let flagged_h = round2(f.finding.flagged.iter().filter_map(|&i| w.get(i as usize)).sum::<f64>());
    let spec = camber_analytics::drift::spec(&f.detector);
    let roles: Vec<&str> = spec
        .as_ref()
        .map(|s| s.inputs.roles().into_iter().filter(|r| frame.col(r).is_some()).collect())
        .unwrap_or_default();
    let share = (f.finding.judged > 0)
        .then(|| (10_000.0 * f.finding.flagged.len() as f64 / f.finding.judged as f64).round() / 100.0);
    let fact_text = format!("{} is {}: {}", name(&f.id), severity_str(f.finding.severity), one(&f.finding.summary));
    let facts = vec![
        json!({"id": "F1@finding_detail", "kind": "finding", "finding_id": f.id, "value": severity_str(f.finding.severity), "text": fact_text.clone()}),
        json!({"id": "F2@finding_detail", "kind": "judged", "value": f.finding.judged, "flagged": f.finding.flagged.len(), "share": share,
               "text": format!("{} of {} {} flagged ({} h flagged), against {}", f.finding.flagged.len(), f.finding.judged, f.finding.judged_basis, flagged_h, f.baseline_source)}),
    ];
    let text = format!(
        "{fact_text} [F1@finding_detail]. {} of {} {} were flagged, {flagged_h} h in all, against {} [F2@finding_detail].",
        f.finding.flagged.len(),
        f.finding.judged,
        f.finding.judged_basis,
        f.baseline_source
    );
    let window = json!({"start": start.map(iso_from_ns), "end": end.map(iso_from_ns)});
    let mut chart = json!({"kind": "timeseries", "roles": roles, "highlight": "flagged spans", "baseline_source": f.baseline_source});
    chart_image(&mut chart, &frame.ts, &f.finding.flagged, step, args);
    let data = json!({
        "facility_id": fid,
        "run": {"source": rc["source"], "from_config": rc["from_config"], "resample_minutes": step as f64 / 60e9,
                "min_trust": rc["min_trust"], "window": window, "equipment": 1},
        "finding_id": f.id, "rule": f.detector, "equip": f.equip,
        "severity": severity_str(f.finding.severity), "summary": f.finding.summary, "caveats": f.finding.caveats,
        "metrics": metrics_json(&f.finding.metrics),
        "params": [],
        "judged_samples": f.finding.judged, "judged_basis": f.finding.judged_basis,
        "judged_hours": round2(f.finding.judged as f64 * step as f64 / NS_PER_HOUR_F),
        "flagged_samples": f.finding.flagged.len(), "flagged_hours": flagged_h, "share": share,
        "violations": violations,
        "violations_note": if f.finding.flagged.is_empty() { json!(format!("none of the {} {} was flagged", f.finding.judged, f.finding.judged_basis)) } else { Value::Null },
        "conditions": [],
        "conditional_on": [],
        "declined": f.declined.iter().map(|(r, s)| json!({"role": r, "trust": s})).collect::<Vec<_>>(),
        "chart": chart,
        "family": f.family,
        "baseline_source": f.baseline_source,
    });
    let mut out = Output::new(data, text, facts);
    out.banners = d.banners;
    out.pages.extend(n1);
    Ok(out)
}

/// The run of the one finding `want` names when its rule [`stands_alone`]: that rule on that
/// equipment only, the same finding a whole run gives at a fraction of the work. Kept only
/// when it holds the finding and the finding is neither declined nor conditional on a
/// reference (their banners count the whole run's); `None` runs everything, as does any
/// refusal, so that the whole run words it.
fn alone(args: &Value, p: &crate::prepare::Prepared, want: &str) -> Result<Option<RunResult>, CapError> {
    let Some((rule, _)) = want.split_once('@') else { return Ok(None) };
    let named = |e: &str| {
        want.strip_prefix(rule).and_then(|x| x.strip_prefix('@')).and_then(|x| x.strip_prefix(e)).is_some_and(|n| {
            n.is_empty() || n.strip_prefix('#').is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    // one equipment only: names such as `AHU-1` and `AHU-1#2` could both read as this id
    let equips: Vec<&str> = p.frames.iter().map(|e| e.equip.as_str()).filter(|e| named(e)).collect();
    let [equip] = equips[..] else { return Ok(None) };
    let mut req = request(args, p)?;
    if !stands_alone(rule) || req.rules.as_ref().is_some_and(|r| !r.iter().any(|x| x == rule)) {
        return Ok(None);
    }
    req.rules = Some(vec![rule.to_string()]);
    let Ok(result) = run_equipment(&p.config, &req, &p.frames, &p.others, equip) else { return Ok(None) };
    let whole = result.findings.iter().any(|f| f.id == want && f.declined.is_empty() && f.conditional_on.is_empty());
    Ok(whole.then_some(result))
}

pub fn finding_detail(args: &Value, ctx: &Context) -> Result<Output, CapError> {
    let want = args["finding_id"].as_str().unwrap_or_default();
    if is_drift_id(want) {
        return drift_detail(args, ctx, want);
    }
    let p = prepare(args, ctx, None)?;
    let result = match alone(args, &p, want)? {
        Some(r) => r,
        None => execute(args, &p, crate::progress::Phase::only("rules"))?,
    };
    let Some(f) = result.findings.iter().find(|f| f.id == want) else {
        let ids: Vec<String> = result.findings.iter().map(|f| f.id.clone()).collect();
        let shown: Vec<String> = ids.iter().take(10).map(|i| name(i)).collect();
        return Err(CapError::not_found(
            format!(
                "this run has no finding {}; pass the same arguments as the rule_run call. Its findings include {}",
                name(want),
                if shown.is_empty() { "none".into() } else { shown.join(", ") }
            ),
            json!({"argument": "finding_id", "unknown": [want], "available": ids.into_iter().take(50).collect::<Vec<_>>()}),
        ));
    };
    // a fleet finding's flagged samples lie on its members' merged timestamps
    let axis;
    let frame = if f.is_fleet() {
        axis = fleet_axis(f, &p.frames);
        &axis
    } else {
        &p.frames.iter().find(|e| e.equip == f.equip).expect("a finding's equipment was run").frame
    };
    let step = p.config.step_of(frame);
    let w = frame.weights_hours();
    let hours = |idx: &[u32]| round2(idx.iter().map(|&i| w[i as usize]).sum::<f64>());
    let limit = camber_sdk::count_arg(args, "limit", 50);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let (violations, n1) = span_page(frame, &f.finding.flagged, step, "violations", offset, limit);
    let judged_hours = if f.finding.judged == 0 {
        0.0
    } else {
        f.finding.conditions.iter().map(|c| c.judged_hours).fold(f64::NAN, f64::max)
    };
    let judged_hours =
        if judged_hours.is_nan() { f.finding.judged as f64 * step as f64 / NS_PER_HOUR_F } else { judged_hours };
    let note: Option<String> = if !f.declined.is_empty() {
        Some("declined by the trust floor: nothing was judged".into())
    } else if f.finding.judged == 0 {
        Some(format!("no sample qualified ({}): nothing was judged", f.finding.judged_basis))
    } else if f.finding.flagged.is_empty() && f.finding.severity >= Severity::Warn {
        Some(format!("the verdict rests on figures of the whole window (its metrics), not on flagged samples: none of the {} {} was flagged by itself", f.finding.judged, f.finding.judged_basis))
    } else if f.finding.flagged.is_empty() {
        Some(format!("none of the {} {} was flagged", f.finding.judged, f.finding.judged_basis))
    } else {
        None
    };
    let mut pages = vec![n1];
    let mut facts = Vec::new();
    let fact_text = format!("{} is {}: {}", name(&f.id), severity_str(f.finding.severity), one(&f.finding.summary));
    facts.push(json!({"id": "F1@finding_detail", "kind": "finding", "finding_id": f.id, "value": severity_str(f.finding.severity), "text": fact_text.clone()}));
    let mut text = vec![format!("{fact_text} [F1@finding_detail].")];
    // an event rule's flagged samples are instants: counted as events, not summed as hours
    let events = f.finding.metrics.get(EVENTS_METRIC).map(|_| f.finding.flagged.len());
    let flagged_h = hours(&f.finding.flagged);
    if let Some(n) = events {
        facts.push(json!({"id": "F2@finding_detail", "kind": "judged", "value": f.finding.judged, "events": n, "share": share(f),
            "text": format!("{n} events flagged in {} {} ({} h judged)", f.finding.judged, f.finding.judged_basis, round2(judged_hours))}));
        text.push(format!(
            "{n} events were flagged in {} {}, over {} h judged [F2@finding_detail].",
            f.finding.judged,
            f.finding.judged_basis,
            round2(judged_hours)
        ));
    } else {
        facts.push(json!({"id": "F2@finding_detail", "kind": "judged", "value": f.finding.judged, "flagged": f.finding.flagged.len(), "share": share(f),
            "text": format!("{} of {} {} flagged ({} h flagged)", f.finding.flagged.len(), f.finding.judged, f.finding.judged_basis, flagged_h)}));
        text.push(format!(
            "{} of {} {} were flagged, {} h in all [F2@finding_detail].",
            f.finding.flagged.len(),
            f.finding.judged,
            f.finding.judged_basis,
            flagged_h
        ));
    }
    let conditions: Vec<Value> = f
        .finding
        .conditions
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (rows, n) = span_page(frame, &c.flagged, step, &format!("conditions.{}.violations", c.name), offset, limit);
            pages.push(n);
            let sh = (c.judged > 0).then(|| (10_000.0 * c.flagged.len() as f64 / c.judged as f64).round() / 100.0);
            let id = format!("F{}@finding_detail", k + 3);
            facts.push(json!({"id": id, "kind": "condition", "condition": c.name, "value": sh, "judged": c.judged, "flagged": c.flagged.len(),
                "text": format!("condition {}: {} of {} judged samples flagged", c.name, c.flagged.len(), c.judged)}));
            let mut row = json!({"name": c.name, "judged_samples": c.judged, "flagged_samples": c.flagged.len(), "judged_hours": round2(c.judged_hours),
                   "flagged_hours": round2(c.flagged_hours), "share": sh, "violations": rows});
            if events.is_some() {
                row["events"] = json!(c.flagged.len());
                row["flagged_hours"] = Value::Null;
            }
            row
        })
        .collect();
    if f.is_fleet() {
        let id = format!("F{}@finding_detail", facts.len() + 1);
        let implicated = if f.equips.is_empty() {
            "implicates no unit".to_string()
        } else {
            format!("implicates {}", f.equips.iter().map(|e| name(e)).collect::<Vec<_>>().join(", "))
        };
        let words = format!("{} judged {} units together and {implicated}", name(&f.id), f.members.len());
        facts.push(json!({"id": id, "kind": "fleet", "value": f.equips.len(), "members": f.members.len(), "equips": f.equips, "text": words}));
        text.push(format!("It judged {} units together and {implicated} [{id}].", f.members.len()));
    }
    let cond = conditional_words(f);
    if !cond.is_empty() {
        let id = format!("F{}@finding_detail", facts.len() + 1);
        facts.push(json!({"id": id, "kind": "conditional_on", "value": f.conditional_on.len(), "text": format!("{} is {cond}", name(&f.id))}));
        text.push(format!("It is {cond} [{id}]."));
    }
    let mut banners = p.banners.clone();
    banners.extend(declined_banner(&result, p.min_trust).filter(|_| !f.declined.is_empty()));
    banners.extend(reference_banners(&result, &[f]).into_iter().filter(|_| !f.conditional_on.is_empty()));
    let mut chart = chart(f, frame);
    if !f.is_fleet() {
        chart_image(&mut chart, &frame.ts, &f.finding.flagged, step, args);
    }
    let data = json!({
        "facility_id": p.fid,
        "run": run_block(&p),
        "finding_id": f.id, "rule": f.finding.rule, "equip": f.equip,
        "severity": severity_str(f.finding.severity), "summary": f.finding.summary, "caveats": f.finding.caveats,
        "metrics": metrics_json(&f.finding.metrics),
        "params": f.params.iter().map(|u| json!({"name": u.name, "value": u.value.to_json(), "unit": u.unit, "source": u.source})).collect::<Vec<_>>(),
        "judged_samples": f.finding.judged, "judged_basis": f.finding.judged_basis, "judged_hours": round2(judged_hours),
        "flagged_samples": f.finding.flagged.len(), "flagged_hours": if events.is_some() { Value::Null } else { json!(flagged_h) }, "events": events, "share": share(f),
        "violations": violations, "violations_note": note,
        "conditions": conditions,
        "conditional_on": f.conditional_on.iter().map(reference_json).collect::<Vec<_>>(),
        "declined": f.declined.iter().map(|(r, s)| json!({"role": r, "trust": s})).collect::<Vec<_>>(),
        "chart": chart,
    });
    let mut data = data;
    if f.is_fleet() {
        data["group"] = json!(f.group);
        data["members"] = json!(f.members);
        data["equips"] = json!(f.equips);
    }
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages.extend(pages.into_iter().flatten());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_break_on_gaps_over_one_and_a_half_intervals() {
        let ts: Vec<i64> = vec![0, 10, 20, 36, 50, 80];
        assert_eq!(
            spans(&ts, &[0, 1, 2, 3, 4, 5], 10),
            vec![
                Span { start: 0, end: 20, samples: 3 },
                Span { start: 36, end: 50, samples: 2 },
                Span { start: 80, end: 80, samples: 1 }
            ]
        );
        // a gap of exactly one and a half intervals does not break a span
        assert_eq!(spans(&[0, 15], &[0, 1], 10).len(), 1);
        // unflagged samples between flagged ones break it
        assert_eq!(spans(&ts, &[0, 2], 10).len(), 2);
        assert!(spans(&ts, &[], 10).is_empty());
    }
}
