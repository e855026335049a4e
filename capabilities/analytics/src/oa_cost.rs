//! What excess outdoor air costs, measured where the outdoor-air fraction rule judges it: the
//! energy the coil spends on the outdoor air above the design minimum, per cfm of supply air
//! (and in kBtu when the unit trends a usable supply airflow), over the samples the verdict
//! judged. The RCx report's cost model (`rcx::cost`) annualises and prices these sums; they are
//! never part of the verdict.
//!
//! A sample carries excess when its fraction is above the minimum by more than the rule's
//! margin (so noise at the minimum is not priced); the excess is `e = (OAF - min) / 100` of the
//! supply air. Each such sample is read for what the extra air does:
//!
//! - **heating**: outdoor air colder than the return while the unit heats (its heating valve
//!   above 5 %, else supply air more than 2 °F above mixed air): the coil heats the excess,
//!   `1.08 e (RAT - OAT)` Btu/h per cfm, no more than the coil's own measured rise
//!   `1.08 (SAT - MAT)` when both are trended;
//! - **cooling**: outdoor air carrying more enthalpy than the return (with both humidities, or
//!   the return's dew point, trended), else warmer than it: `4.5 e (h_OA - h_RA)` or
//!   `1.08 e (OAT - RAT)` Btu/h per cfm;
//! - **economizing**: colder outdoor air while the unit does not heat: free cooling, no cost;
//! - **not judged**: colder outdoor air on a unit that shows neither a heating valve nor supply
//!   and mixed air, so heating cannot be told from economizing.
//!
//! 1.08 and 4.5 are the standard-air factors (Btu/h per cfm per °F, and per Btu/lb).

use std::collections::BTreeMap;

use crate::engine::{median, Frame};
use crate::psychro::{enthalpy_btu_lb, humidity_ratio, humidity_ratio_from_dew_point, SEA_LEVEL_PSIA};

/// Btu/h per cfm per °F of sensible change, and per Btu/lb of enthalpy change (standard air).
pub const SENSIBLE_BTUH_PER_CFM_F: f64 = 1.08;
pub const ENTHALPY_BTUH_PER_CFM: f64 = 4.5;
/// A heating valve above this (%) heats; with no valve, supply air this much (°F) above the
/// mixed air does (more than the fan adds).
const HEATING_VALVE_PCT: f64 = 5.0;
const HEATING_RISE_F: f64 = 2.0;
/// A trended airflow whose 95th percentile is at or below this (cfm) is a percent signal, not
/// an airflow.
pub const MIN_PLAUSIBLE_CFM: f64 = 100.0;
/// Share of the priced samples a trended airflow must cover to price them in kBtu.
const MIN_AIRFLOW_COVER: f64 = 0.9;

/// One judged sample: its index in the frame, its outdoor-air fraction and its minimum (%).
pub type Judged = (usize, f64, f64);

/// The `oa_cost_*` metrics of the judged samples (`margin` in percentage points).
pub fn metrics(frame: &Frame, judged: &[Judged], margin: f64) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    let (Some(oat), Some(rat)) = (frame.col("oat"), frame.col("return_air_temp")) else { return out };
    let (mat, sat, hv) = (frame.col("mixed_air_temp"), frame.col("supply_air_temp"), frame.col("heat_valve"));
    let w = frame.weights_hours();
    fn known(c: Option<&[f64]>) -> Option<&[f64]> {
        c.filter(|c| c.iter().any(|v| !v.is_nan()))
    }
    // whether the unit heats at a sample (None: cannot tell)
    let heating = |i: usize| -> Option<bool> {
        if let Some(h) = known(hv) {
            return (!h[i].is_nan()).then(|| h[i] > HEATING_VALVE_PCT);
        }
        match (known(sat), mat) {
            (Some(s), Some(m)) if !s[i].is_nan() && !m[i].is_nan() => Some(s[i] > m[i] + HEATING_RISE_F),
            _ => None,
        }
    };
    let (oa_rh, ra_rh, ra_dp) =
        (frame.col("outdoor_rh"), frame.col("return_air_humidity"), frame.col("return_air_dewpoint_temp"));
    let enthalpies = |i: usize| -> Option<(f64, f64)> {
        let w_oa = humidity_ratio(oat[i], oa_rh?[i], SEA_LEVEL_PSIA);
        let w_ra = match (known(ra_rh), ra_dp) {
            (Some(rh), _) => humidity_ratio(rat[i], rh[i], SEA_LEVEL_PSIA),
            (None, Some(dp)) if !dp[i].is_nan() => humidity_ratio_from_dew_point(dp[i], SEA_LEVEL_PSIA),
            _ => f64::NAN,
        };
        let (h_oa, h_ra) = (enthalpy_btu_lb(oat[i], w_oa), enthalpy_btu_lb(rat[i], w_ra));
        (h_oa.is_finite() && h_ra.is_finite()).then_some((h_oa, h_ra))
    };
    // (index, Btu/h per cfm of cooling, of heating)
    let mut priced: Vec<(usize, f64, f64)> = Vec::new();
    let (mut cool_h, mut heat_h, mut econ_h, mut unjudged_h, mut by_enthalpy) = (0.0, 0.0, 0.0, 0.0, 0usize);
    for &(i, oaf, min) in judged {
        if oaf <= min + margin {
            continue;
        }
        let e = crate::engine::max_of((oaf - min) / 100.0, 0.0);
        let cold = oat[i] < rat[i];
        let heats = heating(i);
        if cold && heats == Some(true) {
            let mut rise = e * (rat[i] - oat[i]);
            if let (Some(s), Some(m)) = (sat, mat) {
                if !s[i].is_nan() && !m[i].is_nan() {
                    rise = crate::engine::min_of(rise, crate::engine::max_of(s[i] - m[i], 0.0));
                }
            }
            priced.push((i, 0.0, SENSIBLE_BTUH_PER_CFM_F * rise));
            heat_h += w[i];
            continue;
        }
        let h = enthalpies(i);
        let warmer = match h {
            Some((h_oa, h_ra)) => h_oa > h_ra,
            None => oat[i] > rat[i],
        };
        if warmer {
            let rate = match h {
                Some((h_oa, h_ra)) => {
                    by_enthalpy += 1;
                    ENTHALPY_BTUH_PER_CFM * e * (h_oa - h_ra)
                }
                None => SENSIBLE_BTUH_PER_CFM_F * e * (oat[i] - rat[i]),
            };
            priced.push((i, rate, 0.0));
            cool_h += w[i];
        } else if cold && heats == Some(false) {
            econ_h += w[i];
        } else if cold {
            unjudged_h += w[i];
        }
    }
    let observed: f64 = (0..frame.len())
        .filter(|&i| !oat[i].is_nan() && !rat[i].is_nan() && mat.is_some_and(|m| !m[i].is_nan()))
        .map(|i| w[i])
        .sum();
    let per_cfm = |k: usize| priced.iter().map(|p| if k == 0 { p.1 } else { p.2 } * w[p.0]).sum::<f64>();
    out.insert("oa_cost_observed_h".into(), round(observed, 2));
    out.insert("oa_cost_margin_pct".into(), margin);
    out.insert("oa_cost_excess_cool_btu_per_cfm".into(), round(per_cfm(0), 3));
    out.insert("oa_cost_excess_heat_btu_per_cfm".into(), round(per_cfm(1), 3));
    out.insert("oa_cost_cool_h".into(), round(cool_h, 2));
    out.insert("oa_cost_heat_h".into(), round(heat_h, 2));
    out.insert("oa_cost_economizing_h".into(), round(econ_h, 2));
    out.insert("oa_cost_heat_unjudged_h".into(), round(unjudged_h, 2));
    out.insert("oa_cost_cool_by_enthalpy".into(), f64::from(u8::from(by_enthalpy > 0)));
    out.insert(
        "oa_cost_heat_judged".into(),
        f64::from(u8::from(known(hv).is_some() || (known(sat).is_some() && mat.is_some()))),
    );
    // the trended supply airflow, when it is one (a plausible size) and covers what is priced
    if let (Some(flow), false) = (frame.col("airflow"), priced.is_empty()) {
        let mut positive: Vec<f64> = flow.iter().copied().filter(|v| *v > 0.0).collect();
        positive.sort_by(f64::total_cmp);
        let p95 = positive.get(((positive.len() as f64 - 1.0) * 0.95).round().max(0.0) as usize).copied();
        let at: Vec<f64> = priced.iter().map(|p| flow[p.0]).filter(|v| *v > 0.0).collect();
        let cover = at.len() as f64 / priced.len() as f64;
        if p95.is_some_and(|p| p > MIN_PLAUSIBLE_CFM) && cover >= MIN_AIRFLOW_COVER {
            let fill = median(&mut at.clone());
            let cfm = |i: usize| if flow[i] > 0.0 { flow[i] } else { fill };
            let kbtu =
                |k: usize| priced.iter().map(|p| if k == 0 { p.1 } else { p.2 } * cfm(p.0) * w[p.0]).sum::<f64>() / 1e3;
            out.insert("oa_cost_excess_cool_kbtu".into(), round(kbtu(0), 3));
            out.insert("oa_cost_excess_heat_kbtu".into(), round(kbtu(1), 3));
        }
    }
    out
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, H, MONDAY};

    /// `n` hourly samples at the given conditions.
    fn frame(n: usize, cols: &[(&str, f64)]) -> Frame {
        let ts = every(MONDAY, H, n);
        let cols: Vec<(&str, Vec<f64>)> = cols.iter().map(|(r, v)| (*r, vec![*v; n])).collect();
        Frame::from_rows(&ts, &cols)
    }

    fn all(n: usize, oaf: f64, min: f64) -> Vec<Judged> {
        (0..n).map(|i| (i, oaf, min)).collect()
    }

    #[test]
    fn hot_outdoor_air_above_the_minimum_costs_cooling() {
        // 10 h at 40 % against a 20 % minimum, outdoor air 90 °F, return 75 °F: sensible
        let f = frame(10, &[("oat", 90.0), ("return_air_temp", 75.0), ("mixed_air_temp", 81.0)]);
        let m = metrics(&f, &all(10, 40.0, 20.0), 5.0);
        let per_h = 1.08 * 0.2 * 15.0;
        assert!((m["oa_cost_excess_cool_btu_per_cfm"] - 10.0 * per_h).abs() < 1e-6, "{m:?}");
        assert_eq!((m["oa_cost_cool_h"], m["oa_cost_heat_h"], m["oa_cost_observed_h"]), (10.0, 0.0, 10.0));
        assert_eq!(m["oa_cost_cool_by_enthalpy"], 0.0);
        assert!(!m.contains_key("oa_cost_excess_cool_kbtu"), "no airflow trended");
        // within the margin of the minimum: nothing priced
        let m = metrics(&f, &all(10, 24.0, 20.0), 5.0);
        assert_eq!(m["oa_cost_excess_cool_btu_per_cfm"], 0.0);
    }

    #[test]
    fn humid_outdoor_air_is_priced_by_enthalpy_and_a_trended_airflow_gives_kbtu() {
        // 78 °F outdoor air at 80 % against 75 °F return air at 45 %: more enthalpy, though
        // barely warmer
        let cols = [
            ("oat", 78.0),
            ("outdoor_rh", 80.0),
            ("return_air_temp", 75.0),
            ("return_air_humidity", 45.0),
            ("mixed_air_temp", 76.0),
            ("airflow", 10_000.0),
        ];
        let f = frame(4, &cols);
        let m = metrics(&f, &all(4, 50.0, 20.0), 5.0);
        let dh = enthalpy_btu_lb(78.0, humidity_ratio(78.0, 80.0, SEA_LEVEL_PSIA))
            - enthalpy_btu_lb(75.0, humidity_ratio(75.0, 45.0, SEA_LEVEL_PSIA));
        let per_cfm = 4.0 * 4.5 * 0.3 * dh;
        assert!((m["oa_cost_excess_cool_btu_per_cfm"] - per_cfm).abs() < 0.01, "{m:?} {per_cfm}");
        assert!((m["oa_cost_excess_cool_kbtu"] - per_cfm * 10.0).abs() < 0.1, "{m:?}");
        assert_eq!(m["oa_cost_cool_by_enthalpy"], 1.0);
    }

    #[test]
    fn cold_outdoor_air_costs_heating_only_while_the_unit_heats() {
        let base = [("oat", 30.0), ("return_air_temp", 70.0), ("mixed_air_temp", 58.0), ("supply_air_temp", 62.0)];
        // the valve open: heating, no more than the coil's own 4 °F rise
        let mut heats = base.to_vec();
        heats.push(("heat_valve", 40.0));
        let m = metrics(&frame(5, &heats), &all(5, 30.0, 10.0), 5.0);
        assert!((m["oa_cost_excess_heat_btu_per_cfm"] - 5.0 * 1.08 * 4.0).abs() < 1e-9, "{m:?}");
        assert_eq!(m["oa_cost_heat_h"], 5.0);
        // the valve shut: economizing, free
        let mut econ = base.to_vec();
        econ.push(("heat_valve", 0.0));
        let m = metrics(&frame(5, &econ), &all(5, 30.0, 10.0), 5.0);
        assert_eq!((m["oa_cost_excess_heat_btu_per_cfm"], m["oa_cost_economizing_h"]), (0.0, 5.0));
        // neither a valve nor a supply temperature: not judged
        let m = metrics(&frame(5, &base[..3]), &all(5, 30.0, 10.0), 5.0);
        assert_eq!((m["oa_cost_heat_unjudged_h"], m["oa_cost_heat_judged"]), (5.0, 0.0));
    }

    #[test]
    fn an_airflow_that_is_a_percent_or_too_patchy_gives_no_kbtu() {
        let f = frame(10, &[("oat", 90.0), ("return_air_temp", 75.0), ("mixed_air_temp", 81.0), ("airflow", 80.0)]);
        assert!(!metrics(&f, &all(10, 40.0, 20.0), 5.0).contains_key("oa_cost_excess_cool_kbtu"));
        let mut f =
            frame(10, &[("oat", 90.0), ("return_air_temp", 75.0), ("mixed_air_temp", 81.0), ("airflow", 5000.0)]);
        for v in f.cols.get_mut("airflow").unwrap().iter_mut().take(2) {
            *v = f64::NAN;
        }
        assert!(!metrics(&f, &all(10, 40.0, 20.0), 5.0).contains_key("oa_cost_excess_cool_kbtu"), "80 % covered");
    }
}
