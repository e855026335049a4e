//! The analysis `sat_reset_effectiveness` and `static_reset_effectiveness` share: does a trended
//! reset setpoint follow the Guideline 36 trim-and-respond trajectory that its own trended
//! request count implies? The trajectory is rebuilt with [`crate::trim_respond`] and compared
//! with the setpoint on fan-on samples for four failures, any of which is a warning:
//!
//! * stuck: the setpoint spans at most `flat_frac` of the reset's range while the requests would
//!   have swung it over at least `expected_move_frac` of it;
//! * not responding: on samples where zones ask for more than the ignored requests and the
//!   rebuilt trajectory has left the energy-saving end, the setpoint sits at (or beyond) that end
//!   on at least `mode_frac` of them;
//! * not trimming: the same on samples without net requests, at (or beyond) the demand end;
//! * diverging: between consecutive samples the setpoint moves against the rebuilt move on at
//!   least `wrong_dir_frac` of the moves.
//!
//! "Near an end" is within `pinned_frac` of the range. A trend logged more coarsely than the
//! reset's two-minute cycle holds request snapshots: a working reset settles into trimming and
//! responding on alternate cycles with the requests one either side of the ignored count, so on
//! such a trend a snapshot within one request of that count is read as neither demand nor idle.

use std::collections::BTreeMap;

use crate::engine::{
    fan_on, round2, Condition, Finding, Frame, Inputs, Outcome, ParamSpec, Params, RuleSpec, Severity,
};
use crate::trim_respond::{self, TrimRespond, MAP_OAT_MAX_F, MAP_OAT_MIN_F};

/// Decimals stored in binary: a share or range of exactly a threshold counts.
const EPS: f64 = 1e-9;

/// What differs between the two rules that share this analysis.
#[derive(Clone, Copy, Debug)]
pub struct Reset {
    /// The rule's id.
    pub id: &'static str,
    /// The setpoint role, then the request-count role.
    pub required: &'static [&'static str; 2],
    /// Outdoor air (for the map) and the fan signals.
    pub optional: &'static [&'static str],
    /// The G36 reset the requests drive.
    pub tr: TrimRespond,
    /// The setpoint's unit.
    pub unit: &'static str,
    /// The reset's name in a summary.
    pub what: &'static str,
    /// The trended setpoint is G36's outdoor-air map of the reset variable (T-max of the
    /// supply-air reset), applied when outdoor air is trended.
    pub oat_map: bool,
}

/// The supply-air temperature reset.
pub const SAT: Reset = Reset {
    id: "sat_reset_effectiveness",
    required: &["supply_air_temp_sp", "sat_reset_requests"],
    optional: &["oat", "supply_fan_status", "supply_fan_speed", "airflow"],
    tr: trim_respond::SAT_T_MAX,
    unit: "°F",
    what: "supply-air temperature",
    oat_map: true,
};

/// The duct static-pressure reset.
pub const STATIC: Reset = Reset {
    id: "static_reset_effectiveness",
    required: &["duct_static_sp", "static_pressure_requests"],
    optional: &["supply_fan_status", "supply_fan_speed", "airflow"],
    tr: trim_respond::DUCT_STATIC,
    unit: "in. w.c.",
    what: "duct static-pressure",
    oat_map: false,
};

/// The declaration of the rule for `r`.
pub fn spec(r: &Reset) -> RuleSpec {
    RuleSpec {
        id: r.id,
        families: &["air_handler"],
        inputs: Inputs { required: r.required, optional: r.optional, gating: &[], one_of: &[], needs_gating: false },
        params: vec![
            ParamSpec::number("min_cycles", 12.0, "count (T&R cycles)", (6.0, 500.0),
                "a dozen compared samples is the least that shows a pattern rather than a moment",
                "Raise it for long or coarse trends. With fewer fan-on samples carrying both the setpoint and its request count the rule does not judge."),
            ParamSpec::number("flat_frac", 0.10, "fraction of the reset band", (0.02, 0.3),
                "a setpoint that spans a tenth of its reset range or less is not being reset",
                "On a reset known to work read actual_sp_range over a quiet week and keep flat_frac well under that range divided by the band."),
            ParamSpec::number("expected_move_frac", 0.25, "fraction of the reset band", (0.1, 0.8),
                "a flat setpoint is called stuck only where the requests would have swung it over a good part of its range",
                "Keep it well above flat_frac; raise it when the request count is noisy."),
            ParamSpec::number("pinned_frac", 0.15, "fraction of the reset band", (0.05, 0.3),
                "how close to an end of the range counts as parked there: register rounding and the last few trims",
                "Make it cover the wobble a working reset shows around either end of its range."),
            ParamSpec::number("mode_frac", 0.60, "fraction of demand (or idle) cycles", (0.3, 0.95),
                "parked at the wrong end on most of the samples where the reset should have left it is a pattern, not a lag",
                "Read pct_high_demand_unresponsive and pct_idle_untrimmed on a reset known to work and set mode_frac above both."),
            ParamSpec::number("min_mode_cycles", 10.0, "count (T&R cycles)", (5.0, 200.0),
                "the not-responding, not-trimming and wrong-direction shares each need this many samples behind them",
                "Raise it on long records so each share rests on more evidence."),
            ParamSpec::number("wrong_dir_frac", 0.50, "fraction of cycles T&R commanded a move", (0.3, 0.9),
                "a reset that moves against the command on half of the moves is inverted or reads the wrong signal; a working one seldom does",
                "Raise it when a coarse trend makes a working reset's moves look reversed (pct_cycles_wrong_direction shows how often)."),
        ],
        judged_basis: "fan-on samples with the setpoint and its request count",
    }
}

/// Samples of one of the four checks, and the ones that failed it.
struct Check {
    judged: Vec<usize>,
    failed: Vec<u32>,
}

impl Check {
    fn share(&self) -> f64 {
        if self.judged.is_empty() {
            0.0
        } else {
            self.failed.len() as f64 / self.judged.len() as f64
        }
    }
}

/// Evaluate one equipment's frame for the reset `r`.
pub fn evaluate(r: &Reset, spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    let (sp, req) = (frame.required(r.required[0]), frame.required(r.required[1]));
    let p = |name: &str| params.number(spec, name);
    let (min_cycles, flat_frac, move_frac, pinned_frac) =
        (p("min_cycles"), p("flat_frac"), p("expected_move_frac"), p("pinned_frac"));
    let (mode_frac, min_mode, wrong_frac) = (p("mode_frac"), p("min_mode_cycles"), p("wrong_dir_frac"));
    let tr = r.tr;
    let n = frame.len();
    let fan = fan_on(frame);
    let running: Vec<Option<bool>> = fan.as_ref().map_or_else(|| vec![Some(true); n], |(v, _)| v.clone());
    let oat = if r.oat_map { frame.col("oat") } else { None };
    let mut expected = tr.replay(&frame.ts, req, &running);
    if let Some(o) = oat {
        for (e, &x) in expected.iter_mut().zip(o) {
            *e = if x.is_nan() {
                f64::NAN
            } else {
                trim_respond::oat_sat_map(*e, x, tr.min, MAP_OAT_MIN_F, MAP_OAT_MAX_F)
            };
        }
    }
    let band = tr.band();
    let judged: Vec<usize> = (0..n.min(expected.len()))
        .filter(|&i| running[i] == Some(true) && !req[i].is_nan() && !expected[i].is_nan())
        .filter(|&i| sp[i] >= tr.min - band && sp[i] <= tr.max + band)
        .collect();
    if (judged.len() as f64) < min_cycles {
        return Outcome::Findings(vec![Finding::not_judged(
            spec,
            &format!(
                "{} fan-on samples with both the setpoint and its request count ({min_cycles} needed)",
                judged.len()
            ),
        )]);
    }

    let spacing = trim_respond::typical_spacing(&frame.ts).unwrap_or(trim_respond::PERIOD_NS);
    let every_cycle = trim_respond::logs_every_cycle(spacing);
    // on a coarse trend a snapshot within one request of the ignored count is neither demand nor idle
    let margin = if every_cycle { 0.0 } else { 1.0 };
    let tol = pinned_frac * band;
    let (trim_end, demand_end) = (tr.trim_end(), tr.demand_end());
    // +1 where trimming raises the setpoint, so "at or beyond an end" is one comparison
    let s = if tr.trim > 0.0 { 1.0 } else { -1.0 };

    // a snapshot that says demand or idle plainly (every count does on a trend of every cycle)
    let clear = |i: usize| {
        let net = tr.net(req[i]);
        net >= 1.0 + margin || net <= -margin
    };
    let range = |v: &dyn Fn(usize) -> f64, of: &dyn Fn(usize) -> bool| {
        let (lo, hi) = judged.iter().filter(|&&i| of(i)).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &i| {
            (crate::engine::min_of(lo, v(i)), crate::engine::max_of(hi, v(i)))
        });
        if hi >= lo {
            hi - lo
        } else {
            0.0
        }
    };
    // how far the requests would have swung it, read where they are plain
    let (actual_range, expected_range) = (range(&|i| sp[i], &|_| true), range(&|i| expected[i], &clear));
    let stuck = actual_range <= flat_frac * band + EPS && expected_range + EPS >= move_frac * band;

    let demand = {
        let judged: Vec<usize> = judged
            .iter()
            .copied()
            .filter(|&i| tr.net(req[i]) >= 1.0 + margin && (expected[i] - trim_end).abs() > tol)
            .collect();
        let failed = judged.iter().filter(|&&i| s * (sp[i] - trim_end) + tol + EPS >= 0.0).map(|&i| i as u32).collect();
        Check { judged, failed }
    };
    let idle = {
        let judged: Vec<usize> = judged
            .iter()
            .copied()
            .filter(|&i| tr.net(req[i]) <= -margin && (expected[i] - demand_end).abs() > tol)
            .collect();
        let failed = judged.iter().filter(|&&i| s * (sp[i] - demand_end) <= tol + EPS).map(|&i| i as u32).collect();
        Check { judged, failed }
    };
    // moves between consecutive samples (no gap) where the rebuilt setpoint moved on a clear count
    let gap_limit = spacing.saturating_add(spacing / 2);
    let moves = {
        let mut judged_moves = Vec::new();
        let mut failed = Vec::new();
        for w in judged.windows(2) {
            let (a, b) = (w[0], w[1]);
            let de = expected[b] - expected[a];
            if b != a + 1 || frame.ts[b].saturating_sub(frame.ts[a]) > gap_limit || de.abs() <= EPS || !clear(a) {
                continue;
            }
            judged_moves.push(b);
            if (sp[b] - sp[a]) * de < 0.0 {
                failed.push(b as u32);
            }
        }
        Check { judged: judged_moves, failed }
    };
    let enough = |c: &Check| c.judged.len() as f64 >= min_mode;
    let not_responding = enough(&demand) && demand.share() + EPS >= mode_frac;
    let not_trimming = enough(&idle) && idle.share() + EPS >= mode_frac;
    let diverges = enough(&moves) && moves.share() + EPS >= wrong_frac;

    let mut failures = Vec::new();
    if stuck {
        failures.push("is stuck: the setpoint hardly moves where its requests would have swung it".to_string());
    }
    if not_responding {
        failures.push(format!(
            "does not respond: it sits at the energy-saving end on {:.0}% of the samples where zones asked for more",
            100.0 * demand.share()
        ));
    }
    if not_trimming {
        failures.push(format!(
            "does not trim: it sits at the demand end on {:.0}% of the samples where no zone asked for it",
            100.0 * idle.share()
        ));
    }
    if diverges {
        failures.push(format!(
            "moves against the command on {:.0}% of the moves the requests called for",
            100.0 * moves.share()
        ));
    }
    let u = r.unit;
    let span = format!(
        "it spans {actual_range:.2} {u} where the rebuilt trajectory spans {expected_range:.2} {u}, over {} samples",
        judged.len()
    );
    let (severity, summary) = if failures.is_empty() {
        (
            Severity::Ok,
            format!("the {} setpoint follows the trim-and-respond trajectory of its requests: {span}", r.what),
        )
    } else {
        (Severity::Warn, format!("the {} reset {}; {span}", r.what, failures.join("; ")))
    };

    let mut caveats = Vec::new();
    if fan.is_none() {
        caveats.push("no fan signal: every sample was judged and the rebuilt reset never restarts".to_string());
    }
    if !every_cycle {
        caveats.push(format!(
            "trended every {:.0} min while the reset acts every 2 min: the request counts are snapshots, the trajectory holds each one until the next sample, and a count within one of the {} ignored requests is read as neither demand nor idle",
            spacing as f64 / 60e9,
            tr.ignored
        ));
    }
    if r.oat_map && oat.is_none() {
        caveats.push("no outdoor air trended: the setpoint is compared with T-max itself, though G36 lowers supply air below T-max in warm weather (which can read as not trimming)".to_string());
    }

    let mut metrics = BTreeMap::new();
    let round3 = |x: f64| (x * 1000.0).round() / 1000.0;
    metrics.insert("actual_sp_range".into(), round3(actual_range));
    metrics.insert("expected_sp_range".into(), round3(expected_range));
    let mae = judged.iter().map(|&i| (sp[i] - expected[i]).abs()).sum::<f64>() / judged.len() as f64;
    metrics.insert("mean_abs_error_sp".into(), round3(mae));
    metrics.insert("pct_cycles_wrong_direction".into(), round2(100.0 * moves.share()));
    if enough(&demand) {
        metrics.insert("pct_high_demand_unresponsive".into(), round2(100.0 * demand.share()));
    }
    if enough(&idle) {
        metrics.insert("pct_idle_untrimmed".into(), round2(100.0 * idle.share()));
    }
    metrics.insert("n_demand_judged".into(), demand.judged.len() as f64);
    metrics.insert("n_idle_judged".into(), idle.judged.len() as f64);
    metrics.insert("n_moves_judged".into(), moves.judged.len() as f64);
    for (name, hit) in
        [("stuck", stuck), ("not_responding", not_responding), ("not_trimming", not_trimming), ("diverges", diverges)]
    {
        metrics.insert(name.into(), if hit { 1.0 } else { 0.0 });
    }
    metrics.insert("n".into(), judged.len() as f64);
    metrics.insert("trend_minutes".into(), round2(spacing as f64 / 60e9));

    let w = frame.weights_hours();
    let hours = |idx: &mut dyn Iterator<Item = usize>| idx.map(|i| w[i]).sum::<f64>() + 0.0;
    let all: Vec<u32> = judged.iter().map(|&i| i as u32).collect();
    let condition = |name: &str, c: &Check| Condition {
        name: name.into(),
        flagged: c.failed.clone(),
        judged: c.judged.len(),
        judged_hours: hours(&mut c.judged.iter().copied()),
        flagged_hours: hours(&mut c.failed.iter().map(|&i| i as usize)),
    };
    let stuck_check = Check { judged: judged.clone(), failed: if stuck { all } else { Vec::new() } };
    let conditions = vec![
        condition("stuck", &stuck_check),
        condition("not_responding", &demand),
        condition("not_trimming", &idle),
        condition("diverges", &moves),
    ];
    let mut flagged: Vec<u32> =
        [(stuck, &stuck_check), (not_responding, &demand), (not_trimming, &idle), (diverges, &moves)]
            .iter()
            .filter(|(hit, _)| *hit)
            .flat_map(|(_, c)| c.failed.iter().copied())
            .collect();
    flagged.sort_unstable();
    flagged.dedup();
    Outcome::Findings(vec![Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(judged.len())
        .with_conditions(conditions)])
}

/// Frames and checks both rules' tests use.
#[cfg(test)]
pub(crate) mod testkit {
    use super::*;
    use crate::engine::testing;
    use crate::engine::NS_PER_HOUR;

    /// 2024-01-01, a Monday, 06:00 as a naive timestamp.
    pub const START: i64 = 19_723 * 24 * NS_PER_HOUR + 6 * NS_PER_HOUR;
    /// A minute in nanoseconds.
    pub use crate::engine::testing::MINUTE as MIN;

    /// Requests that swing the reset: none for 15 samples, then five for 15.
    pub fn wave(i: usize) -> f64 {
        if (i / 15).is_multiple_of(2) {
            0.0
        } else {
            5.0
        }
    }

    /// A frame for `r` on timestamps `ts` with requests `req(i)` and the fan `fan(i)`; the
    /// setpoint is `sp(i, e)` of the trajectory `e` the rule rebuilds (outdoor air at 50 °F, where
    /// G36's map leaves the supply-air setpoint at T-max).
    pub fn frame(
        r: &Reset,
        ts: &[i64],
        req: impl Fn(usize) -> f64,
        fan: impl Fn(usize) -> f64,
        sp: impl Fn(usize, f64) -> f64,
    ) -> Frame {
        let n = ts.len();
        let requests: Vec<f64> = (0..n).map(&req).collect();
        let status: Vec<f64> = (0..n).map(&fan).collect();
        let running: Vec<Option<bool>> = status.iter().map(|&v| Some(v >= 0.5)).collect();
        let e = r.tr.replay(ts, &requests, &running);
        let setpoint: Vec<f64> = (0..n).map(|i| sp(i, e[i])).collect();
        let mut cols = vec![(r.required[0], setpoint), (r.required[1], requests), ("supply_fan_status", status)];
        if r.oat_map {
            cols.push(("oat", vec![50.0; n]));
        }
        Frame::from_rows(ts, &cols)
    }

    /// `n` timestamps `minutes` apart.
    pub fn every(minutes: i64, n: usize) -> Vec<i64> {
        (0..n as i64).map(|i| START + i * minutes * MIN).collect()
    }

    /// The registered rule for `r`, as the engine runs it.
    pub fn rule(r: &Reset) -> crate::engine::Rule {
        crate::rules::all().into_iter().find(|x| (x.spec)().id == r.id).expect("registered")
    }

    /// The engine's answer for `r` on a frame.
    pub fn outcome(r: &Reset, f: &Frame, p: &Params) -> Outcome {
        testing::outcome(&rule(r), f, p)
    }

    /// The rule's one finding.
    pub fn run(r: &Reset, f: &Frame, p: &Params) -> Finding {
        testing::run(&rule(r), f, p)
    }

    /// Default parameters.
    pub fn defaults() -> Params {
        Params::default()
    }

    /// The failures a finding reports.
    pub fn failed(f: &Finding) -> Vec<&'static str> {
        ["stuck", "not_responding", "not_trimming", "diverges"]
            .into_iter()
            .filter(|m| f.metrics.get(*m) == Some(&1.0))
            .collect()
    }

    /// A reset that does what its requests say is ok, with nothing to correct.
    pub fn follows_its_requests(r: &Reset) {
        let f = run(r, &frame(r, &every(2, 120), wave, |_| 1.0, |_, e| e), &defaults());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!(f.metrics["mean_abs_error_sp"], 0.0);
        assert_eq!(f.metrics["pct_cycles_wrong_direction"], 0.0);
        assert!(f.metrics["expected_sp_range"] >= 0.25 * r.tr.band(), "{:?}", f.metrics);
        assert!(f.flagged.is_empty() && f.caveats.is_empty(), "{:?}", f.caveats);
        assert_eq!(f.judged, 120);
    }

    /// A frozen setpoint, one parked at either end, and one that moves the wrong way.
    pub fn the_four_failures(r: &Reset) {
        let tr = r.tr;
        let mid = (tr.min + tr.max) / 2.0;
        let stuck = run(r, &frame(r, &every(2, 120), wave, |_| 1.0, |_, _| mid), &defaults());
        assert_eq!(failed(&stuck), ["stuck"], "{}", stuck.summary);
        assert_eq!(stuck.flagged.len(), 120);
        // parked at the energy-saving end under steady demand
        let starved = run(r, &frame(r, &every(2, 60), |_| 6.0, |_| 1.0, |_, _| tr.trim_end()), &defaults());
        assert!(failed(&starved).contains(&"not_responding"), "{}", starved.summary);
        assert_eq!(starved.metrics["pct_high_demand_unresponsive"], 100.0);
        // parked at the demand end with no requests
        let wasting = run(r, &frame(r, &every(2, 60), |_| 0.0, |_| 1.0, |_, _| tr.demand_end()), &defaults());
        assert!(failed(&wasting).contains(&"not_trimming"), "{}", wasting.summary);
        // a mirror image of the trajectory: every move is reversed
        let inverted = run(r, &frame(r, &every(2, 120), wave, |_| 1.0, |_, e| tr.min + tr.max - e), &defaults());
        assert!(failed(&inverted).contains(&"diverges"), "{}", inverted.summary);
        assert_eq!(inverted.metrics["pct_cycles_wrong_direction"], 100.0);
    }

    /// The not-responding share at and around `mode_frac`: 60 % of 20 demand samples.
    pub fn the_mode_boundary(r: &Reset) {
        let tr = r.tr;
        let ts = every(2, 40);
        // steady demand walks the trajectory away from the trim end; the first 20 samples it has
        // left are the judged ones (the rest have no setpoint), the first k of them at the trim end
        let e = tr.replay(&ts, &[6.0; 40], &[Some(true); 40]);
        let left: Vec<usize> = (0..40).filter(|&i| (e[i] - tr.trim_end()).abs() > 0.15 * tr.band()).take(20).collect();
        assert_eq!(left.len(), 20);
        let with = |k: usize, p: &Params| {
            let f = run(
                r,
                &frame(
                    r,
                    &ts,
                    |_| 6.0,
                    |_| 1.0,
                    |i, e| match left.iter().position(|&j| j == i) {
                        Some(pos) if pos < k => tr.trim_end(),
                        Some(_) => e,
                        None => f64::NAN,
                    },
                ),
                p,
            );
            assert_eq!(f.metrics["n_demand_judged"], 20.0, "{:?}", f.metrics);
            f
        };
        let at = with(12, &defaults());
        assert_eq!((at.severity, at.metrics["pct_high_demand_unresponsive"]), (Severity::Warn, 60.0), "{}", at.summary);
        assert_eq!(failed(&at), ["not_responding"]);
        assert_eq!(at.flagged.len(), 12);
        let under = with(11, &defaults());
        assert_eq!(
            (under.severity, under.metrics["pct_high_demand_unresponsive"]),
            (Severity::Ok, 55.0),
            "{}",
            under.summary
        );
        let mut p = defaults();
        p.values.insert("mode_frac".into(), crate::engine::ParamValue::Number(0.55));
        assert_eq!(with(11, &p).severity, Severity::Warn);
    }

    /// The stuck range at and around `flat_frac` of the band.
    pub fn the_flat_boundary(r: &Reset) {
        let tr = r.tr;
        let flat = 0.1 * tr.band();
        let with_range = |x: f64| {
            run(
                r,
                &frame(r, &every(2, 120), wave, |_| 1.0, |i, _| tr.min + 0.3 + if i % 2 == 0 { x } else { 0.0 }),
                &defaults(),
            )
        };
        assert!(failed(&with_range(flat)).contains(&"stuck"));
        assert!(!failed(&with_range(flat * 1.05)).contains(&"stuck"));
    }

    /// Gaps, repeated and shuffled rows, irregular spacing.
    pub fn gaps_duplicates_and_irregular_sampling(r: &Reset) {
        let ts = every(2, 120);
        let clean = frame(r, &ts, wave, |_| 1.0, |_, e| e);
        let base = run(r, &clean, &defaults());
        // every row twice, newest first: the same frame, so the same finding
        assert_eq!(run(r, &testing::shuffled_with_duplicates(&clean), &defaults()), base);
        // a gap in the setpoint trend: those samples are not judged, no move across it is
        let mut gappy = clean.clone();
        for v in &mut gappy.cols.get_mut(r.required[0]).unwrap()[40..60] {
            *v = f64::NAN;
        }
        let g = run(r, &gappy, &defaults());
        assert_eq!((g.severity, g.judged), (Severity::Ok, 100), "{}", g.summary);
        assert!(g.metrics["n_moves_judged"] < base.metrics["n_moves_judged"]);
        // a gap in time: the trajectory runs through it, the move across it is not judged
        let holed: Vec<i64> = ts.iter().enumerate().map(|(i, &t)| if i >= 60 { t + 90 * MIN } else { t }).collect();
        let h = run(r, &frame(r, &holed, wave, |_| 1.0, |_, e| e), &defaults());
        assert_eq!(h.severity, Severity::Ok, "{}", h.summary);
        // one to three minutes apart, at random: still the controller's cadence
        let mut t = START;
        let irregular: Vec<i64> = (0..150)
            .map(|i| {
                t += [1, 2, 3, 2][i % 4] * MIN;
                t
            })
            .collect();
        let f = run(r, &frame(r, &irregular, wave, |_| 1.0, |_, e| e), &defaults());
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert!(f.metrics["expected_sp_range"] > 0.25 * r.tr.band());
    }

    /// A stopped fan: not judged, and the reset restarts from its initial value.
    pub fn equipment_off(r: &Reset) {
        let off = run(r, &frame(r, &every(2, 120), wave, |_| 0.0, |_, e| e), &defaults());
        assert_eq!((off.severity, off.judged), (Severity::Info, 0), "{}", off.summary);
        // the fan stops for 20 samples; the unit restarts at the initial setpoint, as G36 does
        let fan = |i: usize| if (50..70).contains(&i) { 0.0 } else { 1.0 };
        let restart = frame(r, &every(2, 120), wave, fan, |i, e| if fan(i) < 0.5 { f64::NAN } else { e });
        assert_eq!(restart.cols[r.required[0]][70], r.tr.initial);
        let f = run(r, &restart, &defaults());
        assert_eq!((f.severity, f.judged), (Severity::Ok, 100), "{}", f.summary);
        // too few samples, one sample, none
        let short = run(r, &frame(r, &every(2, 11), wave, |_| 1.0, |_, e| e), &defaults());
        assert_eq!(short.severity, Severity::Info);
        assert_eq!(run(r, &frame(r, &every(2, 1), wave, |_| 1.0, |_, e| e), &defaults()).severity, Severity::Info);
        assert!(matches!(outcome(r, &Frame::default(), &defaults()), Outcome::Skipped { .. }));
    }

    /// Without its setpoint or its requests the rule does not run, and says which is missing.
    pub fn missing_inputs_skip(r: &Reset) {
        let mut f = frame(r, &every(2, 60), wave, |_| 1.0, |_, e| e);
        f.cols.remove(r.required[1]);
        assert_eq!(outcome(r, &f, &defaults()), Outcome::Skipped { missing: vec![r.required[1].to_string()] });
        f.cols.insert(r.required[0].into(), vec![f64::NAN; f.len()]);
        let both: Vec<String> = r.required.iter().map(|s| s.to_string()).collect();
        assert_eq!(outcome(r, &f, &defaults()), Outcome::Skipped { missing: both });
    }

    /// An hourly trend: snapshots next to the ignored count are the settled reset, not demand;
    /// demand well beyond it with the setpoint at the trim end is.
    pub fn coarse_trends(r: &Reset) {
        let tr = r.tr;
        let ts = every(60, 60);
        // snapshots of one request over the ignored count all day, the setpoint near the trim end
        let near_trim_end = tr.trim_end() - 0.05 * tr.band() * if tr.trim > 0.0 { 1.0 } else { -1.0 };
        let settled =
            run(r, &frame(r, &ts, |i| tr.ignored + (i % 2) as f64, |_| 1.0, |_, _| near_trim_end), &defaults());
        assert_eq!(settled.severity, Severity::Ok, "{}", settled.summary);
        assert_eq!(
            (settled.metrics["n_demand_judged"], settled.metrics["n_idle_judged"], settled.metrics["n_moves_judged"]),
            (0.0, 0.0, 0.0)
        );
        assert!(settled.caveats.iter().any(|c| c.contains("snapshots")), "{:?}", settled.caveats);
        let starved = run(r, &frame(r, &ts, |_| tr.ignored + 4.0, |_| 1.0, |_, _| tr.trim_end()), &defaults());
        assert!(failed(&starved).contains(&"not_responding"), "{}", starved.summary);
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::*;
    use super::*;

    #[test]
    fn the_two_resets_declare_their_own_roles() {
        for r in [&SAT, &STATIC] {
            let s = spec(r);
            assert_eq!(s.params.len(), 7);
            assert_eq!(s.inputs.required, r.required);
            assert!(
                s.params.iter().all(|p| p.unit != "°F" && p.unit != "in. w.c."),
                "parameters are in band fractions and counts"
            );
        }
        assert!(SAT.optional.contains(&"oat") && !STATIC.optional.contains(&"oat"));
    }

    #[test]
    fn without_a_fan_signal_every_sample_is_judged() {
        let mut f = frame(&STATIC, &every(2, 60), wave, |_| 1.0, |_, e| e);
        f.cols.remove("supply_fan_status");
        let r = run(&STATIC, &f, &defaults());
        assert_eq!((r.severity, r.judged), (Severity::Ok, 60));
        assert!(r.caveats.iter().any(|c| c.contains("no fan signal")));
    }
}
