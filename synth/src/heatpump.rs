//! Heat pumps in winter: air-source units that defrost, a water-source unit with two compressor
//! stages, two units sharing one room, and the source loop the water-source units reject to.
//! Each room is a lumped mass (its envelope losing heat to the outdoor air, people and lights
//! adding it while occupied); each unit's thermostat heats below its heating setpoint and cools
//! above its cooling one with a degree either side, 68 and 76 °F while occupied (weekdays 07:00
//! to 18:00, the setback left at 05:00 to warm up), 62 °F heating at night. An air-source unit's heating capacity falls with the
//! outdoor air; below 40 °F its coil frosts and it reverses to defrost for five minutes after
//! every `defrost_every` minutes of heating, its supply air dropping toward the room.
//!
//! Faults:
//! - `excess_defrost`: a defrost control that reverses after every 12 minutes of heating, frost
//!   or not;
//! - `wrong_mode`: a reversing valve stuck in cooling: when the room calls for heat the unit
//!   blows cold air (strip heat holds the room a few degrees below its band);
//! - `capacity_shortfall`: a unit with under a third of its rated capacity (a refrigerant leak):
//!   on cold days it runs flat out and the room stays below its band;
//! - `stage_hunting`: a two-stage water-source unit whose staging deadband is lost, so it
//!   toggles between stages every few minutes;
//! - `room_fight`: two units in one room whose occupants set them apart, one to heat to 72 °F
//!   and the other to cool to 70 °F: one heats while the other cools;
//! - `flat_loop_deltat`: a source loop whose pump runs full flow through an open bypass, so its
//!   supply and return differ by a fraction of a degree while the units load it.
//!
//! The near miss defrosts after every 50 minutes of heating below 40 °F: more often than the
//! healthy unit, well within what defrost controls do.

use crate::common::{lag, Clock, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Heat-pump roles in table order.
pub const HP_ROLES: [&str; 9] = [
    "oat",
    "space_temp",
    "supply_air_temp",
    "heat_sp",
    "cool_sp",
    "occupancy",
    "supply_fan_status",
    "compressor_status",
    "reversing_valve_cmd",
];
/// Source-loop roles in table order.
pub const LOOP_ROLES: [&str; 3] = ["source_loop_supply_temp", "source_loop_return_temp", "source_loop_pump_speed"];

/// One air-source unit's configuration.
#[derive(Clone, Copy, Debug)]
struct HpCfg {
    /// Minutes of heating between defrosts, and whether it defrosts only below 40 °F.
    defrost_every: f64,
    frost_only: bool,
    /// Share of the rated capacity it delivers.
    capacity: f64,
    /// The reversing valve stuck in cooling.
    stuck_cooling: bool,
    /// What its sensor adds to the room's temperature.
    sensor_bias: f64,
    /// What its occupant set its occupied heating and cooling setpoints away from 68 and 76 °F.
    heat_offset: f64,
    cool_offset: f64,
}

const HEALTHY: HpCfg = HpCfg {
    defrost_every: 90.0,
    frost_only: true,
    capacity: 1.0,
    stuck_cooling: false,
    sensor_bias: 0.0,
    heat_offset: 0.0,
    cool_offset: 0.0,
};

fn occupied(wd: usize, hour: f64) -> bool {
    wd < 5 && (7.0..18.0).contains(&hour)
}

/// A unit's state within its room.
struct Hp {
    cfg: HpCfg,
    heating: bool,
    cooling: bool,
    /// Minutes of heating since the last defrost, and minutes left of the current one.
    since_defrost: f64,
    defrosting: f64,
    sat: f64,
    noise: Ar1,
}

impl Hp {
    fn new(cfg: HpCfg, rng: &mut Rng) -> Hp {
        Hp {
            cfg,
            heating: false,
            cooling: false,
            since_defrost: 0.0,
            defrosting: 0.0,
            sat: 68.0,
            noise: Ar1::new(0.2, 15.0, 1.0, rng),
        }
    }

    /// One minute of the unit's thermostat and machine: the heat it adds to its room (Btu/h).
    fn step(&mut self, room: f64, oat: f64, heat_sp: f64, cool_sp: f64, rng: &mut Rng) -> f64 {
        let seen = room + self.cfg.sensor_bias;
        if seen < heat_sp - 1.0 {
            self.heating = true;
        } else if seen > heat_sp + 1.0 {
            self.heating = false;
        }
        if seen > cool_sp + 1.0 {
            self.cooling = true;
        } else if seen < cool_sp - 1.0 {
            self.cooling = false;
        }
        let rated = 48_000.0 * self.cfg.capacity;
        let heat_cap = rated * (0.55 + 0.011 * (oat - 17.0)).clamp(0.35, 1.1);
        let mut q = 0.0;
        let mut target = room;
        if self.defrosting > 0.0 {
            self.defrosting -= 1.0;
            target = room - 6.0;
            q = -0.1 * heat_cap;
        } else if self.heating {
            if self.cfg.stuck_cooling {
                // the valve will not leave cooling: cold air, and strip heat behind it
                target = room - 14.0;
                q = -0.6 * rated + if room < heat_sp - 3.0 { 1.2 * rated } else { 0.0 };
            } else {
                target = room + 24.0 * (heat_cap / 48_000.0).min(1.0) + 4.0;
                q = heat_cap;
                self.since_defrost += 1.0;
                let frost = !self.cfg.frost_only || oat < 40.0;
                if frost && self.since_defrost >= self.cfg.defrost_every {
                    self.defrosting = 5.0;
                    self.since_defrost = 0.0;
                }
            }
        } else if self.cooling {
            target = room - 18.0;
            q = -rated;
        }
        self.sat += (target + self.noise.step(rng) - self.sat) * lag(3.0);
        q
    }

    fn running(&self) -> bool {
        self.heating || self.cooling || self.defrosting > 0.0
    }

    /// The reversing valve command: 1 in heating, 0 in cooling and defrost (as the reference's
    /// heat-pump data records it).
    fn reversing(&self) -> f64 {
        if self.heating && self.defrosting <= 0.0 && !self.cfg.stuck_cooling && !self.cooling {
            1.0
        } else {
            0.0
        }
    }
}

/// The units of a room and the room, minute by minute; one table per unit.
fn simulate_room(cfgs: &[HpCfg], w: &Weather, clock: &Clock, seed: u64, name: &str) -> Vec<Table> {
    let mut rng = Rng::stream(seed, name, "noise");
    let mut units: Vec<Hp> = cfgs.iter().map(|c| Hp::new(*c, &mut rng)).collect();
    let mut tables: Vec<Table> = cfgs.iter().map(|_| Table::new(&HP_ROLES, clock.n)).collect();
    let (ua, mass) = (250.0 * cfgs.len() as f64, 8_000.0 * cfgs.len() as f64); // Btu/h·°F, Btu/°F
    let mut room = 66.0;
    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let occ = occupied(wd, hour);
        let oat = w.oat[k];
        // the thermostat leaves its setback two hours before occupancy, to warm the room up
        let warm_up = wd < 5 && (5.0..18.0).contains(&hour);
        let (heat_sp, cool_sp) = if warm_up { (68.0, 76.0) } else { (62.0, 85.0) };
        let internal = if occ { 5_000.0 } else { 1_000.0 } * cfgs.len() as f64 + 6_000.0 * w.solar(k, 12.0);
        let sp =
            |u: &Hp| if occ { (heat_sp + u.cfg.heat_offset, cool_sp + u.cfg.cool_offset) } else { (heat_sp, cool_sp) };
        let q: f64 = units
            .iter_mut()
            .map(|u| {
                let (h, c) = sp(u);
                u.step(room, oat, h, c, &mut rng)
            })
            .sum();
        room += (ua * (oat - room) + internal + q) / mass / 60.0;
        if let Some(i) = clock.sample_at(k) {
            for (u, t) in units.iter().zip(tables.iter_mut()) {
                let on = u.running();
                let (heat_sp, cool_sp) = sp(u);
                t.set(0, i, oat + 0.3 * rng.normal());
                t.set(1, i, room + u.cfg.sensor_bias + 0.1 * rng.normal());
                t.set(2, i, u.sat + 0.2 * rng.normal());
                t.set(3, i, heat_sp);
                t.set(4, i, cool_sp);
                t.set(5, i, if occ { 1.0 } else { 0.0 });
                t.set(6, i, if on || occ { 1.0 } else { 0.0 });
                t.set(7, i, if on { 1.0 } else { 0.0 });
                t.set(8, i, u.reversing());
            }
        }
    }
    tables
}

/// A two-stage water-source unit: the first stage below a demand of 60 %, the second above, with
/// a deadband of `deadband` and `min_minutes` between changes; returns its table (with
/// `compressor_stage`) and its heat of rejection to the loop at each minute.
fn simulate_staged(
    deadband: f64,
    min_minutes: f64,
    w: &Weather,
    clock: &Clock,
    seed: u64,
    name: &str,
) -> (Table, Vec<f64>) {
    const ROLES: [&str; 7] =
        ["oat", "space_temp", "supply_air_temp", "heat_sp", "occupancy", "compressor_status", "compressor_stage"];
    let mut rng = Rng::stream(seed, name, "noise");
    let mut t = Table::new(&ROLES, clock.n);
    let mut load = Ar1::new(0.08, 8.0, 1.0, &mut rng);
    let (mut stage, mut since, mut room, mut sat) = (0.0f64, 100.0f64, 68.0f64, 68.0f64);
    let mut rejected = vec![0.0; clock.total()];
    for (k, out) in rejected.iter_mut().enumerate() {
        let (wd, hour) = clock.when(k);
        let occ = occupied(wd, hour);
        let oat = w.oat[k];
        let heat_sp = if occ { 68.0 } else { 62.0 };
        // the heat the room needs as a share of the unit's two stages, with a fluctuating gain
        let demand =
            ((heat_sp + 1.0 - oat) / 45.0 + load.step(&mut rng) - if occ { 0.15 } else { 0.0 }).clamp(0.0, 1.2);
        since += 1.0;
        let want = if demand < 0.05 {
            0.0
        } else if demand > 0.6 + deadband / 2.0 {
            2.0
        } else if demand < 0.6 - deadband / 2.0 {
            1.0
        } else {
            stage.max(1.0)
        };
        if want != stage && since >= min_minutes {
            stage = want;
            since = 0.0;
        }
        let delivered = 0.5 * stage;
        // the room settles a degree or two either side of its setpoint as the stages over- or
        // under-deliver
        room += (heat_sp + 4.0 * (delivered - demand) - room) * lag(20.0);
        sat += (room + 14.0 * stage - sat) * lag(3.0);
        *out = -delivered; // heating extracts heat from the loop
        if let Some(i) = clock.sample_at(k) {
            t.set(0, i, oat + 0.3 * rng.normal());
            t.set(1, i, room + 0.1 * rng.normal());
            t.set(2, i, sat + 0.2 * rng.normal());
            t.set(3, i, heat_sp);
            t.set(4, i, if occ { 1.0 } else { 0.0 });
            t.set(5, i, if stage > 0.0 { 1.0 } else { 0.0 });
            t.set(6, i, stage);
        }
    }
    (t, rejected)
}

/// A source loop carrying `load` (in units of one water-source unit's two stages, negative when
/// the units extract heat) at a design delta-T of about 8 °F; `bypass` opens a bypass that runs
/// full flow at any load, so the delta-T collapses.
fn simulate_loop(load: &[f64], bypass: bool, clock: &Clock, seed: u64, name: &str) -> Table {
    let mut rng = Rng::stream(seed, name, "noise");
    let mut t = Table::new(&LOOP_ROLES, clock.n);
    let (mut supply, mut ret) = (65.0f64, 65.0f64);
    for (k, l) in load.iter().enumerate() {
        let l = l.abs().min(1.2);
        let speed: f64 = if bypass { 100.0 } else { (25.0 + 70.0 * l).min(100.0) };
        // delta-T = heat / flow; with the bypass most of the flow misses the units
        let dt = if l < 0.02 {
            0.0
        } else if bypass {
            0.5 * l
        } else {
            8.0 * l / (speed / 100.0) * 0.9
        };
        supply += (65.0 - supply) * lag(120.0);
        ret += (supply - dt - ret) * lag(10.0);
        if let Some(i) = clock.sample_at(k) {
            t.set(0, i, supply + 0.1 * rng.normal());
            t.set(1, i, ret + 0.1 * rng.normal());
            t.set(2, i, speed + 0.5 * rng.normal());
        }
    }
    t
}

/// The healthy units alone: `HP__healthy` (air-source), `WSHP__two_stage` (water-source, two
/// stages) and the loop it rejects to, `LOOP__healthy`; for the plant-year benchmark.
pub fn healthy(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let hp = simulate_room(&[HEALTHY], w, clock, seed, "HP__healthy").remove(0);
    let (staged, load) = simulate_staged(0.3, 10.0, w, clock, seed, "WSHP__two_stage");
    let source = simulate_loop(&load, false, clock, seed, "LOOP__healthy");
    vec![
        Unit { equip: "HP__healthy".into(), class: "HEAT_PUMP", scenario: "healthy", label: "", table: hp },
        Unit { equip: "WSHP__two_stage".into(), class: "HEAT_PUMP", scenario: "two_stage", label: "", table: staged },
        Unit { equip: "LOOP__healthy".into(), class: "SOURCE_LOOP", scenario: "healthy", label: "", table: source },
    ]
}

/// Build the heat-pump dataset's units.
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let mut out = Vec::new();
    let singles: [(&'static str, HpCfg, &'static str); 5] = [
        ("healthy", HEALTHY, ""),
        ("excess_defrost", (HpCfg { defrost_every: 12.0, frost_only: false, ..HEALTHY }), "excess_defrost"),
        ("wrong_mode", (HpCfg { stuck_cooling: true, ..HEALTHY }), "wrong_mode"),
        ("capacity_shortfall", (HpCfg { capacity: 0.3, ..HEALTHY }), "capacity_shortfall"),
        ("near_miss", (HpCfg { defrost_every: 50.0, ..HEALTHY }), ""),
    ];
    for (sc, cfg, label) in singles {
        let mut t = simulate_room(&[cfg], w, clock, seed, &format!("HP__{sc}"));
        out.push(Unit { equip: format!("HP__{sc}"), class: "HEAT_PUMP", scenario: sc, label, table: t.remove(0) });
    }
    let fight = [HpCfg { heat_offset: 4.0, ..HEALTHY }, HpCfg { cool_offset: -6.0, ..HEALTHY }];
    for (j, table) in simulate_room(&fight, w, clock, seed, "ROOM__room_fight").into_iter().enumerate() {
        let equip = format!("HP{}__room_fight", ["A", "B"][j]);
        out.push(Unit { equip, class: "HEAT_PUMP", scenario: "room_fight", label: "room_fight", table });
    }
    let (staged, load) = simulate_staged(0.3, 10.0, w, clock, seed, "WSHP__two_stage");
    out.push(Unit {
        equip: "WSHP__two_stage".into(),
        class: "HEAT_PUMP",
        scenario: "two_stage",
        label: "",
        table: staged,
    });
    let (hunting, _) = simulate_staged(0.0, 0.0, w, clock, seed, "WSHP__stage_hunting");
    out.push(Unit {
        equip: "WSHP__stage_hunting".into(),
        class: "HEAT_PUMP",
        scenario: "stage_hunting",
        label: "stage_hunting",
        table: hunting,
    });
    out.push(Unit {
        equip: "LOOP__healthy".into(),
        class: "SOURCE_LOOP",
        scenario: "healthy",
        label: "",
        table: simulate_loop(&load, false, clock, seed, "LOOP__healthy"),
    });
    out.push(Unit {
        equip: "LOOP__flat_deltat".into(),
        class: "SOURCE_LOOP",
        scenario: "flat_deltat",
        label: "flat_loop_deltat",
        table: simulate_loop(&load, true, clock, seed, "LOOP__flat_deltat"),
    });
    out
}
