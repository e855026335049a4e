//! How far an issue can be believed: a grade H, M or L that is the weakest of five components,
//! each with the reason it has that level (the reference toolkit's grade):
//!
//! - **input trust**: the trust verdicts of the root rule's inputs on its equipment (trusted H,
//!   suspect M, untrusted L); L whenever the issue is conditional on a sensor issue;
//! - **mapping**: H when the roles were recorded at ingest (a store source), else M;
//! - **assumptions**: H when the site configured the root rule's parameters, M on defaults, L
//!   when the figure rests on a reference target the site never declared;
//! - **sample**: samples judged (168 or more H, 48 or more M, else L), lowered by the inputs'
//!   coverage (under 80 % at most M, under 50 % L);
//! - **corroboration**: a benchmark's true- and false-positive rates for the rule (TPR at least
//!   0.9 and FPR at most 0.05 H, else M), when the caller has scores for it.
//!
//! A component that cannot be assessed neither raises nor lowers the grade, and its line says so;
//! with none assessed the grade is M.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::trust::Trust;

/// A confidence level, worst first (so the minimum is the weakest).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    L,
    M,
    H,
}

impl Level {
    /// "H", "M" or "L".
    pub fn as_str(self) -> &'static str {
        match self {
            Level::L => "L",
            Level::M => "M",
            Level::H => "H",
        }
    }
}

/// A benchmark's scores for one rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Corroboration {
    pub tpr: f64,
    pub fpr: f64,
    /// What was scored ("the synthetic injected-fault benchmark").
    pub track: String,
}

/// An issue's grade: the level, each assessed component's level, and one reason per component.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Confidence {
    pub level: Level,
    pub components: BTreeMap<String, Level>,
    pub why: Vec<String>,
}

/// What the grade is taken from.
pub struct Evidence<'a> {
    pub rule: &'a str,
    /// The conditions it rests on (sensor issues' labels); any makes input trust L.
    pub conditional_on: &'a [String],
    /// role -> trust of the root rule's inputs on its equipment.
    pub trust: BTreeMap<&'a str, &'a Trust>,
    /// (level, reason) of the mapping.
    pub mapping: (Level, String),
    /// (level, reason) of the assumptions.
    pub assumptions: (Level, String),
    /// Samples judged (`None`: not reported).
    pub samples: Option<usize>,
    pub corroboration: Option<&'a Corroboration>,
}

fn verdict_level(v: &str) -> Level {
    match v {
        "trusted" => Level::H,
        "untrusted" => Level::L,
        _ => Level::M,
    }
}

/// The grade of an issue from its evidence.
pub fn grade(e: &Evidence) -> Confidence {
    let mut comps: BTreeMap<String, Level> = BTreeMap::new();
    let mut why = Vec::new();
    if !e.conditional_on.is_empty() {
        comps.insert("input_trust".into(), Level::L);
        why.push(format!("Input trust L: conditional on {}", e.conditional_on.join("; ")));
    } else if !e.trust.is_empty() {
        let worst = e.trust.values().map(|t| verdict_level(t.verdict)).min().unwrap_or(Level::M);
        comps.insert("input_trust".into(), worst);
        let detail: Vec<String> = e.trust.iter().map(|(r, t)| format!("{r} {} ({:.2})", t.verdict, t.score)).collect();
        why.push(format!("Input trust {}: {}", worst.as_str(), detail.join(", ")));
    } else {
        why.push("Input trust not assessed: no trust scores for this finding's inputs".into());
    }
    let (ml, mt) = &e.mapping;
    comps.insert("mapping".into(), *ml);
    why.push(format!("Mapping {}: {mt}", ml.as_str()));
    let (al, at) = &e.assumptions;
    comps.insert("assumptions".into(), *al);
    why.push(format!("Assumptions {}: {at}", al.as_str()));
    match e.samples {
        Some(n) => {
            let mut lvl = if n >= 168 {
                Level::H
            } else if n >= 48 {
                Level::M
            } else {
                Level::L
            };
            let mut text = format!("{n} samples judged");
            let cov = e
                .trust
                .values()
                .map(|t| t.coverage)
                .filter(|c| c.is_finite())
                .fold(f64::INFINITY, crate::engine::min_of);
            if cov.is_finite() {
                text.push_str(&format!(", {:.0}% input coverage", 100.0 * cov));
                if cov < 0.5 {
                    lvl = Level::L;
                } else if cov < 0.8 {
                    lvl = lvl.min(Level::M);
                }
            }
            comps.insert("sample".into(), lvl);
            why.push(format!("Sample {}: {text}", lvl.as_str()));
        }
        None => why.push("Sample size not reported by the rule".into()),
    }
    match e.corroboration {
        Some(c) if c.tpr.is_finite() && c.fpr.is_finite() => {
            let lvl = if c.tpr >= 0.9 && c.fpr <= 0.05 { Level::H } else { Level::M };
            comps.insert("corroboration".into(), lvl);
            why.push(format!(
                "Corroboration {}: {} scores TPR {:.0}% / FPR {:.0}% on {}",
                lvl.as_str(),
                e.rule,
                100.0 * c.tpr,
                100.0 * c.fpr,
                c.track
            ));
        }
        _ => why.push(format!("Corroboration not assessed: no benchmark scores '{}'", e.rule)),
    }
    let level = comps.values().copied().min().unwrap_or(Level::M);
    Confidence { level, components: comps, why }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust(verdict: &'static str, score: f64, coverage: f64) -> Trust {
        Trust {
            score,
            verdict,
            flags: Vec::new(),
            coverage,
            coverage_of: "span",
            samples: 100,
            out_of_range_share: 0.0,
            spike_share: 0.0,
            stuck_share: 0.0,
            gated: false,
        }
    }

    fn evidence<'a>(t: BTreeMap<&'a str, &'a Trust>, samples: Option<usize>) -> Evidence<'a> {
        Evidence {
            rule: "leaking_valve",
            conditional_on: &[],
            trust: t,
            mapping: (Level::H, "roles recorded at ingest".into()),
            assumptions: (Level::M, "rule defaults".into()),
            samples,
            corroboration: None,
        }
    }

    #[test]
    fn the_grade_is_the_weakest_component_with_its_reasons() {
        let good = trust("trusted", 0.95, 1.0);
        let e = evidence(BTreeMap::from([("supply_air_temp", &good)]), Some(500));
        let c = grade(&e);
        assert_eq!(c.level, Level::M, "the defaults' M is the weakest: {:?}", c.why);
        assert_eq!(c.components["input_trust"], Level::H);
        assert!(c.why.iter().any(|w| w == "Input trust H: supply_air_temp trusted (0.95)"), "{:?}", c.why);
        assert!(c.why.iter().any(|w| w.starts_with("Sample H: 500 samples judged, 100% input coverage")));
        // few samples make it L, and say why
        let c = grade(&evidence(BTreeMap::from([("supply_air_temp", &good)]), Some(20)));
        assert_eq!((c.level, c.components["sample"]), (Level::L, Level::L));
        // poor coverage lowers the sample grade
        let thin = trust("suspect", 0.6, 0.6);
        let c = grade(&evidence(BTreeMap::from([("mixed_air_temp", &thin)]), Some(500)));
        assert_eq!((c.components["sample"], c.components["input_trust"]), (Level::M, Level::M));
        // a condition forces input trust to L
        let cond = vec!["sensor_drift:supply_air_temp warn on AHU-1".to_string()];
        let mut e = evidence(BTreeMap::from([("supply_air_temp", &good)]), Some(500));
        e.conditional_on = &cond;
        let c = grade(&e);
        assert_eq!(c.level, Level::L);
        assert!(c.why[0].contains("conditional on sensor_drift:supply_air_temp"), "{:?}", c.why);
        // corroboration is graded when scores are given, and said to be unassessed when not
        let score = Corroboration { tpr: 1.0, fpr: 0.0, track: "bench".into() };
        let mut e = evidence(BTreeMap::new(), None);
        e.assumptions = (Level::H, "site parameters".into());
        e.corroboration = Some(&score);
        let c = grade(&e);
        assert_eq!(c.level, Level::H);
        assert!(c.why.iter().any(|w| w == "Corroboration H: leaking_valve scores TPR 100% / FPR 0% on bench"));
        assert!(c.why.iter().any(|w| w.starts_with("Input trust not assessed")));
        assert!(c.why.iter().any(|w| w == "Sample size not reported by the rule"));
    }
}
