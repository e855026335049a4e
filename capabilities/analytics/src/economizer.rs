//! Economizer state read from trends, shared by `economizer_high_limit`, `free_cooling_missed`
//! and `dcv_verification`: which samples the supply fan runs, position signals put on a 0-100
//! scale, the mixing-box temperature balance, whether a unit runs on (nearly) all outdoor air,
//! and which samples an economizer may be the one moving the outdoor-air damper.

use crate::engine::{fan_on, Frame};

/// |RAT - OAT| (°F) under which the temperature balance divides by too small a number to trust.
pub const BALANCE_MIN_DELTA_F: f64 = 5.0;
/// An outdoor-air damper at or above this (%) counts as fully open: actuator span and stroke
/// limits keep a damper at full open from reading quite 100.
pub const FULL_OA_DAMPER_PCT: f64 = 90.0;
/// A balance outdoor-air fraction at or above this (%) counts as all outdoor air: sensor error
/// and a stratified mixing box keep a unit on 100 % outdoor air from reading 100.
pub const FULL_OA_FRACTION_PCT: f64 = 80.0;
/// A heating valve above this (%) means the supply-air loop is heating, so the economizer holds
/// the damper at its minimum.
pub const HEATING_VALVE_PCT: f64 = 5.0;

/// What the fan gate read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FanGate {
    /// The rule was told not to gate (its `fan_gate` parameter is off).
    Disabled,
    /// No fan status, speed or airflow is trended: every sample is judged.
    NoSignal,
    /// Gated on this signal ("fan status", "fan speed" or "airflow proxy").
    From(&'static str),
}

/// Which samples the supply fan runs, by `engine::fan_on`; a sample without a reading of the
/// chosen signal counts as stopped. Every sample runs when `enabled` is false or the frame has
/// no fan signal, and the gate says which.
pub fn running(frame: &Frame, enabled: bool) -> (Vec<bool>, FanGate) {
    if !enabled {
        return (vec![true; frame.len()], FanGate::Disabled);
    }
    match fan_on(frame) {
        Some((v, src)) => (v.into_iter().map(|x| x == Some(true)).collect(), FanGate::From(src)),
        None => (vec![true; frame.len()], FanGate::NoSignal),
    }
}

/// The factor that puts a position column on 0-100: 100 for a column that reads as a 0-1
/// fraction (every value between -0.01 and 1.5), else 1.
pub fn percent_scale(col: &[f64]) -> f64 {
    let (lo, hi) = crate::engine::span(col);
    if hi.is_finite() && hi <= 1.5 && lo >= -0.01 {
        100.0
    } else {
        1.0
    }
}

/// The outdoor-air fraction (%) from the mixing-box balance (RAT - MAT) / (RAT - OAT), where
/// all three temperatures are read and |RAT - OAT| is at least `denom_min`.
pub fn balance_oaf(oat: f64, mat: f64, rat: f64, denom_min: f64) -> Option<f64> {
    let d = rat - oat;
    (!mat.is_nan() && d.abs() >= denom_min).then(|| 100.0 * (rat - mat) / d)
}

/// Per sample, whether the unit runs on (nearly) all outdoor air: where the balance is well
/// conditioned its outdoor-air fraction decides (a damper can read open while stuck; mixed air
/// cannot), elsewhere the damper at or above `FULL_OA_DAMPER_PCT`. `None` when the frame has
/// neither a damper nor both mixed and return air, so full outdoor air cannot be told.
pub fn on_full_outdoor_air(frame: &Frame, oat: &[f64]) -> Option<Vec<bool>> {
    let damper = frame.col("oa_damper");
    let temps = frame.col("mixed_air_temp").zip(frame.col("return_air_temp"));
    if damper.is_none() && temps.is_none() {
        return None;
    }
    let scale = damper.map_or(1.0, percent_scale);
    Some(
        (0..frame.len())
            .map(|i| match temps.and_then(|(m, r)| balance_oaf(oat[i], m[i], r[i], BALANCE_MIN_DELTA_F)) {
                Some(oaf) => oaf >= FULL_OA_FRACTION_PCT,
                None => damper.is_some_and(|d| d[i] * scale >= FULL_OA_DAMPER_PCT),
            })
            .collect(),
    )
}

/// What said whether the economizer may be running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EconEvidence {
    /// A trended economizer command.
    Command,
    /// Outdoor air against the high limit, and the heating valve.
    OatAndHeating,
    /// Outdoor air against the high limit alone.
    Oat,
    /// Nothing: the economizer cannot be ruled out anywhere.
    None,
}

/// Per sample, whether an economizer may be driving the outdoor-air damper (its position then
/// follows the weather, not ventilation demand), from the best evidence trended: the economizer
/// command (any non-zero value, since an averaged on/off command is fractional in an hour it ran
/// for part of); else outdoor air at or below `high_limit_f` unless the heating valve is open
/// beyond `HEATING_VALVE_PCT` (a sequenced loop holds minimum air while heating); else outdoor air
/// alone. A sample missing the deciding reading may be economizing. `None` with no evidence.
pub fn economizer_may_run(frame: &Frame, high_limit_f: f64) -> (Option<Vec<bool>>, EconEvidence) {
    if let Some(cmd) = frame.col("econ_cmd") {
        return (Some(cmd.iter().map(|&c| c.is_nan() || c > 0.0).collect()), EconEvidence::Command);
    }
    let Some(oat) = frame.col("oat") else {
        return (None, EconEvidence::None);
    };
    let locked_out = |i: usize| oat[i] > high_limit_f;
    match frame.col("heat_valve") {
        Some(hv) => (
            Some((0..frame.len()).map(|i| !(locked_out(i) || hv[i] > HEATING_VALVE_PCT)).collect()),
            EconEvidence::OatAndHeating,
        ),
        None => (Some((0..frame.len()).map(|i| !locked_out(i)).collect()), EconEvidence::Oat),
    }
}

/// The `q`-th percentile (0-100) of ascending-sorted values, interpolating linearly between
/// neighbours; NaN when there are none.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    interpolated(sorted.len(), q, |lo| (sorted[lo], sorted[(lo + 1).min(sorted.len() - 1)]))
}

/// The `q`-th percentile of `n` values from `at(lo)`: the values at ordered positions `lo` and
/// the one after it (`lo` again at the end), interpolated linearly between them.
fn interpolated(n: usize, q: f64, at: impl FnOnce(usize) -> (f64, f64)) -> f64 {
    match n {
        0 => f64::NAN,
        1 => at(0).0,
        n => {
            let pos = (q / 100.0).clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let (below, above) = at(lo);
            below + (above - below) * (pos - lo as f64)
        }
    }
}

/// The values at `idx` of `col` that are read, sorted ascending.
pub fn sorted_at(col: &[f64], idx: impl Iterator<Item = usize>) -> Vec<f64> {
    let mut v = read_at(col, idx);
    v.sort_by(f64::total_cmp);
    v
}

/// The values at `idx` of `col` that are read, in `idx`'s order.
pub fn read_at(col: &[f64], idx: impl Iterator<Item = usize>) -> Vec<f64> {
    idx.map(|i| col[i]).filter(|v| !v.is_nan()).collect()
}

/// [`percentile`] of the read values of `col` at `idx`, found by selection: the same value as
/// sorting them first, in linear time (a year's sort was the largest single cost of
/// `free_cooling_missed`).
pub fn percentile_at(col: &[f64], idx: impl Iterator<Item = usize>, q: f64) -> f64 {
    percentile_unsorted(&mut read_at(col, idx), q)
}

/// [`percentile`] of values in any order (reordered in place): the value below the position
/// by selection, the one above it as the smallest of those after it.
pub fn percentile_unsorted(v: &mut [f64], q: f64) -> f64 {
    interpolated(v.len(), q, |lo| {
        let (_, &mut below, after) = v.select_nth_unstable_by(lo, f64::total_cmp);
        (below, after.iter().copied().min_by(f64::total_cmp).unwrap_or(below))
    })
}

/// An outdoor airflow's standard deviation at most this share of its mean is steady: a fixed
/// minimum outdoor airflow (or a damper fixed in place), whatever fraction of the supply it is.
pub const STEADY_OA_CV: f64 = 0.15;

/// The mean outdoor airflow (cfm) of `cfm` when it holds steady ([`STEADY_OA_CV`]) over at
/// least `min_n` positive readings; `None` otherwise.
pub fn steady_oa_cfm(cfm: &[f64], min_n: usize) -> Option<f64> {
    let v: Vec<f64> = cfm.iter().copied().filter(|c| c.is_finite() && *c > 0.0).collect();
    if v.len() < min_n.max(1) {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = (v.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    (sd <= STEADY_OA_CV * mean).then_some(mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_scale_and_percentiles() {
        assert_eq!(percent_scale(&[0.0, 0.5, f64::NAN, 1.0]), 100.0);
        assert_eq!(percent_scale(&[0.0, 35.0]), 1.0);
        assert_eq!(percent_scale(&[f64::NAN]), 1.0);
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0, 5.0], 50.0), 3.0);
        assert_eq!(percentile(&[0.0, 10.0], 25.0), 2.5);
        assert!(percentile(&[], 50.0).is_nan());
        assert_eq!(sorted_at(&[3.0, f64::NAN, 1.0], 0..3), vec![1.0, 3.0]);
        assert_eq!(read_at(&[3.0, f64::NAN, 1.0], 0..3), vec![3.0, 1.0]);
    }

    #[test]
    fn a_percentile_by_selection_is_the_sorted_ones_to_the_bit() {
        let mut rng = camber_synth::rng::Rng::stream(7, "percentile", "values");
        for n in 1..60 {
            // coarse values repeat, and signed zeros and infinities are among them
            let col: Vec<f64> = (0..n)
                .map(|_| match rng.below(12) {
                    0 => f64::NAN,
                    1 => -0.0,
                    2 => 0.0,
                    3 => f64::INFINITY,
                    _ => (rng.range(-5.0, 5.0) * 2.0).round() / 2.0,
                })
                .collect();
            for q in [0.0, 2.5, 5.0, 10.0, 25.0, 50.0, 90.0, 95.0, 98.0, 100.0] {
                let sorted = percentile(&sorted_at(&col, 0..n), q);
                let selected = percentile_at(&col, 0..n, q);
                assert_eq!(sorted.to_bits(), selected.to_bits(), "n {n}, q {q}: {col:?}");
            }
        }
    }

    #[test]
    fn balance_and_full_outdoor_air() {
        assert_eq!(balance_oaf(50.0, 62.0, 74.0, 5.0), Some(50.0));
        assert_eq!(balance_oaf(72.0, 72.0, 74.0, 5.0), None); // ill-conditioned
        assert_eq!(balance_oaf(50.0, f64::NAN, 74.0, 5.0), None);
        // the balance overrides a damper that reads open; the damper decides where the balance cannot
        let f = Frame::from_rows(
            &[0, 1, 2],
            &[
                ("oa_damper", vec![100.0, 100.0, 20.0]),
                ("mixed_air_temp", vec![70.0, 72.0, 52.0]),
                ("return_air_temp", vec![74.0, 74.0, 74.0]),
            ],
        );
        assert_eq!(on_full_outdoor_air(&f, &[50.0, 72.0, 50.0]), Some(vec![false, true, true]));
        assert_eq!(on_full_outdoor_air(&Frame::from_rows(&[0], &[("cool_valve", vec![1.0])]), &[50.0]), None);
    }

    #[test]
    fn economizer_evidence_in_order_of_preference() {
        let f =
            Frame::from_rows(&[0, 1, 2], &[("oat", vec![60.0, 80.0, f64::NAN]), ("heat_valve", vec![0.0, 0.0, 50.0])]);
        assert_eq!(economizer_may_run(&f, 75.0), (Some(vec![true, false, false]), EconEvidence::OatAndHeating));
        let mut g = f.clone();
        g.cols.insert("econ_cmd".into(), vec![0.0, 0.25, f64::NAN]);
        assert_eq!(economizer_may_run(&g, 75.0), (Some(vec![false, true, true]), EconEvidence::Command));
        g.cols.clear();
        assert_eq!(economizer_may_run(&g, 75.0), (None, EconEvidence::None));
    }

    #[test]
    fn the_fan_gate() {
        let f = Frame::from_rows(&[0, 1, 2], &[("supply_fan_status", vec![1.0, 0.0, f64::NAN])]);
        assert_eq!(running(&f, true), (vec![true, false, false], FanGate::From("fan status")));
        assert_eq!(running(&f, false), (vec![true; 3], FanGate::Disabled));
        assert_eq!(running(&Frame::from_rows(&[0], &[("oat", vec![1.0])]), true), (vec![true], FanGate::NoSignal));
    }
}
