//! The store's write side, used only by commands a person runs (ingest, dataset ingest,
//! demo), never by a capability. Every write of a facility builds the facility's complete new
//! partition in `_staging/`, then swaps it in with two renames under the store lock
//! (`_swap-facility_id=<id>.new` / `.ready` / `.old`), marking the facility's fence busy
//! around the swap. A writer killed at any point leaves a store the next writer repairs: a
//! swap that reached `.ready` is finished, one that did not is rolled back, and scratch files
//! of dead writers are removed. Readers never see a half-written facility.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use camber_common::ids::utc_now;

use super::fence::{self, process_start};
use super::parts::{write_part, LongRows, PointKey};
use super::{
    collect_parts, read_part_rows, valid_facility_id, FACILITY_PREFIX, POINT_CATALOG_FILE, POINT_CATALOG_GEN_FILE,
    REGISTRY_FILE,
};

/// The store lock file.
pub const LOCK_FILE: &str = "_lock";
/// Scratch space for writes in progress.
pub const STAGING_DIR: &str = "_staging";
/// Ids that were removed and may not be reused.
pub const TOMBSTONES_FILE: &str = "_tombstones.json";

/// How a write treats a facility that already has data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Refuse when the facility already has data.
    Create,
    /// Replace the facility's data with these rows.
    Replace,
    /// Merge these rows into the facility's data (a row at the same time and point replaces
    /// the stored one).
    Append,
}

/// What a write did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteOutcome {
    /// Rows the facility holds after the write.
    pub rows: usize,
    /// Rows the write added or replaced.
    pub written: usize,
    /// Part files written.
    pub parts: usize,
}

/// An open, locked store.
pub struct Writer {
    root: PathBuf,
    lock: File,
    /// What `_lock` held before this writer, while it has changed nothing: a write refused
    /// after the lock was taken puts it back, so the store is byte for byte as it was.
    lock_before: Option<Vec<u8>>,
    /// What the repair on opening did, one line each.
    pub repaired: Vec<String>,
}

fn io(what: &str, e: std::io::Error) -> String {
    format!("{what}: {}", e.to_string().to_lowercase())
}

/// Whether a directory is empty or looks like a store.
fn is_store_or_empty(root: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(root) else { return true };
    let mut empty = true;
    for e in rd.flatten() {
        empty = false;
        if is_store_entry(&e.file_name().to_string_lossy()) {
            return true;
        }
    }
    empty
}

/// Whether an entry at a store's top level (a file or directory on disk, the first segment of
/// an object's key) is one a camber store has: a location holding one of these is a store
/// that a writer may change; one holding only others is somebody else's.
pub(crate) fn is_store_entry(name: &str) -> bool {
    name.starts_with(FACILITY_PREFIX)
        || [
            REGISTRY_FILE,
            TOMBSTONES_FILE,
            POINT_CATALOG_FILE,
            POINT_CATALOG_GEN_FILE,
            LOCK_FILE,
            STAGING_DIR,
            fence::FENCE_DIR,
            crate::bucket::HEAD_FILE,
            camber_common::TASKS_DIR,
        ]
        .contains(&name)
}

/// 32 hex digits for a change marker (a fence token, a catalog generation, a staging name):
/// from the OS generator, else from the time and the pid. These mark that something changed;
/// they guard nothing, so a weaker value is no risk (session ids and bearer tokens use
/// `camber_common::ids::random_hex`, which has no fallback).
fn random_hex() -> String {
    camber_common::ids::random_hex().unwrap_or_else(|_| {
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        camber_common::canonical::sha256_hex(seed.as_bytes())[..32].to_string()
    })
}

pub(crate) fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Write a file whole or not at all: a temporary beside it, synced, then renamed over it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        std::process::id()
    ));
    {
        let mut f = File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if let Some(parent) = path.parent() {
        sync_dir(parent);
    }
    Ok(())
}

impl Drop for Writer {
    fn drop(&mut self) {
        if let Some(before) = self.lock_before.take() {
            let _ = self.lock.set_len(0);
            let _ = self.lock.write_all_at(&before, 0);
        }
    }
}

impl Writer {
    /// Open (creating it if needed) and lock the store at `root`, waiting up to `timeout` for
    /// another writer, then repair what an interrupted writer left.
    pub fn open(root: &Path, timeout: Duration) -> Result<Writer, String> {
        if root.exists() && !root.is_dir() {
            return Err("the store path exists and is not a directory".into());
        }
        if !is_store_or_empty(root) {
            return Err("the directory is not empty and holds no camber store; name an empty or store directory".into());
        }
        std::fs::create_dir_all(root).map_err(|e| io("cannot create the store directory", e))?;
        let mut lock = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(root.join(LOCK_FILE))
            .map_err(|e| io("cannot open the store lock", e))?;
        let deadline = Instant::now() + timeout;
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(100))
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut text = String::new();
                    let _ = lock.read_to_string(&mut text);
                    let holder: Value = serde_json::from_str(text.trim()).unwrap_or(Value::Null);
                    return Err(format!(
                        "the store is locked by {}@{} since {} (another ingest is writing it; retry when it finishes)",
                        holder.get("pid").map(|p| p.to_string()).unwrap_or_else(|| "?".into()),
                        holder.get("host").and_then(Value::as_str).unwrap_or("?"),
                        holder.get("since").and_then(Value::as_str).unwrap_or("?"),
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io("cannot lock the store", e)),
            }
        }
        // who holds the lock, for another writer's "locked by" message; what it said before
        // is put back if this writer ends up changing nothing
        let mut before = Vec::new();
        let _ = lock.read_to_end(&mut before);
        let holder = json!({"host": hostname(), "pid": std::process::id(), "since": utc_now()});
        let _ = lock.set_len(0);
        let _ = lock.write_all_at(format!("\n{holder}\n").as_bytes(), 0);
        let _ = lock.sync_all();
        let mut w = Writer { root: root.to_path_buf(), lock, lock_before: Some(before), repaired: Vec::new() };
        let repaired = w.repair();
        if !w.repaired.is_empty() || repaired.is_err() {
            w.changing();
        }
        repaired.map_err(|why| format!("the store needs repair that could not be done: {why}"))?;
        Ok(w)
    }

    /// This writer is about to change the store: its holder text stays in `_lock`.
    fn changing(&mut self) {
        self.lock_before = None;
    }

    /// The store root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Finish or roll back interrupted swaps, remove dead writers' scratch files and clear
    /// their fences.
    fn repair(&mut self) -> Result<(), String> {
        let root = self.root.clone();
        let mut swaps: BTreeSet<String> = BTreeSet::new();
        if let Ok(rd) = std::fs::read_dir(&root) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if let Some(rest) = n.strip_prefix("_swap-facility_id=") {
                    for suffix in [".new", ".old", ".ready"] {
                        if let Some(fid) = rest.strip_suffix(suffix) {
                            swaps.insert(fid.to_string());
                        }
                    }
                } else if n.starts_with("_trash-") {
                    let _ = std::fs::remove_dir_all(e.path());
                    self.repaired.push(format!("removed an interrupted delete ({n})"));
                } else if n.starts_with('.') && n.ends_with(".tmp") {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        for fid in swaps {
            let msg = self.finish_swap(&fid)?;
            self.repaired.push(msg);
        }
        let staging = root.join(STAGING_DIR);
        if let Ok(rd) = std::fs::read_dir(&staging) {
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                let pid = n.split('-').nth(1).and_then(|p| p.parse::<u32>().ok());
                if pid.is_none_or(|p| process_start(p).is_none()) {
                    let _ = std::fs::remove_dir_all(e.path());
                    self.repaired
                        .push(format!("removed the scratch files of an interrupted write ({STAGING_DIR}/{n})"));
                }
            }
        }
        let _ = std::fs::remove_dir(&staging);
        if let Ok(rd) = std::fs::read_dir(root.join(fence::FENCE_DIR)) {
            for e in rd.flatten() {
                let fid = e.file_name().to_string_lossy().into_owned();
                if fid.starts_with('.') {
                    let _ = std::fs::remove_file(e.path());
                    continue;
                }
                if let Ok(text) = super::files::read_string(&e.path()) {
                    let mark: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                    if mark.get("state").and_then(Value::as_str) != Some("done") && !fence::writer_alive(&mark) {
                        let _ = fence::write(&root, &fid, false, &random_hex());
                        self.repaired
                            .push(format!("cleared the fence of facility '{fid}' left by a writer that was killed"));
                    }
                }
            }
        }
        Ok(())
    }

    fn swap_paths(&self, fid: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
        let base = format!("_swap-{FACILITY_PREFIX}{fid}");
        (
            self.root.join(format!("{FACILITY_PREFIX}{fid}")),
            self.root.join(format!("{base}.new")),
            self.root.join(format!("{base}.old")),
            self.root.join(format!("{base}.ready")),
        )
    }

    /// Complete (after `.ready`) or undo (before it) a swap a killed writer left. A step
    /// that fails stops the repair with the reason: `.ready` and the busy fence stay, so the
    /// facility's calls stay `unavailable` (retry) rather than served from a half-moved tree,
    /// and the next writer tries again.
    fn finish_swap(&self, fid: &str) -> Result<String, String> {
        let (fin, new, old, ready) = self.swap_paths(fid);
        let step = |what: &str, r: std::io::Result<()>| {
            r.map_err(|e| io(&format!("cannot {what} an interrupted rewrite of facility '{fid}'"), e))
        };
        let msg = if ready.exists() {
            if new.exists() {
                if fin.exists() {
                    if old.exists() {
                        step("finish", std::fs::remove_dir_all(&old))?;
                    }
                    step("finish", std::fs::rename(&fin, &old))?;
                }
                step("finish", std::fs::rename(&new, &fin))?;
            }
            format!("finished an interrupted rewrite of facility '{fid}'")
        } else {
            if new.exists() {
                step("roll back", std::fs::remove_dir_all(&new))?;
            }
            if old.exists() && !fin.exists() {
                step("roll back", std::fs::rename(&old, &fin))?;
            }
            format!("rolled back an interrupted rewrite of facility '{fid}'")
        };
        sync_dir(&self.root);
        if old.exists() {
            step("clean up after", std::fs::remove_dir_all(&old))?;
        }
        if ready.exists() {
            step("clean up after", std::fs::remove_file(&ready))?;
        }
        sync_dir(&self.root);
        step("clear the fence of", fence::write(&self.root, fid, false, &random_hex()))?;
        Ok(msg)
    }

    /// The registry, or an error when it exists but cannot be read (a write never replaces a
    /// registry it could not read).
    pub fn registry(&self) -> Result<BTreeMap<String, Value>, String> {
        read_json_object(&self.root.join(REGISTRY_FILE), "the facility registry")
    }

    /// Refuse a write the store's rules forbid (see [`check_write`]), under the lock.
    fn guard(&self, fid: &str, mode: Mode, registry: &BTreeMap<String, Value>) -> Result<(), String> {
        guard_at(&self.root, fid, mode, registry)
    }

    fn stage_and_swap(
        &self,
        fid: &str,
        rows: &LongRows,
        mode: Mode,
        exists: bool,
        staged: &Path,
    ) -> Result<WriteOutcome, String> {
        let (fin, new, old, ready) = self.swap_paths(fid);
        let mut outcome = WriteOutcome { written: rows.len(), ..Default::default() };
        let months = rows.months();
        let mut seq = 0u64;
        let mut kept_months: BTreeSet<(i64, u32)> = BTreeSet::new();
        if exists && mode == Mode::Append {
            let mut existing = Vec::new();
            collect_parts(&fin, 0, &mut existing).map_err(|e| io("cannot list the facility's files", e))?;
            seq = existing.iter().filter_map(|p| part_seq(p)).max().map_or(0, |s| s + 1);
            let new_months: BTreeSet<(i64, u32)> = months.iter().map(|m| m.0).collect();
            for part in existing {
                let ym = month_of(&fin, &part);
                match ym {
                    Some(ym) if new_months.contains(&ym) => {} // merged below
                    _ => {
                        // untouched: link it into the new tree
                        let rel = part.strip_prefix(&fin).unwrap_or(&part);
                        let dest = staged.join(rel);
                        if let Some(parent) = dest.parent() {
                            std::fs::create_dir_all(parent).map_err(|e| io("cannot stage a part", e))?;
                        }
                        std::fs::hard_link(&part, &dest)
                            .or_else(|_| {
                                std::fs::copy(&part, &dest)?;
                                File::open(&dest)?.sync_all()
                            })
                            .map_err(|e| io("cannot stage a part", e))?;
                        if let Some(ym) = ym {
                            kept_months.insert(ym);
                        }
                        outcome.rows += super::part_rows(&part).unwrap_or(0);
                    }
                }
            }
            // months with new rows: merge the stored rows under the new ones
            for (ym, range) in &months {
                let mut merged = LongRows::default();
                let mut month_parts = Vec::new();
                let dir = fin.join(format!("year={}", ym.0)).join(format!("month={}", ym.1));
                if dir.is_dir() {
                    collect_parts(&dir, 2, &mut month_parts).map_err(|e| io("cannot list a month", e))?;
                }
                month_parts.sort_by_key(|p| super::part_order(p));
                for p in &month_parts {
                    read_part_rows(fid, p, &mut merged)
                        .map_err(|e| format!("cannot read a stored part to merge: {}", e.message))?;
                }
                for i in range.clone() {
                    let k = merged.intern(&rows.points[rows.point[i] as usize]);
                    merged.push(rows.ts[i], k, rows.value[i]);
                }
                merged.finish();
                write_month(staged, *ym, seq, &merged, 0..merged.len())?;
                outcome.parts += 1;
                outcome.rows += merged.len();
            }
        } else {
            for (ym, range) in &months {
                write_month(staged, *ym, seq, rows, range.clone())?;
                outcome.parts += 1;
                outcome.rows += range.len();
            }
        }
        let _ = kept_months;
        if !(exists && mode == Mode::Append) {
            // the whole facility is in `rows`: record its sample times as runs, so the first
            // coverage call need not scan them
            super::write_times_index(staged, rows).map_err(|e| io("cannot write the times index", e))?;
        }

        // the swap: busy fence, .new, .ready, final -> .old, .new -> final, clean up
        fence::write(&self.root, fid, true, &random_hex()).map_err(|e| io("cannot mark the facility busy", e))?;
        let swap = || -> std::io::Result<()> {
            if new.exists() {
                std::fs::remove_dir_all(&new)?;
            }
            sync_tree(staged);
            std::fs::rename(staged, &new)?;
            sync_dir(&self.root);
            File::create(&ready)?.sync_all()?;
            sync_dir(&self.root);
            if fin.exists() {
                if old.exists() {
                    std::fs::remove_dir_all(&old)?;
                }
                std::fs::rename(&fin, &old)?;
            }
            std::fs::rename(&new, &fin)?;
            sync_dir(&self.root);
            if old.exists() {
                std::fs::remove_dir_all(&old)?;
            }
            std::fs::remove_file(&ready)?;
            sync_dir(&self.root);
            Ok(())
        };
        let swapped = swap();
        if let Err(e) = swapped {
            // leave the store as the repair would: finish if committed, else roll back; if that
            // fails too, say so (the next writer's repair tries again)
            return Err(match self.finish_swap(fid) {
                Ok(_) => io("the swap into place failed (rolled back)", e),
                Err(repair) => format!("{}; {repair}", io("the swap into place failed", e)),
            });
        }
        Ok(outcome)
    }

    /// The point catalog when it matches its generation.
    fn current_point_catalog(&self) -> Option<Value> {
        let gen = super::files::read_string(&self.root.join(POINT_CATALOG_GEN_FILE)).ok().map(|g| g.trim().to_string());
        super::files::read_string(&self.root.join(POINT_CATALOG_FILE))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .filter(|c| c.get("gen").and_then(Value::as_str).map(str::to_string) == gen)
    }

    /// A fresh generation and no catalog: readers scan until the catalog is written again.
    fn invalidate_point_catalog(&self) -> Result<(), String> {
        write_atomic(&self.root.join(POINT_CATALOG_GEN_FILE), random_hex().as_bytes())
            .map_err(|e| io("cannot write the catalog generation", e))?;
        match std::fs::remove_file(self.root.join(POINT_CATALOG_FILE)) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io("cannot remove the stale catalog", e)),
        }
    }

    /// Keep the point catalog current: update it in place when it was current, else leave a
    /// fresh generation so readers rebuild it.
    fn update_point_catalog(
        &self,
        fid: &str,
        rows: &LongRows,
        mode: Mode,
        before: Option<Value>,
    ) -> Result<(), String> {
        let gen_path = self.root.join(POINT_CATALOG_GEN_FILE);
        let cat_path = self.root.join(POINT_CATALOG_FILE);
        let new_gen = random_hex();
        write_atomic(&gen_path, new_gen.as_bytes()).map_err(|e| io("cannot write the catalog generation", e))?;
        let Some(mut cat) = before else {
            let _ = std::fs::remove_file(&cat_path);
            return Ok(());
        };
        // this facility's points: the new rows', plus the stored ones on an append
        let mut keys: BTreeSet<(String, String)> = BTreeSet::new();
        let mut classes: BTreeMap<String, String> = BTreeMap::new();
        if mode == Mode::Append {
            for p in cat.get("points").and_then(Value::as_array).into_iter().flatten() {
                if p.get("facility_id").and_then(Value::as_str) == Some(fid) {
                    if let (Some(e), Some(r)) =
                        (p.get("equip").and_then(Value::as_str), p.get("role").and_then(Value::as_str))
                    {
                        keys.insert((e.to_string(), r.to_string()));
                    }
                }
            }
            if let Some(m) = cat.get("equipment").and_then(|e| e.get(fid)).and_then(Value::as_object) {
                for (e, c) in m {
                    classes.insert(e.clone(), c.as_str().unwrap_or_default().to_string());
                }
            }
        }
        for PointKey { equip, equip_class, role } in &rows.points {
            keys.insert((equip.clone(), role.clone()));
            let c = classes.entry(equip.clone()).or_default();
            if c.is_empty() {
                *c = equip_class.clone();
            }
        }
        let mut points: Vec<Value> = cat
            .get("points")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter(|p| p.get("facility_id").and_then(Value::as_str) != Some(fid)).cloned().collect())
            .unwrap_or_default();
        points.extend(keys.into_iter().map(|(e, r)| json!({"facility_id": fid, "equip": e, "role": r})));
        points.sort_by(|a, b| {
            let k = |v: &Value| {
                (
                    v["facility_id"].as_str().unwrap_or_default().to_string(),
                    v["equip"].as_str().unwrap_or_default().to_string(),
                    v["role"].as_str().unwrap_or_default().to_string(),
                )
            };
            k(a).cmp(&k(b))
        });
        let mut equipment: BTreeMap<String, Value> = cat
            .get("equipment")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        equipment.insert(fid.to_string(), json!(classes));
        cat = json!({"points": points, "equipment": equipment, "gen": new_gen});
        write_atomic(&cat_path, cat.to_string().as_bytes()).map_err(|e| io("cannot write the point catalog", e))
    }
}

/// A store open for writing, wherever it is: a directory ([`Writer`]) or object storage
/// ([`crate::bucket_writer::BucketWriter`]); [`crate::bucket_writer::open`] opens either.
pub trait StoreWriter {
    /// Write a facility's rows (already in stored order, see [`LongRows::finish`]) and merge
    /// `entry` into its registry entry. Nothing is visible until the facility's swap.
    fn write_facility(
        &mut self,
        fid: &str,
        rows: &LongRows,
        mode: Mode,
        entry: Map<String, Value>,
    ) -> Result<WriteOutcome, String>;

    /// What the repair on opening did, one line each (taken: a second call gives none).
    fn take_repaired(&mut self) -> Vec<String>;
}

impl StoreWriter for Writer {
    fn write_facility(
        &mut self,
        fid: &str,
        rows: &LongRows,
        mode: Mode,
        entry: Map<String, Value>,
    ) -> Result<WriteOutcome, String> {
        let mut registry = self.registry()?;
        self.guard(fid, mode, &registry)?;
        let (fin, _, _, _) = self.swap_paths(fid);
        let exists = fin.is_dir();
        self.changing();
        let stage_root =
            self.root.join(STAGING_DIR).join(format!("ingest-{}-{}", std::process::id(), &random_hex()[..12]));
        let staged = stage_root.join(format!("{FACILITY_PREFIX}{fid}"));
        std::fs::create_dir_all(&staged).map_err(|e| io("cannot create the staging directory", e))?;
        // the catalog as it was (to update it), then invalidated before anything moves: a writer
        // killed later leaves no catalog that still claims the old points
        let catalog_before = self.current_point_catalog();
        self.invalidate_point_catalog()?;
        let result = self.stage_and_swap(fid, rows, mode, exists, &staged);
        let _ = std::fs::remove_dir_all(&stage_root);
        let _ = std::fs::remove_dir(self.root.join(STAGING_DIR));
        let outcome = result?;

        // the registry entry
        let now = utc_now();
        let e = registry
            .entry(fid.to_string())
            .or_insert_with(|| json!({"name": fid, "state": "active", "created_at": now, "state_changed_at": now}));
        if let Value::Object(m) = e {
            for (k, v) in entry {
                if !["state", "created_at", "state_changed_at"].contains(&k.as_str()) {
                    m.insert(k, v);
                }
            }
        }
        let text = serde_json::to_string(&registry).map_err(|e| format!("cannot encode the registry: {e}"))?;
        write_atomic(&self.root.join(REGISTRY_FILE), text.as_bytes())
            .map_err(|e| io("cannot write the facility registry", e))?;
        self.update_point_catalog(fid, rows, mode, catalog_before)?;
        // only now, with the data, the registry and the catalog in place, is the facility clear
        fence::write(&self.root, fid, false, &random_hex()).map_err(|e| io("cannot clear the facility's fence", e))?;
        Ok(outcome)
    }

    fn take_repaired(&mut self) -> Vec<String> {
        std::mem::take(&mut self.repaired)
    }
}

/// Refuse a write the store's rules forbid: a bad or removed id, a letter-case twin of a known
/// id, an archived facility, or new data for a facility that has some without `Replace` or
/// `Append`. Read-only, so a command checks it before it takes the store lock (a refused write
/// then leaves the store as it was, its lock's time included); the writer checks again under
/// the lock.
pub fn check_write(root: &Path, fid: &str, mode: Mode) -> Result<(), String> {
    let registry = if root.is_dir() {
        read_json_object(&root.join(REGISTRY_FILE), "the facility registry")?
    } else {
        BTreeMap::new()
    };
    guard_at(root, fid, mode, &registry)
}

/// Refuse an id that cannot name a facility.
pub fn check_id(fid: &str) -> Result<(), String> {
    if valid_facility_id(fid) {
        return Ok(());
    }
    Err(format!(
        "invalid facility id '{}': use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 200 characters",
        camber_common::text::one_line(fid)
    ))
}

fn guard_at(root: &Path, fid: &str, mode: Mode, registry: &BTreeMap<String, Value>) -> Result<(), String> {
    check_id(fid)?;
    let tombs = read_json_object(&root.join(TOMBSTONES_FILE), "the tombstone list")?;
    if tombs.contains_key(fid) {
        return Err(format!("facility id '{fid}' was removed from this store and cannot be reused"));
    }
    let mut known: BTreeSet<String> = registry.keys().cloned().collect();
    known.extend(tombs.keys().cloned());
    if let Ok(rd) = std::fs::read_dir(root) {
        for e in rd.flatten() {
            if let Some(id) = e.file_name().to_string_lossy().strip_prefix(FACILITY_PREFIX) {
                known.insert(id.to_string());
            }
        }
    }
    if let Some(twin) = known.iter().find(|k| k.as_str() != fid && k.eq_ignore_ascii_case(fid)) {
        return Err(format!(
            "facility id '{fid}' differs only by letter case from the existing '{twin}'; on a case-insensitive file system they would share one directory"
        ));
    }
    if registry.get(fid).and_then(|m| m.get("state")).and_then(Value::as_str) == Some("archived") {
        return Err(format!("facility '{fid}' is archived; it takes no new data"));
    }
    if mode == Mode::Create && root.join(format!("{FACILITY_PREFIX}{fid}")).is_dir() {
        return Err(format!(
            "facility '{fid}' already has data; pass --replace to replace it or --append to add to it"
        ));
    }
    Ok(())
}

fn read_json_object(path: &Path, what: &str) -> Result<BTreeMap<String, Value>, String> {
    match super::files::read_string(path) {
        Ok(t) => match serde_json::from_str::<Value>(&t) {
            Ok(Value::Object(m)) => Ok(m.into_iter().collect()),
            _ => Err(format!("{what} is damaged (not a JSON object); repair or restore it before writing")),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(io(&format!("cannot read {what}"), e)),
    }
}

fn write_month(
    staged: &Path,
    ym: (i64, u32),
    seq: u64,
    rows: &LongRows,
    range: std::ops::Range<usize>,
) -> Result<(), String> {
    let dir = staged.join(format!("year={}", ym.0)).join(format!("month={}", ym.1));
    std::fs::create_dir_all(&dir).map_err(|e| io("cannot create a month directory", e))?;
    write_part(&dir.join(format!("part-{seq}-0.parquet")), rows, range).map_err(|e| io("cannot write a part file", e))
}

/// The `seq` of `part-<seq>-<i>.parquet`.
fn part_seq(p: &Path) -> Option<u64> {
    let n = p.file_name()?.to_string_lossy().into_owned();
    n.strip_prefix("part-")?.split('-').next()?.parse().ok()
}

/// The (year, month) of a part from its partition directories (none for the year-only layout).
fn month_of(fin: &Path, part: &Path) -> Option<(i64, u32)> {
    match super::part_year_month(part.strip_prefix(fin).ok()?)? {
        (y, Some(m)) => Some((y, m)),
        _ => None,
    }
}

fn sync_tree(dir: &Path) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().is_dir() {
                sync_tree(&e.path());
            }
        }
    }
    sync_dir(dir);
}
