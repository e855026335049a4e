//! Stored timestamps are naive site wall-clock nanoseconds (the store keeps no zone). These
//! helpers write and read them as ISO 8601 without a zone, with no time-zone database, so a
//! guest can use them.

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub const fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number (days since 1970-01-01).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

const NS_PER_S: i64 = 1_000_000_000;
const NS_PER_DAY: i64 = 86_400 * NS_PER_S;

/// The earliest time a store holds: 1700-01-01T00:00. Nanoseconds in an `i64` reach only
/// 1677-09-21 to 2262-04-11; keeping decades away from both ends means no grid, window or
/// span arithmetic on a stored time can overflow, and a time outside is damage, not data.
pub const STORED_MIN_NS: i64 = days_from_civil(1700, 1, 1) * NS_PER_DAY;
/// The first time past what a store holds: 2200-01-01T00:00 (see [`STORED_MIN_NS`]).
pub const STORED_END_NS: i64 = days_from_civil(2200, 1, 1) * NS_PER_DAY;

/// Whether a store may hold a sample at `ns` (from 1700 up to, not including, 2200).
pub const fn storable(ns: i64) -> bool {
    ns >= STORED_MIN_NS && ns < STORED_END_NS
}

/// `2024-03-01T00:00:00` (fractional seconds only when there are any).
pub fn iso_from_ns(ns: i64) -> String {
    let secs = ns.div_euclid(NS_PER_S);
    let frac = ns.rem_euclid(NS_PER_S);
    let (days, sod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (sod / 3600, (sod % 3600) / 60, sod % 60);
    let mut s = format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}");
    if frac != 0 {
        let f = format!("{frac:09}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s
}

/// Parse `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fff]]` (or a space for `T`) as naive wall-clock
/// nanoseconds. A zone suffix is refused: stored times have none.
pub fn ns_from_iso(s: &str) -> Option<i64> {
    let s = s.trim();
    let (date, time) = match s.find(['T', ' ']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: u32 = dp.next()?.parse().ok()?;
    let d: u32 = dp.next()?.parse().ok()?;
    if dp.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    // years far outside what nanoseconds in an i64 can count are refused, not wrapped
    if !(1000..=9999).contains(&y) {
        return None;
    }
    let mut ns = days_from_civil(y, m, d).checked_mul(NS_PER_DAY)?;
    if let Some(t) = time {
        let (hms, frac) = match t.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (t, None),
        };
        let mut tp = hms.split(':');
        let hh: i64 = tp.next()?.parse().ok()?;
        let mm: i64 = tp.next()?.parse().ok()?;
        let ss: i64 = match tp.next() {
            Some(x) => x.parse().ok()?,
            None => 0,
        };
        if tp.next().is_some() || hh > 23 || mm > 59 || ss > 59 {
            return None;
        }
        ns = ns.checked_add((hh * 3600 + mm * 60 + ss) * NS_PER_S)?;
        if let Some(f) = frac {
            if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let padded = format!("{f:0<9}");
            ns = ns.checked_add(padded.parse::<i64>().ok()?)?;
        }
    }
    Some(ns)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for s in ["1970-01-01T00:00:00", "2024-02-29T23:59:59", "1969-12-31T12:00:00", "2024-03-01T00:00:00.5"] {
            assert_eq!(iso_from_ns(ns_from_iso(s).unwrap()), s);
        }
        assert_eq!(ns_from_iso("2024-03-01"), ns_from_iso("2024-03-01T00:00"));
        assert_eq!(ns_from_iso("1970-01-02").unwrap(), 86_400 * NS_PER_S);
    }

    #[test]
    fn the_stored_range_and_times_past_nanoseconds() {
        assert_eq!(iso_from_ns(STORED_MIN_NS), "1700-01-01T00:00:00");
        assert_eq!(iso_from_ns(STORED_END_NS), "2200-01-01T00:00:00");
        assert!(storable(STORED_MIN_NS) && !storable(STORED_MIN_NS - 1));
        assert!(storable(STORED_END_NS - 1) && !storable(STORED_END_NS));
        assert!(!storable(i64::MIN) && !storable(i64::MAX));
        // past 2262 nanoseconds overflow: no wrapped answer
        assert_eq!(ns_from_iso("9999-12-31T23:59"), None);
        assert_eq!(ns_from_iso("2262-04-12"), None);
        assert!(ns_from_iso("2262-04-11").is_some());
    }

    #[test]
    fn refuses_bad_dates() {
        for s in ["2023-02-29", "2024-13-01", "2024-01-01T24:00", "2024-01-01T00:00:00Z", "x"] {
            assert!(ns_from_iso(s).is_none(), "{s}");
        }
    }
}
