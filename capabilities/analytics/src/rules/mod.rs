//! The rules, one module each, and the list of them. `reset_effectiveness` is not a rule: it is
//! the analysis the two trim-and-respond effectiveness rules share; `zone_requests` is the
//! request census the four rogue-zone and cohort-starvation fleet rules share; `cohort` is the
//! cohort deviation `cohort_airflow` and `cohort_space_temp` share; `airflow_step` is
//! `cohort_airflow`'s test of a box whose share of its air handler's airflow stepped up.

pub mod actuator_stuck;
pub mod airflow_step;
pub mod airflow_tracking;
pub mod boiler_short_cycle;
pub mod boiler_summer_lockout;
pub mod chiller_approach_fouling;
pub mod chiller_efficiency;
pub mod chiller_efficiency_peers;
pub mod chiller_staging;
pub mod chiller_staging_fleet;
pub mod chw_plant_reset;
pub mod chw_pump_dp_reset;
pub mod chw_supply_tracking;
pub mod co2_ventilation;
pub mod co2_ventilation_system;
pub mod cohort;
pub mod cohort_airflow;
pub mod cohort_space_temp;
pub mod compressor_short_cycle;
pub mod compressor_staging;
pub mod condenser_bypass_leak;
pub mod condenser_water_reset;
pub mod control_hunting;
pub mod cooling_tower_approach;
pub mod damper_census;
pub mod dcv_system_verification;
pub mod dcv_verification;
pub mod dx_indoor_airflow;
pub mod dx_refrigerant_charge;
pub mod economizer_high_limit;
pub mod filter_fouling;
pub mod free_cooling_missed;
pub mod g36_afdd;
pub mod heatpump_defrost;
pub mod hp_capacity_shortfall;
pub mod hp_mode_vs_need;
pub mod hp_room_imbalance;
pub mod hw_plant_deltat;
pub mod hw_pump_dp_reset;
pub mod hw_pump_summer_lockout;
pub mod leaking_valve;
pub mod night_weekend_setback;
pub mod outdoor_air_fraction;
pub mod overcooling_min_flow;
pub mod overcooling_severity;
pub mod reheat_capacity_shortfall;
pub mod reheat_minimization_g36;
pub mod reheat_penalty;
pub mod reset_effectiveness;
pub mod sat_cohort_starvation;
pub mod sat_reset_effectiveness;
pub mod sat_rogue_zone_census;
pub mod simultaneous_heat_cool;
pub mod source_loop_deltat;
pub mod static_cohort_starvation;
pub mod static_pressure_reset;
pub mod static_reset_effectiveness;
pub mod static_rogue_zone_census;
pub mod supply_air_control;
pub mod supply_air_reset;
pub mod supply_air_reset_compliance;
pub mod unmet_setpoint_hours;
pub mod zone_requests;
pub mod zones_heat_cool_census;

pub use crate::engine::Rule;
use crate::engine::RuleSpec;

/// Every rule and its declaration, in [`all`]'s order, made once: looking a rule up by id no
/// longer makes every rule's declaration (a config of every rule made them 59 times over).
fn table() -> &'static (Vec<Rule>, Vec<RuleSpec>) {
    static TABLE: std::sync::OnceLock<(Vec<Rule>, Vec<RuleSpec>)> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let rules = all();
        let specs = rules.iter().map(|r| (r.spec)()).collect();
        (rules, specs)
    })
}

/// Every rule's declaration, in [`all`]'s order (made once).
pub fn specs() -> &'static [RuleSpec] {
    &table().1
}

/// The rule with id `id` and its declaration.
pub fn find(id: &str) -> Option<(Rule, &'static RuleSpec)> {
    let (rules, specs) = table();
    let at = specs.iter().position(|s| s.id == id)?;
    Some((rules[at], &specs[at]))
}

/// Every rule, sorted by id.
pub fn all() -> Vec<Rule> {
    vec![
        actuator_stuck::RULE,
        airflow_tracking::RULE,
        boiler_short_cycle::RULE,
        boiler_summer_lockout::RULE,
        chiller_approach_fouling::RULE,
        chiller_efficiency::RULE,
        chiller_efficiency_peers::RULE,
        chiller_staging::RULE,
        chiller_staging_fleet::RULE,
        chw_plant_reset::RULE,
        chw_pump_dp_reset::RULE,
        chw_supply_tracking::RULE,
        co2_ventilation::RULE,
        co2_ventilation_system::RULE,
        cohort_airflow::RULE,
        cohort_space_temp::RULE,
        compressor_short_cycle::RULE,
        compressor_staging::RULE,
        condenser_bypass_leak::RULE,
        condenser_water_reset::RULE,
        control_hunting::RULE,
        cooling_tower_approach::RULE,
        damper_census::RULE,
        dcv_system_verification::RULE,
        dcv_verification::RULE,
        dx_indoor_airflow::RULE,
        dx_refrigerant_charge::RULE,
        economizer_high_limit::RULE,
        filter_fouling::RULE,
        free_cooling_missed::RULE,
        g36_afdd::RULE,
        heatpump_defrost::RULE,
        hp_capacity_shortfall::RULE,
        hp_mode_vs_need::RULE,
        hp_room_imbalance::RULE,
        hw_plant_deltat::RULE,
        hw_pump_dp_reset::RULE,
        hw_pump_summer_lockout::RULE,
        leaking_valve::RULE,
        night_weekend_setback::RULE,
        outdoor_air_fraction::RULE,
        overcooling_min_flow::RULE,
        overcooling_severity::RULE,
        reheat_capacity_shortfall::RULE,
        reheat_minimization_g36::RULE,
        reheat_penalty::RULE,
        sat_cohort_starvation::RULE,
        sat_reset_effectiveness::RULE,
        sat_rogue_zone_census::RULE,
        simultaneous_heat_cool::RULE,
        source_loop_deltat::RULE,
        static_cohort_starvation::RULE,
        static_pressure_reset::RULE,
        static_reset_effectiveness::RULE,
        static_rogue_zone_census::RULE,
        supply_air_control::RULE,
        supply_air_reset::RULE,
        supply_air_reset_compliance::RULE,
        unmet_setpoint_hours::RULE,
        zones_heat_cool_census::RULE,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Frame, ParamValue, Params, RuleSpec};

    #[test]
    fn a_rule_is_found_by_its_id_with_its_own_declaration() {
        let rules = all();
        assert_eq!(specs().len(), rules.len());
        for (r, s) in rules.iter().zip(specs()) {
            assert_eq!((r.spec)().id, s.id, "the table is in all()'s order");
            let (found, spec) = find(s.id).expect("every rule is found");
            assert_eq!((found.spec)().id, s.id);
            assert_eq!(spec.id, s.id);
            assert_eq!(found.is_fleet(), r.is_fleet(), "{}", s.id);
            assert_eq!(spec.params.len(), (r.spec)().params.len(), "{}", s.id);
        }
        assert!(find("no_such_rule").is_none());
        assert!(find("").is_none());
    }

    #[test]
    fn every_rule_declares_itself_consistently() {
        let specs: Vec<RuleSpec> = all().iter().map(|r| (r.spec)()).collect();
        let ids: Vec<&str> = specs.iter().map(|s| s.id).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted, "sorted by id");
        for s in &specs {
            // no family: written for any equipment, as the reference declares these
            const ANY: &[&str] = &[
                "co2_ventilation",
                "co2_ventilation_system",
                "cohort_space_temp",
                "compressor_short_cycle",
                "compressor_staging",
                "dcv_system_verification",
                "filter_fouling",
                "heatpump_defrost",
                "overcooling_severity",
                "unmet_setpoint_hours",
            ];
            assert!(!s.families.is_empty() || ANY.contains(&s.id), "{}", s.id);
            for p in &s.params {
                assert!(!p.basis.is_empty() && !p.calibrate.is_empty() && !p.unit.is_empty(), "{}.{}", s.id, p.name);
                match (&p.default, p.range) {
                    // NaN is "unset"
                    (ParamValue::Number(x), Some((lo, hi))) => {
                        assert!(x.is_nan() || (lo..=hi).contains(x), "{}.{} default out of range", s.id, p.name)
                    }
                    // an empty choice is unset (cohort_airflow's normalise)
                    (ParamValue::Choice(c), _) => {
                        assert!(c.is_empty() || p.choices.contains(&c.as_str()), "{}.{}", s.id, p.name)
                    }
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

    #[test]
    fn every_parameter_a_rule_reads_is_declared() {
        // A rule reading a parameter its spec does not declare (or as the wrong kind) panics
        // naming it. Run every rule through the engine on a frame with every role it reads,
        // with its defaults and with each flag and choice set each way, so each read is made.
        let n = 400;
        let ts = crate::engine::testing::every(crate::engine::testing::MONDAY, crate::engine::NS_PER_HOUR / 4, n);
        for r in all() {
            let s = (r.spec)();
            let cols: Vec<(&str, Vec<f64>)> = s
                .inputs
                .roles()
                .into_iter()
                .map(|role| (role, (0..n).map(|i| 50.0 + 10.0 * ((i as f64) * 0.05).sin()).collect()))
                .collect();
            let frame = Frame::from_rows(&ts, &cols);
            let mut variants = vec![Params::default()];
            for p in &s.params {
                let values: Vec<ParamValue> = match &p.default {
                    ParamValue::Flag(_) => {
                        vec![ParamValue::Flag(Some(true)), ParamValue::Flag(Some(false)), ParamValue::Flag(None)]
                    }
                    // a choice, or the words a number may take instead of one ("auto")
                    ParamValue::Choice(_) | ParamValue::Number(_) => {
                        p.choices.iter().map(|c| ParamValue::Choice(c.to_string())).collect()
                    }
                    _ => Vec::new(),
                };
                variants.extend(
                    values
                        .into_iter()
                        .map(|v| Params { values: [(p.name.to_string(), v)].into(), ..Default::default() }),
                );
            }
            for params in &variants {
                let _ = r.evaluate(&s, &frame, params);
            }
        }
    }
}
