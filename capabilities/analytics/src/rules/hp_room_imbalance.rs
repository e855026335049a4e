//! `hp_room_imbalance` (a fleet rule, heat pumps): two or more heat pumps serving one room that
//! fight each other (one heats while another cools, typically because one sensor sits by cold
//! glass and another in the sun) or split the work very unevenly, or whose zone sensors disagree
//! about the one room they share. Each unit alone sees only its own sensor, so the fight is
//! visible only across them.
//!
//! Rooms come from the run config's topology: the units the topology gives one parent are one
//! room (nothing in a trend says which units share a room). Units it does not name are in no
//! room and not judged; with no room of two or more units the rule declines. Per room, on the
//! instants every unit is occupied (its occupancy point, else weekdays 07:00-18:00) with a mode
//! (`crate::heatpump`: defrosts count as heating), each unit's sample held for the time it
//! stands for, weighed by time: `fight_pct`, the share with one unit heating while another
//! cools; each unit's active share (heating or cooling) and their spread; and the median spread
//! of the units' zone temperatures. A fault from `fault_fight_pct`; a warning from
//! `warn_fight_pct`, or an active spread from `warn_duty_spread_pct`, or a sensor spread from
//! `warn_sensor_spread_f`. One finding per room, implicating its units (the busiest first) when
//! it warns; the flagged samples are the fighting instants. A room whose units fight (from
//! `warn_fight_pct`) takes over the cause of their `hp_capacity_shortfall` findings
//! (`hp_capacity_shortfall::defer_to_room_fight`).
//!
//! Unlike the reference, which gives one finding for the whole fleet, each room has its own
//! finding naming its units, so the fight is diagnosed on the units that fight; the `rooms`
//! mapping the reference also takes is not a parameter here (give the rooms as the topology).

use std::collections::BTreeMap;

use crate::engine::{round2, weighted_quantile, Finding, Frame, ParamSpec, Params, Rule, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding};
use crate::heatpump::{self, COOLING, HEATING, IDLE};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hp_room_imbalance",
        families: &["heat_pump"],
        inputs: heatpump::INPUTS,
        params: [
            vec![
                ParamSpec::number(
                    "warn_fight_pct",
                    2.0,
                    "% of co-occupied samples (one unit heating while another cools)",
                    (0.5, 10.0),
                    "units sharing a room overlap in opposite modes only briefly, at a changeover",
                    "Read fight_pct on rooms known to work in a mild season (when changeovers overlap most) and set this above it.",
                ),
                ParamSpec::number(
                    "fault_fight_pct",
                    10.0,
                    "% of co-occupied samples (one unit heating while another cools)",
                    (5.0, 40.0),
                    "a tenth of the shared time in opposite modes is a room that wastes both units' work",
                    "Keep it well above warn_fight_pct.",
                ),
                ParamSpec::number(
                    "warn_duty_spread_pct",
                    40.0,
                    "percentage points (difference between the units' active shares)",
                    (15.0, 80.0),
                    "units of one room meant to share the load should run about as often",
                    "Raise it where a room's units are unequal by design (a lead unit with a smaller helper). A warning only.",
                ),
                ParamSpec::number(
                    "warn_sensor_spread_f",
                    3.0,
                    "°F (median spread between the room's zone sensors)",
                    (1.0, 6.0),
                    "sensors in one room should read within a few degrees of each other",
                    "Set it to the sensors' accuracy plus the room's normal stratification (a spot check with a reference thermometer shows it). A warning only.",
                ),
            ],
            heatpump::band_params(),
        ]
        .concat(),
        judged_basis: "co-occupied samples with every unit's mode",
    }
}

/// One unit as the room reads it, on the fleet's axis.
struct Unit {
    equip: String,
    mode: Vec<f64>,
    occupied: Vec<bool>,
    zone: Vec<f64>,
}

fn unit(spec: &RuleSpec, fleet: &Fleet, m: usize, params: &Params, caveats: &mut Vec<String>) -> Option<Unit> {
    let member = &fleet.members[m];
    let frame: &Frame = member.frame;
    let params = params.for_equip(member.equip);
    let u = heatpump::prepare(spec, frame, &params)?;
    for c in u.caveats {
        if !caveats.contains(&c) {
            caveats.push(c);
        }
    }
    let occupied: Vec<f64> = u.occupied.iter().map(|&o| if o { 1.0 } else { 0.0 }).collect();
    Some(Unit {
        equip: member.equip.to_string(),
        mode: fleet.hold(m, &u.mode),
        occupied: fleet.hold(m, &occupied).iter().map(|&o| o == 1.0).collect(),
        zone: fleet.held(m, "space_temp")?,
    })
}

/// Judge the fleet: one finding per room of two or more units.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let rooms: Vec<_> = fleet.groups().into_iter().filter(|g| g.served && g.members.len() >= 2).collect();
    if rooms.is_empty() {
        let f = heatpump::declined(
            spec,
            "no room served by two or more heat pumps is declared (give the run config a topology whose parent of each unit is its room)",
        );
        return vec![FleetFinding { group: None, finding: f, equips: Vec::new() }];
    }
    let p = |name: &str| params.number(spec, name);
    let w = fleet.weights_hours();
    let mut out = Vec::new();
    for g in rooms {
        // the room as text names it (it comes from the data)
        let room = camber_common::text::name(g.label.as_deref().unwrap_or_default());
        let mut caveats = Vec::new();
        let units: Vec<Unit> = g.members.iter().filter_map(|&m| unit(spec, fleet, m, params, &mut caveats)).collect();
        let both: Vec<usize> = (0..fleet.times.len())
            .filter(|&i| units.len() >= 2 && units.iter().all(|u| u.occupied[i] && !u.mode[i].is_nan()))
            .collect();
        let both_h: f64 = both.iter().map(|&i| w[i]).sum();
        if both.is_empty() || both_h <= 0.0 {
            let mut f = Finding::not_judged(
                spec,
                &format!("no instant with every unit of {room} occupied and in a known mode"),
            );
            f.caveats.extend(caveats);
            out.push(FleetFinding { group: g.label, finding: f, equips: Vec::new() });
            continue;
        }
        let fights =
            |i: usize| units.iter().any(|u| u.mode[i] == HEATING) && units.iter().any(|u| u.mode[i] == COOLING);
        let flagged: Vec<u32> = both.iter().copied().filter(|&i| fights(i)).map(|i| i as u32).collect();
        let fight_pct = 100.0 * flagged.iter().map(|&i| w[i as usize]).sum::<f64>() / both_h + 0.0;
        let active: Vec<f64> = units
            .iter()
            .map(|u| 100.0 * both.iter().filter(|&&i| u.mode[i] != IDLE).map(|&i| w[i]).sum::<f64>() / both_h + 0.0)
            .collect();
        let spread = active.iter().copied().fold(f64::NEG_INFINITY, crate::engine::max_of)
            - active.iter().copied().fold(f64::INFINITY, crate::engine::min_of);
        let mut zone_spread: Vec<(f64, f64)> = both
            .iter()
            .filter_map(|&i| {
                let z: Vec<f64> = units.iter().map(|u| u.zone[i]).filter(|z| !z.is_nan()).collect();
                (z.len() >= 2).then(|| {
                    (
                        z.iter().copied().fold(f64::NEG_INFINITY, crate::engine::max_of)
                            - z.iter().copied().fold(f64::INFINITY, crate::engine::min_of),
                        w[i],
                    )
                })
            })
            .collect();
        let sensor_spread = weighted_quantile(&mut zone_spread, 0.5);
        let fight = fight_pct >= p("warn_fight_pct");
        let uneven = spread >= p("warn_duty_spread_pct");
        let apart = sensor_spread >= p("warn_sensor_spread_f");
        let severity = if fight_pct >= p("fault_fight_pct") {
            Severity::Fault
        } else if fight || uneven || apart {
            Severity::Warn
        } else {
            Severity::Ok
        };
        let mut metrics = BTreeMap::new();
        metrics.insert("fight_pct".into(), round2(fight_pct));
        metrics.insert("fights".into(), if fight { 1.0 } else { 0.0 });
        metrics.insert("active_spread_pct".into(), round2(spread));
        if !sensor_spread.is_nan() {
            metrics.insert("zone_sensor_spread_f".into(), round2(sensor_spread));
        }
        metrics.insert("co_occupied_hours".into(), round2(both_h));
        metrics.insert("n_units".into(), units.len() as f64);
        for (u, a) in units.iter().zip(&active) {
            metrics.insert(format!("active_pct.{}", u.equip), round2(*a));
        }
        let spread_text = if sensor_spread.is_nan() {
            String::new()
        } else {
            format!(", zone sensors {sensor_spread:.1} °F apart at the median")
        };
        let names: Vec<String> = units.iter().map(|u| camber_common::text::name(&u.equip)).collect();
        let summary = if severity == Severity::Ok {
            format!(
                "the {} units in {room} work together: opposite modes {fight_pct:.1}% of {both_h:.1} shared occupied hours, active shares {spread:.0} points apart{spread_text}",
                units.len()
            )
        } else {
            let mut why = Vec::new();
            if fight {
                why.push(format!("one heats while another cools {fight_pct:.1}% of {both_h:.1} shared occupied hours"));
            }
            if uneven {
                why.push(format!("their active shares differ by {spread:.0} points"));
            }
            if apart {
                why.push(format!("their zone sensors read {sensor_spread:.1} °F apart at the median"));
            }
            let advice = if fight || apart {
                "check where each unit's zone sensor sits and whether both follow one setpoint"
            } else {
                "check the units' setpoints and staging"
            };
            format!("{} in {room}: {} -- {advice}", names.join(" and "), why.join("; "))
        };
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|&a, &b| active[b].total_cmp(&active[a]).then(a.cmp(&b)));
        let equips = if severity >= Severity::Warn {
            order.iter().map(|&k| units[k].equip.clone()).collect()
        } else {
            Vec::new()
        };
        let finding = Finding::new(spec, severity, summary)
            .with_caveats(caveats)
            .with_metrics(metrics)
            .with_flagged(flagged)
            .with_judged(both.len());
        out.push(FleetFinding { group: g.label, finding, equips });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, fleet, numbers, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::run::{run, EquipFrame, RunRequest};
    use serde_json::json;

    /// A water-source unit over `n` occupied hours: its zone at `zone(i)`, heating where
    /// `mode(i)` is 1 (discharge 25 °F above the zone), cooling at -1 (15 °F below), idle at 0.
    fn unit_frame(n: usize, step: i64, zone: impl Fn(usize) -> f64, mode: impl Fn(usize) -> f64) -> Frame {
        let z: Vec<f64> = (0..n).map(zone).collect();
        let rise = |m: f64| {
            if m > 0.0 {
                25.0
            } else if m < 0.0 {
                -15.0
            } else {
                0.0
            }
        };
        Frame::from_rows(
            &every(MONDAY, step, n),
            &[
                ("supply_air_temp", (0..n).map(|i| z[i] + rise(mode(i))).collect()),
                ("space_temp", z),
                ("heat_sp", vec![68.0; n]),
                ("cool_sp", vec![76.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// Two units that agree: both heat the first half of each 10 hours, then idle.
    fn agreeing() -> (Frame, Frame) {
        let m = |i: usize| if i % 10 < 5 { 1.0 } else { 0.0 };
        (unit_frame(100, H, |_| 70.0, m), unit_frame(100, H, |_| 70.5, m))
    }

    /// Two units that fight for `k` hours of every 10: the window unit heats while the door
    /// unit cools.
    fn fighting(k: usize) -> (Frame, Frame) {
        let window = unit_frame(100, H, |_| 66.0, move |i| if i % 10 < k { 1.0 } else { 0.0 });
        let door = unit_frame(100, H, |_| 70.0, move |i| if i % 10 < k { -1.0 } else { 0.0 });
        (window, door)
    }

    fn room(a: &Frame, b: &Frame, p: &Params) -> Vec<FleetFinding> {
        fleet(&RULE, &[("HP-W", Some("ROOM_B"), a), ("HP-D", Some("ROOM_B"), b)], p)
    }

    #[test]
    fn units_that_agree_are_ok() {
        let (a, b) = agreeing();
        let f = room(&a, &b, &Params::default());
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].finding.severity, f[0].group.as_deref()),
            (Severity::Ok, Some("ROOM_B")),
            "{}",
            f[0].finding.summary
        );
        let m = &f[0].finding.metrics;
        assert_eq!(
            (m["fight_pct"], m["fights"], m["active_spread_pct"], m["zone_sensor_spread_f"]),
            (0.0, 0.0, 0.0, 0.5)
        );
        assert!(f[0].equips.is_empty() && f[0].finding.flagged.is_empty());
    }

    #[test]
    fn a_fight_is_found_and_names_both_units() {
        let (a, b) = fighting(6);
        let f = room(&a, &b, &Params::default());
        let r = &f[0];
        assert_eq!(
            (r.finding.severity, r.finding.metrics["fight_pct"], r.finding.metrics["fights"]),
            (Severity::Fault, 60.0, 1.0)
        );
        assert_eq!(r.equips.len(), 2);
        assert!(r.finding.summary.contains("one heats while another cools 60.0%"), "{}", r.finding.summary);
        assert_eq!(r.finding.flagged.len(), 60);
        assert_eq!(r.finding.metrics["zone_sensor_spread_f"], 4.0);
    }

    #[test]
    fn the_levels_at_their_boundaries() {
        let sev = |k: usize, p: &Params| room(&fighting(k).0, &fighting(k).1, p)[0].finding.severity;
        // 10 % fights: the fault level; 2 % would warn (sensor spread disabled here)
        let quiet = numbers(&[("warn_sensor_spread_f", 6.0)]);
        assert_eq!(sev(1, &quiet), Severity::Fault);
        assert_eq!(sev(1, &numbers(&[("warn_sensor_spread_f", 6.0), ("fault_fight_pct", 10.01)])), Severity::Warn);
        assert_eq!(
            sev(1, &numbers(&[("warn_sensor_spread_f", 6.0), ("fault_fight_pct", 40.0), ("warn_fight_pct", 10.01)])),
            Severity::Ok
        );
        // the sensors 4 °F apart warn at 3 °F, not at 4.01
        assert_eq!(sev(0, &Params::default()), Severity::Warn);
        assert_eq!(sev(0, &numbers(&[("warn_sensor_spread_f", 4.0)])), Severity::Warn);
        assert_eq!(sev(0, &numbers(&[("warn_sensor_spread_f", 4.01)])), Severity::Ok);
        // one unit doing all the work: active shares 50 points apart warn at 40, not at 50.01
        let a = unit_frame(100, H, |_| 70.0, |i| if i % 10 < 5 { 1.0 } else { 0.0 });
        let b = unit_frame(100, H, |_| 70.0, |_| 0.0);
        let r = room(&a, &b, &Params::default());
        assert_eq!((r[0].finding.severity, r[0].finding.metrics["active_spread_pct"]), (Severity::Warn, 50.0));
        assert_eq!(r[0].equips, ["HP-W", "HP-D"], "the busier unit first");
        assert!(r[0].finding.summary.contains("active shares differ by 50 points"), "{}", r[0].finding.summary);
        assert_eq!(room(&a, &b, &numbers(&[("warn_duty_spread_pct", 50.01)]))[0].finding.severity, Severity::Ok);
    }

    #[test]
    fn rooms_come_from_the_topology() {
        let (a, b) = fighting(6);
        let (c, d) = agreeing();
        let f = fleet(
            &RULE,
            &[
                ("W", Some("ROOM_B"), &a),
                ("D", Some("ROOM_B"), &b),
                ("C1", Some("ROOM_A"), &c),
                ("C2", Some("ROOM_A"), &d),
                ("ALONE", None, &c),
            ],
            &Params::default(),
        );
        let groups: Vec<(Option<&str>, Severity)> =
            f.iter().map(|x| (x.group.as_deref(), x.finding.severity)).collect();
        assert_eq!(groups, [(Some("ROOM_A"), Severity::Ok), (Some("ROOM_B"), Severity::Fault)]);
        // no room of two units: declined
        let f = fleet(&RULE, &[("W", None, &a), ("D", Some("ROOM_B"), &b)], &Params::default());
        assert_eq!((f.len(), f[0].finding.severity), (1, Severity::Info));
        assert!(f[0].finding.summary.contains("no room served by two or more heat pumps"), "{}", f[0].finding.summary);
    }

    #[test]
    fn only_co_occupied_instants_are_judged_and_units_are_held_for_their_interval() {
        let (a, mut b) = fighting(6);
        b.cols.insert("occupancy".into(), (0..100).map(|i| if i < 50 { 0.0 } else { 1.0 }).collect());
        let r = &room(&a, &b, &Params::default())[0];
        assert_eq!((r.finding.judged, r.finding.metrics["co_occupied_hours"]), (50, 50.0));
        // one unit trended every 15 minutes, the other hourly: the hourly one holds its mode
        let fast = unit_frame(400, 15 * MINUTE, |_| 66.0, |i| if (i / 4) % 10 < 6 { 1.0 } else { 0.0 });
        let (_, slow) = fighting(6);
        let r = &room(&fast, &slow, &Params::default())[0];
        assert!((r.finding.metrics["fight_pct"] - 60.0).abs() < 0.5, "{:?}", r.finding.metrics);
        assert!((r.finding.metrics["co_occupied_hours"] - 100.0).abs() < 0.5, "{:?}", r.finding.metrics);
    }

    #[test]
    fn a_gap_is_not_judged_time() {
        let (a, b) = fighting(6);
        let keep: Vec<usize> = (0..100).filter(|i| !(20..40).contains(i)).collect();
        let cut = |f: &Frame| {
            Frame::from_rows(
                &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
                &f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
            )
        };
        let r = &room(&cut(&a), &cut(&b), &Params::default())[0];
        assert_eq!(r.finding.metrics["co_occupied_hours"], 80.5);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let (a, b) = fighting(3);
        let base = room(&a, &b, &Params::default());
        let (sa, sb) = (shuffled_with_duplicates(&a), shuffled_with_duplicates(&b));
        let again = room(&sa, &sb, &Params::default());
        assert_eq!(base[0].finding, again[0].finding);
        assert_eq!(base[0].equips, again[0].equips);
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        let (a, _) = fighting(6);
        let empty = Frame::from_rows(
            &every(MONDAY, H, 3),
            &[("supply_air_temp", vec![f64::NAN, 90.0, f64::NAN]), ("space_temp", vec![70.0, f64::NAN, 70.0])],
        );
        let r = room(&a, &empty, &Params::default());
        assert_eq!(r[0].finding.severity, Severity::Info);
        let one = unit_frame(1, H, |_| 70.0, |_| 1.0);
        let r = room(&one, &one, &Params::default());
        assert_eq!(r[0].finding.severity, Severity::Ok);
        assert!(fleet(&RULE, &[], &Params::default())[0].finding.severity == Severity::Info);
    }

    /// Through a run: the room's finding names its units, its members are the room's, a unit
    /// short of its inputs is a skip, and the capacity findings of a fighting room's units are
    /// deferred to it.
    #[test]
    fn through_a_run_the_fight_takes_over_the_capacity_findings() {
        // the window unit heats a room its sensor reads cold, the door unit cools one its
        // sensor reads warm, 60 % of the time each
        let window =
            unit_frame(100, H, |i| if i % 10 < 6 { 64.0 } else { 69.0 }, |i| if i % 10 < 6 { 1.0 } else { 0.0 });
        let door =
            unit_frame(100, H, |i| if i % 10 < 6 { 79.0 } else { 72.0 }, |i| if i % 10 < 6 { -1.0 } else { 0.0 });
        let alone = window.clone();
        let mut blind = window.clone();
        blind.cols.remove("space_temp");
        let frames = [
            EquipFrame { equip: "WSHP__window".into(), class: "WSHP".into(), frame: window },
            EquipFrame { equip: "WSHP__door".into(), class: "WSHP".into(), frame: door },
            EquipFrame { equip: "WSHP__alone".into(), class: "WSHP".into(), frame: alone },
            EquipFrame { equip: "WSHP__blind".into(), class: "WSHP".into(), frame: blind },
        ];
        let config = |rules: serde_json::Value| {
            RunConfig::from_value(&json!({
                "equipment": [{"class": "WSHP"}],
                "rules": rules,
                "topology": {"parents": {"WSHP__window": "ROOM_B", "WSHP__door": "ROOM_B", "WSHP__blind": "ROOM_B"}},
            }))
            .unwrap()
        };
        let req = RunRequest { min_trust: 0.5, ..Default::default() };
        let r = run(&config(json!(["hp_capacity_shortfall", "hp_room_imbalance"])), &req, &frames, &[]).unwrap();
        let room = r.findings.iter().find(|f| f.finding.rule == "hp_room_imbalance").unwrap();
        assert_eq!((room.id.as_str(), room.finding.severity), ("hp_room_imbalance@<fleet:ROOM_B>", Severity::Fault));
        assert_eq!(room.members, ["WSHP__window", "WSHP__door"]);
        let mut equips = room.equips.clone();
        equips.sort();
        assert_eq!(equips, ["WSHP__door", "WSHP__window"]);
        assert!(r.skipped.iter().any(|s| s.rule == "hp_room_imbalance" && s.equip == "WSHP__blind"));
        let capacity =
            |e: &str| r.findings.iter().find(|f| f.finding.rule == "hp_capacity_shortfall" && f.equip == e).unwrap();
        for e in ["WSHP__window", "WSHP__door"] {
            let f = capacity(e);
            assert_eq!(f.finding.severity, Severity::Fault, "{}", f.finding.summary);
            let m = &f.finding.metrics;
            assert_eq!((m["verdict_room_fight"], m["verdict_capacity"], m["verdict_alone_capacity"]), (1.0, 0.0, 1.0));
            assert!(f.finding.summary.contains("the units in \"ROOM_B\" fight"), "{}", f.finding.summary);
            assert!(f.finding.caveats.iter().any(|c| c.starts_with("cause deferred to hp_room_imbalance")));
        }
        // the unit in no room keeps its capacity verdict
        let f = capacity("WSHP__alone");
        assert_eq!((f.finding.metrics["verdict_capacity"], f.finding.metrics.get("verdict_room_fight")), (1.0, None));
        // without the fleet rule nothing is deferred
        let r = run(&config(json!(["hp_capacity_shortfall"])), &req, &frames, &[]).unwrap();
        assert!(r.findings.iter().all(|f| !f.finding.metrics.contains_key("verdict_room_fight")));
    }
}
