//! The proposer on exports no integrator cleaned up: EnergyPlus's own headers (an air loop named
//! like a box, Celsius in brackets, mass flows), a Celsius export with no units, and a model's
//! statement winning over a name that says nothing.

use camber_map::model::{Model, ModelEquip, ModelPoint};
use camber_map::profile::read_export_from;
use camber_map::propose::{propose, Options, Proposal};

fn csv(header: &[&str], rows: usize, value: impl Fn(usize, usize) -> f64) -> String {
    let mut s = format!("Date/Time,{}\n", header.iter().map(|h| format!("\"{h}\"")).collect::<Vec<_>>().join(","));
    for r in 0..rows {
        s.push_str(&format!("2026-07-01 {:02}:{:02}", (r / 4) % 24, (r % 4) * 15));
        for c in 0..header.len() {
            s.push_str(&format!(",{:.3}", value(r, c)));
        }
        s.push('\n');
    }
    s
}

fn accepted<'a>(p: &'a Proposal, col: &str) -> &'a camber_map::propose::ColumnProposal {
    p.accepted.iter().find(|c| c.column == col).unwrap_or_else(|| panic!("{col} not accepted: {p:#?}"))
}

/// A wiggle that is never constant.
fn wave(r: usize, c: usize) -> f64 {
    ((r * 7 + c * 13) % 23) as f64 / 23.0
}

#[test]
fn energyplus_headers_map_with_their_units_and_the_air_loop_is_an_air_handler() {
    let header = [
        "Environment:Site Outdoor Air Drybulb Temperature [C](TimeStep)",
        "VAV_MID WITH REHEAT Supply Equipment Outlet Node:System Node Temperature [C](TimeStep)",
        "VAV_MID WITH REHEAT Supply Equipment Outlet Node:System Node Setpoint Temperature [C](TimeStep)",
        "VAV_MID WITH REHEAT Mixed Air Node:System Node Temperature [C](TimeStep)",
        "VAV_MID WITH REHEAT Supply Equipment Outlet Node:System Node Mass Flow Rate [kg/s](TimeStep)",
        "PERIMETER_MID_ZN_3 VAV BOX COMPONENT:Zone Air Terminal VAV Damper Position [](TimeStep)",
        "PERIMETER_MID_ZN_3:Zone Mean Air Temperature [C](TimeStep)",
        "PERIMETER_MID_ZN_3:Zone Thermostat Cooling Setpoint Temperature [C](TimeStep)",
    ];
    let text = csv(&header, 96, |r, c| match c {
        0 => 20.0 + 8.0 * wave(r, c),
        1 => 12.8 + wave(r, c),
        2 => 12.8 + 0.5 * wave(r, c),
        3 => 18.0 + 4.0 * wave(r, c),
        4 => 10.0 + 5.0 * wave(r, c),
        5 => 30.0 + 50.0 * wave(r, c),
        6 => 23.0 + wave(r, c),
        _ => 24.0 + wave(r, c),
    });
    let export = read_export_from(text.as_bytes(), 1000).unwrap();
    let p = propose(&export, &[], &Options::default());
    let oat = accepted(&p, header[0]);
    assert_eq!((oat.equip.as_str(), oat.role.as_str(), oat.unit.as_str()), ("WEATHER", "oat", "degC"));
    let sat = accepted(&p, header[1]);
    assert_eq!(
        (sat.equip.as_str(), sat.equip_class.as_str(), sat.role.as_str()),
        ("VAV_MID", "AHU", "supply_air_temp")
    );
    assert!(sat.evidence.iter().any(|e| e.contains("air handler") && e.contains("box")), "{:?}", sat.evidence);
    assert_eq!(accepted(&p, header[2]).role, "supply_air_temp_sp");
    assert_eq!(accepted(&p, header[3]).role, "mixed_air_temp");
    assert!(p.unmapped.iter().any(|u| u.column == header[4] && u.reason.contains("mass flow")), "{:?}", p.unmapped);
    let damper = accepted(&p, header[5]);
    assert_eq!(
        (damper.equip.as_str(), damper.equip_class.as_str(), damper.role.as_str()),
        ("PERIMETER_MID_ZN_3", "VAV", "damper")
    );
    assert_eq!(accepted(&p, header[6]).role, "space_temp");
    assert_eq!(accepted(&p, header[7]).role, "cool_sp");
    assert_eq!(accepted(&p, header[7]).unit, "degC");
    let edge = p.topology.iter().find(|e| e.child == "PERIMETER_MID_ZN_3").expect("an edge for the box");
    assert_eq!(edge.parent, "VAV_MID");
}

#[test]
fn celsius_without_units_is_read_off_the_indoor_temperatures() {
    let header = ["AHU1_SAT", "AHU1_RAT", "VAV-1-1 ZNT", "OAT"];
    let text = csv(&header, 96, |r, c| match c {
        0 => 13.0 + wave(r, c),
        1 => 23.0 + wave(r, c),
        2 => 22.5 + wave(r, c),
        _ => 15.0 + 10.0 * wave(r, c),
    });
    let export = read_export_from(text.as_bytes(), 1000).unwrap();
    let p = propose(&export, &[], &Options::default());
    for h in header {
        assert_eq!(accepted(&p, h).unit, "degC", "{h}");
    }
    assert!(p.notes.iter().any(|n| n.contains("Celsius")));
    // the same numbers in Fahrenheit would be wrong for a supply-air temperature: a °F export stays °F
    let text = csv(&header, 96, |r, c| match c {
        0 => 55.0 + wave(r, c),
        1 => 74.0 + wave(r, c),
        2 => 72.5 + wave(r, c),
        _ => 60.0 + 20.0 * wave(r, c),
    });
    let p = propose(&read_export_from(text.as_bytes(), 1000).unwrap(), &[], &Options::default());
    assert_eq!(accepted(&p, "AHU1_SAT").unit, "");
}

#[test]
fn data_that_contradicts_the_name_sends_it_to_review() {
    // a "status" that reads 0-100 and a temperature that only reads 0 and 1
    let header = ["AHU-1 SF Sts", "AHU-1 SAT", "AHU-1 OA Dmpr", "AHU-1 MAT"];
    let text = csv(&header, 96, |r, c| match c {
        0 => 100.0 * wave(r, c),
        1 => (r % 2) as f64,
        2 => 0.2 + 0.5 * wave(r, c),
        _ => 60.0 + 5.0 * wave(r, c),
    });
    let p = propose(&read_export_from(text.as_bytes(), 1000).unwrap(), &[], &Options::default());
    for h in ["AHU-1 SF Sts", "AHU-1 SAT"] {
        let r = p.review.iter().find(|c| c.column == h).unwrap_or_else(|| panic!("{h} not in review: {p:#?}"));
        assert!(r.confidence < 0.6, "{r:?}");
    }
    // a damper that reads 0-1 is a fraction
    assert_eq!(accepted(&p, "AHU-1 OA Dmpr").unit, "fraction");
    assert_eq!(accepted(&p, "AHU-1 MAT").role, "mixed_air_temp");
}

#[test]
fn a_model_statement_maps_a_name_that_says_nothing() {
    let header = ["ts_0001", "ts_0002", "ts_0003"];
    let text = csv(&header, 96, |r, c| 55.0 + wave(r, c) + c as f64 * 10.0);
    let point = |key: &str, role: Option<&str>, equip: &str| ModelPoint {
        keys: vec![key.to_string()],
        role: role.map(str::to_string),
        confidence: 0.95,
        evidence: "brick:Supply_Air_Temperature_Sensor".into(),
        why_not: role.is_none().then(|| "brick:Enable_Command is not a camber role".to_string()),
        equip: Some(equip.to_string()),
        unit: Some("DEG_F".into()),
    };
    let model = Model {
        source: "brick",
        points: vec![
            point("ts_0001", Some("supply_air_temp"), "AHU-9"),
            point("TS-0002", Some("space_temp"), "Room 101 box"),
            point("ts_0003", None, "AHU-9"),
        ],
        equips: vec![
            ModelEquip { id: "AHU-9".into(), class: Some("AHU".into()), evidence: "brick:Air_Handling_Unit".into() },
            ModelEquip { id: "Room 101 box".into(), class: Some("VAV".into()), evidence: "brick:VAV".into() },
        ],
        feeds: vec![camber_map::model::Feed {
            parent: "AHU-9".into(),
            child: "Room 101 box".into(),
            evidence: "brick:feeds".into(),
        }],
    };
    let p = propose(&read_export_from(text.as_bytes(), 1000).unwrap(), &[model], &Options::default());
    let a = accepted(&p, "ts_0001");
    assert_eq!(
        (a.equip.as_str(), a.equip_class.as_str(), a.role.as_str(), a.unit.as_str()),
        ("AHU-9", "AHU", "supply_air_temp", "")
    );
    assert!(a.confidence >= 0.9 && a.evidence[0].starts_with("brick:"), "{a:?}");
    // linked ignoring case and separators
    assert_eq!(accepted(&p, "ts_0002").equip, "Room 101 box");
    assert!(p.unmapped.iter().any(|u| u.column == "ts_0003" && u.reason.contains("Enable_Command")));
    assert_eq!(p.topology.len(), 1);
    assert_eq!((p.topology[0].source, p.topology[0].parent.as_str()), ("model", "AHU-9"));
}
