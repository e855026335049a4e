//! MCP resources that components serve (WIT world `capability-with-resources`): what each one
//! lists at load, checked, and a read run in the sandbox for a caller, with the caller's access
//! state (its reads of building data checked as a listing call's are: the allowlist, the
//! licence wall, the fences), its contents checked as attached content is ([`crate::content`])
//! and held to the caller's byte cap. The host's own `camber:` resources are never a component's.

use std::sync::Arc;

use camber_common::redact::Sent;
use camber_common::text::{one_line, thousands};
use camber_common::{CapError, ContentBlock, ErrorCode, ResourceInfo};
use camber_runtime::bindings::camber::capability::content::Block;
use camber_runtime::bindings::camber::capability::types as wit;
use camber_runtime::ResourceCall;

use crate::access::{code_from_wit, unavailable, Access};
use crate::context::CallContext;
use crate::registry::Unit;

/// One resource (or template of resources) a component serves, and the component.
pub struct ResourceEntry {
    pub info: ResourceInfo,
    /// The component's file (a name, never a path).
    pub file: String,
    pub(crate) unit: Arc<Unit>,
}

/// A component's listed resources, checked: each a URI outside `camber:`, with a name and a
/// MIME type, none listed twice.
pub(crate) fn entries(
    file: &str,
    listed: Vec<wit::ResourceInfo>,
    unit: &Arc<Unit>,
) -> Result<Vec<ResourceEntry>, String> {
    let infos = checked(file, listed)?;
    Ok(infos.into_iter().map(|info| ResourceEntry { info, file: file.to_string(), unit: unit.clone() }).collect())
}

/// [`entries`]' checks, on the listing alone.
fn checked(file: &str, listed: Vec<wit::ResourceInfo>) -> Result<Vec<ResourceInfo>, String> {
    let mut out: Vec<ResourceInfo> = Vec::new();
    for r in listed {
        let uri = one_line(&r.uri);
        crate::content::resource_uri(&uri).map_err(|why| format!("{file}: a listed resource {why}"))?;
        // the host's report app is a ui: resource
        if uri.get(..3).is_some_and(|s| s.eq_ignore_ascii_case("ui:")) {
            return Err(format!("{file}: resource '{uri}' is in the host's own scheme (ui:)"));
        }
        if r.name.trim().is_empty() || r.mime_type.trim().is_empty() {
            return Err(format!("{file}: resource '{uri}' needs a name and a MIME type"));
        }
        if out.iter().any(|e| e.uri == uri) {
            return Err(format!("{file}: resource '{uri}' is listed twice"));
        }
        out.push(ResourceInfo {
            uri,
            template: r.template,
            name: one_line(&r.name),
            title: one_line(&r.title),
            description: one_line(&r.description),
            mime_type: one_line(&r.mime_type),
        });
    }
    Ok(out)
}

/// Read `uri` from the component of `entry` for the caller of `ctx`: its contents, `None` when
/// the component says there is no such resource.
pub(crate) fn read(entry: &ResourceEntry, uri: &str, ctx: &CallContext) -> Result<Option<Vec<ContentBlock>>, CapError> {
    let unit = &entry.unit;
    // the licence wall as a call's reads have it: a facility whose licence is not clean is
    // refused, whatever the allowlist says
    let wall = ctx.store.as_ref().map(|s| Arc::new(crate::licence::Wall::new(s)));
    let mut access = Access::new(ctx.store.clone(), ctx.allowed.clone(), wall);
    access.run_configs = ctx.run_configs.clone();
    access.min_trust = ctx.min_trust;
    access.portfolio = ctx.portfolio.clone();
    // the fences, as a listing call has them: a rewrite in progress is waited for, a facility
    // whose fence cannot be read is not read, and a rewrite that overlaps the read fails it
    let (fenced, tokens) = match &ctx.store {
        Some(s) => {
            let all: Vec<String> = ctx.allowed.iter().cloned().collect();
            let (fenced, tokens, off) = s.fences_before_listing(&all).map_err(|e| unavailable(&e, &ctx.allowed))?;
            access.fenced_off = off;
            (fenced, tokens)
        }
        None => (Vec::new(), Vec::new()),
    };
    let wit_ctx = wit::CallContext {
        allowed_facilities: ctx.allowed.iter().cloned().collect(),
        min_trust: ctx.min_trust,
        max_rows: ctx.limits.max_rows.min(u32::MAX as usize) as u32,
        caller: ctx.caller.clone(),
    };
    let max_seconds = unit.grant.max_seconds.map_or(ctx.limits.max_seconds, |g| g.min(ctx.limits.max_seconds));
    let call = ResourceCall { uri, ctx: &wit_ctx, max_seconds, cancel: ctx.cancel.clone(), budget: unit.grant.budget };
    let (r, access) = unit.runtime.read_resource(&unit.pre, call, access);
    // a refused or failed store read decides, whatever the guest made of it
    if let Some(e) = access.error {
        return Err(e);
    }
    if let Some(s) = &ctx.store {
        s.fences_after(&fenced, &tokens).map_err(|e| unavailable(&e, &ctx.allowed))?;
    }
    let sent = Sent::new([uri]);
    let redact = |m: &str| ctx.redactor.redact_echoes(&one_line(m), &sent);
    let contents = match r {
        Err(why) => {
            let code = if why.contains("deadline") || why.contains("fuel") || why.contains("cancelled") {
                ErrorCode::Timeout
            } else {
                ErrorCode::Internal
            };
            return Err(CapError::new(code, format!("{}: the resource read {}", entry.file, redact(&why))));
        }
        Ok(Err(e)) => return Err(CapError::new(code_from_wit(e.code), redact(&e.message))),
        Ok(Ok(None)) => return Ok(None),
        Ok(Ok(Some(c))) => c,
    };
    let blocks = contents.into_iter().map(Block::EmbeddedResource).collect();
    let checked = crate::content::check(blocks, 0, &ctx.redactor, &sent).map_err(|why| {
        CapError::internal(format!("{}: resource {}", entry.file, why.replace("attached content block", "content")))
    })?;
    let size: usize = checked.iter().map(ContentBlock::bytes).sum();
    if size > ctx.limits.max_bytes {
        return Err(CapError::new(
            ErrorCode::TooLarge,
            format!(
                "the resource is {} bytes, over this caller's limit of {}",
                thousands(size),
                thousands(ctx.limits.max_bytes)
            ),
        ));
    }
    Ok(Some(checked))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(uri: &str, name: &str) -> wit::ResourceInfo {
        wit::ResourceInfo {
            uri: uri.into(),
            name: name.into(),
            title: String::new(),
            description: String::new(),
            mime_type: "text/plain".into(),
            template: false,
        }
    }

    #[test]
    fn a_listing_is_refused_in_one_line_naming_the_file_and_what_is_wrong() {
        assert_eq!(checked("_cap_x.wasm", vec![info("test://a", "a"), info("test://{id}", "b")]).unwrap().len(), 2);
        for (bad, want) in [
            (vec![info("camber://facility/hq/report", "r")], "only the host serves"),
            (vec![info("UI://camber/rcx-report", "r")], "host's own scheme (ui:)"),
            (vec![info("no scheme here", "r")], "which is not a URI"),
            (vec![info("test://a", " ")], "needs a name and a MIME type"),
            (vec![info("test://a", "a"), info("test://a", "b")], "listed twice"),
        ] {
            let e = checked("_cap_x.wasm", bad).unwrap_err();
            assert!(e.starts_with("_cap_x.wasm: ") && e.contains(want) && !e.contains('\n'), "{e}");
        }
    }
}
