//! The rule engine's types: the frame a rule reads, the parameters it takes, the findings it
//! returns.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::fleet::{Fleet, FleetFinding, Member};

/// One equipment's signals on shared timestamps (NaN where a role has no sample), sorted by
/// time with one row per timestamp.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    pub ts: Vec<i64>,
    pub cols: BTreeMap<String, Vec<f64>>,
}

impl Frame {
    /// A frame from rows that may be out of order or repeat a timestamp: sorted by time, the
    /// last row of a repeated timestamp kept (per role, its last non-NaN value).
    pub fn from_rows(ts: &[i64], cols: &[(&str, Vec<f64>)]) -> Frame {
        let mut order: Vec<usize> = (0..ts.len()).collect();
        order.sort_by_key(|&i| (ts[i], i));
        let mut out = Frame { ts: Vec::with_capacity(ts.len()), cols: BTreeMap::new() };
        let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(ts.len()); cols.len()];
        for &i in &order {
            if out.ts.last() != Some(&ts[i]) {
                out.ts.push(ts[i]);
                for c in columns.iter_mut() {
                    c.push(f64::NAN);
                }
            }
            let k = out.ts.len() - 1;
            for (c, (_, v)) in columns.iter_mut().zip(cols) {
                if !v[i].is_nan() {
                    c[k] = v[i];
                }
            }
        }
        for ((name, _), c) in cols.iter().zip(columns) {
            out.cols.insert(name.to_string(), c);
        }
        out
    }

    /// A role's column, if the frame has it and it holds any sample.
    pub fn col(&self, role: &str) -> Option<&[f64]> {
        self.cols.get(role).filter(|c| c.iter().any(|v| !v.is_nan())).map(Vec::as_slice)
    }

    /// A role the engine has checked present before the rule runs (a required input): its
    /// column. Absent, it is a defect (the rule reads as required a role its spec does not
    /// require), and this panics naming it.
    pub fn required(&self, role: &str) -> &[f64] {
        self.col(role).unwrap_or_else(|| {
            panic!("required input '{role}' is absent: the engine checks a rule's required inputs before it runs")
        })
    }

    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// The typical spacing of the samples (ns): the median gap between neighbours; `None` with
    /// fewer than two samples.
    pub fn typical_step(&self) -> Option<i64> {
        // a regular trend (the common case) needs no selection
        if let [a, b, ..] = self.ts[..] {
            let step = b.saturating_sub(a);
            if evenly_spaced(&self.ts, step) {
                return Some(step);
            }
        }
        let mut d: Vec<i64> = self.ts.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
        if d.is_empty() {
            return None;
        }
        // selection, not a sort: the same element in linear time
        let mid = d.len() / 2;
        Some(*d.select_nth_unstable(mid).1)
    }

    /// How long each sample stands for, in hours: the spacing to the next sample, capped at
    /// 1.5 times the frame's typical spacing (so a gap is not counted as judged time).
    pub fn weights_hours(&self) -> Vec<f64> {
        let n = self.ts.len();
        if n == 0 {
            return Vec::new();
        }
        let typical = self.typical_step().unwrap_or(NS_PER_HOUR);
        let cap = typical as f64 * 1.5;
        let hours = |d: i64| if (d as f64) < cap { d as f64 } else { cap } / 3_600_000_000_000.0;
        // sixteen steps at a time, as count_where takes its values
        let mut w = vec![0.0; n];
        let (from, to) = (&self.ts[..n - 1], &self.ts[1..]);
        let ((a, a_rest), (b, b_rest)) = (from.as_chunks::<16>(), to.as_chunks::<16>());
        let (out, out_rest) = w[..n - 1].as_chunks_mut::<16>();
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            for k in 0..16 {
                o[k] = hours(y[k].saturating_sub(x[k]));
            }
        }
        for ((o, p), q) in out_rest.iter_mut().zip(a_rest).zip(b_rest) {
            *o = hours(q.saturating_sub(*p));
        }
        w[n - 1] = hours(typical);
        w
    }
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Ok,
    Info,
    Warn,
    Fault,
}

/// A parameter value.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamValue {
    Number(f64),
    Flag(Option<bool>),
    /// One of the spec's `choices`; empty: unset, when the spec's default is (a choice whose
    /// default is null, such as cohort_airflow's `normalise`). A number parameter whose spec
    /// lists `choices` may take one of them instead of a number (`fan_heat_f: "auto"`).
    Choice(String),
    /// A list of numbers, each within the spec's range.
    List(Vec<f64>),
    /// Named numbers (a manufacturer's targets: `{"subcooling_f": 10, "superheat_f": 8}`),
    /// each name one of the spec's `choices`.
    Map(BTreeMap<String, f64>),
    /// A list of names (roles), each one of the spec's `choices`.
    Names(Vec<String>),
}

impl ParamValue {
    /// The value as JSON for a caller: an unset number (NaN) or choice (empty) is null.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ParamValue::Number(x) if x.is_nan() => serde_json::Value::Null,
            ParamValue::Number(x) => serde_json::json!(x),
            ParamValue::Flag(f) => serde_json::json!(f),
            // an unset choice (a box type nobody declared) is null
            ParamValue::Choice(c) if c.is_empty() => serde_json::Value::Null,
            ParamValue::Choice(c) => serde_json::json!(c),
            // an empty list is an unset one (a month-by-month value given for no month)
            ParamValue::List(l) if l.is_empty() => serde_json::Value::Null,
            ParamValue::List(l) => serde_json::json!(l),
            ParamValue::Map(m) if m.is_empty() => serde_json::Value::Null,
            ParamValue::Map(m) => serde_json::json!(m),
            ParamValue::Names(n) => serde_json::json!(n),
        }
    }
}

/// One tunable parameter of a rule.
#[derive(Clone, Debug, Serialize)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: ParamValue,
    pub unit: &'static str,
    /// Inclusive bounds of a number.
    pub range: Option<(f64, f64)>,
    /// The values a choice may take; for a number, the words it may take instead of one
    /// (`"auto"`); for named numbers, the names.
    pub choices: &'static [&'static str],
    /// Why the default is what it is.
    pub basis: &'static str,
    /// How to set it for a real building.
    pub calibrate: &'static str,
}

impl ParamSpec {
    /// A number with an inclusive range.
    pub fn number(
        name: &'static str,
        default: f64,
        unit: &'static str,
        range: (f64, f64),
        basis: &'static str,
        calibrate: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            name,
            default: ParamValue::Number(default),
            unit,
            range: Some(range),
            choices: &[],
            basis,
            calibrate,
        }
    }

    /// An on/off flag.
    pub fn flag(name: &'static str, default: bool, basis: &'static str, calibrate: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            default: ParamValue::Flag(Some(default)),
            unit: "flag",
            range: None,
            choices: &[],
            basis,
            calibrate,
        }
    }
}

/// What a rule reads.
#[derive(Clone, Debug, Serialize)]
pub struct Inputs {
    pub required: &'static [&'static str],
    pub optional: &'static [&'static str],
    /// Optional inputs the verdict depends on, as alternatives in order: the first one present
    /// gates the check like a required input ("oa_airflow" else "oa_damper"); `a+b` is an
    /// alternative that needs both ("wetbulb_temp" else "oat+outdoor_rh").
    pub gating: &'static [&'static str],
    /// Groups of optional inputs the rule needs one of (either valve of a coil pair): a
    /// present member gates the check like a required input.
    pub one_of: &'static [&'static [&'static str]],
    /// Whether the rule cannot run without one of its `gating` alternatives (a tower's wet
    /// bulb): the engine skips it when none is present. Otherwise the rule runs without them
    /// and says so in its finding.
    pub needs_gating: bool,
}

impl Inputs {
    /// Every role the rule reads, each once: required, optional, then group members.
    pub fn roles(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        let gating = self.gating.iter().flat_map(|g| g.split('+'));
        for r in self
            .required
            .iter()
            .copied()
            .chain(self.optional.iter().copied())
            .chain(self.one_of.iter().flat_map(|g| g.iter().copied()))
            .chain(gating)
        {
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }

    /// The roles that gate the check on a frame with the roles `present`: the required ones,
    /// the present members of its one-of groups, and the first present alternative of its
    /// gating inputs.
    pub fn gated(&self, present: impl Fn(&str) -> bool) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self.required.to_vec();
        out.extend(self.one_of.iter().flat_map(|g| g.iter().copied()).filter(|r| present(r)));
        if let Some(alt) = self.gating.iter().find(|alt| alt.split('+').all(&present)) {
            out.extend(alt.split('+'));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// What a rule needs present on a frame before it runs. The engine checks it before calling the
/// rule's `evaluate` and answers [`Outcome::Skipped`] naming what is missing, so a rule does not
/// check its inputs itself. [`Needs::of`] reads it from the spec's [`Inputs`]; a rule whose
/// needs depend on its parameters (which actuators it judges, which charge metric) gives
/// [`Rule::needs`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Needs {
    /// Every one of these.
    pub required: Vec<&'static str>,
    /// One member of each group.
    pub one_of: Vec<Vec<&'static str>>,
    /// One of these alternatives (`a+b`: both), when not empty.
    pub any_of: Vec<&'static str>,
}

impl Needs {
    /// The needs the spec's inputs declare: its required inputs, its one-of groups, and its
    /// gating alternatives when it needs one of them.
    pub fn of(inputs: &Inputs) -> Needs {
        Needs {
            required: inputs.required.to_vec(),
            one_of: inputs.one_of.iter().map(|g| g.to_vec()).collect(),
            any_of: if inputs.needs_gating { inputs.gating.to_vec() } else { Vec::new() },
        }
    }

    /// What the frame lacks, as a skip names it (empty: nothing). The missing required inputs,
    /// each by name; when they are all present, each group with no member present ("a or b",
    /// "a, b or c", "one of ..." beyond four) and the gating alternatives when none is present
    /// ("a or b"; "a, or b and c" when an alternative needs two).
    pub fn missing(&self, frame: &Frame) -> Vec<String> {
        let has = |r: &str| frame.col(r).is_some();
        let required: Vec<String> = self.required.iter().filter(|r| !has(r)).map(|r| r.to_string()).collect();
        if !required.is_empty() {
            return required;
        }
        let mut out: Vec<String> =
            self.one_of.iter().filter(|g| !g.iter().any(|r| has(r))).map(|g| spell_or(g)).collect();
        if !self.any_of.is_empty() && !self.any_of.iter().any(|alt| alt.split('+').all(has)) {
            let alts: Vec<String> = self.any_of.iter().map(|a| a.replace('+', " and ")).collect();
            out.push(if self.any_of.iter().any(|a| a.contains('+')) { alts.join(", or ") } else { spell_or(&alts) });
        }
        out
    }
}

/// "a", "a or b", "a, b or c"; "one of a, b, ..." for more than four names.
fn spell_or<S: AsRef<str>>(names: &[S]) -> String {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => one.to_string(),
        many if many.len() > 4 => format!("one of {}", many.join(", ")),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A rule as the engine runs it: its declaration, its needs when they depend on its parameters,
/// and its judgement. Each rule module declares `pub const RULE: Rule` and `rules::all` lists
/// them.
#[derive(Clone, Copy)]
pub struct Rule {
    pub spec: fn() -> RuleSpec,
    /// The inputs a run needs under these parameters, when not simply the spec's
    /// ([`Needs::of`]).
    pub needs: Option<fn(&RuleSpec, &Params) -> Needs>,
    /// The rule's judgement. Only the engine calls it, through [`Rule::evaluate`] or
    /// [`Rule::evaluate_fleet`].
    pub judge: Judge,
}

/// How a rule judges: one equipment's frame at a time, or a fleet of them together.
#[derive(Clone, Copy)]
pub enum Judge {
    /// One equipment that has what the rule needs.
    Equip(fn(&RuleSpec, &Frame, &Params) -> Outcome),
    /// The members of a fleet that have what the rule needs, with their groups
    /// ([`crate::fleet`]).
    Fleet(fn(&RuleSpec, &Fleet, &Params) -> Vec<FleetFinding>),
}

impl Rule {
    /// A rule judging one equipment at a time, whose needs are its spec's inputs.
    pub const fn new(spec: fn() -> RuleSpec, judge: fn(&RuleSpec, &Frame, &Params) -> Outcome) -> Rule {
        Rule { spec, needs: None, judge: Judge::Equip(judge) }
    }

    /// A fleet rule: it judges the members of a fleet together, each member needing the
    /// spec's inputs.
    pub const fn fleet(spec: fn() -> RuleSpec, judge: fn(&RuleSpec, &Fleet, &Params) -> Vec<FleetFinding>) -> Rule {
        Rule { spec, needs: None, judge: Judge::Fleet(judge) }
    }

    /// The rule with needs that depend on its parameters.
    pub const fn with_needs(self, needs: fn(&RuleSpec, &Params) -> Needs) -> Rule {
        Rule { needs: Some(needs), ..self }
    }

    /// Whether the rule judges fleets.
    pub fn is_fleet(&self) -> bool {
        matches!(self.judge, Judge::Fleet(_))
    }

    /// What the rule needs on a frame with these parameters.
    pub fn needs_for(&self, spec: &RuleSpec, params: &Params) -> Needs {
        match self.needs {
            Some(f) => f(spec, params),
            None => Needs::of(&spec.inputs),
        }
    }

    /// Evaluate one equipment's frame: skipped, naming what is missing, when the frame lacks
    /// what the rule needs; else the rule's findings. `spec` is `(self.spec)()`, made once per
    /// run by the caller. A fleet rule judges the frame as a fleet of one unit.
    pub fn evaluate(&self, spec: &RuleSpec, frame: &Frame, params: &Params) -> Outcome {
        let missing = self.needs_for(spec, params).missing(frame);
        if !missing.is_empty() {
            return Outcome::Skipped { missing };
        }
        match self.judge {
            Judge::Equip(judge) => judge(spec, frame, params),
            Judge::Fleet(judge) => {
                let one = Fleet::new(vec![Member { equip: "unit", class: "", parent: None, frame }]);
                Outcome::Findings(judge(spec, &one, params).into_iter().map(|f| f.finding).collect())
            }
        }
    }

    /// Evaluate a fleet whose members each have what the rule needs (the caller leaves out
    /// the others, as skips). An equipment rule gives no finding here.
    pub fn evaluate_fleet(&self, spec: &RuleSpec, fleet: &Fleet, params: &Params) -> Vec<FleetFinding> {
        match self.judge {
            Judge::Fleet(judge) => judge(spec, fleet, params),
            Judge::Equip(_) => Vec::new(),
        }
    }
}

/// A rule's declaration.
#[derive(Clone, Debug, Serialize)]
pub struct RuleSpec {
    pub id: &'static str,
    /// The equipment families the rule is written for; none: any equipment with its inputs.
    pub families: &'static [&'static str],
    pub inputs: Inputs,
    pub params: Vec<ParamSpec>,
    /// What the samples a rule judges are ("fan-on samples").
    pub judged_basis: &'static str,
}

/// Something that declares tunable parameters: a rule, a drift detector.
pub trait ParamDecl {
    /// The id named in error messages.
    fn decl_id(&self) -> &str;
    fn param_specs(&self) -> &[ParamSpec];
}

impl ParamDecl for RuleSpec {
    fn decl_id(&self) -> &str {
        self.id
    }
    fn param_specs(&self) -> &[ParamSpec] {
        &self.params
    }
}

/// Parameter values a run uses: overrides on top of the rule's defaults.
#[derive(Clone, Debug, Default)]
pub struct Params {
    pub values: BTreeMap<String, ParamValue>,
    /// Overrides for some equipment only, keyed by a pattern on the equipment id (`*` any
    /// run of characters, `?` one); for each parameter, the first pattern that matches an
    /// equipment and sets it applies.
    pub by_equip: Vec<EquipOverride>,
}

/// A pattern on equipment ids and the parameter values the equipment it matches runs with.
pub type EquipOverride = (String, BTreeMap<String, ParamValue>);

impl Params {
    /// The values one equipment runs with: these, with, for each parameter, the value of the
    /// first matching pattern that sets it on top (so `equips: {"VAV-1": {...}}` and a
    /// per-box `heat_sp_f: {"VAV-1": 70}` both apply).
    pub fn for_equip(&self, equip: &str) -> Params {
        let mut values = self.values.clone();
        let mut set: Vec<&str> = Vec::new();
        for (_, o) in self.by_equip.iter().filter(|(pat, _)| wildmatch::WildMatch::new(pat).matches(equip)) {
            for (k, v) in o {
                if !set.contains(&k.as_str()) {
                    set.push(k);
                    values.insert(k.clone(), v.clone());
                }
            }
        }
        Params { values, by_equip: Vec::new() }
    }

    /// These overrides with `other`'s on top (a call's on a config's); per-equipment
    /// overrides of `other` come first, so they win for the equipment they match.
    pub fn overlay(&self, other: &Params) -> Params {
        let mut values = self.values.clone();
        values.extend(other.values.clone());
        let by_equip = other.by_equip.iter().chain(&self.by_equip).cloned().collect();
        Params { values, by_equip }
    }

    /// The value of the declared parameter `name`: the override, else the spec's default. The
    /// one lookup every typed accessor below goes through. A name the spec does not declare is
    /// a defect of the rule that reads it (a mistyped name), never a silent NaN or empty value:
    /// it panics naming the rule and the name (in a component, the call's `internal`). A caller
    /// naming an unknown parameter is refused before any rule runs ([`Params::check`]).
    pub fn get<'a>(&'a self, spec: &'a impl ParamDecl, name: &str) -> &'a ParamValue {
        let Some(p) = spec.param_specs().iter().find(|p| p.name == name) else {
            panic!("{} reads the parameter '{name}', which it does not declare", spec.decl_id());
        };
        self.values.get(name).unwrap_or(&p.default)
    }

    fn wrong_kind(spec: &impl ParamDecl, name: &str, want: &str) -> ! {
        panic!("{} reads the parameter '{name}' as {want}, which it does not declare it to be", spec.decl_id())
    }

    /// The names `name`.
    pub fn names(&self, spec: &impl ParamDecl, name: &str) -> Vec<String> {
        match self.get(spec, name) {
            ParamValue::Names(n) => n.clone(),
            _ => Self::wrong_kind(spec, name, "names"),
        }
    }

    /// The named numbers `name` (empty when unset).
    pub fn map(&self, spec: &impl ParamDecl, name: &str) -> BTreeMap<String, f64> {
        match self.get(spec, name) {
            ParamValue::Map(m) => m.clone(),
            _ => Self::wrong_kind(spec, name, "named numbers"),
        }
    }

    /// The number `name` (NaN: unset, the rule's fallback applies).
    pub fn number(&self, spec: &impl ParamDecl, name: &str) -> f64 {
        match self.get(spec, name) {
            ParamValue::Number(x) => *x,
            _ => Self::wrong_kind(spec, name, "a number"),
        }
    }

    /// The choice `name` (empty: unset, for a choice whose default is unset).
    pub fn choice(&self, spec: &impl ParamDecl, name: &str) -> String {
        match self.get(spec, name) {
            ParamValue::Choice(c) => c.clone(),
            _ => Self::wrong_kind(spec, name, "a choice"),
        }
    }

    /// The list `name` (empty: unset).
    pub fn list(&self, spec: &impl ParamDecl, name: &str) -> Vec<f64> {
        match self.get(spec, name) {
            ParamValue::List(v) => v.clone(),
            _ => Self::wrong_kind(spec, name, "a list"),
        }
    }

    /// The word a number parameter is set to instead of a number (`Some("auto")`), one of its
    /// spec's `choices`; `None` when it holds a number (read it with [`Params::number`]).
    pub fn word(&self, spec: &impl ParamDecl, name: &str) -> Option<String> {
        match self.get(spec, name) {
            ParamValue::Choice(c) => Some(c.clone()),
            ParamValue::Number(_) => None,
            _ => Self::wrong_kind(spec, name, "a number or a word"),
        }
    }

    /// The flag `name` (`None`: unknown).
    pub fn flag(&self, spec: &impl ParamDecl, name: &str) -> Option<bool> {
        match self.get(spec, name) {
            ParamValue::Flag(f) => *f,
            _ => Self::wrong_kind(spec, name, "a flag"),
        }
    }

    /// The overrides outside their parameter's sensible range, each as a caveat. A range is
    /// advice, as the reference's (its own dataset templates go below some): a value outside
    /// it runs, and every finding that used it says so.
    pub fn outside_range(&self, spec: &impl ParamDecl) -> Vec<String> {
        let mut out = Vec::new();
        for (k, v) in &self.values {
            let Some((lo, hi)) = spec.param_specs().iter().find(|p| p.name == k).and_then(|p| p.range) else {
                continue;
            };
            let numbers: Vec<f64> = match v {
                ParamValue::Number(x) => vec![*x],
                ParamValue::List(l) => l.clone(),
                ParamValue::Map(m) => m.iter().filter(|(n, _)| n.as_str() != "tolerance_f").map(|(_, x)| *x).collect(),
                _ => Vec::new(),
            };
            if let Some(x) = numbers.iter().find(|x| !x.is_nan() && !(lo..=hi).contains(*x)) {
                out.push(format!(
                    "{k} = {x} is outside its sensible range {lo} to {hi} (rule_params): a setting to confirm"
                ));
            }
        }
        out
    }

    /// Check overrides against the spec: known names, the right kinds, choices among the
    /// spec's (numbers outside their range are not refused: see [`Params::outside_range`]).
    pub fn check(&self, spec: &impl ParamDecl) -> Result<(), String> {
        let id = spec.decl_id();
        for (k, v) in self.values.iter().chain(self.by_equip.iter().flat_map(|(_, o)| o.iter())) {
            let Some(p) = spec.param_specs().iter().find(|p| p.name == k) else {
                return Err(format!("rule {id} has no parameter '{k}'"));
            };
            match (v, &p.default, p.range) {
                // an empty choice is unset: allowed where the default is unset too
                (ParamValue::Choice(c), ParamValue::Choice(d), _)
                    if !(p.choices.contains(&c.as_str()) || (c.is_empty() && d.is_empty())) =>
                {
                    return Err(format!("{id}.{k} must be one of {}, got '{c}'", p.choices.join(", ")));
                }
                // a number that may be one of its words instead ("auto")
                (ParamValue::Choice(c), ParamValue::Number(_), _) if p.choices.contains(&c.as_str()) => {}
                // a number whose default is one of its words (chw_pump_dp_reset's near_min_pct)
                (ParamValue::Number(_), ParamValue::Choice(_), Some(_)) => {}
                (ParamValue::Map(m), ParamValue::Map(_), _)
                    if m.keys().any(|n| !p.choices.contains(&n.as_str())) || m.values().any(|x| !x.is_finite()) =>
                {
                    return Err(format!("{id}.{k} takes numbers named {}", p.choices.join(", ")));
                }
                (ParamValue::Names(n), ParamValue::Names(_), _)
                    if n.iter().any(|x| !p.choices.contains(&x.as_str())) =>
                {
                    return Err(format!("{id}.{k} takes names among {}", p.choices.join(", ")));
                }
                (ParamValue::Names(_), ParamValue::Names(_), _)
                | (ParamValue::Map(_), ParamValue::Map(_), _)
                | (ParamValue::List(_), ParamValue::List(_), _)
                | (ParamValue::Number(_), ParamValue::Number(_), _)
                | (ParamValue::Flag(_), ParamValue::Flag(_), _)
                | (ParamValue::Choice(_), ParamValue::Choice(_), _) => {}
                _ => return Err(format!("{id}.{k} has the wrong type")),
            }
        }
        Ok(())
    }
}

/// A named sub-condition a finding judged, with its own judged samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Condition {
    pub name: String,
    pub flagged: Vec<u32>,
    pub judged: usize,
    pub judged_hours: f64,
    pub flagged_hours: f64,
}

/// The metric in which a rule whose flagged samples are instants (a control loop's direction
/// reversals) counts them: finding_detail reports such events apart from hours, since an event
/// stands for no stretch of time.
pub const EVENTS_METRIC: &str = "events";

/// What a rule found on one equipment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub summary: String,
    pub caveats: Vec<String>,
    pub metrics: BTreeMap<String, f64>,
    /// Indices (into the frame) of the flagged samples.
    pub flagged: Vec<u32>,
    /// How many samples the rule judged, and what they are.
    pub judged: usize,
    pub judged_basis: &'static str,
    pub conditions: Vec<Condition>,
}

impl Finding {
    /// A finding of the rule `spec` with nothing flagged, judged or measured yet; the `with_`
    /// methods add the rest.
    pub fn new(spec: &RuleSpec, severity: Severity, summary: impl Into<String>) -> Finding {
        Finding::of(spec.id, spec.judged_basis, severity, summary)
    }

    /// A finding of a rule or drift detector named by its id and what its judged samples are.
    pub fn of(
        rule: &'static str,
        judged_basis: &'static str,
        severity: Severity,
        summary: impl Into<String>,
    ) -> Finding {
        Finding {
            rule,
            severity,
            summary: summary.into(),
            caveats: Vec::new(),
            metrics: BTreeMap::new(),
            flagged: Vec::new(),
            judged: 0,
            judged_basis,
            conditions: Vec::new(),
        }
    }

    /// With these caveats.
    pub fn with_caveats(self, caveats: Vec<String>) -> Finding {
        Finding { caveats, ..self }
    }

    /// With these metrics.
    pub fn with_metrics(self, metrics: BTreeMap<String, f64>) -> Finding {
        Finding { metrics, ..self }
    }

    /// With these flagged samples (indices into the frame).
    pub fn with_flagged(self, flagged: Vec<u32>) -> Finding {
        Finding { flagged, ..self }
    }

    /// Having judged this many samples.
    pub fn with_judged(self, judged: usize) -> Finding {
        Finding { judged, ..self }
    }

    /// With these sub-conditions.
    pub fn with_conditions(self, conditions: Vec<Condition>) -> Finding {
        Finding { conditions, ..self }
    }

    /// The answer when no sample qualified: an info finding that says so (not a pass).
    pub fn not_judged(spec: &RuleSpec, why: &str) -> Finding {
        Finding::unjudged(spec.id, spec.judged_basis, why, "no sample qualified; this is not a pass")
    }

    /// An info finding that judged nothing, saying why and what that means (a rule's or a
    /// drift detector's).
    pub fn unjudged(rule: &'static str, judged_basis: &'static str, why: &str, caveat: &str) -> Finding {
        Finding::of(rule, judged_basis, Severity::Info, format!("not judged: {why}"))
            .with_caveats(vec![caveat.to_string()])
    }
}

/// Why a run could not be made, by whose fault: a caller maps each kind to its own error code.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// The request names rules the run config does not run (the caller's `not_found` on `rules`).
    UnknownRules { unknown: Vec<String>, known: Vec<String> },
    /// The request's parameters do not check against a rule's spec: an unknown name, the wrong
    /// kind, a choice off the list (the caller's `invalid_params`).
    BadParams(String),
    /// Something the engine itself should have prevented, such as a checked run config whose
    /// parameters no longer check (the caller's `internal`).
    Defect(String),
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::UnknownRules { unknown, known } => {
                let unknown: Vec<String> = unknown.iter().map(|u| format!("'{u}'")).collect();
                write!(f, "the run config runs no rule {}; it runs {}", unknown.join(", "), known.join(", "))
            }
            EngineError::BadParams(m) | EngineError::Defect(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EngineError {}

/// A rule's answer for one equipment.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Findings(Vec<Finding>),
    /// Not run: these inputs are missing.
    Skipped {
        missing: Vec<String>,
    },
}

/// The severity of a share (percent) against warn and fault levels (percent).
pub fn severity_of(pct: f64, warn: f64, fault: f64) -> Severity {
    if pct >= fault {
        Severity::Fault
    } else if pct >= warn {
        Severity::Warn
    } else {
        Severity::Ok
    }
}

/// Whether the supply fan runs at each sample (`None` where its signal has no value), and which
/// signal said so: status, else speed above 1 % (a 0-1 scale is read as a fraction), else
/// airflow above 5 % of its own 95th percentile. `None` overall when the frame has none of them.
pub fn fan_on(frame: &Frame) -> Option<(Vec<Option<bool>>, &'static str)> {
    let known = |v: f64, f: &dyn Fn(f64) -> bool| (!v.is_nan()).then(|| f(v));
    if let Some(s) = frame.col("supply_fan_status") {
        return Some((s.iter().map(|&v| known(v, &on)).collect(), "fan status"));
    }
    if let Some(s) = frame.col("supply_fan_speed") {
        let top = span(s).1;
        let scale = if top <= 1.0 { 100.0 } else { 1.0 };
        return Some((s.iter().map(|&v| known(v, &|x| x * scale > 1.0)).collect(), "fan speed"));
    }
    let a = frame.col("airflow")?;
    let mut seen: Vec<f64> = a.iter().copied().filter(|v| !v.is_nan()).collect();
    seen.sort_by(f64::total_cmp);
    let p95 = seen.get((seen.len() as f64 * 0.95) as usize).or(seen.last()).copied().unwrap_or(f64::NAN);
    Some((a.iter().map(|&v| known(v, &|x| x > 0.05 * p95)).collect(), "airflow proxy"))
}

/// A position or command on a 0-100 % scale: a column whose samples all lie within 0-1.5 (and
/// none below -0.01) is read as a 0-1 fraction and scaled by 100; any other is returned as is.
pub fn as_percent(col: &[f64]) -> Vec<f64> {
    let scale = crate::economizer::percent_scale(col);
    col.iter().map(|v| v * scale).collect()
}

/// Whether a naive local timestamp falls in a weekly schedule: one of `days` (Monday = 0),
/// from `start_hour` up to (not including) `end_hour`, hours as fractions of the day.
pub fn in_schedule(ts: i64, start_hour: f64, end_hour: f64, days: &[f64]) -> bool {
    let hour = ts.rem_euclid(24 * NS_PER_HOUR) as f64 / NS_PER_HOUR as f64;
    let day = weekday(ts) as f64;
    days.contains(&day) && hour >= start_hour && hour < end_hour
}

/// The occupied-schedule parameters (`start_hour`, `end_hour`, `occupied_days`) of the rules
/// that fall back to a weekly schedule when no occupancy point is trended.
pub fn schedule_params() -> [ParamSpec; 3] {
    [
        ParamSpec::number("start_hour", 7.0, "hour of day (0-23)", (0.0, 23.0),
            "an office day starting at 07:00, used only without an occupancy point",
            "Use the start of occupied mode from the BAS schedule (or the hour the fan starts on a typical week); better, map occupancy, which replaces the schedule."),
        ParamSpec::number("end_hour", 18.0, "hour of day (1-24)", (1.0, 24.0),
            "an office day ending at 18:00, used only without an occupancy point",
            "Use the end of occupied mode (exclusive) from the BAS schedule or trends."),
        ParamSpec {
            name: "occupied_days",
            default: ParamValue::List(vec![0.0, 1.0, 2.0, 3.0, 4.0]),
            unit: "weekday numbers (Mon=0 ... Sun=6)",
            range: Some((0.0, 6.0)),
            choices: &[],
            basis: "a Monday-to-Friday week, used only without an occupancy point",
            calibrate: "List the days the building runs occupied mode, e.g. [0, 1, 2, 3, 4, 5] with Saturdays.",
        },
    ]
}

/// Whether `ts` is in the schedule [`schedule_params`] declares, with these parameters.
pub fn scheduled(spec: &impl ParamDecl, params: &Params) -> impl Fn(i64) -> bool {
    let (start, end, days) =
        (params.number(spec, "start_hour"), params.number(spec, "end_hour"), params.list(spec, "occupied_days"));
    move |ts| in_schedule(ts, start, end, &days)
}

/// Nanoseconds in an hour: timestamps are naive local nanoseconds.
pub const NS_PER_HOUR: i64 = 3_600_000_000_000;

/// The peak of a column that one spike cannot set: the 98th percentile of its known values
/// (`None` when it has none). What a box's or a fan's largest flow is taken as.
pub fn robust_peak(col: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = col.iter().copied().filter(|x| !x.is_nan()).collect();
    let last = v.len().checked_sub(1)?;
    Some(*v.select_nth_unstable_by((last as f64 * 0.98).round() as usize, f64::total_cmp).1)
}

/// The role a served equipment's frame gets for its parent's duct static pressure setpoint
/// (the run attaches it from the topology; a rule that judges a box's damper reads it).
pub const PARENT_STATIC_SP: &str = camber_common::roles::FROM_PARENT[0].1;

/// The role a served equipment's frame gets for its parent's supply-fan speed (attached from
/// the topology as [`PARENT_STATIC_SP`] is): a box short of open with its zone warm while its
/// air handler's fan is at full speed is short of air, not stuck.
pub const PARENT_FAN_SPEED: &str = camber_common::roles::FROM_PARENT[1].1;

/// A column of `n` NaN. `vec![f64::NAN; n]` writes NaN one vector at a time, and in the sandbox
/// each turn of that loop checks the call's deadline and fuel; here the NaN already written are
/// copied onto the rest (a bulk copy, one instruction), doubling each time.
pub fn nans(n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    out.extend_from_slice(&[f64::NAN; 64][..n.min(64)]);
    while out.len() < n {
        let more = out.len().min(n - out.len());
        out.extend_from_within(..more);
    }
    out
}

/// `values` (at `from` times) placed on the `to` times; NaN where `from` has no sample.
pub fn align(from: &[i64], values: &[f64], to: &[i64]) -> Vec<f64> {
    let mut out = nans(to.len());
    let mut j = 0;
    for (i, t) in to.iter().enumerate() {
        while j < from.len() && from[j] < *t {
            j += 1;
        }
        if j < from.len() && from[j] == *t {
            out[i] = values[j];
        }
    }
    out
}

/// A run's finding as a rule that revisits findings after the run sees it: where it was placed
/// (its unit; a fleet finding's group and members) and the finding itself, to amend.
pub struct Placed<'a> {
    pub equip: &'a str,
    pub group: Option<&'a str>,
    pub members: &'a [String],
    pub finding: &'a mut Finding,
}

/// Monday = 0 of a naive local timestamp (1970-01-01 was a Thursday).
pub fn weekday(ts: i64) -> i64 {
    (ts.div_euclid(24 * NS_PER_HOUR) + 3).rem_euclid(7)
}

/// A month-by-month parameter's value for `month` (1-12): its entry, or `fallback` when the
/// list is empty or leaves that month unset (NaN: a `{"6": 11.9}` map names some months only).
pub fn by_month(list: &[f64], month: usize, fallback: f64) -> f64 {
    match list.get(month.wrapping_sub(1)) {
        Some(v) if !v.is_nan() => *v,
        _ => fallback,
    }
}

/// Month 1-12 of a naive local timestamp.
pub fn month(ts: i64) -> usize {
    camber_common::time::civil_from_days(ts.div_euclid(24 * NS_PER_HOUR)).1 as usize
}

/// Whether a naive local timestamp falls in the schedule assumed when no occupancy is trended
/// (weekdays 07:00-18:00).
pub fn assumed_occupied(ts: i64) -> bool {
    let hour = ts.rem_euclid(24 * NS_PER_HOUR) / NS_PER_HOUR;
    weekday(ts) < 5 && (7..18).contains(&hour)
}

/// The larger of two values, the other one when either is NaN: `f64::max` as two compares.
/// In a WebAssembly guest `f64::max` is a call into the C library on every sample (wasm's own
/// `f64.max` returns NaN for a NaN operand), and the rules fold whole columns with it.
#[inline]
pub fn max_of(a: f64, b: f64) -> f64 {
    if b > a || a.is_nan() {
        b
    } else {
        a
    }
}

/// The sum of `w` at the rows `idx` lists, in their order: a rule's hours over a list of its
/// samples. A function of its own so that in the sandbox the running sum stays in a register;
/// inside a large rule the compiler keeps it on the stack, a store and a load per sample.
#[inline(never)]
pub fn sum_at(w: &[f64], idx: &[u32]) -> f64 {
    idx.iter().map(|&i| w[i as usize]).sum()
}

/// The smallest and largest values of a column, NaN skipped: `(inf, -inf)` when it holds none.
/// A function of its own, eight running extremes a turn: in the sandbox every turn of a loop
/// checks the call's deadline and fuel, and inside a large rule the compiler keeps a fold's
/// accumulators on the stack; here they stay in vector registers.
#[inline(never)]
pub fn span(col: &[f64]) -> (f64, f64) {
    const LANES: usize = 8;
    let (mut lo, mut hi) = ([f64::INFINITY; LANES], [f64::NEG_INFINITY; LANES]);
    let (chunks, rest) = col.as_chunks::<LANES>();
    for c in chunks {
        for k in 0..LANES {
            // a NaN compares false and leaves both extremes as they were
            lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
            hi[k] = if c[k] > hi[k] { c[k] } else { hi[k] };
        }
    }
    let lo = lo.iter().chain(rest).fold(f64::INFINITY, |a, &v| if v < a { v } else { a });
    let hi = hi.iter().chain(rest).fold(f64::NEG_INFINITY, |a, &v| if v > a { v } else { a });
    (lo, hi)
}

/// The smaller of two values, the other one when either is NaN (see [`max_of`]).
#[inline]
pub fn min_of(a: f64, b: f64) -> f64 {
    if b < a || a.is_nan() {
        b
    } else {
        a
    }
}

/// How many of the values `keep` says yes to. The values are taken sixteen at a time: in the
/// sandbox every turn of a loop also checks the call's deadline and fuel, and a loop whose body
/// is one comparison would spend most of its time on those checks.
pub fn count_where(v: &[f64], keep: impl Fn(f64) -> bool) -> usize {
    let (blocks, rest) = v.as_chunks::<16>();
    let mut n = 0;
    for block in blocks {
        n += block.iter().map(|&x| usize::from(keep(x))).sum::<usize>();
    }
    n + rest.iter().filter(|&&x| keep(x)).count()
}

/// The rows `0..n` that `keep` says yes to, in order. One loop in a function of its own (one
/// per test): in the sandbox, `(0..n).filter(..).collect()` calls the filter's `next` once per
/// row kept, each call with its own entry checks, and the test inlined there keeps its inputs
/// on the stack.
#[inline(never)]
pub fn rows_where(n: usize, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let mut rows = Vec::new();
    for i in 0..n {
        if keep(i) {
            rows.push(i);
        }
    }
    rows
}

/// The step of timestamps evenly spaced (a logged grid); `None` when the steps differ or there
/// are fewer than two timestamps.
pub fn even_step(ts: &[i64]) -> Option<i64> {
    let step = ts.get(1)?.checked_sub(*ts.first()?).filter(|s| *s > 0)?;
    evenly_spaced(ts, step).then_some(step)
}

/// Whether every step between neighbouring timestamps is `step` (taken sixteen at a time, as
/// [`count_where`] is).
fn evenly_spaced(ts: &[i64], step: i64) -> bool {
    let Some(n) = ts.len().checked_sub(1) else { return true };
    let (from, to) = (&ts[..n], &ts[1..]);
    let (a, a_rest) = from.as_chunks::<16>();
    let (b, b_rest) = to.as_chunks::<16>();
    let even = |x: &[i64], y: &[i64]| x.iter().zip(y).fold(true, |ok, (p, q)| ok & (q.saturating_sub(*p) == step));
    a.iter().zip(b).all(|(x, y)| even(x, y)) && even(a_rest, b_rest)
}

/// The median of the values (reordered in place, not sorted); NaN when there are none.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    // selection, not a sort: linear time (the slice is left partially reordered)
    let n = v.len();
    let (left, &mut upper, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let lower = left.iter().copied().max_by(f64::total_cmp).unwrap_or(upper);
        (lower + upper) / 2.0
    }
}

/// The `q`-quantile (0-1) of `(value, weight)` pairs weighed by time: the smallest value with at
/// least `q` of the total weight at or below it, or the mean of two neighbours when the split
/// falls exactly between them (so equal weights give the ordinary median). Pairs are reordered
/// in place; NaN values and non-positive weights are ignored; NaN when none remain.
pub fn weighted_quantile(pairs: &mut Vec<(f64, f64)>, q: f64) -> f64 {
    pairs.retain(|(v, w)| !v.is_nan() && *w > 0.0);
    if pairs.is_empty() {
        return f64::NAN;
    }
    // unstable: ties hold one value, so their order cannot change the answer
    pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    let target = q.clamp(0.0, 1.0) * total;
    let mut cum = 0.0;
    for (k, &(v, w)) in pairs.iter().enumerate() {
        cum += w;
        if cum >= target - 1e-9 * total {
            return match pairs.get(k + 1) {
                Some(&(next, _)) if (cum - target).abs() <= 1e-9 * total && q < 1.0 => (v + next) / 2.0,
                _ => v,
            };
        }
    }
    pairs[pairs.len() - 1].0
}

/// The least-squares line through `(x, y)` pairs: `(slope, intercept, r2)`; `None` when there
/// are fewer than two pairs or x does not vary. r2 is NaN when y does not vary.
pub fn least_squares(pairs: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n = pairs.len() as f64;
    if pairs.len() < 2 {
        return None;
    }
    let (mx, my) = (pairs.iter().map(|p| p.0).sum::<f64>() / n, pairs.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pairs.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let syy: f64 = pairs.iter().map(|p| (p.1 - my) * (p.1 - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 { sxy * sxy / (sxx * syy) } else { f64::NAN };
    Some((slope, my - slope * mx, r2))
}

/// Two decimals, for metrics.
pub fn round2(x: f64) -> f64 {
    // + 0.0: an empty float sum is -0.0, which would print as "-0"
    (x * 100.0).round() / 100.0 + 0.0
}

/// Whether an on/off signal reads on.
pub fn on(v: f64) -> bool {
    !v.is_nan() && v >= 0.5
}

/// Helpers the rules' unit tests share: the engine's answer for a rule (its input checks, then
/// the rule), the first finding, parameter overrides, time constants, and a frame's rows
/// disordered and duplicated.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Finding, Frame, Outcome, ParamValue, Params, Rule, NS_PER_HOUR};

    /// An hour and a minute in nanoseconds.
    pub const H: i64 = NS_PER_HOUR;
    pub const MINUTE: i64 = 60_000_000_000;
    /// 2024-01-01 00:00, a Monday, as a naive timestamp.
    pub const MONDAY: i64 = 19_723 * 24 * NS_PER_HOUR;

    /// The engine's answer for `rule` on a frame: skipped when the frame lacks what the rule
    /// needs, else the rule's findings (as a run gets it).
    pub fn outcome(rule: &Rule, f: &Frame, p: &Params) -> Outcome {
        rule.evaluate(&(rule.spec)(), f, p)
    }

    /// Every finding `rule` gives a frame (a test's failure when it skipped).
    pub fn findings(rule: &Rule, f: &Frame, p: &Params) -> Vec<Finding> {
        match outcome(rule, f, p) {
            Outcome::Findings(v) => v,
            o => panic!("{o:?}"),
        }
    }

    /// A fleet rule's findings on these members (`(equip, serving equipment, frame)`, all of
    /// class VAV), each member having the rule's inputs, as a run hands them over.
    pub fn fleet(rule: &Rule, members: &[(&str, Option<&str>, &Frame)], p: &Params) -> Vec<crate::fleet::FleetFinding> {
        let m = members
            .iter()
            .map(|(equip, parent, frame)| crate::fleet::Member { equip, class: "VAV", parent: *parent, frame })
            .collect();
        rule.evaluate_fleet(&(rule.spec)(), &crate::fleet::Fleet::new(m), p)
    }

    /// The first finding `rule` gives a frame (a test's failure when it skipped).
    pub fn run(rule: &Rule, f: &Frame, p: &Params) -> Finding {
        first(outcome(rule, f, p))
    }

    /// The first finding of an outcome (a test's failure when it skipped).
    pub fn first(o: Outcome) -> Finding {
        match o {
            Outcome::Findings(mut v) => v.remove(0),
            o => panic!("{o:?}"),
        }
    }

    /// Number overrides from `(name, value)` pairs.
    pub fn numbers(pairs: &[(&str, f64)]) -> Params {
        with(&pairs.iter().map(|(k, v)| (*k, ParamValue::Number(*v))).collect::<Vec<_>>())
    }

    /// Overrides from `(name, value)` pairs.
    pub fn with(pairs: &[(&str, ParamValue)]) -> Params {
        Params { values: pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(), ..Default::default() }
    }

    /// `n` timestamps `step` apart from `start`.
    pub fn every(start: i64, step: i64, n: usize) -> Vec<i64> {
        (0..n as i64).map(|i| start + i * step).collect()
    }

    /// The frame's rows reversed, each twice, then interleaved (a fixed permutation): rows as
    /// a trend delivers them out of order and repeated. [`Frame::from_rows`] sorts and merges
    /// them back into the same frame, so a rule must give the same finding.
    pub fn shuffled_with_duplicates(base: &Frame) -> Frame {
        let n = base.len();
        // a step coprime with 2n visits every row once: 11 unless it divides n
        let gcd = |mut a: usize, mut b: usize| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let k = (11..).step_by(2).find(|&k| gcd(k, 2 * n) == 1).unwrap_or(1);
        let order: Vec<usize> =
            (0..2 * n).map(|i| (i * k) % (2 * n)).map(|j| if j < n { n - 1 - j } else { j - n }).collect();
        let ts: Vec<i64> = order.iter().map(|&i| base.ts[i]).collect();
        let cols: Vec<(&str, Vec<f64>)> =
            base.cols.iter().map(|(k, v)| (k.as_str(), order.iter().map(|&i| v[i]).collect())).collect();
        Frame::from_rows(&ts, &cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_of_and_min_of_skip_nan_as_f64_max_and_min_do() {
        for (a, b) in [(1.0, 2.0), (2.0, 1.0), (f64::NAN, 3.0), (3.0, f64::NAN), (-1.0, -1.0)] {
            assert_eq!(max_of(a, b), a.max(b), "max {a} {b}");
            assert_eq!(min_of(a, b), a.min(b), "min {a} {b}");
        }
        assert!(max_of(f64::NAN, f64::NAN).is_nan() && min_of(f64::NAN, f64::NAN).is_nan());
        let col = [3.0, f64::NAN, -2.0, 7.5];
        assert_eq!(col.iter().copied().fold(f64::NEG_INFINITY, max_of), 7.5);
        assert_eq!(col.iter().copied().fold(f64::INFINITY, min_of), -2.0);
    }

    #[test]
    fn nans_is_n_nan_at_any_length() {
        for n in [0, 1, 63, 64, 65, 127, 128, 129, 1000, 525_600] {
            let v = nans(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|x| x.is_nan()), "n {n}");
        }
    }

    #[test]
    fn span_is_the_fold_of_min_of_and_max_of_over_any_length() {
        assert_eq!(span(&[]), (f64::INFINITY, f64::NEG_INFINITY));
        assert_eq!(span(&[f64::NAN; 20]), (f64::INFINITY, f64::NEG_INFINITY));
        // lengths around the eight-value turn, NaN and extremes at every position
        for n in 1..40usize {
            let col: Vec<f64> = (0..n)
                .map(|i| if i % 5 == 3 { f64::NAN } else { ((i * 37) % 23) as f64 - 11.5 + i as f64 / 7.0 })
                .collect();
            let lo = col.iter().copied().fold(f64::INFINITY, min_of);
            let hi = col.iter().copied().fold(f64::NEG_INFINITY, max_of);
            assert_eq!(span(&col), (lo, hi), "n {n}");
        }
    }

    #[test]
    fn rows_are_sorted_and_the_last_duplicate_wins() {
        let f = Frame::from_rows(&[30, 10, 20, 10], &[("a", vec![3.0, 1.0, 2.0, 9.0])]);
        assert_eq!(f.ts, vec![10, 20, 30]);
        assert_eq!(f.cols["a"], vec![9.0, 2.0, 3.0]);
    }

    #[test]
    fn the_fan_signal_in_order_of_preference() {
        let f = Frame::from_rows(
            &[0, 1, 2],
            &[("supply_fan_speed", vec![0.5, 0.0, f64::NAN]), ("airflow", vec![0.0, 900.0, 900.0])],
        );
        let (on, src) = fan_on(&f).unwrap();
        assert_eq!((on, src), (vec![Some(true), Some(false), None], "fan speed"));
        let pct = Frame::from_rows(&[0, 1], &[("supply_fan_speed", vec![0.5, 40.0])]);
        assert_eq!(fan_on(&pct).unwrap().0, vec![Some(false), Some(true)]);
        let flow = Frame::from_rows(&[0, 1, 2], &[("airflow", vec![10.0, 900.0, 1000.0])]);
        assert_eq!(fan_on(&flow).unwrap(), (vec![Some(false), Some(true), Some(true)], "airflow proxy"));
        assert!(fan_on(&Frame::from_rows(&[0], &[("oat", vec![1.0])])).is_none());
    }

    #[test]
    fn percent_scale_and_schedule() {
        assert_eq!(as_percent(&[0.0, 0.5, f64::NAN, 1.0])[..2], [0.0, 50.0]);
        assert_eq!(as_percent(&[0.0, 2.0, 100.0]), vec![0.0, 2.0, 100.0]);
        assert!(as_percent(&[f64::NAN]).iter().all(|v| v.is_nan()));
        // 2024-01-01 was a Monday
        let monday = 19_723 * 24 * NS_PER_HOUR;
        let wd = [0.0, 1.0, 2.0, 3.0, 4.0];
        assert!(in_schedule(monday + 7 * NS_PER_HOUR, 7.0, 18.0, &wd));
        assert!(!in_schedule(monday + 18 * NS_PER_HOUR, 7.0, 18.0, &wd));
        assert!(!in_schedule(monday + 5 * 24 * NS_PER_HOUR + 9 * NS_PER_HOUR, 7.0, 18.0, &wd));
        assert!(in_schedule(monday + 23 * NS_PER_HOUR + NS_PER_HOUR / 2, 0.0, 24.0, &wd));
    }

    fn decl() -> RuleSpec {
        RuleSpec {
            id: "demo",
            families: &["air_handler"],
            inputs: Inputs {
                required: &["a", "b"],
                optional: &["c", "d", "e"],
                gating: &["c", "d+e"],
                one_of: &[&["c", "d"]],
                needs_gating: true,
            },
            params: vec![ParamSpec::number("fan_heat_f", 2.0, "°F", (0.0, 4.0), "basis", "calibrate")],
            judged_basis: "samples",
        }
    }

    #[test]
    fn a_declared_parameter_reads_its_override_or_its_default() {
        let s = decl();
        assert_eq!(Params::default().number(&s, "fan_heat_f"), 2.0);
        assert_eq!(testing::numbers(&[("fan_heat_f", 3.0)]).number(&s, "fan_heat_f"), 3.0);
    }

    #[test]
    #[should_panic(expected = "demo reads the parameter 'fan_heatf', which it does not declare")]
    fn a_mistyped_parameter_name_fails_loudly() {
        // not a silent NaN: the rule's defect is named (a component's call fails `internal`)
        Params::default().number(&decl(), "fan_heatf");
    }

    #[test]
    #[should_panic(expected = "demo reads the parameter 'fan_heat_f' as a flag")]
    fn a_parameter_read_as_the_wrong_kind_fails_loudly() {
        Params::default().flag(&decl(), "fan_heat_f");
    }

    #[test]
    fn a_caller_naming_an_unknown_parameter_is_refused() {
        let e = testing::numbers(&[("fan_heatf", 3.0)]).check(&decl()).unwrap_err();
        assert_eq!(e, "rule demo has no parameter 'fan_heatf'");
    }

    #[test]
    fn needs_are_checked_and_spelled_in_order() {
        let n = Needs::of(&decl().inputs);
        let f = |roles: &[&str]| Frame::from_rows(&[0], &roles.iter().map(|r| (*r, vec![1.0])).collect::<Vec<_>>());
        // the required inputs first, alone
        assert_eq!(n.missing(&f(&["c"])), ["a", "b"]);
        assert_eq!(n.missing(&f(&["b", "c"])), ["a"]);
        // then the group and the gating alternatives, one entry each
        assert_eq!(n.missing(&f(&["a", "b"])), ["c or d", "c, or d and e"]);
        assert_eq!(n.missing(&f(&["a", "b", "d"])), ["c, or d and e"]);
        assert!(n.missing(&f(&["a", "b", "d", "e"])).is_empty());
        assert!(n.missing(&f(&["a", "b", "c"])).is_empty());
        // an all-NaN column is absent
        let nan = Frame::from_rows(&[0], &[("a", vec![f64::NAN]), ("b", vec![1.0]), ("c", vec![1.0])]);
        assert_eq!(n.missing(&nan), ["a"]);
        // gating alternatives that are not needed are not checked
        let optional = Inputs { needs_gating: false, ..decl().inputs };
        assert_eq!(Needs::of(&optional).missing(&f(&["a", "b", "d"])), Vec::<String>::new());
        assert_eq!(spell_or(&["a", "b", "c", "d"]), "a, b, c or d");
        assert_eq!(spell_or(&["a", "b", "c", "d", "e"]), "one of a, b, c, d, e");
    }

    #[test]
    fn shuffled_rows_with_duplicates_make_the_same_frame() {
        for n in [1, 2, 11, 13, 22, 100, 143] {
            let f = Frame::from_rows(
                &testing::every(0, testing::H, n),
                &[("a", (0..n).map(|i| i as f64).collect()), ("b", vec![1.0; n])],
            );
            let g = testing::shuffled_with_duplicates(&f);
            assert_eq!((g.ts.clone(), g.cols.clone()), (f.ts.clone(), f.cols.clone()), "{n}");
        }
    }

    #[test]
    fn weighted_quantiles() {
        let q = |v: &[(f64, f64)], q: f64| weighted_quantile(&mut v.to_vec(), q);
        // equal weights: the ordinary median, the middle pair's mean for an even count
        assert_eq!(q(&[(3.0, 1.0), (1.0, 1.0), (2.0, 1.0)], 0.5), 2.0);
        assert_eq!(q(&[(4.0, 1.0), (1.0, 1.0), (2.0, 1.0), (3.0, 1.0)], 0.5), 2.5);
        // a value standing for more time pulls the median to it
        assert_eq!(q(&[(1.0, 1.0), (2.0, 1.0), (9.0, 3.0)], 0.5), 9.0);
        assert_eq!(q(&[(1.0, 1.0), (2.0, 1.0), (9.0, 3.0)], 0.0), 1.0);
        assert_eq!(q(&[(1.0, 1.0), (2.0, 1.0), (9.0, 3.0)], 1.0), 9.0);
        assert!(q(&[(f64::NAN, 1.0), (1.0, 0.0)], 0.5).is_nan());
        assert!(q(&[], 0.5).is_nan());
    }

    #[test]
    fn weights_cap_gaps() {
        let h = 3_600_000_000_000i64;
        let f = Frame::from_rows(&[0, h, 2 * h, 10 * h], &[("a", vec![1.0; 4])]);
        assert_eq!(f.weights_hours(), vec![1.0, 1.0, 1.5, 1.0]);
    }

    #[test]
    fn blocked_loops_agree_with_plain_ones_across_block_edges() {
        let h = 3_600_000_000_000i64;
        for n in [0usize, 1, 2, 15, 16, 17, 31, 32, 33, 50] {
            let v: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { f64::NAN } else { i as f64 }).collect();
            assert_eq!(count_where(&v, |x| !x.is_nan()), v.iter().filter(|x| !x.is_nan()).count(), "{n}");
            assert_eq!(count_where(&v, |x| x > 10.0), v.iter().filter(|&&x| x > 10.0).count(), "{n}");
            let even: Vec<i64> = (0..n as i64).map(|i| i * h).collect();
            assert!(evenly_spaced(&even, h), "{n}");
            // one uneven step anywhere (in a block of sixteen or in the remainder) is seen
            for k in 1..n {
                let mut ts = even.clone();
                ts[k..].iter_mut().for_each(|t| *t += h / 2);
                assert!(!evenly_spaced(&ts, h), "{n} {k}");
                let f = Frame { ts: ts.clone(), cols: BTreeMap::new() };
                // no step is longer than 1.5 typical ones: each weighs its own length
                let plain: Vec<f64> = ts.windows(2).map(|w| (w[1] - w[0]) as f64 / h as f64).collect();
                assert_eq!(f.weights_hours()[..n - 1], plain[..], "{n} {k}");
            }
        }
    }
}
