//! The registry as the serving adapters see it: `camber_serve::Backend` over
//! `camber_registry::Registry` and the server's base call context. This is the one place the
//! transports meet the policy pipeline.

use std::collections::BTreeMap;

use serde_json::Value;

use camber_common::redact::Redactor;
use camber_common::{CapError, CapabilityResult, ErrorCode};
use camber_registry::live::LiveRegistry;
use camber_registry::CallContext;
use camber_serve::{Backend, Caller, ListChange, PromptInfo, Tool};

/// The registry and the server's base context (store, allowlist, trust floor, configs).
pub struct RegistryBackend {
    pub registry: LiveRegistry,
    pub base: CallContext,
}

impl RegistryBackend {
    /// The base context as one caller's: its label, its own allowlist within the server's, its
    /// cancel flag and where its progress goes.
    fn context(&self, caller: Caller<'_>) -> CallContext {
        let mut ctx = self.base.clone();
        ctx.caller = caller.label.to_string();
        if let Some(a) = caller.allowed {
            ctx.allowed = ctx.allowed.intersection(a).cloned().collect();
        }
        ctx.cancel = caller.cancel;
        ctx.progress = caller.progress;
        ctx
    }
}

impl Backend for RegistryBackend {
    fn tools(&self) -> Vec<Tool> {
        self.registry
            .current()
            .capabilities()
            .map(|c| Tool {
                name: c.name.clone(),
                version: c.version.clone(),
                title: c.title.clone(),
                description: c.description.clone(),
                cost: c.cost.clone(),
                input_schema: c.input.source.clone(),
                output_schema: c.output.source.clone(),
                revision: serde_json::Value::String(c.revision().to_string()),
            })
            .collect()
    }

    fn prompts(&self) -> Vec<PromptInfo> {
        self.registry
            .current()
            .prompts()
            .map(|p| PromptInfo {
                name: p.name.clone(),
                title: p.title.clone(),
                description: p.description.clone(),
                arguments: p.arguments.clone(),
            })
            .collect()
    }

    fn call(&self, name: &str, args: &Value, caller: Caller<'_>) -> Result<CapabilityResult, CapError> {
        self.registry.current().call(name, args, &self.context(caller))
    }

    fn report_page(&self, facility_id: &str, caller: Caller<'_>) -> Result<String, CapError> {
        let ctx = self.context(caller);
        let store = ctx.store.clone().ok_or_else(|| {
            CapError::new(ErrorCode::NotFound, "this server has no store, so no facility has a report")
        })?;
        crate::report::build(&self.registry.current(), &ctx, &store, facility_id, &serde_json::json!({}))
            .map(|(html, _)| html)
    }

    fn facility_version(&self, facility_id: &str) -> Option<String> {
        self.base.store.as_ref().map(|s| s.generation(&[facility_id.to_string()]))
    }

    fn component_resources(&self) -> Vec<camber_common::ResourceInfo> {
        self.registry.current().resources().map(|r| r.info.clone()).collect()
    }

    fn read_component_resource(
        &self,
        uri: &str,
        caller: Caller<'_>,
    ) -> Option<Result<Vec<camber_common::ContentBlock>, CapError>> {
        let ctx = self.context(caller);
        self.registry.current().read_resource(uri, &ctx)
    }

    fn get_prompt(
        &self,
        name: &str,
        args: &BTreeMap<String, String>,
    ) -> Result<camber_common::RenderedPrompt, CapError> {
        self.registry.current().get_prompt(name, args)
    }

    fn reload(&self) -> ListChange {
        let r = self.registry.reload();
        ListChange { tools: r.tools, prompts: r.prompts, lines: r.lines }
    }

    fn redactor(&self) -> &Redactor {
        &self.base.redactor
    }
}

/// MCP tasks kept in the store's bucket, so that replicas over one bucket answer for each
/// other's tasks (see `camber_serve::tasks::Shelf`).
#[derive(Debug)]
pub struct BucketShelf(pub std::sync::Arc<camber_store::bucket::Bucket>);

impl camber_serve::tasks::Shelf for BucketShelf {
    fn put(&self, key: &str, v: &Value) -> Result<(), String> {
        let bytes = camber_store::bucket::Bytes::from(v.to_string());
        self.0.put(key, bytes, camber_store::bucket::Expect::Any).map(|_| ()).map_err(|e| format!("{e:?}"))
    }

    fn get(&self, key: &str) -> Option<Value> {
        self.0.fetch(key).ok().flatten().and_then(|(b, _)| serde_json::from_slice(&b).ok())
    }

    fn list(&self, prefix: &str) -> Vec<String> {
        self.0.list_prefix(prefix).unwrap_or_default()
    }

    fn delete(&self, key: &str) {
        let _ = self.0.delete(&[key.to_string()]);
    }
}
