//! The refusal codes of the registry and the error value that carries one.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a call was refused or failed; every adapter maps these one to one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidParams,
    UnknownCapability,
    NotFound,
    NotAllowed,
    RefusedLicence,
    TooLarge,
    Timeout,
    Unavailable,
    Internal,
}

impl ErrorCode {
    /// Every code, in the spec's order.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::InvalidParams,
        ErrorCode::UnknownCapability,
        ErrorCode::NotFound,
        ErrorCode::NotAllowed,
        ErrorCode::RefusedLicence,
        ErrorCode::TooLarge,
        ErrorCode::Timeout,
        ErrorCode::Unavailable,
        ErrorCode::Internal,
    ];

    /// The wire name (`invalid_params`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidParams => "invalid_params",
            ErrorCode::UnknownCapability => "unknown_capability",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NotAllowed => "not_allowed",
            ErrorCode::RefusedLicence => "refused_licence",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::Internal => "internal",
        }
    }

    /// The code with this wire name, if any.
    pub fn parse(s: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused or failed call: a code, a one-line message and optional structured data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CapError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl CapError {
    /// A refusal with no data.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CapError { code, message: message.into(), data: None }
    }

    /// A refusal with structured data (an object).
    pub fn with_data(code: ErrorCode, message: impl Into<String>, data: Value) -> Self {
        CapError { code, message: message.into(), data: Some(data) }
    }

    /// `not_found` with data; the commonest refusal a capability raises itself.
    pub fn not_found(message: impl Into<String>, data: Value) -> Self {
        CapError::with_data(ErrorCode::NotFound, message, data)
    }

    /// `invalid_params` without data.
    pub fn invalid(message: impl Into<String>) -> Self {
        CapError::new(ErrorCode::InvalidParams, message)
    }

    /// `internal` without data.
    pub fn internal(message: impl Into<String>) -> Self {
        CapError::new(ErrorCode::Internal, message)
    }

    /// The JSON shape every adapter prints: `{"code", "message", "data"}`.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "code": self.code.as_str(),
            "message": self.message,
            "data": self.data.clone().unwrap_or(Value::Null),
        })
    }
}

impl std::fmt::Display for CapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CapError {}

/// Define `code_to_wit` and `code_from_wit` between [`ErrorCode`] and a WIT binding's
/// `error-code` enum (the host's and the guest's bindings generate distinct types with the
/// same cases). Pass the enum's name as an identifier in scope.
#[macro_export]
macro_rules! wit_error_code_mapping {
    ($wit:ident) => {
        /// The WIT enum value of a refusal code.
        pub fn code_to_wit(c: $crate::ErrorCode) -> $wit {
            match c {
                $crate::ErrorCode::InvalidParams => $wit::InvalidParams,
                $crate::ErrorCode::UnknownCapability => $wit::UnknownCapability,
                $crate::ErrorCode::NotFound => $wit::NotFound,
                $crate::ErrorCode::NotAllowed => $wit::NotAllowed,
                $crate::ErrorCode::RefusedLicence => $wit::RefusedLicence,
                $crate::ErrorCode::TooLarge => $wit::TooLarge,
                $crate::ErrorCode::Timeout => $wit::Timeout,
                $crate::ErrorCode::Unavailable => $wit::Unavailable,
                $crate::ErrorCode::Internal => $wit::Internal,
            }
        }

        /// The refusal code of a WIT enum value.
        pub fn code_from_wit(c: $wit) -> $crate::ErrorCode {
            match c {
                $wit::InvalidParams => $crate::ErrorCode::InvalidParams,
                $wit::UnknownCapability => $crate::ErrorCode::UnknownCapability,
                $wit::NotFound => $crate::ErrorCode::NotFound,
                $wit::NotAllowed => $crate::ErrorCode::NotAllowed,
                $wit::RefusedLicence => $crate::ErrorCode::RefusedLicence,
                $wit::TooLarge => $crate::ErrorCode::TooLarge,
                $wit::Timeout => $crate::ErrorCode::Timeout,
                $wit::Unavailable => $crate::ErrorCode::Unavailable,
                $wit::Internal => $crate::ErrorCode::Internal,
            }
        }
    };
}
