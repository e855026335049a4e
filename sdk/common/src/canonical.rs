//! RFC 8785 canonical JSON and the digests taken over it. Hash these bytes, never
//! `serde_json::to_string` output (its key order depends on crate features).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The RFC 8785 (JCS) bytes of `value`.
pub fn canonical_bytes(value: &Value) -> Vec<u8> {
    // A serde_json::Value has no NaN or infinity, the only inputs JCS refuses.
    serde_json_canonicalizer::to_vec(value).unwrap_or_default()
}

/// The canonical JSON of `value` as a string.
pub fn canonical_string(value: &Value) -> String {
    String::from_utf8(canonical_bytes(value)).unwrap_or_default()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// SHA-256 over the canonical JSON of `value`, in hex.
pub fn digest(value: &Value) -> String {
    sha256_hex(&canonical_bytes(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_number_form_do_not_change_the_bytes() {
        let a = json!({"b": 1.0, "a": [1, "x"], "c": {"z": null, "y": true}});
        let b: Value = serde_json::from_str(r#"{"c":{"y":true,"z":null},"a":[1,"x"],"b":1}"#).unwrap();
        assert_eq!(canonical_string(&a), r#"{"a":[1,"x"],"b":1,"c":{"y":true,"z":null}}"#);
        assert_eq!(canonical_bytes(&a), canonical_bytes(&b));
        assert_eq!(digest(&a).len(), 64);
        assert_ne!(digest(&a), digest(&json!({"b": 2})));
    }
}
