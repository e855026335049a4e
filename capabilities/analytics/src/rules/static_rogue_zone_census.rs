//! `static_rogue_zone_census`: a Guideline 36 request census over the boxes of each air handler (a fleet rule):
//! the box dragging an air handler's duct-static reset: one box at full damper short of its airflow that holds the deciding request most of the time, so the fan holds more static for everyone (a box that asks because it is short of cooling is named as overloaded instead). The requests are rebuilt from each box's trend (see [`super::zone_requests`]);
//! warn when found, ok when the group has requests and no such pattern, info when it cannot say.

use crate::engine::{Params, Rule, RuleSpec};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::zone_requests::{self, Reset};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "static_rogue_zone_census",
        families: &["terminal"],
        inputs: Reset::Static.inputs(),
        params: zone_requests::rogue_params(),
        judged_basis: "active request cycles (system on, some box asking)",
    }
}

/// Judge the fleet, one finding per group.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    zone_requests::rogue_census(Reset::Static, spec, fleet, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::zone_requests::testkit;

    #[test]
    fn the_pattern_is_found_and_a_sound_fleet_passes() {
        testkit::rogue_found(&RULE, Reset::Static);
    }

    #[test]
    fn the_level_boundaries() {
        testkit::boundaries(&RULE, Reset::Static, true);
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
        testkit::through_a_run("static_rogue_zone_census", Reset::Static, "damper");
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        testkit::degenerate(&RULE, Reset::Static);
    }
}
