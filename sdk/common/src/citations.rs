//! The one citation verifier: it checks a drafted text, sentence by sentence, against the
//! facts of earlier results. The host runs it (strict) on every result's text before the
//! caller sees it, and the `check_citations` capability reports what it found, so the two
//! can never disagree about which sentence is grounded.
//!
//! Rules, in the order [`check`] applies them:
//!
//! * **Quoted values.** A double-quoted value (`"AHU-2"`, `"Zone 3.5 east"`) is one word: no
//!   figure inside it counts, no sentence ends inside it, and a bracket inside it is no
//!   citation. A value is quoted when a closing `"` follows on the same line within
//!   [`QUOTE_MAX_CHARS`] characters (the longest name [`crate::text::name`] writes); any
//!   other `"` is an ordinary character, so a stray quote cannot hide the rest of a text.
//! * **Sentences.** A sentence ends after `.`, `!` or `?` followed by whitespace, except
//!   after an abbreviation of [`ABBREVIATIONS`] (`e.g.`, `i.e.`, `vs.`, `approx.`,
//!   `Fig.` ...); `No.` is one only before a number, `in.` only in the unit `in. w.c.`, and
//!   `etc.` (or that unit's `w.c.`) ends a sentence before a capital letter. A piece that holds nothing but citations and punctuation
//!   (`... found. [F1]`) belongs to the sentence before it.
//! * **Citations.** `[id]` brackets whose id passes [`crate::text::is_fact_id`]. The digits of
//!   a citation are never a figure.
//! * **Figures.** A number, with a minus sign when `-` (or `−`) sits directly before the
//!   digit and is not glued to a letter or digit (`-5 °F` is -5); thousands separators when
//!   every group after a comma has three digits (`1,234` is 1234, `1,2,3` is three figures);
//!   decimals (`.5` is 0.5); an exponent (`1e-05`); a trailing `%`, also after one space;
//!   currency symbols are not part of it (`$1,200` is 1200). A run of letters, digits, `_`
//!   and inner `-` or `.` that starts with a letter is a name, not a figure (`AHU-2`,
//!   `VAV-101`, `G36`, `CO2`, `v1.2`); so is a dotted run of three numbers (`1.2.3`).
//!   A number followed by letters still counts (`5th`, `12kW`). A date (`2024-03-01`,
//!   optionally with `T` or a space and a time, and a zone) is one figure, and so is a time
//!   of day (`12:30`, `7:05:30`). A range `10-20` or `10–20` is two figures; a `%` after the
//!   second end applies to both (`10-20%`).
//! * **Support.** A sentence's figures are checked against the facts it cites itself
//!   ([`Scope::Sentence`]; [`Scope::Text`] widens that to every fact the text cites, for
//!   `check_citations` with `per_sentence` off). A number is supported when a cited fact
//!   carries a number that, rounded half away from zero to the figure's own decimals,
//!   equals it with the same sign, zero having none (fact 12.34 supports 12.3 and 12, not
//!   12.4; fact 0.456 supports 0.46 and 0.5). A percentage is also supported by a fact number
//!   that does so once multiplied by 100 (0.45 supports 45%). A date is supported by a fact
//!   date that starts with it (`2024-03-01T00:00:00` supports `2024-03-01`), or, for a date
//!   with a time, by a fact holding both that day and that time; a time by a fact time that
//!   starts with it (`12:30:00` supports `12:30`).
//! * **What a fact carries.** The figures of every field but `id`: strings (its `text`, a
//!   numeric string `value`, ...) are read with the figure rules above, numbers as written in
//!   JSON, lists and objects through every value; a fact's date also carries its year as a
//!   number, so "in 2024" is supported by `2024-03-01`.
//! * **Verdicts.** A sentence whose figures are all supported is [`Verdict::Supported`] (so is
//!   one with no figure, cited or not: there is nothing to check); one that states a figure
//!   and cites nothing is [`Verdict::Uncited`]; one that cites and states a figure no cited
//!   fact carries is [`Verdict::UnsupportedNumber`]; else one that cites an id the facts do
//!   not hold is [`Verdict::UnknownCitation`].
//! * **Verified text.** Uncited and unsupported sentences are removed; an unknown citation is
//!   removed from its kept sentence with the space before it (`found [X9].` reads
//!   `found.`); the kept sentences are joined with single spaces.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::text::{citation_spans, is_fact_id, name, NAME_MAX_CHARS};

/// The longest double-quoted value that counts as one word: the longest name text writes.
pub const QUOTE_MAX_CHARS: usize = NAME_MAX_CHARS;

/// Words (lower case, without the final `.`) after which a `.` does not end a sentence.
pub const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "approx", "fig", "figs", "no", "nos", "cf", "ca", "incl", "esp", "resp", "eq", "ref",
    "dr", "mr", "mrs", "ms", "st", "in", "w.c",
];

/// How a sentence fared; the names are those of `check_citations`' counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Supported,
    UnknownCitation,
    Uncited,
    UnsupportedNumber,
}

impl Verdict {
    /// Whether the sentence is removed from the verified text.
    pub fn removes(self) -> bool {
        matches!(self, Verdict::Uncited | Verdict::UnsupportedNumber)
    }
}

/// Which facts may support a sentence's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Only the facts the sentence cites itself (the host, and `per_sentence` on).
    Sentence,
    /// Any fact the text cites anywhere (`check_citations` with `per_sentence` off).
    Text,
}

/// One sentence of the checked text and why it got its verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SentenceReport {
    /// Position among the text's sentences, from 0.
    pub index: usize,
    /// The sentence as written, trimmed.
    pub text: String,
    pub verdict: Verdict,
    /// The ids it cites that the facts hold, in order, each once.
    pub citations: Vec<String>,
    /// The ids it cites that the facts do not hold, in order, each once.
    pub unknown: Vec<String>,
    /// Every figure it states, as written.
    pub figures: Vec<String>,
    /// The figures no fact in scope carries, as written.
    pub unsupported: Vec<String>,
}

/// The outcome of [`check`]: every sentence, and the text a caller may share.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub sentences: Vec<SentenceReport>,
    /// The kept sentences, without unknown citations, joined by single spaces.
    pub verified_text: String,
    /// Sentences left out of `verified_text` (uncited or unsupported).
    pub removed_sentences: usize,
    /// Unknown-id brackets taken out of the kept sentences.
    pub removed_citations: usize,
}

impl Report {
    /// How many sentences got `verdict`: the per-verdict counts of `check_citations`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.sentences.iter().filter(|s| s.verdict == verdict).count()
    }
}

/// The figures each fact carries, by id: built once per set of facts, so checking a text
/// costs only its own sentences.
#[derive(Clone, Debug, Default)]
pub struct FactIndex {
    facts: HashMap<String, Carried>,
}

/// What one fact can support.
#[derive(Clone, Debug, Default)]
struct Carried {
    numbers: Vec<Num>,
    /// Canonical dates and date-times (`2024-03-01`, `2024-03-01T12:00:00Z`).
    dates: Vec<String>,
    /// Canonical times of day, also those of its date-times (`12:00:00`).
    times: Vec<String>,
}

impl FactIndex {
    /// Index `facts` (objects with an `id` and any other fields). An id given twice with the
    /// same content counts once; a missing or malformed id, or one id with two contents, is
    /// an error whose message can go back to the caller.
    pub fn new(facts: &[Value]) -> Result<Self, String> {
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(facts.len());
        let mut index = FactIndex { facts: HashMap::with_capacity(facts.len()) };
        for (i, fact) in facts.iter().enumerate() {
            let obj = fact.as_object().ok_or_else(|| format!("fact {i} is not an object"))?;
            let id = obj.get("id").and_then(Value::as_str).ok_or_else(|| format!("fact {i} has no string id"))?;
            if !is_fact_id(id) {
                return Err(format!(
                    "fact {i} has the id {} that is no fact id (letters, digits, optional @context)",
                    name(id)
                ));
            }
            if let Some(&first) = seen.get(id) {
                if facts[first] != *fact {
                    return Err(format!(
                        "fact id {} is given twice with different content (pass each result's \
                         facts as returned)",
                        name(id)
                    ));
                }
                continue;
            }
            seen.insert(id, i);
            let mut carried = Carried::default();
            for (key, value) in obj {
                if key != "id" {
                    carried.collect(value);
                }
            }
            index.facts.insert(id.to_string(), carried);
        }
        Ok(index)
    }

    /// Whether a fact with this id was given.
    pub fn contains(&self, id: &str) -> bool {
        self.facts.contains_key(id)
    }
}

impl Carried {
    /// Add the figures of a fact field.
    fn collect(&mut self, value: &Value) {
        match value {
            Value::Number(n) => {
                if let Some(num) = Num::parse_plain(&n.to_string()) {
                    self.numbers.push(num);
                }
            }
            Value::String(s) => {
                for figure in figures(s) {
                    match figure.kind {
                        Kind::Number(num) => self.numbers.push(num),
                        Kind::Date { date, time, zone } => {
                            if let Some(num) = Num::parse_plain(&date[..4]) {
                                self.numbers.push(num);
                            }
                            let mut full = date.clone();
                            if let Some(t) = &time {
                                full.push('T');
                                full.push_str(t);
                                full.push_str(&zone);
                            }
                            self.dates.push(full);
                            self.dates.push(date);
                            self.times.extend(time);
                        }
                        Kind::Time(t) => self.times.push(t),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.collect(v)),
            Value::Object(map) => map.values().for_each(|v| self.collect(v)),
            Value::Bool(_) | Value::Null => {}
        }
    }

    /// Whether this fact supports `figure`, whose canonical form is `full`.
    fn supports(&self, figure: &Figure, full: &str) -> bool {
        match &figure.kind {
            Kind::Number(num) => self.numbers.iter().any(|f| f.supports(num)),
            Kind::Date { date, time, zone } => {
                self.dates.iter().any(|d| d.starts_with(full))
                    || match time {
                        Some(t) if zone.is_empty() => {
                            self.dates.iter().any(|d| d == date) && self.times.iter().any(|x| x.starts_with(t.as_str()))
                        }
                        _ => false,
                    }
            }
            Kind::Time(t) => self.times.iter().any(|x| x.starts_with(t.as_str())),
        }
    }
}

/// A figure a text states: what it wrote, and what it means for matching.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The figure as written (sign, separators and `%` included, currency symbol not).
    pub text: String,
    kind: Kind,
}

impl Figure {
    /// The figure without its writing style: `1234`, `-5`, `45%`, `0.5`, `2024-03-01T12:00`,
    /// `07:05`.
    pub fn canonical(&self) -> String {
        match &self.kind {
            Kind::Number(n) => n.canonical(),
            Kind::Date { date, time: Some(t), zone } => format!("{date}T{t}{zone}"),
            Kind::Date { date, .. } => date.clone(),
            Kind::Time(t) => t.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Number(Num),
    /// `date` is `YYYY-MM-DD`, `time` `HH:MM[:SS[.f]]`, `zone` `Z`, `+HH:MM` or empty.
    Date {
        date: String,
        time: Option<String>,
        zone: String,
    },
    Time(String),
}

/// An exact decimal: `digits` (no leading zeros; empty for zero) over 10^`scale`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Num {
    neg: bool,
    digits: String,
    scale: usize,
    percent: bool,
}

impl Num {
    /// From its parts as written; `None` for an exponent beyond any real value.
    fn from_parts(neg: bool, int: &str, frac: &str, exp: i64, percent: bool) -> Option<Num> {
        if exp.abs() > 400 {
            return None;
        }
        let mut digits = format!("{int}{frac}");
        let mut scale = frac.len() as i64 - exp;
        if scale < 0 {
            digits.push_str(&"0".repeat((-scale) as usize));
            scale = 0;
        }
        let digits = digits.trim_start_matches('0').to_string();
        Some(Num { neg, digits, scale: scale as usize, percent })
    }

    /// A number as JSON or a plain numeric string writes it: `-12.5`, `1e-05`, `2024`.
    fn parse_plain(s: &str) -> Option<Num> {
        let (neg, rest) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (mant, exp) = match rest.find(['e', 'E']) {
            Some(p) => (&rest[..p], rest[p + 1..].parse::<i64>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let all_digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() && frac.is_empty() || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        Num::from_parts(neg, int, frac, exp, false)
    }

    /// Whether this value times 10^`shift`, rounded half away from zero to `places`
    /// decimals, has the digits `target` (no leading zeros; empty for zero). Allocates
    /// nothing: it runs for every figure against every number of every fact in scope.
    fn rounds_to(&self, shift: usize, places: usize, target: &str) -> bool {
        let (d, t) = (self.digits.as_bytes(), target.as_bytes());
        if d.is_empty() {
            return t.is_empty();
        }
        let scale = self.scale as i64 - shift as i64;
        let zeros = |x: &[u8]| x.iter().all(|&b| b == b'0');
        if scale <= places as i64 {
            // exact at this precision: the digits, then zeros
            let pad = (places as i64 - scale) as usize;
            return t.len() == d.len() + pad && &t[..d.len()] == d && zeros(&t[d.len()..]);
        }
        let drop = (scale - places as i64) as usize;
        if d.len() < drop {
            return t.is_empty();
        }
        let kept = &d[..d.len() - drop];
        if d[d.len() - drop] < b'5' {
            return kept == t;
        }
        // rounded up: the last digit that is not a 9 goes up by one, the 9s after it become 0s
        match kept.iter().rposition(|&b| b != b'9') {
            None => t.len() == kept.len() + 1 && t[0] == b'1' && zeros(&t[1..]),
            Some(p) => t.len() == kept.len() && t[..p] == kept[..p] && t[p] == kept[p] + 1 && zeros(&t[p + 1..]),
        }
    }

    /// Whether this fact number supports the stated `figure`.
    fn supports(&self, figure: &Num) -> bool {
        let (places, target) = (figure.scale, figure.digits.as_str());
        (self.neg == figure.neg || target.is_empty())
            && (self.rounds_to(0, places, target) || (figure.percent && self.rounds_to(2, places, target)))
    }

    fn canonical(&self) -> String {
        let mut d = self.digits.clone();
        if d.len() <= self.scale {
            d = format!("{}{d}", "0".repeat(self.scale + 1 - d.len()));
        }
        if self.scale > 0 {
            d.insert(d.len() - self.scale, '.');
        }
        let sign = if self.neg && !self.digits.is_empty() { "-" } else { "" };
        let pct = if self.percent { "%" } else { "" };
        format!("{sign}{d}{pct}")
    }
}

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0085}' | '\u{2028}' | '\u{2029}')
}

/// Byte ranges of the double-quoted values of `s`, quotes included (see the module doc).
fn quoted_spans(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = s[from..].find('"') {
        let open = from + rel;
        let mut close = None;
        for (n, (j, c)) in s[open + 1..].char_indices().enumerate() {
            if n > QUOTE_MAX_CHARS || is_line_break(c) {
                break;
            }
            if c == '"' {
                close = Some(open + 1 + j);
                break;
            }
        }
        match close {
            Some(c) => {
                out.push((open, c + 1));
                from = c + 1;
            }
            None => from = open + 1,
        }
    }
    out
}

/// The citation brackets of `s` that are not inside a quoted value.
fn citations_outside(s: &str, quotes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    citation_spans(s).into_iter().filter(|&(a, b)| !quotes.iter().any(|&(qa, qb)| a < qb && qa < b)).collect()
}

/// Whether the `.` that ends `before` closes an abbreviation, given the text `after` it.
fn is_abbreviation(before: &str, after: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"').next().unwrap_or("").to_lowercase();
    if !ABBREVIATIONS.contains(&word.as_str()) {
        return false;
    }
    let next = after.trim_start().chars().next();
    match word.as_str() {
        "no" | "nos" => next.is_some_and(|c| c.is_ascii_digit()),
        "etc" | "w.c" => !next.is_some_and(char::is_uppercase),
        // the pressure unit "in. w.c.", not the word at a sentence's end
        "in" => after.trim_start().to_lowercase().starts_with("w.c"),
        _ => true,
    }
}

/// Whether `piece` holds citations and nothing but punctuation besides.
fn only_citations(piece: &str) -> bool {
    let spans = citations_outside(piece, &quoted_spans(piece));
    if spans.is_empty() {
        return false;
    }
    let mut last = 0;
    let mut rest = String::new();
    for (a, b) in spans {
        rest.push_str(&piece[last..a]);
        last = b;
    }
    rest.push_str(&piece[last..]);
    rest.chars().all(|c| c.is_whitespace() || ".,;:!?)".contains(c))
}

/// The sentences of `text`, trimmed and in order (see the module doc).
pub fn sentences(text: &str) -> Vec<&str> {
    let quotes = quoted_spans(text);
    let mut q = 0;
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        while q < quotes.len() && quotes[q].1 <= i {
            q += 1;
        }
        if q < quotes.len() && quotes[q].0 <= i {
            continue;
        }
        if !matches!(c, '.' | '!' | '?') || !chars.peek().is_some_and(|&(_, n)| n.is_whitespace()) {
            continue;
        }
        let end = i + 1;
        if c == '.' && is_abbreviation(&text[start..i], &text[end..]) {
            continue;
        }
        ranges.push((start, end));
        start = end;
    }
    ranges.push((start, text.len()));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, b) in ranges {
        let piece = &text[a..b];
        let lead = piece.len() - piece.trim_start().len();
        let (a, b) = (a + lead, a + piece.trim_end().len());
        if a >= b {
            continue;
        }
        match out.last_mut() {
            Some(prev) if only_citations(&text[a..b]) => prev.1 = b,
            _ => out.push((a, b)),
        }
    }
    out.into_iter().map(|(a, b)| &text[a..b]).collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_minus(c: char) -> bool {
    c == '-' || c == '\u{2212}'
}

/// `s` with quoted values as letters and citations as spaces, one entry per char.
fn masked(s: &str) -> Vec<char> {
    let quotes = quoted_spans(s);
    let cites = citations_outside(s, &quotes);
    let (mut q, mut k) = (0, 0);
    s.char_indices()
        .map(|(i, c)| {
            while q < quotes.len() && quotes[q].1 <= i {
                q += 1;
            }
            while k < cites.len() && cites[k].1 <= i {
                k += 1;
            }
            if q < quotes.len() && quotes[q].0 <= i {
                'a'
            } else if k < cites.len() && cites[k].0 <= i {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The figures `sentence` states, in order (see the module doc for what counts).
pub fn figures(sentence: &str) -> Vec<Figure> {
    let c = masked(sentence);
    let mut out: Vec<Figure> = Vec::new();
    // end of the last number figure, to spot the second end of a range
    let mut last_end: Option<usize> = None;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if is_word(ch) && !ch.is_ascii_digit() {
            i = skip_name(&c, i);
            continue;
        }
        let leading_dot = ch == '.' && digit_at(&c, i + 1) && (i == 0 || !is_word(c[i - 1]));
        if !ch.is_ascii_digit() && !leading_dot {
            i += 1;
            continue;
        }
        let neg = i >= 1 && is_minus(c[i - 1]) && (i < 2 || !is_word(c[i - 2]));
        let (kind, end) = read_figure(&c, i, neg);
        if let Some(kind) = kind {
            let start = if neg && matches!(kind, Kind::Number(_)) { i - 1 } else { i };
            let range_end = i >= 1 && matches!(c[i - 1], '-' | '\u{2013}') && last_end == Some(i - 1);
            if let (true, Kind::Number(n), Some(prev)) = (range_end, &kind, out.last_mut()) {
                if let Kind::Number(p) = &mut prev.kind {
                    if n.percent && !p.percent {
                        p.percent = true;
                    }
                }
            }
            last_end = matches!(kind, Kind::Number(_)).then_some(end);
            out.push(Figure { text: c[start..end].iter().collect(), kind });
        }
        i = end;
    }
    out
}

fn digit_at(c: &[char], i: usize) -> bool {
    i < c.len() && c[i].is_ascii_digit()
}

/// The end of the name that starts at `i`: word chars, joined by single `-` or `.`.
fn skip_name(c: &[char], mut i: usize) -> usize {
    loop {
        while i < c.len() && is_word(c[i]) {
            i += 1;
        }
        if i + 1 < c.len() && matches!(c[i], '-' | '.') && is_word(c[i + 1]) {
            i += 1;
        } else {
            return i;
        }
    }
}

/// Digits from `i`: the string and where they end.
fn digits_from(c: &[char], i: usize) -> (String, usize) {
    let mut j = i;
    while digit_at(c, j) {
        j += 1;
    }
    (c[i..j].iter().collect(), j)
}

/// A run of exactly `n` digits at `i`, as a number.
fn exact_digits(c: &[char], i: usize, n: usize) -> Option<u32> {
    if i + n > c.len() || digit_at(c, i + n) {
        return None;
    }
    c[i..i + n].iter().try_fold(0u32, |acc, ch| ch.to_digit(10).map(|d| acc * 10 + d))
}

/// A time of day at `i` (`H:MM`, `HH:MM`, optional `:SS` and fraction): canonical and end.
fn read_time(c: &[char], i: usize) -> Option<(String, usize)> {
    let (h, j) = digits_from(c, i);
    if h.is_empty() || h.len() > 2 || c.get(j) != Some(&':') {
        return None;
    }
    let hour: u32 = h.parse().ok()?;
    let minute = exact_digits(c, j + 1, 2)?;
    if hour > 24 || minute > 59 {
        return None;
    }
    let mut t = format!("{hour:02}:{minute:02}");
    let mut end = j + 3;
    if c.get(end) == Some(&':') {
        if let Some(sec) = exact_digits(c, end + 1, 2).filter(|s| *s <= 60) {
            t.push_str(&format!(":{sec:02}"));
            end += 3;
            if c.get(end) == Some(&'.') && digit_at(c, end + 1) {
                let (f, e) = digits_from(c, end + 1);
                t.push('.');
                t.push_str(&f);
                end = e;
            }
        }
    }
    Some((t, end))
}

/// A date at `i` (`YYYY-MM-DD`, then optionally `T` or a space, a time and a zone).
fn read_date(c: &[char], i: usize) -> Option<(Kind, usize)> {
    let year = exact_digits(c, i, 4)?;
    if c.get(i + 4) != Some(&'-') || c.get(i + 7) != Some(&'-') {
        return None;
    }
    let month = exact_digits(c, i + 5, 2)?;
    let day = exact_digits(c, i + 8, 2)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let mut end = i + 10;
    let mut time = None;
    let mut zone = String::new();
    if matches!(c.get(end), Some('T' | ' ')) {
        if let Some((t, e)) = read_time(c, end + 1) {
            time = Some(t);
            end = e;
            if c.get(end) == Some(&'Z') && !c.get(end + 1).is_some_and(|&x| is_word(x)) {
                zone.push('Z');
                end += 1;
            } else if matches!(c.get(end), Some('+' | '-')) {
                if let (Some(h), Some(':'), Some(m)) =
                    (exact_digits(c, end + 1, 2), c.get(end + 3), exact_digits(c, end + 4, 2))
                {
                    zone = format!("{}{h:02}:{m:02}", c[end]);
                    end += 6;
                }
            }
        }
    }
    Some((Kind::Date { date, time, zone }, end))
}

/// The figure whose first digit (or leading `.`) is at `i`, and where reading stops.
/// `None` for a dotted run such as `1.2.3`, which is a version, not a figure.
fn read_figure(c: &[char], i: usize, neg: bool) -> (Option<Kind>, usize) {
    if let Some((kind, end)) = read_date(c, i) {
        return (Some(kind), end);
    }
    if let Some((t, end)) = read_time(c, i) {
        return (Some(Kind::Time(t)), end);
    }
    let (mut int, mut j) = digits_from(c, i);
    if int.len() <= 3 && !int.is_empty() {
        while c.get(j) == Some(&',') && exact_digits(c, j + 1, 3).is_some() {
            int.extend(&c[j + 1..j + 4]);
            j += 4;
        }
    }
    let mut frac = String::new();
    if c.get(j) == Some(&'.') && digit_at(c, j + 1) {
        let (f, e) = digits_from(c, j + 1);
        frac = f;
        j = e;
        if c.get(j) == Some(&'.') && digit_at(c, j + 1) {
            while digit_at(c, j) || (c.get(j) == Some(&'.') && digit_at(c, j + 1)) {
                j += 1;
            }
            return (None, j);
        }
    }
    let mut exp = 0i64;
    if matches!(c.get(j), Some('e' | 'E')) {
        let sign_len = usize::from(matches!(c.get(j + 1), Some('+' | '-')));
        let (e, end) = digits_from(c, j + 1 + sign_len);
        if !e.is_empty() && !c.get(end).is_some_and(|&x| is_word(x)) {
            let v: i64 = e.parse().unwrap_or(i64::MAX);
            exp = if c[j + 1] == '-' { -v } else { v };
            j = end;
        }
    }
    let percent = if c.get(j) == Some(&'%') {
        j += 1;
        true
    } else if c.get(j) == Some(&' ') && c.get(j + 1) == Some(&'%') {
        j += 2;
        true
    } else {
        false
    };
    (Num::from_parts(neg, &int, &frac, exp, percent).map(Kind::Number), j)
}

/// `sentence` without the brackets at `spans`, each taking the whitespace before it when
/// whitespace or closing punctuation follows.
fn without_spans(sentence: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(sentence.len());
    let mut last = 0;
    for &(a, b) in spans {
        out.push_str(&sentence[last..a]);
        let rest = &sentence[b..];
        let next = rest.chars().next();
        if next.is_none_or(|n| n.is_whitespace() || ".,;:!?)".contains(n)) {
            out.truncate(out.trim_end().len());
        }
        last = b;
    }
    out.push_str(&sentence[last..]);
    out.trim().to_string()
}

/// Check `text` against `facts` with each sentence's own citations: the host's strict step
/// and `check_citations`' default.
pub fn check(text: &str, facts: &FactIndex) -> Report {
    check_scoped(text, facts, Scope::Sentence)
}

/// Check `text` against `facts`, with the figures of a sentence supported by the facts of
/// `scope`.
pub fn check_scoped(text: &str, facts: &FactIndex, scope: Scope) -> Report {
    let parts = sentences(text);
    let text_cited: Vec<&Carried> = match scope {
        Scope::Sentence => Vec::new(),
        Scope::Text => {
            let quotes = quoted_spans(text);
            let mut ids: Vec<&str> = Vec::new();
            for (a, b) in citations_outside(text, &quotes) {
                let id = &text[a + 1..b - 1];
                if facts.contains(id) && !ids.contains(&id) {
                    ids.push(id);
                }
            }
            ids.iter().filter_map(|id| facts.facts.get(*id)).collect()
        }
    };
    let mut report = Report {
        sentences: Vec::with_capacity(parts.len()),
        verified_text: String::new(),
        removed_sentences: 0,
        removed_citations: 0,
    };
    let mut kept: Vec<String> = Vec::new();
    for (index, sentence) in parts.into_iter().enumerate() {
        let spans = citations_outside(sentence, &quoted_spans(sentence));
        let (mut citations, mut unknown) = (Vec::<String>::new(), Vec::<String>::new());
        let mut unknown_spans = Vec::new();
        for &(a, b) in &spans {
            let id = &sentence[a + 1..b - 1];
            let (list, known) = if facts.contains(id) { (&mut citations, true) } else { (&mut unknown, false) };
            if !known {
                unknown_spans.push((a, b));
            }
            if !list.iter().any(|x| x == id) {
                list.push(id.to_string());
            }
        }
        let own: Vec<&Carried> = citations.iter().filter_map(|id| facts.facts.get(id)).collect();
        let scope_facts = match scope {
            Scope::Sentence => &own,
            Scope::Text => &text_cited,
        };
        let stated = figures(sentence);
        let unsupported: Vec<String> = stated
            .iter()
            .filter(|f| {
                let full = f.canonical();
                !scope_facts.iter().any(|fact| fact.supports(f, &full))
            })
            .map(|f| f.text.clone())
            .collect();
        let verdict = if !unsupported.is_empty() {
            if spans.is_empty() {
                Verdict::Uncited
            } else {
                Verdict::UnsupportedNumber
            }
        } else if !unknown.is_empty() {
            Verdict::UnknownCitation
        } else {
            Verdict::Supported
        };
        if verdict.removes() {
            report.removed_sentences += 1;
        } else {
            report.removed_citations += unknown_spans.len();
            kept.push(without_spans(sentence, &unknown_spans));
        }
        report.sentences.push(SentenceReport {
            index,
            text: sentence.to_string(),
            verdict,
            citations,
            unknown,
            figures: stated.into_iter().map(|f| f.text).collect(),
            unsupported,
        });
    }
    report.verified_text = kept.iter().filter(|s| !s.is_empty()).cloned().collect::<Vec<_>>().join(" ");
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(s: &str) -> Vec<String> {
        figures(s).iter().map(Figure::canonical).collect()
    }

    fn index(facts: Value) -> FactIndex {
        FactIndex::new(facts.as_array().unwrap()).unwrap()
    }

    fn verdicts(text: &str, facts: &FactIndex) -> Vec<Verdict> {
        check(text, facts).sentences.iter().map(|s| s.verdict).collect()
    }

    use Verdict::*;

    #[test]
    fn quoted_names_and_ids_carry_no_figure() {
        assert!(canon("equipment \"AHU 2\" runs").is_empty());
        assert!(canon("AHU-2 and VAV-101 follow G36, F1 and CO2 at v1.2").is_empty());
        assert!(canon("zone \"Zone 3.5 east\" is warm").is_empty());
        assert_eq!(canon("AHU 2 runs"), vec!["2"]);
        assert!(canon("see [F12@points-1a2b3c] and [K3]").is_empty());
        assert!(canon("version 1.2.3 and host 192.168.0.1").is_empty());
        let f = index(json!([{"id": "F1", "text": "fan \"AHU 2\" runs 24 h"}]));
        assert_eq!(verdicts("Fan \"AHU 2\" runs 24 h [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("Fan \"AHU-2\" is on.", &f), vec![Supported]);
        // a bare number cannot borrow from a name the fact quotes
        assert_eq!(verdicts("Fan AHU 2 runs 24 h [F1].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("Fan AHU 3 runs 24 h [F1].", &f), vec![UnsupportedNumber]);
    }

    #[test]
    fn inches_of_water_do_not_end_a_sentence() {
        let s = sentences("The static setpoint spans 0.25 in. w.c. over 15 days. It is fixed in. Next one.");
        assert_eq!(s, vec!["The static setpoint spans 0.25 in. w.c. over 15 days.", "It is fixed in.", "Next one."]);
        assert_eq!(sentences("It holds 1.5 in. w.c. The fan runs.").len(), 2);
    }

    #[test]
    fn quotes_do_not_split_sentences_and_stray_quotes_are_plain() {
        let s = sentences("Zone \"No. 3. East\" is warm. It runs 5 h.");
        assert_eq!(s, vec!["Zone \"No. 3. East\" is warm.", "It runs 5 h."]);
        // an unmatched quote does not swallow the rest of the text
        let long = format!("A 5\" pipe. {} 7 h.", "x".repeat(120));
        assert_eq!(sentences(&long).len(), 2);
        assert_eq!(canon(&long), vec!["5", "7"]);
    }

    #[test]
    fn thousands_separators_both_ways() {
        assert_eq!(canon("1,234 and $1,200 and 1,234.50"), vec!["1234", "1200", "1234.50"]);
        assert_eq!(canon("1,2,3"), vec!["1", "2", "3"]);
        assert_eq!(canon("24,25"), vec!["24", "25"]);
        let f = index(json!([{"id": "F1", "value": 1234}, {"id": "F2", "text": "cost $1,234"}]));
        assert_eq!(verdicts("It used 1,234 kWh [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("It cost 1234 dollars [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It cost $1,235 [F2].", &f), vec![UnsupportedNumber]);
    }

    #[test]
    fn negative_numbers_keep_their_sign() {
        assert_eq!(canon("OAT was -5 °F (-3.5) and −2"), vec!["-5", "-3.5", "-2"]);
        let f = index(json!([{"id": "F1", "value": -5}, {"id": "F2", "value": 5}]));
        assert_eq!(verdicts("OAT was -5 °F [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("OAT was -5 °F [F2].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("OAT was 5 °F [F1].", &f), vec![UnsupportedNumber]);
        let s = index(json!([{"id": "F1", "value": "-5"}]));
        assert_eq!(verdicts("OAT was -5 °F [F1].", &s), vec![Supported]);
    }

    #[test]
    fn ranges_are_two_figures() {
        assert_eq!(canon("10-20 and 10\u{2013}20"), vec!["10", "20", "10", "20"]);
        assert_eq!(canon("10-20%"), vec!["10%", "20%"]);
        let both = index(json!([{"id": "F1", "text": "low 10"}, {"id": "F2", "value": [10, 20]}]));
        assert_eq!(verdicts("It ran 10-20 h [F1][F2].", &both), vec![Supported]);
        assert_eq!(verdicts("It ran 10\u{2013}20 h [F2].", &both), vec![Supported]);
        assert_eq!(verdicts("It ran 10-20 h [F1].", &both), vec![UnsupportedNumber]);
        let r = check("It ran 10-20 h [F1].", &both);
        assert_eq!(r.sentences[0].unsupported, vec!["20"]);
    }

    #[test]
    fn rounding_at_the_figures_precision() {
        let f = index(json!([{"id": "F1", "value": 12.34}, {"id": "F2", "value": 0.456}]));
        assert_eq!(verdicts("It is 12.3 kW [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("It is 12 kW [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("It is 12.340 kW [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("It is 12.4 kW [F1].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("It is 12.35 kW [F1].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("It is 0.46 [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It is 0.5 [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It is .5 [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It is 0.4 [F2].", &f), vec![UnsupportedNumber]);
        // half away from zero, also for a negative value
        let h = index(json!([{"id": "F1", "value": -2.5}, {"id": "F2", "value": 9.96}]));
        assert_eq!(verdicts("It is -3 [F1].", &h), vec![Supported]);
        assert_eq!(verdicts("It is 10.0 [F2].", &h), vec![Supported]);
        assert_eq!(verdicts("It is 1e1 [F2].", &h), vec![Supported]);
    }

    #[test]
    fn rounding_carries_and_zero() {
        let n = |s: &str| Num::parse_plain(s).unwrap();
        assert!(n("99.5").rounds_to(0, 0, "100"));
        assert!(n("0.5").rounds_to(0, 0, "1"));
        assert!(n("0.04").rounds_to(0, 1, ""));
        assert!(n("0.0449").rounds_to(0, 2, "4"));
        assert!(n("1.995").rounds_to(0, 2, "200"));
        assert!(n("1.994").rounds_to(0, 2, "199"));
        assert!(n("0.4").rounds_to(2, 0, "40"));
        assert!(n("5").rounds_to(2, 1, "5000"));
        assert!(!n("12.34").rounds_to(0, 1, "124"));
        // a fact -0.2 supports a stated 0 (no sign on zero), not -1
        let f = index(json!([{"id": "F1", "value": -0.2}]));
        assert_eq!(verdicts("It is 0 [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("It is -1 [F1].", &f), vec![UnsupportedNumber]);
    }

    #[test]
    fn percentages() {
        assert_eq!(canon("45% and 45 % and 4.5%"), vec!["45%", "45%", "4.5%"]);
        let f = index(json!([
            {"id": "F1", "kind": "share", "value": 0.45},
            {"id": "F2", "text": "45 percent"},
            {"id": "F3", "value": 0.456}
        ]));
        assert_eq!(verdicts("A share of 45% [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("A share of 45% [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("A share of 46% [F3].", &f), vec![Supported]);
        assert_eq!(verdicts("A share of 45.6% [F3].", &f), vec![Supported]);
        assert_eq!(verdicts("A share of 44% [F1].", &f), vec![UnsupportedNumber]);
        // a plain number is not read as a fraction
        assert_eq!(verdicts("A share of 45 [F1].", &f), vec![UnsupportedNumber]);
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(canon("on 2024-03-01"), vec!["2024-03-01"]);
        assert_eq!(canon("at 2024-03-01T12:00:00Z"), vec!["2024-03-01T12:00:00Z"]);
        assert_eq!(canon("at 2024-03-01 12:30"), vec!["2024-03-01T12:30"]);
        assert_eq!(canon("at 7:05 and 12:30:15"), vec!["07:05", "12:30:15"]);
        assert_eq!(canon("in 2024"), vec!["2024"]);
        let f = index(json!([
            {"id": "F1", "value": "2024-03-01T00:00:00"},
            {"id": "F2", "text": "first fault 2024-03-01T12:30:00+01:00"},
            {"id": "F3", "text": "on 2024-03-02 at 06:15"}
        ]));
        assert_eq!(verdicts("Onset was 2024-03-01 [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("Onset was in 2024 [F1].", &f), vec![Supported]);
        assert_eq!(verdicts("Onset was 2024-03-02 [F1].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("Onset was 2025-03-01 [F1].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("It began 2024-03-01T12:30 [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It began at 12:30 [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("It began at 12:45 [F2].", &f), vec![UnsupportedNumber]);
        assert_eq!(verdicts("It began 2024-03-02 06:15 [F3].", &f), vec![Supported]);
        assert_eq!(verdicts("It began at 6:15 [F3].", &f), vec![Supported]);
    }

    #[test]
    fn unknown_citation_keeps_its_sentence() {
        let f = index(json!([{"id": "F1", "text": "fan runtime 24 h"}]));
        let text = "Fan runs 24 hours [F9]. Fan runs 24 hours [F1][F9]. Fan is noisy [X9]. \
                    Fan runs 24 hours [F1].";
        let r = check(text, &f);
        let v: Vec<Verdict> = r.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(v, vec![UnsupportedNumber, UnknownCitation, UnknownCitation, Supported]);
        assert_eq!(r.sentences[1].citations, vec!["F1"]);
        assert_eq!(r.sentences[1].unknown, vec!["F9"]);
        assert_eq!(r.verified_text, "Fan runs 24 hours [F1]. Fan is noisy. Fan runs 24 hours [F1].");
        assert_eq!((r.removed_sentences, r.removed_citations), (1, 2));
        let r = check("It is quiet [X9] today [F1].", &f);
        assert_eq!(r.verified_text, "It is quiet today [F1].");
    }

    #[test]
    fn uncited_sentences() {
        let f = index(json!([{"id": "F1", "value": 24}]));
        let r = check("Fan runs 24 hours. Fan is noisy. It runs 24 h [F1].", &f);
        let v: Vec<Verdict> = r.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(v, vec![Uncited, Supported, Supported]);
        assert_eq!(r.verified_text, "Fan is noisy. It runs 24 h [F1].");
        assert_eq!(r.count(Uncited), 1);
        assert_eq!(r.count(Supported), 2);
        // a sentence's figures need its own citation; the text scope widens that
        let t = check_scoped("Fan runs 24 hours. See [F1]. Pump runs 12 h.", &f, Scope::Text);
        let v: Vec<Verdict> = t.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(v, vec![Supported, Supported, Uncited]);
    }

    #[test]
    fn second_citation_carries_the_figure() {
        let f = index(json!([{"id": "F1", "text": "fan on"}, {"id": "F2", "value": 72.4}]));
        assert_eq!(verdicts("Supply air was 72 °F [F1][F2].", &f), vec![Supported]);
        assert_eq!(verdicts("Supply air was 72 °F [F1] and [F2].", &f), vec![Supported]);
        assert_eq!(verdicts("Supply air was 72 °F [F1].", &f), vec![UnsupportedNumber]);
    }

    #[test]
    fn abbreviations_do_not_split() {
        let s = sentences(
            "Savings were 3.5 MWh, e.g. in May [F1]. Per Fig. 3 vs. approx. 4 i.e. more. \
             See No. 5 now. Fans, pumps, etc. The end etc. and more. Say no. Next!  Done? Yes",
        );
        assert_eq!(
            s,
            vec![
                "Savings were 3.5 MWh, e.g. in May [F1].",
                "Per Fig. 3 vs. approx. 4 i.e. more.",
                "See No. 5 now.",
                "Fans, pumps, etc.",
                "The end etc. and more.",
                "Say no.",
                "Next!",
                "Done?",
                "Yes",
            ]
        );
        let f = index(json!([{"id": "F1", "metrics": {"mwh": 3.5, "month": 5}}]));
        assert_eq!(verdicts("Savings were 3.5 MWh, e.g. in May [F1].", &f), vec![Supported]);
    }

    #[test]
    fn a_trailing_citation_belongs_to_its_sentence() {
        assert_eq!(sentences("Found 24 faults. [F1]"), vec!["Found 24 faults. [F1]"]);
        assert_eq!(sentences("Found 24 faults. [F1][F2]. Next."), vec!["Found 24 faults. [F1][F2].", "Next."]);
        let f = index(json!([{"id": "F1", "value": 24}]));
        assert_eq!(verdicts("Found 24 faults. [F1].", &f), vec![Supported]);
    }

    #[test]
    fn figures_odd_cases() {
        assert_eq!(canon("5th and 2x and 12kW"), vec!["5", "2", "12"]);
        assert_eq!(canon("+5, ~5, (5), #5"), vec!["5", "5", "5", "5"]);
        assert_eq!(canon("1e-05 and 2.0e3"), vec!["0.00001", "2000"]);
        assert_eq!(canon("007 and 100.0"), vec!["7", "100.0"]);
        assert_eq!(canon("3/4"), vec!["3", "4"]);
        assert_eq!(figures("cost $1,200").first().map(|f| f.text.as_str()), Some("1,200"));
        assert!(canon("").is_empty());
        assert!(canon("1e99999").len() <= 1);
    }

    #[test]
    fn fact_values_are_read_recursively() {
        let f = index(json!([{
            "id": "F1@rule_run-1a2b3c", "kind": "finding", "value": {"a": [1.5, "2,500"], "b": {"c": 7}},
            "flag": true, "none": null
        }]));
        let v = verdicts("Values 1.5, 2,500 and 7 [F1@rule_run-1a2b3c].", &f);
        assert_eq!(v, vec![Supported]);
    }

    #[test]
    fn bad_facts_are_errors() {
        assert!(FactIndex::new(&[json!({"text": "x"})]).is_err());
        assert!(FactIndex::new(&[json!({"id": "not an id"})]).is_err());
        assert!(FactIndex::new(&[json!("F1")]).is_err());
        let twice = [json!({"id": "F1", "text": "a"}), json!({"id": "F1", "text": "b"})];
        let err = FactIndex::new(&twice).unwrap_err();
        assert!(err.contains("given twice"), "{err}");
        let same = [json!({"id": "F1", "text": "a"}), json!({"id": "F1", "text": "a"})];
        assert!(FactIndex::new(&same).unwrap().contains("F1"));
    }

    #[test]
    fn verdicts_serialize_snake_case() {
        let v = serde_json::to_value([Supported, UnknownCitation, Uncited, UnsupportedNumber]);
        assert_eq!(v.unwrap(), json!(["supported", "unknown_citation", "uncited", "unsupported_number"]));
    }

    #[test]
    fn fifty_thousand_chars_and_five_thousand_facts() {
        let facts: Vec<Value> = (0..5000)
            .map(|i| {
                json!({"id": format!("F{i}@perf-1a2b3c"), "text": format!("unit {i} used {i}.5 kWh"),
                            "value": i as f64 + 0.25, "kind": "energy"})
            })
            .collect();
        let started = std::time::Instant::now();
        let index = FactIndex::new(&facts).unwrap();
        let built = started.elapsed();
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 50_000 {
            let n = i % 5000;
            if i % 10 == 9 {
                text.push_str(&format!("Unit \"AHU-{n}\" used {}.5 kWh [F{n}@perf-1a2b3c]. ", n + 1));
            } else {
                text.push_str(&format!("Unit {n} used {n}.5 kWh, e.g. {n}.3 [F{n}@perf-1a2b3c]. "));
            }
            i += 1;
        }
        let started = std::time::Instant::now();
        let r = check(&text, &index);
        let checked = started.elapsed();
        let (chars, n) = (text.len(), facts.len());
        eprintln!("{n} facts indexed in {built:?}; {chars} chars checked in {checked:?}");
        assert_eq!(r.sentences.len(), i);
        assert_eq!(r.count(UnsupportedNumber), i / 10);
        assert_eq!(r.count(Supported), i - i / 10);
    }
}
