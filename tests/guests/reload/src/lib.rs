//! The component the hot-reload tests drop into a running server. Its build marker
//! ([`VARIANT`]) is in its description and its answers; a test makes "a changed version" by
//! flipping the marker's last letter in the `.wasm` (a data segment: the file stays a valid
//! component whose contract now differs), and "a tampered copy" the same way after signing.
//! Its calls: `reload_probe` (which build answered, after an optional busy wait, so a call
//! can be in flight across a reload), `reload_store` (a store read: the component imports the
//! store interface) and `reload_memory` (grows its memory: the per-component cap stops it).

use camber_sdk::{CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

/// The build marker the tests flip: `reload-variant-A` in the built file.
pub static VARIANT: &str = "reload-variant-A";

fn variant() -> &'static str {
    std::hint::black_box(VARIANT)
}

fn probe(args: &Value, _: &Context) -> Result<Output, CapError> {
    let wait = args.get("sleep_ms").and_then(Value::as_u64).unwrap_or(0).min(60_000);
    let until = std::time::Instant::now() + std::time::Duration::from_millis(wait);
    while std::time::Instant::now() < until {
        std::hint::spin_loop();
    }
    let v = variant();
    Ok(Output::new(json!({"variant": v}), format!("answered by {v}"), vec![]))
}

fn store_read(_: &Value, _: &Context) -> Result<Output, CapError> {
    let n = camber_sdk::store::facilities()?.facilities.len();
    Ok(Output::new(json!({"facilities": n}), format!("{n} facilities"), vec![]))
}

fn memory(args: &Value, _: &Context) -> Result<Output, CapError> {
    let mib = args.get("mib").and_then(Value::as_u64).unwrap_or(1).min(4096) as usize;
    let mut v: Vec<u8> = Vec::new();
    v.try_reserve_exact(mib << 20).map_err(|_| CapError::invalid("cannot reserve"))?;
    v.resize(mib << 20, 1);
    let sum: u64 = v.iter().step_by(4096).map(|b| u64::from(*b)).sum();
    Ok(Output::new(json!({"touched_pages": sum}), format!("held {mib} MiB"), vec![]))
}

fn cap(name: &str, what: &str, handler: camber_sdk::Handler, input: Value) -> Capability {
    Capability::new(name, handler)
        .title(&format!("reload test: {name}"))
        .description(&format!("{what} (build {}).", variant()))
        .input_schema(input)
        .output_schema(json!({"type": "object"}))
        .cost("cheap")
}

fn plugin() -> Plugin {
    let none = json!({"type": "object", "additionalProperties": false, "properties": {}});
    Plugin::new()
        .capability(cap(
            "reload_probe",
            "Says which build of the reload test component answered, after an optional busy wait",
            probe,
            json!({"type": "object", "additionalProperties": false, "properties": {"sleep_ms": {"type": "integer", "minimum": 0}}}),
        ))
        .capability(cap("reload_store", "Counts the facilities the call may read", store_read, none))
        .capability(cap(
            "reload_memory",
            "Holds the given MiB of memory",
            memory,
            json!({"type": "object", "additionalProperties": false, "properties": {"mib": {"type": "integer", "minimum": 1}}}),
        ))
}

camber_sdk::export_plugin!(plugin);
