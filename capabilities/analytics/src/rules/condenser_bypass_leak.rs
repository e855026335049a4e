//! `condenser_bypass_leak`: a condenser-water tower-bypass valve that leaks or does not seat.
//! With the bypass commanded shut all the condenser water goes through the towers, so the water
//! entering the chillers' condensers equals the water leaving the towers to within the sensors'
//! accuracy; a leaking valve mixes warm condenser return back in, and the chillers see warmer
//! water (more lift, more kW/ton) than the tower controls, holding their own leaving water, can
//! see. Judged on the samples with the bypass at or below `closed_pct` while a chiller runs (its
//! status, else its power above a tenth of its 95th-percentile draw on a frame with chilled-water
//! points; without either every shut sample, with a caveat) and both temperatures read. The
//! median of entering minus tower-leaving warns from `warn_f` and faults from `fault_f`. With the
//! condenser return trended, the bypassed share of the flow is estimated ((entering - leaving) /
//! (return - leaving)), and a leak is told from a sensor offset: mixed-in return water grows with
//! the condenser range, an offset does not, so a difference that does not grow with the range
//! (slope under 0.05 per °F, the intercept carrying half of it or more), or entering water
//! colder than the tower's leaving water (which mixing cannot make), is an offset: info, not a
//! leak.
//!
//! Unlike the reference, the median, the warm share and the regression are of time (each sample
//! weighs the time it stands for).

use std::collections::BTreeMap;

use crate::chiller::{chiller_running, POWER_RUN_FRAC};
use crate::engine::{
    as_percent, round2, severity_of, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule,
    RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The condenser range (°F) its spread must reach to regress on, and the slope under which a
/// difference is an offset.
const MIN_RANGE_SPAN_F: f64 = 2.0;
const OFFSET_MAX_SLOPE: f64 = 0.05;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "condenser_bypass_leak",
        families: &["chw_plant", "cooling_tower"],
        inputs: Inputs {
            required: &["cw_bypass_valve", "cw_supply_temp", "cond_entering_water_temp"],
            optional: &["cw_return_temp", "compressor_status", "power", "chw_supply_temp"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "closed_pct",
                2.0,
                "% valve command",
                (0.0, 10.0),
                "a command at or below a couple of percent is shut",
                "Set it to the command the controller writes when the bypass is fully closed, plus a little for analog noise; a controller that parks at a few percent needs more.",
            ),
            ParamSpec::number(
                "warn_f",
                2.0,
                "°F",
                (1.0, 5.0),
                "twice the combined ±0.5 °F accuracy of two plant sensors: a screening level",
                "Compare the two sensors over a known-good period with the bypass shut (after a valve rebuild, say) and set this above their median difference plus their combined accuracy. It also gates both offset tests.",
            ),
            ParamSpec::number(
                "fault_f",
                5.0,
                "°F",
                (2.0, 15.0),
                "five degrees of warmer entering water costs a chiller roughly 5-8 % more kW/ton: a screening level",
                "Set it at the entering-water rise worth a valve repair here, from the chillers' kW/ton sensitivity to condenser water (often 1-2 % per °F); keep it above warn_f.",
            ),
            ParamSpec::number(
                "min_samples",
                24.0,
                "count (samples)",
                (6.0, 500.0),
                "a day of hourly samples before judging",
                "Raise it for short intervals (96 for a day of 15-minute samples) or where the bypass is rarely shut while a chiller runs. It is also the count the bypassed-share estimate and the offset regression need.",
            ),
        ],
        judged_basis: "samples with the bypass commanded shut while a chiller runs",
    }
}

/// The least-squares line of y on x weighed by w: `(slope, intercept)`.
fn weighted_line(pts: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    let sw: f64 = pts.iter().map(|p| p.2).sum();
    if sw <= 0.0 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0 * p.2).sum::<f64>() / sw;
    let my = pts.iter().map(|p| p.1 * p.2).sum::<f64>() / sw;
    let sxx: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 1e-12 * sw).then(|| (sxy / sxx, my - sxy / sxx * mx))
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let p = |name: &str| params.number(spec, name);
    let valve = as_percent(frame.required("cw_bypass_valve"));
    let (leaving, entering) = (frame.required("cw_supply_temp"), frame.required("cond_entering_water_temp"));
    let mut caveats = Vec::new();
    // a power point is a chiller's only on a frame with chilled-water points
    let chw = ["chw_supply_temp", "chw_return_temp", "chw_flow"].iter().any(|r| frame.col(r).is_some());
    let running = match chiller_running(frame, f64::NAN, POWER_RUN_FRAC) {
        Some(r) if r.source.is_status() || chw => {
            caveats.extend(r.source.caveat().map(str::to_string));
            Some(r.on)
        }
        _ => {
            caveats.push("no chiller run status or power mapped: the shut-bypass samples include hours with no condenser flow, when the two temperatures need not agree".into());
            None
        }
    };
    let closed = p("closed_pct");
    let shut: Vec<usize> = (0..frame.len())
        .filter(|&i| valve[i] <= closed + 1e-9 && !leaving[i].is_nan() && !entering[i].is_nan())
        .filter(|&i| running.as_ref().is_none_or(|r| r[i]))
        .collect();
    let n = shut.len();
    let min_samples = p("min_samples");
    let mut metrics = BTreeMap::new();
    metrics.insert("n_shut".into(), n as f64);
    metrics.insert("closed_pct".into(), closed);
    if (n as f64) < min_samples {
        let mut f = Finding::not_judged(
            spec,
            &format!("{n} samples with the bypass commanded shut while a chiller ran; it needs {min_samples:.0}"),
        );
        f.caveats.extend(caveats);
        f.metrics = metrics;
        f.judged = n;
        return Outcome::Findings(vec![f]);
    }
    let weights = frame.weights_hours();
    let d = |i: usize| entering[i] - leaving[i];
    let warn_f = p("warn_f");
    let total: f64 = shut.iter().map(|&i| weights[i]).sum();
    let med = weighted_quantile(&mut shut.iter().map(|&i| (d(i), weights[i])).collect(), 0.5);
    let p90 = weighted_quantile(&mut shut.iter().map(|&i| (d(i), weights[i])).collect(), 0.9);
    const EPS: f64 = 1e-9;
    let warm: Vec<u32> = shut.iter().copied().filter(|&i| d(i) + EPS >= warn_f).map(|i| i as u32).collect();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let warm_share = warm.iter().map(|&i| weights[i as usize]).sum::<f64>() / total + 0.0;
    metrics.insert("median_diff_f".into(), round2(med));
    metrics.insert("p90_diff_f".into(), round2(p90));
    metrics.insert("warm_share".into(), (warm_share * 10_000.0).round() / 10_000.0);
    // with the condenser return: the bypassed share and whether the difference grows with range
    let mut line = None;
    if let Some(ret) = frame.col("cw_return_temp") {
        let ranged: Vec<usize> = shut.iter().copied().filter(|&i| ret[i] - leaving[i] > 1.0).collect();
        if (ranged.len() as f64) >= min_samples {
            let frac = weighted_quantile(
                &mut ranged.iter().map(|&i| ((d(i) / (ret[i] - leaving[i])).max(0.0), weights[i])).collect(),
                0.5,
            );
            metrics.insert("bypass_fraction_est".into(), (frac * 1000.0).round() / 1000.0);
            let pts: Vec<(f64, f64, f64)> = ranged.iter().map(|&i| (ret[i] - leaving[i], d(i), weights[i])).collect();
            let mut xs: Vec<(f64, f64)> = pts.iter().map(|p| (p.0, p.2)).collect();
            let span = weighted_quantile(&mut xs.clone(), 0.95) - weighted_quantile(&mut xs, 0.05);
            if span >= MIN_RANGE_SPAN_F {
                line = weighted_line(&pts);
                if let Some((s, c)) = line {
                    metrics.insert("diff_per_range_slope".into(), (s * 1000.0).round() / 1000.0);
                    metrics.insert("diff_intercept_f".into(), round2(c));
                }
            }
        }
    }
    let frac = metrics.get("bypass_fraction_est").copied();
    let info = |summary: String, caveats: Vec<String>, metrics: BTreeMap<String, f64>| {
        Outcome::Findings(vec![Finding::new(spec, Severity::Info, summary)
            .with_caveats(caveats)
            .with_metrics(metrics)
            .with_judged(n)])
    };
    if let Some((s, c)) = line.filter(|&(s, c)| med + EPS >= warn_f && s < OFFSET_MAX_SLOPE && c >= 0.5 * med) {
        caveats.push(format!("the difference does not grow with the condenser range (slope {s:.2} per °F, intercept {c:+.1} °F): return water mixed in would scale with the range, a sensor offset does not; check the tower leaving-water and condenser entering-water sensors before the valve"));
        metrics.insert("sensor_offset".into(), 1.0);
        return info(
            format!("condenser water enters the chillers {med:+.1} °F from the towers' leaving water with the bypass shut, the same at every load: a sensor offset, not a bypass leak"),
            caveats,
            metrics,
        );
    }
    if med <= -warn_f + EPS {
        caveats.push("condenser water enters the chillers colder than it leaves the towers with the bypass shut: mixing can only warm it, so one of the two sensors is off".into());
        metrics.insert("sensor_offset".into(), 1.0);
        return info(
            format!("condenser water enters the chillers {med:+.1} °F from the towers' leaving water with the bypass shut: a sensor offset, not a leak"),
            caveats,
            metrics,
        );
    }
    if line.is_none() && med + EPS >= warn_f {
        caveats.push("no condenser return temperature (or too little range): a leak cannot be told from an offset between the two sensors".into());
    }
    let severity = severity_of(med + EPS, warn_f, p("fault_f"));
    let mut summary = format!(
        "with the tower bypass commanded shut, condenser water enters the chillers {med:+.1} °F from the towers' leaving water (median of {n} samples; {:.0} % of the time {warn_f} °F or more){}",
        100.0 * warm_share,
        frac.filter(|f| *f > 0.0).map_or(String::new(), |f| format!("; about {:.0} % of the condenser flow bypassing", 100.0 * f))
    );
    if severity >= Severity::Warn {
        summary.push_str(": the bypass valve is leaking or not seating");
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(if severity >= Severity::Warn { warm } else { Vec::new() })
        .with_judged(n)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A week at 15 minutes: a chiller running 6:00-18:00 by its status, the bypass shut
    /// (0 %) then and at 40 % otherwise; the towers leave at 80 °F, the condenser range swings
    /// 6-12 °F through the day, and a share `leak` of the return is mixed into the entering water
    /// plus a sensor `offset`.
    fn plant(leak: f64, offset: f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let on: Vec<bool> = hour.iter().map(|h| (6.0..18.0).contains(h)).collect();
        let range: Vec<f64> = hour.iter().map(|h| 6.0 + 6.0 * ((h - 6.0) / 12.0).clamp(0.0, 1.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("cw_bypass_valve", on.iter().map(|o| if *o { 0.0 } else { 40.0 }).collect()),
                ("cw_supply_temp", vec![80.0; n]),
                ("cw_return_temp", range.iter().map(|r| 80.0 + r).collect()),
                ("cond_entering_water_temp", range.iter().map(|r| 80.0 + leak * r + offset).collect()),
                ("compressor_status", on.iter().map(|o| f64::from(u8::from(*o))).collect()),
            ],
        )
    }

    #[test]
    fn a_tight_valve_is_ok_and_a_leaking_one_is_found() {
        let r = run(&RULE, &plant(0.0, 0.3), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.judged, r.metrics["median_diff_f"]), (7 * 48, 0.3));
        // a third of the flow bypassing: 2-4 °F warmer, a warning, with its share estimated
        let r = run(&RULE, &plant(1.0 / 3.0, 0.0), &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!((r.metrics["bypass_fraction_est"] - 0.333).abs() < 1e-9, "{:?}", r.metrics);
        assert!(r.metrics["diff_per_range_slope"] > 0.3);
        let r = run(&RULE, &plant(0.6, 0.0), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.flagged.len(), 7 * 48);
    }

    #[test]
    fn an_offset_is_told_from_a_leak() {
        // 3 °F at every range: an offset, info
        let r = run(&RULE, &plant(0.0, 3.0), &Params::default());
        assert_eq!((r.severity, r.metrics["sensor_offset"]), (Severity::Info, 1.0), "{}", r.summary);
        // colder entering water than leaving: an offset
        let r = run(&RULE, &plant(0.0, -2.5), &Params::default());
        assert_eq!(r.severity, Severity::Info);
        // without the return the two cannot be told apart: judged, and said so
        let mut f = plant(0.0, 3.0);
        f.cols.remove("cw_return_temp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Warn);
        assert!(r.caveats.iter().any(|c| c.contains("cannot be told")), "{:?}", r.caveats);
    }

    #[test]
    fn the_levels_at_their_boundaries() {
        let mut f = plant(0.0, 0.0);
        let at = |f: &mut Frame, diff: f64, p: &Params| {
            f.cols.remove("cw_return_temp");
            f.cols.insert("cond_entering_water_temp".into(), vec![80.0 + diff; f.len()]);
            run(&RULE, f, p).severity
        };
        let d = Params::default();
        assert_eq!(at(&mut f, 2.0, &d), Severity::Warn);
        assert_eq!(at(&mut f, 1.99, &d), Severity::Ok);
        assert_eq!(at(&mut f, 5.0, &d), Severity::Fault);
        assert_eq!(at(&mut f, 4.99, &d), Severity::Warn);
        assert_eq!(at(&mut f, 2.5, &numbers(&[("warn_f", 3.0)])), Severity::Ok);
        assert_eq!(at(&mut f, 4.0, &numbers(&[("fault_f", 4.0)])), Severity::Fault);
        // closed_pct: a valve parked at 3 % is not shut by default
        let mut g = plant(0.6, 0.0);
        let v: Vec<f64> = g.cols["cw_bypass_valve"].iter().map(|v| if *v == 0.0 { 3.0 } else { *v }).collect();
        g.cols.insert("cw_bypass_valve".into(), v);
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Info);
        assert_eq!(run(&RULE, &g, &numbers(&[("closed_pct", 3.0)])).severity, Severity::Fault);
        // min_samples: 336 shut samples
        assert_eq!(run(&RULE, &plant(0.6, 0.0), &numbers(&[("min_samples", 336.0)])).severity, Severity::Fault);
        assert_eq!(run(&RULE, &plant(0.6, 0.0), &numbers(&[("min_samples", 337.0)])).severity, Severity::Info);
    }

    #[test]
    fn stopped_chillers_are_not_judged_and_the_gate_falls_back() {
        // the bypass shut around the clock; stopped, the two temperatures drift apart
        let mut f = plant(0.0, 0.0);
        let on = f.cols["compressor_status"].clone();
        f.cols.insert("cw_bypass_valve".into(), vec![0.0; f.len()]);
        f.cols
            .insert("cond_entering_water_temp".into(), on.iter().map(|o| if *o > 0.5 { 80.2 } else { 88.0 }).collect());
        f.cols.remove("cw_return_temp");
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // power on a chilled-water frame gates it too
        let mut p = f.clone();
        p.cols.remove("compressor_status");
        p.cols.insert("power".into(), on.iter().map(|o| if *o > 0.5 { 200.0 } else { 3.0 }).collect());
        p.cols.insert("chw_supply_temp".into(), vec![44.0; p.len()]);
        assert_eq!(run(&RULE, &p, &Params::default()).severity, Severity::Ok);
        // without a chilled-water point the power is not read as a chiller's: every shut sample
        p.cols.remove("chw_supply_temp");
        let r = run(&RULE, &p, &Params::default());
        assert!(r.severity >= Severity::Warn, "{}", r.summary);
        assert!(r.caveats.iter().any(|c| c.contains("no chiller run status or power")));
    }

    #[test]
    fn uneven_sampling_gaps_and_disorder() {
        // a warm entering water logged every minute for 20 minutes each morning, a tight one
        // every 15 minutes after: by count three in ten, by time a twentieth
        let mut ts = Vec::new();
        for d in 0..7 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..20).map(|m| day + 6 * H + m * MINUTE));
            ts.extend((0..46).map(|k| day + 6 * H + 30 * MINUTE + k * 15 * MINUTE));
        }
        let n = ts.len();
        let early = |t: i64| (t - MONDAY) % (24 * H) < 6 * H + 20 * MINUTE;
        let f = Frame::from_rows(
            &ts,
            &[
                ("cw_bypass_valve", vec![0.0; n]),
                ("cw_supply_temp", vec![80.0; n]),
                ("cond_entering_water_temp", ts.iter().map(|&t| if early(t) { 86.0 } else { 80.3 }).collect()),
                ("compressor_status", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["median_diff_f"]), (Severity::Ok, 0.3));
        assert!(r.metrics["warm_share"] < 0.06, "{:?}", r.metrics);
        let base = plant(0.5, 0.0);
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(96..288).contains(i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (a, b) = (run(&RULE, &base, &Params::default()), run(&RULE, &gappy, &Params::default()));
        assert_eq!((a.severity, a.metrics["median_diff_f"]), (b.severity, b.metrics["median_diff_f"]));
        let m = run(&RULE, &shuffled_with_duplicates(&base), &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (m.severity, &m.metrics, &m.flagged));
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("cw_supply_temp", vec![80.0, 80.0]), ("cw_bypass_valve", vec![0.0, 0.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["cond_entering_water_temp".into()] }
        );
        let one = |v: f64| vec![v];
        for f in [
            Frame::default(),
            Frame::from_rows(
                &[0],
                &[
                    ("cw_bypass_valve", one(0.0)),
                    ("cw_supply_temp", one(80.0)),
                    ("cond_entering_water_temp", one(81.0)),
                ],
            ),
            Frame::from_rows(
                &every(0, H, 30),
                &[
                    ("cw_bypass_valve", vec![0.0; 30]),
                    ("cw_supply_temp", vec![80.0; 30]),
                    ("cond_entering_water_temp", vec![f64::NAN; 30]),
                ],
            ),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
    }
}
