//! How a variable-speed distribution pump runs, read from its speed: the share of its running
//! time pinned near full speed (riding its curve: no differential-pressure reset, or a setpoint
//! held too high, so the cube-law saving is lost) and near its minimum (a pump or setpoint larger
//! than the loop needs), and whether the loop's differential-pressure setpoint is reset at all.
//! Loop-agnostic: `hw_pump_dp_reset` reads it on the hot-water roles, `chw_pump_dp_reset` on the
//! chilled-water ones.
//!
//! Running comes from the run status where one is trended (`pump_status` as a duty: the samples
//! the pump ran for most of, a missing reading not running), since a stopped pump's speed point
//! may hold its last output; otherwise a speed above [`RUN_SPEED_PCT`] is running. Every share is
//! of time (each sample weighed by the time it stands for).

use crate::engine::{as_percent, weighted_quantile, Frame};

/// A pump runs when its speed is above this (%).
pub const RUN_SPEED_PCT: f64 = 5.0;
/// A speed at or above this (%) is full speed: no cube-law benefit is left.
pub const NEAR_FULL_PCT: f64 = 90.0;
/// The near-minimum band when none is given or none is learned (%), and the least band "auto"
/// uses.
pub const DEFAULT_NEAR_MIN_PCT: f64 = 25.0;
/// A differential-pressure setpoint whose standard deviation is under this (its own units) is
/// flat: not reset.
pub const DP_SP_FLAT_STD: f64 = 0.5;
/// Fewest setpoint samples the reset is judged on.
const MIN_SP_SAMPLES: usize = 10;

/// Where the near-minimum band came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Band {
    /// The number given.
    Fixed,
    /// "auto", from a learned VFD floor.
    Learned,
    /// "auto", with no floor found: the default band.
    Default,
}

impl Band {
    pub fn as_str(self) -> &'static str {
        match self {
            Band::Fixed => "fixed",
            Band::Learned => "learned",
            Band::Default => "default",
        }
    }
}

/// A pump's speed distribution over its running time.
#[derive(Clone, Debug, PartialEq)]
pub struct PumpSpeed {
    /// The running samples.
    pub running: Vec<usize>,
    /// Their hours.
    pub running_hours: f64,
    pub median_speed_pct: f64,
    pub near_full_pct: f64,
    pub near_min_pct: f64,
    pub near_full: Vec<u32>,
    pub near_min: Vec<u32>,
    /// The band used: a speed at or below it is near the minimum.
    pub band_pct: f64,
    pub band: Band,
    pub vfd_floor_pct: Option<f64>,
    /// `"status"` or `"speed"`.
    pub run_source: &'static str,
    /// With a status: samples whose speed reads above the running cut while the status says
    /// stopped (a parked speed point).
    pub n_parked: Option<usize>,
    pub median_dp_sp: Option<f64>,
    /// Whether the setpoint is reset (`None`: too few setpoint samples to say).
    pub dp_sp_reset: Option<bool>,
}

/// The pump's VFD minimum, learned from a plateau in its running speeds (`(speed, hours)`): the
/// 2nd percentile, accepted when at least a tenth of the running time sits within `tol` of it
/// and the 90th percentile is 20 points or more above it (the pump modulates above it, so the
/// plateau is a floor and not a fixed speed).
pub fn learn_vfd_floor(speeds: &[(f64, f64)], tol: f64) -> Option<f64> {
    let total: f64 = speeds.iter().map(|p| p.1).sum();
    if speeds.is_empty() || total <= 0.0 {
        return None;
    }
    let floor = weighted_quantile(&mut speeds.to_vec(), 0.02);
    let at: f64 = speeds.iter().filter(|p| (p.0 - floor).abs() <= tol).map(|p| p.1).sum();
    let p90 = weighted_quantile(&mut speeds.to_vec(), 0.90);
    (at / total >= 0.10 && p90 >= floor + 20.0).then(|| (floor * 10.0).round() / 10.0)
}

/// The time-weighted standard deviation of `(value, hours)` pairs.
fn weighted_std(pairs: &[(f64, f64)]) -> f64 {
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    if total <= 0.0 {
        return f64::NAN;
    }
    let mean = pairs.iter().map(|p| p.0 * p.1).sum::<f64>() / total;
    (pairs.iter().map(|p| (p.0 - mean).powi(2) * p.1).sum::<f64>() / total).sqrt()
}

/// The speed distribution of the pump whose speed is `speed_role` and whose loop setpoint is
/// `sp_role`. `near_min` is the band (%), or `None` to learn it ("auto") with `floor_tol`.
/// `None` when the pump never runs.
pub fn analyze(
    frame: &Frame,
    speed_role: &str,
    sp_role: &str,
    near_min: Option<f64>,
    floor_tol: f64,
) -> Option<PumpSpeed> {
    let speed = as_percent(frame.col(speed_role)?);
    let w = frame.weights_hours();
    let status = frame.col("pump_status").map(crate::cycles::duty);
    let on = |i: usize| status.as_ref().is_none_or(|s| s[i] > 0.5);
    let spinning = |i: usize| !speed[i].is_nan() && speed[i] > RUN_SPEED_PCT;
    let running: Vec<usize> = (0..frame.len()).filter(|&i| on(i) && spinning(i)).collect();
    if running.is_empty() {
        return None;
    }
    let n_parked = status.as_ref().map(|_| (0..frame.len()).filter(|&i| !on(i) && spinning(i)).count());
    let hours: f64 = running.iter().map(|&i| w[i]).sum();
    let pairs: Vec<(f64, f64)> = running.iter().map(|&i| (speed[i], w[i])).collect();
    let median = weighted_quantile(&mut pairs.clone(), 0.5);
    let (band_pct, band, floor) = match near_min {
        Some(b) => (b, Band::Fixed, None),
        None => match learn_vfd_floor(&pairs, floor_tol) {
            Some(f) => (DEFAULT_NEAR_MIN_PCT.max(f + floor_tol), Band::Learned, Some(f)),
            None => (DEFAULT_NEAR_MIN_PCT, Band::Default, None),
        },
    };
    let near_full: Vec<u32> = running.iter().filter(|&&i| speed[i] >= NEAR_FULL_PCT).map(|&i| i as u32).collect();
    let near_min: Vec<u32> = running.iter().filter(|&&i| speed[i] <= band_pct).map(|&i| i as u32).collect();
    let share = |idx: &[u32]| {
        if hours > 0.0 {
            // + 0.0: an empty float sum is -0.0, which would print as "-0"
            100.0 * (crate::engine::sum_at(&w, idx) + 0.0) / hours
        } else {
            0.0
        }
    };
    let (full_pct, min_pct) = (share(&near_full), share(&near_min));
    // the setpoint the pump ran against (every sample without a status), above zero
    let (median_dp_sp, dp_sp_reset) = match frame.col(sp_role) {
        Some(sp) => {
            let v: Vec<(f64, f64)> =
                (0..frame.len()).filter(|&i| on(i) && !sp[i].is_nan() && sp[i] > 0.0).map(|i| (sp[i], w[i])).collect();
            if v.len() >= MIN_SP_SAMPLES {
                (Some(weighted_quantile(&mut v.clone(), 0.5)), Some(weighted_std(&v) >= DP_SP_FLAT_STD))
            } else {
                (None, None)
            }
        }
        None => (None, None),
    };
    Some(PumpSpeed {
        running,
        running_hours: hours,
        median_speed_pct: median,
        near_full_pct: full_pct,
        near_min_pct: min_pct,
        near_full,
        near_min,
        band_pct,
        band,
        vfd_floor_pct: floor,
        run_source: if status.is_some() { "status" } else { "speed" },
        n_parked,
        median_dp_sp,
        dp_sp_reset,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, H, MONDAY};

    #[test]
    fn a_floor_is_learned_from_a_plateau_only() {
        // a fifth of the time parked at 32 %, the rest spread from 40 to 80
        let mut v: Vec<(f64, f64)> = (0..80).map(|k| (40.0 + k as f64 * 0.5, 1.0)).collect();
        v.extend((0..20).map(|_| (32.0, 1.0)));
        assert_eq!(learn_vfd_floor(&v, 1.0), Some(32.0));
        // no plateau: a smooth spread
        let smooth: Vec<(f64, f64)> = (0..100).map(|k| (30.0 + k as f64 * 0.5, 1.0)).collect();
        assert_eq!(learn_vfd_floor(&smooth, 1.0), None);
        // a fixed speed is no floor
        assert_eq!(learn_vfd_floor(&[(50.0, 1.0); 50], 1.0), None);
        assert_eq!(learn_vfd_floor(&[], 1.0), None);
    }

    #[test]
    fn a_status_decides_running_and_a_parked_speed_is_counted() {
        let ts = every(MONDAY, H, 20);
        let speed: Vec<f64> = (0..20).map(|i| if i < 10 { 60.0 } else { 34.5 }).collect();
        let status: Vec<f64> = (0..20).map(|i| if i < 10 { 1.0 } else { 0.0 }).collect();
        let f = Frame::from_rows(&ts, &[("hw_pump_speed", speed.clone()), ("pump_status", status)]);
        let p = analyze(&f, "hw_pump_speed", "hw_diff_press_sp", Some(25.0), 1.0).unwrap();
        assert_eq!((p.running.len(), p.n_parked, p.run_source), (10, Some(10), "status"));
        let g = Frame::from_rows(&ts, &[("hw_pump_speed", speed)]);
        let p = analyze(&g, "hw_pump_speed", "hw_diff_press_sp", Some(25.0), 1.0).unwrap();
        assert_eq!((p.running.len(), p.n_parked, p.run_source), (20, None, "speed"));
        // a pump that never runs
        let z = Frame::from_rows(&ts, &[("hw_pump_speed", vec![0.0; 20])]);
        assert!(analyze(&z, "hw_pump_speed", "hw_diff_press_sp", None, 1.0).is_none());
    }
}
