//! Flagged time as spans of wall-clock time. A finding flags sample indices into its
//! equipment's frame; each sample stands for the time to its next sample, capped at 1.5 typical
//! intervals (as [`Frame::weights_hours`] weighs judged time), so a data gap is not flagged time.
//! Spans of several findings, on several equipment and grids, add as a union: two members
//! flagging the same hour count it once.

use serde::Serialize;

use crate::engine::{Frame, NS_PER_HOUR};

/// One equipment's time axis and when it ran: what the report needs of a frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EquipTimes {
    /// The frame's timestamps (sorted, ns), which a finding's flagged indices index.
    pub ts: Vec<i64>,
    /// Whether the equipment ran at each timestamp (`None`: no run signal, hours are not gated).
    pub running: Option<Vec<bool>>,
    /// What said it ran ("fan status", "pump status", ...; "none" without a signal).
    pub gate: String,
}

impl EquipTimes {
    /// An equipment's axis and run gate from its frame: the supply fan (status, speed, airflow),
    /// else a plant's run signal (a chiller's or loop's, a hot-water pump's, a boiler's firing).
    pub fn of(frame: &Frame) -> EquipTimes {
        let (running, gate) = if let Some((on, src)) = crate::engine::fan_on(frame) {
            (Some(on.iter().map(|v| v.unwrap_or(false)).collect()), src.to_string())
        } else if let Some(r) = crate::chiller::plant_running(frame) {
            (Some(r.on), "plant run signal".to_string())
        } else if let Some(r) = crate::hw_plant::pump_running(frame).or_else(|| crate::hw_plant::boiler_firing(frame)) {
            (Some(r.duty.iter().map(|d| *d > 0.5).collect()), r.source.to_string())
        } else {
            (None, "none".to_string())
        };
        EquipTimes { ts: frame.ts.clone(), running, gate }
    }

    /// An axis with no run signal.
    pub fn ungated(ts: Vec<i64>) -> EquipTimes {
        EquipTimes { ts, running: None, gate: "none".into() }
    }

    /// How long each sample stands for, in ns: the spacing to the next sample, capped at 1.5
    /// typical spacings (the median gap), as [`Frame::weights_hours`] weighs judged time.
    pub fn weights_ns(&self) -> Vec<i64> {
        let mut gaps: Vec<i64> = self.ts.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
        let typical = if gaps.is_empty() {
            NS_PER_HOUR
        } else {
            let mut sorted = gaps.clone();
            let mid = sorted.len() / 2;
            *sorted.select_nth_unstable(mid).1
        };
        gaps.push(typical);
        let cap = typical.saturating_mul(3) / 2;
        gaps.into_iter().map(|d| d.min(cap)).collect()
    }

    /// The running hours (`None` without a run signal).
    pub fn running_hours(&self) -> Option<f64> {
        let on = self.running.as_ref()?;
        let w = self.weights_ns();
        let ns: i64 = w.iter().zip(on).filter(|(_, r)| **r).map(|(w, _)| *w).sum();
        Some(ns as f64 / NS_PER_HOUR as f64)
    }

    /// The spans of the flagged samples `idx`, only where the equipment ran when `gated` and it
    /// has a run signal. Indices off the axis are ignored.
    pub fn spans(&self, idx: &[u32], gated: bool) -> Spans {
        let w = self.weights_ns();
        let run = if gated { self.running.as_ref() } else { None };
        let mut v: Vec<(i64, i64)> = idx
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| i < self.ts.len() && run.is_none_or(|r| r.get(i).copied().unwrap_or(false)))
            .map(|i| (self.ts[i], self.ts[i].saturating_add(w[i])))
            .filter(|(a, b)| b > a)
            .collect();
        v.sort_unstable();
        Spans::merged(v)
    }
}

/// A set of disjoint, sorted half-open time spans `[start, end)` in ns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spans(pub Vec<(i64, i64)>);

impl Spans {
    /// Sorted spans merged where they touch or overlap.
    fn merged(sorted: Vec<(i64, i64)>) -> Spans {
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(sorted.len());
        for (a, b) in sorted {
            match out.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        Spans(out)
    }

    /// The union of two span sets.
    pub fn union(&self, other: &Spans) -> Spans {
        let mut all: Vec<(i64, i64)> = Vec::with_capacity(self.0.len() + other.0.len());
        // both are sorted: merge them in one pass
        let (mut i, mut j) = (0, 0);
        while i < self.0.len() || j < other.0.len() {
            if j >= other.0.len() || (i < self.0.len() && self.0[i] <= other.0[j]) {
                all.push(self.0[i]);
                i += 1;
            } else {
                all.push(other.0[j]);
                j += 1;
            }
        }
        Spans::merged(all)
    }

    /// The time both span sets cover, in ns.
    pub fn overlap_ns(&self, other: &Spans) -> i64 {
        let (mut i, mut j, mut total) = (0, 0, 0i64);
        while i < self.0.len() && j < other.0.len() {
            let (a, b) = (self.0[i], other.0[j]);
            let lo = a.0.max(b.0);
            let hi = a.1.min(b.1);
            if hi > lo {
                total += hi - lo;
            }
            if a.1 <= b.1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        total
    }

    /// The total time covered, in ns.
    pub fn total_ns(&self) -> i64 {
        self.0.iter().map(|(a, b)| b - a).sum()
    }

    /// The total time covered, in hours.
    pub fn hours(&self) -> f64 {
        self.total_ns() as f64 / NS_PER_HOUR as f64
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = NS_PER_HOUR;

    #[test]
    fn overlapping_members_count_once_and_gaps_are_not_flagged_time() {
        let t = EquipTimes::ungated((0..10).map(|i| i * H).collect());
        let a = t.spans(&[1, 2, 3], false);
        let b = t.spans(&[3, 4], false);
        assert_eq!(a.hours(), 3.0);
        assert_eq!(a.union(&b).hours(), 4.0, "hour 3 counted once");
        assert_eq!(a.overlap_ns(&b), H);
        // a sample before a gap stands for 1.5 typical steps at most
        let gap = EquipTimes::ungated(vec![0, H, 2 * H, 10 * H]);
        assert_eq!(gap.spans(&[2], false).hours(), 1.5);
        // indices off the axis are ignored, not a panic
        assert!(t.spans(&[99], false).is_empty());
        assert!(EquipTimes::default().spans(&[0], true).is_empty());
    }

    #[test]
    fn sample_spans_weigh_as_the_engine_weighs_judged_time() {
        let ts = vec![0, 15 * 60_000_000_000, 30 * 60_000_000_000, 5 * H, 5 * H + 15 * 60_000_000_000];
        let f = Frame { ts: ts.clone(), cols: Default::default() };
        let ours: Vec<f64> = EquipTimes::ungated(ts).weights_ns().iter().map(|w| *w as f64 / H as f64).collect();
        assert_eq!(ours, f.weights_hours());
    }

    #[test]
    fn hours_are_gated_to_running() {
        let mut t = EquipTimes::ungated((0..4).map(|i| i * H).collect());
        t.running = Some(vec![true, false, true, true]);
        assert_eq!(t.spans(&[0, 1, 2], true).hours(), 2.0);
        assert_eq!(t.spans(&[0, 1, 2], false).hours(), 3.0);
        assert_eq!(t.running_hours(), Some(3.0));
        assert_eq!(EquipTimes::ungated(vec![0]).running_hours(), None);
    }

    #[test]
    fn a_frame_gives_its_fan_gate() {
        let f = Frame::from_rows(&[0, H, 2 * H], &[("supply_fan_status", vec![1.0, 0.0, 1.0])]);
        let t = EquipTimes::of(&f);
        assert_eq!((t.running, t.gate.as_str()), (Some(vec![true, false, true]), "fan status"));
        assert_eq!(EquipTimes::of(&Frame::default()).gate, "none");
    }
}
