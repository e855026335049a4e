//! The policy's text rules: every text, fact text, banner and error message is one line with
//! no invisible or control characters, and every value taken from the data is written with
//! [`name`], so it can never pass for the tool's own words, a citation, markup or a link.

use sha2::{Digest, Sha256};

/// Names from the data are cut to this many characters in text.
pub const NAME_MAX_CHARS: usize = 100;
/// Strings in `data` and `facts` are cut to this many characters.
pub const DATA_MAX_CHARS: usize = 2000;

/// Whether `c` is removed from one-line text: C0/C1 controls (other than the whitespace that
/// becomes a space), bidi embeddings, overrides, isolates and marks, zero-width and other
/// invisible formatting characters.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{0000}'..='\u{0008}' | '\u{000B}' | '\u{000E}'..='\u{001F}' | '\u{007F}'..='\u{009F}'
        | '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E007F}')
}

/// How many chars of `rest` (which starts with ESC or the C1 CSI) form one terminal escape
/// sequence: a control sequence (`ESC [` or CSI, parameters, intermediates, a final byte), a
/// string (`ESC ]`, `ESC P`, `ESC X`, `ESC ^`, `ESC _` up to BEL or `ESC \\`), or an escape
/// with intermediates and a final byte (`ESC ( B`, `ESC c`). Just the introducer when the
/// sequence is cut short, so no text after it is lost.
fn escape_len(rest: &[char]) -> usize {
    let csi = |from: usize| {
        let mut k = from;
        while k < rest.len() && ('\u{30}'..='\u{3F}').contains(&rest[k]) {
            k += 1;
        }
        while k < rest.len() && ('\u{20}'..='\u{2F}').contains(&rest[k]) {
            k += 1;
        }
        if k < rest.len() && ('\u{40}'..='\u{7E}').contains(&rest[k]) {
            k + 1
        } else {
            from
        }
    };
    if rest[0] == '\u{9B}' {
        return csi(1);
    }
    match rest.get(1) {
        Some('[') => csi(2),
        Some(']' | 'P' | 'X' | '^' | '_') => {
            let mut k = 2;
            while k < rest.len() {
                match rest[k] {
                    '\u{07}' | '\u{9C}' => return k + 1,
                    '\u{1B}' if rest.get(k + 1) == Some(&'\\') => return k + 2,
                    _ => k += 1,
                }
            }
            2
        }
        Some(&c) if ('\u{20}'..='\u{2F}').contains(&c) => {
            let mut k = 1;
            while k < rest.len() && ('\u{20}'..='\u{2F}').contains(&rest[k]) {
                k += 1;
            }
            if k < rest.len() && ('\u{30}'..='\u{7E}').contains(&rest[k]) {
                k + 1
            } else {
                1
            }
        }
        Some(&c) if ('\u{30}'..='\u{7E}').contains(&c) => 2,
        _ => 1,
    }
}

/// `s` on one line: newlines, tabs, form feeds and the Unicode line and paragraph separators
/// become spaces; terminal escape sequences are removed whole (what follows one is read as it
/// would be on a screen, so a path behind `ESC [2J` is a path); the characters of
/// [`is_invisible`] are removed.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    if s.contains(['\u{1B}', '\u{9B}']) {
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if matches!(chars[i], '\u{1B}' | '\u{9B}') {
                i += escape_len(&chars[i..]).max(1);
                continue;
            }
            push_one_line(&mut out, chars[i]);
            i += 1;
        }
        return out;
    }
    for c in s.chars() {
        push_one_line(&mut out, c);
    }
    out
}

/// One char of [`one_line`]'s output.
fn push_one_line(out: &mut String, c: char) {
    match c {
        '\n' | '\r' | '\t' | '\u{000C}' | '\u{0085}' | '\u{2028}' | '\u{2029}' => out.push(' '),
        c if is_invisible(c) => {}
        c => out.push(c),
    }
}

/// A result's text as the caller sees it: one line, and never starting with `NOTICE`, which
/// only banners may do.
pub fn summary_line(s: &str) -> String {
    let line = one_line(s);
    if line.trim_start().to_ascii_uppercase().starts_with("NOTICE") {
        format!("Summary: {}", line.trim_start())
    } else {
        line
    }
}

/// Six hex digits of SHA-256 of `s`: what keeps two cut values apart.
fn short_hash(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    format!("{:02x}{:02x}{:02x}", d[0], d[1], d[2])
}

/// `s` cut to at most `max` characters: the head, an ellipsis and six hex digits of a hash of
/// the whole value. Returns `None` when `s` is short enough already.
pub fn cut(s: &str, max: usize) -> Option<String> {
    let n = s.chars().count();
    if n <= max {
        return None;
    }
    let keep = max.saturating_sub(7);
    let head: String = s.chars().take(keep).collect();
    Some(format!("{head}\u{2026}{}", short_hash(s)))
}

/// Whether `s` is a fact id as citations write it: letters, digits, then an optional
/// `@context` of letters, digits, `_` and `-` (`F1`, `F1@points`, `K2@summary-1a2b3c`).
pub fn is_fact_id(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    if i == 0 {
        return false;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits_start {
        return false;
    }
    if i == b.len() {
        return true;
    }
    if b[i] != b'@' || i + 1 == b.len() {
        return false;
    }
    b[i + 1..].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
}

/// Every `[id]` in `s` whose id passes [`is_fact_id`], as (start, end) byte ranges of the
/// whole bracket, in order.
pub fn citation_spans(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            if let Some(rel) = s[i + 1..].find(']') {
                let inner = &s[i + 1..i + 1 + rel];
                if !inner.contains('[') && is_fact_id(inner) {
                    out.push((i, i + rel + 2));
                    i += rel + 2;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// `s` with every fact-id bracket `[F1@x]` written `(F1@x)`, so it is no citation.
pub fn defuse_citations(s: &str) -> String {
    let spans = citation_spans(s);
    if spans.is_empty() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (a, b) in spans {
        out.push_str(&s[last..a]);
        out.push('(');
        out.push_str(&s[a + 1..b - 1]);
        out.push(')');
        last = b;
    }
    out.push_str(&s[last..]);
    out
}

/// A value from the data (an equipment id, a class, a role, a unit) as text may name it:
/// one line, quoted, any fact-id bracket written as `(F1@x)`, markup and links defanged
/// (`<` `>` read `‹` `›`, `[x](url)` reads `[x] (url)`, `https://` reads `https[:]//`,
/// `www.` reads `www[.]`), inner double quotes read `'`, and cut at 100 characters.
pub fn name(value: &str) -> String {
    let line = one_line(value);
    let mut s = defuse_citations(&line);
    s = s.replace('<', "\u{2039}").replace('>', "\u{203A}").replace("](", "] (");
    s = s.replace("://", "[:]//");
    s = replace_ascii_ci(&s, "www.", "www[.]");
    s = s.replace('"', "'");
    if let Some(c) = cut(&s, NAME_MAX_CHARS) {
        s = c;
    }
    format!("\"{s}\"")
}

/// `s` with each ASCII-case-insensitive occurrence of `needle` replaced by `with`, keeping
/// the original case of the matched letters' prefix.
fn replace_ascii_ci(s: &str, needle: &str, with: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(pos) = lower[from..].find(needle) {
        let at = from + pos;
        out.push_str(&s[last..at]);
        let matched = &s[at..at + needle.len()];
        // keep the case the data used for the letters, then the defanged dot
        out.push_str(&matched[..needle.len() - 1]);
        out.push_str(&with[needle.len() - 1..]);
        last = at + needle.len();
        from = last;
    }
    out.push_str(&s[last..]);
    out
}

/// An unsigned integer (`usize`, `u64`, ...) with thousands separators (2,000,000).
pub fn thousands(n: impl std::fmt::Display) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether `uri` matches `template`, a URI whose `{name}` parts each stand for one non-empty
/// path segment (RFC 6570's simple expansion, no `/` in a value): `test://template/{id}/data`
/// matches `test://template/123/data`, not `test://template/1/2/data`. A template without a
/// `{` matches only itself.
pub fn matches_uri_template(template: &str, uri: &str) -> bool {
    let mut rest = uri;
    let mut parts = template.split('{');
    let Some(head) = parts.next() else { return false };
    let Some(r) = rest.strip_prefix(head) else { return false };
    rest = r;
    for part in parts {
        let Some((_, literal)) = part.split_once('}') else { return false };
        // the value runs to the next literal (or the end), one segment long
        let end = if literal.is_empty() { rest.len() } else { rest.find(literal).unwrap_or(usize::MAX) };
        if end == usize::MAX || end == 0 || rest[..end].contains('/') {
            return false;
        }
        rest = &rest[end + literal.len()..];
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_templates_match_one_segment_per_name() {
        let t = "test://template/{id}/data";
        assert!(matches_uri_template(t, "test://template/123/data"));
        for bad in ["test://template//data", "test://template/1/2/data", "test://template/123/data/x", "test://other"] {
            assert!(!matches_uri_template(t, bad), "{bad}");
        }
        assert!(matches_uri_template("a://x/{a}-{b}", "a://x/1-2"));
        assert!(matches_uri_template("a://fixed", "a://fixed") && !matches_uri_template("a://fixed", "a://fixed2"));
        assert!(matches_uri_template("a://{tail}", "a://end") && !matches_uri_template("a://{bad", "a://x"));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(2_000_000), "2,000,000");
        assert_eq!(thousands(12_345), "12,345");
    }

    #[test]
    fn one_line_removes_controls_bidi_and_zero_width() {
        let s = "AHU\n1\tx\u{1b}[31m\u{7}\u{0}\u{202E}evil\u{2066}\u{200B}z\u{FEFF}";
        assert_eq!(one_line(s), "AHU 1 xevilz");
    }

    #[test]
    fn escape_sequences_are_removed_whole() {
        assert_eq!(one_line("a \u{1b}[2J/etc/passwd"), "a /etc/passwd");
        assert_eq!(one_line("\u{1b}]0;title\u{7}x\u{1b}]8;;u\u{1b}\\y"), "xy");
        assert_eq!(one_line("\u{1b}(Bz\u{1b}cw\u{9b}1;2Hv"), "zwv");
        // cut short: only the introducer goes, the text after it stays
        assert_eq!(one_line("k\u{1b}[12"), "k12");
        assert_eq!(one_line("k\u{1b}]no end"), "kno end");
        assert_eq!(one_line("end\u{1b}"), "end");
    }

    #[test]
    fn notice_is_never_the_start_of_a_summary() {
        assert_eq!(summary_line("NOTICE: all clear"), "Summary: NOTICE: all clear");
        assert_eq!(summary_line("  notice me"), "Summary: notice me");
        assert_eq!(summary_line("hq stores 2 points"), "hq stores 2 points");
    }

    #[test]
    fn name_quotes_and_defangs() {
        assert_eq!(name("AHU-2"), "\"AHU-2\"");
        assert_eq!(name("AHU [F1@rule_run]"), "\"AHU (F1@rule_run)\"");
        assert_eq!(name("<b>x</b>"), "\"\u{2039}b\u{203A}x\u{2039}/b\u{203A}\"");
        assert_eq!(name("[x](https://e.com)"), "\"[x] (https[:]//e.com)\"");
        assert_eq!(name("see WWW.example.com"), "\"see WWW[.]example.com\"");
        assert_eq!(name("say \"hi\"\nthere"), "\"say 'hi' there\"");
    }

    #[test]
    fn long_names_are_cut_apart() {
        let a = "A".repeat(150);
        let b = format!("{}B", "A".repeat(149));
        let (na, nb) = (name(&a), name(&b));
        assert_eq!(na.chars().count(), NAME_MAX_CHARS + 2);
        assert_ne!(na, nb);
        assert!(na.contains('\u{2026}'));
        assert!(cut("short", 10).is_none());
    }

    #[test]
    fn fact_ids() {
        assert!(is_fact_id("F1"));
        assert!(is_fact_id("F12@points-1a2b3c"));
        assert!(is_fact_id("C1@ahu_supply-fan"));
        assert!(!is_fact_id("F@x"));
        assert!(!is_fact_id("1F"));
        assert!(!is_fact_id("F1@"));
        assert!(!is_fact_id("F1@a b"));
        assert_eq!(citation_spans("a [F1@x] b [not] [K2]"), vec![(2, 8), (17, 21)]);
    }
}
