//! Progress of a run capability's call, told to the host as the work goes: one phase of a
//! call that does several (`rcx_report` runs the rules, then the drift section), each phase an
//! equal share of the whole, so the numbers rise through every phase.

/// Phase `k` of `of` equal shares of one call's work, named `label` in the messages.
#[derive(Clone, Copy, Debug)]
pub struct Phase {
    /// Which share this is (0-based).
    pub k: usize,
    /// How many equal shares the call has.
    pub of: usize,
    /// What the phase does, first in each message ("rules", "drift").
    pub label: &'static str,
}

impl Phase {
    /// The whole of a one-phase call.
    pub const fn only(label: &'static str) -> Phase {
        Phase { k: 0, of: 1, label }
    }

    /// `done` of this phase's `total` units are finished; `what` is the one starting (the
    /// message counts it as the `done + 1`-th).
    pub fn report(&self, done: usize, total: usize, what: &str) {
        let total = total.max(1);
        let message = if done < total {
            format!("{}: {what} ({} of {total})", self.label, done + 1)
        } else {
            format!("{}: all {total} done", self.label)
        };
        camber_sdk::progress(self.k * total + done.min(total), self.of.max(1) * total, &message);
    }
}
