//! Guideline 36 trim-and-respond (§5.1.14) and the outdoor-air supply-air map (§5.16.2.2), for
//! the rules that ask what a reset should have done. Every cycle a trim-and-respond reset nudges
//! its setpoint toward the energy-saving end; when the zones send more requests than it ignores,
//! it moves toward the demand end instead, by a step per extra request up to a cap. A replay runs
//! that logic over a trended request count to reconstruct the trajectory the requests imply.
//!
//! A trend is rarely logged at the controller's two-minute cycle. The replay therefore runs as
//! many cycles between two samples as the controller ran (none in the first ten minutes after the
//! fan starts, the setpoint back at its initial value whenever the fan stops), holding the last
//! trended request count across them. The request count of a coarse trend is one snapshot of a
//! value that changes every cycle, which the rules that use the replay take into account.

use crate::engine::median;

const NS_PER_MIN: i64 = 60_000_000_000;
/// The cycle time of both G36 resets (Tables 5.16.1.2 and 5.16.2.2): two minutes.
pub const PERIOD_NS: i64 = 2 * NS_PER_MIN;
/// G36 starts trimming and responding this long after the fan starts: ten minutes.
pub const DELAY_NS: i64 = 10 * NS_PER_MIN;

/// One trim-and-respond reset. `trim` and `respond` have opposite signs; `respond_max` caps a
/// cycle's response and has the sign of `respond`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrimRespond {
    /// The setpoint when the fan starts.
    pub initial: f64,
    /// The low end of the reset's range.
    pub min: f64,
    /// The high end of the reset's range.
    pub max: f64,
    /// Requests ignored before the reset responds.
    pub ignored: f64,
    /// Change per cycle without net requests.
    pub trim: f64,
    /// Change per net request.
    pub respond: f64,
    /// Largest change in one cycle.
    pub respond_max: f64,
}

/// G36's cooling supply-air reset (Table 5.16.2.2), in °F: the reset variable is T-max, the
/// warm end of the outdoor-air map, between 55 and 65 °F.
pub const SAT_T_MAX: TrimRespond =
    TrimRespond { initial: 65.0, min: 55.0, max: 65.0, ignored: 2.0, trim: 0.2, respond: -0.3, respond_max: -1.0 };

/// G36's duct static-pressure reset (Table 5.16.1.2), in in. w.c.
pub const DUCT_STATIC: TrimRespond =
    TrimRespond { initial: 0.5, min: 0.1, max: 1.5, ignored: 2.0, trim: -0.05, respond: 0.06, respond_max: 0.13 };

/// G36's outdoor-air band (°F) over which supply air slides from T-max down to Min_ClgSAT:
/// from here...
pub const MAP_OAT_MIN_F: f64 = 60.0;
/// ...to here.
pub const MAP_OAT_MAX_F: f64 = 70.0;

impl TrimRespond {
    /// The width of the reset's range.
    pub fn band(&self) -> f64 {
        self.max - self.min
    }

    /// The end trimming drives toward: the energy-saving end.
    pub fn trim_end(&self) -> f64 {
        if self.trim > 0.0 {
            self.max
        } else {
            self.min
        }
    }

    /// The end responding drives toward: the end that meets demand.
    pub fn demand_end(&self) -> f64 {
        if self.trim > 0.0 {
            self.min
        } else {
            self.max
        }
    }

    /// Requests beyond the ignored ones (a count is rounded; a negative one reads as none).
    pub fn net(&self, requests: f64) -> f64 {
        requests.max(0.0).round() - self.ignored
    }

    /// One cycle from `sp` with `requests` requests.
    pub fn step(&self, sp: f64, requests: f64) -> f64 {
        let net = self.net(requests);
        let change = if net <= 0.0 {
            self.trim
        } else if self.respond > 0.0 {
            (net * self.respond).min(self.respond_max)
        } else {
            (net * self.respond).max(self.respond_max)
        };
        (sp + change).max(self.min).min(self.max)
    }

    /// The trajectory the trended requests imply, one value per sample. `running` says whether
    /// the fan runs (`None`: not known, the reset carries on). A stopped fan puts the setpoint
    /// back at its initial value; the cycles between two samples reuse the last known request
    /// count. Before any request is known the setpoint holds.
    pub fn replay(&self, ts: &[i64], requests: &[f64], running: &[Option<bool>]) -> Vec<f64> {
        // one request count held over many cycles walks to an end within this many
        let smallest = self.trim.abs().min(self.respond.abs()).max(f64::MIN_POSITIVE);
        let saturate = ((self.band() / smallest).ceil().min(1e6) as i64).saturating_add(1);
        let n = ts.len().min(requests.len()).min(running.len());
        let mut out = Vec::with_capacity(n);
        let (mut sp, mut since, mut held): (f64, Option<i64>, Option<f64>) = (self.initial, None, None);
        for i in 0..n {
            if running[i] == Some(false) {
                (sp, since, held) = (self.initial, None, None);
                out.push(sp);
                continue;
            }
            if let Some(before) = since {
                let now = before.saturating_add(ts[i].saturating_sub(ts[i - 1]).max(0));
                let cycles = (cycles_by(now) - cycles_by(before)).min(saturate);
                if let Some(r) = held {
                    for _ in 0..cycles {
                        sp = self.step(sp, r);
                    }
                }
                since = Some(now);
            } else {
                // the fan is taken to start at its first running sample
                since = Some(0);
            }
            if !requests[i].is_nan() {
                held = Some(requests[i]);
            }
            out.push(sp);
        }
        out
    }
}

/// Cycles run from the fan's start to `elapsed` nanoseconds of running.
fn cycles_by(elapsed: i64) -> i64 {
    if elapsed <= DELAY_NS {
        0
    } else {
        elapsed / PERIOD_NS - DELAY_NS / PERIOD_NS
    }
}

/// The frame's typical sample spacing (the median), `None` with fewer than two samples.
pub fn typical_spacing(ts: &[i64]) -> Option<i64> {
    let mut d: Vec<f64> = ts.windows(2).map(|w| w[1].saturating_sub(w[0]) as f64).collect();
    let m = median(&mut d);
    (!m.is_nan()).then_some(m as i64)
}

/// Whether a trend at this spacing logs every cycle of the reset (within half a cycle).
pub fn logs_every_cycle(spacing: i64) -> bool {
    spacing <= PERIOD_NS + PERIOD_NS / 2
}

/// The supply-air setpoint the outdoor-air map gives: `t_max` at or below `oat_min`, `min_sat`
/// at or above `oat_max`, linear between. `oat_max` must be above `oat_min`.
pub fn oat_sat_map(t_max: f64, oat: f64, min_sat: f64, oat_min: f64, oat_max: f64) -> f64 {
    let x = ((oat - oat_min) / (oat_max - oat_min)).clamp(0.0, 1.0);
    t_max + (min_sat - t_max) * x
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = NS_PER_MIN;

    #[test]
    fn one_cycle_trims_responds_and_caps() {
        let s = DUCT_STATIC;
        assert!((s.step(0.5, 2.0) - 0.45).abs() < 1e-12, "two requests are ignored: a trim");
        assert!((s.step(0.5, 3.0) - 0.56).abs() < 1e-12);
        assert!((s.step(0.5, 9.0) - 0.63).abs() < 1e-12, "capped at 0.13");
        assert_eq!(s.step(0.12, 0.0), 0.1);
        assert_eq!(s.step(1.45, 9.0), 1.5);
        let t = SAT_T_MAX;
        assert!((t.step(60.0, 0.0) - 60.2).abs() < 1e-12);
        assert!((t.step(60.0, 3.0) - 59.7).abs() < 1e-12);
        assert!((t.step(60.0, 7.0) - 59.0).abs() < 1e-12, "capped at 1 °F");
        assert_eq!((t.trim_end(), t.demand_end(), s.trim_end(), s.demand_end()), (65.0, 55.0, 0.1, 1.5));
        assert_eq!(s.net(-3.0), -2.0);
    }

    #[test]
    fn the_replay_runs_the_controllers_cycles_between_samples() {
        let s = DUCT_STATIC;
        // every two minutes from the fan's start: nothing for ten minutes, then a cycle each
        let ts: Vec<i64> = (0..10).map(|i| i * 2 * MIN).collect();
        let out = s.replay(&ts, &[3.0; 10], &[Some(true); 10]);
        assert_eq!(out[..6], [0.5; 6]);
        assert!((out[6] - 0.56).abs() < 1e-9 && (out[9] - 0.74).abs() < 1e-9, "{out:?}");
        // hourly: the first hour runs 25 cycles, enough to walk from 0.5 to either end
        let hourly = [0, 60 * MIN, 120 * MIN];
        assert_eq!(s.replay(&hourly, &[0.0, 0.0, 0.0], &[Some(true); 3]), vec![0.5, 0.1, 0.1]);
        assert_eq!(s.replay(&hourly, &[5.0, 0.0, 0.0], &[Some(true); 3]), vec![0.5, 1.5, 0.1]);
        // a stopped fan puts it back; an unknown fan state carries on
        let on = [Some(true), Some(false), Some(true), None];
        let t4 = [0, 60 * MIN, 120 * MIN, 180 * MIN];
        assert_eq!(s.replay(&t4, &[0.0; 4], &on), vec![0.5, 0.5, 0.5, 0.1]);
        // no request known yet: it holds
        assert_eq!(s.replay(&hourly, &[f64::NAN, f64::NAN, 0.0], &[Some(true); 3]), vec![0.5, 0.5, 0.5]);
        // a gap of a year does not loop for a year
        let far = [0, 365 * 24 * 60 * MIN];
        assert_eq!(s.replay(&far, &[0.0, 0.0], &[Some(true); 2]), vec![0.5, 0.1]);
        assert!(s.replay(&[], &[], &[]).is_empty());
    }

    #[test]
    fn the_outdoor_air_map_and_the_cadence() {
        assert_eq!(oat_sat_map(65.0, 55.0, 55.0, 60.0, 70.0), 65.0);
        assert_eq!(oat_sat_map(65.0, 65.0, 55.0, 60.0, 70.0), 60.0);
        assert_eq!(oat_sat_map(62.0, 80.0, 55.0, 60.0, 70.0), 55.0);
        assert_eq!(typical_spacing(&[0, 2 * MIN, 4 * MIN, 10 * MIN]), Some(2 * MIN));
        assert_eq!(typical_spacing(&[0]), None);
        assert!(logs_every_cycle(2 * MIN) && logs_every_cycle(3 * MIN) && !logs_every_cycle(5 * MIN));
    }
}
