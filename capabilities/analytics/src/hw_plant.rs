//! What the hot-water plant rules share: when the boiler fired (its run status, else its gas
//! input), when the hot-water pump ran (its status, else its speed, else the loop flow), the
//! hours a plant is judged on, and the share of running time above a warm-weather lockout that
//! `boiler_summer_lockout` and `hw_pump_summer_lockout` both judge.
//!
//! A run status is read as a *duty* (`cycles::duty`): 0/1 as trended, or, resampled onto a
//! coarser grid, the share of each interval the equipment ran, so a boiler firing a quarter of
//! every hour is a quarter of those hours firing, not none of them. A stand-in (the gas input, a
//! speed, a flow) has no duty: it reads on or off against a running cut.

use crate::engine::{assumed_occupied, Frame, Severity};

/// The boiler fires when its gas input is above this share of the input's own 95th percentile.
pub const GAS_FIRING_FRAC: f64 = 0.05;
/// A pump runs when its speed is above this (%).
pub const PUMP_RUN_SPEED_PCT: f64 = 5.0;
/// A pump runs when the loop flow is above this share of the flow's own 95th percentile.
pub const PUMP_RUN_FLOW_FRAC: f64 = 0.05;
/// Shares (%) of running time above a lockout at which a lockout rule warns, and faults.
pub const LOCKOUT_WARN_PCT: f64 = 5.0;
pub const LOCKOUT_FAULT_PCT: f64 = 20.0;

/// The caveat of a finding whose firing was read from the gas input.
pub const GAS_CAVEAT: &str = "no boiler run status is trended: firing is read from the gas input above 5 % of its own 95th percentile, on the run's grid, so a firing shorter than the interval is invisible and starts and firing hours are approximate; map the burner's firing or flame signal (boiler_status) for a firmer reading";

/// The roles that place an equipment on a hot-water loop.
pub const HW_ROLES: &[&str] =
    &["hw_pump_speed", "hw_flow", "hw_supply_temp", "hw_return_temp", "boiler_status", "gas_input_rate"];

/// When an equipment ran, sample by sample: a duty in 0..1 (NaN where its source has no
/// reading), and what it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Running {
    pub duty: Vec<f64>,
    pub source: &'static str,
}

impl Running {
    /// Whether it ran for most of sample `i`.
    pub fn on(&self, i: usize) -> bool {
        self.duty[i] > 0.5
    }
}

/// The 95th percentile of a column's readings (NaN when it has none).
pub fn p95(col: &[f64]) -> f64 {
    let mut v: Vec<f64> = col.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_by(f64::total_cmp);
    crate::economizer::percentile(&v, 95.0)
}

/// A stand-in read on or off against `cut` (NaN where it has no reading).
fn above(col: &[f64], cut: f64) -> Vec<f64> {
    col.iter()
        .map(|&x| {
            if x.is_nan() {
                f64::NAN
            } else if x > cut {
                1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// When the boiler fired: its run status (`boiler_status`) as a duty, else its gas input above
/// [`GAS_FIRING_FRAC`] of its own 95th percentile (source `"gas input"`). `None` without either,
/// or with a gas input that never rises above zero.
pub fn boiler_firing(frame: &Frame) -> Option<Running> {
    if let Some(s) = frame.col("boiler_status") {
        return Some(Running { duty: crate::cycles::duty(s), source: "boiler status" });
    }
    let gas = frame.col("gas_input_rate")?;
    let top = p95(gas);
    (top > 0.0).then(|| Running { duty: above(gas, GAS_FIRING_FRAC * top), source: "gas input" })
}

/// When a hot-water pump ran: its run status (`pump_status`) as a duty, else its speed above
/// [`PUMP_RUN_SPEED_PCT`] (a 0-1 speed read as a fraction), else the loop flow above
/// [`PUMP_RUN_FLOW_FRAC`] of its own 95th percentile. `None` without any of them.
pub fn pump_running(frame: &Frame) -> Option<Running> {
    if let Some(s) = frame.col("pump_status") {
        return Some(Running { duty: crate::cycles::duty(s), source: "pump status" });
    }
    if let Some(s) = frame.col("hw_pump_speed") {
        return Some(Running { duty: above(&crate::engine::as_percent(s), PUMP_RUN_SPEED_PCT), source: "pump speed" });
    }
    let flow = frame.col("hw_flow")?;
    let top = p95(flow);
    (top > 0.0).then(|| Running { duty: above(flow, PUMP_RUN_FLOW_FRAC * top), source: "hot-water flow" })
}

/// The hours a lockout or delta-T check judges: occupied ones on the generic weekday schedule
/// (Monday to Friday, 07:00-18:00), as the reference's plant checks assume.
pub fn occupied(ts: i64) -> bool {
    assumed_occupied(ts)
}

/// The severity of a share (%) of running time above a lockout.
pub fn lockout_severity(pct: f64) -> Severity {
    crate::engine::severity_of(pct, LOCKOUT_WARN_PCT, LOCKOUT_FAULT_PCT)
}

/// Running time against a warm-weather lockout, on the occupied samples with a running reading.
#[derive(Clone, Debug, PartialEq)]
pub struct WarmRunning {
    /// Occupied samples with a running reading.
    pub considered: Vec<usize>,
    /// Share (%) of that time it ran (duty weighed by time).
    pub running_pct: f64,
    /// Samples it ran for most of.
    pub n_running: usize,
    /// Share (%) of its running time at an outdoor temperature above the lockout; `None`
    /// without an outdoor reading while it ran (not judged), 0 when it never ran.
    pub warm_pct: Option<f64>,
    /// The samples it ran in (any of the interval) above the lockout.
    pub warm: Vec<u32>,
    /// Running hours with an outdoor reading (the share's denominator).
    pub judged_hours: f64,
    /// The warmest outdoor temperature at a sample it ran for most of.
    pub max_oat_running: Option<f64>,
}

/// The share of `run`'s occupied running time above `lockout` (°F, strictly above), each
/// sample weighed by its duty and the time it stands for (`w`, hours).
pub fn warm_running(ts: &[i64], run: &Running, oat: Option<&[f64]>, lockout: f64, w: &[f64]) -> WarmRunning {
    let considered: Vec<usize> = (0..ts.len()).filter(|&i| occupied(ts[i]) && !run.duty[i].is_nan()).collect();
    let total: f64 = considered.iter().map(|&i| w[i]).sum();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let on: f64 = considered.iter().map(|&i| w[i] * run.duty[i]).sum::<f64>() + 0.0;
    let running_pct = if total > 0.0 { 100.0 * on / total } else { 0.0 };
    let n_running = considered.iter().filter(|&&i| run.on(i)).count();
    let (mut warm_pct, mut warm, mut judged_hours, mut max_oat) = (None, Vec::new(), 0.0, None::<f64>);
    if let Some(oat) = oat {
        let (mut hot, mut all) = (0.0, 0.0);
        for &i in considered.iter().filter(|&&i| run.duty[i] > 0.0 && !oat[i].is_nan()) {
            let h = w[i] * run.duty[i];
            all += h;
            if oat[i] > lockout {
                hot += h;
                warm.push(i as u32);
            }
            if run.on(i) {
                max_oat = Some(max_oat.map_or(oat[i], |m: f64| m.max(oat[i])));
            }
        }
        judged_hours = all;
        let ran = considered.iter().any(|&i| run.duty[i] > 0.0);
        warm_pct = if all > 0.0 {
            Some(100.0 * hot / all)
        } else if ran {
            None
        } else {
            Some(0.0)
        };
    }
    WarmRunning { considered, running_pct, n_running, warm_pct, warm, judged_hours, max_oat_running: max_oat }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, H, MONDAY};

    #[test]
    fn firing_from_the_status_else_the_gas_input() {
        let ts = every(MONDAY, H, 4);
        let f = Frame::from_rows(
            &ts,
            &[("boiler_status", vec![0.0, 0.25, 1.0, f64::NAN]), ("gas_input_rate", vec![0.0; 4])],
        );
        let r = boiler_firing(&f).unwrap();
        assert_eq!((r.duty[1], r.duty[2], r.source), (0.25, 1.0, "boiler status"));
        assert!(r.duty[3].is_nan());
        // the gas input above 5 % of its 95th percentile (343 here, interpolated: 17 is the cut)
        let f = Frame::from_rows(&ts, &[("gas_input_rate", vec![0.0, 10.0, 21.0, 400.0])]);
        let r = boiler_firing(&f).unwrap();
        assert_eq!(r.source, "gas input");
        assert_eq!(r.duty[..3], [0.0, 0.0, 1.0]);
        // a gas input at zero throughout says nothing
        assert!(boiler_firing(&Frame::from_rows(&ts, &[("gas_input_rate", vec![0.0; 4])])).is_none());
        assert!(boiler_firing(&Frame::from_rows(&ts, &[("hw_supply_temp", vec![150.0; 4])])).is_none());
    }

    #[test]
    fn a_pump_runs_by_its_status_else_its_speed_else_the_flow() {
        let ts = every(MONDAY, H, 4);
        let r = pump_running(&Frame::from_rows(
            &ts,
            &[("pump_status", vec![1.0, 0.0, 0.5, 1.0]), ("hw_pump_speed", vec![0.0; 4])],
        ))
        .unwrap();
        assert_eq!((r.duty.clone(), r.source), (vec![1.0, 0.0, 0.5, 1.0], "pump status"));
        let r = pump_running(&Frame::from_rows(&ts, &[("hw_pump_speed", vec![0.0, 0.05, 0.06, 0.9])])).unwrap();
        assert_eq!((r.duty, r.source), (vec![0.0, 0.0, 1.0, 1.0], "pump speed"));
        let r = pump_running(&Frame::from_rows(&ts, &[("hw_flow", vec![0.0, 10.0, 300.0, 300.0])])).unwrap();
        assert_eq!((r.duty, r.source), (vec![0.0, 0.0, 1.0, 1.0], "hot-water flow"));
    }
}
