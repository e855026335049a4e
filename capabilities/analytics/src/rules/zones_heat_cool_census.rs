//! `zones_heat_cool_census` (a fleet rule, terminals and fan coils, pooled building-wide as
//! the reference pools them): how much of the occupied time some zones reheat while others
//! cool. A building that overcools centrally and re-warms locally is never free of it; a sound
//! one mixes only in the swing hours. At each instant a zone heats when its reheat valve is
//! more than 5 % open, and cools when it does not heat and its airflow is above 1.1 times its
//! minimum (`airflow_min_sp`; else `airflow_sp` read as the minimum, unless it moves like an
//! active setpoint, swinging with load while the airflow tracks it, when the minimum is
//! inferred as its 5th percentile), or, without airflow, when its space is at or above its
//! cooling setpoint. An instant is mixed when one zone heats while another cools.
//!
//! Judged: the occupied instants (any zone's trended occupancy point on, else the weekly
//! schedule of `start_hour`, `end_hour` and `occupied_days`), never in a trended warm-up or
//! cool-down (beyond the reference, which counts a morning warm-up's reheat), weighed by time
//! on the fleet's shared axis, each zone's sample standing for the time to its next one. Levels
//! (fixed, as the reference's): fault when 75 % or more of the occupied hours are mixed, warn
//! at 25 %. A fault needs a share of the fleet heating, not one box: it is rated warn when on
//! average fewer than `min_heating_frac` of the zones heat in the mixed hours, and a warn or
//! fault is capped at warn in a fleet of more than three times `max_driver_zones` zones when,
//! without its `max_driver_zones` most-heating zones, fewer than 25 % of the hours would be
//! mixed (a leaking valve or two is a local fault). Zones whose cooling cannot be judged make a
//! clean result info, not ok. The finding implicates the zones heating on at least
//! `persistent_frac` of the mixed hours (else the driving zones), most-heating first; its
//! flagged samples are the mixed instants.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, on, round2, schedule_params, scheduled, Finding, Inputs, ParamSpec, Params, Rule, RuleSpec, Severity,
};
use crate::fleet::{Fleet, FleetFinding};
use crate::terminal::{self, MinBasis};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// A reheat valve more open than this (%) is heating.
pub const VALVE_OPEN_PCT: f64 = 5.0;
/// Airflow above this multiple of the minimum is cooling.
pub const FLOW_MARGIN: f64 = 1.1;
/// Mixed hours (%) that fault, and that warn.
pub const FAULT_PCT: f64 = 75.0;
pub const WARN_PCT: f64 = 25.0;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let mut params = schedule_params().to_vec();
    params.extend([
        ParamSpec::number(
            "min_heating_frac",
            0.1,
            "fraction of the fleet's zones (mean, in the mixed hours)",
            (0.0, 0.5),
            "A fleet fault is many zones re-warming central overcooling, not one box: under a tenth of the zones heating on average, the mixing is local.",
            "On a building whose reheat is known to be sound, note heating_frac_when_mixed and choose a value past it; a fault with a smaller heating share is reported as warn and says why.",
        ),
        ParamSpec::number(
            "max_driver_zones",
            2.0,
            "count of zones",
            (0.0, 10.0),
            "One or two boxes heating through the occupied day is a leaking or stuck valve, a local fault.",
            "In a building of hundreds of zones, a few bad valves are still a box problem: raise it there. The cap applies when removing that many most-heating zones would leave under 25 % of the hours mixed.",
        ),
        ParamSpec::number(
            "persistent_frac",
            0.5,
            "fraction of the mixed hours",
            (0.1, 1.0),
            "A zone heating through half the mixed hours or more is a standing part of the mixing, worth naming.",
            "A lower share names more of the heating zones in the finding (the zones it implicates); a higher one keeps only those that heat almost throughout.",
        ),
    ]);
    RuleSpec {
        id: "zones_heat_cool_census",
        families: &["fan_coil", "terminal"],
        inputs: Inputs {
            required: &["heat_valve"],
            optional: &[
                "airflow",
                "airflow_sp",
                "airflow_min_sp",
                "space_temp",
                "cool_sp",
                "warmup",
                "cooldown",
                "occupancy",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params,
        judged_basis: "occupied instants with a zone reporting",
    }
}

/// A zone's minimum airflow on the fleet's axis, and where it came from (the terminal rules'
/// [`terminal::min_flow`] over the zone's own samples).
fn minimum(fleet: &Fleet, m: usize) -> Option<(Vec<f64>, MinBasis)> {
    let f = fleet.members[m].frame;
    let min = terminal::min_flow(f, &vec![true; f.len()])?;
    Some((fleet.hold(m, &min.at), min.basis))
}

/// One zone's states on the fleet's axis.
struct Zone {
    present: Vec<bool>,
    heating: Vec<bool>,
    cooling: Vec<bool>,
    /// Whether anything says when it cools (airflow with a minimum, or temperatures).
    evaluable: bool,
    basis: Option<MinBasis>,
}

fn zone(fleet: &Fleet, m: usize) -> Zone {
    let n = fleet.times.len();
    let valve = fleet.held(m, "heat_valve").map(|v| as_percent(&v)).unwrap_or_else(|| crate::engine::nans(n));
    let present: Vec<bool> = valve.iter().map(|v| !v.is_nan()).collect();
    let heating: Vec<bool> = valve.iter().map(|v| *v > VALVE_OPEN_PCT).collect();
    let flow = fleet.held(m, "airflow");
    let min = flow.as_ref().and_then(|_| minimum(fleet, m));
    let temps = fleet.held(m, "space_temp").zip(fleet.held(m, "cool_sp"));
    let (cooling, evaluable, basis): (Vec<bool>, bool, Option<MinBasis>) = match (&flow, &min, &temps) {
        (Some(q), Some((lo, b)), _) => ((0..n).map(|i| q[i] > FLOW_MARGIN * lo[i]).collect(), true, Some(*b)),
        (_, _, Some((t, sp))) => ((0..n).map(|i| t[i] >= sp[i]).collect(), true, None),
        _ => (vec![false; n], false, None),
    };
    Zone { present, heating, cooling, evaluable, basis }
}

/// The occupied instants of the fleet's axis: when any zone trends occupancy, any of them on;
/// else the schedule; never while a zone trends warm-up or cool-down on.
fn occupied(fleet: &Fleet, spec: &RuleSpec, params: &Params) -> Vec<bool> {
    let n = fleet.times.len();
    let occ: Vec<Vec<f64>> = (0..fleet.members.len()).filter_map(|m| fleet.held(m, "occupancy")).collect();
    let prep: Vec<Vec<f64>> =
        (0..fleet.members.len()).flat_map(|m| [fleet.held(m, "warmup"), fleet.held(m, "cooldown")]).flatten().collect();
    let sched = scheduled(spec, params);
    (0..n)
        .map(|i| {
            let occupied = if occ.is_empty() { sched(fleet.times[i]) } else { occ.iter().any(|o| on(o[i])) };
            occupied && !prep.iter().any(|p| on(p[i]))
        })
        .collect()
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0 + 0.0
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0 + 0.0
}

/// Judge the fleet as one pool: one finding for the whole fleet.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let min_heating_frac = params.number(spec, "min_heating_frac");
    let max_drivers = params.number(spec, "max_driver_zones").max(0.0).round() as usize;
    let persistent_frac = params.number(spec, "persistent_frac");
    let zones: Vec<Zone> = (0..fleet.members.len()).map(|m| zone(fleet, m)).collect();
    let occ = occupied(fleet, spec, params);
    let w = fleet.weights_hours();
    let n = fleet.times.len();
    let judged: Vec<usize> = (0..n).filter(|&i| occ[i] && zones.iter().any(|z| z.present[i])).collect();
    let mut caveats = Vec::new();
    let unevaluable: Vec<&str> =
        zones.iter().zip(&fleet.members).filter(|(z, _)| !z.evaluable).map(|(_, m)| m.equip).collect();
    if !unevaluable.is_empty() {
        caveats.push(format!(
            "cooling could not be judged for {} zone(s) with neither airflow and its minimum nor space temperature and cooling setpoint ({}): the census may under-count the mixing",
            unevaluable.len(),
            unevaluable.join(", ")
        ));
    }
    let inferred = zones.iter().filter(|z| z.basis == Some(MinBasis::Inferred)).count();
    if inferred > 0 {
        caveats.push(format!("{inferred} zone(s) trend an airflow_sp that moves like an active airflow setpoint (it swings with load and the airflow tracks it): their minimum was inferred as its 5th percentile; map the minimum as airflow_min_sp"));
    }
    let whole = |f: Finding, equips: Vec<String>| vec![FleetFinding { group: None, finding: f, equips }];
    let hours: f64 = judged.iter().map(|&i| w[i]).sum();
    if judged.is_empty() || hours <= 0.0 {
        let f = Finding::new(spec, Severity::Info, "zones heat-cool census: no occupied instant with a zone reporting")
            .with_caveats(caveats);
        return whole(f, Vec::new());
    }
    // per instant: how many zones report, heat, cool, both, cool without heating
    let count = |f: &dyn Fn(&Zone) -> bool| zones.iter().filter(|z| f(z)).count() as f64;
    let mut sums = [0.0f64; 5];
    let (mut mixed_h, mut any_both_h, mut heat_when_mixed, mut max_both, mut n_zones) = (0.0, 0.0, 0.0, 0.0f64, 0.0f64);
    let mut mixed: Vec<usize> = Vec::new();
    for &i in &judged {
        let present = count(&|z| z.present[i]);
        let heating = count(&|z| z.heating[i]);
        let cooling = count(&|z| z.cooling[i]);
        let both = count(&|z| z.heating[i] && z.cooling[i]);
        let cooling_only = count(&|z| z.cooling[i] && !z.heating[i]);
        for (s, v) in sums.iter_mut().zip([present, heating, cooling, both, cooling_only]) {
            *s += v * w[i];
        }
        n_zones = n_zones.max(present);
        max_both = max_both.max(both);
        if both > 0.0 {
            any_both_h += w[i];
        }
        if heating > 0.0 && cooling_only > 0.0 {
            mixed.push(i);
            mixed_h += w[i];
            heat_when_mixed += heating * w[i];
        }
    }
    let avg = |k: usize| sums[k] / hours;
    let pct_mixed = 100.0 * mixed_h / hours;
    let avg_heat_mixed = if mixed_h > 0.0 { heat_when_mixed / mixed_h } else { 0.0 };
    let heating_frac = if n_zones > 0.0 { avg_heat_mixed / n_zones } else { 0.0 };
    // each zone's share of the mixed hours spent heating, most first
    let mut shares: Vec<(usize, f64)> = (0..zones.len())
        .map(|z| {
            let h: f64 = mixed.iter().filter(|&&i| zones[z].heating[i]).map(|&i| w[i]).sum();
            (z, if mixed_h > 0.0 { h / mixed_h } else { 0.0 })
        })
        .collect();
    shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(fleet.members[a.0].equip.cmp(fleet.members[b.0].equip)));
    let persistent: Vec<usize> =
        shares.iter().filter(|(_, s)| *s >= persistent_frac - 1e-9 && *s > 0.0).map(|(z, _)| *z).collect();
    let drivers: Vec<usize> = shares.iter().take(max_drivers).filter(|(_, s)| *s > 0.0).map(|(z, _)| *z).collect();
    let mut pct_without = pct_mixed;
    if !drivers.is_empty() {
        let rest_h: f64 = judged
            .iter()
            .filter(|&&i| {
                let others_heat = zones.iter().enumerate().any(|(k, z)| !drivers.contains(&k) && z.heating[i]);
                others_heat && zones.iter().any(|z| z.cooling[i] && !z.heating[i])
            })
            .map(|&i| w[i])
            .sum();
        pct_without = 100.0 * rest_h / hours;
    }
    let eps = 1e-9;
    let mut severity = if pct_mixed >= FAULT_PCT - eps {
        Severity::Fault
    } else if pct_mixed >= WARN_PCT - eps {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut metrics: BTreeMap<String, f64> = BTreeMap::new();
    if severity == Severity::Fault && heating_frac < min_heating_frac {
        severity = Severity::Warn;
        metrics.insert("capped_by_heating_share".into(), 1.0);
        caveats.push(format!(
            "on average {:.0} % of the zones heat in the mixed hours, under min_heating_frac ({:.0} %): a local reheat problem, not a fleet one, so rated warn",
            100.0 * heating_frac,
            100.0 * min_heating_frac
        ));
    }
    let large = n_zones > 3.0 * max_drivers as f64;
    if severity >= Severity::Warn && large && !drivers.is_empty() && pct_without < WARN_PCT - eps {
        // a fault already rated warn for its heating share keeps that reason
        if !metrics.contains_key("capped_by_heating_share") {
            metrics.insert("capped_by_drivers".into(), 1.0);
            let names: Vec<String> =
                drivers.iter().map(|&z| camber_common::text::name(fleet.members[z].equip)).collect();
            caveats.push(format!(
                "{} zone(s) drive the result ({}): without them {:.0} % of the occupied hours are mixed; look at those boxes (a leaking or stuck reheat valve) before the fleet",
                drivers.len(),
                names.join(", "),
                pct_without
            ));
        }
        severity = Severity::Warn;
    }
    if severity == Severity::Ok && !unevaluable.is_empty() {
        severity = Severity::Info;
    }
    metrics.insert("n_zones".into(), n_zones);
    metrics.insert("occupied_hours".into(), round2(hours));
    metrics.insert("pct_hours_mixed".into(), round1(pct_mixed));
    metrics.insert("avg_zones_heating".into(), round2(avg(1)));
    metrics.insert("avg_zones_cooling".into(), round2(avg(2)));
    metrics.insert("avg_zones_both".into(), round2(avg(3)));
    metrics.insert("avg_zones_cooling_only".into(), round2(avg(4)));
    metrics.insert("avg_zones_heating_when_mixed".into(), round2(avg_heat_mixed));
    metrics.insert("pct_hours_any_both".into(), round1(100.0 * any_both_h / hours));
    metrics.insert("max_zones_both".into(), max_both);
    metrics.insert("heating_frac_when_mixed".into(), round3(heating_frac));
    metrics.insert("pct_hours_mixed_without_drivers".into(), round1(pct_without));
    metrics.insert("n_persistent_heating_zones".into(), persistent.len() as f64);
    metrics.insert("n_driver_zones".into(), drivers.len() as f64);
    for (z, s) in shares.iter().filter(|(_, s)| *s > 0.0) {
        metrics.insert(format!("heating_share.{}", fleet.members[*z].equip), round3(*s));
    }
    let names = |v: &[usize]| v.iter().map(|&z| fleet.members[z].equip.to_string()).collect::<Vec<String>>();
    let persistent_names = names(&persistent);
    let mut summary = format!(
        "{pct_mixed:.0} % of the occupied hours have a zone heating while another cools (on average {:.1} zones heating, {:.1} cooling only, of {n_zones})",
        avg(1),
        avg(4)
    );
    if !persistent_names.is_empty() {
        // the zones are named as text names values from the data
        let shown =
            persistent_names.iter().take(5).map(|z| camber_common::text::name(z)).collect::<Vec<_>>().join(", ");
        let more = persistent_names.len().saturating_sub(5);
        summary.push_str(&format!("; heating through the mixed hours: {shown}"));
        if more > 0 {
            summary.push_str(&format!(" and {more} more"));
        }
    }
    let equips = match severity {
        Severity::Warn | Severity::Fault if !persistent.is_empty() => persistent_names,
        Severity::Warn | Severity::Fault => names(&drivers),
        _ => Vec::new(),
    };
    let flagged = if severity >= Severity::Warn { mixed.iter().map(|&i| i as u32).collect() } else { Vec::new() };
    let f = Finding::new(spec, severity, summary)
        .with_metrics(metrics)
        .with_caveats(caveats)
        .with_judged(judged.len())
        .with_flagged(flagged);
    whole(f, equips)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, fleet, numbers, outcome, shuffled_with_duplicates, H, MONDAY};
    use crate::engine::{Frame, Outcome};
    use crate::run::{run, EquipFrame, RunRequest};

    /// Two weeks of hours.
    const N: usize = 14 * 24;

    fn occupied(i: usize) -> bool {
        (i / 24) % 7 < 5 && (7..18).contains(&(i % 24))
    }

    /// A box over two weeks of hours: it heats (valve 40 %, at its minimum airflow) when
    /// `heats(i)`, else cools (airflow twice its minimum); it trends its occupancy.
    fn vav(heats: impl Fn(usize) -> bool) -> Frame {
        let (mut valve, mut flow) = (Vec::new(), Vec::new());
        for i in 0..N {
            let h = occupied(i) && heats(i);
            valve.push(if h { 40.0 } else { 0.0 });
            flow.push(if !occupied(i) {
                0.0
            } else if h {
                300.0
            } else {
                600.0
            });
        }
        let occ: Vec<f64> = (0..N).map(|i| if occupied(i) { 1.0 } else { 0.0 }).collect();
        Frame::from_rows(
            &every(MONDAY, H, N),
            &[("heat_valve", valve), ("airflow", flow), ("airflow_min_sp", vec![300.0; N]), ("occupancy", occ)],
        )
    }

    fn fleet_of(frames: &[Frame], p: &Params) -> FleetFinding {
        let names: Vec<String> = (0..frames.len()).map(|k| format!("V{k}")).collect();
        let m: Vec<(&str, Option<&str>, &Frame)> =
            names.iter().zip(frames).map(|(e, f)| (e.as_str(), None, f)).collect();
        let mut v = fleet(&RULE, &m, p);
        assert_eq!(v.len(), 1);
        v.remove(0)
    }

    fn cooling() -> Frame {
        vav(|_| false)
    }

    #[test]
    fn a_fleet_that_only_cools_passes() {
        let f = fleet_of(&vec![cooling(); 8], &Params::default());
        assert_eq!(f.finding.severity, Severity::Ok, "{}", f.finding.summary);
        assert_eq!(f.finding.metrics["pct_hours_mixed"], 0.0);
        assert_eq!(f.finding.judged, 10 * 11, "the occupied hours");
        assert!(f.equips.is_empty() && f.group.is_none());
    }

    #[test]
    fn zones_reheating_while_others_cool_fault_and_are_named() {
        let mut frames = vec![cooling(); 8];
        for f in frames.iter_mut().take(4) {
            *f = vav(|_| true);
        }
        let f = fleet_of(&frames, &Params::default());
        assert_eq!(f.finding.severity, Severity::Fault, "{}", f.finding.summary);
        assert_eq!(f.finding.metrics["pct_hours_mixed"], 100.0);
        assert_eq!(f.finding.metrics["heating_frac_when_mixed"], 0.5);
        assert_eq!(f.equips, ["V0", "V1", "V2", "V3"]);
        assert!(
            f.finding.summary.contains("heating through the mixed hours: \"V0\", \"V1\", \"V2\", \"V3\""),
            "{}",
            f.finding.summary
        );
        assert_eq!(f.finding.flagged.len(), 110);
        // mixing in the mornings only (4 of 11 hours, 36 %) warns
        let mut frames = vec![cooling(); 8];
        for f in frames.iter_mut().take(4) {
            *f = vav(|i| i % 24 < 11);
        }
        let f = fleet_of(&frames, &Params::default());
        assert_eq!(f.finding.severity, Severity::Warn, "{}", f.finding.summary);
    }

    #[test]
    fn the_levels_and_caps_at_their_boundaries() {
        // mixed on 3 of 4 hours of a day (75 %): a fault; 2 of 8 hours (25 %): a warn
        let day = |hours: &'static [usize]| move |i: usize| hours.contains(&(i % 24));
        let mut frames = vec![cooling(); 4];
        frames[0] = vav(day(&[7, 8, 9, 10, 11, 12, 13, 14]));
        frames[1] = vav(|_| false);
        let got = fleet_of(&frames, &Params::default());
        assert_eq!(got.finding.metrics["pct_hours_mixed"], 72.7); // 8 of 11 hours
        assert_eq!(got.finding.severity, Severity::Warn);
        frames[0] = vav(day(&[7, 8, 9, 10, 11, 12, 13, 14, 15]));
        let got = fleet_of(&frames, &Params::default());
        assert_eq!(got.finding.metrics["pct_hours_mixed"], 81.8);
        assert_eq!(got.finding.severity, Severity::Fault, "{}", got.finding.summary);
        // one zone in eight heating all day: 1/8 of the fleet, a driver
        let mut frames = vec![cooling(); 8];
        frames[0] = vav(|_| true);
        let got = fleet_of(&frames, &Params::default());
        assert_eq!(got.finding.severity, Severity::Warn, "{}", got.finding.summary);
        assert_eq!(got.finding.metrics["capped_by_drivers"], 1.0);
        assert_eq!(got.equips, ["V0"]);
        // without the driver cap, the heating share decides: at 1/8 a fault, just above it a warn
        let at = fleet_of(&frames, &numbers(&[("max_driver_zones", 0.0), ("min_heating_frac", 0.125)]));
        assert_eq!(at.finding.severity, Severity::Fault, "{}", at.finding.summary);
        let above = fleet_of(&frames, &numbers(&[("max_driver_zones", 0.0), ("min_heating_frac", 0.126)]));
        assert_eq!(above.finding.severity, Severity::Warn);
        assert_eq!(above.finding.metrics["capped_by_heating_share"], 1.0);
        // a small fleet is not capped by its drivers: two zones of six are not a minority
        let got = fleet_of(&frames[..6], &Params::default());
        assert_eq!(got.finding.severity, Severity::Fault, "{}", got.finding.summary);
        // persistent: a zone heating exactly half the mixed hours is named at 0.5, not at 0.51
        let mut frames = vec![cooling(); 4];
        frames[0] = vav(|_| true);
        frames[1] = vav(|i| (i / 24) % 2 == 0); // five of the ten weekdays
        let half = fleet_of(&frames, &Params::default());
        let share = half.finding.metrics["heating_share.V1"];
        assert_eq!(share, 0.5);
        let at = fleet_of(&frames, &numbers(&[("persistent_frac", share)]));
        assert_eq!(at.equips, ["V0", "V1"]);
        let above = fleet_of(&frames, &numbers(&[("persistent_frac", share + 0.01)]));
        assert_eq!(above.equips, ["V0"]);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let mut frames = vec![cooling(); 8];
        for f in frames.iter_mut().take(3) {
            *f = vav(|i| i % 24 < 12);
        }
        let want = fleet_of(&frames, &Params::default());
        let shuffled: Vec<Frame> = frames.iter().map(shuffled_with_duplicates).collect();
        let got = fleet_of(&shuffled, &Params::default());
        assert_eq!((&got.finding.summary, &got.equips), (&want.finding.summary, &want.equips));
        // one zone trended every 15 minutes: the hourly zones still count for their whole hour
        let f = cooling();
        let cols: Vec<(&str, Vec<f64>)> =
            f.cols.iter().map(|(k, v)| (k.as_str(), (0..4 * N).map(|i| v[i / 4]).collect())).collect();
        let mut fast = frames.clone();
        fast[7] = Frame::from_rows(&every(MONDAY, H / 4, 4 * N), &cols);
        let got = fleet_of(&fast, &Params::default());
        assert_eq!(got.finding.metrics["pct_hours_mixed"], want.finding.metrics["pct_hours_mixed"]);
        assert_eq!(got.finding.metrics["occupied_hours"], want.finding.metrics["occupied_hours"]);
        // a day missing from every zone is not judged time
        let keep: Vec<usize> = (0..N).filter(|i| i / 24 != 2).collect();
        let gap: Vec<Frame> = frames
            .iter()
            .map(|f| Frame {
                ts: keep.iter().map(|&i| f.ts[i]).collect(),
                cols: f.cols.iter().map(|(k, c)| (k.clone(), keep.iter().map(|&i| c[i]).collect())).collect(),
            })
            .collect();
        let got = fleet_of(&gap, &Params::default());
        assert_eq!(got.finding.metrics["occupied_hours"], 9.0 * 11.0);
        assert_eq!(got.finding.metrics["pct_hours_mixed"], want.finding.metrics["pct_hours_mixed"]);
    }

    #[test]
    fn unoccupied_and_prep_hours_are_not_judged() {
        // reheat only at night (occupancy off): nothing mixed
        let mut frames = vec![cooling(); 4];
        let mut night = cooling();
        for (i, v) in night.cols.get_mut("heat_valve").unwrap().iter_mut().enumerate() {
            if !occupied(i) {
                *v = 60.0;
            }
        }
        frames[0] = night.clone();
        let got = fleet_of(&frames, &Params::default());
        assert_eq!(got.finding.severity, Severity::Ok, "{}", got.finding.summary);
        // no occupancy point: the schedule stands in (a schedule covering every hour judges the nights)
        for f in frames.iter_mut() {
            f.cols.remove("occupancy");
        }
        assert_eq!(fleet_of(&frames, &Params::default()).finding.severity, Severity::Ok);
        let all_day = numbers(&[("start_hour", 0.0), ("end_hour", 24.0)]);
        let got = fleet_of(&frames, &all_day);
        assert!(got.finding.metrics["occupied_hours"] > 200.0);
        // a trended morning warm-up with every box reheating is not judged
        let mut frames = vec![cooling(); 4];
        let warm: Vec<f64> = (0..N).map(|i| if occupied(i) && i % 24 < 9 { 1.0 } else { 0.0 }).collect();
        frames[0] = vav(|i| i % 24 < 9);
        frames[0].cols.insert("warmup".into(), warm);
        let got = fleet_of(&frames, &Params::default());
        assert_eq!(got.finding.metrics["pct_hours_mixed"], 0.0, "{}", got.finding.summary);
        assert_eq!(got.finding.metrics["occupied_hours"], 10.0 * 9.0);
    }

    #[test]
    fn a_zone_without_a_valve_is_skipped_and_the_census_pools_the_building() {
        let c = RunConfig::from_value(&serde_json::json!({
            "equipment": [{"class": "VAV"}, {"class": "FCU"}], "rules": ["zones_heat_cool_census"],
            "topology": {"parents": {"V0": "AHU-1", "V1": "AHU-1", "V2": "AHU-2", "V3": "AHU-2"}}
        }))
        .unwrap();
        let mut frames: Vec<EquipFrame> = ["V0", "V1", "V2", "V3", "F0"]
            .iter()
            .map(|e| EquipFrame {
                equip: e.to_string(),
                class: if e.starts_with('F') { "FCU" } else { "VAV" }.into(),
                frame: cooling(),
            })
            .collect();
        frames[0].frame = vav(|_| true);
        frames[3].frame.cols.remove("heat_valve");
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
        assert_eq!((r.skipped[0].equip.as_str(), r.skipped[0].missing.clone()), ("V3", vec!["heat_valve".to_string()]));
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(f.id, "zones_heat_cool_census@<fleet>");
        assert_eq!(f.members, ["V0", "V1", "V2", "F0"]);
        assert_eq!((f.finding.severity, f.equips.clone()), (Severity::Fault, vec!["V0".to_string()]));
        let none = Frame::from_rows(&every(MONDAY, H, 3), &[("airflow", vec![1.0; 3])]);
        assert_eq!(outcome(&RULE, &none, &Params::default()), Outcome::Skipped { missing: vec!["heat_valve".into()] });
    }

    #[test]
    fn what_cooling_is_read_from() {
        // without airflow: the space at or above its cooling setpoint
        let temps = |heat: bool| {
            let f = vav(move |_| heat);
            let mut g = f.clone();
            g.cols.remove("airflow");
            g.cols.insert("space_temp".into(), vec![76.0; N]);
            g.cols.insert("cool_sp".into(), vec![75.0; N]);
            g
        };
        let got = fleet_of(&[temps(true), temps(false), temps(false)], &Params::default());
        assert_eq!(got.finding.metrics["pct_hours_mixed"], 100.0, "{}", got.finding.summary);
        // nothing to judge cooling by: a clean census is info, with a caveat
        let mut bare = cooling();
        bare.cols.remove("airflow");
        let got = fleet_of(&[cooling(), bare], &Params::default());
        assert_eq!(got.finding.severity, Severity::Info, "{}", got.finding.summary);
        assert!(got.finding.caveats[0].contains("V1"), "{:?}", got.finding.caveats);
        // an active airflow setpoint (it swings and the airflow tracks it): the minimum is inferred
        let active = |heat: bool| {
            let mut f = vav(move |_| heat);
            f.cols.remove("airflow_min_sp");
            let sp: Vec<f64> = (0..N).map(|i| 300.0 + 300.0 * ((i % 24) as f64 / 23.0)).collect();
            let q: Vec<f64> = sp.iter().map(|s| if heat { 300.0 } else { *s }).collect();
            f.cols.insert("airflow_sp".into(), sp);
            f.cols.insert("airflow".into(), q);
            f
        };
        let got = fleet_of(&[active(false), active(false), active(true)], &Params::default());
        assert!(got.finding.caveats.iter().any(|c| c.contains("inferred")), "{:?}", got.finding.caveats);
        assert!(got.finding.metrics["pct_hours_mixed"] > 50.0, "{}", got.finding.summary);
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        let got = fleet_of(&[Frame::default()], &Params::default());
        assert_eq!(got.finding.severity, Severity::Info);
        let one = Frame::from_rows(&[MONDAY + 9 * H], &[("heat_valve", vec![50.0])]);
        let got = fleet_of(&[one], &Params::default());
        assert_eq!(got.finding.severity, Severity::Info, "{}", got.finding.summary);
        let mut nan = cooling();
        nan.cols.values_mut().for_each(|c| c.iter_mut().for_each(|v| *v = f64::NAN));
        let got = fleet_of(&[nan, cooling()], &Params::default());
        assert!(got.finding.severity <= Severity::Info);
    }
}
