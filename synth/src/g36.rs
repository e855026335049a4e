//! VAV reheat systems under ASHRAE Guideline 36: each air handler serves six boxes; zone
//! cooling and heating loops set box airflow and reheat; zones send supply-air-temperature
//! and static-pressure requests; the air handler trims and responds both setpoints.

use crate::common::{lag, occupied, Clock, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Air-handler roles in table order.
pub const AHU_ROLES: [&str; 10] = [
    "oat",
    "supply_air_temp",
    "supply_air_temp_sp",
    "duct_static",
    "duct_static_sp",
    "supply_fan_status",
    "supply_fan_speed",
    "sat_reset_requests",
    "static_pressure_requests",
    "occupancy",
];
/// Box roles in table order.
pub const VAV_ROLES: [&str; 11] = [
    "space_temp",
    "cool_sp",
    "heat_sp",
    "airflow",
    "airflow_sp",
    "airflow_min_sp",
    "damper",
    "heat_valve",
    "zone_cool_loop",
    "zone_heat_loop",
    "occupancy",
];

/// One zone and its box.
#[derive(Clone, Debug)]
pub struct ZoneCfg {
    /// Design (maximum cooling) airflow, cfm.
    pub design: f64,
    /// Minimum airflow as a fraction of design.
    pub min_frac: f64,
    /// Occupied internal gain, Btu/h per design cfm.
    pub q_int: f64,
    /// Internal gain left when unoccupied, fraction of `q_int`.
    pub q_unocc: f64,
    /// Peak solar gain, Btu/h per design cfm.
    pub solar: f64,
    /// Hour of peak sun on the facade.
    pub solar_peak: f64,
    /// Envelope conductance, Btu/h·°F per design cfm.
    pub ua: f64,
    /// Share of duct static available at the box inlet.
    pub loss: f64,
    /// Damper mechanically stuck at this position (%).
    pub stuck: Option<f64>,
}

/// One air handler with its boxes.
#[derive(Clone, Debug)]
pub struct SysCfg {
    /// The six zones.
    pub zones: [ZoneCfg; 6],
    /// Static-pressure reset floor and ceiling, inH2O.
    pub sp_min: f64,
    /// Static-pressure reset ceiling, inH2O.
    pub sp_max: f64,
    /// Requests ignored by both resets.
    pub ignores: u32,
    /// Supply-air setpoint held at this value (reset disabled), °F.
    pub sat_fixed: Option<f64>,
    /// Label of the air handler.
    pub ahu_label: &'static str,
    /// Labels of the boxes.
    pub vav_labels: [&'static str; 6],
}

/// The six zones of a system. Each box is sized for its zone's peak: the perimeter zones peak at
/// about 12 Btu/h per design cfm (people and equipment, and under a third of it sun through
/// shaded glazing), the far interior zone lower to leave room for its duct loss. The zones then
/// reach their boxes' maximum together, as the trim-and-respond resets expect: ignoring two
/// requests, they answer a lone zone only once it is 3 °F warm (two requests at 2 °F are
/// ignored), so a system whose east zone peaked alone in the morning sun left it warm for hours.
fn zones() -> [ZoneCfg; 6] {
    let z = |design, q_int, solar, solar_peak, ua, loss| ZoneCfg {
        design,
        min_frac: 0.3,
        q_int,
        q_unocc: 0.1,
        solar,
        solar_peak,
        ua,
        loss,
        stuck: None,
    };
    [
        z(1200.0, 10.0, 2.0, 12.0, 0.15, 0.95), // north perimeter
        z(900.0, 9.0, 3.0, 9.5, 0.15, 0.90),    // east perimeter
        z(1000.0, 9.0, 3.5, 12.5, 0.15, 0.90),  // south perimeter
        z(600.0, 6.0, 0.0, 12.0, 0.06, 0.95),   // interior, near the fan
        z(1100.0, 9.0, 3.0, 15.5, 0.15, 0.85),  // west perimeter
        z(800.0, 8.0, 1.0, 12.0, 0.08, 0.85),   // interior, far end of the duct
    ]
}

impl Default for SysCfg {
    fn default() -> Self {
        SysCfg {
            zones: zones(),
            sp_min: 0.1,
            sp_max: 1.5,
            ignores: 2,
            sat_fixed: None,
            ahu_label: "",
            vav_labels: [""; 6],
        }
    }
}

/// The G36 dataset's scenarios.
pub fn scenarios() -> Vec<(&'static str, SysCfg)> {
    let d = SysCfg::default;
    let starved = "starved_by_air_handler";
    let low_static = SysCfg {
        sp_min: 0.07,
        sp_max: 0.07,
        ahu_label: "static_too_low",
        vav_labels: [starved, starved, starved, "", starved, starved],
        ..d()
    };
    let mut rogue = SysCfg { vav_labels: ["", "rogue_zone", "", "", "", ""], ..d() };
    rogue.zones[1].q_int = 22.0; // a crowded room fed by a box sized for an office
    let mut stuck = SysCfg { vav_labels: ["", "", "stuck_damper", "", "", ""], ..d() };
    stuck.zones[2].stuck = Some(35.0);
    let ov = "heating_cooling_overlap";
    let mut reheat =
        SysCfg { sat_fixed: Some(50.0), ahu_label: "sat_reset_disabled", vav_labels: [ov, ov, ov, ov, "", ""], ..d() };
    for z in reheat.zones.iter_mut().take(4) {
        z.min_frac = 0.75;
    }
    let mut near = SysCfg { sp_min: 0.25, ignores: 3, ..d() };
    near.zones[1].q_int = 9.5;
    near.zones[3].min_frac = 0.45;
    vec![
        ("healthy", d()),
        ("low_static", low_static),
        ("rogue_zone", rogue),
        ("stuck_vav_damper", stuck),
        ("reheat_overlap", reheat),
        ("near_miss", near),
    ]
}

/// A zone's control and thermal state.
struct ZoneState {
    tz: f64,
    ic: f64,
    ih: f64,
    damper: f64,
    sat_req_latch: bool,
    sp_req_latch: bool,
    gain: Ar1,
}

/// Simulate one system; returns the air-handler table and the six box tables.
pub fn simulate(cfg: &SysCfg, w: &Weather, clock: &Clock, seed: u64, ahu_equip: &str) -> (Table, Vec<Table>) {
    let mut rng = Rng::stream(seed, ahu_equip, "noise");
    let mut at = Table::new(&AHU_ROLES, clock.n);
    let mut vt: Vec<Table> = (0..6).map(|_| Table::new(&VAV_ROLES, clock.n)).collect();
    let mut zs: Vec<ZoneState> = (0..6)
        .map(|_| ZoneState {
            tz: 70.0,
            ic: 0.0,
            ih: 0.0,
            damper: 0.0,
            sat_req_latch: false,
            sp_req_latch: false,
            gain: Ar1::new(0.1, 120.0, 1.0, &mut rng),
        })
        .collect();
    let mut flows = [0.0f64; 6];
    let mut sat_noise = Ar1::new(0.3, 10.0, 1.0, &mut rng);
    let q_design: f64 = cfg.zones.iter().map(|z| z.design).sum();
    let (mut sat, mut p_sp, mut t_max) = (68.0f64, 0.5f64, 65.0f64);
    let mut on_min = 0usize;
    let (mut sat_reqs, mut sp_reqs) = (0u32, 0u32);
    let (a_sat, a_dmp, dt_h) = (lag(5.0), lag(2.0), 1.0 / 60.0);
    let (kp, ki) = (30.0, 1.0);

    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let occ = occupied(wd, hour);
        let fan = occ;
        let oat = w.oat[k];
        if fan {
            on_min += 1;
        } else {
            on_min = 0;
            p_sp = 0.5;
            t_max = 65.0;
            sat_reqs = 0;
            sp_reqs = 0;
        }
        // Trim and respond every 2 minutes once the fan has run 10 minutes.
        if fan && on_min > 10 && k % 2 == 0 {
            let r = sp_reqs as f64 - cfg.ignores as f64;
            p_sp += if r <= 0.0 { -0.05 } else { (0.06 * r).min(0.13) };
            p_sp = p_sp.clamp(cfg.sp_min, cfg.sp_max);
            let r = sat_reqs as f64 - cfg.ignores as f64;
            t_max += if r <= 0.0 { 0.2 } else { -(0.3 * r).min(1.0) };
            t_max = t_max.clamp(55.0, 65.0);
        }
        let p = p_sp.clamp(cfg.sp_min, cfg.sp_max);
        let sat_sp = match cfg.sat_fixed {
            Some(v) => v,
            None => {
                let x = ((oat - 60.0) / 10.0).clamp(0.0, 1.0);
                t_max + (55.0 - t_max) * x
            }
        };
        let avg_tz = zs.iter().map(|z| z.tz).sum::<f64>() / 6.0;
        let sn = sat_noise.step(&mut rng);
        if fan {
            sat += (sat_sp + sn - sat) * a_sat;
        } else {
            sat += (0.8 * avg_tz + 0.2 * oat - sat) * lag(30.0);
        }
        let (csp, hsp) = if occ { (74.0, 70.0) } else { (85.0, 60.0) };
        let (mut new_sat_reqs, mut new_sp_reqs) = (0u32, 0u32);
        let record = clock.sample_at(k);
        let mut total_flow = 0.0;
        for (j, (z, zc)) in zs.iter_mut().zip(cfg.zones.iter()).enumerate() {
            let g = 1.0 + z.gain.step(&mut rng);
            let internal = zc.q_int * if occ { g } else { zc.q_unocc };
            let q = zc.design * (internal + zc.solar * w.solar(k, zc.solar_peak)) + zc.ua * zc.design * (oat - z.tz);
            let (cool, heat, flow_sp, valve);
            let min = zc.min_frac * zc.design;
            let fmax = 1.5 * zc.design * (p * zc.loss).sqrt();
            if fan {
                let ec = z.tz - csp;
                z.ic = (z.ic + ki * ec).clamp(0.0, 100.0);
                cool = (kp * ec + z.ic).clamp(0.0, 100.0);
                let eh = hsp - z.tz;
                z.ih = (z.ih + ki * eh).clamp(0.0, 100.0);
                heat = if cool > 0.0 { 0.0 } else { (kp * eh + z.ih).clamp(0.0, 100.0) };
                let heat_max = (0.5 * zc.design).max(min);
                flow_sp = if cool > 0.0 {
                    min + (zc.design - min) * cool / 100.0
                } else if heat > 50.0 {
                    min + (heat_max - min) * (heat - 50.0) / 50.0
                } else {
                    min
                };
                valve = (2.0 * heat).min(100.0);
                let target = (100.0 * flow_sp / fmax).clamp(0.0, 100.0);
                z.damper += (target - z.damper) * a_dmp;
            } else {
                z.ic = 0.0;
                z.ih = 0.0;
                cool = 0.0;
                heat = 0.0;
                flow_sp = 0.0;
                valve = 0.0;
                z.damper += (0.0 - z.damper) * a_dmp;
            }
            if let Some(s) = zc.stuck {
                z.damper = s;
            }
            let flow = if fan { fmax * z.damper / 100.0 } else { 0.0 };
            flows[j] = flow;
            total_flow += flow;
            let t_dis = sat + 45.0 * valve / 100.0;
            // Air and furnishings respond within the hour; with the fan off, slow changes also
            // reach the structure, so the effective capacitance is larger.
            let cap = if fan { 1.5 } else { 5.0 } * 1.08 * zc.design;
            z.tz += dt_h * (q + 1.08 * flow * (t_dis - z.tz)) / cap;

            if fan {
                // Guideline 36 zone requests.
                let over = z.tz - csp;
                if cool < 85.0 {
                    z.sat_req_latch = false;
                } else if cool >= 95.0 {
                    z.sat_req_latch = true;
                }
                new_sat_reqs += if over >= 3.0 {
                    3
                } else if over >= 2.0 {
                    2
                } else {
                    z.sat_req_latch as u32
                };
                if z.damper < 85.0 {
                    z.sp_req_latch = false;
                } else if z.damper >= 95.0 {
                    z.sp_req_latch = true;
                }
                new_sp_reqs += if flow_sp > 0.0 && z.damper >= 95.0 && flow < 0.5 * flow_sp {
                    3
                } else if flow_sp > 0.0 && z.damper >= 95.0 && flow < 0.7 * flow_sp {
                    2
                } else {
                    z.sp_req_latch as u32
                };
            }
            if let Some(i) = record {
                let t = &mut vt[j];
                t.set(0, i, z.tz + 0.2 * rng.normal());
                t.set(1, i, csp);
                t.set(2, i, hsp);
                t.set(3, i, if fan { (flow * (1.0 + 0.02 * rng.normal()) + 5.0 * rng.normal()).max(0.0) } else { 0.0 });
                t.set(4, i, flow_sp);
                t.set(5, i, if fan { min } else { 0.0 });
                t.set(6, i, z.damper);
                t.set(7, i, valve);
                t.set(8, i, cool);
                t.set(9, i, heat);
                t.set(10, i, if occ { 1.0 } else { 0.0 });
            }
        }
        if fan {
            sat_reqs = new_sat_reqs;
            sp_reqs = new_sp_reqs;
        }
        if let Some(i) = record {
            let x = total_flow / q_design;
            let speed = if fan { (100.0 * (0.7 * x * x + 0.3 * p / 1.5).sqrt()).clamp(15.0, 100.0) } else { 0.0 };
            at.set(0, i, oat + 0.3 * rng.normal());
            at.set(1, i, sat + 0.2 * rng.normal());
            at.set(2, i, sat_sp);
            at.set(3, i, if fan { (p + 0.015 * rng.normal()).max(0.0) } else { 0.0 });
            at.set(4, i, p);
            at.set(5, i, if fan { 1.0 } else { 0.0 });
            at.set(6, i, speed);
            at.set(7, i, sat_reqs as f64);
            at.set(8, i, sp_reqs as f64);
            at.set(9, i, if occ { 1.0 } else { 0.0 });
        }
    }
    (at, vt)
}

/// Build the G36 dataset's units: per scenario the AHU, then VAV1..VAV6.
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let mut out = Vec::new();
    for (sc, cfg) in scenarios() {
        let ahu_equip = format!("AHU__{sc}");
        let (at, vts) = simulate(&cfg, w, clock, seed, &ahu_equip);
        out.push(Unit { equip: ahu_equip, class: "AHU", scenario: sc, label: cfg.ahu_label, table: at });
        for (j, table) in vts.into_iter().enumerate() {
            out.push(Unit {
                equip: format!("VAV{}__{sc}", j + 1),
                class: "VAV",
                scenario: sc,
                label: cfg.vav_labels[j],
                table,
            });
        }
    }
    out
}
