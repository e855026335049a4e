use super::super::families::family;
use super::super::tests::{close, frame, noise, one, params, H, T0};
use super::super::{evaluate, fit, judge, spec as detector, Baseline, FitError};
use super::*;

// The windows below are built the same way for camber-toolkit 0.110.0's detector classes
// (analyze_periods on a fresh in-memory BaselineStore; hourly from 2024-01-01), whose figures the
// `reference_*` tests quote. The reference rounds its fit before scoring, so figures agree to
// about 1e-3; on the filter and the duct static, whose slopes per cfm are tiny, the reference's
// slope rounded to 6 decimals moves its drift by up to 0.005 inH2O, so those agree to that.

fn on(i: usize) -> f64 {
    if i.is_multiple_of(10) {
        0.0
    } else {
        1.0
    }
}

fn af(i: usize) -> f64 {
    if on(i) > 0.0 {
        2000.0 + 8000.0 * ((i * 37) % 89) as f64 / 89.0
    } else {
        0.0
    }
}

fn fan(n: usize, start: usize, shift: f64, static_shift: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (POWER, &|i| if on(i) > 0.0 { 1.0 + 0.0008 * af(i) + shift + 0.2 * noise(i) } else { 0.0 }),
            (AIRFLOW, &af),
            (STATUS, &on),
            (STATIC, &|i| 1.5 + static_shift + 0.05 * noise(i * 3)),
        ],
    )
}

fn filt(n: usize, start: usize, shift: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (FILTER_DP, &|i| if on(i) > 0.0 { 0.3 + 0.00005 * af(i) + shift + 0.04 * noise(i) } else { 0.0 }),
            (AIRFLOW, &af),
            (STATUS, &on),
        ],
    )
}

fn stat(n: usize, start: usize, shift: f64, sp: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (STATIC, &|i| if on(i) > 0.0 { 1.2 + 0.00002 * af(i) + shift + 0.1 * noise(i) } else { 0.0 }),
            (AIRFLOW, &af),
            (STATUS, &on),
            (STATIC_SP, &|_| sp),
        ],
    )
}

fn cmd(i: usize) -> f64 {
    10.0 + 80.0 * ((i * 29) % 83) as f64 / 83.0
}
fn oat(i: usize) -> f64 {
    30.0 + 60.0 * ((i * 13) % 71) as f64 / 71.0
}
fn rat(i: usize) -> f64 {
    72.0 + 0.5 * noise(i * 7)
}

fn econ(n: usize, start: usize, shift: f64) -> Frame {
    let oaf = move |i: usize| 10.0 + 0.8 * cmd(i) + shift + 2.0 * noise(i);
    frame(
        n,
        start,
        &[
            (OAT, &oat),
            (RAT, &rat),
            (MAT, &|i| rat(i) - oaf(i) / 100.0 * (rat(i) - oat(i))),
            (OA_DAMPER, &cmd),
            (STATUS, &on),
        ],
    )
}

fn dtc(i: usize) -> f64 {
    5.0 + 15.0 * ((i * 31) % 89) as f64 / 89.0
}
fn dth(i: usize) -> f64 {
    5.0 + 20.0 * ((i * 43) % 97) as f64 / 97.0
}
fn mat(i: usize) -> f64 {
    70.0 + 3.0 * noise(i * 5)
}
fn heating(i: usize) -> bool {
    i.is_multiple_of(3)
}

/// Cooling two hours in three and heating the third, the damper economizing every seventh hour.
fn coil(n: usize, start: usize, cshift: f64, hshift: f64) -> Frame {
    frame(
        n,
        start,
        &[
            (MAT, &mat),
            (SAT, &|i| if heating(i) { mat(i) + dth(i) } else { mat(i) - dtc(i) }),
            ("cool_valve", &|i| if heating(i) { 0.0 } else { 10.0 + 3.0 * dtc(i) + cshift + 2.0 * noise(i) }),
            ("heat_valve", &|i| if heating(i) { 8.0 + 2.5 * dth(i) + hshift + 2.0 * noise(i + 1) } else { 0.0 }),
            (OA_DAMPER, &|i| if i.is_multiple_of(7) { 60.0 } else { 20.0 }),
            (STATUS, &on),
            ("chw_supply_temp", &|_| 44.0),
            ("hw_supply_temp", &|_| 160.0),
        ],
    )
}

fn id(a: Air) -> &'static str {
    air_spec(a).id
}

fn run(d: &str, base: &Frame, cur: &Frame, p: &Params) -> Finding {
    one(judge(&detector(d).unwrap(), base, cur, p))
}

fn fan_run(shift: f64, p: &Params) -> Finding {
    run("fan_efficiency_drift", &fan(300, 0, 0.0, 0.0), &fan(150, 300, shift, 0.0), p)
}

#[test]
fn reference_fan_efficiency_on_the_same_frames() {
    // the reference: ok at no shift (0.008 kW, 0.1359σ); warn at +0.6 (0.608 kW, 10.3923σ,
    // baseline sigma 0.0585 kW, 135 samples, slope -0.0194 kW/month, 100 % outside 2σ, alarm);
    // fault at +1.2 (1.208 kW, 20.6487σ); ok at -1.5 (-1.492 kW: less power is not a fault)
    let p = Params::default();
    let ok = fan_run(0.0, &p);
    assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
    assert!(close(ok.metrics["fan_power_drift_kw"], 0.008, 1e-3) && ok.summary.contains("holds near its baseline"));
    let w = fan_run(0.6, &p);
    let m = &w.metrics;
    assert_eq!(w.severity, Severity::Warn, "{}", w.summary);
    assert!(close(m["fan_power_drift_kw"], 0.608, 1e-3) && close(m["fan_power_drift_sigma"], 10.3923, 0.02), "{m:?}");
    assert!(
        close(m["fan_power_baseline_sigma_kw"], 0.0585, 1e-4)
            && close(m["fan_power_slope_kw_per_month"], -0.0194, 1e-3)
    );
    assert_eq!(
        (
            m["fan_power_n_current"],
            m["fan_power_pct_outside_2sigma"],
            m["fan_power_sustained_alarm"],
            m["duct_static_shift"]
        ),
        (135.0, 100.0, 1.0, 0.0)
    );
    assert!(w.summary.contains("0.6 kW") && w.summary.contains("matched airflow") && w.summary.contains("belt"));
    let f = fan_run(1.2, &p);
    assert!(f.severity == Severity::Fault && close(f.metrics["fan_power_drift_sigma"], 20.6487, 0.04));
    assert!(f.flagged.len() == 135 && f.judged == 135);
    let down = fan_run(-1.5, &p);
    assert_eq!((down.severity, down.flagged.len()), (Severity::Ok, 0));
    assert!(close(down.metrics["fan_power_drift_kw"], -1.492, 1e-3));
    assert!(down.summary.contains("only a rise is judged"), "{}", down.summary);
    assert!(w.caveats.iter().any(|c| c.contains("screening-grade")) && w.metrics["thresholds_provisional"] == 1.0);
}

#[test]
fn a_raised_duct_static_is_a_caveat_on_a_fan_power_excess() {
    // the reference: warn, duct_static_shift 0.3 and the caveat
    let f = run("fan_efficiency_drift", &fan(300, 0, 0.0, 0.0), &fan(150, 300, 0.6, 0.3), &Params::default());
    assert_eq!((f.severity, f.metrics["duct_static_shift"]), (Severity::Warn, 0.3));
    assert!(f.caveats.iter().any(|c| c.contains("duct static rose +0.30")), "{:?}", f.caveats);
    assert!(fan_run(0.6, &Params::default()).caveats.iter().all(|c| !c.contains("duct static rose")));
}

#[test]
fn reference_filter_loading_and_a_filter_change() {
    // the reference: ok (-0.0001 inH2O), warn at +0.2 (0.1999, 17.085σ, sigma 0.0117, slope
    // -0.0035/month), fault at +0.4 (0.3999, 34.179σ), ok at -0.4 (-0.3997 on 133 samples)
    let p = Params::default();
    let r = |s: f64| run("filter_loading_drift", &filt(300, 0, 0.0), &filt(150, 300, s), &p);
    let ok = r(0.0);
    assert!(ok.severity == Severity::Ok && close(ok.metrics["filter_dp_drift_inwc"], -0.0001, 5e-3));
    let w = r(0.2);
    let m = &w.metrics;
    assert_eq!(w.severity, Severity::Warn);
    assert!(close(m["filter_dp_drift_inwc"], 0.1999, 5e-3) && close(m["filter_dp_drift_sigma"], 17.085, 0.45), "{m:?}");
    assert!(
        close(m["filter_dp_baseline_sigma_inwc"], 0.0117, 1e-4)
            && close(m["filter_dp_slope_inwc_per_month"], -0.0035, 1e-3)
    );
    assert!(w.summary.contains("0.20 inH2O") && w.summary.contains("loading"), "{}", w.summary);
    let f = r(0.4);
    assert!(f.severity == Severity::Fault && close(f.metrics["filter_dp_drift_sigma"], 34.179, 0.45));
    let change = r(-0.4);
    assert_eq!(change.severity, Severity::Ok);
    assert_eq!(change.metrics["filter_dp_n_current"], 133.0);
    assert!(close(change.metrics["filter_dp_drift_inwc"], -0.3997, 5e-3));
    assert!(change.caveats.iter().any(|c| c.contains("filter was changed")), "{:?}", change.caveats);
    assert!(w.caveats.iter().all(|c| !c.contains("filter was changed")));
}

#[test]
fn reference_duct_static_either_way_and_net_of_a_reset() {
    // the reference: warn at +0.2 (0.1998, 6.842σ, sigma 0.0292), fault at +0.4 (13.6913σ) and at
    // -0.4 (-0.4002, -13.706σ); +0.4 with the setpoint also +0.4: ok, setpoint-driven, residual
    // -0.0002, static_sp_shift 0.4
    let p = Params::default();
    let r = |s: f64, sp: f64| run("duct_static_drift", &stat(300, 0, 0.0, 1.5), &stat(150, 300, s, sp), &p);
    let ok = r(0.0, 1.5);
    assert_eq!(
        (ok.severity, ok.metrics["duct_static_setpoint_driven"], ok.metrics["static_sp_shift"]),
        (Severity::Ok, 0.0, 0.0)
    );
    let w = r(0.2, 1.5);
    assert!(
        w.severity == Severity::Warn && close(w.metrics["duct_static_drift_sigma"], 6.842, 0.17),
        "{:?}",
        w.metrics
    );
    assert!(close(w.metrics["duct_static_baseline_sigma_inwc"], 0.0292, 1e-4));
    assert!(w.summary.contains("over-pressurization"), "{}", w.summary);
    let up = r(0.4, 1.5);
    assert!(up.severity == Severity::Fault && close(up.metrics["duct_static_drift_sigma"], 13.6913, 0.17));
    let down = r(-0.4, 1.5);
    assert!(down.severity == Severity::Fault && close(down.metrics["duct_static_drift_inwc"], -0.4002, 5e-3));
    assert!(
        down.summary.contains("below its baseline") && down.summary.contains("no longer holds"),
        "{}",
        down.summary
    );
    let reset = r(0.4, 1.9);
    let m = &reset.metrics;
    assert_eq!((reset.severity, m["duct_static_setpoint_driven"], m["static_sp_shift"]), (Severity::Ok, 1.0, 0.4));
    assert!(close(m["duct_static_residual_drift"], -0.0002, 5e-3), "{m:?}");
    assert!(reset.summary.contains("explained by the static setpoint's reset"), "{}", reset.summary);
    assert!(reset.caveats.iter().any(|c| c.contains("no control fault of its own")));
    // a reset that explains only part of it leaves a warning, and says so
    let part = r(0.4, 1.7);
    assert_eq!(part.severity, Severity::Warn);
    assert!(part.caveats.iter().any(|c| c.contains("still leaves a control fault")), "{:?}", part.caveats);
}

#[test]
fn reference_economizer_damper_either_way() {
    // the reference: ok (0.0154 pp, sigma 0.5871 pp, 92 samples, 33.7 % left out with outdoor and
    // return air too close, median command 50.482 %), warn at +12 (12.0154, 20.4657σ), fault at
    // +25 (42.6084σ) and -25 (-24.9846)
    let p = Params::default();
    let r = |s: f64| run("economizer_damper_drift", &econ(300, 0, 0.0), &econ(150, 300, s), &p);
    let ok = r(0.0);
    let m = &ok.metrics;
    assert_eq!(ok.severity, Severity::Ok);
    assert!(
        close(m["econ_oa_fraction_drift_pct"], 0.0154, 1e-3)
            && close(m["econ_oa_fraction_baseline_sigma_pct"], 0.5871, 1e-4),
        "{m:?}"
    );
    assert_eq!(
        (m["econ_oa_fraction_n_current"], m["econ_degenerate_excluded_pct"], m["econ_damper_median_cmd_pct"]),
        (92.0, 33.7, 50.482)
    );
    assert!(ok.caveats.iter().any(|c| c.contains("stratifies")) && ok.caveats.iter().any(|c| c.contains("too close")));
    let w = r(12.0);
    assert!(w.severity == Severity::Warn && close(w.metrics["econ_oa_fraction_drift_sigma"], 20.4657, 0.03));
    assert!(w.summary.contains("more outdoor air"), "{}", w.summary);
    assert!(r(25.0).severity == Severity::Fault);
    let d = r(-25.0);
    assert!(d.severity == Severity::Fault && close(d.metrics["econ_oa_fraction_drift_pct"], -24.9846, 1e-3));
    assert!(d.summary.contains("less outdoor air"), "{}", d.summary);
    // the same damper trended as a 0-1 fraction reads the same
    let frac = |f: Frame| {
        let mut f = f;
        let v: Vec<f64> = f.cols[OA_DAMPER].iter().map(|v| v / 100.0).collect();
        f.cols.insert(OA_DAMPER.into(), v);
        f
    };
    let g = run("economizer_damper_drift", &frac(econ(300, 0, 0.0)), &frac(econ(150, 300, 12.0)), &p);
    assert_eq!(g.metrics["econ_oa_fraction_drift_pct"], w.metrics["econ_oa_fraction_drift_pct"]);
}

#[test]
fn reference_coil_valves_one_finding_per_unit() {
    // the reference, one instance per coil: cooling ok (0.0354 %, sigma 0.5823 %, 153 samples,
    // 15 % economizing, median ΔT 12.753 °F), warn at +10 (10.0354, 17.234σ), fault at +20
    // (34.4073σ); heating ok (-0.0077 %, sigma 0.5804, 90 samples, median ΔT 15.0), fault at +20
    // (19.9923, 34.4456σ)
    let p = Params::default();
    let r = |c: f64, h: f64| run("coil_valve_drift", &coil(600, 0, 0.0, 0.0), &coil(300, 600, c, h), &p);
    let ok = r(0.0, 0.0);
    let m = &ok.metrics;
    assert_eq!(ok.severity, Severity::Ok, "{}", ok.summary);
    assert!(
        close(m["coil_valve_cooling_drift_pct"], 0.0354, 1e-3)
            && close(m["coil_valve_heating_drift_pct"], -0.0077, 1e-3),
        "{m:?}"
    );
    assert!(
        close(m["coil_valve_cooling_baseline_sigma_pct"], 0.5823, 1e-4)
            && close(m["coil_valve_heating_baseline_sigma_pct"], 0.5804, 1e-4)
    );
    assert_eq!(
        (
            m["coil_valve_cooling_n_current"],
            m["coil_valve_heating_n_current"],
            m["coil_valve_cooling_econ_excluded_pct"]
        ),
        (153.0, 90.0, 15.0)
    );
    assert_eq!((m["coil_valve_cooling_deltat_median_f"], m["coil_valve_heating_deltat_median_f"]), (12.753, 15.0));
    assert_eq!((m["coil_valve_heating_econ_excluded_pct"], m["coil_valve_cooling_water_supply_shift_f"]), (0.0, 0.0));
    assert_eq!(ok.judged, 243);
    let w = r(10.0, 0.0);
    assert_eq!(w.severity, Severity::Warn);
    assert!(close(w.metrics["coil_valve_cooling_drift_sigma"], 17.234, 0.03));
    assert!(w.summary.contains("cooling-coil valve") && w.summary.ends_with("the heating coil: ok"), "{}", w.summary);
    assert!(w.caveats.iter().any(|c| c.starts_with("cooling coil: the air ΔT is sensible only")), "{:?}", w.caveats);
    assert_eq!((w.metrics["coil_valve_cooling_grade"], w.metrics["coil_valve_heating_grade"]), (1.0, 0.0));
    let f = r(20.0, 0.0);
    assert!(f.severity == Severity::Fault && close(f.metrics["coil_valve_cooling_drift_sigma"], 34.4073, 0.05));
    let h = r(0.0, 20.0);
    assert_eq!(h.severity, Severity::Fault);
    assert!(
        close(h.metrics["coil_valve_heating_drift_pct"], 19.9923, 1e-3)
            && close(h.metrics["coil_valve_heating_drift_sigma"], 34.4456, 0.05)
    );
    assert!(h.summary.contains("heating-coil valve") && h.summary.ends_with("the cooling coil: ok"), "{}", h.summary);
    let names: Vec<(&str, usize, usize)> =
        h.conditions.iter().map(|c| (c.name.as_str(), c.judged, c.flagged.len())).collect();
    assert_eq!(names, [("cooling_creep", 153, 0), ("heating_creep", 90, 90)]);
    assert_eq!(h.flagged, h.conditions[1].flagged);
}

#[test]
fn a_coil_with_no_economizer_signal_or_a_warmer_chilled_water_says_so() {
    let mut base = coil(600, 0, 0.0, 0.0);
    let mut cur = coil(300, 600, 10.0, 0.0);
    cur.cols.insert("chw_supply_temp".into(), vec![47.0; 300]);
    let f = run("coil_valve_drift", &base, &cur, &Params::default());
    assert_eq!(f.metrics["coil_valve_cooling_water_supply_shift_f"], 3.0);
    assert!(f.caveats.iter().any(|c| c.contains("+3.0 °F (warmer)")), "{:?}", f.caveats);
    // without the damper every cooling sample is judged, and a caveat says why that is weaker
    base.cols.remove(OA_DAMPER);
    cur.cols.remove(OA_DAMPER);
    let f = run("coil_valve_drift", &base, &cur, &Params::default());
    assert!(f.caveats.iter().any(|c| c.contains("free-cooling hours could not be left out")), "{:?}", f.caveats);
    assert_eq!(f.metrics["coil_valve_cooling_econ_excluded_pct"], 0.0);
    assert!(f.metrics["coil_valve_cooling_n_current"] > 153.0);
}

#[test]
fn the_unit_and_sigma_floors_are_inclusive() {
    let w = fan_run(0.6, &Params::default());
    let drift = w.metrics["fan_power_drift_kw"];
    assert_eq!(fan_run(0.6, &params(&[("warn_kw", drift)])).severity, Severity::Warn);
    assert_eq!(fan_run(0.6, &params(&[("warn_kw", drift + 0.001)])).severity, Severity::Ok);
    assert_eq!(fan_run(0.6, &params(&[("fault_kw", drift)])).severity, Severity::Fault);
    let sig = w.metrics["fan_power_drift_sigma"];
    let both = params(&[("fault_kw", drift), ("fault_sigma", sig + 0.01)]);
    assert_eq!(fan_run(0.6, &both).severity, Severity::Warn);
    // a valve creep just past the percent floor: the reference's 8 % warns at 8.0354
    let r = |c: f64, p: &Params| run("coil_valve_drift", &coil(600, 0, 0.0, 0.0), &coil(300, 600, c, 0.0), p);
    assert_eq!(r(7.98, &Params::default()).severity, Severity::Warn);
    assert_eq!(r(7.95, &Params::default()).severity, Severity::Ok);
    assert_eq!(r(7.98, &params(&[("warn_sigma", 6.0)])).severity, Severity::Warn);
    let e = |s: f64| run("economizer_damper_drift", &econ(300, 0, 0.0), &econ(150, 300, s), &Params::default());
    // at +9.98 the drift is 9.9954 pp, at +9.99 10.0054
    assert_eq!((e(9.98).severity, e(9.99).severity), (Severity::Ok, Severity::Warn));
}

#[test]
fn missing_inputs_skip_and_never_pass() {
    let p = Params::default();
    for (d, base, cur, role) in [
        (id(Air::Fan), fan(300, 0, 0.0, 0.0), fan(150, 300, 0.0, 0.0), AIRFLOW),
        (id(Air::Filter), filt(300, 0, 0.0), filt(150, 300, 0.0), FILTER_DP),
        (id(Air::Static), stat(300, 0, 0.0, 1.5), stat(150, 300, 0.0, 1.5), STATIC),
        ("economizer_damper_drift", econ(300, 0, 0.0), econ(150, 300, 0.0), OAT),
        ("coil_valve_drift", coil(600, 0, 0.0, 0.0), coil(300, 600, 0.0, 0.0), MAT),
    ] {
        let s = detector(d).unwrap();
        let mut c = cur.clone();
        c.cols.remove(role);
        assert_eq!(judge(&s, &base, &c, &p), Outcome::Skipped { missing: vec![role.to_string()] }, "{d}");
        let mut b = base.clone();
        b.cols.remove(role);
        assert_eq!(fit(&s, &b, &p), Err(FitError::Missing(vec![role.to_string()])), "{d}");
    }
    let s = detector("coil_valve_drift").unwrap();
    let mut c = coil(300, 600, 0.0, 0.0);
    c.cols.remove("cool_valve");
    c.cols.remove("heat_valve");
    assert_eq!(
        judge(&s, &coil(600, 0, 0.0, 0.0), &c, &p),
        Outcome::Skipped { missing: vec!["cool_valve or heat_valve".into()] }
    );
    // a coil the baseline never saw is a caveat, the other coil still judged
    let mut b = coil(600, 0, 0.0, 0.0);
    b.cols.remove("heat_valve");
    let f = one(judge(&s, &b, &coil(300, 600, 0.0, 20.0), &p));
    assert_eq!(f.severity, Severity::Ok);
    assert!(f.caveats.iter().any(|c| c.contains("not judged: heating coil")), "{:?}", f.caveats);
}

#[test]
fn a_window_that_cannot_support_a_fit_declines_with_its_reason() {
    let p = Params::default();
    // 20 hours: too few samples
    match fit(&detector(id(Air::Fan)).unwrap(), &fan(20, 0, 0.0, 0.0), &p) {
        Err(FitError::Declined(why)) => assert!(why.contains("usable sample"), "{why}"),
        o => panic!("{o:?}"),
    }
    // a fan that never varies its airflow: no slope to fit
    let flat = frame(300, 0, &[(POWER, &|i| 8.0 + 0.2 * noise(i)), (AIRFLOW, &|_| 6000.0), (STATUS, &|_| 1.0)]);
    match fit(&detector(id(Air::Fan)).unwrap(), &flat, &p) {
        Err(FitError::Declined(why)) => assert!(why.contains("load range is only 0.000 wide"), "{why}"),
        o => panic!("{o:?}"),
    }
    // the fan off throughout the baseline
    let mut off = fan(300, 0, 0.0, 0.0);
    off.cols.insert(STATUS.into(), vec![0.0; 300]);
    let f = one(judge(&detector(id(Air::Fan)).unwrap(), &off, &fan(150, 300, 0.0, 0.0), &p));
    assert_eq!((f.severity, f.judged), (Severity::Info, 0));
    assert!(f.summary.contains("no baseline: no fan-on samples"), "{}", f.summary);
    // a damper that never moves: the economizer declines
    let mut still = econ(300, 0, 0.0);
    still.cols.insert(OA_DAMPER.into(), vec![20.0; 300]);
    assert!(matches!(fit(&detector("economizer_damper_drift").unwrap(), &still, &p), Err(FitError::Declined(_))));
    // the current window with the fan off: not judged, and says why
    let mut cur = fan(150, 300, 5.0, 0.0);
    cur.cols.insert(STATUS.into(), vec![0.0; 150]);
    let f = one(judge(&detector(id(Air::Fan)).unwrap(), &fan(300, 0, 0.0, 0.0), &cur, &p));
    assert!(f.severity == Severity::Info && f.summary.contains("no fan-on samples"), "{}", f.summary);
}

#[test]
fn degenerate_frames_do_not_panic() {
    let p = Params::default();
    let ids = [id(Air::Fan), id(Air::Filter), id(Air::Static), "economizer_damper_drift", "coil_valve_drift"];
    let bases =
        [fan(300, 0, 0.0, 0.0), filt(300, 0, 0.0), stat(300, 0, 0.0, 1.5), econ(300, 0, 0.0), coil(600, 0, 0.0, 0.0)];
    for (d, base) in ids.iter().zip(&bases) {
        let s = detector(d).unwrap();
        assert!(matches!(fit(&s, &Frame::default(), &p), Err(FitError::Missing(_))), "{d}");
        let _ = judge(&s, base, &Frame::default(), &p);
        // one sample, every value NaN, and every value constant
        let one_row = Frame::from_rows(
            &base.ts[..1],
            &base.cols.iter().map(|(k, v)| (k.as_str(), v[..1].to_vec())).collect::<Vec<_>>(),
        );
        assert!(matches!(fit(&s, &one_row, &p), Err(FitError::Declined(_))), "{d}");
        assert!(matches!(judge(&s, base, &one_row, &p), Outcome::Findings(_)), "{d}");
        let mut nan = base.clone();
        nan.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = f64::NAN));
        assert!(matches!(judge(&s, base, &nan, &p), Outcome::Skipped { .. }), "{d}");
        let mut flat = base.clone();
        flat.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = 1.0));
        assert!(matches!(fit(&s, &flat, &p), Err(FitError::Declined(_))), "{d}");
        let f = one(judge(&s, base, &flat, &p));
        assert!(f.summary.len() > 10, "{d}");
    }
}

#[test]
fn gaps_uneven_sampling_disorder_and_duplicates() {
    let p = Params::default();
    for (d, base, clean) in [
        (id(Air::Fan), fan(300, 0, 0.0, 0.0), fan(150, 300, 1.2, 0.0)),
        ("coil_valve_drift", coil(600, 0, 0.0, 0.0), coil(300, 600, 20.0, 0.0)),
        ("economizer_damper_drift", econ(300, 0, 0.0), econ(150, 300, 25.0)),
    ] {
        let s = detector(d).unwrap();
        let want = one(judge(&s, &base, &clean, &p));
        // the same rows reversed and each repeated: the same finding
        let mut ts = Vec::new();
        let keys: Vec<String> = clean.cols.keys().cloned().collect();
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); keys.len()];
        for i in (0..clean.len()).rev() {
            for _ in 0..2 {
                ts.push(clean.ts[i]);
                for (c, k) in cols.iter_mut().zip(&keys) {
                    c.push(clean.cols[k][i]);
                }
            }
        }
        let named: Vec<(&str, Vec<f64>)> = keys.iter().map(|k| k.as_str()).zip(cols).collect();
        assert_eq!(one(judge(&s, &base, &Frame::from_rows(&ts, &named), &p)), want, "{d}");
        // a 40-hour gap and every third remaining hour dropped: fewer judged, the same verdict
        let keep: Vec<usize> = (0..clean.len()).filter(|i| !(40..80).contains(i) && i % 3 != 1).collect();
        let ts2: Vec<i64> = keep.iter().map(|&i| clean.ts[i]).collect();
        let named2: Vec<(&str, Vec<f64>)> =
            keys.iter().map(|k| (k.as_str(), keep.iter().map(|&i| clean.cols[k][i]).collect())).collect();
        let f = one(judge(&s, &base, &Frame::from_rows(&ts2, &named2), &p));
        assert_eq!(f.severity, want.severity, "{d}: {}", f.summary);
        assert!(f.judged < want.judged * 3 / 4 && f.judged > want.judged / 3, "{d}: {} of {}", f.judged, want.judged);
    }
    // hourly timestamps, as the reference windows
    assert_eq!(fan(2, 4, 0.0, 0.0).ts, vec![T0 + 4 * H, T0 + 5 * H]);
}

#[test]
fn baselines_round_trip_through_json_and_judge_the_same() {
    let p = Params::default();
    for (d, base, cur) in [
        ("coil_valve_drift", coil(600, 0, 0.0, 0.0), coil(300, 600, 10.0, 20.0)),
        ("economizer_damper_drift", econ(300, 0, 0.0), econ(150, 300, 12.0)),
        (id(Air::Static), stat(300, 0, 0.0, 1.5), stat(150, 300, 0.4, 1.9)),
    ] {
        let s = detector(d).unwrap();
        let b = fit(&s, &base, &p).unwrap();
        let json = serde_json::to_string(&b).unwrap();
        let back: Baseline = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b, "{d}");
        assert_eq!(evaluate(&s, &back, &cur, &p), evaluate(&s, &b, &cur, &p), "{d}");
        assert_eq!(judge(&s, &base, &cur, &p), evaluate(&s, &b, &cur, &p), "{d}");
    }
    let b = fit(&detector("coil_valve_drift").unwrap(), &coil(600, 0, 0.0, 0.0), &p).unwrap();
    assert_eq!(b.parts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["cooling", "heating"]);
    // 17 of the baseline's 120 working cooling hours economize (the current window's 15 % is the larger)
    assert_eq!(b.parts[0].excluded_share, Some(0.14166666666666666));
    let json = serde_json::to_string(&b).unwrap();
    assert!(json.contains("\"excluded_share\":0.1416") && json.contains("\"confound_median\":44.0"), "{json}");
}

// ---------------------------------------------------------------- the roll-up

fn judged(sev: Severity, metrics: &[(&str, f64)]) -> Finding {
    let mut f = Finding::of("x", "", sev, format!("{sev:?}"));
    f.judged = 100;
    f.metrics = metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    f
}

#[test]
fn the_roll_up_reads_a_fan_power_excess_against_the_filter_and_the_static() {
    let fam = family("ahu").unwrap();
    let fan_up = judged(Severity::Warn, &[("fan_power_drift_kw", 0.8)]);
    let ok = judged(Severity::Ok, &[]);
    // with a loading filter: the air path
    let filter_up = judged(Severity::Warn, &[("filter_dp_drift_inwc", 0.2)]);
    let d = diagnose(fam, "AHU-1", &[("fan_efficiency_drift", &fan_up), ("filter_loading_drift", &filter_up)]);
    assert_eq!(
        (d.severity, d.locus.as_str(), d.loci.clone()),
        (Severity::Warn, "air_path", vec!["air_path".to_string()])
    );
    assert!(d.causes[1].contains("fights added air-path resistance"), "{:?}", d.causes);
    assert!(
        d.caveats.iter().any(|c| c.contains("fighting added resistance"))
            && d.caveats.iter().any(|c| c.contains("walkdown"))
    );
    // with the static falling: the fan
    let static_down = judged(Severity::Fault, &[("duct_static_drift_inwc", -0.4)]);
    let d = diagnose(fam, "AHU-1", &[("fan_efficiency_drift", &fan_up), ("duct_static_drift", &static_down)]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "fan"));
    assert!(d.caveats.iter().any(|c| c.contains("holds less static")), "{:?}", d.caveats);
    // with the filter and static steady: the fan itself
    let d = diagnose(
        fam,
        "AHU-1",
        &[("fan_efficiency_drift", &fan_up), ("filter_loading_drift", &ok), ("duct_static_drift", &ok)],
    );
    assert_eq!(d.locus, "fan");
    assert!(d.caveats.iter().any(|c| c.contains("isolates to the fan")), "{:?}", d.caveats);
    // with neither judged: it cannot tell
    let not = Finding::of("x", "", Severity::Info, "not judged: no baseline");
    let d = diagnose(fam, "AHU-1", &[("fan_efficiency_drift", &fan_up), ("filter_loading_drift", &not)]);
    assert_eq!(d.locus, "fan");
    assert!(
        d.caveats.iter().any(|c| c.contains("cannot be told")) && d.caveats.iter().any(|c| c.contains("did not judge"))
    );
}

#[test]
fn the_roll_up_names_each_coil_and_an_ahu_wide_drift() {
    let fam = family("ahu").unwrap();
    let coils = judged(Severity::Fault, &[("coil_valve_cooling_grade", 0.0), ("coil_valve_heating_grade", 2.0)]);
    let leak = judged(Severity::Warn, &[("coil_leak_cooling_grade", 1.0), ("coil_leak_heating_grade", 0.0)]);
    let d = diagnose(fam, "AHU-1", &[("coil_valve_drift", &coils), ("coil_leak_drift", &leak)]);
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "coil"));
    assert!(
        d.causes[0].contains("heating coil is losing heat transfer")
            && d.causes[1].contains("cooling-coil valve passes water"),
        "{:?}",
        d.causes
    );
    let econ_down = judged(Severity::Warn, &[("econ_oa_fraction_drift_pct", -15.0)]);
    let d = diagnose(fam, "AHU-1", &[("coil_valve_drift", &coils), ("economizer_damper_drift", &econ_down)]);
    assert_eq!((d.locus.as_str(), d.loci.clone()), ("ahu_wide", vec!["coil".to_string(), "outdoor_air".to_string()]));
    assert!(d.causes[1].contains("too little outdoor air") && d.summary.contains("(ahu wide)"), "{}", d.summary);
    assert!(d.caveats.iter().any(|c| c.contains("common to the whole unit")));
    let ok = judged(Severity::Ok, &[]);
    let d = diagnose(fam, "AHU-1", &[("coil_valve_drift", &ok), ("fan_efficiency_drift", &ok)]);
    assert_eq!((d.severity, d.locus.as_str(), d.causes.len()), (Severity::Ok, "steady", 0));
    assert_eq!(d.summary, "AHU-1: no ahu drift on 2 check(s)");
    assert_eq!(d.signals.len(), 2);
}

#[test]
fn the_roll_up_reads_the_real_findings() {
    // a loading filter and the fan's power rising with it, from the detectors themselves
    let p = Params::default();
    let fan_f = fan_run(0.6, &p);
    let filt_f = run("filter_loading_drift", &filt(300, 0, 0.0), &filt(150, 300, 0.4), &p);
    let stat_f = run("duct_static_drift", &stat(300, 0, 0.0, 1.5), &stat(150, 300, 0.0, 1.5), &p);
    let coil_f = run("coil_valve_drift", &coil(600, 0, 0.0, 0.0), &coil(300, 600, 0.0, 20.0), &p);
    let fam = family("ahu").unwrap();
    let d = (fam.diagnose)(
        fam,
        "AHU-1",
        &[
            ("fan_efficiency_drift", &fan_f),
            ("filter_loading_drift", &filt_f),
            ("duct_static_drift", &stat_f),
            ("coil_valve_drift", &coil_f),
        ],
    );
    assert_eq!((d.severity, d.locus.as_str()), (Severity::Fault, "ahu_wide"));
    assert_eq!(d.loci, ["air_path", "coil"]);
    assert_eq!(d.causes.len(), 3, "{:?}", d.causes);
    assert!(d.causes.iter().any(|c| c.contains("heating coil")));
}
