//! An issue's evidence chart: the trend of the roles its finding's chart names, one line each on
//! a shared time axis, with the flagged spans shaded, as an inline SVG (no script, no fonts to
//! fetch). Roles in very different ranges (a valve in %, a temperature in °F) share one plot
//! scaled to each role's own range, labelled with its minimum and maximum, so every line uses
//! the height.

use svg::node::element::{Line, Polyline, Rectangle as Rect, Text as TextEl, Title};
use svg::Document;

use camber_common::time::iso_from_ns;

/// One role's samples.
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub role: String,
    pub ts: Vec<i64>,
    pub values: Vec<f64>,
}

/// What a chart draws.
#[derive(Clone, Debug, Default)]
pub struct Chart {
    pub title: String,
    pub series: Vec<Series>,
    /// Flagged spans `[start, end]` in the series' time.
    pub spans: Vec<(i64, i64)>,
}

/// Line colours, distinguishable in print and for the common colour-vision deficiencies.
const COLOURS: [&str; 6] = ["#1f77b4", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e"];

/// At most this many points per line: a year at 1 minute is thinned to the width it is drawn in.
const MAX_POINTS: usize = 1600;

const LEFT: f64 = 10.0;
const TOP: f64 = 26.0;

/// The chart as SVG text, `width` pixels wide with a plot `plot_h` pixels high; the legend (a
/// line per role) adds to the height, so many roles never squash the plot.
pub fn svg(c: &Chart, width: f64, plot_h: f64) -> String {
    let legend_h = 16.0 * c.series.len().max(1) as f64;
    let plot_h = plot_h.max(40.0);
    let height = TOP + plot_h + 34.0 + legend_h;
    let plot_w = width - 2.0 * LEFT;
    let (t0, t1) =
        c.series.iter().flat_map(|s| s.ts.iter().copied()).fold((i64::MAX, i64::MIN), |(a, b), t| (a.min(t), b.max(t)));
    let mut doc = Document::new()
        .set("xmlns", "http://www.w3.org/2000/svg")
        .set("viewBox", (0, 0, width as i64, height as i64))
        .set("width", width as i64)
        .set("height", height as i64)
        .set("role", "img")
        .add(Title::new(c.title.clone()))
        .add(Rect::new().set("width", width).set("height", height).set("fill", "#ffffff"))
        .add(
            TextEl::new(c.title.clone())
                .set("x", LEFT)
                .set("y", 16)
                .set("font-size", 13)
                .set("font-family", "sans-serif")
                .set("font-weight", "bold"),
        );
    let frame = Rect::new()
        .set("x", LEFT)
        .set("y", TOP)
        .set("width", plot_w)
        .set("height", plot_h)
        .set("fill", "none")
        .set("stroke", "#999999");
    if t0 >= t1 {
        return doc
            .add(frame)
            .add(
                TextEl::new("no trend in the window")
                    .set("x", LEFT + 8.0)
                    .set("y", TOP + plot_h / 2.0)
                    .set("font-size", 12)
                    .set("font-family", "sans-serif"),
            )
            .to_string();
    }
    let x = |t: i64| LEFT + plot_w * (t - t0) as f64 / (t1 - t0) as f64;
    for &(a, b) in &c.spans {
        let (a, b) = (a.max(t0), b.min(t1));
        if b < a {
            continue;
        }
        let w = (x(b) - x(a)).max(1.0);
        doc = doc.add(
            Rect::new()
                .set("x", x(a))
                .set("y", TOP)
                .set("width", w)
                .set("height", plot_h)
                .set("fill", "#f4a582")
                .set("fill-opacity", 0.45),
        );
    }
    doc = doc.add(frame);
    for (k, s) in c.series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let finite: Vec<f64> = s.values.iter().copied().filter(|v| v.is_finite()).collect();
        let (lo, hi) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
        // a role that barely moves (a setpoint's rounding) is not stretched to the full height:
        // its range is at least 2 % of its magnitude, centred on it
        let span = (hi - lo).max(0.02 * hi.abs().max(lo.abs())).max(1e-9);
        let base = if hi - lo < span { (hi + lo) / 2.0 - span / 2.0 } else { lo };
        let y = |v: f64| TOP + plot_h - 4.0 - (plot_h - 8.0) * (v - base) / span;
        let step = s.ts.len().div_ceil(MAX_POINTS).max(1);
        // a gap (a missing sample) breaks the line
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, doc: Document| -> Document {
            let d = if run.len() > 1 {
                doc.add(
                    Polyline::new()
                        .set("points", run.join(" "))
                        .set("fill", "none")
                        .set("stroke", colour)
                        .set("stroke-width", 1.2),
                )
            } else {
                doc
            };
            run.clear();
            d
        };
        let mut i = 0;
        while i < s.ts.len().min(s.values.len()) {
            let v = s.values[i];
            if v.is_finite() {
                run.push(format!("{:.1},{:.1}", x(s.ts[i]), y(v)));
            } else {
                doc = flush(&mut run, doc);
            }
            i += step;
        }
        doc = flush(&mut run, doc);
        let ly = TOP + plot_h + 28.0 + 16.0 * k as f64;
        let label = if finite.is_empty() {
            format!("{} (no samples)", s.role)
        } else {
            format!("{} ({} to {})", s.role, short(lo), short(hi))
        };
        doc = doc
            .add(
                Line::new()
                    .set("x1", LEFT)
                    .set("x2", LEFT + 18.0)
                    .set("y1", ly - 4.0)
                    .set("y2", ly - 4.0)
                    .set("stroke", colour)
                    .set("stroke-width", 2),
            )
            .add(
                TextEl::new(label)
                    .set("x", LEFT + 24.0)
                    .set("y", ly)
                    .set("font-size", 11)
                    .set("font-family", "sans-serif"),
            );
    }
    let day = |t: i64| iso_from_ns(t).chars().take(10).collect::<String>();
    doc = doc.add(axis_label(&day(t0), LEFT, TOP + plot_h + 12.0, "start")).add(axis_label(
        &day(t1),
        LEFT + plot_w,
        TOP + plot_h + 12.0,
        "end",
    ));
    doc.to_string()
}

fn axis_label(s: &str, x: f64, y: f64, anchor: &str) -> TextEl {
    TextEl::new(s)
        .set("x", x)
        .set("y", y)
        .set("font-size", 10)
        .set("font-family", "sans-serif")
        .set("text-anchor", anchor)
        .set("fill", "#555555")
}

/// A number as a label: up to three significant decimals, no trailing zeros.
fn short(v: f64) -> String {
    let s = if v.abs() >= 100.0 { format!("{v:.0}") } else { format!("{v:.2}") };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000_000;

    fn chart(spans: Vec<(i64, i64)>) -> Chart {
        let ts: Vec<i64> = (0..48).map(|i| i * H).collect();
        Chart {
            title: "leaking_valve@AHU-1 <on> & off".into(),
            series: vec![
                Series {
                    role: "supply_air_temp".into(),
                    ts: ts.clone(),
                    values: (0..48).map(|i| 55.0 + (i % 5) as f64).collect(),
                },
                Series {
                    role: "cool_valve".into(),
                    ts,
                    values: (0..48).map(|i| if i == 10 { f64::NAN } else { (i * 2) as f64 }).collect(),
                },
            ],
            spans,
        }
    }

    #[test]
    fn lines_legends_and_shaded_spans_are_drawn_and_text_is_escaped() {
        let s = svg(&chart(vec![(5 * H, 8 * H), (30 * H, 31 * H)]), 640.0, 180.0);
        assert!(s.starts_with("<svg"), "{s}");
        // the gap in the valve splits its line in two
        assert_eq!(s.matches("<polyline").count(), 3, "{s}");
        assert_eq!(s.matches("fill-opacity").count(), 2);
        assert!(s.contains("supply_air_temp (55 to 59)"), "{s}");
        assert!(s.contains("cool_valve (0 to 94)"), "{s}");
        assert!(s.contains("&lt;on&gt; &amp; off"), "the title is escaped: {s}");
        assert!(s.contains("1970-01-01") && s.contains("1970-01-02"));
    }

    #[test]
    fn an_empty_chart_says_so_and_spans_outside_are_dropped() {
        let s = svg(&Chart { title: "x".into(), ..Default::default() }, 400.0, 200.0);
        assert!(s.contains("no trend in the window"), "{s}");
        let s = svg(&chart(vec![(100 * H, 120 * H)]), 400.0, 200.0);
        assert_eq!(s.matches("fill-opacity").count(), 0);
    }

    #[test]
    fn a_long_trend_is_thinned_to_the_width() {
        let n = 525_600;
        let c = Chart {
            title: "year".into(),
            series: vec![Series {
                role: "r".into(),
                ts: (0..n as i64).map(|i| i * 60_000_000_000).collect(),
                values: (0..n).map(|i| (i % 100) as f64).collect(),
            }],
            spans: vec![],
        };
        let s = svg(&c, 800.0, 240.0);
        let points = s.split("points=\"").nth(1).unwrap().split('"').next().unwrap().split(' ').count();
        assert!(points <= MAX_POINTS + 1, "{points}");
        assert!(s.len() < 60_000, "{}", s.len());
    }
}
