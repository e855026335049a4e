//! Run configs as the host serves them: the files named with `--config`, read and checked once
//! at startup (the calls read this snapshot, never the files), and `run_config_for`, which
//! decides the config a run of one facility uses: the caller's when it names the facility,
//! else the packaged template of the catalog dataset the facility was ingested from (camber's
//! own synthetic datasets, or one of the reference toolkit's catalog, whose templates are
//! packaged in `templates/reference-datasets.json`), else a config backed by the store (every
//! stored class, every rule at its defaults).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use camber_analytics::config::RunConfig;
use camber_analytics::family::family_of;
use camber_analytics::rules;
use camber_common::canonical::sha256_hex;

use camber_store::{StoreDir, StoreError};

/// One loaded config.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The file's name (no directory), for messages.
    pub name: String,
    pub value: Value,
    pub parsed: RunConfig,
}

/// The configs a server was started with.
#[derive(Clone, Debug, Default)]
pub struct RunConfigs {
    pub loaded: Vec<Loaded>,
    /// A digest of their content ("" when there are none): part of every call's token.
    pub digest: String,
    /// The run config text each facility was last given (see [`run_config_text`]), under the
    /// store's key of what it was derived from and the trust floor.
    memo: Arc<Mutex<HashMap<String, KeyedText>>>,
}

/// A text and the key of what it was worked out from.
type KeyedText = (String, Arc<str>);

/// JSON, or YAML for a `.yaml` / `.yml` file (or text that is not JSON).
pub fn parse_text(name: &str, text: &str) -> Result<Value, String> {
    let yaml = name.ends_with(".yaml") || name.ends_with(".yml");
    if !yaml {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => return Ok(v),
            Err(e) if text.trim_start().starts_with('{') => return Err(format!("{name} is not valid JSON: {e}")),
            Err(_) => {}
        }
    }
    serde_norway::from_str::<Value>(text).map_err(|e| format!("{name} is not valid YAML: {e}"))
}

impl RunConfigs {
    /// Read and check each file; the first problem is an error naming the file (not its path).
    pub fn load(paths: &[PathBuf]) -> Result<RunConfigs, String> {
        let mut out = RunConfigs::default();
        let mut digests = Vec::new();
        for p in paths {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "the config".into());
            let bytes = std::fs::read(p).map_err(|e| format!("--config: {name} cannot be read ({})", e.kind()))?;
            let text = String::from_utf8(bytes.clone()).map_err(|_| format!("--config: {name} is not UTF-8 text"))?;
            let mut value = parse_text(&name, &text).map_err(|e| format!("--config: {e}"))?;
            let mut parsed = RunConfig::from_value(&value).map_err(|e| format!("--config: {name}: {e}"))?;
            if let Some(file) = parsed.drift.as_ref().and_then(|d| d.store.clone()) {
                let (frozen, bytes) = read_frozen(p, &file).map_err(|e| format!("--config: {name}: {e}"))?;
                digests.push(sha256_hex(&bytes));
                value["drift"]["frozen"] = frozen;
                parsed = RunConfig::from_value(&value).map_err(|e| format!("--config: {name}: {e}"))?;
            }
            if let Some(fid) = &parsed.facility_id {
                if out.loaded.iter().any(|l| l.parsed.facility_id.as_deref() == Some(fid)) {
                    return Err(format!("--config: {name} names facility '{fid}', which another config already names"));
                }
            }
            digests.push(sha256_hex(&bytes));
            out.loaded.push(Loaded { name, value, parsed });
        }
        if !digests.is_empty() {
            out.digest = if digests.len() == 1 { digests.remove(0) } else { sha256_hex(digests.join(",").as_bytes()) };
        }
        Ok(out)
    }

    /// Configs given as parsed values (a command that edits one before use), checked as
    /// [`RunConfigs::load`] checks files, without reading a `drift.store`.
    pub fn from_values(values: Vec<(String, Value)>) -> Result<RunConfigs, String> {
        let mut out = RunConfigs::default();
        for (name, value) in values {
            let parsed = RunConfig::from_value(&value).map_err(|e| format!("--config: {name}: {e}"))?;
            out.loaded.push(Loaded { name, value, parsed });
        }
        Ok(out)
    }

    /// The caller's config for a facility: the one that names it, or a single config that
    /// names no facility.
    pub fn for_facility(&self, fid: &str) -> Option<&Loaded> {
        self.loaded.iter().find(|l| l.parsed.facility_id.as_deref() == Some(fid)).or_else(|| {
            match self.loaded.as_slice() {
                [only] if only.parsed.facility_id.is_none() => Some(only),
                _ => None,
            }
        })
    }
}

/// The frozen drift baselines a config's `drift.store` names (relative to the config's folder),
/// read once at startup so a call never opens a file: the parsed file and its bytes (for the
/// configs' digest). A file that cannot be read, or is not a frozen-baselines file, is an error.
fn read_frozen(config: &std::path::Path, file: &str) -> Result<(Value, Vec<u8>), String> {
    let path = config.parent().map_or_else(|| PathBuf::from(file), |d| d.join(file));
    let shown = path.file_name().map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
    let bytes = std::fs::read(&path).map_err(|e| format!("drift.store '{shown}' cannot be read ({})", e.kind()))?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| format!("drift.store '{shown}' is not JSON: {e}"))?;
    let kind = camber_analytics::drift::run::FROZEN_KIND;
    if v.get("kind").and_then(Value::as_str) != Some(kind) {
        return Err(format!("drift.store '{shown}' is not a frozen-baselines file (camber drift fit writes one)"));
    }
    Ok((v, bytes))
}

/// The reference toolkit's run templates for its catalog datasets, as
/// `scripts/import-reference-templates.py` keeps them: the grid, the classes, the rules with the
/// template's parameters (a run leaves out those not built here and says so) and the sections
/// other capabilities read.
const REFERENCE_TEMPLATES: &str = include_str!("../templates/reference-datasets.json");

/// A reference catalog dataset's packaged template, for facility `fid`.
fn reference_template(dataset_id: &str, fid: &str) -> Option<Value> {
    static ALL: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| serde_json::from_str(REFERENCE_TEMPLATES).unwrap_or(Value::Null));
    let mut t = all.get(dataset_id)?.clone();
    t.as_object_mut()?.insert("source".into(), json!({"kind": "store", "facility_id": fid}));
    Some(t)
}

/// The topology of a camber synthetic dataset: each generated system is one scenario
/// (`AHU__<scenario>`, `VAV1__<scenario>`, `CH__<scenario>` ...), so a terminal's air handler is
/// the one air handler of its scenario, a scenario's chillers are one plant, `PLANT__<scenario>`
/// (chilled-water loops are not chillers and are left unnamed), and the heat pumps of one scenario
/// serve one room (`ROOM__<scenario>`).
fn synthetic_topology(points: &[camber_store::PointRow]) -> Option<Value> {
    let scenario = |equip: &str| equip.split_once("__").map(|(_, s)| s.to_string());
    let mut ahus: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for p in points.iter().filter(|p| family_of(&p.equip_class) == Some("air_handler")) {
        if let Some(s) = scenario(&p.equip) {
            let v = ahus.entry(s).or_default();
            if !v.contains(&p.equip.as_str()) {
                v.push(&p.equip);
            }
        }
    }
    let mut parents = serde_json::Map::new();
    for p in points.iter().filter(|p| family_of(&p.equip_class) == Some("terminal")) {
        if let Some([ahu]) = scenario(&p.equip).and_then(|s| ahus.get(&s)).map(Vec::as_slice) {
            parents.insert(p.equip.clone(), json!(ahu));
        }
    }
    let chiller = |class: &str| family_of(class) == Some("chw_plant") && !camber_analytics::chiller::is_chw_loop(class);
    for p in points.iter().filter(|p| chiller(&p.equip_class)) {
        if let Some(s) = scenario(&p.equip) {
            parents.insert(p.equip.clone(), json!(format!("PLANT__{s}")));
        }
    }
    // heat pumps of one scenario serve one room
    let mut pumps: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for p in points.iter().filter(|p| family_of(&p.equip_class) == Some("heat_pump")) {
        if let Some(s) = scenario(&p.equip) {
            let v = pumps.entry(s).or_default();
            if !v.contains(&p.equip.as_str()) {
                v.push(&p.equip);
            }
        }
    }
    for (s, units) in pumps.iter().filter(|(_, u)| u.len() > 1) {
        for u in units {
            parents.insert(u.to_string(), json!(format!("ROOM__{s}")));
        }
    }
    (!parents.is_empty()).then(|| json!({"parents": parents, "match": "exact"}))
}

/// The outdoor temperature a camber synthetic dataset's template shares (`shared_oat`): every
/// scenario of a dataset is generated in one weather, so where a chilled-water plant's units do
/// not trend it (a chiller's reset is read against it) the first unit that does stands for the
/// site.
fn synthetic_shared_oat(points: &[camber_store::PointRow]) -> Option<Value> {
    let has_oat = |equip: &str| points.iter().any(|p| p.equip == equip && p.role == "oat");
    let wants = points.iter().any(|p| family_of(&p.equip_class) == Some("chw_plant") && !has_oat(&p.equip));
    let source = points.iter().find(|p| p.role == "oat")?;
    wants.then(|| json!({"equip": source.equip, "role": "oat"}))
}

/// The packaged run template of a camber synthetic dataset, on the facility's own classes and
/// at the dataset's native interval.
fn dataset_template(dataset_id: &str, fid: &str, step_minutes: Option<u64>, classes: &[String]) -> Option<Value> {
    let info = camber_synth::datasets().into_iter().find(|d| d.id == dataset_id)?;
    let families: Vec<&str> = classes.iter().filter_map(|c| family_of(c)).collect();
    let rule_ids: Vec<&str> = rules::all()
        .iter()
        .map(|r| (r.spec)())
        // a rule with no family is written for any equipment (as `run::applies` reads it)
        .filter(|s| s.families.is_empty() || s.families.iter().any(|f| families.contains(f)))
        .map(|s| s.id)
        .collect();
    let resample = step_minutes.map_or_else(|| "1h".to_string(), |m| format!("{m}min"));
    Some(json!({
        "_comment": format!("Run template for {dataset_id} ({}): every rule written for its equipment, at the generator's {resample} interval.", info.title),
        "source": {"kind": "store", "facility_id": fid},
        "resample": resample,
        "equipment": classes.iter().map(|c| json!({"class": c})).collect::<Vec<_>>(),
        "rules": rule_ids,
    }))
}

/// [`run_config_for`] as the JSON text a guest reads, worked out once per facility until its
/// files, the facility registry or the floor change: a dataset's template is rebuilt from the
/// facility's points and checked against every rule, most of a millisecond a call otherwise.
pub fn run_config_text(configs: &RunConfigs, store: &StoreDir, fid: &str, floor: f64) -> Result<Arc<str>, StoreError> {
    let key = format!("{}|{}|{floor}", store.root().display(), store.derived_key(fid));
    if let Some((k, text)) = configs.memo.lock().unwrap_or_else(|p| p.into_inner()).get(fid) {
        if *k == key {
            return Ok(text.clone());
        }
    }
    let text: Arc<str> = run_config_for(configs, store, fid, floor)?.to_string().into();
    // kept only when nothing changed while it was worked out
    if format!("{}|{}|{floor}", store.root().display(), store.derived_key(fid)) == key {
        configs.memo.lock().unwrap_or_else(|p| p.into_inner()).insert(fid.to_string(), (key, text.clone()));
    }
    Ok(text)
}

/// The config a run of `fid` uses, for the guest: `{config, source, from_config, banners,
/// min_trust}`. `source` is "caller", "dataset" or "store"; `min_trust` is the trust floor the
/// run applies: the caller's (`floor`), or the config's `trust_gate.min_trust` when higher.
pub fn run_config_for(configs: &RunConfigs, store: &StoreDir, fid: &str, floor: f64) -> Result<Value, StoreError> {
    let mut out = effective(configs, store, fid)?;
    // checked at load (caller configs) or written here (templates): a number in [0, 1]
    let asked = out["config"]["trust_gate"]["min_trust"].as_f64();
    let mut banners: Vec<String> = out["banner"].as_str().map(str::to_string).into_iter().collect();
    if let Ok(c) = RunConfig::from_value(&out["config"]) {
        if !c.not_built.is_empty() {
            banners.push(format!(
                "the run config names rules this server has not built, which did not run: {}",
                c.not_built.join(", ")
            ));
        }
    }
    let min_trust = match asked {
        Some(m) if m > floor => {
            banners.push(format!(
                "the run config asks a trust floor of {m:.2}, above this server's {floor:.2}: the run applies {m:.2}"
            ));
            m
        }
        _ => floor,
    };
    out["banners"] = json!(banners);
    out["min_trust"] = json!(min_trust);
    if let Some(o) = out.as_object_mut() {
        o.remove("banner");
    }
    Ok(out)
}

fn effective(configs: &RunConfigs, store: &StoreDir, fid: &str) -> Result<Value, StoreError> {
    if let Some(l) = configs.for_facility(fid) {
        return Ok(json!({"config": l.value, "source": "caller", "from_config": true, "banner": null}));
    }
    let points = store.points(fid)?;
    let mut classes: Vec<String> = points.iter().map(|p| p.equip_class.clone()).collect();
    classes.sort();
    classes.dedup();
    let weather = points
        .iter()
        .find(|p| family_of(&p.equip_class) == Some("weather") && p.role == "oat")
        .map(|p| p.equip.clone());
    let registry = store.registry();
    let dataset = registry.entries.get(fid).and_then(|e| e.get("dataset"));
    let dataset_id = dataset.and_then(|d| d.get("dataset_id")).and_then(Value::as_str);
    if let Some(id) = dataset_id {
        let step = dataset.and_then(|d| d.get("step_minutes")).and_then(Value::as_u64);
        let synthetic = dataset_template(id, fid, step, &classes).map(|mut t| {
            if let Some(topology) = synthetic_topology(&points) {
                t["topology"] = topology;
            }
            if let Some(oat) = synthetic_shared_oat(&points) {
                t["shared_oat"] = oat;
            }
            t
        });
        if let Some(t) = synthetic.or_else(|| reference_template(id, fid)) {
            let banner =
                format!("no run config names facility '{fid}': this run uses the packaged template of dataset '{id}'");
            return Ok(json!({"config": t, "source": "dataset", "from_config": true, "banner": banner}));
        }
    }
    let config = RunConfig::store_backed(fid, &classes, weather.as_deref());
    let banner = format!("no run config names facility '{fid}': this run covers every stored equipment class with every rule at its defaults, each equipment on the interval its trends were logged at");
    Ok(json!({"config": config, "source": "store", "from_config": false, "banner": banner}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml_read_the_same() {
        let j = parse_text("a.json", r#"{"rules": ["leaking_valve"], "resample": "15min"}"#).unwrap();
        let y = parse_text("a.yaml", "rules:\n  - leaking_valve\nresample: 15min\n").unwrap();
        assert_eq!(j, y);
        assert!(parse_text("a.json", "{nope").unwrap_err().contains("not valid JSON"));
        assert!(parse_text("a.yml", "a: [").unwrap_err().contains("not valid YAML"));
    }

    #[test]
    fn loading_checks_and_digests() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("hq.yaml");
        std::fs::write(&good, "source:\n  facility_id: hq\nrules: [leaking_valve]\n").unwrap();
        let c = RunConfigs::load(std::slice::from_ref(&good)).unwrap();
        assert_eq!(c.digest.len(), 64);
        assert!(c.for_facility("hq").is_some() && c.for_facility("other").is_none());
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"{"rules": ["leaky"]}"#).unwrap();
        let e = RunConfigs::load(&[bad]).unwrap_err();
        assert!(
            e.starts_with("--config: bad.json: ")
                && e.contains("unknown rule 'leaky'")
                && !e.contains(&dir.path().display().to_string()),
            "{e}"
        );
        let e = RunConfigs::load(&[good.clone(), good]).unwrap_err();
        assert!(e.contains("already names"));
    }

    #[test]
    fn a_facilitys_run_config_text_is_kept_until_its_data_or_the_floor_change() {
        let dir = tempfile::tempdir().unwrap();
        let rows = |v: f64| vec![(0i64, "AHU-1".to_string(), "AHU".to_string(), "supply_air_temp".to_string(), v)];
        camber_store::fixture::write_facility(dir.path(), "hq", &rows(55.0), json!({"state": "active"})).unwrap();
        let store = StoreDir::open(dir.path()).unwrap();
        let configs = RunConfigs::default();
        let a = run_config_text(&configs, &store, "hq", 0.5).unwrap();
        let b = run_config_text(&configs, &store, "hq", 0.5).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "worked out once");
        assert_eq!(*a, *run_config_for(&configs, &store, "hq", 0.5).unwrap().to_string());
        let floor = run_config_text(&configs, &store, "hq", 0.7).unwrap();
        assert!(floor.contains("0.7"), "another floor is another text");
        // a new equipment class stored: the store-backed config covers it
        let mut more = rows(56.0);
        more.push((0, "CH-1".into(), "CHILLER".into(), "chw_supply_temp".into(), 44.0));
        camber_store::fixture::write_facility(dir.path(), "hq", &more, json!({"state": "active"})).unwrap();
        let after = run_config_text(&configs, &store, "hq", 0.7).unwrap();
        assert!(after.contains("CHILLER") && !floor.contains("CHILLER"), "{after}");
    }

    #[test]
    fn a_config_naming_the_reference_s_rules_runs_them() {
        let dir = tempfile::tempdir().unwrap();
        let rows = vec![(0i64, "AHU-1".to_string(), "AHU".to_string(), "supply_air_temp".to_string(), 55.0)];
        camber_store::fixture::write_facility(dir.path(), "hq", &rows, json!({"state": "active"})).unwrap();
        let store = StoreDir::open(dir.path()).unwrap();
        let file = dir.path().join("hq.json");
        std::fs::write(&file, r#"{"source": {"facility_id": "hq"}, "rules": ["leaking_valve", "chiller_staging"]}"#)
            .unwrap();
        let configs = RunConfigs::load(&[file]).unwrap();
        let out = run_config_for(&configs, &store, "hq", 0.5).unwrap();
        assert_eq!(out["source"], "caller");
        let banners = out["banners"].to_string();
        // the reference's rules are all built here: nothing is left out
        assert!(!banners.contains("has not built"), "{banners}");
        // a name neither tool has is still refused at startup
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, r#"{"rules": ["filter_fooling"]}"#).unwrap();
        assert!(RunConfigs::load(&[bad]).unwrap_err().contains("unknown rule 'filter_fooling'"));
    }

    #[test]
    fn a_synthetic_dataset_s_units_are_grouped_by_scenario() {
        let p = |equip: &str, class: &str| camber_store::PointRow {
            equip: equip.into(),
            equip_class: class.into(),
            role: "x".into(),
        };
        let points =
            [p("AHU__a", "AHU"), p("VAV1__a", "VAV"), p("VAV2__a", "VAV"), p("VAV1__b", "VAV"), p("AHU__a", "AHU")];
        let t = synthetic_topology(&points).unwrap();
        assert_eq!(t, json!({"parents": {"VAV1__a": "AHU__a", "VAV2__a": "AHU__a"}, "match": "exact"}));
        // a scenario's chillers are one plant; a chilled-water loop is not a chiller
        let t =
            synthetic_topology(&[p("CH1__a", "CHILLER"), p("CH2__a", "CHILLER"), p("SECLOOP__a", "CHW_LOOP")]).unwrap();
        assert_eq!(t, json!({"parents": {"CH1__a": "PLANT__a", "CH2__a": "PLANT__a"}, "match": "exact"}));
        assert!(synthetic_topology(&[p("TOWER__a", "COOLING_TOWER")]).is_none());
        // a chiller without an outdoor temperature shares the site's, from the unit that trends it
        let q = |equip: &str, class: &str, role: &str| camber_store::PointRow {
            equip: equip.into(),
            equip_class: class.into(),
            role: role.into(),
        };
        let plant = [q("CH__a", "CHILLER", "power"), q("TOWER__a", "COOLING_TOWER", "oat")];
        assert_eq!(synthetic_shared_oat(&plant), Some(json!({"equip": "TOWER__a", "role": "oat"})));
        assert_eq!(synthetic_shared_oat(&[q("AHU__a", "AHU", "oat"), q("VAV1__a", "VAV", "x")]), None);
        let room =
            synthetic_topology(&[p("HPA__f", "HEAT_PUMP"), p("HPB__f", "HEAT_PUMP"), p("HP__g", "HEAT_PUMP")]).unwrap();
        assert_eq!(room["parents"], json!({"HPA__f": "ROOM__f", "HPB__f": "ROOM__f"}));
    }

    #[test]
    fn every_packaged_reference_template_is_a_valid_config() {
        let all: Value = serde_json::from_str(REFERENCE_TEMPLATES).unwrap();
        let ids: Vec<&String> = all.as_object().unwrap().keys().collect();
        assert!(ids.len() >= 30, "{ids:?}");
        for id in ids {
            let t = reference_template(id, "ds-x").unwrap();
            let parsed = RunConfig::from_value(&t).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert_eq!(parsed.facility_id.as_deref(), Some("ds-x"));
            assert!(t.get("_comment").is_none(), "{id}");
        }
        let g36 = RunConfig::from_value(&reference_template("synthetic-g36-vav-fleet", "f").unwrap()).unwrap();
        assert!(g36.rules.iter().any(|r| r.id == "sat_reset_effectiveness"));
        // the built rules run, the fleet rules with the template's topology; what is not built
        // yet is left out and named
        for built in ["airflow_tracking", "unmet_setpoint_hours", "sat_rogue_zone_census", "static_cohort_starvation"] {
            assert!(g36.rules.iter().any(|r| r.id == built), "{built}");
            assert!(!g36.not_built.iter().any(|r| r == built), "{built}");
        }
        let t = g36.topology.as_ref().expect("the template's topology");
        assert_eq!(t.parents["VAV4__rogue_static"], ["AHU__rogue_static"]);
        for r in &g36.not_built {
            assert!(camber_analytics::config::REFERENCE_ONLY_RULES.contains(&r.as_str()), "{r}");
        }
    }
}
