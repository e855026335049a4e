//! Psychrometrics the rules share: the site's barometric pressure, the thermodynamic wet
//! bulb of outdoor air from its temperature and humidity, and moist air's humidity ratio and
//! enthalpy in IP units (what an excess of outdoor air costs a cooling coil).

/// Saturation vapour pressure over water, kPa, at `t` °C (Magnus form).
fn p_sat(t: f64) -> f64 {
    0.61094 * (17.625 * t / (t + 243.04)).exp()
}

/// The site's pressure in kPa: from `psia` when set (above 0), else from the elevation (ft;
/// unset is sea level) by the standard atmosphere.
pub fn site_pressure_kpa(psia: f64, elevation_ft: f64) -> f64 {
    if psia > 0.0 {
        return psia * 6.894_757;
    }
    let z = if elevation_ft.is_nan() { 0.0 } else { elevation_ft * 0.3048 };
    101.325 * (1.0 - 2.255_77e-5 * z).powf(5.2559)
}

/// The thermodynamic wet bulb (°F) of air at `t_f` °F and `rh` % at pressure `p_kpa`, by
/// bisection on the psychrometric energy balance.
pub fn wet_bulb_f(t_f: f64, rh: f64, p_kpa: f64) -> f64 {
    let t = (t_f - 32.0) / 1.8;
    let pw = (rh.clamp(0.0, 100.0) / 100.0) * p_sat(t);
    let w = 0.621945 * pw / (p_kpa - pw);
    let w_of = |twb: f64| {
        let ws = 0.621945 * p_sat(twb) / (p_kpa - p_sat(twb));
        ((2501.0 - 2.326 * twb) * ws - 1.006 * (t - twb)) / (2501.0 + 1.86 * t - 4.186 * twb)
    };
    let (mut lo, mut hi) = (-40.0f64, t);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if w_of(mid) > w {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    ((lo + hi) / 2.0) * 1.8 + 32.0
}

/// The wet-bulb column of a frame: the measured point where it has a value, else derived from
/// `oat` and `outdoor_rh`; `None` when the frame has neither source.
pub fn wet_bulb_column(frame: &crate::Frame, p_kpa: f64) -> Option<(Vec<f64>, bool)> {
    let measured = frame.col("wetbulb_temp");
    let (oat, rh) = (frame.col("oat"), frame.col("outdoor_rh"));
    if measured.is_none() && (oat.is_none() || rh.is_none()) {
        return None;
    }
    let derived = measured.is_none();
    let col = (0..frame.len())
        .map(|i| match measured {
            Some(m) if !m[i].is_nan() => m[i],
            _ => match (oat, rh) {
                (Some(o), Some(h)) if !o[i].is_nan() && !h[i].is_nan() => wet_bulb_f(o[i], h[i], p_kpa),
                _ => f64::NAN,
            },
        })
        .collect();
    Some((col, derived))
}

/// The two parameters that set the site's pressure, for rules that derive a wet bulb.
pub fn site_params() -> [crate::ParamSpec; 2] {
    [
        crate::ParamSpec::number(
            "elevation_ft",
            f64::NAN,
            "ft (unset: sea level)",
            (-300.0, 10000.0),
            "a wet bulb derived at sea-level pressure reads high at altitude",
            "Set the site's elevation when the wet bulb is derived from temperature and humidity.",
        ),
        crate::ParamSpec::number(
            "pressure_psia",
            f64::NAN,
            "psia (unset: from the elevation)",
            (10.0, 15.5),
            "the site's barometric pressure, when known, beats one derived from elevation",
            "Leave it unset to derive it from elevation_ft; set the site's barometric pressure when it is known.",
        ),
    ]
}

/// The wet-bulb column (and whether it is derived) at the pressure the rule's site parameters
/// give, with that pressure in kPa. The rule declares the wet bulb's sources as needed gating
/// alternatives (`wetbulb_temp` else `oat+outdoor_rh`), so the engine has checked one is there.
pub fn site_wet_bulb(spec: &crate::RuleSpec, frame: &crate::Frame, params: &crate::Params) -> (Vec<f64>, bool, f64) {
    let p_kpa = site_pressure_kpa(params.number(spec, "pressure_psia"), params.number(spec, "elevation_ft"));
    let (col, derived) = wet_bulb_column(frame, p_kpa)
        .expect("the engine checks the wet bulb's sources (gating, needed) before the rule runs");
    (col, derived, p_kpa)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wet_bulbs() {
        // 86 °F at 50 % RH at sea level: a wet bulb near 71.6 °F
        let wb = wet_bulb_f(86.0, 50.0, 101.325);
        assert!((wb - 71.6).abs() < 0.5, "{wb}");
        // saturated air: the wet bulb is the dry bulb
        assert!((wet_bulb_f(70.0, 100.0, 101.325) - 70.0).abs() < 0.1);
        // drier air at altitude has a lower wet bulb
        assert!(wet_bulb_f(86.0, 50.0, site_pressure_kpa(0.0, 5000.0)) < wb);
        assert!((site_pressure_kpa(14.696, 0.0) - 101.325).abs() < 0.01);
    }
}

/// Saturation vapour pressure (psia) at `t_f` °F: over water at or above freezing, over ice
/// below, by the Hyland-Wexler correlations of the ASHRAE Handbook, Fundamentals.
pub fn saturation_psia(t_f: f64) -> f64 {
    let t = t_f + 459.67;
    let ln = if t_f >= 32.0 {
        -1.044_039_7e4 / t - 1.129_465_0e1 - 2.702_235_5e-2 * t + 1.289_036_0e-5 * t * t - 2.478_068_1e-9 * t * t * t
            + 6.545_967_3 * t.ln()
    } else {
        -1.021_416_5e4 / t - 4.893_242_8 - 5.376_579_4e-3 * t + 1.920_237_7e-7 * t * t + 3.557_583_2e-10 * t * t * t
            - 9.034_468_8e-14 * t * t * t * t
            + 4.163_501_9 * t.ln()
    };
    ln.exp()
}

/// Standard sea-level pressure, psia.
pub const SEA_LEVEL_PSIA: f64 = 14.696;

/// Humidity ratio (lb of water per lb of dry air) of air at `t_f` °F and `rh` % (NaN outside
/// 0-100 %), at `p_psia`.
pub fn humidity_ratio(t_f: f64, rh: f64, p_psia: f64) -> f64 {
    if !(0.0..=100.0).contains(&rh) {
        return f64::NAN;
    }
    let pw = rh / 100.0 * saturation_psia(t_f);
    0.621_945 * pw / (p_psia - pw)
}

/// Humidity ratio of air whose dew point is `dp_f` °F.
pub fn humidity_ratio_from_dew_point(dp_f: f64, p_psia: f64) -> f64 {
    let pw = saturation_psia(dp_f);
    0.621_945 * pw / (p_psia - pw)
}

/// Moist air's enthalpy (Btu per lb of dry air) at `t_f` °F and humidity ratio `w`.
pub fn enthalpy_btu_lb(t_f: f64, w: f64) -> f64 {
    0.240 * t_f + w * (1061.0 + 0.444 * t_f)
}

/// Enthalpy (Btu per lb of dry air) of saturated air at `t_f` °F and `p_psia`.
pub fn saturated_enthalpy(t_f: f64, p_psia: f64) -> f64 {
    enthalpy_btu_lb(t_f, humidity_ratio(t_f, 100.0, p_psia))
}

/// A cooling tower's Merkel number KaV/L: the transfer units its fill gave water cooled from
/// `hot_f` to `cold_f` °F by air entering at `wet_bulb_f` °F, at water-to-air mass ratio `lg`
/// (CTI ATC-105's four-point Chebyshev integration of dT over the enthalpy driving force, the
/// air's enthalpy rising by `lg` Btu/lb per °F the water falls). NaN when the driving force
/// is not positive at every point (the water could not have been cooled that far) or the
/// range is not positive. At a given `lg` a tower's Merkel number is a property of its fill:
/// a healthy tower delivers its design figure in any weather, a degraded one less.
pub fn merkel_number(hot_f: f64, cold_f: f64, wet_bulb_f: f64, lg: f64, p_psia: f64) -> f64 {
    let range = hot_f - cold_f;
    if range.is_nan() || range <= 0.0 || lg.is_nan() || lg <= 0.0 || wet_bulb_f.is_nan() {
        return f64::NAN;
    }
    let h_in = saturated_enthalpy(wet_bulb_f, p_psia);
    let mut sum = 0.0;
    for share in [0.1, 0.4, 0.6, 0.9] {
        let t = cold_f + share * range;
        let force = saturated_enthalpy(t, p_psia) - (h_in + lg * share * range);
        if force.is_nan() || force <= 0.0 {
            return f64::NAN;
        }
        sum += 1.0 / force;
    }
    range / 4.0 * sum
}

#[cfg(test)]
mod ip_tests {
    use super::*;

    #[test]
    fn merkel_numbers_of_typical_selections() {
        let p = SEA_LEVEL_PSIA;
        // a 10 °F range and 7 °F approach at 78 °F wet bulb with L/G 1.0: a common selection,
        // about 1.2-1.6 transfer units by the CTI charts
        let k = merkel_number(95.0, 85.0, 78.0, 1.0, p);
        assert!((1.0..1.8).contains(&k), "{k}");
        // a closer approach needs more fill; a wider one less
        assert!(merkel_number(93.0, 83.0, 78.0, 1.0, p) > merkel_number(97.0, 87.0, 78.0, 1.0, p));
        // more water per unit air needs more fill for the same temperatures
        assert!(merkel_number(95.0, 85.0, 78.0, 1.3, p) > k);
        // water cannot be cooled below what the air can take: no number
        assert!(merkel_number(95.0, 79.0, 78.0, 2.5, p).is_nan());
        assert!(merkel_number(85.0, 85.0, 78.0, 1.0, p).is_nan());
    }

    #[test]
    fn saturation_humidity_and_enthalpy_match_the_handbook_tables() {
        // ASHRAE Fundamentals' table: 0.5073 psia at 80 °F, 0.08859 at 32 °F, 0.01882 at 0 °F
        assert!((saturation_psia(80.0) - 0.5073).abs() < 0.001, "{}", saturation_psia(80.0));
        assert!((saturation_psia(32.0) - 0.08859).abs() < 0.0005);
        assert!((saturation_psia(0.0) - 0.01882).abs() < 0.0005);
        // 75 °F at 50 %: W about 0.0093, h about 28.1 Btu/lb
        let w = humidity_ratio(75.0, 50.0, SEA_LEVEL_PSIA);
        assert!((w - 0.0093).abs() < 0.0002, "{w}");
        assert!((enthalpy_btu_lb(75.0, w) - 28.1).abs() < 0.3);
        assert!(humidity_ratio(75.0, 120.0, SEA_LEVEL_PSIA).is_nan());
        // saturated air's dew point is its own temperature
        assert!(
            (humidity_ratio_from_dew_point(60.0, SEA_LEVEL_PSIA) - humidity_ratio(60.0, 100.0, SEA_LEVEL_PSIA)).abs()
                < 1e-12
        );
    }
}
