//! Heat-pump cases: an open-plan office served by two water-source heat pumps, each on its own
//! thermostat (single-stage heating and cooling with automatic changeover, a differential and
//! anti-short-cycle timers), both acting on the one room's air. The room is two thermal nodes
//! (its air, and the furniture and slab the air trades heat with) losing heat through its skin
//! to the weather and gaining it from people, lights and the low winter sun. Each thermostat
//! reads the room air at its own spot (the window unit's a little colder, the inner one's a
//! little warmer, each drifting). The fault changes one thermostat's setpoints; the twin is the
//! same room with both units on one setpoint schedule, under the same weather and noise.

use super::kit::{Building, Case, Lab, Season, EVERY_STEP};
use camber_analytics::run::EquipFrame;

/// One unit's thermostat and the spot its sensor reads.
#[derive(Clone, Copy)]
struct Stat {
    name: &'static str,
    /// Occupied heating and cooling setpoints, °F.
    heat_sp: f64,
    cool_sp: f64,
    /// Where the sensor sits: its steady offset from the room air (°F), and how much more it
    /// reads the cold skin per °F of indoor-outdoor difference (a sensor by the glass).
    offset: f64,
    skin: f64,
}

/// Unoccupied setback setpoints, °F.
const SETBACK: (f64, f64) = (64.0, 85.0);
/// The thermostat's differential (°F): on half of it past the setpoint, off half of it back.
const DIFFERENTIAL: f64 = 1.0;
/// Anti-short-cycle: minimum compressor run and off times (minutes).
const MIN_ON: usize = 5;
const MIN_OFF: usize = 5;
/// Each unit's heating and cooling capacity as a share of the room's design heat loss.
const CAPACITY: f64 = 0.7;
/// The room's air and mass capacitances (design-load minutes per °F) and their coupling
/// (design load per °F); the skin's conductance (design load per °F, the design at 10 °F out).
const C_AIR: f64 = 1.5;
const C_MASS: f64 = 12.0;
const H_MASS: f64 = 0.25;
const UA: f64 = 1.0 / 62.0;

/// One unit's simulated minutes.
#[derive(Default)]
struct UnitRun {
    compressor: Vec<f64>,
    valve: Vec<f64>,
    fan: Vec<f64>,
    sat: Vec<f64>,
    zone: Vec<f64>,
    heat_sp: Vec<f64>,
    cool_sp: Vec<f64>,
    occupancy: Vec<f64>,
}

/// The units' occupied mode: weekdays 06:00 (a morning warm-up) to 18:00.
fn occupied(lab: &Lab, m: usize) -> bool {
    lab.weekday(m) && (6.0..18.0).contains(&lab.hour(m))
}

/// The room's internal and solar gains (share of the design load) at minute `m`.
fn gains(lab: &Lab, m: usize, clouds: f64, noise: f64) -> f64 {
    let h = lab.hour(m);
    let ramp = |a: f64, b: f64, x: f64| ((x - a) / (b - a)).clamp(0.0, 1.0);
    let people = if lab.weekday(m) { ramp(7.0, 8.5, h) * (1.0 - ramp(16.0, 18.0, h)) } else { 0.0 };
    let lunch = if (12.0..13.0).contains(&h) { 0.75 } else { 1.0 };
    let lights = if occupied(lab, m) { 0.08 } else { 0.02 };
    // the short winter day: sun from 7:30 to 16:30
    let sun = if (7.5..16.5).contains(&h) { (std::f64::consts::PI * (h - 7.5) / 9.0).sin() } else { 0.0 };
    (0.3 * people * lunch + lights + 0.22 * sun * (1.0 - clouds).clamp(0.0, 1.0) + noise).max(0.0)
}

/// The room and its units over the lab's minutes.
fn simulate(lab: &Lab, stats: &[Stat]) -> Vec<UnitRun> {
    let clouds = lab.red("site", "clouds", 0.3, 180.0);
    let gain_noise = lab.red("ROOM-101", "gains", 0.04, 60.0);
    let drift: Vec<Vec<f64>> = stats.iter().map(|s| lab.red(s.name, "sensor_drift", 0.15, 45.0)).collect();
    let (mut air, mut mass) = (68.0_f64, 68.0_f64);
    let k = stats.len();
    let (mut on, mut heating, mut since) = (vec![false; k], vec![true; k], vec![MIN_OFF; k]);
    let mut sat: Vec<f64> = vec![68.0; k];
    let mut out: Vec<UnitRun> = stats.iter().map(|_| UnitRun::default()).collect();
    for m in 0..lab.minutes {
        let oat = lab.oat(m);
        let occ = occupied(lab, m);
        let mut heat = 0.0;
        for (u, s) in stats.iter().enumerate() {
            let (hsp, csp) = if occ { (s.heat_sp, s.cool_sp) } else { SETBACK };
            let reading = air + s.offset - s.skin * (air - oat) + drift[u][m];
            since[u] += 1;
            let half = DIFFERENTIAL / 2.0;
            if on[u] {
                let satisfied = if heating[u] { reading >= hsp + half } else { reading <= csp - half };
                if satisfied && since[u] >= MIN_ON {
                    on[u] = false;
                    since[u] = 0;
                }
            } else if since[u] >= MIN_OFF {
                // a call: the reversing valve moves to it as the compressor starts
                if reading <= hsp - half {
                    (on[u], heating[u], since[u]) = (true, true, 0);
                } else if reading >= csp + half {
                    (on[u], heating[u], since[u]) = (true, false, 0);
                }
            }
            let q = if !on[u] {
                0.0
            } else if heating[u] {
                CAPACITY
            } else {
                -CAPACITY
            };
            heat += q;
            // continuous fan when occupied, cycling with the compressor otherwise
            let fan = occ || on[u];
            // the discharge air: about 25 °F over the room heating, 18 °F under it cooling,
            // reached with the coil's two-minute lag
            let target = if q > 0.0 {
                air + 25.0
            } else if q < 0.0 {
                air - 18.0
            } else {
                air + 0.8
            };
            sat[u] += (target - sat[u]) / 2.0;
            let r = &mut out[u];
            r.compressor.push(if on[u] { 1.0 } else { 0.0 });
            r.valve.push(if heating[u] { 1.0 } else { 0.0 });
            r.fan.push(if fan { 1.0 } else { 0.0 });
            r.sat.push(if fan { sat[u] } else { air + 0.3 * (sat[u] - air) });
            r.zone.push(reading);
            r.heat_sp.push(hsp);
            r.cool_sp.push(csp);
            r.occupancy.push(if occ { 1.0 } else { 0.0 });
        }
        let g = gains(lab, m, clouds[m], gain_noise[m]);
        let to_mass = H_MASS * (air - mass);
        air += (heat + g - UA * (air - oat) - to_mass) / C_AIR;
        mass += to_mass / C_MASS;
    }
    out
}

/// A unit's trend: statuses, commands and setpoints exact, as the BAS logs them; the
/// temperatures with their sensors' noise.
fn unit_frame(lab: &Lab, name: &str, r: &UnitRun) -> EquipFrame {
    let exact = |v: &[f64]| lab.keep(v);
    let noisy = |what: &str, v: &[f64], sd: f64| lab.at(name, what, sd, |m| v[m]);
    lab.unit(
        name,
        "WSHP",
        vec![
            ("compressor_status", exact(&r.compressor)),
            ("reversing_valve_cmd", exact(&r.valve)),
            ("supply_fan_status", exact(&r.fan)),
            ("occupancy", exact(&r.occupancy)),
            ("heat_sp", exact(&r.heat_sp)),
            ("cool_sp", exact(&r.cool_sp)),
            ("supply_air_temp", noisy("supply_air_temp", &r.sat, 0.3)),
            ("space_temp", noisy("space_temp", &r.zone, 0.1)),
        ],
    )
}

/// `hp_room_imbalance`: a January fortnight in an open office served by two heat pumps, the
/// window unit HP-1 and the inner unit HP-2, both occupied at 72 °F heating and 76 °F cooling.
/// Faulty: someone warm by the inner unit has set HP-2 to cool at 70 °F (its thermostat pushes
/// its heating setpoint to 68 °F to keep its 2 °F dead band), so HP-1 heats the room toward 72
/// while HP-2 cools it toward 70 whenever the sun and the people lift it past 70.5: from mid
/// morning both run flat out against each other (about 60 % of the occupied hours), the room
/// stuck near 70. The twin warms up on both units, then HP-1 (its sensor by the glass reads
/// colder) carries more of the load, about 30 points more active time than HP-2.
fn room_fight(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("hp_room_imbalance", Season::Winter, 14, step);
    let hp1 = Stat { name: "HP-1", heat_sp: 72.0, cool_sp: 76.0, offset: -0.2, skin: 0.006 };
    let hp2 = if faulty {
        Stat { name: "HP-2", heat_sp: 68.0, cool_sp: 70.0, offset: 0.3, skin: 0.0 }
    } else {
        Stat { name: "HP-2", heat_sp: 72.0, cool_sp: 76.0, offset: 0.3, skin: 0.0 }
    };
    let runs = simulate(&lab, &[hp1, hp2]);
    let units = vec![unit_frame(&lab, "HP-1", &runs[0]), unit_frame(&lab, "HP-2", &runs[1])];
    Building::many(units, "HP-2").served(&[("HP-1", "ROOM-101"), ("HP-2", "ROOM-101")])
}

/// The heat-pump cases.
pub fn cases() -> Vec<Case> {
    vec![Case { rule: "hp_room_imbalance", steps: EVERY_STEP, build: room_fight }]
}
