//! One M&V run: for each `mv` entry, each meter of its class is aggregated to days, fitted on the
//! baseline period and, with a reporting period, measured by the entry's method; `auto` proposes
//! a method instead, and a `rebaseline` block adds the triggers. Every result is a
//! [`MvResult`]: the finding (`crate::engine::Finding`, rule id = the kind, numeric metrics) and
//! the reference-shaped metrics as JSON (the model code, the change points, the coefficients,
//! the coverage tier, the periods), so the capability can list either.

use serde_json::{json, Map, Value};

use crate::engine::{Finding, Frame, Severity};

use super::coverage::{support_of, Tier};
use super::daily::{daily, Daily, NS_PER_DAY};
use super::model::{best_model, Candidate, Form, Obs};
use super::savings::{backcast, chaining, forecast, standard_conditions, Fitted, Savings};
use super::section::{Method, MvEntry, MvSection, Window, RATE_UNITS};
use super::stats::fit_stats;

/// A meter the capability hands over: its name, its stored class and its frame (the entry's
/// role and `oat`, the latter from the config's `shared_oat` when the meter has none).
#[derive(Clone, Copy, Debug)]
pub struct Meter<'a> {
    pub name: &'a str,
    pub class: &'a str,
    pub frame: &'a Frame,
}

/// The config's unit system for reported energy: `ip` (kBtu) or `si` (kWh).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitSystem {
    Ip,
    Si,
}

impl UnitSystem {
    /// The system of a `units.system` value.
    pub fn parse(s: &str) -> Result<UnitSystem, String> {
        match s.to_lowercase().as_str() {
            "ip" => Ok(UnitSystem::Ip),
            "si" => Ok(UnitSystem::Si),
            _ => Err(format!("units.system must be 'ip' or 'si', got '{s}'")),
        }
    }

    fn energy(self) -> (&'static str, f64) {
        match self {
            UnitSystem::Ip => ("kBtu", 3.412_141_633_127_942),
            UnitSystem::Si => ("kWh", 1.0),
        }
    }
}

/// The kinds of results, as the capability counts them.
pub const KINDS: [&str; 4] = ["mv_baseline", "mv_savings", "mv_trigger", "mv_method_proposal"];

/// One result.
#[derive(Clone, Debug, PartialEq)]
pub struct MvResult {
    /// `mv_baseline`, `mv_savings`, `mv_trigger` or `mv_method_proposal`.
    pub kind: &'static str,
    pub meter: String,
    /// The `mv` entry it came from.
    pub entry: usize,
    pub finding: Finding,
    /// The reference's metrics (strings, lists and booleans included).
    pub metrics: Map<String, Value>,
    /// Why no figure was stated, when declined.
    pub declined: Option<String>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MvRun {
    pub results: Vec<MvResult>,
    /// `(meter, reason)` for every declined result.
    pub declined: Vec<(String, String)>,
    /// The meters measured, sorted.
    pub meters: Vec<String>,
}

/// Check the entries against the config's unit system: with one, every entry names its rate.
pub fn check_units(section: &MvSection, system: Option<UnitSystem>) -> Result<(), String> {
    if system.is_some() {
        if let Some((i, e)) = section.entries.iter().enumerate().find(|(_, e)| e.units.is_none()) {
            return Err(format!(
                "mv[{i}] ({}) does not name its meter's rate unit, which units.system needs: add \"units\": \"kW\" (or Btu/h, kBtu/h, MBH, tons)",
                e.class
            ));
        }
    }
    Ok(())
}

/// Run every entry on the meters of its class.
pub fn run(section: &MvSection, meters: &[Meter], system: Option<UnitSystem>) -> MvRun {
    let mut out = MvRun::default();
    for (i, entry) in section.entries.iter().enumerate() {
        for m in meters.iter().filter(|m| m.class == entry.class) {
            out.results.extend(run_meter(entry, i, m.name, m.frame, system));
        }
    }
    for r in &out.results {
        if let Some(d) = &r.declined {
            out.declined.push((r.meter.clone(), d.clone()));
        }
    }
    let mut names: Vec<String> = out.results.iter().map(|r| r.meter.clone()).collect();
    names.sort();
    names.dedup();
    out.meters = names;
    out
}

const BASIS: &str = "days";

fn date(day: i64) -> String {
    let (y, m, d) = camber_common::time::civil_from_days(day);
    format!("{y:04}-{m:02}-{d:02}")
}

fn written(w: &Option<Window>) -> Value {
    w.as_ref().map_or(Value::Null, |w| json!([w.written.0, w.written.1]))
}

fn declined(kind: &'static str, meter: &str, entry: usize, why: &str) -> MvResult {
    let what = if kind == "mv_savings" { "M&V savings" } else { "M&V baseline" };
    let done = if kind == "mv_savings" { "computed" } else { "fitted" };
    let mut metrics = Map::new();
    metrics.insert("declined".into(), json!(true));
    metrics.insert("declined_reason".into(), json!(why));
    let finding = Finding::of(kind, BASIS, Severity::Info, format!("{meter}: {what} declined -- {why}"))
        .with_caveats(vec![format!("{what} not {done}: {why}")])
        .with_metrics([("declined".to_string(), 1.0)].into());
    MvResult { kind, meter: meter.into(), entry, finding, metrics, declined: Some(why.into()) }
}

/// Fit the best model of the entry's form on `days`.
fn fit_days(entry: &MvEntry, days: &Daily) -> Result<(Fitted, Vec<Candidate>), String> {
    let names: Vec<String> = entry.drivers.iter().map(|d| d.name().to_string()).collect();
    let obs = Obs { t: &days.oat, y: &days.energy, d: &days.drivers };
    let (model, cands) = best_model(obs, &Form::ALL, &names);
    let Some(model) = model else {
        let why: Vec<String> = cands
            .iter()
            .map(|c| format!("{} ({})", c.form.code(), c.refused.as_deref().unwrap_or("not selected")))
            .collect();
        return Err(format!("no model could be fit: {}", why.join("; ")));
    };
    let yhat: Vec<f64> = (0..days.len()).map(|i| model.predict(days.oat[i], &days.drivers_at(i))).collect();
    let stats = fit_stats(&days.energy, &yhat, &days.day, model.p).ok_or("fewer days than parameters")?;
    Ok((Fitted { model, stats, days: days.clone() }, cands))
}

/// The energy unit of the meter's own figures, and the conversion to the system's.
struct Units {
    meter: Option<&'static str>,
    to: Option<(&'static str, f64)>,
}

fn units(entry: &MvEntry, system: Option<UnitSystem>) -> Units {
    let rate = entry.units.as_deref().and_then(|u| RATE_UNITS.iter().find(|r| r.0 == u));
    let to = match (rate, system) {
        (Some(r), Some(s)) => {
            let (unit, per_kwh) = s.energy();
            Some((unit, r.1 * per_kwh))
        }
        _ => None,
    };
    Units { meter: rate.map(|r| r.2), to }
}

fn fmt_energy(x: f64, unit: Option<&str>) -> String {
    let s = camber_common::text::thousands(x.round() as i64);
    match unit {
        Some(u) => format!("{s} {u}"),
        None => s,
    }
}

/// Every result of one meter under one entry.
pub fn run_meter(
    entry: &MvEntry,
    index: usize,
    meter: &str,
    frame: &Frame,
    system: Option<UnitSystem>,
) -> Vec<MvResult> {
    let mut out = Vec::new();
    let decline_all = |why: &str, out: &mut Vec<MvResult>| {
        out.push(declined("mv_baseline", meter, index, why));
        if entry.reporting_period.is_some() {
            out.push(declined("mv_savings", meter, index, &format!("no baseline: {why}")));
        }
    };
    if frame.col(&entry.role).is_none() {
        decline_all(&format!("no {} data", entry.role), &mut out);
        return out;
    }
    if frame.col("oat").is_none() {
        decline_all("no outdoor temperature (oat or shared_oat)", &mut out);
        return out;
    }
    if let Some(r) = entry.drivers.iter().find_map(|d| match d {
        super::section::Driver::Role(r) if frame.col(r).is_none() => Some(r.clone()),
        _ => None,
    }) {
        decline_all(&format!("no data for the mv.drivers role '{r}'"), &mut out);
        return out;
    }
    let base_days = daily(frame, entry, entry.period.as_ref());
    if base_days.len() < entry.min_days {
        decline_all(&format!("only {} usable days (< {})", base_days.len(), entry.min_days), &mut out);
        return out;
    }
    let (base, cands) = match fit_days(entry, &base_days) {
        Ok(f) => f,
        Err(why) => {
            decline_all(&why, &mut out);
            return out;
        }
    };
    let u = units(entry, system);
    let mut common_caveats = Vec::new();
    if let Some(c) = &entry.holidays.country {
        common_caveats.push(format!(
            "holiday_calendar '{c}': the reference's bundled public holidays are not built here; only the listed dates are holidays"
        ));
    }
    if entry.validity != "g14" {
        common_caveats.push(format!(
            "validity '{}': the SEP 6.4.1 regression tests are not built here; only G14 acceptance is judged",
            entry.validity
        ));
    }
    if !entry.adjustments.is_empty() {
        common_caveats.push(format!(
            "{} adjustment(s) in the ledger are not applied by this engine; the saving is unadjusted",
            entry.adjustments.len()
        ));
    }
    out.push(baseline_result(entry, index, meter, &base, &cands, &common_caveats));
    let Some(rw) = &entry.reporting_period else { return out };
    let rep_days = daily(frame, entry, Some(rw));
    let fail_note = (!base.stats.accept)
        .then(|| "the baseline does not meet daily G14 acceptance; this saving is for information only".to_string());
    if entry.method == Method::Auto {
        out.push(proposal(entry, index, meter, frame, &base, &rep_days, &common_caveats));
    } else if rep_days.is_empty() {
        out.push(declined("mv_savings", meter, index, "no usable reporting-period days"));
    } else {
        let sav = match entry.method {
            Method::Forecast | Method::Auto => Ok(forecast(&base, &rep_days, entry.kernel, &entry.extrapolation)),
            Method::Backcast => fit_days(entry, &rep_days)
                .map(|(r, _)| backcast(&r, &base_days, entry.kernel, &entry.extrapolation))
                .map_err(|e| format!("no reporting-period model: {e}")),
            Method::Chaining => {
                let inter = daily(frame, entry, entry.intermediate_period.as_ref());
                fit_days(entry, &inter)
                    .map(|(i, _)| chaining(&i, &base_days, &rep_days, &entry.extrapolation))
                    .map_err(|e| format!("no intermediate-period model: {e}"))
            }
            Method::StandardConditions => fit_days(entry, &rep_days)
                .map(|(r, _)| {
                    standard_conditions(
                        &base,
                        &r,
                        entry.normal_year.as_deref().unwrap_or(&[]),
                        entry.kernel,
                        &entry.extrapolation,
                    )
                })
                .map_err(|e| format!("no reporting-period model: {e}")),
        };
        match sav {
            Ok(s) => {
                let mut caveats = common_caveats.clone();
                if !entry.method_declared {
                    caveats.push("no mv.method declared: the SEP default, forecast, was used; a reported saving should declare its method before the numbers are seen".into());
                }
                caveats.extend(fail_note.clone());
                out.push(savings_result(entry, index, meter, &s, &rep_days, &u, caveats));
            }
            Err(why) => out.push(declined("mv_savings", meter, index, &why)),
        }
    }
    if let Some(rb) = &entry.rebaseline {
        out.extend(super::triggers::assess(entry, rb, index, meter, frame, &base, &rep_days));
    }
    out
}

fn baseline_result(
    entry: &MvEntry,
    index: usize,
    meter: &str,
    f: &Fitted,
    cands: &[Candidate],
    common: &[String],
) -> MvResult {
    let (m, st) = (&f.model, &f.stats);
    let sup = support_of(&f.days.oat, entry.extrapolation.support_quantile);
    let verdict = if st.accept { "meets".to_string() } else { format!("does not meet ({})", st.failures.join("; ")) };
    let drivers = if m.drivers.is_empty() { String::new() } else { format!(" + {}", m.drivers.join("/")) };
    let cps: Vec<String> = m.change_points.iter().map(|c| format!("{c:.1}")).collect();
    let summary = format!(
        "{meter}: {}{drivers} baseline{}, R2 {:.2}, CV(RMSE) {:.1}% over {} days -- {verdict} daily acceptance (G14 criteria; the 30% daily CV(RMSE) tier is the reference's)",
        m.form.label(),
        if cps.is_empty() { String::new() } else { format!(" (change point{} {})", if cps.len() > 1 { "s" } else { "" }, cps.join(", ")) },
        st.r2,
        st.cv_rmse * 100.0,
        st.n
    );
    let mut caveats = common.to_vec();
    if f.days.dropped > 0 {
        caveats.push(format!(
            "{} baseline day(s) were left out: their meter data cover less than {:.0}% of the day (min_coverage)",
            f.days.dropped,
            entry.min_coverage * 100.0
        ));
    }
    if f.days.screened > 0 {
        caveats.push(format!("{} outdoor-air sample(s) outside -40 to 140 were treated as missing", f.days.screened));
    }
    if !st.accept {
        caveats.push(format!(
            "the baseline fails G14 acceptance ({}); any saving from it is for information only",
            st.failures.join("; ")
        ));
    }
    let coefs: Map<String, Value> = m.named_coefficients().into_iter().map(|(k, v)| (k, json!(v))).collect();
    let mut j = Map::new();
    j.insert("model".into(), json!(m.form.code()));
    j.insert("model_label".into(), json!(m.form.label()));
    j.insert("drivers".into(), json!(m.drivers));
    j.insert("n_days".into(), json!(st.n));
    j.insert("p".into(), json!(st.p));
    j.insert("r2".into(), json!(st.r2));
    j.insert("adj_r2".into(), json!(st.adj_r2));
    j.insert("cv_rmse".into(), json!(st.cv_rmse));
    j.insert("nmbe".into(), json!(st.nmbe));
    j.insert("rho".into(), json!(st.rho));
    j.insert("accept".into(), json!(st.accept));
    j.insert(
        "acceptance".into(),
        json!(if st.accept { "meets G14 thresholds".to_string() } else { st.failures.join("; ") }),
    );
    j.insert("change_points".into(), json!(m.change_points));
    j.insert("coefficients".into(), Value::Object(coefs));
    j.insert("bic".into(), json!(m.bic));
    j.insert("period".into(), written(&entry.period));
    j.insert(
        "candidates".into(),
        json!(cands.iter().map(|c| json!({"kind": c.form.code(), "p": c.p, "sse": c.sse, "bic": c.bic, "refused": c.refused, "selected": c.form == m.form})).collect::<Vec<_>>()),
    );
    if let Some(s) = &sup {
        j.insert("oat_fit_min".into(), json!(s.fit_min));
        j.insert("oat_fit_max".into(), json!(s.fit_max));
        j.insert("oat_support_lo".into(), json!(s.lo));
        j.insert("oat_support_hi".into(), json!(s.hi));
    }
    if f.days.dropped > 0 {
        j.insert("n_days_dropped".into(), json!(f.days.dropped));
    }
    if f.days.screened > 0 {
        j.insert("n_temp_screened".into(), json!(f.days.screened));
    }
    let mut nums: std::collections::BTreeMap<String, f64> = [
        ("n_days", st.n as f64),
        ("p", st.p as f64),
        ("r2", st.r2),
        ("cv_rmse", st.cv_rmse),
        ("nmbe", st.nmbe),
        ("accept", f64::from(u8::from(st.accept))),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if let Some(r) = st.rho {
        nums.insert("rho".into(), r);
    }
    for (k, v) in m.named_coefficients() {
        nums.insert(k, v);
    }
    let finding = Finding::of("mv_baseline", BASIS, if st.accept { Severity::Ok } else { Severity::Info }, summary)
        .with_caveats(caveats)
        .with_metrics(nums)
        .with_judged(st.n);
    MvResult { kind: "mv_baseline", meter: meter.into(), entry: index, finding, metrics: j, declined: None }
}

fn savings_result(
    entry: &MvEntry,
    index: usize,
    meter: &str,
    s: &Savings,
    rep: &Daily,
    u: &Units,
    mut caveats: Vec<String>,
) -> MvResult {
    caveats.extend(s.caveats.iter().cloned());
    let cov = s.coverage.as_ref();
    let k = u.to.map_or(1.0, |t| t.1);
    let shown_unit = u.to.map(|t| t.0).or(u.meter);
    let conv = |x: Option<f64>| x.map(|v| v * k);
    let mut j = Map::new();
    j.insert("reporting_period".into(), written(&entry.reporting_period));
    j.insert("n_report_days".into(), json!(rep.len()));
    j.insert("avoided_energy".into(), json!(conv(s.savings)));
    j.insert("baseline_projected".into(), json!(conv(s.projected)));
    j.insert("reporting_actual".into(), json!(conv(s.measured)));
    j.insert("savings_pct".into(), json!(s.savings_pct));
    j.insert("fsu".into(), json!(s.fsu));
    j.insert("abs_uncertainty".into(), json!(conv(s.abs_uncertainty)));
    j.insert("confidence".into(), json!(s.confidence));
    j.insert("fsu_extrapolation_factor".into(), json!(s.fsu_extrapolation_factor));
    j.insert("rho".into(), json!(s.rho));
    j.insert("n_effective".into(), json!(s.n_effective));
    j.insert("coverage_tier".into(), json!(cov.map(|c| c.tier.name())));
    j.insert("share_points_outside".into(), json!(cov.map(|c| c.share_points_outside)));
    j.insert("share_energy_outside".into(), json!(cov.and_then(|c| c.share_energy_outside)));
    j.insert("max_beyond_rel".into(), json!(cov.and_then(|c| c.max_beyond_rel)));
    j.insert("n_outside".into(), json!(cov.map(|c| c.n_outside)));
    j.insert("declined".into(), json!(s.declined.is_some()));
    j.insert("method".into(), json!(s.method.name()));
    j.insert("method_declared".into(), json!(entry.method_declared));
    j.insert("basis".into(), json!(s.basis));
    j.insert("kernel".into(), json!(s.kernel.name()));
    j.insert("enpi".into(), json!(s.enpi));
    j.insert("energy_unit".into(), json!(shown_unit));
    if u.to.is_some() {
        j.insert("meter_energy_unit".into(), json!(u.meter));
        j.insert("avoided_energy_meter".into(), json!(s.savings));
        j.insert("abs_uncertainty_meter".into(), json!(s.abs_uncertainty));
        j.insert("energy_factor".into(), json!(k));
    }
    if let Some(d) = &s.declined {
        j.insert("declined_reason".into(), json!(d));
    }
    let summary = match (&s.declined, s.savings) {
        (Some(_), _) | (None, None) => format!(
            "{meter}: M&V savings declined -- {}",
            s.declined.as_deref().unwrap_or("no saving could be computed")
        ),
        (None, Some(sv)) => {
            let mut t = format!("{meter}: {} savings {}", s.method.name(), fmt_energy(sv * k, shown_unit));
            if u.to.is_some() {
                t.push_str(&format!(" ({} in the meter's units)", fmt_energy(sv, u.meter)));
            } else if u.meter.is_none() {
                t.push_str(" (the meter's own units: its rate integrated over hours)");
            }
            if let Some(p) = s.savings_pct {
                t.push_str(&format!(" ({:.1}%)", p * 100.0));
            }
            if let Some(b) = s.abs_uncertainty {
                t.push_str(&format!(" ± {} at 90%", fmt_energy(b * k, shown_unit)));
            }
            t.push_str(&format!(" over {} days; baseline coverage {}", s.n_days, cov.map_or("n/a", |c| c.tier.name())));
            if !caveats.iter().any(|c| c.contains("for information only")) {
                t
            } else {
                t + " -- for information only"
            }
        }
    };
    let mut nums: std::collections::BTreeMap<String, f64> = Default::default();
    for (key, v) in [
        ("avoided_energy", conv(s.savings)),
        ("baseline_projected", conv(s.projected)),
        ("reporting_actual", conv(s.measured)),
        ("savings_pct", s.savings_pct),
        ("fsu", s.fsu),
        ("abs_uncertainty", conv(s.abs_uncertainty)),
        ("confidence", Some(s.confidence)),
        ("rho", s.rho),
        ("enpi", s.enpi),
        ("fsu_extrapolation_factor", s.fsu_extrapolation_factor),
        ("share_points_outside", cov.map(|c| c.share_points_outside)),
        ("max_beyond_rel", cov.and_then(|c| c.max_beyond_rel)),
        ("declined", Some(f64::from(u8::from(s.declined.is_some())))),
        ("n_report_days", Some(rep.len() as f64)),
    ] {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            nums.insert(key.into(), v);
        }
    }
    let finding = Finding::of("mv_savings", BASIS, Severity::Info, summary)
        .with_caveats(caveats)
        .with_metrics(nums)
        .with_judged(s.n_days);
    MvResult {
        kind: "mv_savings",
        meter: meter.into(),
        entry: index,
        finding,
        metrics: j,
        declined: s.declined.clone(),
    }
}

/// The method SEP's order proposes for `auto`, with every valid method's figures side by side:
/// forecast when the baseline is accepted and covers the reporting days, else backcast when the
/// reporting model is accepted and covers the baseline, else chaining (with an intermediate
/// period) or standard conditions (with a normal year) on the same tests, else decline. Unlike
/// the reference, validity here is G14 acceptance (the SEP 6.4.1 regression tests are not
/// built); like it, the proposal states no headline saving.
fn proposal(
    entry: &MvEntry,
    index: usize,
    meter: &str,
    frame: &Frame,
    base: &Fitted,
    rep: &Daily,
    common: &[String],
) -> MvResult {
    let pol = &entry.extrapolation;
    let mut steps = Vec::new();
    let mut results: Vec<Savings> = Vec::new();
    let ok = |s: &Savings| s.declined.is_none() && s.coverage.as_ref().is_none_or(|c| c.tier != Tier::Severe);
    // forecast
    let (valid, why) = if !base.stats.accept {
        (false, format!("baseline model fails G14: {}", base.stats.failures.join("; ")))
    } else if rep.is_empty() {
        (false, "no usable reporting-period days".into())
    } else {
        let s = forecast(base, rep, super::section::Kernel::G14, pol);
        let tier = s.coverage.as_ref().map_or("n/a", |c| c.tier.name());
        let v = ok(&s);
        if v {
            results.push(s);
        }
        (v, format!("baseline coverage of the reporting period: {tier}"))
    };
    steps.push(json!({"method": "forecast", "valid": valid, "reasons": [why]}));
    // backcast
    let rep_fit = fit_days(entry, rep).ok().map(|f| f.0);
    let (valid, why) = match &rep_fit {
        None => (false, "no reporting-period model could be fitted".to_string()),
        Some(r) if !r.stats.accept => (false, format!("reporting model fails G14: {}", r.stats.failures.join("; "))),
        Some(r) => {
            let s = backcast(r, &base.days, super::section::Kernel::G14, pol);
            let tier = s.coverage.as_ref().map_or("n/a", |c| c.tier.name());
            let v = ok(&s);
            if v {
                results.push(s);
            }
            (v, format!("reporting-model coverage of the baseline: {tier}"))
        }
    };
    steps.push(json!({"method": "backcast", "valid": valid, "reasons": [why]}));
    // chaining, with a declared intermediate period
    let (valid, why) = match entry.intermediate_period.as_ref() {
        None => (false, "no intermediate_period declared".to_string()),
        Some(w) => match fit_days(entry, &daily(frame, entry, Some(w))) {
            Err(e) => (false, format!("no intermediate model: {e}")),
            Ok((i, _)) if !i.stats.accept => {
                (false, format!("intermediate model fails G14: {}", i.stats.failures.join("; ")))
            }
            Ok((i, _)) => {
                let s = chaining(&i, &base.days, rep, pol);
                let v = ok(&s);
                let tier = s.coverage.as_ref().map_or("n/a", |c| c.tier.name());
                if v {
                    results.push(s);
                }
                (v, format!("intermediate-model coverage of both periods: {tier}"))
            }
        },
    };
    steps.push(json!({"method": "chaining", "valid": valid, "reasons": [why]}));
    // standard conditions, with a normal year
    let (valid, why) = match (entry.normal_year.as_ref(), &rep_fit) {
        (None, _) => (false, "no normal_year given".to_string()),
        (_, None) => (false, "no reporting-period model could be fitted".to_string()),
        (Some(ny), Some(r)) if base.stats.accept && r.stats.accept => {
            let s = standard_conditions(base, r, ny, super::section::Kernel::Exact, pol);
            let v = ok(&s);
            if v {
                results.push(s);
            }
            (v, "both models accepted; coverage of the normal year checked".to_string())
        }
        _ => (false, "a model fails G14".to_string()),
    };
    steps.push(json!({"method": "standard_conditions", "valid": valid, "reasons": [why]}));
    let proposed = steps
        .iter()
        .find(|s| s["valid"] == json!(true))
        .map_or("decline", |s| s["method"].as_str().unwrap_or("decline"))
        .to_string();
    let sens: Vec<Value> = results
        .iter()
        .map(|s| json!({"method": s.method.name(), "savings": s.savings, "savings_pct": s.savings_pct, "abs_uncertainty": s.abs_uncertainty, "enpi": s.enpi, "kernel": s.kernel.name()}))
        .collect();
    let mut j = Map::new();
    j.insert("proposed".into(), json!(proposed));
    j.insert("steps".into(), json!(steps));
    j.insert("sensitivity".into(), json!(sens));
    j.insert("reporting_period".into(), written(&entry.reporting_period));
    let mut caveats = common.to_vec();
    caveats.push("a proposal, not a saving: declare the method in the config before quoting any figure (valid methods can disagree widely)".into());
    let summary = format!(
        "{meter}: SEP method proposal -- {proposed} ({} valid method(s) in the sensitivity table)",
        results.len()
    );
    let finding = Finding::of("mv_method_proposal", BASIS, Severity::Info, summary)
        .with_caveats(caveats)
        .with_metrics([("valid_methods".to_string(), results.len() as f64)].into())
        .with_judged(rep.len());
    MvResult { kind: "mv_method_proposal", meter: meter.into(), entry: index, finding, metrics: j, declined: None }
}

/// The day number of the end of a window (its last day), when closed.
pub(super) fn last_day(w: &Window) -> Option<i64> {
    w.end.map(|e| (e - 1).div_euclid(NS_PER_DAY))
}

pub(super) fn day_text(day: i64) -> String {
    date(day)
}
