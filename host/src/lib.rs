//! The camber host: the sandboxed capability runtime, the registry with its one policy
//! pipeline, the store, and the command line.

pub mod catalog;
pub mod cli;
pub mod datasets;
pub mod fixture;
pub mod hostfns;
pub mod ingest;
pub mod licence;
pub mod policy;
pub mod registry;
pub mod runconfig;
pub mod runtime;
pub mod serve;
pub mod store;

pub use registry::{CallContext, Caps, Registry};
