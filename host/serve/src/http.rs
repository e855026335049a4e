//! The HTTP transports on one tokio server: MCP Streamable HTTP at `/mcp` and A2A at `/a2a`
//! with its agent card at `/.well-known/agent-card.json`. Origins are checked (403), bearer
//! tokens are checked (401), bodies are capped (413), and every guest call runs on a blocking
//! worker behind a semaphore (one per core by default), so one slow call never blocks the
//! others; a panic there is that call's internal error. A client that goes away mid-call
//! stops its guest at once. An MCP session ends after 30 minutes idle (`--session-idle`; then
//! 404, as for an unknown one) and a token holds at most 1,000 (`--max-sessions`; one more
//! ends its least recently used idle session).

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use serde_json::Value;

use super::auth::{Caller, Tokens};
use super::jsonrpc::{self, Incoming};
use super::log;
use super::mcp::{self, Action, Session};
use super::tasks::{Answer, Tasks};
use super::workers::{CallFailed, CancelOnDrop, Workers};
use super::Service;

/// How the HTTP server is set up.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// `None` only with `--no-auth` on a loopback address.
    pub tokens: Option<Tokens>,
    /// Origins accepted besides the loopback ones.
    pub allowed_origins: Vec<String>,
    pub workers: usize,
    /// How long MCP sessions may sit idle and how many one caller may hold.
    pub sessions: SessionLimits,
    /// Where replicas share MCP tasks (`None`: this process's memory only).
    pub shelf: Option<Arc<dyn super::tasks::Shelf>>,
}

/// A session idle this long ends (the next request naming it gets 404, as for an unknown
/// session, and the client initializes again).
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// The sessions one caller (one token; all callers without tokens are one) may hold.
pub const DEFAULT_SESSIONS_PER_CALLER: usize = 1000;

/// The bounds on MCP sessions over HTTP, so sessions a client opens and never ends (an
/// initialize per request, a client that crashes) cannot fill the server's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session without a request or a call in flight for this long ends.
    pub idle: Duration,
    /// A caller opening one more ends its least recently used idle session.
    pub per_caller: usize,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits { idle: DEFAULT_SESSION_IDLE, per_caller: DEFAULT_SESSIONS_PER_CALLER }
    }
}

/// Refuse a setup that would expose the data: a non-loopback address needs a token file.
pub fn check_setup(addr: &SocketAddr, tokens: Option<&Tokens>, no_auth: bool) -> Result<(), String> {
    if no_auth && tokens.is_some() {
        return Err("--no-auth and --tokens exclude each other".into());
    }
    if !addr.ip().is_loopback() && tokens.is_none() {
        return Err(format!(
            "binding {addr} (not a loopback address) needs --tokens FILE: every caller must present a token"
        ));
    }
    if tokens.is_none() && !no_auth {
        return Err("name a token file with --tokens FILE (see `camber tokens add`), or pass --no-auth to serve loopback callers without tokens".into());
    }
    if tokens.is_some_and(Tokens::is_empty) {
        return Err("--tokens: the token file holds no token".into());
    }
    Ok(())
}

/// One MCP session over HTTP.
struct HttpSession {
    session: Session,
    /// Requests in flight, by JSON id, for `notifications/cancelled`.
    inflight: HashMap<String, Arc<AtomicBool>>,
    /// The digest of the token that opened it: another caller cannot use it.
    owner: String,
    /// The last request, or the end of the last call.
    last_used: Instant,
}

/// The open MCP sessions, with their limits. Every method takes the time, so tests need no
/// clock.
struct Sessions {
    map: HashMap<String, HttpSession>,
    limits: SessionLimits,
}

impl Sessions {
    fn new(limits: SessionLimits) -> Sessions {
        Sessions { map: HashMap::new(), limits }
    }

    /// Idle (no call in flight) for the limit or longer.
    fn expired(s: &HttpSession, idle: Duration, now: Instant) -> bool {
        s.inflight.is_empty() && now.saturating_duration_since(s.last_used) >= idle
    }

    /// Add a session: expired ones end first; a caller at its limit loses its least recently
    /// used idle session. `false` (nothing added) when all of the caller's are running calls.
    fn open(&mut self, id: String, session: Session, owner: &str, now: Instant) -> bool {
        let limits = self.limits;
        self.map.retain(|_, s| !Sessions::expired(s, limits.idle, now));
        let mine: Vec<(&String, &HttpSession)> = self.map.iter().filter(|(_, s)| s.owner == owner).collect();
        if mine.len() >= limits.per_caller.max(1) {
            let idle = mine
                .iter()
                .filter(|(_, s)| s.inflight.is_empty())
                .min_by_key(|(_, s)| s.last_used)
                .map(|(k, _)| (*k).clone());
            match idle {
                Some(oldest) => {
                    self.map.remove(&oldest);
                }
                None => return false,
            }
        }
        self.map
            .insert(id, HttpSession { session, inflight: HashMap::new(), owner: owner.to_string(), last_used: now });
        true
    }

    /// The caller's live session `sid`, marked used; an expired one ends here.
    fn get(&mut self, sid: &str, owner: &str, now: Instant) -> Option<&mut HttpSession> {
        let s = self.map.get(sid)?;
        if s.owner != owner {
            return None;
        }
        if Sessions::expired(s, self.limits.idle, now) {
            self.map.remove(sid);
            return None;
        }
        let s = self.map.get_mut(sid)?;
        s.last_used = now;
        Some(s)
    }

    /// End the caller's session `sid`; its calls in flight are cancelled.
    fn end(&mut self, sid: &str, owner: &str) -> bool {
        if self.map.get(sid).is_none_or(|s| s.owner != owner) {
            return false;
        }
        if let Some(s) = self.map.remove(sid) {
            for f in s.inflight.values() {
                f.store(true, Ordering::SeqCst);
            }
        }
        true
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.map.len()
    }
}

/// Shared server state.
pub struct AppState {
    pub svc: Arc<Service>,
    tokens: Option<Tokens>,
    origins: Vec<String>,
    sessions: Mutex<Sessions>,
    pub workers: Arc<Workers>,
    pub a2a: Arc<super::a2a::Tasks>,
    /// MCP tasks, bound to the token that created them.
    mcp_tasks: Arc<Tasks>,
    /// Woken each time a task ends, for the `tasks/result` requests waiting on one.
    task_ended: tokio::sync::Notify,
    port: u16,
}

/// Whether an `Origin` is this machine's: `http` or `https` to `localhost`, a 127.0.0.0/8
/// address or `[::1]`, with or without a port, in any case (scheme and host are
/// case-insensitive).
pub fn loopback_origin(origin: &str) -> bool {
    let Ok(uri) = origin.parse::<axum::http::Uri>() else { return false };
    let scheme_ok = uri.scheme_str().is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https"));
    let bare = uri.path() == "/" && uri.query().is_none() && uri.authority().is_some_and(|a| !a.as_str().contains('@'));
    let Some(host) = uri.host() else { return false };
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    scheme_ok
        && bare
        && (host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback()))
}

impl AppState {
    /// A call of session `sid` ended: no longer in flight, and the session used now.
    fn call_ended(&self, sid: Option<&str>, key: &str) {
        let Some(sid) = sid else { return };
        if let Some(s) = self.sessions.lock().unwrap_or_else(|p| p.into_inner()).map.get_mut(sid) {
            s.inflight.remove(key);
            s.last_used = Instant::now();
        }
    }

    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get("origin").and_then(|o| o.to_str().ok()) else { return true };
        self.origins.iter().any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin)) || loopback_origin(origin)
    }

    /// The caller, or the response that refuses the request.
    fn caller(&self, headers: &HeaderMap) -> Result<Option<Caller>, Box<Response>> {
        let Some(tokens) = &self.tokens else { return Ok(None) };
        let presented = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim);
        match presented.and_then(|t| tokens.check(t)) {
            Some(c) => Ok(Some(c.clone())),
            None => {
                let mut r = (StatusCode::UNAUTHORIZED, "a valid bearer token is required").into_response();
                r.headers_mut().insert("www-authenticate", HeaderValue::from_static("Bearer"));
                Err(Box::new(r))
            }
        }
    }
}

fn json_response(status: StatusCode, v: &impl serde::Serialize) -> Response {
    let mut r = (status, serde_json::to_string(v).unwrap_or_default()).into_response();
    r.headers_mut().insert("content-type", HeaderValue::from_static("application/json"));
    r
}

fn status(code: StatusCode, msg: &str) -> Response {
    status_for(code, msg, Value::Null)
}

/// A transport refusal that answers the request's id when the body let it be read.
fn status_for(code: StatusCode, msg: &str, id: Value) -> Response {
    json_response(code, &jsonrpc::error(id, jsonrpc::INVALID_REQUEST, msg))
}

/// The id of a JSON-RPC request body, when it can be read (else null).
fn readable_id(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("id").filter(|id| id.is_string() || id.is_number()).cloned())
        .unwrap_or(Value::Null)
}

async fn mcp_post(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    let id = readable_id(&body);
    if !st.origin_ok(&headers) {
        return status_for(StatusCode::FORBIDDEN, "this Origin may not call this server", id);
    }
    let caller = match st.caller(&headers) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let header_version = headers.get("mcp-protocol-version").map(|v| v.to_str().unwrap_or(""));
    // the stateless revision: a version header that names no handshake revision (whatever it
    // names: the envelope then says what is wrong)
    let stateless = header_version.is_some_and(|v| !mcp::handshake_version(v));
    let msg = match jsonrpc::parse(&body) {
        Ok(m) => m,
        // a refused request with a valid id is answered as a request; the rest is a bad body
        Err(e) if !e["id"].is_null() && !stateless => return json_response(StatusCode::OK, &e),
        Err(e) => return json_response(StatusCode::BAD_REQUEST, &e),
    };
    let label = caller.as_ref().map(|c| format!("mcp:{}", c.label)).unwrap_or_else(|| "mcp:http".into());
    let allowed: Option<BTreeSet<String>> = caller.as_ref().map(|c| c.allowed.clone());
    let stateless = stateless
        || (headers.get("mcp-session-id").is_none()
            && matches!(&msg, Incoming::Request { method, params, .. } if mcp::is_stateless(method, params)));
    if stateless {
        return stateless_post(st, &headers, msg, Session::new(&label, allowed)).await;
    }
    let owner = caller.as_ref().map(|c| c.id.clone()).unwrap_or_default();
    let is_initialize = matches!(&msg, Incoming::Request { method, .. } if method == "initialize");
    let sid = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);

    if is_initialize {
        let mut session = Session::new(&label, allowed);
        // the session's GET stream tells of its watched resources' changes
        session.subscriptions = Some(Arc::default());
        let action = mcp::handle_contained(&st.svc, msg, &mut session);
        let sid = match camber_common::ids::random_hex() {
            Ok(s) => s,
            Err(why) => return status_for(StatusCode::INTERNAL_SERVER_ERROR, &why, id),
        };
        if !st.sessions.lock().unwrap_or_else(|p| p.into_inner()).open(sid.clone(), session, &owner, Instant::now()) {
            return status_for(
                StatusCode::TOO_MANY_REQUESTS,
                "this caller's MCP sessions are all running calls and at the limit: end one (DELETE) or wait for a call to finish",
                id,
            );
        }
        let mut r = match action {
            Action::Reply(v) => json_response(StatusCode::OK, &v),
            _ => StatusCode::ACCEPTED.into_response(),
        };
        if let Ok(h) = HeaderValue::from_str(&sid) {
            r.headers_mut().insert("mcp-session-id", h);
        }
        return r;
    }
    let Some(sid) = sid else {
        return status_for(StatusCode::BAD_REQUEST, "missing MCP-Session-Id: initialize first", id);
    };
    let action = {
        let mut sessions = st.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let Some(s) = sessions.get(&sid, &owner, Instant::now()) else {
            return status_for(StatusCode::NOT_FOUND, "unknown, ended or expired session: initialize again", id);
        };
        // the presenting token's own allowlist, every request
        s.session.allowed = allowed.clone();
        s.session.caller = label.clone();
        let action = mcp::handle_contained(&st.svc, msg, &mut s.session);
        if let Action::Cancel(id) = &action {
            if let Some(flag) = s.inflight.get(&id.to_string()) {
                flag.store(true, Ordering::SeqCst);
            }
        }
        action
    };
    match action {
        Action::Reply(v) => json_response(StatusCode::OK, &v),
        Action::Nothing | Action::Cancel(_) => StatusCode::ACCEPTED.into_response(),
        Action::Prompt(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_prompt(svc, &job)).await,
        Action::Complete(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_complete(svc, &job)).await,
        Action::Resource(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_resource(svc, &job)).await,
        Action::Call(job) if job.task.is_some() => task_call(st, &owner, job).await,
        Action::Call(job) => call_response(st, &headers, Some(sid), job).await,
        Action::Tasks { id, method, params } => tasks_response(&st, &owner, id, &method, &params).await,
    }
}

/// Start a `tools/call` as a task of `owner` (the token's digest: its tasks outlive the
/// session): answered at once with the task; the call runs on a worker, and its answer is
/// kept for `tasks/result`.
async fn task_call(st: Arc<AppState>, owner: &str, job: mcp::CallJob) -> Response {
    let id = job.id.clone();
    let ttl = job.task.and_then(|t| t.ttl_ms);
    // a shared task is written to the store's bucket: off the async threads
    let created = if st.mcp_tasks.is_shared() {
        let (tasks, owner) = (st.mcp_tasks.clone(), owner.to_string());
        tokio::task::spawn_blocking(move || tasks.create(&owner, ttl))
            .await
            .unwrap_or_else(|_| Err("the task could not be created".into()))
    } else {
        st.mcp_tasks.create(owner, ttl)
    };
    match created {
        Ok((task, created, flag)) => {
            // no stream outlives the answer: the task's progress is its status message
            let (job, notify) = super::tasks::watched(st.mcp_tasks.clone(), &task, job, Arc::new(|_n| {}));
            tokio::spawn(async move {
                let reply = st.workers.run(flag, move |svc, cancel| mcp::run_call(svc, &job, cancel, notify)).await;
                let reply = reply.unwrap_or_else(|CallFailed| Some(mcp::internal_error(Value::Null).into()));
                st.mcp_tasks.finish(&task, reply.map(jsonrpc::Message::into_value));
                st.task_ended.notify_waiters();
            });
            json_response(StatusCode::OK, &jsonrpc::result(id, created))
        }
        Err(why) => json_response(StatusCode::OK, &jsonrpc::error(id, jsonrpc::INVALID_REQUEST, &why)),
    }
}

/// Answer a `tasks/*` request of `owner`; `tasks/result` of a running task waits for its end.
async fn tasks_response(st: &AppState, owner: &str, id: Value, method: &str, params: &Value) -> Response {
    // shared tasks are read from the store's bucket: off the async threads
    let tasks = st.mcp_tasks.clone();
    let shared = tasks.is_shared();
    let answer = if shared {
        let (t, o, m, p) = (tasks.clone(), owner.to_string(), method.to_string(), params.clone());
        match tokio::task::spawn_blocking(move || t.answer(&o, id, &m, &p)).await {
            Ok(a) => a,
            Err(_) => return json_response(StatusCode::OK, &mcp::internal_error(Value::Null)),
        }
    } else {
        tasks.answer(owner, id, method, params)
    };
    match answer {
        Answer::Reply(v) => json_response(StatusCode::OK, &v),
        Answer::Wait { id, task } => loop {
            // registered before the look, so an end between the two still wakes it
            let ended = st.task_ended.notified();
            let (t, o, i, k) = (tasks.clone(), owner.to_string(), id.clone(), task.clone());
            let found = if shared {
                tokio::task::spawn_blocking(move || t.result(&o, &i, &k)).await.ok().flatten()
            } else {
                t.result(&o, &i, &k)
            };
            if let Some(v) = found {
                return json_response(StatusCode::OK, &v);
            }
            // a task another replica runs ends with no wake-up here: look again soon
            let wait = if shared { Duration::from_millis(250) } else { Duration::from_secs(5) };
            let _ = tokio::time::timeout(wait, ended).await;
        },
    }
}

/// Whether the client reads a response as an event stream (`Accept: text/event-stream`).
fn accepts_stream(headers: &HeaderMap) -> bool {
    headers.get_all("accept").iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(|m| {
        let m = m.split(';').next().unwrap_or("").trim();
        m.eq_ignore_ascii_case("text/event-stream")
    })
}

/// One JSON-RPC message as an SSE `message` event.
fn sse_event(v: &impl serde::Serialize) -> Event {
    Event::default().event("message").data(serde_json::to_string(v).unwrap_or_default())
}

/// Answer a `tools/call` as an SSE stream: each notification the call sends (progress, log
/// messages) as its event, then the response, then the stream ends. The call runs on a
/// blocking worker as any other; a client that drops the stream cancels it, as one that drops
/// a plain request does.
fn streamed_call(
    st: Arc<AppState>,
    sid: Option<String>,
    key: String,
    flag: Arc<AtomicBool>,
    job: mcp::CallJob,
) -> Response {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<jsonrpc::Message>();
    let notify: mcp::Notify = {
        let tx = tx.clone();
        Arc::new(move |v: Value| {
            let _ = tx.send(v.into());
        })
    };
    let guard = CancelOnDrop::new(flag.clone());
    let id = job.id.clone();
    tokio::spawn(async move {
        let reply = st.workers.run(flag, move |svc, cancel| mcp::run_call(svc, &job, cancel, notify)).await;
        st.call_ended(sid.as_deref(), &key);
        match reply {
            Ok(Some(v)) => {
                let _ = tx.send(v);
            }
            Ok(None) => {}
            Err(CallFailed) => {
                let _ = tx.send(mcp::internal_error(id).into());
            }
        }
    });
    let events = futures_util::stream::unfold((rx, guard), |(mut rx, mut guard)| async move {
        let v = rx.recv().await?;
        if v.is_response() {
            // the response: the call is over, the stream's end cancels nothing
            guard.disarm();
        }
        Some((Ok::<Event, std::convert::Infallible>(sse_event(&v)), (rx, guard)))
    });
    Sse::new(events).into_response()
}

/// The HTTP status of a stateless request's JSON-RPC error: 400 for a request that is
/// malformed, mismatched or of another revision, 404 for an unknown method, else 200.
fn stateless_status(reply: &Value) -> StatusCode {
    match reply["error"]["code"].as_i64() {
        Some(jsonrpc::PARSE_ERROR | jsonrpc::INVALID_REQUEST | jsonrpc::INVALID_PARAMS) => StatusCode::BAD_REQUEST,
        Some(mcp::HEADER_MISMATCH | mcp::UNSUPPORTED_VERSION) => StatusCode::BAD_REQUEST,
        Some(jsonrpc::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// The value of a routing header, once: `None` when absent, an error when repeated. A value
/// sent as `=?base64?...?=` (how a client sends a name that is not plain ASCII) is decoded.
fn routing_header(headers: &HeaderMap, name: &str) -> Result<Option<String>, String> {
    let mut all = headers.get_all(name).iter();
    let Some(v) = all.next() else { return Ok(None) };
    if all.next().is_some() {
        return Err(format!("the {name} header is sent more than once"));
    }
    let text = String::from_utf8_lossy(v.as_bytes()).trim().to_string();
    match text.strip_prefix("=?base64?").and_then(|t| t.strip_suffix("?=")) {
        Some(b64) => {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|_| format!("the {name} header is not valid base64"))?;
            String::from_utf8(bytes).map(Some).map_err(|_| format!("the {name} header is not UTF-8"))
        }
        None => Ok(Some(text)),
    }
}

/// The stateless revision's header rung: `MCP-Protocol-Version` and `Mcp-Method` name what
/// the body names, and `Mcp-Name` the tool or prompt of a `tools/call` or `prompts/get`
/// (`-32020` otherwise), so a proxy routing on headers routes what the server runs.
fn headers_match(headers: &HeaderMap, method: &str, params: &Value, env: &mcp::Envelope) -> Result<(), mcp::Refusal> {
    let mismatch = |m: String| (mcp::HEADER_MISMATCH, m, None);
    let want = |name: &str, body: Option<&str>, what: &str| -> Result<(), mcp::Refusal> {
        let got = routing_header(headers, name).map_err(&mismatch)?;
        match (got.as_deref(), body) {
            (None, Some(_)) => {
                Err(mismatch(format!("the {name} header is missing; it must name the request body's {what}")))
            }
            (got, body) if got != body => {
                Err(mismatch(format!("the {name} header does not match the request body's {what}")))
            }
            _ => Ok(()),
        }
    };
    want("mcp-protocol-version", Some(&env.version), "protocol version")?;
    want("mcp-method", Some(method), "method")?;
    if matches!(method, "tools/call" | "prompts/get") {
        want("mcp-name", params.get("name").and_then(Value::as_str), "name")?;
    }
    Ok(())
}

/// A POST of the stateless revision: no session; the headers checked against the body; a
/// call answered as JSON, or as an event stream when the client watches it.
async fn stateless_post(st: Arc<AppState>, headers: &HeaderMap, msg: Incoming, base: Session) -> Response {
    let (id, method, params) = match msg {
        Incoming::Request { id, method, params } => (id, method, params),
        // a notification (a cancel has no use here: a client cancels by closing its request)
        _ => return StatusCode::ACCEPTED.into_response(),
    };
    let action = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        mcp::handle_stateless(&st.svc, id.clone(), &method, params.clone(), &base, &|env| {
            headers_match(headers, &method, &params, env)
        })
    }))
    .unwrap_or_else(|_| {
        log::line("camber: a request panicked in the server; answered internal");
        Action::Reply(mcp::internal_error(id.clone()))
    });
    match action {
        Action::Reply(v) => json_response(stateless_status(&v), &v),
        Action::Nothing | Action::Cancel(_) => StatusCode::ACCEPTED.into_response(),
        Action::Prompt(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_prompt(svc, &job)).await,
        Action::Complete(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_complete(svc, &job)).await,
        Action::Resource(job) => worker_response(&st, job.id.clone(), move |svc| mcp::run_resource(svc, &job)).await,
        Action::Call(job) => call_response(st, headers, None, job).await,
        // the stateless revision has no tasks
        Action::Tasks { id, .. } => json_response(
            StatusCode::NOT_FOUND,
            &jsonrpc::error(id, jsonrpc::METHOD_NOT_FOUND, "Method not found: tasks are not of this revision"),
        ),
    }
}

/// Run a `prompts/get`, a `completion/complete` or a `resources/*` job on a worker (each may
/// call a capability): its answer, or an internal error if the worker failed.
async fn worker_response(
    st: &AppState,
    id: Value,
    job: impl FnOnce(&crate::Service) -> Value + Send + 'static,
) -> Response {
    let flag = Arc::new(AtomicBool::new(false));
    match st.workers.run(flag, move |svc, _| job(svc)).await {
        Ok(v) => json_response(StatusCode::OK, &v),
        Err(CallFailed) => json_response(StatusCode::OK, &mcp::internal_error(id)),
    }
}

/// Run a `tools/call` on a worker, in the session `sid` (its in-flight calls, for a cancel)
/// when it has one: one JSON response, or an event stream when the client watches the call.
async fn call_response(st: Arc<AppState>, headers: &HeaderMap, sid: Option<String>, job: mcp::CallJob) -> Response {
    let flag = Arc::new(AtomicBool::new(false));
    let key = job.id.to_string();
    let id = job.id.clone();
    if let Some(sid) = &sid {
        if let Some(s) = st.sessions.lock().unwrap_or_else(|p| p.into_inner()).map.get_mut(sid) {
            s.inflight.insert(key.clone(), flag.clone());
        }
    }
    // a client watching the call (a progress token, or log messages asked for) that reads
    // event streams gets the call's notifications as they come, then the result
    if accepts_stream(headers) && (job.progress_token.is_some() || job.session.log_level.is_some()) {
        return streamed_call(st, sid, key, flag, job);
    }
    let reply = st.workers.run(flag, move |svc, cancel| mcp::run_call(svc, &job, cancel, Arc::new(|_n| {}))).await;
    st.call_ended(sid.as_deref(), &key);
    match reply {
        Ok(Some(v)) => json_response(StatusCode::OK, &v),
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Err(CallFailed) => json_response(StatusCode::OK, &mcp::internal_error(id)),
    }
}

async fn mcp_delete(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let owner = match st.caller(&headers) {
        Ok(c) => c.map(|c| c.id).unwrap_or_default(),
        Err(r) => return *r,
    };
    let version = headers.get("mcp-protocol-version").map(|v| v.to_str().unwrap_or(""));
    if version.is_some_and(|v| !mcp::handshake_version(v)) {
        let mut r = post_only("the stateless revision has no session to end: POST requests");
        r.headers_mut().insert("allow", HeaderValue::from_static("POST"));
        return r;
    }
    let Some(sid) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return status(StatusCode::BAD_REQUEST, "missing MCP-Session-Id");
    };
    if st.sessions.lock().unwrap_or_else(|p| p.into_inner()).end(sid, &owner) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        status(StatusCode::NOT_FOUND, "unknown or ended session")
    }
}

/// 405, naming the one method `/mcp` takes for what was asked.
fn post_only(msg: &'static str) -> Response {
    let mut r = (StatusCode::METHOD_NOT_ALLOWED, msg).into_response();
    r.headers_mut().insert("allow", HeaderValue::from_static("POST, DELETE"));
    r
}

/// `GET /mcp`: a session's own event stream, on which the server tells the client that its
/// tools or prompts changed (a reload) and that a resource it subscribed to changed (an
/// ingest rewrote its facility; looked at every [`mcp::resource_poll_interval`]); 405 for
/// anything else (no session, no event stream asked for, the stateless revision). The stream
/// ends when the session does.
async fn mcp_get(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let stateless =
        headers.get("mcp-protocol-version").is_some_and(|v| !mcp::handshake_version(v.to_str().unwrap_or("")));
    let sid = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);
    let (Some(sid), false, true) = (sid, stateless, accepts_stream(&headers)) else {
        let mut r = post_only(
            "this server opens a stream only for a session (MCP-Session-Id, Accept: text/event-stream): POST requests",
        );
        if stateless {
            r.headers_mut().insert("allow", HeaderValue::from_static("POST"));
        }
        return r;
    };
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let owner = match st.caller(&headers) {
        Ok(c) => c.map(|c| c.id).unwrap_or_default(),
        Err(r) => return *r,
    };
    let subs = match st.sessions.lock().unwrap_or_else(|p| p.into_inner()).get(&sid, &owner, Instant::now()) {
        Some(s) => s.session.subscriptions.clone(),
        None => return status(StatusCode::NOT_FOUND, "unknown, ended or expired session: initialize again"),
    };
    let rx = st.svc.subscribe();
    let every = mcp::resource_poll_interval();
    let state = (rx, st, sid, owner, subs, std::collections::VecDeque::<Value>::new());
    let events = futures_util::stream::unfold(state, move |(mut rx, st, sid, owner, subs, mut queue)| async move {
        loop {
            if let Some(v) = queue.pop_front() {
                let event = Ok::<Event, std::convert::Infallible>(sse_event(&v));
                return Some((event, (rx, st, sid, owner, subs, queue)));
            }
            let change = match tokio::time::timeout(every, rx.recv()).await {
                Ok(Ok(c)) => c,
                // missed changes: the client lists both again
                Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {
                    crate::ListChange { tools: true, prompts: true, lines: Vec::new() }
                }
                Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return None,
                Err(_) => {
                    // still a session? (it may have ended or been deleted meanwhile)
                    st.sessions.lock().unwrap_or_else(|p| p.into_inner()).get(&sid, &owner, Instant::now())?;
                    queue.extend(watched_changes(&st, subs.as_ref()).await);
                    continue;
                }
            };
            queue.extend(mcp::list_changed(&change));
        }
    });
    Sse::new(events).keep_alive(axum::response::sse::KeepAlive::default()).into_response()
}

/// The notices of the session's watched resources whose facilities were rewritten since they
/// were last seen; the store is looked at off the async threads, and only when something is
/// watched.
async fn watched_changes(st: &Arc<AppState>, subs: Option<&mcp::Subscriptions>) -> Vec<Value> {
    let Some(subs) = subs.filter(|s| !s.lock().unwrap_or_else(|p| p.into_inner()).is_empty()).cloned() else {
        return Vec::new();
    };
    let svc = st.svc.clone();
    tokio::task::spawn_blocking(move || mcp::changed_resources(&svc, &subs)).await.unwrap_or_default()
}

async fn agent_card(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let host = headers
        .get("host")
        .and_then(|h| h.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| format!("127.0.0.1:{}", st.port));
    json_response(StatusCode::OK, &super::a2a::agent_card(&st.svc, &format!("http://{host}"), st.tokens.is_some()))
}

async fn a2a_post(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let caller = match st.caller(&headers) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    let version = headers.get("a2a-version").and_then(|v| v.to_str().ok()).map(str::to_string);
    let msg = match jsonrpc::parse(&body) {
        Ok(m) => m,
        Err(e) => return json_response(StatusCode::OK, &e),
    };
    if matches!(&msg, Incoming::Request { method, .. } if super::a2a::is_streaming(method)) {
        return match super::a2a::stream(st.workers.clone(), &st.a2a, msg, caller, version) {
            Ok((rx, guard)) => a2a_events(rx, guard),
            Err(e) => json_response(StatusCode::OK, &e),
        };
    }
    match super::a2a::handle(&st.svc, &st.workers, &st.a2a, msg, caller, version).await {
        Some(v) => json_response(StatusCode::OK, &v),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// A streamed A2A message as SSE: each event a JSON-RPC response in a `data:` line. The stream
/// ends after the final status; dropped before then (the client went away), it cancels the
/// call.
fn a2a_events(rx: tokio::sync::mpsc::UnboundedReceiver<Value>, guard: CancelOnDrop) -> Response {
    let events = futures_util::stream::unfold((rx, guard), |(mut rx, mut guard)| async move {
        let Some(v) = rx.recv().await else {
            guard.disarm();
            return None;
        };
        let data = serde_json::to_string(&v).unwrap_or_default();
        Some((Ok::<Event, std::convert::Infallible>(Event::default().data(data)), (rx, guard)))
    });
    Sse::new(events).into_response()
}

/// The router (for tests and for `serve`).
pub fn router(svc: Arc<Service>, opts: &HttpOptions) -> (Router, Arc<AppState>) {
    let state = Arc::new(AppState {
        svc: svc.clone(),
        tokens: opts.tokens.clone(),
        origins: opts.allowed_origins.clone(),
        sessions: Mutex::new(Sessions::new(opts.sessions)),
        workers: Arc::new(Workers::new(svc.clone(), opts.workers)),
        a2a: Arc::default(),
        mcp_tasks: Arc::new(opts.shelf.clone().map_or_else(Tasks::default, Tasks::shared)),
        task_ended: tokio::sync::Notify::new(),
        port: opts.addr.port(),
    });
    if state.mcp_tasks.is_shared() {
        // a cancel another replica took stops the call here
        let weak = Arc::downgrade(&state.mcp_tasks);
        let _ = std::thread::Builder::new().name("camber-task-cancels".into()).spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let Some(tasks) = weak.upgrade() else { return };
            tasks.take_remote_cancels();
        });
    }
    let app = Router::new()
        .route("/mcp", post(mcp_post).delete(mcp_delete).get(mcp_get))
        .route("/a2a", post(a2a_post))
        .route("/.well-known/agent-card.json", get(agent_card))
        .layer(DefaultBodyLimit::max(jsonrpc::MAX_MESSAGE_BYTES))
        .layer(axum::middleware::map_response(readable_too_large))
        .with_state(state.clone());
    (app, state)
}

/// A body over the cap is refused 413 by the body extractor with a plain-text body; the
/// client still gets a JSON-RPC error it can read (id null: the request was never read).
async fn readable_too_large(res: Response) -> Response {
    let json = res
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if res.status() != StatusCode::PAYLOAD_TOO_LARGE || json {
        return res;
    }
    let message =
        format!("the request is larger than {} MiB, the most one message may hold", jsonrpc::MAX_MESSAGE_BYTES >> 20);
    (StatusCode::PAYLOAD_TOO_LARGE, axum::Json(jsonrpc::error(Value::Null, jsonrpc::INVALID_REQUEST, &message)))
        .into_response()
}

/// Serve until interrupted.
pub fn serve(svc: Arc<Service>, opts: HttpOptions) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(opts.workers.max(1) + 4)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the HTTP runtime: {e}"))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(opts.addr)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let (app, _) = router(svc, &HttpOptions { addr: local, ..opts });
        log::line(format!("camber: serving MCP at http://{local}/mcp and A2A at http://{local}/a2a"));
        // no Nagle delay: an event stream's small frames (and a JSON answer) leave at once,
        // not after the client's delayed ACK
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("the HTTP server failed: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(60);

    fn limits(idle_min: u32, per_caller: usize) -> Sessions {
        Sessions::new(SessionLimits { idle: MIN * idle_min, per_caller })
    }

    fn session() -> Session {
        Session::new("mcp:t", None)
    }

    #[test]
    fn idle_sessions_expire_and_busy_ones_do_not() {
        let t0 = Instant::now();
        let mut s = limits(30, 10);
        assert!(s.open("a".into(), session(), "tok", t0));
        assert!(s.open("b".into(), session(), "tok", t0));
        // used at 29 min: idle again from then
        assert!(s.get("a", "tok", t0 + 29 * MIN).is_some());
        // a call in flight keeps b open however long it runs
        s.map.get_mut("b").unwrap().inflight.insert("1".into(), Arc::new(AtomicBool::new(false)));
        assert!(s.get("a", "tok", t0 + 58 * MIN).is_some());
        assert!(s.get("a", "tok", t0 + 88 * MIN).is_none(), "30 minutes idle ends a session");
        assert!(s.get("a", "tok", t0 + 58 * MIN).is_none(), "and it stays ended");
        assert!(s.get("b", "tok", t0 + 120 * MIN).is_some());
        // another token never sees a session
        assert!(s.get("b", "other", t0 + 120 * MIN).is_none());
        // opening a session sweeps the expired ones of every caller
        s.map.get_mut("b").unwrap().inflight.clear();
        assert!(s.open("c".into(), session(), "other", t0 + 200 * MIN));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_caller_at_its_limit_loses_its_least_recently_used_idle_session() {
        let t0 = Instant::now();
        let mut s = limits(30, 3);
        for (i, id) in ["a", "b", "c"].into_iter().enumerate() {
            assert!(s.open(id.into(), session(), "tok", t0 + MIN * i as u32));
        }
        assert!(s.open("x".into(), session(), "other", t0));
        // a is the oldest, but was used last
        assert!(s.get("a", "tok", t0 + 5 * MIN).is_some());
        assert!(s.open("d".into(), session(), "tok", t0 + 6 * MIN));
        assert!(s.get("b", "tok", t0 + 6 * MIN).is_none(), "b was the least recently used");
        for id in ["a", "c", "d"] {
            assert!(s.get(id, "tok", t0 + 6 * MIN).is_some(), "{id}");
        }
        assert!(s.get("x", "other", t0 + 6 * MIN).is_some(), "another caller's session stays");
        // all of them busy: refused, nothing ended
        for id in ["a", "c", "d"] {
            s.map.get_mut(id).unwrap().inflight.insert("1".into(), Arc::new(AtomicBool::new(false)));
        }
        assert!(!s.open("e".into(), session(), "tok", t0 + 7 * MIN));
        assert_eq!(s.len(), 4);
        // DELETE: only by its owner
        assert!(!s.end("a", "other"));
        assert!(s.end("a", "tok"));
        assert!(s.get("a", "tok", t0 + 7 * MIN).is_none());
    }

    #[test]
    fn loopback_origins() {
        for o in [
            "http://localhost",
            "http://localhost:8765",
            "https://LOCALHOST:1",
            "HTTP://LocalHost",
            "http://127.0.0.1",
            "http://127.0.0.1:3000",
            "http://127.1.2.3:80",
            "http://[::1]",
            "http://[::1]:8765",
        ] {
            assert!(loopback_origin(o), "{o}");
        }
        for o in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://evil@localhost",
            "http://[::2]",
            "http://128.0.0.1",
            "file://localhost",
            "null",
            "localhost",
            "http://localhost/path",
            "",
        ] {
            assert!(!loopback_origin(o), "{o}");
        }
    }
}
