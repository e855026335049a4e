//! The registry while a server runs: the current [`Registry`] behind an `Arc`, swapped whole
//! by a reload. A call takes the current one when it starts and finishes on it, so a reload
//! never changes a call in flight; a component that fails to load on a reload is refused in
//! one log line and the previous good version of it (if any) stays.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use camber_runtime::{file_label, Runtime, RuntimeConfig};

use crate::registry::{component_files, load_component_bytes, Loaded, Registry};
use crate::trust::Policy;

/// Where the policy comes from, so a reload can read it again.
#[derive(Clone, Debug)]
pub struct PolicySource {
    pub path: Option<PathBuf>,
    /// The install's own capability directory (its components keep the shipped grant).
    pub own_dir: Option<PathBuf>,
}

impl PolicySource {
    /// The policy now, and its file's text (to tell whether it changed).
    fn read(&self, runtime: &Runtime) -> Result<(Policy, String), String> {
        match &self.path {
            None => Ok((Policy::open(&runtime.config), String::new())),
            Some(p) => {
                let text = std::fs::read_to_string(p)
                    .map_err(|e| format!("policy {}: cannot read ({})", file_label(p), e.kind()))?;
                let policy = Policy::read(p, self.own_dir.clone(), &runtime.config)?;
                // the lock and the keys are part of what it says
                let mut seen = text;
                for f in policy_inputs(p) {
                    seen.push_str(&std::fs::read_to_string(f).unwrap_or_default());
                }
                Ok((policy, seen))
            }
        }
    }
}

/// Files a policy names (its lock and keys), read again to tell whether the policy changed.
fn policy_inputs(policy: &std::path::Path) -> Vec<PathBuf> {
    let base = policy.parent().unwrap_or(std::path::Path::new("."));
    let Ok(text) = std::fs::read_to_string(policy) else { return Vec::new() };
    let Ok(v) = text.parse::<toml::Table>() else { return Vec::new() };
    let trust = v.get("trust").and_then(|t| t.as_table());
    let mut out = Vec::new();
    if let Some(l) = trust.and_then(|t| t.get("lock")).and_then(|l| l.as_str()) {
        out.push(base.join(l));
    }
    for k in trust.and_then(|t| t.get("keys")).and_then(|k| k.as_array()).into_iter().flatten() {
        if let Some(k) = k.as_str() {
            out.push(base.join(k));
        }
    }
    out
}

/// What a reload changed, for the adapters to tell their clients.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// The capability list (a name, or a descriptor's revision) changed.
    pub tools: bool,
    /// The prompt list changed.
    pub prompts: bool,
    /// One line per component refused, added, replaced or removed.
    pub lines: Vec<String>,
}

impl Reloaded {
    /// Whether the set of components changed at all.
    pub fn changed(&self) -> bool {
        self.tools || self.prompts
    }
}

/// Where a live registry's own log lines go (a tier-up finishing in the background).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// The registry of a running server.
pub struct LiveRegistry {
    inner: Arc<Inner>,
}

struct Inner {
    runtime: Arc<Runtime>,
    /// The quick first tier's engine (Winch), made when first needed; `None` inside when it
    /// cannot be (then new components are compiled optimized at once).
    quick: OnceLock<Option<Arc<Runtime>>>,
    dirs: Vec<PathBuf>,
    source: PolicySource,
    current: RwLock<Arc<Registry>>,
    /// One reload at a time, and the policy text it last read.
    reloading: Mutex<String>,
    /// File metadata of each path at the last reload, with its digest: a file whose size,
    /// time and inode did not change is not read again.
    seen: Mutex<BTreeMap<PathBuf, (FileStamp, String)>>,
    /// Digests being compiled optimized in the background.
    tiering: Mutex<BTreeSet<String>>,
    /// Whether new components may start on the quick tier (on unless turned off).
    quick_tier: std::sync::atomic::AtomicBool,
    log: Mutex<Option<Log>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

fn stamp(p: &std::path::Path) -> Option<FileStamp> {
    let m = std::fs::metadata(p).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    Some(FileStamp { len: m.len(), modified: m.modified().ok(), inode })
}

impl LiveRegistry {
    /// Load every component in `dirs` under the policy; any refused one fails the start with
    /// a one-line error naming the file (a server does not start on a set it was not asked for).
    pub fn start(runtime: Arc<Runtime>, dirs: Vec<PathBuf>, source: PolicySource) -> Result<LiveRegistry, String> {
        let (policy, text) = source.read(&runtime)?;
        let files = component_files(&dirs);
        let reg = Registry::load_with(runtime.clone(), &files, &policy)?;
        let seen = reg
            .components()
            .iter()
            .filter_map(|c| stamp(&c.path).map(|s| (c.path.clone(), (s, c.unit.sha256.clone()))))
            .collect();
        Ok(LiveRegistry {
            inner: Arc::new(Inner {
                runtime,
                quick: OnceLock::new(),
                dirs,
                source,
                current: RwLock::new(Arc::new(reg)),
                reloading: Mutex::new(text),
                seen: Mutex::new(seen),
                tiering: Mutex::new(BTreeSet::new()),
                quick_tier: std::sync::atomic::AtomicBool::new(true),
                log: Mutex::new(None),
            }),
        })
    }

    /// Where to log what a background tier-up did (without it, nothing is logged).
    pub fn set_log(&self, log: Log) {
        *self.inner.log.lock().unwrap_or_else(|p| p.into_inner()) = Some(log);
    }

    /// Whether a new component not yet in the compile cache starts on the quick tier (the
    /// default) or waits for its optimized compile.
    pub fn set_quick_tier(&self, on: bool) {
        self.inner.quick_tier.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// The registry new calls use.
    pub fn current(&self) -> Arc<Registry> {
        self.inner.current()
    }

    /// Look at the directories (and the policy) again and swap in the new set. Components whose
    /// file did not change are kept as loaded. A changed or new one is loaded: from the
    /// compile cache when it is there, else compiled by the quick tier at once and by the
    /// optimizing compiler in the background, which swaps itself in when done (same contract:
    /// the lists do not change). One that fails is refused in a line and its previous version
    /// kept.
    pub fn reload(&self) -> Reloaded {
        Inner::reload(&self.inner)
    }
}

impl Inner {
    fn current(&self) -> Arc<Registry> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The quick tier's engine, when one can be made and a cache will tell when the
    /// optimized code is ready.
    fn quick(&self) -> Option<Arc<Runtime>> {
        if self.runtime.config.cache_dir.is_none() || !self.quick_tier.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        self.quick
            .get_or_init(|| {
                let config = RuntimeConfig { quick: true, cache_dir: None, ..self.runtime.config.clone() };
                Runtime::new(config).ok().map(Arc::new)
            })
            .clone()
    }

    /// Compile `bytes` optimized on a thread of its own, then reload, which swaps the
    /// optimized component in for the quick one.
    fn tier_up(self: &Arc<Self>, file: String, sha256: String, bytes: Vec<u8>) {
        if !self.tiering.lock().unwrap_or_else(|p| p.into_inner()).insert(sha256.clone()) {
            return;
        }
        let me = self.clone();
        let spawned = std::thread::Builder::new().name("camber-tier-up".into()).spawn(move || {
            let t0 = std::time::Instant::now();
            // on a pool of one thread of its own: wasmtime compiles in parallel on rayon's
            // global pool, and a long optimized compile there would hold up the quick compile
            // of the next component dropped in (and take both cores from the calls)
            let compiled = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
                Ok(pool) => pool.install(|| me.runtime.component_from_bytes(&file, &bytes)),
                Err(_) => me.runtime.component_from_bytes(&file, &bytes),
            };
            me.tiering.lock().unwrap_or_else(|p| p.into_inner()).remove(&sha256);
            let log = me.log.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let say = |l: &str| {
                if let Some(log) = &log {
                    log(l)
                }
            };
            match compiled {
                Ok(_) => {
                    say(&format!("{file}: optimized code compiled in {:.1} s", t0.elapsed().as_secs_f64()));
                    for l in Inner::reload(&me).lines {
                        say(&l);
                    }
                }
                Err(e) => say(&format!("{e}; it keeps running on the quick compile")),
            }
        });
        if spawned.is_err() {
            self.tiering.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
    }

    fn reload(self: &Arc<Self>) -> Reloaded {
        let mut policy_text = self.reloading.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Reloaded::default();
        let (policy, text) = match self.source.read(&self.runtime) {
            Ok(p) => p,
            Err(e) => {
                out.lines.push(format!("{e}; the loaded components and the previous policy stay"));
                return out;
            }
        };
        let policy_changed = *policy_text != text;
        let before = self.current();
        let previous: BTreeMap<&PathBuf, &Loaded> = before.components().iter().map(|c| (&c.path, c)).collect();
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let mut next_seen = BTreeMap::new();
        // each file's candidate, and the version to fall back on
        let mut candidates: Vec<(Option<Loaded>, Option<Loaded>)> = Vec::new();
        for path in component_files(&self.dirs) {
            let prev = previous.get(&path).map(|c| (*c).clone());
            let now = stamp(&path);
            let digest = match (now, seen.get(&path)) {
                (Some(s), Some((old, d))) if s == *old => Some(d.clone()),
                _ => std::fs::read(&path).ok().map(|b| camber_common::canonical::sha256_hex(&b)),
            };
            if let (Some(s), Some(d)) = (now, &digest) {
                next_seen.insert(path.clone(), (s, d.clone()));
            }
            let unchanged = prev.as_ref().is_some_and(|p| Some(&p.unit.sha256) == digest.as_ref());
            // a quick-tier component whose optimized code is ready is loaded again, from it
            let optimized = prev.as_ref().is_some_and(|p| p.unit.quick && self.runtime.is_cached(&p.unit.sha256));
            if unchanged && !policy_changed && !optimized {
                candidates.push((prev, None));
                continue;
            }
            let loaded = match std::fs::read(&path) {
                Err(e) => Err(format!("{}: cannot read: {}", file_label(&path), e.kind())),
                Ok(bytes) => {
                    let sha = camber_common::canonical::sha256_hex(&bytes);
                    match self.quick().filter(|_| !self.runtime.is_cached(&sha)) {
                        Some(quick) => match load_component_bytes(&quick, &path, &bytes, &policy) {
                            Ok(l) => {
                                self.tier_up(file_label(&path), sha, bytes);
                                Ok(l)
                            }
                            // what the quick tier cannot compile, the optimizing compiler may
                            // (a refusal by the policy is refused again, before any compile)
                            Err(_) => load_component_bytes(&self.runtime, &path, &bytes, &policy),
                        },
                        None => load_component_bytes(&self.runtime, &path, &bytes, &policy),
                    }
                }
            };
            match loaded {
                Ok(l) => {
                    if !unchanged {
                        out.lines.push(format!(
                            "{}: {} (sha256 {}…){}",
                            l.unit.file,
                            if prev.is_some() { "replaced" } else { "added" },
                            &l.unit.sha256[..12],
                            if l.unit.quick {
                                "; running on a quick compile while the optimized one builds"
                            } else {
                                ""
                            }
                        ));
                    } else if optimized && !l.unit.quick {
                        out.lines.push(format!("{}: now runs its optimized code", l.unit.file));
                    }
                    candidates.push((Some(l), prev));
                }
                Err(e) => {
                    let keep = if prev.is_some() && !policy_changed {
                        "; the loaded version stays"
                    } else if prev.is_some() {
                        "; it is unloaded"
                    } else {
                        "; not loaded"
                    };
                    out.lines.push(format!("{e}{keep}"));
                    // under a changed policy, a refused component is not kept
                    candidates.push((if policy_changed { None } else { prev }, None));
                }
            }
        }
        *seen = next_seen;
        drop(seen);
        let (next, refused) = Registry::assemble_lenient(self.runtime.clone(), candidates);
        out.lines.extend(refused);
        let kept: std::collections::BTreeSet<&PathBuf> = next.components().iter().map(|c| &c.path).collect();
        for p in previous.keys() {
            if !kept.contains(p) && !p.exists() {
                out.lines.push(format!("{}: removed", file_label(p)));
            }
        }
        out.tools = listing(&before) != listing(&next);
        out.prompts = prompt_listing(&before) != prompt_listing(&next);
        let same_units = before.components().len() == next.components().len()
            && before.components().iter().zip(next.components()).all(|(a, b)| Arc::ptr_eq(&a.unit, &b.unit));
        if !same_units {
            *self.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        }
        *policy_text = text;
        out
    }
}

/// Each capability's name and revision: what a client's tool list shows.
fn listing(reg: &Registry) -> Vec<(&str, &str)> {
    reg.capabilities().map(|c| (c.name.as_str(), c.revision())).collect()
}

/// What a client's prompt list shows of one prompt.
type PromptKey<'a> = (&'a str, &'a str, &'a str, &'a [(String, String, bool)]);

fn prompt_listing(reg: &Registry) -> Vec<PromptKey<'_>> {
    reg.prompts().map(|p| (p.name.as_str(), p.title.as_str(), p.description.as_str(), p.arguments.as_slice())).collect()
}
