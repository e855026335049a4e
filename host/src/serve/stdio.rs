//! MCP over stdio: newline-delimited JSON-RPC on stdin and stdout, logs on stderr. Calls run on
//! a bounded pool of worker threads, so a slow call does not hold up `ping` or a cancel; a
//! `notifications/cancelled` stops its guest at once. When stdin closes, the calls already
//! asked are answered (each within its deadline) and the server exits.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::jsonrpc;
use super::mcp::{self, Action, Session};
use super::Service;

/// Serve until stdin closes. `workers` calls run at once.
pub fn serve(svc: Arc<Service>, workers: usize) -> std::io::Result<()> {
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let send = {
        let out = out.clone();
        move |v: &Value| {
            let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
            let _ = writeln!(o, "{}", serde_json::to_string(v).unwrap_or_default());
            let _ = o.flush();
        }
    };
    let send = Arc::new(send);
    let inflight: Arc<Mutex<HashMap<String, Arc<AtomicBool>>>> = Arc::new(Mutex::new(HashMap::new()));
    let (tx, rx) = mpsc::channel::<(mcp::CallJob, Session, Arc<AtomicBool>)>();
    let rx = Arc::new(Mutex::new(rx));
    let mut pool = Vec::new();
    for _ in 0..workers.max(1) {
        let rx = rx.clone();
        let svc = svc.clone();
        let send = send.clone();
        let inflight = inflight.clone();
        pool.push(std::thread::spawn(move || loop {
            let job = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
            let Ok((job, session, cancel)) = job else { break };
            let notify = |v: Value| send(&v);
            let reply = mcp::run_call(&svc, &job, &session, cancel, &notify);
            inflight.lock().unwrap_or_else(|p| p.into_inner()).remove(&job.id.to_string());
            if let Some(r) = reply {
                send(&r);
            }
        }));
    }
    let mut session = Session::new("mcp:stdio", None);
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
                send(&e);
                continue;
            }
        };
        match mcp::handle(&svc, msg, &mut session) {
            Action::Reply(r) => send(&r),
            Action::Prompt(job) => send(&mcp::run_prompt(&svc, &job)),
            Action::Nothing => {}
            Action::Cancel(id) => {
                if let Some(flag) = inflight.lock().unwrap_or_else(|p| p.into_inner()).get(&id.to_string()) {
                    flag.store(true, Ordering::SeqCst);
                }
            }
            Action::Call(job) => {
                let flag = Arc::new(AtomicBool::new(false));
                inflight.lock().unwrap_or_else(|p| p.into_inner()).insert(job.id.to_string(), flag.clone());
                let _ = tx.send((job, session.clone(), flag));
            }
        }
    }
    // stdin closed: answer what was asked (each call is bounded by its deadline), then stop
    drop(tx);
    for h in pool {
        let _ = h.join();
    }
    Ok(())
}
