//! Pieces shared by the models: the simulation clock, the occupancy schedule and the table
//! that collects one equipment's sampled points.

/// Simulation time base: every model integrates at one minute and records every `step` minutes.
/// Minute 0 is the first recorded sample (a Monday 00:00); negative minutes are spin-up.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Minutes of spin-up before the first sample, so the first samples are settled.
    pub spin: usize,
    /// Recording step in minutes.
    pub step: usize,
    /// Number of recorded samples per point.
    pub n: usize,
}

impl Clock {
    /// A clock over `days` days at `step` minutes with one day of spin-up.
    pub fn new(days: u32, step_minutes: u32) -> Clock {
        let step = step_minutes.max(1) as usize;
        Clock { spin: 1440, step, n: days as usize * 1440 / step }
    }

    /// Total simulated minutes, spin-up included (the length of the weather arrays).
    pub fn total(&self) -> usize {
        self.spin + self.n * self.step
    }

    /// For simulated minute index `k` (0 = start of spin-up): the sample index it records into.
    #[inline]
    pub fn sample_at(&self, k: usize) -> Option<usize> {
        if k < self.spin {
            return None;
        }
        let m = k - self.spin;
        if m.is_multiple_of(self.step) {
            Some(m / self.step)
        } else {
            None
        }
    }

    /// (weekday 0 = Monday .. 6 = Sunday, hour of day as a fraction) at simulated minute `k`.
    #[inline]
    pub fn when(&self, k: usize) -> (usize, f64) {
        let m = k as i64 - self.spin as i64;
        let day = m.div_euclid(1440);
        let mod_min = m.rem_euclid(1440);
        (day.rem_euclid(7) as usize, mod_min as f64 / 60.0)
    }
}

/// The standard occupancy schedule: weekdays 06:00 to 18:00.
#[inline]
pub fn occupied(weekday: usize, hour: f64) -> bool {
    weekday < 5 && (6.0..18.0).contains(&hour)
}

/// One equipment's sampled points in a fixed role order, filled in place.
pub struct Table {
    /// (role, samples) in the model's role order.
    pub cols: Vec<(&'static str, Vec<f64>)>,
}

impl Table {
    /// `n` NaN samples for each role.
    pub fn new(roles: &[&'static str], n: usize) -> Table {
        Table { cols: roles.iter().map(|r| (*r, vec![f64::NAN; n])).collect() }
    }

    /// Store sample `i` of column `c`.
    #[inline]
    pub fn set(&mut self, c: usize, i: usize, v: f64) {
        self.cols[c].1[i] = v;
    }
}

/// One simulated equipment before post-processing (quantisation and gaps).
pub struct Unit {
    /// Equipment id, `<EQUIP>__<scenario>`.
    pub equip: String,
    /// Equipment class (AHU, VAV, CHILLER, COOLING_TOWER).
    pub class: &'static str,
    /// Scenario the equipment belongs to.
    pub scenario: &'static str,
    /// Fault label, "" when fault-free.
    pub label: &'static str,
    /// Sampled points.
    pub table: Table,
}

/// First-order lag factor for a time constant `tau` minutes over a one-minute step.
#[inline]
pub fn lag(tau: f64) -> f64 {
    1.0 - (-1.0 / tau).exp()
}

/// A chiller plant's outdoor-air lockout: a healthy plant leaves the cooling to the air side's
/// economizers below 55 °F outdoors and enables again above 58 °F, so a plant generated over a
/// year does not run its chillers through the winter at a few percent of their capacity.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoolingLockout {
    locked: bool,
}

impl CoolingLockout {
    /// Whether the plant may run at this outdoor temperature (°F).
    pub fn enabled(&mut self, oat: f64) -> bool {
        if oat < 55.0 {
            self.locked = true;
        } else if oat > 58.0 {
            self.locked = false;
        }
        !self.locked
    }
}

#[cfg(test)]
mod tests {
    use super::CoolingLockout;

    #[test]
    fn the_cooling_lockout_holds_between_its_two_temperatures() {
        let mut l = CoolingLockout::default();
        let seen: Vec<bool> = [70.0, 56.0, 54.9, 56.0, 58.0, 58.1, 56.0].iter().map(|&t| l.enabled(t)).collect();
        assert_eq!(seen, [true, true, false, false, false, true, true]);
    }
}
