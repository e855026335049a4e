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
//!
//! The same holds for changes of state rather than starts: a reversing valve's changeovers
//! ([`binary_changes`], both directions, the fewest a resampled command allows) and a
//! multi-stage compressor's stage changes while it runs ([`stage_changes`]); and a count on a
//! trend too coarse to see its cycles declines an ok rather than vouch for it
//! ([`resolution_check`]).

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
    let top = crate::engine::span(status).1;
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
    let Timing { span_of, observed_days, span_days, interval_min, .. } = timing(&t);
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
        interval_min,
        n_partial,
        runs,
    })
}

/// The time a trend's samples cover (sorted timestamps, at least one).
struct Timing {
    /// How long each sample stands for (ns): to the next one, unless that step is a gap; the
    /// last stands for a typical step.
    span_of: Vec<f64>,
    /// Days observed (the steps no longer than [`GAP_FACTOR`] typical ones), at least one.
    observed_days: f64,
    /// Days from the first sample to the last, at least one.
    span_days: f64,
    /// The same, not floored.
    raw_span_days: f64,
    /// The median positive step in minutes (`None` without one).
    interval_min: Option<f64>,
}

fn timing(t: &[i64]) -> Timing {
    let mut steps: Vec<i64> = t.windows(2).map(|w| w[1] - w[0]).filter(|s| *s > 0).collect();
    // the median step: a selection, not a sort
    let mid = steps.len() / 2;
    let typical = if steps.is_empty() { NS_PER_HOUR } else { *steps.select_nth_unstable(mid).1 };
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
    let raw_span_days = t.last().zip(t.first()).map_or(0.0, |(b, a)| (b - a) as f64 / NS_PER_DAY as f64);
    Timing {
        span_of,
        observed_days: (observed_ns / NS_PER_DAY as f64).max(1.0),
        span_days: raw_span_days.max(1.0),
        raw_span_days,
        interval_min: (!steps.is_empty()).then(|| typical as f64 / 60e9),
    }
}

/// What a trend says of its changes of state (a valve's changeovers, a compressor's stage
/// changes). Indices are into the trend passed in.
#[derive(Clone, Debug, PartialEq)]
pub struct Changes {
    /// The samples holding a change, with how many changes each holds (a part-way sample
    /// between two like ones holds two: out and back).
    pub at: Vec<(usize, usize)>,
    /// Days observed (gaps left out), at least one: the denominator of [`Changes::per_day`].
    pub observed_days: f64,
    /// Days from the first sample to the last, not floored (a trend shorter than a day is read
    /// per day over one day, and a rule says so).
    pub span_days: f64,
    /// Typical spacing of the samples, in minutes.
    pub interval_min: Option<f64>,
    /// Samples part-way between two states (a resampled mean): the interval hid changes.
    pub n_partial: usize,
}

impl Changes {
    /// How many changes in all.
    pub fn count(&self) -> usize {
        self.at.iter().map(|(_, n)| n).sum()
    }

    /// Changes per observed day.
    pub fn per_day(&self) -> f64 {
        self.count() as f64 / self.observed_days
    }
}

/// The samples holding an event (`(index, events)` pairs, indices into `ts`) on the calendar days
/// with at least `limit` events: what a rate judged per day flags.
pub fn on_busy_days(ts: &[i64], at: &[(usize, usize)], limit: f64) -> Vec<u32> {
    let day = |i: usize| ts[i].div_euclid(NS_PER_DAY);
    let mut per_day: Vec<(i64, usize)> = Vec::new();
    for &(i, n) in at {
        match per_day.last_mut() {
            Some((d, k)) if *d == day(i) => *k += n,
            _ => per_day.push((day(i), n)),
        }
    }
    at.iter()
        .filter(|(i, _)| per_day.iter().any(|(d, k)| *d == day(*i) && *k as f64 >= limit))
        .map(|(i, _)| *i as u32)
        .collect()
}

/// The samples of `values` that hold one, with their timestamps, or `None` with fewer than two.
fn present(ts: &[i64], values: &[f64]) -> Option<(Vec<usize>, Vec<i64>)> {
    let idx: Vec<usize> = (0..ts.len().min(values.len())).filter(|&i| !values[i].is_nan()).collect();
    if idx.len() < 2 {
        return None;
    }
    let t = idx.iter().map(|&i| ts[i]).collect();
    Some((idx, t))
}

/// The changes of an on/off command (a reversing valve: both directions count), on its
/// timestamps `ts` (sorted; NaN samples left out); `None` with fewer than two samples. A 0/1
/// trend's changes are its level changes. A resampled command holds each interval's share at
/// 1, and a share strictly between 0 and 1 changed inside the interval, so the count is the
/// fewest changes the shares allow: a run of part-way samples between two whole ones in the
/// same state holds at least two (out and back), between different states at least one, and at
/// either end of the trend at least one. A 0-100 % trend is read as a percentage ([`duty`]).
pub fn binary_changes(ts: &[i64], command: &[f64]) -> Option<Changes> {
    let (idx, t) = present(ts, command)?;
    let all = duty(command);
    let d: Vec<f64> = idx.iter().map(|&i| all[i]).collect();
    let whole = |x: f64| x <= DUTY_EPS || x >= 1.0 - DUTY_EPS;
    let mut at: Vec<(usize, usize)> = Vec::new();
    let mut last: Option<bool> = None;
    // the first part-way sample since the last whole one
    let mut pending: Option<usize> = None;
    for (k, &x) in d.iter().enumerate() {
        if !whole(x) {
            pending = pending.or(Some(k));
            continue;
        }
        let state = x >= 0.5;
        match (pending, last) {
            (Some(p), None) => at.push((idx[p], 1)),
            (Some(p), Some(l)) => at.push((idx[p], if l == state { 2 } else { 1 })),
            (None, Some(l)) if l != state => at.push((idx[k], 1)),
            _ => {}
        }
        last = Some(state);
        pending = None;
    }
    if let Some(p) = pending {
        at.push((idx[p], 1));
    }
    let timing = timing(&t);
    Some(Changes {
        at,
        observed_days: timing.observed_days,
        span_days: timing.raw_span_days,
        interval_min: timing.interval_min,
        n_partial: d.iter().filter(|&&x| !whole(x)).count(),
    })
}

/// The stage changes of a multi-stage compressor while it runs, on its timestamps `ts`
/// (sorted; NaN samples left out); `None` with fewer than two samples. A sample's stage is its
/// value rounded to a whole stage (halves to even, as a resampled mean of two stages is read
/// elsewhere); a change counts where the stage differs from the previous sample's with both
/// above 0, so a start (0 to a stage) or a stop is not a stage change (short cycling judges
/// those). A sample that is not a whole stage (a resampled mean) is partial.
pub fn stage_changes(ts: &[i64], stage: &[f64]) -> Option<Changes> {
    let (idx, t) = present(ts, stage)?;
    let level: Vec<f64> = idx.iter().map(|&i| stage[i].round_ties_even()).collect();
    let at: Vec<(usize, usize)> = (1..idx.len())
        .filter(|&k| level[k] != level[k - 1] && level[k] > 0.0 && level[k - 1] > 0.0)
        .map(|k| (idx[k], 1))
        .collect();
    let timing = timing(&t);
    Some(Changes {
        at,
        observed_days: timing.observed_days,
        span_days: timing.raw_span_days,
        interval_min: timing.interval_min,
        n_partial: idx.iter().zip(&level).filter(|(&i, l)| (stage[i] - **l).abs() > DUTY_EPS).count(),
    })
}

/// The verdict of a count after the check of its trend's resolution, with the caveat it
/// carries, and whether it declined. On a trend coarser than `max_interval_min` the count is
/// a floor (what the interval hid cannot be counted): a verdict at or over the limit stands,
/// with a caveat saying the count is a floor; an ok with samples part-way between two states
/// (the interval hid changes) cannot be vouched for and declines to info; an ok with none
/// stands with the caveat. `counted` names what was counted ("reversing-valve changes"),
/// `hidden` what the interval can hide ("a defrost shorter than the interval"), and `limit`
/// the rate and its parameter.
pub fn resolution_check(
    severity: crate::engine::Severity,
    interval_min: Option<f64>,
    max_interval_min: f64,
    n_partial: usize,
    counted: &str,
    hidden: &str,
    limit: (&str, f64),
) -> (crate::engine::Severity, Option<String>, bool) {
    use crate::engine::Severity;
    let Some(interval) = interval_min.filter(|m| *m > max_interval_min) else {
        return (severity, None, false);
    };
    let caveat = format!(
        "{counted} counted on a {interval}-minute trend, coarser than the {max_interval_min} minutes the count needs (max_interval_min): {hidden} leaves no trace in a resampled mean, so the count is a floor; run the rule at the trend's stored interval for the true count"
    );
    if severity != Severity::Ok || n_partial == 0 {
        return (severity, Some(caveat), false);
    }
    let (name, value) = limit;
    (
        Severity::Info,
        Some(format!(
            "{caveat}. {n_partial} samples sit part-way between two states, so the interval did hide changes: a rate below {value} a day ({name}) cannot be confirmed"
        )),
        true,
    )
}

/// The caveat of a rate read over a trend shorter than a day (`None` otherwise): it is read per
/// day over one day, not scaled up from the short window.
pub fn short_trend_caveat(span_days: f64, counted: &str) -> Option<String> {
    (span_days < 1.0).then(|| {
        format!(
            "the trend spans only {:.1} h: the {counted} are read per day over one day, not scaled up from the short window, so the rate is a floor until a full day is trended",
            span_days * 24.0
        )
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
    fn a_command_changes_both_ways_and_a_resampled_one_as_few_times_as_its_shares_allow() {
        // a day at 5 minutes: heating, with a 10-minute reversal every two hours
        let n = 288;
        let ts = every(MONDAY, 5 * MINUTE, n);
        let v: Vec<f64> = (0..n).map(|i| if i % 24 == 10 || i % 24 == 11 { 0.0 } else { 1.0 }).collect();
        let c = binary_changes(&ts, &v).unwrap();
        assert_eq!((c.count(), c.n_partial, c.interval_min), (24, 0, Some(5.0)));
        // 287 steps of 5 minutes are under a day: read over one day
        assert_eq!(c.per_day(), 24.0);
        assert_eq!(c.at[0], (10, 1));
        assert_eq!(c.at[1], (12, 1));
        // shares: a part-way sample between two heating ones is out and back (two), between
        // heating and cooling one, at either end one
        let t = every(MONDAY, 15 * MINUTE, 7);
        let c = binary_changes(&t, &[0.5, 1.0, 0.67, 1.0, 0.5, 0.0, 0.3]).unwrap();
        assert_eq!(c.at, vec![(0, 1), (2, 2), (4, 1), (6, 1)]);
        assert_eq!((c.count(), c.n_partial), (5, 4));
        // a 0-100 % command is read as a share
        assert_eq!(binary_changes(&t[..3], &[100.0, 0.0, 100.0]).unwrap().count(), 2);
        // degenerate
        assert!(binary_changes(&t[..1], &[1.0]).is_none());
        assert!(binary_changes(&t, &[f64::NAN; 7]).is_none());
        // a short trend is not floored: its span is read as it is
        let c = binary_changes(&t, &[1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]).unwrap();
        assert!((c.span_days - 1.5 / 24.0).abs() < 1e-9 && c.observed_days == 1.0);
        assert!(short_trend_caveat(c.span_days, "changes").unwrap().contains("1.5 h"));
        assert!(short_trend_caveat(1.0, "changes").is_none());
    }

    #[test]
    fn stage_changes_count_only_while_running() {
        let t = every(MONDAY, 5 * MINUTE, 8);
        // start (0-1), 1-2, 2-1, stop (1-0), start (0-2), 2.5 rounds to 2 (halves to even)
        let c = stage_changes(&t, &[0.0, 1.0, 2.0, 1.0, 0.0, 2.0, 2.5, f64::NAN]).unwrap();
        assert_eq!(c.at, vec![(2, 1), (3, 1)]);
        assert_eq!(c.n_partial, 1);
        let c = stage_changes(&t, &[1.0, 1.5, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]).unwrap();
        assert_eq!(c.count(), 1, "1.5 reads stage 2");
        assert!(stage_changes(&t[..1], &[1.0]).is_none());
    }

    #[test]
    fn busy_days_and_the_resolution_check() {
        use crate::engine::Severity;
        let day = 24 * NS_PER_HOUR;
        let ts = vec![MONDAY, MONDAY + 1, MONDAY + 2, MONDAY + day, MONDAY + day + 1];
        // Monday holds three events, Tuesday two: a limit of three flags Monday's only
        assert_eq!(on_busy_days(&ts, &[(0, 1), (1, 2), (3, 1), (4, 1)], 3.0), vec![0, 1]);
        assert_eq!(on_busy_days(&ts, &[(0, 1), (1, 2), (3, 1), (4, 1)], 2.0), vec![0, 1, 3, 4]);
        let check = |sev, interval, partial| {
            resolution_check(sev, interval, 5.0, partial, "changes", "a short one", ("max_x", 24.0))
        };
        assert_eq!(check(Severity::Ok, Some(5.0), 3), (Severity::Ok, None, false));
        assert_eq!(check(Severity::Ok, None, 3), (Severity::Ok, None, false));
        let (sev, caveat, declined) = check(Severity::Ok, Some(15.0), 3);
        assert!(sev == Severity::Info && declined && caveat.unwrap().contains("below 24 a day (max_x)"));
        let (sev, caveat, declined) = check(Severity::Ok, Some(15.0), 0);
        assert!(sev == Severity::Ok && !declined && caveat.unwrap().contains("15-minute trend"));
        let (sev, caveat, declined) = check(Severity::Warn, Some(15.0), 3);
        assert!(sev == Severity::Warn && !declined && caveat.is_some());
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
