//! `chw_supply_tracking`: the chilled-water supply runs warmer than its setpoint while the plant
//! runs, a capacity or control fault that starves every coil downstream (a chiller that cannot
//! make its setpoint, or on a decoupled loop return water flowing backwards through the decoupler
//! and warming the secondary supply). Judged on the running samples
//! ([`crate::chiller::plant_running`]: a chiller's status or power, a loop's pumps or flow), less
//! the first `settle_intervals` samples of each run (a start's pull-down), with both readings in
//! a plausible range (supply 30-80 °F, setpoint 30-70 °F). Without any run signal the plant is
//! taken as running while its supply sits at 38-58 °F, a weaker proxy that never faults. The
//! share of judged time with the supply more than `above_f` over its setpoint warns from
//! `warn_pct` and faults from `fault_pct`; fewer than `min_running` judged samples is not judged.
//! The loop delta-T (overall and while over setpoint) says which: a wide one while short of
//! setpoint is load beyond capacity, a narrow one is flow or control.
//!
//! Unlike the reference, shares and hours are of time (each sample weighs the time it stands
//! for), and a power gate reads the 95th percentile of the samples drawing power.

use std::collections::BTreeMap;

use crate::chiller::{plant_running, settled, TEMPERATURE_GATE_CAVEAT};
use crate::engine::{
    round2, severity_of, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chw_supply_tracking",
        families: &["chw_plant"],
        inputs: Inputs {
            required: &["chw_supply_temp", "chw_supply_temp_sp"],
            optional: &["compressor_status", "chw_return_temp", "power", "pump_status", "chw_flow"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "above_f",
                3.0,
                "°F",
                (1.0, 8.0),
                "a healthy loop holds its supply within about 1 °F of setpoint, a supply sensor reads to about 0.5 °F and a 15-minute or hourly average folds in staging transients: 3 °F over is outside all of them together",
                "On a known-good period with the plant running, take the 95th or 99th percentile of supply minus setpoint and set this just above it. Do not tune it on the period being judged: a plant that never makes setpoint would set its own excuse.",
            ),
            ParamSpec::number(
                "warn_pct",
                10.0,
                "% of running time",
                (1.0, 50.0),
                "a tenth of the running time short of setpoint is more than a design-day peak beyond capacity explains",
                "Read the share of running time over setpoint + above_f on a healthy season and set this well above it; keep it below fault_pct.",
            ),
            ParamSpec::number(
                "fault_pct",
                25.0,
                "% of running time",
                (5.0, 80.0),
                "a quarter of the running time short of setpoint is a plant that does not make its setpoint",
                "Set it at the share you would send a technician for, above warn_pct. A run read from the supply temperature alone stops at a warning.",
            ),
            ParamSpec::number(
                "settle_intervals",
                1.0,
                "count (trend intervals)",
                (0.0, 12.0),
                "the first interval after a start is pull-down from a warm loop, not tracking",
                "Time how long the supply takes to reach setpoint after a start and divide by the trend interval, rounding up (with 15-minute trends often 2-4). Used only with a run signal.",
            ),
            ParamSpec::number(
                "min_running",
                24.0,
                "count (running samples)",
                (6.0, 500.0),
                "a day of hourly samples before judging",
                "Raise it for short intervals (96 for a day of 15-minute samples) so the rule judges at least a day of running.",
            ),
        ],
        judged_basis: "running samples past each start's pull-down, with the supply and its setpoint read",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let p = |name: &str| params.number(spec, name);
    let (sup, sp) = (frame.required("chw_supply_temp"), frame.required("chw_supply_temp_sp"));
    let ret = frame.col("chw_return_temp");
    let plausible = |i: usize| (30.0..=80.0).contains(&sup[i]) && (30.0..=70.0).contains(&sp[i]);
    let gate = plant_running(frame);
    let mut caveats = Vec::new();
    let (judged_mask, source) = match &gate {
        Some(r) => {
            if !r.on.iter().any(|x| *x) {
                let mut f = Finding::not_judged(spec, &format!("the plant never ran ({} gate)", r.source.name()));
                f.caveats.extend(r.source.caveat().map(str::to_string));
                return Outcome::Findings(vec![f]);
            }
            caveats.extend(r.source.caveat().map(str::to_string));
            let settle = p("settle_intervals").max(0.0).round() as usize;
            let on = settled(&r.on, settle);
            ((0..frame.len()).map(|i| on[i] && plausible(i)).collect::<Vec<bool>>(), r.source.name())
        }
        None => {
            caveats.push(TEMPERATURE_GATE_CAVEAT.to_string());
            ((0..frame.len()).map(|i| plausible(i) && (38.0..=58.0).contains(&sup[i])).collect(), "temperature")
        }
    };
    let weights = frame.weights_hours();
    let idx: Vec<usize> = (0..frame.len()).filter(|&i| judged_mask[i]).collect();
    let n = idx.len();
    let min_running = p("min_running");
    if (n as f64) < min_running {
        let mut f = Finding::not_judged(
            spec,
            &format!(
                "{n} running samples with the supply and its setpoint read ({source} gate); it needs {min_running:.0}"
            ),
        );
        f.caveats.extend(caveats);
        f.judged = n;
        return Outcome::Findings(vec![f]);
    }
    let above_f = p("above_f");
    let excess = |i: usize| sup[i] - sp[i];
    // a hair of tolerance: temperatures are decimals stored in binary
    let over: Vec<usize> = idx.iter().copied().filter(|&i| excess(i) > above_f + 1e-9).collect();
    let hours: f64 = idx.iter().map(|&i| weights[i]).sum();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let over_h: f64 = over.iter().map(|&i| weights[i]).sum::<f64>() + 0.0;
    let pct = if hours > 0.0 { 100.0 * over_h / hours } else { 0.0 };
    let mut severity = severity_of(pct + 1e-9, p("warn_pct"), p("fault_pct"));
    if source == "temperature" && severity == Severity::Fault {
        severity = Severity::Warn;
        caveats.push("severity capped at a warning: the running hours were read from the supply temperature".into());
    }
    let wmed = |it: &mut dyn Iterator<Item = (f64, f64)>| {
        let mut v: Vec<(f64, f64)> = it.collect();
        weighted_quantile(&mut v, 0.5)
    };
    let mean_excess = idx.iter().map(|&i| excess(i) * weights[i]).sum::<f64>() / hours.max(f64::MIN_POSITIVE);
    let median_over = wmed(&mut over.iter().map(|&i| (excess(i), weights[i])));
    let chwst = wmed(&mut idx.iter().map(|&i| (sup[i], weights[i])));
    let setpoint = wmed(&mut idx.iter().map(|&i| (sp[i], weights[i])));
    let dt = |set: &[usize]| {
        ret.map(|r| {
            wmed(&mut set.iter().map(|&i| (r[i] - sup[i], weights[i])).filter(|(d, _)| (-2.0..=40.0).contains(d)))
        })
    };
    let (dt_all, dt_over) = (dt(&idx), dt(&over));
    let mut metrics = BTreeMap::new();
    metrics.insert("above_f".into(), above_f);
    metrics.insert("n_running".into(), n as f64);
    metrics.insert("running_hours".into(), round2(hours));
    metrics.insert("above_pct".into(), round2(pct));
    metrics.insert("above_hours".into(), round2(over_h));
    metrics.insert("mean_excess_f".into(), round2(mean_excess));
    metrics.insert("chwst_median_f".into(), round2(chwst));
    metrics.insert("setpoint_median_f".into(), round2(setpoint));
    if !median_over.is_nan() {
        metrics.insert("median_excess_above_f".into(), round2(median_over));
    }
    let mut dt_note = String::new();
    match dt_all {
        Some(d) if !d.is_nan() => {
            metrics.insert("deltaT_median_f".into(), round2(d));
            dt_note = format!("; loop delta-T median {d:.1} °F");
            if let Some(o) = dt_over.filter(|o| !o.is_nan()) {
                metrics.insert("deltaT_median_above_f".into(), round2(o));
                dt_note.push_str(&format!(" ({o:.1} °F while over setpoint)"));
            }
        }
        _ => caveats.push("no loop delta-T: no chilled-water return temperature".into()),
    }
    let over_note = if median_over.is_nan() { String::new() } else { format!(", median {median_over:.1} °F over") };
    let summary = format!(
        "the supply was more than {above_f} °F over its setpoint {pct:.0} % of {hours:.0} running hours ({source} gate{over_note}); supply median {chwst:.1} °F against a setpoint median {setpoint:.1} °F{dt_note}"
    );
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(over.iter().map(|&i| i as u32).collect())
        .with_judged(n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A week at 15 minutes, the chiller on 6:00-18:00 each day (its status trended), the supply
    /// at `sup(hour of day)` while on against a 44 °F setpoint, 60 °F when off; return 10 °F over.
    fn plant(sup: impl Fn(f64) -> f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let on: Vec<bool> = hour.iter().map(|h| (6.0..18.0).contains(h)).collect();
        let s: Vec<f64> = hour.iter().zip(&on).map(|(&h, &o)| if o { sup(h) } else { 60.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("chw_return_temp", s.iter().map(|v| v + 10.0).collect()),
                ("chw_supply_temp", s),
                ("chw_supply_temp_sp", vec![44.0; n]),
                ("compressor_status", on.iter().map(|o| f64::from(u8::from(*o))).collect()),
            ],
        )
    }

    /// Over setpoint by 4 °F for `hours` of the 12 running hours (from 6:00), else at setpoint.
    fn short_for(hours: f64) -> impl Fn(f64) -> f64 {
        move |h| if h < 6.0 + hours { 48.0 } else { 44.2 }
    }

    #[test]
    fn a_plant_that_makes_its_setpoint_is_ok() {
        let r = run(&RULE, &plant(|_| 44.3), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["above_pct"], 0.0);
        // 12 running hours a day less the first interval of each start
        assert_eq!(r.judged, 7 * 47);
        assert_eq!(r.metrics["deltaT_median_f"], 10.0);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn a_plant_short_of_its_setpoint_warns_then_faults() {
        let r = run(&RULE, &plant(short_for(6.0)), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert_eq!(r.metrics["median_excess_above_f"], 4.0);
        assert_eq!(r.metrics["deltaT_median_above_f"], 10.0);
        let r = run(&RULE, &plant(short_for(2.0)), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
    }

    #[test]
    fn the_levels_and_above_f_at_their_boundaries() {
        // 47 judged samples a day; 4.75 of 11.75 judged hours (19 of 47) over is 40 %
        let pct = |hours: f64, p: &Params| run(&RULE, &plant(short_for(hours)), p);
        let at = |hours: f64| {
            let r = pct(hours, &Params::default());
            (r.severity, r.metrics["above_pct"])
        };
        // 1.5 h from 6:00 less the first interval: 5 of 47 samples, 10.64 %; 1.25 h: 4, 8.51 %
        assert_eq!(at(1.5).0, Severity::Warn);
        assert_eq!(at(1.25).0, Severity::Ok);
        // 3.25 h: 12 of 47, 25.53 %; 3.0 h: 11 of 47, 23.4 %
        assert_eq!(at(3.25).0, Severity::Fault);
        assert_eq!(at(3.0).0, Severity::Warn);
        // warn_pct and fault_pct move them
        assert_eq!(pct(3.0, &numbers(&[("fault_pct", 23.4)])).severity, Severity::Fault);
        assert_eq!(pct(1.25, &numbers(&[("warn_pct", 8.0)])).severity, Severity::Warn);
        // above_f: 4 °F over is not more than 4 °F over
        assert_eq!(pct(6.0, &numbers(&[("above_f", 4.0)])).severity, Severity::Ok);
        assert_eq!(pct(6.0, &numbers(&[("above_f", 3.99)])).severity, Severity::Fault);
        // min_running: 329 judged samples
        assert_eq!(pct(6.0, &numbers(&[("min_running", 329.0)])).severity, Severity::Fault);
        assert_eq!(pct(6.0, &numbers(&[("min_running", 330.0)])).severity, Severity::Info);
    }

    #[test]
    fn a_start_s_pull_down_and_a_stopped_plant_are_not_judged() {
        // warm for the first half hour after each start: the first interval is pull-down
        let r = run(&RULE, &plant(|h| if h < 6.5 { 50.0 } else { 44.0 }), &Params::default());
        assert_eq!(r.metrics["above_hours"], 7.0 * 0.25);
        let r = run(&RULE, &plant(|h| if h < 6.5 { 50.0 } else { 44.0 }), &numbers(&[("settle_intervals", 2.0)]));
        assert_eq!((r.metrics["above_hours"], r.judged), (0.0, 7 * 46));
        // the off hours' 60 °F supply is never judged; a plant that never runs is not judged
        let mut off = plant(|_| 44.0);
        off.cols.insert("compressor_status".into(), vec![0.0; off.len()]);
        assert_eq!(run(&RULE, &off, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn the_run_gate_falls_back_to_power_then_temperature() {
        let mut f = plant(short_for(6.0));
        let on: Vec<f64> = f.cols.remove("compressor_status").unwrap();
        f.cols.insert("power".into(), on.iter().map(|o| if *o > 0.5 { 150.0 } else { 3.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("power above a tenth")), "{:?}", r.caveats);
        // neither: running is the supply in 38-58 °F (the 60 °F off hours drop out), and a
        // fault is capped at a warning
        f.cols.remove("power");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("capped")), "{:?}", r.caveats);
        assert_eq!(r.judged, 7 * 48);
        // a loop runs on its flow
        let mut lp = plant(short_for(6.0));
        let on = lp.cols.remove("compressor_status").unwrap();
        lp.cols.insert("chw_pump_speed".into(), on.iter().map(|o| o * 70.0).collect());
        lp.cols.insert("chw_flow".into(), on.iter().map(|o| o * 900.0).collect());
        let r = run(&RULE, &lp, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("loop flow")), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_uneven_sampling_and_disorder() {
        // over setpoint on samples logged every minute for the first 20 minutes of each run, at
        // setpoint on 15-minute samples from 6:30: by count three in ten, by time one in twenty
        let mut ts = Vec::new();
        for d in 0..7 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..20).map(|m| day + 6 * H + m * MINUTE));
            ts.extend((0..46).map(|k| day + 6 * H + 30 * MINUTE + k * 15 * MINUTE));
        }
        let n = ts.len();
        let sup: Vec<f64> =
            ts.iter().map(|&t| if (t - MONDAY) % (24 * H) < 6 * H + 20 * MINUTE { 48.0 } else { 44.0 }).collect();
        let f = Frame::from_rows(
            &ts,
            &[("chw_supply_temp", sup), ("chw_supply_temp_sp", vec![44.0; n]), ("compressor_status", vec![1.0; n])],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["above_pct"] < 10.0, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
        // a gap of two days is not judged time
        let base = plant(short_for(6.0));
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(96..288).contains(i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (a, b) = (run(&RULE, &base, &Params::default()), run(&RULE, &gappy, &Params::default()));
        assert_eq!(a.metrics["above_pct"], b.metrics["above_pct"]);
        assert_eq!(b.metrics["running_hours"], 5.0 * 11.75);
        let m = run(&RULE, &shuffled_with_duplicates(&base), &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (m.severity, &m.metrics, &m.flagged));
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("chw_supply_temp", vec![44.0, 44.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["chw_supply_temp_sp".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[0], &[("chw_supply_temp", vec![44.0]), ("chw_supply_temp_sp", vec![44.0])]),
            Frame::from_rows(
                &every(0, H, 40),
                &[("chw_supply_temp", vec![44.0; 40]), ("chw_supply_temp_sp", vec![f64::NAN; 40])],
            ),
            Frame::from_rows(
                &every(0, H, 40),
                &[("chw_supply_temp", vec![90.0; 40]), ("chw_supply_temp_sp", vec![44.0; 40])],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        // no sample plausible: not judged
        let f = Frame::from_rows(
            &every(0, H, 40),
            &[("chw_supply_temp", vec![90.0; 40]), ("chw_supply_temp_sp", vec![44.0; 40])],
        );
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Info);
    }
}
