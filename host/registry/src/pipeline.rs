//! One call's policy, in the order of the spec's "The policy every call follows", each step a
//! small function. `Registry::call` runs three phases:
//!
//! - [`admit`]: 1 validation, 2 allowlist, 3 licence, 4 no-persist, 5 trust floor, then the
//!   fences (step 9's "before");
//! - [`run`]: the guest, and what its end means (store errors first, then deadline, fuel,
//!   memory, a trap), the call token (inside the fences, so it is the generation of the data
//!   the guest read), then the fences again;
//! - [`finish`]: 6 pages and caps, the output schema, the facility check, fact ids, 7
//!   citations, 8 text rules, 10 paths, the evidence image a result asks for, and the byte cap
//!   last (over the image too).
//!
//! A reader looking for where a call is validated, refused or cut finds it here; the pieces
//! each step uses (schema subset, token, scoping, caps) are in [`crate::policy`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{json, Value};

use camber_common::progress::{Progress, ProgressSink};
use camber_common::redact::Sent;
use camber_common::text::{one_line, summary_line, thousands};
use camber_common::{CapError, CapabilityResult, ErrorCode, PageNotice};
use camber_runtime::profile::step;
use camber_runtime::{panic_message, wit, GuestCall, GuestOutcome, Stop};
use camber_store::StoreError;

use crate::access::{code_from_wit, unavailable, Access};
use crate::capability::CapabilityEntry;
use crate::context::CallContext;
use crate::licence::Wall;
use crate::memo::{self, Kept};
use crate::policy::{self, TokenInputs};
use crate::registry::Unit;
use crate::trust::Grant;

/// Why a call was refused: a schema refusal (its messages are `"<pointer>: <problem>"`,
/// redacted after the pointer) or any other.
pub(crate) enum Refusal {
    Schema(CapError),
    Other(CapError),
}

impl From<CapError> for Refusal {
    fn from(e: CapError) -> Self {
        Refusal::Other(e)
    }
}

/// What admission decided: the arguments as the handler sees them, the facilities the call
/// may read, the licence wall and the fences' tokens; and, once the guest has run, the call's
/// token.
pub(crate) struct Admitted {
    pub args: Value,
    pub readable: BTreeSet<String>,
    /// Whether the arguments name the facilities (else the call may read every allowed one).
    pub named: bool,
    pub wall: Option<Arc<Wall>>,
    /// The facilities whose fences the call checks (a listing leaves out unreadable ones).
    pub fenced: Vec<String>,
    pub fence_tokens: Vec<Option<String>>,
    /// A listing's facilities whose fence cannot be read: listed as unavailable, never read.
    pub fenced_off: BTreeMap<String, StoreError>,
    pub token: String,
}

/// Admission: everything decided before the guest runs.
pub(crate) fn admit(cap: &CapabilityEntry, arguments: &Value, ctx: &CallContext) -> Result<Admitted, Refusal> {
    let args = step("1 input schema", || validate(cap, arguments))?;
    let (named, readable) = step("2 allowlist", || allowlist(&args, ctx))?;
    let wall = step("3 licence", || licence(&named, ctx))?;
    // Step 4, no-persist, holds by construction: a guest has no preopened directory, no
    // sockets and no environment, and every interface it imports is read-only. Step 5, the
    // trust floor, is `ctx.min_trust`: it travels with the access state, `run_config_for`
    // raises it to a config's own, and a guest may only ask for more. Neither has a per-call
    // check to make here.
    let (fenced, fenced_off, fence_tokens) = step("9 fences before", || fences_before(&named, &readable, ctx))?;
    let named = !named.is_empty();
    Ok(Admitted { args, readable, named, wall, fenced, fence_tokens, fenced_off, token: String::new() })
}

/// Step 1: The arguments are an object valid against the input schema (compiled at load); whole
/// floats where the schema says integer become integers.
fn validate(cap: &CapabilityEntry, arguments: &Value) -> Result<Value, Refusal> {
    let mut args = match arguments {
        Value::Null => json!({}),
        Value::Object(_) => arguments.clone(),
        _ => return Err(CapError::invalid("arguments must be a JSON object").into()),
    };
    let errors = cap.input.errors(&args);
    if !errors.is_empty() {
        return Err(Refusal::Schema(policy::invalid_params(errors)));
    }
    policy::normalize_integers(&mut args, &cap.input.source);
    Ok(args)
}

/// Step 2: Every facility the arguments name is allowed (`not_allowed`, existing or not). The call
/// may read the named ones, else (a listing) every allowed one.
fn allowlist(args: &Value, ctx: &CallContext) -> Result<(Vec<String>, BTreeSet<String>), Refusal> {
    let named = policy::named_facilities(args);
    policy::check_allowlist(&named, &ctx.allowed)?;
    let readable = if named.is_empty() { ctx.allowed.clone() } else { named.iter().cloned().collect() };
    Ok((named, readable))
}

/// Step 3: Research-only data is refused, failing closed; a listing leaves such facilities out
/// (the access state consults the same wall).
fn licence(named: &[String], ctx: &CallContext) -> Result<Option<Arc<Wall>>, Refusal> {
    let wall = ctx.store.as_ref().map(|s| Arc::new(Wall::new(s)));
    if let Some(w) = &wall {
        for fid in named {
            w.check(fid)?;
        }
    }
    Ok(wall)
}

/// The facilities whose fences are checked, a listing's unreadable ones, and the tokens read.
type Fences = (Vec<String>, BTreeMap<String, StoreError>, Vec<Option<String>>);

/// Step 9 (before): a rewrite in progress is waited for (up to a second), then `unavailable`.
/// In a listing, a facility whose fence cannot be read at all is listed as unavailable rather
/// than taking the listing down.
fn fences_before(named: &[String], readable: &BTreeSet<String>, ctx: &CallContext) -> Result<Fences, Refusal> {
    let Some(s) = &ctx.store else { return Ok((Vec::new(), BTreeMap::new(), Vec::new())) };
    let fids: Vec<String> = readable.iter().cloned().collect();
    let refuse = |e: StoreError| -> Refusal { unavailable(&e, &ctx.allowed).into() };
    if named.is_empty() {
        let (fenced, tokens, fenced_off) = s.fences_before_listing(&fids).map_err(refuse)?;
        return Ok((fenced, fenced_off, tokens));
    }
    let tokens = s.fences_before(&fids).map_err(refuse)?;
    Ok((fids, BTreeMap::new(), tokens))
}

/// The call token: six hex digits over what decides the values (name, arguments, allowlist,
/// config digest, trust floor, store generation of the facilities read). The facilities read
/// are those the arguments name; a call that names none reads those of the allowed ones its
/// guest asked the store for (a listing every one, a catalog call none), so a call whose
/// values no facility decides does not stat every file of the store.
fn call_token(name: &str, args: &Value, generation: &str, ctx: &CallContext) -> String {
    policy::call_token(
        name,
        args,
        &ctx.allowed,
        &TokenInputs { config_digest: &ctx.config_digest, min_trust: ctx.min_trust, generation },
    )
}

/// The store generation of the facilities `read` (see [`call_token`]; empty without a store).
fn generation(read: &BTreeSet<String>, ctx: &CallContext) -> String {
    match &ctx.store {
        Some(s) => s.generation(&read.iter().cloned().collect::<Vec<_>>()),
        None => String::new(),
    }
}

/// The generation a kept result must still see to be reused: status-change times included.
fn derived_generation(read: &BTreeSet<String>, ctx: &CallContext) -> String {
    match &ctx.store {
        Some(s) => s.derived_generation(&read.iter().cloned().collect::<Vec<_>>()),
        None => String::new(),
    }
}

/// What the guest (or the memo) gave a call.
pub(crate) struct Returned {
    /// The guest's result (a fresh run's; `None` for a kept one, which `kept` holds).
    fresh: Option<wit::CallResult>,
    /// The memo's entry for it: a kept result reused, or the fresh one just kept.
    kept: Option<Arc<Kept>>,
    /// The content blocks a fresh run attached (a result with any is never kept).
    attached: camber_runtime::Attached,
}

/// Run the guest with the call's access state and limits, and read its end: a refused or
/// failed store read decides the call whatever the guest made of it; then a slot, deadline,
/// cancel, fuel, memory or trap; then the fences again (a rewrite that overlapped the call);
/// then the guest's own refusal. A result the component's memo kept for the same inputs, on
/// facilities still at the generation it was read at, stands in for running the guest
/// ([`crate::memo`]); the fences are checked around it all the same.
pub(crate) fn run(unit: &Unit, name: &str, adm: &mut Admitted, ctx: &CallContext) -> Result<Returned, Refusal> {
    let wit_ctx = wit::CallContext {
        allowed_facilities: ctx.allowed.iter().cloned().collect(),
        min_trust: ctx.min_trust,
        max_rows: ctx.limits.max_rows.min(u32::MAX as usize) as u32,
        caller: ctx.caller.clone(),
    };
    let arguments = step("arguments to JSON text", || adm.args.to_string());
    let memo_key = (unit.memo.enabled() && adm.fenced_off.is_empty()).then(|| {
        let store = ctx.store.as_ref().map(|s| s.root().to_string_lossy().into_owned()).unwrap_or_default();
        memo::key(name, &arguments, &wit_ctx, &adm.readable, &ctx.config_digest, &store)
    });
    if let Some(key) = &memo_key {
        if let Some(kept) = step("memo", || reuse(unit, key, name, adm, ctx)) {
            fences_after(adm, ctx)?;
            return Ok(Returned { fresh: None, kept: Some(kept), attached: Default::default() });
        }
    }
    let grant = &unit.grant;
    let mut access = Access::new(ctx.store.clone(), adm.readable.clone(), adm.wall.clone());
    access.run_configs = ctx.run_configs.clone();
    access.fenced_off = std::mem::take(&mut adm.fenced_off);
    access.min_trust = ctx.min_trust;
    access.portfolio = ctx.portfolio.clone();
    let varied = camber_runtime::Varied::default();
    let call = GuestCall {
        name,
        arguments: &arguments,
        ctx: &wit_ctx,
        max_seconds: max_seconds(grant, ctx),
        cancel: ctx.cancel.clone(),
        progress: ctx.progress.clone().map(|sink| redacted(sink, ctx.redactor.clone())),
        budget: grant.budget,
        varied: Some(varied.clone()),
    };
    let (outcome, access, attached) = unit.runtime.call(&unit.pre, call, access);
    if let Some(e) = access.error {
        return Err(e.into());
    }
    let read = if adm.named { adm.readable.clone() } else { access.read };
    let mut generation = step("call token", || generation(&read, ctx));
    // a portfolio run is data too: a new run gives a new token, and its result is not kept
    // (the memo watches the store's generations, which a portfolio run does not move)
    if let Some(run) = &access.portfolio_run {
        generation.push_str(&format!(";portfolio run {run}"));
    }
    adm.token = step("call token", || call_token(name, &adm.args, &generation, ctx));
    // what a kept result is checked against, read inside the fences like the token
    let keep = memo_key.filter(|_| {
        !varied.load(std::sync::atomic::Ordering::Relaxed)
            && access.portfolio_run.is_none()
            && attached.blocks.is_empty()
            && attached.dropped == 0
    });
    let derived = keep.as_ref().map(|_| step("memo", || derived_generation(&read, ctx)));
    let returned = guest_end(grant, name, outcome, ctx)?;
    fences_after(adm, ctx)?;
    let result = returned.map_err(|e| guest_refusal(name, e))?;
    let kept = match (keep, derived) {
        (Some(key), Some(derived)) => {
            step("memo", || unit.memo.put(key, Kept::new(result.clone(), read, derived, generation)))
        }
        _ => None,
    };
    Ok(Returned { fresh: Some(result), kept, attached })
}

/// The result kept under `key`, when every facility it was read from still has the generation
/// it had: the call's token comes from that generation (the fences are checked after it as
/// after a guest). `None`: nothing kept, or kept from data that has changed since (dropped).
fn reuse(unit: &Unit, key: &memo::MemoKey, name: &str, adm: &mut Admitted, ctx: &CallContext) -> Option<Arc<Kept>> {
    let kept = unit.memo.get(key)?;
    if derived_generation(&kept.read, ctx) != kept.derived {
        unit.memo.forget(key);
        return None;
    }
    adm.token = call_token(name, &adm.args, &kept.generation, ctx);
    Some(kept)
}

/// Step 9 (after): a rewrite that overlapped the call makes it `unavailable` (retryable).
fn fences_after(adm: &Admitted, ctx: &CallContext) -> Result<(), Refusal> {
    if let Some(s) = &ctx.store {
        step("9 fences after", || s.fences_after(&adm.fenced, &adm.fence_tokens))
            .map_err(|e| unavailable(&e, &ctx.allowed))?;
    }
    Ok(())
}

/// The guest's own refusal, as the caller gets it.
fn guest_refusal(name: &str, e: wit::CapError) -> Refusal {
    match e.data.as_deref().map(serde_json::from_str::<Value>) {
        None => CapError { code: code_from_wit(e.code), message: e.message, data: None }.into(),
        Some(Ok(v)) => CapError { code: code_from_wit(e.code), message: e.message, data: Some(v) }.into(),
        Some(Err(_)) => CapError::internal(format!("capability '{name}' returned error data that is not JSON")).into(),
    }
}

/// A call's wall-clock budget: the caller's, within the component's grant.
fn max_seconds(grant: &Grant, ctx: &CallContext) -> f64 {
    grant.max_seconds.map_or(ctx.limits.max_seconds, |g| g.min(ctx.limits.max_seconds))
}

/// A progress sink that takes the server's local roots out of a guest's message first: a
/// report's text reaches the caller as any other guest text does.
fn redacted(sink: ProgressSink, redactor: Arc<camber_common::redact::Redactor>) -> ProgressSink {
    Arc::new(move |p: &Progress| sink(&Progress { message: redactor.redact(&p.message), ..p.clone() }))
}

/// What the way a guest ended means for the call.
fn guest_end(
    grant: &Grant,
    name: &str,
    outcome: GuestOutcome,
    ctx: &CallContext,
) -> Result<Result<wit::CallResult, wit::CapError>, Refusal> {
    let refusal = match outcome {
        GuestOutcome::Returned(r) => return Ok(r),
        GuestOutcome::NoSlot => CapError::with_data(
            ErrorCode::Unavailable,
            format!("every sandbox slot is busy; retry '{name}' in a moment"),
            json!({"retryable": true}),
        ),
        GuestOutcome::Stopped(Stop::Deadline) => CapError::with_data(
            ErrorCode::Timeout,
            format!("'{name}' ran longer than {} s and was stopped", fmt_seconds(max_seconds(grant, ctx))),
            json!({"max_seconds": max_seconds(grant, ctx)}),
        ),
        GuestOutcome::Stopped(Stop::Cancelled) => CapError::with_data(
            ErrorCode::Timeout,
            format!("'{name}' was cancelled by the caller and stopped"),
            json!({"cancelled": true}),
        ),
        GuestOutcome::OutOfFuel => CapError::with_data(
            ErrorCode::Timeout,
            format!("'{name}' used up its compute budget and was stopped; narrow the query"),
            json!({"fuel": grant.budget.fuel}),
        ),
        GuestOutcome::OutOfMemory => CapError::with_data(
            ErrorCode::TooLarge,
            format!(
                "'{name}' needed more than its memory limit of {} MiB and was stopped; narrow the query",
                grant.budget.max_memory_bytes >> 20
            ),
            json!({"max_memory_bytes": grant.budget.max_memory_bytes}),
        ),
        GuestOutcome::MemoryAtStart(initial) => CapError::with_data(
            ErrorCode::Unavailable,
            format!(
                "'{name}' starts with {} MiB of memory, more than the {} MiB its grant allows; the operator must raise its memory_mib",
                initial.div_ceil(1 << 20),
                grant.budget.max_memory_bytes >> 20
            ),
            json!({"initial_memory_bytes": initial, "max_memory_bytes": grant.budget.max_memory_bytes, "retryable": false}),
        ),
        GuestOutcome::Trapped { trap, stderr } => {
            let panic = panic_message(&stderr);
            let why = if panic.is_empty() { trap } else { panic };
            CapError::internal(format!("capability '{name}' failed: {why}"))
        }
    };
    Err(refusal.into())
}

fn fmt_seconds(s: f64) -> String {
    if s.fract() == 0.0 {
        format!("{}", s as i64)
    } else {
        format!("{s}")
    }
}

/// What the guest returned, parsed, on its way out.
#[derive(Clone)]
pub(crate) struct Outgoing {
    /// Shared: a kept output hands the same tree to every call that reuses it.
    data: Arc<Value>,
    /// `data` as JSON text, made once when the output is kept: what the byte cap measures and
    /// the adapters write on every call that reuses it.
    data_json: Option<Arc<RawValue>>,
    facts: Vec<Value>,
    banners: Vec<String>,
    truncated: bool,
    text: String,
    images: Vec<camber_common::Image>,
    /// What the guest attached, checked ([`crate::content`]).
    attached: Vec<camber_common::ContentBlock>,
}

/// Finishing: everything done to what the guest returned, in the host.
///
/// The steps up to the paths are a function of the guest's result, the call's token, the
/// licence wall's banner, the caller's row cap and allowlist, the caller's path-like values and
/// the redactor's roots. For a result the memo keeps (whose key holds the row cap and the
/// allowlist), their output is kept with it under a digest of the rest, and a call with all
/// of them the same takes that output in place of making it again. The evidence image and the
/// byte cap run on every call.
pub(crate) fn finish(
    cap: &CapabilityEntry,
    name: &str,
    returned: Returned,
    adm: &Admitted,
    ctx: &CallContext,
    sent: &Sent,
) -> Result<CapabilityResult, Refusal> {
    let internal = |why: &str| -> Refusal { CapError::internal(format!("capability '{name}' {why}")).into() };
    let Returned { fresh, kept, attached } = returned;
    let key = kept.as_ref().map(|_| finished_key(adm, ctx, sent));
    let made =
        kept.as_ref().zip(key.as_deref()).and_then(|(k, key)| step("memo", || k.finished(key).map(|o| (*o).clone())));
    let mut o = match made {
        Some(o) => o,
        None => {
            let out = match (fresh, &kept) {
                (Some(out), _) => out,
                (None, Some(k)) => k.result.clone(),
                (None, None) => return Err(internal("returned nothing")),
            };
            let mut o = policy_steps(cap, out, adm, ctx, sent, &internal)?;
            if let (Some(k), Some(key)) = (&kept, key) {
                step("memo", || {
                    o.data_json = serde_json::value::to_raw_value(&*o.data).ok().map(Arc::from);
                    k.keep_finished(key, o.clone())
                });
            }
            o
        }
    };
    step("evidence image", || evidence_image(&mut o, cap, adm, ctx, sent));
    o.attached =
        step("attached content", || crate::content::check(attached.blocks, attached.dropped, &ctx.redactor, sent))
            .map_err(|why| internal(&why))?;
    step("byte cap", || byte_cap(&o, ctx))?;
    Ok(CapabilityResult {
        data: o.data,
        text: o.text,
        facts: o.facts,
        banners: o.banners,
        truncated: o.truncated,
        images: o.images,
        attached: o.attached,
        data_json: o.data_json,
    })
}

/// Every step of the policy on a guest's result up to the paths.
fn policy_steps(
    cap: &CapabilityEntry,
    out: wit::CallResult,
    adm: &Admitted,
    ctx: &CallContext,
    sent: &Sent,
    internal: &dyn Fn(&str) -> Refusal,
) -> Result<Outgoing, Refusal> {
    let mut o = step("result from JSON text", || parse_output(out, adm, internal))?;
    step("6 pages and caps", || pages_and_caps(&mut o, cap, ctx));
    step("output schema", || output_schema(&o, cap, internal))?;
    step("facility check", || facility_check(&o, ctx, internal))?;
    step("fact ids", || fact_ids(&mut o, &adm.token, internal))?;
    step("7 citations", || citations(&mut o, internal))?;
    step("8 text rules", || text_rules(&mut o));
    step("10 paths", || paths(&mut o, ctx, sent));
    Ok(o)
}

/// What the policy steps up to the paths depend on besides the memo's key: the call token, the
/// licence wall's banner, the caller's path-like values and the redactor's roots.
fn finished_key(adm: &Admitted, ctx: &CallContext, sent: &Sent) -> memo::MemoKey {
    let banner = adm.wall.as_ref().and_then(|w| w.banner());
    let material = json!([adm.token, banner, sent.values(), ctx.redactor.roots()]);
    camber_common::canonical::sha256_hex(material.to_string().as_bytes())
}

/// The guest's data (an object), facts (an array) and banners, with the licence wall's banner
/// first.
fn parse_output(out: wit::CallResult, adm: &Admitted, internal: &dyn Fn(&str) -> Refusal) -> Result<Outgoing, Refusal> {
    let data: Value = serde_json::from_str(&out.data).map_err(|_| internal("returned data that is not JSON"))?;
    if !data.is_object() {
        return Err(internal("returned data that is not a JSON object"));
    }
    let facts: Vec<Value> = match serde_json::from_str(&out.facts) {
        Ok(Value::Array(a)) => a,
        _ => return Err(internal("returned facts that are not a JSON array")),
    };
    let mut banners = out.banners;
    if let Some(b) = adm.wall.as_ref().and_then(|w| w.banner()) {
        banners.insert(0, b);
    }
    let mut o = Outgoing {
        data: Arc::new(data),
        facts,
        banners,
        truncated: false,
        text: out.text,
        images: Vec::new(),
        attached: Vec::new(),
        data_json: None,
    };
    for p in &out.pages {
        let n = PageNotice {
            list: p.key.clone(),
            offset: p.offset,
            limit: p.limit,
            total: p.total,
            order: p.order.clone(),
        };
        o.banners.push(n.banner());
        o.truncated = true;
    }
    Ok(o)
}

/// Step 6: Limits: the page notices are banners (above); a list over the row cap is cut; a string
/// over 2,000 characters in data or facts is cut (never a capability's own output).
fn pages_and_caps(o: &mut Outgoing, cap: &CapabilityEntry, ctx: &CallContext) {
    let cap_banners = policy::row_cap(Arc::make_mut(&mut o.data), ctx.limits.max_rows);
    o.truncated |= !cap_banners.is_empty();
    o.banners.extend(cap_banners);
    let mut cut = policy::cap_data_strings(Arc::make_mut(&mut o.data), &cap.own_output);
    for f in o.facts.iter_mut() {
        cut += policy::cap_strings(f);
    }
    if cut > 0 {
        o.truncated = true;
        o.banners.push(format!(
            "{cut} value(s) longer than 2,000 characters were cut (an ellipsis and a short hash mark each cut)"
        ));
    }
}

/// The data matches the capability's output schema, else the capability is at fault.
fn output_schema(o: &Outgoing, cap: &CapabilityEntry, internal: &dyn Fn(&str) -> Refusal) -> Result<(), Refusal> {
    let errors = cap.output.errors(&o.data);
    if errors.is_empty() {
        return Ok(());
    }
    Err(internal(&format!(
        "returned data that does not match its output schema: {}",
        errors.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
    )))
}

/// A result that names a facility outside the allowlist is the capability's fault (and does
/// not say which).
fn facility_check(o: &Outgoing, ctx: &CallContext, internal: &dyn Fn(&str) -> Refusal) -> Result<(), Refusal> {
    let outside = policy::outside_allowlist(&o.data, &ctx.allowed).is_some()
        || o.facts.iter().any(|f| policy::outside_allowlist(f, &ctx.allowed).is_some());
    if outside {
        return Err(internal("returned a result that names a facility outside the allowlist"));
    }
    Ok(())
}

/// Fact ids get the call's token, in facts, in the data's fact keys and in the text's own
/// citations; fact texts become one line with no citation.
fn fact_ids(o: &mut Outgoing, token: &str, internal: &dyn Fn(&str) -> Refusal) -> Result<(), Refusal> {
    let mapping = policy::scope_facts(&mut o.facts, Arc::make_mut(&mut o.data), token)
        .map_err(|why| internal(&format!("returned bad facts: {why}")))?;
    policy::clean_fact_texts(&mut o.facts);
    o.text = policy::scope_text(&summary_line(&o.text), &mapping);
    Ok(())
}

/// Step 7: Citations, strict: a sentence stating a figure no cited fact carries is removed, and so
/// is a citation of an id the result has no fact for, each with a banner.
fn citations(o: &mut Outgoing, internal: &dyn Fn(&str) -> Refusal) -> Result<(), Refusal> {
    let (text, banners) =
        policy::grounded(&o.text, &o.facts).map_err(|why| internal(&format!("returned bad facts: {why}")))?;
    o.text = text;
    o.banners.extend(banners);
    Ok(())
}

/// Step 8: Text from the data: the summary, every banner and every fact text are one line
/// (controls, bidi and invisible characters removed; `NOTICE` at the start defused).
fn text_rules(o: &mut Outgoing) {
    o.text = summary_line(&o.text);
    for b in o.banners.iter_mut() {
        *b = one_line(b);
    }
}

/// Step 10: No leaks: the known roots, any other absolute path outside a quoted name, and the paths
/// the caller sent (unless the data holds them exactly: then they are stored names) are
/// `<path>` in the text, the banners and the fact texts.
fn paths(o: &mut Outgoing, ctx: &CallContext, sent: &Sent) {
    let echoes = sent.except_in(&o.data);
    o.text = ctx.redactor.redact_echoes(&o.text, &echoes);
    for b in o.banners.iter_mut() {
        *b = ctx.redactor.redact_echoes(b, &echoes);
    }
    for f in o.facts.iter_mut() {
        if let Some(Value::String(t)) = f.get_mut("text") {
            *t = ctx.redactor.redact_echoes(t, &echoes);
        }
    }
}

/// The evidence charts a result asks for (`chart.image`: finding_detail's, rcx_report's issues'),
/// drawn by the host from the store for a facility the caller may read, each alt text one line
/// and redacted like the text. They count in the byte cap below. The charts read the store
/// after the guest's fences were checked, so the fences are checked once more: a chart drawn
/// across a rewrite is left out with a banner, never shown beside a finding it may not match.
fn evidence_image(o: &mut Outgoing, cap: &CapabilityEntry, adm: &Admitted, ctx: &CallContext, sent: &Sent) {
    let Some(store) = ctx.store.as_deref() else {
        return;
    };
    if !o.data["facility_id"].as_str().is_some_and(|f| ctx.allowed.contains(f)) {
        return;
    }
    let fact = o.facts.iter().find(|f| f["kind"] == "finding").and_then(|f| f["id"].as_str());
    let images = crate::charts::evidence_images(store, &o.data, fact, Some(&cap.unit.memo));
    if images.is_empty() {
        return;
    }
    let echoes = sent.except_in(&o.data);
    if store.fences_after(&adm.fenced, &adm.fence_tokens).is_err() {
        o.banners.push(
            "the store was rewritten while the evidence chart was drawn, so it is left out; call again for it".into(),
        );
        return;
    }
    for mut image in images {
        image.alt = ctx.redactor.redact_echoes(&one_line(&image.alt), &echoes);
        o.images.push(image);
    }
}

/// Step 6 (last): The byte cap over data, text, facts and banners together: `too_large`.
fn byte_cap(o: &Outgoing, ctx: &CallContext) -> Result<(), Refusal> {
    let size = policy::result_bytes(&o.data, o.data_json.as_deref().map(RawValue::get), &o.text, &o.facts, &o.banners)
        + o.images.iter().map(|i| i.data.len() + i.alt.len()).sum::<usize>()
        + o.attached.iter().map(camber_common::ContentBlock::bytes).sum::<usize>();
    if size <= ctx.limits.max_bytes {
        return Ok(());
    }
    Err(CapError::with_data(
        ErrorCode::TooLarge,
        format!(
            "the result is {} bytes, over this caller's limit of {}; narrow the query",
            thousands(size),
            thousands(ctx.limits.max_bytes)
        ),
        json!({"bytes": size, "max_bytes": ctx.limits.max_bytes}),
    )
    .into())
}
