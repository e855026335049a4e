//! The small JSON-RPC 2.0 layer MCP and A2A share: parsing one message and writing responses
//! and errors.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{json, Value};

/// Standard error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// The largest message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 4 << 20;

/// One incoming message.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// A request: it gets exactly one response.
    Request { id: Value, method: String, params: Value },
    /// A notification: it gets none.
    Notification { method: String, params: Value },
    /// A response from the peer (ignored by these servers).
    Response,
}

/// A JSON-RPC error response.
pub fn error(id: Value, code: i64, message: &str) -> Value {
    envelope([("id", id), ("error", json!({"code": code, "message": message}))])
}

/// A JSON-RPC result response.
pub fn result(id: Value, result: Value) -> Value {
    envelope([("id", id), ("result", result)])
}

/// A notification to send.
pub fn notification(method: &str, params: Value) -> Value {
    envelope([("method", Value::from(method)), ("params", params)])
}

/// `{"jsonrpc": "2.0", ...members}` with the members moved in. (`json!` would serialize each
/// member into a new tree: a deep copy of every result, a fifth of the server's time on a
/// 46 KiB answer.)
fn envelope<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut m = serde_json::Map::with_capacity(N + 1);
    m.insert("jsonrpc".into(), Value::from("2.0"));
    for (k, v) in members {
        m.insert(k.into(), v);
    }
    Value::Object(m)
}

/// A message on its way out: its tree and, for the result of a call the server keeps, the
/// data's JSON text, written as it is in place of `result.structuredContent` (a `null` in the
/// tree). The bytes are the ones the tree with the data in place would make; what is saved is
/// a copy of the data into each answer and its serialization again.
#[derive(Debug)]
pub struct Message {
    tree: Value,
    structured: Option<Arc<RawValue>>,
}

/// The member of `result` a [`Message`]'s JSON text stands for.
const STRUCTURED: &str = "structuredContent";

impl Message {
    /// A result response whose `structuredContent` is `data`, already JSON text.
    pub fn result_with(id: Value, result: Value, data: Option<Arc<RawValue>>) -> Message {
        let spliced = data.is_some() && result.get(STRUCTURED).is_some();
        Message { tree: self::result(id, result), structured: data.filter(|_| spliced) }
    }

    /// Whether the message answers a request (it has an id), rather than notifying.
    pub fn is_response(&self) -> bool {
        self.tree.get("id").is_some()
    }

    /// The whole message as a tree: the JSON text parsed into its place.
    pub fn into_value(self) -> Value {
        let mut tree = self.tree;
        if let Some(raw) = self.structured {
            tree["result"][STRUCTURED] = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
        }
        tree
    }
}

impl From<Value> for Message {
    fn from(tree: Value) -> Message {
        Message { tree, structured: None }
    }
}

impl serde::Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (Some(raw), Value::Object(envelope)) = (&self.structured, &self.tree) else {
            return self.tree.serialize(s);
        };
        let Some(Value::Object(result)) = envelope.get("result") else {
            return self.tree.serialize(s);
        };
        let result = Spliced { members: result, key: STRUCTURED, with: &**raw };
        Spliced { members: envelope, key: "result", with: &result }.serialize(s)
    }
}

/// An object written member by member, with the value of `key` written from `with` instead.
struct Spliced<'a, T: ?Sized> {
    members: &'a serde_json::Map<String, Value>,
    key: &'a str,
    with: &'a T,
}

impl<T: serde::Serialize + ?Sized> serde::Serialize for Spliced<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.members.len()))?;
        for (k, v) in self.members {
            if k == self.key {
                m.serialize_entry(k, self.with)?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// How deep `params` may nest (serde_json's own limit for a `Value`). A message nested
/// deeper is still read, and its request answered `Invalid params` with its id.
pub const MAX_PARAMS_DEPTH: usize = 128;

/// Whether `id` is one JSON-RPC allows here (MCP: a string or an integer, never null).
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

/// Parse one message; `Err` is the error response to send. Only a request whose id is valid
/// is answered with its id; any other error response carries a null id.
pub fn parse(bytes: &[u8]) -> Result<Incoming, Value> {
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(error(Value::Null, INVALID_REQUEST, "the message is larger than 4 MiB"));
    }
    let not_json = || error(Value::Null, PARSE_ERROR, "Parse error: the message is not JSON");
    // the whole message as raw JSON: its syntax is checked without building values, at any
    // depth (serde_json skips raw values without recursing), so a deep message is not
    // mistaken for a malformed one
    let text = std::str::from_utf8(bytes).map_err(|_| not_json())?;
    let raw: &RawValue = serde_json::from_str(text).map_err(|_| not_json())?;
    match raw.get().as_bytes().first() {
        Some(b'{') => {}
        Some(b'[') => {
            return Err(error(Value::Null, INVALID_REQUEST, "batches are not supported: send one message at a time"))
        }
        _ => return Err(error(Value::Null, INVALID_REQUEST, "Invalid Request: a message is a JSON object")),
    }
    let m: HashMap<String, &RawValue> = serde_json::from_str(raw.get()).map_err(|_| not_json())?;
    // a member nested too deeply to be a Value is none of the shapes JSON-RPC allows
    let member = |k: &str| m.get(k).map(|r| serde_json::from_str::<Value>(r.get()).ok());
    let id = match member("id") {
        None => None,
        Some(Some(id)) if valid_id(&id) => Some(id),
        Some(_) => {
            return Err(error(Value::Null, INVALID_REQUEST, "Invalid Request: id must be a string or an integer"))
        }
    };
    let answer = || id.clone().unwrap_or(Value::Null);
    if !matches!(member("jsonrpc"), Some(Some(Value::String(v))) if v == "2.0") {
        return Err(error(answer(), INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\""));
    }
    let method = match member("method") {
        Some(Some(Value::String(method))) => method,
        Some(_) => return Err(error(answer(), INVALID_REQUEST, "Invalid Request: method must be a string")),
        None if m.contains_key("result") || m.contains_key("error") => return Ok(Incoming::Response),
        None => return Err(error(answer(), INVALID_REQUEST, "Invalid Request: no method")),
    };
    let params = match m.get("params") {
        None => Value::Null,
        Some(r) => match serde_json::from_str::<Value>(r.get()) {
            Ok(p) => p,
            Err(_) => {
                return Err(error(
                    answer(),
                    INVALID_PARAMS,
                    &format!("Invalid params: params nest deeper than {MAX_PARAMS_DEPTH} levels"),
                ));
            }
        },
    };
    if !(params.is_null() || params.is_object()) {
        return Err(error(answer(), INVALID_PARAMS, "Invalid params: params must be an object"));
    }
    Ok(match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_written_member_for_member_as_the_protocol_orders_them() {
        let data = json!({"rows": [{"a": 1, "b": "x"}], "n": 1});
        let text = |v: &Value| serde_json::to_string(v).unwrap();
        assert_eq!(
            text(&result(json!(7), data.clone())),
            format!(r#"{{"jsonrpc":"2.0","id":7,"result":{}}}"#, text(&data))
        );
        assert_eq!(
            text(&error(json!("a"), INVALID_PARAMS, "bad")),
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}}"#
        );
        assert_eq!(
            text(&notification("notifications/progress", json!({"progress": 5}))),
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":5}}"#
        );
    }

    #[test]
    fn a_result_with_its_data_as_text_is_written_as_the_tree_with_the_data_in_place() {
        let data = json!({"rows": [{"a": 1, "b": "x \" y"}], "n": 1.5, "none": null});
        let raw: Arc<RawValue> = serde_json::value::to_raw_value(&data).unwrap().into();
        let result =
            |d: Value| json!({"content": [{"type": "text", "text": "t"}], "structuredContent": d, "isError": false});
        let whole = self::result(json!(3), result(data.clone()));
        let spliced = Message::result_with(json!(3), result(Value::Null), Some(raw.clone()));
        assert_eq!(
            serde_json::to_vec(&spliced).unwrap(),
            serde_json::to_vec(&whole).unwrap(),
            "the same bytes, members in order"
        );
        assert!(spliced.is_response());
        assert_eq!(spliced.into_value(), whole);
        // a result without the member (an error) is written as it is: the text has no place
        let refused = Message::result_with(json!(3), json!({"isError": true}), Some(raw));
        assert_eq!(serde_json::to_vec(&refused).unwrap(), br#"{"jsonrpc":"2.0","id":3,"result":{"isError":true}}"#);
        let note: Message = notification("n", json!({})).into();
        assert!(!note.is_response());
    }

    #[test]
    fn messages() {
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Incoming::Request { .. })));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification { .. })
        ));
        assert_eq!(parse(b"{nope").unwrap_err()["error"]["code"], PARSE_ERROR);
        assert_eq!(
            parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err()["error"]["code"],
            INVALID_REQUEST
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).unwrap_err()["error"]["code"],
            INVALID_REQUEST
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#).unwrap_err()["error"]["code"],
            INVALID_PARAMS
        );
        assert_eq!(parse(&vec![b' '; MAX_MESSAGE_BYTES + 1]).unwrap_err()["error"]["code"], INVALID_REQUEST);
    }

    #[test]
    fn an_invalid_id_is_never_echoed() {
        for raw in [
            &br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#[..],
            br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            br#"{"jsonrpc":"1.0","id":{"a":1},"method":"ping"}"#,
            br#"{"id":[1,2],"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":{"a":1}}"#,
            br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        ] {
            let e = parse(raw).unwrap_err();
            assert_eq!(e["id"], Value::Null, "{}", String::from_utf8_lossy(raw));
            assert_eq!(e["error"]["code"], INVALID_REQUEST, "{}", String::from_utf8_lossy(raw));
        }
        // a valid id is kept for the other refusals
        assert_eq!(parse(br#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#).unwrap_err()["id"], "x");
        assert_eq!(parse(br#"{"jsonrpc":"2.0","id":7,"method":3}"#).unwrap_err()["id"], 7);
    }

    #[test]
    fn deep_valid_json_is_answered_with_its_id() {
        for depth in [200, 100_000] {
            let msg = format!(
                r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"x":{}1{}}}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            let e = parse(msg.as_bytes()).unwrap_err();
            assert_eq!(e["id"], 42, "depth {depth}");
            assert_eq!(e["error"]["code"], INVALID_PARAMS, "depth {depth}");
        }
        // shallower params parse
        let ok = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"x":{}1{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(matches!(parse(ok.as_bytes()), Ok(Incoming::Request { .. })));
        // deep and malformed is a parse error; a deep id is an invalid one
        let bad = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"x":{}1,{}}}}}"#,
            "[".repeat(300),
            "]".repeat(300)
        );
        assert_eq!(parse(bad.as_bytes()).unwrap_err()["error"]["code"], PARSE_ERROR);
        let deep_id = format!(r#"{{"jsonrpc":"2.0","id":{}1{},"method":"m"}}"#, "[".repeat(300), "]".repeat(300));
        let e = parse(deep_id.as_bytes()).unwrap_err();
        assert_eq!((e["id"].clone(), e["error"]["code"].clone()), (Value::Null, json!(INVALID_REQUEST)));
    }
}
