//! Native tests of the pure logic: on a small hand-made catalog, and on the catalog data the
//! host compiles in (read here, not changed), whose counts the reference's outputs record.

use super::*;

fn tiny() -> Value {
    json!([
        {"id": "zeta-ahu", "title": "Zeta air handlers", "summary": "Two AHUs with stuck dampers.",
         "kind": "simulated", "licence": "CC-BY-4.0", "access": "open", "labeled_faults": true,
         "publisher": "Zeta Lab", "equipment": "2 AHUs", "good_for": ["economizer faults"],
         "download_bytes": {"default": 1234567, "full": 9999999},
         "subsets": {"full": {"store_bytes_estimate": 90}, "default": {"store_bytes_estimate": 42}},
         "suggested_rules": ["b_rule", "a_rule", 7], "dois": ["10.1/x"], "access_reason": null,
         "data_issues": [{"id": "d1", "title": "T1", "handling": "fix", "handling_note": "masked", "evidence": "3"},
                         {"id": "d2", "title": "T2", "handling": "none", "handling_note": ""}]},
        {"id": "alpha-meters", "title": "Alpha meters", "summary": "Whole-building electricity.",
         "kind": "real", "licence": "CC-BY-NC-SA-4.0", "access": "research_only", "labeled_faults": false,
         "publisher": "Alpha University", "equipment": null, "teaches": ["M&V baselines"],
         "download_bytes": {"default": 10}},
        {"id": "held-back", "title": "Held back", "summary": "Open licence, held research-only.",
         "kind": "lab", "licence": "CC-BY-4.0", "access": "research_only", "labeled_faults": true,
         "publisher": "Rig", "equipment": "chiller rig", "good_for": [], "access_reason": "bundles third-party data"},
        {"id": "mystery", "title": "Mystery", "summary": "Unknown licence.", "kind": "real",
         "licence": "Custom-1.0", "access": "open", "publisher": "Someone", "equipment": "AHU-1"},
        {"id": "synthetic-x", "title": "Synthetic X", "summary": "Generated here.", "kind": "synthetic",
         "licence": "Apache-2.0", "access": "open", "labeled_faults": true, "publisher": "camber-rs",
         "equipment": null, "landing_url": null, "verified_on": null, "attribution_required": false,
         "good_for": ["demos"], "download_bytes": {"default": 0, "full": 0}, "subsets": {"default": {}}}
    ])
}

fn ids(hits: &[&Value]) -> Vec<String> {
    hits.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect()
}

fn args_search(cat: &Value, args: Value) -> Vec<String> {
    ids(&search(cat, &Filters::from_args(&args)))
}

#[test]
fn licences_and_research_only() {
    assert!(is_research_only_licence("CC-BY-NC-4.0"));
    assert!(is_research_only_licence("cc-by-nc-sa-4.0"));
    assert!(is_research_only_licence("CC-BY-ND-4.0"));
    assert!(!is_research_only_licence("CC-BY-NCND"));
    assert!(!is_research_only_licence("NCSA"));
    let cat = tiny();
    let e = |id: &str| find(&cat, id).unwrap().clone();
    assert!(research_only(&e("alpha-meters")) && research_only(&e("held-back")));
    assert!(!research_only(&e("zeta-ahu")));
    assert!(commercial_ok(&e("zeta-ahu")) && commercial_ok(&e("synthetic-x")));
    // an open licence held research-only, and a licence nobody vouches for, are not commercial
    assert!(!commercial_ok(&e("held-back")));
    assert!(!commercial_ok(&e("mystery")));
    // an NC licence is research-only even if the entry's access forgot to say so
    assert!(research_only(&json!({"licence": "CC-BY-NC-4.0", "access": "open"})));
}

#[test]
fn query_words_keep_hyphens_and_drop_punctuation() {
    assert_eq!(query_words("AHU  fault-labelled, Chill!"), vec!["ahu", "fault-labelled", "chill"]);
    assert!(query_words("!!! ...").is_empty());
    assert_eq!(query_words("b_59 CO2"), vec!["b_59", "co2"]);
}

#[test]
fn every_word_must_match_somewhere_in_the_haystack() {
    let cat = tiny();
    // results sorted by id, whatever the catalog order
    assert_eq!(args_search(&cat, json!({})), vec!["alpha-meters", "held-back", "mystery", "synthetic-x", "zeta-ahu"]);
    // substring and case-insensitive: "ahu" matches "AHUs" and "AHU-1"
    assert_eq!(args_search(&cat, json!({"query": "ahu"})), vec!["mystery", "zeta-ahu"]);
    // two words: both must match (publisher and good_for)
    assert_eq!(args_search(&cat, json!({"query": "zeta ECONOMIZER"})), vec!["zeta-ahu"]);
    assert!(args_search(&cat, json!({"query": "zeta electricity"})).is_empty());
    // kind and `teaches` are searched too
    assert_eq!(args_search(&cat, json!({"query": "baselines"})), vec!["alpha-meters"]);
    assert_eq!(args_search(&cat, json!({"query": "synthetic"})), vec!["synthetic-x"]);
    assert_eq!(args_search(&cat, json!({"query": "rig"})), vec!["held-back"]);
    // punctuation only: no words, so nothing is excluded
    assert_eq!(args_search(&cat, json!({"query": "?!"})).len(), 5);
}

#[test]
fn filters() {
    let cat = tiny();
    assert_eq!(args_search(&cat, json!({"kind": "real"})), vec!["alpha-meters", "mystery"]);
    assert_eq!(args_search(&cat, json!({"labeled": true})), vec!["held-back", "synthetic-x", "zeta-ahu"]);
    assert_eq!(args_search(&cat, json!({"labeled": false})), vec!["alpha-meters", "mystery"]);
    assert_eq!(args_search(&cat, json!({"licence": "commercial"})), vec!["synthetic-x", "zeta-ahu"]);
    assert_eq!(args_search(&cat, json!({"licence": "all"})).len(), 5);
    assert_eq!(args_search(&cat, json!({"kind": "real", "labeled": false, "query": "someone"})), vec!["mystery"]);
}

#[test]
fn rows_carry_the_reference_shape() {
    let cat = tiny();
    let z = row(find(&cat, "zeta-ahu").unwrap());
    assert_eq!(
        z,
        json!({"id": "zeta-ahu", "title": "Zeta air handlers", "kind": "simulated", "licence": "CC-BY-4.0",
               "access": "open", "research_only": false, "commercial_ok": true, "labeled_faults": true,
               "equipment": "2 AHUs", "download_bytes": 1234567, "store_bytes_estimate": 42,
               "good_for": ["economizer faults"], "notice": null})
    );
    let a = row(find(&cat, "alpha-meters").unwrap());
    assert_eq!(a["access"], "research_only");
    assert_eq!(a["commercial_ok"], false);
    assert_eq!(a["equipment"], "");
    assert_eq!(a["good_for"], json!(["M&V baselines"]));
    assert_eq!(a["store_bytes_estimate"], Value::Null);
    assert_eq!(a["notice"], RESEARCH_ONLY_NOTICE);
    let keys: Vec<&str> = z.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ROW_KEYS);
}

#[test]
fn search_output_cites_every_row_and_flags_research_only() {
    let cat = tiny();
    let out = search_output(&cat, &json!({})).unwrap();
    assert_eq!(out.data["count"], 5);
    assert_eq!(out.data["research_only"], 2);
    assert_eq!(out.facts.len(), 6);
    assert_eq!(out.facts[0]["text"], "5 catalog dataset(s) match, 2 of them research-only");
    assert_eq!(out.facts[1]["id"], "F2@dataset_search");
    assert_eq!(out.facts[1]["dataset_id"], "alpha-meters");
    assert_eq!(out.facts[1]["value"], "CC-BY-NC-SA-4.0");
    assert_eq!(
        out.facts[1]["text"],
        "\"alpha-meters\" (\"Alpha meters\"): kind \"real\", licence \"CC-BY-NC-SA-4.0\", access research_only"
    );
    assert!(out
        .text
        .starts_with("5 catalog dataset(s) match, 2 of them research-only [F1@dataset_search]. \"alpha-meters\""));
    for f in &out.facts {
        assert!(out.text.contains(&format!("[{}]", f["id"].as_str().unwrap())));
    }
    assert_eq!(out.banners.len(), 1);
    assert!(out.banners[0].starts_with("2 matching dataset(s) are research-only (\"alpha-meters\", \"held-back\"):"));
    assert!(out.pages.is_empty());
    // the text states no figure its cited facts do not carry
    let index = camber_common::citations::FactIndex::new(&out.facts).unwrap();
    let report = camber_common::citations::check(&out.text, &index);
    assert_eq!(report.count(camber_common::citations::Verdict::Supported), report.sentences.len(), "{report:?}");

    let open = search_output(&cat, &json!({"licence": "commercial", "query": "zeta"})).unwrap();
    assert!(open.banners.is_empty());
    assert_eq!(
        open.facts[0]["text"],
        "1 catalog dataset(s) match (query \"zeta\", usable commercially), 0 of them research-only"
    );
}

#[test]
fn search_pages_and_numbers_facts_by_position() {
    let cat = tiny();
    let out = search_output(&cat, &json!({"limit": 2, "offset": 2})).unwrap();
    assert_eq!(out.data["count"], 5);
    let rows: Vec<&str> = out.data["datasets"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(rows, vec!["mystery", "synthetic-x"]);
    assert_eq!(out.facts.len(), 3);
    assert_eq!(out.facts[1]["id"], "F4@dataset_search");
    assert_eq!(out.pages.len(), 1);
    assert_eq!(
        (out.pages[0].list.as_str(), out.pages[0].offset, out.pages[0].limit, out.pages[0].total),
        ("datasets", 2, 2, 5)
    );
    let past = search_output(&cat, &json!({"offset": 99})).unwrap();
    assert!(past.data["datasets"].as_array().unwrap().is_empty());
    assert_eq!(past.facts.len(), 1);
    assert_eq!(past.pages.len(), 1);
}

#[test]
fn entry_output_has_details_facts_and_banner() {
    let cat = tiny();
    let out = entry_output(&cat, &json!({"dataset_id": "zeta-ahu"})).unwrap();
    let d = &out.data;
    assert_eq!(d["subsets"], json!(["default", "full"]));
    assert_eq!(d["suggested_rules"], json!(["a_rule", "b_rule"]));
    assert_eq!(d["access_reason"], "");
    assert_eq!(d["attribution_required"], true);
    assert_eq!(
        d["data_issues"],
        json!([{"id": "d1", "title": "T1", "handling": "fix", "note": "masked"},
               {"id": "d2", "title": "T2", "handling": "none"}])
    );
    assert_eq!(out.facts[1]["value"], 1234567);
    assert_eq!(out.facts[1]["text"], "\"zeta-ahu\": default subset download 1,234,567 bytes");
    assert_eq!(
        out.text,
        "\"zeta-ahu\" (\"Zeta air handlers\") is a dataset of kind \"simulated\" from \"Zeta Lab\" under licence \
         \"CC-BY-4.0\", access open [F1@dataset_entry]. \"zeta-ahu\": default subset download 1,234,567 bytes \
         [F2@dataset_entry]."
    );
    assert!(out.banners.is_empty());

    let held = entry_output(&cat, &json!({"dataset_id": "held-back"})).unwrap();
    assert_eq!(held.banners, vec![RESEARCH_ONLY_NOTICE.to_string()]);
    assert_eq!(held.data["access_reason"], "bundles third-party data");
    assert_eq!(held.data["commercial_ok"], false);
    assert_eq!(held.data["subsets"], json!([]));

    let synth = entry_output(&cat, &json!({"dataset_id": "synthetic-x"})).unwrap();
    assert_eq!(synth.data["landing_url"], "");
    assert_eq!(synth.data["attribution_required"], false);
    assert!(synth.facts[1]["text"].as_str().unwrap().ends_with("0 bytes (generated locally)"));
}

#[test]
fn an_unknown_id_is_not_found_and_lists_ids() {
    let cat = tiny();
    let e = entry_output(&cat, &json!({"dataset_id": "zeta-chiller"})).unwrap_err();
    assert_eq!(e.code, camber_sdk::ErrorCode::NotFound);
    assert!(
        e.message.starts_with("the catalog holds no dataset \"zeta-chiller\"; it holds \"zeta-ahu\", \"alpha-meters\""),
        "{}",
        e.message
    );
    let d = e.data.unwrap();
    assert_eq!(d["unknown"], json!(["zeta-chiller"]));
    assert_eq!(d["available"].as_array().unwrap().len(), 5);
}

#[test]
fn at_most_ten_ids_are_suggested() {
    let many: Vec<Value> = (0..25).map(|i| json!({"id": format!("set-{i:02}"), "title": "t"})).collect();
    let cat = Value::Array(many);
    let e = unknown_dataset(&cat, "nothing");
    assert_eq!(e.data.as_ref().unwrap()["available"].as_array().unwrap().len(), 10);
    assert!(e.message.ends_with("\"set-09\" and 15 more (see dataset_search)"), "{}", e.message);
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(1024904878), "1,024,904,878");
}

/// The catalog data the host compiles in (without the synthetic datasets the host adds).
fn packaged() -> Value {
    serde_json::from_str(include_str!("../../../host/store/data/catalog.json")).unwrap()
}

#[test]
fn packaged_catalog_counts_match_the_reference() {
    let cat = packaged();
    let run = |args: Value| {
        let out = search_output(&cat, &args).unwrap();
        (out.data["count"].as_u64().unwrap(), out.data["research_only"].as_u64().unwrap())
    };
    assert_eq!(run(json!({})), (34, 2));
    assert_eq!(run(json!({"query": "ahu"})), (14, 1));
    assert_eq!(run(json!({"kind": "lab"})), (4, 0));
    assert_eq!(run(json!({"labeled": true})), (20, 1));
    assert_eq!(run(json!({"licence": "commercial"})), (32, 0));
    assert_eq!(run(json!({"query": "Lawrence chill"})), (1, 0));
    assert_eq!(run(json!({"query": "AHU fault-labelled"})), (0, 0));
    // unlike the reference, labeled=false keeps only the unlabelled entries
    assert_eq!(run(json!({"labeled": false})), (14, 1));
    // every sentence of the text is grounded in the facts it cites, titles with figures included
    let out = search_output(&cat, &json!({})).unwrap();
    let index = camber_common::citations::FactIndex::new(&out.facts).unwrap();
    let report = camber_common::citations::check(&out.text, &index);
    assert_eq!(report.removed_sentences, 0, "{report:?}");
    assert_eq!(report.sentences.len(), 1 + TEXT_ROWS + 1);
}

#[test]
fn packaged_entries_match_the_reference_rows() {
    let cat = packaged();
    let out = entry_output(&cat, &json!({"dataset_id": "rbc-g36-ahu"})).unwrap();
    let d = &out.data;
    assert_eq!(d["access"], "research_only");
    assert_eq!(d["commercial_ok"], false);
    assert_eq!(d["download_bytes"], 928675992u64);
    assert_eq!(d["store_bytes_estimate"], 1539105);
    assert_eq!(d["suggested_rules"].as_array().unwrap().len(), 7);
    assert_eq!(d["data_issues"].as_array().unwrap().len(), 11);
    assert!(d["access_reason"].as_str().unwrap().starts_with("the archive bundles"));
    let sd = entry_output(&cat, &json!({"dataset_id": "lbnl-sdahu"})).unwrap();
    assert_eq!(sd.facts[1]["text"], "\"lbnl-sdahu\": default subset download 607,667,739 bytes");
    assert_eq!(sd.data["subsets"], json!(["default", "full"]));
    assert_eq!(suggest_ids(&cat, "lbnl-chillers")[0], "lbnl-chiller");
    assert_eq!(suggest_ids(&cat, "nuig-ahu")[0], "nuig-ahu101");
    assert_eq!(sd.data["suggested_rules"], json!(["economizer_high_limit", "leaking_valve", "outdoor_air_fraction"]));
}

/// The packaged catalog's entries as the host sends them: a JSON array's text.
fn packaged_text() -> String {
    packaged()["datasets"].to_string()
}

/// The catalog with only `keys` of each entry, as the host's `dataset-fields` gives it.
fn with_keys(catalog: &Value, keys: &[&str]) -> Value {
    let list = catalog.as_array().unwrap().iter().map(|e| {
        let m = e.as_object().unwrap();
        Value::Object(
            m.iter().filter(|(k, _)| keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect(),
        )
    });
    Value::Array(list.collect())
}

#[test]
fn a_search_on_its_keys_answers_as_on_the_whole_catalog() {
    let text = packaged_text();
    let full: Value = serde_json::from_str(&text).unwrap();
    let slim_cat = with_keys(&full, SEARCH_KEYS);
    for args in [
        json!({}),
        json!({"query": "vav"}),
        json!({"query": "chiller plant"}),
        json!({"kind": "real"}),
        json!({"labeled": true}),
        json!({"licence": "commercial"}),
        json!({"limit": 5, "offset": 3}),
    ] {
        let (a, b) = (search_output(&full, &args).unwrap(), search_output(&slim_cat, &args).unwrap());
        for (x, y) in a.data["datasets"].as_array().unwrap().iter().zip(b.data["datasets"].as_array().unwrap()) {
            for (k, v) in x.as_object().unwrap() {
                assert_eq!(Some(v), y.get(k), "{args}: {} {k}", x["id"]);
            }
        }
        assert_eq!((&a.data, &a.text, &a.facts, &a.banners), (&b.data, &b.text, &b.facts, &b.banners), "{args}");
    }
}

#[test]
fn an_entry_read_alone_answers_as_on_the_whole_catalog() {
    let text = packaged_text();
    let full: Value = serde_json::from_str(&text).unwrap();
    let ids: Vec<String> = entries(&full).iter().map(|e| s(e, "id").to_string()).collect();
    assert!(ids.len() > 10);
    for id in ids.iter().step_by(5) {
        let args = json!({"dataset_id": id});
        let one = Value::Array(vec![find(&full, id).unwrap().clone()]);
        let (a, b) = (entry_output(&full, &args).unwrap(), entry_output(&one, &args).unwrap());
        assert_eq!((&a.data, &a.text, &a.facts, &a.banners), (&b.data, &b.text, &b.facts, &b.banners), "{id}");
    }
    // an unknown id: the suggestions come from the ids alone
    let args = json!({"dataset_id": "lbnl-sdahu-typo"});
    let ids_only = with_keys(&full, &["id"]);
    let (a, b) = (entry_output(&full, &args).unwrap_err(), entry_output(&ids_only, &args).unwrap_err());
    assert_eq!((a.message, a.data), (b.message, b.data));
}
