//! Print per-point summaries of a dataset: `cargo run --release --example dump -- ID [SEED]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let id = args.get(1).map(String::as_str).unwrap_or("synthetic-ahu-economizer");
    let seed = args.get(2).and_then(|s| s.parse().ok());
    let t0 = std::time::Instant::now();
    let g = camber_synth::generate(id, seed).expect("unknown dataset id");
    let dt = t0.elapsed();
    for s in &g.series {
        let v: Vec<f64> = s.values.iter().copied().filter(|x| !x.is_nan()).collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let min = v.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        println!(
            "{:32} {:26} n={:5} nan={:2} min={:9.2} mean={:9.2} max={:9.2}",
            s.equip,
            s.role,
            s.values.len(),
            s.values.len() - v.len(),
            min,
            mean,
            max
        );
    }
    println!(
        "{} equipment, {} points, {} rows, generated in {:?}",
        g.equipment.len(),
        g.series.len(),
        g.row_count(),
        dt
    );
}
