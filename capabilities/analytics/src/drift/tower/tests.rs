use super::super::families::family;
use super::super::tests::{close, frame, noise, one, params, H, T0};
use super::super::{evaluate, fit, judge, spec as spec_of, FitError};
use super::*;
use crate::engine::testing::shuffled_with_duplicates;

/// The tower's range (°F) at absolute sample `i`: 4 to 12, so 1,200 gpm rejects 200-600 tons.
fn range(i: usize) -> f64 {
    4.0 + 8.0 * ((i * 37) % 89) as f64 / 89.0
}

fn heat(i: usize) -> f64 {
    1200.0 * range(i) / 24.0
}

/// The wet bulb (°F): 65 to 75.
fn wb(i: usize) -> f64 {
    65.0 + 10.0 * ((i * 13) % 71) as f64 / 71.0
}

/// The approach a clean tower holds at sample `i` (°F), and its fan speed (%).
fn approach(i: usize) -> f64 {
    5.0 + 0.004 * heat(i) + 0.3 * noise(i)
}

fn fan(i: usize) -> f64 {
    20.0 + 0.08 * heat(i) + (wb(i) - 70.0) + 2.0 * noise(i + 3)
}

/// A tower's window: hourly from `start`, its approach widened `app` °F, its fan `effort`
/// %-points harder, the weather `hotter` °F wetter (fan and approach following it as a clean
/// tower's do). The fan is off one hour in ten.
fn tower(n: usize, start: usize, app: f64, effort: f64, hotter: f64) -> Frame {
    let on = |i: usize| !i.is_multiple_of(10);
    frame(
        n,
        start,
        &[
            ("cw_supply_temp", &|i| wb(i) + hotter + approach(i) + app),
            ("cw_return_temp", &|i| wb(i) + hotter + approach(i) + app + range(i)),
            ("cw_flow", &|_| 1200.0),
            ("wetbulb_temp", &|i| wb(i) + hotter),
            ("tower_fan_speed", &|i| if on(i) { fan(i) + hotter + effort } else { 0.0 }),
        ],
    )
}

fn approach_spec() -> DetectorSpec {
    spec_of("cooling_tower_approach_drift").unwrap()
}

fn fan_spec() -> DetectorSpec {
    spec_of("cooling_tower_fan_effort_drift").unwrap()
}

fn base() -> Frame {
    tower(400, 0, 0.0, 0.0, 0.0)
}

fn run(s: &DetectorSpec, cur: &Frame, p: &Params) -> Finding {
    one(judge(s, &base(), cur, p))
}

#[test]
fn a_clean_tower_holds_its_baseline_and_a_fouled_one_drifts_up() {
    let p = Params::default();
    let a = run(&approach_spec(), &tower(200, 400, 0.0, 0.0, 0.0), &p);
    assert_eq!(a.severity, Severity::Ok, "{}", a.summary);
    assert!(a.summary.contains("holds near its baseline at matched heat rejected"), "{}", a.summary);
    assert!(a.metrics["tower_approach_drift_f"].abs() < 0.1, "{:?}", a.metrics);
    let f = run(&fan_spec(), &tower(200, 400, 0.0, 0.0, 0.0), &p);
    assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
    assert!(f.summary.contains("matched heat rejected and wet bulb"), "{}", f.summary);
    // the approach widened 2 °F: a warning (1.5 °F floor); 3.5 °F a fault (3 °F floor)
    let w = run(&approach_spec(), &tower(200, 400, 2.0, 0.0, 0.0), &p);
    assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
    assert!(close(w.metrics["tower_approach_drift_f"], 2.0, 0.05), "{:?}", w.metrics);
    assert!(w.summary.contains("2.0 °F") && w.summary.contains("rejects heat less well"), "{}", w.summary);
    let f3 = run(&approach_spec(), &tower(200, 400, 3.5, 0.0, 0.0), &p);
    assert_eq!(f3.severity, Severity::Fault);
    assert_eq!(f3.metrics["tower_approach_sustained_alarm"], 1.0);
    assert!(f3.flagged.len() > 150 && f3.judged == 200, "{} of {}", f3.flagged.len(), f3.judged);
    // a controlled tower that fouls keeps its approach and spends fan: 6 points warn, 12 fault
    let w = run(&fan_spec(), &tower(200, 400, 0.0, 6.0, 0.0), &p);
    assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
    assert!(close(w.metrics["fan_effort_drift_pct"], 6.0, 0.2), "{:?}", w.metrics);
    let f12 = run(&fan_spec(), &tower(200, 400, 0.0, 12.0, 0.0), &p);
    assert_eq!(f12.severity, Severity::Fault, "{}", f12.summary);
    assert!(f12.summary.contains("working harder for the same heat"), "{}", f12.summary);
    assert_eq!(f12.judged, 180, "the fan's off hours are not judged");
    assert!(f12.metrics["high_fan_share_current"] >= f12.metrics["high_fan_share_baseline"]);
    assert_eq!(f12.metrics["attribution_sensor"], 0.0);
    assert!(f12.caveats.iter().any(|c| c.contains("no condenser-entering water temperature")), "{:?}", f12.caveats);
    // one-sided: a narrower approach or an easier fan is not a fault
    let better = run(&approach_spec(), &tower(200, 400, -3.5, 0.0, 0.0), &p);
    assert_eq!(better.severity, Severity::Ok);
    assert!(better.summary.contains("only a rise is judged a fault"), "{}", better.summary);
    assert!(better.flagged.is_empty());
    assert_eq!(run(&fan_spec(), &tower(200, 400, 0.0, -12.0, 0.0), &p).severity, Severity::Ok);
}

#[test]
fn hotter_weather_is_matched_on_the_wet_bulb_not_read_as_effort() {
    // five degrees wetter: the fan and the leaving water follow the weather as a clean tower's do
    let f = run(&fan_spec(), &tower(200, 400, 0.0, 0.0, 5.0), &Params::default());
    assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
    assert!(f.metrics["fan_effort_drift_pct"].abs() < 0.5, "{:?}", f.metrics);
    assert!(f.caveats.iter().any(|c| c.contains("wet bulb outside the baseline's range")), "{:?}", f.caveats);
    let b = fit(&fan_spec(), &base(), &Params::default()).unwrap();
    let k = b.parts[0].fit.as_ref().unwrap().covariate.as_ref().unwrap();
    assert!(k.role == "wetbulb_temp" && close(k.slope, 1.0, 0.05), "{k:?}");
    // a baseline whose wet bulb barely moved is matched on the load alone, and says so
    let mut steady = base();
    steady.cols.insert("wetbulb_temp".into(), vec![70.0; 400]);
    let b = fit(&fan_spec(), &steady, &Params::default()).unwrap();
    assert!(b.parts[0].fit.as_ref().unwrap().covariate.is_none());
    let mut cur = tower(200, 400, 0.0, 0.0, 0.0);
    cur.cols.insert("wetbulb_temp".into(), vec![70.0; 200]);
    let f = one(evaluate(&fan_spec(), &b, &cur, &Params::default()));
    assert!(f.caveats.iter().any(|c| c.contains("matched on the heat rejected alone")), "{:?}", f.caveats);
    assert!(f.summary.contains("at matched heat rejected ("), "{}", f.summary);
}

#[test]
fn the_floors_are_inclusive_and_both_are_needed() {
    for (s, shift, name) in [(approach_spec(), 2.0, "warn_f"), (fan_spec(), 6.0, "warn_pct")] {
        let cur = |p: &Params| {
            let (a, e) = if s.id == "cooling_tower_approach_drift" { (shift, 0.0) } else { (0.0, shift) };
            run(&s, &tower(200, 400, a, e, 0.0), p)
        };
        let d = cur(&Params::default());
        let key = if name == "warn_f" { "tower_approach_drift_f" } else { "fan_effort_drift_pct" };
        let drift = d.metrics[key];
        assert_eq!(cur(&params(&[(name, drift)])).severity, Severity::Warn, "{} at {drift}", s.id);
        assert_eq!(cur(&params(&[(name, drift + 0.001)])).severity, Severity::Ok, "{} above {drift}", s.id);
        // the sigma floor too, exactly at the drift's sigma and just past it
        let sig = d.metrics[&key.replace("_f", "_sigma").replace("_pct", "_sigma")];
        let at = |w: f64| cur(&params(&[("warn_sigma", w), ("fault_sigma", sig + 10.0)])).severity;
        assert_eq!((at(sig), at(sig + 0.01)), (Severity::Warn, Severity::Ok), "{} at {sig}σ", s.id);
    }
}

#[test]
fn a_sensor_that_walked_away_is_the_sensors_not_the_fills() {
    // the chillers' entering water reads 0.2 °F under the tower's leaving water in the baseline
    let with_entering = |f: Frame, offset: f64| {
        let mut f = f;
        let cws = f.cols["cw_supply_temp"].clone();
        f.cols.insert("cond_entering_water_temp".into(), cws.iter().map(|v| v - offset).collect());
        f
    };
    let b = fit(&fan_spec(), &with_entering(base(), 0.2), &Params::default()).unwrap();
    assert!(close(b.parts[0].stats["sensor_offset_f"], 0.2, 1e-9));
    // the tower's sensor now reads 2 °F warm against it: the fans chase a biased reading
    let cur = with_entering(tower(200, 400, 0.0, 12.0, 0.0), 2.2);
    let f = one(evaluate(&fan_spec(), &b, &cur, &Params::default()));
    assert_eq!((f.severity, f.metrics["attribution_sensor"]), (Severity::Info, 1.0), "{}", f.summary);
    assert!(close(f.metrics["sensor_offset_shift_f"], 2.0, 1e-9));
    assert!(f.summary.contains("a sensor bias, not fouling"), "{}", f.summary);
    assert!(f.judged > 0, "the rise was judged, then attributed");
    // under sensor_shift_f it stays the tower's
    let cur = with_entering(tower(200, 400, 0.0, 12.0, 0.0), 0.9);
    let f = one(evaluate(&fan_spec(), &b, &cur, &Params::default()));
    assert_eq!((f.severity, f.metrics["attribution_sensor"]), (Severity::Fault, 0.0));
    assert!(!f.caveats.iter().any(|c| c.contains("no condenser-entering")), "{:?}", f.caveats);
    // with the tower bypass open the two sensors read different water: those hours are left out
    let mut cur = with_entering(tower(200, 400, 0.0, 12.0, 0.0), 2.2);
    cur.cols.insert("cw_bypass_valve".into(), vec![50.0; 200]);
    let f = one(evaluate(&fan_spec(), &b, &cur, &Params::default()));
    assert_eq!(f.severity, Severity::Fault);
    assert!(!f.metrics.contains_key("sensor_offset_shift_f"));
}

#[test]
fn the_load_is_read_the_strongest_way_and_judged_the_baselines_way() {
    let p = Params::default();
    // no condenser flow: the tower's range, with a warning that it assumes a constant flow
    let no_flow = |f: Frame| {
        let mut f = f;
        f.cols.remove("cw_flow");
        f
    };
    let b = fit(&fan_spec(), &no_flow(base()), &p).unwrap();
    assert_eq!((b.parts[0].basis.as_deref(), b.parts[0].min_load), (Some("cw_range"), 0.5));
    let f = one(evaluate(&fan_spec(), &b, &no_flow(tower(200, 400, 0.0, 12.0, 0.0)), &p));
    assert_eq!((f.severity, f.metrics["fan_effort_load_is_range"]), (Severity::Fault, 1.0));
    assert!(f.caveats.iter().any(|c| c.contains("assumes a constant condenser flow")), "{:?}", f.caveats);
    // a window that has the flow is still judged on the range its baseline was fitted on
    assert_eq!(one(evaluate(&fan_spec(), &b, &tower(200, 400, 0.0, 0.0, 0.0), &p)).severity, Severity::Ok);
    // a baseline on the heat rejected cannot judge a window without the flow
    let b = fit(&fan_spec(), &base(), &p).unwrap();
    assert_eq!(b.parts[0].basis.as_deref(), Some("cw_heat_rejection"));
    let f = one(evaluate(&fan_spec(), &b, &no_flow(tower(200, 400, 0.0, 0.0, 0.0)), &p));
    assert_eq!(f.severity, Severity::Info);
    assert!(f.summary.contains("fitted on the heat rejected (tons)") && f.summary.contains("cw_flow"), "{}", f.summary);
    // the approach prefers the chilled-water tons when the tower carries its chiller's points
    let mut chw = base();
    chw.cols.insert("chw_flow".into(), vec![1000.0; 400]);
    chw.cols.insert("chw_supply_temp".into(), vec![44.0; 400]);
    chw.cols.insert("chw_return_temp".into(), (0..400).map(|i| 44.0 + 0.8 * range(i)).collect());
    let b = fit(&approach_spec(), &chw, &p).unwrap();
    assert_eq!(b.parts[0].basis.as_deref(), Some("chw_tons"));
    assert_eq!(fit(&fan_spec(), &chw, &p).unwrap().parts[0].basis.as_deref(), Some("cw_heat_rejection"));
    let f = one(evaluate(&approach_spec(), &b, &chw, &p));
    assert!(f.summary.contains("at matched load"), "{}", f.summary);
    // explicit gates win
    let b = fit(&approach_spec(), &base(), &params(&[("min_tons", 300.0), ("min_tons_span", 50.0)])).unwrap();
    assert_eq!((b.parts[0].min_load, b.parts[0].gate_source.as_str()), (300.0, "explicit"));
    assert!(b.parts[0].fit.as_ref().unwrap().n < 300);
}

#[test]
fn a_derived_wet_bulb_is_used_and_said() {
    let derived = |f: Frame| {
        let mut f = f;
        let wb = f.cols.remove("wetbulb_temp").unwrap();
        // air at 100 % humidity: its wet bulb is its dry bulb
        f.cols.insert("oat".into(), wb);
        f.cols.insert("outdoor_rh".into(), vec![100.0; f.len()]);
        f
    };
    let f =
        one(judge(&approach_spec(), &derived(base()), &derived(tower(200, 400, 2.0, 0.0, 0.0)), &Params::default()));
    assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
    assert!(close(f.metrics["tower_approach_drift_f"], 2.0, 0.1), "{:?}", f.metrics);
    assert!(f.caveats.iter().any(|c| c.contains("derived from outdoor air and humidity")), "{:?}", f.caveats);
}

#[test]
fn missing_inputs_skip_and_a_window_that_cannot_fit_declines() {
    let p = Params::default();
    let without = |roles: &[&str]| {
        let mut f = base();
        for r in roles {
            f.cols.remove(*r);
        }
        f
    };
    let missing = |s: &DetectorSpec, roles: &[&str]| match fit(s, &without(roles), &p) {
        Err(FitError::Missing(m)) => m,
        o => panic!("{o:?}"),
    };
    assert_eq!(missing(&fan_spec(), &["tower_fan_speed"]), ["tower_fan_speed"]);
    assert_eq!(missing(&approach_spec(), &["cw_supply_temp"]), ["cw_supply_temp"]);
    assert_eq!(missing(&approach_spec(), &["wetbulb_temp"]), ["wetbulb_temp, or oat and outdoor_rh"]);
    assert_eq!(missing(&fan_spec(), &["cw_return_temp"]), ["cw_return_temp or chw_flow"]);
    let mut f = without(&["cw_return_temp"]);
    f.cols.insert("chw_flow".into(), vec![900.0; 400]);
    assert!(matches!(fit(&fan_spec(), &f, &p), Err(FitError::Missing(m)) if m[0] == NO_LOAD));
    // the current window lacking an input skips
    let b = fit(&fan_spec(), &base(), &p).unwrap();
    let mut cur = tower(200, 400, 0.0, 0.0, 0.0);
    cur.cols.remove("tower_fan_speed");
    assert_eq!(evaluate(&fan_spec(), &b, &cur, &p), Outcome::Skipped { missing: vec!["tower_fan_speed".into()] });
    // a baseline matched on the wet bulb cannot judge a window without one
    let mut cur = tower(200, 400, 0.0, 0.0, 0.0);
    cur.cols.remove("wetbulb_temp");
    assert!(one(evaluate(&fan_spec(), &b, &cur, &p)).summary.contains("matched on the wet bulb"));
    // the fan never ran in the baseline: no fit, and why
    let mut off = base();
    off.cols.insert("tower_fan_speed".into(), vec![3.0; 400]);
    match fit(&fan_spec(), &off, &p) {
        Err(FitError::Declined(why)) => assert!(why.contains("no fan-running samples"), "{why}"),
        o => panic!("{o:?}"),
    }
    // every load under the gate
    match fit(&approach_spec(), &base(), &params(&[("min_tons", 1000.0), ("min_tons_span", 10.0)])) {
        Err(FitError::Declined(why)) => assert!(why.contains("at or above 1000"), "{why}"),
        o => panic!("{o:?}"),
    }
    // too few fan-running samples in the current window
    let f = one(evaluate(&fan_spec(), &b, &tower(25, 400, 0.0, 0.0, 0.0), &p));
    assert!(f.severity == Severity::Info && f.summary.contains("need 30"), "{}", f.summary);
}

#[test]
fn degenerate_frames_do_not_panic() {
    let p = Params::default();
    for s in [approach_spec(), fan_spec()] {
        assert!(matches!(fit(&s, &Frame::default(), &p), Err(FitError::Missing(_))), "{}", s.id);
        assert!(matches!(fit(&s, &tower(1, 0, 0.0, 0.0, 0.0), &p), Err(FitError::Declined(_))), "{}", s.id);
        let mut nan = base();
        for v in nan.cols.values_mut() {
            v.iter_mut().for_each(|x| *x = f64::NAN);
        }
        assert!(matches!(fit(&s, &nan, &p), Err(FitError::Missing(_))), "{}", s.id);
        // constant signals: a flat level with no scatter, judged on its unit floor alone
        let flat = frame(
            100,
            0,
            &[
                ("cw_supply_temp", &|_| 80.0),
                ("cw_return_temp", &|_| 88.0),
                ("cw_flow", &|_| 1200.0),
                ("wetbulb_temp", &|_| 72.0),
                ("tower_fan_speed", &|_| 60.0),
            ],
        );
        let b = fit(&s, &flat, &p).unwrap();
        assert_eq!(b.parts[0].fit.as_ref().unwrap().model, loadfit::Model::Level);
        let f = one(evaluate(&s, &b, &flat, &p));
        assert_eq!(f.severity, Severity::Ok, "{}: {}", s.id, f.summary);
        assert!(f.caveats.iter().any(|c| c.contains("no scatter")), "{:?}", f.caveats);
        let _ = judge(&s, &base(), &Frame::default(), &p);
        let _ = judge(&s, &base(), &tower(1, 400, 0.0, 0.0, 0.0), &p);
    }
}

#[test]
fn gaps_uneven_sampling_disorder_and_duplicates() {
    let p = Params::default();
    let b = fit(&fan_spec(), &base(), &p).unwrap();
    // a three-day gap and then quarter-hour samples: the same drift, every sample judged
    let cur = tower(200, 400, 0.0, 12.0, 0.0);
    let fine = {
        let ts: Vec<i64> =
            (0..200i64).map(|i| if i < 100 { T0 + (400 + i) * H } else { T0 + (572 + i) * H / 4 }).collect();
        let cols: Vec<(&str, Vec<f64>)> = cur.cols.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        Frame::from_rows(&ts, &cols)
    };
    let a = one(evaluate(&fan_spec(), &b, &cur, &p));
    let g = one(evaluate(&fan_spec(), &b, &fine, &p));
    assert_eq!((a.severity, a.judged), (g.severity, g.judged));
    assert!(close(a.metrics["fan_effort_drift_pct"], g.metrics["fan_effort_drift_pct"], 1e-9));
    // rows out of order and repeated: the same finding
    for s in [approach_spec(), fan_spec()] {
        let cur = tower(200, 400, 2.5, 7.0, 0.0);
        assert_eq!(
            judge(&s, &shuffled_with_duplicates(&base()), &shuffled_with_duplicates(&cur), &p),
            judge(&s, &base(), &cur, &p),
            "{}",
            s.id
        );
    }
}

#[test]
fn a_baseline_round_trips_through_json_and_judges_the_same() {
    let p = Params::default();
    for s in [approach_spec(), fan_spec()] {
        let b = fit(&s, &base(), &p).unwrap();
        let json = serde_json::to_string(&b).unwrap();
        let back: Baseline = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b, "{json}");
        let cur = tower(200, 400, 2.5, 7.0, 0.0);
        assert_eq!(evaluate(&s, &back, &cur, &p), evaluate(&s, &b, &cur, &p));
    }
    let json = serde_json::to_string(&fit(&fan_spec(), &base(), &p).unwrap()).unwrap();
    for k in ["\"covariate\":{\"role\":\"wetbulb_temp\"", "\"basis\":\"cw_heat_rejection\"", "\"high_fan_share\":"] {
        assert!(json.contains(k), "{k} in {json}");
    }
}

#[test]
fn the_roll_up_names_the_tower_or_the_sensor() {
    let fam = family("tower").unwrap();
    let p = Params::default();
    let fouled = run(&fan_spec(), &tower(200, 400, 0.0, 12.0, 0.0), &p);
    let steady = run(&approach_spec(), &tower(200, 400, 0.0, 12.0, 0.0), &p);
    let d = (fam.diagnose)(
        fam,
        "CT-1",
        &[("cooling_tower_approach_drift", &steady), ("cooling_tower_fan_effort_drift", &fouled)],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "tower"));
    assert!(d.summary.contains("working harder"), "{}", d.summary);
    // the fan's rise read as the leaving-water sensor's: the sensor, at info
    let mut sensor = fouled.clone();
    sensor.severity = Severity::Info;
    sensor.metrics.insert("attribution_sensor".into(), 1.0);
    sensor.summary = "a sensor bias, not fouling".into();
    let d = (fam.diagnose)(
        fam,
        "CT-1",
        &[("cooling_tower_approach_drift", &steady), ("cooling_tower_fan_effort_drift", &sensor)],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Info, "sensor"));
    assert!(d.summary.contains("sensor (cooling_tower_fan_effort_drift)"), "{}", d.summary);
    // beside a widened approach the tower is named and the sensor is a caveat
    let widened = run(&approach_spec(), &tower(200, 400, 3.5, 0.0, 0.0), &p);
    let d = (fam.diagnose)(
        fam,
        "CT-1",
        &[("cooling_tower_approach_drift", &widened), ("cooling_tower_fan_effort_drift", &sensor)],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "tower"));
    assert!(d.caveats.iter().any(|c| c.contains("reads its own shift as a sensor's")), "{:?}", d.caveats);
    let d = (fam.diagnose)(fam, "CT-1", &[("cooling_tower_approach_drift", &steady)]);
    assert_eq!(d.locus, "steady");
}

#[test]
fn the_references_figures_on_the_same_towers() {
    // the reference's CoolingTowerApproachDrift and CoolingTowerFanEffortDrift on these frames
    // (a fresh baseline store, the baseline window as its fault-free period):
    // approach +2: warn, +2.0012 °F, 23.0286σ; +3.5: fault, +3.5012 °F, 40.2898σ; fan +6: warn,
    // +5.99 points, 10.2709σ on 180 samples; +12: fault, +11.99, 20.5607σ; five degrees wetter
    // with no fouling: ok, -0.01 points
    let p = Params::default();
    let check = |s: &DetectorSpec, cur: Frame, sev: Severity, key: &str, drift: f64, sigma: f64| {
        let f = run(s, &cur, &p);
        let m = &f.metrics;
        assert_eq!(f.severity, sev, "{}", f.summary);
        let sk = key.replace("_f", "_sigma").replace("_pct", "_sigma");
        assert!(close(m[key], drift, 0.006) && close(m[&sk], sigma, 0.01 * sigma.abs().max(1.0)), "{m:?}");
    };
    check(&approach_spec(), tower(200, 400, 2.0, 0.0, 0.0), Severity::Warn, "tower_approach_drift_f", 2.0012, 23.0286);
    check(&approach_spec(), tower(200, 400, 3.5, 0.0, 0.0), Severity::Fault, "tower_approach_drift_f", 3.5012, 40.2898);
    check(&fan_spec(), tower(200, 400, 0.0, 6.0, 0.0), Severity::Warn, "fan_effort_drift_pct", 5.99, 10.2709);
    check(&fan_spec(), tower(200, 400, 0.0, 12.0, 0.0), Severity::Fault, "fan_effort_drift_pct", 11.99, 20.5607);
    check(&fan_spec(), tower(200, 400, 0.0, 0.0, 5.0), Severity::Ok, "fan_effort_drift_pct", -0.01, -0.0117);
    assert_eq!(run(&fan_spec(), &tower(200, 400, 0.0, 6.0, 0.0), &p).metrics["fan_effort_n_current"], 180.0);
}
