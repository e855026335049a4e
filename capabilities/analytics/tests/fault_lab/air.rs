//! Air-side cases: a variable-air-volume air handler simulated minute by minute (a weather- and
//! occupancy-driven cooling load, VAV airflow, a mixing box with a minimum outdoor-air damper and
//! a dry-bulb economizer, a supply-air loop on a chilled-water and a hot-water coil, a duct
//! static-pressure loop on trim and respond, a loading filter and the return air's CO2), and a
//! packaged DX unit for the refrigerant-side rules. Each case changes one thing in the model (a
//! damper stuck, a reset missing, a lockout that does not lock out) against the same unit
//! healthy under the same weather and noise.

use super::kit::{Building, Case, Lab, Season, EVERY_STEP};

/// Design supply airflow of the simulated air handler (cfm).
const DESIGN_CFM: f64 = 12000.0;

/// How the simulated air handler is built and what is wrong with it.
#[derive(Clone, Copy)]
struct Ahu {
    /// Minimum outdoor-air damper position (%).
    min_oa: f64,
    /// The outdoor-air damper stuck at this position (%), whatever it is commanded.
    oa_stuck: Option<f64>,
    /// Economizer dry-bulb high limit (°F), and whether it also locks out above the return air.
    high_limit: f64,
    differential: bool,
    /// A fixed supply-air setpoint (°F) in place of Guideline 36's outdoor-air reset.
    sat_fixed: Option<f64>,
    /// A fixed duct static-pressure setpoint (in. w.c.) in place of trim and respond.
    static_fixed: Option<f64>,
    /// The filter's clean drop at design airflow and how much it adds over the record (in. w.c.).
    filter_clean: f64,
    filter_load: f64,
    /// Demand-controlled ventilation: the minimum outdoor air raised with CO2 from 700 to 1100 ppm.
    dcv: bool,
    /// Occupants' CO2 generation (ppm of rise at design outdoor airflow for a full house).
    co2_gen: f64,
    /// Share of the cooling coil's capacity that is left (1: healthy).
    coil_capacity: f64,
    /// The chilled-water valve stuck at this opening (%).
    cool_stuck: Option<f64>,
    /// Proportional gain multiplier on the supply-air loop's scatter (1: tuned).
    sat_gain: f64,
    /// The supply-air loop over-tuned: its chilled-water valve cycles ±18 % every 12 minutes or
    /// so, and the supply air swings with it.
    hunt: bool,
}

impl Ahu {
    /// A healthy unit: a 20 % minimum, a 65 °F high limit, G36's reset, trim and respond.
    fn healthy() -> Ahu {
        Ahu {
            min_oa: 20.0,
            oa_stuck: None,
            high_limit: 65.0,
            differential: true,
            sat_fixed: None,
            static_fixed: None,
            filter_clean: 0.45,
            filter_load: 0.04,
            dcv: false,
            co2_gen: 40.0,
            coil_capacity: 1.0,
            sat_gain: 1.0,
            cool_stuck: None,
            hunt: false,
        }
    }
}

/// The air handler's signals, one value a minute.
struct Sim {
    fan: Vec<f64>,
    occ: Vec<f64>,
    flow: Vec<f64>,
    speed: Vec<f64>,
    rat: Vec<f64>,
    mat: Vec<f64>,
    sat: Vec<f64>,
    sat_sp: Vec<f64>,
    damper: Vec<f64>,
    frac: Vec<f64>,
    econ: Vec<f64>,
    cool: Vec<f64>,
    heat: Vec<f64>,
    static_sp: Vec<f64>,
    static_p: Vec<f64>,
    filter: Vec<f64>,
    co2: Vec<f64>,
    /// The zones' supply-air reset requests (zones whose cooling loop is saturated).
    sat_req: Vec<f64>,
}

/// People in the building (share of a full house) at minute `m`.
fn people(lab: &Lab, m: usize) -> f64 {
    if !lab.occupied(m) {
        return 0.0;
    }
    let h = lab.hour(m);
    if h < 9.0 {
        (h - 7.0) / 2.0
    } else if (12.0..13.0).contains(&h) {
        0.75
    } else if h >= 16.0 {
        (18.0 - h) / 2.0
    } else {
        1.0
    }
}

/// Sunshine on the building (0 to 1) at minute `m`.
fn sun(lab: &Lab, m: usize) -> f64 {
    let h = lab.hour(m);
    (std::f64::consts::PI * (h - 6.0) / 13.0).sin().max(0.0)
}

/// The supply-air setpoint Guideline 36's outdoor-air reset asks for (°F) with T-max `t_max`.
fn g36_sat(oat: f64, t_max: f64) -> f64 {
    t_max - (t_max - 55.0) * ((oat - 60.0) / 10.0).clamp(0.0, 1.0)
}

/// Simulate the air handler `a` minute by minute over the lab's weather.
fn simulate(lab: &Lab, a: &Ahu) -> Sim {
    let n = lab.minutes;
    let who = "AHU-1";
    let load_noise = lab.red(who, "load", 0.05, 60.0);
    let people_noise = lab.red(who, "people", 0.08, 45.0);
    let rat_noise = lab.red(who, "rat", 0.3, 40.0);
    let sat_err = lab.red(who, "sat_loop", 0.3, 6.0);
    let valve_noise = lab.red(who, "valve", 1.2, 4.0);
    let damper_noise = lab.red(who, "damper", 0.3, 5.0);
    let static_noise = lab.red(who, "static", 0.025, 3.0);
    let mut req_rng = lab.rng(who, "requests");
    let mut box_rng = lab.rng(who, "box_requests");
    let period_noise = lab.red(who, "hunt_period", 1.5, 30.0);
    let mut phase = 0.0_f64;
    let mut s = Sim {
        fan: vec![0.0; n],
        occ: vec![0.0; n],
        flow: vec![0.0; n],
        speed: vec![0.0; n],
        rat: vec![0.0; n],
        mat: vec![0.0; n],
        sat: vec![0.0; n],
        sat_sp: vec![0.0; n],
        damper: vec![0.0; n],
        frac: vec![0.0; n],
        econ: vec![0.0; n],
        cool: vec![0.0; n],
        heat: vec![0.0; n],
        static_sp: vec![0.0; n],
        static_p: vec![0.0; n],
        filter: vec![0.0; n],
        co2: vec![0.0; n],
        sat_req: vec![0.0; n],
    };
    let (mut t_max, mut since_start, mut req) = (65.0_f64, 0usize, 0.0_f64);
    let (mut flow, mut damper, mut co2, mut sp, mut oat_f, mut sat) = (0.0, 0.0, 420.0, 1.0, lab.oat(0), 70.0);
    for m in 0..n {
        let oat = lab.oat(m);
        oat_f += (oat - oat_f) / 15.0; // the BAS's filtered outdoor air
        let h = lab.hour(m);
        let fan = lab.weekday(m) && (6.0..19.0).contains(&h);
        let p = people(lab, m) * (1.0 + people_noise[m]);
        let load = (0.12 + 0.35 * p + 0.25 * sun(lab, m) + 0.018 * (oat - 65.0) + load_noise[m]).max(0.0);
        let rat = 71.5 + 1.5 * load.min(1.5) + rat_noise[m] + if fan { 0.0 } else { -0.04 * (70.0 - oat) };
        // G36's supply-air reset: T-max by trim and respond on the zones' requests (every two
        // minutes from ten minutes after the fan starts), the setpoint on the outdoor-air map
        since_start = if fan { since_start + 1 } else { 0 };
        if !fan {
            t_max = 65.0;
        } else if since_start > 10 && m % 2 == 0 {
            t_max = (t_max + if req > 2.0 { (-0.3 * (req - 2.0)).max(-1.0) } else { 0.2 }).clamp(55.0, 65.0);
        }
        let sat_sp = a.sat_fixed.unwrap_or_else(|| g36_sat(oat_f, t_max));
        s.occ[m] = lab.occupied(m) as u8 as f64;
        s.rat[m] = rat;
        s.sat_sp[m] = sat_sp;
        if !fan {
            flow = 0.0;
            damper += (0.0 - damper) / 3.0;
            let d = a.oa_stuck.unwrap_or(damper);
            s.damper[m] = d;
            s.frac[m] = 0.0;
            s.mat[m] = rat - 0.02 * (rat - oat) * d / 100.0;
            sat += (rat - 0.5 - sat) / 30.0;
            s.sat[m] = sat;
            s.filter[m] = 0.0;
            s.static_p[m] = 0.0;
            s.static_sp[m] = sp;
            co2 += 0.25 * 0.03 * (415.0 - co2);
            s.co2[m] = co2;
            continue;
        }
        s.fan[m] = 1.0;
        let wanted = load * 18.0 / (73.5 - sat_sp);
        let target = wanted.clamp(0.35, 1.0);
        // zones starved at full airflow ask for colder supply air
        if m % 2 == 0 {
            req = ((wanted - 0.9) * 12.0 + 0.7 * req_rng.normal()).max(0.0).floor();
        }
        flow += (target - flow) / 5.0;
        // the mixing box: the minimum (raised by DCV), opened further to economize
        let mut min = a.min_oa;
        if a.dcv {
            min += 30.0 * ((co2 - 700.0) / 400.0).clamp(0.0, 1.0);
        }
        let f_min = 0.02 + 0.95 * min / 100.0;
        let mat_min = f_min * oat + (1.0 - f_min) * rat;
        let enabled = oat < a.high_limit && (!a.differential || oat < rat - 1.0);
        // the economizer loop is the first stage of cooling: it opens fully before the coil
        // when the outdoor air cannot reach the mixed-air target
        let want = if enabled && mat_min + 1.2 > sat_sp {
            if oat >= sat_sp - 1.2 {
                1.0
            } else {
                ((rat - (sat_sp - 1.2)) / (rat - oat)).clamp(f_min, 1.0)
            }
        } else {
            f_min
        };
        let cmd = (100.0 * (want - 0.02) / 0.95).clamp(0.0, 100.0);
        damper += (cmd - damper) / 3.0;
        let d = a.oa_stuck.unwrap_or((damper + damper_noise[m]).clamp(0.0, 100.0));
        let frac = 0.02 + 0.95 * d / 100.0;
        let mat = frac * oat + (1.0 - frac) * rat;
        // the coils: the supply-air loop holds its setpoint within the coils' reach
        let fan_heat = 1.2;
        let aim = sat_sp + a.sat_gain * sat_err[m];
        let need = mat + fan_heat - aim;
        let reach = 28.0 * a.coil_capacity;
        let (cool, heat, target_sat) = match a.cool_stuck {
            // the heating loop makes up a stuck valve's overcooling; nothing makes up its shortfall
            Some(v) => {
                let off = mat + fan_heat - reach * v / 100.0;
                if off < aim {
                    (v, (100.0 * (aim - off) / 40.0 + valve_noise[m]).clamp(0.0, 100.0), aim)
                } else {
                    (v, 0.0, off)
                }
            }
            None if need > 0.0 => {
                let sat = if need > reach { mat + fan_heat - reach } else { aim };
                ((100.0 * need / reach + valve_noise[m]).clamp(0.0, 100.0), 0.0, sat)
            }
            None => (0.0, (100.0 * -need / 40.0 + valve_noise[m]).clamp(0.0, 100.0), aim),
        };
        let (cool, target_sat) = if a.hunt && cool > 5.0 {
            phase += std::f64::consts::TAU / (12.0 + period_noise[m]);
            let swing = 18.0 * phase.sin();
            ((cool + swing).clamp(0.0, 100.0), target_sat - 0.6 * reach * 0.18 * (phase - 1.0).sin())
        } else {
            (cool, target_sat)
        };
        sat += (target_sat - sat) / 2.0;
        // duct static: trim and respond on the boxes' requests, every two minutes
        if m % 2 == 0 {
            match a.static_fixed {
                Some(f) => sp = f,
                None => {
                    let requests = ((flow - 0.55) * 8.0 + 1.5 * box_rng.normal()).max(0.0).floor();
                    if requests > 2.0 {
                        sp += (0.06 * (requests - 2.0)).min(0.15);
                    } else {
                        sp -= 0.02;
                    }
                    sp = sp.clamp(0.5, 1.5);
                }
            }
        }
        let static_p = sp + static_noise[m];
        let speed = (100.0 * (0.12 + 0.8 * flow) * (static_p.max(0.2) / 1.5).powf(0.25)).clamp(0.0, 100.0);
        let loading = a.filter_clean + a.filter_load * m as f64 / n as f64;
        // the return air's CO2: occupants' generation against the outdoor airflow
        let qoa = frac * flow;
        co2 += 0.25 * (a.co2_gen * p - (qoa + 0.01) * (co2 - 415.0));
        s.flow[m] = flow;
        s.speed[m] = speed;
        s.mat[m] = mat;
        s.sat[m] = sat;
        s.damper[m] = d;
        s.frac[m] = frac;
        s.econ[m] = (enabled && want > f_min + 0.01) as u8 as f64;
        s.cool[m] = cool;
        s.heat[m] = heat;
        s.static_sp[m] = sp;
        s.static_p[m] = static_p;
        s.filter[m] = loading * flow * flow;
        s.co2[m] = co2;
        s.sat_req[m] = req;
    }
    s
}

/// `co2_ventilation`: a winter office air handler whose outdoor-air damper actuator has failed
/// at 5 % open (linkage slipped; the minimum asks for 20 %), so the return air's CO2 climbs to
/// 1300-1600 ppm every afternoon; the twin holds its 20 % minimum and peaks near 900 ppm.
fn co2_ventilation(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/co2_ventilation", Season::Winter, 14, step);
    let a = Ahu { oa_stuck: faulty.then_some(5.0), ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let unit = lab.unit(
        "AHU-1",
        "AHU",
        vec![
            ("co2", lab.at("AHU-1", "co2", 12.0, |m| s.co2[m])),
            ("oa_damper", lab.at("AHU-1", "oa_damper", 0.3, |m| s.damper[m])),
            ("oat", lab.at("AHU-1", "oat", 0.3, |m| lab.oat(m))),
            ("mixed_air_temp", lab.at("AHU-1", "mat", 0.3, |m| s.mat[m])),
            ("return_air_temp", lab.at("AHU-1", "rat", 0.2, |m| s.rat[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
            ("occupancy", lab.keep(&s.occ)),
        ],
    );
    Building::one(unit)
}

/// `dcv_verification`: a densely occupied building's air handler in July (economizer locked out
/// above 65 °F most days) with demand-controlled ventilation (a 10 % area floor raised to 40 % as
/// the return air's CO2 climbs from 700 to 1100 ppm) whose DCV sequence was left disabled after a
/// controller swap: the damper sits at its floor while CO2 climbs past 1100 ppm. The twin's DCV
/// opens the damper as the building fills.
fn dcv_verification(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/dcv_verification", Season::Summer, 14, step);
    let a = Ahu { min_oa: 10.0, dcv: !faulty, co2_gen: 75.0, ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let unit = lab.unit(
        "AHU-1",
        "AHU",
        vec![
            ("co2", lab.at("AHU-1", "co2", 12.0, |m| s.co2[m])),
            ("oa_damper", lab.at("AHU-1", "oa_damper", 0.3, |m| s.damper[m])),
            ("oat", lab.at("AHU-1", "oat", 0.3, |m| lab.oat(m))),
            ("heat_valve", lab.keep(&s.heat)),
            ("econ_cmd", lab.keep(&s.econ)),
            ("supply_fan_status", lab.keep(&s.fan)),
            ("occupancy", lab.keep(&s.occ)),
        ],
    );
    Building::one(unit)
}

/// `economizer_high_limit`: a July air handler whose dry-bulb high limit was set to 80 °F (and
/// its differential lockout turned off) instead of 65 °F, so on warm afternoons the economizer
/// stays wide open with outdoor air above the return air and the coil cools it. The twin locks
/// out at 65 °F and above the return air.
fn economizer_high_limit(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/economizer_high_limit", Season::Summer, 14, step);
    let a = if faulty { Ahu { high_limit: 80.0, differential: false, ..Ahu::healthy() } } else { Ahu::healthy() };
    let s = simulate(&lab, &a);
    let unit = lab.unit(
        "AHU-1",
        "AHU",
        vec![
            ("oa_damper", lab.at("AHU-1", "oa_damper", 0.3, |m| s.damper[m])),
            ("oat", lab.at("AHU-1", "oat", 0.3, |m| lab.oat(m))),
            ("mixed_air_temp", lab.at("AHU-1", "mat", 0.3, |m| s.mat[m])),
            ("return_air_temp", lab.at("AHU-1", "rat", 0.2, |m| s.rat[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
        ],
    );
    Building::one(unit)
}

/// `filter_fouling`: a July air handler whose filters load fast after roofing work upstream of
/// the intake: 0.60 in. w.c. at design airflow rising to 1.40 over two weeks (0.45 to 1.05 at its
/// usual airflow). The twin's filters load as filters do, 0.03 in. w.c. over the fortnight.
fn filter_fouling(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/filter_fouling", Season::Summer, 14, step);
    let a = Ahu { filter_clean: 0.6, filter_load: if faulty { 0.8 } else { 0.03 }, ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let unit = lab.unit(
        "AHU-1",
        "AHU",
        vec![
            ("filter_diff_press", lab.at("AHU-1", "filter_dp", 0.01, |m| s.filter[m])),
            ("airflow", lab.at("AHU-1", "airflow", 120.0, |m| DESIGN_CFM * s.flow[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
        ],
    );
    Building::one(unit)
}

/// The air handler's full trend set, as a BAS logs it.
fn full_trend(lab: &Lab, s: &Sim) -> Vec<(&'static str, Vec<f64>)> {
    let w = "AHU-1";
    vec![
        ("supply_air_temp", lab.at(w, "sat", 0.2, |m| s.sat[m])),
        ("supply_air_temp_sp", lab.keep(&s.sat_sp)),
        ("mixed_air_temp", lab.at(w, "mat", 0.3, |m| s.mat[m])),
        ("return_air_temp", lab.at(w, "rat", 0.2, |m| s.rat[m])),
        ("oat", lab.at(w, "oat", 0.3, |m| lab.oat(m))),
        ("cool_valve", lab.keep(&s.cool)),
        ("heat_valve", lab.keep(&s.heat)),
        ("oa_damper", lab.at(w, "oa_damper", 0.3, |m| s.damper[m])),
        ("supply_fan_status", lab.keep(&s.fan)),
        ("supply_fan_speed", lab.keep(&s.speed)),
        ("duct_static", lab.keep(&s.static_p)),
        ("duct_static_sp", lab.keep(&s.static_sp)),
        ("occupancy", lab.keep(&s.occ)),
    ]
}

/// `g36_afdd`: a July air handler whose chilled-water coil has lost a quarter of its capacity (a
/// clogged strainer starving it), so on hot afternoons the valve sits wide open with the supply
/// air 3-6 °F above its setpoint (FC13). The twin's coil holds the setpoint.
fn g36_afdd(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/g36_afdd", Season::Summer, 14, step);
    let a = Ahu { coil_capacity: if faulty { 0.75 } else { 1.0 }, ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    Building::one(lab.unit("AHU-1", "AHU", full_trend(&lab, &s)))
}

/// `outdoor_air_fraction`: a July air handler whose minimum outdoor-air damper position was
/// raised from 20 % to 60 % after a stuffiness complaint and never put back, so it takes about
/// 59 % outdoor air through every hot afternoon. The twin holds its 20 % minimum.
fn outdoor_air_fraction(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/outdoor_air_fraction", Season::Summer, 14, step);
    let a = Ahu { min_oa: if faulty { 60.0 } else { 20.0 }, ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let w = "AHU-1";
    let unit = lab.unit(
        w,
        "AHU",
        vec![
            ("mixed_air_temp", lab.at(w, "mat", 0.3, |m| s.mat[m])),
            ("return_air_temp", lab.at(w, "rat", 0.2, |m| s.rat[m])),
            ("oat", lab.at(w, "oat", 0.3, |m| lab.oat(m))),
            ("oa_damper", lab.at(w, "oa_damper", 0.3, |m| s.damper[m])),
            ("cool_valve", lab.keep(&s.cool)),
            ("heat_valve", lab.keep(&s.heat)),
            ("airflow", lab.at(w, "airflow", 120.0, |m| DESIGN_CFM * s.flow[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
            ("occupancy", lab.keep(&s.occ)),
        ],
    );
    Building::one(unit)
}

/// `static_pressure_reset`: a spring air handler whose duct static-pressure setpoint is fixed at
/// its 1.5 in. w.c. design value (trim and respond never commissioned). The twin trims and
/// responds to its boxes' requests between 0.5 and 1.5 in. w.c.
fn static_pressure_reset(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/static_pressure_reset", Season::Spring, 14, step);
    let a = Ahu { static_fixed: faulty.then_some(1.5), ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let w = "AHU-1";
    let unit = lab.unit(
        w,
        "AHU",
        vec![
            ("duct_static_sp", lab.keep(&s.static_sp)),
            ("duct_static", lab.at(w, "static", 0.01, |m| s.static_p[m])),
            ("airflow", lab.at(w, "airflow", 120.0, |m| DESIGN_CFM * s.flow[m])),
            ("supply_fan_speed", lab.at(w, "speed", 0.2, |m| s.speed[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
        ],
    );
    Building::one(unit)
}

/// `supply_air_control`: a July air handler whose chilled-water valve actuator has failed at
/// 70 % open, so the supply air runs up to 5 °F above its 55 °F setpoint as the afternoon loads
/// up (and the heating valve fights it on cool mornings).
/// The twin's valve modulates and holds the setpoint within its loop's scatter.
fn supply_air_control(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/supply_air_control", Season::Summer, 14, step);
    let a = Ahu { cool_stuck: faulty.then_some(70.0), ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let w = "AHU-1";
    let unit = lab.unit(
        w,
        "AHU",
        vec![
            ("supply_air_temp", lab.at(w, "sat", 0.2, |m| s.sat[m])),
            ("supply_air_temp_sp", lab.keep(&s.sat_sp)),
            ("supply_fan_status", lab.keep(&s.fan)),
            ("occupancy", lab.keep(&s.occ)),
        ],
    );
    Building::one(unit)
}

/// A spring air handler for the supply-air reset rules: G36's reset (trim and respond on the
/// zones' requests, the outdoor-air map) healthy, or the supply air held at a fixed 55 °F.
fn sat_reset_unit(name: &'static str, step: usize, faulty: bool) -> Building {
    let lab = Lab::new(name, Season::Spring, 14, step);
    let a = Ahu { sat_fixed: faulty.then_some(55.0), ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let mut cols = full_trend(&lab, &s);
    cols.push(("sat_reset_requests", lab.keep(&s.sat_req)));
    cols.push(("airflow", lab.at("AHU-1", "airflow", 120.0, |m| DESIGN_CFM * s.flow[m])));
    Building::one(lab.unit("AHU-1", "AHU", cols))
}

/// `supply_air_reset`: an April air handler whose supply air is held at 55 °F whatever the
/// weather (the reset's program disabled), against the twin's G36 reset (57-65 °F in the
/// cool spring, colder as the afternoons warm and the zones ask).
fn supply_air_reset(step: usize, faulty: bool) -> Building {
    sat_reset_unit("air/supply_air_reset", step, faulty)
}

/// `supply_air_reset_compliance`: the same April air handler, its supply air held at 55 °F where
/// G36's map (T-max rebuilt from the zones' trended requests) asks for 60-65 °F.
fn supply_air_reset_compliance(step: usize, faulty: bool) -> Building {
    sat_reset_unit("air/supply_air_reset_compliance", step, faulty)
}

/// How the simulated split-system DX unit is built and what is wrong with it.
#[derive(Clone, Copy)]
struct Dx {
    /// Indoor airflow as a share of nominal (1: 400 cfm a ton).
    airflow: f64,
    /// Refrigerant charge as a share of the nameplate charge.
    charge: f64,
}

/// The DX unit's signals, one value a minute.
struct DxSim {
    comp: Vec<f64>,
    fan: Vec<f64>,
    rat: Vec<f64>,
    sat: Vec<f64>,
    subcool: Vec<f64>,
    superheat: Vec<f64>,
}

/// Simulate a split-system DX unit serving an office suite through a July fortnight: a
/// thermostat cycling the compressor on a ±1 °F band (74 °F occupied, 80 °F setback, minimum
/// on and off times of five minutes), the fan on while occupied and with the compressor
/// otherwise, the coil's split and the refrigerant's subcooling and superheat settling after
/// each start.
fn simulate_dx(lab: &Lab, d: &Dx) -> DxSim {
    let n = lab.minutes;
    let who = "DX-1";
    let load_noise = lab.red(who, "load", 0.05, 60.0);
    let split_noise = lab.red(who, "split", 0.6, 120.0);
    let sc_noise = lab.red(who, "subcooling", 0.5, 60.0);
    let sh_noise = lab.red(who, "superheat", 0.8, 20.0);
    let mut s = DxSim {
        comp: vec![0.0; n],
        fan: vec![0.0; n],
        rat: vec![0.0; n],
        sat: vec![0.0; n],
        subcool: vec![0.0; n],
        superheat: vec![0.0; n],
    };
    // a starved coil moves less heat; a short charge less still
    let capacity = d.airflow.powf(0.35) * (1.0 - 1.2 * (1.0 - d.charge).max(0.0));
    let (mut t, mut on, mut since, mut sat, mut sc, mut sh) = (76.0, false, 0usize, 76.0, 0.0, 20.0);
    for m in 0..n {
        let oat = lab.oat(m);
        let occ = lab.occupied(m);
        let sp = if occ { 74.0 } else { 80.0 };
        let load = (0.25 + 0.02 * (oat - 75.0) + 0.25 * sun(lab, m) + if occ { 0.15 } else { 0.0 } + load_noise[m])
            .clamp(0.0, 0.95);
        since += 1;
        if on && t < sp - 1.0 && since >= 5 {
            (on, since) = (false, 0);
        } else if !on && t > sp + 1.0 && since >= 5 {
            (on, since) = (true, 0);
        }
        t += 0.12 * (load - if on { capacity } else { 0.0 });
        let fan = occ || on;
        let rat = t + 0.5;
        if on {
            // the split settles in a few minutes: wider when less air crosses the coil
            let split = (20.0 + 0.15 * (rat - 75.0) + split_noise[m]) * capacity / d.airflow;
            sat += (rat - split - sat) / 2.0;
            // the valve holds superheat until the charge runs short; subcooling is the charge
            let sc_ss = 10.0 + 0.06 * (oat - 85.0) - 22.0 * (1.0 - d.charge) + sc_noise[m];
            sc += (sc_ss.max(0.3) - sc) / 3.0;
            let sh_ss = 9.0 + 40.0 * (0.9 - d.charge).max(0.0) + sh_noise[m];
            sh += (sh_ss - sh) / 3.0;
        } else {
            sat += (rat + if fan { 0.8 } else { -1.0 } - sat) / 4.0;
            sc += (1.0 - sc) / 8.0;
            sh += (oat - 55.0 - sh) / 20.0;
        }
        s.comp[m] = on as u8 as f64;
        s.fan[m] = fan as u8 as f64;
        s.rat[m] = rat;
        s.sat[m] = sat;
        s.subcool[m] = sc;
        s.superheat[m] = sh;
    }
    s
}

/// The DX unit as a BAS logs it.
fn dx_unit(lab: &Lab, s: &DxSim) -> Vec<(&'static str, Vec<f64>)> {
    let w = "DX-1";
    vec![
        ("return_air_temp", lab.at(w, "rat", 0.2, |m| s.rat[m])),
        ("supply_air_temp", lab.at(w, "sat", 0.3, |m| s.sat[m])),
        ("subcooling_temp", lab.at(w, "subcooling", 0.3, |m| s.subcool[m])),
        ("superheat_temp", lab.at(w, "superheat", 0.4, |m| s.superheat[m])),
        ("oat", lab.at(w, "oat", 0.3, |m| lab.oat(m))),
        ("compressor_status", lab.keep(&s.comp)),
        ("supply_fan_status", lab.keep(&s.fan)),
    ]
}

/// `dx_indoor_airflow`: a split-system DX unit whose blower runs on its low tap after a motor
/// replacement, moving 55 % of its nominal airflow: the coil's split widens from the 20 °F on its
/// start-up sheet to about 31 °F. The twin's blower is on the right tap.
fn dx_indoor_airflow(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/dx_indoor_airflow", Season::Summer, 14, step);
    let s = simulate_dx(&lab, &Dx { airflow: if faulty { 0.55 } else { 1.0 }, charge: 1.0 });
    Building::one(lab.unit("DX-1", "DX", dx_unit(&lab, &s)))
        .with_params(serde_json::json!({"targets": {"temp_split_f": 20.0}}))
}

/// `dx_refrigerant_charge`: the same kind of unit having lost a quarter of its charge through a
/// leaking flare: its subcooling falls from the nameplate's 10 °F to about 4-5 °F and its
/// superheat climbs as the valve starves. The twin holds its full charge.
fn dx_refrigerant_charge(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/dx_refrigerant_charge", Season::Summer, 14, step);
    let s = simulate_dx(&lab, &Dx { airflow: 1.0, charge: if faulty { 0.75 } else { 1.0 } });
    Building::one(lab.unit("DX-1", "DX", dx_unit(&lab, &s)))
        .with_params(serde_json::json!({"targets": {"subcooling_f": 10.0, "superheat_f": 9.0}}))
}

/// `control_hunting`: a July air handler whose supply-air loop was retuned too hot: its
/// chilled-water valve swings ±18 % about where it should sit every 12 minutes or so (about ten
/// reversals an hour) whenever it cools, the supply air swinging a degree or two with it. The
/// twin's loop settles. Hunting of that period is visible at 1- and 5-minute logging; a
/// 15-minute trend cannot show six reversals an hour, so the rule declines it there.
fn control_hunting(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("air/control_hunting", Season::Summer, 14, step);
    let a = Ahu { hunt: faulty, ..Ahu::healthy() };
    let s = simulate(&lab, &a);
    let w = "AHU-1";
    let unit = lab.unit(
        w,
        "AHU",
        vec![
            ("cool_valve", lab.keep(&s.cool)),
            ("heat_valve", lab.keep(&s.heat)),
            ("oa_damper", lab.at(w, "oa_damper", 0.3, |m| s.damper[m])),
            ("supply_fan_speed", lab.keep(&s.speed)),
            ("duct_static_sp", lab.keep(&s.static_sp)),
            ("supply_air_temp", lab.at(w, "sat", 0.2, |m| s.sat[m])),
            ("supply_fan_status", lab.keep(&s.fan)),
        ],
    );
    Building::one(unit)
}

/// Every air-side case.
pub fn cases() -> Vec<Case> {
    vec![
        Case { rule: "co2_ventilation", steps: EVERY_STEP, build: co2_ventilation },
        Case { rule: "dcv_verification", steps: EVERY_STEP, build: dcv_verification },
        Case { rule: "economizer_high_limit", steps: EVERY_STEP, build: economizer_high_limit },
        Case { rule: "filter_fouling", steps: EVERY_STEP, build: filter_fouling },
        Case { rule: "g36_afdd", steps: EVERY_STEP, build: g36_afdd },
        Case { rule: "outdoor_air_fraction", steps: EVERY_STEP, build: outdoor_air_fraction },
        Case { rule: "static_pressure_reset", steps: EVERY_STEP, build: static_pressure_reset },
        Case { rule: "supply_air_control", steps: EVERY_STEP, build: supply_air_control },
        Case { rule: "supply_air_reset", steps: EVERY_STEP, build: supply_air_reset },
        Case { rule: "supply_air_reset_compliance", steps: EVERY_STEP, build: supply_air_reset_compliance },
        Case { rule: "dx_indoor_airflow", steps: EVERY_STEP, build: dx_indoor_airflow },
        Case { rule: "control_hunting", steps: &[1, 5], build: control_hunting },
        Case { rule: "dx_refrigerant_charge", steps: EVERY_STEP, build: dx_refrigerant_charge },
    ]
}
