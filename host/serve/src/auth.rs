//! Who may call over HTTP: bearer tokens, stored only as SHA-256 digests in a file the
//! operator names, each with a caller label and its own facility allowlist (intersected with
//! the server's). `camber tokens add` prints a new token once.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use camber_common::canonical::sha256_hex;

/// One caller a token stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub label: String,
    pub allowed: BTreeSet<String>,
    /// The token's digest: what sessions and tasks are bound to (labels need not be unique).
    pub id: String,
}

/// The tokens of a token file.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    entries: Vec<(String, Caller)>,
}

impl Tokens {
    /// Read a token file: `{"tokens": [{"sha256", "label", "allow": [...]}]}`.
    pub fn load(path: &Path) -> Result<Tokens, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--tokens: the token file cannot be read ({})", e.kind()))?;
        let v: Value =
            serde_json::from_str(&text).map_err(|_| "--tokens: the token file is not valid JSON".to_string())?;
        let mut entries = Vec::new();
        for t in v["tokens"].as_array().ok_or("--tokens: the token file has no \"tokens\" list")? {
            let digest = t["sha256"]
                .as_str()
                .filter(|d| d.len() == 64)
                .ok_or("--tokens: every token needs a 64-hex-digit sha256")?;
            let label = t["label"].as_str().unwrap_or("token").to_string();
            let allowed = t["allow"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            entries.push((digest.to_ascii_lowercase(), Caller { label, allowed, id: digest.to_ascii_lowercase() }));
        }
        Ok(Tokens { entries })
    }

    /// The caller a presented token stands for.
    pub fn check(&self, token: &str) -> Option<&Caller> {
        let d = sha256_hex(token.as_bytes());
        // compare every digest in full, so the time taken does not tell how much matched
        let mut found = None;
        for (digest, caller) in &self.entries {
            let same =
                digest.len() == d.len() && digest.bytes().zip(d.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
            if same {
                found = Some(caller);
            }
        }
        found
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Add a token for `label` to the file (created when missing) and return the token, which is
/// stored nowhere.
pub fn add(path: &Path, label: &str, allow: &[String]) -> Result<String, String> {
    let token = format!("cmb_{}{}", camber_common::ids::random_hex()?, camber_common::ids::random_hex()?);
    let mut doc: Value = match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t).map_err(|_| "the token file is not valid JSON".to_string())?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({"tokens": []}),
        Err(e) => return Err(format!("the token file cannot be read ({})", e.kind())),
    };
    let list = doc["tokens"].as_array_mut().ok_or("the token file has no \"tokens\" list")?;
    list.push(json!({"sha256": sha256_hex(token.as_bytes()), "label": label, "allow": allow, "created_at": camber_common::ids::utc_now()}));
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write the token file: {e}"))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_as_digests() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("tokens.json");
        let t = add(&f, "claude", &["hq".into()]).unwrap();
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(!text.contains(&t), "the token itself is never stored");
        let tokens = Tokens::load(&f).unwrap();
        let c = tokens.check(&t).unwrap();
        assert_eq!(c.label, "claude");
        assert!(c.allowed.contains("hq"));
        assert!(tokens.check("cmb_wrong").is_none());
    }
}
