//! The mapping file `camber map` writes: JSON (what `camber ingest --mapping` reads, plus the
//! review, the unmapped columns, the topology and the evidence, which the ingest ignores) or CSV
//! (one row per accepted column; the evidence in a last column).

use serde_json::{json, Map, Value};

use crate::propose::{verdict, ColumnProposal, Proposal};

fn column_json(p: &ColumnProposal) -> Value {
    let mut m = Map::new();
    m.insert("equip".into(), json!(p.equip));
    m.insert("equip_class".into(), json!(p.equip_class));
    m.insert("role".into(), json!(p.role));
    if !p.unit.is_empty() {
        m.insert("unit".into(), json!(p.unit));
    }
    m.insert("confidence".into(), json!(p.confidence));
    m.insert("verdict".into(), json!(verdict(p.confidence)));
    m.insert("evidence".into(), json!(p.evidence));
    if !p.alternatives.is_empty() {
        let alts: Vec<Value> = p.alternatives.iter().map(|(r, s)| json!({"role": r, "score": s})).collect();
        m.insert("alternatives".into(), Value::Array(alts));
    }
    if let Some(r) = &p.review {
        m.insert("review".into(), json!(r));
    }
    Value::Object(m)
}

/// The JSON mapping file. `columns` and `timestamp` are what the ingest reads; `topology` can be
/// pasted into a run config as it is.
pub fn to_json(p: &Proposal) -> Value {
    let mut root = Map::new();
    if let Some(ts) = &p.timestamp {
        root.insert("timestamp".into(), json!(ts));
    }
    let cols: Map<String, Value> = p.accepted.iter().map(|c| (c.column.clone(), column_json(c))).collect();
    root.insert("columns".into(), Value::Object(cols));
    let review: Map<String, Value> = p.review.iter().map(|c| (c.column.clone(), column_json(c))).collect();
    root.insert("review".into(), Value::Object(review));
    let unmapped: Map<String, Value> = p.unmapped.iter().map(|u| (u.column.clone(), json!(u.reason))).collect();
    root.insert("unmapped".into(), Value::Object(unmapped));
    let parents: Map<String, Value> = p.topology.iter().map(|e| (e.child.clone(), json!(e.parent))).collect();
    root.insert("topology".into(), json!({"parents": parents, "match": "exact"}));
    let how: Map<String, Value> = p
        .topology
        .iter()
        .map(|e| (e.child.clone(), json!({"parent": e.parent, "source": e.source, "how": e.how})))
        .collect();
    root.insert("topology_evidence".into(), Value::Object(how));
    if !p.notes.is_empty() {
        root.insert("notes".into(), json!(p.notes));
    }
    Value::Object(root)
}

/// The CSV mapping file: `column,equip,equip_class,role,unit,confidence,verdict,evidence` for the
/// accepted columns (the ingest reads the first five by name).
pub fn to_csv(p: &Proposal) -> Result<String, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let err = |e: csv::Error| format!("the mapping CSV cannot be written: {e}");
    w.write_record(["column", "equip", "equip_class", "role", "unit", "confidence", "verdict", "evidence"])
        .map_err(err)?;
    for c in &p.accepted {
        let conf = format!("{:.2}", c.confidence);
        w.write_record([
            c.column.as_str(),
            &c.equip,
            &c.equip_class,
            &c.role,
            &c.unit,
            &conf,
            verdict(c.confidence),
            &c.evidence.join("; "),
        ])
        .map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| format!("the mapping CSV cannot be written: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("the mapping CSV cannot be written: {e}"))
}

/// A few lines for the terminal: counts, the review list and the unmapped list, each short.
pub fn summary(p: &Proposal) -> String {
    let mut s = String::new();
    let high = p.accepted.iter().filter(|c| c.confidence >= 0.8).count();
    let equips: std::collections::BTreeSet<&str> = p.accepted.iter().map(|c| c.equip.as_str()).collect();
    s.push_str(&format!(
        "mapped {} columns ({} high confidence) on {} equipment; {} to review; {} with no role; {} served-by links\n",
        p.accepted.len(),
        high,
        equips.len(),
        p.review.len(),
        p.unmapped.len(),
        p.topology.len()
    ));
    for n in &p.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    for c in p.review.iter().take(20) {
        s.push_str(&format!(
            "review: {} -> {} {} ({:.2}): {}\n",
            c.column,
            if c.equip.is_empty() { "?" } else { &c.equip },
            c.role,
            c.confidence,
            c.review.as_deref().unwrap_or_default()
        ));
    }
    if p.review.len() > 20 {
        s.push_str(&format!("review: ... and {} more (in the mapping file)\n", p.review.len() - 20));
    }
    for u in p.unmapped.iter().take(20) {
        s.push_str(&format!("no role: {}: {}\n", u.column, u.reason));
    }
    if p.unmapped.len() > 20 {
        s.push_str(&format!("no role: ... and {} more (in the mapping file)\n", p.unmapped.len() - 20));
    }
    s
}
