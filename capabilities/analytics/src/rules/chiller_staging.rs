//! `chiller_staging`: a chiller that starts too often (short cycling: an oversized machine, a
//! staging band too tight, a control loop hunting) or that runs most of its hours at a small
//! share of its output (left enabled through nights and weekends, or too big for its load).
//! Starts are counted with [`crate::cycles`] on the chiller's run status (a resampled duty counts
//! the fewest starts it allows), else on its power above `run_frac` of its 95th-percentile draw
//! (or above `min_power_kw`), per observed day. With the chilled-water flow and both loop
//! temperatures, the cooling it makes (tons) while running is read against its own observed
//! peak (over a span of two months or more, the peak of each sample's own month): the share of
//! running time below `low_load_pct` of that peak. Warn at
//! `max_starts_per_day` starts a day or a third of the running time at low load; fault at twice
//! the starts or half the running time. A trend coarser than `max_interval_min` hides cycles
//! shorter than its interval, so the count is then a floor, and the finding says so.
//!
//! Unlike the reference, a low load warns from a third of the running time (the reference: a
//! quarter, which a healthy lone chiller's mornings and evenings reach), the shares, the running
//! time and the load-factor median are of time
//! (each sample weighs the time it stands for), starts are per observed day (a logger outage is
//! not a day without starts), a resampled status counts the starts its duties imply, and a frame
//! that reads as a chilled-water loop's (pump signals, no compressor status: its power is its
//! pumps') is not judged as a chiller.

use std::collections::BTreeMap;

use crate::chiller::{chiller_running, looks_like_loop, tons};
use crate::cycles;
use crate::engine::{
    round2, severity_of, weighted_quantile, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// Shares of running time at low load (%) that warn and that fault. The reference warns from a
/// quarter; a lone chiller serving a summer building's mornings and evenings sits below 40 % of
/// its peak for about 29 % of its hours on camber-synth's healthy plant, which is how a plant
/// runs, not a staging fault, so the warning starts at a third.
const LOW_WARN_PCT: f64 = 100.0 / 3.0;
const LOW_FAULT_PCT: f64 = 50.0;
/// Running tons whose 10th-90th percentile spread is within this share (%) of their peak are one
/// output: the load factor then says nothing about part load.
const CONSTANT_OUTPUT_SPREAD_PCT: f64 = 5.0;
/// Fewest power samples, and fewest running samples with tons, a count or a load factor needs.
const MIN_SAMPLES: usize = 10;

/// The run-gate parameters `chiller_staging` and `chiller_staging_fleet` share.
pub fn run_gate_params() -> [ParamSpec; 2] {
    [
        ParamSpec::number(
            "min_power_kw",
            f64::NAN,
            "kW",
            (1.0, 500.0),
            "unset, a chiller runs above run_frac of its own 95th-percentile power, which scales with the machine; a number is a site's own floor",
            "Put it above the chiller's standby draw (controls, oil and crankcase heaters, often 5-15 kW) and below its lightest running load, from a week of power trend with known stops and starts. A mapped compressor_status replaces the power gate altogether.",
        ),
        ParamSpec::number(
            "run_frac",
            0.1,
            "fraction of the chiller's 95th-percentile power",
            (0.02, 0.5),
            "a tenth of a chiller's working draw sits above its standby load and below its lightest running load; the percentile is of the samples drawing any power, so a lag chiller that is mostly off still reads its working draw",
            "Raise it when the standby draw is more than a tenth of the 95th-percentile power (a lightly loaded machine with heavy heaters); lower it when the lightest running load reads as off. Used only without compressor_status and min_power_kw.",
        ),
    ]
}

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [min_power, run_frac] = run_gate_params();
    RuleSpec {
        id: "chiller_staging",
        families: &["chw_plant"],
        inputs: Inputs {
            required: &["power"],
            optional: &["chw_supply_temp", "chw_return_temp", "chw_flow", "compressor_status"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "max_starts_per_day",
                6.0,
                "per day",
                (2.0, 24.0),
                "a generic cycling limit: a compressor's anti-recycle timer allows a few starts an hour at most, and more than a handful a day is wear and lost efficiency; warn at it, fault at twice it",
                "Take the minimum start-to-start time from the chiller's controls and allow margin, or use the 95th percentile of daily starts over a known-good season. A coarse trend undercounts, so the count is a floor.",
            ),
            ParamSpec::number(
                "low_load_pct",
                40.0,
                "% of the chiller's observed peak tons",
                (10.0, 70.0),
                "below about 40 % of its output a chiller's part-load efficiency falls away; a third of the running time down there warns, half of it faults",
                "Set it near the load below which the manufacturer's part-load curve turns sharply worse (commonly 30-40 % of capacity). The peak is the observed one, not the nameplate; needs the chilled-water flow and both loop temperatures.",
            ),
            ParamSpec::number(
                "max_interval_min",
                15.0,
                "minutes",
                (5.0, 60.0),
                "a cycle shorter than the trend's interval leaves no trace in an off-to-on count, and 15 minutes is the usual grid",
                "Keep it at or below the chiller's minimum cycle (minimum on plus minimum off). Rather than raising it, run the rule on a finer grid so the count can see the cycles.",
            ),
            min_power,
            run_frac,
        ],
        judged_basis: "samples with the chiller's power known (running ones for the load factor)",
    }
}

/// What the running tons say of part load.
struct Load {
    median_pct: f64,
    low_pct: f64,
    spread_pct: f64,
    /// The running samples below `low_load_pct`, and the running samples with tons.
    low: Vec<u32>,
    judged: Vec<u32>,
    judged_hours: f64,
    low_hours: f64,
    /// The stretches of the span each read against its own peak (1: the whole span).
    windows: usize,
}

/// The load factor over the running samples `on`, when the flow and both temperatures are
/// trended and at least [`MIN_SAMPLES`] running samples make cooling. Each sample is read against
/// the peak of its own stretch of the span: the whole span up to two months, else equal
/// stretches of about a month ([`peak_windows`]), so a chiller carrying a spring building's load
/// is not read as idling against its August peak.
fn load_factor(frame: &Frame, on: &[bool], weights: &[f64], low_load_pct: f64) -> Option<Load> {
    let (flow, chwr, chws) = (frame.col("chw_flow")?, frame.col("chw_return_temp")?, frame.col("chw_supply_temp")?);
    let running: Vec<(usize, f64)> = (0..frame.len())
        .filter(|&i| on[i])
        .map(|i| (i, tons(flow[i], chwr[i], chws[i])))
        .filter(|(_, t)| *t > 0.0)
        .collect();
    if running.len() < MIN_SAMPLES {
        return None;
    }
    let peak = running.iter().map(|p| p.1).fold(f64::NEG_INFINITY, crate::engine::max_of);
    let (windows, window_of) = peak_windows(frame);
    let mut peaks = vec![0.0f64; windows];
    for &(i, t) in &running {
        peaks[window_of(i)] = peaks[window_of(i)].max(t);
    }
    let factor = |i: usize, t: f64| 100.0 * t / peaks[window_of(i)];
    let pairs: Vec<(f64, f64)> = running.iter().map(|&(i, t)| (factor(i, t), weights[i])).collect();
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    let low: Vec<u32> = running.iter().filter(|&&(i, t)| factor(i, t) < low_load_pct).map(|p| p.0 as u32).collect();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let low_hours: f64 = low.iter().map(|&i| weights[i as usize]).sum::<f64>() + 0.0;
    let tons_w: Vec<(f64, f64)> = running.iter().map(|&(i, t)| (t, weights[i])).collect();
    let (p10, p90) = (weighted_quantile(&mut tons_w.clone(), 0.1), weighted_quantile(&mut tons_w.clone(), 0.9));
    Some(Load {
        median_pct: weighted_quantile(&mut pairs.clone(), 0.5),
        low_pct: if total > 0.0 { 100.0 * low_hours / total } else { 0.0 },
        spread_pct: 100.0 * (p90 - p10) / peak,
        low,
        judged: running.iter().map(|p| p.0 as u32).collect(),
        judged_hours: total,
        low_hours,
        windows,
    })
}

/// The stretches a chiller's peak is read on: one for a span under two months (a season's
/// fortnight, as the reference reads it), else `floor(days / 30)` equal ones; and the stretch of
/// each sample.
fn peak_windows(frame: &Frame) -> (usize, impl Fn(usize) -> usize + '_) {
    const DAY_NS: f64 = 86_400e9;
    let (first, last) = (frame.ts.first().copied().unwrap_or(0), frame.ts.last().copied().unwrap_or(0));
    let span = (last - first) as f64;
    let n = ((span / DAY_NS / 30.0).floor() as usize).max(1);
    let width = span / n as f64;
    (n, move |i: usize| if n == 1 { 0 } else { (((frame.ts[i] - first) as f64 / width) as usize).min(n - 1) })
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let p = |name: &str| params.number(spec, name);
    let power = frame.required("power");
    if looks_like_loop(frame) {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "the equipment carries a pump's signals and no compressor status, so it reads as a chilled-water loop whose power is its pumps', not a chiller's (map compressor_status if it is a chiller)",
        )]);
    }
    // the samples with power read, as the reference reads them
    let rows: Vec<usize> = (0..frame.len()).filter(|&i| !power[i].is_nan()).collect();
    if rows.len() < MIN_SAMPLES {
        return Outcome::Findings(vec![Finding::not_judged(spec, "fewer than ten samples of the chiller's power")]);
    }
    let Some(running) = chiller_running(frame, p("min_power_kw"), p("run_frac")) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the chiller's power never reads above zero")]);
    };
    // what the cycle count reads: the status's duty, else the power gate as 0/1
    let ts: Vec<i64> = rows.iter().map(|&i| frame.ts[i]).collect();
    let signal: Vec<f64> = match (running.source.is_status(), frame.col("compressor_status")) {
        (true, Some(s)) => rows.iter().map(|&i| s[i]).collect(),
        _ => rows.iter().map(|&i| if running.on[i] { 1.0 } else { 0.0 }).collect(),
    };
    let Some(c) = cycles::count(&ts, &signal) else {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "fewer than ten samples of the chiller's run status",
        )]);
    };
    let max_starts = p("max_starts_per_day");
    let starts_per_day = c.starts_per_day();
    let weights = frame.weights_hours();
    let low_load_pct = p("low_load_pct");
    let load = load_factor(frame, &running.on, &weights, low_load_pct);
    let low = load.as_ref().map_or(0.0, |l| l.low_pct);
    // a hair of tolerance: a count of exactly the threshold reaches it; the worse of the two
    const EPS: f64 = 1e-9;
    let severity = severity_of(starts_per_day + EPS, max_starts, 2.0 * max_starts).max(severity_of(
        low + EPS,
        LOW_WARN_PCT,
        LOW_FAULT_PCT,
    ));
    let mut caveats = Vec::new();
    if let Some(cv) = running.source.caveat() {
        caveats.push(cv.to_string());
    }
    let interval = c.interval_min.unwrap_or(f64::NAN);
    if interval > p("max_interval_min") {
        caveats.push(format!(
            "starts counted on a {interval:.0}-minute trend, coarser than the {:.0} minutes the count needs (max_interval_min): a cycle shorter than the interval leaves no trace, so starts_per_day is a floor; run the rule on a finer grid for the true count",
            p("max_interval_min")
        ));
    }
    if let Some(l) = load.as_ref().filter(|l| l.spread_pct <= CONSTANT_OUTPUT_SPREAD_PCT) {
        caveats.push(format!(
            "every run is at about the same output (the 10th-90th percentile of the running tons spans {:.1} % of their peak): the load factor is read against that same output and says nothing about part load; compare the tons with the chiller's rated capacity",
            l.spread_pct
        ));
    }
    if let Some(l) = load.as_ref().filter(|l| l.windows > 1) {
        caveats.push(format!(
            "a span of {} months: each running sample's load is read against the peak of its own month, so a season's lighter load is not taken for a chiller idling",
            l.windows
        ));
    }
    if load.is_none() {
        caveats.push("no load factor: it needs the chilled-water flow and supply and return temperatures with at least ten running samples making cooling".into());
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("starts_per_day".into(), round2(starts_per_day));
    metrics.insert("max_starts_per_day".into(), max_starts);
    metrics.insert("starts".into(), c.starts.len() as f64);
    metrics.insert("runtime_pct".into(), round2(c.runtime_pct));
    metrics.insert("n_days".into(), round2(c.observed_days));
    if running.threshold.is_finite() {
        metrics.insert("run_threshold_kw".into(), round2(running.threshold));
    }
    if let Some(m) = c.interval_min {
        metrics.insert("interval_min".into(), round2(m));
    }
    let load_note = match &load {
        Some(l) => {
            metrics.insert("load_factor_median_pct".into(), round2(l.median_pct));
            metrics.insert("low_load_pct".into(), round2(l.low_pct));
            metrics.insert("load_spread_pct".into(), round2(l.spread_pct));
            let of = if l.windows > 1 { "its month's observed peak" } else { "its observed peak" };
            format!(
                ", load factor median {:.0} % of {of} ({:.0} % of running time below {low_load_pct:.0} %)",
                l.median_pct, l.low_pct
            )
        }
        None => String::new(),
    };
    let starts: Vec<u32> = c.starts.iter().map(|&k| rows[k] as u32).collect();
    let observed_hours = c.observed_days * 24.0;
    let mut conditions = vec![Condition {
        name: "starts".into(),
        flagged: starts.clone(),
        judged: rows.len(),
        judged_hours: round2(observed_hours),
        flagged_hours: 0.0,
    }];
    let mut flagged = Vec::new();
    if starts_per_day + EPS >= max_starts {
        flagged.extend(starts.iter().copied());
    }
    if let Some(l) = &load {
        conditions.push(Condition {
            name: "low_part_load".into(),
            flagged: l.low.clone(),
            judged: l.judged.len(),
            judged_hours: round2(l.judged_hours),
            flagged_hours: round2(l.low_hours),
        });
        if l.low_pct + EPS >= LOW_WARN_PCT {
            flagged.extend(l.low.iter().copied());
        }
    }
    flagged.sort_unstable();
    flagged.dedup();
    // a rate under one a day in hundredths, so a chiller that started once reads 0.05, not 0.0
    let rate = if starts_per_day < 1.0 { format!("{starts_per_day:.2}") } else { format!("{starts_per_day:.1}") };
    let summary = format!(
        "{rate} starts a day (warn at {max_starts:.0}), running {:.0} % of the time ({} gate){load_note}",
        c.runtime_pct,
        running.source.name()
    );
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(rows.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::engine::Severity;

    /// Days at `step` minutes: the chiller on by `on(t)` (hours since Monday 00:00) at
    /// `kw(t)` kW and making `load(t)` tons on 600 gpm; 5 kW standby when off.
    fn plant(days: i64, step: i64, on: impl Fn(f64) -> bool, load: impl Fn(f64) -> f64) -> Frame {
        let n = (days * 24 * 60 / step) as usize;
        let ts = every(MONDAY, step * MINUTE, n);
        let hours: Vec<f64> = (0..n).map(|i| (i as i64 * step) as f64 / 60.0).collect();
        let running: Vec<bool> = hours.iter().map(|&t| on(t)).collect();
        let tons: Vec<f64> = hours.iter().zip(&running).map(|(&t, &r)| if r { load(t) } else { 0.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("power", tons.iter().zip(&running).map(|(t, r)| if *r { 20.0 + 0.6 * t } else { 5.0 }).collect()),
                ("chw_flow", running.iter().map(|r| if *r { 600.0 } else { 0.0 }).collect()),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", tons.iter().map(|t| 44.0 + 24.0 * t / 600.0).collect()),
            ],
        )
    }

    /// Weekdays 6:00-18:00, once a day.
    fn daytime(t: f64) -> bool {
        let (day, hour) = ((t / 24.0) as i64 % 7, t % 24.0);
        day < 5 && (6.0..18.0).contains(&hour)
    }

    /// A day's load: 150 tons rising to 250 through the afternoon.
    fn day_load(t: f64) -> f64 {
        150.0 + 100.0 * ((t % 24.0 - 6.0) / 12.0).clamp(0.0, 1.0)
    }

    #[test]
    fn a_well_staged_chiller_is_ok() {
        let r = run(&RULE, &plant(14, 15, daytime, day_load), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!((r.metrics["starts_per_day"] - 10.0 / 14.0).abs() < 0.02, "{:?}", r.metrics);
        assert_eq!(r.metrics["low_load_pct"], 0.0);
        assert!(r.flagged.is_empty());
        assert!(r.caveats.iter().any(|c| c.contains("power above a tenth")), "{:?}", r.caveats);
    }

    #[test]
    fn short_cycling_and_a_chiller_left_on_are_faults() {
        // on for 30 minutes of every hour around the clock: 24 starts a day
        let cycling = run(&RULE, &plant(7, 15, |t| t % 1.0 < 0.5, |_| 250.0), &Params::default());
        assert_eq!(cycling.severity, Severity::Fault, "{}", cycling.summary);
        assert!((cycling.metrics["starts_per_day"] - 24.0).abs() < 0.1, "{:?}", cycling.metrics);
        assert_eq!(cycling.flagged.len(), 7 * 24);
        // one output every run: the load factor says nothing, and the finding says so
        assert!(cycling.caveats.iter().any(|c| c.contains("same output")), "{:?}", cycling.caveats);
        // left on around the clock, idling at 30 tons nights and weekends
        let left_on =
            run(&RULE, &plant(14, 15, |_| true, |t| if daytime(t) { day_load(t) } else { 30.0 }), &Params::default());
        assert_eq!(left_on.severity, Severity::Fault, "{}", left_on.summary);
        assert!(left_on.metrics["low_load_pct"] > 60.0, "{:?}", left_on.metrics);
        assert_eq!(left_on.metrics["runtime_pct"], 100.0);
    }

    #[test]
    fn a_season_is_read_month_by_month() {
        // 120 days whose load grows from a fifth of the summer's to all of it, month by month:
        // read against the season's peak, the spring months idle; against each month's, none do
        let season = |t: f64| day_load(t) * (0.2 + 0.8 * (t / 24.0 / 120.0).min(1.0));
        let r = run(&RULE, &plant(120, 15, daytime, season), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.summary.contains("its month's observed peak"), "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("a span of 3 months")), "{:?}", r.caveats);
        // the same season with the chiller left on at 30 tons nights and weekends still faults
        let left_on = |t: f64| if daytime(t) { season(t) } else { 30.0 };
        let r = run(&RULE, &plant(120, 15, |_| true, left_on), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        // under two months the span is one stretch, as the reference reads it
        let r = run(&RULE, &plant(59, 15, daytime, season), &Params::default());
        assert!(r.summary.contains("of its observed peak") && !r.caveats.iter().any(|c| c.contains("months")));
    }

    #[test]
    fn the_thresholds_at_their_boundaries() {
        // starts: every 4 hours is 6 a day (warn), one more start a day past 12 (fault)
        let every = |hours: f64| move |t: f64| t % hours < 1.0;
        let six = run(&RULE, &plant(7, 15, every(4.0), |_| 250.0), &Params::default());
        assert!((six.metrics["starts_per_day"] - 6.0).abs() < 0.02, "{:?}", six.metrics);
        assert_eq!(six.severity, Severity::Warn);
        let under = run(&RULE, &plant(7, 15, every(24.0 / 5.0), |_| 250.0), &Params::default());
        assert_eq!(under.severity, Severity::Ok, "{}", under.summary);
        let twelve = run(&RULE, &plant(7, 15, every(2.0), |_| 250.0), &Params::default());
        assert_eq!(twelve.severity, Severity::Fault);
        // max_starts_per_day moves both levels
        assert_eq!(
            run(&RULE, &plant(7, 15, every(2.0), |_| 250.0), &numbers(&[("max_starts_per_day", 12.0)])).severity,
            Severity::Warn
        );
        assert_eq!(
            run(&RULE, &plant(7, 15, every(4.0), |_| 250.0), &numbers(&[("max_starts_per_day", 7.0)])).severity,
            Severity::Ok
        );
        // low load: exactly a third of running time below 40 % of the peak warns, half faults
        let share = |low_hours: f64| move |t: f64| if t % 24.0 < low_hours { 90.0 } else { 250.0 };
        let r = run(&RULE, &plant(7, 15, |_| true, share(8.0)), &Params::default());
        assert_eq!((r.severity, r.metrics["low_load_pct"]), (Severity::Warn, 33.33), "{}", r.summary);
        let r = run(&RULE, &plant(7, 15, |_| true, share(7.75)), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(run(&RULE, &plant(7, 15, |_| true, share(11.75)), &Params::default()).severity, Severity::Warn);
        let r = run(&RULE, &plant(7, 15, |_| true, share(12.0)), &Params::default());
        assert_eq!((r.severity, r.metrics["low_load_pct"]), (Severity::Fault, 50.0));
        // 90 tons is 36 % of the 250-ton peak: under a 35 % low_load_pct it is not low
        let r = run(&RULE, &plant(7, 15, |_| true, share(12.0)), &numbers(&[("low_load_pct", 35.0)]));
        assert_eq!((r.severity, r.metrics["low_load_pct"]), (Severity::Ok, 0.0));
    }

    #[test]
    fn the_run_gate_reads_status_then_power() {
        // a standby draw of 30 kW on a chiller working at 110-170 kW: above a tenth of its
        // 95th-percentile draw, so it reads as never stopping ...
        let f = plant(7, 15, daytime, day_load);
        let mut hot = f.clone();
        hot.cols.insert("power".into(), f.cols["power"].iter().map(|p| if *p == 5.0 { 30.0 } else { *p }).collect());
        let r = run(&RULE, &hot, &Params::default());
        assert_eq!((r.metrics["runtime_pct"], r.metrics["starts"]), (100.0, 1.0));
        // ... until run_frac or min_power_kw puts the gate above it
        assert!(run(&RULE, &hot, &numbers(&[("run_frac", 0.25)])).metrics["runtime_pct"] < 40.0);
        let r = run(&RULE, &hot, &numbers(&[("min_power_kw", 40.0)]));
        assert_eq!((r.metrics["starts"], r.metrics["run_threshold_kw"]), (5.0, 40.0));
        assert!(r.caveats.iter().any(|c| c.contains("min_power_kw")), "{:?}", r.caveats);
        // a status replaces the power gate: it says the chiller never stopped
        let mut st = f.clone();
        st.cols.insert("compressor_status".into(), vec![1.0; f.len()]);
        let r = run(&RULE, &st, &Params::default());
        assert_eq!((r.metrics["starts"], r.metrics["runtime_pct"]), (1.0, 100.0));
        assert!(!r.caveats.iter().any(|c| c.contains("power above")), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_and_uneven_sampling_are_weighed_by_time() {
        // a week cycling every 2 hours with two days missing: starts per observed day stay 12
        let full = plant(7, 15, |t| t % 2.0 < 1.0, |_| 250.0);
        let keep: Vec<usize> = (0..full.len()).filter(|&i| !(2 * 96..4 * 96).contains(&i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| full.ts[i]).collect::<Vec<_>>(),
            &full.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &gappy, &Params::default());
        assert!((r.metrics["starts_per_day"] - 12.0).abs() < 0.1, "{:?}", r.metrics);
        assert!((r.metrics["n_days"] - 5.0).abs() < 0.05, "{:?}", r.metrics);
        // a low load logged every minute for an hour a day and a high one every 15 minutes the
        // rest: by samples two in five running samples are low, by time about 4 %
        let mut ts = Vec::new();
        for d in 0..7 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..60).map(|m| day + m * MINUTE));
            ts.extend((4..96).map(|k| day + k * 15 * MINUTE));
        }
        let low = |t: i64| (t - MONDAY) % (24 * H) < H;
        let load: Vec<f64> = ts.iter().map(|&t| if low(t) { 50.0 } else { 250.0 }).collect();
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("power", load.iter().map(|t| 20.0 + 0.6 * t).collect()),
                ("chw_flow", vec![600.0; n]),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", load.iter().map(|t| 44.0 + 24.0 * t / 600.0).collect()),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["low_load_pct"] < 6.0, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [
            plant(7, 15, |t| t % 2.0 < 1.0, |_| 250.0),
            plant(7, 15, |_| true, |t| if t % 24.0 < 12.0 { 50.0 } else { 250.0 }),
        ] {
            let (a, b) =
                (run(&RULE, &f, &Params::default()), run(&RULE, &shuffled_with_duplicates(&f), &Params::default()));
            assert_eq!((a.severity, &a.metrics, &a.flagged, a.judged), (b.severity, &b.metrics, &b.flagged, b.judged));
        }
    }

    #[test]
    fn a_stopped_chiller_and_a_coarse_trend() {
        // standby only: never above zero working draw, so nothing to count
        let n = 200;
        let off = Frame::from_rows(&every(MONDAY, 15 * MINUTE, n), &[("power", vec![0.0; n])]);
        assert_eq!(run(&RULE, &off, &Params::default()).severity, Severity::Info);
        // an hourly trend of a chiller cycling every two hours: counted, with the floor caveat
        let hourly = plant(7, 60, |t| t % 2.0 < 1.0, |_| 250.0);
        let r = run(&RULE, &hourly, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("is a floor")), "{:?}", r.caveats);
        assert!(!run(&RULE, &hourly, &numbers(&[("max_interval_min", 60.0)]))
            .caveats
            .iter()
            .any(|c| c.contains("is a floor")));
        // a loop's pump power is not a chiller's
        let mut lp = plant(7, 15, daytime, day_load);
        lp.cols.insert("chw_pump_speed".into(), vec![80.0; lp.len()]);
        assert_eq!(run(&RULE, &lp, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn missing_power_skips_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("chw_supply_temp", vec![44.0, 44.0])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["power".into()] });
        for f in [
            Frame::default(),
            Frame::from_rows(&[0], &[("power", vec![100.0])]),
            Frame::from_rows(&every(0, H, 30), &[("power", vec![f64::NAN; 30])]),
            Frame::from_rows(
                &every(0, H, 30),
                &[("power", vec![100.0; 30]), ("compressor_status", vec![f64::NAN; 30])],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        // a status that reads no start but the power runs: counted on the power
        let f = Frame::from_rows(
            &every(0, H, 30),
            &[("power", vec![100.0; 30]), ("compressor_status", vec![f64::NAN; 30])],
        );
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["starts"], 1.0);
    }
}
