//! Print a few points of some equipment side by side: `peek ID EQUIP:ROLE... [--from N --len M]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let g = camber_synth::generate(&args[1], None).expect("unknown dataset id");
    let from: usize = std::env::var("FROM").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let len: usize = std::env::var("LEN").ok().and_then(|s| s.parse().ok()).unwrap_or(48);
    let cols: Vec<&camber_synth::PointSeries> = args[2..]
        .iter()
        .map(|a| {
            let (e, r) = a.split_once(':').unwrap();
            g.series_of(e, r).unwrap_or_else(|| panic!("no {a}"))
        })
        .collect();
    for i in from..(from + len).min(cols[0].values.len()) {
        print!("{:5}", i);
        for c in &cols {
            print!(" {:8.2}", c.values[i]);
        }
        println!();
    }
}
