//! Clocks and randomness that note when a guest reads them.
//!
//! A capability is read-only, so what it returns is decided by what it reads: its arguments,
//! its context and the host functions the registry watches, and, outside the registry's view,
//! WASI's clocks and random numbers. The registry may reuse a result only when the guest read
//! none of the latter; these wrappers tell it. The random generators are also made only when a
//! guest first asks for one, so a call that never does pays nothing to seed them.
//!
//! `wasi:random/insecure-seed` is not noted: it seeds hash tables (Rust's `HashMap` asks for it
//! on first use), and a result that depended on a hash table's order would already differ from
//! one call to the next.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::{Rng, TryRng};
use wasmtime_wasi::clocks::{MonotonicClock, WallClock};
use wasmtime_wasi::{HostMonotonicClock, HostWallClock};

/// Set once the guest has read a clock or a random number.
pub type Varied = Arc<AtomicBool>;

/// The wall clock, noted.
pub(crate) struct NotedWall(pub Varied);

impl HostWallClock for NotedWall {
    fn resolution(&self) -> Duration {
        WallClock.resolution()
    }

    fn now(&self) -> Duration {
        self.0.store(true, Ordering::Relaxed);
        WallClock.now()
    }
}

/// The monotonic clock, noted.
pub(crate) struct NotedMonotonic {
    pub varied: Varied,
    pub clock: MonotonicClock,
}

impl HostMonotonicClock for NotedMonotonic {
    fn resolution(&self) -> u64 {
        self.clock.resolution()
    }

    fn now(&self) -> u64 {
        self.varied.store(true, Ordering::Relaxed);
        self.clock.now()
    }
}

/// A random generator made on first use, noted.
pub(crate) struct NotedRng {
    varied: Varied,
    rng: Option<Box<dyn Rng + Send>>,
}

impl NotedRng {
    pub fn new(varied: Varied) -> NotedRng {
        NotedRng { varied, rng: None }
    }

    fn rng(&mut self) -> &mut (dyn Rng + Send) {
        self.varied.store(true, Ordering::Relaxed);
        self.rng.get_or_insert_with(wasmtime_wasi::thread_rng).as_mut()
    }
}

impl TryRng for NotedRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.rng().next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.rng().next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.rng().fill_bytes(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_notes_its_first_read_and_the_generator_is_made_then() {
        let varied: Varied = Arc::default();
        let wall = NotedWall(varied.clone());
        let _ = wall.resolution();
        assert!(!varied.load(Ordering::Relaxed), "a clock's resolution is not a reading");
        assert!(wall.now() > Duration::from_secs(1_600_000_000));
        assert!(varied.load(Ordering::Relaxed));

        let varied: Varied = Arc::default();
        let mono = NotedMonotonic { varied: varied.clone(), clock: MonotonicClock::new() };
        let _ = mono.resolution();
        assert!(!varied.load(Ordering::Relaxed));
        let _ = mono.now();
        assert!(varied.load(Ordering::Relaxed));

        let varied: Varied = Arc::default();
        let mut rng = NotedRng::new(varied.clone());
        assert!(rng.rng.is_none() && !varied.load(Ordering::Relaxed));
        let mut a = [0u8; 32];
        rng.fill_bytes(&mut a);
        assert!(varied.load(Ordering::Relaxed) && rng.rng.is_some());
        let mut b = [0u8; 32];
        rng.fill_bytes(&mut b);
        assert_ne!(a, b, "the generator is a real one");
    }
}
