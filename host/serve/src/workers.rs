//! The HTTP transports' worker pool: every guest call of MCP or A2A over HTTP runs on a
//! blocking thread behind a semaphore (one permit per worker), never on an executor thread,
//! and is cancelled when the request's future is dropped (the client went away).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::log;
use super::Service;

/// Why [`Workers::run`] has no value: the work panicked (logged) or the server is stopping.
#[derive(Debug)]
pub struct CallFailed;

/// Sets a call's cancel flag when dropped: when the client disconnects, axum drops the
/// handler's future (or a streamed response's body) and the guest stops at its next yield to
/// the host (well under a millisecond of its work).
pub struct CancelOnDrop(Arc<AtomicBool>, bool);

impl CancelOnDrop {
    /// Cancel the call behind `flag` when this is dropped armed.
    pub fn new(flag: Arc<AtomicBool>) -> CancelOnDrop {
        CancelOnDrop(flag, false)
    }

    /// The call is over: dropping this cancels nothing.
    pub fn disarm(&mut self) {
        self.1 = true;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

/// The service and the permits of its blocking workers.
pub struct Workers {
    svc: Arc<Service>,
    permits: Arc<Semaphore>,
}

impl Workers {
    /// `n` workers (at least one) over `svc`.
    pub fn new(svc: Arc<Service>, n: usize) -> Workers {
        Workers { svc, permits: Arc::new(Semaphore::new(n.max(1))) }
    }

    /// Run one call on a blocking worker; cancelled when the future is dropped. A panic in
    /// `f` is logged and comes back as [`CallFailed`] (the blocking pool goes on serving).
    pub async fn run<T: Send + 'static>(
        &self,
        cancel: Arc<AtomicBool>,
        f: impl FnOnce(&Service, Arc<AtomicBool>) -> T + Send + 'static,
    ) -> Result<T, CallFailed> {
        let mut guard = CancelOnDrop::new(cancel.clone());
        let permit = self.permits.clone().acquire_owned().await.map_err(|_| CallFailed)?;
        let svc = self.svc.clone();
        let r = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            catch_unwind(AssertUnwindSafe(|| f(&svc, cancel)))
        })
        .await;
        guard.disarm();
        match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => {
                log::line("camber: a call panicked in the server; answered internal");
                Err(CallFailed)
            }
            Err(_) => Err(CallFailed),
        }
    }
}
