//! MCP tasks (the 2025-11-25 revision): a `tools/call` that carries `task` answers at once with
//! a task handle and runs on; the client polls `tasks/get`, fetches the call's own result with
//! `tasks/result` (which waits for the end), lists its tasks and may cancel one. Tasks belong
//! to whoever created them (a token's digest over HTTP, the connection over stdio): another
//! caller's task is "not found", as an unknown one is. Transport-independent: the transports
//! run the call and wait for results in their own way.
//!
//! Replicas behind a load balancer share tasks through a [`Shelf`] (the store's bucket): each
//! task is written there when it is created, as its progress goes (at most once a second), when
//! it ends and when it is cancelled, so
//! `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` answer on any replica, and a
//! cancel taken by another replica stops the call where it runs.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::jsonrpc::{self, INVALID_PARAMS};
use super::mcp::{CallJob, Notify};

/// How long a task is kept when the client asks for no particular time, and the longest it
/// may ask for (in ms).
pub const DEFAULT_TTL_MS: u64 = 10 * 60 * 1000;
pub const MAX_TTL_MS: u64 = 60 * 60 * 1000;
/// How often a client should poll a running task (ms).
pub const POLL_INTERVAL_MS: u64 = 250;
/// Tasks one caller may hold; one more ends its oldest finished one (a caller whose tasks
/// are all running is refused).
pub const PER_CALLER: usize = 1000;
/// Tasks per `tasks/list` page.
pub const LIST_PAGE: usize = 100;

/// The `_meta` key that ties a `tasks/result` to its task.
const RELATED: &str = "io.modelcontextprotocol/related-task";

struct Entry {
    owner: String,
    status: &'static str,
    message: Option<String>,
    created: String,
    updated: String,
    ttl_ms: u64,
    born: Instant,
    /// When its progress was last written to the shelf (at most once a second).
    shelved_progress: Option<Instant>,
    /// The call's JSON-RPC answer (a result or an error), once it ended.
    outcome: Option<Value>,
    cancel: Arc<AtomicBool>,
}

impl Entry {
    fn terminal(&self) -> bool {
        matches!(self.status, "completed" | "failed" | "cancelled")
    }

    fn json(&self, id: &str) -> Value {
        let mut t = json!({
            "taskId": id, "status": self.status, "createdAt": self.created, "lastUpdatedAt": self.updated,
            "ttl": self.ttl_ms, "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(m) = &self.message {
            t["statusMessage"] = json!(m);
        }
        t
    }
}

/// Where the replicas of one deployment keep their tasks: JSON documents by key (the store's
/// bucket, under `_camber_tasks/`). Reads and writes may block on the network: the transports
/// call into [`Tasks`] off their async threads.
pub trait Shelf: Send + Sync + std::fmt::Debug {
    fn put(&self, key: &str, v: &Value) -> Result<(), String>;
    fn get(&self, key: &str) -> Option<Value>;
    /// The keys under `prefix`.
    fn list(&self, prefix: &str) -> Vec<String>;
    fn delete(&self, key: &str);
}

/// The tasks of one server.
#[derive(Default)]
pub struct Tasks {
    inner: Mutex<Inner>,
    shelf: Option<Arc<dyn Shelf>>,
}

/// The shelf prefix of an owner's tasks: a digest, so no token's digest or label is a key.
fn owner_prefix(owner: &str) -> String {
    format!("{}/{}/", camber_common::TASKS_DIR, &camber_common::canonical::sha256_hex(owner.as_bytes())[..32])
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A task as another replica wrote it: its wire form, its outcome and when it expires.
struct Shelved {
    task: Value,
    outcome: Option<Value>,
}

impl Shelved {
    fn status(&self) -> &str {
        self.task["status"].as_str().unwrap_or_default()
    }
}

#[derive(Default)]
struct Inner {
    map: HashMap<String, Entry>,
    /// Each caller's task ids, oldest first.
    order: HashMap<String, VecDeque<String>>,
    /// Shelf keys of tasks swept here, to be deleted from the shelf (see
    /// [`Tasks::take_remote_cancels`], which does it off the lock).
    swept: Vec<String>,
    /// Whether there is a shelf to delete them from.
    shelved: bool,
}

impl Inner {
    /// Forget tasks past their time to live.
    fn sweep(&mut self, now: Instant) {
        let gone: Vec<String> = self
            .map
            .iter()
            .filter(|(_, e)| e.terminal() && now.saturating_duration_since(e.born) >= Duration::from_millis(e.ttl_ms))
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            if let Some(e) = self.map.remove(&k) {
                if let Some(o) = self.order.get_mut(&e.owner) {
                    o.retain(|x| x != &k);
                }
                if self.shelved {
                    self.swept.push(format!("{}{k}.json", owner_prefix(&e.owner)));
                }
            }
        }
    }

    fn mine(&self, id: &str, owner: &str) -> Option<&Entry> {
        self.map.get(id).filter(|e| e.owner == owner)
    }
}

/// A task's "not found" (an unknown id, another caller's, or one past its time to live).
fn not_found(id: Value) -> Value {
    jsonrpc::error(id, INVALID_PARAMS, "Invalid params: no such task (unknown, another caller's, or expired)")
}

/// What a tasks request comes to.
pub enum Answer {
    Reply(Value),
    /// `tasks/result` of a task still running: wait for [`Tasks::result`] to have it.
    Wait {
        id: Value,
        task: String,
    },
}

impl Tasks {
    /// Tasks shared with the other replicas through `shelf`.
    pub fn shared(shelf: Arc<dyn Shelf>) -> Tasks {
        let inner = Inner { shelved: true, ..Inner::default() };
        Tasks { inner: Mutex::new(inner), shelf: Some(shelf) }
    }

    /// Whether tasks are shared (a caller then looks them up off its async threads).
    pub fn is_shared(&self) -> bool {
        self.shelf.is_some()
    }

    /// What a task is on the shelf (its key; its wire form, its outcome, when it expires),
    /// made under the lock and written after it (see [`Tasks::put`]).
    fn shelf_doc(&self, id: &str, e: &Entry) -> Option<(String, Value)> {
        self.shelf.as_ref()?;
        let expires = now_ms() + e.ttl_ms + if e.terminal() { 0 } else { MAX_TTL_MS };
        let doc = json!({"task": e.json(id), "outcome": e.outcome, "expires_ms": expires});
        Some((format!("{}{id}.json", owner_prefix(&e.owner)), doc))
    }

    /// Write a task's shelf document (outside the lock: it is a request to the bucket).
    fn put(&self, doc: Option<(String, Value)>) {
        if let (Some(shelf), Some((key, v))) = (&self.shelf, doc) {
            let _ = shelf.put(&key, &v);
        }
    }

    /// A task of `owner` that another replica shelved (none when unknown or expired).
    fn shelved(&self, owner: &str, id: &str) -> Option<Shelved> {
        let shelf = self.shelf.as_ref()?;
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = shelf.get(&format!("{}{id}.json", owner_prefix(owner)))?;
        if v["expires_ms"].as_u64().unwrap_or(0) < now_ms() {
            return None;
        }
        Some(Shelved { task: v["task"].clone(), outcome: v.get("outcome").filter(|o| !o.is_null()).cloned() })
    }

    /// Stop the local calls whose tasks another replica cancelled (see [`Shelf`]), and delete
    /// from the shelf the tasks swept here past their time to live; returns how many calls it
    /// stopped.
    pub fn take_remote_cancels(&self) -> usize {
        let Some(shelf) = &self.shelf else { return 0 };
        let (working, swept): (Vec<(String, String)>, Vec<String>) = {
            let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            g.sweep(Instant::now());
            let w = g
                .map
                .iter()
                .filter(|(_, e)| e.status == "working")
                .map(|(k, e)| (k.clone(), e.owner.clone()))
                .collect();
            (w, std::mem::take(&mut g.swept))
        };
        for key in swept {
            shelf.delete(&key);
        }
        let mut stopped = 0;
        for (id, owner) in working {
            let Some(v) = shelf.get(&format!("{}{id}.json", owner_prefix(&owner))) else { continue };
            if v["task"]["status"] == "cancelled" {
                let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(e) = g.map.get_mut(&id).filter(|e| e.status == "working") {
                    e.cancel.store(true, Ordering::SeqCst);
                    e.status = "cancelled";
                    e.message = Some("cancelled by the client".into());
                    e.updated = camber_common::ids::utc_now();
                    stopped += 1;
                }
            }
        }
        stopped
    }

    /// A new task for `owner`, with the time to live asked for (bounded), or why there is
    /// none. Returns its id, its `CreateTaskResult` and the flag that cancels its call.
    pub fn create(&self, owner: &str, ttl_ms: Option<u64>) -> Result<(String, Value, Arc<AtomicBool>), String> {
        let id = camber_common::ids::random_hex()?;
        let now = camber_common::ids::utc_now();
        let entry = Entry {
            owner: owner.to_string(),
            status: "working",
            message: None,
            created: now.clone(),
            updated: now,
            ttl_ms: ttl_ms.unwrap_or(DEFAULT_TTL_MS).clamp(1000, MAX_TTL_MS),
            born: Instant::now(),
            shelved_progress: None,
            outcome: None,
            cancel: Arc::new(AtomicBool::new(false)),
        };
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.sweep(Instant::now());
        let Inner { map, order, .. } = &mut *g;
        let mine = order.entry(owner.to_string()).or_default();
        if mine.len() >= PER_CALLER {
            let oldest_done = mine.iter().position(|k| map.get(k).is_none_or(Entry::terminal));
            match oldest_done {
                Some(i) => {
                    if let Some(k) = mine.remove(i) {
                        map.remove(&k);
                    }
                }
                None => return Err(format!("this caller already has {PER_CALLER} tasks running")),
            }
        }
        mine.push_back(id.clone());
        let created = json!({"task": entry.json(&id)});
        let flag = entry.cancel.clone();
        let doc = self.shelf_doc(&id, &entry);
        map.insert(id.clone(), entry);
        drop(g);
        self.put(doc);
        Ok((id, created, flag))
    }

    /// The call behind task `id` ended with this JSON-RPC answer (`None`: it was stopped by
    /// a cancel). A cancelled task stays cancelled. Returns the task's status notification.
    pub fn finish(&self, id: &str, answer: Option<Value>) -> Option<Value> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let e = g.map.get_mut(id)?;
        let mut answer = answer.unwrap_or_else(|| cancelled_result(Value::Null));
        if let Some(obj) = answer.as_object_mut() {
            obj.remove("id");
        }
        if e.status == "working" {
            let (status, message) = match (&answer.get("error"), answer["result"]["isError"].as_bool()) {
                (Some(err), _) => ("failed", err["message"].as_str().map(str::to_string)),
                (None, Some(true)) => ("failed", answer["result"]["content"][0]["text"].as_str().map(str::to_string)),
                _ => ("completed", None),
            };
            e.status = status;
            e.message = message.map(|m| m.chars().take(300).collect());
            e.updated = camber_common::ids::utc_now();
        }
        if e.status == "cancelled" {
            answer = cancelled_result(Value::Null);
        }
        e.outcome = Some(answer);
        let note = jsonrpc::notification("notifications/tasks/status", e.json(id));
        let doc = self.shelf_doc(id, &g.map[id]);
        drop(g);
        self.put(doc);
        Some(note)
    }

    /// A running task's progress, as its status message: a client polling `tasks/get` sees
    /// how far the call has gone without a stream.
    pub fn progress(&self, id: &str, percent: u64, message: &str) {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = g.map.get_mut(id).filter(|e| e.status == "working") {
            let m = if message.is_empty() { format!("{percent} %") } else { format!("{percent} %: {message}") };
            e.message = Some(m.chars().take(300).collect());
            e.updated = camber_common::ids::utc_now();
            // the other replicas see it too, at most once a second
            if self.shelf.is_some() && e.shelved_progress.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                e.shelved_progress = Some(Instant::now());
                let doc = self.shelf_doc(id, &g.map[id]);
                drop(g);
                self.put(doc);
            }
        }
    }

    /// Answer `tasks/get`, `tasks/result`, `tasks/list` or `tasks/cancel` for `owner`.
    pub fn answer(&self, owner: &str, id: Value, method: &str, params: &Value) -> Answer {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        g.sweep(Instant::now());
        let task = params.get("taskId").and_then(Value::as_str).unwrap_or_default().to_string();
        match method {
            "tasks/get" => {
                if let Some(e) = g.mine(&task, owner) {
                    return Answer::Reply(jsonrpc::result(id, e.json(&task)));
                }
                // another replica's, maybe: looked up off the lock
                drop(g);
                Answer::Reply(match self.shelved(owner, &task) {
                    Some(s) => jsonrpc::result(id, s.task),
                    None => not_found(id),
                })
            }
            "tasks/result" => match g.mine(&task, owner) {
                Some(e) if e.outcome.is_some() => Answer::Reply(with_related(id, e.outcome.clone(), &task)),
                Some(_) => Answer::Wait { id, task },
                None => {
                    drop(g);
                    match self.shelved(owner, &task) {
                        None => Answer::Reply(not_found(id)),
                        Some(s) if s.outcome.is_some() => Answer::Reply(with_related(id, s.outcome, &task)),
                        Some(_) => Answer::Wait { id, task },
                    }
                }
            },
            "tasks/cancel" => {
                let Some(e) = g.map.get_mut(&task).filter(|e| e.owner == owner) else {
                    drop(g);
                    return Answer::Reply(self.cancel_shelved(owner, id, &task));
                };
                if e.terminal() {
                    let m = format!("Invalid params: the task has ended ({}) and cannot be cancelled", e.status);
                    return Answer::Reply(jsonrpc::error(id, INVALID_PARAMS, &m));
                }
                e.cancel.store(true, Ordering::SeqCst);
                e.status = "cancelled";
                e.message = Some("cancelled by the client".into());
                e.updated = camber_common::ids::utc_now();
                let reply = jsonrpc::result(id, e.json(&task));
                let doc = self.shelf_doc(&task, &g.map[&task]);
                drop(g);
                self.put(doc);
                Answer::Reply(reply)
            }
            _ => {
                let offset = match params.get("cursor") {
                    None | Some(Value::Null) => 0,
                    Some(c) => match c.as_str().and_then(|c| c.strip_prefix("offset:")).and_then(|n| n.parse().ok()) {
                        Some(n) => n,
                        None => {
                            return Answer::Reply(jsonrpc::error(id, INVALID_PARAMS, "Invalid params: unknown cursor"))
                        }
                    },
                };
                // this replica's tasks, then the ones the others shelved, oldest first
                let mut all: Vec<Value> = g
                    .order
                    .get(owner)
                    .map(|o| o.iter().filter_map(|k| g.map.get(k).map(|e| e.json(k))).collect())
                    .unwrap_or_default();
                drop(g);
                if let Some(shelf) = &self.shelf {
                    let prefix = owner_prefix(owner);
                    let local: std::collections::HashSet<String> =
                        all.iter().filter_map(|t| t["taskId"].as_str().map(str::to_string)).collect();
                    for key in shelf.list(&prefix) {
                        let tid = key[prefix.len()..].trim_end_matches(".json").to_string();
                        if !local.contains(&tid) {
                            if let Some(s) = self.shelved(owner, &tid) {
                                all.push(s.task);
                            }
                        }
                    }
                    all.sort_by(|a, b| a["createdAt"].as_str().cmp(&b["createdAt"].as_str()));
                }
                let ids = &all;
                if offset > ids.len() {
                    return Answer::Reply(jsonrpc::error(id, INVALID_PARAMS, "Invalid params: unknown cursor"));
                }
                let page: Vec<Value> = ids.iter().skip(offset).take(LIST_PAGE).cloned().collect();
                let mut r = json!({"tasks": page});
                if offset + LIST_PAGE < ids.len() {
                    r["nextCursor"] = json!(format!("offset:{}", offset + LIST_PAGE));
                }
                Answer::Reply(jsonrpc::result(id, r))
            }
        }
    }

    /// The `tasks/result` answer of task `task`, once its call has ended (`None` while it
    /// runs); not found once it is gone.
    pub fn result(&self, owner: &str, id: &Value, task: &str) -> Option<Value> {
        let g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        match g.mine(task, owner) {
            None => {
                drop(g);
                match self.shelved(owner, task) {
                    None => Some(not_found(id.clone())),
                    Some(s) => s.outcome.map(|o| with_related(id.clone(), Some(o), task)),
                }
            }
            Some(e) => e.outcome.as_ref().map(|o| with_related(id.clone(), Some(o.clone()), task)),
        }
    }

    /// `tasks/cancel` of a task another replica runs: marked cancelled on the shelf, where
    /// that replica finds it (see [`Tasks::take_remote_cancels`]).
    fn cancel_shelved(&self, owner: &str, id: Value, task: &str) -> Value {
        let (Some(shelf), Some(mut s)) = (&self.shelf, self.shelved(owner, task)) else { return not_found(id) };
        if s.status() != "working" {
            let m = format!("Invalid params: the task has ended ({}) and cannot be cancelled", s.status());
            return jsonrpc::error(id, INVALID_PARAMS, &m);
        }
        s.task["status"] = json!("cancelled");
        s.task["statusMessage"] = json!("cancelled by the client");
        s.task["lastUpdatedAt"] = json!(camber_common::ids::utc_now());
        let ttl = s.task["ttl"].as_u64().unwrap_or(DEFAULT_TTL_MS);
        let doc = json!({"task": s.task, "outcome": cancelled_result(Value::Null), "expires_ms": now_ms() + ttl});
        let _ = shelf.put(&format!("{}{task}.json", owner_prefix(owner)), &doc);
        jsonrpc::result(id, s.task)
    }
}

/// The job and the notifier a task's call runs with: its progress (under the client's token,
/// or one of the task's own when the client sent none) becomes the task's status message, and
/// reaches `send` only when the client asked for it.
pub fn watched(tasks: Arc<Tasks>, task: &str, mut job: CallJob, send: Notify) -> (CallJob, Notify) {
    let asked = job.progress_token.is_some();
    if !asked {
        job.progress_token = Some(json!(format!("task:{task}")));
    }
    let task = task.to_string();
    let notify: Notify = Arc::new(move |v: Value| {
        if v["method"] == "notifications/progress" {
            let p = &v["params"];
            tasks.progress(&task, p["progress"].as_u64().unwrap_or(0), p["message"].as_str().unwrap_or(""));
            if !asked {
                return;
            }
        }
        send(v);
    });
    (job, notify)
}

/// A cancelled call's result: a tool error saying so.
fn cancelled_result(id: Value) -> Value {
    jsonrpc::result(
        id,
        json!({"content": [{"type": "text", "text": "timeout: the task was cancelled and its call stopped"}], "isError": true, "_meta": {"camber/error": {"code": "timeout", "data": {"cancelled": true}}}}),
    )
}

/// The stored answer of a task under the request's id, its result tied to the task.
fn with_related(id: Value, outcome: Option<Value>, task: &str) -> Value {
    let mut v = outcome.unwrap_or_else(|| cancelled_result(Value::Null));
    v["id"] = id;
    v["jsonrpc"] = json!("2.0");
    if let Some(r) = v.get_mut("result").filter(|r| r.is_object()) {
        if !r.get("_meta").is_some_and(Value::is_object) {
            r["_meta"] = json!({});
        }
        r["_meta"][RELATED] = json!({"taskId": task});
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(a: Answer) -> Value {
        match a {
            Answer::Reply(v) => v,
            Answer::Wait { .. } => panic!("waits"),
        }
    }

    #[test]
    fn a_task_runs_ends_and_is_its_owners_only() {
        let t = Tasks::default();
        let (id, created, flag) = t.create("tok", Some(5)).unwrap();
        assert_eq!(created["task"]["status"], "working");
        assert_eq!(created["task"]["ttl"], 1000, "a time to live is at least a second");
        let get = json!({"taskId": id});
        assert!(matches!(t.answer("tok", json!(1), "tasks/result", &get), Answer::Wait { .. }));
        // another caller sees nothing of it
        for m in ["tasks/get", "tasks/result", "tasks/cancel"] {
            assert_eq!(reply(t.answer("other", json!(2), m, &get))["error"]["code"], -32602, "{m}");
        }
        assert_eq!(reply(t.answer("other", json!(2), "tasks/list", &json!({})))["result"]["tasks"], json!([]));
        let note = t.finish(&id, Some(jsonrpc::result(json!(7), json!({"content": [], "isError": false})))).unwrap();
        assert_eq!(note["params"]["status"], "completed");
        let r = reply(t.answer("tok", json!(3), "tasks/result", &get));
        assert_eq!(r["id"], 3);
        assert_eq!(r["result"]["_meta"][RELATED]["taskId"], id);
        assert_eq!(reply(t.answer("tok", json!(4), "tasks/cancel", &get))["error"]["code"], -32602, "ended");
        assert!(!flag.load(Ordering::SeqCst));
        assert_eq!(reply(t.answer("tok", json!(5), "tasks/list", &json!({})))["result"]["tasks"][0]["taskId"], id);
        assert_eq!(reply(t.answer("tok", json!(6), "tasks/list", &json!({"cursor": "x"})))["error"]["code"], -32602);
    }

    #[test]
    fn a_cancelled_task_stops_its_call_and_stays_cancelled() {
        let t = Tasks::default();
        let (id, _, flag) = t.create("tok", None).unwrap();
        let c = reply(t.answer("tok", json!(1), "tasks/cancel", &json!({"taskId": id})));
        assert_eq!(c["result"]["status"], "cancelled");
        assert!(flag.load(Ordering::SeqCst), "the call is told to stop");
        // the call then ends (stopped, or with a result that came too late): still cancelled
        t.finish(&id, Some(jsonrpc::result(json!(1), json!({"content": [], "isError": false}))));
        let g = reply(t.answer("tok", json!(2), "tasks/get", &json!({"taskId": id})));
        assert_eq!(g["result"]["status"], "cancelled");
        let r = reply(t.answer("tok", json!(3), "tasks/result", &json!({"taskId": id})));
        assert_eq!(r["result"]["isError"], true);
    }

    /// A shelf in memory, as two replicas' [`Tasks`] share one.
    #[derive(Debug, Default)]
    struct MemShelf(Mutex<std::collections::BTreeMap<String, Value>>);

    impl Shelf for MemShelf {
        fn put(&self, key: &str, v: &Value) -> Result<(), String> {
            self.0.lock().unwrap().insert(key.to_string(), v.clone());
            Ok(())
        }
        fn get(&self, key: &str) -> Option<Value> {
            self.0.lock().unwrap().get(key).cloned()
        }
        fn list(&self, prefix: &str) -> Vec<String> {
            self.0.lock().unwrap().keys().filter(|k| k.starts_with(prefix)).cloned().collect()
        }
        fn delete(&self, key: &str) {
            self.0.lock().unwrap().remove(key);
        }
    }

    #[test]
    fn shared_tasks_answer_on_the_other_replica_with_their_progress_and_a_cancel_crosses_over() {
        let shelf: Arc<dyn Shelf> = Arc::new(MemShelf::default());
        let (a, b) = (Tasks::shared(shelf.clone()), Tasks::shared(shelf.clone()));
        let (id, _, flag) = a.create("tok", None).unwrap();
        let get = |t: &Tasks, owner: &str| reply(t.answer(owner, json!(2), "tasks/get", &json!({"taskId": id})));
        assert_eq!(get(&b, "tok")["result"]["status"], "working");
        assert_eq!(get(&b, "other")["error"]["code"], INVALID_PARAMS, "another caller's task is not found");
        a.progress(&id, 20, "one");
        a.progress(&id, 40, "two");
        assert_eq!(
            get(&b, "tok")["result"]["statusMessage"],
            "20 %: one",
            "the first report, then at most one a second"
        );
        let listed = reply(b.answer("tok", json!(3), "tasks/list", &json!({})));
        assert_eq!(listed["result"]["tasks"][0]["taskId"], id.as_str());
        assert!(matches!(b.answer("tok", json!(4), "tasks/result", &json!({"taskId": id})), Answer::Wait { .. }));
        let c = reply(b.answer("tok", json!(5), "tasks/cancel", &json!({"taskId": id})));
        assert_eq!(c["result"]["status"], "cancelled");
        assert_eq!(a.take_remote_cancels(), 1);
        assert!(flag.load(Ordering::SeqCst), "the call on A is told to stop");
        a.finish(&id, None);
        let r = b.result("tok", &json!(6), &id).unwrap();
        assert_eq!(r["result"]["isError"], true, "{r}");
        // a task past its time to live is swept where it ran, and from the shelf
        let (short, _, _) = a.create("tok", Some(1000)).unwrap();
        a.finish(&short, Some(jsonrpc::result(json!(7), json!({"content": []}))));
        assert_eq!(shelf.list("").len(), 2);
        std::thread::sleep(Duration::from_millis(1100));
        a.take_remote_cancels();
        let left = shelf.list("");
        assert!(left.len() == 1 && !left[0].contains(&short), "{left:?}");
    }

    #[test]
    fn a_tasks_progress_is_its_status_message_and_reaches_the_client_only_when_asked() {
        let t = Arc::new(Tasks::default());
        let (id, _, _) = t.create("tok", None).unwrap();
        let sent: Arc<Mutex<Vec<Value>>> = Arc::default();
        let sink = sent.clone();
        let send: Notify = Arc::new(move |v| sink.lock().unwrap().push(v));
        let job = |token: Option<Value>| CallJob {
            id: json!(1),
            name: "rule_run".into(),
            args: json!({}),
            progress_token: token,
            session: crate::mcp::Session::new("t", None),
            task: Some(crate::mcp::TaskAsk { ttl_ms: None }),
        };
        let (j, notify) = watched(t.clone(), &id, job(None), send.clone());
        assert!(j.progress_token.is_some(), "a token of the task's own");
        let note = |pct: u64| {
            jsonrpc::notification(
                "notifications/progress",
                json!({"progressToken": "x", "progress": pct, "total": 100, "message": "rules: AHU-3 (5 of 14)"}),
            )
        };
        notify(note(35));
        notify(jsonrpc::notification("notifications/message", json!({"level": "info", "data": "line"})));
        let g = reply(t.answer("tok", json!(2), "tasks/get", &json!({"taskId": id})));
        assert_eq!(g["result"]["statusMessage"], "35 %: rules: AHU-3 (5 of 14)");
        assert_eq!(sent.lock().unwrap().len(), 1, "only the log message: the client sent no token");
        let (_, notify) = watched(t.clone(), &id, job(Some(json!("mine"))), send);
        notify(note(50));
        assert_eq!(sent.lock().unwrap().len(), 2, "the client's own token: its progress too");
    }

    #[test]
    fn a_failed_call_is_a_failed_task() {
        let t = Tasks::default();
        let (a, _, _) = t.create("tok", None).unwrap();
        let (b, _, _) = t.create("tok", None).unwrap();
        t.finish(
            &a,
            Some(jsonrpc::result(
                json!(1),
                json!({"content": [{"type": "text", "text": "not_found: no"}], "isError": true}),
            )),
        );
        t.finish(&b, Some(jsonrpc::error(json!(1), -32602, "Unknown tool: x")));
        for (id, m) in [(a, "not_found: no"), (b, "Unknown tool: x")] {
            let g = reply(t.answer("tok", json!(2), "tasks/get", &json!({"taskId": id})));
            assert_eq!(
                (g["result"]["status"].clone(), g["result"]["statusMessage"].clone()),
                (json!("failed"), json!(m))
            );
        }
    }
}
