//! The shape of an answer: what a handler returns (`Output`) and what a caller receives
//! after the host's policy has run (`CapabilityResult`).

use serde::{Deserialize, Serialize};
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

/// What every adapter returns for a successful call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapabilityResult {
    pub data: Value,
    pub text: String,
    pub facts: Vec<Value>,
    pub banners: Vec<String>,
    pub truncated: bool,
}

impl CapabilityResult {
    /// The JSON object the CLI prints and the adapters embed.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "data": self.data,
            "text": self.text,
            "facts": self.facts,
            "banners": self.banners,
            "truncated": self.truncated,
        })
    }
}
