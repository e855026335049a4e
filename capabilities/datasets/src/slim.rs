//! Reading the catalog's JSON text for what a call needs, not all of it.
//!
//! The catalog crosses from the host as one JSON text of about 270 KB, most of it in fields a
//! search never reads (labels, configs, known issues, manuals). Parsed whole into a `Value` it
//! cost a search or an entry about a millisecond of wasm a call, more than everything else the
//! call does. A search keeps only the keys it reads and skips the rest unbuilt; an entry keeps
//! only the entry it asks for, skipping every other one from its `id` on.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The keys of an entry a search reads: its filters, the query's text and the row.
pub const SEARCH_KEYS: &[&str] = &[
    "id",
    "title",
    "summary",
    "kind",
    "publisher",
    "equipment",
    "good_for",
    "teaches",
    "licence",
    "access",
    "access_reason",
    "labeled_faults",
    "download_bytes",
    "store_bytes_estimate",
    "subsets",
];

/// Which part of each entry to build.
#[derive(Clone, Copy)]
enum Keep<'a> {
    /// These keys of every entry.
    Keys(&'a [&'a str]),
    /// The whole of the entry whose `id` is this, nothing of the others.
    Entry(&'a str),
}

struct EntrySeed<'a>(Keep<'a>);

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Option<Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Option<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a catalog entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = m.next_key::<String>()? {
            let keep = match self.0 {
                Keep::Keys(keys) => keys.contains(&key.as_str()),
                Keep::Entry(_) => true,
            };
            if !keep {
                m.next_value::<IgnoredAny>()?;
                continue;
            }
            let v: Value = m.next_value()?;
            if let (Keep::Entry(wanted), "id") = (self.0, key.as_str()) {
                if v.as_str() != Some(wanted) {
                    // another entry: the rest of it is skipped unbuilt
                    while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                    return Ok(None);
                }
            }
            out.insert(key, v);
        }
        match self.0 {
            Keep::Entry(wanted) if out.get("id").and_then(Value::as_str) != Some(wanted) => Ok(None),
            _ => Ok(Some(Value::Object(out))),
        }
    }
    // anything else in the list is no entry: skipped
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

struct ListSeed<'a>(Keep<'a>);

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = Vec<Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the catalog's list of entries")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(e) = s.next_element_seed(EntrySeed(self.0))? {
            out.extend(e);
        }
        Ok(out)
    }
}

fn read(text: &str, keep: Keep<'_>) -> Option<Vec<Value>> {
    let mut d = serde_json::Deserializer::from_str(text);
    let list = d.deserialize_seq(ListSeed(keep)).ok()?;
    d.end().ok()?;
    Some(list)
}

/// The catalog (an array of entries) with only `keys` of each entry; `None` when the text is
/// not a JSON array.
pub fn with_keys(text: &str, keys: &[&str]) -> Option<Value> {
    read(text, Keep::Keys(keys)).map(Value::Array)
}

/// The catalog holding only the entry whose id is `id` (empty when there is none); `None`
/// when the text is not a JSON array.
pub fn only_entry(text: &str, id: &str) -> Option<Value> {
    read(text, Keep::Entry(id)).map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_search_reads_its_keys_and_an_entry_only_itself() {
        let text = json!([
            {"id": "a", "title": "A", "labels": {"big": [1, 2, 3]}, "kind": "real"},
            {"title": "no id first", "id": "b", "manual": "long text"},
            {"id": "c", "kind": "synthetic", "config_template": {"rules": ["x"]}},
            "not an entry"
        ])
        .to_string();
        assert_eq!(
            with_keys(&text, &["id", "kind"]).unwrap(),
            json!([{"id": "a", "kind": "real"}, {"id": "b"}, {"id": "c", "kind": "synthetic"}])
        );
        assert_eq!(
            only_entry(&text, "c").unwrap(),
            json!([{"id": "c", "kind": "synthetic", "config_template": {"rules": ["x"]}}])
        );
        assert_eq!(
            only_entry(&text, "b").unwrap(),
            json!([{"title": "no id first", "id": "b", "manual": "long text"}])
        );
        assert_eq!(only_entry(&text, "zzz").unwrap(), json!([]));
        assert!(with_keys("{\"not\": \"a list\"}", &["id"]).is_none());
        assert!(only_entry("[{\"id\": ", "a").is_none(), "broken JSON is no catalog");
    }
}
