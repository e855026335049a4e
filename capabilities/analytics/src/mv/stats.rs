//! Goodness of fit and Guideline 14's acceptance of a baseline, the lag-1 autocorrelation of its
//! residuals, Student's t, and the two savings-uncertainty kernels.
//!
//! Definitions (Guideline 14-2014; the reference's): with `n` days, `p` parameters (change
//! points included), residuals `e = y - yhat` and mean `ybar`:
//! `R2 = 1 - SSE/SST`; `CV(RMSE) = sqrt(SSE/(n-p)) / ybar`; `NMBE = sum(e) / ((n-p) ybar)`.
//! Acceptance at the daily tier: CV(RMSE) <= 30 % (the reference's daily tier, between G14's
//! monthly 15 % and hourly 30 %), R2 >= 0.75 and |NMBE| <= 0.5 %.
//!
//! The fractional savings uncertainty (G14 Annex B, Reddy and Claridge):
//! `FSU = t * 1.26 * CV * sqrt((n/n') (1 + 2/n) / m) / F` with `F` the savings fraction, `m`
//! reporting days and `n' = n (1 - rho)/(1 + rho)` the effective sample size. The exact kernel is
//! the prediction variance of the projected total with the model's own design matrix:
//! `Var = kappa s2 (g'(X'X)^-1 g + m)`, `g` the sum of the reporting design rows, `kappa =
//! (1 + rho)/(1 - rho)`. Unlike the reference, which rounds the degrees of freedom down to a row
//! of a small table, `t` is Student's quantile at the fit's own `n - p`.

use super::linalg::{quad, Matrix};

/// The daily CV(RMSE) ceiling.
pub const CV_RMSE_MAX_DAILY: f64 = 0.30;
/// The R2 floor.
pub const R2_MIN: f64 = 0.75;
/// The |NMBE| ceiling.
pub const NMBE_MAX: f64 = 0.005;
/// The confidence of every band.
pub const CONFIDENCE: f64 = 0.90;
/// Adjacent residual pairs needed before `rho` is estimated.
pub const RHO_MIN_PAIRS: usize = 30;

/// The statistics of a fit and its acceptance verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct FitStats {
    pub n: usize,
    pub p: usize,
    pub r2: f64,
    pub rmse: f64,
    pub cv_rmse: f64,
    pub nmbe: f64,
    pub adj_r2: f64,
    /// Lag-1 autocorrelation of the residuals (clamped at 0); `None` when it cannot be estimated.
    pub rho: Option<f64>,
    pub accept: bool,
    /// Which criteria failed (empty when accepted).
    pub failures: Vec<String>,
}

/// The statistics of observed `y` against predicted `yhat` for `p` parameters, with the days
/// (day numbers) so that only adjacent days pair for `rho`. `None` when `n <= p`.
pub fn fit_stats(y: &[f64], yhat: &[f64], days: &[i64], p: usize) -> Option<FitStats> {
    let rows: Vec<usize> = (0..y.len()).filter(|&i| y[i].is_finite() && yhat[i].is_finite()).collect();
    let n = rows.len();
    if n <= p {
        return None;
    }
    let ybar = rows.iter().map(|&i| y[i]).sum::<f64>() / n as f64;
    let sse: f64 = rows.iter().map(|&i| (y[i] - yhat[i]).powi(2)).sum();
    let sst: f64 = rows.iter().map(|&i| (y[i] - ybar).powi(2)).sum();
    let rsum: f64 = rows.iter().map(|&i| y[i] - yhat[i]).sum();
    let dof = (n - p) as f64;
    let r2 = if sst > 0.0 { 1.0 - sse / sst } else { f64::NAN };
    let rmse = (sse / dof).sqrt();
    let cv_rmse = if ybar != 0.0 { rmse / ybar } else { f64::NAN };
    let nmbe = if ybar != 0.0 { rsum / (dof * ybar) } else { f64::NAN };
    let adj_r2 = 1.0 - (1.0 - r2) * (n as f64 - 1.0) / dof;
    let resid: Vec<f64> = (0..y.len()).map(|i| y[i] - yhat[i]).collect();
    let rho = lag1_autocorrelation(&resid, days);
    let failures = acceptance(r2, cv_rmse, nmbe);
    Some(FitStats { n, p, r2, rmse, cv_rmse, nmbe, adj_r2, rho, accept: failures.is_empty(), failures })
}

/// Which of Guideline 14's daily criteria a fit fails (empty: accepted). A criterion exactly at
/// its threshold passes.
pub fn acceptance(r2: f64, cv_rmse: f64, nmbe: f64) -> Vec<String> {
    let mut failures = Vec::new();
    if !(cv_rmse.is_finite() && cv_rmse <= CV_RMSE_MAX_DAILY) {
        failures.push(format!("CV(RMSE) {:.1}% > {:.0}%", cv_rmse * 100.0, CV_RMSE_MAX_DAILY * 100.0));
    }
    if !(r2.is_finite() && r2 >= R2_MIN) {
        failures.push(format!("R2 {r2:.2} < {R2_MIN}"));
    }
    if !(nmbe.is_finite() && nmbe.abs() <= NMBE_MAX) {
        failures.push(format!("|NMBE| {:.2}% > {:.1}%", nmbe.abs() * 100.0, NMBE_MAX * 100.0));
    }
    failures
}

/// The lag-1 autocorrelation of residuals on `days`: Pearson's correlation of the pairs one
/// modal step apart (a gap or a non-finite residual breaks a pair), clamped at zero (a negative
/// estimate would narrow the band on noise), `None` with fewer than 30 pairs or no spread.
pub fn lag1_autocorrelation(resid: &[f64], days: &[i64]) -> Option<f64> {
    if resid.len() < 2 || days.len() != resid.len() {
        return None;
    }
    let mut steps: Vec<i64> = days.windows(2).map(|w| w[1] - w[0]).filter(|&d| d > 0).collect();
    if steps.is_empty() {
        return None;
    }
    let mid = steps.len() / 2;
    let step = *steps.select_nth_unstable(mid).1;
    let pairs: Vec<(f64, f64)> = (0..resid.len() - 1)
        .filter(|&i| resid[i].is_finite() && resid[i + 1].is_finite() && days[i + 1] - days[i] == step)
        .map(|i| (resid[i], resid[i + 1]))
        .collect();
    if pairs.len() < RHO_MIN_PAIRS.max(3) {
        return None;
    }
    let k = pairs.len() as f64;
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / k, pairs.iter().map(|p| p.1).sum::<f64>() / k);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for &(a, b) in &pairs {
        sab += (a - ma) * (b - mb);
        saa += (a - ma).powi(2);
        sbb += (b - mb).powi(2);
    }
    if saa <= 0.0 || sbb <= 0.0 {
        return None;
    }
    let r = sab / (saa * sbb).sqrt();
    r.is_finite().then_some(r.max(0.0))
}

/// The effective sample size `n (1 - rho)/(1 + rho)` (0 at rho >= 1).
pub fn n_effective(n: f64, rho: f64) -> f64 {
    if !rho.is_finite() || rho <= 0.0 {
        n
    } else if rho >= 1.0 {
        0.0
    } else {
        n * (1.0 - rho) / (1.0 + rho)
    }
}

/// The two-sided 90 % Student-t critical value on `df` degrees of freedom (the normal value
/// when `df` is 0). Exact for 1-4; the Cornish-Fisher series (Abramowitz and Stegun 26.7.5)
/// above, good to about 1e-4 there.
pub fn t90(df: usize) -> f64 {
    const SMALL: [f64; 4] = [6.313_752, 2.919_986, 2.353_363, 2.131_847];
    if (1..=4).contains(&df) {
        return SMALL[df - 1];
    }
    let z: f64 = 1.644_853_626_951_472_2;
    if df == 0 {
        return z;
    }
    let v = df as f64;
    let g1 = (z.powi(3) + z) / 4.0;
    let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
    let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
    let g4 = (79.0 * z.powi(9) + 776.0 * z.powi(7) + 1482.0 * z.powi(5) - 1920.0 * z.powi(3) - 945.0 * z) / 92_160.0;
    z + g1 / v + g2 / v.powi(2) + g3 / v.powi(3) + g4 / v.powi(4)
}

/// G14's fractional savings uncertainty at 90 %; NaN where it is undefined (no saving, no
/// reporting day, no effective sample).
pub fn fsu_g14(cv_rmse: f64, n: usize, p: usize, m: usize, savings_fraction: f64, rho: f64) -> f64 {
    let n_eff = n_effective(n as f64, rho);
    let f = savings_fraction.abs();
    if !(f.is_finite() && f > 0.0 && m > 0 && n_eff > 0.0 && cv_rmse.is_finite() && n > 0) {
        return f64::NAN;
    }
    let bracket = (n as f64 / n_eff) * (1.0 + 2.0 / n as f64) / m as f64;
    t90(n.saturating_sub(p)) * 1.26 * cv_rmse * bracket.sqrt() / f
}

/// `kappa = (1 + rho)/(1 - rho)` (1 when rho is unknown or not positive).
pub fn kappa(rho: Option<f64>) -> f64 {
    match rho {
        Some(r) if r.is_finite() && r > 0.0 => {
            if r >= 1.0 {
                f64::INFINITY
            } else {
                (1.0 + r) / (1.0 - r)
            }
        }
        _ => 1.0,
    }
}

/// The exact projection variances of a fit's total over rows whose design rows sum to `g`:
/// `(V_param, V_noise)` with `V_param = kappa s2 g'Ag` and `V_noise = kappa s2 m`.
pub fn projection_variance(xtx_inv: &Matrix, s2: f64, g: &[f64], m: usize, rho: Option<f64>) -> (f64, f64) {
    let k = kappa(rho);
    (k * s2 * quad(xtx_inv, g), k * s2 * m as f64)
}
