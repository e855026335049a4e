//! Synthetic HVAC trend data with injected, labelled faults, from small physical models.
//!
//! `camber-synth` is the fixture source for analytics tests and the data behind the demo. Each
//! dataset simulates a handful of equipment at one-minute resolution against a shared site
//! weather (seasonal mean, daily cycle, fronts, noise) and records every point on a regular
//! grid in the store's IP units (°F, inH2O, cfm, %, gpm, kW). Every equipment belongs to one
//! scenario; a faulty scenario changes the model (a stuck damper, a leaking valve, a reset that
//! never moves), not the recorded numbers after the fact, so the fault shows up the way it
//! would in a real building.
//!
//! Output is deterministic: the same dataset id and seed give bit-identical values on the
//! same platform and build (the models use `f64` `exp`/`cos`/`ln`, whose last bit may differ
//! between platforms' math libraries). A different seed changes weather detail, sensor noise
//! and data gaps, never the scenarios or labels.
//!
//! Timestamps are naive site wall-clock nanoseconds since 1970-01-01T00:00 (no zone, no DST);
//! every dataset starts on a Monday at 00:00.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod ahu;
mod chw;
mod common;
mod g36;
mod heatpump;
mod hwplant;
/// The deterministic random source the models draw from, public so tests that build their own
/// noisy signals use the same generator.
pub mod rng;
mod staging;
mod weather;

use common::{Clock, Unit};
use rng::Rng;
use weather::Weather;

/// Version of the models; bump it whenever the same id and seed would produce different data,
/// so caches and recorded fixtures keyed on it are invalidated.
pub const GENERATOR_VERSION: u32 = 4;

/// One stored point's samples on a regular grid (NaN = no sample at that step).
#[derive(Clone, Debug, PartialEq)]
pub struct PointSeries {
    /// Equipment id the point belongs to, `<EQUIP>__<scenario>`.
    pub equip: String,
    /// Class of that equipment (AHU, VAV, CHILLER, COOLING_TOWER).
    pub equip_class: String,
    /// Camber role name of the point (e.g. `supply_air_temp`).
    pub role: String,
    /// Timestamp of `values[0]`, naive wall-clock ns since 1970-01-01T00:00.
    pub start_ns: i64,
    /// Grid spacing in ns.
    pub step_ns: i64,
    /// One value per grid step; NaN marks a missing sample.
    pub values: Vec<f64>,
}

impl PointSeries {
    /// Timestamp of sample `i`, so callers never redo the grid arithmetic.
    pub fn ts(&self, i: usize) -> i64 {
        self.start_ns + self.step_ns * i as i64
    }

    /// The present samples as (timestamp ns, value), skipping gaps: what a store writer wants.
    pub fn samples(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.values.iter().enumerate().filter(|(_, v)| !v.is_nan()).map(|(i, v)| (self.ts(i), *v))
    }
}

/// What one equipment is: its class, the scenario it runs and its fault label ("" = fault-free).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EquipmentInfo {
    /// Equipment id, `<EQUIP>__<scenario>`.
    pub equip: String,
    /// Equipment class.
    pub equip_class: String,
    /// Scenario this equipment was simulated under.
    pub scenario: String,
    /// Ground-truth fault label; "" when the equipment is fault-free.
    pub label: String,
}

/// Catalogue entry of a synthetic dataset: what it is and how it is sampled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetInfo {
    /// Stable dataset id (e.g. "synthetic-ahu-economizer").
    pub id: &'static str,
    /// Human title.
    pub title: &'static str,
    /// One-paragraph description of the equipment and scenarios.
    pub summary: &'static str,
    /// Seed used when the caller gives none.
    pub default_seed: u64,
    /// Sampling step in minutes.
    pub step_minutes: u32,
    /// Span in days.
    pub days: u32,
    /// Every fault label the dataset uses, with a one-line description.
    pub fault_types: Vec<(&'static str, &'static str)>,
}

/// A generated dataset: its catalogue entry, the seed used, the equipment and their points.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// Catalogue entry of the dataset.
    pub info: DatasetInfo,
    /// Seed the data was generated with.
    pub seed: u64,
    /// Every equipment with its scenario and label.
    pub equipment: Vec<EquipmentInfo>,
    /// Every point, grouped by equipment in `equipment` order.
    pub series: Vec<PointSeries>,
}

impl Generated {
    /// The point of `equip` with `role`, if generated: the usual lookup in tests and demos.
    pub fn series_of(&self, equip: &str, role: &str) -> Option<&PointSeries> {
        self.series.iter().find(|s| s.equip == equip && s.role == role)
    }

    /// Number of present (non-NaN) samples over all points: the row count a store would hold.
    pub fn row_count(&self) -> usize {
        self.series.iter().map(|s| s.values.iter().filter(|v| !v.is_nan()).count()).sum()
    }
}

/// Display unit of a role as stored (IP), so writers and demos label values consistently.
pub fn role_unit(role: &str) -> Option<&'static str> {
    Some(match role {
        "oat" | "return_air_temp" | "mixed_air_temp" | "supply_air_temp" | "supply_air_temp_sp" | "space_temp"
        | "cool_sp" | "heat_sp" | "chw_supply_temp" | "chw_return_temp" | "chw_supply_temp_sp" | "cw_supply_temp"
        | "cw_return_temp" | "wetbulb_temp" | "cond_approach_temp" | "evap_approach_temp" => "°F",
        "duct_static" | "duct_static_sp" => "inH₂O",
        "airflow" | "airflow_sp" => "cfm",
        "oa_damper" | "cool_valve" | "heat_valve" | "damper" | "supply_fan_speed" | "tower_fan_speed" => "%",
        "outdoor_rh" => "%RH",
        "chw_flow" | "cw_flow" => "gpm",
        "power" => "kW",
        "sat_reset_requests" | "static_pressure_requests" => "requests",
        _ => return None,
    })
}

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    camber_common::time::days_from_civil(y, m as u32, d as u32)
}

const NS_PER_DAY: i64 = 86_400_000_000_000;

/// A dataset's fixed recipe: start date, whether it needs wet-bulb, and its model.
struct Recipe {
    info: fn() -> DatasetInfo,
    start: (i64, i64, i64),
    wetbulb: bool,
    build: fn(&Weather, &Clock, u64) -> Vec<Unit>,
}

fn info_ahu() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-ahu-economizer",
        title: "Synthetic economizer air handlers",
        summary: "Eight constant-static air handlers with an integrated economizer, heating and cooling coils and a \
                  weekday 06:00-18:00 schedule, one per scenario, in spring weather: a healthy unit, six single faults \
                  (economizer lockout, stuck outdoor-air damper, leaking cooling valve, simultaneous heating and \
                  cooling, +3 °F supply-air sensor bias, night and weekend operation) and a near-miss unit that \
                  approaches each fault's threshold without crossing it.",
        default_seed: 251,
        step_minutes: 15,
        days: 21,
        fault_types: vec![
            ("econ_lockout", "economizer never opens beyond minimum outdoor air although free cooling is available"),
            ("stuck_oa_damper", "outdoor-air damper stuck at one position whatever the command, fan on or off"),
            (
                "leaking_cool_valve",
                "chilled-water valve passes water when closed: the coil cools air with the valve at 0%",
            ),
            ("simultaneous_heat_cool", "heating valve held open while occupied so heating and cooling run together"),
            ("sat_sensor_bias", "supply-air temperature sensor reads 3 °F high and the loop controls on it"),
            ("night_weekend_operation", "supply fan runs nights and weekends outside the occupancy schedule"),
        ],
    }
}

fn info_g36() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-g36-vav",
        title: "Synthetic Guideline 36 VAV systems",
        summary: "Six air handlers each serving six VAV reheat boxes, with ASHRAE Guideline 36 trim-and-respond \
                  resets of supply-air temperature and duct static pressure driven by zone requests: a healthy \
                  system, a static setpoint held too low (starved boxes), a rogue zone pinning both resets, a stuck \
                  box damper, reheat against a supply air held cold all day, and a near miss.",
        default_seed: 236,
        step_minutes: 60,
        days: 21,
        fault_types: vec![
            ("static_too_low", "duct static pressure setpoint held at a floor too low for the boxes to reach their airflow setpoints"),
            ("starved_by_air_handler", "box damper wide open but airflow well below setpoint because the air handler supplies too little static"),
            ("rogue_zone", "zone that always requests cooling and static pressure, pinning the air handler's resets"),
            ("stuck_damper", "box damper stuck at one position: airflow no longer follows its setpoint"),
            ("sat_reset_disabled", "air handler holds its supply air at a fixed cold setpoint instead of resetting it with the zones' requests"),
            ("heating_cooling_overlap", "box reheats for most occupied hours while the air handler supplies cold air"),
        ],
    }
}

fn info_chw() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-chw-plant",
        title: "Synthetic chilled-water plants",
        summary: "One chiller and one cooling tower per scenario in summer weather, serving a building load that \
                  follows weather and schedule: a healthy plant with chilled-water and condenser-water resets, a \
                  fixed condenser-water setpoint, a fouled tower, a chilled-water setpoint fixed low, and a near miss.",
        default_seed: 307,
        step_minutes: 15,
        days: 21,
        fault_types: vec![
            ("no_cw_reset", "condenser-water supply setpoint fixed instead of reset with outdoor wet-bulb"),
            ("tower_fouled", "cooling tower fill fouled: leaving water far above wet-bulb at full fan speed"),
            ("no_chw_reset", "chilled-water supply setpoint fixed low instead of reset with load"),
        ],
    }
}

fn info_staging() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-chiller-staging",
        title: "Synthetic two-chiller plants and their staging",
        summary: "A lead and a lag chiller of 300 tons per scenario in summer weather, staged by the plant \
                  controller on the building's load: a healthy plant, a lag chiller short cycling on staging points \
                  set too close, a lead chiller left on nights and weekends, both chillers run where one would do, \
                  and a near miss that starts a little more often.",
        default_seed: 411,
        step_minutes: 5,
        days: 21,
        fault_types: vec![
            ("chiller_short_cycling", "lag chiller starts and stops many times a day: stage-up and stage-down points close together with no delay or minimum times"),
            ("chiller_left_on", "lead chiller runs nights and weekends outside the plant schedule at a sliver of its capacity"),
            ("chillers_over_staged", "both chillers run at low part load whenever the plant runs, where one would carry the load"),
        ],
    }
}

fn info_heatpump() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-heat-pump-winter",
        title: "Synthetic heat pumps and a source loop in winter",
        summary: "Air-source heat pumps that defrost, a two-stage water-source unit, two units sharing one room \
                  and the source loop the water-source units use, in January weather: healthy units, a defrost \
                  control reversing far too often, a reversing valve stuck in cooling, a unit short of capacity, \
                  stage hunting, two units fighting over one room, a loop bypassed so its delta-T is flat, and a \
                  near miss that defrosts a little more often.",
        default_seed: 512,
        step_minutes: 5,
        days: 14,
        fault_types: vec![
            ("excess_defrost", "the defrost control reverses the unit after every 12 minutes of heating, frost or not"),
            ("wrong_mode", "reversing valve stuck in cooling: the unit blows cold air into a room that calls for heat"),
            (
                "capacity_shortfall",
                "the unit delivers under a third of its rated heat: it runs flat out and the room stays cold",
            ),
            (
                "stage_hunting",
                "a two-stage unit toggling between its stages every few minutes, its staging deadband lost",
            ),
            ("room_fight", "two units in one room set apart (one heating to 72 °F, the other cooling to 70 °F): one heats while the other cools"),
            (
                "flat_loop_deltat",
                "the source loop's pump runs full flow through an open bypass: supply and return barely differ",
            ),
        ],
    }
}

fn info_hwplant() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-hw-plant",
        title: "Synthetic hot-water plants in the shoulder season",
        summary: "One boiler and its variable-speed loop pump per scenario in spring weather, serving a heating \
                  load that falls to nothing on warm days: a healthy plant that modulates, resets and locks out \
                  above 65 °F, an on-off boiler short cycling, no warm-weather lockout, a pump left on after the \
                  boiler locks out, a pump at full speed with no reset (low delta-T), and a near miss.",
        default_seed: 613,
        step_minutes: 5,
        days: 21,
        fault_types: vec![
            ("boiler_short_cycling", "an on-off boiler with a 3 °F band and no minimum off time fires for minutes at a time, many times a day"),
            ("boiler_not_locked_out", "no warm-weather lockout: the boiler keeps the loop hot on days above 65 °F"),
            ("pump_not_locked_out", "the boiler locks out on warm days but its loop pump runs on"),
            ("low_delta_t", "the pump runs full speed on a fixed setpoint and the coils take more water than they need: the loop returns barely cooler"),
        ],
    }
}

fn info_leak_drift() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-ahu-leak-drift",
        title: "Synthetic air handler whose cooling valve starts to leak",
        summary: "Two economizer air handlers over eight weeks of spring weather: a healthy unit and its twin, whose \
                  cooling valve seals for two weeks and then passes more water every day (0.5 % of equivalent \
                  opening a day from day 14, about 21 % by the end), so the valve-shut air rise across the coil \
                  falls week by week. A drift dataset: fit on the first two weeks, judge the last two.",
        default_seed: 733,
        step_minutes: 15,
        days: 56,
        fault_types: vec![(
            "growing_cool_valve_leak",
            "the chilled-water valve passes more water every day while commanded shut: the coil cools the air more and more with the valve at 0%",
        )],
    }
}

fn info_tower_drift() -> DatasetInfo {
    DatasetInfo {
        id: "synthetic-tower-fouling-drift",
        title: "Synthetic cooling tower whose fill fouls over the weeks",
        summary: "Two identical chilled-water plants' cooling towers over six weeks of summer weather, each under a \
                  leaving-water controller (wet bulb plus 7 °F): a clean tower and its twin, whose fill stays clean \
                  for two weeks and then fouls a little more every day (its approach at full fan 1.8 times a clean \
                  one's by day 42), so it spends more fan for the same heat and wet bulb, and, once its fan is flat \
                  out, holds a wider approach. A drift dataset: fit on days 0-13, judge days 28-41.",
        default_seed: 877,
        step_minutes: 15,
        days: 42,
        fault_types: vec![(
            "tower_fouling_over_time",
            "the tower fill fouls more every day: more fan speed for the same heat and wet bulb, then a wider approach at full fan",
        )],
    }
}

fn recipes() -> [Recipe; 8] {
    [
        Recipe { info: info_ahu, start: (2025, 4, 28), wetbulb: false, build: ahu::build },
        Recipe { info: info_g36, start: (2025, 4, 28), wetbulb: false, build: g36::build },
        Recipe { info: info_chw, start: (2025, 7, 7), wetbulb: true, build: chw::build },
        Recipe { info: info_staging, start: (2025, 7, 14), wetbulb: false, build: staging::build },
        Recipe { info: info_heatpump, start: (2025, 1, 13), wetbulb: false, build: heatpump::build },
        Recipe { info: info_hwplant, start: (2025, 4, 14), wetbulb: false, build: hwplant::build },
        Recipe { info: info_leak_drift, start: (2025, 3, 31), wetbulb: false, build: ahu::build_leak_drift },
        Recipe { info: info_tower_drift, start: (2025, 6, 23), wetbulb: true, build: chw::build_fouling_drift },
    ]
}

/// Catalogue of the synthetic datasets `generate` knows.
pub fn datasets() -> Vec<DatasetInfo> {
    recipes().iter().map(|r| (r.info)()).collect()
}

/// Generate dataset `id` with `seed` (its default seed when `None`); `None` for an unknown id.
pub fn generate(id: &str, seed: Option<u64>) -> Option<Generated> {
    generate_at(id, seed, None)
}

/// [`generate`], recording at `step_minutes` instead of the dataset's own step (`None`: its
/// own): the models still run minute by minute, so the same building is logged at 1, 5, 15 or
/// 60 minutes as a building-automation system would trend it.
pub fn generate_at(id: &str, seed: Option<u64>, step_minutes: Option<u32>) -> Option<Generated> {
    let r = recipes().into_iter().find(|r| (r.info)().id == id)?;
    let mut info = (r.info)();
    if let Some(step) = step_minutes {
        info.step_minutes = step.max(1);
    }
    let seed = seed.unwrap_or(info.default_seed);
    let clock = Clock::new(info.days, info.step_minutes);
    let start_day = days_from_civil(r.start.0, r.start.1, r.start.2);
    let w = Weather::new(seed, day_of_year(start_day, r.start.0) - 1, clock.total(), r.wetbulb);
    let units = (r.build)(&w, &clock, seed);
    Some(finish(info, seed, start_day, &clock, units))
}

/// The info, clock, first day and weather of a benchmark span: `span` = (days, step minutes)
/// from Monday 2025-01-06, so a year sees every season (with a wet bulb when asked).
fn long_span(
    id: &'static str,
    title: &'static str,
    summary: &'static str,
    span: (u32, u32),
    seed: u64,
    wetbulb: bool,
) -> (DatasetInfo, Clock, i64, Weather) {
    let (days, step_minutes) = span;
    let step_minutes = step_minutes.max(1);
    let info = DatasetInfo { id, title, summary, default_seed: 1, step_minutes, days, fault_types: Vec::new() };
    let clock = Clock::new(days, step_minutes);
    let start_day = days_from_civil(2025, 1, 6);
    let w = Weather::new(seed, day_of_year(start_day, 2025) - 1, clock.total(), wetbulb);
    (info, clock, start_day, w)
}

/// A single AHU over a long span at a fine step, for benchmarks (e.g. 365 days at 1 minute, 12 roles).
///
/// The unit is the healthy economizer AHU, starting Monday 2025-01-06 so a year sees every
/// season. Roles: oat, return_air_temp, mixed_air_temp, supply_air_temp, supply_air_temp_sp,
/// oa_damper, cool_valve, heat_valve, supply_fan_status, supply_fan_speed, duct_static,
/// occupancy. The returned `info` has id "ahu-year" and the requested span and step.
pub fn ahu_year(equip: &str, days: u32, step_minutes: u32, seed: u64) -> Generated {
    // the economizer unit's roles but outdoor humidity, the static setpoint and airflow
    const DROP: [&str; 3] = ["outdoor_rh", "duct_static_sp", "airflow"];
    let (info, clock, start_day, w) = long_span(
        "ahu-year",
        "One healthy economizer AHU over a long span",
        "A single healthy economizer air handler at a fine step, for benchmarks.",
        (days, step_minutes),
        seed,
        false,
    );
    let mut table = ahu::simulate(&ahu::AhuCfg::default(), &w, &clock, seed, equip);
    table.cols.retain(|(r, _)| !DROP.contains(r));
    let unit = Unit { equip: equip.to_string(), class: "AHU", scenario: "healthy", label: "", table };
    finish(info, seed, start_day, &clock, vec![unit])
}

/// One healthy G36 system (`AHU__healthy` and its six boxes `VAV1__healthy` ..) over a long span
/// at a fine step, for benchmarks of the rules that judge an air handler with its boxes. The
/// returned `info` has id "g36-year".
pub fn g36_year(days: u32, step_minutes: u32, seed: u64) -> Generated {
    let (info, clock, start_day, w) = long_span(
        "g36-year",
        "One healthy G36 air handler and its boxes over a long span",
        "A healthy G36 VAV system (trim-and-respond resets, six reheat boxes) at a fine step, for benchmarks.",
        (days, step_minutes),
        seed,
        false,
    );
    let (at, vts) = g36::simulate(&g36::SysCfg::default(), &w, &clock, seed, "AHU__healthy");
    let mut units =
        vec![Unit { equip: "AHU__healthy".into(), class: "AHU", scenario: "healthy", label: "", table: at }];
    for (j, table) in vts.into_iter().enumerate() {
        units.push(Unit {
            equip: format!("VAV{}__healthy", j + 1),
            class: "VAV",
            scenario: "healthy",
            label: "",
            table,
        });
    }
    finish(info, seed, start_day, &clock, units)
}

/// One healthy building's plants over a long span at a fine step, for benchmarks of the plant
/// rules: a chiller and its tower (`CH__healthy`, `TOWER__healthy`), a lead and lag chiller
/// pair (`CH1__well_staged`, `CH2__well_staged`), a hot-water plant (`PLANT__healthy`), an
/// air-source heat pump (`HP__healthy`), a two-stage water-source one (`WSHP__two_stage`) and
/// its source loop (`LOOP__healthy`): every plant rule has a unit to judge. The returned `info`
/// has id "plant-year".
pub fn plant_year(days: u32, step_minutes: u32, seed: u64) -> Generated {
    let (info, clock, start_day, w) = long_span(
        "plant-year",
        "One healthy building's plants over a long span",
        "Healthy chillers, a tower, a hot-water plant, heat pumps and a source loop at a fine step, for benchmarks.",
        (days, step_minutes),
        seed,
        true,
    );
    let (ch, ct) = chw::simulate(&chw::PlantCfg::default(), &w, &clock, seed, "CH__healthy");
    let mut units = vec![
        Unit { equip: "CH__healthy".into(), class: "CHILLER", scenario: "healthy", label: "", table: ch },
        Unit { equip: "TOWER__healthy".into(), class: "COOLING_TOWER", scenario: "healthy", label: "", table: ct },
    ];
    // the staging dataset's healthy plant, with the chilled-water reset a healthy plant has
    // (the staging dataset's pair holds 44 °F: staging is what it is judged on)
    let cfg = staging::PlantCfg { chw: chw::ChwSp::Reset(44.0, 50.0), ..staging::PlantCfg::default() };
    let pair = staging::simulate(&cfg, &w, &clock, seed, "PLANT__well_staged");
    for (j, table) in pair.into_iter().enumerate() {
        let equip = format!("CH{}__well_staged", j + 1);
        units.push(Unit { equip, class: "CHILLER", scenario: "well_staged", label: "", table });
    }
    units.push(hwplant::healthy(&w, &clock, seed));
    units.extend(heatpump::healthy(&w, &clock, seed));
    finish(info, seed, start_day, &clock, units)
}

/// 1-based day of year of `day` (days since epoch) within `year`.
fn day_of_year(day: i64, year: i64) -> u32 {
    (day - days_from_civil(year, 1, 1) + 1) as u32
}

/// Quantum a role is recorded with (BAS points are stored rounded), 0 = as is.
fn quantum(role: &str) -> f64 {
    match role {
        "duct_static" | "duct_static_sp" => 0.01,
        "airflow" | "airflow_sp" | "airflow_min_sp" | "chw_flow" | "cw_flow" => 1.0,
        "outdoor_rh" => 0.5,
        "supply_fan_status" | "occupancy" | "compressor_status" | "sat_reset_requests" | "static_pressure_requests" => {
            0.0
        }
        _ => 0.1,
    }
}

/// Roles that are field sensors and so may drop samples (commands and statuses do not).
fn gappable(role: &str) -> bool {
    matches!(
        role,
        "oat"
            | "outdoor_rh"
            | "return_air_temp"
            | "mixed_air_temp"
            | "supply_air_temp"
            | "duct_static"
            | "airflow"
            | "space_temp"
            | "chw_supply_temp"
            | "chw_return_temp"
            | "chw_flow"
            | "cw_supply_temp"
            | "cw_return_temp"
            | "cw_flow"
            | "power"
            | "wetbulb_temp"
    )
}

/// Round, punch a few short gaps, and lay the units out as the public types.
fn finish(info: DatasetInfo, seed: u64, start_day: i64, clock: &Clock, units: Vec<Unit>) -> Generated {
    let start_ns = start_day * NS_PER_DAY;
    let step_ns = clock.step as i64 * 60_000_000_000;
    let mut equipment = Vec::with_capacity(units.len());
    let mut series = Vec::new();
    for mut u in units {
        for (role, v) in u.table.cols.iter_mut() {
            let q = quantum(role);
            if q > 0.0 {
                let inv = 1.0 / q;
                for x in v.iter_mut() {
                    let r = (*x * inv).round() / inv;
                    *x = if r == 0.0 { 0.0 } else { r }; // no -0.0
                }
            }
        }
        // One to three short outages on field sensors, each at most 1% of the span.
        let mut rng = Rng::stream(seed, &u.equip, "gaps");
        let cand: Vec<usize> = (0..u.table.cols.len()).filter(|&c| gappable(u.table.cols[c].0)).collect();
        if !cand.is_empty() && clock.n >= 8 {
            let events = 1 + rng.below(3);
            for _ in 0..events {
                let c = cand[rng.below(cand.len() as u64) as usize];
                let len_min = rng.range(15.0, 120.0);
                let len = ((len_min / clock.step as f64).round() as usize).clamp(1, (clock.n / 100).max(1));
                let at = rng.below((clock.n - len) as u64) as usize;
                for x in &mut u.table.cols[c].1[at..at + len] {
                    *x = f64::NAN;
                }
            }
        }
        for (role, values) in u.table.cols {
            series.push(PointSeries {
                equip: u.equip.clone(),
                equip_class: u.class.to_string(),
                role: role.to_string(),
                start_ns,
                step_ns,
                values,
            });
        }
        equipment.push(EquipmentInfo {
            equip: u.equip,
            equip_class: u.class.to_string(),
            scenario: u.scenario.to_string(),
            label: u.label.to_string(),
        });
    }
    Generated { info, seed, equipment, series }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2025, 4, 28), 20_206);
        // 1970-01-01 was a Thursday; 2025-04-28, 2025-07-07 and 2025-01-06 are Mondays.
        for d in [days_from_civil(2025, 4, 28), days_from_civil(2025, 7, 7), days_from_civil(2025, 1, 6)] {
            assert_eq!((d + 3).rem_euclid(7), 0);
        }
        assert_eq!(day_of_year(days_from_civil(2025, 1, 1), 2025), 1);
    }
}
