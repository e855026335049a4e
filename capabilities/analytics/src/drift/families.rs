//! Drift families: which detectors judge which kind of equipment, and the roll-up that turns one
//! equipment's drift findings into a verdict (where the drift is and how bad). The names and
//! memberships are the reference's (`ahu`, `boiler`, `chiller`, `condenser`, `dx`, `evaporator`,
//! `hw_pump`, `pump`, `tower`, `vav`), so a run config written for it names the same families.
//!
//! A family lists its detectors by id with the part of the equipment each one speaks for (its
//! locus: `fan`, `filter`, `condenser` ...); a detector not built in this build is left out of
//! the family's run, and [`DriftFamily::missing`] names it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::{Finding, Severity};
use crate::family::family_of;

/// One drift family.
#[derive(Clone, Copy, Debug)]
pub struct DriftFamily {
    /// The name a run config and the `drift` capability use.
    pub name: &'static str,
    /// Its title in a report.
    pub label: &'static str,
    /// Its detectors in roll-up order, each with the locus a drift of it points at.
    pub detectors: &'static [(&'static str, &'static str)],
    /// How one equipment's findings roll up.
    pub diagnose: fn(&DriftFamily, &str, &[(&str, &Finding)]) -> Diagnosis,
}

impl DriftFamily {
    /// The family's detectors built in this build, in roll-up order.
    pub fn built(&self) -> Vec<super::DetectorSpec> {
        self.detectors.iter().filter_map(|(id, _)| super::spec(id)).collect()
    }

    /// The family's detectors this build does not have.
    pub fn missing(&self) -> Vec<&'static str> {
        self.detectors.iter().map(|d| d.0).filter(|id| super::spec(id).is_none()).collect()
    }

    /// The locus a detector of this family speaks for.
    pub fn locus(&self, detector: &str) -> &'static str {
        self.detectors.iter().find(|d| d.0 == detector).map_or("unknown", |d| d.1)
    }
}

/// Every drift family, sorted by name.
pub fn all() -> &'static [DriftFamily] {
    const CHILLER: &[(&str, &str)] = &[
        ("chiller_approach_drift", "heat_exchanger"),
        ("chiller_cw_range_drift", "condenser"),
        ("cooling_tower_approach_drift", "tower"),
        ("chiller_head_pressure_drift", "condenser"),
        ("chiller_subcooling_drift", "refrigerant_charge"),
        ("chiller_superheat_drift", "evaporator"),
        ("chiller_suction_pressure_drift", "evaporator"),
    ];
    const FAMILIES: &[DriftFamily] = &[
        DriftFamily {
            name: "ahu",
            label: "AHU air-side drift",
            detectors: &[
                ("fan_efficiency_drift", "fan"),
                ("filter_loading_drift", "filter"),
                ("duct_static_drift", "static_control"),
                ("economizer_damper_drift", "economizer"),
                ("coil_valve_drift", "coil_valve"),
                ("coil_leak_drift", "coil_valve"),
            ],
            diagnose: super::ahu::diagnose,
        },
        DriftFamily {
            name: "boiler",
            label: "Boiler combustion-efficiency drift",
            detectors: &[("boiler_efficiency_drift", "boiler")],
            diagnose: with_attribution,
        },
        DriftFamily {
            name: "chiller",
            label: "Chiller drift",
            detectors: CHILLER,
            diagnose: super::chiller_rollup::chiller,
        },
        DriftFamily {
            name: "condenser",
            label: "Condenser heat-rejection drift",
            detectors: &[
                ("chiller_approach_drift", "heat_exchanger"),
                ("chiller_cw_range_drift", "condenser"),
                ("cooling_tower_approach_drift", "tower"),
                ("chiller_head_pressure_drift", "condenser"),
            ],
            diagnose: super::chiller_rollup::condenser,
        },
        DriftFamily {
            name: "dx",
            label: "DX / heat-pump refrigerant-side drift",
            detectors: &[
                ("dx_refrigerant_charge_drift", "refrigerant_charge"),
                ("dx_indoor_airflow_drift", "indoor_airflow"),
                ("discharge_superheat_drift", "compressor"),
            ],
            diagnose: super::dx::diagnose,
        },
        DriftFamily {
            name: "evaporator",
            label: "Evaporator / chilled-water drift",
            detectors: &[
                ("chiller_approach_drift", "heat_exchanger"),
                ("chiller_superheat_drift", "evaporator"),
                ("chiller_suction_pressure_drift", "evaporator"),
            ],
            diagnose: super::chiller_rollup::evaporator,
        },
        DriftFamily {
            name: "hw_pump",
            label: "Hot-water pump / loop drift",
            detectors: &[
                ("hw_pump_flow_drift", "pump"),
                ("hw_pump_head_drift", "pump"),
                ("hw_loop_deltat_drift", "loop"),
                ("hw_loop_dp_drift", "loop"),
                ("hw_pump_power_drift", "pump"),
            ],
            diagnose: by_locus,
        },
        DriftFamily {
            name: "pump",
            label: "Pump / hydronic drift",
            detectors: &[
                ("pump_flow_drift", "pump"),
                ("pump_head_drift", "pump"),
                ("loop_deltat_drift", "loop"),
                ("loop_dp_drift", "loop"),
                ("pump_power_drift", "pump"),
            ],
            diagnose: by_locus,
        },
        DriftFamily {
            name: "tower",
            label: "Cooling-tower drift",
            detectors: &[("cooling_tower_approach_drift", "tower"), ("cooling_tower_fan_effort_drift", "tower")],
            diagnose: with_attribution,
        },
        DriftFamily {
            name: "vav",
            label: "VAV zone-terminal drift",
            detectors: &[("vav_airflow_drift", "airflow"), ("vav_reheat_valve_drift", "reheat_valve")],
            diagnose: super::vav::diagnose,
        },
    ];
    FAMILIES
}

/// The family with this name.
pub fn family(name: &str) -> Option<&'static DriftFamily> {
    all().iter().find(|f| f.name == name)
}

/// The sorted family names.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|f| f.name).collect()
}

/// The drift family that judges a stored equipment class by default (the reference's defaults:
/// air handler `ahu`, terminal `vav`, chiller `chiller`, hot-water plant `boiler`, cooling tower
/// `tower`, pump `pump`, DX `dx`); `None` for a class no family judges.
pub fn default_for(class: &str) -> Option<&'static str> {
    match family_of(class)? {
        "air_handler" => Some("ahu"),
        "terminal" => Some("vav"),
        "chw_plant" if !crate::chiller::is_chw_loop(class) => Some("chiller"),
        "hw_plant" => Some("boiler"),
        "cooling_tower" => Some("tower"),
        "pump" => Some("pump"),
        "dx" => Some("dx"),
        _ => None,
    }
}

/// One equipment's drift verdict from one family.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    pub family: String,
    pub equip: String,
    /// The worst judged finding's severity (`ok` when every judged one is).
    pub severity: Severity,
    /// Where the drift is: `steady` (nothing drifted), the locus of the worst drifting detector
    /// (`fan`, `condenser` ...), or `several` when drifts at warn or worse point at more than one;
    /// a family's own roll-up may say more (`sensor`, `unknown`, `refrigerant_circuit`).
    pub locus: String,
    /// Every locus at warn or worse, worst first.
    pub loci: Vec<String>,
    pub summary: String,
    /// Each judged detector: its severity and summary.
    pub signals: BTreeMap<String, (Severity, String)>,
    /// The detectors that could not judge, and why, and what the roll-up adds.
    pub caveats: Vec<String>,
    /// The likely causes, worst first, from a family roll-up that names them (`ahu`, `vav`);
    /// empty from [`by_locus`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<String>,
}

/// The default roll-up: the worst judged finding sets the severity; the loci of the detectors
/// at warn or worse say where the drift is. A finding that did not judge (declined, no baseline)
/// is a caveat, never a pass; callers list an equipment with no judged finding as unevaluated
/// rather than diagnose it.
pub fn by_locus(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let judged: Vec<&(&str, &Finding)> = findings.iter().filter(|(_, f)| f.judged > 0).collect();
    let caveats: Vec<String> = findings
        .iter()
        .filter(|(_, f)| f.judged == 0)
        .map(|(d, f)| format!("{d} did not judge: {}", f.summary))
        .collect();
    let signals = judged.iter().map(|(d, f)| (d.to_string(), (f.severity, f.summary.clone()))).collect();
    let mut drifting: Vec<&(&str, &Finding)> =
        judged.iter().copied().filter(|(_, f)| f.severity >= Severity::Warn).collect();
    drifting.sort_by_key(|d| std::cmp::Reverse(d.1.severity));
    let mut loci: Vec<String> = Vec::new();
    for (d, _) in &drifting {
        let l = family.locus(d).to_string();
        if !loci.contains(&l) {
            loci.push(l);
        }
    }
    let severity = judged.iter().map(|(_, f)| f.severity).max().unwrap_or(Severity::Info);
    let (locus, summary) = match drifting.first() {
        None => ("steady".to_string(), format!("{equip}: no {} drift on {} check(s)", family.name, judged.len())),
        Some((d, f)) => {
            let locus = if loci.len() > 1 { "several".to_string() } else { loci[0].clone() };
            (locus, format!("{equip}: {} ({d}): {}", family.locus(d).replace('_', " "), f.summary))
        }
    };
    Diagnosis {
        family: family.name.into(),
        equip: equip.into(),
        severity,
        locus,
        loci,
        summary,
        signals,
        caveats,
        causes: Vec::new(),
    }
}

/// The roll-up of the plant families (`boiler`, `tower`), whose detectors say when a symptom is
/// a sensor's rather than the equipment's (metric `attribution_sensor` 1: a boiler's heat
/// metering, a tower's leaving-water sensor; the finding is then info) or that they could not
/// tell the two apart (`attribution_unconfirmed` 1). On top of [`by_locus`]: the worst drift
/// names the family's locus, or `unknown` when its detector could not confirm the equipment;
/// with nothing at warn or worse, a sensor attribution names the `sensor`; beside a drift it is
/// a caveat to check that sensor first.
pub fn with_attribution(family: &DriftFamily, equip: &str, findings: &[(&str, &Finding)]) -> Diagnosis {
    let mut d = by_locus(family, equip, findings);
    let says = |f: &Finding, key: &str| f.judged > 0 && f.metrics.get(key) == Some(&1.0);
    let sensor: Vec<&(&str, &Finding)> = findings.iter().filter(|(_, f)| says(f, "attribution_sensor")).collect();
    if d.severity >= Severity::Warn {
        let worst = findings.iter().find(|(_, f)| f.judged > 0 && f.severity == d.severity);
        if let Some((id, f)) = worst.filter(|(_, f)| says(f, "attribution_unconfirmed")) {
            d.locus = "unknown".into();
            d.summary = format!("{equip}: unconfirmed ({id}): {}", f.summary);
        }
        for (id, f) in sensor {
            d.caveats.push(format!("{id} reads its own shift as a sensor's, not the equipment's: {}", f.summary));
        }
    } else if let Some((id, f)) = sensor.first() {
        d.locus = "sensor".into();
        d.summary = format!("{equip}: sensor ({id}): {}", f.summary);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_families_and_their_defaults() {
        assert_eq!(
            names(),
            ["ahu", "boiler", "chiller", "condenser", "dx", "evaporator", "hw_pump", "pump", "tower", "vav"]
        );
        assert_eq!(default_for("AHU"), Some("ahu"));
        assert_eq!(default_for("VAV"), Some("vav"));
        assert_eq!(default_for("COOLING_TOWER"), Some("tower"));
        assert_eq!(default_for("HW_PLANT"), Some("boiler"));
        assert_eq!(default_for("SOMETHING_ELSE"), None);
        // the built pump detectors run; every detector a family names is built or named missing
        let pump = family("pump").unwrap();
        assert_eq!(pump.built().len(), 5);
        for f in all() {
            assert_eq!(f.built().len() + f.missing().len(), f.detectors.len(), "{}", f.name);
        }
    }

    #[test]
    fn the_roll_up_names_the_worst_locus_and_never_passes_what_did_not_judge() {
        let judged = |sev: Severity, s: &str| {
            let mut f = Finding::of("x", "", sev, s);
            f.judged = 100;
            f
        };
        let fam = family("pump").unwrap();
        let (a, b) = (judged(Severity::Ok, "flow holds"), judged(Severity::Warn, "loop dp rose"));
        let not = Finding::of("x", "", Severity::Info, "no baseline: too few samples");
        let d = by_locus(fam, "P-1", &[("pump_flow_drift", &a), ("loop_dp_drift", &b), ("pump_head_drift", &not)]);
        assert_eq!((d.severity, d.locus.as_str()), (Severity::Warn, "loop"));
        assert!(d.summary.contains("loop dp rose"), "{}", d.summary);
        assert_eq!(d.caveats.len(), 1);
        assert_eq!(d.signals.len(), 2);
        let steady = by_locus(fam, "P-1", &[("pump_flow_drift", &a)]);
        assert_eq!((steady.severity, steady.locus.as_str()), (Severity::Ok, "steady"));
        // two loci drifting
        let c = judged(Severity::Fault, "flow fell");
        let d = by_locus(fam, "P-1", &[("pump_flow_drift", &c), ("loop_dp_drift", &b)]);
        assert_eq!(
            (d.severity, d.locus.as_str(), d.loci.clone()),
            (Severity::Fault, "several", vec!["pump".to_string(), "loop".to_string()])
        );
    }
}
