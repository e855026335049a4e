//! The store on object storage (S3, Google Cloud Storage, Azure Blob), through the
//! `object_store` crate. The layout is the disk store's, key for path, so a store copied to a
//! bucket is served as it is and what camber writes there any Hive reader reads.
//!
//! A [`Bucket`] keeps a [`Snapshot`]: every object under the store's prefix with its size,
//! ETag and time, taken by one listing and refreshed in the background. Reads resolve names
//! against the snapshot and fetch with `If-Match` on the ETag they saw, so an object that
//! changed since is never mixed in: the read fails as retryable. Parquet parts are read
//! through [`RemoteFile`], a `ChunkReader` that fetches only the byte ranges the reader asks
//! for (the footer, then the column chunks of the row groups it keeps), in aligned blocks that
//! are cached per object version. The store's own synchronous code runs unchanged on top;
//! the network work runs on the bucket's own small tokio runtime.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

pub use bytes::Bytes;
use bytes::{Buf, BytesMut};
use futures::TryStreamExt;
use object_store::path::Path as Key;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

use super::StoreError;

/// The schemes served from object storage (`file://` is the disk store).
pub const SCHEMES: &[&str] = &["s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl", "memory"];

/// Bytes fetched per ranged read and cached: large enough that a part's footer and its
/// row groups' column chunks come in a few requests, small enough that a read of a few
/// columns does not pull the rest.
pub const BLOCK: u64 = 1 << 20;

/// Bytes of object blocks a bucket keeps between calls.
pub const BLOCK_CACHE_BYTES: usize = 512 << 20;

/// How often the snapshot is refreshed by default (`CAMBER_STORE_REFRESH_MS` overrides).
pub const REFRESH: Duration = Duration::from_secs(1);

/// The store-level head object. Every writer replaces it after the changes it committed
/// ([`Bucket::publish`]), so a reader that finds its ETag unchanged need not list the store
/// again: one small request a refresh instead of a listing of every object, a page per
/// thousand.
pub const HEAD_FILE: &str = "_camber_head.json";

/// How long a reader trusts an unchanged head before it lists anyway, for a store changed by
/// something that does not write the head (a copy made with another tool, an older writer).
/// `CAMBER_STORE_RELIST_MS` overrides.
pub const RELIST: Duration = Duration::from_secs(60);

/// Whether a write to `rel` changes what the store serves (and so what the head announces):
/// not the writers' lease, not the head itself, not the MCP tasks that replicas share there.
fn is_store_data(rel: &str) -> bool {
    rel != HEAD_FILE
        && rel != super::writer::LOCK_FILE
        && !rel.strip_prefix(camber_common::TASKS_DIR).is_some_and(|r| r.starts_with('/'))
}

/// How long a snapshot may go unrefreshed (the store unreachable) before calls are refused
/// as `unavailable` rather than served from what may be old data.
pub const STALE_AFTER: Duration = Duration::from_secs(30);

/// One object as the last listing saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub size: u64,
    /// The ETag (or version) that reads must match; empty when the store gives none.
    pub etag: String,
    /// Last modified, in nanoseconds since the epoch.
    pub modified_ns: i64,
}

/// Every object under the store prefix, by key relative to it, at one moment.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub objects: BTreeMap<String, Entry>,
}

impl Snapshot {
    /// The objects whose keys start with `prefix`.
    pub fn under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a String, &'a Entry)> + 'a {
        self.objects.range(prefix.to_string()..).take_while(move |(k, _)| k.starts_with(prefix))
    }

    /// Whether any object's key starts with `prefix`.
    pub fn has_under(&self, prefix: &str) -> bool {
        self.under(prefix).next().is_some()
    }
}

/// What a conditional write expects of the object it replaces.
#[derive(Clone, Debug)]
pub enum Expect {
    /// The object must not exist.
    Absent,
    /// The object must still have this ETag.
    ETag(String),
    /// Whatever is there is replaced.
    Any,
}

/// Why a conditional write did not happen.
#[derive(Debug)]
pub enum PutError {
    /// The object was not as expected (another writer got there first).
    Conflict,
    /// The store could not be written.
    Failed(String),
}

/// An object store prefix holding a camber store.
pub struct Bucket {
    /// The store's URL without credentials (logs and the redactor; never a caller).
    url: String,
    store: Arc<dyn ObjectStore>,
    prefix: String,
    rt: tokio::runtime::Runtime,
    snapshot: RwLock<(Arc<Snapshot>, Instant)>,
    /// The head's ETag when the snapshot was last listed (`None`: there was no head), and when.
    listed: Mutex<(Option<String>, Instant)>,
    /// Set by a write of store data, cleared when [`Bucket::publish`] announces it.
    dirty: AtomicBool,
    blocks: Mutex<Blocks>,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucket").field("url", &self.url).finish_non_exhaustive()
    }
}

/// Whether `location` names object storage rather than a directory.
pub fn is_url(location: &str) -> bool {
    location.split_once("://").is_some_and(|(scheme, _)| SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()))
}

/// The object store for a URL, with credentials and settings from the cloud's standard
/// environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`), and the prefix inside it.
fn object_store_for(url: &str) -> Result<(Arc<dyn ObjectStore>, String), String> {
    let parsed = url::Url::parse(url).map_err(|_| "the store URL cannot be parsed".to_string())?;
    let prefix = parsed.path().trim_matches('/').to_string();
    let bad = |e: object_store::Error| format!("the object store cannot be set up: {}", one_line(&e.to_string()));
    // a call has seconds, not the client's default three minutes of retries
    let retry =
        object_store::RetryConfig { max_retries: 3, retry_timeout: Duration::from_secs(10), ..Default::default() };
    let store: Arc<dyn ObjectStore> = match parsed.scheme() {
        "s3" | "s3a" => {
            let b = object_store::aws::AmazonS3Builder::from_env().with_url(url).with_retry(retry);
            Arc::new(b.build().map_err(bad)?)
        }
        "gs" => {
            let b = object_store::gcp::GoogleCloudStorageBuilder::from_env().with_url(url).with_retry(retry);
            Arc::new(b.build().map_err(bad)?)
        }
        "az" | "azure" | "abfs" | "abfss" | "adl" => {
            let b = object_store::azure::MicrosoftAzureBuilder::from_env().with_url(url).with_retry(retry);
            Arc::new(b.build().map_err(bad)?)
        }
        "memory" => Arc::new(object_store::memory::InMemory::new()),
        _ => return Err("the store URL's scheme is not one camber serves (s3, gs, az, file)".into()),
    };
    Ok((store, prefix))
}

/// The first line of a message, without anything after a newline.
fn one_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

impl Bucket {
    /// Connect to the store at `url` and take the first snapshot.
    pub fn open(url: &str) -> Result<Arc<Bucket>, String> {
        let b = Bucket::connect(url)?;
        b.refresh().map_err(|e| e.message)?;
        Ok(b)
    }

    /// Connect to `url` without listing it, for an output that is only written to (its
    /// snapshot stays empty until [`Bucket::refresh`]).
    pub fn connect(url: &str) -> Result<Arc<Bucket>, String> {
        let (store, prefix) = object_store_for(url)?;
        let shown = url::Url::parse(url)
            .map(|mut u| {
                let _ = u.set_password(None);
                let _ = u.set_username("");
                u.set_query(None);
                u.to_string().trim_end_matches('/').to_string()
            })
            .unwrap_or_default();
        Bucket::unlisted(store, &prefix, &shown)
    }

    /// A bucket over an object store already built (tests use an in-memory one), its first
    /// snapshot taken.
    pub fn over(store: Arc<dyn ObjectStore>, prefix: &str, url: &str) -> Result<Arc<Bucket>, String> {
        let b = Bucket::unlisted(store, prefix, url)?;
        b.refresh().map_err(|e| e.message)?;
        Ok(b)
    }

    fn unlisted(store: Arc<dyn ObjectStore>, prefix: &str, url: &str) -> Result<Arc<Bucket>, String> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("camber-objects")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the object store's runtime: {e}"))?;
        let b = Arc::new(Bucket {
            url: url.to_string(),
            store,
            prefix: prefix.trim_matches('/').to_string(),
            rt,
            snapshot: RwLock::new((Arc::new(Snapshot::default()), Instant::now())),
            listed: Mutex::new((None, Instant::now())),
            dirty: AtomicBool::new(false),
            blocks: Mutex::new(Blocks::new(BLOCK_CACHE_BYTES)),
        });
        Ok(b)
    }

    /// Refresh the snapshot every `every` on a thread of its own, for as long as the bucket is
    /// in use: a listing when the head changed, or `relist` after the last one.
    pub fn refresh_in_background(self: &Arc<Self>, every: Duration, relist: Duration) {
        let weak: Weak<Bucket> = Arc::downgrade(self);
        let _ = std::thread::Builder::new().name("camber-store-refresh".into()).spawn(move || loop {
            std::thread::sleep(every);
            let Some(b) = weak.upgrade() else { return };
            // a failed listing keeps the last snapshot; it goes stale (see `snapshot`)
            let _ = b.refresh_if_changed(relist);
        });
    }

    /// The store's URL without credentials.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn key(&self, rel: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(rel)
        } else {
            Key::from(format!("{}/{rel}", self.prefix))
        }
    }

    /// Run a future on the bucket's runtime and wait for it from this (synchronous) thread.
    pub(crate) fn wait<T: Send + 'static>(
        &self,
        fut: impl std::future::Future<Output = T> + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv().ok()
    }

    /// The head's ETag now (`None`: there is no head).
    pub(crate) fn head_etag(&self) -> Result<Option<String>, StoreError> {
        let store = self.store.clone();
        let key = self.key(HEAD_FILE);
        match self.wait(async move { store.head(&key).await }) {
            None => Err(unreachable_store("the store cannot be read")),
            Some(Ok(m)) => Ok(Some(m.e_tag.or(m.version).unwrap_or_default())),
            Some(Err(object_store::Error::NotFound { .. })) => Ok(None),
            Some(Err(e)) => Err(io_error(None, "the store cannot be read", &e)),
        }
    }

    /// The current snapshot, listed again only when the head says a writer changed the store
    /// since the last listing, the store has no head, or the last listing is `relist` old.
    pub fn refresh_if_changed(&self, relist: Duration) -> Result<Arc<Snapshot>, StoreError> {
        let (seen, at) = self.listed.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if seen.is_some() && at.elapsed() < relist && self.head_etag()? == seen {
            // the store answered and nothing was announced: the snapshot is current
            let mut snap = self.snapshot.write().unwrap_or_else(|p| p.into_inner());
            snap.1 = Instant::now();
            return Ok(snap.0.clone());
        }
        self.refresh()
    }

    /// Announce the store data this bucket wrote since it last did, by replacing the head (a
    /// writer calls it once its change is committed); nothing when it wrote none.
    pub fn publish(&self) -> Result<(), String> {
        if !self.dirty.load(Ordering::SeqCst) {
            return Ok(());
        }
        let nonce = camber_common::ids::random_hex()?;
        let body = serde_json::json!({"changed": camber_common::ids::utc_now(), "nonce": nonce});
        self.dirty.store(false, Ordering::SeqCst);
        self.put(HEAD_FILE, Bytes::from(body.to_string()), Expect::Any).map(|_| ()).map_err(|e| {
            self.dirty.store(true, Ordering::SeqCst);
            match e {
                PutError::Conflict => "the store's head cannot be written: it changed meanwhile".to_string(),
                PutError::Failed(why) => format!("the store's head cannot be written: {why}"),
            }
        })
    }

    /// List every object under the prefix and make it the current snapshot (the head is read
    /// first, so a change announced while the listing runs is listed again next time).
    pub fn refresh(&self) -> Result<Arc<Snapshot>, StoreError> {
        let head = self.head_etag()?;
        let store = self.store.clone();
        let prefix = (!self.prefix.is_empty()).then(|| Key::from(self.prefix.as_str()));
        let strip = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        let listed = self
            .wait(async move { store.list(prefix.as_ref()).try_collect::<Vec<_>>().await })
            .ok_or_else(|| unreachable_store("the store cannot be listed"))?
            .map_err(|e| io_error(None, "the store cannot be listed", &e))?;
        let mut objects = BTreeMap::new();
        for m in listed {
            let full = m.location.to_string();
            let Some(rel) = full.strip_prefix(&strip).or(if strip.is_empty() { Some(full.as_str()) } else { None })
            else {
                continue;
            };
            objects.insert(
                rel.to_string(),
                Entry {
                    size: m.size,
                    etag: m.e_tag.or(m.version).unwrap_or_default(),
                    modified_ns: m.last_modified.timestamp_nanos_opt().unwrap_or(0),
                },
            );
        }
        let snap = Arc::new(Snapshot { objects });
        *self.snapshot.write().unwrap_or_else(|p| p.into_inner()) = (snap.clone(), Instant::now());
        *self.listed.lock().unwrap_or_else(|p| p.into_inner()) = (head, Instant::now());
        Ok(snap)
    }

    /// The current snapshot, or `unavailable` when it could not be refreshed for
    /// [`STALE_AFTER`].
    pub fn snapshot(&self) -> Result<Arc<Snapshot>, StoreError> {
        let (s, at) = self.snapshot.read().unwrap_or_else(|p| p.into_inner()).clone();
        if at.elapsed() > STALE_AFTER {
            // one more try at once: the refresh thread may simply not have run
            return self.refresh();
        }
        Ok(s)
    }

    /// The current snapshot, whatever its age (for fingerprints; see [`Bucket::snapshot`]).
    pub fn snapshot_now(&self) -> Arc<Snapshot> {
        self.snapshot.read().unwrap_or_else(|p| p.into_inner()).0.clone()
    }

    /// `len` bytes from `start` of the object `rel` at version `entry`, through the block
    /// cache. An object that changed or went since the snapshot fails as retryable.
    pub fn read_range(
        &self,
        fid: Option<&str>,
        rel: &str,
        entry: &Entry,
        start: u64,
        len: u64,
    ) -> Result<Bytes, StoreError> {
        if len == 0 {
            return Ok(Bytes::new());
        }
        let end = start.saturating_add(len).min(entry.size);
        if start >= end {
            return Err(damaged(fid, "a read past the end of an object"));
        }
        let (first, last) = (start / BLOCK, (end - 1) / BLOCK);
        let mut have: Vec<Option<Bytes>> = {
            let mut blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
            (first..=last).map(|i| blocks.get(&(rel.to_string(), entry.etag.clone(), i))).collect()
        };
        // fetch each run of missing blocks with one ranged GET
        let mut i = 0;
        while i < have.len() {
            if have[i].is_some() {
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < have.len() && have[j + 1].is_none() {
                j += 1;
            }
            let lo = (first + i as u64) * BLOCK;
            let hi = ((first + j as u64 + 1) * BLOCK).min(entry.size);
            let got = self.get(fid, rel, entry, lo..hi)?;
            if got.len() as u64 != hi - lo {
                return Err(damaged(fid, "an object is shorter than its listing says"));
            }
            let mut blocks = self.blocks.lock().unwrap_or_else(|p| p.into_inner());
            for (n, slot) in have[i..=j].iter_mut().enumerate() {
                let off = (n as u64 * BLOCK) as usize;
                let b = got.slice(off..(off + BLOCK as usize).min(got.len()));
                blocks.put((rel.to_string(), entry.etag.clone(), first + (i + n) as u64), b.clone());
                *slot = Some(b);
            }
            i = j + 1;
        }
        let have: Vec<Bytes> = have.into_iter().flatten().collect();
        let off = (start - first * BLOCK) as usize;
        let n = (end - start) as usize;
        if have.len() == 1 {
            return Ok(have[0].slice(off..off + n));
        }
        let mut out = BytesMut::with_capacity(n);
        let mut skip = off;
        for b in have {
            let b = if skip > 0 {
                let s = skip.min(b.len());
                skip -= s;
                b.slice(s..)
            } else {
                b
            };
            let want = (n - out.len()).min(b.len());
            out.extend_from_slice(&b[..want]);
            if out.len() == n {
                break;
            }
        }
        Ok(out.freeze())
    }

    /// The whole of a (small) object as the snapshot lists it.
    pub fn read_all(&self, fid: Option<&str>, rel: &str, entry: &Entry) -> Result<Bytes, StoreError> {
        if entry.size == 0 {
            return Ok(Bytes::new());
        }
        self.read_range(fid, rel, entry, 0, entry.size)
    }

    fn get(
        &self,
        fid: Option<&str>,
        rel: &str,
        entry: &Entry,
        range: std::ops::Range<u64>,
    ) -> Result<Bytes, StoreError> {
        let store = self.store.clone();
        let key = self.key(rel);
        let opts = GetOptions {
            if_match: (!entry.etag.is_empty()).then(|| entry.etag.clone()),
            range: Some(GetRange::Bounded(range)),
            ..Default::default()
        };
        self.wait(async move { store.get_opts(&key, opts).await?.bytes().await })
            .ok_or_else(|| unreachable_store("an object cannot be read"))?
            .map_err(|e| io_error(fid, "an object cannot be read", &e))
    }

    /// Write `bytes` to `rel` if the object there is as `expect` says; returns its new ETag.
    pub fn put(&self, rel: &str, bytes: Bytes, expect: Expect) -> Result<String, PutError> {
        let store = self.store.clone();
        let key = self.key(rel);
        let mode = match expect {
            Expect::Absent => PutMode::Create,
            Expect::ETag(e) => PutMode::Update(UpdateVersion { e_tag: Some(e), version: None }),
            Expect::Any => PutMode::Overwrite,
        };
        let opts = PutOptions { mode, ..Default::default() };
        let data = is_store_data(rel);
        match self.wait(async move { store.put_opts(&key, PutPayload::from_bytes(bytes), opts).await }) {
            Some(Ok(r)) => {
                if data {
                    self.dirty.store(true, Ordering::SeqCst);
                }
                Ok(r.e_tag.or(r.version).unwrap_or_default())
            }
            Some(Err(object_store::Error::Precondition { .. } | object_store::Error::AlreadyExists { .. })) => {
                Err(PutError::Conflict)
            }
            Some(Err(e)) => Err(PutError::Failed(one_line(&e.to_string()))),
            None => Err(PutError::Failed("the object store's runtime stopped".into())),
        }
    }

    /// Read the current version of an object directly (not through the snapshot): its bytes
    /// and ETag, or `None` when there is none.
    pub fn fetch(&self, rel: &str) -> Result<Option<(Bytes, String)>, String> {
        let store = self.store.clone();
        let key = self.key(rel);
        let got = self
            .wait(async move {
                let r = store.get(&key).await?;
                let etag = r.meta.e_tag.clone().or(r.meta.version.clone()).unwrap_or_default();
                Ok::<_, object_store::Error>((r.bytes().await?, etag))
            })
            .ok_or("the object store's runtime stopped")?;
        match got {
            Ok(v) => Ok(Some(v)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(one_line(&e.to_string())),
        }
    }

    /// Whether the object `rel` is there now (one HEAD, not through the snapshot).
    pub fn exists(&self, rel: &str) -> Result<bool, StoreError> {
        let store = self.store.clone();
        let key = self.key(rel);
        match self.wait(async move { store.head(&key).await }) {
            None => Err(unreachable_store("the store cannot be read")),
            Some(Ok(_)) => Ok(true),
            Some(Err(object_store::Error::NotFound { .. })) => Ok(false),
            Some(Err(e)) => Err(io_error(None, "the store cannot be read", &e)),
        }
    }

    /// The keys under `prefix` (relative to the store), listed now.
    pub fn list_prefix(&self, prefix: &str) -> Result<Vec<String>, String> {
        let store = self.store.clone();
        let key = self.key(prefix.trim_end_matches('/'));
        let strip = if self.prefix.is_empty() { String::new() } else { format!("{}/", self.prefix) };
        let listed = self
            .wait(async move { store.list(Some(&key)).try_collect::<Vec<_>>().await })
            .ok_or("the object store's runtime stopped")?
            .map_err(|e| one_line(&e.to_string()))?;
        Ok(listed.into_iter().filter_map(|m| m.location.to_string().strip_prefix(&strip).map(str::to_string)).collect())
    }

    /// Delete objects (missing ones are no error).
    pub fn delete(&self, rels: &[String]) -> Result<(), String> {
        for rel in rels {
            let store = self.store.clone();
            let key = self.key(rel);
            match self.wait(async move { store.delete(&key).await }) {
                Some(Ok(())) => {
                    if is_store_data(rel) {
                        self.dirty.store(true, Ordering::SeqCst);
                    }
                }
                Some(Err(object_store::Error::NotFound { .. })) => {}
                Some(Err(e)) => return Err(one_line(&e.to_string())),
                None => return Err("the object store's runtime stopped".into()),
            }
        }
        Ok(())
    }
}

/// Damage found in an object (of a facility, or of the store itself).
fn damaged(fid: Option<&str>, what: &str) -> StoreError {
    StoreError { retryable: false, facility: fid.map(str::to_string), message: what.to_string() }
}

fn unreachable_store(what: &str) -> StoreError {
    StoreError { retryable: true, facility: None, message: format!("{what}: the object store did not answer") }
}

/// A failed object read as a store error: gone or changed since the listing is retryable (a
/// write overlapped the call); anything else is the store's to fix, or the network's.
fn io_error(fid: Option<&str>, what: &str, e: &object_store::Error) -> StoreError {
    use object_store::Error as E;
    let (retryable, why) = match e {
        E::NotFound { .. } => (true, "it went missing while it was read"),
        E::Precondition { .. } => (true, "it changed while it was read"),
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => (false, "permission denied"),
        // a network or server error: the same call may well succeed again
        _ => (true, "the object store did not answer"),
    };
    StoreError { retryable, facility: fid.map(str::to_string), message: format!("{what}: {why}") }
}

/// A Parquet part on object storage, read in ranges through the bucket's block cache. A
/// failed fetch is kept so that the store reports it as what it was (retryable or not) rather
/// than as a damaged file.
#[derive(Clone)]
pub struct RemoteFile {
    pub(crate) bucket: Arc<Bucket>,
    pub(crate) fid: String,
    pub(crate) rel: String,
    pub(crate) entry: Entry,
    pub(crate) failed: Arc<Mutex<Option<StoreError>>>,
}

impl RemoteFile {
    /// The fetch error this reader met, if any.
    pub fn failure(&self) -> Option<StoreError> {
        self.failed.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn bytes(&self, start: u64, len: u64) -> parquet::errors::Result<Bytes> {
        self.bucket.read_range(Some(&self.fid), &self.rel, &self.entry, start, len).map_err(|e| {
            let msg = e.message.clone();
            *self.failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            parquet::errors::ParquetError::External(msg.into())
        })
    }

    /// A reader from `start` to the end of the object that fetches one block at a time as it
    /// is read: the Parquet reader reads each page header through one, a few bytes of it.
    pub(crate) fn reader(&self, start: u64) -> BlockReader {
        BlockReader { file: self.clone(), pos: start, have: Bytes::new() }
    }
}

/// See [`RemoteFile::reader`].
pub struct BlockReader {
    file: RemoteFile,
    /// The object offset just past `have`.
    pos: u64,
    have: Bytes,
}

impl std::io::Read for BlockReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.have.is_empty() {
            let end = self.file.entry.size;
            if self.pos >= end || buf.is_empty() {
                return Ok(0);
            }
            // up to the end of the block holding `pos`: a slice of the cached block, no copy
            let len = (BLOCK - self.pos % BLOCK).min(end - self.pos);
            self.have = self.file.bytes(self.pos, len).map_err(std::io::Error::other)?;
            self.pos += self.have.len() as u64;
        }
        let n = buf.len().min(self.have.len());
        buf[..n].copy_from_slice(&self.have[..n]);
        self.have.advance(n);
        Ok(n)
    }
}

/// Object blocks kept between calls, the least recently used dropped first.
struct Blocks {
    cap: usize,
    used: usize,
    tick: u64,
    map: HashMap<(String, String, u64), (Bytes, u64)>,
}

impl Blocks {
    fn new(cap: usize) -> Blocks {
        Blocks { cap, used: 0, tick: 0, map: HashMap::new() }
    }

    fn get(&mut self, k: &(String, String, u64)) -> Option<Bytes> {
        self.tick += 1;
        let t = self.tick;
        self.map.get_mut(k).map(|(b, used)| {
            *used = t;
            b.clone()
        })
    }

    fn put(&mut self, k: (String, String, u64), b: Bytes) {
        self.tick += 1;
        self.used += b.len();
        if let Some((old, _)) = self.map.insert(k, (b, self.tick)) {
            self.used -= old.len();
        }
        while self.used > self.cap && self.map.len() > 1 {
            let Some(oldest) = self.map.iter().min_by_key(|(_, (_, t))| *t).map(|(k, _)| k.clone()) else { break };
            if let Some((b, _)) = self.map.remove(&oldest) {
                self.used -= b.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreDir;

    /// Copy every file under `dir` into `b` under its relative path.
    pub(crate) fn upload_dir(b: &Bucket, dir: &std::path::Path) {
        fn walk(b: &Bucket, root: &std::path::Path, d: &std::path::Path) {
            for e in std::fs::read_dir(d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(b, root, &p);
                } else {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    b.put(&rel, Bytes::from(std::fs::read(&p).unwrap()), Expect::Any).unwrap();
                }
            }
        }
        walk(b, dir, dir);
        b.refresh().unwrap();
    }

    fn memory() -> Arc<Bucket> {
        Bucket::over(Arc::new(object_store::memory::InMemory::new()), "store", "memory://test/store").unwrap()
    }

    #[test]
    fn a_store_copied_to_a_bucket_reads_as_it_does_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        crate::fixture::demo_store(dir.path()).unwrap();
        let b = memory();
        upload_dir(&b, dir.path());
        let disk = StoreDir::open(dir.path()).unwrap();
        let remote = StoreDir::over_bucket(b.clone());
        assert_eq!(remote.facility_ids().unwrap(), disk.facility_ids().unwrap());
        assert_eq!(remote.registry().entries, disk.registry().entries);
        for fid in disk.facility_ids().unwrap() {
            assert_eq!(remote.points(&fid).unwrap(), disk.points(&fid).unwrap());
            assert_eq!(remote.span(&fid).unwrap(), disk.span(&fid).unwrap());
            assert_eq!(
                remote.read_times(&fid, &[], &[], None, None).unwrap(),
                disk.read_times(&fid, &[], &[], None, None).unwrap()
            );
            let points = disk.points(&fid).unwrap();
            let p = &points[0];
            assert_eq!(
                remote.read_frame(&fid, &p.equip, std::slice::from_ref(&p.role), None, None).unwrap(),
                disk.read_frame(&fid, &p.equip, std::slice::from_ref(&p.role), None, None).unwrap()
            );
            // the times index the writer left is served on the bucket too (parts' names and
            // sizes match it)
            assert!(remote.read_times_index(&fid).is_some(), "{fid}: the times index is used");
        }
        assert!(remote.has_facility("hq") && !remote.has_facility("nowhere"));
    }

    #[test]
    fn an_object_changed_since_the_snapshot_is_retryable_and_a_changed_facility_fails_its_fence() {
        let dir = tempfile::tempdir().unwrap();
        crate::fixture::demo_store(dir.path()).unwrap();
        let b = memory();
        upload_dir(&b, dir.path());
        let remote = StoreDir::over_bucket(b.clone());
        let fids = vec!["hq".to_string()];
        let tokens = remote.fences_before(&fids).unwrap();
        let parts = remote.parts("hq").unwrap();
        let rel = remote.part_key(&parts[0]);
        // another writer replaces the part: the snapshot still lists the old version
        let again = b.read_all(None, &rel, b.snapshot_now().objects.get(&rel).unwrap()).unwrap();
        b.put(&rel, again, Expect::Any).unwrap();
        b.blocks.lock().unwrap().map.clear();
        let e = remote.read_series("hq", "AHU-1", "oat", None, None).unwrap_err();
        assert!(e.retryable, "{e:?}");
        assert!(e.message.contains("changed while it was read"), "{}", e.message);
        // once the snapshot sees the change, the call that began before it is told to retry
        b.refresh().unwrap();
        let e = remote.fences_after(&fids, &tokens).unwrap_err();
        assert!(e.retryable && e.message.contains("changed while the call read them"), "{}", e.message);
        let tokens = remote.fences_before(&fids).unwrap();
        assert!(remote.fences_after(&fids, &tokens).is_ok());
        assert!(remote.read_series("hq", "AHU-1", "oat", None, None).is_ok());
    }

    #[test]
    fn a_generation_pointer_names_the_parts_served_and_damage_is_not_retryable() {
        let dir = tempfile::tempdir().unwrap();
        // two months, so two parts
        let month = 31 * 86_400_000_000_000i64;
        let rows: Vec<crate::fixture::Row> = (0..48)
            .map(|i| (1_704_067_200_000_000_000 + i * month / 24, "AHU-1".into(), "AHU".into(), "oat".into(), 50.0))
            .collect();
        crate::fixture::write_facility(dir.path(), "hq", &rows, serde_json::json!({})).unwrap();
        let b = memory();
        upload_dir(&b, dir.path());
        let remote = StoreDir::over_bucket(b.clone());
        let parts = remote.parts("hq").unwrap();
        assert!(parts.len() > 1, "the facility spans more than one month");
        let first = remote.part_key(&parts[0]);
        let rel = first.strip_prefix("facility_id=hq/").unwrap().to_string();
        let pointer = format!("facility_id=hq/{}", crate::CURRENT_FILE);
        b.put(&pointer, Bytes::from(serde_json::json!({"parts": [rel]}).to_string()), Expect::Absent).unwrap();
        b.refresh().unwrap();
        assert_eq!(remote.parts("hq").unwrap(), vec![parts[0].clone()]);
        // a pointer naming a part the snapshot does not list, which is there: a listing older
        // than the part, retry
        let late = "facility_id=hq/year=1999/month=1/part-9-0.parquet";
        b.put(&pointer, Bytes::from(r#"{"parts": ["year=1999/month=1/part-9-0.parquet"]}"#), Expect::Any).unwrap();
        b.refresh().unwrap();
        b.put(late, Bytes::from_static(b"PAR1"), Expect::Absent).unwrap();
        assert!(remote.parts("hq").unwrap_err().retryable);
        // and which is not there at all (the writer puts every part before its pointer): damage
        b.delete(&[late.to_string()]).unwrap();
        b.refresh().unwrap();
        let e = remote.parts("hq").unwrap_err();
        assert!(!e.retryable && e.message.contains("missing"), "{e:?}");
        // a pointer that is not one: damage
        b.put(&pointer, Bytes::from("{not json"), Expect::Any).unwrap();
        b.refresh().unwrap();
        assert!(!remote.parts("hq").unwrap_err().retryable);
        // a part that is not Parquet: damage, not retryable
        b.delete(&[pointer]).unwrap();
        b.put(&first, Bytes::from(vec![7u8; 64]), Expect::Any).unwrap();
        b.refresh().unwrap();
        let e = remote.verify_parts("hq").unwrap_err();
        assert!(!e.retryable && e.message.contains("damaged"), "{e:?}");
    }

    #[test]
    fn ranged_reads_come_from_the_block_cache_and_cross_block_boundaries() {
        let b = memory();
        let data: Vec<u8> = (0..(3 * BLOCK + 100)).map(|i| (i % 251) as u8).collect();
        b.put("blob", Bytes::from(data.clone()), Expect::Absent).unwrap();
        let snap = b.refresh().unwrap();
        let e = snap.objects.get("blob").unwrap().clone();
        for (start, len) in [(0, 10), (BLOCK - 5, 10), (BLOCK * 2 + 7, BLOCK + 93), (0, 3 * BLOCK + 100)] {
            let got = b.read_range(None, "blob", &e, start, len).unwrap();
            assert_eq!(&got[..], &data[start as usize..(start + len) as usize], "{start}+{len}");
        }
        assert_eq!(b.blocks.lock().unwrap().map.len(), 4, "each block fetched once");
        // a reader from an offset reads across blocks to the end, a block at a time
        let f = RemoteFile {
            bucket: b.clone(),
            fid: String::new(),
            rel: "blob".into(),
            entry: e.clone(),
            failed: Default::default(),
        };
        let mut all = Vec::new();
        std::io::Read::read_to_end(&mut f.reader(BLOCK - 3), &mut all).unwrap();
        assert_eq!(&all[..], &data[(BLOCK - 3) as usize..]);
        assert!(b.put("blob", Bytes::from("x"), Expect::Absent).is_err_and(|e| matches!(e, PutError::Conflict)));
        assert!(b
            .put("blob", Bytes::from("x"), Expect::ETag("\"nope\"".into()))
            .is_err_and(|e| matches!(e, PutError::Conflict)));
        assert!(b.put("blob", Bytes::from("x"), Expect::ETag(e.etag.clone())).is_ok());
    }
}
