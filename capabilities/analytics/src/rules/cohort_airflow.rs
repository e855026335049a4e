//! `cohort_airflow` (a fleet rule, terminals): a box moving much more or much less air than its
//! cohort, by default the whole fleet, with `group_by_topology` the boxes of its own air
//! handler. Each box's airflow record is summarised (time-weighted mean by default, every
//! sample) and scored with a robust z against its cohort ([`super::cohort`]): warn when a box
//! is `k` robust sigma or more from the median; ok when none is; info when the cohort is too
//! small, or when its boxes spread more than `max_spread` (0.3 of the median by default: box
//! sizes and loads differ, so a building-wide comparison of raw airflow can hide a real
//! outlier). No fault level.
//!
//! Beside the deviation, where the topology names each box's air handler, a box whose share of
//! its air handler's airflow stepped up on one day and held ([`super::airflow_step`]) warns on
//! its own: a thermostat reading high, or a new load, seen as the day the box began working
//! harder than before while its siblings did not.

use crate::engine::{Params, Rule, RuleSpec};
use crate::fleet::{Fleet, FleetFinding};
use crate::rules::cohort::{self, AIRFLOW};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    RuleSpec {
        id: "cohort_airflow",
        families: &["terminal"],
        inputs: AIRFLOW.inputs,
        params: cohort::params(),
        judged_basis: "airflow samples of the compared boxes",
    }
}

/// Judge the fleet: one finding per cohort, and one per box whose share of its air handler's
/// airflow stepped up.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let mut out = cohort::deviation(&AIRFLOW, spec, fleet, params);
    out.extend(super::airflow_step::findings(spec, fleet));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{fleet, numbers};
    use crate::engine::Severity;
    use crate::rules::cohort::testkit;

    #[test]
    fn an_outlier_is_found_at_its_level_and_a_sound_cohort_passes() {
        testkit::found(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn the_smallest_difference_that_counts() {
        testkit::min_abs_dev(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn boxes_are_compared_within_their_air_handler() {
        testkit::grouped(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        testkit::sampling(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn a_box_missing_its_airflow_is_skipped_and_the_config_is_the_references() {
        testkit::through_a_run("cohort_airflow", &AIRFLOW, 500.0);
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        testkit::degenerate(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn normalised_by_design_airflow() {
        testkit::normalised(&RULE, &AIRFLOW, 500.0);
    }

    #[test]
    fn a_box_sized_unlike_its_peers_is_left_out_not_flagged() {
        // twelve 800 cfm perimeter boxes and a 4,500 cfm core box (EnergyPlus's large office):
        // the core box moves more air because it is bigger, not because it is wrong
        let mut frames: Vec<_> =
            (0..12).map(|i| testkit::unit(&AIRFLOW, 780.0 + 4.0 * i as f64, 5.0, 1200.0)).collect();
        frames.push(testkit::unit(&AIRFLOW, 4500.0, 20.0, 6000.0));
        let names: Vec<String> = (0..13).map(|i| if i == 12 { "CORE".to_string() } else { format!("P{i}") }).collect();
        let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
            names.iter().zip(&frames).map(|(e, f)| (e.as_str(), None, f)).collect();
        let got = fleet(&RULE, &m, &crate::engine::Params::default());
        let f = &got[0].finding;
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert_eq!((f.metrics["n"], f.metrics["n_unlike_size"]), (12.0, 1.0));
        assert!(
            f.caveats.iter().any(|c| c.contains("sized unlike the cohort") && c.contains("\"CORE\"")),
            "{:?}",
            f.caveats
        );
        // a perimeter box moving twice its peers' air is still found
        frames[3] = testkit::unit(&AIRFLOW, 1500.0, 5.0, 1200.0);
        let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
            names.iter().zip(&frames).map(|(e, f)| (e.as_str(), None, f)).collect();
        let got = fleet(&RULE, &m, &crate::engine::Params::default());
        assert_eq!((got[0].finding.severity, got[0].equips.clone()), (Severity::Warn, vec!["P3".to_string()]));
    }

    #[test]
    fn a_box_stuck_nearly_shut_is_compared_by_its_design_not_left_out() {
        // eight 1,000 cfm boxes; one damper stuck nearly shut moves 120 cfm while its airflow
        // setpoint still reaches design: sized by its setpoint it is a peer, and far below them
        let mut frames: Vec<_> = (0..8).map(|i| testkit::unit(&AIRFLOW, 480.0 + 6.0 * i as f64, 5.0, 1000.0)).collect();
        frames[2] = testkit::unit(&AIRFLOW, 120.0, 2.0, 1000.0);
        let names: Vec<String> = (0..8).map(|i| format!("V{i}")).collect();
        let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
            names.iter().zip(&frames).map(|(e, f)| (e.as_str(), None, f)).collect();
        let got = fleet(&RULE, &m, &crate::engine::Params::default());
        let f = &got[0].finding;
        assert_eq!(f.metrics["n_unlike_size"], 0.0, "{:?}", f.caveats);
        assert_eq!((f.severity, got[0].equips.clone()), (Severity::Warn, vec!["V2".to_string()]), "{}", f.summary);
    }

    #[test]
    fn a_box_is_set_aside_for_its_size_only_when_every_size_measure_says_so() {
        let names: Vec<String> = (0..8).map(|i| format!("V{i}")).collect();
        let run_on = |frames: &[crate::engine::Frame]| {
            let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
                names.iter().zip(frames).map(|(e, f)| (e.as_str(), None, f)).collect();
            fleet(&RULE, &m, &crate::engine::Params::default())
        };
        // a rogue zone: its setpoint pinned at its 1,000 cfm design while its peers' ask 400, but
        // its airflow (starved at 520) a peer's size: compared, not set aside
        let mut frames: Vec<_> = (0..8).map(|i| testkit::unit(&AIRFLOW, 380.0 + 5.0 * i as f64, 5.0, 400.0)).collect();
        frames[3] = testkit::unit(&AIRFLOW, 520.0, 5.0, 1000.0);
        assert_eq!(run_on(&frames)[0].finding.metrics["n_unlike_size"], 0.0);
        // a box three times the size on both its airflow and its setpoint: set aside
        frames[3] = testkit::unit(&AIRFLOW, 1200.0, 5.0, 1300.0);
        let got = run_on(&frames);
        assert_eq!(got[0].finding.metrics["n_unlike_size"], 1.0, "{:?}", got[0].finding.caveats);
        assert!(got[0].finding.severity <= Severity::Info, "{}", got[0].finding.summary);
    }

    #[test]
    fn a_wide_cohort_without_an_outlier_is_not_a_pass() {
        // boxes from 200 to 1100 cfm: no outlier, but too unlike to judge
        let frames: Vec<_> = [200.0, 400.0, 600.0, 800.0, 1000.0, 1100.0]
            .iter()
            .map(|l| testkit::unit(&AIRFLOW, *l, 5.0, 1200.0))
            .collect();
        let names = ["V0", "V1", "V2", "V3", "V4", "V5"];
        let m: Vec<(&str, Option<&str>, &crate::engine::Frame)> =
            names.iter().zip(&frames).map(|(e, f)| (*e, None, f)).collect();
        let got = fleet(&RULE, &m, &crate::engine::Params::default());
        let f = &got[0].finding;
        assert_eq!(f.severity, Severity::Info, "{}", f.summary);
        assert!(f.metrics["cohort_spread"] > 0.3 && f.summary.ends_with("too unlike to judge"), "{}", f.summary);
        assert!(f.caveats.iter().any(|c| c.contains("spreads widely")), "{:?}", f.caveats);
        // a looser limit passes it, exactly at its spread too
        let spread = f.metrics["cohort_spread"];
        let at = fleet(&RULE, &m, &numbers(&[("max_spread", spread + 0.0005)]));
        assert_eq!(at[0].finding.severity, Severity::Ok, "{}", at[0].finding.summary);
    }
}
