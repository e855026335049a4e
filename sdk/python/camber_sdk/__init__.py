"""Write camber capabilities in Python.

A component declares its capabilities (and prompts) on a :class:`Plugin` and binds the
exports at module level; componentize-py builds it against camber's WIT contract (``wit/``)
into a ``_cap_<name>.wasm`` the host loads exactly as it loads a Rust one::

    from camber_sdk import Output, Plugin, store

    plugin = Plugin()

    @plugin.capability("equipment_count", title="Equipment count",
                       description="How many pieces of equipment a facility stores points for.")
    def equipment_count(args, ctx):
        n = len({p.equip for p in store.points(args["facility_id"])})
        return Output({"n": n}, f"{n} equipment [F1@equipment_count].",
                      [{"id": "F1@equipment_count", "kind": "count", "value": n, "text": f"{n} equipment"}])

    WitWorld = plugin.world()

Data comes only through :mod:`camber_sdk.store`, whose reads the host checks against the call.
"""

from . import store
from .errors import CODES, CapError
from .page import MAX_LIMIT, PageNotice, count_arg, page
from .plugin import Capability, Context, Output, Plugin, Prompt, PromptArg
from .store import progress
from .text import name, one_line

__all__ = [
    "CODES",
    "MAX_LIMIT",
    "CapError",
    "Capability",
    "Context",
    "Output",
    "PageNotice",
    "Plugin",
    "Prompt",
    "PromptArg",
    "count_arg",
    "name",
    "one_line",
    "page",
    "progress",
    "store",
    "unknown_selection",
]


def unknown_selection(facility_id: str, argument: str, label: str, missing: list[str], stored) -> CapError:
    """``not_found`` for selection values a facility does not store (an equipment, a role):
    the message names the unknown values and up to 10 stored ones, quoted, on one line; the
    data has ``argument``, ``unknown`` and up to 50 ``available`` values."""
    stored = sorted(set(stored))
    shown = ", ".join(name(s) for s in stored[:10]) or "none"
    more = f" and {len(stored) - 10} more" if len(stored) > 10 else ""
    return CapError.not_found(
        f"facility '{facility_id}' stores no {label} {', '.join(name(m) for m in missing)}; it stores {shown}{more}",
        {"argument": argument, "unknown": list(missing), "available": stored[:50]},
    )


def _warm() -> None:
    # componentize-py snapshots the interpreter after importing the app: what runs here (the
    # codecs, the regexes, json's encoder) is ready in every call's fresh instance
    import json

    json.loads(json.dumps({"facility_id": "x", "n": [1, 2.5, None, True]}, ensure_ascii=False, separators=(",", ":")))
    name("AHU-1 [F1@x] <b> https://www.x \"q\"\n\x1b[2J")
    page([1, 2], "rows", 0, 1, "")
    count_arg({"limit": 3}, "limit", 25)


_warm()
