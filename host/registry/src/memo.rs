//! Guest results kept between calls, so a call that asks again what was just answered on
//! unchanged data does not run its guest again.
//!
//! A capability is read-only: what its guest returns is decided by what it reads. The host
//! sees all of that: the arguments and the call's context (the allowlist, the trust floor, the
//! row cap, the caller), the run configs (their digest), the dataset catalog (built into the
//! host), the store through the watched host functions (which facilities it read, and their
//! generation: sizes, modification and status-change times of the registry, the catalogs and
//! each facility's files) and, through WASI, the clocks and random numbers (the runtime notes any read of them). A
//! result is kept when the guest returned one, read neither clocks nor randomness, failed no
//! store read and overlapped no rewrite (the fences held); it is reused only for a call with
//! the same inputs whose facilities read still have the generation they had. Everything the
//! pipeline does to a guest's result (the caps, the output schema, the facility check, the
//! call's token on every fact id, the citations, the text rules, the paths, the byte cap)
//! applies to a reused result as to a fresh one, for this call and this caller: the output of
//! the steps up to the paths is kept with the result under a digest of their other inputs
//! (the token, the licence banner, the caller's path-like values, the redactor's roots) and
//! made again when any differs; the evidence image and the byte cap run on every call.
//!
//! Each component keeps its own results (a reload that replaces the file drops them) within a
//! byte budget, the least recently used dropped first: `CAMBER_MEMO_MB` (16 by default; 0
//! keeps none). A quarter of it keeps the evidence charts the host drew for its results, each
//! reused only while the facility it was drawn from keeps its generation.

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;
use serde_json::json;

use camber_common::canonical::sha256_hex;
use camber_runtime::wit;

use crate::pipeline::Outgoing;

/// The most results one component keeps, whatever their size.
const MAX_ENTRIES: usize = 4096;

/// The memo's budget when `CAMBER_MEMO_MB` is not set: 16 MiB.
const DEFAULT_BUDGET: usize = 16 << 20;

/// The budget `CAMBER_MEMO_MB` asks for, in bytes (16 MiB when it is not set); an error that
/// names the variable when it is not a whole number of MiB.
pub fn budget_from_env() -> Result<usize, String> {
    match std::env::var("CAMBER_MEMO_MB") {
        Err(_) => Ok(DEFAULT_BUDGET),
        Ok(v) => v.trim().parse::<usize>().map(|mb| mb.saturating_mul(1 << 20)).map_err(|_| {
            format!(
                "CAMBER_MEMO_MB must be a whole number of MiB (0 turns the memo off), not '{}'",
                camber_common::text::one_line(&v)
            )
        }),
    }
}

/// What a kept result is filed under: a digest of everything the guest was given.
pub(crate) type MemoKey = String;

/// A guest's result with what it read.
pub(crate) struct Kept {
    pub result: wit::CallResult,
    /// The facilities the result was read from.
    pub read: BTreeSet<String>,
    /// Their generation when they were read, status-change times included
    /// (`StoreDir::derived_generation`; empty without a store): what must hold for a reuse.
    pub derived: String,
    /// Their generation for the call token (`StoreDir::generation`), the same while `derived`
    /// is.
    pub generation: String,
    /// The last output the policy steps made of it ([`crate::pipeline::finish`] up to the
    /// paths), under a digest of every input of those steps that the memo key does not hold:
    /// the call token, the licence wall's banner, the caller's path-like values and the
    /// redactor's roots. Kept with the result, so it goes when the result does.
    pub finished: Mutex<Option<(MemoKey, Arc<Outgoing>)>>,
}

impl Kept {
    /// A guest's result as the memo keeps it (no output of the policy steps yet).
    pub(crate) fn new(result: wit::CallResult, read: BTreeSet<String>, derived: String, generation: String) -> Kept {
        Kept { result, read, derived, generation, finished: Mutex::new(None) }
    }

    /// The policy steps' output kept under `key`, if that is the last one made.
    pub(crate) fn finished(&self, key: &str) -> Option<Arc<Outgoing>> {
        let f = self.finished.lock().ok()?;
        f.as_ref().filter(|(k, _)| k == key).map(|(_, o)| o.clone())
    }

    /// Keep the policy steps' output under `key` (in place of the last one).
    pub(crate) fn keep_finished(&self, key: MemoKey, o: Outgoing) {
        if let Ok(mut f) = self.finished.lock() {
            *f = Some((key, Arc::new(o)));
        }
    }
}

/// What an entry of a shelf weighs against its budget.
trait Weigh {
    fn bytes(&self) -> usize;
}

impl Weigh for Kept {
    /// Its text, and as much again twice for the output of the policy steps it may keep (parsed
    /// JSON takes about twice its text).
    fn bytes(&self) -> usize {
        let r = &self.result;
        let text = r.data.len() + r.text.len() + r.facts.len();
        3 * text
            + r.banners.iter().map(String::len).sum::<usize>()
            + r.pages.iter().map(|p| p.key.len() + p.order.len() + 16).sum::<usize>()
            + self.generation.len()
            + self.derived.len()
            + self.read.iter().map(String::len).sum::<usize>()
    }
}

/// An evidence chart the host drew for a result ([`crate::charts`]): drawing a year of trends
/// as a PNG costs far more than every policy step of a reused result, and the same finding is
/// asked for again as a conversation goes on.
#[derive(Clone)]
pub(crate) struct Drawn {
    /// The PNG, base64.
    pub png: String,
    /// Its alt text before the fact it cites and before redaction.
    pub alt: String,
    /// The chart's facility's generation when it was drawn (status-change times included).
    pub derived: String,
}

impl Weigh for Drawn {
    fn bytes(&self) -> usize {
        self.png.len() + self.alt.len() + self.derived.len()
    }
}

/// One component's kept results and drawn charts: the charts get a quarter of the budget.
pub struct Memo {
    results: Shelf<Kept>,
    charts: Shelf<Drawn>,
}

/// Entries filed by key within a byte budget, the least recently used dropped first.
struct Shelf<V> {
    budget: usize,
    kept: Mutex<Lru<V>>,
}

struct Lru<V> {
    map: LruCache<MemoKey, Arc<V>>,
    bytes: usize,
}

impl<V: Weigh> Shelf<V> {
    fn new(budget: usize) -> Shelf<V> {
        let cap = NonZeroUsize::new(MAX_ENTRIES).unwrap_or(NonZeroUsize::MIN);
        Shelf { budget, kept: Mutex::new(Lru { map: LruCache::new(cap), bytes: 0 }) }
    }

    fn get(&self, key: &MemoKey) -> Option<Arc<V>> {
        let mut lru = self.kept.lock().ok()?;
        lru.map.get(key).cloned()
    }

    fn forget(&self, key: &MemoKey) {
        if let Ok(mut lru) = self.kept.lock() {
            if let Some(old) = lru.map.pop(key) {
                lru.bytes -= old.bytes();
            }
        }
    }

    /// Keep `v` under `key`, then drop the least recently used until the budget holds. An
    /// entry larger than a quarter of the budget is not kept.
    fn put(&self, key: MemoKey, v: V) -> Option<Arc<V>> {
        let size = v.bytes();
        if size > self.budget / 4 {
            return None;
        }
        let mut lru = self.kept.lock().ok()?;
        lru.bytes += size;
        let v = Arc::new(v);
        if let Some((_, old)) = lru.map.push(key, v.clone()) {
            lru.bytes -= old.bytes();
        }
        while lru.bytes > self.budget {
            match lru.map.pop_lru() {
                Some((_, old)) => lru.bytes -= old.bytes(),
                None => break,
            }
        }
        Some(v)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.kept.lock().map(|s| s.map.len()).unwrap_or(0)
    }
}

impl Memo {
    /// A memo of `budget` bytes (0: it keeps nothing).
    pub fn new(budget: usize) -> Memo {
        let charts = budget / 4;
        Memo { results: Shelf::new(budget - charts), charts: Shelf::new(charts) }
    }

    /// A memo of the size `CAMBER_MEMO_MB` asks for (16 MiB by default, and when the variable
    /// is not a number, which the CLI refuses at start with [`budget_from_env`]).
    pub fn from_env() -> Memo {
        Memo::new(budget_from_env().unwrap_or(DEFAULT_BUDGET))
    }

    /// Whether it keeps anything at all.
    pub fn enabled(&self) -> bool {
        self.results.budget > 0
    }

    /// The result kept under `key`, if any (marked as just used).
    pub(crate) fn get(&self, key: &MemoKey) -> Option<Arc<Kept>> {
        self.results.get(key)
    }

    /// Drop what is kept under `key` (its facilities changed).
    pub(crate) fn forget(&self, key: &MemoKey) {
        self.results.forget(key)
    }

    /// Keep a guest's result (one larger than a quarter of the budget is not kept): the entry
    /// as kept.
    pub(crate) fn put(&self, key: MemoKey, kept: Kept) -> Option<Arc<Kept>> {
        self.results.put(key, kept)
    }

    /// The chart drawn under `key`, when its facility still has generation `derived`.
    pub(crate) fn drawn(&self, key: &MemoKey, derived: &str) -> Option<Arc<Drawn>> {
        let d = self.charts.get(key)?;
        if d.derived != derived {
            self.charts.forget(key);
            return None;
        }
        Some(d)
    }

    /// Keep a drawn chart.
    pub(crate) fn keep_drawn(&self, key: MemoKey, drawn: Drawn) {
        self.charts.put(key, drawn);
    }

    /// How many results are kept (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.results.len()
    }
}

/// The key of one call: the capability, the arguments' text as the guest gets it, the context
/// it gets, the facilities it may read, the run configs' digest and the store it reads.
pub(crate) fn key(
    name: &str,
    arguments: &str,
    ctx: &wit::CallContext,
    readable: &BTreeSet<String>,
    config_digest: &str,
    store: &str,
) -> MemoKey {
    let material = json!([
        name,
        arguments,
        ctx.allowed_facilities,
        ctx.min_trust.to_bits(),
        ctx.max_rows,
        ctx.caller,
        readable,
        config_digest,
        store,
    ]);
    sha256_hex(material.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(text_len: usize) -> Kept {
        let result = wit::CallResult {
            data: "{}".into(),
            text: "x".repeat(text_len),
            facts: "[]".into(),
            banners: Vec::new(),
            pages: Vec::new(),
        };
        Kept::new(result, BTreeSet::new(), String::new(), String::new())
    }

    fn ctx(allowed: &[&str]) -> wit::CallContext {
        wit::CallContext {
            allowed_facilities: allowed.iter().map(|s| s.to_string()).collect(),
            min_trust: 0.5,
            max_rows: 100,
            caller: "local".into(),
        }
    }

    #[test]
    fn every_input_the_guest_gets_changes_the_key() {
        let r: BTreeSet<String> = ["a".to_string()].into();
        let base = key("points", "{}", &ctx(&["a"]), &r, "", "store");
        assert_eq!(base, key("points", "{}", &ctx(&["a"]), &r, "", "store"));
        let mut other_trust = ctx(&["a"]);
        other_trust.min_trust = 0.6;
        let mut other_rows = ctx(&["a"]);
        other_rows.max_rows = 99;
        let mut other_caller = ctx(&["a"]);
        other_caller.caller = "b".into();
        let others = [
            key("coverage", "{}", &ctx(&["a"]), &r, "", "store"),
            key("points", "{\"limit\":1}", &ctx(&["a"]), &r, "", "store"),
            key("points", "{}", &ctx(&["a", "b"]), &r, "", "store"),
            key("points", "{}", &other_trust, &r, "", "store"),
            key("points", "{}", &other_rows, &r, "", "store"),
            key("points", "{}", &other_caller, &r, "", "store"),
            key("points", "{}", &ctx(&["a"]), &BTreeSet::new(), "", "store"),
            key("points", "{}", &ctx(&["a"]), &r, "cfg", "store"),
            key("points", "{}", &ctx(&["a"]), &r, "", "other"),
        ];
        for (i, k) in others.iter().enumerate() {
            assert_ne!(&base, k, "input {i} did not change the key");
        }
    }

    #[test]
    fn the_least_recently_used_go_first_and_the_budget_holds() {
        // results get three quarters of the budget (30,002 bytes); one weighs about 6,000
        let memo = Memo::new(40_002);
        for i in 0..4 {
            memo.put(format!("k{i}"), kept(2_000));
        }
        assert!(memo.get(&"k0".to_string()).is_some(), "k0 used last");
        memo.put("k4".into(), kept(2_000));
        memo.put("k5".into(), kept(2_000));
        assert!(memo.get(&"k1".to_string()).is_none() && memo.get(&"k2".to_string()).is_none());
        assert!(memo.get(&"k0".to_string()).is_some() && memo.get(&"k5".to_string()).is_some());
        assert!(memo.results.kept.lock().unwrap().bytes <= memo.results.budget);
        memo.put("big".into(), kept(3_000));
        assert!(memo.get(&"big".to_string()).is_none(), "over a quarter of the budget is not kept");
        memo.forget(&"k0".to_string());
        assert!(memo.get(&"k0".to_string()).is_none());
        let off = Memo::new(0);
        off.put("k".into(), kept(1));
        assert_eq!(off.len(), 0);
        assert!(!off.enabled());
    }
}
