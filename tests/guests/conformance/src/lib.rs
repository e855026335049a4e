//! The fixtures the MCP conformance suite (`@modelcontextprotocol/conformance`) calls by name,
//! written as an author would write any capability: the suite's scenarios for a text result,
//! a tool error, progress, log messages and prompts then run through the host's whole pipeline (schemas,
//! policy, the sandbox, the transports) instead of a mock. The image, audio and embedded
//! resources go through the `content` import and the host's checks of it. Only the
//! conformance test loads this component; the scenarios it does not pass are listed in
//! docs/CONFORMANCE.md.

use std::collections::BTreeMap;

use camber_sdk::{Body, CapError, Capability, Context, Output, Plugin, Prompt, PromptArg, Resource};
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

/// A 1x1 red PNG (the suite's own fixture image).
const RED_PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49,
    0x44, 0x41, 0x54, 0x08, 0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d, 0xb0,
    0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A tenth of a second of silence as a WAV file (8 kHz, 8-bit mono).
fn silence_wav() -> Vec<u8> {
    let samples = 800u32;
    let mut w = Vec::with_capacity(44 + samples as usize);
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + samples).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&8000u32.to_le_bytes());
    w.extend_from_slice(&8000u32.to_le_bytes()); // bytes a second
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits a sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&samples.to_le_bytes());
    w.resize(44 + samples as usize, 0x80);
    w
}

fn image_content(_: &Value, _: &Context) -> Result<Output, CapError> {
    camber_sdk::content::image("image/png", RED_PIXEL_PNG, "one red pixel");
    Ok(Output::new(json!({"attached": ["image"]}), "An image follows.", vec![]))
}

fn audio_content(_: &Value, _: &Context) -> Result<Output, CapError> {
    camber_sdk::content::audio("audio/wav", &silence_wav(), "a tenth of a second of silence");
    Ok(Output::new(json!({"attached": ["audio"]}), "A sound follows.", vec![]))
}

fn embedded_resource(_: &Value, _: &Context) -> Result<Output, CapError> {
    camber_sdk::content::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    );
    Ok(Output::new(json!({"attached": ["resource"]}), "A resource follows.", vec![]))
}

fn multiple_content_types(_: &Value, _: &Context) -> Result<Output, CapError> {
    camber_sdk::content::image("image/png", RED_PIXEL_PNG, "one red pixel");
    camber_sdk::content::embedded_text(
        "test://mixed-content-resource",
        "application/json",
        r#"{"test":"data","value":123}"#,
    );
    Ok(Output::new(json!({"attached": ["image", "resource"]}), "Multiple content types test:", vec![]))
}

fn prompt_with_image(_: &BTreeMap<String, String>) -> Result<String, CapError> {
    camber_sdk::content::image("image/png", RED_PIXEL_PNG, "one red pixel");
    Ok("Please analyze the image that follows.".into())
}

fn prompt_with_embedded_resource(args: &BTreeMap<String, String>) -> Result<String, CapError> {
    let uri = args.get("resourceUri").cloned().unwrap_or_else(|| "test://example-resource".into());
    camber_sdk::content::embedded_text(&uri, "text/plain", "Embedded resource content for testing.");
    Ok("Please process the embedded resource that follows.".into())
}

fn static_text(_: &str, _: &Context) -> Result<Option<Body>, CapError> {
    Ok(Some(Body::Text("This is the content of the static text resource.".into())))
}

fn static_binary(_: &str, _: &Context) -> Result<Option<Body>, CapError> {
    Ok(Some(Body::Bytes(RED_PIXEL_PNG.to_vec())))
}

fn watched(_: &str, _: &Context) -> Result<Option<Body>, CapError> {
    Ok(Some(Body::Text("A resource a client may watch; it never changes.".into())))
}

/// `test://template/{id}/data`: the id read back out of the URI.
fn template_data(uri: &str, _: &Context) -> Result<Option<Body>, CapError> {
    let Some(id) = uri.strip_prefix("test://template/").and_then(|r| r.strip_suffix("/data")) else {
        return Ok(None);
    };
    Ok(Some(Body::Text(json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string())))
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
        .capability(tool("test_image_content", "Image", "Returns one image.", image_content))
        .capability(tool("test_audio_content", "Audio", "Returns one sound.", audio_content))
        .capability(tool(
            "test_embedded_resource",
            "Embedded resource",
            "Returns one embedded resource.",
            embedded_resource,
        ))
        .capability(tool(
            "test_multiple_content_types",
            "Mixed content",
            "Returns text, an image and an embedded resource.",
            multiple_content_types,
        ))
        .resource(
            Resource::new("test://static-text", "static-text", "text/plain", static_text)
                .title("Static text")
                .description("A fixed line of text."),
        )
        .resource(
            Resource::new("test://static-binary", "static-binary", "image/png", static_binary)
                .title("Static binary")
                .description("A fixed 1x1 PNG."),
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource", "text/plain", watched)
                .title("Watched resource")
                .description("A resource to subscribe to."),
        )
        .resource(
            Resource::template("test://template/{id}/data", "template-data", "application/json", template_data)
                .title("Template data")
                .description("The id of the URI, read back."),
        )
        .prompt(Prompt {
            name: "test_prompt_with_image".into(),
            title: "Prompt with an image".into(),
            description: "A prompt whose message is followed by an image.".into(),
            arguments: vec![],
            render: prompt_with_image,
        })
        .prompt(Prompt {
            name: "test_prompt_with_embedded_resource".into(),
            title: "Prompt with an embedded resource".into(),
            description: "A prompt whose message is followed by the resource it names.".into(),
            arguments: vec![PromptArg {
                name: "resourceUri".into(),
                description: "the URI of the resource to embed".into(),
                required: true,
            }],
            render: prompt_with_embedded_resource,
        })
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
