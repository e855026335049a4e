//! A two-chiller plant and its staging: a lead and a lag chiller of 300 tons each serving a
//! building whose load follows weather, sun and schedule. The plant controller runs the lead
//! chiller on the plant schedule (weekdays 05:00 to 19:00) and stages the lag chiller on when the
//! lead is near full load for a while and off when one machine could carry the load for a while,
//! each chiller held on and off for minimum times. The faults are the controller's:
//!
//! - `short_cycling`: the lag chiller stages on at 90 % of the lead's load and off when the two
//!   would each run below 55 % load, with no delay and short minimum times: whenever the load sits
//!   between 270 and 330 tons each start makes the case for the next stop, and it starts and
//!   stops many times a day;
//! - `left_on`: the lead chiller ignores the schedule and runs nights and weekends at a sliver of
//!   its capacity;
//! - `over_staged`: the lag chiller runs whenever the lead does, both at low part load, where one
//!   would do;
//! - `near_miss`: the plant schedule runs an hour late (to 20:00): the lead chiller runs an
//!   hour a weekday past the healthy plant's, which is not a chiller left on.
//!
//! Each chiller records its compressor status, power, chilled-water supply and return and its
//! evaporator flow. A stopped chiller draws a standby 2 kW and its isolated barrel drifts toward
//! the plant room.

use crate::common::{lag, Clock, CoolingLockout, Table, Unit};
use crate::rng::{Ar1, Rng};
use crate::weather::Weather;

/// Chiller roles in table order.
pub const ROLES: [&str; 5] = ["compressor_status", "power", "chw_supply_temp", "chw_return_temp", "chw_flow"];

const TONS: f64 = 300.0;
const GPM: f64 = 720.0;

/// How the lag chiller is staged.
#[derive(Clone, Copy, Debug)]
pub struct Staging {
    /// The lead chiller's part load above which the lag stages on, and the part load of each of
    /// the two running chillers below which it stages off.
    pub up_plr: f64,
    pub down_plr: f64,
    /// Minutes a condition must hold before the controller acts.
    pub delay_min: usize,
    /// Minimum minutes on and off of each chiller.
    pub min_on: usize,
    pub min_off: usize,
    /// The lag runs whenever the lead does.
    pub lag_always: bool,
    /// The lead ignores the schedule.
    pub lead_always: bool,
    /// The hour the plant schedule ends.
    pub until: f64,
}

/// One plant's configuration.
#[derive(Clone, Debug)]
pub struct PlantCfg {
    pub staging: Staging,
    /// The afternoon load, in units of one chiller's capacity at its peak.
    pub peak: f64,
    /// Labels of the lead and lag chillers.
    pub labels: [&'static str; 2],
    /// The chilled-water supply setpoint, on the plant's load as a share of both chillers'
    /// capacity (a plant-level reset, as a plant manager runs it). The staging
    /// dataset's plants hold 44 °F (no reset: what they are judged on is their staging).
    pub chw: crate::chw::ChwSp,
}

impl Default for PlantCfg {
    fn default() -> Self {
        PlantCfg {
            staging: Staging {
                up_plr: 0.9,
                down_plr: 0.375,
                delay_min: 15,
                min_on: 30,
                min_off: 20,
                lag_always: false,
                lead_always: false,
                until: 19.0,
            },
            peak: 1.35,
            labels: ["", ""],
            chw: crate::chw::ChwSp::Fixed(44.0),
        }
    }
}

/// The staging dataset's scenarios.
pub fn scenarios() -> Vec<(&'static str, PlantCfg)> {
    let d = PlantCfg::default;
    let base = d().staging;
    vec![
        ("healthy", d()),
        (
            "short_cycling",
            PlantCfg {
                staging: Staging { up_plr: 0.9, down_plr: 0.55, delay_min: 0, min_on: 10, min_off: 5, ..base },
                peak: 1.1,
                labels: ["", "chiller_short_cycling"],
                ..d()
            },
        ),
        (
            "left_on",
            PlantCfg { staging: Staging { lead_always: true, ..base }, labels: ["chiller_left_on", ""], ..d() },
        ),
        (
            "over_staged",
            PlantCfg {
                staging: Staging { lag_always: true, ..base },
                peak: 0.9,
                labels: ["chillers_over_staged", "chillers_over_staged"],
                ..d()
            },
        ),
        ("near_miss", PlantCfg { staging: Staging { until: 20.0, ..base }, ..d() }),
    ]
}

/// One chiller's state.
struct Machine {
    on: bool,
    /// Minutes since the last change.
    since: usize,
    chws: f64,
    chwr: f64,
}

impl Machine {
    fn switch(&mut self, on: bool) {
        if self.on != on {
            self.on = on;
            self.since = 0;
        }
    }
}

/// Simulate one plant; returns the lead and lag chillers' tables.
pub fn simulate(cfg: &PlantCfg, w: &Weather, clock: &Clock, seed: u64, equip: &str) -> [Table; 2] {
    let mut rng = Rng::stream(seed, equip, "noise");
    let mut tables = [Table::new(&ROLES, clock.n), Table::new(&ROLES, clock.n)];
    let mut hover = Ar1::new(0.04, 20.0, 1.0, &mut rng);
    let mut m = [
        Machine { on: false, since: 1000, chws: 60.0, chwr: 60.0 },
        Machine { on: false, since: 1000, chws: 60.0, chwr: 60.0 },
    ];
    let (mut load_f, mut want_up, mut want_down) = (50.0f64, 0usize, 0usize);
    let (a_load, a_t, a_off) = (lag(20.0), lag(6.0), lag(90.0));
    let s = cfg.staging;
    let mut lockout = CoolingLockout::default();
    for k in 0..clock.total() {
        let (wd, hour) = clock.when(k);
        let oat = w.oat[k];
        let scheduled = wd < 5 && hour >= 5.0 && hour < s.until && lockout.enabled(oat);
        let occ = wd < 5 && (6.0..18.0).contains(&hour);
        let sun = w.solar(k, 14.0);
        // the afternoon load reaches `peak` chillers on a warm sunny day
        let raw = if occ {
            TONS * cfg.peak * (0.45 + 0.012 * (oat - 65.0) + 0.35 * sun).clamp(0.2, 1.1)
        } else {
            TONS * (0.04 + 0.002 * (oat - 65.0).max(0.0))
        };
        load_f += (raw * (1.0 + hover.step(&mut rng)) - load_f) * a_load;
        let load = load_f.max(5.0);
        // the controller, once a minute
        let lead_on = scheduled || s.lead_always;
        if lead_on != m[0].on && (m[0].since >= if lead_on { s.min_off } else { s.min_on }) {
            m[0].switch(lead_on);
        }
        let lag_wanted = if !m[0].on {
            false
        } else if s.lag_always {
            true
        } else if m[1].on {
            want_down = if load / 2.0 < s.down_plr * TONS { want_down + 1 } else { 0 };
            want_down < s.delay_min.max(1)
        } else {
            want_up = if load > s.up_plr * TONS { want_up + 1 } else { 0 };
            want_up >= s.delay_min.max(1)
        };
        if lag_wanted != m[1].on && m[1].since >= if lag_wanted { s.min_off } else { s.min_on } {
            m[1].switch(lag_wanted);
            want_up = 0;
            want_down = 0;
        }
        let running = m.iter().filter(|c| c.on).count() as f64;
        for c in m.iter_mut() {
            c.since += 1;
            if c.on {
                let tons = (load / running).min(TONS * 1.05);
                let sp = cfg.chw.at(load / (2.0 * TONS));
                c.chws += (sp + 0.3 * rng.normal() - c.chws) * a_t;
                c.chwr += (c.chws + 24.0 * tons / GPM - c.chwr) * a_t;
            } else {
                c.chws += (62.0 - c.chws) * a_off;
                c.chwr += (c.chws + 0.3 - c.chwr) * a_off;
            }
        }
        if let Some(i) = clock.sample_at(k) {
            for (j, c) in m.iter().enumerate() {
                let tons = if c.on { (load / running).min(TONS * 1.05) } else { 0.0 };
                let plr = tons / TONS;
                // kW per ton rises at low part load
                let kw = if c.on { tons * (0.55 + 0.25 * (1.0 - plr).powi(2)) + 15.0 } else { 2.0 };
                let t = &mut tables[j];
                t.set(0, i, if c.on { 1.0 } else { 0.0 });
                t.set(1, i, kw * (1.0 + 0.01 * rng.normal()));
                t.set(2, i, c.chws + 0.15 * rng.normal());
                t.set(3, i, c.chwr + 0.15 * rng.normal());
                t.set(4, i, if c.on { GPM * (1.0 + 0.01 * rng.normal()) } else { 0.0 });
            }
        }
    }
    tables
}

/// Build the staging dataset's units: per scenario `CH1__<scenario>` (lead) then `CH2__<scenario>` (lag).
pub fn build(w: &Weather, clock: &Clock, seed: u64) -> Vec<Unit> {
    let mut out = Vec::new();
    for (sc, cfg) in scenarios() {
        let [lead, lag] = simulate(&cfg, w, clock, seed, &format!("PLANT__{sc}"));
        for (j, table) in [lead, lag].into_iter().enumerate() {
            out.push(Unit {
                equip: format!("CH{}__{sc}", j + 1),
                class: "CHILLER",
                scenario: sc,
                label: cfg.labels[j],
                table,
            });
        }
    }
    out
}
