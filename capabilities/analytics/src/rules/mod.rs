//! The rules, one module each, and the list of them.

pub mod simultaneous_heat_cool;

use crate::engine::{Frame, Outcome, Params, RuleSpec};

/// A rule: its declaration and its evaluation.
pub struct Rule {
    pub spec: fn() -> RuleSpec,
    pub evaluate: fn(&RuleSpec, &Frame, &Params) -> Outcome,
}

/// Every rule, sorted by id.
pub fn all() -> Vec<Rule> {
    vec![Rule { spec: simultaneous_heat_cool::spec, evaluate: simultaneous_heat_cool::evaluate }]
}
