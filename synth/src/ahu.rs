//! An economizer air handler: outdoor/return mixing box, heating and cooling coils, a supply
//! fan, one split-range PI loop on supply-air temperature, and a building that floats when
//! the fan is off.

use crate::common::{lag, occupied, Clock, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Roles in the order the table stores them.
pub const ROLES: [&str; 15] = [
    "oat",
    "outdoor_rh",
    "return_air_temp",
    "mixed_air_temp",
    "supply_air_temp",
    "supply_air_temp_sp",
    "oa_damper",
    "cool_valve",
    "heat_valve",
    "supply_fan_status",
    "supply_fan_speed",
    "duct_static",
    "duct_static_sp",
    "airflow",
    "occupancy",
];
const OAT: usize = 0;
const RH: usize = 1;
const RAT: usize = 2;
const MAT: usize = 3;
const SAT: usize = 4;
const SATSP: usize = 5;
const OAD: usize = 6;
const CLG: usize = 7;
const HTG: usize = 8;
const FAN: usize = 9;
const SPD: usize = 10;
const DSP: usize = 11;
const DSPSP: usize = 12;
const CFM: usize = 13;
const OCC: usize = 14;

/// How the outdoor-air damper is driven.
#[derive(Clone, Copy, Debug)]
pub enum Econ {
    /// Integrated economizer enabled below a dry-bulb high limit (°F).
    HighLimit(f64),
    /// Economizer never enabled: damper held at minimum outdoor air.
    Lockout,
    /// Damper mechanically stuck at this position (%), whatever the command.
    Stuck(f64),
}

/// One air handler's configuration; the healthy unit is `AhuCfg::default()`.
#[derive(Clone, Debug)]
pub struct AhuCfg {
    /// Economizer behaviour.
    pub econ: Econ,
    /// Minimum outdoor-air damper position while occupied, %.
    pub min_oa: f64,
    /// Cooling valve leakage expressed as an equivalent valve opening, %.
    pub leak: f64,
    /// Heating valve held at least this open while occupied, %.
    pub heat_floor: f64,
    /// Hours after the occupied start during which the heat floor applies (24 = all day).
    pub heat_floor_hours: f64,
    /// Offset added by the supply-air temperature sensor, °F (the loop controls on it).
    pub sat_bias: f64,
    /// The fan runs around the clock.
    pub always_on: bool,
    /// Minutes the fan starts before occupancy and runs after it.
    pub extend_min: f64,
    /// Design supply airflow, cfm.
    pub design_cfm: f64,
    /// Growth of the cooling valve's leakage (% of equivalent opening per day) after
    /// `leak_from_day`: a valve seat wearing over the weeks.
    pub leak_per_day: f64,
    /// Day of the span (from its first sample) the leakage starts to grow.
    pub leak_from_day: f64,
}

impl Default for AhuCfg {
    fn default() -> Self {
        AhuCfg {
            econ: Econ::HighLimit(65.0),
            min_oa: 20.0,
            leak: 0.0,
            heat_floor: 0.0,
            heat_floor_hours: 24.0,
            sat_bias: 0.0,
            always_on: false,
            extend_min: 0.0,
            design_cfm: 12_000.0,
            leak_per_day: 0.0,
            leak_from_day: 0.0,
        }
    }
}

/// Leaving-air temperature of a chilled-water coil with 44 °F water at valve opening `v` (%).
#[inline]
fn cooling_coil(t_in: f64, v: f64) -> f64 {
    if v <= 0.0 || t_in <= 44.0 {
        return t_in;
    }
    let g = (1.0 - (-3.0 * v / 100.0).exp()) / (1.0 - (-3.0f64).exp());
    t_in - (t_in - 44.0) * 0.9 * g
}

/// The cooling valve's leakage (% of equivalent opening) at simulated minute `k`: the fixed
/// leak, plus its growth since `leak_from_day` (none during the spin-up).
#[inline]
fn leak_at(cfg: &AhuCfg, clock: &Clock, k: usize) -> f64 {
    if cfg.leak_per_day == 0.0 {
        return cfg.leak;
    }
    let day = (k as f64 - clock.spin as f64) / 1440.0;
    cfg.leak + cfg.leak_per_day * (day - cfg.leak_from_day).max(0.0)
}

/// Simulate one air handler and return its sampled points.
pub fn simulate(cfg: &AhuCfg, w: &Weather, clock: &Clock, seed: u64, equip: &str) -> Table {
    let mut t = Table::new(&ROLES, clock.n);
    let mut rng = Rng::stream(seed, equip, "noise");
    let mut static_noise = Ar1::new(0.03, 20.0, clock.step as f64, &mut rng);
    let mut static_sp = 1.5;
    let mut load_noise = Ar1::new(0.06, 90.0, 1.0, &mut rng);
    let occ_gain = 0.85 + 0.3 * rng.uniform();

    let (mut bldg, mut ra, mut mat, mut sat) = (70.0f64, 70.0f64, 70.0f64, 70.0f64);
    let mut s = 0.0f64; // split-range loop output: heat < 0 <= econ <= 100 < cool (econ on)
    let mut e_prev = 0.0f64;
    let mut econ_on = false;
    let (mut damper, mut clg, mut htg) = (0.0f64, 0.0f64, 0.0f64);
    let (a_bldg_on, a_bldg_off, a_duct, a_sat, a_act) = (lag(60.0), lag(480.0), lag(25.0), lag(2.0), lag(1.5));
    let (kp, ki) = (3.0, 0.8);

    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let occ = occupied(wd, hour);
        let ext = cfg.extend_min / 60.0;
        let fan = cfg.always_on || occ || (cfg.extend_min > 0.0 && wd < 5 && hour >= 6.0 - ext && hour < 18.0 + ext);
        let oat = w.oat[k];
        let solar = w.solar(k, 13.0);
        let ln = load_noise.step(&mut rng);
        let internal = if occ { occ_gain } else { 0.15 };
        let load = (0.12 + 0.45 * internal + 0.016 * (oat - 60.0) + 0.3 * solar + ln).clamp(0.05, 1.0);
        let sp = 55.0 + 5.0 * ((65.0 - oat) / 15.0).clamp(0.0, 1.0);

        let (cfm, speed);
        if fan {
            bldg += (72.0 + 0.04 * (oat - 65.0) + 1.5 * (load - 0.5) - bldg) * a_bldg_on;
            ra = bldg + 0.8 + 1.2 * load;
            if let Econ::HighLimit(hl) = cfg.econ {
                if econ_on && oat > hl + 1.0 {
                    econ_on = false;
                    s = if s > 100.0 { s - 100.0 } else { s.min(0.0) };
                } else if !econ_on && oat < hl - 1.0 {
                    econ_on = true;
                    if s > 0.0 {
                        s += 100.0;
                    }
                }
            }
            let meas = sat + cfg.sat_bias;
            let e = meas - sp;
            s += kp * (e - e_prev) + ki * e;
            e_prev = e;
            let hi = if econ_on { 200.0 } else { 100.0 };
            s = s.clamp(-100.0, hi);
            let (d_cmd, c_cmd, mut h_cmd) = if econ_on {
                (
                    cfg.min_oa + (100.0 - cfg.min_oa) * s.clamp(0.0, 100.0) / 100.0,
                    (s - 100.0).clamp(0.0, 100.0),
                    (-s).max(0.0),
                )
            } else {
                (cfg.min_oa, s.clamp(0.0, 100.0), (-s).max(0.0))
            };
            if occ && cfg.heat_floor > 0.0 && hour < 6.0 + cfg.heat_floor_hours {
                h_cmd = h_cmd.max(cfg.heat_floor);
            }
            let d_cmd = match cfg.econ {
                Econ::Stuck(p) => p,
                _ => d_cmd,
            };
            damper += (d_cmd - damper) * a_act;
            clg += (c_cmd - clg) * a_act;
            htg += (h_cmd - htg) * a_act;
            let f = (0.03 + 0.97 * damper / 100.0).min(1.0);
            mat = f * oat + (1.0 - f) * ra;
            let t_heat = mat + 42.0 * htg / 100.0;
            let t_cool = cooling_coil(t_heat, clg.max(leak_at(cfg, clock, k)));
            sat += (t_cool + 1.0 - sat) * a_sat;
            cfm = cfg.design_cfm * (0.35 + 0.6 * load).min(1.0);
            speed = (8.0 + 92.0 * cfm / cfg.design_cfm).clamp(20.0, 100.0);
        } else {
            // Fan off: the building floats, ducts settle toward it, the loop restarts from zero.
            let target = 0.3 * oat + 0.7 * 68.0 + 3.0 * solar;
            bldg += (target - bldg) * a_bldg_off;
            ra += (bldg - ra) * a_duct;
            let duct = 0.85 * bldg + 0.15 * oat;
            mat += (duct - mat) * a_duct;
            sat += (duct - sat) * a_duct;
            s = 0.0;
            e_prev = 0.0;
            clg = 0.0;
            htg = 0.0;
            damper = match cfg.econ {
                Econ::Stuck(p) => p,
                _ => 0.0,
            };
            cfm = 0.0;
            speed = 0.0;
        }

        if let Some(i) = clock.sample_at(k) {
            let n = |r: &mut Rng, sd: f64| sd * r.normal();
            t.set(OAT, i, oat + n(&mut rng, 0.3));
            t.set(RH, i, (w.rh[k] + n(&mut rng, 1.5)).clamp(0.0, 100.0));
            t.set(RAT, i, ra + n(&mut rng, 0.25));
            t.set(MAT, i, mat + n(&mut rng, 0.35));
            t.set(SAT, i, sat + cfg.sat_bias + n(&mut rng, 0.2));
            t.set(SATSP, i, sp);
            t.set(OAD, i, damper);
            t.set(CLG, i, clg);
            t.set(HTG, i, htg);
            t.set(FAN, i, if fan { 1.0 } else { 0.0 });
            t.set(SPD, i, speed);
            let sn = static_noise.step(&mut rng);
            // the duct static setpoint is reset with the airflow the boxes ask for (in 0.05 in.
            // w.c. steps, held while the fan is off)
            if fan {
                static_sp = ((0.6 + 0.9 * cfm / cfg.design_cfm).clamp(0.6, 1.5) * 20.0).round() / 20.0;
            }
            t.set(DSP, i, if fan { static_sp + sn } else { 0.2 * sn.abs() });
            t.set(DSPSP, i, static_sp);
            t.set(CFM, i, if fan { cfm * (1.0 + 0.02 * rng.normal()) } else { 0.0 });
            t.set(OCC, i, if occ { 1.0 } else { 0.0 });
        }
    }
    t
}

/// The economizer dataset's scenarios: (scenario, label, configuration).
pub fn scenarios() -> Vec<(&'static str, &'static str, AhuCfg)> {
    let d = AhuCfg::default;
    vec![
        ("healthy", "", d()),
        ("econ_lockout", "econ_lockout", AhuCfg { econ: Econ::Lockout, ..d() }),
        ("stuck_oa_damper", "stuck_oa_damper", AhuCfg { econ: Econ::Stuck(35.0), ..d() }),
        ("leaking_cool_valve", "leaking_cool_valve", AhuCfg { leak: 25.0, ..d() }),
        ("simultaneous_heat_cool", "simultaneous_heat_cool", AhuCfg { heat_floor: 45.0, ..d() }),
        ("sat_sensor_bias", "sat_sensor_bias", AhuCfg { sat_bias: 3.0, ..d() }),
        ("night_weekend_operation", "night_weekend_operation", AhuCfg { always_on: true, ..d() }),
        (
            "near_miss",
            "",
            AhuCfg {
                econ: Econ::HighLimit(58.0),
                min_oa: 15.0,
                leak: 3.0,
                heat_floor: 2.0,
                heat_floor_hours: 1.0,
                sat_bias: 0.7,
                extend_min: 60.0,
                ..d()
            },
        ),
    ]
}

/// Build the economizer dataset's units.
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    scenarios()
        .into_iter()
        .map(|(sc, label, cfg)| {
            let equip = format!("AHU__{sc}");
            let table = simulate(&cfg, w, clock, seed, &equip);
            Unit { equip, class: "AHU", scenario: sc, label, table }
        })
        .collect()
}

/// The leak-drift dataset's two units: a healthy air handler and its twin whose cooling valve
/// starts to pass water after two weeks and passes more every day.
pub fn build_leak_drift(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    // eight spring weeks reach cooling weather, so both units take the minimum outdoor air a
    // tuned unit does there: a fraction (the damper's 17 % plus the box's leakage: 19.5 %) at the
    // generic 20 % design minimum rather than above it
    let base = AhuCfg { min_oa: 17.0, ..AhuCfg::default() };
    let grow = AhuCfg { leak_per_day: LEAK_PER_DAY, leak_from_day: LEAK_FROM_DAY, ..base };
    [("healthy", "", base), ("growing_cool_leak", "growing_cool_valve_leak", grow)]
        .into_iter()
        .map(|(sc, label, cfg)| {
            let equip = format!("AHU__{sc}");
            let table = simulate(&cfg, w, clock, seed, &equip);
            Unit { equip, class: "AHU", scenario: sc, label, table }
        })
        .collect()
}

/// The growing leak: from day 14 of the span, 0.5 % of equivalent valve opening more each day.
pub const LEAK_FROM_DAY: f64 = 14.0;
/// See [`LEAK_FROM_DAY`].
pub const LEAK_PER_DAY: f64 = 0.5;
