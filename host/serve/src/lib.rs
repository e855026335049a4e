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
use camber_common::{CapError, CapabilityResult, ContentBlock, RenderedPrompt, ResourceInfo};

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
    /// A prompt's user message and the content blocks that follow it.
    fn get_prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<RenderedPrompt, CapError>;
    /// The server's path redactor, for messages made of what a client sent.
    fn redactor(&self) -> &Redactor;
    /// A facility's RCx report as one HTML page, for a caller (its `rcx_report` and each
    /// issue's `finding_detail` pass the policy pipeline as that caller's calls).
    fn report_page(&self, facility_id: &str, caller: Caller<'_>) -> Result<String, CapError>;
    /// A digest that changes whenever the store rewrites a facility (`None`: no store), so a
    /// watched resource can be said to have changed.
    fn facility_version(&self, facility_id: &str) -> Option<String>;
    /// The resources and resource templates the components serve.
    fn component_resources(&self) -> Vec<ResourceInfo>;
    /// Read a component's resource for a caller, through the policy (`None`: no component
    /// serves that URI). Must not run on a tokio worker thread.
    fn read_component_resource(&self, uri: &str, caller: Caller<'_>) -> Option<Result<Vec<ContentBlock>, CapError>>;
    /// Look at the capability set again (a component added, replaced or removed) and say what
    /// changed, with one log line per component; calls in flight finish on the set they
    /// started with. A backend whose set never changes says nothing changed.
    fn reload(&self) -> ListChange {
        ListChange::default()
    }
}

/// What a reload changed: which lists the clients should fetch again, and the log's lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListChange {
    pub tools: bool,
    pub prompts: bool,
    pub lines: Vec<String>,
}

/// The tools and prompts as a client lists them now, with how many times they changed.
#[derive(Debug)]
pub struct Listing {
    pub tools: Vec<Tool>,
    pub prompts: Vec<PromptInfo>,
    /// Counts the changes since start (0: as loaded).
    pub generation: u64,
    /// A digest of what the lists say (each tool's name and descriptor revision, each prompt):
    /// the same lists have the same digest on any server.
    pub revision: String,
}

impl Listing {
    fn new(tools: Vec<Tool>, prompts: Vec<PromptInfo>, generation: u64) -> Listing {
        let mut material = String::new();
        for t in &tools {
            material.push_str(&format!("tool {} {}\n", t.name, t.revision));
        }
        for p in &prompts {
            material.push_str(&format!("prompt {} {} {} {:?}\n", p.name, p.title, p.description, p.arguments));
        }
        let revision = camber_common::canonical::sha256_hex(material.as_bytes())[..16].to_string();
        Listing { tools, prompts, generation, revision }
    }

    /// The tool `name`, if listed.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Whether the prompt `name` is listed.
    pub fn has_prompt(&self, name: &str) -> bool {
        self.prompts.iter().any(|p| p.name == name)
    }
}

/// What every served call shares: the backend, its tools and prompts as listed now, and
/// where the adapters hear that they changed.
pub struct Service {
    backend: Box<dyn Backend>,
    listing: std::sync::RwLock<Arc<Listing>>,
    changes: tokio::sync::broadcast::Sender<ListChange>,
}

impl Service {
    /// Serve `backend`.
    pub fn new(backend: Box<dyn Backend>) -> Service {
        let listing = Listing::new(backend.tools(), backend.prompts(), 0);
        let (changes, _) = tokio::sync::broadcast::channel(64);
        Service { backend, listing: std::sync::RwLock::new(Arc::new(listing)), changes }
    }

    /// The tools and prompts as listed now.
    pub fn listing(&self) -> Arc<Listing> {
        self.listing.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Reload the backend's capability set; when a list changed, list it anew and tell every
    /// subscriber (each open session's notifier). Logs one line per component it changed or
    /// refused. Must not run on a tokio worker thread (it may compile and run guests).
    pub fn reload(&self) -> ListChange {
        let t0 = Instant::now();
        let change = self.backend.reload();
        for l in &change.lines {
            log::line(format!("camber: reload: {l}"));
        }
        if change.tools || change.prompts {
            let mut listing = self.listing.write().unwrap_or_else(|p| p.into_inner());
            let generation = listing.generation + 1;
            *listing = Arc::new(Listing::new(self.backend.tools(), self.backend.prompts(), generation));
            drop(listing);
            log::line(format!(
                "camber: reload: now {} capabilities and {} prompts (in {:.1} ms){}{}",
                self.listing().tools.len(),
                self.listing().prompts.len(),
                t0.elapsed().as_secs_f64() * 1e3,
                if change.tools { "; tools/list_changed sent" } else { "" },
                if change.prompts { "; prompts/list_changed sent" } else { "" }
            ));
            let _ = self.changes.send(change.clone());
        }
        change
    }

    /// Hear of every list change from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ListChange> {
        self.changes.subscribe()
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

    /// The resources and templates the components serve.
    pub fn component_resources(&self) -> Vec<ResourceInfo> {
        self.backend.component_resources()
    }

    /// Read a component's resource for a caller (see [`Backend::read_component_resource`]).
    pub fn read_component_resource(
        &self,
        uri: &str,
        caller: &str,
        allowed: Option<&BTreeSet<String>>,
    ) -> Option<Result<Vec<ContentBlock>, CapError>> {
        self.backend.read_component_resource(uri, Caller { label: caller, allowed, cancel: None, progress: None })
    }

    /// The store generation of one facility (see [`Backend::facility_version`]).
    pub fn facility_version(&self, facility_id: &str) -> Option<String> {
        self.backend.facility_version(facility_id)
    }

    /// A prompt's user message and the content blocks that follow it.
    pub fn get_prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<RenderedPrompt, CapError> {
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
