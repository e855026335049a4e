//! A small store writer in the reference's layout, for the demo and the tests. It writes
//! whole part files (snappy Parquet, `camber.layout` = 1, rows sorted by time) and the
//! facility registry; the full ingest path with locking and swaps is `camber ingest`.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{Float64Array, RecordBatch, StringArray, TimestampNanosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::Value;

use camber_common::time::civil_from_days;

use crate::store::{FACILITY_PREFIX, REGISTRY_FILE};

/// One long-format row: (ts ns, equip, equip_class, role, value).
pub type Row = (i64, String, String, String, f64);

/// The Arrow schema of a part file, with the layout marker.
pub fn part_schema() -> Arc<Schema> {
    let fields = vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
        Field::new("equip", DataType::Utf8, true),
        Field::new("equip_class", DataType::Utf8, true),
        Field::new("role", DataType::Utf8, true),
        Field::new("value", DataType::Float64, true),
    ];
    let meta: std::collections::HashMap<String, String> = [("camber.layout".to_string(), "1".to_string())].into_iter().collect();
    Arc::new(Schema::new_with_metadata(fields, meta))
}

/// Write `rows` of facility `fid` as one part per (year, month), named `part-<seq>-0.parquet`.
pub fn write_rows(root: &Path, fid: &str, rows: &mut [Row], seq: u32) -> std::io::Result<()> {
    rows.sort_by(|a, b| (a.0, &a.1, &a.3).cmp(&(b.0, &b.1, &b.3)));
    let mut by_month: BTreeMap<(i64, u32), Vec<&Row>> = BTreeMap::new();
    for r in rows.iter() {
        let (y, m, _) = civil_from_days(r.0.div_euclid(86_400_000_000_000));
        by_month.entry((y, m)).or_default().push(r);
    }
    for ((y, m), part) in by_month {
        let dir = root.join(format!("{FACILITY_PREFIX}{fid}")).join(format!("year={y}")).join(format!("month={m}"));
        std::fs::create_dir_all(&dir)?;
        let batch = RecordBatch::try_new(
            part_schema(),
            vec![
                Arc::new(TimestampNanosecondArray::from(part.iter().map(|r| r.0).collect::<Vec<_>>())),
                Arc::new(StringArray::from(part.iter().map(|r| r.1.as_str()).collect::<Vec<_>>())),
                Arc::new(StringArray::from(part.iter().map(|r| r.2.as_str()).collect::<Vec<_>>())),
                Arc::new(StringArray::from(part.iter().map(|r| r.3.as_str()).collect::<Vec<_>>())),
                Arc::new(Float64Array::from(part.iter().map(|r| r.4).collect::<Vec<_>>())),
            ],
        )
        .map_err(std::io::Error::other)?;
        let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
        let tmp = dir.join(format!(".part-{seq}-0.parquet.tmp"));
        let file = File::create(&tmp)?;
        let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(std::io::Error::other)?;
        w.write(&batch).map_err(std::io::Error::other)?;
        w.close().map_err(std::io::Error::other)?;
        std::fs::rename(&tmp, dir.join(format!("part-{seq}-0.parquet")))?;
    }
    Ok(())
}

/// Write the facility registry `_facilities.json` (atomically).
pub fn write_registry(root: &Path, entries: &BTreeMap<String, Value>) -> std::io::Result<()> {
    let text = serde_json::to_string(entries).map_err(std::io::Error::other)?;
    let tmp = root.join(format!("{REGISTRY_FILE}.tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, root.join(REGISTRY_FILE))
}

/// A deterministic pseudo-random number in [0, 1) from a seed and an index (splitmix64).
fn noise(seed: u64, i: u64) -> f64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// The demo store: two small facilities ("hq": one AHU with four VAV boxes, a week at
/// 15-minute samples; "annex": one rooftop unit) with a daily weather cycle and an
/// occupancy schedule, plus their registry entries.
pub fn demo_store(root: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(root)?;
    let start = camber_common::time::ns_from_iso("2024-03-04T00:00:00").unwrap_or(0);
    let step = 15 * 60 * 1_000_000_000i64;
    let n = 7 * 96;
    let mut hq: Vec<Row> = Vec::new();
    let mut annex: Vec<Row> = Vec::new();
    for i in 0..n {
        let t = start + i as i64 * step;
        let hour = (i % 96) as f64 / 4.0;
        let weekday = (i / 96) < 5;
        let occupied = weekday && (6.0..19.0).contains(&hour);
        let oat = 8.0 + 7.0 * ((hour - 9.0) / 24.0 * std::f64::consts::TAU).sin() + noise(1, i as u64) - 0.5;
        let fan = if occupied { 1.0 } else { 0.0 };
        let sat = if occupied { 13.0 + noise(2, i as u64) * 0.6 } else { 18.0 + 0.3 * oat / 10.0 };
        let push = |rows: &mut Vec<Row>, e: &str, c: &str, r: &str, v: f64| {
            rows.push((t, e.to_string(), c.to_string(), r.to_string(), (v * 100.0).round() / 100.0))
        };
        push(&mut hq, "AHU-1", "AHU", "oat", oat);
        push(&mut hq, "AHU-1", "AHU", "supply_air_temp", sat);
        push(&mut hq, "AHU-1", "AHU", "supply_air_temp_sp", if occupied { 13.0 } else { 18.0 });
        push(&mut hq, "AHU-1", "AHU", "supply_fan_status", fan);
        push(&mut hq, "AHU-1", "AHU", "outdoor_air_damper", if occupied { 20.0 + 10.0 * noise(3, i as u64) } else { 0.0 });
        for b in 1..=4 {
            let e = format!("VAV-{b}0{b}");
            let zone = if occupied { 21.5 + noise(10 + b, i as u64) } else { 18.0 + 0.2 * oat };
            push(&mut hq, &e, "VAV", "space_temp", zone);
            push(&mut hq, &e, "VAV", "airflow", if occupied { 150.0 + 100.0 * noise(20 + b, i as u64) } else { 0.0 });
        }
        push(&mut annex, "RTU-1", "RTU", "oat", oat + 0.4);
        push(&mut annex, "RTU-1", "RTU", "supply_air_temp", if occupied { 14.0 + noise(4, i as u64) } else { 19.0 });
        push(&mut annex, "RTU-1", "RTU", "supply_fan_status", fan);
    }
    let rows = hq.len() + annex.len();
    write_rows(root, "hq", &mut hq, 0)?;
    write_rows(root, "annex", &mut annex, 0)?;
    let mut reg = BTreeMap::new();
    reg.insert(
        "hq".to_string(),
        serde_json::json!({"name": "Headquarters", "state": "active", "timezone": "America/Chicago"}),
    );
    reg.insert(
        "annex".to_string(),
        serde_json::json!({"name": "Annex", "state": "active", "timezone": "America/Chicago"}),
    );
    write_registry(root, &reg)?;
    Ok(rows)
}
