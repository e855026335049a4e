//! Sensor trust: how far a point's trend can be believed, from what the trend itself shows
//! (coverage on the run's grid, values outside what the role can physically read, one-sample
//! spikes, a value frozen while the equipment runs), and how it compares with a reference
//! instrument. The trust floor and the `sensor_trust` capability read the same [`assess_frame`]
//! on the same frames, so a check is declined exactly when its input is listed below the floor.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{count_where, fan_on, median, round2, Frame, Severity, NS_PER_HOUR};

/// A trust score at or above this is "trusted"; below [`SUSPECT`] "untrusted".
pub const TRUSTED: f64 = 0.8;
/// A trust score at or above this (and below [`TRUSTED`]) is "suspect".
pub const SUSPECT: f64 = 0.5;
/// A value held this long while the equipment runs is stuck: a real temperature, humidity,
/// flow or pressure reading moves within a day (the reference's limit; CO2 gets two, as an empty
/// building can sit at the outdoor background over a weekend).
fn stuck_hours(role: &str) -> f64 {
    if role.contains("co2") {
        48.0
    } else {
        24.0
    }
}

/// A point with at least this share of its samples on running slots is logged while running,
/// and its coverage may be read over the running slots of its span (at least this many).
const BURST_SHARE: f64 = 0.95;
const MIN_RUNNING_ROWS: usize = 24;

/// Roles that rest at an "off" reading near zero (a flow with its pump stopped, an unfired
/// boiler's gas rate): a run at rest is not frozen, and a jump to or from rest is not a spike.
fn rests_at_zero(role: &str) -> bool {
    role.contains("flow")
        || role.contains("power")
        || role.contains("rate")
        || role.contains("static")
        || role == "pump_head"
        || role.contains("energy")
}

/// One point's trust.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trust {
    /// 0 (do not believe it) to 1.
    pub score: f64,
    /// "trusted", "suspect" or "untrusted".
    pub verdict: &'static str,
    /// What lowered the score ("low_coverage", "out_of_range", "spikes", "stuck", "never_changes",
    /// "few_samples", and a wrong unit for the role: "degC_in_degF_building",
    /// "fraction_not_percent").
    pub flags: Vec<&'static str>,
    /// Samples over the grid slots of the point's own span, or, for a point logged only while
    /// its equipment runs, over the running slots of its span (`coverage_of`).
    pub coverage: f64,
    /// What the coverage is of: "span" or "running hours".
    pub coverage_of: &'static str,
    pub samples: usize,
    /// Shares of the samples out of range, spiking, and (of the running samples) frozen.
    pub out_of_range_share: f64,
    pub spike_share: f64,
    pub stuck_share: f64,
    /// Whether the frozen-value read was on running samples only.
    pub gated: bool,
}

/// What kind of signal a role is, from its name.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A measurement: judged for spikes and frozen values.
    Sensor,
    /// A command or setpoint: held values are normal.
    Command,
    /// On/off.
    Binary,
}

/// The kind of a role, its physical range and the least jump that can count as a spike.
fn describe(role: &str) -> (Kind, Option<(f64, f64)>, f64) {
    let r = role;
    // occupancy is a flag (0/1) or a count of people (its unit is persons): any count is in range
    if r == "occupancy" {
        return (Kind::Binary, Some((-0.01, 1.0e5)), 0.0);
    }
    if r.contains("status") || (r.ends_with("_cmd") && r.contains("enable")) {
        return (Kind::Binary, Some((-0.01, 1.01)), 0.0);
    }
    if r.ends_with("_sp")
        || r.contains("setpoint")
        || r.ends_with("_requests")
        || r.contains("loop")
        || r.contains("stage")
    {
        return (Kind::Command, None, 0.0);
    }
    if r.contains("valve") || r.contains("damper") || r.contains("speed") || r.ends_with("_cmd") {
        return (Kind::Command, Some((-1.0, 101.0)), 0.0);
    }
    if r == "oat" || r == "outdoor_air_temp" {
        return (Kind::Sensor, Some((-60.0, 130.0)), 8.0);
    }
    let water = r.contains("water") || r.starts_with("chw") || r.starts_with("hw") || r.starts_with("cw");
    if water && r.ends_with("_temp") {
        return (Kind::Sensor, Some((20.0, 250.0)), 8.0);
    }
    if r.ends_with("_temp") || r.ends_with("_wet_bulb") || r == "wet_bulb" {
        return (Kind::Sensor, Some((-40.0, 200.0)), 8.0);
    }
    if r.ends_with("_rh") || r.contains("humidity") {
        return (Kind::Sensor, Some((0.0, 100.0)), 15.0);
    }
    if r.contains("co2") {
        return (Kind::Sensor, Some((150.0, 5000.0)), 300.0);
    }
    if r.contains("static") {
        return (Kind::Sensor, Some((-1.0, 10.0)), 0.5);
    }
    if r.contains("airflow") || r.ends_with("_flow") {
        return (Kind::Sensor, Some((-1.0, 1.0e6)), 0.0);
    }
    (Kind::Sensor, None, 0.0)
}

fn verdict(score: f64) -> &'static str {
    if score >= TRUSTED {
        "trusted"
    } else if score >= SUSPECT {
        "suspect"
    } else {
        "untrusted"
    }
}

/// Score one point of a frame on a grid of `step_ns`; `running` gates the frozen-value read.
pub fn assess(role: &str, ts: &[i64], v: &[f64], running: Option<&[Option<bool>]>, step_ns: i64) -> Trust {
    let (kind, range, spike_floor) = describe(role);
    // the passes below stream over the column itself, skipping NaN, so that each is one tight
    // loop over contiguous values (no list of sample indices to gather through)
    let (Some(first), Some(last)) = (v.iter().position(|x| !x.is_nan()), v.iter().rposition(|x| !x.is_nan())) else {
        return Trust {
            score: 0.0,
            verdict: "untrusted",
            flags: vec!["no_samples"],
            coverage: 0.0,
            coverage_of: "span",
            samples: 0,
            out_of_range_share: 0.0,
            spike_share: 0.0,
            stuck_share: 0.0,
            gated: false,
        };
    };
    let n = count_where(v, |x| !x.is_nan());
    let mut flags = Vec::new();
    let step = step_ns.max(1);
    let slots = ((ts[last] - ts[first]) / step + 1).max(1) as f64;
    let mut coverage = (n as f64 / slots).min(1.0);
    // a trend logged only while its equipment runs (a chiller's condenser water, a tower's
    // approach): its coverage is of the running hours of its span
    let mut of_running = false;
    if let (Some(r), true) = (running, coverage < 0.9) {
        let (run_rows, at_running) = running_rows(&v[first..=last], r.get(first..).unwrap_or_default());
        if run_rows >= MIN_RUNNING_ROWS && at_running as f64 >= BURST_SHARE * n as f64 {
            let c = (at_running as f64 / run_rows as f64).min(1.0);
            if c > coverage {
                coverage = c;
                of_running = true;
            }
        }
    }
    if coverage < 0.9 {
        flags.push("low_coverage");
    }
    // NaN is neither below nor above: only samples count
    let out = range.map_or(0, |(lo, hi)| count_where(v, |x| x < lo || x > hi));
    let out_share = out as f64 / n as f64;
    if out > 0 {
        flags.push("out_of_range");
    }
    let (mut spike_share, mut stuck_share, mut gated) = (0.0, 0.0, false);
    let mut stuck_run = false;
    if kind == Kind::Sensor && n >= 3 {
        // a spike leaves and comes back: it differs from both neighbours, the same way, by
        // far more than the trend's usual step when it moves (a point that sits still half the
        // time, a box's airflow at zero overnight, would otherwise make its daytime noise
        // read as spikes)
        let thr = (8.0 * typical_move(v, n)).max(spike_floor).max(f64::MIN_POSITIVE);
        // "at rest": within 2 % of the point's 99th-percentile magnitude, for a role that rests
        let rest = if rests_at_zero(role) { rest_band(v, n) } else { f64::NEG_INFINITY };
        spike_share = spike_count(v, n, thr, rest) as f64 / n as f64;
        if spike_share > 0.0 {
            flags.push("spikes");
        }
        // frozen: identical values held for a day (stuck_hours) or more of running samples
        gated = running.is_some();
        let hours_per = step as f64 / NS_PER_HOUR as f64;
        let frozen = frozen_samples(v, running, hours_per, stuck_hours(role), rest);
        stuck_run = frozen.any;
        if frozen.judged > 0 {
            stuck_share = frozen.samples as f64 / frozen.judged as f64;
        }
        if stuck_share >= 0.999 && frozen.judged as f64 * hours_per >= 14.0 * 24.0 {
            flags.push("never_changes");
        } else if stuck_run {
            flags.push("stuck");
        }
    }
    if n < 24 {
        flags.push("few_samples");
    }
    let mut score = coverage
        * (1.0 - (3.0 * out_share).min(1.0))
        * (1.0 - (2.0 * spike_share).min(1.0))
        * (1.0 - 0.8 * stuck_share);
    if stuck_run {
        score = score.min(TRUSTED - 0.01);
    }
    let score = round2(score.clamp(0.0, 1.0));
    Trust {
        score,
        verdict: verdict(score),
        flags,
        coverage: round2(coverage),
        coverage_of: if of_running { "running hours" } else { "span" },
        samples: n,
        out_of_range_share: round2(out_share),
        spike_share: (spike_share * 10_000.0).round() / 10_000.0,
        stuck_share: round2(stuck_share),
        gated,
    }
}

// Each pass over a column below is a function of its own (`inline(never)`): inlined into
// `assess`, the sandbox's compiler kept their running values on the stack (a store and a load
// per sample); on their own they stay in registers.

/// The column's samples (its values that are not NaN), in order.
fn present(v: &[f64]) -> impl Iterator<Item = f64> + '_ {
    v.iter().copied().filter(|x| !x.is_nan())
}

/// Of the rows from a column's first sample to its last: those where the equipment runs, and
/// those where it runs and the column has a sample.
#[inline(never)]
fn running_rows(v: &[f64], running: &[Option<bool>]) -> (usize, usize) {
    let (mut rows, mut sampled) = (0, 0);
    for (x, r) in v.iter().zip(running) {
        if *r == Some(true) {
            rows += 1;
            sampled += usize::from(!x.is_nan());
        }
    }
    (rows, sampled)
}

/// `$f` called with the column `$v`'s samples in order (`$n` of them), then `$arg`s: the slice
/// itself when it has no gap, else its values that are not NaN. In the sandbox a filtered loop checks the
/// call's deadline and fuel twice a sample (the filter's loop inside the caller's), and most
/// logged columns have no gap.
macro_rules! with_samples {
    ($f:ident($v:expr, $n:expr) $(, $arg:expr)*) => {
        if $n == $v.len() {
            $f($v.iter().copied() $(, $arg)*)
        } else {
            $f(present($v) $(, $arg)*)
        }
    };
}

/// The median size of a sample-to-sample change, among the changes that are not zero (`n`: the
/// column's samples).
fn typical_move(v: &[f64], n: usize) -> f64 {
    with_samples!(typical_move_of(v, n), n)
}

/// [`typical_move`] over the `n` samples.
#[inline(never)]
fn typical_move_of(mut samples: impl Iterator<Item = f64>, n: usize) -> f64 {
    // every change is written and only those that are not zero are kept (the next one writes
    // over a zero): no branch on the data, which a trend's runs of held values make unpredictable
    let mut steps: Vec<f64> = vec![0.0; n];
    let mut kept = 0;
    if let Some(mut prev) = samples.next() {
        for x in samples {
            let d = (x - prev).abs();
            steps[kept] = d;
            kept += usize::from(d > 0.0);
            prev = x;
        }
    }
    steps.truncate(kept);
    median(&mut steps)
}

/// 2 % of the point's 99th-percentile magnitude: the band a role that rests at zero rests in
/// (`n`: the column's samples).
fn rest_band(v: &[f64], n: usize) -> f64 {
    with_samples!(rest_band_of(v, n), n)
}

/// [`rest_band`] over the `n` samples.
#[inline(never)]
fn rest_band_of(samples: impl Iterator<Item = f64>, n: usize) -> f64 {
    let mut mags: Vec<f64> = Vec::with_capacity(n);
    mags.extend(samples.map(f64::abs));
    let k = ((mags.len() - 1) as f64 * 0.99) as usize;
    0.02 * *mags.select_nth_unstable_by(k, f64::total_cmp).1
}

/// Samples that differ from both neighbouring samples, the same way, by more than `thr`, none
/// of the three at rest (`n`: the column's samples).
fn spike_count(v: &[f64], n: usize, thr: f64, rest: f64) -> usize {
    with_samples!(spike_count_of(v, n), thr, rest)
}

/// [`spike_count`] over the samples.
#[inline(never)]
fn spike_count_of(mut samples: impl Iterator<Item = f64>, thr: f64, rest: f64) -> usize {
    let at_rest = |x: f64| x.abs() <= rest;
    let (Some(mut a), Some(mut b)) = (samples.next(), samples.next()) else {
        return 0;
    };
    let mut count = 0;
    for c in samples {
        let (d1, d2) = (b - a, b - c);
        // both changes beyond `thr` the same way (`thr` > 0, so neither is zero): two compares
        // each, where `signum` tests for NaN and copies a sign on every sample
        let apart = (d1 > thr && d2 > thr) || (d1 < -thr && d2 < -thr);
        let spike = apart && !at_rest(a) && !at_rest(b) && !at_rest(c);
        count += usize::from(spike);
        (a, b) = (b, c);
    }
    count
}

/// What [`frozen_samples`] found: the judged samples, those of them inside a frozen run, and
/// whether there was one.
struct Frozen {
    judged: usize,
    samples: usize,
    any: bool,
}

/// The samples judged (those taken while the equipment runs, every sample when nothing says
/// when it runs) and those of them inside runs of one value held for `stuck_after` hours or
/// more (not at rest); a run is of consecutive judged samples.
#[inline(never)]
fn frozen_samples(v: &[f64], running: Option<&[Option<bool>]>, hours_per: f64, stuck_after: f64, rest: f64) -> Frozen {
    let mut out = Frozen { judged: 0, samples: 0, any: false };
    let close = |value: f64, len: usize, out: &mut Frozen| {
        if len > 0 && len as f64 * hours_per >= stuck_after && value.abs() > rest {
            out.samples += len;
            out.any = true;
        }
    };
    let (mut value, mut len) = (f64::NAN, 0usize);
    let mut take = |x: f64, out: &mut Frozen| {
        out.judged += 1;
        if len > 0 && x == value {
            len += 1;
        } else {
            close(value, len, out);
            (value, len) = (x, 1);
        }
    };
    match running {
        None => present(v).for_each(|x| take(x, &mut out)),
        // a row past the running signal's end does not run (the zip stops there)
        Some(r) => {
            for (&x, &ri) in v.iter().zip(r) {
                if !x.is_nan() && ri == Some(true) {
                    take(x, &mut out);
                }
            }
        }
    }
    close(value, len, &mut out);
    out
}

/// Every role of an equipment's run frame scored; the fan (status, else speed, else airflow)
/// gates the frozen-value read.
pub fn assess_frame(frame: &Frame, step_ns: i64) -> BTreeMap<String, Trust> {
    assess_roles(frame, step_ns, |_| true)
}

/// [`assess_frame`] for the roles `wanted` picks only (each scored as `assess_frame` scores it).
pub fn assess_roles(frame: &Frame, step_ns: i64, wanted: impl Fn(&str) -> bool) -> BTreeMap<String, Trust> {
    let fan = fan_on(frame).map(|(r, _)| r).or_else(|| plant_running(frame));
    let running = fan.as_deref();
    let mut out: BTreeMap<String, Trust> = frame
        .cols
        .iter()
        .filter(|(role, c)| wanted(role) && c.iter().any(|x| !x.is_nan()))
        .map(|(role, c)| {
            // the running signal is not judged on its own running hours
            let own = running.filter(|r| !says_running(role, c, r));
            (role.clone(), assess(role, &frame.ts, c, own, step_ns))
        })
        .collect();
    for (role, flag) in wrong_units(frame, running) {
        if let Some(t) = out.get_mut(&role) {
            t.flags.push(flag);
            t.score = t.score.min(WRONG_UNIT_SCORE);
            t.verdict = verdict(t.score);
        }
    }
    out
}

/// The score of a point recorded in the wrong unit for its role: below any sensible floor.
const WRONG_UNIT_SCORE: f64 = 0.2;

/// What a temperature role reads while its equipment runs, in °F (a band its median keeps to in
/// any building trended in °F), for the roles where a reading in °C falls outside it.
fn temp_band(role: &str) -> Option<(f64, f64)> {
    let r = role;
    if !r.ends_with("_temp") || r.contains("approach") || r == "oat" || r.contains("outdoor") || r.contains("wet") {
        return None;
    }
    if r.starts_with("chw") || r.contains("evap") {
        Some((34.0, 70.0))
    } else if r.starts_with("hw") {
        Some((85.0, 220.0))
    } else if r.starts_with("cw") || r.contains("cond") {
        Some((50.0, 115.0))
    } else if r.contains("space") || r.contains("zone") || r.starts_with("return_air") {
        Some((55.0, 90.0))
    } else if r.contains("supply_air") || r.contains("discharge_air") || r.starts_with("mixed_air") {
        Some((38.0, 100.0))
    } else {
        None
    }
}

/// Roles of a frame recorded in the wrong unit, told from what they show while the equipment
/// runs against their sibling points on the same equipment: a temperature whose running median
/// is outside its role's °F band but inside it once read as °C, while another temperature of
/// the equipment sits in its own °F band (`degC_in_degF_building`); a valve, damper or speed
/// that stays within 0-1 while it moves, while a sibling command reads 0-100
/// (`fraction_not_percent`). A unit that trends everything in °C or 0-1 is consistent and not
/// flagged here.
fn wrong_units(frame: &Frame, running: Option<&[Option<bool>]>) -> Vec<(String, &'static str)> {
    // where the equipment runs, worked out once for every column (every row without a signal)
    let n = frame.len();
    let runs: Vec<bool> = match running {
        Some(r) => (0..n).map(|i| r.get(i).copied().flatten() == Some(true)).collect(),
        None => vec![true; n],
    };
    // a column's running samples, copied without a branch on the data into one buffer that
    // every temperature reuses (a filtered copy per column cost the sandbox a call per sample)
    fn running_values<'b>(c: &[f64], runs: &[bool], buf: &'b mut [f64]) -> &'b mut [f64] {
        let mut k = 0;
        for (&x, &r) in c.iter().zip(runs) {
            buf[k] = x;
            k += usize::from(r & !x.is_nan());
        }
        &mut buf[..k]
    }
    // sized by the first temperature: a frame without one zeroes no buffer
    let mut buf: Vec<f64> = Vec::new();
    let mut out = Vec::new();
    // temperatures: medians while running
    let mut temps: Vec<(&String, (f64, f64), f64)> = Vec::new();
    for (role, c) in &frame.cols {
        let Some(band) = temp_band(role) else { continue };
        if buf.len() < c.len() {
            buf.resize(c.len(), 0.0);
        }
        let v = running_values(c, &runs, &mut buf);
        if v.len() >= MIN_RUNNING_ROWS {
            temps.push((role, band, median(v)));
        }
    }
    let inside = |m: f64, (lo, hi): (f64, f64)| m >= lo && m <= hi;
    for (role, band, m) in &temps {
        let as_f = m * 1.8 + 32.0;
        let sibling_in_f = temps.iter().any(|(r, b, x)| r != role && inside(*x, *b));
        if !inside(*m, *band) && inside(as_f, *band) && sibling_in_f {
            out.push((role.to_string(), "degC_in_degF_building"));
        }
    }
    // commands on a 0-100 % scale
    let percent = |role: &str| role.contains("valve") || role.contains("damper") || role.ends_with("_speed");
    let spans: Vec<(&String, f64, f64)> = frame
        .cols
        .iter()
        .filter(|(role, _)| percent(role))
        .filter_map(|(role, c)| {
            // the running values' count and span, in one pass with no list made
            let (mut count, mut lo, mut hi) = (0usize, f64::INFINITY, f64::NEG_INFINITY);
            for (&x, &r) in c.iter().zip(&runs) {
                let keep = r & !x.is_nan();
                count += usize::from(keep);
                lo = if keep { crate::engine::min_of(lo, x) } else { lo };
                hi = if keep { crate::engine::max_of(hi, x) } else { hi };
            }
            (count >= MIN_RUNNING_ROWS).then_some((role, lo, hi))
        })
        .collect();
    for (role, lo, hi) in &spans {
        let sibling_percent = spans.iter().any(|(r, _, h)| r != role && *h > 1.5);
        if *lo >= -0.01 && *hi <= 1.0 && *hi - *lo >= 0.05 && sibling_percent {
            out.push((role.to_string(), "fraction_not_percent"));
        }
    }
    out
}

/// Whether a column is the running signal itself: known exactly where the signal is.
fn says_running(role: &str, col: &[f64], running: &[Option<bool>]) -> bool {
    (role.ends_with("_status")
        || role.ends_with("_speed")
        || role.ends_with("_flow")
        || role.contains("power")
        || role == "airflow")
        && col.iter().zip(running).all(|(v, r)| v.is_nan() == r.is_none())
}

/// When equipment without a fan runs: a plant's, pump's, chiller's or boiler's own run status
/// (`pump_status`, `chiller_status`, ...), the first one the frame has.
fn plant_running(frame: &Frame) -> Option<Vec<Option<bool>>> {
    let has = |k: &str, c: &[f64]| {
        c.iter().any(|x| !x.is_nan()) && !(k.ends_with("_sp") || k.contains("_sp_") || k.contains("setpoint"))
    };
    if let Some((_, c)) = frame.cols.iter().find(|(k, c)| k.ends_with("_status") && has(k, c)) {
        return Some(c.iter().map(|&x| (!x.is_nan()).then(|| crate::engine::on(x))).collect());
    }
    // else a pump's or fan's speed above 1 %, else a flow, then a power, above 5 % of its 95th
    // percentile: what says a plant without a status point runs
    let above = |c: &[f64], frac: f64| {
        let mut seen: Vec<f64> = c.iter().copied().filter(|v| !v.is_nan()).collect();
        seen.sort_by(f64::total_cmp);
        let p95 = seen.get((seen.len() as f64 * 0.95) as usize).or(seen.last()).copied().unwrap_or(f64::NAN);
        let floor = if frac < 0.0 {
            if p95 <= 1.0 {
                0.01
            } else {
                1.0
            }
        } else {
            frac * p95
        };
        c.iter().map(|&x| (!x.is_nan()).then_some(x > floor)).collect::<Vec<Option<bool>>>()
    };
    for (suffix, frac) in [("_speed", -1.0), ("_flow", 0.05), ("power", 0.05)] {
        if let Some((_, c)) = frame.cols.iter().find(|(k, c)| k.ends_with(suffix) && has(k, c)) {
            return Some(above(c, frac));
        }
    }
    None
}

/// A point compared with a reference instrument over their paired samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Median of point minus reference: positive means the point reads high.
    pub bias: f64,
    /// "high", "low" or "none".
    pub sign: &'static str,
    pub rmse: f64,
    /// Pearson correlation (NaN when either side does not vary).
    pub correlation: f64,
    pub samples: usize,
    pub overlap_hours: f64,
    pub severity: Severity,
}

/// Bias levels (in the role's units) that warn and fault.
pub(crate) fn bias_levels(role: &str) -> (f64, f64) {
    let (_, range, _) = describe(role);
    if role.contains("co2") {
        (75.0, 200.0)
    } else if role.contains("static") {
        (0.2, 0.5)
    } else if role.ends_with("_rh") || role.contains("humidity") || range == Some((-1.0, 101.0)) {
        (5.0, 15.0)
    } else {
        (2.0, 5.0)
    }
}

/// The verdict on a point that reads `bias` from its reference, at the role's levels.
pub(crate) fn bias_severity(role: &str, bias: f64) -> Severity {
    let (warn, fault) = bias_levels(role);
    if bias.abs() >= fault {
        Severity::Fault
    } else if bias.abs() >= warn {
        Severity::Warn
    } else {
        Severity::Ok
    }
}

/// Compare a point with its reference on the same grid; `None` without a paired sample.
pub fn compare(role: &str, point: &[f64], reference: &[f64], step_ns: i64) -> Option<Comparison> {
    let pairs: Vec<(f64, f64)> =
        point.iter().zip(reference).filter(|(a, b)| !a.is_nan() && !b.is_nan()).map(|(a, b)| (*a, *b)).collect();
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut diffs: Vec<f64> = pairs.iter().map(|(a, b)| a - b).collect();
    let rmse = (diffs.iter().map(|d| d * d).sum::<f64>() / n).sqrt();
    let bias = median(&mut diffs);
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (a, b) in &pairs {
        sab += (a - ma) * (b - mb);
        saa += (a - ma) * (a - ma);
        sbb += (b - mb) * (b - mb);
    }
    let correlation = if saa > 0.0 && sbb > 0.0 { sab / (saa * sbb).sqrt() } else { f64::NAN };
    let mut severity = bias_severity(role, bias);
    // a point that does not follow its reference at all is not a sensor to trust either
    if pairs.len() >= 24 && correlation < 0.5 {
        severity = Severity::Fault;
    }
    let bias = round2(bias);
    Some(Comparison {
        bias,
        sign: if bias > 0.0 {
            "high"
        } else if bias < 0.0 {
            "low"
        } else {
            "none"
        },
        rmse: round2(rmse),
        correlation: round2(correlation),
        samples: pairs.len(),
        overlap_hours: round2(pairs.len() as f64 * step_ns as f64 / NS_PER_HOUR as f64),
        severity,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = NS_PER_HOUR;

    fn wave(n: usize) -> Vec<f64> {
        (0..n).map(|i| 55.0 + 3.0 * ((i as f64) * 0.3).sin()).collect()
    }

    fn ts(n: usize) -> Vec<i64> {
        (0..n as i64).map(|i| i * H).collect()
    }

    #[test]
    fn a_clean_sensor_is_trusted() {
        let t = assess("supply_air_temp", &ts(200), &wave(200), None, H);
        assert_eq!((t.score, t.verdict, t.flags.len()), (1.0, "trusted", 0));
    }

    #[test]
    fn gaps_lower_coverage() {
        let mut v = wave(200);
        for x in v.iter_mut().skip(50).take(100) {
            *x = f64::NAN;
        }
        let t = assess("supply_air_temp", &ts(200), &v, None, H);
        assert_eq!(t.coverage, 0.5);
        assert_eq!(t.verdict, "suspect");
        assert!(t.flags.contains(&"low_coverage"));
    }

    #[test]
    fn noise_on_a_signal_that_rests_at_zero_is_not_spikes() {
        // a box's airflow: zero at night and over weekends (most of the steps are none), 850-1000
        // cfm on weekdays with hour-to-hour noise
        let n = 24 * 21;
        let ts: Vec<i64> = (0..n as i64).map(|i| i * NS_PER_HOUR).collect();
        let on = |i: usize| (i / 24) % 7 < 5 && (6..18).contains(&(i % 24));
        let v: Vec<f64> = (0..n).map(|i| if on(i) { 900.0 + [60.0, -70.0, 95.0, -40.0][i % 4] } else { 0.0 }).collect();
        let fan: Vec<Option<bool>> = (0..n).map(|i| Some(on(i))).collect();
        let t = assess("airflow", &ts, &v, Some(&fan), NS_PER_HOUR);
        assert_eq!(t.spike_share, 0.0, "{t:?}");
        assert!(t.score >= 0.8, "{t:?}");
        // one real spike on that signal is still one
        let mut w = v.clone();
        w[34] = 9000.0; // Tuesday 10:00
        assert!(assess("airflow", &ts, &w, Some(&fan), NS_PER_HOUR).flags.contains(&"spikes"));
    }

    #[test]
    fn an_occupancy_that_counts_people_is_trusted() {
        // a people counter (0-200 by the working day), not a 0/1 flag
        let ts: Vec<i64> = (0..14 * 24).map(|h| h * NS_PER_HOUR).collect();
        let count: Vec<f64> = (0..ts.len())
            .map(|i| if (8..18).contains(&(i % 24)) { 120.0 + (i % 7) as f64 * 10.0 } else { 0.0 })
            .collect();
        let f = Frame::from_rows(&ts, &[("occupancy", count)]);
        let t = &assess_frame(&f, NS_PER_HOUR)["occupancy"];
        assert!(t.score > 0.8 && !t.flags.contains(&"out_of_range"), "{t:?}");
        // a status still has its 0/1 range
        let s = Frame::from_rows(&ts, &[("supply_fan_status", vec![120.0; ts.len()])]);
        assert!(assess_frame(&s, NS_PER_HOUR)["supply_fan_status"].flags.contains(&"out_of_range"));
    }

    #[test]
    fn out_of_range_and_spikes_are_caught() {
        let mut v = wave(200);
        v[10] = 400.0; // out of range and a spike
        v[100] = 90.0; // a spike in range
        let t = assess("supply_air_temp", &ts(200), &v, None, H);
        assert!(t.flags.contains(&"out_of_range") && t.flags.contains(&"spikes"), "{t:?}");
        assert!(t.score < 1.0);
        let mut bad = wave(200);
        for x in bad.iter_mut().take(60) {
            *x = -200.0;
        }
        assert_eq!(assess("supply_air_temp", &ts(200), &bad, None, H).verdict, "untrusted");
    }

    #[test]
    fn a_trend_logged_only_while_its_equipment_runs_is_covered_on_its_running_hours() {
        // a chiller running 10 h a day whose condenser-water temperature is logged only then
        let n = 24 * 14;
        let on: Vec<Option<bool>> = (0..n).map(|i| Some((8..18).contains(&(i % 24)))).collect();
        let v: Vec<f64> =
            wave(n).iter().zip(&on).map(|(x, r)| if *r == Some(true) { *x + 20.0 } else { f64::NAN }).collect();
        let t = assess("cw_supply_temp", &ts(n), &v, Some(&on), H);
        assert_eq!((t.verdict, t.coverage_of), ("trusted", "running hours"), "{t:?}");
        assert!(t.coverage >= 0.99 && !t.flags.contains(&"low_coverage"));
        // without a running signal it is a gappy trend, as before
        let t = assess("cw_supply_temp", &ts(n), &v, None, H);
        assert_eq!((t.coverage_of, t.flags.contains(&"low_coverage")), ("span", true));
        assert!(t.coverage < 0.5);
        // a trend with gaps while the equipment runs is still low coverage on its running hours
        let holes: Vec<f64> = v.iter().enumerate().map(|(i, x)| if i % 3 == 0 { *x } else { f64::NAN }).collect();
        let t = assess("cw_supply_temp", &ts(n), &holes, Some(&on), H);
        assert!(t.coverage < 0.5 && t.flags.contains(&"low_coverage"), "{t:?}");
        // a plant with no status point runs when its pump or fan turns
        let speed: Vec<f64> = on.iter().map(|r| if *r == Some(true) { 60.0 } else { 0.0 }).collect();
        let f = Frame::from_rows(&ts(n), &[("tower_fan_speed", speed), ("cw_supply_temp", v)]);
        let scores = assess_frame(&f, H);
        assert_eq!(scores["cw_supply_temp"].coverage_of, "running hours");
        assert_eq!(scores["cw_supply_temp"].verdict, "trusted");
    }

    #[test]
    fn a_point_in_the_wrong_unit_for_its_role_is_caught_from_its_siblings() {
        let n = 24 * 14;
        let w: Vec<f64> = wave(n).iter().map(|x| x - 55.0).collect();
        let on = vec![1.0; n];
        // supply air trended in °C on an air handler whose mixed and return air read °F
        let f = Frame::from_rows(
            &ts(n),
            &[
                ("supply_fan_status", on.clone()),
                ("supply_air_temp", w.iter().map(|x| (x + 55.0 - 32.0) / 1.8).collect()),
                ("mixed_air_temp", w.iter().map(|x| x + 62.0).collect()),
                ("return_air_temp", w.iter().map(|x| x + 72.0).collect()),
                ("cool_valve", w.iter().map(|x| (x + 3.5) / 10.0).collect()),
                ("heat_valve", w.iter().map(|x| (x + 3.5) * 10.0).collect()),
            ],
        );
        let s = assess_frame(&f, H);
        let sat = &s["supply_air_temp"];
        assert!(sat.flags.contains(&"degC_in_degF_building") && sat.score < SUSPECT, "{sat:?}");
        assert!(s["mixed_air_temp"].flags.is_empty() && s["mixed_air_temp"].verdict == "trusted");
        let cv = &s["cool_valve"];
        assert!(cv.flags.contains(&"fraction_not_percent") && cv.verdict == "untrusted", "{cv:?}");
        assert!(!s["heat_valve"].flags.contains(&"fraction_not_percent"));
        // a unit trended all in °C, or all in 0-1, is consistent: not flagged
        let c = Frame::from_rows(
            &ts(n),
            &[
                ("supply_fan_status", on.clone()),
                ("supply_air_temp", w.iter().map(|x| (x + 55.0 - 32.0) / 1.8).collect()),
                ("mixed_air_temp", w.iter().map(|x| (x + 62.0 - 32.0) / 1.8).collect()),
                ("cool_valve", w.iter().map(|x| (x + 3.5) / 10.0).collect()),
                ("heat_valve", w.iter().map(|x| (x + 3.5) / 8.0).collect()),
            ],
        );
        assert!(assess_frame(&c, H)
            .values()
            .all(|t| !t.flags.iter().any(|f| f.contains("deg") || f.contains("fraction"))));
        // a cold mixed-air in winter or a warm-up is not a unit: the outdoor air is never judged
        let winter = Frame::from_rows(
            &ts(n),
            &[
                ("supply_fan_status", on),
                ("oat", w.iter().map(|x| x + 10.0).collect()),
                ("return_air_temp", w.iter().map(|x| x + 70.0).collect()),
            ],
        );
        assert!(assess_frame(&winter, H).values().all(|t| t.flags.is_empty()));
    }

    /// `finding_detail` scores only its rule's roles and `drift` a family's at once: a role
    /// scores the same whichever others are scored with it, its unit checked against every
    /// sibling on the frame.
    #[test]
    fn a_roles_score_does_not_depend_on_which_others_are_scored() {
        let n = 24 * 14;
        let w: Vec<f64> = wave(n).iter().map(|x| x - 55.0).collect();
        let mut stuck = w.iter().map(|x| x + 62.0).collect::<Vec<f64>>();
        stuck[100..200].fill(61.0);
        let f = Frame::from_rows(
            &ts(n),
            &[
                ("supply_fan_status", (0..n).map(|i| f64::from(u8::from(i % 24 > 6))).collect()),
                ("supply_air_temp", w.iter().map(|x| (x + 55.0 - 32.0) / 1.8).collect()),
                ("mixed_air_temp", stuck),
                ("return_air_temp", w.iter().map(|x| x + 72.0).collect()),
                ("cool_valve", w.iter().map(|x| (x + 3.5) / 10.0).collect()),
                ("heat_valve", w.iter().map(|x| (x + 3.5) * 10.0).collect()),
            ],
        );
        let all = assess_frame(&f, H);
        assert!(all["supply_air_temp"].flags.contains(&"degC_in_degF_building"), "{:?}", all["supply_air_temp"]);
        for role in all.keys() {
            let alone = assess_roles(&f, H, |r| r == role);
            assert_eq!(alone.keys().collect::<Vec<_>>(), vec![role]);
            assert_eq!(format!("{:?}", alone[role]), format!("{:?}", all[role]), "{role}");
        }
    }

    #[test]
    fn frozen_while_running_is_stuck_but_not_while_off() {
        let n = 24 * 30;
        let v = vec![55.0; n];
        let on: Vec<Option<bool>> = vec![Some(true); n];
        let t = assess("supply_air_temp", &ts(n), &v, Some(&on), H);
        assert!(t.flags.contains(&"never_changes") && t.verdict == "untrusted", "{t:?}");
        let off: Vec<Option<bool>> = vec![Some(false); n];
        assert_eq!(assess("supply_air_temp", &ts(n), &v, Some(&off), H).verdict, "trusted");
        // a setpoint held flat is normal
        assert_eq!(assess("supply_air_temp_sp", &ts(n), &v, Some(&on), H).verdict, "trusted");
        // one day-long freeze caps the score at suspect; half a day is not a freeze
        let frozen = |hours: usize| {
            let mut w = wave(n);
            for x in w.iter_mut().skip(100).take(hours) {
                *x = 60.0;
            }
            assess("supply_air_temp", &ts(n), &w, Some(&on), H)
        };
        let t = frozen(24);
        assert_eq!((t.verdict, t.flags.contains(&"stuck")), ("suspect", true));
        assert!(!frozen(23).flags.contains(&"stuck"));
        // CO2 in an empty building may sit at the outdoor level over a weekend
        let co2: Vec<f64> = (0..n)
            .map(|i| if (100..140).contains(&i) { 420.0 } else { 600.0 + 100.0 * (i as f64 * 0.3).sin() })
            .collect();
        assert!(!assess("co2", &ts(n), &co2, Some(&on), H).flags.contains(&"stuck"));
        // a flow resting at zero for days is a stopped pump, not a frozen meter
        let flow: Vec<f64> =
            (0..n).map(|i| if (100..300).contains(&i) { 0.0 } else { 800.0 + 20.0 * (i as f64 * 0.3).sin() }).collect();
        assert!(!assess("chw_flow", &ts(n), &flow, Some(&on), H).flags.contains(&"stuck"));
        let held: Vec<f64> = flow.iter().map(|x| if *x == 0.0 { 640.0 } else { *x }).collect();
        assert!(assess("chw_flow", &ts(n), &held, Some(&on), H).flags.contains(&"stuck"));
    }

    #[test]
    fn a_plant_without_a_fan_is_gated_by_its_own_run_status() {
        // the loop's supply temperature sits at 60 °F for two days while the pump is stopped
        let n = 24 * 10;
        let stopped = |i: usize| (48..96).contains(&i);
        let chws: Vec<f64> = (0..n).map(|i| if stopped(i) { 60.0 } else { 44.0 + (i as f64 * 0.4).sin() }).collect();
        let pump: Vec<f64> = (0..n).map(|i| if stopped(i) { 0.0 } else { 1.0 }).collect();
        let f = Frame::from_rows(&ts(n), &[("chw_supply_temp", chws.clone()), ("pump_status", pump)]);
        let t = &assess_frame(&f, H)["chw_supply_temp"];
        assert!(t.gated && !t.flags.contains(&"stuck"), "{t:?}");
        // without the status the same hold reads as frozen
        let g = Frame::from_rows(&ts(n), &[("chw_supply_temp", chws)]);
        assert!(assess_frame(&g, H)["chw_supply_temp"].flags.contains(&"stuck"));
    }

    #[test]
    fn comparison_with_a_reference() {
        let r = wave(100);
        let p: Vec<f64> = r.iter().map(|x| x + 3.0).collect();
        let c = compare("supply_air_temp", &p, &r, H).unwrap();
        assert_eq!((c.bias, c.sign, c.severity, c.samples), (3.0, "high", Severity::Warn, 100));
        assert_eq!(c.correlation, 1.0);
        let c = compare("supply_air_temp", &r, &r, H).unwrap();
        assert_eq!((c.bias, c.sign, c.severity), (0.0, "none", Severity::Ok));
        assert!(compare("supply_air_temp", &[f64::NAN], &[1.0], H).is_none());
    }

    #[test]
    fn empty_points_are_untrusted() {
        let t = assess("oat", &[0], &[f64::NAN], None, H);
        assert_eq!(t.verdict, "untrusted");
    }
}
