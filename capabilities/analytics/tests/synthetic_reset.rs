//! The Guideline 36 reset rules (`sat_reset_effectiveness`, `static_reset_effectiveness`,
//! `supply_air_reset_compliance`) against camber-synth's labelled buildings: the static setpoint
//! held too low and the supply air held at 50 °F are found, and no unit labelled healthy warns.

mod common;

use camber_analytics::engine::{Outcome, Params, Severity};
use camber_analytics::rules;
use common::{frame_of, verdict};

const RULES: [&str; 3] = ["sat_reset_effectiveness", "static_reset_effectiveness", "supply_air_reset_compliance"];

/// The rule's summary on a frame, for the report printed on failure.
fn summary(rule: &str, f: &camber_analytics::Frame) -> String {
    let r = rules::all().into_iter().find(|r| (r.spec)().id == rule).expect("rule exists");
    match r.evaluate(&(r.spec)(), f, &Params::default()) {
        Outcome::Findings(v) => v.iter().map(|x| x.summary.clone()).collect::<Vec<_>>().join(" | "),
        Outcome::Skipped { missing } => format!("skipped: {}", missing.join(", ")),
    }
}

#[test]
fn g36_air_handlers() {
    let g = camber_synth::generate("synthetic-g36-vav", None).unwrap();
    let mut seen = Vec::new();
    let mut checks = Vec::new();
    for e in g.equipment.iter().filter(|e| e.equip_class == "AHU") {
        let f = frame_of(&g, &e.equip);
        let [sat, stat, comp] = RULES.map(|r| verdict(r, &f));
        seen.push(format!("{} [{}]: sat {sat:?}, static {stat:?}, compliance {comp:?}", e.equip, e.label));
        for r in RULES {
            seen.push(format!("    {r}: {}", summary(r, &f)));
        }
        // every unit trends both request counts: no rule is skipped
        checks.push((e.equip.clone(), [sat, stat, comp].iter().all(Option::is_some)));
        match (e.label.as_str(), e.scenario.as_str()) {
            ("static_too_low", _) => {
                checks.push((format!("{}: static {stat:?}", e.equip), stat == Some(Severity::Warn)))
            }
            // supply air held at a fixed 50 °F while the zones ask for nothing
            (_, "reheat_overlap") => {
                checks.push((format!("{}: sat {sat:?}", e.equip), sat == Some(Severity::Warn)));
                checks.push((format!("{}: compliance {comp:?}", e.equip), comp == Some(Severity::Warn)));
                checks.push((format!("{}: static {stat:?}", e.equip), stat.is_some_and(|s| s <= Severity::Info)));
            }
            ("", _) => {
                for (r, v) in RULES.iter().zip([sat, stat, comp]) {
                    checks.push((format!("{}: {r} {v:?}", e.equip), v.is_some_and(|s| s <= Severity::Info)));
                }
            }
            _ => {}
        }
    }
    let report = seen.join("\n");
    eprintln!("{report}");
    for (what, ok) in &checks {
        assert!(ok, "{what}\n{report}");
    }
    assert!(checks.len() >= 6 + 1 + 3 + 4 * 3, "every scenario checked: {}", checks.len());
}

#[test]
fn economizer_air_handlers_without_requests() {
    // no request counts trended: the effectiveness rules are skipped, and the compliance rule
    // judges against G36's default map, which is not these units' own reset
    let g = camber_synth::generate("synthetic-ahu-economizer", None).unwrap();
    let mut seen = Vec::new();
    for e in &g.equipment {
        let f = frame_of(&g, &e.equip);
        let [sat, stat, comp] = RULES.map(|r| verdict(r, &f));
        seen.push(format!("{} [{}]: compliance {comp:?}: {}", e.equip, e.label, summary(RULES[2], &f)));
        assert_eq!((sat, stat), (None, None), "{}", e.equip);
        assert!(comp.is_some(), "{}", e.equip);
        if e.label.is_empty() {
            assert!(comp <= Some(Severity::Info), "{}: {comp:?}\n{}", e.equip, seen.join("\n"));
        }
    }
    eprintln!("{}", seen.join("\n"));
}
