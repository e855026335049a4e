//! The policy steps of a call that are not the guest itself: schema checks, argument
//! normalising, the allowlist, the call token, fact-id scoping, caps, the one-line rule and
//! path redaction. `registry::Registry::call` runs them in the spec's order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use camber_common::canonical::{canonical_bytes, sha256_hex};
use camber_common::text::{cut, defuse_citations, one_line, DATA_MAX_CHARS};
use camber_common::{CapError, ErrorCode};

/// Keywords a capability schema may use: each one is enforced by the validator.
const KEYWORDS: [&str; 16] = [
    "type", "properties", "required", "additionalProperties", "enum", "const", "items",
    "minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern",
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
    let payload = json!([name, args, allowed.iter().collect::<Vec<_>>(), more.config_digest, more.min_trust, more.generation]);
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
pub fn result_bytes(data: &Value, text: &str, facts: &[Value], banners: &[String]) -> usize {
    let whole = json!({"data": data, "text": text, "facts": facts, "banners": banners});
    serde_json::to_vec(&whole).map(|v| v.len()).unwrap_or(usize::MAX)
}

/// `n` with thousands separators (2,000,000).
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Takes absolute local paths out of text that leaves the host.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// Known roots (the store, the config and its folder, home, temp, the working directory,
    /// the capability and cache folders), longest first.
    roots: Vec<String>,
}

impl Redactor {
    /// A redactor for these known roots (plus home, temp and the working directory).
    pub fn new<I: IntoIterator<Item = std::path::PathBuf>>(paths: I) -> Redactor {
        let mut roots: BTreeSet<String> = BTreeSet::new();
        let mut add = |p: std::path::PathBuf| {
            let s = p.to_string_lossy().trim_end_matches('/').to_string();
            if s.len() > 1 {
                roots.insert(s);
            }
            if let Ok(c) = p.canonicalize() {
                let s = c.to_string_lossy().trim_end_matches('/').to_string();
                if s.len() > 1 {
                    roots.insert(s);
                }
            }
        };
        for p in paths {
            add(p);
        }
        if let Some(h) = std::env::var_os("HOME") {
            add(h.into());
        }
        add(std::env::temp_dir());
        if let Ok(cwd) = std::env::current_dir() {
            add(cwd);
        }
        let mut roots: Vec<String> = roots.into_iter().collect();
        roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
        Redactor { roots }
    }

    /// Replace the known roots only (for names from the data).
    pub fn roots_only(&self, s: &str) -> String {
        let mut out = s.to_string();
        for r in &self.roots {
            if out.contains(r.as_str()) {
                out = replace_root(&out, r);
            }
        }
        out
    }

    /// Replace the known roots, then any other absolute path outside a quoted value.
    pub fn redact(&self, s: &str) -> String {
        redact_pattern(&self.roots_only(s), &|_| false)
    }

    /// [`Redactor::redact`], and also the quoted paths the caller sent.
    pub fn redact_echoes(&self, s: &str, sent: &Sent) -> String {
        redact_pattern(&self.roots_only(s), &|run| sent.echoed(run))
    }

    /// A message made of a value the caller sent (an unknown tool or method name): the
    /// known roots, then every absolute path, quoted or not.
    pub fn redact_sent(&self, s: &str) -> String {
        redact_pattern(&self.roots_only(s), &|_| true)
    }

    /// A JSON pointer into the caller's arguments: its segments are the caller's keys, so a
    /// segment that holds a path (written `~1` for `/`) reads `<path>`.
    pub fn redact_pointer(&self, ptr: &str) -> String {
        if !ptr.contains('~') && self.roots_only(ptr) == ptr {
            return ptr.to_string();
        }
        ptr.split('/')
            .map(|seg| {
                let key = seg.replace("~1", "/").replace("~0", "~");
                if self.redact_sent(&key) == key {
                    seg.to_string()
                } else {
                    "<path>".to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Redact every string (and key) in an error's data: known roots only, since the data
    /// lists values from the store.
    pub fn redact_data(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.roots_only(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.redact_data(x)).collect()),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(self.roots_only(k), self.redact_data(x));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// [`Redactor::redact_data`], and also the paths the caller sent (an error's data is
    /// stored names, kept as they are, and the caller's values, redacted).
    pub fn redact_data_echoes(&self, v: &Value, sent: &Sent) -> Value {
        match v {
            Value::String(s) => Value::String(redact_runs(&self.roots_only(s), &|run| sent.echoed(run), true)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.redact_data_echoes(x, sent)).collect()),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(redact_runs(&self.roots_only(k), &|run| sent.echoed(run), true), self.redact_data_echoes(x, sent));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
}

/// Replace `root` (when it is a whole path prefix) and the rest of its path with `<path>`.
/// After the root the path runs on across a space while the next word holds a separator.
fn replace_root(s: &str, root: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find(root) {
        let after = &rest[pos + root.len()..];
        let boundary = after.is_empty() || after.starts_with(['/', '\\']) || !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.');
        if !boundary {
            out.push_str(&rest[..pos + root.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..pos]);
        out.push_str("<path>");
        let mut i = path_run(after);
        loop {
            let tail = &after[i..];
            if !tail.starts_with(' ') {
                break;
            }
            let word_end = tail[1..].find(char::is_whitespace).map(|e| e + 1).unwrap_or(tail.len());
            let word = &tail[1..word_end];
            if !word.is_empty() && word.contains(['/', '\\']) {
                i += word_end;
            } else {
                break;
            }
        }
        rest = &after[i..];
    }
    out.push_str(rest);
    out
}

/// Length of the path characters at the start of `s` (up to whitespace or a delimiter).
fn path_run(s: &str) -> usize {
    s.char_indices()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ',' | ';' | ')' | ']'))
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

/// Replace absolute paths (`/x/y`, `~/x`, `C:\x`) outside double-quoted values, and inside
/// them those for which `echoed` says yes (a value the caller sent).
fn redact_pattern(s: &str, echoed: &dyn Fn(&str) -> bool) -> String {
    redact_runs(s, echoed, false)
}

/// [`redact_pattern`]; with `name`, all of `s` is a name from the data, as if quoted.
fn redact_runs(s: &str, echoed: &dyn Fn(&str) -> bool, name: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut in_quote = name;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if c == '"' && !name {
            in_quote = !in_quote;
            out.push(c);
            i += 1;
            continue;
        }
        let prev = if i == 0 { None } else { Some(chars[i - 1].1) };
        let starts_ok = prev.is_none_or(|p| !(p.is_alphanumeric() || matches!(p, '_' | '.' | '~' | '/' | '\\' | '<' | '>' | '[')))
            && !(prev == Some(':') && s[at..].starts_with("//"));
        if starts_ok {
            let rest = &s[at..];
            let lead = if rest.starts_with("~/") || rest.starts_with("~\\") {
                2
            } else if rest.starts_with('/') {
                1
            } else if rest.len() >= 3
                && rest.as_bytes()[0].is_ascii_alphabetic()
                && rest.as_bytes()[1] == b':'
                && matches!(rest.as_bytes()[2], b'/' | b'\\')
            {
                3
            } else {
                0
            };
            if lead > 0 {
                let run = path_run(rest);
                // "/ x" or a lone "/" is punctuation, not a path
                let is_path = run > lead && !rest[lead..run].starts_with(['/', ' ']) || (lead == 3 && run >= 3);
                if is_path && (!in_quote || echoed(&rest[..run])) {
                    out.push_str("<path>");
                    let end = at + run;
                    while i < chars.len() && chars[i].0 < end {
                        i += 1;
                    }
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// What the caller sent (string values and keys of the arguments, the capability's name)
/// that could hold a path, in the forms a message may echo it in: as sent, on one line, as
/// JSON, as [`camber_common::text::name`] writes it. A quoted path in a message is a name
/// from the data, and is kept, unless the caller sent it: the spec wants a value the caller
/// sent redacted like the tool's own words, so no answer tells which paths exist.
#[derive(Clone, Debug, Default)]
pub struct Sent {
    values: Vec<String>,
    /// Every form of every value, separated by NUL (no message holds one).
    haystack: String,
}

impl Sent {
    /// The values among `values` that could hold a path.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Sent {
        let values: Vec<String> =
            values.into_iter().filter(|v| v.contains(['/', '\\', '~'])).map(str::to_string).collect();
        let mut haystack = String::new();
        for v in &values {
            let named = camber_common::text::name(v);
            let json = serde_json::to_string(v).unwrap_or_default();
            for form in [v.as_str(), &one_line(v), &json[1..json.len().saturating_sub(1)], &named[1..named.len() - 1]] {
                haystack.push_str(form);
                haystack.push('\0');
            }
        }
        Sent { values, haystack }
    }

    /// The capability name and every string (value or key) of the arguments.
    pub fn of_call(name: &str, args: &Value) -> Sent {
        let mut all = vec![name];
        strings(args, &mut all, 0);
        Sent::new(all)
    }

    /// Without the values the result's data holds as they are (a stored name the caller
    /// asked about, such as a Niagara ORD, is the data's, and a result may name it).
    pub fn except_in(&self, data: &Value) -> Sent {
        if self.values.is_empty() {
            return self.clone();
        }
        let mut found = Vec::new();
        strings(data, &mut found, 0);
        let found: BTreeSet<&str> = found.into_iter().collect();
        Sent::new(self.values.iter().map(String::as_str).filter(|v| !found.contains(v)))
    }

    fn echoed(&self, run: &str) -> bool {
        !self.haystack.is_empty() && self.haystack.contains(run)
    }
}

/// Every string and object key in `v` (to 64 levels).
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out, depth + 1)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k);
                strings(x, out, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_subset_refuses_unknown_keywords() {
        assert!(check_schema(&json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x$"}}}), "s").is_ok());
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
        assert_eq!(outside_allowlist(&json!({"a": [{"facility_id": "hq"}, {"b": {"facility_id": "x"}}]}), &allowed), Some("x"));
        assert_eq!(outside_allowlist(&json!({"facility_ids": ["hq", "y"]}), &allowed), Some("y"));
        assert_eq!(outside_allowlist(&json!({"facility_id": "hq"}), &allowed), None);
    }

    #[test]
    fn redaction() {
        let r = Redactor { roots: vec!["/srv/stores/main".into(), "/home/ana".into()] };
        assert_eq!(r.redact("cannot read /srv/stores/main/facility_id=hq/x.parquet: bad"), "cannot read <path> bad");
        assert_eq!(r.redact("at /home/ana/John Smith/My Drive/x end"), "at <path> end");
        assert_eq!(r.redact("panicked at /opt/secret/db.sqlite now"), "panicked at <path> now");
        assert_eq!(r.redact("non-commercial / no-derivatives, kBtu/ft2"), "non-commercial / no-derivatives, kBtu/ft2");
        assert_eq!(r.redact("equipment \"/Drivers/BacnetNetwork/AHU_1\" is odd"), "equipment \"/Drivers/BacnetNetwork/AHU_1\" is odd");
        assert_eq!(r.redact("see C:\\Users\\x\\f.csv and ~/notes.txt"), "see <path> and <path>");
        assert_eq!(r.redact("a URL https://example.com/a stays"), "a URL https://example.com/a stays");
        assert_eq!(r.redact_data(&json!({"k": "/home/ana/x", "v": "/Drivers/A"})), json!({"k": "<path>", "v": "/Drivers/A"}));
        assert_eq!(r.redact("/facility_id: missing"), "<path> missing");
    }

    #[test]
    fn paths_the_caller_sent_are_redacted_even_quoted() {
        let r = Redactor { roots: vec!["/srv/stores/main".into()] };
        let sent = Sent::of_call("points", &json!({"facility_id": "/usr/lib/secret", "q": ["C:\\Users\\ana\\x.csv"], "/etc/key": 1, "ord": "/Drivers/A"}));
        // a schema refusal quotes the value as JSON
        assert_eq!(r.redact_echoes(r#""/usr/lib/secret" is not of type "integer""#, &sent), r#""<path>" is not of type "integer""#);
        assert_eq!(r.redact_echoes(r#"["C:\\Users\\ana\\x.csv"] is not of type "string""#, &sent), r#"["<path>"] is not of type "string""#);
        // as name() writes it, and a key
        assert_eq!(r.redact_echoes(r#"query "/usr/lib/secret" matched nothing"#, &sent), r#"query "<path>" matched nothing"#);
        assert_eq!(r.redact_echoes(r#"'/etc/key' was unexpected"#, &sent), r#"'<path>' was unexpected"#);
        // a quoted name the caller did not send stays; the store root never does
        assert_eq!(r.redact_echoes(r#"equipment "/Drivers/B" and "/srv/stores/main/x""#, &sent), r#"equipment "/Drivers/B" and "<path>""#);
        // unless the data holds the value as it is: then it is a stored name
        let data = json!({"rows": [{"equip": "/Drivers/A"}]});
        assert_eq!(r.redact_echoes(r#"equipment "/Drivers/A""#, &sent), r#"equipment "<path>""#);
        assert_eq!(r.redact_echoes(r#"equipment "/Drivers/A""#, &sent.except_in(&data)), r#"equipment "/Drivers/A""#);
        // error data: stored names stay, the caller's values go
        assert_eq!(r.redact_data_echoes(&json!({"sent": "/usr/lib/secret", "near": ["/Drivers/B"]}), &sent), json!({"sent": "<path>", "near": ["/Drivers/B"]}));
        // a message made of what the caller sent, quotes or not
        assert_eq!(r.redact_sent(r#"Unknown tool: "/usr/lib/x""#), "Unknown tool: \"<path>\"");
        assert_eq!(r.redact_sent("Method not found: /srv/stores/main/a b"), "Method not found: <path> b");
        // a pointer's segments are the caller's keys
        assert_eq!(r.redact_pointer("/facility_id"), "/facility_id");
        assert_eq!(r.redact_pointer("/x/~1etc~1key"), "/x/<path>");
        assert_eq!(r.redact_pointer("/rows/0"), "/rows/0");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(2_000_000), "2,000,000");
        assert_eq!(thousands(12_345), "12,345");
    }
}
