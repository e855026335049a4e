//! The grid a run judges an equipment on when its config gives no `resample` (`native`): the
//! interval its trends were logged at. A point's interval is the spacing most of its samples
//! keep (the count-weighted median of its runs' steps, to the whole minute); an equipment's is
//! the finest of its points', so a rule that counts events (hunting, short cycles, staging,
//! defrosts) sees every logged change. Building-automation trends are logged at 1 to 15 minutes;
//! an hourly grid would average away what those rules count.

use std::collections::BTreeMap;

/// The finest grid a run reads: one minute (a change-of-value trend logs far finer, but no rule
/// judges seconds).
pub const MIN_STEP_NS: i64 = 60_000_000_000;
/// The coarsest grid a run reads: one day.
pub const MAX_STEP_NS: i64 = 86_400_000_000_000;

/// A point's logged interval from its runs (`(step ns, samples)` each), in whole minutes
/// within [`MIN_STEP_NS`]..=[`MAX_STEP_NS`]; `None` when no two samples are evenly spaced.
pub fn logged_interval(runs: impl IntoIterator<Item = (i64, u32)>) -> Option<i64> {
    let mut steps: Vec<(i64, u64)> =
        runs.into_iter().filter(|(step, count)| *step > 0 && *count >= 2).map(|(s, c)| (s, u64::from(c) - 1)).collect();
    if steps.is_empty() {
        return None;
    }
    steps.sort_unstable();
    let total: u64 = steps.iter().map(|(_, n)| n).sum();
    let mut seen = 0;
    let median = steps
        .iter()
        .find(|(_, n)| {
            seen += n;
            2 * seen >= total
        })
        .map_or(steps[0].0, |(s, _)| *s);
    let minutes = (median + MIN_STEP_NS / 2) / MIN_STEP_NS;
    Some((minutes * MIN_STEP_NS).clamp(MIN_STEP_NS, MAX_STEP_NS))
}

/// Each equipment's grid step: the finest logged interval of its points (`(equip, interval)`
/// pairs), `fallback` for an equipment none of whose points has one.
pub fn equipment_steps<'a>(
    points: impl IntoIterator<Item = (&'a str, Option<i64>)>,
    fallback: i64,
) -> BTreeMap<String, i64> {
    let mut out: BTreeMap<String, Option<i64>> = BTreeMap::new();
    for (equip, interval) in points {
        let e = out.entry(equip.to_string()).or_default();
        if let Some(i) = interval {
            *e = Some(e.map_or(i, |x| x.min(i)));
        }
    }
    out.into_iter().map(|(e, s)| (e, s.unwrap_or(fallback))).collect()
}

/// The one grid a drift run, and the fit of the baselines it reads, judge a facility on under
/// `native`: the coarsest logged interval of the equipment drift judges (a point's `(equip,
/// class, interval)` counts when its class matches one of `classes` or its equipment is one of
/// `also`, the references), so every judged equipment has a sample in every step, an hourly
/// weather station beside 5-minute air handlers does not pull them to the hour, and a fit and
/// the runs it serves, reading the same store, agree on it; `fallback` when no such point is
/// evenly logged.
pub fn drift_step<'a>(
    points: impl IntoIterator<Item = (&'a str, &'a str, Option<i64>)>,
    classes: &[&str],
    also: &[&str],
    fallback: i64,
) -> i64 {
    let judged = points.into_iter().filter(|(equip, class, _)| {
        also.contains(equip) || classes.iter().any(|c| crate::family::class_matches(class, c))
    });
    equipment_steps(judged.map(|(e, _, i)| (e, i)), fallback).into_values().max().unwrap_or(fallback)
}

/// A grid step as minutes, for what a run reports.
pub fn minutes(step_ns: i64) -> f64 {
    step_ns as f64 / 60e9
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_drift_run_reads_the_coarsest_judged_equipments_interval() {
        let m = super::MIN_STEP_NS;
        let pts = [
            ("AHU-1", "AHU", Some(m)),
            ("AHU-1", "AHU", Some(5 * m)),
            ("CH-1", "CHILLER", Some(15 * m)),
            ("CH-1", "CHILLER", None),
            ("WX", "WEATHER", Some(60 * m)),
        ];
        let step = |classes: &[&str], also: &[&str]| super::drift_step(pts, classes, also, 60 * m);
        assert_eq!(step(&["AHU", "CHILLER"], &[]), 15 * m);
        // the hourly weather station is not judged, so it sets no grid
        assert_eq!(step(&["AHU"], &[]), m);
        assert_eq!(step(&["AHU"], &["CH-1"]), 15 * m);
        assert_eq!(step(&["VAV"], &[]), 60 * m);
    }

    use super::*;

    const M: i64 = MIN_STEP_NS;

    #[test]
    fn the_interval_most_samples_keep_in_whole_minutes() {
        assert_eq!(logged_interval([(5 * M, 1000)]), Some(5 * M));
        // a few gaps and one long run of 15 minutes: 15 minutes
        assert_eq!(logged_interval([(15 * M, 900), (30 * M, 3), (45 * M, 2)]), Some(15 * M));
        // a logger that drifts a second either way reads as its nominal interval
        assert_eq!(logged_interval([(299_000_000_000, 400), (301_000_000_000, 380)]), Some(5 * M));
        // seconds are judged on one minute, weeks on one day
        assert_eq!(logged_interval([(10_000_000_000, 50)]), Some(M));
        assert_eq!(logged_interval([(7 * 86_400_000_000_000, 50)]), Some(MAX_STEP_NS));
        // single samples say nothing
        assert_eq!(logged_interval([(0, 1), (0, 1)]), None);
        assert_eq!(logged_interval(std::iter::empty()), None);
    }

    #[test]
    fn an_equipment_takes_its_finest_point() {
        let steps = equipment_steps(
            [("AHU-1", Some(15 * M)), ("AHU-1", Some(M)), ("VAV-1", None), ("VAV-2", Some(5 * M))],
            60 * M,
        );
        assert_eq!(steps["AHU-1"], M);
        assert_eq!(steps["VAV-1"], 60 * M);
        assert_eq!(steps["VAV-2"], 5 * M);
        assert_eq!(minutes(steps["VAV-2"]), 5.0);
    }
}
