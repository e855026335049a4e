//! The proposal: for each column of an export, the equipment, class, role and unit that the
//! names, the declared units, the data and any semantic model agree on, with a confidence and
//! the evidence; below the acceptance floor a column goes to review with its candidates, and a
//! column no role fits is listed with the reason.

use std::collections::{BTreeMap, BTreeSet};

use camber_common::roles::{role, Kind};

use crate::model::Model;
use crate::names::{self, NameParse};
use crate::profile::{self, Export};
use crate::topology::{self, Edge};
use crate::units::{self, Dimension};

/// What `camber map` is asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// A column at or above this confidence is accepted into the mapping; below it, it goes to review.
    pub min_confidence: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options { min_confidence: 0.6 }
    }
}

/// One column's proposal.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnProposal {
    pub column: String,
    pub equip: String,
    pub equip_class: String,
    pub role: String,
    /// The unit to declare at ingest (`degC`, `%`, `fraction`, ...), or empty when the readings
    /// are in the role's stored unit.
    pub unit: String,
    /// 0-1.
    pub confidence: f64,
    /// Why, one line each (`name words sat=supply+air+temp`, `brick:Supply_Air_Temperature_Sensor`,
    /// `values 52.1-68.4 within the role's range`).
    pub evidence: Vec<String>,
    /// Other roles that fit, with their scores.
    pub alternatives: Vec<(String, f64)>,
    /// Why the column is in review (below the floor, a duplicate, no equipment), if it is.
    pub review: Option<String>,
}

/// A column no role fits.
#[derive(Clone, Debug, PartialEq)]
pub struct Unmapped {
    pub column: String,
    pub reason: String,
}

/// Everything `camber map` proposes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Proposal {
    pub timestamp: Option<String>,
    /// At or above the floor, one per (equipment, role).
    pub accepted: Vec<ColumnProposal>,
    pub review: Vec<ColumnProposal>,
    pub unmapped: Vec<Unmapped>,
    /// Served-by edges (parent feeds child), each with how it was found.
    pub topology: Vec<Edge>,
    /// Lines for the person reviewing: what was read, what was assumed for the whole file.
    pub notes: Vec<String>,
}

/// Roles only an air handler has.
const AHU_ONLY: &[&str] = &[
    "mixed_air_temp",
    "return_air_temp",
    "oa_damper",
    "oa_airflow",
    "econ_cmd",
    "duct_static",
    "duct_static_sp",
    "supply_fan_status",
    "supply_fan_speed",
    "cool_coil_leaving_temp",
    "supply_air_temp_sp",
    "filter_diff_press",
];
/// Roles only a terminal (or a zone it serves) has.
const TERMINAL_ONLY: &[&str] =
    &["damper", "space_temp", "cool_sp", "heat_sp", "airflow_min_sp", "zone_heat_loop", "zone_cool_loop"];
/// Roles of the outdoors: with no equipment in the name they go to the site's weather station.
const OUTDOOR: &[&str] = &["oat", "wetbulb_temp", "outdoor_rh", "outdoor_co2"];

/// Work on one column.
#[derive(Clone, Debug, Default)]
struct Work {
    parse: NameParse,
    /// (model, point) of a semantic point the column is linked to.
    link: Option<(usize, usize)>,
    equip: Option<String>,
    equip_how: String,
    name_class: Option<String>,
    model_class: Option<(String, String)>,
    parent: Option<(String, String)>,
}

/// Proposes a mapping for an export, with any models given beside it.
pub fn propose(export: &Export, models: &[Model], opts: &Options) -> Proposal {
    let mut out = Proposal { timestamp: export.timestamp.clone(), ..Proposal::default() };
    let index = model_index(models);
    let mut work: Vec<Work> = Vec::with_capacity(export.columns.len());
    for col in &export.columns {
        let mut w = Work { parse: names::parse(&col.name), ..Work::default() };
        if let Some(d) = &col.description {
            // a point list's description reads like a name ("Discharge air temperature")
            if names::fit(&w.parse, w.parse.equip.as_ref().and_then(|e| e.class)).is_empty() {
                let dp = names::parse(d);
                w.parse.words.extend(dp.words);
                w.parse.concepts.extend(dp.concepts);
            }
        }
        w.link = lookup(&index, &col.name);
        if let Some((m, p)) = w.link {
            let mp = &models[m].points[p];
            if let Some(eid) = &mp.equip {
                w.equip = Some(eid.clone());
                w.equip_how = format!("{}: point of {eid}", models[m].source);
                if let Some(e) = models[m].equips.iter().find(|e| &e.id == eid) {
                    if let Some(c) = &e.class {
                        w.model_class = Some((c.clone(), e.evidence.clone()));
                    }
                }
            }
        }
        if w.equip.is_none() {
            if let Some(e) = &w.parse.equip {
                w.equip = Some(e.id.clone());
                w.equip_how = e.how.clone();
                w.name_class = e.class.map(str::to_string);
                if let Some(p) = &e.parent {
                    w.parent = Some((p.clone(), format!("{} is named under {p}", e.id)));
                }
            }
        } else if let Some(e) = &w.parse.equip {
            w.name_class = e.class.map(str::to_string);
        }
        work.push(w);
    }

    // equipment groups: one spelling and one class per equipment
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for w in &work {
        if let Some(id) = &w.equip {
            let g = groups.entry(group_key(id)).or_default();
            *g.spellings.entry(id.clone()).or_default() += 1;
            if let Some(c) = &w.name_class {
                *g.name_votes.entry(c.clone()).or_default() += 1;
            }
            if let Some(c) = &w.model_class {
                g.model_class = Some(c.clone());
            }
        }
    }
    for g in groups.values_mut() {
        g.id = g
            .spellings
            .iter()
            .max_by_key(|(s, n)| (**n, std::cmp::Reverse((*s).clone())))
            .map(|(s, _)| s.clone())
            .unwrap_or_default();
        if let Some((c, ev)) = &g.model_class {
            g.class = Some(c.clone());
            g.class_how = ev.clone();
        } else if let Some((c, _)) = g.name_votes.iter().max_by_key(|(_, n)| **n) {
            g.class = Some(c.clone());
            g.class_how = format!("the word for {c} in its points' names");
        }
    }

    // first reading of the roles, then the classes their roles imply, then the final reading
    let first: Vec<Vec<names::RoleFit>> = work
        .iter()
        .map(|w| {
            names::fit(
                &w.parse,
                w.equip.as_ref().and_then(|e| groups.get(&group_key(e))).and_then(|g| g.class.as_deref()),
            )
        })
        .collect();
    correct_classes(&work, &first, &mut groups);

    let temps_in_c = celsius_file(export, &work, &first);
    if temps_in_c {
        out.notes.push("temperatures with no declared unit sit at Celsius levels: declared degC".into());
    }

    let mut proposals: Vec<ColumnProposal> = Vec::new();
    for (col, w) in export.columns.iter().zip(&work) {
        let g = w.equip.as_ref().and_then(|e| groups.get(&group_key(e)));
        let class = g.and_then(|g| g.class.clone());
        let fits = names::fit(&w.parse, class.as_deref());
        let model_point = w.link.map(|(m, p)| (&models[m], &models[m].points[p]));
        let mut ev: Vec<String> = Vec::new();
        let (role_name, mut conf, alternatives) = match model_point {
            Some((m, mp)) if mp.role.is_some() => {
                let r = mp.role.clone().unwrap_or_default();
                ev.push(mp.evidence.clone());
                let mut c = mp.confidence;
                match fits.first() {
                    Some(f) if f.role == r => {
                        c = 1.0 - (1.0 - c) * (1.0 - f.score);
                        ev.push(format!("{} agrees", f.because));
                    }
                    Some(f) => {
                        c *= 0.9;
                        ev.push(format!("the name reads as {} ({}); the {} model wins", f.role, f.because, m.source));
                    }
                    None => {}
                }
                (r, c.min(0.99), alt(&fits, &mp.role.clone().unwrap_or_default()))
            }
            Some((m, mp)) => {
                let why = mp.why_not.clone().unwrap_or_else(|| format!("the {} model gives it no role", m.source));
                out.unmapped.push(Unmapped { column: col.name.clone(), reason: format!("{} ({})", why, mp.evidence) });
                continue;
            }
            None => match fits.first() {
                Some(f) => {
                    ev.push(f.because.clone());
                    let unknown = names::unknown_words(&w.parse);
                    if !unknown.is_empty() {
                        ev.push(format!("words not read: {}", unknown.join(" ")));
                    }
                    (f.role.to_string(), f.score, alt(&fits, f.role))
                }
                None => {
                    let reason = names::no_role_reason(&w.parse).map(str::to_string).unwrap_or_else(|| {
                        let words = w.parse.words.join(" ");
                        if words.is_empty() {
                            "the name holds no point words".to_string()
                        } else {
                            format!("no role fits the words '{words}'")
                        }
                    });
                    out.unmapped.push(Unmapped { column: col.name.clone(), reason });
                    continue;
                }
            },
        };
        let Some(r) = role(&role_name) else {
            out.unmapped
                .push(Unmapped { column: col.name.clone(), reason: format!("'{role_name}' is not a camber role") });
            continue;
        };
        // equipment
        let (mut equip, mut equip_class) = (String::new(), String::new());
        let mut review: Option<String> = None;
        if let Some(g) = g {
            equip = g.id.clone();
            equip_class = g.class.clone().unwrap_or_default();
            ev.push(format!("equipment {}: {}", g.id, w.equip_how));
            if g.class.is_some() {
                ev.push(format!("class {}: {}", equip_class, g.class_how));
            } else {
                review = Some(format!("no class could be told for {}", g.id));
            }
        } else if OUTDOOR.contains(&r.name) {
            equip = "WEATHER".into();
            equip_class = "WEATHER".into();
            conf *= 0.95;
            ev.push("an outdoor reading with no equipment in its name: the site's weather station".into());
        } else {
            review = Some("the name carries no equipment; give one".into());
        }
        // unit: declared (point list, model, name), else read off the data
        let declared = col
            .unit
            .clone()
            .or_else(|| model_point.and_then(|(_, mp)| mp.unit.clone()))
            .or_else(|| w.parse.unit.clone());
        let mut unit = String::new();
        match declared.as_deref().map(|d| (d, units::normalize(d))) {
            Some((d, Some((u, dim)))) => {
                if units::fits(d, r) {
                    unit = u.to_string();
                    if dim == Dimension::Binary {
                        unit.clear();
                    }
                    ev.push(format!("declared unit {d} fits"));
                } else {
                    conf *= 0.4;
                    ev.push(format!(
                        "declared unit {d} does not fit {} (stored in {})",
                        r.name,
                        if r.unit.is_empty() { "no unit" } else { r.unit }
                    ));
                    review.get_or_insert_with(|| format!("its unit {d} does not fit {}", r.name));
                }
            }
            Some((d, None)) => {
                ev.push(format!("declared unit {d} is not one camber converts"));
                review.get_or_insert_with(|| {
                    format!("its unit '{d}' is not one camber converts; convert it or declare another")
                });
            }
            None => {}
        }
        // the data
        if let Some(p) = profile::profile(&col.values) {
            let d = data_check(r, &col.values, &p, declared.is_some(), temps_in_c);
            conf *= d.factor;
            ev.extend(d.evidence);
            if let Some(u) = d.unit {
                unit = u;
            }
        } else if !col.values.is_empty() {
            conf *= 0.7;
            ev.push("the export holds no reading for it".into());
        }
        if unit == r.unit {
            // the stored unit: nothing to declare
            unit.clear();
        }
        proposals.push(ColumnProposal {
            column: col.name.clone(),
            equip,
            equip_class,
            role: r.name.to_string(),
            unit,
            confidence: (conf * 100.0).round() / 100.0,
            evidence: ev,
            alternatives,
            review,
        });
    }

    // one column per (equipment, role): the most confident keeps it
    proposals.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then(a.column.cmp(&b.column)));
    let mut taken: BTreeMap<(String, String), String> = BTreeMap::new();
    for mut p in proposals {
        if p.review.is_none() {
            if let Some(first) = taken.get(&(p.equip.clone(), p.role.clone())) {
                p.review = Some(format!("{} already has {} from column '{first}'", p.equip, p.role));
            } else if p.confidence < opts.min_confidence {
                p.review =
                    Some(format!("confidence {:.2} is below the floor {:.2}", p.confidence, opts.min_confidence));
            }
        }
        if p.review.is_none() {
            taken.insert((p.equip.clone(), p.role.clone()), p.column.clone());
            out.accepted.push(p);
        } else {
            out.review.push(p);
        }
    }
    let order: BTreeMap<&str, usize> = export.columns.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    for v in [&mut out.accepted, &mut out.review] {
        v.sort_by_key(|p| order.get(p.column.as_str()).copied().unwrap_or(usize::MAX));
    }

    // topology: the model, else the names, else the data
    let classes: BTreeMap<String, String> =
        out.accepted.iter().map(|p| (p.equip.clone(), p.equip_class.clone())).collect();
    let named_parents: Vec<(String, String, String)> = work
        .iter()
        .filter_map(|w| {
            let (p, how) = w.parent.clone()?;
            let child = groups.get(&group_key(w.equip.as_ref()?))?.id.clone();
            let parent = groups.get(&group_key(&p)).map(|g| g.id.clone()).unwrap_or(p);
            Some((parent, child, how))
        })
        .collect();
    out.topology = topology::infer(models, &classes, &named_parents, &out.accepted, export);
    out
}

#[derive(Clone, Debug, Default)]
struct Group {
    id: String,
    spellings: BTreeMap<String, usize>,
    name_votes: BTreeMap<String, usize>,
    model_class: Option<(String, String)>,
    class: Option<String>,
    class_how: String,
}

fn group_key(id: &str) -> String {
    id.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_uppercase).collect()
}

fn alt(fits: &[names::RoleFit], chosen: &str) -> Vec<(String, f64)> {
    fits.iter()
        .filter(|f| f.role != chosen)
        .take(3)
        .map(|f| (f.role.to_string(), (f.score * 100.0).round() / 100.0))
        .collect()
}

/// A class the roles of an equipment's points imply, where the names gave none or gave a box
/// for what is plainly an air handler (EnergyPlus names an air loop `VAV_MID`).
fn correct_classes(work: &[Work], first: &[Vec<names::RoleFit>], groups: &mut BTreeMap<String, Group>) {
    let mut roles_of: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for (w, f) in work.iter().zip(first) {
        if let (Some(e), Some(best)) = (&w.equip, f.first()) {
            roles_of.entry(group_key(e)).or_default().insert(best.role);
        }
    }
    for (key, g) in groups.iter_mut() {
        if g.model_class.is_some() {
            continue;
        }
        let roles = roles_of.get(key).cloned().unwrap_or_default();
        let ahu: Vec<&str> = roles.iter().copied().filter(|r| AHU_ONLY.contains(r)).collect();
        let term: Vec<&str> = roles.iter().copied().filter(|r| TERMINAL_ONLY.contains(r)).collect();
        let is_terminal = matches!(g.class.as_deref(), Some("VAV" | "CAV"));
        if (g.class.is_none() || is_terminal) && ahu.len() >= 2 && term.is_empty() {
            g.class_how = format!(
                "its points are an air handler's ({}){}",
                ahu.join(", "),
                if is_terminal { ", though its name has the word for a box" } else { "" }
            );
            g.class = Some("AHU".into());
        } else if g.class.is_none() && !term.is_empty() && ahu.is_empty() {
            g.class = Some("VAV".into());
            g.class_how = format!("its points are a terminal box's ({})", term.join(", "));
        } else if g.class.is_none() {
            let has = |p: &str| roles.iter().any(|r| r.starts_with(p));
            let (c, why) = if has("chw_") {
                ("CHILLER", "chilled-water points")
            } else if has("hw_") || has("boiler") || has("gas_") {
                ("BOILER", "hot-water or boiler points")
            } else if has("cw_") || has("tower") {
                ("COOLING_TOWER", "condenser-water points")
            } else {
                continue;
            };
            g.class = Some(c.into());
            g.class_how = format!("its {why}");
        }
    }
}

/// Whether the export's undeclared temperatures are Celsius: the indoor temperatures (space,
/// supply, return, mixed air) fit the role ranges far better as °C than as °F.
fn celsius_file(export: &Export, work: &[Work], first: &[Vec<names::RoleFit>]) -> bool {
    let (mut as_f, mut as_c, mut n) = (0.0, 0.0, 0);
    for ((col, w), f) in export.columns.iter().zip(work).zip(first) {
        let Some(best) = f.first() else { continue };
        if !matches!(best.role, "space_temp" | "supply_air_temp" | "return_air_temp" | "mixed_air_temp")
            || col.unit.is_some()
            || w.parse.unit.is_some()
        {
            continue;
        }
        // indoor air in °F sits within 45-100; in °C within 7-38
        as_f += profile::outside_share(&col.values, Some(45.0), Some(100.0), 1.0, 0.0);
        as_c += profile::outside_share(&col.values, Some(45.0), Some(100.0), 1.8, 32.0);
        n += 1;
    }
    n > 0 && as_c + 0.2 * n as f64 <= as_f
}

struct DataCheck {
    factor: f64,
    evidence: Vec<String>,
    unit: Option<String>,
}

/// What the readings say about a role: a status is 0/1, a percent stays within 0-100 (or 0-1, a
/// fraction), a reading sits within the role's physical range.
fn data_check(
    r: &camber_common::roles::Role,
    values: &[f64],
    p: &profile::Profile,
    declared: bool,
    celsius: bool,
) -> DataCheck {
    let mut d = DataCheck { factor: 1.0, evidence: Vec::new(), unit: None };
    let range = format!("{}-{}", short(p.min), short(p.max));
    if p.constant {
        d.evidence.push(format!("one value throughout ({}): the data can neither confirm nor refute", short(p.min)));
        return d;
    }
    match r.kind {
        Kind::Status => {
            if p.binary {
                d.evidence.push("values are 0/1, as a status is".into());
            } else if r.name == "occupancy" && p.min >= 0.0 && p.distinct > 2 {
                d.evidence.push(format!("values {range}: a people count (read as occupied when above zero)"));
            } else {
                d.factor *= 0.35;
                d.evidence.push(format!("values {range} are not 0/1, as a status would be"));
            }
            return d;
        }
        Kind::Percent => {
            if p.binary {
                d.factor *= 0.6;
                d.evidence.push("values are only 0 and 1: a status, or a fraction that never moves between".into());
                return d;
            }
            if !declared && p.min >= -0.01 && p.max <= 1.01 {
                d.unit = Some("fraction".into());
                d.evidence.push(format!("values {range} lie within 0-1: read as a fraction"));
                return d;
            }
        }
        Kind::Analog => {
            if p.binary {
                d.factor *= 0.4;
                d.evidence.push("values are only 0 and 1, which this quantity is not".into());
                return d;
            }
        }
    }
    let is_temp = r.unit == "degF";
    let (scale, offset) = if is_temp && !declared && celsius { (1.8, 32.0) } else { (1.0, 0.0) };
    if is_temp && !declared && celsius {
        d.unit = Some("degC".into());
    }
    if declared {
        // the declared unit's conversion is the ingest's; judge the range only when it is the stored one
        return d;
    }
    let out = profile::outside_share(values, r.min, r.max, scale, offset);
    if out > 0.1 {
        d.factor *= (1.0 - out).max(0.2);
        d.evidence.push(format!("{:.0} % of values outside the role's range (values {range})", out * 100.0));
    } else if r.min.is_some() || r.max.is_some() {
        d.evidence.push(format!("values {range} within the role's range"));
    }
    d
}

fn short(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Keys of every model point, exact and normalised.
struct ModelIndex {
    exact: BTreeMap<String, (usize, usize)>,
    loose: BTreeMap<String, Option<(usize, usize)>>,
}

fn model_index(models: &[Model]) -> ModelIndex {
    let mut ix = ModelIndex { exact: BTreeMap::new(), loose: BTreeMap::new() };
    for (m, model) in models.iter().enumerate() {
        for (p, pt) in model.points.iter().enumerate() {
            for k in &pt.keys {
                ix.exact.entry(k.clone()).or_insert((m, p));
                // a loose key two points share links neither
                let e = ix.loose.entry(group_key(k)).or_insert(Some((m, p)));
                if *e != Some((m, p)) {
                    *e = None;
                }
            }
        }
    }
    ix
}

fn lookup(ix: &ModelIndex, column: &str) -> Option<(usize, usize)> {
    ix.exact.get(column).copied().or_else(|| ix.loose.get(&group_key(column)).copied().flatten())
}

/// The verdict a confidence earns.
pub fn verdict(confidence: f64) -> &'static str {
    if confidence >= 0.8 {
        "high"
    } else if confidence >= 0.5 {
        "medium"
    } else {
        "low"
    }
}
