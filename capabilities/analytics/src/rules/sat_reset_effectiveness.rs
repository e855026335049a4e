//! `sat_reset_effectiveness`: whether the supply-air temperature reset trims and responds as its
//! trended SAT reset requests say it should (Guideline 36 §5.16.2.2). The requests drive T-max
//! by trim-and-respond and the setpoint slides from T-max down to 55 °F as outdoor air warms
//! from 60 to 70 °F; the rebuilt setpoint is compared with the trended one for a stuck reset,
//! one that does not respond, one that does not trim and one that moves the wrong way (see
//! [`super::reset_effectiveness`]). A setpoint held colder than 55 °F while the zones ask for
//! nothing is untrimmed, not merely off the map.

use crate::engine::{Frame, Outcome, Params, Rule, RuleSpec};
use crate::rules::reset_effectiveness::{self, SAT};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::new(spec, evaluate);

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    reset_effectiveness::spec(&SAT)
}

/// Evaluate one equipment's frame.
pub fn evaluate(spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
    reset_effectiveness::evaluate(&SAT, spec, frame, params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Severity;
    use crate::rules::reset_effectiveness::testkit::*;

    #[test]
    fn a_reset_that_follows_its_requests_is_ok() {
        follows_its_requests(&SAT);
    }

    #[test]
    fn stuck_unresponsive_untrimmed_and_inverted_resets_warn() {
        the_four_failures(&SAT);
    }

    #[test]
    fn the_share_and_range_boundaries() {
        the_mode_boundary(&SAT);
        the_flat_boundary(&SAT);
    }

    #[test]
    fn gaps_duplicates_disorder_and_irregular_sampling() {
        gaps_duplicates_and_irregular_sampling(&SAT);
    }

    #[test]
    fn a_stopped_fan_is_not_judged_and_restarts_the_reset() {
        equipment_off(&SAT);
    }

    #[test]
    fn a_missing_setpoint_or_request_count_skips() {
        missing_inputs_skip(&SAT);
    }

    #[test]
    fn hourly_snapshots() {
        coarse_trends(&SAT);
    }

    #[test]
    fn warm_weather_lowers_the_setpoint_below_t_max() {
        // no requests: T-max trims to 65 °F, and at 70 °F outdoors the map asks for 55 °F
        let ts = every(60, 48);
        let mut f = frame(&SAT, &ts, |_| 0.0, |_| 1.0, |_, _| 55.0);
        f.cols.insert("oat".into(), vec![72.0; 48]);
        let warm = run(&SAT, &f, &defaults());
        assert_eq!(warm.severity, Severity::Ok, "{}", warm.summary);
        assert_eq!(warm.metrics["mean_abs_error_sp"], 0.0);
        // the same supply air judged against T-max alone (no outdoor air) looks untrimmed
        f.cols.remove("oat");
        let blind = run(&SAT, &f, &defaults());
        assert_eq!(failed(&blind), ["not_trimming"], "{}", blind.summary);
        assert!(blind.caveats.iter().any(|c| c.contains("no outdoor air")));
    }

    #[test]
    fn a_setpoint_held_below_the_map_with_no_requests_is_untrimmed() {
        // 50 °F all day with the zones asking for nothing: G36 would sit at 65 °F in mild weather
        let f = run(
            &SAT,
            &frame(&SAT, &every(60, 60), |_| 0.0, |i| if i % 24 < 12 { 1.0 } else { 0.0 }, |_, _| 50.0),
            &defaults(),
        );
        assert_eq!(failed(&f), ["not_trimming"], "{}", f.summary);
        assert_eq!(f.metrics["pct_idle_untrimmed"], 100.0);
    }
}
