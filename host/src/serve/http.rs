//! The HTTP transports on one tokio server: MCP Streamable HTTP at `/mcp` and A2A at `/a2a`
//! with its agent card at `/.well-known/agent-card.json`. Origins are checked (403), bearer
//! tokens are checked (401), bodies are capped (413), and every guest call runs on a blocking
//! worker behind a semaphore (one per core by default), so one slow call never blocks the
//! others. A client that goes away mid-call stops its guest at once.

use std::collections::{BTreeSet, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::auth::{Caller, Tokens};
use super::jsonrpc::{self, Incoming};
use super::mcp::{self, Action, Session};
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
}

/// Refuse a setup that would expose the data: a non-loopback address needs a token file.
pub fn check_setup(addr: &SocketAddr, tokens: Option<&Tokens>, no_auth: bool) -> Result<(), String> {
    if no_auth && tokens.is_some() {
        return Err("--no-auth and --tokens exclude each other".into());
    }
    if !addr.ip().is_loopback() && tokens.is_none() {
        return Err(format!("binding {addr} (not a loopback address) needs --tokens FILE: every caller must present a token"));
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
    /// The token's label that opened it: another caller cannot use it.
    owner: String,
}

/// Shared server state.
pub struct AppState {
    pub svc: Arc<Service>,
    tokens: Option<Tokens>,
    origins: Vec<String>,
    sessions: Mutex<HashMap<String, HttpSession>>,
    workers: Arc<Semaphore>,
    pub a2a: super::a2a::Tasks,
    port: u16,
}

/// Sets a call's cancel flag when dropped: when the client disconnects, axum drops the
/// handler's future and the guest stops at its next epoch tick.
struct CancelOnDrop(Arc<AtomicBool>, bool);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.1 {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

impl AppState {
    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get("origin").and_then(|o| o.to_str().ok()) else { return true };
        if self.origins.iter().any(|o| o == origin) {
            return true;
        }
        let rest = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")).unwrap_or("");
        let host = rest.rsplit_once(':').map(|(h, _)| h).unwrap_or(rest);
        matches!(host, "localhost" | "127.0.0.1" | "[::1]")
    }

    /// The caller, or the response that refuses the request.
    fn caller(&self, headers: &HeaderMap) -> Result<Option<Caller>, Response> {
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
                Err(r)
            }
        }
    }

    /// Run one call on a blocking worker; cancelled when the future is dropped.
    pub async fn run_blocking<T: Send + 'static>(
        self: &Arc<Self>,
        cancel: Arc<AtomicBool>,
        f: impl FnOnce(&Service, Arc<AtomicBool>) -> T + Send + 'static,
    ) -> Option<T> {
        let mut guard = CancelOnDrop(cancel.clone(), false);
        let permit = self.workers.clone().acquire_owned().await.ok()?;
        let svc = self.svc.clone();
        let r = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            f(&svc, cancel)
        })
        .await
        .ok();
        guard.1 = true;
        r
    }
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    let mut r = (status, serde_json::to_string(v).unwrap_or_default()).into_response();
    r.headers_mut().insert("content-type", HeaderValue::from_static("application/json"));
    r
}

fn status(code: StatusCode, msg: &str) -> Response {
    json_response(code, &jsonrpc::error(Value::Null, jsonrpc::INVALID_REQUEST, msg))
}

async fn mcp_post(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let caller = match st.caller(&headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    if let Some(v) = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok()) {
        if !mcp::supported(v) {
            return status(StatusCode::BAD_REQUEST, &format!("unsupported MCP-Protocol-Version {v}"));
        }
    }
    let msg = match jsonrpc::parse(&body) {
        Ok(m) => m,
        Err(e) => return json_response(StatusCode::BAD_REQUEST, &e),
    };
    let label = caller.as_ref().map(|c| format!("mcp:{}", c.label)).unwrap_or_else(|| "mcp:http".into());
    let allowed: Option<BTreeSet<String>> = caller.as_ref().map(|c| c.allowed.clone());
    let owner = caller.as_ref().map(|c| c.id.clone()).unwrap_or_default();
    let is_initialize = matches!(&msg, Incoming::Request { method, .. } if method == "initialize");
    let sid = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);

    if is_initialize {
        let mut session = Session::new(&label, allowed);
        let action = mcp::handle(&st.svc, msg, &mut session);
        let id = crate::store::writer::random_hex();
        st.sessions.lock().unwrap_or_else(|p| p.into_inner()).insert(
            id.clone(),
            HttpSession { session, inflight: HashMap::new(), owner: owner.clone() },
        );
        let mut r = match action {
            Action::Reply(v) => json_response(StatusCode::OK, &v),
            _ => StatusCode::ACCEPTED.into_response(),
        };
        if let Ok(h) = HeaderValue::from_str(&id) {
            r.headers_mut().insert("mcp-session-id", h);
        }
        return r;
    }
    let Some(sid) = sid else {
        return status(StatusCode::BAD_REQUEST, "missing MCP-Session-Id: initialize first");
    };
    let (action, session) = {
        let mut sessions = st.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let Some(s) = sessions.get_mut(&sid) else {
            return status(StatusCode::NOT_FOUND, "unknown or ended session: initialize again");
        };
        if s.owner != owner {
            return status(StatusCode::NOT_FOUND, "unknown or ended session: initialize again");
        }
        // the presenting token's own allowlist, every request
        s.session.allowed = allowed.clone();
        s.session.caller = label.clone();
        let action = mcp::handle(&st.svc, msg, &mut s.session);
        if let Action::Cancel(id) = &action {
            if let Some(flag) = s.inflight.get(&id.to_string()) {
                flag.store(true, Ordering::SeqCst);
            }
        }
        (action, s.session.clone())
    };
    match action {
        Action::Reply(v) => json_response(StatusCode::OK, &v),
        Action::Nothing | Action::Cancel(_) => StatusCode::ACCEPTED.into_response(),
        Action::Prompt(job) => {
            let flag = Arc::new(AtomicBool::new(false));
            match st.run_blocking(flag, move |svc, _| mcp::run_prompt(svc, &job)).await {
                Some(v) => json_response(StatusCode::OK, &v),
                None => StatusCode::ACCEPTED.into_response(),
            }
        }
        Action::Call(job) => {
            let flag = Arc::new(AtomicBool::new(false));
            let key = job.id.to_string();
            if let Some(s) = st.sessions.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&sid) {
                s.inflight.insert(key.clone(), flag.clone());
            }
            let reply = st
                .run_blocking(flag, move |svc, cancel| mcp::run_call(svc, &job, &session, cancel, &|_n| {}))
                .await
                .flatten();
            if let Some(s) = st.sessions.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&sid) {
                s.inflight.remove(&key);
            }
            match reply {
                Some(v) => json_response(StatusCode::OK, &v),
                None => StatusCode::ACCEPTED.into_response(),
            }
        }
    }
}

async fn mcp_delete(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let owner = match st.caller(&headers) {
        Ok(c) => c.map(|c| c.id).unwrap_or_default(),
        Err(r) => return r,
    };
    let Some(sid) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) else {
        return status(StatusCode::BAD_REQUEST, "missing MCP-Session-Id");
    };
    let mut sessions = st.sessions.lock().unwrap_or_else(|p| p.into_inner());
    if sessions.get(sid).is_some_and(|s| s.owner != owner) {
        return status(StatusCode::NOT_FOUND, "unknown or ended session");
    }
    match sessions.remove(sid) {
        Some(s) => {
            for f in s.inflight.values() {
                f.store(true, Ordering::SeqCst);
            }
            StatusCode::NO_CONTENT.into_response()
        }
        None => status(StatusCode::NOT_FOUND, "unknown or ended session"),
    }
}

async fn mcp_get() -> Response {
    (StatusCode::METHOD_NOT_ALLOWED, "this server opens no stream of its own: POST requests").into_response()
}

async fn agent_card(State(st): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let host = headers.get("host").and_then(|h| h.to_str().ok()).map(str::to_string).unwrap_or_else(|| format!("127.0.0.1:{}", st.port));
    json_response(StatusCode::OK, &super::a2a::agent_card(&st.svc, &format!("http://{host}"), st.tokens.is_some()))
}

async fn a2a_post(State(st): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    if !st.origin_ok(&headers) {
        return status(StatusCode::FORBIDDEN, "this Origin may not call this server");
    }
    let caller = match st.caller(&headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let version = headers.get("a2a-version").and_then(|v| v.to_str().ok()).map(str::to_string);
    let msg = match jsonrpc::parse(&body) {
        Ok(m) => m,
        Err(e) => return json_response(StatusCode::OK, &e),
    };
    match super::a2a::handle(&st, msg, caller, version).await {
        Some(v) => json_response(StatusCode::OK, &v),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// The router (for tests and for `serve`).
pub fn router(svc: Arc<Service>, opts: &HttpOptions) -> (Router, Arc<AppState>) {
    let state = Arc::new(AppState {
        svc,
        tokens: opts.tokens.clone(),
        origins: opts.allowed_origins.clone(),
        sessions: Mutex::new(HashMap::new()),
        workers: Arc::new(Semaphore::new(opts.workers.max(1))),
        a2a: super::a2a::Tasks::default(),
        port: opts.addr.port(),
    });
    let app = Router::new()
        .route("/mcp", post(mcp_post).delete(mcp_delete).get(mcp_get))
        .route("/a2a", post(a2a_post))
        .route("/.well-known/agent-card.json", get(agent_card))
        .layer(DefaultBodyLimit::max(jsonrpc::MAX_MESSAGE_BYTES))
        .with_state(state.clone());
    (app, state)
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
        let listener = tokio::net::TcpListener::bind(opts.addr).await.map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let (app, _) = router(svc, &HttpOptions { addr: local, ..opts });
        eprintln!("camber: serving MCP at http://{local}/mcp and A2A at http://{local}/a2a");
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| format!("the HTTP server failed: {e}"))
    })
}
