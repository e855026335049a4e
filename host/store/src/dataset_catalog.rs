//! The dataset catalog: public metadata of the open and research-only datasets camber knows
//! (carried over from the reference as data, `data/catalog.json`) plus camber's own synthetic
//! datasets. Compiled in; nothing is fetched. The licence policy reads it, and guests get it
//! as JSON through the `catalog` host function.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

const DATA: &str = include_str!("../data/catalog.json");

/// Every entry, sorted by id.
pub fn entries() -> &'static [Value] {
    static ENTRIES: OnceLock<Vec<Value>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let doc: Value = serde_json::from_str(DATA).expect("the packaged catalog is valid JSON");
        let mut out: Vec<Value> = doc["datasets"].as_array().cloned().unwrap_or_default();
        for d in camber_synth::datasets() {
            let fault_types: serde_json::Map<String, Value> =
                d.fault_types.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
            out.push(json!({
                "id": d.id,
                "title": d.title,
                "summary": d.summary,
                "kind": "synthetic",
                "licence": "Apache-2.0",
                "access": "open",
                "access_reason": null,
                "attribution_required": false,
                "labeled_faults": true,
                "publisher": "camber-rs (generated on this machine by camber-synth)",
                "citation": format!("camber-synth {} (generator version {}), camber-rs", d.id, camber_synth::GENERATOR_VERSION),
                "dois": [],
                "landing_url": null,
                "verified_on": null,
                "timezone": "naive generated clock (no daylight saving time)",
                "equipment": null,
                "good_for": ["testing rules against labelled faults", "demos"],
                "labels": {"fault_types": fault_types},
                "download_bytes": {"default": 0, "full": 0},
                "subsets": {"default": {"description": format!("{} days at {} minutes", d.days, d.step_minutes)}},
                "suggested_rules": [],
                "config_template": null,
                "known_issues": [],
                "data_issues": [],
                "manual": false,
                "generator": {"name": "camber-synth", "seed": d.default_seed, "version": camber_synth::GENERATOR_VERSION},
                "facility": format!("ds-{}", d.id),
            }));
        }
        out.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
        out
    })
}

/// The entry with this id.
pub fn get(id: &str) -> Option<&'static Value> {
    entries().iter().find(|e| e["id"] == id)
}

/// The catalog as the JSON text guests receive.
pub fn json_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| Value::Array(entries().to_vec()).to_string())
}

/// The catalog with only `keys` of each entry, as JSON text: what a guest that reads a few
/// keys of every entry (a search) is given instead of the whole text to scan. Worked out once
/// per list of keys; a few dozen lists are kept (the catalog never changes while the process
/// runs), any further one is worked out on every call.
pub fn fields_text(keys: &[String]) -> Arc<str> {
    const KEPT: usize = 32;
    static MEMO: OnceLock<Mutex<HashMap<Vec<String>, Arc<str>>>> = OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(t) = memo.lock().unwrap_or_else(|p| p.into_inner()).get(keys) {
        return t.clone();
    }
    let list: Vec<Value> = entries()
        .iter()
        .map(|e| match e {
            Value::Object(m) => Value::Object(
                m.iter().filter(|(k, _)| keys.iter().any(|w| w == *k)).map(|(k, v)| (k.clone(), v.clone())).collect(),
            ),
            other => other.clone(),
        })
        .collect();
    let text: Arc<str> = Value::Array(list).to_string().into();
    let mut kept = memo.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() < KEPT {
        kept.insert(keys.to_vec(), text.clone());
    }
    text
}

/// Whether a licence id is non-commercial or no-derivatives (a dash-separated token `NC` or
/// `ND`, in any case).
pub fn is_research_only_licence(licence: &str) -> bool {
    licence.to_ascii_uppercase().split('-').any(|t| t == "NC" || t == "ND")
}

/// Whether a catalog entry is held research-only (by its licence or a stated reason).
pub fn research_only(entry: &Value) -> bool {
    entry["access"] == "research_only" || entry["licence"].as_str().is_some_and(is_research_only_licence)
}

/// The catalog entry a `ds-<base>` or `ds-<base>-<group>` facility is named for (the longest
/// matching base), if any.
pub fn entry_for_facility(fid: &str) -> Option<&'static Value> {
    let rest = fid.strip_prefix("ds-")?;
    entries()
        .iter()
        .filter(|e| {
            let id = e["id"].as_str().unwrap_or_default();
            rest == id || rest.strip_prefix(id).is_some_and(|g| g.starts_with('-') && g.len() > 1)
        })
        .max_by_key(|e| e["id"].as_str().map_or(0, str::len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_licences() {
        assert_eq!(entries().len(), 34 + camber_synth::datasets().len());
        assert!(research_only(get("at-30bldg-sensors").unwrap()));
        assert!(research_only(get("rbc-g36-ahu").unwrap()));
        assert!(!research_only(get("lbnl-sdahu").unwrap()));
        assert!(is_research_only_licence("cc-by-nc-sa-4.0"));
        assert!(!is_research_only_licence("CC-BY-NCND"));
        assert_eq!(entry_for_facility("ds-rbc-g36-ahu-site3").unwrap()["id"], "rbc-g36-ahu");
        assert_eq!(entry_for_facility("ds-synthetic-chw-plant").unwrap()["id"], "synthetic-chw-plant");
        assert_eq!(entry_for_facility("ds-synthetic-chw-plant-multi").unwrap()["id"], "synthetic-chw-plant-multi");
        assert!(entry_for_facility("hq").is_none());
        assert!(entry_for_facility("ds-unknown").is_none());
    }

    #[test]
    fn fields_keep_only_the_keys_asked_for_in_catalog_order() {
        let keys = vec!["id".to_string(), "licence".to_string(), "no_such_key".to_string()];
        let text = fields_text(&keys);
        let list: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(list.len(), entries().len());
        for (slim, whole) in list.iter().zip(entries()) {
            let m = slim.as_object().unwrap();
            assert_eq!(m.get("id"), whole.get("id"));
            assert_eq!(m.get("licence"), whole.get("licence"));
            assert!(m.keys().all(|k| k == "id" || k == "licence"), "{m:?}");
        }
        // asked again: the same text, kept
        assert!(Arc::ptr_eq(&text, &fields_text(&keys)));
    }
}
