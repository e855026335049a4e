//! MCP resources: what an assistant's client can open rather than call. A facility's RCx report
//! page (HTML), its point list (JSON), a finding's evidence chart (PNG) and each dataset
//! catalog entry (JSON), under `camber://` URIs and their templates; and the resources
//! components serve under URIs of their own, read in the sandbox for the caller.
//!
//! A read is a capability call under the hood (`points`, `finding_detail`, `dataset_entry`, or
//! `rcx_report` and its charts for the page), made for the session's caller, so it passes the
//! same pipeline as a tool call: the allowlist, the licence wall, the fences, redaction and the
//! byte cap. A resource the caller may not read is not found, with the call's own reason.

use serde_json::{json, Value};

use camber_common::CapError;

use crate::mcp::Session;
use crate::Service;

/// The RCx report as an MCP App (the `io.modelcontextprotocol/ui` extension): the page a client
/// that renders apps shows beside `rcx_report`'s result, drawn from that result.
pub const APP_URI: &str = "ui://camber/rcx-report";
/// The app's MIME type, as the extension names an app's HTML.
pub const APP_MIME: &str = "text/html;profile=mcp-app";
/// The app's page: inline script and style, no fetch (its own CSP says so too).
pub const APP_HTML: &str = include_str!("app.html");

/// MCP's "resource not found" error code.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// Resources per `resources/list` page.
pub const PAGE: usize = 50;

/// One kind of resource: its URI template, name, title, description and type.
struct Template {
    uri: &'static str,
    name: &'static str,
    title: &'static str,
    description: &'static str,
    mime: &'static str,
}

const TEMPLATES: [Template; 4] = [
    Template {
        uri: "camber://facility/{facility_id}/report",
        name: "rcx-report",
        title: "RCx report page",
        description: "A facility's retro-commissioning report as one self-contained HTML page: KPIs, the \
                      ranked issues with their costs and an evidence chart each, declined checks and data gaps.",
        mime: "text/html",
    },
    Template {
        uri: "camber://facility/{facility_id}/points",
        name: "points",
        title: "Point list",
        description: "A facility's points (equipment, role, unit, samples, span), as the points tool returns them.",
        mime: "application/json",
    },
    Template {
        uri: "camber://facility/{facility_id}/finding/{finding_id}/chart.png",
        name: "finding-chart",
        title: "Evidence chart of a finding",
        description: "The evidence chart of one finding (a finding_id from rule_run, drift or rcx_report): the \
                      signals its rule read over the run's window, the flagged spans shaded, as a PNG.",
        mime: "image/png",
    },
    Template {
        uri: "camber://dataset/{dataset_id}",
        name: "dataset",
        title: "Dataset catalog entry",
        description: "One dataset's catalog metadata, as dataset_entry returns it.",
        mime: "application/json",
    },
];

/// What a URI names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Report {
        facility_id: String,
    },
    Points {
        facility_id: String,
    },
    Chart {
        facility_id: String,
        finding_id: String,
    },
    Dataset {
        dataset_id: String,
    },
    /// The RCx report app ([`APP_URI`]).
    App,
}

/// A URI path segment, percent-decoded; `None` when empty, when a `%` is not followed by two hex
/// digits (the decoder would keep it as it is), or when not UTF-8 after decoding.
fn segment(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let malformed = b.iter().enumerate().any(|(i, &c)| {
        c == b'%'
            && !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    if malformed {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(s).decode_utf8().ok()?;
    (!decoded.is_empty()).then(|| decoded.into_owned())
}

/// What a segment keeps as it is: unreserved characters, `@` and `:` (a finding id's).
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'@').remove(b':');

/// A segment as a URI carries it.
fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// What a `camber://` URI names, or why it names nothing.
pub fn parse(uri: &str) -> Result<Target, String> {
    if uri == APP_URI {
        return Ok(Target::App);
    }
    let rest = uri.strip_prefix("camber://").ok_or("not a camber:// URI")?;
    let parts: Vec<&str> = rest.split('/').collect();
    let seg = |s: &str| segment(s).ok_or_else(|| "a URI segment is empty or not UTF-8".to_string());
    match parts.as_slice() {
        ["facility", f, "report"] => Ok(Target::Report { facility_id: seg(f)? }),
        ["facility", f, "points"] => Ok(Target::Points { facility_id: seg(f)? }),
        ["facility", f, "finding", id, "chart.png"] => Ok(Target::Chart { facility_id: seg(f)?, finding_id: seg(id)? }),
        ["dataset", d] => Ok(Target::Dataset { dataset_id: seg(d)? }),
        _ => Err("no such camber resource (see resources/templates/list)".into()),
    }
}

impl Target {
    /// The URI of this target.
    pub fn uri(&self) -> String {
        match self {
            Target::Report { facility_id } => format!("camber://facility/{}/report", encode(facility_id)),
            Target::Points { facility_id } => format!("camber://facility/{}/points", encode(facility_id)),
            Target::Chart { facility_id, finding_id } => {
                format!("camber://facility/{}/finding/{}/chart.png", encode(facility_id), encode(finding_id))
            }
            Target::Dataset { dataset_id } => format!("camber://dataset/{}", encode(dataset_id)),
            Target::App => APP_URI.to_string(),
        }
    }

    /// The facility this resource reads, if any (a subscription watches it).
    pub fn facility(&self) -> Option<&str> {
        match self {
            Target::Report { facility_id } | Target::Points { facility_id } | Target::Chart { facility_id, .. } => {
                Some(facility_id)
            }
            Target::Dataset { .. } | Target::App => None,
        }
    }
}

/// `resources/templates/list`: the host's, then the components'.
pub fn templates(svc: &Service) -> Value {
    let mut t: Vec<Value> = TEMPLATES
        .iter()
        .map(|t| {
            json!({"uriTemplate": t.uri, "name": t.name, "title": t.title, "description": t.description, "mimeType": t.mime})
        })
        .collect();
    t.extend(svc.component_resources().into_iter().filter(|r| r.template).map(|r| {
        json!({"uriTemplate": r.uri, "name": r.name, "title": r.title, "description": r.description, "mimeType": r.mime_type})
    }));
    json!({"resourceTemplates": t})
}

/// Whether a component serves `uri` (one it lists, or one matching a template it lists).
pub fn component_serves(svc: &Service, uri: &str) -> bool {
    svc.component_resources().iter().any(|r| r.serves(uri))
}

fn template(name: &str) -> &'static Template {
    TEMPLATES.iter().find(|t| t.name == name).unwrap_or(&TEMPLATES[0])
}

/// The facilities this session's caller may read, by the `facilities` capability.
fn facilities(svc: &Service, session: &Session) -> Vec<(String, String)> {
    svc.call("facilities", &json!({}), &session.caller, session.allowed.as_ref(), None)
        .map(|r| {
            r.data["facilities"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| {
                    let id = f["facility_id"].as_str()?.to_string();
                    let name = f["name"].as_str().or(f["site"].as_str()).unwrap_or(&id).to_string();
                    Some((id, name))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the session's caller may see a facility (the `facilities` capability lists it).
pub fn visible(svc: &Service, session: &Session, facility_id: &str) -> bool {
    facilities(svc, session).iter().any(|(id, _)| id == facility_id)
}

/// The catalog's datasets: (id, title).
fn datasets(svc: &Service, session: &Session) -> Vec<(String, String)> {
    svc.call("dataset_search", &json!({"limit": 1000}), &session.caller, session.allowed.as_ref(), None)
        .map(|r| {
            r.data["datasets"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| Some((d["id"].as_str()?.to_string(), d["title"].as_str().unwrap_or("").to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// Every resource the caller may see (each facility's report and point list, each catalog
/// entry), one page from `offset`; the next page's offset when there is one.
pub fn list(svc: &Service, session: &Session, offset: usize) -> Result<(Vec<Value>, Option<usize>), String> {
    let mut all: Vec<Value> = vec![json!({
        "uri": APP_URI, "name": "rcx-report-app", "title": "RCx report (interactive)", "mimeType": APP_MIME,
        "description": "The RCx report as an MCP App: rcx_report's issues with their costs, and each issue's finding and evidence chart on a click.",
    })];
    for (id, name) in facilities(svc, session) {
        for (target, t) in [
            (Target::Report { facility_id: id.clone() }, template("rcx-report")),
            (Target::Points { facility_id: id.clone() }, template("points")),
        ] {
            all.push(json!({
                "uri": target.uri(), "name": format!("{} {}", t.name, id), "title": format!("{}: {name}", t.title),
                "mimeType": t.mime,
            }));
        }
    }
    let t = template("dataset");
    for (id, title) in datasets(svc, session) {
        all.push(json!({
            "uri": Target::Dataset { dataset_id: id.clone() }.uri(), "name": format!("dataset {id}"),
            "title": if title.is_empty() { id.clone() } else { title }, "mimeType": t.mime,
        }));
    }
    for r in svc.component_resources().into_iter().filter(|r| !r.template) {
        let mut v = json!({"uri": r.uri, "name": r.name, "title": r.title, "mimeType": r.mime_type});
        if !r.description.is_empty() {
            v["description"] = json!(r.description);
        }
        all.push(v);
    }
    if offset > all.len() {
        return Err("unknown cursor".into());
    }
    let next = (offset + PAGE < all.len()).then_some(offset + PAGE);
    Ok((all.into_iter().skip(offset).take(PAGE).collect(), next))
}

/// Why a read failed: the JSON-RPC error's code and message.
pub type ReadError = (i64, String);

fn refused(svc: &Service, uri: &str, e: CapError) -> ReadError {
    (RESOURCE_NOT_FOUND, format!("Resource not found: {}: {}: {}", svc.redactor().echo(uri), e.code, e.message))
}

/// `resources/read` of one URI, for the session's caller, through the capability it stands for.
pub fn read(svc: &Service, session: &Session, uri: &str) -> Result<Value, ReadError> {
    let target = match parse(uri) {
        Ok(t) => t,
        Err(why) => return read_component(svc, session, uri, &why),
    };
    let call = |name: &str, args: Value| svc.call(name, &args, &session.caller, session.allowed.as_ref(), None);
    let content = match &target {
        Target::App => json!({
            "uri": APP_URI, "mimeType": APP_MIME, "text": APP_HTML,
            "_meta": {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": true}},
        }),
        Target::Points { facility_id } => {
            let r =
                call("points", json!({"facility_id": facility_id, "limit": 1000})).map_err(|e| refused(svc, uri, e))?;
            json!({"uri": uri, "mimeType": "application/json", "text": json!({"data": r.data, "facts": r.facts, "banners": r.banners}).to_string()})
        }
        Target::Dataset { dataset_id } => {
            let r = call("dataset_entry", json!({"dataset_id": dataset_id})).map_err(|e| refused(svc, uri, e))?;
            json!({"uri": uri, "mimeType": "application/json", "text": json!({"data": r.data, "facts": r.facts, "banners": r.banners}).to_string()})
        }
        Target::Chart { facility_id, finding_id } => {
            let r =
                call("finding_detail", json!({"facility_id": facility_id, "finding_id": finding_id, "image": true}))
                    .map_err(|e| refused(svc, uri, e))?;
            let image = r.images.first().ok_or_else(|| {
                (
                    RESOURCE_NOT_FOUND,
                    format!("Resource not found: {} has no evidence chart to draw", svc.redactor().echo(finding_id)),
                )
            })?;
            json!({"uri": uri, "mimeType": image.mime_type, "blob": image.data, "_meta": {"camber/alt": image.alt}})
        }
        Target::Report { facility_id } => {
            let html = svc
                .report_page(facility_id, &session.caller, session.allowed.as_ref())
                .map_err(|e| refused(svc, uri, e))?;
            json!({"uri": uri, "mimeType": "text/html", "text": html})
        }
    };
    Ok(json!({"contents": [content]}))
}

/// `resources/read` of a URI a component serves, in the sandbox for the session's caller.
fn read_component(svc: &Service, session: &Session, uri: &str, why: &str) -> Result<Value, ReadError> {
    use camber_common::ContentBlock;
    let Some(read) = svc.read_component_resource(uri, &session.caller, session.allowed.as_ref()) else {
        return Err((RESOURCE_NOT_FOUND, format!("Resource not found: {why}")));
    };
    let blocks = read.map_err(|e| refused(svc, uri, e))?;
    let contents: Vec<Value> = blocks
        .into_iter()
        .filter_map(|b| match b {
            ContentBlock::Resource { uri, mime_type, text: Some(t), .. } => {
                Some(json!({"uri": uri, "mimeType": mime_type, "text": t}))
            }
            ContentBlock::Resource { uri, mime_type, blob: Some(b), .. } => {
                Some(json!({"uri": uri, "mimeType": mime_type, "blob": b}))
            }
            _ => None,
        })
        .collect();
    Ok(json!({"contents": contents}))
}

/// Completion of a resource template's argument: facility ids the caller may see, dataset ids
/// of the catalog, and a facility's finding ids at warn or fault (its rule run, when the
/// client has already filled in `facility_id`); matched by prefix, case aside.
pub fn complete(svc: &Service, session: &Session, argument: &str, typed: &str, context: &Value) -> Vec<String> {
    let mut values: Vec<String> = match argument {
        "facility_id" => facilities(svc, session).into_iter().map(|(id, _)| id).collect(),
        "dataset_id" => datasets(svc, session).into_iter().map(|(id, _)| id).collect(),
        "finding_id" => match context.get("facility_id").and_then(Value::as_str) {
            Some(fid) => svc
                .call(
                    "rule_run",
                    &json!({"facility_id": fid, "limit": 1000}),
                    &session.caller,
                    session.allowed.as_ref(),
                    None,
                )
                .map(|r| {
                    r.data["findings"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|f| matches!(f["severity"].as_str(), Some("warn" | "fault")))
                        .filter_map(|f| f["finding_id"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    let typed = typed.to_lowercase();
    values.retain(|v| v.to_lowercase().starts_with(&typed));
    values
}

/// Whether a template URI is one of this server's (the host's own).
pub fn is_template(uri: &str) -> bool {
    TEMPLATES.iter().any(|t| t.uri == uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_decode_their_segments() {
        for t in [
            Target::Report { facility_id: "ds-synthetic-chw-plant".into() },
            Target::Points { facility_id: "hq".into() },
            Target::Chart { facility_id: "hq".into(), finding_id: "tower:fan_effort_drift@CT 1/x".into() },
            Target::Dataset { dataset_id: "lbnl-sdahu".into() },
        ] {
            assert_eq!(parse(&t.uri()), Ok(t.clone()), "{}", t.uri());
        }
        assert_eq!(
            parse("camber://facility/hq/finding/leaking_valve%40AHU-1/chart.png"),
            Ok(Target::Chart { facility_id: "hq".into(), finding_id: "leaking_valve@AHU-1".into() })
        );
        for bad in
            ["http://x", "camber://facility//report", "camber://facility/hq", "camber://dataset/%zz", "camber://x/y"]
        {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Target::Points { facility_id: "hq".into() }.facility(), Some("hq"));
        assert_eq!(parse(APP_URI), Ok(Target::App));
        assert!(APP_HTML.contains("ui/initialize") && !APP_HTML.contains("http://") && !APP_HTML.contains("https://"));
        assert!(is_template("camber://dataset/{dataset_id}") && !is_template("camber://dataset/x"));
        assert_eq!(TEMPLATES.len(), 4);
    }
}
