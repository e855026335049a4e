//! Whether a trended setpoint is reset with demand or was only changed. A wide range over a
//! window is not evidence of a reset: a setpoint held for weeks and edited once has one too. A
//! reset moves on many days, and moves with what drives it (zone requests, outdoor air,
//! airflow). The static-pressure and supply-air reset rules share this classification.

use std::collections::BTreeMap;

use crate::engine::NS_PER_HOUR;

/// A day's samples sitting this share at its modal value make it a held day, not a moving one.
const HELD_SHARE: f64 = 0.90;
/// A setpoint that moved too seldom is a step when its three commonest levels hold this share.
const STEP_HELD_SHARE: f64 = 0.80;
/// A calendar day needs this many samples to be judged.
const MIN_DAY_SAMPLES: usize = 4;
/// Moving days needed (and at least `MIN_MOVING_SHARE` of the days judged).
const MIN_MOVING_DAYS: usize = 3;
const MIN_MOVING_SHARE: f64 = 0.10;
/// In a window shorter than `MIN_MOVING_DAYS` days, up/down cycles needed instead.
const MIN_CYCLES: usize = 3;
/// |Spearman rho| with the driver that confirms a reset.
const MIN_RHO: f64 = 0.3;
/// Fewest samples judged, and fewest paired with the driver.
const MIN_SAMPLES: usize = 12;
/// Decimals stored in binary: a range of exactly the threshold counts.
const EPS: f64 = 1e-9;

/// What the setpoint did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Too few samples to say.
    Insufficient,
    /// Its range is below the minimum: no reset.
    Flat,
    /// It sits at a few held levels and moved on too few days: an edit, not a reset.
    Step,
    /// It moved, but neither repeatedly nor as a clean step.
    Unclear,
    /// It moves repeatedly, with no driver to check or not with the driver given.
    Varies,
    /// It moves repeatedly and with its driver.
    Reset,
}

impl Kind {
    /// The name used in metrics and summaries.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Insufficient => "insufficient",
            Kind::Flat => "flat",
            Kind::Step => "step",
            Kind::Unclear => "unclear",
            Kind::Varies => "varies",
            Kind::Reset => "reset",
        }
    }
}

/// The classification and the figures behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    pub kind: Kind,
    pub range: f64,
    pub samples: usize,
    pub days: usize,
    pub moving_days: usize,
    pub cycles: usize,
    /// The commonest held levels, most used first (at most three).
    pub levels: Vec<f64>,
    /// Spearman rho of setpoint against driver, when there was enough overlap to compute it.
    pub rho: Option<f64>,
    /// A short description for a summary.
    pub label: String,
}

/// Ranks with ties averaged.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..x.len()).collect();
    idx.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && x[idx[j + 1]] == x[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation, `None` when either side is constant or shorter than three.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    if n < 3.0 {
        return None;
    }
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in rx.iter().zip(&ry) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}

/// The time at each value rounded to steps of `tol` (the samples' weights), keyed by step.
fn level_weights(x: &[f64], w: &[f64], tol: f64) -> BTreeMap<i64, f64> {
    let mut levels: BTreeMap<i64, f64> = BTreeMap::new();
    // a setpoint holds each value for long runs: its level is worked out and looked up once a
    // run, and the run's weights are added to the level's total one by one in order, the same
    // sums as a look-up per sample (a year at one minute is 525,600 of them)
    let mut run: Option<(f64, i64, f64)> = None;
    for (&v, &wi) in x.iter().zip(w) {
        match &mut run {
            Some((value, _, total)) if *value == v => *total += wi,
            _ => {
                if let Some((_, k, total)) = run.take() {
                    levels.insert(k, total);
                }
                let k = (v / tol).round() as i64;
                run = Some((v, k, levels.get(&k).copied().unwrap_or(0.0) + wi));
            }
        }
    }
    if let Some((_, k, total)) = run {
        levels.insert(k, total);
    }
    levels
}

/// The share of a day's time within `tol` of its commonest (rounded) value.
fn modal_share(x: &[f64], w: &[f64], tol: f64) -> f64 {
    // the commonest step; on a tie the lowest
    let (mut best, mut best_w) = (0i64, f64::NEG_INFINITY);
    for (&k, &t) in &level_weights(x, w, tol) {
        if t > best_w {
            (best, best_w) = (k, t);
        }
    }
    let mode = best as f64 * tol;
    let total: f64 = w.iter().sum();
    let at: f64 = x.iter().zip(w).filter(|(v, _)| (**v - mode).abs() <= tol + EPS).map(|(_, wi)| wi).sum();
    if total > 0.0 {
        at / total
    } else {
        0.0
    }
}

/// Up/down cycles: reversals between moves of at least `move_min`, halved.
fn cycles(x: &[f64], move_min: f64) -> usize {
    let Some(&first) = x.first() else { return 0 };
    let (mut anchor, mut direction, mut reversals) = (first, 0i8, 0usize);
    for &v in &x[1..] {
        let d = v - anchor;
        if d.abs() + EPS >= move_min {
            let s = if d > 0.0 { 1 } else { -1 };
            if direction != 0 && s != direction {
                reversals += 1;
            }
            (direction, anchor) = (s, v);
        }
    }
    reversals / 2
}

/// Classify a setpoint from the samples a rule judges (`ts` sorted; NaN setpoints are
/// dropped). `weights` is the time each sample stands for (the frame's `weights_hours`), so a
/// day's held share and the held levels are shares of time, not of samples: a trend logged on
/// change of value has many samples where the setpoint moves. `driver` is aligned with `sp`
/// and named for the label; `min_range` (the whole window) and `move_min` (within a day) are in
/// the setpoint's unit, which `unit` names.
pub fn classify(
    ts: &[i64],
    sp: &[f64],
    weights: &[f64],
    driver: Option<(&str, &[f64])>,
    min_range: f64,
    move_min: f64,
    unit: &str,
) -> Behaviour {
    let keep: Vec<usize> = (0..sp.len()).filter(|&i| !sp[i].is_nan()).collect();
    let values: Vec<f64> = keep.iter().map(|&i| sp[i]).collect();
    let w: Vec<f64> = keep.iter().map(|&i| weights.get(i).copied().filter(|x| x.is_finite()).unwrap_or(0.0)).collect();
    let n = values.len();
    let (lo, hi) = crate::engine::span(&values);
    let range = if n == 0 { 0.0 } else { hi - lo };
    let tol = move_min / 2.0;
    // calendar days with enough samples, and those the setpoint moved on: `ts` is sorted, so
    // each day's kept samples are one run of them, read in place (no copy per day)
    let mut by_day: Vec<(i64, std::ops::Range<usize>)> = Vec::new();
    for (j, &i) in keep.iter().enumerate() {
        let day = ts[i].div_euclid(24 * NS_PER_HOUR);
        match by_day.last_mut() {
            Some((d, run)) if *d == day => run.end = j + 1,
            _ => by_day.push((day, j..j + 1)),
        }
    }
    debug_assert!(by_day.windows(2).all(|p| p[0].0 < p[1].0), "classify takes sorted times");
    let judged_days: Vec<&(i64, std::ops::Range<usize>)> =
        by_day.iter().filter(|(_, run)| run.len() >= MIN_DAY_SAMPLES).collect();
    let moving: Vec<i64> = judged_days
        .iter()
        .filter(|(_, run)| {
            let (x, xw) = (&values[run.clone()], &w[run.clone()]);
            let (a, b) = crate::engine::span(x);
            b - a + EPS >= move_min && modal_share(x, xw, tol) < HELD_SHARE
        })
        .map(|(d, _)| *d)
        .collect();
    let (days, moving_days) = (judged_days.len(), moving.len());
    let cyc = cycles(&values, move_min);
    let total: f64 = w.iter().sum();
    let mut ordered: Vec<(i64, f64)> = level_weights(&values, &w, tol).into_iter().collect();
    ordered.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let held_share = if total > 0.0 { ordered.iter().take(3).map(|l| l.1).sum::<f64>() / total } else { 0.0 };
    let levels: Vec<f64> = ordered.iter().filter(|l| l.1 >= 0.01 * total).take(3).map(|l| l.0 as f64 * tol).collect();
    let u = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    let result = |kind: Kind, label: String, rho: Option<f64>| Behaviour {
        kind,
        range,
        samples: n,
        days,
        moving_days,
        cycles: cyc,
        levels: levels.clone(),
        rho,
        label,
    };
    if n < MIN_SAMPLES {
        return result(Kind::Insufficient, format!("too few setpoint samples ({n}) to judge"), None);
    }
    if range + EPS < min_range {
        return result(Kind::Flat, format!("flat (range {range:.2}{u}, under {min_range}{u})"), None);
    }
    let repeated = if days >= MIN_MOVING_DAYS {
        moving_days >= MIN_MOVING_DAYS.max((MIN_MOVING_SHARE * days as f64).ceil() as usize)
    } else {
        cyc >= MIN_CYCLES
    };
    if !repeated {
        if held_share >= STEP_HELD_SHARE {
            let lv = levels.iter().map(|v| format!("{v}")).collect::<Vec<_>>().join(", ");
            let what = if levels.len() <= 2 { "a one-time step" } else { "a few manual changes" };
            return result(
                Kind::Step,
                format!("{what} between held levels ({lv}{u}), moving on {moving_days} of {days} days: not a reset"),
                None,
            );
        }
        return result(Kind::Unclear, format!("moves (range {range:.2}{u}) but on only {moving_days} of {days} days and {cyc} cycles: too little to call a reset"), None);
    }
    let span = if days >= MIN_MOVING_DAYS {
        format!("moves on {moving_days} of {days} days")
    } else {
        format!("{cyc} up/down cycles")
    };
    let Some((name, d)) = driver else {
        return result(
            Kind::Varies,
            format!("varies repeatedly ({span}); no driver trended to confirm it follows demand"),
            None,
        );
    };
    // pairs on the moving days (all days in a short window) where the driver has a value
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for (day, run) in &by_day {
        // `moving` is in day order, as `by_day` is
        if days < MIN_MOVING_DAYS || moving.binary_search(day).is_ok() {
            for j in run.clone() {
                let i = keep[j];
                if !d[i].is_nan() {
                    xs.push(values[j]);
                    ys.push(d[i]);
                }
            }
        }
    }
    let rho = if xs.len() >= MIN_SAMPLES { spearman(&xs, &ys) } else { None };
    match rho {
        None => result(
            Kind::Varies,
            format!("varies repeatedly ({span}); too little overlap with {name} to confirm it follows demand"),
            None,
        ),
        Some(r) if r.abs() >= MIN_RHO => {
            result(Kind::Reset, format!("resets with {name} ({span}; rank correlation {r:+.2})"), Some(r))
        }
        Some(r) => result(
            Kind::Varies,
            format!(
                "varies repeatedly ({span}) but not with {name} (rank correlation {r:+.2}): not confirmed as a reset"
            ),
            Some(r),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = NS_PER_HOUR;

    fn hourly(days: usize, sp: impl Fn(usize) -> f64) -> (Vec<i64>, Vec<f64>) {
        let n = days * 24;
        ((0..n as i64).map(|i| i * H).collect(), (0..n).map(sp).collect())
    }

    #[test]
    fn spearman_basics() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn flat_step_and_insufficient() {
        let (ts, sp) = hourly(10, |_| 1.5);
        assert_eq!(classify(&ts, &sp, &vec![1.0; sp.len()], None, 0.15, 0.05, "in. w.c.").kind, Kind::Flat);
        let (ts, sp) = hourly(10, |i| if i < 120 { 1.5 } else { 1.0 });
        let b = classify(&ts, &sp, &vec![1.0; sp.len()], None, 0.15, 0.05, "in. w.c.");
        assert_eq!(b.kind, Kind::Step, "{}", b.label);
        assert_eq!(b.levels.len(), 2);
        assert_eq!(b.moving_days, 0, "the step day sits at one value 21 of 24 hours: held");
        let (ts, sp) = hourly(10, |_| f64::NAN);
        assert_eq!(classify(&ts, &sp, &vec![1.0; sp.len()], None, 0.15, 0.05, "").kind, Kind::Insufficient);
    }

    #[test]
    fn a_reset_follows_its_driver_and_a_schedule_does_not() {
        // the setpoint follows a daily demand wave
        let demand = |i: usize| ((i % 24) as f64 / 24.0 * std::f64::consts::TAU).sin();
        let (ts, sp) = hourly(10, |i| 1.0 + 0.4 * demand(i));
        let d: Vec<f64> = (0..sp.len()).map(demand).collect();
        let b = classify(&ts, &sp, &vec![1.0; sp.len()], Some(("requests", &d)), 0.15, 0.05, "in. w.c.");
        assert_eq!(b.kind, Kind::Reset, "{}", b.label);
        assert_eq!(b.moving_days, 10);
        assert!(b.rho.unwrap() > 0.99);
        // against noise unrelated to the setpoint: varies, not confirmed
        let unrelated: Vec<f64> = (0..sp.len()).map(|i| ((i * 7919) % 13) as f64).collect();
        let v = classify(&ts, &sp, &vec![1.0; sp.len()], Some(("requests", &unrelated)), 0.15, 0.05, "in. w.c.");
        assert_eq!(v.kind, Kind::Varies, "{}", v.label);
        assert_eq!(classify(&ts, &sp, &vec![1.0; sp.len()], None, 0.15, 0.05, "").kind, Kind::Varies);
    }

    #[test]
    fn moving_on_too_few_days_without_held_levels_is_unclear() {
        // one slow ramp over a two-day window: too short for moving days, no reversals, no held level
        let (ts, sp) = hourly(2, |i| 1.0 + i as f64 * 0.01);
        let b = classify(&ts, &sp, &vec![1.0; sp.len()], None, 0.15, 0.05, "");
        assert_eq!(b.kind, Kind::Unclear, "{}", b.label);
        assert_eq!(b.cycles, 0);
    }

    #[test]
    fn level_weights_by_runs_are_the_per_sample_sums_to_the_bit() {
        // held values, steps, values that round to one level, NaN and signed zeros
        let x: Vec<f64> = (0..3000)
            .map(|i| match i % 500 {
                0..=199 => 72.0,
                200..=299 => 72.0 + 0.04 * ((i % 7) as f64),
                300..=309 => f64::NAN,
                310..=319 => {
                    if i % 2 == 0 {
                        0.0
                    } else {
                        -0.0
                    }
                }
                _ => 70.0 + ((i / 37) % 5) as f64 * 0.5,
            })
            .collect();
        let w: Vec<f64> = (0..x.len()).map(|i| 1.0 / 60.0 + ((i * 7919) % 13) as f64 * 1e-3).collect();
        for tol in [0.25, 0.5, 1.0] {
            let mut each: BTreeMap<i64, f64> = BTreeMap::new();
            for (v, wi) in x.iter().zip(&w) {
                *each.entry((v / tol).round() as i64).or_insert(0.0) += wi;
            }
            let runs = level_weights(&x, &w, tol);
            assert_eq!(each.keys().collect::<Vec<_>>(), runs.keys().collect::<Vec<_>>());
            assert!(each.values().zip(runs.values()).all(|(a, b)| a.to_bits() == b.to_bits()), "tol {tol}");
        }
    }

    #[test]
    fn cycles_count_reversals() {
        assert_eq!(cycles(&[0.0, 1.0, 0.0, 1.0, 0.0], 0.5), 1);
        assert_eq!(cycles(&[0.0, 0.1, 0.2, 0.3], 0.5), 0);
        assert_eq!(cycles(&[], 0.5), 0);
    }
}
