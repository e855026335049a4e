//! The analytics engine. A rule declares what it is (its id, the equipment families it is
//! written for, its inputs and its parameters with defaults, units, ranges, basis and
//! calibration advice) and evaluates aligned columns of one equipment into findings: a
//! severity, a summary, caveats, scalar metrics, the flagged samples, the samples it judged
//! and what they are, and named sub-conditions. No I/O: the components that run rules read the
//! store and hand the columns here, and the native tests exercise every rule directly. The
//! opt-in drift detectors ([`drift`]) judge a window against the same equipment's own
//! known-good past instead of a fixed limit.

#![deny(unsafe_code)]

pub mod chiller;
pub mod config;
pub mod cycles;
pub mod drift;
pub mod dx;
pub mod economizer;
pub mod engine;
pub mod family;
pub mod fleet;
pub mod grid;
pub mod heatpump;
pub mod hw_plant;
pub mod mv;
pub mod oa_cost;
pub mod psychro;
pub mod pump_speed;
pub mod rcx;
pub mod rules;
pub mod run;
pub mod setpoint;
pub mod site;
pub mod terminal;
pub mod trim_respond;
pub mod trust;

pub use engine::{Condition, Finding, Frame, Inputs, Outcome, ParamSpec, ParamValue, Params, RuleSpec, Severity};
