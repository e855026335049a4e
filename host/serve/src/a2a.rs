//! A2A over the registry: the agent card (one skill per capability) and the JSON-RPC binding of
//! A2A 1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`), plus the 0.3
//! method names (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`) for clients that
//! send no `A2A-Version` or a 0.x one. A streamed message answers as events: the task, a
//! working status update for each whole percent of progress the guest reports, the result's
//! artifact, and the final status. A message's data part
//! `{"capability": NAME, "arguments": {...}}` runs one call; the answer is a completed task
//! whose artifact holds a data part (data, facts, banners, truncated) and a text part (the
//! summary) and a file part per image the host drew (a finding's evidence chart, PNG), or a
//! failed task carrying the refusal's code and data.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use camber_common::{CapError, ErrorCode};

use super::auth::Caller;
use super::jsonrpc::{self, Incoming, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::workers::Workers;
use super::Service;

/// A2A's task-not-found and not-cancelable error codes.
const TASK_NOT_FOUND: i64 = -32001;
const TASK_NOT_CANCELABLE: i64 = -32002;

/// Tasks kept for `GetTask` (the most recent ones), with the flags that cancel running ones.
#[derive(Default)]
pub struct Tasks {
    tasks: Mutex<HashMap<String, (Value, String)>>,
    running: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// Each caller's task ids, oldest first.
    order: Mutex<HashMap<String, std::collections::VecDeque<String>>>,
}

/// Ends a task that was dropped mid-call (its client disconnected): removes its cancel flag
/// and, when it is still "working", records it as canceled.
struct TaskGuard {
    tasks: Arc<Tasks>,
    id: String,
    owner: String,
    context: String,
    dialect: Dialect,
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        let was_running = self.tasks.running.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.id).is_some();
        if was_running {
            let t = task(self.dialect, &self.id, &self.context, "canceled", Vec::new(), None);
            self.tasks.put(&self.id, t, &self.owner);
        }
    }
}

/// Tasks remembered for `GetTask`, per caller (one caller cannot evict another's).
const KEEP: usize = 1000;

impl Tasks {
    fn put(&self, id: &str, task: Value, owner: &str) {
        let mut t = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        let mut o = self.order.lock().unwrap_or_else(|p| p.into_inner());
        if t.insert(id.to_string(), (task, owner.to_string())).is_none() {
            let mine = o.entry(owner.to_string()).or_default();
            mine.push_back(id.to_string());
            if mine.len() > KEEP {
                if let Some(old) = mine.pop_front() {
                    t.remove(&old);
                }
            }
        }
    }

    fn get(&self, id: &str, owner: &str) -> Option<Value> {
        let t = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        t.get(id).filter(|(_, o)| o == owner).map(|(v, _)| v.clone())
    }
}

/// The agent card: one skill per capability, JSON in and out, the JSON-RPC interface, and the
/// bearer scheme when the server checks tokens.
pub fn agent_card(svc: &Service, base: &str, bearer: bool) -> Value {
    let skills: Vec<Value> = svc
        .listing()
        .tools
        .iter()
        .map(|c| {
            json!({
                "id": c.name,
                "name": c.title,
                "description": c.description,
                "tags": ["building-analytics", "read-only", c.cost],
                "examples": [json!({"capability": c.name, "arguments": {}}).to_string()],
                "inputModes": ["application/json"],
                "outputModes": ["application/json"],
                "camber/revision": c.revision,
            })
        })
        .collect();
    let mut card = json!({
        "name": "camber",
        "description": "Read-only building-analytics capabilities over a building's own trend data: what is wrong with the HVAC, how sure, what it costs. Send a data part {\"capability\": NAME, \"arguments\": {...}}.",
        "version": env!("CARGO_PKG_VERSION"),
        "supportedInterfaces": [{"url": format!("{base}/a2a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": skills,
    });
    if bearer {
        card["securitySchemes"] = json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}});
        card["securityRequirements"] = json!([{"schemes": {"bearer": {"list": []}}}]);
    }
    card
}

/// Whether the client speaks the 0.3 shapes (kinds, lower-case states).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    V1,
    V03,
}

fn state_name(d: Dialect, s: &str) -> Value {
    match d {
        Dialect::V1 => json!(format!("TASK_STATE_{}", s.to_ascii_uppercase())),
        Dialect::V03 => json!(s),
    }
}

fn data_part(d: Dialect, v: Value) -> Value {
    match d {
        Dialect::V1 => json!({"data": v, "mediaType": "application/json"}),
        Dialect::V03 => json!({"kind": "data", "data": v}),
    }
}

fn text_part(d: Dialect, t: &str) -> Value {
    match d {
        Dialect::V1 => json!({"text": t}),
        Dialect::V03 => json!({"kind": "text", "text": t}),
    }
}

/// An image the host drew (a finding's evidence chart) as a file part with its bytes inline,
/// its alt text in the part's metadata.
fn image_part(d: Dialect, image: &camber_common::Image, name: &str) -> Value {
    file_part(d, &image.data, &image.mime_type, name, json!({"alt": image.alt}))
}

/// A file part: base64 bytes, their type, a name and metadata.
fn file_part(d: Dialect, data: &str, mime_type: &str, name: &str, meta: Value) -> Value {
    match d {
        Dialect::V1 => json!({"raw": data, "mediaType": mime_type, "filename": name, "metadata": meta}),
        Dialect::V03 => json!({
            "kind": "file",
            "file": {"bytes": data, "mimeType": mime_type, "name": name},
            "metadata": meta,
        }),
    }
}

/// A content block a capability attached, as a file part: an image or a sound (its alt text
/// in the metadata), or an embedded resource named by its URI (its text as UTF-8 bytes).
fn attached_part(d: Dialect, b: &camber_common::ContentBlock, k: usize) -> Value {
    use base64::Engine;
    use camber_common::ContentBlock;
    match b {
        ContentBlock::Image { mime_type, data, alt } | ContentBlock::Audio { mime_type, data, alt } => {
            let kind = if matches!(b, ContentBlock::Image { .. }) { "image" } else { "audio" };
            let ext = mime_type.rsplit('/').next().unwrap_or("bin");
            file_part(d, data, mime_type, &format!("attached-{kind}-{k}.{ext}"), json!({"alt": alt}))
        }
        ContentBlock::Resource { uri, mime_type, text, blob } => {
            let bytes = match (text, blob) {
                (Some(t), _) => base64::engine::general_purpose::STANDARD.encode(t.as_bytes()),
                (None, Some(b)) => b.clone(),
                (None, None) => String::new(),
            };
            file_part(d, &bytes, mime_type, uri, json!({"uri": uri}))
        }
    }
}

/// The `{"capability", "arguments"}` of a message's data part.
fn request_of(message: &Value) -> Result<(String, Value), String> {
    let parts = message.get("parts").and_then(Value::as_array).ok_or("the message has no parts")?;
    for p in parts {
        // 1.0: {"data": {...}}; 0.3: {"kind": "data", "data": {...}}
        if let Some(d) = p.get("data").filter(|d| d.is_object()) {
            let name = d.get("capability").and_then(Value::as_str).ok_or("the data part names no capability")?;
            let args = d.get("arguments").cloned().unwrap_or(json!({}));
            return Ok((name.to_string(), args));
        }
    }
    Err("send a data part {\"capability\": NAME, \"arguments\": {...}}".into())
}

fn task(
    d: Dialect,
    id: &str,
    context: &str,
    state: &str,
    artifacts: Vec<Value>,
    status_message: Option<Value>,
) -> Value {
    let mut status = json!({"state": state_name(d, state), "timestamp": camber_common::ids::utc_now()});
    if let Some(m) = status_message {
        status["message"] = m;
    }
    let mut t = json!({"id": id, "contextId": context, "status": status, "artifacts": artifacts});
    if d == Dialect::V03 {
        t["kind"] = json!("task");
    }
    t
}

fn agent_message(d: Dialect, parts: Vec<Value>, task_id: &str, context: &str) -> Value {
    let mut m = json!({
        // an id, not a secret: the task's own id names the reply if the generator fails
        "messageId": camber_common::ids::random_hex().unwrap_or_else(|_| format!("{task_id}-reply")),
        "role": if d == Dialect::V1 { json!("ROLE_AGENT") } else { json!("agent") },
        "parts": parts,
        "taskId": task_id,
        "contextId": context,
    });
    if d == Dialect::V03 {
        m["kind"] = json!("message");
    }
    m
}

fn outcome_task(
    d: Dialect,
    id: &str,
    context: &str,
    outcome: Result<camber_common::CapabilityResult, CapError>,
) -> Value {
    match outcome {
        Ok(r) => {
            let mut summary: String = r.banners.iter().map(|b| format!("NOTICE: {b}\n")).collect();
            summary.push_str(&r.text);
            let mut parts = vec![
                data_part(d, json!({"data": r.data, "facts": r.facts, "banners": r.banners, "truncated": r.truncated})),
                text_part(d, &summary),
            ];
            for (k, image) in r.images.iter().enumerate() {
                parts.push(image_part(d, image, &format!("evidence-chart-{}.png", k + 1)));
            }
            for (k, b) in r.attached.iter().enumerate() {
                parts.push(attached_part(d, b, k + 1));
            }
            let artifact = json!({"artifactId": format!("{id}-result"), "name": "result", "parts": parts});
            task(d, id, context, "completed", vec![artifact], None)
        }
        Err(e) => {
            let error =
                json!({"code": e.code.as_str(), "message": e.message, "data": e.data.clone().unwrap_or(Value::Null)});
            let msg = agent_message(
                d,
                vec![text_part(d, &format!("{}: {}", e.code, e.message)), data_part(d, json!({"error": error}))],
                id,
                context,
            );
            task(
                d,
                id,
                context,
                if e.code == ErrorCode::Timeout && e.data.as_ref().is_some_and(|x| x["cancelled"] == true) {
                    "canceled"
                } else {
                    "failed"
                },
                Vec::new(),
                Some(msg),
            )
        }
    }
}

/// The dialect a method name belongs to: the 1.0 names, or the 0.3 ones from a client that
/// names no version or a 0.x one. `None`: not a method of either.
fn dialect_of(method: &str, version: Option<&str>) -> Option<Dialect> {
    let old = version.is_none_or(|v| v.trim().starts_with("0."));
    match method {
        "SendMessage" | "SendStreamingMessage" | "GetTask" | "CancelTask" => Some(Dialect::V1),
        "message/send" | "message/stream" | "tasks/get" | "tasks/cancel" if old => Some(Dialect::V03),
        _ => None,
    }
}

/// Whether a method streams its answer.
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "message/stream")
}

/// One event of a streamed message, as its dialect wraps it: 1.0 wraps each in one key
/// (`task`, `statusUpdate`, `artifactUpdate`), 0.3 marks each with its `kind`.
fn stream_event(d: Dialect, id: &Value, kind: &str, mut body: Value) -> Value {
    let result = match d {
        Dialect::V1 => json!({ kind: body }),
        Dialect::V03 => {
            let k = match kind {
                "statusUpdate" => "status-update",
                "artifactUpdate" => "artifact-update",
                other => other,
            };
            body["kind"] = json!(k);
            body
        }
    };
    jsonrpc::result(id.clone(), result)
}

/// A status update of task `tid`: its state, an optional message, and (0.3) whether it is the
/// last event.
fn status_update(d: Dialect, tid: &str, context: &str, state: &str, message: Option<Value>, last: bool) -> Value {
    let mut status = json!({"state": state_name(d, state), "timestamp": camber_common::ids::utc_now()});
    if let Some(m) = message {
        status["message"] = m;
    }
    let mut u = json!({"taskId": tid, "contextId": context, "status": status});
    if d == Dialect::V03 {
        u["final"] = json!(last);
    }
    u
}

/// Start a `SendStreamingMessage` (or `message/stream`): its events go to the returned
/// receiver as the call runs, and the sender side closes after the last one. A request that
/// cannot start (no capability named) is the JSON-RPC error instead. Dropping the receiver
/// cancels the call (the client went away); the task then ends canceled.
pub fn stream(
    workers: Arc<Workers>,
    tasks: &Arc<Tasks>,
    msg: Incoming,
    caller: Option<Caller>,
    version: Option<String>,
) -> Result<(tokio::sync::mpsc::UnboundedReceiver<Value>, super::workers::CancelOnDrop), Value> {
    let Incoming::Request { id, method, params } = msg else {
        return Err(jsonrpc::error(Value::Null, jsonrpc::INVALID_REQUEST, "a stream needs a request"));
    };
    let Some(d) = dialect_of(&method, version.as_deref()) else {
        return Err(jsonrpc::error(id, METHOD_NOT_FOUND, "Method not found"));
    };
    let message = params.get("message").cloned().unwrap_or(Value::Null);
    let (call, begun) =
        begin(tasks, d, &message, caller.as_ref()).map_err(|(code, why)| jsonrpc::error(id.clone(), code, &why))?;
    let (tid, context) = (begun.id.clone(), begun.context.clone());
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let _ = tx.send(stream_event(d, &id, "task", task(d, &tid, &context, "working", Vec::new(), None)));
    // each whole percent the guest's reports reach, as a working status with its message
    let percent = Arc::new(camber_common::progress::Percent::new());
    let sink: camber_common::progress::ProgressSink = {
        let (tx, id, tid, context) = (tx.clone(), id.clone(), tid.clone(), context.clone());
        Arc::new(move |p: &camber_common::progress::Progress| {
            if let Some(pc) = percent.offer(p) {
                let text = format!("{pc}%: {}", p.message);
                let m = agent_message(d, vec![text_part(d, &text)], &tid, &context);
                let _ = tx.send(stream_event(
                    d,
                    &id,
                    "statusUpdate",
                    status_update(d, &tid, &context, "working", Some(m), false),
                ));
            }
        })
    };
    let guard = super::workers::CancelOnDrop::new(begun.flag.clone());
    tokio::spawn(async move {
        let t = run_task(&workers, &begun, call, Some(sink)).await;
        for a in t["artifacts"].as_array().into_iter().flatten() {
            let mut update = json!({"taskId": tid, "contextId": context, "artifact": a, "lastChunk": true});
            if d == Dialect::V03 {
                update["append"] = json!(false);
            }
            let _ = tx.send(stream_event(d, &id, "artifactUpdate", update));
        }
        let mut fin = json!({"taskId": tid, "contextId": context, "status": t["status"].clone()});
        if d == Dialect::V03 {
            fin["final"] = json!(true);
        }
        let _ = tx.send(stream_event(d, &id, "statusUpdate", fin));
    });
    Ok((rx, guard))
}

/// What a message asks to run, and for whom.
struct TaskCall {
    name: String,
    args: Value,
    label: String,
    allowed: Option<std::collections::BTreeSet<String>>,
}

/// A task begun for a message: recorded as working, its cancel flag registered, and a guard
/// that ends it canceled if it is dropped before it finishes (the client went away).
struct Begun {
    id: String,
    context: String,
    owner: String,
    dialect: Dialect,
    flag: Arc<AtomicBool>,
    tasks: Arc<Tasks>,
    _guard: TaskGuard,
}

/// Begin the task of a message's call, or the JSON-RPC error (code and message) why not.
fn begin(
    tasks: &Arc<Tasks>,
    d: Dialect,
    message: &Value,
    caller: Option<&Caller>,
) -> Result<(TaskCall, Begun), (i64, String)> {
    let (name, args) = request_of(message).map_err(|why| (INVALID_PARAMS, format!("Invalid params: {why}")))?;
    let id = camber_common::ids::random_hex().map_err(|why| (jsonrpc::INTERNAL_ERROR, why))?;
    let context =
        message.get("contextId").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("ctx-{id}"));
    let owner = caller.map(|c| c.id.clone()).unwrap_or_else(|| "anonymous".into());
    let call = TaskCall {
        name,
        args,
        label: format!("a2a:{}", caller.map(|c| c.label.as_str()).unwrap_or("anonymous")),
        allowed: caller.map(|c| c.allowed.clone()),
    };
    let flag = Arc::new(AtomicBool::new(false));
    tasks.running.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), flag.clone());
    tasks.put(&id, task(d, &id, &context, "working", Vec::new(), None), &owner);
    let guard =
        TaskGuard { tasks: tasks.clone(), id: id.clone(), owner: owner.clone(), context: context.clone(), dialect: d };
    Ok((call, Begun { id, context, owner, dialect: d, flag, tasks: tasks.clone(), _guard: guard }))
}

/// Run a begun task's call on a worker (its progress to `progress`); the finished task, as
/// recorded for `GetTask`.
async fn run_task(
    workers: &Workers,
    b: &Begun,
    call: TaskCall,
    progress: Option<camber_common::progress::ProgressSink>,
) -> Value {
    let TaskCall { name, args, label, allowed } = call;
    let outcome = workers
        .run(b.flag.clone(), move |svc, cancel| {
            svc.call_logged(&name, &args, &label, allowed.as_ref(), Some(cancel), progress).0
        })
        .await
        .unwrap_or_else(|_| {
            Err(CapError::internal("the call failed inside the server; the error is in the server's log"))
        });
    b.tasks.running.lock().unwrap_or_else(|p| p.into_inner()).remove(&b.id);
    let t = outcome_task(b.dialect, &b.id, &b.context, outcome);
    b.tasks.put(&b.id, t.clone(), &b.owner);
    t
}

/// Handle one A2A JSON-RPC message; `None` for a notification.
pub async fn handle(
    svc: &Arc<Service>,
    workers: &Workers,
    tasks: &Arc<Tasks>,
    msg: Incoming,
    caller: Option<Caller>,
    version: Option<String>,
) -> Option<Value> {
    let Incoming::Request { id, method, params } = msg else { return None };
    let owner = caller.as_ref().map(|c| c.id.clone()).unwrap_or_else(|| "anonymous".into());
    let dialect = match dialect_of(&method, version.as_deref()) {
        Some(d) => d,
        None => {
            let method = svc.redactor().echo(&method);
            return Some(jsonrpc::error(id, METHOD_NOT_FOUND, &format!("Method not found: {method}")));
        }
    };
    match method.as_str() {
        "SendMessage" | "message/send" => {
            let message = params.get("message").cloned().unwrap_or(Value::Null);
            let (call, begun) = match begin(tasks, dialect, &message, caller.as_ref()) {
                Ok(x) => x,
                Err(code_why) => return Some(jsonrpc::error(id, code_why.0, &code_why.1)),
            };
            let t = run_task(workers, &begun, call, None).await;
            let result = if dialect == Dialect::V1 { json!({"task": t}) } else { t };
            Some(jsonrpc::result(id, result))
        }
        "GetTask" | "tasks/get" => {
            let tid = params.get("id").and_then(Value::as_str).unwrap_or_default();
            match tasks.get(tid, &owner) {
                Some(t) => Some(jsonrpc::result(id, t)),
                None => Some(jsonrpc::error(id, TASK_NOT_FOUND, "Task not found")),
            }
        }
        _ => {
            let tid = params.get("id").and_then(Value::as_str).unwrap_or_default().to_string();
            let Some(t) = tasks.get(&tid, &owner) else {
                return Some(jsonrpc::error(id, TASK_NOT_FOUND, "Task not found"));
            };
            match tasks.running.lock().unwrap_or_else(|p| p.into_inner()).get(&tid) {
                Some(flag) => {
                    flag.store(true, Ordering::SeqCst);
                    let ctx = t["contextId"].as_str().unwrap_or_default().to_string();
                    let c = task(dialect, &tid, &ctx, "canceled", Vec::new(), None);
                    tasks.put(&tid, c.clone(), &owner);
                    Some(jsonrpc::result(id, c))
                }
                None => Some(jsonrpc::error(id, TASK_NOT_CANCELABLE, "Task cannot be canceled: it has finished")),
            }
        }
    }
}
