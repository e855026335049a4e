//! `chiller_efficiency_peers` (a fleet rule): a chiller drawing markedly more power per ton than
//! the other chillers of its plant. `chiller_efficiency` judges each machine against a design
//! figure, which is often unknown or generous: a fouled chiller at 0.76 kW/ton passes a 0.85
//! ceiling while its twin beside it makes the same cooling at 0.50. Here each chiller's median
//! kW/ton over its loaded running samples (the same samples [`super::chiller_efficiency`] judges)
//! is set against the plant's most efficient chiller: 1.3 times the best or more warns, and the
//! finding names the chillers, the least efficient first. Peers are not a design: the rule never
//! faults, and a plant of unlike machines (an air-cooled beside a centrifugal, a small swing
//! chiller) is a caveat the reader weighs. The chillers of each plant come from the run config's
//! topology (each chiller's plant), else every chiller pooled by class; chilled-water loops are
//! left out.

use std::collections::BTreeMap;

use super::chiller_efficiency::loaded_kw_per_ton;
use crate::chiller::is_chw_loop;
use crate::engine::{round2, weighted_quantile, Finding, Params, Rule, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// A chiller's median kW/ton over the plant's best that warns.
pub const WARN_RATIO: f64 = 1.3;
/// Fewest loaded samples a chiller needs to be compared.
const MIN_SAMPLES: usize = 10;
/// Median load factors (points) further apart than this are not like for like.
const LOAD_GAP_PCT: f64 = 25.0;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chiller_efficiency_peers",
        families: &["chw_plant"],
        inputs: super::chiller_efficiency::INPUTS,
        params: Vec::new(),
        judged_basis: "samples with a chiller running loaded (2 kW, 0.5 °F delta-T and 5 tons or more)",
    }
}

/// One chiller's loaded running: its median kW/ton and load factor, and its samples on the
/// fleet's axis with their kW/ton.
struct Read {
    member: usize,
    median: f64,
    load_factor_pct: f64,
    samples: Vec<(usize, f64)>,
}

fn read(fleet: &Fleet, member: usize, w: &[f64]) -> Option<Read> {
    let col = |role: &str| fleet.column(member, role);
    let (kw, chws, chwr, flow) = (col("power")?, col("chw_supply_temp")?, col("chw_return_temp")?, col("chw_flow")?);
    let loaded = loaded_kw_per_ton(&kw, &chws, &chwr, &flow);
    if loaded.len() < MIN_SAMPLES {
        return None;
    }
    let median = weighted_quantile(&mut loaded.iter().map(|p| (p.1, w[p.0])).collect(), 0.5);
    let tons = weighted_quantile(&mut loaded.iter().map(|p| (p.2, w[p.0])).collect(), 0.5);
    let peak = loaded.iter().map(|p| p.2).fold(f64::NEG_INFINITY, crate::engine::max_of);
    Some(Read {
        member,
        median,
        load_factor_pct: 100.0 * tons / peak,
        samples: loaded.iter().map(|p| (p.0, p.1)).collect(),
    })
}

/// Judge the fleet: one finding per plant of two or more chillers.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, _params: &Params) -> Vec<FleetFinding> {
    let w = fleet.weights_hours();
    let mut out = Vec::new();
    for g in fleet.groups() {
        let chillers: Vec<usize> =
            g.members.iter().copied().filter(|&k| !is_chw_loop(fleet.members[k].class)).collect();
        if chillers.len() < 2 {
            continue;
        }
        let plant = match &g.label {
            Some(l) if g.served => format!("the chillers of {}", camber_common::text::name(l)),
            _ => "the chillers of the fleet".to_string(),
        };
        let reads: Vec<Read> = chillers.iter().filter_map(|&k| read(fleet, k, &w)).collect();
        let mut metrics = BTreeMap::new();
        metrics.insert("n_chillers".into(), chillers.len() as f64);
        metrics.insert("n_compared".into(), reads.len() as f64);
        if reads.len() < 2 {
            let f = Finding::not_judged(
                spec,
                &format!("fewer than two of {plant} ran loaded for ten samples or more: no peer to compare with"),
            );
            out.push(FleetFinding { group: g.label.clone(), finding: f.with_metrics(metrics), equips: Vec::new() });
            continue;
        }
        let best = reads.iter().min_by(|a, b| a.median.total_cmp(&b.median)).expect("two or more");
        let (best_median, best_member) = (best.median, best.member);
        let mut worse: Vec<&Read> = reads.iter().filter(|r| r.median >= WARN_RATIO * best_median).collect();
        worse.sort_by(|a, b| b.median.total_cmp(&a.median));
        for r in &reads {
            let e = fleet.members[r.member].equip;
            metrics.insert(format!("kw_per_ton_median.{e}"), (r.median * 1000.0).round() / 1000.0);
            metrics.insert(format!("ratio_to_best.{e}"), round2(r.median / best_median));
            metrics.insert(format!("load_factor_median_pct.{e}"), round2(r.load_factor_pct));
        }
        let mut caveats = vec![
            "compared with the plant's most efficient chiller, not a design: machines of another type or size are not peers (check their nameplates)".to_string(),
        ];
        let (lo, hi) = reads.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
            (lo.min(r.load_factor_pct), hi.max(r.load_factor_pct))
        });
        if hi - lo > LOAD_GAP_PCT {
            caveats.push(format!(
                "their median load factors differ by {:.0} points: kW/ton changes with part load, so the comparison is not like for like",
                hi - lo
            ));
        }
        let best_name = camber_common::text::name(fleet.members[best_member].equip);
        let judged: usize = reads.iter().map(|r| r.samples.len()).sum();
        let (severity, summary, flagged) = if worse.is_empty() {
            let spread = reads.iter().map(|r| r.median / best_median).fold(1.0, crate::engine::max_of);
            (
                Severity::Ok,
                format!("{plant} run within {:.2} times the best ({best_name}, {best_median:.2} kW/ton)", spread),
                Vec::new(),
            )
        } else {
            let named: Vec<String> = worse
                .iter()
                .map(|r| {
                    format!(
                        "{} at {:.2} kW/ton ({:.2} times)",
                        camber_common::text::name(fleet.members[r.member].equip),
                        r.median,
                        r.median / best_median
                    )
                })
                .collect();
            let mut flagged: Vec<u32> = worse
                .iter()
                .flat_map(|r| r.samples.iter().filter(|(_, k)| *k >= WARN_RATIO * best_median).map(|(i, _)| *i as u32))
                .collect();
            flagged.sort_unstable();
            flagged.dedup();
            (
                Severity::Warn,
                format!(
                    "{} of {plant} draw(s) {WARN_RATIO} times or more the power per ton of the best ({best_name}, {best_median:.2} kW/ton): {}",
                    worse.len(),
                    named.join(", ")
                ),
                flagged,
            )
        };
        let equips = worse.iter().map(|r| fleet.members[r.member].equip.to_string()).collect();
        let f = Finding::new(spec, severity, summary)
            .with_metrics(metrics)
            .with_caveats(caveats)
            .with_flagged(flagged)
            .with_judged(judged);
        out.push(FleetFinding { group: g.label.clone(), finding: f, equips });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, fleet, MINUTE, MONDAY};
    use crate::engine::Frame;

    /// A week at 15 minutes of a chiller making 200-300 tons by day at `kwpt` kW/ton (with a
    /// little variation), off at night.
    fn chiller(kwpt: f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let on: Vec<bool> = hour.iter().map(|h| (6.0..18.0).contains(h)).collect();
        let tons: Vec<f64> = hour.iter().map(|h| 200.0 + 100.0 * ((h - 6.0) / 12.0).clamp(0.0, 1.0)).collect();
        let wobble = |i: usize| 1.0 + 0.03 * ((i as f64) * 0.37).sin();
        Frame::from_rows(
            &ts,
            &[
                ("power", (0..n).map(|i| if on[i] { kwpt * wobble(i) * tons[i] } else { 3.0 }).collect()),
                ("chw_flow", (0..n).map(|i| if on[i] { 600.0 } else { 0.0 }).collect()),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", (0..n).map(|i| 44.0 + if on[i] { tons[i] * 24.0 / 600.0 } else { 0.0 }).collect()),
            ],
        )
    }

    fn judge(frames: &[(&str, Frame)]) -> Vec<FleetFinding> {
        let m: Vec<(&str, Option<&str>, &Frame)> = frames.iter().map(|(e, f)| (*e, None, f)).collect();
        fleet(&RULE, &m, &Params::default())
    }

    #[test]
    fn a_chiller_far_less_efficient_than_its_twin_warns() {
        // EnergyPlus's fouled chiller: 0.76 kW/ton beside its twin at 0.50
        let got = judge(&[("CH-1", chiller(0.76)), ("CH-2", chiller(0.50))]);
        let f = &got[0].finding;
        assert_eq!((f.severity, got[0].equips.clone()), (Severity::Warn, vec!["CH-1".to_string()]), "{}", f.summary);
        assert!((f.metrics["ratio_to_best.CH-1"] - 1.52).abs() < 0.02, "{:?}", f.metrics);
        assert!(f.summary.contains("\"CH-2\", 0.50 kW/ton"), "{}", f.summary);
        assert!(!f.flagged.is_empty());
    }

    #[test]
    fn chillers_alike_pass_and_a_lone_chiller_is_not_judged() {
        let got = judge(&[("CH-1", chiller(0.55)), ("CH-2", chiller(0.50)), ("CH-3", chiller(0.62))]);
        assert_eq!(got[0].finding.severity, Severity::Ok, "{}", got[0].finding.summary);
        assert!(got[0].equips.is_empty());
        // just under and at the ratio
        assert_eq!(judge(&[("A", chiller(0.64)), ("B", chiller(0.50))])[0].finding.severity, Severity::Ok);
        assert_eq!(judge(&[("A", chiller(0.70)), ("B", chiller(0.50))])[0].finding.severity, Severity::Warn);
        assert!(judge(&[("CH-1", chiller(0.9))]).is_empty(), "one chiller has no peer");
    }
}
