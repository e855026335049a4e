//! `chiller_staging_fleet` (a fleet rule): a plant that runs more chillers than its load needs.
//! Two chillers at part load where one could carry the load waste energy (each sits low on its
//! efficiency curve, and pumps and towers double up). The chillers of each plant (the run
//! config's topology: each chiller's plant; without one, every chiller pooled by class) are read
//! together on their merged timestamps, each held for the time its sample stands for. A chiller
//! runs by its status, else its power above `run_frac` of its 95th-percentile draw (or above
//! `min_power_kw`, as [`super::chiller_staging`] reads it); its load is its power while running.
//! An instant is over-staged when two or more chillers run and their total load would fit in one
//! fewer: `total <= (running - 1) x capacity x redundancy_ceiling`, the plant's capacity the
//! median of its chillers'. A chiller's load and capacity are its power and the declared
//! `capacity_kw` (one figure, or one per chiller keyed by equipment patterns); with none declared,
//! the cooling it makes (tons from its chilled-water flow and temperatures) and its capacity rated
//! from its design flow (the 95th percentile of its running flow at the AHRI rating's 2.4 gpm a
//! ton) where every chiller of the plant trends them, else its power and its own 95th-percentile
//! running power (which reads low on a plant that never loads a chiller fully). The share of the time
//! two or more run that is over-staged warns from 20 % and faults from 50 %; the finding names
//! the chillers that ran in the over-staged hours, the most hours first. Chilled-water loops
//! (`CHW_LOOP`, `SECLOOP`: their power is their pumps') are left out and counted.
//!
//! Unlike the reference, which pools every chiller it is given on one clock, the chillers are
//! grouped by plant, shares and hours are of time, an undeclared capacity is rated from the design
//! flow where the flows are trended (the reference reads the observed power, whose understatement
//! hides an over-staged plant's low part load), and a warn or fault names the chillers it
//! implicates (`equips`), so a label on a chiller can be scored.

use std::collections::BTreeMap;

use crate::chiller::{by_status, is_chw_loop, p95_positive, tons};
use crate::economizer::percentile;
use crate::engine::{
    median, round2, severity_of, weighted_quantile, Finding, Frame, Inputs, ParamSpec, Params, Rule, RuleSpec, Severity,
};
use crate::fleet::{Fleet, FleetFinding};

/// The rule as the engine runs it.
pub const RULE: Rule = Rule::fleet(spec, evaluate);

/// Over-staged shares of the multi-chiller time (%) that warn and that fault.
const WARN_PCT: f64 = 20.0;
const FAULT_PCT: f64 = 50.0;
/// Fewest power samples a chiller needs to be read.
const MIN_SAMPLES: usize = 10;

/// The rule's declaration.
pub fn spec() -> RuleSpec {
    let [min_power, run_frac] = super::chiller_staging::run_gate_params();
    RuleSpec {
        id: "chiller_staging_fleet",
        families: &["chw_plant"],
        inputs: Inputs {
            required: &["power"],
            optional: &["compressor_status", "chw_flow", "chw_supply_temp", "chw_return_temp"],
            gating: &[],
            one_of: &[],
            needs_gating: false,
        },
        params: vec![
            ParamSpec::number(
                "redundancy_ceiling",
                0.9,
                "fraction of one chiller's capacity",
                (0.5, 1.0),
                "a chiller is loaded to about 90 % of its capacity before a sequence stages the next one on; below that the extra machine is redundant",
                "Use the stage-up load of the plant's sequence (often 0.85-0.95 of capacity). Without capacity_kw the capacity is each chiller's 95th-percentile power, which reads low on a plant that never loads a chiller fully: declare capacity_kw, or lower this if the flagged hours look like correct staging.",
            ),
            ParamSpec::number(
                "capacity_kw",
                f64::NAN,
                "kW (one number, or {equip: kW})",
                (10.0, 5000.0),
                "unset, a chiller's capacity is rated from its design evaporator flow (2.4 gpm a ton, the AHRI rating) against the cooling it makes where the plant's flows and temperatures are trended, else its own 95th-percentile running power (which reads low on a plant that never loads a chiller fully); a declared full-load power is a site input, not a threshold",
                "Enter each chiller's full-load electric power from its nameplate, selection or start-up report: one number for equal chillers, or one per chiller keyed by equipment patterns ({\"CH-1\": 450, \"CH-2\": 300}); a chiller no pattern names keeps its observed figure.",
            ),
            min_power,
            run_frac,
        ],
        judged_basis: "instants with two or more of a plant's chillers running",
    }
}

/// A chiller's evaporator flow per ton of capacity at the AHRI 550/590 rating conditions (a
/// 10 °F delta-T): its design flow says what it was selected to carry.
pub const RATED_GPM_PER_TON: f64 = 2.4;

/// One chiller of a group, read on the fleet's axis.
struct Chiller {
    member: usize,
    running: Vec<bool>,
    /// Its power where it runs, 0 elsewhere (NaN where it has no reading).
    load: Vec<f64>,
    capacity: f64,
    declared: bool,
    status: bool,
    /// With its chilled-water flow and both temperatures: the cooling it makes where it runs
    /// (tons, 0 elsewhere) and its capacity rated from its design flow.
    tons: Option<(Vec<f64>, f64)>,
}

/// The cooling a chiller makes on its own samples where it runs (tons, 0 where it does not),
/// and its rated capacity: the 95th percentile of its running flow at [`RATED_GPM_PER_TON`].
/// `None` without the flow and both temperatures, or with no running flow.
fn tons_of(f: &Frame, on: &[bool]) -> Option<(Vec<f64>, f64)> {
    let (flow, chwr, chws) = (f.col("chw_flow")?, f.col("chw_return_temp")?, f.col("chw_supply_temp")?);
    let mut running: Vec<f64> = (0..f.len()).filter(|&i| on[i] && flow[i] > 0.0).map(|i| flow[i]).collect();
    running.sort_by(f64::total_cmp);
    let rated = percentile(&running, 95.0) / RATED_GPM_PER_TON;
    if rated.is_nan() || rated <= 0.0 {
        return None;
    }
    let t = (0..f.len()).map(|i| if on[i] { tons(flow[i], chwr[i], chws[i]).max(0.0) } else { 0.0 }).collect();
    Some((t, rated))
}

/// A chiller's run and load on the fleet's axis, `None` when it has too few power samples or
/// never runs.
fn read(spec: &RuleSpec, fleet: &Fleet, member: usize, params: &Params) -> Option<Chiller> {
    let m = &fleet.members[member];
    let own = params.for_equip(m.equip);
    let f: &Frame = m.frame;
    let power = f.col("power")?;
    if power.iter().filter(|p| !p.is_nan()).count() < MIN_SAMPLES {
        return None;
    }
    // the run on the chiller's own samples, then held on the axis
    let (on_own, status) = match f.col("compressor_status").and_then(by_status) {
        Some(on) => (on, true),
        None => {
            let min_kw = own.number(spec, "min_power_kw");
            let thr = if min_kw.is_nan() { own.number(spec, "run_frac") * p95_positive(power) } else { min_kw };
            if thr.is_nan() || thr <= 0.0 {
                return None;
            }
            let on: Vec<bool> = power.iter().map(|p| if min_kw.is_nan() { *p > thr } else { *p >= thr }).collect();
            (on, false)
        }
    };
    if !on_own.iter().any(|r| *r) {
        return None;
    }
    let mut working: Vec<f64> = (0..f.len()).filter(|&i| on_own[i] && !power[i].is_nan()).map(|i| power[i]).collect();
    working.sort_by(f64::total_cmp);
    let declared = own.number(spec, "capacity_kw");
    let capacity = if declared.is_nan() { percentile(&working, 95.0) } else { declared };
    let on_f: Vec<f64> = on_own.iter().map(|r| if *r { 1.0 } else { 0.0 }).collect();
    let held_on = fleet.hold(member, &on_f);
    let held_p = fleet.hold(member, power);
    let running: Vec<bool> = held_on.iter().map(|v| *v > 0.5).collect();
    let load = held_p
        .iter()
        .zip(&running)
        .map(|(p, r)| {
            if *r {
                *p
            } else if p.is_nan() {
                f64::NAN
            } else {
                0.0
            }
        })
        .collect();
    let tons = tons_of(f, &on_own).map(|(t, rated)| {
        let held = fleet.hold(member, &t);
        (
            held.iter()
                .zip(&running)
                .map(|(t, r)| {
                    if *r {
                        *t
                    } else if t.is_nan() {
                        f64::NAN
                    } else {
                        0.0
                    }
                })
                .collect(),
            rated,
        )
    });
    Some(Chiller { member, running, load, capacity, declared: !declared.is_nan(), status, tons })
}

/// Judge the fleet, one finding per plant (group) with chillers.
pub fn evaluate(spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
    let mut out = Vec::new();
    let groups = fleet.groups();
    for g in &groups {
        let (loops, chillers): (Vec<usize>, Vec<usize>) =
            g.members.iter().partition(|&&k| is_chw_loop(fleet.members[k].class));
        if chillers.is_empty() {
            continue;
        }
        out.push(judge(spec, fleet, params, g.label.clone(), &chillers, loops.len()));
    }
    if out.is_empty() && !fleet.members.is_empty() {
        let n = fleet.members.len();
        let mut f =
            Finding::not_judged(spec, "no chillers: every unit is a chilled-water loop, whose power is its pumps'");
        f.metrics.insert("n_loops_excluded".into(), n as f64);
        out.push(FleetFinding { group: None, finding: f, equips: Vec::new() });
    }
    out
}

fn judge(
    spec: &RuleSpec,
    fleet: &Fleet,
    params: &Params,
    group: Option<String>,
    members: &[usize],
    n_loops: usize,
) -> FleetFinding {
    let p = |name: &str| params.number(spec, name);
    let mut caveats = Vec::new();
    if n_loops > 0 {
        caveats.push(format!(
            "{n_loops} chilled-water loop(s) left out: a loop's power point is its pumps', not a chiller's"
        ));
    }
    let chillers: Vec<Chiller> = members.iter().filter_map(|&k| read(spec, fleet, k, params)).collect();
    let mut metrics = BTreeMap::new();
    metrics.insert("n_chillers".into(), chillers.len() as f64);
    metrics.insert("n_loops_excluded".into(), n_loops as f64);
    if chillers.len() < 2 {
        let mut f = Finding::not_judged(
            spec,
            "a plant needs two or more chillers with a power trend that runs to be judged for staging",
        )
        .with_metrics(metrics);
        f.caveats.extend(caveats);
        return FleetFinding { group, finding: f, equips: Vec::new() };
    }
    let declared = chillers.iter().filter(|c| c.declared).count();
    // the basis: power against a declared or observed capacity, or, with nothing declared and
    // every chiller's flow and temperatures trended, its cooling against its rated capacity
    let rated = declared == 0 && chillers.iter().all(|c| c.tons.is_some());
    let mut caps: Vec<f64> = if rated {
        chillers.iter().filter_map(|c| c.tons.as_ref().map(|t| t.1)).collect()
    } else {
        chillers.iter().map(|c| c.capacity).collect()
    };
    let cap = median(&mut caps);
    let (unit, capacity_source) = match declared {
        _ if rated => ("tons", "rated from its design flow"),
        0 => ("kW", "observed"),
        d if d == chillers.len() => ("kW", "declared"),
        _ => ("kW", "mixed"),
    };
    let load_of = |c: &Chiller, i: usize| if rated { c.tons.as_ref().map_or(f64::NAN, |t| t.0[i]) } else { c.load[i] };
    if rated {
        caveats.push(format!(
            "no capacity_kw declared: each chiller's capacity ({cap:.0} tons) is its design evaporator flow at the AHRI rating of 2.4 gpm a ton (a 10 °F delta-T) and its load the cooling it makes; a chiller selected for a wider delta-T carries more, and a plant staging chillers for flow (low delta-T coils) reads as over-staged here: declare capacity_kw to judge on power"
        ));
    } else if declared < chillers.len() {
        caveats.push(format!(
            "the chillers' capacity ({cap:.0} kW) is read from their own 95th-percentile running power{}: a plant that never loads a chiller fully (an over-staged one) reads a low capacity and understates its over-staging; declare capacity_kw",
            if declared > 0 { " for some of them" } else { "" }
        ));
    }
    if chillers.iter().any(|c| !c.status) {
        caveats.push("some chiller has no run status mapped: it runs by its power above a tenth of its own 95th-percentile draw (or min_power_kw)".into());
    }
    // the group's instants (where any of its chillers has a power reading), each weighing the
    // time it stands for on the group's own axis
    let axis: Vec<usize> = (0..fleet.times.len()).filter(|&i| chillers.iter().any(|c| !c.load[i].is_nan())).collect();
    let sub_weights =
        Frame { ts: axis.iter().map(|&i| fleet.times[i]).collect(), cols: BTreeMap::new() }.weights_hours();
    let w = sub_weights;
    let ceiling = p("redundancy_ceiling");
    let (mut any_h, mut multi_h, mut over_h) = (0.0, 0.0, 0.0);
    let (mut n_any, mut n_multi) = (0usize, 0usize);
    let mut counts: Vec<(f64, f64)> = Vec::new();
    let mut flagged = Vec::new();
    let mut over_by: Vec<f64> = vec![0.0; chillers.len()];
    for (k, &i) in axis.iter().enumerate() {
        let n = chillers.iter().filter(|c| c.running[i]).count();
        if n == 0 {
            continue;
        }
        n_any += 1;
        any_h += w[k];
        counts.push((n as f64, w[k]));
        if n < 2 {
            continue;
        }
        n_multi += 1;
        multi_h += w[k];
        let total: f64 = chillers.iter().filter(|c| c.running[i]).map(|c| load_of(c, i)).filter(|v| !v.is_nan()).sum();
        // a hair of tolerance: a load of exactly the limit is over-staged
        if total <= (n - 1) as f64 * cap * ceiling + 1e-9 {
            over_h += w[k];
            flagged.push(i as u32);
            for (j, c) in chillers.iter().enumerate() {
                if c.running[i] {
                    over_by[j] += w[k];
                }
            }
        }
    }
    let pct = if multi_h > 0.0 { 100.0 * over_h / multi_h } else { 0.0 };
    // pct is 0 when no sample ran more than one chiller
    let severity = severity_of(pct + 1e-9, WARN_PCT, FAULT_PCT);
    metrics.insert("n_running_samples".into(), n_any as f64);
    metrics.insert("n_multi_samples".into(), n_multi as f64);
    metrics.insert("running_hours".into(), round2(any_h));
    metrics.insert("multi_hours".into(), round2(multi_h));
    metrics.insert("overstaged_hours".into(), round2(over_h));
    metrics.insert("pct_overstaged".into(), round2(pct));
    metrics.insert("median_running_count".into(), round2(weighted_quantile(&mut counts, 0.5)).max(0.0));
    if rated {
        metrics.insert("rep_capacity_tons".into(), round2(cap));
    } else {
        metrics.insert("rep_capacity_kw".into(), round2(cap));
    }
    if !rated && declared < chillers.len() {
        // the value an unset capacity_kw fell back to, as the finding's parameters report it
        metrics.insert("capacity_kw".into(), round2(cap));
    }
    let mut equips: Vec<(f64, &str)> = Vec::new();
    if severity >= Severity::Warn {
        equips = chillers
            .iter()
            .zip(&over_by)
            .filter(|(_, h)| **h > 0.0)
            .map(|(c, h)| (*h, fleet.members[c.member].equip))
            .collect();
        equips.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    }
    let named: Vec<String> = equips.iter().map(|(_, e)| e.to_string()).collect();
    let summary = if n_multi == 0 {
        format!("{} chillers never ran two at a time: no staging to judge, none over-staged", chillers.len())
    } else {
        format!(
            "{} chillers: {pct:.0} % of the {multi_h:.0} h two or more ran ({over_h:.0} h) were over-staged, one fewer could have carried the load (capacity {cap:.0} {unit} each, {capacity_source}){}",
            chillers.len(),
            if named.is_empty() {
                String::new()
            } else {
                let named: Vec<String> = named.iter().map(|e| camber_common::text::name(e)).collect();
                format!("; {} could stage off", named.join(" or "))
            }
        )
    };
    let finding = Finding::new(spec, severity, summary)
        .with_caveats(caveats)
        .with_metrics(metrics)
        .with_flagged(flagged)
        .with_judged(n_multi);
    FleetFinding { group, finding, equips: named }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, numbers, shuffled_with_duplicates, H, MINUTE, MONDAY};
    use crate::fleet::Member;

    /// A week at 15 minutes of one chiller: running by `on(hour of the week)` at `kw(hour)`,
    /// 5 kW standby otherwise, with or without its status.
    fn chiller(on: impl Fn(f64) -> bool, kw: impl Fn(f64) -> f64, status: bool) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hours: Vec<f64> = (0..n).map(|i| i as f64 / 4.0).collect();
        let run: Vec<bool> = hours.iter().map(|&t| on(t)).collect();
        let mut cols = vec![("power", hours.iter().zip(&run).map(|(&t, &r)| if r { kw(t) } else { 5.0 }).collect())];
        if status {
            cols.push(("compressor_status", run.iter().map(|r| f64::from(u8::from(*r))).collect()));
        }
        Frame::from_rows(&ts, &cols)
    }

    fn day(t: f64) -> bool {
        (6.0..18.0).contains(&(t % 24.0))
    }

    /// A day's plant load (kW): 80 rising to 230 at mid-afternoon.
    fn plant_kw(t: f64) -> f64 {
        80.0 + 150.0 * (1.0 - ((t % 24.0 - 15.0) / 9.0).powi(2)).max(0.0)
    }

    fn fleet_of<'a>(units: &'a [(&'a str, &'a str, Option<&'a str>, Frame)]) -> Fleet<'a> {
        Fleet::new(units.iter().map(|(e, c, p, f)| Member { equip: e, class: c, parent: *p, frame: f }).collect())
    }

    fn judge_all(units: &[(&str, &str, Option<&str>, Frame)], params: &Params) -> Vec<FleetFinding> {
        RULE.evaluate_fleet(&spec(), &fleet_of(units), params)
    }

    /// Lead and lag: the lead carries up to 150 kW, the lag runs only above it (at 40 kW more
    /// than the excess: a machine has a minimum load).
    fn staged(status: bool) -> Vec<(&'static str, &'static str, Option<&'static str>, Frame)> {
        vec![
            ("CH1", "CHILLER", None, chiller(day, |t| plant_kw(t).min(150.0), status)),
            (
                "CH2",
                "CHILLER",
                None,
                chiller(|t| day(t) && plant_kw(t) > 150.0, |t| plant_kw(t) - 150.0 + 40.0, status),
            ),
        ]
    }

    /// Both chillers on whenever the plant runs, sharing its load.
    fn both_on(status: bool) -> Vec<(&'static str, &'static str, Option<&'static str>, Frame)> {
        vec![
            ("CH1", "CHILLER", None, chiller(day, |t| plant_kw(t) / 2.0, status)),
            ("CH2", "CHILLER", None, chiller(day, |t| plant_kw(t) / 2.0, status)),
        ]
    }

    #[test]
    fn a_staged_plant_is_ok_and_an_over_staged_one_names_its_chillers() {
        let ok = judge_all(&staged(true), &Params::default());
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].finding.severity, Severity::Ok, "{}", ok[0].finding.summary);
        assert!(ok[0].equips.is_empty());
        // both on: declared at 250 kW each, nearly every two-chiller hour fits in one
        let declared = numbers(&[("capacity_kw", 250.0)]);
        let bad = judge_all(&both_on(true), &declared);
        assert_eq!(bad[0].finding.severity, Severity::Fault, "{}", bad[0].finding.summary);
        assert_eq!(bad[0].equips, ["CH1", "CH2"]);
        assert!(bad[0].finding.metrics["pct_overstaged"] > 50.0);
        assert!(!bad[0].finding.caveats.iter().any(|c| c.contains("95th-percentile running power")));
        // observed capacities (each chiller's own 95th percentile, about 115 kW) read a low
        // capacity, so they understate it, and say so
        let observed = judge_all(&both_on(true), &Params::default());
        assert!(observed[0].finding.metrics["pct_overstaged"] < bad[0].finding.metrics["pct_overstaged"]);
        assert!(observed[0].finding.caveats.iter().any(|c| c.contains("declare capacity_kw")));
        // the capacity an unset capacity_kw fell back to is reported under its name
        let m = &observed[0].finding.metrics;
        assert_eq!(m["capacity_kw"], m["rep_capacity_kw"]);
        assert!(!bad[0].finding.metrics.contains_key("capacity_kw"));
    }

    /// A 300-ton chiller (720 gpm, the AHRI 2.4 gpm a ton) by `tons(hour)` while `on(hour)`:
    /// its status, power, flow and loop temperatures.
    fn metered(on: impl Fn(f64) -> bool, tons: impl Fn(f64) -> f64) -> Frame {
        let n = 7 * 96;
        let ts = every(MONDAY, 15 * MINUTE, n);
        let hours: Vec<f64> = (0..n).map(|i| i as f64 / 4.0).collect();
        let run: Vec<bool> = hours.iter().map(|&t| on(t)).collect();
        let t: Vec<f64> = hours.iter().zip(&run).map(|(&h, &r)| if r { tons(h) } else { 0.0 }).collect();
        Frame::from_rows(
            &ts,
            &[
                ("compressor_status", run.iter().map(|r| f64::from(u8::from(*r))).collect()),
                // kW per ton rises at part load, so power understates the part load
                (
                    "power",
                    t.iter()
                        .zip(&run)
                        .map(|(t, r)| if *r { 15.0 + t * (0.55 + 0.25 * (1.0 - t / 300.0).powi(2)) } else { 2.0 })
                        .collect(),
                ),
                ("chw_flow", run.iter().map(|r| if *r { 720.0 } else { 0.0 }).collect()),
                ("chw_supply_temp", vec![44.0; n]),
                ("chw_return_temp", t.iter().map(|t| 44.0 + 24.0 * t / 720.0).collect()),
            ],
        )
    }

    #[test]
    fn with_flows_trended_the_capacity_is_rated_from_the_design_flow() {
        // a plant peaking at 400 tons: both chillers always on, sharing it; on observed power
        // each reads about 200 tons of capacity, and less of the time looks over-staged
        let plant = |t: f64| 120.0 + 280.0 * (1.0 - ((t % 24.0 - 15.0) / 9.0).powi(2)).max(0.0);
        let both = [
            ("CH1", "CHILLER", None, metered(day, |t| plant(t) / 2.0)),
            ("CH2", "CHILLER", None, metered(day, |t| plant(t) / 2.0)),
        ];
        let f = &judge_all(&both, &Params::default())[0];
        assert_eq!(f.finding.metrics["rep_capacity_tons"], 300.0, "{:?}", f.finding.metrics);
        // the morning and evening quarter of the two-chiller time fits in one: a warning
        assert_eq!(f.finding.severity, Severity::Warn, "{}", f.finding.summary);
        let rated_pct = f.finding.metrics["pct_overstaged"];
        assert_eq!(f.equips, ["CH1", "CH2"]);
        assert!(f.finding.caveats.iter().any(|c| c.contains("2.4 gpm a ton")), "{:?}", f.finding.caveats);
        assert!(!f.finding.metrics.contains_key("capacity_kw"));
        // the same plant staged: the lag on only above 270 tons, so two run only when needed
        let staged = [
            ("CH1", "CHILLER", None, metered(day, |t| if plant(t) > 270.0 { plant(t) / 2.0 } else { plant(t) })),
            ("CH2", "CHILLER", None, metered(|t| day(t) && plant(t) > 270.0, |t| plant(t) / 2.0)),
        ];
        let f = &judge_all(&staged, &Params::default())[0];
        assert_eq!(f.finding.severity, Severity::Ok, "{}", f.finding.summary);
        // a declared capacity judges on power instead
        let p = numbers(&[("capacity_kw", 400.0)]);
        let f = &judge_all(&both, &p)[0];
        assert!(
            f.finding.metrics.contains_key("rep_capacity_kw") && !f.finding.metrics.contains_key("rep_capacity_tons")
        );
        // one chiller without a flow: the plant falls back to the observed power
        let mut mixed = both.clone();
        mixed[1].3.cols.remove("chw_flow");
        let f = &judge_all(&mixed, &Params::default())[0];
        assert!(f.finding.metrics.contains_key("capacity_kw"), "{:?}", f.finding.metrics);
        assert!(f.finding.metrics["pct_overstaged"] < rated_pct, "{:?}", f.finding.metrics);
    }

    #[test]
    fn the_levels_and_the_ceiling_at_their_boundaries() {
        // two chillers on 8 hours a day at a constant total: the share over-staged is the share of
        // those hours the total fits in one chiller's 200 kW x ceiling
        let plant = |fit_hours: f64| {
            let kw = move |t: f64| if (t % 24.0) < 8.0 + fit_hours { 80.0 } else { 150.0 };
            vec![
                ("CH1", "CHILLER", None, chiller(|t| (8.0..16.0).contains(&(t % 24.0)), kw, true)),
                ("CH2", "CHILLER", None, chiller(|t| (8.0..16.0).contains(&(t % 24.0)), kw, true)),
            ]
        };
        let declared = numbers(&[("capacity_kw", 200.0)]);
        // 2 x 80 = 160 kW <= 0.9 x 200 = 180: over-staged; 300 kW is not
        let sev = |fit: f64, p: &Params| judge_all(&plant(fit), p)[0].finding.severity;
        assert_eq!(sev(1.6, &declared), Severity::Warn); // 20 %
        assert_eq!(sev(1.5, &declared), Severity::Ok); // 18.75 %
        assert_eq!(sev(4.0, &declared), Severity::Fault); // 50 %
        assert_eq!(sev(3.75, &declared), Severity::Warn);
        // at the ceiling: 160 kW is exactly 0.8 x 200
        let at = numbers(&[("capacity_kw", 200.0), ("redundancy_ceiling", 0.8)]);
        assert_eq!(sev(4.0, &at), Severity::Fault);
        let under = numbers(&[("capacity_kw", 200.0), ("redundancy_ceiling", 0.79)]);
        assert_eq!(sev(4.0, &under), Severity::Ok);
        let f = &judge_all(&plant(4.0), &declared)[0].finding;
        assert_eq!((f.metrics["pct_overstaged"], f.metrics["multi_hours"]), (50.0, 56.0));
        assert_eq!(f.flagged.len(), 7 * 4 * 4);
    }

    #[test]
    fn a_capacity_per_chiller_keyed_by_equipment() {
        // a 400 kW CH1 and a 100 kW CH2: the plant's capacity is their median, 250 kW
        let p = Params {
            by_equip: vec![
                ("CH1".into(), [("capacity_kw".to_string(), crate::engine::ParamValue::Number(400.0))].into()),
                ("CH2".into(), [("capacity_kw".to_string(), crate::engine::ParamValue::Number(100.0))].into()),
            ],
            ..Default::default()
        };
        let f = &judge_all(&both_on(true), &p)[0].finding;
        assert_eq!(f.metrics["rep_capacity_kw"], 250.0);
        assert!(!f.caveats.iter().any(|c| c.contains("95th-percentile running power")), "{:?}", f.caveats);
        // only one declared: mixed, and said so
        let p = Params { by_equip: vec![p.by_equip[0].clone()], ..Default::default() };
        let f = &judge_all(&both_on(true), &p)[0].finding;
        assert!(f.caveats.iter().any(|c| c.contains("for some of them")), "{:?}", f.caveats);
    }

    #[test]
    fn the_run_gate_reads_power_without_a_status() {
        // the same plants without a status: standby draw (5 kW) is off
        assert_eq!(judge_all(&staged(false), &Params::default())[0].finding.severity, Severity::Ok);
        let bad = judge_all(&both_on(false), &numbers(&[("capacity_kw", 250.0)]));
        assert_eq!(bad[0].finding.severity, Severity::Fault);
        assert!(bad[0].finding.caveats.iter().any(|c| c.contains("no run status")));
        // a floor above the working draw reads both as never running: too few chillers
        let r = judge_all(&both_on(false), &numbers(&[("min_power_kw", 400.0)]));
        assert_eq!(r[0].finding.severity, Severity::Info);
    }

    #[test]
    fn plants_are_judged_apart_and_loops_are_left_out() {
        let mut units = Vec::new();
        for (plant, set) in [("PLANT__a", staged(true)), ("PLANT__b", both_on(true))] {
            for (e, c, _, f) in set {
                units.push((
                    if plant == "PLANT__a" {
                        e
                    } else if e == "CH1" {
                        "CH3"
                    } else {
                        "CH4"
                    },
                    c,
                    Some(plant),
                    f,
                ));
            }
        }
        units.push(("SECLOOP", "CHW_LOOP", None, chiller(day, |_| 12.0, false)));
        let got = judge_all(&units, &numbers(&[("capacity_kw", 250.0)]));
        let by: BTreeMap<Option<&str>, &FleetFinding> = got.iter().map(|f| (f.group.as_deref(), f)).collect();
        assert_eq!(by.len(), 2, "the loop's pool gives no finding: {:?}", by.keys());
        assert_eq!(by[&Some("PLANT__a")].finding.severity, Severity::Ok);
        assert_eq!(by[&Some("PLANT__b")].finding.severity, Severity::Fault);
        assert_eq!(by[&Some("PLANT__b")].equips, ["CH3", "CH4"]);
        // a loop in a plant's group is counted and left out
        units[4].2 = Some("PLANT__a");
        let got = judge_all(&units, &Params::default());
        let a = got.iter().find(|f| f.group.as_deref() == Some("PLANT__a")).unwrap();
        assert_eq!((a.finding.metrics["n_chillers"], a.finding.metrics["n_loops_excluded"]), (2.0, 1.0));
        // only loops: one info finding for the fleet
        let loops = [("SECLOOP", "SECLOOP", None, chiller(day, |_| 12.0, false))];
        let got = judge_all(&loops, &Params::default());
        assert_eq!((got.len(), got[0].finding.severity), (1, Severity::Info));
    }

    #[test]
    fn uneven_trends_gaps_and_disorder() {
        // CH2 trended hourly, CH1 every 15 minutes: CH2's hourly sample holds for its hour, so
        // the over-staged share is about the same as with both at 15 minutes
        let both = both_on(true);
        let hourly = |f: &Frame| {
            let keep: Vec<usize> = (0..f.len()).filter(|i| i % 4 == 0).collect();
            Frame::from_rows(
                &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
                &f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
            )
        };
        let p = numbers(&[("capacity_kw", 250.0)]);
        let base = judge_all(&both, &p)[0].finding.metrics["pct_overstaged"];
        let mixed = vec![both[0].clone(), ("CH2", "CHILLER", None, hourly(&both[1].3))];
        let m = &judge_all(&mixed, &p)[0].finding;
        assert!((m.metrics["pct_overstaged"] - base).abs() < 3.0, "{} vs {base}", m.metrics["pct_overstaged"]);
        assert!((m.metrics["multi_hours"] - 7.0 * 12.0).abs() < 1.0, "{:?}", m.metrics);
        // a day missing from both is not judged time
        let gap = |f: &Frame| {
            let keep: Vec<usize> = (0..f.len()).filter(|i| !(96..192).contains(i)).collect();
            Frame::from_rows(
                &keep.iter().map(|&i| f.ts[i]).collect::<Vec<_>>(),
                &f.cols.iter().map(|(k, v)| (k.as_str(), keep.iter().map(|&i| v[i]).collect())).collect::<Vec<_>>(),
            )
        };
        let gappy: Vec<_> = both.iter().map(|(e, c, g, f)| (*e, *c, *g, gap(f))).collect();
        let g = &judge_all(&gappy, &p)[0].finding;
        assert!((g.metrics["multi_hours"] - 6.0 * 12.0).abs() < 0.5, "{:?}", g.metrics);
        // disordered and repeated rows
        let messy: Vec<_> = both.iter().map(|(e, c, g, f)| (*e, *c, *g, shuffled_with_duplicates(f))).collect();
        let (a, b) = (&judge_all(&both, &p)[0], &judge_all(&messy, &p)[0]);
        assert_eq!(
            (&a.finding.metrics, &a.finding.flagged, &a.equips),
            (&b.finding.metrics, &b.finding.flagged, &b.equips)
        );
    }

    #[test]
    fn a_run_skips_a_chiller_without_power_and_groups_by_the_topology() {
        use crate::config::RunConfig;
        use crate::run::{run, EquipFrame, RunRequest};
        let c = RunConfig::from_value(&serde_json::json!({
            "equipment": [{"class": "CHILLER"}], "rules": [{"name": "chiller_staging_fleet", "params": {"capacity_kw": 250}}],
            "topology": {"parents": {"CH1": "PLANT-1", "CH2": "PLANT-1", "CH3": "PLANT-2"}}
        }))
        .unwrap();
        let frames: Vec<EquipFrame> = both_on(true)
            .into_iter()
            .chain([("CH3", "CHILLER", None, chiller(day, |_| 100.0, true))])
            .map(|(e, c, _, f)| EquipFrame { equip: e.into(), class: c.into(), frame: f })
            .chain([EquipFrame {
                equip: "CH4".into(),
                class: "CHILLER".into(),
                frame: Frame::from_rows(&[0, H], &[("compressor_status", vec![1.0, 1.0])]),
            }])
            .collect();
        let r = run(&c, &RunRequest { min_trust: 0.0, ..Default::default() }, &frames, &[]).unwrap();
        assert_eq!((r.skipped.len(), r.skipped[0].equip.as_str()), (1, "CH4"));
        let mut ids: Vec<&str> = r.findings.iter().map(|f| f.id.as_str()).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["chiller_staging_fleet@<fleet:PLANT-1>", "chiller_staging_fleet@<fleet:PLANT-2>"]);
        let one = r.findings.iter().find(|f| f.group.as_deref() == Some("PLANT-1")).unwrap();
        assert_eq!(
            (one.members.clone(), one.equips.clone()),
            (vec!["CH1".to_string(), "CH2".into()], vec!["CH1".to_string(), "CH2".into()])
        );
        assert!(one.finding.severity >= Severity::Warn);
        let two = r.findings.iter().find(|f| f.group.as_deref() == Some("PLANT-2")).unwrap();
        assert_eq!(two.finding.severity, Severity::Info);
    }

    #[test]
    fn degenerate_fleets_do_not_panic() {
        let empty = [("CH1", "CHILLER", None, Frame::default()), ("CH2", "CHILLER", None, Frame::default())];
        assert_eq!(judge_all(&empty, &Params::default())[0].finding.severity, Severity::Info);
        let nan = Frame::from_rows(&every(0, H, 30), &[("power", vec![f64::NAN; 30])]);
        let one = Frame::from_rows(&[0], &[("power", vec![100.0])]);
        let units = [("CH1", "CHILLER", None, nan), ("CH2", "CHILLER", None, one)];
        assert_eq!(judge_all(&units, &Params::default())[0].finding.severity, Severity::Info);
        assert!(judge_all(&[], &Params::default()).is_empty());
        // never two at once: ok, nothing to judge
        let alternate = [
            ("CH1", "CHILLER", None, chiller(|t| (t % 24.0) < 12.0, |_| 100.0, true)),
            ("CH2", "CHILLER", None, chiller(|t| (t % 24.0) >= 12.0, |_| 100.0, true)),
        ];
        let f = &judge_all(&alternate, &Params::default())[0].finding;
        assert_eq!((f.severity, f.judged), (Severity::Ok, 0));
    }
}
