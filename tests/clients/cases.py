"""What the client scripts share: the arguments they send (one call of each tool, one get of
each prompt, chosen to suit camber's capabilities on a synthetic store) and the round of calls
they make with them."""

import jsonschema


def arguments_for(name, facility, equip):
    """Arguments for one call of tool `name` on `facility` (whose first equipment is `equip`)."""
    return {
        "facilities": {},
        "points": {"facility_id": facility},
        "coverage": {"facility_id": facility, "group_by": "equip"},
        "dataset_search": {"query": "ahu"},
        "dataset_entry": {"dataset_id": "lbnl-sdahu"},
        "check_citations": {"text": "The plant has 3 chillers [F1@x-abcdef].", "facts": [{"id": "F1@x-abcdef", "text": "3 chillers"}]},
    }.get(name, {"facility_id": facility})


FIXED = {"finding_id": "economizer_high_limit@AHU-1", "claim": "saves 10%"}


def prompt_arguments(prompt, facility, equip):
    """Arguments for one get of `prompt` (an SDK Prompt) on `facility` and `equip`."""
    args = {}
    for a in prompt.arguments or []:
        v = {"facility_id": facility, "equip": equip, "equips": f"{equip},{equip}-other"}.get(a.name, FIXED.get(a.name))
        if v is not None:
            args[a.name] = v
    return args


async def call_every_tool(call_tool, tools, facility, out):
    """Call each tool once through `call_tool` (an SDK session's or client's), validating each
    structured result against the tool's output schema, then a call the caller may not make;
    record them in `out`. Returns the first equipment of `facility`, for the prompts."""
    points = await call_tool("points", {"facility_id": facility})
    equip = points.structured_content["points"][0]["equip"]
    for t in tools:
        res = await call_tool(t.name, arguments_for(t.name, facility, equip))
        entry = {"is_error": res.is_error, "text": res.content[0].text if res.content else ""}
        if not res.is_error:
            jsonschema.validate(res.structured_content, t.output_schema)
            entry["valid"] = True
            entry["meta_keys"] = sorted((res.meta or {}).keys())
        out["tools"][t.name] = entry
    # a refusal is a result, not a protocol error
    bad = await call_tool("points", {"facility_id": "not-allowed-here"})
    out["refusal"] = {"is_error": bad.is_error, "text": bad.content[0].text}
    return equip
