use super::super::families::family;
use super::super::tests::{close, frame, noise, one, params};
use super::super::{evaluate, fit, judge, spec as detector, Baseline, FitError};
use super::*;

// The windows are built the same way for camber-toolkit 0.110.0's VavAirflowDrift and
// VavReheatValveDrift (analyze_periods on a fresh in-memory store, hourly from 2024-01-01), whose
// figures the `reference_*` tests quote; they agree to about 1e-3.

fn sp(i: usize) -> f64 {
    200.0 + 800.0 * ((i * 23) % 79) as f64 / 79.0
}

fn vav(n: usize, start: usize, shift: f64, static_shift: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (DAMPER, &|i| 20.0 + 0.06 * sp(i) + shift + 1.5 * noise(i)),
            (AIRFLOW_SP, &sp),
            (STATIC, &|i| 1.0 + static_shift + 0.02 * noise(i * 3)),
        ],
    )
}

fn vfl(i: usize) -> f64 {
    300.0 + 500.0 * ((i * 19) % 73) as f64 / 73.0
}
fn vdt(i: usize) -> f64 {
    5.0 + 20.0 * ((i * 41) % 67) as f64 / 67.0
}

fn reheat(n: usize, start: usize, shift: f64, hw: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (VALVE, &|i| 5.0 + 0.004 * vfl(i) * vdt(i) + shift + 2.0 * noise(i)),
            (AIRFLOW, &vfl),
            (PRIMARY, &|_| 55.0),
            (DISCHARGE, &|i| 55.0 + vdt(i)),
            (HW_SUPPLY, &|_| hw),
        ],
    )
}

fn airflow_run(cur: &Frame, p: &Params) -> Finding {
    one(judge(&detector("vav_airflow_drift").unwrap(), &vav(300, 0, 0.0, 0.0), cur, p))
}

fn reheat_run(cur: &Frame, p: &Params) -> Finding {
    one(judge(&detector("vav_reheat_valve_drift").unwrap(), &reheat(300, 0, 0.0, 160.0), cur, p))
}

#[test]
fn reference_vav_damper_creep_and_upstream_starvation() {
    // the reference: ok (0.011 %, sigma 0.4344 %, 150 samples, median command 600 cfm), warn at
    // +10 (10.011, 23.0455σ, slope 0.0347 %/month), fault at +20 (46.0658σ); +10 with the duct
    // static 0.2 inH2O lower: warn, vav_duct_static_shift_inwc -0.2, starvation suspected
    let p = Params::default();
    let ok = airflow_run(&vav(150, 300, 0.0, 0.0), &p);
    let m = &ok.metrics;
    assert_eq!(ok.severity, Severity::Ok);
    assert!(
        close(m["vav_airflow_drift_pct"], 0.011, 1e-3) && close(m["vav_airflow_baseline_sigma_pct"], 0.4344, 1e-4),
        "{m:?}"
    );
    assert_eq!(
        (
            m["vav_airflow_n_current"],
            m["vav_command_median_cfm"],
            m["vav_airflow_inactive_excluded_pct"],
            m["vav_upstream_starvation_suspected"]
        ),
        (150.0, 600.0, 0.0, 0.0)
    );
    let w = airflow_run(&vav(150, 300, 10.0, 0.0), &p);
    assert_eq!(w.severity, Severity::Warn);
    assert!(
        close(w.metrics["vav_airflow_drift_pct"], 10.011, 1e-3)
            && close(w.metrics["vav_airflow_drift_sigma"], 23.0455, 0.03)
    );
    assert!(close(w.metrics["vav_airflow_slope_pct_per_month"], 0.0347, 1e-3));
    assert!(
        w.summary.contains("10 %") && w.summary.contains("matched commanded airflow") && w.summary.contains("linkage"),
        "{}",
        w.summary
    );
    let f = airflow_run(&vav(150, 300, 20.0, 0.0), &p);
    assert!(f.severity == Severity::Fault && close(f.metrics["vav_airflow_drift_sigma"], 46.0658, 0.05));
    assert_eq!(f.flagged.len(), 150);
    let s = airflow_run(&vav(150, 300, 10.0, -0.2), &p);
    assert_eq!(
        (s.severity, s.metrics["vav_duct_static_shift_inwc"], s.metrics["vav_upstream_starvation_suspected"]),
        (Severity::Warn, -0.2, 1.0)
    );
    assert!(s.caveats.iter().any(|c| c.contains("starving the box")), "{:?}", s.caveats);
    // less damper for the same command is a gain, not a fault
    let gain = airflow_run(&vav(150, 300, -20.0, 0.0), &p);
    assert_eq!((gain.severity, gain.flagged.len()), (Severity::Ok, 0));
}

#[test]
fn reference_reheat_valve_at_matched_duty() {
    // the reference: ok (0.0142 %, sigma 0.5792 %, median ΔT 14.851 °F, median duty 7346.9
    // cfm·°F), warn at +10 (10.0142, 17.2898σ), fault at +20 (20.0235 on 149 samples); +10 with
    // the hot water 5 °F colder: warn, water_supply_shift_f -5.0; on the ΔT basis +10 is ok
    // (9.9766 %, 1.0816σ, sigma 9.2241 %: the unmodelled airflow swamps it)
    let p = Params::default();
    let ok = reheat_run(&reheat(150, 300, 0.0, 160.0), &p);
    let m = &ok.metrics;
    assert_eq!(ok.severity, Severity::Ok);
    assert!(
        close(m["vav_reheat_valve_drift_pct"], 0.0142, 1e-3)
            && close(m["vav_reheat_valve_baseline_sigma_pct"], 0.5792, 1e-4),
        "{m:?}"
    );
    assert_eq!((m["vav_reheat_deltat_median_f"], m["vav_reheat_duty_median_cfmf"]), (14.851, 7346.9));
    assert_eq!(
        (m["vav_reheat_valve_gated_excluded_pct"], m["water_supply_shift_f"], m["vav_reheat_water_confounded"]),
        (0.0, 0.0, 0.0)
    );
    let w = reheat_run(&reheat(150, 300, 10.0, 160.0), &p);
    assert!(w.severity == Severity::Warn && close(w.metrics["vav_reheat_valve_drift_sigma"], 17.2898, 0.03));
    assert!(w.summary.contains("matched reheat duty") && w.summary.contains("fouling"), "{}", w.summary);
    let f = reheat_run(&reheat(150, 300, 20.0, 160.0), &p);
    assert_eq!((f.severity, f.metrics["vav_reheat_valve_n_current"]), (Severity::Fault, 149.0));
    assert!(close(f.metrics["vav_reheat_valve_drift_pct"], 20.0235, 1e-3));
    let cold = reheat_run(&reheat(150, 300, 10.0, 155.0), &p);
    assert_eq!(
        (cold.severity, cold.metrics["water_supply_shift_f"], cold.metrics["vav_reheat_water_confounded"]),
        (Severity::Warn, -5.0, 1.0)
    );
    assert!(cold.caveats.iter().any(|c| c.contains("-5.0 °F (colder)")), "{:?}", cold.caveats);
    let dt = params(&[]).with_choice("load_basis", "deltat");
    let d = reheat_run(&reheat(150, 300, 10.0, 160.0), &dt);
    assert_eq!(d.severity, Severity::Ok);
    assert!(
        close(d.metrics["vav_reheat_valve_drift_pct"], 9.9766, 1e-3)
            && close(d.metrics["vav_reheat_valve_baseline_sigma_pct"], 9.2241, 1e-3),
        "{:?}",
        d.metrics
    );
    assert!(!d.metrics.contains_key("vav_reheat_duty_median_cfmf"));
    assert!(d.caveats.iter().any(|c| c.contains("reheat rise alone")));
}

trait WithChoice {
    fn with_choice(self, name: &str, v: &str) -> Params;
}

impl WithChoice for Params {
    fn with_choice(mut self, name: &str, v: &str) -> Params {
        self.values.insert(name.into(), ParamValue::Choice(v.into()));
        self
    }
}

#[test]
fn the_floors_are_inclusive() {
    let w = airflow_run(&vav(150, 300, 10.0, 0.0), &Params::default());
    let drift = w.metrics["vav_airflow_drift_pct"];
    assert_eq!(airflow_run(&vav(150, 300, 10.0, 0.0), &params(&[("warn_pct", drift)])).severity, Severity::Warn);
    assert_eq!(airflow_run(&vav(150, 300, 10.0, 0.0), &params(&[("warn_pct", drift + 0.001)])).severity, Severity::Ok);
    assert_eq!(airflow_run(&vav(150, 300, 10.0, 0.0), &params(&[("fault_pct", drift)])).severity, Severity::Fault);
    let sig = w.metrics["vav_airflow_drift_sigma"];
    assert_eq!(
        airflow_run(&vav(150, 300, 10.0, 0.0), &params(&[("fault_pct", drift), ("fault_sigma", sig + 0.01)])).severity,
        Severity::Warn
    );
}

#[test]
fn a_box_without_an_airflow_setpoint_is_read_on_its_measured_airflow() {
    let rename = |f: Frame| {
        let mut f = f;
        let v = f.cols.remove(AIRFLOW_SP).unwrap();
        f.cols.insert(AIRFLOW.into(), v);
        f
    };
    let s = detector("vav_airflow_drift").unwrap();
    let b = fit(&s, &rename(vav(300, 0, 0.0, 0.0)), &Params::default()).unwrap();
    assert_eq!(b.parts[0].basis.as_deref(), Some(AIRFLOW));
    let f = one(evaluate(&s, &b, &rename(vav(150, 300, 10.0, 0.0)), &Params::default()));
    assert_eq!(f.severity, Severity::Warn);
    assert!(
        f.summary.contains("matched airflow") && f.caveats.iter().any(|c| c.contains("measured airflow")),
        "{}",
        f.summary
    );
    // a baseline on the setpoint needs the setpoint in the current window
    let b = fit(&s, &vav(300, 0, 0.0, 0.0), &Params::default()).unwrap();
    assert_eq!(
        evaluate(&s, &b, &rename(vav(150, 300, 0.0, 0.0)), &Params::default()),
        Outcome::Skipped { missing: vec![AIRFLOW_SP.into()] }
    );
}

#[test]
fn missing_inputs_skip_and_declines_say_why() {
    let p = Params::default();
    let s = detector("vav_airflow_drift").unwrap();
    let mut c = vav(150, 300, 0.0, 0.0);
    c.cols.remove(AIRFLOW_SP);
    assert_eq!(fit(&s, &c, &p), Err(FitError::Missing(vec!["airflow_sp or airflow".into()])));
    let r = detector("vav_reheat_valve_drift").unwrap();
    let mut c = reheat(150, 300, 0.0, 160.0);
    c.cols.remove(AIRFLOW);
    assert_eq!(judge(&r, &reheat(300, 0, 0.0, 160.0), &c, &p), Outcome::Skipped { missing: vec![AIRFLOW.into()] });
    // the ΔT basis does without the airflow
    let dt = Params::default().with_choice("load_basis", "deltat");
    assert!(fit(&r, &c, &dt).is_ok());
    // too short a baseline, a box held at its minimum, a valve never open
    match fit(&s, &vav(20, 0, 0.0, 0.0), &p) {
        Err(FitError::Declined(why)) => assert!(why.contains("usable sample"), "{why}"),
        o => panic!("{o:?}"),
    }
    let mut min = vav(300, 0, 0.0, 0.0);
    min.cols.insert(AIRFLOW_SP.into(), vec![40.0; 300]);
    match fit(&s, &min, &p) {
        Err(FitError::Declined(why)) => {
            assert!(why.contains("no samples with the box at or above its airflow gate"), "{why}")
        }
        o => panic!("{o:?}"),
    }
    let mut shut = reheat(300, 0, 0.0, 160.0);
    shut.cols.insert(VALVE.into(), vec![0.0; 300]);
    let f = one(judge(&r, &shut, &reheat(150, 300, 0.0, 160.0), &p));
    assert_eq!((f.severity, f.judged), (Severity::Info, 0));
    assert!(f.summary.contains("no baseline: no samples with the box reheating"), "{}", f.summary);
}

#[test]
fn degenerate_frames_disorder_and_round_trips() {
    let p = Params::default();
    for (d, base, cur) in [
        ("vav_airflow_drift", vav(300, 0, 0.0, 0.0), vav(150, 300, 20.0, 0.0)),
        ("vav_reheat_valve_drift", reheat(300, 0, 0.0, 160.0), reheat(150, 300, 20.0, 160.0)),
    ] {
        let s = detector(d).unwrap();
        assert!(matches!(fit(&s, &Frame::default(), &p), Err(FitError::Missing(_))), "{d}");
        let _ = judge(&s, &base, &Frame::default(), &p);
        let one_row = Frame::from_rows(
            &base.ts[..1],
            &base.cols.iter().map(|(k, v)| (k.as_str(), v[..1].to_vec())).collect::<Vec<_>>(),
        );
        assert!(matches!(fit(&s, &one_row, &p), Err(FitError::Declined(_))), "{d}");
        let mut nan = cur.clone();
        nan.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = f64::NAN));
        assert!(matches!(judge(&s, &base, &nan, &p), Outcome::Skipped { .. }), "{d}");
        let mut flat = base.clone();
        flat.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = 100.0));
        assert!(matches!(fit(&s, &flat, &p), Err(FitError::Declined(_))), "{d}");
        // reversed, every row twice: the same finding; a gap and dropped hours: the same verdict
        let want = one(judge(&s, &base, &cur, &p));
        let keys: Vec<String> = cur.cols.keys().cloned().collect();
        let order: Vec<usize> = (0..cur.len()).rev().flat_map(|i| [i, i]).collect();
        let build = |rows: &[usize]| {
            let ts: Vec<i64> = rows.iter().map(|&i| cur.ts[i]).collect();
            let cols: Vec<(&str, Vec<f64>)> =
                keys.iter().map(|k| (k.as_str(), rows.iter().map(|&i| cur.cols[k][i]).collect())).collect();
            Frame::from_rows(&ts, &cols)
        };
        assert_eq!(one(judge(&s, &base, &build(&order), &p)), want, "{d}");
        let sparse: Vec<usize> = (0..cur.len()).filter(|i| !(30..70).contains(i) && i % 4 != 2).collect();
        let f = one(judge(&s, &base, &build(&sparse), &p));
        assert_eq!(f.severity, want.severity, "{d}");
        assert!(f.judged < want.judged * 3 / 4, "{d}");
        let b = fit(&s, &base, &p).unwrap();
        let back: Baseline = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b, "{d}");
        assert_eq!(one(evaluate(&s, &back, &cur, &p)), want, "{d}");
    }
}

fn judged(sev: Severity, metrics: &[(&str, f64)]) -> Finding {
    let mut f = Finding::of("x", "", sev, format!("{sev:?}"));
    f.judged = 100;
    f.metrics = metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    f
}

#[test]
fn the_roll_up_tells_the_box_from_the_plant_that_starves_it() {
    let fam = family("vav").unwrap();
    let creep = judged(Severity::Warn, &[("vav_upstream_starvation_suspected", 0.0)]);
    let starved = judged(Severity::Fault, &[("vav_upstream_starvation_suspected", 1.0)]);
    let coil = judged(Severity::Warn, &[("vav_reheat_water_confounded", 1.0)]);
    let ok = judged(Severity::Ok, &[]);
    let d = diagnose(fam, "VAV-1", &[("vav_airflow_drift", &creep), ("vav_reheat_valve_drift", &ok)]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Warn, "airflow"));
    assert!(d.causes[0].contains("losing authority"));
    let d = diagnose(fam, "VAV-1", &[("vav_airflow_drift", &starved)]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "upstream"));
    assert!(d.caveats.iter().any(|c| c.contains("before servicing the box")));
    // a starved box with a drifting coil: the coil is the box's, the static a caveat
    let d = diagnose(fam, "VAV-1", &[("vav_airflow_drift", &starved), ("vav_reheat_valve_drift", &coil)]);
    assert_eq!((d.locus.as_str(), d.loci.clone()), ("reheat", vec!["upstream".to_string(), "reheat".to_string()]));
    assert!(
        d.caveats.iter().any(|c| c.contains("two problems"))
            && d.caveats.iter().any(|c| c.contains("colder hot-water"))
    );
    let d = diagnose(fam, "VAV-1", &[("vav_airflow_drift", &creep), ("vav_reheat_valve_drift", &coil)]);
    assert_eq!(d.locus, "box_wide");
    assert!(
        d.summary.contains("(box wide)") && d.caveats.iter().any(|c| c.contains("common to the box")),
        "{}",
        d.summary
    );
    let d = diagnose(fam, "VAV-1", &[("vav_airflow_drift", &ok)]);
    assert_eq!(
        (d.severity, d.locus.as_str(), d.summary.as_str()),
        (Severity::Ok, "steady", "VAV-1: no vav drift on 1 check(s)")
    );
    // from the detectors themselves
    let real = airflow_run(&vav(150, 300, 10.0, -0.2), &Params::default());
    let d = (fam.diagnose)(fam, "VAV-1", &[("vav_airflow_drift", &real)]);
    assert_eq!(d.locus, "upstream");
}
