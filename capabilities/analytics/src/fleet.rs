//! Fleet rules: a rule that judges a group of equipment together (the boxes an air handler
//! serves, every terminal of the facility) rather than each unit alone. The engine hands such a
//! rule a [`Fleet`]: the members that have the rule's inputs and passed the trust floor, each
//! with the group it belongs to, on one shared time axis. The rule answers [`FleetFinding`]s,
//! one per group it judged (or one for the whole fleet), each naming the units it implicates.
//!
//! Groups come from the run config's `topology` (the reference toolkit's format: `parents`
//! maps a served equipment to the one serving it), else from the equipment classes: every
//! member of one class is one pool. A pooled fleet carries a caveat saying a unit flagged in it
//! may simply sit on a different system than its peers.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::engine::{Finding, Frame};

/// One unit of a fleet.
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    pub equip: &'a str,
    pub class: &'a str,
    /// The equipment serving it (its air handler), from the topology; `None` when the topology
    /// does not name it.
    pub parent: Option<&'a str>,
    pub frame: &'a Frame,
}

/// The members of a fleet rule's run and the time axis they share.
#[derive(Clone, Debug)]
pub struct Fleet<'a> {
    pub members: Vec<Member<'a>>,
    /// Every member's timestamps, merged and sorted: the axis a fleet finding's flagged
    /// samples index.
    pub times: Vec<i64>,
    /// Whether a topology gave at least one member its group.
    pub grouped: bool,
    /// The roles each serving equipment (a member's parent) stores, when the run has its
    /// frame: what a rule may say about the system serving a group (its duct static pressure).
    pub parent_roles: std::collections::BTreeMap<String, Vec<String>>,
    /// How long each member's samples stand for (ns), worked out on first use: a fleet rule
    /// holds several of a member's columns on the axis.
    spans: Vec<std::cell::OnceCell<Vec<f64>>>,
    /// Whether each member's timestamps are the axis itself (every member on one grid): its
    /// columns then sit on the axis as they are.
    on_axis: Vec<bool>,
}

/// A group of a fleet: the members one system serves, or a pool of one class.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The serving equipment (an air handler id), or the class of a pool (`None` when the
    /// fleet is one pool of one class: the finding is the whole fleet's).
    pub label: Option<String>,
    /// Whether the topology made this group (false: a pool of members it does not name).
    pub served: bool,
    /// Indices into [`Fleet::members`].
    pub members: Vec<usize>,
}

/// A fleet rule's finding: for one group, or the whole fleet when `group` is `None`.
#[derive(Clone, Debug)]
pub struct FleetFinding {
    pub group: Option<String>,
    pub finding: Finding,
    /// The units the finding implicates, worst first (a rogue zone, a starving air handler and
    /// its boxes); empty when it implicates none.
    pub equips: Vec<String>,
}

/// A frame's values (one per row) on other timestamps `times` (sorted), each sample held for
/// the time it stands for in its own trend (as [`Frame::weights_hours`]: to its next sample, at
/// most 1.5 times its typical spacing): between its samples the frame still reads its last one,
/// so an hourly trend read on a 15-minute axis counts for the whole hour. NaN where no sample
/// covers an instant.
pub fn hold_on(frame: &Frame, col: &[f64], times: &[i64]) -> Vec<f64> {
    hold_spanned(frame, &spans_ns(frame), col, times)
}

/// How long each sample of `frame` stands for, in ns (as [`Frame::weights_hours`]).
fn spans_ns(frame: &Frame) -> Vec<f64> {
    frame.weights_hours().iter().map(|h| h * crate::engine::NS_PER_HOUR as f64).collect()
}

/// [`hold_on`] with the frame's sample spans worked out.
fn hold_spanned(frame: &Frame, span: &[f64], col: &[f64], times: &[i64]) -> Vec<f64> {
    let mut out = crate::engine::nans(times.len());
    let mut k = 0;
    for (i, t) in times.iter().enumerate() {
        while k + 1 < frame.ts.len() && frame.ts[k + 1] <= *t {
            k += 1;
        }
        match frame.ts.get(k) {
            Some(&s) if s <= *t && ((*t - s) as f64) < span[k] => out[i] = col[k],
            _ => {}
        }
    }
    out
}

/// The sorted union of timestamp lists. Members on one grid share their timestamps, so the
/// first list is the union so far as it is, a list equal to the union so far adds nothing, and
/// a strictly increasing list is merged in one pass; only a list out of order or with repeats
/// sends the lot through a sort.
pub fn union_of<'t>(lists: impl Iterator<Item = &'t [i64]> + Clone) -> Vec<i64> {
    if !lists.clone().all(|l| l.is_sorted_by(|a, b| a < b)) {
        let mut all: Vec<i64> = lists.flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        return all;
    }
    let mut out: Vec<i64> = Vec::new();
    for l in lists {
        // one copy, not a merge into nothing: in the sandbox a merge's turn costs several times
        // a copied sample, and most fleets of one rule are a single unit's frame
        if out.is_empty() {
            out.extend_from_slice(l);
            continue;
        }
        if same_times(l, &out) {
            continue;
        }
        let mut merged = Vec::with_capacity(out.len().max(l.len()));
        let (mut i, mut j) = (0, 0);
        while i < out.len() || j < l.len() {
            let t = match (out.get(i), l.get(j)) {
                (Some(&a), Some(&b)) if a <= b => {
                    i += 1;
                    j += usize::from(a == b);
                    a
                }
                (_, Some(&b)) => {
                    j += 1;
                    b
                }
                (Some(&a), None) => {
                    i += 1;
                    a
                }
                (None, None) => break,
            };
            if merged.last() != Some(&t) {
                merged.push(t);
            }
        }
        out = merged;
    }
    out
}

/// Whether two timestamp lists are equal, compared as integers: a slice's `==` is the C
/// library's `memcmp`, which in the sandbox compares a byte at a time.
fn same_times(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len()
        && a.chunks(512).zip(b.chunks(512)).all(|(x, y)| x.iter().zip(y).fold(true, |same, (p, q)| same & (p == q)))
}

/// The caveat of a fleet pooled without a topology.
pub const POOLED_CAVEAT: &str = "no topology says which air handler serves which unit: the units were pooled by class, so a unit flagged here may simply sit on a different system than its peers (give the run config a topology)";

impl<'a> Fleet<'a> {
    /// A fleet of these members: the shared axis is the union of their timestamps.
    pub fn new(members: Vec<Member<'a>>) -> Fleet<'a> {
        let times = union_of(members.iter().map(|m| m.frame.ts.as_slice()));
        let grouped = members.iter().any(|m| m.parent.is_some());
        let spans = vec![std::cell::OnceCell::new(); members.len()];
        let on_axis = members.iter().map(|m| same_times(&m.frame.ts, &times)).collect();
        Fleet { members, times, grouped, parent_roles: Default::default(), spans, on_axis }
    }

    /// The fleet with the roles each serving equipment stores ([`Fleet::parent_roles`]).
    pub fn with_parent_roles(mut self, roles: std::collections::BTreeMap<String, Vec<String>>) -> Fleet<'a> {
        self.parent_roles = roles;
        self
    }

    /// Whether the equipment serving a group stores any of `roles` (false when the run does not
    /// hold its frame, or the group has no serving equipment).
    pub fn parent_has(&self, parent: Option<&str>, roles: &[&str]) -> bool {
        parent
            .and_then(|p| self.parent_roles.get(p))
            .is_some_and(|stored| stored.iter().any(|r| roles.contains(&r.as_str())))
    }

    /// A member's column on the shared axis (NaN where it has no sample), when it has the role.
    pub fn column(&self, member: usize, role: &str) -> Option<Vec<f64>> {
        let m = &self.members[member];
        let col = m.frame.col(role)?;
        if self.on_axis[member] {
            return Some(col.to_vec());
        }
        Some(crate::engine::align(&m.frame.ts, col, &self.times))
    }

    /// A member's column on the shared axis with each sample held for the time it stands for
    /// in its own trend (as [`Frame::weights_hours`]: to its next sample, at most 1.5 times its
    /// typical spacing): at an instant between its samples a member still reads its last one,
    /// so a unit trended hourly among units trended every 15 minutes counts for the whole hour.
    /// NaN where no sample covers the instant; `None` without the role.
    pub fn held(&self, member: usize, role: &str) -> Option<Vec<f64>> {
        let col = self.members[member].frame.col(role)?;
        Some(self.hold(member, col))
    }

    /// Values of a member's own samples (one per row of its frame) held on the shared axis, as
    /// [`Fleet::held`] holds a column.
    pub fn hold(&self, member: usize, col: &[f64]) -> Vec<f64> {
        let frame = self.members[member].frame;
        let span = self.spans[member].get_or_init(|| spans_ns(frame));
        if self.on_axis[member] {
            // each instant is the member's own sample, held while its span lasts
            return col.iter().zip(span).map(|(&v, &s)| if 0.0 < s { v } else { f64::NAN }).collect();
        }
        hold_spanned(frame, span, col, &self.times)
    }

    /// How long each instant of the shared axis stands for, in hours (as [`Frame::weights_hours`]).
    pub fn weights_hours(&self) -> Vec<f64> {
        Frame { ts: self.times.clone(), cols: BTreeMap::new() }.weights_hours()
    }

    /// The groups: one per serving equipment the topology names, in id order, then the members
    /// it does not name pooled by class. A fleet with no topology and one class is one group
    /// with no label.
    pub fn groups(&self) -> Vec<Group> {
        let mut served: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut pooled: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, m) in self.members.iter().enumerate() {
            match m.parent {
                Some(p) => served.entry(p).or_default().push(i),
                None => pooled.entry(m.class).or_default().push(i),
            }
        }
        let one_pool = served.is_empty() && pooled.len() == 1;
        let mut out: Vec<Group> = served
            .into_iter()
            .map(|(p, members)| Group { label: Some(p.to_string()), served: true, members })
            .collect();
        out.extend(pooled.into_iter().map(|(c, members)| Group {
            label: (!one_pool).then(|| c.to_string()),
            served: false,
            members,
        }));
        out
    }

    /// The caveats a finding on this fleet carries: pooled without a topology, or the members
    /// the topology does not name.
    pub fn caveats(&self) -> Vec<String> {
        let unnamed = self.members.iter().filter(|m| m.parent.is_none()).count();
        if !self.grouped {
            vec![POOLED_CAVEAT.to_string()]
        } else if unnamed > 0 {
            vec![format!("the topology names no serving equipment for {unnamed} unit(s): they were pooled by class, and a flag among them may only mean a different system")]
        } else {
            Vec::new()
        }
    }
}

/// Which equipment serves which: the run config's `topology` (the reference toolkit's format,
/// `{"parents": {"VAV-101": "AHU-1"}, "match": "normalized"}`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Topology {
    /// served equipment -> the equipment serving it (one or more).
    pub parents: BTreeMap<String, Vec<String>>,
    /// Whether ids match ignoring case and separators (`VAV_101` names `VAV-101`).
    pub normalized: bool,
}

fn norm(id: &str) -> String {
    id.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

impl Topology {
    /// The config's `topology` section, checked; the error names what is wrong.
    pub fn from_value(v: &Value) -> Result<Topology, String> {
        let Value::Object(m) = v else {
            return Err("'topology' must be an object such as {\"parents\": {\"VAV-1\": \"AHU-1\"}}".into());
        };
        if let Some(k) = m.keys().find(|k| !["parents", "csv", "match"].contains(&k.as_str())) {
            return Err(format!("topology has an unknown key '{k}' (it takes parents and match)"));
        }
        if m.get("csv").is_some_and(|c| !c.is_null()) {
            return Err("topology.csv names files, which a capability does not read: give the pairs as topology.parents ({\"VAV-1\": \"AHU-1\"})".into());
        }
        let normalized = match m.get("match") {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) if s == "normalized" => true,
            Some(Value::String(s)) if s == "exact" => false,
            Some(other) => return Err(format!("topology.match must be \"normalized\" or \"exact\", not {other}")),
        };
        let mut parents = BTreeMap::new();
        match m.get("parents") {
            None | Some(Value::Null) => {}
            Some(Value::Object(p)) => {
                for (child, par) in p {
                    let list = match par {
                        Value::String(s) => vec![s.clone()],
                        Value::Array(a) => a
                            .iter()
                            .map(|x| x.as_str().map(str::to_string))
                            .collect::<Option<Vec<_>>>()
                            .ok_or(format!("topology.parents.{child} must be an equipment id or a list of them"))?,
                        _ => return Err(format!("topology.parents.{child} must be an equipment id or a list of them")),
                    };
                    parents.insert(child.clone(), list);
                }
            }
            Some(_) => return Err("topology.parents must map served equipment to the equipment serving it".into()),
        }
        Ok(Topology { parents, normalized })
    }

    /// The equipment serving `equip` (its first parent), spelled as in `known` when it names
    /// one of them.
    pub fn parent_of(&self, equip: &str, known: &[&str]) -> Option<String> {
        let first = match self.parents.get(equip) {
            Some(p) => p.first(),
            None if self.normalized => {
                let n = norm(equip);
                self.parents.iter().find(|(c, _)| norm(c) == n).and_then(|(_, p)| p.first())
            }
            None => None,
        }?;
        if known.contains(&first.as_str()) || !self.normalized {
            return Some(first.clone());
        }
        let n = norm(first);
        Some(known.iter().find(|k| norm(k) == n).map_or_else(|| first.clone(), |k| k.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shared_axis_is_the_sorted_union_of_the_members_times() {
        let sorted = |lists: &[&[i64]]| {
            let mut all: Vec<i64> = lists.iter().flat_map(|l| l.iter().copied()).collect();
            all.sort_unstable();
            all.dedup();
            all
        };
        let grid: Vec<i64> = (0..50).map(|i| i * 15).collect();
        let hourly: Vec<i64> = (0..13).map(|i| i * 60 + 7).collect();
        let cases: Vec<Vec<&[i64]>> = vec![
            vec![&grid, &grid, &grid],
            vec![&grid, &hourly, &grid],
            vec![&hourly, &grid[10..20], &[]],
            vec![&[3, 3, 5, 9], &[1, 5, 5, 20], &[9]],
            vec![&[5, 1, 3], &grid],
            vec![&[3, 3, 5]],
            vec![&[], &hourly, &grid],
            vec![&hourly],
            vec![],
        ];
        for lists in cases {
            assert_eq!(union_of(lists.iter().copied()), sorted(&lists), "{lists:?}");
        }
    }

    #[test]
    fn members_on_the_axis_hold_and_align_as_any_member_does() {
        // a 15-minute grid with a three-hour gap, on two members and a third hourly one
        let grid: Vec<i64> = (0..96).filter(|i| !(40..52).contains(i)).map(|i| i * 900_000_000_000).collect();
        let v: Vec<f64> = (0..grid.len()).map(|i| if i % 7 == 3 { f64::NAN } else { i as f64 }).collect();
        let f = Frame::from_rows(&grid, &[("airflow", v.clone())]);
        let hourly: Vec<i64> = (0..24).map(|i| i * 3_600_000_000_000).collect();
        let h = Frame::from_rows(&hourly, &[("airflow", (0..24).map(f64::from).collect())]);
        let member = |frame| Member { equip: "VAV", class: "VAV", parent: None, frame };
        for (frames, on_axis) in [(vec![&f, &f], vec![true, true]), (vec![&f, &h], vec![false, false])] {
            let fleet = Fleet::new(frames.iter().map(|&fr| member(fr)).collect());
            for (k, fr) in frames.iter().enumerate() {
                let col = fr.col("airflow").unwrap();
                let held = |x: Vec<f64>| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(held(fleet.hold(k, col)), held(hold_on(fr, col, &fleet.times)));
                assert_eq!(
                    held(fleet.column(k, "airflow").unwrap()),
                    held(crate::engine::align(&fr.ts, col, &fleet.times))
                );
            }
            assert_eq!(fleet.on_axis, on_axis);
        }
    }

    #[test]
    fn a_topology_reads_the_reference_format_and_matches_ids_loosely() {
        let t = Topology::from_value(&json!({"parents": {"VAV_101": "ahu-1", "VAV-102": ["AHU-1", "AHU-2"]}})).unwrap();
        let known = ["VAV-101", "VAV-102", "AHU-1"];
        assert_eq!(t.parent_of("VAV-101", &known).as_deref(), Some("AHU-1"));
        assert_eq!(t.parent_of("VAV-102", &known).as_deref(), Some("AHU-1"));
        assert_eq!(t.parent_of("VAV-103", &known), None);
        let exact = Topology::from_value(&json!({"parents": {"VAV_101": "ahu-1"}, "match": "exact"})).unwrap();
        assert_eq!(exact.parent_of("VAV-101", &known), None);
        for (bad, says) in [
            (json!({"parents": {"V": 3}}), "topology.parents.V"),
            (json!({"csv": "x.csv"}), "topology.csv"),
            (json!({"match": "fuzzy"}), "topology.match"),
            (json!({"children": {}}), "unknown key 'children'"),
            (json!([1]), "must be an object"),
        ] {
            let e = Topology::from_value(&bad).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn groups_follow_the_topology_then_pool_by_class() {
        let f = Frame::from_rows(&[0, 10], &[("x", vec![1.0, 2.0])]);
        let g = Frame::from_rows(&[5, 10], &[("x", vec![1.0, 2.0])]);
        let m = |equip, class, parent| Member { equip, class, parent, frame: &f };
        let fleet = Fleet::new(vec![
            m("V1", "VAV", Some("AHU-2")),
            m("V2", "VAV", Some("AHU-1")),
            Member { equip: "V3", class: "VAV", parent: None, frame: &g },
            m("F1", "FCU", None),
        ]);
        assert_eq!(fleet.times, vec![0, 5, 10]);
        let groups = fleet.groups();
        let labels: Vec<Option<&str>> = groups.iter().map(|g| g.label.as_deref()).collect();
        assert_eq!(labels, [Some("AHU-1"), Some("AHU-2"), Some("FCU"), Some("VAV")]);
        assert_eq!(groups[3].members, [2]);
        assert!(fleet.caveats()[0].contains("2 unit(s)"));
        let c = fleet.column(2, "x").unwrap();
        assert!(c[0].is_nan() && c[1] == 1.0 && c[2] == 2.0);
        // held: V1's sample at 0 stands until its next at 10, so it reads 1 at 5
        assert_eq!(fleet.held(0, "x").unwrap(), vec![1.0, 1.0, 2.0]);
        let h = fleet.held(2, "x").unwrap();
        assert!(h[0].is_nan() && h[1] == 1.0 && h[2] == 2.0);
        // no topology, one class: one pool with no label, and the pooled caveat
        let pool = Fleet::new(vec![m("V1", "VAV", None), m("V2", "VAV", None)]);
        assert_eq!(pool.groups(), vec![Group { label: None, served: false, members: vec![0, 1] }]);
        assert_eq!(pool.caveats(), vec![POOLED_CAVEAT.to_string()]);
    }
}
