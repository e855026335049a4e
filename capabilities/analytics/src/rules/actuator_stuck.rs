//! `actuator_stuck`: a terminal-box or fan-coil damper or valve held at one position while the
//! zone asks for another. Holding still is not a fault by itself (a box at its minimum in a
//! mild zone, a valve shut all summer), so every flat run of at least `min_flat_hours` over the
//! active samples (occupied, and fan on when a fan status is trended) is judged by what the
//! zone asked for while it lasted:
//!
//! * contradicted (can reach fault): the valve's own demand moved 20 points or more; a damper
//!   shut through occupied time with no airflow against its setpoint (or `min_airflow`, or
//!   the occupied mode alone when neither is known); the actuator short of full open while the
//!   zone ran more than `warm_margin_f` past its setpoint on the actuator's side for a quarter
//!   of the run; or full open while the zone sat `satisfied_margin_f` inside its setpoint for
//!   half of it;
//! * unexplained (warn at most): one value for `whole_day_share` of a day's active time while
//!   something that should move it moved (the demand, the airflow setpoint, a zone setpoint or
//!   the zone temperature), unless it sits at a limit the demand agrees with (saturated);
//! * anything else is consistent.
//!
//! A damper short of open with its zone warm while its air handler's fan runs at full speed
//! (`parent_fan_speed_pct`, attached from the topology) is short of air, not stuck: the air
//! handler has none more to give (its boxes then all hold still together, and a simulator
//! reports each one's position as its flow over its maximum). Such a run, or such samples of a
//! run, are not held against the damper, and a caveat says how long the box was starved. A
//! constant-speed fan (at full speed whenever it runs) says nothing of the kind.
//!
//! Each actuator is judged on its own share of active time; the worst decides. A box stuck in
//! the direction its zone wants (full open on a hot day) cannot be told from one doing its job.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, median, on, round2, Condition, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, ParamValue, Params,
    Rule, RuleSpec, Severity, NS_PER_HOUR,
};

/// Share of a run the zone must be out of band on the actuator's side, and satisfied while it is
/// full open.
const WARM_SHARE: f64 = 0.25;
const SATISFIED_SHARE: f64 = 0.50;
/// Demand range (points) over a flat position run that contradicts it.
const DEMAND_MOVE_PCT: f64 = 20.0;
/// Airflow at or below this share of its setpoint: a shut box delivers nothing.
const NO_FLOW_FRAC: f64 = 0.05;
/// A demand "moves" over this range (points); an airflow setpoint over this share of its peak.
const DRIVER_PCT_SPAN: f64 = 5.0;
/// A box whose minimum airflow setpoint is at least this share of its peak airflow is
/// constant volume.
const CONSTANT_VOLUME_SHARE: f64 = 0.85;
/// A zone between its setpoints (within `warm_margin_f`) on this share of a run was satisfied
/// throughout: its temperature moving is no call on the actuator.
const IN_BAND_SHARE: f64 = 0.9;
/// A damper run at least this share of which its air handler's fan was at full speed with the
/// zone not satisfied was starved of air, not stuck.
const STARVED_SHARE: f64 = 0.5;
/// A fan under full speed on at least this share of its running samples modulates.
const MODULATING_SHARE: f64 = 0.1;
const DRIVER_FLOW_FRAC: f64 = 0.05;

/// The actuators the rule can judge, in the order combinations of them are spelled.
const ACTUATORS: [&str; 4] = ["damper", "heat_valve_position", "heat_valve", "cool_valve"];

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate).with_needs(needs);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "actuator_stuck",
        families: &["fan_coil", "terminal"],
        inputs: Inputs {
            required: &[],
            optional: &[
                "damper",
                "heat_valve_position",
                "heat_valve",
                "cool_valve",
                "space_temp",
                "cool_sp",
                "heat_sp",
                "airflow",
                "airflow_sp",
                "airflow_min_sp",
                "occupancy",
                "supply_fan_status",
                crate::engine::PARENT_FAN_SPEED,
            ],
            gating: &[],
            one_of: &[&["damper", "heat_valve_position", "heat_valve", "cool_valve"]],
            needs_gating: false,
        },
        params: [
            vec![
                ParamSpec {
                    name: "roles",
                    default: ParamValue::Names(vec!["damper".into(), "heat_valve_position".into(), "cool_valve".into()]),
                    unit: "role names (a list)",
                    range: None,
                    choices: &ACTUATORS,
                    basis: "the box and fan-coil actuators a zone's demand drives; an air handler's outdoor-air damper is out of scope",
                    calibrate: "Leave out an actuator whose point only echoes its command (a flat echo says nothing about the actuator). heat_valve_position falls back to heat_valve when no position is trended.",
                },
                ParamSpec::number("tol_pct", 0.5, "%", (0.0, 5.0),
                    "positions are rounded to this step, so sub-percent jitter on a finely resolved trend still reads as one value",
                    "Set it above the jitter a known-still actuator shows; larger values merge slow real movement into one run."),
                ParamSpec::number("min_flat_hours", 4.0, "h", (1.0, 24.0),
                    "healthy boxes can hold one mid-stroke position for several hours, so length alone decides nothing; shorter runs are not judged",
                    "Read the longest flat runs of healthy boxes in a typical week and set it at or above the run you would call held."),
                ParamSpec::number("whole_day_share", 0.98, "fraction of a day's active samples", (0.8, 1.0),
                    "a working actuator moves at some point in an occupied day; a stuck one holds through all of it",
                    "Set it above the largest share of a day's occupied time that a healthy box's longest run covers."),
                ParamSpec::number("limit_pct", 2.0, "% (from either end of the stroke)", (0.0, 10.0),
                    "a position this close to 0 or 100 % is at its limit",
                    "Set it just beyond the offset healthy actuators show when fully shut or fully open."),
                ParamSpec::number("min_driver_span_f", 1.0, "°F", (0.5, 5.0),
                    "a degree of movement in the zone temperature or a setpoint over a day is demand a modulating actuator should answer",
                    "Raise it for zones with very steady loads, so a calm day's held position is not called unexplained."),
                ParamSpec::number("warm_margin_f", 1.0, "°F", (0.5, 5.0),
                    "a zone more than this past its setpoint on the actuator's side (warm for a damper or cooling valve, cold for a heating valve) is asking it to open",
                    "Set it to the zone loop's normal overshoot on a hot afternoon. The zone must be out for a quarter of the run."),
                ParamSpec::number("satisfied_margin_f", 2.0, "°F", (1.0, 6.0),
                    "a full-open actuator with its zone this far inside the setpoint is delivering what nobody asked for",
                    "Set it above how far inside their setpoints healthy zones sit with the actuator full open. The zone must be in for half of the run."),
                ParamSpec::number("min_airflow", f64::NAN, "cfm (the trended airflow's unit)", (0.0, 5000.0),
                    "with no airflow setpoint trended, a shut damper is judged against the box's minimum airflow when one is given; unset and without a setpoint, the occupied mode alone is the demand",
                    "Set the box's scheduled occupied minimum airflow; a shut damper is contradicted when the airflow is at or below 5 % of it."),
                ParamSpec::number("warn_pct", 10.0, "% of active samples", (0.0, 100.0),
                    "a tenth of the occupied time held against demand",
                    "Lower it to catch a single stuck day in a long window; raise it to report only persistent faults."),
                ParamSpec::number("fault_pct", 50.0, "% of active samples", (0.0, 100.0),
                    "half the occupied time held against the zone's demand; only contradicted runs reach it",
                    "As warn_pct, and at or above it."),
            ],
            crate::engine::schedule_params().to_vec(),
        ]
        .concat(),
        judged_basis: "active (occupied, fan-on) samples of each actuator",
    }
}

/// How a flat run is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Unexplained,
    Contradicted,
}

/// Why a run was flagged, with the figure that says so.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reason {
    DemandMoved(f64),
    ShutNoFlow(Option<f64>),
    ShutOccupied,
    ZoneOut(f64),
    ZoneSatisfied(f64),
    FlatAllDay(&'static str, f64),
}

/// A flagged flat run of one actuator.
struct FlatRun {
    first: usize,
    last: usize,
    value: f64,
    hours: f64,
    tier: Tier,
    reason: Reason,
}

/// The zone signals a run is judged against.
#[derive(Clone, Copy)]
struct Zone<'a> {
    st: Option<&'a [f64]>,
    csp: Option<&'a [f64]>,
    hsp: Option<&'a [f64]>,
    flow: Option<&'a [f64]>,
    flow_sp: Option<&'a [f64]>,
    flow_sp_peak: f64,
    /// The box's trended minimum airflow setpoint.
    flow_min_sp: Option<&'a [f64]>,
    /// A constant-volume box: its trended minimum airflow is at least [`CONSTANT_VOLUME_SHARE`]
    /// of its peak airflow, so its damper has nothing to modulate.
    constant_volume: bool,
    /// Whether the box's air handler's fan was at full speed (within `limit_pct` of 100 %), per
    /// sample; `None` when no parent fan speed is attached or the fan does not modulate.
    parent_full: Option<&'a [bool]>,
    /// Each sample's weight in hours.
    w: &'a [f64],
}

/// Whether a box is constant volume: its minimum airflow setpoint at its highest (the 98th
/// percentile: a minimum scheduled off at night reads 0 then) is at least
/// [`CONSTANT_VOLUME_SHARE`] of its maximum: its airflow setpoint's highest when trended (a box
/// stuck at its minimum never reaches its maximum airflow, but its controller still asks for
/// it), else its airflow's.
fn constant_volume(frame: &Frame) -> bool {
    let Some(min_sp) = frame.col("airflow_min_sp") else { return false };
    let Some(max) = frame.col("airflow_sp").or(frame.col("airflow")) else { return false };
    match (crate::engine::robust_peak(min_sp), crate::engine::robust_peak(max)) {
        (Some(min), Some(peak)) => peak > 0.0 && min >= CONSTANT_VOLUME_SHARE * peak,
        _ => false,
    }
}

/// Whether an air handler's fan is at full speed (within `limit` points of 100 %), per sample;
/// `None` for a fan that does not modulate: one under full speed on less than
/// [`MODULATING_SHARE`] of its running samples is a constant-speed fan, whose full speed is its
/// normal state and no limit reached.
fn full_speed(speed: &[f64], limit: f64) -> Option<Vec<bool>> {
    let pct = as_percent(speed);
    let running = pct.iter().filter(|v| **v > 1.0).count();
    let under = pct.iter().filter(|v| **v > 1.0 && **v < 100.0 - limit).count();
    (running > 0 && under as f64 >= MODULATING_SHARE * running as f64)
        .then(|| pct.iter().map(|v| *v >= 100.0 - limit).collect())
}

/// max - min of the known values at `sel`; `None` when there are none.
fn span(c: &[f64], sel: &[usize]) -> Option<f64> {
    let (lo, hi) =
        sel.iter().map(|&i| c[i]).filter(|v| !v.is_nan()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (crate::engine::min_of(a, v), crate::engine::max_of(b, v))
        });
    (lo <= hi).then_some(hi - lo)
}

/// The median of the known values at `sel` (NaN when there are none).
fn median_at(c: &[f64], sel: &[usize]) -> f64 {
    median(&mut sel.iter().map(|&i| c[i]).filter(|v| !v.is_nan()).collect::<Vec<_>>())
}

/// The settings a run is judged with.
struct Judge {
    limit: f64,
    warm: f64,
    satisfied: f64,
    day_share: f64,
    driver_span: f64,
    min_airflow: f64,
}

impl Judge {
    /// Whether a flat damper run short of shut was starved: its air handler's fan at full speed,
    /// with the zone not satisfied on the cooling side (or no zone temperature to say), for
    /// [`STARVED_SHARE`] of the run's hours.
    fn starved(&self, role: &str, value: f64, sel: &[usize], z: &Zone) -> bool {
        let Some(full) = z.parent_full.filter(|_| role == "damper" && value > self.limit) else { return false };
        let run_h: f64 = sel.iter().map(|&i| z.w[i]).sum();
        let satisfied = |i: usize| match (z.st, z.csp) {
            (Some(st), Some(c)) => st[i] < c[i] - self.warm,
            _ => false,
        };
        let starved_h: f64 = sel.iter().filter(|&&i| full[i] && !satisfied(i)).map(|&i| z.w[i]).sum();
        run_h > 0.0 && starved_h >= STARVED_SHARE * run_h
    }

    /// The verdict on one flat run (`sel`: its samples, `day_h`: the active hours of the day
    /// it starts on); `None` when the run is consistent.
    fn run(
        &self,
        role: &str,
        value: f64,
        sel: &[usize],
        day_h: f64,
        z: &Zone,
        twin: Option<&[f64]>,
    ) -> Option<(Tier, Reason)> {
        let w = z.w;
        let closed = value <= self.limit;
        let open = value >= 100.0 - self.limit;
        let heating = role.starts_with("heat");
        let run_h: f64 = sel.iter().map(|&i| w[i]).sum();
        let share = |hit: &dyn Fn(usize) -> bool| {
            if run_h > 0.0 {
                sel.iter().filter(|&&i| hit(i)).map(|&i| w[i]).sum::<f64>() / run_h
            } else {
                0.0
            }
        };
        if let Some(s) = twin.and_then(|t| span(t, sel)).filter(|s| *s >= DEMAND_MOVE_PCT) {
            return Some((Tier::Contradicted, Reason::DemandMoved(s)));
        }
        if role == "damper" && closed {
            let sp = z.flow_sp.map(|c| median_at(c, sel)).filter(|v| !v.is_nan());
            // a box resting at its own trended minimum airflow is at its minimum, not shut
            let min_sp = z.flow_min_sp.map(|c| median_at(c, sel)).filter(|v| !v.is_nan() && *v > 0.0);
            let reference = sp.or(min_sp).or((!self.min_airflow.is_nan()).then_some(self.min_airflow));
            let Some(r) = reference else {
                return Some((Tier::Contradicted, Reason::ShutOccupied));
            };
            let flow = z.flow.map(|c| median_at(c, sel));
            if r > 0.0 && flow.is_none_or(|f| f <= NO_FLOW_FRAC * r) {
                return Some((Tier::Contradicted, Reason::ShutNoFlow(flow.map(|f| f / r))));
            }
        }
        if self.starved(role, value, sel, z) {
            return None;
        }
        // a constant-volume box's damper holds its one flow whatever the zone asks, by design: a
        // satisfied zone behind it full open, or a day held still, is no contradiction (a shut
        // one with no air, above, or one short of open with its zone warm, below, still are)
        let constant_volume = role == "damper" && z.constant_volume;
        // the zone's distance past the setpoint on the actuator's side (> 0: it wants more)
        let want: Option<Box<dyn Fn(usize) -> f64 + '_>> = match (z.st, heating) {
            (Some(st), true) => z.hsp.map(|h| Box::new(move |i: usize| h[i] - st[i]) as Box<dyn Fn(usize) -> f64>),
            (Some(st), false) => z.csp.map(|c| Box::new(move |i: usize| st[i] - c[i]) as Box<dyn Fn(usize) -> f64>),
            _ => None,
        };
        if let Some(want) = &want {
            // a damper's samples with its air handler's fan at full speed are no call it failed
            let fed = |i: usize| role != "damper" || z.parent_full.is_none_or(|p| !p[i]);
            if !open && share(&|i| want(i) > self.warm && fed(i)) >= WARM_SHARE {
                let gap = median(
                    &mut sel
                        .iter()
                        .filter(|&&i| fed(i))
                        .map(|&i| want(i))
                        .filter(|g| *g > self.warm)
                        .collect::<Vec<_>>(),
                );
                return Some((Tier::Contradicted, Reason::ZoneOut(gap)));
            }
            if open && !constant_volume && share(&|i| -want(i) >= self.satisfied) >= SATISFIED_SHARE {
                let gap =
                    median(&mut sel.iter().map(|&i| -want(i)).filter(|g| *g >= self.satisfied).collect::<Vec<_>>());
                return Some((Tier::Contradicted, Reason::ZoneSatisfied(gap)));
            }
        }
        if constant_volume || day_h <= 0.0 || run_h / day_h < self.day_share {
            return None;
        }
        // at a limit the demand agrees with: saturated, not stuck
        if closed || open {
            let saturated = match twin.map(|t| median_at(t, sel)).filter(|m| !m.is_nan()) {
                Some(m) => {
                    if open {
                        m >= 100.0 - self.limit
                    } else {
                        m <= self.limit
                    }
                }
                None => want.as_ref().is_some_and(|want| {
                    let known: Vec<f64> = sel.iter().map(|&i| want(i)).filter(|g| !g.is_nan()).collect();
                    let needing = known.iter().filter(|g| **g >= 0.0).count() as f64 / known.len().max(1) as f64;
                    !known.is_empty() && if open { needing >= 0.5 } else { needing < 0.5 }
                }),
            };
            if saturated {
                return None;
            }
        }
        // a zone that stays between its heating and cooling setpoints asks its box for nothing:
        // its temperature drifting inside the band does not call for the actuator to move
        let in_band = match (z.st, z.hsp, z.csp) {
            (Some(st), Some(h), Some(c)) => {
                share(&|i| !st[i].is_nan() && st[i] >= h[i] - self.warm && st[i] <= c[i] + self.warm) >= IN_BAND_SHARE
            }
            _ => false,
        };
        let drivers: [(&'static str, Option<f64>); 5] = [
            ("its demand", twin.and_then(|t| span(t, sel)).filter(|s| *s >= DRIVER_PCT_SPAN)),
            (
                "its airflow setpoint",
                z.flow_sp
                    .filter(|_| role == "damper" && z.flow_sp_peak > 0.0)
                    .and_then(|c| span(c, sel))
                    .filter(|s| *s >= DRIVER_FLOW_FRAC * z.flow_sp_peak),
            ),
            // a setpoint moving (a setback ending) while the zone stays inside the band it bounds
            // asks nothing of the actuator either
            (
                "the cooling setpoint",
                z.csp.filter(|_| !in_band).and_then(|c| span(c, sel)).filter(|s| *s >= self.driver_span),
            ),
            (
                "the heating setpoint",
                z.hsp.filter(|_| !in_band).and_then(|c| span(c, sel)).filter(|s| *s >= self.driver_span),
            ),
            (
                "the zone temperature",
                z.st.filter(|_| !in_band).and_then(|c| span(c, sel)).filter(|s| *s >= self.driver_span),
            ),
        ];
        drivers.into_iter().find_map(|(name, s)| s.map(|s| (Tier::Unexplained, Reason::FlatAllDay(name, s))))
    }
}

/// One actuator's verdict.
struct RoleVerdict {
    role: &'static str,
    severity: Severity,
    runs: Vec<FlatRun>,
    active: Vec<u32>,
    active_h: f64,
    share: f64,
    contradicted_share: f64,
    longest_h: f64,
    /// Hours of flat runs not held against the damper: starved by its air handler.
    starved_h: f64,
}

/// How a role is named in a summary.
fn label(role: &str) -> &'static str {
    match role {
        "damper" => "damper",
        "heat_valve_position" => "heating valve (measured position)",
        "heat_valve" => "heating valve",
        _ => "cooling valve",
    }
}

/// One sentence on a flagged run.
fn phrase(role: &str, r: &FlatRun) -> String {
    let head = format!("{} stayed at {} % for {:.1} h", label(role), r.value, r.hours);
    let (sp, side) = if role.starts_with("heat") { ("heating", "under") } else { ("cooling", "over") };
    match r.reason {
        Reason::DemandMoved(d) => format!("{head} while its command moved {d:.0} points"),
        Reason::ShutNoFlow(Some(f)) => {
            format!("{head}, shut through occupied time with airflow at {:.0}% of its setpoint", 100.0 * f)
        }
        Reason::ShutNoFlow(None) | Reason::ShutOccupied => format!("{head}, shut through occupied time"),
        Reason::ZoneOut(d) => format!("{head} with the zone {d:.1} °F {side} its {sp} setpoint"),
        Reason::ZoneSatisfied(d) => format!("{head} full open with the zone {d:.1} °F inside its {sp} setpoint"),
        Reason::FlatAllDay(driver, s) => {
            let unit = match driver {
                "its demand" => " points",
                "its airflow setpoint" => "",
                _ => " °F",
            };
            format!("{head}, all of an occupied day, while {driver} moved {s:.1}{unit}")
        }
    }
}

/// The actuators `roles` names, in the order combinations of them are spelled.
fn wanted(spec: &RuleSpec, params: &Params) -> Vec<&'static str> {
    let set = params.names(spec, "roles");
    ACTUATORS.iter().copied().filter(|a| set.iter().any(|s| s == a)).collect()
}

/// What the rule needs: one of the actuators `roles` names, a heating-valve position standing
/// in for the valve's command when only the position is named (nothing when `roles` names no
/// actuator: the rule then says it judged none).
pub fn needs(spec: &RuleSpec, params: &Params) -> Needs {
    let wanted = wanted(spec, params);
    if wanted.is_empty() {
        return Needs::default();
    }
    let mut group = wanted.clone();
    if wanted.contains(&"heat_valve_position") && !wanted.contains(&"heat_valve") {
        group.push("heat_valve");
    }
    Needs { one_of: vec![group], ..Needs::default() }
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let wanted = wanted(spec, params);
    if wanted.is_empty() {
        return Outcome::Findings(vec![Finding::not_judged(spec, "roles names no actuator the rule knows")]);
    }
    // a heating-valve position falls back to the valve's command when it is not trended
    let mut roles: Vec<&'static str> = Vec::new();
    for &r in &wanted {
        let resolved = if frame.col(r).is_some() {
            Some(r)
        } else if r == "heat_valve_position" && !wanted.contains(&"heat_valve") && frame.col("heat_valve").is_some() {
            Some("heat_valve")
        } else {
            None
        };
        if let Some(r) = resolved.filter(|r| !roles.contains(r)) {
            roles.push(r);
        }
    }
    let n = frame.len();
    let occ = frame.col("occupancy");
    let fan = frame.col("supply_fan_status");
    let in_schedule = crate::engine::scheduled(spec, params);
    let (start_h, end_h, days) =
        (params.number(spec, "start_hour"), params.number(spec, "end_hour"), params.list(spec, "occupied_days"));
    let active: Vec<bool> = (0..n)
        .map(|i| {
            let occupied = match occ {
                Some(o) => on(o[i]),
                None => in_schedule(frame.ts[i]),
            };
            occupied && fan.is_none_or(|f| on(f[i]))
        })
        .collect();
    let w = frame.weights_hours();
    let flow_sp = frame.col("airflow_sp");
    let limit = params.number(spec, "limit_pct");
    let parent_full = frame.col(crate::engine::PARENT_FAN_SPEED).and_then(|c| full_speed(c, limit));
    let zone = Zone {
        st: frame.col("space_temp"),
        csp: frame.col("cool_sp"),
        hsp: frame.col("heat_sp"),
        flow: frame.col("airflow"),
        flow_sp,
        flow_sp_peak: flow_sp.map_or(0.0, |c| c.iter().filter(|v| !v.is_nan()).fold(0.0, |a, v| a.max(v.abs()))),
        flow_min_sp: frame.col("airflow_min_sp"),
        constant_volume: constant_volume(frame),
        parent_full: parent_full.as_deref(),
        w: &w,
    };
    // the same zone without its air handler's fan: what a run would read as if it were fed
    let unfed = Zone { parent_full: None, ..zone };
    let judge = Judge {
        limit,
        warm: params.number(spec, "warm_margin_f"),
        satisfied: params.number(spec, "satisfied_margin_f"),
        day_share: params.number(spec, "whole_day_share"),
        driver_span: params.number(spec, "min_driver_span_f"),
        min_airflow: params.number(spec, "min_airflow"),
    };
    let tol = params.number(spec, "tol_pct");
    let min_hours = params.number(spec, "min_flat_hours");
    let (warn, fault) = (params.number(spec, "warn_pct"), params.number(spec, "fault_pct"));
    let day_of = |i: usize| frame.ts[i].div_euclid(24 * NS_PER_HOUR);

    let mut verdicts: Vec<RoleVerdict> = Vec::new();
    for &role in &roles {
        let Some(raw) = frame.col(role) else { continue };
        let sig: Vec<f64> = as_percent(raw)
            .into_iter()
            .map(|v| if tol > 0.0 { (v / tol).round_ties_even() * tol } else { v })
            .collect();
        let twin: Option<Vec<f64>> =
            (role == "heat_valve_position").then(|| frame.col("heat_valve").map(as_percent)).flatten();
        let valid: Vec<u32> = (0..n).filter(|&i| active[i] && !sig[i].is_nan()).map(|i| i as u32).collect();
        let mut day_h: BTreeMap<i64, f64> = BTreeMap::new();
        for &i in &valid {
            *day_h.entry(day_of(i as usize)).or_default() += w[i as usize];
        }
        // runs of one value over the active samples: an inactive sample ends one, a missing
        // reading does not (it is skipped, and adds no time)
        let mut spans: Vec<(usize, usize, f64)> = Vec::new();
        let mut open_run: Option<(usize, usize, f64)> = None;
        for i in 0..n {
            if !active[i] {
                spans.extend(open_run.take());
                continue;
            }
            if sig[i].is_nan() {
                continue;
            }
            match open_run.as_mut() {
                Some(r) if r.2 == sig[i] => r.1 = i,
                _ => {
                    spans.extend(open_run.take());
                    open_run = Some((i, i, sig[i]));
                }
            }
        }
        spans.extend(open_run.take());
        let mut runs = Vec::new();
        let mut longest_h = 0.0f64;
        let mut starved_h = 0.0f64;
        for (first, last, value) in spans {
            let sel: Vec<usize> = (first..=last).filter(|&i| active[i] && sig[i] == value).collect();
            let hours: f64 = sel.iter().map(|&i| w[i]).sum();
            longest_h = longest_h.max(hours);
            if hours < min_hours {
                continue;
            }
            let day = day_h.get(&day_of(first)).copied().unwrap_or(0.0);
            match judge.run(role, value, &sel, day, &zone, twin.as_deref()) {
                Some((tier, reason)) => runs.push(FlatRun { first, last, value, hours, tier, reason }),
                // flagged but for its air handler's fan at full speed: starved, and said so
                None if zone.parent_full.is_some()
                    && judge.run(role, value, &sel, day, &unfed, twin.as_deref()).is_some() =>
                {
                    starved_h += hours
                }
                None => {}
            }
        }
        let active_h: f64 = valid.iter().map(|&i| w[i as usize]).sum();
        let pct = |t: Option<Tier>| {
            if active_h > 0.0 {
                100.0 * runs.iter().filter(|r| t.is_none_or(|t| r.tier == t)).map(|r| r.hours).sum::<f64>() / active_h
                    + 0.0
            } else {
                0.0
            }
        };
        let (share, c_share) = (pct(None), pct(Some(Tier::Contradicted)));
        let worst = runs.iter().map(|r| r.tier).max();
        let severity = match worst {
            Some(Tier::Contradicted) if c_share >= fault => Severity::Fault,
            Some(_) if share >= warn => Severity::Warn,
            Some(_) => Severity::Info,
            None => Severity::Ok,
        };
        verdicts.push(RoleVerdict {
            role,
            severity,
            runs,
            active: valid,
            active_h,
            share,
            contradicted_share: c_share,
            longest_h,
            starved_h,
        });
    }
    if verdicts.iter().all(|v| v.active.is_empty()) {
        let mut f = Finding::not_judged(spec, "no active (occupied, fan-on) sample of any actuator");
        if occ.is_none() {
            f.caveats.push(format!(
                "no occupancy point: active time is the schedule ({start_h}-{end_h} h on days {days:?})"
            ));
        }
        return Outcome::Findings(vec![f]);
    }
    // the worst actuator: highest severity, then the larger flagged share; the first on a tie
    let mut best = 0;
    for (k, v) in verdicts.iter().enumerate() {
        let b = &verdicts[best];
        if (v.severity, v.share) > (b.severity, b.share) {
            best = k;
        }
    }
    let chosen = &verdicts[best];
    let mut caveats = Vec::new();
    if zone.st.is_none() {
        caveats.push("no space temperature: the zone-demand checks (zone out of band, zone satisfied) were not made; flat runs are judged on airflow, the valve's demand and the whole-day test only".into());
    }
    for v in &verdicts {
        if v.runs.iter().any(|r| r.reason == Reason::ShutOccupied) {
            caveats.push(format!("{} judged shut against the occupied mode alone (no airflow setpoint trended, min_airflow unset): a box with a zero minimum may close legitimately; set min_airflow to confirm", v.role));
        }
    }
    if occ.is_none() {
        caveats.push(format!("no occupancy point: active time is the schedule ({start_h}-{end_h} h on days {days:?})"));
    }
    for v in verdicts.iter().filter(|v| v.starved_h > 0.0) {
        caveats.push(format!(
            "{} held still for {:.1} h in all while its air handler's fan ran at full speed and the zone was not satisfied: short of air, not stuck (see the air handler's findings); not flagged",
            label(v.role),
            v.starved_h
        ));
    }
    // the worst run: the higher tier, then the longer; the earliest on a tie
    let worst_run = chosen.runs.iter().fold(None, |best: Option<&FlatRun>, r| match best {
        Some(b) if (b.tier, b.hours) >= (r.tier, r.hours) => Some(b),
        _ => Some(r),
    });
    let summary = match worst_run {
        Some(r) => format!("{} ({:.0}% of active time flagged)", phrase(chosen.role, r), chosen.share),
        None => format!(
            "no actuator held still against its zone's demand (longest flat run {:.1} h)",
            verdicts.iter().map(|v| v.longest_h).fold(0.0, crate::engine::max_of)
        ),
    };
    let mut metrics = BTreeMap::new();
    metrics.insert("stuck_share".into(), round2(chosen.share));
    metrics.insert("contradicted_share".into(), round2(chosen.contradicted_share));
    metrics.insert("flat_runs".into(), chosen.runs.len() as f64);
    metrics.insert("longest_flat_hours".into(), round2(chosen.longest_h));
    metrics.insert("n_active".into(), chosen.active.len() as f64);
    if let Some(r) = worst_run {
        metrics.insert("value".into(), r.value);
    }
    if zone.parent_full.is_some() {
        metrics.insert("starved_hours".into(), round2(verdicts.iter().map(|v| v.starved_h).sum::<f64>() + 0.0));
    }
    for v in &verdicts {
        metrics.insert(format!("{}_stuck_share", v.role), round2(v.share));
        metrics.insert(format!("{}_longest_flat_hours", v.role), round2(v.longest_h));
    }
    let mut conditions = Vec::new();
    let mut flagged: Vec<u32> = Vec::new();
    for v in &verdicts {
        let idx: Vec<u32> = v
            .runs
            .iter()
            .flat_map(|r| (r.first..=r.last).map(|i| i as u32))
            .filter(|&i| v.active.binary_search(&i).is_ok())
            .collect();
        flagged.extend(&idx);
        let flagged_hours: f64 = v.runs.iter().map(|r| r.hours).sum::<f64>() + 0.0;
        conditions.push(Condition {
            name: v.role.to_string(),
            flagged: idx,
            judged: v.active.len(),
            judged_hours: v.active_h,
            flagged_hours,
        });
    }
    flagged.sort_unstable();
    flagged.dedup();
    Outcome::Findings(vec![Finding::new(spec, chosen.severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(chosen.active.len())
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::in_schedule;
    use crate::engine::testing::{outcome, run, shuffled_with_duplicates, H, MONDAY};

    /// One hourly sample of a box: (damper %, space temp, airflow, airflow setpoint).
    type Row = (f64, f64, f64, f64);

    /// Ten weekdays (two weeks, weekends included) of hourly box samples, occupied 07-18; the
    /// cooling setpoint is 74 °F, heating 70 °F.
    fn frame_at(ts: &[i64], row: impl Fn(usize, i64) -> Row) -> Frame {
        let rows: Vec<Row> = ts.iter().enumerate().map(|(i, &t)| row(i, t.rem_euclid(24 * H) / H)).collect();
        let occ: Vec<f64> =
            ts.iter().map(|&t| if in_schedule(t, 7.0, 18.0, &[0.0, 1.0, 2.0, 3.0, 4.0]) { 1.0 } else { 0.0 }).collect();
        let n = ts.len();
        Frame::from_rows(
            ts,
            &[
                ("damper", rows.iter().map(|r| r.0).collect()),
                ("space_temp", rows.iter().map(|r| r.1).collect()),
                ("airflow", rows.iter().map(|r| r.2).collect()),
                ("airflow_sp", rows.iter().map(|r| r.3).collect()),
                ("cool_sp", vec![74.0; n]),
                ("heat_sp", vec![70.0; n]),
                ("occupancy", occ),
            ],
        )
    }

    fn frame(row: impl Fn(usize, i64) -> Row) -> Frame {
        frame_at(&(0..14 * 24).map(|k| MONDAY + k * H).collect::<Vec<_>>(), row)
    }

    /// A healthy box: the damper follows a daily load, the zone floats within its band.
    fn healthy(_: usize, hour: i64) -> Row {
        let load = ((hour as f64 - 6.0) / 12.0 * std::f64::consts::PI).sin().max(0.0);
        (30.0 + 50.0 * load, 72.0 + 1.5 * load, 300.0 + 500.0 * load, 300.0 + 500.0 * load)
    }

    fn with(k: &str, v: ParamValue) -> Params {
        let mut p = Params::default();
        p.values.insert(k.into(), v);
        p
    }

    #[test]
    fn a_modulating_box_is_ok() {
        let f = run(&RULE, &frame(healthy), &Params::default());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!(f.judged, 110, "ten weekdays of eleven occupied hours");
        assert!(f.metrics["longest_flat_hours"] < 4.0);
        assert!(f.caveats.is_empty(), "{:?}", f.caveats);
    }

    #[test]
    fn a_box_resting_at_its_minimum_in_a_satisfied_zone_is_not_stuck() {
        // the damper held at 9 % all day at a steady minimum airflow while the zone drifts 3.5 °F
        // inside its 70-74 °F band: it asks for nothing (EnergyPlus's large office in April)
        let f = run(&RULE, &frame(|_, h| (9.0, 70.3 + 0.35 * (h % 11) as f64, 300.0, 300.0)), &Params::default());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        // the same drift carried past its cooling setpoint is a call the damper did not answer
        let f = run(&RULE, &frame(|_, h| (9.0, 72.0 + 0.35 * (h % 11) as f64, 300.0, 300.0)), &Params::default());
        assert!(f.severity >= Severity::Warn, "{}", f.summary);
    }

    #[test]
    fn a_box_at_its_own_tiny_minimum_is_not_shut() {
        // a mechanical room's box at 2 % delivering its 17 cfm against an 11 cfm minimum
        let mut f = frame(|_, _| (2.0, 72.0, 17.0, f64::NAN));
        f.cols.remove("airflow_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault, "without its minimum it reads shut: {}", r.summary);
        let n = f.len();
        f.cols.insert("airflow_min_sp".into(), vec![11.0; n]);
        let r = run(&RULE, &f, &Params::default());
        assert!(r.severity <= Severity::Info, "{}", r.summary);
        // no air at all against that minimum is shut
        f.cols.insert("airflow".into(), vec![0.0; n]);
        assert_eq!(run(&RULE, &f, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn a_constant_volume_box_holding_its_one_flow_is_not_stuck() {
        // a classroom box whose minimum is its maximum (the secondary school prototype): the
        // damper holds its balancing position all day while the zone drifts past its band
        let mut f = frame(|_, h| (60.0, 72.0 + 0.35 * (h % 11) as f64, 1000.0, 1000.0));
        let r = run(&RULE, &f, &Params::default());
        assert!(r.severity >= Severity::Warn, "without the minimum trended: {}", r.summary);
        let n = f.len();
        f.cols.insert("airflow_min_sp".into(), vec![950.0; n]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "{}", r.summary);
        // full open all day with the zone well inside its cooling setpoint: still its one flow
        let mut open = frame(|_, _| (100.0, 70.0, 1000.0, 1000.0));
        assert!(run(&RULE, &open, &Params::default()).severity >= Severity::Warn);
        open.cols.insert("airflow_min_sp".into(), vec![1000.0; n]);
        assert_eq!(run(&RULE, &open, &Params::default()).severity, Severity::Ok);
    }

    #[test]
    fn a_damper_stuck_while_the_zone_runs_warm_is_a_fault() {
        let f = run(
            &RULE,
            &frame(|i, h| {
                let r = healthy(i, h);
                (35.0, 76.0, r.2, r.3)
            }),
            &Params::default(),
        );
        assert_eq!(f.severity, Severity::Fault, "{}", f.summary);
        assert_eq!(f.metrics["contradicted_share"], 100.0);
        assert!(f.summary.contains("2.0 °F over its cooling setpoint"), "{}", f.summary);
        assert_eq!(f.flagged.len(), 110);
        assert_eq!(f.conditions[0].name, "damper");
    }

    #[test]
    fn a_damper_short_of_open_while_its_air_handler_runs_flat_out_is_starved_not_stuck() {
        // a fouled coil on a hot week: the air handler's fan at full speed on weekday afternoons,
        // every box held at 86 % (a simulator's flow over maximum flow) with its zone warm
        let starving = |t: i64| {
            let h = t.rem_euclid(24 * H) / H;
            in_schedule(t, 7.0, 18.0, &[0.0, 1.0, 2.0, 3.0, 4.0]) && h >= 9
        };
        let mut f = frame(|i, h| {
            let r = healthy(i, h);
            if (9..18).contains(&h) {
                (86.0, 76.5 + 0.2 * (h % 3) as f64, 900.0, 1000.0)
            } else {
                r
            }
        });
        let alone = run(&RULE, &f, &Params::default());
        assert!(alone.severity >= Severity::Warn, "without its air handler's fan: {}", alone.summary);
        let fan: Vec<f64> = f.ts.iter().map(|&t| if starving(t) { 100.0 } else { 70.0 }).collect();
        f.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), fan.clone());
        let fed = run(&RULE, &f, &Params::default());
        assert!(fed.severity <= Severity::Info, "{}", fed.summary);
        assert_eq!(fed.metrics["starved_hours"], 90.0, "nine hours a weekday for ten weekdays");
        assert!(fed.caveats.iter().any(|c| c.contains("short of air, not stuck")), "{:?}", fed.caveats);
        // a fan as a 0-1 fraction reads the same
        f.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), fan.iter().map(|v| v / 100.0).collect());
        assert!(run(&RULE, &f, &Params::default()).severity <= Severity::Info);
        // the fan short of full speed: the air handler had more to give, and the box took none
        f.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), fan.iter().map(|v| v.min(90.0)).collect());
        let short = run(&RULE, &f, &Params::default());
        assert_eq!(short.severity, alone.severity, "{}", short.summary);
        assert_eq!(short.metrics["starved_hours"], 0.0);
        // a constant-speed fan is at full speed whenever it runs: no limit reached
        f.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), vec![100.0; f.len()]);
        let constant = run(&RULE, &f, &Params::default());
        assert_eq!(constant.severity, alone.severity, "{}", constant.summary);
        assert!(!constant.metrics.contains_key("starved_hours"), "{:?}", constant.metrics);
        // a healthy box behind a fan at full speed has nothing excused
        let mut healthy_box = frame(healthy);
        healthy_box.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), fan.clone());
        let quiet = run(&RULE, &healthy_box, &Params::default());
        assert_eq!((quiet.severity, quiet.metrics["starved_hours"]), (Severity::Ok, 0.0));
        assert!(quiet.caveats.is_empty(), "{:?}", quiet.caveats);
        // a shut damper with no air is no starved box, whatever the fan does
        let mut shut = frame(|_, _| (0.0, 76.0, 0.0, 800.0));
        shut.cols.insert(crate::engine::PARENT_FAN_SPEED.into(), fan);
        assert_eq!(run(&RULE, &shut, &Params::default()).severity, Severity::Fault);
    }

    #[test]
    fn held_all_day_while_demand_moves_is_a_warning_and_a_saturated_box_is_quiet() {
        // flat mid-stroke with the zone inside its band but its airflow setpoint moving
        let f = run(
            &RULE,
            &frame(|i, h| {
                let r = healthy(i, h);
                (35.0, 72.0 + 0.5 * (r.1 - 72.0), r.2, r.3)
            }),
            &Params::default(),
        );
        assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
        assert_eq!(f.metrics["contradicted_share"], 0.0);
        assert!(f.summary.contains("its airflow setpoint moved"), "{}", f.summary);
        // full open while the zone is warm: the demand agrees, the box is saturated
        let f = run(
            &RULE,
            &frame(|i, h| {
                let r = healthy(i, h);
                (100.0, 74.5 + 0.5 * (r.1 - 72.0), r.2, r.3)
            }),
            &Params::default(),
        );
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        // full open while the zone sits 3 °F inside its cooling setpoint: nobody asked for it
        let f = run(
            &RULE,
            &frame(|i, h| {
                let r = healthy(i, h);
                (100.0, 71.0, r.2, r.3)
            }),
            &Params::default(),
        );
        assert_eq!(f.severity, Severity::Fault, "{}", f.summary);
    }

    #[test]
    fn a_shut_damper_with_no_airflow() {
        let shut = |_: usize, _: i64| (0.0, 73.0, 0.0, 300.0);
        assert_eq!(run(&RULE, &frame(shut), &Params::default()).severity, Severity::Fault);
        // the airflow reaches its minimum: the damper reading is wrong, not the box
        assert_eq!(run(&RULE, &frame(|_, _| (0.0, 73.0, 300.0, 300.0)), &Params::default()).severity, Severity::Ok);
        // without a setpoint the occupied mode alone decides, with a caveat; min_airflow replaces it
        let mut f = frame(shut);
        f.cols.remove("airflow_sp");
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault);
        assert!(r.caveats.iter().any(|c| c.contains("min_airflow")), "{:?}", r.caveats);
        f.cols.insert("airflow".into(), vec![250.0; f.len()]);
        assert_eq!(run(&RULE, &f, &with("min_airflow", ParamValue::Number(300.0))).severity, Severity::Ok);
    }

    #[test]
    fn a_valve_position_that_ignores_its_command() {
        let n = 14 * 24;
        let mut f = frame(healthy);
        f.cols.insert("heat_valve_position".into(), vec![0.2; n]); // a 0-1 scale: 20 %
        f.cols.insert("heat_valve".into(), (0..n).map(|i| ((i % 24) as f64 * 7.0).min(100.0)).collect());
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Fault, "{}", r.summary);
        assert!(r.summary.contains("heating valve (measured position) stayed at 20 %"), "{}", r.summary);
        assert!(r.summary.contains("command moved"), "{}", r.summary);
        // only the command trended: it stands in for the position, with no twin to compare
        f.cols.remove("heat_valve_position");
        f.cols.insert("heat_valve".into(), vec![0.0; n]);
        let r = run(&RULE, &f, &Params::default());
        assert_eq!(r.severity, Severity::Ok, "shut while the zone is warm enough: {}", r.summary);
        assert!(r.metrics.contains_key("heat_valve_stuck_share"));
    }

    #[test]
    fn the_length_and_share_boundaries() {
        // stuck at 35 % on the first `hours` occupied hours of the first day, the zone warm
        let stuck = |days: i64, hours: i64| {
            move |i: usize, h: i64| {
                let day = i as i64 / 24;
                if day < days && (7..7 + hours).contains(&h) {
                    (35.0, 76.0, 300.0, 300.0)
                } else {
                    healthy(i, h)
                }
            }
        };
        // a 4-hour run is judged, a 3-hour one is not
        assert_eq!(run(&RULE, &frame(stuck(1, 3)), &Params::default()).severity, Severity::Ok);
        let four = run(&RULE, &frame(stuck(1, 4)), &Params::default());
        assert_eq!(four.severity, Severity::Info, "{}", four.summary);
        // one whole day of eleven: exactly 10 % of active time is a warning, ten hours is not
        let day = run(&RULE, &frame(stuck(1, 11)), &Params::default());
        assert_eq!((day.severity, day.metrics["stuck_share"]), (Severity::Warn, 10.0));
        assert_eq!(run(&RULE, &frame(stuck(1, 10)), &Params::default()).severity, Severity::Info);
        // five of ten weekdays (the weekend days hold no active time): half is a fault
        let five = run(&RULE, &frame(stuck(7, 11)), &Params::default());
        assert_eq!((five.severity, five.metrics["contradicted_share"]), (Severity::Fault, 50.0));
        assert_eq!(run(&RULE, &frame(stuck(4, 11)), &Params::default()).severity, Severity::Warn);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        let stuck5 =
            |i: usize, h: i64| if i < 24 && (7..12).contains(&h) { (35.0, 76.0, 300.0, 300.0) } else { healthy(i, h) };
        assert_eq!(run(&RULE, &frame(stuck5), &Params::default()).severity, Severity::Info);
        // two hours of that run missing: what is left stands for 3.5 h, short of min_flat_hours
        let ts: Vec<i64> = (0..14 * 24).filter(|k| !(9..11).contains(k)).map(|k| MONDAY + k * H).collect();
        let gapped = run(&RULE, &frame_at(&ts, |i, h| stuck5(if i >= 9 { i + 2 } else { i }, h)), &Params::default());
        assert_eq!(gapped.severity, Severity::Ok, "{}", gapped.summary);
        assert_eq!(gapped.metrics["damper_longest_flat_hours"], 3.5);
        // reversed, with every row repeated: the same verdict
        let base = frame(|i, h| if i < 48 { (35.0, 76.0, 300.0, 300.0) } else { healthy(i, h) });
        let shuffled = shuffled_with_duplicates(&base);
        let a = run(&RULE, &shuffled, &Params::default());
        let b = run(&RULE, &base, &Params::default());
        assert_eq!((a.severity, &a.metrics, &a.flagged), (b.severity, &b.metrics, &b.flagged));
        assert_eq!(b.metrics["stuck_share"], 20.0);
        // half-hourly mornings and hourly afternoons: the stuck mornings are half of the time
        let ts: Vec<i64> = (0..14 * 24i64)
            .flat_map(|k| if (7..12).contains(&(k % 24)) { vec![k * 2, k * 2 + 1] } else { vec![k * 2] })
            .map(|half| MONDAY + half * H / 2)
            .collect();
        let f = frame_at(&ts, |i, h| if (7..12).contains(&h) { (35.0, 76.0, 300.0, 300.0) } else { healthy(i, h) });
        let r = run(&RULE, &f, &Params::default());
        let share = r.metrics["stuck_share"];
        assert!((44.0..47.0).contains(&share), "5 of 11 occupied hours: {share}");
    }

    #[test]
    fn off_unknown_and_missing() {
        let mut f = frame(|_, _| (35.0, 76.0, 300.0, 300.0));
        f.cols.insert("supply_fan_status".into(), vec![0.0; f.len()]);
        let off = run(&RULE, &f, &Params::default());
        assert_eq!((off.severity, off.judged), (Severity::Info, 0));
        // no occupancy point: the schedule parameters decide the active hours
        let mut g = frame(healthy);
        g.cols.remove("occupancy");
        let r = run(&RULE, &g, &with("end_hour", ParamValue::Number(12.0)));
        assert_eq!(r.judged, 50);
        assert!(r.caveats.iter().any(|c| c.contains("no occupancy point")));
        // no actuator at all
        g.cols.remove("damper");
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["damper, heat_valve_position, cool_valve or heat_valve".into()] }
        );
        let only = with("roles", ParamValue::Names(vec!["cool_valve".into()]));
        assert_eq!(outcome(&RULE, &g, &only), Outcome::Skipped { missing: vec!["cool_valve".into()] });
        // degenerate frames do not panic
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let one = Frame::from_rows(&[MONDAY + 9 * H], &[("damper", vec![40.0]), ("occupancy", vec![1.0])]);
        assert_eq!(run(&RULE, &one, &Params::default()).severity, Severity::Ok);
        let far = Frame::from_rows(&[i64::MIN, 0, i64::MAX], &[("damper", vec![40.0; 3]), ("occupancy", vec![1.0; 3])]);
        assert_eq!(run(&RULE, &far, &Params::default()).judged, 3);
        let nan = Frame::from_rows(
            &[MONDAY, MONDAY + H],
            &[("damper", vec![40.0, f64::NAN]), ("occupancy", vec![f64::NAN; 2])],
        );
        assert_eq!(run(&RULE, &nan, &Params::default()).severity, Severity::Info);
    }

    #[test]
    fn roles_are_a_list_of_known_actuators() {
        let spec = spec();
        assert_eq!(
            spec.params[0].default.to_json(),
            serde_json::json!(["damper", "heat_valve_position", "cool_valve"])
        );
        let parse = |v: serde_json::Value| {
            crate::config::param_from_json(&spec, "roles", &v)
                .map(|p| Params { values: [("roles".to_string(), p)].into(), ..Default::default() })
        };
        let list = parse(serde_json::json!(["damper", "cool_valve"])).unwrap();
        assert!(list.check(&spec).is_ok());
        assert_eq!(list.names(&spec, "roles"), ["damper", "cool_valve"]);
        // the comma-separated spelling reads the same
        assert_eq!(
            parse(serde_json::json!("damper, cool_valve")).unwrap().names(&spec, "roles"),
            ["damper", "cool_valve"]
        );
        assert!(parse(serde_json::json!(["oa_damper"]))
            .unwrap()
            .check(&spec)
            .unwrap_err()
            .contains("takes names among"));
        assert!(parse(serde_json::json!([3])).is_err());
    }
}
