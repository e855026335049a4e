//! `camber portfolio run`: one shard of a portfolio's nightly RCx run. Every facility of the
//! shard goes through `rcx_report` by the same registry and pipeline as any call (the allowlist
//! is the run's: every active facility unless `--allow` names some); its ranked issues are
//! written as Parquet, and the shard's manifest last (see [`camber_store::portfolio`]).
//! Shards are independent processes: a scheduler's array job runs them, a SQL engine rolls
//! their files up.

use std::time::Instant;

use camber_registry::{CallContext, Registry};
use camber_store::portfolio::{issues_key, issues_parquet, manifest_key, scheduler_index, shard_of, Out};
use serde_json::json;

/// This process's shard and the shard count: from `--shard I/N`, or from `--shards N` and the
/// scheduler's index.
pub fn shard(given: Option<&str>, shards: Option<u32>) -> Result<(u32, u32), String> {
    let (i, n) = match (given, shards) {
        (Some(s), _) => {
            let (i, n) = s.split_once('/').ok_or("--shard: give it as I/N, say 0/4")?;
            let parse = |v: &str| v.trim().parse::<u32>().map_err(|_| format!("--shard: '{s}' is not I/N"));
            (parse(i)?, parse(n)?)
        }
        (None, Some(n)) => {
            let (_, i) = scheduler_index().ok_or(
                "--shards: no shard index in the environment (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX or SLURM_ARRAY_TASK_ID); give --shard I/N",
            )?;
            (i, n)
        }
        (None, None) => (0, 1),
    };
    if n == 0 || i >= n {
        return Err(format!("--shard: shard {i} of {n} does not exist (shards are numbered from 0)"));
    }
    Ok((i, n))
}

/// What a shard did.
pub struct Done {
    pub run: String,
    pub shard: u32,
    pub shards: u32,
    pub facilities: usize,
    pub refused: usize,
    pub issues: usize,
    pub seconds: f64,
}

impl Done {
    /// One line for the operator.
    pub fn summary(&self) -> String {
        format!(
            "portfolio run {}: shard {} of {}: {} facilities ({} refused), {} issues in {:.2} s ({:.0} facilities a minute)",
            self.run,
            self.shard,
            self.shards,
            self.facilities,
            self.refused,
            self.issues,
            self.seconds,
            self.facilities as f64 / self.seconds.max(1e-9) * 60.0
        )
    }
}

/// Run shard `index` of `shards` of the facilities `ctx` allows, writing to `out`.
pub fn run(reg: &Registry, ctx: &CallContext, index: u32, shards: u32, out: &str, run: &str) -> Result<Done, String> {
    if run.is_empty() || !run.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return Err("--run: use letters, digits, '-', '_' and '.'".into());
    }
    let out = Out::open(out)?;
    let started = camber_common::ids::utc_now();
    let t0 = Instant::now();
    let mine: Vec<&String> = ctx.allowed.iter().filter(|f| shard_of(f, shards) == index).collect();
    let (mut entries, mut refused, mut issues) = (Vec::new(), 0, 0);
    for fid in &mine {
        let t = Instant::now();
        let entry = match reg.call("rcx_report", &json!({"facility_id": fid}), ctx) {
            Ok(r) => {
                let n = r.data["issues"].as_array().map_or(0, Vec::len);
                issues += n;
                out.put(&issues_key(fid, run), issues_parquet(fid, run, &r.data)?)?;
                json!({
                    "facility_id": fid, "status": "ok", "issues": n,
                    "annual_cost_usd": r.data["kpis"]["annual_cost_usd"], "file": issues_key(fid, run),
                    "seconds": t.elapsed().as_secs_f64(),
                })
            }
            Err(e) => {
                refused += 1;
                json!({"facility_id": fid, "status": "refused", "code": e.code.as_str(), "message": e.message})
            }
        };
        entries.push(entry);
    }
    let seconds = t0.elapsed().as_secs_f64();
    let manifest = json!({
        "run": run, "shard": index, "shards": shards, "started": started,
        "finished": camber_common::ids::utc_now(), "seconds": seconds,
        "facilities": entries, "complete": true,
    });
    out.put(&manifest_key(run, index, shards), serde_json::to_vec_pretty(&manifest).unwrap_or_default())?;
    Ok(Done { run: run.to_string(), shard: index, shards, facilities: mine.len(), refused, issues, seconds })
}
