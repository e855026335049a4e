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
//!
//! An air handler's return air is the air of the zones it serves, mixed in proportion to their
//! airflow and warmed a little in the ceiling plenum and the return duct. With three or more of
//! its zones trended, its return-air sensor is held to their airflow-weighted mean
//! ([`compare_return_air`]): a return that reads far outside what plenum heat explains, on enough
//! days, is a sensor to check before any finding that reads it.

use std::collections::BTreeMap;

use crate::engine::{align, fan_on, median, Severity, NS_PER_HOUR};
use crate::fleet::Topology;
use crate::run::{EquipFrame, RefResult};
use crate::trust::{bias_levels, bias_severity, compare};

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

/// What a return-air comparison names as its reference: the zones the unit serves.
pub const ZONES_REFERENCE: &str = "<zones>";

/// Zones with a space temperature a return-air comparison needs: with fewer, one zone's own
/// odd thermostat could move their mean as far as a faulty return-air sensor.
const MIN_ZONES: usize = 3;

/// How far a day's median return air may read above (plenum lights, roof and fan heat) or below
/// (a plenum under a cold roof, outdoor air leaking into the return) its zones' mean, °F, before
/// the day counts apart. The lab's healthy air handlers (three prototypes; April, July, October)
/// sit within -3.2 to +3.8 °F on every day; a top floor's plenum in winter may lose more, so the
/// band reaches further below than above.
const RETURN_ABOVE_F: f64 = 5.0;
const RETURN_BELOW_F: f64 = 6.0;

/// Days within the band a unit needs for its own usual difference to be learnt from them.
const MIN_USUAL_DAYS: usize = 5;

/// The finest interval a return-air comparison reads. A day's median needs no more than its
/// hours, and reading every zone's columns a sample a quarter hour apart costs about as much
/// memory traffic as reading them whole (a unit with twenty zones over a 1-minute year: 20 ms at
/// quarter hours, 8 ms hourly, natively).
const RETURN_SAMPLE_EVERY: i64 = NS_PER_HOUR;

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
            let (warn, _) = bias_levels(role);
            let daily = daily_medians(&ts, point, &reference);
            let off: Vec<i64> = daily.iter().filter(|(_, d)| d.abs() >= warn).map(|(day, _)| *day).collect();
            let days = daily.len();
            let names: Vec<&str> = peers.iter().map(|p| p.equip).collect();
            let mut label =
                format!("the median of the site's {} other {role} sensors ({})", peers.len(), names.join(", "));
            let comparison = if apart(&off, days) {
                label.push_str(&format!("; apart on {} of {days} days, compared over those days", off.len()));
                compare(role, &on_days(point, &ts, &off), &reference, step * stride as i64)
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

/// The row of `from` holding each time of `to` (both sorted), `None` where it holds none.
fn rows_at(from: &[i64], to: &[i64]) -> Vec<Option<usize>> {
    let mut j = 0;
    to.iter()
        .map(|t| {
            j += from[j..].partition_point(|x| x < t);
            (from.get(j) == Some(t)).then_some(j)
        })
        .collect()
}

/// Whether the days `off` (in order) of the `days` compared make a point read apart: at least
/// [`MIN_OFF_DAYS`] of them, and a share [`OFF_DAY_SHARE`] of the days or
/// [`OFF_DAYS_IN_A_ROW`] in a row.
fn apart(off: &[i64], days: usize) -> bool {
    off.len() >= MIN_OFF_DAYS
        && (off.len() as f64 >= OFF_DAY_SHARE * days as f64 || longest_run(off) >= OFF_DAYS_IN_A_ROW)
}

/// The point's values on the days `off` (in order), NaN on the others.
fn on_days(point: &[f64], ts: &[i64], off: &[i64]) -> Vec<f64> {
    point
        .iter()
        .zip(ts)
        .map(|(v, t)| if off.binary_search(&t.div_euclid(DAY)).is_ok() { *v } else { f64::NAN })
        .collect()
}

/// Each day's median difference of a point from its reference, in day order: a day needs
/// [`MIN_DAY_PAIRS`] paired samples to count.
fn daily_medians(ts: &[i64], point: &[f64], reference: &[f64]) -> Vec<(i64, f64)> {
    let mut by_day: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for ((t, p), r) in ts.iter().zip(point).zip(reference) {
        if !p.is_nan() && !r.is_nan() {
            by_day.entry(t.div_euclid(DAY)).or_default().push(p - r);
        }
    }
    by_day.into_iter().filter(|(_, d)| d.len() >= MIN_DAY_PAIRS).map(|(day, mut d)| (day, median(&mut d))).collect()
}

/// Each judged unit's `return_air_temp` held to the airflow-weighted mean of the space
/// temperatures of the zones the topology says it serves (of `only` equipment when given),
/// while its fan runs. Nothing for a unit serving fewer than [`MIN_ZONES`] trended zones, with no
/// fan signal, or whose return air the config gives a reference of its own (`configured`).
///
/// A day counts apart when its median difference falls outside [`RETURN_BELOW_F`] below to
/// [`RETURN_ABOVE_F`] above the zones. A unit apart on enough days ([`apart`]) is compared over
/// those days against the zones plus its own usual difference, the median of the days within
/// the band (when it has [`MIN_USUAL_DAYS`] of them): a sensor 6 °F high on a unit whose plenum
/// adds 1.5 °F reads +6, not +7.5. Its verdict is its bias at the role's levels; a unit that is
/// not apart is listed, ok, with its difference over the whole window.
pub fn compare_return_air(
    frames: &[EquipFrame],
    others: &[EquipFrame],
    topology: Option<&Topology>,
    only: Option<&str>,
    configured: &dyn Fn(&str, &str) -> bool,
    step_of: &dyn Fn(&EquipFrame) -> i64,
) -> Vec<RefResult> {
    const ROLE: &str = "return_air_temp";
    let Some(topology) = topology else { return Vec::new() };
    let judged: Vec<(&EquipFrame, &[f64])> = frames
        .iter()
        .filter(|f| only.is_none_or(|o| o == f.equip) && !configured(&f.equip, ROLE))
        .filter_map(|f| Some((f, f.frame.col(ROLE)?)))
        .collect();
    if judged.is_empty() {
        return Vec::new();
    }
    // each zone's serving unit, worked out once for every unit (a look-up by normalized id walks
    // the topology's pairs)
    let everyone: Vec<&EquipFrame> = frames.iter().chain(others).collect();
    let known: Vec<&str> = everyone.iter().map(|f| f.equip.as_str()).collect();
    let mut served: Vec<(&EquipFrame, String)> = everyone
        .iter()
        .filter(|z| z.frame.col("space_temp").is_some_and(|c| c.iter().any(|v| !v.is_nan())))
        .filter_map(|z| Some((*z, topology.parent_of(&z.equip, &known)?)))
        .collect();
    served.sort_by(|a, b| a.0.equip.cmp(&b.0.equip));
    served.dedup_by(|a, b| a.0.equip == b.0.equip);
    let mut out = Vec::new();
    for (f, rat) in judged {
        let zones: Vec<&EquipFrame> = served.iter().filter(|(_, p)| *p == f.equip).map(|(z, _)| *z).collect();
        if zones.len() < MIN_ZONES {
            continue;
        }
        let Some((running, _)) = fan_on(&f.frame) else { continue };
        let step = step_of(f);
        let stride = (RETURN_SAMPLE_EVERY / step.max(1)).max(1) as usize;
        let ts: Vec<i64> = f.frame.ts.iter().step_by(stride).copied().collect();
        let point: Vec<f64> = rat
            .iter()
            .zip(&running)
            .step_by(stride)
            .map(|(v, on)| if *on == Some(true) { *v } else { f64::NAN })
            .collect();
        // each zone's rows at the unit's sampled times: a zone logged on the unit's own grid (the
        // usual case) holds them at every stride-th row, which is checked at those rows alone
        let rows: Vec<Vec<Option<usize>>> = zones
            .iter()
            .map(|z| {
                let on_grid = (0..ts.len()).all(|i| z.frame.ts.get(i * stride) == Some(&ts[i]));
                if on_grid {
                    (0..ts.len()).map(|i| Some(i * stride)).collect()
                } else {
                    rows_at(&z.frame.ts, &ts)
                }
            })
            .collect();
        // weighed by airflow when every zone trends it, else each zone alike; summed a zone at a
        // time (two columns read in order, not every zone's at each sample)
        let weighed = zones.iter().all(|z| z.frame.col("airflow").is_some());
        let (mut sum, mut weight, mut count) = (vec![0.0; ts.len()], vec![0.0; ts.len()], vec![0usize; ts.len()]);
        for (z, rows) in zones.iter().zip(&rows) {
            let temp = z.frame.col("space_temp").unwrap_or_default();
            let flow = if weighed { z.frame.col("airflow") } else { None };
            for (i, row) in rows.iter().enumerate() {
                let Some(k) = *row else { continue };
                let w = flow.map_or(1.0, |f| f[k]);
                if !temp[k].is_nan() && w > 0.0 {
                    sum[i] += w * temp[k];
                    weight[i] += w;
                    count[i] += 1;
                }
            }
        }
        let reference: Vec<f64> =
            (0..ts.len()).map(|i| if count[i] >= MIN_ZONES { sum[i] / weight[i] } else { f64::NAN }).collect();
        let daily = daily_medians(&ts, &point, &reference);
        let outside = |d: f64| !(-RETURN_BELOW_F..=RETURN_ABOVE_F).contains(&d);
        let off: Vec<i64> = daily.iter().filter(|(_, d)| outside(*d)).map(|(day, _)| *day).collect();
        let names: Vec<&str> = zones.iter().map(|z| z.equip.as_str()).collect();
        let weighed = if weighed { "airflow-weighted " } else { "" };
        let mut label = format!(
            "the {weighed}mean space temperature of the {} zones it serves ({})",
            zones.len(),
            names.join(", ")
        );
        let step_ns = step * stride as i64;
        let comparison = if apart(&off, daily.len()) {
            let mut usual: Vec<f64> = daily.iter().filter(|(_, d)| !outside(*d)).map(|(_, d)| *d).collect();
            let usual = (usual.len() >= MIN_USUAL_DAYS).then(|| median(&mut usual));
            let shifted: Vec<f64> = reference.iter().map(|r| r + usual.unwrap_or(0.0)).collect();
            label.push_str(&format!(
                "; outside {RETURN_BELOW_F} °F below to {RETURN_ABOVE_F} °F above them on {} of {} days, compared over those days",
                off.len(),
                daily.len()
            ));
            if let Some(u) = usual {
                label.push_str(&format!(" with its usual {u:+.1} °F on the others added"));
            }
            compare(ROLE, &on_days(&point, &ts, &off), &shifted, step_ns).map(|mut c| {
                // the return and the zones' mean need not move together hour by hour (the
                // zones sit at their setpoints while the plenum warms): only the bias judges
                c.severity = bias_severity(ROLE, c.bias);
                c
            })
        } else {
            compare(ROLE, &point, &reference, step_ns).map(|mut c| {
                c.severity = Severity::Ok;
                c
            })
        };
        if comparison.is_some() {
            out.push(RefResult {
                equip: f.equip.clone(),
                role: ROLE.to_string(),
                reference: ZONES_REFERENCE.to_string(),
                reference_role: "space_temp".to_string(),
                label,
                comparison,
            });
        }
    }
    out
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

    /// A month of 15-minute trends of an air handler and the zones it serves: zones a degree or
    /// two apart with noise of their own, the fan on from 06:00 to 19:00, the return air the
    /// zones' airflow-weighted mean plus `gain` (plenum heat) plus `bias(t)` (its sensor's error).
    fn served(zones: usize, gain: f64, bias: impl Fn(i64) -> f64) -> (EquipFrame, Vec<EquipFrame>) {
        let ts: Vec<i64> = (0..31 * 96).map(|i| i * STEP).collect();
        let mut state = 7u64;
        let mut noise = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) as f64 / (1u64 << 31) as f64 - 0.5) * 0.6
        };
        let hour = |t: i64| (t % DAY) as f64 / NS_PER_HOUR as f64;
        let on = |t: i64| (6.0..19.0).contains(&hour(t));
        let mut boxes = Vec::new();
        let (mut num, mut den) = (vec![0.0; ts.len()], vec![0.0; ts.len()]);
        for z in 0..zones {
            let temp: Vec<f64> =
                ts.iter().map(|&t| 73.0 + z as f64 * 0.8 + 0.5 * (hour(t) / 4.0).sin() + noise()).collect();
            let flow: Vec<f64> =
                ts.iter().map(|&t| if on(t) { 400.0 * (z + 1) as f64 + 50.0 * noise() } else { 0.0 }).collect();
            for i in 0..ts.len() {
                num[i] += temp[i] * flow[i];
                den[i] += flow[i];
            }
            let frame = Frame::from_rows(&ts, &[("space_temp", temp), ("airflow", flow)]);
            boxes.push(EquipFrame { equip: format!("VAV-{}", z + 1), class: "VAV".into(), frame });
        }
        let rat: Vec<f64> = ts
            .iter()
            .enumerate()
            .map(|(i, &t)| if den[i] > 0.0 { num[i] / den[i] + gain + bias(t) + noise() } else { 80.0 + noise() })
            .collect();
        let fan: Vec<f64> = ts.iter().map(|&t| f64::from(u8::from(on(t)))).collect();
        let frame = Frame::from_rows(&ts, &[("return_air_temp", rat), ("supply_fan_status", fan)]);
        (EquipFrame { equip: "AHU-1".into(), class: "AHU".into(), frame }, boxes)
    }

    fn parents(zones: usize) -> Topology {
        let pairs: serde_json::Map<String, serde_json::Value> =
            (1..=zones).map(|z| (format!("VAV-{z}"), serde_json::Value::from("AHU-1"))).collect();
        Topology::from_value(&serde_json::json!({ "parents": pairs })).unwrap()
    }

    fn return_air(ahu: &EquipFrame, boxes: &[EquipFrame], top: Option<&Topology>) -> Vec<RefResult> {
        compare_return_air(std::slice::from_ref(ahu), boxes, top, None, &|_, _| false, &|_| STEP)
    }

    #[test]
    fn a_return_air_sensor_reading_high_from_mid_month_is_held_to_the_zones_it_serves() {
        let (ahu, boxes) = served(5, 1.5, |t| if t >= 14 * DAY { 6.0 } else { 0.0 });
        let top = parents(5);
        let refs = return_air(&ahu, &boxes, Some(&top));
        assert_eq!(refs.len(), 1);
        let r = &refs[0];
        let c = r.comparison.as_ref().unwrap();
        assert_eq!(
            (r.reference.as_str(), r.role.as_str(), r.reference_role.as_str()),
            (ZONES_REFERENCE, "return_air_temp", "space_temp")
        );
        assert_eq!(c.severity, Severity::Fault, "{c:?} {}", r.label);
        assert!((c.bias - 6.0).abs() < 0.3, "the unit's own plenum gain is not counted against it: {c:?}");
        assert!(r.label.contains("airflow-weighted mean space temperature of the 5 zones it serves"), "{}", r.label);
        assert!(r.label.contains("on 17 of 31 days"), "{}", r.label);
        assert!(r.label.contains("usual +1.5 °F"), "{}", r.label);
        assert_eq!(c.overlap_hours, 17.0 * 13.0, "only the fan's hours of the days apart");
    }

    #[test]
    fn a_healthy_return_with_plenum_heat_is_listed_ok() {
        // 3.5 F of plenum heat, every day: more than a sensor's warn level, and no fault
        let (ahu, boxes) = served(4, 3.5, |_| 0.0);
        let refs = return_air(&ahu, &boxes, Some(&parents(4)));
        let c = refs[0].comparison.as_ref().unwrap();
        assert_eq!(c.severity, Severity::Ok, "{c:?}");
        assert!((c.bias - 3.5).abs() < 0.3, "{c:?}");
        assert!(!refs[0].label.contains("outside"), "{}", refs[0].label);
        // the same unit with its sensor 9 F low all month: below the zones on every day, with
        // no day to learn its usual difference from
        let (ahu, boxes) = served(4, 1.0, |_| -9.0);
        let refs = return_air(&ahu, &boxes, Some(&parents(4)));
        let c = refs[0].comparison.as_ref().unwrap();
        assert_eq!(c.severity, Severity::Fault, "{c:?}");
        assert!((c.bias + 8.0).abs() < 0.3, "{c:?}");
        assert!(refs[0].label.contains("on 31 of 31 days") && !refs[0].label.contains("usual"), "{}", refs[0].label);
    }

    #[test]
    fn a_return_air_comparison_needs_three_zones_a_topology_and_a_fan() {
        let bias = |_| 8.0;
        let (ahu, boxes) = served(2, 1.0, bias);
        assert!(return_air(&ahu, &boxes, Some(&parents(2))).is_empty(), "two zones");
        let (ahu, boxes) = served(4, 1.0, bias);
        assert!(return_air(&ahu, &boxes, None).is_empty(), "no topology");
        assert!(return_air(&ahu, &boxes, Some(&parents(2))).is_empty(), "two of the four zones served");
        let configured = compare_return_air(
            std::slice::from_ref(&ahu),
            &boxes,
            Some(&parents(4)),
            None,
            &|e, r| e == "AHU-1" && r == "return_air_temp",
            &|_| STEP,
        );
        assert!(configured.is_empty(), "the config's own reference wins");
        let mut fanless = ahu.clone();
        fanless.frame.cols.remove("supply_fan_status");
        assert!(return_air(&fanless, &boxes, Some(&parents(4))).is_empty(), "no fan signal");
        // zones without airflow are averaged alike
        let mut still = boxes.clone();
        still[0].frame.cols.remove("airflow");
        let refs = return_air(&ahu, &still, Some(&parents(4)));
        assert_eq!(refs[0].comparison.as_ref().unwrap().severity, Severity::Fault);
        assert!(refs[0].label.contains("the mean space temperature of the 4 zones"), "{}", refs[0].label);
    }

    #[test]
    fn zones_logged_on_a_finer_grid_than_their_unit_are_read_at_its_times() {
        assert_eq!(rows_at(&[0, 5, 10, 15, 20], &[0, 10, 12, 20, 25]), [Some(0), Some(2), None, Some(4), None]);
        let (ahu, boxes) = served(4, 1.5, |t| if t >= 14 * DAY { 6.0 } else { 0.0 });
        // the same zones logged every five minutes, each value held for its quarter hour
        let fine: Vec<EquipFrame> = boxes
            .iter()
            .map(|b| {
                let ts: Vec<i64> = (0..b.frame.ts.len() as i64 * 3).map(|i| i * STEP / 3).collect();
                let held = |role: &str| (0..ts.len()).map(|i| b.frame.col(role).unwrap()[i / 3]).collect::<Vec<f64>>();
                let frame = Frame::from_rows(&ts, &[("space_temp", held("space_temp")), ("airflow", held("airflow"))]);
                EquipFrame { frame, ..b.clone() }
            })
            .collect();
        let same = return_air(&ahu, &boxes, Some(&parents(4)));
        let finer = return_air(&ahu, &fine, Some(&parents(4)));
        assert_eq!(format!("{:?}", same[0].comparison), format!("{:?}", finer[0].comparison));
        assert_eq!(same[0].comparison.as_ref().unwrap().severity, Severity::Fault);
    }
}
