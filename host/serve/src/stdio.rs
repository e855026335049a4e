//! MCP over stdio: newline-delimited JSON-RPC on stdin and stdout, logs on stderr (through
//! [`super::log`], so a client that stops reading stderr slows nothing). Calls run on a
//! bounded pool of worker threads, so a slow call does not hold up `ping` or a cancel; a
//! `notifications/cancelled` stops its guest at once. A panic while a call runs answers that
//! call `internal` and the worker goes on; a worker lost anyway is replaced (and the log says
//! so). When stdin closes, the calls already asked are answered (each within its deadline)
//! and the server exits.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::Value;

use super::jsonrpc;
use super::log;
use super::mcp::{self, Action, Session};
use super::tasks::{Answer, Tasks};

/// Whose tasks a stdio connection's are: the connection's own (one client per process).
const OWNER: &str = "stdio";
use super::Service;

/// A call, the flag that cancels it, and the task it runs as (if any).
type Job = (mcp::CallJob, Arc<AtomicBool>, Option<String>);

/// Writes one line, its newline included, to stdout.
type WriteLine = dyn Fn(&[u8]) + Send + Sync;

/// Writes one message as a line of stdout.
#[derive(Clone)]
struct Sender(Arc<WriteLine>);

impl Sender {
    /// `m` and its newline in one write, so the client wakes once for it.
    fn send(&self, m: &impl serde::Serialize) {
        let mut line = serde_json::to_vec(m).unwrap_or_default();
        line.push(b'\n');
        (self.0)(&line);
    }
}

/// What the call workers share.
struct Pool {
    svc: Arc<Service>,
    jobs: Mutex<Receiver<Job>>,
    send: Sender,
    inflight: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>,
    /// The connection's tasks.
    tasks: Arc<Tasks>,
    /// `tasks/result` requests waiting for their task to end, by task: answered by the worker
    /// that ends it (no thread waits).
    waiting: Mutex<HashMap<String, Vec<Value>>>,
    /// Every worker started (replacements too), joined at the end.
    handles: Mutex<Vec<JoinHandle<()>>>,
}

/// Starts a replacement when its worker thread unwinds (a panic outside any call's
/// containment), so the pool never shrinks.
struct Respawn(Arc<Pool>);

impl Drop for Respawn {
    fn drop(&mut self) {
        if std::thread::panicking() {
            log::line("camber: a call worker stopped after a panic; started another in its place");
            spawn_worker(&self.0);
        }
    }
}

fn spawn_worker(pool: &Arc<Pool>) {
    let p = pool.clone();
    let started = std::thread::Builder::new().name("camber-call".into()).spawn(move || {
        let _respawn = Respawn(p.clone());
        loop {
            let job = p.jobs.lock().unwrap_or_else(|e| e.into_inner()).recv();
            let Ok((job, cancel, task)) = job else { break };
            let send = p.send.clone();
            let notify: mcp::Notify = Arc::new(move |v: Value| send.send(&v));
            // a task's progress is its status message too
            let (job, notify) = match &task {
                Some(t) => super::tasks::watched(p.tasks.clone(), t, job, notify),
                None => (job, notify),
            };
            let reply = catch_unwind(AssertUnwindSafe(|| mcp::run_call(&p.svc, &job, cancel, notify)));
            p.inflight.lock().unwrap_or_else(|e| e.into_inner()).remove(&job.id.to_string());
            let reply = reply.unwrap_or_else(|_| {
                log::line("camber: a call panicked in the server; answered internal");
                Some(mcp::internal_error(job.id.clone()).into())
            });
            match (&task, reply) {
                // a task's answer is kept for tasks/result; the client hears that it ended
                (Some(t), r) => {
                    let note = p.tasks.finish(t, r.map(jsonrpc::Message::into_value));
                    let waiting = p.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(t).unwrap_or_default();
                    for id in waiting {
                        if let Some(v) = p.tasks.result(OWNER, &id, t) {
                            p.send.send(&v);
                        }
                    }
                    if let Some(note) = note {
                        p.send.send(&note);
                    }
                }
                (None, Some(r)) => p.send.send(&r),
                (None, None) => {}
            }
            #[cfg(debug_assertions)]
            test_hooks::worker_panic(&job.name);
        }
    });
    match started {
        Ok(h) => p_handles(pool).push(h),
        Err(e) => log::line(format!("camber: cannot start a call worker: {e}")),
    }
}

fn p_handles(pool: &Pool) -> std::sync::MutexGuard<'_, Vec<JoinHandle<()>>> {
    pool.handles.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serve until stdin closes. `workers` calls run at once.
pub fn serve(svc: Arc<Service>, workers: usize) -> std::io::Result<()> {
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let send = {
        let out = out.clone();
        Sender(Arc::new(move |line: &[u8]| {
            let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
            let _ = o.write_all(line);
            let _ = o.flush();
        }))
    };
    let inflight: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>> = Arc::new(Mutex::new(HashMap::new()));
    let (tx, rx) = mpsc::channel::<Job>();
    let pool = Arc::new(Pool {
        svc: svc.clone(),
        jobs: Mutex::new(rx),
        send: send.clone(),
        inflight: inflight.clone(),
        tasks: Arc::new(Tasks::default()),
        waiting: Mutex::new(HashMap::new()),
        handles: Mutex::new(Vec::new()),
    });
    for _ in 0..workers.max(1) {
        spawn_worker(&pool);
    }
    let mut session = Session::new("mcp:stdio", None);
    // watched resources: a thread looks at their facilities' store generations and says which
    // changed, until stdin closes
    let subs: mcp::Subscriptions = Arc::default();
    session.subscriptions = Some(subs.clone());
    let done = Arc::new(AtomicBool::new(false));
    {
        let (svc, send, done) = (svc.clone(), send.clone(), done.clone());
        let every = mcp::resource_poll_interval();
        let _ = std::thread::Builder::new().name("camber-resource-watch".into()).spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(every);
                let notes = catch_unwind(AssertUnwindSafe(|| mcp::changed_resources(&svc, &subs))).unwrap_or_default();
                for n in notes {
                    send.send(&n);
                }
            }
        });
    }
    // a reload that changed the tools or prompts: the client is told to list them again
    {
        let (mut rx, send) = (svc.subscribe(), send.clone());
        let _ = std::thread::Builder::new().name("camber-list-changed".into()).spawn(move || loop {
            let change = match rx.blocking_recv() {
                Ok(c) => c,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    crate::ListChange { tools: true, prompts: true, lines: Vec::new() }
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            for n in mcp::list_changed(&change) {
                send.send(&n);
            }
        });
    }
    let stdin = std::io::stdin();
    let mut line = Vec::new();
    let mut reader = stdin.lock();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        let trimmed: &[u8] = line.trim_ascii();
        if trimmed.is_empty() {
            continue;
        }
        let msg = match jsonrpc::parse(trimmed) {
            Ok(m) => m,
            Err(e) => {
                send.send(&e);
                continue;
            }
        };
        match mcp::handle_contained(&svc, msg, &mut session) {
            Action::Reply(r) => send.send(&r),
            Action::Prompt(job) => {
                let r = catch_unwind(AssertUnwindSafe(|| mcp::run_prompt(&svc, &job)));
                send.send(&r.unwrap_or_else(|_| {
                    log::line("camber: a prompt panicked in the server; answered internal");
                    mcp::internal_error(job.id.clone())
                }));
            }
            Action::Complete(job) => {
                let r = catch_unwind(AssertUnwindSafe(|| mcp::run_complete(&svc, &job)));
                send.send(&r.unwrap_or_else(|_| mcp::internal_error(job.id.clone())));
            }
            Action::Resource(job) => {
                let r = catch_unwind(AssertUnwindSafe(|| mcp::run_resource(&svc, &job)));
                send.send(&r.unwrap_or_else(|_| mcp::internal_error(job.id.clone())));
            }
            Action::Nothing => {}
            Action::Cancel(id) => {
                if let Some(flag) = inflight.lock().unwrap_or_else(|p| p.into_inner()).get(&id.to_string()) {
                    flag.store(true, Ordering::SeqCst);
                }
            }
            Action::Call(job) if job.task.is_some() => {
                // answered at once with the task; the call runs on (a cancel of the request
                // does not stop a task: tasks/cancel does)
                match pool.tasks.create(OWNER, job.task.and_then(|t| t.ttl_ms)) {
                    Ok((task, created, flag)) => {
                        send.send(&jsonrpc::result(job.id.clone(), created));
                        let _ = tx.send((job, flag, Some(task)));
                    }
                    Err(why) => send.send(&jsonrpc::error(job.id.clone(), jsonrpc::INVALID_REQUEST, &why)),
                }
            }
            Action::Call(job) => {
                let flag = Arc::new(AtomicBool::new(false));
                inflight.lock().unwrap_or_else(|p| p.into_inner()).insert(job.id.to_string(), flag.clone());
                let _ = tx.send((job, flag, None));
            }
            Action::Tasks { id, method, params } => match pool.tasks.answer(OWNER, id, &method, &params) {
                Answer::Reply(v) => send.send(&v),
                Answer::Wait { id, task } => {
                    // tasks/result of a running task is answered when the task ends; under the
                    // waiting list's lock, so the worker ending it either sees this request or
                    // has ended it already
                    let mut waiting = pool.waiting.lock().unwrap_or_else(|p| p.into_inner());
                    match pool.tasks.result(OWNER, &id, &task) {
                        Some(v) => send.send(&v),
                        None => waiting.entry(task).or_default().push(id),
                    }
                }
            },
        }
    }
    // stdin closed: answer what was asked (each call is bounded by its deadline), then stop;
    // a worker replaced meanwhile is joined too
    done.store(true, Ordering::Relaxed);
    drop(tx);
    loop {
        let next = p_handles(&pool).pop();
        match next {
            Some(h) => {
                let _ = h.join();
            }
            None => break,
        }
    }
    Ok(())
}

/// Test-only faults, compiled into debug builds only (the tests drive a debug `camber`).
#[cfg(debug_assertions)]
mod test_hooks {
    /// `CAMBER_TEST_WORKER_PANIC=<capability>`: after answering a call of that capability, its
    /// worker thread panics outside any call's containment, as a bug in the worker loop
    /// would; the pool must replace it. Only the serving tests set it.
    pub fn worker_panic(name: &str) {
        if std::env::var_os("CAMBER_TEST_WORKER_PANIC").is_some_and(|v| v == name) {
            panic!("test-only worker panic (CAMBER_TEST_WORKER_PANIC)");
        }
    }
}
