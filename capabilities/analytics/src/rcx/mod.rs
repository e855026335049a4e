//! The RCx report engine: the building's issues ranked, each with its cause, the findings behind
//! it, its cost or why it has none, its hours and a confidence with reasons, as data an
//! assistant cites. Pure and synchronous, like the rest of the crate: the caller runs the rules
//! (and drift, when it has it), hands over the results with each equipment's time axis, and
//! [`build`] answers an [`RcxReport`].
//!
//! How an issue is made:
//!
//! - **Grouping.** The findings at warn or fault (rule_run's, and drift's) are grouped per
//!   equipment along the cause chains of [`chains::CAUSE_CHAINS`], the most upstream rule the
//!   root. A fleet finding judged on one air handler's boxes (`<fleet:AHU-1>`) is grouped on that
//!   air handler. Along the topology, a box symptom (a zone that cannot cool, overcooling and
//!   reheat, a starved box) joins the issue of the air handler the topology says serves it when
//!   that unit's finding is the matching root ([`chains::ZONE_CHAINS`]) and their flagged hours
//!   coincide (either side's overlap at least a quarter of its own time; a side that flagged
//!   nothing joins, "not assessed"); a symptom that leans on a distrusted sensor or does not
//!   coincide stays its own issue and is counted on the link.
//! - **Sensor issues.** A sensor reference that disagrees at warn or fault (the run's
//!   `references`), and a point the trust score calls untrusted or stuck that an actionable
//!   finding reads, are issues of their own; every issue with a member that reads the point is
//!   `conditional_on` it (annotated and ranked after, never removed).
//! - **Hours** are the union of the members' flagged time, each flagged sample standing for its
//!   span on its equipment's axis, gated to when that equipment ran; `pct_runtime` is that share
//!   of the issue equipment's running hours.
//! - **Cost** ([`cost`]) is the largest costed member's estimate, never a sum (member estimates
//!   overlap); an issue with none says what is missing ("uncosted: needs ...").
//! - **Confidence** ([`confidence`]) is the weakest of input trust, mapping, assumptions, sample
//!   and corroboration, with one reason per component.
//! - **Key** ([`key`]): a fingerprint of facility, equipment and root rule.
//! - **Rank**: severity, then unconditional before conditional, costed before uncosted, cost,
//!   confidence (uncosted only), key. A sensor issue that others lean on ranks just above the
//!   first issue conditional on it. Unlike the reference toolkit, which ranks it by its own
//!   severity (so a conditional fault outranks the warn that explains it).
//!
//! The report's fact index ([`facts`]) states each figure once, with ids `K1@summary`,
//! `C1@<issue key>`, ... without the call's token (the host appends it).

pub mod advice;
pub mod chains;
pub mod confidence;
pub mod cost;
pub mod facts;
pub mod key;
pub mod options;
pub mod spans;

#[cfg(test)]
mod tests;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use camber_common::text::name;
use serde::Serialize;

use crate::config::RunConfig;
use crate::drift::run::{DriftFinding, Unevaluated, Window};
use crate::engine::{Finding, Severity};
use crate::run::{ParamUse, RunResult};

pub use confidence::{Confidence, Corroboration, Level};
pub use cost::FaultCost;
pub use options::RcxOptions;
pub use spans::{EquipTimes, Spans};

/// Everything the report is built from.
pub struct RcxInput<'a> {
    pub facility_id: &'a str,
    /// The site's name (the facility's display name).
    pub site: &'a str,
    /// The period the report covers, as the caller shows it (`None`: the first and last
    /// timestamps of `times`).
    pub period: Option<(String, String)>,
    pub run: &'a RunResult,
    /// Drift findings, each on the current window of its family's run.
    pub drift_findings: &'a [DriftFinding],
    pub drift_unevaluated: &'a [Unevaluated],
    /// The window the drift findings judged (their flagged indices index each equipment's
    /// samples inside it).
    pub drift_window: Window,
    /// equipment -> its frame's time axis and run gate ([`EquipTimes::of`]).
    pub times: &'a BTreeMap<String, EquipTimes>,
    pub config: &'a RunConfig,
    pub options: &'a RcxOptions,
    /// A benchmark's scores per rule, for the corroboration component (`None`: not assessed).
    pub corroboration: Option<&'a BTreeMap<String, Corroboration>>,
}

impl<'a> RcxInput<'a> {
    /// An input with no drift and no corroboration scores.
    pub fn new(
        facility_id: &'a str,
        site: &'a str,
        run: &'a RunResult,
        times: &'a BTreeMap<String, EquipTimes>,
        config: &'a RunConfig,
        options: &'a RcxOptions,
    ) -> RcxInput<'a> {
        RcxInput {
            facility_id,
            site,
            period: None,
            run,
            drift_findings: &[],
            drift_unevaluated: &[],
            drift_window: (None, None),
            times,
            config,
            options,
            corroboration: None,
        }
    }
}

/// The report's headline figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Kpis {
    /// The costed, unconditional issues' total ($/yr; issues add, a chain counts once); `None`
    /// when none is costed.
    pub annual_cost_usd: Option<f64>,
    pub n_costed: usize,
    /// The costed conditional issues' total: at risk until a sensor is fixed (`None`: none).
    pub at_risk_usd: Option<f64>,
    pub n_issues: usize,
    pub n_uncosted: usize,
    pub n_conditional: usize,
    /// Costed issues whose verdict stands but whose cost reads a distrusted input (always 0
    /// here: this engine's rules declare no cost-only inputs; kept for the reference's shape).
    pub n_cost_conditional: usize,
    /// The mean coverage of the points the run's rules read (%, `None`: no point scored).
    pub coverage_pct: Option<f64>,
    /// Checks the trust floor declined.
    pub n_declined: usize,
}

/// One member finding's cost, as the issue page lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemberCost {
    pub finding_id: String,
    pub rule: String,
    pub equip: String,
    /// `None`: uncosted (`basis` says why).
    pub annual_cost_usd: Option<f64>,
    pub basis: String,
}

/// An air handler -> box chain on an issue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ZoneLink {
    pub chain: String,
    pub ahu: String,
    pub cause: String,
    pub symptom: String,
    pub root_rule: String,
    /// The boxes whose findings joined the issue.
    pub boxes: Vec<String>,
    /// Every box the topology lists under the air handler.
    pub served: Vec<String>,
    pub rules: Vec<String>,
    /// Boxes joined without a same-hours check (one side flagged nothing).
    pub not_assessed: Vec<String>,
    /// Matching boxes kept as their own issues: not in the same hours, or leaning on a sensor.
    pub out_of_hours: Vec<String>,
    pub conditional: Vec<String>,
}

/// The sensor comparison or trust score behind a sensor issue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SensorSource {
    /// "reference" (a reference instrument disagrees) or "trust" (the trust score).
    pub kind: String,
    pub equip: String,
    pub role: String,
    /// The reference equipment and label (`None` for a trust problem).
    pub reference: Option<String>,
    pub label: Option<String>,
    pub bias: Option<f64>,
    pub trust: Option<f64>,
    pub samples: usize,
}

/// One ranked issue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Issue {
    /// The issue's stable key ([`key::issue_key`]); its facts' context.
    pub key: String,
    pub rank: usize,
    pub title: String,
    /// What the root finding says the cause is (empty when the table has no cause for the rule).
    pub cause: String,
    pub equip: String,
    pub severity: Severity,
    pub root_rule: String,
    /// The members' rules, root first.
    pub rules: Vec<String>,
    /// The members' finding ids (rule_run's `<rule>@<equip>`, drift's `<family>:<detector>@<equip>`),
    /// root first; empty for a sensor issue.
    pub finding_ids: Vec<String>,
    /// The same-equipment chain (`sat`, `econ`, `hw_lockout`, `static`), when the root is in one.
    pub chain: Option<String>,
    pub annual_cost_usd: Option<f64>,
    /// How the cost was taken, or why there is none ("uncosted: needs ...").
    pub cost_basis_note: String,
    /// Costed and conditional: the dollars wait on a sensor fix.
    pub cost_at_risk: bool,
    pub member_costs: Vec<MemberCost>,
    /// The union of the members' flagged time, gated to running (h); `None`: not measured.
    pub hours: Option<f64>,
    /// The issue equipment's running hours (the share's denominator).
    pub running_hours: Option<f64>,
    pub pct_runtime: Option<f64>,
    /// What the running hours were read from.
    pub gate: String,
    pub confidence: Level,
    pub confidence_components: BTreeMap<String, Level>,
    /// One reason per confidence component, then the chain lines.
    pub why: Vec<String>,
    /// The sensor issues this one leans on (their labels) and their keys.
    pub conditional_on: Vec<String>,
    pub conditional_on_keys: Vec<String>,
    /// A sensor issue's source; `None` for another issue.
    pub sensor: Option<SensorSource>,
    /// On a sensor issue: the finding ids conditional on it.
    pub dependents: Vec<String>,
    pub zone_chains: Vec<ZoneLink>,
    /// The packaged fix (empty: the engineer specifies it).
    pub action: String,
    /// The fact id that cites this issue (`I1@<key>`).
    pub fact: String,
}

/// A section of the printed report, in page order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Section {
    pub id: String,
    pub title: String,
}

/// A citable statement of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact {
    /// `<prefix><n>@<context>`: `K1@summary`, `X2@appA`, `A3@appB`, `C1@<issue key>`.
    pub id: String,
    pub kind: String,
    pub equip: String,
    pub text: String,
}

/// An entry of appendix A: a declined check or a data gap.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppendixEntry {
    /// "decline", "missing", "unevaluated" or "chain_gap".
    pub kind: String,
    pub rule: String,
    pub equip: String,
    pub text: String,
    /// The fact that states it.
    pub fact: String,
}

/// The report as data.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RcxReport {
    pub facility_id: String,
    pub title: String,
    pub site: String,
    /// First and last timestamps (`YYYY-MM-DD HH:MM:SS`).
    pub period: Vec<String>,
    /// How many issues the executive summary lists (all are ranked in `issues`).
    pub top_n: usize,
    pub kpis: Kpis,
    pub issues: Vec<Issue>,
    pub sections: Vec<Section>,
    pub fact_index: Vec<Fact>,
    pub appendix: Vec<AppendixEntry>,
}

/// A finding as the grouping sees it: a rule_run or a drift finding.
struct Item<'a> {
    id: String,
    rule: String,
    /// The equipment the finding names (`<fleet:AHU-1>` for a fleet finding).
    equip: String,
    /// The equipment it is grouped on (a grouped fleet finding's air handler).
    home: String,
    finding: &'a Finding,
    params: &'a [ParamUse],
    /// The roles its rule reads.
    reads: Vec<&'static str>,
    /// The run's units it judged (a fleet finding's members; else its equipment).
    units: Vec<String>,
    /// Its flagged time, gated; `None` when its axis is unknown.
    spans: Option<Spans>,
    /// The finding flagged any sample.
    flagged_any: bool,
    /// The references at warn or fault on a point it reads, as the run matched them:
    /// (equipment, role).
    refs: Vec<(String, String)>,
    /// The sensor causes it leans on (indices).
    causes: BTreeSet<usize>,
    cost: FaultCost,
    drift: bool,
    fleet: bool,
}

/// A reason to distrust one point.
struct Cause {
    source: SensorSource,
    rule: String,
    severity: Severity,
    label: String,
    samples: usize,
}

fn iso_space(ns: i64) -> String {
    camber_common::time::iso_from_ns(ns).replacen('T', " ", 1)
}

/// The spans of a fleet finding on its members' merged axis (ungated: a fleet has no one run
/// signal).
fn fleet_spans(times: &BTreeMap<String, EquipTimes>, members: &[String], flagged: &[u32]) -> Option<Spans> {
    let axis = crate::fleet::union_of(members.iter().filter_map(|m| times.get(m)).map(|t| t.ts.as_slice()));
    if axis.is_empty() {
        return None;
    }
    Some(EquipTimes::ungated(axis).spans(flagged, false))
}

/// An axis restricted to a window.
fn windowed(t: &EquipTimes, w: Window) -> EquipTimes {
    let keep: Vec<usize> =
        (0..t.ts.len()).filter(|&i| w.0.is_none_or(|a| t.ts[i] >= a) && w.1.is_none_or(|b| t.ts[i] <= b)).collect();
    EquipTimes {
        ts: keep.iter().map(|&i| t.ts[i]).collect(),
        running: t.running.as_ref().map(|r| keep.iter().map(|&i| r.get(i).copied().unwrap_or(false)).collect()),
        gate: t.gate.clone(),
    }
}

/// Whether a supply-air reset compliance finding ran on the site's own map (any of the map's
/// parameters set by the config or the call).
fn configured_map(params: &[ParamUse]) -> bool {
    params.iter().any(|p| {
        ["min_clg_sat", "t_max", "oat_min", "oat_max"].contains(&p.name) && matches!(p.source, "config" | "call")
    })
}

fn flagged_share(f: &Finding) -> Option<f64> {
    (f.judged > 0).then(|| (f.flagged.len() as f64 / f.judged as f64).min(1.0))
}

fn rule_reads(rule: &str) -> Vec<&'static str> {
    crate::rules::find(rule).map(|(_, s)| s.inputs.roles()).unwrap_or_default()
}

/// The root rule's gating inputs (its required inputs and the members of its one-of groups),
/// whose trust the confidence reads.
fn verdict_roles(rule: &str) -> Vec<&'static str> {
    match crate::rules::find(rule) {
        Some((_, s)) => {
            s.inputs.required.iter().chain(s.inputs.one_of.iter().flat_map(|g| g.iter())).copied().collect()
        }
        None => Vec::new(),
    }
}

/// The equipment serving `unit` nearest up the topology that `pick` accepts.
fn serving(config: &RunConfig, unit: &str, known: &[&str], pick: &dyn Fn(&str) -> bool) -> Option<String> {
    let t = config.topology.as_ref()?;
    let mut at = unit.to_string();
    for _ in 0..8 {
        let p = t.parent_of(&at, known)?;
        if pick(&p) {
            return Some(p);
        }
        if p == at {
            return None;
        }
        at = p;
    }
    None
}

fn seen<'b>(it: &'b Item) -> chains::Seen<'b> {
    chains::Seen { rule: &it.rule, finding: it.finding, params: it.params }
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Build the report.
pub fn build(input: &RcxInput) -> RcxReport {
    let o = input.options;
    let run = input.run;
    let known: Vec<&str> = input.times.keys().map(String::as_str).collect();

    // ---- the findings at warn or fault, as items
    let mut items: Vec<Item> = Vec::new();
    for rf in run.findings.iter().filter(|f| f.finding.severity >= Severity::Warn && f.declined.is_empty()) {
        let fleet = rf.is_fleet();
        let home = match (&rf.group, fleet) {
            (Some(g), true) if input.times.contains_key(g) => g.clone(),
            _ => rf.equip.clone(),
        };
        let spans = if fleet {
            fleet_spans(input.times, &rf.members, &rf.finding.flagged)
        } else {
            input.times.get(&rf.equip).map(|t| t.spans(&rf.finding.flagged, true))
        };
        let load_equip = if fleet { rf.group.clone().unwrap_or_else(|| "<fleet>".into()) } else { rf.equip.clone() };
        let grouped = fleet && rf.group.as_ref().is_some_and(|g| input.times.contains_key(g));
        let cost = cost::estimate(
            &cost::CostInput {
                rule: rf.finding.rule,
                equip: &load_equip,
                metrics: &rf.finding.metrics,
                grouped,
                flagged_share: flagged_share(&rf.finding),
                configured_target: configured_map(&rf.params),
            },
            o,
        );
        items.push(Item {
            id: rf.id.clone(),
            rule: rf.finding.rule.to_string(),
            equip: rf.equip.clone(),
            home,
            finding: &rf.finding,
            params: &rf.params,
            reads: rule_reads(rf.finding.rule),
            units: if fleet { rf.members.clone() } else { vec![rf.equip.clone()] },
            spans,
            flagged_any: !rf.finding.flagged.is_empty(),
            refs: rf.conditional_on.iter().map(|x| (x.equip.clone(), x.role.clone())).collect(),
            causes: BTreeSet::new(),
            cost,
            drift: false,
            fleet,
        });
    }
    for df in input.drift_findings.iter().filter(|f| f.finding.severity >= Severity::Warn && f.declined.is_empty()) {
        let rule = format!("{}:{}", df.family, df.detector);
        let spans =
            input.times.get(&df.equip).map(|t| windowed(t, input.drift_window).spans(&df.finding.flagged, true));
        let cost = cost::estimate(
            &cost::CostInput {
                rule: &rule,
                equip: &df.equip,
                metrics: &df.finding.metrics,
                grouped: false,
                flagged_share: flagged_share(&df.finding),
                configured_target: false,
            },
            o,
        );
        items.push(Item {
            id: df.id.clone(),
            reads: crate::drift::spec(&df.detector).map(|s| s.inputs.roles()).unwrap_or_default(),
            rule,
            equip: df.equip.clone(),
            home: df.equip.clone(),
            finding: &df.finding,
            params: &[],
            units: vec![df.equip.clone()],
            spans,
            flagged_any: !df.finding.flagged.is_empty(),
            refs: Vec::new(),
            causes: BTreeSet::new(),
            cost,
            drift: true,
            fleet: false,
        });
    }

    // ---- sensor causes: references that disagree, points the trust score distrusts
    let mut causes: Vec<Cause> = Vec::new();
    for r in &run.references {
        let Some(c) = r.comparison.as_ref().filter(|c| c.severity >= Severity::Warn) else { continue };
        let rule = format!("sensor_drift:{}", r.role);
        let sev = if c.severity == Severity::Fault { "fault" } else { "warn" };
        // a label is text: the names in it come from the data and the config
        let label = format!(
            "sensor_drift:{} {sev} ({} {} reads {:+.1} against the {} {}, RMSE {:.1}, over {} samples) on {}",
            facts::role_word(&r.role),
            name(&r.equip),
            facts::role_word(&r.role),
            c.bias,
            name(&r.label),
            name(&r.reference),
            c.rmse,
            c.samples,
            name(&r.equip)
        );
        let idx = causes.len();
        for it in items.iter_mut() {
            let conditional = it.refs.iter().any(|(e, role)| *e == r.equip && *role == r.role);
            let drift_reads = it.drift && it.equip == r.equip && it.reads.contains(&r.role.as_str());
            if conditional || drift_reads {
                it.causes.insert(idx);
            }
        }
        causes.push(Cause {
            source: SensorSource {
                kind: "reference".into(),
                equip: r.equip.clone(),
                role: r.role.clone(),
                reference: Some(r.reference.clone()),
                label: Some(r.label.clone()),
                bias: Some(c.bias),
                trust: None,
                samples: c.samples,
            },
            rule,
            severity: c.severity,
            label,
            samples: c.samples,
        });
    }
    for (equip, roles) in &run.trust {
        for (role, t) in roles {
            let stuck = t.flags.contains(&"stuck");
            if t.verdict != "untrusted" && !stuck {
                continue;
            }
            let tainted: Vec<usize> = items
                .iter()
                .enumerate()
                .filter(|(_, it)| it.units.contains(equip) && it.reads.contains(&role.as_str()))
                .map(|(i, _)| i)
                .collect();
            if tainted.is_empty() {
                continue;
            }
            let idx = causes.len();
            for i in tainted {
                items[i].causes.insert(idx);
            }
            let why = if stuck { "stuck" } else { "untrusted" };
            causes.push(Cause {
                source: SensorSource {
                    kind: "trust".into(),
                    equip: equip.clone(),
                    role: role.clone(),
                    reference: None,
                    label: None,
                    bias: None,
                    trust: Some(t.score),
                    samples: t.samples,
                },
                rule: format!("sensor_trust:{role}"),
                severity: Severity::Warn,
                label: format!(
                    "sensor_trust:{} {why} (trust {:.2}) on {}",
                    facts::role_word(role),
                    t.score,
                    name(equip)
                ),
                samples: t.samples,
            });
        }
    }

    // ---- buckets along the same-equipment chains
    let bucket_of = |it: &Item| -> (String, String) {
        match chains::chain_of(&it.rule) {
            Some((c, _)) => (it.home.clone(), c.to_string()),
            None => (it.home.clone(), format!("solo:{}", it.rule)),
        }
    };
    let mut bucket: Vec<(String, String)> = items.iter().map(bucket_of).collect();
    let mut moved = vec![false; items.len()];

    // ---- air handler -> box chains
    let mut links: BTreeMap<(usize, &str), ZoneLink> = BTreeMap::new();
    let mut gaps: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    // per chain: air handler -> its root item
    let roots: Vec<BTreeMap<String, usize>> = chains::ZONE_CHAINS
        .iter()
        .map(|zc| {
            let mut per: BTreeMap<String, usize> = BTreeMap::new();
            for (i, it) in items.iter().enumerate() {
                if it.fleet || it.drift || !it.causes.is_empty() || !(zc.is_root)(&seen(it)) {
                    continue;
                }
                let better = per.get(&it.equip).is_none_or(|&j| {
                    let (a, b) = (&items[j], it);
                    (Reverse(b.finding.severity), &b.rule) < (Reverse(a.finding.severity), &a.rule)
                });
                if better {
                    per.insert(it.equip.clone(), i);
                }
            }
            per
        })
        .collect();
    let root_ids: BTreeSet<usize> = roots.iter().flat_map(|p| p.values().copied()).collect();
    let running_of = |equip: &str| input.times.get(equip).and_then(|t| t.running.clone());
    for i in 0..items.len() {
        let it = &items[i];
        if it.fleet || it.drift || root_ids.contains(&i) {
            continue;
        }
        let mut pending: Vec<((usize, &str), bool)> = Vec::new(); // (link, conditional?) misses
        let mut joined = false;
        for (zc, per) in chains::ZONE_CHAINS.iter().zip(&roots) {
            if per.is_empty() || !(zc.is_symptom)(&seen(it)) || per.contains_key(&it.equip) {
                continue;
            }
            if config_lacks_parent(input.config, &it.equip, &known) {
                gaps.entry(it.equip.clone()).or_default().insert(zc.cause);
                continue;
            }
            let Some(ahu) = serving(input.config, &it.equip, &known, &|p| per.contains_key(p)) else { continue };
            let r = per[&ahu];
            let link = (r, zc.id);
            links.entry(link).or_insert_with(|| new_link(zc, &ahu, &items[r].rule, input.config, &known));
            if !it.causes.is_empty() {
                pending.push((link, true));
                continue;
            }
            // the root's hours: a G36 root on its own fault condition's samples
            let root = &items[r];
            let root_spans = match zc.fc {
                Some(fc) if root.rule == "g36_afdd" => root
                    .finding
                    .conditions
                    .iter()
                    .find(|c| c.name == fc)
                    .and_then(|c| input.times.get(&root.equip).map(|t| t.spans(&c.flagged, true))),
                _ => root.spans.clone(),
            };
            let box_spans = it.spans.clone().map(|s| gate_to(s, input.times.get(&ahu), running_of(&ahu).is_some()));
            let coincide = match (root_spans.filter(|s| !s.is_empty()), box_spans.filter(|s| !s.is_empty())) {
                (Some(a), Some(b)) => {
                    let both = a.overlap_ns(&b) as f64;
                    Some(both / (b.total_ns() as f64) >= 0.25 || both / (a.total_ns() as f64) >= 0.25)
                }
                _ => None,
            };
            if coincide == Some(false) {
                pending.push((link, false));
                continue;
            }
            let l = links.get_mut(&link).expect("inserted above");
            l.boxes.push(it.equip.clone());
            l.rules.push(it.rule.clone());
            if coincide.is_none() {
                l.not_assessed.push(it.equip.clone());
            }
            bucket[i] = bucket[r].clone();
            moved[i] = true;
            joined = true;
            break;
        }
        if !joined {
            for (link, conditional) in pending {
                let l = links.get_mut(&link).expect("inserted above");
                if conditional {
                    l.conditional.push(items[i].equip.clone());
                } else {
                    l.out_of_hours.push(items[i].equip.clone());
                }
            }
        }
    }
    for l in links.values_mut() {
        for v in [&mut l.boxes, &mut l.rules, &mut l.not_assessed, &mut l.out_of_hours, &mut l.conditional] {
            v.sort();
            v.dedup();
        }
    }

    // ---- issues from the buckets
    let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, b) in bucket.iter().enumerate() {
        groups.entry(b.clone()).or_default().push(i);
    }
    let pos = |it: &Item| chains::chain_of(&it.rule).map_or(0, |(_, p)| p);
    let mut issues: Vec<Issue> = Vec::new();
    let mut issue_causes: Vec<BTreeSet<usize>> = Vec::new();
    for ((equip, chain), mut members) in groups {
        members.sort_by(|&a, &b| {
            let (x, y) = (&items[a], &items[b]);
            (moved[a], if moved[a] { x.equip.clone() } else { String::new() }, pos(x), &x.rule, &x.id).cmp(&(
                moved[b],
                if moved[b] { y.equip.clone() } else { String::new() },
                pos(y),
                &y.rule,
                &y.id,
            ))
        });
        let root = &items[members[0]];
        let severity = members.iter().map(|&m| items[m].finding.severity).max().unwrap_or(Severity::Warn);
        let key = key::issue_key(input.facility_id, &equip, &root.rule);
        let cset: BTreeSet<usize> = members.iter().flat_map(|&m| items[m].causes.iter().copied()).collect();
        // hours
        let mut union: Option<Spans> = None;
        for &m in &members {
            if let (Some(s), true) = (&items[m].spans, items[m].flagged_any) {
                union = Some(union.map_or_else(|| s.clone(), |u| u.union(s)));
            }
        }
        let hours = union.map(|u| r2(u.hours()));
        let eq_times = input.times.get(&equip);
        let running_hours = eq_times.and_then(EquipTimes::running_hours).map(r2);
        let pct_runtime = match (hours, running_hours) {
            (Some(h), Some(r)) if r > 0.0 => Some((1000.0 * h / r).round() / 10.0),
            _ => None,
        };
        let gate = eq_times.map_or_else(|| "none".to_string(), |t| t.gate.clone());
        // cost: the largest costed member, never a sum
        let member_costs: Vec<MemberCost> = members
            .iter()
            .map(|&m| {
                let it = &items[m];
                MemberCost {
                    finding_id: it.id.clone(),
                    rule: it.rule.clone(),
                    equip: it.equip.clone(),
                    annual_cost_usd: it.cost.costed.then_some(it.cost.annual_cost_usd),
                    basis: it.cost.basis.clone(),
                }
            })
            .collect();
        let costed: Vec<&Item> = members.iter().map(|&m| &items[m]).filter(|it| it.cost.costed).collect();
        let best = costed
            .iter()
            .max_by(|a, b| a.cost.annual_cost_usd.total_cmp(&b.cost.annual_cost_usd).then_with(|| b.id.cmp(&a.id)));
        let (annual_cost_usd, cost_basis_note) = match best {
            Some(b) => {
                let note = format!("{} ({} on {})", b.cost.basis, b.rule, b.equip);
                let note = if costed.len() > 1 {
                    format!("member estimates overlap; the largest is shown: {note}")
                } else {
                    note
                };
                (Some(b.cost.annual_cost_usd), note)
            }
            None => {
                // the first member that names a missing input, else the root's reason
                let why = members
                    .iter()
                    .map(|&m| &items[m])
                    .find(|it| it.cost.basis.starts_with("needs "))
                    .map(|it| {
                        if it.rule == root.rule && it.equip == root.equip {
                            it.cost.basis.clone()
                        } else {
                            format!("{} for {} on {}", it.cost.basis, it.rule, name(&it.equip))
                        }
                    })
                    .unwrap_or_else(|| root.cost.basis.clone());
                (None, cost::uncosted_note(&why))
            }
        };
        let (title, cause, action) = advice::advice(&root.rule, root.finding);
        let zone_chains: Vec<ZoneLink> = links
            .iter()
            .filter(|((r, _), l)| {
                members.contains(r) && (!l.boxes.is_empty() || !l.conditional.is_empty() || !l.out_of_hours.is_empty())
            })
            .map(|(_, l)| l.clone())
            .collect();
        let rules: Vec<String> = members.iter().map(|&m| items[m].rule.clone()).collect();
        let finding_ids: Vec<String> = members.iter().map(|&m| items[m].id.clone()).collect();
        let chain = (!chain.starts_with("solo:")).then_some(chain);
        let conditional_on: Vec<String> = cset.iter().map(|&c| causes[c].label.clone()).collect();
        // confidence
        let trust_map = run.trust.get(&root.equip);
        let vroles = if root.drift { root.reads.clone() } else { verdict_roles(&root.rule) };
        let trust: BTreeMap<&str, &crate::trust::Trust> =
            vroles.iter().filter_map(|r| trust_map.and_then(|m| m.get(*r)).map(|t| (*r, t))).collect();
        let configured: Vec<String> = root
            .params
            .iter()
            .filter(|p| matches!(p.source, "config" | "call") || p.source.starts_with("config ("))
            .map(|p| format!("{} = {}", p.name, p.value.to_json()))
            .collect();
        let assumptions = if root.drift {
            (Level::M, "a fitted baseline and the detector's default thresholds".to_string())
        } else if configured.is_empty() {
            (Level::M, "rule defaults; no site parameters configured".to_string())
        } else {
            (Level::H, format!("site-configured parameters {}", configured.join(", ")))
        };
        let samples = sample_count(root.finding);
        let conf = confidence::grade(&confidence::Evidence {
            rule: &root.rule,
            conditional_on: &conditional_on,
            trust,
            mapping: mapping(o),
            assumptions,
            samples,
            corroboration: input.corroboration.and_then(|c| c.get(&root.rule)),
        });
        let mut why = conf.why.clone();
        if let Some(c) = &chain {
            let own: Vec<&str> = members.iter().filter(|&&m| !moved[m]).map(|&m| items[m].rule.as_str()).collect();
            if own.len() > 1 {
                why.push(format!(
                    "Cause chain {c} on {}: {} is the most upstream finding; {} follow from it (hours are their union, the cost the largest member)",
                    name(&equip),
                    own[0],
                    own[1..].join(", ")
                ));
            }
        }
        for z in &zone_chains {
            if !z.boxes.is_empty() {
                let mut line = format!(
                    "Cause chain (topology): {} at {} is the likely cause of {} on {} ({}); those box findings are members of this issue",
                    z.cause,
                    name(&z.ahu),
                    z.symptom,
                    count_boxes(z),
                    z.rules.join(", ")
                );
                if !z.not_assessed.is_empty() {
                    line.push_str(&format!("; same-hours overlap not assessed for {}", z.not_assessed.len()));
                }
                why.push(line);
            }
            if !z.out_of_hours.is_empty() || !z.conditional.is_empty() {
                why.push(format!(
                    "Served boxes with a matching finding kept as their own issues: {} not in the same hours, {} conditional on a sensor",
                    z.out_of_hours.len(),
                    z.conditional.len()
                ));
            }
        }
        issues.push(Issue {
            key,
            rank: 0,
            title,
            cause,
            equip,
            severity,
            root_rule: root.rule.clone(),
            rules,
            finding_ids,
            chain,
            annual_cost_usd,
            cost_basis_note,
            cost_at_risk: annual_cost_usd.is_some() && !cset.is_empty(),
            member_costs,
            hours,
            running_hours,
            pct_runtime,
            gate,
            confidence: conf.level,
            confidence_components: conf.components,
            why,
            conditional_on,
            conditional_on_keys: Vec::new(),
            sensor: None,
            dependents: Vec::new(),
            zone_chains,
            action,
            fact: String::new(),
        });
        issue_causes.push(cset);
    }

    // ---- the sensor issues
    let mut sensor_keys: Vec<String> = Vec::new();
    for (ci, c) in causes.iter().enumerate() {
        let key = key::issue_key(input.facility_id, &c.source.equip, &c.rule);
        sensor_keys.push(key.clone());
        let dependents: Vec<String> =
            items.iter().filter(|it| it.causes.contains(&ci)).map(|it| it.id.clone()).collect();
        let (title, cause, action) = advice::advice(&c.rule, &Finding::of("", "", c.severity, ""));
        let assumptions = if c.source.kind == "reference" {
            (Level::M, "the reference series and the default bias thresholds".to_string())
        } else {
            (Level::M, "the trust score's default thresholds".to_string())
        };
        let conf = confidence::grade(&confidence::Evidence {
            rule: &c.rule,
            conditional_on: &[],
            trust: BTreeMap::new(),
            mapping: mapping(o),
            assumptions,
            samples: Some(c.samples),
            corroboration: input.corroboration.and_then(|m| m.get(&c.rule)),
        });
        let eq_times = input.times.get(&c.source.equip);
        issues.push(Issue {
            key,
            rank: 0,
            title,
            cause,
            equip: c.source.equip.clone(),
            severity: c.severity,
            root_rule: c.rule.clone(),
            rules: vec![c.rule.clone()],
            finding_ids: Vec::new(),
            chain: None,
            annual_cost_usd: None,
            cost_basis_note: cost::uncosted_note(
                "a sensor problem has no energy model; the issues that lean on it carry the dollars",
            ),
            cost_at_risk: false,
            member_costs: Vec::new(),
            hours: None,
            running_hours: eq_times.and_then(EquipTimes::running_hours).map(r2),
            pct_runtime: None,
            gate: eq_times.map_or_else(|| "none".to_string(), |t| t.gate.clone()),
            confidence: conf.level,
            confidence_components: conf.components,
            why: conf.why,
            conditional_on: Vec::new(),
            conditional_on_keys: Vec::new(),
            sensor: Some(c.source.clone()),
            dependents,
            zone_chains: Vec::new(),
            action,
            fact: String::new(),
        });
        issue_causes.push(BTreeSet::new());
    }
    for (iss, cs) in issues.iter_mut().zip(&issue_causes) {
        iss.conditional_on_keys = cs.iter().map(|&c| sensor_keys[c].clone()).collect();
    }

    // ---- rank
    let order = rank(&issues);
    let mut ranked: Vec<Issue> = Vec::with_capacity(issues.len());
    for (n, i) in order.into_iter().enumerate() {
        let mut iss = issues[i].clone();
        iss.rank = n + 1;
        iss.fact = format!("I1@{}", iss.key);
        ranked.push(iss);
    }

    // ---- KPIs
    let firm: Vec<&Issue> = ranked.iter().filter(|i| i.annual_cost_usd.is_some() && !i.cost_at_risk).collect();
    let at_risk: f64 = ranked.iter().filter(|i| i.cost_at_risk).filter_map(|i| i.annual_cost_usd).sum();
    let covs: Vec<f64> =
        run.trust.values().flat_map(|m| m.values().map(|t| t.coverage)).filter(|c| c.is_finite()).collect();
    let n_declined = run.declined() + input.drift_findings.iter().filter(|f| !f.declined.is_empty()).count();
    let kpis = Kpis {
        annual_cost_usd: (!firm.is_empty()).then(|| r2(firm.iter().filter_map(|i| i.annual_cost_usd).sum())),
        n_costed: firm.len(),
        at_risk_usd: (at_risk > 0.0).then(|| r2(at_risk)),
        n_issues: ranked.len(),
        n_uncosted: ranked.iter().filter(|i| i.annual_cost_usd.is_none()).count(),
        n_conditional: ranked.iter().filter(|i| !i.conditional_on.is_empty()).count(),
        n_cost_conditional: 0,
        coverage_pct: (!covs.is_empty())
            .then(|| (1000.0 * covs.iter().sum::<f64>() / covs.len() as f64).round() / 10.0),
        n_declined,
    };

    // ---- period, title, sections
    let period = match &input.period {
        Some((a, b)) => vec![a.clone(), b.clone()],
        None => {
            let lo = input.times.values().filter_map(|t| t.ts.first().copied()).min();
            let hi = input.times.values().filter_map(|t| t.ts.last().copied()).max();
            match (lo, hi) {
                (Some(a), Some(b)) => vec![iso_space(a), iso_space(b)],
                _ => Vec::new(),
            }
        }
    };
    let title = if o.title.is_empty() {
        format!("Retro-commissioning report — {}", if input.site.is_empty() { "site" } else { input.site })
    } else {
        o.title.clone()
    };
    let sections = sections(input, &ranked);
    let (fact_index, appendix) = facts::index(input, &kpis, &ranked, &gaps);
    RcxReport {
        facility_id: input.facility_id.to_string(),
        title,
        site: input.site.to_string(),
        period,
        top_n: o.top_n,
        kpis,
        issues: ranked,
        sections,
        fact_index,
        appendix,
    }
}

/// A box's spans gated to its air handler's running (when the air handler has a run signal):
/// the reference reads both sides of a chain on the air handler's gate.
fn gate_to(s: Spans, ahu: Option<&EquipTimes>, has_gate: bool) -> Spans {
    let Some(t) = ahu.filter(|_| has_gate) else { return s };
    let run = t.running.as_ref().expect("has_gate");
    let idx: Vec<u32> = (0..t.ts.len()).filter(|&i| run[i]).map(|i| i as u32).collect();
    let on = t.spans(&idx, false);
    // the running part of `s`: intersect span by span
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < s.0.len() && j < on.0.len() {
        let (a, b) = (s.0[i], on.0[j]);
        let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
        if hi > lo {
            out.push((lo, hi));
        }
        if a.1 <= b.1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    Spans(out)
}

fn config_lacks_parent(config: &RunConfig, unit: &str, known: &[&str]) -> bool {
    config.topology.as_ref().is_none_or(|t| t.parent_of(unit, known).is_none())
}

fn new_link(zc: &chains::ZoneChain, ahu: &str, root_rule: &str, config: &RunConfig, known: &[&str]) -> ZoneLink {
    let served: Vec<String> = match &config.topology {
        Some(t) => {
            let mut s: Vec<String> = known
                .iter()
                .filter(|k| **k != ahu && t.parent_of(k, known).as_deref() == Some(ahu))
                .map(|k| k.to_string())
                .collect();
            s.sort();
            s
        }
        None => Vec::new(),
    };
    ZoneLink {
        chain: zc.id.into(),
        ahu: ahu.into(),
        cause: zc.cause.into(),
        symptom: zc.symptom.into(),
        root_rule: root_rule.into(),
        boxes: Vec::new(),
        served,
        rules: Vec::new(),
        not_assessed: Vec::new(),
        out_of_hours: Vec::new(),
        conditional: Vec::new(),
    }
}

/// "2 of 6 boxes" ("3 boxes" when the topology lists none under the air handler).
pub fn count_boxes(z: &ZoneLink) -> String {
    let (n, of) = (z.boxes.len(), z.served.len());
    let noun = if (if of > 0 { of } else { n }) == 1 { "box" } else { "boxes" };
    if of > 0 {
        format!("{n} of {of} {noun}")
    } else {
        format!("{n} {noun}")
    }
}

/// How the points were mapped to roles: recorded at ingest for a store, else the config's map.
fn mapping(o: &RcxOptions) -> (Level, String) {
    if o.source_kind == "store" || o.source_kind.is_empty() {
        (Level::H, "roles recorded at ingest by the dataset adapter".into())
    } else {
        (Level::M, "tag-to-role mapping from the config; not independently verified".into())
    }
}

/// The samples a finding judged: the engine's count, else a count its metrics report.
fn sample_count(f: &Finding) -> Option<usize> {
    if f.judged > 0 {
        return Some(f.judged);
    }
    ["n", "n_valid", "n_considered", "n_above_limit", "n_cooling", "n_checked", "judged_samples"]
        .iter()
        .find_map(|k| f.metrics.get(*k).copied().filter(|x| x.is_finite() && *x >= 0.0))
        .map(|x| x as usize)
}

/// The rank order (indices into `issues`): severity, unconditional first, costed first, cost,
/// confidence (uncosted only), key; then each sensor issue others lean on moved to just above
/// the first issue conditional on it.
fn rank(issues: &[Issue]) -> Vec<usize> {
    let conf_rank = |i: &Issue| match i.confidence {
        Level::H => 0,
        Level::M => 1,
        Level::L => 2,
    };
    let mut order: Vec<usize> = (0..issues.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&issues[a], &issues[b]);
        (Reverse(x.severity), !x.conditional_on.is_empty(), x.annual_cost_usd.is_none())
            .cmp(&(Reverse(y.severity), !y.conditional_on.is_empty(), y.annual_cost_usd.is_none()))
            .then_with(|| y.annual_cost_usd.unwrap_or(0.0).total_cmp(&x.annual_cost_usd.unwrap_or(0.0)))
            .then_with(|| {
                let c = |i: &Issue| if i.annual_cost_usd.is_none() { conf_rank(i) } else { 0 };
                c(x).cmp(&c(y))
            })
            .then_with(|| x.key.cmp(&y.key))
    });
    let leaned: BTreeSet<usize> = order
        .iter()
        .copied()
        .filter(|&i| {
            issues[i].sensor.is_some() && issues.iter().any(|o| o.conditional_on_keys.contains(&issues[i].key))
        })
        .collect();
    let mut out = Vec::with_capacity(order.len());
    let mut placed: BTreeSet<usize> = BTreeSet::new();
    for &i in &order {
        if leaned.contains(&i) {
            continue;
        }
        let due: Vec<usize> = order
            .iter()
            .copied()
            .filter(|s| leaned.contains(s) && !placed.contains(s))
            .filter(|&s| issues[i].conditional_on_keys.contains(&issues[s].key))
            .collect();
        for s in due {
            placed.insert(s);
            out.push(s);
        }
        out.push(i);
    }
    // a sensor issue whose dependents are all sensor issues themselves cannot happen; keep any left
    out.extend(order.iter().copied().filter(|s| leaned.contains(s) && !placed.contains(s)));
    out
}

/// The report's sections, in page order, as the reference names them.
fn sections(input: &RcxInput, issues: &[Issue]) -> Vec<Section> {
    let o = input.options;
    let ran = |rules: &[&str]| input.run.findings.iter().any(|f| rules.contains(&f.finding.rule));
    let mut out: Vec<(String, String)> = vec![
        ("cover".into(), "Cover and provenance".into()),
        ("summary".into(), "Executive summary".into()),
        ("data".into(), "Data coverage and sensor health".into()),
        ("week".into(), "Representative week".into()),
    ];
    if ran(&["economizer_high_limit", "outdoor_air_fraction", "free_cooling_missed"]) {
        out.push(("economizer".into(), "Economizer".into()));
    }
    if ran(&[
        "supply_air_reset",
        "supply_air_reset_compliance",
        "sat_reset_effectiveness",
        "supply_air_control",
        "g36_afdd",
    ]) {
        out.push(("sat".into(), "Supply-air temperature reset census".into()));
    }
    if ran(&["static_pressure_reset", "static_reset_effectiveness", "static_rogue_zone_census", "damper_census"]) {
        out.push(("air".into(), "Air distribution".into()));
    }
    if !input.drift_findings.is_empty() || !input.drift_unevaluated.is_empty() {
        out.push(("mv".into(), "M&V and drift".into()));
    }
    for i in issues {
        let heading = if i.cause.is_empty() { &i.title } else { &i.cause };
        out.push((format!("issue-{}", i.key), format!("Issue {}: {heading}", i.rank)));
    }
    if !issues.is_empty() {
        out.push(("verify".into(), "Verify on site".into()));
    }
    for (id, t) in [
        ("appendix-a", "Appendix A — Declines and data gaps"),
        ("appendix-b", "Appendix B — Assumptions used"),
        ("appendix-c", "Appendix C — Rules run"),
        ("appendix-d", "Appendix D — Fact index"),
        ("appendix-e", "Appendix E — Orphaned engineer notes"),
    ] {
        out.push((id.into(), t.into()));
    }
    out.into_iter().filter(|(id, _)| o.wants(id)).map(|(id, title)| Section { id, title }).collect()
}
