//! Cycle counting: how often a burner, a compressor or a chiller starts, and how long it runs,
//! from its run status. Written once for every rule that judges short cycling (boilers,
//! compressors, chillers, staging).
//!
//! A status trend is 0/1, or, resampled onto a coarser grid, a *duty* in 0..1: the share of the
//! interval the equipment ran. Thresholding a duty at a half would read a boiler that fires a
//! quarter of every hour as never firing, so starts are counted as the fewest starts the duties
//! allow: a part-on interval holds a start or a stop inside it, so a run of part-on intervals
//! between off ones is at least one start each (on a 0/1 trend this is the off-to-on count).
//! The count is a floor: a cycle shorter than the trend's interval leaves no trace, and
//! [`Cycles::interval_min`] and [`Cycles::n_partial`] let a rule say when the trend is too coarse
//! to vouch for an ok.
//!
//! Rates are per *observed* day: the steps between samples no longer than [`GAP_FACTOR`] times
//! the typical step, so a logger outage is not counted as days without a start.

use crate::engine::NS_PER_HOUR;

/// A step longer than this many typical steps is a data gap, not observed time.
pub const GAP_FACTOR: f64 = 3.0;
/// A duty within this of 0 or 1 is fully off or on (the float noise of a resampled mean).
const DUTY_EPS: f64 = 1e-6;
const NS_PER_DAY: i64 = 24 * NS_PER_HOUR;

/// One stretch of running: from the sample it started in to the last sample it ran in.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub first: usize,
    pub last: usize,
    /// How long it ran, in hours (each sample weighed by its duty and the time it stands for).
    pub hours: f64,
}

/// What a status trend says of starts and running time. Indices are into the trend passed in.
#[derive(Clone, Debug, PartialEq)]
pub struct Cycles {
    /// The samples holding a start (or at whose boundary one falls).
    pub starts: Vec<usize>,
    /// Whether each sample ran (duty above a half); false where the status is missing.
    pub running: Vec<bool>,
    /// Days from the first sample to the last (at least one).
    pub span_days: f64,
    /// Days observed: the steps no longer than [`GAP_FACTOR`] typical steps (at least one).
    pub observed_days: f64,
    /// Share of the observed time running (%), from the duties.
    pub runtime_pct: f64,
    /// Typical spacing of the status samples, in minutes.
    pub interval_min: Option<f64>,
    /// Samples on for only part of their interval (a resampled duty strictly between 0 and 1).
    pub n_partial: usize,
    /// The stretches of running, in time order.
    pub runs: Vec<Run>,
}

impl Cycles {
    /// Starts per observed day.
    pub fn starts_per_day(&self) -> f64 {
        self.starts.len() as f64 / self.observed_days
    }

    /// The starts falling on each calendar day (naive local day number, count), in day order.
    pub fn starts_by_day(&self, ts: &[i64]) -> Vec<(i64, usize)> {
        let mut out: Vec<(i64, usize)> = Vec::new();
        for &i in &self.starts {
            let day = ts[i].div_euclid(NS_PER_DAY);
            match out.last_mut() {
                Some((d, n)) if *d == day => *n += 1,
                _ => out.push((day, 1)),
            }
        }
        out
    }

    /// Whether the trend is too coarse to vouch for a count: its interval above
    /// `max_interval_min` with some samples on for only part of it.
    pub fn too_coarse(&self, max_interval_min: f64) -> bool {
        self.interval_min.is_some_and(|m| m > max_interval_min) && self.n_partial > 0
    }
}

/// The status as a duty in 0..1 (NaN stays NaN; a 0/1 trend is its own duty; a 0-100 % trend is
/// read as a percentage).
pub fn duty(status: &[f64]) -> Vec<f64> {
    let top = status.iter().copied().filter(|v| !v.is_nan()).fold(f64::NEG_INFINITY, f64::max);
    let scale = if top > 1.5 { 100.0 } else { 1.0 };
    status.iter().map(|v| if v.is_nan() { f64::NAN } else { (v / scale).clamp(0.0, 1.0) }).collect()
}

/// The fewest starts a duty sequence allows, as a flag per sample. Each sample is an interval
/// with an entry and an exit state; a fully off interval is (off, off), a fully on one (on, on),
/// and a part-on one any pair but with at least one change inside: (off, on) one start, (on,
/// off) none, (off, off) and (on, on) one start each (a burst; a gap and a restart). Between
/// intervals, an exit off and an entry on is a start. The trend is taken to begin off. A
/// two-state dynamic programme finds the minimum and the backtrack places each start.
fn fewest_starts(d: &[f64]) -> Vec<bool> {
    let n = d.len();
    let mut out = vec![false; n];
    if n == 0 {
        return out;
    }
    let big = usize::MAX / 4;
    let mut best = [0usize, big];
    // per sample and exit state: (previous exit, starts in this sample)
    let mut back = vec![[(0usize, 0usize); 2]; n];
    for i in 0..n {
        let zero = d[i] <= DUTY_EPS;
        let full = d[i] >= 1.0 - DUTY_EPS;
        let pairs: &[(usize, usize)] = if zero {
            &[(0, 0)]
        } else if full {
            &[(1, 1)]
        } else {
            &[(0, 0), (0, 1), (1, 0), (1, 1)]
        };
        let mut new = [big, big];
        for &(entry, exit) in pairs {
            let internal = usize::from(!(zero || full || (entry, exit) == (1, 0)));
            for (prev, &cost) in best.iter().enumerate() {
                let boundary = usize::from(prev == 0 && entry == 1);
                let c = cost + boundary + internal;
                if c < new[exit] {
                    new[exit] = c;
                    back[i][exit] = (prev, boundary + internal);
                }
            }
        }
        best = new;
    }
    let mut x = if best[0] <= best[1] { 0 } else { 1 };
    for i in (0..n).rev() {
        let (prev, starts) = back[i][x];
        out[i] = starts > 0;
        x = prev;
    }
    out
}

/// Count the cycles of a status trend on its timestamps `ts` (sorted; NaN statuses are left
/// out). `None` with fewer than ten samples of status.
pub fn count(ts: &[i64], status: &[f64]) -> Option<Cycles> {
    let idx: Vec<usize> = (0..ts.len().min(status.len())).filter(|&i| !status[i].is_nan()).collect();
    if idx.len() < 10 {
        return None;
    }
    let d_all = duty(status);
    let d: Vec<f64> = idx.iter().map(|&i| d_all[i]).collect();
    let t: Vec<i64> = idx.iter().map(|&i| ts[i]).collect();
    let mut steps: Vec<i64> = t.windows(2).map(|w| w[1] - w[0]).filter(|s| *s > 0).collect();
    steps.sort_unstable();
    let typical = steps.get(steps.len() / 2).copied().unwrap_or(NS_PER_HOUR);
    // how long each sample stands for: to the next one, unless that is a gap
    let mut span_of: Vec<f64> = t
        .windows(2)
        .map(|w| {
            let s = (w[1] - w[0]) as f64;
            if s <= GAP_FACTOR * typical as f64 {
                s
            } else {
                0.0
            }
        })
        .collect();
    span_of.push(typical as f64);
    let observed_ns: f64 = span_of[..span_of.len() - 1].iter().sum();
    let observed_days = (observed_ns / NS_PER_DAY as f64).max(1.0);
    let span_days = ((t[t.len() - 1] - t[0]) as f64 / NS_PER_DAY as f64).max(1.0);
    let partial = |x: f64| x > DUTY_EPS && x < 1.0 - DUTY_EPS;
    let n_partial = d.iter().filter(|&&x| partial(x)).count();
    let running_local: Vec<bool> = d.iter().map(|&x| x > 0.5).collect();
    let start_local: Vec<bool> = if n_partial == 0 {
        (0..d.len()).map(|k| running_local[k] && (k == 0 || !running_local[k - 1])).collect()
    } else {
        fewest_starts(&d)
    };
    let total: f64 = span_of.iter().sum();
    let on: f64 = d.iter().zip(&span_of).map(|(x, s)| x * s).sum();
    let runtime_pct = if total > 0.0 { 100.0 * on / total } else { 0.0 };
    // stretches of running: from a start through the samples that still run
    let mut runs = Vec::new();
    let mut k = 0;
    while k < d.len() {
        if start_local[k] || (d[k] > DUTY_EPS && (k == 0 || d[k - 1] <= DUTY_EPS)) {
            let first = k;
            let mut hours = d[k] * span_of[k] / NS_PER_HOUR as f64;
            let mut j = k + 1;
            while j < d.len() && !start_local[j] && d[j] > DUTY_EPS && span_of[j - 1] > 0.0 {
                hours += d[j] * span_of[j] / NS_PER_HOUR as f64;
                j += 1;
            }
            runs.push(Run { first: idx[first], last: idx[j - 1], hours });
            k = j;
        } else {
            k += 1;
        }
    }
    let mut running = vec![false; ts.len()];
    for (k, &i) in idx.iter().enumerate() {
        running[i] = running_local[k];
    }
    Some(Cycles {
        starts: idx.iter().zip(&start_local).filter(|(_, s)| **s).map(|(i, _)| *i).collect(),
        running,
        span_days,
        observed_days,
        runtime_pct,
        interval_min: (!steps.is_empty()).then(|| typical as f64 / 60e9),
        n_partial,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, MINUTE, MONDAY};

    #[test]
    fn a_plain_trend_counts_its_off_to_on_transitions_per_observed_day() {
        // two days at 10 minutes: on for 30 minutes every two hours
        let n = 2 * 144;
        let ts = every(MONDAY, 10 * MINUTE, n);
        let s: Vec<f64> = (0..n).map(|i| if i % 12 < 3 { 1.0 } else { 0.0 }).collect();
        let c = count(&ts, &s).unwrap();
        assert_eq!(c.starts.len(), 24);
        assert!((c.starts_per_day() - 12.0).abs() < 0.1, "{}", c.starts_per_day());
        assert!((c.runtime_pct - 25.0).abs() < 0.1, "{}", c.runtime_pct);
        assert_eq!(c.interval_min, Some(10.0));
        assert_eq!(c.runs.len(), 24);
        assert!((c.runs[0].hours - 0.5).abs() < 1e-9);
        assert_eq!(c.starts_by_day(&ts), vec![(MONDAY / NS_PER_DAY, 12), (MONDAY / NS_PER_DAY + 1, 12)]);
        assert_eq!(c.n_partial, 0);
        assert!(!c.too_coarse(15.0));
    }

    #[test]
    fn a_resampled_duty_is_the_fewest_starts_it_allows() {
        // hourly duties: a quarter of every hour on is at least one start every two hours (a
        // run may straddle the boundary between two part-on hours), never none
        let ts = every(MONDAY, 60 * MINUTE, 24);
        let c = count(&ts, &[0.25; 24]).unwrap();
        assert_eq!(c.starts.len(), 12);
        assert!((c.runtime_pct - 25.0).abs() < 1e-9);
        assert!(c.too_coarse(15.0));
        // a run that starts part-way through one hour and ends part-way through a later one is
        // one start: [0, 0.5, 1, 1, 0.5, 0]
        let mut s = vec![0.0; 12];
        s[3] = 0.5;
        s[4] = 1.0;
        s[5] = 1.0;
        s[6] = 0.5;
        let c = count(&every(MONDAY, 60 * MINUTE, 12), &s).unwrap();
        assert_eq!(c.starts, vec![3]);
        assert_eq!(c.runs.len(), 1);
        assert!((c.runs[0].hours - 3.0).abs() < 1e-9);
        // a 0-100 % status reads as a percentage
        assert_eq!(duty(&[0.0, 50.0, 100.0]), vec![0.0, 0.5, 1.0]);
    }

    #[test]
    fn gaps_are_not_observed_days_and_missing_samples_are_left_out() {
        // a day at 10 minutes, a 5-day outage, another day
        let mut ts = every(MONDAY, 10 * MINUTE, 144);
        ts.extend(every(MONDAY + 6 * NS_PER_DAY, 10 * MINUTE, 144));
        let mut s: Vec<f64> = (0..288).map(|i| if i % 12 < 3 { 1.0 } else { 0.0 }).collect();
        s[5] = f64::NAN;
        let c = count(&ts, &s).unwrap();
        assert!(c.span_days > 6.9 && (c.observed_days - 2.0).abs() < 0.02, "{} {}", c.span_days, c.observed_days);
        assert!((c.starts_per_day() - 12.0).abs() < 0.1);
        assert!(!c.running[5]);
        // degenerate: too few samples, all missing
        assert!(count(&ts[..5], &s[..5]).is_none());
        assert!(count(&ts, &vec![f64::NAN; 288]).is_none());
        assert!(count(&[], &[]).is_none());
    }

    #[test]
    fn always_on_and_always_off() {
        let ts = every(MONDAY, 60 * MINUTE, 48);
        let on = count(&ts, &[1.0; 48]).unwrap();
        assert_eq!((on.starts, on.runtime_pct), (vec![0], 100.0));
        assert_eq!(on.runs.len(), 1);
        let off = count(&ts, &[0.0; 48]).unwrap();
        assert!(off.starts.is_empty() && off.runs.is_empty() && off.runtime_pct == 0.0);
    }
}
