use super::super::families::family;
use super::*;

/// A judged finding of `rule` at `sev` with the given metrics.
fn f(rule: &'static str, sev: Severity, metrics: &[(&str, f64)]) -> Finding {
    let mut x = Finding::of(rule, "", sev, format!("{rule} {sev:?}"));
    x.judged = 100;
    x.metrics = metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    x
}

fn approach(cond: Severity, evap: Severity) -> Finding {
    let code = super::super::chiller::grade_code;
    f(
        APPROACH,
        cond.max(evap),
        &[("cond_severity", code(cond)), ("cond_drift_f", 1.5), ("evap_severity", code(evap)), ("evap_drift_f", 1.2)],
    )
}

fn diag(name: &str, fs: &[&Finding]) -> Diagnosis {
    let fam = family(name).unwrap();
    let pairs: Vec<(&str, &Finding)> = fs.iter().map(|x| (x.rule, *x)).collect();
    (fam.diagnose)(fam, "CH-1", &pairs)
}

use Severity::{Fault, Ok as Fine, Warn};

#[test]
fn the_families_use_these_roll_ups() {
    let ok = approach(Fine, Fine);
    for name in ["chiller", "condenser", "evaporator"] {
        let d = diag(name, &[&ok]);
        assert_eq!((d.family.as_str(), d.severity, d.locus.as_str()), (name, Fine, "steady"), "{name}");
        assert!(d.summary.starts_with(&format!("CH-1: no {name} drift")), "{}", d.summary);
    }
    // nothing judged: not a pass
    let mut nj = Finding::of(SUBCOOLING, "", Severity::Info, "not judged: no baseline: too few");
    nj.judged = 0;
    let d = diag("chiller", &[&nj]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Info, "steady"));
    assert!(d.caveats.iter().any(|c| c.contains("chiller_subcooling_drift did not judge")), "{:?}", d.caveats);
    assert!(d.caveats.iter().any(|c| c.contains("chiller_head_pressure_drift gave no finding")), "{:?}", d.caveats);
}

#[test]
fn the_condenser_side_judges_the_approach_on_its_condenser_leg_alone() {
    // an evaporator-leg fault is not a condenser drift
    let d = diag("condenser", &[&approach(Fine, Fault)]);
    assert_eq!((d.severity, d.locus.as_str()), (Fine, "steady"), "{}", d.summary);
    let d = diag("condenser", &[&approach(Warn, Fine)]);
    assert_eq!((d.severity, d.locus.as_str()), (Warn, "condenser"));
    assert!(d.summary.contains("condenser tube fouling or scale: its approach widened (+1.5 °F)"), "{}", d.summary);
}

#[test]
fn a_head_pressure_rise_is_placed_with_what_moves_beside_it() {
    let head = f(HEAD, Fault, &[("head_pressure_drift_psi", 6.0)]);
    // with the condenser approach: the condenser, corroborated (the simulator's tube scaling)
    let d = diag("condenser", &[&approach(Warn, Fine), &head]);
    assert_eq!((d.severity, d.locus.as_str(), d.loci.clone()), (Fault, "condenser", vec!["condenser".to_string()]));
    assert!(d.summary.contains("fouling or scale reaching the high side"), "{}", d.summary);
    assert!(d.caveats.iter().any(|c| c.contains("2 condenser signals drift together")), "{:?}", d.caveats);
    // alone: the high side (non-condensables)
    let d = diag("condenser", &[&approach(Fine, Fine), &head]);
    assert_eq!(d.locus, "high_side");
    assert!(d.summary.contains("non-condensables"), "{}", d.summary);
    // with the tower: the tower, and a warmer entering water is then explained
    let hot =
        f(HEAD, Warn, &[("head_pressure_drift_psi", 3.0), ("cw_supply_confound", 1.0), ("cw_supply_shift_f", 3.0)]);
    let tower = f(TOWER, Warn, &[]);
    let d = diag("condenser", &[&approach(Fine, Fine), &hot, &tower]);
    assert_eq!(d.locus, "tower");
    assert!(d.caveats.iter().any(|c| c.contains("which the tower corroborates")), "{:?}", d.caveats);
    // the same warmer water with the tower quiet: likely weather
    let d = diag("condenser", &[&approach(Fine, Fine), &hot, &f(TOWER, Fine, &[])]);
    assert_eq!(d.locus, "high_side");
    assert!(d.caveats.iter().any(|c| c.contains("likely weather")), "{:?}", d.caveats);
    // the range says which way the water moved; two parts drifting are several
    let low = f(CW_RANGE, Warn, &[("cw_range_drift_f", 1.8)]);
    let d = diag("condenser", &[&low]);
    assert_eq!(d.locus, "condenser_water");
    assert!(d.summary.contains("less condenser-water flow"), "{}", d.summary);
    let by = f(CW_RANGE, Warn, &[("cw_range_drift_f", -2.0)]);
    assert!(diag("condenser", &[&by]).summary.contains("bypassing"));
    let d = diag("condenser", &[&approach(Warn, Fine), &low]);
    assert_eq!((d.locus.as_str(), d.loci.len()), ("several", 2));
    // all three heat-rejection reads at once: plant-wide
    let d = diag("condenser", &[&approach(Warn, Fine), &head, &tower]);
    assert!(d.caveats.iter().any(|c| c.contains("plant-wide cause")), "{:?}", d.caveats);
}

#[test]
fn superheat_and_suction_pressure_are_read_as_one_feed_axis() {
    // overfed: superheat down, suction up (the simulator's overfeed)
    let sh_down = f(SUPERHEAT, Warn, &[("superheat_drift_f", -3.0)]);
    let sp_up = f(SUCTION, Warn, &[("suction_pressure_drift_psi", 3.4)]);
    let d = diag("evaporator", &[&approach(Fine, Fine), &sh_down, &sp_up]);
    assert_eq!((d.severity, d.locus.as_str()), (Warn, "feed"));
    assert!(d.caveats.iter().any(|c| c.contains("agree the evaporator is overfed")), "{:?}", d.caveats);
    // starved: superheat up, suction down
    let sh_up = f(SUPERHEAT, Fault, &[("superheat_drift_f", 5.0)]);
    let sp_down = f(SUCTION, Warn, &[("suction_pressure_drift_psi", -3.4)]);
    let d = diag("evaporator", &[&sh_up, &sp_down]);
    assert_eq!((d.severity, d.locus.as_str()), (Fault, "feed"));
    assert!(d.caveats.iter().any(|c| c.contains("agree the evaporator is starved")), "{:?}", d.caveats);
    // disagreeing: ambiguous
    let d = diag("evaporator", &[&sh_up, &sp_up]);
    assert!(d.caveats.iter().any(|c| c.contains("disagree")), "{:?}", d.caveats);
    // a falling suction beside a widening approach, superheat steady: heat transfer
    let d = diag("evaporator", &[&approach(Fine, Warn), &sp_down, &f(SUPERHEAT, Fine, &[])]);
    assert_eq!(d.locus, "evaporator");
    assert!(d.caveats.iter().any(|c| c.contains("heat transfer (fouling), not its feed")), "{:?}", d.caveats);
    // a suction rise beside a chilled-water reset the baseline could not match on (the
    // simulator's chw_reset): a caveat that it is likely the reset
    let reset = f(
        SUCTION,
        Warn,
        &[("suction_pressure_drift_psi", 3.0), ("chw_supply_confound", 1.0), ("chw_supply_shift_f", 2.0)],
    );
    let d = diag("evaporator", &[&reset, &f(SUPERHEAT, Fine, &[])]);
    assert!(d.caveats.iter().any(|c| c.contains("likely a chilled-water reset")), "{:?}", d.caveats);
    // the condenser leg does not count on this side
    assert_eq!(diag("evaporator", &[&approach(Fault, Fine)]).severity, Fine);
}

#[test]
fn the_chiller_roll_up_localizes_one_side_both_or_the_charge() {
    let head = f(HEAD, Fault, &[("head_pressure_drift_psi", 6.0)]);
    let sp_down = f(SUCTION, Warn, &[("suction_pressure_drift_psi", -3.4)]);
    let sc_down = f(SUBCOOLING, Warn, &[("subcooling_drift_f", -1.6)]);
    let d = diag("chiller", &[&approach(Warn, Fine), &head]);
    assert_eq!((d.severity, d.locus.as_str(), d.loci.clone()), (Fault, "condenser", vec!["condenser".to_string()]));
    assert!(d.summary.starts_with("CH-1: chiller drift (condenser): condenser: "), "{}", d.summary);
    let d = diag("chiller", &[&approach(Fine, Fine), &sp_down]);
    assert_eq!(d.locus, "evaporator");
    // both sides: circuit-wide, and the subcooling corroborates the charge
    let d = diag("chiller", &[&approach(Fine, Fine), &head, &sp_down, &sc_down]);
    assert_eq!(
        (d.severity, d.locus.as_str(), d.loci.clone()),
        (
            Fault,
            "whole_machine",
            vec!["condenser".to_string(), "evaporator".to_string(), "refrigerant_charge".to_string()]
        )
    );
    assert!(d.summary.ends_with("circuit-wide, gauge the whole machine"), "{}", d.summary);
    assert!(d.caveats.iter().any(|c| c.contains("points at the charge")), "{:?}", d.caveats);
    // the subcooling alone
    let d = diag("chiller", &[&approach(Fine, Fine), &sc_down]);
    assert_eq!((d.severity, d.locus.as_str()), (Warn, "refrigerant_charge"));
    assert!(d.summary.contains("an undercharge or a leak"), "{}", d.summary);
    assert!(d.caveats.iter().any(|c| c.contains("both heat exchangers steady")), "{:?}", d.caveats);
    // beside one side: read together
    let up = f(SUBCOOLING, Warn, &[("subcooling_drift_f", 1.6)]);
    let d = diag("chiller", &[&approach(Fine, Fine), &head, &up]);
    assert_eq!(d.locus, "condenser");
    assert!(d.caveats.iter().any(|c| c.contains("beside the condenser side")), "{:?}", d.caveats);
    assert!(d.summary.contains("an overcharge or non-condensables"), "{}", d.summary);
    // the approach's own severity is what the chiller family lists
    let d = diag("chiller", &[&approach(Fine, Fault)]);
    assert_eq!((d.severity, d.signals[APPROACH].0, d.locus.as_str()), (Fault, Fault, "evaporator"));
}
