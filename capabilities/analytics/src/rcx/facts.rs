//! The report's fact index: one templated statement per figure the report shows, each with a
//! context-qualified id (`K1@summary` a KPI, `X2@appA` a decline, `A3@appB` an assumption,
//! `C1@<issue key>` an issue's cost). Within a context, ids count per kind in the order the
//! report shows them, so the same inputs give the same ids, and an issue's ids do not move when
//! other issues come and go. The ids carry no call token: the host appends it to every fact id.
//!
//! Report-level facts come first (the summary, appendix A, appendix B), then each issue's in rank
//! order: issue, cost (the issue's, then each costed member's), hours, findings (root first),
//! action, why (one per confidence reason), dependency (what it leans on, or on a sensor issue
//! what leans on it), chain (same-equipment and air handler -> box), caveats.

use std::collections::{BTreeMap, BTreeSet};

use camber_common::text::{name, thousands};

use super::{count_boxes, AppendixEntry, Fact, Issue, Kpis, RcxInput};
use crate::engine::{Finding, Severity};

/// A kind's id prefix.
fn prefix(kind: &str) -> &'static str {
    match kind {
        "issue" => "I",
        "cost" => "C",
        "hours" => "T",
        "finding" => "F",
        "action" => "R",
        "why" => "W",
        "caveat" => "V",
        "dependency" => "D",
        "link" => "U",
        "chain" => "Z",
        "kpi" => "K",
        "decline" => "X",
        "missing" => "M",
        "chain_gap" => "G",
        "unevaluated" => "Q",
        _ => "A",
    }
}

/// Dollars, whole, with thousands separators: `$5,230`.
pub fn usd(v: f64) -> String {
    format!("${}", thousands(v.max(0.0).round() as u64))
}

/// A count of hours: whole hours with separators, one decimal under 10 h (`1,234`, `2.5`).
pub fn hours(h: f64) -> String {
    if h < 10.0 && (h - h.round()).abs() >= 0.05 {
        format!("{h:.1}")
    } else {
        thousands(h.max(0.0).round() as u64)
    }
}

fn sev(s: Severity) -> &'static str {
    match s {
        Severity::Fault => "fault",
        Severity::Warn => "warn",
        Severity::Info => "info",
        Severity::Ok => "ok",
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn clean(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn sentence(t: &str) -> String {
    let t = clean(t);
    if t.is_empty() || t.ends_with(['.', '!', '?']) {
        t
    } else {
        format!("{t}.")
    }
}

/// Ids per (context, kind), in build order.
struct Builder {
    n: BTreeMap<(String, &'static str), usize>,
    facts: Vec<Fact>,
}

impl Builder {
    fn add(&mut self, kind: &'static str, ctx: &str, equip: &str, text: &str) -> String {
        let n = self.n.entry((ctx.to_string(), kind)).or_default();
        *n += 1;
        let id = format!("{}{}@{ctx}", prefix(kind), n);
        self.facts.push(Fact { id: id.clone(), kind: kind.into(), equip: equip.into(), text: sentence(text) });
        id
    }
}

/// A role as text writes it: a word of the role vocabulary as it is, any other stored role
/// quoted by [`name`].
pub(crate) fn role_word(role: &str) -> String {
    if super::advice::plain_role(role) {
        role.to_string()
    } else {
        name(role)
    }
}

/// The equipment names of a list, each written with [`name`] (they come from the data), capped
/// at `cap` then "and N more".
fn named(list: &[String], cap: usize) -> String {
    let shown: Vec<String> = list.iter().take(cap).map(|e| name(e)).collect();
    if list.len() > cap {
        format!("{} and {} more", shown.join(", "), list.len() - cap)
    } else {
        shown.join(", ")
    }
}

/// The fact index and appendix A of a report.
pub fn index(
    input: &RcxInput,
    k: &Kpis,
    issues: &[Issue],
    gaps: &BTreeMap<String, BTreeSet<&str>>,
) -> (Vec<Fact>, Vec<AppendixEntry>) {
    let mut b = Builder { n: BTreeMap::new(), facts: Vec::new() };
    let o = input.options;
    let run = input.run;

    // ---- summary
    let c = "summary";
    b.add("kpi", c, "", &format!("The report ranks {}", plural(k.n_issues, "issue", "issues")));
    match k.annual_cost_usd {
        Some(v) => b.add(
            "kpi",
            c,
            "",
            &format!(
                "The {} total {}/yr; issues add, and a chain counts once",
                plural(k.n_costed, "costed, unconditional issue", "costed, unconditional issues"),
                usd(v)
            ),
        ),
        None => b.add("kpi", c, "", "No unconditional issue is costed, so the report states no dollar total"),
    };
    if let Some(v) = k.at_risk_usd {
        b.add("kpi", c, "", &format!("A further {}/yr is at risk pending a sensor fix", usd(v)));
    }
    b.add(
        "kpi",
        c,
        "",
        &format!(
            "{} uncosted and {} conditional on a sensor fix",
            plural(k.n_uncosted, "issue is", "issues are"),
            k.n_conditional
        ),
    );
    if let Some(cov) = k.coverage_pct {
        b.add("kpi", c, "", &format!("The points the rules read cover {cov:.1}% of their grid on average"));
    }
    b.add("kpi", c, "", &format!("{} declined for an untrusted input", plural(k.n_declined, "check", "checks")));

    // ---- appendix A: declines and data gaps
    let c = "appA";
    let mut app: Vec<AppendixEntry> = Vec::new();
    let mut entry = |b: &mut Builder, kind: &'static str, rule: &str, equip: &str, text: String| {
        let fact = b.add(kind, c, equip, &text);
        app.push(AppendixEntry {
            kind: kind.into(),
            rule: rule.into(),
            equip: equip.into(),
            text: sentence(&text),
            fact,
        });
    };
    let untrusted = |d: &[(String, f64)]| {
        d.iter().map(|(r, s)| format!("{} (trust {s:.2})", role_word(r))).collect::<Vec<_>>().join(", ")
    };
    for f in run.findings.iter().filter(|f| !f.declined.is_empty()) {
        let text =
            format!("{} on {} declined: untrusted input(s) {}", f.finding.rule, name(&f.equip), untrusted(&f.declined));
        entry(&mut b, "decline", f.finding.rule, &f.equip, text);
    }
    for f in input.drift_findings.iter().filter(|f| !f.declined.is_empty()) {
        let rule = format!("{}:{}", f.family, f.detector);
        let text = format!("{rule} on {} declined: untrusted input(s) {}", name(&f.equip), untrusted(&f.declined));
        entry(&mut b, "decline", &rule, &f.equip, text);
    }
    let mut skips: Vec<((String, String), Vec<String>)> = Vec::new();
    for s in &run.skipped {
        let k = (s.rule.clone(), s.missing.join(", "));
        match skips.iter_mut().find(|(x, _)| *x == k) {
            Some((_, e)) if !e.contains(&s.equip) => e.push(s.equip.clone()),
            Some(_) => {}
            None => skips.push((k, vec![s.equip.clone()])),
        }
    }
    for ((rule, missing), equips) in &skips {
        let text = format!("{rule} was not run (missing {missing}) on {}", named(equips, 6));
        entry(&mut b, "missing", rule, "", text);
    }
    if !gaps.is_empty() {
        let boxes: Vec<String> = gaps.keys().cloned().collect();
        let causes: BTreeSet<&str> = gaps.values().flatten().copied().collect();
        let text = format!(
            "{} ({}) report symptoms an air handler may cause ({}), but no topology names the unit serving them, so they are their own issues",
            plural(boxes.len(), "box", "boxes"),
            named(&boxes, 12),
            causes.into_iter().collect::<Vec<_>>().join(", ")
        );
        entry(&mut b, "chain_gap", "", "", text);
    }
    for u in input.drift_unevaluated {
        let text = format!("{} drift was not evaluated on {}: {}", u.family, name(&u.equip), u.reason);
        entry(&mut b, "unevaluated", &u.family, &u.equip, text);
    }
    let judged: BTreeSet<&str> = run
        .findings
        .iter()
        .flat_map(|f| std::iter::once(f.equip.as_str()).chain(f.members.iter().map(String::as_str)))
        .chain(input.drift_findings.iter().map(|f| f.equip.as_str()))
        .collect();
    let idle: Vec<String> = input.times.keys().filter(|e| !judged.contains(e.as_str())).cloned().collect();
    if !idle.is_empty() {
        entry(&mut b, "unevaluated", "", "", format!("Equipment not evaluated by any rule: {}", named(&idle, 12)));
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for cv in run.findings.iter().flat_map(|f| f.finding.caveats.iter()) {
        if seen.insert(cv.as_str()) {
            b.add("caveat", c, "", &format!("Caveat: {cv}"));
        }
    }

    // ---- appendix B: assumptions
    let c = "appB";
    for (key, val) in &o.cost_params {
        let how = if o.cost_configured.contains(key) { "configured" } else { "default" };
        b.add("assumption", c, "", &format!("Cost assumption {key} = {val} ({how})"));
    }
    let p = &o.price;
    if p.configured {
        b.add(
            "assumption",
            c,
            "",
            &format!("Energy price ${}/kWh and ${}/therm (configured)", p.electricity_per_kwh, p.gas_per_therm),
        );
    } else {
        b.add(
            "assumption",
            c,
            "",
            &format!(
                "Energy price: placeholders (${}/kWh, ${}/therm), not the site's",
                p.electricity_per_kwh, p.gas_per_therm
            ),
        );
    }
    if o.loads.is_empty() {
        b.add("assumption", c, "", "No equipment sizing given, so sizing-dependent issues stay uncosted");
    } else {
        let names: Vec<String> = o.loads.keys().cloned().collect();
        b.add("assumption", c, "", &format!("Equipment sizing given for: {}", named(&names, 12)));
    }

    // ---- each issue, in rank order
    let findings: BTreeMap<&str, (&Finding, &str)> = run
        .findings
        .iter()
        .map(|f| (f.id.as_str(), (&f.finding, f.equip.as_str())))
        .chain(input.drift_findings.iter().map(|f| (f.id.as_str(), (&f.finding, f.equip.as_str()))))
        .collect();
    let by_key: BTreeMap<&str, &Issue> = issues.iter().map(|i| (i.key.as_str(), i)).collect();
    for iss in issues {
        issue_facts(&mut b, iss, &findings, &by_key);
    }
    (b.facts, app)
}

fn issue_facts(
    b: &mut Builder,
    iss: &Issue,
    findings: &BTreeMap<&str, (&Finding, &str)>,
    by_key: &BTreeMap<&str, &Issue>,
) {
    let c = iss.key.as_str();
    let eq = iss.equip.as_str();
    let heading = if iss.cause.is_empty() { &iss.title } else { &iss.cause };
    let boxes: BTreeSet<&str> = iss.zone_chains.iter().flat_map(|z| z.boxes.iter().map(String::as_str)).collect();
    let plus = match iss.zone_chains.iter().find(|z| !z.boxes.is_empty()) {
        Some(z) if !z.served.is_empty() => {
            let served: BTreeSet<&str> =
                iss.zone_chains.iter().flat_map(|z| z.served.iter().map(String::as_str)).collect();
            format!(" + {} of {} boxes", boxes.len(), served.len())
        }
        Some(_) => format!(" + {}", plural(boxes.len(), "box", "boxes")),
        None => String::new(),
    };
    b.add(
        "issue",
        c,
        eq,
        &format!(
            "Issue {}: {heading}, on {}{plus}; severity {}, confidence {}",
            iss.rank,
            name(eq),
            sev(iss.severity),
            iss.confidence.as_str()
        ),
    );
    match iss.annual_cost_usd {
        Some(v) => {
            let tail = if iss.cost_at_risk { " at risk pending a sensor fix" } else { "" };
            b.add(
                "cost",
                c,
                eq,
                &format!("Issue {} is estimated at {}/yr{tail} ({})", iss.rank, usd(v), iss.cost_basis_note),
            )
        }
        None => b.add("cost", c, eq, &format!("Issue {} has no dollar figure: {}", iss.rank, iss.cost_basis_note)),
    };
    for m in &iss.member_costs {
        if let Some(v) = m.annual_cost_usd {
            b.add(
                "cost",
                c,
                &m.equip,
                &format!("The {} finding on {} is estimated at {}/yr ({})", m.rule, name(&m.equip), usd(v), m.basis),
            );
        }
    }
    match (iss.hours, iss.pct_runtime, iss.running_hours) {
        (Some(h), Some(p), Some(r)) => b.add(
            "hours",
            c,
            eq,
            &format!(
                "Issue {} flagged {} h (the union of its members' flagged time), {p:.1}% of {} running hours; gate: {}",
                iss.rank,
                hours(h),
                hours(r),
                iss.gate
            ),
        ),
        (Some(h), _, _) => b.add(
            "hours",
            c,
            eq,
            &format!(
                "Issue {} flagged {} h (the union of its members' flagged time); no running hours to share it of (gate: {})",
                iss.rank,
                hours(h),
                iss.gate
            ),
        ),
        (None, _, _) => b.add(
            "hours",
            c,
            eq,
            &format!("Issue {}'s flagged hours were not measured: no member flagged a sample on a known time axis", iss.rank),
        ),
    };
    if let Some(s) = &iss.sensor {
        let text = match (&s.reference, s.bias) {
            (Some(r), Some(bias)) => format!(
                "root: {} on {} reads {bias:+.1} against the {} {} over {} samples ({})",
                role_word(&s.role),
                name(&s.equip),
                s.label.as_deref().map_or_else(|| "reference".to_string(), name),
                name(r),
                s.samples,
                sev(iss.severity)
            ),
            _ => format!(
                "root: {} on {} scores trust {:.2} over {} samples ({})",
                role_word(&s.role),
                name(&s.equip),
                s.trust.unwrap_or(f64::NAN),
                s.samples,
                sev(iss.severity)
            ),
        };
        b.add("finding", c, &s.equip, &text);
    }
    for (i, id) in iss.finding_ids.iter().enumerate() {
        let Some((f, on)) = findings.get(id.as_str()) else { continue };
        let role = if i == 0 { "root" } else { "member" };
        b.add("finding", c, on, &format!("{role} finding {} ({}): {}", name(id), sev(f.severity), clean(&f.summary)));
    }
    if iss.action.is_empty() {
        b.add("action", c, eq, "No packaged action: the engineer is to specify the fix");
    } else {
        b.add("action", c, eq, &format!("Recommended action, {}: {}", iss.title, iss.action));
    }
    for w in &iss.why {
        b.add("why", c, eq, &format!("Confidence {}: {w}", iss.confidence.as_str()));
    }
    for (label, key) in iss.conditional_on.iter().zip(&iss.conditional_on_keys) {
        let rank = by_key.get(key.as_str()).map_or(0, |s| s.rank);
        b.add("dependency", c, eq, &format!("Conditional pending a sensor fix (issue {rank}): {label}"));
    }
    for d in &iss.dependents {
        let on = findings.get(d.as_str()).map_or("", |(_, e)| e);
        b.add("dependency", c, on, &format!("{} is conditional on this sensor issue", name(d)));
    }
    if let Some(ch) = &iss.chain {
        let own: Vec<&String> = iss
            .rules
            .iter()
            .zip(&iss.finding_ids)
            .filter(|(_, id)| {
                findings.get(id.as_str()).is_some_and(|(_, e)| *e == eq || id.contains(&format!("@<fleet:{eq}>")))
            })
            .map(|(r, _)| r)
            .collect();
        if own.len() > 1 {
            let rest: Vec<&str> = own[1..].iter().map(|s| s.as_str()).collect();
            b.add(
                "chain",
                c,
                eq,
                &format!(
                    "Cause chain {ch} on {}: {} is the root of {} ({})",
                    name(eq),
                    own[0],
                    plural(rest.len(), "symptom", "symptoms"),
                    rest.join(", ")
                ),
            );
        }
    }
    for z in iss.zone_chains.iter().filter(|z| !z.boxes.is_empty()) {
        b.add(
            "chain",
            c,
            &z.ahu,
            &format!(
                "Cause chain {}: {} at {}, {} on {} ({})",
                z.chain,
                z.cause,
                name(&z.ahu),
                z.symptom,
                count_boxes(z),
                named(&z.boxes, 12)
            ),
        );
    }
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for id in &iss.finding_ids {
        if let Some((f, _)) = findings.get(id.as_str()) {
            for cv in &f.caveats {
                if seen.insert(cv.as_str()) {
                    b.add("caveat", c, eq, &format!("Caveat: {cv}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_written_as_the_report_shows_them() {
        assert_eq!(usd(5230.31), "$5,230");
        assert_eq!(usd(122.99), "$123");
        assert_eq!(usd(f64::NAN.max(0.0)), "$0");
        assert_eq!((hours(1234.4), hours(2.5), hours(8.0)), ("1,234".into(), "2.5".into(), "8".into()));
        assert_eq!(sentence(" a  b "), "a b.");
        assert_eq!(sentence("done."), "done.");
        assert_eq!(named(&["a".into(), "b".into(), "c".into()], 2), "\"a\", \"b\" and 1 more");
        assert_eq!(
            (role_word("mixed_air_temp"), role_word("<b>")),
            ("mixed_air_temp".into(), "\"\u{2039}b\u{203A}\"".into())
        );
    }
}
