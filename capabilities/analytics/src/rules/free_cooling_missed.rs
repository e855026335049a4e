//! `free_cooling_missed`: mechanical cooling runs while the outdoor air is cool enough to cool
//! with, and the economizer is not on full outdoor air. Judged on fan-on samples with outdoor air
//! below `high_limit_f` (and, with a `low_limit_f`, not below the sequence's freeze-protection
//! lockout): a sample is missed free cooling when the cooling valve is above `active` % and the
//! unit is not on (nearly) all outdoor air, which would be an integrated economizer doing its
//! job. Warning at `warn_pct` and fault at `fault_pct` of the free-cooling hours. A unit seen to
//! economize only up to a changeover a few degrees below `high_limit_f` is taken at its own
//! changeover. With a damper and mixed and return air, the finding also says why free cooling
//! was missed: a damper commanded open that does not deliver outdoor air, or one never commanded.

use std::collections::BTreeMap;

use crate::economizer::{
    balance_oaf, on_full_outdoor_air, percent_scale, percentile_at, read_at, running, FanGate, BALANCE_MIN_DELTA_F,
};
use crate::engine::{
    median, round2, severity_of, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity,
};

/// How far (°F) below `high_limit_f` a unit's own changeover may sit and still be taken as its
/// high limit; an economizer that quits earlier than that is missing free cooling.
const CHANGEOVER_TOLERANCE_F: f64 = 3.0;
/// Below its changeover a unit switches back and forth across a deadband (°F).
const CHANGEOVER_DEADBAND_F: f64 = 2.0;
/// Damper points above its running minimum (its 5th percentile) that show the economizer open.
const ECONOMIZING_ABOVE_MIN_PCT: f64 = 10.0;
/// Fewest samples seen economizing before a changeover is read from them.
const MIN_ECONOMIZING: usize = 10;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "free_cooling_missed",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["cool_valve", "oat"],
            optional: &["oa_damper", "mixed_air_temp", "return_air_temp", "supply_fan_status", "supply_fan_speed", "airflow"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number("high_limit_f", 60.0, "°F (outdoor air dry-bulb)", (45.0, 75.0),
                "a deliberately low screening limit: under 60 °F outdoor air can cool a building in any climate, so cooling there without it is plainly missed; codes set the real limit by climate (ASHRAE 90.1 §6.5.1.1.3, the PNNL economizer guide)",
                "Use the dry-bulb high limit in the unit's economizer sequence, or a few degrees under the energy code's limit for the climate zone; from trends, the warmest outdoor air at which the damper still opens fully over a good summer."),
            ParamSpec::number("active", 5.0, "% of valve stroke (cooling valve)", (1.0, 20.0),
                "a valve resting a few percent open is not mechanical cooling at work",
                "Set it just above the cooling valve's reading with cooling off (its 95th percentile with the plant or compressor off in a good period)."),
            ParamSpec::number("warn_pct", 10.0, "% of free-cooling hours", (2.0, 30.0),
                "a tenth of the free-cooling hours cooled mechanically is more than a changeover's overshoot",
                "Read missed_pct on units whose economizers are known to work and set this above their spread."),
            ParamSpec::number("fault_pct", 25.0, "% of free-cooling hours", (10.0, 60.0),
                "a quarter of the free-cooling hours is an economizer that does not do its job",
                "Keep it well above warn_pct (it must not be below it)."),
            ParamSpec::number("cmd_open_pct", 90.0, "% of damper stroke (OA damper command)", (50.0, 100.0),
                "a damper told to open fully often reads a few percent short of 100",
                "Use a few percent below the command a good unit's damper holds at full economizer; it only sorts the cause, never the severity."),
            ParamSpec::number("oaf_open_pct", 80.0, "% outdoor-air fraction (temperature balance)", (50.0, 100.0),
                "sensor error and a stratified mixing box keep a unit on all outdoor air from reading 100 %",
                "Compute the balance fraction on a good unit's full-economizer hours (|OAT - RAT| of 5 °F or more) and set this under their low percentile; it only sorts the cause."),
            ParamSpec::number("stuck_min_share_pct", 20.0, "% of missed, well-conditioned free-cooling hours", (5.0, 60.0),
                "working dampers are almost never commanded open without delivering air, a stuck one is for a large share (checked on LBNL single- and dual-duct AHU fault runs)",
                "Read commanded_open_pct on units with dampers known to work (usually 0) and set this well above it and below a known stuck damper's."),
            ParamSpec::number("stuck_min_hours", 24.0, "hours", (6.0, 168.0),
                "a day of evidence before a mechanical cause is named",
                "Raise it for long windows or a noisy mixed-air sensor; a day is the floor for hourly trends."),
            ParamSpec::number("stuck_low_oaf_pct", 30.0, "% outdoor-air fraction", (5.0, 60.0),
                "under 30 % a damper delivers about its minimum share of outdoor air or less",
                "Set it a margin above the unit's design minimum fraction: a commanded-open damper delivering less reads stuck low, more reads stuck part open."),
            ParamSpec::number("low_limit_f", f64::NAN, "°F (outdoor air dry-bulb; unset: no low-limit lockout)", (20.0, 50.0),
                "a freeze-protection lockout belongs to the unit's own sequence, so none is assumed",
                "Set it to the economizer low-limit lockout in the sequence (from trends, the outdoor air below which the damper never leaves minimum over a good winter); it must be below high_limit_f."),
            ParamSpec::flag("fan_gate", true,
                "with the fan stopped no air crosses the coil and there is nothing for an economizer to do",
                "Keep it on; turn it off only when the fan signal is known wrong and every trended sample is a running one."),
        ],
        judged_basis: "fan-on samples in free-cooling weather",
    }
}

/// Why free cooling was missed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cause {
    DamperNotDelivering,
    NotCommanded,
    Undetermined,
}

/// The unit's own changeover, when it shows one under `high_limit`: the warmest outdoor air
/// (°F, the 98th percentile) at which it is seen economizing (the damper open beyond its running
/// minimum, or the unit on all outdoor air), provided it is also seen running without economizing
/// in warmer weather under `high_limit`. `None` unless both are seen on `MIN_ECONOMIZING` samples
/// (a spell of cool weather alone shows no changeover).
fn demonstrated_changeover(
    frame: &Frame,
    oat: &[f64],
    run: &[bool],
    full_oa: Option<&[bool]>,
    high_limit: f64,
) -> Option<f64> {
    let damper = frame.col("oa_damper");
    let scale = damper.map_or(1.0, percent_scale);
    let min_pos = damper.map(|d| percentile_at(d, (0..frame.len()).filter(|&i| run[i]), 5.0) * scale);
    let economizing = |i: usize| {
        damper.zip(min_pos).is_some_and(|(d, m)| d[i] * scale > m + ECONOMIZING_ABOVE_MIN_PCT)
            || full_oa.is_some_and(|f| f[i])
    };
    let (econ, idle): (Vec<usize>, Vec<usize>) =
        (0..frame.len()).filter(|&i| run[i] && !oat[i].is_nan()).partition(|&i| economizing(i));
    if econ.len() < MIN_ECONOMIZING {
        return None;
    }
    let c = percentile_at(oat, econ.into_iter(), 98.0);
    (idle.iter().filter(|&&i| oat[i] > c && oat[i] < high_limit).count() >= MIN_ECONOMIZING).then_some(c)
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (cool_raw, oat) = (frame.required("cool_valve"), frame.required("oat"));
    let p = |name: &str| params.number(spec, name);
    let (high_limit, low_limit, active) = (p("high_limit_f"), p("low_limit_f"), p("active"));
    if low_limit >= high_limit {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            &format!("low_limit_f ({low_limit} °F) must be below high_limit_f ({high_limit} °F)"),
        )]);
    }
    let n = frame.len();
    let scale = percent_scale(cool_raw);
    let cool: Vec<f64> = cool_raw.iter().map(|c| c * scale).collect();
    let (run, gate) = running(frame, params.flag(spec, "fan_gate") != Some(false));
    let full_oa = on_full_outdoor_air(frame, oat);
    let w = frame.weights_hours();
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;

    let below_low = |i: usize| oat[i] < low_limit;
    let read = |i: usize| !oat[i].is_nan() && !cool[i].is_nan();
    let weather = |i: usize| oat[i] < high_limit && !below_low(i);
    let fan_off = (0..n).filter(|&i| weather(i) && read(i) && !run[i]).count();
    let locked: Vec<u32> = (0..n).filter(|&i| below_low(i) && read(i) && run[i]).map(|i| i as u32).collect();
    let locked_cooling: Vec<u32> = locked.iter().copied().filter(|&i| cool[i as usize] > active).collect();

    // a unit seen to change over a little under the screening limit is held to its own changeover
    let changeover = demonstrated_changeover(frame, oat, &run, full_oa.as_deref(), high_limit);
    let own_limit = changeover.filter(|&c| c < high_limit && c >= high_limit - CHANGEOVER_TOLERANCE_F);
    let beyond = |i: usize| own_limit.is_some_and(|c| oat[i] >= c - CHANGEOVER_DEADBAND_F);
    let candidates: Vec<usize> = crate::engine::rows_where(n, |i| weather(i) && read(i) && run[i]);
    let beyond_idx: Vec<u32> = candidates.iter().filter(|&&i| beyond(i)).map(|&i| i as u32).collect();
    let beyond_cooling: Vec<u32> = beyond_idx.iter().copied().filter(|&i| cool[i as usize] > active).collect();
    let available: Vec<u32> = candidates.iter().filter(|&&i| !beyond(i)).map(|&i| i as u32).collect();

    let mut metrics = BTreeMap::new();
    metrics.insert("high_limit_f".into(), high_limit);
    metrics.insert("active_pct".into(), active);
    metrics.insert("n_masked_fan_off".into(), fan_off as f64);
    if !low_limit.is_nan() {
        metrics.insert("low_limit_f".into(), low_limit);
        metrics.insert("low_limit_excluded_hours".into(), round2(hours(&locked)));
        metrics.insert("low_limit_cooling_hours".into(), round2(hours(&locked_cooling)));
    }
    if let Some(c) = changeover {
        metrics.insert("demonstrated_changeover_f".into(), round2(c));
    }
    let mut caveats = Vec::new();
    if !locked.is_empty() {
        caveats.push(format!(
            "{:.1} h with outdoor air below the {low_limit} °F low-limit lockout are not free-cooling weather{}: the sequence holds the damper at minimum there by design (the lockout itself is not checked; confirm it against the sequence)",
            hours(&locked),
            if locked_cooling.is_empty() { String::new() } else { format!(" (mechanical cooling ran in {:.1} h of them)", hours(&locked_cooling)) }
        ));
    }
    if let Some(c) = own_limit.filter(|_| !beyond_idx.is_empty()) {
        metrics.insert("beyond_changeover_hours".into(), round2(hours(&beyond_idx)));
        metrics.insert("beyond_changeover_cooling_hours".into(), round2(hours(&beyond_cooling)));
        caveats.push(format!(
            "the economizer is seen working up to about {c:.1} °F outdoor air, under high_limit_f ({high_limit} °F): taken as the unit's own changeover, {:.1} h from {:.1} °F up (cooling in {:.1} h of them) are not judged; set high_limit_f to the sequence's value to judge them",
            hours(&beyond_idx),
            c - CHANGEOVER_DEADBAND_F,
            hours(&beyond_cooling)
        ));
    } else if let Some(c) = changeover.filter(|&c| c < high_limit - CHANGEOVER_TOLERANCE_F) {
        caveats.push(format!("the economizer is seen working only below about {c:.1} °F outdoor air: its high limit may be set too low, and cooling above that counts as missed"));
    }
    match gate {
        FanGate::NoSignal => caveats.push("no fan signal trended: samples were not fan-gated".into()),
        FanGate::Disabled => caveats.push("fan gate turned off: every sample was judged as running".into()),
        FanGate::From(_) => {}
    }
    if available.is_empty() {
        let with_fan = if fan_off > 0 { " with the supply fan on" } else { "" };
        let mut f = Finding::not_judged(
            spec,
            &format!("no free-cooling weather (outdoor air below {high_limit} °F){with_fan}"),
        );
        f.caveats.extend(caveats);
        f.metrics = metrics;
        return Outcome::Findings(vec![f]);
    }

    let cooling: Vec<u32> = available.iter().copied().filter(|&i| cool[i as usize] > active).collect();
    let (integrated, missed): (Vec<u32>, Vec<u32>) =
        cooling.iter().partition(|&&i| full_oa.as_ref().is_some_and(|f| f[i as usize]));
    let (avail_h, missed_h, integ_h) = (hours(&available), hours(&missed), hours(&integrated));
    let pct = if avail_h > 0.0 { 100.0 * missed_h / avail_h } else { 0.0 };
    let severity = severity_of(pct, p("warn_pct"), p("fault_pct"));
    if full_oa.is_none() {
        caveats.push("no outdoor-air damper and no mixed and return air: an integrated economizer (cooling on all outdoor air) cannot be told from missed free cooling, so the missed share may be overstated".into());
    }

    let cause =
        if missed.is_empty() { None } else { Some(missed_cause(frame, oat, &missed, &w, params, spec, &mut metrics)) };
    metrics.insert("missed_pct".into(), round2(pct));
    // the mechanical cooling that all outdoor air would have spared, for the RCx report's cost
    // model: the coil would have cooled from the outdoor air (or not at all, when it is below the
    // supply air) instead of from the mixed air, so per cfm 1.08 x (MAT - max(OAT, SAT))
    if let (Some(mat), Some(sat)) = (frame.col("mixed_air_temp"), frame.col("supply_air_temp")) {
        let flow = frame.col("airflow").filter(|f| f.iter().any(|v| *v > crate::oa_cost::MIN_PLAUSIBLE_CFM));
        let (mut dfh, mut btu, mut btu_known) = (0.0, 0.0, true);
        for &i in &missed {
            let i = i as usize;
            if mat[i].is_nan() || sat[i].is_nan() {
                continue;
            }
            let spared = (mat[i] - oat[i].max(sat[i])).max(0.0);
            dfh += spared * w[i];
            match flow.map(|f| f[i]).filter(|v| *v > 0.0) {
                Some(cfm) => btu += crate::oa_cost::SENSIBLE_BTUH_PER_CFM_F * cfm * spared * w[i],
                None => btu_known = false,
            }
        }
        let observed: f64 = (0..n).filter(|&i| !oat[i].is_nan()).map(|i| w[i]).sum();
        metrics.insert("missed_cool_degf_h".into(), round2(dfh));
        metrics.insert("observed_hours".into(), round2(observed));
        if flow.is_some() && btu_known {
            metrics.insert("missed_cool_kbtu".into(), round2(btu / 1e3));
        }
    }
    metrics.insert("n_free_cooling_samples".into(), available.len() as f64);
    metrics.insert("free_cooling_hours".into(), round2(avail_h));
    if full_oa.is_some() {
        metrics.insert("n_integrated_economizer_samples".into(), integrated.len() as f64);
        metrics.insert("integrated_economizer_hours".into(), round2(integ_h));
    }
    let mut summary = format!(
        "mechanical cooling (valve above {active}%) ran off the economizer in {pct:.0}% of {avail_h:.1} free-cooling hours (outdoor air below {high_limit} °F)"
    );
    if !integrated.is_empty() {
        let share = 100.0 * integ_h / avail_h;
        let share = if share < 1.0 { "under 1%".to_string() } else { format!("{share:.0}%") };
        summary += &format!("; {share} more on nearly all outdoor air (an integrated economizer, not counted)");
    }
    match cause {
        Some(Cause::DamperNotDelivering) => {
            let oaf = metrics.get("commanded_open_oaf_median_pct").copied().unwrap_or(f64::NAN);
            let how = if oaf < p("stuck_low_oaf_pct") { "stuck low" } else { "stuck part open" };
            summary += &format!("; the damper was commanded open yet delivered a median {oaf:.0}% outdoor air ({how})");
        }
        Some(Cause::NotCommanded) => {
            summary += "; the damper was not commanded open (the economizer was not enabled or not sequenced)"
        }
        Some(Cause::Undetermined) if severity >= Severity::Warn => summary += "; why is undetermined",
        _ => {}
    }
    let judged = available.len();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(missed.clone())
        .with_judged(judged)
        .with_conditions(vec![
            Condition {
                name: "missed_free_cooling".into(),
                flagged: missed,
                judged,
                judged_hours: avail_h,
                flagged_hours: missed_h,
            },
            Condition {
                name: "integrated_economizer".into(),
                flagged: integrated,
                judged,
                judged_hours: avail_h,
                flagged_hours: integ_h,
            },
        ])])
}

/// Why the missed samples were missed, with its metrics: on samples with a well-conditioned
/// balance, a damper commanded open (at or above `cmd_open_pct`) whose outdoor-air fraction stays
/// under `oaf_open_pct` on at least `stuck_min_share_pct` % of those hours, and on at least
/// `stuck_min_hours`, is not delivering; a smaller share means it was never commanded open.
fn missed_cause(
    frame: &Frame,
    oat: &[f64],
    missed: &[u32],
    w: &[f64],
    params: &Params,
    spec: &RuleSpec,
    metrics: &mut BTreeMap<String, f64>,
) -> Cause {
    let p = |name: &str| params.number(spec, name);
    let Some(cmd) = frame.col("oa_damper") else {
        return Cause::Undetermined;
    };
    let scale = percent_scale(cmd);
    let at_missed = read_at(cmd, missed.iter().map(|&i| i as usize));
    if !at_missed.is_empty() {
        metrics.insert(
            "missed_damper_cmd_median_pct".into(),
            round2(median(&mut at_missed.iter().map(|c| c * scale).collect::<Vec<_>>())),
        );
    }
    let (Some(mat), Some(rat)) = (frame.col("mixed_air_temp"), frame.col("return_air_temp")) else {
        // the full-air test read the damper alone, so every missed sample was commanded short of open
        return Cause::NotCommanded;
    };
    let stable: Vec<(usize, f64)> = missed
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| !cmd[i].is_nan())
        .filter_map(|i| balance_oaf(oat[i], mat[i], rat[i], BALANCE_MIN_DELTA_F).map(|oaf| (i, oaf)))
        .collect();
    if stable.is_empty() {
        return Cause::Undetermined;
    }
    let open: Vec<&(usize, f64)> =
        stable.iter().filter(|(i, oaf)| cmd[*i] * scale >= p("cmd_open_pct") && *oaf < p("oaf_open_pct")).collect();
    let stable_h: f64 = stable.iter().map(|(i, _)| w[*i]).sum();
    let open_h: f64 = open.iter().map(|(i, _)| w[*i]).sum::<f64>() + 0.0;
    let share = if stable_h > 0.0 { 100.0 * open_h / stable_h } else { 0.0 };
    metrics.insert("commanded_open_pct".into(), round2(share));
    metrics.insert("commanded_open_hours".into(), round2(open_h));
    if !open.is_empty() {
        metrics.insert(
            "commanded_open_oaf_median_pct".into(),
            round2(median(&mut open.iter().map(|(_, o)| *o).collect::<Vec<_>>())),
        );
    }
    match (share >= p("stuck_min_share_pct"), open_h >= p("stuck_min_hours")) {
        (true, true) => Cause::DamperNotDelivering,
        // the pattern is there, on too few hours to name it
        (true, false) => Cause::Undetermined,
        _ => Cause::NotCommanded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, shuffled_with_duplicates};
    use crate::engine::{ParamValue, NS_PER_HOUR};

    /// Hourly over `n` hours: outdoor air `oat(i)`, return air 74 °F, the damper at `damper(i)` %
    /// delivering that share of outdoor air (mixed air from the balance), the cooling valve at
    /// `valve(i)` %, the fan on.
    fn frame(
        n: usize,
        oat: impl Fn(usize) -> f64,
        damper: impl Fn(usize) -> f64,
        valve: impl Fn(usize) -> f64,
    ) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|h| h * NS_PER_HOUR).collect();
        let o: Vec<f64> = (0..n).map(&oat).collect();
        let d: Vec<f64> = (0..n).map(&damper).collect();
        let m: Vec<f64> = (0..n).map(|i| 74.0 + d[i] / 100.0 * (o[i] - 74.0)).collect();
        Frame::from_rows(
            &ts,
            &[
                ("oat", o),
                ("oa_damper", d),
                ("mixed_air_temp", m),
                ("return_air_temp", vec![74.0; n]),
                ("cool_valve", (0..n).map(&valve).collect()),
                ("supply_fan_status", vec![1.0; n]),
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

    #[test]
    fn an_economizer_at_work_is_ok_and_one_at_minimum_is_found() {
        // cool weather: the damper fully open carries the cooling, or cooling on all outdoor air
        let ok =
            run(&RULE, &frame(100, |_| 50.0, |_| 100.0, |i| if i % 2 == 0 { 30.0 } else { 0.0 }), &Params::default());
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert_eq!(ok.metrics["n_integrated_economizer_samples"], 50.0);
        assert!(ok.summary.contains("integrated"), "{}", ok.summary);
        let stuck = run(&RULE, &frame(100, |_| 50.0, |_| 20.0, |_| 40.0), &Params::default());
        assert_eq!(stuck.severity, Severity::Fault);
        assert_eq!((stuck.metrics["missed_pct"], stuck.flagged.len()), (100.0, 100));
        assert!(stuck.summary.contains("not commanded open"), "{}", stuck.summary);
    }

    #[test]
    fn the_cooling_all_outdoor_air_would_have_spared_is_measured_for_its_cost() {
        // stuck at 20 %: mixed air 69.2 °F; with supply air at 55 °F and outdoor air at 50 °F,
        // all outdoor air would have spared the coil all 14.2 °F, each of the 100 h
        let mut f = frame(100, |_| 50.0, |_| 20.0, |_| 40.0);
        f.cols.insert("supply_air_temp".into(), vec![55.0; 100]);
        let r = run(&RULE, &f, &Params::default());
        assert!((r.metrics["missed_cool_degf_h"] - 1420.0).abs() < 0.01, "{:?}", r.metrics);
        assert!(!r.metrics.contains_key("missed_cool_kbtu"), "no airflow trended");
        f.cols.insert("airflow".into(), vec![4000.0; 100]);
        let r = run(&RULE, &f, &Params::default());
        assert!((r.metrics["missed_cool_kbtu"] - 1.08 * 4000.0 * 1420.0 / 1e3).abs() < 0.01, "{:?}", r.metrics);
    }

    #[test]
    fn a_damper_commanded_open_that_delivers_no_air() {
        // the damper reads 100 % but the mixed air says 25 % outdoor air
        let mut f = frame(48, |_| 50.0, |_| 25.0, |_| 40.0);
        f.cols.insert("oa_damper".into(), vec![100.0; 48]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert_eq!(r.metrics["commanded_open_pct"], 100.0);
        assert!(r.summary.contains("stuck low"), "{}", r.summary);
        // a day's evidence is needed before it is named
        let short = frame(20, |_| 50.0, |_| 25.0, |_| 40.0);
        let mut short = short;
        short.cols.insert("oa_damper".into(), vec![100.0; 20]);
        let r = run(&RULE, &short, &Params::default());
        assert!(!r.summary.contains("stuck"), "{}", r.summary);
    }

    #[test]
    fn the_share_boundary() {
        let at = |k: usize| {
            run(&RULE, &frame(100, |_| 50.0, |_| 20.0, move |i| if i < k { 40.0 } else { 0.0 }), &Params::default())
                .severity
        };
        assert_eq!(at(9), Severity::Ok);
        assert_eq!(at(10), Severity::Warn);
        assert_eq!(at(24), Severity::Warn);
        assert_eq!(at(25), Severity::Fault);
        // a valve at exactly `active` is not cooling; just above it is
        assert_eq!(run(&RULE, &frame(50, |_| 50.0, |_| 20.0, |_| 5.0), &Params::default()).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(50, |_| 50.0, |_| 20.0, |_| 5.1), &Params::default()).severity, Severity::Fault);
        // outdoor air at the high limit is not free-cooling weather
        assert_eq!(run(&RULE, &frame(50, |_| 60.0, |_| 20.0, |_| 40.0), &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn the_units_own_changeover_just_under_the_limit() {
        // outdoor air cycling 45-59 °F; the economizer fully open up to `c` °F and at minimum above
        // it, cooling from 55 °F: a changeover within 3 °F of the limit is the unit's own
        let oat = |i: usize| 45.0 + (i % 15) as f64;
        let unit = |c: f64| {
            run(
                &RULE,
                &frame(
                    150,
                    oat,
                    move |i| if oat(i) <= c { 100.0 } else { 20.0 },
                    |i| if oat(i) >= 55.0 { 40.0 } else { 0.0 },
                ),
                &Params::default(),
            )
        };
        let own = unit(58.0);
        assert_eq!(own.severity, Severity::Ok, "{}", own.summary);
        assert_eq!(own.metrics["demonstrated_changeover_f"], 58.0);
        assert!(own.caveats.iter().any(|c| c.contains("own changeover")), "{:?}", own.caveats);
        assert_eq!(unit(57.0).severity, Severity::Ok);
        // one degree further and the economizer quits too early: 57-59 °F are missed
        let early = unit(56.0);
        assert_eq!((early.severity, early.metrics["missed_pct"]), (Severity::Warn, 20.0), "{}", early.summary);
        assert!(early.caveats.iter().any(|c| c.contains("too low")), "{:?}", early.caveats);
        // a cool spell alone, with no warmer weather at minimum, shows no changeover
        let cool = run(&RULE, &frame(100, |_| 50.0, |_| 100.0, |_| 0.0), &Params::default());
        assert!(!cool.metrics.contains_key("demonstrated_changeover_f"));
    }

    #[test]
    fn fan_off_low_limit_and_a_bad_low_limit() {
        let mut off = frame(50, |_| 50.0, |_| 20.0, |_| 40.0);
        off.cols.insert("supply_fan_status".into(), vec![0.0; 50]);
        let r = run(&RULE, &off, &Params::default());
        assert_eq!((r.severity, r.metrics["n_masked_fan_off"]), (Severity::Info, 50.0));
        let low = with(&[("low_limit_f", ParamValue::Number(40.0))]);
        let r = run(
            &RULE,
            &frame(100, |i| if i < 60 { 35.0 } else { 50.0 }, |_| 20.0, |i| if i < 60 { 40.0 } else { 0.0 }),
            &low,
        );
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        assert_eq!((r.metrics["low_limit_excluded_hours"], r.judged), (60.0, 40));
        let bad = with(&[("low_limit_f", ParamValue::Number(50.0)), ("high_limit_f", ParamValue::Number(50.0))]);
        assert_eq!(run(&RULE, &frame(10, |_| 45.0, |_| 20.0, |_| 40.0), &bad).severity, Severity::Info);
    }

    #[test]
    fn without_a_damper_or_mixing_temperatures_integration_is_unknown() {
        let mut f = frame(50, |_| 50.0, |_| 100.0, |_| 40.0);
        for r in ["oa_damper", "mixed_air_temp", "return_air_temp"] {
            f.cols.remove(r);
        }
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("overstated")), "{:?}", r.caveats);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let base = frame(100, |_| 50.0, |_| 20.0, |i| if i < 20 { 40.0 } else { 0.0 });
        let shuffled = shuffled_with_duplicates(&base);
        let twice = run(&RULE, &shuffled, &Params::default());
        assert_eq!((twice.judged, twice.metrics["missed_pct"]), (100, 20.0));
        let mut gapped = base.clone();
        for v in &mut gapped.cols.get_mut("cool_valve").unwrap()[40..90] {
            *v = f64::NAN;
        }
        let g = run(&RULE, &gapped, &Params::default());
        assert_eq!((g.judged, g.metrics["missed_pct"]), (50, 40.0));
        // the cooling samples every 15 minutes, the rest hourly: 5 of 85 hours
        let mut t: Vec<i64> = (0..20).map(|i| i * NS_PER_HOUR / 4).collect();
        t.extend((0..80).map(|i| 5 * NS_PER_HOUR + i * NS_PER_HOUR));
        let irregular = Frame::from_rows(
            &t,
            &[
                ("oat", vec![50.0; 100]),
                ("oa_damper", vec![20.0; 100]),
                ("cool_valve", (0..100).map(|i| if i < 20 { 40.0 } else { 0.0 }).collect()),
            ],
        );
        let r = run(&RULE, &irregular, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
    }

    #[test]
    fn degenerate_frames_and_a_missing_input() {
        let empty = Frame::from_rows(&[], &[("oat", vec![]), ("cool_valve", vec![])]);
        assert_eq!(
            outcome(&RULE, &empty, &Params::default()),
            Outcome::Skipped { missing: vec!["cool_valve".into(), "oat".into()] }
        );
        assert_eq!(run(&RULE, &frame(1, |_| 50.0, |_| 20.0, |_| 40.0), &Params::default()).severity, Severity::Fault);
        let mut f = frame(10, |_| 50.0, |_| 20.0, |_| 40.0);
        f.cols.remove("cool_valve");
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["cool_valve".into()] });
    }
}
