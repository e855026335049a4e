//! One signal judged against one load: the fit on a baseline window and the verdict on a current
//! one that the single-comparison detectors (the air side's and the terminal boxes') share. A
//! detector builds its [`Series`] (the signal, the load and which samples qualify), declares its
//! [`Comparison`] (metric prefix, unit, direction, plausible band, wording) and adds only what is
//! its own: confounds, extra metrics, a severity a reset explains away.

use std::collections::BTreeMap;

use super::loadfit::{self, CusumParams, LoadFit, Score, Side};
use super::{flagged, grade, score_caveats, score_metrics, why_unusable, DetectorSpec, Floors, Part, Wording};
use crate::engine::{Finding, Severity};

/// A window's columns ready to fit or score: the signal `y` against the load `x`, and which
/// samples the detector's gates keep.
pub(super) struct Series {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub keep: Vec<bool>,
}

/// What a single comparison fits, judges and reports.
pub(super) struct Comparison {
    /// The metric prefix (`fan_power`).
    pub prefix: &'static str,
    /// The unit key of its metric names (`kw`).
    pub unit_key: &'static str,
    pub side: Side,
    /// The plausible signal values (inclusive).
    pub range: (f64, f64),
    /// The load and the signal as a reason names them (`airflow`, `power`).
    pub names: (&'static str, &'static str),
    /// The load as the extrapolation caveat words it (`airflow`).
    pub load_word: &'static str,
    pub wording: Wording,
}

/// The caveat every finding of these detectors carries: their floors are starting points.
pub(super) const PROVISIONAL: &str =
    "the warn and fault floors are screening-grade starting points, not calibrated on this equipment";

/// Fit `c` on a baseline window: a part named `name` holding the line of the signal against the
/// load from `min_load` up (a load span under `min_span` declines), or why not.
pub(super) fn fit_part(
    c: &Comparison,
    name: &str,
    ts: &[i64],
    s: &Series,
    gates: (f64, f64),
    gate_source: &str,
    basis: &str,
) -> Part {
    let (min_load, min_span) = gates;
    let mut part = Part::named(name);
    part.min_load = min_load;
    part.min_span = min_span;
    part.gate_source = gate_source.into();
    part.signal_range = Some(c.range);
    let idx = loadfit::usable(&s.x, &s.y, &s.keep, min_load, c.range);
    let fitted = if idx.len() < loadfit::MIN_FIT_SAMPLES {
        Err(why_unusable(&s.x, &s.y, &s.keep, min_load, Some(c.range), c.names, basis))
    } else {
        LoadFit::fit(ts, &s.x, &s.y, &idx, min_span, false)
    };
    match fitted {
        Ok(f) => part.fit = Some(f),
        Err(why) => part.declined = Some(why),
    }
    part
}

/// A comparison judged on a current window, before the detector adds its own metrics and caveats.
pub(super) struct Judged {
    pub score: Score,
    pub severity: Severity,
    pub metrics: BTreeMap<String, f64>,
    pub caveats: Vec<String>,
    pub sigma: f64,
}

/// Score a current window against `part`'s fit, grade it with `floors`, run the sustained-shift
/// check and fill the standard metrics and caveats; `Err` says why nothing could be judged.
pub(super) fn judge_part(
    c: &Comparison,
    part: &Part,
    ts: &[i64],
    s: &Series,
    floors: &Floors,
    cusum: &CusumParams,
    basis: &str,
) -> Result<Judged, String> {
    let fit = part
        .fit
        .as_ref()
        .ok_or_else(|| format!("no baseline: {}", part.declined.as_deref().unwrap_or("it was not fitted")))?;
    let range = part.signal_range.unwrap_or(c.range);
    let idx = loadfit::usable(&s.x, &s.y, &s.keep, part.min_load, range);
    let Some(score) = loadfit::score(fit, ts, &s.x, &s.y, &idx) else {
        return Err(if idx.is_empty() {
            why_unusable(&s.x, &s.y, &s.keep, part.min_load, Some(range), c.names, basis)
        } else {
            format!("only {} usable sample(s) in the current window (need {})", idx.len(), loadfit::MIN_SCORE_SAMPLES)
        });
    };
    let severity = grade(c.side, score.drift, score.drift_sigma, floors);
    let alarm = loadfit::cusum(fit, ts, &score, c.side, cusum);
    let mut metrics = BTreeMap::new();
    score_metrics(&mut metrics, c.prefix, c.unit_key, fit, &score, alarm.as_ref());
    metrics.insert(format!("{}_load_gate", c.prefix), loadfit::round4(part.min_load));
    let mut caveats = Vec::new();
    score_caveats(&mut caveats, fit, &score, alarm.as_ref(), c.load_word);
    if alarm.as_ref().is_some_and(|a| a.first.is_some()) {
        caveats.push("the sustained-shift check alarmed: the shift opened and stayed open (an untuned check; it does not change the severity)".into());
    }
    Ok(Judged { score, severity, metrics, caveats, sigma: fit.sigma })
}

impl Judged {
    /// The samples at least two baseline sigmas off the line in the judged direction.
    pub fn flagged(&self, c: &Comparison, floors: &Floors) -> Vec<u32> {
        flagged(&self.score, self.sigma, c.side, floors.warn)
    }

    /// The standard summary of this verdict.
    pub fn summary(&self, c: &Comparison, floors: &Floors, basis: &str) -> String {
        c.wording.summary(
            c.side,
            self.severity,
            self.score.drift,
            self.score.drift_sigma,
            floors,
            (self.score.idx.len(), basis),
        )
    }

    /// The one finding of a single-comparison detector, with `summary` (the standard one unless a
    /// detector words its own).
    pub fn finding(mut self, spec: &DetectorSpec, c: &Comparison, floors: &Floors, summary: Option<String>) -> Finding {
        let summary = summary.unwrap_or_else(|| self.summary(c, floors, spec.judged_basis));
        let flagged = self.flagged(c, floors);
        self.caveats.push(PROVISIONAL.into());
        self.metrics.insert("thresholds_provisional".into(), 1.0);
        let judged = self.score.idx.len();
        Finding::of(spec.id, spec.judged_basis, self.severity, summary)
            .with_caveats(self.caveats)
            .with_metrics(self.metrics)
            .with_flagged(flagged)
            .with_judged(judged)
    }
}

/// The median of `col` over the kept samples, rounded to `decimals`; `None` when none is kept.
pub(super) fn median_rounded(col: &[f64], keep: &[bool], decimals: i32) -> Option<f64> {
    let scale = 10f64.powi(decimals);
    super::median_kept(col, keep).map(|m| (m * scale).round() / scale)
}

/// The shift of a confounding signal between the windows: the current window's median over
/// `keep` minus the baseline's stored one, rounded to `decimals`.
pub(super) fn shift(baseline_median: Option<f64>, col: Option<&[f64]>, keep: &[bool], decimals: i32) -> Option<f64> {
    let scale = 10f64.powi(decimals);
    baseline_median.zip(col.and_then(|c| super::median_kept(c, keep))).map(|(b, c)| ((c - b) * scale).round() / scale)
}
