//! `dcv_verification`: demand-controlled ventilation checked against CO2. A DCV sequence raises
//! outdoor air above its floor when, and only when, CO2 (ventilation demand) is high, so the rule
//! compares CO2 on samples with the outdoor air raised (above a quarter of its robust range)
//! against CO2 with it at its floor (within 5 %): a lift of `min_lift_ppm` or more is DCV at
//! work, taken within the hour of day (`stratify_hour`) so a damper on a time clock is not read as
//! one following CO2. Outdoor air that never moves while CO2 reaches the DCV range is static
//! (warn); air that moves but not with CO2 is uncorrelated (warn, or info when the economizer
//! could not be ruled out). Judged on occupied samples with the fan running, the economizer ruled
//! out (its command, else outdoor air against `econ_high_limit_f` and the heating valve) and the
//! outdoor air not shut. Faults: CO2 above `co2_setpoint` with outdoor air at its minimum, outdoor
//! air below the area floor `oa_floor_cfm`, and occupied high-CO2 hours with nothing ventilating.
//! The outdoor-air signal is the measured outdoor airflow where trended, the damper elsewhere (and
//! on a declared 100 % outdoor-air unit the supply airflow, then the fan speed); each signal is
//! judged on the samples it covers, in its own finding.

use std::collections::BTreeMap;

use crate::economizer::{economizer_may_run, percent_scale, percentile, percentile_at, sorted_at, EconEvidence};
use crate::engine::{
    median, on, round2, weekday, Condition, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, Params, Rule, RuleSpec,
    Severity, NS_PER_HOUR,
};

/// CO2 readings outside this window (ppm) are not a demand signal.
const CO2_PLAUSIBLE_PPM: (f64, f64) = (250.0, 5000.0);
/// The CO2 (ppm) DCV should be acting at when neither an engage level nor a setpoint is given.
const DEFAULT_ENGAGE_PPM: f64 = 800.0;
/// Without `dcv_engage_ppm`, DCV engages this far (ppm) below `co2_setpoint`.
const ENGAGE_BELOW_SETPOINT_PPM: f64 = 200.0;
/// The CO2 (ppm) at which a space must be ventilated when neither level is given.
const DEFAULT_UNVENTILATED_PPM: f64 = 1100.0;
/// Outdoor air within this share of the floor still counts as at the floor.
const FLOOR_TOL: f64 = 0.10;
/// Outdoor air at or below this share of its 95th percentile is shut.
const CLOSED_FRAC: f64 = 0.02;
/// Outdoor air within this share of its robust range above its 5th percentile is at its floor,
/// and at or above `RAISED_FRAC` of it is raised.
const AT_FLOOR_FRAC: f64 = 0.05;
const RAISED_FRAC: f64 = 0.25;
/// Fewest samples a bin needs (and at least `MIN_BIN_SHARE` of the judged ones).
const MIN_BIN: usize = 6;
const MIN_BIN_SHARE: f64 = 0.05;
/// Fewest raised and at-floor samples an hour of day needs to count in the lift.
const MIN_PAIRS: usize = 3;
/// A fan status above this is running for the whole sample (an hourly mean below it is a start
/// or stop inside the hour, with its outdoor air diluted).
const FAN_STATUS_ON: f64 = 0.95;
/// A share of shut-air samples (%) worth a caveat.
const CLOSED_CAVEAT_PCT: f64 = 5.0;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate).with_needs(needs);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "dcv_verification",
        families: &["air_handler", "fan_coil", "heat_pump"],
        inputs: Inputs {
            required: &["co2"],
            optional: &[
                "oa_airflow",
                "oa_damper",
                "occupancy",
                "warmup",
                "cooldown",
                "supply_fan_status",
                "econ_cmd",
                "oat",
                "heat_valve",
                "airflow",
                "supply_fan_speed",
            ],
            gating: &["oa_airflow", "oa_damper"],
            one_of: &[],
            needs_gating: true,
        },
        params: [
            vec![
                ParamSpec::number("min_modulation", 0.1, "fraction of the OA signal's p95 ((p95 - p5) / p95)", (0.02, 0.5),
                    "outdoor air whose robust range is under a tenth of its high value is not being reset",
                    "Read `modulation` on a unit with a fixed minimum and on one with working DCV and set this between them; damper and airflow signals give different ranges."),
                ParamSpec::number("co2_setpoint", f64::NAN, "ppm (CO2; unset: no setpoint known)", (600.0, 1500.0),
                    "the DCV setpoint is a property of the site's sequence, so there is no default",
                    "Read it from the DCV sequence (the reset loop's setpoint or the top of its band), never from the CO2 trend. Unset, the breach check is skipped, DCV is taken to engage at 800 ppm and a space to need air at 1100 ppm."),
                ParamSpec::flag("occupied_only", true,
                    "DCV answers for outdoor air only while the space is occupied",
                    "Keep it on; turn it off only for a space in use around the clock with no occupancy point."),
                ParamSpec::number("dcv_engage_ppm", f64::NAN, "ppm (CO2; unset: co2_setpoint - 200, else 800)", (500.0, 1200.0),
                    "DCV should be raising outdoor air from about this CO2; too few samples reaching it leaves the check undecided",
                    "Use the CO2 at which the sequence starts to raise outdoor air (the bottom of its band, or about the setpoint for an integral loop)."),
                ParamSpec::number("min_demand_span", 150.0, "ppm (CO2, p90 - p10 of the judged samples)", (50.0, 400.0),
                    "CO2 that barely varies never asked the DCV to do anything; below it the check is undecided, not failed",
                    "Read `demand_span` on units whose spaces clearly fill and empty; lower it for lightly used spaces only at the cost of a noisier verdict."),
                ParamSpec::number("min_lift_ppm", 50.0, "ppm (CO2 with OA raised minus CO2 with OA at its floor)", (20.0, 200.0),
                    "working DCV raises outdoor air on the high-CO2 samples, which shows as a clear CO2 difference between the two",
                    "Set it well below the `demand_lift` of a unit whose DCV passed a functional test and above that of a unit with fixed outdoor air (not from the unit being judged)."),
                ParamSpec::number("econ_high_limit_f", 75.0, "°F (outdoor air temperature)", (55.0, 80.0),
                    "the top of ASHRAE 90.1's fixed dry-bulb high limits, so that when unsure more hours are ruled out as economizing",
                    "Use the economizer's high-limit setpoint; better, map econ_cmd so economizing need not be inferred. It is ignored when econ_cmd is trended."),
                ParamSpec::number("oa_floor_cfm", f64::NAN, "cfm (outdoor airflow; unset: not checked)", (0.0, 50000.0),
                    "ASHRAE 62.1 dynamic reset may lower outdoor air to the area component Ra·Az and no further (§6.2.7; numbering varies by edition)",
                    "Compute Ra·Az for the zones served, or take the design minimum from the TAB report. Checked only on a measured outdoor or supply airflow."),
                ParamSpec::number("breach_fault_pct", 10.0, "% of judged hours (occupied, fan on, not economizing, OA not closed)", (1.0, 50.0),
                    "CO2 above setpoint while outdoor air sits at its minimum is DCV failing to answer demand",
                    "Read `co2_breach_at_min_pct` on a good period and set this above it; raise it for a slow integral loop. Needs co2_setpoint."),
                ParamSpec::number("below_floor_fault_pct", 10.0, "% of occupied fan-on hours (before the economizer and closed-OA exclusions)", (1.0, 50.0),
                    "outdoor air below the 62.1 floor while occupied is under-ventilation",
                    "Read `below_floor_total_pct` on a good period and keep this just above it. Needs oa_floor_cfm; a sample counts more than 10 % below the floor."),
                ParamSpec::number("excess_warn_pct", 50.0, "% of low-demand hours (CO2 at or below its p25 and below the engage level)", (10.0, 90.0),
                    "DCV that keeps outdoor air above its floor when demand is low saves nothing (why DCV exists: ASHRAE 90.1 §6.4.3.8)",
                    "Read `excess_at_low_demand_pct` on a unit whose DCV reaches its floor in light use and set this above it. Needs oa_floor_cfm; only turns an ok into a warning."),
                ParamSpec::number("min_samples", 24.0, "count (judged samples)", (12.0, 500.0),
                    "a day of hourly data before a verdict",
                    "Raise it for short intervals (96 for a day of 15-minute samples). It also decides whether a fallback signal gets its own finding and whether the unventilated check runs."),
            ],
            crate::engine::schedule_params().to_vec(),
            vec![
                ParamSpec::number("unventilated_co2_ppm", f64::NAN, "ppm (CO2; unset: co2_setpoint, else 1100)", (800.0, 2000.0),
                    "about 700 ppm above outdoor air, where a space plainly needs air",
                    "Use the CO2 at which the space must be ventilated, usually the DCV setpoint."),
                ParamSpec::number("unventilated_fault_hours", 4.0, "h (total over the dataset)", (1.0, 24.0),
                    "an outage is judged by how long it lasts, not by its share of a long record",
                    "Use how long an occupied space may go without outdoor air; half a working day is a common tolerance."),
                ParamSpec::flag("full_outdoor_air", false,
                    "whether a unit is 100 % outdoor air is a fact of its design",
                    "Set it only for a 100 % outdoor-air unit (no return air, no economizer), from the mechanical schedule: its supply airflow, then its fan speed, then stand in for outdoor air."),
                ParamSpec::flag("stratify_hour", true,
                    "a damper that follows a time clock and CO2 together blurs a lift pooled across the day",
                    "Keep it on; the pooled lift is reported as demand_lift_pooled either way."),
                ParamSpec::number("below_floor_fault_hours", f64::NAN, "h (one contiguous run of occupied samples; unset: off)", (1.0, 24.0),
                    "a concentrated outage should not vanish in a long record",
                    "Set it to how long an occupied space may stay below the floor; read below_floor_longest_h on a good period and set it well above. Needs oa_floor_cfm."),
                ParamSpec::number("fan_off_speed_pct", 5.0, "% supply fan speed", (0.0, 20.0),
                    "a drive at a few percent moves next to no air",
                    "Use just above the speed the drive reports with the fan stopped. Read only without a fan status and only where the floor is checked, to name below-floor hours with the fan off."),
            ],
        ]
        .concat(),
        judged_basis: "occupied fan-on samples with the economizer ruled out and outdoor air not shut",
    }
}

/// The parameters as one run uses them.
struct Settings {
    min_modulation: f64,
    co2_setpoint: Option<f64>,
    engage: f64,
    min_demand_span: f64,
    min_lift: f64,
    econ_high_limit: f64,
    oa_floor: Option<f64>,
    breach_fault: f64,
    below_floor_fault: f64,
    excess_warn: f64,
    min_samples: usize,
    unventilated_ppm: f64,
    unventilated_fault_h: f64,
    stratify: bool,
    below_floor_fault_h: Option<f64>,
    fan_off_speed: f64,
}

impl Settings {
    fn read(spec: &RuleSpec, params: &Params) -> Settings {
        let p = |name: &str| params.number(spec, name);
        let set = |name: &str| Some(p(name)).filter(|x| !x.is_nan());
        let co2_setpoint = set("co2_setpoint");
        Settings {
            min_modulation: p("min_modulation"),
            co2_setpoint,
            engage: set("dcv_engage_ppm")
                .or(co2_setpoint.map(|s| s - ENGAGE_BELOW_SETPOINT_PPM))
                .unwrap_or(DEFAULT_ENGAGE_PPM),
            min_demand_span: p("min_demand_span"),
            min_lift: p("min_lift_ppm"),
            econ_high_limit: p("econ_high_limit_f"),
            oa_floor: set("oa_floor_cfm"),
            breach_fault: p("breach_fault_pct"),
            below_floor_fault: p("below_floor_fault_pct"),
            excess_warn: p("excess_warn_pct"),
            min_samples: p("min_samples").max(1.0) as usize,
            unventilated_ppm: set("unventilated_co2_ppm").or(co2_setpoint).unwrap_or(DEFAULT_UNVENTILATED_PPM),
            unventilated_fault_h: p("unventilated_fault_hours"),
            stratify: params.flag(spec, "stratify_hour") != Some(false),
            below_floor_fault_h: set("below_floor_fault_hours"),
            fan_off_speed: p("fan_off_speed_pct"),
        }
    }
}

/// The DCV verdict on one signal.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Status {
    Functioning,
    Static,
    Uncorrelated,
    /// Not judged, and why.
    Insufficient(&'static str),
}

/// What the modulation test found on the judged samples.
struct Assessment {
    status: Status,
    n: usize,
    modulation: f64,
    correlation: f64,
    demand_span: f64,
    lift: Option<(f64, f64, bool)>,
    breach_pct: Option<f64>,
    excess_pct: Option<f64>,
    /// Samples behind a static or uncorrelated verdict, and behind the breach.
    unanswered: Vec<u32>,
    breach: Vec<u32>,
}

/// Civil date (YYYY-MM-DD) of a naive local timestamp.
fn date(ts: i64) -> String {
    let (y, m, d) = camber_common::time::civil_from_days(ts.div_euclid(24 * NS_PER_HOUR));
    format!("{y:04}-{m:02}-{d:02}")
}

/// How each signal reads in a sentence.
fn label(role: &str) -> &'static str {
    match role {
        "oa_airflow" => "outdoor airflow",
        "oa_damper" => "outdoor-air damper",
        "airflow" => "supply airflow",
        _ => "supply fan speed",
    }
}

/// The outdoor-air signals the rule reads, best first: on a full-outdoor-air unit the supply
/// airflow or fan speed stand for the outdoor air.
pub(crate) fn oa_signals(spec: &RuleSpec, params: &Params) -> &'static [&'static str] {
    if params.flag(spec, "full_outdoor_air") == Some(true) {
        &["oa_airflow", "oa_damper", "airflow", "supply_fan_speed"]
    } else {
        &["oa_airflow", "oa_damper"]
    }
}

/// What the rule needs: CO2 and one outdoor-air signal ([`oa_signals`]).
pub fn needs(spec: &RuleSpec, params: &Params) -> Needs {
    Needs { required: spec.inputs.required.to_vec(), any_of: oa_signals(spec, params).to_vec(), ..Needs::default() }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let co2 = frame.required("co2");
    let present: Vec<&'static str> =
        oa_signals(spec, params).iter().copied().filter(|r| frame.col(r).is_some()).collect();
    let s = Settings::read(spec, params);
    let n = frame.len();
    let occupied = occupied(spec, frame, params);

    // the best signal judges every sample it covers, a lesser one only the samples the better miss
    let mut covered = vec![false; n];
    let mut findings = Vec::new();
    for (k, role) in present.iter().enumerate() {
        let oa = frame.col(role).unwrap_or_default();
        let seg: Vec<bool> = (0..n).map(|i| !oa[i].is_nan() && !covered[i]).collect();
        for i in 0..n {
            covered[i] |= seg[i];
        }
        let with_demand = (0..n).filter(|&i| seg[i] && occupied[i] && !co2[i].is_nan()).count();
        if !seg.iter().any(|&x| x) || (k > 0 && with_demand < s.min_samples) {
            continue;
        }
        findings.push(judge(spec, frame, &s, co2, role, &seg, &occupied, k > 0));
    }
    if findings.is_empty() {
        findings.push(Finding::not_judged(spec, "no outdoor-air signal has a sample"));
    }
    Outcome::Findings(findings)
}

/// Occupied samples: the trended occupancy where mapped (it replaces the schedule), else the
/// schedule parameters; warm-up and cool-down are left out either way. Every sample with
/// `occupied_only` off.
pub(crate) fn occupied(spec: &RuleSpec, frame: &Frame, params: &Params) -> Vec<bool> {
    let n = frame.len();
    if params.flag(spec, "occupied_only") == Some(false) {
        return vec![true; n];
    }
    let in_schedule = crate::engine::scheduled(spec, params);
    let (occ, warmup, cooldown) = (frame.col("occupancy"), frame.col("warmup"), frame.col("cooldown"));
    (0..n)
        .map(|i| {
            let t = frame.ts[i];
            let scheduled = match occ {
                Some(o) => on(o[i]),
                None => in_schedule(t),
            };
            scheduled && !warmup.is_some_and(|w| on(w[i])) && !cooldown.is_some_and(|c| on(c[i]))
        })
        .collect()
}

/// One signal's judgement over the samples `seg` selects.
#[allow(clippy::too_many_arguments)]
fn judge(
    spec: &RuleSpec,
    frame: &Frame,
    s: &Settings,
    co2: &[f64],
    role: &'static str,
    seg: &[bool],
    occupied_all: &[bool],
    fallback: bool,
) -> Finding {
    let n = frame.len();
    let oa = frame.col(role).unwrap_or_default();
    let w = frame.weights_hours();
    let hours = |idx: &mut dyn Iterator<Item = usize>| idx.map(|i| w[i]).sum::<f64>() + 0.0;
    let share = |part: f64, whole: f64| if whole > 0.0 { 100.0 * part / whole } else { 0.0 };
    let occupied: Vec<bool> = (0..n).map(|i| occupied_all[i] && seg[i]).collect();
    let mut caveats =
        vec!["if this CO2 sensor is in the return air it averages the zones and understates the worst one".to_string()];

    // the fan: a status gates; without one, a speed only names below-floor hours with the fan off
    let status = frame.col("supply_fan_status");
    let fan_on: Option<Vec<bool>> = status.map(|c| c.iter().map(|&v| v > FAN_STATUS_ON).collect());
    let fan_off_speed: Option<Vec<bool>> = match (status, frame.col("supply_fan_speed")) {
        (None, Some(sp)) => {
            let k = percent_scale(sp);
            Some(sp.iter().map(|&v| !v.is_nan() && v * k <= s.fan_off_speed).collect())
        }
        _ => None,
    };
    let fan_source = if status.is_some() { Some("fan status") } else { fan_off_speed.as_ref().map(|_| "fan speed") };
    let mask: Vec<bool> = (0..n).map(|i| occupied[i] && fan_on.as_ref().is_none_or(|f| f[i])).collect();

    let full_oa_signal = matches!(role, "airflow" | "supply_fan_speed");
    let (econ, evidence) = if full_oa_signal {
        caveats.push(format!("100% outdoor-air unit: outdoor air read from the {} (all of it outdoor air, but the fan may also speed up to cool)", label(role)));
        (None, None)
    } else {
        let (m, e) = economizer_may_run(frame, s.econ_high_limit);
        (m, Some(e))
    };
    match evidence {
        Some(EconEvidence::None) => caveats.push("no economizer command, outdoor air or heating valve trended: economizing could not be ruled out, so outdoor air may be following the weather rather than demand".into()),
        Some(EconEvidence::Oat) => caveats.push(format!("economizing inferred from outdoor air alone (only hours above {} °F kept), not from a trended command", s.econ_high_limit)),
        Some(EconEvidence::OatAndHeating) => caveats.push("economizing inferred from outdoor air and the heating valve, not from a trended command".into()),
        _ => {}
    }
    let floor = match s.oa_floor {
        Some(f) if matches!(role, "oa_airflow" | "airflow") => Some(f),
        Some(_) => {
            caveats.push(format!("the outdoor-air floor is in cfm and is not checked on the {}", label(role)));
            None
        }
        None => None,
    };
    let span: Vec<usize> = (0..n).filter(|&i| occupied[i] && !co2[i].is_nan()).collect();
    let dates = |idx: &[usize]| idx.first().zip(idx.last()).map(|(a, b)| (date(frame.ts[*a]), date(frame.ts[*b])));
    let seg_idx: Vec<usize> = (0..n).filter(|&i| seg[i]).collect();
    let (start, end) = dates(if span.is_empty() { &seg_idx } else { &span }).unwrap_or_default();
    if role == "oa_damper" {
        caveats.push(format!(
            "outdoor air judged from the damper position, not a measured flow{}",
            if fallback { format!(" ({start} to {end}, where the outdoor airflow is missing)") } else { String::new() }
        ));
    }

    // the judged population: occupied, running, both signals read, CO2 plausible
    let rows: Vec<usize> = (0..n)
        .filter(|&i| mask[i] && !oa[i].is_nan() && co2[i] >= CO2_PLAUSIBLE_PPM.0 && co2[i] <= CO2_PLAUSIBLE_PPM.1)
        .collect();
    let rows_h = hours(&mut rows.iter().copied());
    let mut metrics = BTreeMap::new();
    let mut conditions = Vec::new();

    // the floor is checked on every occupied sample, before the economizer and shut-air exclusions:
    // an economizer only adds air, and shut air while occupied is the deepest shortfall there is
    let below_of = |i: usize, f: f64| oa[i] < f * (1.0 - FLOOR_TOL);
    let mut below_flagged: Vec<u32> = Vec::new();
    let mut total_below = None;
    let mut longest_h = None;
    if let Some(f) = floor {
        below_flagged = rows.iter().copied().filter(|&i| below_of(i, f)).map(|i| i as u32).collect();
        let off = |i: usize| fan_off_speed.as_ref().is_some_and(|o| o[i]);
        let below_h = hours(&mut below_flagged.iter().map(|&i| i as usize));
        let running_h = hours(&mut below_flagged.iter().map(|&i| i as usize).filter(|&i| !off(i)));
        total_below = Some(share(below_h, rows_h));
        metrics.insert("below_floor_total_pct".into(), round2(share(below_h, rows_h)));
        metrics.insert("below_floor_pct".into(), round2(share(running_h, rows_h)));
        // the longest unbroken run of below-floor samples among the occupied ones
        let (mut best, mut cur) = ((0.0f64, 0.0f64, 0usize), (0.0f64, 0.0f64, 0usize));
        for &i in &rows {
            if below_of(i, f) {
                if cur.0 == 0.0 {
                    cur.2 = i;
                }
                cur.0 += w[i];
                cur.1 += if off(i) { w[i] } else { 0.0 };
                if cur.0 > best.0 {
                    best = cur;
                }
            } else {
                cur = (0.0, 0.0, 0);
            }
        }
        longest_h = Some(best.0);
        metrics.insert("below_floor_longest_h".into(), round2(best.0));
        metrics.insert("below_floor_longest_fan_off_h".into(), round2(best.1));
        if best.0 > 0.0 {
            metrics.insert("below_floor_longest_start_ns".into(), frame.ts[best.2] as f64);
        }
        conditions.push(Condition {
            name: "below_floor".into(),
            flagged: below_flagged.clone(),
            judged: rows.len(),
            judged_hours: rows_h,
            flagged_hours: below_h,
        });
    }

    // economizing and shut air say nothing about DCV
    let n_econ = econ.as_ref().map(|e| rows.iter().filter(|&&i| e[i]).count());
    let open_rows: Vec<usize> = rows.iter().copied().filter(|&i| econ.as_ref().is_none_or(|e| !e[i])).collect();
    let p95_open = percentile_at(oa, open_rows.iter().copied(), 95.0);
    let shut = |v: f64| if p95_open > 0.0 { v <= CLOSED_FRAC * p95_open } else { v <= 0.0 };
    let judged: Vec<usize> = open_rows.iter().copied().filter(|&i| !shut(oa[i])).collect();
    let closed_pct = (!open_rows.is_empty()).then(|| {
        share(hours(&mut open_rows.iter().copied().filter(|&i| shut(oa[i]))), hours(&mut open_rows.iter().copied()))
    });

    let a = assess(frame, s, oa, co2, &judged, floor);

    // occupied, CO2 high, and nothing ventilating: the fan off or the outdoor air shut
    let p95_occ = percentile_at(oa, (0..n).filter(|&i| occupied[i]), 95.0);
    let unventilated = |i: usize| {
        let shut_air = if p95_occ > 0.0 { oa[i] <= CLOSED_FRAC * p95_occ } else { oa[i] <= 0.0 };
        (shut_air || fan_on.as_ref().is_some_and(|f| !f[i])) && co2[i] >= s.unventilated_ppm
    };
    let mut unvent: Vec<u32> = Vec::new();
    let mut unvent_h = None;
    if span.len() >= s.min_samples {
        unvent = span.iter().copied().filter(|&i| unventilated(i)).map(|i| i as u32).collect();
        let (h, span_h) = (hours(&mut unvent.iter().map(|&i| i as usize)), hours(&mut span.iter().copied()));
        unvent_h = Some(h);
        metrics.insert("unventilated_high_co2_pct".into(), round2(share(h, span_h)));
        metrics.insert("unventilated_high_co2_hours".into(), round2(h));
        conditions.push(Condition {
            name: "unventilated".into(),
            flagged: unvent.clone(),
            judged: span.len(),
            judged_hours: span_h,
            flagged_hours: h,
        });
    }

    // below the floor with the fan off: an occupied schedule the fan did not keep, named apart
    let mut fan_off_h = None;
    if let (Some(f), Some(src)) = (floor, fan_source) {
        let (idx, pop): (Vec<usize>, Vec<usize>) = match &fan_off_speed {
            Some(off) => (rows.iter().copied().filter(|&i| off[i] && below_of(i, f)).collect(), rows.clone()),
            None => {
                let pop: Vec<usize> = (0..n).filter(|&i| occupied[i] && !co2[i].is_nan() && !oa[i].is_nan()).collect();
                let st = status.unwrap_or_default();
                (pop.iter().copied().filter(|&i| st[i] < 0.5 && below_of(i, f)).collect(), pop)
            }
        };
        let h = hours(&mut idx.iter().copied());
        if h > 0.0 {
            let when = if frame.col("occupancy").is_some() { "while occupied" } else { "while scheduled occupied" };
            caveats.push(format!(
                "supply fan off {when} for {h:.0} h ({:.1}% of occupied samples, read from the {src}), so outdoor air was below the floor: named here apart from the shortfall with the fan running; check the fan schedule against the building's real use",
                share(h, hours(&mut pop.iter().copied()))
            ));
        }
        fan_off_h = Some(h);
        metrics.insert("fan_off_occupied_hours".into(), round2(h));
    }

    // the verdict, then the sub-checks that can only make it worse
    let (mut severity, mut msg) = match a.status {
        Status::Insufficient(why) => (Severity::Info, format!("DCV not judged: {why}")),
        Status::Functioning => {
            (Severity::Ok, "outdoor air rises with CO2: demand-controlled ventilation at work".to_string())
        }
        Status::Static => {
            (Severity::Warn, "outdoor air does not move with demand: a fixed minimum, DCV not working".to_string())
        }
        // with the economizer not ruled out, it may be what moves the air
        Status::Uncorrelated if econ.is_none() && !full_oa_signal => {
            (Severity::Info, "outdoor air moves, but not with CO2 (the economizer could not be ruled out)".to_string())
        }
        Status::Uncorrelated => (Severity::Warn, "outdoor air moves, but not with CO2".to_string()),
    };
    if let Some(x) = a.excess_pct.filter(|&x| x >= s.excess_warn && severity == Severity::Ok) {
        severity = Severity::Warn;
        msg += &format!("; outdoor air above its floor on {x:.0}% of the low-demand hours");
    }
    if let (Some(b), Some(sp)) = (a.breach_pct.filter(|&b| b >= s.breach_fault), s.co2_setpoint) {
        severity = Severity::Fault;
        msg += &format!("; CO2 above {sp:.0} ppm with outdoor air at its minimum on {b:.0}% of the judged hours");
    }
    if let Some(t) = total_below.filter(|&t| t >= s.below_floor_fault) {
        severity = Severity::Fault;
        msg += &format!("; outdoor air below the floor on {t:.0}% of the occupied running hours");
    }
    if let (Some(l), Some(lim)) = (longest_h, s.below_floor_fault_h) {
        if l >= lim {
            severity = Severity::Fault;
            msg += &format!("; outdoor air below the floor for {l:.0} occupied hours in a row");
        }
    }
    if let Some(h) = fan_off_h.filter(|&h| h > 0.0) {
        msg += &format!("; supply fan off while occupied for {h:.0} h (outdoor air below the floor)");
    }
    if let Some(h) = unvent_h.filter(|&h| h >= s.unventilated_fault_h) {
        severity = Severity::Fault;
        msg += &format!("; occupied with CO2 at or above {:.0} ppm and nothing ventilating (fan off or outdoor air shut) for {h:.0} h", s.unventilated_ppm);
    }

    let mut not_evaluated = Vec::new();
    if a.breach_pct.is_none() {
        not_evaluated.push("CO2 above setpoint at minimum outdoor air (no co2_setpoint)");
    }
    if total_below.is_none() {
        not_evaluated.push("outdoor air below the Ra·Az floor (no oa_floor_cfm, or no airflow signal)");
    }
    if !not_evaluated.is_empty() && !fallback {
        caveats.push(format!("not evaluated: {}", not_evaluated.join("; ")));
    }
    if let Some(c) = closed_pct.filter(|&c| c >= CLOSED_CAVEAT_PCT) {
        caveats.push(format!("outdoor air was shut on {c:.0}% of the occupied running hours (warm-up, fan starts or a damper fault); those were left out"));
    }
    if let Some((_, _, false)) = a.lift.filter(|_| matches!(a.status, Status::Functioning | Status::Uncorrelated)) {
        caveats.push("outdoor air was rarely both raised and at its floor within one hour of day, so the CO2 lift is pooled across the day: a damper on a time clock cannot be told from one following CO2".into());
    }
    if let (Some(EconEvidence::Oat | EconEvidence::OatAndHeating), Some(k)) = (evidence, n_econ) {
        if k as f64 >= 0.95 * ((k + a.n) as f64).max(1.0) {
            caveats.push(format!(
                "{k} samples were left out as possibly economizing (outdoor air at or below {} °F); a cool climate, or outdoor air trended in °C, leaves little to judge: map econ_cmd",
                s.econ_high_limit
            ));
        }
    }

    metrics.insert("n".into(), a.n as f64);
    if a.n >= s.min_samples {
        metrics.insert("modulation".into(), round2(a.modulation));
        metrics.insert("demand_span".into(), round2(a.demand_span));
        if !a.correlation.is_nan() {
            metrics.insert("correlation".into(), round2(a.correlation));
        }
    }
    if let Some((lift, pooled, _)) = a.lift {
        metrics.insert("demand_lift".into(), round2(lift));
        metrics.insert("demand_lift_pooled".into(), round2(pooled));
    }
    if let Some(b) = a.breach_pct {
        metrics.insert("co2_breach_at_min_pct".into(), round2(b));
    }
    if let Some(x) = a.excess_pct {
        metrics.insert("excess_at_low_demand_pct".into(), round2(x));
    }
    if let Some(c) = closed_pct {
        metrics.insert("closed_pct".into(), round2(c));
    }
    if let Some(k) = n_econ {
        metrics.insert("n_econ_excluded".into(), k as f64);
    }
    let judged_h = hours(&mut judged.iter().copied());
    let unanswered_h = hours(&mut a.unanswered.iter().map(|&i| i as usize));
    conditions.insert(
        0,
        Condition {
            name: "demand_not_answered".into(),
            flagged: a.unanswered.clone(),
            judged: a.n,
            judged_hours: judged_h,
            flagged_hours: unanswered_h,
        },
    );
    if s.co2_setpoint.is_some() {
        let bh = hours(&mut a.breach.iter().map(|&i| i as usize));
        conditions.push(Condition {
            name: "co2_breach_at_min".into(),
            flagged: a.breach.clone(),
            judged: a.n,
            judged_hours: judged_h,
            flagged_hours: bh,
        });
    }
    let mut flagged: Vec<u32> =
        a.unanswered.iter().chain(&a.breach).chain(&below_flagged).chain(&unvent).copied().collect();
    flagged.sort_unstable();
    flagged.dedup();
    let on_what = if fallback {
        format!("{}, where the better signal is missing, {start} to {end}", label(role))
    } else {
        label(role).to_string()
    };
    Finding::new(spec, severity, format!("{msg} (judged on the {on_what})"))
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(a.n)
        .with_conditions(conditions)
}

/// The modulation test on the judged samples: whether demand reached the DCV range and varied,
/// whether outdoor air moved, and whether CO2 is higher when it was raised than at its floor.
fn assess(frame: &Frame, s: &Settings, oa: &[f64], co2: &[f64], judged: &[usize], floor: Option<f64>) -> Assessment {
    let w = frame.weights_hours();
    let n = judged.len();
    let mut a = Assessment {
        status: Status::Insufficient("too few occupied running samples with the economizer ruled out"),
        n,
        modulation: f64::NAN,
        correlation: f64::NAN,
        demand_span: f64::NAN,
        lift: None,
        breach_pct: None,
        excess_pct: None,
        unanswered: Vec::new(),
        breach: Vec::new(),
    };
    if n < s.min_samples {
        return a;
    }
    let share = |idx: &mut dyn Iterator<Item = usize>, of: &mut dyn Iterator<Item = usize>| {
        let whole: f64 = of.map(|i| w[i]).sum();
        if whole > 0.0 {
            100.0 * idx.map(|i| w[i]).sum::<f64>() / whole
        } else {
            0.0
        }
    };
    let oa_sorted = sorted_at(oa, judged.iter().copied());
    let d_sorted = sorted_at(co2, judged.iter().copied());
    let (p_lo, p_hi) = (percentile(&oa_sorted, 5.0), percentile(&oa_sorted, 95.0));
    let range = p_hi - p_lo;
    a.modulation = if p_hi > 0.0 { (range / p_hi).clamp(0.0, 1.0) } else { 0.0 };
    a.correlation = pearson(judged.iter().map(|&i| (oa[i], co2[i])));
    let p25 = percentile(&d_sorted, 25.0);
    a.demand_span = percentile(&d_sorted, 90.0) - percentile(&d_sorted, 10.0);
    let high = |i: usize| co2[i] >= s.engage;
    let low = |i: usize| co2[i] <= p25 && co2[i] < s.engage;
    let at_floor = |i: usize| oa[i] <= p_lo + AT_FLOOR_FRAC * range;
    let raised = |i: usize| oa[i] >= p_lo + RAISED_FRAC * range;
    let enough = |k: usize| k >= MIN_BIN && k as f64 >= MIN_BIN_SHARE * n as f64;
    if let Some(sp) = s.co2_setpoint {
        let at_min = |i: usize| match floor {
            Some(f) => oa[i] <= f * (1.0 + FLOOR_TOL),
            None => at_floor(i),
        };
        a.breach = judged.iter().copied().filter(|&i| co2[i] > sp && at_min(i)).map(|i| i as u32).collect();
        a.breach_pct = Some(share(&mut a.breach.iter().map(|&i| i as usize), &mut judged.iter().copied()));
    }
    let n_low = judged.iter().filter(|&&i| low(i)).count();
    if let Some(f) = floor.filter(|_| enough(n_low)) {
        a.excess_pct = Some(share(
            &mut judged.iter().copied().filter(|&i| low(i) && oa[i] > f * (1.0 + FLOOR_TOL)),
            &mut judged.iter().copied().filter(|&i| low(i)),
        ));
    }
    let count = |f: &dyn Fn(usize) -> bool| judged.iter().filter(|&&i| f(i)).count();
    if a.demand_span < s.min_demand_span {
        a.status = Status::Insufficient("CO2 hardly varied, so DCV was never put to the test");
        return a;
    }
    if !enough(count(&high)) {
        a.status = Status::Insufficient("CO2 seldom reached the level where DCV should act");
        return a;
    }
    if a.modulation < s.min_modulation {
        a.status = Status::Static;
        a.unanswered = judged.iter().copied().filter(|&i| high(i)).map(|i| i as u32).collect();
        return a;
    }
    if !(enough(count(&raised)) && enough(count(&at_floor))) {
        a.status = Status::Insufficient("outdoor air was too seldom both raised and at its floor to compare");
        return a;
    }
    let med = |f: &dyn Fn(usize) -> bool, idx: &mut dyn Iterator<Item = usize>| {
        median(&mut idx.filter(|&i| f(i)).map(|i| co2[i]).collect::<Vec<_>>())
    };
    let pooled = med(&raised, &mut judged.iter().copied()) - med(&at_floor, &mut judged.iter().copied());
    // within the hour of day (weekdays and weekends apart): only CO2 higher when the air is raised
    // at the same hour is a response to demand rather than to the clock
    let (mut num, mut weight) = (0.0, 0.0);
    if s.stratify {
        let mut slots: Vec<Vec<usize>> = vec![Vec::new(); 48];
        for &i in judged {
            let t = frame.ts[i];
            let slot = (weekday(t) >= 5) as usize * 24 + (t.rem_euclid(24 * NS_PER_HOUR) / NS_PER_HOUR) as usize;
            slots[slot].push(i);
        }
        for slot in &slots {
            let k = slot.iter().filter(|&&i| raised(i)).count().min(slot.iter().filter(|&&i| at_floor(i)).count());
            if k >= MIN_PAIRS {
                num += (med(&raised, &mut slot.iter().copied()) - med(&at_floor, &mut slot.iter().copied())) * k as f64;
                weight += k as f64;
            }
        }
    }
    let by_hour = weight >= MIN_BIN as f64;
    let lift = if by_hour { num / weight } else { pooled };
    a.lift = Some((lift, pooled, by_hour));
    if lift >= s.min_lift {
        a.status = Status::Functioning;
    } else {
        a.status = Status::Uncorrelated;
        a.unanswered = judged.iter().copied().filter(|&i| high(i) && at_floor(i)).map(|i| i as u32).collect();
    }
    a
}

/// Pearson correlation of the pairs; NaN when either side does not vary.
fn pearson(pairs: impl Iterator<Item = (f64, f64)> + Clone) -> f64 {
    let n = pairs.clone().count() as f64;
    let (sx, sy) = pairs.clone().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx, syy) = pairs.fold((0.0, 0.0, 0.0), |(a, b, c), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx), c + (y - my) * (y - my))
    });
    if sxx > 0.0 && syy > 0.0 {
        sxy / (sxx * syy).sqrt()
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{findings, outcome, run, shuffled_with_duplicates, MONDAY};
    use crate::engine::ParamValue;

    /// Hourly over `days` days, weekday office hours occupied by the schedule: CO2 `co2(i)`, the
    /// outdoor-air damper at `damper(i)` %, outdoor air at 85 °F (so never economizing), the fan
    /// on around the clock.
    fn frame(days: i64, co2: impl Fn(usize) -> f64, damper: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..days * 24).map(|h| MONDAY + h * NS_PER_HOUR).collect();
        let n = ts.len();
        Frame::from_rows(
            &ts,
            &[
                ("co2", (0..n).map(&co2).collect()),
                ("oa_damper", (0..n).map(&damper).collect()),
                ("oat", vec![85.0; n]),
                ("supply_fan_status", vec![1.0; n]),
            ],
        )
    }

    /// CO2 that fills and empties through the day, and varies from day to day: 450 ppm at 07:00,
    /// rising to a daily peak of 700-1200 ppm by early afternoon.
    fn demand(i: usize) -> f64 {
        let (day, hour) = (i / 24, (i % 24) as f64);
        let peak = 700.0 + 125.0 * (day % 5) as f64;
        450.0 + (peak - 450.0) * ((hour - 7.0) / 6.0).clamp(0.0, 1.0)
    }

    /// A proportional DCV reset: 20 % damper at 600 ppm and below, 60 % at 1100 ppm and above.
    fn reset(c: f64) -> f64 {
        20.0 + 40.0 * ((c - 600.0) / 500.0).clamp(0.0, 1.0)
    }

    fn with(pairs: &[(&str, f64)]) -> Params {
        let mut p = Params::default();
        for (k, v) in pairs {
            p.values.insert(k.to_string(), ParamValue::Number(*v));
        }
        p
    }

    #[test]
    fn working_dcv_is_ok_and_a_fixed_minimum_is_static() {
        let ok = run(&RULE, &frame(10, demand, |i| reset(demand(i))), &Params::default());
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert!(ok.metrics["demand_lift"] >= 50.0, "{:?}", ok.metrics);
        assert_eq!(ok.judged, 88); // 8 weekdays x 11 scheduled hours
        let fixed = run(&RULE, &frame(10, demand, |_| 20.0), &Params::default());
        assert_eq!(fixed.severity, Severity::Warn, "{}", fixed.summary);
        assert!(fixed.summary.contains("does not move"), "{}", fixed.summary);
        assert!(!fixed.flagged.is_empty());
        assert!(!fixed.metrics.contains_key("correlation"), "a constant damper has no correlation");
    }

    #[test]
    fn a_damper_on_a_time_clock_is_not_dcv() {
        // the damper opens from noon whatever the CO2, and from 10:00 on even days: pooled it looks
        // like DCV, but at 10:00 and 11:00 the open days are no busier than the shut ones
        let clock = run(
            &RULE,
            &frame(10, demand, |i| if i % 24 >= 12 || ((i / 24) % 2 == 0 && i % 24 >= 10) { 60.0 } else { 20.0 }),
            &Params::default(),
        );
        assert_eq!(clock.severity, Severity::Warn, "{} {:?}", clock.summary, clock.metrics);
        assert!(clock.metrics["demand_lift_pooled"] >= 50.0);
        assert!(clock.metrics["demand_lift"].abs() < 1.0, "{:?}", clock.metrics);
        // a pure clock leaves no hour with both: the pooled lift decides, and the finding says so
        let pure = run(&RULE, &frame(10, demand, |i| if i % 24 >= 12 { 60.0 } else { 20.0 }), &Params::default());
        assert!(pure.caveats.iter().any(|c| c.contains("time clock")), "{:?}", pure.caveats);
    }

    #[test]
    fn breaches_floors_and_unventilated_hours_fault() {
        // CO2 well above a 900 ppm setpoint with the damper at its minimum
        let fixed = frame(10, |i| demand(i) + 300.0, |i| if i % 24 < 9 { 40.0 } else { 20.0 });
        let r = findings(&RULE, &fixed, &with(&[("co2_setpoint", 900.0)])).remove(0);
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!(r.metrics["co2_breach_at_min_pct"] >= 10.0);
        // outdoor airflow under its Ra·Az floor
        let mut flow = frame(10, demand, |i| reset(demand(i)));
        let cfm: Vec<f64> = flow.cols["oa_damper"].iter().map(|d| d * 20.0).collect(); // 400-1200 cfm
        flow.cols.insert("oa_airflow".into(), cfm);
        let floor = findings(&RULE, &flow, &with(&[("oa_floor_cfm", 600.0)])).remove(0);
        assert_eq!(floor.severity, Severity::Fault, "{}", floor.summary);
        assert!(floor.metrics["below_floor_total_pct"] >= 10.0);
        assert!(floor.summary.contains("outdoor airflow"), "{}", floor.summary);
        // the fan off all day while the space fills
        let mut dark = frame(10, |i| demand(i) + 400.0, |i| reset(demand(i)));
        dark.cols.insert("supply_fan_status".into(), vec![0.0; dark.len()]);
        let r = run(&RULE, &dark, &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!(r.metrics["unventilated_high_co2_hours"] >= 4.0);
    }

    #[test]
    fn the_lift_boundary() {
        // a lift just at or above min_lift_ppm is DCV at work; a limit just above the lift is not
        let f = frame(10, demand, |i| reset(demand(i)));
        let lift = run(&RULE, &f, &Params::default()).metrics["demand_lift"];
        assert_eq!(findings(&RULE, &f, &with(&[("min_lift_ppm", lift - 0.01)])).remove(0).severity, Severity::Ok);
        assert_eq!(findings(&RULE, &f, &with(&[("min_lift_ppm", lift + 0.01)])).remove(0).severity, Severity::Warn);
        // the unventilated duration: 4 h is a fault, 3 h is not
        let hours = |k: usize| {
            let mut f = frame(10, demand, |i| reset(demand(i)));
            let fan: Vec<f64> = (0..f.len()).map(|i| if (9..9 + k).contains(&i) { 0.0 } else { 1.0 }).collect();
            f.cols.insert("supply_fan_status".into(), fan);
            f.cols.insert(
                "co2".into(),
                (0..f.len()).map(|i| if (9..9 + k).contains(&i) { 1500.0 } else { demand(i) }).collect(),
            );
            run(&RULE, &f, &Params::default()).severity
        };
        assert_eq!(hours(3), Severity::Ok);
        assert_eq!(hours(4), Severity::Fault);
        assert_eq!(hours(5), Severity::Fault);
    }

    #[test]
    fn too_little_demand_and_economizing_are_not_judged() {
        let flat = run(&RULE, &frame(10, |_| 500.0, |_| 20.0), &Params::default());
        assert_eq!(flat.severity, Severity::Info, "{}", flat.summary);
        assert!(flat.summary.contains("not judged"), "{}", flat.summary);
        // mild weather with no heating: every sample may be economizing
        let mut mild = frame(10, demand, |_| 20.0);
        mild.cols.insert("oat".into(), vec![60.0; mild.len()]);
        let r = run(&RULE, &mild, &Params::default());
        assert_eq!((r.severity, r.judged), (Severity::Info, 0));
        assert!(r.caveats.iter().any(|c| c.contains("econ_cmd")), "{:?}", r.caveats);
        // an economizer command that is off lets them be judged again
        mild.cols.insert("econ_cmd".into(), vec![0.0; mild.len()]);
        assert_eq!(run(&RULE, &mild, &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn occupancy_schedule_and_fan_off() {
        let base = frame(10, demand, |i| reset(demand(i)));
        let n = base.len();
        let mut never = base.clone();
        never.cols.insert("occupancy".into(), vec![0.0; n]);
        assert_eq!(run(&RULE, &never, &Params::default()).judged, 0);
        let mut all_days = Params::default();
        all_days.values.insert("occupied_days".into(), ParamValue::List((0..7).map(f64::from).collect()));
        assert_eq!(findings(&RULE, &base, &all_days).remove(0).judged, 110);
        let mut off = base.clone();
        off.cols.insert("supply_fan_status".into(), vec![0.0; n]);
        assert_eq!(run(&RULE, &off, &Params::default()).judged, 0);
    }

    #[test]
    fn a_fallback_signal_judges_where_the_better_one_is_missing() {
        let mut f = frame(20, demand, |i| reset(demand(i)));
        let cfm: Vec<f64> =
            (0..f.len()).map(|i| if i < 10 * 24 { 20.0 * reset(demand(i)) } else { f64::NAN }).collect();
        f.cols.insert("oa_airflow".into(), cfm);
        let v = findings(&RULE, &f, &Params::default());
        assert_eq!(v.len(), 2);
        assert!(
            v[0].summary.contains("outdoor airflow") && v[1].summary.contains("where the better signal is missing"),
            "{} / {}",
            v[0].summary,
            v[1].summary
        );
        assert_eq!((v[0].severity, v[1].severity), (Severity::Ok, Severity::Ok));
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let base = frame(10, demand, |i| reset(demand(i)));
        let shuffled = shuffled_with_duplicates(&base);
        let twice = run(&RULE, &shuffled, &Params::default());
        assert_eq!((twice.severity, twice.judged), (Severity::Ok, 88));
        let mut gapped = base.clone();
        for v in &mut gapped.cols.get_mut("co2").unwrap()[48..96] {
            *v = f64::NAN;
        }
        let g = run(&RULE, &gapped, &Params::default());
        assert_eq!((g.severity, g.judged), (Severity::Ok, 66));
        // every other hour dropped on odd days: the verdict holds
        let keep: Vec<usize> = (0..base.len()).filter(|&i| (i / 24) % 2 == 0 || i % 2 == 0).collect();
        let irregular = Frame::from_rows(
            &keep.iter().map(|&i| base.ts[i]).collect::<Vec<_>>(),
            &base.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &irregular, &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn missing_inputs_and_degenerate_frames() {
        let mut f = frame(2, demand, |_| 20.0);
        f.cols.remove("co2");
        assert_eq!(outcome(&RULE, &f, &Params::default()), Outcome::Skipped { missing: vec!["co2".into()] });
        let mut g = frame(2, demand, |_| 20.0);
        g.cols.remove("oa_damper");
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["oa_airflow or oa_damper".into()] }
        );
        let one = frame(1, demand, |_| 20.0);
        let one = Frame::from_rows(
            &one.ts[9..10],
            &one.cols.iter().map(|(k, v)| (k.as_str(), v[9..10].to_vec())).collect::<Vec<_>>(),
        );
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Info);
        let empty = Frame::from_rows(&[], &[("co2", vec![]), ("oa_damper", vec![])]);
        assert_eq!(outcome(&RULE, &empty, &Params::default()), Outcome::Skipped { missing: vec!["co2".into()] });
        assert_eq!(date(MONDAY), "2024-01-01");
        assert_eq!(date(MONDAY + 59 * 24 * NS_PER_HOUR), "2024-02-29");
    }
}
