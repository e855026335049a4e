//! The shape of an answer: what a handler returns (`Output`) and what a caller receives
//! after the host's policy has run (`CapabilityResult`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::page::PageNotice;

/// What a handler returns, before the host scopes fact ids, applies caps and checks it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Output {
    /// The structured answer; must match the capability's output schema.
    pub data: Value,
    /// A short summary citing plain fact ids such as `[F1@points]`.
    pub text: String,
    /// The facts those ids name: objects with at least `id`, `kind`, `value`, `text`.
    pub facts: Vec<Value>,
    /// Notices the user must always see (licence, fallbacks ...).
    pub banners: Vec<String>,
    /// Lists cut to a page with [`crate::page`]; the host turns each into a banner.
    pub pages: Vec<PageNotice>,
}

impl Output {
    /// An output with data, text and facts and nothing else.
    pub fn new(data: Value, text: impl Into<String>, facts: Vec<Value>) -> Self {
        Output { data, text: text.into(), facts, banners: Vec::new(), pages: Vec::new() }
    }
}

/// An image the host attaches to a result (a finding's evidence chart), for adapters that
/// carry images (an MCP image block, an A2A file part).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`.
    pub mime_type: String,
    /// The bytes, base64-encoded (standard alphabet, padded), as MCP and A2A carry them.
    pub data: String,
    /// What the image shows, in a line citing the fact it illustrates.
    pub alt: String,
}

/// A block of content a capability attached to its answer (or a prompt to its message) beside
/// the text, checked by the host: an MCP image, audio or embedded-resource block, an A2A file
/// part. Bytes are base64 (standard alphabet, padded), as MCP and A2A carry them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Image {
        mime_type: String,
        data: String,
        alt: String,
    },
    Audio {
        mime_type: String,
        data: String,
        alt: String,
    },
    Resource {
        uri: String,
        mime_type: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
}

impl ContentBlock {
    /// Its size as the byte cap counts it.
    pub fn bytes(&self) -> usize {
        match self {
            ContentBlock::Image { mime_type, data, alt } | ContentBlock::Audio { mime_type, data, alt } => {
                mime_type.len() + data.len() + alt.len()
            }
            ContentBlock::Resource { uri, mime_type, text, blob } => {
                uri.len()
                    + mime_type.len()
                    + text.as_ref().map_or(0, String::len)
                    + blob.as_ref().map_or(0, String::len)
            }
        }
    }
}

/// A resource (or a template of resources) a component serves, as the host lists it: its URI
/// (a template's `{name}` parts each one path segment), name, title, description and MIME type.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ResourceInfo {
    pub uri: String,
    pub template: bool,
    pub name: String,
    pub title: String,
    pub description: String,
    pub mime_type: String,
}

impl ResourceInfo {
    /// Whether it serves `uri`: the URI itself, or one its template matches.
    pub fn serves(&self, uri: &str) -> bool {
        if self.template {
            crate::text::matches_uri_template(&self.uri, uri)
        } else {
            self.uri == uri
        }
    }
}

/// A prompt rendered: its user message's text and the content blocks that follow it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RenderedPrompt {
    pub text: String,
    pub attached: Vec<ContentBlock>,
}

/// What every adapter returns for a successful call.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CapabilityResult {
    /// Shared, not owned: a result the host keeps for calls asked again hands each answer the
    /// same tree instead of a copy of it.
    pub data: Arc<Value>,
    pub text: String,
    pub facts: Vec<Value>,
    pub banners: Vec<String>,
    pub truncated: bool,
    /// Images drawn by the host from the store (none unless the capability asks for one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    /// The content blocks the capability attached, in its order, after the host's images.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<ContentBlock>,
    /// `data` as JSON text, when the host already has it (a result it keeps for calls asked
    /// again): an adapter writes this instead of serializing `data` once more. A copy of
    /// `data`, never a field of its own on the wire, and not part of equality.
    #[serde(skip)]
    pub data_json: Option<Arc<RawValue>>,
}

impl PartialEq for CapabilityResult {
    fn eq(&self, other: &Self) -> bool {
        (&self.data, &self.text, &self.facts, &self.banners, self.truncated, &self.images, &self.attached)
            == (&other.data, &other.text, &other.facts, &other.banners, other.truncated, &other.images, &other.attached)
    }
}

impl CapabilityResult {
    /// `data` as JSON text: the kept copy when there is one, else serialized now.
    pub fn data_text(&self) -> String {
        match &self.data_json {
            Some(j) => j.get().to_string(),
            None => serde_json::to_string(&self.data).unwrap_or_default(),
        }
    }

    /// The JSON object the CLI prints and the adapters embed.
    pub fn to_json(&self) -> Value {
        let mut out = serde_json::json!({
            "data": self.data,
            "text": self.text,
            "facts": self.facts,
            "banners": self.banners,
            "truncated": self.truncated,
        });
        if !self.images.is_empty() {
            out["images"] = serde_json::json!(self.images);
        }
        if !self.attached.is_empty() {
            out["attached"] = serde_json::json!(self.attached);
        }
        out
    }
}
