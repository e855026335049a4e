//! Grids kept between calls on an unchanged facility.
//!
//! An assistant asks about one building several times in a row (`rule_run`, then
//! `finding_detail`, `drift`, `sensor_trust`), and each call reads the same facility onto the
//! same grid. A year at one minute is about a hundred milliseconds of Parquet decoding and
//! binning, and tens of megabytes once built, so the store keeps the most recently used grids
//! under a byte budget, each filed under the facility's fingerprint (names, sizes and change
//! times of its files): any rewrite of the facility makes its grids unreachable.

use std::sync::Arc;

use crate::GridFrame;

/// What a grid was asked for: the equipment (empty: all), the time bounds and the step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GridKey {
    pub fid: String,
    pub fingerprint: String,
    pub equips: Vec<String>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub step: i64,
}

#[derive(Debug)]
struct Entry {
    key: GridKey,
    frames: Arc<Vec<GridFrame>>,
    bytes: usize,
    used: u64,
}

/// Least-recently-used grids within `budget` bytes.
#[derive(Debug)]
pub(crate) struct GridCache {
    budget: usize,
    entries: Vec<Entry>,
    clock: u64,
}

/// The bytes a grid holds (its timestamps and values; names are small).
pub(crate) fn grid_bytes(frames: &[GridFrame]) -> usize {
    frames.iter().map(|g| g.frame.ts.len() * 8 + g.frame.values.iter().map(|c| c.len() * 8).sum::<usize>()).sum()
}

impl GridCache {
    pub fn new(budget: usize) -> GridCache {
        GridCache { budget, entries: Vec::new(), clock: 0 }
    }

    /// The grid filed under `key`, if it is still kept.
    pub fn get(&mut self, key: &GridKey) -> Option<Arc<Vec<GridFrame>>> {
        self.clock += 1;
        let now = self.clock;
        let e = self.entries.iter_mut().find(|e| e.key == *key)?;
        e.used = now;
        Some(e.frames.clone())
    }

    /// Keep `frames` under `key`, dropping the facility's grids of other fingerprints (its
    /// files changed) and then the least recently used until the budget holds. A grid larger
    /// than half the budget is not kept: it would evict everything else for one facility.
    pub fn put(&mut self, key: GridKey, frames: Arc<Vec<GridFrame>>) {
        let bytes = grid_bytes(&frames);
        self.entries.retain(|e| !(e.key.fid == key.fid && e.key.fingerprint != key.fingerprint) && e.key != key);
        if bytes > self.budget / 2 {
            return;
        }
        self.clock += 1;
        self.entries.push(Entry { key, frames, bytes, used: self.clock });
        while self.entries.iter().map(|e| e.bytes).sum::<usize>() > self.budget {
            let oldest = self.entries.iter().enumerate().min_by_key(|(_, e)| e.used).map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    self.entries.swap_remove(i);
                }
                None => break,
            }
        }
    }

    /// How many grids are kept (for tests).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SharedFrame;

    fn grid(rows: usize) -> Arc<Vec<GridFrame>> {
        Arc::new(vec![GridFrame {
            equip: "AHU-1".into(),
            equip_class: "AHU".into(),
            frame: SharedFrame {
                ts: (0..rows as i64).collect(),
                roles: vec!["oat".into()],
                values: vec![vec![1.0; rows].into()],
            },
        }])
    }

    fn key(fid: &str, fp: &str, step: i64) -> GridKey {
        GridKey { fid: fid.into(), fingerprint: fp.into(), equips: Vec::new(), start: None, end: None, step }
    }

    #[test]
    fn a_grid_is_found_only_under_its_own_key() {
        let mut c = GridCache::new(1 << 20);
        c.put(key("a", "f1", 60), grid(10));
        assert!(c.get(&key("a", "f1", 60)).is_some());
        assert!(c.get(&key("a", "f1", 300)).is_none(), "another step is another grid");
        assert!(c.get(&key("a", "f2", 60)).is_none(), "a changed facility is not answered from its old grid");
        assert!(c.get(&key("b", "f1", 60)).is_none());
    }

    #[test]
    fn a_new_fingerprint_drops_the_facilitys_old_grids() {
        let mut c = GridCache::new(1 << 20);
        c.put(key("a", "f1", 60), grid(10));
        c.put(key("a", "f1", 300), grid(10));
        c.put(key("b", "f1", 60), grid(10));
        c.put(key("a", "f2", 60), grid(10));
        assert_eq!(c.len(), 2, "a's two grids of f1 are gone, b's stays");
        assert!(c.get(&key("b", "f1", 60)).is_some());
    }

    #[test]
    fn the_least_recently_used_grid_goes_first_and_a_huge_one_is_not_kept() {
        // each grid is 10 rows x (ts + one column) x 8 bytes = 160 bytes
        let mut c = GridCache::new(400);
        c.put(key("a", "f", 60), grid(10));
        c.put(key("b", "f", 60), grid(10));
        assert!(c.get(&key("a", "f", 60)).is_some());
        c.put(key("c", "f", 60), grid(10));
        assert!(c.get(&key("b", "f", 60)).is_none(), "b was used least recently");
        assert!(c.get(&key("a", "f", 60)).is_some());
        assert!(c.get(&key("c", "f", 60)).is_some());
        c.put(key("d", "f", 60), grid(20));
        assert!(c.get(&key("d", "f", 60)).is_none(), "320 bytes is more than half the budget");
    }
}
