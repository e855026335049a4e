use super::*;

fn opts(tz: &str) -> IngestOptions {
    IngestOptions {
        facility: "hq".into(),
        timezone: tz.into(),
        format: None,
        mapping: None,
        units: BTreeMap::new(),
        mode: Mode::Create,
        name: None,
        progress: false,
        lock_timeout: Duration::from_secs(1),
    }
}

fn ns(s: &str) -> i64 {
    camber_common::time::ns_from_iso(s).unwrap()
}

fn parse_str(csv: &str, o: &IngestOptions) -> Result<(LongRows, Report), String> {
    parse(csv.as_bytes(), 0, o)
}

#[test]
fn long_csv_with_duplicates_bad_values_and_units() {
    let csv = "ts,equip,equip_class,role,value\n\
        2024-03-01 00:00,AHU-1,AHU,oat,50\n\
        2024-03-01 00:00,AHU-1,AHU,supply_air_temp,55\n\
        2024-03-01 00:15,AHU-1,AHU,oat,n/a\n\
        2024-03-01 00:15,AHU-1,AHU,oat,\n\
        2024-03-01 00:00,AHU-1,AHU,oat,51\n\
        2024-03-01 00:30,AHU-1,AHU,supply_fan_status,on\n\
        2024-03-01 00:10,AHU-1,AHU,oat,52\n";
    let (rows, rep) = parse_str(csv, &opts("America/Chicago")).unwrap();
    assert_eq!(rep.rows_read, 7);
    assert_eq!(rep.rows_stored, 4);
    assert_eq!(rep.dropped["values that are not numbers"], 1);
    assert_eq!(rep.dropped["empty values"], 1);
    assert_eq!(rep.dropped["duplicate readings (the last one kept)"], 1);
    // sorted, the later duplicate wins, "on" is 1
    assert_eq!(
        rows.ts,
        vec![ns("2024-03-01T00:00"), ns("2024-03-01T00:00"), ns("2024-03-01T00:10"), ns("2024-03-01T00:30")]
    );
    assert_eq!(rows.value, vec![51.0, 55.0, 52.0, 1.0]);
    assert_eq!(rep.points, 3);
    assert_eq!(rep.equipment, 1);
}

#[test]
fn declared_units_are_converted() {
    let csv = "ts,equip,equip_class,role,value,unit\n2024-03-01 00:00,AHU-1,AHU,supply_air_temp,12,degC\n2024-03-01 00:00,AHU-1,AHU,oa_damper,0.2,fraction\n";
    let (rows, _) = parse_str(csv, &opts("UTC")).unwrap();
    let sat = rows.points.iter().position(|p| p.role == "supply_air_temp").unwrap() as u32;
    let i = rows.point.iter().position(|&p| p == sat).unwrap();
    assert!((rows.value[i] - 53.6).abs() < 1e-9);
    assert!(rows.value.contains(&20.0));
    let mut o = opts("UTC");
    o.units.insert("oat".into(), "degC".into());
    let (rows, _) = parse_str("ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,0\n", &o).unwrap();
    assert_eq!(rows.value, vec![32.0]);
    let e = parse_str("ts,equip,equip_class,role,value,unit\n2024-03-01 00:00,A,AHU,oat,0,parsec\n", &opts("UTC"))
        .unwrap_err();
    assert!(e.starts_with("line 2: unit 'parsec'"), "{e}");
}

#[test]
fn the_spring_gap_is_dropped_and_local_autumn_stamps_are_kept() {
    let csv = "ts,equip,equip_class,role,value\n\
        2024-03-10 01:45,A,AHU,oat,1\n\
        2024-03-10 02:15,A,AHU,oat,2\n\
        2024-03-10 03:00,A,AHU,oat,3\n\
        2024-11-03 01:30,A,AHU,oat,4\n";
    let (rows, rep) = parse_str(csv, &opts("America/New_York")).unwrap();
    assert_eq!(rep.dropped[GAP], 1);
    assert_eq!(rows.value, vec![1.0, 3.0, 4.0]);
}

#[test]
fn utc_stamps_become_wall_clock_and_the_repeated_hour_keeps_its_first_reading() {
    // 2024-11-03 05:30Z is 01:30 EDT; 06:30Z is 01:30 EST (the repeated hour)
    let csv = "ts,equip,equip_class,role,value\n\
        2024-11-03T05:30:00Z,A,AHU,oat,1\n\
        2024-11-03T06:30:00Z,A,AHU,oat,2\n\
        2024-11-03T07:30:00+00:00,A,AHU,oat,3\n\
        2024-07-01T12:00:00-04:00,A,AHU,oat,4\n";
    let (rows, rep) = parse_str(csv, &opts("America/New_York")).unwrap();
    assert_eq!(rep.dropped[REPEAT], 1);
    assert_eq!(rows.ts, vec![ns("2024-07-01T12:00"), ns("2024-11-03T01:30"), ns("2024-11-03T02:30")]);
    assert_eq!(rows.value, vec![4.0, 1.0, 3.0]);
}

#[test]
fn bad_names_are_refused_naming_the_line() {
    for (name, why) in [
        ("AHU/1", "path separator"),
        ("AHU\u{202E}1", "invisible or bidirectional"),
        ("AHU\u{200B}1", "invisible or bidirectional"),
        ("AHU\u{7}1", "control character"),
    ] {
        let csv = format!(
            "ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,1\n2024-03-01 00:00,{name},AHU,oat,1\n"
        );
        let e = parse_str(&csv, &opts("UTC")).unwrap_err();
        assert!(e.starts_with("line 3: equipment id"), "{e}");
        assert!(e.contains(why), "{e}");
    }
    let long = "x".repeat(201);
    let e = parse_str(&format!("ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,{long},1\n"), &opts("UTC"))
        .unwrap_err();
    assert!(e.contains("role is longer than 200"), "{e}");
    let e = parse_str(
        "ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,1\n2024-03-01 00:00,A,RTU,sat,1\n",
        &opts("UTC"),
    )
    .unwrap_err();
    assert!(e.contains("has class \"RTU\" here but \"AHU\" on line 2"), "{e}");
}

#[test]
fn wide_csv_with_a_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("map.json");
    std::fs::write(
        &map,
        r#"{"timestamp": "Time", "columns": {
        "AHU1 SAT": {"equip": "AHU-1", "equip_class": "AHU", "role": "supply_air_temp", "unit": "degC"},
        "AHU1 OAT": {"equip": "AHU-1", "equip_class": "AHU", "role": "oat"}}}"#,
    )
    .unwrap();
    let mut o = opts("UTC");
    o.mapping = Some(map);
    let csv = "Time,AHU1 SAT,AHU1 OAT,Notes\n2024-03-01 00:00,10,50,x\n2024-03-01 00:15,bad,51,y\n";
    let (rows, rep) = parse_str(csv, &o).unwrap();
    assert_eq!(rep.rows_read, 4);
    assert_eq!(rep.rows_stored, 3);
    assert_eq!(rep.unmapped_columns, vec!["Notes"]);
    assert_eq!(rep.dropped["values that are not numbers"], 1);
    assert!(rows.value.contains(&50.0) && rows.value.contains(&51.0));
    let csv_map = dir.path().join("map.csv");
    std::fs::write(&csv_map, "column,equip,equip_class,role,unit\nAHU1 SAT,AHU-1,AHU,supply_air_temp,degF\n").unwrap();
    o.mapping = Some(csv_map);
    let (rows, _) = parse_str("Time,AHU1 SAT\n2024-03-01 00:00,55\n", &IngestOptions { ..o.clone() })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.value, vec![55.0]);
    let e = parse_str("Time,Other\n2024-03-01 00:00,55\n", &o).unwrap_err();
    assert!(e.contains("'AHU1 SAT'"), "{e}");
}

#[test]
fn refusals_without_rows() {
    assert!(parse_str("ts,equip,equip_class,role,value\n", &opts("Mars/Olympus"))
        .unwrap_err()
        .starts_with("unknown time zone"));
    let e = parse_str("ts,equip,equip_class,role,value\nyesterday,A,AHU,oat,1\n", &opts("UTC")).unwrap_err();
    assert!(e.starts_with("no row could be stored (1 read): 1 unreadable timestamps"), "{e}");
    assert!(parse_str("a,b\n1,2\n", &opts("UTC")).unwrap_err().contains("--mapping"));
}

#[test]
fn stamps() {
    assert_eq!(parse_stamp("2024-03-01"), Some((ns("2024-03-01T00:00"), None)));
    assert_eq!(parse_stamp("2024-03-01T10:20:30.5Z"), Some((ns("2024-03-01T10:20:30.5"), Some(0))));
    assert_eq!(parse_stamp("2024-03-01 10:20-0530"), Some((ns("2024-03-01T10:20"), Some(-19800))));
    assert_eq!(parse_stamp("2024-02-30 00:00"), None);
    assert_eq!(parse_stamp("2024-03-01 25:00"), None);
    assert_eq!(parse_stamp("03/01/2024"), None);
}

#[test]
fn times_past_what_a_store_holds_are_counted_not_wrapped() {
    // 9999-12-31 is past what nanoseconds in an i64 count (a panic in debug, 1816 in release
    // before); 1650 and 2250 are representable but outside the stored range
    let csv = "ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,1\n9999-12-31 23:59,A,AHU,oat,2\n1650-01-01 00:00,A,AHU,oat,3\n2250-06-01T00:00+02:00,A,AHU,oat,4\n";
    let (rows, rep) = parse_str(csv, &opts("UTC")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.value, vec![1.0]);
    assert_eq!(rep.dropped[OUT_OF_RANGE], 3, "{:?}", rep.dropped);
    let e = parse_str("ts,equip,equip_class,role,value\n9999-12-31 23:59,A,AHU,oat,2\n", &opts("UTC")).unwrap_err();
    assert!(e.contains("1 timestamps outside the years 1700 to 2199"), "{e}");
}

#[test]
fn offsets_no_clock_has_are_refused() {
    assert_eq!(parse_stamp("2024-03-01 10:20+99:99"), None);
    assert_eq!(parse_stamp("2024-03-01 10:20+05:60"), None);
    assert_eq!(parse_stamp("2024-03-01 10:20+19:00"), None);
    assert_eq!(parse_stamp("2024-03-01 10:20+14:00").map(|s| s.1), Some(Some(14 * 3600)));
    assert_eq!(parse_stamp("2024-03-01 10:20-12:00").map(|s| s.1), Some(Some(-12 * 3600)));
}

#[test]
fn crlf_rows_are_named_by_their_true_line() {
    for eol in ["\n", "\r\n", "\r"] {
        let csv =
            ["ts,equip,equip_class,role,value", "2024-03-01 00:00,A,AHU,oat,1", "2024-03-01 00:00,A,VAV,oat,1", ""]
                .join(eol);
        let e = parse_str(&csv, &opts("UTC")).unwrap_err();
        assert!(e.starts_with("line 3: equipment \"A\" has class \"VAV\" here but \"AHU\" on line 2"), "{eol:?}: {e}");
    }
}

#[test]
fn an_overlong_line_is_refused_as_it_streams() {
    // a header with no end: refused after MAX_LINE_BYTES, never read whole
    struct Endless(u64);
    impl std::io::Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.0 += out.len() as u64;
            assert!(self.0 < 64 << 20, "read far past the line bound");
            out.fill(b'x');
            Ok(out.len())
        }
    }
    let e = parse(Endless(0), 0, &opts("UTC")).unwrap_err();
    assert!(e.contains("line 1 is longer than 4 MiB"), "{e}");
}

#[test]
fn a_display_name_that_could_pass_for_other_text_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,1\n").unwrap();
    let store = dir.path().join("store");
    for bad in ["two\nlines", "clear\u{1b}[2J", "evil\u{202E}txt", "  "] {
        let mut o = opts("UTC");
        o.name = Some(bad.into());
        let e = ingest(&store, &csv, &o).unwrap_err();
        assert!(e.starts_with("display name"), "{bad:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(!store.exists(), "{bad:?}: a refused ingest made the store");
    }
    let mut o = opts("UTC");
    o.name = Some("Headquarters (west wing)".into());
    ingest(&store, &csv, &o).unwrap();
}

#[test]
fn a_refused_ingest_leaves_the_store_lock_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(&csv, "ts,equip,equip_class,role,value\n2024-03-01 00:00,A,AHU,oat,1\n").unwrap();
    let store = dir.path().join("store");
    ingest(&store, &csv, &opts("UTC")).unwrap();
    let lock = store.join(crate::writer::LOCK_FILE);
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    std::fs::File::options().write(true).open(&lock).unwrap().set_modified(old).unwrap();
    let before = std::fs::read(&lock).unwrap();
    let bad_id = IngestOptions { facility: "../x".into(), ..opts("UTC") };
    let exists = opts("UTC"); // hq has data, and neither --replace nor --append is given
    for (what, o) in [("a bad facility id", bad_id), ("an existing facility", exists)] {
        let e = ingest(&store, &csv, &o).unwrap_err();
        assert!(e.contains("facility"), "{what}: {e}");
        assert_eq!(std::fs::metadata(&lock).unwrap().modified().unwrap(), old, "{what}: the lock was touched");
        assert_eq!(std::fs::read(&lock).unwrap(), before, "{what}");
    }
}
