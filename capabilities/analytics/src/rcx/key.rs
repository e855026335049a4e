//! The issue key: a short fingerprint of (facility, equipment, root rule) that stays the same
//! from run to run while the fault persists, so notes, tickets and fact ids written against an
//! issue follow it. It is the first 12 hex digits of SHA-1 over the three fields joined by the
//! unit separator (0x1f), the fingerprint the reference toolkit's issues use, so a key written by
//! either implementation names the same issue. SHA-1 serves as a stable spread here, not for
//! security; it is small enough to keep in this crate (which builds for wasm32 without extra
//! dependencies).

/// The issue key of a root finding: `sha1(facility \x1f equip \x1f rule)`, first 12 hex digits.
pub fn issue_key(facility: &str, equip: &str, rule: &str) -> String {
    let raw = format!("{facility}\u{1f}{equip}\u{1f}{rule}");
    let digest = sha1(raw.as_bytes());
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// SHA-1 (FIPS 180-4) of `data`.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0];
    let mut msg = data.to_vec();
    let bits = (data.len() as u64).wrapping_mul(8);
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bits.to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 80];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
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
