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
//! The speeds are read with [`crate::pump_speed`], as `hw_pump_dp_reset` reads its pump's.
//!
//! Unlike the reference, the shares and percentiles are of time (each sample weighs the time it
//! stands for), and a speed trended as a 0-1 fraction is read as a percentage.

use std::collections::BTreeMap;

use crate::engine::{round2, severity_of, Finding, Frame, Inputs, Outcome, ParamValue, Params, Rule, RuleSpec};
use crate::pump_speed::{analyze, Band, NEAR_FULL_PCT};
use crate::rules::hw_pump_dp_reset::{floor_tol_param, near_min_param};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// Shares of running time near full (%) that warn and fault; near the minimum, that warns.
const FULL_WARN_PCT: f64 = 30.0;
const FULL_FAULT_PCT: f64 = 60.0;
const MIN_WARN_PCT: f64 = 50.0;

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
            near_min_param(
                ParamValue::Choice("auto".into()),
                "a drive's minimum speed is its own: \"auto\" learns it from the pile-up of running speeds at the bottom rather than assume 25 %",
            ),
            floor_tol_param(),
        ],
        judged_basis: "samples with the pumps running (their status, and a speed above 5 %)",
    }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let near_min = match params.word(spec, "near_min_pct") {
        Some(_) => None,
        None => Some(params.number(spec, "near_min_pct")),
    };
    let tol = params.number(spec, "floor_tol_pct");
    let mut caveats = Vec::new();
    let Some(p) = analyze(frame, "chw_pump_speed", "chw_diff_press_sp", near_min, tol) else {
        if frame.col("pump_status").is_none() {
            caveats.push(NO_STATUS_CAVEAT.to_string());
        }
        return Outcome::Findings(vec![
            Finding::not_judged(spec, "the pumps never ran (speed above 5 %)").with_caveats(caveats)
        ]);
    };
    match p.n_parked {
        None => caveats.push(NO_STATUS_CAVEAT.to_string()),
        Some(k) if k > 0 => caveats.push(format!(
            "{k} samples read a speed above 5 % while the pump status says stopped (a parked speed point): judged as stopped"
        )),
        Some(_) => {}
    }
    let (pct_full, pct_min) = (p.near_full_pct, p.near_min_pct);
    // a pump at its minimum warns at most
    let severity = severity_of(pct_full + 1e-9, FULL_WARN_PCT, FULL_FAULT_PCT).max(severity_of(
        pct_min + 1e-9,
        MIN_WARN_PCT,
        f64::INFINITY,
    ));
    let mut metrics = BTreeMap::new();
    let reset_note = match (p.dp_sp_reset, p.median_dp_sp) {
        (Some(reset), Some(med)) => {
            metrics.insert("median_dp_sp".into(), round2(med));
            metrics.insert("dp_sp_reset_present".into(), f64::from(u8::from(reset)));
            if reset {
                "the differential-pressure setpoint is reset".to_string()
            } else {
                format!("the differential-pressure setpoint is flat at {med:.1}")
            }
        }
        _ => {
            caveats.push(if frame.col("chw_diff_press_sp").is_some() {
                "the differential-pressure reset was not evaluated: too few running samples with a setpoint".to_string()
            } else {
                "the differential-pressure reset was not evaluated: no setpoint (chw_diff_press_sp)".to_string()
            });
            "the setpoint reset was not evaluated".to_string()
        }
    };
    metrics.insert("median_speed_pct".into(), round2(p.median_speed_pct));
    metrics.insert("pct_running_near_full".into(), round2(pct_full));
    metrics.insert("pct_running_near_min".into(), round2(pct_min));
    metrics.insert("near_min_band_pct".into(), round2(p.band_pct));
    if let Some(f) = p.vfd_floor_pct {
        metrics.insert("vfd_floor_pct".into(), round2(f));
    }
    metrics.insert("n_running".into(), p.running.len() as f64);
    metrics.insert("running_hours".into(), round2(p.running_hours));
    if let Some(k) = p.n_parked {
        metrics.insert("n_stopped_speed_above_run".into(), k as f64);
    }
    let floor_note = match (p.band, p.vfd_floor_pct) {
        (Band::Learned, Some(f)) => format!(", learned drive floor {f:.1} %"),
        (Band::Default, _) => ", no drive floor plateau found".to_string(),
        _ => String::new(),
    };
    let summary = format!(
        "pump median speed {:.0} %, {pct_full:.0} % of running time at {NEAR_FULL_PCT:.0} % or more and {pct_min:.0} % near the minimum (at or below {:.1} %{floor_note}); {reset_note}",
        p.median_speed_pct, p.band_pct
    );
    let mut flagged = Vec::new();
    if pct_full + 1e-9 >= FULL_WARN_PCT {
        flagged.extend(&p.near_full);
    }
    if pct_min + 1e-9 >= MIN_WARN_PCT {
        flagged.extend(&p.near_min);
    }
    flagged.sort_unstable();
    flagged.dedup();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(p.running.len())])
}

/// The caveat of a run read from the speed alone.
const NO_STATUS_CAVEAT: &str = "no pump run status (pump_status) mapped: running is read from speed above 5 %, so hours a stopped pump's speed point holds its last value cannot be ruled out and would count as running";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};
    use crate::engine::ParamValue;
    use crate::engine::Severity;

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
