//! Long-format rows held as columns (points interned), and the Parquet part files they are
//! written as: the reference's layout (`ts` timestamp[ns] without zone, `equip`,
//! `equip_class`, `role`, `value`; schema metadata `camber.layout` = 1; rows sorted by time,
//! equipment, role, class, value; snappy; one row group per part up to 2^20 rows).

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{DictionaryArray, Float64Array, Int32Array, RecordBatch, StringArray, TimestampNanosecondArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use camber_common::time::civil_from_days;

/// One point: a role on an equipment of a class.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PointKey {
    pub equip: String,
    pub equip_class: String,
    pub role: String,
}

/// Rows of one facility as columns; `point[i]` indexes `points`.
#[derive(Clone, Debug, Default)]
pub struct LongRows {
    pub points: Vec<PointKey>,
    pub ts: Vec<i64>,
    pub point: Vec<u32>,
    pub value: Vec<f64>,
    index: HashMap<PointKey, u32>,
}

/// What [`LongRows::finish`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dedup {
    /// Rows that shared a time and point with a later row (the later one was kept).
    pub duplicates: usize,
}

impl LongRows {
    /// The index of a point, interning it on first sight.
    pub fn intern(&mut self, key: &PointKey) -> u32 {
        if let Some(i) = self.index.get(key) {
            return *i;
        }
        let i = self.points.len() as u32;
        self.points.push(key.clone());
        self.index.insert(key.clone(), i);
        i
    }

    /// Append one row.
    pub fn push(&mut self, ts: i64, point: u32, value: f64) {
        self.ts.push(ts);
        self.point.push(point);
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// Sort into the stored order and keep the last row of each (time, point): renumber the
    /// points in (equip, role, class) order so the sort key is (ts, point, value).
    pub fn finish(&mut self) -> Dedup {
        let mut order: Vec<u32> = (0..self.points.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (&self.points[a as usize], &self.points[b as usize]);
            (&pa.equip, &pa.role, &pa.equip_class).cmp(&(&pb.equip, &pb.role, &pb.equip_class))
        });
        let mut rank = vec![0u32; self.points.len()];
        for (r, &p) in order.iter().enumerate() {
            rank[p as usize] = r as u32;
        }
        let points: Vec<PointKey> = order.iter().map(|&p| self.points[p as usize].clone()).collect();
        // (ts, point rank, input position): the last of equal (ts, point) is the newest row
        let mut idx: Vec<(i64, u32, u32)> =
            (0..self.ts.len()).map(|i| (self.ts[i], rank[self.point[i] as usize], i as u32)).collect();
        idx.sort_unstable();
        let mut ts = Vec::with_capacity(idx.len());
        let mut point = Vec::with_capacity(idx.len());
        let mut value = Vec::with_capacity(idx.len());
        let mut duplicates = 0;
        for (k, &(t, p, i)) in idx.iter().enumerate() {
            if let Some(&(nt, np, _)) = idx.get(k + 1) {
                if nt == t && np == p {
                    duplicates += 1;
                    continue;
                }
            }
            ts.push(t);
            point.push(p);
            value.push(self.value[i as usize]);
        }
        self.index = points.iter().enumerate().map(|(i, p)| (p.clone(), i as u32)).collect();
        self.points = points;
        self.ts = ts;
        self.point = point;
        self.value = value;
        Dedup { duplicates }
    }

    /// Contiguous row ranges of each (year, month), for rows already in stored order.
    pub fn months(&self) -> Vec<((i64, u32), std::ops::Range<usize>)> {
        let mut out: Vec<((i64, u32), std::ops::Range<usize>)> = Vec::new();
        let mut start = 0;
        let mut cur: Option<(i64, u32)> = None;
        let mut day_cache = (i64::MIN, (0i64, 0u32));
        for (i, &t) in self.ts.iter().enumerate() {
            let day = t.div_euclid(86_400_000_000_000);
            if day != day_cache.0 {
                let (y, m, _) = civil_from_days(day);
                day_cache = (day, (y, m));
            }
            let ym = day_cache.1;
            if cur != Some(ym) {
                if let Some(c) = cur {
                    out.push((c, start..i));
                }
                cur = Some(ym);
                start = i;
            }
        }
        if let Some(c) = cur {
            out.push((c, start..self.ts.len()));
        }
        out
    }
}

/// The Arrow schema of a part file as written: strings dictionary-encoded, the layout marker
/// in the metadata.
fn write_schema() -> Arc<Schema> {
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let fields = vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
        Field::new("equip", dict.clone(), true),
        Field::new("equip_class", dict.clone(), true),
        Field::new("role", dict, true),
        Field::new("value", DataType::Float64, true),
    ];
    let meta = [("camber.layout".to_string(), "1".to_string())].into_iter().collect::<HashMap<_, _>>();
    Arc::new(Schema::new_with_metadata(fields, meta))
}

fn dict_column(
    rows: &LongRows,
    range: &std::ops::Range<usize>,
    f: impl Fn(&PointKey) -> &str,
) -> DictionaryArray<Int32Type> {
    // dictionary of the distinct strings of these points, in point order
    let mut values: Vec<&str> = Vec::new();
    let mut slot: HashMap<&str, i32> = HashMap::new();
    let key_of_point: Vec<i32> = rows
        .points
        .iter()
        .map(|p| {
            let s = f(p);
            *slot.entry(s).or_insert_with(|| {
                values.push(s);
                values.len() as i32 - 1
            })
        })
        .collect();
    let keys = Int32Array::from_iter_values(rows.point[range.clone()].iter().map(|&p| key_of_point[p as usize]));
    DictionaryArray::try_new(keys, Arc::new(StringArray::from(values))).expect("keys index the dictionary")
}

/// Write `rows[range]` (in stored order) as one part file at `path`.
pub fn write_part(path: &Path, rows: &LongRows, range: std::ops::Range<usize>) -> std::io::Result<()> {
    let schema = write_schema();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(TimestampNanosecondArray::from(rows.ts[range.clone()].to_vec())),
            Arc::new(dict_column(rows, &range, |p| &p.equip)),
            Arc::new(dict_column(rows, &range, |p| &p.equip_class)),
            Arc::new(dict_column(rows, &range, |p| &p.role)),
            Arc::new(Float64Array::from(rows.value[range.clone()].to_vec())),
        ],
    )
    .map_err(std::io::Error::other)?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_max_row_group_row_count(Some(1 << 20))
        .set_key_value_metadata(Some(vec![KeyValue::new("camber.layout".to_string(), "1".to_string())]))
        .build();
    let file = File::create(path)?;
    // no ARROW:schema: a reader then sees plain string columns (the dictionary is only the
    // Parquet encoding), as in the reference's files
    let options = ArrowWriterOptions::new().with_properties(props).with_skip_arrow_metadata(true);
    let mut w = ArrowWriter::try_new_with_options(file, schema, options).map_err(std::io::Error::other)?;
    w.write(&batch).map_err(std::io::Error::other)?;
    let file = w.into_inner().map_err(std::io::Error::other)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(e: &str, r: &str) -> PointKey {
        PointKey { equip: e.into(), equip_class: "AHU".into(), role: r.into() }
    }

    #[test]
    fn finish_sorts_and_keeps_the_last_duplicate() {
        let mut rows = LongRows::default();
        let b = rows.intern(&key("AHU-2", "oat"));
        let a = rows.intern(&key("AHU-1", "sat"));
        rows.push(20, b, 1.0);
        rows.push(10, a, 2.0);
        rows.push(10, b, 3.0);
        rows.push(20, b, 4.0); // duplicate of the first row: wins
        let d = rows.finish();
        assert_eq!(d.duplicates, 1);
        assert_eq!(rows.points[0].equip, "AHU-1");
        assert_eq!(rows.ts, vec![10, 10, 20]);
        assert_eq!(rows.point, vec![0, 1, 1]);
        assert_eq!(rows.value, vec![2.0, 3.0, 4.0]);
    }

    #[test]
    fn months_split_contiguous_ranges() {
        let mut rows = LongRows::default();
        let p = rows.intern(&key("A", "oat"));
        let jan31 = camber_common::time::ns_from_iso("2024-01-31T23:00:00").unwrap();
        let feb1 = camber_common::time::ns_from_iso("2024-02-01T00:00:00").unwrap();
        rows.push(jan31, p, 1.0);
        rows.push(feb1, p, 2.0);
        rows.finish();
        let m = rows.months();
        assert_eq!(m, vec![((2024, 1), 0..1), ((2024, 2), 1..2)]);
    }
}
