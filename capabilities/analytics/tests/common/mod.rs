//! Helpers the synthetic-building tests share.
#![allow(dead_code)]

use camber_analytics::engine::{Frame, Outcome, Params, Severity};
use camber_analytics::rules;

/// One equipment of a generated dataset as a frame.
pub fn frame_of(g: &camber_synth::Generated, equip: &str) -> Frame {
    let series: Vec<&camber_synth::PointSeries> = g.series.iter().filter(|s| s.equip == equip).collect();
    let n = series[0].values.len();
    let ts: Vec<i64> = (0..n).map(|i| series[0].ts(i)).collect();
    let cols: Vec<(&str, Vec<f64>)> = series.iter().map(|s| (s.role.as_str(), s.values.clone())).collect();
    Frame::from_rows(&ts, &cols)
}

/// The worst severity a rule gives an equipment (`None` when skipped).
pub fn verdict(rule: &str, f: &Frame) -> Option<Severity> {
    let r = rules::all().into_iter().find(|r| (r.spec)().id == rule).expect("rule exists");
    match r.evaluate(&(r.spec)(), f, &Params::default()) {
        Outcome::Findings(v) => v.iter().map(|x| x.severity).max(),
        Outcome::Skipped { .. } => None,
    }
}

/// The samples of `f` in days `from..to` of its span: a drift test's baseline or current window.
pub fn window(f: &Frame, from: i64, to: i64) -> Frame {
    const DAY: i64 = 86_400_000_000_000;
    let t0 = f.ts[0];
    let keep: Vec<usize> = (0..f.len()).filter(|&i| (from * DAY..to * DAY).contains(&(f.ts[i] - t0))).collect();
    let ts: Vec<i64> = keep.iter().map(|&i| f.ts[i]).collect();
    let cols: Vec<(&str, Vec<f64>)> =
        f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect();
    Frame::from_rows(&ts, &cols)
}
