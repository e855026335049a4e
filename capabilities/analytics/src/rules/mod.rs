//! The rules, one module each, and the list of them. `reset_effectiveness` is not a rule: it is
//! the analysis the two trim-and-respond effectiveness rules share.

pub mod actuator_stuck;
pub mod condenser_water_reset;
pub mod control_hunting;
pub mod cooling_tower_approach;
pub mod dcv_verification;
pub mod dx_refrigerant_charge;
pub mod economizer_high_limit;
pub mod free_cooling_missed;
pub mod g36_afdd;
pub mod leaking_valve;
pub mod night_weekend_setback;
pub mod outdoor_air_fraction;
pub mod reset_effectiveness;
pub mod sat_reset_effectiveness;
pub mod simultaneous_heat_cool;
pub mod static_pressure_reset;
pub mod static_reset_effectiveness;
pub mod supply_air_control;
pub mod supply_air_reset;
pub mod supply_air_reset_compliance;

use crate::engine::{Frame, Outcome, Params, RuleSpec};

/// A rule: its declaration and its evaluation.
#[derive(Clone, Copy)]
pub struct Rule {
    pub spec: fn() -> RuleSpec,
    pub evaluate: fn(&RuleSpec, &Frame, &Params) -> Outcome,
}

/// Every rule, sorted by id.
pub fn all() -> Vec<Rule> {
    vec![
        Rule { spec: actuator_stuck::spec, evaluate: actuator_stuck::evaluate },
        Rule { spec: condenser_water_reset::spec, evaluate: condenser_water_reset::evaluate },
        Rule { spec: control_hunting::spec, evaluate: control_hunting::evaluate },
        Rule { spec: cooling_tower_approach::spec, evaluate: cooling_tower_approach::evaluate },
        Rule { spec: dcv_verification::spec, evaluate: dcv_verification::evaluate },
        Rule { spec: dx_refrigerant_charge::spec, evaluate: dx_refrigerant_charge::evaluate },
        Rule { spec: economizer_high_limit::spec, evaluate: economizer_high_limit::evaluate },
        Rule { spec: free_cooling_missed::spec, evaluate: free_cooling_missed::evaluate },
        Rule { spec: g36_afdd::spec, evaluate: g36_afdd::evaluate },
        Rule { spec: leaking_valve::spec, evaluate: leaking_valve::evaluate },
        Rule { spec: night_weekend_setback::spec, evaluate: night_weekend_setback::evaluate },
        Rule { spec: outdoor_air_fraction::spec, evaluate: outdoor_air_fraction::evaluate },
        Rule { spec: sat_reset_effectiveness::spec, evaluate: sat_reset_effectiveness::evaluate },
        Rule { spec: simultaneous_heat_cool::spec, evaluate: simultaneous_heat_cool::evaluate },
        Rule { spec: static_pressure_reset::spec, evaluate: static_pressure_reset::evaluate },
        Rule { spec: static_reset_effectiveness::spec, evaluate: static_reset_effectiveness::evaluate },
        Rule { spec: supply_air_control::spec, evaluate: supply_air_control::evaluate },
        Rule { spec: supply_air_reset::spec, evaluate: supply_air_reset::evaluate },
        Rule { spec: supply_air_reset_compliance::spec, evaluate: supply_air_reset_compliance::evaluate },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ParamValue;

    #[test]
    fn every_rule_declares_itself_consistently() {
        let specs: Vec<RuleSpec> = all().iter().map(|r| (r.spec)()).collect();
        let ids: Vec<&str> = specs.iter().map(|s| s.id).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted, "sorted by id");
        for s in &specs {
            assert!(!s.families.is_empty(), "{}", s.id);
            for p in &s.params {
                assert!(!p.basis.is_empty() && !p.calibrate.is_empty() && !p.unit.is_empty(), "{}.{}", s.id, p.name);
                match (&p.default, p.range) {
                    // NaN is "unset"
                    (ParamValue::Number(x), Some((lo, hi))) => assert!(x.is_nan() || (lo..=hi).contains(x), "{}.{} default out of range", s.id, p.name),
                    (ParamValue::Choice(c), _) => assert!(p.choices.contains(&c.as_str()), "{}.{}", s.id, p.name),
                    _ => {}
                }
            }
            let d = Params::default();
            // a rule with both levels orders them (a warn-only rule has no fault_pct)
            if ["warn_pct", "fault_pct"].iter().all(|n| s.params.iter().any(|p| p.name == *n)) {
                assert!(d.number(s, "warn_pct") <= d.number(s, "fault_pct"), "{}", s.id);
            }
        }
    }
}
