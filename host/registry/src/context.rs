//! Who is calling, what they may read, and the limits of one call: the context every call of
//! the registry runs in.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use camber_common::redact::Redactor;
use camber_store::StoreDir;

/// Limits on one call.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Rows in any top-level list of `data`.
    pub max_rows: usize,
    /// JSON bytes of data, text, facts and banners together, and of any image the host attaches.
    pub max_bytes: usize,
    /// Wall-clock budget of one call.
    pub max_seconds: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_rows: 5000, max_bytes: 2_000_000, max_seconds: 120.0 }
    }
}

/// Who is calling and what they may read.
#[derive(Clone)]
pub struct CallContext {
    /// The store the call reads (`None`: there is no store directory).
    pub store: Option<Arc<StoreDir>>,
    /// Facilities this caller may read; empty means none.
    pub allowed: BTreeSet<String>,
    /// The trust floor (0..=1).
    pub min_trust: f64,
    pub limits: Limits,
    /// A label for logs; never used for policy.
    pub caller: String,
    /// Digest of the loaded run config's content ("" when there is none).
    pub config_digest: String,
    /// The run configs loaded and checked at startup (the calls read these, never the files).
    pub run_configs: Arc<crate::runconfig::RunConfigs>,
    /// Set to stop the running guest at once (an MCP cancel, a dropped client).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the guest's progress reports go, their text already cleaned and redacted
    /// (`None`: nobody is watching the call).
    pub progress: Option<camber_common::progress::ProgressSink>,
    /// Known local roots taken out of every message.
    pub redactor: Arc<Redactor>,
    /// Where `camber portfolio run` writes the portfolio runs the `portfolio` capability
    /// answers from (`None`: the server was not given one).
    pub portfolio: Option<Arc<camber_store::portfolio::Runs>>,
}

impl CallContext {
    /// A context with no store: only capabilities that read no building data can answer.
    pub fn without_store(allowed: impl IntoIterator<Item = String>) -> CallContext {
        CallContext {
            store: None,
            allowed: allowed.into_iter().collect(),
            min_trust: 0.5,
            limits: Limits::default(),
            caller: "local".into(),
            config_digest: String::new(),
            run_configs: Arc::new(crate::runconfig::RunConfigs::default()),
            cancel: None,
            progress: None,
            redactor: Arc::new(Redactor::new(Vec::new())),
            portfolio: None,
        }
    }

    /// A context over the store at `store_root` for these allowed facilities.
    pub fn new(store_root: &Path, allowed: impl IntoIterator<Item = String>) -> CallContext {
        CallContext::with_store(StoreDir::open(store_root), store_root, allowed)
    }

    /// A context over a store already opened (one on object storage, say); `location` is
    /// what the operator named it by, taken out of every message.
    pub fn with_store(
        store: Option<Arc<StoreDir>>,
        location: &Path,
        allowed: impl IntoIterator<Item = String>,
    ) -> CallContext {
        CallContext {
            store,
            redactor: Arc::new(Redactor::new([location.to_path_buf()])),
            ..CallContext::without_store(allowed)
        }
    }
}
