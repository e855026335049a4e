//! The `points` capability: the stored points of one facility, filtered and paged.

use camber_sdk::{name, page, store, unknown_selection, CapError, Capability, Context, Output, Plugin};
use serde_json::{json, Value};

/// Rows per page when the caller gives no `limit`.
const DEFAULT_LIMIT: usize = 250;

fn input_schema() -> Value {
    let text = |d: &str| json!({"type": "string", "minLength": 1, "maxLength": 200, "description": d});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["facility_id"],
        "additionalProperties": false,
        "properties": {
            "facility_id": text("a facility_id from the facilities capability"),
            "equip": text("only this equipment id (exact match)"),
            "role": text("only this point role (e.g. supply_air_temp)"),
            "equip_class": text("only equipment of this class (e.g. AHU)"),
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000,
                      "description": "rows per page (default 250)"},
            "offset": {"type": "integer", "minimum": 0,
                       "description": "rows to skip (for the next page)"}
        }
    })
}

fn output_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["facility_id", "points", "count", "n_equipment"],
        "additionalProperties": false,
        "properties": {
            "facility_id": {"type": "string"},
            "points": {"type": "array", "items": {
                "type": "object",
                "required": ["equip", "equip_class", "role"],
                "additionalProperties": false,
                "properties": {
                    "equip": {"type": "string"},
                    "equip_class": {"type": "string"},
                    "role": {"type": "string"}
                }
            }},
            "count": {"type": "integer", "minimum": 0, "description": "matching points (the whole list, not the page)"},
            "n_equipment": {"type": "integer", "minimum": 0}
        }
    })
}

fn points(args: &Value, _ctx: &Context) -> Result<Output, CapError> {
    let fid = args["facility_id"].as_str().unwrap_or_default();
    let want_eq = args.get("equip").and_then(Value::as_str);
    let want_role = args.get("role").and_then(Value::as_str);
    let want_cls = args.get("equip_class").and_then(Value::as_str);
    let limit = camber_sdk::count_arg(args, "limit", DEFAULT_LIMIT);
    let offset = camber_sdk::count_arg(args, "offset", 0);

    let all = store::points(fid)?;
    if all.is_empty() {
        return Err(CapError::not_found(format!("facility '{fid}' has no stored data"), json!({"facility_id": fid})));
    }
    if let Some(e) = want_eq {
        if !all.iter().any(|p| p.equip == e) {
            return Err(unknown_selection(
                fid,
                "equip",
                "equipment",
                &[e.to_string()],
                all.iter().map(|p| p.equip.clone()),
            ));
        }
    }
    if let Some(r) = want_role {
        if !all.iter().any(|p| p.role == r) {
            return Err(unknown_selection(fid, "role", "role", &[r.to_string()], all.iter().map(|p| p.role.clone())));
        }
    }
    if let Some(c) = want_cls {
        if !all.iter().any(|p| p.equip_class == c) {
            return Err(unknown_selection(
                fid,
                "equip_class",
                "equipment class",
                &[c.to_string()],
                all.iter().map(|p| p.equip_class.clone()),
            ));
        }
    }
    let mut rows: Vec<&store::Point> = all
        .iter()
        .filter(|p| want_eq.is_none_or(|e| p.equip == e))
        .filter(|p| want_role.is_none_or(|r| p.role == r))
        .filter(|p| want_cls.is_none_or(|c| p.equip_class == c))
        .collect();
    rows.sort_by(|a, b| (&a.equip, &a.role).cmp(&(&b.equip, &b.role)));
    let count = rows.len();
    let mut equips: Vec<&str> = rows.iter().map(|p| p.equip.as_str()).collect();
    equips.dedup();
    let n_eq = equips.len();

    let filters: Vec<String> = [("equip", want_eq), ("role", want_role), ("class", want_cls)]
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| format!("{k} {}", name(v))))
        .collect();
    let mut fact_text = format!("{fid} stores {count} points on {n_eq} equipment");
    if !filters.is_empty() {
        fact_text.push_str(&format!(" matching {}", filters.join(", ")));
    }
    let facts = vec![json!({
        "id": "F1@points", "kind": "point_count", "facility_id": fid, "value": count, "text": fact_text,
    })];
    let text = format!("{fid} stores {count} matching points on {n_eq} equipment [F1@points].");

    let (page_rows, notice) = page(rows, "points", offset, limit, "by equipment, then role");
    let rows: Vec<Value> = page_rows
        .into_iter()
        .map(|p| json!({"equip": p.equip, "equip_class": p.equip_class, "role": p.role}))
        .collect();
    let data = json!({"facility_id": fid, "points": rows, "count": count, "n_equipment": n_eq});
    let mut out = Output::new(data, text, facts);
    out.pages.extend(notice);
    Ok(out)
}

fn plugin() -> Plugin {
    Plugin::new().capability(
        Capability::new("points", points)
            .title("Points of a facility")
            .description(
                "List the stored points (trend series) of one facility: each point's equipment id, \
                 equipment class and role (what it measures, such as supply_air_temp), sorted by \
                 equipment then role. Filter by equip, role or equip_class to narrow a large site; \
                 a filter value the facility does not store is not_found and the error lists what \
                 it does store. Pages of 250 rows (limit, offset). Call it to see what data a \
                 facility has before asking for an analysis. Needs facility_id (see facilities).",
            )
            .input_schema(input_schema())
            .output_schema(output_schema())
            .cost("cheap"),
    )
}

camber_sdk::export_plugin!(plugin);
