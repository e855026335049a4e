//! The policy steps of a call that are not the guest itself: schema checks, argument
//! normalising, the allowlist, the call token, fact-id scoping, caps, the one-line rule and
//! path redaction. `registry::Registry::call` runs them in the spec's order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use camber_common::canonical::{canonical_bytes, sha256_hex};
use camber_common::text::{cut, defuse_citations, one_line, DATA_MAX_CHARS};
use camber_common::{CapError, ErrorCode};

/// Keywords a capability schema may use: each one is enforced by the validator.
const KEYWORDS: [&str; 16] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
];
/// Annotations: accepted and never applied (`default` is not filled in).
const ANNOTATIONS: [&str; 8] = ["$schema", "$id", "$comment", "title", "description", "default", "examples", "format"];

/// Refuse a schema with a keyword outside the supported subset, so no constraint is declared
/// without being enforced. `at` names the schema in the message.
pub fn check_schema(schema: &Value, at: &str) -> Result<(), String> {
    let Value::Object(m) = schema else {
        return Err(format!("{at} is not a JSON object"));
    };
    for (k, v) in m {
        if !KEYWORDS.contains(&k.as_str()) && !ANNOTATIONS.contains(&k.as_str()) {
            return Err(format!("{at} uses the keyword '{k}', which camber does not support"));
        }
        match k.as_str() {
            "properties" => {
                let Value::Object(props) = v else {
                    return Err(format!("{at}/properties is not an object"));
                };
                for (name, sub) in props {
                    check_schema(sub, &format!("{at}/properties/{name}"))?;
                }
            }
            "items" => check_schema(v, &format!("{at}/items"))?,
            "additionalProperties" if v.is_object() => check_schema(v, &format!("{at}/additionalProperties"))?,
            "additionalProperties" if !v.is_boolean() => {
                return Err(format!("{at}/additionalProperties must be a boolean or a schema"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// A compiled schema and the source it came from.
pub struct Schema {
    pub source: Value,
    validator: jsonschema::Validator,
}

impl Schema {
    /// Check the subset, then compile.
    pub fn compile(source: Value, at: &str) -> Result<Schema, String> {
        check_schema(&source, at)?;
        if source.get("type").and_then(Value::as_str) != Some("object") {
            return Err(format!("{at} must be an object schema (\"type\": \"object\")"));
        }
        let validator = jsonschema::draft202012::new(&source)
            .map_err(|e| format!("{at} is not a valid JSON Schema: {}", one_line(&e.to_string())))?;
        Ok(Schema { source, validator })
    }

    /// Every problem of `value` as "<JSON pointer>: <problem>", the root written `/`.
    pub fn errors(&self, value: &Value) -> Vec<String> {
        self.validator
            .iter_errors(value)
            .map(|e| {
                let ptr = e.instance_path().as_str().to_string();
                let ptr = if ptr.is_empty() { "/".to_string() } else { ptr };
                let msg = one_line(&e.to_string());
                let msg = cut(&msg, 300).unwrap_or(msg);
                format!("{ptr}: {msg}")
            })
            .collect()
    }
}

/// `invalid_params` for arguments the input schema refuses.
pub fn invalid_params(errors: Vec<String>) -> CapError {
    let message = errors.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
    CapError::with_data(
        ErrorCode::InvalidParams,
        message,
        json!({"errors": errors.into_iter().take(50).collect::<Vec<_>>()}),
    )
}

/// Whole-number floats where the schema asks for an integer become integers (`5.0` -> `5`),
/// so a handler reads them as integers.
pub fn normalize_integers(value: &mut Value, schema: &Value) {
    let wants_int = match schema.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
        _ => false,
    };
    match value {
        Value::Number(n) if wants_int && !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64() {
                // past 2^53 every float is whole; `as` saturates, so 1e16 or 2^64 stays a
                // large number (an offset past the list) rather than reading as 0
                if f.fract() == 0.0 {
                    *value = if f >= 0.0 { json!(f as u64) } else { json!(f as i64) };
                }
            }
        }
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let extra = schema.get("additionalProperties").filter(|a| a.is_object());
            for (k, v) in m.iter_mut() {
                if let Some(sub) = props.and_then(|p| p.get(k)).or(extra) {
                    normalize_integers(v, sub);
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for v in items {
                    normalize_integers(v, sub);
                }
            }
        }
        _ => {}
    }
}

/// The facility ids the arguments name (`facility_id`, `facility_ids`), in order.
pub fn named_facilities(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(f) = args.get("facility_id").and_then(Value::as_str) {
        out.push(f.to_string());
    }
    if let Some(many) = args.get("facility_ids").and_then(Value::as_array) {
        out.extend(many.iter().filter_map(Value::as_str).map(str::to_string));
    }
    out
}

/// `not_allowed` for the first named facility outside the allowlist, whether it exists or not.
pub fn check_allowlist(named: &[String], allowed: &BTreeSet<String>) -> Result<(), CapError> {
    match named.iter().find(|f| !allowed.contains(*f)) {
        Some(f) => Err(CapError::new(
            ErrorCode::NotAllowed,
            format!("facility '{}' is not among the facilities this caller may read", one_line(f)),
        )),
        None => Ok(()),
    }
}

/// What else decides a call's values, folded into its token.
pub struct TokenInputs<'a> {
    pub config_digest: &'a str,
    pub min_trust: f64,
    pub generation: &'a str,
}

/// Six hex digits of SHA-256 over the canonical JSON of the name, the validated arguments,
/// the sorted allowlist, the config digest, the trust floor and the store generation.
pub fn call_token(name: &str, args: &Value, allowed: &BTreeSet<String>, more: &TokenInputs) -> String {
    let payload =
        json!([name, args, allowed.iter().collect::<Vec<_>>(), more.config_digest, more.min_trust, more.generation]);
    sha256_hex(&canonical_bytes(&payload))[..6].to_string()
}

/// The scoped form of a plain fact id: `F1@points` -> `F1@points-<token>`, `F1` -> `F1@<token>`.
pub fn scoped_id(id: &str, token: &str) -> String {
    match id.split_once('@') {
        Some((base, ctx)) => format!("{base}@{ctx}-{token}"),
        None => format!("{id}@{token}"),
    }
}

/// Keys under which `data` names a fact id (a row's `fact`, a list of `fact_ids`, the `id`
/// of an entry in a `fact_index` or `facts` list). Everywhere else data holds stored values,
/// kept exactly: an equipment that happens to be named `F1@points` stays `F1@points`, so it
/// can be passed back.
pub const FACT_ID_KEYS: &[&str] = &["fact", "fact_id", "fact_ids", "cites"];
/// Lists in `data` whose entries are facts (their `id` is scoped).
pub const FACT_LIST_KEYS: &[&str] = &["fact_index", "facts"];

/// Scope every fact id of a result. Returns the mapping from plain to scoped ids; rewrites
/// facts' ids, and the strings in `data` that name a fact id (see [`FACT_ID_KEYS`]).
pub fn scope_facts(facts: &mut [Value], data: &mut Value, token: &str) -> Result<BTreeMap<String, String>, String> {
    let mut mapping = BTreeMap::new();
    for f in facts.iter_mut() {
        let Some(obj) = f.as_object_mut() else {
            return Err("a fact is not an object".into());
        };
        let Some(id) = obj.get("id").and_then(Value::as_str).map(str::to_string) else {
            return Err("a fact has no string id".into());
        };
        if id.is_empty() || !camber_common::text::is_fact_id(&id) {
            return Err("a fact id is not of the form F1@context".into());
        }
        let new = scoped_id(&id, token);
        if mapping.insert(id, new.clone()).is_some() {
            return Err("two facts share one id".into());
        }
        obj.insert("id".into(), Value::String(new));
    }
    if !mapping.is_empty() {
        replace_ids(data, &mapping, 0);
    }
    Ok(mapping)
}

/// Walk `data`, scoping the ids found under the keys that name facts.
fn replace_ids(v: &mut Value, mapping: &BTreeMap<String, String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| replace_ids(x, mapping, depth + 1)),
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if FACT_ID_KEYS.contains(&k.as_str()) {
                    scope_strings(x, mapping);
                } else if FACT_LIST_KEYS.contains(&k.as_str()) {
                    for entry in x.as_array_mut().into_iter().flatten() {
                        if let Some(id) = entry.get_mut("id") {
                            scope_strings(id, mapping);
                        }
                        replace_ids(entry, mapping, depth + 2);
                    }
                } else {
                    replace_ids(x, mapping, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A fact id, or a list of them, scoped.
fn scope_strings(v: &mut Value, mapping: &BTreeMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(n) = mapping.get(s.as_str()) {
                *s = n.clone();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| scope_strings(x, mapping)),
        _ => {}
    }
}

/// The text with its own citations scoped; any other bracket is left for the citation
/// check, which removes an id the result has no fact for.
pub fn scope_text(text: &str, mapping: &BTreeMap<String, String>) -> String {
    let spans = camber_common::text::citation_spans(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for (a, b) in spans {
        out.push_str(&text[last..a]);
        let id = &text[a + 1..b - 1];
        match mapping.get(id) {
            Some(n) => {
                out.push('[');
                out.push_str(n);
                out.push(']');
            }
            None => out.push_str(&text[a..b]),
        }
        last = b;
    }
    out.push_str(&text[last..]);
    out
}

/// The strict citation check of a result's own text against its own facts: a sentence
/// stating a figure no cited fact carries is removed, a citation of an id the result has no
/// fact for is removed (its sentence kept). Returns the text and a banner per kind of removal.
pub fn grounded(text: &str, facts: &[Value]) -> Result<(String, Vec<String>), String> {
    use camber_common::citations::{check, FactIndex};
    let index = FactIndex::new(facts)?;
    let report = check(text, &index);
    let mut banners = Vec::new();
    let removed: Vec<usize> = report.sentences.iter().filter(|s| s.verdict.removes()).map(|s| s.index + 1).collect();
    if !removed.is_empty() {
        banners.push(format!(
            "{} statement(s) of the summary were removed: they state a figure no fact they cite carries",
            removed.len()
        ));
    }
    let unknown: usize = report.sentences.iter().filter(|s| !s.verdict.removes()).map(|s| s.unknown.len()).sum();
    if unknown > 0 {
        banners.push(format!("{unknown} citation(s) of the summary were removed: the result has no fact with that id"));
    }
    Ok((report.verified_text, banners))
}

/// One-line fact texts with no citation in them.
pub fn clean_fact_texts(facts: &mut [Value]) {
    for f in facts {
        if let Some(Value::String(t)) = f.get_mut("text") {
            *t = defuse_citations(&one_line(t));
        }
    }
}

/// Cut each top-level list of `data` to `max_rows`; a banner per cut list.
pub fn row_cap(data: &mut Value, max_rows: usize) -> Vec<String> {
    let mut banners = Vec::new();
    if let Value::Object(m) = data {
        for (k, v) in m.iter_mut() {
            if let Value::Array(a) = v {
                if a.len() > max_rows {
                    banners.push(format!(
                        "'{k}' truncated: showing the first {max_rows} of {} rows (narrow the query to see the rest)",
                        a.len()
                    ));
                    a.truncate(max_rows);
                }
            }
        }
    }
    banners
}

/// Cut every string longer than 2,000 characters in `data`, except under the top-level keys
/// the capability declares its own output; returns how many were cut.
pub fn cap_data_strings(data: &mut Value, own_output: &[String]) -> usize {
    match data {
        Value::Object(m) => m.iter_mut().filter(|(k, _)| !own_output.contains(k)).map(|(_, v)| cap_strings(v)).sum(),
        other => cap_strings(other),
    }
}

/// Cut every string longer than 2,000 characters in `v`; returns how many were cut.
pub fn cap_strings(v: &mut Value) -> usize {
    match v {
        Value::String(s) => match cut(s, DATA_MAX_CHARS) {
            Some(c) => {
                *s = c;
                1
            }
            None => 0,
        },
        Value::Array(a) => a.iter_mut().map(cap_strings).sum(),
        Value::Object(m) => m.values_mut().map(cap_strings).sum(),
        _ => 0,
    }
}

/// The first `facility_id` (or `facility_ids` entry) anywhere in `v` outside `allowed`.
pub fn outside_allowlist<'a>(v: &'a Value, allowed: &BTreeSet<String>) -> Option<&'a str> {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(f)) = m.get("facility_id") {
                if !allowed.contains(f) {
                    return Some(f);
                }
            }
            if let Some(Value::Array(fs)) = m.get("facility_ids") {
                if let Some(f) = fs.iter().filter_map(Value::as_str).find(|f| !allowed.contains(*f)) {
                    return Some(f);
                }
            }
            m.values().find_map(|x| outside_allowlist(x, allowed))
        }
        Value::Array(a) => a.iter().find_map(|x| outside_allowlist(x, allowed)),
        _ => None,
    }
}

/// Size in bytes of the JSON a caller receives: data, text, facts and banners together.
/// `data_json`, when given, is `data` already serialized: its length is taken, and `data` is
/// not walked again.
pub fn result_bytes(data: &Value, data_json: Option<&str>, text: &str, facts: &[Value], banners: &[String]) -> usize {
    /// The result as one object, borrowed: nothing is copied to be measured.
    #[derive(serde::Serialize)]
    struct Whole<'a> {
        data: &'a Value,
        text: &'a str,
        facts: &'a [Value],
        banners: &'a [String],
    }
    /// A writer that only counts what it is given.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // with the data's text in hand, the rest is measured around a `null` in its place
    let (data, known) = match data_json {
        Some(j) => (&Value::Null, j.len() - "null".len()),
        None => (data, 0),
    };
    match serde_json::to_writer(&mut n, &Whole { data, text, facts, banners }) {
        Ok(()) => n.0 + known,
        Err(_) => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_bytes_are_the_length_of_the_result_as_one_json_object() {
        let data = json!({"rows": [{"a": 1.5, "b": "x\u{e9}\"y"}], "n": 2});
        let facts = vec![json!({"id": "F1@x-abcdef", "text": "1.5 kW"})];
        let banners = vec!["'rows' shows rows 1-1 of 2".to_string()];
        let whole = json!({"data": data, "text": "t [F1@x-abcdef]", "facts": facts, "banners": banners});
        let expected = serde_json::to_vec(&whole).unwrap().len();
        assert_eq!(result_bytes(&data, None, "t [F1@x-abcdef]", &facts, &banners), expected);
        // the data's text given: the same length, without walking the data
        let text = serde_json::to_string(&data).unwrap();
        assert_eq!(result_bytes(&Value::Null, Some(&text), "t [F1@x-abcdef]", &facts, &banners), expected);
    }

    #[test]
    fn schema_subset_refuses_unknown_keywords() {
        assert!(check_schema(
            &json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x$"}}}),
            "s"
        )
        .is_ok());
        let e = check_schema(&json!({"type": "object", "properties": {"a": {"oneOf": []}}}), "s").unwrap_err();
        assert!(e.contains("'oneOf'") && e.contains("s/properties/a"), "{e}");
        assert!(check_schema(&json!({"type": "object", "items": {"$ref": "#"}}), "s").is_err());
    }

    #[test]
    fn whole_floats_become_integers_only_where_the_schema_says_integer() {
        let schema = json!({"type": "object", "properties": {"limit": {"type": "integer"}, "x": {"type": "number"}}});
        let mut v = json!({"limit": 5.0, "x": 2.0});
        normalize_integers(&mut v, &schema);
        assert!(v["limit"].is_i64());
        assert!(v["x"].is_f64());
        let mut w = json!({"limit": 5.5});
        normalize_integers(&mut w, &schema);
        assert!(w["limit"].is_f64());
    }

    #[test]
    fn token_depends_on_every_input() {
        let allowed: BTreeSet<String> = ["hq".to_string()].into();
        let base = TokenInputs { config_digest: "", min_trust: 0.5, generation: "g" };
        let t = call_token("points", &json!({"facility_id": "hq"}), &allowed, &base);
        assert_eq!(t.len(), 6);
        assert_eq!(t, call_token("points", &json!({"facility_id": "hq"}), &allowed, &base));
        let other = [
            call_token("facilities", &json!({"facility_id": "hq"}), &allowed, &base),
            call_token("points", &json!({"facility_id": "hq", "role": "oat"}), &allowed, &base),
            call_token("points", &json!({"facility_id": "hq"}), &BTreeSet::new(), &base),
            call_token("points", &json!({"facility_id": "hq"}), &allowed, &TokenInputs { min_trust: 0.6, ..base }),
            call_token("points", &json!({"facility_id": "hq"}), &allowed, &TokenInputs { generation: "h", ..base }),
            call_token("points", &json!({"facility_id": "hq"}), &allowed, &TokenInputs { config_digest: "c", ..base }),
        ];
        for o in other {
            assert_ne!(o, t);
        }
    }

    #[test]
    fn scoping_rewrites_facts_text_and_data() {
        let mut facts = vec![json!({"id": "F1@points", "text": "x"}), json!({"id": "F2", "text": "y"})];
        let mut data = json!({
            "rows": [{"fact": "F1@points", "equip": "F1@points", "fact_ids": ["F2", "F9"]}],
            "other": "F1@pointsX",
            "points": [{"equip": "F1@points", "role": "F2"}],
            "fact_index": [{"id": "F2", "kind": "x"}],
        });
        let m = scope_facts(&mut facts, &mut data, "abc123").unwrap();
        assert_eq!(facts[0]["id"], "F1@points-abc123");
        assert_eq!(facts[1]["id"], "F2@abc123");
        assert_eq!(data["rows"][0]["fact"], "F1@points-abc123");
        assert_eq!(data["rows"][0]["fact_ids"], json!(["F2@abc123", "F9"]));
        assert_eq!(data["fact_index"][0]["id"], "F2@abc123");
        assert_eq!(data["other"], "F1@pointsX");
        // stored names that look like fact ids are data, kept exactly
        assert_eq!(data["rows"][0]["equip"], "F1@points");
        assert_eq!(data["points"][0], json!({"equip": "F1@points", "role": "F2"}));
        let t = scope_text("2 points [F1@points]. Also [F7@x] here [F2].", &m);
        assert_eq!(t, "2 points [F1@points-abc123]. Also [F7@x] here [F2@abc123].");
        let (g, banners) = grounded(&t, &facts).unwrap();
        assert_eq!(g, "Also here [F2@abc123].");
        assert_eq!(banners.len(), 2, "{banners:?}");
        let mut dup = vec![json!({"id": "F1@a"}), json!({"id": "F1@a"})];
        assert!(scope_facts(&mut dup, &mut json!({}), "t").is_err());
    }

    #[test]
    fn row_cap_and_string_cap() {
        let mut d = json!({"rows": [1, 2, 3, 4], "n": 4});
        let b = row_cap(&mut d, 2);
        assert_eq!(d["rows"], json!([1, 2]));
        assert_eq!(b, vec!["'rows' truncated: showing the first 2 of 4 rows (narrow the query to see the rest)"]);
        let mut s = json!({"a": "x".repeat(2500), "b": ["y".repeat(10)]});
        assert_eq!(cap_strings(&mut s), 1);
        assert_eq!(s["a"].as_str().unwrap().chars().count(), 2000);
    }

    #[test]
    fn outside_allowlist_finds_nested_ids() {
        let allowed: BTreeSet<String> = ["hq".to_string()].into();
        assert_eq!(
            outside_allowlist(&json!({"a": [{"facility_id": "hq"}, {"b": {"facility_id": "x"}}]}), &allowed),
            Some("x")
        );
        assert_eq!(outside_allowlist(&json!({"facility_ids": ["hq", "y"]}), &allowed), Some("y"));
        assert_eq!(outside_allowlist(&json!({"facility_id": "hq"}), &allowed), None);
    }
}
