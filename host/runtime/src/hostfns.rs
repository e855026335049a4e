//! The `camber:capability` imports (`store`, `run-config`, `catalog`, `progress`), bound to the call in
//! progress. The runtime owns
//! only the glue: each import is forwarded to the call's [`HostAccess`], the access state the
//! registry builds for one call (which facilities it may read, what it did read, the first
//! refused or failed read). So the sandbox knows nothing of the store or the policy, and the
//! policy nothing of wasmtime.

use std::any::Any;
use std::sync::Arc;

use wasmtime::component::{ComponentType, Lower};

use crate::bindings::camber::capability::catalog as wit_catalog;
use crate::bindings::camber::capability::content as wit_content;
use crate::bindings::camber::capability::portfolio as wit_portfolio;
use crate::bindings::camber::capability::progress as wit_progress;
use crate::bindings::camber::capability::run_config as wit_run_config;
use crate::bindings::camber::capability::store as wit_store;
use crate::bindings::camber::capability::types as wit;
use crate::profile::step;
use crate::CallState;

/// What a guest may read during one call: the store interface of the WIT contract, answered
/// by the registry's access state.
pub trait HostAccess: Send {
    /// The facilities this call may list.
    fn facilities(&mut self) -> Result<wit_store::FacilityList, wit::StoreError>;
    /// The stored points of a facility.
    fn points(&mut self, facility_id: String) -> Result<Vec<wit_store::Point>, wit::StoreError>;
    /// One point's samples in a window.
    fn read_series(
        &mut self,
        facility_id: String,
        equip: String,
        role: String,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Series, wit::StoreError>;
    /// Sample times as runs.
    fn read_times(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<Vec<wit_store::PointTimes>, wit::StoreError>;
    /// One equipment's roles as aligned columns.
    fn read_frame(
        &mut self,
        facility_id: String,
        equip: String,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Frame, wit::StoreError>;
    /// Equipment frames on a time grid, their columns shared with the grid the host keeps.
    fn read_grid(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
        step_ns: i64,
    ) -> Result<Vec<GridFrame>, wit::StoreError>;
    /// The run config a facility's run uses, as JSON text.
    fn run_config(&mut self, facility_id: String) -> Result<String, wit::StoreError>;
    /// The dataset catalog as JSON text.
    fn catalog(&mut self) -> String;
    /// These top-level keys of every catalog entry, as JSON text of the catalog's list.
    fn catalog_fields(&mut self, keys: Vec<String>) -> String;
    /// One catalog entry as JSON text.
    fn catalog_entry(&mut self, id: String) -> Option<String>;
    /// The latest complete portfolio run as JSON text, cut to what the call may read.
    fn portfolio(&mut self) -> Result<Option<String>, wit::StoreError>;
    /// The state back as itself, once the call is over.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

/// The access of a call that reads nothing (describe, prompts): every read is refused.
pub struct NoAccess;

fn refused() -> wit::StoreError {
    wit::StoreError { code: wit::ErrorCode::NotFound, message: "this call reads no store".into() }
}

impl HostAccess for NoAccess {
    fn facilities(&mut self) -> Result<wit_store::FacilityList, wit::StoreError> {
        Err(refused())
    }
    fn points(&mut self, _: String) -> Result<Vec<wit_store::Point>, wit::StoreError> {
        Err(refused())
    }
    fn read_series(
        &mut self,
        _: String,
        _: String,
        _: String,
        _: Option<i64>,
        _: Option<i64>,
    ) -> Result<wit_store::Series, wit::StoreError> {
        Err(refused())
    }
    fn read_times(
        &mut self,
        _: String,
        _: Vec<String>,
        _: Vec<String>,
        _: Option<i64>,
        _: Option<i64>,
    ) -> Result<Vec<wit_store::PointTimes>, wit::StoreError> {
        Err(refused())
    }
    fn read_frame(
        &mut self,
        _: String,
        _: String,
        _: Vec<String>,
        _: Option<i64>,
        _: Option<i64>,
    ) -> Result<wit_store::Frame, wit::StoreError> {
        Err(refused())
    }
    fn read_grid(
        &mut self,
        _: String,
        _: Vec<String>,
        _: Option<i64>,
        _: Option<i64>,
        _: i64,
    ) -> Result<Vec<GridFrame>, wit::StoreError> {
        Err(refused())
    }
    fn run_config(&mut self, _: String) -> Result<String, wit::StoreError> {
        Err(refused())
    }
    fn catalog(&mut self) -> String {
        "[]".into()
    }
    fn catalog_fields(&mut self, _: Vec<String>) -> String {
        "[]".into()
    }
    fn catalog_entry(&mut self, _: String) -> Option<String> {
        None
    }
    fn portfolio(&mut self) -> Result<Option<String>, wit::StoreError> {
        Err(refused())
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

impl wit::Host for CallState {}

impl wit_store::Host for CallState {
    fn facilities(&mut self) -> Result<wit_store::FacilityList, wit::StoreError> {
        step("host fn: facilities", || self.access.facilities())
    }
    fn points(&mut self, facility_id: String) -> Result<Vec<wit_store::Point>, wit::StoreError> {
        step("host fn: points", || self.access.points(facility_id))
    }
    fn read_series(
        &mut self,
        facility_id: String,
        equip: String,
        role: String,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Series, wit::StoreError> {
        step("host fn: read-series", || self.access.read_series(facility_id, equip, role, start_ns, end_ns))
    }
    fn read_times(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<Vec<wit_store::PointTimes>, wit::StoreError> {
        step("host fn: read-times", || self.access.read_times(facility_id, equips, roles, start_ns, end_ns))
    }
    fn read_frame(
        &mut self,
        facility_id: String,
        equip: String,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Frame, wit::StoreError> {
        step("host fn: read-frame", || self.access.read_frame(facility_id, equip, roles, start_ns, end_ns))
    }
    /// What `bindgen!`'s trait asks for: the grid copied out of the host's. The linker binds
    /// `read-grid` to [`read_grid_shared`] instead, which hands the guest the host's own columns.
    fn read_grid(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
        step_ns: i64,
    ) -> Result<Vec<wit_store::EquipFrame>, wit::StoreError> {
        let frames = read_grid_shared(self, (facility_id, equips, start_ns, end_ns, step_ns))?;
        Ok(frames.into_iter().map(GridFrame::into_wit).collect())
    }
}

/// `read-grid`'s arguments as the linker passes them: the facility, the equipment (empty: all),
/// the window's start and end, and the grid's step, in ns.
pub(crate) type ReadGridArgs = (String, Vec<String>, Option<i64>, Option<i64>, i64);

/// `read-grid` as the linker binds it: the call's access answers with columns shared with the
/// grid the host keeps between calls, which are written into the guest's memory as they are
/// (one copy, where the generated bindings would copy each column out first).
pub(crate) fn read_grid_shared(
    state: &mut CallState,
    (facility_id, equips, start_ns, end_ns, step_ns): ReadGridArgs,
) -> Result<Vec<GridFrame>, wit::StoreError> {
    step("host fn: read-grid", || state.access.read_grid(facility_id, equips, start_ns, end_ns, step_ns))
}

/// The WIT `equip-frame` record with shared columns: what `read-grid` returns.
#[derive(ComponentType, Lower)]
#[component(record)]
pub struct GridFrame {
    pub equip: String,
    #[component(name = "equip-class")]
    pub equip_class: String,
    pub frame: SharedFrame,
}

/// The WIT `frame` record whose timestamps and columns are shared with the host's grid.
#[derive(ComponentType, Lower)]
#[component(record)]
pub struct SharedFrame {
    /// The first row's time and the spacing when the rows are evenly spaced (`ts` then empty).
    pub start: i64,
    pub step: i64,
    pub ts: Arc<[i64]>,
    pub len: u32,
    pub roles: Vec<String>,
    pub values: Vec<Arc<[f64]>>,
}

impl GridFrame {
    /// The generated bindings' record, each column copied.
    fn into_wit(self) -> wit_store::EquipFrame {
        let f = self.frame;
        wit_store::EquipFrame {
            equip: self.equip,
            equip_class: self.equip_class,
            frame: wit_store::Frame {
                start: f.start,
                step: f.step,
                ts: f.ts.to_vec(),
                len: f.len,
                roles: f.roles,
                values: f.values.iter().map(|c| c.to_vec()).collect(),
            },
        }
    }
}

impl wit_run_config::Host for CallState {
    fn run_config(&mut self, facility_id: String) -> Result<String, wit::StoreError> {
        step("host fn: run-config", || self.access.run_config(facility_id))
    }
}

impl wit_catalog::Host for CallState {
    fn dataset_catalog(&mut self) -> String {
        step("host fn: dataset-catalog", || self.access.catalog())
    }
    fn dataset_fields(&mut self, keys: Vec<String>) -> String {
        step("host fn: dataset-fields", || self.access.catalog_fields(keys))
    }
    fn dataset_entry(&mut self, id: String) -> Option<String> {
        step("host fn: dataset-entry", || self.access.catalog_entry(id))
    }
}

impl wit_portfolio::Host for CallState {
    fn latest_run(&mut self) -> Result<Option<String>, wit::StoreError> {
        step("host fn: portfolio", || self.access.portfolio())
    }
}

impl wit_content::Host for CallState {
    fn attach(&mut self, block: wit_content::Block) {
        self.attached.push(block);
    }
}

impl wit_progress::Host for CallState {
    fn report(&mut self, done: u32, total: u32, message: String) {
        CallState::report(self, done, total, &message);
    }
}
