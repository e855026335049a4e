//! The run component starts with 128 MiB of linear memory (the linker's `--initial-memory`),
//! about what a facility-year of 1-minute trends needs. A memory that grows during a call is
//! shrunk back to its initial size when the pool slot is next instantiated, and wasmtime does
//! both by changing the protection of every page the slot keeps resident: some 9 ms of page-table
//! work per facility-year call (docs/PERFORMANCE.md, session 30). Memory that starts at this size
//! is neither grown nor shrunk; pages a call does not touch cost nothing. The C library's
//! allocator hands out the initial memory past the data before it grows any.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg=--initial-memory={}", 128u64 << 20);
    }
}
