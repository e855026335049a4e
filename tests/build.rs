//! A plain `cargo test` at the root builds this crate too, but its end-to-end tests drive the
//! guest components and the `camber` binary that only `cargo xtask` builds: without them the
//! build stops at once with one line saying what to run, instead of every test failing.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");
    // OUT_DIR is <target>/<profile>/build/<crate>-<hash>/out
    let target = std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).or_else(|| {
        let out = PathBuf::from(std::env::var_os("OUT_DIR")?);
        out.ancestors().nth(4).map(PathBuf::from)
    });
    let built = target.map(|t| t.join("camber-components")).is_some_and(|d| {
        std::fs::read_dir(d).is_ok_and(|rd| rd.flatten().any(|e| e.file_name().to_string_lossy().starts_with("_cap_")))
    });
    if !built {
        println!("cargo::error=the end-to-end tests need the capability components and the camber binary: run `cargo xtask test` (it builds them, then runs every test)");
    }
}
