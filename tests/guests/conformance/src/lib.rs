//! The fixtures the MCP conformance suite (`@modelcontextprotocol/conformance`) calls by name,
//! written as an author would write any capability: the suite's scenarios for a text result,
//! a tool error, progress, log messages and prompts then run through the host's whole pipeline (schemas,
//! policy, the sandbox, the transports) instead of a mock. Only the conformance test loads
//! this component; the suite's scenarios that need content camber never returns (images,
//! audio, resources, sampling, elicitation, completion) are listed in docs/CONFORMANCE.md.

use std::collections::BTreeMap;

use camber_sdk::{CapError, Capability, Context, Output, Plugin, Prompt, PromptArg};
use serde_json::{json, Value};

fn no_arguments() -> Value {
    json!({"type": "object", "additionalProperties": false, "properties": {}})
}

fn simple_text(_: &Value, _: &Context) -> Result<Output, CapError> {
    Ok(Output::new(json!({"ok": true}), "This is a simple text response for testing.", vec![]))
}

fn error_handling(_: &Value, _: &Context) -> Result<Output, CapError> {
    Err(CapError::invalid("this tool always fails, so a client sees how a tool's error arrives"))
}

/// Five steps, each reported as it finishes: the host turns them into rising progress.
fn with_progress(_: &Value, _: &Context) -> Result<Output, CapError> {
    const STEPS: usize = 5;
    for done in 1..=STEPS {
        camber_sdk::progress(done, STEPS, &format!("step {done}"));
    }
    Ok(Output::new(json!({"steps": STEPS}), format!("Finished {STEPS} steps."), vec![]))
}

/// Three steps, each reported: a client that asked for debug log messages gets one per step.
fn with_logging(_: &Value, _: &Context) -> Result<Output, CapError> {
    for done in 1..=3 {
        camber_sdk::progress(done, 3, &format!("step {done} of 3"));
    }
    Ok(Output::new(json!({"steps": 3}), "Finished 3 logged steps.", vec![]))
}

fn simple_prompt(_: &BTreeMap<String, String>) -> Result<String, CapError> {
    Ok("This is a simple prompt for testing.".into())
}

fn prompt_with_arguments(args: &BTreeMap<String, String>) -> Result<String, CapError> {
    let get = |k: &str| args.get(k).cloned().ok_or_else(|| CapError::invalid(format!("{k} is required")));
    Ok(format!("Prompt with arguments: arg1='{}', arg2='{}'", get("arg1")?, get("arg2")?))
}

fn tool(name: &str, title: &str, description: &str, handler: camber_sdk::Handler) -> Capability {
    Capability::new(name, handler)
        .title(title)
        .description(description)
        .input_schema(no_arguments())
        .output_schema(json!({"type": "object"}))
        .cost("cheap")
}

fn plugin() -> Plugin {
    let arg = |name: &str| PromptArg { name: name.into(), description: format!("any text ({name})"), required: true };
    Plugin::new()
        .capability(tool("test_simple_text", "Simple text", "Returns one line of text.", simple_text))
        .capability(tool("test_error_handling", "Error handling", "Always fails with a tool error.", error_handling))
        .capability(tool("test_tool_with_progress", "Progress", "Reports progress in five steps.", with_progress))
        .capability(tool(
            "test_tool_with_logging",
            "Logging",
            "Works in three steps, each seen at the debug level.",
            with_logging,
        ))
        .prompt(Prompt {
            name: "test_simple_prompt".into(),
            title: "Simple prompt".into(),
            description: "A prompt without arguments.".into(),
            arguments: vec![],
            render: simple_prompt,
        })
        .prompt(Prompt {
            name: "test_prompt_with_arguments".into(),
            title: "Prompt with arguments".into(),
            description: "A prompt that repeats its two arguments.".into(),
            arguments: vec![arg("arg1"), arg("arg2")],
            render: prompt_with_arguments,
        })
}

camber_sdk::export_plugin!(plugin);
