//! Typed, read-only access to the building data. Every function goes through the host, which
//! checks it against the call in progress; a refused or failed read is also recorded by the
//! host, so the call fails with the host's error whatever the handler does with it.

use camber_common::CapError;

use crate::bindings::camber::capability::catalog as wit_catalog;
use crate::bindings::camber::capability::portfolio as wit_portfolio;
use crate::bindings::camber::capability::run_config as wit_run_config;
use crate::bindings::camber::capability::store as wit;
use crate::plugin::__guest::code_from_wit;

pub use wit::{EquipFrame, Facility, FacilityList, Frame, Point, PointTimes, Series, TimeRun};

fn err(e: crate::bindings::camber::capability::types::StoreError) -> CapError {
    CapError::new(code_from_wit(e.code), e.message)
}

/// The facilities this call may list, sorted by id, and how many allowed ones were withheld
/// (research-only, or with a licence that cannot be established).
pub fn facilities() -> Result<FacilityList, CapError> {
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

/// Every point's sample times in a window, as runs of evenly spaced samples (one pass over
/// the facility). Empty `equips` / `roles` mean all.
pub fn read_times(
    facility_id: &str,
    equips: &[String],
    roles: &[String],
    start_ns: Option<i64>,
    end_ns: Option<i64>,
) -> Result<Vec<PointTimes>, CapError> {
    wit::read_times(facility_id, equips, roles, start_ns, end_ns).map_err(err)
}

/// The dataset catalog (public metadata) as the host's JSON text, for a capability that parses
/// only what it needs of it.
pub fn catalog_text() -> String {
    wit_catalog::dataset_catalog()
}

/// The dataset catalog (public metadata), parsed.
pub fn catalog() -> Result<serde_json::Value, CapError> {
    serde_json::from_str(&wit_catalog::dataset_catalog())
        .map_err(|_| CapError::internal("the host's catalog is not JSON"))
}

/// The catalog with only `keys` of each entry, parsed: a list in catalog order, for a guest
/// that reads a few keys of every entry (far less to parse than [`catalog`]).
pub fn catalog_fields(keys: &[&str]) -> Result<serde_json::Value, CapError> {
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    serde_json::from_str(&wit_catalog::dataset_fields(&keys))
        .map_err(|_| CapError::internal("the host's catalog is not JSON"))
}

/// The catalog entry whose id is `id`, parsed; `None` when the catalog holds none.
pub fn catalog_entry(id: &str) -> Result<Option<serde_json::Value>, CapError> {
    match wit_catalog::dataset_entry(id) {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|_| CapError::internal("the host's catalog entry is not JSON")),
    }
}

/// One equipment's roles as aligned columns in a window (NaN where a role has no sample).
/// See [`frame_times`] for the timestamps of an evenly spaced frame.
pub fn read_frame(
    facility_id: &str,
    equip: &str,
    roles: &[String],
    start_ns: Option<i64>,
    end_ns: Option<i64>,
) -> Result<Frame, CapError> {
    wit::read_frame(facility_id, equip, roles, start_ns, end_ns).map_err(err)
}

/// The timestamps of a frame, whether it came as a grid or as a list.
pub fn frame_times(f: &Frame) -> Vec<i64> {
    if !f.ts.is_empty() {
        return f.ts.clone();
    }
    (0..f.len as i64).map(|i| f.start + i * f.step).collect()
}

/// Equipment frames on a time grid of `step_ns` in one pass over the facility: each equipment
/// of `equips` (empty: all) with every role it stores, each value the mean of its slot.
pub fn read_grid(
    facility_id: &str,
    equips: &[String],
    start_ns: Option<i64>,
    end_ns: Option<i64>,
    step_ns: i64,
) -> Result<Vec<EquipFrame>, CapError> {
    wit::read_grid(facility_id, equips, start_ns, end_ns, step_ns).map_err(err)
}

/// The run config a run of this facility uses (see the WIT `run-config`), parsed.
pub fn run_config(facility_id: &str) -> Result<serde_json::Value, CapError> {
    let text = wit_run_config::run_config(facility_id).map_err(err)?;
    serde_json::from_str(&text).map_err(|_| CapError::internal("the host's run config is not JSON"))
}

/// The latest complete portfolio run the server was pointed at (see the WIT `portfolio`),
/// parsed and cut to the facilities this call may read; `None` when there is none.
pub fn portfolio_run() -> Result<Option<serde_json::Value>, CapError> {
    match wit_portfolio::latest_run().map_err(err)? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|_| CapError::internal("the host's portfolio run is not JSON")),
    }
}
