//! Not a rule: the step test `cohort_airflow` runs beside its cohort deviation. A box whose
//! thermostat starts reading high (a sensor drifting or knocked, a thermostat moved onto a warm
//! wall) or whose zone takes on a new load asks for more cooling from that day on, while the BAS
//! shows its zone at setpoint throughout. Over a month among its peers it need not stand out:
//! boxes differ in size and load, and the change covers only part of the record. What does
//! stand out is the day its share of its air handler's airflow rose and held, while its
//! siblings on the same supply air, schedule and weather did not change.
//!
//! For each air handler of the topology with at least [`MIN_BOXES`] boxes: the boxes' airflow is
//! summed at each instant all of them have a sample, and instants with the sum above a quarter
//! of its 95th percentile (the system running loaded, not at night) are kept. Each box's share
//! of the sum is averaged per local day (time-weighted; a day needs [`MIN_DAY_HOURS`] of such
//! instants), and every split of the days into a before and an after (each at least
//! [`MIN_SIDE_DAYS`] days) is tried: the step is the split with the largest two-sample t of the
//! share rising, `(after - before) / pooled sd x sqrt(k (n - k) / n)`. A box steps when that t
//! reaches [`STEP_T`], its share after is at least [`STEP_RATIO`] times its share before, and the
//! rise is at least [`STEP_MIN_CFM`] of airflow. A change shared by the whole air handler (its
//! coil fouled, the weather turned) moves every box's airflow and none's share, so it does not
//! count; a box whose own cooling setpoint fell by a degree or more across the same split was
//! asked for the change, and is reported as info.
//!
//! On the EnergyPlus lab's four clean twins and eleven other faults (20 runs, 300 boxes) the
//! largest rising step is t = 4.4 at a share ratio of 1.04, and the largest rising ratio 1.42 at
//! t = 2.1; the three thermostat offsets step at t = 8.2-21.9 and ratios 1.46-1.93.

use crate::economizer::percentile;
use crate::engine::{Finding, RuleSpec, Severity, NS_PER_HOUR};
use crate::fleet::{Fleet, FleetFinding};

/// Fewest boxes on an air handler for a share to mean anything.
pub const MIN_BOXES: usize = 3;
/// Hours of loaded running a day needs to count.
pub const MIN_DAY_HOURS: f64 = 4.0;
/// Fewest days on each side of a split.
pub const MIN_SIDE_DAYS: usize = 5;
/// The two-sample t a rising share must reach.
pub const STEP_T: f64 = 6.0;
/// How many times its share before a box's share after must be.
pub const STEP_RATIO: f64 = 1.2;
/// The smallest rise, in cfm at the air handler's mean loaded airflow, worth a visit.
pub const STEP_MIN_CFM: f64 = 50.0;
/// A fall of the box's own cooling setpoint (°F) across the split that explains its step.
const SETPOINT_MOVE_F: f64 = 1.0;

/// A box's rising step: where, how big, and how sure.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub member: usize,
    /// The local day (days since 1970-01-01) the share first sat high.
    pub day: i64,
    pub share_before: f64,
    pub share_after: f64,
    pub t: f64,
    /// The rise in cfm at the air handler's mean loaded airflow.
    pub cfm: f64,
    /// Days before and after the split.
    pub days: (usize, usize),
    /// How far the box's own median cooling setpoint moved across the split (°F), if trended.
    pub setpoint_move: Option<f64>,
}

/// The rising step of each box that has one, air handler by air handler.
pub fn steps(fleet: &Fleet) -> Vec<(String, Step)> {
    let mut out = Vec::new();
    let weights = fleet.weights_hours();
    for g in fleet.groups().into_iter().filter(|g| g.served) {
        let Some(label) = g.label else { continue };
        let cols: Vec<(usize, Vec<f64>)> =
            g.members.iter().filter_map(|&m| fleet.held(m, "airflow").map(|c| (m, c))).collect();
        if cols.len() < MIN_BOXES {
            continue;
        }
        let total: Vec<f64> = (0..fleet.times.len())
            .map(|i| cols.iter().map(|(_, c)| c[i]).sum::<f64>())
            .map(|s| if s.is_finite() { s } else { f64::NAN })
            .collect();
        let mut sorted: Vec<f64> = total.iter().copied().filter(|s| s.is_finite() && *s > 0.0).collect();
        sorted.sort_by(f64::total_cmp);
        if sorted.is_empty() {
            continue;
        }
        let floor = 0.25 * percentile(&sorted, 95.0);
        let loaded: Vec<usize> = (0..total.len()).filter(|&i| total[i] > floor && weights[i] > 0.0).collect();
        let mean_total = loaded.iter().map(|&i| total[i] * weights[i]).sum::<f64>()
            / loaded.iter().map(|&i| weights[i]).sum::<f64>().max(f64::MIN_POSITIVE);
        for (m, col) in &cols {
            let daily = daily_means(fleet, &loaded, &weights, |i| col[i] / total[i]);
            if let Some(mut s) = rising_step(&daily) {
                s.member = *m;
                s.cfm = (s.share_after - s.share_before) * mean_total;
                if s.t >= STEP_T && s.share_after >= STEP_RATIO * s.share_before && s.cfm >= STEP_MIN_CFM {
                    s.setpoint_move = fleet.held(*m, "cool_sp").and_then(|sp| {
                        let d = daily_means(fleet, &loaded, &weights, |i| sp[i]);
                        let side = |after: bool| {
                            let mut v: Vec<f64> =
                                d.iter().filter(|(day, _)| (*day >= s.day) == after).map(|p| p.1).collect();
                            crate::engine::median(&mut v)
                        };
                        let moved = side(true) - side(false);
                        moved.is_finite().then_some(moved)
                    });
                    out.push((label.clone(), s));
                }
            }
        }
    }
    out
}

/// The time-weighted daily mean of `value` over the `loaded` instants, per local day with at
/// least [`MIN_DAY_HOURS`] of them, in day order.
fn daily_means(fleet: &Fleet, loaded: &[usize], weights: &[f64], value: impl Fn(usize) -> f64) -> Vec<(i64, f64)> {
    let mut out: Vec<(i64, f64)> = Vec::new();
    let (mut day, mut sum, mut hours) = (None::<i64>, 0.0, 0.0);
    let mut close = |day: Option<i64>, sum: f64, hours: f64| {
        if let Some(d) = day {
            if hours >= MIN_DAY_HOURS {
                out.push((d, sum / hours));
            }
        }
    };
    for &i in loaded {
        let v = value(i);
        if !v.is_finite() {
            continue;
        }
        let d = fleet.times[i].div_euclid(24 * NS_PER_HOUR);
        if day != Some(d) {
            close(day, sum, hours);
            (day, sum, hours) = (Some(d), 0.0, 0.0);
        }
        sum += v * weights[i];
        hours += weights[i];
    }
    close(day, sum, hours);
    out
}

/// The split of `daily` (day, mean share) with the largest two-sample t of the share rising,
/// each side at least [`MIN_SIDE_DAYS`] days; `None` when too few days or no rise.
fn rising_step(daily: &[(i64, f64)]) -> Option<Step> {
    let n = daily.len();
    if n < 2 * MIN_SIDE_DAYS {
        return None;
    }
    let v: Vec<f64> = daily.iter().map(|p| p.1).collect();
    // prefix sums of the values and their squares: each split in constant time
    let (mut s, mut q) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for k in 0..n {
        s[k + 1] = s[k] + v[k];
        q[k + 1] = q[k] + v[k] * v[k];
    }
    let mut best: Option<Step> = None;
    for k in MIN_SIDE_DAYS..=n - MIN_SIDE_DAYS {
        let (a, b) = (k as f64, (n - k) as f64);
        let (ma, mb) = (s[k] / a, (s[n] - s[k]) / b);
        let ss = (q[k] - a * ma * ma) + ((q[n] - q[k]) - b * mb * mb);
        let sd = (ss.max(0.0) / (n - 2) as f64).sqrt();
        if mb <= ma {
            continue;
        }
        // a share that held perfectly still on each side: a step as sure as it can be
        let t = if sd > 0.0 { (mb - ma) / sd * (a * b / n as f64).sqrt() } else { f64::INFINITY };
        if best.as_ref().is_none_or(|x| t > x.t) {
            best = Some(Step {
                member: 0,
                day: daily[k].0,
                share_before: ma,
                share_after: mb,
                t,
                cfm: 0.0,
                days: (k, n - k),
                setpoint_move: None,
            });
        }
    }
    best
}

/// The findings of the boxes that stepped: warn, or info when the box's own cooling setpoint
/// fell across the same split.
pub fn findings(spec: &RuleSpec, fleet: &Fleet) -> Vec<FleetFinding> {
    steps(fleet)
        .into_iter()
        .map(|(ahu, s)| {
            let box_id = fleet.members[s.member].equip;
            let date = camber_common::time::civil_from_days(s.day);
            let date = format!("{:04}-{:02}-{:02}", date.0, date.1, date.2);
            let asked = s.setpoint_move.is_some_and(|m| m <= -SETPOINT_MOVE_F);
            let (severity, cause) = if asked {
                (
                    Severity::Info,
                    format!(
                        "its own cooling setpoint fell {:.1} °F across the same days, which asks for this",
                        -s.setpoint_move.unwrap_or_default()
                    ),
                )
            } else {
                (Severity::Warn, "its zone asks for more cooling than before while its peers on the same supply air and weather do not: check its thermostat against a reference thermometer (a sensor reading high holds the zone colder than the BAS shows) and any new load in the zone".to_string())
            };
            let summary = format!(
                "{}: its share of the airflow of {}'s boxes rose from {:.1} % to {:.1} % on {date} and held ({} days before, {} after; t = {:.1}, about {:.0} cfm more): {cause}",
                camber_common::text::name(box_id),
                camber_common::text::name(&ahu),
                100.0 * s.share_before,
                100.0 * s.share_after,
                s.days.0,
                s.days.1,
                s.t.min(999.0),
                s.cfm
            );
            let start = s.day * 24 * NS_PER_HOUR;
            let col = fleet.column(s.member, "airflow").unwrap_or_default();
            let flagged: Vec<u32> =
                (0..fleet.times.len()).filter(|&i| fleet.times[i] >= start && col[i].is_finite()).map(|i| i as u32).collect();
            let mut metrics = std::collections::BTreeMap::new();
            metrics.insert("share_before_pct".into(), crate::engine::round2(100.0 * s.share_before));
            metrics.insert("share_after_pct".into(), crate::engine::round2(100.0 * s.share_after));
            metrics.insert("step_t".into(), crate::engine::round2(s.t.min(999.0)));
            metrics.insert("step_cfm".into(), s.cfm.round());
            metrics.insert("days_before".into(), s.days.0 as f64);
            metrics.insert("days_after".into(), s.days.1 as f64);
            if let Some(m) = s.setpoint_move {
                metrics.insert("cool_sp_move_f".into(), crate::engine::round2(m));
            }
            let finding = Finding::new(spec, severity, summary)
                .with_metrics(metrics)
                .with_judged(s.days.0 + s.days.1)
                .with_flagged(flagged);
            FleetFinding { group: Some(ahu), finding, equips: vec![box_id.to_string()] }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, fleet, MINUTE, MONDAY};
    use crate::engine::Frame;
    use crate::rules::cohort_airflow::RULE;

    /// A scatter in [-0.5, 0.5) that repeats only after 9973 samples.
    fn scatter(i: usize, seed: usize) -> f64 {
        (((i * 7919 + seed * 104_729) % 9973) as f64 / 9973.0) - 0.5
    }

    /// Five boxes on one air handler for `days` days at 15 minutes, each running 7:00-18:00 on
    /// a cooling load that moves with the day's weather and the hour, with its own noise; box
    /// `k`'s airflow times `gain(k, day)`, its cooling setpoint `sp(k, day)`.
    fn floor(days: usize, gain: impl Fn(usize, usize) -> f64, sp: impl Fn(usize, usize) -> f64) -> Vec<Frame> {
        let n = days * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let weather: Vec<f64> = (0..days).map(|d| 1.0 + 0.5 * scatter(d, 3)).collect();
        (0..5)
            .map(|k| {
                let size = [900.0, 1100.0, 700.0, 1000.0, 800.0][k];
                let flow: Vec<f64> = (0..n)
                    .map(|i| {
                        let (d, h) = (i / 96, (i % 96) as f64 / 4.0);
                        if !(7.0..18.0).contains(&h) {
                            return 0.0;
                        }
                        let load = weather[d] * (0.5 + 0.4 * (std::f64::consts::PI * (h - 7.0) / 11.0).sin());
                        size * load * gain(k, d) * (1.0 + 0.08 * scatter(i, k + 1))
                    })
                    .collect();
                let cool_sp: Vec<f64> = (0..n).map(|i| sp(k, i / 96)).collect();
                Frame::from_rows(&ts, &[("airflow", flow), ("cool_sp", cool_sp)])
            })
            .collect()
    }

    fn judged(frames: &[Frame], parent: Option<&str>) -> Vec<FleetFinding> {
        let names = ["VAV-1", "VAV-2", "VAV-3", "VAV-4", "VAV-5"];
        let members: Vec<(&str, Option<&str>, &Frame)> =
            names.iter().zip(frames).map(|(n, f)| (*n, parent, f)).collect();
        fleet(&RULE, &members, &crate::engine::Params::default())
            .into_iter()
            .filter(|f| f.finding.metrics.contains_key("step_t"))
            .collect()
    }

    #[test]
    fn a_box_that_begins_working_harder_than_its_siblings_is_named() {
        // from day 10 of 20, box 3 carries half again its airflow (its thermostat reading high)
        let stepped = floor(20, |k, d| if k == 2 && d >= 10 { 1.5 } else { 1.0 }, |_, _| 75.0);
        let found = judged(&stepped, Some("AHU-1"));
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(
            (f.finding.severity, f.equips.clone(), f.group.clone()),
            (Severity::Warn, vec!["VAV-3".to_string()], Some("AHU-1".into()))
        );
        assert!(f.finding.summary.contains("on 2024-01-11"), "{}", f.finding.summary);
        assert!(f.finding.metrics["step_t"] >= STEP_T);
        assert_eq!((f.finding.metrics["days_before"], f.finding.metrics["days_after"]), (10.0, 10.0));
        assert!(!f.finding.flagged.is_empty());
        // the healthy twin, and the same floor with no topology to say who shares an air handler
        assert!(judged(&floor(20, |_, _| 1.0, |_, _| 75.0), Some("AHU-1")).is_empty());
        assert!(judged(&stepped, None).is_empty());
    }

    #[test]
    fn a_change_the_whole_air_handler_shares_is_not_a_box_step() {
        // every box's airflow rises together (a fouled coil, a hot spell): no share moves
        assert!(judged(&floor(20, |_, d| if d >= 10 { 1.5 } else { 1.0 }, |_, _| 75.0), Some("AHU-1")).is_empty());
        // a step too small to be worth a visit, and a record too short to split
        assert!(
            judged(&floor(20, |k, d| if k == 2 && d >= 10 { 1.1 } else { 1.0 }, |_, _| 75.0), Some("AHU-1")).is_empty()
        );
        assert!(
            judged(&floor(9, |k, d| if k == 2 && d >= 5 { 1.5 } else { 1.0 }, |_, _| 75.0), Some("AHU-1")).is_empty()
        );
    }

    #[test]
    fn a_step_its_own_setpoint_asked_for_is_info() {
        let frames = floor(
            20,
            |k, d| if k == 2 && d >= 10 { 1.5 } else { 1.0 },
            |k, d| if k == 2 && d >= 10 { 72.0 } else { 75.0 },
        );
        let found = judged(&frames, Some("AHU-1"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].finding.severity, Severity::Info);
        assert_eq!(found[0].finding.metrics["cool_sp_move_f"], -3.0);
        assert!(found[0].finding.summary.contains("setpoint fell 3.0 °F"), "{}", found[0].finding.summary);
    }

    #[test]
    fn the_split_with_the_surest_rise_is_taken() {
        let daily: Vec<(i64, f64)> =
            (0..16).map(|d| (d, if d >= 6 { 0.2 } else { 0.1 } + 0.01 * scatter(d as usize, 5))).collect();
        let s = rising_step(&daily).unwrap();
        assert_eq!((s.day, s.days), (6, (6, 10)));
        assert!((s.share_after / s.share_before - 2.0).abs() < 0.1);
        // a falling share has no rising step worth the name; too few days, none at all
        let falling: Vec<(i64, f64)> = daily.iter().map(|(d, v)| (*d, 0.3 - v)).collect();
        assert!(rising_step(&falling).is_none_or(|s| s.t < 3.0));
        assert!(rising_step(&daily[..9]).is_none());
    }
}
