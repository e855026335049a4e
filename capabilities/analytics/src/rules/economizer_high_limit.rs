//! `economizer_high_limit`: the economizer keeps taking extra outdoor air when the outdoor air is
//! above its high limit, too warm to cool with, so the coil cools the excess down. Judged on
//! fan-on samples with outdoor air above `high_limit_f` (with `differential`, also above the
//! return air, where a differential changeover rightly keeps economizing). The outdoor-air
//! fraction is read from measured outdoor and supply airflow, else the mixing-box temperature
//! balance, else (a weak proxy, said in a caveat) the damper position. A sample is not locked
//! out when the fraction exceeds the design minimum plus `oa_margin_pct`. With the minimum
//! unknown, the severity comes from a generous `conservative_min_oa_pct`; excess above only the
//! generic `assumed_min_oa_pct` depends on the unit's design and is not judged (info).

use std::collections::BTreeMap;

use crate::economizer::{balance_oaf, percent_scale, percentile_at, running, FanGate};
use crate::engine::{
    median, round2, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity,
};

/// The outdoor airflow (cfm) on the judged samples when it holds steady: measured
/// (`oa_airflow`), else the fraction of the trended supply airflow.
fn steady_outdoor_airflow(frame: &Frame, judged: &[usize], oaf: &[f64]) -> Option<f64> {
    let cfm: Vec<f64> = match (frame.col("oa_airflow"), frame.col("airflow")) {
        (Some(oa), _) => judged.iter().map(|&i| oa[i]).collect(),
        (None, Some(sa)) => judged.iter().map(|&i| oaf[i] / 100.0 * sa[i]).collect(),
        (None, None) => return None,
    };
    crate::economizer::steady_oa_cfm(&cfm, 10)
}

/// Fewest usable measured-airflow fractions before they are preferred over the balance.
const MIN_MEASURED: usize = 10;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "economizer_high_limit",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["oa_damper", "oat"],
            optional: &["mixed_air_temp", "return_air_temp", "oa_airflow", "airflow", "supply_fan_status", "supply_fan_speed"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number("high_limit_f", 65.0, "°F", (55.0, 80.0),
                "a common fixed dry-bulb changeover; energy codes set it by climate zone, so it is a typical value, not a rule",
                "Use the high-limit setpoint in the unit's economizer sequence, or the energy code's value for the site's climate zone."),
            ParamSpec::number("min_damper", 0.25, "fraction (OA damper, 0-1)", (0.0, 1.0),
                "a typical minimum-ventilation damper position; only read when the damper is all there is to judge",
                "Use the sequence's minimum outdoor-air position, or the position the damper holds on hot running hours of a period known to be good. A damper above it by 0.05 counts as not locked out."),
            ParamSpec::number("min_oa_pct", f64::NAN, "% of supply airflow (OA fraction; unset: unknown)", (0.0, 100.0),
                "the design minimum belongs to the building's ventilation design; unset, the excess is scored against conservative_min_oa_pct and excess only above assumed_min_oa_pct is not judged",
                "Take it from the ventilation schedule, or measure the outdoor-air fraction at the minimum damper position on running hours known to be good."),
            ParamSpec::number("oa_margin_pct", 5.0, "% of supply airflow (percentage points)", (1.0, 15.0),
                "room for the scatter of the temperature balance before a sample counts as excess",
                "Set it to the spread (e.g. the interquartile range) of the outdoor-air fraction at minimum position on hot hours known to be good."),
            ParamSpec::number("warn_pct", 10.0, "% of fan-on hours above the high limit", (2.0, 30.0),
                "a tenth of the hot running hours with excess outdoor air is more than a changeover's overshoot",
                "Read not_locked_out_pct on units known to lock out properly and set this above their spread."),
            ParamSpec::number("fault_pct", 25.0, "% of fan-on hours above the high limit", (10.0, 60.0),
                "a quarter of the hot running hours is a lockout that does not work, not an overshoot",
                "Keep it well above warn_pct (it must not be below it)."),
            ParamSpec::number("denom_min_f", 5.0, "°F", (2.0, 15.0),
                "with outdoor and return air within a few degrees the balance divides by a small number and sensor error dominates (the PNNL re-tuning guard)",
                "Raise it when the fraction scatters on hours with outdoor air near return air; n_masked_small_delta_t counts what it drops."),
            ParamSpec::number("assumed_min_oa_pct", 20.0, "% of supply airflow (OA fraction)", (5.0, 40.0),
                "a generic design minimum, used only to say when an unknown minimum decides the verdict",
                "Prefer setting min_oa_pct; move this only to change the generic minimum the not-judged case is checked against."),
            ParamSpec::number("conservative_min_oa_pct", 50.0, "% of supply airflow (OA fraction)", (30.0, 80.0),
                "more than an ordinary mixed-air unit's design minimum, so outdoor air above it is excess whatever the design",
                "Prefer setting min_oa_pct; lower it only where every unit's design minimum is known to be below it."),
            ParamSpec::flag("differential", true,
                "a differential changeover economizes whenever outdoor air is cooler than return air, above any fixed limit",
                "Set it from the sequence: false for a fixed dry-bulb high limit, true for an outdoor-versus-return changeover."),
            ParamSpec::flag("fan_gate", true,
                "with the fan stopped the mixing box holds still air and the damper moves nothing",
                "Keep it on; turn it off only when the fan signal is known wrong and every trended sample is a running one."),
        ],
        judged_basis: "fan-on samples above the high limit",
    }
}

/// What the outdoor-air fraction was read from.
#[derive(Clone, Copy, PartialEq)]
enum Basis {
    Measured,
    Balance,
    Damper,
}

impl Basis {
    fn name(self) -> &'static str {
        match self {
            Basis::Measured => "measured outdoor-air fraction",
            Basis::Balance => "temperature-balance outdoor-air fraction",
            Basis::Damper => "damper position",
        }
    }

    fn judged(self) -> &'static str {
        match self {
            Basis::Measured => "fan-on samples above the high limit with a measured outdoor-air fraction",
            Basis::Balance => "fan-on samples above the high limit with a stable temperature balance",
            Basis::Damper => "fan-on samples above the high limit with a damper reading",
        }
    }
}

/// Outdoor-air fraction (%) from measured outdoor and supply airflow where the supply flow is
/// above a tenth of its 95th percentile; `None` unless at least `MIN_MEASURED` samples qualify.
fn measured_oaf(frame: &Frame) -> Option<Vec<f64>> {
    let (oa, sa) = (frame.col("oa_airflow")?, frame.col("airflow")?);
    let p95 = percentile_at(sa, 0..sa.len(), 95.0);
    if p95.is_nan() || p95 <= 0.0 {
        return None;
    }
    let v: Vec<f64> = (0..frame.len())
        .map(|i| {
            let x = 100.0 * oa[i] / sa[i];
            if sa[i] > 0.1 * p95 && oa[i] >= 0.0 && (0.0..=120.0).contains(&x) {
                x
            } else {
                f64::NAN
            }
        })
        .collect();
    (v.iter().filter(|x| !x.is_nan()).count() >= MIN_MEASURED).then_some(v)
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (damper, oat) = (frame.required("oa_damper"), frame.required("oat"));
    let p = |name: &str| params.number(spec, name);
    let (high_limit, min_damper, min_oa, margin) =
        (p("high_limit_f"), p("min_damper"), p("min_oa_pct"), p("oa_margin_pct"));
    let (warn, fault, denom_min) = (p("warn_pct"), p("fault_pct"), p("denom_min_f"));
    let (assumed, conservative) = (p("assumed_min_oa_pct"), p("conservative_min_oa_pct"));
    let differential = params.flag(spec, "differential") != Some(false);
    let (run, gate) = running(frame, params.flag(spec, "fan_gate") != Some(false));
    let (mat, rat) = (frame.col("mixed_air_temp"), frame.col("return_air_temp"));
    let n = frame.len();

    // above the limit and running; a differential changeover still economizes below return air
    let (mut fan_off, mut below_return) = (0usize, 0usize);
    let hot: Vec<bool> = (0..n)
        .map(|i| {
            if oat[i].is_nan() || oat[i] <= high_limit {
                return false;
            }
            if !run[i] {
                fan_off += 1;
                return false;
            }
            if differential && rat.is_some_and(|r| oat[i] <= r[i]) {
                below_return += 1;
                return false;
            }
            true
        })
        .collect();

    let (mut small_dt, mut out_of_range) = (0usize, 0usize);
    let (basis, y): (Basis, Vec<f64>) = if let Some(m) = measured_oaf(frame) {
        (Basis::Measured, m)
    } else if let (Some(m), Some(r)) = (mat, rat) {
        let y = (0..n)
            .map(|i| {
                let sensors_ok = (20.0..=130.0).contains(&oat[i])
                    && (30.0..=120.0).contains(&m[i])
                    && (40.0..=110.0).contains(&r[i]);
                if !sensors_ok {
                    return f64::NAN;
                }
                match balance_oaf(oat[i], m[i], r[i], denom_min) {
                    None => {
                        small_dt += hot[i] as usize;
                        f64::NAN
                    }
                    Some(x) if !(-20.0..=120.0).contains(&x) => {
                        out_of_range += hot[i] as usize;
                        f64::NAN
                    }
                    Some(x) => x,
                }
            })
            .collect();
        (Basis::Balance, y)
    } else {
        let scale = percent_scale(damper) / 100.0;
        (Basis::Damper, damper.iter().map(|d| d * scale).collect())
    };
    let judged: Vec<usize> = (0..n).filter(|&i| hot[i] && !y[i].is_nan()).collect();

    let mut caveats = Vec::new();
    if below_return > 0 {
        caveats.push(format!(
            "{below_return} running sample(s) above the {high_limit} °F limit but not above return air were left out: a differential changeover rightly economizes there (set differential to false for a fixed-limit unit)"
        ));
    }
    if basis == Basis::Damper {
        caveats.push("no mixed and return air temperatures (or measured airflows): judged on the damper position, a weak stand-in for the outdoor-air fraction".into());
    }
    match gate {
        FanGate::NoSignal => caveats.push("no fan signal trended: samples were not fan-gated".into()),
        FanGate::Disabled => caveats.push("fan gate turned off: every sample was judged as running".into()),
        FanGate::From(_) => {}
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("high_limit_f".into(), high_limit);
    metrics.insert("n_masked_fan_off".into(), fan_off as f64);
    metrics.insert("n_masked_small_delta_t".into(), small_dt as f64);
    metrics.insert("n_masked_out_of_range".into(), out_of_range as f64);
    metrics.insert("n_differential_excluded".into(), below_return as f64);
    metrics.insert("denom_min_f".into(), denom_min);
    if judged.is_empty() {
        let with = if basis == Basis::Damper { "" } else { " with a usable outdoor-air fraction" };
        let mut f = Finding::not_judged(spec, &format!("no running sample above the {high_limit} °F high limit{with}"));
        f.caveats.extend(caveats);
        f.metrics = metrics;
        return Outcome::Findings(vec![f]);
    }

    let w = frame.weights_hours();
    let judged_h: f64 = judged.iter().map(|&i| w[i]).sum();
    let above = |thr: f64| -> (Vec<u32>, f64) {
        let idx: Vec<u32> = judged.iter().filter(|&&i| y[i] > thr).map(|&i| i as u32).collect();
        let h = crate::engine::sum_at(&w, &idx) + 0.0;
        (idx, h)
    };
    let median_y = median(&mut judged.iter().map(|&i| y[i]).collect::<Vec<_>>());
    let pct_of = |h: f64| if judged_h > 0.0 { 100.0 * h / judged_h } else { 0.0 };
    let (threshold, thr_text) = match basis {
        Basis::Damper => (min_damper + 0.05, format!("a damper above {:.0}%", 100.0 * (min_damper + 0.05))),
        _ if !min_oa.is_nan() => (min_oa + margin, format!("an outdoor-air fraction above {}%", min_oa + margin)),
        _ => (
            conservative + margin,
            format!("an outdoor-air fraction above {}% (the design minimum is not set)", conservative + margin),
        ),
    };
    let (excess, excess_h) = above(threshold);
    let pct = pct_of(excess_h);
    let severity = severity_of(pct, warn, fault);
    let mut conditions = vec![Condition {
        name: "not_locked_out".into(),
        flagged: excess.clone(),
        judged: judged.len(),
        judged_hours: judged_h,
        flagged_hours: excess_h,
    }];
    metrics.insert("n_above_limit".into(), judged.len() as f64);
    metrics.insert("median_above_limit".into(), round2(median_y));
    if basis == Basis::Damper {
        metrics.insert("min_damper".into(), min_damper);
    } else if !min_oa.is_nan() {
        metrics.insert("min_oa_pct".into(), min_oa);
    } else {
        // the design minimum is unknown: excess above the generic minimum alone is not a verdict
        let (lo, lo_h) = above(assumed + margin);
        let pct_lo = pct_of(lo_h);
        metrics.insert("excess_over_assumed_min_pct".into(), round2(pct_lo));
        metrics.insert("assumed_min_oa_pct".into(), assumed);
        metrics.insert("conservative_min_oa_pct".into(), conservative);
        conditions.push(Condition {
            name: "above_assumed_minimum".into(),
            flagged: lo,
            judged: judged.len(),
            judged_hours: judged_h,
            flagged_hours: lo_h,
        });
        if severity == Severity::Ok && severity_of(pct_lo, warn, fault) != Severity::Ok {
            caveats.push(format!(
                "min_oa_pct is not set: above the high limit the outdoor-air fraction has a median of {median_y:.0}%, an excess on {pct_lo:.0}% of the judged hours if the design minimum is about {assumed}%, and normal if it is near {median_y:.0}%; set min_oa_pct to judge it"
            ));
            return Outcome::Findings(vec![Finding::of(spec.id, basis.judged(), Severity::Info, format!(
                    "lockout not judged: above the {high_limit} °F high limit the outdoor-air fraction sits at a median {median_y:.0}%, which is excess or normal depending on the unit's design minimum"
                ))
                .with_caveats(caveats)
                .with_metrics(metrics)
                .with_judged(judged.len())
                .with_conditions(conditions)]);
        }
        if severity == Severity::Ok {
            caveats.push(format!("min_oa_pct is not set: the outdoor-air fraction stayed within both a generous {conservative}% and a generic {assumed}% minimum"));
        }
        // a steady outdoor airflow above the limit is a fixed minimum outdoor airflow (a
        // classroom unit's ventilation can be most of its supply) or a damper fixed open: without
        // the design minimum the two cannot be told apart
        if severity >= Severity::Warn && basis != Basis::Damper {
            if let Some(cfm) = steady_outdoor_airflow(frame, &judged, &y) {
                metrics.insert("steady_oa_cfm".into(), round2(cfm));
                caveats.push(format!(
                    "min_oa_pct is not set and the outdoor airflow above the limit holds steady at about {cfm:.0} cfm: a fixed ventilation minimum that large and a damper fixed open look alike; set min_oa_pct to judge it"
                ));
                return Outcome::Findings(vec![Finding::of(spec.id, basis.judged(), Severity::Info, format!(
                        "lockout not judged: above the {high_limit} °F high limit the unit holds a steady {cfm:.0} cfm of outdoor air ({median_y:.0}% of its supply at the median), a fixed minimum or a fixed damper"
                    ))
                    .with_caveats(caveats)
                    .with_metrics(metrics)
                    .with_judged(judged.len())
                    .with_conditions(conditions)]);
            }
        }
    }
    metrics.insert("not_locked_out_pct".into(), round2(pct));
    let summary = if severity >= Severity::Warn {
        format!("economizer not locked out: above the {high_limit} °F high limit {pct:.0}% of the judged hours show {thr_text} ({})", basis.name())
    } else {
        format!("economizer locked out above the {high_limit} °F high limit: {pct:.0}% of the judged hours show {thr_text} ({})", basis.name())
    };
    Outcome::Findings(vec![Finding::of(spec.id, basis.judged(), severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(excess)
        .with_judged(judged.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, shuffled_with_duplicates};
    use crate::engine::{ParamValue, NS_PER_HOUR};

    /// Hourly over `n` hours: outdoor air `oat(i)`, return air 74 °F, mixed air from an
    /// outdoor-air fraction `oaf(i)` %, the damper at `oaf(i)` %, the fan at `fan`.
    fn frame(n: usize, oat: impl Fn(usize) -> f64, oaf: impl Fn(usize) -> f64, fan: f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|h| h * NS_PER_HOUR).collect();
        let o: Vec<f64> = (0..n).map(&oat).collect();
        let m: Vec<f64> = (0..n).map(|i| 74.0 + oaf(i) / 100.0 * (o[i] - 74.0)).collect();
        let d: Vec<f64> = (0..n).map(&oaf).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", o),
                ("mixed_air_temp", m),
                ("return_air_temp", vec![74.0; n]),
                ("oa_damper", d),
                ("supply_fan_status", vec![fan; n]),
            ],
        )
    }

    fn with(pairs: &[(&str, ParamValue)]) -> Params {
        let mut p = Params::default();
        for (k, v) in pairs {
            p.values.insert(k.to_string(), v.clone());
        }
        p
    }

    fn min20() -> Params {
        with(&[("min_oa_pct", ParamValue::Number(20.0))])
    }

    #[test]
    fn a_locked_out_economizer_is_ok_and_an_open_one_is_found() {
        let ok = run(&RULE, &frame(100, |_| 85.0, |_| 20.0, 1.0), &min20());
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert_eq!((ok.judged, ok.metrics["not_locked_out_pct"]), (100, 0.0));
        let open = run(&RULE, &frame(100, |_| 85.0, |_| 100.0, 1.0), &min20());
        assert_eq!(open.severity, Severity::Fault);
        assert_eq!(open.flagged.len(), 100);
        assert!(open.summary.contains("not locked out"), "{}", open.summary);
    }

    #[test]
    fn the_share_boundary() {
        // 10 % of the hot hours open is a warning, 9 % is not, 25 % is a fault
        let at = |k: usize| run(&RULE, &frame(100, |_| 85.0, move |i| if i < k { 100.0 } else { 20.0 }, 1.0), &min20());
        assert_eq!(at(9).severity, Severity::Ok);
        assert_eq!(at(10).severity, Severity::Warn);
        assert_eq!(at(24).severity, Severity::Warn);
        assert_eq!(at(25).severity, Severity::Fault);
        // a fraction of exactly the minimum plus the margin is not excess; just above it is
        assert_eq!(run(&RULE, &frame(100, |_| 85.0, |_| 25.0, 1.0), &min20()).metrics["not_locked_out_pct"], 0.0);
        assert_eq!(run(&RULE, &frame(100, |_| 85.0, |_| 25.5, 1.0), &min20()).severity, Severity::Fault);
    }

    #[test]
    fn an_unknown_minimum_declines_what_it_decides() {
        // 35 % is excess over a generic 20 % minimum but normal for a 35 % design: not judged
        let f = run(&RULE, &frame(100, |_| 85.0, |_| 35.0, 1.0), &Params::default());
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert_eq!(f.metrics["excess_over_assumed_min_pct"], 100.0);
        assert!(f.caveats.iter().any(|c| c.contains("min_oa_pct")), "{:?}", f.caveats);
        // 80 % is excess whatever the design minimum
        assert_eq!(run(&RULE, &frame(100, |_| 85.0, |_| 80.0, 1.0), &Params::default()).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(100, |_| 85.0, |_| 20.0, 1.0), &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn differential_changeover_and_cool_weather_are_not_judged() {
        // 70 °F outdoor air is above the limit but below return air: a differential unit economizes
        let f = run(&RULE, &frame(100, |_| 70.0, |_| 100.0, 1.0), &min20());
        assert_eq!(f.severity, Severity::Info);
        assert_eq!(f.metrics["n_differential_excluded"], 100.0);
        let fixed = with(&[
            ("min_oa_pct", ParamValue::Number(20.0)),
            ("differential", ParamValue::Flag(Some(false))),
            ("denom_min_f", ParamValue::Number(2.0)),
        ]);
        assert_eq!(run(&RULE, &frame(100, |_| 70.0, |_| 100.0, 1.0), &fixed).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(100, |_| 55.0, |_| 100.0, 1.0), &min20()).judged, 0);
    }

    #[test]
    fn fan_off_is_not_judged_unless_the_gate_is_off() {
        let f = run(&RULE, &frame(50, |_| 85.0, |_| 100.0, 0.0), &min20());
        assert_eq!((f.severity, f.metrics["n_masked_fan_off"]), (Severity::Info, 50.0));
        let ungated = with(&[("min_oa_pct", ParamValue::Number(20.0)), ("fan_gate", ParamValue::Flag(Some(false)))]);
        assert_eq!(run(&RULE, &frame(50, |_| 85.0, |_| 100.0, 0.0), &ungated).severity, Severity::Fault);
    }

    #[test]
    fn damper_and_measured_airflow_bases() {
        // without mixed and return air the damper decides, a 0-1 damper read as a fraction
        let mut f = frame(50, |_| 85.0, |i| if i < 10 { 60.0 } else { 20.0 }, 1.0);
        f.cols.remove("mixed_air_temp");
        f.cols.remove("return_air_temp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["not_locked_out_pct"]), (Severity::Warn, 20.0));
        assert!(r.caveats.iter().any(|c| c.contains("weak")));
        f.cols.insert("oa_damper".into(), f.cols["oa_damper"].iter().map(|d| d / 100.0).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).metrics["not_locked_out_pct"], 20.0);
        // measured airflows beat the balance (which here reads 100 %)
        let mut m = frame(50, |_| 85.0, |_| 100.0, 1.0);
        m.cols.insert("airflow".into(), vec![10_000.0; 50]);
        m.cols.insert("oa_airflow".into(), vec![2_000.0; 50]);
        let r = run(&RULE, &m, &min20());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.judged_basis, Basis::Measured.judged());
    }

    #[test]
    fn a_steady_outdoor_airflow_without_a_design_minimum_is_not_judged() {
        // a classroom unit above the limit: 3,000 cfm of outdoor air, steady, in 4,500-5,500 cfm
        // of supply (55-67 %): a fixed ventilation minimum or a fixed damper, not known which
        let mut m = frame(50, |_| 85.0, |_| 100.0, 1.0);
        let supply: Vec<f64> = (0..50).map(|i| 4_500.0 + 20.0 * i as f64).collect();
        m.cols.insert("airflow".into(), supply);
        m.cols.insert("oa_airflow".into(), (0..50).map(|i| 3_000.0 + (i % 3) as f64 * 20.0).collect());
        let r = run(&RULE, &m, &Params::default());
        assert_eq!(r.severity, Severity::Info, "{}", r.summary);
        assert!((r.metrics["steady_oa_cfm"] - 3_020.0).abs() < 1.0, "{:?}", r.metrics);
        // the same unit with its design minimum known is judged
        let p = crate::engine::testing::numbers(&[("min_oa_pct", 20.0)]);
        assert!(run(&RULE, &m, &p).severity >= Severity::Warn);
        // an outdoor airflow that follows the supply is the economizer open: judged
        m.cols.insert("oa_airflow".into(), (0..50).map(|i| 0.65 * (2_000.0 + 100.0 * i as f64)).collect());
        m.cols.insert("airflow".into(), (0..50).map(|i| 2_000.0 + 100.0 * i as f64).collect());
        assert!(run(&RULE, &m, &Params::default()).severity >= Severity::Warn);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let base = frame(100, |_| 85.0, |i| if i < 20 { 100.0 } else { 20.0 }, 1.0);
        // every row twice, newest first: the same answer
        let shuffled = shuffled_with_duplicates(&base);
        let twice = run(&RULE, &shuffled, &min20());
        assert_eq!((twice.judged, twice.metrics["not_locked_out_pct"]), (100, 20.0));
        // a gap in the outdoor air: fewer samples judged, the shares of what is left
        let mut gapped = base.clone();
        for v in &mut gapped.cols.get_mut("oat").unwrap()[50..80] {
            *v = f64::NAN;
        }
        let g = run(&RULE, &gapped, &min20());
        assert_eq!(g.judged, 70);
        assert!((g.metrics["not_locked_out_pct"] - 100.0 * 20.0 / 70.0).abs() < 0.01);
        // irregular sampling: the open samples every 15 minutes, the shut ones hourly; the share is of hours
        let mut t: Vec<i64> = (0..20).map(|i| i * NS_PER_HOUR / 4).collect();
        t.extend((0..80).map(|i| 5 * NS_PER_HOUR + i * NS_PER_HOUR));
        let oaf: Vec<f64> = (0..100).map(|i| if i < 20 { 100.0 } else { 20.0 }).collect();
        let mat: Vec<f64> = oaf.iter().map(|x| 74.0 + x / 100.0 * 11.0).collect();
        let irregular = Frame::from_rows(
            &t,
            &[
                ("oat", vec![85.0; 100]),
                ("mixed_air_temp", mat),
                ("return_air_temp", vec![74.0; 100]),
                ("oa_damper", oaf),
                ("supply_fan_status", vec![1.0; 100]),
            ],
        );
        let r = run(&RULE, &irregular, &min20());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary); // 5 of 85 hours
        assert!(r.metrics["not_locked_out_pct"] < 10.0);
    }

    #[test]
    fn degenerate_frames_and_a_missing_input() {
        let empty = Frame::from_rows(&[], &[("oat", vec![]), ("oa_damper", vec![])]);
        assert_eq!(
            outcome(&RULE, &empty, &Params::default()),
            Outcome::Skipped { missing: vec!["oa_damper".into(), "oat".into()] }
        );
        let one = frame(1, |_| 85.0, |_| 100.0, 1.0);
        assert_eq!(run(&RULE, &one, &min20()).severity, Severity::Fault);
        let mut no_damper = frame(10, |_| 85.0, |_| 20.0, 1.0);
        no_damper.cols.remove("oa_damper");
        assert_eq!(
            outcome(&RULE, &no_damper, &Params::default()),
            Outcome::Skipped { missing: vec!["oa_damper".into()] }
        );
        let all_nan = frame(10, |_| f64::NAN, |_| 20.0, 1.0);
        assert_eq!(outcome(&RULE, &all_nan, &Params::default()), Outcome::Skipped { missing: vec!["oat".into()] });
    }
}
