//! `static_cohort_starvation`: a Guideline 36 request census over the boxes of each air handler (a fleet rule):
//! an air handler whose boxes are short of air together on most cycles: a capped fan or a static setpoint that cannot rise, not a set of box faults. The requests are rebuilt from each box's trend (see [`super::zone_requests`]);
//! warn when found, ok when the group has requests and no such pattern, info when it cannot say.

use crate::engine::{Params, Rule, RuleSpec};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::zone_requests::{self, Reset};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "static_cohort_starvation",
        families: &["terminal"],
        inputs: Reset::Static.inputs(),
        params: zone_requests::starvation_params(),
        judged_basis: "active request cycles (system on, some box asking)",
    }
}

/// Judge the fleet, one finding per group.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    zone_requests::starvation(Reset::Static, spec, fleet, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::zone_requests::testkit;

    #[test]
    fn the_pattern_is_found_and_a_sound_fleet_passes() {
        testkit::cohort_found(&RULE, Reset::Static);
    }

    #[test]
    fn the_level_boundaries() {
        testkit::boundaries(&RULE, Reset::Static, false);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        testkit::sampling(&RULE, Reset::Static);
    }

    #[test]
    fn requests_while_the_fan_is_off_do_not_count() {
        testkit::equipment_off(&RULE, Reset::Static);
    }

    #[test]
    fn a_box_missing_an_input_is_skipped_and_the_topology_groups() {
        testkit::through_a_run("static_cohort_starvation", Reset::Static, "airflow_sp");
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        testkit::degenerate(&RULE, Reset::Static);
    }
}
