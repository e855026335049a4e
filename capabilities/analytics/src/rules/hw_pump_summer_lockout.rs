//! `hw_pump_summer_lockout`: a hot-water pump left running in warm weather. Locking out the
//! boiler alone leaves the pump's energy spent and the loop warm, feeding heat to every coil
//! whose valve leaks; the heating-plant retuning practice locks out the pumps too. Judged as
//! `boiler_summer_lockout` judges the boiler, on the pump's own running (`hw_plant::pump_running`:
//! its status as a duty, else its speed above 5 %, else the loop flow above 5 % of its 95th
//! percentile): the share of its occupied running time (the generic weekday schedule) at an
//! outdoor temperature strictly above `summer_lockout_oat_f`, each sample weighed by the share of
//! it the pump ran and the time it stands for. Warning at 5 %, fault at 20 %; without an outdoor
//! temperature it is not judged. Reported beside it: how much of that warm running time the
//! boiler was off (the pump left on by itself).
//!
//! A run config that sets `summer_lockout_oat_f` on `boiler_summer_lockout` and not here passes
//! the boiler's value on (`config::INHERITED_PARAMS`), so one site lockout judges both. A pump
//! status alone says nothing of which loop the pump serves: an equipment with no hot-water point
//! at all is not judged.

use std::collections::BTreeMap;

use crate::engine::{round2, Finding, Frame, Inputs, Outcome, Params, Rule, RuleSpec, Severity};
use crate::hw_plant::{boiler_firing, lockout_severity, pump_running, warm_running, HW_ROLES};
use crate::rules::boiler_summer_lockout::lockout_param;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hw_pump_summer_lockout",
        families: &["hw_plant", "pump"],
        inputs: Inputs {
            required: &[],
            optional: &["oat", "boiler_status", "gas_input_rate", "hw_supply_temp", "hw_return_temp"],
            gating: &["oat"],
            one_of: &[&["pump_status", "hw_pump_speed", "hw_flow"]],
            needs_gating: false,
        },
        params: vec![lockout_param(
            "the same generic mild-climate lockout as boiler_summer_lockout: above it the heating loop has nothing to carry; the check follows the retuning practice of locking out the hot-water pumps, not only the boiler, which names no single value",
            "Use the same heating lockout as boiler_summer_lockout (a config that sets it there and not here passes it on). A plant that serves dehumidification reheat or domestic hot water in summer needs a higher value, or none of this check. The severity levels (5 % and 20 % of running time) are fixed.",
        )],
        judged_basis: "occupied samples (weekdays 07:00-18:00) with the pump running and an outdoor temperature",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    if !HW_ROLES.iter().any(|r| frame.col(r).is_some()) {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "only a pump status is trended, with no hot-water point (hw_pump_speed, hw_flow, a hot-water temperature or a boiler signal), so the pump may serve another loop",
        )]);
    }
    let Some(pump) = pump_running(frame) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the loop flow never rises above zero")]);
    };
    let lockout = params.number(spec, "summer_lockout_oat_f");
    let oat = frame.col("oat");
    let w = frame.weights_hours();
    let warm = warm_running(&frame.ts, &pump, oat, lockout, &w);
    if warm.considered.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no occupied sample with a pump running reading")]);
    }
    let mut caveats = Vec::new();
    if pump.source != "pump status" {
        caveats.push(format!(
            "no pump run status is trended: running is read from the {} ({}), which has no duty: on a trend resampled coarser than it was logged each sample runs or not by its average",
            pump.source,
            if pump.source == "pump speed" { "above 5 %" } else { "above 5 % of its own 95th percentile" }
        ));
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("pump_running_pct".into(), round2(warm.running_pct));
    metrics.insert("lockout_oat_f".into(), lockout);
    metrics.insert("n_running".into(), warm.n_running as f64);
    metrics.insert("n_considered".into(), warm.considered.len() as f64);
    if let Some(m) = warm.max_oat_running {
        metrics.insert("max_oat_running_f".into(), m);
    }
    let Some(pct) = warm.warm_pct else {
        caveats.push("the warm-weather lockout was not judged: no outdoor temperature while the pump ran".into());
        return Outcome::Findings(vec![Finding::new(
            spec,
            Severity::Info,
            format!(
                "not judged: no outdoor temperature to judge the lockout by; the pump runs {:.0} % of occupied hours",
                warm.running_pct
            ),
        )
        .with_caveats(caveats)
        .with_metrics(metrics)]);
    };
    metrics.insert("summer_run_pct".into(), round2(pct));
    // the boiler's firing over the pump's warm running time: the pump left on by itself
    let boiler = boiler_firing(frame);
    let boiler_off = boiler.as_ref().and_then(|b| {
        let (mut off, mut all) = (0.0, 0.0);
        for &i in warm.warm.iter().map(|i| *i as usize).collect::<Vec<_>>().iter() {
            if b.duty[i].is_nan() {
                continue;
            }
            let h = w[i] * pump.duty[i];
            all += h;
            off += h * (1.0 - b.duty[i]);
        }
        (all > 0.0).then(|| 100.0 * off / all)
    });
    if let Some(b) = boiler_off {
        metrics.insert("boiler_off_pct".into(), round2(b));
    } else if pct > 0.0 {
        caveats.push("the boiler's firing was not compared: no boiler run status or gas input is trended".into());
    }
    let severity = lockout_severity(pct);
    let summary = format!(
        "the hot-water pump runs {:.0} % of occupied hours, {pct:.0} % of that time at an outdoor temperature above the {lockout:.0} °F lockout{}",
        warm.running_pct,
        boiler_off.map_or(String::new(), |b| format!("; the boiler was off for {b:.0} % of those hours"))
    );
    let judged = warm.considered.iter().filter(|&&i| pump.duty[i] > 0.0 && oat.is_some_and(|o| !o[i].is_nan())).count();
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

    /// Two weeks hourly: warm afternoons (70 °F 13:00-17:00, else 50 °F), the pump `pump(i)`,
    /// the boiler firing only when it is cool, a hot-water supply temperature.
    fn plant(pump: impl Fn(usize) -> f64) -> Frame {
        let n = 24 * 14;
        let ts = every(MONDAY, H, n);
        let oat: Vec<f64> = (0..n).map(|i| if (13..17).contains(&(i % 24)) { 70.0 } else { 50.0 }).collect();
        let fire: Vec<f64> = oat.iter().map(|o| if *o > 65.0 { 0.0 } else { 1.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", oat),
                ("pump_status", (0..n).map(pump).collect()),
                ("boiler_status", fire),
                ("hw_supply_temp", vec![150.0; n]),
            ],
        )
    }

    fn cool(i: usize) -> f64 {
        if (13..17).contains(&(i % 24)) {
            0.0
        } else {
            1.0
        }
    }

    #[test]
    fn a_locked_out_pump_is_ok_and_one_left_on_is_found() {
        let r = run(&RULE, &plant(cool), &Params::default());
        assert_eq!((r.severity, r.metrics["summer_run_pct"]), (Severity::Ok, 0.0));
        let r = run(&RULE, &plant(|_| 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!((r.metrics["summer_run_pct"] - 36.36).abs() < 0.01);
        assert_eq!((r.metrics["boiler_off_pct"], r.flagged.len()), (100.0, 40));
    }

    #[test]
    fn the_share_and_the_lockout_at_their_boundaries() {
        // one warm hour of eleven (9 %) warns; at 66 °F the lockout is not passed by 65.1
        let f = |t: f64| {
            let mut f = plant(|_| 1.0);
            let oat: Vec<f64> = (0..f.len()).map(|i| if i % 24 == 12 { t } else { 50.0 }).collect();
            f.cols.insert("oat".into(), oat);
            f
        };
        assert_eq!(run(&RULE, &f(65.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &f(65.1), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &f(65.1), &numbers(&[("summer_lockout_oat_f", 66.0)])).severity, Severity::Ok);
        // 5 % and 20 % of 440 occupied hours on 40 weekdays: 22 and 88 warm hours
        let share = |warm_hours: usize| {
            let n = 24 * 56;
            let ts = every(MONDAY, H, n);
            let occ: Vec<usize> = (0..n).filter(|&i| crate::hw_plant::occupied(ts[i])).collect();
            let mut oat = vec![50.0; n];
            for &i in &occ[..warm_hours] {
                oat[i] = 70.0;
            }
            run(&RULE, &Frame::from_rows(&ts, &[("oat", oat), ("hw_pump_speed", vec![60.0; n])]), &Params::default())
                .severity
        };
        assert_eq!(
            (share(22), share(21), share(88), share(87)),
            (Severity::Warn, Severity::Ok, Severity::Fault, Severity::Warn)
        );
    }

    #[test]
    fn a_duty_a_gap_and_uneven_sampling_weigh_by_time() {
        // running a quarter of each warm hour: 1 of 8 running hours
        let r = run(&RULE, &plant(|i| if cool(i) == 0.0 { 0.25 } else { 1.0 }), &Params::default());
        assert!((r.metrics["summer_run_pct"] - 12.5).abs() < 0.01, "{:?}", r.metrics);
        // a gap through the middle of the first week: the same share on the rest
        let base = plant(|_| 1.0);
        let keep: Vec<usize> = (0..base.len()).filter(|&i| !(24..24 * 4).contains(&i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert!((run(&RULE, &g, &Params::default()).metrics["summer_run_pct"] - 36.36).abs() < 0.01);
        // uneven: a warm hour logged every 5 minutes, three cool ones every 10
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
        let r = run(
            &RULE,
            &Frame::from_rows(&ts, &[("oat", oat), ("pump_status", vec![1.0; n]), ("hw_supply_temp", vec![150.0; n])]),
            &Params::default(),
        );
        let pct = r.metrics["summer_run_pct"];
        assert!(pct > 20.0 && pct < 30.0, "{pct}: by time, not by count (40 %)");
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let f = plant(|i| if i % 3 == 0 { 1.0 } else { 0.0 });
        assert_eq!(run(&RULE, &shuffled_with_duplicates(&f), &Params::default()), run(&RULE, &f, &Params::default()));
    }

    #[test]
    fn unoccupied_running_another_loop_and_stand_ins() {
        // running only at night and at weekends: not judged hours
        let r = run(
            &RULE,
            &plant(|i| if crate::hw_plant::occupied(MONDAY + i as i64 * H) { 0.0 } else { 1.0 }),
            &Params::default(),
        );
        assert_eq!((r.severity, r.judged), (Severity::Ok, 0));
        // a pump status with no hot-water point may be a chilled-water pump: not judged
        let ts = every(MONDAY, H, 48);
        let f = Frame::from_rows(&ts, &[("pump_status", vec![1.0; 48]), ("oat", vec![75.0; 48])]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Info);
        assert!(r.summary.contains("another loop"));
        // the speed stands in, with its caveat; no boiler signal to compare
        let f = Frame::from_rows(&ts, &[("hw_pump_speed", vec![60.0; 48]), ("oat", vec![75.0; 48])]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats[0].contains("pump speed"));
        assert!(r.caveats.iter().any(|c| c.contains("not compared")));
        // the loop flow stands in
        let f = Frame::from_rows(&ts, &[("hw_flow", vec![300.0; 48]), ("oat", vec![75.0; 48])]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
        // no outdoor temperature: not judged
        let f = Frame::from_rows(&ts, &[("hw_pump_speed", vec![60.0; 48])]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 20);
        assert_eq!(
            outcome(
                &RULE,
                &Frame::from_rows(&ts, &[("oat", vec![70.0; 20]), ("boiler_status", vec![1.0; 20])]),
                &Params::default()
            ),
            Outcome::Skipped { missing: vec!["pump_status, hw_pump_speed or hw_flow".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[MONDAY + 9 * H], &[("hw_pump_speed", vec![60.0]), ("oat", vec![70.0])]),
            Frame::from_rows(&ts, &[("hw_flow", vec![0.0; 20]), ("oat", vec![70.0; 20])]),
            Frame::from_rows(&ts, &[("hw_pump_speed", vec![f64::NAN; 20]), ("hw_flow", vec![1.0; 20])]),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        let r = run(
            &RULE,
            &Frame::from_rows(&ts, &[("hw_flow", vec![0.0; 20]), ("oat", vec![70.0; 20])]),
            &Params::default(),
        );
        assert_eq!(r.severity, Severity::Info);
    }
}
