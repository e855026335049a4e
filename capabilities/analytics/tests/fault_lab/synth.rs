//! Cases drawn from camber-synth's buildings: a scenario with its fault modelled in the physics
//! (a damper stuck in the model, a tower whose fill fouls) against the same system simulated
//! healthy under the same weather, each logged at the lab's interval.

use super::common::frame_of;
use super::kit::{window, Building, Case, DriftCase, EVERY_STEP, FINE_STEPS};
use camber_analytics::engine::Frame;
use camber_analytics::run::EquipFrame;
use camber_synth::Generated;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A dataset at an interval, generated once per test binary.
fn dataset(id: &str, step: usize) -> Arc<Generated> {
    static CACHE: Mutex<BTreeMap<(String, usize), Arc<Generated>>> = Mutex::new(BTreeMap::new());
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry((id.to_string(), step))
        .or_insert_with(|| Arc::new(camber_synth::generate_at(id, None, Some(step as u32)).expect("a synth dataset")))
        .clone()
}

/// The units of one scenario of dataset `id` at `step`, boxes served by their air handler; the
/// suspect is `<prefix>__<scenario>`.
fn scenario(id: &str, sc: &str, prefix: &str, step: usize) -> Building {
    let g = dataset(id, step);
    let units: Vec<EquipFrame> = g
        .equipment
        .iter()
        .filter(|e| e.scenario == sc)
        .map(|e| EquipFrame { equip: e.equip.clone(), class: e.equip_class.clone(), frame: frame_of(&g, &e.equip) })
        .collect();
    assert!(!units.is_empty(), "{id} has no scenario {sc}");
    let ahu = format!("AHU__{sc}");
    let pairs: Vec<(String, String)> = units
        .iter()
        .filter(|u| u.class == "VAV" && units.iter().any(|a| a.equip == ahu))
        .map(|u| (u.equip.clone(), ahu.clone()))
        .collect();
    let mut b = Building::many(units, &format!("{prefix}__{sc}"));
    b.parents = pairs;
    b
}

/// The camber-synth buildings the cases draw on.
const ECON: &str = "synthetic-ahu-economizer";
const G36: &str = "synthetic-g36-vav";
const CHW: &str = "synthetic-chw-plant";
const STAGING: &str = "synthetic-chiller-staging";
const HEAT_PUMPS: &str = "synthetic-heat-pump-winter";
const HW: &str = "synthetic-hw-plant";

/// A case whose fault is scenario `$fault` of dataset `$ds` and whose twin is `$twin`.
macro_rules! from_synth {
    ($rule:literal, $ds:expr, $fault:literal / $twin:literal, $suspect:literal, $steps:expr) => {
        Case {
            rule: $rule,
            steps: $steps,
            build: |step, faulty| scenario($ds, if faulty { $fault } else { $twin }, $suspect, step),
        }
    };
}

/// The rules camber-synth's buildings prove.
pub fn cases() -> Vec<Case> {
    vec![
        // air handlers (a week of spring weather, the economizer's own week)
        from_synth!("simultaneous_heat_cool", ECON, "simultaneous_heat_cool" / "healthy", "AHU", EVERY_STEP),
        from_synth!("leaking_valve", ECON, "leaking_cool_valve" / "healthy", "AHU", EVERY_STEP),
        from_synth!("night_weekend_setback", ECON, "night_weekend_operation" / "healthy", "AHU", EVERY_STEP),
        from_synth!("free_cooling_missed", ECON, "econ_lockout" / "healthy", "AHU", EVERY_STEP),
        // a G36 system and its six boxes
        from_synth!("static_cohort_starvation", G36, "low_static" / "healthy", "AHU", EVERY_STEP),
        from_synth!("static_rogue_zone_census", G36, "rogue_zone" / "healthy", "VAV2", EVERY_STEP),
        from_synth!("sat_rogue_zone_census", G36, "rogue_zone" / "healthy", "VAV2", EVERY_STEP),
        from_synth!("airflow_tracking", G36, "stuck_vav_damper" / "healthy", "VAV3", EVERY_STEP),
        from_synth!("actuator_stuck", G36, "stuck_vav_damper" / "healthy", "VAV3", EVERY_STEP),
        from_synth!("sat_reset_effectiveness", G36, "reheat_overlap" / "healthy", "AHU", EVERY_STEP),
        from_synth!("zones_heat_cool_census", G36, "reheat_overlap" / "healthy", "VAV1", EVERY_STEP),
        // a chilled-water plant and its tower
        from_synth!("condenser_water_reset", CHW, "fixed_cw_setpoint" / "healthy", "TOWER", EVERY_STEP),
        from_synth!("cooling_tower_approach", CHW, "fouled_tower" / "healthy", "TOWER", EVERY_STEP),
        Case {
            rule: "chw_plant_reset",
            steps: EVERY_STEP,
            build: |step, faulty| {
                let sc = if faulty { "chw_sp_fixed_low" } else { "healthy" };
                scenario(CHW, sc, "CH", step).oat_from(&format!("TOWER__{sc}"))
            },
        },
        // two staged chillers
        // the lag chiller's cycles last minutes: an hourly trend cannot count them
        from_synth!("chiller_staging", STAGING, "short_cycling" / "healthy", "CH2", &[1, 5]),
        from_synth!("chiller_staging", STAGING, "left_on" / "healthy", "CH1", EVERY_STEP),
        from_synth!("chiller_staging_fleet", STAGING, "over_staged" / "healthy", "CH1", EVERY_STEP),
        // heat pumps in winter
        // a defrost lasts minutes and comes every 12 minutes of heating in the fault: only a
        // trend of 5 minutes or finer holds them
        from_synth!("heatpump_defrost", HEAT_PUMPS, "excess_defrost" / "healthy", "HP", &[1, 5]),
        from_synth!("hp_mode_vs_need", HEAT_PUMPS, "wrong_mode" / "healthy", "HP", EVERY_STEP),
        from_synth!("hp_capacity_shortfall", HEAT_PUMPS, "capacity_shortfall" / "healthy", "HP", EVERY_STEP),
        // the second stage hunts on and off within minutes
        from_synth!("compressor_staging", HEAT_PUMPS, "stage_hunting" / "two_stage", "WSHP", &[1, 5]),
        from_synth!("source_loop_deltat", HEAT_PUMPS, "flat_deltat" / "healthy", "LOOP", EVERY_STEP),
        // a hot-water plant through a spring
        from_synth!("boiler_short_cycle", HW, "short_cycling" / "healthy", "PLANT", FINE_STEPS),
        from_synth!("boiler_summer_lockout", HW, "no_lockout" / "healthy", "PLANT", EVERY_STEP),
        from_synth!("hw_pump_summer_lockout", HW, "pump_left_on" / "healthy", "PLANT", EVERY_STEP),
        from_synth!("hw_plant_deltat", HW, "low_delta_t" / "healthy", "PLANT", EVERY_STEP),
    ]
}

/// A drifting unit's first two weeks against its last two (its twin's when healthy).
fn drift_windows(id: &str, faulty: &str, twin: &str, step: usize, faulty_now: bool) -> (Frame, Frame) {
    let g = dataset(id, step);
    let f = frame_of(&g, if faulty_now { faulty } else { twin });
    let end = g.info.days as i64;
    (window(&f, 0, 14), window(&f, end - 14, end))
}

/// The drift detectors camber-synth's drifting buildings prove.
pub fn drift_cases() -> Vec<DriftCase> {
    vec![
        DriftCase {
            detector: "coil_leak_drift",
            // an hourly trend of two weeks holds too few idle-coil hours in the baseline (the
            // detector says so, as info)
            steps: FINE_STEPS,
            build: |step, faulty| {
                drift_windows("synthetic-ahu-leak-drift", "AHU__growing_cool_leak", "AHU__healthy", step, faulty)
            },
        },
        DriftCase {
            detector: "cooling_tower_approach_drift",
            steps: EVERY_STEP,
            build: |step, faulty| {
                drift_windows("synthetic-tower-fouling-drift", "TOWER__fouling", "TOWER__clean", step, faulty)
            },
        },
    ]
}
