//! A hot-water plant in the shoulder season: one boiler and its variable-speed loop pump serving
//! a building whose heating load falls with the outdoor air to nothing on warm days. The boiler
//! modulates (down to a tenth of its capacity) to hold its supply setpoint, reset from 180 °F
//! at 20 °F outdoors to 140 °F at 60 °F; below its minimum fire it cycles on a 10 °F aquastat
//! band, held off at least 10 minutes. The pump holds a differential-pressure setpoint reset
//! with the coils' valve demand, so the loop's delta-T stays near its 25 °F design. A healthy
//! plant locks out, boiler and pump, when the outdoor air passes 65 °F (released below 62 °F).
//!
//! Faults:
//! - `boiler_short_cycling`: a boiler that cannot modulate (on-off) with a 3 °F band and no
//!   minimum off time: at part load it fires for a few minutes at a time, many times a day;
//! - `boiler_not_locked_out`: no warm-weather lockout: the boiler keeps the loop hot on warm days;
//! - `pump_not_locked_out`: the boiler locks out but its pump runs on regardless;
//! - `low_delta_t`: the pump runs full speed with a fixed setpoint (no reset) and the coils'
//!   valves are oversized, so the loop returns barely cooler than it left.
//!
//! The near miss's boiler modulates down to only a third of its capacity, so it cycles on the mildest
//! hours a few times a day: more than the healthy plant, within what a boiler is rated for.

use crate::common::{lag, Clock, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Plant roles in table order.
pub const ROLES: [&str; 10] = [
    "oat",
    "boiler_status",
    "gas_input_rate",
    "hw_supply_temp",
    "hw_return_temp",
    "hw_flow",
    "pump_status",
    "hw_pump_speed",
    "hw_diff_press",
    "hw_diff_press_sp",
];

/// The boiler's rating, Btu/h, and the loop's design flow, gpm.
const CAPACITY: f64 = 2_000_000.0;
const DESIGN_GPM: f64 = 160.0;
/// The loop's design delta-T, °F.
const DESIGN_DT: f64 = 25.0;

/// One plant's configuration.
#[derive(Clone, Copy, Debug)]
struct PlantCfg {
    /// The lowest fire it modulates to (a share of capacity; 1 = on-off).
    min_fire: f64,
    /// Its aquastat band (°F) and minimum off time (minutes) when cycling below minimum fire.
    band: f64,
    min_off: f64,
    /// Whether the boiler, and the pump, lock out on warm days.
    boiler_lockout: bool,
    pump_lockout: bool,
    /// The pump's differential-pressure setpoint is fixed at its top and the coils draw more
    /// water than they need.
    no_reset: bool,
    label: &'static str,
}

const HEALTHY: PlantCfg = PlantCfg {
    min_fire: 0.1,
    band: 10.0,
    min_off: 10.0,
    boiler_lockout: true,
    pump_lockout: true,
    no_reset: false,
    label: "",
};

fn scenarios() -> [(&'static str, PlantCfg); 6] {
    [
        ("healthy", HEALTHY),
        (
            "short_cycling",
            PlantCfg { min_fire: 1.0, band: 3.0, min_off: 0.0, label: "boiler_short_cycling", ..HEALTHY },
        ),
        (
            "no_lockout",
            PlantCfg { boiler_lockout: false, pump_lockout: false, label: "boiler_not_locked_out", ..HEALTHY },
        ),
        ("pump_left_on", PlantCfg { pump_lockout: false, label: "pump_not_locked_out", ..HEALTHY }),
        ("low_delta_t", PlantCfg { no_reset: true, label: "low_delta_t", ..HEALTHY }),
        ("near_miss", PlantCfg { min_fire: 0.35, ..HEALTHY }),
    ]
}

fn simulate(cfg: &PlantCfg, w: &Weather, clock: &Clock, seed: u64, equip: &str) -> Table {
    let mut rng = Rng::stream(seed, equip, "noise");
    let mut t = Table::new(&ROLES, clock.n);
    let mut load_noise = Ar1::new(0.06, 30.0, 1.0, &mut rng);
    let (mut supply, mut ret, mut warm) = (150.0f64, 130.0f64, false);
    let (mut firing, mut since) = (false, 1000.0f64);
    let mut speed = 40.0f64;
    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let oat = w.oat[k];
        // the warm-weather lockout: above 65 °F outdoors, released below 62 °F
        if oat > 65.0 {
            warm = true;
        } else if oat < 62.0 {
            warm = false;
        }
        let occupied = wd < 5 && (6.0..18.0).contains(&hour);
        // the building's heating load, Btu/h: envelope below 62 °F balance point, more at night
        let balance = if occupied { 58.0 } else { 62.0 };
        // plus the reheat coils' draw while occupied, which a locked-out plant leaves unserved
        let reheat = if occupied { 0.05 * CAPACITY } else { 0.0 };
        let load = (CAPACITY * (balance - oat) / 45.0 * (1.0 + load_noise.step(&mut rng))).max(0.0) + reheat;
        let setpoint = (180.0 - (oat - 20.0)).clamp(140.0, 180.0);
        let boiler_on = !(cfg.boiler_lockout && warm);
        let pump_on = !warm || !cfg.pump_lockout;
        // the pump: speed follows the coils' demand, or full with no reset
        let demand = (load / CAPACITY).clamp(0.0, 1.0);
        // the reset holds just the pressure the coils' valves need: the flow the load needs at
        // the design delta-T, above an 8 % minimum
        let target_speed = if !pump_on {
            0.0
        } else if cfg.no_reset {
            100.0
        } else {
            (100.0 * load / (500.0 * DESIGN_DT * DESIGN_GPM)).clamp(8.0, 100.0)
        };
        speed += (target_speed - speed) * lag(5.0);
        let flow = DESIGN_GPM * speed / 100.0;
        // the boiler
        since += 1.0;
        let fire;
        if !boiler_on {
            if firing {
                firing = false;
                since = 0.0;
            }
            fire = 0.0;
        } else if cfg.min_fire >= 1.0 || demand < cfg.min_fire {
            // cycling on the aquastat
            if firing && supply > setpoint + cfg.band / 2.0 {
                firing = false;
                since = 0.0;
            } else if !firing && supply < setpoint - cfg.band / 2.0 && since >= cfg.min_off {
                firing = true;
                since = 0.0;
            }
            fire = if firing { cfg.min_fire.max(demand) } else { 0.0 };
        } else {
            if !firing {
                firing = true;
                since = 0.0;
            }
            fire = (demand + (setpoint - supply) * 0.02).clamp(cfg.min_fire, 1.0);
        }
        let q_in = fire * CAPACITY;
        // the loop: 500 Btu/h per gpm·°F; coils take the load (a little more with no reset)
        let q_out = if flow > 1.0 { load.min(500.0 * flow * (supply - 70.0).max(0.0)) } else { 0.0 };
        let mass = 50_000.0; // Btu/°F of the loop's water and metal
        let standby = 150.0 * (supply - oat.max(60.0)); // Btu/h lost from the loop
        supply += (q_in - q_out - standby) / mass / 60.0;
        supply = supply.clamp(oat.min(70.0), 200.0);
        let dt = if flow > 1.0 { (q_out / (500.0 * flow)).min(supply - 60.0) } else { 0.0 };
        let ret_target = if flow > 1.0 { supply - dt } else { supply - 1.0 };
        ret += (ret_target - ret) * lag(if flow > 1.0 { 4.0 } else { 60.0 });
        if let Some(i) = clock.sample_at(k) {
            let dp_sp = if cfg.no_reset { 12.0 } else { 4.0 + 8.0 * demand.sqrt() };
            t.set(0, i, oat + 0.3 * rng.normal());
            t.set(1, i, if firing { 1.0 } else { 0.0 });
            t.set(2, i, if firing { fire * CAPACITY / 1000.0 * (1.0 + 0.01 * rng.normal()) } else { 0.0 });
            t.set(3, i, supply + 0.3 * rng.normal());
            t.set(4, i, ret + 0.3 * rng.normal());
            t.set(5, i, if pump_on { flow * (1.0 + 0.01 * rng.normal()) } else { 0.0 });
            t.set(6, i, if pump_on { 1.0 } else { 0.0 });
            t.set(7, i, speed);
            t.set(8, i, if pump_on { dp_sp * (speed / 100.0).max(0.3) + 0.1 * rng.normal() } else { 0.0 });
            t.set(9, i, dp_sp);
        }
    }
    t
}

/// The healthy plant alone, `PLANT__healthy`; for the plant-year benchmark.
pub fn healthy(w: &Weather, clock: &Clock, seed: u64) -> Unit {
    let table = simulate(&HEALTHY, w, clock, seed, "PLANT__healthy");
    Unit { equip: "PLANT__healthy".into(), class: "HW_PLANT", scenario: "healthy", label: "", table }
}

/// Build the hot-water dataset's units: `PLANT__<scenario>` per scenario.
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    scenarios()
        .into_iter()
        .map(|(sc, cfg)| {
            let equip = format!("PLANT__{sc}");
            let table = simulate(&cfg, w, clock, seed, &equip);
            Unit { equip, class: "HW_PLANT", scenario: sc, label: cfg.label, table }
        })
        .collect()
}
