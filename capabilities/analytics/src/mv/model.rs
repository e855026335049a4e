//! Change-point models of daily energy against daily mean outdoor air (ASHRAE RP-1050 and
//! Guideline 14's inverse models), optionally with extra linear drivers such as an occupied-day
//! indicator, fitted by least squares over a search of the change points and chosen by the
//! Bayesian information criterion as the reference does (`n ln(SSE/n) + p ln n`, every change
//! point counted in `p`; neither G14 nor RP-1050 prescribes a criterion).
//!
//! The forms: 2P `b0 + b1 T`; 3P cooling `b0 + b1 max(0, T - Tc)`; 3P heating
//! `b0 + b1 max(0, Tc - T)`; 4P `b0 + b1 min(0, T - Tc) + b2 max(0, T - Tc)`; 5P
//! `b0 + b1 max(0, Tlo - T) + b2 max(0, T - Thi)` with a dead band at least one grid step wide.
//!
//! **The search.** The observations are sorted by temperature once and prefix sums of `1, T,
//! T^2, y, Ty` (and of each driver `d, dT`, with the drivers' own cross products) are kept, so
//! the normal equations at any candidate change point come from a split index and a handful of
//! sums: each candidate costs `O(log n + p^3)`, not a refit over the days. The candidates are the
//! reference's 40-point grid between the 5th and 95th percentiles of the temperatures; unlike the
//! reference, the best grid point is then refined between its neighbours (golden section), so a
//! change point is not rounded to the grid. The chosen change points are refitted directly on the
//! design rows for the coefficients, the residuals and `(X'X)^-1`.
//!
//! Unlike the reference, a 5P with no dead band that fits is refused rather than returned as a
//! line labelled 5P (that line has the 2P's fit and two more parameters, so it never wins).

use super::linalg::{inverse, solve, Matrix};

/// A change-point form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Form {
    P2,
    P3Cooling,
    P3Heating,
    P4,
    P5,
}

impl Form {
    /// Every form, in the reference's order of preference on a tie.
    pub const ALL: [Form; 5] = [Form::P2, Form::P3Cooling, Form::P3Heating, Form::P4, Form::P5];

    /// The reference's code (`2P`, `3PC`, `3PH`, `4P`, `5P`).
    pub fn code(self) -> &'static str {
        match self {
            Form::P2 => "2P",
            Form::P3Cooling => "3PC",
            Form::P3Heating => "3PH",
            Form::P4 => "4P",
            Form::P5 => "5P",
        }
    }

    /// The form by its code.
    pub fn from_code(code: &str) -> Option<Form> {
        Form::ALL.into_iter().find(|f| f.code() == code)
    }

    /// The name a report shows.
    pub fn label(self) -> &'static str {
        match self {
            Form::P2 => "2P",
            Form::P3Cooling => "3P cooling",
            Form::P3Heating => "3P heating",
            Form::P4 => "4P",
            Form::P5 => "5P",
        }
    }

    /// How many change points it has.
    pub fn n_change_points(self) -> usize {
        match self {
            Form::P2 => 0,
            Form::P5 => 2,
            _ => 1,
        }
    }

    /// Its parameter count without drivers, change points included (the reference's `N_PARAMS`).
    pub fn n_params(self) -> usize {
        match self {
            Form::P2 => 2,
            Form::P3Cooling | Form::P3Heating => 3,
            Form::P4 => 4,
            Form::P5 => 5,
        }
    }

    /// The coefficient names in design-column order (the reference's).
    pub fn coef_names(self) -> &'static [&'static str] {
        match self {
            Form::P2 => &["base", "slope"],
            Form::P3Cooling => &["base", "cool_slope"],
            Form::P3Heating => &["base", "heat_slope"],
            Form::P4 => &["base", "left_slope", "right_slope"],
            Form::P5 => &["base", "heat_slope", "cool_slope"],
        }
    }
}

/// The temperature terms of a design row for `form` at change points `cps`.
fn temp_terms(form: Form, cps: &[f64], t: f64, out: &mut Vec<f64>) {
    out.push(1.0);
    match form {
        Form::P2 => out.push(t),
        Form::P3Cooling => out.push((t - cps[0]).max(0.0)),
        Form::P3Heating => out.push((cps[0] - t).max(0.0)),
        Form::P4 => {
            out.push((t - cps[0]).min(0.0));
            out.push((t - cps[0]).max(0.0));
        }
        Form::P5 => {
            out.push((cps[0] - t).max(0.0));
            out.push((t - cps[1]).max(0.0));
        }
    }
}

/// A fitted model: what predicts, what the statistics and the exact kernel need.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub form: Form,
    pub change_points: Vec<f64>,
    /// Coefficients in design order: the form's, then one per driver.
    pub coef: Vec<f64>,
    /// The drivers' names, in design order after the temperature terms.
    pub drivers: Vec<String>,
    /// Observations fitted.
    pub n: usize,
    /// Parameters: the form's (change points included) plus the drivers.
    pub p: usize,
    pub sse: f64,
    pub bic: f64,
    /// `(X'X)^-1` of the design rows.
    pub xtx_inv: Matrix,
    /// The fitted temperature range.
    pub fit_min: f64,
    pub fit_max: f64,
}

impl Model {
    /// The design row at temperature `t` and driver values `d`.
    pub fn row(&self, t: f64, d: &[f64]) -> Vec<f64> {
        let mut r = Vec::with_capacity(self.coef.len());
        temp_terms(self.form, &self.change_points, t, &mut r);
        r.extend_from_slice(d);
        r
    }

    /// The predicted daily energy (NaN when an input is).
    pub fn predict(&self, t: f64, d: &[f64]) -> f64 {
        self.row(t, d).iter().zip(&self.coef).map(|(x, b)| x * b).sum()
    }

    /// The residual variance `SSE / (n - p)`.
    pub fn s2(&self) -> f64 {
        if self.n > self.p {
            self.sse / (self.n - self.p) as f64
        } else {
            f64::NAN
        }
    }

    /// The coefficients by name (the reference's names; drivers by their own), change points
    /// as `Tc` or `Tc_lo`/`Tc_hi`.
    pub fn named_coefficients(&self) -> Vec<(String, f64)> {
        let mut out: Vec<(String, f64)> = self
            .form
            .coef_names()
            .iter()
            .map(|s| s.to_string())
            .chain(self.drivers.iter().cloned())
            .zip(self.coef.iter().copied())
            .collect();
        match self.change_points.as_slice() {
            [tc] => out.push(("Tc".into(), *tc)),
            [lo, hi] => {
                out.push(("Tc_lo".into(), *lo));
                out.push(("Tc_hi".into(), *hi));
            }
            _ => {}
        }
        out
    }
}

/// One form tried by [`best_model`]: its fit, or why it was refused.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub form: Form,
    pub p: usize,
    pub sse: Option<f64>,
    pub bic: Option<f64>,
    pub refused: Option<String>,
}

/// The observations a fit reads: temperature, energy and driver columns, aligned.
#[derive(Clone, Copy, Debug)]
pub struct Obs<'a> {
    pub t: &'a [f64],
    pub y: &'a [f64],
    /// One column per driver, each as long as `t`.
    pub d: &'a [Vec<f64>],
}

const TIE_REL: f64 = 1e-10;
const BIC_TIE: f64 = 1e-9;
const GRID: usize = 40;

/// The running sums of the temperature-sorted, centred observations.
struct Sums {
    n: usize,
    /// Sorted centred temperatures.
    t: Vec<f64>,
    p1: Vec<f64>,
    pt: Vec<f64>,
    ptt: Vec<f64>,
    py: Vec<f64>,
    pty: Vec<f64>,
    /// Per driver: prefix sums of d and d*t.
    pd: Vec<Vec<f64>>,
    pdt: Vec<Vec<f64>>,
    /// Totals of the plain products.
    dd: Matrix,
    dy: Vec<f64>,
    yy: f64,
}

#[derive(Clone, Copy)]
enum Col {
    One,
    Lin,
    Drv(usize),
    /// `s (t - tc)` on the sorted rows `[lo, hi)`, zero elsewhere.
    Hinge {
        lo: usize,
        hi: usize,
        s: f64,
        tc: f64,
    },
}

fn prefix(v: impl Iterator<Item = f64>, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n + 1);
    let mut acc = 0.0;
    out.push(0.0);
    for x in v {
        acc += x;
        out.push(acc);
    }
    out
}

impl Sums {
    fn new(t: &[f64], y: &[f64], d: &[&[f64]], tm: f64, ym: f64) -> Sums {
        let n = t.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| t[a].total_cmp(&t[b]));
        let ts: Vec<f64> = order.iter().map(|&i| t[i] - tm).collect();
        let ys: Vec<f64> = order.iter().map(|&i| y[i] - ym).collect();
        let dsorted: Vec<Vec<f64>> = d.iter().map(|c| order.iter().map(|&i| c[i]).collect()).collect();
        let k = d.len();
        let mut dd = vec![vec![0.0; k]; k];
        for a in 0..k {
            for b in 0..k {
                dd[a][b] = dsorted[a].iter().zip(&dsorted[b]).map(|(x, y)| x * y).sum();
            }
        }
        Sums {
            n,
            p1: prefix(ts.iter().map(|_| 1.0), n),
            pt: prefix(ts.iter().copied(), n),
            ptt: prefix(ts.iter().map(|v| v * v), n),
            py: prefix(ys.iter().copied(), n),
            pty: prefix(ts.iter().zip(&ys).map(|(a, b)| a * b), n),
            pd: dsorted.iter().map(|c| prefix(c.iter().copied(), n)).collect(),
            pdt: dsorted.iter().map(|c| prefix(c.iter().zip(&ts).map(|(a, b)| a * b), n)).collect(),
            dd,
            dy: dsorted.iter().map(|c| c.iter().zip(&ys).map(|(a, b)| a * b).sum()).collect(),
            yy: ys.iter().map(|v| v * v).sum(),
            t: ts,
        }
    }

    fn r(p: &[f64], lo: usize, hi: usize) -> f64 {
        p[hi] - p[lo]
    }

    /// Sums of z and z*t over `[lo, hi)` for a plain column z.
    fn plain_sums(&self, c: Col, lo: usize, hi: usize) -> (f64, f64) {
        match c {
            Col::One => (Sums::r(&self.p1, lo, hi), Sums::r(&self.pt, lo, hi)),
            Col::Lin => (Sums::r(&self.pt, lo, hi), Sums::r(&self.ptt, lo, hi)),
            Col::Drv(j) => (Sums::r(&self.pd[j], lo, hi), Sums::r(&self.pdt[j], lo, hi)),
            Col::Hinge { .. } => unreachable!("a hinge is not a plain column"),
        }
    }

    fn gram(&self, a: Col, b: Col, same: bool) -> f64 {
        let n = self.n;
        match (a, b) {
            (Col::Hinge { lo, hi, tc, .. }, Col::Hinge { .. }) if same => {
                Sums::r(&self.ptt, lo, hi) - 2.0 * tc * Sums::r(&self.pt, lo, hi) + tc * tc * Sums::r(&self.p1, lo, hi)
            }
            (Col::Hinge { .. }, Col::Hinge { .. }) => 0.0, // disjoint ranges
            (Col::Hinge { lo, hi, s, tc }, z) | (z, Col::Hinge { lo, hi, s, tc }) => {
                let (sz, szt) = self.plain_sums(z, lo, hi);
                s * (szt - tc * sz)
            }
            (Col::Drv(i), Col::Drv(j)) => self.dd[i][j],
            (Col::Drv(_), z) | (z, Col::Drv(_)) => {
                let j = if let Col::Drv(j) = a {
                    j
                } else if let Col::Drv(j) = b {
                    j
                } else {
                    unreachable!()
                };
                match z {
                    Col::One => self.pd[j][n],
                    _ => self.pdt[j][n],
                }
            }
            (Col::One, Col::One) => n as f64,
            (Col::Lin, Col::Lin) => self.ptt[n],
            _ => self.pt[n], // One x Lin
        }
    }

    fn rhs(&self, c: Col) -> f64 {
        let n = self.n;
        match c {
            Col::One => self.py[n],
            Col::Lin => self.pty[n],
            Col::Drv(j) => self.dy[j],
            Col::Hinge { lo, hi, s, tc } => s * (Sums::r(&self.pty, lo, hi) - tc * Sums::r(&self.py, lo, hi)),
        }
    }

    /// The least-squares SSE of these columns, `None` when their normal equations are singular.
    fn sse(&self, cols: &[Col]) -> Option<f64> {
        let k = cols.len();
        let a: Matrix = (0..k).map(|i| (0..k).map(|j| self.gram(cols[i], cols[j], i == j)).collect()).collect();
        let b: Vec<f64> = cols.iter().map(|&c| self.rhs(c)).collect();
        let beta = solve(&a, &b)?;
        let sse = self.yy - beta.iter().zip(&b).map(|(x, y)| x * y).sum::<f64>();
        Some(sse.max(0.0))
    }

    fn below(&self, tc: f64) -> usize {
        self.t.partition_point(|&v| v < tc)
    }

    fn above(&self, tc: f64) -> usize {
        self.t.partition_point(|&v| v <= tc)
    }

    /// The columns of `form` at centred change points `cps`, then the drivers.
    fn cols(&self, form: Form, cps: &[f64], k: usize) -> Vec<Col> {
        let n = self.n;
        let mut c = vec![Col::One];
        match form {
            Form::P2 => c.push(Col::Lin),
            Form::P3Cooling => c.push(Col::Hinge { lo: self.above(cps[0]), hi: n, s: 1.0, tc: cps[0] }),
            Form::P3Heating => c.push(Col::Hinge { lo: 0, hi: self.below(cps[0]), s: -1.0, tc: cps[0] }),
            Form::P4 => {
                c.push(Col::Hinge { lo: 0, hi: self.below(cps[0]), s: 1.0, tc: cps[0] });
                c.push(Col::Hinge { lo: self.above(cps[0]), hi: n, s: 1.0, tc: cps[0] });
            }
            Form::P5 => {
                c.push(Col::Hinge { lo: 0, hi: self.below(cps[0]), s: -1.0, tc: cps[0] });
                c.push(Col::Hinge { lo: self.above(cps[1]), hi: n, s: 1.0, tc: cps[1] });
            }
        }
        c.extend((0..k).map(Col::Drv));
        c
    }
}

/// numpy's default (linear) percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let pos = q / 100.0 * (sorted.len() - 1) as f64;
    let (lo, frac) = (pos.floor() as usize, pos - pos.floor());
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

fn improves(new: f64, best: f64, floor: f64) -> bool {
    new < best - TIE_REL * best.abs().max(floor)
}

/// The change points (centred) minimising the SSE of `form`, with that SSE.
fn search(s: &Sums, form: Form, k: usize, floor: f64) -> Option<(Vec<f64>, f64)> {
    let eval = |cps: &[f64]| s.sse(&s.cols(form, cps, k));
    if form == Form::P2 {
        return eval(&[]).map(|e| (Vec::new(), e));
    }
    let (mut lo, mut hi) = (percentile(&s.t, 5.0), percentile(&s.t, 95.0));
    if hi <= lo {
        (lo, hi) = (s.t[0], s.t[s.n - 1]);
    }
    let step = (hi - lo) / (GRID - 1) as f64;
    let grid: Vec<f64> = (0..GRID).map(|i| lo + step * i as f64).collect();
    let mut best: Option<(Vec<f64>, f64, [usize; 2])> = None;
    let consider = |cps: Vec<f64>, at: [usize; 2], best: &mut Option<(Vec<f64>, f64, [usize; 2])>| {
        if let Some(e) = eval(&cps) {
            if best.as_ref().is_none_or(|b| improves(e, b.1, floor)) {
                *best = Some((cps, e, at));
            }
        }
    };
    if form == Form::P5 {
        if step <= 0.0 {
            return None;
        }
        for i in 0..GRID {
            for j in i..GRID {
                if grid[j] - grid[i] >= step * (1.0 - 1e-9) {
                    consider(vec![grid[i], grid[j]], [i, j], &mut best);
                }
            }
        }
    } else {
        for (i, &g) in grid.iter().enumerate() {
            consider(vec![g], [i, i], &mut best);
        }
    }
    let (mut cps, mut e, at) = best?;
    if step > 0.0 {
        // refine each change point between its grid neighbours, the others held
        let rounds = if form == Form::P5 { 3 } else { 1 };
        for _ in 0..rounds {
            for c in 0..cps.len() {
                let mut a = grid[at[c].saturating_sub(1)];
                let mut b = grid[(at[c] + 1).min(GRID - 1)];
                if form == Form::P5 {
                    if c == 0 {
                        b = b.min(cps[1] - step);
                    } else {
                        a = a.max(cps[0] + step);
                    }
                }
                if b <= a {
                    continue;
                }
                let f = |x: f64| {
                    let mut v = cps.clone();
                    v[c] = x;
                    eval(&v).unwrap_or(f64::INFINITY)
                };
                let x = golden(f, a, b);
                let ex = f(x);
                if improves(ex, e, floor) {
                    cps[c] = x;
                    e = ex;
                }
            }
        }
    }
    Some((cps, e))
}

/// The minimiser of `f` on `[a, b]` by golden-section search (a dense scan first, so a local
/// kink does not trap it).
fn golden(f: impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const SCAN: usize = 24;
    let w = (b - a) / SCAN as f64;
    let (mut bi, mut bv) = (0, f64::INFINITY);
    for i in 0..=SCAN {
        let v = f(a + w * i as f64);
        if v < bv {
            (bi, bv) = (i, v);
        }
    }
    let (mut lo, mut hi) = ((a + w * (bi as f64 - 1.0)).max(a), (a + w * (bi as f64 + 1.0)).min(b));
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..40 {
        if f1 <= f2 {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - r * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + r * (hi - lo);
            f2 = f(x2);
        }
    }
    let x = (lo + hi) / 2.0;
    if f(x) <= bv {
        x
    } else {
        a + w * bi as f64
    }
}

/// Fit one form; `Err` says why it cannot be.
pub fn fit(obs: Obs, form: Form, driver_names: &[String]) -> Result<Model, String> {
    let k = obs.d.len();
    let keep: Vec<usize> = (0..obs.t.len())
        .filter(|&i| obs.t[i].is_finite() && obs.y[i].is_finite() && obs.d.iter().all(|c| c[i].is_finite()))
        .collect();
    let n = keep.len();
    let p = form.n_params() + k;
    if n < 3 {
        return Err(format!("{n} usable day(s), fewer than the 3 a fit needs"));
    }
    if n <= p {
        return Err(format!("n - p < 1 (n={n} days for p={p})"));
    }
    let t: Vec<f64> = keep.iter().map(|&i| obs.t[i]).collect();
    let y: Vec<f64> = keep.iter().map(|&i| obs.y[i]).collect();
    let d: Vec<Vec<f64>> = obs.d.iter().map(|c| keep.iter().map(|&i| c[i]).collect()).collect();
    let tm = t.iter().sum::<f64>() / n as f64;
    let ym = y.iter().sum::<f64>() / n as f64;
    let dref: Vec<&[f64]> = d.iter().map(Vec::as_slice).collect();
    let sums = Sums::new(&t, &y, &dref, tm, ym);
    let floor = 1e-12 * y.iter().map(|v| v * v).sum::<f64>();
    let (cps_c, _) = search(&sums, form, k, floor)
        .ok_or_else(|| "no change point gives a solvable fit (the outdoor air hardly varies)".to_string())?;
    let cps: Vec<f64> = cps_c.iter().map(|c| c + tm).collect();
    // the direct refit at the chosen change points
    let mut m = Model {
        form,
        change_points: cps,
        coef: Vec::new(),
        drivers: driver_names.to_vec(),
        n,
        p,
        sse: f64::NAN,
        bic: f64::NAN,
        xtx_inv: Vec::new(),
        fit_min: t.iter().copied().fold(f64::INFINITY, crate::engine::min_of),
        fit_max: t.iter().copied().fold(f64::NEG_INFINITY, crate::engine::max_of),
    };
    let q = form.coef_names().len() + k;
    let mut xtx = vec![vec![0.0; q]; q];
    let mut xty = vec![0.0; q];
    let mut dv = vec![0.0; k];
    for i in 0..n {
        for (j, c) in d.iter().enumerate() {
            dv[j] = c[i];
        }
        let r = m.row(t[i], &dv);
        for a in 0..q {
            xty[a] += r[a] * y[i];
            for b in 0..q {
                xtx[a][b] += r[a] * r[b];
            }
        }
    }
    let inv = inverse(&xtx).ok_or_else(|| "the design is singular at the chosen change points".to_string())?;
    m.coef = inv.iter().map(|row| row.iter().zip(&xty).map(|(a, b)| a * b).sum()).collect();
    m.xtx_inv = inv;
    m.sse = (0..n)
        .map(|i| {
            for (j, c) in d.iter().enumerate() {
                dv[j] = c[i];
            }
            let e = y[i] - m.predict(t[i], &dv);
            e * e
        })
        .sum();
    m.bic = n as f64 * (m.sse / n as f64 + 1e-12).ln() + p as f64 * (n as f64).ln();
    if !m.bic.is_finite() {
        return Err(format!("non-finite BIC (sse={})", m.sse));
    }
    Ok(m)
}

/// Fit every form of `forms` and keep the lowest BIC (a tie within 1e-9 goes to the earlier
/// form); every form tried is listed with its fit or its refusal.
pub fn best_model(obs: Obs, forms: &[Form], driver_names: &[String]) -> (Option<Model>, Vec<Candidate>) {
    let mut best: Option<Model> = None;
    let mut cands = Vec::new();
    for &form in forms {
        let p = form.n_params() + obs.d.len();
        match fit(obs, form, driver_names) {
            Ok(m) => {
                cands.push(Candidate { form, p, sse: Some(m.sse), bic: Some(m.bic), refused: None });
                if best.as_ref().is_none_or(|b| m.bic < b.bic - BIC_TIE) {
                    best = Some(m);
                }
            }
            Err(why) => cands.push(Candidate { form, p, sse: None, bic: None, refused: Some(why) }),
        }
    }
    (best, cands)
}
