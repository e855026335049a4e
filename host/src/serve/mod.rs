//! Serving the registry to assistants: MCP over stdio and Streamable HTTP, and A2A. Every
//! adapter only translates to and from `Registry::call`; none applies policy of its own.
//! Guest calls run on blocking worker threads, never on an async executor's threads.

pub mod a2a;
pub mod auth;
pub mod http;
pub mod jsonrpc;
pub mod log;
pub mod mcp;
pub mod stdio;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use camber_common::{CapError, CapabilityResult};

use crate::registry::{CallContext, Registry};

/// What every served call shares: the registry and the server's base context (store,
/// allowlist, trust floor, config digest).
pub struct Service {
    pub registry: Registry,
    pub base: CallContext,
}

impl Service {
    /// Run one call for a caller (its label and its own allowlist, already intersected with
    /// the server's) and log one line (through [`log`], so logging never blocks or fails the
    /// call): capability, caller, outcome, duration; never the arguments' values.
    pub fn call(&self, name: &str, args: &Value, caller: &str, allowed: Option<&std::collections::BTreeSet<String>>, cancel: Option<Arc<AtomicBool>>) -> Result<CapabilityResult, CapError> {
        let mut ctx = self.base.clone();
        ctx.caller = caller.to_string();
        if let Some(a) = allowed {
            ctx.allowed = ctx.allowed.intersection(a).cloned().collect();
        }
        ctx.cancel = cancel.clone();
        let t0 = Instant::now();
        let r = self.registry.call(name, args, &ctx);
        let outcome = match &r {
            Ok(_) => "ok".to_string(),
            Err(e) => e.code.to_string(),
        };
        let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        log::line(format!(
            "camber: call {} caller={} outcome={}{} {:.1} ms",
            self.base.redactor.redact_sent(&camber_common::text::one_line(name)),
            camber_common::text::one_line(caller),
            outcome,
            if cancelled { " (cancelled)" } else { "" },
            t0.elapsed().as_secs_f64() * 1e3
        ));
        r
    }
}
