//! `camber ingest`: a building's trend CSV into the store. Long CSV (`ts,equip,equip_class,
//! role,value[,unit]`) or wide CSV (a timestamp column and one column per point, with a
//! mapping file from column to equipment, class, role and unit). Times become the site's wall
//! clock (DST-correct); declared units become the stored ones; duplicates keep the last
//! reading; values that are not numbers are counted and dropped. Everything is checked before
//! anything is written, so a refused ingest writes nothing.

pub mod lines;
pub mod units;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

use jiff::tz::{AmbiguousOffset, TimeZone};
use serde_json::{json, Map, Value};

use camber_common::roles::{role, Kind};
use camber_common::text::is_invisible;
use camber_common::time::{days_from_civil, iso_from_ns};

use crate::parts::{LongRows, PointKey};
use crate::writer::Mode;
use units::{conversion, Convert};

/// Longest id, class or role the store accepts.
pub const MAX_ID_CHARS: usize = 200;

/// The two CSV shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Long,
    Wide,
}

/// What an ingest is asked to do.
#[derive(Clone, Debug)]
pub struct IngestOptions {
    pub facility: String,
    /// The site's IANA time zone.
    pub timezone: String,
    /// `None`: detect from the header.
    pub format: Option<Format>,
    /// Wide CSV: the column mapping (JSON or CSV).
    pub mapping: Option<std::path::PathBuf>,
    /// Declared units per role (long CSV without a unit column).
    pub units: BTreeMap<String, String>,
    pub mode: Mode,
    pub name: Option<String>,
    /// Show a progress bar (only on a terminal).
    pub progress: bool,
    pub lock_timeout: Duration,
}

/// What an ingest read, kept and dropped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    pub rows_read: usize,
    pub rows_stored: usize,
    /// Why rows were dropped, and how many each.
    pub dropped: BTreeMap<String, usize>,
    pub points: usize,
    pub equipment: usize,
    pub first: Option<i64>,
    pub last: Option<i64>,
    /// Roles the analytics do not know (stored as given).
    pub unknown_roles: Vec<String>,
    /// Wide CSV columns the mapping does not name (ignored).
    pub unmapped_columns: Vec<String>,
    /// Rows the facility holds after the write.
    pub facility_rows: usize,
    /// What the writer repaired on opening the store.
    pub repaired: Vec<String>,
}

impl Report {
    fn drop(&mut self, why: &str) {
        *self.dropped.entry(why.to_string()).or_default() += 1;
    }

    /// The summary a person reads.
    pub fn summary(&self, facility: &str, timezone: &str) -> String {
        let span = match (self.first, self.last) {
            (Some(a), Some(b)) => format!("{} to {}", iso_from_ns(a), iso_from_ns(b)),
            _ => "no samples".into(),
        };
        let mut out = format!(
            "ingested {} of {} rows into facility '{facility}' ({timezone}): {} points on {} equipment, {span}",
            thousands(self.rows_stored),
            thousands(self.rows_read),
            self.points,
            self.equipment
        );
        if self.facility_rows != self.rows_stored {
            out.push_str(&format!("; the facility now holds {} rows", thousands(self.facility_rows)));
        }
        if !self.dropped.is_empty() {
            let parts: Vec<String> = self.dropped.iter().map(|(k, v)| format!("{} {k}", thousands(*v))).collect();
            out.push_str(&format!("\ndropped: {}", parts.join(", ")));
        }
        if !self.unknown_roles.is_empty() {
            out.push_str(&format!(
                "\nroles the analytics do not know (stored as given): {}",
                self.unknown_roles.join(", ")
            ));
        }
        if !self.unmapped_columns.is_empty() {
            out.push_str(&format!(
                "\ncolumns the mapping does not name (ignored): {}",
                self.unmapped_columns.join(", ")
            ));
        }
        for r in &self.repaired {
            out.push_str(&format!("\nrepaired: {r}"));
        }
        out
    }
}

fn thousands(n: usize) -> String {
    camber_common::text::thousands(n)
}

/// Why an id, class or role is refused, if it is.
pub fn check_name(what: &str, s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if s.chars().count() > MAX_ID_CHARS {
        return Err(format!("{what} is longer than {MAX_ID_CHARS} characters"));
    }
    if s.chars().any(|c| c.is_control()) {
        return Err(format!("{what} \"{}\" holds a control character", camber_common::text::one_line(s)));
    }
    if s.chars().any(|c| is_invisible(c) || matches!(c, '\u{2028}' | '\u{2029}')) {
        return Err(format!(
            "{what} \"{}\" holds an invisible or bidirectional-control character",
            camber_common::text::one_line(s)
        ));
    }
    if s.contains(['/', '\\']) {
        return Err(format!("{what} \"{s}\" holds a path separator"));
    }
    Ok(())
}

/// A parsed time stamp: naive civil nanoseconds and the offset it carried, if any.
pub fn parse_stamp(s: &str) -> Option<(i64, Option<i32>)> {
    let b = s.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v: i64 = 0;
        for &c in b.get(r)? {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as i64;
        }
        Some(v)
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)? as u32, num(8..10)? as u32);
    if !(1..=12).contains(&mo) || d == 0 || d > 31 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    if camber_common::time::civil_from_days(days) != (y, mo, d) {
        return None;
    }
    // a year nanoseconds cannot count is no time at all (checked: it must not wrap)
    let mut ns = days.checked_mul(86_400_000_000_000)?;
    let mut i = 10;
    if i < b.len() && (b[i] == b'T' || b[i] == b' ') {
        i += 1;
        let hh = num(i..i + 2)?;
        if b.get(i + 2) != Some(&b':') {
            return None;
        }
        let mm = num(i + 3..i + 5)?;
        i += 5;
        let mut ss = 0;
        if b.get(i) == Some(&b':') {
            ss = num(i + 1..i + 3)?;
            i += 3;
        }
        if hh > 23 || mm > 59 || ss > 60 {
            return None;
        }
        ns = ns.checked_add((hh * 3600 + mm * 60 + ss) * 1_000_000_000)?;
        if b.get(i) == Some(&b'.') || b.get(i) == Some(&b',') {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j == start {
                return None;
            }
            let digits = &s.trim()[start..j.min(start + 9)];
            ns = ns.checked_add(format!("{digits:0<9}").parse::<i64>().ok()?)?;
            i = j;
        }
    }
    let offset = match b.get(i) {
        None => None,
        Some(b'Z') | Some(b'z') if i + 1 == b.len() => Some(0),
        Some(&c) if c == b'+' || c == b'-' => {
            let rest = &s.trim()[i + 1..];
            let digits: String = rest.chars().filter(|c| *c != ':').collect();
            if !(digits.len() == 2 || digits.len() == 4) || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let h: i32 = digits[..2].parse().ok()?;
            let m: i32 = if digits.len() == 4 { digits[2..].parse().ok()? } else { 0 };
            // real offsets run from -12:00 to +14:00; nothing past 18 hours is one
            if m > 59 || h * 60 + m > 18 * 60 {
                return None;
            }
            let secs = h * 3600 + m * 60;
            Some(if c == b'-' { -secs } else { secs })
        }
        _ => return None,
    };
    Some((ns, offset))
}

/// Whether a stamp that did not parse starts with a year a store cannot hold (such as
/// 9999-12-31, past what nanoseconds count), so it is counted for what it is.
fn year_outside_store(raw: &str) -> bool {
    let b = raw.trim().as_bytes();
    b.len() >= 5 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && {
        let y: u32 = raw.trim()[..4].parse().unwrap_or(0);
        !(1700..2200).contains(&y)
    }
}

/// Turns stamps into the site's wall clock, remembering the last answer (consecutive rows
/// usually share a stamp).
struct Clock {
    tz: TimeZone,
    last: Option<(Vec<u8>, Result<i64, &'static str>)>,
}

/// Why a stamp is dropped.
const GAP: &str = "in the spring-forward gap (a local time that does not exist)";
const REPEAT: &str = "second readings of the repeated autumn hour (the first is kept)";
const BAD_TIME: &str = "unreadable timestamps";
const OUT_OF_RANGE: &str = "timestamps outside the years 1700 to 2199";

impl Clock {
    fn local(&mut self, raw: &[u8]) -> Result<i64, &'static str> {
        if let Some((s, r)) = &self.last {
            if s.as_slice() == raw {
                return *r;
            }
        }
        let r = std::str::from_utf8(raw).map_err(|_| BAD_TIME).and_then(|s| self.convert(s));
        match &mut self.last {
            Some((s, last)) => {
                s.clear();
                s.extend_from_slice(raw);
                *last = r;
            }
            None => self.last = Some((raw.to_vec(), r)),
        }
        r
    }

    fn civil(ns: i64) -> Option<jiff::civil::DateTime> {
        let secs = ns.div_euclid(1_000_000_000);
        let sub = ns.rem_euclid(1_000_000_000) as i32;
        let (y, m, d) = camber_common::time::civil_from_days(secs.div_euclid(86_400));
        let sod = secs.rem_euclid(86_400);
        jiff::civil::DateTime::new(
            y as i16,
            m as i8,
            d as i8,
            (sod / 3600) as i8,
            ((sod % 3600) / 60) as i8,
            (sod % 60) as i8,
            sub,
        )
        .ok()
    }

    fn convert(&self, raw: &str) -> Result<i64, &'static str> {
        let (civil_ns, offset) =
            parse_stamp(raw).ok_or(if year_outside_store(raw) { OUT_OF_RANGE } else { BAD_TIME })?;
        if !camber_common::time::storable(civil_ns) {
            return Err(OUT_OF_RANGE);
        }
        match offset {
            None => {
                let dt = Self::civil(civil_ns).ok_or(BAD_TIME)?;
                match self.tz.to_ambiguous_timestamp(dt).offset() {
                    AmbiguousOffset::Gap { .. } => Err(GAP),
                    _ => Ok(civil_ns),
                }
            }
            Some(off) => {
                let instant_ns = civil_ns - off as i64 * 1_000_000_000;
                let ts = jiff::Timestamp::from_nanosecond(instant_ns as i128).map_err(|_| BAD_TIME)?;
                let local_off = self.tz.to_offset(ts).seconds() as i64;
                let local_ns = instant_ns + local_off * 1_000_000_000;
                if !camber_common::time::storable(local_ns) {
                    return Err(OUT_OF_RANGE);
                }
                let dt = Self::civil(local_ns).ok_or(BAD_TIME)?;
                if let AmbiguousOffset::Fold { before, .. } = self.tz.to_ambiguous_timestamp(dt).offset() {
                    // the same wall-clock time happens twice: keep the first (the earlier offset)
                    if before.seconds() as i64 != local_off {
                        return Err(REPEAT);
                    }
                }
                Ok(local_ns)
            }
        }
    }
}

/// One mapped column of a wide CSV.
#[derive(Clone, Debug)]
struct ColumnMap {
    key: PointKey,
    unit: String,
}

/// A wide CSV's mapping: the timestamp column and each data column's point.
#[derive(Clone, Debug, Default)]
struct Mapping {
    timestamp: Option<String>,
    columns: BTreeMap<String, ColumnMap>,
}

fn read_mapping(path: &Path) -> Result<Mapping, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("the mapping file cannot be read ({})", e.kind()))?;
    let mut m = Mapping::default();
    if text.trim_start().starts_with('{') {
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("the mapping file is not valid JSON: {e}"))?;
        m.timestamp = v.get("timestamp").and_then(Value::as_str).map(str::to_string);
        let cols = v.get("columns").and_then(Value::as_object).ok_or("the mapping file has no \"columns\" object")?;
        for (col, spec) in cols {
            let get = |k: &str| spec.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
            let key = PointKey { equip: get("equip"), equip_class: get("equip_class"), role: get("role") };
            m.columns.insert(col.clone(), ColumnMap { key, unit: get("unit") });
        }
    } else {
        let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
        let headers = r.headers().map_err(|e| format!("the mapping CSV cannot be read: {e}"))?.clone();
        let idx = |n: &str| headers.iter().position(|h| h.trim() == n);
        let (c, e, k, ro) = match (idx("column"), idx("equip"), idx("equip_class"), idx("role")) {
            (Some(c), Some(e), Some(k), Some(r)) => (c, e, k, r),
            _ => {
                return Err(
                    "the mapping CSV needs the columns column, equip, equip_class and role (and optionally unit)"
                        .into(),
                )
            }
        };
        let u = idx("unit");
        for rec in r.records() {
            let rec = rec.map_err(|e| format!("the mapping CSV cannot be read: {e}"))?;
            let f = |i: usize| rec.get(i).unwrap_or_default().trim().to_string();
            let key = PointKey { equip: f(e), equip_class: f(k), role: f(ro) };
            m.columns.insert(f(c), ColumnMap { key, unit: u.map(f).unwrap_or_default() });
        }
    }
    if m.columns.is_empty() {
        return Err("the mapping names no column".into());
    }
    Ok(m)
}

/// Parse a reading for a role: a number, or for an on/off role a word such as `on`.
fn parse_value(raw: &str, kind: Option<Kind>) -> Result<Option<f64>, ()> {
    let s = raw.trim();
    if s.is_empty() {
        return Ok(None);
    }
    if let Ok(v) = s.parse::<f64>() {
        return if v.is_finite() { Ok(Some(v)) } else { Err(()) };
    }
    if kind == Some(Kind::Status) {
        match s.to_ascii_lowercase().as_str() {
            "on" | "true" | "yes" | "run" | "running" | "active" => return Ok(Some(1.0)),
            "off" | "false" | "no" | "stop" | "stopped" | "inactive" => return Ok(Some(0.0)),
            _ => {}
        }
    }
    Err(())
}

/// A cell's reading in the stored unit, or `None` (counted in the report) when it is empty or
/// not a number.
fn reading(raw: &str, kind: Option<Kind>, convert: Convert, report: &mut Report) -> Option<f64> {
    match parse_value(raw, kind) {
        Ok(Some(v)) => Some(convert.apply(v)),
        Ok(None) => {
            report.drop("empty values");
            None
        }
        Err(()) => {
            report.drop("values that are not numbers");
            None
        }
    }
}

/// Everything known about one point while parsing.
struct PointInfo {
    id: u32,
    convert: Convert,
    kind: Option<Kind>,
}

/// Parse a CSV into rows in stored order, or refuse it with a one-line reason that names the
/// line. Writes nothing.
pub fn parse<R: Read>(input: R, size_hint: u64, opts: &IngestOptions) -> Result<(LongRows, Report), String> {
    let tz = TimeZone::get(&opts.timezone)
        .map_err(|_| format!("unknown time zone '{}': use an IANA name such as America/Chicago", opts.timezone))?;
    let mut clock = Clock { tz, last: None };
    let mut rdr =
        csv::ReaderBuilder::new().flexible(true).buffer_capacity(1 << 20).from_reader(lines::CsvBytes::new(input));
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| format!("the CSV cannot be read: {e}"))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let find = |names: &[&str]| headers.iter().position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)));
    let long_cols = (
        find(&["ts", "timestamp", "time"]),
        find(&["equip", "equipment"]),
        find(&["equip_class", "class"]),
        find(&["role"]),
        find(&["value"]),
    );
    let format = match opts.format {
        Some(f) => f,
        None if long_cols.1.is_some() && long_cols.3.is_some() && long_cols.4.is_some() => Format::Long,
        None => Format::Wide,
    };
    let mut rows = LongRows::default();
    let mut report = Report::default();
    let mut points: HashMap<PointKey, PointInfo> = HashMap::new();
    let mut classes: HashMap<String, (String, u64)> = HashMap::new();
    let mut unknown_roles: BTreeSet<String> = BTreeSet::new();

    // register a point on first sight, checking its names, class and unit
    let mut point_for =
        |key: PointKey, unit: &str, line: u64, rows: &mut LongRows| -> Result<(u32, Convert, Option<Kind>), String> {
            if let Some(p) = points.get(&key) {
                return Ok((p.id, p.convert, p.kind));
            }
            check_name("equipment id", &key.equip).map_err(|e| format!("line {line}: {e}"))?;
            check_name("equipment class", &key.equip_class).map_err(|e| format!("line {line}: {e}"))?;
            check_name("role", &key.role).map_err(|e| format!("line {line}: {e}"))?;
            match classes.get(&key.equip) {
                Some((c, l)) if *c != key.equip_class => {
                    return Err(format!(
                        "line {line}: equipment \"{}\" has class \"{}\" here but \"{c}\" on line {l}",
                        key.equip, key.equip_class
                    ))
                }
                Some(_) => {}
                None => {
                    classes.insert(key.equip.clone(), (key.equip_class.clone(), line));
                }
            }
            let declared =
                if unit.is_empty() { opts.units.get(&key.role).map(String::as_str).unwrap_or("") } else { unit };
            let convert = conversion(&key.role, declared).map_err(|e| format!("line {line}: {e}"))?;
            let kind = role(&key.role).map(|r| r.kind);
            if kind.is_none() {
                unknown_roles.insert(key.role.clone());
            }
            let id = rows.intern(&key);
            points.insert(key, PointInfo { id, convert, kind });
            Ok((id, convert, kind))
        };

    let progress = progress_bar(opts.progress, size_hint);
    let mut record = csv::StringRecord::new();
    match format {
        Format::Long => {
            let (Some(ti), Some(ei), Some(ri), Some(vi)) = (long_cols.0, long_cols.1, long_cols.3, long_cols.4) else {
                return Err("a long CSV needs the columns ts, equip, equip_class, role and value".into());
            };
            let ci = long_cols.2.ok_or("a long CSV needs the columns ts, equip, equip_class, role and value")?;
            let ui = find(&["unit", "units"]);
            // bytes, not strings: a row's text is checked as UTF-8 only where it is new (a point
            // not seen on the row before) or parsed (the value, the stamp)
            let mut brec = csv::ByteRecord::new();
            let mut last_key: Option<[Vec<u8>; 4]> = None;
            let mut last_point: (u32, Convert, Option<Kind>) = (0, Convert::IDENTITY, None);
            while rdr.read_byte_record(&mut brec).map_err(|e| format!("the CSV cannot be read: {e}"))? {
                report.rows_read += 1;
                if report.rows_read % 65_536 == 0 {
                    if let (Some(pb), Some(p)) = (&progress, brec.position()) {
                        pb.set_position(p.byte());
                    }
                }
                let f = |i: usize| brec.get(i).unwrap_or_default();
                let (e, c, r, u) = (
                    f(ei).trim_ascii(),
                    f(ci).trim_ascii(),
                    f(ri).trim_ascii(),
                    ui.map(f).unwrap_or_default().trim_ascii(),
                );
                let same = last_key.as_ref().is_some_and(|k| k[0] == e && k[1] == c && k[2] == r && k[3] == u);
                if !same {
                    let line = brec.position().map(|p| p.line()).unwrap_or(0);
                    let text = |b: &[u8]| -> Result<String, String> {
                        String::from_utf8(b.to_vec()).map_err(|_| format!("line {line}: the text is not UTF-8"))
                    };
                    let key = PointKey { equip: text(e)?, equip_class: text(c)?, role: text(r)? };
                    last_point = point_for(key, &text(u)?, line, &mut rows)?;
                    last_key = Some([e.to_vec(), c.to_vec(), r.to_vec(), u.to_vec()]);
                }
                let (pid, convert, kind) = last_point;
                let Ok(raw_value) = std::str::from_utf8(f(vi)) else {
                    report.drop("values that are not numbers");
                    continue;
                };
                let Some(value) = reading(raw_value, kind, convert, &mut report) else { continue };
                let ts = match clock.local(f(ti)) {
                    Ok(t) => t,
                    Err(why) => {
                        report.drop(why);
                        continue;
                    }
                };
                rows.push(ts, pid, value);
            }
        }
        Format::Wide => {
            let mapping = match &opts.mapping {
                Some(p) => read_mapping(p)?,
                None => return Err("a wide CSV needs --mapping FILE (column -> equip, equip_class, role, unit); a long CSV needs the columns ts, equip, equip_class, role and value".into()),
            };
            let ti = match &mapping.timestamp {
                Some(t) => headers
                    .iter()
                    .position(|h| h == t)
                    .ok_or_else(|| format!("the timestamp column '{t}' is not in the CSV"))?,
                None => 0,
            };
            let mut cols: Vec<(usize, u32, Convert, Option<Kind>)> = Vec::new();
            for (i, h) in headers.iter().enumerate() {
                if i == ti {
                    continue;
                }
                match mapping.columns.get(h) {
                    Some(cm) => {
                        let (id, convert, kind) = point_for(cm.key.clone(), &cm.unit, 1, &mut rows)
                            .map_err(|e| format!("{e} (column '{h}')"))?;
                        cols.push((i, id, convert, kind));
                    }
                    None => report.unmapped_columns.push(h.clone()),
                }
            }
            let missing: Vec<&String> = mapping.columns.keys().filter(|c| !headers.contains(c)).collect();
            if !missing.is_empty() {
                return Err(format!(
                    "the mapping names columns the CSV does not have: {}",
                    missing.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ")
                ));
            }
            if cols.is_empty() {
                return Err("no CSV column is named in the mapping".into());
            }
            while rdr.read_record(&mut record).map_err(|e| format!("the CSV cannot be read: {e}"))? {
                let ts = clock.local(record.get(ti).unwrap_or_default().as_bytes());
                if report.rows_read % 8192 == 0 {
                    if let (Some(pb), Some(p)) = (&progress, record.position()) {
                        pb.set_position(p.byte());
                    }
                }
                for &(i, pid, convert, kind) in &cols {
                    report.rows_read += 1;
                    let Some(value) = reading(record.get(i).unwrap_or_default(), kind, convert, &mut report) else {
                        continue;
                    };
                    match ts {
                        Ok(t) => rows.push(t, pid, value),
                        Err(why) => report.drop(why),
                    }
                }
            }
        }
    }
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    if rows.is_empty() {
        return Err(format!(
            "no row could be stored ({} read){}",
            report.rows_read,
            if report.dropped.is_empty() {
                String::new()
            } else {
                format!(": {}", report.dropped.iter().map(|(k, v)| format!("{v} {k}")).collect::<Vec<_>>().join(", "))
            }
        ));
    }
    let dedup = rows.finish();
    if dedup.duplicates > 0 {
        *report.dropped.entry("duplicate readings (the last one kept)".into()).or_default() += dedup.duplicates;
    }
    report.rows_stored = rows.len();
    report.points = rows.points.len();
    report.equipment = rows.points.iter().map(|p| &p.equip).collect::<BTreeSet<_>>().len();
    report.first = rows.ts.first().copied();
    report.last = rows.ts.last().copied();
    report.unknown_roles = unknown_roles.into_iter().collect();
    Ok((rows, report))
}

fn progress_bar(wanted: bool, size: u64) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !wanted || !std::io::stderr().is_terminal() || size == 0 {
        return None;
    }
    let pb = indicatif::ProgressBar::new(size);
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("reading {bar:40} {percent:>3}% {bytes}/{total_bytes} ({eta})")
    {
        pb.set_style(style);
    }
    Some(pb)
}

/// Ingest a CSV file into the store: parse and check everything, then write the facility in
/// one swap. Returns the report.
pub fn ingest(store: &Path, csv_path: &Path, opts: &IngestOptions) -> Result<Report, String> {
    // what can be refused without reading the CSV or taking the store lock is refused first
    if let Some(n) = &opts.name {
        check_name("display name", n)?;
    }
    crate::bucket_writer::check_write(store, &opts.facility, opts.mode)?;
    let file = std::fs::File::open(csv_path).map_err(|e| format!("the CSV cannot be opened ({})", e.kind()))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let (rows, mut report) = parse(std::io::BufReader::with_capacity(1 << 20, file), size, opts)?;
    let mut entry = Map::new();
    entry.insert("timezone".into(), json!(opts.timezone));
    if let Some(n) = &opts.name {
        entry.insert("name".into(), json!(n));
    }
    entry.insert(
        "ingest".into(),
        json!({
            "source": csv_path.file_name().map(|n| n.to_string_lossy().into_owned()),
            "rows": report.rows_stored,
            "dropped": report.dropped,
            "units": opts.units,
            "at": camber_common::ids::utc_now(),
        }),
    );
    let mut w = crate::bucket_writer::open(store, opts.lock_timeout)?;
    report.repaired = w.take_repaired();
    let outcome = w.write_facility(&opts.facility, &rows, opts.mode, entry)?;
    report.facility_rows = outcome.rows;
    Ok(report)
}

#[cfg(test)]
mod tests;
