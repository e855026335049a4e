use super::*;

const H: i64 = 3_600_000_000_000;

fn series(role: &str, n: i64, f: impl Fn(i64) -> f64) -> Series {
    Series { role: role.into(), ts: (0..n).map(|i| i * H).collect(), values: (0..n).map(f).collect() }
}

fn chart(spans: Vec<(i64, i64)>) -> Chart {
    Chart {
        title: "leaking_valve@AHU-1 <on> & off".into(),
        series: vec![
            series("supply_air_temp", 48, |i| 55.0 + (i % 5) as f64),
            series("cool_valve", 48, |i| if i == 10 { f64::NAN } else { (i * 2) as f64 }),
            series("supply_air_temp_sp", 48, |_| 55.0),
            series("mixed_air_temp", 48, |i| 60.0 + (i % 7) as f64),
            series("supply_fan_status", 48, |i| if (8..20).contains(&(i % 24)) { 1.0 } else { 0.0 }),
        ],
        spans,
    }
}

/// A text element's content as the SVG writer lays it out.
fn label(s: &str) -> String {
    format!(">\n{s}\n<")
}

/// The `points` attribute of each polyline with its stroke colour and whether it is dashed.
fn lines(s: &str) -> Vec<(String, bool, usize)> {
    s.split("<polyline")
        .skip(1)
        .map(|p| {
            let p = p.split("/>").next().unwrap();
            let attr = |k: &str| p.split(&format!("{k}=\"")).nth(1).map(|v| v.split('"').next().unwrap().to_string());
            (attr("stroke").unwrap(), attr("stroke-dasharray").is_some(), attr("points").unwrap().split(' ').count())
        })
        .collect()
}

#[test]
fn signals_of_one_kind_share_an_axis_with_their_unit_and_ticks() {
    let s = svg(&chart(vec![(5 * H, 8 * H), (30 * H, 31 * H)]), 1000.0, 400.0);
    assert!(s.starts_with("<svg"), "{s}");
    // two temperatures on one °F axis, the valve on a 0-100 % axis, the fan as a strip
    assert_eq!(s.matches(&label("°F")).count(), 1, "{s}");
    assert_eq!(s.matches(&label("%")).count(), 1, "{s}");
    for tick in ["0", "50", "100"] {
        assert!(s.contains(&label(tick)), "the % axis has tick {tick}");
    }
    assert!(s.contains(&label("supply_fan_status")), "the status strip is labelled");
    // the legend names each signal with its unit
    assert!(s.contains("supply_air_temp (°F)") && s.contains("cool_valve (%)"), "{s}");
    assert!(s.contains("flagged by the rule"));
    // the two spans shaded, and the legend's swatch
    assert_eq!(s.matches("fill=\"#f4a582\"").count(), 3, "{s}");
    // the title is escaped
    assert!(s.contains("&lt;on&gt; &amp; off"), "{s}");
    // dated ticks under the axis
    assert!(s.contains("01-01 ") || s.contains("1970-01-02"), "{s}");
}

#[test]
fn a_point_copied_from_the_parent_is_drawn_as_the_parents_role() {
    // a box's chart with its air handler's fan speed: on the damper's 0-100 % axis, with its unit
    assert_eq!(panel_of("parent_fan_speed_pct"), panel_of("damper"));
    assert_eq!(panel_of("parent_fan_speed_pct"), Panel::Percent);
    assert_eq!(panel_of("parent_duct_static_sp"), panel_of("duct_static_sp"));
    // a box's minimum airflow on its airflow's axis, not on an unlabelled one of its own
    assert_eq!(panel_of("airflow_min_sp"), panel_of("airflow"));
    let c = Chart {
        series: vec![series("damper", 48, |h| 86.0 + (h % 3) as f64), series("parent_fan_speed_pct", 48, |_| 100.0)],
        ..chart(vec![])
    };
    let s = svg(&c, 1000.0, 400.0);
    assert_eq!(s.matches(&label("%")).count(), 1, "one percent axis: {s}");
    assert!(s.contains("parent_fan_speed_pct (%)"), "{s}");
}

#[test]
fn a_setpoint_is_dashed_in_its_signals_colour_and_a_gap_breaks_a_line() {
    let s = svg(&chart(vec![]), 1000.0, 400.0);
    let l = lines(&s);
    // supply air, valve (two runs: the gap), setpoint, mixed air
    assert_eq!(l.len(), 5, "{l:?}");
    let sat = &l[0];
    let sp = l.iter().find(|(_, dashed, _)| *dashed).expect("a dashed line");
    assert_eq!(sp.0, sat.0, "the setpoint takes its signal's colour");
    assert_eq!(l.iter().filter(|(_, d, _)| *d).count(), 1, "only the setpoint is dashed");
    let mixed = l.last().unwrap();
    assert_ne!(mixed.0, sat.0, "another signal has its own colour");
    // no flagged spans: no shading and no legend entry
    assert!(!s.contains("#f4a582") && !s.contains("flagged by the rule"));
}

#[test]
fn an_empty_chart_says_so_and_spans_outside_are_dropped() {
    let s = svg(&Chart { title: "x".into(), ..Default::default() }, 400.0, 200.0);
    assert!(s.contains("no trend in the window"), "{s}");
    let s = svg(&chart(vec![(100 * H, 120 * H)]), 400.0, 200.0);
    assert_eq!(s.matches("fill=\"#f4a582\"").count(), 1, "only the legend's swatch: {s}");
}

#[test]
fn a_long_trend_is_thinned_to_the_width_and_keeps_its_spikes() {
    let n = 525_600;
    let mut values: Vec<f64> = (0..n).map(|i| 70.0 + (i % 100) as f64 / 50.0).collect();
    values[300_000] = 140.0; // one minute out of a year
    let c = Chart {
        title: "year".into(),
        series: vec![Series {
            role: "supply_air_temp".into(),
            ts: (0..n as i64).map(|i| i * 60_000_000_000).collect(),
            values,
        }],
        spans: vec![],
    };
    let s = svg(&c, 1000.0, 400.0);
    // more samples than pixels: one filled band, a column's low and high each, no line
    assert!(lines(&s).is_empty());
    assert_eq!(s.matches("<polygon").count(), 1, "{}", &s[..2000]);
    let points: Vec<(f64, f64)> = s
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert!(points.len() <= 2 * 1000, "{}", points.len());
    assert!(s.len() < 60_000, "{}", s.len());
    // the spike's pixel is drawn: the axis reaches 140 and the band's top there stands out
    assert!(s.contains(&label("140")) || s.contains(&label("150")), "the axis reaches the spike");
    let top = points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let typical = points[points.len() / 4].1;
    assert!(typical - top > 100.0, "the one-minute spike stands out: {top} vs {typical}");
    let spike_x = points.iter().find(|p| p.1 == top).unwrap().0;
    let expected = 56.0 + (1000.0 - 56.0 - 14.0) * 300_000.0 / (n - 1) as f64;
    assert!((spike_x - expected).abs() < 2.0, "at its time: {spike_x} vs {expected}");
    // month ticks for a year
    assert!(s.contains("1970-02-01") && s.contains("1970-12-01"), "{s}");
}

#[test]
fn time_ticks_fit_the_width_and_fall_on_round_times() {
    let (t, with_time) = time_ticks(0, 48 * H, 900.0);
    assert!(with_time && t.len() <= 10 && t.len() >= 4, "{t:?}");
    assert!(t.iter().all(|t| t % (3 * H) == 0));
    let (t, with_time) = time_ticks(H / 2, 21 * 24 * H, 900.0);
    assert!(!with_time && t.iter().all(|t| t % (24 * H) == 0), "{t:?}");
    assert_eq!(tick_label(24 * H, false), "1970-01-02");
    assert_eq!(tick_label(27 * H, true), "01-02 03:00");
}

#[test]
fn nice_ticks_are_round_and_cover_the_range() {
    let (a, b, t) = nice_ticks(53.2, 61.7, 4);
    assert!(a <= 53.2 && b >= 61.7, "{a} {b}");
    assert_eq!(t, vec![52.5, 55.0, 57.5, 60.0, 62.5]);
    assert_eq!(short(62.5), "62.5");
    assert_eq!(short(-0.0), "0");
    assert_eq!(short(1200.0), "1200");
}

#[test]
fn the_png_is_the_charts_size_deterministic_and_drawn() {
    let s = svg(&chart(vec![(5 * H, 8 * H)]), 1000.0, 400.0);
    let a = png(&s).unwrap();
    let b = png(&s).unwrap();
    assert_eq!(a, b, "the same chart gives the same bytes");
    assert_eq!(&a[..8], b"\x89PNG\r\n\x1a\n");
    // the IHDR chunk: width and height
    let w = u32::from_be_bytes(a[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(a[20..24].try_into().unwrap());
    assert_eq!(w, 1000);
    assert!(h >= 400, "{h}");
    // text is drawn with the compiled-in face: a chart with a longer title differs
    let mut c = chart(vec![(5 * H, 8 * H)]);
    c.title.push_str(" and more words");
    assert_ne!(png(&svg(&c, 1000.0, 400.0)).unwrap(), a);
    assert!(png("<svg").is_err());
    // one pass is one strip, however few are asked for
    assert_eq!(png_in(&s, 0).unwrap(), png_in(&s, 1).unwrap());
    // an image of one row is one strip, not an empty one that cannot be drawn
    let thin = png(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="1"><rect width="4" height="1" fill="red"/></svg>"#,
    );
    assert_eq!(u32::from_be_bytes(thin.unwrap()[20..24].try_into().unwrap()), 1);
}

#[test]
fn a_png_drawn_in_strips_is_the_drawing_of_one_pass() {
    let s = svg(&chart(vec![(5 * H, 8 * H), (20 * H, 30 * H)]), 1000.0, 400.0);
    let bytes = png(&s).unwrap();
    let mut decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
    decoder.set_transformations(png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().unwrap();
    let mut indices = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut indices).unwrap();
    let palette = reader.info().palette.clone().unwrap().to_vec();
    // the same SVG drawn in one pass, as tiny-skia draws it
    let opts = resvg::usvg::Options { fontdb: fonts(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(&s, &opts).unwrap();
    let size = tree.size().to_int_size();
    let mut whole = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut whole.as_mut());
    assert_eq!(indices.len(), whole.data().len() / 4, "one index a pixel");
    // a pixel is off when its palette colour is far from the one-pass colour: a strip drawn at
    // the wrong offset would shift half the chart; a seam only re-shades a few edge pixels
    let off = indices
        .iter()
        .zip(whole.data().chunks_exact(4))
        .filter(|(k, p)| {
            let q = &palette[3 * usize::from(**k)..3 * usize::from(**k) + 3];
            (0..3).map(|c| (i32::from(q[c]) - i32::from(p[c])).pow(2)).sum::<i32>() > 3 * 24 * 24
        })
        .count();
    assert!(STRIPS > 1 && off * 1000 < indices.len(), "{off} of {} pixels differ", indices.len());
}
