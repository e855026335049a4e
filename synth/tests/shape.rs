//! Shape, range and determinism guarantees of every dataset.

use camber_synth::{ahu_year, datasets, generate, role_unit, Generated, GENERATOR_VERSION};
use std::collections::BTreeSet;

const NS_DAY: i64 = 86_400_000_000_000;

/// Physical range of each role: roles.json bounds where it has them, else a sanity bound.
fn range(role: &str) -> (f64, f64) {
    match role {
        "oat" => (-40.0, 140.0),
        "supply_air_temp" => (32.0, 160.0),
        "mixed_air_temp" => (20.0, 140.0),
        "return_air_temp" | "space_temp" => (40.0, 120.0),
        "cool_sp" | "heat_sp" => (45.0, 95.0),
        "supply_air_temp_sp" => (40.0, 120.0),
        "heat_valve" | "cool_valve" | "oa_damper" | "damper" | "zone_heat_loop" | "zone_cool_loop"
        | "supply_fan_speed" | "tower_fan_speed" | "outdoor_rh" => (-2.0, 102.0),
        "airflow" | "airflow_min_sp" | "chw_flow" | "cw_flow" => (-1.0, 1e6),
        "airflow_sp" => (0.0, 1e6),
        "duct_static" => (-1.0, 20.0),
        "duct_static_sp" => (0.0, 5.0),
        "occupancy" | "supply_fan_status" | "compressor_status" => (0.0, 1.0),
        "sat_reset_requests" | "static_pressure_requests" => (0.0, 18.0),
        "chw_supply_temp" => (30.0, 75.0),
        "chw_return_temp" => (35.0, 85.0),
        "chw_supply_temp_sp" => (38.0, 60.0),
        "cw_supply_temp" => (40.0, 120.0),
        "cw_return_temp" => (45.0, 130.0),
        "wetbulb_temp" => (-40.0, 100.0),
        "cond_approach_temp" | "evap_approach_temp" => (-5.0, 60.0),
        "power" => (-1.0, 1e7),
        other => panic!("no range for role {other}"),
    }
}

fn expected_roles(ds: &str, class: &str) -> Vec<&'static str> {
    match (ds, class) {
        ("synthetic-ahu-economizer" | "synthetic-ahu-leak-drift", "AHU") => vec![
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
        ],
        ("synthetic-g36-vav", "AHU") => vec![
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
        ],
        ("synthetic-g36-vav", "VAV") => vec![
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
        ],
        ("synthetic-chw-plant", "CHILLER") => vec![
            "chw_supply_temp",
            "chw_return_temp",
            "chw_supply_temp_sp",
            "chw_flow",
            "compressor_status",
            "power",
            "cond_approach_temp",
            "evap_approach_temp",
        ],
        ("synthetic-chw-plant" | "synthetic-tower-fouling-drift", "COOLING_TOWER") => {
            vec!["cw_supply_temp", "cw_return_temp", "cw_flow", "tower_fan_speed", "oat", "wetbulb_temp"]
        }
        other => panic!("unexpected class {other:?}"),
    }
}

fn check_shape(g: &Generated) {
    let info = &g.info;
    let n = (info.days * 24 * 60 / info.step_minutes) as usize;
    let labels: BTreeSet<&str> = info.fault_types.iter().map(|(l, _)| *l).collect();
    for (l, d) in &info.fault_types {
        assert!(!d.is_empty() && !d.contains('\n'), "{}: {l} needs a one-line description", info.id);
    }
    for eq in &g.equipment {
        assert!(eq.equip.ends_with(&format!("__{}", eq.scenario)), "{} not named <EQUIP>__<scenario>", eq.equip);
        assert!(
            eq.label.is_empty() || labels.contains(eq.label.as_str()),
            "{}: label {} not in fault_types",
            eq.equip,
            eq.label
        );
        let roles: Vec<&str> = g.series.iter().filter(|s| s.equip == eq.equip).map(|s| s.role.as_str()).collect();
        assert_eq!(roles, expected_roles(info.id, &eq.equip_class), "{} roles", eq.equip);
    }
    // Every listed fault type is used by at least one equipment.
    for l in &labels {
        assert!(g.equipment.iter().any(|e| e.label == *l), "{}: fault type {l} unused", info.id);
    }
    let mut gaps = 0usize;
    for s in &g.series {
        let what = format!("{} {} {}", info.id, s.equip, s.role);
        assert_eq!(s.values.len(), n, "{what}: length");
        assert_eq!(s.step_ns, info.step_minutes as i64 * 60_000_000_000, "{what}: step");
        assert_eq!(s.start_ns.rem_euclid(NS_DAY), 0, "{what}: not midnight");
        assert_eq!((s.start_ns.div_euclid(NS_DAY) + 3).rem_euclid(7), 0, "{what}: not a Monday");
        let nan = s.values.iter().filter(|v| v.is_nan()).count();
        assert!(nan * 20 < n, "{what}: {nan} gaps of {n}");
        gaps += nan;
        let (lo, hi) = range(&s.role);
        for (i, v) in s.values.iter().enumerate().filter(|(_, v)| !v.is_nan()) {
            assert!(v.is_finite() && *v >= lo && *v <= hi, "{what}[{i}] = {v} outside {lo}..{hi}");
        }
        if matches!(s.role.as_str(), "occupancy" | "supply_fan_status" | "compressor_status") {
            assert!(s.values.iter().all(|v| *v == 0.0 || *v == 1.0), "{what}: not 0/1");
        }
        assert!(s.samples().count() + nan == n);
    }
    assert!(gaps > 0, "{}: expected a few short data gaps", info.id);
}

fn bits(g: &Generated) -> Vec<Vec<u64>> {
    g.series.iter().map(|s| s.values.iter().map(|v| v.to_bits()).collect()).collect()
}

#[test]
fn catalogue() {
    let ds = datasets();
    let ids: Vec<&str> = ds.iter().map(|d| d.id).collect();
    assert_eq!(
        ids,
        [
            "synthetic-ahu-economizer",
            "synthetic-g36-vav",
            "synthetic-chw-plant",
            "synthetic-chiller-staging",
            "synthetic-heat-pump-winter",
            "synthetic-hw-plant",
            "synthetic-ahu-leak-drift",
            "synthetic-tower-fouling-drift"
        ]
    );
    assert!(generate("no-such-dataset", None).is_none());
    assert_eq!(GENERATOR_VERSION, 4, "bump on any change of output");
    assert_eq!(role_unit("duct_static"), Some("inH₂O"));
    assert_eq!(role_unit("chw_flow"), Some("gpm"));
}

#[test]
fn shapes_ranges_and_counts() {
    let expect =
        [("synthetic-ahu-economizer", 8, 2016), ("synthetic-g36-vav", 42, 504), ("synthetic-chw-plant", 10, 2016)];
    for (id, equips, n) in expect {
        let g = generate(id, None).unwrap();
        assert_eq!(g.seed, g.info.default_seed);
        assert_eq!(g.equipment.len(), equips, "{id}");
        assert_eq!(g.series[0].values.len(), n, "{id}");
        check_shape(&g);
        let g = generate(id, Some(99)).unwrap();
        check_shape(&g);
    }
}

#[test]
fn deterministic_per_seed() {
    for d in datasets() {
        let a = generate(d.id, Some(7)).unwrap();
        let b = generate(d.id, Some(7)).unwrap();
        assert_eq!(bits(&a), bits(&b), "{}: same seed differs", d.id);
        assert_eq!(a.equipment, b.equipment);
        let c = generate(d.id, Some(8)).unwrap();
        assert_eq!(a.equipment, c.equipment, "{}: labels must not depend on the seed", d.id);
        let names =
            |g: &Generated| g.series.iter().map(|s| (s.equip.clone(), s.role.clone(), s.start_ns)).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&c));
        assert_ne!(bits(&a), bits(&c), "{}: another seed must change the noise", d.id);
        // Noise, not structure: most points differ somewhere.
        let differing = a
            .series
            .iter()
            .zip(&c.series)
            .filter(|(x, y)| x.values.iter().zip(&y.values).any(|(p, q)| p.to_bits() != q.to_bits()))
            .count();
        assert!(differing * 2 > a.series.len(), "{}: only {differing} points changed", d.id);
        // The default seed is what `None` means.
        let e = generate(d.id, None).unwrap();
        let f = generate(d.id, Some(d.default_seed)).unwrap();
        assert_eq!(bits(&e), bits(&f));
    }
}

#[test]
fn ahu_year_shape() {
    // A month at 5 minutes in the debug build; the full year at 1 minute is timed in release.
    let g = ahu_year("AHU_BENCH", 28, 5, 42);
    assert_eq!(g.equipment.len(), 1);
    assert_eq!(g.series.len(), 12);
    for s in &g.series {
        assert_eq!(s.values.len(), 28 * 288);
        assert_eq!((s.start_ns.div_euclid(NS_DAY) + 3).rem_euclid(7), 0);
        let (lo, hi) = range(&s.role);
        assert!(s.values.iter().filter(|v| !v.is_nan()).all(|v| *v >= lo && *v <= hi), "{}", s.role);
    }
    assert_eq!(bits(&g), bits(&ahu_year("AHU_BENCH", 28, 5, 42)));
}

#[cfg(not(debug_assertions))]
#[test]
fn ahu_year_full_is_fast() {
    let t0 = std::time::Instant::now();
    let g = ahu_year("AHU_BENCH", 365, 1, 42);
    let dt = t0.elapsed();
    let values: usize = g.series.iter().map(|s| s.values.len()).sum();
    eprintln!("ahu_year(365 d, 1 min): {values} values in {dt:?}");
    assert_eq!(values, 365 * 1440 * 12);
    assert!(dt.as_secs_f64() < 2.0, "ahu_year took {dt:?}");
    for s in &g.series {
        let (lo, hi) = range(&s.role);
        assert!(s.values.iter().filter(|v| !v.is_nan()).all(|v| *v >= lo && *v <= hi), "{}", s.role);
    }
    for d in datasets() {
        let t0 = std::time::Instant::now();
        let g = generate(d.id, None).unwrap();
        let dt = t0.elapsed();
        eprintln!(
            "{}: {} equipment, {} points, {} rows in {dt:?}",
            d.id,
            g.equipment.len(),
            g.series.len(),
            g.row_count()
        );
        assert!(dt.as_secs_f64() < 1.0);
    }
}
