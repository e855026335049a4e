//! Extrapolation: is a projection inside the conditions its model was fitted on? Each driver of
//! the projected days is graded against the fitting days' support, the `[q, 1 - q]` order
//! statistics (so one odd day does not stretch it) with an edge tolerance; shares outside are of
//! days and of projected energy, and the distance beyond the hard fitted range is a fraction of
//! its width. The tiers and every threshold are the reference's policy (its
//! `ExtrapolationPolicy`): `in_range`, `moderate` (a caveat, and the G14 band widened by the
//! parameter-variance factor `k`), `severe` (declined unless the policy says otherwise). With
//! drivers, a projected day whose leverage exceeds every fitting day's is outside too (hidden
//! extrapolation).

use serde_json::Value;

use super::linalg::quad;
use super::model::Model;

/// The grading thresholds (the reference's names and defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtrapolationPolicy {
    pub support_quantile: f64,
    pub edge_tolerance: f64,
    pub caveat_share: f64,
    pub caveat_distance: f64,
    pub decline_share: f64,
    pub decline_distance: f64,
    pub min_cell_obs: f64,
    pub min_points_outside: usize,
    pub decline: bool,
    pub widen_fsu: bool,
}

impl Default for ExtrapolationPolicy {
    fn default() -> Self {
        ExtrapolationPolicy {
            support_quantile: 0.01,
            edge_tolerance: 0.05,
            caveat_share: 0.05,
            caveat_distance: 0.10,
            decline_share: 0.25,
            decline_distance: 0.50,
            min_cell_obs: 20.0,
            min_points_outside: 2,
            decline: true,
            widen_fsu: true,
        }
    }
}

impl ExtrapolationPolicy {
    /// The policy of an `extrapolation` block (defaults for `None`); an unknown key or a bad value
    /// is refused.
    pub fn from_value(v: Option<&Value>) -> Result<ExtrapolationPolicy, String> {
        let mut p = ExtrapolationPolicy::default();
        let Some(v) = v.filter(|v| !v.is_null()) else { return Ok(p) };
        let Value::Object(o) = v else { return Err("must be an object".into()) };
        for (k, x) in o {
            let num = || x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| format!("{k} must be a number, got {x}"));
            let flag = || x.as_bool().ok_or_else(|| format!("{k} must be true or false, got {x}"));
            match k.as_str() {
                "support_quantile" => p.support_quantile = num()?,
                "edge_tolerance" => p.edge_tolerance = num()?,
                "caveat_share" => p.caveat_share = num()?,
                "caveat_distance" => p.caveat_distance = num()?,
                "decline_share" => p.decline_share = num()?,
                "decline_distance" => p.decline_distance = num()?,
                "min_cell_obs" => p.min_cell_obs = num()?,
                "min_points_outside" => p.min_points_outside = num()?.max(0.0) as usize,
                "decline" => p.decline = flag()?,
                "widen_fsu" => p.widen_fsu = flag()?,
                other => return Err(format!("unknown extrapolation policy key '{other}'")),
            }
        }
        if !(0.0..0.5).contains(&p.support_quantile) {
            return Err("support_quantile must be in [0, 0.5)".into());
        }
        if p.edge_tolerance < 0.0 || p.caveat_share < 0.0 || p.caveat_distance < 0.0 {
            return Err("edge_tolerance, caveat_share and caveat_distance must be >= 0".into());
        }
        if p.decline_share < p.caveat_share {
            return Err("decline_share must be >= caveat_share".into());
        }
        if p.decline_distance < p.caveat_distance {
            return Err("decline_distance must be >= caveat_distance".into());
        }
        if p.min_cell_obs < 1.0 || p.min_points_outside < 1 {
            return Err("min_cell_obs and min_points_outside must be >= 1".into());
        }
        Ok(p)
    }
}

/// The support of one driver on the fitting days.
#[derive(Clone, Debug, PartialEq)]
pub struct Support {
    pub fit_min: f64,
    pub fit_max: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The support of finite values `x` at quantile `q`; `None` without any.
pub fn support_of(x: &[f64], q: f64) -> Option<Support> {
    let mut v: Vec<f64> = x.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let lo = v[(q * (n - 1) as f64).floor() as usize];
    let hi = v[((1.0 - q) * (n - 1) as f64).ceil() as usize];
    Some(Support { fit_min: v[0], fit_max: v[n - 1], lo, hi })
}

/// A coverage tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    InRange,
    Moderate,
    Severe,
    NotEvaluated,
}

impl Tier {
    /// The reference's name.
    pub fn name(self) -> &'static str {
        match self {
            Tier::InRange => "in_range",
            Tier::Moderate => "moderate",
            Tier::Severe => "severe",
            Tier::NotEvaluated => "not_evaluated",
        }
    }
}

/// How the projected days sit against the fitting days.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    pub tier: Tier,
    pub n_report: usize,
    pub n_outside: usize,
    pub share_points_outside: f64,
    /// `None` when the projected total is not positive.
    pub share_energy_outside: Option<f64>,
    /// The furthest beyond the hard range (in the driver's units) and as a fraction of its width
    /// (`None` when the fitting driver never varied yet a projected value differs).
    pub max_beyond: f64,
    pub max_beyond_rel: Option<f64>,
    /// Which driver is furthest out.
    pub furthest: String,
    /// The outdoor-air support, for the text.
    pub oat_support: Option<Support>,
    /// What a report says (empty when in range).
    pub reason: String,
}

/// Grade the projected rows (`t`, driver columns `d`, projected energy `proj`) against the
/// fitting rows (`fit_t`, `fit_d`) of `model`.
pub fn assess(
    model: &Model,
    fit_t: &[f64],
    fit_d: &[Vec<f64>],
    t: &[f64],
    d: &[Vec<f64>],
    proj: &[f64],
    pol: &ExtrapolationPolicy,
) -> Coverage {
    let rows: Vec<usize> = (0..t.len()).filter(|&i| t[i].is_finite() && d.iter().all(|c| c[i].is_finite())).collect();
    let names: Vec<String> = std::iter::once("oat".to_string()).chain(model.drivers.iter().cloned()).collect();
    let fit_cols: Vec<&[f64]> = std::iter::once(fit_t).chain(fit_d.iter().map(Vec::as_slice)).collect();
    let cols: Vec<&[f64]> = std::iter::once(t).chain(d.iter().map(Vec::as_slice)).collect();
    let oat_support = support_of(fit_t, pol.support_quantile);
    let empty = |why: &str| Coverage {
        tier: Tier::NotEvaluated,
        n_report: t.len(),
        n_outside: 0,
        share_points_outside: 0.0,
        share_energy_outside: None,
        max_beyond: 0.0,
        max_beyond_rel: Some(0.0),
        furthest: "oat".into(),
        oat_support: oat_support.clone(),
        reason: format!("baseline coverage not evaluated: {why}"),
    };
    if rows.is_empty() {
        return empty("no projected day has finite drivers");
    }
    let mut outside = vec![false; t.len()];
    let mut zero_conflict = false;
    let (mut far, mut far_rel, mut furthest) = (0.0, Some(0.0_f64), names[0].clone());
    for (j, (fc, c)) in fit_cols.iter().zip(&cols).enumerate() {
        let Some(s) = support_of(fc, pol.support_quantile) else { return empty("the model has no fitted range") };
        let width = s.fit_max - s.fit_min;
        let band = s.hi - s.lo;
        let tol = pol.edge_tolerance * if band > 0.0 { band } else { width };
        let (mut xmin, mut xmax) = (f64::INFINITY, f64::NEG_INFINITY);
        for &i in &rows {
            let x = c[i];
            if x < s.lo - tol || x > s.hi + tol {
                outside[i] = true;
            }
            xmin = xmin.min(x);
            xmax = xmax.max(x);
        }
        let beyond = (s.fit_min - xmin).max(0.0).max((xmax - s.fit_max).max(0.0));
        let rel = if width > 0.0 {
            Some(beyond / width)
        } else if beyond > 0.0 {
            zero_conflict = true;
            None
        } else {
            Some(0.0)
        };
        let further = match (rel, far_rel) {
            (None, _) => true,
            (Some(r), Some(f)) => r > f,
            (Some(_), None) => false,
        };
        if further && beyond > 0.0 {
            (far, far_rel, furthest) = (beyond, rel, names[j].clone());
        }
    }
    if !d.is_empty() {
        // hidden extrapolation: leverage beyond the largest of the fitting days
        let lev = |t: f64, dv: &[f64]| quad(&model.xtx_inv, &model.row(t, dv));
        let h_max = (0..fit_t.len())
            .filter(|&i| fit_t[i].is_finite() && fit_d.iter().all(|c| c[i].is_finite()))
            .map(|i| lev(fit_t[i], &fit_d.iter().map(|c| c[i]).collect::<Vec<_>>()))
            .fold(0.0_f64, crate::engine::max_of);
        for &i in &rows {
            if lev(t[i], &d.iter().map(|c| c[i]).collect::<Vec<_>>()) > h_max * (1.0 + 1e-9) + 1e-12 {
                outside[i] = true;
            }
        }
    }
    let n_out = rows.iter().filter(|&&i| outside[i]).count();
    let sp = n_out as f64 / rows.len() as f64;
    let ok: Vec<usize> = rows.iter().copied().filter(|&i| proj[i].is_finite()).collect();
    let tot: f64 = ok.iter().map(|&i| proj[i]).sum();
    let se =
        (tot.is_finite() && tot > 0.0).then(|| ok.iter().filter(|&&i| outside[i]).map(|&i| proj[i]).sum::<f64>() / tot);
    let share = sp.max(se.unwrap_or(0.0));
    let rel = if zero_conflict { None } else { far_rel };
    let severe_share = share >= pol.decline_share && n_out >= pol.min_points_outside;
    let tier = if zero_conflict || severe_share || rel.is_some_and(|r| r > pol.decline_distance) {
        Tier::Severe
    } else if share <= pol.caveat_share && rel.is_none_or(|r| r <= pol.caveat_distance) {
        Tier::InRange
    } else {
        Tier::Moderate
    };
    let mut cov = Coverage {
        tier,
        n_report: t.len(),
        n_outside: n_out,
        share_points_outside: sp,
        share_energy_outside: se,
        max_beyond: far,
        max_beyond_rel: rel,
        furthest,
        oat_support,
        reason: String::new(),
    };
    if tier != Tier::InRange {
        cov.reason = describe(&cov);
    }
    cov
}

fn describe(c: &Coverage) -> String {
    let head =
        if c.tier == Tier::Severe { "severe extrapolation, not a defensible saving" } else { "moderate extrapolation" };
    let energy =
        c.share_energy_outside.map(|s| format!(" ({:.1}% of the projected energy)", s * 100.0)).unwrap_or_default();
    let support = c
        .oat_support
        .as_ref()
        .map(|s| {
            format!(" (outdoor-air support {:.1} to {:.1}, fitted {:.1} to {:.1})", s.lo, s.hi, s.fit_min, s.fit_max)
        })
        .unwrap_or_default();
    let far = match c.max_beyond_rel {
        None => format!("; {} never varied on the fitting days, so any other value is outside", c.furthest),
        Some(r) if r > 0.0 => format!(
            "; the furthest {} is {:.1} beyond the fitted range ({:.0}% of its width)",
            c.furthest,
            c.max_beyond,
            r * 100.0
        ),
        _ => String::new(),
    };
    format!(
        "{head}: {:.1}% of the projected days{energy} lie outside the support{support}{far}",
        c.share_points_outside * 100.0
    )
}

/// The G14 band's widening factor for a moderate extrapolation: `sqrt((m + s'As)/(m + s_c'As_c))`
/// with `s` the sum of the projected design rows and `s_c` the same with each driver clamped into
/// its support band (the change points taken as known). `None` when it cannot be computed.
pub fn widening_factor(
    model: &Model,
    fit_t: &[f64],
    fit_d: &[Vec<f64>],
    t: &[f64],
    d: &[Vec<f64>],
    pol: &ExtrapolationPolicy,
) -> Option<f64> {
    let st = support_of(fit_t, pol.support_quantile)?;
    let sd: Vec<Support> = fit_d.iter().map(|c| support_of(c, pol.support_quantile)).collect::<Option<_>>()?;
    let q = model.coef.len();
    let (mut s, mut sc, mut m) = (vec![0.0; q], vec![0.0; q], 0usize);
    for i in 0..t.len() {
        if !(t[i].is_finite() && d.iter().all(|c| c[i].is_finite())) {
            continue;
        }
        let dv: Vec<f64> = d.iter().map(|c| c[i]).collect();
        let dc: Vec<f64> = dv.iter().zip(&sd).map(|(x, s)| x.clamp(s.lo, s.hi)).collect();
        for (a, v) in s.iter_mut().zip(model.row(t[i], &dv)) {
            *a += v;
        }
        for (a, v) in sc.iter_mut().zip(model.row(t[i].clamp(st.lo, st.hi), &dc)) {
            *a += v;
        }
        m += 1;
    }
    let (qa, qc) = (quad(&model.xtx_inv, &s), quad(&model.xtx_inv, &sc));
    let k = ((m as f64 + qa) / (m as f64 + qc)).sqrt();
    k.is_finite().then_some(k)
}
