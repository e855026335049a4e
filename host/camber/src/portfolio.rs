//! `camber portfolio run`: one shard of a portfolio's nightly RCx run. Every facility of the
//! shard goes through `rcx_report`, `rule_run` and, where its run config has a drift section,
//! `drift`, by the same registry and pipeline as any call (the allowlist is the run's: every
//! active facility unless `--allow` names some); its ranked issues and its warn and fault
//! findings are written as Parquet, and the shard's manifest last (see
//! [`camber_store::portfolio`]).
//! Shards are independent processes: a scheduler's array job runs them, a SQL engine rolls
//! their files up.

use std::time::Instant;

use camber_common::CapError;
use camber_registry::{CallContext, Registry};
use camber_store::portfolio::{
    findings_key, findings_parquet, issues_key, issues_parquet, manifest_key, scheduler_index, shard_of, Out,
};
use serde_json::{json, Value};

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
    pub findings: usize,
    pub seconds: f64,
}

impl Done {
    /// One line for the operator.
    pub fn summary(&self) -> String {
        format!(
            "portfolio run {}: shard {} of {}: {} facilities ({} refused), {} issues and {} findings in {:.2} s ({:.0} facilities a minute)",
            self.run,
            self.shard,
            self.shards,
            self.facilities,
            self.refused,
            self.issues,
            self.findings,
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
    let (mut entries, mut refused, mut issues, mut findings) = (Vec::new(), 0, 0, 0);
    for fid in &mine {
        let t = Instant::now();
        let entry = match facility(reg, ctx, fid, &out, run) {
            Ok(mut e) => {
                issues += e["issues"].as_u64().unwrap_or(0) as usize;
                findings += e["findings"].as_u64().unwrap_or(0) as usize;
                e["seconds"] = json!(t.elapsed().as_secs_f64());
                e
            }
            Err(Refused::Call(call, e)) => {
                refused += 1;
                json!({"facility_id": fid, "status": "refused", "call": call, "code": e.code.as_str(), "message": e.message})
            }
            Err(Refused::Write(why)) => return Err(why),
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
    Ok(Done { run: run.to_string(), shard: index, shards, facilities: mine.len(), refused, issues, findings, seconds })
}

/// Why a facility has no files: a call refused it (the run goes on), or its files cannot be
/// written (the run stops).
enum Refused {
    Call(&'static str, CapError),
    Write(String),
}

/// One facility's calls and files: its manifest entry.
fn facility(reg: &Registry, ctx: &CallContext, fid: &str, out: &Out, run: &str) -> Result<Value, Refused> {
    let report =
        reg.call("rcx_report", &json!({"facility_id": fid}), ctx).map_err(|e| Refused::Call("rcx_report", e))?;
    let args = json!({"facility_id": fid, "min_severity": "warn"});
    let found = every_row(reg, ctx, "rule_run", &args, "findings").map_err(|e| Refused::Call("rule_run", e))?;
    let mut rows: Vec<(&str, &Value)> = found.iter().map(|f| ("rule_run", f)).collect();
    // drift judges against baselines that only a run config's drift section names
    let drift_configured = ctx.run_configs.for_facility(fid).is_some_and(|c| c.parsed.drift.is_some());
    let drifted = if drift_configured {
        every_row(reg, ctx, "drift", &json!({"facility_id": fid}), "findings").map_err(|e| Refused::Call("drift", e))?
    } else {
        Vec::new()
    };
    rows.extend(
        drifted.iter().filter(|f| matches!(f["severity"].as_str(), Some("warn" | "fault"))).map(|f| ("drift", f)),
    );
    let n_issues = report.data["issues"].as_array().map_or(0, Vec::len);
    out.put(&issues_key(fid, run), issues_parquet(fid, run, &report.data).map_err(Refused::Write)?)
        .map_err(Refused::Write)?;
    out.put(&findings_key(fid, run), findings_parquet(fid, run, &rows).map_err(Refused::Write)?)
        .map_err(Refused::Write)?;
    Ok(json!({
        "facility_id": fid, "status": "ok",
        "issues": n_issues, "annual_cost_usd": report.data["kpis"]["annual_cost_usd"], "file": issues_key(fid, run),
        "findings": rows.len(), "findings_file": findings_key(fid, run),
        "drift": if drift_configured { "run" } else { "not configured" },
    }))
}

/// Every row of a capability's paged list `key` (its whole length in `n_<key>`), a page of
/// 1,000 at a time.
fn every_row(reg: &Registry, ctx: &CallContext, cap: &str, args: &Value, key: &str) -> Result<Vec<Value>, CapError> {
    let mut rows = Vec::new();
    loop {
        let mut page_args = args.clone();
        page_args["limit"] = json!(1000);
        page_args["offset"] = json!(rows.len());
        let r = reg.call(cap, &page_args, ctx)?;
        let total = r.data[format!("n_{key}")].as_u64().unwrap_or(0) as usize;
        let page = match r.data.get(key) {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        let got = page.len();
        rows.extend(page);
        if got == 0 || rows.len() >= total {
            return Ok(rows);
        }
    }
}
