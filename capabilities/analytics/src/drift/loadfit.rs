//! The statistics every drift detector shares: a signal fitted against the load that drives it
//! on a known-good window (a straight line, or a flat level when the load never moved enough to
//! show a slope), a later window scored against that fit at matched load (the median residual,
//! in the signal's unit and in the fit's residual standard deviations), and a tabular CUSUM that
//! says whether a shift opened and stayed open. Everything works on index lists into a frame's
//! columns; nothing allocates per sample.

use serde::{Deserialize, Serialize};

/// Fewer usable samples than this in a baseline window and no fit is attempted.
pub const MIN_FIT_SAMPLES: usize = 30;
/// Fewer scoreable samples than this in a current window and no drift is stated.
pub const MIN_SCORE_SAMPLES: usize = 10;
/// Share of scored samples outside the fitted load range above which a drift is extrapolated.
const EXTRAPOLATED_SHARE: f64 = 0.10;
/// Days in a mean Gregorian month, for the residual trend.
const DAYS_PER_MONTH: f64 = 30.4375;
const NS_PER_SECOND: f64 = 1e9;

/// The shape of a fitted baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// `signal = intercept + slope * load`.
    Linear,
    /// A flat level (slope 0), valid only within `load_band` of the fitted load range.
    Level,
}

/// A signal fitted against its load over a known-good window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadFit {
    pub model: Model,
    /// Samples the fit used.
    pub n: usize,
    pub slope: f64,
    pub intercept: f64,
    /// Residual standard deviation (signal units), with the fit's parameters taken off the
    /// degrees of freedom.
    pub sigma: f64,
    /// Coefficient of determination; `None` when the signal did not vary.
    pub r2: Option<f64>,
    pub load_min: f64,
    pub load_max: f64,
    /// For a level: how far either side of the fitted load range it may be used.
    pub load_band: f64,
    /// Lag-1 autocorrelation of the residuals (0 when not significant), and the sampling step
    /// (seconds) it refers to: the CUSUM widens its sigma for correlated residuals.
    pub resid_lag1: f64,
    pub step_seconds: f64,
    /// First and last fitted sample (naive local ns).
    pub start: i64,
    pub end: i64,
    /// A second regressor, when the signal was fitted on a measured condition besides its load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covariate: Option<Covariate>,
}

/// A second regressor of a [`LoadFit`]: a measured condition the signal follows as well as its
/// load (the entering condenser water for a head pressure, the leaving chilled water for a
/// suction pressure), so a window is judged at matched load and matched condition. The fit is
/// `signal = intercept + slope * load + self.slope * (condition - self.reference)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Covariate {
    /// The role the condition was read from.
    pub role: String,
    /// Signal units per condition unit.
    pub slope: f64,
    /// The baseline's mean condition, to which the intercept refers.
    pub reference: f64,
    /// The condition's range over the fitted samples.
    pub min: f64,
    pub max: f64,
}

/// The samples of a frame that may be fitted or scored: the gate keeps them, both signals have a
/// value, the load is at or above `min_load` and the signal within `range` (inclusive).
pub fn usable(x: &[f64], y: &[f64], keep: &[bool], min_load: f64, range: (f64, f64)) -> Vec<u32> {
    x.iter()
        .zip(y)
        .zip(keep)
        .enumerate()
        .filter(|(_, ((&xv, &yv), &k))| {
            k && !xv.is_nan() && !yv.is_nan() && xv >= min_load && yv >= range.0 && yv <= range.1
        })
        .map(|(i, _)| i as u32)
        .collect()
}

impl LoadFit {
    /// Fit `y` against `x` over the samples `idx` (ascending, as [`usable`] gives them). A load
    /// range narrower than `min_span` has no slope: with `level_fallback` the fit is a flat level
    /// valid `(min_span - range) / 2` either side of it, otherwise there is no fit. Errors say
    /// why in words a reader can act on.
    pub fn fit(
        ts: &[i64],
        x: &[f64],
        y: &[f64],
        idx: &[u32],
        min_span: f64,
        level_fallback: bool,
    ) -> Result<LoadFit, String> {
        if idx.len() < MIN_FIT_SAMPLES {
            return Err(format!("only {} usable sample(s) in the baseline window (need {MIN_FIT_SAMPLES})", idx.len()));
        }
        let n = idx.len() as f64;
        let (mut lo, mut hi, mut mx, mut my) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0);
        for &i in idx {
            let xv = x[i as usize];
            lo = lo.min(xv);
            hi = hi.max(xv);
            mx += xv;
            my += y[i as usize];
        }
        mx /= n;
        my /= n;
        let span = hi - lo;
        let has_slope = span >= min_span;
        if !has_slope && !level_fallback {
            return Err(format!("the load range is only {span:.3} wide (need {min_span} to identify a slope)"));
        }
        let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
        for &i in idx {
            let (dx, dy) = (x[i as usize] - mx, y[i as usize] - my);
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        let (slope, intercept, n_par) = if has_slope {
            if sxx <= 0.0 {
                return Err("the fit is degenerate: the load never varies".into());
            }
            let b = sxy / sxx;
            (b, my - b * mx, 2usize)
        } else {
            (0.0, my, 1usize)
        };
        let dof = idx.len().saturating_sub(n_par);
        if dof < 1 {
            return Err("the fit is degenerate: no residual degrees of freedom".into());
        }
        let ssr: f64 = idx.iter().map(|&i| (y[i as usize] - intercept - slope * x[i as usize]).powi(2)).sum();
        let sigma = negligible_to_zero((ssr / dof as f64).sqrt(), my);
        if !sigma.is_finite() || !intercept.is_finite() || !slope.is_finite() {
            return Err("the fit is degenerate: it has no finite solution".into());
        }
        let r2 = (syy > 0.0).then(|| 1.0 - ssr / syy);
        let (resid_lag1, step_seconds) = lag1(ts, idx, |i| y[i] - intercept - slope * x[i]);
        Ok(LoadFit {
            model: if has_slope { Model::Linear } else { Model::Level },
            n: idx.len(),
            slope,
            intercept,
            sigma,
            r2,
            load_min: lo,
            load_max: hi,
            load_band: if has_slope { 0.0 } else { (min_span - span).max(0.0) / 2.0 },
            resid_lag1,
            step_seconds,
            start: ts[idx[0] as usize],
            end: ts[idx[idx.len() - 1] as usize],
            covariate: None,
        })
    }

    /// Fit `y` against the load `x` and a condition `c` (read from `role`) over the samples `idx`
    /// (ascending; each with `c` present). The condition must have moved: its 5-95 % spread at
    /// least `min_cov_span` and above zero, or its effect is not identified and there is no fit.
    /// The load is handled as in [`LoadFit::fit`]: a range narrower than `min_span` has no slope,
    /// and with `level_fallback` the fit is a level in the load (still sloped in the condition).
    #[allow(clippy::too_many_arguments)]
    pub fn fit_with_covariate(
        ts: &[i64],
        x: &[f64],
        y: &[f64],
        c: (&str, &[f64]),
        idx: &[u32],
        min_span: f64,
        level_fallback: bool,
        min_cov_span: f64,
    ) -> Result<LoadFit, String> {
        let (role, c) = c;
        if idx.len() < MIN_FIT_SAMPLES {
            return Err(format!("only {} usable sample(s) in the baseline window (need {MIN_FIT_SAMPLES})", idx.len()));
        }
        let mut cs: Vec<f64> = idx.iter().map(|&i| c[i as usize]).collect();
        if cs.iter().any(|v| !v.is_finite()) {
            return Err(format!("{role} is missing on some of the samples to fit"));
        }
        let spread = quantile_in_place(&mut cs, 0.95) - quantile_in_place(&mut cs, 0.05);
        if spread.is_nan() || spread <= 0.0 || spread < min_cov_span {
            return Err(format!("its 5-95 % spread was only {spread:.2} (need {min_cov_span})"));
        }
        let n = idx.len() as f64;
        let (mut lo, mut hi, mut mx, mut my, mut mc) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0, 0.0);
        for &i in idx {
            let xv = x[i as usize];
            lo = lo.min(xv);
            hi = hi.max(xv);
            mx += xv;
            my += y[i as usize];
            mc += c[i as usize];
        }
        mx /= n;
        my /= n;
        mc /= n;
        let span = hi - lo;
        let has_slope = span >= min_span;
        if !has_slope && !level_fallback {
            return Err(format!("the load range is only {span:.3} wide (need {min_span} to identify a slope)"));
        }
        let (mut sxx, mut sxc, mut scc, mut sxy, mut scy, mut syy) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for &i in idx {
            let (dx, dy, dc) = (x[i as usize] - mx, y[i as usize] - my, c[i as usize] - mc);
            sxx += dx * dx;
            sxc += dx * dc;
            scc += dc * dc;
            sxy += dx * dy;
            scy += dc * dy;
            syy += dy * dy;
        }
        let (slope, gamma, n_par) = if has_slope {
            let det = sxx * scc - sxc * sxc;
            if det.is_nan() || det <= 1e-9 * sxx * scc {
                return Err("the fit is degenerate: the load and the condition move together".into());
            }
            ((sxy * scc - scy * sxc) / det, (scy * sxx - sxy * sxc) / det, 3usize)
        } else {
            (0.0, scy / scc, 2usize)
        };
        let intercept = my - slope * mx;
        let dof = idx.len().saturating_sub(n_par);
        if dof < 1 {
            return Err("the fit is degenerate: no residual degrees of freedom".into());
        }
        let resid = |i: usize| y[i] - intercept - slope * x[i] - gamma * (c[i] - mc);
        let ssr: f64 = idx.iter().map(|&i| resid(i as usize).powi(2)).sum();
        let sigma = negligible_to_zero((ssr / dof as f64).sqrt(), my);
        if !sigma.is_finite() || !intercept.is_finite() || !slope.is_finite() || !gamma.is_finite() {
            return Err("the fit is degenerate: it has no finite solution".into());
        }
        let (cmin, cmax) = (cs[0], cs[cs.len() - 1]);
        let (resid_lag1, step_seconds) = lag1(ts, idx, resid);
        Ok(LoadFit {
            model: if has_slope { Model::Linear } else { Model::Level },
            n: idx.len(),
            slope,
            intercept,
            sigma,
            r2: (syy > 0.0).then(|| 1.0 - ssr / syy),
            load_min: lo,
            load_max: hi,
            load_band: if has_slope { 0.0 } else { (min_span - span).max(0.0) / 2.0 },
            resid_lag1,
            step_seconds,
            start: ts[idx[0] as usize],
            end: ts[idx[idx.len() - 1] as usize],
            covariate: Some(Covariate { role: role.to_string(), slope: gamma, reference: mc, min: cmin, max: cmax }),
        })
    }

    /// `y` referred to the baseline's mean condition `c` (unchanged without a covariate), so
    /// [`LoadFit::predict`] at the load alone is its expectation.
    pub fn adjust(&self, y: f64, c: f64) -> f64 {
        match &self.covariate {
            Some(cv) => y - cv.slope * (c - cv.reference),
            None => y,
        }
    }

    /// The signal the baseline expects at load `x`.
    pub fn predict(&self, x: f64) -> f64 {
        self.intercept + self.slope * x
    }

    /// Whether the baseline may score load `x`: any load for a line, only its band for a level.
    pub fn in_scope(&self, x: f64) -> bool {
        self.model == Model::Linear || (x >= self.load_min - self.load_band && x <= self.load_max + self.load_band)
    }

    /// Whether `x` lies within the load range the baseline was fitted on.
    pub fn covers(&self, x: f64) -> bool {
        x >= self.load_min && x <= self.load_max
    }
}

/// A residual scatter that is only rounding error (a signal that never moved) as zero, so the
/// finding says the baseline had no scatter instead of judging drifts in units of 1e-16.
fn negligible_to_zero(sigma: f64, level: f64) -> f64 {
    if sigma <= 1e-9 * level.abs().max(1.0) {
        0.0
    } else {
        sigma
    }
}

/// The lag-1 autocorrelation of time-ordered residuals over consecutive samples (a step of at
/// most 1.5 times the median one) and that median step in seconds. Zero when it is not above
/// the white-noise band `2 / sqrt(pairs)` or there are too few pairs to say.
fn lag1(ts: &[i64], idx: &[u32], resid: impl Fn(usize) -> f64) -> (f64, f64) {
    if idx.len() < 10 {
        return (0.0, 0.0);
    }
    let mut steps: Vec<f64> = idx
        .windows(2)
        .map(|w| (ts[w[1] as usize] - ts[w[0] as usize]) as f64 / NS_PER_SECOND)
        .filter(|d| *d > 0.0)
        .collect();
    if steps.is_empty() {
        return (0.0, 0.0);
    }
    let step = median_in_place(&mut steps);
    let pair = |w: &[u32]| {
        let d = (ts[w[1] as usize] - ts[w[0] as usize]) as f64 / NS_PER_SECOND;
        d > 0.0 && d <= 1.5 * step
    };
    let (mut n, mut sa, mut sb) = (0usize, 0.0, 0.0);
    for w in idx.windows(2).filter(|w| pair(w)) {
        n += 1;
        sa += resid(w[0] as usize);
        sb += resid(w[1] as usize);
    }
    if n < 10 {
        return (0.0, step);
    }
    let (ma, mb) = (sa / n as f64, sb / n as f64);
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for w in idx.windows(2).filter(|w| pair(w)) {
        let (a, b) = (resid(w[0] as usize) - ma, resid(w[1] as usize) - mb);
        ab += a * b;
        aa += a * a;
        bb += b * b;
    }
    let den = (aa * bb).sqrt();
    let rho = if den > 0.0 { ab / den } else { 0.0 };
    if rho.is_nan() || rho <= 2.0 / (n as f64).sqrt() {
        return (0.0, step);
    }
    (rho.min(0.99), step)
}

/// How a window sits against a baseline, at matched load.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// The samples scored (indices into the frame).
    pub idx: Vec<u32>,
    /// Their residuals (actual minus expected), in the order of `idx`.
    pub resid: Vec<f64>,
    /// The median residual, rounded to 4 decimals (signal units).
    pub drift: f64,
    /// `drift` in baseline sigmas; `None` when the baseline had no scatter.
    pub drift_sigma: Option<f64>,
    /// Percent of scored samples at least two baseline sigmas off the line (either side), to two
    /// decimals.
    pub pct_outside_2sigma: Option<f64>,
    /// The residual's own trend within the window (signal units per month).
    pub slope_per_month: Option<f64>,
    /// More than a tenth of the scored load lay outside the fitted range.
    pub extrapolated: bool,
    /// Usable samples a level baseline could not score (load off its band).
    pub out_of_scope: usize,
}

/// Score the usable samples `idx` against `fit`. `None` when fewer than [`MIN_SCORE_SAMPLES`]
/// remain after a level baseline's band is applied.
pub fn score(fit: &LoadFit, ts: &[i64], x: &[f64], y: &[f64], idx: &[u32]) -> Option<Score> {
    let scored: Vec<u32> = idx.iter().copied().filter(|&i| fit.in_scope(x[i as usize])).collect();
    let out_of_scope = idx.len() - scored.len();
    if scored.len() < MIN_SCORE_SAMPLES {
        return None;
    }
    let resid: Vec<f64> = scored.iter().map(|&i| y[i as usize] - fit.predict(x[i as usize])).collect();
    let mut sorted = resid.clone();
    let drift = round4(median_in_place(&mut sorted));
    let sigma = fit.sigma;
    let drift_sigma = (sigma > 0.0).then(|| round4(drift / sigma));
    let n = scored.len() as f64;
    let pct_outside_2sigma = (sigma > 0.0)
        .then(|| crate::engine::round2(100.0 * resid.iter().filter(|r| r.abs() >= 2.0 * sigma).count() as f64 / n));
    let off = scored.iter().filter(|&&i| !fit.covers(x[i as usize])).count() as f64;
    Some(Score {
        slope_per_month: trend_per_month(ts, &scored, &resid),
        idx: scored,
        resid,
        drift,
        drift_sigma,
        pct_outside_2sigma,
        extrapolated: off / n > EXTRAPOLATED_SHARE,
        out_of_scope,
    })
}

/// A window's signal referred to the baseline's mean condition (`c` the condition's column, one
/// value per row), so [`score`] judges it at matched load and matched condition; the signal as
/// it is for a baseline without a covariate.
pub fn adjusted(fit: &LoadFit, y: &[f64], c: Option<&[f64]>) -> Vec<f64> {
    match (&fit.covariate, c) {
        (Some(_), Some(c)) => y.iter().zip(c).map(|(&y, &c)| fit.adjust(y, c)).collect(),
        _ => y.to_vec(),
    }
}

/// Whether more than a tenth of the scored samples ran at a condition (`c`, one value per row)
/// outside the range the baseline covered; false for a baseline without a covariate.
pub fn covariate_extrapolated(fit: &LoadFit, c: &[f64], score: &Score) -> bool {
    let Some(cv) = &fit.covariate else { return false };
    let off = score.idx.iter().filter(|&&i| c.get(i as usize).is_none_or(|v| *v < cv.min || *v > cv.max)).count();
    !score.idx.is_empty() && off as f64 / score.idx.len() as f64 > EXTRAPOLATED_SHARE
}

/// The least-squares slope of the residuals against elapsed days, per month; `None` with fewer
/// than three samples or no time spread.
fn trend_per_month(ts: &[i64], idx: &[u32], resid: &[f64]) -> Option<f64> {
    if idx.len() < 3 {
        return None;
    }
    let t0 = ts[idx[0] as usize];
    let day = |i: u32| (ts[i as usize] - t0) as f64 / 86_400e9;
    let n = idx.len() as f64;
    let md = idx.iter().map(|&i| day(i)).sum::<f64>() / n;
    let mr = resid.iter().sum::<f64>() / n;
    let (mut sdd, mut sdr) = (0.0, 0.0);
    for (&i, &r) in idx.iter().zip(resid) {
        let d = day(i) - md;
        sdd += d * d;
        sdr += d * (r - mr);
    }
    (sdd > 0.0).then(|| round4(sdr / sdd * DAYS_PER_MONTH))
}

/// Which way a detector judges a drift.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Only a fall below the baseline is a fault.
    Down,
    /// Only a rise above it.
    Up,
    /// Either.
    Both,
}

impl Side {
    /// `v` measured in the direction this side judges (positive = toward a fault).
    pub fn toward(self, v: f64) -> f64 {
        match self {
            Side::Down => -v,
            Side::Up => v,
            Side::Both => v.abs(),
        }
    }
}

/// The sustained-shift check's settings, in baseline sigmas (and samples).
#[derive(Clone, Copy, Debug)]
pub struct CusumParams {
    pub slack_sigma: f64,
    pub limit_sigma: f64,
    pub clip_sigma: f64,
    pub min_consecutive: f64,
}

/// What the sustained-shift check saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Alarm {
    /// The first sample (index into the frame) at which the alarm held, if it did.
    pub first: Option<u32>,
    /// The direction that raised it (`Side::Up` or `Side::Down`).
    pub direction: Option<Side>,
    /// How much the baseline sigma was widened for correlated residuals.
    pub inflation: f64,
}

/// A tabular CUSUM of the scored residuals against the baseline, in the order scored. Each
/// residual is clipped to `clip_sigma` before it is accumulated, so one spike counts as at most
/// one sample; an alarm needs `min_consecutive` samples in a row with the accumulator at its
/// limit and the sample itself still beyond the slack, so a burst that has ended does not keep
/// it alive. Sigmas are widened by `sqrt((1 + rho) / (1 - rho))` for residuals correlated at
/// lag 1 (rho carried from the baseline's step to this window's). `None` when the baseline had
/// no scatter or nothing was scored.
pub fn cusum(fit: &LoadFit, ts: &[i64], score: &Score, side: Side, p: &CusumParams) -> Option<Alarm> {
    if fit.sigma.is_nan() || fit.sigma <= 0.0 || score.idx.is_empty() {
        return None;
    }
    let mut rho = fit.resid_lag1.clamp(0.0, 0.99);
    if rho > 0.0 && fit.step_seconds > 0.0 && score.idx.len() > 1 {
        let mut steps: Vec<f64> = score
            .idx
            .windows(2)
            .map(|w| (ts[w[1] as usize] - ts[w[0] as usize]) as f64 / NS_PER_SECOND)
            .filter(|d| *d > 0.0)
            .collect();
        if !steps.is_empty() {
            rho = rho.powf(median_in_place(&mut steps) / fit.step_seconds).clamp(0.0, 0.99);
        }
    }
    let inflation = ((1.0 + rho) / (1.0 - rho)).sqrt();
    let sigma = fit.sigma * inflation;
    let (limit, clip, slack) = (p.limit_sigma * sigma, p.clip_sigma * sigma, p.slack_sigma * sigma);
    let (mut rising, mut falling, mut run_up, mut run_down) = (0.0f64, 0.0f64, 0.0, 0.0);
    let up_ok = matches!(side, Side::Up | Side::Both);
    let down_ok = matches!(side, Side::Down | Side::Both);
    for (&i, &r) in score.idx.iter().zip(&score.resid) {
        let c = r.clamp(-clip, clip);
        rising = (rising + c - slack).max(0.0);
        falling = (falling - c - slack).max(0.0);
        run_up = if rising >= limit && c > slack { run_up + 1.0 } else { 0.0 };
        run_down = if falling >= limit && -c > slack { run_down + 1.0 } else { 0.0 };
        let direction = if up_ok && run_up >= p.min_consecutive {
            Some(Side::Up)
        } else if down_ok && run_down >= p.min_consecutive {
            Some(Side::Down)
        } else {
            None
        };
        if direction.is_some() {
            return Some(Alarm { first: Some(i), direction, inflation });
        }
    }
    Some(Alarm { first: None, direction: None, inflation })
}

/// The median (sorted in place, NaN-free input); NaN when empty.
pub fn median_in_place(v: &mut [f64]) -> f64 {
    crate::engine::median(v)
}

/// The `q` quantile (0-1) of NaN-free values, interpolating linearly between order statistics;
/// NaN when empty. Sorts in place.
pub fn quantile_in_place(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, frac) = (pos.floor() as usize, pos - pos.floor());
    if lo + 1 < v.len() {
        v[lo] + (v[lo + 1] - v[lo]) * frac
    } else {
        v[lo]
    }
}

/// Four decimals.
pub fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000_000;

    fn ts(n: usize) -> Vec<i64> {
        (0..n as i64).map(|i| i * H).collect()
    }

    #[test]
    fn a_line_and_its_scatter_are_recovered() {
        let n = 40;
        let x: Vec<f64> = (0..n).map(|i| 20.0 + i as f64).collect();
        let y: Vec<f64> =
            x.iter().enumerate().map(|(i, v)| 5.0 + 2.0 * v + if i % 2 == 0 { 0.5 } else { -0.5 }).collect();
        let idx = usable(&x, &y, &vec![true; n], 0.0, (-1e9, 1e9));
        let f = LoadFit::fit(&ts(n), &x, &y, &idx, 10.0, false).unwrap();
        assert_eq!(f.model, Model::Linear);
        assert!((f.slope - 2.0).abs() < 0.01 && (f.intercept - 5.0).abs() < 0.5);
        assert!((f.sigma - 0.5).abs() < 0.02, "{}", f.sigma);
        // alternating residuals are anti-correlated: no CUSUM widening
        assert_eq!(f.resid_lag1, 0.0);
        assert_eq!(f.step_seconds, 3600.0);
    }

    #[test]
    fn a_narrow_load_is_a_level_or_no_fit() {
        let n = 40;
        let x = vec![50.0; n];
        let y: Vec<f64> = (0..n).map(|i| 10.0 + (i % 3) as f64).collect();
        let idx = usable(&x, &y, &vec![true; n], 0.0, (0.0, 100.0));
        assert!(LoadFit::fit(&ts(n), &x, &y, &idx, 10.0, false).unwrap_err().contains("load range"));
        let f = LoadFit::fit(&ts(n), &x, &y, &idx, 10.0, true).unwrap();
        assert_eq!((f.model, f.slope, f.load_band), (Model::Level, 0.0, 5.0));
        assert!(f.in_scope(55.0) && !f.in_scope(55.1));
        // zero load span with no slope wanted: a level still fits; zero span wanted: degenerate
        assert!(LoadFit::fit(&ts(n), &x, &y, &idx, 0.0, false).unwrap_err().contains("degenerate"));
    }

    #[test]
    fn too_few_samples_and_nan_are_refused_without_panicking() {
        let x = vec![f64::NAN; 50];
        let y = vec![1.0; 50];
        let idx = usable(&x, &y, &[true; 50], 0.0, (0.0, 10.0));
        assert!(idx.is_empty());
        assert!(LoadFit::fit(&ts(50), &x, &y, &idx, 1.0, true).unwrap_err().contains("only 0"));
        assert!(LoadFit::fit(&[], &[], &[], &[], 1.0, true).is_err());
        assert!(quantile_in_place(&mut [], 0.5).is_nan());
        assert_eq!(quantile_in_place(&mut [3.0, 1.0, 2.0, 4.0], 0.5), 2.5);
        assert!((quantile_in_place(&mut (1..=100).map(f64::from).collect::<Vec<_>>(), 0.95) - 95.05).abs() < 1e-9);
    }

    #[test]
    fn the_cusum_needs_a_sustained_shift() {
        let n = 60;
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let noise = |i: usize| if i.is_multiple_of(2) { 1.0 } else { -1.0 };
        let y: Vec<f64> = (0..n).map(noise).collect();
        let idx = usable(&x, &y, &vec![true; n], 0.0, (-100.0, 100.0));
        let f = LoadFit::fit(&ts(n), &x, &y, &idx, 1.0, false).unwrap();
        let p = CusumParams { slack_sigma: 0.5, limit_sigma: 8.0, clip_sigma: 4.0, min_consecutive: 6.0 };
        let shifted: Vec<f64> = (0..n).map(|i| noise(i) - 3.0 * f.sigma).collect();
        let s = score(&f, &ts(n), &x, &shifted, &idx).unwrap();
        let a = cusum(&f, &ts(n), &s, Side::Down, &p).unwrap();
        assert_eq!(a.direction, Some(Side::Down));
        assert!(cusum(&f, &ts(n), &s, Side::Up, &p).unwrap().first.is_none());
        // one spike, however large, is clipped and does not alarm
        let spike: Vec<f64> = (0..n).map(|i| noise(i) + if i == 30 { -1000.0 } else { 0.0 }).collect();
        let s = score(&f, &ts(n), &x, &spike, &idx).unwrap();
        assert!(cusum(&f, &ts(n), &s, Side::Both, &p).unwrap().first.is_none());
    }

    #[test]
    fn a_covariate_is_recovered_and_refused_when_it_never_moved() {
        let n = 60;
        let x: Vec<f64> = (0..n).map(|i| 50.0 + ((i * 31) % 59) as f64).collect();
        let c: Vec<f64> = (0..n).map(|i| 70.0 + 10.0 * ((i * 17) % 43) as f64 / 43.0).collect();
        let y: Vec<f64> =
            (0..n).map(|i| 100.0 + 0.5 * x[i] + 3.0 * c[i] + if i % 2 == 0 { 0.2 } else { -0.2 }).collect();
        let idx = usable(&x, &y, &vec![true; n], 0.0, (-1e9, 1e9));
        let f = LoadFit::fit_with_covariate(&ts(n), &x, &y, ("cw_supply_temp", &c), &idx, 10.0, true, 2.0).unwrap();
        let cv = f.covariate.clone().unwrap();
        assert!((f.slope - 0.5).abs() < 0.01 && (cv.slope - 3.0).abs() < 0.05, "{f:?}");
        assert!((f.sigma - 0.2).abs() < 0.02, "{}", f.sigma);
        // referred to the mean condition, the adjusted signal sits on the load line
        let i = 7;
        assert!((f.adjust(y[i], c[i]) - f.predict(x[i])).abs() < 0.5);
        assert_eq!(LoadFit::fit(&ts(n), &x, &y, &idx, 10.0, true).unwrap().adjust(5.0, 99.0), 5.0);
        // a condition that never moved is not identified; one that moves with the load is degenerate
        let flat = vec![80.0; n];
        let e = LoadFit::fit_with_covariate(&ts(n), &x, &y, ("cw_supply_temp", &flat), &idx, 10.0, true, 2.0);
        assert!(e.unwrap_err().contains("spread was only 0.00"));
        let tied: Vec<f64> = x.iter().map(|v| v / 10.0).collect();
        let e = LoadFit::fit_with_covariate(&ts(n), &x, &y, ("cw_supply_temp", &tied), &idx, 10.0, true, 2.0);
        assert!(e.unwrap_err().contains("move together"));
        // a constant signal has no scatter, not a rounding error's worth
        let k = vec![3.7; n];
        assert_eq!(LoadFit::fit(&ts(n), &x, &k, &idx, 10.0, true).unwrap().sigma, 0.0);
    }

    #[test]
    fn a_window_is_referred_to_the_baselines_condition() {
        let n = 60;
        let x: Vec<f64> = (0..n).map(|i| 50.0 + ((i * 31) % 59) as f64).collect();
        let c: Vec<f64> = (0..n).map(|i| 70.0 + 10.0 * ((i * 17) % 43) as f64 / 43.0).collect();
        let y: Vec<f64> = (0..n).map(|i| 0.5 * x[i] + 3.0 * c[i] + if i % 2 == 0 { 0.2 } else { -0.2 }).collect();
        let idx = usable(&x, &y, &vec![true; n], 0.0, (-1e9, 1e9));
        let f = LoadFit::fit_with_covariate(&ts(n), &x, &y, ("wetbulb_temp", &c), &idx, 10.0, true, 2.0).unwrap();
        // the same unit ten degrees wetter and 1 unit worse: the adjusted window reads the 1
        let wetter: Vec<f64> = c.iter().map(|v| v + 10.0).collect();
        let worse: Vec<f64> = (0..n).map(|i| y[i] + 3.0 * 10.0 + 1.0).collect();
        let s = score(&f, &ts(n), &x, &adjusted(&f, &worse, Some(&wetter)), &idx).unwrap();
        assert!((s.drift - 1.0).abs() < 0.1, "{}", s.drift);
        assert!(covariate_extrapolated(&f, &wetter, &s) && !covariate_extrapolated(&f, &c, &s));
        // a baseline without a covariate leaves the signal alone
        let plain = LoadFit::fit(&ts(n), &x, &y, &idx, 10.0, true).unwrap();
        assert_eq!(adjusted(&plain, &worse, Some(&wetter)), worse);
        assert!(!covariate_extrapolated(&plain, &wetter, &s));
    }
}
