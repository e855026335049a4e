//! The chiller-side detectors (families `chiller`, `condenser`, `evaporator`): six signals of a
//! chiller's heat exchangers and refrigerant circuit, each fitted against the chiller's own tons
//! (`chw_flow x (return - supply) / 24`, [`crate::chiller::tons`]) on a known-good window and
//! judged at matched tons.
//!
//! - `chiller_approach_drift`: the condenser approach (required) and the evaporator approach
//!   (when trended), each a comparison of one finding, judged on a widening only: fouling or
//!   scale never narrows an approach. The worse leg sets the severity; each leg's own grade is
//!   the metric `cond_severity` / `evap_severity` (0 ok, 1 warn, 2 fault), which the roll-ups
//!   read so the condenser side is judged on its leg alone.
//! - `chiller_cw_range_drift`: the condenser-water range (return minus supply), either way: at
//!   matched load the heat rejected is fixed, so a wider range is less water through the bundle
//!   and a narrower one water bypassing it.
//! - `chiller_head_pressure_drift`: the discharge pressure, judged on a rise (fouling,
//!   non-condensables, low condenser-water flow all lift it). It follows the heat sink as much as
//!   the load, so when the entering condenser water (else the outdoor air) moved at least
//!   `min_covariate_span_f` over the baseline, the baseline is fitted on it too and every sample
//!   is judged at matched load and matched heat-sink temperature.
//! - `chiller_subcooling_drift`: liquid-line subcooling, either way (a fall: short of charge; a
//!   rise: overcharge, non-condensables, liquid backed up in the condenser).
//! - `chiller_superheat_drift`: suction superheat, either way (a fall: the evaporator overfed,
//!   floodback; a rise: starved, short of charge or a restricted feed).
//! - `chiller_suction_pressure_drift`: the suction pressure, either way, fitted on the leaving
//!   chilled water as well when it moved (a reset lifts the suction pressure with no fault).
//!
//! The load gates scale with the machine: samples are judged from a tenth of the baseline's
//! 95th-percentile tons (at most 5 tons), and a slope needs a fifth of it (at most 10 tons); a
//! baseline whose load barely moved is a flat level judged only near the load it saw. The warn
//! and fault floors are the reference's screening-grade values: a drift must clear both the unit
//! floor and the sigma floor.
//!
//! Unlike the reference, only running samples are judged when the chiller's run status or power
//! is trended ([`crate::chiller::chiller_running`]): a stopped machine's approaches and pressures
//! describe standby, not condition, and water still moving through it can carry a false load. The
//! heat-sink and chilled-water shifts reported beside the pressures are medians over those
//! running samples too, and a shift is called a confound only beside a pressure that warns (the
//! reference also says it beside a rise too small to judge). The reference carries the approach's sustained-shift check in a separate
//! opt-in rule; here it runs on every detector, as the drift module does for all of them.

use std::collections::BTreeMap;

use super::loadfit::{self, LoadFit, Side};
use super::{
    col, cusum_params, flagged, grade, median_kept, not_judged, opt_number, score_caveats, score_metrics, unset,
    Baseline, DetectorSpec, FitError, Floors, Kind, Part, Wording,
};
use crate::chiller::{chiller_running, tons, RunSource, POWER_RUN_FRAC};
use crate::engine::{Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Severity};

const FLOW: &str = "chw_flow";
const CHWS: &str = "chw_supply_temp";
const CHWR: &str = "chw_return_temp";
const CWS: &str = "cw_supply_temp";
const CWR: &str = "cw_return_temp";
const OAT: &str = "oat";
const DISCHARGE: &str = "discharge_pressure";
const SUCTION: &str = "suction_pressure";

/// The size-relative load gates: these fractions of the baseline's 95th-percentile tons, capped
/// at the absolute gates a full-size machine (50 tons and up) gets.
const LOAD_GATE_FRAC: f64 = 0.10;
const LOAD_GATE_CAP: f64 = 5.0;
const SPAN_GATE_FRAC: f64 = 0.20;
const SPAN_GATE_CAP: f64 = 10.0;

/// One of the six detectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signal {
    Approach,
    CwRange,
    HeadPressure,
    Subcooling,
    Superheat,
    SuctionPressure,
}

/// Every chiller detector, in the order they register.
pub(super) const SIGNALS: [Signal; 6] = [
    Signal::Approach,
    Signal::CwRange,
    Signal::HeadPressure,
    Signal::Subcooling,
    Signal::Superheat,
    Signal::SuctionPressure,
];

/// Where a comparison reads its signal.
#[derive(Clone, Copy)]
enum Source {
    Role(&'static str),
    /// The first role minus the second.
    Diff(&'static str, &'static str),
}

/// One comparison: a signal against tons (an approach has two, one per heat exchanger).
struct Def {
    /// The part's name and metric prefix.
    prefix: &'static str,
    unit_key: &'static str,
    source: Source,
    side: Side,
    range: (f64, f64),
    /// The conditions it may be fitted on besides its load, in preference order.
    covariates: &'static [&'static str],
    wording: Wording,
    /// The condition name used in the finding (a leg of the approach).
    condition: &'static str,
}

const APPROACH_RANGE: (f64, f64) = (0.0, 50.0);

fn defs(s: Signal) -> Vec<Def> {
    match s {
        Signal::Approach => vec![
            Def {
                prefix: "cond",
                unit_key: "f",
                source: Source::Role("cond_approach_temp"),
                side: Side::Up,
                range: APPROACH_RANGE,
                covariates: &[],
                wording: Wording { label: "the condenser approach", unit: "°F", decimals: 1, matched: "matched load", cause_up: "the condenser moves heat less well at the same load (tube fouling or scale, non-condensables, or less condenser water)", cause_down: "" },
                condition: "condenser_approach",
            },
            Def {
                prefix: "evap",
                unit_key: "f",
                source: Source::Role("evap_approach_temp"),
                side: Side::Up,
                range: APPROACH_RANGE,
                covariates: &[],
                wording: Wording { label: "the evaporator approach", unit: "°F", decimals: 1, matched: "matched load", cause_up: "the evaporator moves heat less well at the same load (tube fouling or scale, oil logging, or a refrigerant charge running short)", cause_down: "" },
                condition: "evaporator_approach",
            },
        ],
        Signal::CwRange => vec![Def {
            prefix: "cw_range",
            unit_key: "f",
            source: Source::Diff(CWR, CWS),
            side: Side::Both,
            range: (0.5, 40.0),
            covariates: &[],
            wording: Wording { label: "the condenser-water range", unit: "°F", decimals: 1, matched: "matched load", cause_up: "less condenser water moves through the bundle for the same heat (scaled or silted tubes, a weak condenser-water pump, a throttled valve, a fouled strainer)", cause_down: "more water moves for the same heat, or some bypasses the condenser (an open bypass, a short circuit, a balancing valve backed off)" },
            condition: "cw_range",
        }],
        Signal::HeadPressure => vec![Def {
            prefix: "head_pressure",
            unit_key: "psi",
            source: Source::Role(DISCHARGE),
            side: Side::Up,
            range: (-15.0, 2000.0),
            covariates: &[CWS, OAT],
            wording: Wording { label: "the head pressure", unit: "psi", decimals: 1, matched: "matched load", cause_up: "the high side runs hotter for the same heat rejected (condenser fouling or scale, non-condensables, less condenser water)", cause_down: "" },
            condition: "head_pressure",
        }],
        Signal::Subcooling => vec![Def {
            prefix: "subcooling",
            unit_key: "f",
            source: Source::Role("subcooling_temp"),
            side: Side::Both,
            range: (-20.0, 80.0),
            covariates: &[],
            wording: Wording { label: "the liquid-line subcooling", unit: "°F", decimals: 1, matched: "matched load", cause_up: "more liquid stands in the condenser (an overcharge, non-condensables, or restricted condenser flow)", cause_down: "the circuit is short of liquid (an undercharge or a leak)" },
            condition: "subcooling",
        }],
        Signal::Superheat => vec![Def {
            prefix: "superheat",
            unit_key: "f",
            source: Source::Role("superheat_temp"),
            side: Side::Both,
            range: (-20.0, 150.0),
            covariates: &[],
            wording: Wording { label: "the suction superheat", unit: "°F", decimals: 1, matched: "matched load", cause_up: "the evaporator is starved (an undercharge or leak, a restricted expansion valve, filter-drier or distributor)", cause_down: "the evaporator is overfed (an expansion valve stuck or hunting open, or an overcharge): liquid floodback puts the compressor at risk" },
            condition: "superheat",
        }],
        Signal::SuctionPressure => vec![Def {
            prefix: "suction_pressure",
            unit_key: "psi",
            source: Source::Role(SUCTION),
            side: Side::Both,
            range: (-15.0, 1000.0),
            covariates: &[CHWS],
            wording: Wording { label: "the suction pressure", unit: "psi", decimals: 1, matched: "matched load", cause_up: "the evaporator is overfed or flooding", cause_down: "the evaporator moves heat less well or runs short of refrigerant (fouling, an undercharge, a starved feed)" },
            condition: "suction_pressure",
        }],
    }
}

/// The words for the conditions a baseline may be matched on.
fn matched(cov: Option<&str>) -> &'static str {
    match cov {
        Some(CWS) => "matched load and entering condenser-water temperature",
        Some(OAT) => "matched load and outdoor-air temperature",
        Some(CHWS) => "matched load and leaving chilled-water temperature",
        Some(_) => "matched load and condition",
        None => "matched load",
    }
}

/// The names of a detector's warn and fault floors: unit, unit, sigma, sigma.
fn floor_names(s: Signal) -> [&'static str; 4] {
    match s {
        Signal::Approach => ["drift_warn_f", "drift_fault_f", "drift_warn_sigma", "drift_fault_sigma"],
        Signal::HeadPressure | Signal::SuctionPressure => ["warn_psi", "fault_psi", "warn_sigma", "fault_sigma"],
        _ => ["warn_f", "fault_f", "warn_sigma", "fault_sigma"],
    }
}

fn id(s: Signal) -> &'static str {
    match s {
        Signal::Approach => "chiller_approach_drift",
        Signal::CwRange => "chiller_cw_range_drift",
        Signal::HeadPressure => "chiller_head_pressure_drift",
        Signal::Subcooling => "chiller_subcooling_drift",
        Signal::Superheat => "chiller_superheat_drift",
        Signal::SuctionPressure => "chiller_suction_pressure_drift",
    }
}

fn variant(id_: &str) -> Signal {
    SIGNALS.into_iter().find(|&s| id(s) == id_).unwrap_or(Signal::Approach)
}

/// The detector's declaration.
pub(super) fn spec(s: Signal) -> DetectorSpec {
    const RUN: [&str; 2] = ["compressor_status", "power"];
    let (required, optional, description, unit): (&'static [&'static str], &'static [&'static str], &'static str, &'static str) = match s {
        Signal::Approach => (
            &["cond_approach_temp", FLOW, CHWS, CHWR],
            &["evap_approach_temp", RUN[0], RUN[1]],
            "The chiller's condenser approach (and its evaporator approach, when trended) against its own tons-matched baseline: a widening is a heat exchanger losing its grip on the water (fouling, scale, non-condensables).",
            "°F",
        ),
        Signal::CwRange => (
            &[CWS, CWR, FLOW, CHWS, CHWR],
            &[RUN[0], RUN[1]],
            "The condenser-water range (return minus supply) against the chiller's tons-matched baseline, judged either way: wider is less water through the condenser, narrower water bypassing it.",
            "°F",
        ),
        Signal::HeadPressure => (
            &[DISCHARGE, FLOW, CHWS, CHWR],
            &[CWS, OAT, SUCTION, RUN[0], RUN[1]],
            "The discharge (head) pressure against the chiller's baseline at matched tons and, when it moved, matched entering condenser water or outdoor air: a rise is a high-side fault (fouling, non-condensables, less condenser water).",
            "psi",
        ),
        Signal::Subcooling => (
            &["subcooling_temp", FLOW, CHWS, CHWR],
            &[RUN[0], RUN[1]],
            "Liquid-line subcooling against the chiller's tons-matched baseline, judged either way: a fall is a circuit short of charge, a rise liquid backing up in the condenser.",
            "°F",
        ),
        Signal::Superheat => (
            &["superheat_temp", FLOW, CHWS, CHWR],
            &[RUN[0], RUN[1]],
            "Suction superheat against the chiller's tons-matched baseline, judged either way: a fall is an overfed evaporator (floodback risk), a rise a starved one.",
            "°F",
        ),
        Signal::SuctionPressure => (
            &[SUCTION, FLOW, CHWS, CHWR],
            &[RUN[0], RUN[1]],
            "The suction pressure against the chiller's baseline at matched tons and, when it moved, matched leaving chilled water, judged either way: a fall is a fouled or short-charged evaporator, a rise an overfed one.",
            "psi",
        ),
    };
    DetectorSpec {
        id: id(s),
        drift_family: "chiller",
        families: &["chw_plant"],
        inputs: Inputs { required, optional, gating: &[], one_of: &[], needs_gating: false },
        params: params(s),
        unit,
        side: defs(s)[0].side,
        description,
        judged_basis: "running samples at or above the tons gate",
        kind: Kind { fit: fit_spec, evaluate: evaluate_spec },
    }
}

fn params(s: Signal) -> Vec<ParamSpec> {
    let [wu, fu, ws, fs] = floor_names(s);
    let (w, f, wsig, fsig) = match s {
        Signal::Approach => (1.0, 2.0, 2.0, 3.0),
        Signal::CwRange => (1.0, 2.0, 2.5, 5.0),
        Signal::HeadPressure | Signal::SuctionPressure => (2.0, 4.0, 2.5, 4.0),
        Signal::Subcooling => (1.0, 2.0, 3.0, 6.0),
        Signal::Superheat => (2.0, 4.0, 3.0, 6.0),
    };
    let pressure = matches!(s, Signal::HeadPressure | Signal::SuctionPressure);
    let (unit, unit_range, fault_range): (&'static str, (f64, f64), (f64, f64)) =
        if pressure { ("psi", (0.5, 20.0), (1.0, 40.0)) } else { ("°F", (0.25, 5.0), (0.5, 10.0)) };
    let unit_basis: &'static str = match s {
        Signal::Approach => "a backstop under the sigma floor so a very tight baseline cannot warn on a thermally meaningless fraction of a degree of approach (the reference's screening-grade value)",
        Signal::CwRange => "a range is the difference of two water sensors; a degree is clear of their combined repeatability and a visible part of a ~10 °F design range (screening-grade)",
        Signal::Subcooling => "a degree of subcooling is clear of a liquid-line sensor's repeatability (screening-grade)",
        Signal::Superheat => "superheat hunts with its expansion valve, so its floor sits above subcooling's (screening-grade)",
        _ => "a coarse backstop only: absolute refrigerant pressures differ by refrigerant, so the sigma floor carries the verdict (screening-grade)",
    };
    let sigma_basis: &'static str = match s {
        Signal::Approach => "a drift must stand clear of the baseline's own scatter; an approach is a controller-computed difference with little scatter, so two residual standard deviations (screening-grade)",
        Signal::Subcooling | Signal::Superheat => "this signal's scatter is wide against its fault response, so three residual standard deviations before it means anything (screening-grade)",
        _ => "a drift must stand clear of the baseline's own scatter: 2.5 residual standard deviations is a screening level, not one proven on this machine",
    };
    const CAL_UNIT: &str = "Fit a baseline on one known-good window, judge a second known-good window against it, and set this above the drift that shows; a warning needs both this and the sigma floor.";
    const CAL_SIGMA: &str = "Fit a baseline on one known-good window, judge a second known-good window against it, and set this above the largest drift in σ that comparison shows.";
    let mut v = vec![
        ParamSpec::number(wu, w, unit, unit_range, unit_basis, CAL_UNIT),
        ParamSpec::number(
            fu,
            f,
            unit,
            fault_range,
            "a screening backstop for a clear change",
            "About twice the warn floor.",
        ),
        ParamSpec::number(ws, wsig, "σ", (1.5, 6.0), sigma_basis, CAL_SIGMA),
        ParamSpec::number(
            fs,
            fsig,
            "σ",
            (2.5, 10.0),
            "a screening level well outside the scatter a healthy baseline shows",
            "Keep it above the warn sigma.",
        ),
    ];
    match s {
        Signal::HeadPressure => v.push(ParamSpec::number("cw_confound_f", 2.0, "°F", (0.5, 10.0),
            "an entering condenser water this much warmer over the same windows can lift the head pressure with no fault; said only when the baseline was not fitted on it",
            "Set it a little above the entering water's day-to-day swing at steady load. It adds a caveat only.")),
        Signal::SuctionPressure => v.push(ParamSpec::number("chw_confound_f", 1.0, "°F", (0.25, 10.0),
            "a chilled-water supply moved this much (a reset) moves the suction pressure with no fault; said only when the baseline was not fitted on it",
            "Set it a little above the chilled-water supply's jitter about its setpoint. It adds a caveat only.")),
        _ => {}
    }
    if pressure {
        v.push(ParamSpec::flag("normalize_on_condition", true,
            "a refrigerant pressure follows what the heat exchanger works against (the entering condenser water or outdoor air; the leaving chilled water) as much as the load, so the baseline is fitted on it when it moved",
            "Turn it off only to compare with a load-only baseline; a heat-sink or reset swing then reads as drift."));
        v.push(ParamSpec::number("min_covariate_span_f", 2.0, "°F (5-95 % spread over the baseline)", (0.5, 20.0),
            "four times a plant temperature sensor's ±0.5 °F accuracy: a narrower spread is noise, and its effect is not identified",
            "Leave it; a condition that barely moved leaves the baseline on load alone, and the finding says so."));
    }
    v.extend(super::cusum_param_specs());
    v.push(unset("min_tons", "tons", (0.0, 100.0),
        "below a tenth of its usual load a chiller's approaches and pressures say little about its condition: unset, 10 % of the baseline's 95th-percentile tons up to 5 tons",
        "About a tenth of the chiller's rated tons, or leave it unset."));
    v.push(unset("min_tons_span", "tons", (0.0, 200.0),
        "a narrower baseline load range does not show a slope: unset, 20 % of the baseline's 95th-percentile tons up to 10 tons",
        "Leave it unset; a load that barely moves is compared as a flat level instead."));
    v
}

// ---------------------------------------------------------------------------- the data

/// A window's tons, signal and judged mask for one comparison.
struct Prepared {
    x: Vec<f64>,
    y: Vec<f64>,
    keep: Vec<bool>,
    run: Option<RunSource>,
}

/// The roles a comparison reads that the frame lacks.
fn missing(frame: &Frame, d: &Def) -> Vec<String> {
    let mut roles: Vec<&str> = match d.source {
        Source::Role(r) => vec![r],
        Source::Diff(a, b) => vec![a, b],
    };
    roles.extend([FLOW, CHWS, CHWR]);
    roles.into_iter().filter(|r| col(frame, r).is_none()).map(String::from).collect()
}

fn prepare(frame: &Frame, d: &Def) -> Result<Prepared, Vec<String>> {
    let miss = missing(frame, d);
    if !miss.is_empty() {
        return Err(miss);
    }
    let (flow, chws, chwr) =
        (col(frame, FLOW).unwrap_or(&[]), col(frame, CHWS).unwrap_or(&[]), col(frame, CHWR).unwrap_or(&[]));
    let x: Vec<f64> = (0..frame.len()).map(|i| tons(flow[i], chwr[i], chws[i])).collect();
    let y: Vec<f64> = match d.source {
        Source::Role(r) => col(frame, r).unwrap_or(&[]).to_vec(),
        Source::Diff(a, b) => {
            let (a, b) = (col(frame, a).unwrap_or(&[]), col(frame, b).unwrap_or(&[]));
            a.iter().zip(b).map(|(a, b)| a - b).collect()
        }
    };
    let running = chiller_running(frame, f64::NAN, POWER_RUN_FRAC).filter(|r| r.on.len() == frame.len());
    let (keep, run) = match running {
        Some(r) => (r.on, Some(r.source)),
        None => (vec![true; frame.len()], None),
    };
    Ok(Prepared { x, y, keep, run })
}

fn round6(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

/// The baseline's load gates: explicit values win, else the size-relative ones.
fn gates(spec: &DetectorSpec, params: &Params, p: &Prepared) -> (f64, f64, &'static str) {
    let p95 = super::p95_positive(&p.x, &p.keep);
    let (gl, gs) = (opt_number(spec, params, "min_tons"), opt_number(spec, params, "min_tons_span"));
    let rel = |frac: f64, cap: f64| p95.map_or(cap, |c| round6((frac * c).min(cap)));
    let src = if gl.is_some() && gs.is_some() { "explicit" } else { "size_relative" };
    (
        gl.unwrap_or_else(|| rel(LOAD_GATE_FRAC, LOAD_GATE_CAP)),
        gs.unwrap_or_else(|| rel(SPAN_GATE_FRAC, SPAN_GATE_CAP)),
        src,
    )
}

/// The samples with the condition present.
fn with_condition(idx: &[u32], c: &[f64]) -> Vec<u32> {
    idx.iter().copied().filter(|&i| c[i as usize].is_finite()).collect()
}

// ---------------------------------------------------------------------------- fit

fn fit_spec(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let s = variant(spec.id);
    let ds = defs(s);
    let mut parts = Vec::new();
    for (k, d) in ds.iter().enumerate() {
        match prepare(frame, d) {
            Ok(p) => parts.push(fit_part(spec, d, frame, &p, params)),
            // the first comparison is required; an approach's evaporator leg is optional
            Err(missing) if k == 0 => return Err(FitError::Missing(missing)),
            Err(_) => {}
        }
    }
    Ok(parts)
}

fn fit_part(spec: &DetectorSpec, d: &Def, frame: &Frame, p: &Prepared, params: &Params) -> Part {
    let (min_load, min_span, source) = gates(spec, params, p);
    let idx = loadfit::usable(&p.x, &p.y, &p.keep, min_load, d.range);
    let mut part = Part::named(d.prefix);
    part.min_load = min_load;
    part.min_span = min_span;
    part.gate_source = source.into();
    part.signal_range = Some(d.range);
    let label = d.wording.label.trim_start_matches("the ");
    let mut fitted = None;
    let use_conditions = !d.covariates.is_empty() && params.flag(spec, "normalize_on_condition") != Some(false);
    if use_conditions {
        let min_cov = params.number(spec, "min_covariate_span_f");
        for &role in d.covariates {
            let Some(c) = col(frame, role) else { continue };
            let ci = with_condition(&idx, c);
            match LoadFit::fit_with_covariate(&frame.ts, &p.x, &p.y, (role, c), &ci, min_span, true, min_cov) {
                Ok(f) if f.covariate.as_ref().is_some_and(|cv| cv.slope > 0.0) => {
                    fitted = Some(f);
                    break;
                }
                Ok(f) => part.notes.push(format!(
                    "{role} is trended but the baseline gave it the physically wrong sign ({:+.3} {} per °F), so it was not used: {label} is matched on load only",
                    f.covariate.map_or(0.0, |cv| cv.slope),
                    d.wording.unit
                )),
                Err(why) => part.notes.push(format!(
                    "{role} is trended but its effect on {label} could not be identified in the baseline ({why}), so {label} is matched on load only"
                )),
            }
        }
    }
    // the heat-sink or chilled-water median the confound check compares with
    part.confound_median = match d.prefix {
        "head_pressure" => col(frame, CWS).and_then(|c| median_kept(c, &p.keep)),
        "suction_pressure" => col(frame, CHWS).and_then(|c| median_kept(c, &p.keep)),
        _ => None,
    };
    let fitted = match fitted {
        Some(f) => Ok(f),
        None if idx.len() < loadfit::MIN_FIT_SAMPLES => {
            Err(super::why_unusable(&p.x, &p.y, &p.keep, min_load, Some(d.range), ("tons", label), spec.judged_basis))
        }
        None => LoadFit::fit(&frame.ts, &p.x, &p.y, &idx, min_span, true),
    };
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    part
}

// ---------------------------------------------------------------------------- evaluate

/// One comparison's verdict.
struct Leg {
    severity: Severity,
    drift: f64,
    idx: Vec<u32>,
    flagged: Vec<u32>,
    summary: String,
}

enum NotLeg {
    Skip(Vec<String>),
    NotJudged(String),
}

fn floors(s: Signal, spec: &DetectorSpec, params: &Params) -> Floors {
    let [w, f, ws, fs] = floor_names(s);
    Floors {
        warn: params.number(spec, w),
        fault: params.number(spec, f),
        warn_sigma: params.number(spec, ws),
        fault_sigma: params.number(spec, fs),
    }
}

fn evaluate_spec(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let s = variant(spec.id);
    let ds = defs(s);
    let fl = floors(s, spec, params);
    let (mut metrics, mut caveats) = (BTreeMap::new(), Vec::new());
    let mut legs: Vec<(&Def, Result<Leg, String>)> = Vec::new();
    let mut run_source = None;
    for (k, d) in ds.iter().enumerate() {
        let p = match prepare(frame, d) {
            Ok(p) => p,
            Err(missing) if k == 0 => return Outcome::Skipped { missing },
            Err(_) => continue,
        };
        run_source = p.run;
        match judge_leg(spec, s, d, baseline, frame, &p, params, &fl, &mut metrics, &mut caveats) {
            Ok(l) => legs.push((d, Ok(l))),
            Err(NotLeg::Skip(missing)) if ds.len() == 1 => return Outcome::Skipped { missing },
            Err(NotLeg::Skip(missing)) => legs.push((d, Err(format!("{} is missing", missing.join(", "))))),
            Err(NotLeg::NotJudged(why)) => legs.push((d, Err(why))),
        }
    }
    let reasons: Vec<String> = legs
        .iter()
        .filter_map(|(d, l)| {
            l.as_ref().err().map(|e| {
                if ds.len() > 1 {
                    format!("{}: {e}", d.wording.label.trim_start_matches("the "))
                } else {
                    e.clone()
                }
            })
        })
        .collect();
    let Some((wd, worst)) = legs
        .iter()
        .filter_map(|(d, l)| l.as_ref().ok().map(|l| (*d, l)))
        .max_by(|a, b| a.1.severity.cmp(&b.1.severity).then(a.1.drift.abs().total_cmp(&b.1.drift.abs())))
    else {
        return Outcome::Findings(vec![not_judged(spec, &reasons.join("; "))]);
    };
    if ds.len() > 1 {
        for r in &reasons {
            caveats.push(format!("not judged: {r}"));
        }
    }
    match run_source {
        None => caveats.push("no chiller run status or power is trended: every sample at or above the tons gate was judged, a stopped chiller's included".into()),
        Some(src) => caveats.extend(src.caveat().map(String::from)),
    }
    let mut summary = worst.summary.clone();
    for (d, l) in legs.iter().filter(|(d, _)| d.prefix != wd.prefix) {
        if let Ok(o) = l {
            summary.push_str(&format!(
                "; {}: {}",
                d.wording.label.trim_start_matches("the "),
                severity_word(o.severity)
            ));
        }
    }
    let w = frame.weights_hours();
    let hours = |idx: &[u32]| idx.iter().map(|&i| w.get(i as usize).copied().unwrap_or(0.0)).sum::<f64>();
    let (mut all_judged, mut all_flagged, mut conditions) = (Vec::new(), Vec::new(), Vec::new());
    for (d, l) in &legs {
        let (judged, flagged): (&[u32], &[u32]) = match l {
            Ok(l) => (&l.idx, &l.flagged),
            Err(_) => (&[], &[]),
        };
        all_judged.extend_from_slice(judged);
        all_flagged.extend_from_slice(flagged);
        if ds.len() > 1 {
            conditions.push(Condition {
                name: d.condition.into(),
                flagged: flagged.to_vec(),
                judged: judged.len(),
                judged_hours: hours(judged),
                flagged_hours: hours(flagged),
            });
        }
    }
    all_judged.sort_unstable();
    all_judged.dedup();
    all_flagged.sort_unstable();
    all_flagged.dedup();
    let severity = worst.severity;
    if severity >= Severity::Warn {
        caveats.push("the warn and fault floors are screening-grade (the reference's, characterized on the signal, not on this machine): rank the chiller for a gauge-and-walkdown rather than dispatch on this alone".into());
    }
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(all_flagged)
        .with_judged(all_judged.len())
        .with_conditions(conditions)])
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Ok | Severity::Info => "ok",
        Severity::Warn => "warn",
        Severity::Fault => "fault",
    }
}

/// The finding's numeric code of a leg's grade (`<prefix>_severity`): 0 ok, 1 warn, 2 fault.
pub(super) fn grade_code(s: Severity) -> f64 {
    match s {
        Severity::Ok | Severity::Info => 0.0,
        Severity::Warn => 1.0,
        Severity::Fault => 2.0,
    }
}

#[allow(clippy::too_many_arguments)]
fn judge_leg(
    spec: &DetectorSpec,
    s: Signal,
    d: &Def,
    baseline: &Baseline,
    frame: &Frame,
    p: &Prepared,
    params: &Params,
    fl: &Floors,
    metrics: &mut BTreeMap<String, f64>,
    caveats: &mut Vec<String>,
) -> Result<Leg, NotLeg> {
    let part = baseline
        .parts
        .iter()
        .find(|q| q.name == d.prefix)
        .ok_or_else(|| NotLeg::NotJudged("the baseline window did not trend it".into()))?;
    let fit = part.fit.as_ref().ok_or_else(|| {
        NotLeg::NotJudged(format!("no baseline: {}", part.declined.as_deref().unwrap_or("it was not fitted")))
    })?;
    let range = part.signal_range.unwrap_or(d.range);
    let mut idx = loadfit::usable(&p.x, &p.y, &p.keep, part.min_load, range);
    let cov = fit.covariate.as_ref();
    let cov_col = match cov {
        Some(cv) => Some(col(frame, &cv.role).ok_or_else(|| NotLeg::Skip(vec![cv.role.clone()]))?),
        None => None,
    };
    let y: Vec<f64> = match cov_col {
        Some(c) => {
            idx = with_condition(&idx, c);
            p.y.iter().zip(c).map(|(&y, &c)| fit.adjust(y, c)).collect()
        }
        None => p.y.clone(),
    };
    let label = d.wording.label.trim_start_matches("the ");
    let Some(score) = loadfit::score(fit, &frame.ts, &p.x, &y, &idx) else {
        let why = if idx.len() >= loadfit::MIN_SCORE_SAMPLES {
            let inside = idx.iter().filter(|&&i| fit.in_scope(p.x[i as usize])).count();
            format!(
                "only {inside} sample(s) ran inside the flat baseline's band {:.4} to {:.4} tons (need {})",
                fit.load_min - fit.load_band,
                fit.load_max + fit.load_band,
                loadfit::MIN_SCORE_SAMPLES
            )
        } else if idx.is_empty() {
            super::why_unusable(&p.x, &p.y, &p.keep, part.min_load, Some(range), ("tons", label), spec.judged_basis)
        } else {
            format!("only {} usable sample(s) in the current window (need {})", idx.len(), loadfit::MIN_SCORE_SAMPLES)
        };
        return Err(NotLeg::NotJudged(why));
    };
    let severity = grade(d.side, score.drift, score.drift_sigma, fl);
    let alarm = loadfit::cusum(fit, &frame.ts, &score, d.side, &cusum_params(spec, params));
    let pre = d.prefix;
    score_metrics(metrics, pre, d.unit_key, fit, &score, alarm.as_ref());
    metrics.insert(format!("{pre}_min_tons"), loadfit::round4(part.min_load));
    metrics.insert(format!("{pre}_severity"), grade_code(severity));
    let tag = |c: String| if s == Signal::Approach { format!("{label}: {c}") } else { c };
    for n in &part.notes {
        caveats.push(tag(n.clone()));
    }
    let mut c = Vec::new();
    score_caveats(&mut c, fit, &score, alarm.as_ref(), "load");
    caveats.extend(c.into_iter().map(tag));
    if fit.model == loadfit::Model::Level {
        caveats.push(tag(format!(
            "the baseline's load barely moved ({:.3} to {:.3} tons), so it is a flat level judged only for {:.3} to {:.3} tons",
            fit.load_min,
            fit.load_max,
            fit.load_min - fit.load_band,
            fit.load_max + fit.load_band
        )));
    }
    let mut cov_extrapolated = false;
    if let (Some(cv), Some(c)) = (cov, cov_col) {
        metrics.insert(format!("{pre}_covariate_slope"), loadfit::round4(cv.slope));
        let off = score.idx.iter().filter(|&&i| c[i as usize] < cv.min || c[i as usize] > cv.max).count();
        cov_extrapolated = off as f64 > 0.10 * score.idx.len() as f64;
        if cov_extrapolated {
            caveats.push(format!(
                "more than a tenth of the judged samples ran at a {} outside the baseline's {:.1} to {:.1}, so part of the drift is extrapolated",
                cv.role, cv.min, cv.max
            ));
        }
    }
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push(tag("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into()));
    }
    // the heat-sink or chilled-water shift, said when the baseline could not match on it
    let regressed_on = |role: &str| cov.is_some_and(|cv| cv.role == role) && !cov_extrapolated;
    let shift = |role: &str| {
        part.confound_median
            .zip(col(frame, role).and_then(|c| median_kept(c, &p.keep)))
            .map(|(b, c)| ((c - b) * 1000.0).round() / 1000.0)
    };
    match s {
        Signal::HeadPressure => {
            if let Some(sh) = shift(CWS) {
                metrics.insert("cw_supply_shift_f".into(), sh);
                let confound =
                    severity >= Severity::Warn && sh >= params.number(spec, "cw_confound_f") && !regressed_on(CWS);
                metrics.insert("cw_supply_confound".into(), if confound { 1.0 } else { 0.0 });
                if confound {
                    caveats.push(format!("the entering condenser water also rose {sh:+.1} °F over the same windows: some or all of this head-pressure rise may be the heat sink (weather, the tower) rather than a high-side fault; gauge it before blaming fouling or non-condensables"));
                }
            }
            if cov.is_none() {
                caveats.push("the head pressure is matched on load only (no entering condenser-water or outdoor-air temperature was usable), so a warmer heat sink is not told apart from a high-side fault".into());
            }
        }
        Signal::SuctionPressure => {
            if let Some(sh) = shift(CHWS) {
                metrics.insert("chw_supply_shift_f".into(), sh);
                let confound = severity >= Severity::Warn
                    && sh.abs() >= params.number(spec, "chw_confound_f")
                    && !regressed_on(CHWS);
                metrics.insert("chw_supply_confound".into(), if confound { 1.0 } else { 0.0 });
                if confound {
                    caveats.push(format!("the chilled-water supply also moved {sh:+.1} °F over the same windows: some or all of this suction-pressure move may be a chilled-water reset rather than an evaporator fault; check the setpoint history first"));
                }
            }
        }
        _ => {}
    }
    let wording = Wording { matched: matched(cov.map(|c| c.role.as_str())), ..d.wording };
    let summary =
        wording.summary(d.side, severity, score.drift, score.drift_sigma, fl, (score.idx.len(), spec.judged_basis));
    let flagged = flagged(&score, fit.sigma, d.side, fl.warn);
    Ok(Leg { severity, drift: score.drift, idx: score.idx, flagged, summary })
}

#[cfg(test)]
mod tests;
