//! `fmin` and `fmax` for WebAssembly guests.
//!
//! Rust's `f64::min`/`max` return the other operand when one is NaN, which WebAssembly's own
//! `f64.min`/`f64.max` do not, so for `wasm32` the compiler emits a call to the C library's
//! `fmin`/`fmax`. The C library's versions branch on NaN and on the sign of zero; under fuel
//! metering every branch is charged, and the analytics call them on every sample (a year at
//! one minute spent about a tenth of its guest time in them). These definitions give the same
//! answer with two compares and selects, and the linker takes them before the library's.

/// The smaller of `x` and `y`; the other one when either is NaN (C's `fmin`).
#[no_mangle]
pub extern "C" fn fmin(x: f64, y: f64) -> f64 {
    let m = if x < y { x } else { y };
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        m
    }
}

/// The larger of `x` and `y`; the other one when either is NaN (C's `fmax`).
#[no_mangle]
pub extern "C" fn fmax(x: f64, y: f64) -> f64 {
    let m = if x > y { x } else { y };
    if x.is_nan() {
        y
    } else if y.is_nan() {
        x
    } else {
        m
    }
}
