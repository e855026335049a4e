//! Not a rule: what the four Guideline 36 request censuses share. Under trim-and-respond
//! (§5.1.14) each zone sends its air handler requests for colder supply air (a zone warm of its
//! cooling setpoint) and for more duct static (a box at full damper short of its airflow
//! setpoint), and the air handler resets to the requests it receives. The censuses rebuild
//! each box's requests from its own trend and ask two opposite questions of an air handler's
//! boxes:
//!
//! - the **rogue-zone census**: does one zone hold the deciding request most of the time, send a
//!   lopsided share of them and keep asking (on at least half of the running hours, as
//!   Guideline 36's request-hours ratio reads a rogue), dragging the reset for every box?
//! - **cohort starvation**: are most of the boxes asking at once, on most cycles, which points
//!   upstream (a capped fan, a static setpoint that cannot rise) rather than at any box?
//!
//! Request tiers, as the reference toolkit counts them: supply air, 3 requests at 5 °F or more
//! above the cooling setpoint, 2 at 3 °F, 1 while the zone's cooling loop is above 95 %; duct
//! static, with the damper above 95 %: 3 below half the airflow setpoint, 2 below 70 %, 1
//! otherwise. A cycle counts only while every gate the box trends (supply fan, occupancy)
//! reads on. Shares and fractions are of time on the fleet's shared axis.

use std::collections::BTreeMap;

use crate::engine::{as_percent, round2, Finding, Inputs, ParamSpec, Params, RuleSpec, Severity};
use crate::fleet::{Fleet, FleetFinding, Group};

/// Which reset the requests are for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reset {
    /// Supply-air temperature: zones warm of their cooling setpoint.
    Sat,
    /// Duct static pressure: boxes at full damper short of their airflow setpoint.
    Static,
}

/// The gates of a request cycle: the system is on.
const GATES: &[&str] = &["supply_fan_status", "occupancy"];
/// Temperature tiers of the supply-air requests, °F above the cooling setpoint.
const HI_F: f64 = 5.0;
const MID_F: f64 = 3.0;
/// A damper above this (%) is at its maximum: the box asks for more static.
const DAMPER_WIDE: f64 = 95.0;
/// A static rogue this far above its cooling setpoint (°F) on half its static requests or more
/// is short of cooling (the supply-air census's rogue), not starved of air.
const OVERLOAD_F: f64 = 3.0;
const OVERLOAD_SHARE: f64 = 0.5;
/// A rogue asks on at least this share of its system's running hours (fixed in code): a zone
/// that leads the requests only now and then is answered and goes quiet.
const PERSISTENT: f64 = 0.5;
/// A box is one of a starved cohort when it asked on at least this share of the cohort's hours.
const COHORT_MEMBER: f64 = 0.5;

impl Reset {
    fn label(self) -> &'static str {
        match self {
            Reset::Sat => "supply-air-temperature",
            Reset::Static => "duct-static",
        }
    }

    /// The inputs each box needs for this reset's requests.
    pub fn inputs(self) -> Inputs {
        match self {
            Reset::Sat => Inputs {
                required: &["space_temp", "cool_sp"],
                optional: &["supply_fan_status", "occupancy", "zone_cool_loop"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
            Reset::Static => Inputs {
                required: &["airflow", "airflow_sp", "damper"],
                optional: &["supply_fan_status", "occupancy", "space_temp", "cool_sp"],
                gating: &[],
                one_of: &[],
                needs_gating: false,
            },
        }
    }
}

/// One box's requests on the fleet axis (NaN: no cycle, or the system off).
struct Requests {
    values: Vec<f64>,
    /// Whether the box trends a gate (fan or occupancy).
    gated: bool,
    /// Whether the box trends its cooling loop (the first supply-air tier).
    looped: bool,
}

fn requests(reset: Reset, fleet: &Fleet, m: usize) -> Requests {
    let n = fleet.times.len();
    let col = |r: &str| fleet.held(m, r);
    let mut values = crate::engine::nans(n);
    let mut looped = false;
    match reset {
        Reset::Sat => {
            let (Some(t), Some(sp)) = (col("space_temp"), col("cool_sp")) else {
                return Requests { values, gated: false, looped };
            };
            let lp = col("zone_cool_loop").map(|l| as_percent(&l));
            looped = lp.is_some();
            for i in 0..n {
                let over = t[i] - sp[i];
                if over.is_nan() {
                    continue;
                }
                let loop_high = lp.as_ref().is_some_and(|l| l[i] > 95.0);
                values[i] = if over >= HI_F {
                    3.0
                } else if over >= MID_F {
                    2.0
                } else if loop_high {
                    1.0
                } else {
                    0.0
                };
            }
        }
        Reset::Static => {
            let (Some(q), Some(qsp), Some(d)) = (col("airflow"), col("airflow_sp"), col("damper")) else {
                return Requests { values, gated: false, looped };
            };
            let d = as_percent(&d);
            for i in 0..n {
                if q[i].is_nan() || qsp[i].is_nan() || d[i].is_nan() {
                    continue;
                }
                let ratio = if qsp[i] > 0.0 { q[i] / qsp[i] } else { f64::INFINITY };
                values[i] = match (d[i] > DAMPER_WIDE, ratio) {
                    (false, _) => 0.0,
                    (true, r) if r < 0.5 => 3.0,
                    (true, r) if r < 0.7 => 2.0,
                    (true, _) => 1.0,
                };
            }
        }
    }
    let gates: Vec<Vec<f64>> = GATES.iter().filter_map(|g| col(g)).collect();
    for (i, v) in values.iter_mut().enumerate() {
        if gates.iter().any(|g| g[i].is_nan() || g[i] <= 0.5) {
            *v = f64::NAN;
        }
    }
    Requests { values, gated: !gates.is_empty(), looped }
}

/// Every member's requests, and the members with too few usable cycles to take part.
struct Census {
    reqs: Vec<Option<Requests>>,
    unevaluable: Vec<usize>,
    /// Members a gate left with too few cycles.
    gated_out: usize,
}

fn census(reset: Reset, fleet: &Fleet, min_cycles: usize) -> Census {
    let mut out = Census { reqs: Vec::new(), unevaluable: Vec::new(), gated_out: 0 };
    for m in 0..fleet.members.len() {
        let r = requests(reset, fleet, m);
        let usable = r.values.iter().filter(|v| !v.is_nan()).count();
        if usable < min_cycles {
            if r.gated {
                out.gated_out += 1;
            }
            out.unevaluable.push(m);
            out.reqs.push(None);
        } else {
            out.reqs.push(Some(r));
        }
    }
    out
}

fn count(spec: &RuleSpec, params: &Params, name: &str) -> usize {
    params.number(spec, name).max(0.0).round() as usize
}

/// The caveats every census shares: ungated cycles, gated-out and unevaluable boxes, boxes
/// without a cooling loop (supply air only).
fn census_caveats(reset: Reset, fleet: &Fleet, c: &Census, members: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    let usable: Vec<&Requests> = members.iter().filter_map(|&m| c.reqs[m].as_ref()).collect();
    if !usable.is_empty() && !usable.iter().any(|r| r.gated) {
        out.push("no box trends its supply fan or occupancy: every cycle counts, so a building left to float can read as every zone asking at once".to_string());
    }
    let gated_out = members.iter().filter(|m| c.unevaluable.contains(m)).count();
    if gated_out > 0 {
        let names: Vec<String> = members
            .iter()
            .filter(|m| c.unevaluable.contains(m))
            .map(|&m| camber_common::text::name(fleet.members[m].equip))
            .collect();
        out.push(format!(
            "{} box(es) had too few request cycles with the system on to take part ({}): the census may under-count",
            gated_out,
            names.join(", ")
        ));
    }
    let unlooped = usable.iter().filter(|r| !r.looped).count();
    if reset == Reset::Sat && unlooped > 0 {
        out.push(format!("{unlooped} of {} box(es) trend no zone_cool_loop: their first-tier requests (cooling loop above 95 %) are not counted", usable.len()));
    }
    out
}

fn group_name(fleet: &Fleet, g: &Group) -> String {
    match &g.label {
        Some(l) if g.served => format!("the boxes {} serves", camber_common::text::name(l)),
        Some(l) => format!("the {} boxes", camber_common::text::name(l)),
        None => format!("the {} boxes", fleet.members.len()),
    }
}

/// The rogue-zone census's parameters (the reference's names, defaults and ranges).
pub fn rogue_params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::number(
            "dominance_frac",
            0.5,
            "fraction of active cycles",
            (0.2, 0.9),
            "A screening level: a zone that holds the deciding request on half of the cycles when any zone asks is, in practice, the zone the reset answers to.",
            "On a group with no known rogue, read the highest binding fraction among its zones and set this above it.",
        ),
        ParamSpec::number(
            "share_mult",
            2.0,
            "- (multiple of an equal share)",
            (1.2, 5.0),
            "Twice an even split of the group's requests is lopsided enough to name a zone, and scales with the number of zones.",
            "A rogue needs a share of at least max(min_share, share_mult / zones); raise it to demand a more lopsided share in large groups.",
        ),
        ParamSpec::number(
            "min_share",
            0.3,
            "fraction of the group's requests",
            (0.1, 0.8),
            "A floor on the share for small groups, where twice an even split is already a large part of the requests.",
            "On a healthy group, read the largest share any zone sends and set this above it.",
        ),
        ParamSpec::number(
            "min_active_cycles",
            10.0,
            "count (request cycles)",
            (5.0, 500.0),
            "Fewer cycles with the system on than this say too little about a zone to count it, and a group whose zones asked on fewer cycles than this has too little demand for any zone to drag its reset.",
            "Raise it for long or finely sampled records; zones with fewer usable cycles are listed as not evaluated.",
        ),
        ParamSpec::number(
            "min_zones_per_group",
            2.0,
            "count",
            (2.0, 20.0),
            "A rogue is only a rogue beside at least one sibling on the same air handler.",
            "Raise it when small groups flag zones that merely serve a hotter space.",
        ),
    ]
}

/// The cohort-starvation census's parameters.
pub fn starvation_params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::number(
            "cohort_frac",
            0.75,
            "fraction of the group's zones",
            (0.5, 1.0),
            "Three boxes in four asking at once is a common cause, not a set of separate box faults.",
            "On a healthy air handler at peak load, read the largest share of its boxes asking at once and set this above it.",
        ),
        ParamSpec::number(
            "sustained_frac",
            0.5,
            "fraction of active cycles",
            (0.2, 0.9),
            "A cohort asking together on half the cycles when any box asks is a standing shortfall, not a morning pull-down.",
            "Read the sustained fraction of healthy air handlers over a hot week and set this above it; for supply air, check the outdoor air: a design day can starve a sound cohort.",
        ),
        ParamSpec::number(
            "min_active_cycles",
            10.0,
            "count (request cycles)",
            (5.0, 500.0),
            "Fewer cycles with the system on than this say too little about a zone or a group to judge it.",
            "Raise it for long or finely sampled records; a group needs this many active cycles before it is called starved.",
        ),
        ParamSpec::number(
            "min_zones_per_group",
            3.0,
            "count",
            (3.0, 20.0),
            "A common-mode pattern needs a cohort, not a pair.",
            "Raise it so that a few boxes asking together are not read as a whole starved air handler.",
        ),
        ParamSpec::number(
            "min_present_frac",
            f64::NAN,
            "fraction of the group's zones with data on a cycle",
            (0.25, 1.0),
            "Unset, it is cohort_frac: a cycle is judged only when as many boxes report as it takes to call a cohort, so one box still reporting through the others' outage cannot read as all of them.",
            "Lower it only when some boxes trend sparsely by design; the skipped cycles are counted in the finding.",
        ),
    ]
}

/// The rogue-zone census of each group of the fleet.
pub fn rogue_census(reset: Reset, spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let dominance = params.number(spec, "dominance_frac");
    let share_mult = params.number(spec, "share_mult");
    let min_share = params.number(spec, "min_share");
    let min_cycles = count(spec, params, "min_active_cycles");
    let min_zones = count(spec, params, "min_zones_per_group");
    let c = census(reset, fleet, min_cycles);
    let w = fleet.weights_hours();
    let mut out = Vec::new();
    for g in fleet.groups() {
        let zones: Vec<usize> = g.members.iter().copied().filter(|&m| c.reqs[m].is_some()).collect();
        let mut caveats = census_caveats(reset, fleet, &c, &g.members);
        let n = fleet.times.len();
        // per instant: the group's highest request and its total
        let mut row_max = crate::engine::nans(n);
        for &z in &zones {
            let r = &c.reqs[z].as_ref().expect("usable").values;
            for i in 0..n {
                if !r[i].is_nan() && (row_max[i].is_nan() || row_max[i] < r[i]) {
                    row_max[i] = r[i];
                }
            }
        }
        let active: Vec<usize> = (0..n).filter(|&i| row_max[i] > 0.0).collect();
        let active_h: f64 = active.iter().map(|&i| w[i]).sum();
        let mut total = 0.0;
        let mut sums: BTreeMap<usize, f64> = BTreeMap::new();
        let mut binding: BTreeMap<usize, f64> = BTreeMap::new();
        for &z in &zones {
            let r = &c.reqs[z].as_ref().expect("usable").values;
            let s: f64 = (0..n).filter(|&i| !r[i].is_nan()).map(|i| r[i] * w[i]).sum();
            total += s;
            sums.insert(z, s);
            let b: f64 = active.iter().filter(|&&i| r[i] == row_max[i]).map(|&i| w[i]).sum();
            binding.insert(z, if active_h > 0.0 { b / active_h } else { 0.0 });
        }
        let share = |z: usize| if total > 0.0 { sums[&z] / total } else { 0.0 };
        let mut metrics: BTreeMap<String, f64> = BTreeMap::new();
        metrics.insert("n_zones_evaluated".into(), zones.len() as f64);
        metrics.insert("n_zones_unevaluable".into(), (g.members.len() - zones.len()) as f64);
        metrics.insert("request_hours".into(), round2(total));
        metrics.insert("active_hours".into(), round2(active_h));
        for &z in &zones {
            let e = fleet.members[z].equip;
            metrics.insert(format!("request_share.{e}"), round3(share(z)));
            metrics.insert(format!("binding_frac.{e}"), round3(binding[&z]));
        }
        let name = group_name(fleet, &g);
        let label = reset.label();
        let finding = |sev: Severity, summary: String| Finding::new(spec, sev, summary).with_judged(active.len());
        if zones.len() < min_zones.max(1) || active.len() < min_cycles {
            let why = if zones.len() < min_zones.max(1) {
                format!("{} of {name} could be evaluated, and a rogue needs {min_zones} zones to compare", zones.len())
            } else if total <= 0.0 {
                format!("no zone of {name} sent a {label} request: the reset is not demand-bound, so no zone drags it")
            } else {
                format!(
                    "the zones of {name} asked on {} cycle(s), fewer than {min_cycles}: too little demand for any zone to drag the reset",
                    active.len()
                )
            };
            let sev = if zones.len() >= min_zones.max(1) { Severity::Ok } else { Severity::Info };
            let f =
                finding(sev, format!("{label} rogue-zone census: {why}")).with_metrics(metrics).with_caveats(caveats);
            out.push(FleetFinding { group: g.label.clone(), finding: f, equips: Vec::new() });
            continue;
        }
        let share_floor = min_share.max(share_mult / zones.len() as f64);
        // the share of the system's running hours on which a zone asks at all
        let asks_frac = |z: usize| {
            let r = &c.reqs[z].as_ref().expect("usable").values;
            let on: f64 = (0..n).filter(|&i| !r[i].is_nan()).map(|i| w[i]).sum();
            let asking: f64 = (0..n).filter(|&i| r[i] >= 1.0).map(|i| w[i]).sum();
            if on > 0.0 {
                asking / on
            } else {
                0.0
            }
        };
        let dominant: Vec<usize> =
            zones.iter().copied().filter(|&z| binding[&z] >= dominance && share(z) >= share_floor).collect();
        // a dominant zone that asks on fewer than half the running hours is answered and goes
        // quiet: it does not hold the reset
        let answered: Vec<usize> = dominant.iter().copied().filter(|&z| asks_frac(z) < PERSISTENT).collect();
        let mut rogues: Vec<usize> = dominant.iter().copied().filter(|z| !answered.contains(z)).collect();
        for &z in &dominant {
            metrics.insert(format!("asks_frac.{}", fleet.members[z].equip), round3(asks_frac(z)));
        }
        rogues.sort_by(|a, b| binding[b].total_cmp(&binding[a]).then(share(*b).total_cmp(&share(*a))));
        // a static rogue short of cooling is overloaded, not starved of air
        let mut overloaded: Vec<(usize, f64)> = Vec::new();
        if reset == Reset::Static {
            for &z in &rogues {
                if let Some(s) = overload_share(fleet, z, min_cycles) {
                    if s >= OVERLOAD_SHARE {
                        overloaded.push((z, s));
                    }
                }
            }
            rogues.retain(|z| !overloaded.iter().any(|(o, _)| o == z));
        }
        metrics.insert("rogues".into(), rogues.len() as f64);
        metrics.insert("share_floor".into(), round3(share_floor));
        if rogues.is_empty() && overloaded.is_empty() {
            let mut summary = format!(
                "{label} rogue-zone census: the {} zones of {name} share the requests without a rogue (largest share {:.0} %, highest binding fraction {:.0} %)",
                zones.len(),
                100.0 * zones.iter().map(|&z| share(z)).fold(0.0, crate::engine::max_of),
                100.0 * zones.iter().map(|&z| binding[&z]).fold(0.0, crate::engine::max_of),
            );
            for &z in &answered {
                summary.push_str(&format!(
                    "; {} leads the requests but asks on only {:.0} % of the running hours, so it is answered, not holding the reset",
                    camber_common::text::name(fleet.members[z].equip),
                    100.0 * asks_frac(z)
                ));
            }
            let f = finding(Severity::Ok, summary).with_metrics(metrics).with_caveats(caveats);
            out.push(FleetFinding { group: g.label.clone(), finding: f, equips: Vec::new() });
            continue;
        }
        let mut summary = String::new();
        let mut flagged: Vec<u32> = Vec::new();
        if let Some(&worst) = rogues.first() {
            let e = camber_common::text::name(fleet.members[worst].equip);
            metrics.insert("worst_zone_share".into(), round3(share(worst)));
            metrics.insert("worst_zone_binding_frac".into(), round3(binding[&worst]));
            let r = &c.reqs[worst].as_ref().expect("usable").values;
            flagged = active.iter().filter(|&&i| r[i] == row_max[i]).map(|&i| i as u32).collect();
            let names: Vec<String> =
                rogues.iter().map(|&z| camber_common::text::name(fleet.members[z].equip)).collect();
            summary = format!(
                "{e} drags the {label} reset of {name}: it holds the deciding request on {:.0} % of the active hours and sends {:.0} % of the requests (rogue zone(s): {})",
                100.0 * binding[&worst],
                100.0 * share(worst),
                names.join(", ")
            );
        }
        if !overloaded.is_empty() {
            let names: Vec<String> = overloaded
                .iter()
                .map(|(z, s)| {
                    format!(
                        "{} ({:.0} % of its static requests)",
                        camber_common::text::name(fleet.members[*z].equip),
                        100.0 * s
                    )
                })
                .collect();
            let words = format!(
                "{} also drag(s) the static reset because short of cooling, {OVERLOAD_F} °F or more above the cooling setpoint while asking: an overloaded zone, the supply-air census's rogue, not a starved inlet",
                names.join(", ")
            );
            summary = if summary.is_empty() {
                format!("no starved inlet drags the {label} reset of {name}; {words}")
            } else {
                format!("{summary}; {words}")
            };
            metrics.insert("overloaded".into(), overloaded.len() as f64);
            caveats.push("an overloaded zone needs its load or its box looked at, not its inlet".into());
        }
        let equips: Vec<String> = rogues
            .iter()
            .chain(overloaded.iter().map(|(z, _)| z))
            .map(|&z| fleet.members[z].equip.to_string())
            .collect();
        let f = finding(Severity::Warn, summary).with_metrics(metrics).with_caveats(caveats).with_flagged(flagged);
        out.push(FleetFinding { group: g.label.clone(), finding: f, equips });
    }
    out
}

/// The share of a box's static-request cycles (damper wide open, system on) with its space 3 °F
/// or more above its cooling setpoint; `None` without the temperatures or with too few cycles.
fn overload_share(fleet: &Fleet, m: usize, min_cycles: usize) -> Option<f64> {
    let t = fleet.held(m, "space_temp")?;
    let sp = fleet.held(m, "cool_sp")?;
    let d = as_percent(&fleet.held(m, "damper")?);
    let gates: Vec<Vec<f64>> = GATES.iter().filter_map(|g| fleet.held(m, g)).collect();
    let over: Vec<f64> = (0..fleet.times.len())
        .filter(|&i| d[i] > DAMPER_WIDE && gates.iter().all(|g| g[i] > 0.5))
        .map(|i| t[i] - sp[i])
        .filter(|x| !x.is_nan())
        .collect();
    (over.len() >= min_cycles).then(|| over.iter().filter(|&&x| x >= OVERLOAD_F).count() as f64 / over.len() as f64)
}

/// The cohort-starvation census of each group of the fleet.
pub fn starvation(reset: Reset, spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let cohort_frac = params.number(spec, "cohort_frac");
    let sustained_frac = params.number(spec, "sustained_frac");
    let min_cycles = count(spec, params, "min_active_cycles");
    let min_zones = count(spec, params, "min_zones_per_group");
    let present_frac = params.number(spec, "min_present_frac");
    let present_frac = if present_frac.is_nan() { cohort_frac } else { present_frac };
    let c = census(reset, fleet, min_cycles);
    let w = fleet.weights_hours();
    let label = reset.label();
    let mut out = Vec::new();
    for g in fleet.groups() {
        let zones: Vec<usize> = g.members.iter().copied().filter(|&m| c.reqs[m].is_some()).collect();
        let mut caveats = census_caveats(reset, fleet, &c, &g.members);
        let name = group_name(fleet, &g);
        let need = present_frac * zones.len() as f64 - 1e-9;
        let (mut active, mut cohort, mut skipped) = (Vec::new(), Vec::new(), 0usize);
        let mut total = 0.0;
        let mut asking: BTreeMap<usize, f64> = BTreeMap::new();
        for (i, &wi) in w.iter().enumerate() {
            let vals: Vec<(usize, f64)> = zones
                .iter()
                .filter_map(|&z| {
                    let v = c.reqs[z].as_ref().expect("usable").values[i];
                    (!v.is_nan()).then_some((z, v))
                })
                .collect();
            let top = vals.iter().map(|(_, v)| *v).fold(0.0, crate::engine::max_of);
            total += vals.iter().map(|(_, v)| v * wi).sum::<f64>();
            if vals.is_empty() || top <= 0.0 {
                continue;
            }
            if (vals.len() as f64) < need {
                skipped += 1;
                continue;
            }
            active.push(i);
            let requesting = vals.iter().filter(|(_, v)| *v >= 1.0).count();
            if requesting as f64 >= cohort_frac * vals.len() as f64 - 1e-9 {
                cohort.push(i);
                for (z, v) in &vals {
                    if *v >= 1.0 {
                        *asking.entry(*z).or_default() += wi;
                    }
                }
            }
        }
        let active_h: f64 = active.iter().map(|&i| w[i]).sum();
        let cohort_h: f64 = cohort.iter().map(|&i| w[i]).sum();
        let sustained = if active_h > 0.0 { cohort_h / active_h } else { 0.0 };
        let mut metrics: BTreeMap<String, f64> = BTreeMap::new();
        metrics.insert("n_zones_evaluated".into(), zones.len() as f64);
        metrics.insert("n_zones_unevaluable".into(), (g.members.len() - zones.len()) as f64);
        metrics.insert("request_hours".into(), round2(total));
        metrics.insert("active_hours".into(), round2(active_h));
        metrics.insert("cohort_hours".into(), round2(cohort_h));
        metrics.insert("sustained_frac".into(), round3(sustained));
        metrics.insert("skipped_cycles".into(), skipped as f64);
        metrics.insert("min_present_frac".into(), present_frac);
        if skipped > 0 {
            caveats.push(format!(
                "{skipped} active cycle(s) were not judged: fewer than {:.0} % of the boxes reported on them",
                100.0 * present_frac
            ));
        }
        if reset == Reset::Sat {
            caveats.push("boxes asking together for colder air can be a design day rather than a fault: check the outdoor air and supply_air_reset_compliance".into());
        }
        let finding = |sev: Severity, summary: String| Finding::new(spec, sev, summary).with_judged(active.len());
        if zones.len() < min_zones || total <= 0.0 || active.len() < min_cycles {
            let why = if zones.len() < min_zones {
                format!("{} box(es) of {name} could be evaluated, and a cohort needs {min_zones}", zones.len())
            } else if total <= 0.0 {
                format!("no box of {name} sent a {label} request: nothing is starved")
            } else {
                format!("{} active cycle(s) on {name}, fewer than the {min_cycles} a verdict needs", active.len())
            };
            let sev = if total <= 0.0 && zones.len() >= min_zones { Severity::Ok } else { Severity::Info };
            let f =
                finding(sev, format!("{label} cohort starvation: {why}")).with_metrics(metrics).with_caveats(caveats);
            out.push(FleetFinding { group: g.label.clone(), finding: f, equips: Vec::new() });
            continue;
        }
        if sustained < sustained_frac {
            let f = finding(
                Severity::Ok,
                format!(
                    "{label} cohort starvation: {:.0} % of the boxes of {name} asked together on {:.0} % of the active hours (below {:.0} %): no common shortfall",
                    100.0 * cohort_frac,
                    100.0 * sustained,
                    100.0 * sustained_frac
                ),
            )
            .with_metrics(metrics)
            .with_caveats(caveats);
            out.push(FleetFinding { group: g.label.clone(), finding: f, equips: Vec::new() });
            continue;
        }
        let upstream = match reset {
            Reset::Static => "look upstream: a supply fan at its limit, a static setpoint capped or not resetting up, a restricted duct",
            Reset::Sat => "look upstream: a supply-air setpoint held warm or not resetting down, or cooling capacity short",
        };
        // implicated: the air handler serving the group, then the boxes that asked on at least
        // half the cohort's hours (a box that seldom joined in is not short), longest first
        let mut boxes: Vec<(usize, f64)> =
            asking.into_iter().map(|(z, h)| (z, h / cohort_h)).filter(|(_, f)| *f >= COHORT_MEMBER).collect();
        boxes.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (z, f) in &boxes {
            metrics.insert(format!("asking_frac.{}", fleet.members[*z].equip), round3(*f));
        }
        let mut equips: Vec<String> = g.label.iter().filter(|_| g.served).cloned().collect();
        equips.extend(boxes.iter().map(|(z, _)| fleet.members[*z].equip.to_string()));
        let f = finding(
            Severity::Warn,
            format!(
                "{name} are starved as a cohort: at least {:.0} % of them asked for {label} together on {:.0} % of the active hours ({} h of {} h); {upstream}",
                100.0 * cohort_frac,
                100.0 * sustained,
                round2(cohort_h),
                round2(active_h)
            ),
        )
        .with_metrics(metrics)
        .with_caveats(caveats)
        .with_flagged(cohort.iter().map(|&i| i as u32).collect());
        out.push(FleetFinding { group: g.label.clone(), finding: f, equips });
    }
    out
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Fleets to test the censuses on, and the tests both resets share.
#[cfg(test)]
pub mod testkit {
    use super::Reset;
    use crate::config::RunConfig;
    use crate::engine::testing::{every, fleet, numbers, shuffled_with_duplicates, MONDAY};
    use crate::engine::{Frame, Params, Rule, Severity, NS_PER_HOUR};
    use crate::fleet::FleetFinding;
    use crate::run::{run, EquipFrame, RunRequest};

    /// A box over `n` samples `step` apart asking for `asks(i)` requests (0 to 3) of `reset`,
    /// the fan on from 06:00 to 18:00 and off otherwise (when the box asks for nothing).
    pub fn zone(reset: Reset, n: usize, step: i64, asks: impl Fn(usize) -> u8) -> Frame {
        let ts = every(MONDAY, step, n);
        let hour = |i: usize| ((i as i64 * step / NS_PER_HOUR) % 24) as usize;
        let fan: Vec<f64> = (0..n).map(|i| if (6..18).contains(&hour(i)) { 1.0 } else { 0.0 }).collect();
        let (mut temp, mut flow, mut damper) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let a = asks(i);
            let sat_over = [-1.0, -0.5, 3.5, 6.0][a as usize];
            temp.push(74.0 + if reset == Reset::Sat { sat_over } else { -1.0 });
            let (q, d) = if reset == Reset::Static {
                [(500.0, 60.0), (450.0, 98.0), (300.0, 99.0), (150.0, 100.0)][a as usize]
            } else {
                (500.0, 60.0)
            };
            flow.push(q);
            damper.push(d);
        }
        Frame::from_rows(
            &ts,
            &[
                ("space_temp", temp),
                ("cool_sp", vec![74.0; n]),
                ("airflow", flow),
                ("airflow_sp", vec![500.0; n]),
                ("damper", damper),
                ("supply_fan_status", fan),
            ],
        )
    }

    /// Three weeks of hours.
    pub const N: usize = 21 * 24;

    /// A box that asks for two requests in one hour of each occupied day (its own hour).
    pub fn now_and_then(reset: Reset, k: usize) -> Frame {
        zone(reset, N, NS_PER_HOUR, move |i| if i % 24 == 8 + k { 2 } else { 0 })
    }

    /// A box that asks for three requests through every occupied hour.
    pub fn always(reset: Reset) -> Frame {
        zone(reset, N, NS_PER_HOUR, |i| if (7..18).contains(&(i % 24)) { 3 } else { 0 })
    }

    fn of(rule: &Rule, frames: &[(&str, Option<&str>, Frame)], p: &Params) -> Vec<FleetFinding> {
        let m: Vec<(&str, Option<&str>, &Frame)> = frames.iter().map(|(e, g, f)| (*e, *g, f)).collect();
        fleet(rule, &m, p)
    }

    /// The worst severity of a fleet's findings.
    pub fn worst(v: &[FleetFinding]) -> Severity {
        v.iter().map(|f| f.finding.severity).max().expect("a finding")
    }

    /// The rogue census: a fleet sharing its requests is ok; one box asking all day is named.
    pub fn rogue_found(rule: &Rule, reset: Reset) {
        let even: Vec<(String, Frame)> = (0..4).map(|k| (format!("V{k}"), now_and_then(reset, k))).collect();
        let frames: Vec<(&str, Option<&str>, Frame)> =
            even.iter().map(|(e, f)| (e.as_str(), None, f.clone())).collect();
        let ok = of(rule, &frames, &Params::default());
        assert_eq!(ok.len(), 1);
        assert_eq!((ok[0].finding.severity, ok[0].group.clone()), (Severity::Ok, None), "{}", ok[0].finding.summary);
        assert!(ok[0].equips.is_empty());
        let mut frames = frames;
        frames[2].2 = always(reset);
        let bad = of(rule, &frames, &Params::default());
        assert_eq!(bad[0].finding.severity, Severity::Warn, "{}", bad[0].finding.summary);
        assert_eq!(bad[0].equips, ["V2"]);
        assert!(bad[0].finding.summary.starts_with("\"V2\" drags the"), "{}", bad[0].finding.summary);
        assert!(bad[0].finding.metrics["request_share.V2"] > 0.8, "{:?}", bad[0].finding.metrics);
        assert!(!bad[0].finding.flagged.is_empty());
        // leading the requests four hours a day is being answered, not holding the reset
        frames[2].2 = zone(reset, N, NS_PER_HOUR, |i| if (13..17).contains(&(i % 24)) { 3 } else { 0 });
        let now_and_then = of(rule, &frames, &Params::default());
        let f = &now_and_then[0].finding;
        assert!(f.metrics["binding_frac.V2"] >= 0.5 && f.metrics["request_share.V2"] >= 0.5, "{:?}", f.metrics);
        assert_eq!(f.severity, Severity::Ok, "{}", f.summary);
        assert!(
            f.summary.contains("\"V2\" leads the requests but asks on only 33 % of the running hours"),
            "{}",
            f.summary
        );
    }

    /// The cohort census: boxes asking now and then are fine; all asking at once are starved.
    pub fn cohort_found(rule: &Rule, reset: Reset) {
        let even: Vec<(String, Frame)> = (0..4).map(|k| (format!("V{k}"), now_and_then(reset, k))).collect();
        let frames: Vec<(&str, Option<&str>, Frame)> =
            even.iter().map(|(e, f)| (e.as_str(), Some("AHU-1"), f.clone())).collect();
        let ok = of(rule, &frames, &Params::default());
        assert_eq!(
            (ok[0].finding.severity, ok[0].group.as_deref()),
            (Severity::Ok, Some("AHU-1")),
            "{}",
            ok[0].finding.summary
        );
        let starved: Vec<(&str, Option<&str>, Frame)> =
            ["V0", "V1", "V2", "V3"].iter().map(|e| (*e, Some("AHU-1"), always(reset))).collect();
        let bad = of(rule, &starved, &Params::default());
        assert_eq!(bad[0].finding.severity, Severity::Warn, "{}", bad[0].finding.summary);
        assert_eq!(bad[0].equips[0], "AHU-1", "the air handler first");
        assert_eq!(bad[0].equips.len(), 5);
        assert_eq!(bad[0].finding.metrics["sustained_frac"], 1.0);
    }

    /// Boundaries: a rogue is not one when the dominance asked for is above its binding share;
    /// a cohort is not starved when the sustained share asked for is above its own.
    pub fn boundaries(rule: &Rule, reset: Reset, rogue: bool) {
        let mut frames: Vec<(String, Option<&str>, Frame)> =
            (0..4).map(|k| (format!("V{k}"), Some("AHU-1"), now_and_then(reset, k))).collect();
        if rogue {
            frames[0].2 = always(reset);
        } else {
            for f in frames.iter_mut() {
                f.2 = always(reset);
            }
        }
        let frames: Vec<(&str, Option<&str>, Frame)> =
            frames.iter().map(|(e, g, f)| (e.as_str(), *g, f.clone())).collect();
        let got = of(rule, &frames, &Params::default());
        let (name, value) = if rogue {
            ("dominance_frac", got[0].finding.metrics["binding_frac.V0"])
        } else {
            ("sustained_frac", got[0].finding.metrics["sustained_frac"])
        };
        // exactly at the level flags; just above it does not
        let at = of(rule, &frames, &numbers(&[(name, value.min(0.9))]));
        assert_eq!(worst(&at), Severity::Warn, "{name} at {value}");
        if value < 0.9 {
            let above = of(rule, &frames, &numbers(&[(name, value + 0.01)]));
            assert_eq!(worst(&above), Severity::Ok, "{name} above {value}: {}", above[0].finding.summary);
        }
    }

    /// Gaps, repeated and disordered rows and uneven sampling leave the verdict alone.
    pub fn sampling(rule: &Rule, reset: Reset) {
        let mut frames: Vec<(String, Option<&str>, Frame)> =
            (0..4).map(|k| (format!("V{k}"), None, now_and_then(reset, k))).collect();
        frames[1].2 = always(reset);
        let base: Vec<(&str, Option<&str>, Frame)> =
            frames.iter().map(|(e, g, f)| (e.as_str(), *g, f.clone())).collect();
        let want = of(rule, &base, &Params::default());
        // disorder and duplicates
        let shuffled: Vec<(&str, Option<&str>, Frame)> =
            base.iter().map(|(e, g, f)| (*e, *g, shuffled_with_duplicates(f))).collect();
        let got = of(rule, &shuffled, &Params::default());
        assert_eq!(got[0].finding.summary, want[0].finding.summary);
        assert_eq!(got[0].equips, want[0].equips);
        // a week of one box missing: still the same rogue
        let mut gap = base.clone();
        let f = &gap[3].2;
        let keep: Vec<usize> = (0..f.len()).filter(|&i| !(100..268).contains(&i)).collect();
        gap[3].2 = Frame {
            ts: keep.iter().map(|&i| f.ts[i]).collect(),
            cols: f.cols.iter().map(|(k, c)| (k.clone(), keep.iter().map(|&i| c[i]).collect())).collect(),
        };
        let got = of(rule, &gap, &Params::default());
        assert_eq!((worst(&got), got[0].equips.clone()), (worst(&want), want[0].equips.clone()));
        // the rogue trended every 30 minutes, the others hourly
        let mut uneven = base.clone();
        uneven[1].2 = zone(reset, 2 * N, NS_PER_HOUR / 2, |i| if (14..36).contains(&(i % 48)) { 3 } else { 0 });
        let got = of(rule, &uneven, &Params::default());
        assert_eq!(
            (worst(&got), got[0].equips.clone()),
            (worst(&want), want[0].equips.clone()),
            "{}",
            got[0].finding.summary
        );
    }

    /// A box asking only while its fan is off asks for nothing.
    pub fn equipment_off(rule: &Rule, reset: Reset) {
        let mut frames: Vec<(String, Option<&str>, Frame)> =
            (0..4).map(|k| (format!("V{k}"), None, now_and_then(reset, k))).collect();
        frames[0].2 = zone(reset, N, NS_PER_HOUR, |i| if (19..24).contains(&(i % 24)) { 3 } else { 0 });
        let frames: Vec<(&str, Option<&str>, Frame)> =
            frames.iter().map(|(e, g, f)| (e.as_str(), *g, f.clone())).collect();
        let got = of(rule, &frames, &Params::default());
        assert!(worst(&got) <= Severity::Ok, "{}", got[0].finding.summary);
        assert!(got[0].equips.is_empty());
    }

    /// Through a run: a box without an input is a skip naming it, the others still judged, and a
    /// topology groups them by air handler.
    pub fn through_a_run(rule_id: &str, reset: Reset, missing: &str) {
        let c = RunConfig::from_value(&serde_json::json!({
            "equipment": [{"class": "VAV"}], "rules": [rule_id],
            "topology": {"parents": {"V0": "AHU-1", "V1": "AHU-1", "V2": "AHU-1", "V3": "AHU-1", "W0": "AHU-2", "W1": "AHU-2", "W2": "AHU-2"}}
        }))
        .unwrap();
        let mut frames: Vec<EquipFrame> = (0..4)
            .map(|k| EquipFrame { equip: format!("V{k}"), class: "VAV".into(), frame: now_and_then(reset, k) })
            .chain((0..3).map(|k| EquipFrame {
                equip: format!("W{k}"),
                class: "VAV".into(),
                frame: now_and_then(reset, k),
            }))
            .collect();
        frames[4].frame.cols.remove(missing);
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
        assert_eq!(r.skipped.len(), 1);
        assert_eq!((r.skipped[0].equip.as_str(), r.skipped[0].missing.clone()), ("W0", vec![missing.to_string()]));
        let mut ids: Vec<&str> = r.findings.iter().map(|f| f.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, [format!("{rule_id}@<fleet:AHU-1>"), format!("{rule_id}@<fleet:AHU-2>")]);
        let ahu1 = r.findings.iter().find(|f| f.group.as_deref() == Some("AHU-1")).unwrap();
        assert_eq!(ahu1.members, ["V0", "V1", "V2", "V3"]);
        assert!(!ahu1.finding.caveats.iter().any(|c| c.contains("no topology")), "{:?}", ahu1.finding.caveats);
        assert!(r.findings.iter().all(|f| f.class == "fleet" && f.group.is_some()));
        assert!(
            !r.findings[0].finding.caveats.iter().any(|c| c.contains("no topology")),
            "{:?}",
            r.findings[0].finding.caveats
        );
        // without a topology: one pool, with the caveat that says so
        let c =
            RunConfig::from_value(&serde_json::json!({"equipment": [{"class": "VAV"}], "rules": [rule_id]})).unwrap();
        let r = run(&c, &RunRequest { min_trust: 0.5, ..Default::default() }, &frames, &[]).unwrap();
        assert_eq!(r.findings.len(), 1);
        assert_eq!(r.findings[0].id, format!("{rule_id}@<fleet>"));
        assert!(r.findings[0].finding.caveats.iter().any(|c| c.contains("no topology")));
    }

    /// Degenerate fleets do not panic: one box, empty and all-NaN frames.
    pub fn degenerate(rule: &Rule, reset: Reset) {
        let one = of(rule, &[("V0", None, always(reset))], &Params::default());
        assert_eq!(one[0].finding.severity, Severity::Info, "{}", one[0].finding.summary);
        let empty = Frame::default();
        let mut nan = always(reset);
        for c in nan.cols.values_mut() {
            c.iter_mut().for_each(|v| *v = f64::NAN);
        }
        let got = of(rule, &[("V0", None, empty), ("V1", None, nan)], &Params::default());
        assert_eq!(worst(&got), Severity::Info);
    }
}
