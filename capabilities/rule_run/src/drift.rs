//! `drift`: a facility's equipment judged against its own known-good behaviour. Either the
//! caller names a known-good `baseline` window (fitted for this call, never saved; the current
//! window defaults to everything after it), or the run config's `drift` section says what each
//! family is compared with (a known-good twin, a period, or baselines frozen by `camber drift
//! fit`, read and never written). Each family's detectors run with [`drift::run::run_family_watched`].

use std::collections::{BTreeMap, BTreeSet};

use camber_analytics::config::RunConfig;
use camber_analytics::drift::families::{self, DriftFamily};
use camber_analytics::drift::run::{
    run_family_watched, DriftFinding, FamilyRun, FrozenBaselines, Source, Unevaluated, Window,
};
use camber_analytics::drift::section::{DriftReference, WrittenWindow};
use camber_analytics::family::class_matches;
use camber_analytics::grid;
use camber_analytics::run::{with_shared, EquipFrame};
use camber_analytics::Severity;
use camber_common::time::{iso_from_ns, ns_from_iso};
use camber_sdk::{name, page, store, unknown_selection, CapError, Context, Output};
use serde_json::{json, Value};

use crate::prepare::{no_sample, shared_oat, strings, to_frame};
use crate::progress::Phase;
use crate::run::{metrics_json, one, severity_str};

/// One family the call runs: what it judges, against what, over which windows.
struct Plan {
    family: &'static DriftFamily,
    class: String,
    reference: Option<DriftReference>,
    /// The window a baseline is fitted on (a period, or the twin's).
    baseline: Window,
    current: Window,
}

/// A `[start, end]` argument.
fn window_arg(args: &Value, key: &str) -> Result<Option<Window>, CapError> {
    let Some(v) = args.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let a = v
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| CapError::invalid(format!("{key} must be [start, end]")))?;
    let end = |x: &Value| -> Result<Option<i64>, CapError> {
        match x.as_str() {
            None => Ok(None),
            Some(s) => ns_from_iso(s)
                .map(Some)
                .ok_or_else(|| CapError::invalid(format!("{key}: '{s}' is not a valid date or date-time"))),
        }
    };
    let w = (end(&a[0])?, end(&a[1])?);
    if let (Some(s), Some(e)) = w {
        if e < s {
            return Err(CapError::invalid(format!("{key}: the end is before the start")));
        }
    }
    Ok(Some(w))
}

/// A window as the config writes it, read.
fn written(w: &WrittenWindow, place: &str) -> Result<Window, CapError> {
    let end = |x: &Option<String>| -> Result<Option<i64>, CapError> {
        x.as_deref()
            .map(|s| {
                ns_from_iso(s).ok_or_else(|| {
                    CapError::internal(format!("the run config's {place} '{s}' is not a valid date or date-time"))
                })
            })
            .transpose()
    };
    Ok((end(&w.0)?, end(&w.1)?))
}

/// The end of a day given as a date alone, so `[.., "2025-07-01"]` takes all of that day.
fn inclusive(w: Window, given: Option<&str>) -> Window {
    match (w.1, given) {
        (Some(e), Some(s)) if s.len() == 10 => (w.0, Some(e + 86_400_000_000_000 - 1)),
        _ => w,
    }
}

/// The day after a window ends, where a current window that follows it starts.
fn after(w: Window) -> Window {
    (w.1.map(|e| e + 1), None)
}

/// A window end as shown: to the second (an end a date alone set is its day's last second).
fn show(t: i64) -> String {
    iso_from_ns(t - t.rem_euclid(1_000_000_000))
}

fn iso(t: Option<i64>) -> String {
    t.map_or_else(|| "-".into(), show)
}

/// The families as the arguments name them: `[{equip_class, family}]`.
fn family_args(args: &Value) -> Result<Option<Vec<(String, &'static DriftFamily)>>, CapError> {
    let Some(list) = args.get("families").and_then(Value::as_array) else {
        return Ok(None);
    };
    list.iter()
        .map(|f| {
            let class = f["equip_class"].as_str().unwrap_or_default().to_string();
            let fam = f["family"].as_str().unwrap_or_default();
            let family = families::family(fam).ok_or_else(|| {
                CapError::invalid(format!("families: unknown drift family '{fam}' ({})", families::names().join(", ")))
            })?;
            Ok((class, family))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The calls's plans, and where its baselines come from (`baseline_period` or `frozen_baselines`).
fn plans(
    args: &Value,
    fid: &str,
    config: &RunConfig,
    stored_classes: &BTreeSet<String>,
) -> Result<(Vec<Plan>, &'static str), CapError> {
    let current_arg = window_arg(args, "current")?.map(|w| inclusive(w, args["current"][1].as_str()));
    let chosen = family_args(args)?;
    if let Some(base) = window_arg(args, "baseline")? {
        let (Some(_), Some(_)) = base else {
            return Err(CapError::invalid("baseline needs both a start and an end"));
        };
        let base = inclusive(base, args["baseline"][1].as_str());
        let pairs: Vec<(String, &'static DriftFamily)> = match chosen {
            Some(p) => p,
            None => stored_classes
                .iter()
                .filter_map(|c| families::default_for(c).and_then(families::family).map(|f| (c.clone(), f)))
                .collect(),
        };
        if pairs.is_empty() {
            return Err(CapError::invalid(format!(
                "no stored equipment class of '{fid}' has a default drift family: pass families ({})",
                families::names().join(", ")
            )));
        }
        let current = current_arg.unwrap_or(after(base));
        let plans = pairs
            .into_iter()
            .map(|(class, family)| Plan { family, class, reference: None, baseline: base, current })
            .collect();
        return Ok((plans, "baseline_period"));
    }
    let Some(section) = &config.drift else {
        return Err(CapError::invalid(format!(
            "give a baseline window [start, end] (a known-good period), or configure a drift section for '{fid}' in the run config"
        )));
    };
    let default_base = section.baseline.as_ref().map(|w| written(w, "drift.baseline")).transpose()?;
    let default_cur = section.current.as_ref().map(|w| written(w, "drift.current")).transpose()?;
    let mut out = Vec::new();
    for e in &section.families {
        let family = families::family(&e.family).ok_or_else(|| CapError::internal("a checked family is unknown"))?;
        if let Some(chosen) = &chosen {
            if !chosen.iter().any(|(c, f)| c == &e.class && f.name == family.name) {
                continue;
            }
        }
        let own_base = e.baseline.as_ref().map(|w| written(w, "drift family baseline")).transpose()?;
        let own_cur = e.current.as_ref().map(|w| written(w, "drift family current")).transpose()?;
        let (baseline, current) = match &e.reference {
            Some(DriftReference::Period(p)) => {
                let b = written(p, "drift reference period")?;
                (b, current_arg.or(own_cur).or(default_cur).unwrap_or(after(b)))
            }
            Some(DriftReference::Equip { period, .. }) => {
                let b = match period {
                    Some(p) => written(p, "drift reference period")?,
                    None => own_base.or(default_base).unwrap_or((None, None)),
                };
                (b, current_arg.or(own_cur).or(default_cur).unwrap_or((None, None)))
            }
            None => (
                own_base.or(default_base).unwrap_or((None, None)),
                current_arg.or(own_cur).or(default_cur).unwrap_or((None, None)),
            ),
        };
        out.push(Plan { family, class: e.class.clone(), reference: e.reference.clone(), baseline, current });
    }
    if out.is_empty() {
        return Err(CapError::not_found(
            "the run config's drift section runs none of the families asked for",
            json!({"argument": "families"}),
        ));
    }
    Ok((out, "frozen_baselines"))
}

/// The grid a drift run of `fid` reads: the config's `resample`, or under `native` the
/// coarsest logged interval of the equipment it judges ([`grid::drift_step`], from the store's
/// times index: no rows are read for it): the classes of the config's drift section (all of
/// them, whatever families the call picks, as `camber drift fit` counts them) and its
/// reference equipment, or for a call's own baseline window the classes of its plans.
fn drift_step(fid: &str, plans: &[Plan], source: &str, config: &RunConfig) -> Result<i64, CapError> {
    if !config.native || plans.is_empty() {
        return Ok(config.resample_ns);
    }
    let (classes, also): (Vec<&str>, Vec<&str>) = match (&config.drift, source) {
        (Some(section), "frozen_baselines") => section.judged(),
        _ => (plans.iter().map(|p| p.class.as_str()).collect(), Vec::new()),
    };
    let times = store::read_times(fid, &[], &[], None, None)?;
    let points = times.iter().map(|p| {
        (p.equip.as_str(), p.equip_class.as_str(), grid::logged_interval(p.runs.iter().map(|r| (r.step, r.count))))
    });
    Ok(grid::drift_step(points, &classes, &also, config.resample_ns))
}

/// The frozen baselines the config's section names, read by the host, checked for this run
/// (read on a `step_ns` grid).
fn frozen(fid: &str, config: &RunConfig, step_ns: i64) -> Result<Option<FrozenBaselines>, CapError> {
    let Some(section) = &config.drift else { return Ok(None) };
    let Some(v) = &section.frozen else {
        return match &section.store {
            Some(s) => Err(CapError::new(
                camber_sdk::ErrorCode::Unavailable,
                format!("the run config names the frozen baselines '{}', which the server could not read", name(s)),
            )),
            None => Ok(None),
        };
    };
    let f: FrozenBaselines = serde_json::from_value(v.clone()).map_err(|e| {
        CapError::invalid(format!(
            "the run config's frozen baselines cannot be read: {}",
            camber_sdk::one_line(&e.to_string())
        ))
    })?;
    f.check(fid, grid::minutes(step_ns))
        .map_err(|why| CapError::invalid(format!("the run config's frozen baselines do not serve this run: {why}")))?;
    Ok(Some(f))
}

fn row(f: &DriftFinding) -> Value {
    let mut r = json!({
        "finding_id": f.id, "family": f.family, "detector": f.detector, "rule": f.detector, "equip": f.equip,
        "equip_class": f.class, "severity": severity_str(f.finding.severity), "summary": f.finding.summary,
        "caveats": f.finding.caveats, "metrics": metrics_json(&f.finding.metrics), "judged_samples": f.finding.judged,
        "judged_basis": f.finding.judged_basis, "flagged_samples": f.finding.flagged.len(),
        "share": (f.finding.judged > 0).then(|| (10_000.0 * f.finding.flagged.len() as f64 / f.finding.judged as f64).round() / 100.0),
        "baseline_source": f.baseline_source,
    });
    if !f.declined.is_empty() {
        r["declined"] = json!(f.declined.iter().map(|(role, s)| json!({"role": role, "trust": s})).collect::<Vec<_>>());
    }
    r
}

/// A drift run's results, before they are paged and worded.
pub struct DriftRun {
    /// `baseline_period` or `frozen_baselines`.
    pub source: &'static str,
    /// Each family run, as data.
    pub families: Vec<Value>,
    pub findings: Vec<DriftFinding>,
    pub diagnoses: Vec<camber_analytics::drift::families::Diagnosis>,
    pub unevaluated: Vec<Unevaluated>,
    /// Detectors the families name that this build has not got.
    pub missing_detectors: BTreeSet<&'static str>,
    /// The run config's banners.
    pub banners: Vec<String>,
    /// The grid every family read (see `drift_step`).
    pub step_ns: i64,
}

/// The `drift` capability.
pub fn drift(args: &Value, ctx: &Context) -> Result<Output, CapError> {
    let fid = args["facility_id"].as_str().unwrap_or_default().to_string();
    let rc = store::run_config(&fid)?;
    let config = RunConfig::from_value(&rc["config"])
        .map_err(|e| CapError::internal(format!("the run config for this facility does not check: {e}")))?;
    let DriftRun {
        source,
        families: fams,
        findings,
        diagnoses,
        unevaluated,
        missing_detectors,
        banners: config_banners,
        step_ns,
    } = run_drift(args, &fid, &config, &rc, ctx, Phase::only("drift"))?;

    let limit = camber_sdk::count_arg(args, "limit", 25);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let mut counts = BTreeMap::from([("fault", 0usize), ("warn", 0), ("info", 0), ("ok", 0)]);
    for f in &findings {
        *counts.entry(severity_str(f.finding.severity)).or_default() += 1;
    }
    let declined = findings.iter().filter(|f| !f.declined.is_empty()).count();
    let total = findings.len();
    let (finding_page, n1) = page(findings.iter().collect::<Vec<_>>(), "findings", offset, limit, "worst first");
    let n_diag = diagnoses.len();
    let (diag_page, n2) = page(diagnoses.iter().collect(), "diagnoses", offset, limit, "worst first");
    let diag_page: Vec<Value> = diag_page
        .into_iter()
        .map(|d| {
            json!({"family": d.family, "equip": d.equip, "severity": severity_str(d.severity), "locus": d.locus,
                   "loci": d.loci, "summary": d.summary, "causes": d.causes, "caveats": d.caveats,
                   "signals": d.signals.iter().map(|(k, (s, t))| (k.clone(), json!({"severity": severity_str(*s), "summary": t}))).collect::<serde_json::Map<_, _>>()})
        })
        .collect();
    let n_unev = unevaluated.len();
    let (unev_page, n3) = page(unevaluated.iter().collect(), "unevaluated", offset, limit, "sorted");
    let unev_page: Vec<Value> = unev_page
        .into_iter()
        .map(|u| json!({"family": u.family, "equip": u.equip, "reason": u.reason, "roles_required": u.roles_required}))
        .collect();

    let words = source.replace('_', " ");
    let mut facts = vec![json!({
        "id": "F1@drift", "kind": "drift_counts", "facility_id": fid, "value": total, "counts": counts,
        "declined": declined, "unevaluated": n_unev, "families": fams.len(), "source": source,
        "text": format!("Drift on {fid} ({words}): {} family run(s), {total} finding(s): {} fault, {} warn, {} info, {} ok; {declined} check(s) declined by the trust floor; {n_unev} equipment not evaluated",
            fams.len(), counts["fault"], counts["warn"], counts["info"], counts["ok"]),
    })];
    let mut text = vec![format!(
        "Drift on {} against its {words}: {} fault and {} warn finding(s) of {total}, {declined} check(s) declined by the trust floor and {n_unev} equipment not evaluated [F1@drift].",
        name(&fid), counts["fault"], counts["warn"]
    )];
    for (k, f) in finding_page.iter().enumerate() {
        let id = format!("F{}@drift", k + 2);
        let fact_text = format!("{} is {}: {}", name(&f.id), severity_str(f.finding.severity), one(&f.finding.summary));
        facts.push(json!({"id": id, "kind": "finding", "finding_id": f.id, "rule": f.detector, "family": f.family,
                          "equip": f.equip, "value": severity_str(f.finding.severity), "text": fact_text}));
        if k < 5 && f.finding.severity >= Severity::Warn {
            text.push(format!("{fact_text} [{id}]."));
        }
    }
    for (k, d) in diagnoses.iter().skip(offset).take(limit).enumerate() {
        let id = format!("D{}@drift", k + 1);
        facts.push(json!({"id": id, "kind": "diagnosis", "family": d.family, "equip": d.equip,
                          "value": severity_str(d.severity), "locus": d.locus, "text": one(&d.summary)}));
    }
    let mut banners = config_banners;
    if source == "baseline_period" {
        banners.push("Drift is measured against the baseline window given, fitted for this call and not kept: it is a known-good baseline only if the equipment was healthy then.".into());
    }
    if declined > 0 {
        let mut inputs: Vec<String> = findings.iter().flat_map(|f| f.declined.iter().map(|(r, _)| r.clone())).collect();
        inputs.sort();
        inputs.dedup();
        banners.push(format!(
            "{declined} check(s) declined: an input scored below the trust floor (untrusted inputs {}); a declined check is not a pass",
            inputs.join(", ")
        ));
    }
    if !missing_detectors.is_empty() {
        banners.push(format!(
            "not built in this server, so not run: {}",
            missing_detectors.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let data = json!({
        "facility_id": fid,
        "source": source,
        "grid_minutes": grid::minutes(step_ns),
        "families": fams,
        "counts": counts,
        "declined": declined,
        "n_findings": total,
        "findings": finding_page.iter().map(|f| row(f)).collect::<Vec<_>>(),
        "n_diagnoses": n_diag,
        "diagnoses": diag_page,
        "n_unevaluated": n_unev,
        "unevaluated": unev_page,
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages.extend([n1, n2, n3].into_iter().flatten());
    Ok(out)
}

/// Run the drift the arguments ask for on `fid` under its run config (`rc` as the host gave it):
/// shared by `drift` and `rcx_report`, which runs the config's drift section.
/// Run the drift families the arguments (or the config's drift section) ask for, reporting
/// each member equipment as `phase` of the call.
pub fn run_drift(
    args: &Value,
    fid: &str,
    config: &RunConfig,
    rc: &Value,
    ctx: &Context,
    phase: Phase,
) -> Result<DriftRun, CapError> {
    let fid = fid.to_string();
    let points = store::points(&fid)?;
    if points.is_empty() {
        return Err(CapError::not_found(format!("facility '{fid}' has no stored data"), json!({"facility_id": fid})));
    }
    let classes: BTreeSet<String> = points.iter().map(|p| p.equip_class.clone()).collect();
    let stored: BTreeSet<String> = points.iter().map(|p| p.equip.clone()).collect();
    let class_of: BTreeMap<&str, &str> = points.iter().map(|p| (p.equip.as_str(), p.equip_class.as_str())).collect();
    let (plans, source) = plans(args, &fid, config, &classes)?;
    let step_ns = drift_step(&fid, &plans, source, config)?;
    let frozen = frozen(&fid, config, step_ns)?;
    if source == "frozen_baselines" && frozen.is_none() && plans.iter().any(|p| p.reference.is_none()) {
        return Err(CapError::invalid(format!(
            "the run config's drift section for '{fid}' declares no reference and names no frozen baselines (drift.store): give a baseline window, declare a reference, or fit baselines with camber drift fit"
        )));
    }
    let wanted = strings(args, "equips");
    let unknown: Vec<String> = wanted.iter().filter(|e| !stored.contains(*e)).cloned().collect();
    if !unknown.is_empty() {
        return Err(unknown_selection(&fid, "equips", "equipment", &unknown, stored));
    }
    let in_plan = |equip: &str| class_of.get(equip).is_some_and(|c| plans.iter().any(|p| class_matches(c, &p.class)));
    let outside: Vec<String> = wanted.iter().filter(|e| !in_plan(e)).cloned().collect();
    if !outside.is_empty() {
        let shown: Vec<String> = outside.iter().map(|e| name(e)).collect();
        return Err(CapError::not_found(
            format!("no drift family of this call judges equipment {}: its class has none", shown.join(", ")),
            json!({"argument": "equips", "unknown": outside}),
        ));
    }
    // twins named by the config must be stored
    for p in &plans {
        if let Some(DriftReference::Equip { equip, .. }) = &p.reference {
            if !stored.contains(equip) {
                return Err(CapError::not_found(
                    format!("the drift reference equipment {} is not stored", name(equip)),
                    json!({"argument": "reference", "unknown": [equip]}),
                ));
            }
        }
    }
    let mut read: BTreeSet<String> =
        stored.iter().filter(|e| in_plan(e) && (wanted.is_empty() || wanted.contains(*e))).cloned().collect();
    for p in &plans {
        if let Some(DriftReference::Equip { equip, .. }) = &p.reference {
            read.insert(equip.clone());
        }
    }
    if let Some((e, _)) = &config.shared_oat {
        if stored.contains(e) {
            read.insert(e.clone());
        }
    }
    let list: Vec<String> = read.into_iter().collect();
    let grid = store::read_grid(&fid, &list, None, None, step_ns)?;
    let shared = shared_oat(&grid, config);
    let frames: Vec<EquipFrame> = grid
        .into_iter()
        .map(|g| {
            let mut frame = to_frame(g.frame);
            if let Some((role, ts, v)) = &shared {
                frame = with_shared(frame, role, ts, v);
            }
            EquipFrame { equip: g.equip, class: g.equip_class, frame }
        })
        .collect();
    let holds = |w: Window, among: &[&EquipFrame]| {
        among.iter().any(|f| f.frame.ts.iter().any(|&t| w.0.is_none_or(|a| t >= a) && w.1.is_none_or(|b| t <= b)))
    };

    let no_params = BTreeMap::new();
    let (mut findings, mut diagnoses, mut unevaluated, mut fams) =
        (Vec::new(), Vec::new(), Vec::<Unevaluated>::new(), Vec::new());
    let mut missing_detectors: BTreeSet<&str> = BTreeSet::new();
    let in_call = |f: &EquipFrame, class: &str| {
        class_matches(&f.class, class) && (wanted.is_empty() || wanted.contains(&f.equip))
    };
    let total: usize = plans.iter().map(|p| frames.iter().filter(|f| in_call(f, &p.class)).count()).sum();
    let mut before = 0;
    for p in &plans {
        let members: Vec<&EquipFrame> = frames.iter().filter(|f| in_call(f, &p.class)).collect();
        let twin = match &p.reference {
            Some(DriftReference::Equip { equip, .. }) => frames.iter().find(|f| &f.equip == equip),
            _ => None,
        };
        // a window of the call's with nothing stored in it is not_found, naming the data's span
        let base_among: Vec<&EquipFrame> = twin.map_or(members.clone(), |t| vec![t]);
        if !members.is_empty() && !holds(p.baseline, &base_among) {
            return Err(no_sample(&fid, "baseline")?);
        }
        if !members.is_empty() && !holds(p.current, &members) {
            return Err(no_sample(&fid, "current")?);
        }
        let source = match (&p.reference, twin, &frozen) {
            (Some(DriftReference::Equip { equip, .. }), Some(t), _) => {
                Source::Twin { equip: equip.as_str(), frame: &t.frame, window: p.baseline }
            }
            (None, _, Some(f)) if source == "frozen_baselines" => Source::Frozen(f),
            _ => Source::Period(p.baseline),
        };
        missing_detectors.extend(p.family.missing());
        let run = FamilyRun {
            family: p.family,
            class: &p.class,
            members: &members,
            source,
            current: p.current,
            params: &no_params,
            min_trust: rc["min_trust"].as_f64().unwrap_or(ctx.min_trust),
            step_ns,
        };
        let r = run_family_watched(&run, &iso, &mut |i, equip| {
            phase.report(before + i, total, &format!("{} on {equip}", p.family.name))
        });
        before += members.len();
        fams.push(json!({
            "equip_class": p.class, "family": p.family.name, "label": p.family.label,
            "baseline": [p.baseline.0.map(show), p.baseline.1.map(show)],
            "current": [p.current.0.map(show), p.current.1.map(show)],
            "reference": match &p.reference {
                Some(DriftReference::Equip { equip, .. }) => json!(format!("equipment {equip}")),
                Some(DriftReference::Period(_)) | None if matches!(run.source, Source::Period(_)) => json!(format!("period {} .. {}", iso(p.baseline.0), iso(p.baseline.1))),
                _ => json!("frozen baselines"),
            },
            "equipment": members.len(),
        }));
        findings.extend(r.findings);
        diagnoses.extend(r.diagnoses);
        unevaluated.extend(r.unevaluated);
    }
    phase.report(total, total, "done");
    findings.sort_by(|a, b| b.finding.severity.cmp(&a.finding.severity).then_with(|| a.id.cmp(&b.id)));
    diagnoses
        .sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| (&a.family, &a.equip).cmp(&(&b.family, &b.equip))));
    unevaluated.sort_by(|a, b| (&a.family, &a.equip).cmp(&(&b.family, &b.equip)));
    let banners: Vec<String> = rc["banners"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    Ok(DriftRun { source, families: fams, findings, diagnoses, unevaluated, missing_detectors, banners, step_ns })
}
