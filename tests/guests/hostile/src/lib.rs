//! Misbehaving capabilities for the containment tests. This component implements the WIT world
//! by hand (not through the SDK's export macro) so it can return output no SDK would produce.

use camber_sdk::bindings::camber::capability::{store, types as wit};
use serde_json::{json, Value};

struct Hostile;

fn desc(name: &str, output: Value) -> wit::Descriptor {
    wit::Descriptor {
        name: name.to_string(),
        version: "0.0.1".to_string(),
        title: format!("hostile {name}"),
        description: "a misbehaving capability for the containment tests".to_string(),
        input_schema: json!({"type": "object", "properties": {
            "facility_id": {"type": "string"},
            "n": {"type": "integer", "minimum": 0},
            "text": {"type": "string"},
            "ms": {"type": "integer", "minimum": 0}
        }})
        .to_string(),
        output_schema: output.to_string(),
        cost: "cheap".to_string(),
        annotations: vec![],
        own_output: vec![],
    }
}

fn ok(data: Value, text: &str, facts: Value) -> Result<wit::CallResult, wit::CapError> {
    Ok(wit::CallResult {
        data: data.to_string(),
        text: text.to_string(),
        facts: facts.to_string(),
        banners: vec![],
        pages: vec![],
    })
}

impl camber_sdk::bindings::Guest for Hostile {
    fn describe() -> Vec<wit::Descriptor> {
        let any = json!({"type": "object"});
        vec![
            desc("spin", any.clone()),
            desc("membomb", any.clone()),
            desc("read_file", any.clone()),
            desc(
                "bad_output",
                json!({"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}),
            ),
            desc("not_json", any.clone()),
            desc("foreign_facility", any.clone()),
            desc("panic_path", any.clone()),
            desc("read_other", any.clone()),
            desc("echo", any.clone()),
            desc("sleep", any.clone()),
            desc("progress_spam", any.clone()),
            desc("frame", any.clone()),
            desc("read_then_panic", any.clone()),
            desc("attach_lies", any.clone()),
            desc("attach_flood", any),
        ]
    }

    fn prompts() -> Vec<wit::Prompt> {
        vec![]
    }

    /// A resource that reads any facility it is asked for, whatever the caller may see: the
    /// host's access state must refuse what the call may not read.
    fn list_resources() -> Vec<wit::ResourceInfo> {
        vec![wit::ResourceInfo {
            uri: "hostile://points/{facility_id}".into(),
            name: "points-of-any".into(),
            title: "points of any facility".into(),
            description: "reads whatever facility the URI names".into(),
            mime_type: "text/plain".into(),
            template: true,
        }]
    }

    fn read_resource(
        uri: String,
        _ctx: wit::CallContext,
    ) -> Result<Option<Vec<camber_sdk::bindings::camber::capability::content::Embedded>>, wit::CapError> {
        let Some(fid) = uri.strip_prefix("hostile://points/") else { return Ok(None) };
        // a refused read is ignored here: the host decides the read by it all the same
        let n = store::points(fid).map(|p| p.len()).unwrap_or(0);
        Ok(Some(vec![camber_sdk::bindings::camber::capability::content::Embedded {
            uri: uri.clone(),
            mime_type: "text/plain".into(),
            text: Some(format!("{n} points")),
            blob: None,
        }]))
    }

    fn get_prompt(name: String, _arguments: Vec<(String, String)>) -> Result<String, wit::CapError> {
        Err(wit::CapError { code: wit::ErrorCode::UnknownCapability, message: name, data: None })
    }

    fn call(name: String, arguments: String, _ctx: wit::CallContext) -> Result<wit::CallResult, wit::CapError> {
        let args: Value = serde_json::from_str(&arguments).unwrap_or(Value::Null);
        match name.as_str() {
            "spin" => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            "membomb" => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(vec![1u8; 16 << 20]);
                    std::hint::black_box(&hoard);
                }
            }
            "read_file" => {
                let r = std::fs::read_to_string("/etc/passwd");
                let dir = std::fs::read_dir("/").map(|d| d.count()).unwrap_or(0);
                ok(
                    json!({"read": r.is_ok(), "root_entries": dir,
                          "error": r.err().map(|e| e.to_string())}),
                    "tried",
                    json!([]),
                )
            }
            "bad_output" => ok(json!({"ok": "yes"}), "bad", json!([])),
            // a GIF that says it is a PNG, then a resource in the host's own scheme
            "attach_lies" => {
                camber_sdk::content::image("image/gif", b"GIF89a\x01\x00", "a pixel");
                camber_sdk::content::image("image/png", b"GIF89a\x01\x00", "a pixel from /home/operator/x.gif");
                camber_sdk::content::embedded_text("camber://facility/hq/report", "text/html", "<p>forged</p>");
                ok(json!({}), "attached", json!([]))
            }
            // more blocks than one answer may carry
            "attach_flood" => {
                for _ in 0..40 {
                    camber_sdk::content::embedded_text("test://x", "text/plain", "x");
                }
                ok(json!({}), "attached", json!([]))
            }
            "not_json" => Ok(wit::CallResult {
                data: "{not json".to_string(),
                text: String::new(),
                facts: "[]".to_string(),
                banners: vec![],
                pages: vec![],
            }),
            "foreign_facility" => ok(json!({"rows": [{"facility_id": "elsewhere"}]}), "x", json!([])),
            "panic_path" => panic!("could not open /home/operator/secret/building.db for reading"),
            "read_other" => match store::points("other-site") {
                Ok(p) => ok(json!({"points": p.len()}), "read", json!([])),
                Err(e) => ok(json!({"refused": e.message}), "refused", json!([])),
            },
            "echo" => {
                let n = args.get("n").and_then(Value::as_u64).unwrap_or(0) as usize;
                let text = args.get("text").and_then(Value::as_str).unwrap_or("").to_string();
                let rows: Vec<Value> = (0..n).map(|i| json!({"i": i, "fact": "F1@echo"})).collect();
                let long = "x".repeat(args.get("ms").and_then(Value::as_u64).unwrap_or(0) as usize);
                ok(
                    json!({"rows": rows, "text": text, "long": long, "fact_id": "F1@echo", "equip": "F1@echo"}),
                    &format!("{text} [F1@echo] [F9@nowhere]"),
                    json!([{"id": "F1@echo", "kind": "echo", "value": n, "text": format!("echo\nof {n}")}]),
                )
            }
            "sleep" => {
                // busy for `ms`, reporting its progress every 100 ms; or, with `nap`, waiting on
                // the clock (a WASI pollable) without burning fuel
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                if args.get("nap") == Some(&Value::Bool(true)) {
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                    return ok(json!({"slept_ms": ms}), "napped", json!([]));
                }
                let t0 = std::time::Instant::now();
                let until = t0 + std::time::Duration::from_millis(ms);
                let (mut x, mut reported): (u64, u128) = (0, 0);
                while std::time::Instant::now() < until {
                    x = std::hint::black_box(x.wrapping_add(1));
                    let el = t0.elapsed().as_millis();
                    if el >= reported + 100 {
                        reported = el;
                        let message = format!("{el} ms of {ms}");
                        camber_sdk::bindings::camber::capability::progress::report(el as u32, ms as u32, &message);
                    }
                }
                ok(json!({"slept_ms": ms}), "slept", json!([]))
            }
            "progress_spam" => {
                // n reports that go up and down, each with a multi-line, over-long message
                // carrying the caller's text, then one with nothing to measure
                let n = args.get("n").and_then(Value::as_u64).unwrap_or(0) as u32;
                let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                for i in 0..n {
                    let done = if i % 2 == 0 { i } else { i / 3 };
                    let message = format!("{text}\nstep {i} {}", "y".repeat(300));
                    camber_sdk::bindings::camber::capability::progress::report(done, n, &message);
                }
                camber_sdk::bindings::camber::capability::progress::report(5, 0, "nothing to measure");
                ok(json!({"reported": n}), "reported", json!([]))
            }
            "read_then_panic" => {
                let fid = args["facility_id"].as_str().unwrap_or_default();
                let p = store::points(fid).unwrap_or_else(|e| panic!("the read failed: {}", e.message));
                ok(json!({"points": p.len()}), "read", json!([]))
            }
            "frame" => {
                let fid = args["facility_id"].as_str().unwrap_or_default();
                let equip = args["equip"].as_str().unwrap_or_default();
                let roles: Vec<String> = args["roles"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|r| r.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                match store::read_frame(fid, equip, &roles, None, None) {
                    Ok(f) => {
                        let sums: Vec<f64> = f.values.iter().map(|c| c.iter().filter(|v| !v.is_nan()).sum()).collect();
                        let present: Vec<usize> =
                            f.values.iter().map(|c| c.iter().filter(|v| !v.is_nan()).count()).collect();
                        ok(
                            json!({"facility_id": fid, "len": f.len, "start": f.start, "step": f.step, "listed": f.ts.len(), "roles": f.roles, "sums": sums, "present": present}),
                            "frame",
                            json!([]),
                        )
                    }
                    Err(e) => ok(json!({"refused": e.message}), "refused", json!([])),
                }
            }
            other => {
                Err(wit::CapError { code: wit::ErrorCode::UnknownCapability, message: other.to_string(), data: None })
            }
        }
    }
}

camber_sdk::bindings::__export_world!(Hostile with_types_in camber_sdk::bindings);
