//! The physics validation lab's slice in the tests (the whole lab is `cargo xtask validate`,
//! docs/VALIDATION.md): EnergyPlus simulates the ASHRAE 90.1 large office in July with hot water
//! passing its air handler's shut heating valve, and the same building fault-free; both are
//! ingested as a user's trends would be and run under every rule. The leak must be found by a
//! rule that targets it, and the fault-free twin must raise no warning or fault.

use std::path::Path;

use camber_tests::{camber_bin, python};
use serde_json::Value;

#[test]
fn an_energyplus_leak_is_found_and_its_fault_free_twin_reads_healthy() {
    let out = tempfile::tempdir().unwrap();
    let lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("validation").join("lab.py");
    let run = std::process::Command::new(python())
        .arg(&lab)
        .arg("--camber")
        .arg(camber_bin())
        .arg("--reference-python")
        .arg(python())
        .arg("--sim-python")
        .arg(python())
        .arg("--out")
        .arg(out.path())
        .args(["--only", "large-jul-ahu1-leaking-heat-valve"])
        .output()
        .expect("the lab runs");
    assert!(
        run.status.success(),
        "the lab failed: {}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("results.json")).unwrap()).unwrap();
    let cases = results["cases"].as_array().unwrap();
    let case = |name: &str| cases.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no case {name}"));
    let leak = &case("large-jul-ahu1-leaking-heat-valve")["camber"];
    assert_eq!(leak["status"], "found", "{leak}");
    assert!(leak["by"].as_array().unwrap().iter().all(|f| f["equip"] == "AHU-1"), "{leak}");
    let clean = &case("large-jul-clean")["camber"];
    let alarms = clean["false_alarms"].as_array().unwrap();
    let listed: Vec<String> = alarms
        .iter()
        .map(|f| format!("{} on {} ({}): {}", f["rule"], f["equip"], f["severity"], f["summary"]))
        .collect();
    assert!(alarms.is_empty(), "the fault-free building raised {} alarm(s):\n{}", alarms.len(), listed.join("\n"));
}
