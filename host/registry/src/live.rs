//! The registry while a server runs: the current [`Registry`] behind an `Arc`, swapped whole
//! by a reload. A call takes the current one when it starts and finishes on it, so a reload
//! never changes a call in flight; a component that fails to load on a reload is refused in
//! one log line and the previous good version of it (if any) stays.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use camber_runtime::{file_label, Runtime};

use crate::registry::{component_files, load_component, Loaded, Registry};
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

/// The registry of a running server.
pub struct LiveRegistry {
    runtime: Arc<Runtime>,
    dirs: Vec<PathBuf>,
    source: PolicySource,
    current: RwLock<Arc<Registry>>,
    /// One reload at a time, and the policy text it last read.
    reloading: Mutex<String>,
    /// File metadata of each path at the last reload, with its digest: a file whose size,
    /// time and inode did not change is not read again.
    seen: Mutex<BTreeMap<PathBuf, (FileStamp, String)>>,
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
            runtime,
            dirs,
            source,
            current: RwLock::new(Arc::new(reg)),
            reloading: Mutex::new(text),
            seen: Mutex::new(seen),
        })
    }

    /// The registry new calls use.
    pub fn current(&self) -> Arc<Registry> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Look at the directories (and the policy) again and swap in the new set. Components whose
    /// file did not change are kept as loaded; a changed or new one is loaded (its compile
    /// cached by digest); one that fails is refused in a line and its previous version kept.
    pub fn reload(&self) -> Reloaded {
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
            if unchanged && !policy_changed {
                candidates.push((prev, None));
                continue;
            }
            match load_component(&self.runtime, &path, &policy) {
                Ok(l) => {
                    if !unchanged {
                        out.lines.push(format!(
                            "{}: {} (sha256 {}…)",
                            l.unit.file,
                            if prev.is_some() { "replaced" } else { "added" },
                            &l.unit.sha256[..12]
                        ));
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
