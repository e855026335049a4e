//! What the camber host and every capability guest share: the error codes, the shape of a
//! result, the text rules of the policy (one-line sanitizing, `name()`), paging and
//! canonical JSON. It builds natively and for `wasm32-wasip2`, so each rule exists once.

#![deny(unsafe_code)]

pub mod canonical;
pub mod citations;
pub mod error;
#[cfg(feature = "os")]
pub mod ids;
pub mod page;
pub mod progress;
pub mod redact;
pub mod result;
pub mod roles;
pub mod text;
pub mod time;

pub use error::{CapError, ErrorCode};
pub use page::{page, PageNotice};
pub use result::{CapabilityResult, ContentBlock, Image, Output, RenderedPrompt, ResourceInfo};

/// Where `camber serve` replicas keep their MCP tasks inside a store on object storage: the
/// serving side writes there, and the store counts it as its own but never as data.
pub const TASKS_DIR: &str = "_camber_tasks";
