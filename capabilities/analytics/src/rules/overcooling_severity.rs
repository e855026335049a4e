//! `overcooling_severity`: how deep and how long a zone sits too cold while it should be
//! comfortable, a comfort measure in the spirit of ASHRAE Standard 55 (depth and duration), apart
//! from `overcooling_min_flow`, which looks for the airflow cause. Any zone with a space
//! temperature and a cooling setpoint (no family).
//!
//! The depth is measured below the heating setpoint when one is trended and
//! `relative_to_deadband` is on (a zone anywhere in its deadband is as designed), else below the
//! cooling setpoint. Judged on the occupied samples (the occupancy point, else the schedule;
//! less cool-down), with the fan running where a fan status or speed is trended (a zone drifting
//! with the fan off is not being cooled), less the morning warm-up: trended warm-up samples, or
//! without them the first `recovery_hours` of each occupied period. A sample counts at a tier
//! (`tiers`: info 1, warn 2, fault 3 °F by default) when it is that deep, and only as part of a
//! run sustained for `window_min`: consecutive samples at that depth, no step longer than 1.5
//! typical steps, spanning the window with the last sample's step; on data as coarse as the
//! window one sample is a run. The grade is the deepest tier with a sustained run (info is not a
//! fault); `share_pct` (off by default) caps it by the share of time in sustained runs at the
//! warn depth. A zone that deep with its reheat valve at or above `reheat_saturated_pct` is
//! heated as hard as the box can: a heating shortfall, not overcooling, graded apart at the
//! lesser of its depth tier and its share (`shortfall_share_pct`, warn from 5 %, fault from
//! 20 %) and only as a caveat here (`reheat_capacity_shortfall` is its finding). Without a
//! heating setpoint the depth below the cooling setpoint rates no worse than a warning.
//!
//! Beyond the reference: the run, gap and share arithmetic is by time (a sample weighs the time
//! it stands for), the typical step is the whole record's, and a fan signal with no reading
//! leaves the sample out.

use std::collections::BTreeMap;

use crate::engine::{
    median, round2, schedule_params, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, Rule,
    RuleSpec, Severity, NS_PER_HOUR,
};
use crate::terminal::{self, hours};

/// The default depth (°F) of each tier, mildest first.
pub const DEFAULT_TIERS: [(&str, f64); 3] = [("info", 1.0), ("warn", 2.0), ("fault", 3.0)];
/// The default share gate of the heating shortfall (% of judged time): warn, fault.
pub const DEFAULT_SHORTFALL_SHARE: (f64, f64) = (5.0, 20.0);
/// A step longer than this many typical steps breaks a run.
pub const GAP_FACTOR: f64 = 1.5;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "overcooling_severity",
        families: &[],
        inputs: Inputs {
            required: &["space_temp", "cool_sp"],
            optional: &[
                "heat_sp",
                "warmup",
                "cooldown",
                "occupancy",
                "heat_valve",
                "supply_fan_status",
                "supply_fan_speed",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: [
            vec![
                ParamSpec {
                    name: "tiers",
                    default: ParamValue::Map(BTreeMap::new()),
                    unit: "°F below the reference setpoint, per key ('info', 'warn', 'fault')",
                    range: Some((0.5, 6.0)),
                    choices: &["info", "warn", "fault"],
                    basis: "one, two and three degrees below the reference setpoint: a degree is noticed, three is a complaint (described as Standard 55-aligned; no section of it sets them)",
                    calibrate: "Unset (null) uses info 1, warn 2, fault 3 °F; a key left out keeps its default. Read max_depth_f and median_depth_f on zones nobody complains about and set warn above what they sustain; calibrating on the zones being judged would hide a building-wide problem.",
                },
                ParamSpec::number(
                    "window_min",
                    60.0,
                    "min",
                    (15.0, 240.0),
                    "an hour below setpoint is a condition; a few minutes is a door or a load swing",
                    "Lengthen it when short excursions raise findings on zones that are comfortable in practice; keep it at or above the trend interval, where one sample already fills it.",
                ),
                ParamSpec::flag(
                    "relative_to_deadband",
                    true,
                    "a zone between its heating and cooling setpoints is where its sequence keeps it",
                    "Keep it on with both setpoints trended; turn it off only to measure below the cooling setpoint on purpose (a healthy deadband then reads as overcooling). Without a heating setpoint the rule falls back to the cooling setpoint and stops at warn.",
                ),
            ],
            schedule_params().to_vec(),
            vec![
                ParamSpec::number(
                    "recovery_hours",
                    2.0,
                    "h",
                    (0.0, 4.0),
                    "a zone still climbing out of its night setback early in the day is recovering, not being overcooled",
                    "Take how long healthy zones need to reach setpoint after occupied mode starts on a cold morning (the median across zones). Used only without a trended warmup point.",
                ),
                ParamSpec::number(
                    "reheat_saturated_pct",
                    90.0,
                    "% valve open",
                    (75.0, 100.0),
                    "a valve at nine tenths or more is as open as it gets: the box is heating as hard as it can",
                    "Read how far healthy boxes' valves open in cold, fully heating hours (some controllers stop at 95-98 %) and set this just below it; keep it equal to reheat_capacity_shortfall's.",
                ),
                ParamSpec {
                    name: "shortfall_share_pct",
                    default: ParamValue::Map([("warn".to_string(), 5.0), ("fault".to_string(), 20.0)].into()),
                    unit: "% of considered (occupied, fan-on) samples, per key ('warn', 'fault')",
                    range: Some((0.0, 100.0)),
                    choices: &["warn", "fault"],
                    basis: "the warn and fault shares reheat_capacity_shortfall uses: a few cold hours a year are weather, not a capacity fault",
                    calibrate: "On a period the zones were comfortable, read shortfall_warn_tier_pct across them and set warn above their spread (their 95th percentile) and fault where cold hours become a standing complaint. Null grades the shortfall by depth alone; a key left out takes 5 or 20.",
                },
                ParamSpec {
                    name: "share_pct",
                    default: ParamValue::Map(BTreeMap::new()),
                    unit: "% of considered (occupied, fan-on) samples, per key ('warn', 'fault')",
                    range: Some((0.0, 100.0)),
                    choices: &["warn", "fault"],
                    basis: "off by default: overcooling is graded by depth and duration alone",
                    calibrate: "Set it when a few deep cold mornings should not rate warn or fault: read warn_tier_pct on zones you consider fine and set warn above their spread ({\"warn\": 5, \"fault\": 20} mirrors the shortfall gate). A key left out takes 5 or 20; the no-heating-setpoint cap still applies after it.",
                },
            ],
        ]
        .concat(),
        judged_basis: "occupied samples (fan on where trended) outside morning recovery",
    }
}

/// The grade of a tier index (0 info, 1 warn, 2 fault; `None` no sustained run).
fn grade(tier: Option<usize>) -> Severity {
    match tier {
        None => Severity::Ok,
        Some(0) => Severity::Info,
        Some(1) => Severity::Warn,
        Some(_) => Severity::Fault,
    }
}

/// A grade as a finding's text says it.
fn word(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "ok",
        Severity::Info => "info",
        Severity::Warn => "warn",
        Severity::Fault => "fault",
    }
}

/// The lesser of a depth grade and the grade a share earns under a gate (warn %, fault %);
/// below the gate's warn, info. No gate, or no depth grade: the depth grade.
fn gated(depth: Severity, share: f64, gate: Option<(f64, f64)>) -> Severity {
    let Some((warn, fault)) = gate else {
        return depth;
    };
    if depth == Severity::Ok {
        return depth;
    }
    let by_share = if share >= fault {
        Severity::Fault
    } else if share >= warn {
        Severity::Warn
    } else {
        Severity::Info
    };
    depth.min(by_share)
}

/// A share gate from a parameter: unset (empty), off; a key left out takes its default.
fn gate_of(m: &BTreeMap<String, f64>) -> Option<(f64, f64)> {
    (!m.is_empty()).then(|| {
        let get = |k: &str, d: f64| m.get(k).copied().unwrap_or(d);
        (get("warn", DEFAULT_SHORTFALL_SHARE.0), get("fault", DEFAULT_SHORTFALL_SHARE.1))
    })
}

/// The samples in runs of `qualifies` sustained for `window` ns: consecutive qualifying samples
/// no more than [`GAP_FACTOR`] typical steps apart, spanning the window with the last one's step.
fn sustained(ts: &[i64], qualifies: &[bool], window: i64, step: i64) -> Vec<bool> {
    let n = ts.len();
    let mut out = vec![false; n];
    if step >= window {
        return qualifies.to_vec();
    }
    let gap = (step as f64 * GAP_FACTOR) as i64;
    let mut i = 0;
    while i < n {
        if !qualifies[i] {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < n && qualifies[j + 1] && ts[j + 1] - ts[j] <= gap {
            j += 1;
        }
        if ts[j] - ts[i] + step >= window {
            out[i..=j].iter_mut().for_each(|x| *x = true);
        }
        i = j + 1;
    }
    out
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (zone, cool) = (frame.required("space_temp"), frame.required("cool_sp"));
    let heat = frame.col("heat_sp");
    let relative = heat.is_some() && params.flag(spec, "relative_to_deadband") != Some(false);
    let tiers_set = params.map(spec, "tiers");
    let tiers: Vec<(&str, f64)> =
        DEFAULT_TIERS.iter().map(|(k, d)| (*k, tiers_set.get(*k).copied().unwrap_or(*d))).collect();
    let n = frame.len();
    let occupied = terminal::occupied(spec, frame, params, &["warmup", "cooldown"]);
    let recovering = match frame.col("warmup") {
        Some(_) => vec![false; n],
        None => terminal::recovery(&frame.ts, &occupied, None, params.number(spec, "recovery_hours")),
    };
    let fan = terminal::fan_running(frame);
    let fan_off = |i: usize| fan.as_ref().is_some_and(|(f, _)| !f[i]);
    let depth: Vec<f64> = (0..n)
        .map(|i| match (relative, heat) {
            (true, Some(h)) => h[i] - zone[i],
            _ => cool[i] - zone[i],
        })
        .collect();
    let considered: Vec<bool> = (0..n)
        .map(|i| occupied[i] && !recovering[i] && !fan_off(i) && !cool[i].is_nan() && !depth[i].is_nan())
        .collect();
    let w = frame.weights_hours();
    let judged_n = considered.iter().filter(|c| **c).count();
    let judged_h = hours(&w, |i| considered[i]);
    if judged_n == 0 || judged_h <= 0.0 {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            "no occupied sample with the zone temperature and its setpoints (fan on where trended, outside recovery)",
        )]);
    }
    let valve = frame.col("heat_valve");
    let saturated_pct = params.number(spec, "reheat_saturated_pct");
    let saturated = |i: usize| valve.is_some_and(|v| v[i] >= saturated_pct);
    let step = frame.typical_step().unwrap_or(NS_PER_HOUR);
    let window = (params.number(spec, "window_min") * 60e9) as i64;
    let pct = |h: f64| 100.0 * h / judged_h;
    let mut over: Vec<Vec<bool>> = Vec::new();
    let mut short: Vec<Vec<bool>> = Vec::new();
    for (_, depth_f) in &tiers {
        let q: Vec<bool> = (0..n).map(|i| considered[i] && depth[i] >= *depth_f && !saturated(i)).collect();
        over.push(sustained(&frame.ts, &q, window, step));
        let s: Vec<bool> = (0..n).map(|i| considered[i] && depth[i] >= *depth_f && saturated(i)).collect();
        short.push(sustained(&frame.ts, &s, window, step));
    }
    let tier_h = |m: &[bool]| hours(&w, |i| m[i]);
    let over_pct: Vec<f64> = over.iter().map(|m| pct(tier_h(m))).collect();
    let short_pct: Vec<f64> = short.iter().map(|m| pct(tier_h(m))).collect();
    let deepest = |ms: &[Vec<bool>]| ms.iter().rposition(|m| m.iter().any(|x| *x));
    let depth_grade = grade(deepest(&over));
    let short_depth_grade = grade(deepest(&short));
    let share_gate = gate_of(&params.map(spec, "share_pct"));
    let graded = gated(depth_grade, over_pct[1], share_gate);
    let mut severity = graded;
    let short_gate = gate_of(&params.map(spec, "shortfall_share_pct"));
    let short_grade = gated(short_depth_grade, short_pct[1], short_gate);

    let free: Vec<f64> = (0..n).filter(|&i| considered[i] && !saturated(i)).map(|i| depth[i]).collect();
    let max_depth = free.iter().copied().fold(0.0, crate::engine::max_of);
    let median_depth = median(&mut free.iter().copied().filter(|d| *d > 0.0).collect::<Vec<_>>());
    let reference = if relative { "heating setpoint" } else { "cooling setpoint" };
    let mut caveats = Vec::new();
    if heat.is_none() {
        caveats.push(
            "no heating setpoint is trended: the depth is measured below the cooling setpoint, which can over-flag a zone in its deadband, so the rating stops at warn"
                .to_string(),
        );
        severity = severity.min(Severity::Warn);
    }
    if frame.col("occupancy").is_none() {
        caveats.push(terminal::schedule_caveat(spec, params));
    }
    let warn_depth = tiers[1].1;
    if valve.is_some() && short_grade >= Severity::Warn {
        caveats.push(format!(
            "a heating shortfall, not overcooling: {:.1}% of judged time sat {warn_depth} °F or more below the {reference} in sustained runs with the reheat valve at {saturated_pct}% or more (left out of the overcooling tiers; see reheat_capacity_shortfall)",
            short_pct[1]
        ));
        if severity == Severity::Ok {
            severity = Severity::Info;
        }
    }
    let gate_text = |g: Option<(f64, f64)>, name: &str| {
        g.map_or(String::new(), |(w, f)| format!(" (warn from {w}%, fault from {f}%: {name})"))
    };
    if valve.is_some() && short_grade < short_depth_grade {
        caveats.push(format!(
            "a heating shortfall {}-deep graded {} by its share, {:.1}% of judged time{}",
            word(short_depth_grade),
            word(short_grade),
            short_pct[1],
            gate_text(short_gate, "shortfall_share_pct")
        ));
    }
    if graded < depth_grade {
        caveats.push(format!(
            "overcooling {}-deep graded {} by its share, {:.1}% of judged time{}",
            word(depth_grade),
            word(graded),
            over_pct[1],
            gate_text(share_gate, "share_pct")
        ));
    }
    if valve.is_none() && severity >= Severity::Warn {
        caveats.push(
            "no reheat valve is trended: a zone below setpoint with its reheat at full output (a heating shortfall) cannot be told from overcooling"
                .to_string(),
        );
    }
    let recovery_n = (0..n).filter(|&i| recovering[i]).count();
    if recovery_n > 0 {
        caveats.push(format!(
            "{recovery_n} sample(s) in the first {} h of an occupied period were taken as morning recovery and not judged (no warmup point is trended)",
            params.number(spec, "recovery_hours")
        ));
    }
    let fan_off_n = (0..n).filter(|&i| occupied[i] && fan_off(i)).count();

    let mut metrics = BTreeMap::new();
    metrics.insert("judged_hours".into(), round2(judged_h));
    metrics.insert("max_depth_f".into(), round2(max_depth));
    metrics.insert("median_depth_f".into(), if median_depth.is_nan() { 0.0 } else { round2(median_depth) });
    for ((name, _), p) in tiers.iter().zip(&over_pct) {
        metrics.insert(format!("{name}_tier_pct"), round2(*p));
    }
    metrics.insert("fault_tier_minutes".into(), round2(60.0 * tier_h(&over[2])));
    metrics.insert("interval_min".into(), round2(step as f64 / 60e9));
    metrics.insert("recovery_samples".into(), recovery_n as f64);
    metrics.insert("fan_off_samples".into(), fan_off_n as f64);
    if valve.is_some() {
        metrics.insert("shortfall_warn_tier_pct".into(), round2(short_pct[1]));
    }
    let head = if severity >= Severity::Warn || depth_grade >= Severity::Warn {
        format!("overcooled below its {reference}, {max_depth:.1} °F at the deepest")
    } else if max_depth <= 0.0 {
        format!("no sustained overcooling below its {reference} (never below it)")
    } else {
        format!("no sustained overcooling below its {reference} ({max_depth:.1} °F below at the deepest)")
    };
    let shortfall = if valve.is_some() && short_grade >= Severity::Warn {
        format!("; a heating shortfall (reheat saturated) {:.1}%, not overcooling", short_pct[1])
    } else {
        String::new()
    };
    let summary = format!(
        "{head}: sustained runs {}/{}/{} °F deep on {:.1}/{:.1}/{:.1}% of {judged_h:.1} occupied h ({} min to count, {} min data){shortfall}",
        tiers[0].1,
        tiers[1].1,
        tiers[2].1,
        over_pct[0],
        over_pct[1],
        over_pct[2],
        params.number(spec, "window_min"),
        round2(step as f64 / 60e9),
    );
    let idx = |m: &[bool]| -> Vec<u32> { (0..n).filter(|&i| m[i]).map(|i| i as u32).collect() };
    let mut conditions: Vec<Condition> = tiers
        .iter()
        .zip(&over)
        .map(|((name, _), m)| Condition {
            name: format!("{name}_tier"),
            flagged: idx(m),
            judged: judged_n,
            judged_hours: judged_h,
            flagged_hours: tier_h(m),
        })
        .collect();
    if valve.is_some() {
        conditions.push(Condition {
            name: "heating_shortfall".into(),
            flagged: idx(&short[1]),
            judged: judged_n,
            judged_hours: judged_h,
            flagged_hours: tier_h(&short[1]),
        });
    }
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(idx(&over[1]))
        .with_judged(judged_n)
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, outcome, run, shuffled_with_duplicates, with, H, MINUTE, MONDAY};

    /// `n` occupied samples `step` apart of a zone at `zone(i)` with setpoints 70-74 °F.
    fn zone_frame(n: usize, step: i64, zone: impl Fn(usize) -> f64) -> Frame {
        Frame::from_rows(
            &every(MONDAY, step, n),
            &[
                ("space_temp", (0..n).map(zone).collect()),
                ("cool_sp", vec![74.0; n]),
                ("heat_sp", vec![70.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        )
    }

    /// 40 hourly samples at 72 °F, the first `k` at `cold`.
    fn cold(k: usize, cold: f64) -> Frame {
        zone_frame(40, H, |i| if i < k { cold } else { 72.0 })
    }

    fn gate(warn: f64, fault: f64) -> ParamValue {
        ParamValue::Map([("warn".to_string(), warn), ("fault".to_string(), fault)].into())
    }

    #[test]
    fn a_zone_in_its_deadband_is_ok() {
        let r = run(&RULE, &zone_frame(40, H, |i| 71.0 + (i % 3) as f64), &Params::default());
        assert_eq!((r.severity, r.metrics["max_depth_f"]), (Severity::Ok, 0.0));
        assert!(r.summary.contains("never below it"), "{}", r.summary);
        assert!(r.caveats.is_empty(), "{:?}", r.caveats);
    }

    #[test]
    fn sustained_overcooling_is_graded_by_its_depth() {
        let sev = |k: usize, t: f64| run(&RULE, &cold(k, t), &Params::default()).severity;
        // on hourly data one sample fills the hour's window
        assert_eq!((sev(1, 66.5), sev(1, 67.5), sev(1, 68.5)), (Severity::Fault, Severity::Warn, Severity::Info));
        let r = run(&RULE, &cold(4, 66.5), &Params::default());
        assert_eq!(
            (r.metrics["fault_tier_pct"], r.metrics["max_depth_f"], r.metrics["fault_tier_minutes"]),
            (10.0, 3.5, 240.0)
        );
        assert!(r.summary.starts_with("overcooled below its heating setpoint, 3.5 °F"), "{}", r.summary);
        assert_eq!(r.flagged, vec![0, 1, 2, 3]);
    }

    #[test]
    fn the_depths_and_the_window_at_their_boundaries() {
        let sev = |f: &Frame, p: &Params| run(&RULE, f, p).severity;
        assert_eq!(sev(&cold(1, 68.0), &Params::default()), Severity::Warn);
        assert_eq!(sev(&cold(1, 68.01), &Params::default()), Severity::Info);
        assert_eq!(sev(&cold(1, 69.0), &Params::default()), Severity::Info);
        assert_eq!(sev(&cold(1, 69.01), &Params::default()), Severity::Ok);
        let tiers = |m: &[(&str, f64)]| {
            with(&[("tiers", ParamValue::Map(m.iter().map(|(k, v)| (k.to_string(), *v)).collect()))])
        };
        // a tier left out keeps its default
        assert_eq!(sev(&cold(1, 68.5), &tiers(&[("warn", 1.5)])), Severity::Warn);
        assert_eq!(sev(&cold(1, 67.5), &tiers(&[("fault", 2.5)])), Severity::Fault);
        // 15-minute samples: four in a row fill the hour, three do not
        let q = |k: usize| zone_frame(40, 15 * MINUTE, move |i| if (10..10 + k).contains(&i) { 66.0 } else { 72.0 });
        assert_eq!(sev(&q(4), &Params::default()), Severity::Fault);
        assert_eq!(sev(&q(3), &Params::default()), Severity::Ok);
        assert_eq!(sev(&q(3), &numbers(&[("window_min", 45.0)])), Severity::Fault);
        // a missing sample breaks the run: two runs of three are not an hour
        let mut f = q(7);
        f.cols.iter_mut().for_each(|(_, v)| v[13] = f64::NAN);
        let keep: Vec<usize> = (0..40).filter(|&i| i != 13).collect();
        let g = Frame::from_rows(
            &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
            &f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(sev(&g, &Params::default()), Severity::Ok);
    }

    #[test]
    fn share_pct_caps_the_grade_by_its_share() {
        // one cold hour of 40 (2.5 %): a fault by depth, info under a 5/20 gate
        let p = with(&[("share_pct", gate(5.0, 20.0))]);
        let r = run(&RULE, &cold(1, 66.0), &p);
        assert_eq!(r.severity, Severity::Info);
        assert!(r.caveats.iter().any(|c| c.contains("fault-deep graded info by its share")), "{:?}", r.caveats);
        assert_eq!(run(&RULE, &cold(2, 66.0), &p).severity, Severity::Warn);
        assert_eq!(run(&RULE, &cold(8, 66.0), &p).severity, Severity::Fault);
    }

    #[test]
    fn a_zone_cold_with_its_reheat_saturated_is_a_heating_shortfall() {
        // 4 of 40 hours 3 °F cold with the valve wide open: not overcooling, a shortfall (10 %)
        let mut f = cold(4, 67.0);
        f.cols.insert("heat_valve".into(), (0..40).map(|i| if i < 4 { 95.0 } else { 0.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(
            (r.severity, r.metrics["fault_tier_pct"], r.metrics["shortfall_warn_tier_pct"]),
            (Severity::Info, 0.0, 10.0)
        );
        assert!(r.caveats.iter().any(|c| c.contains("a heating shortfall, not overcooling")), "{:?}", r.caveats);
        // rarer than the share gate: graded info, and said so
        let mut g = cold(1, 67.0);
        g.cols.insert("heat_valve".into(), (0..40).map(|i| if i < 1 { 95.0 } else { 0.0 }).collect());
        let r = run(&RULE, &g, &Params::default());
        assert_eq!(r.severity, Severity::Ok);
        assert!(r.caveats.iter().any(|c| c.contains("fault-deep graded info")), "{:?}", r.caveats);
        // null switches the gate off: depth alone
        let r = run(&RULE, &g, &with(&[("shortfall_share_pct", ParamValue::Map(BTreeMap::new()))]));
        assert_eq!(r.severity, Severity::Info);
        // a valve just short of saturated: overcooling
        g.cols.insert("heat_valve".into(), (0..40).map(|i| if i < 1 { 89.9 } else { 0.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn without_a_heating_setpoint_the_cooling_setpoint_rates_no_worse_than_a_warning() {
        let mut f = cold(4, 66.0);
        f.cols.remove("heat_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["max_depth_f"]), (Severity::Warn, 8.0));
        assert!(r.caveats[0].contains("no heating setpoint"), "{:?}", r.caveats);
        assert!(r.caveats.iter().any(|c| c.contains("no reheat valve")), "{:?}", r.caveats);
        // relative_to_deadband off: below the cooling setpoint by choice, not capped
        let r = run(&RULE, &cold(4, 70.5), &with(&[("relative_to_deadband", ParamValue::Flag(Some(false)))]));
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.summary.contains("cooling setpoint"), "{}", r.summary);
    }

    #[test]
    fn unoccupied_recovering_and_fan_off_samples_are_not_judged() {
        // unoccupied 10 hours, then cold for two: the morning recovery
        let mut f = cold(12, 66.0);
        f.cols.insert("occupancy".into(), (0..40).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.judged, r.metrics["recovery_samples"]), (Severity::Ok, 28, 2.0));
        assert_eq!(run(&RULE, &f, &numbers(&[("recovery_hours", 0.0)])).severity, Severity::Fault);
        // a trended warm-up point replaces the window
        f.cols.insert("warmup".into(), (0..40).map(|i| if i == 10 { 1.0 } else { 0.0 }).collect());
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
        // the fan off: free-floating, not overcooled
        let mut g = cold(4, 66.0);
        g.cols.insert("supply_fan_status".into(), (0..40).map(|i| if i < 4 { 0.0 } else { 1.0 }).collect());
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.severity, r.metrics["fan_off_samples"]), (Severity::Ok, 4.0));
        g.cols.remove("supply_fan_status");
        g.cols.insert("supply_fan_speed".into(), (0..40).map(|i| if i < 4 { 5.0 } else { 60.0 }).collect());
        assert_eq!(run(&RULE, &g, &Params::default()).severity, Severity::Ok);
        // the schedule without an occupancy point
        let mut h = cold(40, 66.0);
        h.cols.remove("occupancy");
        let r = run(&RULE, &h, &Params::default());
        assert!(r.caveats.iter().any(|c| c.contains("no occupancy point")), "{:?}", r.caveats);
        h.cols.insert("occupancy".into(), vec![0.0; 40]);
        assert_eq!(run(&RULE, &h, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn gaps_are_not_judged_time_and_uneven_samples_are_weighed_by_time() {
        // 10-minute samples comfortable for four hours, then six hourly samples cold: each
        // hourly sample stands for 15 minutes and alone is not an hour
        let mut ts: Vec<i64> = (0..24).map(|i| MONDAY + i * 10 * MINUTE).collect();
        ts.extend((0..6).map(|i| MONDAY + 4 * H + i * H));
        let n = ts.len();
        let f = Frame::from_rows(
            &ts,
            &[
                ("space_temp", (0..n).map(|i| if i >= 24 { 66.0 } else { 72.0 }).collect()),
                ("cool_sp", vec![74.0; n]),
                ("heat_sp", vec![70.0; n]),
                ("occupancy", vec![1.0; n]),
            ],
        );
        let r = run(&RULE, &f, &Params::default());
        assert_eq!((r.severity, r.metrics["interval_min"]), (Severity::Ok, 10.0));
        assert!((r.metrics["judged_hours"] - round2(f.weights_hours().iter().sum::<f64>())).abs() < 1e-9);
        // on hourly data, time-weighted shares
        let keep: Vec<usize> = (0..72).filter(|i| i / 24 != 1).collect();
        let g = zone_frame(72, H, |i| if i < 2 { 66.0 } else { 72.0 });
        let g = Frame::from_rows(
            &keep.iter().map(|&i| g.ts[i]).collect::<Vec<_>>(),
            &g.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        let r = run(&RULE, &g, &Params::default());
        assert_eq!((r.metrics["judged_hours"], r.metrics["fault_tier_pct"]), (48.5, round2(200.0 / 48.5)));
    }

    #[test]
    fn disordered_and_repeated_rows_give_the_same_finding() {
        for f in [cold(4, 66.0), cold(0, 66.0), zone_frame(30, 15 * MINUTE, |i| 65.0 + 0.3 * i as f64)] {
            assert_eq!(
                run(&RULE, &shuffled_with_duplicates(&f), &Params::default()),
                run(&RULE, &f, &Params::default())
            );
        }
    }

    #[test]
    fn missing_inputs_skip_and_degenerate_frames_do_not_panic() {
        let ts = every(MONDAY, H, 3);
        let f = Frame::from_rows(&ts, &[("space_temp", vec![66.0; 3]), ("heat_sp", vec![70.0; 3])]);
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["cool_sp".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        assert_eq!(run(&RULE, &cold(1, 66.0), &Params::default()).severity, Severity::Fault);
        let one = zone_frame(1, H, |_| 66.0);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Fault);
        let apart = Frame::from_rows(
            &ts,
            &[
                ("space_temp", vec![66.0, f64::NAN, f64::NAN]),
                ("cool_sp", vec![f64::NAN, 74.0, 74.0]),
                ("occupancy", vec![1.0; 3]),
            ],
        );
        assert_eq!(run(&RULE, &apart, &Params::default()).severity, Severity::Info);
    }
}
