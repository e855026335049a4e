//! `filter_fouling`: an air filter loaded up to its change-out pressure drop, or on its way
//! there. The filter differential pressure is judged on fan-on samples (fan status, else speed,
//! else airflow; with no fan signal, or `fan_gate` off, on every sample, and the finding says
//! so), each weighed by the time it stands for, in two ways:
//!
//! * its level over the window, as the reference judges it: a time-weighted median at or above
//!   `change_dp_inwc` warns, at or above `fault_factor` times it is a fault;
//! * beyond the reference, where the filter is now and where it is heading. A filter's drop
//!   rises as it loads, so the median of a window in which it loaded fast sits well below where
//!   it ended (a filter loading from 0.55 to 1.6 in. w.c. over a fortnight has a median of
//!   0.95). The drop is compared at matched airflow: fan-on samples within 20 % of the median
//!   airflow, else of the median fan speed, scaled to it by the square law (a unit trending
//!   neither is taken as constant volume, and with no fan signal either, readings at or below a
//!   tenth of change-out are taken as the fan stopped). It is read as one median per day with
//!   two hours or more of such samples. Over four such days or more spanning a week, after the
//!   last filter change (a day's median a quarter or more below the day before's) and within
//!   the last year, the rise is the robust (Theil-Sen) slope of those medians, and the filter
//!   now is its last day's median. Now at or above the fault level is a fault, at or above change-out a warning;
//!   still below it, a filter that is loading (risen by a tenth of `change_dp_inwc` or more,
//!   and by three times the medians' scatter about the slope) and will reach change-out within
//!   `loading_horizon_days` at that rate is a warning.
//!
//! The finding carries the worse of the two verdicts, with the samples above change-out and the
//! loading trend as its two conditions.

use std::collections::BTreeMap;

use crate::economizer::{running, FanGate};
use crate::engine::{
    round2, weighted_quantile, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity,
    NS_PER_HOUR,
};

/// Airflow (or fan speed) within this share of its fan-on median is matched airflow.
pub const MATCH_BAND: f64 = 0.2;
/// A day's median counts in the trend when its matched samples stand for at least this (h).
pub const MIN_DAY_HOURS: f64 = 2.0;
/// The fewest daily medians a trend needs, and the fewest calendar days they must span (the
/// first and the last both counted: a week of data).
pub const MIN_TREND_POINTS: usize = 4;
pub const MIN_TREND_SPAN_DAYS: f64 = 7.0;
/// The most daily medians (the latest) a trend reads.
pub const MAX_TREND_POINTS: usize = 366;
/// A day's median this share or more below the day before is a filter change.
pub const CHANGE_DROP: f64 = 0.25;
/// A rise over the trend of at least this share of `change_dp_inwc`, and this many times the
/// daily medians' scatter about the trend, is loading.
pub const MIN_RISE_SHARE: f64 = 0.1;
pub const RISE_SIGMAS: f64 = 3.0;

/// With no fan signal, a reading at or below this share of `change_dp_inwc` is taken as the fan
/// stopped and left out of the trend (a stopped fan's filter reads about zero).
pub const STOPPED_SHARE: f64 = 0.1;

const NS_PER_DAY: i64 = 24 * NS_PER_HOUR;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "filter_fouling",
        families: &[],
        inputs: Inputs {
            required: &["filter_diff_press"],
            optional: &["supply_fan_status", "supply_fan_speed", "airflow"],
            gating: &["supply_fan_status", "supply_fan_speed", "airflow"],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "change_dp_inwc",
                1.0,
                "in. w.c.",
                (0.3, 2.0),
                "a usual final-resistance alarm for a MERV 13 bank; the right value belongs to the filter and the fan",
                "Take the final resistance the filter's maker recommends, or the drop at which the site changes its filters; a freshly changed filter's filter_dp_median_inwc is the clean starting point.",
            ),
            ParamSpec::number(
                "fault_factor",
                1.5,
                "- (multiple of change_dp_inwc)",
                (1.1, 3.0),
                "half as much again as change-out: the fan is now paying for it in airflow or energy",
                "Choose it so that fault_factor x change_dp_inwc is the drop the fan can no longer overcome at design airflow (its curve and the system's other losses), or the filter maker's maximum; below 1 it is read as 1.",
            ),
            ParamSpec::flag(
                "fan_gate",
                true,
                "no air moves through a filter behind a stopped fan, and its transmitter then reads about zero",
                "Keep it on; turn it off only when the fan signal is known to be wrong and every trended sample was taken with the fan running.",
            ),
            ParamSpec::number(
                "loading_horizon_days",
                30.0,
                "days (0: the projection is off)",
                (0.0, 180.0),
                "a month, the usual interval between filter inspections: a filter that will reach change-out before the next one is due for a change now",
                "Set it to the site's filter inspection interval; 0 judges the trend only by where the filter is now, not by where it is heading.",
            ),
        ],
        judged_basis: "fan-on samples",
    }
}

/// The loading trend of the daily medians at matched airflow.
struct Trend {
    /// Calendar days the medians span (first and last both counted), and how many there are.
    span_days: f64,
    points: usize,
    /// Robust slope (in. w.c. a day) and the rise it makes from the first median to the last.
    per_day: f64,
    rise: f64,
    /// The last day's median.
    now: f64,
    /// Whether the medians rise clear of their scatter, and by enough to call it loading.
    rising: bool,
    loading: bool,
    /// Filter changes seen (day, median before, median after), the last one starting the trend.
    changes: Vec<(i64, f64, f64)>,
    /// The matched samples of the trend's days, and the hours they stand for.
    samples: Vec<u32>,
    hours: f64,
}

/// One day of the trend: its day number, its median, and its (sample, scaled drop) pairs.
type Day = (i64, f64, Vec<(usize, f64)>);

/// Civil date (YYYY-MM-DD) of a naive local day number.
fn date(day: i64) -> String {
    let (y, m, d) = camber_common::time::civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

/// When, in words, something `d` days away happens.
fn within(d: f64) -> String {
    if d < 1.0 {
        "within a day".into()
    } else {
        format!("in about {d:.0} days")
    }
}

/// The median of plain values (NaN when there are none).
fn plain_median(v: &[f64]) -> f64 {
    weighted_quantile(&mut v.iter().map(|&x| (x, 1.0)).collect(), 0.5)
}

/// The trend of the filter's drop at matched airflow over the judged samples, or why it could
/// not be judged. `flow` is the airflow (or fan speed) it is matched on, if trended.
fn trend(
    frame: &Frame,
    dp: &[f64],
    judged: &[usize],
    w: &[f64],
    flow: Option<&[f64]>,
    change: f64,
) -> Result<Trend, String> {
    // the drop at matched airflow, scaled to the median airflow
    let scaled: Vec<(usize, f64)> = match flow {
        Some(q) => {
            let q_ref =
                weighted_quantile(&mut judged.iter().filter(|&&i| q[i] > 0.0).map(|&i| (q[i], w[i])).collect(), 0.5);
            if q_ref.is_nan() {
                return Err("the airflow never read above zero with the fan running".into());
            }
            judged
                .iter()
                .filter(|&&i| q[i] > 0.0 && (q[i] / q_ref - 1.0).abs() <= MATCH_BAND + 1e-9)
                .map(|&i| (i, dp[i] * (q_ref / q[i]).powi(2)))
                .collect()
        }
        None => judged.iter().map(|&i| (i, dp[i])).collect(),
    };
    let mut by_day: BTreeMap<i64, Vec<(usize, f64)>> = BTreeMap::new();
    for (i, v) in scaled {
        by_day.entry(frame.ts[i].div_euclid(NS_PER_DAY)).or_default().push((i, v));
    }
    // each day with enough matched time, and its median
    let days: Vec<Day> = by_day
        .into_iter()
        .filter(|(_, s)| s.iter().map(|&(i, _)| w[i]).sum::<f64>() >= MIN_DAY_HOURS - 1e-9)
        .map(|(d, s)| {
            let m = weighted_quantile(&mut s.iter().map(|&(i, v)| (v, w[i])).collect(), 0.5);
            (d, m, s)
        })
        .collect();
    let mut changes = Vec::new();
    let mut start = 0;
    for k in 1..days.len() {
        if days[k].1 <= (1.0 - CHANGE_DROP) * days[k - 1].1 {
            changes.push((days[k].0, days[k - 1].1, days[k].1));
            start = k;
        }
    }
    // the last year at most: filters are changed more often, and the robust slope's pairs grow
    // with the square of the days
    let days = &days[start.max(days.len().saturating_sub(MAX_TREND_POINTS))..];
    // calendar days from the first median's to the last's, both counted
    let span_days = match (days.first(), days.last()) {
        (Some(a), Some(b)) => (b.0 - a.0 + 1) as f64,
        _ => 0.0,
    };
    if days.len() < MIN_TREND_POINTS || span_days < MIN_TREND_SPAN_DAYS {
        return Err(format!(
            "the loading trend needs {MIN_TREND_POINTS} days or more with {MIN_DAY_HOURS} h of fan-on samples at matched airflow, spanning {MIN_TREND_SPAN_DAYS} days{}; there are {} over {span_days:.0} days",
            if changes.is_empty() { "" } else { " since the last filter change" },
            days.len()
        ));
    }
    let x0 = days[0].0;
    let pts: Vec<(f64, f64)> = days.iter().map(|(d, m, _)| ((d - x0) as f64, *m)).collect();
    let mut slopes = Vec::with_capacity(pts.len() * (pts.len() - 1) / 2);
    for (a, p) in pts.iter().enumerate() {
        for q in &pts[a + 1..] {
            slopes.push((q.1 - p.1) / (q.0 - p.0));
        }
    }
    let per_day = plain_median(&slopes);
    let intercept = plain_median(&pts.iter().map(|p| p.1 - per_day * p.0).collect::<Vec<_>>());
    let scatter =
        1.4826 * plain_median(&pts.iter().map(|p| (p.1 - intercept - per_day * p.0).abs()).collect::<Vec<_>>());
    let rise = per_day * (span_days - 1.0);
    let samples: Vec<u32> = {
        let mut s: Vec<u32> = days.iter().flat_map(|(_, _, s)| s.iter().map(|&(i, _)| i as u32)).collect();
        s.sort_unstable();
        s
    };
    Ok(Trend {
        span_days,
        points: days.len(),
        per_day,
        rise,
        now: days[days.len() - 1].1,
        rising: rise > 0.0 && rise >= RISE_SIGMAS * scatter,
        loading: rise > 0.0 && rise >= RISE_SIGMAS * scatter && rise >= MIN_RISE_SHARE * change - 1e-9,
        changes,
        hours: samples.iter().map(|&i| w[i as usize]).sum(),
        samples,
    })
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let dp = frame.required("filter_diff_press");
    let (on, gate) = running(frame, params.flag(spec, "fan_gate") != Some(false));
    let w = frame.weights_hours();
    let n_read = dp.iter().filter(|v| !v.is_nan()).count();
    let judged: Vec<usize> = (0..frame.len()).filter(|&i| on[i] && !dp[i].is_nan()).collect();
    let gated = matches!(gate, FanGate::From(_));
    if judged.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            if gated { "the fan never ran with a filter reading" } else { "no filter differential pressure sample" },
        )]);
    }
    let thr = params.number(spec, "change_dp_inwc");
    let fault_dp = params.number(spec, "fault_factor").max(1.0) * thr;
    let horizon = params.number(spec, "loading_horizon_days");
    let hours = |idx: &mut dyn Iterator<Item = usize>| idx.map(|i| w[i]).sum::<f64>() + 0.0;
    let judged_h = hours(&mut judged.iter().copied());

    // the window's level, as the reference judges it
    let pairs: Vec<(f64, f64)> = judged.iter().map(|&i| (dp[i], w[i])).collect();
    let median = weighted_quantile(&mut pairs.clone(), 0.5);
    let p95 = weighted_quantile(&mut pairs.clone(), 0.95);
    let over: Vec<u32> = judged.iter().copied().filter(|&i| dp[i] > thr).map(|i| i as u32).collect();
    let over_h = hours(&mut over.iter().map(|&i| i as usize));
    let over_pct = 100.0 * over_h / judged_h;
    let level = if median >= fault_dp {
        Severity::Fault
    } else if median >= thr {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let basis = if gated { "fan-on samples" } else { "samples" };
    let mut summary = format!(
        "filter ΔP median {median:.2} in. w.c. over {basis} (change-out {thr:.2}, fault {fault_dp:.2}); {over_pct:.0}% of them above change-out"
    );
    let mut caveats = Vec::new();
    match gate {
        FanGate::NoSignal => caveats.push(
            "not fan-gated (no fan status, speed or airflow trended): readings with the fan off, about zero, pull the median down; map supply_fan_status".to_string(),
        ),
        FanGate::Disabled => caveats.push("fan_gate is off: every sample was judged as if the fan ran".to_string()),
        FanGate::From(_) => {}
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("filter_dp_median_inwc".into(), (median * 1000.0).round() / 1000.0);
    metrics.insert("filter_dp_p95_inwc".into(), (p95 * 1000.0).round() / 1000.0);
    metrics.insert("change_dp_inwc".into(), thr);
    metrics.insert("fault_dp_inwc".into(), (fault_dp * 1000.0).round() / 1000.0);
    metrics.insert("pct_over_threshold".into(), (over_pct * 10.0).round() / 10.0);
    metrics.insert("n_judged".into(), judged.len() as f64);
    metrics.insert("n_masked_fan_off".into(), if gated { (n_read - judged.len()) as f64 } else { 0.0 });
    metrics.insert("judged_hours".into(), round2(judged_h));

    // where the filter is now and where it is heading
    let flow = frame.col("airflow").map(|c| (c, "airflow")).or(frame.col("supply_fan_speed").map(|c| (c, "fan speed")));
    let mut loading = Severity::Ok;
    let mut loading_cond =
        Condition { name: "loading".into(), flagged: Vec::new(), judged: 0, judged_hours: 0.0, flagged_hours: 0.0 };
    // with no fan signal, the trend keeps the readings a running fan makes
    let running_readings: Vec<usize> = match gate {
        FanGate::NoSignal => judged.iter().copied().filter(|&i| dp[i] > STOPPED_SHARE * thr).collect(),
        _ => judged.clone(),
    };
    match trend(frame, dp, &running_readings, &w, flow.map(|f| f.0), thr) {
        Err(why) => caveats.push(format!("loading not judged: {why}")),
        Ok(t) => {
            let matched = match flow {
                Some((_, what)) => format!(" at matched {what}"),
                None => String::new(),
            };
            let to_change = (t.rising && t.now < thr).then(|| (thr - t.now) / t.per_day);
            let soon = t.loading && horizon > 0.0 && to_change.is_some_and(|d| d <= horizon + 1e-9);
            loading = if t.now >= fault_dp {
                Severity::Fault
            } else if t.now >= thr || soon {
                Severity::Warn
            } else {
                Severity::Ok
            };
            let risen = format!("up {:.2} in. w.c. over its last {:.0} days{matched}", t.rise, t.span_days);
            summary.push_str(&match (loading, to_change) {
                (Severity::Fault, _) => format!("; now {:.2} in. w.c., past the fault level ({risen})", t.now),
                (Severity::Warn, None) => format!("; now {:.2} in. w.c., past change-out ({risen})", t.now),
                (Severity::Warn, Some(d)) => {
                    format!("; loading: {risen}, now {:.2}, reaching change-out {} at this rate", t.now, within(d))
                }
                (_, Some(d)) => {
                    format!("; rising {:.3} in. w.c. a week{matched}: change-out {}", 7.0 * t.per_day, within(d))
                }
                _ => format!("; no clear rise{matched} ({:+.3} in. w.c. a week)", 7.0 * t.per_day),
            });
            match flow {
                Some((_, what)) => caveats.push(format!(
                    "the trend compares the filter at matched {what}: fan-on samples within {:.0}% of the median {what}, scaled to it by the square law",
                    100.0 * MATCH_BAND
                )),
                None => caveats.push(
                    "no airflow or fan speed trended: the trend takes the airflow as constant (a constant-volume unit); on a variable-volume unit map airflow or supply_fan_speed".to_string(),
                ),
            }
            if let Some(&(day, before, after)) = t.changes.last() {
                caveats.push(format!(
                    "the filter was changed on {} (the daily median fell from {before:.2} to {after:.2} in. w.c.): the trend starts there, the window's median does not",
                    date(day)
                ));
            }
            metrics.insert("filter_dp_now_inwc".into(), (t.now * 1000.0).round() / 1000.0);
            metrics.insert("filter_dp_rise_inwc".into(), (t.rise * 1000.0).round() / 1000.0);
            metrics.insert("filter_dp_rise_inwc_per_week".into(), (7.0 * t.per_day * 1000.0).round() / 1000.0);
            metrics.insert("trend_days".into(), t.span_days);
            metrics.insert("trend_points".into(), t.points as f64);
            metrics.insert("filter_changes".into(), t.changes.len() as f64);
            if let Some(d) = to_change {
                metrics.insert("days_to_change_out".into(), (d * 10.0).round() / 10.0);
            }
            loading_cond.judged = t.samples.len();
            loading_cond.judged_hours = t.hours;
            if loading >= Severity::Warn {
                loading_cond.flagged_hours = t.hours;
                loading_cond.flagged = t.samples;
            }
        }
    }
    let mut flagged: Vec<u32> = over.iter().chain(&loading_cond.flagged).copied().collect();
    flagged.sort_unstable();
    flagged.dedup();
    let above = Condition {
        name: "above_change_out".into(),
        flagged: over,
        judged: judged.len(),
        judged_hours: judged_h,
        flagged_hours: over_h,
    };
    Outcome::Findings(vec![Finding::new(spec, level.max(loading), summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged.len())
        .with_conditions(vec![above, loading_cond])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A small deterministic jitter (about ±0.01 in. w.c.) for sample `i`.
    fn jitter(i: usize) -> f64 {
        ((i * 7919 % 13) as f64 / 12.0 - 0.5) * 0.02
    }

    /// `days` days every `step` minutes from a Monday, the fan running 05:00-21:00 every day; with
    /// it running the filter reads `dp(t)` (t in days from the start) plus a jitter, and about
    /// zero with it stopped.
    fn unit(days: i64, step: i64, dp: impl Fn(f64) -> f64) -> Frame {
        let n = (days * 24 * 60 / step) as usize;
        let ts = every(MONDAY, step * MINUTE, n);
        let t = |i: usize| (ts[i] - MONDAY) as f64 / (24 * H) as f64;
        let fan: Vec<f64> = ts.iter().map(|t| (5..21).contains(&((t - MONDAY) % (24 * H) / H)) as u8 as f64).collect();
        let reading = (0..n).map(|i| if fan[i] > 0.0 { dp(t(i)) + jitter(i) } else { 0.01 * jitter(i) }).collect();
        Frame::from_rows(&ts, &[("supply_fan_status", fan), ("filter_diff_press", reading)])
    }

    /// The reference's three filters over a fortnight: clean (0.42 to 0.48 in. w.c.), loading
    /// fast and late (0.55 to 1.60), and far past change-out (1.62 to 1.82).
    fn clean(t: f64) -> f64 {
        0.42 + 0.06 * t / 14.0
    }
    fn loading(t: f64) -> f64 {
        0.55 + 1.05 * (t / 14.0).powf(1.4)
    }
    fn dirty(t: f64) -> f64 {
        1.62 + 0.2 * t / 14.0
    }

    #[test]
    fn a_clean_filter_is_ok() {
        let r = run(&RULE, &unit(14, 15, clean), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!((r.metrics["filter_dp_median_inwc"] - 0.45).abs() < 0.01, "{:?}", r.metrics);
        assert_eq!((r.metrics["pct_over_threshold"], r.metrics["trend_days"]), (0.0, 14.0));
        // it loads, slowly: change-out months away
        assert!(r.metrics["days_to_change_out"] > 90.0, "{:?}", r.metrics);
        assert!(r.summary.contains("rising 0.03"), "{}", r.summary);
        assert!(r.flagged.is_empty() && r.conditions.iter().all(|c| c.flagged.is_empty()));
        assert!(r.caveats.iter().any(|c| c.contains("constant-volume")), "{:?}", r.caveats);
    }

    #[test]
    fn a_dirty_filter_and_a_loading_filter_are_found() {
        let d = run(&RULE, &unit(14, 15, dirty), &Params::default());
        assert_eq!(d.severity, Severity::Fault);
        assert!((d.metrics["filter_dp_median_inwc"] - 1.72).abs() < 0.01, "{:?}", d.metrics);
        // the window's median passes the loading filter; where it ended does not
        let l = run(&RULE, &unit(14, 15, loading), &Params::default());
        assert!(l.metrics["filter_dp_median_inwc"] < 1.0, "{:?}", l.metrics);
        assert_eq!(l.severity, Severity::Fault, "{}", l.summary);
        assert!(l.metrics["filter_dp_now_inwc"] >= 1.5, "{:?}", l.metrics);
        assert!(l.summary.contains("past the fault level"), "{}", l.summary);
        assert_eq!(l.conditions[1].flagged.len(), l.conditions[1].judged);
        // its first week, before it reached change-out: loading, a warning
        let w = run(&RULE, &unit(7, 15, loading), &Params::default());
        assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
        assert!(w.metrics["filter_dp_now_inwc"] < 1.0 && w.metrics["days_to_change_out"] < 5.0, "{:?}", w.metrics);
        assert!(w.summary.contains("loading: up"), "{}", w.summary);
        assert!(w.conditions[0].flagged.is_empty() && !w.flagged.is_empty());
    }

    #[test]
    fn the_change_out_and_fault_levels_at_their_boundaries() {
        // three days: the level alone (no trend yet), steady readings with no jitter
        let level = |v: f64, p: &Params| {
            let mut f = unit(3, 60, |_| v);
            let on = f.cols["supply_fan_status"].clone();
            f.cols.insert("filter_diff_press".into(), on.iter().map(|&o| o * v).collect());
            run(&RULE, &f, p)
        };
        let d = Params::default();
        assert_eq!(level(0.99, &d).severity, Severity::Ok);
        assert_eq!(level(1.0, &d).severity, Severity::Warn);
        assert_eq!(level(1.49, &d).severity, Severity::Warn);
        assert_eq!(level(1.5, &d).severity, Severity::Fault);
        assert!(level(1.0, &d).caveats.iter().any(|c| c.starts_with("loading not judged")));
        assert_eq!(level(1.0, &numbers(&[("change_dp_inwc", 1.2)])).severity, Severity::Ok);
        assert_eq!(level(1.2, &numbers(&[("fault_factor", 1.2)])).severity, Severity::Fault);
        // a fault factor below 1 is read as 1
        assert_eq!(level(1.0, &numbers(&[("fault_factor", 0.5)])).severity, Severity::Fault);
        assert_eq!(level(0.9, &numbers(&[("fault_factor", 0.5)])).severity, Severity::Ok);

        // a filter loading 0.01 in. w.c. a day from 0.5, a step each midnight: 0.63 on its
        // fourteenth day, change-out in 37 days
        let steps = |rate: f64, from: f64, p: &Params| {
            let mut f = unit(14, 60, |_| 0.0);
            let on = f.cols["supply_fan_status"].clone();
            let dp = f.ts.iter().zip(&on).map(|(t, o)| o * (from + rate * ((t - MONDAY) / (24 * H)) as f64)).collect();
            f.cols.insert("filter_diff_press".into(), dp);
            run(&RULE, &f, p)
        };
        let r = steps(0.01, 0.5, &d);
        assert!((r.metrics["days_to_change_out"] - 37.0).abs() < 1e-6, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
        assert_eq!(steps(0.01, 0.5, &numbers(&[("loading_horizon_days", 37.0)])).severity, Severity::Warn);
        assert_eq!(steps(0.01, 0.5, &numbers(&[("loading_horizon_days", 36.9)])).severity, Severity::Ok);
        assert_eq!(steps(0.05, 0.3, &d).severity, Severity::Warn);
        assert_eq!(steps(0.05, 0.3, &numbers(&[("loading_horizon_days", 0.0)])).severity, Severity::Ok);
        // close to change-out but rising by less than a tenth of it: not loading
        let slow = steps(0.005, 0.85, &d);
        assert!(slow.metrics["days_to_change_out"] < 30.0, "{:?}", slow.metrics);
        assert_eq!(slow.severity, Severity::Ok, "{}", slow.summary);
    }

    #[test]
    fn uneven_sampling_is_weighed_by_time_and_gaps_are_not_judged() {
        // every 15 minutes: 15 h at 0.5 and 10 h at 1.6 in. w.c., with 2.5 h logged every 5
        // minutes at 1.2 in between. By count the median is 1.2 (a warning); by time it is 0.5.
        let mut ts: Vec<i64> = every(MONDAY, 15 * MINUTE, 60);
        let t1 = ts[59] + 15 * MINUTE;
        ts.extend(every(t1, 5 * MINUTE, 30));
        let t2 = t1 + 30 * 5 * MINUTE;
        ts.extend(every(t2, 15 * MINUTE, 40));
        let dp: Vec<f64> = (0..130)
            .map(|i| {
                if i < 60 {
                    0.5
                } else if i < 90 {
                    1.2
                } else {
                    1.6
                }
            })
            .collect();
        let f = Frame::from_rows(&ts, &[("supply_fan_status", vec![1.0; 130]), ("filter_diff_press", dp)]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["filter_dp_median_inwc"]), (Severity::Ok, 0.5));
        assert!((r.metrics["pct_over_threshold"] - 45.5).abs() < 0.05, "{:?}", r.metrics);
        assert!((r.metrics["judged_hours"] - 27.5).abs() < 1e-9, "{:?}", r.metrics);
        // four hours missing from a running day are not judged time: the sample before the gap
        // stands for 1.5 steps, not the gap
        let g = unit(1, 15, clean);
        let keep: Vec<usize> = (0..g.len()).filter(|&i| !(10 * H..14 * H).contains(&(g.ts[i] - MONDAY))).collect();
        let cols: Vec<(&str, Vec<f64>)> =
            g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect();
        let g = Frame::from_rows(&keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(), &cols);
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.judged, r.metrics["judged_hours"]), (48, 12.13));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [unit(14, 60, loading), unit(14, 60, clean), unit(3, 60, dirty)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn readings_with_the_fan_off_are_not_judged() {
        let f = unit(3, 60, |_| 1.1);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Warn, 48));
        assert_eq!(r.metrics["n_masked_fan_off"], 24.0);
        // without a fan signal every sample is judged, and the finding says so; on a unit that
        // runs under half the day the zeros pull the median down
        let mut g = f.clone();
        g.cols.remove("supply_fan_status");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Warn, 72));
        let mut short = g.clone();
        let dp = short.ts.iter().map(|t| if (9..17).contains(&((t - MONDAY) % (24 * H) / H)) { 1.1 } else { 0.0 });
        short.cols.insert("filter_diff_press".into(), dp.collect());
        assert_eq!(run(&RULE, &short, &Params::default()).severity, Severity::Ok);
        // over a week its trend keeps the readings a running fan makes: the filter is past
        // change-out now
        let mut week = unit(8, 60, |_| 0.0);
        week.cols.remove("supply_fan_status");
        let dp = week.ts.iter().map(|t| if (9..17).contains(&((t - MONDAY) % (24 * H) / H)) { 1.1 } else { 0.0 });
        week.cols.insert("filter_diff_press".into(), dp.collect());
        let r = run(&RULE, &week, &Params::default());
        assert_eq!(
            (r.severity, r.metrics["filter_dp_median_inwc"], r.metrics["filter_dp_now_inwc"]),
            (Severity::Warn, 0.0, 1.1)
        );
        assert!(r.caveats[0].starts_with("not fan-gated"), "{:?}", r.caveats);
        assert!(r.summary.contains("over samples"), "{}", r.summary);
        let r = run(
            &RULE,
            &f,
            &crate::engine::testing::with(&[("fan_gate", crate::engine::ParamValue::Flag(Some(false)))]),
        );
        assert_eq!((r.judged, r.caveats[0].starts_with("fan_gate is off")), (72, true));
        // airflow stands in for the fan
        let mut h = g.clone();
        h.cols.insert("airflow".into(), f.cols["supply_fan_status"].iter().map(|o| o * 8000.0).collect());
        assert_eq!(run(&RULE, &h, &Params::default()).judged, 48);
        // a fan that never ran judged nothing: not a pass
        let mut off = f.clone();
        off.cols.insert("supply_fan_status".into(), vec![0.0; f.len()]);
        let r = run(&RULE, &off, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        assert!(r.summary.contains("the fan never ran"), "{}", r.summary);
    }

    /// A variable-volume unit over three weeks: the airflow swings with the hour and grows as
    /// the weather warms, and the filter's drop follows the square law at a resistance `k(t)`
    /// (in. w.c. at 10,000 cfm).
    fn vav(k: impl Fn(f64) -> f64, role: &str) -> Frame {
        let mut f = unit(21, 30, |_| 0.0);
        let n = f.len();
        let day = |i: usize| (f.ts[i] - MONDAY) as f64 / (24 * H) as f64;
        let q: Vec<f64> = (0..n)
            .map(|i| {
                let hour = day(i).fract() * 24.0;
                10_000.0
                    * (0.6 + 0.3 * ((hour - 5.0) / 16.0 * std::f64::consts::PI).sin())
                    * (1.0 + 0.3 * day(i) / 21.0)
            })
            .collect();
        let on = f.cols["supply_fan_status"].clone();
        let dp = (0..n).map(|i| on[i] * (k(day(i)) * (q[i] / 10_000.0).powi(2) + jitter(i))).collect();
        f.cols.insert("filter_diff_press".into(), dp);
        let signal = if role == "airflow" { q.clone() } else { q.iter().map(|v| v / 150.0).collect() };
        f.cols.insert(role.into(), (0..n).map(|i| on[i] * signal[i]).collect());
        f
    }

    #[test]
    fn the_filter_is_compared_at_matched_airflow() {
        // a clean filter whose drop rises only because the unit moves more air
        for role in ["airflow", "supply_fan_speed"] {
            let f = vav(|_| 0.9, role);
            let r = run(&RULE, &f, &Params::default());
            assert_eq!(r.severity, Severity::Ok, "{role}: {}", r.summary);
            assert!(r.metrics["filter_dp_rise_inwc"].abs() < 0.05, "{role}: {:?}", r.metrics);
            assert!(r.caveats.iter().any(|c| c.contains("at matched")), "{:?}", r.caveats);
            // read as constant volume, the same filter seems to load
            let mut raw = f.clone();
            raw.cols.remove(role);
            assert!(run(&RULE, &raw, &Params::default()).metrics["filter_dp_rise_inwc"] > 0.15);
        }
        // a loading filter on the same unit is found
        let r = run(&RULE, &vav(|t| 0.6 + 0.03 * t, "airflow"), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!(r.summary.contains("at matched airflow"), "{}", r.summary);
    }

    #[test]
    fn a_filter_change_restarts_the_trend() {
        // loading to 1.2 in. w.c. over ten days, changed, then clean again for nine
        let f = unit(19, 60, |t| if t < 10.0 { 0.6 + 0.06 * t } else { 0.4 + 0.005 * (t - 10.0) });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.metrics["filter_changes"], 1.0);
        assert!(r.metrics["filter_dp_now_inwc"] < 0.5 && r.metrics["trend_days"] == 9.0, "{:?}", r.metrics);
        assert!(r.caveats.iter().any(|c| c.contains("was changed on 2024-01-11")), "{:?}", r.caveats);
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("supply_fan_status", vec![1.0; 3])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["filter_diff_press".into()] }
        );
        let nan = Frame::from_rows(&ts, &[("filter_diff_press", vec![f64::NAN; 3])]);
        assert!(matches!(outcome(&RULE, &nan, &Params::default()), Outcome::Skipped { .. }));
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY], &[("filter_diff_press", vec![1.2]), ("supply_fan_status", vec![1.0])]);
        let r = run(&RULE, &one, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Warn, 1));
        // two years of daily readings: the trend reads the last year
        let long = unit(730, 240, |t| 0.4 + 0.0005 * t);
        let r = run(&RULE, &long, &Params::default());
        assert_eq!((r.metrics["trend_points"], r.metrics["trend_days"]), (366.0, 366.0));
        // a fan status with no reading where the filter reads: nothing judged
        let apart = Frame::from_rows(
            &ts,
            &[("filter_diff_press", vec![0.5, f64::NAN, f64::NAN]), ("supply_fan_status", vec![f64::NAN, 1.0, 1.0])],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).judged, 0);
        // an airflow that never reads above zero leaves the trend unjudged, not the level
        let mut z = unit(8, 60, clean);
        z.cols.insert("airflow".into(), vec![0.0; z.len()]);
        let r = run(
            &RULE,
            &z,
            &crate::engine::testing::with(&[("fan_gate", crate::engine::ParamValue::Flag(Some(false)))]),
        );
        assert!(r.caveats.iter().any(|c| c.contains("never read above zero")), "{:?}", r.caveats);
    }
}
