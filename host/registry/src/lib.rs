//! The registry: the loaded capabilities and the one policy pipeline every call passes
//! through (`Registry::call`), with what the pipeline reads: the licence wall, the run
//! configs, and the access state a guest's store reads are checked against.

#![deny(unsafe_code)]

pub mod access;
pub mod capability;
pub mod charts;
pub mod content;
pub mod context;
pub mod driftfit;
pub mod licence;
pub mod live;
pub mod memo;
pub mod pipeline;
pub mod policy;
pub mod registry;
pub mod resources;
pub mod runconfig;
pub mod trust;

pub use registry::{component_files, CallContext, CapabilityEntry, Limits, Registry};
