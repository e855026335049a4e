use super::super::tests::{close, frame, noise, one, params};
use super::super::{evaluate, fit, judge, FitError};
use super::*;

fn mat(i: usize) -> f64 {
    50.0 + 30.0 * ((i * 17) % 61) as f64 / 61.0
}

/// An air handler's window as reference/drift_ref.py builds it: the cooling valve open every
/// fourth hour, the heating valve shut, the fan off every seventh hour, and a valve-shut rise of
/// about 1.2 °F (moving a little with the mixed air) lowered by `cool_leak` and raised by
/// `heat_leak`.
fn window(n: usize, start: usize, cool_leak: f64, heat_leak: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (MAT, &mat),
            (SAT, &|i| mat(i) + 1.2 + 0.02 * (mat(i) - 65.0) - cool_leak + heat_leak + 0.4 * noise(i)),
            ("cool_valve", &|i| if i % 4 != 0 { 0.0 } else { 40.0 }),
            ("heat_valve", &|_| 0.0),
            ("supply_fan_status", &|i| if i % 7 == 0 { 0.0 } else { 1.0 }),
        ],
    )
}

fn run(cur: &Frame, p: &Params) -> Finding {
    one(judge(&spec(), &window(300, 0, 0.0, 0.0), cur, p))
}

#[test]
fn reference_cooling_leak_on_the_same_frame() {
    let f = run(&window(150, 300, 1.8, 0.0), &Params::default());
    // the reference (CoilLeakDrift, coil="cooling") gives fault: coil_leak_drift_f -1.7802,
    // -15.3866σ, baseline sigma 0.1157 °F on 193 samples, 96 judged, rise median -0.606 °F,
    // slope -0.0142 °F/month, none out of scope, sustained alarm
    assert_eq!(f.severity, Severity::Fault);
    let m = &f.metrics;
    assert!(
        close(m["coil_leak_cooling_drift_f"], -1.7802, 1e-3)
            && close(m["coil_leak_cooling_drift_sigma"], -15.3866, 0.02),
        "{m:?}"
    );
    assert!(
        close(m["coil_leak_cooling_baseline_sigma_f"], 0.1157, 1e-4)
            && close(m["coil_leak_cooling_rise_median_f"], -0.606, 1e-3)
            && close(m["coil_leak_cooling_slope_f_per_month"], -0.0142, 1e-4),
        "{m:?}"
    );
    assert_eq!(
        (
            m["coil_leak_cooling_baseline_n"],
            m["coil_leak_cooling_n_current"],
            m["coil_leak_cooling_n_out_of_scope"],
            m["coil_leak_cooling_sustained_alarm"]
        ),
        (193.0, 96.0, 0.0, 1.0)
    );
    // the reference's heating instance on the same frame gives ok (a fall is not a heating leak)
    assert_eq!(m["coil_leak_heating_sustained_alarm"], 0.0);
    assert!(close(m["coil_leak_heating_drift_f"], -1.7802, 1e-3));
    assert!(
        f.summary.contains("cooling-coil")
            && f.summary.contains("uncommanded cooling")
            && f.summary.ends_with("the heating coil: ok"),
        "{}",
        f.summary
    );
    assert_eq!(
        f.conditions.iter().map(|c| (c.name.as_str(), c.judged)).collect::<Vec<_>>(),
        [("cooling_leak", 96), ("heating_leak", 96)]
    );
    assert_eq!(f.conditions[1].flagged.len(), 0);
    assert_eq!(f.flagged, f.conditions[0].flagged);
    assert!(f.caveats.iter().any(|c| c.contains("mixed-air sensor moves this rise")));
    // a 0.7 °F leak: the reference gives warn, -0.6802 °F, -5.8793σ, rise median 0.494 °F
    let f = run(&window(150, 300, 0.7, 0.0), &Params::default());
    assert_eq!(f.severity, Severity::Warn);
    assert!(
        close(f.metrics["coil_leak_cooling_drift_f"], -0.6802, 1e-3)
            && close(f.metrics["coil_leak_cooling_drift_sigma"], -5.8793, 0.01)
            && close(f.metrics["coil_leak_cooling_rise_median_f"], 0.494, 1e-3),
        "{:?}",
        f.metrics
    );
}

#[test]
fn no_leak_is_ok_and_a_heating_leak_is_found_on_its_own_coil() {
    let f = run(&window(150, 300, 0.0, 0.0), &Params::default());
    assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
    assert!(f.summary.contains("holds near its baseline"), "{}", f.summary);
    let f = run(&window(150, 300, 0.0, 2.0), &Params::default());
    assert_eq!(f.severity, Severity::Fault);
    assert!(
        f.summary.contains("heating-coil")
            && f.summary.contains("uncommanded heating")
            && f.summary.ends_with("the cooling coil: ok"),
        "{}",
        f.summary
    );
    assert!(f.conditions[1].flagged.len() > 80 && f.conditions[0].flagged.is_empty());
}

#[test]
fn the_leak_floors_are_inclusive() {
    let d = run(&window(150, 300, 0.7, 0.0), &Params::default());
    let drift = -d.metrics["coil_leak_cooling_drift_f"];
    assert_eq!(run(&window(150, 300, 0.7, 0.0), &params(&[("warn_f", drift)])).severity, Severity::Warn);
    assert_eq!(run(&window(150, 300, 0.7, 0.0), &params(&[("warn_f", drift + 0.001)])).severity, Severity::Ok);
    assert_eq!(run(&window(150, 300, 1.8, 0.0), &params(&[("fault_f", 1.7802)])).severity, Severity::Fault);
    assert_eq!(run(&window(150, 300, 1.8, 0.0), &params(&[("fault_f", 1.8)])).severity, Severity::Warn);
}

#[test]
fn missing_inputs_skip() {
    let mut cur = window(150, 300, 1.8, 0.0);
    cur.cols.remove(MAT);
    assert_eq!(
        judge(&spec(), &window(300, 0, 0.0, 0.0), &cur, &Params::default()),
        Outcome::Skipped { missing: vec![MAT.into()] }
    );
    let mut cur = window(150, 300, 1.8, 0.0);
    cur.cols.remove("cool_valve");
    cur.cols.remove("heat_valve");
    assert_eq!(
        judge(&spec(), &window(300, 0, 0.0, 0.0), &cur, &Params::default()),
        Outcome::Skipped { missing: vec!["cool_valve or heat_valve".into()] }
    );
    let mut base = window(300, 0, 0.0, 0.0);
    base.cols.remove(SAT);
    assert_eq!(fit(&spec(), &base, &Params::default()), Err(FitError::Missing(vec![SAT.into()])));
    // a heating valve trended only in the current window: that coil has no baseline
    let mut base = window(300, 0, 0.0, 0.0);
    base.cols.remove("heat_valve");
    let f = one(judge(&spec(), &base, &window(150, 300, 1.8, 0.0), &Params::default()));
    assert_eq!((f.severity, f.conditions[1].judged), (Severity::Fault, 0));
    assert!(
        f.caveats.iter().any(|c| c.contains("heating coil: the baseline window had no valve command")),
        "{:?}",
        f.caveats
    );
}

#[test]
fn too_few_samples_and_the_fan_off_are_not_judged() {
    let f = one(judge(&spec(), &window(30, 0, 0.0, 0.0), &window(150, 300, 1.8, 0.0), &Params::default()));
    assert_eq!(f.severity, Severity::Info);
    assert!(f.summary.contains("fan-on sample(s) with the valves shut (need 30)"), "{}", f.summary);
    let f = run(&window(9, 300, 1.8, 0.0), &Params::default());
    assert_eq!((f.severity, f.judged), (Severity::Info, 0));
    let mut off = window(150, 300, 1.8, 0.0);
    off.cols.insert("supply_fan_status".into(), vec![0.0; 150]);
    let f = run(&off, &Params::default());
    assert_eq!((f.severity, f.judged), (Severity::Info, 0));
    assert!(f.summary.contains("cooling coil: only 0 fan-on sample(s)"), "{}", f.summary);
    // every valve open: nothing qualifies either
    let mut open = window(150, 300, 1.8, 0.0);
    open.cols.insert("heat_valve".into(), vec![50.0; 150]);
    assert_eq!(run(&open, &Params::default()).severity, Severity::Info);
    // with no fan signal every valve-shut sample is judged, and the finding says so
    let mut nofan = window(150, 300, 1.8, 0.0);
    nofan.cols.remove("supply_fan_status");
    let mut base = window(300, 0, 0.0, 0.0);
    base.cols.remove("supply_fan_status");
    let f = one(judge(&spec(), &base, &nofan, &Params::default()));
    assert_eq!((f.severity, f.conditions[0].judged), (Severity::Fault, 112));
    assert!(f.caveats.iter().any(|c| c.contains("no fan status or speed")));
    // a fan speed stands in for the status (a 0-1 speed read as a fraction)
    let mut speed = nofan.clone();
    speed
        .cols
        .insert("supply_fan_speed".into(), (0..150).map(|i| if (300 + i) % 7 == 0 { 0.0 } else { 0.6 }).collect());
    assert_eq!(one(judge(&spec(), &base, &speed, &Params::default())).conditions[0].judged, 96);
}

#[test]
fn nan_gaps_duplicates_and_disorder() {
    let clean = window(150, 300, 1.8, 0.0);
    let mut ts = Vec::new();
    let mut cols: Vec<(&str, Vec<f64>)> = clean.cols.keys().map(|k| (k.as_str(), Vec::new())).collect();
    for i in (0..clean.len()).rev() {
        if (50..80).contains(&i) {
            continue;
        }
        for _ in 0..2 {
            ts.push(clean.ts[i]);
            for (k, v) in cols.iter_mut() {
                v.push(if i % 11 == 3 && *k == SAT { f64::NAN } else { clean.cols[*k][i] });
            }
        }
    }
    let f = run(&Frame::from_rows(&ts, &cols), &Params::default());
    assert_eq!(f.severity, Severity::Fault);
    assert!(f.judged < 96 && f.judged > 60, "{}", f.judged);
    assert!(f.conditions[0].judged_hours <= f.judged as f64 * 1.5);
}

#[test]
fn the_sensor_judged_must_be_the_baselines() {
    // a cooling-coil leaving sensor only in the current window
    let mut cur = window(150, 300, 1.8, 0.0);
    let sat = cur.cols[SAT].clone();
    cur.cols.insert("cool_coil_leaving_temp".into(), sat);
    let f = run(&cur, &Params::default());
    assert_eq!(f.conditions[0].judged, 0);
    assert!(
        f.caveats.iter().any(
            |c| c.contains("the baseline read supply_air_temp and the current window reads cool_coil_leaving_temp")
        ),
        "{:?}",
        f.caveats
    );
    // switching the sensor off puts both on the supply air again
    assert_eq!(
        run(
            &cur,
            &Params {
                values: [("use_coil_leaving".to_string(), crate::engine::ParamValue::Flag(Some(false)))].into(),
                ..Default::default()
            }
        )
        .severity,
        Severity::Fault
    );
    // a heating coil the supply air does not leave, with no sensor of its own, is not judged
    let p = Params {
        values: [("judge_heating_on_supply_air".to_string(), crate::engine::ParamValue::Flag(Some(false)))].into(),
        ..Default::default()
    };
    let b = fit(&spec(), &window(300, 0, 0.0, 0.0), &p).unwrap();
    assert!(b.parts[1].declined.as_deref().unwrap().contains("judge_heating_on_supply_air"));
    assert_eq!(b.parts[0].basis.as_deref(), Some(SAT));
    let f = one(evaluate(&spec(), &b, &window(150, 300, 0.0, 2.0), &p));
    assert_eq!((f.severity, f.conditions[1].judged), (Severity::Ok, 0));
}

#[test]
fn mixed_air_outside_the_baselines_range_is_not_judged() {
    // the current window runs 10 °F colder than any baseline hour for a third of the time
    let cur = frame(
        150,
        300,
        &[
            (MAT, &|i| if i % 3 == 0 { 40.0 } else { mat(i) }),
            (SAT, &|i| (if i % 3 == 0 { 40.0 } else { mat(i) }) + 1.2 - 1.8 + 0.4 * noise(i)),
            ("cool_valve", &|_| 0.0),
            ("supply_fan_status", &|_| 1.0),
        ],
    );
    let f = run(&cur, &Params::default());
    assert_eq!(f.severity, Severity::Fault);
    assert_eq!(f.metrics["coil_leak_cooling_n_out_of_scope"], 50.0);
    assert!(f.caveats.iter().any(|c| c.contains("50 valve-shut sample(s) (33%)")), "{:?}", f.caveats);
    // a level baseline (mixed air held within a few degrees) judges only its band
    let steady = |leak: f64| {
        move |n: usize, start: usize| {
            frame(
                n,
                start,
                &[
                    (MAT, &|i| 60.0 + 2.0 * noise(i + 7)),
                    (SAT, &|i| 60.0 + 2.0 * noise(i + 7) + 1.0 - leak + 0.3 * noise(i)),
                    ("cool_valve", &|_| 0.0),
                ],
            )
        }
    };
    let b = fit(&spec(), &steady(0.0)(300, 0), &Params::default()).unwrap();
    assert_eq!(b.parts[0].fit.as_ref().unwrap().model, loadfit::Model::Level);
    assert_eq!(one(evaluate(&spec(), &b, &steady(1.8)(150, 300), &Params::default())).severity, Severity::Fault);
}

#[test]
fn occupied_only_uses_the_trended_occupancy_else_the_assumed_schedule() {
    let p = Params {
        values: [("occupied_only".to_string(), crate::engine::ParamValue::Flag(Some(true)))].into(),
        ..Default::default()
    };
    // 150 hours from Saturday 2024-01-13 12:00: the assumed weekday 07:00-18:00 schedule
    let f = one(judge(&spec(), &window(600, 0, 0.0, 0.0), &window(150, 300, 1.8, 0.0), &p));
    assert_eq!(f.severity, Severity::Fault);
    assert!(f.conditions[0].judged < 50, "{}", f.conditions[0].judged);
    let mut occ = window(150, 300, 1.8, 0.0);
    occ.cols.insert("occupancy".into(), vec![1.0; 150]);
    assert_eq!(one(judge(&spec(), &window(600, 0, 0.0, 0.0), &occ, &p)).conditions[0].judged, 96);
}

#[test]
fn reference_out_of_scope_and_level_baselines() {
    // reference/drift_ref.py "coil_out_of_scope": the reference judges 100 samples, leaves 50 out
    // of scope, and gives fault, -1.7788 °F, -15.374σ, rise median -0.596 °F
    let cur = frame(
        150,
        300,
        &[
            (MAT, &|i| if i % 3 == 0 { 40.0 } else { mat(i) }),
            (SAT, &|i| (if i % 3 == 0 { 40.0 } else { mat(i) }) + 1.2 - 1.8 + 0.4 * noise(i)),
            ("cool_valve", &|_| 0.0),
            ("supply_fan_status", &|_| 1.0),
        ],
    );
    let m = run(&cur, &Params::default()).metrics;
    assert_eq!((m["coil_leak_cooling_n_current"], m["coil_leak_cooling_n_out_of_scope"]), (100.0, 50.0));
    assert!(
        close(m["coil_leak_cooling_drift_f"], -1.7788, 1e-3)
            && close(m["coil_leak_cooling_drift_sigma"], -15.374, 0.02)
            && close(m["coil_leak_cooling_rise_median_f"], -0.596, 1e-3),
        "{m:?}"
    );
    // "coil_level": mixed air held near 60 °F fits a flat level; the reference gives fault,
    // -1.798 °F, -20.7382σ, sigma 0.0867 °F on 300 samples, 150 judged
    let steady = |leak: f64| {
        move |n: usize, start: usize| {
            frame(
                n,
                start,
                &[
                    (MAT, &|i| 60.0 + 2.0 * noise(i + 7)),
                    (SAT, &|i| 60.0 + 2.0 * noise(i + 7) + 1.0 - leak + 0.3 * noise(i)),
                    ("cool_valve", &|_| 0.0),
                ],
            )
        }
    };
    let f = one(judge(&spec(), &steady(0.0)(300, 0), &steady(1.8)(150, 300), &Params::default()));
    let m = &f.metrics;
    assert_eq!(
        (f.severity, m["coil_leak_cooling_baseline_n"], m["coil_leak_cooling_n_current"]),
        (Severity::Fault, 300.0, 150.0)
    );
    assert!(
        close(m["coil_leak_cooling_drift_f"], -1.798, 1e-3)
            && close(m["coil_leak_cooling_drift_sigma"], -20.7382, 0.05)
            && close(m["coil_leak_cooling_baseline_sigma_f"], 0.0867, 1e-4),
        "{m:?}"
    );
}
