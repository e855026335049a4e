//! The `check_citations` capability: a drafted text checked, sentence by sentence, against the
//! facts of earlier results, with the one verifier the host runs on every result's own text
//! (`camber_common::citations`). Reads no building data.

use camber_common::citations::{check_scoped, FactIndex, Scope, Verdict};
use camber_sdk::{page, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

/// Sentence rows per page when the caller gives no `limit`.
const DEFAULT_LIMIT: usize = 50;

fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["text", "facts"],
        "additionalProperties": false,
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": 50000,
                     "description": "the drafted text, citing fact ids in square brackets"},
            "facts": {"type": "array", "minItems": 1, "maxItems": 5000,
                      "description": "the facts it may cite: the 'facts' of earlier results, as returned",
                      "items": {"type": "object", "required": ["id", "text"], "properties": {
                          "id": {"type": "string", "pattern": "^[A-Za-z]+\\d+(@[A-Za-z0-9_\\-]+)?$", "maxLength": 200},
                          "text": {"type": "string", "maxLength": 20000}
                      }}},
            "per_sentence": {"type": "boolean",
                             "description": "true (default): each sentence's figures must trace to the facts that sentence cites; false: to any fact the text cites"},
            "detail": {"type": "boolean",
                       "description": "also list every sentence (not only the failing ones) and return verified_text, the text with the unsupported sentences removed"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "sentence rows per page (default 50)"},
            "offset": {"type": "integer", "minimum": 0, "description": "sentence rows to skip"}
        }
    })
}

fn output_schema() -> Value {
    let n = json!({"type": "integer", "minimum": 0});
    let strings = json!({"type": "array", "items": {"type": "string"}});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["grounded", "n_sentences", "n_supported", "counts", "sentences", "cited", "verified_text"],
        "additionalProperties": false,
        "properties": {
            "grounded": {"type": "boolean", "description": "every sentence is supported"},
            "n_sentences": n,
            "n_supported": n,
            "counts": {"type": "object", "required": ["supported", "unknown_citation", "uncited", "unsupported_number"],
                       "additionalProperties": false,
                       "properties": {"supported": n, "unknown_citation": n, "uncited": n, "unsupported_number": n}},
            "sentences": {"type": "array", "description": "the failing sentences (every sentence with detail), in order", "items": {
                "type": "object",
                "required": ["index", "text", "verdict", "cited", "unknown", "unsupported"],
                "additionalProperties": false,
                "properties": {
                    "index": n,
                    "text": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["supported", "unknown_citation", "uncited", "unsupported_number"]},
                    "cited": strings,
                    "unknown": strings,
                    "unsupported": {"type": "array", "items": {"type": "string"}, "description": "the figures no cited fact carries"}
                }
            }},
            "cited": {"type": "array", "items": {"type": "string"}, "description": "known fact ids the text cites, in order"},
            "verified_text": {"type": ["string", "null"], "description": "with detail: the text with every unsupported sentence and unknown citation removed"}
        }
    })
}

fn check_citations(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let text = args["text"].as_str().unwrap_or_default();
    let facts = args["facts"].as_array().cloned().unwrap_or_default();
    let per_sentence = args.get("per_sentence").and_then(Value::as_bool).unwrap_or(true);
    let detail = args.get("detail").and_then(Value::as_bool).unwrap_or(false);
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let index = FactIndex::new(&facts).map_err(CapError::invalid)?;
    let report = check_scoped(text, &index, if per_sentence { Scope::Sentence } else { Scope::Text });

    let n = report.sentences.len();
    let count = |v| report.count(v);
    let (ok, unknown, uncited, unsupported) = (
        count(Verdict::Supported),
        count(Verdict::UnknownCitation),
        count(Verdict::Uncited),
        count(Verdict::UnsupportedNumber),
    );
    let mut cited: Vec<String> = Vec::new();
    for s in &report.sentences {
        for c in &s.citations {
            if !cited.contains(c) {
                cited.push(c.clone());
            }
        }
    }
    let rows: Vec<Value> = report
        .sentences
        .iter()
        .filter(|s| detail || s.verdict != Verdict::Supported)
        .map(|s| {
            json!({
                "index": s.index, "text": s.text, "verdict": s.verdict,
                "cited": s.citations, "unknown": s.unknown, "unsupported": s.unsupported,
            })
        })
        .collect();
    let (rows, notice) = page(rows, "sentences", offset, limit, "in text order");
    let fact_text = format!(
        "{ok} of {n} sentence(s) are supported by the facts they cite; {unknown} cite an unknown id, \
         {uncited} state a figure and cite nothing and {unsupported} state a figure no cited fact carries"
    );
    let facts_out = vec![json!({
        "id": "F1@check_citations", "kind": "citation_check", "value": ok,
        "counts": {"supported": ok, "unknown_citation": unknown, "uncited": uncited, "unsupported_number": unsupported},
        "sentences": n, "text": fact_text,
    })];
    let data = json!({
        "grounded": ok == n,
        "n_sentences": n,
        "n_supported": ok,
        "counts": {"supported": ok, "unknown_citation": unknown, "uncited": uncited, "unsupported_number": unsupported},
        "sentences": rows,
        "cited": cited,
        "verified_text": if detail { Value::String(report.verified_text.clone()) } else { Value::Null },
    });
    let mut out = Output::new(data, format!("{fact_text} [F1@check_citations]."), facts_out);
    if ok < n {
        out.banners.push(
            "Some sentences are not supported by the facts they cite: fix or remove them before sharing the text \
             (call again with detail=true for the text with them removed)."
                .into(),
        );
    }
    out.pages.extend(notice);
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("check_citations", check_citations)
            .title("Check a draft's citations")
            .description(
                "Verify a drafted text (a summary, an email, a report paragraph) against the facts of earlier \
                 results before showing it: pass the text and the 'facts' arrays those results returned. Each \
                 sentence gets a verdict: supported, unknown_citation (an id that is not among the facts), \
                 uncited (a figure and no [id]) or unsupported_number (a figure no cited fact carries). Returns \
                 the counts per verdict and the failing sentences; with detail, every sentence and \
                 verified_text, the text with the unsupported sentences removed. Call it last, on your own \
                 draft, and fix what it flags. Reads no building data.",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("cheap")
            .own_output(&["verified_text", "sentences"]),
    )
}

camber_sdk::export_plugin!(plugin);
