//! What a portfolio run writes: per facility, one Parquet file of its ranked issues and one of
//! its warn and fault findings, in a Hive layout any SQL engine reads
//! (`<out>/issues/facility_id=<id>/run-<run>.parquet`, `<out>/findings/...`), and one manifest
//! per shard (`<out>/manifests/<run>/shard-<i>-of-<n>.json`) that says which facilities
//! the shard ran, what each gave, and, written last, that the shard is complete. The output may
//! be a directory or an object storage URL, as a store may.
//!
//! Facilities are dealt to shards by a stable hash of their id, so every shard of an array job
//! (Kubernetes Indexed Jobs, AWS Batch array jobs, Slurm job arrays) agrees on its share with
//! no coordinator.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use serde_json::Value;

use super::bucket::{is_url, Bucket, Expect};

/// The shard (of `shards`) a facility belongs to: the first eight bytes of its id's SHA-256.
pub fn shard_of(fid: &str, shards: u32) -> u32 {
    let digest = camber_common::canonical::sha256_hex(fid.as_bytes());
    let head = u64::from_str_radix(&digest[..16], 16).unwrap_or(0);
    (head % u64::from(shards.max(1))) as u32
}

/// The shard index an array job's scheduler gives this process, from the first of these it
/// sets: `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job), `AWS_BATCH_JOB_ARRAY_INDEX`,
/// `SLURM_ARRAY_TASK_ID`.
pub fn scheduler_index() -> Option<(String, u32)> {
    ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX", "SLURM_ARRAY_TASK_ID"]
        .iter()
        .find_map(|k| std::env::var(k).ok().and_then(|v| v.trim().parse().ok()).map(|i| (k.to_string(), i)))
}

/// Where a run's files go: a directory or a bucket prefix.
pub enum Out {
    Dir(PathBuf),
    Bucket(Arc<Bucket>),
}

impl Out {
    /// The output at `location` (a directory, created when missing, or an object storage URL).
    pub fn open(location: &str) -> Result<Out, String> {
        if is_url(location) {
            return Ok(Out::Bucket(Bucket::connect(location)?));
        }
        let dir = PathBuf::from(location.strip_prefix("file://").unwrap_or(location));
        std::fs::create_dir_all(&dir).map_err(|e| format!("--out cannot be created ({})", e.kind()))?;
        Ok(Out::Dir(dir))
    }

    /// Write `bytes` at `rel`, whole or not at all.
    pub fn put(&self, rel: &str, bytes: Vec<u8>) -> Result<(), String> {
        match self {
            Out::Dir(d) => {
                let path = d.join(rel);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| format!("{rel} cannot be written ({})", e.kind()))?;
                }
                super::writer::write_atomic(&path, &bytes)
                    .map_err(|e| format!("{rel} cannot be written ({})", e.kind()))
            }
            Out::Bucket(b) => b.put(rel, Bytes::from(bytes), Expect::Any).map(|_| ()).map_err(|e| match e {
                super::bucket::PutError::Failed(why) => format!("{rel} cannot be written: {why}"),
                super::bucket::PutError::Conflict => format!("{rel} cannot be written: it changed meanwhile"),
            }),
        }
    }
}

impl Out {
    /// The bytes at `rel`, or `None` when there is nothing there.
    pub fn get(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Out::Dir(d) => match std::fs::read(d.join(rel)) {
                Ok(b) => Ok(Some(b)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(format!("{rel} cannot be read ({})", e.kind())),
            },
            Out::Bucket(b) => b.fetch(rel).map(|got| got.map(|(bytes, _)| bytes.to_vec())),
        }
    }

    /// The keys of the manifests written so far (`manifests/<run>/shard-<i>-of-<n>.json`).
    fn manifests(&self) -> Result<Vec<String>, String> {
        match self {
            Out::Dir(d) => {
                let mut keys = Vec::new();
                let Ok(runs) = std::fs::read_dir(d.join("manifests")) else { return Ok(keys) };
                for run in runs.flatten() {
                    let name = run.file_name().to_string_lossy().into_owned();
                    for shard in std::fs::read_dir(run.path()).into_iter().flatten().flatten() {
                        keys.push(format!("manifests/{name}/{}", shard.file_name().to_string_lossy()));
                    }
                }
                Ok(keys)
            }
            Out::Bucket(b) => b.list_prefix("manifests/"),
        }
    }
}

/// The portfolio runs a server answers the `portfolio` capability from: where
/// `camber portfolio run --out` writes, and the latest complete run read from it, kept until
/// a newer run completes.
pub struct Runs {
    out: Out,
    latest: std::sync::Mutex<Option<Arc<Latest>>>,
}

/// A complete portfolio run: every shard's manifest written and marked complete.
pub struct Latest {
    pub run: String,
    pub shards: u32,
    /// When its first shard started and its last one finished (UTC, ISO 8601).
    pub started: String,
    pub finished: String,
    /// Each facility's manifest entry (status, issue count, cost, ...), by facility id.
    pub facilities: std::collections::BTreeMap<String, Value>,
    /// Each facility's ranked issues, as rows of its issues file.
    pub issues: std::collections::BTreeMap<String, Vec<Value>>,
}

impl Runs {
    /// The runs at `location` (a directory or an object storage URL); nothing is read yet.
    pub fn open(location: &str) -> Result<Runs, String> {
        let out = if is_url(location) {
            Out::Bucket(Bucket::connect(location)?)
        } else {
            Out::Dir(PathBuf::from(location.strip_prefix("file://").unwrap_or(location)))
        };
        Ok(Runs { out, latest: std::sync::Mutex::new(None) })
    }

    /// The latest complete run (`None` when no run has completed). The manifests are listed on
    /// every call; a run's files are read once.
    pub fn latest(&self) -> Result<Option<Arc<Latest>>, String> {
        let Some((run, keys)) = latest_complete(&self.out.manifests()?) else { return Ok(None) };
        let mut kept = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(l) = kept.as_ref().filter(|l| l.run == run) {
            return Ok(Some(l.clone()));
        }
        let loaded = Arc::new(self.load(&run, &keys)?);
        *kept = Some(loaded.clone());
        Ok(Some(loaded))
    }

    fn load(&self, run: &str, keys: &[String]) -> Result<Latest, String> {
        let mut latest = Latest {
            run: run.to_string(),
            shards: keys.len() as u32,
            started: String::new(),
            finished: String::new(),
            facilities: Default::default(),
            issues: Default::default(),
        };
        for key in keys {
            let bytes = self.out.get(key)?.ok_or_else(|| format!("{key} went missing while it was read"))?;
            let m: Value = serde_json::from_slice(&bytes).map_err(|_| format!("{key} is not a manifest"))?;
            let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            if latest.started.is_empty() || text("started") < latest.started {
                latest.started = text("started");
            }
            latest.finished = latest.finished.max(text("finished"));
            for entry in m.get("facilities").and_then(Value::as_array).into_iter().flatten() {
                let Some(fid) = entry.get("facility_id").and_then(Value::as_str) else { continue };
                if let Some(file) = entry.get("file").and_then(Value::as_str) {
                    let bytes = self.out.get(file)?.ok_or_else(|| format!("{file} is named by {key} but missing"))?;
                    latest.issues.insert(fid.to_string(), issue_rows(&bytes).map_err(|e| format!("{file}: {e}"))?);
                }
                latest.facilities.insert(fid.to_string(), entry.clone());
            }
        }
        Ok(latest)
    }
}

/// The latest run whose every shard has a manifest (the manifest is written last, so its
/// presence says the shard finished), with those manifests' keys.
fn latest_complete(keys: &[String]) -> Option<(String, Vec<String>)> {
    let mut runs: std::collections::BTreeMap<(&str, u32), Vec<(u32, &String)>> = Default::default();
    for key in keys {
        let Some((run, file)) = key.strip_prefix("manifests/").and_then(|k| k.split_once('/')) else { continue };
        let Some((i, n)) = file
            .strip_prefix("shard-")
            .and_then(|f| f.strip_suffix(".json"))
            .and_then(|f| f.split_once("-of-"))
            .and_then(|(i, n)| Some((i.parse::<u32>().ok()?, n.parse::<u32>().ok()?)))
        else {
            continue;
        };
        runs.entry((run, n)).or_default().push((i, key));
    }
    runs.into_iter()
        .filter(|((_, n), shards)| {
            let mut seen: Vec<u32> = shards.iter().map(|(i, _)| *i).collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len() as u32 == *n && seen.iter().all(|i| i < n)
        })
        .max_by(|((a, _), _), ((b, _), _)| a.cmp(b))
        .map(|((run, _), shards)| (run.to_string(), shards.into_iter().map(|(_, k)| k.clone()).collect()))
}

/// The rows of an issues file, as JSON objects with the keys [`issues_parquet`] writes.
fn issue_rows(bytes: &[u8]) -> Result<Vec<Value>, String> {
    use arrow_array::Array;
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes.to_vec()))
        .and_then(|b| b.build())
        .map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| e.to_string())?;
        let schema = batch.schema();
        let mut out: Vec<serde_json::Map<String, Value>> = vec![Default::default(); batch.num_rows()];
        for (field, col) in schema.fields().iter().zip(batch.columns()) {
            let any = col.as_any();
            for (r, row) in out.iter_mut().enumerate() {
                let v = if col.is_null(r) {
                    Value::Null
                } else if let Some(a) = any.downcast_ref::<StringArray>() {
                    Value::from(a.value(r))
                } else if let Some(a) = any.downcast_ref::<Float64Array>() {
                    serde_json::Number::from_f64(a.value(r)).map_or(Value::Null, Value::Number)
                } else if let Some(a) = any.downcast_ref::<Int64Array>() {
                    Value::from(a.value(r))
                } else {
                    Value::Null
                };
                row.insert(field.name().clone(), v);
            }
        }
        rows.extend(out.into_iter().map(Value::Object));
    }
    Ok(rows)
}

/// The key of a facility's issues file for a run.
pub fn issues_key(fid: &str, run: &str) -> String {
    format!("issues/facility_id={fid}/run-{run}.parquet")
}

/// The key of a shard's manifest.
pub fn manifest_key(run: &str, shard: u32, shards: u32) -> String {
    format!("manifests/{run}/shard-{shard}-of-{shards}.json")
}

/// The key of a facility's findings file for a run.
pub fn findings_key(fid: &str, run: &str) -> String {
    format!("findings/facility_id={fid}/run-{run}.parquet")
}

/// Rows of JSON objects turned into Arrow columns, one per key: the facility and the run
/// first, then whatever the caller names (a key a row lacks, or holds with another type, is
/// null).
struct Table<'a> {
    rows: Vec<&'a Value>,
    fields: Vec<Field>,
    columns: Vec<ArrayRef>,
}

impl<'a> Table<'a> {
    fn new(fid: &str, run: &str, rows: Vec<&'a Value>) -> Table<'a> {
        let n = rows.len();
        Table {
            rows,
            fields: vec![Field::new("facility_id", DataType::Utf8, false), Field::new("run", DataType::Utf8, false)],
            columns: vec![Arc::new(StringArray::from(vec![fid; n])), Arc::new(StringArray::from(vec![run; n]))],
        }
    }

    fn column(mut self, name: &str, kind: DataType, array: ArrayRef) -> Self {
        self.fields.push(Field::new(name, kind, true));
        self.columns.push(array);
        self
    }

    /// A text column, named as its key.
    fn text(self, k: &str) -> Self {
        let a = StringArray::from(self.rows.iter().map(|r| r.get(k).and_then(Value::as_str)).collect::<Vec<_>>());
        self.column(k, DataType::Utf8, Arc::new(a))
    }

    /// A list of texts as one text, its items joined by `sep`.
    fn joined(self, k: &str, sep: &str) -> Self {
        let a = StringArray::from(
            self.rows
                .iter()
                .map(|r| {
                    r.get(k)
                        .and_then(Value::as_array)
                        .map(|a| a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(sep))
                })
                .collect::<Vec<_>>(),
        );
        self.column(k, DataType::Utf8, Arc::new(a))
    }

    fn number(self, k: &str) -> Self {
        let a = Float64Array::from(self.rows.iter().map(|r| r.get(k).and_then(Value::as_f64)).collect::<Vec<_>>());
        self.column(k, DataType::Float64, Arc::new(a))
    }

    fn int(self, k: &str) -> Self {
        let a = Int64Array::from(self.rows.iter().map(|r| r.get(k).and_then(Value::as_i64)).collect::<Vec<_>>());
        self.column(k, DataType::Int64, Arc::new(a))
    }

    /// The table as one Parquet file.
    fn parquet(self, what: &str) -> Result<Vec<u8>, String> {
        let schema = Arc::new(Schema::new(self.fields));
        let batch = RecordBatch::try_new(schema.clone(), self.columns).map_err(|e| format!("the {what} table: {e}"))?;
        let mut out = Vec::new();
        let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, schema, None).map_err(|e| e.to_string())?;
        w.write(&batch).map_err(|e| e.to_string())?;
        w.close().map_err(|e| e.to_string())?;
        Ok(out)
    }
}

/// The issues of one facility's `rcx_report` data as one Parquet file: a row per ranked issue
/// with its rank, what and where, severity, rules, cost and confidence.
pub fn issues_parquet(fid: &str, run: &str, report: &Value) -> Result<Vec<u8>, String> {
    let issues: Vec<&Value> =
        report.get("issues").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default();
    Table::new(fid, run, issues)
        .int("rank")
        .text("key")
        .text("title")
        .text("equip")
        .text("severity")
        .text("root_rule")
        .joined("rules", ",")
        .joined("finding_ids", ",")
        .number("annual_cost_usd")
        .number("hours")
        .number("pct_runtime")
        .text("confidence")
        .parquet("issues")
}

/// One facility's warn and fault findings as one Parquet file: a row per finding of
/// `rule_run` (`source` "rule_run") and of `drift` (`source` "drift", with its `family`), each
/// with what judged it, where, how badly, the samples judged and flagged, and its caveats.
pub fn findings_parquet(fid: &str, run: &str, findings: &[(&str, &Value)]) -> Result<Vec<u8>, String> {
    let rows: Vec<&Value> = findings.iter().map(|(_, f)| *f).collect();
    let source = StringArray::from(findings.iter().map(|(s, _)| *s).collect::<Vec<_>>());
    Table::new(fid, run, rows)
        .column("source", DataType::Utf8, Arc::new(source))
        .text("finding_id")
        .text("rule")
        .text("family")
        .text("equip")
        .text("equip_class")
        .text("severity")
        .text("summary")
        .number("grid_minutes")
        .int("judged_samples")
        .int("flagged_samples")
        .number("share")
        .joined("caveats", " | ")
        .parquet("findings")
}

/// A run id: the UTC time it started, sortable, safe in a key.
pub fn run_id() -> String {
    camber_common::ids::utc_now().replace([':', '-'], "").replace('.', "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn the_latest_run_is_the_newest_with_every_shard_written() {
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let got = latest_complete(&keys(&[
            "manifests/20261201/shard-0-of-2.json",
            "manifests/20261201/shard-1-of-2.json",
            "manifests/20261202/shard-0-of-1.json",
            // newer, but one of its three shards is missing
            "manifests/20261203/shard-0-of-3.json",
            "manifests/20261203/shard-2-of-3.json",
            "manifests/20261204/notes.txt",
        ]));
        assert_eq!(got, Some(("20261202".to_string(), keys(&["manifests/20261202/shard-0-of-1.json"]))));
        assert_eq!(latest_complete(&keys(&["manifests/r/shard-1-of-1.json"])), None, "shard 1 of 1 does not exist");
        assert_eq!(latest_complete(&[]), None);
    }

    #[test]
    fn shards_split_every_facility_once_and_stably() {
        let fids: Vec<String> = (0..1000).map(|i| format!("site-{i}")).collect();
        let mut counts = [0u32; 4];
        for f in &fids {
            let s = shard_of(f, 4);
            assert_eq!(s, shard_of(f, 4));
            counts[s as usize] += 1;
        }
        assert_eq!(counts.iter().sum::<u32>(), 1000);
        assert!(counts.iter().all(|&c| (200..300).contains(&c)), "{counts:?}");
        assert!(fids.iter().all(|f| shard_of(f, 1) == 0));
    }

    #[test]
    fn an_issues_file_reads_back_with_its_rows() {
        let report = serde_json::json!({"issues": [
            {"rank": 1, "key": "k1", "title": "Fix", "equip": "AHU-1", "severity": "fault", "root_rule": "r",
             "rules": ["r", "s"], "finding_ids": ["r@AHU-1"], "annual_cost_usd": 12.5, "hours": 3.0, "confidence": "M"},
            {"rank": 2, "key": "k2", "title": "Look", "equip": "AHU-2", "severity": "warn", "annual_cost_usd": null}
        ]});
        let bytes = issues_parquet("hq", "r1", &report).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
        let b = &batches[0];
        assert_eq!(b.num_rows(), 2);
        let cost = b.column_by_name("annual_cost_usd").unwrap().as_any().downcast_ref::<Float64Array>().unwrap();
        assert_eq!(cost.value(0), 12.5);
        assert!(cost.is_null(1));
        let rules = b.column_by_name("rules").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(rules.value(0), "r,s");
    }

    #[test]
    fn a_findings_file_keeps_each_findings_source_and_counts() {
        let rule = serde_json::json!({"finding_id": "leaking_valve@AHU-1", "rule": "leaking_valve", "equip": "AHU-1",
            "severity": "fault", "summary": "s", "judged_samples": 840, "flagged_samples": 811, "share": 96.55,
            "caveats": ["a", "b"], "grid_minutes": 15.0});
        let drift = serde_json::json!({"finding_id": "pump:pump_flow_drift@P-1", "rule": "pump_flow_drift",
            "family": "pump", "equip": "P-1", "severity": "warn", "judged_samples": 10, "flagged_samples": 2,
            "share": null, "caveats": []});
        let bytes = findings_parquet("hq", "r1", &[("rule_run", &rule), ("drift", &drift)]).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
            .unwrap()
            .build()
            .unwrap();
        let b = reader.map(|b| b.unwrap()).next().unwrap();
        assert_eq!(b.num_rows(), 2);
        let text = |k: &str| b.column_by_name(k).unwrap().as_any().downcast_ref::<StringArray>().unwrap().clone();
        assert_eq!((text("source").value(0), text("source").value(1)), ("rule_run", "drift"));
        assert!(text("family").is_null(0) && text("family").value(1) == "pump");
        assert_eq!(text("caveats").value(0), "a | b");
        let flagged = b.column_by_name("flagged_samples").unwrap().as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!((flagged.value(0), flagged.value(1)), (811, 2));
        let share = b.column_by_name("share").unwrap().as_any().downcast_ref::<Float64Array>().unwrap();
        assert!(share.value(0) == 96.55 && share.is_null(1));
    }
}
