use super::super::families::family;
use super::super::tests::{close, frame, noise, one, params, H, T0};
use super::super::{evaluate, fit, judge, spec as spec_of, FitError};
use super::*;
use crate::engine::testing::{shuffled_with_duplicates, with};
use crate::engine::ParamValue;

/// The outdoor air (75-95 °F), the return air (72-78 °F) and its dew point (50-60 °F), and the
/// coil's split at absolute sample `i`.
fn oat(i: usize) -> f64 {
    75.0 + 20.0 * ((i * 31) % 89) as f64 / 89.0
}

fn rat(i: usize) -> f64 {
    72.0 + 6.0 * ((i * 17) % 61) as f64 / 61.0
}

fn dew(i: usize) -> f64 {
    50.0 + 10.0 * ((i * 23) % 67) as f64 / 67.0
}

fn split(i: usize) -> f64 {
    18.0 + 0.3 * (rat(i) - 75.0) - 0.2 * (dew(i) - 55.0) + 0.3 * noise(i + 11)
}

/// Offsets of a unit's readings from a healthy one's: subcooling, superheat, discharge
/// superheat, split.
#[derive(Clone, Copy, Default)]
struct Off {
    sc: f64,
    sh: f64,
    dsh: f64,
    split: f64,
}

/// A unit's window: hourly from `start`, its compressor off one hour in six. The same frames
/// as the reference check.
fn unit(n: usize, start: usize, o: Off) -> Frame {
    frame(
        n,
        start,
        &[
            ("oat", &oat),
            ("return_air_temp", &rat),
            ("supply_air_temp", &|i| rat(i) - split(i) - o.split),
            ("return_air_dewpoint_temp", &dew),
            ("compressor_status", &|i| if i.is_multiple_of(6) { 0.0 } else { 1.0 }),
            ("subcooling_temp", &|i| 10.0 + 0.1 * (oat(i) - 85.0) + 0.3 * (rat(i) - 75.0) + o.sc + 0.5 * noise(i)),
            ("superheat_temp", &|i| 10.0 + 0.05 * (oat(i) - 85.0) + o.sh + 0.5 * noise(i + 7)),
            (DSH, &|i| 40.0 + 0.5 * (oat(i) - 85.0) + 0.5 * (rat(i) - 75.0) + o.dsh + 2.0 * noise(i + 3)),
        ],
    )
}

fn charge() -> DetectorSpec {
    spec_of("dx_refrigerant_charge_drift").unwrap()
}

fn airflow() -> DetectorSpec {
    spec_of("dx_indoor_airflow_drift").unwrap()
}

fn dsh() -> DetectorSpec {
    spec_of("discharge_superheat_drift").unwrap()
}

fn base() -> Frame {
    unit(300, 0, Off::default())
}

fn run(s: &DetectorSpec, o: Off, p: &Params) -> Finding {
    one(judge(s, &base(), &unit(150, 300, o), p))
}

fn without(mut f: Frame, roles: &[&str]) -> Frame {
    for r in roles {
        f.cols.remove(*r);
    }
    f
}

#[test]
fn the_references_figures_on_the_same_units() {
    // the reference's DXRefrigerantCharge, DischargeSuperheatDrift and DXIndoorAirflow on these
    // frames, each with a fresh store and the baseline window as the fault-free period
    let p = Params::default();
    let check = |s: &DetectorSpec, o: Off, sev: Severity, key: &str, drift: f64, sigma: f64| {
        let f = run(s, o, &p);
        let m = &f.metrics;
        assert_eq!(f.severity, sev, "{}: {}", s.id, f.summary);
        let sk = key.replace("_drift_f", "_drift_sigma");
        assert!(close(m[key], drift, 0.01) && close(m[&sk], sigma, 0.02 * sigma.abs().max(1.0)), "{}: {m:?}", s.id);
        assert_eq!(f.judged, 125, "the compressor's off hours are not judged");
        f
    };
    let ok = check(&charge(), Off::default(), Severity::Ok, "subcooling_drift_f", 0.0058, 0.0402);
    assert!(close(ok.metrics["superheat_drift_f"], -0.0079, 0.01));
    let low = check(
        &charge(),
        Off { sc: -4.0, sh: 3.0, ..Off::default() },
        Severity::Warn,
        "subcooling_drift_f",
        -3.9942,
        -27.565,
    );
    assert_eq!((low.metrics["low_charge"], low.metrics["superheat_corroborates"]), (1.0, 1.0));
    assert!(low.summary.contains("a low charge or a leak"), "{}", low.summary);
    let f =
        check(&charge(), Off { sc: -6.0, ..Off::default() }, Severity::Fault, "subcooling_drift_f", -5.9942, -41.3676);
    assert_eq!(f.metrics["superheat_corroborates"], 0.0);
    let d = check(
        &dsh(),
        Off { dsh: 6.0, ..Off::default() },
        Severity::Warn,
        "discharge_superheat_drift_f",
        6.0353,
        10.386,
    );
    assert_eq!(d.metrics["discharge_superheat_sustained_alarm"], 1.0);
    assert!(d.summary.contains("fed too little or too-hot gas"), "{}", d.summary);
    let d = check(
        &dsh(),
        Off { dsh: -12.0, ..Off::default() },
        Severity::Fault,
        "discharge_superheat_drift_f",
        -11.9647,
        -20.5897,
    );
    assert!(d.summary.contains("liquid is reaching the compressor"), "{}", d.summary);
    let a =
        check(&airflow(), Off { split: 2.0, ..Off::default() }, Severity::Warn, "temp_split_drift_f", 1.9964, 22.9731);
    assert_eq!(a.metrics["airflow_low"], 1.0);
    assert!(a.summary.contains("matched return air and dew point"), "{}", a.summary);
    check(&airflow(), Off { split: 4.0, ..Off::default() }, Severity::Fault, "temp_split_drift_f", 3.9964, 45.9881);
    // a narrowed split with the subcooling down 4 °F: lost capacity, not more air (info)
    let c = check(
        &airflow(),
        Off { split: -2.5, sc: -4.0, ..Off::default() },
        Severity::Info,
        "temp_split_drift_f",
        -2.5036,
        -28.8106,
    );
    assert_eq!((c.metrics["capacity_low"], c.metrics["airflow_high"]), (1.0, 0.0));
    assert!(close(c.metrics["subcooling_drift_f"], -3.9942, 0.01));
    assert!(c.summary.contains("lost capacity"), "{}", c.summary);
    // no dew point in either window: matched on the outdoor air (the reference: warn, +1.931 °F,
    // 3.3127σ)
    let no_dew = |f: Frame| without(f, &["return_air_dewpoint_temp"]);
    let f = one(judge(&airflow(), &no_dew(base()), &no_dew(unit(150, 300, Off { split: 2.0, ..Off::default() })), &p));
    assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
    assert!(
        close(f.metrics["temp_split_drift_f"], 1.931, 0.01) && close(f.metrics["temp_split_drift_sigma"], 3.3127, 0.07),
        "{:?}",
        f.metrics
    );
    assert!(f.caveats.iter().any(|c| c.contains("no return-air dew point")), "{:?}", f.caveats);
}

#[test]
fn a_healthy_unit_holds_and_the_narrowing_without_a_charge_loss_is_air() {
    let p = Params::default();
    for s in [charge(), airflow(), dsh()] {
        let f = run(&s, Off::default(), &p);
        assert_eq!(f.severity, Severity::Ok, "{}: {}", s.id, f.summary);
        assert!(f.summary.contains("holds near its baseline"), "{}", f.summary);
        assert!(f.flagged.is_empty(), "{}", s.id);
    }
    let hi = run(&airflow(), Off { split: -2.5, ..Off::default() }, &p);
    assert_eq!((hi.severity, hi.metrics["airflow_high"], hi.metrics["capacity_low"]), (Severity::Warn, 1.0, 0.0));
    assert!(hi.summary.contains("more air crosses the coil"), "{}", hi.summary);
    // an overcharge reads the other way
    let over = run(&charge(), Off { sc: 6.0, ..Off::default() }, &p);
    assert_eq!((over.severity, over.metrics["low_charge"]), (Severity::Fault, 0.0));
    assert!(over.summary.contains("liquid backs up in the condenser"), "{}", over.summary);
}

/// A unit logged every minute from `start` minutes after T0, cycling 20 minutes on and 10 off,
/// each start pulling the supply air down over its first minutes (a third, then a sixth, then a
/// twelfth of the split missing); `shift` widens its steady split.
fn cycling(n: usize, start: usize, shift: f64) -> Frame {
    const MIN: i64 = 60_000_000_000;
    let on = |i: usize| i % 30 < 20;
    let lag = |i: usize| match i % 30 {
        0 => 2.0 / 3.0,
        1 => 1.0 / 3.0,
        2 => 1.0 / 6.0,
        3 => 1.0 / 12.0,
        _ => 0.0,
    };
    let sp = |i: usize| if on(i) { (split(i % 600) + shift) * (1.0 - lag(i)) } else { 0.0 };
    let ts: Vec<i64> = (start..start + n).map(|i| T0 + i as i64 * MIN).collect();
    let col = |f: &dyn Fn(usize) -> f64| (start..start + n).map(f).collect::<Vec<f64>>();
    let cols = vec![
        ("oat", col(&|i| oat(i % 600))),
        ("return_air_temp", col(&|i| rat(i % 600))),
        ("supply_air_temp", col(&|i| rat(i % 600) - sp(i))),
        ("return_air_dewpoint_temp", col(&|i| dew(i % 600))),
        ("compressor_status", col(&|i| if on(i) { 1.0 } else { 0.0 })),
    ];
    Frame::from_rows(&ts, &cols)
}

#[test]
fn a_starts_pull_down_is_not_judged_as_steady_cooling() {
    // on minute data a 2.5 °F wider split is judged on the settled samples; the pull-down after
    // each start would otherwise triple the baseline's scatter and hide it
    let p = Params::default();
    let f = one(judge(&airflow(), &cycling(3000, 0, 0.0), &cycling(1500, 3000, 2.5), &p));
    assert_eq!((f.severity, f.metrics["airflow_low"]), (Severity::Warn, 1.0), "{}", f.summary);
    let twin = one(judge(&airflow(), &cycling(3000, 0, 0.0), &cycling(1500, 3000, 0.0), &p));
    assert_eq!(twin.severity, Severity::Ok, "{}", twin.summary);
    // the settled samples only: the first five minutes after each start are left out
    let rows = steady_cooling(&cycling(60, 20, 0.0));
    assert_eq!(rows.iter().filter(|r| **r).count(), 2 * 15, "{rows:?}");
    // hourly data shows no start to leave out
    assert_eq!(steady_cooling(&unit(60, 0, Off::default())), dx::cooling(&unit(60, 0, Off::default())));
}

#[test]
fn the_floors_are_inclusive_and_both_are_needed() {
    for (s, o, key) in [
        (charge(), Off { sc: -4.0, ..Off::default() }, "subcooling_drift_f"),
        (airflow(), Off { split: 2.0, ..Off::default() }, "temp_split_drift_f"),
        (dsh(), Off { dsh: 6.0, ..Off::default() }, "discharge_superheat_drift_f"),
    ] {
        let d = run(&s, o, &Params::default());
        let (drift, sig) = (d.metrics[key].abs(), d.metrics[&key.replace("_drift_f", "_drift_sigma")].abs());
        let sev = |kv: &[(&str, f64)]| run(&s, o, &params(kv)).severity;
        assert_eq!(sev(&[("warn_f", drift), ("fault_f", 50.0)]), Severity::Warn, "{}", s.id);
        assert_eq!(sev(&[("warn_f", drift + 0.001), ("fault_f", 50.0)]), Severity::Ok, "{}", s.id);
        assert_eq!(sev(&[("warn_sigma", sig), ("fault_sigma", sig + 5.0)]), Severity::Warn, "{}", s.id);
        assert_eq!(sev(&[("warn_sigma", sig + 0.01), ("fault_sigma", sig + 5.0)]), Severity::Ok, "{}", s.id);
        assert_eq!(sev(&[("fault_f", drift)]), Severity::Fault, "{}", s.id);
    }
}

#[test]
fn a_fixed_orifice_unit_is_judged_on_its_superheat() {
    let p = with(&[("metric", ParamValue::Choice("superheat".into()))]);
    let f = run(&charge(), Off { sh: 4.0, ..Off::default() }, &p);
    assert_eq!((f.severity, f.metrics["low_charge"]), (Severity::Warn, 1.0), "{}", f.summary);
    assert!(f.metrics.contains_key("superheat_drift_f") && !f.metrics.contains_key("subcooling_drift_f"));
    assert!(f.summary.contains("suction superheat") && f.summary.contains("starved of refrigerant"), "{}", f.summary);
    // its superheat missing: skipped by name
    let b = fit(&charge(), &base(), &p).unwrap();
    let cur = without(unit(150, 300, Off::default()), &["superheat_temp"]);
    assert_eq!(evaluate(&charge(), &b, &cur, &p), Outcome::Skipped { missing: vec!["superheat_temp".into()] });
    // a subcooling baseline keeps the superheat's beside it, which judges a superheat window; a
    // superheat baseline has no subcooling to judge
    let sc = fit(&charge(), &base(), &Params::default()).unwrap();
    assert_eq!(one(evaluate(&charge(), &sc, &unit(150, 300, Off::default()), &p)).severity, Severity::Ok);
    assert!(one(evaluate(&charge(), &b, &unit(150, 300, Off::default()), &Params::default()))
        .summary
        .contains("no subcooling fit"));
}

#[test]
fn a_water_cooled_unit_is_matched_on_its_tons() {
    let water = |f: Frame| {
        let mut f = f;
        let n = f.len();
        let tons: Vec<f64> = (0..n).map(|i| 50.0 + (oat(i) - 75.0) * 5.0).collect();
        f.cols.insert("chw_flow".into(), vec![240.0; n]);
        f.cols.insert("chw_supply_temp".into(), vec![44.0; n]);
        f.cols.insert("chw_return_temp".into(), tons.iter().map(|t| 44.0 + t / 10.0).collect());
        f
    };
    let b = fit(&dsh(), &water(base()), &Params::default()).unwrap();
    assert_eq!((b.parts[0].basis.as_deref(), b.parts[0].gate_source.as_str()), (Some("chw_tons"), "size_relative"));
    let f = one(evaluate(&dsh(), &b, &water(unit(150, 300, Off { dsh: 12.0, ..Off::default() })), &Params::default()));
    assert_eq!((f.severity, f.metrics["water_cooled"]), (Severity::Fault, 1.0), "{}", f.summary);
    assert!(f.summary.contains("at matched load"), "{}", f.summary);
    // an air-cooled window cannot be judged on a tons baseline
    let f = one(evaluate(&dsh(), &b, &unit(150, 300, Off::default()), &Params::default()));
    assert!(f.severity == Severity::Info && f.summary.contains("matched on chw_tons"), "{}", f.summary);
}

#[test]
fn the_dew_point_baseline_falls_back_to_the_outdoor_air() {
    let p = Params::default();
    let b = fit(&airflow(), &base(), &p).unwrap();
    let names: Vec<&str> = b.parts.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(names, ["temp_split", "temp_split_by_oat", "subcooling"]);
    assert_eq!(b.parts[0].fit.as_ref().unwrap().covariate.as_ref().unwrap().role, DEW);
    // the current window has no dew point: judged on the outdoor-air twin
    let cur = without(unit(150, 300, Off { split: 4.0, ..Off::default() }), &["return_air_dewpoint_temp"]);
    let f = one(evaluate(&airflow(), &b, &cur, &p));
    assert!(f.severity >= Severity::Warn, "{}", f.summary);
    assert!(f.summary.contains("matched return and outdoor air"), "{}", f.summary);
    // the dew point from the return air's humidity serves as well
    let humid = |f: Frame| {
        let mut f = without(f, &["return_air_dewpoint_temp"]);
        let rh: Vec<f64> = (0..f.len()).map(|i| 60.0 + 10.0 * noise(i + 5)).collect();
        f.cols.insert("return_air_humidity".into(), rh);
        f
    };
    let f = one(judge(&airflow(), &humid(base()), &humid(unit(150, 300, Off { split: 4.0, ..Off::default() })), &p));
    assert_eq!(f.severity, Severity::Fault, "{}", f.summary);
    assert!(f.summary.contains("matched return air and dew point"), "{}", f.summary);
}

#[test]
fn missing_inputs_skip_and_a_unit_that_cannot_be_gated_declines() {
    let p = Params::default();
    let miss = |s: &DetectorSpec, f: Frame| match fit(s, &f, &p) {
        Err(FitError::Missing(m)) => m,
        o => panic!("{o:?}"),
    };
    assert_eq!(
        miss(&charge(), without(base(), &["subcooling_temp", "superheat_temp"])),
        ["subcooling_temp or superheat_temp"]
    );
    assert_eq!(miss(&charge(), without(base(), &["subcooling_temp"])), ["subcooling_temp"]);
    assert_eq!(miss(&dsh(), without(base(), &[DSH])), [DSH]);
    assert_eq!(miss(&dsh(), without(base(), &["oat"])), ["oat"]);
    assert_eq!(miss(&airflow(), without(base(), &["supply_air_temp"])), ["supply_air_temp"]);
    // no compressor status and no air pair: the off cycles cannot be told apart
    match fit(&dsh(), &without(base(), &["compressor_status", "supply_air_temp"]), &p) {
        Err(FitError::Declined(why)) => assert!(why.contains("map compressor_status"), "{why}"),
        o => panic!("{o:?}"),
    }
    let b = fit(&dsh(), &base(), &p).unwrap();
    let f = one(evaluate(
        &dsh(),
        &b,
        &without(unit(150, 300, Off::default()), &["compressor_status", "supply_air_temp"]),
        &p,
    ));
    assert!(f.severity == Severity::Info && f.summary.contains("map compressor_status"), "{}", f.summary);
    assert_eq!(
        evaluate(&dsh(), &b, &without(unit(150, 300, Off::default()), &["oat"]), &p),
        Outcome::Skipped { missing: vec!["oat".into()] }
    );
    // the compressor never ran in the fault-free period
    let mut off = base();
    off.cols.insert("compressor_status".into(), vec![0.0; 300]);
    assert!(matches!(fit(&dsh(), &off, &p), Err(FitError::Declined(w)) if w.contains("no cooling-mode samples")));
    // min_baseline_samples and min_samples are the detector's own
    assert!(
        matches!(fit(&dsh(), &base(), &params(&[("min_baseline_samples", 260.0)])), Err(FitError::Declined(w)) if w.contains("need 260"))
    );
    let f = one(evaluate(&dsh(), &b, &unit(150, 300, Off::default()), &params(&[("min_samples", 126.0)])));
    assert!(f.severity == Severity::Info && f.summary.contains("need 126"), "{}", f.summary);
    assert_eq!(
        one(evaluate(&dsh(), &b, &unit(150, 300, Off::default()), &params(&[("min_samples", 125.0)]))).judged,
        125
    );
}

#[test]
fn degenerate_frames_steady_weather_gaps_and_disorder() {
    let p = Params::default();
    for s in [charge(), airflow(), dsh()] {
        assert!(matches!(fit(&s, &Frame::default(), &p), Err(FitError::Missing(_))), "{}", s.id);
        assert!(matches!(fit(&s, &unit(1, 0, Off::default()), &p), Err(FitError::Declined(_))), "{}", s.id);
        let mut nan = base();
        nan.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = f64::NAN));
        assert!(matches!(fit(&s, &nan, &p), Err(FitError::Missing(_))), "{}", s.id);
        let _ = judge(&s, &base(), &Frame::default(), &p);
        let _ = judge(&s, &base(), &unit(1, 300, Off::default()), &p);
        // disordered and repeated rows
        let cur = unit(150, 300, Off { sc: -4.0, dsh: 6.0, split: 2.0, ..Off::default() });
        assert_eq!(
            judge(&s, &shuffled_with_duplicates(&base()), &shuffled_with_duplicates(&cur), &p),
            judge(&s, &base(), &cur, &p),
            "{}",
            s.id
        );
        // a baseline through JSON judges the same
        let b = fit(&s, &base(), &p).unwrap();
        let back: Baseline = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(evaluate(&s, &back, &cur, &p), evaluate(&s, &b, &cur, &p), "{}", s.id);
    }
    // steady weather: a flat level, judged only near the weather it saw
    let steady = |f: Frame| {
        let mut f = f;
        let n = f.len();
        f.cols.insert("oat".into(), vec![85.0; n]);
        f
    };
    let b = fit(&dsh(), &steady(base()), &p).unwrap();
    let fit0 = b.parts[0].fit.as_ref().unwrap();
    assert_eq!((fit0.model, fit0.load_band), (loadfit::Model::Level, 2.5));
    let f = one(evaluate(&dsh(), &b, &steady(unit(150, 300, Off { dsh: 12.0, ..Off::default() })), &p));
    assert_eq!(f.severity, Severity::Fault);
    assert!(f.caveats.iter().any(|c| c.contains("flat level")), "{:?}", f.caveats);
    // the weather moving 75-95 °F again: only the hours within 2.5 °F of 85 °F are judged
    let hot = one(evaluate(&dsh(), &b, &unit(150, 300, Off { dsh: 12.0, ..Off::default() }), &p));
    assert_eq!((hot.judged, hot.metrics["discharge_superheat_n_out_of_scope"]), (29, 96.0), "{}", hot.summary);
    // a gap, then quarter-hour samples: the same verdict and count
    let cur = unit(150, 300, Off { dsh: 12.0, ..Off::default() });
    let ts: Vec<i64> = (0..150i64).map(|i| if i < 75 { T0 + (300 + i) * H } else { T0 + (450 + i) * H / 4 }).collect();
    let cols: Vec<(&str, Vec<f64>)> = cur.cols.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let fine = Frame::from_rows(&ts, &cols);
    let (a, g) = (one(judge(&dsh(), &base(), &cur, &p)), one(judge(&dsh(), &base(), &fine, &p)));
    assert_eq!((a.severity, a.judged), (g.severity, g.judged));
    assert!(close(a.metrics["discharge_superheat_drift_f"], g.metrics["discharge_superheat_drift_f"], 1e-9));
}

#[test]
fn the_roll_up_names_the_circuit_the_air_or_the_compressor() {
    let fam = family("dx").unwrap();
    let p = Params::default();
    let low = run(&charge(), Off { sc: -6.0, dsh: 12.0, ..Off::default() }, &p);
    let hot = run(&dsh(), Off { sc: -6.0, dsh: 12.0, ..Off::default() }, &p);
    let air = run(&airflow(), Off { sc: -6.0, dsh: 12.0, ..Off::default() }, &p);
    let d = (fam.diagnose)(
        fam,
        "RTU-1",
        &[
            ("dx_refrigerant_charge_drift", &low),
            ("dx_indoor_airflow_drift", &air),
            ("discharge_superheat_drift", &hot),
        ],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "refrigerant_circuit"));
    let d = (fam.diagnose)(fam, "RTU-1", &[("discharge_superheat_drift", &hot)]);
    assert_eq!(d.locus, "compressor");
    let starved = run(&airflow(), Off { split: 4.0, ..Off::default() }, &p);
    let d = (fam.diagnose)(fam, "RTU-1", &[("dx_indoor_airflow_drift", &starved)]);
    assert_eq!(d.locus, "indoor_airflow");
    let capacity = run(&airflow(), Off { split: -2.5, sc: -4.0, ..Off::default() }, &p);
    let charge_low = run(&charge(), Off { split: -2.5, sc: -4.0, ..Off::default() }, &p);
    let d = (fam.diagnose)(
        fam,
        "RTU-1",
        &[("dx_refrigerant_charge_drift", &charge_low), ("dx_indoor_airflow_drift", &capacity)],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Warn, "refrigerant_charge"));
    assert!(d.caveats.iter().any(|c| c.contains("lost capacity")), "{:?}", d.caveats);
}
