//! `camber datasets`: the synthetic buildings (`synthetic-*`), generated here by
//! `camber-synth` and written into a store as facility `ds-<id>` with their fault labels in
//! the registry's `dataset` block. Nothing is fetched.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{json, Map, Value};

use camber_common::ids::utc_now;

use crate::parts::{LongRows, PointKey};
use crate::writer::{Mode, WriteOutcome};

/// The facility a dataset is ingested as.
pub fn facility_id(dataset_id: &str) -> String {
    format!("ds-{dataset_id}")
}

/// Generate a synthetic dataset as store rows (stored order) and its registry entry.
pub fn synthesize(dataset_id: &str, seed: Option<u64>) -> Result<(LongRows, Map<String, Value>), String> {
    let g = camber_synth::generate(dataset_id, seed).ok_or_else(|| {
        let known: Vec<&str> = camber_synth::datasets().iter().map(|d| d.id).collect();
        format!("unknown dataset '{dataset_id}'; the synthetic datasets are {}", known.join(", "))
    })?;
    let mut rows = LongRows::default();
    for s in &g.series {
        let p =
            rows.intern(&PointKey { equip: s.equip.clone(), equip_class: s.equip_class.clone(), role: s.role.clone() });
        for (t, v) in s.samples() {
            rows.push(t, p, v);
        }
    }
    rows.finish();
    let labels: BTreeMap<String, String> = g.equipment.iter().map(|e| (e.equip.clone(), e.label.clone())).collect();
    let scenarios: BTreeMap<String, String> =
        g.equipment.iter().map(|e| (e.equip.clone(), e.scenario.clone())).collect();
    let fault_types: BTreeMap<&str, &str> = g.info.fault_types.iter().copied().collect();
    let mut entry = Map::new();
    entry.insert("name".into(), json!(g.info.title));
    entry.insert(
        "dataset".into(),
        json!({
            "dataset_id": dataset_id,
            "title": g.info.title,
            "summary": g.info.summary,
            "licence": "Apache-2.0",
            "access": "open",
            "redistribution": "allowed",
            "synthetic": true,
            "generator": {"name": "camber-synth", "dataset": dataset_id, "seed": g.seed, "version": camber_synth::GENERATOR_VERSION},
            "labels": labels,
            "scenarios": scenarios,
            "fault_types": fault_types,
            "step_minutes": g.info.step_minutes,
            "days": g.info.days,
            "equipment": g.equipment.len(),
            "rows": rows.len(),
            "ingested_at": utc_now(),
        }),
    );
    Ok((rows, entry))
}

/// Write a synthetic dataset into the store. `replace` re-ingests a facility that exists.
pub fn ingest(
    store: &Path,
    dataset_id: &str,
    seed: Option<u64>,
    replace: bool,
    lock_timeout: Duration,
) -> Result<(String, WriteOutcome, Vec<String>), String> {
    let fid = facility_id(dataset_id);
    let mode = if replace { Mode::Replace } else { Mode::Create };
    // refused before the data is made or the store lock is taken
    crate::bucket_writer::check_write(store, &fid, mode)?;
    let (rows, entry) = synthesize(dataset_id, seed)?;
    let mut w = crate::bucket_writer::open(store, lock_timeout)?;
    let repaired = w.take_repaired();
    let outcome = w.write_facility(&fid, &rows, mode, entry)?;
    Ok((fid, outcome, repaired))
}
