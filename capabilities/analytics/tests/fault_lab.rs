//! The fault lab: every rule and every drift detector, on a building with its fault injected
//! and on the same building healthy (a clean twin under the same weather, with sensor noise and
//! daily and weekly variation, never a constant signal), logged at each interval the rule
//! accepts (1, 5, 15 and 60 minutes). Each must fire (warn or fault) on its fault, naming the
//! faulty unit, and give no unit of its twin more than info. `kit` is the clock, weather, noise
//! and run; each other module builds the cases of one area of a building.
//!
//! `LAB=rule_id cargo test -p camber-analytics --test fault_lab verdicts -- --ignored
//! --nocapture` prints every verdict of the matching cases, for writing one.

#[path = "fault_lab/air.rs"]
mod air;
#[path = "fault_lab/air_drift.rs"]
mod air_drift;
mod common;
#[path = "fault_lab/compressor.rs"]
mod compressor;
#[path = "fault_lab/heat_pumps.rs"]
mod heat_pumps;
#[path = "fault_lab/kit.rs"]
mod kit;
#[path = "fault_lab/plant.rs"]
mod plant;
#[path = "fault_lab/pump_drift.rs"]
mod pump_drift;
#[path = "fault_lab/synth.rs"]
mod synth;
#[path = "fault_lab/zones.rs"]
mod zones;

use kit::{Case, DriftCase};
use std::collections::BTreeSet;

/// Every case of the lab.
fn all_cases() -> Vec<Case> {
    [air::cases(), compressor::cases(), heat_pumps::cases(), plant::cases(), synth::cases(), zones::cases()].concat()
}

/// Every drift case of the lab.
fn all_drift_cases() -> Vec<DriftCase> {
    [air_drift::drift_cases(), plant::drift_cases(), pump_drift::drift_cases(), synth::drift_cases()].concat()
}

#[test]
fn every_rule_and_detector_has_a_case() {
    let mut have: BTreeSet<&str> = all_cases().iter().map(|c| c.rule).collect();
    have.extend(all_drift_cases().iter().map(|c| c.detector));
    let mut missing: Vec<&str> = camber_analytics::rules::all().iter().map(|r| (r.spec)().id).collect();
    missing.extend(camber_analytics::drift::all().iter().map(|d| d.id));
    missing.retain(|id| !have.contains(id));
    assert!(missing.is_empty(), "{} rules and detectors have no fault-lab case: {missing:?}", missing.len());
    // and every case names a rule or detector that exists
    let known: BTreeSet<&str> = camber_analytics::rules::all()
        .iter()
        .map(|r| (r.spec)().id)
        .chain(camber_analytics::drift::all().iter().map(|d| d.id))
        .collect();
    let unknown: Vec<&str> = have.iter().copied().filter(|id| !known.contains(id)).collect();
    assert!(unknown.is_empty(), "cases of no rule: {unknown:?}");
}

#[test]
fn air_handlers() {
    kit::prove(&air::cases());
}

#[test]
fn compressors_and_heat_pumps() {
    kit::prove(&[compressor::cases(), heat_pumps::cases()].concat());
}

#[test]
fn plants() {
    kit::prove(&plant::cases());
}

#[test]
fn synth_buildings() {
    kit::prove(&synth::cases());
}

#[test]
fn zones_and_terminals() {
    kit::prove(&zones::cases());
}

#[test]
fn air_side_drift() {
    kit::prove_drift(&air_drift::drift_cases());
}

#[test]
fn plant_drift() {
    kit::prove_drift(&plant::drift_cases());
}

#[test]
fn pump_and_loop_drift() {
    kit::prove_drift(&pump_drift::drift_cases());
}

#[test]
fn synth_drift() {
    kit::prove_drift(&synth::drift_cases());
}

#[test]
#[ignore = "a debugging aid: prints verdicts (LAB=id, --ignored --nocapture)"]
fn verdicts() {
    kit::print_verdicts(&all_cases(), &all_drift_cases(), &std::env::var("LAB").unwrap_or_default());
}
