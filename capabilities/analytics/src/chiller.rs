//! What the chilled-water plant rules share (`chiller_approach_fouling`, `chiller_efficiency`,
//! `chiller_staging`, `chiller_staging_fleet`, `chw_plant_reset`, `chw_supply_tracking`,
//! `chw_pump_dp_reset`, `condenser_bypass_leak`): when a chiller or a chilled-water loop runs,
//! which equipment is a loop rather than a chiller, and the cooling a chiller makes. Each is
//! decided here once, so the rules agree on it.
//!
//! **When a chiller runs.** Its run status or command (`compressor_status`) when trended: a
//! resampled status is a duty (the share of the interval it ran), and a sample runs when the
//! duty is above a half. Else its electric power above a tenth ([`POWER_RUN_FRAC`]) of its own
//! 95th-percentile draw, the percentile taken over the samples drawing any power, so a stopped
//! chiller's standby draw (controls, oil and crankcase heaters) does not read as running and a
//! lag chiller that sits at 0 kW most of the time still reads its working draw. A rule may set
//! an explicit kW floor instead (`min_power_kw`).
//!
//! **A chilled-water loop** (a secondary loop, a decoupled distribution loop) has no
//! compressor, and its `power` point is its pumps'. By its class (`CHW_LOOP`, `SECLOOP`:
//! [`is_chw_loop`]) in a fleet; on one frame by what it carries: a pump's run status or speed
//! and no compressor status ([`looks_like_loop`]). A loop runs by its pumps' status, else its
//! flow above 5 % ([`LOOP_FLOW_RUN_FRAC`]) of its own 95th percentile, else its pumps' power
//! above a tenth of its 95th percentile.

use crate::cycles::duty;
use crate::economizer::percentile;
use crate::engine::Frame;

/// A chiller (or a loop's pumps) runs above this share of its 95th-percentile power.
pub const POWER_RUN_FRAC: f64 = 0.10;
/// A loop runs while its flow is above this share of its 95th-percentile flow.
pub const LOOP_FLOW_RUN_FRAC: f64 = 0.05;

/// What said the equipment was running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunSource {
    /// The chiller's run status or command (`compressor_status`).
    Status,
    /// The chiller's power above a share of its 95th percentile.
    Power,
    /// The chiller's power at or above an explicit kW floor (`min_power_kw`).
    PowerKw,
    /// A loop's pump run status (`pump_status`).
    PumpStatus,
    /// A loop's flow above a share of its 95th percentile.
    Flow,
    /// A loop's pump power above a share of its 95th percentile.
    PumpPower,
}

impl RunSource {
    /// The source as a finding names it (the reference's `run_source` words).
    pub fn name(self) -> &'static str {
        match self {
            RunSource::Status => "status",
            RunSource::Power => "power",
            RunSource::PowerKw => "power_kw",
            RunSource::PumpStatus => "pump_status",
            RunSource::Flow => "flow",
            RunSource::PumpPower => "pump_power",
        }
    }

    /// Whether a status point (the chiller's or the pumps') said so.
    pub fn is_status(self) -> bool {
        matches!(self, RunSource::Status | RunSource::PumpStatus)
    }

    /// The caveat of a run read from something weaker than a chiller's own status.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            RunSource::Status | RunSource::PumpStatus => None,
            RunSource::Power => Some("no chiller run status mapped: running read from the chiller's power above a tenth of its own 95th-percentile draw (map compressor_status for a firmer gate)"),
            RunSource::PowerKw => Some("no chiller run status mapped: running read from the chiller's power at or above min_power_kw (map compressor_status for a firmer gate)"),
            RunSource::Flow => Some("a chilled-water loop with no pump run status mapped: running read from the loop flow above 5 % of its 95th percentile (map pump_status for a firmer gate)"),
            RunSource::PumpPower => Some("a chilled-water loop with no pump run status or flow mapped: running read from its pumps' power above a tenth of its 95th percentile (map pump_status or chw_flow)"),
        }
    }
}

/// When the equipment ran, sample by sample, and what said so.
#[derive(Clone, Debug, PartialEq)]
pub struct Running {
    /// Whether each sample ran (false where the signal has no reading).
    pub on: Vec<bool>,
    pub source: RunSource,
    /// The power or flow threshold read (NaN for a status).
    pub threshold: f64,
}

/// Whether each sample of a run status ran: a duty above a half (a 0-100 % status is read as a
/// percentage); false where it has no reading. `None` when the status never reads.
pub fn by_status(status: &[f64]) -> Option<Vec<bool>> {
    if status.iter().all(|v| v.is_nan()) {
        return None;
    }
    Some(duty(status).iter().map(|d| !d.is_nan() && *d > 0.5).collect())
}

/// The 95th percentile (linear between order statistics) of the positive readings; NaN without
/// one.
pub fn p95_positive(col: &[f64]) -> f64 {
    let mut v: Vec<f64> = col.iter().copied().filter(|x| *x > 0.0).collect();
    v.sort_by(f64::total_cmp);
    percentile(&v, 95.0)
}

/// Whether each sample reads above `frac` of the column's [`p95_positive`], and the threshold;
/// `None` when no reading is positive.
pub fn above_p95(col: &[f64], frac: f64) -> Option<(Vec<bool>, f64)> {
    let p95 = p95_positive(col);
    if p95.is_nan() || p95 <= 0.0 {
        return None;
    }
    let thr = frac * p95;
    Some((col.iter().map(|v| *v > thr).collect(), thr))
}

/// When a chiller ran: its status, else its power at or above `min_power_kw` when that is set
/// (not NaN), else its power above `run_frac` of its 95th percentile. `None` with neither
/// signal (or a power that never reads positive).
pub fn chiller_running(frame: &Frame, min_power_kw: f64, run_frac: f64) -> Option<Running> {
    if let Some(on) = frame.col("compressor_status").and_then(by_status) {
        return Some(Running { on, source: RunSource::Status, threshold: f64::NAN });
    }
    let power = frame.col("power")?;
    if !min_power_kw.is_nan() {
        let on = power.iter().map(|p| *p >= min_power_kw).collect();
        return Some(Running { on, source: RunSource::PowerKw, threshold: min_power_kw });
    }
    above_p95(power, run_frac).map(|(on, threshold)| Running { on, source: RunSource::Power, threshold })
}

/// Whether one equipment's frame reads as a chilled-water loop's rather than a chiller's: it
/// carries a pump's run status or speed and no compressor status.
pub fn looks_like_loop(frame: &Frame) -> bool {
    frame.col("compressor_status").is_none()
        && (frame.col("pump_status").is_some() || frame.col("chw_pump_speed").is_some())
}

/// When a chilled-water loop ran: its pumps' status, else its flow above
/// [`LOOP_FLOW_RUN_FRAC`] of its 95th percentile, else its pumps' power above
/// [`POWER_RUN_FRAC`] of it.
pub fn loop_running(frame: &Frame) -> Option<Running> {
    if let Some(on) = frame.col("pump_status").and_then(by_status) {
        return Some(Running { on, source: RunSource::PumpStatus, threshold: f64::NAN });
    }
    if let Some((on, threshold)) = frame.col("chw_flow").and_then(|f| above_p95(f, LOOP_FLOW_RUN_FRAC)) {
        return Some(Running { on, source: RunSource::Flow, threshold });
    }
    let (on, threshold) = frame.col("power").and_then(|p| above_p95(p, POWER_RUN_FRAC))?;
    Some(Running { on, source: RunSource::PumpPower, threshold })
}

/// When a chilled-water plant's equipment ran, for the rules that judge its water: a chiller's
/// status; on a loop ([`looks_like_loop`]) its pumps ([`loop_running`]); else a chiller's power
/// above a tenth of its 95th percentile. `None`: no run signal (the caller falls back to the
/// supply temperature and says so).
pub fn plant_running(frame: &Frame) -> Option<Running> {
    if let Some(on) = frame.col("compressor_status").and_then(by_status) {
        return Some(Running { on, source: RunSource::Status, threshold: f64::NAN });
    }
    if looks_like_loop(frame) {
        return loop_running(frame);
    }
    chiller_running(frame, f64::NAN, POWER_RUN_FRAC)
}

/// The running samples less the first `settle` of each run (a start's pull-down).
pub fn settled(on: &[bool], settle: usize) -> Vec<bool> {
    let mut out = on.to_vec();
    let mut since = usize::MAX;
    for i in 0..on.len() {
        if on[i] && (i == 0 || !on[i - 1]) {
            since = 0;
        }
        if on[i] && since < settle {
            out[i] = false;
        }
        since = since.saturating_add(1);
    }
    out
}

/// Whether an equipment class names a chilled-water loop rather than a chiller: a bare primary,
/// secondary or distribution loop name (`SECLOOP`, `PRIMARY_LOOP`, ...), or a class of the
/// chilled-water family with "loop" in it (`CHW_LOOP`, `ChilledWaterLoop`, `CHW_SEC_LOOP`). Case,
/// separators and a trailing number are ignored.
pub fn is_chw_loop(class: &str) -> bool {
    let n: String = class.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_uppercase()).collect();
    let n = n.trim_end_matches(|c: char| c.is_ascii_digit());
    const BARE: &[&str] = &["SECLOOP", "PRILOOP", "SECONDARYLOOP", "PRIMARYLOOP", "DISTRIBUTIONLOOP"];
    !n.is_empty() && (BARE.contains(&n) || (n.contains("LOOP") && crate::family::family_of(class) == Some("chw_plant")))
}

/// A chiller's cooling output (tons) from its chilled-water flow (gpm) and loop temperatures
/// (°F): `flow x (return - supply) / 24`, 500 Btu/h per gpm-°F over 12,000 Btu/h per ton.
pub fn tons(flow_gpm: f64, return_f: f64, supply_f: f64) -> f64 {
    flow_gpm * (return_f - supply_f) / 24.0
}

/// How a chiller rejects its heat, which sets the temperature its rating is stated at and the
/// temperature its lift is read from ([`lift_factor`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condenser {
    /// Water-cooled: rated at 85 °F entering condenser water (AHRI 550/590), its lift read from
    /// `cond_entering_water_temp`.
    Water,
    /// Air-cooled: rated at 95 °F outdoor air, its lift read from the outdoor air (`oat`).
    Air,
}

impl Condenser {
    /// The condenser medium's temperature at the rating point (°F).
    pub fn rating_f(self) -> f64 {
        match self {
            Condenser::Water => 85.0,
            Condenser::Air => 95.0,
        }
    }

    /// The condensing temperature a medium at `medium_f` gives (°F): the medium plus the
    /// condenser's rise and approach at full load (12 °F over entering water, 25 °F over
    /// outdoor air), never below the head pressure a chiller holds in cold weather (75 °F
    /// leaving water, 85 °F condensing in air). Taking the full-load figures at every load
    /// over-states a part-loaded chiller's lift, which credits it less, never more.
    fn condensing_f(self, medium_f: f64) -> f64 {
        match self {
            Condenser::Water => (medium_f + 12.0).max(75.0),
            Condenser::Air => (medium_f + 25.0).max(85.0),
        }
    }
}

/// The leaving chilled water at a chiller's rating point (°F).
pub const RATING_CHWS_F: f64 = 44.0;
/// How far the evaporating refrigerant sits below the leaving chilled water (°F).
const EVAPORATOR_APPROACH_F: f64 = 6.0;

/// How much harder a chiller works per ton at its rating point than at the temperatures it
/// ran at: multiply a measured kW/ton by it to compare with a rated figure. A chiller's work per
/// ton follows its lift, the condensing over the evaporating temperature, as an ideal machine's
/// does (`lift / T_evaporating`); a chiller running with cool condenser water or outdoor air, or
/// warm chilled water, draws less than its rating for the same cooling, and one on a hot day
/// more. The factor is 1 at the rating point. The DOE-2 chiller curves of the ASHRAE 90.1
/// prototypes agree within about 5 % between 60 and 95 °F outdoor air (air-cooled) and 70 and
/// 85 °F condenser water (water-cooled).
pub fn lift_factor(condenser: Condenser, chws_f: f64, medium_f: f64) -> f64 {
    let work = |chws: f64, medium: f64| {
        let evap = chws - EVAPORATOR_APPROACH_F;
        (condenser.condensing_f(medium) - evap) / (evap + 459.67)
    };
    work(RATING_CHWS_F, condenser.rating_f()) / work(chws_f, medium_f)
}

/// The caveat of a loop reading the supply temperature as its only run signal.
pub const TEMPERATURE_GATE_CAVEAT: &str = "no run status, power or flow mapped: running hours read from the supply temperature sitting in a chilled range (38-58 °F), which also counts a stopped chiller on a cold or shared loop (map compressor_status)";

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(cols: &[(&str, Vec<f64>)]) -> Frame {
        let n = cols[0].1.len();
        Frame::from_rows(&(0..n as i64).collect::<Vec<_>>(), cols)
    }

    #[test]
    fn a_chiller_runs_by_its_status_else_its_power() {
        // a duty above a half runs; a missing reading does not
        let s = by_status(&[0.0, 0.4, 0.6, 1.0, f64::NAN]).unwrap();
        assert_eq!(s, [false, false, true, true, false]);
        assert_eq!(by_status(&[0.0, 100.0]).unwrap(), [false, true]);
        assert!(by_status(&[f64::NAN]).is_none());
        // standby draw (5 kW) under a tenth of the working draw's 95th percentile is off
        let power = vec![5.0, 5.0, 200.0, 210.0, 190.0, 0.0, 5.0, 205.0];
        let r = chiller_running(&frame(&[("power", power.clone())]), f64::NAN, POWER_RUN_FRAC).unwrap();
        assert_eq!(r.source, RunSource::Power);
        assert_eq!(r.on, [false, false, true, true, true, false, false, true]);
        assert!((r.threshold - 20.85).abs() < 1e-9, "{}", r.threshold);
        // an explicit floor
        let r = chiller_running(&frame(&[("power", power.clone())]), 5.0, POWER_RUN_FRAC).unwrap();
        assert_eq!((r.source, r.on[0], r.on[5]), (RunSource::PowerKw, true, false));
        // the status wins
        let f = frame(&[("power", power), ("compressor_status", vec![1.0; 8])]);
        assert_eq!(chiller_running(&f, f64::NAN, 0.1).unwrap().source, RunSource::Status);
        // nothing to read
        assert!(chiller_running(&frame(&[("power", vec![0.0; 4])]), f64::NAN, 0.1).is_none());
        assert!(chiller_running(&frame(&[("chw_supply_temp", vec![44.0; 4])]), f64::NAN, 0.1).is_none());
    }

    #[test]
    fn a_loop_runs_by_its_pumps() {
        let flow = vec![0.0, 600.0, 20.0, 650.0];
        let f = frame(&[
            ("chw_pump_speed", vec![0.0, 80.0, 0.0, 80.0]),
            ("chw_flow", flow.clone()),
            ("power", vec![0.0, 12.0, 0.5, 13.0]),
        ]);
        assert!(looks_like_loop(&f));
        let r = plant_running(&f).unwrap();
        assert_eq!((r.source, r.on.clone()), (RunSource::Flow, vec![false, true, false, true]));
        let f = frame(&[("chw_pump_speed", vec![0.0, 80.0, 0.0, 80.0]), ("power", vec![0.0, 12.0, 0.5, 13.0])]);
        assert_eq!(plant_running(&f).unwrap().source, RunSource::PumpPower);
        let f = frame(&[("pump_status", vec![0.0, 1.0, 1.0, 0.0]), ("chw_flow", flow)]);
        assert_eq!(plant_running(&f).unwrap().on, [false, true, true, false]);
        // a chiller's frame is not a loop's, whatever it carries
        let f = frame(&[("chw_pump_speed", vec![80.0; 4]), ("compressor_status", vec![1.0; 4])]);
        assert!(!looks_like_loop(&f));
        for (class, is) in [
            ("CHW_LOOP", true),
            ("SECLOOP", true),
            ("ChilledWaterLoop", true),
            ("chw-sec-loop-2", true),
            ("CHILLER", false),
            ("CHW_PLANT", false),
            ("", false),
            ("HW_LOOP", false),
        ] {
            assert_eq!(is_chw_loop(class), is, "{class}");
        }
    }

    #[test]
    fn a_start_s_pull_down_is_left_out() {
        let on = [false, true, true, true, false, true, true];
        assert_eq!(settled(&on, 0), on);
        assert_eq!(settled(&on, 1), [false, false, true, true, false, false, true]);
        assert_eq!(settled(&on, 2), [false, false, false, true, false, false, false]);
        // a run from the first sample settles too
        assert_eq!(settled(&[true, true], 1), [false, true]);
        assert!((tons(600.0, 56.0, 44.0) - 300.0).abs() < 1e-9);
    }
    #[test]
    fn the_lift_factor_is_one_at_the_rating_point_and_credits_a_cool_condenser() {
        for c in [Condenser::Water, Condenser::Air] {
            assert!((lift_factor(c, RATING_CHWS_F, c.rating_f()) - 1.0).abs() < 1e-12);
        }
        // 70 °F condenser water: the DOE-2 prototype curve puts the work at 0.74-0.77 of rated
        let w = 1.0 / lift_factor(Condenser::Water, 44.0, 70.0);
        assert!((0.70..0.80).contains(&w), "{w}");
        // an air-cooled machine at 70 °F outdoors: the curve says 0.68
        let a = 1.0 / lift_factor(Condenser::Air, 44.0, 70.0);
        assert!((0.65..0.73).contains(&a), "{a}");
        // a hot day costs more than the rating; warmer chilled water less
        assert!(lift_factor(Condenser::Air, 44.0, 105.0) < 1.0);
        assert!(lift_factor(Condenser::Air, 48.0, 95.0) > 1.0);
        // head pressure held in cold weather: no credit past it
        assert_eq!(lift_factor(Condenser::Air, 44.0, 20.0), lift_factor(Condenser::Air, 44.0, 60.0));
        assert_eq!(lift_factor(Condenser::Water, 44.0, 40.0), lift_factor(Condenser::Water, 44.0, 63.0));
    }
}
