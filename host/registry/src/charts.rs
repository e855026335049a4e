//! Evidence charts drawn by the host. A capability that returns a finding's `chart` (the roles
//! it read, the flagged spans, `image: true`) gets the chart attached to its result as a PNG:
//! the host reads those roles of that equipment from the store on the run's grid (only for a
//! facility the caller may read) and draws them with `camber_report::chart`, the same module
//! that draws the HTML report's charts. The guest never draws and never sees the pixels.

use base64::Engine;
use serde_json::Value;

use camber_common::time::ns_from_iso;
use camber_common::Image;
use camber_report::{Chart, Series};
use camber_store::StoreDir;

/// The size of an attached chart, in pixels (the height grows with its panels).
pub const IMAGE_WIDTH: f64 = 1000.0;
pub const IMAGE_HEIGHT: f64 = 400.0;

/// The evidence chart a finding's data describes: `chart.roles` of `equip` at `facility_id`
/// over `run.window` on the run's grid, `chart.spans` shaded (else the page of `violations`),
/// titled with what the rule saw. `None` when the data names no such chart (a fleet finding)
/// or the store holds none of its roles.
pub fn evidence_chart(store: &StoreDir, data: &Value) -> Option<Chart> {
    let fid = data["facility_id"].as_str()?;
    let equip = data["equip"].as_str()?.to_string();
    let roles: Vec<String> =
        data["chart"]["roles"].as_array()?.iter().filter_map(|r| r.as_str().map(str::to_string)).collect();
    if roles.is_empty() || data["chart"]["kind"] == "fleet" {
        return None;
    }
    let at = |v: &Value| v.as_str().and_then(ns_from_iso);
    let spans: Vec<(i64, i64)> = match data["chart"]["spans"].as_array() {
        Some(pairs) => pairs.iter().filter_map(|p| Some((at(&p[0])?, at(&p[1])?))).collect(),
        None => data["violations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| Some((at(&s["start"])?, at(&s["end"])?)))
            .collect(),
    };
    let step = (data["run"]["resample_minutes"].as_f64().unwrap_or(60.0) * 60e9) as i64;
    let (start, end) = (at(&data["run"]["window"]["start"]), at(&data["run"]["window"]["end"]));
    let grid = store.read_grid_shared(fid, std::slice::from_ref(&equip), start, end, step.max(1)).ok()?;
    let g = grid.iter().find(|g| g.equip == equip)?;
    let series: Vec<Series> = roles
        .iter()
        .filter_map(|r| {
            let k = g.frame.roles.iter().position(|x| x == r)?;
            Some(Series { role: r.clone(), ts: g.frame.ts.clone(), values: g.frame.values[k].clone() })
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    let finding = data["finding_id"].as_str().unwrap_or("the finding");
    let saw = data["summary"].as_str().filter(|s| !s.is_empty()).unwrap_or("evidence");
    Some(Chart { title: format!("{finding}: {saw}"), series, spans })
}

/// The image a result asks for (`chart.image` true), drawn as PNG, with alt text that says
/// what it shows and cites `fact` (the finding's fact id, already scoped to the call).
pub(crate) fn evidence_image(store: &StoreDir, data: &Value, fact: Option<&str>) -> Option<Image> {
    if data["chart"]["image"] != Value::Bool(true) {
        return None;
    }
    let chart = evidence_chart(store, data)?;
    let png = camber_report::chart::png(&camber_report::chart::svg(&chart, IMAGE_WIDTH, IMAGE_HEIGHT)).ok()?;
    let roles: Vec<&str> = chart.series.iter().map(|s| s.role.as_str()).collect();
    let (t0, t1) = chart
        .series
        .iter()
        .flat_map(|s| s.ts.first().into_iter().chain(s.ts.last()))
        .fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(*t), b.max(*t)));
    let day = |t: i64| camber_common::time::iso_from_ns(t).chars().take(10).collect::<String>();
    let mut alt = format!(
        "Evidence chart of {} on {}: {} from {} to {}, {} flagged span(s) shaded",
        data["finding_id"].as_str().unwrap_or("the finding"),
        data["equip"].as_str().unwrap_or("its equipment"),
        roles.join(", "),
        day(t0),
        day(t1),
        chart.spans.len()
    );
    if let Some(id) = fact {
        alt.push_str(&format!(" [{id}]"));
    }
    alt.push('.');
    Some(Image { mime_type: "image/png".into(), data: base64::engine::general_purpose::STANDARD.encode(png), alt })
}
