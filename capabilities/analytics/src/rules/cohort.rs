//! Not a rule: the cohort deviation `cohort_airflow` and `cohort_space_temp` share. A unit can
//! sit inside every absolute limit and still behave unlike the units around it: a box moving
//! twice the air of its siblings on the same air handler, a zone held three degrees warmer
//! than forty others. Each unit's record of one role is reduced to one number (its
//! time-weighted mean, its peak, its load factor mean / peak, or its variability, the
//! time-weighted standard deviation), optionally divided by the unit's design airflow (the
//! peak of its `airflow_sp`), and scored against its cohort with a robust z:
//! `(value - median) / (1.4826 x MAD)`, the scale falling back to 1.2533 x the mean absolute
//! deviation when more than half the cohort shares one value (so a lone outlier is not hidden
//! behind a MAD of zero).
//!
//! The cohort is the whole fleet, or with `group_by_topology` each air handler's units (the
//! run config's topology; the units it does not name pooled by class), one finding per
//! cohort. A unit is an outlier when its |z| reaches `k` (one side only with `tail`) and,
//! on the raw summary, it sits at least `min_abs_dev` from the median in the role's units, so
//! a tight cohort's tiny MAD cannot turn a fraction of a degree into ten sigma. Outliers warn
//! (the rule has no fault level: standing apart is a lead, not a diagnosis); a cohort with
//! none is ok, or info when its robust spread (1.4826 x MAD / |median|) exceeds `max_spread`,
//! since in so wide a cohort only an extreme unit could stand out. A cohort smaller than
//! `min_cohort` is info. Every sample of each unit is summarised (a building's units share its
//! schedule, so nights and weekends weigh on every unit alike); samples are weighed by the
//! time each stands for in its own unit's trend, so a gap or a faster trend does not tilt a
//! mean. The flagged samples are those at which an outlier unit sits on its outlying side of
//! its cohort at that instant, above (or below) the median of the cohort's samples there: the
//! hours it runs unlike its peers, not the night hours every unit sits at zero (all its
//! samples when the summary is its load factor or variability).
//!
//! Beyond the reference, for a role that scales with a box's size (airflow) compared raw: a box
//! set aside as sized unlike the cohort only when its airflow and its setpoint both say so, and
//! an outlier on raw airflow that is not one as a share of its design airflow (the peak of its
//! `airflow_sp`, among the units that trend one) is a bigger or smaller box, not an outlier (a
//! caveat names it).
//!
//! Not taken from the reference: `normalise = "reference"`, which divides each unit by a
//! declared reference unit (a structured input, `reference = {equip: reference_equip}`, that
//! this engine's parameters cannot express yet): with it, the finding is info and says so.

use std::collections::BTreeMap;

use crate::engine::{median, Finding, Inputs, ParamSpec, ParamValue, Params, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding};

/// What a cohort rule compares: the role and its role-specific defaults.
#[derive(Clone, Debug)]
pub struct Cohort {
    /// The role summarised per unit.
    pub role: &'static str,
    /// The role in words ("airflow").
    pub what: &'static str,
    /// Its unit in a summary ("cfm").
    pub unit: &'static str,
    /// The smallest difference from the median that can make an outlier when `min_abs_dev` is
    /// unset, in the role's units.
    pub min_abs_dev: f64,
    /// The widest robust spread a cohort can have for "no outlier" to be a pass, when
    /// `max_spread` is unset (`None`: no limit).
    pub max_spread: Option<f64>,
    /// The inputs each unit needs.
    pub inputs: Inputs,
    /// Whether the role scales with the unit's size (airflow): compared raw, only units of
    /// like size (their peaks within [`SIZE_RATIO`] of the cohort's median peak) are compared.
    pub sized: bool,
    /// Whether the role is a zone condition judged against its own setpoints (space
    /// temperature): each unit is summarised over its occupied samples (its occupancy point,
    /// else the assumed weekday schedule; a zone floating in its night setback is not running
    /// unlike its peers), and a unit whose occupied mean sits between its own heating and
    /// cooling setpoints (within [`BAND_MARGIN_F`]) is satisfied, never an outlier.
    pub occupied_band: bool,
}

/// How far outside its own setpoint band (°F) a zone's occupied mean may sit and still be
/// satisfied.
pub const BAND_MARGIN_F: f64 = 0.5;

/// How far (a factor either way) a unit's peak may sit from its cohort's median peak and still
/// be compared in raw units: a 35,000 cfm core box is not a 1,000 cfm perimeter box's peer.
pub const SIZE_RATIO: f64 = 2.0;

/// `cohort_airflow`: box airflow, whose sizes and loads differ (a robust spread over 0.3 makes
/// "no outlier" weak evidence).
pub const AIRFLOW: Cohort = Cohort {
    role: "airflow",
    what: "airflow",
    unit: "cfm",
    min_abs_dev: 0.0,
    max_spread: Some(0.3),
    inputs: Inputs { required: &["airflow"], optional: &["airflow_sp"], gating: &[], one_of: &[], needs_gating: false },
    sized: true,
    occupied_band: false,
};

/// `cohort_space_temp`: zone temperature, where a difference under 1 °F is not worth a visit.
pub const SPACE_TEMP: Cohort = Cohort {
    role: "space_temp",
    what: "space temperature",
    unit: "°F",
    min_abs_dev: 1.0,
    max_spread: None,
    inputs: Inputs {
        required: &["space_temp"],
        optional: &["airflow_sp", "occupancy", "heat_sp", "cool_sp"],
        gating: &[],
        one_of: &[],
        needs_gating: false,
    },
    sized: false,
    occupied_band: true,
};

/// The summaries a unit's record can be reduced to.
pub const SUMMARIES: &[&str] = &["mean", "peak", "load_factor", "variability"];
/// The divisors a summary can be normalised by (unset: the raw summary).
pub const NORMALISE: &[&str] = &["reference", "design_max"];
/// Which side of the cohort flags.
pub const TAILS: &[&str] = &["both", "low", "high"];

/// The cohort rules' parameters (the reference's names, defaults, units and ranges).
pub fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::number(
            "k",
            3.5,
            "- (robust z, MAD-scaled)",
            (2.0, 6.0),
            "3.5 is the usual cut-off for a modified z-score: past it a value is unlikely to belong to the rest.",
            "On a group of units known to be sound, note the biggest |z| the finding reports (z.<unit>) and pick k a little over it. Lowering k casts a wider net, and in a cohort of a handful it starts catching plain unit-to-unit variation.",
        ),
        ParamSpec::number(
            "min_cohort",
            3.0,
            "count",
            (3.0, 50.0),
            "A median and a MAD mean little with fewer than three units to take them from.",
            "A median and MAD from four or five units move a lot when one unit changes; ask for more units when the cohorts are mixed bags.",
        ),
        ParamSpec {
            name: "summary",
            default: ParamValue::Choice("mean".into()),
            unit: "choice",
            range: None,
            choices: SUMMARIES,
            basis: "The time-weighted mean is the steadiest single number for a unit's record.",
            calibrate: "mean for the level a unit runs at; peak when sizing is the question; load_factor (mean over peak) for how hard each unit is worked; variability (the time-weighted standard deviation) for an actuator or loop that has stopped moving, read on the low tail.",
        },
        ParamSpec::flag(
            "group_by_topology",
            false,
            "Boxes on different air handlers (or, in test data, on different days) are not peers; off, the whole fleet is one cohort, as the reference's default.",
            "Switch it on wherever several air handlers (or several test days under one id scheme) share the fleet, and name who serves whom in the run config's topology; units it leaves unnamed are compared within their class, with a caveat. A cohort with fewer than min_cohort units gets an info finding instead of a score.",
        ),
        ParamSpec {
            name: "normalise",
            default: ParamValue::Choice(String::new()),
            unit: "choice",
            range: None,
            choices: NORMALISE,
            basis: "Unset compares the raw summary. design_max divides it by the unit's design airflow (the peak of its airflow_sp), which evens out box sizes but cannot by itself single out a stuck box.",
            calibrate: "Use design_max to compare boxes of different sizes (map airflow_sp; units without it are left out). reference needs each unit's reference unit, a structured input this engine does not take yet.",
        },
        ParamSpec {
            name: "tail",
            default: ParamValue::Choice("both".into()),
            unit: "choice",
            range: None,
            choices: TAILS,
            basis: "Either side of the cohort can be a fault; a stuck actuator's variability is only ever low.",
            calibrate: "low with summary = variability finds units that never move; high finds units that run or move more than their peers.",
        },
        ParamSpec::number(
            "min_abs_dev",
            f64::NAN,
            "the role's units (°F for space temperature, cfm for airflow)",
            (0.0, 10.0),
            "Unset, each role keeps its own floor: 1 °F for space temperature, none for airflow. Zones that agree to a few hundredths of a degree have a tiny MAD, so a zone under a degree apart (a cooler north side) would score as a far outlier though nobody would act on it. Used on the raw summary only.",
            "The gap from the cohort median below which you would not send anyone to look, in the role's own units.",
        ),
        ParamSpec::number(
            "max_spread",
            f64::NAN,
            "fraction of the cohort median (robust spread, 1.4826 x MAD / |median|)",
            (0.05, 2.0),
            "Unset, each role keeps its own: 0.3 for airflow, none for space temperature. On the reference's synthetic G36 fleet the mean airflow of one air handler's boxes spreads 0.13 to 0.26 and that of all its 48 boxes 0.34, so 0.3 separates like boxes from a mixed pool. Used on the raw summary only.",
            "Take the cohort_spread the finding reports for groups you consider alike and set the limit past it; a wider cohort that shows no outlier is then reported as info rather than passed.",
        ),
    ]
}

/// A unit's record reduced to one number: the time-weighted mean, the peak, the load factor
/// (mean / peak; `None` when the peak is 0) or the variability (the time-weighted standard
/// deviation). `None` without a sample.
pub fn summarise(summary: &str, values: &[f64], weights: &[f64]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> =
        values.iter().zip(weights).filter(|(v, w)| !v.is_nan() && **w > 0.0).map(|(v, w)| (*v, *w)).collect();
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    if pairs.is_empty() || total <= 0.0 {
        return None;
    }
    let mean = pairs.iter().map(|(v, w)| v * w).sum::<f64>() / total;
    let peak = pairs.iter().map(|p| p.0).fold(f64::NEG_INFINITY, crate::engine::max_of);
    match summary {
        "peak" => Some(peak),
        "load_factor" => (peak != 0.0).then(|| mean / peak),
        "variability" => Some((pairs.iter().map(|(v, w)| w * (v - mean) * (v - mean)).sum::<f64>() / total).sqrt()),
        _ => Some(mean),
    }
}

/// A cohort's centre and robust scale: `(median, MAD, scale)`, the scale 1.4826 x MAD, or
/// 1.2533 x the mean absolute deviation when the MAD is 0.
pub fn robust_scale(values: &[f64]) -> (f64, f64, f64) {
    let med = median(&mut values.to_vec());
    let mut dev: Vec<f64> = values.iter().map(|v| (v - med).abs()).collect();
    let mad = median(&mut dev);
    let scale = if mad > 0.0 {
        1.4826 * mad
    } else if values.is_empty() {
        0.0
    } else {
        1.2533 * dev.iter().sum::<f64>() / dev.len() as f64
    };
    (med, mad, scale)
}

/// Which samples of a zone's frame are occupied: its occupancy point, else the assumed weekday
/// schedule.
fn occupied_samples(f: &crate::engine::Frame) -> Vec<bool> {
    let occ = f.col("occupancy").filter(|o| o.iter().any(|v| !v.is_nan()));
    (0..f.len())
        .map(|i| match occ {
            Some(o) => crate::engine::on(o[i]),
            None => crate::engine::assumed_occupied(f.ts[i]),
        })
        .collect()
}

/// The members' equipment ids, quoted and comma-separated, for a caveat or a summary.
fn equip_names(fleet: &Fleet, members: &[usize]) -> String {
    members.iter().map(|&m| camber_common::text::name(fleet.members[m].equip)).collect::<Vec<_>>().join(", ")
}

/// Whether a member's occupied mean `value` lies between its own median heating and cooling
/// setpoints (each widened by [`BAND_MARGIN_F`]); false when it trends neither.
fn within_band(fleet: &Fleet, member: usize, value: f64) -> bool {
    let f = fleet.members[member].frame;
    let occupied = occupied_samples(f);
    let mid = |role: &str| {
        f.col(role).map(|c| {
            let mut v: Vec<f64> =
                c.iter().zip(&occupied).filter(|(x, o)| **o && !x.is_nan()).map(|(x, _)| *x).collect();
            median(&mut v)
        })
    };
    match (mid("heat_sp"), mid("cool_sp")) {
        (Some(h), Some(c)) if !h.is_nan() && !c.is_nan() => value >= h - BAND_MARGIN_F && value <= c + BAND_MARGIN_F,
        _ => false,
    }
}

/// The members of `units` sized unlike the rest: more than [`SIZE_RATIO`] times above or below
/// the units' median peak (98th percentile) on every size measure they trend: the role's own
/// record and, where trended, the airflow setpoint. One measure alone misleads: a box stuck
/// nearly shut peaks low on its airflow though its setpoint still asks for its design flow, and a
/// rogue zone's setpoint peaks at its maximum while its peers' never leave part load. A box of
/// another size (a 35,000 cfm core zone among 1,000 cfm perimeter boxes) is unlike on both.
fn unlike_sized(c: &Cohort, fleet: &Fleet, units: &[&Scored]) -> Vec<usize> {
    // per measure: the members it sizes, and those it finds unlike
    let unlike_on = |role: &str| -> Option<(Vec<usize>, Vec<usize>)> {
        let peaks: Vec<(usize, f64)> = units
            .iter()
            .filter_map(|u| {
                fleet.members[u.member].frame.col(role).and_then(crate::engine::robust_peak).map(|p| (u.member, p))
            })
            .filter(|(_, p)| *p > 0.0)
            .collect();
        if peaks.len() < 3 {
            return None;
        }
        let mid = median(&mut peaks.iter().map(|(_, p)| *p).collect::<Vec<f64>>());
        let unlike = peaks.iter().filter(|(_, p)| *p > SIZE_RATIO * mid || *p * SIZE_RATIO < mid).map(|(m, _)| *m);
        Some((peaks.iter().map(|(m, _)| *m).collect(), unlike.collect()))
    };
    let measures: Vec<(Vec<usize>, Vec<usize>)> = [c.role, "airflow_sp"]
        .iter()
        .take(if c.role == "airflow_sp" { 1 } else { 2 })
        .filter_map(|r| unlike_on(r))
        .collect();
    let Some(((_, first), rest)) = measures.split_first() else { return Vec::new() };
    first
        .iter()
        .copied()
        .filter(|m| rest.iter().all(|(sized, unlike)| !sized.contains(m) || unlike.contains(m)))
        .collect()
}

/// The robust spread of a cohort, 1.4826 x MAD / |median| (`None` with fewer than two values or
/// a median of 0).
pub fn spread(values: &[f64]) -> Option<f64> {
    let (med, mad, _) = robust_scale(values);
    (values.len() >= 2 && med != 0.0).then(|| 1.4826 * mad / med.abs())
}

/// How the rule was asked to compare.
struct Settings {
    k: f64,
    min_cohort: usize,
    summary: String,
    grouped: bool,
    normalise: String,
    tail: String,
    min_abs_dev: f64,
    max_spread: Option<f64>,
}

fn settings(c: &Cohort, spec: &RuleSpec, params: &Params) -> Settings {
    let min_abs_dev = params.number(spec, "min_abs_dev");
    let max_spread = params.number(spec, "max_spread");
    Settings {
        k: params.number(spec, "k"),
        min_cohort: params.number(spec, "min_cohort").max(1.0).round() as usize,
        summary: params.choice(spec, "summary"),
        grouped: params.flag(spec, "group_by_topology").unwrap_or(false),
        normalise: params.choice(spec, "normalise"),
        tail: params.choice(spec, "tail"),
        min_abs_dev: if min_abs_dev.is_nan() { c.min_abs_dev } else { min_abs_dev },
        max_spread: if max_spread.is_nan() { c.max_spread } else { Some(max_spread) },
    }
}

/// A unit's summary, its divisor (1 on the raw summary) and its robust z once scored.
struct Scored {
    member: usize,
    value: f64,
    divisor: f64,
}

/// Each member's summary (normalised when asked), and the members left out for want of one.
fn values(c: &Cohort, s: &Settings, fleet: &Fleet) -> (Vec<Option<Scored>>, Vec<usize>) {
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    for (i, m) in fleet.members.iter().enumerate() {
        let Some(col) = m.frame.col(c.role) else {
            out.push(None);
            continue;
        };
        let mut weights = m.frame.weights_hours();
        if c.occupied_band {
            for (w, occupied) in weights.iter_mut().zip(occupied_samples(m.frame)) {
                if !occupied {
                    *w = 0.0;
                }
            }
        }
        let Some(v) = summarise(&s.summary, col, &weights) else {
            out.push(None);
            continue;
        };
        let divisor = match s.normalise.as_str() {
            "" => Some(1.0),
            "design_max" => m.frame.col("airflow_sp").map(|sp| crate::engine::span(sp).1).filter(|d| *d > 0.0),
            // the reference's divisor is a structured input this engine does not take
            _ => None,
        };
        match divisor {
            Some(d) if (v / d).is_finite() => out.push(Some(Scored { member: i, value: v / d, divisor: d })),
            _ => {
                left_out.push(i);
                out.push(None);
            }
        }
    }
    (out, left_out)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0 + 0.0
}

/// Which cohorts the rule compares: the whole fleet, or each group of its topology.
fn cohorts(fleet: &Fleet, grouped: bool) -> Vec<(Option<String>, bool, Vec<usize>)> {
    if grouped {
        fleet.groups().into_iter().map(|g| (g.label, g.served, g.members)).collect()
    } else {
        vec![(None, false, (0..fleet.members.len()).collect())]
    }
}

fn cohort_name(label: &Option<String>, served: bool, n: usize) -> String {
    match label {
        Some(l) if served => format!("the {n} units {} serves", camber_common::text::name(l)),
        Some(l) => format!("the {n} {} units", camber_common::text::name(l)),
        None => format!("the {n} units of the fleet"),
    }
}

/// The cohort deviation of a fleet: one finding per cohort.
pub fn deviation(c: &Cohort, spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let s = settings(c, spec, params);
    let (scored, left_out) = values(c, &s, fleet);
    let raw = s.normalise.is_empty();
    let what = match s.normalise.as_str() {
        "" => format!("{} {}", s.summary.replace('_', " "), c.what),
        n => format!("{} {} ({})", s.summary.replace('_', " "), c.what, n.replace('_', " ")),
    };
    let side = match s.tail.as_str() {
        "low" => "below",
        "high" => "above",
        _ => "beyond",
    };
    let bound = match s.tail.as_str() {
        "low" => format!("-{}", s.k),
        "high" => format!("+{}", s.k),
        _ => format!("±{}", s.k),
    };
    let mut out = Vec::new();
    for (label, served, members) in cohorts(fleet, s.grouped) {
        let name = cohort_name(&label, served, members.len());
        let mut caveats = Vec::new();
        let mut metrics: BTreeMap<String, f64> = BTreeMap::new();
        let mut units: Vec<&Scored> = members.iter().filter_map(|&m| scored[m].as_ref()).collect();
        // compared raw, a sized role compares like units only: each unit's size is its peak
        let unlike: Vec<usize> = if raw && c.sized { unlike_sized(c, fleet, &units) } else { Vec::new() };
        units.retain(|u| !unlike.contains(&u.member));
        let dropped: Vec<String> = members
            .iter()
            .filter(|m| left_out.contains(m))
            .map(|&m| camber_common::text::name(fleet.members[m].equip))
            .collect();
        match s.normalise.as_str() {
            "design_max" => caveats.push("normalised by design airflow (the peak of each unit's airflow_sp): a share of design flow evens out box sizes, but a healthy box at its minimum and a box stuck at the same share look alike".to_string()),
            "reference" => caveats.push("normalise = reference divides each unit by a declared reference unit, a structured input (reference = {equip: reference_equip}) this engine does not take yet: nothing was compared; unset normalise, or use design_max".to_string()),
            _ => {}
        }
        if !dropped.is_empty() && s.normalise != "reference" {
            caveats.push(format!(
                "{} unit(s) left out, with no divisor to normalise by (no airflow_sp above 0): {}",
                dropped.len(),
                dropped.join(", ")
            ));
        }
        if !unlike.is_empty() {
            caveats.push(format!(
                "{} unit(s) left out as sized unlike the cohort (their peak {} more than {SIZE_RATIO} times from the cohort's median peak, so raw {} is no comparison; set normalise = design_max where airflow_sp is trended): {}",
                unlike.len(),
                c.what,
                c.what,
                equip_names(fleet, &unlike)
            ));
        }
        metrics.insert("n".into(), units.len() as f64);
        metrics.insert("n_left_out".into(), dropped.len() as f64);
        metrics.insert("n_unlike_size".into(), unlike.len() as f64);
        metrics.insert("k".into(), s.k);
        metrics.insert("min_cohort".into(), s.min_cohort as f64);
        if raw {
            metrics.insert("min_abs_dev".into(), s.min_abs_dev);
            if let Some(m) = s.max_spread {
                metrics.insert("max_spread".into(), m);
            }
        }
        let judged = judged_instants(fleet, c.role, units.iter().map(|u| u.member));
        if units.len() < s.min_cohort {
            let f = Finding::new(
                spec,
                Severity::Info,
                format!(
                    "cohort {}: {} of {name} could be summarised, and a cohort needs {}: not scored",
                    c.what,
                    units.len(),
                    s.min_cohort
                ),
            )
            .with_metrics(metrics)
            .with_caveats(caveats)
            .with_judged(judged);
            out.push(FleetFinding { group: label, finding: f, equips: Vec::new() });
            continue;
        }
        let vals: Vec<f64> = units.iter().map(|u| u.value).collect();
        let (med, mad, scale) = robust_scale(&vals);
        let z = |v: f64| if scale > 0.0 { (v - med) / scale } else { 0.0 };
        let far = |u: &Scored| !raw || (u.value - med).abs() >= s.min_abs_dev - 1e-9;
        let past = |zz: f64| match s.tail.as_str() {
            "low" => zz <= -s.k,
            "high" => zz >= s.k,
            _ => zz.abs() >= s.k,
        };
        let mut outliers: Vec<&Scored> = units.iter().copied().filter(|u| past(z(u.value)) && far(u)).collect();
        // a zone held between its own setpoints is satisfied, however its peers run
        let satisfied: Vec<usize> = if c.occupied_band && raw {
            outliers.iter().filter(|u| within_band(fleet, u.member, u.value)).map(|u| u.member).collect()
        } else {
            Vec::new()
        };
        if !satisfied.is_empty() {
            outliers.retain(|u| !satisfied.contains(&u.member));
            caveats.push(format!(
                "{} zone(s) stand apart from the cohort but sit between their own heating and cooling setpoints (occupied mean within {BAND_MARGIN_F} °F of the band), so they are satisfied, not outliers: {}",
                satisfied.len(),
                equip_names(fleet, &satisfied)
            ));
        }
        metrics.insert("n_satisfied_apart".into(), satisfied.len() as f64);
        // a unit apart on a raw size-scaled summary only because it is a bigger or smaller box
        // is not an outlier: it must stand apart as a share of its own size too
        let sized_alike: Vec<usize> = if c.sized && raw && !outliers.is_empty() {
            // sized by the airflow setpoint's peak only: a box's own airflow peak would size a
            // damper stuck part-shut as small and excuse it
            let size = |m: usize| {
                fleet.members[m].frame.col("airflow_sp").and_then(crate::engine::robust_peak).filter(|p| *p > 0.0)
            };
            // the shares of the units that trend a setpoint (at least three); an outlier without
            // one cannot be excused
            let shares: Vec<(usize, f64)> =
                units.iter().filter_map(|u| size(u.member).map(|p| (u.member, u.value / p))).collect();
            if shares.len() >= 3 {
                let (smed, _, sscale) = robust_scale(&shares.iter().map(|(_, v)| *v).collect::<Vec<f64>>());
                let alike = |m: usize| {
                    shares
                        .iter()
                        .find(|(x, _)| *x == m)
                        .is_some_and(|(_, v)| sscale > 0.0 && !past((v - smed) / sscale))
                };
                outliers.iter().filter(|u| alike(u.member)).map(|u| u.member).collect()
            } else {
                Vec::new()
            }
        } else {
            Vec::new()
        };
        if !sized_alike.is_empty() {
            outliers.retain(|u| !sized_alike.contains(&u.member));
            caveats.push(format!(
                "{} unit(s) stand apart on raw {} but not as a share of their own size (the peak of their airflow_sp): a bigger or smaller box, not an outlier: {}",
                sized_alike.len(),
                c.what,
                equip_names(fleet, &sized_alike)
            ));
        }
        metrics.insert("n_apart_by_size".into(), sized_alike.len() as f64);
        outliers.sort_by(|a, b| z(b.value).abs().total_cmp(&z(a.value).abs()));
        let cohort_spread = if raw { spread(&vals) } else { None };
        metrics.insert("median".into(), round3(med));
        metrics.insert("mad".into(), round3(mad));
        metrics.insert("outliers".into(), outliers.len() as f64);
        if let Some(sp) = cohort_spread {
            metrics.insert("cohort_spread".into(), round3(sp));
        }
        for u in &units {
            let e = fleet.members[u.member].equip;
            metrics.insert(format!("z.{e}"), round3(z(u.value)));
            metrics.insert(format!("value.{e}"), round3(u.value));
        }
        let wide = matches!((cohort_spread, s.max_spread), (Some(sp), Some(m)) if sp > m);
        if wide {
            caveats.push(format!(
                "the cohort's {what} spreads widely (robust spread {:.0} % of its median, over max_spread {:.0} %: unit sizes or loads differ), so only an extreme unit can stand out; compare like units (group_by_topology) or normalise them",
                100.0 * cohort_spread.unwrap_or(0.0),
                100.0 * s.max_spread.unwrap_or(0.0)
            ));
        }
        let largest = vals.iter().map(|&v| z(v).abs()).fold(0.0, crate::engine::max_of);
        if outliers.is_empty() {
            let (sev, tail) = if wide { (Severity::Info, ": too unlike to judge") } else { (Severity::Ok, "") };
            let f = Finding::new(
                spec,
                sev,
                format!(
                    "cohort {}: {name} agree on {what}, every robust z within {bound} (largest |z| {largest:.1}){tail}",
                    c.what
                ),
            )
            .with_metrics(metrics)
            .with_caveats(caveats)
            .with_judged(judged);
            out.push(FleetFinding { group: label, finding: f, equips: Vec::new() });
            continue;
        }
        let worst = outliers[0];
        let unit = if raw { format!(" {}", c.unit) } else { String::new() };
        let names: Vec<&str> = outliers.iter().map(|u| fleet.members[u.member].equip).collect();
        let summary = format!(
            "{} run(s) unlike {name} on {what}: {} at {:.2}{unit} against a cohort median of {:.2}{unit} (robust z {:+.1}, {side} {bound}); outlier(s), worst first: {}",
            outliers.len(),
            camber_common::text::name(fleet.members[worst.member].equip),
            worst.value,
            med,
            z(worst.value),
            equip_names(fleet, &outliers.iter().map(|u| u.member).collect::<Vec<_>>())
        );
        let flagged = flagged(fleet, c.role, &s.summary, &units, &outliers, &z);
        let f = Finding::new(spec, Severity::Warn, summary)
            .with_metrics(metrics)
            .with_caveats(caveats)
            .with_judged(judged)
            .with_flagged(flagged);
        out.push(FleetFinding { group: label, finding: f, equips: names.iter().map(|e| e.to_string()).collect() });
    }
    out
}

/// How many instants of the fleet's axis some of these members have a sample of `role` at.
fn judged_instants(fleet: &Fleet, role: &str, members: impl Iterator<Item = usize>) -> usize {
    let mut any = vec![false; fleet.times.len()];
    for m in members {
        if let Some(col) = fleet.column(m, role) {
            for (a, v) in any.iter_mut().zip(col) {
                *a |= !v.is_nan();
            }
        }
    }
    any.iter().filter(|a| **a).count()
}

/// The instants (on the fleet's axis) at which an outlier sits on its outlying side of its
/// cohort at that instant (above or below the median of the cohort's samples there, each
/// normalised as its summary is); every sample of an outlier when the summary is not a level
/// (load factor, variability).
fn flagged(
    fleet: &Fleet,
    role: &str,
    summary: &str,
    units: &[&Scored],
    outliers: &[&Scored],
    z: &dyn Fn(f64) -> f64,
) -> Vec<u32> {
    let n = fleet.times.len();
    let level = matches!(summary, "mean" | "peak");
    let column =
        |u: &Scored| fleet.column(u.member, role).map(|c| c.iter().map(|v| v / u.divisor).collect::<Vec<f64>>());
    // the cohort at an instant: each unit's sample standing then (a unit trended hourly still
    // counts at a quarter past)
    let held = |u: &Scored| fleet.held(u.member, role).map(|c| c.iter().map(|v| v / u.divisor).collect::<Vec<f64>>());
    let cohort: Vec<Vec<f64>> = if level { units.iter().filter_map(|u| held(u)).collect() } else { Vec::new() };
    let centre: Vec<f64> = (0..n)
        .map(|i| {
            let mut here: Vec<f64> = cohort.iter().map(|c| c[i]).filter(|v| !v.is_nan()).collect();
            median(&mut here)
        })
        .collect();
    let mut hit = vec![false; n];
    for u in outliers {
        let Some(col) = column(u) else { continue };
        let high = z(u.value) > 0.0;
        for ((h, x), c) in hit.iter_mut().zip(&col).zip(&centre) {
            if x.is_nan() {
                continue;
            }
            *h |= !level || (high && x > c) || (!high && x < c);
        }
    }
    hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i as u32).collect()
}

/// Fleets to test the cohort rules on, and the tests both share.
#[cfg(test)]
pub mod testkit {
    use super::Cohort;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, fleet, numbers, shuffled_with_duplicates, with, H, MONDAY};
    use crate::engine::{Frame, ParamValue, Params, Rule, Severity};
    use crate::fleet::FleetFinding;
    use crate::run::{run, EquipFrame, RunRequest};

    /// Two weeks of hours.
    pub const N: usize = 14 * 24;

    /// A unit's record: its role at `level` by day and a little lower at night, with a
    /// deterministic wobble of `swing`, and an airflow setpoint peaking at `design`.
    pub fn unit(c: &Cohort, level: f64, swing: f64, design: f64) -> Frame {
        let ts = every(MONDAY, H, N);
        let v: Vec<f64> = (0..N)
            .map(|i| {
                let day = (7..18).contains(&(i % 24));
                let base = if day { level } else { level * 0.9 };
                base + swing * ((i as f64) * 0.7).sin()
            })
            .collect();
        let sp: Vec<f64> = (0..N).map(|i| if (7..18).contains(&(i % 24)) { design } else { design * 0.3 }).collect();
        Frame::from_rows(&ts, &[(c.role, v), ("airflow_sp", sp)])
    }

    /// Six healthy units around `level`, each a little different.
    pub fn peers(c: &Cohort, level: f64) -> Vec<Frame> {
        [0.97, 1.0, 1.02, 0.99, 1.01, 1.03].iter().map(|f| unit(c, level * f, level * 0.01, 1000.0)).collect()
    }

    fn of(rule: &Rule, frames: &[(&str, Option<&str>, Frame)], p: &Params) -> Vec<FleetFinding> {
        let m: Vec<(&str, Option<&str>, &Frame)> = frames.iter().map(|(e, g, f)| (*e, *g, f)).collect();
        fleet(rule, &m, p)
    }

    fn named(frames: &[Frame], group: Option<&'static str>) -> Vec<(String, Option<&'static str>, Frame)> {
        frames.iter().enumerate().map(|(k, f)| (format!("V{k}"), group, f.clone())).collect()
    }

    fn refs<'a>(v: &'a [(String, Option<&'a str>, Frame)]) -> Vec<(&'a str, Option<&'a str>, Frame)> {
        v.iter().map(|(e, g, f)| (e.as_str(), *g, f.clone())).collect()
    }

    /// A healthy cohort is ok; a unit far above it warns, named first; the level boundary.
    pub fn found(rule: &Rule, c: &Cohort, level: f64) {
        let ok = of(rule, &refs(&named(&peers(c, level), None)), &Params::default());
        assert_eq!(ok.len(), 1);
        assert_eq!((ok[0].finding.severity, ok[0].group.clone()), (Severity::Ok, None), "{}", ok[0].finding.summary);
        assert!(ok[0].equips.is_empty() && ok[0].finding.flagged.is_empty());
        let mut frames = peers(c, level);
        frames[2] = unit(c, level * 1.4, level * 0.01, 1000.0);
        let bad = of(rule, &refs(&named(&frames, None)), &Params::default());
        let f = &bad[0].finding;
        assert_eq!(f.severity, Severity::Warn, "{}", f.summary);
        assert_eq!(bad[0].equips, ["V2"]);
        assert!(f.summary.starts_with("1 run(s) unlike the 6 units of the fleet"), "{}", f.summary);
        assert!(f.metrics["z.V2"] > 3.5 && f.metrics["z.V0"].abs() < 3.5, "{:?}", f.metrics);
        // flagged: the outlier's samples above its peers', by day and by night
        assert!(f.flagged.len() > N / 2, "{}", f.flagged.len());
        let mut flat = frames.clone();
        for g in flat.iter_mut() {
            // every unit at zero at night: those hours are not the outlier's
            for (i, v) in g.cols.get_mut(c.role).unwrap().iter_mut().enumerate() {
                if !(7..18).contains(&(i % 24)) {
                    *v = 0.0;
                }
            }
        }
        let day = of(rule, &refs(&named(&flat, None)), &Params::default());
        assert_eq!(day[0].equips, ["V2"]);
        assert_eq!(day[0].finding.flagged.len(), N / 24 * 11, "the occupied hours only");
        // exactly at k flags, just above it does not
        let z = f.metrics["z.V2"];
        let at = of(rule, &refs(&named(&frames, None)), &numbers(&[("k", z - 0.0005)]));
        assert_eq!(at[0].finding.severity, Severity::Warn);
        let above = of(rule, &refs(&named(&frames, None)), &numbers(&[("k", z + 0.01)]));
        assert_eq!(above[0].finding.severity, Severity::Ok, "{}", above[0].finding.summary);
        // one side only: a high outlier is not low
        let low = of(rule, &refs(&named(&frames, None)), &with(&[("tail", ParamValue::Choice("low".into()))]));
        assert_eq!(low[0].finding.severity, Severity::Ok, "{}", low[0].finding.summary);
        let high = of(rule, &refs(&named(&frames, None)), &with(&[("tail", ParamValue::Choice("high".into()))]));
        assert_eq!(high[0].equips, ["V2"]);
        // a cohort smaller than min_cohort is not scored
        let small = of(rule, &refs(&named(&frames, None)), &numbers(&[("min_cohort", 7.0)]));
        assert_eq!(small[0].finding.severity, Severity::Info, "{}", small[0].finding.summary);
    }

    /// The smallest difference that can make an outlier: a tight cohort's unit a little off
    /// is one only past `min_abs_dev`.
    pub fn min_abs_dev(rule: &Rule, c: &Cohort, level: f64) {
        let mut frames: Vec<Frame> =
            [0.0, 0.02, -0.02, 0.01, -0.01, 0.005].iter().map(|d| unit(c, level + d, 0.0, 1000.0)).collect();
        frames[0] = unit(c, level + 0.8, 0.0, 1000.0);
        // ten sigma and more, yet under a degree from the median
        let free = of(rule, &refs(&named(&frames, None)), &numbers(&[("min_abs_dev", 0.0)]));
        assert_eq!(free[0].equips, ["V0"], "{}", free[0].finding.summary);
        assert!(free[0].finding.metrics["z.V0"] > 10.0, "{:?}", free[0].finding.metrics);
        let dev = free[0].finding.metrics["value.V0"] - free[0].finding.metrics["median"];
        assert!(dev < 0.8, "{dev}");
        // at the floor (metrics are rounded to 0.001) it flags, just past it not
        let at = of(rule, &refs(&named(&frames, None)), &numbers(&[("min_abs_dev", dev - 0.002)]));
        assert_eq!(at[0].finding.severity, Severity::Warn, "{}", at[0].finding.summary);
        let past = of(rule, &refs(&named(&frames, None)), &numbers(&[("min_abs_dev", dev + 0.01)]));
        assert_eq!(past[0].finding.severity, Severity::Ok, "{}", past[0].finding.summary);
    }

    /// Grouped by topology, a unit normal for the fleet but odd on its air handler is found
    /// there, one finding per air handler.
    pub fn grouped(rule: &Rule, c: &Cohort, level: f64) {
        let mut frames = named(&peers(c, level), Some("AHU-1"));
        frames.extend(peers(c, level * 1.3).into_iter().enumerate().map(|(k, f)| (format!("W{k}"), Some("AHU-2"), f)));
        // the odd one: AHU-2's level on AHU-1
        frames[1].2 = unit(c, level * 1.3, level * 0.01, 1000.0);
        let on = with(&[("group_by_topology", ParamValue::Flag(Some(true)))]);
        let got = of(rule, &refs(&frames), &on);
        let groups: Vec<Option<&str>> = got.iter().map(|f| f.group.as_deref()).collect();
        assert_eq!(groups, [Some("AHU-1"), Some("AHU-2")]);
        assert_eq!((got[0].finding.severity, got[0].equips.clone()), (Severity::Warn, vec!["V1".to_string()]));
        assert_eq!(got[1].finding.severity, Severity::Ok, "{}", got[1].finding.summary);
        // off, the fleet is one cohort
        let pooled = of(rule, &refs(&frames), &Params::default());
        assert_eq!(pooled.len(), 1);
        assert!(!pooled[0].equips.contains(&"V1".to_string()), "{}", pooled[0].finding.summary);
    }

    /// Gaps, repeated and disordered rows and a faster trend leave the verdict alone.
    pub fn sampling(rule: &Rule, c: &Cohort, level: f64) {
        let mut frames = peers(c, level);
        frames[4] = unit(c, level * 1.4, level * 0.01, 1000.0);
        let base = named(&frames, None);
        let want = of(rule, &refs(&base), &Params::default());
        let shuffled: Vec<(&str, Option<&str>, Frame)> =
            refs(&base).into_iter().map(|(e, g, f)| (e, g, shuffled_with_duplicates(&f))).collect();
        let got = of(rule, &shuffled, &Params::default());
        assert_eq!(
            (got[0].finding.summary.clone(), got[0].equips.clone()),
            (want[0].finding.summary.clone(), want[0].equips.clone())
        );
        // a unit missing its nights for a week (a gap) keeps its mean: the gap is not judged
        let mut gap = refs(&base);
        let f = &gap[0].2;
        let keep: Vec<usize> = (0..f.len()).filter(|&i| i >= 7 * 24 || (7..18).contains(&(i % 24))).collect();
        gap[0].2 = Frame {
            ts: keep.iter().map(|&i| f.ts[i]).collect(),
            cols: f.cols.iter().map(|(k, c)| (k.clone(), keep.iter().map(|&i| c[i]).collect())).collect(),
        };
        let got = of(rule, &gap, &Params::default());
        assert_eq!(got[0].equips, want[0].equips, "{}", got[0].finding.summary);
        // a unit trended every 15 minutes: its mean is still of time
        let mut fast = refs(&base);
        let f = unit(c, level, level * 0.01, 1000.0);
        let ts = every(MONDAY, H / 4, 4 * N);
        let cols: Vec<(&str, Vec<f64>)> =
            f.cols.iter().map(|(k, v)| (k.as_str(), (0..4 * N).map(|i| v[i / 4]).collect())).collect();
        fast[1].2 = Frame::from_rows(&ts, &cols);
        let got = of(rule, &fast, &Params::default());
        assert_eq!(got[0].equips, want[0].equips, "{}", got[0].finding.summary);
        assert!((got[0].finding.metrics["value.V1"] - want[0].finding.metrics["value.V1"]).abs() < 1e-6);
    }

    /// Through a run: a unit without the role is a skip naming it, the topology groups, and
    /// the config's parameters are the reference's.
    pub fn through_a_run(rule_id: &str, c: &Cohort, level: f64) {
        let c_json = serde_json::json!({
            "equipment": [{"class": "VAV"}],
            "rules": [{"name": rule_id, "params": {"group_by_topology": true, "normalise": null, "summary": "mean", "tail": "both"}}],
            "topology": {"parents": {"V0": "AHU-1", "V1": "AHU-1", "V2": "AHU-1", "V3": "AHU-1", "V4": "AHU-1", "V5": "AHU-1"}}
        });
        let config = RunConfig::from_value(&c_json).unwrap();
        let mut frames: Vec<EquipFrame> = peers(c, level)
            .into_iter()
            .enumerate()
            .map(|(k, frame)| EquipFrame { equip: format!("V{k}"), class: "VAV".into(), frame })
            .collect();
        frames[3].frame = unit(c, level * 1.5, level * 0.01, 1000.0);
        frames[5].frame.cols.remove(c.role);
        let r = run(&config, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
        assert_eq!(r.skipped.len(), 1);
        assert_eq!((r.skipped[0].equip.as_str(), r.skipped[0].missing.clone()), ("V5", vec![c.role.to_string()]));
        assert_eq!(r.findings.len(), 1);
        let f = &r.findings[0];
        assert_eq!(f.id, format!("{rule_id}@<fleet:AHU-1>"));
        assert_eq!((f.finding.severity, f.equips.clone()), (Severity::Warn, vec!["V3".to_string()]));
        assert_eq!(f.members, ["V0", "V1", "V2", "V3", "V4"]);
        let normalise = f.params.iter().find(|p| p.name == "normalise").unwrap();
        assert_eq!((normalise.value.to_json(), normalise.source), (serde_json::Value::Null, "config"));
        // min_abs_dev unset: the role's own floor is reported as what it ran with
        let floor = f.params.iter().find(|p| p.name == "min_abs_dev").unwrap();
        assert_eq!(floor.value, ParamValue::Number(c.min_abs_dev));
        // a null choice is refused where the default is set
        let e = RunConfig::from_value(&serde_json::json!({"rules": [{"name": rule_id, "params": {"tail": null}}]}))
            .unwrap_err();
        assert!(e.contains("tail"), "{e}");
    }

    /// Degenerate fleets do not panic: one unit, a flat cohort, all-NaN and empty frames.
    pub fn degenerate(rule: &Rule, c: &Cohort, level: f64) {
        let one = of(rule, &[("V0", None, unit(c, level, 0.0, 1000.0))], &Params::default());
        assert_eq!(one[0].finding.severity, Severity::Info);
        let flat: Vec<Frame> = (0..5).map(|_| unit(c, level, 0.0, 1000.0)).collect();
        let got = of(rule, &refs(&named(&flat, None)), &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Ok, "{}", got[0].finding.summary);
        let mut nan = unit(c, level, 0.0, 1000.0);
        nan.cols.values_mut().for_each(|v| v.iter_mut().for_each(|x| *x = f64::NAN));
        let got = of(rule, &[("V0", None, Frame::default()), ("V1", None, nan)], &Params::default());
        assert_eq!(got[0].finding.severity, Severity::Info);
        for summary in super::SUMMARIES {
            let p = with(&[("summary", ParamValue::Choice(summary.to_string()))]);
            let _ = of(rule, &refs(&named(&flat, None)), &p);
        }
    }

    /// A big box moving proportionally more air is not an outlier, normalised by design airflow
    /// or raw (where it stands apart only on its size); normalised, a unit without an airflow
    /// setpoint is left out; and `reference` says it cannot.
    pub fn normalised(rule: &Rule, c: &Cohort, level: f64) {
        let mut frames = peers(c, level);
        frames[0] = unit(c, level * 2.0, level * 0.02, 2000.0);
        frames[5].cols.remove("airflow_sp");
        let design = with(&[("normalise", ParamValue::Choice("design_max".into()))]);
        let got = of(rule, &refs(&named(&frames, None)), &design);
        let f = &got[0].finding;
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!(f.metrics["n_left_out"], 1.0);
        assert!(f.caveats.iter().any(|c| c.contains("left out") && c.contains("V5")), "{:?}", f.caveats);
        // raw, a size-scaled role stands apart on its value but not as a share of its size: not
        // an outlier; a role that does not scale with size (a temperature) is one
        let raw = of(rule, &refs(&named(&frames, None)), &Params::default());
        if c.sized {
            assert!(raw[0].equips.is_empty(), "{}", raw[0].finding.summary);
            assert_eq!(raw[0].finding.metrics["n_apart_by_size"], 1.0);
            let caveats = &raw[0].finding.caveats;
            assert!(caveats.iter().any(|c| c.contains("share of their own size")), "{caveats:?}");
        } else {
            assert_eq!(raw[0].equips, ["V0"], "{}", raw[0].finding.summary);
        }
        let reference = with(&[("normalise", ParamValue::Choice("reference".into()))]);
        let got = of(rule, &refs(&named(&frames, None)), &reference);
        assert_eq!(got[0].finding.severity, Severity::Info);
        assert!(got[0].finding.caveats.iter().any(|c| c.contains("does not take yet")), "{:?}", got[0].finding.caveats);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_weighed_by_time() {
        let v = [1.0, 3.0, f64::NAN, 5.0];
        let w = [1.0, 1.0, 1.0, 2.0];
        assert_eq!(summarise("mean", &v, &w), Some(14.0 / 4.0));
        assert_eq!(summarise("peak", &v, &w), Some(5.0));
        assert_eq!(summarise("load_factor", &v, &w), Some(3.5 / 5.0));
        let var = (2.5f64 * 2.5 + 0.5 * 0.5 + 2.0 * 1.5 * 1.5) / 4.0;
        assert!((summarise("variability", &v, &w).unwrap() - var.sqrt()).abs() < 1e-12);
        assert_eq!(summarise("mean", &[f64::NAN], &[1.0]), None);
        assert_eq!(summarise("load_factor", &[0.0, 0.0], &[1.0, 1.0]), None);
    }

    #[test]
    fn the_robust_scale_survives_a_zero_mad() {
        let (med, mad, scale) = robust_scale(&[1.0, 2.0, 3.0, 4.0, 100.0]);
        assert_eq!((med, mad), (3.0, 1.0));
        assert!((scale - 1.4826).abs() < 1e-12);
        // most units share a value: the mean absolute deviation stands in
        let (med, mad, scale) = robust_scale(&[5.0, 5.0, 5.0, 5.0, 9.0]);
        assert_eq!((med, mad), (5.0, 0.0));
        assert!((scale - 1.2533 * 0.8).abs() < 1e-12);
        assert_eq!(spread(&[10.0, 10.0, 12.0]), Some(0.0));
        assert_eq!(spread(&[1.0]), None);
        assert_eq!(spread(&[-1.0, 0.0, 1.0]), None);
    }
}
