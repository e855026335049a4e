//! `outdoor_air_fraction`: how much outdoor air an air handler takes, from the mixing-box
//! temperature balance OAF = (RAT - MAT) / (RAT - OAT). Outdoor air above the minimum where an
//! economizer should sit at its minimum is an energy penalty: in cooling weather with the outdoor
//! air no cooler than the return (above `cooling_cutoff_f` and at or above the return air: below
//! the return, more outdoor air is free cooling, not excess), and while the heating coil works alone (a
//! trended heating valve above 5 % with the cooling valve shut: no sequence economizes while it
//! heats). A median below the
//! design minimum is under-ventilation. Judged on occupied, fan-on samples whose balance is stable
//! (|RAT - OAT| at least `denom_min_f`) and plausible. Beyond the reference, a balance no damper
//! can make (mixed air more than 2 °F outside the span of the outdoor and return air, on 10 % or
//! more of the stable samples) warns that one of the three sensors reads wrong: a return-air
//! sensor reading 6 °F warm hides exactly the hours an economizer fault would show in.
//!
//! Without a configured minimum the unit's own minimum is learned: the median fraction on those
//! at-minimum samples (with the supply airflow trended, on those at 60 % of its peak flow or more:
//! a minimum held as a fixed outdoor airflow is a large fraction of a small supply airflow). Excess is then judged against what a ventilation minimum can plausibly be
//! ([`PLAUSIBLE_MIN_OA_PCT`]): a unit that holds more than that where it should be at its minimum
//! (a minimum raised to 60 %, a damper that does not close) warns, and one below it is taken at its
//! own minimum, which the finding states. Under-ventilation is judged against the generic 20 %.
//!
//! The finding also carries what the excess costs on those samples ([`crate::oa_cost`]'s
//! `oa_cost_*` sums, read from the heating valve, the supply air, both humidities and the
//! supply airflow when trended), which the RCx report prices. They never change the verdict.

use std::collections::BTreeMap;

use crate::engine::{
    assumed_occupied, median, month, on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue,
    Params, Rule, RuleSpec, Severity,
};

/// The minimum assumed when `min_oa_pct` is unset.
const GENERIC_MIN_OA_PCT: f64 = 20.0;
/// Percentage points either side of the minimum before a sample counts as excess or short.
const MARGIN_PCT: f64 = 5.0;
/// Fewer judged samples than this are not a verdict.
const MIN_SAMPLES: usize = 10;
/// Mixed air more than this (°F) outside the span of the outdoor and return air it mixes is an
/// impossible balance: some sensor of the three reads wrong.
const IMPOSSIBLE_MARGIN_F: f64 = 2.0;
/// The share (%) of stable samples with an impossible balance that says a sensor is biased
/// (a stratified mixing box gives a few).
const IMPOSSIBLE_WARN_PCT: f64 = 10.0;
/// The most outdoor air (%) a ventilation minimum plausibly asks of an office air handler: an
/// unconfigured unit that holds more where it should be at its minimum warns.
pub const PLAUSIBLE_MIN_OA_PCT: f64 = 40.0;
/// A cooling valve at or below this (%) is shut.
const COOL_SHUT_PCT: f64 = 1.0;
/// The share of its peak supply airflow above which a unit's minimum outdoor-air fraction is
/// learned: at lower flows a fixed minimum outdoor airflow is a larger fraction.
const HIGH_FLOW_SHARE: f64 = 0.6;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "outdoor_air_fraction",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["mixed_air_temp", "return_air_temp"],
            optional: &[
                "oat",
                "oa_damper",
                "supply_fan_status",
                "supply_fan_speed",
                "airflow",
                "occupancy",
                "heat_valve",
                "cool_valve",
            ],
            gating: &["oat"],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "min_oa_pct",
                default: ParamValue::Number(f64::NAN),
                unit: "% of supply airflow (OA fraction)",
                range: Some((0.0, 100.0)),
                choices: &[],
                basis: "the design minimum belongs to the unit's ventilation schedule; unset, the unit's own minimum is learned from the samples where it should sit at it (and excess is a minimum above 40 %), and under-ventilation is judged against a generic 20 %",
                calibrate: "Take it from the sequence of operation or measure the fraction at the minimum damper position; a 10 % damper position is often a much smaller air fraction.",
            },
            ParamSpec {
                name: "cooling_cutoff_f",
                default: ParamValue::Number(70.0),
                unit: "°F",
                range: Some((55.0, 80.0)),
                choices: &[],
                basis: "above roughly room temperature outdoor air adds cooling load instead of saving it",
                calibrate: "Set it to the economizer's high limit when the unit has one; in humid climates lower it toward the return air's enthalpy equivalent.",
            },
            ParamSpec {
                name: "denom_min_f",
                default: ParamValue::Number(5.0),
                unit: "°F",
                range: Some((2.0, 15.0)),
                choices: &[],
                basis: "with outdoor and return air close together the balance divides by a small number and sensor error dominates",
                calibrate: "Raise it when the three temperature sensors are coarse or poorly placed (a stratified mixing box); lower it only with calibrated sensors.",
            },
            ParamSpec::flag(
                "fan_gate",
                true,
                "with the fan stopped the mixing-box sensors read still air, not a mix",
                "Keep it on; turn it off only when the fan signal is known wrong and every sample is a running one.",
            ),
            ParamSpec {
                name: "min_oa_pct_by_month",
                default: ParamValue::List(Vec::new()),
                unit: "% of supply airflow, January to December (a list of 12)",
                range: Some((0.0, 100.0)),
                choices: &[],
                basis: "some sequences schedule a different minimum by season",
                calibrate: "Give twelve values, one per month, from the sequence; or map some months only ({\"6\": 12, \"7\": 12}), the others keeping min_oa_pct; leave empty to use min_oa_pct all year.",
            },
        ],
        judged_basis: "occupied fan-on samples with a stable temperature balance",
    }
}

/// What the mixing balance showed over a unit's samples: the samples left out and why, the
/// stable ones, those whose mixed air lies outside what its outdoor and return air can make,
/// and the judged ones.
struct Balance {
    fan_off: usize,
    small_dt: usize,
    out_of_range: usize,
    stable: usize,
    impossible: Vec<u32>,
    /// (index, outdoor-air fraction, its minimum, whether the economizer should sit at its
    /// minimum there)
    judged: Vec<(u32, f64, f64, bool)>,
    heating_n: usize,
}

/// The outdoor-air fraction from the mixing balance at every occupied, running sample with a
/// plausible, stable temperature balance. A function of its own: inlined into the rule, its
/// loop kept every running count on the stack in the sandbox.
#[inline(never)]
fn balance_samples(
    frame: &Frame,
    [oat, mat, rat]: [&[f64]; 3],
    [occ, heat, cool]: [Option<&[f64]>; 3],
    fan_on: Option<&[Option<bool>]>,
    (by_month, min_all, cutoff, denom_min): (&[f64], f64, f64, f64),
) -> Balance {
    let (mut fan_off, mut small_dt, mut out_of_range, mut stable) = (0usize, 0usize, 0usize, 0usize);
    let mut impossible: Vec<u32> = Vec::new();
    let mut judged: Vec<(u32, f64, f64, bool)> = Vec::new();
    let mut heating_n = 0usize;
    for i in 0..frame.len() {
        let occupied = match occ {
            Some(o) => on(o[i]),
            None => assumed_occupied(frame.ts[i]),
        };
        if !occupied {
            continue;
        }
        let (o, m, r) = (oat[i], mat[i], rat[i]);
        if o.is_nan() || m.is_nan() || r.is_nan() {
            continue;
        }
        if fan_on.is_some_and(|f| f[i] != Some(true)) {
            fan_off += 1;
            continue;
        }
        if !(20.0..=130.0).contains(&o) || !(30.0..=120.0).contains(&m) || !(40.0..=110.0).contains(&r) {
            continue;
        }
        if (r - o).abs() < denom_min {
            small_dt += 1;
            continue;
        }
        stable += 1;
        if m < crate::engine::min_of(o, r) - IMPOSSIBLE_MARGIN_F
            || m > crate::engine::max_of(o, r) + IMPOSSIBLE_MARGIN_F
        {
            impossible.push(i as u32);
        }
        let oaf = 100.0 * (r - m) / (r - o);
        if !(oaf > -20.0 && oaf < 120.0) {
            out_of_range += 1;
            continue;
        }
        // the calendar month only where a month-by-month list asks for it
        let min =
            if by_month.is_empty() { min_all } else { crate::engine::by_month(by_month, month(frame.ts[i]), min_all) };
        // heating alone (a coil fighting the cooling is simultaneous_heat_cool's)
        let heating = heat.is_some_and(|h| h[i] > crate::economizer::HEATING_VALVE_PCT)
            && cool.is_none_or(|c| c[i].is_nan() || c[i] <= COOL_SHUT_PCT)
            && o < r;
        heating_n += usize::from(heating);
        judged.push((i as u32, oaf, min, (o > cutoff && o >= r) || heating));
    }
    Balance { fan_off, small_dt, out_of_range, stable, impossible, judged, heating_n }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (mat, rat) = (frame.required("mixed_air_temp"), frame.required("return_air_temp"));
    let Some(oat) = frame.col("oat") else {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no outdoor air temperature (oat), which the balance needs",
        )]);
    };
    let configured = params.number(spec, "min_oa_pct");
    let min_all = if configured.is_nan() { GENERIC_MIN_OA_PCT } else { configured };
    let by_month = params.list(spec, "min_oa_pct_by_month");
    if !by_month.is_empty() && by_month.len() != 12 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "min_oa_pct_by_month must list 12 values, January to December",
        )]);
    }
    let cutoff = params.number(spec, "cooling_cutoff_f");
    let denom_min = params.number(spec, "denom_min_f");
    let gate = params.flag(spec, "fan_gate").unwrap_or(true);
    let (fan_on, fan_src): (Option<Vec<Option<bool>>>, &str) = match crate::engine::fan_on(frame) {
        _ if !gate => (None, "off"),
        Some((v, src)) => (Some(v), src),
        None => (None, "none"),
    };
    let occ = frame.col("occupancy").filter(|o| o.iter().any(|v| !v.is_nan()));
    let heat = frame.col("heat_valve").map(crate::engine::as_percent);
    let cool = frame.col("cool_valve").map(crate::engine::as_percent);
    let w = frame.weights_hours();
    let Balance { fan_off, small_dt, out_of_range, stable, impossible, judged, heating_n } = balance_samples(
        frame,
        [oat, mat, rat],
        [occ, heat.as_deref(), cool.as_deref()],
        fan_on.as_deref(),
        (&by_month, min_all, cutoff, denom_min),
    );
    let impossible_pct = 100.0 * impossible.len() as f64 / stable.max(1) as f64;
    let biased = stable >= MIN_SAMPLES && impossible.len() >= MIN_SAMPLES && impossible_pct >= IMPOSSIBLE_WARN_PCT;
    let balance = |severity: Severity| -> (Severity, Option<String>) {
        if biased {
            (severity.max(Severity::Warn), Some(format!(
                "the mixing balance is impossible on {impossible_pct:.0}% of the stable samples (mixed air more than {IMPOSSIBLE_MARGIN_F} °F outside the span of the outdoor and return air it mixes): a mixed, return or outdoor air sensor reads wrong, so the outdoor-air fraction cannot be trusted -- check the three against a reference"
            )))
        } else {
            (severity, None)
        }
    };
    if judged.len() < MIN_SAMPLES {
        if let (severity, Some(why)) = balance(Severity::Info) {
            let mut metrics = BTreeMap::new();
            metrics.insert("impossible_balance_pct".into(), round2(impossible_pct));
            metrics.insert("n_stable".into(), stable as f64);
            let f = Finding::new(spec, severity, why).with_metrics(metrics).with_flagged(impossible.clone());
            return Outcome::Findings(vec![f.with_judged(stable)]);
        }
        let mut f = Finding::not_judged(
            spec,
            &format!(
                "{} occupied fan-on samples with a stable temperature balance (at least {MIN_SAMPLES} needed)",
                judged.len()
            ),
        );
        f.metrics.insert("n_masked_fan_off".into(), fan_off as f64);
        f.metrics.insert("n_masked_small_delta_t".into(), small_dt as f64);
        return Outcome::Findings(vec![f]);
    }
    let judged_h: f64 = judged.iter().map(|j| w[j.0 as usize]).sum();
    let configured_any = !configured.is_nan() || !by_month.is_empty();
    let at_min: Vec<&(u32, f64, f64, bool)> = judged.iter().filter(|j| j.3).collect();
    let at_min_h: f64 = at_min.iter().map(|j| w[j.0 as usize]).sum();
    let excess: Vec<u32> = at_min.iter().filter(|j| j.1 > j.2 + MARGIN_PCT).map(|j| j.0).collect();
    let short: Vec<u32> = judged.iter().filter(|j| j.1 < j.2 - MARGIN_PCT).map(|j| j.0).collect();
    // `+ 0.0` turns the empty sum's -0.0 into 0.0
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    // too few samples where the economizer should sit at its minimum to call the excess either
    // way (a mild season): not judged
    let excess_judged = at_min.len() >= MIN_SAMPLES;
    let excess_pct = if excess_judged { 100.0 * hours(&excess) / at_min_h } else { 0.0 };
    let excess: Vec<u32> = if excess_judged { excess } else { Vec::new() };
    let short_pct = 100.0 * hours(&short) / judged_h;
    let median_oaf = median(&mut judged.iter().map(|j| j.1).collect::<Vec<_>>());
    let median_at_min = median(&mut at_min.iter().map(|j| j.1).collect::<Vec<_>>());
    let median_vs_min = median(&mut judged.iter().map(|j| j.1 - j.2).collect::<Vec<_>>());
    let all_positive = judged.iter().all(|j| j.2 > 0.0);
    let median_ratio =
        if all_positive { median(&mut judged.iter().map(|j| j.1 / j.2).collect::<Vec<_>>()) } else { f64::NAN };

    // unconfigured: the unit's own minimum, where it should sit at it
    // a minimum kept as a fixed outdoor airflow is a large fraction of a small supply airflow:
    // where the supply airflow is trended, the minimum is learned on the samples where it runs
    // at least HIGH_FLOW_SHARE of its peak (when there are enough of them)
    let flow = frame.col("airflow").filter(|f| f.iter().any(|v| *v > crate::oa_cost::MIN_PLAUSIBLE_CFM));
    let high_flow: Option<Vec<f64>> = flow.and_then(|f| {
        let peak = crate::engine::robust_peak(f)?;
        let at: Vec<f64> = at_min.iter().filter(|j| f[j.0 as usize] >= HIGH_FLOW_SHARE * peak).map(|j| j.1).collect();
        (at.len() >= MIN_SAMPLES).then_some(at)
    });
    let learned_on_high_flow = high_flow.is_some();
    // the outdoor airflow (cfm) on the at-minimum samples: held steady, it is a fixed minimum
    // outdoor airflow, whatever fraction of the supply that is
    let fixed_oa_cfm: Option<f64> = flow.and_then(|f| {
        let cfm: Vec<f64> = at_min.iter().map(|j| j.1 / 100.0 * f[j.0 as usize]).collect();
        crate::economizer::steady_oa_cfm(&cfm, MIN_SAMPLES)
    });
    let learned = (!configured_any && excess_judged).then(|| high_flow.map_or(median_at_min, |mut v| median(&mut v)));
    let sev_excess = match learned {
        _ if !excess_judged => Severity::Ok,
        Some(_) if fixed_oa_cfm.is_some() => Severity::Ok,
        Some(m) if m > PLAUSIBLE_MIN_OA_PCT => Severity::Warn,
        Some(_) => Severity::Ok,
        None if excess_pct >= 50.0 => Severity::Fault,
        None if excess_pct >= 20.0 => Severity::Warn,
        None => Severity::Ok,
    };
    let sev_under = if median_ratio < 0.5 {
        Severity::Fault
    } else if median_vs_min < -MARGIN_PCT {
        Severity::Warn
    } else {
        Severity::Ok
    };
    // a unit at its own plausible minimum flags no sample as excess
    let excess: Vec<u32> = if learned.is_some() && sev_excess == Severity::Ok { Vec::new() } else { excess };
    let under_worse = sev_under > sev_excess;
    let (severity, impossible_why) = balance(if under_worse { sev_under } else { sev_excess });
    let min_text =
        if by_month.is_empty() { format!("the {min_all}% minimum") } else { "each month's minimum".to_string() };
    let tail = if under_worse {
        format!("under-ventilation: median outdoor-air fraction {median_oaf:.0}% against {min_text} ({short_pct:.0}% of judged hours more than {MARGIN_PCT} points short)")
    } else if !excess_judged {
        format!("excess outdoor air not judged: {} sample(s) where the economizer should sit at its minimum (outdoor air above {cutoff} °F and the return, or the heating coil working), {MIN_SAMPLES} needed", at_min.len())
    } else if let Some(m) = learned {
        let verdict = if let Some(cfm) = fixed_oa_cfm {
            format!("a fixed minimum outdoor airflow of about {cfm:.0} cfm (steady whatever the supply airflow), taken as the unit's ventilation minimum (min_oa_pct is not set)")
        } else if m > PLAUSIBLE_MIN_OA_PCT {
            format!("above the {PLAUSIBLE_MIN_OA_PCT:.0}% a ventilation minimum plausibly needs: check the minimum damper position, or set min_oa_pct to the design minimum")
        } else {
            "taken as its own minimum (min_oa_pct is not set)".to_string()
        };
        format!("where the economizer should sit at its minimum (outdoor air above {cutoff} °F and the return, or heating) it takes a median {m:.0}% outdoor air, {verdict}")
    } else {
        format!("{excess_pct:.0}% of the hours where the economizer should sit at its minimum (outdoor air above {cutoff} °F and the return, or heating) more than {MARGIN_PCT} points above {min_text}")
    };
    let mut caveats = Vec::new();
    if !configured_any {
        caveats.push(format!(
            "min_oa_pct is not set: under-ventilation is judged against a generic {GENERIC_MIN_OA_PCT}% minimum, and excess against the unit's own minimum learned from its data ({}), not its design",
            learned.map_or_else(|| "too few samples to learn it".to_string(), |m| format!("{m:.0}%"))
        ));
    }
    if fan_src == "none" {
        caveats.push("no fan signal trended: samples were not fan-gated".into());
    }
    if occ.is_none() {
        caveats.push("no occupancy trended: occupied hours assumed to be weekdays 07:00-18:00".into());
    }
    let mut metrics = BTreeMap::new();
    metrics.insert("oaf_median_pct".into(), round2(median_oaf));
    if !median_at_min.is_nan() {
        metrics.insert("median_oaf_cooling".into(), round2(median_at_min));
    }
    if let Some(m) = learned {
        metrics.insert("learned_min_oa_pct".into(), round2(m));
        metrics.insert("learned_on_high_flow".into(), f64::from(u8::from(learned_on_high_flow)));
        if let Some(cfm) = fixed_oa_cfm {
            metrics.insert("fixed_min_oa_cfm".into(), round2(cfm));
        }
    }
    metrics.insert("n_heating".into(), heating_n as f64);
    if excess_judged {
        metrics.insert("excess_oa_pct".into(), round2(excess_pct));
    } else {
        caveats.push(format!(
            "only {} judged sample(s) in cooling weather: excess outdoor air is not judged",
            at_min.len()
        ));
    }
    metrics.insert("under_vent_pct".into(), round2(short_pct));
    metrics.insert("min_oa_pct".into(), min_all);
    metrics.insert("n_cooling".into(), at_min.len() as f64);
    metrics.insert("n_valid".into(), judged.len() as f64);
    metrics.insert("n_masked_fan_off".into(), fan_off as f64);
    metrics.insert("n_masked_small_delta_t".into(), small_dt as f64);
    metrics.insert("n_masked_out_of_range".into(), out_of_range as f64);
    metrics.insert("impossible_balance_pct".into(), round2(impossible_pct));
    metrics.insert("denom_min_f".into(), denom_min);
    // what the excess costs, for the RCx report's cost model (never the verdict): on every
    // judged sample, and only an excess verdict is priced
    let samples: Vec<crate::oa_cost::Judged> = judged.iter().map(|j| (j.0 as usize, j.1, j.2)).collect();
    metrics.extend(crate::oa_cost::metrics(frame, &samples, MARGIN_PCT));
    metrics.insert("oa_cost_flagged".into(), f64::from(u8::from(sev_excess != Severity::Ok)));
    metrics.insert("min_oa_configured".into(), f64::from(u8::from(!configured.is_nan() || !by_month.is_empty())));
    metrics.insert("min_oa_by_month".into(), f64::from(u8::from(!by_month.is_empty())));
    let n = judged.len();
    let impossible: Vec<u32> = if biased { impossible } else { Vec::new() };
    let mut flagged: Vec<u32> = excess.iter().chain(short.iter()).chain(impossible.iter()).copied().collect();
    flagged.sort_unstable();
    flagged.dedup();
    let summary = format!(
        "outdoor-air fraction median {median_oaf:.0}%{}; {tail}{}",
        if median_at_min.is_nan() {
            String::new()
        } else {
            format!(" ({median_at_min:.0}% where it should sit at its minimum)")
        },
        if fan_src == "none" { "; not fan-gated (no fan signal trended)" } else { "" }
    );
    let summary = match impossible_why {
        Some(why) => format!("{why}; {summary}"),
        None => summary,
    };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(n)
        .with_conditions(vec![
            Condition {
                name: "excess_oa".into(),
                flagged: excess.clone(),
                judged: if excess_judged { at_min.len() } else { 0 },
                judged_hours: at_min_h,
                flagged_hours: hours(&excess),
            },
            Condition {
                name: "under_ventilation".into(),
                flagged: short.clone(),
                judged: n,
                judged_hours: judged_h,
                flagged_hours: hours(&short),
            },
        ])])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, shuffled_with_duplicates, MINUTE, MONDAY};
    use crate::engine::NS_PER_HOUR;

    /// Hourly weekday office hours over `days` days: outdoor air at `oat(i)`, return at 72 °F,
    /// mixed air from an outdoor-air fraction `oaf(i)` %.
    fn frame(days: i64, oat: impl Fn(usize) -> f64, oaf: impl Fn(usize) -> f64, fan: f64) -> Frame {
        let ts: Vec<i64> = (0..days * 24).map(|h| MONDAY + h * NS_PER_HOUR).collect();
        let o: Vec<f64> = (0..ts.len()).map(&oat).collect();
        let m: Vec<f64> = (0..ts.len()).map(|i| 72.0 + oaf(i) / 100.0 * (o[i] - 72.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", o),
                ("mixed_air_temp", m),
                ("return_air_temp", vec![72.0; ts.len()]),
                ("supply_fan_status", vec![fan; ts.len()]),
            ],
        )
    }

    #[test]
    fn a_balance_no_damper_can_make_is_a_sensor_reading_wrong() {
        // 20 % outdoor air in hot weather, the return air sensor reading 6 °F warm: the mixed air
        // sits below both the outdoor and the (reported) return air
        let mut f = frame(7, |i| 84.0 + (i % 6) as f64, |_| 20.0, 1.0);
        let healthy = run(&RULE, &f, &Params::default());
        assert_eq!(healthy.metrics["impossible_balance_pct"], 0.0, "{}", healthy.summary);
        f.cols.insert("return_air_temp".into(), vec![78.0; f.len()]);
        f.cols.insert(
            "mixed_air_temp".into(),
            (0..f.len()).map(|i| 72.0 + 0.2 * (84.0 + (i % 6) as f64 - 72.0) - 0.5).collect(),
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Warn, "{}", r.summary);
        assert!(r.summary.starts_with("the mixing balance is impossible"), "{}", r.summary);
        assert_eq!(r.metrics["impossible_balance_pct"], 100.0);
    }

    fn with_min(min: f64) -> Params {
        let mut p = Params::default();
        p.values.insert("min_oa_pct".into(), ParamValue::Number(min));
        p
    }

    /// `frame` with a heating valve at `valve(i)` %.
    fn heating(
        days: i64,
        oat: impl Fn(usize) -> f64,
        oaf: impl Fn(usize) -> f64,
        valve: impl Fn(usize) -> f64,
    ) -> Frame {
        let mut f = frame(days, oat, oaf, 1.0);
        let v: Vec<f64> = (0..f.len()).map(valve).collect();
        f.cols.insert("heat_valve".into(), v);
        f
    }

    #[test]
    fn outdoor_air_cooler_than_the_return_is_free_cooling_not_excess() {
        // 65 °F outdoors is above a 60 °F cutoff but below the 72 °F return: an economizer rightly
        // takes all of it
        let p = crate::engine::testing::numbers(&[("min_oa_pct", 20.0), ("cooling_cutoff_f", 60.0)]);
        let r = run(&RULE, &frame(5, |_| 65.0, |_| 100.0, 1.0), &p);
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["n_cooling"], 0.0);
        // above the return it is excess
        let hot = run(&RULE, &frame(5, |_| 80.0, |_| 100.0, 1.0), &with_min(20.0));
        assert_eq!(hot.severity, Severity::Fault, "{}", hot.summary);
    }

    #[test]
    fn outdoor_air_taken_while_the_coil_heats_is_excess() {
        // a spring month: 45 °F outdoors, the heating coil working, 60 % outdoor air
        let spring = heating(5, |_| 45.0, |_| 60.0, |_| 30.0);
        let r = run(&RULE, &spring, &with_min(20.0));
        assert_eq!((r.severity, r.metrics["n_heating"]), (Severity::Fault, 55.0), "{}", r.summary);
        // at its 20 % minimum while heating: ok; economizing with the coil shut: not judged as excess
        assert_eq!(run(&RULE, &heating(5, |_| 45.0, |_| 20.0, |_| 30.0), &with_min(20.0)).severity, Severity::Ok);
        let econ = run(&RULE, &heating(5, |_| 45.0, |_| 60.0, |_| 0.0), &with_min(20.0));
        assert_eq!((econ.severity, econ.metrics["n_heating"]), (Severity::Ok, 0.0), "{}", econ.summary);
    }

    #[test]
    fn without_a_configured_minimum_the_units_own_is_learned() {
        // a healthy unit at its 28 % minimum in hot weather: not excess against a generic 20 %
        let r = run(&RULE, &frame(5, |_| 85.0, |i| 26.0 + (i % 5) as f64, 1.0), &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!(r.metrics["learned_min_oa_pct"], 28.0);
        assert!(r.flagged.is_empty());
        assert!(r.caveats.iter().any(|c| c.contains("learned")), "{:?}", r.caveats);
        // a minimum raised to 60 %, in summer or in a heating spring: warned
        let raised = run(&RULE, &frame(5, |_| 85.0, |_| 60.0, 1.0), &Params::default());
        assert_eq!(raised.severity, Severity::Warn, "{}", raised.summary);
        // a fixed 2,000 cfm minimum: 67 % of a 3,000 cfm supply on light days, 20 % of 10,000 on
        // heavy ones; learned where the supply runs near its peak, the minimum is 20 %
        let supply = |i: usize| if (i / 24).is_multiple_of(2) { 3000.0 } else { 10_000.0 };
        let mut fixed = heating(6, |_| 45.0, |i| 100.0 * 2000.0 / supply(i), |_| 30.0);
        fixed.cols.insert("airflow".into(), (0..fixed.len()).map(supply).collect());
        let r = run(&RULE, &fixed, &Params::default());
        assert_eq!((r.severity, r.metrics["learned_min_oa_pct"]), (Severity::Ok, 20.0), "{}", r.summary);
        assert_eq!((r.metrics["learned_on_high_flow"], r.metrics["fixed_min_oa_cfm"]), (1.0, 2000.0));
        // a light season: the supply never leaves its 3,000 cfm, the fixed 2,000 cfm minimum is 67 %
        let mut light = heating(5, |_| 45.0, |_| 100.0 * 2000.0 / 3000.0, |_| 30.0);
        light.cols.insert("airflow".into(), vec![3000.0; light.len()]);
        let r = run(&RULE, &light, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert!(r.summary.contains("fixed minimum outdoor airflow of about 2000 cfm"), "{}", r.summary);
        // a 60 % minimum on a supply that varies: the outdoor airflow follows it, and warns
        let mut frac = heating(6, |_| 45.0, |_| 60.0, |_| 30.0);
        frac.cols.insert("airflow".into(), (0..frac.len()).map(supply).collect());
        assert_eq!(run(&RULE, &frac, &Params::default()).severity, Severity::Warn);
        let spring = run(&RULE, &heating(5, |_| 45.0, |_| 60.0, |_| 30.0), &Params::default());
        assert_eq!(spring.severity, Severity::Warn, "{}", spring.summary);
        assert!(spring.summary.contains("check the minimum damper position"), "{}", spring.summary);
    }

    #[test]
    fn calendar_helpers() {
        assert_eq!(month(MONDAY), 1);
        assert_eq!(month(MONDAY + 31 * 24 * NS_PER_HOUR), 2);
        assert_eq!(month(MONDAY + 365 * 24 * NS_PER_HOUR), 12); // 2024 is a leap year
        assert!(assumed_occupied(MONDAY + 9 * NS_PER_HOUR));
        assert!(!assumed_occupied(MONDAY + 5 * 24 * NS_PER_HOUR + 9 * NS_PER_HOUR));
        // Saturday
    }

    #[test]
    fn a_unit_at_its_minimum_is_ok() {
        let f = run(&RULE, &frame(5, |_| 85.0, |_| 20.0, 1.0), &with_min(20.0));
        assert_eq!(f.severity, Severity::Ok);
        assert!((f.metrics["oaf_median_pct"] - 20.0).abs() < 0.01);
        assert_eq!(f.metrics["n_valid"], 55.0); // 5 weekdays x 11 occupied hours
        assert!(f.caveats.iter().any(|c| c.contains("occupancy")));
    }

    #[test]
    fn excess_in_cooling_weather_and_under_ventilation() {
        let hot = run(&RULE, &frame(5, |_| 85.0, |_| 60.0, 1.0), &with_min(20.0));
        assert_eq!(hot.severity, Severity::Fault);
        assert_eq!(hot.metrics["excess_oa_pct"], 100.0);
        // the same excess in mild weather is free cooling, not a penalty
        let mild = run(&RULE, &frame(5, |_| 60.0, |_| 60.0, 1.0), &with_min(20.0));
        assert_eq!(mild.severity, Severity::Ok);
        let starved = run(&RULE, &frame(5, |_| 85.0, |_| 5.0, 1.0), &with_min(20.0));
        assert_eq!(starved.severity, Severity::Fault);
        assert!(starved.summary.contains("under-ventilation"), "{}", starved.summary);
        let short = run(&RULE, &frame(5, |_| 85.0, |_| 13.0, 1.0), &with_min(20.0));
        assert_eq!(short.severity, Severity::Warn);
    }

    #[test]
    fn a_few_hot_hours_do_not_decide_excess() {
        // five cooling-weather samples (noon each day) at 60 % in a mild week: not enough to call excess
        let f = run(
            &RULE,
            &frame(5, |i| if i % 24 == 12 && i < 9 * 24 { 85.0 } else { 60.0 }, |_| 60.0, 1.0),
            &with_min(20.0),
        );
        assert_eq!(f.metrics["n_cooling"], 5.0);
        assert_eq!(f.severity, Severity::Ok);
        assert!(!f.metrics.contains_key("excess_oa_pct"));
        assert!(f.caveats.iter().any(|c| c.contains("not judged")), "{:?}", f.caveats);
    }

    #[test]
    fn the_threshold_boundary() {
        // excess on exactly 20 % of cooling hours (the first of five weekdays) is a warning;
        // one hour fewer is not
        let at = run(&RULE, &frame(5, |_| 85.0, |i| if i < 24 { 60.0 } else { 20.0 }, 1.0), &with_min(20.0));
        assert_eq!(at.metrics["excess_oa_pct"], 20.0);
        assert_eq!(at.severity, Severity::Warn);
        let under =
            run(&RULE, &frame(5, |_| 85.0, |i| if i < 24 && i != 9 { 60.0 } else { 20.0 }, 1.0), &with_min(20.0));
        assert_eq!(under.severity, Severity::Ok, "{}", under.summary);
        let inside = run(&RULE, &frame(5, |_| 85.0, |_| 24.9, 1.0), &with_min(20.0));
        assert_eq!(inside.metrics["excess_oa_pct"], 0.0);
    }

    #[test]
    fn fan_off_small_balance_and_missing_inputs() {
        let off = run(&RULE, &frame(5, |_| 85.0, |_| 60.0, 0.0), &with_min(20.0));
        assert_eq!(off.severity, Severity::Info);
        assert_eq!(off.metrics["n_masked_fan_off"], 55.0);
        let close = run(&RULE, &frame(5, |_| 70.0, |_| 60.0, 1.0), &with_min(20.0));
        assert_eq!(close.severity, Severity::Info, "|RAT-OAT| of 2 °F is not judged");
        let mut f = frame(5, |_| 85.0, |_| 20.0, 1.0);
        f.cols.remove("oat");
        assert_eq!(run(&RULE, &f, &with_min(20.0)).severity, Severity::Info);
        f.cols.remove("return_air_temp");
        assert_eq!(
            outcome(&RULE, &f, &Params::default()),
            Outcome::Skipped { missing: vec!["return_air_temp".into()] }
        );
    }

    #[test]
    fn gaps_duplicates_and_disorder() {
        let base = frame(5, |_| 85.0, |i| if i < 48 { 60.0 } else { 20.0 }, 1.0);
        // reversed with every row repeated: same answer
        let shuffled = shuffled_with_duplicates(&base);
        assert_eq!(
            run(&RULE, &shuffled, &with_min(20.0)).metrics["excess_oa_pct"],
            run(&RULE, &base, &with_min(20.0)).metrics["excess_oa_pct"]
        );
        // a gap: the excess hours are on day 1 only; removing day 2-3 raises their share
        let keep: Vec<usize> = (0..base.len()).filter(|&i| !(48..96).contains(&i)).collect();
        let gapped = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let g = run(&RULE, &gapped, &with_min(20.0));
        assert!(g.metrics["excess_oa_pct"] > run(&RULE, &base, &with_min(20.0)).metrics["excess_oa_pct"]);
        assert_eq!(g.metrics["n_valid"], 33.0); // three weekdays remain
    }
    /// The step (minutes) after the k-th sample of an uneven trend: mostly 17 minutes with
    /// 1- and 5-minute steps between, so the typical step is 17 minutes and none is capped.
    const STEPS: [i64; 5] = [17, 1, 17, 5, 17];

    /// Five days from Monday at uneven steps, outdoor air at 85 °F, return at 72 °F, mixed air
    /// from an outdoor-air fraction `oaf(k)` % at the k-th sample.
    fn uneven(oaf: impl Fn(usize) -> f64) -> Frame {
        let mut ts = vec![MONDAY];
        while *ts.last().unwrap() < MONDAY + 5 * 24 * NS_PER_HOUR {
            let k = ts.len() - 1;
            ts.push(ts[k] + STEPS[k % 5] * MINUTE);
        }
        let n = ts.len();
        let m: Vec<f64> = (0..n).map(|k| 72.0 + oaf(k) / 100.0 * (85.0 - 72.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", vec![85.0; n]),
                ("mixed_air_temp", m),
                ("return_air_temp", vec![72.0; n]),
                ("supply_fan_status", vec![1.0; n]),
            ],
        )
    }

    #[test]
    fn irregular_sampling_is_weighted_by_time() {
        let f = uneven(|_| 20.0);
        assert_eq!(f.typical_step(), Some(17 * MINUTE));
        let ok = run(&RULE, &f, &with_min(20.0));
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        // the judged time is five weekdays of 11 occupied hours, whatever the sample count
        let h = ok.conditions[1].judged_hours;
        assert!((h - 55.0).abs() < 1.0, "{h}");
        assert!(ok.metrics["n_valid"] > 250.0);
        let hot = run(&RULE, &uneven(|_| 60.0), &with_min(20.0));
        assert_eq!((hot.severity, hot.metrics["excess_oa_pct"]), (Severity::Fault, 100.0));
        // excess only on the densely logged samples (those followed by a 1- or 5-minute step):
        // 40 % of the samples, a warning by count, but 6 of every 57 minutes
        let dense = |k: usize| STEPS[k % 5] < 17;
        let r = run(&RULE, &uneven(|k| if dense(k) { 60.0 } else { 20.0 }), &with_min(20.0));
        let x = r.metrics["excess_oa_pct"];
        assert!((9.5..11.5).contains(&x), "time share 6/57 = 10.5 %, not the 40 % sample share: {x}");
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        let share = r.conditions[0].flagged.len() as f64 / r.conditions[0].judged as f64;
        assert!((share - 0.4).abs() < 0.01, "{share}");
        // the same for short samples: the under-ventilated share is of time
        let r = run(&RULE, &uneven(|k| if dense(k) { 5.0 } else { 20.0 }), &with_min(20.0));
        let u = r.metrics["under_vent_pct"];
        assert!((9.5..11.5).contains(&u), "{u}");
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn a_monthly_minimum_and_the_generic_default() {
        let mut p = Params::default();
        let mut months = vec![20.0; 12];
        months[0] = 60.0; // January asks for 60 %
        p.values.insert("min_oa_pct_by_month".into(), ParamValue::List(months));
        assert_eq!(run(&RULE, &frame(5, |_| 85.0, |_| 60.0, 1.0), &p).severity, Severity::Ok);
        let d = run(&RULE, &frame(5, |_| 85.0, |_| 20.0, 1.0), &Params::default());
        assert!(d.caveats.iter().any(|c| c.contains("generic")));
        p.values.insert("min_oa_pct_by_month".into(), ParamValue::List(vec![20.0; 3]));
        assert_eq!(run(&RULE, &frame(5, |_| 85.0, |_| 20.0, 1.0), &p).severity, Severity::Info);
    }
}
