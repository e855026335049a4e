//! `g36_afdd`: the air-handler fault conditions of ASHRAE Guideline 36 §5.16.14 (FC1-FC15),
//! each judged only in the operating states the guideline lists for it. Every running sample
//! is put in an operating state from the valve commands and the outdoor-air damper: OS#1
//! heating at minimum outdoor air, OS#2 free cooling (the economizer open beyond its minimum,
//! both coils idle), OS#3 mechanical cooling on full economizer, OS#4 mechanical cooling at
//! minimum outdoor air, OS#5 anything else (both coils at once, idle at minimum, heating with
//! the damper open), where only FC1-FC4 apply. The guideline's filters come first: nothing is
//! judged with the fan off or for ModeDelay after a fan start or a zone-group mode change, the
//! measured temperatures are rolling means over `avg_window_min`, and a condition counts only
//! where it held for AlarmDelay. Each condition is reported with its own applicable samples;
//! the worst share over at least `min_applicable_hours` of applicable time sets the severity
//! (a screening scale, not the guideline's: G36 alarms on every confirmed fault). When no
//! condition applied that long the finding is info, not a pass.

use std::collections::BTreeMap;

use crate::engine::{
    as_percent, fan_on, median, month, on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue,
    Params, Rule, RuleSpec, Severity,
};

/// G36 Table 5.16.14.7 default tolerances, in °F where the guideline gives °C.
/// Supply-fan heat rise.
const DT_SF: f64 = 2.0;
/// Smallest |RAT - OAT| over which the outdoor-air fraction means anything.
const DT_MIN: f64 = 10.0;
const E_SAT: f64 = 2.0;
const E_RAT: f64 = 2.0;
const E_MAT: f64 = 5.0;
const E_OAT: f64 = 5.0;
const E_CCET: f64 = 5.0;
const E_CCLT: f64 = 2.0;
/// Outdoor-air fraction tolerance, as a fraction.
const E_FLOW: f64 = 0.30;
/// Fan speed tolerance, as a fraction.
const E_VFDSPD: f64 = 0.05;
/// Duct static tolerance, in. w.c.
const E_DSP: f64 = 0.1;
/// A valve commanded this open (%) is full open; a fan this fast (%) is at full speed.
const VALVE_FULL: f64 = 99.0;
const FAN_FULL: f64 = 99.0;
/// More operating-state changes than this in an hour is unstable control (FC4).
const OS_MAX_PER_HOUR: f64 = 7.0;
/// Mechanical-cooling samples at minimum outdoor air needed to learn the damper's minimum.
const OA_MIN_LEARN_N: usize = 24;
/// |OAT - RAT| (°F) below which the outdoor-air fraction from temperatures is not computed.
const OA_SPAN_MIN_F: f64 = 1.0;

const NS_PER_MIN: f64 = 60_000_000_000.0;

/// What each fault condition tests, in the order FC1..FC15.
const FC_TEXT: [&str; 15] = [
    "duct static below setpoint with the fan at full speed",
    "mixed air colder than both return and outdoor air",
    "mixed air warmer than both return and outdoor air",
    "operating state changing too often",
    "supply air not warmer than mixed air while heating",
    "outdoor-air fraction off its minimum",
    "supply air below setpoint with the heating valve full open",
    "supply air off the mixed air in free cooling",
    "outdoor air too warm for free cooling",
    "mixed air off the outdoor air on full economizer",
    "outdoor air cold enough not to need mechanical cooling",
    "supply air warmer than mixed air while cooling",
    "supply air above setpoint with the cooling valve full open",
    "air cooled across a cooling coil that is off",
    "air warmed across a heating coil that is off",
];

/// The operating states (bit n = OS#n) each fault condition applies in (G36 §5.16.14).
const FC_STATES: [u8; 15] = [
    0b11_1110, 0b11_1110, 0b11_1110, 0b11_1110, // FC1-FC4: every state
    0b00_0010, // FC5: heating
    0b01_0010, // FC6: heating, cooling at minimum OA
    0b00_0010, // FC7: heating
    0b00_0100, // FC8: free cooling
    0b00_0100, // FC9
    0b00_1000, // FC10: cooling on full economizer
    0b00_1000, // FC11
    0b01_1100, // FC12: free cooling and both cooling states
    0b01_1000, // FC13: mechanical cooling
    0b00_0110, // FC14: heating, free cooling
    0b01_1100, // FC15: free cooling and both cooling states
];

/// The operating states (0: not classifiable, a valve or damper reading is missing).
const OS_HEATING: u8 = 1;
const OS_FREE_COOLING: u8 = 2;
const OS_COOL_ECON: u8 = 3;
const OS_COOL_MIN_OA: u8 = 4;
const OS_OTHER: u8 = 5;

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "g36_afdd",
        families: &["air_handler"],
        inputs: Inputs {
            required: &["supply_air_temp", "cool_valve"],
            optional: &[
                "heat_valve",
                "mixed_air_temp",
                "return_air_temp",
                "oat",
                "supply_air_temp_sp",
                "supply_fan_status",
                "supply_fan_speed",
                "airflow",
                "duct_static",
                "duct_static_sp",
                "oa_damper",
                "occupancy",
                "warmup",
                "cooldown",
            ],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec {
                name: "heating_coil",
                default: ParamValue::Flag(None),
                unit: "flag",
                range: None,
                choices: &[],
                basis: "unset, a unit with no heating-valve point is taken to have no heating coil, and says so",
                calibrate: "Set true for a unit whose heating coil is not trended (the rule then declines instead of guessing its state); false to ignore a mapped heating valve.",
            },
            ParamSpec::flag("mat_sat_as_coil_temps", true,
                "G36 lets the mixed- and supply-air sensors stand for the cooling coil's entering and leaving air where nothing else sits between them",
                "Keep it on for a unit with only a cooling coil between those sensors; turn it off when a preheat coil or a wheel sits between them."),
            ParamSpec::number("min_oa_pct", f64::NAN, "% of supply airflow (OA fraction)", (0.0, 100.0),
                "the design minimum belongs to the building; unset, FC6 is not evaluated",
                "Take the design minimum outdoor air over design airflow, or measure the fraction at the minimum damper position on a known-good running period."),
            ParamSpec {
                name: "min_oa_pct_by_month",
                default: ParamValue::List(Vec::new()),
                unit: "% of supply airflow, January to December (a list of 12)",
                range: Some((0.0, 100.0)),
                choices: &[],
                basis: "a sequence with a seasonal minimum changes the fraction FC6 should compare against",
                calibrate: "Give twelve values, one per month, the same ones outdoor_air_fraction uses; or map some months only ({\"6\": 12, \"7\": 12}), the others keeping min_oa_pct; leave empty to use min_oa_pct all year.",
            },
            ParamSpec::number("mode_delay_min", 30.0, "min", (0.0, 120.0),
                "G36 §5.16.14 ModeDelay: judging waits this long after a fan start or a zone-group mode change",
                "Keep the guideline's value; lengthen it only when trends show the unit still settling after a start."),
            ParamSpec::number("alarm_delay_min", 30.0, "min", (0.0, 120.0),
                "G36 §5.16.14 AlarmDelay: a condition must hold this long before it counts",
                "Keep the guideline's value; it should span more than one sample interval."),
            ParamSpec::number("avg_window_min", 5.0, "min", (1.0, 30.0),
                "G36 §5.16.14 judges five-minute rolling means of the measured temperatures and static",
                "Keep the guideline's value; on trends coarser than the window it holds one sample."),
            ParamSpec::number("econ_damper_open", 80.0, "% of damper stroke (OA damper)", (50.0, 100.0),
                "an outdoor-air damper this open while the cooling coil works is full economizer (OS#3) rather than minimum outdoor air (OS#4)",
                "Set it a little below the position the damper holds when the sequence asks for full economizer."),
            ParamSpec::number("valve_thr", 5.0, "% of valve stroke", (0.0, 15.0),
                "a valve command above this is a working coil; below it is noise on a shut valve",
                "Set it just above what the valve command reads when commanded shut."),
            ParamSpec::number("oa_damper_min", f64::NAN, "% of damper stroke (OA damper)", (0.0, 60.0),
                "the guideline's free cooling is the economizer above its minimum position, and its heating state is the damper at it; unset, the position is learned as the median damper command over running mechanical-cooling samples below econ_damper_open (0 % with fewer than 24)",
                "Use the minimum position from the sequence or the balancing report; the finding's oa_damper_min metric shows what was used."),
            ParamSpec::number("oa_damper_tol", 5.0, "percentage points of damper stroke", (0.0, 20.0),
                "a margin for the damper's scatter around its minimum before a sample counts as economizing (or as heating off the minimum)",
                "Set it above the spread of the damper command while it holds its minimum."),
            ParamSpec {
                name: "oa_damper_min_by_month",
                default: ParamValue::List(Vec::new()),
                unit: "% of damper stroke (OA damper), January to December (a list of 12)",
                range: Some((0.0, 60.0)),
                choices: &[],
                basis: "a sequence whose minimum position changes with the season moves the line between free cooling and minimum outdoor air",
                calibrate: "Give twelve positions, one per month, from the sequence; or map some months only ({\"6\": 28}); leave empty to use oa_damper_min (or the learned minimum) all year.",
            },
            ParamSpec {
                name: "occupancy_gate",
                default: ParamValue::Choice("off".into()),
                unit: "choice",
                range: None,
                choices: &["off", "trended"],
                basis: "G36 suspends fault detection only while the unit is not operating, so unoccupied running is judged too",
                calibrate: "Keep 'off'; choose 'trended' to judge only the samples a trended occupancy point marks occupied (without one every running sample is judged).",
            },
            ParamSpec::number("warn_pct", 5.0, "% of a condition's applicable time", (1.0, 30.0),
                "a screening level for ranking a history, not part of G36",
                "Read each condition's share on units known to be healthy and set the warning above their spread."),
            ParamSpec::number("fault_pct", 20.0, "% of a condition's applicable time", (5.0, 60.0),
                "a screening level for ranking a history, not part of G36",
                "Keep it well above warn_pct."),
            ParamSpec::number("min_applicable_hours", 24.0, "h", (1.0, 500.0),
                "a condition judged over only a few hours should not set the severity",
                "Raise it for long histories so that a rarely seen operating state cannot decide the verdict."),
        ],
        judged_basis: "running samples outside ModeDelay in a G36 operating state",
    }
}

/// Rolling means over the trailing `window` ns (the current sample included) of the running
/// samples' values; NaN where the window holds no running value. `even` is the frame's step
/// when its timestamps are evenly spaced ([`crate::engine::even_step`], worked out once for
/// every column the rule averages).
fn rolling_mean(ts: &[i64], even: Option<i64>, x: &[f64], running: &[bool], window: f64) -> Vec<f64> {
    // timestamps on a grid are whole nanoseconds, and so is any window a parameter gives
    let window = window as i64;
    match even {
        Some(step) if window > 0 => rolling_mean_even(x, running, (window as u64).div_ceil(step as u64) as usize),
        _ => {
            // what a window may hold, NaN where the fan is off
            let v: Vec<f64> = x.iter().zip(running).map(|(&x, &r)| if r { x } else { f64::NAN }).collect();
            rolling_mean_uneven(ts, &v, window)
        }
    }
}

/// [`rolling_mean`] on an even grid, where a window always spans `rows` rows: the row leaving
/// it is a fixed distance back, so no inner loop looks for it. A stopped sample reads as NaN
/// where it is read, so no masked copy of the column is made. The sums run in the same order
/// as [`rolling_mean_uneven`]'s, so the means are the same to the bit. A function of its own,
/// not inlined: in a wasm guest, inside a large caller, its running sum and the memory's base
/// would live on the stack, a load and a store per sample.
#[inline(never)]
fn rolling_mean_even(x: &[f64], running: &[bool], rows: usize) -> Vec<f64> {
    let len = x.len().min(running.len());
    let (x, running) = (&x[..len], &running[..len]);
    let held = |x: f64, r: bool| if r { x } else { f64::NAN };
    let mut out = crate::engine::nans(len);
    let (mut sum, mut n) = (0.0f64, 0usize);
    // the first `rows` rows: nothing has left the window yet
    let head = rows.min(len);
    for ((&x, &r), o) in x[..head].iter().zip(&running[..head]).zip(&mut out[..head]) {
        slide(held(x, r), f64::NAN, &mut sum, &mut n, o);
    }
    // then one row leaves for each that enters
    let entering = x[head..].iter().zip(&running[head..]);
    for (((&x, &r), (&g, &gr)), o) in entering.zip(x.iter().zip(running)).zip(&mut out[head..]) {
        slide(held(x, r), held(g, gr), &mut sum, &mut n, o);
    }
    out
}

/// One row of a rolling mean: `x` enters the window and `gone` (NaN: nothing) leaves it; the
/// mean, if any value is left, goes to `out`. A window holding only the current sample is that
/// sample, exactly.
#[inline(always)]
fn slide(x: f64, gone: f64, sum: &mut f64, n: &mut usize, out: &mut f64) {
    let here = !x.is_nan();
    if here {
        *sum += x;
        *n += 1;
    }
    if !gone.is_nan() {
        *sum -= gone;
        *n -= 1;
    }
    if *n == 0 {
        *sum = 0.0;
    } else {
        *out = if *n == 1 && here { x } else { *sum / *n as f64 };
    }
}

/// [`rolling_mean`] on any timestamps: the window's left edge found by walking forward.
#[inline(never)]
fn rolling_mean_uneven(ts: &[i64], v: &[f64], window: i64) -> Vec<f64> {
    let mut out = crate::engine::nans(v.len());
    let (mut left, mut sum, mut n) = (0usize, 0.0f64, 0usize);
    for i in 0..v.len() {
        let here = !v[i].is_nan();
        if here {
            sum += v[i];
            n += 1;
        }
        let edge = ts[i].saturating_sub(window);
        while left <= i && ts[left] <= edge {
            if !v[left].is_nan() {
                sum -= v[left];
                n -= 1;
            }
            left += 1;
        }
        if n == 0 {
            sum = 0.0;
        } else {
            // a window holding only the current sample is that sample, exactly
            out[i] = if n == 1 && here { v[i] } else { sum / n as f64 };
        }
    }
    out
}

/// Keep only the episodes of `hits` (sample indices, ascending) that lasted at least `delay` ns
/// (first to last sample plus one step); an episode is a run of consecutive samples, and a gap
/// wider than 1.5 steps ends it.
fn persistent(ts: &[i64], hits: &[u32], step: i64, delay: f64) -> Vec<u32> {
    if delay <= 0.0 {
        return hits.to_vec();
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < hits.len() {
        let mut j = k;
        while j + 1 < hits.len() && hits[j + 1] == hits[j] + 1 && {
            let (a, b) = (hits[j] as usize, hits[j + 1] as usize);
            (ts[b].saturating_sub(ts[a]) as f64) <= 1.5 * step as f64
        } {
            j += 1;
        }
        let (first, last) = (hits[k] as usize, hits[j] as usize);
        if ts[last].saturating_sub(ts[first]).saturating_add(step) as f64 >= delay {
            out.extend_from_slice(&hits[k..=j]);
        }
        k = j + 1;
    }
    out
}

/// The columns the fault conditions read, each as long as the frame (NaN where unmapped).
struct Columns<'a> {
    /// Supply, mixed, return and outdoor air as G36 averages them.
    s: &'a [f64],
    m: &'a [f64],
    r: &'a [f64],
    o: &'a [f64],
    /// The supply-air temperature setpoint.
    sp: &'a [f64],
    /// Duct static pressure (averaged) and its setpoint.
    dsp: &'a [f64],
    dspsp: &'a [f64],
    /// Supply-fan speed, heating and cooling valves, in %.
    fs: &'a [f64],
    hc: &'a [f64],
    cc: &'a [f64],
    /// Operating-state changes over the trailing hour.
    changes_last_hour: &'a [f64],
    /// The outdoor-air fraction from the air temperatures and its minimum, in %.
    oa_fraction: Option<(&'a [f64], &'a [f64])>,
}

impl Columns<'_> {
    /// The samples of `app` (where fault condition `fc` applies) where it holds: one tight loop
    /// per condition over those samples alone (a per-sample dispatch on the condition, or a
    /// pass over every sample, costs far more in a wasm guest).
    fn hits(&self, fc: usize, app: &[u32]) -> Vec<u32> {
        fn each(app: &[u32], f: impl Fn(usize) -> bool) -> Vec<u32> {
            app.iter().copied().filter(|&i| f(i as usize)).collect()
        }
        let Columns { s, m, r, o, sp, .. } = *self;
        // the combined sensor errors, worked out once (`hypot` is a library call in wasm)
        let (e_sat_mat, e_mat_oat, e_coil) = (E_SAT.hypot(E_MAT), E_MAT.hypot(E_OAT), E_CCET.hypot(E_CCLT));
        match fc {
            1 => each(app, |i| self.dsp[i] < self.dspsp[i] - E_DSP && self.fs[i] >= FAN_FULL * (1.0 - E_VFDSPD)),
            // both bounds must be known: f64::min/max would drop a missing one
            2 => each(app, |i| m[i] + E_MAT < r[i] - E_RAT && m[i] + E_MAT < o[i] - E_OAT),
            3 => each(app, |i| m[i] - E_MAT > r[i] + E_RAT && m[i] - E_MAT > o[i] + E_OAT),
            4 => each(app, |i| self.changes_last_hour[i] > OS_MAX_PER_HOUR),
            5 => each(app, |i| s[i] + E_SAT <= m[i] - E_MAT + DT_SF),
            6 => match self.oa_fraction {
                Some((p, min)) => {
                    each(app, |i| (r[i] - o[i]).abs() >= DT_MIN && (p[i] - min[i]).abs() > E_FLOW * 100.0)
                }
                None => Vec::new(),
            },
            7 => each(app, |i| s[i] < sp[i] - E_SAT && self.hc[i] >= VALVE_FULL),
            8 => each(app, |i| (s[i] - DT_SF - m[i]).abs() > e_sat_mat),
            9 => each(app, |i| o[i] - E_OAT > sp[i] - DT_SF + E_SAT),
            10 => each(app, |i| (m[i] - o[i]).abs() > e_mat_oat),
            11 => each(app, |i| o[i] + E_OAT < sp[i] - DT_SF - E_SAT),
            12 => each(app, |i| s[i] - E_SAT - DT_SF >= m[i] + E_MAT),
            13 => each(app, |i| s[i] > sp[i] + E_SAT && self.cc[i] >= VALVE_FULL),
            // supply air is downstream of the fan: the air left the coil DT_SF cooler
            14 => each(app, |i| m[i] - s[i] >= e_coil - DT_SF),
            _ => Vec::new(),
        }
    }
}

/// The zone-group mode of each of `n` samples from its occupancy, warm-up and cool-down
/// columns, one bit each (NaN where one of them is missing); empty without a mode column.
/// Built a column at a time, each sample's sum in the columns' order.
#[inline(never)]
fn zone_mode(cols: &[&[f64]], n: usize) -> Vec<f64> {
    if cols.is_empty() {
        return Vec::new();
    }
    let mut mode = vec![0.0f64; n];
    for (bit, c) in cols.iter().enumerate() {
        let add = (1u32 << bit) as f64;
        for (m, &x) in mode.iter_mut().zip(&c[..n]) {
            *m = if x.is_nan() { f64::NAN } else { *m + if on(x) { add } else { 0.0 } };
        }
    }
    mode
}

/// ModeDelay: the running samples within `delay` ns after a fan start (the first running sample
/// after a stop or a gap wider than 1.5 steps) or a change of the zone-group `mode`.
#[inline(never)]
fn mode_delay_suspends(ts: &[i64], running: &[bool], mode: &[f64], step: i64, delay: f64) -> Vec<bool> {
    let n = running.len();
    let mut suspended = vec![false; n];
    let mut last_event: Option<i64> = None;
    for i in 0..n {
        if i > 0 && running[i] {
            let start = !running[i - 1] || ts[i].saturating_sub(ts[i - 1]) as f64 > 1.5 * step as f64;
            let changed = !mode.is_empty() && {
                let (m0, m1) = (mode[i - 1], mode[i]);
                !m0.is_nan() && !m1.is_nan() && m0 != m1
            };
            if start || changed {
                last_event = Some(ts[i]);
            }
        }
        suspended[i] = running[i] && last_event.is_some_and(|t0| (ts[i].saturating_sub(t0) as f64) < delay);
    }
    suspended
}

/// Each sample's operating state (0 where a valve or the damper is missing) from the heating
/// and cooling valves and the outdoor-air damper, in %: a coil works beyond `valve_thr`, the
/// economizer is open from `econ_open`, and `econ_above(i)` is the damper position above which
/// the unit is not at its minimum outdoor air.
#[inline(never)]
fn operating_states(
    hc: &[f64],
    cc: &[f64],
    oa: Option<&[f64]>,
    valve_thr: f64,
    econ_open: f64,
    econ_above: impl Fn(usize) -> f64,
) -> Vec<u8> {
    let working = |v: f64| v > valve_thr;
    (0..cc.len())
        .map(|i| {
            if hc[i].is_nan() || cc[i].is_nan() {
                return 0;
            }
            let (heating, cooling) = (working(hc[i]), working(cc[i]));
            let damper = oa.map(|d| d[i]);
            match (heating, cooling, damper) {
                (true, true, _) => OS_OTHER,
                (true, false, None) => OS_HEATING,
                (true, false, Some(d)) if d.is_nan() => 0,
                (true, false, Some(d)) => {
                    if d <= econ_above(i) {
                        OS_HEATING
                    } else {
                        OS_OTHER
                    }
                }
                (false, false, None) => OS_FREE_COOLING,
                (false, false, Some(d)) if d.is_nan() => 0,
                (false, false, Some(d)) => {
                    if d > econ_above(i) {
                        OS_FREE_COOLING
                    } else {
                        OS_OTHER
                    }
                }
                (false, true, Some(d)) if d >= econ_open => OS_COOL_ECON,
                (false, true, _) => OS_COOL_MIN_OA,
            }
        })
        .collect()
}

/// FC4's count: at each sample, the operating-state changes between running neighbours over the
/// trailing hour. On an even grid (`even`, the frame's step) the hour is a fixed number of rows
/// back, so each count is a difference of two running totals; else the hour's left edge is
/// found by walking forward. Both count the same whole changes.
#[inline(never)]
fn changes_in_last_hour(ts: &[i64], even: Option<i64>, os: &[u8], running: &[bool]) -> Vec<f64> {
    let n = os.len();
    let change = |i: usize| i > 0 && os[i] != os[i - 1] && running[i] && running[i - 1];
    if let Some(step) = even.filter(|s| *s > 0) {
        // a row is in the hour before row i when it is fewer than `rows` rows back
        let rows = (60 * 60_000_000_000u64).div_ceil(step as u64) as usize;
        // `before[k]`: the changes at rows before k
        let mut before = vec![0u32; n + 1];
        for i in 0..n {
            before[i + 1] = before[i] + u32::from(change(i));
        }
        return (0..n).map(|i| (before[i + 1] - before[(i + 1).saturating_sub(rows)]) as f64).collect();
    }
    let mut out = vec![0.0f64; n];
    let (mut left, mut count) = (0usize, 0.0f64);
    for i in 0..n {
        if change(i) {
            count += 1.0;
        }
        while ts[left] <= ts[i].saturating_sub(60 * 60_000_000_000) {
            if change(left) {
                count -= 1.0;
            }
            left += 1;
        }
        out[i] = count;
    }
    out
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (sat_raw, cc_raw) = (frame.required("supply_air_temp"), frame.required("cool_valve"));
    let n = frame.len();
    let ts = &frame.ts;
    let mut caveats: Vec<String> = Vec::new();
    let by_month_min = params.list(spec, "min_oa_pct_by_month");
    let by_month_damper = params.list(spec, "oa_damper_min_by_month");
    for (name, l) in [("min_oa_pct_by_month", &by_month_min), ("oa_damper_min_by_month", &by_month_damper)] {
        if !l.is_empty() && l.len() != 12 {
            return Outcome::Findings(vec![Finding::not_judged(
                spec,
                &format!("{name} must list 12 values, January to December"),
            )]);
        }
    }

    // the heating coil: from the mapped valve unless the parameter says otherwise
    let mut hc_col = frame.col("heat_valve");
    match params.flag(spec, "heating_coil") {
        Some(true) if hc_col.is_none() => {
            return Outcome::Findings(vec![Finding::not_judged(spec, "the unit has a heating coil (heating_coil) but no heating-valve point, so its operating state is unknown")]);
        }
        Some(false) if hc_col.is_some() => {
            hc_col = None;
            caveats.push("heating_coil is false: the mapped heating valve is ignored".into());
        }
        None if hc_col.is_none() => caveats.push("no heating-valve point: the unit is taken to have no heating coil (FC7 and FC15 not evaluated); set heating_coil if it has one".into()),
        _ => {}
    }
    let has_hc = hc_col.is_some();
    let Some((fan, fan_src)) = fan_on(frame) else {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no supply-fan status, speed or airflow to tell when the unit runs (a stopped unit with shut valves reads as free cooling)")]);
    };
    if n == 0 {
        return Outcome::Findings(vec![Finding::not_judged(spec, "no samples")]);
    }
    let running: Vec<bool> = fan.iter().map(|f| *f == Some(true)).collect();
    let step = frame.typical_step().unwrap_or(60_000_000_000);
    let valve_thr = params.number(spec, "valve_thr");
    let econ_open = params.number(spec, "econ_damper_open");
    let tol = params.number(spec, "oa_damper_tol");
    let hc: Vec<f64> = hc_col.map_or_else(|| vec![0.0; n], as_percent);
    // a coil works when its valve is open beyond the threshold (a missing command does not)
    let working = |v: f64| v > valve_thr;
    let cc = as_percent(cc_raw);
    let oa: Option<Vec<f64>> = frame.col("oa_damper").map(as_percent);
    let fs: Option<Vec<f64>> = frame.col("supply_fan_speed").map(as_percent);

    // ModeDelay: after a fan start (or the first running sample after a gap) and after a change
    // of the zone-group mode (occupancy, warm-up, cool-down combined)
    let mode_cols: Vec<&[f64]> = ["occupancy", "warmup", "cooldown"].iter().filter_map(|r| frame.col(r)).collect();
    if mode_cols.is_empty() {
        caveats.push("no occupancy, warm-up or cool-down point: ModeDelay follows fan starts only".into());
    }
    // the zone-group mode of each sample (NaN where a part of it is missing); none without
    // a mode point, where it never changes
    let mode = zone_mode(&mode_cols, n);
    let mode_delay = params.number(spec, "mode_delay_min") * NS_PER_MIN;
    let suspended =
        if mode_delay > 0.0 { mode_delay_suspends(ts, &running, &mode, step, mode_delay) } else { vec![false; n] };
    let mut evaluable: Vec<bool> = (0..n).map(|i| running[i] && !suspended[i]).collect();
    let mut unoccupied = Vec::new();
    let gate = params.choice(spec, "occupancy_gate");
    if gate == "trended" {
        match frame.col("occupancy") {
            Some(o) => {
                caveats.push(
                    "occupancy_gate is 'trended': only samples the occupancy point marks occupied are judged".into(),
                );
                for i in 0..n {
                    if evaluable[i] && !on(o[i]) {
                        evaluable[i] = false;
                        unoccupied.push(i as u32);
                    }
                }
            }
            None => caveats.push(
                "occupancy_gate is 'trended' but no occupancy point is trended: every running sample is judged".into(),
            ),
        }
    }

    // the damper's minimum position: given, else learned from mechanical cooling at minimum OA
    let mut oa_min = f64::NAN;
    if let Some(d) = &oa {
        let given = params.number(spec, "oa_damper_min");
        if !by_month_damper.is_empty() {
            caveats.push("the damper's minimum position is taken month by month from oa_damper_min_by_month".into());
        } else if !given.is_nan() {
            oa_min = given;
        } else {
            // pushed in a plain loop: a filtered, mapped list collected is a call per kept
            // sample in the sandbox
            let mut at_min: Vec<f64> = Vec::new();
            for i in 0..n {
                if running[i] && working(cc[i]) && !working(hc[i]) && d[i] < econ_open {
                    at_min.push(d[i]);
                }
            }
            if at_min.len() >= OA_MIN_LEARN_N {
                oa_min = median(&mut at_min);
            } else {
                oa_min = 0.0;
                caveats.push(format!("the damper's minimum position could not be learned ({} running mechanical-cooling samples, {OA_MIN_LEARN_N} needed): taken as 0 %; set oa_damper_min", at_min.len()));
            }
        }
    } else {
        caveats.push("no outdoor-air damper point: heating (OS#1) and free cooling (OS#2) are read from the valves alone, so idle running at minimum outdoor air counts as free cooling".into());
    }
    // the calendar month is worked out only when a month-by-month list asks for it
    let econ_above = |i: usize| -> f64 {
        tol + if by_month_damper.is_empty() {
            oa_min
        } else {
            crate::engine::by_month(&by_month_damper, month(ts[i]), oa_min)
        }
    };

    // operating state per sample
    let os = operating_states(&hc, &cc, oa.as_deref(), valve_thr, econ_open, econ_above);
    let w = frame.weights_hours();
    // running hours that the damper position kept out of OS#2 (idle at minimum) and OS#1
    // (heating with the economizer open)
    let (mut idle_at_min_h, mut heat_off_min_h) = (0.0f64, 0.0f64);
    if let Some(d) = &oa {
        for i in (0..n).filter(|&i| running[i] && !working(cc[i]) && !d[i].is_nan()) {
            if working(hc[i]) && d[i] > econ_above(i) {
                heat_off_min_h += w[i];
            } else if !working(hc[i]) && d[i] <= econ_above(i) {
                idle_at_min_h += w[i];
            }
        }
    }
    // operating-state changes between running neighbours over the trailing hour (FC4)
    let even = crate::engine::even_step(ts);
    let changes_last_hour = changes_in_last_hour(ts, even, &os, &running);

    // measured points as G36 averages them; commands and setpoints as trended
    let window = params.number(spec, "avg_window_min") * NS_PER_MIN;
    let avg = |c: Option<&[f64]>| c.map(|c| rolling_mean(ts, even, c, &running, window));
    let sat = avg(Some(sat_raw)).unwrap_or_default();
    let (mat_raw, rat_raw, oat_raw) = (frame.col("mixed_air_temp"), frame.col("return_air_temp"), frame.col("oat"));
    let (mat, rat, oat, dsp) = (avg(mat_raw), avg(rat_raw), avg(oat_raw), avg(frame.col("duct_static")));
    let (satsp, dspsp) = (frame.col("supply_air_temp_sp"), frame.col("duct_static_sp"));

    // what cannot be evaluated on this unit, and why
    let mut status: [Option<String>; 15] = Default::default();
    if !has_hc {
        for fc in [7, 15] {
            status[fc - 1] = Some("no heating coil".into());
        }
    }
    let coil_temps = params.flag(spec, "mat_sat_as_coil_temps") != Some(false);
    if has_hc || !coil_temps || mat.is_none() {
        let why = if mat.is_none() {
            "needs the cooling coil's entering and leaving air (no mixed-air temperature)"
        } else if !coil_temps {
            "mat_sat_as_coil_temps is off and no coil sensors are read"
        } else {
            "with a heating coil between them, mixed and supply air cannot isolate the cooling coil"
        };
        status[13] = Some(why.into());
    } else {
        caveats.push("FC14 reads mixed and supply air as the cooling coil's entering and leaving air (no heating coil between them), less the supply fan's heat".into());
    }
    if has_hc {
        status[14] = Some(
            "needs the heating coil's entering and leaving air; mixed and supply air span the cooling coil too".into(),
        );
    }
    let min_oa = params.number(spec, "min_oa_pct");
    let oa_fraction: Option<(Vec<f64>, Vec<f64>)> = match (mat_raw, rat_raw, oat_raw) {
        (Some(m), Some(r), Some(o)) if !min_oa.is_nan() || !by_month_min.is_empty() => {
            let pct = (0..n).map(|i| {
                let span = o[i] - r[i];
                if span.abs() >= OA_SPAN_MIN_F {
                    (100.0 * (m[i] - r[i]) / span).clamp(-50.0, 150.0)
                } else {
                    f64::NAN
                }
            });
            let minimum = (0..n).map(|i| {
                if by_month_min.is_empty() {
                    min_oa
                } else {
                    crate::engine::by_month(&by_month_min, month(ts[i]), min_oa)
                }
            });
            caveats.push("FC6 compares the outdoor-air fraction from the air temperatures with the configured minimum (G36 uses the active minimum setpoint over measured airflow)".into());
            Some((pct.collect(), minimum.collect()))
        }
        _ => {
            status[5] = Some("needs min_oa_pct (or min_oa_pct_by_month) and mixed, return and outdoor air".into());
            None
        }
    };
    let missing: [&[(&str, bool)]; 15] = [
        &[("duct_static", dsp.is_some()), ("duct_static_sp", dspsp.is_some()), ("supply_fan_speed", fs.is_some())],
        &[("mixed_air_temp", mat.is_some()), ("return_air_temp", rat.is_some()), ("oat", oat.is_some())],
        &[("mixed_air_temp", mat.is_some()), ("return_air_temp", rat.is_some()), ("oat", oat.is_some())],
        &[],
        &[("mixed_air_temp", mat.is_some())],
        &[],
        &[("supply_air_temp_sp", satsp.is_some())],
        &[("mixed_air_temp", mat.is_some())],
        &[("oat", oat.is_some()), ("supply_air_temp_sp", satsp.is_some())],
        &[("mixed_air_temp", mat.is_some()), ("oat", oat.is_some())],
        &[("oat", oat.is_some()), ("supply_air_temp_sp", satsp.is_some())],
        &[("mixed_air_temp", mat.is_some())],
        &[("supply_air_temp_sp", satsp.is_some())],
        &[],
        &[],
    ];
    let mut unmapped: Vec<String> = Vec::new();
    for fc in 0..15 {
        let absent: Vec<&str> = missing[fc].iter().filter(|m| !m.1).map(|m| m.0).collect();
        if status[fc].is_none() && !absent.is_empty() {
            status[fc] = Some(format!("no {}", absent.join(", ")));
            unmapped.push(format!("FC{}", fc + 1));
        }
    }

    // each fault condition's equation, one loop per condition over the samples where it
    // applies (only for conditions whose inputs are mapped: an unmapped input reads as NaN)
    let nan_col: Vec<f64> =
        if [&mat, &rat, &oat, &dsp, &fs].iter().any(|c| c.is_none()) || satsp.is_none() || dspsp.is_none() {
            crate::engine::nans(n)
        } else {
            Vec::new()
        };
    let inputs = Columns {
        s: &sat,
        m: mat.as_deref().unwrap_or(&nan_col),
        r: rat.as_deref().unwrap_or(&nan_col),
        o: oat.as_deref().unwrap_or(&nan_col),
        sp: satsp.unwrap_or(&nan_col),
        dsp: dsp.as_deref().unwrap_or(&nan_col),
        dspsp: dspsp.unwrap_or(&nan_col),
        fs: fs.as_deref().unwrap_or(&nan_col),
        hc: &hc,
        cc: &cc,
        changes_last_hour: &changes_last_hour,
        oa_fraction: oa_fraction.as_ref().map(|(p, m)| (p.as_slice(), m.as_slice())),
    };

    let alarm_delay = params.number(spec, "alarm_delay_min") * NS_PER_MIN;
    let hours = |idx: &[u32]| crate::engine::sum_at(&w, idx) + 0.0;
    // (fc, applicable samples, reported samples)
    let mut evaluated: Vec<(usize, Vec<u32>, Vec<u32>)> = Vec::new();
    let mut never_applied: Vec<String> = Vec::new();
    // the judged samples in a known operating state, and those of each state, in order: a
    // condition's applicable samples are one list or a filter of the judged ones
    let judged_list: Vec<u32> = (0..n as u32).filter(|&i| evaluable[i as usize] && os[i as usize] != 0).collect();
    let mut by_state: [Vec<u32>; 6] = Default::default();
    for &i in &judged_list {
        by_state[os[i as usize] as usize].push(i);
    }
    for fc in 1..=15usize {
        if status[fc - 1].is_some() {
            continue;
        }
        let states = FC_STATES[fc - 1];
        let app: Vec<u32> = if states == 0b11_1110 {
            judged_list.clone()
        } else if states.count_ones() == 1 {
            by_state[states.trailing_zeros() as usize].clone()
        } else {
            judged_list.iter().copied().filter(|&i| states & (1 << os[i as usize]) != 0).collect()
        };
        if app.is_empty() {
            never_applied.push(format!("FC{fc}"));
            continue;
        }
        let hits = inputs.hits(fc, &app);
        evaluated.push((fc, app, persistent(ts, &hits, step, alarm_delay)));
    }
    let judged = judged_list.len();
    if judged == 0 || evaluated.is_empty() {
        let mut f = Finding::not_judged(spec, &format!("{judged} running samples outside ModeDelay with a known operating state, and no fault condition applied"));
        f.caveats.extend(caveats);
        return Outcome::Findings(vec![f]);
    }
    // a confirmed FC14 names the cause FC8 and FC9 would also list (a passing cooling valve)
    let mut moved_h = 0.0;
    if let Some(fc14) = evaluated.iter().find(|e| e.0 == 14).map(|e| e.2.clone()) {
        for e in evaluated.iter_mut().filter(|e| e.0 == 8 || e.0 == 9) {
            // both lists ascend: keep the samples FC14 did not report
            let mut at = 0;
            e.2.retain(|&i| {
                while at < fc14.len() && fc14[at] < i {
                    at += 1;
                }
                let shared = at < fc14.len() && fc14[at] == i;
                if shared {
                    moved_h += w[i as usize];
                }
                !shared
            });
        }
        if moved_h > 0.0 {
            caveats.push(format!("{moved_h:.1} h of FC8/FC9 that coincide with FC14 (air cooled across the idle cooling coil) are reported under FC14"));
        }
    }

    let warn = params.number(spec, "warn_pct");
    let fault = params.number(spec, "fault_pct");
    let min_hours = params.number(spec, "min_applicable_hours");
    let mut metrics = BTreeMap::new();
    let mut conditions = Vec::new();
    let mut flagged_any = vec![false; n];
    // (fc, pct, hours) of the conditions that decide
    let mut ranked: Vec<(usize, f64, f64)> = Vec::new();
    let (mut worst, mut worst_fc) = (0.0f64, None);
    let n_evaluated = evaluated.len();
    for (fc, app, flagged) in evaluated {
        let (app_h, flag_h) = (hours(&app), hours(&flagged));
        let pct = if app_h > 0.0 { 100.0 * flag_h / app_h } else { 0.0 };
        flagged.iter().for_each(|&i| flagged_any[i as usize] = true);
        metrics.insert(format!("fc{fc}_pct"), round2(pct));
        metrics.insert(format!("fc{fc}_hours"), round2(flag_h));
        metrics.insert(format!("fc{fc}_applicable_hours"), round2(app_h));
        if app_h >= min_hours {
            if worst_fc.is_none() || pct > worst {
                (worst, worst_fc) = (pct, Some(fc));
            }
            if pct >= warn {
                ranked.push((fc, pct, flag_h));
            }
        }
        conditions.push(Condition {
            name: format!("FC{fc}"),
            flagged,
            judged: app.len(),
            judged_hours: app_h,
            flagged_hours: flag_h,
        });
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    // no condition applied long enough to be judged: not a pass
    let eligible = worst_fc.is_some();
    let severity = if !eligible {
        Severity::Info
    } else if worst >= fault {
        Severity::Fault
    } else if worst >= warn {
        Severity::Warn
    } else {
        Severity::Ok
    };
    for (fc, why) in status.iter().enumerate().filter_map(|(k, s)| s.as_ref().map(|s| (k + 1, s))) {
        if !unmapped.contains(&format!("FC{fc}")) && why != "no heating coil" {
            caveats.push(format!("FC{fc} not evaluated: {why}"));
        }
    }
    if !unmapped.is_empty() {
        caveats.push(format!("{} not evaluated: an input they need is not mapped", unmapped.join(", ")));
    }
    let mut os_h = [0.0f64; 6];
    for i in (0..n).filter(|&i| running[i]) {
        os_h[os[i] as usize] += w[i];
    }
    let run_h: f64 = os_h.iter().sum();
    if run_h > 0.0 && os_h[OS_OTHER as usize] > 0.5 * run_h {
        caveats.push(format!(
            "{:.0}% of running hours are in OS#5 (both coils working, idle at minimum outdoor air, or heating with the economizer open), where only FC1-FC4 apply",
            100.0 * os_h[OS_OTHER as usize] / run_h
        ));
    }
    for (k, h) in os_h.iter().enumerate().skip(1) {
        metrics.insert(format!("os{k}_hours"), round2(*h));
    }
    metrics.insert("unclassified_hours".into(), round2(os_h[0]));
    metrics.insert("worst_pct".into(), round2(worst));
    if let Some(fc) = worst_fc {
        metrics.insert("worst_fc".into(), fc as f64);
    }
    metrics.insert("fcs_evaluated".into(), n_evaluated as f64);
    metrics.insert("fan_on_hours".into(), round2(run_h));
    metrics.insert("suspended_hours".into(), round2((0..n).filter(|&i| suspended[i]).map(|i| w[i]).sum::<f64>()));
    if !oa_min.is_nan() {
        metrics.insert("oa_damper_min".into(), round2(oa_min));
    }
    metrics.insert("idle_at_min_oa_hours".into(), round2(idle_at_min_h));
    metrics.insert("heating_above_min_oa_hours".into(), round2(heat_off_min_h));
    metrics.insert("unoccupied_hours".into(), round2(hours(&unoccupied)));
    metrics.insert("attributed_to_fc14_hours".into(), round2(moved_h));
    metrics.insert("mode_delay_min".into(), params.number(spec, "mode_delay_min"));
    metrics.insert("alarm_delay_min".into(), params.number(spec, "alarm_delay_min"));
    let body = if !eligible {
        format!("no condition applied for {min_hours} h, too little to judge")
    } else if ranked.is_empty() {
        format!("no condition held on {warn}% or more of its applicable time")
    } else {
        ranked
            .iter()
            .take(4)
            .map(|(fc, pct, h)| format!("FC{fc} {} on {pct:.0}% of its applicable time ({h:.1} h)", FC_TEXT[fc - 1]))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !never_applied.is_empty() {
        caveats.push(format!("{}: their operating states never occurred while judged", never_applied.join(", ")));
    }
    let flagged: Vec<u32> = (0..n).filter(|&i| flagged_any[i]).map(|i| i as u32).collect();
    Outcome::Findings(vec![Finding::new(spec, severity, format!(
            "Guideline 36 AFDD, {} of 15 fault conditions evaluated: {body}; running read from {fan_src}, ModeDelay {} min, AlarmDelay {} min",
            n_evaluated,
            params.number(spec, "mode_delay_min"),
            params.number(spec, "alarm_delay_min")
        ))
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged)
        .with_conditions(conditions)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{outcome, run, shuffled_with_duplicates, MONDAY};
    use crate::engine::NS_PER_HOUR;

    /// 2024-01-01, a Monday, as a naive timestamp.
    const M15: i64 = NS_PER_HOUR / 4;
    /// The roles a sample row fills, in order.
    const ROLES: [&str; 9] = [
        "supply_air_temp",
        "cool_valve",
        "heat_valve",
        "mixed_air_temp",
        "return_air_temp",
        "oat",
        "supply_air_temp_sp",
        "supply_fan_status",
        "oa_damper",
    ];

    /// Free cooling: both valves shut, the economizer open, supply air the mixed air plus fan heat.
    fn free_cooling(_: usize) -> [f64; 9] {
        [62.0, 0.0, 0.0, 60.0, 72.0, 55.0, 60.0, 1.0, 60.0]
    }

    /// Mechanical cooling at minimum outdoor air on a warm day.
    fn cooling(_: usize) -> [f64; 9] {
        [55.0, 50.0, 0.0, 75.0, 74.0, 78.0, 55.0, 1.0, 20.0]
    }

    fn frame_at(ts: &[i64], row: impl Fn(usize) -> [f64; 9]) -> Frame {
        let rows: Vec<[f64; 9]> = (0..ts.len()).map(row).collect();
        let cols: Vec<(&str, Vec<f64>)> =
            ROLES.iter().enumerate().map(|(k, r)| (*r, rows.iter().map(|x| x[k]).collect())).collect();
        Frame::from_rows(ts, &cols)
    }

    /// `n` samples every 15 minutes from Monday 00:00.
    fn frame(n: usize, row: impl Fn(usize) -> [f64; 9]) -> Frame {
        frame_at(&(0..n as i64).map(|k| MONDAY + k * M15).collect::<Vec<_>>(), row)
    }

    fn with(pairs: &[(&str, ParamValue)]) -> Params {
        let mut p = Params::default();
        p.values.insert("oa_damper_min".into(), ParamValue::Number(20.0));
        for (k, v) in pairs {
            p.values.insert(k.to_string(), v.clone());
        }
        p
    }

    fn cond<'a>(f: &'a Finding, name: &str) -> &'a Condition {
        f.conditions
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", f.conditions.iter().map(|c| &c.name).collect::<Vec<_>>()))
    }

    #[test]
    fn a_healthy_unit_is_ok_in_free_and_mechanical_cooling() {
        let f = run(&RULE, &frame(400, |i| if i < 200 { free_cooling(i) } else { cooling(i) }), &with(&[]));
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!(f.metrics["os2_hours"], 50.0);
        assert_eq!(f.metrics["os4_hours"], 50.0);
        // FC1 (no static), FC5/FC7 (no heating state), FC6 (no minimum), FC10/FC11 (no OS#3),
        // FC14/FC15 (a heating coil) are not among them
        let names: Vec<&str> = f.conditions.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["FC2", "FC3", "FC4", "FC8", "FC9", "FC12", "FC13"]);
        assert_eq!(cond(&f, "FC8").judged, 200);
        assert!(f.flagged.is_empty());
        assert_eq!(f.judged, 400);
    }

    #[test]
    fn a_passing_cooling_valve_trips_fc8_and_is_named_fc14_without_a_heating_coil() {
        let leak = |i| {
            let mut r = free_cooling(i);
            r[0] = 54.0; // 6 °F below the mixed air with the valve shut
            r
        };
        let f = run(&RULE, &frame(400, leak), &with(&[]));
        assert_eq!(f.severity, Severity::Fault);
        assert_eq!(f.metrics["worst_fc"], 8.0);
        assert_eq!(cond(&f, "FC8").flagged.len(), 400);
        assert!(f.summary.contains("FC8"), "{}", f.summary);
        // the same unit with no heating coil: mixed and supply air bracket the cooling coil
        let mut g = frame(400, leak);
        g.cols.remove("heat_valve");
        let f = run(&RULE, &g, &with(&[]));
        assert_eq!(f.severity, Severity::Fault);
        assert_eq!(cond(&f, "FC14").flagged.len(), 400);
        assert!(cond(&f, "FC8").flagged.is_empty(), "FC8 hours go to FC14");
        assert_eq!(f.metrics["attributed_to_fc14_hours"], 100.0);
        assert!(f.caveats.iter().any(|c| c.contains("no heating-valve point")));
    }

    #[test]
    fn the_equation_and_share_boundaries() {
        // FC13: supply air above setpoint + 2 °F with the cooling valve at 99 % or more
        let full = |sat: f64, cc: f64| {
            move |i| {
                let mut r = cooling(i);
                (r[0], r[1]) = (sat, cc);
                r
            }
        };
        assert_eq!(
            run(&RULE, &frame(400, full(57.0, 100.0)), &with(&[])).severity,
            Severity::Ok,
            "at setpoint + 2 °F exactly"
        );
        assert_eq!(run(&RULE, &frame(400, full(57.5, 99.0)), &with(&[])).severity, Severity::Fault);
        assert_eq!(
            run(&RULE, &frame(400, full(57.5, 98.9)), &with(&[])).severity,
            Severity::Ok,
            "the valve short of full open"
        );
        // the share: 5 % of 100 applicable hours is a warning, one sample less is not; 20 % a fault
        let share = |k: usize| move |i: usize| if i < k { full(60.0, 100.0)(i) } else { cooling(i) };
        let at = run(&RULE, &frame(400, share(20)), &with(&[]));
        assert_eq!((at.severity, at.metrics["fc13_pct"]), (Severity::Warn, 5.0));
        assert_eq!(run(&RULE, &frame(400, share(19)), &with(&[])).severity, Severity::Ok);
        assert_eq!(run(&RULE, &frame(400, share(80)), &with(&[])).severity, Severity::Fault);
        assert_eq!(run(&RULE, &frame(400, share(79)), &with(&[])).severity, Severity::Warn);
        // fewer applicable hours than min_applicable_hours do not set the severity
        let short = run(&RULE, &frame(95, full(60.0, 100.0)), &with(&[]));
        assert_eq!(short.metrics["fc13_pct"], 100.0);
        assert_eq!(short.severity, Severity::Info, "23.75 h applicable, 24 needed");
        assert!(short.summary.contains("too little to judge"), "{}", short.summary);
    }

    #[test]
    fn alarm_delay_gaps_and_mode_delay() {
        // a one-sample excursion (15 minutes) is shorter than the 30-minute AlarmDelay
        let blip = |k: &'static [usize]| {
            move |i: usize| {
                let mut r = cooling(i);
                if k.contains(&i) {
                    (r[0], r[1]) = (60.0, 100.0);
                }
                r
            }
        };
        let f = run(&RULE, &frame(400, blip(&[100])), &with(&[]));
        assert!(cond(&f, "FC13").flagged.is_empty());
        let f = run(&RULE, &frame(400, blip(&[100, 101])), &with(&[]));
        assert_eq!(cond(&f, "FC13").flagged, vec![100, 101]);
        // the same two samples either side of a two-hour hole are two short episodes
        let ts: Vec<i64> = (0..400i64).map(|k| MONDAY + k * M15 + if k > 100 { 2 * NS_PER_HOUR } else { 0 }).collect();
        let f = run(&RULE, &frame_at(&ts, blip(&[100, 101])), &with(&[]));
        assert!(cond(&f, "FC13").flagged.is_empty(), "a gap ends an episode");
        // and the first running sample after the hole is a start: 30 minutes suspended
        assert_eq!(f.metrics["suspended_hours"], 0.5);
        assert_eq!(f.judged, 398);
        // a fan start suspends too; a unit that starts running at the first sample does not
        let f = run(
            &RULE,
            &frame(400, |i| {
                let mut r = cooling(i);
                r[7] = if i < 40 { 0.0 } else { 1.0 };
                r
            }),
            &with(&[]),
        );
        assert_eq!((f.judged, f.metrics["suspended_hours"]), (358, 0.5));
    }

    #[test]
    fn a_stopped_unit_is_not_judged() {
        let off = run(
            &RULE,
            &frame(400, |i| {
                let mut r = free_cooling(i);
                (r[0], r[7]) = (40.0, 0.0);
                r
            }),
            &with(&[]),
        );
        assert_eq!((off.severity, off.judged), (Severity::Info, 0));
        // a fault while stopped counts for nothing
        let f = run(
            &RULE,
            &frame(400, |i| {
                let mut r = free_cooling(i);
                if i >= 300 {
                    (r[0], r[7]) = (40.0, 0.0);
                }
                r
            }),
            &with(&[]),
        );
        assert_eq!((f.severity, f.judged), (Severity::Ok, 300));
    }

    #[test]
    fn duplicates_disorder_and_irregular_sampling() {
        let row = |i: usize| {
            if i < 48 {
                let mut r = cooling(i);
                (r[0], r[1]) = (60.0, 100.0);
                r
            } else {
                cooling(i)
            }
        };
        let base = frame(200, row);
        let shuffled = shuffled_with_duplicates(&base);
        assert_eq!(shuffled.len(), 200);
        assert_eq!(run(&RULE, &shuffled, &with(&[])).metrics, run(&RULE, &base, &with(&[])).metrics);
        // 12 faulty hours at 15 minutes, then 12 healthy hours at 20 minutes: the share is of
        // time (about half), not of samples (48 of 84)
        let ts: Vec<i64> = (0..84i64)
            .map(|k| MONDAY + if k < 48 { k * M15 } else { 12 * NS_PER_HOUR + (k - 48) * NS_PER_HOUR / 3 })
            .collect();
        let f = run(&RULE, &frame_at(&ts, row), &with(&[("min_applicable_hours", ParamValue::Number(12.0))]));
        let pct = f.metrics["fc13_pct"];
        assert!((49.0..51.0).contains(&pct), "{pct}");
        assert_eq!(f.severity, Severity::Fault);
    }

    #[test]
    fn operating_states_follow_the_damper() {
        // shut valves with the damper at its minimum is idle recirculation (OS#5), not free cooling
        let idle = |i| {
            let mut r = free_cooling(i);
            (r[0], r[8]) = (54.0, 20.0);
            r
        };
        let f = run(&RULE, &frame(400, idle), &with(&[]));
        assert_eq!(f.metrics["os5_hours"], 100.0);
        assert!(f.conditions.iter().all(|c| c.name != "FC8"));
        assert!(f.caveats.iter().any(|c| c.contains("OS#5")));
        // without a damper point the valves alone decide, and it says so
        let mut g = frame(400, idle);
        g.cols.remove("oa_damper");
        let f = run(&RULE, &g, &with(&[]));
        assert_eq!(f.metrics["os2_hours"], 100.0);
        assert!(f.caveats.iter().any(|c| c.contains("no outdoor-air damper")));
        // the minimum is learned from mechanical cooling below the economizer position
        let f = run(&RULE, &frame(400, |i| if i < 100 { cooling(i) } else { free_cooling(i) }), &Params::default());
        assert_eq!(f.metrics["oa_damper_min"], 20.0);
        let f = run(&RULE, &frame(400, free_cooling), &Params::default());
        assert_eq!(f.metrics["oa_damper_min"], 0.0);
        assert!(f.caveats.iter().any(|c| c.contains("could not be learned")));
        // a month-by-month minimum of 60 % puts a 60 % damper at its minimum
        let f = run(
            &RULE,
            &frame(400, free_cooling),
            &with(&[("oa_damper_min_by_month", ParamValue::List(vec![60.0; 12]))]),
        );
        assert_eq!(f.metrics["os5_hours"], 100.0);
    }

    #[test]
    fn unstable_control_and_the_outdoor_air_fraction() {
        // alternating between free cooling and mechanical cooling every sample: 3-4 changes an
        // hour at 15 minutes is within G36's 7; every minute it is not
        let flip = |i: usize| if i.is_multiple_of(2) { free_cooling(i) } else { cooling(i) };
        let f = run(&RULE, &frame(400, flip), &with(&[]));
        assert_eq!(f.metrics["fc4_pct"], 0.0);
        let ts: Vec<i64> = (0..3000i64).map(|k| MONDAY + k * 60_000_000_000).collect();
        let f = run(&RULE, &frame_at(&ts, flip), &with(&[]));
        assert!(f.metrics["fc4_pct"] > 90.0, "{}", f.summary);
        // FC6 needs the design minimum; 20 % min against a 60 % fraction is 40 points off
        let hot = |i| {
            let mut r = cooling(i);
            (r[3], r[4], r[5]) = (86.0, 72.0, 95.0); // (86 - 72) / (95 - 72) = 61 %
            r
        };
        let f = run(&RULE, &frame(400, hot), &with(&[]));
        assert!(f.caveats.iter().any(|c| c.starts_with("FC6 not evaluated")));
        let f = run(&RULE, &frame(400, hot), &with(&[("min_oa_pct", ParamValue::Number(20.0))]));
        assert_eq!(cond(&f, "FC6").flagged.len(), 400);
        let f = run(&RULE, &frame(400, hot), &with(&[("min_oa_pct", ParamValue::Number(50.0))]));
        assert!(cond(&f, "FC6").flagged.is_empty());
    }

    #[test]
    fn occupancy_gate_and_declines() {
        let mut f = frame(400, free_cooling);
        f.cols.insert("occupancy".into(), (0..400).map(|i| if i < 100 { 1.0 } else { 0.0 }).collect());
        let all = run(&RULE, &f, &with(&[]));
        let occ = run(&RULE, &f, &with(&[("occupancy_gate", ParamValue::Choice("trended".into()))]));
        // the occupancy change is a mode change: 30 minutes suspended either way
        assert_eq!((all.judged, occ.judged), (398, 100));
        assert_eq!(occ.metrics["unoccupied_hours"], 74.5);
        // a heating coil declared but not trended
        let mut g = frame(400, free_cooling);
        g.cols.remove("heat_valve");
        assert_eq!(run(&RULE, &g, &with(&[("heating_coil", ParamValue::Flag(Some(true)))])).severity, Severity::Info);
        // a month list of the wrong length, no fan signal, no cooling valve
        assert_eq!(
            run(&RULE, &frame(400, free_cooling), &with(&[("min_oa_pct_by_month", ParamValue::List(vec![20.0; 3]))]))
                .severity,
            Severity::Info
        );
        let mut h = frame(400, free_cooling);
        h.cols.remove("supply_fan_status");
        assert!(run(&RULE, &h, &with(&[])).summary.contains("no supply-fan"));
        h.cols.remove("cool_valve");
        h.cols.remove("supply_air_temp");
        assert_eq!(
            outcome(&RULE, &h, &with(&[])),
            Outcome::Skipped { missing: vec!["supply_air_temp".into(), "cool_valve".into()] }
        );
        // degenerate frames do not panic
        let one = frame(1, free_cooling);
        assert_eq!(run(&RULE, &one, &with(&[])).severity, Severity::Info);
        assert!(matches!(outcome(&RULE, &Frame::default(), &Params::default()), Outcome::Skipped { .. }));
        let far = frame_at(&[i64::MIN, 0, i64::MAX], cooling);
        assert!(matches!(outcome(&RULE, &far, &with(&[])), Outcome::Findings(_)));
        let nan = frame(8, |_| [f64::NAN, 10.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN, f64::NAN, 1.0, f64::NAN]);
        assert!(matches!(outcome(&RULE, &nan, &Params::default()), Outcome::Skipped { .. }));
    }

    #[test]
    fn the_even_grid_rolling_mean_is_the_general_one_to_the_bit() {
        // gaps in the values (NaN), windows of one to several rows and one not a whole number
        let v: Vec<f64> = (0..500)
            .map(|i| {
                if i % 37 < 3 || (i / 50) % 4 == 3 && i % 5 == 0 {
                    f64::NAN
                } else {
                    55.0 + ((i * 7919) % 101) as f64 / 7.0
                }
            })
            .collect();
        for step in [60_000_000_000i64, 300_000_000_000, 900_000_000_000] {
            let ts: Vec<i64> = (0..v.len() as i64).map(|i| 1_700_000_000_000_000_000 + i * step).collect();
            for window in [step, 3 * step, 5 * step + step / 2, 60 * 60_000_000_000] {
                let rows = (window as u64).div_ceil(step as u64) as usize;
                let all = vec![true; v.len()];
                let (a, b) = (rolling_mean_even(&v, &all, rows), rolling_mean_uneven(&ts, &v, window));
                assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "step {step} window {window}");
                // stopped samples are left out where they are read, as the masked copy left them out
                let running: Vec<bool> = (0..v.len()).map(|i| i % 11 > 2 && i % 97 < 80).collect();
                let masked: Vec<f64> = v.iter().zip(&running).map(|(&x, &r)| if r { x } else { f64::NAN }).collect();
                let (a, b) = (rolling_mean_even(&v, &running, rows), rolling_mean_uneven(&ts, &masked, window));
                assert!(
                    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                    "step {step} window {window}, stops"
                );
            }
        }
        assert_eq!(crate::engine::even_step(&[0, 5, 10, 15]), Some(5));
        assert_eq!(crate::engine::even_step(&[0, 5, 10, 16]), None);
        assert_eq!(crate::engine::even_step(&[0]), None);
    }

    #[test]
    fn the_even_grid_change_count_is_the_walking_one() {
        // states that change often, in bursts, with stops between; steps that divide the hour,
        // one that does not (7 min) and one longer than it
        let os: Vec<u8> =
            (0..2000).map(|i| if (i / 40) % 3 == 0 { (i % 5) as u8 } else { ((i / 7) % 2) as u8 + 1 }).collect();
        let running: Vec<bool> = (0..os.len()).map(|i| i % 131 > 4).collect();
        for step in [60_000_000_000i64, 300_000_000_000, 420_000_000_000, 900_000_000_000, 7_200_000_000_000] {
            let ts: Vec<i64> = (0..os.len() as i64).map(|i| 1_700_000_000_000_000_000 + i * step).collect();
            let even = changes_in_last_hour(&ts, Some(step), &os, &running);
            let walked = changes_in_last_hour(&ts, None, &os, &running);
            assert_eq!(even, walked, "step {step}");
            assert!(walked.iter().any(|c| *c > 1.0) || step > 3_600_000_000_000, "the case counts changes");
        }
    }

    #[test]
    fn rolling_means_and_persistence() {
        let ts: Vec<i64> = (0..6i64).map(|k| k * 60_000_000_000).collect();
        let x = [1.0, 3.0, f64::NAN, 5.0, 7.0, 9.0];
        let running = [true, true, true, true, false, true];
        for even in [crate::engine::even_step(&ts), None] {
            let m = rolling_mean(&ts, even, &x, &running, 3.0 * 60_000_000_000.0);
            assert_eq!(m[..4], [1.0, 2.0, 2.0, 4.0]);
            assert_eq!(m[5], 7.0, "the stopped sample is left out: mean of 5 and 9");
        }
        let p = persistent(&ts, &[0, 2, 3, 5], 60_000_000_000, 2.0 * 60_000_000_000.0);
        assert_eq!(p, [2, 3], "only the two-sample episode lasts two minutes");
        // a gap wider than 1.5 steps between consecutive samples ends an episode
        let gapped = [0, 60_000_000_000, 300_000_000_000];
        assert_eq!(persistent(&gapped, &[0, 1, 2], 60_000_000_000, 3.0 * 60_000_000_000.0), [0u32; 0]);
        assert_eq!(persistent(&gapped, &[0, 1, 2], 60_000_000_000, 0.0), [0, 1, 2], "no delay keeps every hit");
    }
}
