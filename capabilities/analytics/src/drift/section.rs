//! The `drift` section of a run config, in the reference's format: default `baseline` and
//! `current` windows, the `families` to run (each a stored `class`, a drift `family`, optional
//! windows of its own and an optional known-good `reference`: another equipment, or a period of
//! the same one), and `store`, the frozen-baselines file `camber drift fit` wrote (the host reads
//! it when it loads the config and hands it over as `frozen`; a guest never opens a file).

use serde_json::Value;

/// A window as written: ISO dates or date-times, either end open.
pub type WrittenWindow = (Option<String>, Option<String>);

/// A family's known-good reference.
#[derive(Clone, Debug, PartialEq)]
pub enum DriftReference {
    /// Another equipment taken as healthy, over `period` (all of its data when unset).
    Equip { equip: String, period: Option<WrittenWindow> },
    /// A known-good period of the same equipment.
    Period(WrittenWindow),
}

/// One family entry.
#[derive(Clone, Debug, PartialEq)]
pub struct DriftEntry {
    pub class: String,
    pub family: String,
    pub baseline: Option<WrittenWindow>,
    pub current: Option<WrittenWindow>,
    pub reference: Option<DriftReference>,
}

/// The section, parsed and checked.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DriftSection {
    pub baseline: Option<WrittenWindow>,
    pub current: Option<WrittenWindow>,
    pub families: Vec<DriftEntry>,
    /// The frozen-baselines file, as the config names it.
    pub store: Option<String>,
    /// That file's contents, when the host read it.
    pub frozen: Option<Value>,
}

fn window(v: &Value, place: &str) -> Result<Option<WrittenWindow>, String> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) if a.len() == 2 => {
            let end = |x: &Value| match x {
                Value::Null => Ok(None),
                Value::String(s) => Ok(Some(s.clone())),
                _ => Err(format!("{place} must be [start, end] of dates or null")),
            };
            Ok(Some((end(&a[0])?, end(&a[1])?)))
        }
        _ => Err(format!("{place} must be [start, end] of dates or null")),
    }
}

impl DriftSection {
    /// What the section's families judge, for the grid they are read on
    /// ([`crate::grid::drift_step`]): their classes, and the reference equipment they name.
    pub fn judged(&self) -> (Vec<&str>, Vec<&str>) {
        let classes = self.families.iter().map(|f| f.class.as_str()).collect();
        let refs = self
            .families
            .iter()
            .filter_map(|f| match &f.reference {
                Some(DriftReference::Equip { equip, .. }) => Some(equip.as_str()),
                _ => None,
            })
            .collect();
        (classes, refs)
    }

    /// Parse and check the section (`None` for a config without one).
    pub fn from_value(v: Option<&Value>) -> Result<Option<DriftSection>, String> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let Value::Object(o) = v else {
            return Err("'drift' must be an object".into());
        };
        let null = Value::Null;
        let mut s = DriftSection {
            baseline: window(o.get("baseline").unwrap_or(&null), "drift.baseline")?,
            current: window(o.get("current").unwrap_or(&null), "drift.current")?,
            families: Vec::new(),
            store: match o.get("store") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err("drift.store must be the name of a frozen-baselines file".into()),
            },
            frozen: o.get("frozen").filter(|f| !f.is_null()).cloned(),
        };
        let Some(Value::Array(fams)) = o.get("families") else {
            return Err("drift.families must be a list of {\"class\", \"family\"} entries".into());
        };
        for (i, f) in fams.iter().enumerate() {
            let place = format!("drift.families[{i}]");
            let text = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(class), Some(family)) = (text("class"), text("family")) else {
                return Err(format!("{place} needs a \"class\" and a \"family\""));
            };
            if super::families::family(&family).is_none() {
                return Err(format!(
                    "{place}: unknown drift family '{family}' (the families: {})",
                    super::families::names().join(", ")
                ));
            }
            let reference = match f.get("reference") {
                None | Some(Value::Null) => None,
                Some(r) => match (r.get("equip"), r.get("period")) {
                    (Some(Value::String(e)), p) => Some(DriftReference::Equip {
                        equip: e.clone(),
                        period: window(p.unwrap_or(&null), &format!("{place}.reference.period"))?,
                    }),
                    (None, Some(p)) => match window(p, &format!("{place}.reference.period"))? {
                        Some(w) => Some(DriftReference::Period(w)),
                        None => return Err(format!("{place}.reference.period must be [start, end]")),
                    },
                    _ => {
                        return Err(format!(
                            "{place}.reference must be {{\"equip\": <equipment>}} or {{\"period\": [start, end]}}"
                        ))
                    }
                },
            };
            s.families.push(DriftEntry {
                class,
                family,
                baseline: window(f.get("baseline").unwrap_or(&null), &format!("{place}.baseline"))?,
                current: window(f.get("current").unwrap_or(&null), &format!("{place}.current"))?,
                reference,
            });
        }
        if s.families.is_empty() {
            return Err("drift.families names no family".into());
        }
        Ok(Some(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_reference_formats_parse_and_mistakes_are_named() {
        let s = DriftSection::from_value(Some(&json!({"families": [{"class": "COOLING_TOWER", "family": "tower", "reference": {"equip": "TOWER__well_run"}}]})))
            .unwrap()
            .unwrap();
        assert_eq!(
            s.families[0].reference,
            Some(DriftReference::Equip { equip: "TOWER__well_run".into(), period: None })
        );
        let s = DriftSection::from_value(Some(&json!({"baseline": ["2025-06-28", "2025-07-01"], "current": ["2025-07-02", null], "families": [{"class": "CHILLER", "family": "chiller"}], "store": "b.json"})))
            .unwrap()
            .unwrap();
        assert_eq!(s.baseline, Some((Some("2025-06-28".into()), Some("2025-07-01".into()))));
        assert_eq!(s.current, Some((Some("2025-07-02".into()), None)));
        assert_eq!(s.store.as_deref(), Some("b.json"));
        assert_eq!(DriftSection::from_value(None).unwrap(), None);
        let e = |v: Value| DriftSection::from_value(Some(&v)).unwrap_err();
        assert!(
            e(json!({"families": [{"class": "AHU", "family": "airside"}]})).contains("unknown drift family 'airside'")
        );
        assert!(e(json!({"families": [{"family": "ahu"}]})).contains("needs a \"class\""));
        assert!(e(json!({"families": []})).contains("names no family"));
        assert!(
            e(json!({"baseline": "2025", "families": [{"class": "AHU", "family": "ahu"}]})).contains("drift.baseline")
        );
        assert!(e(json!({"families": [{"class": "AHU", "family": "ahu", "reference": {"x": 1}}]}))
            .contains("reference must be"));
    }
}
