//! `mv_summary` end to end against the reference: a two-year meter with a known 12 % cut that
//! `scripts/mv-reference.py` writes, with the figures the reference's M&V computes on it; the
//! same data ingested here and measured through the sandbox gives the same model form and
//! verdict, R2 and CV(RMSE) within 0.02, avoided energy within 2 %, the 90 % uncertainty within
//! 15 %. And every refusal the issue names.

use std::sync::{Arc, OnceLock};

use camber_common::{CapError, CapabilityResult, ErrorCode};
use camber_registry::runconfig::RunConfigs;
use camber_registry::CallContext;
use camber_tests::{camber_bin, full_registry, python};
use serde_json::{json, Value};

const FID: &str = "mv-site";

/// The store with the meter, and the reference's figures.
fn fixture() -> &'static (tempfile::TempDir, Value) {
    static F: OnceLock<(tempfile::TempDir, Value)> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("meter.csv");
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/mv-reference.py");
        let out = std::process::Command::new(python()).arg(script).arg(&csv).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let reference: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mapping = dir.path().join("mapping.json");
        let col = |role: &str| json!({"equip": "CHW-METER-1", "equip_class": "CHILLEDWATER_METER", "role": role});
        std::fs::write(
            &mapping,
            json!({"timestamp": "ts", "columns": {"energy_rate": col("energy_rate"), "oat": col("oat")}}).to_string(),
        )
        .unwrap();
        let store = dir.path().join("store");
        let run = std::process::Command::new(camber_bin())
            .arg("ingest")
            .arg(&csv)
            .arg("--store")
            .arg(&store)
            .args(["--facility", FID, "--timezone", "UTC", "--quiet", "--mapping"])
            .arg(&mapping)
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        (dir, reference)
    })
}

fn entry(extra: Value) -> Value {
    let mut e = json!({"class": "CHILLEDWATER_METER", "period": ["2022-01-01", "2022-12-31"],
                       "reporting_period": ["2023-01-01", "2023-12-31"], "method": "forecast"});
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn config(mv: Value) -> Value {
    json!({"source": {"facility_id": FID}, "equipment": [{"class": "CHILLEDWATER_METER"}], "rules": [], "resample": "1h", "mv": mv})
}

fn call_with(cfg: &Value) -> Result<CapabilityResult, CapError> {
    let (dir, _) = fixture();
    let cfg_dir = tempfile::tempdir().unwrap();
    let path = cfg_dir.path().join("mv.json");
    std::fs::write(&path, cfg.to_string()).unwrap();
    let configs = RunConfigs::load(&[path]).map_err(CapError::invalid)?;
    let mut c = CallContext::new(&dir.path().join("store"), [FID.to_string()]);
    c.config_digest = configs.digest.clone();
    c.run_configs = Arc::new(configs);
    full_registry().call("mv_summary", &json!({"facility_id": FID}), &c)
}

fn metric(r: &CapabilityResult, id: &str, key: &str) -> Value {
    let f =
        r.data["findings"].as_array().unwrap().iter().find(|f| f["finding_id"] == id).unwrap_or_else(|| panic!("{id}"));
    f["metrics"][key].clone()
}

fn within(ours: f64, theirs: f64, rel: f64) -> bool {
    (ours - theirs).abs() <= rel * theirs.abs()
}

#[test]
fn a_known_cut_is_measured_as_the_reference_measures_it() {
    let (_, reference) = fixture();
    for (kernel, key) in [("g14", "mv_savings_g14"), ("exact", "mv_savings_exact")] {
        let r = call_with(&config(json!([entry(json!({"kernel": kernel}))]))).unwrap();
        let base = &reference["mv_baseline"];
        let theirs = &reference[key];
        let id_b = "mv_baseline@CHW-METER-1";
        let id_s = "mv_savings@CHW-METER-1";
        assert_eq!(metric(&r, id_b, "model"), base["model"]);
        assert_eq!(metric(&r, id_b, "accept"), base["accept"]);
        for k in ["r2", "cv_rmse"] {
            let (o, t) = (metric(&r, id_b, k).as_f64().unwrap(), base[k].as_f64().unwrap());
            assert!((o - t).abs() <= 0.02, "{k}: ours {o}, the reference's {t}");
        }
        let (o, t) = (metric(&r, id_s, "avoided_energy").as_f64().unwrap(), theirs["avoided_energy"].as_f64().unwrap());
        assert!(within(o, t, 0.02), "avoided energy: ours {o}, the reference's {t}");
        let (o, t) =
            (metric(&r, id_s, "abs_uncertainty").as_f64().unwrap(), theirs["abs_uncertainty"].as_f64().unwrap());
        assert!(within(o, t, 0.15), "{kernel} uncertainty: ours {o}, the reference's {t}");
        assert_eq!(r.data["kinds"]["mv_baseline"], 1);
        assert_eq!(r.data["declined"], 0);
        // the figures are in the text, each with its fact
        assert!(r.text.contains("[F1@mv_summary") && r.text.contains("mv_savings@"), "{}", r.text);
    }
    // with a unit system the saving is said in both units
    let r =
        call_with(&json!({"source": {"facility_id": FID}, "equipment": [{"class": "CHILLEDWATER_METER"}], "rules": [],
        "resample": "1h", "units": {"system": "ip"}, "mv": [entry(json!({"units": "kW"}))]}))
        .unwrap();
    let s = r.data["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "mv_savings").unwrap();
    // the keys every capability's findings carry
    assert_eq!((&s["rule"], &s["equip_class"]), (&json!("mv_savings"), &json!("CHILLEDWATER_METER")), "{s}");
    assert_eq!(s["equip"], s["meter"], "{s}");
    assert_eq!(s["finding_id"], json!(format!("mv_savings@{}", s["meter"].as_str().unwrap())), "{s}");
    assert!(s["summary"].as_str().unwrap().contains("kBtu") && s["summary"].as_str().unwrap().contains("kWh"), "{s}");
}

#[test]
fn a_short_or_failing_baseline_says_so_and_bad_configs_are_refused() {
    // a baseline shorter than min_days is declined with the reason
    let r = call_with(&config(json!([entry(
        json!({"period": ["2022-01-01", "2022-01-20"], "reporting_period": ["2023-01-01", "2023-12-31"]})
    )])))
    .unwrap();
    assert!(r.data["declined"].as_u64().unwrap() >= 1, "{}", r.data);
    assert!(r.data["declined_meters"][0]["reason"].as_str().unwrap().contains("usable days"), "{}", r.data);
    // no mv section: invalid_params saying so
    let e = call_with(
        &json!({"source": {"facility_id": FID}, "equipment": [{"class": "CHILLEDWATER_METER"}], "rules": []}),
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.contains("mv section"), "{}", e.message);
    // a class or a role not stored: not_found
    let e = call_with(&config(json!([entry(json!({"class": "GAS_METER"}))]))).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("GAS_METER"), "{}", e.message);
    let e = call_with(&config(json!([entry(json!({"role": "gas_input_rate"}))]))).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    assert!(e.message.contains("gas_input_rate"), "{}", e.message);
    // overlapping periods: the config does not load
    let e = call_with(&config(json!([entry(json!({"reporting_period": ["2022-06-01", "2023-06-01"]}))]))).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidParams);
    assert!(e.message.contains("overlap"), "{}", e.message);
}
