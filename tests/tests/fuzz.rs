//! The fuzz suite's bounded run: a few thousand hostile calls and malformed frames through
//! one long-lived `camber mcp`; every defect count must be 0 (the long run is `cargo xtask
//! fuzz`).

use std::process::Command;

use camber_tests::fuzz::{run_http, run_stdio, FuzzConfig, FuzzReport};
use camber_tests::{cache_dir, camber_bin};

#[test]
fn a_bounded_fuzz_run_finds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    for ds in ["synthetic-chw-plant", "synthetic-ahu-economizer"] {
        let st = Command::new(camber_bin()).args(["datasets", "ingest", ds, "--store"]).arg(&store).output().unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    }
    let cases = std::env::var("CAMBER_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2000);
    let cfg = FuzzConfig { bin: camber_bin(), store, cache: cache_dir(), cases, seed: 11, progress_every: 0 };
    let stdio = run_stdio(&cfg);
    show("stdio", &stdio);
    // fewer over HTTP: a connection per frame
    let http = run_http(&FuzzConfig { cases: cases / 2, seed: 12, ..cfg });
    show("http", &http);
    assert!(stdio.counts.clean(), "stdio: {}", stdio.counts.summary());
    assert!(http.counts.clean(), "http: {}", http.counts.summary());
    assert_eq!(stdio.counts.cases, cases);
}

fn show(transport: &str, r: &FuzzReport) {
    eprintln!("fuzz ({transport}): {} in {:.1} s, server peak {:.0} MiB", r.counts.summary(), r.seconds, r.peak_mib);
    for sample in &r.samples {
        eprintln!("fuzz ({transport}): sample: {}", sample.chars().take(300).collect::<String>());
    }
}
