//! Where a call's time goes, step by step, for `camber-bench phases`.
//!
//! The policy pipeline, the sandbox and the store reads mark their steps with [`step`]; nothing
//! is kept unless the calling thread is inside [`record`] (a call runs on one thread, its guest
//! and the guest's store reads included), so a served call pays one thread-local check per step.
//! A step's time includes any step inside it: the guest's time includes its store reads.

use std::cell::RefCell;
use std::time::{Duration, Instant};

thread_local! {
    static STEPS: RefCell<Option<Vec<(&'static str, Duration)>>> = const { RefCell::new(None) };
}

/// Run `f` with step timing on for this thread; the steps it timed, in the order they ended
/// (a step run twice is listed twice).
pub fn record<T>(f: impl FnOnce() -> T) -> (T, Vec<(&'static str, Duration)>) {
    let outer = STEPS.with(|s| s.borrow_mut().replace(Vec::new()));
    let out = f();
    let steps = STEPS.with(|s| std::mem::replace(&mut *s.borrow_mut(), outer)).unwrap_or_default();
    (out, steps)
}

/// Run `f`, timed as `name` when this thread is recording.
pub fn step<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    if !recording() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    keep(name, t.elapsed());
    out
}

/// [`step`] for a future: `f` awaited, timed as `name` when this thread is recording (a guest
/// call's future runs on the thread that awaits it).
pub async fn step_async<T>(name: &'static str, f: impl std::future::Future<Output = T>) -> T {
    if !recording() {
        return f.await;
    }
    let t = Instant::now();
    let out = f.await;
    keep(name, t.elapsed());
    out
}

fn recording() -> bool {
    STEPS.with(|s| s.borrow().is_some())
}

fn keep(name: &'static str, took: Duration) {
    STEPS.with(|s| {
        if let Some(v) = s.borrow_mut().as_mut() {
            v.push((name, took));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_kept_only_while_recording_and_nest() {
        assert_eq!(step("outside", || 1), 1);
        let (v, steps) = record(|| {
            step("outer", || {
                step("inner", || std::thread::sleep(Duration::from_millis(2)));
                7
            })
        });
        assert_eq!(v, 7);
        let names: Vec<&str> = steps.iter().map(|s| s.0).collect();
        assert_eq!(names, ["inner", "outer"], "a step is listed when it ends");
        assert!(steps[1].1 >= steps[0].1, "the outer step includes the inner one");
        // recording ended: nothing is kept, and a later recording starts empty
        step("after", || ());
        let ((), again) = record(|| ());
        assert!(again.is_empty());
    }
}
