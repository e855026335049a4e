//! A meter's trend as days: energy per day against the day's mean outdoor air, with the share
//! of the day the meter's samples cover. The energy role is a rate per hour: each sample stands
//! for the time to the next one, capped at the series' typical step (so a gap is not credited to
//! the reading before it), and a day's energy is the sum of rate times hours. A day whose samples
//! cover less than `min_coverage` of it is left out and counted, as are days with negative
//! energy or no outdoor air. Outdoor air outside -40 to 140 (the plausible range in degF and, at
//! -40, in degC) is treated as missing and counted.

use crate::engine::Frame;

use super::section::{Calendar, Driver, MvEntry, Window};

/// Nanoseconds in a day.
pub const NS_PER_DAY: i64 = 86_400_000_000_000;
const OAT_BOUNDS: (f64, f64) = (-40.0, 140.0);

/// The days of one window, aligned.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Daily {
    /// Day numbers (days since 1970-01-01).
    pub day: Vec<i64>,
    pub energy: Vec<f64>,
    pub oat: Vec<f64>,
    /// One column per driver of the entry.
    pub drivers: Vec<Vec<f64>>,
    /// Days with data left out for coverage.
    pub dropped: usize,
    /// Outdoor-air samples treated as missing.
    pub screened: usize,
}

impl Daily {
    /// How many days.
    pub fn len(&self) -> usize {
        self.day.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.day.is_empty()
    }

    /// The drivers of row `i`.
    pub fn drivers_at(&self, i: usize) -> Vec<f64> {
        self.drivers.iter().map(|c| c[i]).collect()
    }
}

/// One day's sums: energy, covered share, outdoor-air sum and count, per-driver (sum, count).
type DayAcc = (f64, f64, f64, f64, Vec<(f64, f64)>);

fn median_step(ts: &[i64]) -> Option<i64> {
    let mut d: Vec<i64> = ts.windows(2).map(|w| w[1] - w[0]).filter(|&d| d > 0).collect();
    if d.is_empty() {
        return None;
    }
    let mid = d.len() / 2;
    Some(*d.select_nth_unstable(mid).1)
}

/// Whether a day is a holiday of the calendar.
fn in_calendar(cal: &Calendar, day: i64) -> bool {
    cal.dates.contains(&day)
}

/// The weekday of a day number, Monday = 0.
pub fn weekday(day: i64) -> i64 {
    (day + 3).rem_euclid(7)
}

/// The days of `frame` inside `window` (all of it when `None`), for `entry`'s role and drivers.
pub fn daily(frame: &Frame, entry: &MvEntry, window: Option<&Window>) -> Daily {
    let mut out = Daily { drivers: vec![Vec::new(); entry.drivers.len()], ..Daily::default() };
    let (Some(rate), Some(oat)) = (frame.cols.get(&entry.role), frame.cols.get("oat")) else {
        return out;
    };
    let inside = |ns: i64| window.is_none_or(|w| w.contains(ns));
    let idx: Vec<usize> = (0..frame.ts.len()).filter(|&i| inside(frame.ts[i])).collect();
    let e_idx: Vec<usize> = idx.iter().copied().filter(|&i| rate[i].is_finite()).collect();
    let e_ts: Vec<i64> = e_idx.iter().map(|&i| frame.ts[i]).collect();
    let Some(step) = median_step(&e_ts) else { return out };
    // energy and coverage per day
    let mut days: std::collections::BTreeMap<i64, DayAcc> = Default::default();
    for (k, &i) in e_idx.iter().enumerate() {
        let gap = e_ts.get(k + 1).map_or(step, |&n| n - e_ts[k]).min(step);
        let day = e_ts[k].div_euclid(NS_PER_DAY);
        let d = days.entry(day).or_insert_with(|| (0.0, 0.0, 0.0, 0.0, vec![(0.0, 0.0); entry.drivers.len()]));
        d.0 += rate[i] * gap as f64 / 3.6e12;
        d.1 += step as f64 / NS_PER_DAY as f64;
    }
    for &i in &idx {
        let v = oat[i];
        if v.is_nan() {
            continue;
        }
        if !(OAT_BOUNDS.0..=OAT_BOUNDS.1).contains(&v) {
            out.screened += 1;
            continue;
        }
        if let Some(d) = days.get_mut(&frame.ts[i].div_euclid(NS_PER_DAY)) {
            d.2 += v;
            d.3 += 1.0;
        }
    }
    for (j, drv) in entry.drivers.iter().enumerate() {
        if let Driver::Role(r) = drv {
            if let Some(c) = frame.cols.get(r) {
                for &i in &idx {
                    if c[i].is_finite() {
                        if let Some(d) = days.get_mut(&frame.ts[i].div_euclid(NS_PER_DAY)) {
                            d.4[j].0 += c[i];
                            d.4[j].1 += 1.0;
                        }
                    }
                }
            }
        }
    }
    for (day, (energy, cover, osum, on, dsums)) in days {
        if cover.min(1.0) < entry.min_coverage - 1e-9 {
            out.dropped += 1;
            continue;
        }
        if on == 0.0 || energy < 0.0 {
            continue;
        }
        let wd = weekday(day);
        let holiday = in_calendar(&entry.holidays, day);
        let occupied = entry.occupied_weekdays.contains(&wd) && !holiday;
        let vals: Vec<f64> = entry
            .drivers
            .iter()
            .zip(&dsums)
            .map(|(drv, s)| match drv {
                Driver::Weekday => f64::from(u8::from(wd < 5)),
                Driver::OccupiedDay => f64::from(u8::from(occupied)),
                Driver::BreakDay => f64::from(u8::from(occupied && in_calendar(&entry.break_calendar, day))),
                Driver::Role(_) => {
                    if s.1 > 0.0 {
                        s.0 / s.1
                    } else {
                        f64::NAN
                    }
                }
            })
            .collect();
        if vals.iter().any(|v| !v.is_finite()) {
            continue;
        }
        out.day.push(day);
        out.energy.push(energy);
        out.oat.push(osum / on);
        for (c, v) in out.drivers.iter_mut().zip(vals) {
            c.push(v);
        }
    }
    out
}
