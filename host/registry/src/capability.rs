//! One capability as the host serves it: its descriptor, its compiled schemas, the component
//! it comes from.

use serde_json::{json, Value};

use camber_common::canonical::digest;

use crate::policy::Schema;

/// One capability as the host serves it.
pub struct CapabilityEntry {
    pub name: String,
    pub version: String,
    pub title: String,
    pub description: String,
    pub cost: String,
    pub annotations: Vec<(String, String)>,
    pub input: Schema,
    pub output: Schema,
    /// The component file it came from (a name, never a path).
    pub file: String,
    /// Top-level data keys that are the capability's own output (the caller's text echoed
    /// back): never cut by the 2,000-character string cap.
    pub own_output: Vec<String>,
    /// The loaded component that serves it.
    pub(crate) unit: std::sync::Arc<crate::registry::Unit>,
    /// The descriptor's revision digest, computed once (a list, a reload and every
    /// `tools/list` ask for it).
    pub(crate) revision: std::sync::OnceLock<String>,
}

impl CapabilityEntry {
    /// The descriptor of spec/capability-descriptor.txt, with its revision digest (SHA-256 of
    /// the RFC 8785 canonical JSON of the descriptor without the revision).
    pub fn descriptor(&self) -> Value {
        let mut d = self.bare_descriptor();
        d["revision"] = Value::String(self.revision().to_string());
        d
    }

    /// Whether its component keeps results between calls (see [`crate::memo`]).
    pub fn memo_enabled(&self) -> bool {
        self.unit.memo.enabled()
    }

    /// The descriptor's revision digest (see [`CapabilityEntry::descriptor`]).
    pub fn revision(&self) -> &str {
        self.revision.get_or_init(|| digest(&self.bare_descriptor()))
    }

    /// The descriptor without its revision.
    fn bare_descriptor(&self) -> Value {
        let mut annotations = serde_json::Map::new();
        annotations.insert("cost".into(), Value::String(self.cost.clone()));
        for (k, v) in &self.annotations {
            annotations.insert(k.clone(), Value::String(v.clone()));
        }
        json!({
            "id": self.name,
            "version": self.version,
            "title": self.title,
            "description": self.description,
            "input_schema": self.input.source,
            "output_schema": self.output.source,
            "io_mode": "unary",
            "annotations": annotations,
        })
    }
}
