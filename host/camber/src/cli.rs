//! The command line: `camber capabilities`, `camber call`, `camber demo`. Each command loads
//! the registry and goes through `Registry::call`; none applies policy of its own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::{json, Value};

use camber_common::CapError;

use camber_registry::live::{LiveRegistry, PolicySource};
use camber_registry::trust::{self, Policy};
use camber_registry::{component_files, CallContext, Registry};
use camber_runtime::{Runtime, RuntimeConfig};
use camber_serve as serve;
use camber_store::StoreDir;

/// `println!` for the command's output, without its panic: see `write_out`.
macro_rules! out {
    ($($arg:tt)*) => { write_out(format_args!($($arg)*)) };
}

#[derive(Parser)]
#[command(
    name = "camber",
    version,
    about = "Read-only building analytics for AI assistants: capabilities as sandboxed WebAssembly components"
)]
struct Cli {
    #[command(flatten)]
    sources: Sources,
    #[command(subcommand)]
    command: Command,
}

/// Where the components come from and the trust policy they load under.
#[derive(Args, Clone, Debug, Default)]
pub struct Sources {
    /// More capability directories (after the one next to the executable and CAMBER_CAPABILITIES)
    #[arg(long = "capabilities", global = true, value_name = "DIR")]
    pub capabilities: Vec<PathBuf>,
    /// The trust policy (TOML; see docs/TRUST.md): which components may load, by digest or
    /// signature, and what each may use. Without one every component loads with the shipped
    /// limits
    #[arg(long, global = true, value_name = "FILE", env = "CAMBER_POLICY")]
    pub policy: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// List the loaded capabilities (name, title, cost; with --json also schemas and
    /// descriptors), or manage what the trust policy lets load
    Capabilities {
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        command: Option<CapabilitiesCommand>,
    },
    /// Call one capability and print its result (or its refusal) as JSON
    Call {
        /// Capability name (see `camber capabilities`)
        name: String,
        /// Arguments as a JSON object
        #[arg(default_value = "{}")]
        args: String,
        #[command(flatten)]
        access: AccessArgs,
        /// Wall-clock budget of the call in seconds
        #[arg(long, default_value_t = 120.0)]
        max_seconds: f64,
    },
    /// Write the synthetic demo buildings to a store and run a few calls on them
    Demo {
        /// Where to write the demo store
        #[arg(long, default_value = "camber-demo-store")]
        store: PathBuf,
    },
    /// Serve the capabilities and prompts over MCP: stdio, or Streamable HTTP with --http
    Mcp {
        #[command(flatten)]
        access: AccessArgs,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Serve the capabilities over A2A (and MCP) on HTTP
    A2a {
        #[command(flatten)]
        access: AccessArgs,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Serve MCP (/mcp) and A2A (/a2a) on one HTTP address
    Serve {
        #[command(flatten)]
        access: AccessArgs,
        #[command(flatten)]
        http: HttpArgs,
    },
    /// Manage the bearer tokens of HTTP callers
    Tokens {
        #[command(subcommand)]
        command: TokensCommand,
    },
    /// Ingest a trend CSV (long: ts,equip,equip_class,role,value[,unit]; or wide with --mapping)
    Ingest(IngestArgs),
    /// Propose a mapping for a building's own export (a wide trend CSV or a point list): each
    /// point's equipment, class, role and unit with a confidence and its evidence, and which air
    /// handler serves each box, for a person to review before `camber ingest --mapping`
    Map(MapArgs),
    /// The synthetic datasets: list them, or generate one into a store
    Datasets {
        #[command(subcommand)]
        command: DatasetsCommand,
    },
    /// Write a facility's RCx report as one self-contained HTML page (the rcx_report data,
    /// with an evidence chart per issue)
    Report {
        /// The facility
        facility: String,
        /// The store, the allowlist (default: the facility itself), run configs and the trust
        /// floor, as every `camber call` takes them
        #[command(flatten)]
        access: AccessArgs,
        /// Where to write the page
        #[arg(long, value_name = "FILE", default_value = "report.html")]
        out: PathBuf,
        /// Window start and end (site wall clock)
        #[arg(long)]
        start: Option<String>,
        #[arg(long)]
        end: Option<String>,
        /// Issues to rank (default: the config's, else 8)
        #[arg(long)]
        top_n: Option<u32>,
    },
    /// Portfolio runs: every facility of a shard through rcx_report, rule_run and (where its
    /// run config sets it up) drift, written as Parquet that any SQL engine rolls up
    Portfolio {
        #[command(subcommand)]
        command: PortfolioCommand,
    },
    /// Drift baselines: fit the ones a run config's drift section compares against
    Drift {
        #[command(subcommand)]
        command: DriftCommand,
    },
}

#[derive(Subcommand)]
enum CapabilitiesCommand {
    /// Pin every component in the capability directories by its SHA-256: write the lock file
    /// a policy's `trust.lock` names
    Lock {
        /// Where to write it
        #[arg(long, value_name = "FILE", default_value = "camber.lock")]
        out: PathBuf,
    },
    /// Say for each component file what the policy decides and why, and what it may use
    Verify,
    /// Write a new Ed25519 key pair: NAME.key (secret) and NAME.pub (for a policy's trust.keys)
    Keygen {
        /// The key files' path without extension
        name: PathBuf,
    },
    /// Sign component files with a secret key: writes FILE.sig beside each
    Sign {
        /// The secret key (from `camber capabilities keygen`)
        #[arg(long, value_name = "FILE")]
        key: PathBuf,
        /// The component files
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Subcommand)]
enum DriftCommand {
    /// Fit the drift baselines of a facility's run config on a known-good window and write them
    /// to a file (atomically) that the config's drift.store can name
    Fit {
        /// The facility
        facility: String,
        #[arg(long, value_name = "DIR")]
        store: PathBuf,
        /// The run config with the drift section (JSON or YAML)
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Where to write the baselines (JSON)
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// The known-good window (site wall clock); default the config's drift.baseline
        #[arg(long, num_args = 2, value_names = ["START", "END"])]
        baseline: Option<Vec<String>>,
        /// The trust floor: a detector whose inputs score below it is not fitted
        #[arg(long, default_value_t = 0.5)]
        min_trust: f64,
    },
}

#[derive(Args)]
struct IngestArgs {
    /// The CSV file
    csv: PathBuf,
    /// The store directory (created when missing)
    #[arg(long, value_name = "DIR")]
    store: PathBuf,
    /// The facility the data belongs to
    #[arg(long, value_name = "ID")]
    facility: String,
    /// The site's IANA time zone (stamps without an offset are its wall clock)
    #[arg(long, value_name = "ZONE")]
    timezone: String,
    /// Wide CSV: the column mapping (JSON {"timestamp", "columns": {col: {equip, equip_class, role, unit}}} or CSV column,equip,equip_class,role[,unit])
    #[arg(long, value_name = "FILE")]
    mapping: Option<PathBuf>,
    /// The declared unit of a role's readings, converted to the stored unit (repeatable)
    #[arg(long = "unit", value_name = "ROLE=UNIT")]
    units: Vec<String>,
    /// Replace the facility's stored data
    #[arg(long, conflicts_with = "append")]
    replace: bool,
    /// Add to the facility's stored data (a reading at the same time and point replaces it)
    #[arg(long)]
    append: bool,
    /// The facility's display name
    #[arg(long)]
    name: Option<String>,
    /// Seconds to wait for another writer
    #[arg(long, default_value_t = 30.0)]
    lock_timeout: f64,
    /// No progress bar
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct MapArgs {
    /// The export: a wide trend CSV (a timestamp column, one column per point) or a point list
    /// (a CSV with a name column, optionally unit and description)
    export: PathBuf,
    /// Where to write the mapping: JSON, or CSV when the name ends in .csv
    #[arg(long, value_name = "MAPPING")]
    out: PathBuf,
    /// A Brick model of the building (Turtle)
    #[arg(long, value_name = "MODEL.ttl")]
    brick: Option<PathBuf>,
    /// A Project Haystack point grid (Zinc, JSON or Hayson)
    #[arg(long, value_name = "GRID")]
    haystack: Option<PathBuf>,
    /// A column at or above this confidence is mapped; below it, it is listed for review
    #[arg(long, default_value_t = 0.6)]
    min_confidence: f64,
    /// Rows of the export read for the data checks
    #[arg(long, default_value_t = camber_map::profile::DEFAULT_MAX_ROWS)]
    max_rows: usize,
}

/// How the HTTP transports listen and who may call them.
#[derive(Args)]
struct HttpArgs {
    /// Listen on this address (e.g. 127.0.0.1:8765); without it `camber mcp` speaks stdio
    #[arg(long, value_name = "ADDR")]
    http: Option<std::net::SocketAddr>,
    /// The token file: SHA-256 digests of the callers' tokens, their labels and allowlists
    #[arg(long, value_name = "FILE")]
    tokens: Option<PathBuf>,
    /// Serve loopback callers without tokens (refused on any other address)
    #[arg(long)]
    no_auth: bool,
    /// Another Origin to accept (loopback origins always are; repeatable)
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origin: Vec<String>,
    /// Calls that may run at once (default: one per core)
    #[arg(long)]
    workers: Option<usize>,
    /// An MCP session idle this many seconds ends; its id then gets 404 and the client
    /// initializes again (0: as soon as it is idle)
    #[arg(long, value_name = "SECONDS", default_value_t = serve::http::DEFAULT_SESSION_IDLE.as_secs())]
    session_idle: u64,
    /// MCP sessions one token may hold; one more ends its least recently used idle session
    #[arg(long, value_name = "N", default_value_t = serve::http::DEFAULT_SESSIONS_PER_CALLER, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    max_sessions: usize,
}

#[derive(Subcommand)]
enum TokensCommand {
    /// Create a token for a caller; it is printed once and only its digest is stored
    Add {
        /// The caller's label (in logs and ctx.caller)
        label: String,
        /// A facility this caller may read (repeatable; intersected with the server's)
        #[arg(long = "allow", value_name = "ID", required = true)]
        allow: Vec<String>,
        /// The token file
        #[arg(long, value_name = "FILE")]
        file: PathBuf,
    },
}

#[derive(Subcommand)]
enum PortfolioCommand {
    /// Run rcx_report and rule_run for every facility of one shard, and drift where the
    /// facility's run config has a drift section (facilities are dealt to shards by a stable
    /// hash of their id): a Parquet file of issues and one of warn and fault findings per
    /// facility, then the shard's manifest
    Run {
        /// This shard and how many there are, as I/N (0-based); or give --shards and let the
        /// scheduler's index (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX,
        /// SLURM_ARRAY_TASK_ID) say which
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// How many shards, with the index from the scheduler's environment
        #[arg(long, conflicts_with = "shard")]
        shards: Option<u32>,
        /// Where to write: a directory or an object storage URL
        #[arg(long, value_name = "DIR|URL")]
        out: String,
        /// The run's id, the same for every shard of one run (default: the start time, for a
        /// run of one shard)
        #[arg(long, env = "CAMBER_RUN_ID")]
        run: Option<String>,
        /// The store, the allowlist (default: every active facility), run configs and the
        /// trust floor
        #[command(flatten)]
        access: AccessArgs,
    },
}

#[derive(Subcommand)]
enum DatasetsCommand {
    /// List the datasets camber can generate
    List,
    /// Generate datasets into a store as facilities ds-<id>
    Ingest {
        /// Dataset ids (see `camber datasets list`)
        #[arg(required = true)]
        ids: Vec<String>,
        #[arg(long, value_name = "DIR")]
        store: PathBuf,
        /// The generator's seed (default: each dataset's own)
        #[arg(long)]
        seed: Option<u64>,
        /// Re-generate a dataset already in the store
        #[arg(long)]
        replace: bool,
        #[arg(long, default_value_t = 30.0)]
        lock_timeout: f64,
    },
}

/// Who the caller is: the store, the allowlist, the config and the trust floor.
#[derive(Args)]
struct AccessArgs {
    /// The store: a directory, or object storage (s3://bucket/prefix, gs://, az://) with the
    /// cloud's standard credentials (capabilities that read no building data need none)
    #[arg(long, value_name = "DIR|URL")]
    store: Option<PathBuf>,
    /// A facility the caller may read (repeatable; none: no facility is visible)
    #[arg(long = "allow", value_name = "ID")]
    allow: Vec<String>,
    /// Allow every facility the store registers as active (or leaves unregistered)
    #[arg(long, conflicts_with = "allow")]
    allow_all_active: bool,
    /// A run config (JSON or YAML), read and checked at startup; repeatable, one per
    /// facility. Its content is part of every call's token
    #[arg(long, value_name = "FILE")]
    config: Vec<PathBuf>,
    /// The trust floor: checks whose inputs score below it decline
    #[arg(long, default_value_t = 0.5)]
    min_trust: f64,
    /// Where `camber portfolio run --out` writes its runs (a directory or an object storage
    /// URL): the `portfolio` capability answers from the latest complete one
    #[arg(long, value_name = "DIR|URL", env = "CAMBER_PORTFOLIO")]
    portfolio: Option<String>,
}

/// The install's own capability directory: `capabilities/` next to the executable. Its
/// components are the shipped ones (they keep the shipped grant under a policy).
pub fn own_dir() -> Option<PathBuf> {
    std::env::current_exe().ok().and_then(|e| e.parent().map(|p| p.join("capabilities")))
}

/// The capability directories: next to the executable, then `CAMBER_CAPABILITIES`
/// (colon-separated), then `--capabilities`.
pub fn capability_dirs(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    dirs.extend(own_dir());
    if let Some(v) = std::env::var_os("CAMBER_CAPABILITIES") {
        dirs.extend(std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()));
    }
    dirs.extend(extra.iter().cloned());
    dirs
}

const NO_COMPONENTS: &str = "no _cap_*.wasm components found: build them with `cargo xtask build`, or name a directory with --capabilities or CAMBER_CAPABILITIES";

/// Load the registry from the capability directories under the policy; a one-line error
/// otherwise.
pub fn load_registry(src: &Sources) -> Result<Registry, String> {
    let files = component_files(&capability_dirs(&src.capabilities));
    if files.is_empty() {
        return Err(NO_COMPONENTS.into());
    }
    let runtime = std::sync::Arc::new(Runtime::new(RuntimeConfig::default())?);
    let policy = policy(src, &runtime.config)?;
    Registry::load_with(runtime, &files, &policy)
}

/// The policy `src` names, or none.
fn policy(src: &Sources, config: &RuntimeConfig) -> Result<Policy, String> {
    match &src.policy {
        Some(p) => Policy::read(p, own_dir(), config),
        None => Ok(Policy::open(config)),
    }
}

/// The registry a server runs, which reloads when its directories change.
fn live_registry(src: &Sources) -> Result<LiveRegistry, String> {
    let dirs = capability_dirs(&src.capabilities);
    if component_files(&dirs).is_empty() {
        return Err(NO_COMPONENTS.into());
    }
    let runtime = std::sync::Arc::new(Runtime::new(RuntimeConfig::default())?);
    LiveRegistry::start(runtime, dirs, PolicySource { path: src.policy.clone(), own_dir: own_dir() })
}

/// `camber capabilities lock|verify|keygen|sign`.
fn capabilities_command(src: &Sources, command: CapabilitiesCommand) -> Result<i32, Failure> {
    match command {
        CapabilitiesCommand::Lock { out } => {
            let files = component_files(&capability_dirs(&src.capabilities));
            if files.is_empty() {
                return Err(NO_COMPONENTS.to_string().into());
            }
            let text = trust::lock_text(&files)?;
            camber_store::writer::write_atomic(&out, text.as_bytes())
                .map_err(|e| format!("{} cannot be written ({})", out.display(), e.kind()))?;
            out!("pinned {} component(s) in {}", files.len(), out.display())?;
            Ok(0)
        }
        CapabilitiesCommand::Verify => {
            let files = component_files(&capability_dirs(&src.capabilities));
            let runtime = Runtime::new(RuntimeConfig { cache_dir: None, ..RuntimeConfig::default() })?;
            let policy = policy(src, &runtime.config)?;
            let mut refused = 0;
            for f in &files {
                let d = policy.decide(f)?;
                match &d.admitted {
                    Ok(why) => out!("{:<28} loads: {why}; {}", d.file, d.grant.summary())?,
                    Err(why) => {
                        refused += 1;
                        out!("{:<28} REFUSED: {why}", d.file)?
                    }
                }
            }
            out!(
                "{} component(s), {} refused, under {}",
                files.len(),
                refused,
                policy.source.as_deref().unwrap_or("no policy (every component loads)")
            )?;
            Ok(if refused > 0 { 1 } else { 0 })
        }
        CapabilitiesCommand::Keygen { name } => {
            let (secret, public) = trust::keygen(&camber_runtime::file_label(&name))?;
            let with = |ext: &str| {
                let mut p = name.clone().into_os_string();
                p.push(ext);
                PathBuf::from(p)
            };
            let (key, pubkey) = (with(".key"), with(".pub"));
            if key.exists() {
                return Err(format!("{} exists: not overwritten", key.display()).into());
            }
            write_secret(&key, &secret)?;
            camber_store::writer::write_atomic(&pubkey, public.as_bytes())
                .map_err(|e| format!("{} cannot be written ({})", pubkey.display(), e.kind()))?;
            out!(
                "wrote {} (keep it secret) and {} (name it in the policy's trust.keys)",
                key.display(),
                pubkey.display()
            )?;
            Ok(0)
        }
        CapabilitiesCommand::Sign { key, files } => {
            for f in &files {
                let sig = trust::sign(f, &key)?;
                let to = trust::signature_path(f);
                camber_store::writer::write_atomic(&to, sig.as_bytes())
                    .map_err(|e| format!("{} cannot be written ({})", to.display(), e.kind()))?;
                out!("signed {} -> {}", f.display(), to.display())?;
            }
            Ok(0)
        }
    }
}

/// Write a secret key readable by its owner only.
fn write_secret(path: &Path, text: &str) -> Result<(), String> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let mut f = o.open(path).map_err(|e| format!("{} cannot be written ({})", path.display(), e.kind()))?;
    std::io::Write::write_all(&mut f, text.as_bytes())
        .map_err(|e| format!("{} cannot be written ({})", path.display(), e.kind()))
}

/// The facilities `--allow-all-active` grants: every stored facility whose registry state is
/// active or that has no registry entry.
pub fn all_active(s: &StoreDir) -> Vec<String> {
    let reg = s.registry();
    s.facility_ids()
        .unwrap_or_default()
        .into_iter()
        .filter(|f| {
            reg.entries.get(f).and_then(|m| m.get("state")).and_then(Value::as_str).unwrap_or("active") == "active"
        })
        .collect()
}

fn context(a: &AccessArgs) -> Result<CallContext, String> {
    if !(0.0..=1.0).contains(&a.min_trust) {
        return Err(format!("--min-trust must be between 0 and 1, got {}", a.min_trust));
    }
    // a directory, or a store on object storage (s3://, gs://, az://)
    let store = match &a.store {
        Some(p) => StoreDir::open_location(&p.to_string_lossy()).map_err(|e| format!("--store: {e}"))?,
        None => None,
    };
    let allowed: BTreeSet<String> = if a.allow_all_active {
        if a.store.is_none() {
            return Err("--allow-all-active needs --store".into());
        }
        let all = store.as_deref().map(all_active).unwrap_or_default();
        if all.is_empty() {
            return Err("--allow-all-active: the store has no active facility".into());
        }
        all.into_iter().collect()
    } else {
        a.allow.iter().cloned().collect()
    };
    let mut ctx = match &a.store {
        Some(location) => CallContext::with_store(store, location, allowed),
        None => CallContext::without_store(allowed),
    };
    ctx.min_trust = a.min_trust;
    if let Some(p) = &a.portfolio {
        let runs = camber_store::portfolio::Runs::open(p).map_err(|e| format!("--portfolio: {e}"))?;
        ctx.portfolio = Some(std::sync::Arc::new(runs));
    }
    if !a.config.is_empty() {
        let configs = camber_registry::runconfig::RunConfigs::load(&a.config)?;
        ctx.config_digest = configs.digest.clone();
        ctx.run_configs = std::sync::Arc::new(configs);
        let mut roots: Vec<PathBuf> = a.store.iter().cloned().collect();
        for cfg in &a.config {
            roots.push(cfg.clone());
            if let Some(parent) = cfg.parent() {
                roots.push(parent.to_path_buf());
            }
        }
        ctx.redactor = std::sync::Arc::new(camber_common::redact::Redactor::new(roots));
    }
    Ok(ctx)
}

/// Why a command stopped without its result.
enum Failure {
    /// A one-line message for stderr (exit status 2).
    Message(String),
    /// Whoever read stdout went away (`camber call ... | head`): end quietly.
    StdoutClosed,
}

impl From<String> for Failure {
    fn from(m: String) -> Failure {
        Failure::Message(m)
    }
}

impl From<&str> for Failure {
    fn from(m: &str) -> Failure {
        Failure::Message(m.to_string())
    }
}

/// The exit status when stdout closed early: the shell's for a command a SIGPIPE ended.
pub const EXIT_STDOUT_CLOSED: i32 = 141;

/// Write one line of the command's output; a closed or failing stdout ends the command
/// (never a panic, as `println!` would).
fn write_out(line: std::fmt::Arguments) -> Result<(), Failure> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_fmt(line).and_then(|_| o.write_all(b"\n")).and_then(|_| o.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Failure::StdoutClosed),
        Err(e) => Err(Failure::Message(format!("cannot write the output ({})", e.kind()))),
    }
}

fn print_json(v: &Value) -> Result<(), Failure> {
    out!("{}", serde_json::to_string_pretty(v).unwrap_or_default())
}

fn error_json(e: &CapError) -> Value {
    json!({"error": e.to_json()})
}

/// The exit status after a panic (a bug): the panic's one line is in the log.
pub const EXIT_INTERNAL: i32 = 70;

/// Run the command line; returns the exit status. Messages for stderr go through the log
/// queue (a closed or unread stderr never blocks or fails a command), which is flushed
/// before the status is returned; a panic is one logged line and [`EXIT_INTERNAL`], never a
/// backtrace.
pub fn main() -> i32 {
    serve::log::install_panic_hook();
    let cli = Cli::parse();
    let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) {
        Ok(Ok(code)) => code,
        Ok(Err(Failure::Message(msg))) => {
            say(format!("camber: {}", camber_common::text::one_line(&msg)));
            2
        }
        Ok(Err(Failure::StdoutClosed)) => EXIT_STDOUT_CLOSED,
        Err(_) => EXIT_INTERNAL,
    };
    serve::log::flush(std::time::Duration::from_secs(2));
    code
}

/// One line for stderr (through the log queue).
fn say(line: impl Into<String>) {
    serve::log::line(line);
}

fn run(cli: Cli) -> Result<i32, Failure> {
    // a memo size that is not a number is refused here, before any component loads with the
    // default in its place
    camber_registry::memo::budget_from_env().map_err(Failure::Message)?;
    match cli.command {
        Command::Capabilities { command: Some(c), .. } => capabilities_command(&cli.sources, c),
        Command::Capabilities { json, command: None } => {
            let reg = load_registry(&cli.sources)?;
            if json {
                let caps: Vec<Value> = reg
                    .capabilities()
                    .map(|c| {
                        json!({
                            "name": c.name, "title": c.title, "description": c.description, "cost": c.cost,
                            "input_schema": c.input.source, "output_schema": c.output.source,
                            "descriptor": c.descriptor(),
                        })
                    })
                    .collect();
                let prompts: Vec<Value> = reg
                    .prompts()
                    .map(|p| {
                        json!({"name": p.name, "title": p.title, "description": p.description,
                               "arguments": p.arguments.iter().map(|(n, d, r)| json!({"name": n, "description": d, "required": r})).collect::<Vec<_>>()})
                    })
                    .collect();
                print_json(&json!({"capabilities": caps, "prompts": prompts}))?;
            } else {
                for c in reg.capabilities() {
                    out!("{:<18} {:<14} {:<32} {}", c.name, c.cost, c.title, c.file)?;
                }
                for p in reg.prompts() {
                    out!("{:<18} {:<14} {}", p.name, "prompt", p.title)?;
                }
            }
            Ok(0)
        }
        Command::Call { name, args, access, max_seconds } => {
            let args: Value = serde_json::from_str(&args).map_err(|e| format!("ARGS is not JSON: {e}"))?;
            let mut ctx = context(&access)?;
            ctx.limits.max_seconds = max_seconds;
            ctx.caller = "cli".into();
            let reg = load_registry(&cli.sources)?;
            match reg.call(&name, &args, &ctx) {
                Ok(r) => {
                    print_json(&r.to_json())?;
                    Ok(0)
                }
                Err(e) => {
                    print_json(&error_json(&e))?;
                    Ok(1)
                }
            }
        }
        Command::Demo { store } => demo(&store, &cli.sources),
        Command::Ingest(a) => ingest(a),
        Command::Map(a) => map(a),
        Command::Mcp { access, http } => serve(&cli.sources, access, http, true),
        Command::A2a { access, http } | Command::Serve { access, http } => {
            if http.http.is_none() {
                return Err("name the address to listen on with --http ADDR".into());
            }
            serve(&cli.sources, access, http, false)
        }
        Command::Tokens { command: TokensCommand::Add { label, allow, file } } => {
            let token = serve::auth::add(&file, &label, &allow)?;
            out!("{token}")?;
            say(format!("camber: token for '{label}' added to {}; it is shown only this once", file.display()));
            Ok(0)
        }
        Command::Datasets { command } => datasets(command),
        Command::Report { facility, mut access, out, start, end, top_n } => {
            let Some(store) = access.store.clone() else {
                return Err("camber report needs --store".into());
            };
            // the facility reported on is the allowlist unless the caller gives one
            if access.allow.is_empty() && !access.allow_all_active {
                access.allow.push(facility.clone());
            }
            let mut ctx = context(&access)?;
            ctx.caller = "report".into();
            let reg = load_registry(&cli.sources)?;
            let t0 = std::time::Instant::now();
            let window = json!({"start": start, "end": end, "top_n": top_n});
            let w = crate::report::write(&reg, &ctx, &store, &facility, &window, &out)?;
            out!(
                "wrote {} ({} issue(s), {} chart(s)) in {:.2} s",
                out.display(),
                w.issues.len(),
                w.charts,
                t0.elapsed().as_secs_f64()
            )?;
            for line in crate::report::summary(&w, 5) {
                out!("{line}")?;
            }
            Ok(0)
        }
        Command::Portfolio { command: PortfolioCommand::Run { shard, shards, out, run, mut access } } => {
            let (index, count) = crate::portfolio::shard(shard.as_deref(), shards)?;
            if count > 1 && run.is_none() {
                return Err(
                    "a run of more than one shard needs --run (or CAMBER_RUN_ID), the same for every shard".into()
                );
            }
            if access.store.is_none() {
                return Err("camber portfolio run needs --store".into());
            }
            if access.allow.is_empty() {
                access.allow_all_active = true;
            }
            let mut ctx = context(&access)?;
            ctx.caller = "portfolio".into();
            let reg = load_registry(&cli.sources)?;
            let run = run.unwrap_or_else(camber_store::portfolio::run_id);
            let done = crate::portfolio::run(&reg, &ctx, index, count, &out, &run)?;
            out!("{}", done.summary())?;
            Ok(if done.refused == 0 { 0 } else { 1 })
        }
        Command::Drift { command: DriftCommand::Fit { facility, store, config, out, baseline, min_trust } } => {
            drift_fit(&facility, &store, &config, &out, baseline, min_trust)
        }
    }
}

/// `camber drift fit`: fit, report what was and was not fitted, write the file whole.
fn drift_fit(
    fid: &str,
    store: &Path,
    config: &Path,
    out_file: &Path,
    baseline: Option<Vec<String>>,
    min_trust: f64,
) -> Result<i32, Failure> {
    if !(0.0..=1.0).contains(&min_trust) {
        return Err(format!("--min-trust must be between 0 and 1, got {min_trust}").into());
    }
    let s = StoreDir::open_location(&store.to_string_lossy())?.ok_or("--store: no store directory there")?;
    if !s.facility_ids().unwrap_or_default().iter().any(|f| f == fid) {
        return Err(format!("the store holds no facility '{fid}'").into());
    }
    // the config is read without its drift.store: the file being written is not read back
    let text = std::fs::read_to_string(config).map_err(|e| format!("--config cannot be read ({})", e.kind()))?;
    let name = config.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut value = camber_registry::runconfig::parse_text(&name, &text).map_err(|e| format!("--config: {e}"))?;
    if let Some(d) = value.get_mut("drift").and_then(Value::as_object_mut) {
        d.remove("store");
    }
    let configs = camber_registry::runconfig::RunConfigs::from_values(vec![(name, value)])?;
    let window = baseline.map(|v| (v[0].clone(), v[1].clone()));
    let t0 = std::time::Instant::now();
    let fitted = camber_registry::driftfit::fit(&s, &configs, fid, window, min_trust)?;
    let b = &fitted.baselines;
    for (equip, detector, why) in &fitted.left {
        out!("not fitted: {detector} on {equip}: {why}")?;
    }
    let text = serde_json::to_string_pretty(b).map_err(|e| format!("cannot write the baselines: {e}"))?;
    camber_store::writer::write_atomic(out_file, text.as_bytes())
        .map_err(|e| format!("--out cannot be written ({})", e.kind()))?;
    let equips: BTreeSet<&str> = b.entries.iter().map(|e| e.equip.as_str()).collect();
    out!(
        "fitted {} baseline(s) on {} equipment of {fid} over {} .. {} in {:.2} s; wrote {}",
        b.entries.len(),
        equips.len(),
        b.window.0.as_deref().unwrap_or("-"),
        b.window.1.as_deref().unwrap_or("-"),
        t0.elapsed().as_secs_f64(),
        out_file.display()
    )?;
    Ok(0)
}

fn serve(src: &Sources, access: AccessArgs, http: HttpArgs, stdio_default: bool) -> Result<i32, Failure> {
    // session ids and task ids come from the OS generator only: find out now, not mid-session
    camber_common::ids::random_hex().map_err(|why| format!("cannot serve: {why}"))?;
    let ctx = context(&access)?;
    if ctx.store.is_none() {
        say("camber: warning: the store directory does not exist; only capabilities that read no building data can answer");
    }
    // replicas over one bucket share their MCP tasks in it
    let shelf: Option<std::sync::Arc<dyn serve::tasks::Shelf>> = ctx
        .store
        .as_ref()
        .and_then(|s| s.bucket().cloned())
        .map(|b| std::sync::Arc::new(crate::backend::BucketShelf(b)) as std::sync::Arc<dyn serve::tasks::Shelf>);
    let workers = http.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let tokens = http.tokens.as_deref().map(serve::auth::Tokens::load).transpose()?;
    if let Some(addr) = http.http {
        serve::http::check_setup(&addr, tokens.as_ref(), http.no_auth)?;
    } else if !stdio_default {
        return Err("name the address to listen on with --http ADDR".into());
    }
    let registry = live_registry(src)?;
    registry.set_log(std::sync::Arc::new(|l: &str| serve::log::line(format!("camber: reload: {l}"))));
    let now = registry.current();
    say(format!(
        "camber: {} capabilities and {} prompts for {} facilities{}",
        now.capabilities().count(),
        now.prompts().count(),
        ctx.allowed.len(),
        match &src.policy {
            Some(p) => format!("; trust policy {}", camber_runtime::file_label(p)),
            None => "; no trust policy (--policy): every component in the capability directories loads".into(),
        }
    ));
    drop(now);
    let svc =
        std::sync::Arc::new(serve::Service::new(Box::new(crate::backend::RegistryBackend { registry, base: ctx })));
    crate::watch::spawn(svc.clone(), capability_dirs(&src.capabilities), src.policy.clone());
    match http.http {
        None => {
            serve::stdio::serve(svc, workers).map_err(|e| format!("stdio failed: {e}"))?;
        }
        Some(addr) => {
            let sessions = serve::http::SessionLimits {
                idle: std::time::Duration::from_secs(http.session_idle),
                per_caller: http.max_sessions,
            };
            let opts =
                serve::http::HttpOptions { addr, tokens, allowed_origins: http.allow_origin, workers, sessions, shelf };
            serve::http::serve(svc, opts)?;
        }
    }
    Ok(0)
}

fn lock_timeout(s: f64) -> Result<std::time::Duration, String> {
    if !(0.0..=86_400.0).contains(&s) {
        return Err(format!("--lock-timeout must be between 0 and 86400 seconds, got {s}"));
    }
    Ok(std::time::Duration::from_secs_f64(s))
}

fn ingest(a: IngestArgs) -> Result<i32, Failure> {
    let mut units = std::collections::BTreeMap::new();
    for u in &a.units {
        let (role, unit) = u.split_once('=').ok_or_else(|| format!("--unit takes ROLE=UNIT, got '{u}'"))?;
        units.insert(role.trim().to_string(), unit.trim().to_string());
    }
    let opts = camber_store::ingest::IngestOptions {
        facility: a.facility.clone(),
        timezone: a.timezone.clone(),
        format: None,
        mapping: a.mapping.clone(),
        units,
        mode: if a.replace {
            camber_store::writer::Mode::Replace
        } else if a.append {
            camber_store::writer::Mode::Append
        } else {
            camber_store::writer::Mode::Create
        },
        name: a.name.clone(),
        progress: !a.quiet,
        lock_timeout: lock_timeout(a.lock_timeout)?,
    };
    let t0 = std::time::Instant::now();
    let report = camber_store::ingest::ingest(&a.store, &a.csv, &opts)?;
    out!("{}", report.summary(&a.facility, &a.timezone))?;
    say(format!("took {:.2} s", t0.elapsed().as_secs_f64()));
    Ok(0)
}

fn map(a: MapArgs) -> Result<i32, Failure> {
    if !(0.0..=1.0).contains(&a.min_confidence) {
        return Err(format!("--min-confidence must be between 0 and 1, got {}", a.min_confidence).into());
    }
    let read = |p: &PathBuf, what: &str| {
        std::fs::read_to_string(p).map_err(|e| format!("the {what} cannot be read ({})", e.kind()))
    };
    let mut models = Vec::new();
    if let Some(p) = &a.brick {
        models.push(camber_map::brick::read_brick(&read(p, "Brick model")?)?);
    }
    if let Some(p) = &a.haystack {
        models.push(camber_map::haystack::read_haystack(&read(p, "Haystack grid")?)?);
    }
    let export = camber_map::profile::read_export(&a.export, a.max_rows.max(1))?;
    let opts = camber_map::propose::Options { min_confidence: a.min_confidence };
    let mut proposal = camber_map::propose::propose(&export, &models, &opts);
    // what the ingest would refuse is not proposed as mapped
    let (ok, refused): (Vec<_>, Vec<_>) = proposal.accepted.drain(..).partition(|c| {
        camber_store::ingest::check_name("equipment", &c.equip).is_ok()
            && camber_store::ingest::check_name("class", &c.equip_class).is_ok()
            && camber_store::ingest::units::conversion(&c.role, &c.unit).is_ok()
    });
    proposal.accepted = ok;
    for mut c in refused {
        let why = camber_store::ingest::check_name("equipment", &c.equip)
            .and(camber_store::ingest::check_name("class", &c.equip_class))
            .and(camber_store::ingest::units::conversion(&c.role, &c.unit).map(|_| ()))
            .err()
            .unwrap_or_default();
        c.review = Some(format!("the ingest would refuse it: {why}"));
        proposal.review.push(c);
    }
    let text = if a.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")) {
        camber_map::output::to_csv(&proposal)?
    } else {
        let v = camber_map::output::to_json(&proposal);
        serde_json::to_string_pretty(&v).map_err(|e| format!("the mapping cannot be written: {e}"))? + "\n"
    };
    let tmp = a.out.with_extension("partial");
    std::fs::write(&tmp, text).map_err(|e| format!("the mapping cannot be written ({})", e.kind()))?;
    std::fs::rename(&tmp, &a.out).map_err(|e| format!("the mapping cannot be written ({})", e.kind()))?;
    if export.truncated {
        say(format!("read the first {} rows of the export for the data checks", export.rows));
    }
    out!("{}", camber_map::output::summary(&proposal))?;
    out!(
        "wrote {}: review it, then camber ingest {} --mapping {} ...\n",
        a.out.display(),
        a.export.display(),
        a.out.display()
    )?;
    Ok(0)
}

fn datasets(c: DatasetsCommand) -> Result<i32, Failure> {
    match c {
        DatasetsCommand::List => {
            for d in camber_synth::datasets() {
                out!("{:<28} {:>3} d at {:>2} min  {}", d.id, d.days, d.step_minutes, d.title)?;
            }
            Ok(0)
        }
        DatasetsCommand::Ingest { ids, store, seed, replace, lock_timeout: lt } => {
            let lt = lock_timeout(lt)?;
            for id in ids {
                let t0 = std::time::Instant::now();
                let (fid, outcome, repaired) = camber_store::synthetic::ingest(&store, &id, seed, replace, lt)?;
                for r in repaired {
                    out!("repaired: {r}")?;
                }
                out!(
                    "{id}: ingested {} rows into {fid} in {:.2} s",
                    camber_common::text::thousands(outcome.rows),
                    t0.elapsed().as_secs_f64()
                )?;
            }
            Ok(0)
        }
    }
}

fn demo(store: &Path, src: &Sources) -> Result<i32, Failure> {
    let ids: Vec<&str> = camber_synth::datasets().iter().map(|d| d.id).collect();
    let fids: Vec<String> = ids.iter().map(|d| camber_store::synthetic::facility_id(d)).collect();
    let fresh = !store.exists() || std::fs::read_dir(store).map(|mut d| d.next().is_none()).unwrap_or(false);
    let is_demo = StoreDir::open(store).is_some_and(|s| {
        let reg = s.registry();
        fids.iter().all(|f| reg.entries.contains_key(f))
    });
    if !fresh && !is_demo {
        return Err(
            format!("{} exists and is not a camber demo store; name another with --store", store.display()).into()
        );
    }
    out!("camber demo: writing {} synthetic buildings to {}", ids.len(), store.display())?;
    for id in &ids {
        let t0 = std::time::Instant::now();
        let (fid, outcome, _) =
            camber_store::synthetic::ingest(store, id, None, true, std::time::Duration::from_secs(30))?;
        out!("  {fid}: {} rows in {:.2} s", camber_common::text::thousands(outcome.rows), t0.elapsed().as_secs_f64())?;
    }
    let reg = load_registry(src)?;
    out!("loaded {} capabilities and {} prompts\n", reg.capabilities().count(), reg.prompts().count())?;
    let mut ctx = CallContext::new(store, fids.iter().cloned());
    ctx.caller = "demo".into();
    let allow: String = fids.iter().map(|f| format!(" --allow {f}")).collect();
    let calls = [
        ("facilities", json!({})),
        ("points", json!({"facility_id": fids[0], "equip": "AHU__econ_lockout"})),
        ("points", json!({"facility_id": fids[1], "equip_class": "VAV", "limit": 4})),
        ("coverage", json!({"facility_id": fids[0], "group_by": "equip", "limit": 3})),
        ("dataset_search", json!({"query": "synthetic chilled", "limit": 3})),
        ("rule_run", json!({"facility_id": fids[0], "min_severity": "warn", "limit": 5})),
        (
            "finding_detail",
            json!({"facility_id": fids[0], "finding_id": "leaking_valve@AHU__leaking_cool_valve", "limit": 3}),
        ),
        ("sensor_trust", json!({"facility_id": fids[1], "limit": 3})),
        ("points", json!({"facility_id": fids[0], "equip": "AHU-9"})),
        ("points", json!({"facility_id": "elsewhere"})),
    ];
    for (name, args) in calls {
        out!("$ camber call {name} '{args}' --store {}{allow}", store.display())?;
        match reg.call(name, &args, &ctx) {
            Ok(r) => {
                for b in &r.banners {
                    out!("NOTICE: {b}")?;
                }
                out!("{}", r.text)?;
                out!("  ({} bytes of data: `camber call` prints them whole)\n", r.data.to_string().len())?;
            }
            Err(e) => out!("refused: {}: {}\n", e.code, e.message)?,
        }
    }
    // the answer the product exists to give, for one building, as a page a person opens
    let page =
        store.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).join("camber-demo-report.html");
    out!("$ camber report {} --store {} --out {}", fids[0], store.display(), page.display())?;
    let w = crate::report::write(&reg, &ctx, store, &fids[0], &json!({}), &page)?;
    out!(
        "the RCx report of {} is at {} ({} issue(s), {} evidence chart(s)); the top issues:",
        fids[0],
        page.display(),
        w.issues.len(),
        w.charts
    )?;
    for line in crate::report::summary(&w, 5) {
        out!("{line}")?;
    }
    Ok(0)
}
