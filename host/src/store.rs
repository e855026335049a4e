//! The store, read side: the reference's Parquet layout
//! (`facility_id=<id>/year=<y>/month=<m>/part-*.parquet` with `ts`, `equip`, `equip_class`,
//! `role`, `value`), the facility registry `_facilities.json` and the point catalog. Reads
//! stay inside the facility they are about: a call on one facility never opens another's
//! files. Every failure is a [`StoreError`] that the registry reports as `unavailable`.

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

/// The directory prefix of a facility's partition.
pub const FACILITY_PREFIX: &str = "facility_id=";
/// The facility registry file.
pub const REGISTRY_FILE: &str = "_facilities.json";
/// The point catalog and its generation token.
pub const CATALOG_FILE: &str = "_catalog.json";
pub const CATALOG_GEN_FILE: &str = "_catalog.gen";

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
    memo: Mutex<HashMap<String, Memo>>,
}

#[derive(Debug, Default)]
struct Memo {
    fingerprint: String,
    points: Option<Arc<Vec<PointRow>>>,
    span: Option<Option<(i64, i64)>>,
}

impl StoreDir {
    /// The store at `root`; `None` when there is no directory there.
    pub fn open(root: &Path) -> Option<Arc<StoreDir>> {
        root.is_dir().then(|| Arc::new(StoreDir { root: root.to_path_buf(), memo: Mutex::new(HashMap::new()) }))
    }

    /// A fingerprint of every file of a facility: relative name, size and mtime.
    pub fn facility_fingerprint(&self, fid: &str) -> String {
        let mut lines = Vec::new();
        let mut files = Vec::new();
        let _ = collect_files(&self.facility_dir(fid), &mut files);
        files.sort();
        for f in files {
            let rel = f.strip_prefix(&self.root).unwrap_or(&f).to_string_lossy().into_owned();
            lines.push(stat_line(&rel, &f));
        }
        sha256_hex(lines.join("\n").as_bytes())
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

    /// The store's root directory (never shown to a caller).
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn facility_dir(&self, fid: &str) -> PathBuf {
        self.root.join(format!("{FACILITY_PREFIX}{fid}"))
    }

    /// Every facility with a partition directory, sorted.
    pub fn facility_ids(&self) -> Result<Vec<String>, StoreError> {
        let rd = std::fs::read_dir(&self.root).map_err(|e| StoreError::io(None, "the store cannot be listed", &e))?;
        let mut out = Vec::new();
        for entry in rd.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(fid) = name.strip_prefix(FACILITY_PREFIX) {
                if entry.path().is_dir() && !fid.is_empty() {
                    out.push(fid.to_string());
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Whether `fid` has a partition directory.
    pub fn has_facility(&self, fid: &str) -> bool {
        valid_facility_id(fid) && self.facility_dir(fid).is_dir()
    }

    /// The facility registry.
    pub fn registry(&self) -> RegistryView {
        let path = self.root.join(REGISTRY_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return RegistryView::default(),
            Err(_) => return RegistryView { damaged: true, present: true, ..Default::default() },
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => RegistryView {
                entries: m.into_iter().filter(|(_, v)| v.is_object()).collect(),
                damaged: false,
                present: true,
            },
            _ => RegistryView { damaged: true, present: true, ..Default::default() },
        }
    }

    /// Every part file of a facility, sorted (both the year/month and the older year-only
    /// layouts).
    pub fn parts(&self, fid: &str) -> Result<Vec<PathBuf>, StoreError> {
        let dir = self.facility_dir(fid);
        let mut out = Vec::new();
        collect_parts(&dir, 0, &mut out)
            .map_err(|e| StoreError::io(Some(fid), "the facility's files cannot be listed", &e))?;
        out.sort();
        Ok(out)
    }

    /// The stored points of a facility, sorted by equipment, class and role: from the point
    /// catalog while it is current, else from a projected scan of the facility's parts.
    pub fn points(&self, fid: &str) -> Result<Arc<Vec<PointRow>>, StoreError> {
        if !self.has_facility(fid) {
            return Ok(Arc::new(Vec::new()));
        }
        let fp = self.facility_fingerprint(fid);
        if let Some(p) = self.memo_get(fid, &fp, |m| m.points.clone()) {
            return Ok(p);
        }
        let rows = Arc::new(self.points_uncached(fid)?);
        self.memo_put(fid, &fp, |m| m.points = Some(rows.clone()));
        Ok(rows)
    }

    fn points_uncached(&self, fid: &str) -> Result<Vec<PointRow>, StoreError> {
        if let Some(rows) = self.catalog_points(fid) {
            return Ok(rows);
        }
        let mut classes: BTreeMap<String, String> = BTreeMap::new();
        let mut keys: BTreeSet<(String, String)> = BTreeSet::new();
        for part in self.parts(fid)? {
            let batches = read_columns(fid, &part, &["equip", "equip_class", "role"])?;
            for b in batches {
                let equip = string_column(fid, &b, "equip")?;
                let class = string_column(fid, &b, "equip_class")?;
                let role = string_column(fid, &b, "role")?;
                let (eq, cl, ro) = (equip.as_string::<i32>(), class.as_string::<i32>(), role.as_string::<i32>());
                let mut last: Option<(&str, &str)> = None;
                for i in 0..b.num_rows() {
                    if eq.is_null(i) || ro.is_null(i) {
                        continue;
                    }
                    let (e, r) = (eq.value(i), ro.value(i));
                    if last == Some((e, r)) {
                        continue;
                    }
                    last = Some((e, r));
                    let c = if cl.is_null(i) { "" } else { cl.value(i) };
                    let entry = classes.entry(e.to_string()).or_default();
                    if entry.is_empty() && !c.is_empty() {
                        *entry = c.to_string();
                    }
                    keys.insert((e.to_string(), r.to_string()));
                }
            }
        }
        let mut rows: Vec<PointRow> = keys
            .into_iter()
            .map(|(equip, role)| PointRow { equip_class: classes.get(&equip).cloned().unwrap_or_default(), equip, role })
            .collect();
        rows.sort();
        Ok(rows)
    }

    /// The catalog's rows for `fid` when `_catalog.json` matches `_catalog.gen`.
    fn catalog_points(&self, fid: &str) -> Option<Vec<PointRow>> {
        let text = std::fs::read_to_string(self.root.join(CATALOG_FILE)).ok()?;
        let cat: Value = serde_json::from_str(&text).ok()?;
        let gen = std::fs::read_to_string(self.root.join(CATALOG_GEN_FILE)).ok();
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
            let equip_class = classes
                .and_then(|c| c.get(&equip))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
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
        let fp = self.facility_fingerprint(fid);
        if let Some(s) = self.memo_get(fid, &fp, |m| m.span) {
            return Ok(s);
        }
        let span = self.span_uncached(fid)?;
        self.memo_put(fid, &fp, |m| m.span = Some(span));
        Ok(span)
    }

    fn span_uncached(&self, fid: &str) -> Result<Option<(i64, i64)>, StoreError> {
        let mut span: Option<(i64, i64)> = None;
        for part in self.parts(fid)? {
            let file = File::open(&part).map_err(|e| StoreError::io(Some(fid), "a part file cannot be opened", &e))?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|_| StoreError::damaged(fid, "a part file is damaged (not readable Parquet)"))?;
            let meta = builder.metadata().clone();
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
                        let unit = ts_unit_scale(builder.schema().field_with_name("ts").map(|f| f.data_type().clone()).ok());
                        let (lo, hi) = (*s.min_opt().unwrap() * unit, *s.max_opt().unwrap() * unit);
                        span = Some(match span {
                            None => (lo, hi),
                            Some((a, b)) => (a.min(lo), b.max(hi)),
                        });
                    }
                    _ => from_stats = false,
                }
            }
            if !from_stats {
                for b in read_columns(fid, &part, &["ts"])? {
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

    /// One point's samples in `[start, end]`, sorted by time.
    pub fn read_series(
        &self,
        fid: &str,
        equip: &str,
        role: &str,
        start: Option<i64>,
        end: Option<i64>,
    ) -> Result<(Vec<i64>, Vec<f64>), StoreError> {
        let mut rows: Vec<(i64, f64)> = Vec::new();
        if !self.has_facility(fid) {
            return Ok((Vec::new(), Vec::new()));
        }
        for part in self.parts(fid)? {
            for b in read_columns(fid, &part, &["ts", "equip", "role", "value"])? {
                let ts = ts_column(fid, &b)?;
                let eq = string_column(fid, &b, "equip")?;
                let ro = string_column(fid, &b, "role")?;
                let val = b
                    .column_by_name("value")
                    .and_then(|c| arrow_cast::cast(c, &DataType::Float64).ok())
                    .ok_or_else(|| StoreError::damaged(fid, "a part file has no numeric value column"))?;
                let (eq, ro, val) = (eq.as_string::<i32>(), ro.as_string::<i32>(), val.as_primitive::<arrow_array::types::Float64Type>());
                for i in 0..b.num_rows() {
                    if eq.is_null(i) || ro.is_null(i) || ts.is_null(i) || val.is_null(i) {
                        continue;
                    }
                    if eq.value(i) != equip || ro.value(i) != role {
                        continue;
                    }
                    let t = ts.value(i);
                    if start.is_some_and(|s| t < s) || end.is_some_and(|e| t > e) {
                        continue;
                    }
                    rows.push((t, val.value(i)));
                }
            }
        }
        rows.sort_by_key(|r| r.0);
        Ok(rows.into_iter().unzip())
    }

    /// A digest of the size and modification time of the registry, the catalog and every file
    /// of the facilities `fids`: any rewrite, even in place, changes it.
    pub fn generation(&self, fids: &[String]) -> String {
        let mut lines: Vec<String> = Vec::new();
        for f in [REGISTRY_FILE, CATALOG_FILE, CATALOG_GEN_FILE] {
            lines.push(stat_line(f, &self.root.join(f)));
        }
        for fid in fids {
            lines.push(format!("{fid}|{}", self.facility_fingerprint(fid)));
        }
        sha256_hex(lines.join("\n").as_bytes())
    }
}

/// `name|size|mtime_ns` of one file, or `name|missing`.
fn stat_line(rel: &str, p: &Path) -> String {
    match std::fs::metadata(p) {
        Ok(m) => {
            let mtime = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{rel}|{}|{mtime}", m.len())
        }
        Err(_) => format!("{rel}|missing"),
    }
}

/// Whether `fid` may name a partition directory (no separators, no dot-dot).
pub fn valid_facility_id(fid: &str) -> bool {
    !fid.is_empty()
        && fid.len() <= 200
        && fid.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && fid.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn collect_parts(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('_') || name.starts_with('.') {
            continue;
        }
        let ft = entry.file_type()?;
        if ft.is_dir() && depth < 2 && (name.starts_with("year=") || name.starts_with("month=")) {
            collect_parts(&entry.path(), depth + 1, out)?;
        } else if ft.is_file() && name.ends_with(".parquet") {
            out.push(entry.path());
        }
    }
    Ok(())
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            collect_files(&entry.path(), out)?;
        } else {
            out.push(entry.path());
        }
    }
    Ok(())
}

/// Read some columns of one part file.
fn read_columns(fid: &str, part: &Path, cols: &[&str]) -> Result<Vec<RecordBatch>, StoreError> {
    let file = File::open(part).map_err(|e| StoreError::io(Some(fid), "a part file cannot be opened", &e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|_| StoreError::damaged(fid, "a part file is damaged (not readable Parquet)"))?;
    let mask = ProjectionMask::columns(builder.parquet_schema(), cols.iter().copied());
    let reader = builder
        .with_projection(mask)
        .with_batch_size(64 * 1024)
        .build()
        .map_err(|_| StoreError::damaged(fid, "a part file is damaged (not readable Parquet)"))?;
    let mut out = Vec::new();
    for b in reader {
        out.push(b.map_err(|_| StoreError::damaged(fid, "a part file is damaged (its data cannot be decoded)"))?);
    }
    Ok(out)
}

/// A column as UTF-8 strings, whatever string or dictionary type the writer used.
fn string_column(fid: &str, b: &RecordBatch, name: &str) -> Result<ArrayRef, StoreError> {
    let col = b
        .column_by_name(name)
        .ok_or_else(|| StoreError::damaged(fid, "a part file lacks a required column"))?;
    if col.data_type() == &DataType::Utf8 {
        return Ok(col.clone());
    }
    arrow_cast::cast(col, &DataType::Utf8).map_err(|_| StoreError::damaged(fid, "a part file has a column of the wrong type"))
}

/// The `ts` column as nanoseconds (any timestamp unit, with or without a zone).
fn ts_column(fid: &str, b: &RecordBatch) -> Result<arrow_array::PrimitiveArray<Int64Type>, StoreError> {
    let col = b.column_by_name("ts").ok_or_else(|| StoreError::damaged(fid, "a part file has no ts column"))?;
    let ns = arrow_cast::cast(col, &DataType::Timestamp(TimeUnit::Nanosecond, None))
        .and_then(|c| arrow_cast::cast(&c, &DataType::Int64))
        .map_err(|_| StoreError::damaged(fid, "a part file's ts column is not a timestamp"))?;
    Ok(ns.as_primitive::<Int64Type>().clone())
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
