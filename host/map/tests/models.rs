//! A building described by a Brick model or a Haystack grid, with an export whose columns carry
//! the model's own point names: every point the model gives a role is mapped to that role and
//! its equipment, the model's feeds become the topology, and what it gives no role is listed.

use camber_common::roles::{role, Kind};
use camber_map::model::Model;
use camber_map::profile::read_export_from;
use camber_map::propose::{propose, Options};

/// An export with one column per model point (its first key), holding readings a point of its
/// role would hold.
fn export_for(model: &Model) -> String {
    let cols: Vec<(&str, Option<&str>)> =
        model.points.iter().map(|p| (p.keys[0].as_str(), p.role.as_deref())).collect();
    let mut s = String::from("timestamp");
    for (k, _) in &cols {
        s.push_str(&format!(",\"{}\"", k.replace('"', "\"\"")));
    }
    s.push('\n');
    for r in 0..96 {
        s.push_str(&format!("2026-07-01 {:02}:{:02}", r / 4, (r % 4) * 15));
        let wiggle = ((r * 7) % 11) as f64 / 11.0;
        for (_, rl) in &cols {
            let v = match rl.and_then(role) {
                Some(x) if x.kind == Kind::Status => (r / 8 % 2) as f64,
                Some(x) if x.kind == Kind::Percent => 20.0 + 60.0 * wiggle,
                Some(x) if x.unit == "degF" => {
                    let (lo, hi) = (x.min.unwrap_or(40.0).max(45.0), x.max.unwrap_or(90.0).min(90.0));
                    lo + (hi - lo) * (0.4 + 0.2 * wiggle)
                }
                Some(x) => x.min.unwrap_or(0.0).max(0.0) + 1.0 + 10.0 * wiggle,
                None => wiggle,
            };
            s.push_str(&format!(",{v:.3}"));
        }
        s.push('\n');
    }
    s
}

fn check(model: Model) {
    let text = export_for(&model);
    let export = read_export_from(text.as_bytes(), 1000).unwrap();
    let p = propose(&export, std::slice::from_ref(&model), &Options::default());
    for mp in &model.points {
        let col = &mp.keys[0];
        match &mp.role {
            Some(r) => {
                let got = p
                    .accepted
                    .iter()
                    .chain(&p.review)
                    .find(|c| &c.column == col)
                    .unwrap_or_else(|| panic!("{col} not proposed"));
                assert_eq!(&got.role, r, "{col}: {got:?}");
                if let Some(e) = &mp.equip {
                    assert_eq!(&got.equip, e, "{col}");
                }
                assert!(got.evidence[0].starts_with(model.source), "{col}: {:?}", got.evidence);
            }
            None => assert!(p.unmapped.iter().any(|u| &u.column == col), "{col} should be unmapped"),
        }
    }
    // most of the model's points are accepted outright (the rest share a role on one equipment)
    let with_role = model.points.iter().filter(|p| p.role.is_some()).count();
    assert!(p.accepted.len() * 10 >= with_role * 8, "{} of {with_role} accepted: {:#?}", p.accepted.len(), p.review);
    for f in &model.feeds {
        if p.accepted.iter().any(|c| c.equip == f.child) {
            assert!(
                p.topology.iter().any(|e| e.parent == f.parent && e.child == f.child && e.source == "model"),
                "{f:?}"
            );
        }
    }
}

#[test]
fn a_brick_model_maps_its_points() {
    let m = camber_map::brick::read_brick(include_str!("fixtures/building.ttl")).unwrap();
    assert!(m.points.len() >= 20);
    check(m);
}

#[test]
fn a_haystack_grid_maps_its_points() {
    for text in [
        include_str!("fixtures/points.zinc"),
        include_str!("fixtures/points.json"),
        include_str!("fixtures/points.hayson.json"),
    ] {
        let m = camber_map::haystack::read_haystack(text).unwrap();
        assert!(m.points.len() >= 20);
        check(m);
    }
}
