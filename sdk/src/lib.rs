//! The crate a camber capability author depends on.
//!
//! A component declares its capabilities (and prompts) as plain Rust values and exports them
//! with [`export_plugin!`]; the SDK hides the WIT bindings. A handler takes the validated
//! arguments and a [`Context`] and returns an [`Output`] or a [`CapError`]. Data comes only
//! through [`store`], whose reads the host checks against the call in progress.
//!
//! ```ignore
//! use camber_sdk::{Capability, Context, Output, CapError, Plugin};
//! fn count(args: &serde_json::Value, ctx: &Context) -> Result<Output, CapError> { ... }
//! fn plugin() -> Plugin {
//!     Plugin::new().capability(Capability::new("equipment_count", count).title("Equipment count"))
//! }
//! camber_sdk::export_plugin!(plugin);
//! ```

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../wit",
        world: "capability",
        pub_export_macro: true,
        export_macro_name: "__export_world",
        default_bindings_module: "camber_sdk::bindings",
    });
}

mod plugin;
pub mod store;

pub use camber_common::page::{count_arg, MAX_LIMIT};
pub use camber_common::text::{name, one_line};
pub use camber_common::{page, CapError, ErrorCode, Output, PageNotice};
pub use plugin::{Capability, Context, Plugin, Prompt, PromptArg};

/// `not_found` for selection values a facility does not store (an equipment id, a role, a
/// class): the message names the unknown values and up to 10 stored ones, quoted, on one
/// line; the data has `argument`, `unknown` and up to 50 `available` values.
pub fn unknown_selection(
    facility_id: &str,
    argument: &str,
    label: &str,
    missing: &[String],
    stored: impl IntoIterator<Item = String>,
) -> CapError {
    let mut stored: Vec<String> = stored.into_iter().collect();
    stored.sort();
    stored.dedup();
    let shown: Vec<String> = stored.iter().take(10).map(|s| name(s)).collect();
    let more = if stored.len() > 10 { format!(" and {} more", stored.len() - 10) } else { String::new() };
    CapError::not_found(
        format!(
            "facility '{facility_id}' stores no {label} {}; it stores {}{more}",
            missing.iter().map(|m| name(m)).collect::<Vec<_>>().join(", "),
            if shown.is_empty() { "none".to_string() } else { shown.join(", ") }
        ),
        serde_json::json!({"argument": argument, "unknown": missing, "available": stored.into_iter().take(50).collect::<Vec<_>>()}),
    )
}

#[doc(hidden)]
pub use plugin::__guest;

/// Export a component's capabilities: pass a function that returns the [`Plugin`].
#[macro_export]
macro_rules! export_plugin {
    ($plugin:path) => {
        struct __CamberComponent;
        impl $crate::bindings::Guest for __CamberComponent {
            fn describe() -> ::std::vec::Vec<$crate::bindings::camber::capability::types::Descriptor> {
                $crate::__guest::describe(&$plugin())
            }
            fn prompts() -> ::std::vec::Vec<$crate::bindings::camber::capability::types::Prompt> {
                $crate::__guest::prompts(&$plugin())
            }
            fn get_prompt(
                name: ::std::string::String,
                arguments: ::std::vec::Vec<(::std::string::String, ::std::string::String)>,
            ) -> ::std::result::Result<::std::string::String, $crate::bindings::camber::capability::types::CapError> {
                $crate::__guest::get_prompt(&$plugin(), name, arguments)
            }
            fn call(
                name: ::std::string::String,
                arguments: ::std::string::String,
                ctx: $crate::bindings::camber::capability::types::CallContext,
            ) -> ::std::result::Result<
                $crate::bindings::camber::capability::types::CallResult,
                $crate::bindings::camber::capability::types::CapError,
            > {
                $crate::__guest::call(&$plugin(), name, arguments, ctx)
            }
        }
        $crate::bindings::__export_world!(__CamberComponent with_types_in $crate::bindings);
    };
}
