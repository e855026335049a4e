//! The re-baselining triggers of a `rebaseline` block (the reference's T1-T5; its T6, a new ECM
//! with a year of post-ECM data, needs the ECM schedule, which this engine does not read). They
//! only propose: nothing here moves a baseline.
//!
//! - T1: a material step in the deviation of the days since the baseline ended from the
//!   baseline's projection. Unlike the reference's PELT search, one split is sought, at the
//!   largest standardised shift with at least `min_segment_days` each side, and it counts when
//!   `|z| >= 4` (a guard for having looked at every split) and the step is at least `materiality`
//!   per day; a declared event within 14 days of it already carries it.
//! - T2: a declared change (the event log) after the baseline.
//! - T3: a tracked static factor moved beyond its tolerance.
//! - T4: the baseline fails acceptance, or the reporting days are a severe extrapolation.
//! - T5: the achievement period exceeds `max_achievement_months` (SEP: 36).

use serde_json::{json, Map, Value};

use crate::engine::{Finding, Frame, Severity};

use super::coverage::{assess as cover, Tier};
use super::daily::{daily, Daily, NS_PER_DAY};
use super::run::{day_text, last_day, MvResult};
use super::savings::Fitted;
use super::section::{MvEntry, Rebaseline, Window};

const SETTLE_DAYS: i64 = 14;
const STEP_Z: f64 = 4.0;

struct Trigger {
    id: &'static str,
    day: i64,
    title: String,
    outcome: &'static str,
    basis: &'static str,
    evidence: Map<String, Value>,
}

/// The largest standardised single shift of `dev`: `(split index, delta, se, z)`.
fn best_step(dev: &[f64], min_seg: usize) -> Option<(usize, f64, f64, f64)> {
    let n = dev.len();
    if n < 2 * min_seg.max(2) {
        return None;
    }
    let mut p = vec![0.0; n + 1];
    let mut q = vec![0.0; n + 1];
    for i in 0..n {
        p[i + 1] = p[i] + dev[i];
        q[i + 1] = q[i] + dev[i] * dev[i];
    }
    let mut best: Option<(usize, f64, f64, f64)> = None;
    for k in min_seg.max(2)..=n - min_seg.max(2) {
        let (n1, n2) = (k as f64, (n - k) as f64);
        let (m1, m2) = (p[k] / n1, (p[n] - p[k]) / n2);
        let ss = (q[k] - n1 * m1 * m1) + (q[n] - q[k] - n2 * m2 * m2);
        let s2 = ss.max(0.0) / (n as f64 - 2.0);
        let se = (s2 * (1.0 / n1 + 1.0 / n2)).sqrt();
        let z = if se > 0.0 { (m2 - m1) / se } else { 0.0 };
        if best.is_none_or(|b| z.abs() > b.3.abs()) {
            best = Some((k, m2 - m1, se, z));
        }
    }
    best
}

/// The triggers of one meter, as `mv_trigger` results.
pub fn assess(
    entry: &MvEntry,
    rb: &Rebaseline,
    index: usize,
    meter: &str,
    frame: &Frame,
    base: &Fitted,
    rep: &Daily,
) -> Vec<MvResult> {
    let b1 = entry.period.as_ref().and_then(last_day).or_else(|| base.days.day.last().copied()).unwrap_or(0);
    let data_last = frame.ts.last().map_or(b1, |t| t.div_euclid(NS_PER_DAY));
    let last = entry.reporting_period.as_ref().and_then(last_day).map_or(data_last, |r| r.min(data_last));
    let r0 = entry.reporting_period.as_ref().and_then(|w| w.start).map_or(b1 + 1, |s| s.div_euclid(NS_PER_DAY));
    let mut out: Vec<Trigger> = Vec::new();
    for ev in rb.events.iter().filter(|e| e.day > b1 && e.day <= last) {
        let outcome = match ev.magnitude.as_str() {
            "static" => "nra_engineering",
            "minor" => "nra_indicator",
            _ => "rebaseline",
        };
        out.push(Trigger {
            id: "T2",
            day: ev.day,
            title: format!("{} ({})", ev.description, ev.magnitude),
            outcome,
            basis: "event log",
            evidence: [("magnitude".to_string(), json!(ev.magnitude))].into_iter().collect(),
        });
    }
    if rb.detect {
        let since =
            Window { written: (None, None), start: Some((b1 + 1) * NS_PER_DAY), end: Some((last + 1) * NS_PER_DAY) };
        let days = daily(frame, entry, Some(&since));
        let m = &base.model;
        let proj: Vec<f64> = (0..days.len()).map(|i| m.predict(days.oat[i], &days.drivers_at(i))).collect();
        let dev: Vec<f64> = (0..days.len()).map(|i| days.energy[i] - proj[i]).collect();
        let mean_proj = proj.iter().sum::<f64>() / proj.len().max(1) as f64;
        if let Some((k, delta, se, z)) = best_step(&dev, rb.min_segment_days) {
            let day = days.day[k];
            let declared = rb.events.iter().any(|e| (e.day - day).abs() <= SETTLE_DAYS);
            if z.abs() >= STEP_Z && delta.abs() >= rb.materiality && !declared {
                let rel = delta / mean_proj;
                out.push(Trigger {
                    id: "T1",
                    day,
                    title: format!(
                        "step of {delta:+.4} per day ({:+.0}% of the baseline projection), z {z:.1}",
                        rel * 100.0
                    ),
                    outcome: if rel.abs() >= rb.major_step_frac { "rebaseline" } else { "nra_indicator" },
                    basis: "the largest standardised shift of the days' deviation from the baseline projection",
                    evidence: [("delta", delta), ("se", se), ("z", z), ("delta_rel", rel)]
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), json!(v)))
                        .collect(),
                });
            }
        }
    }
    for sf in rb.static_factors.iter().filter(|s| s.day > b1 && s.day <= last) {
        let change = sf.value / sf.baseline_value - 1.0;
        if change.abs() > sf.tolerance {
            out.push(Trigger {
                id: "T3",
                day: sf.day,
                title: format!(
                    "{} changed {:+.1}% (tolerance {:.0}%)",
                    sf.factor,
                    change * 100.0,
                    sf.tolerance * 100.0
                ),
                outcome: "nra_static",
                basis: "tracked static factor",
                evidence: [("factor".to_string(), json!(sf.factor)), ("change".to_string(), json!(change))]
                    .into_iter()
                    .collect(),
            });
        }
    }
    if !base.stats.accept {
        out.push(Trigger {
            id: "T4",
            day: r0,
            title: format!("the baseline model fails G14 acceptance ({})", base.stats.failures.join("; ")),
            outcome: "rebaseline",
            basis: "require_validity=g14",
            evidence: Map::new(),
        });
    }
    if !rep.is_empty() {
        let proj: Vec<f64> = (0..rep.len()).map(|i| base.model.predict(rep.oat[i], &rep.drivers_at(i))).collect();
        let c =
            cover(&base.model, &base.days.oat, &base.days.drivers, &rep.oat, &rep.drivers, &proj, &entry.extrapolation);
        if c.tier == Tier::Severe {
            out.push(Trigger {
                id: "T4",
                day: r0,
                title: format!("the reporting period is a severe extrapolation ({})", c.reason),
                outcome: "rebaseline",
                basis: "per-day coverage",
                evidence: [("share_points_outside".to_string(), json!(c.share_points_outside))].into_iter().collect(),
            });
        }
    }
    let months = (last - b1) as f64 / 30.436_875;
    if months > rb.max_achievement_months {
        out.push(Trigger {
            id: "T5",
            day: b1 + (rb.max_achievement_months * 30.436_875).round() as i64,
            title: format!("{months:.0} months since the baseline ended (max {:.0})", rb.max_achievement_months),
            outcome: "rebaseline",
            basis: "SEP 2019 Ed. 2 4.2",
            evidence: Map::new(),
        });
    }
    out.sort_by_key(|t| (t.day, t.id));
    out.into_iter()
        .map(|t| {
            let key = format!("{}:{}", t.id, day_text(t.day));
            let mut j = Map::new();
            j.insert("id".into(), json!(t.id));
            j.insert("key".into(), json!(key));
            j.insert("date".into(), json!(day_text(t.day)));
            j.insert("title".into(), json!(t.title));
            j.insert("outcome".into(), json!(t.outcome));
            j.insert("basis".into(), json!(t.basis));
            j.insert("blocks".into(), json!(true));
            j.insert("resolved".into(), json!(false));
            j.insert("evidence".into(), Value::Object(t.evidence));
            let summary = format!(
                "{meter}: M&V trigger {key} -- {} (unresolved; calls for {})",
                t.title,
                t.outcome.replace('_', " ")
            );
            let finding = Finding::of("mv_trigger", "days", Severity::Warn, summary).with_caveats(vec![
                "never applied automatically: moving a baseline or recording an adjustment is the operator's decision"
                    .into(),
            ]);
            MvResult { kind: "mv_trigger", meter: meter.into(), entry: index, finding, metrics: j, declined: None }
        })
        .collect()
}
