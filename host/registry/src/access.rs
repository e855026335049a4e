//! The read-only host functions a guest imports (`camber:capability/store`). Every read is
//! checked against the call in progress: a guest reads only the facilities the call may
//! read, and every read and every failure is recorded, so the registry, not the guest,
//! decides what a failed or refused read means for the call.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{json, Value};

use camber_common::{CapError, ErrorCode};

use camber_runtime::bindings::camber::capability::store as wit_store;
use camber_runtime::bindings::camber::capability::types as wit;
use camber_runtime::{GridFrame, HostAccess, SharedFrame};
use camber_store::{StoreDir, StoreError};

use crate::licence::{Verdict, Wall};

/// What one call may read, and what it did read.
#[derive(Default)]
pub struct Access {
    pub store: Option<Arc<StoreDir>>,
    /// Facilities this call may read: those its arguments name, else the allowed ones.
    pub readable: BTreeSet<String>,
    /// Facilities the guest read.
    pub read: BTreeSet<String>,
    /// The first refused or failed read; it decides the call's outcome.
    pub error: Option<CapError>,
    /// The licence wall of the store (`None` without a store).
    pub wall: Option<Arc<Wall>>,
    /// The server's run configs, for `run-config`.
    pub run_configs: Arc<crate::runconfig::RunConfigs>,
    /// The caller's trust floor (`ctx.min_trust`), which `run-config` raises to a config's.
    pub min_trust: f64,
    /// Facilities of a listing whose fence could not be read: listed as unavailable, never
    /// read.
    pub fenced_off: std::collections::BTreeMap<String, StoreError>,
    /// Where the server's portfolio runs are (`--portfolio`), for `portfolio`.
    pub portfolio: Option<Arc<camber_store::portfolio::Runs>>,
    /// The portfolio run the guest read, if it read one: part of the call's token, and a
    /// result that read it is not kept (a new run changes it, not the store).
    pub portfolio_run: Option<String>,
}

impl Access {
    /// No store at all (loading, prompts).
    pub fn none() -> Access {
        Access::default()
    }

    /// Access for one call.
    pub fn new(store: Option<Arc<StoreDir>>, readable: BTreeSet<String>, wall: Option<Arc<Wall>>) -> Access {
        Access { store, readable, wall, ..Default::default() }
    }

    fn record(&mut self, e: CapError) -> wit::StoreError {
        let out = wit::StoreError { code: code_to_wit(e.code), message: e.message.clone() };
        if self.error.is_none() {
            self.error = Some(e);
        }
        out
    }

    /// Check that `fid` may be read in this call.
    fn check(&mut self, fid: &str) -> Result<Arc<StoreDir>, wit::StoreError> {
        if !self.readable.contains(fid) {
            return Err(self.record(CapError::internal("the capability tried to read a facility outside this call")));
        }
        let Some(store) = self.store.clone() else {
            return Err(self.record(CapError::new(ErrorCode::NotFound, "the store this caller reads does not exist")));
        };
        if let Some(wall) = self.wall.clone() {
            if let Err(e) = wall.check(fid) {
                return Err(self.record(e));
            }
        }
        if let Some(e) = self.fenced_off.get(fid).cloned() {
            return Err(self.fail(e));
        }
        self.read.insert(fid.to_string());
        Ok(store)
    }

    fn fail(&mut self, e: StoreError) -> wit::StoreError {
        self.record(unavailable(&e, &self.readable))
    }
}

/// The `unavailable` error of a failed read; names the facility only when the caller may see
/// it.
pub fn unavailable(e: &StoreError, visible: &BTreeSet<String>) -> CapError {
    let mut data = json!({"retryable": e.retryable});
    let mut message = format!("the stored data could not be read: {}", e.message);
    if let Some(fid) = e.facility.as_ref().filter(|f| visible.contains(*f)) {
        data["facility_id"] = Value::String(fid.clone());
        message = format!("the stored data of facility '{fid}' could not be read: {}", e.message);
    }
    if e.retryable {
        message.push_str(" (retry the call)");
    }
    CapError::with_data(ErrorCode::Unavailable, message, data)
}

use wit::ErrorCode as WitErrorCode;
camber_common::wit_error_code_mapping!(WitErrorCode);

impl HostAccess for Access {
    fn facilities(&mut self) -> Result<wit_store::FacilityList, wit::StoreError> {
        let Some(store) = self.store.clone() else {
            return Err(self.record(CapError::new(ErrorCode::NotFound, "the store this caller reads does not exist")));
        };
        let stored = match store.facility_ids() {
            Ok(ids) => ids,
            Err(e) => return Err(self.fail(e)),
        };
        let wall = self.wall.clone().unwrap_or_else(|| Arc::new(Wall::new(&store)));
        let registry = &wall.registry;
        let known: BTreeSet<String> = stored.iter().cloned().chain(registry.entries.keys().cloned()).collect();
        let mut out = Vec::new();
        let (mut research_only, mut unverified) = (0u32, 0u32);
        for fid in known.intersection(&self.readable) {
            match wall.verdict(fid) {
                Verdict::Clean => {}
                Verdict::ResearchOnly => {
                    research_only += 1;
                    continue;
                }
                Verdict::Unverified(_) => {
                    unverified += 1;
                    continue;
                }
            }
            self.read.insert(fid.clone());
            let meta = registry.entries.get(fid).cloned().unwrap_or(Value::Null);
            let mut row = wit_store::Facility {
                facility_id: fid.clone(),
                name: meta.get("display_name").or_else(|| meta.get("name")).and_then(Value::as_str).map(str::to_string),
                lifecycle: meta.get("state").and_then(Value::as_str).unwrap_or("active").to_string(),
                timezone: timezone_of(&meta),
                first_ns: None,
                last_ns: None,
                n_points: 0,
                n_equipment: 0,
                unavailable_retryable: None,
            };
            let stats = match self.fenced_off.get(fid) {
                Some(e) => Err(e.clone()),
                None => retry_once(|| store.span_and_points(fid)),
            };
            match stats {
                Ok((span, points)) => {
                    row.first_ns = span.map(|s| s.0);
                    row.last_ns = span.map(|s| s.1);
                    row.n_points = points.len() as u32;
                    let equips: BTreeSet<&str> = points.iter().map(|p| p.equip.as_str()).collect();
                    row.n_equipment = equips.len() as u32;
                }
                Err(e) => row.unavailable_retryable = Some(e.retryable),
            }
            out.push(row);
        }
        Ok(wit_store::FacilityList {
            facilities: out,
            withheld_research_only: research_only,
            withheld_unverified: unverified,
        })
    }

    fn points(&mut self, facility_id: String) -> Result<Vec<wit_store::Point>, wit::StoreError> {
        let store = self.check(&facility_id)?;
        match retry_once(|| store.points(&facility_id)) {
            Ok(rows) => Ok(rows
                .iter()
                .map(|r| wit_store::Point {
                    equip: r.equip.clone(),
                    equip_class: r.equip_class.clone(),
                    role: r.role.clone(),
                })
                .collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn read_series(
        &mut self,
        facility_id: String,
        equip: String,
        role: String,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Series, wit::StoreError> {
        let store = self.check(&facility_id)?;
        match retry_once(|| store.read_series(&facility_id, &equip, &role, start_ns, end_ns)) {
            Ok((ts, values)) => Ok(wit_store::Series { ts, values }),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn read_times(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<Vec<wit_store::PointTimes>, wit::StoreError> {
        let store = self.check(&facility_id)?;
        match retry_once(|| store.read_times(&facility_id, &equips, &roles, start_ns, end_ns)) {
            Ok(points) => Ok(points
                .into_iter()
                .map(|(k, runs)| wit_store::PointTimes {
                    equip: k.equip,
                    equip_class: k.equip_class,
                    role: k.role,
                    runs: runs
                        .into_iter()
                        .map(|r| wit_store::TimeRun { start: r.start, step: r.step, count: r.count })
                        .collect(),
                })
                .collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn read_frame(
        &mut self,
        facility_id: String,
        equip: String,
        roles: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
    ) -> Result<wit_store::Frame, wit::StoreError> {
        let store = self.check(&facility_id)?;
        match retry_once(|| store.read_frame(&facility_id, &equip, &roles, start_ns, end_ns)) {
            Ok(f) => Ok(wit_frame(f)),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn read_grid(
        &mut self,
        facility_id: String,
        equips: Vec<String>,
        start_ns: Option<i64>,
        end_ns: Option<i64>,
        step_ns: i64,
    ) -> Result<Vec<GridFrame>, wit::StoreError> {
        let store = self.check(&facility_id)?;
        match retry_once(|| store.read_grid_shared(&facility_id, &equips, start_ns, end_ns, step_ns)) {
            Ok(frames) => Ok(frames
                .iter()
                .map(|g| GridFrame {
                    equip: g.equip.clone(),
                    equip_class: g.equip_class.clone(),
                    frame: shared_frame_of(&g.frame),
                })
                .collect()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn run_config(&mut self, facility_id: String) -> Result<String, wit::StoreError> {
        let store = self.check(&facility_id)?;
        let configs = self.run_configs.clone();
        let floor = self.min_trust;
        match retry_once(|| crate::runconfig::run_config_text(&configs, &store, &facility_id, floor)) {
            Ok(v) => Ok(v.to_string()),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn catalog(&mut self) -> String {
        camber_store::dataset_catalog::json_text().to_string()
    }

    fn catalog_fields(&mut self, keys: Vec<String>) -> String {
        camber_store::dataset_catalog::fields_text(&keys).to_string()
    }

    fn catalog_entry(&mut self, id: String) -> Option<String> {
        camber_store::dataset_catalog::get(&id).map(Value::to_string)
    }

    fn portfolio(&mut self) -> Result<Option<String>, wit::StoreError> {
        let Some(runs) = self.portfolio.clone() else { return Ok(None) };
        let latest = match runs.latest() {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(None),
            Err(why) => {
                return Err(self.record(CapError::new(
                    ErrorCode::Unavailable,
                    format!("the portfolio runs cannot be read: {why}"),
                )))
            }
        };
        // what a listing shows: the readable facilities whose licence is clean
        let wall = self.wall.clone().or_else(|| self.store.as_ref().map(|s| Arc::new(Wall::new(s))));
        let visible: Vec<&String> = latest
            .facilities
            .keys()
            .filter(|f| self.readable.contains(*f))
            .filter(|f| wall.as_ref().is_none_or(|w| matches!(w.verdict(f), Verdict::Clean)))
            .collect();
        let facilities: Vec<&Value> = visible.iter().filter_map(|f| latest.facilities.get(*f)).collect();
        let issues: Vec<&Value> = visible.iter().filter_map(|f| latest.issues.get(*f)).flatten().collect();
        let text = serde_json::json!({
            "run": latest.run, "shards": latest.shards, "started": latest.started, "finished": latest.finished,
            "facilities": facilities, "issues": issues,
        })
        .to_string();
        self.read.extend(visible.into_iter().cloned());
        self.portfolio_run = Some(latest.run.clone());
        Ok(Some(text))
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// A frame for the guest: evenly spaced timestamps as a start and a step, others listed.
fn wit_frame(f: camber_store::Frame) -> wit_store::Frame {
    let len = f.ts.len() as u32;
    let (start, step, ts) = match spacing(&f.ts) {
        Some((start, step)) => (start, step, Vec::new()),
        None => (0, 0, f.ts),
    };
    wit_store::Frame { start, step, ts, len, roles: f.roles, values: f.values }
}

/// [`wit_frame`] of a grid the store keeps: its timestamps and columns are shared, not copied.
fn shared_frame_of(f: &camber_store::SharedFrame) -> SharedFrame {
    let len = f.ts.len() as u32;
    let (start, step, ts) = match spacing(&f.ts) {
        Some((start, step)) => (start, step, Arc::from([])),
        None => (0, 0, f.ts.clone()),
    };
    SharedFrame { start, step, ts, len, roles: f.roles.clone(), values: f.values.clone() }
}

/// `(start, step)` of evenly spaced timestamps (`step` 0 for one), which then need not cross
/// into the guest one by one.
fn spacing(ts: &[i64]) -> Option<(i64, i64)> {
    match ts {
        [t] => Some((*t, 0)),
        [a, b, ..] if ts.windows(2).all(|w| w[1] - w[0] == b - a) => Some((*a, b - a)),
        _ => None,
    }
}

/// A read that failed because a file went missing (a concurrent ingest replaced it between
/// listing and opening) is tried once more.
fn retry_once<T>(f: impl Fn() -> Result<T, StoreError>) -> Result<T, StoreError> {
    match f() {
        Err(e) if e.retryable => f(),
        other => other,
    }
}

/// The first IANA-looking zone the registry entry records.
fn timezone_of(meta: &Value) -> Option<String> {
    let candidates = [
        meta.get("timezone"),
        meta.get("dataset").and_then(|d| d.get("local_timezone")),
        meta.get("dataset").and_then(|d| d.get("timezone")),
        meta.get("openfdd").and_then(|d| d.get("timezone")),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|z| jiff::tz::TimeZone::get(z).is_ok())
        .map(str::to_string)
}
