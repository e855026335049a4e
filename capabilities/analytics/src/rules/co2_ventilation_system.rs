//! `co2_ventilation_system` (a fleet rule): [`super::co2_ventilation`] for zones whose CO2 is
//! trended in the room while the economizer that explains low CO2 lives at the air handler. A
//! zone frame alone cannot tell free-cooling outdoor air from over-ventilation, so each CO2 zone
//! is judged with the economizer evidence of the unit serving it (its command, else outdoor air
//! with its damper or mixing box), per the run config's topology; with no topology and one
//! economizing unit, every zone is taken as served by it, with a caveat. A zone with economizer
//! evidence of its own uses that; a zone tied to no unit is judged without leaving economizer
//! hours out, with a caveat. One finding per air handler (or for the zones tied to none): the
//! worst zone's severity, every zone's shares in the metrics, the flagged zones in `equips`.

use std::collections::BTreeMap;

use crate::engine::{Finding, Frame, Outcome, Params, Rule, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::co2_ventilation::{self, economizer, Econ};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The economizer evidence a zone borrows from the unit serving it.
const ECON_ROLES: &[&str] = &["econ_cmd", "oat", "oa_damper", "mixed_air_temp", "return_air_temp", "supply_fan_status"];

/// The rule's declaration: `co2_ventilation`'s parameters, every input optional.
pub fn spec() -> RuleSpec {
    let zone = co2_ventilation::spec();
    let mut inputs = zone.inputs.clone();
    inputs.required = &[];
    inputs.optional = &[
        "co2",
        "outdoor_co2",
        "occupancy",
        "econ_cmd",
        "oat",
        "oa_damper",
        "mixed_air_temp",
        "return_air_temp",
        "supply_fan_status",
    ];
    RuleSpec {
        id: "co2_ventilation_system",
        families: &[],
        inputs,
        params: zone.params,
        judged_basis: zone.judged_basis,
    }
}

fn has_economizer(spec: &RuleSpec, frame: &Frame, params: &Params) -> bool {
    matches!(economizer(spec, frame, params, &frame.weights_hours()), Econ::From(..))
}

/// The zone's frame with the serving unit's economizer evidence it lacks, held on its timestamps.
fn with_source(zone: &Frame, source: &Frame) -> Frame {
    let mut f = zone.clone();
    for role in ECON_ROLES {
        if f.col(role).is_none() {
            if let Some(c) = source.col(role) {
                f.cols.insert(role.to_string(), crate::fleet::hold_on(source, c, &zone.ts));
            }
        }
    }
    f
}

/// Judge every CO2 zone with its serving unit's economizer evidence; one finding per unit.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let members = &fleet.members;
    let zones: Vec<usize> = (0..members.len()).filter(|&m| members[m].frame.col("co2").is_some()).collect();
    if zones.is_empty() {
        return Vec::new(); // no zone CO2: nothing for this rule to say
    }
    let sources: Vec<usize> = (0..members.len())
        .filter(|&m| members[m].frame.col("co2").is_none() && has_economizer(spec, members[m].frame, params))
        .collect();
    // each zone to the unit whose economizer it borrows (None: its own evidence, or none)
    let mut groups: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    let (mut assumed, mut unattributed) = (0, Vec::new());
    for &z in &zones {
        let m = members[z];
        let src = if has_economizer(spec, m.frame, params) {
            None
        } else if let Some(s) = m.parent.and_then(|p| sources.iter().copied().find(|&s| members[s].equip == p)) {
            Some(s)
        } else if sources.len() == 1 {
            assumed += 1;
            Some(sources[0])
        } else {
            if !sources.is_empty() {
                unattributed.push(m.equip);
            }
            None
        };
        groups.entry(src).or_default().push(z);
    }
    let mut caveats = Vec::new();
    if assumed > 0 {
        caveats.push(format!(
            "{assumed} CO2 zone(s) are not in the topology and were taken as served by the only economizing unit, {}",
            camber_common::text::name(members[sources[0]].equip)
        ));
    }
    if !unattributed.is_empty() {
        caveats.push(format!(
            "{} CO2 zone(s) could not be tied to an air handler, so their over-ventilation is judged without leaving economizer hours out: {}",
            unattributed.len(),
            unattributed.join(", ")
        ));
    }
    let mut out = Vec::new();
    for (src, zs) in groups {
        let mut judged: Vec<(usize, Finding)> = Vec::new();
        for z in zs {
            let frame = match src {
                Some(s) => with_source(members[z].frame, members[s].frame),
                None => members[z].frame.clone(),
            };
            let f = match co2_ventilation::RULE.evaluate(spec, &frame, params) {
                Outcome::Findings(mut v) => v.remove(0),
                Outcome::Skipped { missing } => Finding::not_judged(spec, &format!("lacks {}", missing.join(", "))),
            };
            judged.push((z, f));
        }
        judged.sort_by(|a, b| b.1.severity.cmp(&a.1.severity).then(a.0.cmp(&b.0)));
        let (worst_zone, worst) = (&judged[0].0, &judged[0].1);
        let flagged: Vec<&(usize, Finding)> = judged.iter().filter(|(_, f)| f.severity >= Severity::Warn).collect();
        let served = match src {
            Some(s) => format!("served by {}", camber_common::text::name(members[s].equip)),
            None => "with their own economizer evidence or none".to_string(),
        };
        let summary = if flagged.is_empty() {
            format!("CO2 ventilation: {} zone(s) {served} judged, none flagged", judged.len())
        } else {
            format!(
                "CO2 ventilation: {} of {} zone(s) {served} flagged; worst {}: {}",
                flagged.len(),
                judged.len(),
                camber_common::text::name(members[*worst_zone].equip),
                worst.summary
            )
        };
        let mut metrics = BTreeMap::new();
        for (z, f) in &judged {
            for k in ["under_vent_pct", "over_vent_pct"] {
                if let Some(v) = f.metrics.get(k) {
                    metrics.insert(format!("{k}.{}", members[*z].equip), *v);
                }
            }
        }
        metrics.insert("n_zones".into(), judged.len() as f64);
        metrics.insert("n_zones_flagged".into(), flagged.len() as f64);
        let mut cav = caveats.clone();
        cav.extend(worst.caveats.iter().cloned());
        let finding = Finding::new(spec, worst.severity, summary)
            .with_metrics(metrics)
            .with_caveats(cav)
            .with_judged(judged.iter().map(|(_, f)| f.judged).sum());
        let equips = flagged.iter().map(|(z, _)| members[*z].equip.to_string()).collect();
        out.push(FleetFinding { group: src.map(|s| members[s].equip.to_string()), finding, equips });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, shuffled_with_duplicates, MONDAY};
    use crate::engine::NS_PER_HOUR;
    use crate::run::{run, EquipFrame, RunFinding, RunRequest};

    const N: usize = 14 * 24;

    fn occupied(i: usize) -> bool {
        (7..18).contains(&(i % 24)) && (i / 24) % 7 < 5
    }

    /// A zone whose occupied CO2 sits `rise(i)` above a 420 ppm outdoor.
    fn zone(rise: impl Fn(usize) -> f64) -> Frame {
        let ts = every(MONDAY, NS_PER_HOUR, N);
        let co2 = (0..N).map(|i| 420.0 + if occupied(i) { rise(i) } else { 30.0 }).collect();
        Frame::from_rows(&ts, &[("co2", co2)])
    }

    /// An air handler economizing (command on) in the hours `econ` says.
    fn ahu(econ: impl Fn(usize) -> bool) -> Frame {
        let ts = every(MONDAY, NS_PER_HOUR, N);
        Frame::from_rows(&ts, &[("econ_cmd", (0..N).map(|i| if econ(i) { 1.0 } else { 0.0 }).collect())])
    }

    fn judge(frames: Vec<(&str, &str, Frame)>, topology: bool) -> Vec<RunFinding> {
        let mut c =
            serde_json::json!({"equipment": [{"class": "AHU"}, {"class": "VAV"}], "rules": ["co2_ventilation_system"]});
        if topology {
            c["topology"] = serde_json::json!({"parents": {"V1": "AHU-1", "V2": "AHU-1", "W1": "AHU-2"}});
        }
        let c = RunConfig::from_value(&c).unwrap();
        let frames: Vec<EquipFrame> =
            frames.into_iter().map(|(e, cl, f)| EquipFrame { equip: e.into(), class: cl.into(), frame: f }).collect();
        run(&c, &RunRequest { min_trust: 0.0, ..Default::default() }, &frames, &[]).unwrap().findings
    }

    #[test]
    fn low_co2_while_the_air_handler_economizes_is_not_over_ventilation() {
        // CO2 near outdoor all day; the air handler economizes every occupied hour
        let econ = judge(vec![("AHU-1", "AHU", ahu(occupied)), ("V1", "VAV", zone(|_| 60.0))], true);
        assert_eq!(econ[0].id, "co2_ventilation_system@<fleet:AHU-1>");
        assert!(econ[0].finding.severity <= Severity::Info, "{}", econ[0].finding.summary);
        // the same zone under an air handler that never economizes is over-ventilated
        let none = judge(vec![("AHU-1", "AHU", ahu(|_| false)), ("V1", "VAV", zone(|_| 60.0))], true);
        assert_eq!(none[0].finding.severity, Severity::Warn, "{}", none[0].finding.summary);
        assert_eq!(none[0].equips, ["V1"]);
        assert_eq!(none[0].members, ["AHU-1", "V1"]);
    }

    #[test]
    fn under_ventilation_is_found_at_its_levels() {
        // 800 ppm above outdoor for 3 of 11 occupied hours a day (27 %): a fault; for 1 of 11
        // (9 %): a warning; a healthy zone beside it is ok
        let bad = |h: usize| move |i: usize| if (8..8 + h).contains(&(i % 24)) { 800.0 } else { 400.0 };
        let f = judge(
            vec![("AHU-1", "AHU", ahu(|_| false)), ("V1", "VAV", zone(bad(3))), ("V2", "VAV", zone(|_| 400.0))],
            true,
        );
        assert_eq!(f[0].finding.severity, Severity::Fault, "{}", f[0].finding.summary);
        assert_eq!(f[0].equips, ["V1"]);
        assert!(f[0]
            .finding
            .summary
            .starts_with("CO2 ventilation: 1 of 2 zone(s) served by \"AHU-1\" flagged; worst \"V1\""));
        let f = judge(vec![("AHU-1", "AHU", ahu(|_| false)), ("V1", "VAV", zone(bad(1)))], true);
        assert_eq!(f[0].finding.severity, Severity::Warn, "{}", f[0].finding.summary);
    }

    #[test]
    fn without_a_topology_the_only_economizing_unit_serves_every_zone() {
        let f = judge(vec![("AHU-1", "AHU", ahu(occupied)), ("V1", "VAV", zone(|_| 60.0))], false);
        assert!(f[0]
            .finding
            .caveats
            .iter()
            .any(|c| c.contains("taken as served by the only economizing unit, \"AHU-1\"")));
        assert!(f[0].finding.severity <= Severity::Info);
        // two units and no topology: judged without leaving economizer hours out, and said
        let f = judge(
            vec![("AHU-1", "AHU", ahu(occupied)), ("AHU-2", "AHU", ahu(occupied)), ("V1", "VAV", zone(|_| 60.0))],
            false,
        );
        assert_eq!((f[0].id.as_str(), f[0].finding.severity), ("co2_ventilation_system@<fleet>", Severity::Warn));
        assert!(f[0].finding.caveats.iter().any(|c| c.contains("could not be tied to an air handler")));
    }

    #[test]
    fn a_zone_trended_more_often_than_its_air_handler_borrows_each_reading_for_its_hour() {
        // the zone every 15 minutes, the air handler's economizer command hourly
        let ts = every(MONDAY, NS_PER_HOUR / 4, 4 * N);
        let co2 = (0..4 * N).map(|i| 420.0 + if occupied(i / 4) { 60.0 } else { 30.0 }).collect();
        let fine = Frame::from_rows(&ts, &[("co2", co2)]);
        let f = judge(vec![("AHU-1", "AHU", ahu(occupied)), ("V1", "VAV", fine)], true);
        assert!(f[0].finding.severity <= Severity::Info, "{}", f[0].finding.summary);
        assert!(f[0].finding.metrics.get("over_vent_pct.V1").is_none_or(|v| *v < 1.0), "{:?}", f[0].finding.metrics);
    }

    #[test]
    fn disorder_duplicates_and_off_hours() {
        let base = judge(vec![("AHU-1", "AHU", ahu(|_| false)), ("V1", "VAV", zone(|_| 800.0))], true);
        let shuffled = judge(
            vec![
                ("AHU-1", "AHU", shuffled_with_duplicates(&ahu(|_| false))),
                ("V1", "VAV", shuffled_with_duplicates(&zone(|_| 800.0))),
            ],
            true,
        );
        assert_eq!(base[0].finding.summary, shuffled[0].finding.summary);
        // high CO2 only when unoccupied is not judged
        let ts = every(MONDAY, NS_PER_HOUR, N);
        let night =
            Frame::from_rows(&ts, &[("co2", (0..N).map(|i| if occupied(i) { 800.0 } else { 2000.0 }).collect())]);
        let f = judge(vec![("AHU-1", "AHU", ahu(|_| false)), ("V1", "VAV", night)], true);
        assert!(f[0].finding.metrics["under_vent_pct.V1"] < 1.0, "{:?}", f[0].finding.metrics);
    }

    #[test]
    fn no_zone_co2_says_nothing_and_degenerate_frames_do_not_panic() {
        assert!(judge(vec![("AHU-1", "AHU", ahu(occupied))], true).is_empty());
        assert!(judge(vec![("V1", "VAV", Frame::default())], true).is_empty());
        let short = Frame::from_rows(&[MONDAY], &[("co2", vec![900.0])]);
        let f = judge(vec![("V1", "VAV", short)], true);
        assert_eq!(f[0].finding.severity, Severity::Info, "{}", f[0].finding.summary);
    }
}
