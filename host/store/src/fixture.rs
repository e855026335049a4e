//! Small stores for the demo and the tests, written through the store's writer.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::parts::{LongRows, PointKey};
use crate::writer::{Mode, StoreWriter, Writer};

/// One long-format row: (ts ns, equip, equip_class, role, value).
pub type Row = (i64, String, String, String, f64);

/// Write `rows` as facility `fid`'s data (replacing what it had) with its registry entry,
/// through the store's writer.
pub fn write_facility(root: &Path, fid: &str, rows: &[Row], entry: Value) -> Result<(), String> {
    let mut long = LongRows::default();
    for (t, e, c, r, v) in rows {
        let p = long.intern(&PointKey { equip: e.clone(), equip_class: c.clone(), role: r.clone() });
        long.push(*t, p, *v);
    }
    long.finish();
    let mut w = Writer::open(root, Duration::from_secs(30))?;
    let entry = match entry {
        Value::Object(m) => m,
        _ => Default::default(),
    };
    w.write_facility(fid, &long, Mode::Replace, entry)?;
    Ok(())
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
pub fn demo_store(root: &Path) -> Result<usize, String> {
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
        push(
            &mut hq,
            "AHU-1",
            "AHU",
            "outdoor_air_damper",
            if occupied { 20.0 + 10.0 * noise(3, i as u64) } else { 0.0 },
        );
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
    write_facility(root, "hq", &hq, serde_json::json!({"name": "Headquarters", "timezone": "America/Chicago"}))?;
    write_facility(root, "annex", &annex, serde_json::json!({"name": "Annex", "timezone": "America/Chicago"}))?;
    Ok(rows)
}
