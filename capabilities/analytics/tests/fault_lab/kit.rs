#![allow(dead_code)]

//! What every fault-lab case is built from: a site clock and weather simulated minute by
//! minute and logged at the case's interval, noisy signals, equipment frames, and the run that
//! judges them the way `rule_run` does (native grid, the rule at its defaults).

use camber_analytics::config::RunConfig;
use camber_analytics::drift::{self, judge};
use camber_analytics::engine::{Frame, Outcome, Params, Severity};
use camber_analytics::run::{run, with_shared, EquipFrame, RunRequest};
use camber_synth::rng::{Ar1, Rng};

pub use super::common::window;
use serde_json::{json, Value};

/// The logging intervals (minutes) a case is proven at unless it says otherwise.
pub const EVERY_STEP: &[usize] = &[1, 5, 15, 60];
/// Intervals fine enough to see events that last minutes (short cycles, hunting, defrost).
pub const FINE_STEPS: &[usize] = &[1, 5, 15];

const MINUTE_NS: i64 = 60_000_000_000;
const DAY_NS: i64 = 86_400_000_000_000;

/// When the lab's weeks fall: each starts on a Monday, with a climate to match.
#[derive(Clone, Copy, Debug)]
pub enum Season {
    /// January: mean 30 °F, nights in the teens.
    Winter,
    /// April: mean 55 °F, cool mornings, mild afternoons.
    Spring,
    /// July: mean 80 °F, afternoons in the 90s.
    Summer,
}

/// One case's site: `days` of minutes, the weather over them, and the interval it is logged at.
pub struct Lab {
    /// Logging interval in minutes.
    pub step: usize,
    /// Simulated minutes.
    pub minutes: usize,
    /// The case's name, which keys its random streams (a twin and its fault see the same weather).
    name: &'static str,
    first_day: i64,
    oat: Vec<f64>,
}

impl Lab {
    /// A site over `days` in `season`, logged every `step` minutes.
    pub fn new(name: &'static str, season: Season, days: usize, step: usize) -> Lab {
        let (first_day, mean, swing) = match season {
            Season::Winter => (20094, 30.0, 9.0),
            Season::Spring => (20185, 55.0, 10.0),
            Season::Summer => (20276, 80.0, 9.0),
        };
        let minutes = days * 1440;
        let mut rng = Rng::stream(7, name, "weather");
        let mut front = Ar1::new(5.0, 2.0 * 1440.0, 1.0, &mut rng);
        let mut flutter = Ar1::new(0.6, 20.0, 1.0, &mut rng);
        let oat = (0..minutes)
            .map(|m| {
                let h = (m % 1440) as f64 / 60.0;
                // coldest near 5 am, warmest near 3 pm
                mean + swing * (std::f64::consts::TAU * (h - 15.0) / 24.0).cos()
                    + front.step(&mut rng)
                    + flutter.step(&mut rng)
            })
            .collect();
        Lab { step, minutes, name, first_day, oat }
    }

    /// Number of logged samples.
    pub fn n(&self) -> usize {
        self.minutes / self.step
    }

    /// The simulated minute sample `i` is logged at.
    pub fn minute(&self, i: usize) -> usize {
        i * self.step
    }

    /// Hour of the day (fractional) at minute `m`.
    pub fn hour(&self, m: usize) -> f64 {
        (m % 1440) as f64 / 60.0
    }

    /// Whether minute `m` falls on Monday to Friday.
    pub fn weekday(&self, m: usize) -> bool {
        (m / 1440) % 7 < 5
    }

    /// The occupied schedule: weekdays 7:00 to 18:00.
    pub fn occupied(&self, m: usize) -> bool {
        self.weekday(m) && (7.0..18.0).contains(&self.hour(m))
    }

    /// Outdoor air temperature (°F) at minute `m`.
    pub fn oat(&self, m: usize) -> f64 {
        self.oat[m]
    }

    /// A random stream of this case's, for `who` and `what`.
    pub fn rng(&self, who: &str, what: &str) -> Rng {
        Rng::stream(11, &format!("{}/{who}", self.name), what)
    }

    /// Red (correlated) noise per minute: standard deviation `sd`, correlation time `tau` minutes.
    pub fn red(&self, who: &str, what: &str, sd: f64, tau: f64) -> Vec<f64> {
        let mut rng = self.rng(who, what);
        let mut ar = Ar1::new(sd, tau, 1.0, &mut rng);
        (0..self.minutes).map(|_| ar.step(&mut rng)).collect()
    }

    /// A signal logged at the case's interval: `f` of the minute, plus white sensor noise `sd`.
    pub fn at(&self, who: &str, what: &str, sd: f64, f: impl Fn(usize) -> f64) -> Vec<f64> {
        let mut rng = self.rng(who, what);
        (0..self.n()).map(|i| f(self.minute(i)) + sd * rng.normal()).collect()
    }

    /// A minute-by-minute simulation's values as logged (one every `step` minutes).
    pub fn keep(&self, per_minute: &[f64]) -> Vec<f64> {
        (0..self.n()).map(|i| per_minute[self.minute(i)]).collect()
    }

    /// The logged timestamps (site wall-clock ns).
    pub fn ts(&self) -> Vec<i64> {
        (0..self.n()).map(|i| (self.first_day * DAY_NS) + self.minute(i) as i64 * MINUTE_NS).collect()
    }

    /// An equipment's frame from its logged columns.
    pub fn unit(&self, equip: &str, class: &str, cols: Vec<(&str, Vec<f64>)>) -> EquipFrame {
        for (role, v) in &cols {
            assert_eq!(v.len(), self.n(), "{equip}.{role} is not on the lab's grid");
        }
        EquipFrame { equip: equip.to_string(), class: class.to_string(), frame: Frame::from_rows(&self.ts(), &cols) }
    }
}

/// What a case hands the run: the units, which serves which, and the unit the fault is in.
pub struct Building {
    pub units: Vec<EquipFrame>,
    /// (served, serving) pairs: a box and its air handler.
    pub parents: Vec<(String, String)>,
    /// The unit a finding must name when the fault is in: the faulty unit, or in a twin the
    /// same unit healthy.
    pub suspect: String,
    /// Parameters for the rule (a design value the case's building documents).
    pub params: Value,
    /// The unit whose outdoor temperature the run shares with every unit (a plant's weather).
    pub shared_oat: Option<String>,
}

impl Building {
    /// A building of one unit.
    pub fn one(unit: EquipFrame) -> Building {
        let suspect = unit.equip.clone();
        Building { units: vec![unit], parents: Vec::new(), suspect, params: json!({}), shared_oat: None }
    }

    /// A building of several units, the fault in `suspect`.
    pub fn many(units: Vec<EquipFrame>, suspect: &str) -> Building {
        Building { units, parents: Vec::new(), suspect: suspect.to_string(), params: json!({}), shared_oat: None }
    }

    /// Which unit serves which.
    pub fn served(mut self, pairs: &[(&str, &str)]) -> Building {
        self.parents = pairs.iter().map(|(c, p)| (c.to_string(), p.to_string())).collect();
        self
    }

    /// Share `equip`'s outdoor temperature with every unit, as a store's weather point is.
    pub fn oat_from(mut self, equip: &str) -> Building {
        self.shared_oat = Some(equip.to_string());
        self
    }

    /// The rule's parameters for this building.
    pub fn with_params(mut self, params: Value) -> Building {
        self.params = params;
        self
    }
}

/// A rule's case: how to build its building, healthy or with the fault, at an interval.
#[derive(Clone)]
pub struct Case {
    pub rule: &'static str,
    /// The logging intervals the rule is proven at.
    pub steps: &'static [usize],
    pub build: fn(step: usize, faulty: bool) -> Building,
}

/// A drift detector's case: a baseline window and a current one, the current degraded when
/// `faulty`.
#[derive(Clone)]
pub struct DriftCase {
    pub detector: &'static str,
    pub steps: &'static [usize],
    pub build: fn(step: usize, faulty: bool) -> (Frame, Frame),
}

/// What a rule made of a building, as (severity, equipment named, summary) per finding.
pub fn judged(rule: &str, b: &Building) -> Vec<(Severity, Vec<String>, String)> {
    let mut classes: Vec<&str> = b.units.iter().map(|u| u.class.as_str()).collect();
    classes.sort();
    classes.dedup();
    let parents: serde_json::Map<String, Value> =
        b.parents.iter().map(|(c, p)| (c.clone(), Value::String(p.clone()))).collect();
    let mut config = json!({
        "equipment": classes.iter().map(|c| json!({"class": c})).collect::<Vec<_>>(),
        "rules": [{"name": rule, "params": b.params}],
        "resample": "native",
        "topology": {"parents": parents},
    });
    if let Some(w) = &b.shared_oat {
        config["shared_oat"] = json!({"equip": w, "role": "oat"});
    }
    let config = RunConfig::from_value(&config).unwrap_or_else(|e| panic!("{rule}: config: {e}"));
    let req = RunRequest { rules: Some(vec![rule.to_string()]), ..RunRequest::default() };
    // the weather point shared as the store's reader shares it: onto every unit without one
    let mut units = b.units.clone();
    if let Some(w) = &b.shared_oat {
        let src = b.units.iter().find(|u| u.equip == *w).unwrap_or_else(|| panic!("no unit {w}"));
        let oat = src.frame.col("oat").unwrap_or_else(|| panic!("{w} has no oat")).to_vec();
        for u in units.iter_mut().filter(|u| u.frame.col("oat").is_none()) {
            u.frame = with_shared(u.frame.clone(), "oat", &src.frame.ts, &oat);
        }
    }
    let result = run(&config, &req, &units, &[]).unwrap_or_else(|e| panic!("{rule}: run: {e:?}"));
    result
        .findings
        .into_iter()
        .map(|f| {
            let mut named = f.equips.clone();
            if !f.is_fleet() {
                named.push(f.equip.clone());
            } else if named.is_empty() {
                named = f.members.clone();
            }
            (f.finding.severity, named, f.finding.summary)
        })
        .collect()
}

/// The worst severity a rule gives the suspect unit (`Ok` when it says nothing of it).
pub fn worst_on(rule: &str, b: &Building) -> (Severity, String) {
    judged(rule, b)
        .into_iter()
        .filter(|(_, named, _)| named.contains(&b.suspect))
        .map(|(s, _, summary)| (s, summary))
        .max_by_key(|(s, _)| *s)
        .unwrap_or((Severity::Ok, "no finding names it".into()))
}

/// The worst severity a rule gives any unit of a building: a healthy building's must be info
/// at most, whichever unit it names.
pub fn worst_any(rule: &str, b: &Building) -> (Severity, String) {
    judged(rule, b)
        .into_iter()
        .map(|(s, named, summary)| (s, format!("{named:?}: {summary}")))
        .max_by_key(|(s, _)| *s)
        .unwrap_or((Severity::Ok, "no finding".into()))
}

/// A drift detector's verdict on a baseline and a current window.
pub fn drift_verdict(detector: &str, base: &Frame, current: &Frame) -> (Severity, String) {
    let spec = drift::spec(detector).unwrap_or_else(|| panic!("no detector {detector}"));
    match judge(&spec, base, current, &Params::default()) {
        Outcome::Findings(v) => v
            .into_iter()
            .map(|f| (f.severity, f.summary))
            .max_by_key(|(s, _)| *s)
            .unwrap_or((Severity::Ok, "no finding".into())),
        Outcome::Skipped { missing } => (Severity::Ok, format!("skipped: missing {missing:?}")),
    }
}

/// Prove a set of cases: each fires (warn or fault) on its fault, naming the faulty unit, and
/// gives no unit of its twin more than info, at every interval it lists. Every failure is
/// collected before the test fails.
pub fn prove(cases: &[Case]) {
    let mut failures = Vec::new();
    for c in cases {
        for &step in c.steps {
            let (sev, why) = worst_on(c.rule, &(c.build)(step, true));
            let (twin_sev, twin_why) = worst_any(c.rule, &(c.build)(step, false));
            if sev < Severity::Warn {
                failures.push(format!("{} at {step} min missed its fault ({sev:?}): {why}", c.rule));
            }
            if twin_sev > Severity::Info {
                failures.push(format!("{} at {step} min fired on its twin ({twin_sev:?}): {twin_why}", c.rule));
            }
        }
    }
    assert!(failures.is_empty(), "{} of the lab's checks failed:\n{}", failures.len(), failures.join("\n"));
}

/// [`prove`] for drift detectors.
pub fn prove_drift(cases: &[DriftCase]) {
    let mut failures = Vec::new();
    for c in cases {
        for &step in c.steps {
            let (b, cur) = (c.build)(step, true);
            let (sev, why) = drift_verdict(c.detector, &b, &cur);
            if sev < Severity::Warn {
                failures.push(format!("{} at {step} min missed its drift ({sev:?}): {why}", c.detector));
            }
            let (b, cur) = (c.build)(step, false);
            let (sev, why) = drift_verdict(c.detector, &b, &cur);
            if sev > Severity::Info {
                failures.push(format!("{} at {step} min fired on its twin ({sev:?}): {why}", c.detector));
            }
        }
    }
    assert!(failures.is_empty(), "{} of the lab's drift checks failed:\n{}", failures.len(), failures.join("\n"));
}

/// Print every verdict of the cases whose id contains `only` (all when empty): the faulty
/// build's and the twin's, every finding, at every step. A debugging aid for writing a case.
pub fn print_verdicts(cases: &[Case], drift_cases: &[DriftCase], only: &str) {
    for c in cases.iter().filter(|c| c.rule.contains(only)) {
        for &step in c.steps {
            for faulty in [true, false] {
                for (sev, named, summary) in judged(c.rule, &(c.build)(step, faulty)) {
                    let which = if faulty { "fault" } else { "twin " };
                    println!("{} {step:>2} min {which} {sev:?} {named:?}: {summary}", c.rule);
                }
            }
        }
    }
    for c in drift_cases.iter().filter(|c| c.detector.contains(only)) {
        for &step in c.steps {
            for faulty in [true, false] {
                let (base, current) = (c.build)(step, faulty);
                let (sev, why) = drift_verdict(c.detector, &base, &current);
                println!("{} {step:>2} min {} {sev:?}: {why}", c.detector, if faulty { "fault" } else { "twin " });
            }
        }
    }
}
