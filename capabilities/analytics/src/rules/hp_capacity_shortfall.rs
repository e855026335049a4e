//! `hp_capacity_shortfall`: a room out of its band while its heat pump already runs the mode it
//! needs. Of the occupied time with the room below its heating band, the share with the unit
//! heating says what is wrong: high, the unit gives all it has and it is not enough (undersized,
//! short of air, a cold source loop, lost charge, failed strip heat); low, the unit sat idle
//! while the room was cold, which is a control problem (the thermostat, the setpoints, the
//! schedule), not capacity. The cooling side is judged the same way and the worse side sets the
//! finding.
//!
//! Judged on the occupied samples with a mode (`crate::heatpump`: defrosts count as heating)
//! and a zone temperature, weighed by time. A side counts once the room has been out of band for
//! `min_hours` and `warn_outside_pct` of the judged time; from `fault_outside_pct` it is a fault.
//! Its verdict is capacity when the unit ran the needed mode for at least `saturated_pct` of the
//! out-of-band time, control at or under `idle_pct`, and mixed between (a warning at most). A
//! unit running the other way while out of band is not idle: the summary says how the time was
//! spent (a stuck reversing valve reads as control). The flagged samples are the worse side's
//! out-of-band time. The verdict is in the metrics as one of `verdict_capacity`,
//! `verdict_control`, `verdict_mixed` set to 1, and the side as `shortfall_side` (1 heating, -1
//! cooling).
//!
//! Two units fighting in one room each see their own sensor out of band while they work, which
//! alone reads as a capacity shortfall. When `hp_room_imbalance` runs in the same run and finds
//! the room's units fighting, a warning or fault with a capacity or mixed verdict on a unit of
//! that room is deferred to it ([`defer_to_room_fight`]): its verdict becomes
//! `verdict_room_fight` (the verdict alone kept as `verdict_alone_capacity` or
//! `verdict_alone_mixed`), and its summary and a caveat name the fight and the room. Its
//! severity stands, since the room is out of band; a control verdict stands too.

use std::collections::BTreeMap;

use crate::engine::{round2, Condition, Finding, Frame, Outcome, ParamSpec, Params, Placed, Rule, RuleSpec, Severity};
use crate::heatpump::{self, hours, COOLING, HEATING};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hp_capacity_shortfall",
        families: &["heat_pump"],
        inputs: heatpump::INPUTS,
        params: [
            vec![
                ParamSpec::number(
                    "warn_outside_pct",
                    10.0,
                    "% of occupied samples with a mode and zone temperature (per side)",
                    (2.0, 30.0),
                    "a room out of its band for a tenth of its occupied time is noticed by the people in it",
                    "Read heating_outside_pct and cooling_outside_pct on healthy units of the site in like weather and set this above the highest.",
                ),
                ParamSpec::number(
                    "fault_outside_pct",
                    25.0,
                    "% of occupied samples with a mode and zone temperature (per side)",
                    (10.0, 60.0),
                    "a quarter of the occupied time out of band is a room its unit cannot hold",
                    "Keep it well above warn_outside_pct; a design-day cold snap alone may take a sound unit to it, so judge it on ordinary weather.",
                ),
                ParamSpec::number(
                    "saturated_pct",
                    70.0,
                    "% of the out-of-band samples with the unit running in the needed mode",
                    (50.0, 95.0),
                    "a unit working most of the time its room is out of band has nothing left to give",
                    "Keep it well above idle_pct. At or above it the verdict is capacity.",
                ),
                ParamSpec::number(
                    "idle_pct",
                    30.0,
                    "% of the out-of-band samples with the unit running in the needed mode",
                    (5.0, 50.0),
                    "a unit mostly idle while its room is out of band was not asked to work: control, not capacity",
                    "Keep it well below saturated_pct. At or below it the verdict is control.",
                ),
                ParamSpec::number(
                    "min_hours",
                    4.0,
                    "h (occupied hours out of band, per side)",
                    (1.0, 24.0),
                    "half a working day out of band, so one cold morning cannot rate a unit",
                    "Raise it on long records; a side with fewer hours out of band is not judged.",
                ),
            ],
            heatpump::band_params(),
        ]
        .concat(),
        judged_basis: "occupied samples with a mode and a zone temperature",
    }
}

/// The verdicts, as their metric names.
const VERDICTS: [&str; 4] = ["verdict_capacity", "verdict_control", "verdict_mixed", "verdict_room_fight"];

/// One side (heating or cooling) of a unit.
struct Side {
    name: &'static str,
    /// The mode that side needs.
    want: f64,
    out: Vec<u32>,
    outside_h: f64,
    outside_pct: f64,
    /// Shares (%) of the out-of-band time in the needed mode, and in the other one (`None`:
    /// never out of band).
    working_pct: Option<f64>,
    opposite_pct: Option<f64>,
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    if let Some(why) = heatpump::coil_unit(frame) {
        return Outcome::Findings(vec![heatpump::declined(spec, &why)]);
    }
    let Some(u) = heatpump::prepare(spec, frame, params) else {
        return Outcome::Findings(vec![heatpump::declined(spec, "no mode can be read")]);
    };
    let judged = u.valid.iter().filter(|v| **v).count();
    if judged == 0 {
        let mut f = Finding::not_judged(spec, "no occupied sample with a mode and a zone temperature");
        f.caveats.extend(u.caveats);
        return Outcome::Findings(vec![f]);
    }
    let p = |name: &str| params.number(spec, name);
    let w = frame.weights_hours();
    let judged_h = hours(&w, |i| u.valid[i]);
    let side = |name: &'static str, outside: &[bool], want: f64| {
        let out: Vec<u32> = (0..frame.len()).filter(|&i| u.valid[i] && outside[i]).map(|i| i as u32).collect();
        let outside_h: f64 = out.iter().map(|&i| w[i as usize]).sum::<f64>() + 0.0;
        let share = |m: f64| {
            (outside_h > 0.0).then(|| {
                100.0 * out.iter().filter(|&&i| u.mode[i as usize] == m).map(|&i| w[i as usize]).sum::<f64>()
                    / outside_h
                    + 0.0
            })
        };
        Side {
            name,
            want,
            outside_pct: 100.0 * outside_h / judged_h,
            outside_h,
            working_pct: share(want),
            opposite_pct: share(-want),
            out,
        }
    };
    let sides = [side("heating", &u.cold, HEATING), side("cooling", &u.hot, COOLING)];
    let mut worst: Option<(Severity, &'static str, usize)> = None;
    for (k, s) in sides.iter().enumerate() {
        if s.outside_h < p("min_hours") || s.outside_pct < p("warn_outside_pct") {
            continue;
        }
        let mut sev = if s.outside_pct >= p("fault_outside_pct") { Severity::Fault } else { Severity::Warn };
        let verdict = match s.working_pct {
            Some(x) if x >= p("saturated_pct") => "verdict_capacity",
            Some(x) if x <= p("idle_pct") => "verdict_control",
            _ => {
                sev = Severity::Warn;
                "verdict_mixed"
            }
        };
        if worst.is_none_or(|(w, _, _)| sev > w) {
            worst = Some((sev, verdict, k));
        }
    }
    let mut metrics = BTreeMap::new();
    for s in &sides {
        metrics.insert(format!("{}_outside_pct", s.name), round2(s.outside_pct));
        metrics.insert(format!("{}_outside_hours", s.name), round2(s.outside_h));
        if let Some(x) = s.working_pct {
            metrics.insert(format!("{}_working_pct", s.name), round2(x));
        }
        if let Some(x) = s.opposite_pct {
            metrics.insert(format!("{}_opposite_pct", s.name), round2(x));
        }
    }
    metrics.insert("judged_hours".into(), round2(judged_h));
    let conditions: Vec<Condition> = sides
        .iter()
        .map(|s| Condition {
            name: if s.want == HEATING { "below_heating_band".into() } else { "above_cooling_band".into() },
            flagged: s.out.clone(),
            judged,
            judged_hours: judged_h,
            flagged_hours: s.outside_h,
        })
        .collect();
    let Some((severity, verdict, k)) = worst else {
        return Outcome::Findings(vec![Finding::new(
            spec,
            Severity::Ok,
            format!(
                "the room stays in its band while the unit runs: {:.1}% of {judged_h:.1} occupied hours below its heating band, {:.1}% above its cooling band",
                sides[0].outside_pct, sides[1].outside_pct
            ),
        )
        .with_caveats(u.caveats)
        .with_metrics(metrics)
        .with_judged(judged)
        .with_conditions(conditions)]);
    };
    let s = &sides[k];
    for v in VERDICTS.iter().take(3) {
        metrics.insert(v.to_string(), if *v == verdict { 1.0 } else { 0.0 });
    }
    metrics.insert("shortfall_side".into(), s.want);
    let band = band_words(s.name);
    let (wp, op) = (s.working_pct.unwrap_or(0.0), s.opposite_pct.unwrap_or(0.0));
    let what = match verdict {
        "verdict_capacity" => format!(
            "while the unit was already {} ({wp:.0}% of that time) -- short of capacity or air (its size, its airflow, the source loop's temperature, its charge, its backup heat)",
            s.name
        ),
        "verdict_control" if op > 0.0 => format!(
            "while the unit was {} only {wp:.0}% of that time, {} {op:.0}% and idle {:.0}% -- a control problem (a stuck reversing valve or changeover, the thermostat, the setpoints), not capacity",
            s.name,
            if s.want == HEATING { "cooling" } else { "heating" },
            (100.0 - wp - op).max(0.0)
        ),
        "verdict_control" => format!(
            "while the unit was mostly idle ({} {wp:.0}% of that time) -- a control problem (the thermostat, the setpoints, the schedule), not capacity",
            s.name
        ),
        _ => format!("with the unit {} {wp:.0}% of that time, idle or the other way the rest", s.name),
    };
    let summary = format!("{:.0}% of occupied time {band} ({:.1} h) {what}", s.outside_pct, s.outside_h);
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(u.caveats)
        .with_metrics(metrics)
        .with_flagged(s.out.clone())
        .with_judged(judged)
        .with_conditions(conditions)])
}

fn band_words(side: &str) -> &'static str {
    if side == "heating" {
        "below its heating band"
    } else {
        "above its cooling band"
    }
}

/// Defer the cause of a fighting room's capacity findings to `hp_room_imbalance`: for each of
/// its room findings whose units fight (`fights` 1), every warning or fault of this rule on one
/// of the room's units with a capacity or mixed verdict gets the verdict `verdict_room_fight`
/// (`verdict_alone_capacity` or `verdict_alone_mixed` keeps the one it had alone) and a summary
/// and caveat naming the fight; its severity stands. Returns how many were deferred.
pub fn defer_to_room_fight(findings: &mut [Placed]) -> usize {
    let rooms: Vec<(String, Vec<String>, f64)> = findings
        .iter()
        .filter(|f| f.finding.rule == "hp_room_imbalance" && f.finding.metrics.get("fights") == Some(&1.0))
        .filter_map(|f| {
            let fight_pct = f.finding.metrics.get("fight_pct").copied().unwrap_or(f64::NAN);
            Some((f.group?.to_string(), f.members.to_vec(), fight_pct))
        })
        .collect();
    let mut n = 0;
    for f in findings
        .iter_mut()
        .filter(|f| f.finding.rule == "hp_capacity_shortfall" && f.finding.severity >= Severity::Warn)
    {
        let Some((room, _, fight_pct)) = rooms.iter().find(|(_, units, _)| units.iter().any(|u| u == f.equip)) else {
            continue;
        };
        let room = camber_common::text::name(room);
        let m = &mut f.finding.metrics;
        let alone = ["verdict_capacity", "verdict_mixed"].into_iter().find(|v| m.get(*v) == Some(&1.0));
        let Some(alone) = alone else { continue };
        m.insert(alone.into(), 0.0);
        m.insert(format!("verdict_alone_{}", &alone["verdict_".len()..]), 1.0);
        m.insert("verdict_room_fight".into(), 1.0);
        let heating = m.get("shortfall_side") == Some(&HEATING);
        let side = if heating { "heating" } else { "cooling" };
        let pct = m.get(&format!("{side}_outside_pct")).copied().unwrap_or(f64::NAN);
        f.finding.summary = format!(
            "{pct:.0}% of occupied time {} while it works, but the units in {room} fight ({fight_pct:.1}% of their shared occupied time; see hp_room_imbalance) -- the fight, not capacity: check where each unit's zone sensor sits",
            band_words(side)
        );
        f.finding.caveats.push(format!(
            "cause deferred to hp_room_imbalance: another unit in {room} runs the other way while this one works, so on its own this unit reads as short of capacity ({}); do not size it up from this finding",
            alone.replace('_', " ")
        ));
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::rules::hp_mode_vs_need::tests::wshp;

    /// 100 occupied hours: the room at 65 °F (below its 68 °F heating band) for the first `k`,
    /// with the unit heating for the first `working` of those and idle otherwise; at 70 °F and
    /// idle the rest.
    fn cold(k: usize, working: usize) -> Frame {
        wshp(100, H, |i| if i < k { 65.0 } else { 70.0 }, move |i| if i < working { 25.0 } else { 0.0 })
    }

    #[test]
    fn a_room_held_in_its_band_is_ok() {
        let r = run(&RULE, &cold(0, 50), &Params::default());
        assert_eq!((r.severity, r.metrics["heating_outside_pct"]), (Severity::Ok, 0.0));
        assert!(!r.metrics.contains_key("heating_working_pct") && !r.metrics.contains_key("verdict_capacity"));
        assert!(r.caveats.is_empty() && r.flagged.is_empty(), "{:?}", r.caveats);
        // a few cold hours, under min_hours and warn_outside_pct: ok
        assert_eq!(run(&RULE, &cold(3, 3), &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn a_shortfall_is_found_with_its_verdict() {
        // 40 h cold, the unit heating all of them: capacity, a fault
        let r = run(&RULE, &cold(40, 40), &Params::default());
        assert_eq!(
            (r.severity, r.metrics["verdict_capacity"], r.metrics["shortfall_side"]),
            (Severity::Fault, 1.0, 1.0)
        );
        assert!(r.summary.contains("short of capacity or air"), "{}", r.summary);
        assert_eq!((r.flagged.len(), r.metrics["heating_working_pct"]), (40, 100.0));
        // idle through them: control
        let r = run(&RULE, &cold(40, 0), &Params::default());
        assert_eq!((r.severity, r.metrics["verdict_control"]), (Severity::Fault, 1.0));
        assert!(r.summary.contains("mostly idle"), "{}", r.summary);
        // half and half: mixed, a warning at most
        let r = run(&RULE, &cold(40, 20), &Params::default());
        assert_eq!((r.severity, r.metrics["verdict_mixed"]), (Severity::Warn, 1.0));
        // a warm room with the unit heating it: control, and the summary says how it spent the time
        let f = wshp(100, H, |i| if i < 30 { 80.0 } else { 72.0 }, |i| if i < 12 { 25.0 } else { 0.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(
            (r.severity, r.metrics["verdict_control"], r.metrics["shortfall_side"]),
            (Severity::Fault, 1.0, -1.0)
        );
        assert!(r.summary.contains("cooling only 0% of that time, heating 40% and idle 60%"), "{}", r.summary);
    }

    #[test]
    fn the_thresholds_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        // 10 % out of band is a warning, 25 % a fault
        assert_eq!(sev(&cold(10, 10), &Params::default()), Severity::Warn);
        assert_eq!(sev(&cold(9, 9), &Params::default()), Severity::Ok);
        assert_eq!(sev(&cold(25, 25), &Params::default()), Severity::Fault);
        assert_eq!(sev(&cold(25, 25), &numbers(&[("fault_outside_pct", 25.01)])), Severity::Warn);
        assert_eq!(sev(&cold(9, 9), &numbers(&[("warn_outside_pct", 9.0)])), Severity::Warn);
        // min_hours: 10 % of 100 h is 10 h; with min_hours 10.01 it is not rated
        assert_eq!(sev(&cold(10, 10), &numbers(&[("min_hours", 10.01)])), Severity::Ok);
        // the verdict: working 70 % is capacity, 30 % control, between mixed
        let verdict = |working: usize, p: &Params| {
            let r = run(&RULE, &cold(40, working), p);
            VERDICTS.iter().find(|v| r.metrics.get(**v) == Some(&1.0)).copied()
        };
        assert_eq!(verdict(28, &Params::default()), Some("verdict_capacity"));
        assert_eq!(verdict(27, &Params::default()), Some("verdict_mixed"));
        assert_eq!(verdict(12, &Params::default()), Some("verdict_control"));
        assert_eq!(verdict(13, &Params::default()), Some("verdict_mixed"));
        assert_eq!(verdict(27, &numbers(&[("saturated_pct", 67.5)])), Some("verdict_capacity"));
        assert_eq!(verdict(13, &numbers(&[("idle_pct", 32.5)])), Some("verdict_control"));
        // the band's edge
        let edge = |zone: f64| run(&RULE, &wshp(20, H, move |_| zone, |_| 25.0), &Params::default()).flagged.len();
        assert_eq!((edge(67.0), edge(66.99)), (0, 20));
    }

    #[test]
    fn the_worse_side_sets_the_finding() {
        // 15 h too warm while cooling (a warning), 30 h too cold while heating (a fault)
        let f = wshp(
            100,
            H,
            |i| {
                if i < 30 {
                    65.0
                } else if i < 45 {
                    80.0
                } else {
                    72.0
                }
            },
            |i| {
                if i < 30 {
                    25.0
                } else if i < 45 {
                    -15.0
                } else {
                    0.0
                }
            },
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["shortfall_side"], r.flagged.len()), (Severity::Fault, 1.0, 30));
        assert_eq!(r.metrics["cooling_outside_pct"], 15.0);
        assert_eq!(r.conditions.len(), 2);
    }

    #[test]
    fn defrosts_count_as_heating_and_unoccupied_samples_are_not_judged() {
        // an air-source unit heating a cold room with 10-minute defrosts every hour: capacity
        let n = 12 * 50;
        let f = Frame::from_rows(
            &crate::engine::testing::every(MONDAY, 5 * MINUTE, n),
            &[
                ("supply_air_temp", vec![90.0; n]),
                ("space_temp", vec![64.0; n]),
                ("occupancy", vec![1.0; n]),
                ("compressor_status", vec![1.0; n]),
                ("reversing_valve_cmd", (0..n).map(|i| if i % 12 >= 10 { 0.0 } else { 1.0 }).collect()),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.metrics["verdict_capacity"], 1.0, "{}", r.summary);
        assert!(r.metrics["heating_working_pct"] > 99.0, "{:?}", r.metrics);
        let r = run(&RULE, &f, &numbers(&[("max_defrost_min", 0.0)]));
        assert!((r.metrics["heating_working_pct"] - 100.0 * 10.0 / 12.0).abs() < 0.01, "{:?}", r.metrics);
        // unoccupied hours are not judged
        let mut g = cold(40, 40);
        g.cols.insert("occupancy".into(), (0..100).map(|i| if i < 40 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 60));
    }

    #[test]
    fn gaps_are_not_judged_time() {
        let g = cold(40, 40);
        let keep: Vec<usize> = (0..100).filter(|i| !(60..84).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &g, &Params::default());
        assert_eq!(r.metrics["judged_hours"], 76.5);
        assert_eq!(r.metrics["heating_outside_pct"], round2(100.0 * 40.0 / 76.5));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [cold(40, 40), cold(40, 20), cold(0, 0)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[MONDAY], &[("supply_air_temp", vec![90.0])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["space_temp".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        assert_eq!(run(&RULE, &cold(1, 1), &Params::default()).severity, Severity::Ok);
        let mut coil = cold(40, 40);
        coil.cols.insert("cool_valve".into(), vec![0.0; 100]);
        assert_eq!(run(&RULE, &coil, &Params::default()).severity, Severity::Info);
        let mut unocc = cold(40, 40);
        unocc.cols.insert("occupancy".into(), vec![0.0; 100]);
        assert_eq!(run(&RULE, &unocc, &Params::default()).severity, Severity::Info);
    }
}
