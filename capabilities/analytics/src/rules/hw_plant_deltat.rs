//! `hw_plant_deltat`: the hot-water loop runs at a small supply-minus-return difference while
//! the boiler fires, so it moves a lot of water for the heat it delivers: constant-speed or
//! oversized pumps, three-way valves passing supply straight to return, coils bypassing. It wastes
//! pump energy and keeps a condensing boiler's return too warm to condense. Judged on occupied
//! samples (the generic weekday schedule) the boiler fired for most of (`boiler_status` as a
//! duty, else the gas input), with both loop temperatures and a difference between -2 and 120 °F
//! (outside that one of the sensors is wrong, not the loop): the share of that time below
//! `design_deltaT_min_f`, each sample weighed by the time it stands for. Warning at 20 %, fault
//! at 50 %; fewer than ten such samples, or under a day of firing, are not judged (a loop that
//! barely carries load shows a small difference whatever its pumps do).

use std::collections::BTreeMap;

use crate::engine::{round2, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec};
use crate::hw_plant::{boiler_firing, occupied, GAS_CAVEAT};

/// Shares (%) of judged time below the design difference that warn and fault.
const WARN_PCT: f64 = 20.0;
const FAULT_PCT: f64 = 50.0;
/// Fewest samples judged.
const MIN_SAMPLES: usize = 10;
/// Fewest hours of occupied firing judged: a boiler that fires a few hours a month on a loop
/// with almost no load shows a small difference whatever its pumps do.
const MIN_FIRING_H: f64 = 24.0;
/// A difference outside this (°F) is a sensor fault, not the loop's.
const PLAUSIBLE_F: (f64, f64) = (-2.0, 120.0);

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hw_plant_deltat",
        families: &["hw_plant"],
        inputs: Inputs {
            required: &["hw_supply_temp", "hw_return_temp"],
            optional: &["oat"],
            gating: &[],
            one_of: &[&["boiler_status", "gas_input_rate"]],
            needs_gating: false,
        },
        params: vec![ParamSpec::number("design_deltaT_min_f", 20.0, "°F", (5.0, 40.0),
            "a usual hot-water loop design difference: below it the loop carries more water than its heat needs",
            "Read the design supply-minus-return difference from the boiler or coil schedules and set this a little below it; a low-temperature (condensing) loop is often designed for less than a 180 °F loop. The severity levels (20 % and 50 % of firing time) are fixed.")],
        judged_basis: "occupied samples (weekdays 07:00-18:00) with the boiler firing and both loop temperatures",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (hws, hwr) = (frame.required("hw_supply_temp"), frame.required("hw_return_temp"));
    let Some(fire) = boiler_firing(frame) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the gas input never rises above zero")]);
    };
    let design = params.number(spec, "design_deltaT_min_f");
    let w = frame.weights_hours();
    let judged: Vec<usize> = (0..frame.len())
        .filter(|&i| occupied(frame.ts[i]) && fire.on(i))
        .filter(|&i| {
            let d = hws[i] - hwr[i];
            !d.is_nan() && d > PLAUSIBLE_F.0 && d < PLAUSIBLE_F.1
        })
        .collect();
    if judged.len() < MIN_SAMPLES {
        let mut f = Finding::not_judged(spec, "fewer than ten occupied firing samples with both loop temperatures");
        f.judged = judged.len();
        return Outcome::Findings(vec![f]);
    }
    let total: f64 = judged.iter().map(|&i| w[i]).sum();
    if total < MIN_FIRING_H {
        let mut f = Finding::not_judged(
            spec,
            &format!("the boiler fired {total:.1} occupied hours, under the {MIN_FIRING_H:.0} h a loop's difference is judged on (too little load)"),
        );
        f.judged = judged.len();
        return Outcome::Findings(vec![f]);
    }
    let low: Vec<u32> = judged.iter().filter(|&&i| hws[i] - hwr[i] < design).map(|&i| i as u32).collect();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let low_h: f64 = low.iter().map(|&i| w[i as usize]).sum::<f64>() + 0.0;
    let pct = if total > 0.0 { 100.0 * low_h / total } else { 0.0 };
    let mut pairs: Vec<(f64, f64)> = judged.iter().map(|&i| (hws[i] - hwr[i], w[i])).collect();
    let med = weighted_quantile(&mut pairs, 0.5);
    let severity = crate::engine::severity_of(pct, WARN_PCT, FAULT_PCT);
    let mut metrics = BTreeMap::new();
    metrics.insert("deltaT_median_f".into(), round2(med));
    metrics.insert("design_deltaT_min_f".into(), design);
    metrics.insert("low_deltaT_pct".into(), round2(pct));
    metrics.insert("n_running".into(), judged.len() as f64);
    let caveats = if fire.source == "gas input" { vec![GAS_CAVEAT.to_string()] } else { Vec::new() };
    Outcome::Findings(vec![Finding::new(
        spec,
        severity,
        format!(
            "the hot-water loop's median difference while the boiler fires is {med:.1} °F; {pct:.0} % of that time it is below the {design:.0} °F design"
        ),
    )
    .with_caveats(caveats)
    .with_metrics(metrics)
    .with_flagged(low)
    .with_judged(judged.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::engine::Severity;

    /// A week hourly: the boiler firing `fire(i)`, supply at 160 °F, return `dt(i)` below it.
    fn plant(dt: impl Fn(usize) -> f64, fire: impl Fn(usize) -> f64) -> Frame {
        let n = 24 * 7;
        let ts = every(MONDAY, H, n);
        Frame::from_rows(
            &ts,
            &[
                ("hw_supply_temp", vec![160.0; n]),
                ("hw_return_temp", (0..n).map(|i| 160.0 - dt(i)).collect()),
                ("boiler_status", (0..n).map(fire).collect()),
            ],
        )
    }

    /// The occupied samples' positions in `plant`'s week (55 of them).
    fn occupied_idx() -> Vec<usize> {
        (0..24 * 7).filter(|&i| occupied(MONDAY + i as i64 * H)).collect()
    }

    #[test]
    fn a_boiler_that_barely_fires_is_not_judged() {
        // 20 occupied firing hours at a 3 °F difference: a loop with almost no load (a school's
        // boiler in a warm October), not a verdict on its pumps
        let idx = occupied_idx();
        let r = run(&RULE, &plant(|_| 3.0, |i| if idx[..20].contains(&i) { 1.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!(r.summary.contains("too little load"), "{}", r.summary);
        let r = run(&RULE, &plant(|_| 3.0, |i| if idx[..30].contains(&i) { 1.0 } else { 0.0 }), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
    }

    #[test]
    fn a_design_difference_is_ok_and_a_small_one_is_found() {
        let r = run(&RULE, &plant(|_| 25.0, |_| 1.0), &Params::default());
        assert_eq!((r.severity, r.metrics["deltaT_median_f"], r.judged), (Severity::Ok, 25.0, 55));
        let r = run(&RULE, &plant(|_| 8.0, |_| 1.0), &Params::default());
        assert_eq!((r.severity, r.metrics["low_deltaT_pct"]), (Severity::Fault, 100.0));
        assert_eq!(r.flagged.len(), 55);
        let occ = occupied_idx();
        let r = run(&RULE, &plant(|i| if occ[..15].contains(&i) { 8.0 } else { 25.0 }, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "15 of 55 (27 %)");
    }

    #[test]
    fn the_design_and_the_shares_at_their_boundaries() {
        // a difference of exactly the design is not low; just under it is
        assert_eq!(run(&RULE, &plant(|_| 20.0, |_| 1.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &plant(|_| 19.9, |_| 1.0), &Params::default()).severity, Severity::Fault);
        assert_eq!(
            run(&RULE, &plant(|_| 15.0, |_| 1.0), &numbers(&[("design_deltaT_min_f", 15.0)])).severity,
            Severity::Ok
        );
        assert_eq!(
            run(&RULE, &plant(|_| 14.9, |_| 1.0), &numbers(&[("design_deltaT_min_f", 15.0)])).severity,
            Severity::Fault
        );
        // 20 % warns, 50 % faults: 11 of 55 occupied samples is 20 %, 10 is 18 %
        let occ = occupied_idx();
        let low = |k: usize| {
            let set: Vec<usize> = occ[..k].to_vec();
            run(&RULE, &plant(move |i| if set.contains(&i) { 8.0 } else { 25.0 }, |_| 1.0), &Params::default()).severity
        };
        assert_eq!((low(11), low(10)), (Severity::Warn, Severity::Ok));
        // 50 % of 55 is 27.5 samples: 28 faults, 27 warns
        assert_eq!((low(28), low(27)), (Severity::Fault, Severity::Warn));
    }

    #[test]
    fn gaps_and_uneven_sampling_are_weighed_by_time() {
        // a gap through Tuesday to Thursday: judged on what is left, the sample before it not
        // standing for the gap
        let base = plant(|i| if i % 24 < 12 { 8.0 } else { 25.0 }, |_| 1.0);
        let keep: Vec<usize> = (0..base.len()).filter(|&i| !(24 + 10..24 * 4).contains(&i)).collect();
        let f = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &f, &Params::default());
        // Monday, Tuesday 07-09 and Friday: 5+3+5 low of 11+3+11 samples, the one before the gap
        // standing for 1.5 hours: 13.5 of 25.5 hours
        assert!((r.metrics["low_deltaT_pct"] - 52.94).abs() < 0.01, "{:?}", r.metrics);
        // uneven: low differences logged every 5 minutes for an hour each morning, the rest of
        // the day every 15 minutes: by count 23 % low (a warning), by time 9 %
        let (mut ts, mut dt) = (Vec::new(), Vec::new());
        for d in 0..5 {
            let t0 = MONDAY + d * 24 * H + 7 * H;
            for k in 0..12 {
                ts.push(t0 + k * 5 * MINUTE);
                dt.push(8.0);
            }
            for k in 0..40 {
                ts.push(t0 + H + k * 15 * MINUTE);
                dt.push(25.0);
            }
        }
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("hw_supply_temp", vec![160.0; n]),
                ("hw_return_temp", dt.iter().map(|d| 160.0 - d).collect()),
                ("boiler_status", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["low_deltaT_pct"] < 20.0, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let f = plant(|i| if i % 5 == 0 { 8.0 } else { 25.0 }, |i| if i % 7 == 0 { 0.0 } else { 1.0 });
        assert_eq!(run(&RULE, &shuffled_with_duplicates(&f), &Params::default()), run(&RULE, &f, &Params::default()));
    }

    #[test]
    fn idle_boiler_unoccupied_hours_and_implausible_differences_are_not_judged() {
        // the loop coasting with the boiler off is not judged
        let r = run(&RULE, &plant(|_| 2.0, |_| 0.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // a low difference on nights and weekends only
        let r = run(
            &RULE,
            &plant(|i| if occupied(MONDAY + i as i64 * H) { 25.0 } else { 2.0 }, |_| 1.0),
            &Params::default(),
        );
        assert_eq!(r.severity, Severity::Ok);
        // a swapped sensor pair (return above supply by 10 °F) is a sensor fault, not judged
        let r = run(&RULE, &plant(|_| -10.0, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Info);
        // the gas input stands in, with its caveat
        let mut f = plant(|_| 8.0, |_| 0.0);
        f.cols.remove("boiler_status");
        f.cols.insert("gas_input_rate".into(), vec![250.0; f.len()]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats[0].contains("gas input"));
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 20);
        let f = Frame::from_rows(&ts, &[("hw_supply_temp", vec![160.0; 20]), ("hw_return_temp", vec![140.0; 20])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["boiler_status or gas_input_rate".into()] }
        );
        let g = Frame::from_rows(&ts, &[("hw_supply_temp", vec![160.0; 20]), ("boiler_status", vec![1.0; 20])]);
        assert_eq!(outcome(&RULE, &g, &Params::default()), Outcome::Skipped { missing: vec!["hw_return_temp".into()] });
        for f in [
            Frame::default(),
            Frame::from_rows(
                &[MONDAY + 9 * H],
                &[("hw_supply_temp", vec![160.0]), ("hw_return_temp", vec![150.0]), ("boiler_status", vec![1.0])],
            ),
            Frame::from_rows(
                &ts,
                &[
                    ("hw_supply_temp", vec![f64::NAN; 20]),
                    ("hw_return_temp", vec![150.0; 20]),
                    ("boiler_status", vec![1.0; 20]),
                ],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
    }
}
