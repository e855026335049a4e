//! A component built against the previous WIT package, `camber:capability@0.1.0` (a copy of
//! it is in `wit/` beside this crate): the host must refuse it at load with one line naming
//! the version it was built for and the one it loads.

#![allow(clippy::too_many_arguments)] // the bindings wit-bindgen generates

wit_bindgen::generate!({ path: "wit", world: "capability" });

use camber::capability::types::ErrorCode;

struct Old;

impl Guest for Old {
    fn describe() -> Vec<Descriptor> {
        vec![Descriptor {
            name: "oldwit".into(),
            version: "0.0.1".into(),
            title: "built against 0.1.0".into(),
            description: "a capability from before the contract's 0.2.0".into(),
            input_schema: "{\"type\":\"object\"}".into(),
            output_schema: "{\"type\":\"object\"}".into(),
            cost: "cheap".into(),
            annotations: vec![],
        }]
    }
    fn prompts() -> Vec<Prompt> {
        vec![]
    }
    fn get_prompt(_name: String, _arguments: Vec<(String, String)>) -> Result<String, CapError> {
        Err(CapError { code: ErrorCode::NotFound, message: "no prompts".into(), data: None })
    }
    fn call(_name: String, _arguments: String, _ctx: CallContext) -> Result<CallResult, CapError> {
        Err(CapError { code: ErrorCode::Internal, message: "never loaded".into(), data: None })
    }
}

export!(Old);
