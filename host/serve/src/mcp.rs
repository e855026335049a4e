//! The Model Context Protocol over the registry, independent of the transport: version
//! negotiation, `initialize`, `ping`, `tools/*`, `prompts/*`, cancellation and progress, and
//! the stateless revision 2026-07-28 (`server/discover`, a `_meta` envelope on every request,
//! no session). A `tools/call` comes back as a [`CallJob`] for the transport to run on a
//! worker thread.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde_json::{json, Value};

use camber_common::progress::{Percent, Progress, ProgressSink};
use camber_common::{CapError, ErrorCode};

use super::jsonrpc::{self, Incoming, Message, INVALID_PARAMS, METHOD_NOT_FOUND};
use super::Service;

/// What a protocol revision changes. Every difference between revisions lives here, so a new
/// one (2026-07-28) is one more entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Revision {
    pub version: &'static str,
    /// Tools carry `title` and `outputSchema`, results `structuredContent`.
    pub structured: bool,
    /// No `initialize` and no session: every request carries its revision and the client's
    /// capabilities in `_meta`; results carry `resultType` and the server's identity, list
    /// results their cache hints; `ping` and `logging/setLevel` are gone (a request asks for
    /// log messages in its own `_meta`).
    pub stateless: bool,
    /// A `tools/call` may run as a task (`tasks/*`).
    pub tasks: bool,
}

/// The revisions this server speaks, newest first.
pub const REVISIONS: &[Revision] = &[
    Revision { version: "2026-07-28", structured: true, stateless: true, tasks: false },
    Revision { version: "2025-11-25", structured: true, stateless: false, tasks: true },
    Revision { version: "2025-06-18", structured: true, stateless: false, tasks: false },
];

/// The revisions an `initialize` can agree on.
fn handshake() -> impl Iterator<Item = Revision> {
    REVISIONS.iter().copied().filter(|r| !r.stateless)
}

/// The revision to answer a client's `initialize` asking for `requested`: the same one when
/// spoken here with a handshake, else the newest that has one (the client then decides
/// whether it can go on).
pub fn negotiate(requested: Option<&str>) -> Revision {
    let newest = handshake().next().unwrap_or(REVISIONS[0]);
    handshake().find(|r| Some(r.version) == requested).unwrap_or(newest)
}

/// The stateless revision's request `_meta` keys and the result `_meta` key of the server's
/// identity.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER: &str = "io.modelcontextprotocol/serverInfo";

/// The stateless revision's error for a protocol version this server does not speak.
pub const UNSUPPORTED_VERSION: i64 = -32022;
/// The stateless revision's error for HTTP routing headers that differ from the body.
pub const HEADER_MISMATCH: i64 = -32020;

/// How long a client may keep a list result (`ttlMs`): the tools and prompts are the same for
/// every caller, but a reload may change them while the server runs (a stateless client has
/// no session to be told on), so a list is kept for seconds, not minutes; the list's
/// [`LIST_REVISION`] in `_meta` says whether two lists are the same.
pub const LIST_TTL_MS: u64 = 10 * 1000;

/// The `_meta` key of a list result's digest (see [`crate::Listing::revision`]): a client
/// that kept a list knows it is current when the digest is the same.
pub const LIST_REVISION: &str = "camber/listRevision";

/// Whether a request is of the stateless revision: its `_meta` names a protocol version (the
/// one signal the revision defines; an `initialize` never is).
pub fn is_stateless(method: &str, params: &Value) -> bool {
    method != "initialize" && params.get("_meta").and_then(|m| m.get(META_VERSION)).is_some()
}

/// A stateless request's envelope: the revision it names, the client's name, and the log
/// level it asks for.
#[derive(Clone, Debug)]
pub struct Envelope {
    /// The protocol version the request names.
    pub version: String,
    /// The client's name (`clientInfo.name`), one line, at most 64 characters.
    pub client: Option<String>,
    /// The least severe log level it asks messages for (an index into [`LOG_LEVELS`]).
    pub log_level: Option<usize>,
}

/// A JSON-RPC error before it has an id: code, message, data.
pub type Refusal = (i64, String, Option<Value>);

/// Read a stateless request's `_meta` envelope: an object carrying the protocol version (a
/// string) and the client's capabilities (an object); a client name and a log level when
/// given. Anything else is `-32602`, naming what is missing.
pub fn envelope(params: &Value) -> Result<Envelope, Refusal> {
    let bad = |m: String| (INVALID_PARAMS, m, None);
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(bad(format!(
            "Invalid params: params._meta must be an object carrying {META_VERSION} and {META_CAPABILITIES}"
        )));
    };
    let missing: Vec<&str> = [META_VERSION, META_CAPABILITIES].into_iter().filter(|k| !meta.contains_key(*k)).collect();
    if !missing.is_empty() {
        return Err(bad(format!("Invalid params: params._meta is missing {}", missing.join(", "))));
    }
    let Some(version) = meta[META_VERSION].as_str() else {
        return Err(bad(format!("Invalid params: {META_VERSION} must be a string")));
    };
    if !meta[META_CAPABILITIES].is_object() {
        return Err(bad(format!("Invalid params: {META_CAPABILITIES} must be an object")));
    }
    let log_level = match meta.get(META_LOG_LEVEL) {
        None | Some(Value::Null) => None,
        Some(l) => match l.as_str().and_then(|l| LOG_LEVELS.iter().position(|x| *x == l)) {
            Some(i) => Some(i),
            None => {
                return Err(bad(format!("Invalid params: {META_LOG_LEVEL} must be one of {}", LOG_LEVELS.join(", "))))
            }
        },
    };
    let client = meta
        .get(META_CLIENT)
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .map(|n| camber_common::text::one_line(n).chars().take(64).collect::<String>())
        .filter(|n| !n.trim().is_empty());
    Ok(Envelope { version: version.to_string(), client, log_level })
}

/// The stateless revision an envelope names, or `-32022` with the versions spoken here and
/// the one asked for.
pub fn stateless_revision(env: &Envelope, redactor: &camber_common::redact::Redactor) -> Result<Revision, Refusal> {
    if let Some(r) = REVISIONS.iter().copied().find(|r| r.stateless && r.version == env.version) {
        return Ok(r);
    }
    let shown = redactor.redact_sent(&camber_common::text::name(&env.version));
    // what was asked, as sent, unless it is not a version at all (a path, a long text)
    let requested: String =
        redactor.redact_sent(&camber_common::text::one_line(&env.version)).chars().take(64).collect();
    Err((
        UNSUPPORTED_VERSION,
        format!("Unsupported protocol version {shown}: this server speaks {}", versions().join(", ")),
        Some(json!({"supported": versions(), "requested": requested})),
    ))
}

/// Every revision spoken here, newest first.
pub fn versions() -> Vec<&'static str> {
    REVISIONS.iter().map(|r| r.version).collect()
}

/// Who this server is, as `initialize` and the stateless results name it.
fn server_info() -> Value {
    json!({"name": "camber", "title": "camber-rs", "version": env!("CARGO_PKG_VERSION")})
}

/// What this server offers, as `initialize` and `server/discover` say it.
fn capabilities(subscribe: bool) -> Value {
    json!({
        "tools": {"listChanged": true}, "prompts": {"listChanged": true},
        "resources": {"subscribe": subscribe, "listChanged": false}, "logging": {}, "completions": {},
    })
}

/// Complete a result for the stateless revision: `resultType`, the server's identity in
/// `_meta`, and on a list result (`cacheable`) its cache hints. Nothing for the others.
pub fn stamp(rev: Revision, result: &mut Value, cacheable: bool) {
    if !rev.stateless || !result.is_object() {
        return;
    }
    result["resultType"] = json!("complete");
    if !result.get("_meta").is_some_and(Value::is_object) {
        result["_meta"] = json!({});
    }
    result["_meta"][META_SERVER] = server_info();
    if cacheable {
        result["ttlMs"] = json!(LIST_TTL_MS);
        result["cacheScope"] = json!("public");
    }
}

/// The notifications that tell a session's client what a reload changed.
pub fn list_changed(change: &crate::ListChange) -> Vec<Value> {
    let mut out = Vec::new();
    if change.tools {
        out.push(jsonrpc::notification("notifications/tools/list_changed", json!({})));
    }
    if change.prompts {
        out.push(jsonrpc::notification("notifications/prompts/list_changed", json!({})));
    }
    out
}

/// Older revisions a client may name in its `MCP-Protocol-Version` header within a session
/// negotiated on a newer one (the reference TypeScript server accepts them: the header is the
/// client's, the session's revision governs).
pub const OLDER: &[&str] = &["2025-03-26", "2024-11-05"];

/// Whether a `MCP-Protocol-Version` header names a revision of the handshake (one spoken
/// here, or an older one within a session); any other value is the stateless revision's to
/// judge.
pub fn handshake_version(version: &str) -> bool {
    handshake().any(|r| r.version == version) || OLDER.contains(&version)
}

/// Tools per `tools/list` page.
pub const PAGE: usize = 50;

/// What the server tells a model about itself.
pub const INSTRUCTIONS: &str = "camber reads one building-trend store, read-only: only the facilities this server was started with, and never research-only (non-commercial or no-derivatives) data. Nothing a tool does changes the store. Call facilities first. Summaries cite fact ids such as [F1@points-1a2b3c]: cite them when you repeat a figure, state no number no cited fact carries, and call check_citations on your draft before you answer. A line that starts with NOTICE is a licence, trust or truncation notice: always show it to the user.";

/// One connection's protocol state.
#[derive(Clone, Debug)]
pub struct Session {
    pub revision: Revision,
    pub initialized: bool,
    /// The caller's label (for logs and `ctx.caller`).
    pub caller: String,
    /// The caller's own allowlist (intersected with the server's), when it has one.
    pub allowed: Option<BTreeSet<String>>,
    /// The least severe log level the client asked for with `logging/setLevel` (its index in
    /// [`LOG_LEVELS`]); `None`: no log messages.
    pub log_level: Option<usize>,
    /// The resources this connection watches, where its transport can tell it of a change
    /// (stdio, and an HTTP session's `GET` stream); `None` where it cannot (a stateless
    /// request, which has no stream to be told on).
    pub subscriptions: Option<Subscriptions>,
}

/// Watched resources: each URI with the facility it reads and that facility's store
/// generation when last seen (`None` for a catalog entry, which never changes while serving).
pub type Subscriptions = Arc<std::sync::Mutex<BTreeMap<String, (Option<String>, Option<String>)>>>;

impl Session {
    pub fn new(caller: &str, allowed: Option<BTreeSet<String>>) -> Session {
        Session {
            revision: negotiate(None),
            initialized: false,
            caller: caller.to_string(),
            allowed,
            log_level: None,
            subscriptions: None,
        }
    }
}

/// How often a connection's watched resources are looked at (`CAMBER_RESOURCE_POLL_MS`, one
/// second by default).
pub fn resource_poll_interval() -> std::time::Duration {
    let ms = std::env::var("CAMBER_RESOURCE_POLL_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    std::time::Duration::from_millis(ms)
}

/// The `notifications/resources/updated` of each watched resource whose facility the store has
/// rewritten since it was last seen (an ingest, a removal), the new generation remembered.
pub fn changed_resources(svc: &Service, subs: &Subscriptions) -> Vec<Value> {
    let watched: Vec<(String, Option<String>, Option<String>)> = subs
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .iter()
        .map(|(uri, (fid, seen))| (uri.clone(), fid.clone(), seen.clone()))
        .collect();
    let mut out = Vec::new();
    for (uri, fid, seen) in watched {
        let Some(fid) = fid else { continue };
        let now = svc.facility_version(&fid);
        if now != seen {
            if let Some(e) = subs.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&uri) {
                e.1 = now;
            }
            out.push(jsonrpc::notification("notifications/resources/updated", json!({"uri": uri})));
        }
    }
    out
}

/// MCP's log levels (RFC 5424's), least severe first.
pub const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// A `notifications/message` of `level` carrying `line` when the session asked for that level
/// or a less severe one.
fn log_message(session: &Session, level: &str, line: &str) -> Option<Value> {
    let at = LOG_LEVELS.iter().position(|l| *l == level)?;
    (session.log_level? <= at).then(|| {
        jsonrpc::notification("notifications/message", json!({"level": level, "logger": "camber", "data": line}))
    })
}

/// A `tools/call` to run off the transport's thread, with the protocol state it was asked in
/// (the connection's session, or a stateless request's own).
#[derive(Clone, Debug)]
pub struct CallJob {
    pub id: Value,
    pub name: String,
    pub args: Value,
    pub progress_token: Option<Value>,
    pub session: Session,
    /// Run as a task (the client's `task` parameter), with the time to live it asked for.
    pub task: Option<TaskAsk>,
}

/// A client's `task` parameter on a `tools/call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskAsk {
    /// The time to live the client asked for, in ms (the server bounds it).
    pub ttl_ms: Option<u64>,
}

/// A `prompts/get` to run off the transport's thread.
#[derive(Clone, Debug)]
pub struct PromptJob {
    pub id: Value,
    pub name: String,
    pub args: BTreeMap<String, String>,
    pub revision: Revision,
}

/// A `completion/complete` of one prompt or resource-template argument, with the protocol
/// state it was asked in.
#[derive(Clone, Debug)]
pub struct CompleteJob {
    pub id: Value,
    /// The argument's name and what the client has typed of it.
    pub argument: String,
    pub value: String,
    pub session: Session,
    /// The resource template completed (`None`: a prompt's argument).
    pub template: Option<String>,
    /// The arguments the client has already filled in (`context.arguments`).
    pub context: Value,
}

/// A `resources/list`, `resources/read` or `resources/subscribe`, run off the transport's
/// thread (each calls capabilities).
#[derive(Clone, Debug)]
pub struct ResourceJob {
    pub id: Value,
    pub method: String,
    pub params: Value,
    pub session: Session,
}

/// Answer a resource job: a page of the resources this caller may see, one read through the
/// capability it stands for, or a subscription to one.
pub fn run_resource(svc: &Service, job: &ResourceJob) -> Value {
    let fail = |code: i64, m: &str| jsonrpc::error(job.id.clone(), code, m);
    let mut r = match job.method.as_str() {
        "resources/subscribe" => return subscribe(svc, job),
        "resources/list" => {
            let offset = match job.params.get("cursor") {
                None | Some(Value::Null) => Some(0),
                Some(Value::String(c)) => c.strip_prefix("offset:").and_then(|n| n.parse::<usize>().ok()),
                Some(_) => None,
            };
            let Some(offset) = offset else {
                return fail(INVALID_PARAMS, "Invalid params: unknown cursor");
            };
            match crate::resources::list(svc, &job.session, offset) {
                Ok((page, next)) => {
                    let mut r = json!({"resources": page});
                    if let Some(n) = next {
                        r["nextCursor"] = json!(format!("offset:{n}"));
                    }
                    r
                }
                Err(why) => return fail(INVALID_PARAMS, &format!("Invalid params: {why}")),
            }
        }
        _ => {
            let Some(uri) = job.params.get("uri").and_then(Value::as_str) else {
                return fail(INVALID_PARAMS, "Invalid params: resources/read needs a uri");
            };
            match crate::resources::read(svc, &job.session, uri) {
                Ok(r) => r,
                Err((code, m)) => return fail(code, &m),
            }
        }
    };
    stamp(job.session.revision, &mut r, false);
    jsonrpc::result(job.id.clone(), r)
}

/// A `resources/subscribe` of the session (its transport checked that it can subscribe and
/// named a URI): the URI is watched when it names a facility the caller may see or a
/// component's resource; anything else is not found, and its changes are never told.
fn subscribe(svc: &Service, job: &ResourceJob) -> Value {
    let fail = |m: &str| jsonrpc::error(job.id.clone(), crate::resources::RESOURCE_NOT_FOUND, m);
    let (Some(subs), Some(uri)) = (&job.session.subscriptions, job.params.get("uri").and_then(Value::as_str)) else {
        return fail("Resource not found: nothing to subscribe to");
    };
    let fid = match crate::resources::parse(uri) {
        Ok(t) => t.facility().map(str::to_string),
        // a component's resource: watched by its URI alone (no facility of the store's)
        Err(_) if crate::resources::component_serves(svc, uri) => None,
        Err(why) => return fail(&format!("Resource not found: {why}")),
    };
    if fid.as_deref().is_some_and(|f| !crate::resources::visible(svc, &job.session, f)) {
        return fail("Resource not found: no facility of that id is visible to this caller");
    }
    let seen = fid.as_deref().and_then(|f| svc.facility_version(f));
    subs.lock().unwrap_or_else(|p| p.into_inner()).insert(uri.to_string(), (fid, seen));
    jsonrpc::result(job.id.clone(), json!({}))
}

/// The most completion values one answer lists (MCP's limit).
pub const COMPLETION_MAX: usize = 100;

/// Complete a prompt argument: a `facility_id` from the facilities this caller may see (the
/// `facilities` capability, under the caller's own policy), matched by prefix, case aside;
/// any other argument has no suggestions. A resource template's argument completes as
/// [`crate::resources::complete`] says.
pub fn run_complete(svc: &Service, job: &CompleteJob) -> Value {
    let mut values: Vec<String> = match (&job.template, job.argument.as_str()) {
        (Some(_), argument) => crate::resources::complete(svc, &job.session, argument, &job.value, &job.context),
        (None, "facility_id") => svc
            .call("facilities", &json!({}), &job.session.caller, job.session.allowed.as_ref(), None)
            .map(|r| {
                r.data["facilities"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f["facility_id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
        (None, _) => Vec::new(),
    };
    let typed = job.value.to_lowercase();
    values.retain(|v| v.to_lowercase().starts_with(&typed));
    let total = values.len();
    values.truncate(COMPLETION_MAX);
    let mut r = json!({"completion": {"values": values, "total": total, "hasMore": total > COMPLETION_MAX}});
    stamp(job.session.revision, &mut r, false);
    jsonrpc::result(job.id.clone(), r)
}

/// A content block a capability attached, as MCP content: an image or a sound (after its alt
/// text, when it has one, for a client that shows neither), or an embedded resource.
pub fn content_blocks(b: camber_common::ContentBlock) -> Vec<Value> {
    use camber_common::ContentBlock;
    let media = |kind: &str, mime_type: String, data: String, alt: String| {
        let mut out = Vec::new();
        if !alt.is_empty() {
            out.push(json!({"type": "text", "text": alt}));
        }
        out.push(json!({"type": kind, "data": data, "mimeType": mime_type}));
        out
    };
    match b {
        ContentBlock::Image { mime_type, data, alt } => media("image", mime_type, data, alt),
        ContentBlock::Audio { mime_type, data, alt } => media("audio", mime_type, data, alt),
        ContentBlock::Resource { uri, mime_type, text, blob } => {
            let mut resource = json!({"uri": uri, "mimeType": mime_type});
            match (text, blob) {
                (Some(t), _) => resource["text"] = Value::String(t),
                (None, Some(b)) => resource["blob"] = Value::String(b),
                (None, None) => {}
            }
            vec![json!({"type": "resource", "resource": resource})]
        }
    }
}

/// Render a prompt job into its response.
pub fn run_prompt(svc: &Service, job: &PromptJob) -> Value {
    let description =
        svc.listing().prompts.iter().find(|p| p.name == job.name).map(|p| p.description.clone()).unwrap_or_default();
    match svc.get_prompt(&job.name, &job.args) {
        Ok(rendered) => {
            // the text, then each attached block as a message of its own (a prompt message holds
            // one content block)
            let mut messages = vec![json!({"role": "user", "content": {"type": "text", "text": rendered.text}})];
            for b in rendered.attached {
                messages.extend(content_blocks(b).into_iter().map(|c| json!({"role": "user", "content": c})));
            }
            let mut r = json!({"description": description, "messages": messages});
            stamp(job.revision, &mut r, false);
            jsonrpc::result(job.id.clone(), r)
        }
        Err(e) => {
            let sent = camber_common::redact::Sent::new(job.args.values().map(String::as_str));
            jsonrpc::error(
                job.id.clone(),
                INVALID_PARAMS,
                &format!("Invalid params: {}", svc.redactor().redact_echoes(&e.message, &sent)),
            )
        }
    }
}

/// The JSON-RPC answer to a request whose handling panicked in the server: one line, no
/// detail (the panic is in the log).
pub fn internal_error(id: Value) -> Value {
    jsonrpc::error(
        id,
        jsonrpc::INTERNAL_ERROR,
        "Internal error: the request failed inside the server; the error is in the server's log",
    )
}

/// [`handle`], with a panic answered as [`internal_error`] (a request) or ignored (a
/// notification), so no message can stop the transport's reader.
pub fn handle_contained(svc: &Service, msg: Incoming, session: &mut Session) -> Action {
    let id = match &msg {
        Incoming::Request { id, .. } => Some(id.clone()),
        _ => None,
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(svc, msg, session))) {
        Ok(a) => a,
        Err(_) => {
            super::log::line("camber: a request panicked in the server; answered internal");
            id.map_or(Action::Nothing, |id| Action::Reply(internal_error(id)))
        }
    }
}

/// What to do with one incoming message.
#[derive(Debug)]
pub enum Action {
    Reply(Value),
    Nothing,
    Call(CallJob),
    /// A `prompts/get` (it runs a guest, so off the transport's thread too).
    Prompt(PromptJob),
    /// A `completion/complete` (it may call a capability, so off the transport's thread).
    Complete(CompleteJob),
    /// A `resources/list`, `resources/read` or `resources/subscribe` (they call capabilities).
    Resource(ResourceJob),
    /// Stop the in-flight request with this id.
    Cancel(Value),
    /// A `tasks/*` request, for the transport's task store.
    Tasks {
        id: Value,
        method: String,
        params: Value,
    },
}

fn tool(svc: &Service, c: &crate::Tool, rev: Revision) -> Value {
    let mut t = json!({
        "name": c.name,
        "description": c.description,
        "inputSchema": c.input_schema,
        "annotations": {
            "title": c.title,
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false,
        },
        "_meta": {"camber/revision": c.revision, "camber/version": c.version, "camber/cost": c.cost},
    });
    if rev.structured {
        t["title"] = json!(c.title);
        t["outputSchema"] = c.output_schema.clone();
    }
    if rev.tasks {
        // any call may run as a task; the long ones are what it is for
        t["execution"] = json!({"taskSupport": "optional"});
    }
    // the report's tool links its MCP App, for a client that renders apps
    if c.name == "rcx_report" {
        t["_meta"]["ui"] = json!({"resourceUri": crate::resources::APP_URI});
    }
    let _ = svc;
    t
}

/// Handle one message.
pub fn handle(svc: &Service, msg: Incoming, session: &mut Session) -> Action {
    let (id, method, params) = match msg {
        Incoming::Response => return Action::Nothing,
        Incoming::Notification { method, params } => {
            return match method.as_str() {
                "notifications/initialized" => {
                    session.initialized = true;
                    Action::Nothing
                }
                "notifications/cancelled" => match params.get("requestId") {
                    Some(id) => Action::Cancel(id.clone()),
                    None => Action::Nothing,
                },
                _ => Action::Nothing,
            };
        }
        Incoming::Request { id, method, params } => (id, method, params),
    };
    if is_stateless(&method, &params) {
        return handle_stateless(svc, id, &method, params, session, &|_| Ok(()));
    }
    let reply = |r: Value| Action::Reply(jsonrpc::result(id.clone(), r));
    let fail = |code: i64, m: &str| Action::Reply(jsonrpc::error(id.clone(), code, m));
    match method.as_str() {
        "initialize" => {
            let rev = negotiate(params.get("protocolVersion").and_then(Value::as_str));
            session.revision = rev;
            let mut caps = capabilities(session.subscriptions.is_some());
            if rev.tasks {
                caps["tasks"] = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
            }
            reply(json!({
                "protocolVersion": rev.version,
                "capabilities": caps,
                "serverInfo": server_info(),
                "instructions": INSTRUCTIONS,
            }))
        }
        "ping" => reply(json!({})),
        "logging/setLevel" => {
            match params.get("level").and_then(Value::as_str).and_then(|l| LOG_LEVELS.iter().position(|x| *x == l)) {
                Some(i) => {
                    session.log_level = Some(i);
                    reply(json!({}))
                }
                None => fail(INVALID_PARAMS, &format!("level must be one of {}", LOG_LEVELS.join(", "))),
            }
        }
        _ => methods(svc, id.clone(), &method, &params, session),
    }
}

/// Handle one request of the stateless revision: its envelope read, `check` (the transport's
/// own rung: HTTP's headers against the body), its revision checked, then the method, on a
/// copy of `base` (the connection's caller and allowlist) that lives for this request only.
pub fn handle_stateless(
    svc: &Service,
    id: Value,
    method: &str,
    params: Value,
    base: &Session,
    check: &dyn Fn(&Envelope) -> Result<(), Refusal>,
) -> Action {
    let refuse = |(code, m, data): Refusal| {
        let mut e = jsonrpc::error(id.clone(), code, &m);
        if let Some(d) = data {
            e["error"]["data"] = d;
        }
        Action::Reply(e)
    };
    let env = match envelope(&params) {
        Ok(e) => e,
        Err(r) => return refuse(r),
    };
    if let Err(r) = check(&env) {
        return refuse(r);
    }
    let rev = match stateless_revision(&env, svc.redactor()) {
        Ok(r) => r,
        Err(r) => return refuse(r),
    };
    let mut session = base.clone();
    session.revision = rev;
    session.initialized = true;
    session.log_level = env.log_level;
    if let Some(c) = &env.client {
        session.caller = format!("{}/{c}", base.caller);
    }
    let cacheable = matches!(method, "server/discover" | "tools/list" | "prompts/list");
    let action = match method {
        "server/discover" => Action::Reply(jsonrpc::result(
            id.clone(),
            json!({
                "supportedVersions": versions(),
                "capabilities": capabilities(false),
                "instructions": INSTRUCTIONS,
            }),
        )),
        // the handshake, ping and the session's log level are not of this revision
        "initialize" | "ping" | "logging/setLevel" => not_found(svc, id.clone(), method),
        _ => methods(svc, id.clone(), method, &params, &mut session),
    };
    match action {
        Action::Reply(mut v) if v.get("result").is_some() => {
            stamp(rev, &mut v["result"], cacheable);
            Action::Reply(v)
        }
        a => a,
    }
}

/// `-32601` for a method this server does not offer (in this revision).
fn not_found(svc: &Service, id: Value, method: &str) -> Action {
    Action::Reply(jsonrpc::error(id, METHOD_NOT_FOUND, &format!("Method not found: {}", svc.redactor().echo(method))))
}

/// The methods every revision shares: the tools and the prompts.
fn methods(svc: &Service, id: Value, method: &str, params: &Value, session: &mut Session) -> Action {
    let reply = |r: Value| Action::Reply(jsonrpc::result(id.clone(), r));
    let fail = |code: i64, m: &str| Action::Reply(jsonrpc::error(id.clone(), code, m));
    match method {
        "tools/list" => {
            let offset = match params.get("cursor") {
                None | Some(Value::Null) => 0,
                Some(Value::String(c)) => match c.strip_prefix("offset:").and_then(|n| n.parse::<usize>().ok()) {
                    Some(n) => n,
                    None => return fail(INVALID_PARAMS, "Invalid params: unknown cursor"),
                },
                Some(_) => return fail(INVALID_PARAMS, "Invalid params: unknown cursor"),
            };
            let listing = svc.listing();
            let all: Vec<Value> = listing.tools.iter().map(|c| tool(svc, c, session.revision)).collect();
            if offset > all.len() {
                return fail(INVALID_PARAMS, "Invalid params: unknown cursor");
            }
            let page: Vec<Value> = all.iter().skip(offset).take(PAGE).cloned().collect();
            let mut r = json!({"tools": page, "_meta": {LIST_REVISION: listing.revision}});
            if offset + PAGE < all.len() {
                r["nextCursor"] = json!(format!("offset:{}", offset + PAGE));
            }
            reply(r)
        }
        "tools/call" => {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return fail(INVALID_PARAMS, "Invalid params: tools/call needs a tool name");
            };
            if svc.listing().tool(name).is_none() {
                return fail(INVALID_PARAMS, &format!("Unknown tool: {}", svc.redactor().echo(name)));
            }
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            let progress_token = params.get("_meta").and_then(|m| m.get("progressToken")).cloned();
            // a task where the revision has them (elsewhere the parameter is not of the protocol)
            let task = match params.get("task") {
                Some(t) if session.revision.tasks => match t.as_object() {
                    Some(o) => Some(TaskAsk { ttl_ms: o.get("ttl").and_then(Value::as_u64) }),
                    None => return fail(INVALID_PARAMS, "Invalid params: task must be an object ({\"ttl\": ms})"),
                },
                _ => None,
            };
            Action::Call(CallJob { id, name: name.to_string(), args, progress_token, session: session.clone(), task })
        }
        "prompts/list" => {
            let listing = svc.listing();
            let prompts: Vec<Value> = listing
                .prompts
                .iter()
                .map(|p| {
                    json!({
                        "name": p.name, "title": p.title, "description": p.description,
                        "arguments": p.arguments.iter().map(|(n, d, r)| json!({"name": n, "description": d, "required": r})).collect::<Vec<_>>(),
                    })
                })
                .collect();
            reply(json!({"prompts": prompts, "_meta": {LIST_REVISION: listing.revision}}))
        }
        "prompts/get" => {
            let Some(name) = params.get("name").and_then(Value::as_str) else {
                return fail(INVALID_PARAMS, "Invalid params: prompts/get needs a prompt name");
            };
            if !svc.listing().has_prompt(name) {
                return fail(INVALID_PARAMS, &format!("Unknown prompt: {}", svc.redactor().echo(name)));
            }
            let mut args: BTreeMap<String, String> = BTreeMap::new();
            if let Some(m) = params.get("arguments").and_then(Value::as_object) {
                for (k, v) in m {
                    args.insert(k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
                }
            }
            Action::Prompt(PromptJob { id, name: name.to_string(), args, revision: session.revision })
        }
        "completion/complete" => {
            let Some(argument) = params.get("argument").and_then(|a| a.get("name")).and_then(Value::as_str) else {
                return fail(INVALID_PARAMS, "Invalid params: completion/complete needs argument.name");
            };
            let value = params["argument"].get("value").and_then(Value::as_str).unwrap_or("").to_string();
            let template = match (params["ref"]["type"].as_str(), params["ref"]["name"].as_str()) {
                (Some("ref/prompt"), Some(name)) if svc.listing().has_prompt(name) => None,
                (Some("ref/prompt"), _) => return fail(INVALID_PARAMS, "Invalid params: unknown prompt"),
                (Some("ref/resource"), _) => match params["ref"]["uri"].as_str() {
                    Some(uri) if crate::resources::is_template(uri) => Some(uri.to_string()),
                    // a URI of no template of this server: nothing to complete
                    _ => return reply(json!({"completion": {"values": [], "total": 0, "hasMore": false}})),
                },
                _ => return fail(INVALID_PARAMS, "Invalid params: ref must be a ref/prompt or a ref/resource"),
            };
            let context = params.get("context").and_then(|c| c.get("arguments")).cloned().unwrap_or(json!({}));
            Action::Complete(CompleteJob {
                id,
                argument: argument.to_string(),
                value,
                session: session.clone(),
                template,
                context,
            })
        }
        "resources/templates/list" => reply(crate::resources::templates(svc)),
        "resources/subscribe" | "resources/unsubscribe" => {
            let Some(subs) = session.subscriptions.clone() else {
                return not_found(svc, id, method);
            };
            let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                return fail(INVALID_PARAMS, &format!("Invalid params: {method} needs a uri"));
            };
            if method == "resources/unsubscribe" {
                subs.lock().unwrap_or_else(|p| p.into_inner()).remove(uri);
                return reply(json!({}));
            }
            // whether the caller may see what it names is asked of capabilities: a job
            Action::Resource(ResourceJob {
                id,
                method: method.to_string(),
                params: params.clone(),
                session: session.clone(),
            })
        }
        "resources/list" | "resources/read" => Action::Resource(ResourceJob {
            id,
            method: method.to_string(),
            params: params.clone(),
            session: session.clone(),
        }),
        "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" if session.revision.tasks => {
            Action::Tasks { id, method: method.to_string(), params: params.clone() }
        }
        _ => not_found(svc, id, method),
    }
}

/// The largest serialized `data` repeated as text next to `structuredContent`. The 2025-06-18
/// and 2025-11-25 revisions say a tool returning structured content SHOULD also return it
/// serialized in a text block, for clients that read only `content`; a result near the 2 MB
/// cap would then cross the wire twice. Above this size the text block says where the data is
/// instead (the summary is always in the first block).
pub const TEXT_COPY_MAX_BYTES: usize = 64 << 10;

/// The `tools/call` result of a call's outcome.
pub fn call_result(outcome: Result<camber_common::CapabilityResult, CapError>, rev: Revision) -> Value {
    let (mut result, data) = call_parts(outcome, rev);
    if let Some(raw) = data {
        result["structuredContent"] = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
    }
    result
}

/// The `tools/call` result of a call's outcome and, for a result the server keeps, its data's
/// JSON text, which stands for the `null` the result holds as its `structuredContent`
/// ([`jsonrpc::Message`] writes it in place).
fn call_parts(
    outcome: Result<camber_common::CapabilityResult, CapError>,
    rev: Revision,
) -> (Value, Option<Arc<serde_json::value::RawValue>>) {
    match outcome {
        Ok(r) => {
            let mut text: String = r.banners.iter().map(|b| format!("NOTICE: {b}")).collect::<Vec<_>>().join("\n");
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&r.text);
            // the data's text: the kept copy of a result asked again, else serialized now
            let json = r.data_text();
            // without structuredContent (a revision before 2025-06-18) the text is the only copy
            let copy = if rev.structured && json.len() > TEXT_COPY_MAX_BYTES {
                format!(
                    "The full data of this result ({} bytes of JSON) is in structuredContent; it is too large to repeat as text.",
                    camber_common::text::thousands(json.len())
                )
            } else {
                json
            };
            // every member moved in: `json!` would copy each (the data and its text copy too)
            let block = |kind: &str, key: &str, v: String| {
                Value::Object(serde_json::Map::from_iter([
                    ("type".to_string(), Value::from(kind)),
                    (key.to_string(), Value::String(v)),
                ]))
            };
            let mut content = vec![block("text", "text", text), block("text", "text", copy)];
            // an image the host drew: its alt text first, for a client that shows no images
            for image in r.images {
                content.push(block("text", "text", image.alt));
                let mut picture = block("image", "data", image.data);
                picture["mimeType"] = Value::String(image.mime_type);
                content.push(picture);
            }
            // what the capability attached, in its order
            for b in r.attached {
                content.extend(content_blocks(b));
            }
            let meta = serde_json::Map::from_iter([
                ("camber/facts".to_string(), Value::Array(r.facts)),
                ("camber/banners".to_string(), Value::from(r.banners)),
                ("camber/truncated".to_string(), Value::Bool(r.truncated)),
            ]);
            let mut out = serde_json::Map::from_iter([
                ("content".to_string(), Value::Array(content)),
                ("isError".to_string(), Value::Bool(false)),
                ("_meta".to_string(), Value::Object(meta)),
            ]);
            // the kept text in place of the data, else the data moved in (shared only when kept)
            let mut spliced = None;
            if rev.structured {
                let data = match r.data_json {
                    Some(raw) => {
                        spliced = Some(raw);
                        Value::Null
                    }
                    None => Arc::unwrap_or_clone(r.data),
                };
                out.insert("structuredContent".into(), data);
            }
            let mut out = Value::Object(out);
            stamp(rev, &mut out, false);
            (out, spliced)
        }
        Err(e) => {
            let mut err = json!({"code": e.code.as_str()});
            if let Some(d) = e.data {
                err["data"] = d;
            }
            let mut out = json!({
                "content": [{"type": "text", "text": format!("{}: {}", e.code, e.message)}],
                "isError": true,
                "_meta": {"camber/error": err},
            });
            stamp(rev, &mut out, false);
            (out, None)
        }
    }
}

/// Where a call's notifications go: progress and log messages, as JSON-RPC notifications. It
/// runs on the call's worker thread, so it queues and returns.
pub type Notify = Arc<dyn Fn(Value) + Send + Sync>;

/// A `notifications/progress` at `percent` of 100.
fn progress_note(token: &Value, percent: u32, message: Option<&str>) -> Value {
    let mut p = json!({"progressToken": token, "progress": percent, "total": 100});
    if let Some(m) = message.filter(|m| !m.is_empty()) {
        p["message"] = json!(m);
    }
    jsonrpc::notification("notifications/progress", p)
}

/// Run a `tools/call` job. When the client sent a progress token, progress goes through
/// `notify` as the guest reports it: 0 at the start, each whole percent the guest's reports
/// reach (with what it just finished), 100 at the end. `None` when the call was cancelled (a
/// cancelled request gets no response).
pub fn run_call(svc: &Service, job: &CallJob, cancel: Arc<AtomicBool>, notify: Notify) -> Option<Message> {
    let session = &job.session;
    let percent = Arc::new(Percent::new());
    // a client watching at the debug level gets each step as a log message too, so logging
    // alone lets it follow a long call
    let debug = log_message(session, "debug", "").is_some();
    let watched = job.progress_token.is_some() || debug;
    let sink: Option<ProgressSink> = watched.then(|| {
        let (notify, percent, token, session) =
            (notify.clone(), percent.clone(), job.progress_token.clone(), session.clone());
        let name = svc.redactor().echo(&job.name);
        Arc::new(move |p: &Progress| {
            if let Some(pc) = percent.offer(p) {
                if let Some(token) = &token {
                    notify(progress_note(token, pc, Some(&p.message)));
                }
                if let Some(m) = log_message(&session, "debug", &format!("camber: call {name} at {pc}%: {}", p.message))
                {
                    notify(m);
                }
            }
        }) as ProgressSink
    });
    if let Some(token) = &job.progress_token {
        if let Some(pc) = percent.rise(0) {
            notify(progress_note(token, pc, Some(&format!("running {}", job.name))));
        }
    }
    let (outcome, line) =
        svc.call_logged(&job.name, &job.args, &session.caller, session.allowed.as_ref(), Some(cancel.clone()), sink);
    // the line the server logged for the call (capability, caller, outcome, time; never the
    // arguments), to a client that asked for log messages
    let level = if outcome.is_ok() { "info" } else { "warning" };
    if let Some(m) = log_message(session, level, &line) {
        notify(m);
    }
    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
        return None;
    }
    if matches!(&outcome, Err(e) if e.code == ErrorCode::UnknownCapability) {
        let name = svc.redactor().echo(&job.name);
        return Some(jsonrpc::error(job.id.clone(), INVALID_PARAMS, &format!("Unknown tool: {name}")).into());
    }
    if let Some(token) = &job.progress_token {
        if let Some(pc) = percent.rise(100) {
            notify(progress_note(token, pc, None));
        }
    }
    let (result, data) = call_parts(outcome, session.revision);
    Some(Message::result_with(job.id.clone(), result, data))
}
