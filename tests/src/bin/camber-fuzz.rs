//! The fuzz suite's long run (`cargo xtask fuzz [CASES] [SEED] [stdio|http|both]`): hostile calls and malformed
//! frames through one long-lived `camber mcp` over a store of synthetic buildings, with the
//! defect counts, the time and the server's peak memory. Exits 1 when any count is not 0.

use std::process::{Command, ExitCode};

use camber_tests::fuzz::{run_http, run_stdio, FuzzConfig, FuzzReport};
use camber_tests::{cache_dir, camber_bin};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases: usize = args.first().and_then(|c| c.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let transport = args.get(2).map(String::as_str).unwrap_or("both");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = dir.path().join("store");
    for ds in ["synthetic-chw-plant", "synthetic-ahu-economizer", "synthetic-g36-vav"] {
        let st = Command::new(camber_bin())
            .args(["datasets", "ingest", ds, "--store"])
            .arg(&store)
            .output()
            .expect("camber runs");
        if !st.status.success() {
            eprintln!("camber-fuzz: ingesting {ds} failed: {}", String::from_utf8_lossy(&st.stderr));
            return ExitCode::FAILURE;
        }
    }
    let cache = std::env::var_os("CAMBER_CACHE_DIR").map(std::path::PathBuf::from).unwrap_or_else(cache_dir);
    let cfg = FuzzConfig { bin: camber_bin(), store, cache, cases, seed, progress_every: 10_000 };
    eprintln!(
        "camber-fuzz: {cases} cases per transport, seed {seed}, through one long-lived server each (stdio, HTTP)"
    );
    let mut clean = true;
    if transport != "http" {
        let stdio = run_stdio(&cfg);
        show("stdio", &stdio);
        clean &= stdio.counts.clean();
    }
    if transport != "stdio" {
        let http = run_http(&FuzzConfig { seed: seed + 1, ..cfg });
        show("http", &http);
        clean &= http.counts.clean();
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn show(transport: &str, r: &FuzzReport) {
    println!(
        "fuzz ({transport}): {} in {:.1} s ({:.0} cases/s), server peak {:.0} MiB",
        r.counts.summary(),
        r.seconds,
        r.counts.cases as f64 / r.seconds.max(1e-9),
        r.peak_mib
    );
    for s in &r.samples {
        println!("  sample: {s}");
    }
}
