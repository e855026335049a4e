//! The memo of guest results (host/registry/src/memo.rs): a call asked again on unchanged data
//! gets the same answer without its guest running again, and anything the guest read that
//! changed (the data, the caller's allowlist, a clock) makes it run.

use serde_json::{json, Value};

use camber_registry::{CallContext, Registry};
use camber_runtime::profile;
use camber_tests::{demo_store, facility_parts as parts, full_registry};

const GUEST: &str = "guest (its store reads included)";
const CITATIONS: &str = "7 citations";

/// Call and say whether the guest ran.
fn call(reg: &Registry, name: &str, args: Value, ctx: &CallContext) -> (Value, bool) {
    let (r, steps) = profile::record(|| reg.call(name, &args, ctx));
    let r = r.unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let out = json!({"data": r.data, "text": r.text, "facts": r.facts, "banners": r.banners});
    (out, steps.iter().any(|(s, _)| *s == GUEST))
}

#[test]
fn a_repeated_call_on_unchanged_data_is_answered_without_its_guest() {
    let reg = full_registry();
    let store = demo_store();
    let ctx = CallContext::new(store.path(), ["hq".to_string(), "annex".to_string()]);

    let (first, ran) = call(reg, "points", json!({"facility_id": "hq"}), &ctx);
    assert!(ran, "the first call runs its guest");
    let (r, steps) = profile::record(|| reg.call("points", &json!({"facility_id": "hq"}), &ctx));
    assert!(!steps.iter().any(|(s, _)| *s == GUEST), "the same call on unchanged data is answered from the memo");
    assert!(!steps.iter().any(|(s, _)| *s == CITATIONS), "with the policy steps' output for the same inputs");
    assert!(steps.iter().any(|(s, _)| *s == "byte cap"), "the byte cap runs on every call");
    let r = r.unwrap();
    // a kept result carries its data's text, made once, for the adapters to write as it is
    let text = r.data_json.clone().expect("a reused result carries its data as JSON text");
    assert_eq!(serde_json::from_str::<Value>(text.get()).unwrap(), *r.data);
    assert_eq!(r.data_text(), serde_json::to_string(&r.data).unwrap());
    // and shares its data with the next call that reuses it, rather than copying it
    let next = reg.call("points", &json!({"facility_id": "hq"}), &ctx).unwrap();
    assert!(std::sync::Arc::ptr_eq(&r.data, &next.data), "a reused result's data is shared, not copied");
    let again = json!({"data": r.data, "text": r.text, "facts": r.facts, "banners": r.banners});
    assert_eq!(first, again, "and the answer, fact ids included, is the same");

    // a server that redacts other roots makes the policy's output again from the kept result
    let mut other_roots = ctx.clone();
    other_roots.redactor = std::sync::Arc::new(camber_common::redact::Redactor::new([store.path().join("elsewhere")]));
    let (r, steps) = profile::record(|| reg.call("points", &json!({"facility_id": "hq"}), &other_roots));
    assert!(!steps.iter().any(|(s, _)| *s == GUEST), "the guest's inputs are the same");
    assert!(steps.iter().any(|(s, _)| *s == CITATIONS), "the policy steps' inputs are not");
    assert_eq!(r.unwrap().facts, first["facts"].as_array().unwrap().clone());

    // another caller, who may read less, gets its own run
    let narrow = CallContext::new(store.path(), ["hq".to_string()]);
    let (_, ran) = call(reg, "points", json!({"facility_id": "hq"}), &narrow);
    assert!(ran, "a different allowlist is a different call");

    // a listing depends on every facility it read: a rewrite of one runs the guest again
    let (_, ran) = call(reg, "facilities", json!({}), &ctx);
    assert!(ran);
    let (_, ran) = call(reg, "facilities", json!({}), &ctx);
    assert!(!ran);
    let part = parts(store.path(), "annex").into_iter().next().expect("annex has a part");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&part, std::fs::read(&part).unwrap()).unwrap();
    let (_, ran) = call(reg, "facilities", json!({}), &ctx);
    assert!(ran, "a rewritten facility's listing is read again");

    // points of hq did not read annex: still reused
    let (still, ran) = call(reg, "points", json!({"facility_id": "hq"}), &ctx);
    assert!(!ran, "a rewrite of another facility does not matter to this call");
    assert_eq!(first, still);

    // a rewrite of hq: the guest runs, and the fact ids carry the new generation's token
    for p in parts(store.path(), "hq") {
        std::fs::write(&p, std::fs::read(&p).unwrap()).unwrap();
    }
    let (after, ran) = call(reg, "points", json!({"facility_id": "hq"}), &ctx);
    assert!(ran);
    assert_eq!(first["data"]["count"], after["data"]["count"]);
    assert_ne!(first["facts"], after["facts"], "the token changed with the generation");
}

#[test]
fn a_guest_that_reads_the_clock_runs_every_time_and_the_policy_runs_on_a_reused_result() {
    let reg = full_registry();
    let ctx = CallContext::without_store(Vec::<String>::new());
    for _ in 0..2 {
        let (_, ran) = call(reg, "sleep", json!({"ms": 1}), &ctx);
        assert!(ran, "a guest that read a clock is never answered from the memo");
    }
    // echo is the same call both times; its citation of a missing fact is removed each time
    let args = json!({"n": 2, "text": "two rows"});
    let (first, ran) = call(reg, "echo", args.clone(), &ctx);
    assert!(ran);
    let (again, ran) = call(reg, "echo", args.clone(), &ctx);
    assert!(!ran);
    assert_eq!(first, again);
    assert!(!again["text"].as_str().unwrap().contains("F9@nowhere"), "the citation check ran");
    // the byte cap is this caller's, not the guest's: a reused result is held to it
    let mut small = CallContext::without_store(Vec::<String>::new());
    small.limits.max_bytes = 40;
    let (r, steps) = profile::record(|| reg.call("echo", &args, &small));
    assert!(!steps.iter().any(|(s, _)| *s == GUEST), "the guest's inputs are the same: reused");
    let e = r.expect_err("over the byte cap");
    assert_eq!(e.code.as_str(), "too_large", "{}", e.message);
    // the row cap is part of what the guest is given, so it is a run of its own
    let mut capped = CallContext::without_store(Vec::<String>::new());
    capped.limits.max_rows = 1;
    let (_, ran) = call(reg, "echo", args, &capped);
    assert!(ran);
}
