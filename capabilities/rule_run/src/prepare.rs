//! What every run capability does first: the facility's run config (through the host's
//! `run_config_for`), the equipment it covers narrowed to the call's selection, the window,
//! the trust floor, and the frames read on the config's grid (or, without one, each equipment on
//! its logged interval: one read per grid step).

use std::collections::{BTreeMap, BTreeSet};

use camber_analytics::config::RunConfig;
use camber_analytics::family::class_matches;
use camber_analytics::grid;
use camber_analytics::run::{with_shared, EquipFrame};
use camber_analytics::Frame;
use camber_common::time::{iso_from_ns, ns_from_iso};
use camber_sdk::{name, store, unknown_selection, CapError, Context};
use serde_json::{json, Value};

/// A run ready to go.
pub struct Prepared {
    pub fid: String,
    pub config: RunConfig,
    /// "caller", "dataset" or "store".
    pub source: String,
    pub from_config: bool,
    pub banners: Vec<String>,
    /// The floor in force: the host's (the caller's, or the config's when it asks more), or a
    /// higher one the call asks for.
    pub min_trust: f64,
    /// Frames of the equipment the run judges.
    pub frames: Vec<EquipFrame>,
    /// Frames read only as references.
    pub others: Vec<EquipFrame>,
    /// The window the frames span (first and last grid slot read).
    pub window: (Option<i64>, Option<i64>),
    /// The grid step (ns) each equipment was read at: the config's `resample`, or under
    /// `native` the interval its trends were logged at.
    pub steps: BTreeMap<String, i64>,
}

/// The string list argument `key`.
pub fn strings(args: &Value, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

fn when(args: &Value, key: &str) -> Result<Option<i64>, CapError> {
    args.get(key)
        .and_then(Value::as_str)
        .map(|s| {
            ns_from_iso(s).ok_or_else(|| CapError::invalid(format!("{key} '{s}' is not a valid date or date-time")))
        })
        .transpose()
}

/// A frame the store read, as the engine's.
pub fn to_frame(f: store::Frame) -> Frame {
    let ts = if f.ts.is_empty() { store::frame_times(&f) } else { f.ts };
    Frame { ts, cols: f.roles.into_iter().zip(f.values).collect() }
}

/// The config's shared outdoor-air point as read in `grid`: (role, its times, its values), to
/// give every frame without one ([`with_shared`]).
pub fn shared_oat(grid: &[store::EquipFrame], config: &RunConfig) -> Option<(String, Vec<i64>, Vec<f64>)> {
    let (e, role) = config.shared_oat.as_ref()?;
    let g = grid.iter().find(|g| &g.equip == e)?;
    let k = g.frame.roles.iter().position(|r| r == role)?;
    Some((role.clone(), store::frame_times(&g.frame), g.frame.values[k].clone()))
}

/// The refusal of a window that holds no stored sample: `not_found` naming the facility's
/// first and last sample (`Err` when the store cannot say).
pub fn no_sample(fid: &str, argument: &str) -> Result<CapError, CapError> {
    let span = store::facilities()?.facilities.into_iter().find(|f| f.facility_id == fid);
    let (first, last) = span.map_or((None, None), |f| (f.first_ns, f.last_ns));
    let (f, l) = (first.map(iso_from_ns), last.map(iso_from_ns));
    Ok(CapError::not_found(
        format!(
            "the window holds no stored sample of facility '{fid}': its data runs from {} to {}",
            f.clone().unwrap_or_else(|| "-".into()),
            l.clone().unwrap_or_else(|| "-".into())
        ),
        json!({"argument": argument, "first": f, "last": l}),
    ))
}

/// Prepare the run the arguments ask for. `extra_floor` is a caller's higher `min_trust`.
pub fn prepare(args: &Value, ctx: &Context, extra_floor: Option<f64>) -> Result<Prepared, CapError> {
    let fid = args["facility_id"].as_str().unwrap_or_default().to_string();
    let (start, end) = (when(args, "start")?, when(args, "end")?);
    if let (Some(a), Some(b)) = (start, end) {
        if b < a {
            return Err(CapError::invalid("end is before start"));
        }
    }
    let rc = store::run_config(&fid)?;
    let config = RunConfig::from_value(&rc["config"])
        .map_err(|e| CapError::internal(format!("the run config for this facility does not check: {e}")))?;
    let mut banners: Vec<String> = rc["banners"]
        .as_array()
        .map(|a| a.iter().filter_map(|b| b.as_str().map(str::to_string)).collect())
        .unwrap_or_default();

    let points = store::points(&fid)?;
    if points.is_empty() {
        return Err(CapError::not_found(format!("facility '{fid}' has no stored data"), json!({"facility_id": fid})));
    }
    let stored: BTreeSet<String> = points.iter().map(|p| p.equip.clone()).collect();
    let in_run = |equip: &str, class: &str| {
        config.equipment.iter().any(|sel| {
            class_matches(class, &sel.class) && sel.equips.as_ref().is_none_or(|l| l.iter().any(|e| e == equip))
        })
    };
    let run_equips: BTreeSet<String> =
        points.iter().filter(|p| in_run(&p.equip, &p.equip_class)).map(|p| p.equip.clone()).collect();
    let wanted = strings(args, "equips");
    let unknown: Vec<String> = wanted.iter().filter(|e| !stored.contains(*e)).cloned().collect();
    if !unknown.is_empty() {
        return Err(unknown_selection(&fid, "equips", "equipment", &unknown, stored));
    }
    let outside: Vec<String> = wanted.iter().filter(|e| !run_equips.contains(*e)).cloned().collect();
    if !outside.is_empty() {
        let shown: Vec<String> = outside.iter().map(|e| name(e)).collect();
        return Err(CapError::not_found(
            format!("the run config for facility '{fid}' runs no rule on equipment {}: its class is not in the config's equipment", shown.join(", ")),
            json!({"argument": "equips", "unknown": outside, "available": run_equips.iter().take(50).collect::<Vec<_>>()}),
        ));
    }
    if run_equips.is_empty() {
        // a config written for drift alone, say: say so rather than answer an empty run
        let classes: Vec<String> =
            points.iter().map(|p| name(&p.equip_class)).collect::<BTreeSet<_>>().into_iter().collect();
        let asked: Vec<String> = config.equipment.iter().map(|s| name(&s.class)).collect();
        banners.push(format!(
            "the run config selects none of this facility's equipment for its rules, so none ran: its equipment list names {} and the stored classes are {}",
            if asked.is_empty() { "no class".to_string() } else { asked.join(", ") },
            classes.join(", ")
        ));
    }
    let judged: BTreeSet<String> = if wanted.is_empty() { run_equips } else { wanted.into_iter().collect() };
    let mut read: BTreeSet<String> = judged.clone();
    for refs in config.references.iter().filter(|(e, _)| judged.contains(*e)).map(|(_, r)| r) {
        read.extend(refs.values().map(|r| r.equip.clone()).filter(|e| stored.contains(e)));
    }
    if let Some((e, _)) = &config.shared_oat {
        if stored.contains(e) {
            read.insert(e.clone());
        }
    }
    // the equipment serving each judged one (its static-pressure setpoint is what a box's
    // damper answers to)
    if let Some(top) = &config.topology {
        let known: Vec<&str> = stored.iter().map(String::as_str).collect();
        read.extend(judged.iter().filter_map(|e| top.parent_of(e, &known)).filter(|p| stored.contains(p)));
    }
    read.extend(held_to(&points, &judged, &config));
    let parse_cfg = |s: &Option<String>| s.as_deref().and_then(ns_from_iso);
    let (start, end) = (start.or(parse_cfg(&config.start)), end.or(parse_cfg(&config.end)));
    let list: Vec<String> = read.into_iter().collect();
    let steps = grid_steps(&fid, &list, start, end, &config)?;
    // one read per grid step: the equipment logged at each interval together
    let mut by_step: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for e in &list {
        by_step.entry(steps.get(e).copied().unwrap_or(config.resample_ns)).or_default().push(e.clone());
    }
    let mut grid = Vec::new();
    for (step, equips) in &by_step {
        grid.extend(store::read_grid(&fid, equips, start, end, *step)?);
    }
    grid.sort_by(|a, b| a.equip.cmp(&b.equip));
    if (start.is_some() || end.is_some()) && grid.iter().all(|g| g.frame.len == 0) {
        return Err(no_sample(&fid, if start.is_some() { "start" } else { "end" })?);
    }
    let shared = shared_oat(&grid, &config);
    let (mut frames, mut others) = (Vec::new(), Vec::new());
    let (mut lo, mut hi) = (None::<i64>, None::<i64>);
    for g in grid {
        let mut frame = to_frame(g.frame);
        if let (Some(a), Some(b)) = (frame.ts.first(), frame.ts.last()) {
            lo = Some(lo.map_or(*a, |x| x.min(*a)));
            hi = Some(hi.map_or(*b, |x| x.max(*b)));
        }
        if judged.contains(&g.equip) {
            if let Some((role, ts, v)) = &shared {
                frame = with_shared(frame, role, ts, v);
            }
            frames.push(EquipFrame { equip: g.equip, class: g.equip_class, frame });
        } else {
            others.push(EquipFrame { equip: g.equip, class: g.equip_class, frame });
        }
    }
    camber_analytics::run::attach_parent_points(&mut frames, &others, &config);
    // the floor is the host's decision (the caller's, or the config's when higher); a caller
    // may only ask for more
    let floor = rc["min_trust"].as_f64().unwrap_or(ctx.min_trust).max(extra_floor.unwrap_or(0.0));
    Ok(Prepared {
        fid,
        source: rc["source"].as_str().unwrap_or("store").to_string(),
        from_config: rc["from_config"].as_bool().unwrap_or(false),
        config,
        banners,
        min_trust: floor,
        frames,
        others,
        window: (lo, hi),
        steps,
    })
}

/// The grid step of each equipment of `equips`: the config's `resample` for all, or under
/// `native` each one's logged interval in the window (the finest of its points', from the
/// store's times index: no rows are read for it).
/// The equipment a judged unit's own sensors are held to ([`camber_analytics::site`]), so that a
/// run of a few units judges their outdoor and return air as a run of the whole facility does:
/// every unit storing a site role (outdoor air, humidity, wet bulb) that a judged unit stores,
/// and each zone storing a space temperature that the topology puts under a judged unit storing
/// return air.
fn held_to(points: &[store::Point], judged: &BTreeSet<String>, config: &RunConfig) -> BTreeSet<String> {
    let stored: BTreeSet<(&str, &str)> = points.iter().map(|p| (p.equip.as_str(), p.role.as_str())).collect();
    let judged_store = |role: &str| judged.iter().filter(|e| stored.contains(&(e.as_str(), role))).collect::<Vec<_>>();
    let with_role = |role: &'static str| stored.iter().filter(move |(_, r)| *r == role).map(|(e, _)| *e);
    let mut out: BTreeSet<String> = BTreeSet::new();
    for role in camber_analytics::site::SITE_ROLES {
        if !judged_store(role).is_empty() {
            out.extend(with_role(role).map(str::to_string));
        }
    }
    let returns = judged_store("return_air_temp");
    if let (Some(top), false) = (&config.topology, returns.is_empty()) {
        let known: Vec<&str> = stored.iter().map(|(e, _)| *e).collect::<BTreeSet<_>>().into_iter().collect();
        out.extend(
            with_role("space_temp")
                .filter(|z| top.parent_of(z, &known).is_some_and(|p| returns.iter().any(|r| **r == p)))
                .map(str::to_string),
        );
    }
    out
}

fn grid_steps(
    fid: &str,
    equips: &[String],
    start: Option<i64>,
    end: Option<i64>,
    config: &RunConfig,
) -> Result<BTreeMap<String, i64>, CapError> {
    if !config.native || equips.is_empty() {
        return Ok(equips.iter().map(|e| (e.clone(), config.resample_ns)).collect());
    }
    let times = store::read_times(fid, equips, &[], start, end)?;
    let intervals =
        times.iter().map(|p| (p.equip.as_str(), grid::logged_interval(p.runs.iter().map(|r| (r.step, r.count)))));
    let mut steps = grid::equipment_steps(intervals, config.resample_ns);
    for e in equips {
        steps.entry(e.clone()).or_insert(config.resample_ns);
    }
    Ok(steps)
}

/// The data block every run capability returns about its run.
pub fn run_block(p: &Prepared) -> Value {
    json!({
        "source": p.source,
        "from_config": p.from_config,
        "resample_minutes": if p.config.native { Value::Null } else { json!(grid::minutes(p.config.resample_ns)) },
        "native": p.config.native,
        "grids": grids(p),
        "min_trust": p.min_trust,
        "window": {"start": p.window.0.map(iso_from_ns), "end": p.window.1.map(iso_from_ns)},
        "equipment": p.frames.len(),
    })
}

/// How many judged equipment were read at each grid step, keyed by minutes (`{"5": 12, "15": 3}`).
fn grids(p: &Prepared) -> Value {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for f in &p.frames {
        let step = p.steps.get(&f.equip).copied().unwrap_or(p.config.resample_ns);
        *counts.entry(format!("{}", grid::minutes(step))).or_default() += 1;
    }
    json!(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(equip: &str, role: &str) -> store::Point {
        store::Point { equip: equip.into(), equip_class: "AHU".into(), role: role.into() }
    }

    #[test]
    fn a_few_units_are_read_with_what_their_outdoor_and_return_air_are_held_to() {
        let points = vec![
            point("AHU-1", "oat"),
            point("AHU-1", "return_air_temp"),
            point("AHU-2", "oat"),
            point("AHU-2", "return_air_temp"),
            point("CT-1", "oat"),
            point("CT-1", "wetbulb_temp"),
            point("VAV-1", "space_temp"),
            point("VAV-2", "space_temp"),
            point("VAV-3", "airflow"),
            point("VAV-9", "space_temp"),
        ];
        let config = RunConfig::from_value(&json!({
            "topology": {"parents": {"VAV-1": "AHU-1", "VAV-2": "AHU-1", "VAV-3": "AHU-1", "VAV-9": "AHU-2"}}
        }))
        .unwrap();
        let judged: BTreeSet<String> = ["AHU-1".to_string()].into();
        let read: Vec<String> = held_to(&points, &judged, &config).into_iter().collect();
        // every outdoor-air sensor (its own too), the wet bulb of no judged unit left out, and
        // the zones AHU-1 serves that store a space temperature
        assert_eq!(read, ["AHU-1", "AHU-2", "CT-1", "VAV-1", "VAV-2"]);
        // without a topology, no zone; a judged box holds nothing to anything
        let plain = RunConfig::from_value(&json!({})).unwrap();
        let read: Vec<String> = held_to(&points, &judged, &plain).into_iter().collect();
        assert_eq!(read, ["AHU-1", "AHU-2", "CT-1"]);
        assert!(held_to(&points, &["VAV-1".to_string()].into(), &config).is_empty());
    }
}
