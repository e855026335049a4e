//! `chw_pump_dp_reset`: chilled-water pumps that ride near full speed at part load (no working
//! differential-pressure reset, or a setpoint held too high: pump power goes with about the cube
//! of speed), or that sit at their drive's minimum most of the time (a pump, or a setpoint,
//! larger than the loop needs). Read over the running samples: the pumps' run status (a duty
//! above a half) and a speed above 5 %, or without a status the speed alone (a speed point that
//! holds its last value while the pumps are stopped cannot then be ruled out, and the finding
//! says so). Near full is 90 % speed and above: a fault from 60 % of the running time, a warning
//! from 30 %. Near the minimum is at or below `near_min_pct`, or with "auto" at or below the
//! larger of 25 % and the drive's own floor plus `floor_tol_pct`, the floor learned from a
//! plateau of the running speeds (their 2nd percentile, when a tenth of the running time sits
//! within `floor_tol_pct` of it and the 90th percentile is 20 points or more above it): a warning
//! from half the running time. A differential-pressure setpoint, where trended, whose standard
//! deviation over the running samples is under 0.5 (its own units) is reported as flat; it does
//! not change the severity.
//!
//! Unlike the reference, the shares and percentiles are of time (each sample weighs the time it
//! stands for), and a speed trended as a 0-1 fraction is read as a percentage.

use std::collections::BTreeMap;

use crate::chiller::by_status;
use crate::engine::{
    as_percent, round2, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule,
    RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// A speed above this (%) runs.
const RUN_PCT: f64 = 5.0;
/// At or above this speed (%) is near full.
const NEAR_FULL_PCT: f64 = 90.0;
/// Shares of running time near full (%) that warn and fault; near the minimum, that warns.
const FULL_WARN_PCT: f64 = 30.0;
const FULL_FAULT_PCT: f64 = 60.0;
const MIN_WARN_PCT: f64 = 50.0;
/// The near-minimum band "auto" never goes below (and falls back to without a floor).
const DEFAULT_NEAR_MIN_PCT: f64 = 25.0;
/// A floor is a plateau: this share of running time within the tolerance of it, the 90th
/// percentile this many points above it.
const FLOOR_SHARE: f64 = 0.10;
const FLOOR_SPREAD_PCT: f64 = 20.0;
/// A setpoint whose standard deviation is under this (its units) is flat.
const DP_SP_FLAT_STD: f64 = 0.5;
/// Fewest running samples with a setpoint to judge its reset.
const MIN_SP_SAMPLES: usize = 10;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chw_pump_dp_reset",
        families: &["chw_plant", "pump"],
        inputs: Inputs {
            required: &["chw_pump_speed"],
            optional: &["chw_diff_press_sp", "pump_status"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "near_min_pct",
                default: ParamValue::Choice("auto".into()),
                unit: "% speed, or \"auto\"",
                range: Some((10.0, 60.0)),
                choices: &["auto"],
                basis: "a drive's minimum speed is its own: \"auto\" learns it from the pile-up of running speeds at the bottom rather than assume 25 %",
                calibrate: "Read the drive's minimum speed from the VFD parameters or the sequence and set this a point or two above it, or look for the pile-up at the bottom of a histogram of the running speed. \"auto\" counts a speed at or below the larger of 25 % and the learned floor plus floor_tol_pct (25 % when no floor shows); the finding reports the band it used.",
            },
            ParamSpec::number(
                "floor_tol_pct",
                1.0,
                "% speed",
                (0.1, 5.0),
                "a drive parked at its minimum reads within about a point of it",
                "Look at the spread of the speed readings while the pump sits at its minimum (trend resolution, rounding) and set this just wider. Used only with near_min_pct \"auto\".",
            ),
        ],
        judged_basis: "samples with the pumps running (their status, and a speed above 5 %)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let speed = as_percent(frame.required("chw_pump_speed"));
    let weights = frame.weights_hours();
    let status = frame.col("pump_status").and_then(by_status);
    let mut caveats = Vec::new();
    let mut parked = 0usize;
    if let Some(on) = &status {
        parked = (0..frame.len()).filter(|&i| !on[i] && speed[i] > RUN_PCT).count();
        if parked > 0 {
            caveats.push(format!(
                "{parked} samples read a speed above 5 % while the pump status says stopped (a parked speed point): judged as stopped"
            ));
        }
    } else {
        caveats.push("no pump run status (pump_status) mapped: running is read from speed above 5 %, so hours a stopped pump's speed point holds its last value cannot be ruled out and would count as running".into());
    }
    let running: Vec<usize> =
        (0..frame.len()).filter(|&i| speed[i] > RUN_PCT && status.as_ref().is_none_or(|on| on[i])).collect();
    if running.is_empty() {
        return Outcome::Findings(vec![
            Finding::not_judged(spec, "the pumps never ran (speed above 5 %)").with_caveats(caveats)
        ]);
    }
    let hours: f64 = running.iter().map(|&i| weights[i]).sum();
    let share = |f: &dyn Fn(f64) -> bool| {
        // + 0.0: an empty float sum is -0.0, which would print as "-0"
        100.0 * running.iter().filter(|&&i| f(speed[i])).map(|&i| weights[i]).sum::<f64>() / hours + 0.0
    };
    let pairs = || running.iter().map(|&i| (speed[i], weights[i])).collect::<Vec<_>>();
    let median = weighted_quantile(&mut pairs(), 0.5);
    let pct_full = share(&|s| s >= NEAR_FULL_PCT);
    let tol = params.number(spec, "floor_tol_pct");
    let (band, source, floor) = match params.word(spec, "near_min_pct") {
        Some(_) => {
            // a plateau at the bottom of the running speeds
            let f = weighted_quantile(&mut pairs(), 0.02);
            let at = share(&|s| (s - f).abs() <= tol + 1e-9) / 100.0;
            let p90 = weighted_quantile(&mut pairs(), 0.9);
            if at >= FLOOR_SHARE && p90 >= f + FLOOR_SPREAD_PCT {
                (DEFAULT_NEAR_MIN_PCT.max(f + tol), "learned", Some(f))
            } else {
                (DEFAULT_NEAR_MIN_PCT, "default", None)
            }
        }
        None => (params.number(spec, "near_min_pct"), "fixed", None),
    };
    let pct_min = share(&|s| s <= band + 1e-9);
    let severity = if pct_full + 1e-9 >= FULL_FAULT_PCT {
        Severity::Fault
    } else if pct_full + 1e-9 >= FULL_WARN_PCT || pct_min + 1e-9 >= MIN_WARN_PCT {
        Severity::Warn
    } else {
        Severity::Ok
    };
    // the differential-pressure setpoint the pumps ran against
    let mut metrics = BTreeMap::new();
    let reset_note = match frame.col("chw_diff_press_sp") {
        Some(sp) => {
            let v: Vec<(f64, f64)> = running.iter().filter(|&&i| sp[i] > 0.0).map(|&i| (sp[i], weights[i])).collect();
            if v.len() >= MIN_SP_SAMPLES {
                let w: f64 = v.iter().map(|p| p.1).sum();
                let mean = v.iter().map(|p| p.0 * p.1).sum::<f64>() / w;
                let std = (v.iter().map(|p| p.1 * (p.0 - mean) * (p.0 - mean)).sum::<f64>() / w).sqrt();
                let med = weighted_quantile(&mut v.clone(), 0.5);
                let reset = std + 1e-9 >= DP_SP_FLAT_STD;
                metrics.insert("median_dp_sp".into(), round2(med));
                metrics.insert("dp_sp_std".into(), round2(std));
                metrics.insert("dp_sp_reset_present".into(), f64::from(u8::from(reset)));
                if reset {
                    "the differential-pressure setpoint is reset".to_string()
                } else {
                    format!("the differential-pressure setpoint is flat at {med:.1}")
                }
            } else {
                caveats.push(
                    "the differential-pressure reset was not evaluated: too few running samples with a setpoint".into(),
                );
                "the setpoint reset was not evaluated".to_string()
            }
        }
        None => {
            caveats.push("the differential-pressure reset was not evaluated: no setpoint (chw_diff_press_sp)".into());
            "the setpoint reset was not evaluated".to_string()
        }
    };
    metrics.insert("median_speed_pct".into(), round2(median));
    metrics.insert("pct_running_near_full".into(), round2(pct_full));
    metrics.insert("pct_running_near_min".into(), round2(pct_min));
    metrics.insert("near_min_band_pct".into(), round2(band));
    if let Some(f) = floor {
        metrics.insert("vfd_floor_pct".into(), round2(f));
    }
    metrics.insert("n_running".into(), running.len() as f64);
    metrics.insert("running_hours".into(), round2(hours));
    if status.is_some() {
        metrics.insert("n_stopped_speed_above_run".into(), parked as f64);
    }
    let floor_note = match (source, floor) {
        ("learned", Some(f)) => format!(", learned drive floor {f:.1} %"),
        ("default", _) => ", no drive floor plateau found".to_string(),
        _ => String::new(),
    };
    let summary = format!(
        "pump median speed {median:.0} %, {pct_full:.0} % of running time near full and {pct_min:.0} % near the minimum (at or below {band:.1} %{floor_note}); {reset_note}"
    );
    let flagged: Vec<u32> = running
        .iter()
        .copied()
        .filter(|&i| {
            (pct_full + 1e-9 >= FULL_WARN_PCT && speed[i] >= NEAR_FULL_PCT)
                || (pct_min + 1e-9 >= MIN_WARN_PCT && speed[i] <= band + 1e-9)
        })
        .map(|i| i as u32)
        .collect();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(running.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// A week at 15 minutes: the pumps on 6:00-18:00 by their status at `speed(hour)`, parked at
    /// `parked` % when stopped; a setpoint of `sp(hour)` psi.
    fn pumps(speed: impl Fn(f64) -> f64, parked: f64, sp: impl Fn(f64) -> f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let on: Vec<bool> = hour.iter().map(|h| (6.0..18.0).contains(h)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("chw_pump_speed", (0..n).map(|i| if on[i] { speed(hour[i]) } else { parked }).collect()),
                ("pump_status", on.iter().map(|o| f64::from(u8::from(*o))).collect()),
                ("chw_diff_press_sp", hour.iter().map(|&h| sp(h)).collect()),
            ],
        )
    }

    /// Speed modulating 40-80 % through the day.
    fn modulating(h: f64) -> f64 {
        40.0 + 40.0 * ((h - 6.0) / 12.0)
    }

    /// A setpoint reset from 8 to 12 psi through the day.
    fn reset(h: f64) -> f64 {
        8.0 + 4.0 * ((h - 6.0) / 12.0).clamp(0.0, 1.0)
    }

    #[test]
    fn modulating_pumps_are_ok() {
        let r = run(&RULE, &pumps(modulating, 0.0, reset), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.metrics["pct_running_near_full"], r.metrics["dp_sp_reset_present"]), (0.0, 1.0));
        assert_eq!(r.judged, 7 * 48);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn pumps_riding_the_curve_fault_and_pumps_at_the_floor_warn() {
        let r = run(&RULE, &pumps(|_| 95.0, 0.0, |_| 12.0), &Params::default());
        assert_eq!((r.severity, r.metrics["dp_sp_reset_present"]), (Severity::Fault, 0.0));
        assert_eq!(r.flagged.len(), 7 * 48);
        // parked at a 30 % floor most of the day, modulating the rest: learned floor
        let r = run(&RULE, &pumps(|h| if h < 14.0 { 30.0 } else { 70.0 }, 0.0, reset), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert_eq!((r.metrics["vfd_floor_pct"], r.metrics["near_min_band_pct"]), (30.0, 31.0));
    }

    #[test]
    fn the_levels_and_the_band_at_their_boundaries() {
        // near full for the first `h` hours of 12
        let full = |h: f64| move |x: f64| if x < 6.0 + h { 92.0 } else { modulating(x) };
        let sev = |h: f64| run(&RULE, &pumps(full(h), 0.0, reset), &Params::default()).severity;
        assert_eq!(sev(3.6), Severity::Warn); // 15 of 48 samples, 31 %
        assert_eq!(sev(3.5), Severity::Ok); // 14, 29 %
        assert_eq!(sev(7.2), Severity::Fault); // 29, 60.4 %
        assert_eq!(sev(7.0), Severity::Warn); // 28, 58 %
                                              // 90 % is near full, 89.9 is not
        assert_eq!(run(&RULE, &pumps(|_| 90.0, 0.0, reset), &Params::default()).severity, Severity::Fault);
        assert_eq!(run(&RULE, &pumps(|_| 89.9, 0.0, reset), &Params::default()).severity, Severity::Ok);
        // near the minimum at a fixed band: 35 % for half the day
        let low = |x: f64| if x < 12.0 { 35.0 } else { 70.0 };
        assert_eq!(run(&RULE, &pumps(low, 0.0, reset), &numbers(&[("near_min_pct", 35.0)])).severity, Severity::Warn);
        assert_eq!(run(&RULE, &pumps(low, 0.0, reset), &numbers(&[("near_min_pct", 34.9)])).severity, Severity::Ok);
        // "auto" with no plateau falls back to 25 %
        let r =
            run(&RULE, &pumps(modulating, 0.0, reset), &with(&[("near_min_pct", ParamValue::Choice("auto".into()))]));
        assert_eq!((r.metrics["near_min_band_pct"], r.metrics.contains_key("vfd_floor_pct")), (25.0, false));
        // floor_tol_pct widens the learned band
        let r =
            run(&RULE, &pumps(|h| if h < 14.0 { 30.0 } else { 70.0 }, 0.0, reset), &numbers(&[("floor_tol_pct", 3.0)]));
        assert_eq!(r.metrics["near_min_band_pct"], 33.0);
        // a setpoint that barely moves is flat
        let r = run(&RULE, &pumps(modulating, 0.0, |h| 10.0 + 0.04 * (h - 6.0)), &Params::default());
        assert_eq!(r.metrics["dp_sp_reset_present"], 0.0);
    }

    #[test]
    fn stopped_pumps_are_not_judged() {
        // parked at 34.5 % while stopped (a drive holding its last output): with the status,
        // those hours are stopped; without it, they read as running at the floor
        let f = pumps(modulating, 34.5, reset);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["n_stopped_speed_above_run"]), (Severity::Ok, (7 * 48) as f64));
        let mut blind = f.clone();
        blind.cols.remove("pump_status");
        let r = run(&RULE, &blind, &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("no pump run status")));
        // never running
        let off = pumps(|_| 0.0, 0.0, reset);
        assert_eq!(run(&RULE, &off, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn uneven_sampling_gaps_disorder_and_a_fraction_scale() {
        // near full logged every minute for 20 minutes each morning, 60 % every 15 minutes
        // after: by count three in ten, by time a twentieth
        let mut ts = Vec::new();
        for d in 0..7 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..20).map(|m| day + 6 * H + m * MINUTE));
            ts.extend((0..46).map(|k| day + 6 * H + 30 * MINUTE + k * 15 * MINUTE));
        }
        let early = |t: i64| (t - MONDAY) % (24 * H) < 6 * H + 20 * MINUTE;
        let f = Frame::from_rows(
            &ts,
            &[("chw_pump_speed", ts.iter().map(|&t| if early(t) { 95.0 } else { 60.0 }).collect())],
        );
        let r = run(&RULE, &f, &Params::default());
        assert!(r.metrics["pct_running_near_full"] < 6.0, "{:?}", r.metrics);
        assert_eq!(r.severity, Severity::Ok);
        let base = pumps(|h| if h < 11.0 { 95.0 } else { 60.0 }, 0.0, reset);
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(96..288).contains(i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (a, b) = (run(&RULE, &base, &Params::default()), run(&RULE, &gappy, &Params::default()));
        assert_eq!(a.metrics["pct_running_near_full"], b.metrics["pct_running_near_full"]);
        let m = run(&RULE, &shuffled_with_duplicates(&base), &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (m.severity, &m.metrics, &m.flagged));
        // a 0-1 speed reads as a percentage
        let mut frac = base.clone();
        frac.cols.insert("chw_pump_speed".into(), base.cols["chw_pump_speed"].iter().map(|v| v / 100.0).collect());
        assert_eq!(
            run(&RULE, &frac, &Params::default()).metrics["pct_running_near_full"],
            a.metrics["pct_running_near_full"]
        );
    }

    #[test]
    fn missing_speed_skips_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("pump_status", vec![1.0, 1.0])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["chw_pump_speed".into()] });
        for f in [
            Frame::default(),
            Frame::from_rows(&[0], &[("chw_pump_speed", vec![50.0])]),
            Frame::from_rows(
                &every(0, H, 10),
                &[("chw_pump_speed", vec![50.0; 10]), ("pump_status", vec![f64::NAN; 10])],
            ),
            Frame::from_rows(
                &every(0, H, 10),
                &[("chw_pump_speed", vec![50.0; 10]), ("chw_diff_press_sp", vec![f64::NAN; 10])],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
    }
}
