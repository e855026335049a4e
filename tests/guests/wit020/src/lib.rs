//! A component built against `camber:capability@0.2.0` (a copy of that contract is in `wit/`
//! beside this crate), from before `progress` was added: a 0.2.1 host must load it and call
//! it as it is, store reads included.

#![allow(clippy::too_many_arguments)] // the bindings wit-bindgen generates

wit_bindgen::generate!({ path: "wit", world: "capability" });

use camber::capability::store;
use camber::capability::types::ErrorCode;

struct Before;

impl Guest for Before {
    fn describe() -> Vec<Descriptor> {
        vec![Descriptor {
            name: "wit020".into(),
            version: "0.0.1".into(),
            title: "built against 0.2.0".into(),
            description: "counts the facilities a call may see, built against the contract's 0.2.0".into(),
            input_schema: "{\"type\":\"object\"}".into(),
            output_schema: "{\"type\":\"object\",\"required\":[\"facilities\"]}".into(),
            cost: "cheap".into(),
            annotations: vec![],
            own_output: vec![],
        }]
    }
    fn prompts() -> Vec<Prompt> {
        vec![]
    }
    fn get_prompt(_name: String, _arguments: Vec<(String, String)>) -> Result<String, CapError> {
        Err(CapError { code: ErrorCode::NotFound, message: "no prompts".into(), data: None })
    }
    fn call(_name: String, _arguments: String, _ctx: CallContext) -> Result<CallResult, CapError> {
        let n = store::facilities()
            .map_err(|e| CapError { code: e.code, message: e.message, data: None })?
            .facilities
            .len();
        Ok(CallResult {
            data: format!("{{\"facilities\":{n}}}"),
            text: format!("{n} facilities"),
            facts: "[]".into(),
            banners: vec![],
            pages: vec![],
        })
    }
}

export!(Before);
