//! Fault economics: a finding's estimated annual waste, priced. Triage-grade, as the reference
//! toolkit's `fault_economics` is: the fault's intensity (a share of hours the rule measured)
//! times the equipment's sizing (from `report.rcx.loads`) times a few documented assumptions
//! ([`super::options::COST_DEFAULTS`], each overridable). The rules and formulas are the
//! reference's; the metric names are this engine's, with the reference's names read as a
//! fallback. An estimate that lacks an input says which (`needs ...`) instead of inventing a
//! figure; a rule with no model is uncosted and says so.
//!
//! Unlike the reference: a cooling-tower finding without a high-approach share is priced on its
//! flagged share of judged samples (this engine's rule reports no such share); a reset
//! finding's failure mode is read from its mode flags (`stuck`, `not_responding`,
//! `not_trimming`, `diverges`, the first that is set), as the reference reads its `reason`; a
//! cohort-starvation finding is priced on its own group's sustained share (the engine judges each
//! air handler's boxes as their own group). Excess outdoor air is priced from the sums
//! `outdoor_air_fraction` measures on its judged samples ([`crate::oa_cost`]);
//! `economizer_high_limit` measures none, so it stays uncosted and says so, as the reference's
//! does. Past the reference, `night_weekend_setback` is priced as the supply fan's energy out of
//! hours (its running hours over a calendar year at `unoccupied_fan_load_frac` of `fan_kw`); the
//! conditioning of that air is not counted, so the figure is a floor. `leaking_valve` is priced
//! as the heat its coil adds or takes with both valves shut (a floor too: what the plant spends
//! undoing it is not counted). `free_cooling_missed` is priced as the mechanical cooling that
//! all outdoor air would have spared on its missed samples.

use std::collections::BTreeMap;

use serde::Serialize;

use super::options::{EquipmentLoad, RcxOptions};

const KBTU_PER_KWH: f64 = 3.412;
const KBTU_PER_THERM: f64 = 100.0;

/// One finding's estimated annual cost, or why there is none.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FaultCost {
    pub rule: String,
    /// The equipment whose sizing priced it (a fleet finding's air handler).
    pub equip: String,
    /// Whether a figure was estimated (false: uncosted, `basis` says why).
    pub costed: bool,
    pub annual_cost_usd: f64,
    pub electricity_kwh: f64,
    pub gas_therms: f64,
    /// The model that ran ("reheat-gas", ...) or why none could ("needs ...", "no cost model ...").
    pub basis: String,
    /// The assumptions and intensities the estimate used.
    pub assumptions: BTreeMap<String, f64>,
}

/// What an estimator reads of a finding.
pub struct CostInput<'a> {
    pub rule: &'a str,
    /// The equipment whose load prices it.
    pub equip: &'a str,
    pub metrics: &'a BTreeMap<String, f64>,
    /// A fleet finding judged on one air handler's boxes (not a building-wide pool).
    pub grouped: bool,
    /// The finding's flagged share of its judged samples (0-1), when it judged any.
    pub flagged_share: Option<f64>,
    /// A supply-air reset compliance finding judged against the site's own map (not G36's).
    pub configured_target: bool,
}

/// An estimator's answer: electricity kWh, gas therms, basis, assumptions used.
type Est = (f64, f64, String, BTreeMap<String, f64>);

fn none(basis: impl Into<String>) -> Est {
    (0.0, 0.0, basis.into(), BTreeMap::new())
}

fn num(m: &BTreeMap<String, f64>, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| m.get(*k).copied().filter(|x| x.is_finite()))
}

fn frac(pct: Option<f64>) -> f64 {
    pct.map_or(0.0, |p| (p / 100.0).clamp(0.0, 1.0))
}

fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn needs(what: &str, equip: &str) -> String {
    format!("needs {what} (report.rcx.loads.{})", camber_common::text::name(equip))
}

/// The rules a cost model prices.
pub const COSTED_RULES: &[&str] = &[
    "boiler_short_cycle",
    "chiller_efficiency",
    "chw_pump_dp_reset",
    "cooling_tower_approach",
    "damper_census",
    "economizer_high_limit",
    "free_cooling_missed",
    "hw_pump_dp_reset",
    "leaking_valve",
    "night_weekend_setback",
    "outdoor_air_fraction",
    "reheat_minimization_g36",
    "reheat_penalty",
    "sat_cohort_starvation",
    "sat_reset_effectiveness",
    "sat_rogue_zone_census",
    "simultaneous_heat_cool",
    "static_cohort_starvation",
    "static_reset_effectiveness",
    "static_rogue_zone_census",
    "supply_air_reset_compliance",
];

/// Reheat gas at `pct` of the hours (and the cooling that removes it, when paired).
fn reheat_gas(c: &CostInput, load: &EquipmentLoad, o: &RcxOptions, pct: Option<f64>, cooling: bool, scale: f64) -> Est {
    let Some(cap) = load.heating_capacity_kbtuh.filter(|c| *c > 0.0) else {
        return none(needs("heating_capacity_kbtuh", c.equip));
    };
    let f = frac(pct);
    let (div, eff) = (o.param("reheat_diversity"), o.param("boiler_efficiency"));
    let out_kbtu = cap * load.annual_hours * f * div * scale;
    let gas = out_kbtu / KBTU_PER_THERM / eff;
    let mut used = BTreeMap::from([
        ("faulted_frac".to_string(), r3(f)),
        ("reheat_diversity".to_string(), div),
        ("boiler_efficiency".to_string(), eff),
    ]);
    let mut elec = 0.0;
    if cooling {
        let cop = o.param("cool_cop");
        elec = out_kbtu / KBTU_PER_KWH / cop;
        used.insert("cool_cop".into(), cop);
    }
    (elec, gas, if cooling { "reheat-gas+paired-cooling" } else { "reheat-gas" }.into(), used)
}

fn fan_excess(c: &CostInput, load: &EquipmentLoad, share: f64, key: &str, excess: f64, basis: &str) -> Est {
    let Some(kw) = load.fan_kw.filter(|k| *k > 0.0) else { return none(needs("fan_kw", c.equip)) };
    let s = share.clamp(0.0, 1.0);
    let elec = kw * load.annual_hours * s * excess;
    (elec, 0.0, basis.into(), BTreeMap::from([(key.to_string(), r3(s)), ("excess_frac".to_string(), excess)]))
}

/// A reset finding's failure mode: the first of its mode flags that is set.
fn reset_mode(m: &BTreeMap<String, f64>) -> Option<&'static str> {
    ["stuck", "not_responding", "not_trimming", "diverges"].into_iter().find(|k| m.get(*k) == Some(&1.0))
}

fn reset_of(rule: &str) -> &'static str {
    if rule.starts_with("static_") {
        "static"
    } else {
        "sat"
    }
}

fn estimator(c: &CostInput, load: &EquipmentLoad, o: &RcxOptions) -> Option<Est> {
    let m = c.metrics;
    Some(match c.rule {
        "simultaneous_heat_cool" => reheat_gas(c, load, o, num(m, &["simultaneous_hc_pct"]), true, 1.0),
        "reheat_penalty" => reheat_gas(
            c,
            load,
            o,
            num(
                m,
                &[
                    "reheat_above_min_pct",
                    "reheat_above_min_flow_pct",
                    "reheat_cold_supply_pct",
                    "reheat_and_coldsupply_pct",
                    "valve_open_pct",
                ],
            ),
            false,
            1.0,
        ),
        "reheat_minimization_g36" => reheat_gas(c, load, o, num(m, &["reheat_pct", "reheat_hours_pct"]), false, 1.0),
        "supply_air_reset_compliance" => {
            let gap = num(m, &["mean_gap_f"]).unwrap_or(0.0);
            let scale = (gap / o.param("g36_gap_ref_f")).clamp(0.0, 1.0);
            let (e, g, basis, mut used) = reheat_gas(c, load, o, num(m, &["pct_below_target"]), false, scale);
            if e > 0.0 || g > 0.0 {
                used.insert("gap_scale".into(), r3(scale));
                let kind = if c.configured_target { "configured" } else { "g36" };
                (e, g, format!("sat-below-{kind}-target->reheat"), used)
            } else {
                (e, g, basis, used)
            }
        }
        "sat_reset_effectiveness" | "static_reset_effectiveness" => match (reset_mode(m), reset_of(c.rule)) {
            (Some("not_trimming"), "static") => fan_excess(
                c,
                load,
                frac(num(m, &["pct_idle_untrimmed"])),
                "idle_untrimmed_frac",
                o.param("reset_fan_excess_frac"),
                "static-reset-not-trimming->fan",
            ),
            (Some("not_trimming"), _) => {
                let (e, g, basis, used) = reheat_gas(c, load, o, num(m, &["pct_idle_untrimmed"]), false, 1.0);
                if g > 0.0 {
                    (e, g, "sat-reset-not-trimming->reheat".into(), used)
                } else {
                    (e, g, basis, used)
                }
            }
            (Some("not_responding"), _) => none("comfort/capacity risk (reset not responding): not an energy waste"),
            (Some("stuck"), _) => none("reset stuck: the energy sign is indeterminate, uncosted by design"),
            (Some("diverges"), _) => none("reset diverges (miswired): a comfort risk, uncosted"),
            _ => none("reset effective: no waste"),
        },
        "sat_rogue_zone_census" | "static_rogue_zone_census" => {
            if !c.grouped {
                return Some(none("census pooled building-wide: a screening signal, uncosted"));
            }
            let share = num(m, &["worst_zone_share"]).unwrap_or(0.0).clamp(0.0, 1.0);
            if reset_of(c.rule) == "static" {
                fan_excess(
                    c,
                    load,
                    share,
                    "worst_zone_share",
                    o.param("reset_fan_excess_frac"),
                    "rogue-zone-drags-static->fan",
                )
            } else {
                let Some(cap) = load.heating_capacity_kbtuh.filter(|c| *c > 0.0) else {
                    return Some(none(needs("heating_capacity_kbtuh", c.equip)));
                };
                let (div, eff) = (o.param("reheat_diversity"), o.param("boiler_efficiency"));
                let gas = cap * load.annual_hours * div * share / KBTU_PER_THERM / eff;
                let used = BTreeMap::from([
                    ("worst_zone_share".to_string(), r3(share)),
                    ("reheat_diversity".to_string(), div),
                    ("boiler_efficiency".to_string(), eff),
                ]);
                (0.0, gas, "rogue-zone-drags-sat->reheat".into(), used)
            }
        }
        "sat_cohort_starvation" => none("cohort starvation (supply air): unmet load and comfort, uncosted"),
        "static_cohort_starvation" => {
            let share = num(m, &["sustained_frac", "worst_group_frac"]).unwrap_or(0.0);
            fan_excess(
                c,
                load,
                share,
                "sustained_frac",
                o.param("reset_fan_excess_frac"),
                "cohort-starvation-static->fan",
            )
        }
        "chiller_efficiency" => {
            let kwpt = num(m, &["kw_per_ton_median"]);
            let tons = num(m, &["tons_median"]).filter(|t| *t > 0.0).or(load.cooling_tons.filter(|t| *t > 0.0));
            let (Some(kwpt), Some(tons)) = (kwpt, tons) else {
                return Some(none(format!(
                    "needs kW/ton and tons (the finding's metrics, or cooling_tons in report.rcx.loads.{})",
                    c.equip
                )));
            };
            // the design figure at the temperatures it ran at, when the finding carried it there
            let target =
                num(m, &["expected_kw_per_ton", "design_kw_per_ton"]).unwrap_or(o.param("chiller_target_kw_per_ton"));
            let excess = (kwpt - target).max(0.0);
            let hours = frac(num(m, &["pct_hours_inefficient"])) * load.annual_hours;
            let used = BTreeMap::from([
                ("excess_kw_per_ton".to_string(), r3(excess)),
                ("target_kw_per_ton".to_string(), r3(target)),
                ("tons".to_string(), (tons * 10.0).round() / 10.0),
                ("inefficient_hours".to_string(), hours.round()),
            ]);
            (excess * tons * hours, 0.0, "chiller-excess-kw/ton".into(), used)
        }
        "cooling_tower_approach" => {
            let tons = num(m, &["tons_median"]).filter(|t| *t > 0.0).or(load.cooling_tons.filter(|t| *t > 0.0));
            let kwpt = load.chiller_kw_per_ton.filter(|k| *k > 0.0).or(num(m, &["kw_per_ton_median"]));
            let (Some(tons), Some(kwpt)) = (tons, kwpt) else {
                return Some(none(format!(
                    "needs cooling_tons and chiller_kw_per_ton (report.rcx.loads.{})",
                    camber_common::text::name(c.equip)
                )));
            };
            let approach = num(m, &["median_approach_f", "approach_median_f"]).unwrap_or(0.0);
            let design = num(m, &["design_approach_f"]).unwrap_or(0.0);
            let excess_f = (approach - design).max(0.0);
            if excess_f <= 0.0 {
                return Some(none("approach within design (no penalty)"));
            }
            let penalty = excess_f * o.param("ct_kw_per_approach_f");
            let share = num(m, &["pct_hours_high_approach"]).map(|p| frac(Some(p))).or(c.flagged_share).unwrap_or(0.0);
            let hours = share * load.annual_hours;
            let chiller_kw = tons * kwpt * o.param("chiller_load_factor");
            let used = BTreeMap::from([
                ("excess_approach_f".to_string(), (excess_f * 10.0).round() / 10.0),
                ("penalty_frac".to_string(), (penalty * 1e4).round() / 1e4),
                ("chiller_kw".to_string(), (chiller_kw * 10.0).round() / 10.0),
                ("high_approach_hours".to_string(), hours.round()),
            ]);
            (penalty * chiller_kw * hours, 0.0, "cooling-tower-approach->chiller".into(), used)
        }
        "hw_pump_dp_reset" | "chw_pump_dp_reset" => {
            let Some(kw) = load.pump_kw.filter(|k| *k > 0.0) else { return Some(none(needs("pump_kw", c.equip))) };
            let f = frac(num(m, &["pct_running_near_full", "median_speed_pct"]));
            let excess = o.param("pump_excess_frac");
            let used =
                BTreeMap::from([("near_full_frac".to_string(), r3(f)), ("pump_excess_frac".to_string(), excess)]);
            (kw * load.annual_hours * f * excess, 0.0, "pump-riding-curve".into(), used)
        }
        "damper_census" => fan_excess(
            c,
            load,
            frac(num(m, &["pct_boxes_low"])),
            "throttled_box_frac",
            o.param("fan_excess_frac"),
            "duct-static-high->fan",
        ),
        "boiler_short_cycle" => {
            let Some(cap) = load.heating_capacity_kbtuh.filter(|c| *c > 0.0) else {
                return Some(none(needs("heating_capacity_kbtuh", c.equip)));
            };
            let starts = num(m, &["starts_per_day"]).unwrap_or(0.0);
            let limit = num(m, &["max_starts_per_day"]).unwrap_or(0.0);
            let extra = (starts - limit).max(0.0);
            let loss = (extra * o.param("per_start_loss")).min(0.10);
            if loss <= 0.0 {
                return Some(none("within the start limit (no penalty)"));
            }
            let eff = o.param("boiler_efficiency");
            let runtime = frac(num(m, &["runtime_pct"]));
            let gas_in = cap * load.annual_hours * runtime / KBTU_PER_THERM / eff;
            let used = BTreeMap::from([
                ("extra_starts_per_day".to_string(), (extra * 10.0).round() / 10.0),
                ("loss_frac".to_string(), r3(loss)),
                ("runtime_frac".to_string(), r3(runtime)),
            ]);
            (0.0, gas_in * loss, "boiler-short-cycle".into(), used)
        }
        "outdoor_air_fraction" | "economizer_high_limit" => excess_oa(c, load, o),
        "leaking_valve" => leak(c, load, o),
        "free_cooling_missed" => missed_free_cooling(c, load, o),
        "night_weekend_setback" => {
            let (Some(run_h), Some(observed)) = (num(m, &["unoccupied_run_hours"]), num(m, &["observed_hours"])) else {
                return Some(none("needs the rule's unoccupied running hours"));
            };
            let Some(kw) = load.fan_kw.filter(|k| *k > 0.0) else { return Some(none(needs("fan_kw", c.equip))) };
            if observed <= 0.0 {
                return Some(none("needs observed hours of data (none)"));
            }
            // the out-of-hours running over a calendar year, at the night fan's lighter draw;
            // conditioning that air is not counted, so the figure is a floor
            let frac = o.param("unoccupied_fan_load_frac");
            let hours_yr = run_h * 8760.0 / observed;
            let elec = kw * frac * hours_yr;
            let used = BTreeMap::from([
                ("unoccupied_run_hours_yr".to_string(), r3(hours_yr)),
                ("unoccupied_fan_load_frac".to_string(), frac),
            ]);
            (elec, 0.0, "fan-out-of-hours (conditioning not counted)".into(), used)
        }
        _ => return None,
    })
}

/// Excess outdoor air above the declared minimum: the cooling and heating it costs, from the
/// rule's period sums ([`crate::oa_cost`]) annualised by `annual_hours / observed hours`. The
/// airflow is the trended supply airflow when the rule could use it, else the load's
/// `supply_airflow_cfm`, else the `design_oa_cfm` the minimum fraction implies. Cooling is
/// priced at `cool_cop`, heating at `boiler_efficiency` (gas) or the load's `heat_pump_cop`.
fn excess_oa(c: &CostInput, load: &EquipmentLoad, o: &RcxOptions) -> Est {
    let m = c.metrics;
    let Some(observed) = num(m, &["oa_cost_observed_h"]) else {
        if c.rule == "economizer_high_limit" {
            return none("this rule measures no excess-outdoor-air sums: outdoor_air_fraction prices the excess");
        }
        return none("needs the rule's excess-outdoor-air sums (mixed, return and outdoor air on its judged samples)");
    };
    if m.get("min_oa_configured") != Some(&1.0) {
        return none("needs min_oa_pct (the unit's design minimum outdoor air; the rule's generic 20 % is not priced)");
    }
    if m.get("oa_cost_flagged") == Some(&0.0) {
        return none("no excess-outdoor-air verdict: nothing priced");
    }
    let (cool_pc, heat_pc) = (
        num(m, &["oa_cost_excess_cool_btu_per_cfm"]).unwrap_or(0.0),
        num(m, &["oa_cost_excess_heat_btu_per_cfm"]).unwrap_or(0.0),
    );
    if cool_pc <= 0.0 && heat_pc <= 0.0 {
        return none("no excess outdoor air outside economizing hours: no penalty");
    }
    if observed <= 0.0 {
        return none("needs observed hours of data (none)");
    }
    let min_pct = num(m, &["min_oa_pct"]).unwrap_or(0.0);
    let mut used = BTreeMap::from([("min_oa_pct".to_string(), min_pct), ("observed_h".to_string(), r3(observed))]);
    let trended = (num(m, &["oa_cost_excess_cool_kbtu"]), num(m, &["oa_cost_excess_heat_kbtu"]));
    let (cool_k, heat_k) =
        match (trended, load.supply_airflow_cfm.filter(|x| *x > 0.0), load.design_oa_cfm.filter(|x| *x > 0.0)) {
            ((Some(ck), Some(hk)), _, _) => (ck, hk),
            (_, Some(cfm), _) => {
                used.insert("supply_airflow_cfm".into(), cfm);
                (cool_pc * cfm / 1e3, heat_pc * cfm / 1e3)
            }
            (_, None, Some(oa)) if min_pct > 0.0 && m.get("min_oa_by_month") != Some(&1.0) => {
                let cfm = oa / (min_pct / 100.0);
                used.insert("design_oa_cfm".into(), oa);
                used.insert("supply_airflow_cfm".into(), r3(cfm));
                (cool_pc * cfm / 1e3, heat_pc * cfm / 1e3)
            }
            (_, None, Some(_)) => {
                return none(needs("supply_airflow_cfm (design_oa_cfm is ambiguous under a monthly minimum)", c.equip))
            }
            _ => return none(needs("supply_airflow_cfm or design_oa_cfm", c.equip)),
        };
    let scale = load.annual_hours / observed;
    let (cool_yr, heat_yr) = (cool_k * scale, heat_k * scale);
    used.insert("excess_cool_kbtu_yr".into(), r3(cool_yr));
    used.insert("excess_heat_kbtu_yr".into(), r3(heat_yr));
    let (elec, gas) = coil_energy(cool_yr, heat_yr, load, o, &mut used);
    let parts: Vec<&str> =
        [("cooling", cool_yr), ("heating", heat_yr)].into_iter().filter(|(_, v)| *v > 0.0).map(|(p, _)| p).collect();
    (elec, gas, format!("excess-OA->{}", parts.join("+")), used)
}

/// What a year's coil work costs: the cooling (kBtu) at `cool_cop` in electricity, the heating
/// at the load's `heat_pump_cop` in electricity, else at `boiler_efficiency` in gas; the
/// assumptions used go into `used`.
fn coil_energy(
    cool_kbtu: f64,
    heat_kbtu: f64,
    load: &EquipmentLoad,
    o: &RcxOptions,
    used: &mut BTreeMap<String, f64>,
) -> (f64, f64) {
    let cop = o.param("cool_cop");
    used.insert("cool_cop".into(), cop);
    let mut elec = cool_kbtu / KBTU_PER_KWH / cop;
    let mut gas = 0.0;
    if heat_kbtu > 0.0 {
        match load.heat_pump_cop.filter(|x| *x > 0.0) {
            Some(hp) => {
                elec += heat_kbtu / KBTU_PER_KWH / hp;
                used.insert("heat_pump_cop".into(), hp);
            }
            None => {
                let eff = o.param("boiler_efficiency");
                gas = heat_kbtu / KBTU_PER_THERM / eff;
                used.insert("boiler_efficiency".into(), eff);
            }
        }
    }
    (elec, gas)
}

/// A leaking valve: the heat its coil adds, or takes, with both valves shut, over a calendar
/// year. The rule's Btu on the trended airflow, else its °F-hours times the load's
/// `supply_airflow_cfm`; cooling at `cool_cop`, heating at `boiler_efficiency` (or the load's
/// `heat_pump_cop`). Whatever the plant then spends undoing it is not counted: a floor.
fn leak(c: &CostInput, load: &EquipmentLoad, o: &RcxOptions) -> Est {
    let m = c.metrics;
    let Some(observed) = num(m, &["observed_hours"]).filter(|h| *h > 0.0) else {
        return none("needs the rule's leak sums (°F-hours on the leaking samples)");
    };
    let (heat_dfh, cool_dfh) =
        (num(m, &["leak_heat_degf_h"]).unwrap_or(0.0), num(m, &["leak_cool_degf_h"]).unwrap_or(0.0));
    if heat_dfh <= 0.0 && cool_dfh <= 0.0 {
        return none("no leak to price");
    }
    let mut used = BTreeMap::from([("observed_h".to_string(), r3(observed))]);
    let (heat_k, cool_k) = match (num(m, &["leak_heat_kbtu"]), num(m, &["leak_cool_kbtu"]), load.supply_airflow_cfm) {
        (Some(h), Some(k), _) => (h, k),
        (_, _, Some(cfm)) if cfm > 0.0 => {
            used.insert("supply_airflow_cfm".into(), cfm);
            let f = crate::oa_cost::SENSIBLE_BTUH_PER_CFM_F * cfm / 1e3;
            (heat_dfh * f, cool_dfh * f)
        }
        _ => return none(needs("supply_airflow_cfm", c.equip)),
    };
    let scale = 8760.0 / observed;
    let (heat_yr, cool_yr) = (heat_k * scale, cool_k * scale);
    used.insert("leak_cool_kbtu_yr".into(), r3(cool_yr));
    used.insert("leak_heat_kbtu_yr".into(), r3(heat_yr));
    let (elec, gas) = coil_energy(cool_yr, heat_yr, load, o, &mut used);
    (elec, gas, "leak-coil-energy (what undoes it not counted)".into(), used)
}

/// Missed free cooling: the mechanical cooling all outdoor air would have spared on the missed
/// samples, over a calendar year (the rule's Btu on the trended airflow, else its °F-hours times
/// the load's `supply_airflow_cfm`), at `cool_cop`.
fn missed_free_cooling(c: &CostInput, load: &EquipmentLoad, o: &RcxOptions) -> Est {
    let m = c.metrics;
    let Some(observed) = num(m, &["observed_hours"]).filter(|h| *h > 0.0) else {
        return none("needs the rule's missed-cooling sums (mixed and supply air on the missed samples)");
    };
    let dfh = num(m, &["missed_cool_degf_h"]).unwrap_or(0.0);
    if dfh <= 0.0 {
        return none("no mechanical cooling the outdoor air would have spared");
    }
    let mut used = BTreeMap::from([("observed_h".to_string(), r3(observed))]);
    let kbtu = match (num(m, &["missed_cool_kbtu"]), load.supply_airflow_cfm.filter(|x| *x > 0.0)) {
        (Some(k), _) => k,
        (None, Some(cfm)) => {
            used.insert("supply_airflow_cfm".into(), cfm);
            dfh * crate::oa_cost::SENSIBLE_BTUH_PER_CFM_F * cfm / 1e3
        }
        _ => return none(needs("supply_airflow_cfm", c.equip)),
    };
    let kbtu_yr = kbtu * 8760.0 / observed;
    used.insert("spared_cool_kbtu_yr".into(), r3(kbtu_yr));
    let (elec, _) = coil_energy(kbtu_yr, 0.0, load, o, &mut used);
    (elec, 0.0, "missed-free-cooling".into(), used)
}

/// The estimated annual cost of one finding.
pub fn estimate(c: &CostInput, o: &RcxOptions) -> FaultCost {
    let default_load = EquipmentLoad::default();
    let load = o.loads.get(c.equip).unwrap_or(&default_load);
    let (elec, gas, basis, assumptions) = match estimator(c, load, o) {
        Some(e) => e,
        None => {
            // a rule may attach its own energy estimate
            let e = num(c.metrics, &["waste_kwh"]).unwrap_or(0.0).max(0.0);
            let g = num(c.metrics, &["waste_therms"]).unwrap_or(0.0).max(0.0);
            if e > 0.0 || g > 0.0 {
                (e, g, "explicit-waste-metric".into(), BTreeMap::new())
            } else {
                none(format!("no cost model for rule '{}'", c.rule))
            }
        }
    };
    let (elec, gas) = (if elec.is_finite() { elec } else { 0.0 }, if gas.is_finite() { gas } else { 0.0 });
    let costed = elec > 0.0 || gas > 0.0;
    let usd = elec * o.price.electricity_per_kwh + gas * o.price.gas_per_therm;
    FaultCost {
        rule: c.rule.to_string(),
        equip: c.equip.to_string(),
        costed,
        annual_cost_usd: (usd * 100.0).round() / 100.0,
        electricity_kwh: (elec * 10.0).round() / 10.0,
        gas_therms: (gas * 10.0).round() / 10.0,
        basis,
        assumptions,
    }
}

/// The note an uncosted issue carries, from its member's basis: "uncosted: needs ...".
pub fn uncosted_note(basis: &str) -> String {
    let b = basis.trim();
    if b.is_empty() {
        "uncosted".into()
    } else {
        format!("uncosted: {b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn opts(report: serde_json::Value) -> RcxOptions {
        RcxOptions::from_report(Some(&report)).unwrap()
    }

    fn input<'a>(rule: &'a str, equip: &'a str, m: &'a BTreeMap<String, f64>) -> CostInput<'a> {
        CostInput { rule, equip, metrics: m, grouped: true, flagged_share: None, configured_target: true }
    }

    #[test]
    fn reheat_is_priced_from_capacity_share_diversity_and_efficiency() {
        let o = opts(json!({"rcx": {"loads": {"VAV-1": {"heating_capacity_kbtuh": 20}}}}));
        let m = BTreeMap::from([("reheat_pct".to_string(), 10.0)]);
        let c = estimate(&input("reheat_minimization_g36", "VAV-1", &m), &o);
        // 20 kBtu/h x 8760 h x 0.10 x 0.30 / 100 / 0.80 = 65.7 therm at $1.20
        assert!(c.costed);
        assert_eq!(c.gas_therms, 65.7);
        assert_eq!(c.annual_cost_usd, 78.84);
        assert_eq!(c.basis, "reheat-gas");
        // an override of an assumption moves the figure
        let o2 = opts(
            json!({"rcx": {"loads": {"VAV-1": {"heating_capacity_kbtuh": 20}}, "cost_params": {"boiler_efficiency": 0.9}, "price": {"gas_per_therm": 1.0}}}),
        );
        assert_eq!(estimate(&input("reheat_minimization_g36", "VAV-1", &m), &o2).annual_cost_usd, 58.4);
    }

    #[test]
    fn excess_outdoor_air_is_priced_from_the_rules_sums_and_an_airflow() {
        let sums = |extra: &[(&str, f64)]| {
            let mut m = BTreeMap::from([
                ("oa_cost_observed_h".to_string(), 876.0),
                ("oa_cost_excess_cool_btu_per_cfm".to_string(), 3412.0),
                ("oa_cost_excess_heat_btu_per_cfm".to_string(), 1000.0),
                ("oa_cost_flagged".to_string(), 1.0),
                ("min_oa_configured".to_string(), 1.0),
                ("min_oa_pct".to_string(), 20.0),
            ]);
            m.extend(extra.iter().map(|(k, v)| (k.to_string(), *v)));
            m
        };
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"supply_airflow_cfm": 10000}}}}));
        let m = sums(&[]);
        let c = estimate(&input("outdoor_air_fraction", "AHU-1", &m), &o);
        // a tenth of a year observed, at 10,000 cfm: 341,200 kBtu of cooling and 100,000 of
        // heating a year; 341,200 / 3.412 / 3.5 kWh and 100,000 / 100 / 0.8 therm
        assert_eq!(c.basis, "excess-OA->cooling+heating", "{c:?}");
        assert!((c.electricity_kwh - 100_000.0 / 3.5).abs() < 0.1, "{c:?}");
        assert!((c.gas_therms - 1250.0).abs() < 0.01, "{c:?}");
        // the trended airflow's kBtu take the place of a declared airflow
        let m = sums(&[("oa_cost_excess_cool_kbtu", 3412.0), ("oa_cost_excess_heat_kbtu", 0.0)]);
        let c = estimate(&input("outdoor_air_fraction", "AHU-1", &m), &RcxOptions::default());
        assert_eq!((c.basis.as_str(), c.gas_therms), ("excess-OA->cooling", 0.0), "{c:?}");
        assert!((c.electricity_kwh - 10_000.0 / 3.5).abs() < 0.1, "{c:?}");
        // the design outdoor air and the minimum imply the supply airflow
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"design_oa_cfm": 2000}}}}));
        let c = estimate(&input("outdoor_air_fraction", "AHU-1", &sums(&[])), &o);
        assert!((c.electricity_kwh - 100_000.0 / 3.5).abs() < 0.1, "{c:?}");
        // what stops a figure, named
        let why =
            |m: &BTreeMap<String, f64>, o: &RcxOptions| estimate(&input("outdoor_air_fraction", "AHU-1", m), o).basis;
        let none = RcxOptions::default();
        assert_eq!(why(&sums(&[]), &none), "needs supply_airflow_cfm or design_oa_cfm (report.rcx.loads.\"AHU-1\")");
        assert!(why(&sums(&[("min_oa_configured", 0.0)]), &none).starts_with("needs min_oa_pct"));
        assert!(why(&sums(&[("oa_cost_flagged", 0.0)]), &none).starts_with("no excess-outdoor-air verdict"));
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"design_oa_cfm": 2000}}}}));
        assert!(why(&sums(&[("min_oa_by_month", 1.0)]), &o).contains("ambiguous under a monthly minimum"));
        let free = sums(&[("oa_cost_excess_cool_btu_per_cfm", 0.0), ("oa_cost_excess_heat_btu_per_cfm", 0.0)]);
        assert!(why(&free, &none).starts_with("no excess outdoor air outside economizing"));
        assert!(why(&BTreeMap::new(), &none).starts_with("needs the rule's excess-outdoor-air sums"));
        let e = estimate(&input("economizer_high_limit", "AHU-1", &BTreeMap::new()), &none);
        assert!(!e.costed && !e.basis.starts_with("needs"), "the issue's note names what outdoor_air_fraction needs");
    }

    #[test]
    fn a_fan_running_out_of_hours_is_priced_as_its_energy_over_a_year() {
        // 336 h observed (two weeks), 100 of them the fan ran out of hours: 2,607 h a year at
        // half of 20 kW
        let m = BTreeMap::from([("unoccupied_run_hours".to_string(), 100.0), ("observed_hours".to_string(), 336.0)]);
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"fan_kw": 20}}}}));
        let c = estimate(&input("night_weekend_setback", "AHU-1", &m), &o);
        assert!((c.electricity_kwh - 20.0 * 0.5 * 100.0 * 8760.0 / 336.0).abs() < 0.1, "{c:?}");
        assert!(c.basis.starts_with("fan-out-of-hours"), "{c:?}");
        let c = estimate(&input("night_weekend_setback", "AHU-1", &m), &RcxOptions::default());
        assert_eq!(c.basis, "needs fan_kw (report.rcx.loads.\"AHU-1\")");
    }

    #[test]
    fn a_leaking_valve_is_priced_as_what_its_coil_does_to_the_air() {
        // a cooling leak of 500 °F-h over 876 h observed, at 5,000 cfm: 27,000 kBtu a year
        let m = BTreeMap::from([
            ("leak_cool_degf_h".to_string(), 500.0),
            ("leak_heat_degf_h".to_string(), 0.0),
            ("observed_hours".to_string(), 876.0),
        ]);
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"supply_airflow_cfm": 5000}}}}));
        let c = estimate(&input("leaking_valve", "AHU-1", &m), &o);
        let kbtu_yr = 500.0 * 1.08 * 5000.0 / 1e3 * 10.0;
        assert!((c.electricity_kwh - kbtu_yr / 3.412 / 3.5).abs() < 0.1, "{c:?}");
        assert_eq!(c.gas_therms, 0.0);
        // the rule's own Btu on a trended airflow, heating at the boiler
        let mut t = m.clone();
        t.extend([
            ("leak_heat_kbtu".to_string(), 800.0),
            ("leak_cool_kbtu".to_string(), 0.0),
            ("leak_heat_degf_h".to_string(), 10.0),
        ]);
        let c = estimate(&input("leaking_valve", "AHU-1", &t), &RcxOptions::default());
        assert!((c.gas_therms - 800.0 * 10.0 / 100.0 / 0.8).abs() < 0.01, "{c:?}");
        let c = estimate(&input("leaking_valve", "AHU-1", &m), &RcxOptions::default());
        assert_eq!(c.basis, "needs supply_airflow_cfm (report.rcx.loads.\"AHU-1\")");
    }

    #[test]
    fn missed_free_cooling_is_priced_as_the_cooling_outdoor_air_would_have_spared() {
        let m = BTreeMap::from([("missed_cool_degf_h".to_string(), 300.0), ("observed_hours".to_string(), 876.0)]);
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"supply_airflow_cfm": 8000}}}}));
        let c = estimate(&input("free_cooling_missed", "AHU-1", &m), &o);
        let kbtu_yr = 300.0 * 1.08 * 8000.0 / 1e3 * 10.0;
        assert!((c.electricity_kwh - kbtu_yr / 3.412 / 3.5).abs() < 0.1, "{c:?}");
        assert_eq!(c.basis, "missed-free-cooling");
        let c = estimate(&input("free_cooling_missed", "AHU-1", &m), &RcxOptions::default());
        assert_eq!(c.basis, "needs supply_airflow_cfm (report.rcx.loads.\"AHU-1\")");
    }

    #[test]
    fn a_missing_input_is_named_not_invented() {
        let o = RcxOptions::default();
        let m = BTreeMap::from([("simultaneous_hc_pct".to_string(), 40.0)]);
        let c = estimate(&input("simultaneous_heat_cool", "AHU-1", &m), &o);
        assert!(!c.costed && c.annual_cost_usd == 0.0);
        assert_eq!(c.basis, "needs heating_capacity_kbtuh (report.rcx.loads.\"AHU-1\")");
        assert_eq!(uncosted_note(&c.basis), "uncosted: needs heating_capacity_kbtuh (report.rcx.loads.\"AHU-1\")");
        let g = estimate(&input("g36_afdd", "AHU-1", &m), &o);
        assert_eq!(g.basis, "no cost model for rule 'g36_afdd'");
        let p = estimate(&input("hw_pump_dp_reset", "P-1", &m), &o);
        assert_eq!(p.basis, "needs pump_kw (report.rcx.loads.\"P-1\")");
    }

    #[test]
    fn reset_modes_and_fleet_pooling_decide_the_model() {
        let o = opts(json!({"rcx": {"loads": {"AHU-1": {"fan_kw": 10, "heating_capacity_kbtuh": 100}}}}));
        let m = BTreeMap::from([
            ("not_trimming".to_string(), 1.0),
            ("pct_idle_untrimmed".to_string(), 50.0),
            ("stuck".to_string(), 0.0),
        ]);
        let s = estimate(&input("static_reset_effectiveness", "AHU-1", &m), &o);
        // 10 kW x 8760 h x 0.5 x 0.15 = 6570 kWh at $0.15
        assert_eq!((s.electricity_kwh, s.annual_cost_usd), (6570.0, 985.5));
        let stuck = BTreeMap::from([("stuck".to_string(), 1.0), ("not_trimming".to_string(), 1.0)]);
        assert!(estimate(&input("sat_reset_effectiveness", "AHU-1", &stuck), &o).basis.contains("stuck"));
        let census = BTreeMap::from([("worst_zone_share".to_string(), 0.4)]);
        let mut ci = input("static_rogue_zone_census", "AHU-1", &census);
        assert_eq!(estimate(&ci, &o).electricity_kwh, 5256.0);
        ci.grouped = false;
        assert!(!estimate(&ci, &o).costed);
    }

    #[test]
    fn plant_models() {
        let o = opts(json!({"rcx": {"loads": {"CH-1": {"cooling_tons": 300, "chiller_kw_per_ton": 0.6}}}}));
        let m = BTreeMap::from([
            ("kw_per_ton_median".to_string(), 0.85),
            ("tons_median".to_string(), 200.0),
            ("pct_hours_inefficient".to_string(), 50.0),
        ]);
        let c = estimate(&input("chiller_efficiency", "CH-1", &m), &o);
        // (0.85 - 0.65) x 200 t x 4380 h = 175,200 kWh
        assert_eq!(c.electricity_kwh, 175200.0);
        let t = BTreeMap::from([("median_approach_f".to_string(), 12.0), ("design_approach_f".to_string(), 7.0)]);
        let mut ci = input("cooling_tower_approach", "CH-1", &t);
        ci.flagged_share = Some(0.25);
        // 5 °F x 0.015 x (300 t x 0.6 kW/t x 0.6 load) x 2190 h
        assert!((estimate(&ci, &o).electricity_kwh - 17739.0).abs() < 0.1);
        let b = BTreeMap::from([("starts_per_day".to_string(), 4.0), ("max_starts_per_day".to_string(), 6.0)]);
        assert!(estimate(&input("boiler_short_cycle", "CH-1", &b), &o).basis.contains("needs heating_capacity"));
    }
}
