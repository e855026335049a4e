//! How far a call's work has gone: what a guest reports through the WIT `progress` import,
//! and the percentage a transport sends on. Shared by the runtime (which receives the
//! reports), the registry (which cleans their text) and the transports (which turn them into
//! MCP progress notifications), so every one of them reads the same numbers.

use std::sync::{Arc, Mutex};

/// One report: `done` of `total` units of work finished, and what was just finished.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Units of work finished.
    pub done: u32,
    /// Units of work in all (never 0 once cleaned).
    pub total: u32,
    /// What the guest is at, one line.
    pub message: String,
}

/// The most characters of a report's message that travel on.
pub const MAX_MESSAGE_CHARS: usize = 160;

impl Progress {
    /// A report as a guest made it, made safe to pass on: `done` no more than `total`, the
    /// message one line of at most [`MAX_MESSAGE_CHARS`]. `None` for a report with nothing to
    /// measure (`total` 0).
    pub fn clean(done: u32, total: u32, message: &str) -> Option<Progress> {
        if total == 0 {
            return None;
        }
        let line = crate::text::one_line(message);
        let message: String = line.trim().chars().take(MAX_MESSAGE_CHARS).collect();
        Some(Progress { done: done.min(total), total, message })
    }

    /// The report as a whole percentage, rounded down.
    pub fn percent(&self) -> u32 {
        (u64::from(self.done) * 100 / u64::from(self.total.max(1))) as u32
    }
}

/// Where a call's progress reports go. It runs on the thread that runs the guest, so it must
/// return at once (queue, never block on a client).
pub type ProgressSink = Arc<dyn Fn(&Progress) + Send + Sync>;

/// The percentage a caller is shown, rising only: 0 when the call starts, then each report
/// that rises by a whole percent, then 100 at the end. So one call sends at most 102
/// notifications however often its guest reports, and the numbers a client sees never go
/// back (MCP requires progress to increase), even when a guest's totals change between
/// phases.
#[derive(Debug, Default)]
pub struct Percent {
    last: Mutex<Option<u32>>,
}

impl Percent {
    /// A tracker that has shown nothing yet.
    pub fn new() -> Percent {
        Percent::default()
    }

    /// The percentage to show for `p`, when it is above the last one shown.
    pub fn offer(&self, p: &Progress) -> Option<u32> {
        self.rise(p.percent())
    }

    /// The percentage to show at the start (0) or the end (100) of a call, unless it was
    /// shown already.
    pub fn rise(&self, pct: u32) -> Option<u32> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if last.is_some_and(|l| pct <= l) {
            return None;
        }
        *last = Some(pct);
        Some(pct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_are_cleaned_and_bounded() {
        assert_eq!(Progress::clean(3, 0, "x"), None);
        let p = Progress::clean(9, 4, "AHU-1\nand more\u{200b}").unwrap();
        assert_eq!((p.done, p.total, p.message.as_str()), (4, 4, "AHU-1 and more"));
        let long = "é".repeat(500);
        assert_eq!(Progress::clean(1, 2, &long).unwrap().message.chars().count(), MAX_MESSAGE_CHARS);
        assert_eq!(Progress::clean(1, 3, "").unwrap().percent(), 33);
        assert_eq!(Progress::clean(u32::MAX, u32::MAX, "").unwrap().percent(), 100);
    }

    #[test]
    fn the_percentage_shown_only_rises() {
        let pc = Percent::new();
        assert_eq!(pc.rise(0), Some(0));
        assert_eq!(pc.rise(0), None, "the start is shown once");
        let at = |d, t| Progress::clean(d, t, "").unwrap();
        assert_eq!(pc.offer(&at(1, 1000)), None, "below a whole percent");
        assert_eq!(pc.offer(&at(10, 1000)), Some(1));
        assert_eq!(pc.offer(&at(1, 2)), Some(50));
        // a later phase with a new total that would read lower is not shown
        assert_eq!(pc.offer(&at(1, 10)), None);
        assert_eq!(pc.offer(&at(10, 10)), Some(100));
        assert_eq!(pc.rise(100), None, "the end is not repeated after a full report");
        let one = Percent::new();
        let shown = (0..=100_000).filter_map(|i| one.offer(&at(i, 100_000))).count();
        assert_eq!(shown, 101, "a guest reporting 100,000 times shows each whole percent (0 to 100) once");
    }
}
