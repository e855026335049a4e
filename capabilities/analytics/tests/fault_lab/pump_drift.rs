//! Pump and hydronic-loop drift: one variable-flow loop model, a chilled-water loop in July or a
//! hot-water loop in January, run three weeks minute by minute. The coil valves draw what the
//! weather and the occupancy schedule ask for; a drive holds a remote DP sensor at its setpoint
//! (the pump works on its own curve, head = shutoff × speed² − losses × flow², and hunts a
//! little about the speed the loop needs); the plant's header DP transmitter, the flow meter,
//! the pump's suction-to-discharge head, its power and the supply and return temperatures are
//! trended. The baseline is the first week, the current window the third; in a faulty run the
//! fault develops (or happens) during the second week, in a twin it never does.

use super::kit::{window, DriftCase, Lab, Season, EVERY_STEP};
use camber_analytics::engine::Frame;

/// Which loop the model runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Water {
    /// A chilled-water loop in summer, the plant enabled on weekdays 6:00 to 19:00.
    Chw,
    /// A hot-water loop in winter, running around the clock.
    Hw,
}

/// What goes wrong, at its full size.
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// The suction strainer clogs: its drop at design flow rises from the clean 1 psi to this.
    Strainer(f64),
    /// The impeller wears: it loses this fraction of its head at any speed.
    Impeller(f64),
    /// The motor (a failing bearing, a winding) loses this fraction of its efficiency.
    Motor(f64),
    /// A bypass between the supply and return headers is left open, passing this fraction of
    /// design flow at the design header DP.
    Bypass(f64),
    /// A main valve downstream of the header DP transmitter is left part shut, adding this drop
    /// (psi) at design flow.
    Throttle(f64),
    /// The header DP transmitter drifts by this (psi).
    DpSensor(f64),
}

/// How the fault arrives: a ramp between two days of the run, or a step on a day (fractional).
#[derive(Clone, Copy, Debug)]
enum Onset {
    Ramp(f64, f64),
    Step(f64),
}

/// A loop's design: flows in gpm, pressures in psi at design flow, ΔT in °F.
struct Design {
    season: Season,
    /// Design flow.
    q: f64,
    /// Coil ΔT at design load.
    dt: f64,
    /// The remote DP setpoint the drive holds.
    sp: f64,
    /// Distribution drop (header to the remote sensor) at design flow.
    dist: f64,
    /// Plant-side drop (chiller or boiler, piping, check valve) at design flow.
    plant: f64,
    /// The clean strainer's drop at design flow.
    strainer: f64,
    /// The pump's own droop below shutoff at design flow and full speed.
    droop: f64,
    /// The speed (fraction) design flow takes.
    design_speed: f64,
    /// The drive's minimum speed (fraction).
    min_speed: f64,
    /// Pump efficiency at its best point.
    eta: f64,
}

fn design(w: Water) -> Design {
    match w {
        Water::Chw => Design {
            season: Season::Summer,
            q: 600.0,
            dt: 12.0,
            sp: 6.0,
            dist: 8.0,
            plant: 8.0,
            strainer: 1.0,
            droop: 5.0,
            design_speed: 0.9,
            min_speed: 0.3,
            eta: 0.76,
        },
        Water::Hw => Design {
            season: Season::Winter,
            q: 300.0,
            dt: 20.0,
            sp: 4.0,
            dist: 7.0,
            plant: 6.0,
            strainer: 0.8,
            droop: 4.0,
            design_speed: 0.88,
            min_speed: 0.3,
            eta: 0.72,
        },
    }
}

/// The share of the fault present at minute `m`.
fn developed(onset: Onset, m: usize) -> f64 {
    let d = m as f64 / 1440.0;
    match onset {
        Onset::Ramp(a, b) => ((d - a) / (b - a)).clamp(0.0, 1.0),
        Onset::Step(a) => f64::from(u8::from(d >= a)),
    }
}

/// A logged column: the per-minute truth sampled at the lab's interval plus white noise whose
/// standard deviation depends on the value.
fn sensed(lab: &Lab, who: &str, what: &str, truth: &[f64], sd: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut rng = lab.rng(who, what);
    lab.keep(truth).into_iter().map(|v| v + sd(v) * rng.normal()).collect()
}

/// Three weeks of the loop `w` at `step`, the fault developing in the second week when given;
/// the whole run as one frame with the loop's roles.
fn simulate(name: &'static str, w: Water, step: usize, fault: Option<(Fault, Onset)>) -> Frame {
    let d = design(w);
    let lab = Lab::new(name, d.season, 21, step);
    let n = lab.minutes;
    let q2 = d.q * d.q;
    let shutoff = (d.sp + d.dist + d.plant + d.strainer + d.droop) / (d.design_speed * d.design_speed);
    let (kp, c) = (d.plant / q2, d.droop / q2);
    // weather-independent randomness of the load, the valves, the drive and the plant's control
    let load_noise = lab.red("load", "plr", 0.04, 90.0);
    let valve_noise = lab.red("valves", "flow", 0.02, 8.0);
    let hunt = lab.red("drive", "hunt", 0.006, 3.0);
    let supply_noise = lab.red("plant", "supply", if w == Water::Chw { 0.3 } else { 1.0 }, 15.0);
    let coil_noise = lab.red("coils", "dt", if w == Water::Chw { 0.35 } else { 0.6 }, 120.0);
    let power_noise = lab.red("motor", "power", 0.01, 30.0);
    let mut cols: [Vec<f64>; 9] = std::array::from_fn(|_| Vec::with_capacity(n));
    let [flow, speed, status, head, power, dp, warm, cool, offset] = &mut cols;
    let (mut t_supply, mut t_return) = if w == Water::Chw { (60.0, 62.0) } else { (150.0, 135.0) };
    for m in 0..n {
        let (oat, h) = (lab.oat(m), lab.hour(m));
        let dev = fault.map_or(0.0, |(_, on)| developed(on, m));
        let size = |pick: fn(Fault) -> Option<f64>| fault.and_then(|(k, _)| pick(k));
        let strainer = size(|k| if let Fault::Strainer(v) = k { Some(v) } else { None })
            .map_or(d.strainer, |v| d.strainer + (v - d.strainer) * dev);
        let [wear, motor, bypass, throttle, drift] = [
            size(|k| if let Fault::Impeller(v) = k { Some(v) } else { None }),
            size(|k| if let Fault::Motor(v) = k { Some(v) } else { None }),
            size(|k| if let Fault::Bypass(v) = k { Some(v) } else { None }),
            size(|k| if let Fault::Throttle(v) = k { Some(v) } else { None }),
            size(|k| if let Fault::DpSensor(v) = k { Some(v) } else { None }),
        ]
        .map(|v| v.unwrap_or(0.0) * dev);
        offset.push(drift);
        // the load (part-load ratio) the coils ask for, and whether the pump runs
        let (on, plr) = match w {
            Water::Chw => {
                let occ = lab.occupied(m);
                let sun = (std::f64::consts::PI * (h - 7.0) / 12.0).sin().max(0.0);
                let pulldown = if lab.weekday(m) && (6.0..7.0).contains(&h) { 0.25 } else { 0.0 };
                let plr = 0.08 + if occ { 0.25 } else { 0.05 } + pulldown + 0.012 * (oat - 60.0).max(0.0) + 0.12 * sun;
                (lab.weekday(m) && (6.0..19.0).contains(&h), plr + load_noise[m])
            }
            Water::Hw => {
                let occ = lab.occupied(m);
                let warmup = if lab.weekday(m) && (5.0..7.0).contains(&h) { 0.2 } else { 0.0 };
                let envelope = (62.0 - oat).max(0.0) / 75.0 * if occ { 1.0 } else { 0.75 };
                (true, 0.08 + envelope + warmup + load_noise[m])
            }
        };
        let plr = plr.clamp(0.06, 1.0);
        if !on {
            // no flow: the headers drift toward the plant room's temperature
            let room = if w == Water::Chw { 74.0 } else { 70.0 };
            t_supply += (room - t_supply) / 90.0;
            t_return += (room - t_return) / 120.0;
            for v in [&mut *flow, speed, status, head, power, dp] {
                v.push(0.0);
            }
            warm.push(if w == Water::Chw { t_return } else { t_supply });
            cool.push(if w == Water::Chw { t_supply } else { t_return });
            continue;
        }
        // the coils' flow, and a bypass's across the headers
        let shape = if w == Water::Chw { 0.8 + 0.2 * plr } else { 0.75 + 0.25 * plr };
        let coil_flow = d.q * plr / shape * (1.0 + valve_noise[m]);
        let kd = (d.dist + throttle) / q2;
        let header = d.sp + kd * coil_flow * coil_flow;
        let bypass_flow = bypass * d.q * (header / (d.sp + d.dist)).sqrt();
        let q = coil_flow + bypass_flow;
        // the drive holds the remote DP: the speed the loop needs, and its hunting about it
        let ks = strainer / q2;
        let top = shutoff * (1.0 - wear);
        let need = ((header + (kp + ks) * q * q + c * q * q) / top).sqrt();
        let s = (need + hunt[m]).clamp(d.min_speed, 1.0);
        let pump_head = top * s * s - c * q * q;
        // wire to water: the pump's efficiency about its best point (which moves with speed),
        // the motor and drive's falling off at low speed
        let best = d.q / d.design_speed;
        let r = q / (s * best);
        let eta_pump = d.eta * (1.0 - 0.8 * (r - 1.0).powi(2)).max(0.35);
        let eta_motor = 0.91 * (1.0 - 0.35 * (1.0 - s).powi(2)) * (1.0 - motor);
        let hydraulic_kw = q * pump_head * 2.31 / 3960.0 * 0.7457;
        // the supply temperature the plant holds, and the ΔT the coils (and a bypass) make
        let supply = match w {
            Water::Chw => 44.0,
            Water::Hw => 140.0 + 40.0 * ((60.0 - oat) / 60.0).clamp(0.0, 1.0),
        } + supply_noise[m];
        let coil_dt = d.dt * shape + coil_noise[m] + if w == Water::Hw { 0.05 * (supply - 160.0) } else { 0.0 };
        let loop_dt = coil_dt * coil_flow / q;
        let (ts, tr) = match w {
            Water::Chw => (supply, supply + loop_dt),
            Water::Hw => (supply, supply - loop_dt),
        };
        // the headers settle within a few minutes after a start
        t_supply += (ts - t_supply) / 4.0;
        t_return += (tr - t_return) / 6.0;
        flow.push(q);
        speed.push(100.0 * s);
        status.push(1.0);
        head.push(pump_head);
        power.push((hydraulic_kw / (eta_pump * eta_motor) + 0.15) * (1.0 + power_noise[m]));
        dp.push(pump_head - (kp + ks) * q * q);
        warm.push(if w == Water::Chw { t_return } else { t_supply });
        cool.push(if w == Water::Chw { t_supply } else { t_return });
    }
    let [flow, speed, status, head, power, dp, warm, cool, offset] = &cols;
    let dp_read: Vec<f64> = dp.iter().zip(offset).map(|(v, o)| v + o).collect();
    let (flow_r, speed_r, dp_r, warm_r, cool_r) = match w {
        Water::Chw => ("chw_flow", "chw_pump_speed", "chw_diff_press", "chw_return_temp", "chw_supply_temp"),
        Water::Hw => ("hw_flow", "hw_pump_speed", "hw_diff_press", "hw_supply_temp", "hw_return_temp"),
    };
    let logged = vec![
        (flow_r, sensed(&lab, "meter", "flow", flow, |v| 1.5 + 0.005 * v).into_iter().map(|v| v.max(0.0)).collect()),
        (speed_r, sensed(&lab, "drive", "speed", speed, |v| if v > 0.0 { 0.2 } else { 0.0 })),
        ("pump_status", lab.keep(status)),
        ("pump_head", sensed(&lab, "gauges", "head", head, |_| 0.25)),
        (
            "power",
            sensed(&lab, "meter", "power", power, |v| 0.02 + 0.005 * v).into_iter().map(|v| v.max(0.0)).collect(),
        ),
        (dp_r, sensed(&lab, "header", "dp", &dp_read, |_| 0.15)),
        (warm_r, sensed(&lab, "warm", "temp", warm, |_| 0.15)),
        (cool_r, sensed(&lab, "cool", "temp", cool, |_| 0.15)),
    ];
    Frame::from_rows(&lab.ts(), &logged)
}

/// The first week (baseline) and the third (current) of a run, the fault in it when `faulty`.
fn weeks(name: &'static str, w: Water, step: usize, fault: Option<(Fault, Onset)>) -> (Frame, Frame) {
    let f = simulate(name, w, step, fault);
    (window(&f, 0, 7), window(&f, 14, 21))
}

/// A case: `detector` on loop `w`, `fault` arriving as `onset` in the faulty run.
macro_rules! case {
    ($id:literal, $w:expr, $fault:expr, $onset:expr) => {
        DriftCase {
            detector: $id,
            steps: EVERY_STEP,
            build: |step, faulty| weeks($id, $w, step, faulty.then_some(($fault, $onset))),
        }
    };
}

/// The pump and loop detectors' cases, chilled-water then hot-water.
pub fn drift_cases() -> Vec<DriftCase> {
    vec![
        // the strainer clogs over the second week (debris after a loop flush): 1 to 4 psi at
        // design flow
        case!("pump_flow_drift", Water::Chw, Fault::Strainer(4.0), Onset::Ramp(7.5, 12.5)),
        // the impeller wears (sand in the loop), 15 % of its head at a speed
        case!("pump_head_drift", Water::Chw, Fault::Impeller(0.15), Onset::Ramp(7.5, 12.5)),
        // a motor bearing fails: the motor loses 15 % of its efficiency
        case!("pump_power_drift", Water::Chw, Fault::Motor(0.15), Onset::Ramp(8.0, 13.0)),
        // the plant's header bypass is left open after a chiller service on Thursday morning,
        // passing 15 % of design flow
        case!("loop_deltat_drift", Water::Chw, Fault::Bypass(0.15), Onset::Step(10.4)),
        // a main valve is left part shut after a chiller service, 6 psi at design flow
        case!("loop_dp_drift", Water::Chw, Fault::Throttle(6.0), Onset::Step(10.4)),
        // the hot-water strainer plugs, 0.8 to 5 psi at design flow: a tenth less flow at a speed
        case!("hw_pump_flow_drift", Water::Hw, Fault::Strainer(5.0), Onset::Ramp(7.5, 12.5)),
        // the hot-water pump's impeller wears, 15 % of its head at a speed: about 1.2 psi at the
        // half speed it mostly runs at
        case!("hw_pump_head_drift", Water::Hw, Fault::Impeller(0.15), Onset::Ramp(7.5, 12.5)),
        // its motor's bearing fails, 15 % of the motor's efficiency
        case!("hw_pump_power_drift", Water::Hw, Fault::Motor(0.15), Onset::Ramp(8.0, 13.0)),
        // the header bypass is left open after a boiler service, 15 % of design flow
        case!("hw_loop_deltat_drift", Water::Hw, Fault::Bypass(0.15), Onset::Step(10.4)),
        // the header DP transmitter drifts 2.5 psi low over the second week
        case!("hw_loop_dp_drift", Water::Hw, Fault::DpSensor(-2.5), Onset::Ramp(7.5, 12.5)),
    ]
}
