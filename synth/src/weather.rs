//! Site weather: a seasonal mean, a skewed daily cycle whose size follows cloudiness, slow
//! weather fronts that move temperature and moisture together, and red noise. One minute
//! resolution; every equipment of a dataset sees the same site weather.

use crate::rng::{Ar1, Rng};
use std::f64::consts::PI;

/// Per-minute outdoor conditions over a span (spin-up included).
pub struct Weather {
    /// Outdoor dry-bulb, °F.
    pub oat: Vec<f64>,
    /// Outdoor relative humidity, %.
    pub rh: Vec<f64>,
    /// Outdoor wet-bulb, °F (only filled when asked for).
    pub wb: Vec<f64>,
    /// Cloudiness of each day, 0 (clear) to 1 (overcast); index = day from the span start.
    pub cloud: Vec<f64>,
}

fn f_to_c(f: f64) -> f64 {
    (f - 32.0) / 1.8
}

fn c_to_f(c: f64) -> f64 {
    c * 1.8 + 32.0
}

/// Relative humidity (%) from dry-bulb and dew point (°F), Magnus form.
pub fn rh_from_dew(t_f: f64, td_f: f64) -> f64 {
    let (t, td) = (f_to_c(t_f), f_to_c(td_f));
    let g = |x: f64| (17.625 * x / (243.04 + x)).exp();
    (100.0 * g(td) / g(t)).clamp(1.0, 100.0)
}

/// Wet-bulb (°F) from dry-bulb (°F) and RH (%), Stull's 2011 fit (good to about 1 °F).
pub fn wetbulb(t_f: f64, rh: f64) -> f64 {
    let t = f_to_c(t_f);
    let rh = rh.clamp(5.0, 99.0);
    let tw = t * (0.151977 * (rh + 8.313659).sqrt()).atan() + (t + rh).atan() - (rh - 1.676331).atan()
        + 0.00391838 * rh.powf(1.5) * (0.023101 * rh).atan()
        - 4.686035;
    c_to_f(tw).min(t_f)
}

/// Seasonal mean dry-bulb (°F) for a day of year (0 = Jan 1) in a humid temperate climate.
fn seasonal_mean(doy: f64) -> f64 {
    55.0 - 24.0 * (2.0 * PI * (doy - 19.0) / 365.25).cos()
}

/// Daily cycle shape in [-1, 1]: minimum at 06:00, maximum at 15:00.
pub fn diurnal_shape(hour: f64) -> f64 {
    let h = hour.rem_euclid(24.0);
    if (6.0..15.0).contains(&h) {
        -(PI * (h - 6.0) / 9.0).cos()
    } else {
        let x = if h >= 15.0 { h - 15.0 } else { h + 9.0 };
        (PI * x / 15.0).cos()
    }
}

/// Slow anomaly built from random anchors a few days apart, joined by cosine interpolation.
struct Fronts {
    times: Vec<f64>,
    temp: Vec<f64>,
    dew: Vec<f64>,
}

impl Fronts {
    fn new(total_min: f64, rng: &mut Rng) -> Fronts {
        let (mut times, mut temp, mut dew) = (Vec::new(), Vec::new(), Vec::new());
        let mut t = -rng.range(0.0, 2.0 * 1440.0);
        loop {
            let a = 5.5 * rng.normal();
            times.push(t);
            temp.push(a);
            dew.push(0.7 * a + 3.0 * rng.normal());
            if t > total_min {
                break;
            }
            t += rng.range(1.8, 4.5) * 1440.0;
        }
        Fronts { times, temp, dew }
    }

    /// (temperature anomaly, dew-point anomaly) at minute `t`; `k` is a cursor that only moves
    /// forward so the lookup stays O(1) per minute.
    fn at(&self, t: f64, k: &mut usize) -> (f64, f64) {
        while *k + 2 < self.times.len() && self.times[*k + 1] <= t {
            *k += 1;
        }
        let (t0, t1) = (self.times[*k], self.times[*k + 1]);
        let x = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        let w = 0.5 - 0.5 * (PI * x).cos();
        (self.temp[*k] * (1.0 - w) + self.temp[*k + 1] * w, self.dew[*k] * (1.0 - w) + self.dew[*k + 1] * w)
    }
}

impl Weather {
    /// Weather for `total_min` minutes starting at day-of-year `start_doy` (0-based, 00:00).
    /// `want_wetbulb` also fills `wb`.
    pub fn new(seed: u64, start_doy: u32, total_min: usize, want_wetbulb: bool) -> Weather {
        let mut rng = Rng::stream(seed, "site", "weather");
        let days = total_min.div_ceil(1440) + 1;
        let cloud: Vec<f64> = (0..days).map(|_| rng.uniform().powf(0.8)).collect();
        let fronts = Fronts::new(total_min as f64, &mut rng);
        let mut noise = Ar1::new(0.9, 50.0, 1.0, &mut rng);
        let mut dew_noise = Ar1::new(1.2, 180.0, 1.0, &mut rng);
        let mut oat = Vec::with_capacity(total_min);
        let mut rh = Vec::with_capacity(total_min);
        let mut wb = Vec::with_capacity(if want_wetbulb { total_min } else { 0 });
        let mut k = 0usize;
        for m in 0..total_min {
            let day = m / 1440;
            let hour = (m % 1440) as f64 / 60.0;
            let doy = (start_doy as f64 + m as f64 / 1440.0) % 365.25;
            let c = cloud[day];
            let amp = 10.5 - 5.5 * c;
            let (ft, fd) = fronts.at(m as f64, &mut k);
            let t = seasonal_mean(doy) + amp * diurnal_shape(hour) + ft + noise.step(&mut rng);
            // Dew point follows the season and the air mass, barely the daily cycle.
            let td = (seasonal_mean(doy) - 11.0 + 2.0 * c + fd + dew_noise.step(&mut rng)).min(t - 0.5);
            let r = rh_from_dew(t, td);
            oat.push(t);
            rh.push(r);
            if want_wetbulb {
                wb.push(wetbulb(t, r));
            }
        }
        Weather { oat, rh, wb, cloud }
    }

    /// Clear-sky-weighted solar intensity 0..1 at minute `m` (sunrise 06:00, sunset 20:00),
    /// shifted by `peak_hour` for a facade (12 = flat/south).
    pub fn solar(&self, m: usize, peak_hour: f64) -> f64 {
        let hour = (m % 1440) as f64 / 60.0;
        if !(6.0..20.0).contains(&hour) {
            return 0.0;
        }
        let c = self.cloud[m / 1440];
        let width = 5.0;
        let x = (hour - peak_hour) / width;
        let shape = if x.abs() >= 1.0 { 0.0 } else { (0.5 * PI * x).cos().powi(2) };
        shape * (1.0 - 0.75 * c)
    }
}
