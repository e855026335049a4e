//! Central plants: a summer office's water-cooled chillers (their loops, condenser water and
//! refrigerant circuit simulated minute by minute from the building's cooling load and the
//! tower's wet bulb), its chilled-water distribution pump, and a winter hot-water plant (a
//! modulating boiler and its variable-speed pump). Each rule's fault is a change to that model
//! (a fouled condenser, a refrigerant leak, a leaking tower bypass, a setpoint held high); the
//! twin is the same plant, weather and noise with nothing wrong.

use super::kit::{window, Building, Case, DriftCase, Lab, Season, EVERY_STEP};
use camber_analytics::engine::Frame;
use camber_analytics::run::EquipFrame;
use serde_json::json;

/// Days a plant case runs (and a drift case's continuous run).
const DAYS: usize = 21;

/// R-134a saturation pressure (psig) at `t` °F (a Clausius-Clapeyron fit through 40 and 100 °F).
fn psat(t: f64) -> f64 {
    (13.488 - 4788.0 / (t + 459.67)).exp() - 14.7
}

/// A first-order lag of `x` with time constant `tau` minutes.
fn lag(x: &[f64], tau: f64) -> Vec<f64> {
    let a = 1.0 - (-1.0 / tau).exp();
    let mut y = x[0];
    x.iter()
        .map(|v| {
            y += a * (v - y);
            y
        })
        .collect()
}

/// What is wrong with a chiller (all zero when healthy).
#[derive(Clone, Copy, Default)]
struct Wear {
    /// Condenser tube fouling: the approach grows by this multiple of its clean value.
    cond_foul: f64,
    /// The share of the refrigerant charge lost to a leak.
    charge_lost: f64,
    /// The share of the design condenser-water flow lost (a clogged strainer).
    cw_flow_lost: f64,
    /// One of the two refrigerant circuits locked out on a safety (half the capacity).
    circuit_out: bool,
    /// The compressor's drive in bypass: constant speed, its part load on inlet vanes.
    vfd_bypass: bool,
    /// The share of the condenser water leaking through a tower bypass valve commanded shut.
    bypass_leak: f64,
}

/// A wear that grows over a run: none before day 7, all of `full` from day 14.
fn growing(full: Wear, m: usize) -> Wear {
    let k = ((m as f64 / 1440.0 - 7.0) / 7.0).clamp(0.0, 1.0);
    Wear {
        cond_foul: k * full.cond_foul,
        charge_lost: k * full.charge_lost,
        cw_flow_lost: k * full.cw_flow_lost,
        circuit_out: full.circuit_out && k >= 1.0,
        vfd_bypass: full.vfd_bypass && k >= 1.0,
        bypass_leak: k * full.bypass_leak,
    }
}

/// A summer office's cooling load (tons, per minute) for a plant of `rated` tons: people and
/// lights while occupied, the envelope on the lagged outdoor air, the sun, and red noise.
fn cooling_load(lab: &Lab, who: &str, rated: f64) -> Vec<f64> {
    let oat: Vec<f64> = (0..lab.minutes).map(|m| lab.oat(m)).collect();
    let envelope = lag(&oat, 120.0);
    let noise = lab.red(who, "load", 0.035 * rated, 40.0);
    let cloud = lab.red(who, "cloud", 0.25, 180.0);
    (0..lab.minutes)
        .map(|m| {
            let h = lab.hour(m);
            let internal = if lab.occupied(m) {
                0.33
            } else if lab.weekday(m) && (6.0..7.0).contains(&h) {
                0.15
            } else {
                0.07
            };
            let sun = 0.17 * (std::f64::consts::PI * (h - 6.0) / 14.0).sin().max(0.0) * (1.0 - cloud[m].abs());
            (rated * (internal + 0.012 * (envelope[m] - 65.0) + sun) + noise[m]).max(0.04 * rated)
        })
        .collect()
}

/// The occupied schedule a healthy chiller is enabled on: weekdays 6:00 to 18:00 (an hour's
/// pre-cool).
fn scheduled(lab: &Lab, m: usize) -> bool {
    lab.weekday(m) && (6.0..18.0).contains(&lab.hour(m))
}

/// One water-cooled chiller simulated minute by minute.
struct ChillerSim {
    status: Vec<f64>,
    kw: Vec<f64>,
    chws: Vec<f64>,
    chwr: Vec<f64>,
    chw_sp: Vec<f64>,
    flow: Vec<f64>,
    cws: Vec<f64>,
    cwr: Vec<f64>,
    /// The towers' leaving water, and the tower bypass valve's command (%).
    tower: Vec<f64>,
    valve: Vec<f64>,
    cond_app: Vec<f64>,
    evap_app: Vec<f64>,
    discharge: Vec<f64>,
    suction: Vec<f64>,
    subcool: Vec<f64>,
    superheat: Vec<f64>,
}

/// A `rated`-ton chiller with 2.4 gpm/ton of chilled water and 3 gpm/ton of condenser water,
/// carrying `load` while `enabled`, its supply setpoint reset 44-47 °F on load, the tower holding
/// 70 °F or as close as the wet bulb allows; `wear(minute)` its faults.
fn simulate_chiller(
    lab: &Lab,
    who: &str,
    rated: f64,
    load: &[f64],
    enabled: impl Fn(usize) -> bool,
    wear: impl Fn(usize) -> Wear,
) -> ChillerSim {
    let n = lab.minutes;
    let (chw_gpm, cw_gpm) = (2.4 * rated, 3.0 * rated);
    let wb_noise = lab.red("site", "wet bulb", 1.0, 180.0);
    let hunt = lab.red(who, "exv hunting", 1.0, 6.0);
    let plr_slow = lag(&load.iter().map(|q| q / rated).collect::<Vec<_>>(), 30.0);
    let mut s = ChillerSim {
        status: vec![0.0; n],
        kw: vec![0.0; n],
        chws: vec![0.0; n],
        chwr: vec![0.0; n],
        chw_sp: vec![0.0; n],
        flow: vec![0.0; n],
        cws: vec![0.0; n],
        cwr: vec![0.0; n],
        tower: vec![0.0; n],
        valve: vec![0.0; n],
        cond_app: vec![0.0; n],
        evap_app: vec![0.0; n],
        discharge: vec![0.0; n],
        suction: vec![0.0; n],
        subcool: vec![0.0; n],
        superheat: vec![0.0; n],
    };
    let (mut chws, mut cws, mut tower, mut kw, mut on_for, mut sp) = (60.0, 78.0, 78.0, 0.0, 0usize, 44.0);
    for m in 0..n {
        let w = wear(m);
        let oat = lab.oat(m);
        let wb = 0.55 * oat + 28.0 + wb_noise[m];
        // the reset: re-read every 15 minutes from the loop's load (its valves' requests)
        if m % 15 == 0 {
            sp = ((47.0 - 3.0 * ((plr_slow[m] - 0.35) / 0.4).clamp(0.0, 1.0)) * 10.0).round() / 10.0;
        }
        s.chw_sp[m] = sp;
        if enabled(m) {
            on_for += 1;
            let cw_flow = cw_gpm * (1.0 - w.cw_flow_lost);
            // the loop and the building warmed while it was off: a pull-down after each start
            let pulldown = 0.25 * rated * (-(on_for as f64) / 40.0).exp();
            let want = load[m] + pulldown;
            let cap = rated
                * (1.0 - 0.006 * (cws - 85.0))
                * (1.0 - 0.5 * w.charge_lost)
                * if w.circuit_out { 0.5 } else { 1.0 };
            let tons = want.min(cap);
            // short of capacity, the loop warms until the coils (against a 75 °F space) take
            // only what the chiller makes
            let target = if want > cap { 75.0 - cap / want * (75.0 - sp) } else { sp };
            chws += (target - chws) * (1.0 - (-1.0 / 5.0f64).exp());
            let plr = tons / rated;
            let qrej = tons + kw / 3.517;
            // the tower's fans hold 70 °F leaving water where the wet bulb allows; below that the
            // bypass valve modulates open
            let raw = wb + 2.5 + 6.0 * qrej / (1.25 * rated);
            tower += (raw.max(70.0) - tower) * (1.0 - (-1.0 / 10.0f64).exp());
            let valve = ((70.5 - raw) * 30.0).clamp(0.0, 100.0);
            let range = qrej * 24.0 / cw_flow;
            // a leak through the shut bypass mixes condenser return into the entering water
            let leak = if valve <= 2.0 { w.bypass_leak } else { 0.0 };
            cws = tower + leak / (1.0 - leak) * range;
            let cwr = cws + range;
            let evap_app = (0.5 + 1.8 * plr) * (1.0 + 7.5 * w.charge_lost);
            let cond_app = (1.0 + 3.0 * plr) * (1.0 + w.cond_foul);
            let (tevap, tcond) = (chws - evap_app, cwr + cond_app);
            let mut eta = 0.70 - 0.30 * (plr - 0.8).powi(2);
            if w.vfd_bypass {
                eta *= 0.5 + 0.5 * plr.min(1.0);
            }
            let cop = eta * (tevap + 459.67) / (tcond - tevap);
            kw = tons * 3.517 / cop;
            s.status[m] = 1.0;
            s.kw[m] = kw;
            s.chws[m] = chws;
            s.chwr[m] = chws + tons * 24.0 / chw_gpm;
            s.flow[m] = chw_gpm;
            s.cws[m] = cws;
            s.tower[m] = tower;
            s.valve[m] = valve;
            s.cwr[m] = cwr;
            s.cond_app[m] = cond_app;
            s.evap_app[m] = evap_app;
            s.discharge[m] = psat(tcond + 1.0);
            s.suction[m] = psat(tevap) - 0.8;
            s.subcool[m] = (7.0 + 3.0 * plr) * (1.0 - 2.5 * w.charge_lost);
            s.superheat[m] = 8.0 + 2.0 * plr + 30.0 * w.charge_lost + hunt[m];
        } else {
            // stopped: pumps off, the water in the barrels drifts toward the plant room
            on_for = 0;
            kw = 0.0;
            let room = 72.0 + 0.15 * (oat - 75.0);
            chws += (room - chws) * (1.0 - (-1.0 / 120.0f64).exp());
            tower += (wb + 3.0 - tower) * (1.0 - (-1.0 / 120.0f64).exp());
            cws = tower;
            s.tower[m] = tower;
            s.valve[m] = 0.0;
            s.kw[m] = 3.0;
            s.chws[m] = chws;
            s.chwr[m] = chws + 0.4;
            s.cws[m] = cws;
            s.cwr[m] = cws + 0.3;
            s.cond_app[m] = 0.4;
            s.evap_app[m] = 0.3;
            let p = psat(0.5 * (chws + cws));
            s.discharge[m] = p + 1.0;
            s.suction[m] = p - 1.0;
            s.subcool[m] = 0.5;
            s.superheat[m] = 0.5;
        }
    }
    s
}

/// A chiller's logged frame: every point its controller and the plant's sensors trend.
fn chiller_unit(lab: &Lab, equip: &str, s: &ChillerSim) -> EquipFrame {
    let who = equip;
    let col = |what: &str, sd: f64, v: &[f64]| lab.at(who, what, sd, |m| v[m]);
    let flow = lab.at(who, "chw_flow", 0.0, |m| s.flow[m]);
    let flow_noise = lab.at(who, "chw_flow noise", 1.0, |_| 0.0);
    let flow: Vec<f64> = flow.iter().zip(&flow_noise).map(|(f, e)| (f * (1.0 + 0.01 * e)).max(0.0)).collect();
    let kw = lab.at(who, "power", 0.0, |m| s.kw[m]);
    let kw_noise = lab.at(who, "power noise", 1.0, |_| 0.0);
    let kw: Vec<f64> = kw.iter().zip(&kw_noise).map(|(p, e)| p * (1.0 + 0.01 * e) + 0.2 * e).collect();
    lab.unit(
        equip,
        "CHILLER",
        vec![
            ("compressor_status", lab.keep(&s.status)),
            ("power", kw),
            ("chw_flow", flow),
            ("chw_supply_temp", col("chw_supply_temp", 0.15, &s.chws)),
            ("chw_return_temp", col("chw_return_temp", 0.15, &s.chwr)),
            ("chw_supply_temp_sp", lab.keep(&s.chw_sp)),
            ("cw_supply_temp", col("cw_supply_temp", 0.15, &s.cws)),
            ("cw_return_temp", col("cw_return_temp", 0.15, &s.cwr)),
            ("cond_approach_temp", col("cond_approach_temp", 0.2, &s.cond_app)),
            ("evap_approach_temp", col("evap_approach_temp", 0.2, &s.evap_app)),
            ("discharge_pressure", col("discharge_pressure", 0.5, &s.discharge)),
            ("suction_pressure", col("suction_pressure", 0.4, &s.suction)),
            ("subcooling_temp", col("subcooling_temp", 0.4, &s.subcool)),
            ("superheat_temp", col("superheat_temp", 0.4, &s.superheat)),
            ("oat", col("oat", 0.3, &(0..lab.minutes).map(|m| lab.oat(m)).collect::<Vec<_>>())),
        ],
    )
}

/// A 350-ton chiller alone on a summer office's load for three weeks, on its schedule, with
/// `wear` (a function of the minute) when `faulty`.
fn lone_chiller(name: &'static str, step: usize, faulty: bool, wear: fn(usize) -> Wear) -> EquipFrame {
    let lab = Lab::new(name, Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 350.0);
    let s = simulate_chiller(
        &lab,
        "CH-1",
        350.0,
        &load,
        |m| scheduled(&lab, m),
        |m| {
            if faulty {
                wear(m)
            } else {
                Wear::default()
            }
        },
    );
    chiller_unit(&lab, "CH-1", &s)
}

/// `chiller_approach_fouling`: the condenser's tubes scaled, its approach 2.8 times its clean
/// value (about 8 °F at the usual load against a 5 °F design).
fn approach_fouling(step: usize, faulty: bool) -> Building {
    Building::one(lone_chiller("plant-approach", step, faulty, |_| Wear { cond_foul: 1.8, ..Wear::default() }))
}

/// What degrades `chiller_efficiency`'s chiller and `chiller_efficiency_peers`' CH-2: the drive
/// left in bypass (constant speed, part load on the inlet vanes) and scaled condenser tubes.
const INEFFICIENT: Wear = Wear {
    cond_foul: 1.8,
    charge_lost: 0.0,
    cw_flow_lost: 0.0,
    circuit_out: false,
    vfd_bypass: true,
    bypass_leak: 0.0,
};

/// `chiller_efficiency`: [`INEFFICIENT`], against the 0.50 kW/ton the chiller's selection gives
/// at the part loads it runs.
fn efficiency(step: usize, faulty: bool) -> Building {
    Building::one(lone_chiller("plant-efficiency", step, faulty, |_| INEFFICIENT))
        .with_params(json!({"design_kw_per_ton": 0.50}))
}

/// `chiller_efficiency_peers`: three like 350-ton chillers sharing a 1050-ton plant's load in
/// parallel, CH-2 [`INEFFICIENT`].
fn efficiency_peers(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("plant-peers", Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 1050.0);
    let units = ["CH-1", "CH-2", "CH-3"]
        .iter()
        .map(|&who| {
            // the valves and balancing leave each a slightly different share
            let imbalance = lab.red(who, "share", 0.03, 240.0);
            let share: Vec<f64> = load.iter().zip(&imbalance).map(|(q, e)| q / 3.0 * (1.0 + e)).collect();
            let bad = faulty && who == "CH-2";
            let s = simulate_chiller(
                &lab,
                who,
                350.0,
                &share,
                |m| scheduled(&lab, m),
                |_| {
                    if bad {
                        INEFFICIENT
                    } else {
                        Wear::default()
                    }
                },
            );
            chiller_unit(&lab, who, &s)
        })
        .collect();
    Building::many(units, "CH-2")
}

/// `chiller_staging`: the chiller's enable left on through nights and weekends (its schedule
/// overridden), carrying the building's night load of a fifth of its peak; the twin runs its
/// occupied schedule.
fn staging(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("plant-staging", Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 350.0);
    let s = simulate_chiller(&lab, "CH-1", 350.0, &load, |m| faulty || scheduled(&lab, m), |_| Wear::default());
    Building::one(chiller_unit(&lab, "CH-1", &s))
}

/// `chw_supply_tracking`: one of the chiller's two refrigerant circuits locked out on a safety,
/// so on most occupied afternoons the loop warms above its setpoint.
fn supply_tracking(step: usize, faulty: bool) -> Building {
    Building::one(lone_chiller("plant-tracking", step, faulty, |_| Wear { circuit_out: true, ..Wear::default() }))
}

/// `condenser_bypass_leak`: the condenser-water plant (the towers' leaving water, the bypass
/// valve, the chiller's entering and leaving condenser water) with a quarter of the flow leaking
/// through the bypass valve commanded shut.
fn bypass_leak(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("plant-bypass", Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 350.0);
    let leak = if faulty { 0.25 } else { 0.0 };
    let s = simulate_chiller(
        &lab,
        "CH-1",
        350.0,
        &load,
        |m| scheduled(&lab, m),
        |_| Wear { bypass_leak: leak, ..Wear::default() },
    );
    let who = "CW-1";
    // the valve's command as the controller writes it, the temperatures from their sensors (the
    // entering-water sensor reads 0.3 °F warm, within its accuracy)
    let cols = vec![
        ("compressor_status", lab.keep(&s.status)),
        ("cw_bypass_valve", lab.keep(&s.valve.iter().map(|v| (v * 10.0).round() / 10.0).collect::<Vec<_>>())),
        ("cw_supply_temp", lab.at(who, "cw_supply_temp", 0.2, |m| s.tower[m])),
        ("cond_entering_water_temp", lab.at(who, "cond_entering_water_temp", 0.2, |m| s.cws[m] + 0.3)),
        ("cw_return_temp", lab.at(who, "cw_return_temp", 0.2, |m| s.cwr[m])),
    ];
    Building::one(lab.unit(who, "CONDENSERWATER", cols))
}

/// A variable-speed pump's speed (%) holding `sp_psi` at its remote sensor with the loop flowing
/// `x` of design: 100 ft shutoff head, 20 ft lost in the pump and 40 ft in the piping at design
/// flow; the drive's floor is 30 %.
fn pump_speed(sp_psi: f64, x: f64) -> f64 {
    (100.0 * ((2.31 * sp_psi + 60.0 * x * x) / 100.0).sqrt()).clamp(30.0, 100.0)
}

/// A trim-and-respond differential-pressure setpoint (psi) between `lo` and `hi` on the loop's
/// flow share `x`, re-read every 5 minutes.
fn reset_sp(x: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    let slow = lag(x, 20.0);
    let mut sp = lo;
    (0..x.len())
        .map(|m| {
            if m % 5 == 0 {
                sp = ((lo + (hi - lo) * ((slow[m] - 0.3) / 0.6).clamp(0.0, 1.0)) * 10.0).round() / 10.0;
            }
            sp
        })
        .collect()
}

/// A pump's frame: its run status, its speed (the drive's output, a loop that hunts a little) and
/// its setpoint, `held` psi when the reset is overridden.
fn pump_unit(
    lab: &Lab,
    equip: &str,
    class: &str,
    roles: [&str; 2],
    on: &[bool],
    x: &[f64],
    held: Option<f64>,
) -> EquipFrame {
    let sp = match held {
        Some(h) => vec![h; x.len()],
        None => reset_sp(x, 5.0, 15.0),
    };
    let hunt = lab.red(equip, "speed loop", 1.2, 8.0);
    let speed: Vec<f64> = (0..lab.minutes)
        .map(|m| if on[m] { (pump_speed(sp[m], x[m]) + hunt[m]).clamp(30.0, 100.0) } else { 0.0 })
        .collect();
    let status: Vec<f64> = on.iter().map(|&o| f64::from(u8::from(o))).collect();
    lab.unit(
        equip,
        class,
        vec![
            ("pump_status", lab.keep(&status)),
            (roles[0], lab.keep(&speed.iter().map(|v| (v * 10.0).round() / 10.0).collect::<Vec<_>>())),
            (roles[1], lab.keep(&sp)),
        ],
    )
}

/// `chw_pump_dp_reset`: the office's chilled-water distribution pump with its reset overridden
/// and the setpoint held at 25 psi (raised from its 15 psi design after a hot-room complaint);
/// the twin resets 5-15 psi on the valves' demand.
fn chw_pump(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("plant-chw-pump", Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 350.0);
    let on: Vec<bool> = (0..lab.minutes).map(|m| scheduled(&lab, m)).collect();
    let x: Vec<f64> = load.iter().map(|q| (0.15 + 0.85 * (q / 350.0).clamp(0.0, 1.0).powf(0.9)).min(1.0)).collect();
    let held = faulty.then_some(25.0);
    Building::one(pump_unit(&lab, "CHWP-1", "CHWPUMP", ["chw_pump_speed", "chw_diff_press_sp"], &on, &x, held))
}

/// A winter office's heating: its load (kW, per minute) on a 1000 kW design, the supply-water
/// setpoint reset on the outdoor air, and the loop's flow share.
struct Heating {
    load: Vec<f64>,
    hws_sp: Vec<f64>,
    x: Vec<f64>,
}

fn heating(lab: &Lab) -> Heating {
    let oat: Vec<f64> = (0..lab.minutes).map(|m| lab.oat(m)).collect();
    let envelope = lag(&oat, 180.0);
    let noise = lab.red("building", "heat load", 25.0, 40.0);
    let load: Vec<f64> = (0..lab.minutes)
        .map(|m| {
            let h = lab.hour(m);
            let shell = (65.0 - envelope[m]) / 65.0;
            let q = if lab.occupied(m) {
                // ventilation while occupied, the morning warm-up from setback
                850.0 * shell + 100.0 + 250.0 * (-(h - 7.0) * 60.0 / 50.0).exp()
            } else {
                650.0 * shell
            };
            (q + noise[m]).max(40.0)
        })
        .collect();
    let hws_sp = oat.iter().map(|o| (180.0 - 0.75 * (o - 10.0)).clamp(150.0, 180.0).round()).collect();
    let x = load.iter().map(|q| (0.2 + 0.8 * (q / 1000.0).clamp(0.0, 1.0).powf(0.8)).min(1.0)).collect();
    Heating { load, hws_sp, x }
}

/// `hw_pump_dp_reset`: the hot-water pump (running all winter) with its setpoint held at 25 psi
/// and no reset; the twin resets 5-15 psi on the valves' demand.
fn hw_pump(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("plant-hw-pump", Season::Winter, DAYS, step);
    let h = heating(&lab);
    let on = vec![true; lab.minutes];
    let held = faulty.then_some(25.0);
    Building::one(pump_unit(&lab, "HWP-1", "HWPUMP", ["hw_pump_speed", "hw_diff_press_sp"], &on, &h.x, held))
}

/// The cases of this module's rules.
pub fn cases() -> Vec<Case> {
    vec![
        Case { rule: "chiller_approach_fouling", steps: EVERY_STEP, build: approach_fouling },
        Case { rule: "chiller_efficiency", steps: EVERY_STEP, build: efficiency },
        Case { rule: "chiller_efficiency_peers", steps: EVERY_STEP, build: efficiency_peers },
        Case { rule: "chiller_staging", steps: EVERY_STEP, build: staging },
        Case { rule: "chw_pump_dp_reset", steps: EVERY_STEP, build: chw_pump },
        Case { rule: "chw_supply_tracking", steps: EVERY_STEP, build: supply_tracking },
        Case { rule: "condenser_bypass_leak", steps: EVERY_STEP, build: bypass_leak },
        Case { rule: "hw_pump_dp_reset", steps: EVERY_STEP, build: hw_pump },
    ]
}

/// A drifting chiller's first week against its third (the wear grows through the second).
fn chiller_drift(name: &'static str, step: usize, faulty: bool, full: Wear) -> (Frame, Frame) {
    let lab = Lab::new(name, Season::Summer, DAYS, step);
    let load = cooling_load(&lab, "building", 350.0);
    let s = simulate_chiller(
        &lab,
        "CH-1",
        350.0,
        &load,
        |m| scheduled(&lab, m),
        |m| {
            if faulty {
                growing(full, m)
            } else {
                Wear::default()
            }
        },
    );
    let f = chiller_unit(&lab, "CH-1", &s).frame;
    (window(&f, 0, 7), window(&f, 14, 21))
}

/// Scale building up in the condenser's tubes (the approach grows by its clean value).
const FOULING: Wear = Wear {
    cond_foul: 1.0,
    charge_lost: 0.0,
    cw_flow_lost: 0.0,
    circuit_out: false,
    vfd_bypass: false,
    bypass_leak: 0.0,
};
/// A refrigerant leak losing a fifth of the charge.
const LEAK: Wear = Wear {
    cond_foul: 0.0,
    charge_lost: 0.2,
    cw_flow_lost: 0.0,
    circuit_out: false,
    vfd_bypass: false,
    bypass_leak: 0.0,
};
/// The condenser-water strainer clogging, a quarter of the flow lost.
const STRAINER: Wear = Wear {
    cond_foul: 0.0,
    charge_lost: 0.0,
    cw_flow_lost: 0.25,
    circuit_out: false,
    vfd_bypass: false,
    bypass_leak: 0.0,
};

/// The hot-water plant's boiler through three winter weeks, its fire side sooting through the
/// second (seven efficiency points lost) when `faulty`: its first week against its third.
fn boiler_drift(step: usize, faulty: bool) -> (Frame, Frame) {
    let lab = Lab::new("drift-boiler", Season::Winter, DAYS, step);
    let h = heating(&lab);
    let who = "B-1";
    let hws = lab.red(who, "supply control", 0.8, 15.0);
    let oat: Vec<f64> = (0..lab.minutes).map(|m| lab.oat(m)).collect();
    let n = lab.minutes;
    let (mut sup, mut ret, mut flow, mut gas) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for m in 0..n {
        let lf = h.load[m] / 1000.0;
        flow[m] = 227.0 * h.x[m];
        sup[m] = h.hws_sp[m] + hws[m];
        ret[m] = sup[m] - h.load[m] * 3412.0 / (500.0 * flow[m]);
        let soot = if faulty { 0.07 * ((m as f64 / 1440.0 - 7.0) / 7.0).clamp(0.0, 1.0) } else { 0.0 };
        let eff = 0.85 - 0.0012 * (ret[m] - 140.0) - 0.03 * (1.0 - lf).powi(2) - soot;
        gas[m] = h.load[m] / eff;
    }
    let gas_noise = lab.at(who, "gas noise", 1.0, |_| 0.0);
    let f = lab
        .unit(
            who,
            "BOILER",
            vec![
                ("boiler_status", lab.keep(&vec![1.0; n])),
                ("gas_input_rate", lab.keep(&gas).iter().zip(&gas_noise).map(|(g, e)| g * (1.0 + 0.015 * e)).collect()),
                ("hw_supply_temp", lab.at(who, "hw_supply_temp", 0.3, |m| sup[m])),
                ("hw_return_temp", lab.at(who, "hw_return_temp", 0.3, |m| ret[m])),
                ("hw_flow", lab.at(who, "hw_flow", 2.0, |m| flow[m])),
                ("oat", lab.at(who, "oat", 0.3, |m| oat[m])),
            ],
        )
        .frame;
    (window(&f, 0, 7), window(&f, 14, 21))
}

/// The cases of this module's drift detectors.
pub fn drift_cases() -> Vec<DriftCase> {
    vec![
        DriftCase {
            detector: "chiller_approach_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-approach", step, faulty, Wear { cond_foul: 0.6, ..FOULING }),
        },
        DriftCase {
            detector: "chiller_cw_range_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-cw-range", step, faulty, STRAINER),
        },
        DriftCase {
            detector: "chiller_head_pressure_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-head", step, faulty, FOULING),
        },
        DriftCase {
            detector: "chiller_subcooling_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-subcooling", step, faulty, LEAK),
        },
        DriftCase {
            detector: "chiller_superheat_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-superheat", step, faulty, LEAK),
        },
        DriftCase {
            detector: "chiller_suction_pressure_drift",
            steps: EVERY_STEP,
            build: |step, faulty| chiller_drift("drift-suction", step, faulty, LEAK),
        },
        DriftCase { detector: "boiler_efficiency_drift", steps: EVERY_STEP, build: boiler_drift },
    ]
}
