//! The drift detectors against camber-synth's drifting buildings: a drift the data holds is
//! found in the window where it shows, and its healthy twin is not flagged.

mod common;

use camber_analytics::drift::{self, judge};
use camber_analytics::engine::{Outcome, Params, Severity};
use common::{frame_of, window as days};

#[test]
fn a_cooling_valve_that_starts_to_leak_is_found_and_its_twin_is_not() {
    let g = camber_synth::generate("synthetic-ahu-leak-drift", None).unwrap();
    let leak = drift::spec("coil_leak_drift").unwrap();
    let valve = drift::spec("coil_valve_drift").unwrap();
    for e in &g.equipment {
        let f = frame_of(&g, &e.equip);
        let (base, cur) = (days(&f, 0, 14), days(&f, 42, 56));
        let Outcome::Findings(v) = judge(&leak, &base, &cur, &Params::default()) else { panic!("{}", e.equip) };
        let finding = &v[0];
        if e.label == "growing_cool_valve_leak" {
            assert_eq!(finding.severity, Severity::Fault, "{}: {}", e.equip, finding.summary);
            assert!(finding.metrics["coil_leak_cooling_drift_f"] < -3.0, "{:?}", finding.metrics);
            assert!(finding.summary.contains("uncommanded cooling"), "{}", finding.summary);
        } else {
            assert!(finding.severity <= Severity::Ok, "{}: {}", e.equip, finding.summary);
            assert!(finding.judged > 0, "{}: {}", e.equip, finding.summary);
        }
        // neither unit's coil valves are flagged (early April has almost no mechanical cooling
        // with the damper near its minimum, so the valve detector declines rather than passes)
        let Outcome::Findings(v) = judge(&valve, &base, &cur, &Params::default()) else { panic!() };
        assert!(v[0].severity < Severity::Warn, "{}: {}", e.equip, v[0].summary);
    }
}

#[test]
fn a_tower_whose_fill_fouls_is_found_and_its_clean_twin_is_not() {
    let approach = drift::spec("cooling_tower_approach_drift").unwrap();
    let effort = drift::spec("cooling_tower_fan_effort_drift").unwrap();
    let fam = drift::families::family("tower").unwrap();
    for seed in [None, Some(1), Some(0xDEAD_BEEF)] {
        let g = camber_synth::generate("synthetic-tower-fouling-drift", seed).unwrap();
        for e in &g.equipment {
            let f = frame_of(&g, &e.equip);
            let (base, cur) = (days(&f, 0, 14), days(&f, 28, 42));
            let one = |s: &drift::DetectorSpec| match judge(s, &base, &cur, &Params::default()) {
                Outcome::Findings(mut v) => v.remove(0),
                o => panic!("{}: {o:?}", e.equip),
            };
            let (a, b) = (one(&approach), one(&effort));
            let d = (fam.diagnose)(
                fam,
                &e.equip,
                &[("cooling_tower_approach_drift", &a), ("cooling_tower_fan_effort_drift", &b)],
            );
            if e.label == "tower_fouling_over_time" {
                // a fill that fouls widens the approach at full fan and spends fan where it has
                // headroom: at least one of the two reads it, and the roll-up names the tower
                assert!(
                    a.severity.max(b.severity) >= Severity::Warn,
                    "{seed:?} {}: {} / {}",
                    e.equip,
                    a.summary,
                    b.summary
                );
                assert!(a.metrics["tower_approach_drift_f"] > 1.5, "{seed:?}: {:?}", a.metrics);
                assert_eq!(
                    (d.severity >= Severity::Warn, d.locus.as_str()),
                    (true, "tower"),
                    "{seed:?}: {}",
                    d.summary
                );
                if seed.is_none() {
                    assert_eq!(
                        (a.severity, b.severity),
                        (Severity::Warn, Severity::Warn),
                        "{} / {}",
                        a.summary,
                        b.summary
                    );
                }
            } else {
                for x in [&a, &b] {
                    assert!(x.severity <= Severity::Ok && x.judged > 100, "{seed:?} {}: {}", e.equip, x.summary);
                }
                assert_eq!(d.locus, "steady");
            }
        }
    }
}

#[test]
fn no_rule_written_for_towers_flags_the_clean_twin() {
    let g = camber_synth::generate("synthetic-tower-fouling-drift", None).unwrap();
    let f = frame_of(&g, "TOWER__clean");
    let mut judged = 0;
    for r in camber_analytics::rules::all().into_iter().filter(|r| !r.is_fleet()) {
        let spec = (r.spec)();
        if !spec.families.iter().any(|fam| camber_analytics::family::class_matches("COOLING_TOWER", fam)) {
            continue;
        }
        if let Outcome::Findings(v) = r.evaluate(&spec, &f, &Params::default()) {
            judged += 1;
            for x in v {
                assert!(x.severity <= Severity::Info, "{}: {}", spec.id, x.summary);
            }
        }
    }
    assert!(judged >= 2, "{judged} tower rules ran");
}
