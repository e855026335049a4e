//! What the terminal-box rules share (`reheat_minimization_g36`, `reheat_penalty`,
//! `reheat_capacity_shortfall`, `overcooling_min_flow`, `overcooling_severity`): which samples
//! are occupied, which point is the box's minimum airflow, which valve point says heat went in,
//! whether the valve's demand and its position disagree, the recovery window after occupancy
//! starts, and whether the fan runs. Each is decided here once, so the rules agree on it.

use crate::economizer::percentile;
use crate::engine::{as_percent, median, on, scheduled, Frame, ParamDecl, Params};

/// A reheat valve above this (%) is reheating; at or below it, a shut valve's offset or leak-by
/// reading.
pub const REHEAT_OPEN_PCT: f64 = 5.0;

/// The occupied samples: the occupancy point where it is trended (it replaces the schedule),
/// else the `start_hour`/`end_hour`/`occupied_days` schedule; less the samples any of the `prep`
/// mode roles (`warmup`, `cooldown`) reads on.
pub fn occupied(spec: &impl ParamDecl, frame: &Frame, params: &Params, prep: &[&str]) -> Vec<bool> {
    let in_schedule = scheduled(spec, params);
    let occ = frame.col("occupancy");
    let modes: Vec<&[f64]> = prep.iter().filter_map(|r| frame.col(r)).collect();
    (0..frame.len())
        .map(|i| {
            let occupied = match occ {
                Some(o) => on(o[i]),
                None => in_schedule(frame.ts[i]),
            };
            occupied && !modes.iter().any(|m| on(m[i]))
        })
        .collect()
}

/// The caveat of a rule that fell back to the schedule: the days and hours it assumed.
pub fn schedule_caveat(spec: &impl ParamDecl, params: &Params) -> String {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let days: Vec<&str> =
        params.list(spec, "occupied_days").iter().filter_map(|d| DAYS.get(*d as usize).copied()).collect();
    format!(
        "no occupancy point is trended: occupied time is assumed to be {} from {}:00 to {}:00 (start_hour, end_hour, occupied_days)",
        days.join(", "),
        params.number(spec, "start_hour"),
        params.number(spec, "end_hour"),
    )
}

/// An airflow setpoint that swings with load (the box's active setpoint, not its minimum): its
/// 90th percentile at least this multiple of its 10th ...
pub const ACTIVE_SPREAD: f64 = 1.5;
/// ... with the airflow following it: the median of |airflow / setpoint - 1| at most this.
pub const ACTIVE_TRACKING: f64 = 0.10;
/// The minimum read off an active setpoint: this percentile of its positive values.
pub const INFERRED_MIN_PCTL: f64 = 5.0;
/// Fewest samples with a positive setpoint and an airflow before a setpoint can be called
/// active.
const ACTIVE_MIN_SAMPLES: usize = 24;

/// Which point gave a box's minimum airflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinBasis {
    /// The minimum airflow setpoint (`airflow_min_sp`).
    MinSetpoint,
    /// `airflow_sp`, which holds still as a minimum does.
    SetpointAsMin,
    /// `airflow_sp` swings with load and the airflow follows it, so it is the active setpoint:
    /// the minimum is its [`INFERRED_MIN_PCTL`]th percentile.
    Inferred,
}

impl MinBasis {
    /// The basis as a finding says it.
    pub fn describe(self) -> &'static str {
        match self {
            MinBasis::MinSetpoint => "airflow_min_sp",
            MinBasis::SetpointAsMin => "airflow_sp read as the minimum",
            MinBasis::Inferred => "inferred from the active airflow_sp",
        }
    }
}

/// The caveat of a minimum inferred from an active airflow setpoint.
pub const INFERRED_CAVEAT: &str = "airflow_sp swings with load and the airflow follows it, so it is the box's active airflow setpoint and not its minimum: the minimum was taken as its 5th percentile (map the minimum airflow setpoint as airflow_min_sp)";

/// A box's minimum airflow at each sample and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct MinFlow {
    pub at: Vec<f64>,
    pub basis: MinBasis,
}

/// Whether `airflow_sp` moves like the box's active airflow setpoint over the `keep` samples
/// with a positive setpoint and an airflow: it swings ([`ACTIVE_SPREAD`]) and the airflow
/// follows it ([`ACTIVE_TRACKING`]). Too few such samples to tell: no.
pub fn setpoint_looks_active(frame: &Frame, keep: &[bool]) -> bool {
    let (Some(sp), Some(flow)) = (frame.col("airflow_sp"), frame.col("airflow")) else {
        return false;
    };
    let idx: Vec<usize> = (0..frame.len()).filter(|&i| keep[i] && sp[i] > 0.0 && !flow[i].is_nan()).collect();
    if idx.len() < ACTIVE_MIN_SAMPLES {
        return false;
    }
    let mut s: Vec<f64> = idx.iter().map(|&i| sp[i]).collect();
    s.sort_by(f64::total_cmp);
    let (lo, hi) = (percentile(&s, 10.0), percentile(&s, 90.0));
    let mut err: Vec<f64> = idx.iter().map(|&i| (flow[i] / sp[i] - 1.0).abs()).collect();
    hi >= ACTIVE_SPREAD * lo && median(&mut err) <= ACTIVE_TRACKING
}

/// The box's minimum airflow: `airflow_min_sp` when trended; else `airflow_sp` as it is, unless
/// it looks active over the `keep` samples ([`setpoint_looks_active`]), when the minimum is the
/// [`INFERRED_MIN_PCTL`]th percentile of its positive `keep` values, at every sample. `None`
/// with neither point.
pub fn min_flow(frame: &Frame, keep: &[bool]) -> Option<MinFlow> {
    if let Some(m) = frame.col("airflow_min_sp") {
        return Some(MinFlow { at: m.to_vec(), basis: MinBasis::MinSetpoint });
    }
    let sp = frame.col("airflow_sp")?;
    if !setpoint_looks_active(frame, keep) {
        return Some(MinFlow { at: sp.to_vec(), basis: MinBasis::SetpointAsMin });
    }
    let mut pos: Vec<f64> = (0..frame.len()).filter(|&i| keep[i] && sp[i] > 0.0).map(|i| sp[i]).collect();
    pos.sort_by(f64::total_cmp);
    Some(MinFlow { at: vec![percentile(&pos, INFERRED_MIN_PCTL); frame.len()], basis: MinBasis::Inferred })
}

/// Which reheat valve point a rule about delivered heat reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValveSignal {
    /// The measured position (`heat_valve_position`).
    Position,
    /// The command (`heat_valve`), or the only valve point trended.
    Demand,
}

/// The reheat valve as heat delivered: its measured position when trended (a valve stuck shut
/// then delivers nothing however hard it is driven), else its command. Valves are read on a
/// 0-100 % scale as trended, not rescaled: a shut valve's 0-1 % readings over a whole record
/// would otherwise read as a 0-1 fraction wide open.
pub fn delivered_valve(frame: &Frame) -> Option<(&[f64], ValveSignal)> {
    if let Some(p) = frame.col("heat_valve_position") {
        return Some((p, ValveSignal::Position));
    }
    frame.col("heat_valve").map(|v| (v, ValveSignal::Demand))
}

/// A command at or above this (%) asks for full heat ...
pub const FULL_DEMAND_PCT: f64 = 90.0;
/// ... which a position at or below this (%) does not deliver ...
pub const SHUT_POSITION_PCT: f64 = 5.0;
/// ... on at least this share of the full-demand samples: a stuck or failed valve.
pub const DIVERGE_SHARE: f64 = 0.25;
/// Fewest samples a valve or discharge-air check needs.
pub const MIN_CHECK_SAMPLES: usize = 12;

/// The share of the `keep` samples asking for full heat (command at or above
/// [`FULL_DEMAND_PCT`]) whose measured position reads shut (at or below
/// [`SHUT_POSITION_PCT`]), by time; `None` unless both points are trended and there are
/// [`MIN_CHECK_SAMPLES`] such samples.
pub fn valve_divergence(frame: &Frame, keep: &[bool]) -> Option<f64> {
    let (demand, position) = (frame.col("heat_valve")?, frame.col("heat_valve_position")?);
    let w = frame.weights_hours();
    let full: Vec<usize> =
        (0..frame.len()).filter(|&i| keep[i] && demand[i] >= FULL_DEMAND_PCT && !position[i].is_nan()).collect();
    if full.len() < MIN_CHECK_SAMPLES {
        return None;
    }
    let total: f64 = full.iter().map(|&i| w[i]).sum();
    let shut: f64 = full.iter().filter(|&&i| position[i] <= SHUT_POSITION_PCT).map(|&i| w[i]).sum();
    (total > 0.0).then(|| shut / total)
}

/// The caveat of a valve whose position does not follow a full-heat command.
pub fn divergence_caveat(share: f64) -> String {
    format!(
        "the reheat command is at or above {FULL_DEMAND_PCT}% while the measured position reads {SHUT_POSITION_PCT}% or less on {:.0}% of the occupied full-demand time: a stuck or failed valve or actuator (the controller asks for heat the valve does not pass), not a reheat fault",
        100.0 * share
    )
}

/// The occupied samples less than `hours` after the start of their occupied block or after one
/// of the `events` (a setpoint stepping up, say). A block starts at an occupied sample that
/// follows an unoccupied one, so a record that opens occupied is not trimmed.
pub fn recovery(ts: &[i64], occupied: &[bool], events: Option<&[bool]>, hours: f64) -> Vec<bool> {
    let window = (hours * crate::engine::NS_PER_HOUR as f64) as i64;
    let mut since: Option<i64> = None;
    (0..ts.len())
        .map(|i| {
            if i > 0 && occupied[i] && !occupied[i - 1] {
                since = Some(ts[i]);
            }
            if events.is_some_and(|e| e[i]) {
                since = Some(ts[i]);
            }
            if !occupied[i] {
                // a block's start counts while the block lasts; the next block starts anew
                since = None;
                return false;
            }
            hours > 0.0 && since.is_some_and(|t0| ts[i] - t0 < window)
        })
        .collect()
}

/// A fan speed at or below this (%) is a fan that is off.
pub const FAN_OFF_SPEED_PCT: f64 = 5.0;

/// Whether the fan runs at each sample, from the first fan signal trended: its status (on above
/// 0.5), else its speed (above [`FAN_OFF_SPEED_PCT`], a 0-1 scale read as a fraction), with the
/// signal's name. A sample with no reading is not known to run. `None` without either signal.
pub fn fan_running(frame: &Frame) -> Option<(Vec<bool>, &'static str)> {
    if let Some(s) = frame.col("supply_fan_status") {
        return Some((s.iter().map(|&v| v > 0.5).collect(), "fan status"));
    }
    let speed = as_percent(frame.col("supply_fan_speed")?);
    Some((speed.iter().map(|&v| v > FAN_OFF_SPEED_PCT).collect(), "fan speed"))
}

/// The hours the `mask`ed samples stand for.
pub fn hours(w: &[f64], mask: impl Fn(usize) -> bool) -> f64 {
    // + 0.0: an empty float sum is -0.0
    (0..w.len()).filter(|&i| mask(i)).map(|i| w[i]).sum::<f64>() + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, H, MONDAY};

    #[test]
    fn an_airflow_setpoint_that_swings_and_is_followed_is_active() {
        let n = 48;
        let ts = every(MONDAY, H, n);
        let sp: Vec<f64> = (0..n).map(|i| 300.0 + 30.0 * (i % 20) as f64).collect();
        let keep = vec![true; n];
        let f = Frame::from_rows(&ts, &[("airflow_sp", sp.clone()), ("airflow", sp.clone())]);
        assert!(setpoint_looks_active(&f, &keep));
        let m = min_flow(&f, &keep).unwrap();
        assert_eq!(m.basis, MinBasis::Inferred);
        let mut sorted = sp.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(m.at[0], percentile(&sorted, 5.0));
        // a flat minimum with the airflow above it is read as the minimum
        let flat = Frame::from_rows(&ts, &[("airflow_sp", vec![300.0; n]), ("airflow", sp.clone())]);
        assert_eq!(min_flow(&flat, &keep).unwrap().basis, MinBasis::SetpointAsMin);
        // a swinging setpoint the airflow does not follow is not active
        let loose = Frame::from_rows(&ts, &[("airflow_sp", sp.clone()), ("airflow", vec![400.0; n])]);
        assert!(!setpoint_looks_active(&loose, &keep));
        // fewer than 24 kept samples: not enough to tell
        let few: Vec<bool> = (0..n).map(|i| i < 23).collect();
        assert!(!setpoint_looks_active(&f, &few));
        // the minimum setpoint wins when trended
        let both =
            Frame::from_rows(&ts, &[("airflow_sp", sp.clone()), ("airflow", sp), ("airflow_min_sp", vec![250.0; n])]);
        assert_eq!(min_flow(&both, &keep).unwrap(), MinFlow { at: vec![250.0; n], basis: MinBasis::MinSetpoint });
        assert!(min_flow(&Frame::from_rows(&ts, &[("airflow", vec![1.0; n])]), &keep).is_none());
    }

    #[test]
    fn the_position_is_read_over_the_demand_and_their_disagreement_measured() {
        let n = 20;
        let ts = every(MONDAY, H, n);
        let f = Frame::from_rows(&ts, &[("heat_valve", vec![100.0; n]), ("heat_valve_position", vec![0.0; n])]);
        let (v, s) = delivered_valve(&f).unwrap();
        assert_eq!((v[0], s), (0.0, ValveSignal::Position));
        assert_eq!(valve_divergence(&f, &vec![true; n]), Some(1.0));
        // fewer than 12 full-demand samples: not measured
        assert_eq!(valve_divergence(&f, &(0..n).map(|i| i < 11).collect::<Vec<_>>()), None);
        let g = Frame::from_rows(&ts, &[("heat_valve", vec![50.0; n])]);
        assert_eq!(delivered_valve(&g).unwrap(), (&[50.0; 20][..], ValveSignal::Demand));
        assert_eq!(valve_divergence(&g, &vec![true; n]), None);
    }

    #[test]
    fn recovery_follows_each_occupied_start_and_each_event() {
        let ts = every(MONDAY, H, 8);
        let occ = [false, true, true, true, false, true, true, true];
        assert_eq!(recovery(&ts, &occ, None, 2.0), [false, true, true, false, false, true, true, false]);
        // a record that opens occupied is not trimmed; zero hours trims nothing
        let all = [true; 8];
        assert_eq!(recovery(&ts, &all, None, 2.0), [false; 8]);
        assert_eq!(recovery(&ts, &occ, None, 0.0), [false; 8]);
        let mut events = [false; 8];
        events[2] = true;
        assert_eq!(recovery(&ts, &all, Some(&events), 1.5), [false, false, true, true, false, false, false, false]);
    }

    #[test]
    fn the_fan_from_its_status_else_its_speed() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("supply_fan_speed", vec![0.04, 0.5, f64::NAN])]);
        assert_eq!(fan_running(&f), Some((vec![false, true, false], "fan speed")));
        let g =
            Frame::from_rows(&ts, &[("supply_fan_status", vec![1.0, 0.0, 1.0]), ("supply_fan_speed", vec![0.0; 3])]);
        assert_eq!(fan_running(&g).unwrap().0, vec![true, false, true]);
        assert!(fan_running(&Frame::from_rows(&ts, &[("airflow", vec![1.0; 3])])).is_none());
    }
}
