//! The `mv` section of a run config, in the reference's format: a list of entries, each a
//! stored `class` of meters with the `role` read as an hourly energy rate (default
//! `energy_rate`), the baseline `period`, an optional `reporting_period` (and a chain's
//! `intermediate_period`), the SEP `method` and uncertainty `kernel`, the model form and its
//! drivers, the calendars, the validity regime, the data floors (`min_days`, `min_coverage`),
//! the `extrapolation` policy, the `rebaseline` block, the `adjustments` ledger and the meter's
//! `units`. Every mistake is refused with one line naming it, and the three periods of an entry
//! may not overlap (a saving measured on its own baseline days is no saving). Keys the engine
//! does not read are ignored, as the reference ignores them.

use camber_common::time::ns_from_iso;
use serde_json::Value;

use super::coverage::ExtrapolationPolicy;

const NS_PER_DAY: i64 = 86_400_000_000_000;

/// A period as written and as a half-open range of naive nanoseconds (an open end is `None`).
/// A date-only end includes its whole day, as the reference's date slicing does.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub written: (Option<String>, Option<String>),
    pub start: Option<i64>,
    pub end: Option<i64>,
}

impl Window {
    /// Whether `ns` falls inside.
    pub fn contains(&self, ns: i64) -> bool {
        self.start.is_none_or(|s| ns >= s) && self.end.is_none_or(|e| ns < e)
    }

    fn overlaps(&self, o: &Window) -> bool {
        let (a0, a1) = (self.start.unwrap_or(i64::MIN), self.end.unwrap_or(i64::MAX));
        let (b0, b1) = (o.start.unwrap_or(i64::MIN), o.end.unwrap_or(i64::MAX));
        a0 < b1 && b0 < a1
    }

    /// Days covered, when both ends are set.
    pub fn days(&self) -> Option<i64> {
        Some((self.end? - self.start?).div_euclid(NS_PER_DAY))
    }
}

/// The SEP adjustment-model method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Forecast,
    Backcast,
    Chaining,
    StandardConditions,
    Auto,
}

impl Method {
    /// Its name in a config.
    pub fn name(self) -> &'static str {
        match self {
            Method::Forecast => "forecast",
            Method::Backcast => "backcast",
            Method::Chaining => "chaining",
            Method::StandardConditions => "standard_conditions",
            Method::Auto => "auto",
        }
    }
}

/// The uncertainty kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    G14,
    Exact,
}

impl Kernel {
    /// Its name in a config.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::G14 => "g14",
            Kernel::Exact => "exact",
        }
    }
}

/// A model driver beside outdoor air.
#[derive(Clone, Debug, PartialEq)]
pub enum Driver {
    /// 1 Monday to Friday.
    Weekday,
    /// 1 on an occupied weekday that is not a holiday.
    OccupiedDay,
    /// 1 on an occupied, non-holiday day of the break calendar.
    BreakDay,
    /// The daily mean of a trended role.
    Role(String),
}

impl Driver {
    /// Its name in a config.
    pub fn name(&self) -> &str {
        match self {
            Driver::Weekday => "weekday",
            Driver::OccupiedDay => "occupied_day",
            Driver::BreakDay => "break_day",
            Driver::Role(r) => r,
        }
    }
}

/// A holiday (or break) calendar: listed dates (day numbers), and a country code the reference
/// resolves from its bundled calendars, which this engine does not carry.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Calendar {
    pub dates: Vec<i64>,
    pub country: Option<String>,
}

/// A declared significant change (trigger T2).
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredChange {
    pub day: i64,
    pub date: String,
    pub description: String,
    pub magnitude: String,
}

/// A tracked static factor (trigger T3).
#[derive(Clone, Debug, PartialEq)]
pub struct StaticFactor {
    pub factor: String,
    pub baseline_value: f64,
    pub value: f64,
    pub day: i64,
    pub date: String,
    pub tolerance: f64,
}

/// The `rebaseline` block: when a baseline no longer holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Rebaseline {
    pub detect: bool,
    pub min_segment_days: usize,
    pub materiality: f64,
    pub major_step_frac: f64,
    pub max_achievement_months: f64,
    pub events: Vec<DeclaredChange>,
    pub static_factors: Vec<StaticFactor>,
}

impl Default for Rebaseline {
    fn default() -> Self {
        Rebaseline {
            detect: true,
            min_segment_days: 28,
            materiality: 0.0,
            major_step_frac: 0.20,
            max_achievement_months: 36.0,
            events: Vec::new(),
            static_factors: Vec::new(),
        }
    }
}

/// One `mv` entry, parsed and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct MvEntry {
    pub class: String,
    pub role: String,
    pub period: Option<Window>,
    pub reporting_period: Option<Window>,
    pub intermediate_period: Option<Window>,
    pub method: Method,
    /// Whether the entry named its method (undeclared, forecast is used and said so).
    pub method_declared: bool,
    pub kernel: Kernel,
    /// `change_point` or `cp_driver`.
    pub model: String,
    pub drivers: Vec<Driver>,
    /// Occupied weekdays, Monday = 0.
    pub occupied_weekdays: Vec<i64>,
    pub holidays: Calendar,
    pub break_calendar: Calendar,
    pub normal_year: Option<Vec<f64>>,
    /// `g14`, `sep` or `both`.
    pub validity: String,
    pub min_days: usize,
    pub min_coverage: f64,
    pub extrapolation: ExtrapolationPolicy,
    pub rebaseline: Option<Rebaseline>,
    /// The ledger as written (checked for shape; not applied by this engine).
    pub adjustments: Vec<Value>,
    /// The meter's rate unit, canonical (`kW`, `Btu/h`, `kBtu/h`, `MMBtu/h`, `ton`).
    pub units: Option<String>,
}

/// kW per one unit of each rate unit this engine converts, with the energy unit an hour of it is.
pub const RATE_UNITS: [(&str, f64, &str); 5] = [
    ("kW", 1.0, "kWh"),
    ("Btu/h", 1.0 / 3_412.141_633_127_942, "Btu"),
    ("kBtu/h", 1.0 / 3.412_141_633_127_942, "kBtu"),
    ("MMBtu/h", 1000.0 / 3.412_141_633_127_942, "MMBtu"),
    ("ton", 12.0 / 3.412_141_633_127_942, "ton-hour"),
];

fn rate_unit(s: &str) -> Option<&'static str> {
    let k: String = s.to_lowercase().chars().filter(|c| !c.is_whitespace() && *c != '-' && *c != '_').collect();
    Some(match k.as_str() {
        "kw" | "kilowatt" | "kilowatts" => "kW",
        "btu/h" | "btuh" | "btu/hr" | "btuhr" => "Btu/h",
        "kbtu/h" | "kbtuh" | "kbtu/hr" | "kbtuhr" | "mbh" | "mbtuh" => "kBtu/h",
        "mmbtu/h" | "mmbtuh" | "mmbtu/hr" | "mmbtuhr" => "MMBtu/h",
        "ton" | "tons" | "tr" => "ton",
        _ => return None,
    })
}

fn window(v: Option<&Value>, place: &str) -> Result<Option<Window>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let bad = || format!("{place} must be a [start, end] pair of dates or null ends, got {v}");
    let Value::Array(a) = v else { return Err(bad()) };
    if a.len() != 2 {
        return Err(bad());
    }
    let mut written = (None, None);
    let mut ns = [None, None];
    for (k, x) in a.iter().enumerate() {
        match x {
            Value::Null => {}
            Value::String(s) => {
                let t = ns_from_iso(s).ok_or_else(|| format!("{place}: '{s}' is not a date"))?;
                let date_only = !s.trim().contains(['T', ' ']);
                ns[k] = Some(if k == 1 {
                    if date_only {
                        t + NS_PER_DAY
                    } else {
                        t + 1
                    }
                } else {
                    t
                });
                if k == 0 {
                    written.0 = Some(s.clone());
                } else {
                    written.1 = Some(s.clone());
                }
            }
            _ => return Err(bad()),
        }
    }
    if let (Some(s), Some(e)) = (ns[0], ns[1]) {
        if e <= s {
            return Err(format!("{place} ends before it starts"));
        }
    }
    Ok(Some(Window { written, start: ns[0], end: ns[1] }))
}

fn day_of(s: &str, place: &str) -> Result<i64, String> {
    ns_from_iso(s).map(|t| t.div_euclid(NS_PER_DAY)).ok_or_else(|| format!("{place}: '{s}' is not a date"))
}

fn dates(v: &Value, place: &str) -> Result<Vec<i64>, String> {
    let Value::Array(a) = v else { return Err(format!("{place} must be a list of dates")) };
    a.iter()
        .map(|x| x.as_str().ok_or_else(|| format!("{place} must be a list of dates")).and_then(|s| day_of(s, place)))
        .collect()
}

fn calendar(v: Option<&Value>, place: &str) -> Result<Calendar, String> {
    match v {
        None | Some(Value::Null) => Ok(Calendar::default()),
        Some(Value::String(c)) => Ok(Calendar { dates: Vec::new(), country: Some(c.clone()) }),
        Some(Value::Array(_)) => Ok(Calendar { dates: dates(v.unwrap(), place)?, country: None }),
        Some(Value::Object(o)) => {
            if o.get("files").is_some_and(|f| !f.is_null()) {
                return Err(format!("{place}.files: calendar files are read by the host, not named to the engine"));
            }
            let country =
                o.get("country").and_then(Value::as_str).map(|c| match o.get("subdivision").and_then(Value::as_str) {
                    Some(s) => format!("{c}-{s}"),
                    None => c.to_string(),
                });
            let dates = match o.get("dates") {
                None | Some(Value::Null) => Vec::new(),
                Some(d) => dates(d, &format!("{place}.dates"))?,
            };
            Ok(Calendar { dates, country })
        }
        Some(other) => {
            Err(format!("{place} must be a country code, a list of dates or {{\"country\", \"dates\"}}, got {other}"))
        }
    }
}

fn number(o: &serde_json::Map<String, Value>, key: &str, place: &str) -> Result<Option<f64>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| format!("{place}.{key} must be a number, got {v}")),
    }
}

fn rebaseline(v: &Value, place: &str) -> Result<Rebaseline, String> {
    const KEYS: [&str; 13] = [
        "detect",
        "min_segment_days",
        "settle_days",
        "materiality",
        "major_step_frac",
        "min_baseline_days",
        "max_missing_frac",
        "require_validity",
        "max_achievement_months",
        "ecm_gap_days",
        "events",
        "static_factors",
        "bill_steps",
    ];
    let Value::Object(o) = v else { return Err(format!("{place} must be an object")) };
    if let Some(k) = o.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("{place}: unknown key '{k}' (known: {})", KEYS.join(", ")));
    }
    let mut r = Rebaseline::default();
    if let Some(d) = o.get("detect") {
        r.detect = d.as_bool().ok_or_else(|| format!("{place}.detect must be true or false"))?;
    }
    if let Some(x) = number(o, "min_segment_days", place)? {
        if x < 1.0 {
            return Err(format!("{place}.min_segment_days must be >= 1"));
        }
        r.min_segment_days = x as usize;
    }
    if let Some(x) = number(o, "materiality", place)? {
        if x < 0.0 {
            return Err(format!("{place}.materiality must be >= 0"));
        }
        r.materiality = x;
    }
    if let Some(x) = number(o, "major_step_frac", place)? {
        if x <= 0.0 {
            return Err(format!("{place}.major_step_frac must be > 0"));
        }
        r.major_step_frac = x;
    }
    if let Some(x) = number(o, "max_achievement_months", place)? {
        if x < 1.0 {
            return Err(format!("{place}.max_achievement_months must be >= 1"));
        }
        r.max_achievement_months = x;
    }
    let list = |k: &str| -> Result<Vec<Value>, String> {
        match o.get(k) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(format!("{place}.events and static_factors must be lists")),
        }
    };
    for (i, e) in list("events")?.iter().enumerate() {
        let p = format!("{place}.events[{i}]");
        let date = e.get("date").and_then(Value::as_str).ok_or_else(|| format!("{p} needs a \"date\""))?;
        let description =
            e.get("description").and_then(Value::as_str).ok_or_else(|| format!("{p} needs a \"description\""))?;
        let magnitude = e.get("magnitude").and_then(Value::as_str).unwrap_or("major");
        if !["static", "minor", "major"].contains(&magnitude) {
            return Err(format!("{p}.magnitude must be static, minor or major, got '{magnitude}'"));
        }
        r.events.push(DeclaredChange {
            day: day_of(date, &p)?,
            date: date.to_string(),
            description: description.to_string(),
            magnitude: magnitude.to_string(),
        });
    }
    for (i, s) in list("static_factors")?.iter().enumerate() {
        let p = format!("{place}.static_factors[{i}]");
        let Value::Object(so) = s else { return Err(format!("{p} must be an object")) };
        let factor = so.get("factor").and_then(Value::as_str).ok_or_else(|| format!("{p} needs a \"factor\""))?;
        let date = so.get("date").and_then(Value::as_str).ok_or_else(|| format!("{p} needs a \"date\""))?;
        let bv = number(so, "baseline_value", &p)?.ok_or_else(|| format!("{p} needs a \"baseline_value\""))?;
        let value = number(so, "value", &p)?.ok_or_else(|| format!("{p} needs a \"value\""))?;
        if bv <= 0.0 {
            return Err(format!("{p}: a static factor's baseline_value must be > 0"));
        }
        let tolerance = number(so, "tolerance", &p)?.unwrap_or(0.05);
        if tolerance < 0.0 {
            return Err(format!("{p}.tolerance must be >= 0"));
        }
        r.static_factors.push(StaticFactor {
            factor: factor.to_string(),
            baseline_value: bv,
            value,
            day: day_of(date, &p)?,
            date: date.to_string(),
            tolerance,
        });
    }
    Ok(r)
}

impl MvEntry {
    fn from_value(v: &Value, place: &str) -> Result<MvEntry, String> {
        let Value::Object(o) = v else { return Err(format!("{place} must be an object")) };
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
        let class = text("class").ok_or_else(|| format!("{place} needs a \"class\""))?;
        if o.get("interval").is_some_and(|i| i.as_str() != Some("daily")) {
            return Err(format!("{place}.interval: only 'daily' change-point baselines are supported"));
        }
        if o.get("bills").is_some_and(|b| !b.is_null()) {
            return Err(format!("{place}.bills: billing entries are not built here (trended meters only)"));
        }
        let period = window(o.get("period"), &format!("{place}.period"))?;
        let reporting_period = window(o.get("reporting_period"), &format!("{place}.reporting_period"))?;
        let intermediate_period = window(o.get("intermediate_period"), &format!("{place}.intermediate_period"))?;
        // methods and kernels (the reference's defaults: g14 for one model, exact for two)
        let method_declared = o.get("method").is_some_and(|m| !m.is_null());
        let method = match o.get("method").and_then(|m| if m.is_null() { None } else { Some(m) }) {
            None => Method::Forecast,
            Some(m) => match m.as_str() {
                Some("forecast") => Method::Forecast,
                Some("backcast") => Method::Backcast,
                Some("chaining") => Method::Chaining,
                Some("standard_conditions") => Method::StandardConditions,
                Some("auto") => Method::Auto,
                _ => {
                    return Err(format!(
                        "{place}.method must be one of forecast, backcast, chaining, standard_conditions, auto, got {m}"
                    ))
                }
            },
        };
        let kernel = match o.get("kernel").filter(|k| !k.is_null()) {
            None if matches!(method, Method::Chaining | Method::StandardConditions) => Kernel::Exact,
            None => Kernel::G14,
            Some(k) => match k.as_str() {
                Some("g14") => Kernel::G14,
                Some("exact") => Kernel::Exact,
                _ => return Err(format!("{place}.kernel must be 'g14' or 'exact', got {k}")),
            },
        };
        if method == Method::Chaining && kernel != Kernel::Exact {
            return Err(format!("{place}.method 'chaining' needs kernel 'exact' (one model, two projections)"));
        }
        if method_declared && method != Method::Forecast && (period.is_none() || reporting_period.is_none()) {
            return Err(format!("{place}.method '{}' needs both a period and a reporting_period", method.name()));
        }
        if method == Method::Chaining && intermediate_period.is_none() {
            return Err(format!("{place}.method 'chaining' needs an intermediate_period [start, end]"));
        }
        let normal_year = match o.get("normal_year") {
            None | Some(Value::Null) => None,
            Some(Value::Array(a)) => Some(
                a.iter()
                    .map(|x| x.as_f64().filter(|v| v.is_finite()))
                    .collect::<Option<Vec<f64>>>()
                    .ok_or_else(|| format!("{place}.normal_year must be a list of daily mean outdoor temperatures"))?,
            ),
            Some(_) => return Err(format!("{place}.normal_year must be a list of daily mean outdoor temperatures")),
        };
        if method == Method::StandardConditions && normal_year.as_ref().is_none_or(|n| n.len() < 2) {
            return Err(format!(
                "{place}.method 'standard_conditions' needs normal_year: a list of daily mean outdoor temperatures"
            ));
        }
        // the model form and its drivers
        let model = text("model").unwrap_or_else(|| "change_point".into());
        if !["change_point", "cp_driver"].contains(&model.as_str()) {
            return Err(format!("{place}.model must be change_point or cp_driver, got '{model}'"));
        }
        let mut drivers = Vec::new();
        match (model.as_str(), o.get("drivers")) {
            ("change_point", Some(Value::Array(a))) if !a.is_empty() => {
                return Err(format!("{place}.drivers needs model \"cp_driver\""))
            }
            ("cp_driver", Some(Value::Array(a))) if !a.is_empty() => {
                for d in a {
                    let Some(name) = d.as_str() else {
                        return Err(format!("{place}.drivers: each driver is a name, got {d}"));
                    };
                    let drv = match name {
                        "weekday" => Driver::Weekday,
                        "occupied_day" => Driver::OccupiedDay,
                        "break_day" => Driver::BreakDay,
                        "oat" => return Err(format!("{place}.drivers: outdoor air is already the model's first term")),
                        r if camber_common::roles::role(r).is_some() => Driver::Role(r.to_string()),
                        other => {
                            return Err(format!(
                            "{place}.drivers: '{other}' is neither weekday, occupied_day, break_day nor a known role"
                        ))
                        }
                    };
                    if drivers.contains(&drv) {
                        return Err(format!("{place}.drivers: '{name}' is listed twice"));
                    }
                    drivers.push(drv);
                }
            }
            ("cp_driver", _) => {
                return Err(format!("{place}.model \"cp_driver\" needs drivers: a non-empty list, e.g. [\"weekday\"]"))
            }
            _ => {}
        }
        if model == "cp_driver" && matches!(method, Method::Auto | Method::StandardConditions) {
            return Err(format!("{place}.method '{}' is not available with model \"cp_driver\"", method.name()));
        }
        let day_drivers = drivers.iter().any(|d| matches!(d, Driver::OccupiedDay | Driver::BreakDay));
        for key in ["occupied_weekdays", "holidays", "holiday_calendar"] {
            if o.get(key).is_some_and(|v| !v.is_null()) && !day_drivers {
                return Err(format!("{place}.{key} needs the \"occupied_day\" (or \"break_day\") driver"));
            }
        }
        if o.contains_key("break_calendar") != drivers.contains(&Driver::BreakDay) {
            return Err(format!("{place}.break_calendar and the \"break_day\" driver go together"));
        }
        const DAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];
        let occupied_weekdays = match o.get("occupied_weekdays") {
            None | Some(Value::Null) => vec![0, 1, 2, 3, 4],
            Some(Value::Array(a)) => a
                .iter()
                .map(|d| {
                    let k: String = d.as_str().unwrap_or("").trim().to_lowercase().chars().take(3).collect();
                    DAYS.iter()
                        .position(|x| *x == k)
                        .map(|i| i as i64)
                        .ok_or_else(|| format!("{place}.occupied_weekdays: unknown day {d}"))
                })
                .collect::<Result<_, _>>()?,
            Some(v) => return Err(format!("{place}.occupied_weekdays must be a list of day names, got {v}")),
        };
        let mut holidays = calendar(o.get("holiday_calendar"), &format!("{place}.holiday_calendar"))?;
        if let Some(h) = o.get("holidays").filter(|h| !h.is_null()) {
            holidays.dates.extend(dates(h, &format!("{place}.holidays"))?);
        }
        let break_calendar = calendar(o.get("break_calendar"), &format!("{place}.break_calendar"))?;
        let validity = text("validity").unwrap_or_else(|| "g14".into());
        if !["g14", "sep", "both"].contains(&validity.as_str()) {
            return Err(format!("{place}.validity must be g14, sep or both, got '{validity}'"));
        }
        let min_days = match number(o, "min_days", place)? {
            None => 60,
            Some(x) if x >= 1.0 => x as usize,
            Some(x) => return Err(format!("{place}.min_days must be >= 1, got {x}")),
        };
        let min_coverage = number(o, "min_coverage", place)?.unwrap_or(0.9);
        if !(0.0..=1.0).contains(&min_coverage) {
            return Err(format!("{place}.min_coverage must be a number in [0, 1], got {min_coverage}"));
        }
        let extrapolation = ExtrapolationPolicy::from_value(o.get("extrapolation"))
            .map_err(|e| format!("{place}.extrapolation: {e}"))?;
        let rebaseline = match o.get("rebaseline") {
            None | Some(Value::Null) => None,
            Some(r) => Some(rebaseline(r, &format!("{place}.rebaseline"))?),
        };
        let adjustments = match o.get("adjustments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => {
                if reporting_period.is_none() {
                    return Err(format!("{place}.adjustments needs a reporting_period to adjust"));
                }
                for (k, x) in a.iter().enumerate() {
                    if !x.is_object() {
                        return Err(format!("{place}.adjustments[{k}] must be an object, got {x}"));
                    }
                }
                a.clone()
            }
            Some(_) => return Err(format!("{place}.adjustments must be a list of adjustment objects")),
        };
        let units = match o.get("units") {
            None | Some(Value::Null) => None,
            Some(Value::String(u)) => Some(
                rate_unit(u)
                    .ok_or_else(|| {
                        format!("{place}.units: '{u}' is not a rate unit this engine converts (kW, Btu/h, kBtu/h, MBH, MMBtu/h, tons)")
                    })?
                    .to_string(),
            ),
            Some(u) => return Err(format!("{place}.units must be the meter's rate unit, got {u}")),
        };
        if o.get("meter_type").is_some_and(|m| !m.is_null()) || o.get("heat_content").is_some_and(|m| !m.is_null()) {
            return Err(format!(
                "{place}.meter_type / heat_content are for a gas meter trended as a volume flow, which this engine does not convert"
            ));
        }
        // the periods may not overlap
        let named = [
            ("period", &period),
            ("intermediate_period", &intermediate_period),
            ("reporting_period", &reporting_period),
        ];
        for i in 0..3 {
            for j in i + 1..3 {
                if let (Some(a), Some(b)) = (named[i].1, named[j].1) {
                    if a.overlaps(b) {
                        return Err(format!("{place}: {} and {} overlap", named[i].0, named[j].0));
                    }
                }
            }
        }
        Ok(MvEntry {
            class,
            role: text("role").unwrap_or_else(|| "energy_rate".into()),
            period,
            reporting_period,
            intermediate_period,
            method,
            method_declared,
            kernel,
            model,
            drivers,
            occupied_weekdays,
            holidays,
            break_calendar,
            normal_year,
            validity,
            min_days,
            min_coverage,
            extrapolation,
            rebaseline,
            adjustments,
            units,
        })
    }
}

/// The section, parsed and checked: its entries in order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MvSection {
    pub entries: Vec<MvEntry>,
}

impl MvSection {
    /// Parse and check the section (`None` for a config without one).
    pub fn from_value(v: Option<&Value>) -> Result<Option<MvSection>, String> {
        let Some(v) = v.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let Value::Array(a) = v else {
            return Err("'mv' must be a list of entries, each {\"class\", \"period\", ...}".into());
        };
        if a.is_empty() {
            return Err("'mv' lists no entry".into());
        }
        let entries =
            a.iter().enumerate().map(|(i, e)| MvEntry::from_value(e, &format!("mv[{i}]"))).collect::<Result<_, _>>()?;
        Ok(Some(MvSection { entries }))
    }
}
