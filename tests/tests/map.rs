//! `camber map` as a commissioning engineer meets it: a building-automation export whose points
//! are named in three conventions at once, a Brick model and a Haystack grid beside it, and the
//! proposed mapping ingested as it is and read back through `points`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use camber_tests::{cache_dir, camber_bin};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

fn camber() -> Command {
    let mut c = Command::new(camber_bin());
    c.env("CAMBER_CACHE_DIR", cache_dir());
    c.env_remove("CAMBER_CAPABILITIES");
    c
}

/// Seeded noise in -0.5..0.5: the same building every run.
struct Noise(StdRng);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0.random_range(-0.5..0.5)
    }
}

/// Each column: its name, the (equipment, role) a person would map it to (`None`: no camber
/// role), and its readings.
type Col = (&'static str, Option<(&'static str, &'static str)>, Vec<f64>);

/// Two weeks of a July building at 15 minutes: two air handlers, four boxes, a chiller, a pump,
/// an exhaust fan and the site's outdoor air, named as three integrators would.
fn building() -> (Vec<String>, Vec<Col>) {
    let mut n = Noise(StdRng::seed_from_u64(7));
    let steps = 14 * 96;
    let mut stamps = Vec::new();
    let mut cols: Vec<Col> = Vec::new();
    let mut col = |name: &'static str, truth: Option<(&'static str, &'static str)>| {
        cols.push((name, truth, Vec::with_capacity(steps)));
        cols.len() - 1
    };
    let oat = col("OAT", Some(("WEATHER", "oat")));
    let ef = col("EF-1 STS", None);
    // AHU-1: spaced names; AHU-2: dotted BACnet paths; one camel-case point
    let a1 = [
        col("AHU-1 SAT", Some(("AHU-1", "supply_air_temp"))),
        col("AHU-1 SAT SP", Some(("AHU-1", "supply_air_temp_sp"))),
        col("AHU-1 MAT", Some(("AHU-1", "mixed_air_temp"))),
        col("ahu1.returnAirTemp", Some(("AHU-1", "return_air_temp"))),
        col("AHU-1 OA Dmpr", Some(("AHU-1", "oa_damper"))),
        col("AHU-1 CHW Vlv", Some(("AHU-1", "cool_valve"))),
        col("AHU-1 HW Vlv", Some(("AHU-1", "heat_valve"))),
        col("AHU-1 SF Sts", Some(("AHU-1", "supply_fan_status"))),
        col("AHU-1 SF VFD", Some(("AHU-1", "supply_fan_speed"))),
        col("AHU-1 DSP", Some(("AHU-1", "duct_static"))),
    ];
    let a2 = [
        col("B2.AHU-2.DA-T", Some(("AHU-2", "supply_air_temp"))),
        col("B2.AHU-2.MA-T", Some(("AHU-2", "mixed_air_temp"))),
        col("B2.AHU-2.RA-T", Some(("AHU-2", "return_air_temp"))),
        col("B2.AHU-2.SF-S", Some(("AHU-2", "supply_fan_status"))),
        col("B2.AHU-2.CLG-VLV", Some(("AHU-2", "cool_valve"))),
    ];
    let boxes = [
        (
            "VAV-1-01",
            0usize,
            [
                col("VAV-1-01 DAT", Some(("VAV-1-01", "supply_air_temp"))),
                col("VAV-1-01 Airflow", Some(("VAV-1-01", "airflow"))),
                col("VAV-1-01 Dmpr Pos", Some(("VAV-1-01", "damper"))),
                col("VAV_1_01_ZNT", Some(("VAV-1-01", "space_temp"))),
                col("VAV-1-01 RmClgSpt", Some(("VAV-1-01", "cool_sp"))),
            ],
        ),
        (
            "VAV-1-02",
            0,
            [
                col("VAV-1-02 DAT", Some(("VAV-1-02", "supply_air_temp"))),
                col("VAV-1-02 Airflow", Some(("VAV-1-02", "airflow"))),
                col("VAV-1-02 Dmpr Pos", Some(("VAV-1-02", "damper"))),
                col("VAV-1-02 ZNT", Some(("VAV-1-02", "space_temp"))),
                col("VAV-1-02 RmHtgSpt", Some(("VAV-1-02", "heat_sp"))),
            ],
        ),
        (
            "VAV-2-01",
            1,
            [
                col("B2.VAV-2-01.DA-T", Some(("VAV-2-01", "supply_air_temp"))),
                col("B2.VAV-2-01.AIRFLOW", Some(("VAV-2-01", "airflow"))),
                col("B2.VAV-2-01.DMPR", Some(("VAV-2-01", "damper"))),
                col("B2.VAV-2-01.ZN-T", Some(("VAV-2-01", "space_temp"))),
                col("B2.VAV-2-01.CLG-SP", Some(("VAV-2-01", "cool_sp"))),
            ],
        ),
        (
            "VAV-2-02",
            1,
            [
                col("B2.VAV-2-02.DA-T", Some(("VAV-2-02", "supply_air_temp"))),
                col("B2.VAV-2-02.AIRFLOW", Some(("VAV-2-02", "airflow"))),
                col("B2.VAV-2-02.DMPR", Some(("VAV-2-02", "damper"))),
                col("B2.VAV-2-02.ZN-T", Some(("VAV-2-02", "space_temp"))),
                col("B2.VAV-2-02.HTG-SP", Some(("VAV-2-02", "heat_sp"))),
            ],
        ),
    ];
    let ch = [
        col("CH-1 CHWST", Some(("CH-1", "chw_supply_temp"))),
        col("CH-1 CHWRT", Some(("CH-1", "chw_return_temp"))),
        col("CH-1 kW", Some(("CH-1", "power"))),
    ];
    let pump = col("CHWP-1 Status", Some(("CHWP-1", "pump_status")));
    for i in 0..steps {
        stamps.push(format!("2026-07-{:02} {:02}:{:02}", 3 + i / 96, (i % 96) / 4, (i % 4) * 15));
        let hour = (i % 96) as f64 / 4.0;
        let day = i / 96;
        let occupied = (7.0..19.0).contains(&hour) && (day % 7) < 5;
        let on = if occupied { 1.0 } else { 0.0 };
        let o = 78.0 + 12.0 * ((hour - 9.0) / 24.0 * std::f64::consts::TAU).sin() + 2.0 * n.next();
        let mut push = |k: usize, v: f64| cols[k].2.push(v);
        push(oat, o);
        push(ef, on);
        for (a, cols_of) in [(0usize, &a1[..]), (1, &a2[..])] {
            let sat = if occupied { 55.0 + 0.6 * n.next() + a as f64 * 0.8 } else { 72.0 + 2.0 * n.next() };
            let rat = 74.0 + 1.0 * n.next();
            let oa = if occupied { 25.0 + 15.0 * (0.5 + n.next()) } else { 0.0 };
            let mat = rat + (o - rat) * oa / 100.0 + 0.3 * n.next();
            let cool = if occupied { (40.0 + (o - 70.0) * 3.0 + 8.0 * n.next()).clamp(0.0, 100.0) } else { 0.0 };
            for (j, k) in cols_of.iter().enumerate() {
                let v = match (a, j) {
                    (_, 0) => sat,
                    (0, 1) => 55.0,
                    (0, 2) | (1, 1) => mat,
                    (0, 3) | (1, 2) => rat,
                    (0, 4) => oa,
                    (0, 5) | (1, 4) => cool,
                    (0, 6) => {
                        if o < 62.0 && occupied {
                            20.0
                        } else {
                            0.0
                        }
                    }
                    (0, 7) | (1, 3) => on,
                    (0, 8) => {
                        if occupied {
                            55.0 + 25.0 * (0.5 + n.next())
                        } else {
                            0.0
                        }
                    }
                    (0, 9) => {
                        if occupied {
                            1.2 + 0.1 * n.next()
                        } else {
                            0.02 * n.next().abs()
                        }
                    }
                    _ => unreachable!(),
                };
                cols[*k].2.push(v);
            }
        }
        for (b, (_, a, ks)) in boxes.iter().enumerate() {
            let sat = cols[if *a == 0 { a1[0] } else { a2[0] }].2[i];
            let reheat = if occupied && hour < 9.0 && b % 2 == 0 { 12.0 } else { 0.0 };
            let vals = [
                sat + 0.4 + reheat + 0.2 * n.next(),
                if occupied { 450.0 + 300.0 * (0.5 + n.next()) } else { 0.0 },
                if occupied { 30.0 + 50.0 * (0.5 + n.next()) } else { 0.0 },
                73.5 + 1.5 * n.next() + if occupied { 0.0 } else { 3.0 },
                if b % 2 == 0 {
                    if occupied {
                        75.0
                    } else {
                        80.0
                    }
                } else if occupied {
                    70.0
                } else {
                    64.0
                },
            ];
            for (k, v) in ks.iter().zip(vals) {
                cols[*k].2.push(v);
            }
        }
        let load = if occupied { 0.6 + 0.3 * n.next() } else { 0.1 };
        cols[ch[0]].2.push(44.0 + 0.3 * n.next());
        cols[ch[1]].2.push(44.0 + 10.0 * load + 0.4 * n.next());
        cols[ch[2]].2.push(40.0 + 110.0 * load);
        cols[pump].2.push(on);
    }
    (stamps, cols)
}

fn write_export(dir: &Path, stamps: &[String], cols: &[Col]) -> std::path::PathBuf {
    let mut s = String::from("Timestamp");
    for (name, _, _) in cols {
        s.push(',');
        s.push_str(name);
    }
    s.push('\n');
    for (i, t) in stamps.iter().enumerate() {
        s.push_str(t);
        for (_, _, v) in cols {
            s.push_str(&format!(",{:.3}", v[i]));
        }
        s.push('\n');
    }
    let p = dir.join("export.csv");
    std::fs::write(&p, s).unwrap();
    p
}

/// `camber map` of an export: the mapping file's path and its JSON.
fn map_export(dir: &Path, export: &Path) -> (std::path::PathBuf, Value) {
    let mapping = dir.join("mapping.json");
    let out = camber().arg("map").arg(export).arg("--out").arg(&mapping).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    (mapping, m)
}

/// The export ingested with the mapping as facility `bldg` into `store`, and `points`' data for it.
fn ingest_and_list(export: &Path, mapping: &Path, store: &Path, timezone: &str) -> Value {
    let out = camber()
        .arg("ingest")
        .arg(export)
        .arg("--store")
        .arg(store)
        .args(["--facility", "bldg", "--timezone", timezone, "--quiet", "--mapping"])
        .arg(mapping)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = camber()
        .args(["call", "points", r#"{"facility_id":"bldg","limit":500}"#, "--store"])
        .arg(store)
        .args(["--allow", "bldg"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["data"].clone()
}

#[test]
fn an_export_in_three_conventions_maps_ingests_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let (stamps, cols) = building();
    let export = write_export(dir.path(), &stamps, &cols);
    let mapping = dir.path().join("mapping.json");
    let out = camber().arg("map").arg(&export).arg("--out").arg(&mapping).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(stdout.contains("to review"), "{stdout}");
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    assert_eq!(m["timestamp"], "Timestamp");
    let columns = m["columns"].as_object().unwrap();
    // every point a person would map is mapped, to the equipment and role they would choose
    let mut wrong = Vec::new();
    for (name, truth, _) in &cols {
        let got = columns.get(*name).map(|c| (c["equip"].as_str().unwrap(), c["role"].as_str().unwrap()));
        match (truth, got) {
            (Some((e, r)), Some(g)) if (*e, *r) == g => {}
            (None, None) => {}
            _ => wrong.push(format!("{name}: want {truth:?}, got {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}\n{}", serde_json::to_string_pretty(&m).unwrap());
    // the exhaust fan has no role, and says why
    assert!(m["unmapped"]["EF-1 STS"].as_str().unwrap().contains("exhaust"), "{}", m["unmapped"]);
    // classes from the names; the weather station for the site's outdoor air
    for (col, class) in [
        ("AHU-1 SAT", "AHU"),
        ("VAV_1_01_ZNT", "VAV"),
        ("CH-1 kW", "CHILLER"),
        ("CHWP-1 Status", "PUMP"),
        ("OAT", "WEATHER"),
    ] {
        assert_eq!(columns[col]["equip_class"], class, "{col}");
    }
    // each accepted column says how sure and why
    for (name, c) in columns {
        let conf = c["confidence"].as_f64().unwrap();
        assert!((0.6..=1.0).contains(&conf), "{name}: {conf}");
        assert!(!c["evidence"].as_array().unwrap().is_empty(), "{name}");
    }
    assert_eq!(columns["AHU-1 DSP"]["verdict"], "high", "{}", columns["AHU-1 DSP"]);
    // the topology from the numbering, each edge with its reason
    let parents = &m["topology"]["parents"];
    for (b, a) in [("VAV-1-01", "AHU-1"), ("VAV-1-02", "AHU-1"), ("VAV-2-01", "AHU-2"), ("VAV-2-02", "AHU-2")] {
        assert_eq!(parents[b], a, "{}", m["topology_evidence"]);
        assert!(m["topology_evidence"][b]["how"].as_str().unwrap().contains("number"), "{}", m["topology_evidence"][b]);
    }

    // ingested as proposed, the points read back as mapped
    let data = ingest_and_list(&export, &mapping, &dir.path().join("store"), "America/Denver");
    let stored: BTreeMap<(String, String), String> = data["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                (p["equip"].as_str().unwrap().into(), p["role"].as_str().unwrap().into()),
                p["equip_class"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = cols.iter().filter(|c| c.1.is_some()).count();
    assert_eq!(stored.len(), want, "{stored:?}");
    assert_eq!(stored[&("VAV-2-01".to_string(), "space_temp".to_string())], "VAV");

    // the CSV form carries the same accepted columns
    let csv_out = dir.path().join("mapping.csv");
    let out = camber().arg("map").arg(&export).arg("--out").arg(&csv_out).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&csv_out).unwrap();
    assert!(text.starts_with("column,equip,equip_class,role,unit,confidence,verdict,evidence"));
    assert_eq!(text.lines().count(), columns.len() + 1);
}

#[test]
fn map_refuses_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = camber()
        .arg("map")
        .arg(dir.path().join("missing.csv"))
        .arg("--out")
        .arg(dir.path().join("m.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("cannot be read") && !err.contains(dir.path().to_str().unwrap()), "{err}");
    let bad = dir.path().join("bad.ttl");
    std::fs::write(&bad, "@prefix brick: <https://brickschema.org/schema/Brick#> .\n<a> a brick:AHU ;;; .\n\"")
        .unwrap();
    std::fs::write(dir.path().join("x.csv"), "ts,a\n2026-01-01 00:00,1\n").unwrap();
    let out = camber()
        .arg("map")
        .arg(dir.path().join("x.csv"))
        .arg("--out")
        .arg(dir.path().join("m.json"))
        .arg("--brick")
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(err.contains("Turtle") && err.trim().lines().count() == 1, "{err}");
    assert!(!dir.path().join("m.json").exists());
}

#[test]
fn a_brick_model_and_a_haystack_grid_name_what_the_export_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/map/tests/fixtures");
    // the export's columns are the model's time-series ids, which say nothing by themselves
    let mut csv = String::from("Time,AHU1_SAT,VAV1_01_DAT,CH1_CHWST\n");
    for i in 0..96 {
        let w = (i * 7 % 11) as f64 / 11.0;
        csv.push_str(&format!(
            "2026-07-01 {:02}:{:02},{:.2},{:.2},{:.2}\n",
            i / 4,
            i % 4 * 15,
            55.0 + w,
            56.0 + w,
            44.0 + w
        ));
    }
    let export = dir.path().join("export.csv");
    std::fs::write(&export, csv).unwrap();
    let mapping = dir.path().join("mapping.json");
    let out = camber()
        .arg("map")
        .arg(&export)
        .arg("--out")
        .arg(&mapping)
        .arg("--brick")
        .arg(fixtures.join("building.ttl"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    let c = &m["columns"];
    assert_eq!(
        (c["AHU1_SAT"]["equip"].as_str(), c["AHU1_SAT"]["role"].as_str()),
        (Some("AHU-1"), Some("supply_air_temp"))
    );
    assert_eq!(c["VAV1_01_DAT"]["equip_class"], "VAV");
    assert_eq!(c["CH1_CHWST"]["role"], "chw_supply_temp");
    assert!(c["AHU1_SAT"]["evidence"][0].as_str().unwrap().starts_with("brick:"), "{}", c["AHU1_SAT"]);
    assert_eq!(m["topology"]["parents"]["VAV-1-01"], "AHU-1");
    assert_eq!(m["topology_evidence"]["VAV-1-01"]["source"], "model");

    // a Haystack grid names points by their dis
    let zinc = std::fs::read_to_string(fixtures.join("points.zinc")).unwrap();
    let model = camber_map::haystack::read_haystack(&zinc).unwrap();
    let sat = model
        .points
        .iter()
        .find(|p| p.role.as_deref() == Some("supply_air_temp") && p.equip.as_deref() == Some("AHU-1"))
        .unwrap();
    let key = sat.keys[0].clone();
    let mut csv = format!("Time,\"{}\"\n", key.replace('"', "\"\""));
    for i in 0..96 {
        csv.push_str(&format!("2026-07-01 {:02}:{:02},{:.2}\n", i / 4, i % 4 * 15, 55.0 + (i % 5) as f64 * 0.2));
    }
    std::fs::write(&export, csv).unwrap();
    let out = camber()
        .arg("map")
        .arg(&export)
        .arg("--out")
        .arg(&mapping)
        .arg("--haystack")
        .arg(fixtures.join("points.zinc"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    assert_eq!(m["columns"][&key]["role"], "supply_air_temp", "{m}");
    assert!(m["columns"][&key]["evidence"][0].as_str().unwrap().starts_with("haystack"), "{m}");
}

/// EnergyPlus's own output names, as a simulated building's trends come out of the engine: the
/// large office (three air loops named like boxes, fifteen boxes, chillers, towers, a boiler) is
/// simulated for three July days, and `camber map` reads the raw `eplusout.csv`. The lab's
/// hand-written mapping (`truth.json`: each trend column's EnergyPlus source) is the answer key.
#[test]
fn energyplus_output_names_map_to_the_labs_roles_and_loops() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let sim = dir.path().join("sim");
    let run = Command::new(camber_tests::python())
        .arg(root.join("validation/simulate.py"))
        .args(["--prototype", "office_large", "--start", "07-01", "--end", "07-03", "--out"])
        .arg(&sim)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mapping = dir.path().join("mapping.json");
    let out = camber().arg("map").arg(sim.join("eplus/eplusout.csv")).arg("--out").arg(&mapping).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(sim.join("truth.json")).unwrap()).unwrap();
    let header = std::fs::read_to_string(sim.join("eplus/eplusout.csv")).unwrap();
    let header: Vec<&str> = header.lines().next().unwrap().split(',').collect();
    // each raw column that one lab column reads directly, with the (equipment, role) the lab gave it
    let mut want: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (col, src) in truth["sources"].as_object().unwrap() {
        let inputs = src["inputs"].as_array().unwrap();
        if inputs.len() != 1 {
            continue;
        }
        let key = inputs[0][0].as_str().unwrap().to_uppercase();
        let key = if key == "ENVIRONMENT" { "Environment".to_string() } else { key };
        let prefix = format!("{key}:{} [", inputs[0][1].as_str().unwrap());
        let (equip, role) = col.split_once(' ').unwrap();
        if let Some(raw) = header.iter().find(|h| h.starts_with(&prefix)) {
            want.entry(raw.to_string()).or_default().push((equip.to_string(), role.to_string()));
        }
    }
    assert!(want.len() > 150, "{}", want.len());
    let (mut right, mut wrong) = (0, Vec::new());
    let mut lab_to_ours: BTreeMap<String, String> = BTreeMap::new();
    for (raw, labs) in &want {
        let Some(c) = m["columns"].get(raw.as_str()) else { continue };
        let role = c["role"].as_str().unwrap();
        if labs.iter().any(|(_, r)| r == role) {
            right += 1;
            for (e, _) in labs {
                if c["equip"] != "WEATHER" {
                    lab_to_ours.insert(e.clone(), c["equip"].as_str().unwrap().to_string());
                }
            }
        } else {
            wrong.push(format!("{raw}: {role} ({}), the lab: {labs:?}", c["confidence"]));
        }
    }
    // no mapped column contradicts the lab; what is left unmapped is what the lab derived
    // (mass flows over design flows, part-load ratios) and says why
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(right * 100 >= want.len() * 75, "{right} of {}", want.len());
    let unmapped = m["unmapped"].as_object().unwrap();
    assert!(unmapped.iter().any(|(k, v)| k.contains("Mass Flow Rate") && v.as_str().unwrap().contains("mass flow")));
    // the three air loops are air handlers though their names say VAV; each box under its own loop
    for ahu in ["AHU-1", "AHU-2", "AHU-3"] {
        let ours = &lab_to_ours[ahu];
        let class = m["columns"].as_object().unwrap().values().find(|c| c["equip"] == ours.as_str()).unwrap()
            ["equip_class"]
            .clone();
        assert_eq!(class, "AHU", "{ahu} -> {ours}");
    }
    let lab_topology: Value =
        serde_json::from_str(&std::fs::read_to_string(sim.join("topology.json")).unwrap()).unwrap();
    let mut boxes = 0;
    for (child, parent) in lab_topology["parents"].as_object().unwrap() {
        if !child.starts_with("VAV-") {
            continue;
        }
        boxes += 1;
        let ours = &lab_to_ours[child];
        assert_eq!(m["topology"]["parents"][ours.as_str()], lab_to_ours[parent.as_str().unwrap()].as_str(), "{child}");
    }
    assert_eq!(boxes, 15);
}

/// The reference's role suggester (`camber.mapping_assist.suggest_roles`, name only, top one) on
/// the same names: `camber map` gets at least as many right, and none wrong at high confidence.
#[test]
fn camber_map_reads_the_names_at_least_as_well_as_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (stamps, cols) = building();
    let export = write_export(dir.path(), &stamps, &cols);
    let names: Vec<&str> = cols.iter().filter(|c| c.1.is_some()).map(|c| c.0).collect();
    let script = "import json, sys\nfrom camber.mapping_assist import suggest_roles\n\
                  out = {}\nfor n in json.load(sys.stdin):\n    s = suggest_roles(n, k=1)\n    \
                  out[n] = [s[0].role, s[0].confidence] if s else None\nprint(json.dumps(out))\n";
    let mut child = Command::new(camber_tests::python())
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(serde_json::to_string(&names).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mapping = dir.path().join("mapping.json");
    let run = camber().arg("map").arg(&export).arg("--out").arg(&mapping).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let m: Value = serde_json::from_str(&std::fs::read_to_string(&mapping).unwrap()).unwrap();
    let (mut ours, mut theirs, mut ours_wrong_high) = (0, 0, 0);
    for (name, truth, _) in &cols {
        let Some((_, role)) = truth else { continue };
        if let Some(c) = m["columns"].get(*name) {
            if c["role"] == *role {
                ours += 1;
            } else if c["confidence"].as_f64().unwrap() >= 0.8 {
                ours_wrong_high += 1;
            }
        }
        if reference[*name][0] == *role {
            theirs += 1;
        }
    }
    assert!(ours >= theirs, "camber {ours}, the reference {theirs}: {reference}");
    assert_eq!(ours_wrong_high, 0);
    assert_eq!(ours, names.len());
}

#[test]
fn units_written_in_the_names_are_converted_at_ingest() {
    // a box's minimum airflow in L/s, a chilled-water loop's differential pressure and its
    // setpoint in kPa, a boiler's gas input in Btu/h: roles whose unit once could not be
    // declared, so the proposed mapping was refused by the ingest
    let mut n = Noise(StdRng::seed_from_u64(11));
    let steps = 7 * 96;
    let stamps: Vec<String> =
        (0..steps).map(|i| format!("2026-07-{:02} {:02}:{:02}", 3 + i / 96, (i % 96) / 4, (i % 4) * 15)).collect();
    let occupied: fn(usize) -> bool = |i| (28..76).contains(&(i % 96));
    let firing: fn(usize) -> bool = |i| i % 96 < 32;
    // name, equipment, role, when on, the level on, its spread, the level off
    let table = [
        ("VAV-1-01 Airflow (L/s)", "VAV-1-01", "airflow", occupied, 190.0, 40.0, 0.0),
        ("VAV-1-01 Min Flow SP (L/s)", "VAV-1-01", "airflow_min_sp", occupied, 100.0, 0.0, 50.0),
        ("CHWP-1 CHW Diff Press (kPa)", "CHWP-1", "chw_diff_press", occupied, 75.0, 5.0, 40.0),
        ("CHWP-1 CHW Diff Press SP (kPa)", "CHWP-1", "chw_diff_press_sp", occupied, 75.0, 0.0, 40.0),
        ("BLR-1 Gas Input (Btu/h)", "BLR-1", "gas_input_rate", firing, 6.0e5, 2.0e5, 0.0),
    ];
    let cols: Vec<Col> = table
        .iter()
        .map(|&(name, equip, role, on, level, spread, off)| {
            let values = (0..steps).map(|i| if on(i) { level + spread * n.next() } else { off }).collect();
            (name, Some((equip, role)), values)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let export = write_export(dir.path(), &stamps, &cols);
    let (mapping, m) = map_export(dir.path(), &export);
    for (name, truth, _) in &cols {
        let (equip, role) = truth.unwrap();
        let c = &m["columns"][*name];
        assert_eq!((c["equip"].as_str(), c["role"].as_str()), (Some(equip), Some(role)), "{name}: {c}");
        assert!(c["unit"].is_string(), "{name} declares the unit its name gives: {c}");
    }
    // the ingest converts every declared unit
    let points = ingest_and_list(&export, &mapping, &dir.path().join("store"), "UTC");
    assert_eq!(points["count"], cols.len(), "{points}");
}
