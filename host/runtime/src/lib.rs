//! The sandbox: one wasmtime `Engine` (fuel, asynchronous stores, pooling allocator), the
//! compiled-component cache, and the execution of one guest call in a fresh `Store` with a
//! bare WASI context, a memory cap, a fuel budget and a wall-clock deadline.
//!
//! One instrument meters a guest: fuel. It caps the call's work, and every
//! [`YIELD_FUEL`] units of it the guest hands control back to the host, which stops the call
//! there when its deadline has passed or its caller cancelled it (see [`Stoppable`]). Epoch
//! interruption would check the same deadline at every loop header besides the fuel check; a
//! year of 1-minute rules paid about 6 % for it (docs/ARCHITECTURE.md, "The sandbox's meters").

use std::collections::BTreeSet;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, ResourceLimiter, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use camber_common::canonical::sha256_hex;
use camber_common::progress::{Progress, ProgressSink};

pub mod bindings;
pub mod hostfns;
pub mod profile;
mod witness;

pub use hostfns::{GridFrame, HostAccess, NoAccess, SharedFrame};
pub use witness::Varied;

/// Host bindings of the WIT world every component implements.
pub use bindings::camber::capability::types as wit;

/// The version of the WIT package (`wit/capability.wit`) this host implements.
pub const WIT_VERSION: &str = "0.2.3";

/// Whether a component built against `version` of the contract loads here: the same
/// version, or an older one of the same `0.2` line (each of its changes was additive, and the
/// linker matches `0.2.0` to `0.2.2` imports to `0.2.3` definitions).
pub fn loads_wit(version: &str) -> bool {
    let parse = |v: &str| -> Option<(u32, u32, u32)> {
        let mut it = v.split('.').map(|n| n.parse::<u32>().ok());
        let t = (it.next()??, it.next()??, it.next()??);
        it.next().is_none().then_some(t)
    };
    match (parse(version), parse(WIT_VERSION)) {
        (Some((0, mi, pa)), Some((0, hmi, hpa))) => mi == hmi && pa <= hpa,
        (Some((ma, mi, _)), Some((hma, hmi, _))) => ma == hma && ma > 0 && mi <= hmi,
        _ => false,
    }
}
pub use bindings::{Capability as WitCapability, CapabilityPre};

/// Limits that hold for every guest call.
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Linear memory a guest may grow to, in bytes.
    pub max_memory_bytes: usize,
    /// Fuel per call: a deterministic cap on the work one call may do.
    pub fuel: u64,
    /// Guests that may run at once (pool slots).
    pub max_concurrent: u32,
    /// Where compiled components are cached (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Bytes of a pool slot's linear memory cleared in place, not returned to the kernel,
    /// when a call ends: a large call (a facility-year at 1 minute) otherwise takes a fresh
    /// page fault on every page it touches, call after call. Resident memory grows by at most
    /// this much per slot that ran a large call.
    pub keep_resident_bytes: usize,
    /// Compile with Winch, wasmtime's baseline compiler, instead of Cranelift: ten times
    /// faster to compile, slower to run. The first tier of a component dropped into a running
    /// server (see `camber_registry::live`); never cached.
    pub quick: bool,
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            max_memory_bytes: 1 << 30,
            fuel: 2_000_000_000_000,
            max_concurrent: 16,
            cache_dir: default_cache_dir(),
            keep_resident_bytes: 128 << 20,
            quick: false,
        }
    }
}

/// `$CAMBER_CACHE_DIR`, else `$XDG_CACHE_HOME/camber/components`, else
/// `~/.cache/camber/components`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CAMBER_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("camber").join("components"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("camber").join("components"))
}

/// What one component may use per call: its memory cap and fuel (each at most the engine's
/// own, [`RuntimeConfig`]). The registry's trust policy gives each component its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub max_memory_bytes: usize,
    pub fuel: u64,
}

impl RuntimeConfig {
    /// The most any component may be given: the engine's own limits.
    pub fn budget(&self) -> Budget {
        Budget { max_memory_bytes: self.max_memory_bytes, fuel: self.fuel }
    }
}

/// Why a guest stopped before returning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Deadline,
    Cancelled,
}

/// Marks an error raised while instantiating (not while running).
#[derive(Debug)]
struct NoSlot;

impl std::fmt::Display for NoSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the instance could not be created")
    }
}

impl std::error::Error for NoSlot {}

/// Memory cap that remembers whether it refused a growth (a Rust guest then traps with
/// `unreachable`, which alone cannot be told from a panic).
pub struct Limiter {
    max_memory: usize,
    pub hit: bool,
    /// The initial memory the component declares, when that alone was refused: its grant is
    /// smaller than what it starts with, which no narrower query can help.
    pub refused_at_start: Option<usize>,
}

impl ResourceLimiter for Limiter {
    fn memory_growing(&mut self, current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.hit = true;
            if current == 0 {
                self.refused_at_start = Some(desired);
            }
            return Ok(false);
        }
        Ok(true)
    }
    fn table_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

impl CallState {
    /// Pass one guest report on, cleaned (see [`Progress::clean`]); nothing when nobody
    /// watches the call.
    pub(crate) fn report(&self, done: u32, total: u32, message: &str) {
        if let (Some(sink), Some(p)) = (&self.progress, Progress::clean(done, total, message)) {
            sink(&p);
        }
    }
}

/// The state of one call's `Store`.
pub struct CallState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub limiter: Limiter,
    /// What the guest may read, and what it did read (the registry's access state).
    pub access: Box<dyn HostAccess>,
    deadline: Instant,
    cancel: Option<Arc<AtomicBool>>,
    /// Where the guest's progress reports go (`None`: nobody is watching).
    progress: Option<ProgressSink>,
    pub stopped: Option<Stop>,
    /// The content blocks the guest attached to its answer, in order (see [`Attached`]).
    attached: Attached,
}

/// The content blocks a guest attached to a call's answer or a prompt (WIT `content`), as it
/// sent them: the registry checks them. Past [`Attached::MAX`] blocks or [`Attached::MAX_BYTES`]
/// of them, the rest are dropped and counted, which the registry refuses.
#[derive(Default)]
pub struct Attached {
    pub blocks: Vec<bindings::camber::capability::content::Block>,
    pub dropped: usize,
    bytes: usize,
}

impl Attached {
    /// The most blocks one answer may carry.
    pub const MAX: usize = 32;
    /// The most bytes of them the host holds for one answer (the caller's byte cap is
    /// usually far less, and the registry applies it).
    pub const MAX_BYTES: usize = 64 << 20;

    fn push(&mut self, block: bindings::camber::capability::content::Block) {
        use bindings::camber::capability::content::Block;
        let size = match &block {
            Block::Image(m) | Block::Audio(m) => m.data.len() + m.alt.len() + m.mime_type.len(),
            Block::EmbeddedResource(e) => {
                e.uri.len()
                    + e.mime_type.len()
                    + e.text.as_ref().map_or(0, String::len)
                    + e.blob.as_ref().map_or(0, Vec::len)
            }
        };
        if self.blocks.len() >= Attached::MAX || self.bytes + size > Attached::MAX_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += size;
        self.blocks.push(block);
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// A resource read: what [`Runtime::read_resource`] needs besides the component and access.
pub struct ResourceCall<'a> {
    pub uri: &'a str,
    pub ctx: &'a wit::CallContext,
    pub max_seconds: f64,
    pub cancel: Option<Arc<AtomicBool>>,
    pub budget: Budget,
}

/// A resource's contents as a component returns them (WIT `content.embedded`).
pub use bindings::camber::capability::content::Embedded;

/// What a component's `read-resource` answered: its contents, none for a URI it does not
/// serve, or its refusal.
pub type ResourceRead = Result<Option<Vec<Embedded>>, wit::CapError>;

/// How a guest call ended, before the registry's policy looks at it.
pub enum GuestOutcome {
    Returned(Result<wit::CallResult, wit::CapError>),
    /// The instance pool is full: every slot is running a call.
    NoSlot,
    Stopped(Stop),
    OutOfFuel,
    OutOfMemory,
    /// The component's initial memory (bytes) is more than its memory limit: it cannot start.
    MemoryAtStart(usize),
    /// A trap (a panic, `unreachable`, a bad lowering): the trap text and what the guest wrote
    /// to stderr.
    Trapped {
        trap: String,
        stderr: String,
    },
}

/// The engine; shared by every component.
pub struct Runtime {
    pub engine: Engine,
    pub config: RuntimeConfig,
    linker: Linker<CallState>,
    active: Arc<AtomicUsize>,
    retired: Retired,
}

/// Stores whose calls have answered, dropped on a thread of their own. Dropping a store resets
/// its pool slot: every page the guest wrote is cleared in place (up to `keep_resident_bytes`),
/// some milliseconds after a call over a facility-year that its caller need not wait for.
#[derive(Default)]
struct Retired {
    /// To the thread that drops them (started with the first), holding at most two: past that,
    /// a store is dropped where its call ended.
    to_drop: Mutex<Option<SyncSender<Store<CallState>>>>,
    /// Stores handed over and not yet dropped (their slots are not free yet), and the signal
    /// that one was.
    pending: Arc<(Mutex<usize>, Condvar)>,
}

/// Fuel a guest burns between two of its yields to the host, where the host checks the call's
/// deadline and cancel flag: about half a millisecond of guest work on this project's machine
/// (a unit of fuel is about one WebAssembly instruction), so a spinning guest stops about
/// 0.3 ms after its deadline (1-2 ms under the 2 ms epoch ticks this replaced).
pub const YIELD_FUEL: u64 = 4_000_000;

impl Runtime {
    /// Build the engine. Fails only when the pooling allocator cannot reserve its memory.
    pub fn new(config: RuntimeConfig) -> Result<Runtime, String> {
        let mut cfg = Config::new();
        cfg.consume_fuel(true);
        cfg.wasm_component_model(true);
        if config.quick {
            cfg.strategy(wasmtime::Strategy::Winch);
        }
        if std::env::var_os("CAMBER_PERFMAP").is_some() {
            cfg.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let mut pool = PoolingAllocationConfig::default();
        let n = config.max_concurrent.max(1);
        pool.total_component_instances(n);
        pool.total_core_instances(n * 8);
        pool.total_memories(n * 4);
        pool.total_tables(n * 8);
        pool.total_stacks(n);
        pool.max_memory_size(config.max_memory_bytes);
        pool.linear_memory_keep_resident(config.keep_resident_bytes);
        pool.table_keep_resident(config.keep_resident_bytes.min(1 << 20));
        // where the kernel can say which pages a call wrote (Linux 6.7's PAGEMAP_SCAN), only
        // those are cleared when the call ends, not the whole resident part of the slot: a
        // call that wrote a few hundred KiB no longer pays for clearing megabytes
        pool.pagemap_scan(wasmtime::Enabled::Auto);
        cfg.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        let engine = Engine::new(&cfg).map_err(|e| format!("cannot start the wasm engine: {e}"))?;
        let mut linker: Linker<CallState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(|e| format!("cannot link WASI: {e}"))?;
        WitCapability::add_to_linker::<CallState, HasSelf<CallState>>(&mut linker, |s| s)
            .map_err(|e| format!("cannot link the store interface: {e}"))?;
        // `read-grid` again, in place of the generated one: the grid's columns go into the
        // guest's memory straight from the host's kept grid
        linker.allow_shadowing(true);
        linker
            .instance(&format!("camber:capability/store@{WIT_VERSION}"))
            .and_then(|mut store| {
                store.func_wrap(
                    "read-grid",
                    |mut cx: wasmtime::StoreContextMut<'_, CallState>, args: hostfns::ReadGridArgs| {
                        Ok((hostfns::read_grid_shared(cx.data_mut(), args),))
                    },
                )
            })
            .map_err(|e| format!("cannot link the store interface's read-grid: {e}"))?;
        linker.allow_shadowing(false);
        Ok(Runtime { engine, config, linker, active: Arc::new(AtomicUsize::new(0)), retired: Retired::default() })
    }

    /// Drop `store` off the caller's path (see [`Retired`]); where its thread cannot be started
    /// or already holds two, here.
    fn retire(&self, store: Store<CallState>) {
        let mut to_drop = self.retired.to_drop.lock().unwrap_or_else(|p| p.into_inner());
        if to_drop.is_none() {
            let (tx, rx) = sync_channel::<Store<CallState>>(2);
            let pending = self.retired.pending.clone();
            let started = std::thread::Builder::new().name("camber-retire".into()).spawn(move || {
                for store in rx {
                    drop(store);
                    let (count, freed) = &*pending;
                    *count.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
                    freed.notify_all();
                }
            });
            if started.is_ok() {
                *to_drop = Some(tx);
            }
        }
        let Some(tx) = to_drop.as_ref() else { return drop(store) };
        let (count, _) = &*self.retired.pending;
        *count.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        if let Err(TrySendError::Full(store) | TrySendError::Disconnected(store)) = tx.try_send(store) {
            *count.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
            drop(store);
        }
    }

    /// Wait while the slots of stores not yet dropped may be all that is left of the pool.
    fn wait_for_retired(&self) {
        let (count, freed) = &*self.retired.pending;
        let slots = self.config.max_concurrent.max(1) as usize;
        let mut pending = count.lock().unwrap_or_else(|p| p.into_inner());
        while *pending > 0 && self.active.load(Ordering::Acquire) + *pending >= slots {
            pending = freed.wait(pending).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// A component from a `.wasm` file, compiled once and cached as `.cwasm` keyed by the
    /// wasm's SHA-256, the wasmtime version and the engine's configuration.
    pub fn load_component(&self, wasm: &Path) -> Result<Component, String> {
        let file = file_label(wasm);
        let bytes = std::fs::read(wasm).map_err(|e| format!("{file}: cannot read: {}", e.kind()))?;
        self.component_from_bytes(&file, &bytes)
    }

    /// [`Runtime::load_component`] on bytes already read (`file` names them in messages).
    pub fn component_from_bytes(&self, file: &str, bytes: &[u8]) -> Result<Component, String> {
        let key = self.cache_key(bytes);
        if let Some(dir) = &self.config.cache_dir {
            let cached = dir.join(format!("{key}.cwasm"));
            if cached.is_file() {
                // SAFETY: the file is one this host wrote (named by the key of the wasm bytes,
                // the wasmtime version and engine config); a damaged one fails to deserialize
                // and is compiled again.
                if let Ok(c) = unsafe { Component::deserialize_file(&self.engine, &cached) } {
                    return Ok(c);
                }
            }
        }
        let component = Component::new(&self.engine, bytes)
            .map_err(|e| format!("{file}: not a valid component: {}", first_line(&e.to_string())))?;
        if let Some(dir) = &self.config.cache_dir {
            if let Ok(serialized) = component.serialize() {
                let _ = write_atomic(dir, &format!("{key}.cwasm"), &serialized);
            }
        }
        Ok(component)
    }

    /// Whether the compiled form of the wasm with this SHA-256 is in the cache (loading it is
    /// then a read, not a compile).
    pub fn is_cached(&self, sha256: &str) -> bool {
        self.config.cache_dir.as_ref().is_some_and(|d| d.join(format!("{}.cwasm", self.cache_key_of(sha256))).is_file())
    }

    fn cache_key(&self, wasm: &[u8]) -> String {
        self.cache_key_of(&sha256_hex(wasm))
    }

    /// The cache key of a wasm file by its SHA-256 (hex).
    fn cache_key_of(&self, sha256: &str) -> String {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.engine.precompile_compatibility_hash().hash(&mut h);
        self.config.max_memory_bytes.hash(&mut h);
        let engine_hash = h.finish();
        let mut material = sha256.as_bytes().to_vec();
        material.extend_from_slice(format!("|wasmtime-48.0.8|{engine_hash:016x}").as_bytes());
        sha256_hex(&material)[..32].to_string()
    }

    /// Pre-instantiate a component against the world; fails when it does not implement it,
    /// and first, in one line naming both versions, when it was built against another version
    /// of the contract.
    pub fn pre_instantiate(&self, component: &Component, file: &str) -> Result<CapabilityPre<CallState>, String> {
        let ty = component.component_type();
        let versions: std::collections::BTreeSet<String> = ty
            .imports(&self.engine)
            .filter_map(|(name, _)| {
                name.strip_prefix("camber:capability/").and_then(|n| n.split_once('@')).map(|(_, v)| v.to_string())
            })
            .collect();
        if let Some(other) = versions.iter().find(|v| !loads_wit(v)) {
            return Err(format!(
                "{file}: built against camber:capability@{other}, but this host loads camber:capability@{WIT_VERSION}: rebuild it with the current camber-sdk"
            ));
        }
        let pre = self
            .linker
            .instantiate_pre(component)
            .map_err(|e| format!("{file}: does not fit the camber:capability world: {}", first_line(&e.to_string())))?;
        CapabilityPre::new(pre).map_err(|e| {
            format!("{file}: does not implement the camber:capability world: {}", first_line(&e.to_string()))
        })
    }

    /// The `camber:capability` interfaces a component imports (`store`, `run-config`,
    /// `catalog`, `progress`), without their versions: what the trust policy grants or not.
    /// `types` holds only type definitions and is not among them.
    pub fn contract_imports(&self, component: &Component) -> BTreeSet<String> {
        component
            .component_type()
            .imports(&self.engine)
            .filter_map(|(name, _)| {
                name.strip_prefix("camber:capability/").map(|n| n.split('@').next().unwrap_or(n).to_string())
            })
            .filter(|n| n != "types")
            .collect()
    }

    /// A fresh store for one call.
    fn new_store(
        &self,
        budget: Budget,
        access: Box<dyn HostAccess>,
        max_seconds: f64,
        watch: Watch,
        stderr: MemoryOutputPipe,
    ) -> Store<CallState> {
        let Watch { cancel, progress, varied } = watch;
        let wasi = WasiCtxBuilder::new()
            .stderr(stderr)
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .wall_clock(witness::NotedWall(varied.clone()))
            .monotonic_clock(witness::NotedMonotonic {
                varied: varied.clone(),
                clock: wasmtime_wasi::clocks::MonotonicClock::new(),
            })
            .secure_random(witness::NotedRng::new(varied.clone()))
            .insecure_random(witness::NotedRng::new(varied))
            .build();
        let deadline = Instant::now() + Duration::from_secs_f64(max_seconds.clamp(0.0, 86_400.0));
        let state = CallState {
            wasi,
            table: ResourceTable::new(),
            limiter: Limiter {
                max_memory: budget.max_memory_bytes.min(self.config.max_memory_bytes),
                hit: false,
                refused_at_start: None,
            },
            access,
            deadline,
            cancel,
            progress,
            stopped: None,
            attached: Attached::default(),
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        let _ = store.set_fuel(budget.fuel.min(self.config.fuel));
        // fails only without fuel or with an interval of 0, neither of which is the case
        let _ = store.fuel_async_yield_interval(Some(YIELD_FUEL));
        store
    }

    /// Run `f` in a fresh store with the call's limits, to its end or until the call's deadline
    /// passes or its caller cancels it (checked each time the guest yields, see [`Stoppable`]).
    /// `f` instantiates (an error it marks [`NoSlot`] is the pool's) and calls. Blocks the
    /// thread for the whole call: keep it off tokio's worker threads.
    fn in_fresh_store<R>(
        &self,
        budget: Budget,
        access: Box<dyn HostAccess>,
        max_seconds: f64,
        watch: Watch,
        f: impl AsyncFnOnce(&mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> (Result<R, wasmtime::Error>, Store<CallState>, MemoryOutputPipe) {
        let stderr = MemoryOutputPipe::new(8 * 1024);
        self.wait_for_retired();
        let mut store = profile::step("sandbox: a fresh store", || {
            self.new_store(budget, access, max_seconds, watch, stderr.clone())
        });
        self.active.fetch_add(1, Ordering::AcqRel);
        let (deadline, cancel) = (store.data().deadline, store.data().cancel.clone());
        let mut stopped = None;
        let call = Stoppable { call: Box::pin(f(&mut store)), deadline, cancel, stopped: &mut stopped };
        // the guest's WASI calls are asynchronous, and those that wait (a clock's pollable) need
        // a tokio runtime to wait on: the caller's, or wasmtime-wasi's own
        let result = wasmtime_wasi::runtime::with_ambient_tokio_runtime(|| block_on(call, deadline));
        if stopped.is_some() {
            store.data_mut().stopped = stopped;
        }
        self.active.fetch_sub(1, Ordering::AcqRel);
        (result, store, stderr)
    }

    /// Run `f` against a fresh instance through the world's bindings.
    fn with_instance<R>(
        &self,
        pre: &CapabilityPre<CallState>,
        budget: Budget,
        access: Box<dyn HostAccess>,
        max_seconds: f64,
        watch: Watch,
        f: impl AsyncFnOnce(&WitCapability, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> (Result<R, wasmtime::Error>, Store<CallState>, MemoryOutputPipe) {
        self.in_fresh_store(budget, access, max_seconds, watch, async |store| {
            match profile::step_async("sandbox: instantiate", pre.instantiate_async(&mut *store)).await {
                Ok(inst) => profile::step_async("guest (its store reads included)", f(&inst, store)).await,
                Err(e) => Err(e.context(NoSlot)),
            }
        })
    }

    /// Run `f` against a fresh instance of the component itself, for its optional exports (world
    /// `capability-with-resources`), which the world's bindings do not know.
    fn with_raw_instance<R>(
        &self,
        pre: &CapabilityPre<CallState>,
        budget: Budget,
        access: Box<dyn HostAccess>,
        max_seconds: f64,
        watch: Watch,
        f: impl AsyncFnOnce(&wasmtime::component::Instance, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> (Result<R, wasmtime::Error>, Store<CallState>, MemoryOutputPipe) {
        self.in_fresh_store(budget, access, max_seconds, watch, async |store| {
            match pre.instance_pre().instantiate_async(&mut *store).await {
                Ok(instance) => f(&instance, store).await,
                Err(e) => Err(e.context(NoSlot)),
            }
        })
    }

    /// The resources a component serves (its `list-resources` export); none when it has no
    /// such export.
    pub fn list_resources(&self, pre: &CapabilityPre<CallState>) -> Result<Vec<wit::ResourceInfo>, String> {
        let budget = self.config.budget();
        let (r, _store, stderr) =
            self.with_raw_instance(pre, budget, Box::new(NoAccess), 30.0, Watch::default(), async |instance, store| {
                let Some(f) = instance.get_func(&mut *store, "list-resources") else { return Ok(Vec::new()) };
                let f = f.typed::<(), (Vec<wit::ResourceInfo>,)>(&*store)?;
                Ok(f.call_async(&mut *store, ()).await?.0)
            });
        r.map_err(|e| trap_text(&e, &stderr))
    }

    /// Read one of a component's resources (its `read-resource` export) with the call's access
    /// state: its contents, `None` when it serves no such URI; `Err` with one line when the
    /// component has no such export, trapped, or was stopped. The access state and what the
    /// guest attached come back too.
    pub fn read_resource<A: HostAccess + 'static>(
        &self,
        pre: &CapabilityPre<CallState>,
        call: ResourceCall<'_>,
        access: A,
    ) -> (Result<ResourceRead, String>, A) {
        let ResourceCall { uri, ctx, max_seconds, cancel, budget } = call;
        let watch = Watch { cancel, ..Watch::default() };
        let (r, store, stderr) =
            self.with_raw_instance(pre, budget, Box::new(access), max_seconds, watch, async |instance, store| {
                let Some(f) = instance.get_func(&mut *store, "read-resource") else {
                    return Err(wasmtime::Error::msg("the component serves no resources"));
                };
                let f = f.typed::<(&str, &wit::CallContext), (ResourceRead,)>(&*store)?;
                Ok(f.call_async(&mut *store, (uri, ctx)).await?.0)
            });
        let state = store.into_data();
        let r = r.map_err(|e| match state.stopped {
            Some(Stop::Cancelled) => "was cancelled".to_string(),
            Some(Stop::Deadline) => "ran past its deadline".to_string(),
            None if matches!(e.downcast_ref::<Trap>(), Some(Trap::OutOfFuel)) => "ran out of fuel".to_string(),
            None if state.limiter.refused_at_start.is_some() && e.downcast_ref::<NoSlot>().is_some() => {
                "starts with more memory than its limit".to_string()
            }
            None if state.limiter.hit => "needed more than its memory limit".to_string(),
            None if e.downcast_ref::<NoSlot>().is_some() => "found no free instance slot; try again".to_string(),
            None => trap_text(&e, &stderr),
        });
        let access = match state.access.into_any().downcast::<A>() {
            Ok(a) => *a,
            Err(_) => unreachable!("the call's access state changed type"),
        };
        (r, access)
    }

    /// `describe()` and `prompts()` of a component, for loading.
    pub fn describe(&self, pre: &CapabilityPre<CallState>) -> Result<(Vec<wit::Descriptor>, Vec<wit::Prompt>), String> {
        let budget = self.config.budget();
        let (r, _store, stderr) =
            self.with_instance(pre, budget, Box::new(NoAccess), 30.0, Watch::default(), async |inst, store| {
                let d = inst.call_describe(&mut *store).await?;
                let p = inst.call_prompts(&mut *store).await?;
                Ok((d, p))
            });
        r.map_err(|e| trap_text(&e, &stderr))
    }

    /// Render a prompt.
    pub fn get_prompt(
        &self,
        pre: &CapabilityPre<CallState>,
        budget: Budget,
        name: &str,
        args: &[(String, String)],
    ) -> (Result<Result<String, wit::CapError>, String>, Attached) {
        let (r, store, stderr) =
            self.with_instance(pre, budget, Box::new(NoAccess), 10.0, Watch::default(), async |inst, store| {
                inst.call_get_prompt(&mut *store, name, args).await
            });
        (r.map_err(|e| trap_text(&e, &stderr)), store.into_data().attached)
    }

    /// Run one capability call with the call's access state; returns the outcome, the access
    /// state back (what the guest read, the first failed read) and what the guest attached.
    pub fn call<A: HostAccess + 'static>(
        &self,
        pre: &CapabilityPre<CallState>,
        call: GuestCall<'_>,
        access: A,
    ) -> (GuestOutcome, A, Attached) {
        let GuestCall { name, arguments, ctx, max_seconds, cancel, progress, budget, varied } = call;
        let watch = Watch { cancel, progress, varied: varied.unwrap_or_default() };
        let (r, mut store, stderr) =
            self.with_instance(pre, budget, Box::new(access), max_seconds, watch, async |inst, store| {
                inst.call_call(&mut *store, name, arguments, ctx).await
            });
        // what the answer needs is taken out, and the store dropped off the caller's path
        let state = store.data_mut();
        let attached = std::mem::take(&mut state.attached);
        let (stopped, limit_hit, at_start) = (state.stopped.take(), state.limiter.hit, state.limiter.refused_at_start);
        let access = std::mem::replace(&mut state.access, Box::new(NoAccess));
        self.retire(store);
        let outcome = match r {
            // the component's own initial memory was refused when it was instantiated: it never
            // ran (a memory that starts empty and grows past the cap is `OutOfMemory` below)
            Err(e)
                if let Some(initial) = at_start
                    && e.downcast_ref::<NoSlot>().is_some() =>
            {
                GuestOutcome::MemoryAtStart(initial)
            }
            // a guest whose language catches running out of memory (JavaScript's engine does)
            // answers with an error of its own; the cap refused a growth, so that is the answer
            Ok(Err(_)) if limit_hit => GuestOutcome::OutOfMemory,
            Ok(ret) => GuestOutcome::Returned(ret),
            // an instance that could not be created: the pool's slots are all taken
            Err(e) if e.downcast_ref::<NoSlot>().is_some() && stopped.is_none() && !limit_hit => GuestOutcome::NoSlot,
            Err(e) => {
                if let Some(stop) = stopped {
                    GuestOutcome::Stopped(stop)
                } else if matches!(e.downcast_ref::<Trap>(), Some(Trap::OutOfFuel)) {
                    GuestOutcome::OutOfFuel
                } else if limit_hit {
                    GuestOutcome::OutOfMemory
                } else {
                    GuestOutcome::Trapped { trap: first_line(&e.to_string()), stderr: stderr_text(&stderr) }
                }
            }
        };
        // the access state went in as an `A`, so it comes back as one
        let access = match access.into_any().downcast::<A>() {
            Ok(a) => *a,
            Err(_) => unreachable!("the call's access state changed type"),
        };
        (outcome, access, attached)
    }
}

/// One guest call: which capability, its arguments (JSON text) and context, its wall-clock
/// budget and the flag that cancels it.
pub struct GuestCall<'a> {
    pub name: &'a str,
    pub arguments: &'a str,
    pub ctx: &'a wit::CallContext,
    pub max_seconds: f64,
    pub cancel: Option<Arc<AtomicBool>>,
    /// Where the guest's progress reports go.
    pub progress: Option<ProgressSink>,
    /// The component's memory cap and fuel.
    pub budget: Budget,
    /// Set when the guest reads a clock or a random number (what it returns may then differ
    /// from one call to the next).
    pub varied: Option<Varied>,
}

/// What the host watches while a guest runs: the caller's cancel flag, where its progress
/// reports go, and whether it read a clock or a random number.
#[derive(Default)]
struct Watch {
    cancel: Option<Arc<AtomicBool>>,
    progress: Option<ProgressSink>,
    varied: Varied,
}

/// A guest's call, stopped where it yields once its deadline has passed or its caller has
/// cancelled it: the guest yields every [`YIELD_FUEL`] units of fuel (and wherever a WASI call
/// of its own waits), and each time this future is polled again it checks both. Dropping the
/// call's future there unwinds the guest; the store is then only dropped.
struct Stoppable<'a, R> {
    call: Pin<Box<dyn Future<Output = wasmtime::Result<R>> + 'a>>,
    deadline: Instant,
    cancel: Option<Arc<AtomicBool>>,
    /// Why the call was stopped, when it was.
    stopped: &'a mut Option<Stop>,
}

impl<R> Future for Stoppable<'_, R> {
    type Output = wasmtime::Result<R>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Poll::Ready(r) = self.call.as_mut().poll(cx) {
            return Poll::Ready(r);
        }
        let cancelled = self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed));
        if cancelled || Instant::now() >= self.deadline {
            *self.stopped = Some(if cancelled { Stop::Cancelled } else { Stop::Deadline });
            return Poll::Ready(Err(wasmtime::Error::msg("camber: call interrupted")));
        }
        Poll::Pending
    }
}

/// Run `future` to its end on this thread, which sleeps while it waits. A guest's call yields
/// often (every [`YIELD_FUEL`] units of fuel, waking itself at once), so it is polled on the
/// caller's own thread rather than handed to an executor; unlike tokio's `block_on` this may
/// run anywhere, and it blocks the thread for the guest's whole call, as a synchronous call did.
/// While the guest waits on a clock of its own (it burns no fuel then) the future is polled
/// again at least every [`WAITING_POLL`] and at `deadline`, so a [`Stoppable`] call that waits
/// is still stopped at its deadline or on a cancel.
fn block_on<F: Future>(future: F, deadline: Instant) -> F::Output {
    /// Wakes the thread that polls.
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = std::pin::pin!(future);
    let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        std::thread::park_timeout(left.min(WAITING_POLL));
    }
}

/// How long a guest waiting on a clock goes unpolled at most (see [`block_on`]).
const WAITING_POLL: Duration = Duration::from_millis(10);

impl Drop for Runtime {
    fn drop(&mut self) {
        // the stores still being dropped go before the runtime does
        drop(self.retired.to_drop.lock().ok().and_then(|mut t| t.take()));
        let (count, freed) = &*self.retired.pending;
        let mut pending = count.lock().unwrap_or_else(|p| p.into_inner());
        while *pending > 0 {
            pending = freed.wait(pending).unwrap_or_else(|p| p.into_inner());
        }
    }
}

fn stderr_text(pipe: &MemoryOutputPipe) -> String {
    String::from_utf8_lossy(&pipe.contents()).into_owned()
}

fn trap_text(e: &wasmtime::Error, stderr: &MemoryOutputPipe) -> String {
    let err = stderr_text(stderr);
    let panic = panic_message(&err);
    if panic.is_empty() {
        first_line(&e.to_string())
    } else {
        panic
    }
}

/// The panic message a Rust guest wrote to stderr ("panicked at src/lib.rs:1:2:\nmsg"), as
/// one line, or empty.
pub fn panic_message(stderr: &str) -> String {
    let Some(at) = stderr.find("panicked at") else {
        return String::new();
    };
    let rest = &stderr[at..];
    let mut lines = rest.lines();
    let head = lines.next().unwrap_or_default().trim_end_matches(':').to_string();
    let msg: Vec<&str> = lines.take_while(|l| !l.starts_with("note:")).collect();
    format!("{head}: {}", msg.join(" ")).trim().to_string()
}

/// The first line of an error chain's text.
pub fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().trim().to_string()
}

/// A file's name for messages: never an absolute path.
pub fn file_label(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "component".into())
}

/// Write `bytes` to `dir/name` through a temporary file and a rename.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, dir.join(name)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// The set of facility ids one call may read.
pub type FacilitySet = BTreeSet<String>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_of_an_older_additive_version_load_and_others_do_not() {
        assert!(loads_wit(WIT_VERSION));
        assert!(loads_wit("0.2.0"), "0.2.1 only added the progress import");
        assert!(loads_wit("0.2.1"), "0.2.2 only added two catalog functions");
        assert!(loads_wit("0.2.2"), "0.2.3 only added the portfolio import");
        for v in ["0.1.0", "0.3.0", "0.2.4", "1.0.0", "0.2", "0.2.0.1", "x.y.z", ""] {
            assert!(!loads_wit(v), "{v}");
        }
    }

    #[test]
    fn the_version_is_the_wit_package_s_so_read_grid_is_rebound_where_components_import_it() {
        // `Runtime::new` rebinds `read-grid` in the instance named with WIT_VERSION: another
        // version there would leave the generated, copying binding in place
        let wit = include_str!("../../../wit/capability.wit");
        let package = wit.lines().find_map(|l| l.trim().strip_prefix("package camber:capability@"));
        assert_eq!(package, Some(format!("{WIT_VERSION};").as_str()));
    }
}
