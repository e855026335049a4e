//! The M&V engine against Guideline 14's definitions on hand-computed cases, each model form
//! recovered from data it generated, the section's checks, extrapolation, declines and
//! degenerate input.

use camber_common::time::days_from_civil;
use serde_json::json;

use super::coverage::{assess, ExtrapolationPolicy, Tier};
use super::daily::{daily, NS_PER_DAY};
use super::model::{best_model, fit, Form, Obs};
use super::run::{run, run_meter, Meter, UnitSystem};
use super::section::MvSection;
use super::stats::{acceptance, fit_stats, fsu_g14, lag1_autocorrelation, n_effective, projection_variance, t90};
use crate::engine::Frame;

const H: i64 = 3_600_000_000_000;

/// A deterministic noise in [-1, 1].
fn noise(i: usize) -> f64 {
    let x = (i as u64).wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    ((x >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
}

/// A daily outdoor-air trace swinging 20-90 over a year.
fn oat_of(day: i64) -> f64 {
    55.0 - 30.0 * (2.0 * std::f64::consts::PI * (day as f64 + 10.0) / 365.0).cos() + 5.0 * noise(day as usize * 7 + 3)
}

/// Hourly frame from `start` for `days` days: rate = daily energy / 24 per hour.
fn hourly(start: i64, days: i64, energy: impl Fn(i64, f64) -> f64) -> Frame {
    let mut ts = Vec::new();
    let (mut e, mut o) = (Vec::new(), Vec::new());
    for d in start..start + days {
        let t = oat_of(d);
        let rate = energy(d, t) / 24.0;
        for h in 0..24 {
            ts.push(d * NS_PER_DAY + h * H);
            e.push(rate);
            o.push(t + 2.0 * ((h as f64 - 12.0) / 12.0));
        }
    }
    Frame::from_rows(&ts, &[("energy_rate", e), ("oat", o)])
}

fn entry(v: serde_json::Value) -> super::section::MvEntry {
    MvSection::from_value(Some(&json!([v]))).unwrap().unwrap().entries.remove(0)
}

#[test]
fn statistics_match_guideline_14_by_hand() {
    // y = 2, 4, 6, 8 against 3, 3, 7, 7 with p = 2: SSE 4, SST 20, ybar 5
    let s = fit_stats(&[2.0, 4.0, 6.0, 8.0], &[3.0, 3.0, 7.0, 7.0], &[0, 1, 2, 3], 2).unwrap();
    assert!((s.r2 - 0.8).abs() < 1e-12);
    assert!((s.rmse - 2f64.sqrt()).abs() < 1e-12, "RMSE on n - p = 2 degrees of freedom");
    assert!((s.cv_rmse - 2f64.sqrt() / 5.0).abs() < 1e-12);
    assert_eq!(s.nmbe, 0.0);
    assert!((s.adj_r2 - (1.0 - 0.2 * 3.0 / 2.0)).abs() < 1e-12);
    assert_eq!(s.rho, None, "four residuals are too few for rho");
    // a biased fit: every residual +1, NMBE = 4 / (2 * 5)
    let b = fit_stats(&[2.0, 4.0, 6.0, 8.0], &[1.0, 3.0, 5.0, 7.0], &[0, 1, 2, 3], 2).unwrap();
    assert!((b.nmbe - 0.4).abs() < 1e-12);
    assert!(!b.accept && b.failures.iter().any(|f| f.contains("NMBE")));
    assert!(fit_stats(&[1.0, 2.0], &[1.0, 2.0], &[0, 1], 2).is_none(), "n <= p has no statistics");
}

#[test]
fn autocorrelation_by_hand_and_gaps_break_pairs() {
    // blocks of three: +1 +1 +1 -1 -1 -1 ..., 61 residuals: 60 pairs, mean of a*b = 1/3
    let r: Vec<f64> = (0..61).map(|i| if (i / 3) % 2 == 0 { 1.0 } else { -1.0 }).collect();
    let days: Vec<i64> = (0..61).collect();
    let rho = lag1_autocorrelation(&r, &days).unwrap();
    assert!((rho - 1.0 / 3.0).abs() < 1e-12, "{rho}");
    // alternating residuals correlate at -1, clamped to 0
    let alt: Vec<f64> = (0..40).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect();
    assert_eq!(lag1_autocorrelation(&alt, &(0..40).collect::<Vec<_>>()), Some(0.0));
    // gaps every other day leave fewer than 30 adjacent pairs
    let gappy: Vec<i64> = (0..40).map(|i| i * 2 + (i % 2)).collect();
    assert_eq!(lag1_autocorrelation(&alt, &gappy), None);
    assert!((n_effective(365.0, 1.0 / 3.0) - 182.5).abs() < 1e-12);
    assert_eq!(n_effective(10.0, -0.2), 10.0);
}

#[test]
fn student_t_and_the_fsu_formula() {
    for (df, t) in [(1, 6.314), (5, 2.015), (10, 1.812), (30, 1.697), (120, 1.658), (0, 1.645)] {
        assert!((t90(df) - t).abs() < 1.5e-3, "t90({df}) = {}", t90(df));
    }
    // FSU = t 1.26 CV sqrt((n/n') (1 + 2/n) / m) / F; rho 1/3 makes n/n' = 2
    let got = fsu_g14(0.1, 365, 3, 100, 0.2, 1.0 / 3.0);
    let want = t90(362) * 1.26 * 0.1 * (2.0_f64 * (1.0 + 2.0 / 365.0) / 100.0).sqrt() / 0.2;
    assert!((got - want).abs() < 1e-12 && (got - 0.1473).abs() < 1e-3, "{got}");
    assert!(fsu_g14(0.1, 365, 3, 100, 0.0, 0.0).is_nan(), "no saving, no fraction");
    assert!(fsu_g14(0.1, 365, 3, 0, 0.2, 0.0).is_nan());
    // exact kernel: 2P on t = 0..3, X'X = [[4, 6], [6, 14]], rows t = 4, 5: g = [2, 9], g'Ag = 8.2
    let inv = super::linalg::inverse(&vec![vec![4.0, 6.0], vec![6.0, 14.0]]).unwrap();
    let (vp, vn) = projection_variance(&inv, 1.0, &[2.0, 9.0], 2, None);
    assert!((vp - 8.2).abs() < 1e-12 && vn == 2.0);
    let (vp2, _) = projection_variance(&inv, 1.0, &[2.0, 9.0], 2, Some(1.0 / 3.0));
    assert!((vp2 - 16.4).abs() < 1e-12, "kappa (1 + rho)/(1 - rho) = 2");
}

#[test]
fn acceptance_at_its_thresholds() {
    assert!(acceptance(0.75, 0.30, 0.005).is_empty(), "exactly at every threshold passes");
    assert!(acceptance(0.7499, 0.2, 0.0).iter().any(|f| f.starts_with("R2")));
    assert!(acceptance(0.9, 0.3001, 0.0).iter().any(|f| f.starts_with("CV(RMSE)")));
    assert!(acceptance(0.9, 0.2, -0.0051).iter().any(|f| f.starts_with("|NMBE|")));
    assert_eq!(acceptance(f64::NAN, f64::NAN, f64::NAN).len(), 3);
}

fn synth(f: impl Fn(f64) -> f64, n: usize, amp: f64) -> (Vec<f64>, Vec<f64>) {
    let t: Vec<f64> = (0..n).map(|i| 20.0 + 70.0 * ((i * 37) % n) as f64 / n as f64).collect();
    let y: Vec<f64> = t.iter().enumerate().map(|(i, &x)| f(x) + amp * noise(i)).collect();
    (t, y)
}

#[test]
fn each_form_is_recovered_and_selected() {
    type Case = (Form, Box<dyn Fn(f64) -> f64>, Vec<f64>);
    let cases: [Case; 5] = [
        (Form::P2, Box::new(|t| 100.0 + 3.0 * t), vec![]),
        (Form::P3Cooling, Box::new(|t| 200.0 + 8.0 * (t - 62.0).max(0.0)), vec![62.0]),
        (Form::P3Heating, Box::new(|t| 150.0 + 6.0 * (48.0 - t).max(0.0)), vec![48.0]),
        (Form::P4, Box::new(|t| 300.0 + 2.0 * (t - 58.0).min(0.0) + 9.0 * (t - 58.0).max(0.0)), vec![58.0]),
        (Form::P5, Box::new(|t| 250.0 + 7.0 * (45.0 - t).max(0.0) + 9.0 * (t - 68.0).max(0.0)), vec![45.0, 68.0]),
    ];
    for (form, f, cps) in cases {
        let (t, y) = synth(f, 365, 2.0);
        let (best, cands) = best_model(Obs { t: &t, y: &y, d: &[] }, &Form::ALL, &[]);
        let m = best.unwrap();
        assert_eq!(m.form, form, "{form:?} chosen among {cands:?}");
        for (got, want) in m.change_points.iter().zip(&cps) {
            assert!((got - want).abs() < 0.6, "{form:?}: change point {got} for {want}");
        }
        assert_eq!(m.p, form.n_params());
        let yhat: Vec<f64> = t.iter().map(|&x| m.predict(x, &[])).collect();
        let st = fit_stats(&y, &yhat, &(0..365).collect::<Vec<_>>(), m.p).unwrap();
        assert!(st.r2 > 0.95 && st.accept, "{form:?}: {st:?}");
    }
    // the cooling slope and base of the 3P cooling are recovered too
    let (t, y) = synth(|t| 200.0 + 8.0 * (t - 62.0).max(0.0), 365, 2.0);
    let m = fit(Obs { t: &t, y: &y, d: &[] }, Form::P3Cooling, &[]).unwrap();
    assert!((m.coef[0] - 200.0).abs() < 1.0 && (m.coef[1] - 8.0).abs() < 0.1, "{:?}", m.coef);
}

#[test]
fn a_driver_is_fitted_beside_the_change_point() {
    let (t, y0) = synth(|t| 200.0 + 8.0 * (t - 62.0).max(0.0), 364, 2.0);
    let occ: Vec<f64> = (0..364).map(|i| f64::from(u8::from(i % 7 < 5))).collect();
    let y: Vec<f64> = y0.iter().zip(&occ).map(|(a, o)| a + 120.0 * o).collect();
    let d = vec![occ];
    let (best, _) = best_model(Obs { t: &t, y: &y, d: &d }, &Form::ALL, &["occupied_day".to_string()]);
    let m = best.unwrap();
    assert_eq!(m.form, Form::P3Cooling);
    assert_eq!(m.p, 4);
    assert!((m.coef[2] - 120.0).abs() < 1.0, "{:?}", m.coef);
    assert!(m.named_coefficients().iter().any(|(k, v)| k == "occupied_day" && (v - 120.0).abs() < 1.0));
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let (b, c) = best_model(Obs { t: &[], y: &[], d: &[] }, &Form::ALL, &[]);
    assert!(b.is_none() && c.iter().all(|c| c.refused.is_some()));
    // constant outdoor air: no form can be solved
    let t = vec![50.0; 100];
    let y: Vec<f64> = (0..100).map(|i| 10.0 + noise(i)).collect();
    let (b, c) = best_model(Obs { t: &t, y: &y, d: &[] }, &Form::ALL, &[]);
    assert!(b.is_none(), "{c:?}");
    let (b, _) = best_model(Obs { t: &[50.0], y: &[3.0], d: &[] }, &Form::ALL, &[]);
    assert!(b.is_none());
    // NaNs are left out
    let (b, _) =
        best_model(Obs { t: &[f64::NAN, 1.0, 2.0, 3.0, 4.0], y: &[1.0, 2.0, 3.0, 4.0, 5.0], d: &[] }, &[Form::P2], &[]);
    assert_eq!(b.unwrap().n, 4);
    // run on an empty frame, a frame of one day and a frame with constant air
    let e = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"]}),
    );
    let empty = Frame::default();
    let r = run_meter(&e, 0, "m", &empty, None);
    assert!(r.len() == 2 && r.iter().all(|r| r.declined.is_some()));
    let one = hourly(days_from_civil(2020, 1, 1), 1, |_, _| 100.0);
    assert!(run_meter(&e, 0, "m", &one, None).iter().all(|r| r.declined.is_some()));
    let mut flat = hourly(days_from_civil(2020, 1, 1), 500, |d, _| 100.0 + noise(d as usize));
    flat.cols.insert("oat".into(), vec![50.0; flat.ts.len()]);
    let r = run_meter(&e, 0, "m", &flat, None);
    assert!(r[0].declined.as_deref().unwrap().contains("no model could be fit"), "{:?}", r[0].declined);
}

#[test]
fn days_integrate_the_rate_and_drop_thin_days() {
    let e = entry(json!({"class": "M"}));
    // a constant 10 per hour: 240 a day, at hourly and at 15-minute sampling
    for step in [H, H / 4] {
        let n = (3 * NS_PER_DAY / step) as usize;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * step).collect();
        let f = Frame::from_rows(&ts, &[("energy_rate", vec![10.0; n]), ("oat", vec![60.0; n])]);
        let d = daily(&f, &e, None);
        assert_eq!(d.len(), 3);
        assert!(d.energy.iter().all(|&x| (x - 240.0).abs() < 1e-9), "{:?}", d.energy);
    }
    // the second day has 12 of 24 hours: under 90 % coverage, left out and counted
    let ts: Vec<i64> = (0..72).filter(|h| !(30..42).contains(h)).map(|h| h * H).collect();
    let n = ts.len();
    let f = Frame::from_rows(&ts, &[("energy_rate", vec![10.0; n]), ("oat", vec![150.0; n])]);
    let d = daily(&f, &e, None);
    assert_eq!((d.len(), d.dropped), (0, 1), "implausible air leaves no day; one thin day dropped");
    assert_eq!(d.screened, n);
}

#[test]
fn forecast_recovers_a_known_cut_with_its_band() {
    let start = days_from_civil(2020, 1, 1);
    let f = hourly(start, 731, |d, t| {
        let base = 500.0 + 12.0 * (t - 60.0).max(0.0) + 15.0 * noise(d as usize);
        if d >= days_from_civil(2021, 1, 1) {
            base * 0.85
        } else {
            base
        }
    });
    let e = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "forecast", "units": "kW"}),
    );
    let r = run_meter(&e, 0, "CHW-1", &f, None);
    assert_eq!(r.len(), 2);
    let (b, s) = (&r[0], &r[1]);
    assert_eq!(b.kind, "mv_baseline");
    assert_eq!(b.metrics["model"], json!("3PC"));
    assert_eq!(b.metrics["accept"], json!(true));
    assert!(b.finding.summary.contains("meets daily acceptance"), "{}", b.finding.summary);
    let pct = s.metrics["savings_pct"].as_f64().unwrap();
    assert!((pct - 0.15).abs() < 0.01, "{pct}");
    let fsu = s.metrics["fsu"].as_f64().unwrap();
    assert!(fsu > 0.0 && fsu < 0.2, "{fsu}");
    assert!(s.finding.summary.contains("kWh"), "{}", s.finding.summary);
    // the exact kernel gives a band of the same order
    let ex = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "forecast", "kernel": "exact"}),
    );
    let rx = run_meter(&ex, 0, "CHW-1", &f, None);
    let fx = rx[1].metrics["fsu"].as_f64().unwrap();
    assert!(fx > 0.2 * fsu && fx < 5.0 * fsu, "{fx} vs {fsu}");
    // a units system converts and says both
    let ip = run_meter(&e, 0, "CHW-1", &f, Some(UnitSystem::Ip));
    let (a, am) =
        (ip[1].metrics["avoided_energy"].as_f64().unwrap(), ip[1].metrics["avoided_energy_meter"].as_f64().unwrap());
    assert!((a / am - 3.412_141_633).abs() < 1e-6);
    assert!(ip[1].finding.summary.contains("kBtu") && ip[1].finding.summary.contains("kWh"));
    // backcast, chaining and the proposal run on the same meter
    let bc = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "backcast"}),
    );
    let rb = run_meter(&bc, 0, "CHW-1", &f, None);
    let pb = rb[1].metrics["savings_pct"].as_f64().unwrap();
    assert!((pb - 0.15).abs() < 0.02, "backcast {pb}");
    let au = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "auto"}),
    );
    let ra = run_meter(&au, 0, "CHW-1", &f, None);
    assert_eq!(ra[1].kind, "mv_method_proposal");
    assert_eq!(ra[1].metrics["proposed"], json!("forecast"));
}

#[test]
fn a_failing_baseline_is_for_information_only() {
    let start = days_from_civil(2020, 1, 1);
    let f = hourly(start, 731, |d, _| 500.0 + 400.0 * noise(d as usize));
    let e = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"]}),
    );
    let r = run_meter(&e, 0, "m", &f, None);
    assert_eq!(r[0].metrics["accept"], json!(false));
    assert_eq!(r[0].finding.severity, crate::engine::Severity::Info);
    assert!(r[1].finding.summary.contains("for information only"), "{}", r[1].finding.summary);
    assert!(r[1].finding.caveats.iter().any(|c| c.contains("no mv.method declared")));
}

#[test]
fn a_short_baseline_is_declined_with_its_reason() {
    let f = hourly(days_from_civil(2020, 1, 1), 40, |_, t| 100.0 + t);
    let e = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"]}),
    );
    let r = run_meter(&e, 0, "m", &f, None);
    assert_eq!(r[0].declined.as_deref(), Some("only 40 usable days (< 60)"));
    assert!(r[1].declined.as_deref().unwrap().starts_with("no baseline: only 40"));
    let e30 = entry(json!({"class": "M", "min_days": 30}));
    assert!(run_meter(&e30, 0, "m", &f, None)[0].declined.is_none());
}

#[test]
fn extrapolation_is_graded_and_a_severe_one_declined() {
    let (t, y) = synth(|t| 200.0 + 8.0 * (t - 62.0).max(0.0), 365, 2.0);
    let m = fit(Obs { t: &t, y: &y, d: &[] }, Form::P3Cooling, &[]).unwrap();
    let pol = ExtrapolationPolicy::default();
    let grade = |rep: &[f64]| {
        let proj: Vec<f64> = rep.iter().map(|&x| m.predict(x, &[])).collect();
        assert_eq!(proj.len(), rep.len());
        assert!(proj.iter().all(|p| p.is_finite()));
        assert(&m, &t, rep, &proj, &pol)
    };
    fn assert(
        m: &super::model::Model,
        t: &[f64],
        rep: &[f64],
        proj: &[f64],
        pol: &ExtrapolationPolicy,
    ) -> super::coverage::Coverage {
        assess(m, t, &[], rep, &[], proj, pol)
    }
    let inside: Vec<f64> = (0..100).map(|i| 30.0 + 0.5 * i as f64).collect();
    assert_eq!(grade(&inside).tier, Tier::InRange);
    // 10 of 100 days 3 degrees above the fitted maximum: moderate
    let mut some = inside.clone();
    let top = t.iter().copied().fold(f64::MIN, crate::engine::max_of);
    for v in some.iter_mut().take(10) {
        *v = top + 3.0;
    }
    let c = grade(&some);
    assert_eq!(c.tier, Tier::Moderate, "{c:?}");
    assert!((c.share_points_outside - 0.10).abs() < 1e-12);
    assert!((c.max_beyond - 3.0).abs() < 1e-9 && c.max_beyond_rel.unwrap() > 0.04);
    // 40 % of the days far above: severe, and the forecast declines with the share in its reason
    let far: Vec<f64> = (0..100).map(|i| if i < 40 { top + 40.0 } else { 50.0 }).collect();
    let c = grade(&far);
    assert_eq!(c.tier, Tier::Severe);
    assert!(c.reason.contains("40.0% of the projected days"), "{}", c.reason);
    let fit_days =
        super::daily::Daily { day: (0..365).collect(), energy: y.clone(), oat: t.clone(), ..Default::default() };
    let yhat: Vec<f64> = t.iter().map(|&x| m.predict(x, &[])).collect();
    let stats = fit_stats(&y, &yhat, &fit_days.day, m.p).unwrap();
    let fitted = super::savings::Fitted { model: m.clone(), stats, days: fit_days };
    let rep = super::daily::Daily {
        day: (400..500).collect(),
        energy: vec![300.0; 100],
        oat: far.clone(),
        ..Default::default()
    };
    let s = super::savings::forecast(&fitted, &rep, super::section::Kernel::G14, &pol);
    assert!(s.savings.is_none() && s.declined.as_deref().unwrap().contains("severe"));
    let lax = ExtrapolationPolicy { decline: false, ..pol.clone() };
    assert!(super::savings::forecast(&fitted, &rep, super::section::Kernel::G14, &lax).savings.is_some());
    // a moderate one widens the G14 band
    let rep_mod = super::daily::Daily { oat: some.clone(), ..rep.clone() };
    let rep_in = super::daily::Daily { oat: inside.clone(), ..rep.clone() };
    let w = super::savings::forecast(&fitted, &rep_mod, super::section::Kernel::G14, &pol);
    let k = w.fsu_extrapolation_factor.unwrap();
    assert!(k > 1.0, "{k}");
    assert!(super::savings::forecast(&fitted, &rep_in, super::section::Kernel::G14, &pol)
        .fsu_extrapolation_factor
        .is_none());
}

#[test]
fn the_section_parses_the_reference_format_and_names_mistakes() {
    let s = MvSection::from_value(Some(&json!([{"class": "ELECTRICITY_METER", "role": "power", "period": ["2018-01-01", "2018-12-31"], "reporting_period": ["2019-01-01", "2019-12-31"], "method": "forecast", "validity": "both", "interval": "daily", "model": "cp_driver", "drivers": ["occupied_day"], "holiday_calendar": "NO"}])))
        .unwrap()
        .unwrap();
    let e = &s.entries[0];
    assert_eq!((e.role.as_str(), e.min_days, e.min_coverage), ("power", 60, 0.9));
    assert_eq!(e.holidays.country.as_deref(), Some("NO"));
    assert_eq!(e.period.as_ref().unwrap().days(), Some(365));
    assert_eq!(MvSection::from_value(None).unwrap(), None);
    let d = entry(json!({"class": "M"}));
    assert_eq!((d.role.as_str(), d.method_declared, d.kernel), ("energy_rate", false, super::section::Kernel::G14));
    let sc = entry(
        json!({"class": "M", "period": ["2018-01-01", "2018-12-31"], "reporting_period": ["2019-01-01", "2019-12-31"], "method": "standard_conditions", "normal_year": [30, 40, 50]}),
    );
    assert_eq!(sc.kernel, super::section::Kernel::Exact);
    let err = |v: serde_json::Value| MvSection::from_value(Some(&v)).unwrap_err();
    let p = |extra: serde_json::Value| {
        let mut o = json!({"class": "M", "period": ["2018-01-01", "2018-12-31"], "reporting_period": ["2019-01-01", "2019-12-31"]});
        o.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!([o])
    };
    for (bad, says) in [
        (json!({"class": "M"}), "'mv' must be a list"),
        (json!([]), "lists no entry"),
        (json!([{"period": ["2018-01-01", "2018-12-31"]}]), "needs a \"class\""),
        (p(json!({"reporting_period": ["2018-06-01", "2019-06-30"]})), "period and reporting_period overlap"),
        (p(json!({"intermediate_period": ["2018-12-01", "2019-01-31"], "method": "chaining"})), "overlap"),
        (p(json!({"method": "magic"})), "mv[0].method must be one of"),
        (
            p(json!({"method": "chaining", "kernel": "g14", "intermediate_period": ["2020-01-01", "2020-12-31"]})),
            "needs kernel 'exact'",
        ),
        (p(json!({"method": "chaining"})), "needs an intermediate_period"),
        (p(json!({"method": "standard_conditions"})), "needs normal_year"),
        (p(json!({"kernel": "bayes"})), "kernel must be 'g14' or 'exact'"),
        (p(json!({"interval": "hourly"})), "only 'daily'"),
        (p(json!({"validity": "iso"})), "validity must be"),
        (p(json!({"min_coverage": 1.5})), "min_coverage must be a number in [0, 1]"),
        (p(json!({"extrapolation": {"decline_shar": 0.3}})), "unknown extrapolation policy key 'decline_shar'"),
        (p(json!({"rebaseline": {"detekt": true}})), "mv[0].rebaseline: unknown key 'detekt'"),
        (p(json!({"drivers": ["weekday"]})), "drivers needs model \"cp_driver\""),
        (p(json!({"model": "cp_driver"})), "needs drivers"),
        (p(json!({"model": "cp_driver", "drivers": ["oat"]})), "already the model's first term"),
        (p(json!({"model": "cp_driver", "drivers": ["phase_of_moon"]})), "'phase_of_moon' is neither"),
        (p(json!({"holidays": ["2018-12-25"]})), "needs the \"occupied_day\""),
        (p(json!({"units": "furlongs"})), "mv[0].units: 'furlongs'"),
        (p(json!({"period": ["2018-13-01", "2018-12-31"]})), "'2018-13-01' is not a date"),
        (p(json!({"period": "2018"})), "mv[0].period must be a [start, end] pair"),
        (json!([{"class": "M", "method": "backcast"}]), "needs both a period and a reporting_period"),
    ] {
        let e = err(bad.clone());
        assert!(e.contains(says), "{bad}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let sec = MvSection::from_value(Some(&json!([{"class": "M"}]))).unwrap().unwrap();
    assert!(super::run::check_units(&sec, Some(UnitSystem::Si))
        .unwrap_err()
        .contains("does not name its meter's rate unit"));
    assert!(super::run::check_units(&sec, None).is_ok());
}

#[test]
fn triggers_and_the_run_over_meters() {
    let start = days_from_civil(2020, 1, 1);
    // a 30 % step on 2021-07-01 nobody declared
    let step = days_from_civil(2021, 7, 1);
    let f = hourly(start, 731, |d, t| {
        let base = 500.0 + 12.0 * (t - 60.0).max(0.0) + 10.0 * noise(d as usize);
        if d >= step {
            base * 0.7
        } else {
            base
        }
    });
    let e = json!([{"class": "CHILLEDWATER_METER", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "forecast",
        "rebaseline": {"events": [{"date": "2021-03-01", "description": "new chiller", "magnitude": "minor"}], "static_factors": [{"factor": "floor area", "baseline_value": 1000, "value": 1200, "date": "2021-02-01"}]}}]);
    let sec = MvSection::from_value(Some(&e)).unwrap().unwrap();
    let other = Frame::default();
    let meters = [
        Meter { name: "CHW-1", class: "CHILLEDWATER_METER", frame: &f },
        Meter { name: "EL-1", class: "ELECTRICITY_METER", frame: &other },
    ];
    let out = run(&sec, &meters, None);
    assert_eq!(out.meters, vec!["CHW-1".to_string()]);
    let ids: Vec<&str> =
        out.results.iter().filter(|r| r.kind == "mv_trigger").map(|r| r.metrics["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"T1") && ids.contains(&"T2") && ids.contains(&"T3"), "{ids:?}");
    let t1 = out.results.iter().find(|r| r.kind == "mv_trigger" && r.metrics["id"] == json!("T1")).unwrap();
    let day = camber_common::time::ns_from_iso(t1.metrics["date"].as_str().unwrap()).unwrap().div_euclid(NS_PER_DAY);
    assert!((day - step).abs() <= 3, "the step is dated {}", t1.metrics["date"]);
    assert_eq!(t1.metrics["outcome"], json!("rebaseline"));
    assert!(out.declined.is_empty());
    // no step and no events: no trigger
    let calm = hourly(start, 731, |d, t| 500.0 + 12.0 * (t - 60.0).max(0.0) + 10.0 * noise(d as usize));
    let sec2 = MvSection::from_value(Some(&json!([{"class": "C", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "rebaseline": {}}]))).unwrap().unwrap();
    let out2 = run(&sec2, &[Meter { name: "C-1", class: "C", frame: &calm }], None);
    assert!(
        out2.results.iter().all(|r| r.kind != "mv_trigger"),
        "{:?}",
        out2.results.iter().map(|r| &r.finding.summary).collect::<Vec<_>>()
    );
}

/// Two years of hourly data through baseline, savings and uncertainty; prints the time (run
/// with `cargo test --release -p camber-analytics --lib mv::tests::timing -- --ignored --nocapture`).
#[test]
#[ignore]
fn timing_two_years_hourly() {
    let start = days_from_civil(2020, 1, 1);
    let f = hourly(start, 731, |d, t| {
        500.0 + 7.0 * (45.0 - t).max(0.0) + 12.0 * (t - 65.0).max(0.0) + 15.0 * noise(d as usize)
    });
    let e = entry(
        json!({"class": "M", "period": ["2020-01-01", "2020-12-31"], "reporting_period": ["2021-01-01", "2021-12-31"], "method": "forecast"}),
    );
    let t0 = std::time::Instant::now();
    let mut r = Vec::new();
    for _ in 0..10 {
        r = run_meter(&e, 0, "m", &f, None);
    }
    let per = t0.elapsed().as_secs_f64() * 100.0;
    println!("two years hourly ({} samples): {per:.2} ms per meter; {}", f.ts.len(), r[1].finding.summary);
    assert_eq!(r.len(), 2);
}

/// The comparison with the reference: reads the CSV `scripts/mv-reference.py` writes (the path
/// in `MV_REFERENCE_CSV`) and prints this engine's figures on the same meter, for the JSON the
/// script prints (`cargo test --release -p camber-analytics --lib mv::tests::reference_csv --
/// --ignored --nocapture`).
#[test]
#[ignore]
fn reference_csv() {
    let Ok(path) = std::env::var("MV_REFERENCE_CSV") else {
        println!("set MV_REFERENCE_CSV to the CSV scripts/mv-reference.py wrote");
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let (mut ts, mut e, mut o) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        ts.push(camber_common::time::ns_from_iso(f[0]).unwrap());
        e.push(f[2].parse::<f64>().unwrap());
        o.push(f[3].parse::<f64>().unwrap());
    }
    let frame = Frame::from_rows(&ts, &[("energy_rate", e), ("oat", o)]);
    for kernel in ["g14", "exact"] {
        let en = entry(
            json!({"class": "M", "period": ["2022-01-01", "2022-12-31"], "reporting_period": ["2023-01-01", "2023-12-31"], "method": "forecast", "kernel": kernel}),
        );
        let r = run_meter(&en, 0, "CHW-METER-1", &frame, None);
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"kernel": kernel, "mv_baseline": r[0].metrics, "mv_savings": r[1].metrics})
            )
            .unwrap()
        );
        assert_eq!(r.len(), 2);
    }
}
