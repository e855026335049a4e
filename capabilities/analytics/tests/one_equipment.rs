//! `run_equipment` against the whole run: on camber-synth's buildings with every rule at its
//! defaults, each finding of a rule that stands alone comes out of its rule on its equipment
//! alone exactly as the whole run gives it (`finding_detail` asks for one finding that way).

mod common;

use camber_analytics::config::RunConfig;
use camber_analytics::rules;
use camber_analytics::run::{run, run_equipment, stands_alone, EquipFrame, RunRequest};
use common::frame_of;
use serde_json::json;

/// Dataset `id` as frames, with a config that runs every rule on every class, boxes served by
/// their scenario's air handler, and one air handler's supply air referenced to another's (so
/// some findings are conditional on a disagreeing reference).
fn building(id: &str) -> (RunConfig, Vec<EquipFrame>) {
    let g = camber_synth::generate(id, None).unwrap();
    let frames: Vec<EquipFrame> = g
        .equipment
        .iter()
        .map(|e| EquipFrame { equip: e.equip.clone(), class: e.equip_class.clone(), frame: frame_of(&g, &e.equip) })
        .collect();
    let mut classes: Vec<String> = frames.iter().map(|e| e.class.clone()).collect();
    classes.sort();
    classes.dedup();
    let mut v = RunConfig::store_backed(id, &classes, None);
    let scenario = |e: &str| e.split_once("__").map(|(_, s)| s.to_string());
    let parents: serde_json::Map<String, serde_json::Value> = frames
        .iter()
        .filter(|e| e.class == "VAV")
        .filter_map(|e| Some((e.equip.clone(), json!(format!("AHU__{}", scenario(&e.equip)?)))))
        .collect();
    v["topology"] = json!({"parents": parents, "match": "exact"});
    let ahus: Vec<&str> =
        frames.iter().filter(|e| e.frame.col("supply_air_temp").is_some()).map(|e| e.equip.as_str()).collect();
    if let [a, b, ..] = ahus[..] {
        v["report"] = json!({"rcx": {"references": {a: {"supply_air_temp": {"equip": b, "label": "a neighbour"}}}}});
    }
    (RunConfig::from_value(&v).unwrap(), frames)
}

#[test]
fn each_finding_that_stands_alone_is_the_whole_runs() {
    assert!(!stands_alone("hp_capacity_shortfall"), "the run defers its cause to the room's fight");
    assert!(!stands_alone("cohort_airflow"), "a fleet rule");
    assert!(!stands_alone("no_such_rule"));
    let mut compared = 0;
    let mut conditional = 0;
    let mut rules_seen = std::collections::BTreeSet::new();
    for id in ["synthetic-ahu-economizer", "synthetic-g36-vav", "synthetic-chw-plant", "synthetic-heat-pump-winter"] {
        let (config, frames) = building(id);
        let req = RunRequest { min_trust: 0.5, ..Default::default() };
        let whole = run(&config, &req, &frames, &[]).unwrap();
        for f in whole.findings.iter().filter(|f| !f.is_fleet() && stands_alone(f.finding.rule)) {
            let one = RunRequest { rules: Some(vec![f.finding.rule.to_string()]), ..req.clone() };
            let alone = run_equipment(&config, &one, &frames, &[], &f.equip).unwrap();
            let same = alone.findings.iter().find(|g| g.id == f.id).unwrap_or_else(|| panic!("{id}: {} alone", f.id));
            assert_eq!(serde_json::to_value(same).unwrap(), serde_json::to_value(f).unwrap(), "{id}: {}", f.id);
            assert!(alone.findings.iter().all(|g| g.equip == f.equip && g.finding.rule == f.finding.rule));
            compared += 1;
            rules_seen.insert(f.finding.rule);
            conditional += usize::from(!f.conditional_on.is_empty());
        }
    }
    assert!(compared > 150, "{compared}");
    // the findings compared come from most of the rules that stand alone
    let standing = rules::all().iter().filter(|r| stands_alone((r.spec)().id)).count();
    assert!(standing > 40 && rules_seen.len() * 2 > standing, "{} of {standing}: {rules_seen:?}", rules_seen.len());
    assert!(conditional > 0, "no finding was conditional on the reference");
}
