//! Point names as building-automation systems and simulators write them (`AHU1_SAT`,
//! `B2.VAV-2-04.DA-T`, `ahu1.supplyAirTemp`, EnergyPlus's `KEY:Variable [C](TimeStep)`): split into
//! words, abbreviations read as concepts, the equipment the name carries, and the roles its words
//! fit, each with a score and the words that led to it.

use std::collections::BTreeSet;

/// Equipment words and the camber class each names (lower case, as tokens come out).
const EQUIP_WORDS: &[(&str, &str)] = &[
    ("ahu", "AHU"),
    ("rtu", "RTU"),
    ("doas", "DOAS"),
    ("mau", "MAU"),
    ("mua", "MAU"),
    ("vav", "VAV"),
    ("vavbox", "VAV"),
    ("vavr", "VAV"),
    ("fpb", "VAV"),
    ("fpvav", "VAV"),
    ("cav", "CAV"),
    ("fcu", "FCU"),
    ("ch", "CHILLER"),
    ("chlr", "CHILLER"),
    ("chiller", "CHILLER"),
    ("blr", "BOILER"),
    ("boiler", "BOILER"),
    ("ct", "COOLING_TOWER"),
    ("clgtwr", "COOLING_TOWER"),
    ("twr", "COOLING_TOWER"),
    ("tower", "COOLING_TOWER"),
    ("coolingtower", "COOLING_TOWER"),
    ("cooltower", "COOLING_TOWER"),
    ("coolsys", "CHW_PLANT"),
    ("chwsys", "CHW_PLANT"),
    ("chwplant", "CHW_PLANT"),
    ("heatsys", "HW_PLANT"),
    ("hwsys", "HW_PLANT"),
    ("hwplant", "HW_PLANT"),
    ("chwp", "PUMP"),
    ("hwp", "PUMP"),
    ("cwp", "PUMP"),
    ("pump", "PUMP"),
    ("pmp", "PUMP"),
    ("hp", "HEAT_PUMP"),
    ("wshp", "HEAT_PUMP"),
    ("ashp", "HEAT_PUMP"),
    ("gshp", "HEAT_PUMP"),
    ("heatpump", "HEAT_PUMP"),
    ("meter", "METER"),
    ("mtr", "METER"),
    ("wx", "WEATHER"),
    ("weather", "WEATHER"),
];

/// Words and the concepts they stand for. A word may carry several (`sat`: supply, air, temp).
const WORDS: &[(&str, &[&str])] = &[
    // quantities
    ("t", &["temp"]),
    ("tmp", &["temp"]),
    ("temp", &["temp"]),
    ("tempr", &["temp"]),
    ("temperature", &["temp"]),
    ("drybulb", &["temp"]),
    ("db", &["temp"]),
    ("sp", &["sp"]),
    ("stpt", &["sp"]),
    ("setpt", &["sp"]),
    ("setp", &["sp"]),
    ("setpoint", &["sp"]),
    ("set", &["sp"]),
    ("csp", &["cool", "sp"]),
    ("hsp", &["heat", "sp"]),
    ("flow", &["flow"]),
    ("flw", &["flow"]),
    ("cfm", &["flow", "air"]),
    ("airflow", &["flow", "air"]),
    ("volume", &["flow"]),
    ("fraction", &["ratio"]),
    ("oainlet", &["outdoor", "air", "entering"]),
    ("schd", &["schedule"]),
    ("static", &["static"]),
    ("stat", &["status"]),
    ("dsp", &["duct", "static", "pressure"]),
    ("ssp", &["supply", "static", "pressure"]),
    ("press", &["pressure"]),
    ("pres", &["pressure"]),
    ("prs", &["pressure"]),
    ("pressure", &["pressure"]),
    ("dp", &["diff", "pressure"]),
    ("dpress", &["diff", "pressure"]),
    ("diff", &["diff"]),
    ("differential", &["diff"]),
    ("delta", &["diff"]),
    ("head", &["head"]),
    ("duct", &["duct"]),
    ("humidity", &["humidity"]),
    ("hum", &["humidity"]),
    ("humid", &["humidity"]),
    ("rh", &["humidity"]),
    ("wb", &["wetbulb"]),
    ("wetbulb", &["wetbulb"]),
    ("dewpoint", &["dewpoint"]),
    ("dewpt", &["dewpoint"]),
    ("dpt", &["dewpoint"]),
    ("co2", &["co2"]),
    ("power", &["power"]),
    ("pwr", &["power"]),
    ("kw", &["power"]),
    ("demand", &["power"]),
    ("elec", &["power"]),
    ("electric", &["power"]),
    ("electricity", &["power"]),
    ("energy", &["energy"]),
    ("kwh", &["energy"]),
    ("gas", &["gas"]),
    ("ng", &["gas"]),
    ("naturalgas", &["gas"]),
    ("speed", &["speed"]),
    ("spd", &["speed"]),
    ("vfd", &["speed"]),
    ("freq", &["speed"]),
    ("hz", &["speed"]),
    ("status", &["status"]),
    ("s", &["status"]),
    ("sts", &["status"]),
    ("run", &["status"]),
    ("proof", &["status"]),
    ("ss", &["status"]),
    ("onoff", &["status"]),
    ("state", &["status"]),
    ("cmd", &["cmd"]),
    ("command", &["cmd"]),
    ("pos", &["position"]),
    ("position", &["position"]),
    ("fb", &["position"]),
    ("feedback", &["position"]),
    ("occ", &["occupancy"]),
    ("occupancy", &["occupancy"]),
    ("occupied", &["occupancy"]),
    ("occupants", &["occupancy"]),
    ("occupant", &["occupancy"]),
    ("people", &["occupancy"]),
    ("pir", &["occupancy"]),
    ("motion", &["occupancy"]),
    ("presence", &["occupancy"]),
    ("count", &["count"]),
    ("cnt", &["count"]),
    ("req", &["request"]),
    ("reqs", &["request"]),
    ("request", &["request"]),
    ("requests", &["request"]),
    ("min", &["min"]),
    ("minimum", &["min"]),
    ("max", &["max"]),
    ("maximum", &["max"]),
    ("stage", &["stage"]),
    ("stg", &["stage"]),
    ("approach", &["approach"]),
    ("appr", &["approach"]),
    ("loop", &["loop"]),
    ("warmup", &["warmup"]),
    ("cooldown", &["cooldown"]),
    // where in the system
    ("sa", &["supply", "air"]),
    ("da", &["supply", "air"]),
    ("sup", &["supply"]),
    ("supp", &["supply"]),
    ("sply", &["supply"]),
    ("supply", &["supply"]),
    ("dis", &["supply"]),
    ("disch", &["supply"]),
    ("dischg", &["supply"]),
    ("discharge", &["supply"]),
    ("ra", &["return", "air"]),
    ("ret", &["return"]),
    ("rtn", &["return"]),
    ("return", &["return"]),
    ("ma", &["mixed", "air"]),
    ("mix", &["mixed"]),
    ("mxd", &["mixed"]),
    ("mixed", &["mixed"]),
    ("oa", &["outdoor", "air"]),
    ("osa", &["outdoor", "air"]),
    ("out", &["outdoor"]),
    ("outdoor", &["outdoor"]),
    ("outside", &["outdoor"]),
    ("outdr", &["outdoor"]),
    ("oda", &["outdoor", "air"]),
    ("ambient", &["outdoor"]),
    ("amb", &["outdoor"]),
    ("ea", &["exhaust", "air"]),
    ("exh", &["exhaust"]),
    ("exhaust", &["exhaust"]),
    ("rlf", &["relief"]),
    ("relief", &["relief"]),
    ("zn", &["space"]),
    ("zone", &["space"]),
    ("rm", &["space"]),
    ("room", &["space"]),
    ("spc", &["space"]),
    ("space", &["space"]),
    ("air", &["air"]),
    ("water", &["water"]),
    ("wtr", &["water"]),
    ("w", &["water"]),
    ("leaving", &["leaving"]),
    ("lvg", &["leaving"]),
    ("lv", &["leaving"]),
    ("outlet", &["leaving"]),
    ("entering", &["entering"]),
    ("ent", &["entering"]),
    ("inlet", &["entering"]),
    // media and equipment parts
    ("chw", &["chw", "cool", "water"]),
    ("chilled", &["chw", "cool", "water"]),
    ("evaporator", &["chw", "water"]),
    ("evap", &["chw", "water"]),
    ("hw", &["hw", "heat", "water"]),
    ("hhw", &["hw", "heat", "water"]),
    ("hot", &["hw", "heat", "water"]),
    ("cw", &["cw", "water"]),
    ("cdw", &["cw", "water"]),
    ("condenser", &["condenser"]),
    ("cond", &["condenser"]),
    ("cool", &["cool"]),
    ("cooling", &["cool"]),
    ("clg", &["cool"]),
    ("heat", &["heat"]),
    ("heating", &["heat"]),
    ("htg", &["heat"]),
    ("rht", &["heat"]),
    ("reheat", &["heat"]),
    ("coil", &["coil"]),
    ("cc", &["cool", "coil"]),
    ("hc", &["heat", "coil"]),
    ("valve", &["valve"]),
    ("vlv", &["valve"]),
    ("vv", &["valve"]),
    ("damper", &["damper"]),
    ("dmp", &["damper"]),
    ("dmpr", &["damper"]),
    ("dpr", &["damper"]),
    ("fan", &["fan"]),
    ("sf", &["supply", "fan"]),
    ("saf", &["supply", "fan"]),
    ("rf", &["return", "fan"]),
    ("raf", &["return", "fan"]),
    ("ef", &["exhaust", "fan"]),
    ("eaf", &["exhaust", "fan"]),
    ("pump", &["pump"]),
    ("pmp", &["pump"]),
    ("tower", &["tower"]),
    ("twr", &["tower"]),
    ("boiler", &["boiler"]),
    ("blr", &["boiler"]),
    ("chiller", &["chiller"]),
    ("chlr", &["chiller"]),
    ("compressor", &["compressor"]),
    ("comp", &["compressor"]),
    ("cmp", &["compressor"]),
    ("filter", &["filter"]),
    ("flt", &["filter"]),
    ("fltr", &["filter"]),
    ("bypass", &["bypass"]),
    ("byp", &["bypass"]),
    ("econ", &["econ"]),
    ("economizer", &["econ"]),
    ("reversing", &["reversing"]),
    ("rv", &["reversing"]),
    ("terminal", &["terminal"]),
    ("box", &["terminal"]),
    // a quantity camber has no role for: kept so the column goes to review with a reason
    ("enable", &["enable"]),
    ("en", &["enable"]),
    ("ena", &["enable"]),
    ("alarm", &["alarm"]),
    ("alm", &["alarm"]),
    ("fault", &["alarm"]),
    ("mode", &["mode"]),
    ("schedule", &["schedule"]),
    ("sched", &["schedule"]),
    ("rate", &["rate"]),
    ("ratio", &["ratio"]),
    ("mass", &["mass"]),
];

/// Initialisms that name a whole point (the usual `SAT`, `CHWST`, `ZNT`).
const INITIALISMS: &[(&str, &[&str])] = &[
    ("sat", &["supply", "air", "temp"]),
    ("dat", &["supply", "air", "temp"]),
    ("lat", &["leaving", "air", "temp"]),
    ("mat", &["mixed", "air", "temp"]),
    ("rat", &["return", "air", "temp"]),
    ("oat", &["outdoor", "air", "temp"]),
    ("osat", &["outdoor", "air", "temp"]),
    ("zat", &["space", "air", "temp"]),
    ("znt", &["space", "temp"]),
    ("zt", &["space", "temp"]),
    ("rmt", &["space", "temp"]),
    ("spacetemp", &["space", "temp"]),
    ("oad", &["outdoor", "air", "damper"]),
    ("chws", &["chw", "cool", "water", "supply"]),
    ("chwr", &["chw", "cool", "water", "return"]),
    ("chwst", &["chw", "cool", "water", "supply", "temp"]),
    ("chwrt", &["chw", "cool", "water", "return", "temp"]),
    ("hws", &["hw", "heat", "water", "supply"]),
    ("hwr", &["hw", "heat", "water", "return"]),
    ("hwst", &["hw", "heat", "water", "supply", "temp"]),
    ("hwrt", &["hw", "heat", "water", "return", "temp"]),
    ("cws", &["cw", "water", "supply"]),
    ("cwr", &["cw", "water", "return"]),
    ("cwst", &["cw", "water", "supply", "temp"]),
    ("cwrt", &["cw", "water", "return", "temp"]),
    ("lwt", &["leaving", "water", "temp"]),
    ("swt", &["supply", "water", "temp"]),
    ("rwt", &["return", "water", "temp"]),
    ("ewt", &["entering", "water", "temp"]),
    ("sat_sp", &["supply", "air", "temp", "sp"]),
];

/// Words that carry nothing (point-type prefixes, filler, simulator boilerplate).
const NOISE: &[&str] = &[
    "ai",
    "ao",
    "bi",
    "bo",
    "av",
    "bv",
    "mv",
    "pv",
    "value",
    "sensor",
    "sens",
    "point",
    "pt",
    "the",
    "of",
    "node",
    "system",
    "equipment",
    "component",
    "variable",
    "mean",
    "average",
    "avg",
    "actual",
    "act",
    "present",
    "site",
    "environment",
    "timestep",
    "hourly",
    "input",
    "output",
    "level",
    "real",
    "effective",
    "eff",
    "zone_",
    "standard",
    "density",
];

/// Concepts that mean the column is a kind of point camber has no role for.
const NO_ROLE: &[(&str, &str)] = &[
    ("enable", "an enable is not a role camber reads"),
    ("alarm", "an alarm or fault flag is not a role camber reads"),
    ("mode", "a mode is not a role camber reads"),
    ("exhaust", "camber has no roles for exhaust air or exhaust fans"),
    ("relief", "camber has no roles for relief air or relief fans"),
    ("mass", "a mass flow needs the design flow to become a position or volume; map it by hand"),
];

/// One role's signature: the concepts it needs and the ones that rule it out.
struct Sig {
    role: &'static str,
    need: &'static [&'static str],
    not: &'static [&'static str],
}

const fn sig(role: &'static str, need: &'static [&'static str], not: &'static [&'static str]) -> Sig {
    Sig { role, need, not }
}

/// Every role a name can give, with what it needs. Water media, setpoints and requests rule out
/// the air quantities that share their words.
const SIGS: &[Sig] = &[
    sig(
        "oat",
        &["outdoor", "temp"],
        &["wetbulb", "dewpoint", "sp", "humidity", "damper", "flow", "co2", "request", "water"],
    ),
    sig("wetbulb_temp", &["wetbulb"], &["sp"]),
    sig("outdoor_rh", &["outdoor", "humidity"], &["sp"]),
    sig("outdoor_co2", &["outdoor", "co2"], &[]),
    sig("oa_damper", &["outdoor", "damper"], &["min", "sp"]),
    sig("oa_airflow", &["outdoor", "flow"], &["sp", "water", "min", "ratio"]),
    sig(
        "supply_air_temp",
        &["supply", "temp"],
        &["sp", "water", "request", "coil", "humidity", "dewpoint", "outdoor", "return", "mixed", "space", "static"],
    ),
    sig("supply_air_temp_sp", &["supply", "temp", "sp"], &["water", "request", "outdoor", "space"]),
    sig("mixed_air_temp", &["mixed", "temp"], &["sp"]),
    sig("return_air_temp", &["return", "temp"], &["sp", "water", "humidity", "dewpoint"]),
    sig(
        "space_temp",
        &["space", "temp"],
        &["sp", "cool", "heat", "humidity", "co2", "supply", "loop", "water", "request"],
    ),
    sig("heat_coil_leaving_temp", &["heat", "coil", "temp"], &["sp", "water"]),
    sig("cool_coil_leaving_temp", &["cool", "coil", "temp"], &["sp", "water"]),
    sig("cool_sp", &["cool", "sp"], &["supply", "water", "static", "flow", "heat", "loop", "min", "max"]),
    sig("heat_sp", &["heat", "sp"], &["supply", "water", "static", "flow", "cool", "loop", "min", "max"]),
    sig("duct_static_sp", &["static", "sp"], &["water", "request"]),
    sig("duct_static", &["static"], &["sp", "water", "request", "filter"]),
    sig("duct_static", &["duct", "pressure"], &["sp", "water", "request", "filter"]),
    sig("airflow_min_sp", &["flow", "min"], &["water", "outdoor", "max"]),
    sig("airflow_sp", &["flow", "sp"], &["water", "outdoor", "min", "max"]),
    sig("sat_reset_requests", &["temp", "request"], &[]),
    sig("static_pressure_requests", &["static", "request"], &[]),
    sig("static_pressure_requests", &["pressure", "request"], &[]),
    sig("heat_valve_position", &["heat", "valve", "position"], &["chw", "reversing"]),
    sig("heat_valve", &["heat", "valve"], &["chw", "position", "reversing"]),
    sig("cool_valve", &["cool", "valve"], &["hw", "reversing", "bypass"]),
    sig("damper", &["damper"], &["outdoor", "exhaust", "relief", "return", "mixed"]),
    sig("zone_heat_loop", &["heat", "loop"], &["water"]),
    sig("zone_cool_loop", &["cool", "loop"], &["water"]),
    sig(
        "airflow",
        &["flow"],
        &[
            "sp", "water", "outdoor", "min", "max", "exhaust", "return", "gas", "pump", "request", "relief", "ratio",
            "tower",
        ],
    ),
    sig("occupancy", &["occupancy"], &["sp", "temp", "schedule"]),
    sig("warmup", &["warmup"], &[]),
    sig("cooldown", &["cooldown"], &[]),
    sig("econ_cmd", &["econ"], &["temp", "sp", "damper"]),
    sig("boiler_status", &["boiler", "status"], &["pump", "fan"]),
    sig("supply_fan_status", &["fan", "status"], &["tower", "condenser", "pump", "return", "exhaust", "relief"]),
    sig("supply_fan_speed", &["fan", "speed"], &["tower", "condenser", "pump", "return", "exhaust", "relief"]),
    sig("hw_supply_temp", &["hw", "supply", "temp"], &["sp", "return", "air"]),
    sig("hw_return_temp", &["hw", "return", "temp"], &["sp", "supply", "air"]),
    sig("hw_diff_press_sp", &["hw", "diff", "sp"], &[]),
    sig("hw_diff_press", &["hw", "diff"], &["sp"]),
    sig("hw_pump_speed", &["hw", "pump", "speed"], &[]),
    sig("hw_flow", &["hw", "flow"], &["sp", "air"]),
    sig("gas_input_rate", &["gas"], &["sp", "energy"]),
    sig("chw_supply_temp_sp", &["chw", "temp", "sp"], &["return", "air"]),
    sig("chw_supply_temp", &["chw", "supply", "temp"], &["sp", "return", "air"]),
    sig("chw_return_temp", &["chw", "return", "temp"], &["sp", "supply", "air"]),
    sig("chw_diff_press_sp", &["chw", "diff", "sp"], &[]),
    sig("chw_diff_press", &["chw", "diff"], &["sp"]),
    sig("chw_pump_speed", &["chw", "pump", "speed"], &[]),
    sig("chw_flow", &["chw", "flow"], &["sp", "air"]),
    sig("pump_status", &["pump", "status"], &[]),
    sig("pump_head", &["pump", "head"], &[]),
    sig("cw_supply_temp", &["cw", "supply", "temp"], &["sp", "return", "air"]),
    sig("cw_return_temp", &["cw", "return", "temp"], &["sp", "supply", "air"]),
    sig("tower_fan_speed", &["tower", "speed"], &[]),
    sig("tower_fan_speed", &["tower", "flow", "ratio"], &["water"]),
    sig("cond_entering_water_temp", &["cond_entering", "temp"], &["sp"]),
    sig("cw_bypass_valve", &["cw", "bypass", "valve"], &[]),
    sig("cw_flow", &["cw", "flow"], &["sp", "air"]),
    sig("co2", &["co2"], &["outdoor", "sp"]),
    sig("compressor_status", &["compressor", "status"], &[]),
    sig("compressor_stage", &["compressor", "stage"], &[]),
    sig("condenser_fan_status", &["condenser", "fan", "status"], &[]),
    sig("heat_stage", &["heat", "stage"], &["compressor"]),
    sig("reversing_valve_cmd", &["reversing"], &[]),
    sig("filter_diff_press", &["filter"], &["sp"]),
    sig("supply_air_humidity", &["supply", "humidity"], &["sp", "water"]),
    sig("return_air_humidity", &["return", "humidity"], &["sp", "water"]),
    sig("return_air_dewpoint_temp", &["return", "dewpoint"], &["sp"]),
    sig("power", &["power"], &["sp", "energy"]),
];

/// Concepts any role may carry without being penalised for them.
const GENERIC: &[&str] = &["air", "cmd", "position", "terminal", "rate", "count", "water"];

/// One word of a name.
#[derive(Clone, Debug, PartialEq)]
struct Token {
    /// Lower case.
    text: String,
    /// Byte span in the (cleaned) name.
    start: usize,
    end: usize,
    /// No separator before it (a camel-case or letter/digit split).
    glued: bool,
}

/// The equipment a name carries.
#[derive(Clone, Debug, PartialEq)]
pub struct EquipInName {
    /// As written in the name (`AHU-1`, `VAV-2-04`, `PERIMETER_MID_ZN_3`).
    pub id: String,
    /// The class its equipment word names, if any.
    pub class: Option<&'static str>,
    /// How it was found, for the evidence list.
    pub how: String,
    /// Equipment the name puts it under (`AHU1` in `AHU1_VAV3_DAT`).
    pub parent: Option<String>,
}

/// What a name says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NameParse {
    /// The equipment, if the name carries one.
    pub equip: Option<EquipInName>,
    /// A unit written in the name (`[C]`, `(°F)`), if any.
    pub unit: Option<String>,
    /// The words of the point part (the name without its equipment and path), lower case.
    pub words: Vec<String>,
    /// The concepts each word stands for, in order (empty: a word that means nothing here).
    pub concepts: Vec<Vec<&'static str>>,
    /// Whether the point part is itself a role slug (`supply_air_temp`).
    pub slug: Option<&'static str>,
}

/// A role a name fits.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleFit {
    pub role: &'static str,
    /// 0-1.
    pub score: f64,
    /// The words that led to it (`sat -> supply air temp`).
    pub because: String,
}

/// Splits a name, finds its equipment and unit, and reads its words.
pub fn parse(name: &str) -> NameParse {
    let (body, unit) = strip_unit(name);
    // EnergyPlus writes `KEY:Variable`: the key names the equipment (or node), the variable the quantity
    let eplus = body.split_once(':').filter(|(k, v)| !k.trim().is_empty() && v.contains(' ') && !v.contains(':'));
    let tokens = tokenize(&body);
    let mut out = NameParse { unit, ..NameParse::default() };
    let mut skip: Vec<(usize, usize)> = Vec::new();
    let eplus_point;
    let mut tokens = tokens;
    if let Some((key, var)) = eplus {
        let (id, node_words) = eplus_key(key);
        // the most specific equipment word of the key (`COOLSYS1 CHILLER1` is a chiller)
        let class = tokenize(key).iter().rev().find_map(|t| equip_word(&t.text)).map(|(_, c)| c);
        if !id.is_empty() && !key.eq_ignore_ascii_case("environment") {
            out.equip = Some(EquipInName { id, class, how: "the EnergyPlus key before ':'".into(), parent: None });
        }
        // the point's words: what the node is (supply outlet, OA mixer outlet...) and the variable
        eplus_point = format!("{node_words} {var}");
        tokens = tokenize(&eplus_point);
    } else if let Some((span, e)) = equipment_in(&body, &tokens) {
        skip.push((0, span.1));
        out.equip = Some(e);
    }
    let point: Vec<&Token> = tokens.iter().filter(|t| !skip.iter().any(|&(a, b)| t.start >= a && t.end <= b)).collect();
    let joined: String = point.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join("_");
    out.slug = camber_common::roles::role(&joined).map(|r| r.name);
    let mut i = 0;
    while i < point.len() {
        let t = point[i];
        // `sp` glued after a temperature initialism stays a setpoint; `SAT SP` likewise
        let (word, concepts) = read_word(&t.text, &point);
        out.words.push(word);
        out.concepts.push(concepts);
        i += 1;
    }
    out
}

/// The concepts of one word (`spt` reads as a setpoint beside cooling or heating words, else as
/// a space temperature).
fn read_word(w: &str, all: &[&Token]) -> (String, Vec<&'static str>) {
    if w == "spt" {
        let beside =
            all.iter().any(|t| matches!(t.text.as_str(), "clg" | "htg" | "cool" | "heat" | "cooling" | "heating"));
        return (w.into(), if beside { vec!["sp", "temp"] } else { vec!["space", "temp"] });
    }
    if let Some((_, c)) = INITIALISMS.iter().find(|(k, _)| *k == w) {
        return (w.into(), c.to_vec());
    }
    if let Some((_, c)) = WORDS.iter().find(|(k, _)| *k == w) {
        return (w.into(), c.to_vec());
    }
    if w.ends_with('s') && w.len() > 3 {
        if let Some((_, c)) = WORDS.iter().find(|(k, _)| *k == &w[..w.len() - 1]) {
            return (w.into(), c.to_vec());
        }
    }
    (w.into(), Vec::new())
}

/// The name without a trailing `[unit]` / `(unit)` and EnergyPlus's `(TimeStep)`, and the unit.
fn strip_unit(name: &str) -> (String, Option<String>) {
    let mut s = name.trim().to_string();
    for freq in ["(TimeStep)", "(Hourly)", "(Daily)", "(Monthly)", "(Detailed)", "(RunPeriod)"] {
        if let Some(rest) = s.strip_suffix(freq) {
            s = rest.trim_end().to_string();
        }
    }
    let mut unit = None;
    for (open, close) in [('[', ']'), ('(', ')')] {
        if s.ends_with(close) {
            if let Some(at) = s.rfind(open) {
                let inner = s[at + open.len_utf8()..s.len() - close.len_utf8()].trim().to_string();
                if inner.chars().count() <= 12 && !inner.contains(' ') {
                    unit = (!inner.is_empty()).then_some(inner);
                    s = s[..at].trim_end().to_string();
                    break;
                }
            }
        }
    }
    (s, unit)
}

/// Words split on separators, camel-case humps and letter/digit boundaries, with their spans.
fn tokenize(s: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].1.is_alphanumeric() {
            i += 1;
            continue;
        }
        let run_start = i;
        while i < chars.len() && chars[i].1.is_alphanumeric() {
            i += 1;
        }
        let run = &chars[run_start..i];
        // `co2` and `pm25` stay whole
        let whole: String = run.iter().map(|(_, c)| c.to_ascii_lowercase()).collect();
        let end_byte = |k: usize| chars.get(k).map_or(s.len(), |(b, _)| *b);
        let known = |w: &str| WORDS.iter().any(|(k, _)| *k == w) || INITIALISMS.iter().any(|(k, _)| *k == w);
        if known(&whole) && whole.chars().any(|c| c.is_ascii_alphabetic()) {
            // a word the vocabulary knows whole (`kW`, `CO2`, `HWST`) is not split at its humps
            out.push(Token { text: whole, start: run[0].0, end: end_byte(i), glued: false });
            continue;
        }
        let mut piece_start = 0;
        for k in 1..=run.len() {
            let split = k == run.len() || {
                let (a, b) = (run[k - 1].1, run[k].1);
                let next_lower = run.get(k + 1).is_some_and(|(_, c)| c.is_lowercase());
                (a.is_lowercase() && b.is_uppercase())
                    || (a.is_uppercase() && b.is_uppercase() && next_lower)
                    || (a.is_ascii_digit() != b.is_ascii_digit())
            };
            if split {
                let text: String = run[piece_start..k].iter().flat_map(|(_, c)| c.to_lowercase()).collect();
                out.push(Token {
                    text,
                    start: run[piece_start].0,
                    end: end_byte(run_start + k),
                    glued: piece_start > 0,
                });
                piece_start = k;
            }
        }
    }
    out
}

fn equip_word(w: &str) -> Option<(&'static str, &'static str)> {
    EQUIP_WORDS.iter().find(|(k, _)| *k == w).copied()
}

/// The first equipment word with its id (`AHU1`, `AHU-1`, `VAV-2-04`, `AHU_A`): the span it covers
/// and the equipment. When a second one follows at once (`AHU1_VAV3_DAT`), the point is the
/// second's and the first is named as its parent.
fn equipment_in(s: &str, tokens: &[Token]) -> Option<((usize, usize), EquipInName)> {
    let i = tokens.iter().position(|t| equip_word(&t.text).is_some())?;
    let (next, first) = equip_at(s, tokens, i)?;
    if let Some((_, mut child)) = tokens.get(next).and_then(|_| equip_at(s, tokens, next)) {
        let sep = &s[tokens[next - 1].end..tokens[next].start];
        if matches!(sep, "-" | "_" | " " | "." | "/" | ":") {
            child.parent = Some(first.id.clone());
            child.how = format!("'{}' in the name, under '{}'", child.id, first.id);
            let end = tokens[next].start + child.id.len();
            return Some(((tokens[i].start, end), child));
        }
    }
    let end = tokens[i].start + first.id.len();
    Some(((tokens[i].start, end), first))
}

/// The equipment whose word is token `i`, and the index of the first token after its id.
fn equip_at(s: &str, tokens: &[Token], i: usize) -> Option<(usize, EquipInName)> {
    let t = &tokens[i];
    let (_, class) = equip_word(&t.text)?;
    let mut end = t.end;
    let mut n_ids = 0;
    let mut next = i + 1;
    for (j, n) in tokens.iter().enumerate().skip(i + 1) {
        let sep = &s[tokens[j - 1].end..n.start];
        let digits = n.text.chars().all(|c| c.is_ascii_digit());
        let short_letter = n.text.len() == 1 && n_ids == 0 && !n.glued;
        let joinable = n.glued || matches!(sep, "-" | "_" | " ");
        if joinable && (digits || short_letter) && !(short_letter && is_point_letter(&n.text, tokens.get(j + 1))) {
            end = n.end;
            n_ids += 1;
            next = j + 1;
        } else {
            break;
        }
    }
    let id = s[t.start..end].to_string();
    let how =
        if n_ids == 0 { format!("the equipment word '{id}' with no number") } else { format!("'{id}' in the name") };
    Some((next, EquipInName { id, class: Some(class), how, parent: None }))
}

/// A single letter after an equipment word that is the point, not the unit's letter (`VAV-T`).
fn is_point_letter(letter: &str, next: Option<&Token>) -> bool {
    next.is_none() && matches!(letter, "t" | "p")
}

/// The equipment an EnergyPlus key names and the words that say which node of it the key is.
/// EnergyPlus appends node and component words to the object's name (`VAV_MID Supply Equipment
/// Outlet Node` is `VAV_MID`'s supply air; `PERIMETER_MID_ZN_3 VAV BOX COMPONENT` is
/// `PERIMETER_MID_ZN_3`), and the prototypes name the node between two components `A-BNode`
/// (the outlet of A: `..._COOLC-..._HEATCNODE` leaves the cooling coil, `..._OA-...` the
/// outdoor-air mixer, which is mixed air). An air loop's supply-side inlet is its return air.
fn eplus_key(key: &str) -> (String, String) {
    let up = key.to_ascii_uppercase();
    let mut stem = key.trim();
    let mut node = String::new();
    if up.ends_with("NODE") && key.contains('-') {
        if let Some(dash) = key.find('-') {
            let before = &key[..dash];
            let (head, comp) = before.rsplit_once('_').unwrap_or((before, ""));
            node = match comp.to_ascii_uppercase().as_str() {
                "COOLC" | "CCOIL" | "COOLINGCOIL" => "cooling coil leaving".into(),
                "HEATC" | "HCOIL" | "HEATINGCOIL" => "heating coil leaving".into(),
                "OA" | "OAMIXER" | "OASYS" => "mixed air".into(),
                other => format!("{other} leaving"),
            };
            stem = head;
        }
    } else {
        const NODES: &[(&str, &str)] = &[
            ("SUPPLY EQUIPMENT INLET NODE", "return air"),
            ("SUPPLY SIDE INLET NODE", "return"),
            ("SUPPLY EQUIPMENT OUTLET NODE", "supply"),
            ("SUPPLY SIDE OUTLET NODE", "supply"),
            ("SUPPLY OUTLET NODE", "supply"),
            ("SUPPLY INLET NODE", "return"),
            ("_OAINLET NODE", "outdoor air"),
            ("OA INLET NODE", "outdoor air"),
            ("OUTDOOR AIR INLET NODE", "outdoor air"),
            ("MIXED AIR NODE", "mixed air"),
        ];
        for (pat, words) in NODES {
            if up.ends_with(pat) {
                stem = key[..key.len() - pat.len()].trim_end();
                node = (*words).into();
                break;
            }
        }
    }
    const TAIL: &[&str] = &[
        "node",
        "outlet",
        "inlet",
        "equipment",
        "supply",
        "component",
        "box",
        "vav",
        "reheat",
        "coil",
        "fan",
        "mixed",
        "air",
        "oa",
        "return",
        "side",
        "demand",
        "water",
        "heating",
        "cooling",
        "outdoor",
        "mixer",
        "terminal",
        "damper",
        "with",
        "name",
    ];
    let words: Vec<&str> = stem.split_whitespace().collect();
    let mut n = words.len();
    while n > 1 && TAIL.contains(&words[n - 1].to_ascii_lowercase().as_str()) {
        n -= 1;
    }
    let first = words.first().copied().unwrap_or_default();
    if n == 1 && TAIL.contains(&first.to_ascii_lowercase().as_str()) {
        return (String::new(), key.to_string());
    }
    let id = words[..n].join(" ");
    if node.is_empty() {
        // the key's own words after the id (`VAV BOX COMPONENT`, `Supply Equipment Outlet Node`)
        node = key.trim().get(id.len()..).unwrap_or_default().to_string();
    }
    (id, node)
}

/// The concepts of a parsed name, with what its equipment's class implies (a chiller's "supply
/// temp" is chilled water; an air handler's is air) and leaving/entering read for the medium.
pub fn concepts(p: &NameParse, class: Option<&str>) -> BTreeSet<&'static str> {
    let mut c: BTreeSet<&'static str> = p.concepts.iter().flatten().copied().collect();
    let water = c.contains("water") || c.contains("chw") || c.contains("hw") || c.contains("cw");
    if c.contains("condenser") && water {
        c.insert("cw");
    }
    match class.map(|k| k.to_ascii_uppercase()).as_deref() {
        Some("CHILLER" | "CHW_PLANT")
            if c.contains("temp") && !c.contains("air") && !c.contains("cw") && !c.contains("condenser") =>
        {
            c.extend(["chw", "cool", "water"]);
        }
        Some("CHILLER") if c.contains("condenser") && c.contains("temp") => {
            c.extend(["cw", "water"]);
        }
        Some("BOILER" | "HW_PLANT") if c.contains("temp") && !c.contains("air") => {
            c.extend(["hw", "heat", "water"]);
        }
        Some("COOLING_TOWER") => {
            c.insert("tower");
            if c.contains("temp") && !c.contains("air") && !c.contains("wetbulb") {
                c.extend(["cw", "water"]);
            }
        }
        Some("PUMP") => {
            c.insert("pump");
        }
        _ => {}
    }
    let water = c.contains("water") || c.contains("chw") || c.contains("hw") || c.contains("cw");
    if class.is_some_and(|k| k.eq_ignore_ascii_case("CHILLER")) && (c.contains("condenser") || c.contains("cw")) {
        // the chiller's own side of the condenser loop: water entering it is the towers' supply
        if c.remove("entering") {
            c.insert("cond_entering");
        }
        if c.remove("leaving") {
            c.insert("return");
        }
    }
    if c.remove("leaving") {
        c.insert(if water || !c.contains("coil") { "supply" } else { "leaving" });
        if c.contains("coil") && !water {
            c.remove("supply");
        }
    }
    if c.remove("entering") {
        if water {
            c.insert("return");
        } else {
            c.insert("entering");
        }
    }
    c
}

/// The roles a name fits, best first. `class` is the equipment's class when known.
pub fn fit(p: &NameParse, class: Option<&str>) -> Vec<RoleFit> {
    if let Some(slug) = p.slug {
        return vec![RoleFit { role: slug, score: 0.95, because: format!("the name spells the role '{slug}'") }];
    }
    if no_role_reason(p).is_some() {
        // an enable, an alarm, an exhaust fan: what the words name first has no role
        return Vec::new();
    }
    let c = concepts(p, class);
    let meaningful: Vec<(usize, &Vec<&'static str>)> =
        p.concepts.iter().enumerate().filter(|(i, cs)| !cs.is_empty() || !is_noise(&p.words[*i])).collect();
    let mut fits: Vec<(usize, RoleFit)> = Vec::new();
    for s in SIGS {
        if !s.need.iter().all(|n| c.contains(n)) || s.not.iter().any(|n| c.contains(n)) {
            continue;
        }
        if fits.iter().any(|(_, f)| f.role == s.role) {
            continue;
        }
        // share of the meaningful words the role explains; unknown words count half
        let (mut explained, mut total) = (0.0, 0.0);
        for (_, cs) in &meaningful {
            let w = if cs.is_empty() { 0.5 } else { 1.0 };
            total += w;
            if !cs.is_empty() && cs.iter().all(|x| s.need.contains(x) || GENERIC.contains(x) || implied(x, s.need)) {
                explained += w;
            } else if !cs.is_empty() && cs.iter().any(|x| s.need.contains(x)) {
                explained += w * 0.75;
            }
        }
        let share = if total > 0.0 { explained / total } else { 0.0 };
        let score = 0.5 + 0.4 * share;
        let because = p
            .words
            .iter()
            .zip(&p.concepts)
            .filter(|(_, cs)| !cs.is_empty())
            .map(
                |(w, cs)| {
                    if cs.len() == 1 && cs[0] == w.as_str() {
                        w.clone()
                    } else {
                        format!("{w}={}", cs.join("+"))
                    }
                },
            )
            .collect::<Vec<_>>()
            .join(" ");
        fits.push((s.need.len(), RoleFit { role: s.role, score, because: format!("name words {because}") }));
    }
    // the most specific signature first, then the better explained
    fits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.score.total_cmp(&a.1.score)));
    let mut out: Vec<RoleFit> = Vec::new();
    for (rank, (_, mut f)) in fits.into_iter().enumerate() {
        if rank > 0 {
            // a less specific reading of the same words is a weaker candidate
            f.score *= 0.85;
        }
        out.push(f);
    }
    // a bare temperature on a terminal or fan coil is most likely the space it serves
    if out.is_empty()
        && matches!(class, Some("VAV" | "CAV" | "FCU"))
        && c.iter().all(|x| matches!(*x, "temp" | "air"))
        && c.contains("temp")
    {
        out.push(RoleFit {
            role: "space_temp",
            score: 0.55,
            because: "a temperature naming no place, on a terminal".into(),
        });
    }
    out
}

/// Concepts a role's needs imply (chilled water implies cooling and water).
fn implied(x: &str, need: &[&str]) -> bool {
    match x {
        "cool" => need.contains(&"chw"),
        "heat" => need.contains(&"hw"),
        "water" => need.iter().any(|n| matches!(*n, "chw" | "hw" | "cw")),
        "supply" => need.contains(&"fan") || need.contains(&"static"),
        "fan" => need.contains(&"tower"),
        "space" => matches!(need.first(), Some(&"cool" | &"heat" | &"co2" | &"occupancy")),
        "temp" => need.contains(&"sp") || need.contains(&"wetbulb") || need.contains(&"dewpoint"),
        "duct" | "pressure" => need.contains(&"static"),
        "diff" => need.contains(&"filter"),
        "outdoor" => need.contains(&"wetbulb"),
        "min" => need.contains(&"min"),
        _ => false,
    }
}

fn is_noise(w: &str) -> bool {
    NOISE.contains(&w) || w.chars().all(|c| c.is_ascii_digit())
}

/// Why a name fits no role, when its words say what it is (an enable, an exhaust fan).
pub fn no_role_reason(p: &NameParse) -> Option<&'static str> {
    let c: BTreeSet<&str> = p.concepts.iter().flatten().copied().collect();
    NO_ROLE.iter().find(|(k, _)| c.contains(k)).map(|(_, why)| *why)
}

/// The words of a name that mean nothing to the reader, for the evidence of a weak guess.
pub fn unknown_words(p: &NameParse) -> Vec<&str> {
    p.words.iter().zip(&p.concepts).filter(|(w, cs)| cs.is_empty() && !is_noise(w)).map(|(w, _)| w.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn best(name: &str, class: Option<&str>) -> (Option<String>, Option<&'static str>) {
        let p = parse(name);
        let class = class.or(p.equip.as_ref().and_then(|e| e.class));
        (p.equip.as_ref().map(|e| e.id.clone()), fit(&p, class).first().map(|f| f.role))
    }

    #[test]
    fn usual_conventions() {
        assert_eq!(best("AHU1_SAT", None), (Some("AHU1".into()), Some("supply_air_temp")));
        assert_eq!(best("AHU-1 SAT SP", None), (Some("AHU-1".into()), Some("supply_air_temp_sp")));
        assert_eq!(best("B2.VAV-2-04.DA-T", None), (Some("VAV-2-04".into()), Some("supply_air_temp")));
        assert_eq!(best("ahu1.supplyAirTemp", None), (Some("ahu1".into()), Some("supply_air_temp")));
        assert_eq!(best("VAV_2_04_ZNT", None), (Some("VAV_2_04".into()), Some("space_temp")));
        assert_eq!(best("VAV-2-04 RmClgSpt", None).1, Some("cool_sp"));
        assert_eq!(best("VAV-2-04 ZN-SPT", None).1, Some("space_temp"));
        assert_eq!(best("CH-1 CHWST", None), (Some("CH-1".into()), Some("chw_supply_temp")));
        assert_eq!(best("CH-1 LWT", None).1, Some("chw_supply_temp"));
        assert_eq!(best("CT-2 Fan Speed", None).1, Some("tower_fan_speed"));
        assert_eq!(best("AHU-1 HWVlvPos", None).1, Some("heat_valve_position"));
        assert_eq!(best("AHU-1 CHW Vlv", None).1, Some("cool_valve"));
        assert_eq!(best("AHU-1 OA Dmpr", None).1, Some("oa_damper"));
        assert_eq!(best("AHU-1 DSP", None).1, Some("duct_static"));
        assert_eq!(best("AHU-1 DSP SP", None).1, Some("duct_static_sp"));
        assert_eq!(best("AHU-1 SF Sts", None).1, Some("supply_fan_status"));
        assert_eq!(best("AHU-1 SF VFD", None).1, Some("supply_fan_speed"));
        assert_eq!(best("VAV-2-04 Airflow", None).1, Some("airflow"));
        assert_eq!(best("VAV-2-04 Min Flow SP", None).1, Some("airflow_min_sp"));
        assert_eq!(best("VAV-2-04 Dmpr Pos", None).1, Some("damper"));
        assert_eq!(best("HWP-1 Status", None), (Some("HWP-1".into()), Some("pump_status")));
        assert_eq!(best("BLR-1 HWST", None).1, Some("hw_supply_temp"));
        assert_eq!(best("AHU-1 supply_air_temp", None).1, Some("supply_air_temp"));
        assert_eq!(best("OAT", None), (None, Some("oat")));
        let p = parse("AHU1_VAV3_DAT");
        let e = p.equip.as_ref().unwrap();
        assert_eq!((e.id.as_str(), e.class, e.parent.as_deref()), ("VAV3", Some("VAV"), Some("AHU1")));
        assert_eq!(fit(&p, e.class)[0].role, "supply_air_temp");
        assert_eq!(best("CHILLER CHWST", None), (Some("CHILLER".into()), Some("chw_supply_temp")));
    }

    #[test]
    fn what_has_no_role_says_so() {
        let p = parse("EF1_STS");
        assert!(fit(&p, None).iter().all(|f| f.role != "supply_fan_status"), "{:?}", fit(&p, None));
        assert!(no_role_reason(&p).unwrap().contains("exhaust"));
        assert!(no_role_reason(&parse("AHU-1 SF Enable")).unwrap().contains("enable"));
        // a zone setpoint that names neither cooling nor heating fits neither
        let f = fit(&parse("VAV-1 ZNT SP"), Some("VAV"));
        assert!(f.iter().all(|f| f.role != "cool_sp" && f.role != "heat_sp" && f.role != "space_temp"), "{f:?}");
    }

    #[test]
    fn energyplus_headers() {
        let p = parse("VAV_MID Supply Equipment Outlet Node:System Node Temperature [C](TimeStep)");
        assert_eq!(p.unit.as_deref(), Some("C"));
        assert_eq!(p.equip.as_ref().unwrap().id, "VAV_MID");
        assert_eq!(fit(&p, None)[0].role, "supply_air_temp");
        let p = parse("PERIMETER_MID_ZN_3 VAV BOX COMPONENT:Zone Air Terminal VAV Damper Position [](TimeStep)");
        assert_eq!(p.unit, None);
        assert_eq!(p.equip.as_ref().unwrap().id, "PERIMETER_MID_ZN_3");
        assert_eq!(p.equip.as_ref().unwrap().class, Some("VAV"));
        assert_eq!(fit(&p, Some("VAV"))[0].role, "damper");
        let p = parse("PERIMETER_MID_ZN_3:Zone Mean Air Temperature [C](TimeStep)");
        assert_eq!(p.equip.as_ref().unwrap().id, "PERIMETER_MID_ZN_3");
        assert_eq!(fit(&p, Some("VAV"))[0].role, "space_temp");
        let p = parse("PERIMETER_MID_ZN_3:Zone Thermostat Cooling Setpoint Temperature [C](TimeStep)");
        assert_eq!(fit(&p, Some("VAV"))[0].role, "cool_sp");
        let p = parse("Environment:Site Outdoor Air Drybulb Temperature [C](TimeStep)");
        assert!(p.equip.is_none());
        assert_eq!(fit(&p, None)[0].role, "oat");
        let p = parse("Environment:Site Outdoor Air Wetbulb Temperature [C](TimeStep)");
        assert_eq!(fit(&p, None)[0].role, "wetbulb_temp");
        let p = parse("VAV_MID Supply Equipment Outlet Node:System Node Mass Flow Rate [kg/s](TimeStep)");
        assert!(no_role_reason(&p).unwrap().contains("mass flow"));
    }

    #[test]
    fn tokens_and_units() {
        let t: Vec<String> = tokenize("HWVlvPos AHU1 co2").into_iter().map(|t| t.text).collect();
        assert_eq!(t, ["hw", "vlv", "pos", "ahu", "1", "co2"]);
        let t: Vec<String> = tokenize("CH-1 kW").into_iter().map(|t| t.text).collect();
        assert_eq!(t, ["ch", "1", "kw"]);
        assert_eq!(strip_unit("SAT (°F)"), ("SAT".to_string(), Some("°F".to_string())));
        assert_eq!(strip_unit("Zone Temp [C](Hourly)"), ("Zone Temp".to_string(), Some("C".to_string())));
        assert_eq!(strip_unit("AHU-1 (north wing) SAT").1, None);
    }
}
