//! Project Haystack point grids (Zinc, JSON) read into a [`crate::model::Model`].
//!
//! Three encodings are read: Zinc (a small hand-written reader), Haystack JSON v3 (`m:`, `r:id dis`,
//! `n:72 °F`, ...) and Hayson (`{"_kind": "marker"}`, ...), including a bare JSON array of rows.
//! Every row is an entity; rows with the `equip` marker (or a weather station) are equipment, rows
//! with `point` are points. A point's role comes from its marker tags through a table of tag sets
//! written in Haystack 3 words, with the Haystack 4 spellings read as synonyms.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Display;

use serde_json::Value as Json;

use crate::model::{Feed, Model, ModelEquip, ModelPoint};

/// Reads a Haystack grid (Zinc, JSON v3 or Hayson, detected from the text) into a [`Model`] with
/// `source` `"haystack"`. Errors are one line: a text that is not valid Zinc or JSON, or a grid
/// that names no points.
pub fn read_haystack(text: &str) -> Result<Model, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let start = text.trim_start();
    let rows = if start.starts_with('{') || start.starts_with('[') { json_rows(start)? } else { zinc_rows(text)? };
    build(&rows)
}

// ---------------------------------------------------------------------------------------------
// Values and entities

/// One Haystack value, reduced to what the mapping needs.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Marker,
    Bool(bool),
    Null,
    Na,
    Remove,
    Str(String),
    /// A ref id (without `@`) and its display name.
    Ref(String, Option<String>),
    Num(f64, Option<String>),
    Uri(String),
    Symbol(String),
    /// Anything kept only as text or skipped: dates, times, lists, dicts, grids, typed values.
    Other(String),
}

impl Val {
    fn is_marker(&self) -> bool {
        match self {
            Val::Marker | Val::Bool(true) => true,
            Val::Str(s) => s == "M" || s == "✓",
            _ => false,
        }
    }

    fn reference(&self) -> Option<(String, Option<String>)> {
        match self {
            Val::Ref(id, dis) => {
                let id = id.trim_start_matches('@').trim();
                let dis = dis.as_deref().map(str::trim).filter(|d| !d.is_empty()).map(String::from);
                (!id.is_empty()).then(|| (id.to_string(), dis))
            }
            Val::Str(s) => {
                let rest = s.trim().strip_prefix('@')?;
                let (id, dis) = rest.split_once(' ').unwrap_or((rest, ""));
                let dis = dis.trim().trim_matches('"').trim();
                (!id.is_empty()).then(|| (id.to_string(), (!dis.is_empty()).then(|| dis.to_string())))
            }
            _ => None,
        }
    }
}

/// A row: tag names and values in the order the grid gives them (null cells left out).
#[derive(Clone, Debug, Default, PartialEq)]
struct Entity {
    tags: Vec<(String, Val)>,
}

/// Tags that say what an entity is or where it sits, not what a point measures.
const STRUCTURAL: &[&str] = &[
    "id",
    "dis",
    "navName",
    "disMacro",
    "point",
    "his",
    "equip",
    "site",
    "space",
    "floor",
    "cur",
    "writable",
    "kind",
    "unit",
    "tz",
    "curVal",
    "curStatus",
    "curErr",
    "hisURI",
    "hisId",
    "hisEnd",
    "hisStart",
    "hisSize",
    "hisMode",
    "hisCollectCov",
    "hisCollectInterval",
    "hisTotalized",
    "aux",
    "trash",
    "mod",
    "equipRef",
    "siteRef",
    "spaceRef",
    "floorRef",
    "ahuRef",
    "airRef",
    "weatherRef",
    "weatherStationRef",
    "chilledWaterRef",
    "hotWaterRef",
    "chilledWaterPlantRef",
    "hotWaterPlantRef",
    "elecMeterRef",
    "connRef",
    "bacnetCur",
    "bacnetWrite",
    "bacnetHis",
    "minVal",
    "maxVal",
    "precision",
    "enum",
    "geoAddr",
    "geoCoord",
    "area",
];

impl Entity {
    fn get(&self, name: &str) -> Option<&Val> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    fn marker(&self, name: &str) -> bool {
        self.get(name).is_some_and(Val::is_marker)
    }

    fn string(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Val::Str(s)) => Some(s.trim()).filter(|s| !s.is_empty()),
            _ => None,
        }
    }

    fn reference(&self, name: &str) -> Option<(String, Option<String>)> {
        self.get(name).and_then(Val::reference)
    }

    /// The marker tags that describe the entity, in the grid's order.
    fn markers(&self) -> Vec<&str> {
        self.tags
            .iter()
            .filter(|(k, v)| v.is_marker() && !STRUCTURAL.contains(&k.as_str()))
            .map(|(k, _)| k.as_str())
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Zinc

fn zinc_err(line: usize, msg: impl Display) -> String {
    format!("the Haystack grid is not valid Zinc (line {line}: {msg})")
}

fn is_ref_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-' | '.' | '~')
}

fn is_unit_char(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '%' | '_' | '/' | '$') || !c.is_ascii()
}

struct Zinc {
    s: Vec<char>,
    i: usize,
    line: usize,
}

impl Zinc {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn at(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn err(&self, msg: impl Display) -> String {
        zinc_err(self.line, msg)
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the text".to_string(),
            Some('\n') => "the end of the line".to_string(),
            Some(c) => format!("{c:?}"),
        }
    }

    fn spaces(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.i += 1;
        }
    }

    fn at_eol(&self) -> bool {
        matches!(self.peek(), None | Some('\n'))
    }

    /// Takes characters while `f` holds (never a newline).
    fn take(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' || !f(c) {
                break;
            }
            out.push(c);
            self.i += 1;
        }
        out
    }

    fn ident(&mut self) -> Option<String> {
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                Some(self.take(|c| c.is_ascii_alphanumeric() || c == '_'))
            }
            _ => None,
        }
    }

    /// A tag of grid or column meta: `name` or `name:value`.
    fn meta_tag(&mut self) -> Result<(), String> {
        if self.ident().is_none() {
            return Err(self.err(format!("expected a tag name, found {}", self.found())));
        }
        if self.peek() == Some(':') {
            self.bump();
            self.value()?;
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Val, String> {
        let Some(c) = self.peek() else { return Err(self.err("expected a value, found the end of the text")) };
        match c {
            '"' => Ok(Val::Str(self.quoted('"')?)),
            '`' => Ok(Val::Uri(self.quoted('`')?)),
            '@' => {
                self.bump();
                let id = self.take(is_ref_char);
                if id.is_empty() {
                    return Err(self.err("an @ with no ref id after it"));
                }
                let (i, line) = (self.i, self.line);
                self.spaces();
                let dis = if self.peek() == Some('"') {
                    Some(self.quoted('"')?)
                } else {
                    (self.i, self.line) = (i, line);
                    None
                };
                Ok(Val::Ref(id, dis))
            }
            '^' => {
                self.bump();
                let sym = self.take(is_ref_char);
                if sym.is_empty() {
                    return Err(self.err("a ^ with no symbol after it"));
                }
                Ok(Val::Symbol(sym))
            }
            '[' | '{' => {
                self.skip_nested()?;
                Ok(Val::Other(if c == '[' { "list" } else { "dict" }.to_string()))
            }
            '<' if self.at(1) == Some('<') => {
                self.skip_nested()?;
                Ok(Val::Other("grid".to_string()))
            }
            '-' if self.at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
            '-' if (self.at(1), self.at(2), self.at(3)) == (Some('I'), Some('N'), Some('F')) => {
                self.i += 4;
                Ok(Val::Num(f64::NEG_INFINITY, None))
            }
            d if d.is_ascii_digit() => self.number(),
            a if a.is_ascii_alphabetic() => {
                let word = self.take(|c| c.is_ascii_alphanumeric() || c == '_');
                if self.peek() == Some('(') {
                    self.skip_nested()?;
                    return Ok(Val::Other(word));
                }
                match word.as_str() {
                    "M" => Ok(Val::Marker),
                    "T" => Ok(Val::Bool(true)),
                    "F" => Ok(Val::Bool(false)),
                    "N" => Ok(Val::Null),
                    "NA" => Ok(Val::Na),
                    "R" => Ok(Val::Remove),
                    "NaN" => Ok(Val::Num(f64::NAN, None)),
                    "INF" => Ok(Val::Num(f64::INFINITY, None)),
                    _ => Err(self.err(format!("unknown value {word:?}"))),
                }
            }
            c => Err(self.err(format!("unexpected {c:?} where a value should be"))),
        }
    }

    /// A quoted string or URI (`q` is `"` or a backtick), with its escapes decoded.
    fn quoted(&mut self, q: char) -> Result<String, String> {
        self.bump();
        let mut out = String::new();
        loop {
            let c = match self.peek() {
                None | Some('\n') => return Err(self.err("a quoted string is not closed on its line")),
                Some(c) => c,
            };
            self.bump();
            if c == q {
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = match self.peek() {
                None | Some('\n') => return Err(self.err("a quoted string is not closed on its line")),
                Some(e) => e,
            };
            self.bump();
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                '"' | '\\' | '$' | '`' => out.push(e),
                'u' => {
                    let mut v = 0u32;
                    for _ in 0..4 {
                        let d = self.peek().and_then(|c| c.to_digit(16));
                        let Some(d) = d else { return Err(self.err("\\u needs four hex digits")) };
                        self.bump();
                        v = v * 16 + d;
                    }
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
                other if q == '`' => {
                    out.push('\\');
                    out.push(other);
                }
                other => return Err(self.err(format!("unknown escape \\{}", other.escape_debug()))),
            }
        }
    }

    /// A number with an optional unit, or a date, time or date-time (kept as text).
    fn number(&mut self) -> Result<Val, String> {
        let neg = self.peek() == Some('-');
        if neg {
            self.i += 1;
        }
        let digits = self.s.get(self.i..).unwrap_or(&[]).iter().take_while(|c| c.is_ascii_digit()).count();
        let next = self.at(digits);
        if !neg && digits == 4 && next == Some('-') {
            let mut text = self.take(|c| c.is_ascii_digit() || matches!(c, '-' | ':' | '.' | 'T' | 'Z' | '+'));
            if text.contains('T') && self.peek() == Some(' ') && self.at(1).is_some_and(|c| c.is_ascii_alphabetic()) {
                self.i += 1;
                text.push(' ');
                text += &self.take(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/'));
            }
            return Ok(Val::Other(text));
        }
        if !neg && digits == 2 && next == Some(':') {
            return Ok(Val::Other(self.take(|c| c.is_ascii_digit() || c == ':' || c == '.')));
        }
        if !neg && self.peek() == Some('0') && self.at(1) == Some('x') {
            self.i += 2;
            let hex = self.take(|c| c.is_ascii_hexdigit() || c == '_').replace('_', "");
            let v = u64::from_str_radix(&hex, 16).map_err(|_| self.err("a hex number with no digits"))?;
            return Ok(Val::Num(v as f64, None));
        }
        let mut text = String::from(if neg { "-" } else { "" });
        text += &self.take(|c| c.is_ascii_digit() || c == '_');
        if self.peek() == Some('.') && self.at(1).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
            text.push('.');
            text += &self.take(|c| c.is_ascii_digit() || c == '_');
        }
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let sign = |c: Option<char>| matches!(c, Some('+' | '-'));
        if matches!(self.peek(), Some('e' | 'E')) && (digit(self.at(1)) || (sign(self.at(1)) && digit(self.at(2)))) {
            self.i += 1;
            text.push('e');
            if sign(self.peek()) {
                text.extend(self.bump());
            }
            text += &self.take(|c| c.is_ascii_digit());
        }
        let v: f64 = text.replace('_', "").parse().map_err(|_| self.err(format!("{text:?} is not a number")))?;
        let unit = self.take(is_unit_char);
        Ok(Val::Num(v, (!unit.is_empty()).then_some(unit)))
    }

    /// Skips a list, dict, nested grid or typed value `Name(..)`, which may span lines.
    fn skip_nested(&mut self) -> Result<(), String> {
        let line = self.line;
        let mut open: Vec<char> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(zinc_err(line, "a [, {, ( or << is not closed before the end of the text"));
            };
            match c {
                '"' | '`' => {
                    self.quoted(c)?;
                    continue;
                }
                '[' => open.push(']'),
                '{' => open.push('}'),
                '(' => open.push(')'),
                '<' if self.at(1) == Some('<') => {
                    self.i += 2;
                    open.push('>');
                    continue;
                }
                '>' if self.at(1) == Some('>') && open.last() == Some(&'>') => {
                    self.i += 2;
                    open.pop();
                    if open.is_empty() {
                        return Ok(());
                    }
                    continue;
                }
                ']' | '}' | ')' => {
                    if open.last() != Some(&c) {
                        return Err(self.err(format!("{c:?} closes nothing that is open")));
                    }
                    open.pop();
                    self.bump();
                    if open.is_empty() {
                        return Ok(());
                    }
                    continue;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// One row: `n` cells separated by commas, ending at a newline or the end of the text.
    fn row(&mut self, n: usize) -> Result<Vec<Val>, String> {
        let mut cells = Vec::with_capacity(n);
        loop {
            self.spaces();
            let v = if matches!(self.peek(), None | Some(',' | '\n')) { Val::Null } else { self.value()? };
            cells.push(v);
            self.spaces();
            match self.peek() {
                Some(',') => {
                    if cells.len() >= n {
                        return Err(self.err(format!("a row has more cells than the {n} columns")));
                    }
                    self.bump();
                }
                None => return Ok(cells),
                Some('\n') => {
                    self.bump();
                    return Ok(cells);
                }
                Some(c) => return Err(self.err(format!("unexpected {c:?} after a value"))),
            }
        }
    }
}

/// Reads a Zinc grid into its rows.
fn zinc_rows(text: &str) -> Result<Vec<Entity>, String> {
    let mut z = Zinc { s: text.chars().collect(), i: 0, line: 1 };
    loop {
        z.spaces();
        if z.peek() != Some('\n') {
            break;
        }
        z.bump();
    }
    if z.ident().as_deref() != Some("ver") || z.peek() != Some(':') {
        return Err(z.err("a Zinc grid starts with ver:\"3.0\""));
    }
    z.bump();
    if !matches!(z.value()?, Val::Str(_)) {
        return Err(z.err("the version after ver: must be a quoted string"));
    }
    loop {
        z.spaces();
        if z.at_eol() {
            break;
        }
        z.meta_tag()?;
    }
    if z.bump().is_none() {
        return Err(z.err("the grid has no line of column names"));
    }
    let mut cols: Vec<String> = Vec::new();
    'cols: loop {
        z.spaces();
        let Some(name) = z.ident() else {
            return Err(z.err(format!("expected a column name, found {}", z.found())));
        };
        cols.push(name);
        loop {
            z.spaces();
            match z.peek() {
                Some(',') => {
                    z.bump();
                    continue 'cols;
                }
                None | Some('\n') => break 'cols,
                _ => z.meta_tag()?,
            }
        }
    }
    let mut rows = Vec::new();
    loop {
        z.spaces();
        match z.peek() {
            None => break,
            Some('\n') => {
                z.bump();
                continue;
            }
            _ => {}
        }
        let cells = z.row(cols.len())?;
        let tags = cols
            .iter()
            .zip(cells)
            .filter(|(_, v)| !matches!(v, Val::Null | Val::Na | Val::Remove))
            .map(|(k, v)| (k.clone(), v))
            .collect();
        rows.push(Entity { tags });
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------------------------
// JSON v3 and Hayson

/// Reads Haystack JSON (a v3 or Hayson grid, or a bare array of row objects) into its rows.
fn json_rows(text: &str) -> Result<Vec<Entity>, String> {
    let doc: Json = serde_json::from_str(text).map_err(|e| format!("the Haystack grid is not valid JSON ({e})"))?;
    let rows = match &doc {
        Json::Array(rows) => rows,
        Json::Object(grid) => match grid.get("rows") {
            Some(Json::Array(rows)) => rows,
            _ => return Err("the Haystack JSON is not a grid: it has no \"rows\" array".to_string()),
        },
        _ => return Err("the Haystack JSON is neither a grid nor an array of rows".to_string()),
    };
    let hayson = doc.get("_kind").is_some()
        || rows.iter().filter_map(Json::as_object).any(|row| row.values().any(|v| v.get("_kind").is_some()));
    let mut out = Vec::with_capacity(rows.len());
    for (n, row) in rows.iter().enumerate() {
        let Json::Object(row) = row else {
            return Err(format!("row {} of the Haystack JSON is not an object", n + 1));
        };
        let tags = row
            .iter()
            .map(|(k, v)| (k.clone(), json_val(v, hayson)))
            .filter(|(_, v)| !matches!(v, Val::Null | Val::Na | Val::Remove))
            .collect();
        out.push(Entity { tags });
    }
    Ok(out)
}

fn special_number(s: &str) -> f64 {
    match s.trim() {
        "INF" => f64::INFINITY,
        "-INF" => f64::NEG_INFINITY,
        s => s.parse().unwrap_or(f64::NAN),
    }
}

fn json_val(v: &Json, hayson: bool) -> Val {
    let text = |v: Option<&Json>| v.and_then(Json::as_str).map(String::from);
    match v {
        Json::Null => Val::Null,
        Json::Bool(b) => Val::Bool(*b),
        Json::Number(n) => Val::Num(n.as_f64().unwrap_or(f64::NAN), None),
        Json::String(s) if hayson => Val::Str(s.clone()),
        Json::String(s) => v3_string(s),
        Json::Array(_) => Val::Other("list".to_string()),
        Json::Object(o) => match o.get("_kind").and_then(Json::as_str) {
            Some("marker") => Val::Marker,
            Some("remove") => Val::Remove,
            Some("na") => Val::Na,
            Some("number") => {
                let val = match o.get("val") {
                    Some(Json::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
                    Some(Json::String(s)) => special_number(s),
                    _ => f64::NAN,
                };
                Val::Num(val, text(o.get("unit")).filter(|u| !u.is_empty()))
            }
            Some("ref") => match text(o.get("val")) {
                Some(id) => Val::Ref(id.trim_start_matches('@').to_string(), text(o.get("dis"))),
                None => Val::Other("ref".to_string()),
            },
            Some("symbol") => text(o.get("val")).map_or(Val::Other("symbol".to_string()), Val::Symbol),
            Some("uri") => text(o.get("val")).map_or(Val::Other("uri".to_string()), Val::Uri),
            Some(kind) => Val::Other(kind.to_string()),
            None => Val::Other("dict".to_string()),
        },
    }
}

/// A JSON v3 string: `m:`, `z:`, `-:`, `s:..`, `n:72 °F`, `r:id dis`, `u:..`, `y:..`; other typed
/// prefixes are kept as text; a string with no prefix is a string.
fn v3_string(s: &str) -> Val {
    let mut it = s.chars();
    let (Some(kind), Some(':')) = (it.next(), it.next()) else { return Val::Str(s.to_string()) };
    let rest = it.as_str();
    match kind {
        'm' => Val::Marker,
        'z' => Val::Na,
        '-' => Val::Remove,
        's' => Val::Str(rest.to_string()),
        'n' => {
            let (num, unit) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
            let unit = unit.trim();
            Val::Num(special_number(num), (!unit.is_empty()).then(|| unit.to_string()))
        }
        'r' => {
            let (id, dis) = rest.split_once(' ').unwrap_or((rest, ""));
            let dis = dis.trim();
            Val::Ref(id.trim_start_matches('@').to_string(), (!dis.is_empty()).then(|| dis.to_string()))
        }
        'u' => Val::Uri(rest.to_string()),
        'y' => Val::Symbol(rest.to_string()),
        'd' | 'h' | 't' | 'c' | 'x' | 'b' => Val::Other(rest.to_string()),
        _ => Val::Str(s.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Tag sets -> roles

#[derive(Clone, Copy, Debug)]
enum Gives {
    Role(&'static str),
    /// A quantity camber has no role for, and why.
    NoRole(&'static str),
}

/// A tag set (Haystack 3 words): all of `tags` on the point, none of `unless`. `alias` marks a set
/// that is a looser spelling of another, read at the lower confidence.
struct Rule {
    tags: &'static [&'static str],
    gives: Gives,
    unless: &'static [&'static str],
    alias: bool,
}

const fn role(tags: &'static [&'static str], name: &'static str) -> Rule {
    Rule { tags, gives: Gives::Role(name), unless: &[], alias: false }
}

const fn role_unless(tags: &'static [&'static str], name: &'static str, unless: &'static [&'static str]) -> Rule {
    Rule { tags, gives: Gives::Role(name), unless, alias: false }
}

const fn alias(tags: &'static [&'static str], name: &'static str, unless: &'static [&'static str]) -> Rule {
    Rule { tags, gives: Gives::Role(name), unless, alias: true }
}

const fn none(tags: &'static [&'static str], why: &'static str) -> Rule {
    Rule { tags, gives: Gives::NoRole(why), unless: &[], alias: false }
}

const SP_OTHER: &[&str] = &["unocc", "standby"];
const FAN_OTHER: &[&str] = &["exhaust", "return", "relief", "condenser", "coolingTower"];
const VALVE_OTHER: &[&str] = &["bypass", "isolation", "heating", "cooling", "reheat"];

/// The tag-set table. The largest set that matches wins; on a tie, one read without synonyms, then
/// the earlier one.
const RULES: &[Rule] = &[
    // Air temperatures and their setpoints.
    role(&["outside", "air", "temp", "sensor"], "oat"),
    role(&["discharge", "air", "temp", "sensor"], "supply_air_temp"),
    role(&["mixed", "air", "temp", "sensor"], "mixed_air_temp"),
    role(&["return", "air", "temp", "sensor"], "return_air_temp"),
    role(&["zone", "air", "temp", "sensor"], "space_temp"),
    role(&["heating", "coil", "leaving", "air", "temp", "sensor"], "heat_coil_leaving_temp"),
    role(&["cooling", "coil", "leaving", "air", "temp", "sensor"], "cool_coil_leaving_temp"),
    alias(&["heating", "leaving", "air", "temp", "sensor"], "heat_coil_leaving_temp", &[]),
    alias(&["cooling", "leaving", "air", "temp", "sensor"], "cool_coil_leaving_temp", &[]),
    role_unless(&["zone", "air", "temp", "cooling", "sp"], "cool_sp", SP_OTHER),
    role_unless(&["zone", "air", "temp", "heating", "sp"], "heat_sp", SP_OTHER),
    none(&["zone", "air", "temp", "sp"], "a zone temperature setpoint that is neither the cooling nor the heating one"),
    none(&["unocc", "sp"], "camber has no role for unoccupied or standby setpoints"),
    none(&["standby", "sp"], "camber has no role for unoccupied or standby setpoints"),
    role(&["discharge", "air", "temp", "sp"], "supply_air_temp_sp"),
    role(&["discharge", "air", "temp", "request"], "sat_reset_requests"),
    // Air pressure and flow.
    role(&["duct", "air", "pressure", "sensor"], "duct_static"),
    role(&["duct", "air", "pressure", "sp"], "duct_static_sp"),
    alias(&["duct", "pressure", "sensor"], "duct_static", &[]),
    alias(&["duct", "pressure", "sp"], "duct_static_sp", &[]),
    alias(&["discharge", "air", "pressure", "sensor"], "duct_static", &["delta"]),
    alias(&["discharge", "air", "pressure", "sp"], "duct_static_sp", &["delta"]),
    role(&["duct", "pressure", "request"], "static_pressure_requests"),
    role(&["discharge", "air", "flow", "sensor"], "airflow"),
    role_unless(&["discharge", "air", "flow", "sp"], "airflow_sp", &["min", "max"]),
    role(&["discharge", "air", "flow", "min", "sp"], "airflow_min_sp"),
    none(&["air", "flow", "max", "sp"], "camber has no role for a maximum airflow setpoint"),
    role(&["outside", "air", "flow", "sensor"], "oa_airflow"),
    role(&["filter", "pressure", "sensor"], "filter_diff_press"),
    // Zone loops, valves, dampers.
    role(&["zone", "heating", "loop"], "zone_heat_loop"),
    role(&["zone", "cooling", "loop"], "zone_cool_loop"),
    role(&["heating", "valve", "cmd"], "heat_valve"),
    role(&["heating", "valve", "sensor"], "heat_valve_position"),
    role(&["reheat", "valve", "cmd"], "heat_valve"),
    role(&["reheat", "valve", "sensor"], "heat_valve_position"),
    role(&["cooling", "valve", "cmd"], "cool_valve"),
    alias(&["chilled", "water", "valve", "cmd"], "cool_valve", VALVE_OTHER),
    alias(&["hot", "water", "valve", "cmd"], "heat_valve", VALVE_OTHER),
    role(&["outside", "damper", "cmd"], "oa_damper"),
    role_unless(&["damper", "cmd"], "damper", &["outside", "return", "exhaust", "relief", "mixed"]),
    none(&["return", "damper"], "camber has no role for a return, exhaust, relief or mixed air damper"),
    none(&["exhaust", "damper"], "camber has no role for a return, exhaust, relief or mixed air damper"),
    none(&["relief", "damper"], "camber has no role for a return, exhaust, relief or mixed air damper"),
    none(&["mixed", "damper"], "camber has no role for a return, exhaust, relief or mixed air damper"),
    // Modes and occupancy.
    role(&["occupied"], "occupancy"),
    role(&["occupancy"], "occupancy"),
    role(&["occupants"], "occupancy"),
    role(&["people", "count"], "occupancy"),
    role(&["warmup"], "warmup"),
    role(&["cooldown"], "cooldown"),
    role(&["economizer", "cmd"], "econ_cmd"),
    alias(&["economizer", "sensor"], "econ_cmd", &[]),
    // Fans.
    role(&["discharge", "fan", "run", "sensor"], "supply_fan_status"),
    role(&["discharge", "fan", "run", "cmd"], "supply_fan_status"),
    role(&["discharge", "fan", "speed", "cmd"], "supply_fan_speed"),
    alias(&["fan", "run", "sensor"], "supply_fan_status", FAN_OTHER),
    alias(&["fan", "run", "cmd"], "supply_fan_status", FAN_OTHER),
    alias(&["fan", "speed", "cmd"], "supply_fan_speed", FAN_OTHER),
    none(&["exhaust", "fan"], "camber has no role for exhaust, return or relief fans"),
    none(&["return", "fan"], "camber has no role for exhaust, return or relief fans"),
    none(&["relief", "fan"], "camber has no role for exhaust, return or relief fans"),
    none(&["enable"], "an enable is a permission to run, not a run status or a quantity; camber has no role for it"),
    none(&["alarm"], "camber has no role for alarms"),
    none(&["fault"], "camber has no role for faults"),
    // Humidity, CO2, energy.
    role(&["discharge", "air", "humidity", "sensor"], "supply_air_humidity"),
    role(&["return", "air", "humidity", "sensor"], "return_air_humidity"),
    none(&["zone", "humidity"], "camber has no role for zone humidity"),
    role(&["return", "air", "dewPoint", "sensor"], "return_air_dewpoint_temp"),
    role(&["outside", "air", "wetBulb", "sensor"], "wetbulb_temp"),
    role(&["outside", "air", "humidity", "sensor"], "outdoor_rh"),
    role(&["outside", "air", "co2", "sensor"], "outdoor_co2"),
    none(&["outside", "dewPoint"], "camber has no role for the outdoor dew point"),
    role(&["zone", "co2", "sensor"], "co2"),
    role(&["elec", "power", "sensor"], "power"),
    none(&["elec", "energy"], "camber has no role for a cumulative energy total"),
    role(&["thermal", "energy", "sensor"], "energy_rate"),
    alias(&["thermal", "power", "sensor"], "energy_rate", &[]),
    // Hot water.
    role(&["hot", "water", "leaving", "temp", "sensor"], "hw_supply_temp"),
    role(&["hot", "water", "entering", "temp", "sensor"], "hw_return_temp"),
    role(&["hot", "water", "delta", "pressure", "sensor"], "hw_diff_press"),
    role(&["hot", "water", "delta", "pressure", "sp"], "hw_diff_press_sp"),
    role(&["hot", "water", "pump", "speed", "cmd"], "hw_pump_speed"),
    role(&["hot", "water", "flow", "sensor"], "hw_flow"),
    role(&["naturalGas", "flow", "sensor"], "gas_input_rate"),
    role(&["boiler", "run", "sensor"], "boiler_status"),
    alias(&["boiler", "run", "cmd"], "boiler_status", &[]),
    // Chilled water.
    role(&["chilled", "water", "leaving", "temp", "sensor"], "chw_supply_temp"),
    role(&["chilled", "water", "entering", "temp", "sensor"], "chw_return_temp"),
    role(&["chilled", "water", "leaving", "temp", "sp"], "chw_supply_temp_sp"),
    role(&["chilled", "water", "delta", "pressure", "sensor"], "chw_diff_press"),
    role(&["chilled", "water", "delta", "pressure", "sp"], "chw_diff_press_sp"),
    role(&["chilled", "water", "pump", "speed", "cmd"], "chw_pump_speed"),
    role(&["chilled", "water", "flow", "sensor"], "chw_flow"),
    role(&["pump", "run", "sensor"], "pump_status"),
    alias(&["pump", "run", "cmd"], "pump_status", &[]),
    role(&["pump", "delta", "pressure", "sensor"], "pump_head"),
    // Condenser water and towers.
    role(&["condenser", "water", "leaving", "temp", "sensor"], "cw_supply_temp"),
    role(&["condenser", "water", "entering", "temp", "sensor"], "cw_return_temp"),
    role(&["condenser", "water", "entering", "temp", "sensor", "chiller"], "cond_entering_water_temp"),
    role(&["coolingTower", "fan", "speed", "cmd"], "tower_fan_speed"),
    role(&["condenser", "water", "bypass", "valve", "cmd"], "cw_bypass_valve"),
    role(&["condenser", "water", "flow", "sensor"], "cw_flow"),
    // Compressors, heat pumps, refrigerant.
    role(&["compressor", "run", "sensor"], "compressor_status"),
    role(&["compressor", "stage", "sensor"], "compressor_stage"),
    role(&["condenser", "fan", "run", "sensor"], "condenser_fan_status"),
    role(&["heating", "stage", "sensor"], "heat_stage"),
    role(&["reversing", "valve", "cmd"], "reversing_valve_cmd"),
    role(&["refrig", "discharge", "pressure", "sensor"], "discharge_pressure"),
    role(&["refrig", "suction", "pressure", "sensor"], "suction_pressure"),
    role(&["refrig", "liquid", "pressure", "sensor"], "liquid_line_pressure"),
    role(&["refrig", "liquid", "temp", "sensor"], "liquid_line_temp"),
    role(&["refrig", "suction", "temp", "sensor"], "suction_line_temp"),
    role(&["refrig", "discharge", "temp", "sensor"], "discharge_line_temp"),
    role(&["superheat", "sensor"], "superheat_temp"),
    role(&["discharge", "superheat", "sensor"], "discharge_superheat_temp"),
    role(&["subcooling", "sensor"], "subcooling_temp"),
    role(&["condenser", "approach", "sensor"], "cond_approach_temp"),
    role(&["evaporator", "approach", "sensor"], "evap_approach_temp"),
    // Source (ground or condenser) loops.
    role(&["loop", "water", "leaving", "temp", "sensor"], "source_loop_supply_temp"),
    role(&["loop", "water", "entering", "temp", "sensor"], "source_loop_return_temp"),
    role(&["loop", "water", "delta", "pressure", "sensor"], "source_loop_diff_press"),
    role(&["loop", "pump", "speed", "cmd"], "source_loop_pump_speed"),
];

/// A point's tags in the table's (Haystack 3) words: each canonical tag and whether the point
/// carries it under that very name (`false`: read through a synonym or from its equipment).
fn canonical(own: &[&str], context: &[String]) -> BTreeMap<String, bool> {
    let all: Vec<(&str, bool)> =
        own.iter().map(|t| (*t, true)).chain(context.iter().map(|t| (t.as_str(), false))).collect();
    let has = |name: &str| all.iter().any(|(t, _)| *t == name);
    let water = has("water");
    let weather = has("weatherPoint");
    let mut out: BTreeMap<String, bool> = BTreeMap::new();
    let mut add = |t: &str, native: bool| *out.entry(t.to_string()).or_insert(native) |= native;
    for (t, native) in &all {
        let mapped = synonym(t, water);
        add(mapped, *native && mapped == *t);
    }
    if weather && !["sensor", "cmd", "sp"].iter().any(|t| has(t)) {
        add("sensor", false);
    }
    out
}

/// A tag in the table's words: Haystack 4 `cool`/`heat` as `cooling`/`heating`, water `supply`/`return`
/// as `leaving`/`entering`, air `supply` as `discharge`, and a few common variants.
fn synonym(tag: &str, water: bool) -> &str {
    match tag {
        "cool" => "cooling",
        "heat" => "heating",
        "economizing" => "economizer",
        "diff" | "differential" => "delta",
        "occ" => "occupied",
        "unoccupied" => "unocc",
        "outdoor" | "weatherPoint" => "outside",
        "supply" if water => "leaving",
        "return" if water => "entering",
        "supply" => "discharge",
        t => t,
    }
}

/// The usual order of tags in a written tag set; a tag not listed goes just before `air`.
const TAG_ORDER: &[&str] = &[
    "zone",
    "outside",
    "discharge",
    "supply",
    "mixed",
    "return",
    "exhaust",
    "relief",
    "duct",
    "filter",
    "hot",
    "chilled",
    "condenser",
    "loop",
    "naturalGas",
    "elec",
    "thermal",
    "refrig",
    "compressor",
    "air",
    "water",
    "fan",
    "pump",
    "leaving",
    "entering",
    "temp",
    "humidity",
    "dewPoint",
    "wetBulb",
    "co2",
    "delta",
    "pressure",
    "flow",
    "power",
    "energy",
    "effective",
    "occupied",
    "unocc",
    "heating",
    "heat",
    "cooling",
    "cool",
    "reheat",
    "coil",
    "damper",
    "valve",
    "speed",
    "run",
    "enable",
    "min",
    "max",
    "sensor",
    "cmd",
    "sp",
];

/// The point's own tags for the evidence, in an order that does not depend on the encoding.
fn said(own: &[&str]) -> String {
    let air = TAG_ORDER.iter().position(|t| *t == "air").unwrap_or(0);
    let rank = |t: &str| TAG_ORDER.iter().position(|o| *o == t).map_or((air, 0), |n| (n + usize::from(n >= air), 1));
    let mut tags = own.to_vec();
    tags.sort_by(|a, b| (rank(a), *a).cmp(&(rank(b), *b)));
    tags.join(" ")
}

/// What the tag table says about one point.
#[derive(Clone, Debug, PartialEq)]
struct TagMatch {
    role: Option<String>,
    confidence: f64,
    evidence: String,
    why_not: Option<String>,
}

/// Matches a point's own marker tags (plus tags its equipment implies) against [`RULES`].
fn match_tags(own: &[&str], context: &[String]) -> TagMatch {
    let canon = canonical(own, context);
    let mut best: Option<(&Rule, bool)> = None;
    for rule in RULES {
        if !rule.tags.iter().all(|t| canon.contains_key(*t)) {
            continue;
        }
        if rule.unless.iter().any(|t| canon.contains_key(*t) || own.contains(t)) {
            continue;
        }
        let loose = rule.alias || rule.tags.iter().any(|t| canon.get(*t) != Some(&true));
        let better = match best {
            None => true,
            Some((b, b_loose)) => {
                rule.tags.len() > b.tags.len() || (rule.tags.len() == b.tags.len() && b_loose && !loose)
            }
        };
        if better {
            best = Some((rule, loose));
        }
    }
    let said = said(own);
    let Some((rule, loose)) = best else {
        let why = if said.is_empty() {
            "the point has no marker tags that say what it measures".to_string()
        } else {
            format!("no tag set camber knows matches \"{said}\"")
        };
        return TagMatch { role: None, confidence: 0.0, evidence: format!("haystack: {said}"), why_not: Some(why) };
    };
    let evidence =
        if loose { format!("haystack: {said} (read as {})", rule.tags.join(" ")) } else { format!("haystack: {said}") };
    let confidence = if loose { 0.9 } else { 0.95 };
    match rule.gives {
        Gives::Role(name) => TagMatch { role: Some(name.to_string()), confidence, evidence, why_not: None },
        Gives::NoRole(why) => TagMatch { role: None, confidence, evidence, why_not: Some(why.to_string()) },
    }
}

// ---------------------------------------------------------------------------------------------
// Equipment classes

/// Equipment markers -> camber class; the first that matches wins (an `ahu rtu` is an RTU).
const CLASSES: &[(&[&str], &str)] = &[
    (&["rtu"], "RTU"),
    (&["doas"], "DOAS"),
    (&["mau"], "MAU"),
    (&["ahu"], "AHU"),
    (&["vav"], "VAV"),
    (&["cav"], "CAV"),
    (&["fcu"], "FCU"),
    (&["chilledWaterPlant"], "CHW_PLANT"),
    (&["hotWaterPlant"], "HW_PLANT"),
    (&["chilled", "water", "plant"], "CHW_PLANT"),
    (&["hot", "water", "plant"], "HW_PLANT"),
    (&["chiller"], "CHILLER"),
    (&["boiler"], "BOILER"),
    (&["coolingTower"], "COOLING_TOWER"),
    (&["heatPump"], "HEAT_PUMP"),
    (&["pump"], "PUMP"),
    (&["meter"], "METER"),
    (&["elecMeter"], "METER"),
    (&["gasMeter"], "METER"),
    (&["waterMeter"], "METER"),
    (&["steamMeter"], "METER"),
    (&["btuMeter"], "METER"),
    (&["weatherStation"], "WEATHER"),
    (&["weather"], "WEATHER"),
];

fn equip_class(e: &Entity) -> Option<&'static str> {
    CLASSES.iter().find(|(tags, _)| tags.iter().all(|t| e.marker(t))).map(|(_, class)| *class)
}

/// Tags a point inherits from the class of its equipment, so that `run sensor` on a boiler reads
/// as `boiler run sensor`.
fn class_context(class: &str) -> &'static [&'static str] {
    match class {
        "BOILER" => &["boiler"],
        "CHILLER" => &["chiller"],
        "PUMP" => &["pump"],
        "COOLING_TOWER" => &["coolingTower"],
        "HEAT_PUMP" => &["heatPump"],
        "WEATHER" => &["outside"],
        _ => &[],
    }
}

/// A usable equipment id: trimmed, with `/` and `\` replaced by `-`.
fn clean(s: &str) -> String {
    s.trim().replace(['/', '\\'], "-")
}

fn equip_name(e: &Entity) -> Option<String> {
    let id = e.reference("id");
    [
        e.string("dis").map(String::from),
        id.as_ref().and_then(|(_, dis)| dis.clone()),
        e.string("navName").map(String::from),
        id.map(|(id, _)| id),
    ]
    .into_iter()
    .flatten()
    .map(|s| clean(&s))
    .find(|s| !s.is_empty())
}

fn is_equip(e: &Entity) -> bool {
    !e.marker("point") && (e.marker("equip") || e.marker("weatherStation") || e.marker("weather"))
}

// ---------------------------------------------------------------------------------------------
// Building the model

struct Builder<'a> {
    rows: &'a [Entity],
    index: HashMap<String, usize>,
    equip: Vec<bool>,
    class: Vec<Option<&'static str>>,
    /// Output equipment rows -> their ids.
    names: HashMap<usize, String>,
    /// Refs to entities the grid does not hold -> the id and class given to them.
    placeholders: HashMap<String, (String, Option<&'static str>)>,
    used: BTreeSet<String>,
    equips: Vec<ModelEquip>,
}

impl Builder<'_> {
    fn unique(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}-{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }

    /// The equipment row a row folds onto (an unclassed part such as a fan or a coil folds onto
    /// the equipment it is part of), and the markers of the parts passed on the way.
    fn owner(&self, row: usize) -> (usize, Vec<String>) {
        let mut cur = row;
        let mut context = Vec::new();
        for _ in 0..8 {
            if self.class[cur].is_some() {
                break;
            }
            let parent = self.rows[cur].reference("equipRef").and_then(|(id, _)| self.index.get(&id).copied());
            let Some(parent) = parent.filter(|&p| p != cur && self.equip[p]) else { break };
            context.extend(self.rows[cur].markers().into_iter().map(String::from));
            cur = parent;
        }
        (cur, context)
    }

    fn placeholder(&mut self, id: &str, dis: Option<&str>, tag: &str) -> (String, Option<&'static str>) {
        if let Some(known) = self.placeholders.get(id) {
            return known.clone();
        }
        let base = dis.map(clean).filter(|d| !d.is_empty()).unwrap_or_else(|| clean(id));
        let name = self.unique(&base);
        let class = match tag {
            "weatherRef" | "weatherStationRef" => Some("WEATHER"),
            "chilledWaterPlantRef" => Some("CHW_PLANT"),
            "hotWaterPlantRef" => Some("HW_PLANT"),
            _ => None,
        };
        self.equips.push(ModelEquip {
            id: name.clone(),
            class: class.map(String::from),
            evidence: format!("haystack: {tag} @{id}, an entity the grid does not hold"),
        });
        self.placeholders.insert(id.to_string(), (name.clone(), class));
        (name, class)
    }

    /// The equipment a ref names: its id, class and the markers of parts folded on the way.
    fn resolve(
        &mut self,
        id: &str,
        dis: Option<&str>,
        tag: &str,
    ) -> Option<(String, Option<&'static str>, Vec<String>)> {
        match self.index.get(id).copied() {
            Some(row) if self.equip[row] => {
                let (owner, context) = self.owner(row);
                let name = self.names.get(&owner)?.clone();
                Some((name, self.class[owner], context))
            }
            Some(_) => None,
            None => {
                let (name, class) = self.placeholder(id, dis, tag);
                Some((name, class, Vec::new()))
            }
        }
    }

    fn point(&mut self, e: &Entity) -> ModelPoint {
        let mut equip = None;
        let mut context: Vec<String> = Vec::new();
        for tag in ["equipRef", "weatherStationRef", "weatherRef"] {
            if let Some((id, dis)) = e.reference(tag) {
                if let Some((name, class, parts)) = self.resolve(&id, dis.as_deref(), tag) {
                    context = parts;
                    if let Some(class) = class {
                        context.extend(class_context(class).iter().map(|t| t.to_string()));
                    }
                    equip = Some(name);
                }
                break;
            }
        }
        let m = match_tags(&e.markers(), &context);
        let unit = e.string("unit").map(String::from).or_else(|| match e.get("curVal") {
            Some(Val::Num(_, Some(unit))) => Some(unit.trim().to_string()).filter(|u| !u.is_empty()),
            _ => None,
        });
        let id = e.reference("id");
        let nav = e.string("navName");
        let mut keys: Vec<String> = Vec::new();
        for tag in ["hisId", "his"] {
            match e.get(tag) {
                Some(Val::Str(s) | Val::Uri(s)) => keys.push(s.trim().to_string()),
                Some(Val::Ref(r, _)) => keys.push(r.trim().to_string()),
                _ => {}
            }
        }
        keys.extend(e.string("dis").map(String::from));
        keys.extend(id.as_ref().and_then(|(_, dis)| dis.clone()));
        keys.extend(nav.map(String::from));
        if let (Some(equip), Some(nav)) = (&equip, nav) {
            keys.push(format!("{equip} {nav}"));
        }
        keys.extend(id.map(|(id, _)| id));
        let mut seen = BTreeSet::new();
        keys.retain(|k| !k.is_empty() && seen.insert(k.clone()));
        ModelPoint {
            keys,
            role: m.role,
            confidence: m.confidence,
            evidence: m.evidence,
            why_not: m.why_not,
            equip,
            unit,
        }
    }
}

fn build(rows: &[Entity]) -> Result<Model, String> {
    let mut index = HashMap::new();
    for (n, e) in rows.iter().enumerate() {
        if let Some((id, _)) = e.reference("id") {
            index.entry(id).or_insert(n);
        }
    }
    let equip: Vec<bool> = rows.iter().map(is_equip).collect();
    let class = rows.iter().zip(&equip).map(|(e, &q)| if q { equip_class(e) } else { None }).collect();
    let mut b = Builder {
        rows,
        index,
        equip,
        class,
        names: HashMap::new(),
        placeholders: HashMap::new(),
        used: BTreeSet::new(),
        equips: Vec::new(),
    };
    let mut owned = Vec::new();
    for (n, e) in rows.iter().enumerate() {
        if !b.equip[n] || b.owner(n).0 != n {
            continue;
        }
        let Some(base) = equip_name(e) else { continue };
        let name = b.unique(&base);
        let mut markers = e.markers();
        markers.sort_unstable();
        let mut said = markers.join(" ");
        if e.marker("equip") {
            said = format!("{said} equip").trim().to_string();
        }
        b.equips.push(ModelEquip {
            id: name.clone(),
            class: b.class[n].map(String::from),
            evidence: format!("haystack: {said}"),
        });
        b.names.insert(n, name);
        owned.push(n);
    }
    let mut points = Vec::new();
    let mut feeds = Vec::new();
    for e in rows.iter().filter(|e| e.marker("point")) {
        let point = b.point(e);
        for tag in ["ahuRef", "airRef"] {
            if let (Some(child), Some((id, dis))) = (&point.equip, e.reference(tag)) {
                if let Some((parent, _, _)) = b.resolve(&id, dis.as_deref(), tag) {
                    feeds.push(Feed { parent, child: child.clone(), evidence: format!("haystack: {tag}") });
                }
            }
        }
        points.push(point);
    }
    if points.is_empty() {
        return Err("the Haystack grid names no points".to_string());
    }
    for n in owned {
        let e = &rows[n];
        let Some(child) = b.names.get(&n).cloned() else { continue };
        for tag in ["ahuRef", "airRef"] {
            if let Some((id, dis)) = e.reference(tag) {
                if let Some((parent, _, _)) = b.resolve(&id, dis.as_deref(), tag) {
                    feeds.push(Feed { parent, child: child.clone(), evidence: format!("haystack: {tag}") });
                }
            }
        }
        if !matches!(b.class[n], Some("CHILLER" | "BOILER")) {
            continue;
        }
        for tag in ["chilledWaterRef", "hotWaterRef", "chilledWaterPlantRef", "hotWaterPlantRef"] {
            if let Some((id, dis)) = e.reference(tag) {
                if let Some((parent, Some("CHW_PLANT" | "HW_PLANT"), _)) = b.resolve(&id, dis.as_deref(), tag) {
                    feeds.push(Feed { parent, child: child.clone(), evidence: format!("haystack: {tag}") });
                }
            }
        }
    }
    feeds.retain(|f| f.parent != f.child);
    feeds.sort_by(|a, b| (&a.parent, &a.child, &a.evidence).cmp(&(&b.parent, &b.child, &b.evidence)));
    feeds.dedup_by(|a, b| a.parent == b.parent && a.child == b.child);
    points.sort_by(|a, b| (&a.equip, &a.keys, &a.role).cmp(&(&b.equip, &b.keys, &b.role)));
    let mut equips = b.equips;
    equips.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Model { source: "haystack", points, equips, feeds })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZINC: &str = include_str!("../tests/fixtures/points.zinc");
    const JSON: &str = include_str!("../tests/fixtures/points.json");
    const HAYSON: &str = include_str!("../tests/fixtures/points.hayson.json");

    fn point<'a>(m: &'a Model, key: &str) -> &'a ModelPoint {
        m.points.iter().find(|p| p.keys.iter().any(|k| k == key)).unwrap_or_else(|| panic!("no point {key}"))
    }

    fn tags(s: &str) -> TagMatch {
        match_tags(&s.split_whitespace().collect::<Vec<_>>(), &[])
    }

    fn cells(row: &str) -> Vec<(String, Val)> {
        let n = row.split(',').count();
        let cols: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let text = format!("ver:\"3.0\"\n{}\n{row}\n", cols.join(","));
        zinc_rows(&text).unwrap().remove(0).tags
    }

    #[test]
    fn three_encodings_give_one_model() {
        let zinc = read_haystack(ZINC).unwrap();
        assert_eq!(zinc.source, "haystack");
        assert_eq!(zinc.points.len(), 27);
        assert_eq!(read_haystack(JSON).unwrap(), zinc);
        assert_eq!(read_haystack(HAYSON).unwrap(), zinc);
    }

    #[test]
    fn equipment_classes_and_feeds() {
        let m = read_haystack(ZINC).unwrap();
        let equips: Vec<(&str, Option<&str>)> = m.equips.iter().map(|e| (e.id.as_str(), e.class.as_deref())).collect();
        assert_eq!(
            equips,
            [
                ("AHU-1", Some("AHU")),
                ("CH-1", Some("CHILLER")),
                ("VAV-1-01", Some("VAV")),
                ("VAV-1-02", Some("VAV")),
                ("p:demo:r:chwp", Some("CHW_PLANT")),
            ]
        );
        assert_eq!(m.equips[0].evidence, "haystack: ahu equip");
        let feeds: Vec<(&str, &str, &str)> =
            m.feeds.iter().map(|f| (f.parent.as_str(), f.child.as_str(), f.evidence.as_str())).collect();
        assert_eq!(
            feeds,
            [
                ("AHU-1", "VAV-1-01", "haystack: ahuRef"),
                ("AHU-1", "VAV-1-02", "haystack: ahuRef"),
                ("p:demo:r:chwp", "CH-1", "haystack: chilledWaterRef"),
            ]
        );
    }

    #[test]
    fn point_roles_units_and_owners() {
        let m = read_haystack(ZINC).unwrap();
        // First key, role, confidence, unit, equipment.
        type Row = (&'static str, Option<&'static str>, f64, Option<&'static str>, &'static str);
        let expect: &[Row] = &[
            ("AHU1_SAT", Some("supply_air_temp"), 0.95, Some("°F"), "AHU-1"),
            ("AHU-1 DA-T-SP", Some("supply_air_temp_sp"), 0.95, Some("°F"), "AHU-1"),
            ("AHU-1 OA-T", Some("oat"), 0.95, Some("°F"), "AHU-1"),
            ("AHU-1 MA-T", Some("mixed_air_temp"), 0.95, Some("°F"), "AHU-1"),
            ("AHU-1 RA-T", Some("return_air_temp"), 0.95, Some("°F"), "AHU-1"),
            ("AHU-1 CLG-VLV", Some("cool_valve"), 0.95, Some("%"), "AHU-1"),
            ("AHU-1 HTG-VLV", Some("heat_valve"), 0.9, Some("%"), "AHU-1"),
            ("AHU-1 OA-DPR", Some("oa_damper"), 0.95, Some("%"), "AHU-1"),
            ("AHU-1 SF-S", Some("supply_fan_status"), 0.95, None, "AHU-1"),
            ("AHU-1 SF-SPD", Some("supply_fan_speed"), 0.95, Some("%"), "AHU-1"),
            ("AHU-1 DSP", Some("duct_static"), 0.95, Some("inH₂O"), "AHU-1"),
            ("AHU-1 SF-EN", None, 0.95, None, "AHU-1"),
            ("VAV-1-01 DA-T", Some("supply_air_temp"), 0.95, Some("°F"), "VAV-1-01"),
            ("VAV-1-01 DA-F", Some("airflow"), 0.95, Some("cfm"), "VAV-1-01"),
            ("VAV-1-01 DPR", Some("damper"), 0.95, Some("%"), "VAV-1-01"),
            ("VAV-1-01 ZN-T", Some("space_temp"), 0.95, Some("°F"), "VAV-1-01"),
            ("VAV-1-01 ZN-CSP", Some("cool_sp"), 0.95, Some("°F"), "VAV-1-01"),
            ("VAV-1-01 ZN-HSP", Some("heat_sp"), 0.95, Some("°F"), "VAV-1-01"),
            ("VAV-1-02 DA-F", Some("airflow"), 0.95, Some("cfm"), "VAV-1-02"),
            ("VAV-1-02 ZN-CSP", Some("cool_sp"), 0.9, Some("°F"), "VAV-1-02"),
            ("VAV-1-02 ZN-HSP", Some("heat_sp"), 0.9, Some("°F"), "VAV-1-02"),
            ("CH-1 CHWLT", Some("chw_supply_temp"), 0.95, Some("°F"), "CH-1"),
            ("CH-1 CHWET", Some("chw_return_temp"), 0.95, Some("°F"), "CH-1"),
            ("CH-1 KW", Some("power"), 0.95, Some("kW"), "CH-1"),
        ];
        for &(key, role, confidence, unit, equip) in expect {
            let p = point(&m, key);
            assert_eq!((p.role.as_deref(), p.unit.as_deref(), p.equip.as_deref()), (role, unit, Some(equip)), "{key}");
            assert_eq!(p.confidence, confidence, "{key}");
            assert_eq!(p.why_not.is_some(), role.is_none(), "{key}");
        }
        let sat = point(&m, "AHU1_SAT");
        assert_eq!(sat.keys, ["AHU1_SAT", "AHU-1 Discharge Air Temp", "DA-T", "AHU-1 DA-T", "p:demo:r:ahu1-sat"]);
        assert_eq!(sat.evidence, "haystack: discharge air temp sensor");
        let htg = point(&m, "AHU-1 HTG-VLV");
        assert_eq!(htg.evidence, "haystack: hot water heat valve cmd (read as heating valve cmd)");
        // The chiller has no dis: its points' keys use its navName.
        assert_eq!(point(&m, "CH-1 KW").keys, ["CH-1 Power", "KW", "CH-1 KW", "p:demo:r:ch1-kw"]);
        // Sorted by equipment, then keys.
        let order: Vec<&str> = m.points.iter().map(|p| p.equip.as_deref().unwrap_or("")).collect();
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(order, sorted);
    }

    #[test]
    fn enable_point_has_no_role_and_says_why() {
        let m = read_haystack(ZINC).unwrap();
        let p = point(&m, "AHU-1 SF-EN");
        assert_eq!(p.keys[0], "AHU-1 \"Main\" Fan Enable");
        assert_eq!(p.role, None);
        let why = p.why_not.as_deref().unwrap();
        assert!(why.contains("enable") && !why.contains('\n'), "{why}");
    }

    #[test]
    fn haystack_3_and_4_spellings() {
        let cases: &[(&str, Option<&str>, f64)] = &[
            ("discharge air temp sensor", Some("supply_air_temp"), 0.95),
            ("supply air temp sensor", Some("supply_air_temp"), 0.9),
            ("chilled water cool valve cmd", Some("cool_valve"), 0.9),
            ("chilled water valve cmd", Some("cool_valve"), 0.9),
            ("hot water reheat valve cmd", Some("heat_valve"), 0.95),
            ("heat valve cmd", Some("heat_valve"), 0.9),
            ("hot water supply temp sensor", Some("hw_supply_temp"), 0.9),
            ("hot water leaving temp sensor", Some("hw_supply_temp"), 0.95),
            ("chilled water return temp sensor", Some("chw_return_temp"), 0.9),
            ("chilled water diff pressure sensor", Some("chw_diff_press"), 0.9),
            ("zone air temp effective cooling sp", Some("cool_sp"), 0.95),
            ("zone air temp occ heating sp", Some("heat_sp"), 0.95),
            ("zone air temp unocc cooling sp", None, 0.95),
            ("zone air temp sp", None, 0.95),
            ("zone co2 sensor", Some("co2"), 0.95),
            ("zone air humidity sensor", None, 0.95),
            ("occupied sensor", Some("occupancy"), 0.95),
            ("occ cmd", Some("occupancy"), 0.9),
            ("zone occupants sensor", Some("occupancy"), 0.95),
            ("discharge fan run cmd", Some("supply_fan_status"), 0.95),
            ("supply fan run sensor", Some("supply_fan_status"), 0.9),
            ("fan run sensor", Some("supply_fan_status"), 0.9),
            ("exhaust fan run sensor", None, 0.95),
            ("return fan speed cmd", None, 0.95),
            ("damper cmd", Some("damper"), 0.95),
            ("return air damper cmd", None, 0.95),
            ("discharge air pressure sensor", Some("duct_static"), 0.9),
            ("discharge air flow min sp", Some("airflow_min_sp"), 0.95),
            ("discharge air flow max sp", None, 0.95),
            ("elec energy sensor", None, 0.95),
            ("alarm", None, 0.95),
            ("bogus thing", None, 0.0),
        ];
        for &(set, role, confidence) in cases {
            let m = tags(set);
            assert_eq!((m.role.as_deref(), m.confidence), (role, confidence), "{set}");
            assert_eq!(m.why_not.is_some(), role.is_none(), "{set}");
        }
        assert_eq!(tags("bogus thing").why_not.as_deref(), Some("no tag set camber knows matches \"bogus thing\""));
        // Tags implied by the equipment: `run sensor` on a boiler, `air temp` from a weather station.
        let m = match_tags(&["run", "sensor"], &["boiler".to_string()]);
        assert_eq!((m.role.as_deref(), m.confidence), (Some("boiler_status"), 0.9));
        let m = match_tags(&["weatherPoint", "air", "temp"], &[]);
        assert_eq!(m.role.as_deref(), Some("oat"));
    }

    #[test]
    fn every_rule_names_a_camber_role() {
        for rule in RULES {
            if let Gives::Role(name) = rule.gives {
                assert!(camber_common::roles::role(name).is_some(), "{name} in {:?}", rule.tags);
            }
        }
    }

    #[test]
    fn zinc_scalars() {
        let row = cells(
            r#"M,T,F,N,,NA,R,"a \"q\" \\ \$x\n\u00e9",@p:demo:r:1eeb "AHU-1",@x.y~z,`http://a/b c`,^elec-meter,72°F,55.5,-3,1.5e3,10%,850cfm,INF,-INF,NaN,0.5inH₂O,3kW/h,12$,1_000m_s,2024-01-02,12:30:00,2024-01-02T03:04:05-05:00 New_York,9"#,
        );
        let get = |k: &str| row.iter().find(|(c, _)| c == k).map(|(_, v)| v.clone());
        let num = |k: &str| match get(k) {
            Some(Val::Num(v, u)) => (v, u),
            other => panic!("{k}: {other:?}"),
        };
        assert_eq!(get("c0"), Some(Val::Marker));
        assert_eq!(get("c1"), Some(Val::Bool(true)));
        assert_eq!(get("c2"), Some(Val::Bool(false)));
        // N, empty, NA and R leave the tag out.
        assert_eq!((get("c3"), get("c4"), get("c5"), get("c6")), (None, None, None, None));
        assert_eq!(get("c7"), Some(Val::Str("a \"q\" \\ $x\né".to_string())));
        assert_eq!(get("c8"), Some(Val::Ref("p:demo:r:1eeb".to_string(), Some("AHU-1".to_string()))));
        assert_eq!(get("c9"), Some(Val::Ref("x.y~z".to_string(), None)));
        assert_eq!(get("c10"), Some(Val::Uri("http://a/b c".to_string())));
        assert_eq!(get("c11"), Some(Val::Symbol("elec-meter".to_string())));
        assert_eq!(num("c12"), (72.0, Some("°F".to_string())));
        assert_eq!(num("c13"), (55.5, None));
        assert_eq!(num("c14"), (-3.0, None));
        assert_eq!(num("c15"), (1500.0, None));
        assert_eq!(num("c16"), (10.0, Some("%".to_string())));
        assert_eq!(num("c17"), (850.0, Some("cfm".to_string())));
        assert_eq!(num("c18"), (f64::INFINITY, None));
        assert_eq!(num("c19"), (f64::NEG_INFINITY, None));
        assert!(num("c20").0.is_nan());
        assert_eq!(num("c21"), (0.5, Some("inH₂O".to_string())));
        assert_eq!(num("c22"), (3.0, Some("kW/h".to_string())));
        assert_eq!(num("c23"), (12.0, Some("$".to_string())));
        assert_eq!(num("c24"), (1000.0, Some("m_s".to_string())));
        assert_eq!(get("c25"), Some(Val::Other("2024-01-02".to_string())));
        assert_eq!(get("c26"), Some(Val::Other("12:30:00".to_string())));
        assert_eq!(get("c27"), Some(Val::Other("2024-01-02T03:04:05-05:00 New_York".to_string())));
        assert_eq!(num("c28"), (9.0, None));
    }

    #[test]
    fn zinc_nested_values_are_skipped() {
        let text = "ver:\"3.0\" meta:{a:1 b:[2,3]}\nid colmeta:\"x, y\", a, b, c\n\
                    @r1, [1, \"a,]\", {x:M}], <<ver:\"3.0\"\nx,y\n1,\"<<,>>\"\n>>, Coord(1.5,2)\n\
                    \n@r2,{a:\"}\"},,`u`\n";
        let rows = zinc_rows(text).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].get("c"), Some(&Val::Other("Coord".to_string())));
        assert_eq!(rows[0].get("b"), Some(&Val::Other("grid".to_string())));
        assert_eq!(rows[1].get("id"), Some(&Val::Ref("r2".to_string(), None)));
        assert_eq!(rows[1].get("b"), None);
        assert_eq!(rows[1].get("c"), Some(&Val::Uri("u".to_string())));
    }

    #[test]
    fn broken_input_gives_one_line_errors() {
        let zinc = |body: &str| read_haystack(&format!("ver:\"3.0\"\nid,dis,point\n{body}")).unwrap_err();
        let cases = [
            (zinc("@a,\"open\n"), "the Haystack grid is not valid Zinc (line 3: a quoted string is not closed"),
            (zinc("@a,\"x\",M,M\n"), "the Haystack grid is not valid Zinc (line 3: a row has more cells than the 3"),
            (zinc("@a,\"x\",M\n@b,bogus,M\n"), "the Haystack grid is not valid Zinc (line 4: unknown value \"bogus\")"),
            (zinc("@a,[1,2,M\n"), "the Haystack grid is not valid Zinc (line 3: a [, {, ( or << is not closed"),
            (zinc("@a,\"x\" y,M\n"), "the Haystack grid is not valid Zinc (line 3: unexpected 'y' after a value"),
            (zinc("@a,\"\\q\",M\n"), "the Haystack grid is not valid Zinc (line 3: unknown escape \\q"),
            (
                read_haystack("id,dis\n@a,\"x\"\n").unwrap_err(),
                "the Haystack grid is not valid Zinc (line 1: a Zinc grid",
            ),
            (
                read_haystack("ver:\"3.0\"").unwrap_err(),
                "the Haystack grid is not valid Zinc (line 1: the grid has no line",
            ),
            (read_haystack("{\"rows\": [1").unwrap_err(), "the Haystack grid is not valid JSON ("),
            (read_haystack("{\"cols\": []}").unwrap_err(), "the Haystack JSON is not a grid"),
            (read_haystack("[1]").unwrap_err(), "row 1 of the Haystack JSON is not an object"),
            (zinc("@a,\"x\",\n"), "the Haystack grid names no points"),
        ];
        for (err, start) in cases {
            assert!(err.starts_with(start), "{err}");
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn no_panic_on_any_prefix() {
        for (n, _) in ZINC.char_indices().step_by(7) {
            let _ = read_haystack(&ZINC[..n]);
        }
        for (n, _) in HAYSON.char_indices().step_by(97) {
            let _ = read_haystack(&HAYSON[..n]);
        }
        // The fixture up to the end of any row is still a grid with the rows before it.
        let lines: Vec<&str> = ZINC.lines().collect();
        let upto = lines[..10].join("\n");
        assert_eq!(read_haystack(&upto).unwrap().points.len(), 2);
    }

    #[test]
    fn haystack_4_parts_air_refs_and_missing_entities() {
        let text = "ver:\"3.0\"\n\
            id,dis,navName,equip,point,ahu,rtu,vav,discharge,fan,run,sensor,temp,air,weatherStation,equipRef,airRef,unit,curVal\n\
            @a2 \"B1/RTU\\\\2\",,,M,,M,M,,,,,,,,,,,,\n\
            @f1,\"Fan\",,M,,,,,M,M,,,,,,@a2,,,\n\
            @p1,,\"SF-S\",,M,,,,,,M,M,,,,@f1,,,\n\
            @v9,,\"VAV-9\",M,,,,M,,,,,,,,,@a2,,\n\
            @p2,\"VAV-9 DAT\",,,M,,,,M,,,M,M,M,,@v9,,,61°F\n\
            @p3,\"X\",,,M,,,,M,,,M,M,M,,@gone \"AHU/7\",,,\n\
            @w,\"KBOS\",,,,,,,,,,,,,M,,,,\n\
            @p4,\"OAT\",,,M,,,,,,,M,M,M,,@w,,\"°F\",\n";
        let m = read_haystack(text).unwrap();
        let equips: Vec<(&str, Option<&str>)> = m.equips.iter().map(|e| (e.id.as_str(), e.class.as_deref())).collect();
        // The fan is a part of the RTU: folded, not listed; `/` and `\` become `-`.
        assert_eq!(
            equips,
            [("AHU-7", None), ("B1-RTU-2", Some("RTU")), ("KBOS", Some("WEATHER")), ("VAV-9", Some("VAV"))]
        );
        let fan = point(&m, "SF-S");
        assert_eq!(fan.equip.as_deref(), Some("B1-RTU-2"));
        assert_eq!((fan.role.as_deref(), fan.confidence), (Some("supply_fan_status"), 0.9));
        assert_eq!(fan.keys, ["SF-S", "B1-RTU-2 SF-S", "p1"]);
        let dat = point(&m, "VAV-9 DAT");
        assert_eq!(dat.unit.as_deref(), Some("°F"));
        assert_eq!(point(&m, "X").equip.as_deref(), Some("AHU-7"));
        let oat = point(&m, "OAT");
        assert_eq!((oat.role.as_deref(), oat.equip.as_deref()), (Some("oat"), Some("KBOS")));
        assert_eq!(
            m.feeds,
            [Feed { parent: "B1-RTU-2".into(), child: "VAV-9".into(), evidence: "haystack: airRef".into() }]
        );
    }

    #[test]
    fn bare_json_rows_and_markers() {
        let text = r#"[{"id": "@e", "dis": "FCU-3", "equip": true, "fcu": "M"},
                       {"id": "@p", "point": "✓", "equipRef": "@e", "zone": true, "air": true, "temp": true,
                        "sensor": true, "curVal": {"_kind": "number", "val": "NaN", "unit": "°C"}}]"#;
        let m = read_haystack(text).unwrap();
        assert_eq!(m.equips[0].class.as_deref(), Some("FCU"));
        let p = &m.points[0];
        assert_eq!(
            (p.role.as_deref(), p.equip.as_deref(), p.unit.as_deref()),
            (Some("space_temp"), Some("FCU-3"), Some("°C"))
        );
        assert_eq!(p.keys, ["p"]);
    }
}
