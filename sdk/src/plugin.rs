//! The author-facing description of a component (capabilities, prompts, handlers) and the
//! glue that turns it into the WIT exports.

use std::collections::BTreeMap;

use serde_json::Value;

use camber_common::{CapError, ErrorCode, Output};

/// What a handler knows about the caller.
#[derive(Clone, Debug)]
pub struct Context {
    /// The facilities this caller may read (sorted).
    pub allowed_facilities: Vec<String>,
    /// The trust floor of this caller.
    pub min_trust: f64,
    /// Lists longer than this are cut by the host.
    pub max_rows: u32,
    /// A label for the caller (for messages; never for policy).
    pub caller: String,
}

/// A handler: validated arguments in, an output or a refusal out.
pub type Handler = fn(&Value, &Context) -> Result<Output, CapError>;

/// One capability a component offers.
#[derive(Clone)]
pub struct Capability {
    /// The name callers call it by (snake_case, unique across the loaded components).
    pub name: String,
    /// The capability's own version (semver), published in its descriptor.
    pub version: String,
    /// A short human title.
    pub title: String,
    /// What it answers, for an assistant choosing a tool: never leave it empty.
    pub description: String,
    /// JSON Schema of the arguments (the host validates every call against it).
    pub input_schema: Value,
    /// JSON Schema of the result's data (the host checks every result against it).
    pub output_schema: Value,
    /// "cheap", "one timestamp scan", "long-running" ...
    pub cost: String,
    /// Free-form annotations for callers; the host never interprets them.
    pub annotations: Vec<(String, String)>,
    /// Top-level data keys that are the capability's own output (the caller's text echoed
    /// back), which the host never cuts.
    pub own_output: Vec<String>,
    /// The function that answers a call.
    pub handler: Handler,
}

impl Capability {
    /// A capability with empty object schemas; fill it in with the builder methods.
    pub fn new(name: &str, handler: Handler) -> Self {
        let empty = serde_json::json!({"type": "object"});
        Capability {
            name: name.to_string(),
            version: "1.0.0".to_string(),
            title: name.to_string(),
            description: String::new(),
            input_schema: empty.clone(),
            output_schema: empty,
            cost: "cheap".to_string(),
            annotations: Vec::new(),
            own_output: Vec::new(),
            handler,
        }
    }
    /// Set the version.
    pub fn version(mut self, v: &str) -> Self {
        self.version = v.to_string();
        self
    }
    /// Set the title.
    pub fn title(mut self, t: &str) -> Self {
        self.title = t.to_string();
        self
    }
    /// Set the description an assistant reads.
    pub fn description(mut self, d: &str) -> Self {
        self.description = d.to_string();
        self
    }
    /// Set the input schema (the subset of JSON Schema the host enforces; others are refused at load).
    pub fn input_schema(mut self, s: Value) -> Self {
        self.input_schema = s;
        self
    }
    /// Set the output schema.
    pub fn output_schema(mut self, s: Value) -> Self {
        self.output_schema = s;
        self
    }
    /// Set the cost class ("cheap", "one timestamp scan", "long-running").
    pub fn cost(mut self, c: &str) -> Self {
        self.cost = c.to_string();
        self
    }
    /// Add a free-form annotation.
    pub fn annotation(mut self, k: &str, v: &str) -> Self {
        self.annotations.push((k.to_string(), v.to_string()));
        self
    }
    /// Name the top-level data keys that echo the caller's own text (the host never cuts
    /// them at 2,000 characters).
    pub fn own_output(mut self, keys: &[&str]) -> Self {
        self.own_output = keys.iter().map(|k| k.to_string()).collect();
        self
    }
}

/// One argument of a prompt.
#[derive(Clone, Debug)]
pub struct PromptArg {
    /// The argument's name.
    pub name: String,
    /// What to pass.
    pub description: String,
    /// Whether the prompt needs it.
    pub required: bool,
}

/// A prompt template: renders one user message from its arguments.
#[derive(Clone)]
pub struct Prompt {
    /// The prompt's name.
    pub name: String,
    /// A short human title.
    pub title: String,
    /// What the prompt asks for.
    pub description: String,
    /// Its arguments.
    pub arguments: Vec<PromptArg>,
    /// Render the user message from the arguments (each already one short line).
    pub render: fn(&BTreeMap<String, String>) -> Result<String, CapError>,
}

/// Everything one component exports.
#[derive(Clone, Default)]
pub struct Plugin {
    /// The capabilities it offers.
    pub capabilities: Vec<Capability>,
    /// The prompts it offers.
    pub prompts: Vec<Prompt>,
    /// The MCP resources it serves.
    pub resources: Vec<Resource>,
}

/// What a resource holds: its text, or its bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Text (JSON, HTML, plain text ...).
    Text(String),
    /// Bytes (an image, a file).
    Bytes(Vec<u8>),
}

/// Reads one resource: the URI asked for (one matching the template, for a template) and the
/// caller; its body, or `None` when there is no such resource.
pub type ResourceReader = fn(&str, &Context) -> Result<Option<Body>, CapError>;

/// An MCP resource a component serves: one URI, or a template of URIs whose `{name}` parts
/// each stand for one path segment (`test://template/{id}/data`). Never a `camber:` URI: those
/// are the host's.
#[derive(Clone)]
pub struct Resource {
    /// Its URI (or URI template), name, title, description and MIME type, as listed.
    pub info: camber_common::ResourceInfo,
    /// The function that reads it.
    pub read: ResourceReader,
}

impl Resource {
    /// A resource at one URI.
    pub fn new(uri: &str, name: &str, mime_type: &str, read: ResourceReader) -> Self {
        let info = camber_common::ResourceInfo {
            uri: uri.into(),
            template: false,
            name: name.into(),
            title: name.into(),
            description: String::new(),
            mime_type: mime_type.into(),
        };
        Resource { info, read }
    }
    /// Resources at every URI matching a template.
    pub fn template(uri_template: &str, name: &str, mime_type: &str, read: ResourceReader) -> Self {
        let mut r = Resource::new(uri_template, name, mime_type, read);
        r.info.template = true;
        r
    }
    /// Set the title.
    pub fn title(mut self, t: &str) -> Self {
        self.info.title = t.into();
        self
    }
    /// Set the description.
    pub fn description(mut self, d: &str) -> Self {
        self.info.description = d.into();
        self
    }
}

impl Plugin {
    /// An empty component.
    pub fn new() -> Self {
        Plugin::default()
    }
    /// Offer a capability.
    pub fn capability(mut self, c: Capability) -> Self {
        self.capabilities.push(c);
        self
    }
    /// Offer a prompt.
    pub fn prompt(mut self, p: Prompt) -> Self {
        self.prompts.push(p);
        self
    }
    /// Serve a resource (or a template of them).
    pub fn resource(mut self, r: Resource) -> Self {
        self.resources.push(r);
        self
    }
}

/// The WIT side of [`crate::export_plugin!`]; not for authors.
#[doc(hidden)]
pub mod __guest {
    use super::*;
    use crate::bindings::camber::capability::types as wit;

    pub fn describe(p: &Plugin) -> Vec<wit::Descriptor> {
        p.capabilities
            .iter()
            .map(|c| wit::Descriptor {
                name: c.name.clone(),
                version: c.version.clone(),
                title: c.title.clone(),
                description: c.description.clone(),
                input_schema: c.input_schema.to_string(),
                output_schema: c.output_schema.to_string(),
                cost: c.cost.clone(),
                annotations: c.annotations.clone(),
                own_output: c.own_output.clone(),
            })
            .collect()
    }

    pub fn prompts(p: &Plugin) -> Vec<wit::Prompt> {
        p.prompts
            .iter()
            .map(|pr| wit::Prompt {
                name: pr.name.clone(),
                title: pr.title.clone(),
                description: pr.description.clone(),
                arguments: pr
                    .arguments
                    .iter()
                    .map(|a| wit::PromptArg {
                        name: a.name.clone(),
                        description: a.description.clone(),
                        required: a.required,
                    })
                    .collect(),
            })
            .collect()
    }

    pub fn get_prompt(p: &Plugin, name: String, arguments: Vec<(String, String)>) -> Result<String, wit::CapError> {
        let Some(pr) = p.prompts.iter().find(|pr| pr.name == name) else {
            return Err(to_wit(CapError::new(ErrorCode::UnknownCapability, format!("no prompt named '{name}'"))));
        };
        let args: BTreeMap<String, String> = arguments.into_iter().collect();
        (pr.render)(&args).map_err(to_wit)
    }

    pub fn call(
        p: &Plugin,
        name: String,
        arguments: String,
        ctx: wit::CallContext,
    ) -> Result<wit::CallResult, wit::CapError> {
        let Some(cap) = p.capabilities.iter().find(|c| c.name == name) else {
            return Err(to_wit(CapError::new(ErrorCode::UnknownCapability, format!("no capability named '{name}'"))));
        };
        let args: Value = serde_json::from_str(&arguments)
            .map_err(|e| to_wit(CapError::invalid(format!("arguments are not JSON: {e}"))))?;
        let out = (cap.handler)(&args, &context(ctx)).map_err(to_wit)?;
        Ok(wit::CallResult {
            data: out.data.to_string(),
            text: out.text,
            facts: Value::Array(out.facts).to_string(),
            banners: out.banners,
            pages: out
                .pages
                .into_iter()
                .map(|n| wit::PageNotice {
                    key: n.list,
                    offset: n.offset,
                    limit: n.limit,
                    total: n.total,
                    order: n.order,
                })
                .collect(),
        })
    }

    pub fn list_resources(p: &Plugin) -> Vec<wit::ResourceInfo> {
        p.resources
            .iter()
            .map(|r| wit::ResourceInfo {
                uri: r.info.uri.clone(),
                name: r.info.name.clone(),
                title: r.info.title.clone(),
                description: r.info.description.clone(),
                mime_type: r.info.mime_type.clone(),
                template: r.info.template,
            })
            .collect()
    }

    pub fn read_resource(
        p: &Plugin,
        uri: String,
        ctx: wit::CallContext,
    ) -> Result<Option<Vec<crate::bindings::camber::capability::content::Embedded>>, wit::CapError> {
        let Some(r) = p.resources.iter().find(|r| r.info.serves(&uri)) else {
            return Ok(None);
        };
        let ctx = context(ctx);
        let body = (r.read)(&uri, &ctx).map_err(to_wit)?;
        Ok(body.map(|b| {
            let (text, blob) = match b {
                Body::Text(t) => (Some(t), None),
                Body::Bytes(b) => (None, Some(b)),
            };
            vec![crate::bindings::camber::capability::content::Embedded {
                uri,
                mime_type: r.info.mime_type.clone(),
                text,
                blob,
            }]
        }))
    }

    fn context(ctx: wit::CallContext) -> Context {
        Context {
            allowed_facilities: ctx.allowed_facilities,
            min_trust: ctx.min_trust,
            max_rows: ctx.max_rows,
            caller: ctx.caller,
        }
    }

    use wit::ErrorCode as WitErrorCode;
    camber_common::wit_error_code_mapping!(WitErrorCode);

    fn to_wit(e: CapError) -> wit::CapError {
        wit::CapError { code: code_to_wit(e.code), message: e.message, data: e.data.map(|d| d.to_string()) }
    }
}
