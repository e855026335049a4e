//! Which air handler serves each box (and which plant each chiller or boiler sits in): from a
//! model's `feeds`/`ahuRef`, else from the names (`AHU1_VAV3`, `VAV-2-04` under `AHU-2`, an
//! EnergyPlus zone sharing its air loop's word), else from the data (a box's discharge air
//! following one air handler's supply air). Each edge says how it was found.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::Model;
use crate::profile::Export;
use crate::propose::ColumnProposal;

/// One served-by edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub parent: String,
    pub child: String,
    /// `model`, `name` or `data`.
    pub source: &'static str,
    /// How it was found, for the person to check.
    pub how: String,
}

/// The family a class belongs to, as the rules read it (one table: `camber_analytics::family`).
fn family(class: &str) -> &'static str {
    match camber_analytics::family::family_of(class) {
        Some("air_handler") => "air_handler",
        Some("terminal" | "fan_coil") => "terminal",
        _ => "other",
    }
}

/// The edges for the mapped equipment (`classes`: equipment id to class).
pub fn infer(
    models: &[Model],
    classes: &BTreeMap<String, String>,
    named: &[(String, String, String)],
    accepted: &[ColumnProposal],
    export: &Export,
) -> Vec<Edge> {
    let mut edges: Vec<Edge> = Vec::new();
    let mut has_parent: BTreeSet<String> = BTreeSet::new();
    let mut push = |edges: &mut Vec<Edge>, e: Edge| {
        if e.parent != e.child && classes.contains_key(&e.child) && !has_parent.contains(&e.child) {
            has_parent.insert(e.child.clone());
            edges.push(e);
        }
    };
    for m in models {
        for f in &m.feeds {
            push(
                &mut edges,
                Edge { parent: f.parent.clone(), child: f.child.clone(), source: "model", how: f.evidence.clone() },
            );
        }
    }
    for (parent, child, how) in named {
        push(&mut edges, Edge { parent: parent.clone(), child: child.clone(), source: "name", how: how.clone() });
    }
    let ahus: Vec<&String> = classes.iter().filter(|(_, c)| family(c) == "air_handler").map(|(e, _)| e).collect();
    let terminals: Vec<&String> = classes.iter().filter(|(_, c)| family(c) == "terminal").map(|(e, _)| e).collect();
    // numbering: VAV-2-04 under AHU-2, when every air handler carries one number of its own
    let numbers: Vec<Option<u64>> = ahus.iter().map(|a| single_number(a)).collect();
    let distinct: BTreeSet<u64> = numbers.iter().flatten().copied().collect();
    if !ahus.is_empty() && numbers.iter().all(Option::is_some) && distinct.len() == ahus.len() {
        for t in &terminals {
            let groups = digit_groups(t);
            if groups.len() < 2 {
                continue;
            }
            let hits: Vec<usize> =
                numbers.iter().enumerate().filter(|(_, n)| **n == Some(groups[0])).map(|(i, _)| i).collect();
            if let [i] = hits[..] {
                let how = format!("{t}'s first number {} is {}'s", groups[0], ahus[i]);
                push(&mut edges, Edge { parent: ahus[i].clone(), child: (*t).clone(), source: "name", how });
            }
        }
    }
    // a word the box shares with exactly one air handler (EnergyPlus: Perimeter_mid_ZN_1 and VAV_mid)
    // each air handler's own words: those no other air handler has
    let all: Vec<BTreeSet<String>> = ahus.iter().map(|a| distinctive_words(a)).collect();
    let words: Vec<BTreeSet<String>> = all
        .iter()
        .enumerate()
        .map(|(i, ws)| {
            ws.iter().filter(|w| !all.iter().enumerate().any(|(j, o)| j != i && o.contains(*w))).cloned().collect()
        })
        .collect();
    // `bot` names `Core_bottom`; a word with a number only names itself
    let names = |w: &str, x: &str| x == w || (w.chars().all(|c| c.is_ascii_alphabetic()) && x.starts_with(w));
    for t in &terminals {
        let tw = distinctive_words(t);
        let hits: Vec<(usize, String)> = words
            .iter()
            .enumerate()
            .filter_map(|(i, ws)| ws.iter().find(|w| tw.iter().any(|x| names(w, x))).map(|w| (i, w.clone())))
            .collect();
        if let [(i, w)] = &hits[..] {
            let how = format!("{t} and {} share the word '{w}', and no other air handler does", ahus[*i]);
            push(&mut edges, Edge { parent: ahus[*i].clone(), child: (*t).clone(), source: "name", how });
        }
    }
    // the data: a box's discharge air tracks the supply air of the air handler serving it
    let sat = |e: &str| accepted.iter().find(|p| p.equip == e && p.role == "supply_air_temp");
    let column = |p: &ColumnProposal| export.columns.iter().find(|c| c.name == p.column);
    let scale = |p: &ColumnProposal| if p.unit == "degC" { 1.8 } else { 1.0 };
    for t in &terminals {
        let Some(tp) = sat(t) else { continue };
        let Some(tc) = column(tp) else { continue };
        let mut diffs: Vec<(f64, &String)> = Vec::new();
        for a in &ahus {
            let Some(ap) = sat(a) else { continue };
            let Some(ac) = column(ap) else { continue };
            // a few thousand rows spread over the export tell the median as well as all of them
            let stride = (tc.values.len() / 4000).max(1);
            let d: Vec<f64> = tc
                .values
                .iter()
                .zip(&ac.values)
                .step_by(stride)
                .filter(|(x, y)| !x.is_nan() && !y.is_nan())
                .map(|(x, y)| (x * scale(tp) - y * scale(ap)).abs())
                .collect();
            if d.len() >= 24 {
                diffs.push((median(d), a));
            }
        }
        diffs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let clear = match diffs.as_slice() {
            [(best, _)] => *best < 2.0,
            [(best, _), (second, _), ..] => *best < 2.0 && *second >= best + 1.0,
            [] => false,
        };
        if clear {
            let (best, a) = diffs[0];
            let how = format!("{t}'s discharge air is within {best:.1} °F (median) of {a}'s supply air");
            push(&mut edges, Edge { parent: (*a).clone(), child: (*t).clone(), source: "data", how });
        }
    }
    if let [only] = &ahus[..] {
        for t in &terminals {
            let how = format!("{only} is the only air handler in the export");
            push(&mut edges, Edge { parent: (*only).clone(), child: (*t).clone(), source: "name", how });
        }
    }
    edges.sort_by(|a, b| a.child.cmp(&b.child));
    edges
}

fn digit_groups(id: &str) -> Vec<u64> {
    id.split(|c: char| !c.is_ascii_digit()).filter(|g| !g.is_empty()).filter_map(|g| g.parse().ok()).collect()
}

fn single_number(id: &str) -> Option<u64> {
    match digit_groups(id)[..] {
        [n] => Some(n),
        _ => None,
    }
}

/// An id's words that can tell one air loop from another: letters, at least three, not an
/// equipment or zone word; a word followed by a number also counts with it (`POD_1` is `pod1`,
/// so `CORNER_CLASS_1_POD_1_ZN_1` and `VAV_POD_1` share it where all the loops share `pod`).
fn distinctive_words(id: &str) -> BTreeSet<String> {
    const COMMON: &[&str] =
        &["ahu", "vav", "rtu", "doas", "cav", "fcu", "zone", "box", "with", "reheat", "unit", "air"];
    let parts: Vec<String> =
        id.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_ascii_lowercase).collect();
    let mut out = BTreeSet::new();
    for (i, w) in parts.iter().enumerate() {
        if w.len() < 3 || COMMON.contains(&w.as_str()) || !w.chars().all(|c| c.is_ascii_alphabetic()) {
            continue;
        }
        out.insert(w.clone());
        if let Some(n) = parts.get(i + 1).filter(|n| n.chars().all(|c| c.is_ascii_digit())) {
            out.insert(format!("{w}{}", n.trim_start_matches('0')));
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    let mid = v.len() / 2;
    *v.select_nth_unstable_by(mid, f64::total_cmp).1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(list: &[(&str, &str)]) -> BTreeMap<String, String> {
        list.iter().map(|(e, c)| (e.to_string(), c.to_string())).collect()
    }

    #[test]
    fn a_box_follows_the_air_handler_whose_supply_air_it_receives() {
        let n = 96;
        let sat = |base: f64| (0..n).map(|i| base + ((i * 7) % 5) as f64 * 0.3).collect::<Vec<f64>>();
        let col =
            |name: &str, values: Vec<f64>| crate::profile::Column { name: name.into(), values, ..Default::default() };
        let export = Export {
            columns: vec![
                col("North SAT", sat(55.0)),
                col("South SAT", sat(60.0)),
                col("Box A DAT", sat(55.3)),
                col("Box B DAT", sat(60.4)),
                col("Box C DAT", sat(57.5)),
            ],
            rows: n,
            ..Export::default()
        };
        let prop = |col: &str, equip: &str| ColumnProposal {
            column: col.into(),
            equip: equip.into(),
            equip_class: String::new(),
            role: "supply_air_temp".into(),
            unit: String::new(),
            confidence: 0.9,
            evidence: vec![],
            alternatives: vec![],
            review: None,
        };
        let accepted = [
            prop("North SAT", "North"),
            prop("South SAT", "South"),
            prop("Box A DAT", "Box A"),
            prop("Box B DAT", "Box B"),
            prop("Box C DAT", "Box C"),
        ];
        let c = classes(&[("North", "AHU"), ("South", "AHU"), ("Box A", "VAV"), ("Box B", "VAV"), ("Box C", "VAV")]);
        let e = infer(&[], &c, &[], &accepted, &export);
        let got: Vec<(&str, &str, &str)> = e.iter().map(|e| (e.child.as_str(), e.parent.as_str(), e.source)).collect();
        // box C sits halfway between the two: no link is better than a guess
        assert_eq!(got, [("Box A", "North", "data"), ("Box B", "South", "data")]);
        assert!(e[0].how.contains("within 0.3"), "{}", e[0].how);
    }

    #[test]
    fn numbering_and_shared_words() {
        // each box's air handler, inferred from the names alone
        let pairs = |c: &BTreeMap<String, String>| -> Vec<String> {
            infer(&[], c, &[], &[], &Export::default())
                .into_iter()
                .map(|e| format!("{} > {}", e.child, e.parent))
                .collect()
        };
        let c = classes(&[
            ("AHU-1", "AHU"),
            ("AHU-2", "AHU"),
            ("VAV-2-04", "VAV"),
            ("VAV-1-01", "VAV"),
            ("VAV-3-01", "VAV"),
        ]);
        let got = pairs(&c);
        assert_eq!(got, ["VAV-1-01 > AHU-1", "VAV-2-04 > AHU-2"]);
        let c = classes(&[
            ("VAV_BOT", "AHU"),
            ("VAV_MID", "AHU"),
            ("Core_bottom", "VAV"),
            ("Perimeter_mid_ZN_1", "VAV"),
            ("Lobby", "VAV"),
        ]);
        let got = pairs(&c);
        assert_eq!(got, ["Core_bottom > VAV_BOT", "Perimeter_mid_ZN_1 > VAV_MID"]);
        // the school's loops share `pod`; their numbers tell them apart
        let c = classes(&[
            ("VAV_POD_1", "AHU"),
            ("VAV_POD_2", "AHU"),
            ("VAV_OTHER", "AHU"),
            ("CORNER_CLASS_1_POD_1_ZN_1_FLR_2", "VAV"),
            ("MULT_CLASS_2_POD_2_ZN_1_FLR_1", "VAV"),
            ("LOBBY_ZN_1_FLR_1", "VAV"),
        ]);
        let got = pairs(&c);
        assert_eq!(got, ["CORNER_CLASS_1_POD_1_ZN_1_FLR_2 > VAV_POD_1", "MULT_CLASS_2_POD_2_ZN_1_FLR_1 > VAV_POD_2"]);
        // a named parent wins over every inference, and a lone air handler serves the rest
        let c = classes(&[("AHU1", "AHU"), ("VAV3", "VAV"), ("VAV4", "VAV")]);
        let named = [("AHU9".to_string(), "VAV3".to_string(), "VAV3 is named under AHU9".to_string())];
        let e = infer(&[], &c, &named, &[], &Export::default());
        assert_eq!(e[0].parent, "AHU9");
        assert_eq!((e[1].parent.as_str(), e[1].source), ("AHU1", "name"));
        assert!(e[1].how.contains("only air handler"));
    }
}
