//! `boiler_summer_lockout`: a boiler that serves comfort heating fires in warm weather, when
//! its sequence should have locked it out: the gas side of overcooling and reheating. Judged on
//! occupied hours (the generic weekday schedule, `hw_plant::occupied`) with a firing reading
//! (`boiler_status` as a duty, else the gas input): the share of firing time at an outdoor
//! temperature strictly above `summer_lockout_oat_f`, each sample weighed by the share of it the
//! boiler fired and the time it stands for. Warning at 5 % of that time, fault at 20 %. Without
//! an outdoor temperature the check is not judged (info), never read as a clean 0 %; a boiler
//! that never fires scores an honest 0 %.
//!
//! Reported beside it, not judged: whether the hot-water supply temperature is reset down as the
//! weather warms (its least-squares slope against outdoor air over the samples the boiler fired
//! for most of; a slope below -0.05 °F per °F is a reset), and the warmest outdoor temperature
//! the boiler fired at.

use std::collections::BTreeMap;

use crate::engine::{
    least_squares, median, round2, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec, Severity,
};
use crate::hw_plant::{boiler_firing, lockout_severity, warm_running, GAS_CAVEAT};

/// A supply temperature falling at least this fast (°F per °F of outdoor air) is reset.
const RESET_SLOPE_FLAT: f64 = 0.05;
/// Fewest firing samples a reset slope is fitted on.
const MIN_RESET_SAMPLES: usize = 10;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The warm-weather lockout parameter both lockout rules declare.
pub fn lockout_param(basis: &'static str, calibrate: &'static str) -> ParamSpec {
    ParamSpec::number("summer_lockout_oat_f", 65.0, "°F", (50.0, 80.0), basis, calibrate)
}

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "boiler_summer_lockout",
        families: &["hw_plant"],
        inputs: Inputs {
            required: &[],
            optional: &["hw_supply_temp", "hw_return_temp", "hw_diff_press", "oat"],
            gating: &["oat"],
            one_of: &[&["boiler_status", "gas_input_rate"]],
            needs_gating: false,
        },
        params: vec![lockout_param(
            "a generic lockout for a mild climate: above it a comfort-only boiler has no heating to do; the check itself is the heating-plant retuning practice of locking the boiler out in summer, which names no single value",
            "Use the heating lockout of the building's sequence of operations, or the outdoor temperature above which no zone called for heat in a known-good year of trends; higher in a hot, dry climate, lower in a cool one. The rule's severity levels (5 % and 20 % of firing time) are fixed.",
        )],
        judged_basis: "occupied samples (weekdays 07:00-18:00) with the boiler firing and an outdoor temperature",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let Some(fire) = boiler_firing(frame) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the gas input never rises above zero")]);
    };
    let lockout = params.number(spec, "summer_lockout_oat_f");
    let oat = frame.col("oat");
    let w = frame.weights_hours();
    let warm = warm_running(&frame.ts, &fire, oat, lockout, &w);
    if warm.considered.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no occupied sample with a boiler firing reading")]);
    }
    let mut caveats = Vec::new();
    if fire.source == "gas input" {
        caveats.push(GAS_CAVEAT.to_string());
    }
    // the supply temperature's reset, over the samples the boiler fired for most of
    let hws = frame.col("hw_supply_temp");
    let slope = match (hws, oat) {
        (Some(h), Some(o)) => {
            let pairs: Vec<(f64, f64)> = warm
                .considered
                .iter()
                .filter(|&&i| fire.on(i) && !h[i].is_nan() && !o[i].is_nan())
                .map(|&i| (o[i], h[i]))
                .collect();
            if pairs.len() >= MIN_RESET_SAMPLES {
                least_squares(&pairs).map(|l| l.0)
            } else {
                None
            }
        }
        _ => None,
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("boiler_running_pct".into(), round2(warm.running_pct));
    metrics.insert("lockout_oat_f".into(), lockout);
    metrics.insert("n_running".into(), warm.n_running as f64);
    metrics.insert("n_considered".into(), warm.considered.len() as f64);
    if let Some(h) = hws {
        let mut v: Vec<f64> = warm.considered.iter().map(|&i| h[i]).filter(|x| !x.is_nan()).collect();
        if !v.is_empty() {
            metrics.insert("hws_median_f".into(), round2(median(&mut v)));
        }
    }
    if let Some(m) = warm.max_oat_running {
        metrics.insert("max_oat_running_f".into(), m);
    }
    let reset_note = match slope {
        Some(s) => {
            metrics.insert("hws_slope_per_F".into(), (s * 1000.0).round() / 1000.0 + 0.0);
            metrics.insert("hws_reset_present".into(), if s < -RESET_SLOPE_FLAT { 1.0 } else { 0.0 });
            if s < -RESET_SLOPE_FLAT {
                format!("the supply temperature is reset with the weather (slope {s:+.2} °F/°F)")
            } else {
                format!("no supply-temperature reset (slope {s:+.2} °F/°F)")
            }
        }
        None => {
            caveats.push("the supply-temperature reset was not judged: too few firing samples with a supply and an outdoor temperature".into());
            "supply-temperature reset not judged".to_string()
        }
    };
    let Some(pct) = warm.warm_pct else {
        caveats.push(if oat.is_none() {
            "the summer lockout was not judged: no outdoor temperature is trended".to_string()
        } else {
            "the summer lockout was not judged: no outdoor temperature while the boiler fired".to_string()
        });
        let mut f = Finding::new(
            spec,
            Severity::Info,
            format!(
                "not judged: no outdoor temperature to judge the lockout by; the boiler fires {:.0} % of occupied hours; {reset_note}",
                warm.running_pct
            ),
        )
        .with_metrics(metrics)
        .with_caveats(caveats);
        f.judged = 0;
        return Outcome::Findings(vec![f]);
    };
    metrics.insert("summer_run_pct".into(), round2(pct));
    let severity = lockout_severity(pct);
    let summary = format!(
        "the boiler fires {:.0} % of occupied hours, {pct:.0} % of that time at an outdoor temperature above the {lockout:.0} °F lockout{}; {reset_note}",
        warm.running_pct,
        warm.max_oat_running.map_or(String::new(), |m| format!(" (firing up to {m:.0} °F)"))
    );
    let judged = warm.considered.iter().filter(|&&i| fire.duty[i] > 0.0 && oat.is_some_and(|o| !o[i].is_nan())).count();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(warm.warm)
        .with_judged(judged)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// Two weeks hourly: the outdoor air `oat(i)` and the boiler firing `fire(i)`; the supply
    /// temperature reset from 180 °F at 20 °F outdoors.
    fn plant(oat: impl Fn(usize) -> f64, fire: impl Fn(usize) -> f64) -> Frame {
        let n = 24 * 14;
        let ts = every(MONDAY, H, n);
        let oat: Vec<f64> = (0..n).map(oat).collect();
        let hws: Vec<f64> = oat.iter().map(|o| 180.0 - 1.2 * (o - 20.0)).collect();
        Frame::from_rows(&ts, &[("oat", oat), ("boiler_status", (0..n).map(fire).collect()), ("hw_supply_temp", hws)])
    }

    /// Warm afternoons: 70 °F from 13:00 to 17:00 each day, 50 °F otherwise, a little noise.
    fn afternoons(i: usize) -> f64 {
        let h = i % 24;
        if (13..17).contains(&h) {
            70.0
        } else {
            50.0 + (i % 7) as f64 * 0.5
        }
    }

    #[test]
    fn a_locked_out_boiler_is_ok_and_one_left_enabled_is_found() {
        // fires only when it is cool
        let r = run(&RULE, &plant(afternoons, |i| if afternoons(i) > 65.0 { 0.0 } else { 1.0 }), &Params::default());
        assert_eq!((r.severity, r.metrics["summer_run_pct"]), (Severity::Ok, 0.0), "{}", r.summary);
        assert_eq!(r.metrics["hws_reset_present"], 1.0, "the plant's own reset: {:?}", r.metrics);
        // fires all the time: 4 of the 11 occupied hours are warm (36 %)
        let r = run(&RULE, &plant(afternoons, |_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!((r.metrics["summer_run_pct"] - 36.36).abs() < 0.01);
        assert_eq!(r.flagged.len(), 4 * 10, "four afternoon hours on each of ten weekdays");
        assert_eq!(r.metrics["max_oat_running_f"], 70.0);
    }

    #[test]
    fn the_share_and_the_lockout_at_their_boundaries() {
        // an outdoor temperature of exactly the lockout is not above it
        let at = run(&RULE, &plant(|i| if i % 24 == 12 { 65.0 } else { 50.0 }, |_| 1.0), &Params::default());
        assert_eq!((at.severity, at.metrics["summer_run_pct"]), (Severity::Ok, 0.0));
        let over = run(&RULE, &plant(|i| if i % 24 == 12 { 65.1 } else { 50.0 }, |_| 1.0), &Params::default());
        assert_eq!(over.severity, Severity::Warn, "1 of 11 occupied hours (9 %)");
        // a lockout override
        let r = run(
            &RULE,
            &plant(|i| if i % 24 == 12 { 65.1 } else { 50.0 }, |_| 1.0),
            &numbers(&[("summer_lockout_oat_f", 66.0)]),
        );
        assert_eq!(r.severity, Severity::Ok);
        // 5 % warns, just under it does not; 20 % faults, just under it warns: on 40 weekdays
        // hourly (440 occupied hours), 22 warm hours are 5 % and 88 are 20 %
        let share = |warm_hours: usize| {
            let n = 24 * 56;
            let ts = every(MONDAY, H, n);
            let occ: Vec<usize> = (0..n).filter(|&i| crate::hw_plant::occupied(ts[i])).collect();
            let mut oat = vec![50.0; n];
            for &i in &occ[..warm_hours] {
                oat[i] = 70.0;
            }
            run(&RULE, &Frame::from_rows(&ts, &[("oat", oat), ("boiler_status", vec![1.0; n])]), &Params::default())
        };
        assert_eq!(share(22).severity, Severity::Warn);
        assert_eq!(share(21).severity, Severity::Ok);
        assert_eq!(share(88).severity, Severity::Fault);
        assert_eq!(share(87).severity, Severity::Warn);
    }

    #[test]
    fn a_resampled_duty_gap_and_uneven_sampling_weigh_by_time() {
        // the boiler fires a quarter of each warm hour and all of each cool one: the warm share
        // is of firing time, 4 x 0.25 of 7 + 1 hours
        let r = run(&RULE, &plant(afternoons, |i| if afternoons(i) > 65.0 { 0.25 } else { 1.0 }), &Params::default());
        assert!((r.metrics["summer_run_pct"] - 12.5).abs() < 0.01, "{:?}", r.metrics);
        // a gap: the first week's warm afternoons missing leaves the same share on the rest
        let base = plant(afternoons, |_| 1.0);
        let keep: Vec<usize> = (0..base.len()).filter(|&i| !(24..24 * 4).contains(&i)).collect();
        let f = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &f, &Params::default());
        assert!((r.metrics["summer_run_pct"] - 36.36).abs() < 0.01, "{:?}", r.metrics);
        // uneven: a warm hour logged every 5 minutes, then three cool ones every 10: by count
        // 40 % of the samples are warm, by time a quarter of the hours are
        let (mut ts, mut oat) = (Vec::new(), Vec::new());
        for d in 0..5 {
            let t0 = MONDAY + d * 24 * H + 8 * H;
            for k in 0..12 {
                ts.push(t0 + k * 5 * MINUTE);
                oat.push(70.0);
            }
            for k in 0..18 {
                ts.push(t0 + H + k * 10 * MINUTE);
                oat.push(50.0);
            }
        }
        let n = ts.len();
        let r =
            run(&RULE, &Frame::from_rows(&ts, &[("oat", oat), ("boiler_status", vec![1.0; n])]), &Params::default());
        let pct = r.metrics["summer_run_pct"];
        assert!(pct > 20.0 && pct < 30.0, "{pct}: by time, not by count (40 %)");
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let f = plant(afternoons, |i| if i % 3 == 0 { 1.0 } else { 0.0 });
        assert_eq!(run(&RULE, &shuffled_with_duplicates(&f), &Params::default()), run(&RULE, &f, &Params::default()));
    }

    #[test]
    fn unoccupied_and_idle_hours_are_not_judged() {
        // firing only at night and at weekends, in warm weather: not judged hours
        let f = plant(|_| 75.0, |i| if crate::hw_plant::occupied(MONDAY + i as i64 * H) { 0.0 } else { 1.0 });
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["summer_run_pct"], r.judged), (Severity::Ok, 0.0, 0));
        // a boiler that never fires is an honest 0 %
        assert_eq!(run(&RULE, &plant(|_| 75.0, |_| 0.0), &Params::default()).severity, Severity::Ok);
        // no outdoor temperature: not judged, not clean
        let mut g = plant(|_| 75.0, |_| 1.0);
        g.cols.remove("oat");
        let r = run(&RULE, &g, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(r.caveats.iter().any(|c| c.contains("no outdoor temperature")));
    }

    #[test]
    fn the_gas_input_stands_in_and_a_reset_is_reported() {
        let mut f = plant(|i| 50.0 + (i % 24) as f64 * 1.5, |_| 0.0);
        f.cols.remove("boiler_status");
        f.cols.insert("gas_input_rate".into(), vec![300.0; f.len()]);
        let r = run(&RULE, &f, &Params::default());
        assert!(r.caveats[0].contains("gas input"));
        assert_eq!(r.metrics["hws_reset_present"], 1.0);
        assert_eq!(r.metrics["hws_slope_per_F"], -1.2);
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 20);
        assert_eq!(
            outcome(&RULE, &Frame::from_rows(&ts, &[("oat", vec![70.0; 20])]), &Params::default()),
            Outcome::Skipped { missing: vec!["boiler_status or gas_input_rate".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[MONDAY + 9 * H], &[("boiler_status", vec![1.0]), ("oat", vec![70.0])]),
            Frame::from_rows(&ts, &[("boiler_status", vec![f64::NAN; 20]), ("oat", vec![f64::NAN; 20])]),
            Frame::from_rows(&ts, &[("boiler_status", vec![1.0; 20]), ("oat", vec![f64::NAN; 20])]),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        let one = Frame::from_rows(&[MONDAY + 9 * H], &[("boiler_status", vec![1.0]), ("oat", vec![70.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Fault);
    }
}
