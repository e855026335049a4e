//! Typed, read-only access to the building data. Every function goes through the host, which
//! checks it against the call in progress; a refused or failed read is also recorded by the
//! host, so the call fails with the host's error whatever the handler does with it.

use camber_common::CapError;

use crate::bindings::camber::capability::store as wit;
use crate::plugin::__guest::code_from_wit;

pub use wit::{Facility, Point, Series};

fn err(e: crate::bindings::camber::capability::types::StoreError) -> CapError {
    CapError::new(code_from_wit(e.code), e.message)
}

/// The facilities this call may list, sorted by id, and how many allowed ones were withheld.
pub fn facilities() -> Result<(Vec<Facility>, u32), CapError> {
    wit::facilities().map_err(err)
}

/// The stored points of one facility, sorted by equipment, class and role.
pub fn points(facility_id: &str) -> Result<Vec<Point>, CapError> {
    wit::points(facility_id).map_err(err)
}

/// One point's samples within an optional window (stored wall-clock nanoseconds).
pub fn read_series(
    facility_id: &str,
    equip: &str,
    role: &str,
    start_ns: Option<i64>,
    end_ns: Option<i64>,
) -> Result<Series, CapError> {
    wit::read_series(facility_id, equip, role, start_ns, end_ns).map_err(err)
}
