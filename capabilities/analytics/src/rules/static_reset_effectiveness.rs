//! `static_reset_effectiveness`: whether the duct static-pressure reset trims and responds as its
//! trended static-pressure requests say it should (Guideline 36 §5.16.1.2, 0.1 to 1.5 in. w.c.).
//! The requests are replayed through trim-and-respond and the rebuilt setpoint compared with the
//! trended one for a stuck reset, one that does not respond (boxes starved), one that does not
//! trim (fan energy wasted) and one that moves the wrong way (see
//! [`super::reset_effectiveness`]).

use crate::engine::{Frame, Outcome, Params, Rule, RuleSpec};
use crate::rules::reset_effectiveness::{self, STATIC};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    reset_effectiveness::spec(&STATIC)
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    reset_effectiveness::evaluate(&STATIC, spec, frame, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Severity;
    use crate::rules::reset_effectiveness::testkit::*;

    #[test]
    fn a_reset_that_follows_its_requests_is_ok() {
        follows_its_requests(&STATIC);
    }

    #[test]
    fn stuck_unresponsive_untrimmed_and_inverted_resets_warn() {
        the_four_failures(&STATIC);
    }

    #[test]
    fn the_share_and_range_boundaries() {
        the_mode_boundary(&STATIC);
        the_flat_boundary(&STATIC);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        gaps_duplicates_and_irregular_sampling(&STATIC);
    }

    #[test]
    fn a_stopped_fan_is_not_judged_and_restarts_the_reset() {
        equipment_off(&STATIC);
    }

    #[test]
    fn a_missing_setpoint_or_request_count_skips() {
        missing_inputs_skip(&STATIC);
    }

    #[test]
    fn hourly_snapshots() {
        coarse_trends(&STATIC);
    }

    #[test]
    fn a_setpoint_held_under_the_floor_while_boxes_call_is_stuck_and_unresponsive() {
        // 0.07 in. w.c. all day with a dozen requests: below the reset's floor, never responding
        let f = run(
            &STATIC,
            &frame(&STATIC, &every(60, 60), |_| 12.0, |i| if i % 24 < 12 { 1.0 } else { 0.0 }, |_, _| 0.07),
            &defaults(),
        );
        assert_eq!(failed(&f), ["stuck", "not_responding"], "{}", f.summary);
        assert!(f.summary.contains("does not respond"), "{}", f.summary);
        assert_eq!(f.severity, Severity::Warn);
    }
}
