use super::*;

/// Hourly samples from 2024-01-01 00:00 (a Monday), as the reference comparisons use.
pub(crate) const H: i64 = 3_600_000_000_000;
pub(crate) const T0: i64 = 19_723 * 24 * H;

/// A deterministic scatter in [-0.5, 0.5), the same sequence the reference scripts use.
pub(crate) fn noise(i: usize) -> f64 {
    ((i * 7919 + 13) % 101) as f64 / 101.0 - 0.5
}

/// `n` hourly samples starting `start` hours after T0; each column a function of the absolute
/// sample number.
pub(crate) fn frame(n: usize, start: usize, cols: &[(&str, &dyn Fn(usize) -> f64)]) -> Frame {
    let ts: Vec<i64> = (start..start + n).map(|i| T0 + i as i64 * H).collect();
    let cols: Vec<(&str, Vec<f64>)> =
        cols.iter().map(|(name, f)| (*name, (start..start + n).map(f).collect())).collect();
    Frame::from_rows(&ts, &cols)
}

pub(crate) fn params(kv: &[(&str, f64)]) -> Params {
    crate::engine::testing::numbers(kv)
}

pub(crate) fn one(o: Outcome) -> Finding {
    match o {
        Outcome::Findings(mut v) => {
            assert_eq!(v.len(), 1);
            v.remove(0)
        }
        o => panic!("{o:?}"),
    }
}

pub(crate) fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn every_detector_declares_itself_consistently() {
    let specs = all();
    let ids: Vec<&str> = specs.iter().map(|s| s.id).collect();
    assert_eq!(
        ids,
        [
            "boiler_efficiency_drift",
            "chiller_approach_drift",
            "chiller_cw_range_drift",
            "chiller_head_pressure_drift",
            "chiller_subcooling_drift",
            "chiller_suction_pressure_drift",
            "chiller_superheat_drift",
            "coil_leak_drift",
            "coil_valve_drift",
            "cooling_tower_approach_drift",
            "cooling_tower_fan_effort_drift",
            "discharge_superheat_drift",
            "duct_static_drift",
            "dx_indoor_airflow_drift",
            "dx_refrigerant_charge_drift",
            "economizer_damper_drift",
            "fan_efficiency_drift",
            "filter_loading_drift",
            "hw_loop_deltat_drift",
            "hw_loop_dp_drift",
            "hw_pump_flow_drift",
            "hw_pump_head_drift",
            "hw_pump_power_drift",
            "loop_deltat_drift",
            "loop_dp_drift",
            "pump_flow_drift",
            "pump_head_drift",
            "pump_power_drift",
            "vav_airflow_drift",
            "vav_reheat_valve_drift"
        ]
    );
    for s in &specs {
        assert!(!s.families.is_empty() && !s.description.is_empty() && !s.judged_basis.is_empty(), "{}", s.id);
        assert!(s.families.iter().all(|f| crate::family::family_of(f) == Some(*f)), "{}: unknown family", s.id);
        // its drift family runs it
        let runs = super::families::family(s.drift_family).is_some_and(|f| f.detectors.iter().any(|d| d.0 == s.id));
        assert!(runs, "{} is not in its family {}", s.id, s.drift_family);
        let fam = if s.id.starts_with("cooling_tower_") {
            "tower"
        } else if s.id.starts_with("boiler_") {
            "boiler"
        } else if s.id.starts_with("dx_") || s.id == "discharge_superheat_drift" {
            "dx"
        } else if s.families.contains(&"air_handler") {
            "ahu"
        } else if s.id.starts_with("chiller_") {
            "chiller"
        } else if s.id.starts_with("vav_") {
            "vav"
        } else if s.id.starts_with("hw_") {
            "hw_pump"
        } else {
            "pump"
        };
        assert_eq!(s.drift_family, fam);
        for p in &s.params {
            assert!(!p.basis.is_empty() && !p.calibrate.is_empty() && !p.unit.is_empty(), "{}.{}", s.id, p.name);
            if let (ParamValue::Number(x), Some((lo, hi))) = (&p.default, p.range) {
                assert!(x.is_nan() || (lo..=hi).contains(x), "{}.{} default out of range", s.id, p.name);
            }
        }
        let d = Params::default();
        let (ws, fs) = if s.id == "chiller_approach_drift" {
            ("drift_warn_sigma", "drift_fault_sigma")
        } else {
            ("warn_sigma", "fault_sigma")
        };
        assert!(d.number(s, ws) <= d.number(s, fs), "{}", s.id);
        assert_eq!(spec(s.id).map(|x| x.id), Some(s.id));
        // a hot-water twin has its chilled-water detector's parameters
        if let Some(chw) = s.id.strip_prefix("hw_") {
            let twin = spec(chw).unwrap();
            assert_eq!(serde_json::to_value(&s.params).unwrap(), serde_json::to_value(&twin.params).unwrap());
        }
    }
    // every detector a family names is built, and sits in the family it reports under
    for f in super::families::all() {
        for (id, _) in f.detectors {
            if let Some(d) = spec(id) {
                assert!(f.name == d.drift_family || !["ahu", "vav"].contains(&f.name), "{id} in {}", f.name);
            }
        }
    }
    assert!(super::families::family("ahu").unwrap().missing().is_empty());
    assert!(super::families::family("vav").unwrap().missing().is_empty());
    let counts: Vec<usize> = specs.iter().map(|s| s.params.len()).collect();
    assert_eq!(
        counts,
        [
            9, 10, 10, 13, 10, 13, 10, 15, 12, 12, 10, 10, 10, 10, 11, 10, 10, 9, 11, 12, 11, 11, 11, 11, 12, 11, 11,
            11, 10, 13
        ]
    );
}

#[test]
fn parameter_names_defaults_units_and_ranges_are_the_references() {
    // the reference's rule_params for three detectors, as (name, default, unit, range)
    let s = spec("pump_flow_drift").unwrap();
    let got: Vec<_> = s.params.iter().map(|p| (p.name, p.default.to_json(), p.unit, p.range)).collect();
    let want = [
        ("warn_gpm", serde_json::Value::Null, "gpm", (0.5, 100.0)),
        ("fault_gpm", serde_json::Value::Null, "gpm", (1.0, 200.0)),
        ("warn_sigma", serde_json::json!(2.5), "σ", (1.5, 6.0)),
        ("fault_sigma", serde_json::json!(4.0), "σ", (2.5, 10.0)),
        ("dp_confound", serde_json::json!(1.0), "loop DP units", (0.1, 20.0)),
        ("slack_sigma", serde_json::json!(0.5), "σ", (0.25, 2.0)),
        ("limit_sigma", serde_json::json!(8.0), "σ", (4.0, 20.0)),
        ("clip_sigma", serde_json::json!(4.0), "σ", (2.0, 8.0)),
        ("min_consecutive", serde_json::json!(6.0), "count (samples)", (1.0, 48.0)),
        ("min_speed", serde_json::Value::Null, "% speed", (5.0, 60.0)),
        ("constant_speed_cv", serde_json::json!(0.02), "fraction (std / mean)", (0.0, 0.1)),
    ];
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0, &g.1, g.2, g.3), (w.0, &w.1, w.2, Some(w.3)));
    }
    let dt = spec("loop_deltat_drift").unwrap();
    let names: Vec<&str> = dt.params.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "warn_f",
            "fault_f",
            "warn_sigma",
            "fault_sigma",
            "slack_sigma",
            "limit_sigma",
            "clip_sigma",
            "min_consecutive",
            "min_load",
            "min_load_span",
            "constant_cv"
        ]
    );
    assert_eq!(Params::default().number(&dt, "fault_sigma"), 5.0);
    assert_eq!(dt.params[8].unit, "gpm (% speed when the normalizer is a pump speed)");
    let cl = spec("coil_leak_drift").unwrap();
    let names: Vec<&str> = cl.params.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "warn_f",
            "fault_f",
            "warn_sigma",
            "fault_sigma",
            "valve_closed_thr",
            "fan_on_min",
            "fan_speed_thr",
            "occupied_only",
            "use_coil_leaving",
            "judge_heating_on_supply_air",
            "min_mat_span_f",
            "slack_sigma",
            "limit_sigma",
            "clip_sigma",
            "min_consecutive"
        ]
    );
    assert_eq!(cl.params[2].unit, "σ (baseline residual standard deviations)");
    assert_eq!(cl.params[10].unit, "°F (mixed-air range of the baseline)");
    // overrides are checked against the detector's own declaration
    assert!(params(&[("warn_gpm", 200.0)]).check(&s).is_ok());
    assert!(params(&[("warn_gpm", 200.0)]).outside_range(&s)[0].contains("outside its sensible range 0.5 to 100"));
    assert!(params(&[("warn_f", 1.0)]).check(&s).is_err());
    assert!(params(&[("warn_gpm", 10.0)]).check(&s).is_ok());
}

#[test]
fn finding_ids_and_families_of_equipment() {
    let s = spec("coil_leak_drift").unwrap();
    assert_eq!(s.finding_id("AHU-1"), "ahu:coil_leak_drift@AHU-1");
    assert_eq!(spec("hw_pump_flow_drift").unwrap().finding_id("HWP-2"), "hw_pump:hw_pump_flow_drift@HWP-2");
    assert_eq!(spec("loop_dp_drift").unwrap().finding_id("CHW-LOOP"), "pump:loop_dp_drift@CHW-LOOP");
    assert!(s.applies_to("AHU") && s.applies_to("FCU") && !s.applies_to("VAV"));
    let p = spec("pump_flow_drift").unwrap();
    assert!(p.applies_to("CHWPUMP") && p.applies_to("CHILLER") && !p.applies_to("BOILER"));
    assert!(spec("hw_pump_flow_drift").unwrap().applies_to("BOILER"));
}

#[test]
fn severity_boundaries_are_inclusive_and_need_both_floors() {
    let f = Floors { warn: 1.0, fault: 2.0, warn_sigma: 2.5, fault_sigma: 5.0 };
    assert_eq!(grade(Side::Both, 1.0, Some(2.5), &f), Severity::Warn);
    assert_eq!(grade(Side::Both, -1.0, Some(-2.5), &f), Severity::Warn);
    assert_eq!(grade(Side::Both, 0.9999, Some(9.0), &f), Severity::Ok);
    assert_eq!(grade(Side::Both, 5.0, Some(2.4999), &f), Severity::Ok);
    assert_eq!(grade(Side::Both, 2.0, Some(5.0), &f), Severity::Fault);
    assert_eq!(grade(Side::Both, 2.0, Some(4.9), &f), Severity::Warn);
    assert_eq!(grade(Side::Down, 3.0, Some(9.0), &f), Severity::Ok);
    assert_eq!(grade(Side::Down, -3.0, Some(-9.0), &f), Severity::Fault);
    assert_eq!(grade(Side::Up, -3.0, Some(-9.0), &f), Severity::Ok);
    // no scatter: the unit floor alone
    assert_eq!(grade(Side::Up, 1.0, None, &f), Severity::Warn);
    assert_eq!(grade(Side::Up, 2.0, None, &f), Severity::Fault);
    assert_eq!(grade(Side::Up, f64::NAN, None, &f), Severity::Ok);
}

fn pump_frame(n: usize, start: usize, deficit: f64) -> Frame {
    let speed = |i: usize| 30.0 + 60.0 * ((i * 53) % 97) as f64 / 97.0;
    let on = |i: usize| if i.is_multiple_of(10) { 0.0 } else { 1.0 };
    frame(
        n,
        start,
        &[
            ("chw_flow", &|i| if on(i) > 0.0 { 10.0 * speed(i) - deficit + 20.0 * noise(i) } else { 0.0 }),
            ("chw_pump_speed", &|i| if on(i) > 0.0 { speed(i) } else { 0.0 }),
            ("pump_status", &on),
        ],
    )
}

#[test]
fn a_baseline_round_trips_through_json_and_judges_the_same() {
    let s = spec("pump_flow_drift").unwrap();
    let p = Params::default();
    let b = fit(&s, &pump_frame(300, 0, 0.0), &p).unwrap();
    assert_eq!((b.detector.as_str(), b.format, b.parts.len()), ("pump_flow_drift", BASELINE_FORMAT, 1));
    let json = serde_json::to_string(&b).unwrap();
    for k in [
        "\"model\":\"linear\"",
        "\"sigma\":",
        "\"n\":270",
        "\"min_load\":15.0",
        "\"gate_source\":\"default\"",
        "\"normalizer\":\"variable\"",
    ] {
        assert!(json.contains(k), "{k} in {json}");
    }
    let back: Baseline = serde_json::from_str(&json).unwrap();
    assert_eq!(back, b);
    let cur = pump_frame(150, 300, 25.0);
    assert_eq!(evaluate(&s, &back, &cur, &p), evaluate(&s, &b, &cur, &p));
    assert_eq!(judge(&s, &pump_frame(300, 0, 0.0), &cur, &p), evaluate(&s, &b, &cur, &p));
    // a baseline for another detector, or of another format, is not used
    let other = spec("pump_head_drift").unwrap();
    assert!(one(evaluate(&other, &b, &cur, &p)).summary.contains("baseline is for pump_flow_drift"));
    let mut old = b.clone();
    old.format = 0;
    assert_eq!(one(evaluate(&s, &old, &cur, &p)).severity, Severity::Info);
    // a DP baseline whose plausible band is unbounded still serializes (no infinities)
    let dp = spec("loop_dp_drift").unwrap();
    let f = frame(60, 0, &[("chw_diff_press", &|_| 0.0), ("chw_flow", &|i| 100.0 + i as f64)]);
    match fit(&dp, &f, &p) {
        Err(FitError::Declined(why)) => {
            assert!(why.contains("the fit is degenerate") || why.contains("usable"), "{why}")
        }
        Ok(b) => assert!(serde_json::to_string(&b).is_ok()),
        e => panic!("{e:?}"),
    }
}

#[test]
fn empty_frames_and_hand_built_ragged_columns_do_not_panic() {
    let p = Params::default();
    for s in all() {
        assert!(matches!(fit(&s, &Frame::default(), &p), Err(FitError::Missing(_))), "{}", s.id);
        // a column shorter than the timestamps is treated as absent
        let mut f = pump_frame(100, 0, 0.0);
        f.cols.insert("chw_flow".into(), vec![1.0; 3]);
        let _ = fit(&s, &f, &p);
        let _ = judge(&s, &pump_frame(300, 0, 0.0), &f, &p);
        let _ = judge(&s, &pump_frame(300, 0, 0.0), &Frame::default(), &p);
    }
}

#[test]
fn a_baseline_with_a_declined_part_and_odd_numbers_round_trips() {
    let s = spec("coil_leak_drift").unwrap();
    let p = Params {
        values: [
            ("judge_heating_on_supply_air".to_string(), ParamValue::Flag(Some(false))),
            ("min_mat_span_f".to_string(), ParamValue::Number(f64::NAN)),
        ]
        .into(),
        ..Default::default()
    };
    let mat = |i: usize| 50.0 + 30.0 * ((i * 17) % 61) as f64 / 61.0;
    let f = frame(
        200,
        0,
        &[
            ("mixed_air_temp", &mat),
            ("supply_air_temp", &|i| mat(i) + 1.0 + 0.3 * noise(i)),
            ("cool_valve", &|_| 0.0),
            ("heat_valve", &|_| 0.0),
        ],
    );
    let b = fit(&s, &f, &p).unwrap();
    assert!(b.parts[0].fit.is_some() && b.parts[1].declined.is_some());
    let json = serde_json::to_string(&b).unwrap();
    assert!(json.contains("\"min_span\":null"), "{json}");
    let back: Baseline = serde_json::from_str(&json).unwrap();
    assert!(back.parts[0].min_span.is_nan() && back.parts[1].fit.is_none());
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
}
