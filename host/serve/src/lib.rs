//! Serving the registry to assistants: MCP over stdio and Streamable HTTP, and A2A. Every
//! adapter only translates to and from one call of the [`Backend`]; none applies policy of its
//! own.
//! Guest calls run on blocking worker threads, never on an async executor's threads.

#![deny(unsafe_code)]

pub mod a2a;
pub mod auth;
pub mod http;
pub mod jsonrpc;
pub mod log;
pub mod mcp;
pub mod resources;
pub mod stdio;
pub mod tasks;
pub mod workers;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use camber_common::progress::ProgressSink;
use camber_common::redact::Redactor;
use camber_common::{CapError, CapabilityResult};

/// A capability as the adapters publish it (an MCP tool, an A2A skill).
#[derive(Clone, Debug)]
pub struct Tool {
    pub name: String,
    pub version: String,
    pub title: String,
    pub description: String,
    /// The descriptor's cost class.
    pub cost: String,
    pub input_schema: Value,
    pub output_schema: Value,
    /// The revision digest of the capability's descriptor.
    pub revision: Value,
}

/// A prompt as the adapters publish it.
#[derive(Clone, Debug)]
pub struct PromptInfo {
    pub name: String,
    pub title: String,
    pub description: String,
    /// (name, description, required) of each argument.
    pub arguments: Vec<(String, String, bool)>,
}

/// Who is calling: the caller's label (for logs), its own allowlist (intersected with the
/// server's), and the flag that cancels the call.
pub struct Caller<'a> {
    pub label: &'a str,
    pub allowed: Option<&'a BTreeSet<String>>,
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the guest's progress reports go, when the client watches the call.
    pub progress: Option<ProgressSink>,
}

/// What the adapters serve: the registry and its policy, behind the one seam the serving
/// code knows. The binary implements it over `camber_registry::Registry`, so this crate
/// depends on neither wasmtime nor the store.
pub trait Backend: Send + Sync {
    /// The loaded capabilities, sorted by name.
    fn tools(&self) -> Vec<Tool>;
    /// The prompts, sorted by name.
    fn prompts(&self) -> Vec<PromptInfo>;
    /// One call under the policy (never panics; every refusal a `CapError`).
    fn call(&self, name: &str, args: &Value, caller: Caller<'_>) -> Result<CapabilityResult, CapError>;
    /// A prompt's user message.
    fn get_prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<String, CapError>;
    /// The server's path redactor, for messages made of what a client sent.
    fn redactor(&self) -> &Redactor;
    /// A facility's RCx report as one HTML page, for a caller (its `rcx_report` and each
    /// issue's `finding_detail` pass the policy pipeline as that caller's calls).
    fn report_page(&self, facility_id: &str, caller: Caller<'_>) -> Result<String, CapError>;
    /// A digest that changes whenever the store rewrites a facility (`None`: no store), so a
    /// watched resource can be said to have changed.
    fn facility_version(&self, facility_id: &str) -> Option<String>;
}

/// What every served call shares: the backend, and its tools and prompts as loaded.
pub struct Service {
    backend: Box<dyn Backend>,
    pub tools: Vec<Tool>,
    pub prompts: Vec<PromptInfo>,
}

impl Service {
    /// Serve `backend`.
    pub fn new(backend: Box<dyn Backend>) -> Service {
        let (tools, prompts) = (backend.tools(), backend.prompts());
        Service { backend, tools, prompts }
    }

    /// The tool `name`, if loaded.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The server's path redactor.
    pub fn redactor(&self) -> &Redactor {
        self.backend.redactor()
    }

    /// A facility's RCx report page for a caller (the `camber://facility/{id}/report` resource).
    pub fn report_page(
        &self,
        facility_id: &str,
        caller: &str,
        allowed: Option<&BTreeSet<String>>,
    ) -> Result<String, CapError> {
        self.backend.report_page(facility_id, Caller { label: caller, allowed, cancel: None, progress: None })
    }

    /// The store generation of one facility (see [`Backend::facility_version`]).
    pub fn facility_version(&self, facility_id: &str) -> Option<String> {
        self.backend.facility_version(facility_id)
    }

    /// A prompt's user message.
    pub fn get_prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<String, CapError> {
        self.backend.get_prompt(name, args)
    }

    /// Run one call for a caller (its label and its own allowlist, already intersected with
    /// the server's) and log one line (through [`log`], so logging never blocks or fails the
    /// call): capability, caller, outcome, duration; never the arguments' values.
    pub fn call(
        &self,
        name: &str,
        args: &Value,
        caller: &str,
        allowed: Option<&BTreeSet<String>>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<CapabilityResult, CapError> {
        self.call_logged(name, args, caller, allowed, cancel, None).0
    }

    /// [`Service::call`], with the guest's progress reports to `progress`, and the line it
    /// logged (for a client that asked for log messages).
    pub fn call_logged(
        &self,
        name: &str,
        args: &Value,
        caller: &str,
        allowed: Option<&BTreeSet<String>>,
        cancel: Option<Arc<AtomicBool>>,
        progress: Option<ProgressSink>,
    ) -> (Result<CapabilityResult, CapError>, String) {
        let t0 = Instant::now();
        let r = self.backend.call(name, args, Caller { label: caller, allowed, cancel: cancel.clone(), progress });
        // a call the caller cancelled is logged as that, not as the timeout it stopped by
        let cancelled = cancel.is_some_and(|c| c.load(Ordering::Relaxed));
        let outcome = match &r {
            Ok(_) => "ok".to_string(),
            Err(_) if cancelled => "cancelled".to_string(),
            Err(e) => e.code.to_string(),
        };
        let line = format!(
            "camber: call {} caller={} outcome={} {:.1} ms",
            self.redactor().echo(name),
            camber_common::text::one_line(caller),
            outcome,
            t0.elapsed().as_secs_f64() * 1e3
        );
        log::line(line.clone());
        (r, line)
    }
}
