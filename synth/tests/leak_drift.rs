//! The leak-drift dataset: a cooling valve that starts to leak and leaks more every week, and a
//! healthy twin that does not. The check is the one a drift detector rests on: the valve-shut air
//! rise across the coil (supply minus mixed air, fan on, both valves shut), week by week.

use camber_synth::{datasets, generate, Generated};

const ID: &str = "synthetic-ahu-leak-drift";
const LEAKY: &str = "AHU__growing_cool_leak";
const HEALTHY: &str = "AHU__healthy";

fn col<'a>(g: &'a Generated, equip: &str, role: &str) -> &'a [f64] {
    &g.series_of(equip, role).unwrap_or_else(|| panic!("{equip} has no {role}")).values
}

/// The median valve-shut rise and its sample count in each week of the span.
fn weekly_rise(g: &Generated, equip: &str) -> Vec<(f64, usize)> {
    let (sat, mat) = (col(g, equip, "supply_air_temp"), col(g, equip, "mixed_air_temp"));
    let (clg, htg, fan) =
        (col(g, equip, "cool_valve"), col(g, equip, "heat_valve"), col(g, equip, "supply_fan_status"));
    let per_week = 7 * 24 * 60 / g.info.step_minutes as usize;
    (0..sat.len() / per_week)
        .map(|w| {
            let mut r: Vec<f64> = (w * per_week..(w + 1) * per_week)
                .filter(|&i| fan[i] >= 0.5 && clg[i] <= 5.0 && htg[i] <= 5.0)
                .map(|i| sat[i] - mat[i])
                .filter(|v| !v.is_nan())
                .collect();
            r.sort_by(|a, b| a.total_cmp(b));
            (if r.is_empty() { f64::NAN } else { r[r.len() / 2] }, r.len())
        })
        .collect()
}

/// The median valve-shut rise over days `from..to` of the span.
fn rise(g: &Generated, equip: &str, days: (usize, usize)) -> (f64, usize) {
    let (sat, mat) = (col(g, equip, "supply_air_temp"), col(g, equip, "mixed_air_temp"));
    let (clg, htg, fan) =
        (col(g, equip, "cool_valve"), col(g, equip, "heat_valve"), col(g, equip, "supply_fan_status"));
    let per_day = 24 * 60 / g.info.step_minutes as usize;
    let mut r: Vec<f64> = (days.0 * per_day..days.1 * per_day)
        .filter(|&i| fan[i] >= 0.5 && clg[i] <= 5.0 && htg[i] <= 5.0)
        .map(|i| sat[i] - mat[i])
        .filter(|v| !v.is_nan())
        .collect();
    r.sort_by(|a, b| a.total_cmp(b));
    (if r.is_empty() { f64::NAN } else { r[r.len() / 2] }, r.len())
}

/// The windows that show the drift: fit on the first two weeks, judge the last two.
const BASELINE: (usize, usize) = (0, 14);
const CURRENT: (usize, usize) = (42, 56);

#[test]
fn the_dataset_is_listed_with_its_two_units_and_label() {
    let info = datasets().into_iter().find(|d| d.id == ID).expect("listed");
    assert_eq!((info.days, info.step_minutes), (56, 15));
    assert_eq!(info.fault_types.iter().map(|f| f.0).collect::<Vec<_>>(), ["growing_cool_valve_leak"]);
    let g = generate(ID, None).unwrap();
    let units: Vec<(&str, &str, &str)> =
        g.equipment.iter().map(|e| (e.equip.as_str(), e.equip_class.as_str(), e.label.as_str())).collect();
    assert_eq!(units, [(HEALTHY, "AHU", ""), (LEAKY, "AHU", "growing_cool_valve_leak")]);
    // the two units share the weather: their outdoor air is the same but for sensor noise
    let (a, b) = (col(&g, HEALTHY, "oat"), col(&g, LEAKY, "oat"));
    let close = a.iter().zip(b).filter(|(x, y)| (*x - *y).abs() < 2.0).count();
    assert!(close * 100 > a.len() * 95, "{close} of {}", a.len());
}

#[test]
fn the_leak_grows_week_by_week_and_the_twin_holds() {
    for seed in [None, Some(1), Some(0xDEAD_BEEF)] {
        let g = generate(ID, seed).unwrap();
        // before the leak starts the twins are alike
        let (hb, nb) = rise(&g, HEALTHY, BASELINE);
        let (lb, mb) = rise(&g, LEAKY, BASELINE);
        assert!(nb >= 100 && mb >= 100, "{seed:?}: {nb} {mb}");
        assert!((hb - lb).abs() <= 0.3, "{seed:?}: baseline rises {hb} and {lb}");
        // in the last two weeks the leaky coil cools the air by degrees with its valve shut;
        // the healthy one holds its rise
        let (hc, nc) = rise(&g, HEALTHY, CURRENT);
        let (lc, mc) = rise(&g, LEAKY, CURRENT);
        assert!(nc >= 20 && mc >= 20, "{seed:?}: {nc} {mc}");
        assert!(lc <= lb - 4.0, "{seed:?}: leaky rise {lb} then {lc}");
        assert!((hc - hb).abs() <= 0.6, "{seed:?}: healthy rise {hb} then {hc}");
        // and it grows: every week from the third on is lower than the one before
        let weeks = weekly_rise(&g, LEAKY);
        assert_eq!(weeks.len(), 8);
        for w in 2..8 {
            assert!(weeks[w].0 < weeks[w - 1].0 - 0.3, "{seed:?}: week {w}: {weeks:?}");
        }
        let twin = weekly_rise(&g, HEALTHY);
        assert!(twin.iter().filter(|w| w.1 >= 20).all(|w| (w.0 - hb).abs() <= 0.6), "{seed:?}: {twin:?}");
    }
}

#[test]
fn the_leak_passes_water_with_the_valve_shut() {
    // the valve command never reports the leak: where the rise has fallen, the command reads 0
    let g = generate(ID, None).unwrap();
    let (sat, mat, clg) =
        (col(&g, LEAKY, "supply_air_temp"), col(&g, LEAKY, "mixed_air_temp"), col(&g, LEAKY, "cool_valve"));
    let fan = col(&g, LEAKY, "supply_fan_status");
    let per_day = 96;
    let cooled_shut = (CURRENT.0 * per_day..CURRENT.1 * per_day)
        .filter(|&i| fan[i] >= 0.5 && clg[i] == 0.0 && sat[i] - mat[i] < -2.0)
        .count();
    assert!(cooled_shut >= 20, "{cooled_shut}");
    let early = (BASELINE.0 * per_day..BASELINE.1 * per_day)
        .filter(|&i| fan[i] >= 0.5 && clg[i] == 0.0 && sat[i] - mat[i] < -2.0)
        .count();
    assert_eq!(early, 0);
}
