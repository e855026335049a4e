//! Path redaction: no absolute local path leaves the host, and no path the caller sent comes
//! back to it. The known roots (the store, the config and its folder, home, temp, the working
//! directory) are replaced by `<path>` in every spelling; then a pattern takes any other
//! absolute path outside a quoted name from the data; and what the caller sent ([`Sent`]) is
//! taken wherever a message echoes it, quoted or not. The registry applies it to every text,
//! banner, fact text and error; the serving adapters to messages made of what a client sent.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Takes absolute local paths out of text that leaves the host.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// Known roots (the store, the config and its folder, home, temp, the working directory,
    /// the capability and cache folders), longest first.
    roots: Vec<String>,
}

impl Redactor {
    /// A redactor for these known roots (plus home, temp and the working directory).
    pub fn new<I: IntoIterator<Item = std::path::PathBuf>>(paths: I) -> Redactor {
        let mut roots: BTreeSet<String> = BTreeSet::new();
        let mut add = |p: std::path::PathBuf| {
            let s = p.to_string_lossy().trim_end_matches('/').to_string();
            if s.len() > 1 {
                roots.insert(s);
            }
            if let Ok(c) = p.canonicalize() {
                let s = c.to_string_lossy().trim_end_matches('/').to_string();
                if s.len() > 1 {
                    roots.insert(s);
                }
            }
        };
        for p in paths {
            add(p);
        }
        if let Some(h) = std::env::var_os("HOME") {
            add(h.into());
        }
        add(std::env::temp_dir());
        if let Ok(cwd) = std::env::current_dir() {
            add(cwd);
        }
        let mut roots: Vec<String> = roots.into_iter().collect();
        roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
        Redactor { roots }
    }

    /// The roots it redacts (what decides what it does to a text, besides the call's echoes).
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// Replace the known roots only (for names from the data).
    pub fn roots_only(&self, s: &str) -> String {
        let mut out = s.to_string();
        for r in &self.roots {
            if out.contains(r.as_str()) {
                out = replace_root(&out, r);
            }
        }
        out
    }

    /// Replace the known roots, then any other absolute path outside a quoted value.
    pub fn redact(&self, s: &str) -> String {
        redact_pattern(&self.roots_only(s), &|_| false)
    }

    /// [`Redactor::redact`], and also the quoted paths the caller sent.
    pub fn redact_echoes(&self, s: &str, sent: &Sent) -> String {
        redact_pattern(&self.roots_only(s), &|run| sent.echoed(run))
    }

    /// A message made of a value the caller sent (an unknown tool or method name): the
    /// known roots, then every absolute path, quoted or not.
    pub fn redact_sent(&self, s: &str) -> String {
        redact_pattern(&self.roots_only(s), &|_| true)
    }

    /// A name the caller sent, echoed in a message (an unknown method, tool or prompt): on one
    /// line, [`Redactor::redact_sent`], and cut as names from the data are, so a 100,000-character
    /// method name does not come back whole.
    pub fn echo(&self, s: &str) -> String {
        let line = self.redact_sent(&crate::text::one_line(s));
        crate::text::cut(&line, crate::text::NAME_MAX_CHARS).unwrap_or(line)
    }

    /// A JSON pointer into the caller's arguments: its segments are the caller's keys, so a
    /// segment that holds a path (written `~1` for `/`) reads `<path>`.
    pub fn redact_pointer(&self, ptr: &str) -> String {
        if !ptr.contains('~') && self.roots_only(ptr) == ptr {
            return ptr.to_string();
        }
        ptr.split('/')
            .map(|seg| {
                let key = seg.replace("~1", "/").replace("~0", "~");
                if self.redact_sent(&key) == key {
                    seg.to_string()
                } else {
                    "<path>".to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// Redact every string (and key) in an error's data: known roots only, since the data
    /// lists values from the store.
    pub fn redact_data(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.roots_only(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.redact_data(x)).collect()),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(self.roots_only(k), self.redact_data(x));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// [`Redactor::redact_data`], and also the paths the caller sent (an error's data is
    /// stored names, kept as they are, and the caller's values, redacted).
    pub fn redact_data_echoes(&self, v: &Value, sent: &Sent) -> Value {
        match v {
            Value::String(s) => Value::String(redact_runs(&self.roots_only(s), &|run| sent.echoed(run), true)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.redact_data_echoes(x, sent)).collect()),
            Value::Object(m) => {
                let mut out = Map::new();
                for (k, x) in m {
                    out.insert(
                        redact_runs(&self.roots_only(k), &|run| sent.echoed(run), true),
                        self.redact_data_echoes(x, sent),
                    );
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
}

/// Replace `root` (when it is a whole path prefix) and the rest of its path with `<path>`.
/// After the root the path runs on across a space while the next word holds a separator.
fn replace_root(s: &str, root: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find(root) {
        let after = &rest[pos + root.len()..];
        let boundary = after.is_empty()
            || after.starts_with(['/', '\\'])
            || !after.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.');
        if !boundary {
            out.push_str(&rest[..pos + root.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..pos]);
        out.push_str("<path>");
        let mut i = path_run(after);
        loop {
            let tail = &after[i..];
            if !tail.starts_with(' ') {
                break;
            }
            let word_end = tail[1..].find(char::is_whitespace).map(|e| e + 1).unwrap_or(tail.len());
            let word = &tail[1..word_end];
            if !word.is_empty() && word.contains(['/', '\\']) {
                i += word_end;
            } else {
                break;
            }
        }
        rest = &after[i..];
    }
    out.push_str(rest);
    out
}

/// Length of the path characters at the start of `s` (up to whitespace or a delimiter).
fn path_run(s: &str) -> usize {
    s.char_indices()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | ',' | ';' | ')' | ']'))
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

/// Replace absolute paths (`/x/y`, `~/x`, `C:\x`) outside double-quoted values, and inside
/// them those for which `echoed` says yes (a value the caller sent).
fn redact_pattern(s: &str, echoed: &dyn Fn(&str) -> bool) -> String {
    redact_runs(s, echoed, false)
}

/// [`redact_pattern`]; with `name`, all of `s` is a name from the data, as if quoted.
fn redact_runs(s: &str, echoed: &dyn Fn(&str) -> bool, name: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut in_quote = name;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if c == '"' && !name {
            in_quote = !in_quote;
            out.push(c);
            i += 1;
            continue;
        }
        let prev = if i == 0 { None } else { Some(chars[i - 1].1) };
        let starts_ok = prev
            .is_none_or(|p| !(p.is_alphanumeric() || matches!(p, '_' | '.' | '~' | '/' | '\\' | '<' | '>' | '[')))
            && !(prev == Some(':') && s[at..].starts_with("//"));
        if starts_ok {
            let rest = &s[at..];
            // a file URL names a local path whatever its scheme's case (file:///etc/passwd)
            if let Some(run) = file_url_run(rest) {
                let run = quoted_extent(s, i, &chars, name).unwrap_or(run);
                if !in_quote || echoed(&rest[..run]) {
                    out.push_str("<path>");
                    let end = at + run;
                    while i < chars.len() && chars[i].0 < end {
                        i += 1;
                    }
                    continue;
                }
            }
            let lead = if rest.starts_with("~/") || rest.starts_with("~\\") {
                2
            } else if rest.starts_with('/') {
                1
            } else if rest.len() >= 3
                && rest.as_bytes()[0].is_ascii_alphabetic()
                && rest.as_bytes()[1] == b':'
                && matches!(rest.as_bytes()[2], b'/' | b'\\')
            {
                3
            } else {
                0
            };
            if lead > 0 {
                // a path that opens a quoted value is the whole value, spaces and commas included
                let run = quoted_extent(s, i, &chars, name).unwrap_or_else(|| path_run(rest));
                // "/ x" or a lone "/" is punctuation, not a path
                let is_path = run > lead && !rest[lead..run].starts_with(['/', ' ']) || (lead == 3 && run >= 3);
                if is_path && (!in_quote || echoed(&rest[..run])) {
                    out.push_str("<path>");
                    let end = at + run;
                    while i < chars.len() && chars[i].0 < end {
                        i += 1;
                    }
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Where a path starting at char `i` of `s` ends when it opens a quoted value (the char before
/// it a double or single quote that closes later in `s`), or, for a name from the data, when it
/// starts the name: as a byte length from the path's start. `None` when it opens no such value.
fn quoted_extent(s: &str, i: usize, chars: &[(usize, char)], name: bool) -> Option<usize> {
    let at = chars[i].0;
    if name && i == 0 {
        return Some(s.len());
    }
    let q = chars.get(i.checked_sub(1)?)?.1;
    if !matches!(q, '"' | '\'') {
        return None;
    }
    s[at..].find(q).filter(|&n| n > 0)
}

/// The length of a `file:` URL at the start of `s` (`file:///etc/passwd`, `FILE://host/x`), up to
/// whitespace or a delimiter; `None` when `s` does not start with one.
fn file_url_run(s: &str) -> Option<usize> {
    let head = s.get(..7)?;
    if !head.eq_ignore_ascii_case("file://") {
        return None;
    }
    let run = path_run(s);
    (run > 7).then_some(run)
}

/// What the caller sent (string values and keys of the arguments, the capability's name)
/// that could hold a path, in the forms a message may echo it in: as sent, on one line, as
/// JSON, as [`camber_common::text::name`] writes it. A quoted path in a message is a name
/// from the data, and is kept, unless the caller sent it: the spec wants a value the caller
/// sent redacted like the tool's own words, so no answer tells which paths exist.
#[derive(Clone, Debug, Default)]
pub struct Sent {
    values: Vec<String>,
    /// Every form of every value, separated by NUL (no message holds one).
    haystack: String,
}

impl Sent {
    /// The values it holds (those that could hold a path), as sent: what decides what a
    /// redaction of the call's echoes does.
    pub fn values(&self) -> &[String] {
        &self.values
    }

    /// The values among `values` that could hold a path.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Sent {
        let values: Vec<String> =
            values.into_iter().filter(|v| v.contains(['/', '\\', '~'])).map(str::to_string).collect();
        let mut haystack = String::new();
        for v in &values {
            let named = crate::text::name(v);
            let json = serde_json::to_string(v).unwrap_or_default();
            for form in [
                v.as_str(),
                &crate::text::one_line(v),
                &json[1..json.len().saturating_sub(1)],
                &named[1..named.len() - 1],
            ] {
                haystack.push_str(form);
                haystack.push('\0');
            }
        }
        Sent { values, haystack }
    }

    /// The capability name and every string (value or key) of the arguments.
    pub fn of_call(name: &str, args: &Value) -> Sent {
        let mut all = vec![name];
        strings(args, &mut all, 0);
        Sent::new(all)
    }

    /// Without the values the result's data holds as they are (a stored name the caller
    /// asked about, such as a Niagara ORD, is the data's, and a result may name it).
    pub fn except_in(&self, data: &Value) -> Sent {
        if self.values.is_empty() {
            return self.clone();
        }
        let mut found = Vec::new();
        strings(data, &mut found, 0);
        let found: BTreeSet<&str> = found.into_iter().collect();
        Sent::new(self.values.iter().map(String::as_str).filter(|v| !found.contains(v)))
    }

    fn echoed(&self, run: &str) -> bool {
        !self.haystack.is_empty() && self.haystack.contains(run)
    }
}

/// Every string and object key in `v` (to 64 levels).
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out, depth + 1)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k);
                strings(x, out, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn redaction() {
        let r = Redactor { roots: vec!["/srv/stores/main".into(), "/home/ana".into()] };
        assert_eq!(r.redact("cannot read /srv/stores/main/facility_id=hq/x.parquet: bad"), "cannot read <path> bad");
        assert_eq!(r.redact("at /home/ana/John Smith/My Drive/x end"), "at <path> end");
        assert_eq!(r.redact("panicked at /opt/secret/db.sqlite now"), "panicked at <path> now");
        assert_eq!(r.redact("non-commercial / no-derivatives, kBtu/ft2"), "non-commercial / no-derivatives, kBtu/ft2");
        assert_eq!(
            r.redact("equipment \"/Drivers/BacnetNetwork/AHU_1\" is odd"),
            "equipment \"/Drivers/BacnetNetwork/AHU_1\" is odd"
        );
        assert_eq!(r.redact("see C:\\Users\\x\\f.csv and ~/notes.txt"), "see <path> and <path>");
        assert_eq!(r.redact("a URL https://example.com/a stays"), "a URL https://example.com/a stays");
        assert_eq!(
            r.redact_data(&json!({"k": "/home/ana/x", "v": "/Drivers/A"})),
            json!({"k": "<path>", "v": "/Drivers/A"})
        );
        assert_eq!(r.redact("/facility_id: missing"), "<path> missing");
    }

    #[test]
    fn paths_the_caller_sent_are_redacted_even_quoted() {
        let r = Redactor { roots: vec!["/srv/stores/main".into()] };
        let sent = Sent::of_call(
            "points",
            &json!({"facility_id": "/usr/lib/secret", "q": ["C:\\Users\\ana\\x.csv"], "/etc/key": 1, "ord": "/Drivers/A"}),
        );
        // a schema refusal quotes the value as JSON
        assert_eq!(
            r.redact_echoes(r#""/usr/lib/secret" is not of type "integer""#, &sent),
            r#""<path>" is not of type "integer""#
        );
        assert_eq!(
            r.redact_echoes(r#"["C:\\Users\\ana\\x.csv"] is not of type "string""#, &sent),
            r#"["<path>"] is not of type "string""#
        );
        // as name() writes it, and a key
        assert_eq!(
            r.redact_echoes(r#"query "/usr/lib/secret" matched nothing"#, &sent),
            r#"query "<path>" matched nothing"#
        );
        assert_eq!(r.redact_echoes(r#"'/etc/key' was unexpected"#, &sent), r#"'<path>' was unexpected"#);
        // a quoted name the caller did not send stays; the store root never does
        assert_eq!(
            r.redact_echoes(r#"equipment "/Drivers/B" and "/srv/stores/main/x""#, &sent),
            r#"equipment "/Drivers/B" and "<path>""#
        );
        // unless the data holds the value as it is: then it is a stored name
        let data = json!({"rows": [{"equip": "/Drivers/A"}]});
        assert_eq!(r.redact_echoes(r#"equipment "/Drivers/A""#, &sent), r#"equipment "<path>""#);
        assert_eq!(r.redact_echoes(r#"equipment "/Drivers/A""#, &sent.except_in(&data)), r#"equipment "/Drivers/A""#);
        // error data: stored names stay, the caller's values go
        assert_eq!(
            r.redact_data_echoes(&json!({"sent": "/usr/lib/secret", "near": ["/Drivers/B"]}), &sent),
            json!({"sent": "<path>", "near": ["/Drivers/B"]})
        );
        // a message made of what the caller sent, quotes or not
        assert_eq!(r.redact_sent(r#"Unknown tool: "/usr/lib/x""#), "Unknown tool: \"<path>\"");
        assert_eq!(r.redact_sent("Method not found: /srv/stores/main/a b"), "Method not found: <path> b");
        // a file URL, a quoted path with spaces whole, a path behind an escape sequence
        assert_eq!(r.redact_sent("Method not found: file:///etc/passwd"), "Method not found: <path>");
        assert_eq!(r.redact("cannot open FILE://host/share/x.csv now"), "cannot open <path> now");
        let spaced = Sent::of_call("points", &json!({"facility_id": "/home/user/My Drive/x.csv"}));
        assert_eq!(
            r.redact_echoes(r#""/home/user/My Drive/x.csv" is not of type "integer""#, &spaced),
            r#""<path>" is not of type "integer""#
        );
        assert_eq!(r.redact("no file '/opt/My Files/a, b.csv' here"), "no file '<path>' here");
        assert_eq!(
            r.redact_data_echoes(&json!({"sent": "/home/user/My Drive/x.csv"}), &spaced),
            json!({"sent": "<path>"})
        );
        let escaped = "Method not found: \u{1b}[2J/etc/passwd";
        assert_eq!(r.redact_sent(&crate::text::one_line(escaped)), "Method not found: <path>");
        // an echoed name is cut
        let long = format!("x/{}", "m".repeat(100_000));
        assert_eq!(r.echo(&long).chars().count(), crate::text::NAME_MAX_CHARS);
        assert_eq!(r.echo("tools/lsit\n"), "tools/lsit ");
        // a pointer's segments are the caller's keys
        assert_eq!(r.redact_pointer("/facility_id"), "/facility_id");
        assert_eq!(r.redact_pointer("/x/~1etc~1key"), "/x/<path>");
        assert_eq!(r.redact_pointer("/rows/0"), "/rows/0");
    }
}
