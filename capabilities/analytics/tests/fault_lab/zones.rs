//! Zone-level cases: a VAV building (an air handler and its boxes of varied sizes, each box a
//! zone with its own envelope, sun and people) simulated minute by minute, every loop closed
//! (zone cooling and heating PI loops driving the box's airflow setpoint and reheat valve, a
//! pressure-independent damper loop, the air handler's Guideline 36 trim-and-respond duct
//! static reset and its supply-air reset and economizer). A fault changes one piece of the
//! model (a damper stuck, a minimum set too high, a coil starved, a reset overridden); the twin
//! is the same building healthy, under the same weather and noise.

use super::kit::{Building, Case, Lab, Season, EVERY_STEP};
use camber_analytics::run::EquipFrame;

/// A zone and its box.
#[derive(Clone, Copy)]
struct Zone {
    name: &'static str,
    /// Design (maximum) airflow, cfm.
    qmax: f64,
    /// Peak sun on the zone as a share of its design load (0 for an interior zone).
    sun: f64,
    /// Envelope conductance as a share of the design load per 40 °F indoor-outdoor difference.
    skin: f64,
    /// Occupied internal gain (people, lights, plugs) as a share of the design load.
    people: f64,
}

/// What a box does wrong (its defaults: healthy).
#[derive(Clone, Copy)]
struct BoxPlan {
    /// The damper stuck at this position (%).
    stuck_damper: Option<f64>,
    /// Cooling minimum airflow as a share of design.
    min_frac: f64,
    /// Heating maximum airflow as a share of design.
    heat_frac: f64,
    /// The reheat coil's capacity as a share of its design (a starved or fouled coil below 1).
    reheat: f64,
    /// Occupied heating and cooling setpoints, °F.
    heat_sp: f64,
    cool_sp: f64,
    /// Internal gains as a multiple of the zone's design (an overloaded zone above 1).
    load: f64,
    /// The airflow sensor's reading as a multiple of the true airflow (a mis-calibrated pickup).
    flow_gain: f64,
    /// Reheat locked out above this outdoor temperature (°F): the valve held shut.
    reheat_lockout: Option<f64>,
    /// A single-maximum heating sequence: any heating runs the airflow at this share of design.
    single_max: Option<f64>,
    /// The thermostat reading this many °F high from this minute on: the box controls (and the
    /// BAS logs) the reading, the room follows the air.
    sensor_offset: Option<(f64, usize)>,
}

impl Default for BoxPlan {
    fn default() -> BoxPlan {
        BoxPlan {
            stuck_damper: None,
            min_frac: 0.3,
            heat_frac: 0.5,
            reheat: 1.0,
            heat_sp: 70.0,
            cool_sp: 74.0,
            load: 1.0,
            flow_gain: 1.0,
            reheat_lockout: None,
            single_max: None,
            sensor_offset: None,
        }
    }
}

/// What the air handler does wrong (its defaults: healthy).
#[derive(Clone, Copy)]
struct AhuPlan {
    /// The duct static setpoint overridden to a fixed value (in. w.c.).
    static_fixed: Option<f64>,
    /// The supply-air setpoint overridden to a fixed value (°F).
    sat_fixed: Option<f64>,
    /// Cooling-coil capacity: the coldest supply air it can make, °F.
    sat_floor: f64,
    /// Outdoor-air damper minimum (%).
    oa_min: f64,
    /// Whether the outdoor-air damper resets on the zones' CO2 (demand-controlled ventilation).
    dcv: bool,
    /// Whether the economizer works.
    economizer: bool,
}

impl Default for AhuPlan {
    fn default() -> AhuPlan {
        AhuPlan { static_fixed: None, sat_fixed: None, sat_floor: 50.0, oa_min: 20.0, dcv: false, economizer: true }
    }
}

/// One box's simulated minutes.
#[derive(Clone, Default)]
struct BoxRun {
    temp: Vec<f64>,
    heat_sp: Vec<f64>,
    cool_sp: Vec<f64>,
    flow: Vec<f64>,
    flow_sp: Vec<f64>,
    flow_min: Vec<f64>,
    damper: Vec<f64>,
    valve: Vec<f64>,
    dat: Vec<f64>,
    cool_loop: Vec<f64>,
    heat_loop: Vec<f64>,
    co2: Vec<f64>,
    occupancy: Vec<f64>,
}

/// The air handler's simulated minutes.
#[derive(Clone, Default)]
struct AhuRun {
    fan: Vec<f64>,
    speed: Vec<f64>,
    sat: Vec<f64>,
    sat_sp: Vec<f64>,
    static_: Vec<f64>,
    static_sp: Vec<f64>,
    static_req: Vec<f64>,
    oa_damper: Vec<f64>,
    econ: Vec<f64>,
    mat: Vec<f64>,
    rat: Vec<f64>,
    flow: Vec<f64>,
}

/// Occupant presence (0-1) at minute `m`: people arrive 7-9, thin at lunch, leave 16-18.
fn presence(lab: &Lab, m: usize) -> f64 {
    if !lab.weekday(m) {
        return 0.0;
    }
    let h = lab.hour(m);
    let ramp = |a: f64, b: f64, x: f64| ((x - a) / (b - a)).clamp(0.0, 1.0);
    let lunch = if (12.0..13.0).contains(&h) { 0.75 } else { 1.0 };
    ramp(7.0, 8.5, h) * (1.0 - ramp(16.0, 18.0, h)) * lunch
}

/// The sun's strength (0-1) at minute `m`.
fn sun(lab: &Lab, m: usize) -> f64 {
    let h = lab.hour(m);
    if !(6.5..18.5).contains(&h) {
        return 0.0;
    }
    (std::f64::consts::PI * (h - 6.5) / 12.0).sin().max(0.0)
}

/// The building's zones and air handler, simulated minute by minute.
fn simulate(lab: &Lab, zones: &[Zone], plans: &[BoxPlan], ahu: AhuPlan) -> (AhuRun, Vec<BoxRun>) {
    let n = lab.minutes;
    let nz = zones.len();
    let mut a = AhuRun::default();
    let mut boxes: Vec<BoxRun> = vec![BoxRun::default(); nz];
    // weather-driven noise: clouds, occupancy, and each zone's own disturbances
    let clouds = lab.red("site", "clouds", 0.2, 240.0);
    let gains: Vec<Vec<f64>> = zones.iter().map(|z| lab.red(z.name, "gains", 0.12, 90.0)).collect();
    let sat_noise = lab.red("AHU-1", "sat_noise", 0.35, 8.0);
    let static_noise = lab.red("AHU-1", "static_noise", 0.025, 3.0);
    let mut temp: Vec<f64> = zones.iter().map(|_| 70.0).collect();
    let mut co2: Vec<f64> = zones.iter().map(|_| 430.0).collect();
    let mut damper: Vec<f64> = vec![30.0; nz];
    let mut ic = vec![0.0; nz];
    let mut ih = vec![0.0; nz];
    let mut flow = vec![0.0; nz];
    let mut setback = false;
    let mut run_min = 0usize;
    let mut static_sp: f64 = 0.5;
    let mut requests: f64 = 0.0;
    let mut sat_requests: f64 = 0.0;
    let mut t_max: f64 = 65.0;
    let mut held_req = vec![false; nz];
    let mut oaf_prev = 0.2;
    for m in 0..n {
        let oat = lab.oat(m);
        let h = lab.hour(m);
        let occ_mode = lab.weekday(m) && (5.0..18.0).contains(&h);
        let tmin = temp.iter().copied().fold(f64::INFINITY, f64::min);
        let tmax = temp.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !occ_mode {
            if tmin < 60.0 || tmax > 85.0 {
                setback = true;
            } else if tmin > 62.5 && tmax < 82.5 {
                setback = false;
            }
        } else {
            setback = false;
        }
        let fan = occ_mode || setback;
        run_min = if fan { run_min + 1 } else { 0 };
        // the supply-air setpoint: G36's outdoor-air map from T-max (trimmed and responded on the
        // zones' requests) down to 55 °F
        if !fan {
            t_max = 65.0;
        } else if run_min > 10 && run_min.is_multiple_of(2) {
            let net = sat_requests - 2.0;
            t_max = if net <= 0.0 { t_max + 0.2 } else { t_max - (0.3 * net).min(1.0) };
            t_max = t_max.clamp(55.0, 65.0);
        }
        let map = ((70.0 - oat) / 10.0).clamp(0.0, 1.0);
        let sat_sp = ahu.sat_fixed.unwrap_or(55.0 + (t_max - 55.0) * map);
        // the duct static reset, every two minutes after ten minutes of running
        if !fan {
            static_sp = 0.5;
        } else if run_min > 10 && run_min.is_multiple_of(2) {
            let net = requests - 2.0;
            static_sp = if net <= 0.0 { static_sp - 0.05 } else { static_sp + (0.06 * net).min(0.13) };
            static_sp = static_sp.clamp(0.1, 1.5);
        }
        let sp_static = ahu.static_fixed.unwrap_or(static_sp);
        let duct = if fan { (sp_static + static_noise[m]).max(0.05) } else { 0.0 };
        let sat = if fan { sat_sp.max(ahu.sat_floor) + sat_noise[m] } else { f64::NAN };
        let mut total = 0.0;
        let mut req = 0.0;
        let mut sreq = 0.0;
        let mut tw = 0.0;
        for (i, (z, p)) in zones.iter().zip(plans).enumerate() {
            let (hsp, csp) = if occ_mode { (p.heat_sp, p.cool_sp) } else { (60.0, 85.0) };
            // what the thermostat reads: the room, plus its offset once that has set in
            let read = temp[i] + p.sensor_offset.filter(|o| m >= o.1).map_or(0.0, |o| o.0);
            let qmin = p.min_frac * z.qmax;
            let qheat = p.heat_frac.max(p.min_frac) * z.qmax;
            let mut valve = 0.0;
            let mut dat = temp[i];
            let (mut lc, mut lh) = (0.0, 0.0);
            let mut fsp = 0.0;
            if fan {
                let ec = read - csp;
                let eh = hsp - read;
                ic[i] = (ic[i] + 0.8 * ec).clamp(0.0, 100.0);
                ih[i] = (ih[i] + 0.8 * eh).clamp(0.0, 100.0);
                lc = (25.0 * ec + ic[i]).clamp(0.0, 100.0);
                lh = (25.0 * eh + ih[i]).clamp(0.0, 100.0);
                fsp = if lc > 0.0 {
                    qmin + lc / 100.0 * (z.qmax - qmin)
                } else if let (Some(f), true) = (p.single_max, lh > 0.0) {
                    f * z.qmax
                } else if lh > 50.0 {
                    qmin + (lh - 50.0) / 50.0 * (qheat - qmin)
                } else {
                    qmin
                };
                let reach = 1.3 * z.qmax * (duct / 1.0).sqrt();
                let want = (100.0 * fsp / reach).clamp(0.0, 100.0);
                damper[i] = match p.stuck_damper {
                    Some(d) => d,
                    None => damper[i] + 0.35 * (want - damper[i]),
                };
                flow[i] = reach * damper[i] / 100.0;
                // reheat: the discharge-air setpoint rises with the first half of the heating loop
                let dat_sp = sat + (2.0 * lh).min(100.0) / 100.0 * (95.0 - sat);
                let cap = p.reheat * 1.08 * 0.5 * z.qmax * 40.0;
                let need = 1.08 * flow[i].max(1.0) * (dat_sp - sat).max(0.0);
                valve = if p.reheat_lockout.is_some_and(|l| oat > l) {
                    0.0
                } else {
                    (100.0 * need / cap).clamp(0.0, 100.0)
                };
                dat = sat + valve / 100.0 * cap / (1.08 * flow[i].max(1.0));
                // a G36 box asks for static with its damper wide open and short of its setpoint
                if damper[i] > 95.0 || (held_req[i] && damper[i] > 85.0) {
                    held_req[i] = true;
                    req += if flow[i] < 0.5 * fsp {
                        3.0
                    } else if flow[i] < 0.7 * fsp {
                        2.0
                    } else {
                        1.0
                    };
                } else {
                    held_req[i] = false;
                }
                // and for colder air when warm of its cooling setpoint
                let warm = read - csp;
                sreq += if warm >= 5.0 {
                    3.0
                } else if warm >= 3.0 {
                    2.0
                } else if lc > 95.0 {
                    1.0
                } else {
                    0.0
                };
            } else {
                flow[i] = 0.0;
                ic[i] *= 0.9;
                ih[i] *= 0.9;
                damper[i] = match p.stuck_damper {
                    Some(d) => d,
                    None => damper[i] + 0.02 * (30.0 - damper[i]),
                };
            }
            // the zone: design load at design flow 20 °F below the room
            let design = 1.08 * z.qmax * 20.0;
            let people = presence(lab, m);
            let gain = design
                * (0.06 + p.load * z.people * people * (1.0 + gains[i][m]) + z.sun * sun(lab, m) * (0.8 + clouds[m]))
                + design * z.skin / 40.0 * (oat - temp[i]);
            let air = if fan { 1.08 * flow[i] * (dat - temp[i]) } else { 0.0 };
            let cap_room = 6.0 * 1.08 * z.qmax;
            temp[i] += (gain + air) / 60.0 / cap_room;
            // CO2: five people per 1000 cfm of design, diluted by the box's outdoor air and by
            // infiltration (0.3 air changes an hour, a fifth of that while the fan pressurises)
            let volume = 10.0 * z.qmax;
            let oa = flow[i] * oaf_prev;
            co2[i] += (5.0 * z.qmax / 1000.0 * people * 0.0105 * 1e6 + oa * (420.0 - co2[i])) / volume
                + if fan { 0.001 } else { 0.005 } * (420.0 - co2[i]);
            total += flow[i];
            tw += flow[i] * temp[i];
            let b = &mut boxes[i];
            b.temp.push(read);
            b.heat_sp.push(hsp);
            b.cool_sp.push(csp);
            b.flow.push(flow[i] * p.flow_gain);
            b.flow_sp.push(fsp);
            b.flow_min.push(if fan { qmin } else { 0.0 });
            b.damper.push(damper[i]);
            b.valve.push(valve);
            b.dat.push(if fan { dat } else { temp[i] });
            b.cool_loop.push(lc);
            b.heat_loop.push(lh);
            b.co2.push(co2[i]);
            b.occupancy.push(if lab.occupied(m) { 1.0 } else { 0.0 });
        }
        requests = req;
        sat_requests = sreq;
        let rat = if total > 1.0 { tw / total + 1.0 } else { f64::NAN };
        // the economizer and the outdoor-air minimum (reset on the worst zone's CO2 under DCV)
        let co2_max = co2.iter().copied().fold(0.0, f64::max);
        let oa_min =
            if ahu.dcv { ahu.oa_min * (0.4 + 0.6 * ((co2_max - 500.0) / 500.0).clamp(0.0, 1.0)) } else { ahu.oa_min };
        let mut oa_damper = if fan { oa_min } else { 0.0 };
        let mut econ = 0.0;
        if fan && ahu.economizer && oat < 65.0 && !rat.is_nan() && oat < rat - 2.0 {
            let want = ((rat - (sat_sp - 1.0)) / (rat - oat)).clamp(0.0, 1.0) * 100.0;
            if want > oa_damper {
                oa_damper = want;
                econ = 1.0;
            }
        }
        oaf_prev = (oa_damper / 100.0 * 0.85).max(if fan { 0.05 } else { 0.0 });
        let mat = if rat.is_nan() { f64::NAN } else { oaf_prev * oat + (1.0 - oaf_prev) * rat };
        a.fan.push(if fan { 1.0 } else { 0.0 });
        a.speed.push(if fan {
            (100.0 * total / zones.iter().map(|z| z.qmax).sum::<f64>() * 1.1).clamp(20.0, 100.0)
        } else {
            0.0
        });
        a.sat.push(sat);
        a.sat_sp.push(sat_sp);
        a.static_.push(duct);
        a.static_sp.push(sp_static);
        a.static_req.push(req);
        a.oa_damper.push(oa_damper);
        a.econ.push(econ);
        a.mat.push(mat);
        a.rat.push(rat);
        a.flow.push(total);
    }
    (a, boxes)
}

/// The office floor: an air handler and eight boxes, perimeter and interior, 500 to 1,400 cfm.
const FLOOR: &[Zone] = &[
    Zone { name: "VAV-1", qmax: 1200.0, sun: 0.30, skin: 0.25, people: 0.35 },
    Zone { name: "VAV-2", qmax: 900.0, sun: 0.25, skin: 0.22, people: 0.40 },
    Zone { name: "VAV-3", qmax: 1000.0, sun: 0.22, skin: 0.25, people: 0.35 },
    Zone { name: "VAV-4", qmax: 800.0, sun: 0.32, skin: 0.22, people: 0.32 },
    Zone { name: "VAV-5", qmax: 1100.0, sun: 0.0, skin: 0.04, people: 0.65 },
    Zone { name: "VAV-6", qmax: 700.0, sun: 0.0, skin: 0.04, people: 0.62 },
    Zone { name: "VAV-7", qmax: 1400.0, sun: 0.25, skin: 0.22, people: 0.35 },
    Zone { name: "VAV-8", qmax: 600.0, sun: 0.0, skin: 0.08, people: 0.60 },
];

/// Which role a logged column is, and the sensor noise on it.
#[derive(Clone, Copy, PartialEq)]
enum Col {
    SpaceTemp,
    HeatSp,
    CoolSp,
    Airflow,
    AirflowSp,
    AirflowMinSp,
    Damper,
    HeatValve,
    Dat,
    CoolLoop,
    HeatLoop,
    Co2,
    Occupancy,
    /// The site's outdoor air temperature, as the BAS shares it with every box.
    Oat,
}

impl Col {
    fn role(self) -> &'static str {
        match self {
            Col::SpaceTemp => "space_temp",
            Col::HeatSp => "heat_sp",
            Col::CoolSp => "cool_sp",
            Col::Airflow => "airflow",
            Col::AirflowSp => "airflow_sp",
            Col::AirflowMinSp => "airflow_min_sp",
            Col::Damper => "damper",
            Col::HeatValve => "heat_valve",
            Col::Dat => "supply_air_temp",
            Col::CoolLoop => "zone_cool_loop",
            Col::HeatLoop => "zone_heat_loop",
            Col::Co2 => "co2",
            Col::Occupancy => "occupancy",
            Col::Oat => "oat",
        }
    }
}

/// A box's frame with the columns asked for, each logged with its sensor's noise (setpoints,
/// commands and loop outputs exact, as a BAS logs them).
fn box_frame(lab: &Lab, z: &Zone, b: &BoxRun, cols: &[Col]) -> EquipFrame {
    let logged = |c: Col| -> Vec<f64> {
        if c == Col::Oat {
            return lab.at("site", "oat", 0.3, |m| lab.oat(m));
        }
        let (v, sd): (&Vec<f64>, f64) = match c {
            Col::SpaceTemp => (&b.temp, 0.15),
            Col::HeatSp => (&b.heat_sp, 0.0),
            Col::CoolSp => (&b.cool_sp, 0.0),
            Col::Airflow => (&b.flow, 0.02 * z.qmax),
            Col::AirflowSp => (&b.flow_sp, 0.0),
            Col::AirflowMinSp => (&b.flow_min, 0.0),
            Col::Damper => (&b.damper, 0.4),
            Col::HeatValve => (&b.valve, 0.0),
            Col::Dat => (&b.dat, 0.3),
            Col::CoolLoop => (&b.cool_loop, 0.0),
            Col::HeatLoop => (&b.heat_loop, 0.0),
            Col::Co2 => (&b.co2, 12.0),
            Col::Occupancy => (&b.occupancy, 0.0),
            Col::Oat => unreachable!("logged above"),
        };
        let lo = if matches!(c, Col::Airflow | Col::Damper) { 0.0 } else { f64::NEG_INFINITY };
        lab.at(z.name, c.role(), sd, |m| v[m]).into_iter().map(|x| x.max(lo)).collect()
    };
    lab.unit(z.name, "VAV", cols.iter().map(|&c| (c.role(), logged(c))).collect())
}

/// The air handler's frame with the roles asked for.
fn ahu_frame(lab: &Lab, a: &AhuRun, roles: &[&'static str]) -> EquipFrame {
    let logged = |r: &'static str| -> Vec<f64> {
        let (v, sd): (&Vec<f64>, f64) = match r {
            "supply_fan_status" => (&a.fan, 0.0),
            "supply_fan_speed" => (&a.speed, 0.0),
            "supply_air_temp" => (&a.sat, 0.2),
            "supply_air_temp_sp" => (&a.sat_sp, 0.0),
            "duct_static" => (&a.static_, 0.01),
            "duct_static_sp" => (&a.static_sp, 0.0),
            "static_pressure_requests" => (&a.static_req, 0.0),
            "oa_damper" => (&a.oa_damper, 0.3),
            "econ_cmd" => (&a.econ, 0.0),
            "mixed_air_temp" => (&a.mat, 0.3),
            "return_air_temp" => (&a.rat, 0.2),
            "airflow" => (&a.flow, 50.0),
            "oat" => return lab.at("AHU-1", "oat", 0.3, |m| lab.oat(m)),
            other => panic!("the air handler logs no {other}"),
        };
        let off = if matches!(r, "supply_air_temp" | "mixed_air_temp" | "return_air_temp") { 65.0 } else { 0.0 };
        lab.at("AHU-1", r, sd, |m| if v[m].is_nan() { off } else { v[m] })
    };
    lab.unit("AHU-1", "AHU", roles.iter().map(|&r| (r, logged(r))).collect())
}

/// The floor built: the air handler with `ahu_roles` (none: left out), each box with `cols`,
/// box `suspect`'s plan changed by `fault` when faulty; the suspect named by the finding.
#[allow(clippy::too_many_arguments)]
fn floor(
    lab: &Lab,
    zones: &[Zone],
    faulty: bool,
    suspect: &str,
    box_fault: impl Fn(&mut BoxPlan),
    ahu_fault: impl Fn(&mut AhuPlan),
    healthy_ahu: AhuPlan,
    cols: &[Col],
    ahu_roles: &[&'static str],
) -> Building {
    let mut plans: Vec<BoxPlan> = zones.iter().map(|_| BoxPlan::default()).collect();
    let mut ahu = healthy_ahu;
    if faulty {
        if let Some(i) = zones.iter().position(|z| z.name == suspect) {
            box_fault(&mut plans[i]);
        }
        ahu_fault(&mut ahu);
    }
    let (a, boxes) = simulate(lab, zones, &plans, ahu);
    let mut units: Vec<EquipFrame> = zones.iter().zip(&boxes).map(|(z, b)| box_frame(lab, z, b, cols)).collect();
    if !ahu_roles.is_empty() {
        units.push(ahu_frame(lab, &a, ahu_roles));
    }
    let pairs: Vec<(&str, &str)> = zones.iter().map(|z| (z.name, "AHU-1")).collect();
    Building::many(units, suspect).served(&pairs)
}

/// A row of like perimeter offices on one air handler: eight boxes of 850 to 1,100 cfm.
const ROW: &[Zone] = &[
    Zone { name: "VAV-1", qmax: 1000.0, sun: 0.28, skin: 0.25, people: 0.35 },
    Zone { name: "VAV-2", qmax: 900.0, sun: 0.25, skin: 0.22, people: 0.38 },
    Zone { name: "VAV-3", qmax: 1000.0, sun: 0.22, skin: 0.25, people: 0.35 },
    Zone { name: "VAV-4", qmax: 850.0, sun: 0.30, skin: 0.22, people: 0.32 },
    Zone { name: "VAV-5", qmax: 1100.0, sun: 0.26, skin: 0.24, people: 0.36 },
    Zone { name: "VAV-6", qmax: 950.0, sun: 0.24, skin: 0.25, people: 0.40 },
    Zone { name: "VAV-7", qmax: 1050.0, sun: 0.30, skin: 0.22, people: 0.34 },
    Zone { name: "VAV-8", qmax: 900.0, sun: 0.27, skin: 0.24, people: 0.37 },
];

/// `cohort_airflow`: a spring fortnight on a row of like offices; VAV-3's damper linkage has
/// slipped and holds it at 12 %, so the box moves about a sixth of its peers' air (its airflow
/// setpoint still rides to design, asking for more).
fn cohort_airflow(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-cohort-airflow", Season::Spring, 14, step);
    floor(
        &lab,
        ROW,
        faulty,
        "VAV-3",
        |p| p.stuck_damper = Some(12.0),
        |_| {},
        AhuPlan::default(),
        &[Col::Airflow, Col::AirflowSp, Col::Damper, Col::SpaceTemp],
        &["supply_fan_status", "duct_static", "duct_static_sp"],
    )
}

/// `cohort_airflow`'s step test: three summer weeks on the office floor; from the second
/// week's Wednesday VAV-3's thermostat reads 4 °F high, so the box holds its room 4 °F colder
/// than the BAS shows and its airflow rises to about twice its share of the floor's air, while
/// over the three weeks it stays within its peers' spread.
fn cohort_airflow_thermostat(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-cohort-airflow-thermostat", Season::Summer, 21, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-3",
        |p| p.sensor_offset = Some((4.0, 9 * 1440)),
        |_| {},
        AhuPlan::default(),
        &[Col::Airflow, Col::AirflowSp, Col::Damper, Col::SpaceTemp, Col::CoolSp],
        &["supply_fan_status", "duct_static", "duct_static_sp"],
    )
}

/// `cohort_space_temp`: a summer fortnight on the office floor; VAV-2's damper actuator has
/// failed at 65 %, so the zone gets about two thirds of the air a hot afternoon needs and its
/// occupied hours average some 3.5 °F over its peers (and over its cooling setpoint).
fn cohort_space_temp(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-cohort-space-temp", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-2",
        |p| p.stuck_damper = Some(65.0),
        |_| {},
        AhuPlan::default(),
        &[Col::SpaceTemp, Col::HeatSp, Col::CoolSp, Col::Occupancy, Col::Airflow, Col::Damper],
        &["supply_fan_status", "duct_static", "duct_static_sp"],
    )
}

/// `sat_cohort_starvation`: a summer fortnight on the office floor; the air handler's
/// supply-air setpoint has been overridden to 62 °F (an operator's override left in), so most
/// zones run at full airflow and rise past their cooling setpoints together.
fn sat_cohort_starvation(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-sat-starvation", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "AHU-1",
        |_| {},
        |a| a.sat_fixed = Some(62.0),
        AhuPlan::default(),
        &[Col::SpaceTemp, Col::CoolSp, Col::HeatSp, Col::Occupancy, Col::CoolLoop],
        &["supply_fan_status", "supply_air_temp", "supply_air_temp_sp"],
    )
}

/// `static_reset_effectiveness`: a spring fortnight on the office floor; the duct static
/// setpoint has been overridden to 1.2 in. w.c. (the test-and-balance value left in), so the
/// reset neither trims nor responds while the boxes throttle away the extra pressure.
fn static_reset_effectiveness(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-static-reset", Season::Spring, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "AHU-1",
        |_| {},
        |a| a.static_fixed = Some(1.2),
        AhuPlan::default(),
        &[Col::Damper, Col::Airflow, Col::AirflowSp],
        &["supply_fan_status", "supply_fan_speed", "duct_static", "duct_static_sp", "static_pressure_requests"],
    )
}

/// `damper_census`: a fortnight on the office floor; the air handler's duct static setpoint is
/// held at 1.2 in. w.c. (its reset disabled), three times what the boxes need, so nearly every
/// damper throttles below half open.
fn damper_census_in(name: &'static str, season: Season, step: usize, faulty: bool) -> Building {
    let lab = Lab::new(name, season, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "AHU-1",
        |_| {},
        |a| a.static_fixed = Some(1.2),
        AhuPlan::default(),
        &[Col::Damper, Col::Airflow, Col::AirflowSp, Col::Occupancy],
        &["supply_fan_status", "duct_static", "duct_static_sp"],
    )
}

/// [`damper_census_in`] in summer.
fn damper_census(step: usize, faulty: bool) -> Building {
    damper_census_in("zones-damper-census", Season::Summer, step, faulty)
}

/// [`damper_census_in`] in winter, when the healthy static reset sits low and keeps its two
/// critical boxes near wide open by design (the twin the census once faulted).
fn damper_census_winter(step: usize, faulty: bool) -> Building {
    damper_census_in("zones-damper-census-winter", Season::Winter, step, faulty)
}

/// `overcooling_min_flow`: a winter fortnight on the office floor; VAV-3's cooling minimum was
/// set at 65 % of its 1,000 cfm design (not the 30 % it needs), so the satisfied perimeter zone
/// is pushed into heating and the box reheats its own cold air for much of the day.
fn overcooling_min_flow(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-overcooling-min-flow", Season::Winter, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-3",
        |p| p.min_frac = 0.65,
        |_| {},
        AhuPlan::default(),
        &[
            Col::SpaceTemp,
            Col::CoolSp,
            Col::HeatSp,
            Col::Airflow,
            Col::AirflowSp,
            Col::AirflowMinSp,
            Col::Damper,
            Col::HeatValve,
            Col::Occupancy,
        ],
        &["supply_fan_status"],
    )
}

/// `overcooling_severity`: a winter fortnight on the office floor; VAV-1's reheat lockout was
/// entered as 25 °F outdoor instead of 65 °F, so on all but the coldest days the perimeter zone
/// sits at its minimum of 62 °F supply air with the valve shut, degrees below its heating setpoint.
fn overcooling_severity(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-overcooling-severity", Season::Winter, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-1",
        |p| p.reheat_lockout = Some(25.0),
        |_| {},
        AhuPlan::default(),
        &[Col::SpaceTemp, Col::CoolSp, Col::HeatSp, Col::HeatValve, Col::Occupancy],
        &["supply_fan_status"],
    )
}

/// `reheat_capacity_shortfall`: twenty winter days on the office floor; VAV-1's reheat coil
/// gets a quarter of its design heat (a plugged strainer), so on cold days its
/// valve sits wide open and the perimeter zone stays below its heating setpoint.
fn reheat_capacity_shortfall(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-reheat-shortfall", Season::Winter, 20, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-1",
        |p| p.reheat = 0.25,
        |_| {},
        AhuPlan::default(),
        &[
            Col::SpaceTemp,
            Col::HeatSp,
            Col::CoolSp,
            Col::HeatValve,
            Col::Airflow,
            Col::AirflowSp,
            Col::Dat,
            Col::Occupancy,
        ],
        &["supply_fan_status"],
    )
}

/// `reheat_minimization_g36`: a winter fortnight on the office floor; VAV-7 was programmed with a
/// single-maximum heating sequence, so whenever it heats it moves 70 % of its 1,400 cfm design
/// instead of holding its minimum while the discharge temperature rises.
fn reheat_minimization_g36(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-reheat-minimization", Season::Winter, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-7",
        |p| p.single_max = Some(0.7),
        |_| {},
        AhuPlan::default(),
        &[
            Col::SpaceTemp,
            Col::HeatValve,
            Col::Airflow,
            Col::AirflowSp,
            Col::AirflowMinSp,
            Col::HeatLoop,
            Col::Dat,
            Col::Occupancy,
        ],
        &["supply_fan_status"],
    )
}

/// `unmet_setpoint_hours`: a summer fortnight on the office floor; VAV-4's room was turned into
/// a training room, its people and equipment load 1.9 times what the 800 cfm box was sized for,
/// so on afternoons it runs at full airflow and rises past its cooling setpoint.
fn unmet_setpoint_hours(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-unmet-hours", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-4",
        |p| p.load = 1.9,
        |_| {},
        AhuPlan::default(),
        &[Col::SpaceTemp, Col::CoolSp, Col::HeatSp, Col::Occupancy],
        &["supply_fan_status"],
    )
}

/// `reheat_penalty`: a summer fortnight on the office floor; VAV-3's heating setpoint was raised
/// to 73 °F to answer a complaint, a degree under its 74 °F cooling setpoint, so on mornings and
/// cloudy hours the box reheats its minimum of 55 °F air in cooling weather.
fn reheat_penalty(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-reheat-penalty", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-3",
        |p| p.heat_sp = 73.0,
        |_| {},
        AhuPlan::default(),
        &[
            Col::HeatValve,
            Col::SpaceTemp,
            Col::HeatSp,
            Col::CoolSp,
            Col::Airflow,
            Col::AirflowSp,
            Col::Dat,
            Col::Occupancy,
            Col::Oat,
        ],
        &["supply_fan_status"],
    )
}

/// `co2_ventilation_system`: a summer fortnight on the office floor, CO2 trended in each zone;
/// the air handler's outdoor-air damper minimum slipped from 20 % to 8 % (a loose linkage), so
/// with the economizer locked out by the heat the zones' CO2 rises 700 to 1,100 ppm over outdoor.
fn co2_ventilation_system(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-co2-ventilation", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "VAV-6",
        |_| {},
        |a| a.oa_min = 8.0,
        AhuPlan::default(),
        &[Col::Co2, Col::Occupancy, Col::SpaceTemp],
        &["supply_fan_status", "econ_cmd", "oat", "oa_damper", "mixed_air_temp", "return_air_temp"],
    )
}

/// `dcv_system_verification`: a summer fortnight on the office floor, CO2 trended in the zones
/// and the outdoor-air damper at the air handler, which resets its minimum between 8 % and 20 %
/// on the highest zone CO2; in the faulty build the reset was disabled in a software update and
/// the damper sits at its 20 % design minimum whatever the CO2.
fn dcv_system_verification(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("zones-dcv-system", Season::Summer, 14, step);
    floor(
        &lab,
        FLOOR,
        faulty,
        "AHU-1",
        |_| {},
        |a| a.dcv = false,
        AhuPlan { dcv: true, ..AhuPlan::default() },
        &[Col::Co2, Col::Occupancy],
        &["supply_fan_status", "econ_cmd", "oat", "oa_damper"],
    )
}

/// The zone cases.
pub fn cases() -> Vec<Case> {
    vec![
        Case { rule: "cohort_airflow", steps: EVERY_STEP, build: cohort_airflow },
        Case { rule: "cohort_airflow", steps: EVERY_STEP, build: cohort_airflow_thermostat },
        Case { rule: "cohort_space_temp", steps: EVERY_STEP, build: cohort_space_temp },
        Case { rule: "sat_cohort_starvation", steps: EVERY_STEP, build: sat_cohort_starvation },
        Case { rule: "static_reset_effectiveness", steps: EVERY_STEP, build: static_reset_effectiveness },
        Case { rule: "damper_census", steps: EVERY_STEP, build: damper_census },
        Case { rule: "damper_census", steps: EVERY_STEP, build: damper_census_winter },
        Case { rule: "overcooling_min_flow", steps: EVERY_STEP, build: overcooling_min_flow },
        Case { rule: "overcooling_severity", steps: EVERY_STEP, build: overcooling_severity },
        Case { rule: "reheat_capacity_shortfall", steps: EVERY_STEP, build: reheat_capacity_shortfall },
        Case { rule: "reheat_minimization_g36", steps: EVERY_STEP, build: reheat_minimization_g36 },
        Case { rule: "unmet_setpoint_hours", steps: EVERY_STEP, build: unmet_setpoint_hours },
        Case { rule: "reheat_penalty", steps: EVERY_STEP, build: reheat_penalty },
        Case { rule: "co2_ventilation_system", steps: EVERY_STEP, build: co2_ventilation_system },
        Case { rule: "dcv_system_verification", steps: EVERY_STEP, build: dcv_system_verification },
    ]
}
