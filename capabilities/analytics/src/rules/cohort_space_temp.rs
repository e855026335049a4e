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
    fn a_zone_apart_but_inside_its_own_band_is_satisfied() {
        use crate::engine::testing::fleet;
        use crate::engine::{Params, Severity};
        // six zones near 74 °F and one held at 64 °F: an outlier, unless 64 °F is inside its own
        // 63-75 °F band (an interior zone at its minimum airflow, say)
        let mut frames = testkit::peers(&SPACE_TEMP, 74.0);
        frames.push(testkit::unit(&SPACE_TEMP, 64.0, 0.2, 1000.0));
        let names = ["Z0", "Z1", "Z2", "Z3", "Z4", "Z5", "COOL"];
        let judge = |frames: &[crate::engine::Frame]| {
            let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
                names.iter().zip(frames).map(|(e, f)| (*e, None, f)).collect();
            fleet(&RULE, &m, &Params::default())
        };
        let bare = judge(&frames);
        assert_eq!((bare[0].finding.severity, bare[0].equips.clone()), (Severity::Warn, vec!["COOL".to_string()]));
        let n = frames[6].len();
        frames[6].cols.insert("heat_sp".into(), vec![63.0; n]);
        frames[6].cols.insert("cool_sp".into(), vec![75.0; n]);
        let banded = judge(&frames);
        let f = &banded[0].finding;
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert!(f.caveats.iter().any(|c| c.contains("satisfied") && c.contains("\"COOL\"")), "{:?}", f.caveats);
        // below its heating setpoint it is an outlier again
        frames[6].cols.insert("heat_sp".into(), vec![65.0; n]);
        assert_eq!(judge(&frames)[0].finding.severity, Severity::Warn);
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
