//! `dx_refrigerant_charge`: a DX unit's or heat pump's refrigerant charge from its liquid
//! subcooling. On a unit with a thermostatic or electronic expansion valve the valve holds the
//! suction superheat, so the charge shows in the subcooling: refrigerant lost is liquid lost
//! from the condenser (subcooling falls, at the extreme the valve is fed flash gas), refrigerant
//! added backs liquid up into it (subcooling rises). A fixed-orifice unit is charged by
//! superheat instead (`metric`), which rises on a low charge. Only cooling operation is judged:
//! compressor running (when trended), reversing valve in cooling (when trended) and supply air
//! below return air (when both are trended); a unit with neither a compressor status nor that
//! air pair is declined, since its off-cycle readings would be judged too.
//!
//! Against a manufacturer's target (`targets`) the median is a warning outside `tolerance_f`
//! and a fault outside twice it; with no target only the universal subcooling limits apply,
//! each a warning. [`evaluate_periods`] instead compares a period with a fault-free reference
//! of the same unit fitted on outdoor and return air, judging the median residual against both
//! a °F floor and a multiple of the reference's scatter. Condenser faults move subcooling too,
//! so a verdict is a prompt to check the charge and the condenser coil, not a diagnosis.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{
    median, round2, Finding, Frame, Inputs, Needs, Outcome, ParamSpec, ParamValue, Params, Rule, RuleSpec, Severity,
};

/// Plausible readings (°F): outside them a sample is a sensor fault, not a charge.
const SUBCOOLING_BOUNDS: (f64, f64) = (-20.0, 80.0);
const SUPERHEAT_BOUNDS: (f64, f64) = (-20.0, 150.0);
/// A superheat this far (°F) above its target (or its reference) backs a low-charge reading.
const CORROBORATE_SH_F: f64 = 2.0;
/// Outdoor-air span (°F) under which the reference is a flat level, not a slope.
const MIN_OAT_SPAN_F: f64 = 5.0;
/// Return-air 5-95 % spread (°F) under which it is not used as a second regressor.
const MIN_COVARIATE_SPAN_F: f64 = 2.0;
/// Share of scored samples outside the reference's conditions that makes the drift extrapolated.
const EXTRAPOLATED_SHARE: f64 = 0.10;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate).with_needs(needs);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "dx_refrigerant_charge",
        families: &["air_handler", "dx", "heat_pump"],
        inputs: Inputs {
            required: &["subcooling_temp"],
            optional: &["superheat_temp", "oat", "return_air_temp", "supply_air_temp", "compressor_status", "reversing_valve_cmd"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::flag("freeze_if_missing", true,
                "a first comparison with no stored reference fits one from the fault-free period it is given",
                "Keep it on for a first run on a known-good period; turn it off once references are stored, so a later run cannot take a faulty period as the reference. Used by evaluate_periods only."),
            ParamSpec {
                name: "targets",
                default: ParamValue::Map(BTreeMap::new()),
                unit: "°F, named: subcooling_f, superheat_f, tolerance_f (for every unit, or keyed by equipment patterns)",
                range: Some((5.0, 20.0)),
                choices: &["subcooling_f", "superheat_f", "tolerance_f"],
                basis: "the nameplate or installation manual gives the subcooling (or, for a fixed orifice, the superheat) the unit is charged to",
                calibrate: "Copy the charging target from the manufacturer's chart at the conditions the unit mostly runs in, with the target superheat beside it to cross-check a low charge and the manual's tolerance if it differs: {\"subcooling_f\": 10, \"superheat_f\": 8}. Different models: key the targets by equipment patterns ({\"RTU-1*\": {...}}). Taking them from the trend being judged is circular. Unset: only the universal subcooling limits apply, and metric superheat declines.",
            },
            ParamSpec::number("tolerance_f", 3.0, "°F (either side of the target)", (1.0, 5.0),
                "manufacturers' charging instructions commonly allow about 3 °F either side of the target",
                "Use the tolerance printed in the unit's charging instructions. Target mode: a warning outside it, a fault outside twice it."),
            ParamSpec {
                name: "metric",
                default: ParamValue::Choice("subcooling".into()),
                unit: "choice",
                range: None,
                choices: &["subcooling", "superheat"],
                basis: "expansion-valve units are charged by subcooling, fixed-orifice (piston) units by superheat",
                calibrate: "Choose superheat for a piston unit whose charging chart is by superheat; otherwise keep subcooling.",
            },
            ParamSpec::number("warn_f", 3.0, "°F (median residual against the reference)", (1.5, 6.0),
                "a screening floor: smaller drifts are within what a healthy unit wanders at matched weather",
                "Score a held-out part of a known-good period against its own reference and set the floor above its largest residual. Used by evaluate_periods only."),
            ParamSpec::number("fault_f", 5.0, "°F (median residual against the reference)", (3.0, 10.0),
                "a screening floor for a drift that a real charge loss produces",
                "Keep it clear of warn_f; about the drift a 10-15 % charge loss gives this unit, if a charging test tells you. Used by evaluate_periods only."),
            ParamSpec::number("warn_sigma", 1.5, "σ (standard deviations of the reference's residual)", (1.0, 4.0),
                "a noisy reference needs a larger drift before it means anything",
                "Raise it if a held-out part of the fault-free period trips the warning. Used by evaluate_periods only."),
            ParamSpec::number("fault_sigma", 3.0, "σ (standard deviations of the reference's residual)", (2.0, 6.0),
                "as warn_sigma, for a fault",
                "Keep it about twice warn_sigma. Used by evaluate_periods only."),
            ParamSpec::number("min_samples", 10.0, "count (cooling-mode rows)", (5.0, 200.0),
                "the fewest readings whose median is worth reporting",
                "Raise it for minute data, where ten rows are a few minutes of running; keep it low for hourly or averaged points."),
            ParamSpec::number("min_baseline_samples", 30.0, "count (cooling-mode rows)", (20.0, 1000.0),
                "the fewest fault-free readings for a fit on outdoor and return air",
                "Make the fault-free period span the weather the unit will be judged in; raise it if the fitted slopes look unstable. Used by evaluate_periods only."),
            ParamSpec::number("min_subcooling_f", 2.0, "°F", (0.0, 5.0),
                "below about 2 °F of subcooling an expansion valve is fed flash gas",
                "Only for units with no target (set a target where the nameplate gives one); below it is a low-charge warning."),
            ParamSpec::number("max_subcooling_f", 25.0, "°F", (15.0, 35.0),
                "no charging target sits near 25 °F of subcooling",
                "Only for units with no target; a unit designed for unusually high subcooling needs a target instead."),
        ],
        judged_basis: "cooling-mode samples (compressor running, supply air below return air)",
    }
}

/// The role read for the charging metric.
fn metric_role(metric: &str) -> &'static str {
    if metric == "superheat" {
        "superheat_temp"
    } else {
        "subcooling_temp"
    }
}

/// What the rule needs: the point of the charge metric it judges (`metric`).
pub fn needs(spec: &RuleSpec, params: &Params) -> Needs {
    Needs { required: vec![metric_role(&params.choice(spec, "metric"))], ..Needs::default() }
}

/// Whether the frame can tell compressor-running samples from off-cycle ones.
fn has_run_gate(frame: &Frame) -> bool {
    frame.col("compressor_status").is_some()
        || (frame.col("return_air_temp").is_some() && frame.col("supply_air_temp").is_some())
}

/// Whether each sample is cooling operation, from whichever gates are trended.
fn cooling_rows(frame: &Frame) -> Vec<bool> {
    let (comp, rv) = (frame.col("compressor_status"), frame.col("reversing_valve_cmd"));
    let (rat, sat) = (frame.col("return_air_temp"), frame.col("supply_air_temp"));
    (0..frame.len())
        .map(|i| {
            comp.is_none_or(|c| c[i] > 0.5)
                && rv.is_none_or(|r| r[i] < 0.5)
                && match (rat, sat) {
                    (Some(r), Some(s)) => r[i] - s[i] > 0.0,
                    _ => true,
                }
        })
        .collect()
}

/// A low charge or a surplus, from the sign of the metric's deviation.
fn low_charge(metric: &str, deviation: f64) -> bool {
    (deviation < 0.0) != (metric == "superheat")
}

/// Why the unit cannot be judged, as an info finding with the reason in its caveats.
fn declined(spec: &RuleSpec, why: &str, mut caveats: Vec<String>) -> Outcome {
    let mut f = Finding::not_judged(spec, why);
    caveats.append(&mut f.caveats);
    f.caveats = caveats;
    Outcome::Findings(vec![f])
}

/// Evaluate one equipment's frame against its target (or, with none, the universal limits).
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let metric = params.choice(spec, "metric");
    let values = frame.required(metric_role(&metric));
    let targets = params.map(spec, "targets");
    let target = targets.get(if metric == "superheat" { "superheat_f" } else { "subcooling_f" }).copied();
    if target.is_none() && metric == "superheat" {
        return declined(
            spec,
            "no target superheat for this unit (set targets from the nameplate, or compare with a fault-free period)",
            Vec::new(),
        );
    }
    if !has_run_gate(frame) {
        return declined(spec, "no compressor status, nor return and supply air, to tell cooling operation from off cycles (map compressor_status)", Vec::new());
    }
    let cooling = cooling_rows(frame);
    let (lo, hi) = if metric == "superheat" { SUPERHEAT_BOUNDS } else { SUBCOOLING_BOUNDS };
    let rows: Vec<u32> =
        (0..frame.len()).filter(|&i| cooling[i] && values[i] >= lo && values[i] <= hi).map(|i| i as u32).collect();
    let min_samples = params.number(spec, "min_samples");
    if (rows.len() as f64) < min_samples {
        return declined(
            spec,
            &format!("{} cooling-mode {metric} readings ({min_samples} needed)", rows.len()),
            Vec::new(),
        );
    }
    let med = median(&mut rows.iter().map(|&i| values[i as usize]).collect::<Vec<_>>());
    let mut metrics = BTreeMap::new();
    let mut caveats = Vec::new();
    metrics.insert(format!("{metric}_median_f"), round2(med));
    metrics.insert("n_cooling_rows".into(), rows.len() as f64);
    let (severity, verdict, summary) = match target {
        Some(t) => {
            let tol = targets.get("tolerance_f").copied().unwrap_or_else(|| params.number(spec, "tolerance_f"));
            let dev = med - t;
            let severity = if dev.abs() >= 2.0 * tol {
                Severity::Fault
            } else if dev.abs() >= tol {
                Severity::Warn
            } else {
                Severity::Ok
            };
            metrics.insert(format!("target_{metric}_f"), t);
            metrics.insert("tolerance_f".into(), tol);
            metrics.insert("deviation_f".into(), round2(dev));
            let verdict = (severity > Severity::Ok).then(|| low_charge(&metric, dev));
            let summary = match verdict {
                None => format!("{metric} median {med:.1} °F, within {tol} °F of its {t} °F target: the charge looks right"),
                Some(low) => format!(
                    "{metric} median {med:.1} °F against a {t} °F target ({dev:+.1} °F): {}? check the charge and the condenser coil",
                    if low { "low charge" } else { "overcharge" }
                ),
            };
            (severity, verdict, summary)
        }
        None => {
            let (min, max) = (params.number(spec, "min_subcooling_f"), params.number(spec, "max_subcooling_f"));
            caveats.push(format!("no target subcooling for this unit: judged only against the universal limits ({min}-{max} °F); set targets from the nameplate for a charge verdict"));
            metrics.insert("min_subcooling_f".into(), min);
            metrics.insert("max_subcooling_f".into(), max);
            if med < min {
                (Severity::Warn, Some(true), format!("liquid subcooling median only {med:.1} °F: the liquid line is barely subcooled and the valve sees flash gas (low charge or a liquid-line restriction)"))
            } else if med > max {
                (Severity::Warn, Some(false), format!("liquid subcooling median {med:.1} °F: liquid is backing up in the condenser (overcharge or a condenser-side problem)"))
            } else {
                (Severity::Ok, None, format!("liquid subcooling median {med:.1} °F, within the universal limits"))
            }
        }
    };
    metrics.insert("low_charge".into(), if verdict == Some(true) { 1.0 } else { 0.0 });
    if metric == "subcooling" {
        match frame.col("superheat_temp") {
            None => caveats.push("no superheat trended: a low-charge reading is not cross-checked".into()),
            Some(sh) => {
                let sh_med = median(&mut rows_of(&cooling, sh));
                if !sh_med.is_nan() {
                    metrics.insert("superheat_median_f".into(), round2(sh_med));
                    if let (Some(&t_sh), Some(true)) = (targets.get("superheat_f"), verdict) {
                        metrics.insert("target_superheat_f".into(), t_sh);
                        metrics.insert(
                            "superheat_corroborates".into(),
                            if sh_med - t_sh >= CORROBORATE_SH_F { 1.0 } else { 0.0 },
                        );
                    }
                }
            }
        }
    }
    let flagged = if severity > Severity::Ok { rows.clone() } else { Vec::new() };
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(rows.len())])
}

/// The known values of `c` on the cooling rows.
fn rows_of(cooling: &[bool], c: &[f64]) -> Vec<f64> {
    c.iter().zip(cooling).filter(|(v, k)| **k && !v.is_nan()).map(|(v, _)| *v).collect()
}

/// A fault-free reference for one metric: `metric ≈ intercept + oat_slope·OAT +
/// rat_slope·(RAT - rat_ref)`, fitted on a known-good period's cooling rows. A period whose
/// outdoor air hardly moved gives a level (no slope) valid only near the weather it saw.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reference {
    /// Cooling rows fitted.
    pub n: usize,
    /// °F at 0 °F outdoor air and the mean return air.
    pub intercept: f64,
    /// °F per °F of outdoor air (0 for a level).
    pub oat_slope: f64,
    /// Whether return air is a second regressor (it moved enough in the period).
    pub uses_rat: bool,
    /// °F per °F of return air away from `rat_ref`.
    pub rat_slope: f64,
    /// The period's mean return air (°F).
    pub rat_ref: f64,
    /// The return air (°F) the period saw, lowest and highest.
    pub rat_range: (f64, f64),
    /// The outdoor air (°F) the period saw, lowest and highest.
    pub oat_range: (f64, f64),
    /// Level model only: how far (°F) beyond `oat_range` it may still score.
    pub level_band: Option<f64>,
    /// Standard deviation of the fit's residual (°F).
    pub sigma: f64,
}

/// The usable cooling rows of a frame for a fit or a score: (oat, metric, rat).
fn usable(frame: &Frame, role: &str, bounds: (f64, f64)) -> Vec<(f64, f64, f64)> {
    let (Some(oat), Some(m)) = (frame.col("oat"), frame.col(role)) else { return Vec::new() };
    let rat = frame.col("return_air_temp");
    let cooling = cooling_rows(frame);
    (0..frame.len())
        .filter(|&i| cooling[i] && !oat[i].is_nan() && m[i] >= bounds.0 && m[i] <= bounds.1)
        .map(|i| (oat[i], m[i], rat.map_or(f64::NAN, |r| r[i])))
        .collect()
}

/// The `q`-quantile (0-1) of sorted values, linearly interpolated.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let (k, frac) = (pos.floor() as usize, pos - pos.floor());
    sorted[k] + frac * (sorted[(k + 1).min(sorted.len() - 1)] - sorted[k])
}

/// Least squares on up to three regressors (columns of `x`, an intercept first): the
/// coefficients, or `None` when the design is singular.
fn solve(x: &[[f64; 3]], y: &[f64], k: usize) -> Option<[f64; 3]> {
    let mut a = [[0.0f64; 4]; 3];
    for (row, &yv) in x.iter().zip(y) {
        for r in 0..k {
            for c in 0..k {
                a[r][c] += row[r] * row[c];
            }
            a[r][3] += row[r] * yv;
        }
    }
    let scale = (0..k).map(|r| a[r][r].abs()).fold(0.0, f64::max);
    for col in 0..k {
        let pivot = (col..k).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col].abs() <= 1e-10 * scale.max(1e-300) {
            return None;
        }
        a.swap(col, pivot);
        let p = a[col];
        for (r, row) in a.iter_mut().enumerate().take(k) {
            if r != col {
                let f = row[col] / p[col];
                row.iter_mut().zip(p).skip(col).for_each(|(x, pv)| *x -= f * pv);
            }
        }
    }
    let mut out = [0.0; 3];
    for r in 0..k {
        out[r] = a[r][3] / a[r][r];
    }
    Some(out)
}

/// Fit a reference on `rows`; `with_rat` adds return air as a second regressor when it moved.
fn fit_rows(rows: &[(f64, f64, f64)], with_rat: bool) -> Option<Reference> {
    let n = rows.len();
    let (oat_lo, oat_hi) = rows.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), r| (a.min(r.0), b.max(r.0)));
    let slope = oat_hi - oat_lo >= MIN_OAT_SPAN_F;
    let (mut rat_ref, mut rat_range) = (0.0, (0.0, 0.0));
    if with_rat {
        let mut r: Vec<f64> = rows.iter().map(|r| r.2).collect();
        r.sort_by(f64::total_cmp);
        let spread = quantile(&r, 0.95) - quantile(&r, 0.05);
        if spread.is_nan() || spread <= 0.0 || spread < MIN_COVARIATE_SPAN_F {
            return None;
        }
        rat_ref = r.iter().sum::<f64>() / n as f64;
        rat_range = (r[0], r[n - 1]);
    }
    // columns: intercept, [oat], [rat - ref]; oat is centred for conditioning
    let oat_mean = rows.iter().map(|r| r.0).sum::<f64>() / n as f64;
    let k = 1 + slope as usize + with_rat as usize;
    let design: Vec<[f64; 3]> = rows
        .iter()
        .map(|r| {
            let mut d = [1.0, 0.0, 0.0];
            let mut j = 1;
            if slope {
                d[j] = r.0 - oat_mean;
                j += 1;
            }
            if with_rat {
                d[j] = r.2 - rat_ref;
            }
            d
        })
        .collect();
    let y: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let b = solve(&design, &y, k)?;
    let oat_slope = if slope { b[1] } else { 0.0 };
    let rat_slope = if with_rat { b[k - 1] } else { 0.0 };
    let intercept = b[0] - oat_slope * oat_mean;
    let dof = n.checked_sub(k).filter(|d| *d >= 1)?;
    let ssr: f64 = rows.iter().map(|r| (r.1 - intercept - oat_slope * r.0 - rat_slope * (r.2 - rat_ref)).powi(2)).sum();
    Some(Reference {
        n,
        intercept,
        oat_slope,
        uses_rat: with_rat,
        rat_slope,
        rat_ref,
        rat_range,
        oat_range: (oat_lo, oat_hi),
        level_band: (!slope).then_some((MIN_OAT_SPAN_F - (oat_hi - oat_lo)).max(0.0) / 2.0),
        sigma: (ssr / dof as f64).sqrt(),
    })
}

/// Fit a fault-free reference for `role` on a known-good period: with return air as a second
/// regressor when it moved enough, else on outdoor air alone. `Err` says why there is none.
pub fn fit_reference(frame: &Frame, role: &str, min_samples: usize) -> Result<Reference, String> {
    let bounds = if role == "superheat_temp" { SUPERHEAT_BOUNDS } else { SUBCOOLING_BOUNDS };
    let rows = usable(frame, role, bounds);
    let with_rat: Vec<(f64, f64, f64)> = rows.iter().copied().filter(|r| !r.2.is_nan()).collect();
    if with_rat.len() >= min_samples.max(3) {
        if let Some(r) = fit_rows(&with_rat, true) {
            return Ok(r);
        }
    }
    if rows.len() < min_samples.max(3) {
        return Err(format!(
            "{} usable cooling rows with outdoor air in the fault-free period ({} needed)",
            rows.len(),
            min_samples.max(3)
        ));
    }
    fit_rows(&rows, false).ok_or_else(|| "the fault-free period does not support a fit".to_string())
}

/// A period's drift from a reference: (median residual °F, samples scored, share outside the
/// reference's conditions).
fn drift(reference: &Reference, frame: &Frame, role: &str) -> Option<(f64, usize, f64)> {
    let bounds = if role == "superheat_temp" { SUPERHEAT_BOUNDS } else { SUBCOOLING_BOUNDS };
    let rows: Vec<(f64, f64, f64)> = usable(frame, role, bounds)
        .into_iter()
        .filter(|r| !reference.uses_rat || !r.2.is_nan())
        .filter(|r| {
            reference.level_band.is_none_or(|b| r.0 >= reference.oat_range.0 - b && r.0 <= reference.oat_range.1 + b)
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut resid: Vec<f64> = rows
        .iter()
        .map(|r| {
            r.1 - reference.intercept
                - reference.oat_slope * r.0
                - reference.rat_slope * if reference.uses_rat { r.2 - reference.rat_ref } else { 0.0 }
        })
        .collect();
    let outside = rows
        .iter()
        .filter(|r| {
            r.0 < reference.oat_range.0
                || r.0 > reference.oat_range.1
                || (reference.uses_rat && (r.2 < reference.rat_range.0 || r.2 > reference.rat_range.1))
        })
        .count() as f64
        / rows.len() as f64;
    Some((median(&mut resid), rows.len(), outside))
}

/// The references a unit is compared with: its charging metric's, and superheat's for
/// corroborating a low charge (when superheat was trended in the fault-free period).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct References {
    /// The charging metric's reference.
    pub metric: Reference,
    /// Superheat's reference (metric subcooling only).
    pub superheat: Option<Reference>,
}

/// Compare the `current` period with a fault-free reference of the same unit at matched outdoor
/// and return air. `stored` is the reference kept from an earlier run; without one it is fitted
/// on `baseline` when `freeze_if_missing` allows, and returned so the caller can keep it.
pub fn evaluate_periods(
    spec: &RuleSpec,
    stored: Option<&References>,
    baseline: &Frame,
    current: &Frame,
    params: &Params,
) -> (Outcome, Option<References>) {
    let metric = params.choice(spec, "metric");
    let role = metric_role(&metric);
    let missing = needs(spec, params).missing(current);
    if !missing.is_empty() {
        return (Outcome::Skipped { missing }, None);
    }
    let no_gate = "no compressor status, nor return and supply air, to tell cooling operation from off cycles (map compressor_status)";
    if !has_run_gate(current) || (stored.is_none() && !has_run_gate(baseline)) {
        return (declined(spec, no_gate, Vec::new()), None);
    }
    if current.col("oat").is_none() {
        return (declined(spec, "no outdoor-air temperature to match conditions on", Vec::new()), None);
    }
    let min_base = params.number(spec, "min_baseline_samples") as usize;
    let (refs, fresh) = match stored {
        Some(r) => (r.clone(), false),
        None if params.flag(spec, "freeze_if_missing") == Some(false) => {
            return (declined(spec, "no stored fault-free reference, and freeze_if_missing is off", Vec::new()), None);
        }
        None => match fit_reference(baseline, role, min_base) {
            Ok(r) => {
                let sh = (metric == "subcooling")
                    .then(|| fit_reference(baseline, "superheat_temp", min_base).ok())
                    .flatten();
                (References { metric: r, superheat: sh }, true)
            }
            Err(why) => return (declined(spec, &format!("no fault-free reference: {why}"), Vec::new()), None),
        },
    };
    let reference = &refs.metric;
    let mut caveats = Vec::new();
    if reference.uses_rat && current.col("return_air_temp").is_none() {
        return (
            declined(spec, "the reference is matched on return air, which the current period does not trend", caveats),
            fresh.then_some(refs),
        );
    }
    let min_samples = params.number(spec, "min_samples") as usize;
    let Some((d, n, outside)) = drift(reference, current, role).filter(|d| d.1 >= min_samples) else {
        return (
            declined(spec, &format!("fewer than {min_samples} scoreable cooling rows in the current period"), caveats),
            fresh.then_some(refs),
        );
    };
    let sigma = reference.sigma;
    let (warn, fault) = (
        params.number(spec, "warn_f").max(params.number(spec, "warn_sigma") * sigma),
        params.number(spec, "fault_f").max(params.number(spec, "fault_sigma") * sigma),
    );
    let severity = if d.abs() >= fault {
        Severity::Fault
    } else if d.abs() >= warn {
        Severity::Warn
    } else {
        Severity::Ok
    };
    let low = severity > Severity::Ok && low_charge(&metric, d);
    let mut metrics = BTreeMap::new();
    metrics.insert(format!("{metric}_drift_f"), round2(d));
    if sigma > 0.0 {
        metrics.insert(format!("{metric}_drift_sigma"), round2(d / sigma));
    }
    metrics.insert(format!("{metric}_reference_sigma_f"), round2(sigma));
    metrics.insert(format!("{metric}_n_current"), n as f64);
    metrics.insert("reference_uses_rat".into(), if reference.uses_rat { 1.0 } else { 0.0 });
    metrics.insert("low_charge".into(), if low { 1.0 } else { 0.0 });
    if outside > EXTRAPOLATED_SHARE {
        caveats.push(format!("{:.0}% of the current period ran outside the conditions the reference saw, so part of the drift is extrapolated", 100.0 * outside));
    }
    if metric == "subcooling" {
        match (&refs.superheat, current.col("superheat_temp")) {
            (Some(sh_ref), Some(_)) => {
                if let Some((sh_d, _, _)) = drift(sh_ref, current, "superheat_temp").filter(|x| x.1 >= min_samples) {
                    metrics.insert("superheat_drift_f".into(), round2(sh_d));
                    if low {
                        metrics
                            .insert("superheat_corroborates".into(), if sh_d >= CORROBORATE_SH_F { 1.0 } else { 0.0 });
                    }
                }
            }
            _ => caveats.push("no superheat reference: a low-charge reading is not cross-checked".into()),
        }
    }
    let summary = if severity == Severity::Ok {
        format!("{metric} {d:+.1} °F from its fault-free reference at matched conditions: the charge looks steady")
    } else {
        format!(
            "{metric} {d:+.1} °F from its fault-free reference at matched conditions ({:.1} σ): {}? check the charge and the condenser coil",
            if sigma > 0.0 { (d / sigma).abs() } else { f64::INFINITY },
            if low { "low charge" } else { "overcharge" }
        )
    };
    let finding = Finding::new(spec, severity, summary).with_caveats(caveats).with_metrics(metrics).with_judged(n);
    (Outcome::Findings(vec![finding]), fresh.then_some(refs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, H};

    /// Hourly samples of a running unit: subcooling `sc(i)`, superheat 10 °F, outdoor air
    /// swinging 75-95 °F, return air 75 °F and supply air 57 °F, the compressor on.
    fn frame(n: usize, sc: impl Fn(usize) -> f64) -> Frame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        Frame::from_rows(
            &ts,
            &[
                ("subcooling_temp", (0..n).map(&sc).collect()),
                ("superheat_temp", vec![10.0; n]),
                ("oat", (0..n).map(|i| 85.0 + 10.0 * ((i % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()).collect()),
                ("return_air_temp", vec![75.0; n]),
                ("supply_air_temp", vec![57.0; n]),
                ("compressor_status", vec![1.0; n]),
            ],
        )
    }

    fn targets(t: &[f64]) -> Params {
        let mut p = Params::default();
        let named = ["subcooling_f", "superheat_f"].iter().zip(t).map(|(k, v)| (k.to_string(), *v)).collect();
        p.values.insert("targets".into(), ParamValue::Map(named));
        p
    }

    #[test]
    fn on_target_is_ok_and_far_below_it_is_a_low_charge_fault() {
        let ok = run(&RULE, &frame(48, |i| 10.0 + (i % 3) as f64 * 0.5), &targets(&[10.0]));
        assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
        assert_eq!(ok.judged, 48);
        let low = run(&RULE, &frame(48, |_| 3.0), &targets(&[10.0, 6.0]));
        assert_eq!(low.severity, Severity::Fault);
        assert_eq!(low.metrics["low_charge"], 1.0);
        assert_eq!(low.metrics["superheat_corroborates"], 1.0, "10 °F superheat against a 6 °F target");
        assert!(low.summary.contains("low charge"), "{}", low.summary);
        let high = run(&RULE, &frame(48, |_| 17.0), &targets(&[10.0]));
        assert_eq!((high.severity, high.metrics["low_charge"]), (Severity::Fault, 0.0));
    }

    #[test]
    fn the_tolerance_boundaries() {
        let at = |v: f64| run(&RULE, &frame(48, move |_| v), &targets(&[10.0])).severity;
        assert_eq!(at(12.9), Severity::Ok);
        assert_eq!(at(13.0), Severity::Warn, "3 °F off is outside the tolerance");
        assert_eq!(at(15.9), Severity::Warn);
        assert_eq!(at(16.0), Severity::Fault, "twice the tolerance");
        assert_eq!(at(7.0), Severity::Warn);
    }

    #[test]
    fn without_a_target_only_the_universal_limits_apply() {
        let low = run(&RULE, &frame(48, |_| 1.5), &Params::default());
        assert_eq!((low.severity, low.metrics["low_charge"]), (Severity::Warn, 1.0));
        assert!(low.caveats.iter().any(|c| c.contains("universal limits")));
        assert_eq!(run(&RULE, &frame(48, |_| 2.0), &Params::default()).severity, Severity::Ok, "at the limit");
        assert_eq!(run(&RULE, &frame(48, |_| 25.5), &Params::default()).severity, Severity::Warn);
        assert_eq!(run(&RULE, &frame(48, |_| 25.0), &Params::default()).severity, Severity::Ok);
        // a fixed-orifice unit with no target is not judged
        let mut p = Params::default();
        p.values.insert("metric".into(), ParamValue::Choice("superheat".into()));
        assert_eq!(run(&RULE, &frame(48, |_| 10.0), &p).severity, Severity::Info);
        // with one, a high superheat is a low charge
        p.values.insert("targets".into(), ParamValue::Map([("superheat_f".to_string(), 5.0)].into()));
        let r = run(&RULE, &frame(48, |_| 10.0), &p);
        assert_eq!((r.severity, r.metrics["low_charge"], r.metrics["deviation_f"]), (Severity::Warn, 1.0, 5.0));
    }

    #[test]
    fn only_cooling_operation_is_judged() {
        // off-cycle readings (compressor off) would read as a dead-flat, near-zero subcooling
        let mut f = frame(48, |i| if i % 2 == 0 { 10.0 } else { 0.0 });
        f.cols.insert("compressor_status".into(), (0..48).map(|i| if i % 2 == 0 { 1.0 } else { 0.0 }).collect());
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert_eq!((r.severity, r.judged), (Severity::Ok, 24));
        // without a compressor status the air split gates instead
        f.cols.remove("compressor_status");
        f.cols.insert("supply_air_temp".into(), (0..48).map(|i| if i % 2 == 0 { 57.0 } else { 76.0 }).collect());
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).judged, 24);
        // in heating (reversing valve on) nothing is judged
        f.cols.insert("reversing_valve_cmd".into(), vec![1.0; 48]);
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).severity, Severity::Info);
        // with no gate at all the unit is declined
        f.cols.remove("supply_air_temp");
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert!(r.summary.contains("compressor_status"), "{}", r.summary);
        // the compressor off throughout: too few readings
        let mut g = frame(48, |_| 10.0);
        g.cols.insert("compressor_status".into(), vec![0.0; 48]);
        assert_eq!(run(&RULE, &g, &targets(&[10.0])).severity, Severity::Info);
    }

    #[test]
    fn gaps_duplicates_disorder_irregular_and_missing() {
        // implausible readings and gaps are dropped; nine readings are too few, ten are enough
        let f = frame(10, |i| if i == 0 { 200.0 } else { 3.0 });
        assert_eq!(run(&RULE, &f, &targets(&[10.0])).severity, Severity::Info);
        assert_eq!(run(&RULE, &frame(10, |_| 3.0), &targets(&[10.0])).severity, Severity::Fault);
        let gappy = frame(48, |i| if (10..30).contains(&i) { f64::NAN } else { 3.0 });
        assert_eq!(run(&RULE, &gappy, &targets(&[10.0])).judged, 28);
        // reversed and repeated rows, irregular spacing: the same median
        let ts: Vec<i64> = (0..30i64)
            .map(|i| i * i * 60_000_000_000)
            .rev()
            .chain((0..30i64).map(|i| i * i * 60_000_000_000))
            .collect();
        let v: Vec<f64> = (0..60).map(|i| 8.0 + (i % 30) as f64 * 0.1).collect();
        let f = Frame::from_rows(&ts, &[("subcooling_temp", v), ("compressor_status", vec![1.0; 60])]);
        let r = run(&RULE, &f, &targets(&[10.0]));
        assert_eq!(r.judged, 30);
        assert_eq!(r.metrics["subcooling_median_f"], 9.45);
        assert!(r.caveats.iter().any(|c| c.contains("no superheat")));
        // missing the metric's point
        let mut g = frame(48, |_| 10.0);
        g.cols.remove("subcooling_temp");
        assert_eq!(
            outcome(&RULE, &g, &Params::default()),
            Outcome::Skipped { missing: vec!["subcooling_temp".into()] }
        );
        let mut p = Params::default();
        p.values.insert("metric".into(), ParamValue::Choice("superheat".into()));
        g.cols.remove("superheat_temp");
        assert_eq!(outcome(&RULE, &g, &p), Outcome::Skipped { missing: vec!["superheat_temp".into()] });
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
    }

    /// Subcooling that rises 0.2 °F per °F of outdoor air, plus `offset`.
    fn weather(offset: f64) -> impl Fn(usize) -> f64 {
        move |i| {
            10.0 + offset
                + 0.2 * 10.0 * ((i % 24) as f64 / 24.0 * std::f64::consts::TAU).sin()
                + if i % 2 == 0 { 0.3 } else { -0.3 }
        }
    }

    fn periods(stored: Option<&References>, base: &Frame, cur: &Frame, p: &Params) -> (Finding, Option<References>) {
        match evaluate_periods(&spec(), stored, base, cur, p) {
            (Outcome::Findings(mut v), r) => (v.remove(0), r),
            (o, _) => panic!("{o:?}"),
        }
    }

    #[test]
    fn a_period_against_its_fault_free_reference() {
        let base = frame(96, weather(0.0));
        let (same, fitted) = periods(None, &base, &frame(48, weather(0.0)), &Params::default());
        assert_eq!(same.severity, Severity::Ok, "{}", same.summary);
        let refs = fitted.expect("a fresh reference is returned to keep");
        assert!((refs.metric.oat_slope - 0.2).abs() < 0.01, "{:?}", refs.metric);
        assert!(!refs.metric.uses_rat, "return air never moved");
        assert!(refs.superheat.is_some());
        // 2 °F down is within the floor; 4 °F a warning; 6 °F a fault, with the reference passed back in
        let drift = |d: f64| periods(Some(&refs), &Frame::default(), &frame(48, weather(d)), &Params::default()).0;
        assert_eq!(drift(-2.0).severity, Severity::Ok);
        let warn = drift(-4.0);
        assert_eq!((warn.severity, warn.metrics["low_charge"]), (Severity::Warn, 1.0));
        assert!((warn.metrics["subcooling_drift_f"] + 4.0).abs() < 0.05);
        assert_eq!(drift(-6.0).severity, Severity::Fault);
        assert_eq!(drift(6.0).metrics["low_charge"], 0.0);
        // no stored reference and freezing disabled: declined
        let mut p = Params::default();
        p.values.insert("freeze_if_missing".into(), ParamValue::Flag(Some(false)));
        let (r, kept) = periods(None, &base, &frame(48, weather(0.0)), &p);
        assert_eq!((r.severity, kept.is_none()), (Severity::Info, true));
        // too short a fault-free period
        let (r, _) = periods(None, &frame(20, weather(0.0)), &frame(48, weather(0.0)), &Params::default());
        assert!(r.summary.contains("no fault-free reference"), "{}", r.summary);
    }

    #[test]
    fn a_reference_from_steady_weather_is_a_level() {
        let flat = |n: usize, sc: f64| {
            let mut f = frame(n, move |i| sc + if i % 2 == 0 { 0.2 } else { -0.2 });
            f.cols.insert("oat".into(), vec![80.0; n]);
            f
        };
        let r = fit_reference(&flat(40, 10.0), "subcooling_temp", 30).unwrap();
        assert_eq!((r.oat_slope, r.level_band), (0.0, Some(2.5)));
        // scored only near the weather it saw: 95 °F outdoor air is out of scope
        let stored = References { metric: r, superheat: None };
        let mut hot = flat(40, 4.0);
        hot.cols.insert("oat".into(), vec![95.0; 40]);
        let (f, _) = periods(Some(&stored), &Frame::default(), &hot, &Params::default());
        assert_eq!(f.severity, Severity::Info);
        let (f, _) = periods(Some(&stored), &Frame::default(), &flat(40, 4.0), &Params::default());
        assert_eq!(f.severity, Severity::Fault);
        assert!(solve(&[[1.0, 2.0, 0.0], [1.0, 2.0, 0.0]], &[1.0, 2.0], 2).is_none(), "a singular design");
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    }
}
