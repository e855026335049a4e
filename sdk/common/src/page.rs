//! Pages of a list. A capability cuts a list only through [`page`], which returns a
//! [`PageNotice`] whenever the page is not the whole list; the host turns every notice into
//! a banner and sets `truncated`, so no list is cut silently.

use serde::{Deserialize, Serialize};

/// The largest page a caller may ask for.
pub const MAX_LIMIT: usize = 1000;

/// A list that was cut to a page: enough for the host to write the banner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageNotice {
    /// The data key of the list.
    pub list: String,
    pub offset: u32,
    pub limit: u32,
    /// Rows in the whole list.
    pub total: u32,
    /// How the list is ordered ("worst first"), or empty.
    pub order: String,
}

/// A whole-number argument such as `offset` or `limit` as a `usize`, `default` when absent.
/// It saturates: in a 32-bit guest `n as usize` turns 4294967296 into 0 and serves the first
/// page, where any offset past the list must give an empty page with its banner.
pub fn count_arg(args: &serde_json::Value, key: &str, default: usize) -> usize {
    let Some(v) = args.get(key) else { return default };
    match (v.as_u64(), v.as_f64()) {
        (Some(n), _) => usize::try_from(n).unwrap_or(usize::MAX),
        // `as` saturates: 1e16 and 2^64 are past every list
        (None, Some(f)) if f >= 0.0 => f as usize,
        _ => default,
    }
}

/// Cut `rows` to the page `[offset, offset + limit)`. Returns the page and, when the page is
/// not the whole list, the notice to hand back in the output.
pub fn page<T>(rows: Vec<T>, list: &str, offset: usize, limit: usize, order: &str) -> (Vec<T>, Option<PageNotice>) {
    let total = rows.len();
    let limit = limit.clamp(1, MAX_LIMIT);
    if offset == 0 && total <= limit {
        return (rows, None);
    }
    if total == 0 {
        return (rows, None);
    }
    let notice = PageNotice {
        list: list.to_string(),
        offset: offset.min(u32::MAX as usize) as u32,
        limit: limit as u32,
        total: total.min(u32::MAX as usize) as u32,
        order: order.to_string(),
    };
    let rows: Vec<T> = rows.into_iter().skip(offset).take(limit).collect();
    (rows, Some(notice))
}

impl PageNotice {
    /// The banner a caller sees for this page.
    pub fn banner(&self) -> String {
        let (offset, limit, total) = (self.offset as u64, self.limit as u64, self.total as u64);
        let order = if self.order.is_empty() { String::new() } else { format!(" ({})", self.order) };
        if offset >= total {
            let where_ = if total <= limit { "the first page" } else { "earlier pages" };
            return format!("'{}' is empty on this page: all its {} row(s) are on {}", self.list, total, where_);
        }
        let last = (offset + limit).min(total);
        let first = offset + 1;
        if last < total {
            format!(
                "'{}' shows rows {}-{} of {}{}: call again with offset={} for the next page, \
                 or a larger limit (up to {})",
                self.list, first, last, total, order, last, MAX_LIMIT
            )
        } else {
            format!(
                "'{}' shows rows {}-{} of {}{}: the last page; call again with offset=0 for the first",
                self.list, first, last, total, order
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_arguments_saturate() {
        let a = serde_json::json!({"o": 4294967296u64, "big": 1e16, "huge": 18446744073709551616.0, "n": 7, "neg": -1});
        assert_eq!(count_arg(&a, "o", 0), usize::try_from(4294967296u64).unwrap_or(usize::MAX));
        assert!(count_arg(&a, "o", 0) > u32::MAX as usize - 1);
        assert!(count_arg(&a, "big", 0) > u32::MAX as usize - 1);
        assert!(count_arg(&a, "huge", 0) > u32::MAX as usize - 1);
        assert_eq!(count_arg(&a, "n", 0), 7);
        assert_eq!(count_arg(&a, "missing", 25), 25);
        assert_eq!(count_arg(&a, "neg", 3), 3);
        let (rows, notice) = page(vec![1, 2, 3], "rows", count_arg(&a, "huge", 0), 10, "");
        assert!(rows.is_empty());
        assert!(notice.unwrap().banner().contains("is empty on this page"));
    }

    #[test]
    fn a_whole_list_has_no_notice() {
        let (rows, n) = page(vec![1, 2, 3], "points", 0, 3, "");
        assert_eq!(rows, vec![1, 2, 3]);
        assert!(n.is_none());
    }

    #[test]
    fn a_first_page_says_where_the_next_starts() {
        let (rows, n) = page((0..159).collect(), "findings", 0, 25, "worst first");
        assert_eq!(rows.len(), 25);
        assert_eq!(
            n.unwrap().banner(),
            "'findings' shows rows 1-25 of 159 (worst first): call again with offset=25 for the \
             next page, or a larger limit (up to 1000)"
        );
    }

    #[test]
    fn the_last_page_and_an_empty_page_are_both_flagged() {
        let (rows, n) = page((0..30).collect(), "points", 25, 25, "");
        assert_eq!(rows, (25..30).collect::<Vec<_>>());
        assert!(n.unwrap().banner().contains("rows 26-30 of 30: the last page"));
        let (rows, n) = page(vec![7], "cited", 25, 25, "");
        assert!(rows.is_empty());
        assert_eq!(n.unwrap().banner(), "'cited' is empty on this page: all its 1 row(s) are on the first page");
    }

    #[test]
    fn limit_is_clamped() {
        let (rows, n) = page((0..2000).collect(), "points", 0, 5000, "");
        assert_eq!(rows.len(), MAX_LIMIT);
        assert_eq!(n.unwrap().limit as usize, MAX_LIMIT);
    }
}
