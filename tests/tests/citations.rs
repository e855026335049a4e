//! The citation discipline: the host's strict check of every result's own text, and the
//! `check_citations` capability, which use one verifier.

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::{demo_store, full_registry};
use serde_json::{json, Value};

fn ctx() -> (tempfile::TempDir, CallContext) {
    let s = demo_store();
    let c = CallContext::new(s.path(), ["hq".to_string()]);
    (s, c)
}

#[test]
fn a_result_sentence_stating_an_uncarried_figure_is_removed() {
    let (_s, c) = ctx();
    // echo's fact carries n (5) and its text "echo of 5"; its text adds [F1@echo] [F9@nowhere]
    let r = full_registry().call("echo", &json!({"n": 5, "text": "There are 7 boxes"}), &c).unwrap();
    assert_eq!(r.text, "", "the unsupported sentence is gone");
    assert!(r.banners.iter().any(|b| b.starts_with("1 statement(s) of the summary were removed")), "{:?}", r.banners);
    let r = full_registry().call("echo", &json!({"n": 5, "text": "There are 5 boxes"}), &c).unwrap();
    assert!(r.text.starts_with("There are 5 boxes [F1@echo-"), "{}", r.text);
    assert!(!r.text.contains("nowhere"));
    assert!(r.banners.iter().any(|b| b.starts_with("1 citation(s) of the summary were removed")), "{:?}", r.banners);
    // a number inside a quoted name is no figure
    let r = full_registry().call("echo", &json!({"n": 5, "text": "Box \"VAV 7\" reports"}), &c).unwrap();
    assert!(r.text.starts_with("Box \"VAV 7\" reports"), "{}", r.text);
}

fn facts() -> Vec<Value> {
    vec![
        json!({"id": "F1@points-aaaaaa", "kind": "point_count", "value": 1234, "text": "hq stores 1234 points on 12 equipment"}),
        json!({"id": "F2@coverage-bbbbbb", "kind": "coverage", "value": 93.46, "text": "mean coverage 93.46% from 2024-03-01T00:00:00"}),
        json!({"id": "F3@rule_run-cccccc", "kind": "metric", "value": -5.2, "text": "bias -5.2 degF between 10 and 20 percent load"}),
    ]
}

#[test]
fn check_citations_counts_and_lists_the_failing_sentences() {
    let (_s, c) = ctx();
    let text = "hq stores 1,234 points on \"AHU 2\" and 11 others [F1@points-aaaaaa]. \
                Coverage is 93.5% since 2024-03-01 [F2@coverage-bbbbbb]. \
                The bias is -5.2 °F across 10-20% load [F3@rule_run-cccccc]. \
                It is also 5.2 °F [F3@rule_run-cccccc]. \
                Nothing else is wrong [F9@x-dddddd]. \
                There are 40 alarms.";
    let r = full_registry().call("check_citations", &json!({"text": text, "facts": facts()}), &c).unwrap();
    let d = &r.data;
    assert_eq!(d["n_sentences"], 6);
    assert_eq!(
        d["counts"],
        json!({"supported": 2, "unknown_citation": 1, "uncited": 1, "unsupported_number": 2}),
        "{d}"
    );
    let failing: Vec<i64> = d["sentences"].as_array().unwrap().iter().map(|s| s["index"].as_i64().unwrap()).collect();
    assert_eq!(failing, [0, 3, 4, 5], "{d}");
    assert_eq!(d["sentences"][0]["unsupported"], json!(["11"]));
    assert_eq!(d["grounded"], false);
    assert_eq!(d["verified_text"], Value::Null);
    assert!(r.text.starts_with("2 of 6 sentence(s) are supported"), "{}", r.text);
    let full =
        full_registry().call("check_citations", &json!({"text": text, "facts": facts(), "detail": true}), &c).unwrap();
    assert_eq!(full.data["sentences"].as_array().unwrap().len(), 6);
    let verified = full.data["verified_text"].as_str().unwrap();
    assert!(
        verified.contains("Coverage is 93.5%")
            && verified.contains("Nothing else is wrong.")
            && !verified.contains("40 alarms"),
        "{verified}"
    );
}

#[test]
fn per_sentence_off_lets_figures_trace_to_any_cited_fact() {
    let (_s, c) = ctx();
    let text = "The site has 12 units. They hold 1234 points [F1@points-aaaaaa].";
    let on = full_registry().call("check_citations", &json!({"text": text, "facts": facts()}), &c).unwrap();
    assert_eq!(on.data["counts"]["uncited"], 1);
    let off = full_registry()
        .call("check_citations", &json!({"text": text, "facts": facts(), "per_sentence": false}), &c)
        .unwrap();
    assert_eq!(off.data["grounded"], true, "{}", off.data);
}

#[test]
fn bad_facts_and_paging() {
    let (_s, c) = ctx();
    let mut f = facts();
    f.push(json!({"id": "F1@points-aaaaaa", "text": "something else"}));
    let e = full_registry().call("check_citations", &json!({"text": "x", "facts": f}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    let e = full_registry()
        .call("check_citations", &json!({"text": "x", "facts": [{"id": "not an id", "text": ""}]}), &c)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    let text: String = (0..120).map(|i| format!("Sentence {i} has no citation. ")).collect();
    let r = full_registry().call("check_citations", &json!({"text": text, "facts": facts()}), &c).unwrap();
    assert_eq!(r.data["sentences"].as_array().unwrap().len(), 50);
    assert!(r.truncated);
    assert_eq!(r.data["counts"]["uncited"], 120);
}

#[test]
fn the_callers_own_text_is_returned_whole() {
    let (_s, c) = ctx();
    let long = format!("The plant is fine {} [F1@points-aaaaaa].", "and quiet ".repeat(300));
    let r =
        full_registry().call("check_citations", &json!({"text": long, "facts": facts(), "detail": true}), &c).unwrap();
    assert!(r.data["verified_text"].as_str().unwrap().chars().count() > 3000);
    assert!(r.data["sentences"][0]["text"].as_str().unwrap().chars().count() > 3000);
}

#[test]
fn fifty_thousand_characters_against_five_thousand_facts() {
    let (_s, c) = ctx();
    let facts: Vec<Value> = (0..5000)
        .map(|i| json!({"id": format!("F{i}@big-abcdef"), "value": i, "text": format!("value {i}")}))
        .collect();
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 50_000 {
        text.push_str(&format!("Point {i} reads {i} [F{i}@big-abcdef]. "));
        i += 1;
    }
    text.truncate(50_000);
    let r = full_registry().call("check_citations", &json!({"text": text, "facts": facts}), &c).unwrap();
    assert!(r.data["n_sentences"].as_u64().unwrap() > 1000);
    assert!(r.data["counts"]["supported"].as_u64().unwrap() >= r.data["n_sentences"].as_u64().unwrap() - 1);
}
