//! Drift detectors: opt-in checks that compare a signal with the same equipment's own past at
//! matched load, rather than with a fixed limit. Each detector fits a [`Baseline`] on a
//! known-good window (a line of the signal against its load, or a flat level when the load
//! barely moved, with the residual scatter), then judges a current window against it: the median
//! residual must clear both a floor in the signal's unit and a multiple of the baseline's
//! scatter to warn or fault. A baseline is plain data (serde), so the drift capability can fit
//! one for a call and drop it, or read one a run config froze; nothing here stores anything.
//!
//! The detectors and their drift families (the prefix of a finding id,
//! `<family>:<detector>@<equip>`):
//! - `ahu`: `coil_leak_drift`, a coil valve passing water while commanded shut, seen as a shift
//!   in the valve-shut air rise across the coil at matched mixed air (each coil a condition);
//!   `fan_efficiency_drift` (fan power at matched airflow), `filter_loading_drift` (filter DP at
//!   matched airflow), `duct_static_drift` (duct static at matched airflow, net of a setpoint
//!   reset), `economizer_damper_drift` (outdoor-air fraction at matched damper command) and
//!   `coil_valve_drift` (each coil's valve at matched air ΔT, each coil a condition), in `ahu.rs`
//!   with the family's roll-up.
//! - `vav`: `vav_airflow_drift` (the box damper at matched commanded airflow) and
//!   `vav_reheat_valve_drift` (the reheat valve at matched reheat duty), in `vav.rs` with the
//!   family's roll-up.
//! - `pump` (chilled water) and `hw_pump` (hot water): `pump_flow_drift` (flow at matched pump
//!   speed), `pump_head_drift` (head at matched speed), `loop_deltat_drift` (loop ΔT at matched
//!   flow), `loop_dp_drift` (loop differential pressure at matched flow) and `pump_power_drift`
//!   (pump power at matched flow); the hot-water ones carry an `hw_` prefix.
//! - `chiller`, `condenser` and `evaporator` (a chiller's two heat exchangers and its
//!   refrigerant circuit, each at matched tons): `chiller_approach_drift` (condenser and
//!   evaporator approach), `chiller_cw_range_drift` (condenser-water range),
//!   `chiller_head_pressure_drift` and `chiller_suction_pressure_drift` (the refrigerant
//!   pressures, at matched heat-sink or leaving-water temperature too), `chiller_subcooling_drift`
//!   and `chiller_superheat_drift`; [`chiller_rollup`] says which part of the machine they point
//!   at together.
//! - `boiler`: `boiler_efficiency_drift`, the gas input per unit of heat delivered at matched load
//!   and return-water temperature, corroborated by the gas burned at matched outdoor air.
//! - `dx`: `dx_refrigerant_charge_drift` (the liquid subcooling at matched outdoor and return
//!   air), `dx_indoor_airflow_drift` (the coil's temperature split at matched return air and dew
//!   point) and `discharge_superheat_drift` (the compressor's discharge superheat), each either
//!   way; the rules `dx_refrigerant_charge` and `dx_indoor_airflow` judge the first two readings
//!   against nameplate targets instead.
//! - `tower`: `cooling_tower_approach_drift` (the approach at matched load; the `chiller` and
//!   `condenser` families run it too) and `cooling_tower_fan_effort_drift` (the fan speed at
//!   matched load and wet bulb: a controlled tower that fouls keeps its approach).
//!
//! Besides the period verdict each detector runs a tabular CUSUM over the current window
//! (`<signal>_sustained_alarm`): whether the shift opened and stayed open. Its settings are
//! untuned starting points and it never changes the severity.

mod ahu;
mod boiler;
mod chiller;
pub mod chiller_rollup;
mod coil_leak;
mod dx;
pub mod families;
pub mod loadfit;
mod matched;
mod pump;
pub mod run;
pub mod section;
mod tower;
mod vav;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engine::{Finding, Frame, Inputs, Outcome, ParamDecl, ParamSpec, ParamValue, Params, Severity};
use crate::family::class_matches;
use loadfit::{CusumParams, Score};
pub use loadfit::{LoadFit, Model, Side};

/// The version of the [`Baseline`] layout this build writes and reads.
pub const BASELINE_FORMAT: u32 = 1;

/// A drift detector's declaration.
#[derive(Clone, Debug, Serialize)]
pub struct DetectorSpec {
    pub id: &'static str,
    /// The drift family that runs it, and the prefix of its finding ids (`ahu`, `pump`,
    /// `hw_pump`).
    pub drift_family: &'static str,
    /// The equipment families it is written for ([`crate::family`]'s names).
    pub families: &'static [&'static str],
    /// What it reads; `inputs.one_of` holds the groups of which one is enough (the speed or,
    /// failing it, the run status that stands in for a constant speed).
    pub inputs: Inputs,
    pub params: Vec<ParamSpec>,
    /// The unit the drift is stated in.
    pub unit: &'static str,
    /// Which direction of drift is judged.
    pub side: Side,
    pub description: &'static str,
    /// What the samples it judges are ("running samples at or above the speed gate").
    pub judged_basis: &'static str,
    #[serde(skip)]
    kind: Kind,
}

/// How a detector fits a baseline and judges a window against it: its module's two functions,
/// so a new detector is a module and a line in [`all`], not an arm in a central match.
#[derive(Clone, Copy)]
pub(crate) struct Kind {
    /// The baseline's parts (one per comparison) on a known-good window.
    pub fit: fn(&DetectorSpec, &Frame, &Params) -> Result<Vec<Part>, FitError>,
    /// The finding on a current window against the baseline.
    pub evaluate: fn(&DetectorSpec, &Baseline, &Frame, &Params) -> Outcome,
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kind")
    }
}

impl ParamDecl for DetectorSpec {
    fn decl_id(&self) -> &str {
        self.id
    }
    fn param_specs(&self) -> &[ParamSpec] {
        &self.params
    }
}

impl DetectorSpec {
    /// Whether the detector is written for equipment of this stored class.
    pub fn applies_to(&self, class: &str) -> bool {
        self.families.iter().any(|f| class_matches(class, f))
    }

    /// The id of its finding on `equip`: `<family>:<detector>@<equip>`.
    pub fn finding_id(&self, equip: &str) -> String {
        format!("{}:{}@{}", self.drift_family, self.id, equip)
    }
}

/// Every detector, sorted by id.
pub fn all() -> Vec<DetectorSpec> {
    let mut v = vec![
        boiler::spec(),
        coil_leak::spec(),
        ahu::air_spec(ahu::Air::Fan),
        ahu::air_spec(ahu::Air::Filter),
        ahu::air_spec(ahu::Air::Static),
        ahu::econ_spec(),
        ahu::coil_valve_spec(),
        vav::airflow_spec(),
        vav::reheat_spec(),
    ];
    v.extend(chiller::SIGNALS.iter().map(|&s| chiller::spec(s)));
    v.extend(dx::specs());
    v.extend(tower::specs());
    for l in [pump::Loop::Chw, pump::Loop::Hw] {
        for s in [pump::Signal::Flow, pump::Signal::Head, pump::Signal::DeltaT, pump::Signal::Dp, pump::Signal::Power] {
            v.push(pump::spec(s, l));
        }
    }
    v.sort_by_key(|s| s.id);
    v
}

/// The detector with this id.
pub fn spec(id: &str) -> Option<DetectorSpec> {
    all().into_iter().find(|s| s.id == id)
}

/// How a running pump's speed normalizer behaved over the baseline window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Normalizer {
    /// It moved: the signal is fitted along it.
    Variable,
    /// It barely moved (coefficient of variation at or under the detector's limit): the
    /// signal is a flat level within its observed band.
    Constant,
    /// No speed trended, only a run status: a constant-speed pump, scored at a nominal 100 %.
    StatusOnly,
}

/// One comparison a baseline holds: the pump detectors have one, `coil_leak_drift` one per coil.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// The comparison's name: the signal (`pump_flow`, `loop_dp` ...) or the coil (`cooling`,
    /// `heating`).
    pub name: String,
    /// The fit; `None` when the window would not support one (`declined` says why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<LoadFit>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declined: Option<String>,
    /// The role the signal was read from, where there is a choice (a coil's own leaving-air
    /// sensor or the supply air).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<String>,
    /// The lowest load judged, and the load span a slope needs (load units); null in JSON when
    /// not a number.
    #[serde(with = "finite_or_null")]
    pub min_load: f64,
    #[serde(with = "finite_or_null")]
    pub min_span: f64,
    /// Where `min_load` came from: `explicit`, `size_relative`, `learned_vfd_floor`, `default`
    /// or `fixed`.
    pub gate_source: String,
    /// The pump's drive minimum speed learned from the baseline (% speed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vfd_floor: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalizer: Option<Normalizer>,
    /// The normalizer's coefficient of variation over the baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalizer_cv: Option<f64>,
    /// Plausible signal values (inclusive); `None`: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_range: Option<(f64, f64)>,
    /// The baseline's 95th percentile of the quantity a size-relative floor scales with (the
    /// pump's flow or power).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_p95: Option<f64>,
    /// The baseline's median of the confounding signal a detector checks (loop DP, flow, DP
    /// setpoint).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confound_median: Option<f64>,
    /// What the fit decided that the finding should repeat (a condition the fit could not use,
    /// and why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The share (0-1) of the baseline's otherwise-usable samples a detector's conditioning gate
    /// left out (an economizer's near-equal outdoor and return air, a coil's economizer hours).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded_share: Option<f64>,
    /// Other baseline statistics a detector compares the current window with, by name (a tower's
    /// share of hours at high fan speed, the offset between two sensors of one stream); only
    /// finite values are kept.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stats: BTreeMap<String, f64>,
}

impl Part {
    fn named(name: &str) -> Part {
        Part {
            name: name.into(),
            fit: None,
            declined: None,
            basis: None,
            min_load: f64::NAN,
            min_span: f64::NAN,
            gate_source: String::new(),
            vfd_floor: None,
            normalizer: None,
            normalizer_cv: None,
            signal_range: None,
            scale_p95: None,
            confound_median: None,
            notes: Vec::new(),
            excluded_share: None,
            stats: BTreeMap::new(),
        }
    }

    /// Keep a baseline statistic when it is a finite number.
    fn stat(&mut self, name: &str, v: Option<f64>) {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            self.stats.insert(name.to_string(), v);
        }
    }
}

/// A number JSON cannot hold (NaN, infinite) as null, and null back as NaN.
mod finite_or_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_none()
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

/// What a detector fitted on a known-good window: serializable, so a run config's frozen
/// baselines can be read back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub detector: String,
    pub format: u32,
    pub parts: Vec<Part>,
}

/// Why no baseline was fitted.
#[derive(Clone, Debug, PartialEq)]
pub enum FitError {
    /// The window lacks these inputs.
    Missing(Vec<String>),
    /// The window would not support a fit.
    Declined(String),
}

impl FitError {
    /// The answer a run gives for it: skipped for missing inputs, else a not-judged finding.
    pub fn into_outcome(self, spec: &DetectorSpec) -> Outcome {
        match self {
            FitError::Missing(missing) => Outcome::Skipped { missing },
            FitError::Declined(why) => Outcome::Findings(vec![not_judged(spec, &format!("no baseline: {why}"))]),
        }
    }
}

/// Fit the detector's baseline on a known-good window.
pub fn fit(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Baseline, FitError> {
    let parts = (spec.kind.fit)(spec, frame, params)?;
    if parts.iter().all(|p| p.fit.is_none()) {
        let why: Vec<String> = parts
            .iter()
            .filter_map(|p| {
                p.declined.as_ref().map(|d| if parts.len() > 1 { format!("{}: {d}", p.name) } else { d.clone() })
            })
            .collect();
        return Err(FitError::Declined(why.join("; ")));
    }
    Ok(Baseline { detector: spec.id.to_string(), format: BASELINE_FORMAT, parts })
}

/// Judge a current window against a baseline: one finding (declined, as an info finding, when
/// too few samples qualify), or skipped when the window lacks an input the baseline needs.
pub fn evaluate(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    if baseline.detector != spec.id {
        return Outcome::Findings(vec![not_judged(
            spec,
            &format!("the baseline is for {}, not {}", baseline.detector, spec.id),
        )]);
    }
    if baseline.format != BASELINE_FORMAT {
        return Outcome::Findings(vec![not_judged(
            spec,
            &format!("the baseline's format {} is not the one this build reads ({BASELINE_FORMAT})", baseline.format),
        )]);
    }
    (spec.kind.evaluate)(spec, baseline, frame, params)
}

/// Fit on the baseline window and judge the current one, in one call (the baseline is not kept).
pub fn judge(spec: &DetectorSpec, baseline_window: &Frame, current: &Frame, params: &Params) -> Outcome {
    match fit(spec, baseline_window, params) {
        Ok(b) => evaluate(spec, &b, current, params),
        Err(e) => e.into_outcome(spec),
    }
}

/// The answer when nothing could be judged: an info finding that says why (not a pass).
pub fn not_judged(spec: &DetectorSpec, why: &str) -> Finding {
    Finding::unjudged(spec.id, spec.judged_basis, why, "nothing was compared with the baseline; this is not a pass")
}

// ---------------------------------------------------------------- shared by the detectors

/// An air handler's coil, as the coil detectors (`coil_leak_drift`, `coil_valve_drift`) judge
/// each one apart; each detector's module adds what it reads of a coil.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coil {
    Cooling,
    Heating,
}

/// Both coils, cooling first.
const COILS: [Coil; 2] = [Coil::Cooling, Coil::Heating];

impl Coil {
    /// The coil's name in part names and metrics (`cooling`, `heating`).
    fn name(self) -> &'static str {
        match self {
            Coil::Cooling => "cooling",
            Coil::Heating => "heating",
        }
    }
    /// Its valve's role.
    fn valve(self) -> &'static str {
        match self {
            Coil::Cooling => "cool_valve",
            Coil::Heating => "heat_valve",
        }
    }
}

/// A role's column, when it has the frame's length and holds any sample.
fn col<'a>(frame: &'a Frame, role: &str) -> Option<&'a [f64]> {
    frame.col(role).filter(|c| c.len() == frame.len())
}

/// Whether each sample runs by a status signal (at or above `min`; no value is not running), or
/// every sample when there is no status.
fn running(frame: &Frame, status: Option<&[f64]>, min: f64) -> Vec<bool> {
    match status {
        Some(s) => s.iter().map(|&v| !v.is_nan() && v >= min).collect(),
        None => vec![true; frame.len()],
    }
}

/// The finite values of `col` where `keep` holds (and, with `positive`, above zero).
fn values(col: &[f64], keep: &[bool], positive: bool) -> Vec<f64> {
    col.iter().zip(keep).filter(|(v, k)| **k && v.is_finite() && (!positive || **v > 0.0)).map(|(v, _)| *v).collect()
}

/// The 95th percentile of the positive values kept; `None` when there are none.
fn p95_positive(col: &[f64], keep: &[bool]) -> Option<f64> {
    let mut v = values(col, keep, true);
    (!v.is_empty()).then(|| loadfit::quantile_in_place(&mut v, 0.95))
}

/// The median of the values kept; `None` when there are none.
fn median_kept(col: &[f64], keep: &[bool]) -> Option<f64> {
    let mut v = values(col, keep, false);
    (!v.is_empty()).then(|| loadfit::median_in_place(&mut v))
}

/// A number parameter that may be unset (NaN).
fn opt_number(spec: &DetectorSpec, params: &Params, name: &str) -> Option<f64> {
    Some(params.number(spec, name)).filter(|v| !v.is_nan())
}

/// A floor given explicitly, else `frac` of a baseline 95th percentile capped at `cap` (the cap
/// when the baseline had no such samples).
fn scaled_floor(explicit: Option<f64>, p95: Option<f64>, frac: f64, cap: f64) -> f64 {
    explicit.unwrap_or_else(|| p95.map_or(cap, |p| (frac * p).min(cap)))
}

/// The load span that makes a constant normalizer fit as a flat level valid 5 % of its median
/// either side of its observed band: the observed span plus that margin (10 when nothing is
/// usable).
fn level_span(x: &[f64], y: &[f64], keep: &[bool], min_load: f64) -> f64 {
    let mut seen: Vec<f64> = x
        .iter()
        .zip(y)
        .zip(keep)
        .filter(|((xv, yv), k)| **k && !xv.is_nan() && !yv.is_nan() && **xv >= min_load)
        .map(|((xv, _), _)| *xv)
        .collect();
    if seen.is_empty() {
        return 10.0;
    }
    let (lo, hi) = seen.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (crate::engine::min_of(a, *v), crate::engine::max_of(b, *v))
    });
    hi - lo + 2.0 * 0.05 * loadfit::median_in_place(&mut seen)
}

/// The coefficient of variation (sample standard deviation over mean) of the positive finite
/// values kept; `None` with fewer than two.
fn cv_positive(col: &[f64], keep: &[bool]) -> Option<f64> {
    let v = values(col, keep, true);
    if v.len() < 2 {
        return None;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Some(var.sqrt() / mean)
}

/// Load gates that scale with the equipment: `(min_load, min_span)` at a tenth and a fifth of the
/// 95th percentile of the positive loads kept, capped at `caps` (a full-size machine's absolute
/// gates), and the caps themselves when no load is positive.
fn size_relative_gates(load: &[f64], keep: &[bool], caps: (f64, f64)) -> (f64, f64) {
    p95_positive(load, keep).map_or(caps, |c| ((0.10 * c).min(caps.0), (0.20 * c).min(caps.1)))
}

/// The baseline part `name` and its fit, or the finding that says why there is none.
fn fitted<'a>(spec: &DetectorSpec, baseline: &'a Baseline, name: &str) -> Result<(&'a Part, &'a LoadFit), Outcome> {
    let Some(part) = baseline.parts.iter().find(|p| p.name == name) else {
        return Err(Outcome::Findings(vec![not_judged(spec, &format!("the baseline holds no {name} fit"))]));
    };
    match part.fit.as_ref() {
        Some(f) => Ok((part, f)),
        None => Err(Outcome::Findings(vec![not_judged(
            spec,
            &format!("no baseline: {}", part.declined.as_deref().unwrap_or("it was not fitted")),
        )])),
    }
}

/// Why a current window gave too few samples to score against `fit`: a level baseline's band
/// missed them, or too few were usable (`unusable` names the gate that emptied the window).
fn why_unscored(fit: &LoadFit, x: &[f64], idx: &[u32], min: usize, unusable: impl FnOnce() -> String) -> String {
    if idx.is_empty() {
        return unusable();
    }
    if idx.len() >= min && fit.model == Model::Level {
        let inside = idx.iter().filter(|&&i| fit.in_scope(x[i as usize])).count();
        return format!(
            "only {inside} sample(s) ran inside the flat baseline's band {:.4} to {:.4} (need {min})",
            fit.load_min - fit.load_band,
            fit.load_max + fit.load_band
        );
    }
    format!("only {} usable sample(s) in the current window (need {min})", idx.len())
}

/// The warn and fault floors of a detector: in the signal's unit and in baseline sigmas.
#[derive(Clone, Copy, Debug)]
struct Floors {
    warn: f64,
    fault: f64,
    warn_sigma: f64,
    fault_sigma: f64,
}

/// The severity of a drift: a fault or a warning needs it to clear both its unit floor and its
/// sigma floor in the judged direction; with no baseline scatter the unit floor alone decides.
fn grade(side: Side, drift: f64, drift_sigma: Option<f64>, f: &Floors) -> Severity {
    let toward = side.toward(drift);
    let sig = drift_sigma.map(|s| side.toward(s));
    let clears = |unit: f64, sigma: f64| toward >= unit && sig.is_none_or(|s| s >= sigma);
    if clears(f.fault, f.fault_sigma) {
        Severity::Fault
    } else if clears(f.warn, f.warn_sigma) {
        Severity::Warn
    } else {
        Severity::Ok
    }
}

/// The scored samples at least two baseline sigmas off the line in the judged direction (with
/// no scatter, at least the warn floor off it).
fn flagged(score: &Score, sigma: f64, side: Side, warn: f64) -> Vec<u32> {
    let level = if sigma > 0.0 { 2.0 * sigma } else { warn };
    score.idx.iter().zip(&score.resid).filter(|(_, r)| side.toward(**r) >= level).map(|(i, _)| *i).collect()
}

fn cusum_params(spec: &DetectorSpec, params: &Params) -> CusumParams {
    CusumParams {
        slack_sigma: params.number(spec, "slack_sigma"),
        limit_sigma: params.number(spec, "limit_sigma"),
        clip_sigma: params.number(spec, "clip_sigma"),
        min_consecutive: params.number(spec, "min_consecutive"),
    }
}

/// How a detector words its quantity.
struct Wording {
    /// "pump flow".
    label: &'static str,
    /// "gpm" ("" for a unit-free DP).
    unit: &'static str,
    decimals: usize,
    /// "matched speed".
    matched: &'static str,
    /// What a rise and a fall point at (used at warn and fault).
    cause_up: &'static str,
    cause_down: &'static str,
}

impl Wording {
    fn amount(&self, v: f64) -> String {
        let s = format!("{:.*}", self.decimals, v);
        if self.unit.is_empty() {
            s
        } else {
            format!("{s} {}", self.unit)
        }
    }

    /// The finding's summary. An ok drift reads as holding near the baseline unless it would
    /// have cleared the floors the other way, which a one-sided detector does not judge.
    fn summary(
        &self,
        side: Side,
        severity: Severity,
        drift: f64,
        drift_sigma: Option<f64>,
        floors: &Floors,
        judged: (usize, &str),
    ) -> String {
        let (n, basis) = judged;
        let dir = if drift >= 0.0 { "above" } else { "below" };
        let sig = drift_sigma.map_or("no baseline scatter".to_string(), |s| format!("{:.1}σ", s.abs()));
        let (label, matched, amount) = (self.label, self.matched, self.amount(drift.abs()));
        if severity >= Severity::Warn {
            let cause = if drift >= 0.0 { self.cause_up } else { self.cause_down };
            return format!("{label} is {amount} ({sig}) {dir} its baseline at {matched} on {n} {basis}: {cause}");
        }
        if grade(Side::Both, drift, drift_sigma, floors) == Severity::Ok || side == Side::Both {
            let signed = format!("{:+.*}", self.decimals, drift);
            let signed = if signed[1..].parse::<f64>() == Ok(0.0) { signed[1..].to_string() } else { signed };
            let shift = if self.unit.is_empty() { signed } else { format!("{signed} {}", self.unit) };
            return format!("{label} holds near its baseline at {matched} ({shift}, {sig}) on {n} {basis}");
        }
        let judged = if side == Side::Down { "a fall" } else { "a rise" };
        format!("{label} is {amount} {dir} its baseline at {matched} on {n} {basis}; only {judged} is judged a fault")
    }
}

/// A metric key: `<prefix>_<stem>_<unit>` (`pump_flow_drift_gpm`), the unit left out when empty.
fn key(prefix: &str, stem: &str, unit: &str) -> String {
    if unit.is_empty() {
        format!("{prefix}_{stem}")
    } else {
        format!("{prefix}_{stem}_{unit}")
    }
}

/// The metrics every comparison reports, under `prefix` with the unit key `u`.
fn score_metrics(
    m: &mut BTreeMap<String, f64>,
    prefix: &str,
    u: &str,
    fit: &LoadFit,
    score: &Score,
    alarm: Option<&loadfit::Alarm>,
) {
    m.insert(key(prefix, "drift", u), score.drift);
    if let Some(s) = score.drift_sigma {
        m.insert(format!("{prefix}_drift_sigma"), s);
    }
    if let Some(s) = score.slope_per_month {
        let k =
            if u.is_empty() { format!("{prefix}_slope_per_month") } else { format!("{prefix}_slope_{u}_per_month") };
        m.insert(k, s);
    }
    if let Some(p) = score.pct_outside_2sigma {
        m.insert(format!("{prefix}_pct_outside_2sigma"), p);
    }
    m.insert(format!("{prefix}_n_current"), score.idx.len() as f64);
    m.insert(format!("{prefix}_n_out_of_scope"), score.out_of_scope as f64);
    m.insert(format!("{prefix}_baseline_n"), fit.n as f64);
    m.insert(key(prefix, "baseline_sigma", u), loadfit::round4(fit.sigma));
    if let Some(a) = alarm {
        m.insert(format!("{prefix}_sustained_alarm"), if a.first.is_some() { 1.0 } else { 0.0 });
    }
}

/// The caveats every comparison may carry.
fn score_caveats(c: &mut Vec<String>, fit: &LoadFit, score: &Score, alarm: Option<&loadfit::Alarm>, load: &str) {
    if fit.sigma.is_nan() || fit.sigma <= 0.0 {
        c.push("the baseline had no scatter about its fit, so only the unit floor was applied".into());
    }
    if score.extrapolated {
        c.push(format!("more than a tenth of the judged samples ran at a {load} outside the baseline's range, so part of the drift is extrapolated"));
    }
    if alarm.is_none() {
        c.push("the sustained-shift check did not run: the baseline has no scatter to scale it".into());
    }
}

/// Why a window left nothing to fit or score, naming the first gate that emptied it.
fn why_unusable(
    x: &[f64],
    y: &[f64],
    keep: &[bool],
    min_load: f64,
    range: Option<(f64, f64)>,
    names: (&str, &str),
    basis: &str,
) -> String {
    let (xn, yn) = names;
    let kept = keep.iter().filter(|k| **k).count();
    if kept == 0 {
        return format!("no {basis}");
    }
    let both: Vec<usize> = (0..keep.len()).filter(|&i| keep[i] && !x[i].is_nan() && !y[i].is_nan()).collect();
    if both.is_empty() {
        return format!("{xn} and {yn} are never present together on {basis}");
    }
    let loaded: Vec<usize> = both.iter().copied().filter(|&i| x[i] >= min_load).collect();
    if loaded.is_empty() {
        let top = both.iter().map(|&i| x[i]).fold(f64::NEG_INFINITY, crate::engine::max_of);
        return format!("no sample with {xn} at or above {min_load:.4} (the highest was {top:.4})");
    }
    let (lo, hi) = range.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let n = loaded.iter().filter(|&&i| y[i] >= lo && y[i] <= hi).count();
    if n == 0 {
        return format!(
            "every {yn} reading lies outside its plausible range {lo:.4} to {hi:.4}; check the point's units"
        );
    }
    format!("only {n} usable sample(s)")
}

// ---------------------------------------------------------------- shared parameters

fn sigma_params(warn_unit: &'static str, fault_default: f64) -> [ParamSpec; 2] {
    [
        ParamSpec::number("warn_sigma", 2.5, warn_unit, (1.5, 6.0),
            "a drift must stand clear of the baseline's own scatter before it means anything; 2.5 residual standard deviations is a screening level, not one proven on this equipment",
            "Fit a baseline on one known-good window, judge a second known-good window against it, and set this above the largest drift in σ that comparison shows."),
        ParamSpec::number("fault_sigma", fault_default, "σ", (2.5, 10.0),
            "a screening level well outside the scatter a healthy baseline shows",
            "Keep it above warn_sigma."),
    ]
}

fn cusum_param_specs() -> [ParamSpec; 4] {
    const BASIS: &str = "a textbook tabular-CUSUM starting point for a shift of about one σ, loosened for month-long hourly windows; untuned on these signals, so the sustained-shift alarm is a prompt to look, never a verdict";
    const CAL: &str = "Leave it until trends with dated, confirmed faults exist to time the alarm against; it never changes the severity.";
    [
        ParamSpec::number("slack_sigma", 0.5, "σ", (0.25, 2.0), BASIS, CAL),
        ParamSpec::number("limit_sigma", 8.0, "σ", (4.0, 20.0), BASIS, CAL),
        ParamSpec::number("clip_sigma", 4.0, "σ", (2.0, 8.0), BASIS, CAL),
        ParamSpec::number("min_consecutive", 6.0, "count (samples)", (1.0, 48.0), BASIS, CAL),
    ]
}

/// A parameter with no value by default (the detector sizes it from the baseline).
fn unset(
    name: &'static str,
    unit: &'static str,
    range: (f64, f64),
    basis: &'static str,
    calibrate: &'static str,
) -> ParamSpec {
    ParamSpec { name, default: ParamValue::Number(f64::NAN), unit, range: Some(range), choices: &[], basis, calibrate }
}

/// How long a loop's temperatures take to settle after a start (ns): the water that sat in the
/// pipes has to come round and the plant has to pull it to its setpoint, so a fresh start's
/// temperatures say nothing about the loop's or the tower's condition.
pub(crate) const SETTLE_NS: i64 = 30 * 60_000_000_000;

/// The running mask `keep` less each run's first sample and any sample within [`SETTLE_NS`] of
/// the last stopped one (the start fell somewhere after it). Without a status there are no
/// starts to see and the mask is kept as it is.
pub(crate) fn settled(ts: &[i64], mut keep: Vec<bool>, has_status: bool) -> Vec<bool> {
    if !has_status {
        return keep;
    }
    let (mut stopped_at, mut was_running) = (None::<i64>, true);
    for (k, &t) in keep.iter_mut().zip(ts) {
        if !*k {
            (stopped_at, was_running) = (Some(t), false);
            continue;
        }
        if !was_running || stopped_at.is_some_and(|s| t - s < SETTLE_NS) {
            *k = false;
        }
        was_running = true;
    }
    keep
}

#[cfg(test)]
mod tests;
