//! Cause chains: which findings are one problem. On one equipment a chain orders rules from the
//! upstream cause to its downstream symptoms (the reference toolkit's four: supply air, economizer,
//! hot-water lockout, static pressure), and the most upstream finding present is the root.
//! Across equipment, an air handler's supply air or duct static shows up on the boxes it serves:
//! [`ZONE_CHAINS`] pairs a root test on the air handler's finding with a symptom test on a box's,
//! each read from the rules' own metrics, and a box symptom joins its air handler's issue when
//! the topology says that unit serves the box.

use crate::engine::{Finding, ParamValue};
use crate::run::ParamUse;

/// The same-equipment chains, each most upstream first: (chain id, rules).
pub const CAUSE_CHAINS: &[(&str, &[&str])] = &[
    // supply air held cold -> zones overcool at minimum flow -> reheat fights it -> the unit heats
    // and cools at once
    (
        "sat",
        &[
            "supply_air_reset",
            "supply_air_reset_compliance",
            "overcooling_severity",
            "overcooling_min_flow",
            "reheat_penalty",
            "reheat_minimization_g36",
            "simultaneous_heat_cool",
        ],
    ),
    // a drifting damper -> no high-limit lockout -> excess outdoor air -> free cooling missed
    ("econ", &["economizer_damper_drift", "economizer_high_limit", "outdoor_air_fraction", "free_cooling_missed"]),
    // a boiler enabled in warm weather keeps its hot-water pump running: one fix for both
    ("hw_lockout", &["boiler_summer_lockout", "hw_pump_summer_lockout"]),
    // a static reset that does not trim -> rogue zones pin it -> boxes throttle against it
    ("static", &["static_reset_effectiveness", "static_rogue_zone_census", "damper_census"]),
];

/// A rule's chain and its place in it (0: most upstream).
pub fn chain_of(rule: &str) -> Option<(&'static str, usize)> {
    CAUSE_CHAINS.iter().find_map(|(id, rules)| rules.iter().position(|r| *r == rule).map(|i| (*id, i)))
}

/// What the chain tests read of a finding.
#[derive(Clone, Copy)]
pub struct Seen<'a> {
    pub rule: &'a str,
    pub finding: &'a Finding,
    pub params: &'a [ParamUse],
}

impl Seen<'_> {
    fn metric(&self, k: &str) -> f64 {
        self.finding.metrics.get(k).copied().filter(|x| x.is_finite()).unwrap_or(0.0)
    }

    fn param(&self, name: &str, default: f64) -> f64 {
        match self.params.iter().find(|p| p.name == name).map(|p| &p.value) {
            Some(ParamValue::Number(x)) if x.is_finite() => *x,
            _ => default,
        }
    }

    /// `a` is positive and at least (`ties`) or above `b`.
    fn leads(&self, a: &str, b: &str, ties: bool) -> bool {
        let (x, y) = (self.metric(a), self.metric(b));
        x > 0.0 && if ties { x >= y } else { x > y }
    }

    /// A `g36_afdd` finding that reports fault condition `fc` (its share at or above the
    /// rule's warn share over enough applicable hours).
    pub fn g36_flags(&self, fc: u32) -> bool {
        self.rule == "g36_afdd"
            && self.metric(&format!("fc{fc}_pct")) >= self.param("warn_pct", 5.0)
            && self.metric(&format!("fc{fc}_applicable_hours")) >= self.param("min_applicable_hours", 24.0)
            && self.metric(&format!("fc{fc}_hours")) > 0.0
    }

    fn reset_mode(&self, reset: &str, mode: &str) -> bool {
        self.rule == format!("{reset}_reset_effectiveness") && self.metric(mode) == 1.0
    }
}

/// Supply air too warm: `supply_air_control` with its too-warm time leading, a G36 FC13
/// (supply air too warm with the cooling coil at full output), or a supply-air reset parked at
/// its warm end under demand.
fn sat_warm(s: &Seen) -> bool {
    (s.rule == "supply_air_control" && s.leads("too_warm_hours", "too_cold_hours", true))
        || s.g36_flags(13)
        || s.reset_mode("sat", "not_responding")
}

/// Supply air too cold: `supply_air_control` with its too-cold time leading, supply air held cold
/// with no reset, colder than its reset target, or a reset that does not trim back while the zones
/// are idle (and is not also parked warm).
fn sat_cold(s: &Seen) -> bool {
    match s.rule {
        "supply_air_control" => s.leads("too_cold_hours", "too_warm_hours", false),
        "supply_air_reset" => true,
        "supply_air_reset_compliance" => {
            s.metric("pct_below_target") >= s.param("warn_pct", 40.0)
                && s.metric("mean_gap_f") >= s.param("warn_gap_f", 2.0)
        }
        _ => s.reset_mode("sat", "not_trimming") && !s.reset_mode("sat", "not_responding"),
    }
}

/// Duct static too low: G36 FC1, or a static reset parked low under demand.
fn static_low(s: &Seen) -> bool {
    s.g36_flags(1) || s.reset_mode("static", "not_responding")
}

/// A zone that cannot cool: `unmet_setpoint_hours` with its too-hot share leading.
fn zone_warm(s: &Seen) -> bool {
    s.rule == "unmet_setpoint_hours" && s.leads("too_hot_pct", "too_cold_pct", true)
}

/// The box rules that read overcooling at minimum flow or the reheat it forces.
fn overcool_reheat(s: &Seen) -> bool {
    ["overcooling_min_flow", "overcooling_severity", "reheat_penalty", "reheat_minimization_g36"].contains(&s.rule)
}

/// A starved box: airflow below its setpoint, or a zone that cannot cool.
fn starved(s: &Seen) -> bool {
    (s.rule == "airflow_tracking" && s.leads("undershoot_pct", "overshoot_pct", true)) || zone_warm(s)
}

/// An air handler -> box chain.
pub struct ZoneChain {
    pub id: &'static str,
    /// The air handler's side.
    pub cause: &'static str,
    /// The boxes' side.
    pub symptom: &'static str,
    pub is_root: fn(&Seen) -> bool,
    pub is_symptom: fn(&Seen) -> bool,
    /// The G36 fault condition whose own hours a `g36_afdd` root is read on (its flagged samples
    /// are every condition's).
    pub fc: Option<&'static str>,
}

/// The air handler -> box chains, in the order a box symptom tries them.
pub const ZONE_CHAINS: &[ZoneChain] = &[
    ZoneChain {
        id: "sat_high",
        cause: "supply air too warm",
        symptom: "zones that cannot cool",
        is_root: sat_warm,
        is_symptom: zone_warm,
        fc: Some("FC13"),
    },
    ZoneChain {
        id: "sat_low",
        cause: "supply air too cold",
        symptom: "overcooling and reheat at the boxes",
        is_root: sat_cold,
        is_symptom: overcool_reheat,
        fc: None,
    },
    ZoneChain {
        id: "static_low",
        cause: "duct static too low",
        symptom: "starved boxes",
        is_root: static_low,
        is_symptom: starved,
        fc: Some("FC1"),
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Severity;
    use std::collections::BTreeMap;

    fn finding(rule: &'static str, m: &[(&str, f64)]) -> Finding {
        let mut f = Finding::of(rule, "", Severity::Fault, "x");
        f.metrics = m.iter().map(|(k, v)| (k.to_string(), *v)).collect::<BTreeMap<_, _>>();
        f
    }

    #[test]
    fn chains_name_their_roots() {
        assert_eq!(chain_of("supply_air_reset"), Some(("sat", 0)));
        assert_eq!(chain_of("simultaneous_heat_cool"), Some(("sat", 6)));
        assert_eq!(chain_of("hw_pump_summer_lockout"), Some(("hw_lockout", 1)));
        assert_eq!(chain_of("damper_census"), Some(("static", 2)));
        assert_eq!(chain_of("leaking_valve"), None);
        // every chain rule but the reference's drift detector is a rule of this engine
        for (_, rules) in CAUSE_CHAINS {
            for r in rules.iter().filter(|r| **r != "economizer_damper_drift") {
                assert!(crate::config::rule_spec(r).is_ok(), "{r}");
            }
        }
    }

    #[test]
    fn zone_chain_tests_read_the_metrics() {
        let g = finding("g36_afdd", &[("fc13_pct", 30.0), ("fc13_applicable_hours", 100.0), ("fc13_hours", 30.0)]);
        let s = Seen { rule: "g36_afdd", finding: &g, params: &[] };
        assert!(sat_warm(&s) && !static_low(&s));
        let short = finding("g36_afdd", &[("fc13_pct", 30.0), ("fc13_applicable_hours", 10.0), ("fc13_hours", 3.0)]);
        assert!(!sat_warm(&Seen { rule: "g36_afdd", finding: &short, params: &[] }));
        let hot = finding("unmet_setpoint_hours", &[("too_hot_pct", 20.0), ("too_cold_pct", 5.0)]);
        let cold = finding("unmet_setpoint_hours", &[("too_hot_pct", 0.0), ("too_cold_pct", 5.0)]);
        assert!(zone_warm(&Seen { rule: "unmet_setpoint_hours", finding: &hot, params: &[] }));
        assert!(!starved(&Seen { rule: "unmet_setpoint_hours", finding: &cold, params: &[] }));
        let sac = finding("supply_air_control", &[("too_cold_hours", 3.0), ("too_warm_hours", 3.0)]);
        let s = Seen { rule: "supply_air_control", finding: &sac, params: &[] };
        assert!(sat_warm(&s) && !sat_cold(&s), "a tie reads warm, as the reference's");
    }
}
