//! The issue key: a short fingerprint of (facility, equipment, root rule) that stays the same
//! from run to run while the fault persists, so notes, tickets and fact ids written against an
//! issue follow it. It is the first 12 hex digits of SHA-1 over the three fields joined by the
//! unit separator (0x1f), the fingerprint the reference toolkit's issues use, so a key written by
//! either implementation names the same issue. SHA-1 serves as a stable spread here, not for
//! security.

/// The issue key of a root finding: `sha1(facility \x1f equip \x1f rule)`, first 12 hex digits.
pub fn issue_key(facility: &str, equip: &str, rule: &str) -> String {
    let raw = format!("{facility}\u{1f}{equip}\u{1f}{rule}");
    let digest = sha1(raw.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// SHA-1 of `data`, by the RustCrypto crate.
fn sha1(data: &[u8]) -> [u8; 20] {
    use sha1::Digest;
    sha1::Sha1::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn sha1_matches_the_standard_vectors() {
        assert_eq!(hex(&sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(hex(&sha1(b"abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
        // two blocks
        assert_eq!(
            hex(&sha1(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
        );
    }

    #[test]
    fn keys_are_short_stable_and_match_the_reference() {
        // the reference toolkit's key for the sensor issue of synthetic-ahu-sensor-bias
        let k = issue_key("ds-synthetic-ahu-sensor-bias", "AHU__sat_bias", "sensor_drift:supply_air_temp");
        assert_eq!(k, "04d4ff82c2cb");
        assert_eq!(k, issue_key("ds-synthetic-ahu-sensor-bias", "AHU__sat_bias", "sensor_drift:supply_air_temp"));
        assert_ne!(k, issue_key("ds-synthetic-ahu-sensor-bias", "AHU__healthy", "sensor_drift:supply_air_temp"));
        assert_eq!(k.len(), 12);
    }
}
