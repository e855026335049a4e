//! The air handler's drift detectors (family `ahu`) besides `coil_leak_drift`, each a signal
//! against the load that drives it, fitted on a known-good window and judged at matched load:
//!
//! - `fan_efficiency_drift`: supply-fan power at matched airflow; only an excess is judged (lost
//!   wire-to-air efficiency: a slipping belt, bearing drag, a failing motor or drive). A raised
//!   duct static makes the fan work harder with no loss of efficiency, so a concurrent static
//!   rise is a caveat.
//! - `filter_loading_drift`: filter pressure drop at matched airflow; only a rise is judged (the
//!   media loading). The drop grows with face velocity, which is why it is read at matched flow.
//!   Unlike the reference, a fall that would have cleared the floors says it is most likely a
//!   filter change and that the baseline wants refitting, rather than passing silently.
//! - `duct_static_drift`: duct static at matched airflow, either way (a fall: the fan no longer
//!   holds its static; a rise: over-pressurization), judged net of a static-setpoint reset when
//!   the setpoint is trended.
//! - `economizer_damper_drift`: the outdoor-air fraction inferred from the mixing temperatures,
//!   `100 (RAT - MAT) / (RAT - OAT)`, at matched outdoor-air damper command, either way (more
//!   outdoor air: a damper leaking or slipping open; less: stuck or slipping closed). Samples with
//!   outdoor and return air closer than `denom_min_f` are left out, since the ratio then
//!   magnifies sensor noise. Unlike the reference, a damper trended as a 0-1 fraction is read on
//!   the 0-100 % scale.
//! - `coil_valve_drift`: each coil's valve position at matched air ΔT across it (cooling: mixed
//!   minus supply air; heating: supply minus mixed air), only a creep open judged (fouling,
//!   waterside starvation, lost valve authority). One finding with a condition per coil whose
//!   valve is trended; the reference runs one instance per coil. Economizer samples are left out
//!   of the cooling coil. Unlike the reference, a cooling-coil creep carries the caveat that the
//!   air ΔT is sensible only, so a humid month needs more valve for the same ΔT.
//!
//! Only samples with the supply fan running are judged when its status is trended. The floors are
//! the reference's screening levels: a warning needs both the unit floor and the sigma floor.
//! Unlike the reference, the fitted slope is kept unrounded: the reference rounds it to six
//! decimals, which on a load in cfm (thousands) moves a filter or static drift by up to about
//! 0.005 inH2O.
//!
//! [`diagnose`] is the family's roll-up: it splits the unit into its fan, air path (filter and
//! duct static), coils and outdoor air, and reads a fan-power excess against the filter and the
//! static to say whether the fan itself or the air path it fights is the likelier cause.

use std::collections::BTreeMap;

use super::families::{Diagnosis, DriftFamily};
use super::loadfit::Side;
use super::matched::{self, Comparison, Series};
use super::{
    col, cusum_params, grade, median_kept, not_judged, running, sigma_params, Baseline, Coil, DetectorSpec, FitError,
    Floors, Kind, Part, Wording, COILS,
};
use crate::engine::{as_percent, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, Severity};

const STATUS: &str = "supply_fan_status";
const AIRFLOW: &str = "airflow";
const POWER: &str = "power";
const FILTER_DP: &str = "filter_diff_press";
const STATIC: &str = "duct_static";
const STATIC_SP: &str = "duct_static_sp";
const OAT: &str = "oat";
const RAT: &str = "return_air_temp";
const MAT: &str = "mixed_air_temp";
const SAT: &str = "supply_air_temp";
const OA_DAMPER: &str = "oa_damper";
const ECON_CMD: &str = "econ_cmd";

/// The load span a line needs (the reference's default, in the load's unit).
const MIN_SPAN: f64 = 10.0;

/// Whether a parameter was given rather than left at its default, for a part's `gate_source`.
fn gate_source(params: &Params, name: &str) -> &'static str {
    if params.values.contains_key(name) {
        "explicit"
    } else {
        "default"
    }
}

fn missing(frame: &Frame, roles: &[&str]) -> Vec<String> {
    roles.iter().filter(|r| col(frame, r).is_none()).map(|r| r.to_string()).collect()
}

fn floors(spec: &DetectorSpec, params: &Params, warn: &str, fault: &str) -> Floors {
    Floors {
        warn: params.number(spec, warn),
        fault: params.number(spec, fault),
        warn_sigma: params.number(spec, "warn_sigma"),
        fault_sigma: params.number(spec, "fault_sigma"),
    }
}

// ---------------------------------------------------------------- fan, filter and duct static

/// The three signals read against the supply airflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Air {
    Fan,
    Filter,
    Static,
}

impl Air {
    fn of(id: &str) -> Air {
        match id {
            "fan_efficiency_drift" => Air::Fan,
            "filter_loading_drift" => Air::Filter,
            _ => Air::Static,
        }
    }

    fn signal(self) -> &'static str {
        match self {
            Air::Fan => POWER,
            Air::Filter => FILTER_DP,
            Air::Static => STATIC,
        }
    }

    /// The unit floors' parameter names.
    fn floor_names(self) -> (&'static str, &'static str) {
        match self {
            Air::Fan => ("warn_kw", "fault_kw"),
            Air::Filter => ("warn_inwc", "fault_inwc"),
            Air::Static => ("warn", "fault"),
        }
    }

    /// The confounding signal whose baseline median the part keeps.
    fn confound(self) -> Option<&'static str> {
        match self {
            Air::Fan => Some(STATIC),
            Air::Filter => None,
            Air::Static => Some(STATIC_SP),
        }
    }

    fn comparison(self) -> Comparison {
        match self {
            Air::Fan => Comparison {
                prefix: "fan_power",
                unit_key: "kw",
                side: Side::Up,
                range: (0.0, 1e7),
                names: (AIRFLOW, POWER),
                load_word: "airflow",
                wording: Wording { label: "fan power", unit: "kW", decimals: 1, matched: "matched airflow", cause_up: "the fan draws more power for the same air (belt slip or wear, bearing drag, a failing motor or drive, or a restriction pushing it off its curve)", cause_down: "" },
            },
            Air::Filter => Comparison {
                prefix: "filter_dp",
                unit_key: "inwc",
                side: Side::Up,
                range: (0.0, 8.0),
                names: (AIRFLOW, FILTER_DP),
                load_word: "airflow",
                wording: Wording { label: "filter DP", unit: "inH2O", decimals: 2, matched: "matched airflow", cause_up: "the filter is loading: its pressure drop at the same airflow keeps rising (plan a filter change)", cause_down: "" },
            },
            Air::Static => Comparison {
                prefix: "duct_static",
                unit_key: "inwc",
                side: Side::Both,
                range: (0.0, 6.0),
                names: (AIRFLOW, STATIC),
                load_word: "airflow",
                wording: Wording { label: "duct static", unit: "inH2O", decimals: 2, matched: "matched airflow", cause_up: "over-pressurization (a static sensor reading low, a downstream damper stuck, or demand that fell while the setpoint stayed)", cause_down: "the fan no longer holds its static (fan or belt degradation, a leakier or more open duct system)" },
            },
        }
    }
}

fn airflow_param() -> ParamSpec {
    ParamSpec::number("min_airflow", 200.0, "cfm", (0.0, 5000.0),
        "below about 200 cfm an air handler is barely moving air and its fan, filter and static say nothing about their condition",
        "Set it near a tenth of the unit's design airflow, or a little above what the airflow station reads with the fan stopped.")
}

/// The declaration of the fan, filter or duct-static detector.
pub(super) fn air_spec(a: Air) -> DetectorSpec {
    let [ws, fs] = sigma_params("σ", 4.0);
    let mut params = match a {
        Air::Fan => vec![
            ParamSpec::number("warn_kw", 0.5, "kW", (0.05, 10.0),
                "a coarse backstop under the sigma floor, which carries the verdict since fan power scales with the unit (the reference's screening level)",
                "Judge one known-good window against a baseline fitted on another and set it above the excess that shows; a warning needs both this and warn_sigma."),
            ParamSpec::number("fault_kw", 1.0, "kW", (0.1, 20.0),
                "a screening backstop for a clear loss of efficiency",
                "About twice warn_kw."),
            ws, fs,
            ParamSpec::number("static_confound", 0.2, "inH2O", (0.05, 1.0),
                "a duct static raised this much makes the fan work harder with no loss of efficiency",
                "Set it a little above the scatter of the duct static about its setpoint. It adds a caveat only."),
        ],
        Air::Filter => vec![
            ParamSpec::number("warn_inwc", 0.15, "inH2O", (0.02, 1.0),
                "a coarse backstop under the sigma floor; clean and final pressure drops vary widely with the media, so the sigma floor carries the verdict (the reference's screening level)",
                "Set it to a fraction of the span between the filter's clean and final pressure drops from its data sheet; a warning needs both this and warn_sigma."),
            ParamSpec::number("fault_inwc", 0.30, "inH2O", (0.05, 2.0),
                "a screening backstop for a clearly loaded filter",
                "About twice warn_inwc, and under the final pressure drop the filter's maker gives."),
            ws, fs,
        ],
        Air::Static => vec![
            ParamSpec::number("warn", 0.15, "inH2O", (0.02, 1.0),
                "a coarse backstop under the sigma floor, judged either way (the reference's screening level)",
                "Judge one known-good window against a baseline fitted on another and set it above the drift that shows; a warning needs both this and warn_sigma."),
            ParamSpec::number("fault", 0.30, "inH2O", (0.05, 2.0),
                "a screening backstop for a clear change of the static held",
                "About twice warn."),
            ws, fs,
            ParamSpec::number("sp_confound", 0.1, "inH2O", (0.02, 1.0),
                "a static setpoint moved this much between the windows is a reset: the drift is then judged net of it",
                "Set it a little above the setpoint's own jitter under trim and respond."),
        ],
    };
    params.extend(super::cusum_param_specs());
    params.push(airflow_param());
    let (id, required, optional, unit, description): (&'static str, &'static [&'static str], &'static [&'static str], &'static str, &'static str) = match a {
        Air::Fan => ("fan_efficiency_drift", &[POWER, AIRFLOW], &[STATIC, STATUS], "kW",
            "Supply-fan power against the unit's own airflow-matched baseline: more power for the same air is lost wire-to-air efficiency."),
        Air::Filter => ("filter_loading_drift", &[FILTER_DP, AIRFLOW], &[STATUS], "inH2O",
            "Filter pressure drop against its airflow-matched baseline: a rise at the same airflow is the media loading."),
        Air::Static => ("duct_static_drift", &[STATIC, AIRFLOW], &[STATIC_SP, STATUS], "inH2O",
            "Duct static pressure against its airflow-matched baseline, either way and net of a static-setpoint reset: a fall is a fan that no longer holds it, a rise over-pressurization."),
    };
    DetectorSpec {
        id,
        drift_family: "ahu",
        families: &["air_handler"],
        inputs: Inputs { required, optional, gating: &[], one_of: &[], needs_gating: false },
        params,
        unit,
        side: a.comparison().side,
        description,
        judged_basis: "fan-on samples at or above the airflow gate",
        kind: Kind { fit: fit_air, evaluate: evaluate_air },
    }
}

fn air_series(a: Air, frame: &Frame) -> Result<Series, Vec<String>> {
    let m = missing(frame, &[a.signal(), AIRFLOW]);
    if !m.is_empty() {
        return Err(m);
    }
    let (Some(y), Some(x)) = (col(frame, a.signal()), col(frame, AIRFLOW)) else {
        return Err(vec![a.signal().into()]);
    };
    Ok(Series { x: x.to_vec(), y: y.to_vec(), keep: running(frame, col(frame, STATUS), 0.5) })
}

fn fit_air(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let a = Air::of(spec.id);
    let s = air_series(a, frame).map_err(FitError::Missing)?;
    let c = a.comparison();
    let gates = (params.number(spec, "min_airflow"), MIN_SPAN);
    let mut part =
        matched::fit_part(&c, c.prefix, &frame.ts, &s, gates, gate_source(params, "min_airflow"), spec.judged_basis);
    part.confound_median = a.confound().and_then(|r| col(frame, r)).and_then(|v| median_kept(v, &s.keep));
    Ok(vec![part])
}

fn evaluate_air(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let a = Air::of(spec.id);
    let c = a.comparison();
    let s = match air_series(a, frame) {
        Ok(s) => s,
        Err(missing) => return Outcome::Skipped { missing },
    };
    let Some(part) = baseline.parts.iter().find(|p| p.name == c.prefix) else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline holds no fit for this signal")]);
    };
    let (w, f) = a.floor_names();
    let fl = floors(spec, params, w, f);
    let mut j = match matched::judge_part(&c, part, &frame.ts, &s, &fl, &cusum_params(spec, params), spec.judged_basis)
    {
        Ok(j) => j,
        Err(why) => return Outcome::Findings(vec![not_judged(spec, &why)]),
    };
    let drift = j.score.drift;
    let shift = a.confound().and_then(|r| matched::shift(part.confound_median, col(frame, r), &s.keep, 4));
    let mut summary = None;
    match a {
        Air::Fan => {
            if let Some(sh) = shift {
                j.metrics.insert("duct_static_shift".into(), sh);
                if drift >= 0.0 && sh >= params.number(spec, "static_confound") {
                    j.caveats.push(format!("the duct static rose {sh:+.2} inH2O over the same windows: a fan holding a higher static works harder with no loss of efficiency, so part of this excess may be that; read the static setpoint's history"));
                }
            }
        }
        Air::Filter => {
            if drift < 0.0 && grade(Side::Both, drift, j.score.drift_sigma, &fl) >= Severity::Warn {
                j.caveats.push("the pressure drop fell at matched airflow as far as a loading filter would have risen: most likely the filter was changed; fit a new baseline on the clean filter".into());
            }
        }
        Air::Static => {
            let mut driven = false;
            if let Some(sh) = shift {
                j.metrics.insert("static_sp_shift".into(), sh);
                if sh.abs() >= params.number(spec, "sp_confound") {
                    let net = super::loadfit::round4(drift - sh);
                    let net_sigma = (j.sigma > 0.0).then(|| net / j.sigma);
                    j.metrics.insert("duct_static_residual_drift".into(), net);
                    let adjusted = grade(c.side, net, net_sigma, &fl);
                    if adjusted < j.severity {
                        driven = true;
                        j.severity = adjusted;
                        j.caveats.push(format!("the static setpoint moved {sh:+.2} inH2O between the windows; judged on the {net:+.2} inH2O of drift the reset does not explain, {}", if adjusted == Severity::Ok { "which leaves no control fault of its own" } else { "which still leaves a control fault of its own" }));
                    } else {
                        j.caveats.push(format!("the static setpoint moved {sh:+.2} inH2O between the windows, but that does not explain the drift: a control fault of its own"));
                    }
                }
            }
            j.metrics.insert("duct_static_setpoint_driven".into(), if driven { 1.0 } else { 0.0 });
            if driven && j.severity == Severity::Ok {
                let dir = if drift >= 0.0 { "above" } else { "below" };
                let sig = j.score.drift_sigma.map_or("no baseline scatter".to_string(), |s| format!("{:.1}σ", s.abs()));
                summary = Some(format!(
                    "duct static is {:.2} inH2O ({sig}) {dir} its baseline at matched airflow on {} {}: explained by the static setpoint's reset",
                    drift.abs(),
                    j.score.idx.len(),
                    spec.judged_basis
                ));
            }
        }
    }
    Outcome::Findings(vec![j.finding(spec, &c, &fl, summary)])
}

// ---------------------------------------------------------------- economizer damper

const OAT_RANGE: (f64, f64) = (20.0, 130.0);
const MAT_RANGE: (f64, f64) = (30.0, 120.0);
const RAT_RANGE: (f64, f64) = (40.0, 110.0);

fn econ_comparison() -> Comparison {
    Comparison {
        prefix: "econ_oa_fraction",
        unit_key: "pct",
        side: Side::Both,
        range: (-20.0, 120.0),
        names: (OA_DAMPER, "outdoor-air fraction"),
        load_word: "damper command",
        wording: Wording { label: "the outdoor-air fraction", unit: "pp", decimals: 0, matched: "matched damper command", cause_up: "the damper lets in more outdoor air at the same command (leaking, stuck or slipping open: excess outdoor air, a cooling penalty in hot weather)", cause_down: "the damper lets in less outdoor air at the same command (stuck or slipping closed: lost free cooling and possible under-ventilation)" },
    }
}

/// The declaration of `economizer_damper_drift`.
pub(super) fn econ_spec() -> DetectorSpec {
    let [ws, fs] = sigma_params("σ", 4.0);
    let mut params = vec![
        ParamSpec::number("warn_pct", 10.0, "percentage points of outdoor-air fraction", (3.0, 30.0),
            "set high on purpose: mixed-air stratification alone can put several points of error into a temperature-inferred fraction (the reference's screening level)",
            "Judge one known-good window against a baseline fitted on another and set it above the drift that shows; a warning needs both this and warn_sigma, either way."),
        ParamSpec::number("fault_pct", 20.0, "percentage points of outdoor-air fraction", (5.0, 50.0),
            "a screening backstop for a damper that clearly no longer delivers its command",
            "About twice warn_pct."),
        ws, fs,
    ];
    params.extend(super::cusum_param_specs());
    params.push(ParamSpec::number("denom_min_f", 10.0, "°F (|return air - outdoor air|)", (5.0, 30.0),
        "with outdoor and return air closer than this, the fraction's denominator magnifies sensor noise past use; stricter than outdoor_air_fraction's 5 °F since a baseline wants its steadiest samples",
        "Raise it when the sensors are poor or stratified; lower it only with calibrated sensors and a short season to learn from."));
    params.push(ParamSpec::number(
        "min_command",
        0.0,
        "% of damper stroke",
        (0.0, 50.0),
        "the whole command sweep down to shut is kept, so the slope is identified; a command that never moves declines",
        "Raise it to leave out a damper's bottom end when its actuator does not respond there.",
    ));
    DetectorSpec {
        id: "economizer_damper_drift",
        drift_family: "ahu",
        families: &["air_handler"],
        inputs: Inputs { required: &[OAT, RAT, MAT, OA_DAMPER], optional: &[STATUS], gating: &[], one_of: &[], needs_gating: false },
        params,
        unit: "percentage points",
        side: Side::Both,
        description: "The outdoor-air fraction inferred from the mixing temperatures against its baseline at matched outdoor-air damper command, either way: more is a damper leaking or slipping open, less one stuck or slipping closed.",
        judged_basis: "fan-on samples with outdoor and return air well apart",
        kind: Kind { fit: fit_econ, evaluate: evaluate_econ },
    }
}

/// The fraction, the command, the kept samples, and the share of active samples left out for
/// outdoor and return air too close together.
fn econ_series(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<(Series, f64), Vec<String>> {
    let m = missing(frame, &[OAT, RAT, MAT, OA_DAMPER]);
    if !m.is_empty() {
        return Err(m);
    }
    let get = |r: &str| col(frame, r).unwrap_or(&[]);
    let (oat, rat, mat) = (get(OAT), get(RAT), get(MAT));
    let cmd = as_percent(get(OA_DAMPER));
    let denom = params.number(spec, "denom_min_f");
    let on = running(frame, col(frame, STATUS), 0.5);
    let within = |v: f64, r: (f64, f64)| v >= r.0 && v <= r.1;
    let (mut keep, mut active, mut dropped) = (Vec::with_capacity(frame.len()), 0usize, 0usize);
    let mut y = Vec::with_capacity(frame.len());
    for i in 0..frame.len() {
        let act = on[i]
            && within(oat[i], OAT_RANGE)
            && within(mat[i], MAT_RANGE)
            && within(rat[i], RAT_RANGE)
            && within(cmd[i], (0.0, 100.0));
        let well = (rat[i] - oat[i]).abs() >= denom;
        active += act as usize;
        dropped += (act && !well) as usize;
        keep.push(act && well);
        y.push(100.0 * (rat[i] - mat[i]) / (rat[i] - oat[i]));
    }
    let share = if active > 0 { dropped as f64 / active as f64 } else { 0.0 };
    Ok((Series { x: cmd, y, keep }, share))
}

fn fit_econ(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let (s, share) = econ_series(spec, frame, params).map_err(FitError::Missing)?;
    let c = econ_comparison();
    let gates = (params.number(spec, "min_command"), MIN_SPAN);
    let mut part =
        matched::fit_part(&c, c.prefix, &frame.ts, &s, gates, gate_source(params, "min_command"), spec.judged_basis);
    part.excluded_share = Some(share);
    Ok(vec![part])
}

fn evaluate_econ(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let c = econ_comparison();
    let (s, share) = match econ_series(spec, frame, params) {
        Ok(v) => v,
        Err(missing) => return Outcome::Skipped { missing },
    };
    let Some(part) = baseline.parts.iter().find(|p| p.name == c.prefix) else {
        return Outcome::Findings(vec![not_judged(spec, "the baseline holds no fit for this signal")]);
    };
    let fl = floors(spec, params, "warn_pct", "fault_pct");
    let mut j = match matched::judge_part(&c, part, &frame.ts, &s, &fl, &cusum_params(spec, params), spec.judged_basis)
    {
        Ok(j) => j,
        Err(why) => return Outcome::Findings(vec![not_judged(spec, &why)]),
    };
    let excluded = share.max(part.excluded_share.unwrap_or(0.0));
    if let Some(m) = matched::median_rounded(&s.x, &s.keep, 3) {
        j.metrics.insert("econ_damper_median_cmd_pct".into(), m);
    }
    j.metrics.insert("econ_degenerate_excluded_pct".into(), crate::engine::round2(100.0 * excluded));
    j.caveats.push("the mixed-air temperature sits in this fraction's numerator and stratifies easily; corroborate a drift with an outdoor-airflow station or a traverse before blaming the damper".into());
    if excluded > 0.0 {
        j.caveats.push(format!("{:.0}% of the fan-on samples were left out with outdoor and return air too close for a steady fraction; mild-weather coverage may be thin", 100.0 * excluded));
    }
    Outcome::Findings(vec![j.finding(spec, &c, &fl, None)])
}

// ---------------------------------------------------------------- coil valves

impl Coil {
    /// The air entering and leaving in the order whose difference is positive when the coil works.
    fn warm_cool(self) -> (&'static str, &'static str) {
        match self {
            Coil::Cooling => (MAT, SAT),
            Coil::Heating => (SAT, MAT),
        }
    }
    fn water(self) -> &'static str {
        match self {
            Coil::Cooling => "chw_supply_temp",
            Coil::Heating => "hw_supply_temp",
        }
    }
    /// The direction of a water-supply shift that alone needs more valve.
    fn water_sign(self) -> f64 {
        match self {
            Coil::Cooling => 1.0,
            Coil::Heating => -1.0,
        }
    }
    fn comparison(self) -> Comparison {
        let (prefix, label) = match self {
            Coil::Cooling => ("coil_valve_cooling", "the cooling-coil valve"),
            Coil::Heating => ("coil_valve_heating", "the heating-coil valve"),
        };
        Comparison {
            prefix,
            unit_key: "pct",
            side: Side::Up,
            range: (0.0, 100.0),
            names: ("coil air ΔT", self.valve()),
            load_word: "coil air ΔT",
            wording: Wording { label, unit: "%", decimals: 0, matched: "matched air ΔT", cause_up: "the coil needs more valve for the same air ΔT (fouling, waterside starvation, air bypass, or lost valve authority)", cause_down: "" },
        }
    }
}

/// The declaration of `coil_valve_drift`.
pub(super) fn coil_valve_spec() -> DetectorSpec {
    let [ws, fs] = sigma_params("σ", 4.0);
    let mut params = vec![
        ParamSpec::number("warn_pct", 8.0, "% of valve stroke", (2.0, 30.0),
            "a coarse backstop under the sigma floor, which carries the verdict since a valve's slope against ΔT varies with its size and authority (the reference's screening level)",
            "Judge one known-good window against a baseline fitted on another and set it above the creep that shows; a warning needs both this and warn_sigma."),
        ParamSpec::number("fault_pct", 15.0, "% of valve stroke", (4.0, 50.0),
            "a screening backstop for a coil that clearly lost capacity",
            "About twice warn_pct."),
        ws, fs,
        ParamSpec::number("water_confound", 2.0, "°F", (0.5, 10.0),
            "warmer chilled water or cooler hot water by this much needs more valve for the same ΔT with no fouling",
            "Set it a little above the supply water's own scatter. It adds a caveat only."),
    ];
    params.extend(super::cusum_param_specs());
    params.push(ParamSpec::number(
        "min_deltat",
        3.0,
        "°F",
        (0.5, 15.0),
        "a coil moving the air less than this is barely working and its valve says nothing about its condition",
        "Raise it on a unit whose mixed and supply air sensors disagree by more than this with the coil idle.",
    ));
    params.push(ParamSpec::number(
        "valve_deadband",
        5.0,
        "% of valve stroke",
        (0.0, 20.0),
        "a valve at or under this is shut: the coil is not working",
        "Set it just above what the valve reads when the controls hold it shut.",
    ));
    params.push(ParamSpec::number("econ_damper_open", 25.0, "% of damper stroke", (5.0, 100.0),
        "an outdoor-air damper open past this is economizing, and the cooling valve then answers the mixed-air loop rather than the coil's duty",
        "Set it a little above the damper's minimum-ventilation position."));
    DetectorSpec {
        id: "coil_valve_drift",
        drift_family: "ahu",
        families: &["air_handler", "fan_coil"],
        inputs: Inputs {
            required: &[MAT, SAT],
            optional: &["cool_valve", "heat_valve", "chw_supply_temp", "hw_supply_temp", ECON_CMD, OA_DAMPER, STATUS],
            gating: &[],
            one_of: &[&["cool_valve", "heat_valve"]],
            needs_gating: false,
        },
        params,
        unit: "% of valve stroke",
        side: Side::Up,
        description: "Each coil's valve position against its baseline at matched air ΔT across the coil: a valve that opens further for the same ΔT is a coil losing heat transfer (fouling, waterside starvation, lost valve authority).",
        judged_basis: "fan-on samples with the coil's valve open",
        kind: Kind { fit: fit_coils, evaluate: evaluate_coils },
    }
}

/// A coil's valve against its air ΔT, the kept samples, and the share of working samples left
/// out as economizing (cooling only).
fn coil_series(spec: &DetectorSpec, frame: &Frame, params: &Params, coil: Coil) -> Option<(Series, f64)> {
    let (warm, cool) = coil.warm_cool();
    let (w, c, v) = (col(frame, warm)?, col(frame, cool)?, col(frame, coil.valve())?);
    let y = as_percent(v);
    let x: Vec<f64> = w.iter().zip(c).map(|(a, b)| a - b).collect();
    let on = running(frame, col(frame, STATUS), 0.5);
    let deadband = params.number(spec, "valve_deadband");
    let mut keep: Vec<bool> =
        (0..frame.len()).map(|i| on[i] && y[i] > deadband && x[i] >= 0.5 && x[i] <= 60.0).collect();
    let mut econ = vec![false; frame.len()];
    if coil == Coil::Cooling {
        if let Some(e) = col(frame, ECON_CMD) {
            econ.iter_mut().zip(e).for_each(|(k, &v)| *k |= v >= 0.5);
        }
        if let Some(d) = col(frame, OA_DAMPER) {
            let open = params.number(spec, "econ_damper_open");
            econ.iter_mut().zip(as_percent(d)).for_each(|(k, v)| *k |= v > open);
        }
    }
    let working = keep.iter().filter(|k| **k).count();
    let stolen = keep.iter().zip(&econ).filter(|(k, e)| **k && **e).count();
    keep.iter_mut().zip(&econ).for_each(|(k, e)| *k &= !e);
    let share = if working > 0 { stolen as f64 / working as f64 } else { 0.0 };
    Some((Series { x, y, keep }, share))
}

fn coil_missing(frame: &Frame) -> Vec<String> {
    let mut m = missing(frame, &[MAT, SAT]);
    if COILS.iter().all(|c| col(frame, c.valve()).is_none()) {
        m.push("cool_valve or heat_valve".into());
    }
    m
}

fn fit_coils(spec: &DetectorSpec, frame: &Frame, params: &Params) -> Result<Vec<Part>, FitError> {
    let m = coil_missing(frame);
    if !m.is_empty() {
        return Err(FitError::Missing(m));
    }
    let gates = (params.number(spec, "min_deltat"), MIN_SPAN);
    let mut parts = Vec::new();
    for coil in COILS.into_iter().filter(|c| col(frame, c.valve()).is_some()) {
        let Some((s, share)) = coil_series(spec, frame, params, coil) else { continue };
        let c = coil.comparison();
        let mut part = matched::fit_part(
            &c,
            coil.name(),
            &frame.ts,
            &s,
            gates,
            gate_source(params, "min_deltat"),
            spec.judged_basis,
        );
        part.excluded_share = Some(share);
        part.confound_median = col(frame, coil.water()).and_then(|w| median_kept(w, &vec![true; frame.len()]));
        parts.push(part);
    }
    Ok(parts)
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Ok | Severity::Info => "ok",
        Severity::Warn => "warn",
        Severity::Fault => "fault",
    }
}

/// The rank the roll-up reads from a per-coil grade metric (0 ok, 1 warn, 2 fault).
pub(super) fn grade_rank(s: Severity) -> f64 {
    match s {
        Severity::Ok | Severity::Info => 0.0,
        Severity::Warn => 1.0,
        Severity::Fault => 2.0,
    }
}

/// A coil's verdict and its flagged samples.
type CoilJudged = (matched::Judged, Vec<u32>);

fn evaluate_coils(spec: &DetectorSpec, baseline: &Baseline, frame: &Frame, params: &Params) -> Outcome {
    let m = coil_missing(frame);
    if !m.is_empty() {
        return Outcome::Skipped { missing: m };
    }
    let fl = floors(spec, params, "warn_pct", "fault_pct");
    let cp = cusum_params(spec, params);
    let all = vec![true; frame.len()];
    let (mut metrics, mut caveats) = (BTreeMap::new(), Vec::new());
    let mut verdicts: Vec<(Coil, Result<CoilJudged, String>)> = Vec::new();
    for coil in COILS.into_iter().filter(|c| col(frame, c.valve()).is_some()) {
        let c = coil.comparison();
        let judged = (|| -> Result<CoilJudged, String> {
            let part = baseline
                .parts
                .iter()
                .find(|p| p.name == coil.name())
                .ok_or("the baseline window had no valve command for it")?;
            let (s, share) = coil_series(spec, frame, params, coil).ok_or("its sensors have no samples")?;
            let mut j = matched::judge_part(&c, part, &frame.ts, &s, &fl, &cp, spec.judged_basis)?;
            let p = c.prefix;
            j.metrics.insert(format!("{p}_grade"), grade_rank(j.severity));
            if let Some(m) = matched::median_rounded(&s.x, &s.keep, 3) {
                j.metrics.insert(format!("{p}_deltat_median_f"), m);
            }
            let excluded = share.max(part.excluded_share.unwrap_or(0.0));
            j.metrics.insert(format!("{p}_econ_excluded_pct"), crate::engine::round2(100.0 * excluded));
            if let Some(sh) = matched::shift(part.confound_median, col(frame, coil.water()), &all, 3) {
                j.metrics.insert(format!("{p}_water_supply_shift_f"), sh);
                if j.score.drift >= 0.0 && coil.water_sign() * sh >= params.number(spec, "water_confound") {
                    let worse = if coil == Coil::Cooling { "warmer" } else { "colder" };
                    j.caveats.push(format!("the supply water ran {sh:+.1} °F ({worse}) over the same windows, which alone needs more valve for the same ΔT: part of this creep may be a waterside reset rather than the coil; check the plant's setpoint"));
                }
            }
            if coil == Coil::Cooling && j.severity >= Severity::Warn {
                j.caveats.push("the air ΔT is sensible only: a humid month makes the cooling coil do latent work it does not show, which needs more valve too; read the creep against the season".into());
            }
            let flagged = j.flagged(&c, &fl);
            Ok((j, flagged))
        })();
        verdicts.push((coil, judged));
    }
    let reasons: Vec<String> =
        verdicts.iter().filter_map(|(c, v)| v.as_ref().err().map(|e| format!("{} coil: {e}", c.name()))).collect();
    let worst = verdicts
        .iter()
        .filter_map(|(c, v)| v.as_ref().ok().map(|j| (*c, j)))
        .max_by(|a, b| a.1 .0.severity.cmp(&b.1 .0.severity).then(a.1 .0.score.drift.total_cmp(&b.1 .0.score.drift)));
    let Some((coil, (wj, _))) = worst else {
        return Outcome::Findings(vec![not_judged(spec, &reasons.join("; "))]);
    };
    let mut summary = wj.summary(&coil.comparison(), &fl, spec.judged_basis);
    for (c, v) in &verdicts {
        if let (true, Ok((j, _))) = (*c != coil, v) {
            summary.push_str(&format!("; the {} coil: {}", c.name(), severity_word(j.severity)));
        }
    }
    let severity = wj.severity;
    let w = frame.weights_hours();
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx);
    let (mut all_judged, mut all_flagged, mut conditions) = (Vec::new(), Vec::new(), Vec::new());
    for (c, v) in verdicts {
        match v {
            Ok((j, flagged)) => {
                metrics.extend(j.metrics);
                caveats.extend(j.caveats.into_iter().map(|s| format!("{} coil: {s}", c.name())));
                all_judged.extend_from_slice(&j.score.idx);
                all_flagged.extend_from_slice(&flagged);
                conditions.push(Condition {
                    name: format!("{}_creep", c.name()),
                    judged: j.score.idx.len(),
                    judged_hours: hours(&j.score.idx),
                    flagged_hours: hours(&flagged),
                    flagged,
                });
            }
            Err(e) => {
                caveats.push(format!("not judged: {} coil: {e}", c.name()));
                conditions.push(Condition {
                    name: format!("{}_creep", c.name()),
                    flagged: Vec::new(),
                    judged: 0,
                    judged_hours: 0.0,
                    flagged_hours: 0.0,
                });
            }
        }
    }
    if col(frame, ECON_CMD).is_none() && col(frame, OA_DAMPER).is_none() && col(frame, "cool_valve").is_some() {
        caveats.push("no economizer command or outdoor-air damper is trended, so free-cooling hours could not be left out of the cooling coil; its valve then answers the mixed-air loop".into());
    }
    caveats.push(matched::PROVISIONAL.into());
    metrics.insert("thresholds_provisional".into(), 1.0);
    all_judged.sort_unstable();
    all_judged.dedup();
    all_flagged.sort_unstable();
    all_flagged.dedup();
    Outcome::Findings(vec![Finding::of(spec.id, spec.judged_basis, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(all_flagged)
        .with_judged(all_judged.len())
        .with_conditions(conditions)])
}

// ---------------------------------------------------------------- the family's roll-up

/// A drifting signal in the roll-up: its severity, its cause and the side of the unit it is on.
struct Cause {
    severity: Severity,
    cause: String,
    side: &'static str,
}

/// The coils a per-coil finding grades at warn or worse, from its `<prefix>_<coil>_grade` metrics.
fn drifting_coils(f: &Finding, prefix: &str) -> Vec<(&'static str, Severity)> {
    COILS
        .iter()
        .filter_map(|c| {
            let g = f.metrics.get(&format!("{prefix}_{}_grade", c.name())).copied().unwrap_or(0.0);
            let s = if g >= 2.0 {
                Severity::Fault
            } else if g >= 1.0 {
                Severity::Warn
            } else {
                return None;
            };
            Some((c.name(), s))
        })
        .collect()
}

/// The `ahu` family's roll-up. Unlike [`super::families::by_locus`] it reads the signals together:
/// a fan-power excess alongside a loading filter or a rising duct static points at the air path
/// the fan fights, not the fan; alongside a falling static, at the fan (working harder yet losing
/// static); with a steady filter and static, at the fan itself; with neither trended, it cannot
/// tell and says so. The locus is the side of the unit that drifts (`fan`, `air_path`, `coil`,
/// `outdoor_air`), `ahu_wide` when more than one does, or `steady`. The severity is the worst
/// judged finding's; two drifting signals corroborate each other, which a caveat says, but never
/// raise it.
pub(super) fn diagnose(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let judged: Vec<(&str, &Finding)> = findings.iter().filter(|(_, f)| f.judged > 0).copied().collect();
    let mut caveats: Vec<String> = findings
        .iter()
        .filter(|(_, f)| f.judged == 0)
        .map(|(d, f)| format!("{d} did not judge: {}", f.summary))
        .collect();
    let get = |id: &str| judged.iter().find(|(d, _)| *d == id).map(|(_, f)| *f);
    let drifting = |f: &Finding| f.severity >= Severity::Warn;
    let mut causes: Vec<Cause> = Vec::new();
    let filter = get("filter_loading_drift");
    let filter_loading = filter.is_some_and(drifting);
    if let Some(f) = filter.filter(|f| drifting(f)) {
        causes.push(Cause { severity: f.severity, cause: "the air filter is loading".into(), side: "air_path" });
    }
    let stat = get("duct_static_drift");
    let static_drift = stat
        .filter(|f| drifting(f))
        .map(|f| (f, f.metrics.get("duct_static_drift_inwc").copied().unwrap_or(0.0) >= 0.0));
    if let Some((f, up)) = static_drift {
        let (cause, side) = if up {
            (
                "the duct is over-pressurized (a static sensor reading low, a stuck damper, or demand that fell)",
                "air_path",
            )
        } else {
            ("the fan no longer holds its duct static (fan or belt degradation, or duct leakage)", "fan")
        };
        causes.push(Cause { severity: f.severity, cause: cause.into(), side });
    }
    if let Some(f) = get("fan_efficiency_drift").filter(|f| drifting(f)) {
        const FAN: &str = "the fan itself is degrading (belt slip, bearing drag, motor or drive)";
        let (cause, side, note) = if filter_loading || static_drift.is_some_and(|(_, up)| up) {
            ("the fan's extra power fights added air-path resistance (a loading filter or a rising static): fix the air path first", "air_path", "the fan-power excess moves with a loading filter or a rising duct static: the fan is fighting added resistance rather than degrading")
        } else if static_drift.is_some() {
            (FAN, "fan", "the fan draws more power yet holds less static: fan or drivetrain degradation")
        } else if filter.is_some() || stat.is_some() {
            (FAN, "fan", "the fan-power excess comes with a steady filter and duct static: it isolates to the fan")
        } else {
            ("the fan draws more power: the fan degrading, or air-path resistance nothing here measures", "fan", "no filter pressure drop or duct static was judged, so a degrading fan cannot be told from added air-path resistance")
        };
        causes.push(Cause { severity: f.severity, cause: cause.into(), side });
        caveats.push(note.into());
    }
    for (id, what) in [("coil_valve_drift", "coil_valve"), ("coil_leak_drift", "coil_leak")] {
        if let Some(f) = get(id) {
            for (coil, sev) in drifting_coils(f, what) {
                let cause = if what == "coil_valve" {
                    format!("the {coil} coil is losing heat transfer (fouling, waterside starvation, air bypass, lost valve authority)")
                } else {
                    format!("the {coil}-coil valve passes water while commanded shut (or a supply or mixed-air sensor shifted)")
                };
                causes.push(Cause { severity: sev, cause, side: "coil" });
            }
        }
    }
    if let Some(f) = get("economizer_damper_drift").filter(|f| drifting(f)) {
        let up = f.metrics.get("econ_oa_fraction_drift_pct").copied().unwrap_or(0.0) >= 0.0;
        let cause = if up {
            "the economizer lets in too much outdoor air (damper leaking, stuck or slipping open)"
        } else {
            "the economizer lets in too little outdoor air (damper stuck or slipping closed)"
        };
        causes.push(Cause { severity: f.severity, cause: cause.into(), side: "outdoor_air" });
    }
    causes.sort_by_key(|c| std::cmp::Reverse(c.severity));
    let mut loci: Vec<String> = Vec::new();
    for c in &causes {
        if !loci.iter().any(|l| l == c.side) {
            loci.push(c.side.to_string());
        }
    }
    let ahu_wide = loci.len() > 1;
    if causes.len() > 1 {
        caveats.push("several air-side signals drift together: a more specific diagnosis, still a screening one; confirm it on a walkdown".into());
    }
    if ahu_wide {
        caveats.push("more than one part of the unit (fan, air path, coils, outdoor air) drifts: a cause common to the whole unit is likelier than one component".into());
    }
    let severity = judged.iter().map(|(_, f)| f.severity).max().unwrap_or(Severity::Info);
    let locus = match (causes.is_empty(), ahu_wide) {
        (true, _) => "steady".to_string(),
        (false, true) => "ahu_wide".to_string(),
        (false, false) => loci[0].clone(),
    };
    let summary = if causes.is_empty() {
        format!("{equip}: no {} drift on {} check(s)", family.name, judged.len())
    } else {
        let list: Vec<&str> = causes.iter().map(|c| c.cause.as_str()).collect();
        format!("{equip}: air-side drift ({}): {}", locus.replace('_', " "), list.join("; "))
    };
    let signals = judged.iter().map(|(d, f)| (d.to_string(), (f.severity, f.summary.clone()))).collect();
    Diagnosis {
        family: family.name.into(),
        equip: equip.into(),
        severity,
        locus,
        loci,
        summary,
        signals,
        caveats,
        causes: causes.into_iter().map(|c| c.cause).collect(),
    }
}

#[cfg(test)]
mod tests;
