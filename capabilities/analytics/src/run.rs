//! One run: every rule a config selects on every equipment it covers, with the trust floor
//! applied and the configured sensor references compared. Pure: the caller reads the frames
//! (on the config's grid) and hands them in; `rule_run`, `finding_detail` and `sensor_trust`
//! all call [`run`] or [`trust_of`] on the same frames, so they always agree.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::{Reference, RunConfig};
use crate::engine::{EngineError, Finding, Frame, Outcome, ParamValue, Params, Placed, RuleSpec, Severity};
use crate::family::family_of;
use crate::fleet::{Fleet, FleetFinding, Member};
use crate::rules::{self, Rule};
use crate::trust::{assess_frame, compare, Comparison, Trust};

/// One equipment's run frame.
#[derive(Clone, Debug)]
pub struct EquipFrame {
    pub equip: String,
    pub class: String,
    pub frame: Frame,
}

/// Where a parameter's value came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParamUse {
    pub name: &'static str,
    pub value: ParamValue,
    pub unit: &'static str,
    /// "call" (the call's params), "config" (the run config; "config (boiler_summer_lockout's)"
    /// for a value the config set on that rule and this one takes from it, see
    /// `config::INHERITED_PARAMS`), "default", or "fallback" (unset: the rule falls back to its
    /// built-in behaviour).
    pub source: &'static str,
}

/// A configured reference and how the point compared with it (`None`: nothing to compare).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefResult {
    pub equip: String,
    pub role: String,
    pub reference: String,
    pub reference_role: String,
    pub label: String,
    pub comparison: Option<Comparison>,
}

/// A finding of the run, with its id and what it ran with.
#[derive(Clone, Debug, Serialize)]
pub struct RunFinding {
    /// `<rule>@<equip>`, `#2`, `#3` ... for more findings of one rule on one equipment.
    pub id: String,
    pub equip: String,
    pub class: String,
    pub finding: Finding,
    pub params: Vec<ParamUse>,
    /// Declined by the trust floor: the untrusted inputs and their scores.
    pub declined: Vec<(String, f64)>,
    /// References at warn or fault on a point the rule reads.
    pub conditional_on: Vec<RefResult>,
    /// A fleet finding's group: the equipment serving its members, or a class pool (`None`:
    /// the whole fleet, or an equipment finding).
    pub group: Option<String>,
    /// A fleet finding's members (the units it judged, on whose merged timestamps its flagged
    /// samples lie); empty for an equipment finding.
    pub members: Vec<String>,
    /// The units a fleet finding implicates, worst first.
    pub equips: Vec<String>,
}

impl RunFinding {
    /// Whether the finding judges a fleet of units rather than one.
    pub fn is_fleet(&self) -> bool {
        !self.members.is_empty()
    }
}

/// The equipment name of a fleet finding: `<fleet>` for the whole fleet, `<fleet:AHU-1>` for
/// the boxes AHU-1 serves (or a class pool); finding ids are `<rule>@` this.
pub fn fleet_name(group: Option<&str>) -> String {
    match group {
        None => "<fleet>".to_string(),
        Some(g) => format!("<fleet:{g}>"),
    }
}

/// A rule not run on an equipment for want of inputs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skip {
    pub rule: String,
    pub equip: String,
    pub missing: Vec<String>,
}

/// Everything a run found.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// Worst first.
    pub findings: Vec<RunFinding>,
    pub skipped: Vec<Skip>,
    /// equipment -> role -> trust, of the roles the run's rules read.
    pub trust: BTreeMap<String, BTreeMap<String, Trust>>,
    pub references: Vec<RefResult>,
}

impl RunResult {
    /// How many checks the trust floor declined.
    pub fn declined(&self) -> usize {
        self.findings.iter().filter(|f| !f.declined.is_empty()).count()
    }
}

/// What a call asks of the run on top of its config.
#[derive(Clone, Debug, Default)]
pub struct RunRequest {
    /// Only these rules (`None`: every rule of the config).
    pub rules: Option<Vec<String>>,
    /// The call's parameter overrides, per rule.
    pub params: BTreeMap<String, Params>,
    /// The trust floor.
    pub min_trust: f64,
}

/// The rules a run executes with the config's parameters: the config's, narrowed to the
/// request's, with the request's parameters on top. An id the config does not run is
/// [`EngineError::UnknownRules`], naming the ones it does; parameters that do not check against
/// the rule's spec are the request's fault ([`EngineError::BadParams`]) or, for the config's,
/// which were checked when it was loaded, a defect ([`EngineError::Defect`]).
pub fn selected_rules(config: &RunConfig, req: &RunRequest) -> Result<Vec<(Rule, RuleSpec, Params)>, EngineError> {
    let mut out = Vec::new();
    if let Some(wanted) = &req.rules {
        let unknown: Vec<String> =
            wanted.iter().filter(|w| !config.rules.iter().any(|r| &r.id == *w)).cloned().collect();
        if !unknown.is_empty() {
            let known: Vec<String> = config.rules.iter().map(|r| r.id.clone()).collect();
            return Err(EngineError::UnknownRules { unknown, known });
        }
    }
    for sel in &config.rules {
        if req.rules.as_ref().is_some_and(|w| !w.contains(&sel.id)) {
            continue;
        }
        let Some((r, spec)) = rules::find(&sel.id) else { continue };
        let spec = spec.clone();
        sel.params
            .check(&spec)
            .map_err(|e| EngineError::Defect(format!("the run config's parameters do not check: {e}")))?;
        let params = match req.params.get(&sel.id) {
            Some(o) => {
                o.check(&spec).map_err(EngineError::BadParams)?;
                sel.params.overlay(o)
            }
            None => sel.params.clone(),
        };
        out.push((r, spec, params));
    }
    Ok(out)
}

/// Whether a rule is written for an equipment class (an unrecognised class runs every rule,
/// with a caveat; a rule that names no family is written for every class).
pub fn applies(spec: &RuleSpec, class: &str) -> bool {
    spec.families.is_empty() || family_of(class).is_none_or(|f| spec.families.contains(&f))
}

/// Each equipment's roles scored, as the trust floor and `sensor_trust` read them, each on the
/// grid the config reads it at.
pub fn trust_of(frames: &[EquipFrame], config: &RunConfig) -> BTreeMap<String, BTreeMap<String, Trust>> {
    frames.iter().map(|e| (e.equip.clone(), assess_frame(&e.frame, config.step_of(&e.frame)))).collect()
}

/// The configured references compared: each (equipment, role) of the config whose equipment
/// is in the run, with the reference equipment's frame from `others` (or the run's); then each
/// site sensor the config gives no reference held to the site's others, and each return air to
/// the zones it serves ([`crate::site`]).
pub fn compare_references(config: &RunConfig, frames: &[EquipFrame], others: &[EquipFrame]) -> Vec<RefResult> {
    references_of(config, frames, others, None)
}

/// [`compare_references`], of `only` equipment when it is given.
fn references_of(
    config: &RunConfig,
    frames: &[EquipFrame],
    others: &[EquipFrame],
    only: Option<&str>,
) -> Vec<RefResult> {
    let mut out = Vec::new();
    for (equip, roles) in &config.references {
        if only.is_some_and(|o| o != equip) {
            continue;
        }
        let Some(point_frame) = frames.iter().find(|e| &e.equip == equip) else { continue };
        for (role, Reference { equip: req, role: rrole, label }) in roles {
            let ref_frame = others.iter().chain(frames).find(|e| &e.equip == req);
            let comparison = match (
                point_frame.frame.cols.get(role),
                ref_frame.and_then(|f| f.frame.cols.get(rrole).map(|c| (f, c))),
            ) {
                (Some(p), Some((rf, r))) => {
                    let aligned = align(&rf.frame.ts, r, &point_frame.frame.ts);
                    compare(role, p, &aligned, config.step_of(&point_frame.frame))
                }
                _ => None,
            };
            out.push(RefResult {
                equip: equip.clone(),
                role: role.clone(),
                reference: req.clone(),
                reference_role: rrole.clone(),
                label: label.clone(),
                comparison,
            });
        }
    }
    let configured = |equip: &str, role: &str| config.references.get(equip).is_some_and(|r| r.contains_key(role));
    let step_of = |f: &EquipFrame| config.step_of(&f.frame);
    out.extend(crate::site::compare_site(frames, others, only, &configured, &step_of));
    out.extend(crate::site::compare_return_air(frames, others, config.topology.as_ref(), only, &configured, &step_of));
    out
}

fn param_uses(spec: &RuleSpec, config: &RunConfig, req: &RunRequest, equip: &str, params: &Params) -> Vec<ParamUse> {
    // each source's values for this equipment, resolved once for all the rule's parameters
    let (call, configured) =
        (req.params.get(spec.id).map(|o| o.for_equip(equip)), config.params_of(spec.id).map(|o| o.for_equip(equip)));
    let sets = |o: &Option<Params>, name: &str| o.as_ref().is_some_and(|o| o.values.contains_key(name));
    spec.params
        .iter()
        .map(|p| {
            let value = params.values.get(p.name).cloned().unwrap_or_else(|| p.default.clone());
            let unset = matches!(value, ParamValue::Number(x) if x.is_nan())
                || matches!(&value, ParamValue::Choice(c) if c.is_empty())
                || value == ParamValue::Flag(None)
                || value == ParamValue::Map(Default::default())
                || value == ParamValue::Choice(String::new());
            let source = if sets(&call, p.name) {
                "call"
            } else if sets(&configured, p.name) {
                config.inherited_from(spec.id, p.name).unwrap_or("config")
            } else if unset {
                "fallback"
            } else {
                "default"
            };
            ParamUse { name: p.name, value, unit: p.unit, source }
        })
        .collect()
}

/// The parameters a finding ran with: an unset parameter ran with the rule's built-in
/// fallback, whose value is the finding's metric of the same name when it reports one.
fn with_fallbacks(uses: &[ParamUse], finding: &Finding) -> Vec<ParamUse> {
    let mut params = uses.to_vec();
    for u in params.iter_mut().filter(|u| u.source == "fallback") {
        if let Some(x) = finding.metrics.get(u.name) {
            u.value = ParamValue::Number(*x);
        }
    }
    params
}

/// Run every selected rule on every equipment frame. `others` are frames read only for
/// references (a logger the config does not run rules on).
pub fn run(
    config: &RunConfig,
    req: &RunRequest,
    frames: &[EquipFrame],
    others: &[EquipFrame],
) -> Result<RunResult, EngineError> {
    run_watched(config, req, frames, others, &mut |_, _, _| {})
}

/// [`run`], telling `watch` how far it has gone, so a caller can show progress: before each
/// equipment and each fleet rule `(finished, total, the one starting)` (`total` counts the
/// equipment and the fleet rules), and `(total, total, "done")` at the end.
pub fn run_watched(
    config: &RunConfig,
    req: &RunRequest,
    frames: &[EquipFrame],
    others: &[EquipFrame],
    watch: &mut dyn FnMut(usize, usize, &str),
) -> Result<RunResult, EngineError> {
    run_on(config, req, frames, others, None, watch)
}

/// Rules whose findings a whole run revises after every rule has run, from other rules'
/// findings (`hp_capacity_shortfall` defers its cause to `hp_room_imbalance`'s fight).
const REVISED_BY_THE_RUN: &[&str] = &["hp_capacity_shortfall"];

/// Whether the findings of rule `id` on an equipment stand alone: an equipment rule (not a
/// fleet rule) whose findings no step after the rules revises, so [`run_equipment`] gives them
/// exactly as a whole run does.
pub fn stands_alone(id: &str) -> bool {
    !REVISED_BY_THE_RUN.contains(&id) && rules::find(id).is_some_and(|(r, _)| !r.is_fleet())
}

/// The findings the selected equipment rules give on `equip` alone, each exactly as [`run`]
/// gives it on the same frames for a rule that [`stands_alone`], without scoring or judging
/// the rest of the run: `finding_detail` asks for one finding. Fleet rules are not run; the
/// result's trust and references are `equip`'s only.
pub fn run_equipment(
    config: &RunConfig,
    req: &RunRequest,
    frames: &[EquipFrame],
    others: &[EquipFrame],
    equip: &str,
) -> Result<RunResult, EngineError> {
    run_on(config, req, frames, others, Some(equip), &mut |_, _, _| {})
}

/// [`run_watched`]; with `only`, that equipment's rules alone.
fn run_on(
    config: &RunConfig,
    req: &RunRequest,
    frames: &[EquipFrame],
    others: &[EquipFrame],
    only: Option<&str>,
    watch: &mut dyn FnMut(usize, usize, &str),
) -> Result<RunResult, EngineError> {
    let mut selected = selected_rules(config, req)?;
    if only.is_some() {
        selected.retain(|(r, ..)| !r.is_fleet());
    }
    let judged: Vec<&EquipFrame> = frames.iter().filter(|e| only.is_none_or(|o| o == e.equip)).collect();
    let total = judged.len() + selected.iter().filter(|(r, ..)| r.is_fleet()).count();
    // only the roles the selected rules read are scored (each as sensor_trust scores it; a
    // role's score does not depend on which others are scored)
    let read: Vec<&str> = selected.iter().flat_map(|(_, spec, _)| spec.inputs.roles()).collect();
    let trust: BTreeMap<String, BTreeMap<String, Trust>> = judged
        .iter()
        .map(|e| {
            let step = config.step_of(&e.frame);
            (e.equip.clone(), crate::trust::assess_roles(&e.frame, step, |r| read.contains(&r)))
        })
        .collect();
    let references = references_of(config, frames, others, only);
    let mut findings = Vec::new();
    let mut skipped = Vec::new();
    for (done, e) in judged.into_iter().enumerate() {
        watch(done, total, &e.equip);
        let scores = trust.get(&e.equip);
        for (rule, spec, params) in &selected {
            if rule.is_fleet() || !applies(spec, &e.class) {
                continue;
            }
            let params = &params.for_equip(&e.equip);
            let reads: Vec<&str> = spec.inputs.roles().into_iter().filter(|r| e.frame.col(r).is_some()).collect();
            let gates = spec.inputs.gated(|r| e.frame.col(r).is_some());
            let gated = |r: &str| gates.contains(&r);
            let score = |r: &str| scores.and_then(|s| s.get(r)).map_or(0.0, |t| t.score);
            let below: Vec<(String, f64)> =
                reads.iter().filter(|r| score(r) < req.min_trust).map(|r| (r.to_string(), score(r))).collect();
            // worked out when a finding needs them: most rules skip most equipment
            let uses = std::cell::OnceCell::new();
            let conditional_on: Vec<RefResult> = references
                .iter()
                .filter(|x| {
                    x.equip == e.equip
                        && reads.contains(&x.role.as_str())
                        && x.comparison.as_ref().is_some_and(|c| c.severity >= Severity::Warn)
                })
                .cloned()
                .collect();
            let mut push = |finding: Finding, declined: Vec<(String, f64)>, n: usize| {
                let id = if n == 0 {
                    format!("{}@{}", spec.id, e.equip)
                } else {
                    format!("{}@{}#{}", spec.id, e.equip, n + 1)
                };
                let uses = uses.get_or_init(|| param_uses(spec, config, req, &e.equip, params));
                let params = with_fallbacks(uses, &finding);
                findings.push(RunFinding {
                    id,
                    equip: e.equip.clone(),
                    class: e.class.clone(),
                    finding,
                    params,
                    declined,
                    conditional_on: conditional_on.clone(),
                    group: None,
                    members: Vec::new(),
                    equips: Vec::new(),
                });
            };
            if below.iter().any(|(r, _)| gated(r)) {
                let names: Vec<String> = below.iter().map(|(r, s)| format!("{r} (trust {s:.2})")).collect();
                let mut f = Finding::not_judged(spec, "");
                f.summary = format!("declined -- untrusted input(s): {}", names.join(", "));
                f.caveats = vec![format!(
                    "an input scored below the trust floor {:.2}: a declined check is not a pass; see sensor_trust",
                    req.min_trust
                )];
                push(f, below, 0);
                continue;
            }
            match rule.evaluate(spec, &e.frame, params) {
                Outcome::Skipped { missing } => {
                    skipped.push(Skip { rule: spec.id.to_string(), equip: e.equip.clone(), missing })
                }
                Outcome::Findings(list) => {
                    for (n, mut f) in list.into_iter().enumerate() {
                        if family_of(&e.class).is_none() {
                            f.caveats.push(format!(
                                "the class '{}' is not a recognised equipment class: the rule ran on its roles alone",
                                e.class
                            ));
                        }
                        for (r, s) in below.iter() {
                            f.caveats.push(format!("optional input {r} scored {s:.2}, below the trust floor: the rule ran without trusting it"));
                        }
                        f.caveats.extend(params.outside_range(spec));
                        push(f, Vec::new(), n);
                    }
                }
            }
        }
    }
    let equipment_done = total - selected.iter().filter(|(r, ..)| r.is_fleet()).count();
    for (k, (rule, spec, params)) in selected.iter().filter(|(r, ..)| r.is_fleet()).enumerate() {
        watch(equipment_done + k, total, spec.id);
        let ctx = FleetRun { config, req, frames, others, trust: &trust, references: &references };
        ctx.run_fleet(rule, spec, params, &mut findings, &mut skipped);
    }
    // a heat pump whose room fights defers the cause of its capacity finding to the room's
    let mut placed: Vec<Placed> = findings
        .iter_mut()
        .map(|f| Placed { equip: &f.equip, group: f.group.as_deref(), members: &f.members, finding: &mut f.finding })
        .collect();
    rules::hp_capacity_shortfall::defer_to_room_fight(&mut placed);
    watch(total, total, "done");
    findings.sort_by(|a, b| b.finding.severity.cmp(&a.finding.severity).then_with(|| a.id.cmp(&b.id)));
    Ok(RunResult { findings, skipped, trust, references })
}

/// What one fleet rule's run reads.
struct FleetRun<'a> {
    config: &'a RunConfig,
    req: &'a RunRequest,
    frames: &'a [EquipFrame],
    /// Frames read but not judged (references, the units serving the judged ones).
    others: &'a [EquipFrame],
    trust: &'a BTreeMap<String, BTreeMap<String, Trust>>,
    references: &'a [RefResult],
}

impl FleetRun<'_> {
    /// A fleet rule on the run's equipment: the units it is written for that have its inputs
    /// (the others are skips) and whose gating inputs pass the trust floor (the others are left
    /// out, named in a caveat), grouped by the config's topology, judged together.
    fn run_fleet(
        &self,
        rule: &Rule,
        spec: &RuleSpec,
        params: &Params,
        findings: &mut Vec<RunFinding>,
        skipped: &mut Vec<Skip>,
    ) {
        let whole = fleet_name(None);
        // the fleet's values, keeping the per-equipment overrides: a fleet rule reads a unit's own
        // (a chiller's capacity) with `for_equip` on the member
        let params = &Params { by_equip: params.by_equip.clone(), ..params.for_equip(&whole) };
        let known: Vec<&str> = self.frames.iter().map(|e| e.equip.as_str()).collect();
        let mut chosen: Vec<(&EquipFrame, Option<String>)> = Vec::new();
        let mut left_out: Vec<(String, f64)> = Vec::new();
        let needs = rule.needs_for(spec, params);
        for e in self.frames.iter().filter(|e| applies(spec, &e.class)) {
            let missing = needs.missing(&e.frame);
            if !missing.is_empty() {
                skipped.push(Skip { rule: spec.id.to_string(), equip: e.equip.clone(), missing });
                continue;
            }
            let score = |r: &str| self.trust.get(&e.equip).and_then(|s| s.get(r)).map_or(0.0, |t| t.score);
            let gates = spec.inputs.gated(|r| e.frame.col(r).is_some());
            let below: Vec<(String, f64)> = gates
                .iter()
                .filter(|r| score(r) < self.req.min_trust)
                .map(|r| (format!("{}.{r}", e.equip), score(r)))
                .collect();
            if !below.is_empty() {
                left_out.extend(below);
                continue;
            }
            let parent = self.config.topology.as_ref().and_then(|t| t.parent_of(&e.equip, &known));
            chosen.push((e, parent));
        }
        if chosen.is_empty() && left_out.is_empty() {
            return;
        }
        let uses = param_uses(spec, self.config, self.req, &whole, params);
        let named: Vec<String> = left_out.iter().map(|(r, s)| format!("{r} (trust {s:.2})")).collect();
        let base = |finding: Finding, group: Option<String>, members: Vec<String>, equips: Vec<String>| RunFinding {
            id: String::new(),
            equip: fleet_name(group.as_deref()),
            class: "fleet".into(),
            params: with_fallbacks(&uses, &finding),
            finding,
            declined: Vec::new(),
            conditional_on: Vec::new(),
            group,
            members,
            equips,
        };
        if chosen.is_empty() {
            let mut f = Finding::not_judged(spec, "");
            f.summary = format!("declined -- every unit had an untrusted input: {}", named.join(", "));
            f.caveats = vec![format!(
                "inputs scored below the trust floor {:.2}: a declined check is not a pass; see sensor_trust",
                self.req.min_trust
            )];
            let members: Vec<String> =
                left_out.iter().map(|(r, _)| r.split('.').next().unwrap_or(r).to_string()).collect();
            let mut rf = base(f, None, members, Vec::new());
            rf.id = format!("{}@{whole}", spec.id);
            rf.declined = left_out;
            findings.push(rf);
            return;
        }
        let members: Vec<Member> = chosen
            .iter()
            .map(|(e, p)| Member { equip: &e.equip, class: &e.class, parent: p.as_deref(), frame: &e.frame })
            .collect();
        let parent_roles: BTreeMap<String, Vec<String>> = chosen
            .iter()
            .filter_map(|(_, p)| p.as_deref())
            .filter_map(|p| self.frames.iter().chain(self.others).find(|e| e.equip == p))
            .map(|e| (e.equip.clone(), e.frame.cols.keys().cloned().collect()))
            .collect();
        let fleet = Fleet::new(members).with_parent_roles(parent_roles);
        let served: Vec<String> = fleet.groups().into_iter().filter(|g| g.served).filter_map(|g| g.label).collect();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for FleetFinding { group, mut finding, equips } in rule.evaluate_fleet(spec, &fleet, params) {
            // the members of the group the finding judged
            let in_group: Vec<&Member> = fleet
                .members
                .iter()
                .filter(|m| match group.as_deref() {
                    None => true,
                    Some(g) => m.parent == Some(g) || m.equip == g || (m.parent.is_none() && m.class == g),
                })
                .collect();
            if !group.as_ref().is_some_and(|g| served.contains(g)) {
                finding.caveats.extend(fleet.caveats());
            }
            if !named.is_empty() {
                finding.caveats.push(format!(
                    "left out by the trust floor {:.2} (an untrusted input): {}",
                    self.req.min_trust,
                    named.join(", ")
                ));
            }
            finding.caveats.extend(params.outside_range(spec));
            let name = fleet_name(group.as_deref());
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            let id = if *n == 1 { format!("{}@{name}", spec.id) } else { format!("{}@{name}#{n}", spec.id) };
            let member_ids: Vec<String> = in_group.iter().map(|m| m.equip.to_string()).collect();
            if in_group.len() < fleet.members.len() {
                // flagged samples index the fleet's axis: put them on the group's own
                let axis = crate::fleet::union_of(in_group.iter().map(|m| m.frame.ts.as_slice()));
                let onto = |idx: &mut Vec<u32>| {
                    *idx = idx
                        .iter()
                        .filter_map(|&i| fleet.times.get(i as usize))
                        .filter_map(|t| axis.binary_search(t).ok().map(|k| k as u32))
                        .collect()
                };
                onto(&mut finding.flagged);
                for c in finding.conditions.iter_mut() {
                    onto(&mut c.flagged);
                }
            }
            let reads = spec.inputs.roles();
            let conditional_on: Vec<RefResult> = self
                .references
                .iter()
                .filter(|x| {
                    member_ids.contains(&x.equip)
                        && reads.contains(&x.role.as_str())
                        && x.comparison.as_ref().is_some_and(|c| c.severity >= Severity::Warn)
                })
                .cloned()
                .collect();
            let mut rf = base(finding, group, member_ids, equips);
            rf.id = id;
            rf.conditional_on = conditional_on;
            findings.push(rf);
        }
    }
}

pub use crate::engine::{align, PARENT_FAN_SPEED, PARENT_STATIC_SP};

/// Give each served equipment of `frames` (by the config's topology) its parent's
/// `duct_static_sp` as [`PARENT_STATIC_SP`] and `supply_fan_speed` as [`PARENT_FAN_SPEED`], on
/// its own times, when the parent's frame (among `frames` and `others`) trends them. A box's
/// damper answers to both: `control_hunting` reads the setpoint to tell a box following its air
/// handler's trim-and-respond reset from a box whose own loop hunts, and `actuator_stuck` reads
/// the fan speed to tell a box its air handler cannot feed from a stuck one.
pub fn attach_parent_points(frames: &mut [EquipFrame], others: &[EquipFrame], config: &RunConfig) {
    let Some(top) = &config.topology else { return };
    for (role, as_role) in camber_common::roles::FROM_PARENT {
        let known: Vec<&str> =
            frames.iter().chain(others).filter(|f| f.frame.col(role).is_some()).map(|f| f.equip.as_str()).collect();
        if known.is_empty() {
            continue;
        }
        let parents: Vec<Option<String>> = frames.iter().map(|f| top.parent_of(&f.equip, &known)).collect();
        // each parent's column aligned to each served frame's times, worked out before any
        // frame is changed (a parent may itself be among `frames`)
        let aligned: Vec<Option<Vec<f64>>> = frames
            .iter()
            .zip(&parents)
            .map(|(f, parent)| {
                let p = frames.iter().chain(others).find(|p| Some(&p.equip) == parent.as_ref())?;
                let c = p.frame.col(role)?;
                f.frame.col(as_role).is_none().then(|| align(&p.frame.ts, c, &f.frame.ts))
            })
            .collect();
        for (f, column) in frames.iter_mut().zip(aligned) {
            if let Some(column) = column {
                f.frame.cols.insert(as_role.to_string(), column);
            }
        }
    }
}

/// Add a shared outdoor-air column to a frame that has none, matched on timestamps.
pub fn with_shared(mut frame: Frame, role: &str, ts: &[i64], values: &[f64]) -> Frame {
    if frame.col(role).is_none() {
        let aligned = align(ts, values, &frame.ts);
        frame.cols.insert(role.to_string(), aligned);
    }
    frame
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const H: i64 = crate::engine::NS_PER_HOUR;

    #[test]
    fn a_box_gets_its_parents_static_pressure_setpoint_and_fan_speed_on_its_own_times() {
        let f = |equip: &str, class: &str, ts: &[i64], cols: &[(&str, Vec<f64>)]| EquipFrame {
            equip: equip.into(),
            class: class.into(),
            frame: Frame::from_rows(ts, cols),
        };
        let mut frames = vec![
            f("VAV-1", "VAV", &[0, H, 2 * H], &[("damper", vec![50.0; 3])]),
            f("VAV-2", "VAV", &[0, H], &[("damper", vec![50.0; 2])]),
            f("VAV-9", "VAV", &[0], &[("damper", vec![50.0])]),
        ];
        let others = vec![
            f(
                "AHU-1",
                "AHU",
                &[H, 2 * H],
                &[("duct_static_sp", vec![1.0, 1.2]), ("supply_fan_speed", vec![80.0, 100.0])],
            ),
            f("AHU-2", "AHU", &[0, H], &[("supply_fan_speed", vec![40.0, 45.0])]),
        ];
        let mut cfg = RunConfig::from_value(&json!({"facility_id": "f", "equipment": [{"class": "VAV"}],
            "topology": {"parents": {"VAV-1": "AHU-1", "VAV-2": "AHU-2"}}}))
        .unwrap();
        attach_parent_points(&mut frames, &others, &cfg);
        let sp = frames[0].frame.col(PARENT_STATIC_SP).unwrap();
        assert!(sp[0].is_nan() && sp[1] == 1.0 && sp[2] == 1.2, "{sp:?}");
        let fan = frames[0].frame.col(PARENT_FAN_SPEED).unwrap();
        assert!(fan[0].is_nan() && fan[1] == 80.0 && fan[2] == 100.0, "{fan:?}");
        assert!(frames[1].frame.col(PARENT_STATIC_SP).is_none(), "its parent trends no setpoint here");
        assert_eq!(frames[1].frame.col(PARENT_FAN_SPEED), Some(&[40.0, 45.0][..]), "but a fan speed");
        assert!(frames[2].frame.col(PARENT_STATIC_SP).is_none(), "no parent");
        assert!(frames[2].frame.col(PARENT_FAN_SPEED).is_none(), "no parent");
        cfg.topology = None;
        let mut again = frames.clone();
        again[1].frame.cols.clear();
        attach_parent_points(&mut again, &others, &cfg);
        assert!(again[1].frame.col(PARENT_STATIC_SP).is_none());
    }

    fn ahu(n: usize, sat_offset: f64) -> EquipFrame {
        let ts: Vec<i64> = (0..n as i64).map(|i| i * H).collect();
        let wave = |base: f64| (0..n).map(|i| base + ((i as f64) * 0.37).sin()).collect::<Vec<f64>>();
        let cols = vec![
            ("mixed_air_temp", wave(60.0)),
            ("supply_air_temp", wave(61.5 + sat_offset)),
            ("cool_valve", vec![0.0; n]),
            ("heat_valve", vec![0.0; n]),
            ("supply_fan_status", vec![1.0; n]),
        ];
        EquipFrame { equip: "AHU-1".into(), class: "AHU".into(), frame: Frame::from_rows(&ts, &cols) }
    }

    fn config(v: serde_json::Value) -> RunConfig {
        RunConfig::from_value(&v).unwrap()
    }

    #[test]
    fn a_run_finds_skips_and_names_findings() {
        let c = config(
            json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve", "cooling_tower_approach", "supply_air_control"]}),
        );
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[ahu(200, 5.0)], &[]).unwrap();
        assert_eq!(r.findings[0].id, "leaking_valve@AHU-1");
        assert_eq!(r.findings[0].finding.severity, Severity::Fault);
        // the tower rule is not written for an air handler: neither run nor skipped
        assert!(r.findings.iter().all(|f| !f.id.starts_with("cooling_tower")));
        assert_eq!(
            r.skipped,
            vec![Skip {
                rule: "supply_air_control".into(),
                equip: "AHU-1".into(),
                missing: vec!["supply_air_temp_sp".into()]
            }]
        );
        assert_eq!(r.findings[0].params.iter().find(|p| p.name == "fan_heat_f").unwrap().source, "default");
    }

    #[test]
    fn parameters_come_from_call_over_config_over_default() {
        let c = config(
            json!({"equipment": [{"class": "AHU"}], "rules": [{"name": "leaking_valve", "params": {"delta_thr_f": 4.0}}]}),
        );
        let mut req = RunRequest { min_trust: 0.5, ..Default::default() };
        req.params.insert(
            "leaking_valve".into(),
            Params { values: [("fan_heat_f".to_string(), ParamValue::Number(3.5))].into(), ..Default::default() },
        );
        let r = run(&c, &req, &[ahu(200, 5.0)], &[]).unwrap();
        let src = |n: &str| r.findings[0].params.iter().find(|p| p.name == n).unwrap().source;
        assert_eq!(
            (src("fan_heat_f"), src("delta_thr_f"), src("valve_closed_thr"), src("measured_fan_heat_f")),
            ("call", "config", "default", "fallback")
        );
        // a rule the config does not run is refused
        let bad = RunRequest { rules: Some(vec!["g36_nope".into()]), ..req };
        let e = run(&c, &bad, &[ahu(10, 0.0)], &[]).unwrap_err();
        assert!(matches!(e, EngineError::UnknownRules { .. }) && e.to_string().contains("'g36_nope'"), "{e}");
    }

    #[test]
    fn a_call_naming_an_unknown_parameter_is_refused_by_the_engine() {
        let c = config(json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve"]}));
        let mut req = RunRequest { min_trust: 0.5, ..Default::default() };
        req.params.insert("leaking_valve".into(), crate::engine::testing::numbers(&[("fan_heatf", 3.0)]));
        let e = run(&c, &req, &[ahu(200, 5.0)], &[]).unwrap_err();
        assert_eq!(e, EngineError::BadParams("rule leaking_valve has no parameter 'fan_heatf'".into()));
        // per equipment too
        let mut call = Params::default();
        call.by_equip.push(("AHU-*".into(), [("fan_heatf".to_string(), ParamValue::Number(3.0))].into()));
        req.params.insert("leaking_valve".into(), call);
        assert!(matches!(run(&c, &req, &[ahu(200, 5.0)], &[]), Err(EngineError::BadParams(_))));
    }

    #[test]
    fn per_equipment_overrides_apply_to_the_equipment_they_match() {
        // AHU-1's supply air is 6.5 °F over its mixed air: a fault at the 2 °F default fan
        // heat, nothing with 6 °F of fan heat, which the config sets for AHU-1* only
        let c = config(
            json!({"equipment": [{"class": "AHU"}], "rules": [{"name": "leaking_valve", "equips": {"AHU-1*": {"fan_heat_f": 4.0}, "AHU-*": {"fan_heat_f": 1.0}}}]}),
        );
        let mut other = ahu(200, 5.0);
        other.equip = "AHU-2".into();
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[ahu(200, 5.0), other], &[]).unwrap();
        let of = |e: &str| r.findings.iter().find(|f| f.equip == e).unwrap();
        let fan_heat = |e: &str| {
            of(e).params.iter().find(|p| p.name == "fan_heat_f").map(|p| (p.value.clone(), p.source)).unwrap()
        };
        assert_eq!(fan_heat("AHU-1"), (ParamValue::Number(4.0), "config"), "the first matching pattern wins");
        assert_eq!(fan_heat("AHU-2"), (ParamValue::Number(1.0), "config"));
        assert!(
            of("AHU-1").finding.severity < of("AHU-2").finding.severity,
            "{:?} {:?}",
            of("AHU-1").finding.summary,
            of("AHU-2").finding.summary
        );
        // a call's own pattern comes before the config's
        let mut req = RunRequest { min_trust: 0.5, ..Default::default() };
        let mut call = Params::default();
        call.by_equip.push(("AHU-2".into(), [("fan_heat_f".to_string(), ParamValue::Number(3.0))].into()));
        req.params.insert("leaking_valve".into(), call);
        let r = run(&c, &req, &[ahu(200, 5.0)], &[]).unwrap();
        assert_eq!(r.findings[0].params.iter().find(|p| p.name == "fan_heat_f").unwrap().source, "config");
        // a bad override is named; one outside its sensible range runs with a caveat
        let e = RunConfig::from_value(
            &json!({"rules": [{"name": "leaking_valve", "equips": {"AHU-1": {"fan_heat_f": "hot"}}}]}),
        )
        .unwrap_err();
        assert!(e.contains("rules[0]") && e.contains("wrong type"), "{e}");
        let c = config(
            json!({"equipment": [{"class": "AHU"}], "rules": [{"name": "leaking_valve", "equips": {"AHU-1": {"fan_heat_f": 9}}}]}),
        );
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[ahu(200, 5.0)], &[]).unwrap();
        assert!(
            r.findings[0]
                .finding
                .caveats
                .iter()
                .any(|c| c.contains("fan_heat_f = 9 is outside its sensible range 0.5 to 4")),
            "{:?}",
            r.findings[0].finding.caveats
        );
    }

    #[test]
    fn manufacturer_targets_keyed_by_equipment_pattern() {
        let c = config(
            json!({"rules": [{"name": "dx_refrigerant_charge", "params": {"targets": {"HP_A__*": {"subcooling_f": 8.6}, "HP_B__*": {"subcooling_f": 9.7, "tolerance_f": 2}}}}]}),
        );
        let p = c.params_of("dx_refrigerant_charge").unwrap();
        let spec = crate::config::rule_spec("dx_refrigerant_charge").unwrap();
        assert_eq!(p.for_equip("HP_B__low").map(&spec, "targets")["tolerance_f"], 2.0);
        assert_eq!(p.for_equip("HP_A__ok").map(&spec, "targets")["subcooling_f"], 8.6);
        assert!(p.for_equip("RTU-1").map(&spec, "targets").is_empty());
        let e = RunConfig::from_value(
            &json!({"rules": [{"name": "dx_refrigerant_charge", "params": {"targets": {"subcooling": 8}}}]}),
        )
        .unwrap_err();
        assert!(e.contains("subcooling_f"), "{e}");
    }

    #[test]
    fn an_untrusted_required_input_declines_the_check() {
        let c = config(json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve"]}));
        let mut e = ahu(200, 5.0);
        for (i, v) in e.frame.cols.get_mut("mixed_air_temp").unwrap().iter_mut().enumerate() {
            if i % 3 != 0 {
                *v = f64::NAN; // a third of the grid: coverage 0.34
            }
        }
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[e.clone()], &[]).unwrap();
        assert_eq!(r.declined(), 1);
        let f = &r.findings[0];
        assert_eq!(f.finding.severity, Severity::Info);
        assert!(
            f.finding.summary.starts_with("declined -- untrusted input(s): mixed_air_temp (trust 0.3"),
            "{}",
            f.finding.summary
        );
        // the same score sensor_trust reads
        assert_eq!(f.declined[0].1, r.trust["AHU-1"]["mixed_air_temp"].score);
        // a lower floor runs it
        let r = run(&c, &RunRequest { min_trust: 0.2, ..Default::default() }, &[e], &[]).unwrap();
        assert_eq!(r.declined(), 0);
    }

    #[test]
    fn a_supply_air_trended_in_celsius_declines_instead_of_being_judged() {
        let c = config(json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve"]}));
        let mut e = ahu(200, 5.0);
        e.frame.cols.insert("return_air_temp".into(), vec![72.0; 200]);
        for v in e.frame.cols.get_mut("supply_air_temp").unwrap() {
            *v = (*v - 32.0) / 1.8;
        }
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[e], &[]).unwrap();
        assert_eq!(r.declined(), 1, "{:?}", r.findings[0].finding.summary);
        assert!(r.trust["AHU-1"]["supply_air_temp"].flags.contains(&"degC_in_degF_building"));
    }

    #[test]
    fn gating_alternatives_gate_in_order() {
        // the wet-bulb source: a wet-bulb point, else outdoor air and humidity together
        let i = crate::engine::Inputs {
            required: &["cw_supply_temp"],
            optional: &["wetbulb_temp", "oat", "outdoor_rh"],
            gating: &["wetbulb_temp", "oat+outdoor_rh"],
            one_of: &[],
            needs_gating: false,
        };
        let with = |have: &'static [&'static str]| i.gated(move |r| have.contains(&r));
        assert_eq!(with(&["cw_supply_temp", "wetbulb_temp", "oat", "outdoor_rh"]), ["cw_supply_temp", "wetbulb_temp"]);
        assert_eq!(with(&["cw_supply_temp", "oat", "outdoor_rh"]), ["cw_supply_temp", "oat", "outdoor_rh"]);
        assert_eq!(with(&["cw_supply_temp", "oat"]), ["cw_supply_temp"]);
        assert_eq!(i.roles(), ["cw_supply_temp", "wetbulb_temp", "oat", "outdoor_rh"]);
        // a rule reads the flow, else the damper: an untrusted damper beside a good flow does not decline
        let dcv = crate::config::rule_spec("dcv_verification").unwrap();
        assert_eq!(dcv.inputs.gated(|r| ["co2", "oa_airflow", "oa_damper"].contains(&r)), ["co2", "oa_airflow"]);
        assert_eq!(dcv.inputs.gated(|r| ["co2", "oa_damper"].contains(&r)), ["co2", "oa_damper"]);
    }

    #[test]
    fn a_present_member_of_a_one_of_group_gates_like_a_required_input() {
        // leaking_valve needs one of its valves: an untrusted cool valve declines the check,
        // while an untrusted optional input (the fan status) only adds a caveat
        let c = config(json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve"]}));
        let sparse = |role: &str| {
            let mut e = ahu(200, 5.0);
            for (i, v) in e.frame.cols.get_mut(role).unwrap().iter_mut().enumerate() {
                if i % 3 != 0 {
                    *v = f64::NAN;
                }
            }
            run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[e], &[]).unwrap()
        };
        let valve = sparse("cool_valve");
        assert_eq!(valve.declined(), 1);
        assert_eq!(valve.findings[0].finding.summary.matches("cool_valve").count(), 1, "each input named once");
        assert!(
            valve.findings[0].finding.summary.contains("cool_valve (trust 0.3"),
            "{}",
            valve.findings[0].finding.summary
        );
        let fan = sparse("supply_fan_status");
        assert_eq!(fan.declined(), 0);
        assert!(
            fan.findings[0].finding.caveats.iter().any(|c| c.contains("optional input supply_fan_status")),
            "{:?}",
            fan.findings[0].finding.caveats
        );
    }

    #[test]
    fn a_reference_that_disagrees_makes_findings_conditional() {
        let c = config(json!({"equipment": [{"class": "AHU"}], "rules": ["leaking_valve"],
            "report": {"rcx": {"references": {"AHU-1": {"supply_air_temp": {"equip": "LOGGER-1", "label": "duct logger"}}}}}}));
        let e = ahu(200, 5.0);
        let mut logger = e.frame.clone();
        for v in logger.cols.get_mut("supply_air_temp").unwrap() {
            *v -= 5.0;
        }
        let l = EquipFrame { equip: "LOGGER-1".into(), class: "LOGGER".into(), frame: logger };
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &[e], &[l]).unwrap();
        assert_eq!(r.references.len(), 1);
        let cmp = r.references[0].comparison.as_ref().unwrap();
        assert_eq!((cmp.bias, cmp.severity), (5.0, Severity::Fault));
        assert_eq!(r.findings[0].conditional_on.len(), 1);
    }

    #[test]
    fn alignment_and_shared_columns() {
        assert!(align(&[1, 3], &[10.0, 30.0], &[0, 1, 2, 3])[1..]
            .iter()
            .zip([10.0, f64::NAN, 30.0])
            .all(|(a, b)| a == &b || (a.is_nan() && b.is_nan())));
        let f = with_shared(Frame::from_rows(&[0, 1], &[("x", vec![1.0, 2.0])]), "oat", &[1], &[70.0]);
        assert!(f.cols["oat"][0].is_nan() && f.cols["oat"][1] == 70.0);
    }
}
