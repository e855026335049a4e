//! `boiler_short_cycle`: a boiler that fires in short bursts: on, the loop satisfied at once,
//! off, on again. Each start costs a purge and a light-off, and a firing that ends before the
//! burner settles never reaches its steady efficiency; the usual causes are a boiler too large
//! for the load at its lowest fire and a loop differential set too tight. Firing is read from the
//! run status (`boiler_status`), else from the gas input (`hw_plant::boiler_firing`), over the
//! whole window (a boiler can cycle at any hour), and starts are counted by `crate::cycles`
//! per observed day.
//!
//! What counts is a *short cycle*: a start whose firing ends within [`SHORT_FIRING_MIN`]
//! minutes. A boiler that fires for an hour or more at a time is cycling on its differential at
//! part load, which is what an aquastat does, however many times a day that adds up to. It warns
//! at `max_starts_per_day` short cycles a day and faults at twice that. The length of a firing
//! can be read only on a trend at or finer than `max_interval_min`; on a coarser one every start
//! counts, as the reference counts them, with a caveat that the count is a floor, and a count
//! below the limit with samples on for part of their interval declines (info) instead of ok. A
//! firing cut by the trend's start or end, or by a data gap, has no known length and is not a
//! short one.
//!
//! Unlike the reference, which counts every start: the reference warns on a boiler firing eight
//! times a day for an hour and a quarter each time (its `synthetic-hw-plant-cycling` near miss,
//! a modulating boiler slightly oversized at low fire); its firings are long, so it is ok here.

use std::collections::BTreeMap;

use crate::cycles::{self, Cycles, GAP_FACTOR};
use crate::engine::{round2, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity};
use crate::hw_plant::{boiler_firing, GAS_CAVEAT};

/// A firing shorter than this (minutes) is a short cycle: a burner purges, lights and settles
/// to its steady efficiency in 10-20 minutes, and boiler makers ask for at least 10-15 minutes of
/// firing; this is the safe side of both.
pub const SHORT_FIRING_MIN: f64 = 30.0;
/// Below this share of its span observed, a start rate is caveated.
const LOW_COVERAGE_FRAC: f64 = 0.5;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "boiler_short_cycle",
        families: &["hw_plant"],
        inputs: Inputs {
            required: &[],
            optional: &[],
            gating: &[],
            one_of: &[&["boiler_status", "gas_input_rate"]],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number("max_starts_per_day", 6.0, "per day", (2.0, 24.0),
                "a generic limit on short cycles a day: how many a boiler tolerates depends on its maker's minimum cycle time; warn at this many, fault at twice it",
                "Take the minimum on and off times from the boiler's manual or burner control and divide the day by their sum with a wide margin, or use the 95th percentile of a known-good heating season's daily short cycles. A coarse trend undercounts starts: the count is a floor."),
            ParamSpec::number("max_interval_min", 15.0, "minutes", (5.0, 60.0),
                "the 15-minute grid trends are usually kept on: a cycle shorter than the interval leaves no trace, and a firing's length cannot be read on a coarser one",
                "Keep it at or below the boiler's minimum cycle time (minimum on plus minimum off). Rather than raising it, run the rule at the stored interval (resample at or below this) so the count can see the cycles."),
        ],
        judged_basis: "samples with a boiler firing reading, the whole window",
    }
}

/// Whether the run starting at `first` and ending at `last` (frame indices) has a known length:
/// it neither starts at the first reading nor ends at the last one or before a gap.
fn complete(c: &Cycles, read: &[usize], ts: &[i64], first: usize, last: usize) -> bool {
    let typical = c.interval_min.map_or(f64::INFINITY, |m| m * 60e9);
    let Ok(pos) = read.binary_search(&last) else { return false };
    let before_gap = read.get(pos + 1).is_none_or(|&next| (ts[next] - ts[last]) as f64 > GAP_FACTOR * typical);
    read.first() != Some(&first) && !before_gap
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let Some(fire) = boiler_firing(frame) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the gas input never rises above zero")]);
    };
    let gas = fire.source == "gas input";
    let Some(c) = cycles::count(&frame.ts, &fire.duty) else {
        let mut f = Finding::not_judged(spec, "fewer than ten samples of boiler firing");
        f.judged = fire.duty.iter().filter(|d| !d.is_nan()).count();
        return Outcome::Findings(vec![f]);
    };
    let limit = params.number(spec, "max_starts_per_day");
    let max_interval = params.number(spec, "max_interval_min");
    let read: Vec<usize> = (0..frame.len()).filter(|&i| !fire.duty[i].is_nan()).collect();
    // a firing's length is readable on a trend at or finer than max_interval_min
    let readable = c.interval_min.is_none_or(|m| m <= max_interval + 1e-9);
    let mut lengths: Vec<f64> = Vec::new();
    let mut counted: Vec<usize> = Vec::new();
    for r in &c.runs {
        let known = complete(&c, &read, &frame.ts, r.first, r.last);
        if known {
            lengths.push(r.hours * 60.0);
        }
        let short = known && r.hours * 60.0 < SHORT_FIRING_MIN - 1e-9;
        if !readable || short {
            counted.push(r.first);
        }
    }
    let rate = counted.len() as f64 / c.observed_days;
    let all_rate = c.starts_per_day();
    let mut severity = if rate >= 2.0 * limit {
        Severity::Fault
    } else if rate >= limit {
        Severity::Warn
    } else {
        Severity::Ok
    };
    // the count's floor on a coarse trend: a warn or fault stands, an ok with part-on samples
    // cannot be vouched for
    let mut caveats = Vec::new();
    if gas {
        caveats.push(GAS_CAVEAT.to_string());
    }
    let mut declined = false;
    if let Some(m) = c.interval_min.filter(|m| *m > max_interval + 1e-9) {
        let mut text = format!(
            "starts counted on a {m:.0}-minute trend, coarser than the {max_interval:.0} minutes the count needs (max_interval_min): a cycle shorter than the interval is invisible and a firing's length cannot be read, so every start counts and starts_per_day is a floor; run at the stored interval for the true count"
        );
        if severity == Severity::Ok && c.n_partial > 0 {
            text.push_str(&format!(
                ". {} samples show the boiler on for only part of the interval, so the interval hid starts: below {limit:.0} a day cannot be confirmed",
                c.n_partial
            ));
            severity = Severity::Info;
            declined = true;
        }
        // the gas caveat already says sub-interval firing is invisible
        if !gas || declined {
            caveats.push(text);
        }
    }
    if c.observed_days < LOW_COVERAGE_FRAC * c.span_days {
        caveats.push(format!(
            "the boiler's firing was observed on only {:.1} of the {:.1} days from its first reading to its last ({:.0} %; the rest are data gaps): the rate is read over the observed days and stands for them alone",
            c.observed_days,
            c.span_days,
            100.0 * c.observed_days / c.span_days
        ));
    }
    // flagged: the counted starts on calendar days with at least the limit of them
    let day = |i: usize| frame.ts[i].div_euclid(24 * crate::engine::NS_PER_HOUR);
    let mut per_day: BTreeMap<i64, usize> = BTreeMap::new();
    for &i in &counted {
        *per_day.entry(day(i)).or_default() += 1;
    }
    let flagged: Vec<u32> = counted.iter().filter(|&&i| per_day[&day(i)] as f64 >= limit).map(|&i| i as u32).collect();
    let median_firing = crate::engine::median(&mut lengths.clone());
    let mut metrics = BTreeMap::new();
    metrics.insert("starts_per_day".into(), round2(all_rate));
    metrics.insert("n_starts".into(), c.starts.len() as f64);
    metrics.insert("runtime_pct".into(), round2(c.runtime_pct));
    metrics.insert("n_days".into(), round2(c.span_days));
    metrics.insert("n_days_observed".into(), round2(c.observed_days));
    metrics.insert("n_partial".into(), c.n_partial as f64);
    if let Some(m) = c.interval_min {
        metrics.insert("interval_min".into(), round2(m));
    }
    if readable {
        metrics.insert("short_starts_per_day".into(), round2(rate));
        metrics.insert("n_short_starts".into(), counted.len() as f64);
    }
    if !median_firing.is_nan() {
        metrics.insert("median_firing_min".into(), round2(median_firing));
    }
    metrics.insert(crate::engine::EVENTS_METRIC.into(), flagged.len() as f64);
    let firing = format!("firing {:.0} % of the time", c.runtime_pct);
    let median_note =
        if median_firing.is_nan() { String::new() } else { format!(", median firing {median_firing:.0} minutes") };
    let summary = if readable {
        let verdict = match severity {
            Severity::Fault | Severity::Warn => format!("short cycling (limit {limit:.0} a day)"),
            _ if all_rate >= limit => "long firings: cycling on its differential, not short cycling".to_string(),
            _ => "not short cycling".to_string(),
        };
        format!(
            "{all_rate:.1} boiler starts a day, {rate:.1} of them firings shorter than {SHORT_FIRING_MIN:.0} minutes ({firing}{median_note}): {verdict}"
        )
    } else {
        let mut s = format!("{all_rate:.1} boiler starts a day (limit {limit:.0}), {firing}");
        if declined {
            s.push_str(&format!("; cannot confirm on a {:.0}-minute trend", c.interval_min.unwrap_or(f64::NAN)));
        }
        s
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(read.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, MINUTE, MONDAY};
    use crate::engine::NS_PER_HOUR as H;

    /// `days` days of a status at `step` minutes (and one sample more, so the span is whole
    /// days): on for the last `on` minutes of every `period` minutes, so the trend starts and
    /// ends off.
    fn cycling(days: i64, step: i64, on: i64, period: i64) -> Frame {
        let n = (days * 24 * 60 / step) as usize + 1;
        let ts = every(MONDAY, step * MINUTE, n);
        let s: Vec<f64> = (0..n as i64).map(|k| if (k * step) % period >= period - on { 1.0 } else { 0.0 }).collect();
        Frame::from_rows(&ts, &[("boiler_status", s)])
    }

    #[test]
    fn long_firings_are_ok_and_short_ones_are_found() {
        // a modulating boiler on all the time: one start, ok
        let ts = every(MONDAY, 15 * MINUTE, 96 * 7);
        let r = run(&RULE, &Frame::from_rows(&ts, &[("boiler_status", vec![1.0; 96 * 7])]), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        // eight starts a day of 75-minute firings (the reference's near miss): long, ok
        let r = run(&RULE, &cycling(7, 15, 75, 180), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.metrics["starts_per_day"], r.metrics["short_starts_per_day"]), (8.0, 0.0));
        assert!(r.summary.contains("not short cycling"), "{}", r.summary);
        // a 15-minute firing every 70 minutes on a 5-minute trend: about 20 short cycles a day
        let r = run(&RULE, &cycling(7, 5, 15, 70), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!(r.metrics["short_starts_per_day"] > 19.0 && r.metrics["median_firing_min"] == 15.0);
        assert_eq!(r.metrics["events"], r.flagged.len() as f64);
        // eight short firings a day warn
        let r = run(&RULE, &cycling(7, 15, 15, 180), &Params::default());
        assert_eq!((r.severity, r.metrics["short_starts_per_day"]), (Severity::Warn, 8.0), "{}", r.summary);
    }

    #[test]
    fn the_limit_and_the_short_firing_at_their_boundaries() {
        // 6 short cycles a day is a warning, 4.8 (one every 5 hours) is not; 12 is a fault
        assert_eq!(run(&RULE, &cycling(10, 15, 15, 240), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &cycling(10, 15, 15, 300), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &cycling(10, 15, 15, 120), &Params::default()).severity, Severity::Fault);
        let r = run(&RULE, &cycling(10, 15, 15, 144), &Params::default());
        assert_eq!((r.severity, r.metrics["short_starts_per_day"]), (Severity::Warn, 10.0));
        // an override moves both levels
        assert_eq!(
            run(&RULE, &cycling(10, 15, 15, 240), &numbers(&[("max_starts_per_day", 3.0)])).severity,
            Severity::Fault
        );
        assert_eq!(
            run(&RULE, &cycling(10, 15, 15, 240), &numbers(&[("max_starts_per_day", 7.0)])).severity,
            Severity::Ok
        );
        // a firing of exactly 30 minutes is not short; 25 minutes is
        assert_eq!(run(&RULE, &cycling(5, 5, 30, 60), &Params::default()).metrics["short_starts_per_day"], 0.0);
        let r = run(&RULE, &cycling(5, 5, 25, 60), &Params::default());
        assert_eq!((r.severity, r.metrics["short_starts_per_day"]), (Severity::Fault, 24.0));
    }

    #[test]
    fn a_coarse_trend_counts_every_start_and_declines_an_ok_it_cannot_vouch_for() {
        // hourly 0/1 samples: firings cannot be measured, so every start counts, with a caveat
        let r = run(&RULE, &cycling(7, 60, 60, 180), &Params::default());
        assert_eq!((r.severity, r.metrics["starts_per_day"]), (Severity::Warn, 8.0));
        assert!(!r.metrics.contains_key("short_starts_per_day"));
        assert!(r.caveats.iter().any(|c| c.contains("max_interval_min")), "{:?}", r.caveats);
        // hourly duties below the limit: declined, not ok
        let ts = every(MONDAY, H, 24 * 3);
        let duty: Vec<f64> = (0..72).map(|i| if i % 12 == 0 { 0.25 } else { 0.0 }).collect();
        let r = run(&RULE, &Frame::from_rows(&ts, &[("boiler_status", duty)]), &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!(r.summary.contains("cannot confirm"));
        // with max_interval_min at the trend's interval the lengths are read again
        let r = run(&RULE, &cycling(7, 60, 60, 180), &numbers(&[("max_interval_min", 60.0)]));
        assert_eq!(r.metrics["short_starts_per_day"], 0.0);
    }

    #[test]
    fn gaps_and_uneven_sampling_are_weighed_by_time() {
        // a 15-minute firing every 2 hours, with four days of outage in the middle: the rate is
        // per observed day, and the firing cut by the outage is not a short one
        let base = cycling(10, 15, 15, 120);
        let keep: Vec<usize> = (0..base.len()).filter(|&i| !(96 * 3 + 5..96 * 7).contains(&i)).collect();
        let f = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &[("boiler_status", keep.iter().map(|&i| base.cols["boiler_status"][i]).collect())],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!((r.metrics["n_days_observed"] - 6.05).abs() < 0.02, "{:?}", r.metrics);
        assert!((r.metrics["short_starts_per_day"] - 12.0).abs() < 0.2, "{:?}", r.metrics);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
        // uneven steps: a firing's length is its time, not its sample count. Off for 100
        // minutes logged every 5, then on for 20 logged every 2 (10 samples), 12 times a day
        let (mut ts, mut s) = (Vec::new(), Vec::new());
        for c in 0..12 * 8 {
            let t0 = MONDAY + c * 120 * MINUTE;
            for k in 0..20 {
                ts.push(t0 + k * 5 * MINUTE);
                s.push(0.0);
            }
            for k in 0..10 {
                ts.push(t0 + 100 * MINUTE + k * 2 * MINUTE);
                s.push(1.0);
            }
        }
        ts.push(MONDAY + 8 * 24 * H);
        s.push(0.0);
        let r = run(&RULE, &Frame::from_rows(&ts, &[("boiler_status", s)]), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert_eq!((r.metrics["median_firing_min"], r.metrics["short_starts_per_day"]), (20.0, 12.0));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [cycling(5, 15, 15, 120), cycling(5, 15, 75, 180)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn a_boiler_that_never_fires_is_ok_and_a_gas_input_stands_in() {
        let n = 96 * 3 + 1;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let r = run(&RULE, &Frame::from_rows(&ts, &[("boiler_status", vec![0.0; n])]), &Params::default());
        assert_eq!((r.severity, r.metrics["n_starts"], r.metrics["runtime_pct"]), (Severity::Ok, 0.0, 0.0));
        // firing read from the gas input: 400 kW for 15 minutes every 2 hours
        let gas: Vec<f64> = (0..n).map(|i| if i % 8 == 7 { 400.0 } else { 0.0 }).collect();
        let r = run(&RULE, &Frame::from_rows(&ts, &[("gas_input_rate", gas)]), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("gas input")));
        // a gas input that never rises says nothing
        let r = run(&RULE, &Frame::from_rows(&ts, &[("gas_input_rate", vec![0.0; n])]), &Params::default());
        assert_eq!(r.severity, Severity::Info);
    }

    /// The reference generator's boiler on its loop differential (`_cycle` of its
    /// `hw_plant_cycling`), on a smooth three weeks of early-spring load at 15 minutes: capacity
    /// as a fraction of design load, lowest stable firing as a fraction of capacity, the
    /// differential (°F) and the loop's response (°F per step per unit of surplus).
    fn reference_plant(cap: f64, min_frac: f64, band: f64, k: f64) -> Frame {
        let n = 21 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let (mut on, mut t) = (true, 0.0);
        let mut s = Vec::with_capacity(n);
        for i in 0..n {
            let hour = (i % 96) as f64 / 4.0;
            let day = i as f64 / 96.0;
            let oat = 30.0
                + 10.0 * day / 21.0
                + 8.0 * ((hour - 9.0) / 24.0 * std::f64::consts::TAU).sin()
                + 6.0 * (day / 3.0 * std::f64::consts::TAU).sin();
            let occupied = (day as i64 % 7) < 5 && (6.0..18.0).contains(&hour);
            let load = ((62.0 - oat) / 52.0).clamp(0.05, 1.0) * if occupied { 1.0 } else { 0.8 };
            if on {
                t += k * (load.max(min_frac * cap).min(cap) - load);
                on = t < band / 2.0;
            } else {
                t -= k * load;
                on = t <= -band / 2.0;
            }
            s.push(if on { 1.0 } else { 0.0 });
        }
        Frame::from_rows(&ts, &[("boiler_status", s)])
    }

    #[test]
    fn the_reference_generators_near_miss_fires_long_and_its_short_cycler_does_not() {
        // an oversized on/off boiler on a tight differential: every firing one 15-minute sample
        let short = run(&RULE, &reference_plant(2.0, 1.0, 1.5, 1.5), &Params::default());
        assert_eq!(short.severity, Severity::Fault, "{}", short.summary);
        // a modulating boiler slightly oversized at low fire: it starts more than six times a
        // day (the reference warns) but fires for an hour or more each time
        let marginal = run(&RULE, &reference_plant(1.5, 0.6, 3.0, 1.5), &Params::default());
        assert_eq!(marginal.severity, Severity::Ok, "{}", marginal.summary);
        assert!(marginal.metrics["starts_per_day"] >= 6.0, "{:?}", marginal.metrics);
        assert!(marginal.metrics["median_firing_min"] >= 60.0, "{:?}", marginal.metrics);
        // the well-tuned boiler modulates down to its load and all but never stops
        let tuned = run(&RULE, &reference_plant(1.2, 0.25, 8.0, 1.0), &Params::default());
        assert!(tuned.severity == Severity::Ok && tuned.metrics["starts_per_day"] < 1.0, "{}", tuned.summary);
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, 15 * MINUTE, 20);
        let f = Frame::from_rows(&ts, &[("hw_supply_temp", vec![150.0; 20])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["boiler_status or gas_input_rate".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[MONDAY], &[("boiler_status", vec![1.0])]),
            Frame::from_rows(&ts, &[("boiler_status", vec![f64::NAN; 20])]),
            Frame::from_rows(&ts[..9], &[("boiler_status", vec![1.0; 9])]),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        let r = run(&RULE, &Frame::from_rows(&ts[..9], &[("boiler_status", vec![1.0; 9])]), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 9));
    }
}
