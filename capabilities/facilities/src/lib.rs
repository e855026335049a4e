//! The `facilities` capability: the facilities this caller may read, with their lifecycle
//! state, time zone, stored span and point and equipment counts.

use camber_common::time::iso_from_ns;
use camber_sdk::{name, page, store, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

/// Rows per page when the caller gives no `limit`.
const DEFAULT_LIMIT: usize = 100;
/// Facilities the summary names one by one; the rest are in the facts and data.
const LISTED: usize = 10;
/// The lifecycle states the registry knows; any other value is data and is quoted.
const STATES: [&str; 6] = ["provisioning", "active", "suspended", "offboarding", "archived", "purged"];

fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000,
                      "description": "rows per page (default 100)"},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "rows to skip (for the next page)"}
        }
    })
}

fn output_schema() -> Value {
    let nullable = |d: &str| json!({"type": ["string", "null"], "description": d});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["facilities", "count", "withheld_research_only", "withheld_unverified"],
        "additionalProperties": false,
        "properties": {
            "facilities": {"type": "array", "items": {
                "type": "object",
                "required": ["facility_id", "name", "state", "start", "end", "n_points", "n_equipment"],
                "additionalProperties": false,
                "properties": {
                    "facility_id": {"type": "string"},
                    "name": {"type": "string"},
                    "state": {"type": "string"},
                    "timezone": nullable("IANA time zone of the site"),
                    "start": nullable("first stored sample (ISO, site wall clock)"),
                    "end": nullable("last stored sample (ISO, site wall clock)"),
                    "n_points": {"type": "integer", "minimum": 0},
                    "n_equipment": {"type": "integer", "minimum": 0},
                    "unavailable": {
                        "type": "object",
                        "required": ["retryable"],
                        "additionalProperties": false,
                        "properties": {"retryable": {"type": "boolean"}},
                        "description": "set when the facility's stored files cannot be read"
                    }
                }
            }},
            "count": {"type": "integer", "minimum": 0, "description": "visible facilities (the whole list)"},
            "withheld_research_only": {"type": "integer", "minimum": 0,
                "description": "allowed facilities left out: research-only data"},
            "withheld_unverified": {"type": "integer", "minimum": 0,
                "description": "allowed facilities left out: their licence cannot be established"}
        }
    })
}

fn state_words(state: &str) -> String {
    if STATES.contains(&state) {
        state.to_string()
    } else {
        name(state)
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn facilities(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);
    let list = store::facilities()?;
    let (all, withheld, unverified) = (list.facilities, list.withheld_research_only, list.withheld_unverified);
    let count = all.len();

    let (rows, notice) = page(all, "facilities", offset, limit, "by facility_id");
    let mut facts = vec![json!({
        "id": "F1@facilities", "kind": "facility_count", "value": count,
        "text": format!("{} visible to this caller",
            if count == 1 { "1 facility is".to_string() } else { format!("{count} facilities are") }),
    })];
    let mut text = vec![format!(
        "{} visible [F1@facilities].",
        if count == 1 { "1 facility is".to_string() } else { format!("{count} facilities are") }
    )];
    let mut data_rows = Vec::with_capacity(rows.len());
    for (i, f) in rows.iter().enumerate() {
        let fid = &f.facility_id;
        let display = f.name.clone().unwrap_or_else(|| fid.clone());
        let start = f.first_ns.map(iso_from_ns);
        let end = f.last_ns.map(iso_from_ns);
        let mut row = json!({
            "facility_id": fid, "name": display, "state": f.lifecycle, "timezone": f.timezone,
            "start": start, "end": end, "n_points": f.n_points, "n_equipment": f.n_equipment,
        });
        let fact_id = format!("F{}@facilities", i + 2);
        let span = match (&start, &end, f.unavailable_retryable) {
            (_, _, Some(_)) => "its stored data cannot be read now".to_string(),
            (Some(s), Some(e), None) => format!("data from {s} to {e}"),
            _ => "no stored data".to_string(),
        };
        if let Some(retryable) = f.unavailable_retryable {
            row["unavailable"] = json!({"retryable": retryable});
        }
        facts.push(json!({
            "id": fact_id, "kind": "facility", "facility_id": fid, "value": f.n_points,
            "text": format!("{fid} ({}): {}, {} on {} equipment, {span}",
                name(&display), state_words(&f.lifecycle),
                plural(f.n_points as usize, "point", "points"), f.n_equipment),
        }));
        if i < LISTED {
            let status = if f.unavailable_retryable.is_some() { " (its stored data cannot be read now)" } else { "" };
            text.push(format!(
                "{fid} is {} with {}{status} [{fact_id}].",
                state_words(&f.lifecycle),
                plural(f.n_points as usize, "point", "points")
            ));
        }
        data_rows.push(row);
    }
    if rows.len() > LISTED {
        text.push("The other facilities on this page are listed in the facts and the data.".to_string());
    }
    let data = json!({
        "facilities": data_rows, "count": count,
        "withheld_research_only": withheld, "withheld_unverified": unverified,
    });
    let mut out = Output::new(data, text.join(" "), facts);
    if withheld > 0 {
        out.banners.push(format!(
            "{withheld} allowed facility(ies) hold research-only (non-commercial / no-derivatives) \
             data and are not listed: such data is never served here."
        ));
    }
    if unverified > 0 {
        out.banners.push(format!(
            "{unverified} allowed facility(ies) are not listed because their licence cannot be established \
             (see the registry notice); they are refused until it is repaired."
        ));
    }
    out.pages.extend(notice);
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("facilities", facilities)
            .title("Facilities")
            .description(
                "List the facilities (buildings) this caller may read: each one's id, name, \
                 lifecycle state, time zone, first and last stored sample, and how many points and \
                 equipment it stores. Call it first to learn which facility_id values the other \
                 capabilities accept. Research-only facilities are left out and counted. Pages of \
                 100 (limit, offset).",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("cheap"),
    )
}

camber_sdk::export_plugin!(plugin);
