//! `chiller_efficiency`: a chiller drawing more power per ton of cooling than its design (fouled
//! tubes, a low charge, a high lift from warm condenser water, poor staging). Its cooling is
//! metered from the chilled-water flow and loop temperatures (tons = gpm x delta-T / 24), so
//! kW/ton is measured, not inferred. Judged on the samples it runs loaded: at least 2 kW, a
//! delta-T of at least 0.5 °F and 5 tons (kW/ton explodes as the load goes to zero), with
//! readings in a plausible range (supply 35-60 °F, return 38-80 °F, kW/ton between 0 and 5), and
//! at [`MIN_LOAD_SHARE`] of its capacity or more (`design_tons`, else its own 98th-percentile
//! load): a healthy chiller unloaded below its rating points reads well above its design
//! figure (an air-cooled school chiller at 16 % load, 1.44 kW/ton against 1.19). The
//! median kW/ton warns at 1.2 times `design_kw_per_ton` and faults at 1.5 times it; the share of
//! loaded time above 1.15 times design is reported.
//!
//! Unlike the reference, the median and the shares are of time (each sample weighs the time it
//! stands for).
//!
//! **At its rating point.** A design kW/ton is stated at the rating point (44 °F leaving chilled
//! water with 85 °F condenser water, or 95 °F outdoor air for an air-cooled machine), and a
//! healthy chiller in mild weather draws much less: an air-cooled chiller at 70 °F outdoors
//! about two thirds of its rating. Where the condenser side is trended, each sample's kW/ton is
//! carried to the rating point by its lift ([`crate::chiller::lift_factor`]) before it is set
//! against the design, so a chiller at its nameplate figure on a mild day is seen to be
//! working a third too hard, and one on a hot day is not blamed for the weather. `condenser`
//! says which side: `auto` corrects a chiller with `cond_entering_water_temp` as water-cooled
//! and leaves one without it as measured (a site's outdoor air does not say a chiller is
//! air-cooled); `air` reads the outdoor air (`oat`, the chiller's own or the run config's
//! `shared_oat`).

use std::collections::BTreeMap;

use crate::chiller::{lift_factor, tons, Condenser};
use crate::engine::{
    round2, severity_of, weighted_quantile, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule,
    RuleSpec, Severity,
};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// Median kW/ton over design that warns, and that faults; kW/ton over design that counts as an
/// inefficient sample.
const WARN_RATIO: f64 = 1.2;
const FAULT_RATIO: f64 = 1.5;
const INEFFICIENT_RATIO: f64 = 1.15;
/// The loaded-running floors: power (kW), delta-T (°F) and load (tons).
const MIN_KW: f64 = 2.0;
const MIN_DT_F: f64 = 0.5;
const MIN_TONS: f64 = 5.0;
/// Fewest loaded samples judged.
const MIN_SAMPLES: usize = 10;
/// Loads below this share of the chiller's capacity are not judged against the design figure:
/// below its lowest rating points a chiller cycles or false-loads (hot-gas bypass), and its
/// kW/ton there climbs on a healthy machine.
pub const MIN_LOAD_SHARE: f64 = 0.4;
/// The percentile of loaded tons taken as the capacity when `design_tons` is not given.
const LEARNED_CAPACITY_PCTL: f64 = 98.0;

/// What a chiller's kW/ton is measured from (this rule's inputs and
/// [`super::chiller_efficiency_peers`]'s).
pub const INPUTS: Inputs = Inputs {
    required: &["power", "chw_supply_temp", "chw_return_temp", "chw_flow"],
    optional: &[],
    gating: &[],
    one_of: &[],
    needs_gating: false,
};

/// This rule's inputs: [`INPUTS`] and the condenser side its lift is read from.
const OWN_INPUTS: Inputs = Inputs { optional: &["cond_entering_water_temp", "oat"], ..INPUTS };

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "chiller_efficiency",
        families: &["chw_plant"],
        inputs: OWN_INPUTS,
        params: vec![
            ParamSpec::number(
                "design_tons",
                f64::NAN,
                "tons (unset: learned)",
                (5.0, 10_000.0),
                "unset: the capacity is learned as the 98th percentile of the chiller's own loaded tons, which reads low in a mild period",
                "Take the rated capacity from the chiller schedule or its nameplate.",
            ),
            ParamSpec::number(
            "design_kw_per_ton",
            0.85,
            "kW/ton",
            (0.4, 1.6),
            "a generic ceiling between a water-cooled centrifugal (about 0.5-0.6 kW/ton) and an air-cooled machine (about 1.0-1.2); a chiller's own schedule is better",
            "Use the chiller schedule or the manufacturer's selection at the loads it actually runs (its IPLV/NPLV points), or the median kW/ton of a known-good season after a tube cleaning. Calibrating on the period being judged hides a degradation already there.",
        ),
            ParamSpec {
                name: "condenser",
                default: ParamValue::Choice("auto".into()),
                unit: "choice",
                range: None,
                choices: &["auto", "water", "air", "none"],
                basis: "auto: a chiller with its entering condenser water trended is water-cooled and its kW/ton is carried to the 85 °F rating point by its lift; without it the kW/ton is judged as measured, since a site's outdoor air does not say the chiller is air-cooled",
                calibrate: "Set air for an air-cooled chiller (its kW/ton is then carried to the 95 °F rating point from the outdoor air: map the chiller's own ambient sensor as oat or give the run config a shared_oat), water for a water-cooled one, none to judge the kW/ton as measured.",
            },
        ],
        judged_basis: "samples with the chiller running loaded (2 kW, 0.5 °F delta-T and 5 tons or more)",
    }
}

/// A chiller's loaded running samples as `(index, kW/ton, tons)`: at least 2 kW, a delta-T of
/// 0.5 °F and 5 tons, with plausible loop temperatures and kW/ton; what this rule and
/// [`super::chiller_efficiency_peers`] judge.
pub fn loaded_kw_per_ton(kw: &[f64], chws: &[f64], chwr: &[f64], flow: &[f64]) -> Vec<(usize, f64, f64)> {
    (0..kw.len())
        .filter(|&i| {
            kw[i] >= MIN_KW
                && (35.0..=60.0).contains(&chws[i])
                && (38.0..=80.0).contains(&chwr[i])
                && flow[i] >= 0.0
                && chwr[i] - chws[i] >= MIN_DT_F
        })
        .map(|i| (i, tons(flow[i], chwr[i], chws[i])))
        .filter(|(_, t)| *t >= MIN_TONS)
        .map(|(i, t)| (i, kw[i] / t, t))
        .filter(|(_, k, _)| *k > 0.0 && *k < 5.0)
        .collect()
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (kw, chws, chwr, flow) = (
        frame.required("power"),
        frame.required("chw_supply_temp"),
        frame.required("chw_return_temp"),
        frame.required("chw_flow"),
    );
    let weights = frame.weights_hours();
    let design = params.number(spec, "design_kw_per_ton");
    let mut loaded = loaded_kw_per_ton(kw, chws, chwr, flow);
    // judged at the loads its design figure speaks for
    let rated = params.number(spec, "design_tons");
    let capacity = if rated > 0.0 {
        rated
    } else {
        let mut t: Vec<f64> = loaded.iter().map(|p| p.2).collect();
        t.sort_by(f64::total_cmp);
        crate::economizer::percentile(&t, LEARNED_CAPACITY_PCTL)
    };
    let low: f64 = loaded.iter().filter(|p| p.2 < MIN_LOAD_SHARE * capacity).map(|p| weights[p.0]).sum::<f64>() + 0.0;
    loaded.retain(|p| p.2 >= MIN_LOAD_SHARE * capacity);
    let mut caveats = Vec::new();
    if low > 0.0 {
        caveats.push(format!(
            "{low:.1} loaded h below {:.0} % of the chiller's capacity ({capacity:.0} tons, {}) were not judged: unloaded that far a chiller cycles or false-loads, and a healthy one's kW/ton climbs past its design figure",
            100.0 * MIN_LOAD_SHARE,
            if rated > 0.0 { "design_tons" } else { "learned as its 98th-percentile load; set design_tons" }
        ));
    }
    if loaded.len() < MIN_SAMPLES {
        let mut f = Finding::not_judged(spec, "fewer than ten samples with the chiller running loaded");
        f.judged = loaded.len();
        f.caveats.extend(caveats);
        return Outcome::Findings(vec![f]);
    }
    // each sample's kW/ton carried to the rating point, when the condenser side is trended
    let lift = lift_factors(params.choice(spec, "condenser").as_str(), frame, chws, &loaded, &mut caveats);
    if let Some(l) = &lift {
        loaded = l.iter().map(|p| loaded[p.0]).collect();
    }
    let factor: Vec<f64> = lift.as_ref().map_or_else(|| vec![1.0; loaded.len()], |l| l.iter().map(|p| p.1).collect());
    let rated: Vec<f64> = loaded.iter().zip(&factor).map(|(p, f)| p.1 * f).collect();
    let total: f64 = loaded.iter().map(|p| weights[p.0]).sum();
    let weighted = |v: &dyn Fn(usize) -> f64| {
        weighted_quantile(&mut (0..loaded.len()).map(|k| (v(k), weights[loaded[k].0])).collect(), 0.5)
    };
    let measured = weighted(&|k| loaded[k].1);
    let median = weighted(&|k| rated[k]);
    let tons_median = weighted(&|k| loaded[k].2);
    let peak = loaded.iter().map(|p| p.2).fold(f64::NEG_INFINITY, crate::engine::max_of);
    // a hair of tolerance: kW/ton is a ratio of decimals stored in binary
    const EPS: f64 = 1e-9;
    let inefficient: Vec<u32> = (0..loaded.len())
        .filter(|&k| rated[k] > INEFFICIENT_RATIO * design + EPS)
        .map(|k| loaded[k].0 as u32)
        .collect();
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    let ineff_h: f64 = inefficient.iter().map(|&i| weights[i as usize]).sum::<f64>() + 0.0;
    let pct = if total > 0.0 { 100.0 * ineff_h / total } else { 0.0 };
    let ratio = median / design;
    let severity = severity_of(ratio + EPS, WARN_RATIO, FAULT_RATIO);
    let mut metrics = BTreeMap::new();
    metrics.insert("kw_per_ton_median".into(), (measured * 1000.0).round() / 1000.0);
    metrics.insert("design_kw_per_ton".into(), design);
    metrics.insert("kw_per_ton_ratio".into(), round2(ratio));
    metrics.insert("tons_median".into(), round2(tons_median));
    metrics.insert("load_factor_median_pct".into(), round2(100.0 * tons_median / peak));
    metrics.insert("pct_hours_inefficient".into(), round2(pct));
    metrics.insert("n_running".into(), loaded.len() as f64);
    metrics.insert("running_hours".into(), round2(total));
    let summary = match &lift {
        None => format!(
            "median {median:.2} kW/ton against a design of {design:.2} ({pct:.0} % of loaded running time above {:.2}); median load {tons_median:.0} tons",
            INEFFICIENT_RATIO * design
        ),
        Some(l) => {
            let medium = weighted(&|k| l[k].2);
            let expected = weighted(&|k| design / factor[k]);
            metrics.insert("kw_per_ton_rated_median".into(), (median * 1000.0).round() / 1000.0);
            metrics.insert("expected_kw_per_ton".into(), (expected * 1000.0).round() / 1000.0);
            metrics.insert("lift_factor_median".into(), round2(weighted(&|k| factor[k])));
            metrics.insert("condenser_temp_median_f".into(), round2(medium));
            format!(
                "median {median:.2} kW/ton at its rating point against a design of {design:.2} ({measured:.2} measured, where a chiller at its design would draw {expected:.2} at a median {medium:.0} °F {}; {pct:.0} % of loaded running time above {:.2}); median load {tons_median:.0} tons",
                if l.first().is_some_and(|p| p.3 == Condenser::Air) { "outdoors" } else { "entering condenser water" },
                INEFFICIENT_RATIO * design
            )
        }
    };
    let flagged = if severity >= Severity::Warn { inefficient } else { Vec::new() };
    metrics.insert("capacity_tons".into(), round2(capacity));
    metrics.insert("below_min_load_hours".into(), round2(low));
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(loaded.len())])
}

/// Plausible condenser-side readings (°F): entering condenser water, and outdoor air.
const WATER_RANGE_F: (f64, f64) = (40.0, 110.0);
const AIR_RANGE_F: (f64, f64) = (-20.0, 125.0);

/// The lift factor of each loaded sample under `condenser` (the parameter's word), as
/// `(index into loaded, factor, condenser temperature, condenser)` over the samples with a
/// plausible condenser reading; `None` when the kW/ton is judged as measured (no correction
/// asked for, the condenser side not trended, or too few samples with it, each said in a
/// caveat).
fn lift_factors(
    condenser: &str,
    frame: &Frame,
    chws: &[f64],
    loaded: &[(usize, f64, f64)],
    caveats: &mut Vec<String>,
) -> Option<Vec<(usize, f64, f64, Condenser)>> {
    let water = frame.col("cond_entering_water_temp");
    let side = match condenser {
        "none" => return None,
        "air" => Condenser::Air,
        "water" => Condenser::Water,
        _ if water.is_some() => Condenser::Water,
        _ => return None,
    };
    let (role, (lo, hi)) = match side {
        Condenser::Water => ("cond_entering_water_temp", WATER_RANGE_F),
        Condenser::Air => ("oat", AIR_RANGE_F),
    };
    let Some(medium) = frame.col(role) else {
        caveats.push(format!(
            "kW/ton judged as measured, not at its rating point: no {role} to read the chiller's lift from"
        ));
        return None;
    };
    let out: Vec<_> = loaded
        .iter()
        .enumerate()
        .filter(|(_, p)| (lo..=hi).contains(&medium[p.0]))
        .map(|(k, p)| (k, lift_factor(side, chws[p.0], medium[p.0]), medium[p.0], side))
        .collect();
    if out.len() < MIN_SAMPLES {
        caveats.push(format!(
            "kW/ton judged as measured, not at its rating point: fewer than ten loaded samples with a plausible {role}"
        ));
        return None;
    }
    if out.len() < loaded.len() {
        caveats.push(format!("{} loaded samples without a plausible {role} were not judged", loaded.len() - out.len()));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, H, MINUTE, MONDAY};

    /// A week at 15 minutes: on 6:00-18:00 making 200-300 tons at `kwpt(hour)` kW/ton, off
    /// (3 kW standby, no flow) otherwise.
    fn chiller(kwpt: impl Fn(f64) -> f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hour: Vec<f64> = (0..n).map(|i| (i % 96) as f64 / 4.0).collect();
        let on: Vec<bool> = hour.iter().map(|h| (6.0..18.0).contains(h)).collect();
        let tons: Vec<f64> = hour.iter().map(|h| 200.0 + 100.0 * ((h - 6.0) / 12.0).clamp(0.0, 1.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("power", (0..n).map(|i| if on[i] { kwpt(hour[i]) * tons[i] } else { 3.0 }).collect()),
                ("chw_flow", (0..n).map(|i| if on[i] { 600.0 } else { 0.0 }).collect()),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", (0..n).map(|i| if on[i] { 44.0 + 24.0 * tons[i] / 600.0 } else { 44.5 }).collect()),
            ],
        )
    }

    /// A healthy chiller (0.6 kW/ton loaded) that spends most of its hours unloaded near 15 % of
    /// its 300 tons, false-loading at 1.5 kW/ton there.
    fn mostly_unloaded() -> Frame {
        let mut f = chiller(|_| 0.6);
        let (tons, kw): (Vec<f64>, Vec<f64>) =
            (0..f.len()).map(|i| if i % 3 == 0 { (45.0, 67.5) } else { (f64::NAN, f64::NAN) }).unzip();
        for i in 0..f.len() {
            if !tons[i].is_nan() && f.cols["chw_flow"][i] > 0.0 {
                f.cols.get_mut("chw_return_temp").unwrap()[i] = 44.0 + 24.0 * tons[i] / 600.0;
                f.cols.get_mut("power").unwrap()[i] = kw[i];
            }
        }
        f
    }

    #[test]
    fn loads_below_the_rating_points_are_not_judged_against_the_design() {
        let r = run(&RULE, &mostly_unloaded(), &numbers(&[("design_kw_per_ton", 0.6)]));
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["kw_per_ton_median"], 0.6);
        assert_eq!(r.judged, 7 * 48 - 7 * 16, "a third of the running samples are unloaded");
        assert!(r.caveats.iter().any(|c| c.contains("learned as its 98th-percentile load")), "{:?}", r.caveats);
        // the rated capacity given: 45 tons is 11 % of 400, still out; 250-300 tons is judged
        let r = run(&RULE, &mostly_unloaded(), &numbers(&[("design_kw_per_ton", 0.6), ("design_tons", 400.0)]));
        assert_eq!((r.severity, r.metrics["capacity_tons"]), (Severity::Ok, 400.0));
        assert!(r.caveats.iter().any(|c| c.contains("(400 tons, design_tons)")), "{:?}", r.caveats);
        // a rating of 100 tons puts 45 tons above the floor: the false-loading hours are judged
        let r = run(&RULE, &mostly_unloaded(), &numbers(&[("design_kw_per_ton", 0.6), ("design_tons", 100.0)]));
        assert_eq!(r.judged, 7 * 48);
        assert!(r.metrics["pct_hours_inefficient"] > 30.0, "{:?}", r.metrics);
    }

    #[test]
    fn an_efficient_chiller_is_ok_and_a_degraded_one_faults() {
        let r = run(&RULE, &chiller(|_| 0.6), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.metrics["kw_per_ton_median"], r.metrics["pct_hours_inefficient"]), (0.6, 0.0));
        assert_eq!(r.judged, 7 * 48);
        let r = run(&RULE, &chiller(|_| 1.4), &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!((r.metrics["pct_hours_inefficient"], r.flagged.len()), (100.0, 7 * 48));
    }

    #[test]
    fn the_ratios_at_their_boundaries() {
        let sev = |k: f64, p: &Params| run(&RULE, &chiller(move |_| k), p).severity;
        let d = Params::default();
        assert_eq!(sev(1.02, &d), Severity::Warn);
        assert_eq!(sev(1.019, &d), Severity::Ok);
        assert_eq!(sev(1.275, &d), Severity::Fault);
        assert_eq!(sev(1.274, &d), Severity::Warn);
        assert_eq!(sev(1.02, &numbers(&[("design_kw_per_ton", 0.9)])), Severity::Ok);
        assert_eq!(sev(0.72, &numbers(&[("design_kw_per_ton", 0.6)])), Severity::Warn);
        // inefficient samples: above 1.15 x design; half the day at 1.0, half at 0.6
        let r = run(&RULE, &chiller(|h| if h < 12.0 { 1.0 } else { 0.6 }), &Params::default());
        assert_eq!(r.metrics["pct_hours_inefficient"], 50.0);
        let r = run(&RULE, &chiller(|h| if h < 12.0 { 0.9775 } else { 0.6 }), &Params::default());
        assert_eq!(r.metrics["pct_hours_inefficient"], 0.0);
    }

    #[test]
    fn stopped_and_unloaded_samples_are_not_judged() {
        // the off hours' standby draw at no flow is never judged
        let r = run(&RULE, &chiller(|_| 0.6), &Params::default());
        assert_eq!(r.metrics["n_running"], (7 * 48) as f64);
        // a trickle of load (under 5 tons) with a high kW/ton is not judged either
        let mut f = chiller(|_| 0.6);
        let flow = f.cols.get_mut("chw_flow").unwrap();
        for (i, q) in flow.iter_mut().enumerate() {
            if i % 96 < 24 {
                *q = 5.0;
            }
        }
        let chwr = f.cols.get_mut("chw_return_temp").unwrap();
        for (i, t) in chwr.iter_mut().enumerate() {
            if i % 96 < 24 {
                *t = 60.0;
            }
        }
        let power = f.cols.get_mut("power").unwrap();
        for (i, p) in power.iter_mut().enumerate() {
            if i % 96 < 24 {
                *p = 40.0;
            }
        }
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["n_running"], (7 * 48) as f64);
    }

    #[test]
    fn uneven_sampling_gaps_and_disorder() {
        // a high kW/ton logged every minute for 20 minutes each morning, an efficient one every
        // 15 minutes after: by count three in ten, by time a twentieth
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
                ("power", ts.iter().map(|&t| if early(t) { 1.5 * 300.0 } else { 0.6 * 300.0 }).collect()),
                ("chw_flow", vec![600.0; n]),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", vec![56.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["kw_per_ton_median"]), (Severity::Ok, 0.6));
        assert!(r.metrics["pct_hours_inefficient"] < 6.0, "{:?}", r.metrics);
        // a gap and disorder
        let base = chiller(|h| if h < 9.0 { 1.4 } else { 0.6 });
        let keep: Vec<usize> = (0..base.len()).filter(|i| !(96..288).contains(i)).collect();
        let gappy = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let (a, b) = (run(&RULE, &base, &Params::default()), run(&RULE, &gappy, &Params::default()));
        assert_eq!(
            (a.metrics["pct_hours_inefficient"], a.metrics["kw_per_ton_median"]),
            (b.metrics["pct_hours_inefficient"], b.metrics["kw_per_ton_median"])
        );
        let m = run(&RULE, &shuffled_with_duplicates(&base), &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (m.severity, &m.metrics, &m.flagged));
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let f = Frame::from_rows(&[0, H], &[("power", vec![100.0, 100.0]), ("chw_supply_temp", vec![44.0, 44.0])]);
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["chw_return_temp".into(), "chw_flow".into()] }
        );
        let one = |v: f64| vec![v];
        for f in [
            Frame::default(),
            Frame::from_rows(
                &[0],
                &[
                    ("power", one(100.0)),
                    ("chw_supply_temp", one(44.0)),
                    ("chw_return_temp", one(54.0)),
                    ("chw_flow", one(600.0)),
                ],
            ),
            Frame::from_rows(
                &every(0, H, 20),
                &[
                    ("power", vec![100.0; 20]),
                    ("chw_supply_temp", vec![44.0; 20]),
                    ("chw_return_temp", vec![44.0; 20]),
                    ("chw_flow", vec![600.0; 20]),
                ],
            ),
        ] {
            let o = outcome(&RULE, &f, &Params::default());
            if let Outcome::Findings(v) = o {
                assert_eq!(v[0].severity, Severity::Info);
            }
        }
    }
    /// [`chiller`] with a condenser-side column at `temp` °F (`role`).
    fn with_condenser(kwpt: f64, role: &str, temp: f64) -> Frame {
        let mut f = chiller(move |_| kwpt);
        let n = f.len();
        f.cols.insert(role.into(), vec![temp; n]);
        f
    }

    #[test]
    fn an_air_cooled_chiller_at_its_nameplate_on_a_mild_day_works_too_hard() {
        let air = |k: f64, oat: f64, mode: &str| {
            let mut p = numbers(&[("design_kw_per_ton", 1.19)]);
            p.values.insert("condenser".into(), ParamValue::Choice(mode.into()));
            run(&RULE, &with_condenser(k, "oat", oat), &p)
        };
        // at 70 °F outdoors a healthy machine draws about two thirds of its 95 °F rating
        let healthy = air(0.82, 70.0, "air");
        assert_eq!(healthy.severity, Severity::Ok, "{}", healthy.summary);
        assert!((1.1..1.25).contains(&healthy.metrics["kw_per_ton_rated_median"]), "{:?}", healthy.metrics);
        // its nameplate figure at 70 °F: a third too hard
        let degraded = air(1.19, 70.0, "air");
        assert!(degraded.severity >= Severity::Warn, "{}", degraded.summary);
        assert_eq!(degraded.metrics["kw_per_ton_median"], 1.19);
        assert!(degraded.summary.contains("at a median 70 °F outdoors"), "{}", degraded.summary);
        assert!(degraded.metrics["expected_kw_per_ton"] < 0.85, "{:?}", degraded.metrics);
        // on a 100 °F day the same draw is within its rating
        assert_eq!(air(1.25, 100.0, "air").severity, Severity::Ok);
        // auto never takes a site's outdoor air to mean air-cooled: judged as measured
        let auto = air(1.19, 70.0, "auto");
        assert_eq!(auto.severity, Severity::Ok, "{}", auto.summary);
        assert!(!auto.metrics.contains_key("lift_factor_median"));
        // air-cooled with no outdoor air: as measured, and said
        let mut p = numbers(&[("design_kw_per_ton", 1.19)]);
        p.values.insert("condenser".into(), ParamValue::Choice("air".into()));
        let r = run(&RULE, &chiller(|_| 1.19), &p);
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats.iter().any(|c| c.contains("no oat to read the chiller's lift from")), "{:?}", r.caveats);
    }

    #[test]
    fn a_water_cooled_chiller_is_judged_at_85_f_condenser_water() {
        let design = numbers(&[("design_kw_per_ton", 0.66)]);
        // 70 °F condenser water: a healthy 0.66 kW/ton machine draws about 0.49
        let healthy = run(&RULE, &with_condenser(0.49, "cond_entering_water_temp", 70.0), &design);
        assert_eq!(healthy.severity, Severity::Ok, "{}", healthy.summary);
        // a fouled one at 0.73 is under 1.2 x its design as measured, half again over it rated
        let fouled = run(&RULE, &with_condenser(0.73, "cond_entering_water_temp", 70.0), &design);
        assert!(fouled.severity >= Severity::Warn, "{}", fouled.summary);
        assert!(fouled.metrics["kw_per_ton_ratio"] > 1.35, "{:?}", fouled.metrics);
        let mut none = design.clone();
        none.values.insert("condenser".into(), ParamValue::Choice("none".into()));
        assert_eq!(run(&RULE, &with_condenser(0.73, "cond_entering_water_temp", 70.0), &none).severity, Severity::Ok);
        // samples with no plausible condenser reading are left out and counted
        let mut f = with_condenser(0.49, "cond_entering_water_temp", 70.0);
        let cw = f.cols.get_mut("cond_entering_water_temp").unwrap();
        for v in cw.iter_mut().step_by(2) {
            *v = f64::NAN;
        }
        let r = run(&RULE, &f, &design);
        assert_eq!(r.judged, 7 * 48 / 2);
        assert!(
            r.caveats.iter().any(|c| c.contains("without a plausible cond_entering_water_temp")),
            "{:?}",
            r.caveats
        );
    }
}
