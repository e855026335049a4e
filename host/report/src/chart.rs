//! An issue's evidence chart, drawn as a person reads a trend: signals of one kind on one axis
//! with its unit and ticks (temperatures together in °F, valve and damper positions together in
//! %, statuses as a strip of on/off bands), a setpoint dashed in its signal's colour, the
//! flagged spans shaded across every panel, dated ticks on a shared time axis and a title that
//! says what the rule saw. The same SVG goes inline into the HTML report and, rendered by
//! [`png`], into tool results as an image. No script, no fonts fetched: the PNG is drawn with
//! the DejaVu Sans face compiled in, so the same chart gives the same bytes on every machine.

use std::sync::{Arc, OnceLock};

use svg::node::element::{Line, Polygon, Polyline, Rectangle as Rect, Text as TextEl, Title};
use svg::Document;

use camber_common::roles::{role_or_parent as role, Kind};
use camber_common::time::{civil_from_days, iso_from_ns};

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
    /// What the rule saw, in a line (cut to the width with an ellipsis).
    pub title: String,
    pub series: Vec<Series>,
    /// Flagged spans `[start, end]` in the series' time.
    pub spans: Vec<(i64, i64)>,
}

/// Line colours, distinguishable in print and for the common colour-vision deficiencies.
const COLOURS: [&str; 8] = ["#1f77b4", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#a6761d", "#666666"];
/// The shading of a flagged span.
const FLAG: &str = "#f4a582";
const FONT: &str = "DejaVu Sans, sans-serif";

/// Left margin (the y ticks and the unit), right margin, title and legend line heights.
const LEFT: f64 = 56.0;
const RIGHT: f64 = 14.0;
const TITLE_H: f64 = 24.0;
const LEGEND_LINE: f64 = 16.0;
const AXIS_H: f64 = 20.0;
const GAP: f64 = 10.0;
const STATUS_ROW: f64 = 14.0;
/// The shortest an analog panel is drawn, however many panels share the height.
const MIN_PANEL: f64 = 56.0;

/// The panel a role is drawn in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Panel {
    /// A measured quantity, one axis per stored unit (temperatures first); a role of no
    /// known unit gets an axis of its own.
    Analog { order: u8, unit: String },
    /// Positions and speeds, 0-100 %.
    Percent,
    /// On/off, as bands.
    Status,
}

fn panel_of(name: &str) -> Panel {
    match role(name) {
        Some(r) if r.kind == Kind::Status => Panel::Status,
        Some(r) if r.unit == "%" || (r.kind == Kind::Percent && r.unit.is_empty()) => Panel::Percent,
        Some(r) if !r.unit.is_empty() => Panel::Analog { order: u8::from(r.unit != "degF"), unit: r.unit.to_string() },
        _ => Panel::Analog { order: 2, unit: format!("role:{name}") },
    }
}

/// A unit as the axis shows it.
fn unit_label(unit: &str) -> String {
    match unit {
        "degF" => "°F".into(),
        "degC" => "°C".into(),
        "inH2O" => "inH₂O".into(),
        u if u.starts_with("role:") => String::new(),
        u => u.into(),
    }
}

/// Whether a role is a setpoint (drawn dashed).
fn is_setpoint(name: &str) -> bool {
    name.ends_with("_sp") || name.ends_with("_setpoint") || name.contains("_sp_")
}

/// The signal a setpoint belongs to (`supply_air_temp_sp` -> `supply_air_temp`).
fn signal_of(name: &str) -> Option<&str> {
    name.strip_suffix("_sp").or_else(|| name.strip_suffix("_setpoint"))
}

/// Each series' colour: in order, a setpoint taking its signal's when the chart has both.
fn colours(series: &[Series]) -> Vec<&'static str> {
    let mut next = 0;
    let mut out: Vec<&'static str> = Vec::with_capacity(series.len());
    for s in series {
        let paired = signal_of(&s.role)
            .filter(|_| is_setpoint(&s.role))
            .and_then(|sig| series.iter().position(|o| o.role == sig))
            .filter(|&k| k < out.len());
        match paired {
            Some(k) => out.push(out[k]),
            None => {
                out.push(COLOURS[next % COLOURS.len()]);
                next += 1;
            }
        }
    }
    // a setpoint listed before its signal: the signal takes the setpoint's colour
    for (k, s) in series.iter().enumerate() {
        if let Some(j) = series.iter().position(|o| is_setpoint(&o.role) && signal_of(&o.role) == Some(s.role.as_str()))
        {
            if j < k {
                out[k] = out[j];
            }
        }
    }
    out
}

/// About `want` round tick values covering `[lo, hi]`: steps of 1, 2, 2.5 or 5 times a power
/// of ten.
fn nice_ticks(lo: f64, hi: f64, want: usize) -> (f64, f64, Vec<f64>) {
    let raw = (hi - lo) / want.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let (a, b) = ((lo / step).floor() * step, (hi / step).ceil() * step);
    let n = ((b - a) / step).round() as usize;
    (a, b, (0..=n).map(|i| a + i as f64 * step).collect())
}

/// An analog panel's range: its lines' extent, at least 2 % of their magnitude (a setpoint's
/// rounding is not stretched to the full height) and at least one unit.
fn analog_range(series: &[&Series]) -> (f64, f64) {
    let (lo, hi) = series
        .iter()
        .flat_map(|s| s.values.iter().copied().filter(|v| v.is_finite()))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = (hi - lo).max(0.02 * hi.abs().max(lo.abs())).max(1.0);
    let mid = (hi + lo) / 2.0;
    if hi - lo < span {
        (mid - span / 2.0, mid + span / 2.0)
    } else {
        (lo, hi)
    }
}

/// Time ticks: a step from an hour to a month, the largest count that fits the width.
fn time_ticks(t0: i64, t1: i64, width: f64) -> (Vec<i64>, bool) {
    const H: i64 = 3_600_000_000_000;
    const D: i64 = 24 * H;
    let fit = (width / 90.0).max(2.0) as i64;
    let span = t1 - t0;
    let step = [H, 2 * H, 3 * H, 6 * H, 12 * H, D, 2 * D, 7 * D, 14 * D].into_iter().find(|s| span / s <= fit);
    match step {
        Some(step) => {
            let first = t0.div_euclid(step) * step + if t0.rem_euclid(step) == 0 { 0 } else { step };
            ((0..).map(|i| first + i * step).take_while(|t| *t <= t1).collect(), step < D)
        }
        None => {
            // the first of each month (every few months when they do not fit)
            let (mut y, m0, _) = civil_from_days(t0.div_euclid(D));
            let mut m = m0 as i64;
            let mut out = Vec::new();
            loop {
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
                let t = camber_common::time::days_from_civil(y, m as u32, 1) * D;
                if t > t1 {
                    break;
                }
                out.push(t);
            }
            let fit = (width / 80.0).max(2.0) as usize;
            let every = out.len().div_ceil(fit).max(1);
            let out: Vec<i64> = out.into_iter().step_by(every).collect();
            (out, false)
        }
    }
}

fn tick_label(t: i64, with_time: bool) -> String {
    let iso = iso_from_ns(t);
    if with_time {
        format!("{} {}", &iso[5..10], &iso[11..16])
    } else {
        iso[..10].to_string()
    }
}

/// A number as a tick label: no trailing zeros.
fn short(v: f64) -> String {
    let s = if v.abs() >= 100.0 || v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.2}") };
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// About how wide a line of text is drawn, in pixels (DejaVu Sans averages 0.6 em).
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// A text cut to fit `width` pixels, with an ellipsis.
fn fit(s: &str, size: f64, width: f64) -> String {
    let max = (width / (size * 0.6)) as usize;
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn text(s: impl Into<String>, x: f64, y: f64, size: f64) -> TextEl {
    TextEl::new(s.into()).set("x", x).set("y", y).set("font-size", size).set("font-family", FONT).set("fill", "#333333")
}

/// How one stretch of a signal is drawn.
enum Trace {
    /// Every sample, joined.
    Line(Vec<(f64, f64)>),
    /// More samples than pixels: each pixel column's lowest and highest, as a filled band
    /// (its upper edge left to right, its lower edge back), so a spike of one sample in a year
    /// still shows and the renderer strokes no zigzag of thousands of points.
    Band(Vec<(f64, f64)>),
}

/// A signal's traces: a missing sample (NaN) breaks it, so a gap is never bridged.
fn traces(s: &Series, x: &dyn Fn(i64) -> f64, y: &dyn Fn(f64) -> f64, columns: usize) -> Vec<Trace> {
    let n = s.ts.len().min(s.values.len());
    let mut out = Vec::new();
    if n <= 2 * columns.max(1) {
        let mut run: Vec<(f64, f64)> = Vec::new();
        for i in 0..n {
            if s.values[i].is_finite() {
                run.push((x(s.ts[i]), y(s.values[i])));
            } else if !run.is_empty() {
                out.push(Trace::Line(std::mem::take(&mut run)));
            }
        }
        if !run.is_empty() {
            out.push(Trace::Line(run));
        }
        return out;
    }
    // (column centre, lowest, highest) of each pixel column with samples, per unbroken stretch;
    // a column reaches back to the last sample of the one before, so a fast swing is one
    // connected band, as a line would draw it
    let mut band: Vec<(f64, f64, f64)> = Vec::new();
    let mut prev: Option<f64> = None;
    let flush = |band: &mut Vec<(f64, f64, f64)>, out: &mut Vec<Trace>| {
        if band.is_empty() {
            return;
        }
        // at least a pixel and a half high, so a flat stretch still reads as a line
        let edge = |lo: f64, hi: f64| {
            let (top, bottom) = (y(hi), y(lo));
            let pad = ((1.5 - (bottom - top)) / 2.0).max(0.0);
            (top - pad, bottom + pad)
        };
        let mut pts: Vec<(f64, f64)> = band.iter().map(|&(cx, lo, hi)| (cx, edge(lo, hi).0)).collect();
        pts.extend(band.iter().rev().map(|&(cx, lo, hi)| (cx, edge(lo, hi).1)));
        out.push(Trace::Band(pts));
        band.clear();
    };
    for i in 0..n {
        let v = s.values[i];
        if !v.is_finite() {
            flush(&mut band, &mut out);
            prev = None;
            continue;
        }
        let cx = x(s.ts[i]).floor() + 0.5;
        match band.last_mut() {
            Some(last) if last.0 == cx => {
                last.1 = last.1.min(v);
                last.2 = last.2.max(v);
            }
            _ => {
                let from = prev.unwrap_or(v);
                band.push((cx, v.min(from), v.max(from)));
            }
        }
        prev = Some(v);
    }
    flush(&mut band, &mut out);
    out
}

/// An SVG `points` list, each coordinate to a tenth of a pixel (written as integers: a year's
/// trend has thousands of points, and float formatting was a tenth of the chart's time).
fn points_attr(points: &[(f64, f64)]) -> String {
    use std::fmt::Write;
    let tenths = |d: &mut String, v: f64| {
        let t = (v * 10.0).round() as i64;
        let sign = if t < 0 { "-" } else { "" };
        let _ = write!(d, "{sign}{}.{}", t.abs() / 10, t.abs() % 10);
    };
    let mut d = String::with_capacity(points.len() * 12);
    for (k, &(px, py)) in points.iter().enumerate() {
        if k > 0 {
            d.push(' ');
        }
        tenths(&mut d, px);
        d.push(',');
        tenths(&mut d, py);
    }
    d
}

/// A band of a dense signal, filled (a setpoint's lighter than its signal's), with no outline:
/// stroking a zigzag of thousands of points was most of a year-long chart's drawing time.
fn band(points: &[(f64, f64)], colour: &str, setpoint: bool) -> Polygon {
    Polygon::new()
        .set("points", points_attr(points))
        .set("fill", colour)
        .set("fill-opacity", if setpoint { 0.45 } else { 1.0 })
        .set("shape-rendering", "crispEdges")
}

fn polyline(points: &[(f64, f64)], colour: &str, dashed: bool) -> Polyline {
    let line = Polyline::new()
        .set("points", points_attr(points))
        .set("fill", "none")
        .set("stroke", colour)
        .set("stroke-width", 1.4)
        .set("stroke-linejoin", "round");
    if dashed {
        line.set("stroke-dasharray", "6,3")
    } else {
        line
    }
}

/// The legend's items, wrapped into lines that fit the width: (label, colour, dashed).
fn legend_lines(items: &[(String, &'static str, bool)], width: f64) -> Vec<Vec<usize>> {
    let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0.0;
    for (k, (label, _, _)) in items.iter().enumerate() {
        let w = 26.0 + text_width(label, 11.0) + 14.0;
        if used + w > width && !lines.last().is_some_and(Vec::is_empty) {
            lines.push(Vec::new());
            used = 0.0;
        }
        if let Some(line) = lines.last_mut() {
            line.push(k);
        }
        used += w;
    }
    lines
}

/// The chart as SVG text, `width` by about `height` pixels (a chart with many panels grows so
/// that no panel is squashed).
pub fn svg(c: &Chart, width: f64, height: f64) -> String {
    let plot_w = (width - LEFT - RIGHT).max(40.0);
    let colour = colours(&c.series);
    let mut legend: Vec<(String, &'static str, bool)> = c
        .series
        .iter()
        .zip(&colour)
        .map(|(s, col)| {
            let unit = role(&s.role).map(|r| unit_label(r.unit)).unwrap_or_default();
            let label = if unit.is_empty() { s.role.clone() } else { format!("{} ({unit})", s.role) };
            (label, *col, is_setpoint(&s.role))
        })
        .collect();
    if !c.spans.is_empty() {
        legend.push(("flagged by the rule".into(), FLAG, false));
    }
    let lines = legend_lines(&legend, width - 2.0 * 10.0);
    let legend_h = LEGEND_LINE * lines.len() as f64 + 4.0;

    // the panels, in order, and the series each draws
    let mut panels: Vec<(Panel, Vec<usize>)> = Vec::new();
    for (k, s) in c.series.iter().enumerate() {
        let p = panel_of(&s.role);
        match panels.iter_mut().find(|(q, _)| *q == p) {
            Some((_, members)) => members.push(k),
            None => panels.push((p, vec![k])),
        }
    }
    panels.sort_by(|a, b| a.0.cmp(&b.0));
    let status_h: f64 =
        panels.iter().filter(|(p, _)| *p == Panel::Status).map(|(_, m)| STATUS_ROW * m.len() as f64 + 6.0).sum();
    let n_analog = panels.iter().filter(|(p, _)| *p != Panel::Status).count();
    let top = TITLE_H + legend_h;
    let gaps = GAP * panels.len().saturating_sub(1) as f64;
    let analog_h = if n_analog == 0 {
        0.0
    } else {
        ((height - top - AXIS_H - 6.0 - status_h - gaps) / n_analog as f64).max(MIN_PANEL)
    };
    let plot_bottom = top + analog_h * n_analog as f64 + status_h + gaps;
    let height = (plot_bottom + AXIS_H + 6.0).max(height);

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
        .add(text(fit(&c.title, 13.0, width - 20.0), 10.0, 17.0, 13.0).set("font-weight", "bold"));
    // the legend
    for (l, items) in lines.iter().enumerate() {
        let ly = TITLE_H + LEGEND_LINE * l as f64 + 11.0;
        let mut lx = 10.0;
        for &k in items {
            let (label, col, dashed) = &legend[k];
            if *col == FLAG {
                doc = doc.add(
                    Rect::new()
                        .set("x", lx)
                        .set("y", ly - 9.0)
                        .set("width", 20)
                        .set("height", 10)
                        .set("fill", FLAG)
                        .set("fill-opacity", 0.45),
                );
            } else {
                let mut sw = Line::new()
                    .set("x1", lx)
                    .set("x2", lx + 20.0)
                    .set("y1", ly - 4.0)
                    .set("y2", ly - 4.0)
                    .set("stroke", *col);
                sw = sw.set("stroke-width", 2);
                if *dashed {
                    sw = sw.set("stroke-dasharray", "5,2");
                }
                doc = doc.add(sw);
            }
            doc = doc.add(text(label.clone(), lx + 26.0, ly, 11.0));
            lx += 26.0 + text_width(label, 11.0) + 14.0;
        }
    }
    if t0 >= t1 {
        let h = (plot_bottom - top).max(40.0);
        return doc
            .add(
                Rect::new()
                    .set("x", LEFT)
                    .set("y", top)
                    .set("width", plot_w)
                    .set("height", h)
                    .set("fill", "none")
                    .set("stroke", "#999999"),
            )
            .add(text("no trend in the window", LEFT + 8.0, top + h / 2.0, 12.0))
            .to_string();
    }
    let x = |t: i64| LEFT + plot_w * (t - t0) as f64 / (t1 - t0) as f64;

    // flagged spans, merged where they would touch at this width (drawn last)
    let mut spans: Vec<(f64, f64)> = Vec::new();
    let mut sorted: Vec<(i64, i64)> =
        c.spans.iter().map(|&(a, b)| (a.max(t0), b.min(t1))).filter(|(a, b)| a <= b).collect();
    sorted.sort_unstable();
    for (a, b) in sorted {
        let (xa, xb) = (x(a), x(b).max(x(a) + 1.0));
        match spans.last_mut() {
            Some(last) if xa <= last.1 + 1.0 => last.1 = last.1.max(xb),
            _ => spans.push((xa, xb)),
        }
    }
    // time ticks: a faint line through every panel and a date under the axis
    let (ticks, with_time) = time_ticks(t0, t1, plot_w);
    for &t in &ticks {
        doc = doc.add(
            Line::new()
                .set("x1", format!("{:.1}", x(t)))
                .set("x2", format!("{:.1}", x(t)))
                .set("y1", top)
                .set("y2", plot_bottom)
                .set("stroke", "#e4e4e4"),
        );
        doc = doc.add(text(tick_label(t, with_time), x(t), plot_bottom + 14.0, 10.0).set("text-anchor", "middle"));
    }

    let columns = plot_w as usize;
    let mut y_top = top;
    for (p, members) in &panels {
        let series: Vec<&Series> = members.iter().map(|&k| &c.series[k]).collect();
        if *p == Panel::Status {
            let h = STATUS_ROW * members.len() as f64 + 6.0;
            for (row, &k) in members.iter().enumerate() {
                let s = &c.series[k];
                let ry = y_top + 3.0 + STATUS_ROW * row as f64;
                doc = doc.add(
                    Rect::new()
                        .set("x", LEFT)
                        .set("y", ry + 1.0)
                        .set("width", plot_w)
                        .set("height", STATUS_ROW - 2.0)
                        .set("fill", "#eeeeee")
                        .set("fill-opacity", 0.6),
                );
                for (a, b) in on_runs(s) {
                    let (xa, xb) = (x(a), x(b).max(x(a) + 1.0));
                    doc = doc.add(
                        Rect::new()
                            .set("x", format!("{xa:.1}"))
                            .set("y", ry + 1.0)
                            .set("width", format!("{:.1}", xb - xa))
                            .set("height", STATUS_ROW - 2.0)
                            .set("fill", colour[k])
                            .set("fill-opacity", 0.8),
                    );
                }
                doc = doc.add(text(fit(&s.role, 9.0, LEFT - 6.0), 4.0, ry + 10.0, 9.0));
            }
            doc = doc.add(frame(y_top, plot_w, h));
            y_top += h + GAP;
            continue;
        }
        let (lo, hi, ticks) = match p {
            Panel::Percent => (0.0, 100.0, vec![0.0, 50.0, 100.0]),
            _ => {
                let (a, b) = analog_range(&series);
                nice_ticks(a, b, if analog_h < 90.0 { 2 } else { 4 })
            }
        };
        let (pt, ph) = (y_top, analog_h);
        let y = |v: f64| pt + ph - 3.0 - (ph - 6.0) * (v - lo) / (hi - lo).max(1e-9);
        for &v in &ticks {
            doc = doc
                .add(
                    Line::new()
                        .set("x1", LEFT)
                        .set("x2", LEFT + plot_w)
                        .set("y1", format!("{:.1}", y(v)))
                        .set("y2", format!("{:.1}", y(v)))
                        .set("stroke", "#e4e4e4"),
                )
                .add(text(short(v), LEFT - 4.0, y(v) + 3.5, 10.0).set("text-anchor", "end"));
        }
        let unit = match p {
            Panel::Percent => "%".to_string(),
            Panel::Analog { unit, .. } => unit_label(unit),
            Panel::Status => String::new(),
        };
        let unit = if unit.is_empty() { series.first().map(|s| s.role.clone()).unwrap_or_default() } else { unit };
        doc = doc.add(text(fit(&unit, 10.0, LEFT - 6.0), 4.0, pt + 10.0, 10.0).set("font-weight", "bold"));
        for (&k, s) in members.iter().zip(&series) {
            for trace in traces(s, &x, &y, columns) {
                doc = match trace {
                    Trace::Line(mut points) => {
                        // a lone sample between gaps is a short dash, not nothing
                        if let [(px, py)] = points[..] {
                            points = vec![(px - 1.5, py), (px + 1.5, py)];
                        }
                        doc.add(polyline(&points, colour[k], is_setpoint(&s.role)))
                    }
                    Trace::Band(points) => doc.add(band(&points, colour[k], is_setpoint(&s.role))),
                };
            }
        }
        doc = doc.add(frame(pt, plot_w, ph));
        y_top += ph + GAP;
    }
    // the flagged spans over every panel, translucent, so a dense trend cannot hide them
    for (xa, xb) in &spans {
        doc = doc.add(
            Rect::new()
                .set("x", format!("{xa:.1}"))
                .set("y", top)
                .set("width", format!("{:.1}", xb - xa))
                .set("height", plot_bottom - top)
                .set("fill", FLAG)
                .set("fill-opacity", 0.4),
        );
    }

    doc.to_string()
}

fn frame(y: f64, w: f64, h: f64) -> Rect {
    Rect::new().set("x", LEFT).set("y", y).set("width", w).set("height", h).set("fill", "none").set("stroke", "#999999")
}

/// The spans where a status is on (at least 0.5), each from its first on sample to the next
/// sample's time.
fn on_runs(s: &Series) -> Vec<(i64, i64)> {
    let n = s.ts.len().min(s.values.len());
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut start: Option<i64> = None;
    for i in 0..n {
        let on = s.values[i] >= 0.5;
        match (on, start) {
            (true, None) => start = Some(s.ts[i]),
            (false, Some(a)) => {
                out.push((a, s.ts[i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        out.push((a, s.ts[n - 1]));
    }
    out
}

/// The fonts a PNG is drawn with: DejaVu Sans, compiled in, as every generic family.
fn fonts() -> Arc<resvg::usvg::fontdb::Database> {
    static DB: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(dejavu::sans::regular().to_vec());
        db.load_font_data(dejavu::sans::bold().to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        db.set_serif_family("DejaVu Sans");
        db.set_monospace_family("DejaVu Sans");
        Arc::new(db)
    })
    .clone()
}

/// The horizontal strips a chart drawn alone is drawn in, each on a thread of its own (a quarter
/// off the drawing of a 1,000 x 400 chart on two cores). Fixed rather than the machine's core
/// count: a strip's edge shades a few anti-aliased pixels differently from one pass over the
/// whole image, and the same chart must give the same bytes on every machine.
pub const STRIPS: u32 = 2;

/// An SVG (a chart of this module) rendered to PNG bytes at its own size, drawn alone: in
/// [`STRIPS`] strips. The same SVG gives the same bytes.
pub fn png(svg: &str) -> Result<Vec<u8>, String> {
    png_in(svg, STRIPS)
}

/// [`png`] in `strips` horizontal strips (at least one), each on its own thread: one where
/// several charts are drawn at once and the threads are already busy (splitting them further
/// made `rcx_report`'s five charts slower). A chart drawn in the same number of strips gives
/// the same bytes.
pub fn png_in(svg: &str, strips: u32) -> Result<Vec<u8>, String> {
    let strips = strips.max(1);
    let opts = resvg::usvg::Options { fontdb: fonts(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &opts).map_err(|e| format!("the chart is not valid SVG ({e})"))?;
    let size = tree.size().to_int_size();
    let (width, height) = (size.width(), size.height());
    // each strip is drawn and its colours counted on its own thread; the palette is made from
    // the summed counts, and each strip's pixels are indexed on its thread again
    let bounds: Vec<(u32, u32)> = (0..strips)
        .map(|k| (height * k / strips, height * (k + 1) / strips))
        .filter(|(top, bottom)| bottom > top)
        .collect();
    let strips = on_threads(&bounds, |&(top, bottom)| {
        let mut pixmap = resvg::tiny_skia::Pixmap::new(width, bottom - top)?;
        resvg::render(&tree, resvg::tiny_skia::Transform::from_translate(0.0, -(top as f32)), &mut pixmap.as_mut());
        let counts = colour_counts(pixmap.data());
        Some((pixmap, counts))
    })
    .into_iter()
    .collect::<Option<Vec<_>>>()
    .ok_or_else(|| format!("a {width}x{height} chart cannot be drawn"))?;
    let mut counts: ColourMap<usize> = ColourMap::default();
    for (_, strip) in &strips {
        for (c, n) in strip {
            *counts.entry(*c).or_default() += n;
        }
    }
    let (palette, index) = palette_of(counts);
    let pixels = on_threads(&strips, |(pixmap, _)| indexed(pixmap.data(), &index)).concat();
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Indexed);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_palette(palette);
    // a palette image compresses best unfiltered, and a low zlib level makes it a sixth of the
    // crate's fast default for little more time (a chart is mostly runs of a few colours)
    enc.set_deflate_compression(png::DeflateCompression::Level(1));
    enc.set_filter(png::Filter::NoFilter);
    let fail = |e: png::EncodingError| format!("the chart cannot be encoded as PNG ({e})");
    let mut w = enc.write_header().map_err(fail)?;
    w.write_image_data(&pixels).map_err(fail)?;
    w.finish().map_err(fail)?;
    Ok(out)
}

/// `f` of each item, the first on this thread and the rest on scoped threads, in order.
fn on_threads<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let Some((first, rest)) = items.split_first() else { return Vec::new() };
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = rest.iter().map(|item| scope.spawn(move || f(item))).collect();
        let mut out = vec![f(first)];
        // a panic while drawing is the caller's, as it would be on one thread
        out.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))));
        out
    })
}

/// An opaque RGBA pixel's colour as 24 bits.
fn rgb(p: &[u8]) -> u32 {
    u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2])
}

/// How many pixels of each colour: most neighbours share a colour, so runs are counted, not
/// pixels.
fn colour_counts(rgba: &[u8]) -> ColourMap<usize> {
    let mut counts: ColourMap<usize> = ColourMap::default();
    let mut run: Option<(u32, usize)> = None;
    for p in rgba.chunks_exact(4) {
        let c = rgb(p);
        match &mut run {
            Some((last, n)) if *last == c => *n += 1,
            _ => {
                if let Some((last, n)) = run.replace((c, 1)) {
                    *counts.entry(last).or_default() += n;
                }
            }
        }
    }
    if let Some((last, n)) = run {
        *counts.entry(last).or_default() += n;
    }
    counts
}

/// A chart's colours as a palette of at most 256 and each colour's index in it. A chart has a
/// few hundred colours (its lines, fills and their anti-aliased edges): the 256 commonest are
/// the palette, and a rarer edge shade takes the nearest of them. A quarter of the bytes of
/// true colour, and no visible change.
fn palette_of(counts: ColourMap<usize>) -> (Vec<u8>, ColourMap<u8>) {
    let mut by_use: Vec<(u32, usize)> = counts.into_iter().collect();
    by_use.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<u32> = by_use.iter().take(256).map(|(c, _)| *c).collect();
    let dist = |a: u32, b: u32| {
        (0..3).map(|k| ((a >> (8 * k) & 0xff) as i32 - (b >> (8 * k) & 0xff) as i32).pow(2)).sum::<i32>()
    };
    let index: ColourMap<u8> = by_use
        .iter()
        .map(|&(c, _)| {
            let k = palette.iter().enumerate().min_by_key(|(_, p)| dist(**p, c)).map(|(k, _)| k).unwrap_or(0);
            (c, k as u8)
        })
        .collect();
    let bytes = palette.iter().flat_map(|c| [(c >> 16) as u8, (c >> 8) as u8, *c as u8]).collect();
    (bytes, index)
}

/// Opaque RGBA pixels as palette indices (every colour is in `index`).
fn indexed(rgba: &[u8], index: &ColourMap<u8>) -> Vec<u8> {
    let mut last: Option<(u32, u8)> = None;
    rgba.chunks_exact(4)
        .map(|p| {
            let c = rgb(p);
            match last {
                Some((l, k)) if l == c => k,
                _ => {
                    let k = index[&c];
                    last = Some((c, k));
                    k
                }
            }
        })
        .collect()
}

/// A map keyed by a 24-bit colour (the keys are not attacker-chosen, and SipHash was a tenth of
/// the PNG's time).
type ColourMap<V> = rustc_hash::FxHashMap<u32, V>;

#[cfg(test)]
mod tests;
