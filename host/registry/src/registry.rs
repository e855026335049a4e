//! The registry: every capability and prompt the loaded components offer, and
//! [`Registry::call`], the one policy pipeline every adapter (CLI, MCP, A2A) goes through.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use camber_common::text::one_line;
use camber_common::{CapError, CapabilityResult, ErrorCode, RenderedPrompt};

use crate::access::code_from_wit;
pub use crate::capability::CapabilityEntry;
pub use crate::context::{CallContext, Limits};
use crate::pipeline::{self, Refusal};
use crate::policy::Schema;
pub use crate::resources::ResourceEntry;
use crate::trust::{Grant, Policy};
use camber_common::redact::{Redactor, Sent};
use camber_runtime::{file_label, CallState, CapabilityPre, Runtime};

/// One prompt as the host serves it.
pub struct PromptEntry {
    pub name: String,
    pub title: String,
    pub description: String,
    pub arguments: Vec<(String, String, bool)>,
    unit: Arc<Unit>,
}

/// One loaded component as it runs: its instance-ready form and what the trust policy
/// granted it. Calls hold it by `Arc`, so a call started before a reload finishes on the
/// component it started with.
pub struct Unit {
    pub(crate) pre: CapabilityPre<CallState>,
    /// The engine it was compiled for, which runs its calls.
    pub(crate) runtime: Arc<Runtime>,
    /// Compiled by the quick first tier (Winch) while the optimized code is built.
    pub quick: bool,
    /// The file it was loaded from (a name, never a path).
    pub file: String,
    /// The SHA-256 of the file's bytes.
    pub sha256: String,
    /// What it may use (memory, fuel, deadline, host interfaces).
    pub grant: Grant,
    /// Its results kept between calls (see [`crate::memo`]).
    pub memo: crate::memo::Memo,
}

/// A component with what it offers: the part of a registry a reload keeps when its file did
/// not change.
#[derive(Clone)]
pub struct Loaded {
    /// Where the file is (to tell a replaced file from a kept one).
    pub path: PathBuf,
    pub unit: Arc<Unit>,
    capabilities: Vec<Arc<CapabilityEntry>>,
    prompts: Vec<Arc<PromptEntry>>,
    resources: Vec<Arc<ResourceEntry>>,
}

/// The capabilities and prompts of every loaded component, and the policy around each call.
/// One `Registry` never changes: a reload builds the next one (see [`crate::live`]).
pub struct Registry {
    pub runtime: Arc<Runtime>,
    /// Takes local paths out of prompt errors (calls use their context's redactor).
    redactor: Redactor,
    components: Vec<Loaded>,
    capabilities: BTreeMap<String, Arc<CapabilityEntry>>,
    prompts: BTreeMap<String, Arc<PromptEntry>>,
    /// The resources components serve, in load order.
    resources: Vec<Arc<ResourceEntry>>,
}

/// Every `_cap_*.wasm` in `dirs`, each directory's files in name order, directories in the
/// order given.
pub fn component_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        let mut files: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let n = file_label(p);
                n.starts_with("_cap_") && n.ends_with(".wasm") && p.is_file()
            })
            .collect();
        files.sort_by_key(|p| file_label(p));
        out.extend(files);
    }
    out
}

impl Registry {
    /// Load every component file with no trust policy; any refused one fails the load with a
    /// one-line error that names the file.
    pub fn load(runtime: Runtime, files: &[PathBuf]) -> Result<Registry, String> {
        let policy = Policy::open(&runtime.config);
        Registry::load_with(Arc::new(runtime), files, &policy)
    }

    /// Load every component file under `policy`; any refused one fails the load with a
    /// one-line error that names the file.
    pub fn load_with(runtime: Arc<Runtime>, files: &[PathBuf], policy: &Policy) -> Result<Registry, String> {
        let mut loaded = Vec::new();
        for path in files {
            loaded.push(load_component(&runtime, path, policy)?);
        }
        Registry::assemble(runtime, loaded)
    }

    /// A registry of no component yet.
    fn empty(runtime: Arc<Runtime>) -> Registry {
        Registry {
            runtime,
            redactor: Redactor::new(Vec::new()),
            components: Vec::new(),
            capabilities: BTreeMap::new(),
            prompts: BTreeMap::new(),
            resources: Vec::new(),
        }
    }

    /// A registry of components already loaded; two offering the same capability or prompt
    /// name are refused, naming both files.
    pub fn assemble(runtime: Arc<Runtime>, components: Vec<Loaded>) -> Result<Registry, String> {
        let mut reg = Registry::empty(runtime);
        for c in components {
            reg.add(c)?;
        }
        Ok(reg)
    }

    /// [`Registry::assemble`] that refuses a component offering a name already taken (falling
    /// back on the component's previous version, when it has one that fits) instead of failing:
    /// what a reload does. Returns the registry and one line per component refused.
    pub fn assemble_lenient(
        runtime: Arc<Runtime>,
        candidates: Vec<(Option<Loaded>, Option<Loaded>)>,
    ) -> (Registry, Vec<String>) {
        let mut reg = Registry::empty(runtime);
        let mut refused = Vec::new();
        for (candidate, fallback) in candidates {
            let Some(c) = candidate else { continue };
            if let Err(e) = reg.add(c) {
                let kept = fallback.is_some_and(|f| reg.add(f).is_ok());
                refused.push(format!("{e}{}", if kept { "; the loaded version stays" } else { "; not loaded" }));
            }
        }
        (reg, refused)
    }

    /// Add one loaded component, unless a name it offers is taken.
    fn add(&mut self, c: Loaded) -> Result<(), String> {
        let file = &c.unit.file;
        for e in &c.capabilities {
            if let Some(prev) = self.capabilities.get(&e.name) {
                return Err(format!("{file}: capability '{}' is already offered by {}", e.name, prev.file));
            }
        }
        for p in &c.prompts {
            if self.prompts.contains_key(&p.name) {
                return Err(format!("{file}: prompt '{}' is offered twice", one_line(&p.name)));
            }
        }
        for r in &c.resources {
            if let Some(prev) = self.resources.iter().find(|e| e.info.uri == r.info.uri) {
                return Err(format!("{file}: resource '{}' is already served by {}", r.info.uri, prev.file));
            }
        }
        self.resources.extend(c.resources.iter().cloned());
        for e in &c.capabilities {
            self.capabilities.insert(e.name.clone(), e.clone());
        }
        for p in &c.prompts {
            self.prompts.insert(p.name.clone(), p.clone());
        }
        self.components.push(c);
        Ok(())
    }

    /// The loaded components, in load order.
    pub fn components(&self) -> &[Loaded] {
        &self.components
    }

    /// Every capability, sorted by name.
    pub fn capabilities(&self) -> impl Iterator<Item = &CapabilityEntry> {
        self.capabilities.values().map(|c| &**c)
    }

    /// Every prompt, sorted by name.
    pub fn prompts(&self) -> impl Iterator<Item = &PromptEntry> {
        self.prompts.values().map(|p| &**p)
    }

    /// Every resource and resource template the components serve, in load order.
    pub fn resources(&self) -> impl Iterator<Item = &ResourceEntry> {
        self.resources.iter().map(|r| &**r)
    }

    /// Read a component's resource for the caller of `ctx`: the first resource listing `uri`
    /// itself, else the first template it matches. `None`: no component serves it.
    pub fn read_resource(
        &self,
        uri: &str,
        ctx: &CallContext,
    ) -> Option<Result<Vec<camber_common::ContentBlock>, CapError>> {
        let entry = self
            .resources
            .iter()
            .find(|r| !r.info.template && r.info.uri == uri)
            .or_else(|| self.resources.iter().find(|r| r.info.template && r.info.serves(uri)))?;
        crate::resources::read(entry, uri, ctx).transpose()
    }

    /// The capability `name`, if loaded.
    pub fn get(&self, name: &str) -> Option<&CapabilityEntry> {
        self.capabilities.get(name).map(|c| &**c)
    }

    /// Render a prompt's user message, with any content blocks the component attached to it
    /// (checked as a call's are); argument values are reduced to one short line first.
    pub fn get_prompt(&self, name: &str, args: &BTreeMap<String, String>) -> Result<RenderedPrompt, CapError> {
        let Some(p) = self.prompts.get(name) else {
            return Err(CapError::new(
                ErrorCode::InvalidParams,
                format!("no prompt named '{}'", self.redactor.echo(name)),
            ));
        };
        for (arg, _, required) in &p.arguments {
            if *required && args.get(arg).is_none_or(|v| v.trim().is_empty()) {
                return Err(CapError::invalid(format!("prompt '{name}' needs the argument '{arg}'")));
            }
        }
        let short: Vec<(String, String)> = args
            .iter()
            .map(|(k, v)| {
                let line = one_line(v);
                let line = camber_common::text::cut(&line, 200).unwrap_or(line);
                (k.clone(), line)
            })
            .collect();
        let sent = Sent::new(short.iter().map(|(_, v)| v.as_str()));
        let (rendered, attached) = p.unit.runtime.get_prompt(&p.unit.pre, p.unit.grant.budget, name, &short);
        match rendered {
            Ok(Ok(text)) => {
                let attached = crate::content::check(attached.blocks, attached.dropped, &self.redactor, &sent)
                    .map_err(|why| CapError::internal(format!("prompt '{name}' {why}")))?;
                Ok(RenderedPrompt { text, attached })
            }
            Ok(Err(e)) => {
                Err(CapError::new(code_from_wit(e.code), self.redactor.redact_echoes(&one_line(&e.message), &sent)))
            }
            Err(trap) => Err(CapError::internal(format!(
                "prompt '{name}' failed: {}",
                self.redactor.redact_echoes(&one_line(&trap), &sent)
            ))),
        }
    }

    /// Run one capability under the policy. Never panics (a panic in the host while it runs
    /// the call is that call's `internal` error); every refusal is a [`CapError`] with a
    /// one-line message holding no local path, nor any path the caller sent. Must not run on a
    /// tokio worker thread.
    pub fn call(&self, name: &str, arguments: &Value, ctx: &CallContext) -> Result<CapabilityResult, CapError> {
        let sent = Sent::of_call(name, arguments);
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.call_inner(name, arguments, ctx, &sent)));
        let refusal = match outcome {
            Ok(Ok(r)) => return Ok(r),
            Ok(Err(r)) => r,
            Err(_) => {
                // the panic hook has logged the panic itself, and the adapter logs the call's
                // outcome; the caller learns no more
                return Err(CapError::internal(format!(
                    "'{}' failed inside the host; the error is in the server's log",
                    ctx.redactor.echo(name)
                )));
            }
        };
        match refusal {
            Refusal::Schema(e) => {
                // "<pointer>: <problem>": the pointer's segments are the caller's keys, the
                // problem quotes the caller's value
                let redact = |s: &str| match s.split_once(": ") {
                    Some((ptr, msg)) => {
                        format!("{}: {}", ctx.redactor.redact_pointer(ptr), ctx.redactor.redact_echoes(msg, &sent))
                    }
                    None => ctx.redactor.redact_echoes(s, &sent),
                };
                let data = e.data.map(|mut d| {
                    if let Some(Value::Array(errs)) = d.get_mut("errors") {
                        for x in errs.iter_mut() {
                            if let Value::String(t) = x {
                                *t = redact(&one_line(t));
                            }
                        }
                    }
                    d
                });
                let message = one_line(&e.message).split("; ").map(redact).collect::<Vec<_>>().join("; ");
                Err(CapError { code: e.code, message, data })
            }
            Refusal::Other(e) => Err(CapError {
                code: e.code,
                message: ctx.redactor.redact_echoes(&one_line(&e.message), &sent),
                data: e.data.map(|d| ctx.redactor.redact_data_echoes(&d, &sent)),
            }),
        }
    }

    /// The call's three phases (see [`crate::pipeline`]): admit, run the guest, finish.
    fn call_inner(
        &self,
        name: &str,
        arguments: &Value,
        ctx: &CallContext,
        sent: &Sent,
    ) -> Result<CapabilityResult, Refusal> {
        let Some(cap) = self.capabilities.get(name) else {
            return Err(CapError::new(
                ErrorCode::UnknownCapability,
                format!("no capability named '{}'", ctx.redactor.echo(name)),
            )
            .into());
        };
        let mut admitted = pipeline::admit(cap, arguments, ctx)?;
        let unit = &cap.unit;
        let returned = pipeline::run(unit, name, &mut admitted, ctx)?;
        #[cfg(debug_assertions)]
        test_hooks::host_panic(name);
        pipeline::finish(cap, name, returned, &admitted, ctx, sent)
    }
}

/// Load one component file: the trust policy's decision, the compile (cached), the imports
/// its grant allows, the WIT version, and every descriptor and prompt checked. One line
/// naming the file on any refusal.
pub fn load_component(runtime: &Arc<Runtime>, path: &Path, policy: &Policy) -> Result<Loaded, String> {
    let file = file_label(path);
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: cannot read: {}", e.kind()))?;
    load_component_bytes(runtime, path, &bytes, policy)
}

/// [`load_component`] on the file's bytes already read, compiled for `runtime`'s engine.
pub fn load_component_bytes(
    runtime: &Arc<Runtime>,
    path: &Path,
    bytes: &[u8],
    policy: &Policy,
) -> Result<Loaded, String> {
    let file = file_label(path);
    let decision = policy.decide_bytes(path, bytes);
    if let Err(why) = &decision.admitted {
        return Err(format!("{file}: {why}"));
    }
    let component = runtime.component_from_bytes(&file, bytes)?;
    let imports = runtime.contract_imports(&component);
    if let Some(i) = decision.grant.refused_import(&imports) {
        return Err(format!(
            "{file}: imports camber:capability/{i}, which the trust policy does not grant it (granted: {})",
            if decision.grant.imports.is_empty() {
                "none".to_string()
            } else {
                decision.grant.imports.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        ));
    }
    let pre = runtime.pre_instantiate(&component, &file)?;
    let (descs, prompts) =
        runtime.describe(&pre).map_err(|e| format!("{file}: describe() failed: {}", one_line(&e)))?;
    let unit = Arc::new(Unit {
        pre,
        runtime: runtime.clone(),
        quick: runtime.config.quick,
        file: file.clone(),
        sha256: decision.sha256,
        grant: decision.grant,
        memo: crate::memo::Memo::from_env(),
    });
    let mut entries: Vec<Arc<CapabilityEntry>> = Vec::new();
    for d in descs {
        if !is_snake_case(&d.name) {
            return Err(format!("{file}: capability name '{}' is not snake_case", one_line(&d.name)));
        }
        if entries.iter().any(|e| e.name == d.name) {
            return Err(format!("{file}: offers capability '{}' twice", d.name));
        }
        let parse = |s: &str, which: &str| -> Result<Value, String> {
            serde_json::from_str(s).map_err(|_| format!("{file}: {}.{which} is not JSON", d.name))
        };
        let input =
            Schema::compile(parse(&d.input_schema, "input_schema")?, &format!("{file}: {}.input_schema", d.name))?;
        let output =
            Schema::compile(parse(&d.output_schema, "output_schema")?, &format!("{file}: {}.output_schema", d.name))?;
        // an assistant picks a tool by its description: a capability without one is refused
        if d.description.trim().is_empty() {
            return Err(format!(
                "{file}: capability '{}' has no description: an assistant could not tell what it is for (set .description(...))",
                d.name
            ));
        }
        entries.push(Arc::new(CapabilityEntry {
            own_output: d.own_output,
            name: d.name,
            version: d.version,
            title: one_line(&d.title),
            description: one_line(&d.description),
            cost: one_line(&d.cost),
            annotations: d.annotations,
            input,
            output,
            file: file.clone(),
            unit: unit.clone(),
            revision: std::sync::OnceLock::new(),
        }));
    }
    let listed =
        runtime.list_resources(&unit.pre).map_err(|e| format!("{file}: list-resources() failed: {}", one_line(&e)))?;
    let resources = crate::resources::entries(&file, listed, &unit)?.into_iter().map(Arc::new).collect();
    let mut prompt_entries: Vec<Arc<PromptEntry>> = Vec::new();
    for p in prompts {
        if prompt_entries.iter().any(|e| e.name == p.name) {
            return Err(format!("{file}: prompt '{}' is offered twice", one_line(&p.name)));
        }
        prompt_entries.push(Arc::new(PromptEntry {
            name: p.name,
            title: one_line(&p.title),
            description: one_line(&p.description),
            arguments: p.arguments.into_iter().map(|a| (a.name, one_line(&a.description), a.required)).collect(),
            unit: unit.clone(),
        }));
    }
    Ok(Loaded { path: path.to_path_buf(), unit, capabilities: entries, prompts: prompt_entries, resources })
}

fn is_snake_case(s: &str) -> bool {
    !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `120` for 120.0, `0.5` for 0.5.
/// Test-only faults, compiled into debug builds only (the tests drive a debug `camber`), so a
/// release host has none.
#[cfg(debug_assertions)]
mod test_hooks {
    /// `CAMBER_TEST_HOST_PANIC=<capability>`: the host panics while it post-processes that
    /// capability's result, with a path in the message, as a bug in the host would. The tests
    /// of panic containment use it; nothing else sets it.
    pub fn host_panic(name: &str) {
        if std::env::var_os("CAMBER_TEST_HOST_PANIC").is_some_and(|v| v == name) {
            panic!("test-only host panic (CAMBER_TEST_HOST_PANIC) near /srv/camber/secret/state.db");
        }
    }
}
