//! Every labelled fault must be visible in the data by a simple check, and every fault-free
//! unit (healthy and near-miss) must pass all of those checks. The checks are deliberately
//! plain statistics, the kind an analytics rule would start from.

use camber_synth::{generate, Generated};

/// Seeds each dataset's fault checks run with: the default plus two others.
fn seeds() -> [Option<u64>; 3] {
    [None, Some(1), Some(0xDEAD_BEEF)]
}

fn col<'a>(g: &'a Generated, equip: &str, role: &str) -> &'a [f64] {
    &g.series_of(equip, role).unwrap_or_else(|| panic!("{equip} has no {role}")).values
}

/// Indices where every given condition holds (NaN compares false, so gaps drop out).
fn mask(n: usize, f: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..n).filter(|&i| f(i)).collect()
}

fn mean_at(v: &[f64], idx: &[usize]) -> f64 {
    let xs: Vec<f64> = idx.iter().map(|&i| v[i]).filter(|x| !x.is_nan()).collect();
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

fn std_at(v: &[f64], idx: &[usize]) -> f64 {
    let xs: Vec<f64> = idx.iter().map(|&i| v[i]).filter(|x| !x.is_nan()).collect();
    let m = xs.iter().sum::<f64>() / xs.len().max(1) as f64;
    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len().max(1) as f64).sqrt()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.retain(|x| !x.is_nan());
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn frac(hits: usize, of: usize) -> f64 {
    hits as f64 / of.max(1) as f64
}

/// Which faults each equipment's data shows, by the checks; (label, metric) for diagnostics.
type Fired = Vec<(&'static str, f64)>;

fn hour_of(g: &Generated, equip: &str, i: usize) -> (i64, i64) {
    let s = g.series_of(equip, "occupancy").unwrap();
    let ns = s.ts(i);
    let day = ns.div_euclid(86_400_000_000_000);
    ((day + 3).rem_euclid(7), ns.rem_euclid(86_400_000_000_000) / 3_600_000_000_000)
}

// ---------------------------------------------------------------------------------------
// synthetic-ahu-economizer

struct AhuRef {
    econ_damper: f64,
    idle_sat_minus_mat: f64,
}

fn ahu_econ_damper(g: &Generated, e: &str) -> f64 {
    let (fan, occ, oat, oad) =
        (col(g, e, "supply_fan_status"), col(g, e, "occupancy"), col(g, e, "oat"), col(g, e, "oa_damper"));
    let idx = mask(fan.len(), |i| fan[i] == 1.0 && occ[i] == 1.0 && oat[i] >= 50.0 && oat[i] <= 60.0);
    assert!(idx.len() > 40, "{e}: only {} occupied samples with OAT 50-60 °F", idx.len());
    mean_at(oad, &idx)
}

/// SAT minus MAT while the fan runs and both valves are closed (coils idle); NaN when the
/// unit is hardly ever in that state (then neither check based on it can fire).
fn ahu_idle_rise(g: &Generated, e: &str) -> f64 {
    let (fan, clg, htg, sat, mat) = (
        col(g, e, "supply_fan_status"),
        col(g, e, "cool_valve"),
        col(g, e, "heat_valve"),
        col(g, e, "supply_air_temp"),
        col(g, e, "mixed_air_temp"),
    );
    let idx = mask(fan.len(), |i| fan[i] == 1.0 && clg[i] == 0.0 && htg[i] == 0.0);
    if idx.len() < 10 {
        return f64::NAN;
    }
    median(idx.iter().map(|&i| sat[i] - mat[i]).collect())
}

fn ahu_checks(g: &Generated, e: &str, r: &AhuRef) -> Fired {
    let mut out = Vec::new();
    let n = col(g, e, "oat").len();
    let (fan, oad, clg, htg) =
        (col(g, e, "supply_fan_status"), col(g, e, "oa_damper"), col(g, e, "cool_valve"), col(g, e, "heat_valve"));
    // Economizer lockout: far less outdoor air than the healthy unit when free cooling exists.
    let d = ahu_econ_damper(g, e);
    if d < 0.5 * r.econ_damper {
        out.push(("econ_lockout", d));
    }
    // Stuck damper: the damper never moves, fan on or off.
    let all: Vec<usize> = (0..n).collect();
    let s = std_at(oad, &all);
    if s < 1.0 {
        out.push(("stuck_oa_damper", s));
    }
    // Leaking valve: supply well below mixed air with the cooling valve shut.
    let rise = ahu_idle_rise(g, e);
    if -rise > 2.0 {
        out.push(("leaking_cool_valve", rise));
    }
    // Simultaneous heating and cooling for a large share of running time.
    let on = mask(n, |i| fan[i] == 1.0);
    let both = on.iter().filter(|&&i| htg[i] > 5.0 && clg[i] > 5.0).count();
    let f = frac(both, on.len());
    if f > 0.2 {
        out.push(("simultaneous_heat_cool", f));
    }
    // SAT bias: with idle coils SAT sits well above MAT compared with the healthy unit.
    if rise - r.idle_sat_minus_mat > 1.8 {
        out.push(("sat_sensor_bias", rise - r.idle_sat_minus_mat));
    }
    // Night and weekend operation: the fan is on at 02:00.
    let at2 = mask(n, |i| hour_of(g, e, i).1 == 2);
    let f = frac(at2.iter().filter(|&&i| fan[i] == 1.0).count(), at2.len());
    if f > 0.5 {
        out.push(("night_weekend_operation", f));
    }
    out
}

#[test]
fn ahu_economizer_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-ahu-economizer", seed).unwrap();
        let r = AhuRef {
            econ_damper: ahu_econ_damper(&g, "AHU__healthy"),
            idle_sat_minus_mat: ahu_idle_rise(&g, "AHU__healthy"),
        };
        assert!(r.idle_sat_minus_mat.is_finite(), "healthy AHU never runs with idle coils");
        for eq in &g.equipment {
            let fired = ahu_checks(&g, &eq.equip, &r);
            eprintln!("seed {:?} {:32} label={:24} fired={:?}", seed, eq.equip, eq.label, fired);
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// Record a failure unless the checks agree with the label: a labelled unit fires its own
/// check; a fault-free unit fires none.
fn assert_labels(fails: &mut Vec<String>, equip: &str, label: &str, fired: &Fired) {
    if label.is_empty() {
        if !fired.is_empty() {
            fails.push(format!("fault-free {equip} fails checks: {fired:?}"));
        }
    } else if !fired.iter().any(|(l, _)| *l == label) {
        fails.push(format!("{equip} labelled {label} but its check did not fire: {fired:?}"));
    }
}

// ---------------------------------------------------------------------------------------
// synthetic-g36-vav

fn g36_occupied(g: &Generated, ahu: &str, vav: &str) -> Vec<usize> {
    let (fan, occ) = (col(g, ahu, "supply_fan_status"), col(g, vav, "occupancy"));
    mask(fan.len(), |i| fan[i] == 1.0 && occ[i] == 1.0)
}

fn vav_starved(g: &Generated, ahu: &str, v: &str) -> f64 {
    let idx = g36_occupied(g, ahu, v);
    let (flow, sp, dmp) = (col(g, v, "airflow"), col(g, v, "airflow_sp"), col(g, v, "damper"));
    frac(idx.iter().filter(|&&i| flow[i] < 0.7 * sp[i] && dmp[i] > 90.0).count(), idx.len())
}

fn vav_checks(g: &Generated, ahu: &str, v: &str) -> Fired {
    let mut out = Vec::new();
    let idx = g36_occupied(g, ahu, v);
    let (t, csp, cl) = (col(g, v, "space_temp"), col(g, v, "cool_sp"), col(g, v, "zone_cool_loop"));
    let (flow, sp, dmp, hv) =
        (col(g, v, "airflow"), col(g, v, "airflow_sp"), col(g, v, "damper"), col(g, v, "heat_valve"));
    let sat = col(g, ahu, "supply_air_temp");
    let f = vav_starved(g, ahu, v);
    if f > 0.35 {
        out.push(("starved_by_air_handler", f));
    }
    let f = frac(idx.iter().filter(|&&i| cl[i] >= 95.0 && t[i] >= csp[i] + 2.0).count(), idx.len());
    if f > 0.7 {
        out.push(("rogue_zone", f));
    }
    let dev =
        mean_at(&idx.iter().map(|&i| (flow[i] - sp[i]).abs()).collect::<Vec<_>>(), &(0..idx.len()).collect::<Vec<_>>());
    let rel = dev / mean_at(sp, &idx);
    if std_at(dmp, &idx) < 1.0 && rel > 0.25 {
        out.push(("stuck_damper", rel));
    }
    let f = frac(idx.iter().filter(|&&i| hv[i] > 10.0 && sat[i] < 57.0).count(), idx.len());
    if f > 0.5 {
        out.push(("heating_cooling_overlap", f));
    }
    out
}

fn g36_ahu_checks(g: &Generated, ahu: &str, vavs: &[String]) -> Fired {
    let mut out = Vec::new();
    let fan = col(g, ahu, "supply_fan_status");
    let on = mask(fan.len(), |i| fan[i] == 1.0);
    let p = mean_at(col(g, ahu, "duct_static_sp"), &on);
    let starved = vavs.iter().filter(|v| vav_starved(g, ahu, v) > 0.35).count();
    if p < 0.3 && starved >= 3 {
        out.push(("static_too_low", p));
    }
    // a supply-air setpoint that never moves while the zones ask for resets
    let sat_sp = col(g, ahu, "supply_air_temp_sp");
    let sp: Vec<f64> = on.iter().map(|&i| sat_sp[i]).filter(|v| !v.is_nan()).collect();
    let range = sp.iter().copied().fold(f64::NEG_INFINITY, f64::max) - sp.iter().copied().fold(f64::INFINITY, f64::min);
    if !sp.is_empty() && range < 1.0 {
        out.push(("sat_reset_disabled", range));
    }
    out
}

#[test]
fn g36_vav_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-g36-vav", seed).unwrap();
        for eq in g.equipment.iter().filter(|e| e.equip_class == "AHU") {
            let sc = &eq.scenario;
            let vavs: Vec<String> = g
                .equipment
                .iter()
                .filter(|e| e.equip_class == "VAV" && &e.scenario == sc)
                .map(|e| e.equip.clone())
                .collect();
            assert_eq!(vavs.len(), 6);
            let fired = g36_ahu_checks(&g, &eq.equip, &vavs);
            eprintln!("seed {:?} {:32} label={:24} fired={:?}", seed, eq.equip, eq.label, fired);
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
            for v in g.equipment.iter().filter(|e| vavs.contains(&e.equip)) {
                let fired = vav_checks(&g, &eq.equip, &v.equip);
                eprintln!("seed {:?} {:32} label={:24} fired={:?}", seed, v.equip, v.label, fired);
                assert_labels(&mut fails, &v.equip, &v.label, &fired);
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// A fault-free system keeps its zones comfortable: from two hours after the morning start (the
/// pull-down from the night setback), no fault-free zone is more than 1.5 °F outside its band
/// for 5 % of its occupied hours, the share at which a comfort rule warns.
#[test]
fn g36_fault_free_zones_stay_in_their_band() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-g36-vav", seed).unwrap();
        for v in g.equipment.iter().filter(|e| e.equip_class == "VAV" && e.label.is_empty()) {
            let (t, csp, hsp) =
                (col(&g, &v.equip, "space_temp"), col(&g, &v.equip, "cool_sp"), col(&g, &v.equip, "heat_sp"));
            let occ = col(&g, &v.equip, "occupancy");
            let idx = mask(t.len(), |i| occ[i] == 1.0 && !t[i].is_nan() && hour_of(&g, &v.equip, i).1 >= 8);
            let out = frac(idx.iter().filter(|&&i| t[i] > csp[i] + 1.5 || t[i] < hsp[i] - 1.5).count(), idx.len());
            eprintln!("seed {seed:?} {:32} out of band {:.1} %", v.equip, 100.0 * out);
            if out >= 0.05 {
                fails.push(format!("seed {seed:?} {}: out of band {:.1} % of occupied hours", v.equip, 100.0 * out));
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

// ---------------------------------------------------------------------------------------
// synthetic-chw-plant

/// Samples where the chiller has run for at least the previous hour (start-up transients out).
fn plant_on(g: &Generated, sc: &str) -> Vec<usize> {
    let st = col(g, &format!("CH__{sc}"), "compressor_status");
    mask(st.len(), |i| i >= 4 && (i - 4..=i).all(|j| st[j] == 1.0))
}

fn tower_approach(g: &Generated, sc: &str) -> f64 {
    let t = format!("TOWER__{sc}");
    let (cws, wb) = (col(g, &t, "cw_supply_temp"), col(g, &t, "wetbulb_temp"));
    let on = plant_on(g, sc);
    mean_at(&on.iter().map(|&i| cws[i] - wb[i]).collect::<Vec<_>>(), &(0..on.len()).collect::<Vec<_>>())
}

/// Spread of condenser-water supply temperature while the plant runs and the tower has
/// headroom (wet-bulb at most 74 °F): a reset moves it with the weather, a fixed setpoint not.
fn cw_std(g: &Generated, sc: &str) -> f64 {
    let t = format!("TOWER__{sc}");
    let wb = col(g, &t, "wetbulb_temp");
    let idx: Vec<usize> = plant_on(g, sc).into_iter().filter(|&i| wb[i] <= 74.0).collect();
    assert!(idx.len() > 100, "{t}: only {} mild running samples", idx.len());
    std_at(col(g, &t, "cw_supply_temp"), &idx)
}

fn plant_checks(g: &Generated, equip: &str, sc: &str, healthy_cw_std: f64, healthy_approach: f64) -> Fired {
    let mut out = Vec::new();
    let on = plant_on(g, sc);
    if equip.starts_with("TOWER__") {
        let s = cw_std(g, sc);
        if s < 0.5 * healthy_cw_std {
            out.push(("no_cw_reset", s));
        }
        let a = tower_approach(g, sc);
        if a - healthy_approach > 4.0 {
            out.push(("tower_fouled", a));
        }
    } else {
        let sp = col(g, equip, "chw_supply_temp_sp");
        let (s, m) = (std_at(sp, &on), mean_at(sp, &on));
        if s < 0.3 && m < 44.0 {
            out.push(("no_chw_reset", m));
        }
    }
    out
}

#[test]
fn chw_plant_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-chw-plant", seed).unwrap();
        let (hs, ha) = (cw_std(&g, "healthy"), tower_approach(&g, "healthy"));
        for eq in &g.equipment {
            let fired = plant_checks(&g, &eq.equip, &eq.scenario, hs, ha);
            eprintln!(
                "seed {:?} {:32} label={:24} fired={:?} (healthy cw std {hs:.2}, approach {ha:.2})",
                seed, eq.equip, eq.label, fired
            );
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// What a chiller's status trend shows: starts per day, hours run outside the plant schedule
/// (weekdays 05:00-19:00), and how much of the time both chillers run they carry a load one
/// could.
fn staging_checks(g: &Generated, equip: &str, sibling: &str) -> Fired {
    let st = col(g, equip, "compressor_status");
    let other = col(g, sibling, "compressor_status");
    let step_h = g.info.step_minutes as f64 / 60.0;
    let starts = st.windows(2).filter(|w| w[0] < 0.5 && w[1] > 0.5).count() as f64;
    let per_day = starts / g.info.days as f64;
    let per_sample_day = (24.0 / step_h) as usize;
    let off_schedule_h: f64 = (0..st.len())
        .filter(|&i| {
            let day = i / per_sample_day;
            let hour = (i % per_sample_day) as f64 * step_h;
            st[i] > 0.5 && !(day % 7 < 5 && (5.0..19.0).contains(&hour))
        })
        .count() as f64
        * step_h;
    // both running while the two draw less than one chiller at 90 % load would (about 165 kW):
    // one would carry the load
    let (p, q) = (col(g, equip, "power"), col(g, sibling, "power"));
    let both: Vec<usize> = (0..st.len()).filter(|&i| st[i] > 0.5 && other[i] > 0.5).collect();
    let light = both.iter().filter(|&&i| p[i] + q[i] < 165.0).count() as f64;
    let both_share = if both.is_empty() { 0.0 } else { light / both.len() as f64 };
    let mut fired = Vec::new();
    if per_day > 6.0 {
        fired.push(("chiller_short_cycling", per_day));
    }
    if off_schedule_h > 24.0 {
        fired.push(("chiller_left_on", off_schedule_h));
    }
    if both_share > 0.5 && both.len() as f64 * step_h > 100.0 {
        fired.push(("chillers_over_staged", both_share));
    }
    eprintln!(
        "{equip}: {per_day:.1} starts/day, {off_schedule_h:.0} h off schedule, both running {:.0} %",
        100.0 * both_share
    );
    fired
}

#[test]
fn chiller_staging_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-chiller-staging", seed).unwrap();
        for eq in &g.equipment {
            let sibling = if eq.equip.starts_with("CH1") {
                eq.equip.replacen("CH1", "CH2", 1)
            } else {
                eq.equip.replacen("CH2", "CH1", 1)
            };
            let fired = staging_checks(&g, &eq.equip, &sibling);
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// What a heat pump's trend shows (occupied samples): defrost reversals per day, hours cooling a
/// room below its heating band, the share of occupied time (past the morning recovery) the room
/// stays below its band, stage
/// changes per day; for a source loop, the share of loaded time its delta-T is under 1 °F.
fn heatpump_checks(g: &Generated, equip: &str) -> Fired {
    let step_h = g.info.step_minutes as f64 / 60.0;
    let days = g.info.days as f64;
    let mut fired = Vec::new();
    if equip.starts_with("LOOP") {
        let (s, r, p) = (
            col(g, equip, "source_loop_supply_temp"),
            col(g, equip, "source_loop_return_temp"),
            col(g, equip, "source_loop_pump_speed"),
        );
        let loaded: Vec<usize> = (0..s.len()).filter(|&i| p[i] > 30.0).collect();
        let flat = loaded.iter().filter(|&&i| (s[i] - r[i]).abs() < 1.0).count() as f64 / loaded.len().max(1) as f64;
        eprintln!("{equip}: flat delta-T {:.0} % of {} loaded samples", 100.0 * flat, loaded.len());
        if flat > 0.8 {
            fired.push(("flat_loop_deltat", flat));
        }
        return fired;
    }
    if let Some(stage) = g.series_of(equip, "compressor_stage") {
        let changes = stage.values.windows(2).filter(|w| w[0] != w[1]).count() as f64 / days;
        eprintln!("{equip}: {changes:.0} stage changes a day");
        if changes > 24.0 {
            fired.push(("stage_hunting", changes));
        }
        return fired;
    }
    let (rev, room, sat, hsp, occ) = (
        col(g, equip, "reversing_valve_cmd"),
        col(g, equip, "space_temp"),
        col(g, equip, "supply_air_temp"),
        col(g, equip, "heat_sp"),
        col(g, equip, "occupancy"),
    );
    // the valve reads 1 in heating: a defrost is a drop to 0 while the unit heats
    let reversals = rev.windows(2).filter(|w| w[0] > 0.5 && w[1] < 0.5).count() as f64 / days;
    let wrong_h = (0..rev.len())
        .filter(|&i| occ[i] > 0.5 && rev[i] < 0.5 && room[i] < hsp[i] - 1.0 && sat[i] < room[i] - 5.0)
        .count() as f64
        * step_h;
    // occupied, past the first two hours of recovery from the night setback
    let per_hour = (60 / g.info.step_minutes) as usize;
    let settled: Vec<usize> =
        (2 * per_hour..rev.len()).filter(|&i| occ[i] > 0.5 && occ[i - 2 * per_hour] > 0.5).collect();
    let cold = settled.iter().filter(|&&i| room[i] < hsp[i] - 1.0).count() as f64 / settled.len().max(1) as f64;
    eprintln!(
        "{equip}: {reversals:.1} reversals a day, {wrong_h:.1} h cooling a cold room, cold {:.0} % of settled occupied time",
        100.0 * cold
    );
    // each defrost is two valve changes: more than 24 changes a day
    if reversals > 12.0 {
        fired.push(("excess_defrost", reversals));
    }
    if wrong_h > 10.0 {
        fired.push(("wrong_mode", wrong_h));
    }
    if cold > 0.1 {
        fired.push(("capacity_shortfall", cold));
    }
    fired
}

/// Two units of one room: the share of the occupied time one runs in heating while the other
/// runs in cooling.
fn room_fight(g: &Generated) -> f64 {
    let (ra, rb) = (col(g, "HPA__room_fight", "reversing_valve_cmd"), col(g, "HPB__room_fight", "reversing_valve_cmd"));
    let (ca, cb) = (col(g, "HPA__room_fight", "compressor_status"), col(g, "HPB__room_fight", "compressor_status"));
    let occ = col(g, "HPA__room_fight", "occupancy");
    let occupied = (0..ra.len()).filter(|&i| occ[i] > 0.5).count();
    let fight =
        (0..ra.len()).filter(|&i| occ[i] > 0.5 && ca[i] > 0.5 && cb[i] > 0.5 && (ra[i] - rb[i]).abs() > 0.5).count();
    fight as f64 / occupied.max(1) as f64
}

#[test]
fn heat_pump_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-heat-pump-winter", seed).unwrap();
        let fight = room_fight(&g);
        eprintln!("room fight: {:.0} % of the occupied time", 100.0 * fight);
        for eq in &g.equipment {
            let mut fired = if eq.scenario == "room_fight" { Vec::new() } else { heatpump_checks(&g, &eq.equip) };
            if eq.scenario == "room_fight" && fight > 0.2 {
                fired.push(("room_fight", fight));
            }
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// What a hot-water plant's trend shows: boiler starts per day, hours firing with the outdoor
/// air above 66 °F and hours pumping there with the boiler off, and the share of the time it
/// pumps with the boiler firing that the loop's delta-T is under 20 °F.
fn hw_checks(g: &Generated, equip: &str) -> Fired {
    let step_h = g.info.step_minutes as f64 / 60.0;
    let (st, pump, oat, s, r) = (
        col(g, equip, "boiler_status"),
        col(g, equip, "pump_status"),
        col(g, equip, "oat"),
        col(g, equip, "hw_supply_temp"),
        col(g, equip, "hw_return_temp"),
    );
    let starts = st.windows(2).filter(|w| w[0] < 0.5 && w[1] > 0.5).count() as f64 / g.info.days as f64;
    let warm_fire = (0..st.len()).filter(|&i| oat[i] > 66.0 && st[i] > 0.5).count() as f64 * step_h;
    let warm_pump = (0..st.len()).filter(|&i| oat[i] > 66.0 && pump[i] > 0.5 && st[i] < 0.5).count() as f64 * step_h;
    let running: Vec<usize> = (0..st.len()).filter(|&i| pump[i] > 0.5 && st[i] > 0.5).collect();
    let low = running.iter().filter(|&&i| s[i] - r[i] < 20.0).count() as f64 / running.len().max(1) as f64;
    eprintln!(
        "{equip}: {starts:.1} starts/day, {warm_fire:.0} h firing and {warm_pump:.0} h pumping unfired above 66 °F, delta-T under 20 °F {:.0} % of running",
        100.0 * low
    );
    let mut fired = Vec::new();
    if starts > 6.0 {
        fired.push(("boiler_short_cycling", starts));
    }
    if warm_fire > 12.0 {
        fired.push(("boiler_not_locked_out", warm_fire));
    }
    if warm_pump > 12.0 {
        fired.push(("pump_not_locked_out", warm_pump));
    }
    if low > 0.5 {
        fired.push(("low_delta_t", low));
    }
    fired
}

#[test]
fn hot_water_plant_faults_are_visible() {
    let mut fails = Vec::new();
    for seed in seeds() {
        let g = generate("synthetic-hw-plant", seed).unwrap();
        for eq in &g.equipment {
            let fired = hw_checks(&g, &eq.equip);
            assert_labels(&mut fails, &eq.equip, &eq.label, &fired);
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
