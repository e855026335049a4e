//! `camber drift fit`: a person freezes the drift baselines of a facility's run config, so later
//! `drift` calls compare against them. It fits each family of the config's `drift` section that
//! declares no reference (a twin or a period is re-read on every call and never frozen) on a
//! known-good window, with the trust floor applied, and returns the file's contents; the caller
//! writes it. Capabilities never write: this runs in the host, on a person's command.

use std::collections::BTreeMap;

use camber_analytics::config::RunConfig;
use camber_analytics::drift::families;
use camber_analytics::drift::run::{fit_family, FrozenBaselines, FROZEN_KIND};
use camber_analytics::family::class_matches;
use camber_analytics::run::{with_shared, EquipFrame};
use camber_analytics::Frame;
use camber_common::time::{iso_from_ns, ns_from_iso};
use camber_store::StoreDir;

use crate::runconfig::{run_config_for, RunConfigs};

/// What a fit made, and what it could not.
pub struct Fitted {
    pub baselines: FrozenBaselines,
    /// `(equipment, detector, why)` for each detector that could not be fitted.
    pub left: Vec<(String, String, String)>,
}

/// Fit the drift baselines of `fid`'s run config on `[start, end]` (ISO; else the config's
/// `drift.baseline`).
pub fn fit(
    store: &StoreDir,
    configs: &RunConfigs,
    fid: &str,
    window: Option<(String, String)>,
    min_trust: f64,
) -> Result<Fitted, String> {
    let rc = run_config_for(configs, store, fid, min_trust).map_err(|e| e.message)?;
    let config = RunConfig::from_value(&rc["config"]).map_err(|e| format!("the run config does not check: {e}"))?;
    let Some(section) = &config.drift else {
        return Err(format!("the run config for '{fid}' has no drift section: nothing to fit"));
    };
    let (start, end) = match window {
        Some(w) => w,
        None => match &section.baseline {
            Some((Some(a), Some(b))) => (a.clone(), b.clone()),
            _ => {
                return Err(
                    "give the known-good window with --baseline START END (the config's drift section names none)"
                        .into(),
                )
            }
        },
    };
    let parse = |s: &str| ns_from_iso(s).ok_or_else(|| format!("'{s}' is not a valid date or date-time"));
    let (a, mut b) = (parse(&start)?, parse(&end)?);
    if end.len() == 10 {
        b += 86_400_000_000_000 - 1;
    }
    if b < a {
        return Err("the baseline window ends before it starts".into());
    }
    let floor = rc["min_trust"].as_f64().unwrap_or(min_trust);
    // the grid the drift runs this file serves will read (the rule_run component's drift_step)
    let step = if config.native {
        let times = store.read_times(fid, &[], &[], None, None).map_err(|e| e.message)?;
        let (classes, also) = section.judged();
        camber_analytics::grid::drift_step(
            times.iter().map(|(k, runs)| {
                let interval = camber_analytics::grid::logged_interval(runs.iter().map(|r| (r.step, r.count)));
                (k.equip.as_str(), k.equip_class.as_str(), interval)
            }),
            &classes,
            &also,
            config.resample_ns,
        )
    } else {
        config.resample_ns
    };
    let grid = store.read_grid(fid, &[], Some(a), Some(b), step).map_err(|e| e.message)?;
    if grid.iter().all(|g| g.frame.ts.is_empty()) {
        return Err(format!("the window {start} .. {end} holds no stored sample of '{fid}'"));
    }
    let shared = config.shared_oat.as_ref().and_then(|(e, role): &(String, String)| {
        let g = grid.iter().find(|g| g.equip == *e)?;
        let k = g.frame.roles.iter().position(|r| r == role)?;
        Some((role.clone(), g.frame.ts.to_vec(), g.frame.values[k].to_vec()))
    });
    let frames: Vec<EquipFrame> = grid
        .into_iter()
        .map(|g| {
            let cols = g.frame.roles.into_iter().zip(g.frame.values.iter().map(|c| c.to_vec())).collect();
            let mut frame = Frame { ts: g.frame.ts.to_vec(), cols };
            if let Some((role, ts, v)) = &shared {
                frame = with_shared(frame, role, ts, v);
            }
            EquipFrame { equip: g.equip, class: g.equip_class, frame }
        })
        .collect();
    let (mut entries, mut left) = (Vec::new(), Vec::new());
    let mut fitted_any = false;
    for e in section.families.iter().filter(|e| e.reference.is_none()) {
        fitted_any = true;
        let fam = families::family(&e.family).ok_or_else(|| format!("unknown drift family '{}'", e.family))?;
        let members: Vec<&EquipFrame> = frames.iter().filter(|f| class_matches(&f.class, &e.class)).collect();
        let (mut en, mut l) = fit_family(fam, &members, (Some(a), Some(b)), &BTreeMap::new(), floor, step);
        entries.append(&mut en);
        left.append(&mut l);
    }
    if !fitted_any {
        return Err("every family of the drift section declares a reference, which is re-read on every call and never frozen: nothing to fit".into());
    }
    Ok(Fitted {
        baselines: FrozenBaselines {
            kind: FROZEN_KIND.into(),
            format: camber_analytics::drift::BASELINE_FORMAT,
            facility_id: fid.into(),
            window: (Some(iso_from_ns(a)), Some(iso_from_ns(b))),
            resample_minutes: camber_analytics::grid::minutes(step),
            entries,
        },
        left,
    })
}
