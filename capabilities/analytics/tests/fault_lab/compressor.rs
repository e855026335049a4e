//! A packaged DX unit's compressor under its thermostat: a room whose heat gains follow the sun,
//! the weather and the people, cooled by an on-off compressor with a differential and minimum
//! run and off timers.

use super::kit::{Building, Case, Lab, Season};

/// How a unit's compressor is sized and held.
struct Thermostat {
    /// Capacity as a multiple of the room's peak heat gain.
    oversize: f64,
    /// Differential about the setpoint (°F).
    band: f64,
    /// Minimum run and off times (minutes).
    min_on: usize,
    min_off: usize,
}

/// Two summer weeks of a rooftop unit. Healthy: sized about 1.4 times the peak gain with a 3 °F
/// differential and 10-minute timers, so it runs in long cycles. Faulty: a unit three times too
/// big on a 1 °F differential with 3-minute timers, which starts every few minutes all day.
fn rooftop(step: usize, faulty: bool) -> Building {
    let lab = Lab::new("compressor_short_cycle", Season::Summer, 14, step);
    let t = if faulty {
        Thermostat { oversize: 3.0, band: 1.0, min_on: 3, min_off: 3 }
    } else {
        Thermostat { oversize: 1.4, band: 3.0, min_on: 10, min_off: 10 }
    };
    let gain_noise = lab.red("RTU-1", "gains", 0.08, 45.0);
    let (mut temp, mut on, mut since) = (74.0_f64, false, 0usize);
    let (mut status, mut space) = (Vec::with_capacity(lab.minutes), Vec::with_capacity(lab.minutes));
    for (m, noise) in gain_noise.iter().enumerate() {
        let occ = lab.occupied(m);
        // gains as a share of the peak: envelope with the outdoor air, the sun by day, people
        let sun = (std::f64::consts::PI * (lab.hour(m) - 6.0) / 13.0).sin().max(0.0);
        let gain = (0.35 * ((lab.oat(m) - 65.0) / 30.0).max(0.0) + 0.25 * sun + if occ { 0.35 } else { 0.05 } + noise)
            .max(0.0);
        let sp = if occ { 74.0 } else { 82.0 };
        since += 1;
        if on && temp < sp - t.band / 2.0 && since >= t.min_on {
            on = false;
            since = 0;
        } else if !on && temp > sp + t.band / 2.0 && since >= t.min_off {
            on = true;
            since = 0;
        }
        // a room of 1.5 h time constant at peak gain: 1 °F per 6 minutes uncooled at the peak
        let cooling = if on { t.oversize } else { 0.0 };
        temp += (gain - cooling) / 6.0;
        status.push(if on { 1.0 } else { 0.0 });
        space.push(temp);
    }
    let mut noise = lab.rng("RTU-1", "space_temp");
    let space: Vec<f64> = lab.keep(&space).into_iter().map(|x| x + 0.15 * noise.normal()).collect();
    Building::one(lab.unit("RTU-1", "RTU", vec![("compressor_status", lab.keep(&status)), ("space_temp", space)]))
}

/// The compressor cases.
pub fn cases() -> Vec<Case> {
    // a short cycle lasts minutes: a 15-minute or hourly trend holds too few of its starts
    vec![Case { rule: "compressor_short_cycle", steps: &[1, 5], build: rooftop }]
}
