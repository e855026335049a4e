//! A capability whose input schema uses `oneOf`, which the host must refuse at load.

use camber_sdk::{CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

fn handler(_args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    Ok(Output::new(json!({}), "nothing", vec![]))
}

fn plugin() -> Plugin {
    Plugin::new().capability(Capability::new("badschema", handler).input_schema(
        json!({"type": "object", "properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
    ))
}

camber_sdk::export_plugin!(plugin);
