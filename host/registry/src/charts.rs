//! Evidence charts drawn by the host. A capability that returns a finding's `chart` (the roles
//! it read, the flagged spans, `image: true`) gets the chart attached to its result as a PNG:
//! the host reads those roles of that equipment from the store on the run's grid (only for a
//! facility the caller may read) and draws them with `camber_report::chart`, the same module
//! that draws the HTML report's charts. The guest never draws and never sees the pixels.

use base64::Engine;
use serde_json::Value;

use crate::memo::{Drawn, Memo};
use camber_common::canonical::sha256_hex;

use camber_common::time::ns_from_iso;
use camber_common::Image;
use camber_report::{Chart, Series};
use camber_store::StoreDir;

/// The size of an attached chart, in pixels (the height grows with its panels).
pub const IMAGE_WIDTH: f64 = 1000.0;
pub const IMAGE_HEIGHT: f64 = 400.0;

/// One chart a result asks for: the facility, the equipment, the finding, the title, and the
/// `chart` object (roles, spans, grid, window, whether to draw it).
struct Spec<'a> {
    fid: &'a str,
    equip: &'a str,
    finding: &'a str,
    title: String,
    chart: &'a Value,
    /// The fact the alt text cites (before scoping, or already scoped).
    fact: Option<&'a str>,
    /// Where the spec's grid and window are when its chart does not say (finding_detail's run).
    run: &'a Value,
}

/// The evidence chart a finding's data describes: `chart.roles` of `equip` at `facility_id`
/// over the window it was judged on (`chart.window`, else `run.window`) on its grid
/// (`chart.step_minutes`, else `run.resample_minutes`), `chart.spans` shaded (else the page of
/// `violations`), titled with what the rule saw. `None` when the data names no such chart (a
/// fleet finding) or the store holds none of its roles.
pub fn evidence_chart(store: &StoreDir, data: &Value) -> Option<Chart> {
    chart_of(store, &detail_spec(data, None)?, data)
}

/// finding_detail's chart: the finding is the result itself.
fn detail_spec<'a>(data: &'a Value, fact: Option<&'a str>) -> Option<Spec<'a>> {
    let finding = data["finding_id"].as_str().unwrap_or("the finding");
    let saw = data["summary"].as_str().filter(|s| !s.is_empty()).unwrap_or("evidence");
    Some(Spec {
        fid: data["facility_id"].as_str()?,
        equip: data["equip"].as_str()?,
        finding,
        title: format!("{finding}: {saw}"),
        chart: data.get("chart")?,
        fact,
        run: &data["run"],
    })
}

/// What a chart is drawn from besides the store: the roles, the shaded spans, the grid and
/// the window, all read from the result's data.
#[derive(serde::Serialize)]
struct Inputs {
    roles: Vec<String>,
    spans: Vec<(i64, i64)>,
    step_ns: i64,
    start: Option<i64>,
    end: Option<i64>,
}

fn inputs_of(spec: &Spec<'_>, data: &Value) -> Option<Inputs> {
    let roles: Vec<String> =
        spec.chart["roles"].as_array()?.iter().filter_map(|r| r.as_str().map(str::to_string)).collect();
    if roles.is_empty() || spec.chart["kind"] == "fleet" {
        return None;
    }
    let at = |v: &Value| v.as_str().and_then(ns_from_iso);
    let spans: Vec<(i64, i64)> = match spec.chart["spans"].as_array() {
        Some(pairs) => pairs.iter().filter_map(|p| Some((at(&p[0])?, at(&p[1])?))).collect(),
        None => data["violations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| Some((at(&s["start"])?, at(&s["end"])?)))
            .collect(),
    };
    let minutes = spec.chart["step_minutes"].as_f64().or(spec.run["resample_minutes"].as_f64()).unwrap_or(60.0);
    let window = if spec.chart["window"].is_object() { &spec.chart["window"] } else { &spec.run["window"] };
    let (start, end) = (at(&window["start"]), at(&window["end"]));
    Some(Inputs { roles, spans, step_ns: ((minutes * 60e9) as i64).max(1), start, end })
}

fn chart_of(store: &StoreDir, spec: &Spec<'_>, data: &Value) -> Option<Chart> {
    draw(store, spec, inputs_of(spec, data)?)
}

fn draw(store: &StoreDir, spec: &Spec<'_>, inputs: Inputs) -> Option<Chart> {
    let equip = spec.equip.to_string();
    let grid = store
        .read_grid_shared(spec.fid, std::slice::from_ref(&equip), inputs.start, inputs.end, inputs.step_ns)
        .ok()?;
    let g = grid.iter().find(|g| g.equip == equip)?;
    let series: Vec<Series> = inputs
        .roles
        .iter()
        .filter_map(|r| {
            let k = g.frame.roles.iter().position(|x| x == r)?;
            Some(Series { role: r.clone(), ts: g.frame.ts.to_vec(), values: g.frame.values[k].to_vec() })
        })
        .collect();
    if series.is_empty() {
        return None;
    }
    Some(Chart { title: spec.title.clone(), series, spans: inputs.spans })
}

/// The charts a result asks for (each with `image: true`): finding_detail's own, and each of
/// rcx_report's ranked issues'.
fn specs<'a>(data: &'a Value, detail_fact: Option<&'a str>) -> Vec<Spec<'a>> {
    let mut out: Vec<Spec<'a>> = Vec::new();
    let wanted = |c: &Value| c["image"] == Value::Bool(true);
    if wanted(&data["chart"]) {
        out.extend(detail_spec(data, detail_fact));
    }
    let Some(fid) = data["facility_id"].as_str() else {
        return out;
    };
    for issue in data["issues"].as_array().into_iter().flatten().filter(|i| wanted(&i["chart"])) {
        let (Some(equip), Some(finding)) = (issue["chart"]["equip"].as_str(), issue["chart"]["finding_id"].as_str())
        else {
            continue;
        };
        out.push(Spec {
            fid,
            equip,
            finding,
            title: format!("{}. {}", issue["rank"], issue["title"].as_str().unwrap_or(finding)),
            chart: &issue["chart"],
            fact: issue["fact"].as_str(),
            run: &Value::Null,
        });
    }
    out
}

/// The images a result asks for, drawn as PNG, each with alt text that says what it shows and
/// cites its fact (finding_detail's finding fact `detail_fact`, an issue's own fact), scoped.
/// With a memo, a chart already drawn from the same inputs on the facility's unchanged files
/// is not drawn again. Several charts (`rcx_report` with `images`) are drawn on as many threads
/// as the machine has cores, and come back in the result's order.
pub(crate) fn evidence_images(
    store: &StoreDir,
    data: &Value,
    detail_fact: Option<&str>,
    memo: Option<&Memo>,
) -> Vec<Image> {
    let specs = specs(data, detail_fact);
    // a chart drawn alone is drawn in strips on threads of its own; several at once are drawn
    // a pass each, since they already share the threads (fixed by the count, not the machine)
    let strips = if specs.len() == 1 { camber_report::chart::STRIPS } else { 1 };
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(specs.len());
    if workers <= 1 {
        return specs.iter().filter_map(|spec| image(store, spec, data, memo, strips)).collect();
    }
    let mut drawn: Vec<Option<Image>> = (0..specs.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let specs = &specs;
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    let mine = specs.iter().enumerate().skip(w).step_by(workers);
                    mine.map(|(i, spec)| (i, image(store, spec, data, memo, strips))).collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            // a panic while drawing is the call's (Registry::call answers it as internal)
            for (i, img) in h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)) {
                drawn[i] = img;
            }
        }
    });
    drawn.into_iter().flatten().collect()
}

fn image(store: &StoreDir, spec: &Spec<'_>, data: &Value, memo: Option<&Memo>, strips: u32) -> Option<Image> {
    let inputs = inputs_of(spec, data)?;
    let facility = [spec.fid.to_string()];
    let keep = memo.filter(|m| m.enabled()).map(|m| {
        let root = store.root().to_string_lossy();
        // the strips are in the key: the same chart drawn in other strips differs in a few pixels
        let key = serde_json::json!([root, spec.fid, spec.equip, spec.title, inputs, strips]).to_string();
        (m, sha256_hex(key.as_bytes()), store.derived_generation(&facility))
    });
    if let Some(hit) = keep.as_ref().and_then(|(m, key, derived)| m.drawn(key, derived)) {
        return Some(cited(&hit, spec));
    }
    let drawn = camber_runtime::profile::step("evidence image: drawn", || drawing(store, spec, inputs, strips))?;
    if let Some((m, key, before)) = keep {
        // kept only when nothing was rewritten while it was drawn
        if store.derived_generation(&facility) == before {
            m.keep_drawn(key, Drawn { derived: before, ..drawn.clone() });
        }
    }
    Some(cited(&drawn, spec))
}

/// A drawn chart as an image whose alt text cites the spec's fact.
fn cited(drawn: &Drawn, spec: &Spec<'_>) -> Image {
    let mut alt = drawn.alt.clone();
    if let Some(id) = spec.fact {
        alt.push_str(&format!(" [{id}]"));
    }
    alt.push('.');
    Image { mime_type: "image/png".into(), data: drawn.png.clone(), alt }
}

/// The chart drawn: its PNG and the alt text that says what it shows.
fn drawing(store: &StoreDir, spec: &Spec<'_>, inputs: Inputs, strips: u32) -> Option<Drawn> {
    let chart = draw(store, spec, inputs)?;
    let svg = camber_report::chart::svg(&chart, IMAGE_WIDTH, IMAGE_HEIGHT);
    let png = camber_report::chart::png_in(&svg, strips).ok()?;
    let roles: Vec<&str> = chart.series.iter().map(|s| s.role.as_str()).collect();
    let (t0, t1) = chart
        .series
        .iter()
        .flat_map(|s| s.ts.first().into_iter().chain(s.ts.last()))
        .fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(*t), b.max(*t)));
    let day = |t: i64| camber_common::time::iso_from_ns(t).chars().take(10).collect::<String>();
    let alt = format!(
        "Evidence chart of {} on {}: {} from {} to {}, {} flagged span(s) shaded",
        spec.finding,
        spec.equip,
        roles.join(", "),
        day(t0),
        day(t1),
        chart.spans.len()
    );
    Some(Drawn { png: base64::engine::general_purpose::STANDARD.encode(png), alt, derived: String::new() })
}
