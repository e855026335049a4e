use super::super::families::family;
use super::super::tests::{close, frame, noise, one, params, H, T0};
use super::super::{evaluate, fit, judge, FitError};
use super::*;
use crate::engine::testing::shuffled_with_duplicates;

/// The outdoor air (°F, 10-55), the return water (°F, 125-140), the loop flow (gpm, falling as
/// the weather warms) and the efficiency (falling as the return warms) at absolute sample `i`.
fn oat(i: usize) -> f64 {
    10.0 + 45.0 * ((i * 29) % 83) as f64 / 83.0
}

fn ret(i: usize) -> f64 {
    125.0 + 15.0 * ((i * 17) % 61) as f64 / 61.0
}

fn flow(i: usize) -> f64 {
    320.0 - 4.0 * (oat(i) - 10.0)
}

fn eff(i: usize) -> f64 {
    0.92 - 0.004 * (ret(i) - 120.0)
}

/// A boiler's window: hourly from `start`, burning `foul` more gas for its heat, its return
/// sensor reading `bias` °F warm; off one hour in eight. The same frames as the reference check.
fn boiler(n: usize, start: usize, foul: f64, bias: f64) -> Frame {
    let heat = |i: usize| 500.0 * flow(i) * 20.0 / BTU_PER_KWH;
    frame(
        n,
        start,
        &[
            ("gas_input_rate", &|i| heat(i) / eff(i) * (1.0 + foul) * (1.0 + 0.01 * noise(i))),
            ("hw_supply_temp", &|i| ret(i) + 20.0),
            ("hw_return_temp", &|i| ret(i) + bias),
            ("hw_flow", &flow),
            ("boiler_status", &|i| if i.is_multiple_of(8) { 0.0 } else { 1.0 }),
            ("oat", &oat),
        ],
    )
}

fn base() -> Frame {
    boiler(400, 0, 0.0, 0.0)
}

fn run(cur: &Frame, p: &Params) -> Finding {
    one(judge(&spec(), &base(), cur, p))
}

fn without(mut f: Frame, roles: &[&str]) -> Frame {
    for r in roles {
        f.cols.remove(*r);
    }
    f
}

#[test]
fn a_clean_boiler_holds_and_a_fouled_one_burns_more_for_its_heat() {
    let p = Params::default();
    let ok = run(&boiler(200, 400, 0.0, 0.0), &p);
    assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
    assert!(
        ok.summary.contains("holds near its baseline at matched load and return-water temperature"),
        "{}",
        ok.summary
    );
    let w = run(&boiler(200, 400, 0.08, 0.0), &p);
    assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
    assert!(close(w.metrics["ratio_drift_rel"], 0.08, 0.002), "{:?}", w.metrics);
    assert!(close(w.metrics["gas_rise_at_matched_oat"], 0.08, 0.002), "{:?}", w.metrics);
    assert!(w.summary.contains("+8.0 %") && w.summary.contains("burns more gas"), "{}", w.summary);
    let f = run(&boiler(200, 400, 0.2, 0.0), &p);
    assert_eq!((f.severity, f.metrics["attribution_sensor"]), (Severity::Fault, 0.0), "{}", f.summary);
    assert_eq!(f.judged, 175, "the status's off hours are not judged");
    assert_eq!(f.metrics["ratio_sustained_alarm"], 1.0);
    assert!(f.flagged.len() > 150, "{}", f.flagged.len());
    // a boiler that got better is not a fault
    let better = run(&boiler(200, 400, -0.2, 0.0), &p);
    assert_eq!(better.severity, Severity::Ok);
    assert!(better.summary.contains("only a rise is judged a fault"), "{}", better.summary);
}

#[test]
fn the_references_figures_on_the_same_boilers() {
    // the reference's BoilerEfficiencyDrift on these frames: clean ok (+0.0001, 0.0232σ); 8 %
    // fouled warn (+0.0918, rel 0.0799, 27.0126σ, gas +0.0801); 20 % fault (rel 0.1998,
    // 67.5275σ); the return sensor 4 °F warm: info, heat metering (rel 0.231, gas 0.0); 20 %
    // without the outdoor air: warn, uncorroborated. Baseline level 1.1492, sigma 0.0034, 175
    // samples judged. (The reference divides by its sigma rounded to four decimals, so its
    // sigmas differ from these by up to a percent or two.)
    let p = Params::default();
    let check = |cur: Frame, sev: Severity, rel: f64, sigma: f64| {
        let f = run(&cur, &p);
        let m = &f.metrics;
        assert_eq!(f.severity, sev, "{}", f.summary);
        assert!(
            close(m["ratio_drift_rel"], rel, 2e-4) && close(m["ratio_drift_sigma"], sigma, 0.02 * sigma.abs().max(3.0)),
            "{m:?}"
        );
        assert!(
            close(m["ratio_baseline_level"], 1.1492, 1e-4) && close(m["ratio_baseline_sigma"], 0.0034, 1e-4),
            "{m:?}"
        );
        assert_eq!(m["ratio_n_current"], 175.0);
        f
    };
    check(boiler(200, 400, 0.0, 0.0), Severity::Ok, 0.0001, 0.0232);
    check(boiler(200, 400, 0.08, 0.0), Severity::Warn, 0.0799, 27.0126);
    check(boiler(200, 400, 0.2, 0.0), Severity::Fault, 0.1998, 67.5275);
    let m = check(boiler(200, 400, 0.0, 4.0), Severity::Info, 0.231, 78.0896);
    assert_eq!((m.metrics["attribution_sensor"], m.metrics["gas_rise_at_matched_oat"]), (1.0, 0.0));
    assert!(m.summary.contains("a heat-metering problem"), "{}", m.summary);
    assert!(m.judged > 0);
    let no_oat = |f: Frame| without(f, &["oat"]);
    let f = one(judge(&spec(), &no_oat(base()), &no_oat(boiler(200, 400, 0.2, 0.0)), &p));
    assert_eq!((f.severity, f.metrics["attribution_unconfirmed"]), (Severity::Warn, 1.0), "{}", f.summary);
    assert!(f.caveats.iter().any(|c| c.contains("capped at a warning")), "{:?}", f.caveats);
    assert!(
        f.caveats.iter().any(|c| c.contains("signature was not fitted (no outdoor-air temperature)")),
        "{:?}",
        f.caveats
    );
}

#[test]
fn the_floors_and_the_corroboration_at_their_boundaries() {
    let cur = boiler(200, 400, 0.08, 0.0);
    let rel = run(&cur, &Params::default()).metrics["ratio_drift_rel"];
    assert_eq!(run(&cur, &params(&[("warn_rel", rel)])).severity, Severity::Warn);
    assert_eq!(run(&cur, &params(&[("warn_rel", rel + 0.001)])).severity, Severity::Ok);
    assert_eq!(run(&cur, &params(&[("fault_rel", rel)])).severity, Severity::Fault);
    let sig = run(&cur, &Params::default()).metrics["ratio_drift_sigma"];
    assert_eq!(run(&cur, &params(&[("warn_sigma", sig), ("fault_sigma", sig + 1.0)])).severity, Severity::Warn);
    assert_eq!(run(&cur, &params(&[("warn_sigma", sig + 0.01), ("fault_sigma", sig + 1.0)])).severity, Severity::Ok);
    // the gas rose about as much as the ratio: corroborated unless the share asks for more
    let gas = run(&cur, &Params::default()).metrics["gas_rise_at_matched_oat"];
    assert_eq!(run(&cur, &params(&[("corroboration_share", gas / rel - 0.01)])).metrics["attribution_sensor"], 0.0);
    assert_eq!(run(&cur, &params(&[("corroboration_share", gas / rel + 0.01)])).severity, Severity::Info);
}

#[test]
fn the_heat_is_read_from_the_flow_else_the_pump_speed() {
    let p = Params::default();
    let by_speed = |f: Frame| {
        let speed: Vec<f64> = f.cols["hw_flow"].iter().map(|v| v / 4.0).collect();
        let mut f = without(f, &["hw_flow"]);
        f.cols.insert("hw_pump_speed".into(), speed);
        f
    };
    let b = fit(&spec(), &by_speed(base()), &p).unwrap();
    assert_eq!(b.parts[0].basis.as_deref(), Some("hw_pump_speed"));
    let f = one(evaluate(&spec(), &b, &by_speed(boiler(200, 400, 0.2, 0.0)), &p));
    assert_eq!((f.severity, f.metrics["heat_from_flow"]), (Severity::Fault, 0.0), "{}", f.summary);
    assert!(f.caveats.iter().any(|c| c.contains("no hot-water flow meter")), "{:?}", f.caveats);
    // a baseline on the flow cannot judge a window without it
    let b = fit(&spec(), &base(), &p).unwrap();
    let f = one(evaluate(&spec(), &b, &by_speed(boiler(200, 400, 0.0, 0.0)), &p));
    assert!(f.severity == Severity::Info && f.summary.contains("read from hw_flow"), "{}", f.summary);
    // the return water barely moving: matched on the load alone, and said
    let steady = |f: Frame| {
        let mut f = f;
        let n = f.len();
        f.cols.insert("hw_return_temp".into(), vec![130.0; n]);
        f.cols.insert("hw_supply_temp".into(), vec![150.0; n]);
        f
    };
    let b = fit(&spec(), &steady(base()), &p).unwrap();
    assert!(b.parts[0].fit.as_ref().unwrap().covariate.is_none());
    let f = one(evaluate(&spec(), &b, &steady(boiler(200, 400, 0.0, 0.0)), &p));
    assert!(f.caveats.iter().any(|c| c.contains("could not be identified")), "{:?}", f.caveats);
    assert!(f.summary.contains("at matched load ("), "{}", f.summary);
}

#[test]
fn missing_inputs_skip_and_a_window_that_cannot_fit_declines() {
    let p = Params::default();
    for (gone, want) in [
        (&["gas_input_rate"][..], "gas_input_rate"),
        (&["hw_return_temp"][..], "hw_return_temp"),
        (&["hw_flow"][..], "hw_flow or hw_pump_speed"),
    ] {
        match fit(&spec(), &without(base(), gone), &p) {
            Err(FitError::Missing(m)) => assert_eq!(m, [want]),
            o => panic!("{o:?}"),
        }
        let b = fit(&spec(), &base(), &p).unwrap();
        assert_eq!(
            evaluate(&spec(), &b, &without(boiler(200, 400, 0.0, 0.0), gone), &p),
            Outcome::Skipped { missing: vec![want.into()] }
        );
    }
    // the boiler never fired
    let mut off = base();
    off.cols.insert("boiler_status".into(), vec![0.0; 400]);
    match fit(&spec(), &off, &p) {
        Err(FitError::Declined(why)) => assert!(why.starts_with("ratio: no firing samples"), "{why}"),
        o => panic!("{o:?}"),
    }
    // too few firing samples now
    let b = fit(&spec(), &base(), &p).unwrap();
    let f = one(evaluate(&spec(), &b, &boiler(20, 400, 0.0, 0.0), &p));
    assert!(f.severity == Severity::Info && f.summary.contains("need 30"), "{}", f.summary);
}

#[test]
fn degenerate_frames_gaps_disorder_and_a_round_trip() {
    let p = Params::default();
    assert!(matches!(fit(&spec(), &Frame::default(), &p), Err(FitError::Missing(_))));
    assert!(matches!(fit(&spec(), &boiler(1, 0, 0.0, 0.0), &p), Err(FitError::Declined(_))));
    let mut nan = base();
    nan.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = f64::NAN));
    assert!(matches!(fit(&spec(), &nan, &p), Err(FitError::Missing(_))));
    // constant everything: a level with no scatter, judged on its floor alone
    let flat = frame(
        60,
        0,
        &[
            ("gas_input_rate", &|_| 1000.0),
            ("hw_supply_temp", &|_| 160.0),
            ("hw_return_temp", &|_| 140.0),
            ("hw_flow", &|_| 100.0),
        ],
    );
    let f = one(judge(&spec(), &flat, &flat, &p));
    assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
    assert!(f.caveats.iter().any(|c| c.contains("no scatter")), "{:?}", f.caveats);
    let _ = judge(&spec(), &base(), &Frame::default(), &p);
    // a gap and quarter-hour samples after it: the same verdict, every firing sample judged
    let cur = boiler(200, 400, 0.2, 0.0);
    let ts: Vec<i64> = (0..200i64).map(|i| if i < 100 { T0 + (400 + i) * H } else { T0 + (572 + i) * H / 4 }).collect();
    let cols: Vec<(&str, Vec<f64>)> = cur.cols.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let fine = Frame::from_rows(&ts, &cols);
    let (a, g) = (run(&cur, &p), run(&fine, &p));
    assert_eq!((a.severity, a.judged), (g.severity, g.judged));
    assert!(close(a.metrics["ratio_drift_rel"], g.metrics["ratio_drift_rel"], 1e-9));
    // disordered and repeated rows
    assert_eq!(
        judge(&spec(), &shuffled_with_duplicates(&base()), &shuffled_with_duplicates(&cur), &p),
        judge(&spec(), &base(), &cur, &p)
    );
    // the baseline through JSON
    let b = fit(&spec(), &base(), &p).unwrap();
    let json = serde_json::to_string(&b).unwrap();
    let back: Baseline = serde_json::from_str(&json).unwrap();
    // the signature has no load gate (NaN, null in JSON), so compare the text
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    assert_eq!(evaluate(&spec(), &back, &cur, &p), evaluate(&spec(), &b, &cur, &p));
    assert!(json.contains("\"name\":\"gas_signature\"") && json.contains("\"role\":\"hw_return_temp\""), "{json}");
}

#[test]
fn the_roll_up_names_the_boiler_the_sensor_or_neither() {
    let fam = family("boiler").unwrap();
    let p = Params::default();
    let d = (fam.diagnose)(fam, "B-1", &[("boiler_efficiency_drift", &run(&boiler(200, 400, 0.2, 0.0), &p))]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "boiler"));
    let d = (fam.diagnose)(fam, "B-1", &[("boiler_efficiency_drift", &run(&boiler(200, 400, 0.0, 4.0), &p))]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Info, "sensor"));
    assert!(d.summary.contains("heat-metering"), "{}", d.summary);
    let no_oat = |f: Frame| without(f, &["oat"]);
    let f = one(judge(&spec(), &no_oat(base()), &no_oat(boiler(200, 400, 0.2, 0.0)), &p));
    let d = (fam.diagnose)(fam, "B-1", &[("boiler_efficiency_drift", &f)]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Warn, "unknown"));
    let d = (fam.diagnose)(fam, "B-1", &[("boiler_efficiency_drift", &run(&boiler(200, 400, 0.0, 0.0), &p))]);
    assert_eq!(d.locus, "steady");
}

/// A scheduled building: the occupied hours (8 of every 24) are the warm ones and carry a
/// ventilation load, so over a week the gas rises with the outdoor air hour by hour; the current
/// window is 4 °F warmer than the baseline.
fn scheduled(n: usize, start: usize, foul: f64, warmer: f64) -> Frame {
    let occupied = |i: usize| (9..17).contains(&(i % 24));
    let oat = move |i: usize| 25.0 + warmer + if occupied(i) { 8.0 } else { 0.0 } + 4.0 * noise(i + 5);
    let flow =
        move |i: usize| 200.0 + if occupied(i) { 60.0 } else { 0.0 } - 2.0 * (oat(i) - 25.0) + 20.0 * noise(i + 9);
    let heat = move |i: usize| 500.0 * flow(i) * 20.0 / BTU_PER_KWH;
    frame(
        n,
        start,
        &[
            ("gas_input_rate", &|i| heat(i) / eff(i) * (1.0 + foul) * (1.0 + 0.01 * noise(i))),
            ("hw_supply_temp", &|i| ret(i) + 20.0),
            ("hw_return_temp", &ret),
            ("hw_flow", &flow),
            ("oat", &oat),
        ],
    )
}

#[test]
fn a_signature_the_weather_does_not_explain_does_not_blame_the_sensors() {
    let p = Params::default();
    let b = fit(&spec(), &scheduled(168, 0, 0.0, 0.0), &p).unwrap();
    let sig = b.parts.iter().find(|q| q.name == "gas_signature").unwrap();
    assert!(sig.fit.is_none(), "{:?}", sig.fit);
    assert!(sig.declined.as_deref().is_some_and(|d| d.contains("wrong sign")), "{:?}", sig.declined);
    // a boiler 9 % fouled in a warmer week: an unconfirmed warning, not an info on the sensors
    let f = one(judge(&spec(), &scheduled(168, 0, 0.0, 0.0), &scheduled(168, 336, 0.09, 4.0), &p));
    assert_eq!((f.severity, f.metrics["attribution_sensor"]), (Severity::Warn, 0.0), "{}", f.summary);
    assert_eq!(f.metrics["attribution_unconfirmed"], 1.0);
}

#[test]
fn a_signature_the_weather_barely_explains_is_not_fitted() {
    // the gas follows the occupancy alone, the outdoor air wanders on its own
    let f = |foul: f64| {
        frame(
            168,
            0,
            &[
                ("gas_input_rate", &move |i| {
                    (600.0 + if (9..17).contains(&(i % 24)) { 300.0 } else { 0.0 }) * (1.0 + foul)
                }),
                ("hw_supply_temp", &|i| ret(i) + 20.0),
                ("hw_return_temp", &ret),
                ("hw_flow", &|i| 200.0 + if (9..17).contains(&(i % 24)) { 100.0 } else { 0.0 }),
                ("oat", &|i| 10.0 + 45.0 * ((i * 29) % 83) as f64 / 83.0),
            ],
        )
    };
    let b = fit(&spec(), &f(0.0), &Params::default()).unwrap();
    let sig = b.parts.iter().find(|q| q.name == "gas_signature").unwrap();
    assert!(sig.declined.as_deref().is_some_and(|d| d.contains("explains only")), "{:?}", sig.declined);
}
