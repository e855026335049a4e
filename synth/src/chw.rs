//! A chilled-water plant: one chiller and one cooling tower serving a building whose load
//! follows weather, sun and schedule. Chiller power comes from load and lift; the tower's
//! leaving water approaches wet-bulb by an approach that grows with load and shrinks with fan
//! speed; chilled- and condenser-water setpoints are reset in a healthy plant.

use crate::common::{lag, Clock, CoolingLockout, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Chiller roles in table order.
pub const CH_ROLES: [&str; 8] = [
    "chw_supply_temp",
    "chw_return_temp",
    "chw_supply_temp_sp",
    "chw_flow",
    "compressor_status",
    "power",
    "cond_approach_temp",
    "evap_approach_temp",
];
/// Tower roles in table order.
pub const CT_ROLES: [&str; 6] =
    ["cw_supply_temp", "cw_return_temp", "cw_flow", "tower_fan_speed", "oat", "wetbulb_temp"];

/// How the chilled-water supply setpoint is set.
#[derive(Clone, Copy, Debug)]
pub enum ChwSp {
    /// Reset with part load between a cold (high load) and a warm (low load) value, °F.
    Reset(f64, f64),
    /// Fixed value, °F.
    Fixed(f64),
}

impl ChwSp {
    /// The setpoint at part-load ratio `plr`: a reset runs from its warm value at 30 % load to
    /// its cold one at 80 %.
    pub fn at(&self, plr: f64) -> f64 {
        match *self {
            ChwSp::Fixed(v) => v,
            ChwSp::Reset(lo, hi) => hi - (hi - lo) * ((plr - 0.3) / 0.5).clamp(0.0, 1.0),
        }
    }
}

/// How the condenser-water supply setpoint is set.
#[derive(Clone, Copy, Debug)]
pub enum CwSp {
    /// Wet-bulb plus an approach target, clamped to (floor, ceiling), °F.
    Reset(f64, f64, f64),
    /// Fixed value, °F.
    Fixed(f64),
}

/// One plant's configuration.
#[derive(Clone, Debug)]
pub struct PlantCfg {
    /// Chilled-water setpoint strategy.
    pub chw: ChwSp,
    /// Condenser-water setpoint strategy.
    pub cw: CwSp,
    /// Tower approach multiplier (1 = clean fill).
    pub fouling: f64,
    /// A fill that fouls over time: from day `.0` of the span to day `.1` the multiplier grows
    /// linearly from `fouling` to `.2`, and stays there (`None`: constant).
    pub fouling_ramp: Option<(f64, f64, f64)>,
    /// Label of the chiller.
    pub ch_label: &'static str,
    /// Label of the tower.
    pub ct_label: &'static str,
}

impl Default for PlantCfg {
    fn default() -> Self {
        PlantCfg {
            chw: ChwSp::Reset(44.0, 50.0),
            cw: CwSp::Reset(7.0, 65.0, 85.0),
            fouling: 1.0,
            fouling_ramp: None,
            ch_label: "",
            ct_label: "",
        }
    }
}

impl PlantCfg {
    /// The approach multiplier on day `day` of the span (fractional; negative in the spin-up).
    pub fn fouling_on(&self, day: f64) -> f64 {
        match self.fouling_ramp {
            None => self.fouling,
            Some((from, to, end)) => {
                let x = if to > from {
                    ((day - from) / (to - from)).clamp(0.0, 1.0)
                } else if day >= from {
                    1.0
                } else {
                    0.0
                };
                self.fouling + (end - self.fouling) * x
            }
        }
    }
}

/// The plant dataset's scenarios.
pub fn scenarios() -> Vec<(&'static str, PlantCfg)> {
    let d = PlantCfg::default;
    vec![
        ("healthy", d()),
        ("fixed_cw_setpoint", PlantCfg { cw: CwSp::Fixed(85.0), ct_label: "no_cw_reset", ..d() }),
        ("fouled_tower", PlantCfg { fouling: 2.3, ct_label: "tower_fouled", ..d() }),
        ("chw_sp_fixed_low", PlantCfg { chw: ChwSp::Fixed(42.0), ch_label: "no_chw_reset", ..d() }),
        (
            "near_miss",
            PlantCfg { chw: ChwSp::Reset(44.0, 47.0), cw: CwSp::Reset(8.0, 72.0, 85.0), fouling: 1.3, ..d() },
        ),
    ]
}

const CAPACITY_TONS: f64 = 500.0;
const TOWER_TONS: f64 = 700.0;
const CHW_DESIGN_GPM: f64 = 1100.0;
const CW_GPM: f64 = 1500.0;

/// Simulate one plant; returns (chiller table, tower table).
pub fn simulate(cfg: &PlantCfg, w: &Weather, clock: &Clock, seed: u64, ch_equip: &str) -> (Table, Table) {
    let mut rng = Rng::stream(seed, ch_equip, "noise");
    let mut ch = Table::new(&CH_ROLES, clock.n);
    let mut ct = Table::new(&CT_ROLES, clock.n);
    let mut load_noise = Ar1::new(0.05, 60.0, 1.0, &mut rng);
    let mut chw_noise = Ar1::new(0.25, 8.0, 1.0, &mut rng);
    let (mut load_f, mut plr_f) = (100.0f64, 0.3f64);
    let (mut chws, mut chwr, mut cws, mut cwr) = (55.0f64, 58.0f64, 78.0f64, 78.0f64);
    let (a_load, a_plr, a_t, a_off) = (lag(20.0), lag(30.0), lag(6.0), lag(90.0));

    let mut lockout = CoolingLockout::default();
    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let (oat, wb) = (w.oat[k], w.wb[k]);
        let on = wd < 5 && (5.0..19.0).contains(&hour) && lockout.enabled(oat);
        let occ = wd < 5 && (6.0..18.0).contains(&hour);
        let sun = w.solar(k, 14.0);
        let ln = 1.0 + load_noise.step(&mut rng);
        let raw = if occ { 130.0 + 11.0 * (oat - 65.0) + 110.0 * sun } else { 60.0 + 6.0 * (oat - 65.0) + 40.0 * sun };
        load_f += (raw * ln - load_f) * a_load;
        let load = load_f.clamp(20.0, CAPACITY_TONS);
        let plr = load / CAPACITY_TONS;
        plr_f += (plr - plr_f) * a_plr;

        let chw_sp = cfg.chw.at(plr_f);
        let cw_sp = match cfg.cw {
            CwSp::Fixed(v) => v,
            CwSp::Reset(app, lo, hi) => (wb + app).clamp(lo, hi),
        };
        let (mut kw, mut fan, mut chw_flow, mut cw_flow, mut ev_app, mut cd_app) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        if on {
            chw_flow = (24.0 * load / 11.0).clamp(0.4 * CHW_DESIGN_GPM, CHW_DESIGN_GPM);
            cw_flow = CW_GPM;
            chws += (chw_sp + chw_noise.step(&mut rng) - chws) * a_t;
            chwr += (chws + 24.0 * load / chw_flow - chwr) * a_t;
            ev_app = 1.0 + 2.0 * plr;
            cd_app = 1.0 + 2.5 * plr;
            let t_evap = chws - ev_app;
            let t_cond = cwr + cd_app;
            let lift = (t_cond - t_evap).max(15.0);
            let cop = 0.6 * (t_evap + 459.67) / lift * (1.0 - 0.35 * (1.0 - plr).powi(2));
            kw = load * 3.517 / cop + 8.0;
            let rej = load + kw / 3.517;
            let day = (k as f64 - clock.spin as f64) / 1440.0;
            let a_full = (3.5 + 5.5 * rej / TOWER_TONS) * cfg.fouling_on(day);
            let a_req = cw_sp - wb;
            let s = if a_req <= 0.0 { 1.0 } else { (a_full / a_req).powf(1.0 / 0.6) };
            let target = if s >= 1.0 {
                fan = 100.0;
                wb + a_full
            } else if s >= 0.15 {
                fan = 100.0 * s;
                cw_sp
            } else {
                // Below minimum speed the fan cycles and the bypass holds the setpoint.
                fan = 0.0;
                cw_sp
            };
            cws += (target - cws) * a_t;
            cwr += (cws + 24.0 * rej / cw_flow - cwr) * a_t;
        } else {
            // Plant off: loops drift toward the plant room and the basin toward outdoor air.
            chws += (70.0 - chws) * a_off;
            chwr += (chws + 0.5 - chwr) * a_off;
            let basin = 0.5 * (oat + wb);
            cws += (basin - cws) * a_off;
            cwr += (cws + 0.3 - cwr) * a_off;
        }

        if let Some(i) = clock.sample_at(k) {
            let st = if on { 1.0 } else { 0.0 };
            ch.set(0, i, chws + 0.15 * rng.normal());
            ch.set(1, i, chwr + 0.15 * rng.normal());
            ch.set(2, i, chw_sp);
            ch.set(3, i, if on { chw_flow * (1.0 + 0.015 * rng.normal()) } else { 0.0 });
            ch.set(4, i, st);
            ch.set(5, i, if on { kw * (1.0 + 0.01 * rng.normal()) } else { 0.4 });
            ch.set(6, i, if on { cd_app + 0.2 * rng.normal() } else { 0.3 + 0.2 * rng.normal() });
            ch.set(7, i, if on { ev_app + 0.2 * rng.normal() } else { 0.3 + 0.2 * rng.normal() });
            ct.set(0, i, cws + 0.2 * rng.normal());
            ct.set(1, i, cwr + 0.2 * rng.normal());
            ct.set(2, i, if on { cw_flow * (1.0 + 0.01 * rng.normal()) } else { 0.0 });
            ct.set(3, i, fan);
            ct.set(4, i, oat + 0.3 * rng.normal());
            ct.set(5, i, wb + 0.4 * rng.normal());
        }
    }
    (ch, ct)
}

/// The fouling tower's fill: clean for two weeks, then fouling a little more every day until the
/// end of week six, when its approach at full fan is 1.8 times a clean tower's.
pub const FOULING_FROM_DAY: f64 = 14.0;
/// See [`FOULING_FROM_DAY`].
pub const FOULING_TO_DAY: f64 = 42.0;
/// See [`FOULING_FROM_DAY`].
pub const FOULING_END: f64 = 1.8;

/// Build the tower-fouling drift dataset's units: two identical plants' towers, `TOWER__clean`
/// and `TOWER__fouling` (whose fill fouls from [`FOULING_FROM_DAY`]), each recording its tower
/// points (the chillers that load them are simulated, not recorded).
pub fn build_fouling_drift(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let fouling = PlantCfg {
        fouling_ramp: Some((FOULING_FROM_DAY, FOULING_TO_DAY, FOULING_END)),
        ct_label: "tower_fouling_over_time",
        ..PlantCfg::default()
    };
    [("clean", PlantCfg::default()), ("fouling", fouling)]
        .into_iter()
        .map(|(sc, cfg)| {
            // each plant's own noise, as a plant of its own
            let (_, ct) = simulate(&cfg, w, clock, seed, &format!("CH__{sc}"));
            Unit { equip: format!("TOWER__{sc}"), class: "COOLING_TOWER", scenario: sc, label: cfg.ct_label, table: ct }
        })
        .collect()
}

/// Build the plant dataset's units: per scenario `CH__<scenario>` then `TOWER__<scenario>`.
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let mut out = Vec::new();
    for (sc, cfg) in scenarios() {
        let ch_equip = format!("CH__{sc}");
        let (ch, ct) = simulate(&cfg, w, clock, seed, &ch_equip);
        out.push(Unit { equip: ch_equip, class: "CHILLER", scenario: sc, label: cfg.ch_label, table: ch });
        out.push(Unit {
            equip: format!("TOWER__{sc}"),
            class: "COOLING_TOWER",
            scenario: sc,
            label: cfg.ct_label,
            table: ct,
        });
    }
    out
}
