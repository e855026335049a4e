//! The export itself: a wide trend CSV (a timestamp column and one column per point) or a point
//! list (a name column, optionally unit and description), and what each column's values say about
//! the point (a status is 0/1, a damper stays within 0-100, a temperature sits at a level).

use std::path::Path;

/// At most this many rows are read: the profile and the data checks need a sample, not a year
/// (a month of a 1-minute trend; 400 points of it hold 160 MB of readings).
pub const DEFAULT_MAX_ROWS: usize = 50_000;

/// One point of the export.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Column {
    /// The column header (or, for a point list, the point's name), as written.
    pub name: String,
    /// A unit the export declares for it (a point list's unit column), if any.
    pub unit: Option<String>,
    /// A description (a point list's description column), if any.
    pub description: Option<String>,
    /// Readings, row by row (NaN where empty); empty for a point list.
    pub values: Vec<f64>,
    /// Cells that were neither numbers nor on/off words.
    pub bad_cells: usize,
}

/// A read export.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Export {
    /// The timestamp column of a trend export.
    pub timestamp: Option<String>,
    pub columns: Vec<Column>,
    /// Rows read (0 for a point list).
    pub rows: usize,
    /// Whether more rows were there than were read.
    pub truncated: bool,
}

/// Reads a trend export or a point list. A point list is a CSV whose header has a `name` or
/// `point` column and no timestamp column.
pub fn read_export(path: &Path, max_rows: usize) -> Result<Export, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("the export cannot be read ({})", e.kind()))?;
    read_export_from(file, max_rows)
}

/// [`read_export`] over any reader.
pub fn read_export_from<R: std::io::Read>(input: R, max_rows: usize) -> Result<Export, String> {
    let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(input);
    let headers: Vec<String> = r
        .headers()
        .map_err(|e| format!("the export's header cannot be read: {e}"))?
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_string())
        .collect();
    if headers.len() < 2 {
        return Err("the export needs a header with at least two columns (a timestamp and a point, or a point list's name and unit)".into());
    }
    let lower: Vec<String> = headers.iter().map(|h| h.to_ascii_lowercase()).collect();
    let ts = lower.iter().position(|h| is_time_header(h));
    let name_col = lower.iter().position(|h| {
        matches!(h.as_str(), "name" | "point" | "point name" | "point_name" | "object name" | "object_name" | "column")
    });
    if ts.is_none() {
        if let Some(n) = name_col {
            return read_point_list(r, &lower, n);
        }
    }
    let ts = ts.unwrap_or(0);
    let mut columns: Vec<Column> = headers
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != ts)
        .map(|(_, h)| Column { name: h.clone(), ..Column::default() })
        .collect();
    let mut rows = 0;
    let mut truncated = false;
    for rec in r.records() {
        let rec = rec.map_err(|e| format!("the export cannot be read: {e}"))?;
        if rows == max_rows {
            truncated = true;
            break;
        }
        rows += 1;
        let mut k = 0;
        for (i, _) in headers.iter().enumerate() {
            if i == ts {
                continue;
            }
            let cell = rec.get(i).unwrap_or_default();
            let col = &mut columns[k];
            match reading(cell) {
                Ok(v) => col.values.push(v),
                Err(()) => {
                    col.values.push(f64::NAN);
                    col.bad_cells += 1;
                }
            }
            k += 1;
        }
    }
    if rows == 0 {
        return Err("the export has a header but no rows".into());
    }
    Ok(Export { timestamp: Some(headers[ts].clone()), columns, rows, truncated })
}

fn read_point_list<R: std::io::Read>(mut r: csv::Reader<R>, lower: &[String], name: usize) -> Result<Export, String> {
    let unit = lower.iter().position(|h| matches!(h.as_str(), "unit" | "units" | "engineering units" | "eng units"));
    let desc = lower.iter().position(|h| matches!(h.as_str(), "description" | "desc" | "dis" | "label"));
    let mut columns = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| format!("the point list cannot be read: {e}"))?;
        let get =
            |i: Option<usize>| i.and_then(|i| rec.get(i)).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let Some(n) = get(Some(name)) else { continue };
        columns.push(Column { name: n, unit: get(unit), description: get(desc), ..Column::default() });
    }
    if columns.is_empty() {
        return Err("the point list names no points".into());
    }
    Ok(Export { timestamp: None, columns, rows: 0, truncated: false })
}

fn is_time_header(h: &str) -> bool {
    matches!(
        h,
        "ts" | "time" | "timestamp" | "date" | "datetime" | "date/time" | "date time" | "time stamp" | "timestamp_utc"
    ) || h.starts_with("timestamp")
        || h.starts_with("date/time")
}

/// A cell as a number: numbers as written, on/off words as 1/0, empty as NaN.
fn reading(cell: &str) -> Result<f64, ()> {
    let s = cell.trim();
    if s.is_empty() {
        return Ok(f64::NAN);
    }
    if let Ok(v) = s.parse::<f64>() {
        return if v.is_finite() { Ok(v) } else { Err(()) };
    }
    match s.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "run" | "running" | "active" | "occupied" | "open" => Ok(1.0),
        "off" | "false" | "no" | "stop" | "stopped" | "inactive" | "unoccupied" | "closed" => Ok(0.0),
        _ => Err(()),
    }
}

/// What a column's readings look like.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Readings present (not NaN).
    pub present: usize,
    pub min: f64,
    pub max: f64,
    pub p05: f64,
    pub median: f64,
    pub p95: f64,
    /// Every reading is 0 or 1.
    pub binary: bool,
    /// Every reading is one value.
    pub constant: bool,
    /// Distinct readings, counted up to 20.
    pub distinct: usize,
    /// Share of consecutive readings that differ.
    pub change_share: f64,
}

/// The profile of a column, or `None` when it holds no reading.
pub fn profile(values: &[f64]) -> Option<Profile> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    let mut distinct: Vec<f64> = Vec::new();
    for x in &v {
        if distinct.len() > 20 {
            break;
        }
        if !distinct.contains(x) {
            distinct.push(*x);
        }
    }
    let (mut changes, mut pairs) = (0usize, 0usize);
    for w in v.windows(2) {
        pairs += 1;
        if w[0] != w[1] {
            changes += 1;
        }
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    Some(Profile {
        present: v.len(),
        min: v[0],
        max: v[v.len() - 1],
        p05: q(0.05),
        median: q(0.5),
        p95: q(0.95),
        binary: distinct.iter().all(|x| *x == 0.0 || *x == 1.0),
        constant: distinct.len() == 1,
        distinct: distinct.len().min(20),
        change_share: if pairs == 0 { 0.0 } else { changes as f64 / pairs as f64 },
    })
}

/// Share of readings outside `[lo, hi]` (after `scale`/`offset`).
pub fn outside_share(values: &[f64], lo: Option<f64>, hi: Option<f64>, scale: f64, offset: f64) -> f64 {
    let (mut out, mut n) = (0usize, 0usize);
    for x in values.iter().filter(|x| !x.is_nan()) {
        n += 1;
        let y = x * scale + offset;
        if lo.is_some_and(|l| y < l) || hi.is_some_and(|h| y > h) {
            out += 1;
        }
    }
    if n == 0 {
        0.0
    } else {
        out as f64 / n as f64
    }
}

/// Pearson correlation of two columns over the rows both hold, or `None` with fewer than 24 such
/// rows or a constant side.
pub fn correlation(a: &[f64], b: &[f64]) -> Option<f64> {
    let pairs: Vec<(f64, f64)> =
        a.iter().zip(b).filter(|(x, y)| !x.is_nan() && !y.is_nan()).map(|(x, y)| (*x, *y)).collect();
    if pairs.len() < 24 {
        return None;
    }
    let n = pairs.len() as f64;
    let (ma, mb) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in &pairs {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 1e-12 && sbb > 1e-12).then(|| sab / (saa * sbb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_export_and_point_list() {
        let csv = "Date/Time,AHU1_SAT,AHU1_SF_STS,VAV-1 DMPR\n2026-07-01 00:00,55.1,on,40\n2026-07-01 00:15,55.3,off,\n2026-07-01 00:30,x,1,45\n";
        let e = read_export_from(csv.as_bytes(), 10).unwrap();
        assert_eq!(e.timestamp.as_deref(), Some("Date/Time"));
        assert_eq!(e.rows, 3);
        assert_eq!(e.columns.len(), 3);
        assert_eq!(e.columns[1].values, vec![1.0, 0.0, 1.0]);
        assert_eq!(e.columns[0].bad_cells, 1);
        assert!(e.columns[2].values[1].is_nan());
        let e2 = read_export_from(csv.as_bytes(), 2).unwrap();
        assert!(e2.truncated && e2.rows == 2);
        let list = "Name,Units,Description\nAHU1_SAT,°F,Discharge air temperature\nEF1_STS,,Exhaust fan status\n";
        let p = read_export_from(list.as_bytes(), 10).unwrap();
        assert_eq!(p.timestamp, None);
        assert_eq!(p.columns[0].unit.as_deref(), Some("°F"));
        assert_eq!(p.columns[1].description.as_deref(), Some("Exhaust fan status"));
        assert!(read_export_from("a\n1\n".as_bytes(), 10).is_err());
        assert!(read_export_from("ts,a\n".as_bytes(), 10).unwrap_err().contains("no rows"));
    }

    #[test]
    fn profiles() {
        let p = profile(&[0.0, 1.0, 1.0, f64::NAN, 0.0]).unwrap();
        assert!(p.binary && !p.constant && p.present == 4);
        assert!((p.change_share - 2.0 / 3.0).abs() < 1e-9);
        let p = profile(&(0..101).map(f64::from).collect::<Vec<_>>()).unwrap();
        assert_eq!((p.min, p.median, p.max, p.p05, p.p95), (0.0, 50.0, 100.0, 5.0, 95.0));
        assert!(profile(&[f64::NAN]).is_none());
        assert!((outside_share(&[10.0, 20.0, 30.0, 40.0], Some(15.0), Some(35.0), 1.0, 0.0) - 0.5).abs() < 1e-9);
        let a: Vec<f64> = (0..48).map(|i| (i as f64 / 5.0).sin()).collect();
        let b: Vec<f64> = a.iter().map(|x| 2.0 * x + 1.0).collect();
        assert!((correlation(&a, &b).unwrap() - 1.0).abs() < 1e-9);
        assert!(correlation(&a[..10], &b[..10]).is_none());
    }
}
