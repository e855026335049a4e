//! Fresh identifiers and the time of day, for the host: session ids, bearer tokens, task and
//! message ids, staging names. Randomness comes from the operating system's generator
//! (`getrandom`) and nowhere else: when it cannot be read the id is an error, never a weaker
//! id made from the time and a pid. `camber` checks the generator once at startup.

/// 32 hex digits (128 bits) from the operating system's generator.
pub fn random_hex() -> Result<String, String> {
    let mut buf = [0u8; 16];
    getrandom::fill(&mut buf)
        .map_err(|e| format!("the operating system's random number generator cannot be read ({e})"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Now in UTC as `2026-11-30T09:42:40Z`.
pub fn utc_now() -> String {
    let ns =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as i64).unwrap_or(0);
    let s = crate::time::iso_from_ns(ns - ns.rem_euclid(1_000_000_000));
    format!("{s}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fresh_hex() {
        let (a, b) = (random_hex().unwrap(), random_hex().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(utc_now().ends_with('Z') && utc_now().len() == 20);
    }
}
