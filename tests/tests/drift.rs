//! `drift` through the sandbox: a baseline window fitted for the call, the run config's drift
//! section with a known-good twin or with baselines frozen by `camber drift fit`, and every
//! refusal the spec names (no baseline and no section, a window with no sample, an unknown
//! equipment, a foreign or stale baselines file).

use std::sync::{Arc, OnceLock};

use camber_common::{CapError, CapabilityResult, ErrorCode};
use camber_registry::runconfig::RunConfigs;
use camber_registry::CallContext;
use camber_tests::{camber_bin, full_registry};
use serde_json::{json, Value};

const HW: &str = "ds-synthetic-hw-plant";
const CHW: &str = "ds-synthetic-chw-plant";
const LEAK: &str = "ds-synthetic-ahu-leak-drift";

fn store() -> &'static tempfile::TempDir {
    static S: OnceLock<tempfile::TempDir> = OnceLock::new();
    S.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for d in ["synthetic-hw-plant", "synthetic-chw-plant", "synthetic-ahu-leak-drift"] {
            camber_store::synthetic::ingest(dir.path(), d, None, false, std::time::Duration::from_secs(30)).unwrap();
        }
        dir
    })
}

fn ctx() -> CallContext {
    CallContext::new(store().path(), [HW.to_string(), CHW.to_string(), LEAK.to_string()])
}

fn call(args: Value, c: &CallContext) -> Result<CapabilityResult, CapError> {
    full_registry().call("drift", &args, c)
}

/// A context with one run config, written in `dir` as `file`.
fn with_config(dir: &std::path::Path, cfg: &Value, file: &str) -> Result<CallContext, String> {
    let path = dir.join(file);
    std::fs::write(&path, cfg.to_string()).unwrap();
    let configs = RunConfigs::load(&[path])?;
    let mut c = ctx();
    c.config_digest = configs.digest.clone();
    c.run_configs = Arc::new(configs);
    Ok(c)
}

/// `camber drift fit FID` of the test store under the config at `config`, into `out`.
fn drift_fit(fid: &str, config: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    std::process::Command::new(camber_bin())
        .args(["drift", "fit", fid, "--store"])
        .arg(store().path())
        .arg("--config")
        .arg(config)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

fn hw_pump_config(extra: Value) -> Value {
    let mut drift = json!({"baseline": ["2025-04-14", "2025-04-20"], "current": ["2025-04-21", null],
                           "families": [{"class": "HW_PLANT", "family": "hw_pump"}]});
    for (k, v) in extra.as_object().unwrap() {
        drift[k] = v.clone();
    }
    json!({"source": {"facility_id": HW}, "equipment": [{"class": "HW_PLANT"}], "rules": [], "resample": "15min", "drift": drift})
}

#[test]
fn a_baseline_window_is_fitted_for_the_call_and_every_figure_is_cited() {
    let r = call(
        json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"], "families": [{"equip_class": "HW_PLANT", "family": "hw_pump"}]}),
        &ctx(),
    )
    .unwrap();
    let d = &r.data;
    assert_eq!(d["source"], "baseline_period");
    assert_eq!(d["families"][0]["family"], "hw_pump");
    // the current window defaults to everything after the baseline
    assert_eq!(d["families"][0]["current"][0], "2025-04-21T00:00:00");
    assert!(d["families"][0]["current"][1].is_null());
    let findings = d["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for f in findings {
        let id = f["finding_id"].as_str().unwrap();
        assert_eq!(id, format!("hw_pump:{}@{}", f["detector"].as_str().unwrap(), f["equip"].as_str().unwrap()));
        assert!(f["baseline_source"].as_str().unwrap().starts_with("period:2025-04-14"), "{f}");
    }
    // no labelled fault of this building is a drift: every plant steady against its own first week
    assert_eq!(d["counts"]["fault"], 0, "{}", r.text);
    assert_eq!(d["counts"]["warn"], 0, "{}", r.text);
    assert_eq!(d["n_diagnoses"], 6);
    assert!(d["diagnoses"].as_array().unwrap().iter().all(|g| g["locus"] == "steady"));
    assert!(r.text.contains("[F1@drift"), "{}", r.text);
    assert!(r.facts.iter().any(|f| f["kind"] == "diagnosis"));
    assert!(r.banners.iter().any(|b| b.contains("fitted for this call")), "{:?}", r.banners);
    // default families: one per stored class with a family of its own (HW_PLANT: boiler)
    let r = call(json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"]}), &ctx()).unwrap();
    assert_eq!(r.data["families"][0]["family"], "boiler");
}

#[test]
fn what_cannot_be_judged_is_refused_or_listed_never_passed() {
    let c = ctx();
    let e = call(json!({"facility_id": HW}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.contains("give a baseline window") && e.message.contains("drift section"), "{}", e.message);
    let e = call(json!({"facility_id": HW, "baseline": ["2025-04-14", null]}), &c).unwrap_err();
    assert!(e.message.contains("both a start and an end"), "{}", e.message);
    let e = call(json!({"facility_id": HW, "baseline": ["2024-01-01", "2024-01-07"]}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let data = e.data.unwrap();
    assert_eq!((data["argument"].clone(), data["first"].clone()), (json!("baseline"), json!("2025-04-14T00:00:00")));
    let e =
        call(json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"], "current": ["2026-01-01", null]}), &c)
            .unwrap_err();
    assert_eq!((e.code, e.data.unwrap()["argument"].clone()), (ErrorCode::NotFound, json!("current")));
    let e = call(json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"], "equips": ["PLANT__nope"]}), &c)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("PLANT__nope"), "{}", e.message);
    let e = call(json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"], "families": [{"equip_class": "HW_PLANT", "family": "airside"}]}), &c)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    // a family whose detectors have no inputs on this equipment lists it as unevaluated
    let r = call(json!({"facility_id": HW, "baseline": ["2025-04-14", "2025-04-20"], "families": [{"equip_class": "HW_PLANT", "family": "pump"}]}), &c)
        .unwrap();
    assert_eq!(r.data["n_unevaluated"], 6);
    assert_eq!(r.data["n_diagnoses"], 0);
    assert!(r.data["unevaluated"][0]["reason"].as_str().unwrap().contains("inputs"), "{}", r.data["unevaluated"][0]);
}

#[test]
fn a_known_good_twin_is_compared_against_and_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = hw_pump_config(
        json!({"families": [{"class": "HW_PLANT", "family": "hw_pump", "reference": {"equip": "PLANT__healthy"}}]}),
    );
    let c = with_config(dir.path(), &cfg, "twin.json").unwrap();
    let r = call(json!({"facility_id": HW}), &c).unwrap();
    assert_eq!(r.data["source"], "frozen_baselines");
    assert_eq!(r.data["families"][0]["reference"], "equipment PLANT__healthy");
    let findings = r.data["findings"].as_array().unwrap();
    assert!(findings.iter().all(|f| f["equip"] != "PLANT__healthy"));
    assert!(findings.iter().all(|f| f["baseline_source"] == "reference:PLANT__healthy"));
    let un = r.data["unevaluated"].as_array().unwrap();
    assert!(un.iter().any(|u| u["equip"] == "PLANT__healthy" && u["reason"].as_str().unwrap().contains("reference")));
    // the near miss is the healthy plant's twin but for its firing floor: its pump and loop hold
    let near: Vec<&Value> = findings.iter().filter(|f| f["equip"] == "PLANT__near_miss").collect();
    assert!(!near.is_empty() && near.iter().all(|f| f["severity"] == "ok"), "{near:?}");
    // a twin that is not stored is not_found
    let cfg = hw_pump_config(
        json!({"families": [{"class": "HW_PLANT", "family": "hw_pump", "reference": {"equip": "PLANT__ghost"}}]}),
    );
    let c = with_config(dir.path(), &cfg, "ghost.json").unwrap();
    let e = call(json!({"facility_id": HW}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("PLANT__ghost"), "{}", e.message);
}

#[test]
fn baselines_frozen_by_camber_drift_fit_are_read_and_a_foreign_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cfg_path = dir.path().join("hw.json");
    std::fs::write(&cfg_path, hw_pump_config(json!({"store": "hw-baselines.json"})).to_string()).unwrap();
    let out = dir.path().join("hw-baselines.json");
    // before the fit the file is missing: the config does not load
    let e = RunConfigs::load(std::slice::from_ref(&cfg_path)).unwrap_err();
    assert!(e.contains("drift.store 'hw-baselines.json' cannot be read"), "{e}");
    let run = drift_fit(HW, &cfg_path, &out);
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said} {}", String::from_utf8_lossy(&run.stderr));
    assert!(said.contains("on 6 equipment of ds-synthetic-hw-plant"), "{said}");
    let file: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(file["kind"], "camber-drift-baselines");
    assert_eq!(file["facility_id"], HW);
    assert!(file["entries"].as_array().unwrap().len() >= 12);
    let configs = RunConfigs::load(std::slice::from_ref(&cfg_path)).unwrap();
    let mut c = ctx();
    c.config_digest = configs.digest.clone();
    c.run_configs = Arc::new(configs);
    let r = call(json!({"facility_id": HW}), &c).unwrap();
    assert_eq!(r.data["source"], "frozen_baselines");
    let findings = r.data["findings"].as_array().unwrap();
    assert!(!findings.is_empty() && findings.iter().all(|f| f["baseline_source"] == "frozen"), "{}", r.text);
    assert_eq!(r.data["counts"]["fault"], 0);
    // the same file under another facility's config is foreign
    let other = json!({"source": {"facility_id": CHW}, "equipment": [{"class": "CHILLER"}], "rules": [], "resample": "15min",
                       "drift": {"families": [{"class": "CHILLER", "family": "pump"}], "store": "hw-baselines.json"}});
    let c = with_config(dir.path(), &other, "chw.json").unwrap();
    let e = call(json!({"facility_id": CHW}), &c).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.contains("fitted for facility 'ds-synthetic-hw-plant'"), "{}", e.message);
    // and a file that is not a baselines file does not load
    std::fs::write(dir.path().join("not.json"), "{\"kind\": \"other\"}").unwrap();
    let e = with_config(dir.path(), &hw_pump_config(json!({"store": "not.json"})), "bad.json").err().unwrap();
    assert!(e.contains("not a frozen-baselines file"), "{e}");
}

#[test]
fn a_cooling_valve_that_starts_to_leak_is_found_and_its_healthy_twin_is_not() {
    // camber-synth's drifting building: fit on its first two weeks, judge its last two
    let r = call(
        json!({"facility_id": LEAK, "baseline": ["2025-03-31", "2025-04-13"], "current": ["2025-05-12", "2025-05-25"], "limit": 100}),
        &ctx(),
    )
    .unwrap();
    let d = &r.data;
    assert_eq!(d["families"][0]["family"], "ahu");
    let findings = d["findings"].as_array().unwrap();
    let leak =
        findings.iter().find(|f| f["finding_id"] == "ahu:coil_leak_drift@AHU__growing_cool_leak").expect("judged");
    assert_eq!(leak["severity"], "fault", "{leak}");
    assert!(
        leak["metrics"].as_object().unwrap().iter().any(|(k, v)| k.ends_with("drift_f") && v.as_f64().unwrap() < -3.0),
        "{leak}"
    );
    // the twin: no drift at warn or worse, and its diagnosis is steady
    let twin: Vec<&Value> = findings.iter().filter(|f| f["equip"] == "AHU__healthy").collect();
    assert!(!twin.is_empty());
    assert!(twin.iter().all(|f| f["severity"] != "warn" && f["severity"] != "fault"), "{twin:?}");
    let diag = |e: &str| d["diagnoses"].as_array().unwrap().iter().find(|g| g["equip"] == e).cloned();
    assert_eq!(diag("AHU__healthy").unwrap()["locus"], "steady");
    let bad = diag("AHU__growing_cool_leak").unwrap();
    assert_eq!(bad["severity"], "fault");
    assert_eq!(bad["locus"], "coil", "{bad}");
    // the finding is stated in the text with its fact
    assert!(r.text.contains("AHU__growing_cool_leak") && r.text.contains("@drift"), "{}", r.text);
    // and finding_detail gives it in full: its flagged spans on the current window, its chart
    let d = full_registry()
        .call(
            "finding_detail",
            &json!({"facility_id": LEAK, "finding_id": "ahu:coil_leak_drift@AHU__growing_cool_leak",
                    "baseline": ["2025-03-31", "2025-04-13"], "current": ["2025-05-12", "2025-05-25"]}),
            &ctx(),
        )
        .unwrap();
    assert_eq!(d.data["severity"], "fault");
    assert_eq!(d.data["family"], "ahu");
    let spans = d.data["violations"].as_array().unwrap();
    assert!(!spans.is_empty() && spans.iter().all(|s| s["start"].as_str().unwrap() >= "2025-05-12"), "{spans:?}");
    assert!(d.data["chart"]["roles"].as_array().unwrap().iter().any(|r| r == "mixed_air_temp"), "{}", d.data["chart"]);
    assert!(d.text.contains("[F2@finding_detail"), "{}", d.text);
    // a drift id the run does not have is not_found, naming the run's
    let e = full_registry()
        .call(
            "finding_detail",
            &json!({"facility_id": LEAK, "finding_id": "ahu:coil_leak_drift@AHU__nope",
                                        "baseline": ["2025-03-31", "2025-04-13"]}),
            &ctx(),
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("AHU__growing_cool_leak"), "{}", e.message);
}

#[test]
fn a_config_without_resample_fits_and_judges_drift_at_the_logged_interval() {
    // camber-synth's drifting building, logged every 15 minutes; a config with no `resample`
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"source": {"facility_id": LEAK},
        "drift": {"baseline": ["2025-03-31", "2025-04-13"], "current": ["2025-05-12", "2025-05-25"],
                  "families": [{"class": "AHU", "family": "ahu"}], "store": "leak-baselines.json"}});
    let cfg_path = dir.path().join("leak.json");
    std::fs::write(&cfg_path, cfg.to_string()).unwrap();
    let out = dir.path().join("leak-baselines.json");
    let run = drift_fit(LEAK, &cfg_path, &out);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let file: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(file["resample_minutes"], 15.0, "fitted on the logged grid");
    let configs = RunConfigs::load(std::slice::from_ref(&cfg_path)).unwrap();
    let mut c = ctx();
    c.config_digest = configs.digest.clone();
    c.run_configs = Arc::new(configs);
    let r = call(json!({"facility_id": LEAK}), &c).unwrap();
    assert_eq!((r.data["source"].as_str(), r.data["grid_minutes"].as_f64()), (Some("frozen_baselines"), Some(15.0)));
    // on the hour the shut-valve samples were too few to judge the leak; at 15 minutes it is found
    let findings = r.data["findings"].as_array().unwrap();
    let leak = findings.iter().find(|f| f["finding_id"] == "ahu:coil_leak_drift@AHU__growing_cool_leak").unwrap();
    assert_eq!(leak["severity"], "fault", "{leak}");
    let twin = findings.iter().find(|f| f["finding_id"] == "ahu:coil_leak_drift@AHU__healthy").unwrap();
    assert_eq!(twin["severity"], "ok", "{twin}");
    // its evidence is read on the same grid
    let d = full_registry()
        .call("finding_detail", &json!({"facility_id": LEAK, "finding_id": leak["finding_id"], "image": false}), &c)
        .unwrap();
    assert_eq!(d.data["chart"]["step_minutes"], 15.0, "{}", d.data["chart"]);
    // baselines fitted on another grid are refused, with what to do
    let mut hourly = cfg.clone();
    hourly["resample"] = json!("1h");
    let e = with_config(dir.path(), &hourly, "hourly.json").map(|c| call(json!({"facility_id": LEAK}), &c));
    let e = e.unwrap().unwrap_err();
    assert!(e.message.contains("fitted on a 15-minute grid") && e.message.contains("refit"), "{}", e.message);
}

#[test]
fn a_config_written_for_drift_alone_says_that_no_rule_ran() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = json!({"source": {"facility_id": HW}, "drift": {"current": ["2025-04-21", null],
        "families": [{"class": "HW_PLANT", "family": "hw_pump", "reference": {"equip": "PLANT__healthy"}}]}});
    let c = with_config(dir.path(), &cfg, "drift-only.json").unwrap();
    let r = full_registry().call("rule_run", &json!({"facility_id": HW}), &c).unwrap();
    assert_eq!(r.data["n_findings"], 0);
    assert!(
        r.banners.iter().any(|b| b.contains("selects none of this facility's equipment for its rules, so none ran")
            && b.contains("\"HW_PLANT\"")),
        "{:?}",
        r.banners
    );
    // its drift runs all the same
    let d = call(json!({"facility_id": HW}), &c).unwrap();
    assert_eq!(d.data["counts"]["fault"], 1, "{}", d.text);
}
