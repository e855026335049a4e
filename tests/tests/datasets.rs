//! `dataset_search` and `dataset_entry` through the whole pipeline: the catalog the host
//! compiles in (the reference's 34 entries plus camber's own synthetic datasets), its filters,
//! the research-only notices and banners, paging and the refusals.

use std::path::Path;

use camber_common::ErrorCode;
use camber_registry::CallContext;
use camber_tests::{demo_store, full_registry};
use serde_json::{json, Value};

fn ctx(store: &Path) -> CallContext {
    CallContext::new(store, ["hq".to_string()])
}

fn search(args: Value) -> camber_common::CapabilityResult {
    let store = demo_store();
    full_registry().call("dataset_search", &args, &ctx(store.path())).expect("dataset_search answers")
}

fn entry(id: &str) -> Result<camber_common::CapabilityResult, camber_common::CapError> {
    let store = demo_store();
    full_registry().call("dataset_entry", &json!({"dataset_id": id}), &ctx(store.path()))
}

fn ids(r: &camber_common::CapabilityResult) -> Vec<String> {
    r.data["datasets"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect()
}

const NOTICE_START: &str = "Research-only dataset: ";

#[test]
fn both_are_cheap_and_described() {
    for name in ["dataset_search", "dataset_entry"] {
        let d = full_registry().get(name).expect("loaded").descriptor();
        assert_eq!(d["annotations"]["cost"], "cheap", "{name}");
    }
    let d = full_registry().get("dataset_search").unwrap().descriptor();
    let props = d["input_schema"]["properties"].as_object().unwrap();
    for k in ["query", "kind", "labeled", "licence", "limit", "offset"] {
        assert!(props.contains_key(k), "{k}");
    }
}

#[test]
fn search_all_lists_every_entry_sorted_with_cited_facts() {
    let r = search(json!({}));
    let n = camber_synth::datasets().len();
    assert_eq!(r.data["count"], 34 + n);
    assert_eq!(r.data["research_only"], 2);
    let got = ids(&r);
    assert_eq!(got.len(), 34 + n);
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(got, sorted);
    assert!(got.iter().any(|i| i == "synthetic-g36-vav"), "the host's own synthetic datasets are listed");
    // a count fact, one fact per row; the text cites the count and the first rows
    assert_eq!(r.facts.len(), 1 + got.len());
    assert_eq!(r.facts[0]["kind"], "dataset_count");
    assert_eq!(r.facts[0]["value"], 34 + n);
    let f1 = r.facts[0]["id"].as_str().unwrap();
    assert!(f1.starts_with("F1@dataset_search-"));
    assert!(r.text.starts_with(&format!("{} catalog dataset(s) match, 2 of them research-only [{f1}].", 34 + n)));
    for f in &r.facts[..11] {
        assert!(r.text.contains(&format!("[{}]", f["id"].as_str().unwrap())));
    }
    assert!(!r.text.contains(&format!("[{}]", r.facts[11]["id"].as_str().unwrap())));
    assert_eq!(r.facts[1]["dataset_id"], got[0]);
    // one banner (the research-only one), nothing cut
    assert_eq!(r.banners.len(), 1);
    assert!(!r.truncated);
}

#[test]
fn a_two_word_query_needs_both_words() {
    let r = search(json!({"query": "Lawrence chill"}));
    assert_eq!(ids(&r), vec!["lbnl-chiller"]);
    let ahu = search(json!({"query": "ahu"}));
    let simulated = search(json!({"query": "ahu simulated"}));
    let n_ahu = ahu.data["count"].as_u64().unwrap();
    let n_both = simulated.data["count"].as_u64().unwrap();
    assert!(n_both > 0 && n_both < n_ahu, "{n_both} of {n_ahu}");
    assert!(ids(&simulated).iter().all(|i| ids(&ahu).contains(i)));
    assert_eq!(search(json!({"query": "AHU fault-labelled"})).data["count"], 0);
    let n_ro = &simulated.data["research_only"];
    assert_eq!(
        simulated.facts[0]["text"].as_str().unwrap(),
        format!("{n_both} catalog dataset(s) match (query \"ahu simulated\"), {n_ro} of them research-only")
    );
}

#[test]
fn each_filter() {
    let all = search(json!({}));
    let rows = all.data["datasets"].as_array().unwrap().clone();
    let with = |pred: &dyn Fn(&Value) -> bool| -> Vec<String> {
        rows.iter().filter(|r| pred(r)).map(|r| r["id"].as_str().unwrap().to_string()).collect()
    };

    let lab = search(json!({"kind": "lab"}));
    assert_eq!(lab.data["count"], 4);
    assert_eq!(ids(&lab), with(&|r| r["kind"] == "lab"));

    let labelled = search(json!({"labeled": true}));
    assert_eq!(ids(&labelled), with(&|r| r["labeled_faults"] == true));
    let unlabelled = search(json!({"labeled": false}));
    assert_eq!(ids(&unlabelled), with(&|r| r["labeled_faults"] == false));
    assert_eq!(
        labelled.data["count"].as_u64().unwrap() + unlabelled.data["count"].as_u64().unwrap(),
        all.data["count"].as_u64().unwrap()
    );

    let commercial = search(json!({"licence": "commercial"}));
    assert_eq!(commercial.data["count"], all.data["count"].as_u64().unwrap() - 2);
    assert_eq!(commercial.data["research_only"], 0);
    assert!(commercial.data["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["commercial_ok"] == true && r["notice"].is_null()));
    assert!(commercial.banners.is_empty());
    assert_eq!(search(json!({"licence": "all"})).data["count"], all.data["count"]);

    let combined = search(json!({"kind": "simulated", "labeled": true, "licence": "commercial"}));
    assert_eq!(
        ids(&combined),
        with(&|r| r["kind"] == "simulated" && r["labeled_faults"] == true && r["commercial_ok"] == true)
    );
}

#[test]
fn research_only_rows_carry_a_notice_and_the_result_a_banner() {
    let r = search(json!({"query": "research-only"}));
    let rows = r.data["datasets"].as_array().unwrap();
    let ro: Vec<&Value> = rows.iter().filter(|x| x["research_only"] == true).collect();
    assert_eq!(ro.len(), 2);
    for row in &ro {
        assert_eq!(row["access"], "research_only");
        assert_eq!(row["commercial_ok"], false);
        let notice = row["notice"].as_str().unwrap();
        assert!(notice.starts_with(NOTICE_START), "{notice}");
        assert!(notice.contains("refuses any facility ingested from it"));
    }
    assert!(rows.iter().filter(|x| x["research_only"] == false).all(|x| x["notice"].is_null()));
    assert_eq!(r.banners.len(), 1);
    let b = &r.banners[0];
    assert!(b.starts_with("2 matching dataset(s) are research-only (\"at-30bldg-sensors\", \"rbc-g36-ahu\"):"), "{b}");
    assert!(b.contains("refuses any facility ingested from them"));
    // an open-licence entry held back by its terms is research-only too
    let rbc = rows.iter().find(|x| x["id"] == "rbc-g36-ahu").unwrap();
    assert_eq!(rbc["licence"], "CC-BY-4.0");
}

#[test]
fn entry_of_an_open_dataset() {
    let r = entry("lbnl-sdahu").unwrap();
    let d = &r.data;
    assert_eq!(d["id"], "lbnl-sdahu");
    assert_eq!(d["access"], "open");
    assert_eq!(d["research_only"], false);
    assert_eq!(d["commercial_ok"], true);
    assert_eq!(d["notice"], Value::Null);
    assert_eq!(d["download_bytes"], 607667739u64);
    assert_eq!(d["subsets"], json!(["default", "full"]));
    assert_eq!(d["dois"], json!(["10.25984/1881324"]));
    assert_eq!(d["access_reason"], "");
    assert!(d["data_issues"].as_array().unwrap().iter().all(|i| i["id"].is_string() && i["handling"].is_string()));
    assert!(r.banners.is_empty());
    assert!(!r.truncated);
    assert_eq!(r.facts.len(), 2);
    assert_eq!(r.facts[1]["kind"], "dataset_size");
    assert_eq!(r.facts[1]["value"], 607667739u64);
    let (f1, f2) = (r.facts[0]["id"].as_str().unwrap(), r.facts[1]["id"].as_str().unwrap());
    assert!(r.text.contains(&format!("access open [{f1}].")), "{}", r.text);
    assert!(
        r.text.ends_with(&format!("\"lbnl-sdahu\": default subset download 607,667,739 bytes [{f2}].")),
        "{}",
        r.text
    );

    let synth = entry("synthetic-g36-vav").unwrap();
    assert_eq!(synth.data["download_bytes"], 0);
    assert_eq!(synth.data["kind"], "synthetic");
    assert!(synth.text.contains("0 bytes (generated locally)"));
}

#[test]
fn entry_of_a_research_only_dataset() {
    for (id, licence) in [("at-30bldg-sensors", "CC-BY-NC-SA-4.0"), ("rbc-g36-ahu", "CC-BY-4.0")] {
        let r = entry(id).unwrap();
        assert_eq!(r.data["licence"], licence);
        assert_eq!(r.data["access"], "research_only");
        assert_eq!(r.data["research_only"], true);
        assert_eq!(r.data["commercial_ok"], false);
        assert!(r.data["notice"].as_str().unwrap().starts_with(NOTICE_START));
        assert_eq!(r.banners.len(), 1, "{id}");
        assert_eq!(r.banners[0], r.data["notice"].as_str().unwrap());
        assert!(r.text.contains("access research_only ["), "{}", r.text);
    }
    let rbc = entry("rbc-g36-ahu").unwrap();
    assert!(!rbc.data["access_reason"].as_str().unwrap().is_empty());
}

#[test]
fn an_unknown_dataset_is_not_found_and_lists_ids() {
    let e = entry("no-such-dataset").unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.starts_with("the catalog holds no dataset \"no-such-dataset\"; it holds \""), "{}", e.message);
    assert!(e.message.ends_with("more (see dataset_search)"), "{}", e.message);
    let d = e.data.unwrap();
    assert_eq!(d["unknown"], json!(["no-such-dataset"]));
    let listed = d["available"].as_array().unwrap();
    assert_eq!(listed.len(), 10);
    // ids that share a word with the unknown one come first
    let near = entry("lbnl-chillers").unwrap_err();
    let near_ids = near.data.unwrap()["available"].clone();
    assert_eq!(near_ids[0], "lbnl-chiller");
}

#[test]
fn search_pages_with_a_banner() {
    let all = search(json!({}));
    let total = all.data["count"].as_u64().unwrap();
    let first = search(json!({"limit": 5}));
    assert_eq!(first.data["datasets"].as_array().unwrap().len(), 5);
    assert_eq!(first.data["count"], total);
    assert!(first.truncated);
    assert!(first.banners.contains(&format!(
        "'datasets' shows rows 1-5 of {total} (by id): call again with offset=5 for the next page, or a larger limit (up to 1000)"
    )));
    let second = search(json!({"limit": 5, "offset": 5}));
    assert_eq!(second.data["datasets"][0], all.data["datasets"][5]);
    assert_eq!(second.facts.len(), 1 + 5);
    let past = search(json!({"offset": 500}));
    assert!(past.data["datasets"].as_array().unwrap().is_empty());
    assert!(past.truncated);
    // the default page is 50 rows
    assert!(total <= 50 && !all.truncated);
}

#[test]
fn bad_arguments_are_invalid_params() {
    let store = demo_store();
    let c = ctx(store.path());
    let reg = full_registry();
    for (cap, args) in [
        ("dataset_search", json!({"kind": "imaginary"})),
        ("dataset_search", json!({"licence": "CC-BY-4.0"})),
        ("dataset_search", json!({"query": ""})),
        ("dataset_search", json!({"limit": 0})),
        ("dataset_search", json!({"surprise": 1})),
        ("dataset_entry", json!({"dataset_id": "Bad_ID"})),
        ("dataset_entry", json!({})),
    ] {
        let e = reg.call(cap, &args, &c).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidParams, "{cap} {args}");
    }
    let e = reg.call("dataset_search", &json!({"kind": "imaginary"}), &c).unwrap_err();
    assert!(e.message.starts_with("/kind"), "{}", e.message);
}
