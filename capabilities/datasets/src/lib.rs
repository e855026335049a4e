//! The `dataset_search` and `dataset_entry` capabilities: the public metadata of the dataset
//! catalog the host compiles in (open and research-only entries alike). Nothing is fetched or
//! ingested here; that is `camber datasets`, run by a person.
//!
//! The handlers only read the catalog from the host; everything else is plain functions over
//! the catalog `Value` ([`search`], [`search_output`], [`entry_output`] ...), tested natively.

use camber_common::text::thousands;
use camber_sdk::{name, page, store, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Map, Value};

/// Rows per page when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = 50;
/// Rows of a page that the summary text cites one by one (every row still gets a fact).
pub const TEXT_ROWS: usize = 10;
/// Ids an unknown `dataset_id` error lists.
pub const SUGGESTED_IDS: usize = 10;
/// The dataset kinds the catalog uses.
pub const KINDS: [&str; 4] = ["simulated", "real", "lab", "synthetic"];

/// The notice a research-only row carries (and the banner of a research-only entry).
pub const RESEARCH_ONLY_NOTICE: &str = "Research-only dataset: its licence or terms do not allow commercial use \
     or derivative works, so this server refuses any facility ingested from it. Use it only as its licence \
     permits, outside this assistant.";

/// SPDX ids whose licence allows commercial use. Any other licence counts as not allowing it.
const COMMERCIAL_LICENCES: &[&str] = &[
    "Apache-2.0",
    "BSD-3-Clause",
    "CC-BY-3.0",
    "CC-BY-4.0",
    "CC-BY-SA-3.0",
    "CC-BY-SA-4.0",
    "CC0-1.0",
    "CDLA-Permissive-1.0",
    "MIT",
    "NIST-PD",
    "ODC-BY-1.0",
    "ODbL-1.0",
    "PDDL-1.0",
];

// ---------------------------------------------------------------------------------------------
// Reading catalog entries

fn s<'a>(e: &'a Value, key: &str) -> &'a str {
    e.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// The entries of a catalog document (a JSON array; tolerates the `{"datasets": [...]}` form).
pub fn entries(catalog: &Value) -> Vec<&Value> {
    let list = match catalog {
        Value::Array(a) => Some(a),
        Value::Object(m) => m.get("datasets").and_then(Value::as_array),
        _ => None,
    };
    list.map(|a| a.iter().filter(|e| e.get("id").and_then(Value::as_str).is_some()).collect()).unwrap_or_default()
}

/// Whether a licence id is non-commercial or no-derivatives: one of its dash-separated tokens
/// is exactly `NC` or `ND`, in any case.
pub fn is_research_only_licence(licence: &str) -> bool {
    licence.to_ascii_uppercase().split('-').any(|t| t == "NC" || t == "ND")
}

/// Whether an entry is held research-only: by its access or by an NC/ND licence.
pub fn research_only(e: &Value) -> bool {
    s(e, "access") == "research_only" || is_research_only_licence(s(e, "licence"))
}

/// Whether the entry's data may be used commercially: a licence that allows it, and not held
/// research-only.
pub fn commercial_ok(e: &Value) -> bool {
    COMMERCIAL_LICENCES.contains(&s(e, "licence")) && !research_only(e)
}

/// What the dataset is good for (`good_for`, or the reference's `teaches`).
fn good_for(e: &Value) -> Vec<String> {
    strings(e.get("good_for").filter(|v| v.is_array()).or_else(|| e.get("teaches")))
}

/// Bytes the default subset downloads (0 for a dataset generated on this machine).
pub fn download_bytes(e: &Value) -> u64 {
    match e.get("download_bytes") {
        Some(Value::Object(m)) => m.get("default").and_then(Value::as_u64).unwrap_or(0),
        Some(v) => v.as_u64().unwrap_or(0),
        None => 0,
    }
}

/// The estimated store size of the default subset, if the catalog gives one.
pub fn store_bytes_estimate(e: &Value) -> Option<u64> {
    e.get("store_bytes_estimate")
        .and_then(Value::as_u64)
        .or_else(|| e.pointer("/subsets/default/store_bytes_estimate").and_then(Value::as_u64))
}

// ---------------------------------------------------------------------------------------------
// Search

/// What `dataset_search` filters on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    pub query: Option<String>,
    pub kind: Option<String>,
    /// `Some(true)`: only entries with fault labels; `Some(false)`: only entries without.
    pub labeled: Option<bool>,
    /// Drop research-only entries and licences that forbid commercial use.
    pub commercial: bool,
}

impl Filters {
    /// The filters of a call's (schema-checked) arguments.
    pub fn from_args(args: &Value) -> Filters {
        Filters {
            query: args.get("query").and_then(Value::as_str).map(str::to_string),
            kind: args.get("kind").and_then(Value::as_str).map(str::to_string),
            labeled: args.get("labeled").and_then(Value::as_bool),
            commercial: args.get("licence").and_then(Value::as_str) == Some("commercial"),
        }
    }

    /// The filters as a short phrase for the count fact (empty when there are none).
    fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(q) = &self.query {
            out.push(format!("query {}", name(q)));
        }
        if let Some(k) = &self.kind {
            out.push(format!("kind {}", name(k)));
        }
        match self.labeled {
            Some(true) => out.push("with fault labels".to_string()),
            Some(false) => out.push("without fault labels".to_string()),
            None => {}
        }
        if self.commercial {
            out.push("usable commercially".to_string());
        }
        out
    }
}

/// The words of a query, lower-cased: runs of letters, digits, `_` and `-` (a hyphen stays
/// inside its word). A query of punctuation alone has no words.
pub fn query_words(query: &str) -> Vec<String> {
    query
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The lower-cased text a query searches: id, title, summary, kind, publisher, equipment and
/// what the dataset is good for.
pub fn haystack(e: &Value) -> String {
    let mut parts: Vec<String> =
        ["id", "title", "summary", "kind", "publisher", "equipment"].iter().map(|k| s(e, k).to_string()).collect();
    parts.extend(good_for(e));
    parts.join(" ").to_lowercase()
}

/// Whether every word of the query is a substring of the entry's haystack.
pub fn matches_query(e: &Value, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let hay = haystack(e);
    words.iter().all(|w| hay.contains(w.as_str()))
}

/// Whether an entry passes the kind, labelled and licence filters (not the query).
pub fn passes_filters(e: &Value, f: &Filters) -> bool {
    if f.kind.as_deref().is_some_and(|k| s(e, "kind") != k) {
        return false;
    }
    let labeled = e.get("labeled_faults").and_then(Value::as_bool).unwrap_or(false);
    if f.labeled.is_some_and(|want| labeled != want) {
        return false;
    }
    !f.commercial || commercial_ok(e)
}

/// The entries that match, sorted by id.
pub fn search<'a>(catalog: &'a Value, f: &Filters) -> Vec<&'a Value> {
    let words = f.query.as_deref().map(query_words).unwrap_or_default();
    let mut hits: Vec<&Value> =
        entries(catalog).into_iter().filter(|e| passes_filters(e, f) && matches_query(e, &words)).collect();
    hits.sort_by(|a, b| s(a, "id").cmp(s(b, "id")));
    hits
}

/// `open` or `research_only`, as this server treats the entry.
fn access(e: &Value) -> &'static str {
    if research_only(e) {
        "research_only"
    } else {
        "open"
    }
}

/// One `dataset_search` row.
pub fn row(e: &Value) -> Value {
    let ro = research_only(e);
    json!({
        "id": s(e, "id"),
        "title": s(e, "title"),
        "kind": s(e, "kind"),
        "licence": s(e, "licence"),
        "access": access(e),
        "research_only": ro,
        "commercial_ok": commercial_ok(e),
        "labeled_faults": e.get("labeled_faults").and_then(Value::as_bool).unwrap_or(false),
        "equipment": s(e, "equipment"),
        "download_bytes": download_bytes(e),
        "store_bytes_estimate": store_bytes_estimate(e),
        "good_for": good_for(e),
        "notice": if ro { Value::from(RESEARCH_ONLY_NOTICE) } else { Value::Null },
    })
}

/// The fact text of one search row.
fn row_fact_text(e: &Value) -> String {
    format!(
        "{} ({}): kind {}, licence {}, access {}",
        name(s(e, "id")),
        name(s(e, "title")),
        name(s(e, "kind")),
        name(s(e, "licence")),
        access(e)
    )
}

/// A fact's text as a sentence citing it.
fn cite(text: &str, id: &str) -> String {
    format!("{} [{id}].", text.trim_end_matches([' ', '.', ';']))
}

/// The whole `dataset_search` result for a catalog and (schema-checked) arguments.
pub fn search_output(catalog: &Value, args: &Value) -> Result<Output, CapError> {
    let filters = Filters::from_args(args);
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);

    let hits = search(catalog, &filters);
    let count = hits.len();
    let ro_ids: Vec<&str> = hits.iter().filter(|e| research_only(e)).map(|e| s(e, "id")).collect();
    let n_ro = ro_ids.len();

    let described = filters.describe();
    let scope = if described.is_empty() { String::new() } else { format!(" ({})", described.join(", ")) };
    let count_text = format!("{count} catalog dataset(s) match{scope}, {n_ro} of them research-only");
    let mut facts = vec![json!({
        "id": "F1@dataset_search", "kind": "dataset_count", "value": count,
        "research_only": n_ro, "text": count_text,
    })];
    let mut sentences = vec![cite(&count_text, "F1@dataset_search")];

    let (page_rows, notice) = page(hits, "datasets", offset, limit, "by id");
    let first = offset.min(count);
    let mut rows = Vec::with_capacity(page_rows.len());
    for (i, e) in page_rows.iter().enumerate() {
        let id = format!("F{}@dataset_search", first + i + 2);
        let text = row_fact_text(e);
        if i < TEXT_ROWS {
            sentences.push(cite(&text, &id));
        }
        facts.push(json!({
            "id": id, "kind": "dataset", "dataset_id": s(e, "id"), "value": s(e, "licence"), "text": text,
        }));
        rows.push(row(e));
    }
    if page_rows.len() > TEXT_ROWS {
        sentences.push("The other rows of this page are in the data, each with its own fact.".to_string());
    }

    let data = json!({"count": count, "research_only": n_ro, "datasets": rows});
    let mut out = Output::new(data, sentences.join(" "), facts);
    if n_ro > 0 {
        let mut named: Vec<String> = ro_ids.iter().take(SUGGESTED_IDS).map(|id| name(id)).collect();
        if n_ro > SUGGESTED_IDS {
            named.push(format!("and {} more", n_ro - SUGGESTED_IDS));
        }
        out.banners.push(format!(
            "{n_ro} matching dataset(s) are research-only ({}): their licence or terms do not allow commercial \
             use or derivative works, so this server refuses any facility ingested from them. Use them only as \
             their licence permits, outside this assistant.",
            named.join(", ")
        ));
    }
    out.pages.extend(notice);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Entry

/// The entry with this id.
pub fn find<'a>(catalog: &'a Value, id: &str) -> Option<&'a Value> {
    entries(catalog).into_iter().find(|e| s(e, "id") == id)
}

/// Whether two dash-separated id words are alike: one holds the other, and the shorter has at
/// least three characters (`chillers` and `chiller`, `ahu` and `ahu101`).
fn alike(a: &str, b: &str) -> bool {
    a.len().min(b.len()) >= 3 && (a.contains(b) || b.contains(a))
}

/// Up to [`SUGGESTED_IDS`] catalog ids to offer for an unknown one: those with more words like
/// its dash-separated words first, then by id.
pub fn suggest_ids(catalog: &Value, unknown: &str) -> Vec<String> {
    let words: Vec<&str> = unknown.split('-').collect();
    let mut ids: Vec<(usize, &str)> = entries(catalog)
        .into_iter()
        .map(|e| {
            let id = s(e, "id");
            let score = words.iter().filter(|w| id.split('-').any(|t| alike(w, t))).count();
            (score, id)
        })
        .collect();
    ids.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    ids.into_iter().take(SUGGESTED_IDS).map(|(_, id)| id.to_string()).collect()
}

/// `not_found` for a dataset id the catalog does not hold.
pub fn unknown_dataset(catalog: &Value, id: &str) -> CapError {
    let shown = suggest_ids(catalog, id);
    let total = entries(catalog).len();
    let more = if total > shown.len() { format!(" and {} more", total - shown.len()) } else { String::new() };
    let listed: Vec<String> = shown.iter().map(|i| name(i)).collect();
    CapError::not_found(
        format!(
            "the catalog holds no dataset {}; it holds {}{more} (see dataset_search)",
            name(id),
            if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
        ),
        json!({"argument": "dataset_id", "unknown": [id], "available": shown}),
    )
}

/// One `dataset_entry` object: the search row plus the entry's full metadata.
pub fn entry_detail(e: &Value) -> Value {
    let mut out = match row(e) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut subsets: Vec<String> =
        e.get("subsets").and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
    subsets.sort();
    let rules = e.get("suggested_rules").filter(|v| v.is_array()).or_else(|| e.pointer("/suggested_analyses/rules"));
    let mut rules = strings(rules);
    rules.sort();
    rules.dedup();
    let issues: Vec<Value> = e
        .get("data_issues")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|d| {
                    let mut m = Map::new();
                    m.insert("id".into(), s(d, "id").into());
                    m.insert("title".into(), s(d, "title").into());
                    m.insert("handling".into(), s(d, "handling").into());
                    let note = s(d, "handling_note");
                    if !note.trim().is_empty() {
                        m.insert("note".into(), note.into());
                    }
                    Value::Object(m)
                })
                .collect()
        })
        .unwrap_or_default();
    let extra = [
        ("summary", s(e, "summary").into()),
        ("publisher", s(e, "publisher").into()),
        ("citation", s(e, "citation").into()),
        ("landing_url", s(e, "landing_url").into()),
        ("dois", json!(strings(e.get("dois")))),
        ("access_reason", s(e, "access_reason").into()),
        ("attribution_required", e.get("attribution_required").and_then(Value::as_bool).unwrap_or(true).into()),
        ("timezone", s(e, "timezone").into()),
        ("verified_on", s(e, "verified_on").into()),
        ("subsets", json!(subsets)),
        ("suggested_rules", json!(rules)),
        ("known_issues", json!(strings(e.get("known_issues")))),
        ("data_issues", Value::Array(issues)),
    ];
    for (k, v) in extra {
        out.insert(k.to_string(), v);
    }
    Value::Object(out)
}

/// The whole `dataset_entry` result for a catalog and (schema-checked) arguments.
pub fn entry_output(catalog: &Value, args: &Value) -> Result<Output, CapError> {
    let id = args["dataset_id"].as_str().unwrap_or_default();
    let Some(e) = find(catalog, id) else {
        return Err(unknown_dataset(catalog, id));
    };
    let bytes = download_bytes(e);
    let about = format!(
        "{} ({}) is a dataset of kind {} from {} under licence {}, access {}",
        name(id),
        name(s(e, "title")),
        name(s(e, "kind")),
        name(s(e, "publisher")),
        name(s(e, "licence")),
        access(e)
    );
    let local = if bytes == 0 { " (generated locally)" } else { "" };
    let size = format!("{}: default subset download {} bytes{local}", name(id), thousands(bytes));
    let text = format!("{} {}", cite(&about, "F1@dataset_entry"), cite(&size, "F2@dataset_entry"));
    let facts = vec![
        json!({"id": "F1@dataset_entry", "kind": "dataset", "dataset_id": id, "value": s(e, "licence"), "text": about}),
        json!({"id": "F2@dataset_entry", "kind": "dataset_size", "dataset_id": id, "value": bytes, "text": size}),
    ];
    let mut out = Output::new(entry_detail(e), text, facts);
    if research_only(e) {
        out.banners.push(RESEARCH_ONLY_NOTICE.to_string());
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Schemas and the plugin

fn row_properties() -> Map<String, Value> {
    let text = json!({"type": "string"});
    let texts = json!({"type": "array", "items": {"type": "string"}});
    let props = json!({
        "id": text,
        "title": text,
        "kind": text,
        "licence": {"type": "string", "description": "SPDX id"},
        "access": {"type": "string", "enum": ["open", "research_only"]},
        "research_only": {"type": "boolean"},
        "commercial_ok": {"type": "boolean", "description": "the licence allows commercial use and the dataset is not research-only"},
        "labeled_faults": {"type": "boolean"},
        "equipment": text,
        "download_bytes": {"type": "integer", "minimum": 0, "description": "default subset; 0: generated locally"},
        "store_bytes_estimate": {"type": ["integer", "null"], "minimum": 0},
        "good_for": texts,
        "notice": {"type": ["string", "null"], "description": "why this server refuses the data of a research-only dataset"}
    });
    match props {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

const ROW_KEYS: [&str; 13] = [
    "id",
    "title",
    "kind",
    "licence",
    "access",
    "research_only",
    "commercial_ok",
    "labeled_faults",
    "equipment",
    "download_bytes",
    "store_bytes_estimate",
    "good_for",
    "notice",
];

pub fn search_input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 200,
                      "description": "words to find in the id, title, summary, kind, publisher, equipment and what \
                                      the dataset is good for (every word must match; case-insensitive)"},
            "kind": {"type": "string", "enum": KINDS},
            "labeled": {"type": "boolean",
                        "description": "true: only datasets with fault labels; false: only datasets without"},
            "licence": {"type": "string", "enum": ["all", "commercial"],
                        "description": "commercial: only datasets usable commercially (default all)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000,
                      "description": "rows per page (default 50)"},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "rows to skip (for the next page)"}
        }
    })
}

pub fn search_output_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["count", "research_only", "datasets"],
        "additionalProperties": false,
        "properties": {
            "count": {"type": "integer", "minimum": 0, "description": "matching datasets (the whole list, not the page)"},
            "research_only": {"type": "integer", "minimum": 0, "description": "of them, research-only"},
            "datasets": {"type": "array", "items": {
                "type": "object",
                "required": ROW_KEYS,
                "additionalProperties": false,
                "properties": row_properties()
            }}
        }
    })
}

pub fn entry_input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["dataset_id"],
        "additionalProperties": false,
        "properties": {
            "dataset_id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,99}$",
                           "description": "a dataset id from dataset_search"}
        }
    })
}

pub fn entry_output_schema() -> Value {
    let text = json!({"type": "string"});
    let texts = json!({"type": "array", "items": {"type": "string"}});
    let mut props = row_properties();
    let extra = json!({
        "summary": text,
        "publisher": text,
        "citation": text,
        "landing_url": {"type": "string", "description": "empty for a dataset generated locally"},
        "dois": texts,
        "access_reason": {"type": "string", "description": "why an openly licensed dataset is held research-only, else empty"},
        "attribution_required": {"type": "boolean"},
        "timezone": text,
        "verified_on": text,
        "subsets": {"type": "array", "items": {"type": "string"}, "description": "subset names, sorted"},
        "suggested_rules": {"type": "array", "items": {"type": "string"}, "description": "sorted"},
        "known_issues": texts,
        "data_issues": {"type": "array", "items": {
            "type": "object",
            "required": ["id", "title", "handling"],
            "additionalProperties": false,
            "properties": {
                "id": text,
                "title": text,
                "handling": text,
                "note": text
            }
        }}
    });
    let mut required: Vec<Value> = ROW_KEYS.iter().map(|k| Value::from(*k)).collect();
    if let Value::Object(m) = extra {
        for (k, v) in m {
            required.push(Value::from(k.clone()));
            props.insert(k, v);
        }
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": required,
        "additionalProperties": false,
        "properties": props
    })
}

fn not_json() -> CapError {
    CapError::internal("the host's catalog is not a JSON list of datasets")
}

/// The keys of an entry a search reads: its filters, the query's text and the row. The host
/// hands over only these (`dataset-fields`), about a sixth of the catalog's text.
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

fn dataset_search(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let catalog = store::catalog_fields(SEARCH_KEYS)?;
    if !catalog.is_array() {
        return Err(not_json());
    }
    search_output(&catalog, args)
}

fn dataset_entry(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let id = args["dataset_id"].as_str().unwrap_or_default();
    match store::catalog_entry(id)? {
        Some(entry) => entry_output(&Value::Array(vec![entry]), args),
        // an unknown id: its suggestions need every id, and only the ids
        None => entry_output(&store::catalog_fields(&["id"])?, args),
    }
}

fn plugin() -> Plugin {
    Plugin::new()
        .capability(
            Capability::new("dataset_search", dataset_search)
                .title("Search the dataset catalog")
                .description(
                    "Find building datasets in camber's catalog (fault-labelled HVAC simulations, real building \
                     trends, lab rigs, synthetic sets generated locally) by words and filters: kind, labeled \
                     (true: only with fault labels, false: only without) and licence (commercial: only data \
                     usable commercially). Each row gives the id, title, kind, SPDX licence, access (open or \
                     research_only), whether commercial use is allowed, fault labels, equipment, download size \
                     and what the dataset is good for, sorted by id, in pages of 50 (limit, offset). Research-only \
                     datasets are listed too, with a notice: this server refuses any facility ingested from \
                     them. Metadata only; nothing is downloaded. Use dataset_entry for one dataset's details.",
                )
                .input_schema(search_input_schema())
                .output_schema(search_output_schema())
                .cost("cheap"),
        )
        .capability(
            Capability::new("dataset_entry", dataset_entry)
                .title("One dataset catalog entry")
                .description(
                    "The full catalog metadata of one dataset: summary, publisher, citation, DOIs, landing page, \
                     licence and access (with the reason an openly licensed dataset is held research-only), \
                     subsets, download size, the rules it suits, known issues and the publisher's data issues \
                     with how camber handles each. A research-only dataset carries a banner: this server \
                     refuses any facility ingested from it. Metadata only; nothing is downloaded. Needs \
                     dataset_id (see dataset_search); an unknown id is not_found and lists catalog ids.",
                )
                .input_schema(entry_input_schema())
                .output_schema(entry_output_schema())
                .cost("cheap"),
        )
}

camber_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests;
