//! Equipment families: which kind of equipment a stored class names, so a rule written for air
//! handlers runs on an "AHU" or an "RTU" and not on a VAV box that also has a supply-air sensor.

/// Each family and the class spellings it covers (upper case, letters and digits only).
const FAMILIES: &[(&str, &[&str])] = &[
    (
        "air_handler",
        &["AHU", "RTU", "DOAS", "MAU", "MUA", "ACU", "SAHU", "DDAHU", "AIRHANDLER", "AIRHANDLINGUNIT", "ROOFTOPUNIT"],
    ),
    ("terminal", &["VAV", "CAV", "FCAV", "TERMINAL", "TERMINALUNIT", "VAVBOX", "FPB", "FPVAV"]),
    ("fan_coil", &["FCU", "FANCOIL", "FANCOILUNIT"]),
    ("heat_pump", &["HEATPUMP", "HP", "WSHP", "GSHP", "ASHP", "WAHP", "VRF", "VRV"]),
    (
        "chw_plant",
        &[
            "CHILLER",
            "CH",
            "CHW",
            "CHWPLANT",
            "CHILLERPLANT",
            "CHILLEDWATERPLANT",
            "CHILLEDWATER",
            "CHWLOOP",
            "CHILLEDWATERLOOP",
        ],
    ),
    ("hw_plant", &["BOILER", "BOILERPLANT", "HWPLANT", "HOTWATERPLANT", "HW", "HWP", "HOTWATER"]),
    ("cooling_tower", &["COOLINGTOWER", "CT", "TOWER", "CONDENSERWATER", "CWPLANT", "CW"]),
    ("pump", &["PUMP", "CHWPUMP", "HWPUMP", "CWPUMP", "PUMPS"]),
    ("meter", &["METER", "ELECMETER", "ELECTRICMETER", "UTILITYMETER", "BTUMETER"]),
    ("weather", &["WEATHER", "WX", "WEATHERSTATION"]),
    ("dx", &["DX", "DXUNIT", "SPLITSYSTEM", "SPLITAC", "CONDENSINGUNIT", "ACCU", "DXAC"]),
    (
        "source_loop",
        &["SOURCELOOP", "GEOLOOP", "GROUNDLOOP", "GEOTHERMALLOOP", "CONDENSERLOOP", "HEATPUMPLOOP", "HPLOOP"],
    ),
];

fn norm(s: &str) -> String {
    s.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_uppercase()).collect()
}

/// The family a class names (`None`: not recognised). The whole name is tried first, then
/// each of its words ("AHU_North" is an air handler); a meter or weather word wins over any
/// other ("CHW_METER" is a meter).
pub fn family_of(class: &str) -> Option<&'static str> {
    let lookup = |word: &str| {
        let w = norm(word);
        FAMILIES.iter().find(|(f, names)| norm(f) == w || names.contains(&w.as_str())).map(|(f, _)| *f)
    };
    if let Some(f) = lookup(class) {
        return Some(f);
    }
    let words: Vec<&'static str> =
        class.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).filter_map(lookup).collect();
    words.iter().find(|f| matches!(**f, "meter" | "weather")).or(words.first()).copied()
}

/// Whether a class matches a wanted class or family name (case and separators ignored).
pub fn class_matches(class: &str, wanted: &str) -> bool {
    norm(class) == norm(wanted) || family_of(class).is_some_and(|f| norm(f) == norm(wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_map_to_families() {
        assert_eq!(family_of("AHU"), Some("air_handler"));
        assert_eq!(family_of("rtu"), Some("air_handler"));
        assert_eq!(family_of("COOLING_TOWER"), Some("cooling_tower"));
        assert_eq!(family_of("Heat-Pump"), Some("heat_pump"));
        assert_eq!(family_of("AHU_North"), Some("air_handler"));
        assert_eq!(family_of("CHW_METER"), Some("meter"));
        assert_eq!(family_of("LOGGER"), None);
        assert!(class_matches("AHU", "air_handler") && class_matches("ahu", "AHU") && !class_matches("VAV", "AHU"));
    }
}
