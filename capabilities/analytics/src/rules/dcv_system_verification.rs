//! `dcv_system_verification` (a fleet rule): demand-controlled ventilation judged where its two
//! halves live apart. The CO2 is trended in the zones and the outdoor air at the air handler, so
//! no one equipment carries both: each air handler's outdoor-air signal is judged, with
//! [`super::dcv_verification`]'s judgement, against the CO2 of the zones it serves (per the run
//! config's topology; with no topology and one outdoor-air source, every zone is taken as served
//! by it, with a caveat), combined per timestamp by `agg` (the highest zone, as a critical-zone
//! reset reads it, or their mean).
//!
//! A zone's CO2 joins only when it can be trusted: at least 24 samples between 250 and 5000 ppm,
//! not flat (standard deviation at least `stuck_std_ppm`), and not left high when unoccupied (its
//! unoccupied median at most `unoccupied_excess_ppm` above outdoor, from the zone's
//! `outdoor_co2` or `assumed_outdoor_ppm`). The findings are the air handler's, one per group,
//! with the levels of `dcv_verification`; an air handler that trends its own CO2 is left to that
//! rule.

use std::collections::BTreeMap;

use crate::engine::{median, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::dcv_verification;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// Plausible CO2 (ppm), and the fewest plausible (and unoccupied) samples a zone needs.
const PLAUSIBLE: (f64, f64) = (250.0, 5000.0);
const MIN_ZONE_SAMPLES: usize = 24;

/// The rule's declaration: the zone-CO2 guard's parameters, then `dcv_verification`'s.
pub fn spec() -> RuleSpec {
    let dcv = dcv_verification::spec();
    let mut params = vec![
        ParamSpec {
            name: "agg",
            default: ParamValue::Choice("max".into()),
            unit: "choice",
            range: None,
            choices: &["max", "mean"],
            basis: "A critical-zone reset follows the highest zone CO2, so the highest trusted zone is what the air handler should answer.",
            calibrate: "Keep max for a critical-zone reset; use mean when the sequence resets on an average or on return-air CO2.",
        },
        ParamSpec::number(
            "stuck_std_ppm",
            5.0,
            "ppm (standard deviation of a zone's plausible CO2)",
            (1.0, 30.0),
            "An occupied room's CO2 moves by tens of ppm over a day; a reading that varies by less than this is a stuck sensor.",
            "Read the standard deviation of zone sensors known to work and set this well below the smallest; a sensor under it is left out as flat.",
        ),
        ParamSpec::number(
            "unoccupied_excess_ppm",
            300.0,
            "ppm (unoccupied zone CO2 median above outdoor)",
            (100.0, 600.0),
            "An empty room decays toward outdoor CO2 overnight; a median this far above outdoor while unoccupied is an offset sensor, not demand.",
            "Take the unoccupied median minus outdoor on trusted sensors and set this well above it (a zone needs 24 unoccupied samples for the check).",
        ),
        ParamSpec::number(
            "assumed_outdoor_ppm",
            420.0,
            "ppm (CO2)",
            (380.0, 500.0),
            "About today's outdoor background; only the unoccupied-offset check uses it, when the zone has no outdoor_co2 point.",
            "Map an outdoor CO2 sensor if there is one; else use the overnight minimum of trusted zone sensors as the site's estimate.",
        ),
    ];
    params.extend(dcv.params);
    RuleSpec {
        id: "dcv_system_verification",
        families: &[],
        inputs: Inputs {
            required: &[],
            optional: &[
                "co2",
                "outdoor_co2",
                "oa_airflow",
                "oa_damper",
                "occupancy",
                "warmup",
                "cooldown",
                "supply_fan_status",
                "econ_cmd",
                "oat",
                "heat_valve",
                "airflow",
                "supply_fan_speed",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params,
        judged_basis: dcv.judged_basis,
    }
}

/// Why a zone's CO2 is not used, or `None` when it is trusted.
fn untrusted_zone(spec: &RuleSpec, frame: &Frame, params: &Params) -> Option<&'static str> {
    let co2 = frame.col("co2")?;
    let plausible: Vec<f64> = co2.iter().copied().filter(|v| (PLAUSIBLE.0..=PLAUSIBLE.1).contains(v)).collect();
    if plausible.len() < MIN_ZONE_SAMPLES {
        return Some("too few plausible CO2 samples");
    }
    let mean = plausible.iter().sum::<f64>() / plausible.len() as f64;
    let sd = (plausible.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (plausible.len() - 1) as f64).sqrt();
    if sd < params.number(spec, "stuck_std_ppm") {
        return Some("CO2 flat (stuck)");
    }
    let outdoor = match frame.col("outdoor_co2") {
        Some(o) => median(&mut o.iter().copied().filter(|v| !v.is_nan()).collect::<Vec<_>>()),
        None => params.number(spec, "assumed_outdoor_ppm"),
    };
    let occupied = dcv_verification::occupied(spec, frame, params);
    let mut unocc: Vec<f64> = (0..frame.len())
        .filter(|&i| !occupied[i] && (PLAUSIBLE.0..=PLAUSIBLE.1).contains(&co2[i]))
        .map(|i| co2[i])
        .collect();
    if unocc.len() >= MIN_ZONE_SAMPLES && median(&mut unocc) > outdoor + params.number(spec, "unoccupied_excess_ppm") {
        return Some("CO2 stays high when unoccupied (offset or miscalibrated)");
    }
    None
}

/// Judge each outdoor-air source against the trusted CO2 of the zones it serves.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let signals = dcv_verification::oa_signals(spec, params);
    let has_oa = |f: &Frame| signals.iter().any(|r| f.col(r).is_some());
    let sources: Vec<usize> = (0..fleet.members.len())
        .filter(|&m| has_oa(fleet.members[m].frame) && fleet.members[m].frame.col("co2").is_none())
        .collect();
    let zones: Vec<usize> = (0..fleet.members.len())
        .filter(|&m| fleet.members[m].frame.col("co2").is_some() && !has_oa(fleet.members[m].frame))
        .collect();
    if zones.is_empty() {
        return Vec::new(); // no zone CO2: nothing for this rule to say
    }
    let mut caveats = Vec::new();
    if sources.is_empty() {
        let f = Finding::not_judged(
            spec,
            "the zones trend CO2 but no air handler of the run trends its outdoor air (oa_airflow or oa_damper)",
        );
        return vec![FleetFinding { group: None, finding: f, equips: Vec::new() }];
    }
    // each zone to the outdoor-air source serving it
    let source_of = |m: usize| {
        let parent = fleet.members[m].parent?;
        sources.iter().copied().find(|&s| fleet.members[s].equip == parent)
    };
    let mut assign: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut unattributed = Vec::new();
    for &z in &zones {
        match source_of(z) {
            Some(s) => assign.entry(s).or_default().push(z),
            None if sources.len() == 1 => assign.entry(sources[0]).or_default().push(z),
            None => unattributed.push(camber_common::text::name(fleet.members[z].equip)),
        }
    }
    let assumed = zones.iter().filter(|&&z| source_of(z).is_none()).count();
    if sources.len() == 1 && assumed > 0 {
        caveats.push(format!(
            "{assumed} CO2 zone(s) are not in the topology and were taken as served by the only outdoor-air source, {}",
            camber_common::text::name(fleet.members[sources[0]].equip)
        ));
    }
    if !unattributed.is_empty() {
        caveats.push(format!(
            "{} CO2 zone(s) could not be tied to an air handler and were not used: {}",
            unattributed.len(),
            unattributed.join(", ")
        ));
    }
    if assign.is_empty() {
        let f = Finding::not_judged(spec, "no CO2 zone could be tied to the air handler serving it (several trend outdoor air): give the run config a topology").with_caveats(caveats);
        return vec![FleetFinding { group: None, finding: f, equips: Vec::new() }];
    }
    let mean = params.choice(spec, "agg") == "mean";
    let mut out = Vec::new();
    for (s, served) in assign {
        let src = fleet.members[s];
        let mut excluded = Vec::new();
        let mut joined: Vec<Vec<f64>> = Vec::new();
        for &z in &served {
            let m = fleet.members[z];
            match untrusted_zone(spec, m.frame, params) {
                Some(why) => excluded.push(format!("{} ({why})", m.equip)),
                None => {
                    joined.push(crate::fleet::hold_on(m.frame, m.frame.col("co2").expect("a CO2 zone"), &src.frame.ts))
                }
            }
        }
        let mut caveats = caveats.clone();
        if !excluded.is_empty() {
            caveats.push(format!("zone CO2 left out as untrustworthy: {}", excluded.join("; ")));
        }
        if joined.is_empty() {
            let f = Finding::not_judged(spec, &format!("no trusted zone CO2 joined to {}", src.equip))
                .with_caveats(caveats);
            out.push(FleetFinding { group: Some(src.equip.to_string()), finding: f, equips: Vec::new() });
            continue;
        }
        let demand: Vec<f64> = (0..src.frame.len())
            .map(|i| {
                let vals: Vec<f64> =
                    joined.iter().map(|c| c[i]).filter(|v| (PLAUSIBLE.0..=PLAUSIBLE.1).contains(v)).collect();
                match (vals.is_empty(), mean) {
                    (true, _) => f64::NAN,
                    (false, true) => vals.iter().sum::<f64>() / vals.len() as f64,
                    (false, false) => vals.iter().copied().fold(f64::NEG_INFINITY, crate::engine::max_of),
                }
            })
            .collect();
        let mut frame = src.frame.clone();
        frame.cols.insert("co2".into(), demand);
        let how = if mean { "the mean" } else { "the highest" };
        let lead = format!("{} against {how} of {} zone CO2 sensor(s)", src.equip, joined.len());
        let findings = match dcv_verification::RULE.evaluate(spec, &frame, params) {
            Outcome::Findings(v) => v,
            Outcome::Skipped { missing } => {
                vec![Finding::not_judged(spec, &format!("{} lacks {}", src.equip, missing.join(", ")))]
            }
        };
        for mut f in findings {
            f.summary = format!("{lead}: {}", f.summary);
            f.caveats.extend(caveats.iter().cloned());
            f.metrics.insert("n_zones_joined".into(), joined.len() as f64);
            f.metrics.insert("n_zones_excluded".into(), excluded.len() as f64);
            // flagged samples of the air handler's frame, on the fleet's axis
            f.flagged = f
                .flagged
                .iter()
                .filter_map(|&i| fleet.times.binary_search(&src.frame.ts[i as usize]).ok().map(|k| k as u32))
                .collect();
            for c in f.conditions.iter_mut() {
                c.flagged = c
                    .flagged
                    .iter()
                    .filter_map(|&i| fleet.times.binary_search(&src.frame.ts[i as usize]).ok().map(|k| k as u32))
                    .collect();
            }
            let equips = if f.severity >= Severity::Warn { vec![src.equip.to_string()] } else { Vec::new() };
            out.push(FleetFinding { group: Some(src.equip.to_string()), finding: f, equips });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, shuffled_with_duplicates, MONDAY};
    use crate::engine::NS_PER_HOUR;
    use crate::run::{run, EquipFrame, RunRequest};

    const N: usize = 21 * 24;

    fn hour(i: usize) -> usize {
        i % 24
    }

    fn occupied(i: usize) -> bool {
        (7..18).contains(&hour(i)) && (i / 24) % 7 < 5
    }

    /// An air handler whose outdoor-air damper follows `damper(i)`, fan on while occupied.
    fn ahu(damper: impl Fn(usize) -> f64) -> Frame {
        let ts = every(MONDAY, NS_PER_HOUR, N);
        Frame::from_rows(
            &ts,
            &[
                ("oa_damper", (0..N).map(&damper).collect()),
                ("supply_fan_status", (0..N).map(|i| if occupied(i) { 1.0 } else { 0.0 }).collect()),
                ("oat", vec![90.0; N]),
            ],
        )
    }

    /// A zone whose CO2 rises through the afternoon when occupied (to `peak` ppm), 450 at night.
    fn zone(peak: f64) -> Frame {
        let ts = every(MONDAY, NS_PER_HOUR, N);
        let co2: Vec<f64> = (0..N)
            .map(|i| {
                if occupied(i) {
                    500.0 + (peak - 500.0) * ((hour(i) as f64 - 7.0) / 10.0)
                } else {
                    450.0 + (i % 3) as f64
                }
            })
            .collect();
        Frame::from_rows(&ts, &[("co2", co2)])
    }

    /// DCV at work: the damper opens with the zones' CO2.
    fn following(i: usize) -> f64 {
        if occupied(i) {
            20.0 + 60.0 * ((hour(i) as f64 - 7.0) / 10.0)
        } else {
            0.0
        }
    }

    fn frames(damper: fn(usize) -> f64, zones: &[(&str, Frame)]) -> Vec<EquipFrame> {
        let mut v = vec![EquipFrame { equip: "AHU-1".into(), class: "AHU".into(), frame: ahu(damper) }];
        v.extend(zones.iter().map(|(e, f)| EquipFrame { equip: e.to_string(), class: "VAV".into(), frame: f.clone() }));
        v
    }

    fn judge(frames: &[EquipFrame], topology: bool, params: serde_json::Value) -> Vec<crate::run::RunFinding> {
        let mut c = serde_json::json!({"equipment": [{"class": "AHU"}, {"class": "VAV"}],
            "rules": [{"name": "dcv_system_verification", "params": params}]});
        if topology {
            c["topology"] = serde_json::json!({"parents": {"V1": "AHU-1", "V2": "AHU-1", "V3": "AHU-1"}});
        }
        let c = RunConfig::from_value(&c).unwrap();
        run(&c, &RunRequest { min_trust: 0.0, ..Default::default() }, frames, &[]).unwrap().findings
    }

    #[test]
    fn a_damper_that_follows_the_zones_passes_and_a_fixed_one_is_flagged() {
        let z = [("V1", zone(1100.0)), ("V2", zone(900.0))];
        let ok = judge(&frames(following, &z), true, serde_json::json!({}));
        assert_eq!(ok.len(), 1, "{ok:?}");
        assert_eq!(ok[0].id, "dcv_system_verification@<fleet:AHU-1>");
        assert!(ok[0].finding.severity <= Severity::Ok, "{}", ok[0].finding.summary);
        assert!(
            ok[0].finding.summary.starts_with("AHU-1 against the highest of 2 zone CO2 sensor(s)"),
            "{}",
            ok[0].finding.summary
        );
        assert_eq!(ok[0].members, ["AHU-1", "V1", "V2"]);
        let fixed = judge(&frames(|i| if occupied(i) { 20.0 } else { 0.0 }, &z), true, serde_json::json!({}));
        assert!(fixed[0].finding.severity >= Severity::Warn, "{}", fixed[0].finding.summary);
        assert_eq!(fixed[0].equips, ["AHU-1"]);
    }

    #[test]
    fn untrusted_zone_sensors_are_left_out_and_named() {
        let mut flat = zone(1000.0);
        flat.cols.insert("co2".into(), vec![800.0; N]);
        let mut offset = zone(1000.0);
        for v in offset.cols.get_mut("co2").unwrap() {
            *v += 500.0;
        }
        let f = judge(
            &frames(following, &[("V1", zone(1000.0)), ("V2", flat), ("V3", offset)]),
            true,
            serde_json::json!({}),
        );
        let c = f[0].finding.caveats.join(" | ");
        assert!(c.contains("V2 (CO2 flat (stuck))") && c.contains("V3 (CO2 stays high when unoccupied"), "{c}");
        assert_eq!(f[0].finding.metrics["n_zones_joined"], 1.0);
        // the offset level is a parameter: two sound zones stay in at a tight 100 ppm
        let f = judge(
            &frames(following, &[("V1", zone(1000.0)), ("V3", zone(1000.0))]),
            true,
            serde_json::json!({"unoccupied_excess_ppm": 100}),
        );
        assert_eq!(f[0].finding.metrics["n_zones_joined"], 2.0, "{:?}", f[0].finding.caveats);
    }

    #[test]
    fn without_a_topology_one_source_takes_every_zone_with_a_caveat() {
        let f = judge(&frames(following, &[("V1", zone(1100.0)), ("V2", zone(900.0))]), false, serde_json::json!({}));
        assert_eq!(f[0].id, "dcv_system_verification@<fleet:AHU-1>");
        assert!(f[0]
            .finding
            .caveats
            .iter()
            .any(|c| c.contains("taken as served by the only outdoor-air source, \"AHU-1\"")));
        // two sources and no topology: nothing can be tied
        let mut two = frames(following, &[("V1", zone(1100.0))]);
        two.push(EquipFrame { equip: "AHU-2".into(), class: "AHU".into(), frame: ahu(following) });
        let f = judge(&two, false, serde_json::json!({}));
        assert_eq!((f.len(), f[0].id.as_str()), (1, "dcv_system_verification@<fleet>"));
        assert!(f[0].finding.summary.contains("give the run config a topology"), "{}", f[0].finding.summary);
    }

    #[test]
    fn the_mean_and_the_highest_zone() {
        let z = [("V1", zone(1400.0)), ("V2", zone(520.0))];
        let hi = judge(&frames(following, &z), true, serde_json::json!({}));
        let mean = judge(&frames(following, &z), true, serde_json::json!({"agg": "mean"}));
        assert!(mean[0].finding.summary.contains("the mean of 2"), "{}", mean[0].finding.summary);
        assert_ne!(hi[0].finding.metrics, mean[0].finding.metrics);
    }

    #[test]
    fn an_air_handler_trended_more_often_than_its_zones_reads_each_zone_sample_for_its_hour() {
        // the air handler every 15 minutes, the zones hourly: the fixed damper is still flagged,
        // the following one still passes
        let fine = |damper: fn(usize) -> f64| {
            let ts = every(MONDAY, NS_PER_HOUR / 4, 4 * N);
            Frame::from_rows(
                &ts,
                &[
                    ("oa_damper", (0..4 * N).map(|i| damper(i / 4)).collect()),
                    ("supply_fan_status", (0..4 * N).map(|i| if occupied(i / 4) { 1.0 } else { 0.0 }).collect()),
                    ("oat", vec![90.0; 4 * N]),
                ],
            )
        };
        let z = [("V1", zone(1100.0)), ("V2", zone(900.0))];
        for (damper, flagged) in
            [(following as fn(usize) -> f64, false), (|i| if occupied(i) { 20.0 } else { 0.0 }, true)]
        {
            let mut frames = frames(damper, &z);
            frames[0].frame = fine(damper);
            let f = judge(&frames, true, serde_json::json!({}));
            assert_eq!(f[0].finding.severity >= Severity::Warn, flagged, "{}", f[0].finding.summary);
            assert_eq!(f[0].finding.metrics["n_zones_joined"], 2.0);
        }
    }

    #[test]
    fn gaps_duplicates_disorder_and_off_hours() {
        let z = [("V1", zone(1100.0)), ("V2", zone(900.0))];
        let base = judge(&frames(following, &z), true, serde_json::json!({}));
        let mut shuffled = frames(following, &z);
        for e in shuffled.iter_mut() {
            e.frame = shuffled_with_duplicates(&e.frame);
        }
        let got = judge(&shuffled, true, serde_json::json!({}));
        assert_eq!(got[0].finding.summary, base[0].finding.summary);
        // CO2 high only while the fan is off and unoccupied is no demand the damper must answer
        let mut night = zone(500.0);
        for (i, v) in night.cols.get_mut("co2").unwrap().iter_mut().enumerate() {
            if !occupied(i) && i % 5 == 0 {
                *v = 1500.0;
            }
        }
        let f = judge(&frames(|i| if occupied(i) { 20.0 } else { 0.0 }, &[("V1", night)]), true, serde_json::json!({}));
        assert!(f[0].finding.severity <= Severity::Info, "{}", f[0].finding.summary);
    }

    #[test]
    fn no_zone_co2_says_nothing_and_no_source_is_not_judged() {
        let none = judge(&frames(following, &[]), true, serde_json::json!({}));
        assert!(none.is_empty());
        let z = vec![EquipFrame { equip: "V1".into(), class: "VAV".into(), frame: zone(1000.0) }];
        let f = judge(&z, true, serde_json::json!({}));
        assert_eq!(f[0].finding.severity, Severity::Info);
        assert!(
            f[0].finding.summary.contains("no air handler of the run trends its outdoor air"),
            "{}",
            f[0].finding.summary
        );
        // degenerate frames
        let empty = vec![EquipFrame { equip: "V1".into(), class: "VAV".into(), frame: Frame::default() }];
        assert!(judge(&empty, true, serde_json::json!({})).is_empty());
    }
}
