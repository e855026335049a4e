//! The `coverage` capability: how complete a facility's stored trends are. Per point the
//! samples, first and last sample, the point's own sampling interval (the commonest spacing of
//! its samples), its coverage of the whole window at that interval and its gaps; per equipment
//! the mean and the worst point; and the longest gaps. The host hands each point's sample
//! times as runs of evenly spaced samples, so a year of 1-minute data is a handful of runs.

use std::collections::{BTreeMap, BTreeSet};

use camber_common::time::{iso_from_ns, ns_from_iso};
use camber_sdk::store::{PointTimes, TimeRun};
use camber_sdk::{name, page, store, unknown_selection, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

/// Rows per page of each list when the caller gives no `limit`.
const DEFAULT_LIMIT: usize = 50;
/// Equipment the summary names.
const LISTED: usize = 5;
/// Equipment with a fact of their own.
const EQUIP_FACTS: usize = 100;
/// Gap rows kept per point (its count is exact whatever this is).
const GAPS_PER_POINT: usize = 2000;
const NS_PER_MIN: i64 = 60_000_000_000;
const NS_PER_HOUR: f64 = 3_600_000_000_000.0;
/// The interval assumed for a point with fewer than three samples.
const DEFAULT_STEP: i64 = 60 * NS_PER_MIN;

fn text(d: &str) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": 200, "description": d})
}

fn date(d: &str) -> Value {
    json!({"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2})?)?$", "description": d})
}

fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["facility_id"],
        "additionalProperties": false,
        "properties": {
            "facility_id": text("a facility_id from the facilities capability"),
            "equips": {"type": "array", "items": text("an equipment id"), "minItems": 1, "maxItems": 200,
                       "description": "only these equipment ids (exact match; see the points capability)"},
            "roles": {"type": "array", "items": text("a role"), "minItems": 1, "maxItems": 100,
                      "description": "only these point roles (e.g. supply_air_temp)"},
            "start": date("window start: an ISO date or date-time in the site's wall clock (e.g. 2024-03-01)"),
            "end": date("window end, same form"),
            "group_by": {"type": "string", "enum": ["point", "equip"],
                         "description": "point (default): rows per point and per equipment; equip: the equipment rows only"},
            "min_gap_hours": {"type": "number", "minimum": 0, "maximum": 8760,
                              "description": "list only gaps at least this long (default: every gap longer than 1.5 sampling intervals)"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "rows per page of each list (default 50)"},
            "offset": {"type": "integer", "minimum": 0, "description": "rows to skip in each list (for the next page)"}
        }
    })
}

fn output_schema() -> Value {
    let nullable = json!({"type": ["string", "null"]});
    let unit = json!({"type": "number", "minimum": 0, "maximum": 1});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["facility_id", "window", "coverage", "n_points", "n_gaps", "equipment", "points", "gaps"],
        "additionalProperties": false,
        "properties": {
            "facility_id": {"type": "string"},
            "window": {"type": "object", "required": ["start", "end"], "additionalProperties": false,
                       "properties": {"start": nullable, "end": nullable}},
            "coverage": {"type": "number", "minimum": 0, "maximum": 1, "description": "mean over the points"},
            "n_points": {"type": "integer", "minimum": 0},
            "n_gaps": {"type": "integer", "minimum": 0, "description": "gaps at least min_gap_hours long, over every point"},
            "equipment": {"type": "array", "description": "worst first", "items": {
                "type": "object",
                "required": ["equip", "equip_class", "n_points", "coverage", "worst_role", "worst_coverage"],
                "additionalProperties": false,
                "properties": {
                    "equip": {"type": "string"}, "equip_class": {"type": "string"},
                    "n_points": {"type": "integer", "minimum": 0},
                    "coverage": unit, "worst_role": {"type": "string"}, "worst_coverage": unit
                }
            }},
            "points": {"type": "array", "description": "worst first", "items": {
                "type": "object",
                "required": ["equip", "equip_class", "role", "n_samples", "first", "last", "interval_minutes", "coverage", "n_gaps", "longest_gap_hours"],
                "additionalProperties": false,
                "properties": {
                    "equip": {"type": "string"}, "equip_class": {"type": "string"}, "role": {"type": "string"},
                    "n_samples": {"type": "integer", "minimum": 0},
                    "first": nullable, "last": nullable,
                    "interval_minutes": {"type": ["number", "null"]},
                    "coverage": unit,
                    "n_gaps": {"type": "integer", "minimum": 0},
                    "longest_gap_hours": {"type": "number", "minimum": 0}
                }
            }},
            "gaps": {"type": "array", "description": "longest first", "items": {
                "type": "object",
                "required": ["equip", "role", "start", "end", "hours"],
                "additionalProperties": false,
                "properties": {
                    "equip": {"type": "string"}, "role": {"type": "string"},
                    "start": {"type": "string", "description": "the last sample before the gap (or the window start)"},
                    "end": {"type": "string", "description": "the first sample after it (or the window end)"},
                    "hours": {"type": "number", "minimum": 0}
                }
            }}
        }
    })
}

/// One gap: the last sample before it, the first after it, and its length in hours.
#[derive(Clone, Debug, PartialEq)]
pub struct Gap {
    pub from: i64,
    pub to: i64,
    pub hours: f64,
}

/// What coverage says of one point over a window.
#[derive(Clone, Debug, PartialEq)]
pub struct PointCoverage {
    pub n_samples: u64,
    pub first: Option<i64>,
    pub last: Option<i64>,
    /// The sampling interval used (the commonest spacing), ns.
    pub step: Option<i64>,
    pub coverage: f64,
    /// Every gap at least `min_gap_hours` long (up to [`GAPS_PER_POINT`] listed).
    pub gaps: Vec<Gap>,
    pub n_gaps: u64,
    pub longest_gap_hours: f64,
}

/// The commonest spacing between consecutive samples (the smallest on a tie); `None` with
/// fewer than three samples.
pub fn interval(runs: &[TimeRun]) -> Option<i64> {
    let n: u64 = runs.iter().map(|r| r.count as u64).sum();
    if n < 3 {
        return None;
    }
    let mut hist: BTreeMap<i64, u64> = BTreeMap::new();
    let mut prev_last: Option<i64> = None;
    for r in runs {
        if let Some(p) = prev_last {
            *hist.entry(r.start - p).or_default() += 1;
        }
        if r.count > 1 {
            *hist.entry(r.step).or_default() += r.count as u64 - 1;
        }
        prev_last = Some(r.start + r.step * (r.count as i64 - 1));
    }
    let best = hist.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    (*best.0 > 0).then_some(*best.0)
}

/// Coverage of one point's samples (`runs`) over the window `[w0, w1]`.
pub fn point_coverage(runs: &[TimeRun], w0: i64, w1: i64, min_gap_ns: i64) -> PointCoverage {
    let n: u64 = runs.iter().map(|r| r.count as u64).sum();
    let step = interval(runs).unwrap_or(DEFAULT_STEP);
    let mut out = PointCoverage {
        n_samples: n,
        first: runs.first().map(|r| r.start),
        last: runs.last().map(|r| r.start + r.step * (r.count as i64 - 1)),
        step: (n > 0).then_some(step),
        coverage: 0.0,
        gaps: Vec::new(),
        n_gaps: 0,
        longest_gap_hours: 0.0,
    };
    if n == 0 {
        let hours = (w1 - w0) as f64 / NS_PER_HOUR;
        if hours * NS_PER_HOUR >= min_gap_ns as f64 {
            out.gaps.push(Gap { from: w0, to: w1, hours });
            out.n_gaps = 1;
        }
        out.longest_gap_hours = hours.max(0.0);
        return out;
    }
    let expected = ((w1 - w0) / step + 1).max(1) as f64;
    out.coverage = (n as f64 / expected).min(1.0);
    let limit = step + step / 2; // a spacing over 1.5 intervals is a gap
    let consider = |a: i64, b: i64, times: u64, out: &mut PointCoverage| {
        if b - a <= limit || times == 0 {
            return;
        }
        let hours = ((b - a - step) as f64 / NS_PER_HOUR).max(0.0);
        out.longest_gap_hours = out.longest_gap_hours.max(hours);
        if hours * NS_PER_HOUR + 1e-6 < min_gap_ns as f64 {
            return;
        }
        out.n_gaps += times;
        for k in 0..times.min((GAPS_PER_POINT - out.gaps.len().min(GAPS_PER_POINT)) as u64) {
            let from = a + k as i64 * (b - a);
            out.gaps.push(Gap { from: from.max(w0), to: (from + (b - a)).min(w1), hours });
        }
    };
    let mut prev = w0 - step;
    for r in runs {
        consider(prev, r.start, 1, &mut out);
        if r.count > 1 {
            consider(r.start, r.start + r.step, r.count as u64 - 1, &mut out);
        }
        prev = r.start + r.step * (r.count as i64 - 1);
    }
    consider(prev, w1 + step, 1, &mut out);
    out
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn pct(x: f64) -> String {
    format!("{:.1}", x * 100.0)
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

fn coverage(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let fid = args["facility_id"].as_str().unwrap_or_default();
    let equips = strings(args.get("equips"));
    let roles = strings(args.get("roles"));
    let start = args
        .get("start")
        .and_then(Value::as_str)
        .map(|s| ns_from_iso(s).ok_or_else(|| CapError::invalid(format!("start '{s}' is not a valid date"))))
        .transpose()?;
    let end = args
        .get("end")
        .and_then(Value::as_str)
        .map(|s| ns_from_iso(s).ok_or_else(|| CapError::invalid(format!("end '{s}' is not a valid date"))))
        .transpose()?;
    if let (Some(a), Some(b)) = (start, end) {
        if b < a {
            return Err(CapError::invalid("end is before start"));
        }
    }
    let min_gap_h = args.get("min_gap_hours").and_then(Value::as_f64).unwrap_or(0.0);
    let by_equip = args.get("group_by").and_then(Value::as_str) == Some("equip");
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);

    let stored = store::points(fid)?;
    if stored.is_empty() {
        return Err(CapError::not_found(format!("facility '{fid}' has no stored data"), json!({"facility_id": fid})));
    }
    let all_equips: BTreeSet<String> = stored.iter().map(|p| p.equip.clone()).collect();
    let all_roles: BTreeSet<String> = stored.iter().map(|p| p.role.clone()).collect();
    let missing: Vec<String> = equips.iter().filter(|e| !all_equips.contains(*e)).cloned().collect();
    if !missing.is_empty() {
        return Err(unknown_selection(fid, "equips", "equipment", &missing, all_equips));
    }
    let missing: Vec<String> = roles.iter().filter(|r| !all_roles.contains(*r)).cloned().collect();
    if !missing.is_empty() {
        return Err(unknown_selection(fid, "roles", "role", &missing, all_roles));
    }
    let points: Vec<PointTimes> = store::read_times(fid, &equips, &roles, start, end)?;
    if points.is_empty() {
        // the equipment and roles exist, just not together: an answer, not a refusal
        let data = json!({
            "facility_id": fid,
            "window": {"start": start.map(iso_from_ns), "end": end.map(iso_from_ns)},
            "coverage": 0.0, "n_points": 0, "n_gaps": 0,
            "equipment": [], "points": [], "gaps": [],
        });
        let facts = vec![json!({
            "id": "F1@coverage", "kind": "coverage", "facility_id": fid, "value": 0,
            "text": format!("{fid} stores no point of the selected roles on the selected equipment"),
        })];
        let mut out = Output::new(
            data,
            format!("{fid} stores no point of the selected roles on the selected equipment [F1@coverage]."),
            facts,
        );
        out.banners.push("the selected equipment store none of the selected roles: there is nothing to cover".into());
        return Ok(out);
    }
    let data_first = points.iter().filter_map(|p| p.runs.first().map(|r| r.start)).min();
    let data_last = points.iter().filter_map(|p| p.runs.last().map(|r| r.start + r.step * (r.count as i64 - 1))).max();
    let mut banners = Vec::new();
    let (w0, w1) = match (start.or(data_first), end.or(data_last)) {
        (Some(a), Some(b)) => (a, b),
        (a, b) => {
            // no sample in the window and one side open: the window is its given side only
            let x = a.or(b).unwrap_or(0);
            (x, x)
        }
    };
    if data_first.is_none() {
        banners.push(format!(
            "the window holds no stored sample of the selected points: coverage is 0% (the facility's data lies outside {} to {})",
            start.map(iso_from_ns).unwrap_or_else(|| "its start".into()),
            end.map(iso_from_ns).unwrap_or_else(|| "its end".into())
        ));
    }
    let min_gap_ns = (min_gap_h * NS_PER_HOUR) as i64;

    let mut rows = Vec::with_capacity(points.len());
    let mut gap_rows: Vec<(f64, &str, &str, i64, i64)> = Vec::new();
    let mut n_gaps_total: u64 = 0;
    for p in &points {
        let c = point_coverage(&p.runs, w0, w1, min_gap_ns);
        n_gaps_total += c.n_gaps;
        for g in &c.gaps {
            gap_rows.push((g.hours, p.equip.as_str(), p.role.as_str(), g.from, g.to));
        }
        rows.push((p, c));
    }
    rows.sort_by(|a, b| {
        a.1.coverage.total_cmp(&b.1.coverage).then((&a.0.equip, &a.0.role).cmp(&(&b.0.equip, &b.0.role)))
    });
    gap_rows.sort_by(|a, b| b.0.total_cmp(&a.0).then((&a.1, &a.2, a.3).cmp(&(&b.1, &b.2, b.3))));

    // per equipment: mean and worst point
    let mut by_eq: BTreeMap<&str, Vec<&(&PointTimes, PointCoverage)>> = BTreeMap::new();
    for r in &rows {
        by_eq.entry(r.0.equip.as_str()).or_default().push(r);
    }
    let mut equipment: Vec<(String, String, usize, f64, String, f64)> = by_eq
        .iter()
        .map(|(e, ps)| {
            let mean = ps.iter().map(|r| r.1.coverage).sum::<f64>() / ps.len() as f64;
            let worst = ps
                .iter()
                .min_by(|a, b| a.1.coverage.total_cmp(&b.1.coverage).then(a.0.role.cmp(&b.0.role)))
                .expect("non-empty");
            (e.to_string(), ps[0].0.equip_class.clone(), ps.len(), mean, worst.0.role.clone(), worst.1.coverage)
        })
        .collect();
    equipment.sort_by(|a, b| round(a.3, 4).total_cmp(&round(b.3, 4)).then(a.0.cmp(&b.0)));
    let mean = rows.iter().map(|r| r.1.coverage).sum::<f64>() / rows.len() as f64;
    let low = rows.iter().filter(|r| r.1.coverage < 0.9).count();

    // facts and text
    let span = format!(" from {} to {}", iso_from_ns(w0), iso_from_ns(w1));
    let mut facts = vec![json!({
        "id": "F1@coverage", "kind": "coverage", "facility_id": fid, "value": round(mean * 100.0, 1),
        "text": format!("{fid}: {} points on {} equipment have a mean coverage of {}%{span}; {low} point(s) are below 90% and {n_gaps_total} gap(s) are at least {} hours long",
            rows.len(), equipment.len(), pct(mean), round(min_gap_h, 2)),
    })];
    let mut text = vec![format!(
        "{fid} has a mean coverage of {}% over {} points, with {low} point(s) below 90% [F1@coverage].",
        pct(mean),
        rows.len()
    )];
    for (i, e) in equipment.iter().take(EQUIP_FACTS).enumerate() {
        let id = format!("F{}@coverage", i + 2);
        facts.push(json!({
            "id": id, "kind": "equip_coverage", "equip": e.0, "value": round(e.3 * 100.0, 1),
            "text": format!("{}: mean coverage {}% over {} points; worst {} at {}%", name(&e.0), pct(e.3), e.2, name(&e.4), pct(e.5)),
        }));
        if i < LISTED && e.3 < 0.9 {
            text.push(format!("{} averages {}% (worst {}) [{id}].", name(&e.0), pct(e.3), name(&e.4)));
        }
    }

    // rows and pages: each list is cut to its page before its rows are written out
    let listed_gaps = gap_rows.len() as u64;
    let (eq_page, n1) = page(equipment.iter().collect(), "equipment", offset, limit, "worst first");
    let eq_page: Vec<Value> = eq_page
        .into_iter()
        .map(|e| json!({"equip": e.0, "equip_class": e.1, "n_points": e.2, "coverage": round(e.3, 4), "worst_role": e.4, "worst_coverage": round(e.5, 4)}))
        .collect();
    let listed: Vec<&(&PointTimes, PointCoverage)> = if by_equip { Vec::new() } else { rows.iter().collect() };
    let (pt_page, n2) = page(listed, "points", offset, limit, "worst first");
    let pt_page: Vec<Value> = pt_page
        .into_iter()
        .map(|(p, c)| {
            json!({
                "equip": p.equip, "equip_class": p.equip_class, "role": p.role,
                "n_samples": c.n_samples,
                "first": c.first.map(iso_from_ns), "last": c.last.map(iso_from_ns),
                "interval_minutes": c.step.map(|s| round(s as f64 / NS_PER_MIN as f64, 3)),
                "coverage": round(c.coverage, 4),
                "n_gaps": c.n_gaps, "longest_gap_hours": round(c.longest_gap_hours, 2),
            })
        })
        .collect();
    let (gap_page, n3) = page(gap_rows.iter().collect(), "gaps", offset, limit, "longest first");
    let gap_page: Vec<Value> = gap_page
        .into_iter()
        .map(|g| json!({"equip": g.1, "role": g.2, "start": iso_from_ns(g.3), "end": iso_from_ns(g.4), "hours": round(g.0, 2)}))
        .collect();
    if listed_gaps < n_gaps_total {
        banners.push(format!(
            "'gaps' lists {listed_gaps} of the {n_gaps_total} gaps (at most {GAPS_PER_POINT} per point): raise min_gap_hours or narrow the window"
        ));
    }
    let data = json!({
        "facility_id": fid,
        "window": {"start": iso_from_ns(w0), "end": iso_from_ns(w1)},
        "coverage": round(mean, 4),
        "n_points": rows.len(),
        "n_gaps": n_gaps_total,
        "equipment": eq_page,
        "points": pt_page,
        "gaps": gap_page,
    });
    let mut out = Output::new(data, text.join(" "), facts);
    out.banners = banners;
    out.pages.extend([n1, n2, n3].into_iter().flatten());
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("coverage", coverage)
            .title("Data coverage and gaps")
            .description(
                "How complete a facility's stored trends are: per point the sample count, first and last \
                 sample, sampling interval (the commonest spacing), coverage (0-1) of the whole window at that \
                 interval and its gaps; per equipment the mean coverage and the worst point; and the longest \
                 gaps (start, end, hours), worst first. Call it before trusting an analysis or to plan what \
                 data to fix. Filter by equips, roles and a start / end window in the site's wall clock; \
                 group_by='equip' drops the per-point rows; min_gap_hours lists only longer gaps. A window \
                 with no stored sample answers 0% with a notice. Pages of 50 rows per list (limit, offset). \
                 Needs facility_id.",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("one timestamp scan"),
    )
}

camber_sdk::export_plugin!(plugin);

#[cfg(test)]
mod tests {
    use super::*;

    const M: i64 = NS_PER_MIN;

    fn run(start: i64, step: i64, count: u32) -> TimeRun {
        TimeRun { start, step, count }
    }

    #[test]
    fn a_regular_point_is_fully_covered() {
        let runs = [run(0, 15 * M, 97)]; // one day at 15 minutes, both ends
        assert_eq!(interval(&runs), Some(15 * M));
        let c = point_coverage(&runs, 0, 96 * 15 * M, 0);
        assert_eq!(c.coverage, 1.0);
        assert_eq!(c.n_gaps, 0);
        assert_eq!(c.n_samples, 97);
    }

    #[test]
    fn gaps_inside_and_at_the_edges() {
        // 0..10 at 1 min, then 30..40: a 20-minute hole; the window runs to 60 (an early end)
        let runs = [run(0, M, 11), run(30 * M, M, 11)];
        let c = point_coverage(&runs, 0, 60 * M, 0);
        assert_eq!(c.n_gaps, 2);
        assert_eq!(c.gaps[0].from, 10 * M);
        assert_eq!(c.gaps[0].to, 30 * M);
        assert!((c.gaps[0].hours - 19.0 / 60.0).abs() < 1e-9);
        assert_eq!(c.gaps[1].from, 40 * M);
        assert_eq!(c.gaps[1].to, 60 * M);
        assert!((c.coverage - 22.0 / 61.0).abs() < 1e-9);
        // only gaps of at least half an hour
        let c = point_coverage(&runs, 0, 60 * M, 30 * M);
        assert_eq!(c.n_gaps, 0);
        assert!(c.longest_gap_hours > 0.3);
    }

    #[test]
    fn a_sparse_run_inside_a_dense_trend_is_many_gaps() {
        // 1-minute data, then an hour of 10-minute samples
        let runs = [run(0, M, 100), run(100 * M, 10 * M, 7)];
        assert_eq!(interval(&runs), Some(M));
        let c = point_coverage(&runs, 0, 160 * M, 0);
        assert_eq!(c.n_gaps, 6);
        assert!(c.gaps.iter().all(|g| (g.hours - 9.0 / 60.0).abs() < 1e-9));
    }

    #[test]
    fn no_samples_is_zero_and_one_gap() {
        let c = point_coverage(&[], 0, 60 * M, 0);
        assert_eq!((c.coverage, c.n_gaps, c.n_samples), (0.0, 1, 0));
        assert_eq!(c.first, None);
    }

    #[test]
    fn few_samples_assume_an_hour() {
        let runs = [run(0, 0, 1)];
        assert_eq!(interval(&runs), None);
        let c = point_coverage(&runs, 0, 0, 0);
        assert_eq!(c.coverage, 1.0);
        assert_eq!(c.step, Some(DEFAULT_STEP));
    }
}
