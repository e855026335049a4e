//! The report engine on small synthetic run results: grouping along each chain and along the
//! topology, hours as a union, cost as the largest member, the uncosted reasons, confidence,
//! the rank (the sensor-issue rule too), stable keys, the facts' figures, degenerate inputs.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::config::RunConfig;
use crate::engine::{Condition, Finding, ParamValue, Severity, NS_PER_HOUR};
use crate::run::{ParamUse, RefResult, RunFinding, RunResult};
use crate::trust::{Comparison, Trust};

const H: i64 = NS_PER_HOUR;
const FID: &str = "ds-test";

fn finding(rule: &'static str, sev: Severity, flagged: Vec<u32>, metrics: &[(&str, f64)]) -> Finding {
    Finding::of(rule, "", sev, format!("{rule} summary"))
        .with_flagged(flagged)
        .with_judged(200)
        .with_metrics(metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect())
}

fn rf(rule: &'static str, equip: &str, sev: Severity, flagged: Vec<u32>, metrics: &[(&str, f64)]) -> RunFinding {
    RunFinding {
        id: format!("{rule}@{equip}"),
        equip: equip.into(),
        class: "AHU".into(),
        finding: finding(rule, sev, flagged, metrics),
        params: Vec::new(),
        declined: Vec::new(),
        conditional_on: Vec::new(),
        group: None,
        members: Vec::new(),
        equips: Vec::new(),
    }
}

fn fleet(rule: &'static str, group: &str, members: &[&str], sev: Severity, metrics: &[(&str, f64)]) -> RunFinding {
    let name = crate::run::fleet_name(Some(group));
    RunFinding {
        id: format!("{rule}@{name}"),
        equip: name,
        class: "fleet".into(),
        finding: finding(rule, sev, vec![0, 1], metrics),
        params: Vec::new(),
        declined: Vec::new(),
        conditional_on: Vec::new(),
        group: Some(group.into()),
        members: members.iter().map(|m| m.to_string()).collect(),
        equips: Vec::new(),
    }
}

/// Hourly axes of `n` samples with the fan on throughout.
fn times(equips: &[&str], n: i64) -> BTreeMap<String, EquipTimes> {
    equips
        .iter()
        .map(|e| {
            let ts: Vec<i64> = (0..n).map(|i| i * H).collect();
            let running = Some(vec![true; n as usize]);
            (e.to_string(), EquipTimes { ts, running, gate: "fan status".into() })
        })
        .collect()
}

fn config(v: serde_json::Value) -> RunConfig {
    RunConfig::from_value(&v).unwrap()
}

fn report(run: &RunResult, t: &BTreeMap<String, EquipTimes>, c: &RunConfig, o: &RcxOptions) -> RcxReport {
    build(&RcxInput::new(FID, "Test site", run, t, c, o))
}

fn issue<'a>(r: &'a RcxReport, root_rule: &str, equip: &str) -> &'a Issue {
    r.issues.iter().find(|i| i.root_rule == root_rule && i.equip == equip).unwrap_or_else(|| {
        panic!(
            "no issue {root_rule} on {equip}: {:?}",
            r.issues.iter().map(|i| (&i.root_rule, &i.equip)).collect::<Vec<_>>()
        )
    })
}

fn topo() -> serde_json::Value {
    json!({"parents": {"VAV-1": "AHU-1", "VAV-2": "AHU-1", "VAV-3": "AHU-1", "VAV-9": "AHU-2"}})
}

#[test]
fn findings_on_one_equipment_group_along_each_chain_with_the_upstream_root() {
    let run = RunResult {
        findings: vec![
            rf("simultaneous_heat_cool", "AHU-1", Severity::Fault, vec![5], &[]),
            rf("supply_air_reset", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("reheat_penalty", "AHU-1", Severity::Warn, vec![2], &[]),
            rf("outdoor_air_fraction", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("economizer_high_limit", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("hw_pump_summer_lockout", "PLANT-1", Severity::Warn, vec![1], &[]),
            rf("boiler_summer_lockout", "PLANT-1", Severity::Fault, vec![1], &[]),
            rf("leaking_valve", "AHU-1", Severity::Warn, vec![1], &[]),
            // info is not an issue
            rf("supply_air_control", "AHU-1", Severity::Info, vec![1], &[]),
            rf("static_reset_effectiveness", "AHU-2", Severity::Warn, vec![1], &[("not_trimming", 1.0)]),
            fleet("damper_census", "AHU-2", &["VAV-9"], Severity::Warn, &[]),
            fleet("static_rogue_zone_census", "AHU-2", &["VAV-9"], Severity::Warn, &[]),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1", "AHU-2", "PLANT-1", "VAV-9"], 10);
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    let sat = issue(&r, "supply_air_reset", "AHU-1");
    assert_eq!(sat.rules, ["supply_air_reset", "reheat_penalty", "simultaneous_heat_cool"]);
    assert_eq!((sat.chain.as_deref(), sat.severity), (Some("sat"), Severity::Fault), "the worst member's severity");
    let econ = issue(&r, "economizer_high_limit", "AHU-1");
    assert_eq!(econ.rules, ["economizer_high_limit", "outdoor_air_fraction"]);
    let hw = issue(&r, "boiler_summer_lockout", "PLANT-1");
    assert_eq!((hw.rules.len(), hw.chain.as_deref()), (2, Some("hw_lockout")));
    // the static chain gathers the fleet findings on the air handler their boxes hang from
    let st = issue(&r, "static_reset_effectiveness", "AHU-2");
    assert_eq!(st.rules, ["static_reset_effectiveness", "static_rogue_zone_census", "damper_census"]);
    assert_eq!(st.finding_ids[2], "damper_census@<fleet:AHU-2>");
    // a rule in no chain is its own issue
    assert_eq!(issue(&r, "leaking_valve", "AHU-1").rules, ["leaking_valve"]);
    assert_eq!(r.issues.len(), 5);
    assert!(r.issues.iter().all(|i| !i.rules.contains(&"supply_air_control".to_string())));
    // the chain is stated as a fact of the issue
    assert!(r.fact_index.iter().any(|f| f.id == format!("Z1@{}", sat.key)
        && f.text == "Cause chain sat on \"AHU-1\": supply_air_reset is the root of 2 symptoms (reheat_penalty, simultaneous_heat_cool)."));
}

fn g36_warm(flagged: Vec<u32>) -> RunFinding {
    let mut f = rf(
        "g36_afdd",
        "AHU-1",
        Severity::Fault,
        flagged.clone(),
        &[("fc13_pct", 40.0), ("fc13_applicable_hours", 100.0), ("fc13_hours", 40.0), ("worst_fc", 13.0)],
    );
    f.finding.conditions =
        vec![Condition { name: "FC13".into(), flagged, judged: 100, judged_hours: 100.0, flagged_hours: 40.0 }];
    f
}

fn unmet(equip: &str, flagged: Vec<u32>) -> RunFinding {
    rf("unmet_setpoint_hours", equip, Severity::Warn, flagged, &[("too_hot_pct", 30.0), ("too_cold_pct", 0.0)])
}

#[test]
fn a_warm_zone_is_blamed_on_its_air_handler_along_the_topology() {
    let run = RunResult {
        findings: vec![
            g36_warm((10..50).collect()),
            unmet("VAV-1", (20..40).collect()),
            unmet("VAV-2", (30..45).collect()),
            // the same symptom at other hours stays its own issue
            unmet("VAV-3", (80..95).collect()),
            // a box of another air handler, which has no root, stays its own
            unmet("VAV-9", (20..40).collect()),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1", "AHU-2", "VAV-1", "VAV-2", "VAV-3", "VAV-9"], 100);
    let c = config(json!({"topology": topo()}));
    let r = report(&run, &t, &c, &RcxOptions::default());
    let ahu = issue(&r, "g36_afdd", "AHU-1");
    assert_eq!(ahu.finding_ids, ["g36_afdd@AHU-1", "unmet_setpoint_hours@VAV-1", "unmet_setpoint_hours@VAV-2"]);
    let z = &ahu.zone_chains[0];
    assert_eq!(
        (z.chain.as_str(), z.boxes.clone(), z.out_of_hours.clone()),
        ("sat_high", vec!["VAV-1".to_string(), "VAV-2".into()], vec!["VAV-3".to_string()])
    );
    assert_eq!(count_boxes(z), "2 of 3 boxes");
    issue(&r, "unmet_setpoint_hours", "VAV-3");
    issue(&r, "unmet_setpoint_hours", "VAV-9");
    // the chain and its dependency are facts
    let zf = r.fact_index.iter().find(|f| f.kind == "chain" && f.id.ends_with(&ahu.key)).unwrap();
    assert_eq!(
        zf.text,
        "Cause chain sat_high: supply air too warm at \"AHU-1\", zones that cannot cool on 2 of 3 boxes (\"VAV-1\", \"VAV-2\")."
    );
    let i1 = r.fact_index.iter().find(|f| f.id == format!("I1@{}", ahu.key)).unwrap();
    assert!(i1.text.contains("on \"AHU-1\" + 2 of 3 boxes"), "{}", i1.text);
    assert!(ahu.why.iter().any(|w| w.starts_with("Cause chain (topology): supply air too warm at \"AHU-1\"")));

    // without a topology nothing is linked, and appendix A says why
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    assert_eq!(issue(&r, "g36_afdd", "AHU-1").finding_ids.len(), 1);
    let gap = r.appendix.iter().find(|e| e.kind == "chain_gap").unwrap();
    assert!(
        gap.text.starts_with("4 boxes (\"VAV-1\", \"VAV-2\", \"VAV-3\", \"VAV-9\") report symptoms"),
        "{}",
        gap.text
    );
    assert!(r.fact_index.iter().any(|f| f.id == gap.fact && f.id == "G1@appA"));
}

#[test]
fn a_starved_box_joins_low_static_and_a_cold_supply_takes_the_reheat() {
    let mut static_low = rf(
        "g36_afdd",
        "AHU-1",
        Severity::Fault,
        vec![1, 2, 3],
        &[("fc1_pct", 30.0), ("fc1_applicable_hours", 50.0), ("fc1_hours", 15.0)],
    );
    static_low.finding.conditions = vec![Condition {
        name: "FC1".into(),
        flagged: vec![1, 2, 3],
        judged: 50,
        judged_hours: 50.0,
        flagged_hours: 3.0,
    }];
    let run = RunResult {
        findings: vec![
            static_low,
            rf(
                "airflow_tracking",
                "VAV-1",
                Severity::Fault,
                vec![2, 3, 4],
                &[("undershoot_pct", 40.0), ("overshoot_pct", 1.0)],
            ),
            rf("supply_air_reset", "AHU-2", Severity::Warn, vec![], &[]),
            rf("reheat_minimization_g36", "VAV-9", Severity::Fault, vec![5], &[("reheat_pct", 10.0)]),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1", "AHU-2", "VAV-1", "VAV-9"], 10);
    let r = report(&run, &t, &config(json!({"topology": topo()})), &RcxOptions::default());
    assert_eq!(issue(&r, "g36_afdd", "AHU-1").zone_chains[0].chain, "static_low");
    assert_eq!(issue(&r, "g36_afdd", "AHU-1").rules, ["g36_afdd", "airflow_tracking"]);
    let cold = issue(&r, "supply_air_reset", "AHU-2");
    assert_eq!(cold.rules, ["supply_air_reset", "reheat_minimization_g36"]);
    // the root flagged nothing: joined, the overlap not assessed
    assert_eq!(cold.zone_chains[0].not_assessed, ["VAV-9"]);
}

#[test]
fn hours_are_the_union_of_the_members_flagged_time_gated_to_running() {
    let run = RunResult {
        findings: vec![
            rf("supply_air_reset", "AHU-1", Severity::Warn, (0..6).collect(), &[]),
            rf("reheat_penalty", "AHU-1", Severity::Warn, (4..10).collect(), &[]),
        ],
        ..Default::default()
    };
    let mut t = times(&["AHU-1"], 20);
    // the fan is off at hours 8 and 9
    t.get_mut("AHU-1").unwrap().running.as_mut().unwrap()[8..10].fill(false);
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    let i = &r.issues[0];
    // 0..10 is 10 h, overlapping 4..6 counted once, 8..10 off: 8 h of 18 running
    assert_eq!((i.hours, i.running_hours, i.pct_runtime), (Some(8.0), Some(18.0), Some(44.4)));
    let tf = r.fact_index.iter().find(|f| f.id == format!("T1@{}", i.key)).unwrap();
    assert_eq!(
        tf.text,
        "Issue 1 flagged 8 h (the union of its members' flagged time), 44.4% of 18 running hours; gate: fan status."
    );
}

fn loads() -> RcxOptions {
    RcxOptions::from_report(Some(&json!({"rcx": {"loads": {
        "AHU-1": {"heating_capacity_kbtuh": 100, "fan_kw": 10},
        "VAV-1": {"heating_capacity_kbtuh": 20}}}})))
    .unwrap()
}

#[test]
fn an_issue_costs_its_largest_member_never_the_sum() {
    let run = RunResult {
        findings: vec![
            rf("supply_air_reset", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("reheat_penalty", "AHU-1", Severity::Warn, vec![1], &[("reheat_above_min_pct", 10.0)]),
            rf("simultaneous_heat_cool", "AHU-1", Severity::Warn, vec![1], &[("simultaneous_hc_pct", 20.0)]),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1"], 10);
    let o = loads();
    let r = report(&run, &t, &config(json!({})), &o);
    let i = &r.issues[0];
    let costs: Vec<Option<f64>> = i.member_costs.iter().map(|m| m.annual_cost_usd).collect();
    let shc = costs[2].unwrap();
    assert!(costs[0].is_none() && costs[1].unwrap() < shc);
    assert_eq!(i.annual_cost_usd, Some(shc), "the largest, not {}", costs[1].unwrap() + shc);
    assert!(i.cost_basis_note.starts_with("member estimates overlap; the largest is shown: reheat-gas+paired-cooling (simultaneous_heat_cool on AHU-1)"), "{}", i.cost_basis_note);
    assert_eq!((r.kpis.annual_cost_usd, r.kpis.n_costed), (Some(shc), 1));
    // the figures are facts: the issue's and each costed member's
    let c1 = r.fact_index.iter().find(|f| f.id == format!("C1@{}", i.key)).unwrap();
    assert!(c1.text.starts_with(&format!("Issue 1 is estimated at {}/yr (", facts::usd(shc))), "{}", c1.text);
    assert!(r.fact_index.iter().any(|f| f.id == format!("C3@{}", i.key) && f.text.contains(&facts::usd(shc))));
    let k2 = r.fact_index.iter().find(|f| f.id == "K2@summary").unwrap();
    assert!(k2.text.contains(&facts::usd(shc)), "{}", k2.text);
}

#[test]
fn an_uncosted_issue_says_what_it_needs() {
    let run = RunResult {
        findings: vec![
            rf("simultaneous_heat_cool", "AHU-3", Severity::Warn, vec![1], &[("simultaneous_hc_pct", 20.0)]),
            rf("g36_afdd", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("supply_air_reset", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("reheat_penalty", "AHU-1", Severity::Warn, vec![1], &[("reheat_above_min_pct", 10.0)]),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1", "AHU-3"], 10);
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    assert_eq!(
        issue(&r, "simultaneous_heat_cool", "AHU-3").cost_basis_note,
        "uncosted: needs heating_capacity_kbtuh (report.rcx.loads.\"AHU-3\")"
    );
    assert_eq!(issue(&r, "g36_afdd", "AHU-1").cost_basis_note, "uncosted: no cost model for rule 'g36_afdd'");
    // the root has no model, a member needs an input: the missing input is named
    assert_eq!(
        issue(&r, "supply_air_reset", "AHU-1").cost_basis_note,
        "uncosted: needs heating_capacity_kbtuh (report.rcx.loads.\"AHU-1\") for reheat_penalty on \"AHU-1\""
    );
    assert_eq!((r.kpis.n_uncosted, r.kpis.annual_cost_usd), (3, None));
    assert_eq!(r.fact_index[1].text, "No unconditional issue is costed, so the report states no dollar total.");
}

fn trust(verdict: &'static str, score: f64, flags: Vec<&'static str>) -> Trust {
    Trust {
        score,
        verdict,
        flags,
        coverage: 1.0,
        coverage_of: "span",
        samples: 300,
        out_of_range_share: 0.0,
        spike_share: 0.0,
        stuck_share: 0.0,
        gated: true,
    }
}

/// synthetic-ahu-sensor-bias in miniature: AHU-B's supply air reads 3 °F high against a duct
/// logger; its leaking-valve fault and its compliance warn read that sensor.
fn sensor_bias() -> (RunResult, BTreeMap<String, EquipTimes>, RcxOptions) {
    let reference = RefResult {
        equip: "AHU-B".into(),
        role: "supply_air_temp".into(),
        reference: "LOGGER-B".into(),
        reference_role: "supply_air_temp".into(),
        label: "duct logger".into(),
        comparison: Some(Comparison {
            bias: 3.0,
            sign: "high",
            rmse: 3.0,
            correlation: 1.0,
            samples: 384,
            overlap_hours: 96.0,
            severity: Severity::Warn,
        }),
    };
    let t_max = ParamUse { name: "t_max", value: ParamValue::Number(62.0), unit: "°F", source: "config" };
    let compliance = |equip: &str| {
        let mut f = rf(
            "supply_air_reset_compliance",
            equip,
            Severity::Warn,
            vec![1, 2],
            &[("pct_below_target", 54.0), ("mean_gap_f", 3.1)],
        );
        f.params = vec![t_max.clone()];
        f
    };
    let mut leak = rf("leaking_valve", "AHU-B", Severity::Fault, vec![3, 4], &[]);
    leak.conditional_on = vec![reference.clone()];
    let mut comp_b = compliance("AHU-B");
    comp_b.conditional_on = vec![reference.clone()];
    let run = RunResult {
        findings: vec![leak, comp_b, compliance("AHU-A")],
        references: vec![reference],
        trust: BTreeMap::from([
            ("AHU-A".to_string(), BTreeMap::from([("supply_air_temp".to_string(), trust("trusted", 1.0, vec![]))])),
            ("AHU-B".to_string(), BTreeMap::from([("supply_air_temp".to_string(), trust("trusted", 1.0, vec![]))])),
        ]),
        ..Default::default()
    };
    let o = RcxOptions::from_config(&json!({"source": {"kind": "store"}, "report": {"rcx": {"loads": {
        "AHU-A": {"heating_capacity_kbtuh": 400}, "AHU-B": {"heating_capacity_kbtuh": 401}}}}}))
    .unwrap();
    (run, times(&["AHU-A", "AHU-B", "LOGGER-B"], 200), o)
}

#[test]
fn a_sensor_issue_ranks_just_above_the_first_issue_conditional_on_it() {
    let (run, t, o) = sensor_bias();
    let r = report(&run, &t, &config(json!({})), &o);
    let order: Vec<(&str, &str)> = r.issues.iter().map(|i| (i.root_rule.as_str(), i.equip.as_str())).collect();
    assert_eq!(
        order,
        [
            ("sensor_drift:supply_air_temp", "AHU-B"),
            ("leaking_valve", "AHU-B"),
            ("supply_air_reset_compliance", "AHU-A"),
            ("supply_air_reset_compliance", "AHU-B"),
        ]
    );
    let sensor = &r.issues[0];
    assert_eq!(sensor.key, key::issue_key(FID, "AHU-B", "sensor_drift:supply_air_temp"));
    assert_eq!(sensor.dependents, ["leaking_valve@AHU-B", "supply_air_reset_compliance@AHU-B"]);
    let leak = &r.issues[1];
    assert_eq!(leak.conditional_on_keys, std::slice::from_ref(&sensor.key));
    assert_eq!(leak.confidence, Level::L, "conditional: input trust L");
    assert!(leak.why[0].starts_with(
        "Input trust L: conditional on sensor_drift:supply_air_temp warn (\"AHU-B\" supply_air_temp reads +3.0"
    ));
    // the unconditional costed warn: site parameters, trusted inputs, enough samples
    let healthy = &r.issues[2];
    assert_eq!(healthy.confidence, Level::H, "{:?}", healthy.why);
    assert!(
        healthy.why.contains(&"Assumptions H: site-configured parameters t_max = 62.0".to_string()),
        "{:?}",
        healthy.why
    );
    assert!(healthy.cost_basis_note.starts_with("sat-below-configured-target->reheat"));
    // the conditional cost is at risk, not in the total
    let at_risk = r.issues[3].annual_cost_usd.unwrap();
    assert!(r.issues[3].cost_at_risk);
    assert_eq!((r.kpis.annual_cost_usd, r.kpis.at_risk_usd), (healthy.annual_cost_usd, Some(at_risk)));
    assert_eq!((r.kpis.n_conditional, r.kpis.n_uncosted, r.kpis.n_issues), (2, 2, 4));
    // the dependencies are facts on both sides
    let d = r.fact_index.iter().filter(|f| f.kind == "dependency" && f.id.ends_with(&sensor.key)).count();
    assert_eq!(d, 2);
    assert!(r.fact_index.iter().any(|f| f.id == format!("D1@{}", leak.key) && f.text.contains("(issue 1)")));
    assert_eq!(r.sections.iter().filter(|s| s.id.starts_with("issue-")).count(), 4);
    let first = r.sections.iter().find(|s| s.id.starts_with("issue-")).unwrap();
    assert_eq!(
        (first.id.clone(), first.title.as_str()),
        (format!("issue-{}", sensor.key), "Issue 1: Supply air temp disagrees with its reference")
    );
}

#[test]
fn the_rank_orders_severity_then_condition_then_cost_then_confidence_then_key() {
    let run = RunResult {
        findings: vec![
            rf("g36_afdd", "AHU-1", Severity::Warn, vec![1], &[]),
            rf("simultaneous_heat_cool", "AHU-1", Severity::Warn, vec![1], &[("simultaneous_hc_pct", 5.0)]),
            rf("simultaneous_heat_cool", "VAV-1", Severity::Warn, vec![1], &[("simultaneous_hc_pct", 50.0)]),
            rf("leaking_valve", "AHU-9", Severity::Fault, vec![1], &[]),
        ],
        ..Default::default()
    };
    // the uncosted ones differ in confidence: few samples on AHU-9's fault would not matter
    // (severity first), AHU-1's g36 is M
    let t = times(&["AHU-1", "VAV-1", "AHU-9"], 10);
    let o = loads();
    let r = report(&run, &t, &config(json!({})), &o);
    let order: Vec<(&str, &str)> = r.issues.iter().map(|i| (i.root_rule.as_str(), i.equip.as_str())).collect();
    assert_eq!(
        order,
        [
            ("leaking_valve", "AHU-9"),
            ("simultaneous_heat_cool", "VAV-1"),
            ("simultaneous_heat_cool", "AHU-1"),
            ("g36_afdd", "AHU-1")
        ]
    );
    assert!(r.issues.windows(2).all(|w| w[0].rank + 1 == w[1].rank));
    // uncosted peers of one tier rank by confidence, then key
    let mut low = rf("g36_afdd", "AHU-2", Severity::Warn, vec![1], &[]);
    low.finding.judged = 10; // L on sample size
    let mut high = rf("actuator_stuck", "AHU-3", Severity::Warn, vec![1], &[]);
    high.params = vec![ParamUse { name: "x", value: ParamValue::Number(1.0), unit: "", source: "config" }];
    let run = RunResult { findings: vec![low, high], ..Default::default() };
    let t = times(&["AHU-2", "AHU-3"], 10);
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    assert_eq!((r.issues[0].confidence, r.issues[1].confidence), (Level::H, Level::L), "{:?}", r.issues[0].why);
}

#[test]
fn keys_are_stable_across_runs_and_unmoved_by_other_issues() {
    let (run, t, o) = sensor_bias();
    let c = config(json!({}));
    let a = report(&run, &t, &c, &o);
    let b = report(&run, &t, &c, &o);
    assert_eq!(a, b, "the same inputs give the same report");
    let mut more = run.clone();
    more.findings.push(rf("g36_afdd", "AHU-Z", Severity::Fault, vec![1], &[]));
    let m = report(&more, &t, &c, &o);
    for i in &a.issues {
        let same = m.issues.iter().find(|x| x.root_rule == i.root_rule && x.equip == i.equip).unwrap();
        assert_eq!(same.key, i.key);
        // and so are its fact ids
        let ids = |r: &RcxReport| {
            r.fact_index
                .iter()
                .filter(|f| f.id.ends_with(&format!("@{}", i.key)))
                .map(|f| f.id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&a), ids(&m));
    }
    assert!(a.issues.iter().all(|i| i.key.len() == 12 && i.key.chars().all(|c| c.is_ascii_hexdigit())));
}

#[test]
fn every_fact_states_its_figure_and_ids_carry_no_token() {
    let (run, t, o) = sensor_bias();
    let mut run = run;
    run.findings.push({
        let mut d = rf("leaking_valve", "AHU-C", Severity::Info, vec![], &[]);
        d.declined = vec![("mixed_air_temp".into(), 0.31)];
        d
    });
    run.skipped.push(crate::run::Skip {
        rule: "supply_air_control".into(),
        equip: "AHU-A".into(),
        missing: vec!["supply_air_temp_sp".into()],
    });
    run.skipped.push(crate::run::Skip {
        rule: "supply_air_control".into(),
        equip: "AHU-B".into(),
        missing: vec!["supply_air_temp_sp".into()],
    });
    let r = report(&run, &t, &config(json!({})), &o);
    let text = |id: &str| {
        r.fact_index.iter().find(|f| f.id == id).map(|f| f.text.clone()).unwrap_or_else(|| panic!("no {id}"))
    };
    let k = &r.kpis;
    assert_eq!(text("K1@summary"), "The report ranks 4 issues.");
    assert!(text("K2@summary").contains(&facts::usd(k.annual_cost_usd.unwrap())));
    assert!(text("K3@summary").contains(&facts::usd(k.at_risk_usd.unwrap())));
    assert_eq!(text("K4@summary"), "2 issues are uncosted and 2 conditional on a sensor fix.");
    assert_eq!(text("K5@summary"), "The points the rules read cover 100.0% of their grid on average.");
    assert_eq!(text("K6@summary"), "1 check declined for an untrusted input.");
    assert_eq!(text("X1@appA"), "leaking_valve on \"AHU-C\" declined: untrusted input(s) mixed_air_temp (trust 0.31).");
    assert_eq!(text("M1@appA"), "supply_air_control was not run (missing supply_air_temp_sp) on \"AHU-A\", \"AHU-B\".");
    assert_eq!(text("Q1@appA"), "Equipment not evaluated by any rule: \"LOGGER-B\".");
    assert_eq!(text("A1@appB"), "Cost assumption boiler_efficiency = 0.8 (default).");
    assert!(r.appendix.iter().any(|e| e.kind == "decline" && e.fact == "X1@appA"));
    for i in &r.issues {
        let mine: Vec<&Fact> = r.fact_index.iter().filter(|f| f.id.ends_with(&format!("@{}", i.key))).collect();
        let issue = mine.iter().find(|f| f.kind == "issue").unwrap();
        assert!(
            issue.text.starts_with(&format!("Issue {}: ", i.rank))
                && issue.text.contains(&format!("confidence {}", i.confidence.as_str()))
        );
        let cost = mine.iter().find(|f| f.kind == "cost").unwrap();
        match i.annual_cost_usd {
            Some(v) => assert!(cost.text.contains(&facts::usd(v)), "{}", cost.text),
            None => assert!(cost.text.contains(&i.cost_basis_note), "{}", cost.text),
        }
        let hours = mine.iter().find(|f| f.kind == "hours").unwrap();
        match i.hours {
            Some(h) => assert!(hours.text.contains(&format!("{} h", facts::hours(h))), "{}", hours.text),
            None => assert!(hours.text.contains("not measured")),
        }
        assert_eq!(mine.iter().filter(|f| f.kind == "why").count(), i.why.len());
        assert_eq!(i.fact, format!("I1@{}", i.key));
    }
    let mut ids: Vec<&str> = r.fact_index.iter().map(|f| f.id.as_str()).collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "fact ids are unique");
    for f in &r.fact_index {
        let ctx = f.id.split_once('@').unwrap().1;
        assert!(
            ctx == "summary" || ctx == "appA" || ctx == "appB" || r.issues.iter().any(|i| i.key == ctx),
            "{}",
            f.id
        );
        assert!(f.text.ends_with('.'), "{}", f.text);
    }
    // the report is plain data
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["issues"][0]["severity"], "warn");
    assert_eq!(v["issues"][1]["confidence"], "L");
}

#[test]
fn a_trusted_point_gone_stuck_makes_a_sensor_issue_of_its_own() {
    let mut run =
        RunResult { findings: vec![rf("leaking_valve", "AHU-1", Severity::Warn, vec![1], &[])], ..Default::default() };
    run.trust.insert(
        "AHU-1".into(),
        BTreeMap::from([
            ("mixed_air_temp".to_string(), trust("suspect", 0.6, vec!["stuck"])),
            ("supply_air_temp".to_string(), trust("trusted", 0.9, vec![])),
        ]),
    );
    let t = times(&["AHU-1"], 10);
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    assert_eq!(r.issues.len(), 2);
    assert_eq!(r.issues[0].root_rule, "sensor_trust:mixed_air_temp");
    assert_eq!(r.issues[1].conditional_on, ["sensor_trust:mixed_air_temp stuck (trust 0.60) on \"AHU-1\""]);
    assert_eq!(r.issues[0].dependents, ["leaking_valve@AHU-1"]);
}

#[test]
fn drift_findings_are_issues_on_their_window() {
    let df = crate::drift::run::DriftFinding {
        id: "ahu:coil_leak@AHU-1".into(),
        family: "ahu".into(),
        detector: "coil_leak".into(),
        equip: "AHU-1".into(),
        class: "AHU".into(),
        finding: finding("coil_leak", Severity::Warn, vec![0, 1, 2], &[]),
        declined: Vec::new(),
        baseline_source: "period:a..b".into(),
    };
    let run = RunResult::default();
    let t = times(&["AHU-1"], 20);
    let (c, o) = (config(json!({})), RcxOptions::default());
    let findings = [df];
    let mut input = RcxInput::new(FID, "", &run, &t, &c, &o);
    input.drift_findings = &findings;
    input.drift_window = (Some(10 * H), None);
    let r = build(&input);
    assert_eq!((r.issues.len(), r.issues[0].finding_ids[0].as_str()), (1, "ahu:coil_leak@AHU-1"));
    assert_eq!(r.issues[0].hours, Some(3.0));
    assert!(r.sections.iter().any(|s| s.id == "mv"));
}

#[test]
fn degenerate_inputs_give_an_empty_valid_report() {
    let run = RunResult::default();
    let t = BTreeMap::new();
    let r = report(&run, &t, &config(json!({})), &RcxOptions::default());
    assert!(r.issues.is_empty() && r.period.is_empty());
    assert_eq!(r.kpis, Kpis::default());
    assert_eq!(r.title, "Retro-commissioning report — Test site");
    assert_eq!(r.fact_index[0].text, "The report ranks 0 issues.");
    assert_eq!(
        r.sections.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["cover", "summary", "data", "week", "appendix-a", "appendix-b", "appendix-c", "appendix-d", "appendix-e"]
    );
    // findings whose equipment has no axis, indices off the axis, NaN metrics, a fleet with no
    // known members: no panic, hours not measured
    let run = RunResult {
        findings: vec![
            rf("simultaneous_heat_cool", "GHOST", Severity::Fault, vec![7, 99], &[("simultaneous_hc_pct", f64::NAN)]),
            rf("reheat_penalty", "AHU-1", Severity::Warn, vec![u32::MAX], &[]),
            fleet("damper_census", "NOBODY", &["V-404"], Severity::Warn, &[]),
        ],
        ..Default::default()
    };
    let t = times(&["AHU-1"], 3);
    let o = loads();
    let r = report(&run, &t, &config(json!({"topology": topo()})), &o);
    assert_eq!(r.issues.len(), 3);
    assert!(issue(&r, "simultaneous_heat_cool", "GHOST").hours.is_none());
    assert_eq!(issue(&r, "reheat_penalty", "AHU-1").hours, Some(0.0));
    assert_eq!(r.period, ["1970-01-01 00:00:00", "1970-01-01 02:00:00"]);
    assert!(serde_json::to_string(&r).is_ok());
    // sections can be chosen
    let o = RcxOptions::from_report(Some(&json!({"rcx": {"sections": ["summary", "issues"]}}))).unwrap();
    let r = report(&run, &t, &config(json!({})), &o);
    assert!(r.sections.iter().all(|s| s.id == "summary" || s.id.starts_with("issue-")));
}

/// camber-synth's G36 building (six air handlers of six boxes) through a real run: every rule
/// the chains read, grouped by the generator's topology. The report must link box symptoms to
/// their air handlers and state each issue's figures.
#[test]
fn a_generated_g36_building_through_a_run() {
    use crate::run::{run as run_rules, EquipFrame, RunRequest};
    let g = camber_synth::generate("synthetic-g36-vav", None).unwrap();
    let frames: Vec<EquipFrame> = g
        .equipment
        .iter()
        .map(|e| {
            let series: Vec<&camber_synth::PointSeries> = g.series.iter().filter(|s| s.equip == e.equip).collect();
            let n = series[0].values.len();
            let ts: Vec<i64> = (0..n).map(|i| series[0].ts(i)).collect();
            let cols: Vec<(&str, Vec<f64>)> = series.iter().map(|s| (s.role.as_str(), s.values.clone())).collect();
            EquipFrame {
                equip: e.equip.clone(),
                class: e.equip_class.clone(),
                frame: crate::engine::Frame::from_rows(&ts, &cols),
            }
        })
        .collect();
    let parents: serde_json::Map<String, serde_json::Value> = g
        .equipment
        .iter()
        .filter(|e| e.equip_class == "VAV")
        .filter_map(|e| Some((e.equip.clone(), json!(format!("AHU__{}", e.equip.split_once("__")?.1)))))
        .collect();
    let c = config(json!({
        "source": {"kind": "store"},
        "equipment": [{"class": "AHU"}, {"class": "VAV"}],
        "rules": ["g36_afdd", "supply_air_reset", "unmet_setpoint_hours", "airflow_tracking", "reheat_minimization_g36",
                  "reheat_penalty", "overcooling_min_flow", "static_reset_effectiveness", "sat_reset_effectiveness",
                  "static_rogue_zone_census", "damper_census"],
        "topology": {"parents": parents, "match": "exact"},
    }));
    let r = run_rules(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
    let t: BTreeMap<String, EquipTimes> = frames.iter().map(|e| (e.equip.clone(), EquipTimes::of(&e.frame))).collect();
    let o = RcxOptions::default();
    let rep = report(&r, &t, &c, &o);
    let actionable =
        r.findings.iter().filter(|f| f.finding.severity >= Severity::Warn && f.declined.is_empty()).count();
    let members: usize = rep.issues.iter().map(|i| i.finding_ids.len()).sum();
    assert_eq!(members, actionable, "every finding at warn or fault is in exactly one issue");
    assert!(!rep.issues.is_empty());
    for i in &rep.issues {
        if let (Some(h), Some(run_h)) = (i.hours, i.running_hours) {
            assert!(h <= run_h + 1e-6, "{} flags {h} h of {run_h} running hours", i.key);
        }
        assert!(rep.fact_index.iter().any(|f| f.id == i.fact));
    }
    assert!(rep.issues.windows(2).all(|w| w[0].severity >= w[1].severity || !w[0].dependents.is_empty()));
    // the low-static air handler's starved boxes are members of its issue
    let low = rep.issues.iter().find(|i| i.equip == "AHU__low_static" && !i.zone_chains.is_empty()).unwrap();
    assert_eq!(low.zone_chains[0].chain, "static_low");
    assert!(low.zone_chains[0].boxes.len() >= 3, "{:?}", low.zone_chains);
}
