//! The pump and hydronic-loop detectors, on a chilled-water loop (family `pump`) or a hot-water
//! one (family `hw_pump`, ids with an `hw_` prefix): the same five comparisons on each loop's
//! roles.
//!
//! - flow at matched pump speed (a deficit: impeller wear, a clogged strainer, or more
//!   resistance downstream; the loop DP says which is likelier);
//! - head at matched speed (a deficit: the pump itself);
//! - loop ΔT (warm minus cool) at matched flow, either way (a collapse: low-ΔT syndrome; a
//!   widening: a starved loop);
//! - loop DP at matched flow, either way, net of a DP-setpoint reset;
//! - pump power at matched flow (an excess: lost wire-to-water efficiency).
//!
//! Only running samples are judged when a pump status is trended (the loop ΔT only once the
//! loop has settled, half an hour after a start). The gates scale with the pump:
//! a speed normalizer is judged just above the drive's learned minimum speed (else 15 %), a flow
//! normalizer from a tenth of the baseline's 95th-percentile flow (at most 50 gpm), and the flow
//! and power floors are fractions of the baseline's own 95th percentile, the head floors of the
//! head the baseline expects at its top speed, all capped. A normalizer
//! that barely moves (or a pump with a status but no speed) is compared as a flat level.

use std::collections::BTreeMap;

use super::loadfit::{self, LoadFit, Side};
use super::{
    col, cusum_params, cv_positive, flagged, grade, key, level_span, median_kept, not_judged, opt_number, p95_positive,
    scaled_floor, score_caveats, score_metrics, sigma_params, unset, why_unusable, DetectorSpec, Floors, Kind,
    Normalizer, Part, Wording,
};
use crate::engine::{Finding, Frame, Inputs, Outcome, ParamSpec, Params, Severity};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loop {
    Chw,
    Hw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Flow,
    Head,
    DeltaT,
    Dp,
    Power,
}

const STATUS: &str = "pump_status";
const HEAD: &str = "pump_head";
const POWER: &str = "power";

/// A loop's roles.
struct Roles {
    flow: &'static str,
    speed: &'static str,
    dp: &'static str,
    dp_sp: &'static str,
    warm: &'static str,
    cool: &'static str,
}

fn roles(l: Loop) -> Roles {
    match l {
        Loop::Chw => Roles {
            flow: "chw_flow",
            speed: "chw_pump_speed",
            dp: "chw_diff_press",
            dp_sp: "chw_diff_press_sp",
            warm: "chw_return_temp",
            cool: "chw_supply_temp",
        },
        Loop::Hw => Roles {
            flow: "hw_flow",
            speed: "hw_pump_speed",
            dp: "hw_diff_press",
            dp_sp: "hw_diff_press_sp",
            warm: "hw_supply_temp",
            cool: "hw_return_temp",
        },
    }
}

/// The speed gate when none is learned or given (% speed), the load span a speed normalizer
/// needs for a slope, and the points above a learned drive minimum the gate sits.
const SPEED_GATE_FALLBACK: f64 = 15.0;
const SPEED_SPAN: f64 = 10.0;
const SPEED_FLOOR_MARGIN: f64 = 2.0;
/// The speed a status-only pump is scored at.
const NOMINAL_SPEED: f64 = 100.0;
/// Flow gates: these fractions of the baseline's 95th-percentile flow, capped (gpm).
const FLOW_GATE_FRAC: f64 = 0.10;
const FLOW_GATE_CAP: f64 = 50.0;
const FLOW_SPAN_FRAC: f64 = 0.20;
const FLOW_SPAN_CAP: f64 = 10.0;
/// The DP's plausible band, as multiples of its baseline median magnitude.
const DP_RANGE: (f64, f64) = (-0.25, 5.0);

/// What each comparison fits, judges and reports.
struct Def {
    /// Metric prefix (the chilled-water name: both loops report under it).
    prefix: &'static str,
    /// Unit key in metric names.
    unit_key: &'static str,
    side: Side,
    range: Option<(f64, f64)>,
    wording: Wording,
}

fn def(s: Signal) -> Def {
    match s {
        Signal::Flow => Def {
            prefix: "pump_flow",
            unit_key: "gpm",
            side: Side::Down,
            range: Some((0.0, 1e6)),
            wording: Wording { label: "pump flow", unit: "gpm", decimals: 0, matched: "matched speed", cause_up: "", cause_down: "the pump moves less water at the same speed (impeller or wear-ring wear, a clogged strainer, cavitation) or the loop resists more" },
        },
        Signal::Head => Def {
            prefix: "pump_head",
            unit_key: "psi",
            side: Side::Down,
            range: Some((-5.0, 300.0)),
            wording: Wording { label: "pump head", unit: "psi", decimals: 1, matched: "matched speed", cause_up: "", cause_down: "the pump develops less head at the same speed (impeller wear, cavitation, internal recirculation)" },
        },
        Signal::DeltaT => Def {
            prefix: "loop_deltat",
            unit_key: "f",
            side: Side::Both,
            range: Some((0.5, 60.0)),
            wording: Wording { label: "loop ΔT", unit: "°F", decimals: 1, matched: "matched flow", cause_up: "the loop carries more heat per gallon: it is short of water (a throttled loop, a weak pump, a shut valve)", cause_down: "low-ΔT syndrome: water moves without moving heat (overpumping, fouled or air-bound coils, valves passing, a short-circuiting decoupler)" },
        },
        Signal::Dp => Def {
            prefix: "loop_dp",
            unit_key: "",
            side: Side::Both,
            range: None,
            wording: Wording { label: "loop DP", unit: "", decimals: 1, matched: "matched flow", cause_up: "the loop resists more at the same flow (a throttled or stuck-shut valve, lost valve authority)", cause_down: "the loop resists less at the same flow (an open bypass, a valve stuck open, a short-circuiting decoupler)" },
        },
        Signal::Power => Def {
            prefix: "pump_power",
            unit_key: "kw",
            side: Side::Up,
            range: Some((0.0, 1e7)),
            wording: Wording { label: "pump power", unit: "kW", decimals: 1, matched: "matched flow", cause_up: "the pump draws more power for the same flow (bearing or seal drag, a failing motor or drive, recirculation)", cause_down: "" },
        },
    }
}

/// The detector's declaration.
pub(super) fn spec(s: Signal, l: Loop) -> DetectorSpec {
    let hw = l == Loop::Hw;
    let (id, inputs): (&'static str, Inputs) = match (s, l) {
        (Signal::Flow, Loop::Chw) => (
            "pump_flow_drift",
            Inputs {
                required: &["chw_flow"],
                optional: &["chw_pump_speed", "pump_status", "chw_diff_press"],
                gating: &["chw_pump_speed", "pump_status"],
                one_of: &[&["chw_pump_speed", "pump_status"]],
                needs_gating: false,
            },
        ),
        (Signal::Flow, Loop::Hw) => (
            "hw_pump_flow_drift",
            Inputs {
                required: &["hw_flow"],
                optional: &["hw_pump_speed", "pump_status", "hw_diff_press"],
                gating: &["hw_pump_speed", "pump_status"],
                one_of: &[&["hw_pump_speed", "pump_status"]],
                needs_gating: false,
            },
        ),
        (Signal::Head, Loop::Chw) => (
            "pump_head_drift",
            Inputs {
                required: &["pump_head"],
                optional: &["chw_pump_speed", "pump_status", "chw_flow"],
                gating: &["chw_pump_speed", "pump_status"],
                one_of: &[&["chw_pump_speed", "pump_status"]],
                needs_gating: false,
            },
        ),
        (Signal::Head, Loop::Hw) => (
            "hw_pump_head_drift",
            Inputs {
                required: &["pump_head"],
                optional: &["hw_pump_speed", "pump_status", "hw_flow"],
                gating: &["hw_pump_speed", "pump_status"],
                one_of: &[&["hw_pump_speed", "pump_status"]],
                needs_gating: false,
            },
        ),
        (Signal::DeltaT, Loop::Chw) => (
            "loop_deltat_drift",
            Inputs {
                required: &["chw_return_temp", "chw_supply_temp", "chw_flow"],
                optional: &["pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
        (Signal::DeltaT, Loop::Hw) => (
            "hw_loop_deltat_drift",
            Inputs {
                required: &["hw_supply_temp", "hw_return_temp", "hw_flow"],
                optional: &["pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
        (Signal::Dp, Loop::Chw) => (
            "loop_dp_drift",
            Inputs {
                required: &["chw_diff_press", "chw_flow"],
                optional: &["chw_diff_press_sp", "pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
        (Signal::Dp, Loop::Hw) => (
            "hw_loop_dp_drift",
            Inputs {
                required: &["hw_diff_press", "hw_flow"],
                optional: &["hw_diff_press_sp", "pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
        (Signal::Power, Loop::Chw) => (
            "pump_power_drift",
            Inputs {
                required: &["power", "chw_flow"],
                optional: &["pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
        (Signal::Power, Loop::Hw) => (
            "hw_pump_power_drift",
            Inputs {
                required: &["power", "hw_flow"],
                optional: &["pump_status"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        ),
    };
    let (description, judged_basis, unit): (&'static str, &'static str, &'static str) = match (s, hw) {
        (Signal::Flow, false) => ("Chilled-water pump flow against the pump's own speed-to-flow baseline: less flow at the same speed is wear or added resistance.", "running samples at or above the speed gate", "gpm"),
        (Signal::Flow, true) => ("Hot-water pump flow against the pump's own speed-to-flow baseline: less flow at the same speed is wear or added resistance.", "running samples at or above the speed gate", "gpm"),
        (Signal::Head, false) => ("Pump head against the pump's own speed-to-head baseline on the chilled-water loop: less head at the same speed points at the pump itself.", "running samples at or above the speed gate", "psi"),
        (Signal::Head, true) => ("Pump head against the pump's own speed-to-head baseline on the hot-water loop: less head at the same speed points at the pump itself.", "running samples at or above the speed gate", "psi"),
        (Signal::DeltaT, false) => ("Chilled-water loop ΔT (return minus supply) against its flow-matched baseline, judged either way: a collapse is low-ΔT syndrome, a widening a starved loop.", "running samples at or above the flow gate, settled half an hour after a start", "°F"),
        (Signal::DeltaT, true) => ("Hot-water loop ΔT (supply minus return) against its flow-matched baseline, judged either way: a collapse is low-ΔT syndrome, a widening a starved loop.", "running samples at or above the flow gate, settled half an hour after a start", "°F"),
        (Signal::Dp, false) => ("Chilled-water loop differential pressure against its flow-matched baseline, judged either way and net of a DP-setpoint reset: a rise is added resistance, a fall a bypass.", "running samples at or above the flow gate", "loop DP units"),
        (Signal::Dp, true) => ("Hot-water loop differential pressure against its flow-matched baseline, judged either way and net of a DP-setpoint reset: a rise is added resistance, a fall a bypass.", "running samples at or above the flow gate", "loop DP units"),
        (Signal::Power, false) => ("Pump power against its chilled-water-flow-matched baseline: more power for the same flow is lost wire-to-water efficiency.", "running samples at or above the flow gate", "kW"),
        (Signal::Power, true) => ("Pump power against its hot-water-flow-matched baseline: more power for the same flow is lost wire-to-water efficiency.", "running samples at or above the flow gate", "kW"),
    };
    DetectorSpec {
        id,
        drift_family: if hw { "hw_pump" } else { "pump" },
        families: if hw { &["pump", "hw_plant"] } else { &["pump", "chw_plant"] },
        inputs,
        params: params(s),
        unit,
        side: def(s).side,
        description,
        judged_basis,
        kind: Kind { fit: fit_spec, evaluate: evaluate_spec },
    }
}

fn params(s: Signal) -> Vec<ParamSpec> {
    let [ws, fs] = sigma_params("σ", if s == Signal::DeltaT { 5.0 } else { 4.0 });
    let mut v = match s {
        Signal::Flow => vec![
            unset("warn_gpm", "gpm", (0.5, 100.0),
                "a backstop under the sigma floor so a very tight baseline cannot warn on a trivial deficit: unset, 2 % of the baseline's 95th-percentile flow up to 15 gpm, about what a flow meter can resolve",
                "Leave it unset, or set it just above the flow meter's stated accuracy at design flow; a warning needs both this and warn_sigma."),
            unset("fault_gpm", "gpm", (1.0, 200.0),
                "unset, 4 % of the baseline's 95th-percentile flow up to 30 gpm",
                "Leave it unset, or about twice warn_gpm."),
            ws, fs,
            ParamSpec::number("dp_confound", 1.0, "loop DP units", (0.1, 20.0),
                "a loop DP that rose this much along with the flow deficit points at added resistance downstream rather than pump wear",
                "Set it a little above the scatter of the loop DP about its setpoint. It adds a caveat only."),
        ],
        Signal::Head => vec![
            unset("warn_psi", "psi", (0.5, 20.0),
                "a backstop under the sigma floor that scales with the head the pump works at, since a variable-speed pump's head falls with the square of its speed and wear takes a share of it: unset, 8 % of the head the baseline expects at its top speed, up to 2 psi",
                "Leave it unset, or judge one known-good window against a baseline fitted on another and set it above the deficit that shows; a warning needs both this and warn_sigma."),
            unset("fault_psi", "psi", (1.0, 40.0),
                "a screening backstop for a clear head loss: unset, 16 % of the head the baseline expects at its top speed, up to 4 psi",
                "Leave it unset, or about twice warn_psi."),
            ws, fs,
            unset("flow_confound", "gpm", (0.5, 100.0),
                "a flow rise this large moves the pump down its curve and lowers the head without any wear: unset, 2.5 % of the baseline's 95th-percentile flow up to 20 gpm",
                "Leave it unset, or a few percent of design flow. It adds a caveat only."),
        ],
        Signal::DeltaT => vec![
            ParamSpec::number("warn_f", 1.0, "°F", (0.25, 5.0),
                "a difference of two temperature sensors: a degree is clear of their combined repeatability",
                "Judge one known-good window against a baseline fitted on another and set it above the drift that shows; a warning needs both this and warn_sigma, either way."),
            ParamSpec::number("fault_f", 2.0, "°F", (0.5, 10.0),
                "a screening backstop for a clear change of loop ΔT",
                "About twice warn_f."),
            ws, fs,
        ],
        Signal::Dp => vec![
            ParamSpec::number("warn", 2.0, "loop DP units", (0.1, 50.0),
                "a backstop in the DP's own unit; the sigma floor carries the verdict whatever the unit",
                "Judge one known-good window against a baseline fitted on another and set it above the drift that shows; a warning needs both this and warn_sigma, either way."),
            ParamSpec::number("fault", 4.0, "loop DP units", (0.2, 100.0),
                "a screening backstop for a clear DP change",
                "About twice warn."),
            ws, fs,
            ParamSpec::number("dp_sp_confound", 1.0, "loop DP units", (0.1, 20.0),
                "a setpoint moved this much is a reset: the DP drift is then judged net of it",
                "Set it a little above the setpoint's own jitter."),
        ],
        Signal::Power => vec![
            unset("warn_kw", "kW", (0.01, 20.0),
                "a backstop under the sigma floor that scales with the pump, since power grows with flow times head: unset, 5.5 % of the baseline's 95th-percentile power up to 1 kW",
                "Leave it unset, or set it just above the power meter's resolution at design flow; a warning needs both this and warn_sigma."),
            unset("fault_kw", "kW", (0.02, 40.0),
                "unset, 11 % of the baseline's 95th-percentile power up to 2 kW",
                "Leave it unset, or about twice warn_kw."),
            ws, fs,
        ],
    };
    v.extend(super::cusum_param_specs());
    match s {
        Signal::Flow | Signal::Head => {
            v.push(unset("min_speed", "% speed", (5.0, 60.0),
                "samples a drive holds at its minimum speed say nothing about flow or head at a speed: unset, the gate sits 2 points above the minimum learned from the baseline's running speeds (15 % when none shows)",
                "Read the drive's minimum speed from its parameters or the sequence of operations and set this a point or two above it."));
            v.push(ParamSpec::number("constant_speed_cv", 0.02, "fraction (std / mean)", (0.0, 0.1),
                "a constant-speed pump's speed varies well under 2 %, a drive-controlled one's by tens of percent; at or under it the signal is compared as a flat level",
                "Compute the speed's standard deviation over its mean on the running hours of a known period."));
        }
        _ => {
            v.push(unset("min_load", "gpm (% speed when the normalizer is a pump speed)", (0.0, 200.0),
                "below a tenth of its usual flow a loop says little about its condition: unset, 10 % of the baseline's 95th-percentile flow up to 50 gpm",
                "About a tenth of design flow, or leave it unset."));
            v.push(unset("min_load_span", "gpm (% speed when the normalizer is a pump speed)", (0.0, 50.0),
                "a narrower baseline flow range does not show a slope: unset, 20 % of the baseline's 95th-percentile flow up to 10 gpm",
                "Leave it unset; a flow that barely moves is compared as a flat level instead."));
            v.push(ParamSpec::number("constant_cv", 0.02, "fraction (std / mean)", (0.0, 0.1),
                "a constant-flow loop's flow varies well under 2 %; at or under it the signal is compared as a flat level within 5 % of its median flow",
                "Compute the flow's standard deviation over its mean on the running hours of a known period."));
        }
    }
    v
}

/// A window's columns ready to fit or score.
struct Prepared {
    x: Vec<f64>,
    y: Vec<f64>,
    keep: Vec<bool>,
}

/// The load a comparison is fitted along, and what it is called.
fn load_name(s: Signal, r: &Roles) -> &'static str {
    if matches!(s, Signal::Flow | Signal::Head) {
        r.speed
    } else {
        r.flow
    }
}

fn signal_name(s: Signal, r: &Roles) -> &'static str {
    match s {
        Signal::Flow => r.flow,
        Signal::Head => HEAD,
        Signal::DeltaT => "loop ΔT",
        Signal::Dp => r.dp,
        Signal::Power => POWER,
    }
}

/// The signal, the load and the running mask of a window; `Err` names what is missing.
/// `speed_mode` forces how a speed-normalized comparison reads its load (from the baseline);
/// `None` decides it from the window.
fn prepare(
    s: Signal,
    r: &Roles,
    frame: &Frame,
    speed_mode: Option<Normalizer>,
) -> Result<(Prepared, Option<Normalizer>), Vec<String>> {
    let status = col(frame, STATUS);
    let keep = super::running(frame, status, 0.5);
    let need = |roles: &[&'static str]| -> Result<Vec<&[f64]>, Vec<String>> {
        let cols: Vec<Option<&[f64]>> = roles.iter().map(|r| col(frame, r)).collect();
        if cols.iter().any(Option::is_none) {
            return Err(roles.iter().zip(&cols).filter(|(_, c)| c.is_none()).map(|(r, _)| r.to_string()).collect());
        }
        Ok(cols.into_iter().flatten().collect())
    };
    match s {
        Signal::Flow | Signal::Head => {
            let y = need(&[if s == Signal::Flow { r.flow } else { HEAD }])?[0];
            let speed = col(frame, r.speed);
            let mode = match (speed_mode, speed, status) {
                (Some(Normalizer::StatusOnly), _, Some(_)) | (None, None, Some(_)) => Normalizer::StatusOnly,
                (Some(Normalizer::StatusOnly), _, None) => return Err(vec![STATUS.into()]),
                (Some(m), Some(_), _) => m,
                (Some(_), None, _) => return Err(vec![r.speed.into()]),
                (None, Some(_), _) => Normalizer::Variable,
                (None, None, None) => return Err(vec![format!("{} or {STATUS}", r.speed)]),
            };
            let x = match (mode, speed) {
                (Normalizer::StatusOnly, _) | (_, None) => vec![NOMINAL_SPEED; frame.len()],
                (_, Some(sp)) => sp.to_vec(),
            };
            Ok((Prepared { x, y: y.to_vec(), keep }, Some(mode)))
        }
        Signal::DeltaT => {
            let c = need(&[r.warm, r.cool, r.flow])?;
            let keep = super::settled(&frame.ts, keep, status.is_some());
            Ok((Prepared { y: c[0].iter().zip(c[1]).map(|(w, k)| w - k).collect(), x: c[2].to_vec(), keep }, None))
        }
        Signal::Dp => {
            let c = need(&[r.dp, r.flow])?;
            Ok((Prepared { y: c[0].to_vec(), x: c[1].to_vec(), keep }, None))
        }
        Signal::Power => {
            let c = need(&[POWER, r.flow])?;
            Ok((Prepared { y: c[0].to_vec(), x: c[1].to_vec(), keep }, None))
        }
    }
}

/// The drive's minimum speed, learned from a plateau at the bottom of the running speeds: the
/// 2nd percentile, accepted when at least a tenth of the samples sit within a point of it and
/// the 90th percentile is at least 20 points above it.
fn learn_vfd_floor(speeds: &mut [f64]) -> Option<f64> {
    if speeds.is_empty() {
        return None;
    }
    let floor = loadfit::quantile_in_place(speeds, 0.02);
    let q90 = loadfit::quantile_in_place(speeds, 0.90);
    let near = speeds.iter().filter(|v| (*v - floor).abs() <= 1.0).count() as f64 / speeds.len() as f64;
    (near >= 0.10 && q90 >= floor + 20.0).then(|| (floor * 10.0).round() / 10.0)
}

/// The signal and loop a pump detector's id names.
fn variant(id: &str) -> (Signal, Loop) {
    let l = if id.starts_with("hw_") { Loop::Hw } else { Loop::Chw };
    let s = [Signal::Flow, Signal::Head, Signal::DeltaT, Signal::Dp, Signal::Power]
        .into_iter()
        .find(|&s| spec(s, l).id == id)
        .unwrap_or(Signal::Flow);
    (s, l)
}

/// [`fit`] for the detector a spec names.
fn fit_spec(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<super::Part>, super::FitError> {
    let (s, l) = variant(spec.id);
    fit(spec, s, l, frame, params).map(|p| vec![p])
}

/// [`evaluate`] for the detector a spec names.
fn evaluate_spec(spec: &DetectorSpec, baseline: &super::Baseline, frame: &Frame, params: &Params) -> Outcome {
    let (s, l) = variant(spec.id);
    evaluate(spec, s, l, baseline, frame, params)
}

/// Fit the comparison on a baseline window.
pub(super) fn fit(
    spec: &DetectorSpec,
    s: Signal,
    l: Loop,
    frame: &Frame,
    params: &Params,
) -> Result<Part, super::FitError> {
    let r = roles(l);
    let d = def(s);
    let (p, mode) = prepare(s, &r, frame, None).map_err(super::FitError::Missing)?;
    let all = vec![true; frame.len()];
    // the gates, the normalizer's steadiness and the plausible range, from the running samples
    let (min_load, min_span, source, vfd_floor, cv, mode) = match s {
        Signal::Flow | Signal::Head => {
            let mode = mode.unwrap_or(Normalizer::Variable);
            // steadiness is read on every sample of the speed trend, running or not
            let cv = match (mode, col(frame, r.speed)) {
                (Normalizer::StatusOnly, _) | (_, None) => None,
                (_, Some(sp)) => cv_positive(sp, &all),
            };
            let limit = params.number(spec, "constant_speed_cv");
            let mode = match mode {
                Normalizer::StatusOnly => Normalizer::StatusOnly,
                _ if cv.is_some_and(|c| c <= limit) => Normalizer::Constant,
                _ => Normalizer::Variable,
            };
            let (gate, src, floor) = match opt_number(spec, params, "min_speed") {
                Some(v) => (v, "explicit", None),
                None => match learn_vfd_floor(&mut super::values(&p.x, &p.keep, true)) {
                    Some(f) => (loadfit::round4(f + SPEED_FLOOR_MARGIN), "learned_vfd_floor", Some(f)),
                    None => (SPEED_GATE_FALLBACK, "default", None),
                },
            };
            (gate, SPEED_SPAN, src, floor, cv, Some(mode))
        }
        _ => {
            let p95 = p95_positive(&p.x, &p.keep);
            let (gl, gs) = (opt_number(spec, params, "min_load"), opt_number(spec, params, "min_load_span"));
            let min_load = gl.unwrap_or_else(|| p95.map_or(FLOW_GATE_CAP, |c| (FLOW_GATE_FRAC * c).min(FLOW_GATE_CAP)));
            let min_span = gs.unwrap_or_else(|| p95.map_or(FLOW_SPAN_CAP, |c| (FLOW_SPAN_FRAC * c).min(FLOW_SPAN_CAP)));
            let cv = cv_positive(&p.x, &p.keep);
            let constant = cv.is_some_and(|c| c <= params.number(spec, "constant_cv"));
            let src = if gl.is_some() && gs.is_some() { "explicit" } else { "size_relative" };
            (
                min_load,
                min_span,
                src,
                None,
                cv,
                Some(if constant { Normalizer::Constant } else { Normalizer::Variable }),
            )
        }
    };
    let range = match s {
        Signal::Dp => {
            let mut mags: Vec<f64> = super::values(&p.y, &p.keep, false).iter().map(|v| v.abs()).collect();
            let m = loadfit::median_in_place(&mut mags);
            (m > 0.0).then_some((DP_RANGE.0 * m, DP_RANGE.1 * m))
        }
        _ => d.range,
    };
    let level = mode != Some(Normalizer::Variable);
    let span = if level { level_span(&p.x, &p.y, &p.keep, min_load) } else { min_span };
    let idx = loadfit::usable(&p.x, &p.y, &p.keep, min_load, range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)));
    let basis = spec.judged_basis;
    let fitted = if idx.len() < loadfit::MIN_FIT_SAMPLES {
        Err(why_unusable(&p.x, &p.y, &p.keep, min_load, range, (load_name(s, &r), signal_name(s, &r)), basis))
    } else {
        LoadFit::fit(&frame.ts, &p.x, &p.y, &idx, span, level)
    };
    let (scale_p95, confound_median) = match s {
        Signal::Flow => (p95_positive(&p.y, &p.keep), col(frame, r.dp).and_then(|c| median_kept(c, &p.keep))),
        Signal::Head => (
            col(frame, r.flow).and_then(|c| p95_positive(c, &p.keep)),
            col(frame, r.flow).and_then(|c| median_kept(c, &p.keep)),
        ),
        Signal::Dp => (None, col(frame, r.dp_sp).and_then(|c| median_kept(c, &p.keep))),
        Signal::Power => (p95_positive(&p.y, &p.keep), None),
        Signal::DeltaT => (None, None),
    };
    let mut part = Part::named(d.prefix);
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    part.min_load = min_load;
    part.min_span = min_span;
    part.gate_source = source.into();
    part.vfd_floor = vfd_floor;
    part.normalizer = mode;
    part.normalizer_cv = cv;
    part.signal_range = range;
    part.scale_p95 = scale_p95;
    part.confound_median = confound_median;
    Ok(part)
}

/// Judge a current window against the baseline.
pub(super) fn evaluate(
    spec: &DetectorSpec,
    s: Signal,
    l: Loop,
    baseline: &super::Baseline,
    frame: &Frame,
    params: &Params,
) -> Outcome {
    let r = roles(l);
    let d = def(s);
    let Some(part) = baseline.parts.iter().find(|p| p.name == d.prefix) else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline holds no fit for this signal")]);
    };
    let Some(fit) = part.fit.as_ref() else {
        return Outcome::Findings(vec![not_judged(
            spec,
            &format!("no baseline: {}", part.declined.as_deref().unwrap_or("it was not fitted")),
        )]);
    };
    let p = match prepare(s, &r, frame, if matches!(s, Signal::Flow | Signal::Head) { part.normalizer } else { None }) {
        Ok((p, _)) => p,
        Err(missing) => return Outcome::Skipped { missing },
    };
    let range = part.signal_range;
    let idx = loadfit::usable(&p.x, &p.y, &p.keep, part.min_load, range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY)));
    let Some(score) = loadfit::score(fit, &frame.ts, &p.x, &p.y, &idx) else {
        let why = if idx.len() >= loadfit::MIN_SCORE_SAMPLES {
            let inside = idx.iter().filter(|&&i| fit.in_scope(p.x[i as usize])).count();
            format!(
                "only {inside} sample(s) ran inside the flat baseline's band {:.4} to {:.4} (need {})",
                fit.load_min - fit.load_band,
                fit.load_max + fit.load_band,
                loadfit::MIN_SCORE_SAMPLES
            )
        } else if idx.is_empty() {
            why_unusable(
                &p.x,
                &p.y,
                &p.keep,
                part.min_load,
                range,
                (load_name(s, &r), signal_name(s, &r)),
                spec.judged_basis,
            )
        } else {
            format!("only {} usable sample(s) in the current window (need {})", idx.len(), loadfit::MIN_SCORE_SAMPLES)
        };
        return Outcome::Findings(vec![not_judged(spec, &why)]);
    };
    let floors = match s {
        Signal::Flow => Floors {
            warn: scaled_floor(opt_number(spec, params, "warn_gpm"), part.scale_p95, 0.02, 15.0),
            fault: scaled_floor(opt_number(spec, params, "fault_gpm"), part.scale_p95, 0.04, 30.0),
            warn_sigma: params.number(spec, "warn_sigma"),
            fault_sigma: params.number(spec, "fault_sigma"),
        },
        Signal::Power => Floors {
            warn: scaled_floor(opt_number(spec, params, "warn_kw"), part.scale_p95, 0.055, 1.0),
            fault: scaled_floor(opt_number(spec, params, "fault_kw"), part.scale_p95, 0.11, 2.0),
            warn_sigma: params.number(spec, "warn_sigma"),
            fault_sigma: params.number(spec, "fault_sigma"),
        },
        Signal::Head => {
            // the head the baseline expects at the top of its speed range: the pump's working head
            let working = Some(fit.predict(fit.load_max)).filter(|h| h.is_finite() && *h > 0.0);
            Floors {
                warn: scaled_floor(opt_number(spec, params, "warn_psi"), working, 0.08, 2.0),
                fault: scaled_floor(opt_number(spec, params, "fault_psi"), working, 0.16, 4.0),
                warn_sigma: params.number(spec, "warn_sigma"),
                fault_sigma: params.number(spec, "fault_sigma"),
            }
        }
        _ => {
            let (w, f) = match s {
                Signal::DeltaT => ("warn_f", "fault_f"),
                _ => ("warn", "fault"),
            };
            Floors {
                warn: params.number(spec, w),
                fault: params.number(spec, f),
                warn_sigma: params.number(spec, "warn_sigma"),
                fault_sigma: params.number(spec, "fault_sigma"),
            }
        }
    };
    let mut severity = grade(d.side, score.drift, score.drift_sigma, &floors);
    let alarm = loadfit::cusum(fit, &frame.ts, &score, d.side, &cusum_params(spec, params));
    let mut metrics = BTreeMap::new();
    score_metrics(&mut metrics, d.prefix, d.unit_key, fit, &score, alarm.as_ref());
    let mut caveats = Vec::new();
    let gate_key = if matches!(s, Signal::Flow | Signal::Head) { "speed_gate_pct" } else { "load_gate" };
    metrics.insert(format!("{}_{gate_key}", d.prefix), loadfit::round4(part.min_load));
    if let Some(f) = part.vfd_floor {
        metrics.insert(format!("{}_vfd_floor_pct", d.prefix), f);
    }
    if matches!(s, Signal::Flow | Signal::Head | Signal::Power) {
        metrics.insert(key(d.prefix, "warn_floor", d.unit_key), loadfit::round4(floors.warn));
        metrics.insert(key(d.prefix, "fault_floor", d.unit_key), loadfit::round4(floors.fault));
    }
    let running_now = &p.keep;
    let shift_of = |role: &str| {
        part.confound_median
            .zip(col(frame, role).and_then(|c| median_kept(c, running_now)))
            .map(|(b, c)| ((c - b) * 1000.0).round() / 1000.0)
    };
    match s {
        Signal::Flow => {
            if let Some(shift) = shift_of(r.dp) {
                metrics.insert("dp_shift".into(), shift);
                if score.drift < 0.0 && shift >= params.number(spec, "dp_confound") {
                    caveats.push(format!("the loop DP rose {shift:+.1} over the same windows: a flow deficit with a rising DP points at added resistance downstream (a throttled or stuck-shut valve) rather than pump wear; check the distribution and the pump head before the impeller"));
                }
            }
        }
        Signal::Head => {
            if let Some(shift) = shift_of(r.flow) {
                metrics.insert("flow_shift".into(), shift);
                let confound = scaled_floor(opt_number(spec, params, "flow_confound"), part.scale_p95, 0.025, 20.0);
                if score.drift < 0.0 && shift >= confound {
                    caveats.push(format!("the loop flow rose {shift:+.0} gpm over the same windows: a pump gives less head further out on its curve, so part of this deficit may be that rather than wear; read it with the flow-at-speed detector"));
                }
            }
        }
        Signal::Dp => {
            let mut driven = false;
            if let Some(shift) = shift_of(r.dp_sp) {
                metrics.insert("dp_sp_shift".into(), shift);
                if shift.abs() >= params.number(spec, "dp_sp_confound") {
                    let net = loadfit::round4(score.drift - shift);
                    let net_sigma = (fit.sigma > 0.0).then(|| net / fit.sigma);
                    metrics.insert("loop_dp_residual_drift".into(), net);
                    let adjusted = grade(d.side, net, net_sigma, &floors);
                    if adjusted < severity {
                        driven = true;
                        severity = adjusted;
                        caveats.push(format!("the DP setpoint moved {shift:+.1} between the windows; judged on the {net:+.1} of drift the reset does not explain, {}", if adjusted == Severity::Ok { "which leaves no fault of its own" } else { "which still leaves a fault of its own" }));
                    } else {
                        caveats.push(format!("the DP setpoint moved {shift:+.1} between the windows, but that does not explain the drift: a fault of its own"));
                    }
                }
            }
            metrics.insert("loop_dp_setpoint_driven".into(), if driven { 1.0 } else { 0.0 });
        }
        _ => {}
    }
    match part.normalizer {
        Some(Normalizer::StatusOnly) => caveats.push(format!("a constant-speed pump (a run status but no speed trended): its {} is compared as a flat level, and a balancing valve re-set or throttled moves it along its curve just as wear does; check the valves first", d.wording.label.trim_start_matches("pump "))),
        Some(Normalizer::Constant) if matches!(s, Signal::Flow | Signal::Head) => caveats.push(format!("a constant-speed pump (its speed varied {:.1} % over the baseline): its {} is compared as a flat level, and a balancing valve re-set or throttled moves it along its curve just as wear does; check the valves first", 100.0 * part.normalizer_cv.unwrap_or(0.0), d.wording.label.trim_start_matches("pump "))),
        _ => {}
    }
    if fit.model == loadfit::Model::Level && matches!(s, Signal::DeltaT | Signal::Dp | Signal::Power) {
        caveats.push(format!("the flow barely moved over the baseline (coefficient of variation {:.2} %), so {} is compared as a flat level valid for {:.4} to {:.4} gpm; samples outside that band are not judged", 100.0 * part.normalizer_cv.unwrap_or(0.0), d.wording.label, fit.load_min - fit.load_band, fit.load_max + fit.load_band));
    }
    score_caveats(
        &mut caveats,
        fit,
        &score,
        alarm.as_ref(),
        if matches!(s, Signal::Flow | Signal::Head) { "speed" } else { "flow" },
    );
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into());
    }
    let summary = d.wording.summary(
        d.side,
        severity,
        score.drift,
        score.drift_sigma,
        &floors,
        (score.idx.len(), spec.judged_basis),
    );
    let flagged = flagged(&score, fit.sigma, d.side, floors.warn);
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(score.idx.len())])
}

#[cfg(test)]
mod tests;
