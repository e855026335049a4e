//! `sat_rogue_zone_census`: a Guideline 36 request census over the boxes of each air handler (a fleet rule):
//! the zone dragging an air handler's supply-air-temperature reset: one box that holds the deciding request for colder air most of the time and sends a lopsided share of the requests, so every box gets colder air than it needs. The requests are rebuilt from each box's trend (see [`super::zone_requests`]);
//! warn when found, ok when the group has requests and no such pattern, info when it cannot say.

use crate::engine::{Params, Rule, RuleSpec};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::zone_requests::{self, Reset};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "sat_rogue_zone_census",
        families: &["terminal"],
        inputs: Reset::Sat.inputs(),
        params: zone_requests::rogue_params(),
        judged_basis: "active request cycles (system on, some box asking)",
    }
}

/// Judge the fleet, one finding per group.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    zone_requests::rogue_census(Reset::Sat, spec, fleet, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::zone_requests::testkit;

    #[test]
    fn the_pattern_is_found_and_a_sound_fleet_passes() {
        testkit::rogue_found(&RULE, Reset::Sat);
    }

    #[test]
    fn the_level_boundaries() {
        testkit::boundaries(&RULE, Reset::Sat, true);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        testkit::sampling(&RULE, Reset::Sat);
    }

    #[test]
    fn requests_while_the_fan_is_off_do_not_count() {
        testkit::equipment_off(&RULE, Reset::Sat);
    }

    #[test]
    fn a_box_missing_an_input_is_skipped_and_the_topology_groups() {
        testkit::through_a_run("sat_rogue_zone_census", Reset::Sat, "space_temp");
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        testkit::degenerate(&RULE, Reset::Sat);
    }
}
