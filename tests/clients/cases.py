"""The arguments the client scripts send: one call of each tool, one get of each prompt, chosen
to suit camber's capabilities on a synthetic store."""


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
