"""A misbehaving Python capability component, for the containment tests: whatever a Python
guest does, the host stops it with the right code and keeps serving. Built by
`cargo xtask test` with componentize-py and the Python SDK."""

import json

from camber_sdk import CapError, Output, Plugin, store

plugin = Plugin()
OBJECT = {"type": "object"}
FACILITY = {
    "type": "object",
    "required": ["facility_id"],
    "additionalProperties": False,
    "properties": {"facility_id": {"type": "string"}},
}


@plugin.capability("py_spin", description="Loops forever (a Python guest that never returns).")
def spin(args, ctx):
    n = 0
    while True:
        n += 1


@plugin.capability("py_membomb", description="Allocates until the memory cap stops it.")
def membomb(args, ctx):
    hoard = []
    while True:
        hoard.append(bytearray(8 << 20))


@plugin.capability("py_raise", description="Raises an exception whose message names a host path.")
def raise_(args, ctx):
    raise ValueError("could not open /home/operator/secrets.csv for reading")


@plugin.capability("py_read_other", description="Reads a facility the call does not name and swallows the refusal.", input_schema=FACILITY)
def read_other(args, ctx):
    try:
        store.points("annex")
    except CapError:
        pass
    return Output({}, "nothing to see", [])


@plugin.capability("py_points", description="Counts a facility's stored points.", input_schema=FACILITY)
def points(args, ctx):
    n = len(store.points(args["facility_id"]))
    return Output({"count": n}, f"{n} points [F1@py_points].", [{"id": "F1@py_points", "kind": "count", "value": n, "text": f"{n} points"}])


@plugin.capability("py_noop", description="Answers at once, reading nothing (the floor of a Python call).")
def noop(args, ctx):
    return Output({}, "nothing", [])


@plugin.prompt("py_ask", title="Ask", description="A prompt from Python.")
def ask(arguments):
    return f"Tell me about {arguments.get('facility_id', 'the building')}."


WitWorld = plugin.world()
