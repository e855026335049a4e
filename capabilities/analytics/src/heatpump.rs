//! What the heat-pump operating rules share (`hp_mode_vs_need`, `hp_capacity_shortfall`,
//! `hp_room_imbalance`): the unit's operating mode at each sample, which reversals are defrosts,
//! the comfort band it is judged against, and its occupied samples. Each is decided here once,
//! so the three rules agree on it.
//!
//! A water-to-air heat pump in a school or office is often trended with only its discharge air,
//! its fan and the zone temperature: no compressor status, no reversing valve. The mode still
//! shows: heating air leaves well above the room, cooling air well below it. With a compressor
//! status and a reversing-valve command trended the mode is read from them instead (compressor
//! off: idle; valve at 1: heating, at 0: cooling), and then an air-source unit's defrost, which
//! reverses the valve for a few minutes with the compressor running, would read as cooling: a
//! cooling run of at most `max_defrost_min` with heating on both sides is a defrost and counts
//! as heating.

use crate::engine::{assumed_occupied, on, Finding, Frame, Inputs, ParamSpec, Params, RuleSpec, Severity};

/// Heating: `1`; cooling: `-1`; idle: `0`; NaN: unknown.
pub const HEATING: f64 = 1.0;
pub const COOLING: f64 = -1.0;
pub const IDLE: f64 = 0.0;

/// What the three rules read.
pub const INPUTS: Inputs = Inputs {
    required: &["supply_air_temp", "space_temp"],
    optional: &[
        "supply_fan_status",
        "heat_sp",
        "cool_sp",
        "occupancy",
        "compressor_status",
        "reversing_valve_cmd",
        "heat_valve",
        "cool_valve",
    ],
    gating: &[],
    one_of: &[],
    needs_gating: false,
};

/// The parameters the three rules share, after each rule's own.
pub fn band_params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::number(
            "heat_sp_f",
            68.0,
            "°F",
            (60.0, 74.0),
            "a common occupied heating setpoint, used only where the zone's heating setpoint is not trended",
            "Map heat_sp where the thermostat's setpoint is trended (it always wins); else give the site's occupied heating setpoint, one value or one per unit keyed by equipment patterns.",
        ),
        ParamSpec::number(
            "cool_sp_f",
            76.0,
            "°F",
            (70.0, 82.0),
            "a common occupied cooling setpoint, used only where the zone's cooling setpoint is not trended",
            "Map cool_sp where it is trended; else give the site's occupied cooling setpoint.",
        ),
        ParamSpec::number(
            "band_tol_f",
            1.0,
            "°F (past the setpoint)",
            (0.0, 3.0),
            "a thermostat swings about a degree past its setpoint before it answers",
            "Set it to the thermostat's differential (its dead band each side), read from the controller or from a healthy unit's zone swing.",
        ),
        ParamSpec::number(
            "heat_rise_f",
            15.0,
            "°F (discharge air above the zone)",
            (8.0, 30.0),
            "a water-to-air heat pump heating blows air 15-35 °F warmer than the room",
            "Used only without a compressor status and reversing valve. Take a healthy unit's discharge-minus-zone in steady heating and set this well under it, above the fan heat and the drift of an idle coil.",
        ),
        ParamSpec::number(
            "cool_drop_f",
            10.0,
            "°F (discharge air below the zone)",
            (5.0, 20.0),
            "a unit cooling blows air 10-20 °F colder than the room",
            "Used only without a compressor status and reversing valve. Take a healthy unit's zone-minus-discharge in steady cooling and set this well under it.",
        ),
        ParamSpec::number(
            "max_defrost_min",
            15.0,
            "minutes (one reversed run with the compressor on)",
            (0.0, 30.0),
            "a defrost ends on the coil's temperature or a 10-14 minute timer",
            "Used only with a compressor status and reversing valve. Set it a little above the defrost board's longest defrost; 0 counts every reversal as cooling.",
        ),
    ]
}

/// Where the mode was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeSource {
    /// The compressor status and the reversing valve.
    Status,
    /// The discharge air against the zone.
    Discharge,
}

/// The mode at each sample (see [`HEATING`]) and where it was read from; `None` when the frame
/// has neither a compressor status with a reversing valve nor a discharge air with a zone
/// temperature. A fan status reading off forces idle (no air, no mode delivered).
pub fn mode(frame: &Frame, heat_rise_f: f64, cool_drop_f: f64) -> Option<(Vec<f64>, ModeSource)> {
    let n = frame.len();
    let (mut m, source) = match (frame.col("compressor_status"), frame.col("reversing_valve_cmd")) {
        (Some(comp), Some(rv)) => {
            let m = (0..n)
                .map(|i| match (comp[i], rv[i]) {
                    (c, r) if c.is_nan() || r.is_nan() => f64::NAN,
                    (c, _) if c <= 0.5 => IDLE,
                    (_, r) if r > 0.5 => HEATING,
                    _ => COOLING,
                })
                .collect::<Vec<f64>>();
            (m, ModeSource::Status)
        }
        _ => {
            let (sat, zone) = (frame.col("supply_air_temp")?, frame.col("space_temp")?);
            let m = (0..n)
                .map(|i| {
                    let d = sat[i] - zone[i];
                    if d.is_nan() {
                        f64::NAN
                    } else if d >= heat_rise_f {
                        HEATING
                    } else if d <= -cool_drop_f {
                        COOLING
                    } else {
                        IDLE
                    }
                })
                .collect::<Vec<f64>>();
            (m, ModeSource::Discharge)
        }
    };
    if let Some(fan) = frame.col("supply_fan_status") {
        for (x, f) in m.iter_mut().zip(fan) {
            if !f.is_nan() && *f < 0.5 {
                *x = IDLE;
            }
        }
    }
    Some((m, source))
}

/// The samples of `mode` that are a defrost: with the mode read from the status, a run of
/// cooling samples standing for at most `max_defrost_min` minutes (each sample for the time in
/// `weights_h`) with a heating sample on each side. A lone cooling sample between heating ones is
/// a defrost too, however long it stands for: on a trend logged less often than a defrost lasts,
/// one snapshot that caught a defrost looks the same, and a valve truly stuck in cooling shows as
/// a run of samples. A run at either end of the trend, or beside an idle or unknown sample,
/// stays cooling.
pub fn defrosts(mode: &[f64], source: ModeSource, weights_h: &[f64], max_defrost_min: f64) -> Vec<bool> {
    let mut out = vec![false; mode.len()];
    if source != ModeSource::Status || max_defrost_min <= 0.0 || mode.len() < 3 {
        return out;
    }
    let mut i = 0;
    while i < mode.len() {
        if mode[i] != COOLING {
            i += 1;
            continue;
        }
        let start = i;
        while i < mode.len() && mode[i] == COOLING {
            i += 1;
        }
        let minutes: f64 = weights_h[start..i].iter().sum::<f64>() * 60.0;
        if start > 0
            && i < mode.len()
            && mode[start - 1] == HEATING
            && mode[i] == HEATING
            && (i - start == 1 || minutes <= max_defrost_min + 1e-9)
        {
            out[start..i].iter_mut().for_each(|x| *x = true);
        }
    }
    out
}

/// Why a frame reads as a hydronic coil unit rather than a heat pump (a heating or cooling valve
/// with no compressor status and no reversing valve: a terminal box's reheat, a fan coil, an air
/// handler), or `None`. A heat pump with a supplementary heating valve still has a compressor
/// or valve signal.
pub fn coil_unit(frame: &Frame) -> Option<String> {
    if frame.col("compressor_status").is_some() || frame.col("reversing_valve_cmd").is_some() {
        return None;
    }
    let valves: Vec<&str> = ["heat_valve", "cool_valve"].into_iter().filter(|r| frame.col(r).is_some()).collect();
    (!valves.is_empty()).then(|| {
        format!(
            "{} trended with no compressor status or reversing valve: a hydronic coil unit (terminal box, fan coil, air handler), not a heat pump; reheat_capacity_shortfall judges a box's reheat",
            valves.join(" and ")
        )
    })
}

/// The answer for a unit the rule does not judge: an info finding saying why.
pub fn declined(spec: &RuleSpec, why: &str) -> Finding {
    Finding::new(spec, Severity::Info, format!("declined -- {why}"))
        .with_caveats(vec![format!("not judged: {why}; this is not a pass")])
}

/// One unit as the three rules judge it.
pub struct Prepared {
    /// The mode at each sample, defrosts counted as heating.
    pub mode: Vec<f64>,
    pub source: ModeSource,
    /// The defrost samples.
    pub defrost: Vec<bool>,
    /// The zone below its heating band (more than `band_tol_f` under the heating setpoint).
    pub cold: Vec<bool>,
    /// The zone above its cooling band.
    pub hot: Vec<bool>,
    /// Occupied, with a mode and a zone temperature: the samples judged.
    pub valid: Vec<bool>,
    /// Occupied (the occupancy point, else the assumed schedule).
    pub occupied: Vec<bool>,
    /// What was assumed (the band, the schedule).
    pub caveats: Vec<String>,
}

/// Prepare a unit with the shared parameters of `spec`; `None` when no mode can be read.
pub fn prepare(spec: &RuleSpec, frame: &Frame, params: &Params) -> Option<Prepared> {
    let p = |name: &str| params.number(spec, name);
    let (mut mode, source) = mode(frame, p("heat_rise_f"), p("cool_drop_f"))?;
    let w = frame.weights_hours();
    let defrost = defrosts(&mode, source, &w, p("max_defrost_min"));
    for (m, d) in mode.iter_mut().zip(&defrost) {
        if *d {
            *m = HEATING;
        }
    }
    let zone = frame.col("space_temp")?;
    let mut caveats = Vec::new();
    let mut assumed = Vec::new();
    let (hsp, csp) = (frame.col("heat_sp"), frame.col("cool_sp"));
    let (heat_sp, cool_sp) = (p("heat_sp_f"), p("cool_sp_f"));
    if hsp.is_none() {
        assumed.push(format!("heating {heat_sp} °F"));
    }
    if csp.is_none() {
        assumed.push(format!("cooling {cool_sp} °F"));
    }
    if !assumed.is_empty() {
        caveats.push(format!(
            "no zone setpoint trended: judged against an assumed comfort band ({}); set heat_sp_f and cool_sp_f to the site's",
            assumed.join(", ")
        ));
    }
    let occ = frame.col("occupancy");
    if occ.is_none() {
        caveats.push(
            "no occupancy point is trended: occupied time is assumed to be weekdays from 07:00 to 18:00".to_string(),
        );
    }
    let tol = p("band_tol_f");
    let n = frame.len();
    let occupied: Vec<bool> = (0..n).map(|i| occ.map_or_else(|| assumed_occupied(frame.ts[i]), |o| on(o[i]))).collect();
    let cold = (0..n).map(|i| zone[i] < hsp.map_or(heat_sp, |s| s[i]) - tol).collect();
    let hot = (0..n).map(|i| zone[i] > csp.map_or(cool_sp, |s| s[i]) + tol).collect();
    let valid = (0..n).map(|i| occupied[i] && !mode[i].is_nan() && !zone[i].is_nan()).collect();
    Some(Prepared { mode, source, defrost, cold, hot, valid, occupied, caveats })
}

/// Hours of the samples `keep` picks, each weighing `w`.
pub fn hours(w: &[f64], keep: impl Fn(usize) -> bool) -> f64 {
    (0..w.len()).filter(|&i| keep(i)).map(|i| w[i]).sum::<f64>() + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testing::{every, MINUTE, MONDAY};

    #[test]
    fn the_mode_from_the_status_else_the_discharge_air() {
        let ts = every(MONDAY, 5 * MINUTE, 5);
        let f = Frame::from_rows(
            &ts,
            &[
                ("compressor_status", vec![1.0, 1.0, 0.0, 1.0, f64::NAN]),
                ("reversing_valve_cmd", vec![1.0, 0.0, 1.0, 1.0, 1.0]),
                ("supply_fan_status", vec![1.0, 1.0, 1.0, 0.0, 1.0]),
                ("supply_air_temp", vec![50.0; 5]),
                ("space_temp", vec![70.0; 5]),
            ],
        );
        let (m, src) = mode(&f, 15.0, 10.0).unwrap();
        assert_eq!(src, ModeSource::Status);
        assert_eq!(m[..4], [HEATING, COOLING, IDLE, IDLE], "the fan off is idle");
        assert!(m[4].is_nan());
        let g = Frame::from_rows(
            &ts,
            &[("supply_air_temp", vec![85.0, 84.9, 60.0, 60.1, f64::NAN]), ("space_temp", vec![70.0; 5])],
        );
        let (m, src) = mode(&g, 15.0, 10.0).unwrap();
        assert_eq!(src, ModeSource::Discharge);
        assert_eq!(m[..4], [HEATING, IDLE, COOLING, IDLE]);
        assert!(m[4].is_nan());
        assert!(mode(&Frame::from_rows(&ts, &[("space_temp", vec![70.0; 5])]), 15.0, 10.0).is_none());
    }

    #[test]
    fn a_short_reversal_between_heating_is_a_defrost() {
        let w = vec![5.0 / 60.0; 9];
        let m = [HEATING, COOLING, COOLING, COOLING, HEATING, COOLING, IDLE, COOLING, COOLING];
        // 15 minutes between heating: a defrost; beside idle, or at the end: cooling
        assert_eq!(
            defrosts(&m, ModeSource::Status, &w, 15.0),
            [false, true, true, true, false, false, false, false, false]
        );
        assert_eq!(defrosts(&m, ModeSource::Status, &w, 14.9), [false; 9]);
        assert_eq!(defrosts(&m, ModeSource::Status, &w, 0.0), [false; 9]);
        assert_eq!(defrosts(&m, ModeSource::Discharge, &w, 15.0), [false; 9]);
    }

    #[test]
    fn an_hourly_snapshot_of_a_defrost_is_not_an_hour_of_cooling() {
        let w = vec![1.0; 7];
        let m = [HEATING, COOLING, HEATING, COOLING, COOLING, HEATING, HEATING];
        // one hourly sample caught mid-defrost is a defrost; two in a row are cooling
        assert_eq!(defrosts(&m, ModeSource::Status, &w, 15.0), [false, true, false, false, false, false, false]);
    }

    #[test]
    fn a_coil_unit_is_not_a_heat_pump() {
        let f = Frame::from_rows(&[0], &[("heat_valve", vec![50.0])]);
        assert!(coil_unit(&f).unwrap().contains("heat_valve trended"));
        let hp = Frame::from_rows(&[0], &[("heat_valve", vec![50.0]), ("compressor_status", vec![1.0])]);
        assert!(coil_unit(&hp).is_none());
    }
}
