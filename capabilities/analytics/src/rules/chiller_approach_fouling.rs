//! `chiller_approach_fouling`: a chiller's heat exchanger fouled, read from its approach (the gap
//! between the refrigerant's saturation temperature and the water leaving the barrel), which
//! widens as condenser tubes scale or, on the evaporator, as charge or flow degrade. The
//! chiller's controller reports both approaches; an approach means nothing while the compressor
//! is off, so they are read over the running samples (the run status, else the power above a
//! tenth of its 95th-percentile draw: [`crate::chiller::chiller_running`]; with neither, every
//! sample, with a caveat). The median of each leg against its design, the worse of the two:
//! warn at 1.5 times design, fault at twice it.
//!
//! Unlike the reference, the medians are of time (each sample weighs the time it stands for),
//! and the power gate reads the 95th percentile of the samples drawing power.

use std::collections::BTreeMap;

use crate::chiller::{chiller_running, POWER_RUN_FRAC};
use crate::engine::{
    round2, severity_of, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The median approach over design that warns, and that faults.
const WARN_RATIO: f64 = 1.5;
const FAULT_RATIO: f64 = 2.0;

/// The caveat of a chiller with no run signal.
const NO_GATE_CAVEAT: &str = "no chiller run status or power mapped: the medians read every trended approach sample, including any the controller reports with the compressor off (map compressor_status)";

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chiller_approach_fouling",
        families: &["chw_plant"],
        inputs: Inputs {
            required: &["cond_approach_temp"],
            optional: &["evap_approach_temp", "compressor_status", "power"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "cond_design_f",
                5.0,
                "°F",
                (1.0, 10.0),
                "a clean-tube condenser approach is typically a few degrees; 5 °F is a common selection",
                "Take the condenser approach from the chiller's selection report or start-up log, or the median of a period just after a tube cleaning at a similar load.",
            ),
            ParamSpec::number(
                "evap_design_f",
                4.0,
                "°F",
                (0.5, 8.0),
                "a clean evaporator with a correct charge and flow holds a small approach; 4 °F is a common ceiling",
                "Take the evaporator approach from the selection report or start-up log, or the median of a known-good period with a correct charge and flow.",
            ),
        ],
        judged_basis: "running samples with an approach read",
    }
}

/// One leg's median and ratio over the judged samples, `None` without a reading there.
fn leg(col: Option<&[f64]>, judged: &[bool], weights: &[f64], design: f64) -> Option<(f64, f64, usize)> {
    let c = col?;
    let mut pairs: Vec<(f64, f64)> =
        (0..c.len()).filter(|&i| judged[i] && !c[i].is_nan()).map(|i| (c[i], weights[i])).collect();
    let n = pairs.len();
    if n == 0 {
        return None;
    }
    let median = weighted_quantile(&mut pairs, 0.5);
    Some((median, median / design, n))
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let cond = frame.required("cond_approach_temp");
    let evap = frame.col("evap_approach_temp");
    let (cond_design, evap_design) = (params.number(spec, "cond_design_f"), params.number(spec, "evap_design_f"));
    let mut caveats = Vec::new();
    let running = chiller_running(frame, f64::NAN, POWER_RUN_FRAC);
    let judged: Vec<bool> = match &running {
        Some(r) => {
            caveats.extend(r.source.caveat().map(str::to_string));
            if !r.on.iter().any(|x| *x) {
                let mut f = Finding::not_judged(spec, &format!("the chiller never ran ({} gate)", r.source.name()));
                f.caveats.extend(caveats);
                return Outcome::Findings(vec![f]);
            }
            r.on.clone()
        }
        None => {
            caveats.push(NO_GATE_CAVEAT.to_string());
            vec![true; frame.len()]
        }
    };
    let weights = frame.weights_hours();
    let c = leg(Some(cond), &judged, &weights, cond_design);
    let e = leg(evap, &judged, &weights, evap_design);
    if c.is_none() && e.is_none() {
        let mut f = Finding::not_judged(spec, "no approach was read while the chiller ran");
        f.caveats.extend(caveats);
        return Outcome::Findings(vec![f]);
    }
    let worst = [c, e].iter().flatten().map(|l| l.1).fold(f64::NEG_INFINITY, crate::engine::max_of);
    // a hair of tolerance: temperatures are decimals stored in binary
    const EPS: f64 = 1e-9;
    let severity = severity_of(worst + EPS, WARN_RATIO, FAULT_RATIO);
    let mut metrics = BTreeMap::new();
    metrics.insert("worst_approach_ratio".into(), round2(worst));
    let mut legs = Vec::new();
    let mut n_judged = 0;
    if let Some((m, r, n)) = c {
        metrics.insert("cond_approach_f".into(), round2(m));
        metrics.insert("cond_design_f".into(), cond_design);
        legs.push(format!("condenser {m:.1} °F ({r:.2} x its {cond_design} °F design)"));
        n_judged = n_judged.max(n);
    }
    if let Some((m, r, n)) = e {
        metrics.insert("evap_approach_f".into(), round2(m));
        metrics.insert("evap_design_f".into(), evap_design);
        legs.push(format!("evaporator {m:.1} °F ({r:.2} x its {evap_design} °F design)"));
        n_judged = n_judged.max(n);
    }
    metrics.insert("n_judged".into(), n_judged as f64);
    // the samples with either leg at the warning ratio
    let wide = |col: Option<&[f64]>, design: f64, i: usize| col.is_some_and(|v| v[i] + EPS >= WARN_RATIO * design);
    let flagged: Vec<u32> = (0..frame.len())
        .filter(|&i| judged[i] && (wide(Some(cond), cond_design, i) || wide(evap, evap_design, i)))
        .map(|i| i as u32)
        .collect();
    let summary = format!(
        "median approach while running: {}{}",
        legs.join("; "),
        if severity >= Severity::Warn { " (a fouled heat exchanger widens its approach)" } else { "" }
    );
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(n_judged)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A week at 15 minutes, the chiller on 6:00-18:00 each day by its status; the approaches
    /// `cond` and `evap` while it runs, logged only then.
    fn chiller(cond: f64, evap: f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let on: Vec<bool> = (0..n).map(|i| (24..72).contains(&(i % 96))).collect();
        let logged = |v: f64| on.iter().map(|o| if *o { v } else { f64::NAN }).collect::<Vec<f64>>();
        Frame::from_rows(
            &ts,
            &[
                ("cond_approach_temp", logged(cond)),
                ("evap_approach_temp", logged(evap)),
                ("compressor_status", on.iter().map(|o| f64::from(u8::from(*o))).collect()),
            ],
        )
    }

    #[test]
    fn a_clean_chiller_is_ok_and_a_fouled_condenser_faults() {
        let r = run(&RULE, &chiller(2.8, 1.8), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.metrics["cond_approach_f"], r.metrics["worst_approach_ratio"]), (2.8, 0.56));
        assert_eq!(r.judged, 7 * 48);
        assert!(r.flagged.is_empty() && r.caveats.is_empty());
        let r = run(&RULE, &chiller(10.4, 1.8), &Params::default());
        assert_eq!((r.severity, r.metrics["worst_approach_ratio"]), (Severity::Fault, 2.08));
        assert_eq!(r.flagged.len(), 7 * 48);
        // the evaporator leg alone
        assert_eq!(run(&RULE, &chiller(2.8, 6.5), &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn the_ratios_at_their_boundaries() {
        let sev = |c: f64, e: f64, p: &Params| run(&RULE, &chiller(c, e), p).severity;
        let d = Params::default();
        assert_eq!(sev(7.5, 1.0, &d), Severity::Warn);
        assert_eq!(sev(7.49, 1.0, &d), Severity::Ok);
        assert_eq!(sev(10.0, 1.0, &d), Severity::Fault);
        assert_eq!(sev(9.99, 1.0, &d), Severity::Warn);
        assert_eq!(sev(2.0, 6.0, &d), Severity::Warn);
        assert_eq!(sev(2.0, 8.0, &d), Severity::Fault);
        // the designs move them
        assert_eq!(sev(7.5, 1.0, &numbers(&[("cond_design_f", 6.0)])), Severity::Ok);
        assert_eq!(sev(9.0, 1.0, &numbers(&[("cond_design_f", 4.5)])), Severity::Fault);
        assert_eq!(sev(2.0, 6.0, &numbers(&[("evap_design_f", 4.1)])), Severity::Ok);
    }

    #[test]
    fn stopped_samples_are_not_judged_and_the_gate_falls_back() {
        // the controller keeps reporting a wide approach while stopped: not judged
        let mut f = chiller(3.0, 1.5);
        let on = f.cols["compressor_status"].clone();
        f.cols.insert("cond_approach_temp".into(), on.iter().map(|o| if *o > 0.5 { 3.0 } else { 15.0 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Ok);
        // by power, with a caveat
        let mut p = f.clone();
        p.cols.remove("compressor_status");
        p.cols.insert("power".into(), on.iter().map(|o| if *o > 0.5 { 200.0 } else { 4.0 }).collect());
        let r = run(&RULE, &p, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats.iter().any(|c| c.contains("power above a tenth")), "{:?}", r.caveats);
        // neither: every sample, said so (here half of them stopped, which pull the median to
        // 9 °F, a warning)
        p.cols.remove("power");
        let r = run(&RULE, &p, &Params::default());
        assert_eq!((r.severity, r.metrics["cond_approach_f"]), (Severity::Warn, 9.0));
        assert!(r.caveats.iter().any(|c| c.contains("no chiller run status or power")));
        // never ran
        f.cols.insert("compressor_status".into(), vec![0.0; f.len()]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn uneven_sampling_gaps_and_disorder() {
        // a wide approach logged every minute for the first 20 minutes of each run, a clean one
        // every 15 minutes after: by count three in ten, by time a twentieth
        let mut ts = Vec::new();
        for d in 0..7 {
            let day = MONDAY + d * 24 * H;
            ts.extend((0..20).map(|m| day + 6 * H + m * MINUTE));
            ts.extend((0..46).map(|k| day + 6 * H + 30 * MINUTE + k * 15 * MINUTE));
        }
        let n = ts.len();
        let cond: Vec<f64> =
            ts.iter().map(|&t| if (t - MONDAY) % (24 * H) < 6 * H + 20 * MINUTE { 12.0 } else { 3.0 }).collect();
        let f = Frame::from_rows(&ts, &[("cond_approach_temp", cond), ("compressor_status", vec![1.0; n])]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["cond_approach_f"]), (Severity::Ok, 3.0));
        // two days missing: the same medians on the rest
        let base = chiller(10.4, 1.8);
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(96..288).contains(i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let g = run(&RULE, &gappy, &Params::default());
        assert_eq!((g.severity, g.judged, g.metrics["cond_approach_f"]), (Severity::Fault, 5 * 48, 10.4));
        let (a, b) =
            (run(&RULE, &base, &Params::default()), run(&RULE, &shuffled_with_duplicates(&base), &Params::default()));
        assert_eq!((a.severity, &a.metrics, &a.flagged), (b.severity, &b.metrics, &b.flagged));
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("evap_approach_temp", vec![2.0, 2.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["cond_approach_temp".into()] }
        );
        for f in [
            Frame::default(),
            Frame::from_rows(&[0], &[("cond_approach_temp", vec![3.0])]),
            Frame::from_rows(&every(0, H, 10), &[("cond_approach_temp", vec![3.0; 10]), ("power", vec![0.0; 10])]),
        ] {
            let _ = outcome(&RULE, &f, &Params::default());
        }
        // logged only while stopped: nothing read while running
        let f = Frame::from_rows(
            &every(0, H, 4),
            &[
                ("cond_approach_temp", vec![3.0, f64::NAN, 3.0, f64::NAN]),
                ("compressor_status", vec![0.0, 1.0, 0.0, 1.0]),
            ],
        );
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Info);
    }
}
