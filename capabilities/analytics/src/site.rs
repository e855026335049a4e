//! The site's own sensors of the same air, held to each other. Every air handler and tower of a
//! building that trends its own outdoor-air temperature (humidity, wet bulb) reads the same
//! weather; with three or more such sensors the odd one out shows without any configured
//! reference. Each judged equipment's sensor is compared with the median of the others, sample
//! by sample, the way a configured reference is ([`crate::trust::compare`]); a point that reads
//! apart on enough days makes the findings that read it conditional, and `sensor_trust` lists
//! the comparison.
//!
//! Copies of one sensor (a shared point mapped to every unit, or the run's `shared_oat`) are one
//! voice, not several: columns equal to the last digit on their shared samples are grouped. A
//! sensor that went wrong part way through the window is judged on the days it read apart: its
//! bias over the whole window would hide a fault that began in its last week.

use std::collections::BTreeMap;

use crate::engine::{align, median, NS_PER_HOUR};
use crate::run::{EquipFrame, RefResult};
use crate::trust::{bias_levels, compare};

/// The roles every unit of a site reads from the same air.
pub const SITE_ROLES: [&str; 3] = ["oat", "outdoor_rh", "wetbulb_temp"];

/// What a site comparison names as its reference (it is no one equipment).
pub const SITE_REFERENCE: &str = "<site>";

/// Distinct sensors a comparison needs: the point's and at least two others, so that a
/// disagreement says which one is wrong.
const MIN_SENSORS: usize = 3;

/// Others a point is held to, at most (the first by equipment id): enough for a robust median,
/// and a site of many units costs no more per point than a site of nine.
const MAX_PEERS: usize = 8;

/// Two columns equal on at least this share of their paired samples are one sensor.
const SAME_SHARE: f64 = 0.99;

/// Paired samples a day needs to count, and samples compared when telling copies apart.
const MIN_DAY_PAIRS: usize = 4;
const SAME_PROBE: usize = 2000;

/// A point reads apart when its daily median difference reaches the role's warn level on at
/// least [`MIN_OFF_DAYS`] days that are this share of the days compared, or
/// [`OFF_DAYS_IN_A_ROW`] days in a row (a sensor that failed in the last week of a year).
const OFF_DAY_SHARE: f64 = 0.25;
const MIN_OFF_DAYS: usize = 2;
const OFF_DAYS_IN_A_ROW: usize = 7;

const DAY: i64 = 24 * NS_PER_HOUR;

/// The finest interval a comparison reads: a finer trend is compared on every sample that
/// falls a quarter hour on.
const SAMPLE_EVERY: i64 = NS_PER_HOUR / 4;

/// One sensor of a role: the equipment it is trended on, its times and values.
struct Sensor<'a> {
    equip: &'a str,
    ts: &'a [i64],
    values: &'a [f64],
}

/// Whether `b` is a copy of `a`: on their first [`SAME_PROBE`] paired samples, equal on
/// [`SAME_SHARE`] of them.
fn same_sensor(a: &Sensor, b: &Sensor) -> bool {
    // the first stretch of `a` first (aligning onto it reads no further into `b`), all of it
    // when that stretch pairs with nothing
    let head = a.ts.len().min(4 * SAME_PROBE);
    for upto in [head, a.ts.len()] {
        let aligned = align(b.ts, b.values, &a.ts[..upto]);
        let (mut pairs, mut equal) = (0usize, 0usize);
        for (x, y) in a.values.iter().zip(&aligned) {
            if x.is_nan() || y.is_nan() {
                continue;
            }
            pairs += 1;
            equal += usize::from(x == y);
            if pairs == SAME_PROBE {
                break;
            }
        }
        if pairs > 0 {
            return equal as f64 >= SAME_SHARE * pairs as f64;
        }
    }
    false
}

/// Each judged equipment's sensor of a site role held to the median of the site's other
/// sensors of it (of `only` equipment when given). Nothing for a role with fewer than
/// [`MIN_SENSORS`] distinct sensors, and nothing for a point the config gives a reference of its
/// own (`configured`).
pub fn compare_site(
    frames: &[EquipFrame],
    others: &[EquipFrame],
    only: Option<&str>,
    configured: &dyn Fn(&str, &str) -> bool,
    step_of: &dyn Fn(&EquipFrame) -> i64,
) -> Vec<RefResult> {
    let mut out = Vec::new();
    for role in SITE_ROLES {
        if !frames.iter().any(|f| only.is_none_or(|o| o == f.equip) && f.frame.col(role).is_some()) {
            continue;
        }
        let mut sensors: Vec<Sensor> = frames
            .iter()
            .chain(others)
            .filter_map(|f| {
                let c = f.frame.col(role)?;
                c.iter().any(|v| !v.is_nan()).then_some(Sensor { equip: &f.equip, ts: &f.frame.ts, values: c })
            })
            .collect();
        sensors.sort_by(|a, b| a.equip.cmp(b.equip));
        // each sensor's group: the first earlier sensor it copies, else its own
        let mut group: Vec<usize> = Vec::with_capacity(sensors.len());
        let mut heads: Vec<usize> = Vec::new();
        for (i, s) in sensors.iter().enumerate() {
            let g = heads.iter().copied().find(|&h| same_sensor(&sensors[h], s)).unwrap_or_else(|| {
                heads.push(i);
                i
            });
            group.push(g);
        }
        if heads.len() < MIN_SENSORS {
            continue;
        }
        for f in frames.iter().filter(|f| only.is_none_or(|o| o == f.equip)) {
            let Some(k) = sensors.iter().position(|s| s.equip == f.equip) else { continue };
            if configured(&f.equip, role) {
                continue;
            }
            let peers: Vec<&Sensor> =
                heads.iter().filter(|&&h| h != group[k]).take(MAX_PEERS).map(|&h| &sensors[h]).collect();
            if peers.len() + 1 < MIN_SENSORS {
                continue;
            }
            // the weather moves slowly: one sample in each quarter hour says what a finer
            // trend would, at a fraction of the medians
            let step = step_of(f);
            let stride = (SAMPLE_EVERY / step.max(1)).max(1) as usize;
            let ts: Vec<i64> = f.frame.ts.iter().step_by(stride).copied().collect();
            let point: Vec<f64> = sensors[k].values.iter().step_by(stride).copied().collect();
            let point = &point[..];
            let columns: Vec<Vec<f64>> = peers.iter().map(|p| align(p.ts, p.values, &ts)).collect();
            let mut at = Vec::with_capacity(columns.len());
            let reference: Vec<f64> = (0..point.len())
                .map(|i| {
                    at.clear();
                    at.extend(columns.iter().map(|c| c[i]).filter(|v| !v.is_nan()));
                    if at.len() >= 2 {
                        median(&mut at)
                    } else {
                        f64::NAN
                    }
                })
                .collect();
            let (off, days) = off_days(role, &ts, point, &reference);
            let names: Vec<&str> = peers.iter().map(|p| p.equip).collect();
            let mut label =
                format!("the median of the site's {} other {role} sensors ({})", peers.len(), names.join(", "));
            let in_a_row = longest_run(&off);
            let apart = off.len() >= MIN_OFF_DAYS
                && (off.len() as f64 >= OFF_DAY_SHARE * days as f64 || in_a_row >= OFF_DAYS_IN_A_ROW);
            let comparison = if apart {
                label.push_str(&format!("; apart on {} of {days} days, compared over those days", off.len()));
                let kept: Vec<f64> = point
                    .iter()
                    .zip(&ts)
                    .map(|(v, t)| if off.binary_search(&t.div_euclid(DAY)).is_ok() { *v } else { f64::NAN })
                    .collect();
                compare(role, &kept, &reference, step * stride as i64)
            } else {
                compare(role, point, &reference, step * stride as i64)
            };
            if comparison.is_some() {
                out.push(RefResult {
                    equip: f.equip.clone(),
                    role: role.to_string(),
                    reference: SITE_REFERENCE.to_string(),
                    reference_role: role.to_string(),
                    label,
                    comparison,
                });
            }
        }
    }
    out
}

/// The most consecutive days in `days` (in order).
fn longest_run(days: &[i64]) -> usize {
    let (mut best, mut run) = (0, 0);
    for (k, d) in days.iter().enumerate() {
        run = if k > 0 && days[k - 1] + 1 == *d { run + 1 } else { 1 };
        best = best.max(run);
    }
    best
}

/// The days (in order) on which a point's median difference from its reference reaches the
/// role's warn level, and how many days were compared: a day needs [`MIN_DAY_PAIRS`] paired
/// samples to count.
fn off_days(role: &str, ts: &[i64], point: &[f64], reference: &[f64]) -> (Vec<i64>, usize) {
    let (warn, _) = bias_levels(role);
    let mut by_day: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for ((t, p), r) in ts.iter().zip(point).zip(reference) {
        if !p.is_nan() && !r.is_nan() {
            by_day.entry(t.div_euclid(DAY)).or_default().push(p - r);
        }
    }
    let mut days = 0;
    let mut off = Vec::new();
    for (day, mut d) in by_day {
        if d.len() < MIN_DAY_PAIRS {
            continue;
        }
        days += 1;
        if median(&mut d).abs() >= warn {
            off.push(day);
        }
    }
    (off, days)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Frame, Severity};

    const STEP: i64 = NS_PER_HOUR / 4;

    /// A month of 15-minute outdoor air: a daily swing, each sensor with noise of its own.
    fn sensor(equip: &str, seed: u64, bias: impl Fn(i64) -> f64) -> EquipFrame {
        let ts: Vec<i64> = (0..31 * 96).map(|i| i * STEP).collect();
        let mut state = seed;
        let values = ts
            .iter()
            .map(|&t| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let noise = ((state >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 0.4;
                let hour = (t % DAY) as f64 / NS_PER_HOUR as f64;
                75.0 + 12.0 * ((hour - 9.0) / 24.0 * std::f64::consts::TAU).sin() + noise + bias(t)
            })
            .collect();
        EquipFrame { equip: equip.into(), class: "AHU".into(), frame: Frame::from_rows(&ts, &[("oat", values)]) }
    }

    fn site(frames: &[EquipFrame], others: &[EquipFrame], only: Option<&str>) -> Vec<RefResult> {
        compare_site(frames, others, only, &|_, _| false, &|_| STEP)
    }

    #[test]
    fn a_sensor_reading_apart_from_the_sites_others_from_mid_month_is_named() {
        let from_15th = |t: i64| if t >= 14 * DAY { -9.0 } else { 0.0 };
        let frames = vec![
            sensor("AHU-1", 1, from_15th),
            sensor("AHU-2", 2, |_| 0.0),
            sensor("AHU-3", 3, |_| 0.0),
            sensor("CT-1", 4, |_| 0.0),
        ];
        let towers = vec![sensor("CT-2", 5, |_| 0.0)];
        let refs = site(&frames, &towers, None);
        assert_eq!(refs.len(), 4, "one comparison per judged sensor, none for a frame read only as a peer");
        let bad = refs.iter().find(|r| r.equip == "AHU-1").unwrap();
        let c = bad.comparison.as_ref().unwrap();
        assert_eq!(c.severity, Severity::Fault, "{c:?}");
        assert!((c.bias + 9.0).abs() < 0.3, "{c:?}");
        assert!(bad.label.contains("apart on 17 of 31 days"), "{}", bad.label);
        assert!(bad.label.contains("4 other oat sensors (AHU-2, AHU-3, CT-1, CT-2)"), "{}", bad.label);
        assert_eq!((bad.reference.as_str(), bad.reference_role.as_str()), (SITE_REFERENCE, "oat"));
        for r in refs.iter().filter(|r| r.equip != "AHU-1") {
            let c = r.comparison.as_ref().unwrap();
            assert_eq!(c.severity, Severity::Ok, "{}: {c:?}", r.equip);
            assert!(!r.label.contains("apart"), "{}", r.label);
        }
        // the whole window's median would have missed a fault of the last week
        let last_week = |t: i64| if t >= 24 * DAY { -9.0 } else { 0.0 };
        let mut late = frames.clone();
        late[0] = sensor("AHU-1", 1, last_week);
        let refs = site(&late, &towers, Some("AHU-1"));
        assert_eq!(refs.len(), 1, "only the one asked for");
        assert_eq!(refs[0].comparison.as_ref().unwrap().severity, Severity::Fault);
        assert!(refs[0].label.contains("apart on 7 of 31 days"), "{}", refs[0].label);
        // three odd days scattered over the month are neither a quarter of it nor a week
        let odd_days = |t: i64| if [3, 11, 20].contains(&t.div_euclid(DAY)) { -9.0 } else { 0.0 };
        late[0] = sensor("AHU-1", 1, odd_days);
        let refs = site(&late, &towers, Some("AHU-1"));
        assert_eq!(refs[0].comparison.as_ref().unwrap().severity, Severity::Ok, "{}", refs[0].label);
        assert!(!refs[0].label.contains("apart"), "{}", refs[0].label);
    }

    #[test]
    fn copies_of_one_sensor_are_one_voice_and_a_configured_reference_wins() {
        // one shared point mapped to three units, and a second sensor reading 9 F low: two
        // sensors cannot say which is wrong
        let shared = sensor("AHU-1", 1, |_| 0.0);
        let copy = |equip: &str| EquipFrame { equip: equip.into(), ..shared.clone() };
        let frames = vec![shared.clone(), copy("AHU-2"), copy("AHU-3"), sensor("AHU-4", 4, |_| -9.0)];
        assert!(site(&frames, &[], None).is_empty());
        // a third sensor settles it
        let mut three = frames.clone();
        three.push(sensor("CT-1", 5, |_| 0.0));
        let refs = site(&three, &[], None);
        let low = refs.iter().find(|r| r.equip == "AHU-4").unwrap();
        assert_eq!(low.comparison.as_ref().unwrap().severity, Severity::Fault);
        assert!(low.label.contains("2 other oat sensors (AHU-1, CT-1)"), "{}", low.label);
        let copied = refs.iter().find(|r| r.equip == "AHU-2").unwrap();
        assert!(
            copied.label.contains("(AHU-4, CT-1)"),
            "a copy is held to the others, not to itself: {}",
            copied.label
        );
        // the config's own reference for a point replaces the site's
        let refs = compare_site(&three, &[], None, &|e, r| e == "AHU-4" && r == "oat", &|_| STEP);
        assert!(refs.iter().all(|r| r.equip != "AHU-4"));
        assert_eq!(refs.len(), 4);
    }

    #[test]
    fn a_one_minute_trend_is_compared_on_its_quarter_hours() {
        // the same month at one minute: the same verdict from a fifteenth of the samples
        let fine = |equip: &str, seed: u64, bias: f64| {
            let mut f = sensor(equip, seed, |t| if t >= 14 * DAY { bias } else { 0.0 });
            let ts: Vec<i64> = (0..31 * 1440).map(|i| i * NS_PER_HOUR / 60).collect();
            let coarse = f.frame.col("oat").unwrap().to_vec();
            let values: Vec<f64> = (0..ts.len()).map(|i| coarse[i / 15] + 0.01 * (i % 15) as f64).collect();
            f.frame = Frame::from_rows(&ts, &[("oat", values)]);
            f
        };
        let frames = vec![fine("AHU-1", 1, -9.0), fine("AHU-2", 2, 0.0), fine("AHU-3", 3, 0.0)];
        let refs = compare_site(&frames, &[], None, &|_, _| false, &|_| NS_PER_HOUR / 60);
        let bad = refs.iter().find(|r| r.equip == "AHU-1").unwrap();
        let c = bad.comparison.as_ref().unwrap();
        assert_eq!(c.severity, Severity::Fault, "{c:?}");
        assert!(bad.label.contains("apart on 17 of 31 days"), "{}", bad.label);
        assert_eq!(c.samples, 17 * 96, "every quarter hour of the days apart");
        assert_eq!(c.overlap_hours, 17.0 * 24.0);
    }

    #[test]
    fn outdoor_humidity_is_held_to_the_site_as_well() {
        let rh = |equip: &str, seed: u64, bias: f64| {
            let mut f = sensor(equip, seed, move |_| bias);
            let v: Vec<f64> = f.frame.col("oat").unwrap().iter().map(|t| 120.0 - t).collect();
            f.frame = Frame::from_rows(&f.frame.ts.clone(), &[("outdoor_rh", v)]);
            f
        };
        // 4 points of relative humidity apart is under the role's 5-point warn level; 12 is not
        let frames = vec![rh("AHU-1", 1, -12.0), rh("AHU-2", 2, 0.0), rh("AHU-3", 3, -4.0)];
        let refs = site(&frames, &[], None);
        let verdict = |e: &str| refs.iter().find(|r| r.equip == e).unwrap().comparison.as_ref().unwrap().severity;
        assert_eq!((verdict("AHU-1"), verdict("AHU-3")), (Severity::Warn, Severity::Ok));
        assert!(refs.iter().all(|r| r.role == "outdoor_rh" && r.reference_role == "outdoor_rh"));
    }

    #[test]
    fn units_without_the_role_or_a_site_of_two_give_nothing() {
        let mut boxes = sensor("VAV-1", 1, |_| 0.0);
        boxes.frame.cols.clear();
        let pair = vec![sensor("AHU-1", 1, |_| 0.0), sensor("AHU-2", 2, |_| -9.0), boxes];
        assert!(site(&pair, &[], None).is_empty());
        assert!(site(&pair, &[sensor("CT-1", 3, |_| 0.0)], Some("VAV-1")).is_empty());
    }
}
