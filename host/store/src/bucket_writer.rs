//! Writes to a store on object storage, where there is no rename and no file lock.
//!
//! - **The lock is a lease**: the `_lock` object, created only if absent (or taken over with
//!   `If-Match` once its holder's lease has lapsed), naming its writer and when the lease ends.
//!   A killed writer blocks the next one only until its lease lapses.
//! - **A facility's data is swapped by a pointer**: the new generation's parts go under fresh
//!   keys (a `-g<generation>` suffix), invisible to readers, and then the facility's pointer
//!   ([`crate::CURRENT_FILE`]) is replaced with `If-Match` on the ETag it had. That one
//!   conditional put is the commit. Only then are the times index, the registry and the point
//!   catalog updated (each conditionally), and the old generation's parts deleted.
//! - **A killed writer is repaired by the next**: the lease records the writer's intent (the
//!   facility, the generation and its registry entry). If the pointer names that generation the
//!   swap happened, and the registry entry is written and the catalog invalidated; if not, the
//!   swap is rolled back. Either way, every part a pointer does not name is deleted.
//!
//! The new generation itself is built by the disk [`Writer`] in a local scratch copy of what
//! the write needs (the root files, and the facility's parts for an append), so a facility's
//! parts, times index, registry entry and catalog are made by one implementation wherever the
//! store is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{json, Map, Value};

use super::bucket::{Bucket, Expect, PutError};
use super::parts::LongRows;
use super::writer::{Mode, StoreWriter, WriteOutcome, Writer, LOCK_FILE, TOMBSTONES_FILE};
use super::{
    collect_parts, is_part_key, StoreDir, CURRENT_FILE, FACILITY_PREFIX, POINT_CATALOG_FILE, POINT_CATALOG_GEN_FILE,
    REGISTRY_FILE, TIMES_INDEX,
};

/// How long a writer's lease lasts by default (`CAMBER_LEASE_SECONDS` overrides); a writer
/// renews it before each step of a write.
pub const LEASE: Duration = Duration::from_secs(60);

/// An open, leased store on object storage.
pub struct BucketWriter {
    bucket: Arc<Bucket>,
    writer_id: String,
    /// The lease object's ETag while this writer holds it.
    lease_etag: String,
    lease: Duration,
    /// What the repair on opening did, one line each.
    pub repaired: Vec<String>,
}

fn lease_length() -> Duration {
    std::env::var("CAMBER_LEASE_SECONDS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .map_or(LEASE, Duration::from_secs_f64)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn failed(what: &str, e: PutError) -> String {
    match e {
        PutError::Conflict => format!("{what}: another writer changed it first; run the write again"),
        PutError::Failed(why) => format!("{what}: {why}"),
    }
}

impl Drop for BucketWriter {
    fn drop(&mut self) {
        // whatever this writer changed is announced before its lease goes
        let _ = self.bucket.publish();
        // hand the lease back: an expired lease, replaced only if it is still this writer's
        let body = json!({"writer": self.writer_id, "released": true, "expires_ms": 0});
        let _ = self.bucket.put(LOCK_FILE, Bytes::from(body.to_string()), Expect::ETag(self.lease_etag.clone()));
    }
}

impl BucketWriter {
    /// Take the store's lease, waiting up to `timeout` for another writer's to end or lapse,
    /// then repair what a killed writer left.
    pub fn open(bucket: Arc<Bucket>, timeout: Duration) -> Result<BucketWriter, String> {
        // a prefix holding only what is not a store's is somebody else's: written to, it would
        // mix a store into their objects
        let snap = bucket.refresh().map_err(|e| e.message)?;
        let top = |k: &String| k.split('/').next().unwrap_or_default().to_string();
        if !snap.objects.is_empty() && !snap.objects.keys().any(|k| super::writer::is_store_entry(&top(k))) {
            return Err("the prefix is not empty and holds no camber store; name an empty or store prefix".into());
        }
        let writer_id = camber_common::ids::random_hex().map_err(|e| format!("no randomness for a writer id: {e}"))?;
        let lease = lease_length();
        let deadline = Instant::now() + timeout;
        let (lease_etag, before) = loop {
            let body = |intent: Value| {
                Bytes::from(
                    json!({
                        "writer": writer_id, "host": super::writer::hostname(), "pid": std::process::id(),
                        "since": camber_common::ids::utc_now(),
                        "expires_ms": now_ms() + lease.as_millis() as u64, "intent": intent,
                    })
                    .to_string(),
                )
            };
            let held = bucket.fetch(LOCK_FILE).map_err(|e| format!("cannot read the store's lease: {e}"))?;
            let taken = match &held {
                None => bucket.put(LOCK_FILE, body(Value::Null), Expect::Absent),
                Some((text, etag)) => {
                    let holder: Value = serde_json::from_slice(text).unwrap_or(Value::Null);
                    let expires = holder.get("expires_ms").and_then(Value::as_u64).unwrap_or(0);
                    if expires > now_ms() {
                        if Instant::now() >= deadline {
                            return Err(format!(
                                "the store is locked by {}@{} since {} (another ingest is writing it; its lease ends within {} s)",
                                holder.get("pid").map(|p| p.to_string()).unwrap_or_else(|| "?".into()),
                                holder.get("host").and_then(Value::as_str).unwrap_or("?"),
                                holder.get("since").and_then(Value::as_str).unwrap_or("?"),
                                (expires - now_ms()).div_ceil(1000),
                            ));
                        }
                        std::thread::sleep(Duration::from_millis(200));
                        continue;
                    }
                    bucket.put(LOCK_FILE, body(Value::Null), Expect::ETag(etag.clone()))
                }
            };
            match taken {
                Ok(etag) => break (etag, held.and_then(|(t, _)| serde_json::from_slice::<Value>(&t).ok())),
                Err(PutError::Conflict) => continue,
                Err(PutError::Failed(why)) => return Err(format!("cannot take the store's lease: {why}")),
            }
        };
        let mut w = BucketWriter { bucket, writer_id, lease_etag, lease, repaired: Vec::new() };
        let intent = before.as_ref().filter(|h| h.get("released") != Some(&json!(true))).and_then(|h| h.get("intent"));
        w.repair(intent.filter(|i| !i.is_null()).cloned())
            .map_err(|why| format!("the store needs repair that could not be done: {why}"))?;
        Ok(w)
    }

    /// Renew the lease (recording `intent`), failing if another writer took it.
    fn renew(&mut self, intent: Value) -> Result<(), String> {
        let body = json!({
            "writer": self.writer_id, "host": super::writer::hostname(), "pid": std::process::id(),
            "since": camber_common::ids::utc_now(),
            "expires_ms": now_ms() + self.lease.as_millis() as u64, "intent": intent,
        });
        self.lease_etag = self
            .bucket
            .put(LOCK_FILE, Bytes::from(body.to_string()), Expect::ETag(self.lease_etag.clone()))
            .map_err(|e| failed("the store's lease was lost (another writer took it after it lapsed)", e))?;
        Ok(())
    }

    /// Finish or roll back a killed writer's swap (from its recorded intent), then delete the
    /// parts of its facility that the pointer does not name. Only a writer that recorded an
    /// intent uploads parts, and one that ends cleanly deletes its own old generation, so no
    /// other facility needs looking at.
    fn repair(&mut self, intent: Option<Value>) -> Result<(), String> {
        self.bucket.refresh().map_err(|e| e.message)?;
        if let Some(i) = intent {
            let fid = i.get("facility").and_then(Value::as_str).unwrap_or_default().to_string();
            let gen = i.get("generation").and_then(Value::as_str).unwrap_or_default();
            let pointer = self.bucket.fetch(&pointer_key(&fid))?;
            let swapped = pointer
                .as_ref()
                .and_then(|(b, _)| serde_json::from_slice::<Value>(b).ok())
                .is_some_and(|p| p.get("generation").and_then(Value::as_str) == Some(gen));
            if swapped && !fid.is_empty() {
                if let Some(entry) = i.get("entry").cloned() {
                    let (mut registry, etag) = self.json_object(REGISTRY_FILE)?;
                    registry.insert(fid.clone(), entry);
                    self.put_json(REGISTRY_FILE, &Value::Object(registry.into_iter().collect()), etag)?;
                }
                self.invalidate_catalog()?;
                self.repaired.push(format!("finished an interrupted rewrite of facility '{fid}'"));
            } else if !fid.is_empty() {
                self.repaired.push(format!("rolled back an interrupted rewrite of facility '{fid}'"));
            }
            if super::valid_facility_id(&fid) {
                let garbage = self.unnamed_parts(&fid)?;
                if !garbage.is_empty() {
                    self.bucket.delete(&garbage)?;
                    self.repaired.push(format!("removed {} part(s) that no generation names", garbage.len()));
                }
            }
        }
        Ok(())
    }

    /// The parts under a facility that its pointer does not name (none without a pointer: then
    /// every part is the facility's data).
    fn unnamed_parts(&self, fid: &str) -> Result<Vec<String>, String> {
        let Some((bytes, _)) = self.bucket.fetch(&pointer_key(fid))? else { return Ok(Vec::new()) };
        let named: BTreeSet<String> = super::pointer_parts(&bytes)
            .ok_or_else(|| format!("the generation pointer of facility '{fid}' is damaged"))?
            .into_iter()
            .collect();
        let dir = format!("{FACILITY_PREFIX}{fid}/");
        let snap = self.bucket.snapshot_now();
        Ok(snap
            .under(&dir)
            .filter(|(k, _)| is_part_key(&k[dir.len()..]) && !named.contains(&k[dir.len()..]))
            .map(|(k, _)| k.clone())
            .collect())
    }

    fn json_object(&self, rel: &str) -> Result<(BTreeMap<String, Value>, Option<String>), String> {
        match self.bucket.fetch(rel)? {
            None => Ok((BTreeMap::new(), None)),
            Some((b, etag)) => match serde_json::from_slice::<Value>(&b) {
                Ok(Value::Object(m)) => Ok((m.into_iter().collect(), Some(etag))),
                _ => Err(format!("{rel} is damaged (not a JSON object); repair or restore it before writing")),
            },
        }
    }

    fn put_json(&self, rel: &str, v: &Value, etag: Option<String>) -> Result<String, String> {
        let expect = etag.map_or(Expect::Absent, Expect::ETag);
        self.bucket.put(rel, Bytes::from(v.to_string()), expect).map_err(|e| failed(&format!("cannot write {rel}"), e))
    }

    /// A fresh catalog generation and no catalog: readers scan until the catalog is rebuilt.
    fn invalidate_catalog(&self) -> Result<(), String> {
        let gen = camber_common::ids::random_hex().map_err(|e| e.to_string())?;
        self.bucket
            .put(POINT_CATALOG_GEN_FILE, Bytes::from(gen), Expect::Any)
            .map_err(|e| failed("cannot write the catalog generation", e))?;
        self.bucket.delete(&[POINT_CATALOG_FILE.to_string()])
    }
}

/// Built locally by the disk writer, then uploaded and swapped in by the facility's pointer.
impl StoreWriter for BucketWriter {
    fn write_facility(
        &mut self,
        fid: &str,
        rows: &LongRows,
        mode: Mode,
        entry: Map<String, Value>,
    ) -> Result<WriteOutcome, String> {
        let scratch = Scratch::new()?;
        let shadow = scratch.0.join("store");
        let snap = self.bucket.refresh().map_err(|e| e.message)?;
        let store = StoreDir::over_bucket(self.bucket.clone());
        // what the disk writer's rules read: the root files, every facility's directory, and
        // for an append the facility's parts
        std::fs::create_dir_all(&shadow).map_err(|e| format!("cannot make the scratch store: {e}"))?;
        let mut etags: BTreeMap<&str, Option<String>> = BTreeMap::new();
        for rel in [REGISTRY_FILE, TOMBSTONES_FILE, POINT_CATALOG_FILE, POINT_CATALOG_GEN_FILE] {
            let got = self.bucket.fetch(rel)?;
            if let Some((b, _)) = &got {
                std::fs::write(shadow.join(rel), b).map_err(|e| format!("cannot copy {rel}: {e}"))?;
            }
            etags.insert(rel, got.map(|(_, e)| e));
        }
        for other in store.facility_ids().map_err(|e| e.message)? {
            let _ = std::fs::create_dir_all(shadow.join(format!("{FACILITY_PREFIX}{other}")));
        }
        let dir = format!("{FACILITY_PREFIX}{fid}/");
        let has_data = snap.has_under(&dir);
        let pointer = pointer_key(fid);
        let mut pointer_etag = self.bucket.fetch(&pointer)?.map(|(_, e)| e);
        // the parts there are now: what an append adds to, and what a pointer first made names;
        // a replace of a facility with a pointer needs neither (so it can replace a damaged one)
        let current: Vec<String> = if has_data && (mode == Mode::Append || pointer_etag.is_none()) {
            store
                .parts(fid)
                .map_err(|e| e.message)?
                .iter()
                .map(|p| store.part_key(p)[dir.len()..].to_string())
                .collect()
        } else {
            Vec::new()
        };
        if mode == Mode::Append {
            for rel in &current {
                let key = format!("{dir}{rel}");
                let e = snap.objects.get(&key).ok_or("a part went missing while the write read it")?;
                let bytes = self.bucket.read_all(Some(fid), &key, e).map_err(|e| e.message)?;
                let to = shadow.join(&key);
                if let Some(parent) = to.parent() {
                    let _ = std::fs::create_dir_all(parent);
                }
                std::fs::write(&to, &bytes).map_err(|e| format!("cannot copy a part: {e}"))?;
            }
        }
        // the new generation, built by the disk writer
        let outcome = {
            let mut w = Writer::open(&shadow, Duration::from_secs(1))?;
            w.write_facility(fid, rows, mode, entry)?
        };
        let built = shadow.join(format!("{FACILITY_PREFIX}{fid}"));
        let mut parts = Vec::new();
        collect_parts(&built, 0, &mut parts).map_err(|e| format!("cannot list the new parts: {e}"))?;
        let registry: Value = std::fs::read_to_string(shadow.join(REGISTRY_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .ok_or("the new registry cannot be read back")?;

        // a facility with data and no pointer yet gets one naming what it has, so the parts
        // uploaded next stay invisible until the swap
        if pointer_etag.is_none() && has_data {
            let adopt = json!({"generation": "adopted", "parts": current});
            pointer_etag = Some(self.put_json(&pointer, &adopt, None)?);
        }
        let gen = camber_common::ids::random_hex().map_err(|e| e.to_string())?[..12].to_string();
        self.renew(json!({"facility": fid, "generation": gen, "entry": registry.get(fid)}))?;

        // upload the new parts; an append's untouched month (the very part it downloaded) is
        // kept under its own key, and nothing else is: a replace's part may have an old part's
        // name and size and still hold other rows
        let mut named = Vec::new();
        let mut renamed: Vec<(String, String)> = Vec::new();
        for part in &parts {
            let rel =
                part.strip_prefix(&built).map_err(|_| "a part outside the facility")?.to_string_lossy().into_owned();
            let bytes = std::fs::read(part).map_err(|e| format!("cannot read a new part: {e}"))?;
            let kept = mode == Mode::Append
                && current.contains(&rel)
                && snap.objects.get(&format!("{dir}{rel}")).is_some_and(|e| e.size == bytes.len() as u64);
            let key_rel = if kept {
                rel.clone()
            } else {
                let stem = rel.strip_suffix(".parquet").unwrap_or(&rel);
                let k = format!("{stem}-g{gen}.parquet");
                self.bucket
                    .put(&format!("{dir}{k}"), Bytes::from(bytes), Expect::Absent)
                    .map_err(|e| failed("cannot upload a part", e))?;
                k
            };
            renamed.push((rel, key_rel.clone()));
            named.push(key_rel);
        }
        named.sort();
        // the commit
        let body = json!({"generation": gen, "parts": named, "written_at": camber_common::ids::utc_now()});
        self.put_json(&pointer, &body, pointer_etag).map_err(|e| format!("the swap did not happen: {e}"))?;

        // the times index, under the parts' final names
        let index = built.join(TIMES_INDEX);
        let index_key = format!("{dir}{TIMES_INDEX}");
        match std::fs::read_to_string(&index).ok().and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
            Some(mut v) => {
                let mut sig: Vec<(String, u64)> = Vec::new();
                for (from, to) in &renamed {
                    let size = std::fs::metadata(built.join(from)).map(|m| m.len()).unwrap_or(0);
                    sig.push((to.clone(), size));
                }
                sig.sort();
                v["parts"] = json!(sig);
                self.bucket
                    .put(&index_key, Bytes::from(v.to_string()), Expect::Any)
                    .map_err(|e| failed("cannot write the times index", e))?;
            }
            None => self.bucket.delete(&[index_key])?,
        }
        // the registry and the catalog, as the disk writer left them
        self.put_json(REGISTRY_FILE, &registry, etags[REGISTRY_FILE].clone())?;
        match std::fs::read(shadow.join(POINT_CATALOG_FILE)) {
            Ok(cat) => {
                self.bucket
                    .put(POINT_CATALOG_FILE, Bytes::from(cat), Expect::Any)
                    .map_err(|e| failed("cannot write the point catalog", e))?;
            }
            Err(_) => self.bucket.delete(&[POINT_CATALOG_FILE.to_string()])?,
        }
        if let Ok(g) = std::fs::read(shadow.join(POINT_CATALOG_GEN_FILE)) {
            self.bucket
                .put(POINT_CATALOG_GEN_FILE, Bytes::from(g), Expect::Any)
                .map_err(|e| failed("cannot write the catalog generation", e))?;
        }
        // the new generation is committed: readers are told, then the old generation goes
        self.bucket.publish()?;
        self.bucket.refresh().map_err(|e| e.message)?;
        let garbage = self.unnamed_parts(fid)?;
        self.bucket.delete(&garbage)?;
        self.renew(Value::Null)?;
        self.bucket.publish()?;
        self.bucket.refresh().map_err(|e| e.message)?;
        Ok(outcome)
    }

    fn take_repaired(&mut self) -> Vec<String> {
        std::mem::take(&mut self.repaired)
    }
}

/// The key of a facility's generation pointer.
fn pointer_key(fid: &str) -> String {
    format!("{FACILITY_PREFIX}{fid}/{CURRENT_FILE}")
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, String> {
        let name = format!(
            "camber-write-{}-{}",
            std::process::id(),
            &camber_common::ids::random_hex().map_err(|e| e.to_string())?[..12]
        );
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make a scratch directory: {e}"))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Open the store at `location` for writing (a directory, or object storage: see
/// [`StoreDir::open_location`]), waiting up to `timeout` for another writer.
pub fn open(location: &Path, timeout: Duration) -> Result<Box<dyn StoreWriter>, String> {
    let text = location.to_string_lossy();
    if super::bucket::is_url(&text) {
        let b = Bucket::open(&text)?;
        return Ok(Box::new(BucketWriter::open(b, timeout)?));
    }
    let path = text.strip_prefix("file://").map(Path::new).unwrap_or(location);
    Ok(Box::new(Writer::open(path, timeout)?))
}

/// [`super::writer::check_write`] wherever the store is: on object storage the rules are
/// checked under the lease, by the write itself.
pub fn check_write(location: &Path, fid: &str, mode: Mode) -> Result<(), String> {
    let text = location.to_string_lossy();
    if super::bucket::is_url(&text) {
        return super::writer::check_id(fid);
    }
    let path = text.strip_prefix("file://").map(Path::new).unwrap_or(location);
    super::writer::check_write(path, fid, mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Row;

    fn memory() -> Arc<Bucket> {
        Bucket::over(Arc::new(object_store::memory::InMemory::new()), "store", "memory://test/store").unwrap()
    }

    fn rows(fid_value: f64, months: i64) -> LongRows {
        let day = 86_400_000_000_000i64;
        let mut long = LongRows::default();
        let rows: Vec<Row> = (0..months * 30 * 24)
            .map(|i| {
                (
                    1_704_067_200_000_000_000 + i * day / 24,
                    "AHU-1".into(),
                    "AHU".into(),
                    "oat".into(),
                    fid_value + (i % 7) as f64,
                )
            })
            .collect();
        for (t, e, c, r, v) in rows {
            let k = long.intern(&crate::parts::PointKey { equip: e, equip_class: c, role: r });
            long.push(t, k, v);
        }
        long.finish();
        long
    }

    fn write(b: &Arc<Bucket>, fid: &str, rows: &LongRows, mode: Mode) -> Result<WriteOutcome, String> {
        let mut w = BucketWriter::open(b.clone(), Duration::from_secs(5))?;
        w.write_facility(fid, rows, mode, Map::new())
    }

    /// A reader lists the store again when a writer announces a change on the head, and not
    /// otherwise until its relist interval has passed.
    #[test]
    fn a_reader_lists_again_when_the_head_says_the_store_changed() {
        use crate::bucket::HEAD_FILE;
        use object_store::{ObjectStoreExt, PutPayload};
        let shared: Arc<dyn object_store::ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let writer = Bucket::over(shared.clone(), "store", "memory://test/store").unwrap();
        let reader = Bucket::over(shared.clone(), "store", "memory://test/store").unwrap();
        let long = Duration::from_secs(3600);
        // a store with no head yet (copied in by another tool): every refresh lists
        let foreign = "facility_id=copied/_camber_note.txt";
        let raw = |b: &Arc<Bucket>, rel: &str| {
            let key = object_store::path::Path::from(format!("store/{rel}"));
            let store = shared.clone();
            b.wait(async move { store.put(&key, PutPayload::from_static(b"x")).await }).unwrap().unwrap();
        };
        raw(&reader, foreign);
        assert!(reader.refresh_if_changed(long).unwrap().objects.contains_key(foreign));
        // a camber write publishes the head: the reader sees the new facility at once
        write(&writer, "hq", &rows(1.0, 1), Mode::Create).unwrap();
        let snap = reader.refresh_if_changed(long).unwrap();
        assert!(snap.has_under("facility_id=hq/"), "{:?}", snap.objects.keys().collect::<Vec<_>>());
        assert!(snap.objects.contains_key(HEAD_FILE));
        // an object written around camber is not listed while the head is unchanged...
        let later = "facility_id=copied/_camber_later.txt";
        raw(&reader, later);
        assert!(!reader.refresh_if_changed(long).unwrap().objects.contains_key(later));
        // ...until the relist interval has passed
        assert!(reader.refresh_if_changed(Duration::ZERO).unwrap().objects.contains_key(later));
        // a write that changes nothing announces nothing; a replace does
        let head = reader.head_etag().unwrap();
        writer.publish().unwrap();
        assert_eq!(reader.head_etag().unwrap(), head);
        write(&writer, "hq", &rows(2.0, 1), Mode::Replace).unwrap();
        assert_ne!(reader.head_etag().unwrap(), head);
    }

    /// The same writes on disk and on a bucket give the same data, points and times.
    #[test]
    fn writes_to_a_bucket_read_back_as_the_same_writes_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let b = memory();
        for (fid, r, mode) in [
            ("hq", rows(50.0, 2), Mode::Create),
            ("annex", rows(60.0, 1), Mode::Create),
            ("hq", rows(70.0, 3), Mode::Replace),
            ("annex", rows(80.0, 2), Mode::Append),
        ] {
            let mut disk = Writer::open(dir.path(), Duration::from_secs(5)).unwrap();
            disk.write_facility(fid, &r, mode, Map::new()).unwrap();
            drop(disk);
            write(&b, fid, &r, mode).unwrap();
        }
        let (disk, remote) = (StoreDir::open(dir.path()).unwrap(), StoreDir::over_bucket(b.clone()));
        assert_eq!(remote.facility_ids().unwrap(), vec!["annex".to_string(), "hq".to_string()]);
        for fid in ["hq", "annex"] {
            assert_eq!(remote.points(fid).unwrap(), disk.points(fid).unwrap());
            assert_eq!(remote.span(fid).unwrap(), disk.span(fid).unwrap());
            assert_eq!(
                remote.read_frame(fid, "AHU-1", &["oat".to_string()], None, None).unwrap(),
                disk.read_frame(fid, "AHU-1", &["oat".to_string()], None, None).unwrap()
            );
            // only the current generation's parts are left, each named by the pointer
            let listed: Vec<String> = b
                .snapshot_now()
                .under(&format!("{FACILITY_PREFIX}{fid}/"))
                .filter(|(k, _)| k.ends_with(".parquet"))
                .map(|(k, _)| k.clone())
                .collect();
            let served: Vec<String> = remote.parts(fid).unwrap().iter().map(|p| remote.part_key(p)).collect();
            assert_eq!(listed.len(), served.len(), "{fid}: no old generation is left");
        }
        assert!(remote.read_times_index("hq").is_some(), "a replace leaves a times index that matches its parts");
        assert_eq!(remote.registry().entries.keys().collect::<Vec<_>>(), vec!["annex", "hq"]);
        // a second create of a facility with data is refused, and leaves the store as it was
        let before = remote.generation(&["hq".to_string()]);
        let e = write(&b, "hq", &rows(1.0, 1), Mode::Create).unwrap_err();
        assert!(e.contains("already has data"), "{e}");
        b.refresh().unwrap();
        assert_eq!(remote.generation(&["hq".to_string()]), before);
    }

    #[test]
    fn a_held_lease_refuses_a_second_writer_and_a_lapsed_one_is_taken_over_and_repaired() {
        let b = memory();
        write(&b, "hq", &rows(50.0, 1), Mode::Create).unwrap();
        let remote = StoreDir::over_bucket(b.clone());
        let served = remote.read_frame("hq", "AHU-1", &["oat".to_string()], None, None).unwrap();
        let held = BucketWriter::open(b.clone(), Duration::from_secs(1)).unwrap();
        let e = BucketWriter::open(b.clone(), Duration::from_millis(300)).err().unwrap();
        assert!(e.contains("the store is locked by"), "{e}");
        drop(held);
        // a writer killed between uploading its parts and its swap: its lease lapses, its parts
        // are orphans the facility's pointer does not name
        let mut w = BucketWriter::open(b.clone(), Duration::from_secs(1)).unwrap();
        w.renew(json!({"facility": "hq", "generation": "deadbeef0000", "entry": {"name": "x"}})).unwrap();
        b.put("facility_id=hq/year=2024/month=1/part-0-0-gdeadbeef0000.parquet", Bytes::from("x"), Expect::Absent)
            .unwrap();
        let lease = b.fetch(LOCK_FILE).unwrap().unwrap();
        let mut body: Value = serde_json::from_slice(&lease.0).unwrap();
        body["expires_ms"] = json!(1);
        b.put(LOCK_FILE, Bytes::from(body.to_string()), Expect::ETag(lease.1)).unwrap();
        std::mem::forget(w); // killed: it never hands the lease back
        b.refresh().unwrap();
        assert_eq!(remote.read_frame("hq", "AHU-1", &["oat".to_string()], None, None).unwrap(), served);
        let next = BucketWriter::open(b.clone(), Duration::from_secs(1)).unwrap();
        assert!(next.repaired.iter().any(|r| r.contains("rolled back")), "{:?}", next.repaired);
        assert!(next.repaired.iter().any(|r| r.contains("removed 1 part")), "{:?}", next.repaired);
        drop(next);
        b.refresh().unwrap();
        assert_eq!(remote.read_frame("hq", "AHU-1", &["oat".to_string()], None, None).unwrap(), served);
    }
}
