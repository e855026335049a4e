//! The trust policy: which component files may load (pinned by SHA-256 digest in a lock file,
//! or signed by a trusted Ed25519 key), and what each one gets once loaded (its memory cap,
//! fuel, deadline and the host interfaces it may import). The registry asks it about every
//! file it loads, at start-up and on each reload; `camber capabilities verify` prints its
//! answers.
//!
//! The policy is a TOML file (`--policy FILE` or `CAMBER_POLICY`); docs/TRUST.md describes
//! it. With no policy every component loads with the shipped grant, as before the policy
//! existed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde::{Deserialize, Serialize};

use camber_common::canonical::sha256_hex;
use camber_runtime::{file_label, Budget, RuntimeConfig};

/// The host interfaces a component may import, by their WIT names.
pub const INTERFACES: [&str; 6] = ["store", "run-config", "catalog", "progress", "portfolio", "content"];

/// What a component from outside the install's own directory gets when the policy names no
/// grant for it: a quarter of the engine's memory (256 MiB at the default 1 GiB), a tenth of
/// its fuel, 30 s, and only the store and progress reports.
pub const THIRD_PARTY_MEMORY_MIB: u64 = 256;
pub const THIRD_PARTY_DEADLINE_SECONDS: f64 = 30.0;
pub const THIRD_PARTY_IMPORTS: [&str; 2] = ["store", "progress"];

/// The prefix signed with the component's bytes, so a signature over a component can never be
/// passed off as one over anything else.
const SIGNING_CONTEXT: &[u8] = b"camber capability component v1\n";

/// What one loaded component may use.
#[derive(Clone, Debug, PartialEq)]
pub struct Grant {
    pub budget: Budget,
    /// The longest one call may run (`None`: the caller's limit alone).
    pub max_seconds: Option<f64>,
    /// The host interfaces it may import.
    pub imports: BTreeSet<String>,
}

impl Grant {
    /// What the shipped components have: the engine's whole budget, every interface, and the
    /// caller's deadline.
    pub fn shipped(config: &RuntimeConfig) -> Grant {
        Grant {
            budget: config.budget(),
            max_seconds: None,
            imports: INTERFACES.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The documented default for a third-party component (see [`THIRD_PARTY_MEMORY_MIB`]).
    pub fn third_party(config: &RuntimeConfig) -> Grant {
        Grant {
            budget: Budget {
                max_memory_bytes: ((THIRD_PARTY_MEMORY_MIB << 20) as usize).min(config.max_memory_bytes),
                fuel: config.fuel / 10,
            },
            max_seconds: Some(THIRD_PARTY_DEADLINE_SECONDS),
            imports: THIRD_PARTY_IMPORTS.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// The first import of `imports` this grant does not allow.
    pub fn refused_import<'a>(&self, imports: impl IntoIterator<Item = &'a String>) -> Option<&'a String> {
        imports.into_iter().find(|i| !self.imports.contains(*i))
    }

    /// One line for `camber capabilities verify`.
    pub fn summary(&self) -> String {
        format!(
            "memory {} MiB, fuel {}, deadline {}, imports {}",
            self.budget.max_memory_bytes >> 20,
            self.budget.fuel,
            self.max_seconds.map_or("the caller's".to_string(), |s| format!("{s} s")),
            if self.imports.is_empty() {
                "none".to_string()
            } else {
                self.imports.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        )
    }
}

/// A grant as the policy file writes it: every field optional, an unset one inherited.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrantSpec {
    memory_mib: Option<u64>,
    fuel: Option<u64>,
    deadline_seconds: Option<f64>,
    imports: Option<Vec<String>>,
}

impl GrantSpec {
    fn over(&self, base: &Grant, config: &RuntimeConfig) -> Grant {
        Grant {
            budget: Budget {
                max_memory_bytes: self
                    .memory_mib
                    .map_or(base.budget.max_memory_bytes, |m| ((m << 20) as usize).min(config.max_memory_bytes)),
                fuel: self.fuel.map_or(base.budget.fuel, |f| f.min(config.fuel)),
            },
            max_seconds: self.deadline_seconds.or(base.max_seconds),
            imports: self.imports.as_ref().map_or_else(|| base.imports.clone(), |i| i.iter().cloned().collect()),
        }
    }

    fn check(&self, at: &str) -> Result<(), String> {
        if let Some(i) = self.imports.iter().flatten().find(|i| !INTERFACES.contains(&i.as_str())) {
            return Err(format!("{at}: unknown interface '{i}' in imports (known: {})", INTERFACES.join(", ")));
        }
        if self.memory_mib == Some(0) || self.fuel == Some(0) {
            return Err(format!("{at}: memory_mib and fuel must be above 0"));
        }
        if self.deadline_seconds.is_some_and(|s| !(s > 0.0 && s <= 86_400.0)) {
            return Err(format!("{at}: deadline_seconds must be between 0 and 86400"));
        }
        Ok(())
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustSpec {
    lock: Option<PathBuf>,
    #[serde(default)]
    keys: Vec<PathBuf>,
    unlisted: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    trust: TrustSpec,
    #[serde(default)]
    default: GrantSpec,
    #[serde(default)]
    component: BTreeMap<String, GrantSpec>,
}

/// One pinned component in the lock file.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Pin {
    pub file: String,
    pub sha256: String,
}

/// The lock file `camber capabilities lock` writes: the digests of the components it saw.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
pub struct Lock {
    #[serde(default)]
    pub component: Vec<Pin>,
}

/// The policy in force.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Where it was read from (for messages: the file's name only).
    pub source: Option<String>,
    pins: BTreeMap<String, String>,
    /// Pinned file name -> digest, to say "changed since it was locked".
    pinned_files: BTreeMap<String, String>,
    keys: Vec<(String, VerifyingKey)>,
    allow_unlisted: bool,
    default: GrantSpec,
    components: BTreeMap<String, GrantSpec>,
    /// The install's own capability directory: its components keep the shipped grant.
    own_dir: Option<PathBuf>,
    config: RuntimeConfig,
}

/// What the policy decided about one file, and why.
#[derive(Clone, Debug)]
pub struct Decision {
    pub file: String,
    pub sha256: String,
    /// Why it may load, or why not (one line).
    pub admitted: Result<String, String>,
    pub grant: Grant,
}

impl Policy {
    /// No policy: every component loads with the shipped grant.
    pub fn open(config: &RuntimeConfig) -> Policy {
        Policy {
            source: None,
            pins: BTreeMap::new(),
            pinned_files: BTreeMap::new(),
            keys: Vec::new(),
            allow_unlisted: true,
            default: GrantSpec::default(),
            components: BTreeMap::new(),
            own_dir: None,
            config: config.clone(),
        }
    }

    /// Read a policy file; the lock and the keys it names are read relative to it. Every
    /// problem is one line naming the file.
    pub fn read(path: &Path, own_dir: Option<PathBuf>, config: &RuntimeConfig) -> Result<Policy, String> {
        let label = file_label(path);
        let text = std::fs::read_to_string(path).map_err(|e| format!("policy {label}: cannot read ({})", e.kind()))?;
        let file: PolicyFile = toml::from_str(&text)
            .map_err(|e| format!("policy {label}: {}", camber_common::text::one_line(e.message())))?;
        file.default.check(&format!("policy {label}: [default]"))?;
        for (k, g) in &file.component {
            g.check(&format!("policy {label}: [component.\"{k}\"]"))?;
        }
        let base = path.parent().unwrap_or(Path::new("."));
        let allow_unlisted = match file.trust.unlisted.as_deref() {
            None | Some("refuse") => false,
            Some("allow") => true,
            Some(other) => {
                return Err(format!("policy {label}: trust.unlisted must be \"refuse\" or \"allow\", not '{other}'"))
            }
        };
        let mut pins = BTreeMap::new();
        let mut pinned_files = BTreeMap::new();
        if let Some(lock) = &file.trust.lock {
            let lock = read_lock(&base.join(lock))?;
            for p in lock.component {
                pins.insert(p.sha256.clone(), p.file.clone());
                pinned_files.insert(p.file, p.sha256);
            }
        }
        let mut keys = Vec::new();
        for k in &file.trust.keys {
            let p = base.join(k);
            keys.push((file_label(&p), read_public_key(&p)?));
        }
        Ok(Policy {
            source: Some(label),
            pins,
            pinned_files,
            keys,
            allow_unlisted,
            default: file.default,
            components: file.component,
            own_dir,
            config: config.clone(),
        })
    }

    /// Decide about one component file.
    pub fn decide(&self, path: &Path) -> Result<Decision, String> {
        let file = file_label(path);
        let bytes = std::fs::read(path).map_err(|e| format!("{file}: cannot read: {}", e.kind()))?;
        Ok(self.decide_bytes(path, &bytes))
    }

    /// [`Policy::decide`] on bytes already read.
    pub fn decide_bytes(&self, path: &Path, bytes: &[u8]) -> Decision {
        let file = file_label(path);
        let sha256 = sha256_hex(bytes);
        let admitted = self.admit(path, &file, &sha256, bytes);
        let shipped = self.own_dir.as_deref().is_some_and(|d| path.parent() == Some(d));
        let base = if self.source.is_none() || shipped {
            Grant::shipped(&self.config)
        } else {
            self.default.over(&Grant::third_party(&self.config), &self.config)
        };
        let grant = match self.components.get(&format!("sha256:{sha256}")).or_else(|| self.components.get(&file)) {
            Some(spec) => spec.over(&base, &self.config),
            None => base,
        };
        Decision { file, sha256, admitted, grant }
    }

    fn admit(&self, path: &Path, file: &str, sha256: &str, bytes: &[u8]) -> Result<String, String> {
        let Some(source) = &self.source else {
            return Ok("no trust policy: every component loads".into());
        };
        if self.pins.contains_key(sha256) {
            return Ok("its digest is pinned in the lock".into());
        }
        let sig_path = signature_path(path);
        let mut why_not = Vec::new();
        if let Some(pinned) = self.pinned_files.get(file) {
            why_not.push(format!(
                "it changed since it was locked (sha256 {}…, the lock pins {}…)",
                &sha256[..12],
                &pinned[..pinned.len().min(12)]
            ));
        }
        match std::fs::read_to_string(&sig_path) {
            Ok(text) => match parse_signature(&text) {
                Some(sig) => {
                    let msg = signed_message(bytes);
                    if let Some((name, _)) = self.keys.iter().find(|(_, k)| k.verify(&msg, &sig).is_ok()) {
                        return Ok(format!("signed by {name}"));
                    }
                    why_not.push(if self.keys.is_empty() {
                        "it is signed, but the policy trusts no key".into()
                    } else {
                        "its signature verifies with no trusted key (was it changed after signing?)".into()
                    });
                }
                None => why_not.push(format!("{} is not a camber signature", file_label(&sig_path))),
            },
            Err(_) => why_not.push("it is not signed".into()),
        }
        if self.allow_unlisted {
            return Ok("unlisted, and the policy allows unlisted components".into());
        }
        if !self.pinned_files.contains_key(file) {
            why_not.insert(0, "its digest is not in the lock".into());
        }
        Err(format!("refused by policy {source}: {}", why_not.join("; ")))
    }
}

/// Read a lock file.
pub fn read_lock(path: &Path) -> Result<Lock, String> {
    let label = file_label(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("lock {label}: cannot read ({})", e.kind()))?;
    let lock: Lock =
        toml::from_str(&text).map_err(|e| format!("lock {label}: {}", camber_common::text::one_line(e.message())))?;
    if let Some(p) =
        lock.component.iter().find(|p| p.sha256.len() != 64 || !p.sha256.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(format!("lock {label}: the digest of {} is not 64 hex digits", p.file));
    }
    Ok(lock)
}

/// The lock's text for `files`: one pin per component, by file name and digest.
pub fn lock_text(files: &[PathBuf]) -> Result<String, String> {
    let mut lock = Lock::default();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| format!("{}: cannot read: {}", file_label(f), e.kind()))?;
        lock.component.push(Pin { file: file_label(f), sha256: sha256_hex(&bytes) });
    }
    let body = toml::to_string(&lock).map_err(|e| format!("cannot write the lock: {e}"))?;
    Ok(format!("# Written by `camber capabilities lock`: the components this server may load, by SHA-256.\n{body}"))
}

/// Where a component's detached signature lives: `NAME.wasm.sig` beside it.
pub fn signature_path(component: &Path) -> PathBuf {
    let mut name = component.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".sig");
    component.with_file_name(name)
}

fn signed_message(bytes: &[u8]) -> Vec<u8> {
    let mut msg = Vec::with_capacity(SIGNING_CONTEXT.len() + bytes.len());
    msg.extend_from_slice(SIGNING_CONTEXT);
    msg.extend_from_slice(bytes);
    msg
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let t = text.trim();
    if t.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(t.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The one non-comment line of a key or signature file, after its `ed25519:` tag.
fn payload(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#'))?.strip_prefix("ed25519:")
}

fn parse_signature(text: &str) -> Option<Signature> {
    unhex::<64>(payload(text)?).map(|b| Signature::from_bytes(&b))
}

/// Read an Ed25519 public key file (`ed25519:<64 hex digits>`, `#` comments allowed).
pub fn read_public_key(path: &Path) -> Result<VerifyingKey, String> {
    let label = file_label(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("key {label}: cannot read ({})", e.kind()))?;
    payload(&text)
        .and_then(unhex::<32>)
        .and_then(|b| VerifyingKey::from_bytes(&b).ok())
        .ok_or_else(|| format!("key {label}: not an ed25519 public key (ed25519:<64 hex digits>)"))
}

fn read_secret_key(path: &Path) -> Result<SigningKey, String> {
    let label = file_label(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("key {label}: cannot read ({})", e.kind()))?;
    payload(&text)
        .and_then(unhex::<32>)
        .map(|b| SigningKey::from_bytes(&b))
        .ok_or_else(|| format!("key {label}: not an ed25519 secret key (ed25519:<64 hex digits>)"))
}

/// A new key pair as the texts of its secret and public key files.
pub fn keygen(comment: &str) -> Result<(String, String), String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| format!("the operating system's random number generator cannot be read ({e})"))?;
    let key = SigningKey::from_bytes(&seed);
    let comment = camber_common::text::one_line(comment);
    Ok((
        format!("# camber signing key ({comment}): keep it secret\ned25519:{}\n", hex(&seed)),
        format!("# camber public key ({comment})\ned25519:{}\n", hex(key.verifying_key().as_bytes())),
    ))
}

/// Sign a component with the secret key in `key`: the text of its `.sig` file.
pub fn sign(component: &Path, key: &Path) -> Result<String, String> {
    let key = read_secret_key(key)?;
    let bytes =
        std::fs::read(component).map_err(|e| format!("{}: cannot read: {}", file_label(component), e.kind()))?;
    let sig = key.sign(&signed_message(&bytes));
    Ok(format!(
        "# camber signature of {} (sha256 {})\ned25519:{}\n",
        file_label(component),
        sha256_hex(&bytes),
        hex(&sig.to_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn pinned_signed_tampered_and_unlisted_files() {
        let d = tempfile::tempdir().unwrap();
        let cfg = RuntimeConfig { cache_dir: None, ..RuntimeConfig::default() };
        let comps = d.path().join("caps");
        std::fs::create_dir(&comps).unwrap();
        let pinned = write(&comps, "_cap_a.wasm", "component a");
        let signed = write(&comps, "_cap_b.wasm", "component b");
        let unlisted = write(&comps, "_cap_c.wasm", "component c");
        let (secret, public) = keygen("test").unwrap();
        write(d.path(), "k.key", &secret);
        write(d.path(), "k.pub", &public);
        std::fs::write(signature_path(&signed), sign(&signed, &d.path().join("k.key")).unwrap()).unwrap();
        std::fs::write(d.path().join("camber.lock"), lock_text(std::slice::from_ref(&pinned)).unwrap()).unwrap();
        let policy = write(
            d.path(),
            "camber.policy.toml",
            "[trust]\nlock = \"camber.lock\"\nkeys = [\"k.pub\"]\n[component.\"_cap_b.wasm\"]\nmemory_mib = 64\nimports = [\"store\"]\n",
        );
        let p = Policy::read(&policy, None, &cfg).unwrap();
        let a = p.decide(&pinned).unwrap();
        assert!(a.admitted.as_ref().unwrap().contains("pinned"), "{a:?}");
        assert_eq!(a.grant, Grant::third_party(&cfg), "a pinned third-party component gets the default");
        let b = p.decide(&signed).unwrap();
        assert_eq!(b.admitted.as_deref(), Ok("signed by k.pub"));
        assert_eq!(b.grant.budget.max_memory_bytes, 64 << 20);
        assert_eq!(b.grant.imports, BTreeSet::from(["store".to_string()]));
        assert_eq!(b.grant.max_seconds, Some(THIRD_PARTY_DEADLINE_SECONDS), "unset fields are inherited");
        let c = p.decide(&unlisted).unwrap().admitted.unwrap_err();
        assert!(c.contains("not in the lock") && c.contains("not signed"), "{c}");
        // one byte changed after signing and after locking
        std::fs::write(&signed, "component B").unwrap();
        let e = p.decide(&signed).unwrap().admitted.unwrap_err();
        assert!(e.contains("verifies with no trusted key"), "{e}");
        std::fs::write(&pinned, "component A").unwrap();
        let e = p.decide(&pinned).unwrap().admitted.unwrap_err();
        assert!(e.contains("changed since it was locked"), "{e}");
        // the install's own directory keeps the shipped grant; no policy admits everything
        let own = Policy::read(&policy, Some(comps.clone()), &cfg).unwrap();
        assert_eq!(own.decide(&unlisted).unwrap().grant, Grant::shipped(&cfg));
        assert!(Policy::open(&cfg).decide(&unlisted).unwrap().admitted.is_ok());
    }

    #[test]
    fn a_bad_policy_is_one_line_naming_what_is_wrong() {
        let d = tempfile::tempdir().unwrap();
        let cfg = RuntimeConfig { cache_dir: None, ..RuntimeConfig::default() };
        for (text, want) in [
            ("[default]\nimports = [\"network\"]\n", "unknown interface 'network'"),
            ("[trust]\nunlisted = \"maybe\"\n", "trust.unlisted"),
            ("[trust]\nlock = \"missing.lock\"\n", "lock missing.lock: cannot read"),
            ("[default]\nmemroy_mib = 3\n", "unknown field"),
            ("[trust]\nkeys = [\"p.toml\"]\n", "not an ed25519 public key"),
        ] {
            let p = write(d.path(), "p.toml", text);
            let e = Policy::read(&p, None, &cfg).unwrap_err();
            assert!(e.contains(want) && !e.contains('\n'), "{text}: {e}");
        }
    }
}
