//! The store: the reference's Parquet layout, read here (this file), written by
//! [`writer`] under the store lock with [`fence`]s, filled by [`ingest`] (a building's CSV)
//! and [`synthetic`] (camber-synth's labelled buildings); plus the [`dataset_catalog`] the
//! licence policy reads. No wasmtime here: the registry hands reads to guests.
//!
//! Read side: the reference's Parquet layout
//! (`facility_id=<id>/year=<y>/month=<m>/part-*.parquet` with `ts`, `equip`, `equip_class`,
//! `role`, `value`), the facility registry `_facilities.json` and the point catalog. Reads
//! stay inside the facility they are about: a call on one facility never opens another's
//! files. Every failure is a [`StoreError`] that the registry reports as `unavailable`.

#![deny(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use parquet::file::statistics::Statistics;
use serde_json::Value;

use camber_common::canonical::sha256_hex;

pub mod bucket;
pub mod bucket_writer;
pub mod dataset_catalog;
pub mod fence;
pub mod files;
pub mod fixture;
mod gridcache;
pub mod ingest;
pub mod parts;
pub mod portfolio;
pub mod synthetic;
pub mod writer;

use parts::{LongRows, PointKey};

/// The pointer object of a facility that camber wrote on object storage: its current
/// generation's part keys (relative to the facility's prefix) and its times index. Older
/// generations' objects beside it are not the facility's data.
pub const CURRENT_FILE: &str = "_camber_current.json";

/// The directory prefix of a facility's partition.
pub const FACILITY_PREFIX: &str = "facility_id=";
/// The facility registry file.
pub const REGISTRY_FILE: &str = "_facilities.json";
/// The point catalog and its generation token.
pub const POINT_CATALOG_FILE: &str = "_catalog.json";
pub const POINT_CATALOG_GEN_FILE: &str = "_catalog.gen";

/// A read that failed; `retryable` says whether the same call may succeed if repeated.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreError {
    pub retryable: bool,
    pub facility: Option<String>,
    /// One line, no path.
    pub message: String,
}

impl StoreError {
    fn io(facility: Option<&str>, what: &str, e: &std::io::Error) -> Self {
        let retryable = e.kind() == std::io::ErrorKind::NotFound;
        StoreError {
            retryable,
            facility: facility.map(str::to_string),
            message: format!("{what}: {}", io_kind_text(e)),
        }
    }
    fn damaged(facility: &str, what: &str) -> Self {
        StoreError { retryable: false, facility: Some(facility.to_string()), message: what.to_string() }
    }
}

fn io_kind_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "a file went missing while it was read".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        // the store's own words for an entry that is not what it should be (files::damaged)
        std::io::ErrorKind::InvalidData if e.get_ref().is_some() => e.to_string(),
        k => format!("{k}").to_lowercase(),
    }
}

/// One stored point.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PointRow {
    pub equip: String,
    pub equip_class: String,
    pub role: String,
}

/// What the facility registry says, and whether it could be read.
#[derive(Clone, Debug, Default)]
pub struct RegistryView {
    pub entries: BTreeMap<String, Value>,
    /// Set when `_facilities.json` exists but cannot be read or parsed.
    pub damaged: bool,
    /// Whether the file exists at all.
    pub present: bool,
}

/// A store directory opened for reading. It remembers what it derived from a facility's
/// files (points, span) under a fingerprint of their names, sizes and modification times, so
/// a repeated call re-reads nothing until a file changes.
#[derive(Debug)]
pub struct StoreDir {
    root: PathBuf,
    /// Set when the store is on object storage: `root` is then its URL, and every read goes
    /// through the bucket's snapshot (see [`bucket`]).
    bucket: Option<Arc<bucket::Bucket>>,
    memo: Mutex<HashMap<String, Memo>>,
    registry_memo: Mutex<Option<(String, Arc<RegistryView>)>>,
    grids: Mutex<gridcache::GridCache>,
    /// Each directory's entries under a facility, filed under the directory's own status (see
    /// [`StoreDir::collect_files`]).
    listings: Mutex<HashMap<PathBuf, (DirStamp, Listing)>>,
}

/// A directory's entries: each path and whether it is a directory.
type Listing = Vec<(PathBuf, bool)>;

/// What changes whenever a directory's entries change: its inode, modification time and
/// status-change time (which no user-space tool can set back).
type DirStamp = (u64, i64, i64, i64, i64);

/// Bytes of grids a store keeps between calls (see [`StoreDir::read_grid_shared`]): a few
/// facility-years at one minute, or hundreds of facility-months at fifteen.
pub const GRID_CACHE_BYTES: usize = 384 << 20;

#[derive(Debug, Default)]
struct Memo {
    fingerprint: String,
    points: Option<Arc<Vec<PointRow>>>,
    span: Option<Option<(i64, i64)>>,
    times: Option<Arc<PointTimes>>,
    /// Every part's footer was read and its schema checked (see [`StoreDir::verify_parts`]).
    verified: bool,
}

/// A run of evenly spaced samples: `count` samples from `start`, `step` apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeRun {
    pub start: i64,
    pub step: i64,
    pub count: u32,
}

/// Every point of a facility with its sample times as runs.
type PointTimes = Vec<(PointKey, Vec<TimeRun>)>;

/// The file in a facility's directory that records each point's sample times as runs
/// (`_`-prefixed: readers of the layout skip it).
pub const TIMES_INDEX: &str = "_camber_times.json";

/// Names (relative) and sizes of a facility directory's part files: what a times index
/// describes.
fn parts_signature(dir: &Path) -> Value {
    let mut parts = Vec::new();
    let _ = collect_parts(dir, 0, &mut parts);
    let mut rows: Vec<(String, u64)> = parts
        .iter()
        .map(|p| {
            (
                p.strip_prefix(dir).unwrap_or(p).to_string_lossy().into_owned(),
                std::fs::symlink_metadata(p).map(|m| m.len()).unwrap_or(0),
            )
        })
        .collect();
    rows.sort();
    serde_json::json!(rows)
}

/// Whether every part under `dir` was last modified no later than `index_mtime`: the writer
/// writes the index after the parts it describes, so a part rewritten in place since (even
/// to the same size) is newer than the index, and the index no longer vouches for it.
fn parts_older_than(dir: &Path, index_mtime: std::time::SystemTime) -> bool {
    let mut parts = Vec::new();
    collect_parts(dir, 0, &mut parts).is_ok()
        && parts.iter().all(|p| std::fs::symlink_metadata(p).and_then(|m| m.modified()).is_ok_and(|t| t <= index_mtime))
}

/// Write the times index of a staged facility directory from its rows (in stored order).
pub(crate) fn write_times_index(dir: &Path, rows: &LongRows) -> std::io::Result<()> {
    // runs built as the rows go by: no per-point copy of the timestamps
    let mut per: Vec<Vec<TimeRun>> = vec![Vec::new(); rows.points.len()];
    for (&t, &p) in rows.ts.iter().zip(&rows.point) {
        let rs = &mut per[p as usize];
        match rs.last_mut() {
            Some(r) if r.count == 1 => {
                r.step = t - r.start;
                r.count = 2;
            }
            Some(r) if r.start + r.step * r.count as i64 == t && r.count < u32::MAX => r.count += 1,
            _ => rs.push(TimeRun { start: t, step: 0, count: 1 }),
        }
    }
    let points: Vec<Value> = rows
        .points
        .iter()
        .zip(per)
        .map(|(k, rs)| {
            let rs: Vec<Value> = rs.iter().map(|r| serde_json::json!([r.start, r.step, r.count])).collect();
            serde_json::json!({"equip": k.equip, "equip_class": k.equip_class, "role": k.role, "runs": rs})
        })
        .collect();
    let doc = serde_json::json!({"parts": parts_signature(dir), "points": points});
    std::fs::write(dir.join(TIMES_INDEX), doc.to_string())
}

/// The part of each run inside `[start, end]`.
pub fn clip_runs(rs: &[TimeRun], start: Option<i64>, end: Option<i64>) -> Vec<TimeRun> {
    let (lo, hi) = (start.unwrap_or(i64::MIN), end.unwrap_or(i64::MAX));
    let mut out = Vec::new();
    for r in rs {
        let last = r.start + r.step * (r.count as i64 - 1);
        if last < lo || r.start > hi {
            continue;
        }
        if r.step == 0 {
            out.push(*r);
            continue;
        }
        let k0 = if r.start >= lo { 0 } else { (lo - r.start + r.step - 1) / r.step };
        let k1 = if last <= hi { r.count as i64 - 1 } else { (hi - r.start) / r.step };
        if k1 >= k0 {
            let count = (k1 - k0 + 1) as u32;
            out.push(TimeRun { start: r.start + k0 * r.step, step: if count == 1 { 0 } else { r.step }, count });
        }
    }
    out
}

/// Sorted sample times as runs of equal spacing.
pub fn runs(ts: &[i64]) -> Vec<TimeRun> {
    let mut out: Vec<TimeRun> = Vec::new();
    let mut i = 0;
    while i < ts.len() {
        if i + 1 == ts.len() {
            out.push(TimeRun { start: ts[i], step: 0, count: 1 });
            break;
        }
        let step = ts[i + 1] - ts[i];
        let mut j = i + 1;
        while j + 1 < ts.len() && ts[j + 1] - ts[j] == step && j - i < u32::MAX as usize - 1 {
            j += 1;
        }
        out.push(TimeRun { start: ts[i], step, count: (j - i + 1) as u32 });
        i = j + 1;
    }
    out
}

/// A duration in milliseconds from the environment variable `name` (`default` when unset); a
/// value that is not a whole number of milliseconds is refused, naming the variable.
fn env_millis(name: &str, default: std::time::Duration) -> Result<std::time::Duration, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => v
            .trim()
            .parse::<u64>()
            .map(std::time::Duration::from_millis)
            .map_err(|_| format!("{name} is not a whole number of milliseconds")),
    }
}

impl StoreDir {
    /// The store at `root`; `None` when there is no directory there.
    pub fn open(root: &Path) -> Option<Arc<StoreDir>> {
        root.is_dir().then(|| StoreDir::with_root(root.to_path_buf(), None))
    }

    /// The store at `location`: an object storage URL (`s3://bucket/prefix`, `gs://`, `az://`;
    /// see [`bucket`]), a `file://` URL or a directory. `Ok(None)` when there is no directory
    /// there; an object store that cannot be reached or listed is an error.
    pub fn open_location(location: &str) -> Result<Option<Arc<StoreDir>>, String> {
        if !bucket::is_url(location) {
            let path = location.strip_prefix("file://").unwrap_or(location);
            return Ok(StoreDir::open(Path::new(path)));
        }
        let every = env_millis("CAMBER_STORE_REFRESH_MS", bucket::REFRESH)?;
        let relist = env_millis("CAMBER_STORE_RELIST_MS", bucket::RELIST)?;
        let b = bucket::Bucket::open(location)?;
        b.refresh_in_background(every, relist);
        Ok(Some(StoreDir::over_bucket(b)))
    }

    /// A store over a bucket already opened.
    pub fn over_bucket(b: Arc<bucket::Bucket>) -> Arc<StoreDir> {
        StoreDir::with_root(PathBuf::from(b.url()), Some(b))
    }

    fn with_root(root: PathBuf, bucket: Option<Arc<bucket::Bucket>>) -> Arc<StoreDir> {
        Arc::new(StoreDir {
            root,
            bucket,
            memo: Mutex::new(HashMap::new()),
            registry_memo: Mutex::new(None),
            grids: Mutex::new(gridcache::GridCache::new(GRID_CACHE_BYTES)),
            listings: Mutex::new(HashMap::new()),
        })
    }

    /// The bucket, when the store is on object storage.
    pub fn bucket(&self) -> Option<&Arc<bucket::Bucket>> {
        self.bucket.as_ref()
    }

    /// A fingerprint of every file of a facility: relative name, size and mtime (what the
    /// store generation hashes, so the same data gives the same token after a restart).
    pub fn facility_fingerprint(&self, fid: &str) -> String {
        self.fingerprint_of(fid, false)
    }

    /// The key of what is remembered about a facility: its fingerprint plus each file's
    /// status-change time, which no user-space tool can set back. A part rewritten to the same
    /// size with its modification time restored still invalidates the memo (and so is read,
    /// and found damaged, again).
    /// What a value derived from a facility's points and the facility registry (a run config
    /// built from a dataset's template, say) is filed under: the facility's memo key and the
    /// registry file's status. Any rewrite of either changes it.
    pub fn derived_key(&self, fid: &str) -> String {
        format!("{}|{}", self.memo_key(fid), self.stat_line(REGISTRY_FILE))
    }

    fn memo_key(&self, fid: &str) -> String {
        self.fingerprint_of(fid, true)
    }

    fn fingerprint_of(&self, fid: &str, with_ctime: bool) -> String {
        use std::os::unix::fs::MetadataExt;
        if let Some(b) = &self.bucket {
            // an object's ETag changes with any rewrite: it stands for size, time and ctime
            let snap = b.snapshot_now();
            let prefix = format!("{FACILITY_PREFIX}{fid}/");
            let lines: Vec<String> =
                snap.under(&prefix).map(|(k, e)| format!("{k}|{}|{}|{}", e.size, e.modified_ns, e.etag)).collect();
            return sha256_hex(lines.join("\n").as_bytes());
        }
        use std::fmt::Write;
        let mut files = Vec::new();
        // in path order: each directory's listing is sorted
        let _ = self.collect_files(&self.facility_dir(fid), &mut files);
        // one line per file, written into one text
        let mut text = String::with_capacity(files.len() * 96);
        for (i, f) in files.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            let rel = f.strip_prefix(&self.root).unwrap_or(f).to_string_lossy();
            // one stat per file gives size, mtime and ctime
            let _ = match std::fs::symlink_metadata(f) {
                Ok(m) if with_ctime => {
                    write!(text, "{rel}|{}|{}|{}.{}", m.len(), mtime_ns(&m), m.ctime(), m.ctime_nsec())
                }
                Ok(m) => write!(text, "{rel}|{}|{}", m.len(), mtime_ns(&m)),
                Err(_) => write!(text, "{rel}|missing"),
            };
        }
        sha256_hex(text.as_bytes())
    }

    fn memo_get<T>(&self, fid: &str, fingerprint: &str, get: impl Fn(&Memo) -> Option<T>) -> Option<T> {
        let memo = self.memo.lock().unwrap_or_else(|p| p.into_inner());
        memo.get(fid).filter(|m| m.fingerprint == fingerprint).and_then(get)
    }

    fn memo_put(&self, fid: &str, fingerprint: &str, put: impl FnOnce(&mut Memo)) {
        let mut memo = self.memo.lock().unwrap_or_else(|p| p.into_inner());
        let m = memo.entry(fid.to_string()).or_default();
        if m.fingerprint != fingerprint {
            *m = Memo { fingerprint: fingerprint.to_string(), ..Default::default() };
        }
        put(m);
    }

    /// Every file under `dir`, recursively, in path order. A directory is listed again only when its status
    /// changed (an entry added, removed or renamed changes its modification and change times);
    /// otherwise its entries come from the last listing, which spares every call that
    /// fingerprints a facility (the call token, each memoised read) a directory read per
    /// partition. A file rewritten in place leaves its directory as it was, and is caught by
    /// the file's own status, which the fingerprint reads every time.
    fn collect_files(&self, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(dir)?;
        let stamp: DirStamp = (m.ino(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec());
        // a symbolic link's own status says nothing of its target's entries
        let keep = !m.file_type().is_symlink();
        let cached = if keep {
            let listings = self.listings.lock().unwrap_or_else(|p| p.into_inner());
            listings.get(dir).filter(|(s, _)| *s == stamp).map(|(_, e)| e.clone())
        } else {
            None
        };
        let entries = match cached {
            Some(e) => e,
            None => {
                let mut e = Vec::new();
                for entry in std::fs::read_dir(dir)? {
                    let entry = entry?;
                    e.push((entry.path(), entry.file_type()?.is_dir()));
                }
                // sorted once here, so a walk gives every file in path order
                e.sort_by(|a, b| a.0.cmp(&b.0));
                if keep {
                    let mut listings = self.listings.lock().unwrap_or_else(|p| p.into_inner());
                    listings.insert(dir.to_path_buf(), (stamp, e.clone()));
                }
                e
            }
        };
        for (path, is_dir) in entries {
            if is_dir {
                self.collect_files(&path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }

    /// The store's root directory (never shown to a caller).
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn facility_dir(&self, fid: &str) -> PathBuf {
        self.root.join(format!("{FACILITY_PREFIX}{fid}"))
    }

    /// `name|size|time` of a file at the store's root (with the ETag on object storage), or
    /// `name|missing`.
    fn stat_line(&self, rel: &str) -> String {
        match &self.bucket {
            Some(b) => match b.snapshot_now().objects.get(rel) {
                Some(e) => format!("{rel}|{}|{}|{}", e.size, e.modified_ns, e.etag),
                None => format!("{rel}|missing"),
            },
            None => stat_line(rel, &self.root.join(rel)),
        }
    }

    /// A file at the store's root (or an object, by key) as text; `NotFound` when there is
    /// none.
    fn read_text(&self, rel: &str) -> std::io::Result<String> {
        let Some(b) = &self.bucket else { return files::read_string(&self.root.join(rel)) };
        let snap = b.snapshot_now();
        let entry = snap.objects.get(rel).ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
        let bytes = b.read_all(None, rel, entry).map_err(|e| std::io::Error::other(e.message))?;
        String::from_utf8(bytes.to_vec()).map_err(|_| files::damaged("not UTF-8 text"))
    }

    /// A part's key relative to the store (object storage only).
    fn part_key(&self, part: &Path) -> String {
        part.strip_prefix(&self.root).map(|r| r.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// Open a part and check its footer (see [`check_part`]): a file on disk, or an object
    /// read in ranges at the version the snapshot lists.
    fn open_part(&self, fid: &str, part: &Path) -> Result<OpenedPart, StoreError> {
        let Some(b) = &self.bucket else { return open_part_file(fid, part) };
        let rel = self.part_key(part);
        let entry = b.snapshot_now().objects.get(&rel).cloned().ok_or_else(|| StoreError {
            retryable: true,
            facility: Some(fid.to_string()),
            message: "a part file cannot be opened: it went missing while it was read".into(),
        })?;
        let file =
            bucket::RemoteFile { bucket: b.clone(), fid: fid.to_string(), rel, entry, failed: Default::default() };
        check_part(fid, PartFile::Remote(file))
    }

    /// A facility's parts on object storage: those its pointer names when camber wrote it
    /// (each must be listed, or a write overlapped the call), else every part key under it
    /// by the layout's rules.
    fn bucket_parts(&self, b: &bucket::Bucket, fid: &str) -> Result<Vec<PathBuf>, StoreError> {
        let snap = b.snapshot()?;
        let dir = format!("{FACILITY_PREFIX}{fid}/");
        let pointer = format!("{dir}{CURRENT_FILE}");
        let mut rels: Vec<String> = match snap.objects.get(&pointer) {
            Some(entry) => {
                let bytes = b.read_all(Some(fid), &pointer, entry)?;
                let named = pointer_parts(&bytes).ok_or_else(|| {
                    StoreError::damaged(fid, "the facility's generation pointer is damaged (not the parts it names)")
                })?;
                let mut out = Vec::with_capacity(named.len());
                for rel in named {
                    let key = format!("{dir}{rel}");
                    // a writer puts every part before the pointer that names it: a part the
                    // snapshot lacks is one listed before it was put (retry), or one that is gone
                    if !snap.objects.contains_key(&key) {
                        if b.exists(&key)? {
                            return Err(StoreError {
                                retryable: true,
                                facility: Some(fid.to_string()),
                                message: "a part file its generation names was written after the store was listed"
                                    .into(),
                            });
                        }
                        return Err(StoreError::damaged(fid, "a part file its generation names is missing"));
                    }
                    out.push(key);
                }
                out
            }
            None => snap.under(&dir).filter(|(k, _)| is_part_key(&k[dir.len()..])).map(|(k, _)| k.clone()).collect(),
        };
        rels.sort();
        let mut out: Vec<PathBuf> = rels.into_iter().map(|r| self.root.join(r)).collect();
        out.sort_by_key(|p| part_order(p));
        Ok(out)
    }

    /// Every facility with a partition entry, sorted. An entry that is not a directory (a
    /// file, a symbolic link) is listed too: its reads then fail as damage rather than the
    /// facility reading as one with no stored data.
    pub fn facility_ids(&self) -> Result<Vec<String>, StoreError> {
        if let Some(b) = &self.bucket {
            let snap = b.snapshot()?;
            let mut out: Vec<String> = snap
                .under(FACILITY_PREFIX)
                .filter_map(|(k, _)| k.strip_prefix(FACILITY_PREFIX)?.split_once('/').map(|(f, _)| f.to_string()))
                .filter(|f| valid_facility_id(f))
                .collect();
            out.dedup();
            return Ok(out);
        }
        let rd = std::fs::read_dir(&self.root).map_err(|e| StoreError::io(None, "the store cannot be listed", &e))?;
        let mut out = Vec::new();
        for entry in rd.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(fid) = name.strip_prefix(FACILITY_PREFIX) {
                if valid_facility_id(fid) {
                    out.push(fid.to_string());
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Whether `fid` has a partition entry (whatever it is: see [`StoreDir::facility_ids`]).
    pub fn has_facility(&self, fid: &str) -> bool {
        if !valid_facility_id(fid) {
            return false;
        }
        match &self.bucket {
            Some(b) => b.snapshot_now().has_under(&format!("{FACILITY_PREFIX}{fid}/")),
            None => std::fs::symlink_metadata(self.facility_dir(fid)).is_ok(),
        }
    }

    /// The facility registry, re-read only when the file's size or modification time changes.
    pub fn registry(&self) -> Arc<RegistryView> {
        let stamp = self.stat_line(REGISTRY_FILE);
        if let Some((s, v)) = self.registry_memo.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            if *s == stamp {
                return v.clone();
            }
        }
        let v = Arc::new(self.registry_uncached());
        *self.registry_memo.lock().unwrap_or_else(|p| p.into_inner()) = Some((stamp, v.clone()));
        v
    }

    fn registry_uncached(&self) -> RegistryView {
        let text = match self.read_text(REGISTRY_FILE) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return RegistryView::default(),
            Err(_) => return RegistryView { damaged: true, present: true, ..Default::default() },
        };
        match serde_json::from_str::<Value>(&text) {
            // an entry that is not an object, or whose lifecycle state is not a string, cannot be
            // vouched for: the registry is damaged
            Ok(Value::Object(m)) => {
                let damaged = m.values().any(|v| !v.is_object() || v.get("state").is_some_and(|s| !s.is_string()));
                RegistryView { entries: m.into_iter().filter(|(_, v)| v.is_object()).collect(), damaged, present: true }
            }
            _ => RegistryView { damaged: true, present: true, ..Default::default() },
        }
    }

    /// Every part file of a facility, sorted (both the year/month and the older year-only
    /// layouts).
    pub fn parts(&self, fid: &str) -> Result<Vec<PathBuf>, StoreError> {
        if let Some(b) = &self.bucket {
            return self.bucket_parts(b, fid);
        }
        let dir = self.facility_dir(fid);
        let listing = |e: &std::io::Error| StoreError::io(Some(fid), "the facility's files cannot be listed", e);
        let ft = std::fs::symlink_metadata(&dir).map_err(|e| listing(&e))?.file_type();
        if ft.is_symlink() {
            return Err(listing(&files::damaged(files::SYMLINK)));
        }
        let mut out = Vec::new();
        collect_parts(&dir, 0, &mut out).map_err(|e| listing(&e))?;
        out.sort_by_key(|p| part_order(p));
        Ok(out)
    }

    /// Read every part's footer and check its columns, once per fingerprint. An answer taken
    /// from an index or the catalog rather than from the parts themselves is given only
    /// while the parts it describes are readable Parquet of the store's schema: a part
    /// replaced by garbage of the same size, or one the serving user cannot read, makes the
    /// call `unavailable` rather than answered from a description of data that is not there.
    pub fn verify_parts(&self, fid: &str) -> Result<(), StoreError> {
        let fp = self.memo_key(fid);
        if self.memo_get(fid, &fp, |m| m.verified.then_some(())).is_some() {
            return Ok(());
        }
        for part in self.parts(fid)? {
            self.open_part(fid, &part)?;
        }
        self.memo_put(fid, &fp, |m| m.verified = true);
        Ok(())
    }

    /// The stored points of a facility, sorted by equipment, class and role: from the point
    /// catalog while it is current, else from a projected scan of the facility's parts.
    pub fn points(&self, fid: &str) -> Result<Arc<Vec<PointRow>>, StoreError> {
        if !self.has_facility(fid) {
            return Ok(Arc::new(Vec::new()));
        }
        self.points_under(fid, &self.memo_key(fid))
    }

    /// A facility's time span and points, for a listing: the facility's files are looked at
    /// once for both (each alone takes its own look).
    pub fn span_and_points(&self, fid: &str) -> Result<SpanAndPoints, StoreError> {
        if !self.has_facility(fid) {
            return Ok((None, Arc::new(Vec::new())));
        }
        let fp = self.memo_key(fid);
        Ok((self.span_under(fid, &fp)?, self.points_under(fid, &fp)?))
    }

    /// [`Self::points`] of a facility that exists, under its memo key `fp`.
    fn points_under(&self, fid: &str, fp: &str) -> Result<Arc<Vec<PointRow>>, StoreError> {
        if let Some(p) = self.memo_get(fid, fp, |m| m.points.clone()) {
            return Ok(p);
        }
        if let Some(rows) = self.point_catalog_rows(fid) {
            self.verify_parts(fid)?;
            let rows = Arc::new(rows);
            self.memo_put(fid, fp, |m| m.points = Some(rows.clone()));
            return Ok(rows);
        }
        // no current catalog: one scan gives the points and their sample times
        self.times(fid)?;
        match self.memo_get(fid, fp, |m| m.points.clone()) {
            Some(p) => Ok(p),
            None => {
                let rows = Arc::new(self.points_uncached(fid)?);
                self.memo_put(fid, fp, |m| m.points = Some(rows.clone()));
                Ok(rows)
            }
        }
    }

    fn points_uncached(&self, fid: &str) -> Result<Vec<PointRow>, StoreError> {
        if let Some(rows) = self.point_catalog_rows(fid) {
            return Ok(rows);
        }
        let mut classes: BTreeMap<String, String> = BTreeMap::new();
        let mut keys: BTreeSet<(String, String)> = BTreeSet::new();
        for part in self.parts(fid)? {
            for b in read_part_dict(fid, self.open_part(fid, &part)?, &["equip", "equip_class", "role"], None, None)? {
                let eq = dict_column(fid, &b, "equip")?;
                let cl = dict_column(fid, &b, "equip_class")?;
                let ro = dict_column(fid, &b, "role")?;
                // the first row of each (equip, role) pair of this batch
                let nr = ro.values.len();
                let mut first: Vec<u32> = vec![NULL_KEY; eq.values.len() * nr];
                for i in 0..b.num_rows() {
                    let (e, r) = (eq.keys[i], ro.keys[i]);
                    if e != NULL_KEY && r != NULL_KEY {
                        let slot = &mut first[e as usize * nr + r as usize];
                        if *slot == NULL_KEY {
                            *slot = i as u32;
                        }
                    }
                }
                for (k, &row) in first.iter().enumerate() {
                    if row == NULL_KEY {
                        continue;
                    }
                    let (e, r) = (&eq.values[k / nr], &ro.values[k % nr]);
                    let c = cl.key(row as usize).map(|c| cl.values[c].as_str()).unwrap_or("");
                    let entry = classes.entry(e.clone()).or_default();
                    if entry.is_empty() && !c.is_empty() {
                        *entry = c.to_string();
                    }
                    keys.insert((e.clone(), r.clone()));
                }
            }
        }
        let mut rows: Vec<PointRow> = keys
            .into_iter()
            .map(|(equip, role)| PointRow {
                equip_class: classes.get(&equip).cloned().unwrap_or_default(),
                equip,
                role,
            })
            .collect();
        rows.sort();
        Ok(rows)
    }

    /// The catalog's rows for `fid` when `_catalog.json` matches `_catalog.gen`.
    fn point_catalog_rows(&self, fid: &str) -> Option<Vec<PointRow>> {
        let text = self.read_text(POINT_CATALOG_FILE).ok()?;
        let cat: Value = serde_json::from_str(&text).ok()?;
        let gen = self.read_text(POINT_CATALOG_GEN_FILE).ok();
        let cat_gen = cat.get("gen").and_then(Value::as_str).map(str::to_string);
        if gen.map(|g| g.trim().to_string()) != cat_gen {
            return None;
        }
        let classes = cat.get("equipment").and_then(|e| e.get(fid)).and_then(Value::as_object);
        let mut rows = Vec::new();
        for p in cat.get("points")?.as_array()? {
            if p.get("facility_id").and_then(Value::as_str) != Some(fid) {
                continue;
            }
            let equip = p.get("equip")?.as_str()?.to_string();
            let role = p.get("role")?.as_str()?.to_string();
            let equip_class =
                classes.and_then(|c| c.get(&equip)).and_then(Value::as_str).unwrap_or_default().to_string();
            rows.push(PointRow { equip, equip_class, role });
        }
        rows.sort();
        Some(rows)
    }

    /// First and last stored sample of a facility, from the parts' statistics (rows are read
    /// only for a part written without them).
    pub fn span(&self, fid: &str) -> Result<Option<(i64, i64)>, StoreError> {
        if !self.has_facility(fid) {
            return Ok(None);
        }
        self.span_under(fid, &self.memo_key(fid))
    }

    /// [`Self::span`] of a facility that exists, under its memo key `fp`.
    fn span_under(&self, fid: &str, fp: &str) -> Result<Option<(i64, i64)>, StoreError> {
        if let Some(s) = self.memo_get(fid, fp, |m| m.span) {
            return Ok(s);
        }
        let span = self.span_uncached(fid)?;
        self.memo_put(fid, fp, |m| m.span = Some(span));
        Ok(span)
    }

    fn span_uncached(&self, fid: &str) -> Result<Option<(i64, i64)>, StoreError> {
        let mut span: Option<(i64, i64)> = None;
        for part in self.parts(fid)? {
            let (_, meta) = self.open_part(fid, &part)?;
            let unit = ts_unit_scale(meta.schema().field_with_name("ts").map(|f| f.data_type().clone()).ok());
            let meta = meta.metadata().clone();
            let schema = meta.file_metadata().schema_descr();
            let Some(ts_idx) = (0..schema.num_columns()).find(|&i| schema.column(i).name() == "ts") else {
                return Err(StoreError::damaged(fid, "a part file has no ts column"));
            };
            let mut from_stats = true;
            for rg in meta.row_groups() {
                if rg.num_rows() == 0 {
                    continue;
                }
                match rg.column(ts_idx).statistics() {
                    Some(Statistics::Int64(s)) if s.min_opt().is_some() && s.max_opt().is_some() => {
                        // saturating: a damaged file's statistics must not overflow
                        let (lo, hi) = (
                            s.min_opt().map_or(0, |v| v.saturating_mul(unit)),
                            s.max_opt().map_or(0, |v| v.saturating_mul(unit)),
                        );
                        if !camber_common::time::storable(lo) || !camber_common::time::storable(hi) {
                            return Err(out_of_range(fid));
                        }
                        span = Some(match span {
                            None => (lo, hi),
                            Some((a, b)) => (a.min(lo), b.max(hi)),
                        });
                    }
                    _ => from_stats = false,
                }
            }
            if !from_stats {
                for b in read_part_dict(fid, self.open_part(fid, &part)?, &["ts"], None, None)? {
                    let ts = ts_column(fid, &b)?;
                    for v in ts.iter().flatten() {
                        span = Some(match span {
                            None => (v, v),
                            Some((a, c)) => (a.min(v), c.max(v)),
                        });
                    }
                }
            }
        }
        Ok(span)
    }

    /// Every point's sample times in `[start, end]` (optionally only some equipment and
    /// roles), read in one pass over the facility's parts, as runs of evenly spaced samples.
    /// Remembered under the facility's fingerprint.
    pub fn read_times(
        &self,
        fid: &str,
        equips: &[String],
        roles: &[String],
        start: Option<i64>,
        end: Option<i64>,
    ) -> Result<Vec<(PointKey, Vec<TimeRun>)>, StoreError> {
        let all = self.times(fid)?;
        let mut out = Vec::new();
        for (key, rs) in all.iter() {
            if (!equips.is_empty() && !equips.contains(&key.equip)) || (!roles.is_empty() && !roles.contains(&key.role))
            {
                continue;
            }
            out.push((key.clone(), clip_runs(rs, start, end)));
        }
        Ok(out)
    }

    /// Every point's runs, remembered under the facility's fingerprint (one scan computes
    /// them, and the point list with them).
    fn times(&self, fid: &str) -> Result<Arc<PointTimes>, StoreError> {
        if !self.has_facility(fid) {
            return Ok(Arc::new(Vec::new()));
        }
        let fp = self.memo_key(fid);
        if let Some(t) = self.memo_get(fid, &fp, |m| m.times.clone()) {
            return Ok(t);
        }
        let indexed = match self.read_times_index(fid) {
            // the index describes the parts; it is served only while they are there to back it
            // and it says what their own footers say
            Some(t) => {
                self.verify_parts(fid)?;
                self.index_agrees(fid, &t)?.then_some(t)
            }
            None => None,
        };
        let t: Arc<PointTimes> = match indexed {
            Some(t) => Arc::new(t),
            None => Arc::new(self.times_uncached(fid)?.into_iter().map(|(k, ts)| (k, runs(&ts))).collect()),
        };
        let mut points: Vec<PointRow> = t
            .iter()
            .map(|(k, _)| PointRow { equip: k.equip.clone(), equip_class: k.equip_class.clone(), role: k.role.clone() })
            .collect();
        points.sort();
        let points = Arc::new(points);
        self.memo_put(fid, &fp, |m| {
            m.times = Some(t.clone());
            if m.points.is_none() {
                m.points = Some(points);
            }
        });
        Ok(t)
    }

    /// Whether a times index agrees with the parts' own footers: as many samples as the parts
    /// hold rows, and its first and last sample the parts' time statistics. An index whose part
    /// signature matches but whose runs were forged or damaged is then scanned past, not served.
    fn index_agrees(&self, fid: &str, t: &PointTimes) -> Result<bool, StoreError> {
        let (mut n, mut first, mut last) = (0u64, i64::MAX, i64::MIN);
        for r in t.iter().flat_map(|(_, rs)| rs) {
            n += u64::from(r.count);
            first = first.min(r.start);
            // read_times_index checked that the last sample is a storable time
            last = last.max(r.start + r.step * (i64::from(r.count) - 1));
        }
        let mut rows = 0u64;
        for part in self.parts(fid)? {
            let (_, meta) = self.open_part(fid, &part)?;
            rows += u64::try_from(meta.metadata().file_metadata().num_rows()).unwrap_or(u64::MAX);
        }
        Ok(rows == n
            && match self.span(fid)? {
                Some(span) => span == (first, last),
                None => n == 0,
            })
    }

    /// The times index the writer left in the facility's directory, when it still describes
    /// exactly the facility's part files (names and sizes).
    fn read_times_index(&self, fid: &str) -> Option<Vec<(PointKey, Vec<TimeRun>)>> {
        let v: Value = match &self.bucket {
            Some(b) => self.bucket_times_index(b, fid)?,
            None => {
                let dir = self.facility_dir(fid);
                let mut file = files::open_regular(&dir.join(TIMES_INDEX)).ok()?;
                let index_mtime = file.metadata().and_then(|m| m.modified()).ok()?;
                let mut text = String::new();
                std::io::Read::read_to_string(&mut file, &mut text).ok()?;
                let v: Value = serde_json::from_str(&text).ok()?;
                if v.get("parts")? != &parts_signature(&dir) || !parts_older_than(&dir, index_mtime) {
                    return None;
                }
                v
            }
        };
        let mut out = Vec::new();
        for p in v.get("points")?.as_array()? {
            let key = PointKey {
                equip: p.get("equip")?.as_str()?.to_string(),
                equip_class: p.get("equip_class")?.as_str()?.to_string(),
                role: p.get("role")?.as_str()?.to_string(),
            };
            let mut rs = Vec::new();
            for r in p.get("runs")?.as_array()? {
                let r = r.as_array()?;
                let run = TimeRun {
                    start: r.first()?.as_i64()?,
                    step: r.get(1)?.as_i64()?,
                    count: u32::try_from(r.get(2)?.as_u64()?).ok()?,
                };
                // a run the writer cannot have written (out of the stored range, a zero or
                // negative step, a count past it) means the index is not to be trusted
                let last = run.step.checked_mul(run.count as i64 - 1).and_then(|d| d.checked_add(run.start))?;
                let stepped = if run.count > 1 { run.step > 0 } else { run.step == 0 };
                if run.count == 0
                    || !stepped
                    || !camber_common::time::storable(run.start)
                    || !camber_common::time::storable(last)
                {
                    return None;
                }
                rs.push(run);
            }
            out.push((key, rs));
        }
        Some(out)
    }

    /// A facility's times index on object storage, when it describes exactly the parts served
    /// (names relative to the facility, and sizes).
    fn bucket_times_index(&self, b: &bucket::Bucket, fid: &str) -> Option<Value> {
        let snap = b.snapshot_now();
        let dir = format!("{FACILITY_PREFIX}{fid}/");
        let key = format!("{dir}{TIMES_INDEX}");
        let entry = snap.objects.get(&key)?;
        let parts = self.parts(fid).ok()?;
        // No time check as on disk: a copy to a bucket uploads in any order. A part rewritten
        // to the same size must still agree with its footers (`index_agrees`) to be served.
        let mut rows: Vec<(String, u64)> = Vec::new();
        for p in &parts {
            let rel = self.part_key(p);
            rows.push((rel[dir.len()..].to_string(), snap.objects.get(&rel)?.size));
        }
        rows.sort();
        let v: Value = serde_json::from_slice(&b.read_all(Some(fid), &key, entry).ok()?).ok()?;
        (v.get("parts")? == &serde_json::json!(rows)).then_some(v)
    }

    /// Every point's sorted, distinct sample times. Parts are decoded on up to as many threads
    /// as the machine has cores, then merged in time order.
    fn times_uncached(&self, fid: &str) -> Result<Vec<(PointKey, Vec<i64>)>, StoreError> {
        type PerPart = Vec<((String, String), (String, Vec<i64>))>;
        let parts = self.parts(fid)?;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8).min(parts.len().max(1));
        let decode = |part: &PathBuf| -> Result<PerPart, StoreError> {
            let mut out: PerPart = Vec::new();
            for b in
                read_part_dict(fid, self.open_part(fid, part)?, &["ts", "equip", "equip_class", "role"], None, None)?
            {
                let ts = ts_column(fid, &b)?;
                let eq = dict_column(fid, &b, "equip")?;
                let cl = dict_column(fid, &b, "equip_class")?;
                let ro = dict_column(fid, &b, "role")?;
                let nr = ro.values.len();
                let mut local: Vec<Option<(usize, Vec<i64>)>> = vec![None; eq.values.len() * nr];
                let tsv = ts.values();
                let has_nulls = ts.null_count() > 0;
                for i in 0..b.num_rows() {
                    let (e, r) = (eq.keys[i], ro.keys[i]);
                    if e == NULL_KEY || r == NULL_KEY || (has_nulls && ts.is_null(i)) {
                        continue;
                    }
                    local[e as usize * nr + r as usize].get_or_insert_with(|| (i, Vec::new())).1.push(tsv[i]);
                }
                for (k, entry) in local.into_iter().enumerate() {
                    let Some((first, v)) = entry else { continue };
                    let class = cl.key(first).map(|c| cl.values[c].clone()).unwrap_or_default();
                    out.push(((eq.values[k / nr].clone(), ro.values[k % nr].clone()), (class, v)));
                }
            }
            Ok(out)
        };
        // each thread takes every n-th part; results are put back in part order
        let mut decoded: Vec<Option<Result<PerPart, StoreError>>> = (0..parts.len()).map(|_| None).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let parts = &parts;
                    let decode = &decode;
                    scope.spawn(move || {
                        (t..parts.len()).step_by(threads).map(|i| (i, decode(&parts[i]))).collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in handles {
                if let Ok(results) = h.join() {
                    for (i, r) in results {
                        decoded[i] = Some(r);
                    }
                }
            }
        });
        let mut per: HashMap<(String, String), (String, Vec<i64>)> = HashMap::new();
        for d in decoded {
            let d = d.unwrap_or_else(|| Err(StoreError::damaged(fid, "a part file could not be decoded")))?;
            for (key, (class, v)) in d {
                let slot = per.entry(key).or_insert_with(|| (class, Vec::new()));
                if slot.1.is_empty() {
                    slot.1 = v;
                } else {
                    slot.1.extend_from_slice(&v);
                }
            }
        }
        let mut out: Vec<(PointKey, Vec<i64>)> = per
            .into_iter()
            .map(|((equip, role), (equip_class, mut ts))| {
                if !ts.windows(2).all(|w| w[0] < w[1]) {
                    ts.sort_unstable();
                    ts.dedup();
                }
                (PointKey { equip, equip_class, role }, ts)
            })
            .collect();
        out.sort_by(|a, b| (&a.0.equip, &a.0.role).cmp(&(&b.0.equip, &b.0.role)));
        Ok(out)
    }

    /// One point's samples in `[start, end]`, sorted by time.
    pub fn read_series(
        &self,
        fid: &str,
        equip: &str,
        role: &str,
        start: Option<i64>,
        end: Option<i64>,
    ) -> Result<(Vec<i64>, Vec<f64>), StoreError> {
        let frame = self.read_frame(fid, equip, &[role.to_string()], start, end)?;
        let values = frame.values.into_iter().next().unwrap_or_default();
        Ok(frame.ts.into_iter().zip(values).filter(|(_, v)| !v.is_nan()).unzip())
    }

    /// One equipment's roles as aligned columns over `[start, end]`: every time any of the
    /// roles has a sample, each role's value there (NaN where it has none). Reads only the
    /// facility's parts in the window's months, only the row groups whose time statistics
    /// overlap it, and decodes the string columns as dictionaries.
    pub fn read_frame(
        &self,
        fid: &str,
        equip: &str,
        roles: &[String],
        start: Option<i64>,
        end: Option<i64>,
    ) -> Result<Frame, StoreError> {
        let mut frame = Frame { ts: Vec::new(), roles: roles.to_vec(), values: vec![Vec::new(); roles.len()] };
        if !self.has_facility(fid) || roles.is_empty() {
            return Ok(frame);
        }
        let parts = self.parts(fid)?;
        let mut sorted = true;
        let mut last_ts = i64::MIN;
        let mut triples: Vec<(i64, u32, usize, f64)> = Vec::new();
        let mut seq = 0usize;
        for part in parts {
            if !part_overlaps(&part, start, end) {
                continue;
            }
            let batches = read_part_filtered(fid, self.open_part(fid, &part)?, start, end)?;
            for b in batches {
                let ts = ts_column(fid, &b)?;
                let eq = dict_column(fid, &b, "equip")?;
                let ro = dict_column(fid, &b, "role")?;
                let val = value_column(fid, &b)?;
                let eq_match: Vec<bool> = (0..eq.values.len()).map(|k| eq.values[k] == equip).collect();
                let role_col: Vec<Option<usize>> =
                    (0..ro.values.len()).map(|k| roles.iter().position(|r| *r == ro.values[k])).collect();
                for i in 0..b.num_rows() {
                    let (Some(ek), Some(rk)) = (eq.key(i), ro.key(i)) else { continue };
                    if !eq_match[ek] {
                        continue;
                    }
                    let Some(col) = role_col[rk] else { continue };
                    if ts.is_null(i) || val.is_null(i) {
                        continue;
                    }
                    let t = ts.value(i);
                    if start.is_some_and(|s| t < s) || end.is_some_and(|e| t > e) {
                        continue;
                    }
                    let v = val.value(i);
                    if sorted {
                        if t > last_ts || frame.ts.is_empty() {
                            frame.ts.push(t);
                            for c in frame.values.iter_mut() {
                                c.push(f64::NAN);
                            }
                            last_ts = t;
                        } else if t < last_ts {
                            // parts overlap in time (e.g. two appends to one month): fall back
                            sorted = false;
                            for (r, c) in frame.values.iter().enumerate() {
                                for (k, x) in c.iter().enumerate() {
                                    if !x.is_nan() {
                                        triples.push((frame.ts[k], r as u32, seq, *x));
                                        seq += 1;
                                    }
                                }
                            }
                            triples.push((t, col as u32, seq, v));
                            seq += 1;
                            continue;
                        }
                        let k = frame.ts.len() - 1;
                        frame.values[col][k] = v;
                    } else {
                        triples.push((t, col as u32, seq, v));
                        seq += 1;
                    }
                }
            }
        }
        if !sorted {
            triples.sort_unstable_by_key(|x| (x.0, x.1, x.2));
            frame.ts.clear();
            frame.values = vec![Vec::new(); roles.len()];
            for (t, r, _, v) in triples {
                if frame.ts.last() != Some(&t) {
                    frame.ts.push(t);
                    for c in frame.values.iter_mut() {
                        c.push(f64::NAN);
                    }
                }
                let k = frame.ts.len() - 1;
                frame.values[r as usize][k] = v; // the later part's row wins
            }
        }
        Ok(frame)
    }

    /// Equipment frames on a time grid of `step` ns, in one pass over the facility's parts:
    /// each equipment of `equips` (empty: every one) with every role it stores, each value the
    /// mean of the role's samples in the slot `[k*step, (k+1)*step)` (labelled by its start),
    /// over `[start, end]`. Only slots holding a sample are listed; NaN where a role has none.
    pub fn read_grid(
        &self,
        fid: &str,
        equips: &[String],
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Vec<GridFrame>, StoreError> {
        let shared = self.read_grid_shared(fid, equips, start, end, step)?;
        Ok(Arc::try_unwrap(shared).unwrap_or_else(|a| (*a).clone()))
    }

    /// [`StoreDir::read_grid`], kept between calls: a grid asked for again while none of the
    /// facility's files changed is not read again. A grid is kept only when the facility's
    /// fingerprint was the same before and after it was read, so a read that overlapped an
    /// ingest is never filed under either generation.
    pub fn read_grid_shared(
        &self,
        fid: &str,
        equips: &[String],
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Arc<Vec<GridFrame>>, StoreError> {
        let key = gridcache::GridKey {
            fid: fid.to_string(),
            fingerprint: self.memo_key(fid),
            equips: equips.to_vec(),
            start,
            end,
            step: step.max(1),
        };
        if let Some(g) = self.grids.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            return Ok(g);
        }
        let frames = Arc::new(self.read_grid_uncached(fid, equips, start, end, step)?);
        if self.memo_key(fid) == key.fingerprint {
            self.grids.lock().unwrap_or_else(|p| p.into_inner()).put(key, frames.clone());
        }
        Ok(frames)
    }

    fn read_grid_uncached(
        &self,
        fid: &str,
        equips: &[String],
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Vec<GridFrame>, StoreError> {
        struct Acc {
            equip: String,
            class: String,
            roles: Vec<String>,
            slot_row: SlotRows,
            last: Option<(i64, usize)>,
            ts: Vec<i64>,
            sum: Vec<Vec<f64>>,
            count: Vec<Vec<u32>>,
        }
        let step = step.max(1);
        let points = self.points(fid)?;
        let mut accs: Vec<Acc> = Vec::new();
        for p in points.iter().filter(|p| equips.is_empty() || equips.contains(&p.equip)) {
            if accs.last().is_none_or(|a| a.equip != p.equip) {
                accs.push(Acc {
                    equip: p.equip.clone(),
                    class: p.equip_class.clone(),
                    roles: Vec::new(),
                    slot_row: SlotRows::default(),
                    last: None,
                    ts: Vec::new(),
                    sum: Vec::new(),
                    count: Vec::new(),
                });
            }
            let a = accs.last_mut().expect("pushed above");
            if !a.roles.contains(&p.role) {
                a.roles.push(p.role.clone());
                a.sum.push(Vec::new());
                a.count.push(Vec::new());
            }
        }
        if accs.is_empty() {
            return Ok(Vec::new());
        }
        let by_equip: HashMap<String, usize> = accs.iter().enumerate().map(|(i, a)| (a.equip.clone(), i)).collect();
        for part in self.parts(fid)? {
            if !part_overlaps(&part, start, end) {
                continue;
            }
            for b in read_part_filtered(fid, self.open_part(fid, &part)?, start, end)? {
                let ts = ts_column(fid, &b)?;
                let eq = dict_column(fid, &b, "equip")?;
                let ro = dict_column(fid, &b, "role")?;
                let val = value_column(fid, &b)?;
                let eq_acc: Vec<Option<usize>> = eq.values.iter().map(|e| by_equip.get(e).copied()).collect();
                // (equipment dictionary key, role dictionary key) -> the role's column, worked out
                // once per pair: the dictionaries are small, the rows many
                let n_roles = ro.values.len();
                let mut table: Vec<Option<Option<usize>>> = vec![None; eq.values.len() * n_roles];
                for i in 0..b.num_rows() {
                    let (Some(ek), Some(rk)) = (eq.key(i), ro.key(i)) else { continue };
                    let Some(ai) = eq_acc[ek] else { continue };
                    if ts.is_null(i) || val.is_null(i) {
                        continue;
                    }
                    let t = ts.value(i);
                    if start.is_some_and(|s| t < s) || end.is_some_and(|e| t > e) {
                        continue;
                    }
                    let a = &mut accs[ai];
                    let Some(col) = *table[ek * n_roles + rk]
                        .get_or_insert_with(|| a.roles.iter().position(|r| *r == ro.values[rk]))
                    else {
                        continue;
                    };
                    let k = t.div_euclid(step);
                    let slot = k * step;
                    let row = match a.last {
                        Some((s, r)) if s == slot => r,
                        _ => {
                            let next = a.ts.len();
                            let r = a.slot_row.row(k, next);
                            if r == next {
                                a.ts.push(slot);
                                for (s, c) in a.sum.iter_mut().zip(a.count.iter_mut()) {
                                    s.push(0.0);
                                    c.push(0);
                                }
                            }
                            a.last = Some((slot, r));
                            r
                        }
                    };
                    a.sum[col][row] += val.value(i);
                    a.count[col][row] += 1;
                }
            }
        }
        Ok(accs
            .into_iter()
            .map(|a| {
                let order = a.slot_row.in_order().unwrap_or_else(|| {
                    let mut order: Vec<usize> = (0..a.ts.len()).collect();
                    order.sort_unstable_by_key(|&i| a.ts[i]);
                    order
                });
                let values = a
                    .sum
                    .iter()
                    .zip(&a.count)
                    .map(|(s, c)| {
                        order.iter().map(|&i| if c[i] == 0 { f64::NAN } else { s[i] / c[i] as f64 }).collect()
                    })
                    .collect();
                let ts = order.iter().map(|&i| a.ts[i]).collect();
                GridFrame { equip: a.equip, equip_class: a.class, frame: SharedFrame { ts, roles: a.roles, values } }
            })
            .collect())
    }

    /// A digest of the size and modification time of the registry, the catalog and every file
    /// of the facilities `fids`: any rewrite, even in place, changes it.
    pub fn generation(&self, fids: &[String]) -> String {
        self.generation_of(fids, false)
    }

    /// What a result worked out from the facilities `fids` is kept under between calls: their
    /// [`StoreDir::generation`] with each file's status-change time too (an object's ETag on
    /// object storage), so a rewrite that restores a file's size and modification time still
    /// counts, as for the store's own memos.
    pub fn derived_generation(&self, fids: &[String]) -> String {
        self.generation_of(fids, true)
    }

    fn generation_of(&self, fids: &[String], with_ctime: bool) -> String {
        let mut lines: Vec<String> = Vec::new();
        for f in [REGISTRY_FILE, POINT_CATALOG_FILE, POINT_CATALOG_GEN_FILE] {
            lines.push(match &self.bucket {
                None if with_ctime => stat_line_ctime(f, &self.root.join(f)),
                _ => self.stat_line(f),
            });
        }
        for fid in fids {
            lines.push(format!("{fid}|{}", self.fingerprint_of(fid, with_ctime)));
        }
        sha256_hex(lines.join("\n").as_bytes())
    }
}

/// `name|size|mtime_ns|ctime` of one file (the status-change time no user-space tool can set
/// back), or `name|missing`.
fn stat_line_ctime(rel: &str, p: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(p) {
        Ok(m) => format!("{rel}|{}|{}|{}.{}", m.len(), mtime_ns(&m), m.ctime(), m.ctime_nsec()),
        Err(_) => format!("{rel}|missing"),
    }
}

/// `name|size|mtime_ns` of one file, or `name|missing`.
fn stat_line(rel: &str, p: &Path) -> String {
    match std::fs::metadata(p) {
        Ok(m) => format!("{rel}|{}|{}", m.len(), mtime_ns(&m)),
        Err(_) => format!("{rel}|missing"),
    }
}

/// A file's modification time in nanoseconds since the epoch (0 when unknown).
fn mtime_ns(m: &std::fs::Metadata) -> u128 {
    m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos())
}

/// A facility's first and last sample times (none without samples) and its points.
pub type SpanAndPoints = (Option<(i64, i64)>, Arc<Vec<PointRow>>);

/// Whether `fid` may name a partition directory (no separators, no dot-dot).
pub fn valid_facility_id(fid: &str) -> bool {
    !fid.is_empty()
        && fid.len() <= 200
        && fid.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && fid.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The part files under a facility directory (`depth` 0), a year (1) or a month (2). Names
/// starting with `_` or `.` are the store's own or scratch and are skipped, and so are other
/// files. Anything else that the layout gives a meaning is what it must be, or the listing
/// fails, so damage is never read as "no data here": a partition directory (`year=`,
/// `month=`) that is a file or a symbolic link, and a `.parquet` that is a directory, a
/// FIFO, a device or a symbolic link (the store never follows one, in or out of the store).
pub(crate) fn collect_parts(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('_') || name.starts_with('.') {
            continue;
        }
        let ft = entry.file_type()?;
        let partition = depth < 2 && (name.starts_with("year=") || name.starts_with("month="));
        if partition || name.ends_with(".parquet") {
            if ft.is_symlink() {
                return Err(files::damaged(files::SYMLINK));
            }
            if partition && !ft.is_dir() {
                return Err(files::damaged("a partition directory is not a directory"));
            }
            if !partition && !ft.is_file() {
                return Err(files::damaged("a part file is not a regular file"));
            }
        }
        if partition {
            collect_parts(&entry.path(), depth + 1, out)?;
        } else if ft.is_file() && name.ends_with(".parquet") {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// A part file opened and its footer read, with the columns checked against the store's
/// schema: `ts` a timestamp; `equip`, `role` (and `equip_class` when present) strings;
/// `value` a number. A part with the right names and the wrong types is damage: read as it
/// is, its rows would cast to nulls and vanish from every answer with no word.
fn open_part_file(fid: &str, part: &Path) -> Result<OpenedPart, StoreError> {
    let file = files::open_regular(part).map_err(|e| StoreError::io(Some(fid), "a part file cannot be opened", &e))?;
    check_part(fid, PartFile::Disk(file))
}

/// A part opened, its footer read: the file and what the footer says.
type OpenedPart = (PartFile, parquet::arrow::arrow_reader::ArrowReaderMetadata);

/// Read a part's footer and check its schema (see [`open_part_file`]).
fn check_part(fid: &str, file: PartFile) -> Result<OpenedPart, StoreError> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(|_| {
        file.failure().unwrap_or_else(|| StoreError::damaged(fid, "a part file is damaged (not readable Parquet)"))
    })?;
    let is_text = |t: &DataType| match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View),
        _ => false,
    };
    let schema = meta.schema();
    let field = |name: &str| schema.field_with_name(name).ok().map(|f| f.data_type().clone());
    let wrong = |what: &str| Err(StoreError::damaged(fid, &format!("a part file's {what}")));
    match field("ts") {
        None => return wrong("ts column is missing"),
        Some(DataType::Timestamp(..)) => {}
        Some(_) => return wrong("ts column is not a timestamp"),
    }
    for name in ["equip", "role", "equip_class"] {
        match field(name) {
            None if name == "equip_class" => {}
            None => return wrong(&format!("{name} column is missing")),
            Some(t) if is_text(&t) => {}
            Some(_) => return wrong(&format!("{name} column is not text")),
        }
    }
    match field("value") {
        None => return wrong("value column is missing"),
        Some(t) if t.is_numeric() => {}
        Some(_) => return wrong("value column is not numeric"),
    }
    Ok((file, meta))
}

/// A part to read: a file on disk or an object read in ranges.
pub(crate) enum PartFile {
    Disk(File),
    Remote(bucket::RemoteFile),
}

impl PartFile {
    /// The fetch error a remote read met (see [`bucket::RemoteFile`]).
    fn failure(&self) -> Option<StoreError> {
        match self {
            PartFile::Disk(_) => None,
            PartFile::Remote(r) => r.failure(),
        }
    }

    fn failure_slot(&self) -> Option<Arc<Mutex<Option<StoreError>>>> {
        match self {
            PartFile::Disk(_) => None,
            PartFile::Remote(r) => Some(r.failed.clone()),
        }
    }
}

impl parquet::file::reader::Length for PartFile {
    fn len(&self) -> u64 {
        match self {
            PartFile::Disk(f) => f.len(),
            PartFile::Remote(r) => r.entry.size,
        }
    }
}

impl parquet::file::reader::ChunkReader for PartFile {
    type T = Box<dyn std::io::Read + Send>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(match self {
            PartFile::Disk(f) => Box::new(f.get_read(start)?),
            PartFile::Remote(r) => Box::new(r.reader(start)),
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        match self {
            PartFile::Disk(f) => f.get_bytes(start, length),
            PartFile::Remote(r) => r.bytes(start, length as u64),
        }
    }
}

/// The part keys a generation pointer names (relative to the facility's prefix), when each is
/// a part key by the layout's rules.
fn pointer_parts(bytes: &[u8]) -> Option<Vec<String>> {
    let v: Value = serde_json::from_slice(bytes).ok()?;
    let mut out = Vec::new();
    for p in v.get("parts")?.as_array()? {
        let p = p.as_str()?;
        if !is_part_key(p) {
            return None;
        }
        out.push(p.to_string());
    }
    Some(out)
}

/// Whether a key relative to a facility's prefix is a part by the layout's rules (see
/// [`collect_parts`]): `[year=Y/[month=M/]]name.parquet`, no segment the store's own (`_`) or
/// scratch (`.`).
pub(crate) fn is_part_key(rel: &str) -> bool {
    let segs: Vec<&str> = rel.split('/').collect();
    let (name, dirs) = segs.split_last().map_or(("", &[][..]), |(n, d)| (*n, d));
    name.ends_with(".parquet")
        && dirs.len() <= 2
        && segs.iter().all(|s| !s.is_empty() && !s.starts_with('_') && !s.starts_with('.'))
        && dirs.iter().all(|d| d.starts_with("year=") || d.starts_with("month="))
}

/// The error of a stored time outside what a store holds (see
/// [`camber_common::time::storable`]).
fn out_of_range(fid: &str) -> StoreError {
    StoreError::damaged(fid, "a part file is damaged (it holds a time outside the years 1700 to 2199)")
}

/// A column as UTF-8 strings, whatever string or dictionary type the writer used.
fn string_column(fid: &str, b: &RecordBatch, name: &str) -> Result<ArrayRef, StoreError> {
    let col = b.column_by_name(name).ok_or_else(|| StoreError::damaged(fid, "a part file lacks a required column"))?;
    if col.data_type() == &DataType::Utf8 {
        return Ok(col.clone());
    }
    arrow_cast::cast(col, &DataType::Utf8)
        .map_err(|_| StoreError::damaged(fid, "a part file has a column of the wrong type"))
}

/// The `ts` column as nanoseconds (any timestamp unit, with or without a zone); no copy when
/// it is stored in nanoseconds already. A cast from a coarser unit that would overflow fails.
fn ts_column_raw(fid: &str, b: &RecordBatch) -> Result<arrow_array::PrimitiveArray<Int64Type>, StoreError> {
    let col = b.column_by_name("ts").ok_or_else(|| StoreError::damaged(fid, "a part file has no ts column"))?;
    if let DataType::Timestamp(TimeUnit::Nanosecond, _) = col.data_type() {
        let data = col.to_data().into_builder().data_type(DataType::Int64).build();
        if let Ok(d) = data {
            return Ok(arrow_array::PrimitiveArray::<Int64Type>::from(d));
        }
    }
    let ns = arrow_cast::cast(col, &DataType::Timestamp(TimeUnit::Nanosecond, None))
        .and_then(|c| arrow_cast::cast(&c, &DataType::Int64))
        .map_err(|_| StoreError::damaged(fid, "a part file's ts column is not a timestamp"))?;
    // a safe cast turns a time nanoseconds cannot hold into a null: that is damage, not a gap
    if ns.null_count() > col.null_count() {
        return Err(out_of_range(fid));
    }
    Ok(ns.as_primitive::<Int64Type>().clone())
}

/// The `ts` column as nanoseconds, every (non-null) time in the stored range: a time outside
/// it is damage, and refusing it here keeps every later grid and window computation from
/// overflowing.
fn ts_column(fid: &str, b: &RecordBatch) -> Result<arrow_array::PrimitiveArray<Int64Type>, StoreError> {
    let ts = ts_column_raw(fid, b)?;
    let in_range = if ts.null_count() == 0 {
        ts.values().iter().all(|&t| camber_common::time::storable(t))
    } else {
        ts.iter().flatten().all(camber_common::time::storable)
    };
    if !in_range {
        return Err(out_of_range(fid));
    }
    Ok(ts)
}

/// Nanoseconds per unit of a stored timestamp type (statistics are in the stored unit).
fn ts_unit_scale(dt: Option<DataType>) -> i64 {
    match dt {
        Some(DataType::Timestamp(TimeUnit::Second, _)) => 1_000_000_000,
        Some(DataType::Timestamp(TimeUnit::Millisecond, _)) => 1_000_000,
        Some(DataType::Timestamp(TimeUnit::Microsecond, _)) => 1_000,
        _ => 1,
    }
}

/// One equipment's frame on a time grid, with its class.
#[derive(Clone, Debug, PartialEq)]
pub struct GridFrame {
    pub equip: String,
    pub equip_class: String,
    pub frame: SharedFrame,
}

/// A grid's columns, each shared: a grid kept between calls hands its timestamps and values
/// out (to a guest's memory, to a chart) without a copy of its own first.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedFrame {
    pub ts: Arc<[i64]>,
    pub roles: Vec<String>,
    /// One column per role, each as long as `ts`.
    pub values: Vec<Arc<[f64]>>,
}

/// Whether a part file's month (or year, in the old layout) can hold samples in `[start, end]`.
/// A grid's slot (its index, time / step) to the row that holds it. Trends are regular, so the
/// slots of one equipment are a dense run from the first one seen: a vector indexed by the slot
/// answers without hashing a timestamp per stored row, and lists the rows in time order at the
/// end without a sort. Slots far apart (a grid much finer than the data) fall back to a map.
enum SlotRows {
    Dense { base: i64, rows: Vec<u32> },
    Map(HashMap<i64, usize>),
}

impl Default for SlotRows {
    fn default() -> SlotRows {
        SlotRows::Dense { base: 0, rows: Vec::new() }
    }
}

impl SlotRows {
    /// No row for the slot yet.
    const NONE: u32 = u32::MAX;

    /// The row of slot `k`, `next` (the caller's next row) when the slot is new.
    fn row(&mut self, k: i64, next: usize) -> usize {
        match self {
            SlotRows::Map(m) => *m.entry(k).or_insert(next),
            SlotRows::Dense { base, rows } => {
                if rows.is_empty() {
                    *base = k;
                }
                // room for the slots actually held, with slack: a sparse grid turns into a map
                let bound = 4 * next as i64 + 4096;
                let off = k - *base;
                let span = rows.len() as i64;
                let fits = if off < 0 { span - off <= bound } else { off < span.max(bound) };
                if fits && next < Self::NONE as usize {
                    if off < 0 {
                        let mut grown = vec![Self::NONE; (-off) as usize];
                        grown.append(rows);
                        *rows = grown;
                        *base = k;
                    }
                    let i = (k - *base) as usize;
                    if i >= rows.len() {
                        rows.resize(i + 1, Self::NONE);
                    }
                    if rows[i] == Self::NONE {
                        rows[i] = next as u32;
                    }
                    return rows[i] as usize;
                }
                let map = rows
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| **r != Self::NONE)
                    .map(|(i, r)| (*base + i as i64, *r as usize))
                    .collect();
                *self = SlotRows::Map(map);
                self.row(k, next)
            }
        }
    }

    /// The rows in slot order, when the index is dense (`None`: sort them).
    fn in_order(&self) -> Option<Vec<usize>> {
        match self {
            SlotRows::Dense { rows, .. } => {
                Some(rows.iter().filter(|r| **r != Self::NONE).map(|r| *r as usize).collect())
            }
            SlotRows::Map(_) => None,
        }
    }
}

fn part_overlaps(part: &Path, start: Option<i64>, end: Option<i64>) -> bool {
    let Some((y, m)) = part_year_month(part) else { return true };
    // a directory name no writer gives: let the rows' own times decide
    if !(1000..=3000).contains(&y) {
        return true;
    }
    let from = camber_common::time::days_from_civil(y, m.unwrap_or(1), 1) * 86_400_000_000_000;
    let (ny, nm) = match m {
        Some(12) | None => (y + 1, 1),
        Some(m) => (y, m + 1),
    };
    let to = camber_common::time::days_from_civil(ny, nm, 1) * 86_400_000_000_000;
    !(start.is_some_and(|s| to <= s) || end.is_some_and(|e| from > e))
}

/// One equipment's roles on shared timestamps (NaN where a role has no sample).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    pub ts: Vec<i64>,
    pub roles: Vec<String>,
    /// One column per role, each as long as `ts`.
    pub values: Vec<Vec<f64>>,
}

/// The (year, month) of a part from its partition directories (`None` month for the older
/// year-only layout).
pub(crate) fn part_year_month(p: &Path) -> Option<(i64, Option<u32>)> {
    let mut y = None;
    let mut m = None;
    for c in p.components() {
        let s = c.as_os_str().to_string_lossy();
        if let Some(v) = s.strip_prefix("year=") {
            y = v.parse().ok();
        } else if let Some(v) = s.strip_prefix("month=") {
            m = v.parse().ok();
        }
    }
    Some((y?, m))
}

/// Parts in time order: year, month (numerically, so month=10 follows month=9), then the
/// write sequence of `part-<seq>-<i>`, then the name.
pub(crate) fn part_order(p: &Path) -> (i64, u32, u64, u64, String) {
    let (y, m) = part_year_month(p).unwrap_or((i64::MIN, None));
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut nums = name
        .trim_start_matches("part-")
        .trim_end_matches(".parquet")
        .split('-')
        .map(|x| x.parse::<u64>().unwrap_or(u64::MAX));
    let seq = nums.next().unwrap_or(u64::MAX);
    let idx = nums.next().unwrap_or(u64::MAX);
    (y, m.unwrap_or(0), seq, idx, name)
}

/// A string column as dictionary keys ([`NULL_KEY`] for null) and its distinct values.
struct DictColumn {
    keys: Vec<u32>,
    values: Vec<String>,
}

/// The key of a null in a [`DictColumn`].
const NULL_KEY: u32 = u32::MAX;

impl DictColumn {
    fn key(&self, i: usize) -> Option<usize> {
        let k = self.keys[i];
        (k != NULL_KEY).then_some(k as usize)
    }
}

fn dict_column(fid: &str, b: &RecordBatch, name: &str) -> Result<DictColumn, StoreError> {
    let col = b.column_by_name(name).ok_or_else(|| StoreError::damaged(fid, "a part file lacks a required column"))?;
    if let Some(d) = col.as_any_dictionary_opt() {
        let values = arrow_cast::cast(d.values(), &DataType::Utf8)
            .map_err(|_| StoreError::damaged(fid, "a part file has a column of the wrong type"))?;
        let values = values.as_string::<i32>();
        let vals: Vec<String> = (0..values.len())
            .map(|i| if values.is_null(i) { String::new() } else { values.value(i).to_string() })
            .collect();
        let keys: Vec<u32> = if let Some(k) = d.keys().as_primitive_opt::<arrow_array::types::Int32Type>() {
            if k.null_count() == 0 {
                k.values().iter().map(|&x| x as u32).collect()
            } else {
                k.iter().map(|x| x.map_or(NULL_KEY, |x| x as u32)).collect()
            }
        } else {
            let keys_arr = arrow_cast::cast(d.keys(), &DataType::Int64)
                .map_err(|_| StoreError::damaged(fid, "a part file has a column of the wrong type"))?;
            let keys_arr = keys_arr.as_primitive::<Int64Type>();
            (0..keys_arr.len()).map(|i| if keys_arr.is_null(i) { NULL_KEY } else { keys_arr.value(i) as u32 }).collect()
        };
        return Ok(DictColumn { keys, values: vals });
    }
    // plain strings: intern them
    let s = string_column(fid, b, name)?;
    let s = s.as_string::<i32>();
    let mut index: HashMap<&str, u32> = HashMap::new();
    let mut values: Vec<String> = Vec::new();
    let keys = (0..s.len())
        .map(|i| {
            if s.is_null(i) {
                return NULL_KEY;
            }
            let v = s.value(i);
            *index.entry(v).or_insert_with(|| {
                values.push(v.to_string());
                values.len() as u32 - 1
            })
        })
        .collect();
    Ok(DictColumn { keys, values })
}

fn value_column(
    fid: &str,
    b: &RecordBatch,
) -> Result<arrow_array::PrimitiveArray<arrow_array::types::Float64Type>, StoreError> {
    if let Some(c) = b.column_by_name("value").and_then(|c| c.as_primitive_opt::<arrow_array::types::Float64Type>()) {
        return Ok(c.clone());
    }
    let c = b
        .column_by_name("value")
        .and_then(|c| arrow_cast::cast(c, &DataType::Float64).ok())
        .ok_or_else(|| StoreError::damaged(fid, "a part file has no numeric value column"))?;
    Ok(c.as_primitive::<arrow_array::types::Float64Type>().clone())
}

/// A part's batches with the string columns read as dictionaries, skipping row groups whose
/// time statistics fall outside the window.
fn read_part_filtered(
    fid: &str,
    opened: OpenedPart,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Vec<RecordBatch>, StoreError> {
    read_part_dict(fid, opened, &["ts", "equip", "role", "value"], start, end)
}

/// Some columns of a part with the string columns read as dictionaries, skipping row groups
/// whose time statistics fall outside the window.
fn read_part_dict(
    fid: &str,
    opened: OpenedPart,
    cols: &[&str],
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Vec<RecordBatch>, StoreError> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
    let (file, meta) = opened;
    let failed = file.failure_slot();
    // a fetch that failed is reported as what it was; only a part that was read whole and
    // does not parse is damaged
    let fetched_or =
        |e: StoreError| failed.as_ref().and_then(|f| f.lock().unwrap_or_else(|p| p.into_inner()).clone()).unwrap_or(e);
    let damaged = || fetched_or(StoreError::damaged(fid, "a part file is damaged (not readable Parquet)"));
    let hinted: Vec<arrow_schema::Field> = meta
        .schema()
        .fields()
        .iter()
        .map(|f| {
            let f = f.as_ref().clone();
            if ["equip", "equip_class", "role"].contains(&f.name().as_str())
                && matches!(f.data_type(), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View)
            {
                f.with_data_type(DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)))
            } else {
                f
            }
        })
        .collect();
    let schema = Arc::new(arrow_schema::Schema::new_with_metadata(hinted, meta.schema().metadata().clone()));
    let meta = ArrowReaderMetadata::try_new(meta.metadata().clone(), ArrowReaderOptions::new().with_schema(schema))
        .or_else(|_| ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()))
        .map_err(|_| damaged())?;
    let pq = meta.metadata().clone();
    let scale = ts_unit_scale(meta.schema().field_with_name("ts").map(|f| f.data_type().clone()).ok());
    let schema_descr = pq.file_metadata().schema_descr();
    let ts_idx = (0..schema_descr.num_columns()).find(|&i| schema_descr.column(i).name() == "ts");
    let groups: Vec<usize> = (0..pq.num_row_groups())
        .filter(|&g| {
            let Some(ti) = ts_idx else { return true };
            match pq.row_group(g).column(ti).statistics() {
                Some(Statistics::Int64(s)) => match (s.min_opt(), s.max_opt()) {
                    (Some(lo), Some(hi)) => {
                        !(start.is_some_and(|st| hi.saturating_mul(scale) < st)
                            || end.is_some_and(|en| lo.saturating_mul(scale) > en))
                    }
                    _ => true,
                },
                _ => true,
            }
        })
        .collect();
    if groups.is_empty() {
        return Ok(Vec::new());
    }
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta);
    let mask = ProjectionMask::columns(builder.parquet_schema(), cols.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_row_groups(groups)
        .with_batch_size(256 * 1024)
        .build()
        .map_err(|_| damaged())?;
    let mut out = Vec::new();
    for b in reader {
        out.push(b.map_err(|_| {
            fetched_or(StoreError::damaged(fid, "a part file is damaged (its data cannot be decoded)"))
        })?);
    }
    Ok(out)
}

/// Append every row of one part to `rows` (for merging an append into a stored month).
pub(crate) fn read_part_rows(fid: &str, part: &Path, rows: &mut LongRows) -> Result<(), StoreError> {
    for b in
        read_part_dict(fid, open_part_file(fid, part)?, &["ts", "equip", "equip_class", "role", "value"], None, None)?
    {
        let ts = ts_column(fid, &b)?;
        let eq = dict_column(fid, &b, "equip")?;
        let cl = dict_column(fid, &b, "equip_class")?;
        let ro = dict_column(fid, &b, "role")?;
        let val = value_column(fid, &b)?;
        for i in 0..b.num_rows() {
            let (Some(e), Some(r)) = (eq.key(i), ro.key(i)) else { continue };
            if ts.is_null(i) || val.is_null(i) {
                continue;
            }
            let key = PointKey {
                equip: eq.values[e].clone(),
                equip_class: cl.key(i).map(|k| cl.values[k].clone()).unwrap_or_default(),
                role: ro.values[r].clone(),
            };
            let p = rows.intern(&key);
            rows.push(ts.value(i), p, val.value(i));
        }
    }
    Ok(())
}

/// Rows in a part, from its footer.
pub(crate) fn part_rows(part: &Path) -> Option<usize> {
    let file = files::open_regular(part).ok()?;
    let b = ParquetRecordBatchReaderBuilder::try_new(file).ok()?;
    Some(b.metadata().file_metadata().num_rows() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_interval_that_is_not_a_number_is_refused_naming_its_variable() {
        let d = std::time::Duration::from_secs(7);
        // names no other test reads
        std::env::set_var("CAMBER_TEST_ENV_MILLIS_SET", " 250 ");
        std::env::set_var("CAMBER_TEST_ENV_MILLIS_BAD", "1s");
        assert_eq!(env_millis("CAMBER_TEST_ENV_MILLIS_UNSET", d), Ok(d));
        assert_eq!(env_millis("CAMBER_TEST_ENV_MILLIS_SET", d), Ok(std::time::Duration::from_millis(250)));
        assert_eq!(
            env_millis("CAMBER_TEST_ENV_MILLIS_BAD", d),
            Err("CAMBER_TEST_ENV_MILLIS_BAD is not a whole number of milliseconds".into())
        );
    }

    #[test]
    fn a_facilitys_fingerprint_follows_files_added_removed_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let rows: Vec<fixture::Row> = (0..6)
            .map(|i| (i * 60_000_000_000, "AHU-1".to_string(), "AHU".to_string(), "oat".to_string(), 50.0))
            .collect();
        fixture::write_facility(dir.path(), "f", &rows, serde_json::json!({})).unwrap();
        let store = StoreDir::open(dir.path()).unwrap();
        let first = store.facility_fingerprint("f");
        assert_eq!(store.facility_fingerprint("f"), first, "unchanged files, the same fingerprint");
        // a file appears beside the parts (its directory's listing is read again)
        let mut part = None;
        let mut files = Vec::new();
        store.collect_files(&store.facility_dir("f"), &mut files).unwrap();
        for f in &files {
            if f.extension().is_some_and(|e| e == "parquet") {
                part = Some(f.clone());
            }
        }
        let part = part.expect("a part file");
        let extra = part.with_file_name("part-9-9.parquet");
        std::fs::copy(&part, &extra).unwrap();
        let added = store.facility_fingerprint("f");
        assert_ne!(added, first);
        std::fs::remove_file(&extra).unwrap();
        let removed = store.facility_fingerprint("f");
        assert_ne!(removed, added);
        // rewritten in place to another size: its directory is unchanged, the file is not
        let bytes = std::fs::read(&part).unwrap();
        std::fs::write(&part, [bytes.as_slice(), b"x"].concat()).unwrap();
        assert_ne!(store.facility_fingerprint("f"), removed);
    }

    #[test]
    fn a_kept_grid_is_served_until_the_facility_changes() {
        let dir = tempfile::tempdir().unwrap();
        let rows = |v: f64| -> Vec<fixture::Row> {
            (0..6).map(|i| (i * 60_000_000_000, "AHU-1".to_string(), "AHU".to_string(), "oat".to_string(), v)).collect()
        };
        fixture::write_facility(dir.path(), "f", &rows(50.0), serde_json::json!({})).unwrap();
        let store = StoreDir::open(dir.path()).unwrap();
        let first = store.read_grid_shared("f", &[], None, None, 60_000_000_000).unwrap();
        let again = store.read_grid_shared("f", &[], None, None, 60_000_000_000).unwrap();
        assert!(Arc::ptr_eq(&first, &again), "the unchanged facility's grid is not read twice");
        let other = store.read_grid_shared("f", &[], None, None, 120_000_000_000).unwrap();
        assert!(!Arc::ptr_eq(&first, &other), "another step is another grid");
        assert_eq!(other[0].frame.ts.len(), 3);
        // an ingest rewrites the facility: the next read sees the new values
        fixture::write_facility(dir.path(), "f", &rows(70.0), serde_json::json!({})).unwrap();
        let after = store.read_grid_shared("f", &[], None, None, 60_000_000_000).unwrap();
        assert_eq!(after[0].frame.values[0][0], 70.0);
        assert_eq!(first[0].frame.values[0][0], 50.0);
    }

    #[test]
    fn slot_rows_index_regular_slots_densely_and_sparse_ones_by_map() {
        let mut s = SlotRows::default();
        // slots arrive role by role: 10..20 for one role, then 5..15 for another
        let mut next = 0;
        let mut rows = std::collections::BTreeMap::new();
        for k in (10..20).chain(5..15) {
            let r = s.row(k, next);
            if r == next {
                next += 1;
            }
            assert_eq!(*rows.entry(k).or_insert(r), r, "slot {k} keeps its row");
        }
        assert!(matches!(s, SlotRows::Dense { base: 5, .. }));
        let order = s.in_order().expect("dense");
        assert_eq!(order, (5..20).map(|k| rows[&k]).collect::<Vec<_>>(), "rows in slot order");
        // a slot far beyond what is held turns the index into a map, keeping every row
        let far = s.row(1_000_000_000, next);
        assert_eq!(far, next);
        assert!(matches!(s, SlotRows::Map(_)) && s.in_order().is_none());
        assert_eq!(s.row(12, 99), rows[&12]);
    }

    #[test]
    fn runs_round_trip_and_clip() {
        let ts = [0, 10, 20, 30, 100, 110, 500];
        let r = runs(&ts);
        let back: Vec<i64> = r.iter().flat_map(|r| (0..r.count as i64).map(move |k| r.start + k * r.step)).collect();
        assert_eq!(back, ts);
        let c = clip_runs(&r, Some(15), Some(105));
        let back: Vec<i64> = c.iter().flat_map(|r| (0..r.count as i64).map(move |k| r.start + k * r.step)).collect();
        assert_eq!(back, [20, 30, 100]);
        assert!(clip_runs(&r, Some(600), None).is_empty());
    }
}
