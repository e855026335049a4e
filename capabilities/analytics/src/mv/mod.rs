//! Measurement and verification (IPMVP Option C, ASHRAE Guideline 14) from a meter's own trend:
//! "did the fix save anything?". A daily change-point baseline (2P, 3P cooling, 3P heating, 4P,
//! 5P, optionally with drivers) is fitted on the baseline period and judged by Guideline 14's
//! daily acceptance; the saving is measured by the declared SEP method with its 90 % uncertainty
//! (G14's fractional savings uncertainty with the effective sample size, or the exact
//! prediction-interval kernel); a projection outside the baseline's outdoor-air support is graded
//! and, beyond the policy's limit, declined with the share and distance stated; a `rebaseline`
//! block adds the triggers, and `method: auto` a method proposal instead of a saving.
//!
//! The pieces: [`section`] (the run config's `mv` section), [`daily`] (a frame as days),
//! [`model`] (the fits and their selection), [`stats`] (G14's statistics and kernels),
//! [`coverage`] (extrapolation), [`savings`] (the methods), [`triggers`], and [`run`], which a
//! capability calls:
//!
//! ```ignore
//! let section = MvSection::from_value(config.get("mv"))?.unwrap();
//! let meters = [Meter { name: "CHW-METER-1", class: "CHILLEDWATER_METER", frame: &frame }];
//! let out = mv::run::run(&section, &meters, None);
//! for r in &out.results { /* r.kind, r.meter, r.finding, r.metrics, r.declined */ }
//! ```
//!
//! Unlike the reference: change points are refined between its grid points; Student's t is taken
//! at the fit's own degrees of freedom; validity `sep`/`both`, bundled holiday calendars, the
//! adjustments ledger, billing entries and gas-volume conversions are parsed or refused but not
//! computed, and each is said in a caveat or an error.

pub mod coverage;
pub mod daily;
pub mod linalg;
pub mod model;
pub mod run;
pub mod savings;
pub mod section;
pub mod stats;
pub mod triggers;

pub use run::{run, Meter, MvResult, MvRun, UnitSystem};
pub use section::{MvEntry, MvSection};

#[cfg(test)]
mod tests;
