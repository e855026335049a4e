//! `hw_pump_dp_reset`: a variable-speed hot-water pump that rides its curve near full speed at
//! part load (no differential-pressure reset, or a setpoint held high) or sits at its minimum
//! speed most of the time (a pump or setpoint larger than the loop needs: room to lower the
//! minimum, trim the impeller or downsize). Judged on the pump's running time, every hour (a
//! pump runs on load, not occupancy), from `crate::pump_speed`: running is the run status where
//! one is trended (a stopped pump's speed may hold its last output), else a speed above 5 %.
//! Fault when it runs at 90 % speed or more for 60 % of its running time; warning at 30 % near
//! full, or at half its running time at or below `near_min_pct` (a number, or `"auto"`: the
//! pump's own VFD floor learned from a plateau in its running speeds). Whether the loop's
//! setpoint (`hw_diff_press_sp`) is reset is reported beside it (a standard deviation under 0.5
//! of its own units is flat), not judged.

use std::collections::BTreeMap;

use crate::engine::{round2, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity};
use crate::pump_speed::{analyze, Band, NEAR_FULL_PCT};

/// Shares (%) of running time near full speed that warn and fault, and near the minimum that
/// warns.
const FULL_WARN_PCT: f64 = 30.0;
const FULL_FAULT_PCT: f64 = 60.0;
const MIN_WARN_PCT: f64 = 50.0;

/// The caveat of a finding whose running was read from the speed alone.
const NO_STATUS_CAVEAT: &str = "no pump run status (pump_status) is trended: running is read from a speed above 5 %, so hours in which a stopped pump's speed point holds its last output cannot be ruled out and would count as running near the minimum";

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The near-minimum band parameter (a number, or "auto").
pub fn near_min_param(default: ParamValue, basis: &'static str) -> ParamSpec {
    ParamSpec {
        name: "near_min_pct",
        default,
        unit: "% speed, or \"auto\"",
        range: Some((10.0, 60.0)),
        choices: &["auto"],
        basis,
        calibrate: "Read the drive's minimum speed from its parameters (or the sequence of operations) and set this a point or two above it, or find the pile-up at the bottom of a histogram of the running speed. \"auto\" learns it: the 2nd percentile of the running speed is the floor when a tenth of the running time sits within floor_tol_pct of it and the 90th percentile is 20 points or more above it; the band is then the larger of 25 % and the floor plus floor_tol_pct, else 25 %.",
    }
}

/// The floor tolerance parameter.
pub fn floor_tol_param() -> ParamSpec {
    ParamSpec::number("floor_tol_pct", 1.0, "% speed", (0.1, 5.0),
        "a drive parked at its minimum reads within about a point of it",
        "Look at the spread of the speed while the pump sits at its minimum (trend resolution and rounding) and set this just wider; used only with near_min_pct \"auto\".")
}

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "hw_pump_dp_reset",
        families: &["hw_plant", "pump"],
        inputs: Inputs {
            required: &["hw_pump_speed"],
            optional: &["hw_diff_press_sp", "pump_status"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            near_min_param(
                ParamValue::Number(25.0),
                "25 % is a common drive minimum; a hot-water pump keeps this fixed band unless \"auto\" is asked for",
            ),
            floor_tol_param(),
        ],
        judged_basis: "samples the pump ran (its status, else a speed above 5 %), every hour",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let near_min = match params.word(spec, "near_min_pct") {
        Some(_) => None,
        None => Some(params.number(spec, "near_min_pct")),
    };
    let tol = params.number(spec, "floor_tol_pct");
    let Some(p) = analyze(frame, "hw_pump_speed", "hw_diff_press_sp", near_min, tol) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "the pump never runs (no running speed sample)")]);
    };
    let (full, min) = (p.near_full_pct, p.near_min_pct);
    let severity = if full >= FULL_FAULT_PCT {
        Severity::Fault
    } else if full >= FULL_WARN_PCT || min >= MIN_WARN_PCT {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let mut caveats = Vec::new();
    if p.run_source == "speed" {
        caveats.push(NO_STATUS_CAVEAT.to_string());
    } else if let Some(k) = p.n_parked.filter(|k| *k > 0) {
        caveats.push(format!("{k} samples read a speed above 5 % while the run status says the pump was stopped (a parked speed point): judged as stopped"));
    }
    let reset_note = match p.dp_sp_reset {
        Some(true) => "the differential-pressure setpoint is reset",
        Some(false) => "the differential-pressure setpoint is flat",
        None => {
            caveats.push("the differential-pressure reset was not judged: no usable hot-water setpoint (hw_diff_press_sp) is trended".into());
            "the setpoint's reset not judged"
        }
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("median_speed_pct".into(), round2(p.median_speed_pct));
    metrics.insert("pct_running_near_full".into(), round2(full));
    metrics.insert("pct_running_near_min".into(), round2(min));
    metrics.insert("near_min_band_pct".into(), round2(p.band_pct));
    metrics.insert("n_running".into(), p.running.len() as f64);
    if let Some(f) = p.vfd_floor_pct {
        metrics.insert("vfd_floor_pct".into(), f);
    }
    if let Some(m) = p.median_dp_sp {
        metrics.insert("median_dp_sp".into(), round2(m));
    }
    if let Some(r) = p.dp_sp_reset {
        metrics.insert("dp_sp_reset_present".into(), if r { 1.0 } else { 0.0 });
    }
    if let Some(k) = p.n_parked {
        metrics.insert("n_stopped_speed_above_run".into(), k as f64);
    }
    let band_note = match p.band {
        Band::Fixed => String::new(),
        Band::Learned => format!(", the learned VFD floor {:.0} %", p.vfd_floor_pct.unwrap_or(f64::NAN)),
        Band::Default => ", no VFD floor plateau found".to_string(),
    };
    let summary = format!(
        "the hot-water pump runs at a median {:.0} % speed: {full:.0} % of its running time at {NEAR_FULL_PCT:.0} % or more, {min:.0} % at or below {:.0} %{band_note}; {reset_note}",
        p.median_speed_pct, p.band_pct
    );
    // flagged: the samples behind the verdict
    let mut flagged = Vec::new();
    if full >= FULL_WARN_PCT {
        flagged.extend(&p.near_full);
    }
    if min >= MIN_WARN_PCT {
        flagged.extend(&p.near_min);
    }
    flagged.sort_unstable();
    flagged.dedup();
    let w = frame.weights_hours();
    let hours = |v: &[u32]| v.iter().map(|&i| w[i as usize]).sum::<f64>() + 0.0;
    let conditions = vec![
        crate::engine::Condition {
            name: "near_full".into(),
            flagged_hours: hours(&p.near_full),
            flagged: p.near_full.clone(),
            judged: p.running.len(),
            judged_hours: p.running_hours,
        },
        crate::engine::Condition {
            name: "near_min".into(),
            flagged_hours: hours(&p.near_min),
            flagged: p.near_min.clone(),
            judged: p.running.len(),
            judged_hours: p.running_hours,
        },
    ];
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(p.running.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// 100 hourly samples of speed `speed(i)`, the setpoint `sp(i)`.
    fn pump(speed: impl Fn(usize) -> f64, sp: impl Fn(usize) -> f64) -> Frame {
        let ts = every(MONDAY, H, 100);
        Frame::from_rows(
            &ts,
            &[("hw_pump_speed", (0..100).map(speed).collect()), ("hw_diff_press_sp", (0..100).map(sp).collect())],
        )
    }

    fn modulating(i: usize) -> f64 {
        40.0 + (i % 40) as f64
    }

    #[test]
    fn a_modulating_pump_is_ok_and_pinned_ones_are_found() {
        let r = run(&RULE, &pump(modulating, |i| 4.0 + (i % 10) as f64), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["dp_sp_reset_present"], 1.0);
        assert!(r.caveats[0].contains("no pump run status"));
        // a constant-speed pump at 95 % on a flat setpoint
        let r = run(&RULE, &pump(|_| 95.0, |_| 12.0), &Params::default());
        assert_eq!(
            (r.severity, r.metrics["pct_running_near_full"], r.metrics["dp_sp_reset_present"]),
            (Severity::Fault, 100.0, 0.0)
        );
        assert_eq!(r.flagged.len(), 100);
        // parked at its 20 % minimum most of the time
        let r = run(&RULE, &pump(|i| if i % 10 < 6 { 20.0 } else { 50.0 }, |_| 8.0), &Params::default());
        assert_eq!((r.severity, r.metrics["pct_running_near_min"]), (Severity::Warn, 60.0));
    }

    #[test]
    fn the_shares_and_bands_at_their_boundaries() {
        // 30 % near full warns, 29 % does not; 60 % faults, 59 % warns
        let full = |k: usize| {
            run(&RULE, &pump(move |i| if i < k { 90.0 } else { 50.0 }, |_| 8.0), &Params::default()).severity
        };
        assert_eq!(
            (full(30), full(29), full(60), full(59)),
            (Severity::Warn, Severity::Ok, Severity::Fault, Severity::Warn)
        );
        // 89.9 % is not full speed
        assert_eq!(run(&RULE, &pump(|_| 89.9, |_| 8.0), &Params::default()).severity, Severity::Ok);
        // half the time at or below the band warns; the band's edge is in it, just above is not
        let low = |s: f64, p: &Params| run(&RULE, &pump(move |i| if i < 50 { s } else { 60.0 }, |_| 8.0), p).severity;
        assert_eq!(low(25.0, &Params::default()), Severity::Warn);
        assert_eq!(low(25.1, &Params::default()), Severity::Ok);
        assert_eq!(low(30.0, &numbers(&[("near_min_pct", 30.0)])), Severity::Warn);
        assert_eq!(low(30.1, &numbers(&[("near_min_pct", 30.0)])), Severity::Ok);
        assert_eq!(
            run(&RULE, &pump(|i| if i < 49 { 20.0 } else { 60.0 }, |_| 8.0), &Params::default()).severity,
            Severity::Ok
        );
        // "auto": a drive parked at 32 % (above the fixed 25 % band) is seen at its floor
        let parked = pump(|i| if i < 55 { 32.0 } else { 60.0 + (i % 20) as f64 }, |_| 8.0);
        assert_eq!(run(&RULE, &parked, &Params::default()).severity, Severity::Ok);
        let auto = with(&[("near_min_pct", ParamValue::Choice("auto".into()))]);
        let r = run(&RULE, &parked, &auto);
        assert_eq!(
            (r.severity, r.metrics["vfd_floor_pct"], r.metrics["near_min_band_pct"]),
            (Severity::Warn, 32.0, 33.0)
        );
        assert!(r.summary.contains("learned VFD floor"));
        // floor_tol_pct widens the band
        let mut p = auto.clone();
        p.values.insert("floor_tol_pct".into(), ParamValue::Number(3.0));
        assert_eq!(run(&RULE, &parked, &p).metrics["near_min_band_pct"], 35.0);
        // no plateau: the default band
        let r = run(&RULE, &pump(modulating, |_| 8.0), &auto);
        assert_eq!(r.metrics["near_min_band_pct"], 25.0);
        assert!(r.summary.contains("no VFD floor plateau"));
        // the setpoint's flatness: a standard deviation of 0.5 is a reset, just under it flat
        let sp = |amp: f64| {
            run(&RULE, &pump(modulating, move |i| if i % 2 == 0 { 8.0 - amp } else { 8.0 + amp }), &Params::default())
        };
        assert_eq!((sp(0.5).metrics["dp_sp_reset_present"], sp(0.49).metrics["dp_sp_reset_present"]), (1.0, 0.0));
    }

    #[test]
    fn a_status_gap_and_uneven_sampling_weigh_by_time() {
        // a status: the stopped hours, whose speed holds 20 %, are not judged near the minimum
        let ts = every(MONDAY, H, 100);
        let speed: Vec<f64> = (0..100).map(|i| if i < 60 { 20.0 } else { 50.0 }).collect();
        let status: Vec<f64> = (0..100).map(|i| if i < 60 { 0.0 } else { 1.0 }).collect();
        let f = Frame::from_rows(&ts, &[("hw_pump_speed", speed.clone()), ("pump_status", status)]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["n_stopped_speed_above_run"]), (Severity::Ok, 40, 60.0));
        assert!(r.caveats[0].contains("parked speed point"));
        assert_eq!(
            run(&RULE, &Frame::from_rows(&ts, &[("hw_pump_speed", speed)]), &Params::default()).severity,
            Severity::Warn
        );
        // a gap: the sample before it stands for 1.5 hours, not the gap
        let base = pump(|i| if i < 40 { 95.0 } else { 50.0 }, |_| 8.0);
        let keep: Vec<usize> = (0..100).filter(|i| !(10..40).contains(i)).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &g, &Params::default());
        assert!((r.metrics["pct_running_near_full"] - 100.0 * 10.5 / 70.5).abs() < 0.01, "{:?}", r.metrics);
        // uneven: full speed logged every 5 minutes for an hour, modulating every 15 minutes for
        // five: by count 12 of 32 samples (a warning), by time a sixth
        let (mut ts, mut s) = (Vec::new(), Vec::new());
        for c in 0..20 {
            let t0 = MONDAY + c * 6 * H;
            for k in 0..12 {
                ts.push(t0 + k * 5 * MINUTE);
                s.push(95.0);
            }
            for k in 0..20 {
                ts.push(t0 + H + k * 15 * MINUTE);
                s.push(50.0);
            }
        }
        let r = run(&RULE, &Frame::from_rows(&ts, &[("hw_pump_speed", s)]), &Params::default());
        assert!((r.metrics["pct_running_near_full"] - 100.0 / 6.0).abs() < 0.01, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        let f = pump(|i| if i % 3 == 0 { 95.0 } else { 20.0 + i as f64 * 0.3 }, |i| 4.0 + (i % 5) as f64);
        assert_eq!(run(&RULE, &shuffled_with_duplicates(&f), &Params::default()), run(&RULE, &f, &Params::default()));
    }

    #[test]
    fn a_stopped_pump_is_not_judged_and_a_fraction_is_a_percentage() {
        let r = run(&RULE, &pump(|_| 0.0, |_| 8.0), &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        // a 0-1 speed reads as a fraction: 0.95 is 95 %
        let r = run(&RULE, &pump(|_| 0.95, |_| 8.0), &Params::default());
        assert_eq!((r.severity, r.metrics["median_speed_pct"]), (Severity::Fault, 95.0));
        // no setpoint: the reset is not judged, with a caveat
        let ts = every(MONDAY, H, 30);
        let r = run(&RULE, &Frame::from_rows(&ts, &[("hw_pump_speed", vec![50.0; 30])]), &Params::default());
        assert!(!r.metrics.contains_key("dp_sp_reset_present"));
        assert!(r.caveats.iter().any(|c| c.contains("hw_diff_press_sp")));
    }

    #[test]
    fn a_missing_input_skips_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 20);
        assert_eq!(
            outcome(&RULE, &Frame::from_rows(&ts, &[("pump_status", vec![1.0; 20])]), &Params::default()),
            Outcome::Skipped { missing: vec!["hw_pump_speed".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[MONDAY], &[("hw_pump_speed", vec![50.0])]),
            Frame::from_rows(&ts, &[("hw_pump_speed", vec![f64::NAN; 20])]),
            Frame::from_rows(&ts, &[("hw_pump_speed", vec![50.0; 20]), ("pump_status", vec![f64::NAN; 20])]),
        ] {
            for p in [Params::default(), with(&[("near_min_pct", ParamValue::Choice("auto".into()))])] {
                let _ = outcome(&RULE, &f, &p);
            }
        }
        assert_eq!(
            run(&RULE, &Frame::from_rows(&[MONDAY], &[("hw_pump_speed", vec![50.0])]), &Params::default()).severity,
            Severity::Ok
        );
    }
}
