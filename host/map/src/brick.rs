//! Brick models (Turtle) read into a [`crate::model::Model`].
//!
//! The reader keeps what a mapping needs and ignores every other triple: the Brick classes of each
//! subject (matched by local name in any Brick namespace version), labels, `hasPoint`/`isPointOf`,
//! `hasPart`/`isPartOf`, `feeds`/`isFedBy`, `hasLocation`, `hasUnit` and time-series ids (Brick
//! 1.3/1.4 `ref:hasExternalReference`, and the older `brick:timeseries`). A point of a part (a coil,
//! a damper, a fan, a valve) belongs to the first equipment above the part, and the part's class
//! tells which role the point plays; a point of a zone belongs to the one terminal that feeds the
//! zone. Brick's two alias spellings, `Discharge_*` for `Supply_*` and `Outdoor_*` for
//! `Outside_*`, are read as one.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use camber_common::text::one_line;
use oxrdf::{NamedOrBlankNode, Term};
use oxttl::TurtleParser;

use crate::model::{Feed, Model, ModelEquip, ModelPoint};

const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// Confidence of a class that names the role in its canonical spelling.
const DIRECT: f64 = 0.95;
/// Confidence of a class spelled with an alias, or resolved through the part it sits on.
const ALIAS: f64 = 0.9;
/// Confidence of a role guessed from the owning equipment alone.
const OWNER: f64 = 0.85;

/// Reads a Brick model in Turtle: its equipment (with camber classes), its points (with roles,
/// owners, units and the names an export may use for them) and the feeds between equipment.
pub fn read_brick(text: &str) -> Result<Model, String> {
    let graph = Graph::parse(text)?;
    graph.into_model()
}

/// Which Brick namespace an IRI is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ns {
    Brick,
    Ref,
}

/// The namespace and local name of a Brick IRI (`https://brickschema.org/schema/Brick#X`,
/// `https://brickschema.org/schema/1.3/Brick#X`, `.../Brick/ref#X`), if it is one.
fn brick_name(iri: &str) -> Option<(Ns, &str)> {
    let rest = iri.strip_prefix("https://").or_else(|| iri.strip_prefix("http://"))?;
    let rest = rest.strip_prefix("brickschema.org/schema/")?;
    let (path, local) = rest.split_once('#')?;
    if local.is_empty() {
        return None;
    }
    if path.ends_with("Brick/ref") {
        Some((Ns::Ref, local))
    } else if path.ends_with("Brick") || path.ends_with("BrickFrame") {
        Some((Ns::Brick, local))
    } else {
        None
    }
}

/// The local name of an IRI: what follows its last `#` or `/`, percent-decoded.
fn local_name(iri: &str) -> String {
    let tail = iri.rsplit(['#', '/']).next().unwrap_or(iri);
    let tail = if tail.is_empty() { iri } else { tail };
    percent_decode(tail)
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = if bytes[i] == b'%' {
            bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        } else {
            None
        };
        match decoded {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

/// A usable camber id from a label or local name: one line, trimmed, path separators as `-`.
fn clean_id(s: &str) -> String {
    one_line(s).replace(['/', '\\'], "-").trim().to_owned()
}

/// A class name with Brick's alias spellings folded (`Discharge` -> `Supply`, `Outdoor` ->
/// `Outside`), and whether folding changed it.
fn normalise(class: &str) -> (String, bool) {
    let mut changed = false;
    let words: Vec<&str> = class
        .split('_')
        .map(|w| match w {
            "Discharge" => {
                changed = true;
                "Supply"
            }
            "Outdoor" => {
                changed = true;
                "Outside"
            }
            other => other,
        })
        .collect();
    (words.join("_"), changed)
}

fn words(n: &str) -> Vec<&str> {
    n.split('_').collect()
}

fn has(n: &str, word: &str) -> bool {
    n.split('_').any(|w| w.eq_ignore_ascii_case(word))
}

fn has_any(n: &str, list: &[&str]) -> bool {
    list.iter().any(|w| has(n, w))
}

fn last_word(n: &str) -> &str {
    n.rsplit('_').next().unwrap_or(n)
}

/// The camber class of a (normalised) Brick equipment class.
fn camber_class(n: &str) -> Option<&'static str> {
    let class = match n {
        "Air_Handler_Unit" | "Air_Handling_Unit" | "AHU" => "AHU",
        "Rooftop_Unit" | "RTU" => "RTU",
        "Dedicated_Outside_Air_System_Unit" | "DOAS" => "DOAS",
        "Makeup_Air_Unit" | "MAU" => "MAU",
        "Variable_Air_Volume_Box" | "Variable_Air_Volume_Box_With_Reheat" | "VAV" | "Terminal_Unit" => "VAV",
        "Constant_Air_Volume_Box" | "CAV" => "CAV",
        "Fan_Coil_Unit" | "FCU" => "FCU",
        "Weather_Station" => "WEATHER",
        "Chilled_Water_System" | "Chilled_Water_Loop" | "Chilled_Water_Plant" => "CHW_PLANT",
        "Hot_Water_System" | "Hot_Water_Loop" | "Hot_Water_Plant" => "HW_PLANT",
        _ if n == "Heat_Pump" || n.ends_with("_Heat_Pump") => "HEAT_PUMP",
        _ if n == "Pump" || n.ends_with("_Pump") => "PUMP",
        _ if n == "Chiller" || n.ends_with("_Chiller") => "CHILLER",
        _ if n == "Boiler" || n.ends_with("_Boiler") => "BOILER",
        _ if n == "Cooling_Tower" || n.ends_with("_Cooling_Tower") => "COOLING_TOWER",
        _ if n == "Meter" || n.ends_with("_Meter") => "METER",
        _ => return None,
    };
    Some(class)
}

/// Whether a (normalised) Brick class is a point class.
fn is_point_class(n: &str) -> bool {
    const LAST: &[&str] = &["Sensor", "Setpoint", "Command", "Status", "Parameter", "Alarm", "Limit", "Point"];
    const OTHER: &[&str] = &[
        "Occupant_Count",
        "Occupancy_Count",
        "Supply_Air_Fan_Speed",
        "Outside_Air_Flow_Rate",
        "Hot_Water_Supply_Flow_Rate",
        "Chilled_Water_Supply_Flow_Rate",
    ];
    LAST.contains(&last_word(n)) || OTHER.contains(&n)
}

/// Whether a (normalised) Brick class is a location: a zone, room, space, floor, building or site.
fn is_location_class(n: &str) -> bool {
    const LAST: &[&str] =
        &["Zone", "Room", "Space", "Floor", "Storey", "Building", "Site", "Wing", "Area", "Region", "Office"];
    n == "Location" || LAST.contains(&last_word(n))
}

/// Camber classes of the terminals whose zone points fold onto them.
const TERMINALS: &[&str] = &["VAV", "CAV", "FCU"];

/// What a subject is, from its Brick classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Equipment of a class camber knows.
    Known,
    /// A point.
    Point,
    /// A zone, room, floor, building or site.
    Location,
    /// Any other Brick class: a part (coil, damper, fan, valve) or equipment camber has no class
    /// for. It folds onto the first known equipment above it.
    Part,
    /// No Brick class.
    Untyped,
}

/// What a subject with these Brick classes is.
fn kind_of(classes: &[String]) -> Kind {
    let norm: Vec<String> = classes.iter().map(|c| normalise(c).0).collect();
    if norm.is_empty() {
        Kind::Untyped
    } else if norm.iter().any(|n| camber_class(n).is_some()) {
        Kind::Known
    } else if norm.iter().any(|n| is_point_class(n)) {
        Kind::Point
    } else if norm.iter().any(|n| is_location_class(n)) {
        Kind::Location
    } else {
        Kind::Part
    }
}

/// The triples a mapping needs, gathered by subject.
#[derive(Default)]
struct Graph {
    /// Brick classes (local names as written) of each subject, in document order.
    types: BTreeMap<String, Vec<String>>,
    /// `rdfs:label` (preferred) or `brick:label` of each subject.
    labels: HashMap<String, (u8, String)>,
    /// Point -> its owners, from `hasPoint` and `isPointOf`.
    owners: BTreeMap<String, BTreeSet<String>>,
    /// Point -> its locations, from `hasLocation` and `isLocationOf`.
    located: BTreeMap<String, BTreeSet<String>>,
    /// Child -> what feeds it.
    fed_by: BTreeMap<String, BTreeSet<String>>,
    /// What each typed subject is, worked out once the graph is read.
    kinds: HashMap<String, Kind>,
    /// Part -> the wholes it is part of.
    parents: BTreeMap<String, BTreeSet<String>>,
    /// (parent, child, evidence).
    feeds: Vec<(String, String, &'static str)>,
    units: HashMap<String, String>,
    /// Subject -> the time-series reference nodes it names.
    refs: HashMap<String, Vec<String>>,
    /// Subject -> the time-series ids it carries.
    ts_ids: HashMap<String, Vec<String>>,
}

fn subject_key(s: &NamedOrBlankNode) -> String {
    match s {
        NamedOrBlankNode::NamedNode(n) => n.as_str().to_owned(),
        NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
    }
}

fn object_key(t: &Term) -> Option<String> {
    if let Term::NamedNode(n) = t {
        Some(n.as_str().to_owned())
    } else if let Term::BlankNode(b) = t {
        Some(format!("_:{}", b.as_str()))
    } else {
        None
    }
}

fn literal(t: &Term) -> Option<&str> {
    if let Term::Literal(l) = t {
        Some(l.value())
    } else {
        None
    }
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Owner of a point after folding parts and zones, with what the role may depend on.
#[derive(Default)]
struct Owner {
    /// The equipment node (or location node when no single terminal feeds it), if any.
    node: Option<String>,
    /// Normalised classes of the parts between the point and the equipment, nearest first.
    parts: Vec<String>,
    /// The original class of the nearest part, for evidence.
    part_shown: Option<String>,
    /// The zone (or other location) the point sits on, if it does.
    zone: Option<String>,
}

/// What the graph says about one point's role.
enum Verdict {
    Role { role: &'static str, confidence: f64, via_owner: bool },
    NoRole(String),
}

fn role(role: &'static str, confidence: f64, via_owner: bool) -> Verdict {
    Verdict::Role { role, confidence, via_owner }
}

/// What the role rules may look at besides the point's class.
struct Ctx<'a> {
    /// Normalised classes of the parts the point sits on (nearest first), then the equipment's.
    scope: Vec<String>,
    /// Normalised classes of the parts alone.
    parts: &'a [String],
    /// The camber class of the owning equipment.
    camber: Option<&'static str>,
    on_zone: bool,
    /// How to name the owner in a reason.
    shown: String,
}

impl Graph {
    fn parse(text: &str) -> Result<Graph, String> {
        let mut g = Graph::default();
        for item in TurtleParser::new().lenient().for_slice(text) {
            let t = item.map_err(|e| {
                format!(
                    "the Brick model is not valid Turtle (line {}: {})",
                    e.location().start.line + 1,
                    one_line(e.message())
                )
            })?;
            let s = subject_key(&t.subject);
            let p = t.predicate.as_str();
            if p == RDF_TYPE {
                if let Term::NamedNode(class) = &t.object {
                    if let Some((Ns::Brick, local)) = brick_name(class.as_str()) {
                        push_unique(g.types.entry(s).or_default(), local.to_owned());
                    }
                }
                continue;
            }
            if p == RDFS_LABEL {
                if let Some(l) = literal(&t.object) {
                    g.label(s, 0, l);
                }
                continue;
            }
            let Some((ns, name)) = brick_name(p) else { continue };
            let obj = object_key(&t.object);
            match (ns, name, obj) {
                (Ns::Brick, "hasPoint", Some(o)) => {
                    g.owners.entry(o).or_default().insert(s);
                }
                (Ns::Brick, "isPointOf", Some(o)) => {
                    g.owners.entry(s).or_default().insert(o);
                }
                (Ns::Brick, "hasLocation", Some(o)) => {
                    g.located.entry(s).or_default().insert(o);
                }
                (Ns::Brick, "isLocationOf", Some(o)) => {
                    g.located.entry(o).or_default().insert(s);
                }
                (Ns::Brick, "hasPart", Some(o)) => {
                    g.parents.entry(o).or_default().insert(s);
                }
                (Ns::Brick, "isPartOf", Some(o)) => {
                    g.parents.entry(s).or_default().insert(o);
                }
                (Ns::Brick, "feeds", Some(o)) => g.feeds.push((s, o, "brick:feeds")),
                (Ns::Brick, "isFedBy", Some(o)) => g.feeds.push((o, s, "brick:isFedBy")),
                (Ns::Brick, "hasUnit", Some(o)) => {
                    g.units.entry(s).or_insert_with(|| local_name(&o));
                }
                (Ns::Brick, "timeseries", Some(o))
                | (Ns::Ref, "hasExternalReference" | "hasTimeseriesReference", Some(o)) => {
                    push_unique(g.refs.entry(s).or_default(), o)
                }
                (_, "hasTimeseriesId", None) => {
                    if let Some(id) = literal(&t.object).map(str::trim).filter(|v| !v.is_empty()) {
                        push_unique(g.ts_ids.entry(s).or_default(), id.to_owned());
                    }
                }
                (Ns::Brick, "hasUnit", None) => {
                    if let Some(u) = literal(&t.object).map(str::trim).filter(|v| !v.is_empty()) {
                        g.units.entry(s).or_insert_with(|| u.to_owned());
                    }
                }
                (Ns::Brick, "label", None) => {
                    if let Some(l) = literal(&t.object) {
                        g.label(s, 1, l);
                    }
                }
                _ => {}
            }
        }
        for (parent, child, _) in &g.feeds {
            g.fed_by.entry(child.clone()).or_default().insert(parent.clone());
        }
        g.kinds = g.types.iter().map(|(node, classes)| (node.clone(), kind_of(classes))).collect();
        Ok(g)
    }

    fn label(&mut self, subject: String, rank: u8, text: &str) {
        let text = one_line(text).trim().to_owned();
        if text.is_empty() {
            return;
        }
        match self.labels.get(&subject) {
            Some((have, _)) if *have <= rank => {}
            _ => {
                self.labels.insert(subject, (rank, text));
            }
        }
    }

    fn classes(&self, node: &str) -> &[String] {
        self.types.get(node).map(Vec::as_slice).unwrap_or(&[])
    }

    fn kind(&self, node: &str) -> Kind {
        self.kinds.get(node).copied().unwrap_or(Kind::Untyped)
    }

    /// The camber class of a node and the Brick class that gives it (or its first class).
    /// Of several classes (a model with inferred superclasses lists `Terminal_Unit` beside
    /// `Constant_Air_Volume_Box`), the most specific one that camber knows, else the most specific.
    fn equip_class(&self, node: &str) -> (Option<&'static str>, Option<&str>) {
        let classes = self.classes(node);
        let specific = |c: &&String| c.split('_').count();
        let known = classes
            .iter()
            .filter_map(|c| camber_class(&normalise(c).0).map(|k| (k, c)))
            .rev()
            .max_by_key(|(_, c)| specific(c));
        match known {
            Some((k, c)) => (Some(k), Some(c.as_str())),
            None => (None, classes.iter().rev().max_by_key(specific).map(String::as_str)),
        }
    }

    fn walkable(&self, node: &str) -> bool {
        matches!(self.kind(node), Kind::Known | Kind::Part)
    }

    /// The equipment a part (or equipment) belongs to: the first known equipment up `hasPart`/
    /// `isPartOf`, else the top of its first chain of wholes. Returns it and the parts walked
    /// through (nearest first).
    fn fold(&self, start: &str) -> (String, Vec<String>) {
        let mut queue = VecDeque::from([(start.to_owned(), Vec::<String>::new())]);
        let mut seen: HashSet<String> = HashSet::from([start.to_owned()]);
        while let Some((node, path)) = queue.pop_front() {
            if self.kind(&node) == Kind::Known {
                return (node, path);
            }
            for p in self.parents.get(&node).into_iter().flatten() {
                if self.walkable(p) && seen.insert(p.clone()) {
                    let mut next = path.clone();
                    next.push(node.clone());
                    queue.push_back((p.clone(), next));
                }
            }
        }
        // No known equipment above: the top of the first chain stands for the equipment.
        let mut node = start.to_owned();
        let mut path = Vec::new();
        let mut seen: HashSet<String> = HashSet::from([node.clone()]);
        loop {
            let up = self
                .parents
                .get(&node)
                .into_iter()
                .flatten()
                .find(|p| self.walkable(p) && !seen.contains(p.as_str()))
                .cloned();
            match up {
                Some(p) => {
                    seen.insert(p.clone());
                    path.push(std::mem::replace(&mut node, p));
                }
                None => return (node, path),
            }
        }
    }

    /// The one terminal (VAV, CAV, FCU) that feeds a zone, if exactly one does.
    fn terminal_of(&self, zone: &str) -> Option<String> {
        let fed_by: BTreeSet<String> = self
            .fed_by
            .get(zone)
            .into_iter()
            .flatten()
            .filter(|p| self.walkable(p))
            .map(|p| self.fold(p).0)
            .filter(|e| self.equip_class(e).0.is_some_and(|k| TERMINALS.contains(&k)))
            .collect();
        if fed_by.len() == 1 {
            fed_by.into_iter().next()
        } else {
            None
        }
    }

    /// The equipment a point belongs to. Of its owners a part or equipment wins over a zone; a
    /// point with no owner falls back on its `hasLocation`.
    fn owner(&self, point: &str) -> Owner {
        let rank = |n: &str| match self.kind(n) {
            Kind::Part => 0,
            Kind::Known => 1,
            Kind::Untyped => 2,
            Kind::Location => 3,
            Kind::Point => 4,
        };
        let direct = self.owners.get(point).into_iter().flatten().filter(|n| self.kind(n) != Kind::Point);
        let best = direct
            .min_by_key(|n| rank(n))
            .or_else(|| self.located.get(point).into_iter().flatten().find(|l| self.kind(l) == Kind::Location));
        let Some(best) = best else { return Owner::default() };
        match self.kind(best) {
            Kind::Location => {
                let zone = Some(best.clone());
                match self.terminal_of(best) {
                    Some(t) => Owner { node: Some(t), zone, ..Owner::default() },
                    None => Owner { node: Some(best.clone()), zone, ..Owner::default() },
                }
            }
            Kind::Known | Kind::Part => {
                let (equip, path) = self.fold(best);
                let part_shown = path.first().and_then(|p| self.classes(p).first().cloned());
                let parts = path.iter().flat_map(|p| self.classes(p).iter().map(|c| normalise(c).0)).collect();
                Owner { node: Some(equip), parts, part_shown, zone: None }
            }
            Kind::Untyped | Kind::Point => Owner { node: Some(best.clone()), ..Owner::default() },
        }
    }

    /// The name a person knows a subject by: its label, else its local name.
    fn name_of(&self, node: &str) -> String {
        self.labels
            .get(node)
            .map(|(_, l)| clean_id(l))
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| clean_id(&local_name(node)))
    }

    fn keys(&self, point: &str) -> Vec<String> {
        let mut keys = Vec::new();
        let mut add = |k: &str| {
            let k = one_line(k).trim().to_owned();
            if !k.is_empty() && !keys.contains(&k) {
                keys.push(k);
            }
        };
        for id in self.ts_ids.get(point).into_iter().flatten() {
            add(id);
        }
        for r in self.refs.get(point).into_iter().flatten() {
            for id in self.ts_ids.get(r).into_iter().flatten() {
                add(id);
            }
        }
        if let Some((_, l)) = self.labels.get(point) {
            add(l);
        }
        if !point.starts_with("_:") {
            add(&local_name(point));
        }
        keys
    }

    fn into_model(self) -> Result<Model, String> {
        let point_nodes: Vec<&String> = self.types.keys().filter(|n| self.kind(n) == Kind::Point).collect();
        if point_nodes.is_empty() {
            return Err("the Brick model names no points".to_owned());
        }

        // Equipment: every known equipment, every owner of a point, every end of a feed.
        let mut equip_nodes: BTreeSet<String> =
            self.types.keys().filter(|n| self.kind(n) == Kind::Known).cloned().collect();
        let owners: Vec<(&String, Owner)> = point_nodes.iter().map(|p| (*p, self.owner(p))).collect();
        equip_nodes.extend(owners.iter().filter_map(|(_, o)| o.node.clone()));
        let mut edges: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
        for (p, c, ev) in &self.feeds {
            if !self.walkable(p) || !self.walkable(c) {
                continue;
            }
            let (p, c) = (self.fold(p).0, self.fold(c).0);
            if p != c {
                edges.insert((p, c, ev));
            }
        }
        for (p, c, _) in &edges {
            equip_nodes.insert(p.clone());
            equip_nodes.insert(c.clone());
        }

        let mut ids: HashMap<&str, String> = HashMap::new();
        let mut taken: HashSet<String> = HashSet::new();
        for node in &equip_nodes {
            let local = clean_id(&local_name(node));
            let mut id = self.name_of(node);
            if taken.contains(&id) && !local.is_empty() {
                id = local;
            }
            if id.is_empty() {
                id = "equipment".to_owned();
            }
            let base = id.clone();
            let mut n = 2;
            while taken.contains(&id) {
                id = format!("{base}-{n}");
                n += 1;
            }
            taken.insert(id.clone());
            ids.insert(node, id);
        }

        let mut equips: Vec<ModelEquip> = equip_nodes
            .iter()
            .map(|node| {
                let (class, shown) = self.equip_class(node);
                let evidence = match (self.kind(node), shown) {
                    (Kind::Location, Some(s)) => format!("brick:{s} (points on a zone no single terminal feeds)"),
                    (_, Some(s)) => format!("brick:{s}"),
                    (_, None) => "brick: an owner of points with no Brick class".to_owned(),
                };
                ModelEquip {
                    id: ids.get(node.as_str()).cloned().unwrap_or_default(),
                    class: class.map(str::to_owned),
                    evidence,
                }
            })
            .collect();
        equips.sort_by(|a, b| a.id.cmp(&b.id));

        let mut points: Vec<ModelPoint> = owners.iter().map(|(node, owner)| self.point(node, owner, &ids)).collect();
        points.sort_by(|a, b| a.keys.first().cmp(&b.keys.first()).then_with(|| a.evidence.cmp(&b.evidence)));

        let mut feeds: Vec<Feed> = Vec::new();
        for (p, c, ev) in edges {
            let (Some(parent), Some(child)) = (ids.get(p.as_str()), ids.get(c.as_str())) else { continue };
            if feeds.iter().any(|f| &f.parent == parent && &f.child == child) {
                continue;
            }
            feeds.push(Feed { parent: parent.clone(), child: child.clone(), evidence: ev.to_owned() });
        }
        feeds.sort_by(|a, b| (&a.parent, &a.child).cmp(&(&b.parent, &b.child)));

        Ok(Model { source: "brick", points, equips, feeds })
    }

    fn point(&self, node: &str, owner: &Owner, ids: &HashMap<&str, String>) -> ModelPoint {
        let equip_classes: Vec<String> =
            owner.node.as_deref().map(|e| self.classes(e).iter().map(|c| normalise(c).0).collect()).unwrap_or_default();
        let camber = owner.node.as_deref().and_then(|e| self.equip_class(e).0);
        let shown_node = owner.zone.as_deref().or(owner.node.as_deref());
        let shown = match (&owner.part_shown, shown_node) {
            (Some(p), _) => format!("brick:{p}"),
            (None, Some(e)) => match self.classes(e).first() {
                Some(c) => format!("brick:{c}"),
                None => "its owner".to_owned(),
            },
            (None, None) => "no owner".to_owned(),
        };
        let mut scope = owner.parts.clone();
        scope.extend(equip_classes);
        let ctx = Ctx { scope, parts: &owner.parts, camber, on_zone: owner.zone.is_some(), shown };

        // Of the point's classes, the one giving the surest role; else the most specific one's reason.
        let mut best: Option<(&String, Verdict)> = None;
        for class in self.classes(node).iter().filter(|c| is_point_class(&normalise(c).0)) {
            let v = judge(class, &ctx);
            let better = match (&best, &v) {
                (None, _) => true,
                (Some((_, Verdict::NoRole(_))), Verdict::Role { .. }) => true,
                (Some((_, Verdict::Role { confidence: a, .. })), Verdict::Role { confidence: b, .. }) => b > a,
                // With no role from any class, the most specific class explains why.
                (Some((have, Verdict::NoRole(_))), Verdict::NoRole(_)) => {
                    class.split('_').count() > have.split('_').count()
                }
                _ => false,
            };
            if better {
                best = Some((class, v));
            }
        }
        let mut point = ModelPoint {
            keys: self.keys(node),
            equip: owner.node.as_deref().and_then(|e| ids.get(e).cloned()),
            unit: self.units.get(node).cloned(),
            ..ModelPoint::default()
        };
        match best {
            Some((class, Verdict::Role { role, confidence, via_owner })) => {
                point.role = Some(role.to_owned());
                point.confidence = confidence;
                point.evidence =
                    if via_owner { format!("brick:{class} on {}", ctx.shown) } else { format!("brick:{class}") };
            }
            Some((class, Verdict::NoRole(why))) => {
                point.evidence = format!("brick:{class}");
                point.why_not = Some(why);
            }
            None => {
                point.evidence = "brick: no point class".to_owned();
                point.why_not = Some("the model gives no point class".to_owned());
            }
        }
        if let (Some(zone), Some(equip)) = (owner.zone.as_deref(), point.equip.as_deref()) {
            if owner.node.as_deref() != Some(zone) {
                point.evidence.push_str(&format!(" (on zone {}, which only {equip} feeds)", self.name_of(zone)));
            }
        }
        point
    }
}

/// Direct class -> role table (classes in their normalised spelling) with the confidence of the
/// canonical spelling.
const DIRECT_ROLES: &[(&str, &str, f64)] = &[
    ("Outside_Air_Temperature_Sensor", "oat", DIRECT),
    ("Outside_Air_Wet_Bulb_Temperature_Sensor", "wetbulb_temp", DIRECT),
    ("Outside_Air_Humidity_Sensor", "outdoor_rh", DIRECT),
    ("Outside_Air_Relative_Humidity_Sensor", "outdoor_rh", DIRECT),
    ("Outside_Air_CO2_Sensor", "outdoor_co2", DIRECT),
    ("Outside_Air_Flow_Sensor", "oa_airflow", DIRECT),
    ("Outside_Air_Flow_Rate", "oa_airflow", OWNER),
    ("Mixed_Air_Temperature_Sensor", "mixed_air_temp", DIRECT),
    ("Return_Air_Temperature_Sensor", "return_air_temp", DIRECT),
    ("Return_Air_Humidity_Sensor", "return_air_humidity", DIRECT),
    ("Return_Air_Relative_Humidity_Sensor", "return_air_humidity", DIRECT),
    ("Return_Air_Dewpoint_Sensor", "return_air_dewpoint_temp", DIRECT),
    ("Supply_Air_Temperature_Sensor", "supply_air_temp", DIRECT),
    ("Supply_Air_Temperature_Setpoint", "supply_air_temp_sp", DIRECT),
    ("Supply_Air_Humidity_Sensor", "supply_air_humidity", DIRECT),
    ("Supply_Air_Relative_Humidity_Sensor", "supply_air_humidity", DIRECT),
    ("Supply_Air_Static_Pressure_Sensor", "duct_static", DIRECT),
    ("Supply_Air_Static_Pressure_Setpoint", "duct_static_sp", DIRECT),
    ("Supply_Air_Flow_Sensor", "airflow", DIRECT),
    ("Supply_Air_Flow_Setpoint", "airflow_sp", DIRECT),
    ("Min_Air_Flow_Setpoint", "airflow_min_sp", DIRECT),
    ("Minimum_Air_Flow_Setpoint", "airflow_min_sp", DIRECT),
    ("Min_Supply_Air_Flow_Setpoint", "airflow_min_sp", DIRECT),
    ("Minimum_Supply_Air_Flow_Setpoint", "airflow_min_sp", DIRECT),
    ("Filter_Differential_Pressure_Sensor", "filter_diff_press", DIRECT),
    ("Zone_Air_Temperature_Sensor", "space_temp", DIRECT),
    ("Zone_Air_Cooling_Temperature_Setpoint", "cool_sp", DIRECT),
    ("Zone_Air_Heating_Temperature_Setpoint", "heat_sp", DIRECT),
    ("Effective_Air_Temperature_Cooling_Setpoint", "cool_sp", DIRECT),
    ("Effective_Air_Temperature_Heating_Setpoint", "heat_sp", DIRECT),
    ("Occupied_Air_Temperature_Cooling_Setpoint", "cool_sp", ALIAS),
    ("Occupied_Air_Temperature_Heating_Setpoint", "heat_sp", ALIAS),
    ("Occupied_Cooling_Temperature_Setpoint", "cool_sp", ALIAS),
    ("Occupied_Heating_Temperature_Setpoint", "heat_sp", ALIAS),
    ("CO2_Sensor", "co2", DIRECT),
    ("Zone_Air_CO2_Sensor", "co2", DIRECT),
    ("Return_Air_CO2_Sensor", "co2", ALIAS),
    ("Occupancy_Sensor", "occupancy", DIRECT),
    ("Occupancy_Status", "occupancy", DIRECT),
    ("Occupancy_Count_Sensor", "occupancy", OWNER),
    ("Occupant_Count", "occupancy", OWNER),
    ("Occupancy_Count", "occupancy", OWNER),
    ("Natural_Gas_Flow_Sensor", "gas_input_rate", DIRECT),
    ("Hot_Water_Supply_Temperature_Sensor", "hw_supply_temp", DIRECT),
    ("Hot_Water_Return_Temperature_Sensor", "hw_return_temp", DIRECT),
    ("Hot_Water_Differential_Pressure_Sensor", "hw_diff_press", DIRECT),
    ("Hot_Water_Differential_Pressure_Setpoint", "hw_diff_press_sp", DIRECT),
    ("Hot_Water_Flow_Sensor", "hw_flow", DIRECT),
    ("Hot_Water_Supply_Flow_Sensor", "hw_flow", DIRECT),
    ("Hot_Water_Supply_Flow_Rate", "hw_flow", OWNER),
    ("Chilled_Water_Supply_Temperature_Sensor", "chw_supply_temp", DIRECT),
    ("Chilled_Water_Return_Temperature_Sensor", "chw_return_temp", DIRECT),
    ("Chilled_Water_Supply_Temperature_Setpoint", "chw_supply_temp_sp", DIRECT),
    ("Chilled_Water_Differential_Pressure_Sensor", "chw_diff_press", DIRECT),
    ("Chilled_Water_Differential_Pressure_Setpoint", "chw_diff_press_sp", DIRECT),
    ("Chilled_Water_Flow_Sensor", "chw_flow", DIRECT),
    ("Chilled_Water_Supply_Flow_Sensor", "chw_flow", DIRECT),
    ("Chilled_Water_Supply_Flow_Rate", "chw_flow", OWNER),
    ("Entering_Condenser_Water_Temperature_Sensor", "cw_supply_temp", DIRECT),
    ("Condenser_Water_Supply_Temperature_Sensor", "cw_supply_temp", DIRECT),
    ("Leaving_Condenser_Water_Temperature_Sensor", "cw_return_temp", DIRECT),
    ("Condenser_Water_Return_Temperature_Sensor", "cw_return_temp", DIRECT),
    ("Condenser_Water_Flow_Sensor", "cw_flow", DIRECT),
    ("Cooling_Coil_Leaving_Air_Temperature_Sensor", "cool_coil_leaving_temp", DIRECT),
    ("Heating_Coil_Leaving_Air_Temperature_Sensor", "heat_coil_leaving_temp", DIRECT),
];

fn is_cool(n: &str) -> bool {
    has_any(n, &["Cooling", "Chilled"])
}

fn is_heat(n: &str) -> bool {
    has_any(n, &["Heating", "Hot", "Reheat"])
}

/// The role a point class gives in its context.
fn judge(class: &str, ctx: &Ctx) -> Verdict {
    let (n, alias) = normalise(class);
    let own = if alias { ALIAS } else { DIRECT };
    let w = words(&n);
    let last = last_word(&n);
    let control = has_any(&n, &["Enable", "Alarm", "Override", "Limit", "Mode", "Setpoint", "Parameter"]);
    // The point's own class first, then the parts it sits on, then the equipment.
    let names: Vec<&str> = std::iter::once(n.as_str()).chain(ctx.scope.iter().map(String::as_str)).collect();
    let by = |i: usize| if i == 0 { (own, false) } else { (ALIAS, true) };
    let from_equip = |k: &[&str]| ctx.camber.is_some_and(|c| k.contains(&c));

    // Valve positions and commands: the coil or valve they sit on names the medium.
    if has(&n, "Valve") && matches!(last, "Sensor" | "Command") && !control {
        for (i, name) in names.iter().enumerate() {
            let (c, via) = by(i);
            if has(name, "Condenser") && has(name, "Bypass") {
                return role("cw_bypass_valve", c, via);
            }
            if has(name, "Preheat") {
                return Verdict::NoRole("a preheat valve: camber has no preheat role".to_owned());
            }
            if is_cool(name) {
                return role("cool_valve", c, via);
            }
            if is_heat(name) {
                return role("heat_valve", c, via);
            }
        }
        if from_equip(&["VAV", "CAV"]) {
            return role("heat_valve", OWNER, true);
        }
        return Verdict::NoRole(format!("ambiguous: the valve on {} names no cooling or heating", ctx.shown));
    }

    // Damper positions and commands.
    if has(&n, "Damper") && matches!(last, "Sensor" | "Command") && !control {
        for (i, name) in names.iter().enumerate() {
            let (c, via) = by(i);
            if has(name, "Outside") {
                return role("oa_damper", c, via);
            }
            if has_any(name, &["Return", "Exhaust", "Relief", "Mixed", "Bypass", "Isolation"]) {
                return Verdict::NoRole("a return, exhaust, relief or bypass damper has no camber role".to_owned());
            }
        }
        if from_equip(&["VAV", "CAV"]) {
            let c = if ctx.parts.iter().any(|p| last_word(p) == "Damper") { ALIAS } else { OWNER };
            return role("damper", c, true);
        }
        return Verdict::NoRole(format!("ambiguous: the damper on {} is not an outside-air or box damper", ctx.shown));
    }

    // Speeds and drive frequencies: a supply fan, a tower (fan) or a water pump.
    if has_any(&n, &["Speed", "Frequency"]) && !control {
        for (i, name) in names.iter().enumerate() {
            let (c, via) = by(i);
            if has(name, "Tower") {
                return role("tower_fan_speed", c, via);
            }
            if has(name, "Pump") {
                if has(name, "Chilled") {
                    return role("chw_pump_speed", c, via);
                }
                if has(name, "Hot") {
                    return role("hw_pump_speed", c, via);
                }
                if has(name, "Condenser") {
                    return Verdict::NoRole("a condenser-water pump speed has no camber role".to_owned());
                }
            }
            if has(name, "Fan") {
                if has(name, "Supply") {
                    return role("supply_fan_speed", c, via);
                }
                if has_any(name, &["Return", "Exhaust", "Relief"]) {
                    return Verdict::NoRole("a return, exhaust or relief fan speed has no camber role".to_owned());
                }
            }
        }
        if from_equip(&["COOLING_TOWER"]) {
            return role("tower_fan_speed", OWNER, true);
        }
        if from_equip(&["FCU"]) {
            return role("supply_fan_speed", OWNER, true);
        }
        return Verdict::NoRole(format!("ambiguous: a speed on {} that names no supply fan, tower or pump", ctx.shown));
    }

    // Run and on/off statuses: a supply fan, a pump or a boiler.
    const RUN_WORDS: &[&str] = &[
        "Fan", "On", "Off", "Run", "Start", "Stop", "Motor", "Supply", "Return", "Exhaust", "Relief", "Pump", "Boiler",
    ];
    if last == "Status" && w.len() > 1 && w[..w.len() - 1].iter().all(|x| RUN_WORDS.contains(x)) {
        for (i, name) in names.iter().enumerate() {
            let (c, via) = by(i);
            if has(name, "Fan") && has_any(name, &["Return", "Exhaust", "Relief"]) {
                return Verdict::NoRole("a return, exhaust or relief fan status has no camber role".to_owned());
            }
            if has(name, "Fan") && has(name, "Supply") {
                return role("supply_fan_status", c, via);
            }
            if has(name, "Pump") {
                return role("pump_status", c, via);
            }
            if has(name, "Boiler") {
                return role("boiler_status", c, via);
            }
        }
        if from_equip(&["AHU", "RTU", "DOAS", "MAU", "FCU"]) {
            return role("supply_fan_status", OWNER, true);
        }
        if from_equip(&["PUMP"]) {
            return role("pump_status", OWNER, true);
        }
        if from_equip(&["BOILER"]) {
            return role("boiler_status", OWNER, true);
        }
        return Verdict::NoRole(format!("ambiguous: a run status on {}", ctx.shown));
    }

    // Electrical power: of a whole piece of plant or a meter, not of a part.
    if has(&n, "Power")
        && last == "Sensor"
        && !has_any(&n, &["Thermal", "Reactive", "Apparent", "Demand", "Peak", "Factor"])
    {
        if !ctx.parts.is_empty() {
            return Verdict::NoRole(format!("ambiguous: the power of a part ({}), not of the equipment", ctx.shown));
        }
        if from_equip(&["CHILLER", "PUMP", "BOILER", "COOLING_TOWER", "HEAT_PUMP", "RTU", "METER"]) {
            return role("power", ALIAS, true);
        }
        return Verdict::NoRole(format!("ambiguous: power measured on {}", ctx.shown));
    }

    // A supply-air temperature on a coil is the coil's leaving temperature.
    if n == "Supply_Air_Temperature_Sensor" {
        if let Some(coil) = ctx.parts.iter().find(|p| last_word(p) == "Coil") {
            if has(coil, "Preheat") {
                return Verdict::NoRole("a preheat coil's leaving temperature has no camber role".to_owned());
            }
            if is_cool(coil) {
                return role("cool_coil_leaving_temp", ALIAS, true);
            }
            if is_heat(coil) {
                return role("heat_coil_leaving_temp", ALIAS, true);
            }
        }
    }

    // Leaving / entering water: supply / return only at the plant end.
    if matches!(n.as_str(), "Leaving_Chilled_Water_Temperature_Sensor" | "Entering_Chilled_Water_Temperature_Sensor")
        || matches!(n.as_str(), "Leaving_Hot_Water_Temperature_Sensor" | "Entering_Hot_Water_Temperature_Sensor")
        || matches!(n.as_str(), "Leaving_Water_Temperature_Sensor" | "Entering_Water_Temperature_Sensor")
    {
        let leaving = has(&n, "Leaving");
        let pick = |s: &'static str, r: &'static str| if leaving { s } else { r };
        if ctx.parts.is_empty() {
            let chilled = has(&n, "Chilled") || (!has(&n, "Hot") && from_equip(&["CHILLER", "CHW_PLANT"]));
            let hot = has(&n, "Hot") || (!has(&n, "Chilled") && from_equip(&["BOILER", "HW_PLANT"]));
            if chilled && from_equip(&["CHILLER", "CHW_PLANT"]) {
                return role(pick("chw_supply_temp", "chw_return_temp"), ALIAS, true);
            }
            if hot && from_equip(&["BOILER", "HW_PLANT"]) {
                return role(pick("hw_supply_temp", "hw_return_temp"), ALIAS, true);
            }
            if !has_any(&n, &["Chilled", "Hot"]) && from_equip(&["COOLING_TOWER"]) {
                return role(pick("cw_supply_temp", "cw_return_temp"), ALIAS, true);
            }
        }
        return Verdict::NoRole(format!(
            "ambiguous: leaving or entering water on {} is supply or return only at a plant",
            ctx.shown
        ));
    }

    // Cooling / heating setpoints that name no zone: a zone's or a terminal's.
    let terminal = ctx.on_zone || from_equip(&["VAV", "CAV", "FCU", "HEAT_PUMP"]);
    match n.as_str() {
        "Cooling_Temperature_Setpoint" | "Air_Temperature_Cooling_Setpoint" if terminal => {
            return role("cool_sp", OWNER, true);
        }
        "Heating_Temperature_Setpoint" | "Air_Temperature_Heating_Setpoint" if terminal => {
            return role("heat_sp", OWNER, true);
        }
        "Air_Flow_Sensor" if from_equip(&["VAV", "CAV", "FCU"]) => return role("airflow", OWNER, true),
        "Air_Flow_Setpoint" if from_equip(&["VAV", "CAV", "FCU"]) => return role("airflow_sp", OWNER, true),
        "Air_Temperature_Sensor" | "Temperature_Sensor" if ctx.on_zone => return role("space_temp", OWNER, true),
        _ => {}
    }

    if let Some((_, r, c)) = DIRECT_ROLES.iter().find(|(k, _, _)| *k == n) {
        return role(r, if alias { c.min(ALIAS) } else { *c }, false);
    }

    Verdict::NoRole(no_role_reason(class, &n))
}

/// Why a class that matched no rule gives no role.
fn no_role_reason(class: &str, n: &str) -> String {
    let why = if has(n, "Alarm") {
        "an alarm: camber has no role for alarms"
    } else if has(n, "Enable") {
        "an enable says whether the equipment may run, not what it does: camber has no role for it"
    } else if has(n, "Unoccupied") {
        "an unoccupied-mode setpoint: camber keeps only the active setpoints"
    } else if has(n, "Mode") {
        "a mode: camber has no role for it"
    } else if has(n, "Override") {
        "an override: camber has no role for it"
    } else if has_any(n, &["Energy", "Usage"]) {
        "a cumulative total: camber has no role for it"
    } else if has(n, "Humidity") && has(n, "Zone") {
        "zone humidity: camber has no role for it"
    } else if has(n, "Temperature")
        && has(n, "Sensor")
        && !has_any(n, &["Supply", "Return", "Leaving", "Entering", "Mixed", "Outside", "Zone"])
    {
        "ambiguous: names no supply or return"
    } else {
        return format!("brick:{class} has no camber role");
    };
    why.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../tests/fixtures/building.ttl");

    fn model() -> Model {
        read_brick(FIXTURE).expect("the fixture parses")
    }

    fn point<'a>(m: &'a Model, key: &str) -> &'a ModelPoint {
        m.points.iter().find(|p| p.keys.iter().any(|k| k == key)).unwrap_or_else(|| panic!("no point {key}"))
    }

    fn equip<'a>(m: &'a Model, id: &str) -> &'a ModelEquip {
        m.equips.iter().find(|e| e.id == id).unwrap_or_else(|| panic!("no equipment {id}"))
    }

    #[test]
    fn every_table_role_is_a_camber_role() {
        for (class, r, _) in DIRECT_ROLES {
            assert!(camber_common::roles::role(r).is_some(), "{class} -> {r}");
        }
        let m = model();
        for p in &m.points {
            if let Some(r) = &p.role {
                assert!(camber_common::roles::role(r).is_some(), "{r}");
            }
        }
    }

    #[test]
    fn equipment_and_classes() {
        let m = model();
        assert_eq!(m.source, "brick");
        let got: Vec<(&str, Option<&str>)> = m.equips.iter().map(|e| (e.id.as_str(), e.class.as_deref())).collect();
        assert_eq!(
            got,
            vec![
                ("AHU-1", Some("AHU")),
                ("CH-1", Some("CHILLER")),
                ("CHW-Plant", Some("CHW_PLANT")),
                ("Lobby", None),
                ("VAV-1-01", Some("VAV")),
                ("VAV-1-02", Some("VAV")),
            ]
        );
        assert_eq!(equip(&m, "AHU-1").evidence, "brick:Air_Handling_Unit");
        assert_eq!(equip(&m, "VAV-1-01").evidence, "brick:Variable_Air_Volume_Box_With_Reheat");
        assert!(equip(&m, "Lobby").evidence.starts_with("brick:HVAC_Zone"));
    }

    #[test]
    fn air_handler_roles_through_parts() {
        let m = model();
        let cases = [
            ("AHU1_SAT", "supply_air_temp", 0.95),
            ("AHU1_SAT_SP", "supply_air_temp_sp", 0.95),
            ("AHU1_OAT", "oat", 0.9),
            ("AHU1_MAT", "mixed_air_temp", 0.95),
            ("AHU1-RAT", "return_air_temp", 0.95),
            ("AHU1_CLG_VLV", "cool_valve", 0.9),
            ("AHU1_HTG_VLV", "heat_valve", 0.9),
            ("AHU1_OAD", "oa_damper", 0.9),
            ("AHU1_SF_STS", "supply_fan_status", 0.9),
            ("AHU1_SF_SPD", "supply_fan_speed", 0.9),
            ("AHU1_DSP", "duct_static", 0.9),
            ("AHU1_CCLT", "cool_coil_leaving_temp", 0.9),
        ];
        for (key, r, c) in cases {
            let p = point(&m, key);
            assert_eq!(p.role.as_deref(), Some(r), "{key}");
            assert_eq!(p.confidence, c, "{key}");
            assert_eq!(p.equip.as_deref(), Some("AHU-1"), "{key}");
        }
        assert_eq!(point(&m, "AHU1_CLG_VLV").evidence, "brick:Valve_Command on brick:Cooling_Coil");
        assert_eq!(point(&m, "AHU1_HTG_VLV").evidence, "brick:Valve_Position_Command on brick:Hot_Water_Valve");
        assert_eq!(point(&m, "AHU1_DSP").evidence, "brick:Discharge_Air_Static_Pressure_Sensor");
    }

    #[test]
    fn keys_and_units() {
        let m = model();
        assert_eq!(point(&m, "AHU1_SAT").keys, vec!["AHU1_SAT", "AHU-1 Supply Air Temp", "ahu1-sat"]);
        // A percent-escaped local name is decoded.
        assert_eq!(point(&m, "AHU1-RAT").keys, vec!["AHU1-RAT"]);
        // The older brick:timeseries form.
        assert_eq!(point(&m, "CH1_CHWST").keys, vec!["CH1_CHWST", "ch1-chwst"]);
        assert_eq!(point(&m, "AHU1_SAT").unit.as_deref(), Some("DEG_F"));
        assert_eq!(point(&m, "CH1_KW").unit.as_deref(), Some("KiloW"));
        assert_eq!(point(&m, "VAV1_01_FLOW").unit.as_deref(), Some("FT3-PER-MIN"));
        assert_eq!(point(&m, "AHU1_DSP").unit.as_deref(), Some("IN_H2O"));
        assert_eq!(point(&m, "AHU1_SF_SPD").unit.as_deref(), Some("%"));
        assert_eq!(point(&m, "AHU1_OAD").unit, None);
        // Sorted by first key.
        let firsts: Vec<&String> = m.points.iter().filter_map(|p| p.keys.first()).collect();
        let mut sorted = firsts.clone();
        sorted.sort();
        assert_eq!(firsts, sorted);
    }

    #[test]
    fn boxes_and_zone_folding() {
        let m = model();
        for (key, r, e) in [
            ("VAV1_01_DAT", "supply_air_temp", "VAV-1-01"),
            ("VAV1_01_FLOW", "airflow", "VAV-1-01"),
            ("VAV1_01_DMP", "damper", "VAV-1-01"),
            ("VAV1_01_CSP", "cool_sp", "VAV-1-01"),
            ("VAV1_01_HSP", "heat_sp", "VAV-1-01"),
            ("VAV1_02_DAT", "supply_air_temp", "VAV-1-02"),
            ("VAV1_02_FLOW", "airflow", "VAV-1-02"),
            ("VAV1_02_DMP", "damper", "VAV-1-02"),
            ("ZN1_01_T", "space_temp", "VAV-1-01"),
            ("ZN1_02_T", "space_temp", "VAV-1-02"),
            ("ZN1_02_CSP", "cool_sp", "VAV-1-02"),
            ("ZN1_02_HSP", "heat_sp", "VAV-1-02"),
            ("LOBBY_T", "space_temp", "Lobby"),
        ] {
            let p = point(&m, key);
            assert_eq!(p.role.as_deref(), Some(r), "{key}");
            assert_eq!(p.equip.as_deref(), Some(e), "{key}");
        }
        // A zone setpoint that names no zone is resolved through the zone: lower confidence.
        assert_eq!(point(&m, "ZN1_02_CSP").confidence, OWNER);
        assert_eq!(point(&m, "ZN1_01_T").confidence, DIRECT);
    }

    #[test]
    fn chiller_and_no_role() {
        let m = model();
        assert_eq!(point(&m, "CH1_CHWST").role.as_deref(), Some("chw_supply_temp"));
        assert_eq!(point(&m, "CH1_CHWRT").role.as_deref(), Some("chw_return_temp"));
        let kw = point(&m, "CH1_KW");
        assert_eq!((kw.role.as_deref(), kw.equip.as_deref()), (Some("power"), Some("CH-1")));
        let en = point(&m, "CH1_EN");
        assert_eq!(en.role, None);
        assert_eq!(en.equip.as_deref(), Some("CH-1"));
        assert!(en.why_not.as_deref().is_some_and(|w| w.contains("enable")), "{:?}", en.why_not);
        let hwt = point(&m, "AHU1_HWT");
        assert_eq!(hwt.role, None);
        assert_eq!(hwt.why_not.as_deref(), Some("ambiguous: names no supply or return"));
        for p in &m.points {
            assert_eq!(p.role.is_none(), p.why_not.is_some(), "{:?}", p.keys);
        }
    }

    #[test]
    fn feeds_between_equipment_only() {
        let m = model();
        let got: Vec<(&str, &str, &str)> =
            m.feeds.iter().map(|f| (f.parent.as_str(), f.child.as_str(), f.evidence.as_str())).collect();
        assert_eq!(
            got,
            vec![
                ("AHU-1", "VAV-1-01", "brick:feeds"),
                ("AHU-1", "VAV-1-02", "brick:isFedBy"),
                ("CHW-Plant", "AHU-1", "brick:feeds"),
            ]
        );
    }

    #[test]
    fn context_rules() {
        let ctx = |scope: &[&str], camber: Option<&'static str>| Ctx {
            scope: scope.iter().map(|s| s.to_string()).collect(),
            parts: &[],
            camber,
            on_zone: false,
            shown: "x".to_owned(),
        };
        let role_of = |class: &str, c: &Ctx| match judge(class, c) {
            Verdict::Role { role, .. } => Some(role),
            Verdict::NoRole(_) => None,
        };
        let pump = ctx(&["Hot_Water_Pump"], Some("PUMP"));
        assert_eq!(role_of("Speed_Command", &pump), Some("hw_pump_speed"));
        assert_eq!(role_of("Run_Status", &pump), Some("pump_status"));
        assert_eq!(role_of("Electrical_Power_Sensor", &pump), Some("power"));
        let tower = ctx(&["Cooling_Tower"], Some("COOLING_TOWER"));
        assert_eq!(role_of("Frequency_Command", &tower), Some("tower_fan_speed"));
        assert_eq!(role_of("Leaving_Water_Temperature_Sensor", &tower), Some("cw_supply_temp"));
        let boiler = ctx(&["Boiler"], Some("BOILER"));
        assert_eq!(role_of("Run_Status", &boiler), Some("boiler_status"));
        assert_eq!(role_of("Leaving_Hot_Water_Temperature_Sensor", &boiler), Some("hw_supply_temp"));
        let ahu = ctx(&["Air_Handling_Unit"], Some("AHU"));
        assert_eq!(role_of("Fan_On_Off_Status", &ahu), Some("supply_fan_status"));
        assert_eq!(role_of("Electrical_Power_Sensor", &ahu), None);
        assert_eq!(role_of("Valve_Position_Sensor", &ahu), None);
        assert_eq!(role_of("Occupied_Mode_Status", &ahu), None);
        let exhaust = ctx(&["Exhaust_Fan", "Air_Handling_Unit"], Some("AHU"));
        assert_eq!(role_of("Fan_Status", &exhaust), None);
        assert_eq!(role_of("Outdoor_Air_Damper_Position_Sensor", &ahu), Some("oa_damper"));
        assert_eq!(role_of("Occupancy_Count_Sensor", &ahu), Some("occupancy"));
        assert_eq!(role_of("Min_Discharge_Air_Flow_Setpoint", &ahu), Some("airflow_min_sp"));
        assert_eq!(role_of("Discharge_Air_Temperature_Setpoint", &ahu), Some("supply_air_temp_sp"));
    }

    #[test]
    fn names_and_namespaces() {
        assert!(brick_name("https://brickschema.org/schema/1.3/Brick#AHU")
            .is_some_and(|(ns, l)| ns == Ns::Brick && l == "AHU"));
        assert!(
            brick_name("https://brickschema.org/schema/Brick/ref#hasTimeseriesId").is_some_and(|(ns, _)| ns == Ns::Ref)
        );
        assert!(brick_name("http://example.com/Brick#AHU").is_none());
        assert_eq!(local_name("urn:b#VAV%2F1"), "VAV/1");
        assert_eq!(clean_id("VAV/1\\2"), "VAV-1-2");
        assert_eq!(normalise("Discharge_Air_Temperature_Sensor"), ("Supply_Air_Temperature_Sensor".to_owned(), true));
        assert_eq!(percent_decode("a%zzb%4"), "a%zzb%4");
    }

    #[test]
    fn zone_evidence_names_the_zone() {
        let m = model();
        assert_eq!(
            point(&m, "ZN1_02_CSP").evidence,
            "brick:Cooling_Temperature_Setpoint on brick:HVAC_Zone (on zone ZN1_02, which only VAV-1-02 feeds)"
        );
        assert_eq!(
            point(&m, "ZN1_01_T").evidence,
            "brick:Zone_Air_Temperature_Sensor (on zone Zone 1-01, which only VAV-1-01 feeds)"
        );
        assert_eq!(point(&m, "LOBBY_T").evidence, "brick:Zone_Air_Temperature_Sensor");
    }

    const HEAD: &str = "@prefix brick: <https://brickschema.org/schema/1.3/Brick#> .\n@prefix b: <urn:b#> .\n";

    #[test]
    fn versioned_namespace_owners_and_cycles() {
        let ttl = format!(
            "{HEAD}\
             b:ahu a brick:AHU ; brick:hasPart b:fan .\n\
             b:fan a brick:Discharge_Fan ; brick:hasPart b:ahu .\n\
             b:ef a brick:Exhaust_Fan ; brick:hasPoint b:ef_sts .\n\
             b:ef_sts a brick:Fan_Status .\n\
             b:fan_sts a brick:Fan_On_Off_Status ; brick:isPointOf b:fan .\n\
             b:z a brick:Room .\n\
             b:v1 a brick:VAV ; brick:feeds b:z .\n\
             b:v2 a brick:FCU ; brick:feeds b:z .\n\
             b:zt a brick:Zone_Air_Temperature_Sensor ; brick:isPointOf b:z, b:v1 .\n\
             b:zt2 a brick:Zone_Air_Temperature_Sensor ; brick:isPointOf b:z .\n\
             b:loose a brick:Outside_Air_Temperature_Sensor .\n"
        );
        let m = read_brick(&ttl).expect("parses");
        let fan = point(&m, "fan_sts");
        assert_eq!((fan.role.as_deref(), fan.equip.as_deref()), (Some("supply_fan_status"), Some("ahu")));
        // A standalone exhaust fan is its own equipment with no camber class, and its status no role.
        let ef = point(&m, "ef_sts");
        assert_eq!((ef.role.as_deref(), ef.equip.as_deref()), (None, Some("ef")));
        assert_eq!(equip(&m, "ef").class, None);
        // An owner that is equipment wins over the zone.
        assert_eq!(point(&m, "zt").equip.as_deref(), Some("v1"));
        // Two terminals feed the room: the room keeps its points.
        assert_eq!(point(&m, "zt2").equip.as_deref(), Some("z"));
        let loose = point(&m, "loose");
        assert_eq!((loose.role.as_deref(), loose.equip.as_deref()), (Some("oat"), None));
        assert_eq!(equip(&m, "v2").class.as_deref(), Some("FCU"));
        assert!(m.feeds.is_empty(), "{:?}", m.feeds);
    }

    #[test]
    fn duplicate_labels_get_distinct_ids() {
        let ttl = format!(
            "{HEAD}@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n\
             b:p1 a brick:Pump ; rdfs:label \"P/1\" ; brick:hasPoint b:s1 .\n\
             b:p2 a brick:Chilled_Water_Pump ; rdfs:label \"P/1\" ; brick:hasPoint b:s2 .\n\
             b:s1 a brick:Speed_Command .\n\
             b:s2 a brick:Speed_Command .\n"
        );
        let m = read_brick(&ttl).expect("parses");
        let ids: Vec<&str> = m.equips.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, vec!["P-1", "p2"]);
        assert_eq!(point(&m, "s1").role, None);
        assert_eq!(point(&m, "s2").role.as_deref(), Some("chw_pump_speed"));
        assert_eq!(point(&m, "s2").equip.as_deref(), Some("p2"));
    }

    #[test]
    fn inferred_superclasses() {
        let ttl = format!(
            "{HEAD}\
             b:cav a brick:Terminal_Unit, brick:Constant_Air_Volume_Box, brick:Equipment ; brick:hasPoint b:en, b:t .\n\
             b:en a brick:Point, brick:Command, brick:Enable_Command .\n\
             b:t a brick:Point, brick:Temperature_Sensor, brick:Supply_Air_Temperature_Sensor, \
             brick:Discharge_Air_Temperature_Sensor .\n"
        );
        let m = read_brick(&ttl).expect("parses");
        assert_eq!(equip(&m, "cav").class.as_deref(), Some("CAV"));
        assert_eq!(equip(&m, "cav").evidence, "brick:Constant_Air_Volume_Box");
        let en = point(&m, "en");
        assert_eq!(en.evidence, "brick:Enable_Command");
        assert!(en.why_not.as_deref().is_some_and(|w| w.starts_with("an enable")));
        let t = point(&m, "t");
        assert_eq!((t.role.as_deref(), t.confidence), (Some("supply_air_temp"), DIRECT));
        assert_eq!(t.evidence, "brick:Supply_Air_Temperature_Sensor");
    }

    #[test]
    fn no_panic_on_truncated_input() {
        let mut cut = 0;
        while cut < FIXTURE.len() {
            if FIXTURE.is_char_boundary(cut) {
                let _ = read_brick(&FIXTURE[..cut]);
            }
            cut += 41;
        }
    }

    #[test]
    fn errors() {
        let broken = "@prefix brick: <https://brickschema.org/schema/Brick#> .\n\n<urn:a> a brick:AHU ;\n  brick:hasPoint <urn:p\n";
        let e = read_brick(broken).unwrap_err();
        assert!(e.starts_with("the Brick model is not valid Turtle (line 4"), "{e}");
        assert!(!e.contains('\n'));
        let no_points = "@prefix brick: <https://brickschema.org/schema/Brick#> .\n<urn:a> a brick:AHU .\n";
        assert_eq!(read_brick(no_points).unwrap_err(), "the Brick model names no points");
        assert_eq!(read_brick("").unwrap_err(), "the Brick model names no points");
    }
}
