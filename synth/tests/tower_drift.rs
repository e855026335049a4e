//! The tower-fouling drift dataset: a cooling tower whose fill fouls a little more every day
//! from day 14, and its clean twin. The checks are the two a tower's drift detectors rest on, as
//! plain statistics: the fan speed the tower spends, and the approach it holds, against the
//! clean twin's in the same weather, week by week.

use camber_synth::{datasets, generate, Generated};

const ID: &str = "synthetic-tower-fouling-drift";
const FOULING: &str = "TOWER__fouling";
const CLEAN: &str = "TOWER__clean";
/// The windows that show the drift: fit on the first two weeks, judge the last two.
const BASELINE: (usize, usize) = (0, 14);
const CURRENT: (usize, usize) = (28, 42);

fn col<'a>(g: &'a Generated, equip: &str, role: &str) -> &'a [f64] {
    &g.series_of(equip, role).unwrap_or_else(|| panic!("{equip} has no {role}")).values
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| !x.is_nan());
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

/// Over days `from..to`, on the samples both towers run their fans (above 5 %): the median fan
/// speed and approach (leaving water minus wet bulb) of `equip`, and how many samples. With
/// `modulating`, only the samples the clean tower's fan has headroom (under 80 %), where a fouled
/// fill shows as fan effort rather than as approach.
fn effort(g: &Generated, equip: &str, days: (usize, usize), modulating: bool) -> (f64, f64, usize) {
    let per_day = 24 * 60 / g.info.step_minutes as usize;
    let (fa, fb) = (col(g, FOULING, "tower_fan_speed"), col(g, CLEAN, "tower_fan_speed"));
    let (fan, cws, wb) =
        (col(g, equip, "tower_fan_speed"), col(g, equip, "cw_supply_temp"), col(g, equip, "wetbulb_temp"));
    let both: Vec<usize> = (days.0 * per_day..days.1 * per_day)
        .filter(|&i| fa[i] > 5.0 && fb[i] > 5.0 && (!modulating || fb[i] < 80.0))
        .collect();
    let n = both.len();
    (median(both.iter().map(|&i| fan[i]).collect()), median(both.iter().map(|&i| cws[i] - wb[i]).collect()), n)
}

#[test]
fn the_dataset_is_listed_with_its_two_towers_and_label() {
    let info = datasets().into_iter().find(|d| d.id == ID).expect("listed");
    assert_eq!((info.days, info.step_minutes), (42, 15));
    assert_eq!(info.fault_types.iter().map(|f| f.0).collect::<Vec<_>>(), ["tower_fouling_over_time"]);
    let g = generate(ID, None).unwrap();
    let units: Vec<(&str, &str, &str)> =
        g.equipment.iter().map(|e| (e.equip.as_str(), e.equip_class.as_str(), e.label.as_str())).collect();
    assert_eq!(units, [(CLEAN, "COOLING_TOWER", ""), (FOULING, "COOLING_TOWER", "tower_fouling_over_time")]);
    for e in [CLEAN, FOULING] {
        let roles: Vec<&str> = g.series.iter().filter(|s| s.equip == e).map(|s| s.role.as_str()).collect();
        assert_eq!(roles, ["cw_supply_temp", "cw_return_temp", "cw_flow", "tower_fan_speed", "oat", "wetbulb_temp"]);
    }
    // the two towers share the weather: their wet bulb is the same but for sensor noise
    let (a, b) = (col(&g, CLEAN, "wetbulb_temp"), col(&g, FOULING, "wetbulb_temp"));
    let close = a.iter().zip(b).filter(|(x, y)| (*x - *y).abs() < 2.0).count();
    assert!(close * 100 > a.len() * 95, "{close} of {}", a.len());
}

#[test]
fn the_fouling_tower_works_harder_week_by_week_and_its_twin_holds() {
    for seed in [None, Some(1), Some(0xDEAD_BEEF)] {
        let g = generate(ID, seed).unwrap();
        // before the fill fouls the twins are alike
        let ((cf, _, n), (ff, _, _)) = (effort(&g, CLEAN, BASELINE, true), effort(&g, FOULING, BASELINE, true));
        let ((_, ca, _), (_, fa, _)) = (effort(&g, CLEAN, BASELINE, false), effort(&g, FOULING, BASELINE, false));
        assert!(n >= 100, "{seed:?}: {n} samples with both fans running and headroom");
        assert!((cf - ff).abs() <= 3.0 && (ca - fa).abs() <= 0.3, "{seed:?}: fan {cf} / {ff}, approach {ca} / {fa}");
        // in the last two weeks the fouling tower spends more fan where it has headroom and
        // holds a wider approach; the clean one holds its approach (its fan follows the weather)
        let ((cf2, _, n2), (ff2, _, _)) = (effort(&g, CLEAN, CURRENT, true), effort(&g, FOULING, CURRENT, true));
        let ((_, ca2, _), (_, fa2, _)) = (effort(&g, CLEAN, CURRENT, false), effort(&g, FOULING, CURRENT, false));
        assert!(n2 >= 50, "{seed:?}: {n2}");
        assert!(ff2 - cf2 >= 10.0, "{seed:?}: fan {cf2} against {ff2}");
        assert!(fa2 - ca2 >= 1.0, "{seed:?}: approach {ca2} against {fa2}");
        assert!((ca2 - ca).abs() <= 0.5, "{seed:?}: the clean tower's approach {ca} then {ca2}");
        // and it grows: from the third week on, the approach gap over the twin widens every week
        let gap = |w: usize| {
            let (_, c, _) = effort(&g, CLEAN, (7 * w, 7 * w + 7), false);
            let (_, f, _) = effort(&g, FOULING, (7 * w, 7 * w + 7), false);
            f - c
        };
        let gaps: Vec<f64> = (0..6).map(gap).collect();
        for w in 3..6 {
            assert!(gaps[w] > gaps[w - 1], "{seed:?}: week {w}: {gaps:?}");
        }
        assert!(gaps[0].abs() <= 0.3 && gaps[1].abs() <= 0.3, "{seed:?}: {gaps:?}");
    }
}

#[test]
fn the_same_seed_gives_the_same_towers() {
    let (a, b) = (generate(ID, Some(5)).unwrap(), generate(ID, Some(5)).unwrap());
    let bits = |g: &Generated| g.series.iter().flat_map(|s| s.values.iter().map(|v| v.to_bits())).collect::<Vec<u64>>();
    assert_eq!(bits(&a), bits(&b));
    assert_ne!(bits(&a), bits(&generate(ID, Some(6)).unwrap()));
}
