//! `cohort_space_temp` (a fleet rule, any zone: boxes, fan coils and heat pumps alike): a zone
//! held warmer or cooler than the zones around it, by default across the whole fleet, with
//! `group_by_topology` within each air handler's zones. Each zone's space-temperature record is
//! summarised (time-weighted mean by default, every sample) and scored with a robust z against
//! its cohort ([`super::cohort`]): warn when a zone is `k` robust sigma or more from the median
//! and at least `min_abs_dev` (1 °F unless set) away from it, so a tight cohort does not turn a
//! fraction of a degree into an outlier; ok when none is; info when the cohort is too small. No
//! fault level.

use crate::engine::{Params, Rule, RuleSpec};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::cohort::{self, SPACE_TEMP};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "cohort_space_temp",
        families: &[],
        inputs: SPACE_TEMP.inputs,
        params: cohort::params(),
        judged_basis: "space-temperature samples of the compared zones",
    }
}

/// Judge the fleet, one finding per cohort.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    cohort::deviation(&SPACE_TEMP, spec, fleet, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cohort::testkit;

    #[test]
    fn an_outlier_is_found_at_its_level_and_a_sound_cohort_passes() {
        testkit::found(&RULE, &SPACE_TEMP, 72.0);
    }

    #[test]
    fn the_smallest_difference_that_counts() {
        testkit::min_abs_dev(&RULE, &SPACE_TEMP, 72.0);
    }

    #[test]
    fn zones_are_compared_within_their_air_handler() {
        testkit::grouped(&RULE, &SPACE_TEMP, 72.0);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        testkit::sampling(&RULE, &SPACE_TEMP, 72.0);
    }

    #[test]
    fn a_zone_missing_its_temperature_is_skipped_and_the_config_is_the_references() {
        testkit::through_a_run("cohort_space_temp", &SPACE_TEMP, 72.0);
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        testkit::degenerate(&RULE, &SPACE_TEMP, 72.0);
    }

    #[test]
    fn normalised_by_design_airflow() {
        testkit::normalised(&RULE, &SPACE_TEMP, 72.0);
    }
}
