//! The small JSON-RPC 2.0 layer MCP and A2A share: parsing one message and writing responses
//! and errors.

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
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A JSON-RPC result response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A notification to send.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// Parse one message; `Err` is the error response to send.
pub fn parse(bytes: &[u8]) -> Result<Incoming, Value> {
    if bytes.len() > MAX_MESSAGE_BYTES {
        return Err(error(Value::Null, INVALID_REQUEST, "the message is larger than 4 MiB"));
    }
    let v: Value = serde_json::from_slice(bytes).map_err(|_| error(Value::Null, PARSE_ERROR, "Parse error: the message is not JSON"))?;
    if v.is_array() {
        return Err(error(Value::Null, INVALID_REQUEST, "batches are not supported: send one message at a time"));
    }
    let Value::Object(m) = v else {
        return Err(error(Value::Null, INVALID_REQUEST, "Invalid Request: a message is a JSON object"));
    };
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(error(m.get("id").cloned().unwrap_or(Value::Null), INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\""));
    }
    let id = m.get("id").cloned();
    if let Some(id) = &id {
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return Err(error(Value::Null, INVALID_REQUEST, "Invalid Request: id must be a string or an integer"));
        }
    }
    let Some(method) = m.get("method").and_then(Value::as_str) else {
        if m.contains_key("result") || m.contains_key("error") {
            return Ok(Incoming::Response);
        }
        return Err(error(id.unwrap_or(Value::Null), INVALID_REQUEST, "Invalid Request: no method"));
    };
    let params = m.get("params").cloned().unwrap_or(Value::Null);
    if !(params.is_null() || params.is_object()) {
        return Err(error(id.unwrap_or(Value::Null), INVALID_PARAMS, "Invalid params: params must be an object"));
    }
    Ok(match id {
        Some(id) => Incoming::Request { id, method: method.to_string(), params },
        None => Incoming::Notification { method: method.to_string(), params },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Ok(Incoming::Request { .. })));
        assert!(matches!(parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), Ok(Incoming::Notification { .. })));
        assert_eq!(parse(b"{nope").unwrap_err()["error"]["code"], PARSE_ERROR);
        assert_eq!(parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err()["error"]["code"], INVALID_REQUEST);
        assert_eq!(parse(br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#).unwrap_err()["error"]["code"], INVALID_REQUEST);
        assert_eq!(parse(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#).unwrap_err()["error"]["code"], INVALID_PARAMS);
        assert_eq!(parse(&vec![b' '; MAX_MESSAGE_BYTES + 1]).unwrap_err()["error"]["code"], INVALID_REQUEST);
    }
}
