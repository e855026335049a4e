//! The licence wall (spec step 3), failing closed: a facility ingested from a research-only
//! dataset is refused, whatever its registry entry says, and a facility whose licence cannot be
//! established (a damaged registry, a `ds-` facility nobody vouches for) is refused too.

use serde_json::{json, Value};

use camber_common::{CapError, ErrorCode};

use camber_store::dataset_catalog as catalog;
use camber_store::{RegistryView, StoreDir};

/// What the licence policy says about one facility.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It may be served.
    Clean,
    /// It holds research-only (non-commercial / no-derivatives) data.
    ResearchOnly,
    /// Its licence or lifecycle cannot be established.
    Unverified(&'static str),
}

/// Whether the recorded dataset block marks research-only data.
fn block_research_only(block: &Value) -> bool {
    block["access"] == "research_only"
        || block["redistribution"] == "prohibited"
        || block["licence"].as_str().is_some_and(catalog::is_research_only_licence)
        || block["dataset_id"].as_str().and_then(catalog::get).is_some_and(catalog::research_only)
}

/// The licence state of the store's registry: is it usable for licence decisions?
#[derive(Clone, Debug)]
pub struct Wall {
    pub registry: std::sync::Arc<RegistryView>,
    /// Why the registry cannot be trusted, if it cannot (drives the banner and refusals).
    pub damaged: Option<&'static str>,
}

impl Wall {
    /// Read the registry of `store` and decide whether it can be trusted.
    pub fn new(store: &StoreDir) -> Wall {
        let registry = store.registry();
        // listing the store's facilities costs with its size: only when the registry is missing
        let holds_ds = || store.facility_ids().map(|ids| ids.iter().any(|f| f.starts_with("ds-"))).unwrap_or(true);
        let damaged = if registry.damaged {
            Some("the store's facility registry cannot be read or is malformed")
        } else if registry.present && registry.entries.is_empty() {
            Some("the store's facility registry is empty")
        } else if !registry.present && holds_ds() {
            Some("the store's facility registry is missing")
        } else {
            None
        };
        Wall { registry, damaged }
    }

    /// The verdict for one facility.
    pub fn verdict(&self, fid: &str) -> Verdict {
        if let Some(e) = catalog::entry_for_facility(fid) {
            if catalog::research_only(e) {
                return Verdict::ResearchOnly;
            }
        }
        if self.damaged.is_some() {
            return Verdict::Unverified("registry_damaged");
        }
        let entry = self.registry.entries.get(fid);
        if let Some(block) = entry.and_then(|m| m.get("dataset")).filter(|b| b.is_object()) {
            if block_research_only(block) {
                return Verdict::ResearchOnly;
            }
        }
        if fid.starts_with("ds-") {
            let named = catalog::entry_for_facility(fid).is_some();
            let recorded = entry
                .and_then(|m| m.get("dataset"))
                .is_some_and(|b| b["licence"].is_string() || b["access"].is_string());
            if entry.is_none() {
                return Verdict::Unverified("no_registry_entry");
            }
            if !named && !recorded {
                return Verdict::Unverified("no_licence_record");
            }
        }
        Verdict::Clean
    }

    /// Refuse a named facility that may not be served.
    pub fn check(&self, fid: &str) -> Result<(), CapError> {
        match self.verdict(fid) {
            Verdict::Clean => Ok(()),
            Verdict::ResearchOnly => Err(CapError::with_data(
                ErrorCode::RefusedLicence,
                format!("facility '{fid}' holds research-only (non-commercial / no-derivatives) data, which is never served here"),
                json!({"facility_id": fid}),
            )),
            Verdict::Unverified(why) => Err(CapError::with_data(
                ErrorCode::RefusedLicence,
                format!("facility '{fid}' cannot be served: its licence cannot be established ({})", why.replace('_', " ")),
                json!({"facility_id": fid, "reason": "licence_unverified", "detail": why}),
            )),
        }
    }

    /// The banner every result carries while the registry is damaged.
    pub fn banner(&self) -> Option<String> {
        self.damaged.map(|why| {
            format!(
                "{why}: facilities whose licence cannot be established are withheld or refused until it is repaired"
            )
        })
    }
}
